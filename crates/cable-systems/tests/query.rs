//! Ray and closest-point queries (`cable_systems::query`) against analytic
//! answers: a straight horizontal cable is a capsule chain whose hits are
//! known in closed form; a sagging scene is checked against an independent
//! f64 scan of every segment; batches are bitwise the same on 1 and 2
//! threads; hostile input is refused with the field named.

use cable_core::{CableDesc, CableError, CableHandle, CableParams, ParticlePool};
use cable_systems::query::{CableQuery, ClosestPoint, Ray, RayHit, closest_point, raycast};
use cable_systems::{SolverParams, Stepper};
use glam::{DVec3, Vec3};

/// Length, segments and radius of the straight test cable along +x.
const LEN: f32 = 4.0;
const SEGS: u32 = 16;
const R: f32 = 0.1;
const SEG: f32 = LEN / SEGS as f32;

fn straight_pool() -> (ParticlePool, CableHandle) {
    let mut pool = ParticlePool::new();
    let h = pool
        .add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(LEN, 0.0, 0.0), LEN, SEGS).unwrap())
        .unwrap();
    pool.set_params(
        h,
        CableParams {
            radius: R,
            ..CableParams::default()
        },
    )
    .unwrap();
    (pool, h)
}

fn cast(query: &CableQuery, origin: Vec3, dir: Vec3, max: f32) -> Option<RayHit> {
    query.raycast(Ray::new(origin, dir, max).unwrap())
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn perpendicular_ray_hits_the_top_of_the_tube() {
    let (pool, h) = straight_pool();
    let q = CableQuery::from_pool(&pool);
    let x = 1.3;
    let hit = cast(&q, Vec3::new(x, 5.0, 0.0), Vec3::NEG_Y, 100.0).expect("a hit");
    assert_eq!(hit.cable, h);
    assert_eq!(hit.segment, (x / SEG) as usize);
    assert!(
        close(hit.t_along_segment, (x - 5.0 * SEG) / SEG, 1e-5),
        "{hit:?}"
    );
    assert!(close(hit.distance, 5.0 - R, 1e-5), "{hit:?}");
    assert!(hit.point.abs_diff_eq(Vec3::new(x, R, 0.0), 1e-5), "{hit:?}");
    assert!(hit.normal.abs_diff_eq(Vec3::Y, 1e-5), "{hit:?}");
    // From below and from the side: the same, mirrored.
    let hit = cast(&q, Vec3::new(x, -2.0, 0.0), Vec3::Y, 100.0).expect("a hit");
    assert!(close(hit.distance, 2.0 - R, 1e-5) && hit.normal.abs_diff_eq(Vec3::NEG_Y, 1e-5));
    let hit = cast(&q, Vec3::new(x, 0.0, -3.0), Vec3::Z, 100.0).expect("a hit");
    assert!(close(hit.distance, 3.0 - R, 1e-5) && hit.normal.abs_diff_eq(Vec3::NEG_Z, 1e-5));
}

/// First entry of the infinite cylinder of radius `r` around the x axis,
/// in f64: (oy + t dy)² + (oz + t dz)² = r².
fn cylinder_entry(o: DVec3, d: DVec3, r: f64) -> Option<f64> {
    let a = d.y * d.y + d.z * d.z;
    let b = o.y * d.y + o.z * d.z;
    let c = o.y * o.y + o.z * o.z - r * r;
    let disc = b * b - a * c;
    (disc >= 0.0 && a > 0.0).then(|| (-b - disc.sqrt()) / a)
}

#[test]
fn oblique_rays_hit_where_the_cylinder_equation_says() {
    let (pool, h) = straight_pool();
    let q = CableQuery::from_pool(&pool);
    // (origin, aim): aims at or near the axis, from every side.
    let cases = [
        (Vec3::new(1.0, 2.0, 1.0), Vec3::new(1.6, 0.0, 0.05)),
        (Vec3::new(3.5, -1.5, 0.5), Vec3::new(2.3, 0.02, 0.0)),
        (Vec3::new(2.0, 0.05, 3.0), Vec3::new(2.3, 0.05, 0.0)),
        (Vec3::new(0.7, 4.0, -4.0), Vec3::new(0.7, 0.0, 0.0)),
        (Vec3::new(-1.0, 0.5, 0.3), Vec3::new(0.9, -0.06, 0.0)),
    ];
    for (o, aim) in cases {
        let d = aim - o;
        let hit = cast(&q, o, d, 100.0).expect("a hit");
        let (od, dd) = (o.as_dvec3(), d.as_dvec3().normalize());
        let t = cylinder_entry(od, dd, f64::from(R)).expect("analytic hit");
        let p = od + dd * t;
        assert!(
            p.x > 0.0 && p.x < f64::from(LEN),
            "test ray must hit the body"
        );
        assert_eq!(hit.cable, h);
        assert!(close(hit.distance, t as f32, 1e-5), "{hit:?} vs t = {t}");
        assert!(hit.point.abs_diff_eq(p.as_vec3(), 1e-5), "{hit:?} vs {p}");
        let n = DVec3::new(0.0, p.y, p.z).normalize().as_vec3();
        assert!(hit.normal.abs_diff_eq(n, 1e-4), "{hit:?} vs normal {n}");
        assert_eq!(hit.segment, (p.x / f64::from(SEG)) as usize);
    }
}

#[test]
fn grazing_rays_hit_just_inside_the_radius_and_miss_just_outside() {
    let (pool, _) = straight_pool();
    let q = CableQuery::from_pool(&pool);
    for x in [0.4f32, 1.9, 3.3] {
        let y = R * (1.0 - 1e-3);
        let hit = cast(&q, Vec3::new(x, y, -2.0), Vec3::Z, 10.0).expect("grazing hit");
        let want = 2.0 - (R * R - y * y).sqrt();
        assert!(close(hit.distance, want, 1e-4), "{hit:?} vs {want}");
        assert!(cast(&q, Vec3::new(x, R * (1.0 + 1e-3), -2.0), Vec3::Z, 10.0).is_none());
        // Grazing along the axis, just above the surface: no hit anywhere.
        let over = Vec3::new(-1.0, R * (1.0 + 1e-3), 0.0);
        assert!(cast(&q, over, Vec3::X, 10.0).is_none());
    }
}

#[test]
fn missing_rays_report_nothing() {
    let (pool, _) = straight_pool();
    let q = CableQuery::from_pool(&pool);
    // Pointing away, passing beside, beyond the ends, stopping short.
    assert!(cast(&q, Vec3::new(2.0, 1.0, 0.0), Vec3::Y, 100.0).is_none());
    assert!(cast(&q, Vec3::new(2.0, 1.0, 0.5), Vec3::NEG_Y, 100.0).is_none());
    assert!(cast(&q, Vec3::new(LEN + 2.0 * R, 1.0, 0.0), Vec3::NEG_Y, 100.0).is_none());
    assert!(cast(&q, Vec3::new(-2.0 * R, 1.0, 0.0), Vec3::NEG_Y, 100.0).is_none());
    assert!(cast(&q, Vec3::new(2.0, 1.0, 0.0), Vec3::NEG_Y, 1.0 - R - 1e-3).is_none());
    assert!(cast(&q, Vec3::new(2.0, 1.0, 0.0), Vec3::NEG_Y, 1.0 - R + 1e-3).is_some());
    // An empty pool and an empty query.
    let empty = CableQuery::from_pool(&ParticlePool::new());
    assert!(cast(&empty, Vec3::ZERO, Vec3::X, f32::INFINITY).is_none());
    assert!(cast(&CableQuery::new(), Vec3::ZERO, Vec3::X, 1.0).is_none());
    assert_eq!(empty.closest_point(Vec3::ZERO, f32::INFINITY), Ok(None));
}

#[test]
fn a_ray_starting_inside_the_tube_hits_at_distance_zero() {
    let (pool, h) = straight_pool();
    let q = CableQuery::from_pool(&pool);
    for (o, d) in [
        (Vec3::new(1.1, R * 0.5, 0.0), Vec3::Y),
        (Vec3::new(2.2, 0.0, 0.0), Vec3::new(1.0, -1.0, 0.5)),
        // Inside the round end cap, beyond the last particle.
        (Vec3::new(LEN + R * 0.5, 0.0, 0.0), Vec3::X),
    ] {
        let hit = cast(&q, o, d, 10.0).expect("inside is a hit");
        assert_eq!((hit.cable, hit.distance, hit.point), (h, 0.0, o));
        assert!(hit.normal.abs_diff_eq(-d.normalize(), 1e-6));
    }
}

#[test]
fn rays_hit_the_round_end_caps() {
    let (pool, _) = straight_pool();
    let q = CableQuery::from_pool(&pool);
    let end = Vec3::new(LEN, 0.0, 0.0);
    // Along the axis onto the far end's cap.
    let hit = cast(&q, Vec3::new(LEN + 5.0, 0.0, 0.0), Vec3::NEG_X, 10.0).expect("cap");
    assert!(close(hit.distance, 5.0 - R, 1e-5), "{hit:?}");
    assert_eq!((hit.segment, hit.t_along_segment), (SEGS as usize - 1, 1.0));
    assert!(hit.normal.abs_diff_eq(Vec3::X, 1e-5));
    // Parallel to the axis, half a radius off it: the sphere, not a disc.
    let off = R * 0.5;
    let hit = cast(&q, Vec3::new(LEN + 5.0, off, 0.0), Vec3::NEG_X, 10.0).expect("cap");
    let want = 5.0 - (R * R - off * off).sqrt();
    assert!(close(hit.distance, want, 1e-5), "{hit:?} vs {want}");
    assert!(hit.normal.abs_diff_eq((hit.point - end) / R, 1e-4));
    // Diagonally at the start's cap: hits the sphere around particle 0.
    let o = Vec3::new(-1.0, 1.0, 0.0);
    let hit = cast(&q, o, Vec3::new(1.0, -1.0, 0.0), 10.0).expect("cap");
    assert!(close(hit.distance, 2f32.sqrt() - R, 1e-5), "{hit:?}");
    assert_eq!((hit.segment, hit.t_along_segment), (0, 0.0));
    assert!(
        hit.normal
            .abs_diff_eq(Vec3::new(-1.0, 1.0, 0.0).normalize(), 1e-4)
    );
}

#[test]
fn broken_segments_are_gaps_for_rays_and_closest_points() {
    let (mut pool, h) = straight_pool();
    let k = 6usize;
    pool.break_segment(h, k).unwrap();
    let q = CableQuery::from_pool(&pool);
    let mid = (k as f32 + 0.5) * SEG;
    assert!(cast(&q, Vec3::new(mid, 1.0, 0.0), Vec3::NEG_Y, 10.0).is_none());
    // The round end of the intact segment before the gap still counts.
    let hit = cast(
        &q,
        Vec3::new(k as f32 * SEG + 0.2 * R, 1.0, 0.0),
        Vec3::NEG_Y,
        10.0,
    )
    .expect("the particle's sphere");
    assert_eq!((hit.segment, hit.t_along_segment), (k - 1, 1.0));
    // The nearest intact centre line to the middle of the gap: particle k
    // (the lower segment wins the tie with particle k + 1).
    let c = q
        .closest_point(Vec3::new(mid, 0.0, 0.0), 10.0)
        .unwrap()
        .unwrap();
    assert_eq!((c.segment, c.t_along_segment), (k - 1, 1.0));
    assert!(close(c.distance, SEG * 0.5, 1e-6));
    // A particle with both segments broken is gone.
    pool.break_segment(h, k - 1).unwrap();
    let q = CableQuery::from_pool(&pool);
    let hit = cast(
        &q,
        Vec3::new(k as f32 * SEG + 0.2 * R, 1.0, 0.0),
        Vec3::NEG_Y,
        10.0,
    );
    assert!(hit.is_none(), "{hit:?}");
}

#[test]
fn closest_point_is_the_foot_on_the_centre_line() {
    let (pool, h) = straight_pool();
    let q = CableQuery::from_pool(&pool);
    let c = q
        .closest_point(Vec3::new(1.625, 3.0, 4.0), 10.0)
        .unwrap()
        .unwrap();
    let want = ClosestPoint {
        cable: h,
        segment: 6,
        t_along_segment: 0.5,
        point: Vec3::new(1.625, 0.0, 0.0),
        distance: 5.0,
        surface_distance: 5.0 - R,
    };
    assert_eq!(c, want);
    // Beyond the end: the last particle.
    let c = q
        .closest_point(Vec3::new(LEN + 3.0, 4.0, 0.0), 10.0)
        .unwrap()
        .unwrap();
    assert_eq!(
        (c.segment, c.t_along_segment, c.point),
        (SEGS as usize - 1, 1.0, Vec3::new(LEN, 0.0, 0.0))
    );
    assert!(close(c.distance, 5.0, 1e-6));
    // Inside the tube: negative surface distance. Out of reach: nothing.
    let c = q.closest_point(Vec3::new(2.0, 0.5 * R, 0.0), 0.0).unwrap();
    assert!(c.is_none(), "max_dist 0 reaches only the centre line");
    let c = q
        .closest_point(Vec3::new(2.0, 0.5 * R, 0.0), R)
        .unwrap()
        .unwrap();
    assert!(close(c.surface_distance, -0.5 * R, 1e-6));
    assert!(
        q.closest_point(Vec3::new(1.0, 3.0, 4.0), 4.99)
            .unwrap()
            .is_none()
    );
    // On a particle shared by two segments: the lower segment.
    let c = q
        .closest_point(Vec3::new(5.0 * SEG, 1.0, 0.0), 10.0)
        .unwrap()
        .unwrap();
    assert_eq!((c.segment, c.t_along_segment), (4, 1.0));
    // The one-off function agrees.
    assert_eq!(
        closest_point(&pool, Vec3::new(1.625, 3.0, 4.0), 10.0),
        Ok(Some(want))
    );
}

#[test]
fn ties_go_to_the_lowest_cable_then_segment() {
    let (mut pool, first) = straight_pool();
    let twin = pool
        .add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(LEN, 0.0, 0.0), LEN, SEGS).unwrap())
        .unwrap();
    pool.set_params(twin, *pool.params(first).unwrap()).unwrap();
    let q = CableQuery::from_pool(&pool);
    let hit = cast(&q, Vec3::new(1.3, 2.0, 0.0), Vec3::NEG_Y, 10.0).unwrap();
    assert_eq!(hit.cable, first);
    let c = q
        .closest_point(Vec3::new(1.3, 2.0, 0.0), 10.0)
        .unwrap()
        .unwrap();
    assert_eq!(c.cable, first);
    pool.remove_cable(first).unwrap();
    let q = CableQuery::from_pool(&pool);
    assert_eq!(
        cast(&q, Vec3::new(1.3, 2.0, 0.0), Vec3::NEG_Y, 10.0)
            .unwrap()
            .cable,
        twin
    );
}

/// A scene of sagging, swinging cables: 60 of 24 segments on a 6 × 10
/// grid, some with broken segments, stepped half a second.
fn sagging_scene() -> ParticlePool {
    let mut pool = ParticlePool::new();
    for i in 0..60 {
        let (y, z) = ((i / 10) as f32 * 0.7, (i % 10) as f32 * 0.45);
        let mut desc =
            CableDesc::line(Vec3::new(0.0, y, z), Vec3::new(3.0, y, z + 0.2), 3.6, 24).unwrap();
        desc.params.radius = 0.03 + 0.01 * (i % 3) as f32;
        desc.params.force = Vec3::new(0.0, 0.0, (i % 5) as f32 - 2.0);
        let h = pool.add_cable(&desc).unwrap();
        if i % 7 == 0 {
            pool.break_segment(h, 10).unwrap();
        }
    }
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    stepper.advance(&mut pool, 0.5).unwrap();
    pool
}

/// Deterministic pseudo-random rays and points around the scene.
fn rays_and_points(n: usize) -> (Vec<Ray>, Vec<Vec3>) {
    let mut rng = cable_testkit::Rng::new(0x2545_f491_4f6c_dd1d);
    let mut next = move || rng.unit();
    let mut rays = Vec::with_capacity(n);
    let mut points = Vec::with_capacity(n);
    for _ in 0..n {
        let o = Vec3::new(next() * 8.0 - 2.5, next() * 8.0 - 4.0, next() * 8.0 - 2.0);
        let target = Vec3::new(next() * 3.0, next() * 4.0 - 1.5, next() * 4.5);
        rays.push(Ray::new(o, target - o, 20.0).unwrap());
        points.push(Vec3::new(
            next() * 4.0 - 0.5,
            next() * 5.0 - 2.0,
            next() * 5.0 - 0.5,
        ));
    }
    (rays, points)
}

/// What a scan of every intact segment finds for a ray, in f64.
struct Scan {
    /// (distance, cable index, segment) of the first capsule entry.
    best: Option<(f64, usize, usize)>,
    /// Some capsule part is grazed (the ray passes farther than 97.5 % of
    /// the radius from its axis or centre, where the entry point moves
    /// fast with rounding): f32 may see a hit where f64 sees none, or the
    /// reverse, and the distance is good to a millimetre only.
    grazed: bool,
}

/// The first capsule entry of the ray over every intact segment, in f64,
/// by the textbook quadratics (no tree).
fn brute_ray(pool: &ParticlePool, ray: &Ray) -> Scan {
    // Renormalised in f64: an f32 unit vector is off by up to 1e-7, which
    // b² − c (below) would magnify into millimetres.
    let (o, d) = (
        ray.origin().as_dvec3(),
        ray.direction().as_dvec3().normalize(),
    );
    let max = f64::from(ray.max_dist());
    let mut grazed = false;
    let mut best: Option<(f64, usize, usize)> = None;
    for (ci, h) in pool.handles().enumerate() {
        let pos = pool.positions(h).unwrap();
        let rows = pool.row_consts(h).unwrap();
        let r = f64::from(pool.params(h).unwrap().radius);
        let sphere = |c: DVec3| {
            let oc = o - c;
            let (b, cc) = (oc.dot(d), oc.length_squared() - r * r);
            if cc <= 0.0 {
                return (Some(0.0), false);
            }
            let disc = b * b - cc;
            let graze = b < 0.0 && disc.abs() < 0.05 * r * r && -b <= max + r;
            ((disc >= 0.0 && b < 0.0).then(|| -b - disc.sqrt()), graze)
        };
        for s in 0..pos.len() - 1 {
            if !rows[s].linked {
                continue;
            }
            let (a, b) = (pos[s].as_dvec3(), pos[s + 1].as_dvec3());
            let ends = [sphere(a), sphere(b)];
            grazed |= ends[0].1 || ends[1].1;
            let u = (b - a).normalize();
            let l = (b - a).length();
            let (oa, du) = (o - a, d.dot(u));
            let (op, dp) = (oa - u * oa.dot(u), d - u * du);
            let (qa, qb, qc) = (dp.length_squared(), op.dot(dp), op.length_squared() - r * r);
            let mut t_body = None;
            let disc = qb * qb - qa * qc;
            if qc <= 0.0 {
                let y = oa.dot(u);
                t_body = (0.0..=l).contains(&y).then_some(0.0);
            } else if disc >= 0.0 && qa > 0.0 {
                let t = (-qb - disc.sqrt()) / qa;
                let y = oa.dot(u) + t * du;
                t_body = (t >= 0.0 && (0.0..=l).contains(&y)).then_some(t);
            }
            if qa > 0.0 && qc > 0.0 && disc.abs() < 0.05 * qa * r * r {
                let t = -qb / qa;
                let y = oa.dot(u) + t * du;
                grazed |= t >= 0.0 && t <= max + r && (-r..=l + r).contains(&y);
            }
            let t = [t_body, ends[0].0, ends[1].0]
                .into_iter()
                .flatten()
                .reduce(f64::min);
            if let Some(t) = t.filter(|&t| t <= max)
                && best.is_none_or(|b| t < b.0)
            {
                best = Some((t, ci, s));
            }
        }
    }
    Scan { best, grazed }
}

#[test]
fn the_tree_finds_what_a_scan_of_every_segment_finds() {
    let pool = sagging_scene();
    let q = CableQuery::from_pool(&pool);
    let handles: Vec<_> = pool.handles().collect();
    let (rays, points) = rays_and_points(400);
    let mut hits = 0;
    for ray in &rays {
        let got = q.raycast(*ray);
        let scan = brute_ray(&pool, ray);
        match (got, scan.best) {
            (None, None) => {}
            (Some(g), Some((t, ci, s))) => {
                hits += 1;
                // A grazing ray's entry moves fast with rounding: within a
                // millimetre then, 0.01 mm otherwise. Joints and
                // crossings may tie to within rounding, so another cable or
                // segment may win as near.
                let tol = if scan.grazed { 1e-3 } else { 1e-5 };
                let err = (f64::from(g.distance) - t).abs();
                assert!(err < tol, "{g:?} vs {t} {ci} {s}");
                let _ = (handles[ci], s);
            }
            (g, b) => assert!(scan.grazed, "tree {g:?} vs scan {b:?} for {ray:?}"),
        }
    }
    assert!(
        hits > 100,
        "the rays should mostly hit the scene, hit {hits}"
    );
    // Closest points against a scan of every intact segment.
    for p in points {
        let got = q.closest_point(p, f32::INFINITY).unwrap().unwrap();
        let mut want = f64::INFINITY;
        for h in pool.handles() {
            let (pos, rows) = (pool.positions(h).unwrap(), pool.row_consts(h).unwrap());
            for s in (0..pos.len() - 1).filter(|&s| rows[s].linked) {
                let (a, b, pd) = (pos[s].as_dvec3(), pos[s + 1].as_dvec3(), p.as_dvec3());
                let t = ((pd - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                want = want.min(pd.distance(a + (b - a) * t));
            }
        }
        assert!(
            (f64::from(got.distance) - want).abs() < 1e-5,
            "{got:?} vs {want}"
        );
    }
}

fn bits_of_hit(h: &Option<RayHit>) -> Option<(CableHandle, usize, [u32; 8])> {
    h.map(|h| {
        let f = [
            h.t_along_segment,
            h.point.x,
            h.point.y,
            h.point.z,
            h.normal.x,
            h.normal.y,
            h.normal.z,
            h.distance,
        ];
        (h.cable, h.segment, f.map(f32::to_bits))
    })
}

fn bits_of_point(c: &Option<ClosestPoint>) -> Option<(CableHandle, usize, [u32; 6])> {
    c.map(|c| {
        let f = [
            c.t_along_segment,
            c.point.x,
            c.point.y,
            c.point.z,
            c.distance,
            c.surface_distance,
        ];
        (c.cable, c.segment, f.map(f32::to_bits))
    })
}

#[test]
fn batches_are_bitwise_the_same_on_one_and_two_threads() {
    let pool = sagging_scene();
    let (rays, points) = rays_and_points(3000);
    let run = |threads: usize| {
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        workers.install(|| {
            let q = CableQuery::from_pool(&pool);
            let (mut hits, mut near) = (Vec::new(), Vec::new());
            q.raycast_many(&rays, &mut hits);
            q.closest_points(&points, 1.0, &mut near).unwrap();
            (
                hits.iter().map(bits_of_hit).collect::<Vec<_>>(),
                near.iter().map(bits_of_point).collect::<Vec<_>>(),
            )
        })
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one, two);
    // And each batch entry is the single query's answer.
    let q = CableQuery::from_pool(&pool);
    for (ray, bits) in rays.iter().zip(&one.0).step_by(37) {
        assert_eq!(&bits_of_hit(&q.raycast(*ray)), bits);
    }
    assert!(one.0.iter().filter(|h| h.is_some()).count() > 1000);
    assert!(one.1.iter().filter(|c| c.is_some()).count() > 300);
}

#[test]
fn the_query_is_a_snapshot_of_the_pool() {
    let (mut pool, h) = straight_pool();
    let mut q = CableQuery::from_pool(&pool);
    assert!(q.is_current(&pool));
    let before = cast(&q, Vec3::new(2.0, 5.0, 0.0), Vec3::NEG_Y, 10.0).unwrap();
    pool.teleport(h, Vec3::new(0.0, 1.0, 0.0)).unwrap();
    assert!(!q.is_current(&pool));
    assert_eq!(
        cast(&q, Vec3::new(2.0, 5.0, 0.0), Vec3::NEG_Y, 10.0),
        Some(before)
    );
    q.update(&pool);
    assert!(q.is_current(&pool));
    assert_eq!(q.cable_count(), 1);
    let after = cast(&q, Vec3::new(2.0, 5.0, 0.0), Vec3::NEG_Y, 10.0).unwrap();
    assert!(close(after.distance, before.distance - 1.0, 1e-5));
}

fn field_of(e: &CableError) -> &'static str {
    match e {
        CableError::NotFinite { field, .. } | CableError::OutOfRange { field, .. } => field,
        other => panic!("expected an error naming a field, got {other:?}"),
    }
}

#[test]
fn hostile_query_input_is_refused_with_the_field_named() {
    let (pool, _) = straight_pool();
    let nan = f32::NAN;
    let cases: [(Vec3, Vec3, f32, &str); 9] = [
        (Vec3::new(nan, 0.0, 0.0), Vec3::X, 1.0, "origin"),
        (Vec3::new(0.0, f32::INFINITY, 0.0), Vec3::X, 1.0, "origin"),
        (Vec3::new(0.0, 0.0, 2.0e6), Vec3::X, 1.0, "origin"),
        (Vec3::ZERO, Vec3::new(0.0, nan, 0.0), 1.0, "direction"),
        (
            Vec3::ZERO,
            Vec3::new(f32::NEG_INFINITY, 0.0, 0.0),
            1.0,
            "direction",
        ),
        (Vec3::ZERO, Vec3::ZERO, 1.0, "direction"),
        (Vec3::ZERO, Vec3::X, -1.0, "max_dist"),
        (Vec3::ZERO, Vec3::X, nan, "max_dist"),
        (Vec3::ZERO, Vec3::X, f32::NEG_INFINITY, "max_dist"),
    ];
    for (o, d, m, field) in cases {
        let e = Ray::new(o, d, m).unwrap_err();
        assert_eq!(field_of(&e), field, "{e}");
        assert!(e.to_string().starts_with(&format!("{field}: ")), "{e}");
        assert_eq!(
            raycast(&pool, o, d, m).unwrap_err().to_string(),
            e.to_string()
        );
    }
    assert_eq!(
        Ray::new(Vec3::ZERO, -Vec3::ZERO, 1.0)
            .unwrap_err()
            .to_string(),
        "direction: must have a nonzero length, got 0"
    );
    // Tiny and huge finite directions are fine: only the direction matters.
    for d in [Vec3::new(1.0e-40, 0.0, 0.0), Vec3::new(3.0e38, 0.0, 0.0)] {
        assert_eq!(Ray::new(Vec3::ZERO, d, 1.0).unwrap().direction(), Vec3::X);
    }
    let q = CableQuery::from_pool(&pool);
    assert_eq!(
        field_of(&q.closest_point(Vec3::splat(nan), 1.0).unwrap_err()),
        "point"
    );
    assert_eq!(
        field_of(&q.closest_point(Vec3::ZERO, -0.5).unwrap_err()),
        "max_dist"
    );
    assert_eq!(
        field_of(&closest_point(&pool, Vec3::ZERO, nan).unwrap_err()),
        "max_dist"
    );
    let mut out = vec![None; 3];
    let e = q
        .closest_points(&[Vec3::ZERO, Vec3::new(0.0, 0.0, -3.0e6)], 1.0, &mut out)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "points[1].z: every component must lie within ±1e6, got -3000000"
    );
    assert!(out.is_empty());
}

#[test]
fn a_pool_that_blew_up_answers_without_panicking() {
    let (mut pool, h) = straight_pool();
    let pos = pool.positions_mut(h).unwrap();
    pos[3] = Vec3::splat(f32::NAN);
    pos[9] = Vec3::new(f32::INFINITY, 0.0, 0.0);
    let q = CableQuery::from_pool(&pool);
    // The intact part still answers; nothing panics or reports NaN.
    let hit = cast(&q, Vec3::new(3.3, 2.0, 0.0), Vec3::NEG_Y, 10.0).expect("intact part");
    assert!(hit.distance.is_finite());
    for x in [0.0f32, 0.8, 2.3, 9.0] {
        if let Some(h) = cast(&q, Vec3::new(x, 2.0, 0.0), Vec3::NEG_Y, 10.0) {
            assert!(h.distance.is_finite() && h.point.is_finite(), "{h:?}");
        }
        if let Some(c) = q
            .closest_point(Vec3::new(x, 2.0, 0.0), f32::INFINITY)
            .unwrap()
        {
            assert!(c.distance.is_finite(), "{c:?}");
        }
    }
}

#[test]
fn an_updated_query_answers_as_a_fresh_one_while_cables_move_and_change() {
    let mut pool = sagging_scene();
    let (rays, points) = rays_and_points(300);
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    let mut q = CableQuery::from_pool(&pool);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for frame in 0..40 {
        stepper.advance(&mut pool, 1.0 / 30.0).unwrap();
        match frame {
            // The structure changes: removed, added, reeled cables.
            10 => {
                let h = pool.handles().nth(5).unwrap();
                pool.remove_cable(h).unwrap();
            }
            20 => {
                let desc =
                    CableDesc::line(Vec3::new(0.0, 1.0, 1.0), Vec3::new(3.0, 1.0, 1.0), 4.0, 40);
                pool.add_cable(&desc.unwrap()).unwrap();
            }
            30 => {
                let h = pool.handles().nth(7).unwrap();
                pool.reel(h, 0.5).unwrap();
            }
            _ => {}
        }
        q.update(&pool);
        let fresh = CableQuery::from_pool(&pool);
        q.raycast_many(&rays, &mut a);
        fresh.raycast_many(&rays, &mut b);
        let bits = |v: &[Option<RayHit>]| v.iter().map(bits_of_hit).collect::<Vec<_>>();
        assert_eq!(bits(&a), bits(&b), "frame {frame}");
        for p in points.iter().step_by(10) {
            assert_eq!(q.closest_point(*p, 2.0), fresh.closest_point(*p, 2.0));
        }
    }
}
