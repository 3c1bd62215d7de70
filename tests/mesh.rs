//! The mesh system against geometry computed independently here: counts,
//! index ranges, winding, unit outward normals, radius, UVs, bounds,
//! parallel-transport frames (no twist or flip through vertical and around a
//! loop), smoothing, ribbons, sockets and thread-count determinism.

use cable::core::mesh::{Aabb, MeshBuffers, MeshOptions, MeshStyle, Vertex};
use cable::systems::mesh::{build_meshes, cable_bounds};
use cable::systems::socket::{SocketAt, cable_socket, socket_transform};
use cable::{CableDesc, CableHandle, ParticlePool};
use glam::{Mat3, Vec3};

const EPS: f32 = 1.0e-4;

fn pool_of(cables: &[(&[Vec3], f32, u32, f32)]) -> (ParticlePool, Vec<CableHandle>) {
    let mut pool = ParticlePool::new();
    let handles = cables
        .iter()
        .map(|&(pts, radius, sides, tile)| {
            let mut d = CableDesc::from_points(pts).unwrap();
            d.params.radius = radius;
            d.params.sides = sides;
            d.params.tile = tile;
            pool.add_cable(&d).unwrap()
        })
        .collect();
    (pool, handles)
}

fn build(pool: &ParticlePool, options: &MeshOptions) -> MeshBuffers {
    let mut m = MeshBuffers::new();
    build_meshes(pool, options, &mut m).unwrap();
    m
}

/// Points on an arc of `radius` about `center` in the plane spanned by `e1`, `e2`.
fn arc(center: Vec3, e1: Vec3, e2: Vec3, radius: f32, from: f32, to: f32, n: usize) -> Vec<Vec3> {
    (0..n)
        .map(|i| {
            let a = from + (to - from) * i as f32 / (n - 1) as f32;
            center + (e1 * a.cos() + e2 * a.sin()) * radius
        })
        .collect()
}

/// The ring axis the docs give at point i of a polyline: the bisector of
/// the unit directions of the segments in and out (the one segment at
/// the ends).
fn polyline_tangent(p: &[Vec3], i: usize) -> Vec3 {
    let way = |a: usize, b: usize| (p[b] - p[a]).normalize();
    match (i > 0, i + 1 < p.len()) {
        (true, true) => (way(i - 1, i) + way(i, i + 1)).normalize(),
        (true, false) => way(i - 1, i),
        _ => way(i, i + 1),
    }
}

fn tube(k: u32) -> MeshOptions {
    MeshOptions {
        rings_per_segment: k,
        ..MeshOptions::default()
    }
}

fn ribbon(view: Vec3, two_sided: bool) -> MeshOptions {
    MeshOptions {
        style: MeshStyle::Ribbon { view, two_sided },
        ..MeshOptions::default()
    }
}

fn wavy(n: usize) -> Vec<Vec3> {
    (0..n)
        .map(|i| {
            let x = i as f32 * 0.3;
            Vec3::new(x, (x * 1.3).sin(), (x * 0.7).cos() * 0.5)
        })
        .collect()
}

#[test]
fn counts_ranges_and_indices_are_as_documented() {
    let a = wavy(17);
    let b = arc(Vec3::ZERO, Vec3::X, Vec3::Y, 2.0, 0.0, 3.0, 9);
    let (pool, handles) = pool_of(&[(&a, 0.1, 8, 1.0), (&b, 0.05, 5, 2.0)]);
    for (opt, per_ring, per_gap) in [
        (tube(1), [9, 6], [48, 30]),
        (tube(4), [9, 6], [48, 30]),
        (ribbon(Vec3::NEG_Z, false), [2, 2], [6, 6]),
        (ribbon(Vec3::NEG_Z, true), [4, 4], [12, 12]),
    ] {
        let m = build(&pool, &opt);
        assert_eq!(m.cables.len(), 2);
        let mut nv = 0;
        let mut ni = 0;
        for (c, (h, particles)) in m.cables.iter().zip(handles.iter().zip([17, 9])) {
            let k = opt.rings_per_segment as usize;
            let rings = (particles - 1) * k + 1;
            let i = (c.handle == handles[1]) as usize;
            assert_eq!(c.handle, *h);
            assert_eq!(c.first_vertex as usize, nv, "ranges are contiguous");
            assert_eq!(c.first_index as usize, ni);
            assert_eq!(c.counts.vertices as usize, rings * per_ring[i]);
            assert_eq!(c.counts.indices as usize, (rings - 1) * per_gap[i]);
            for &ix in &m.indices[c.index_range()] {
                assert!(
                    c.vertex_range().contains(&(ix as usize)),
                    "index {ix} outside its cable"
                );
            }
            nv += c.counts.vertices as usize;
            ni += c.counts.indices as usize;
        }
        assert_eq!((m.vertices.len(), m.indices.len()), (nv, ni));
        assert_eq!(m.indices.len() % 3, 0);
        assert!(
            m.vertices
                .iter()
                .all(|v| v.pos().is_finite() && v.nrm().is_finite())
        );
    }
}

/// Every vertex of an unsmoothed tube: in the plane perpendicular to the
/// polyline's central-difference tangent, at `radius` from the ring's
/// particle or farther out along the bend (a mitred ring, at most
/// `radius / cos(θ/2)`), with a unit outward normal; unit tangent along
/// that tangent.
#[test]
fn tube_vertices_sit_on_the_radius_with_unit_outward_normals() {
    let a = wavy(21);
    let b = arc(Vec3::ONE, Vec3::Y, Vec3::Z, 1.5, 0.2, 5.5, 30);
    let (pool, _) = pool_of(&[(&a, 0.07, 8, 1.0), (&b, 0.3, 13, 3.0)]);
    let m = build(&pool, &tube(1));
    for (c, (pts, radius, sides)) in m.cables.iter().zip([(&a, 0.07, 8u32), (&b, 0.3, 13)]) {
        let verts = &m.vertices[c.vertex_range()];
        for (i, ring) in verts.chunks_exact(sides as usize + 1).enumerate() {
            let t = polyline_tangent(pts, i);
            for (j, v) in ring.iter().enumerate() {
                let off = v.pos() - pts[i];
                // The turning angle here bounds the mitre's stretch.
                let cos_half = if i > 0 && i + 1 < pts.len() {
                    let (d0, d1) = (
                        (pts[i] - pts[i - 1]).normalize(),
                        (pts[i + 1] - pts[i]).normalize(),
                    );
                    (0.5 * (1.0 + d0.dot(d1))).sqrt().max(0.25)
                } else {
                    1.0
                };
                assert!(
                    off.length() > radius - EPS * 10.0
                        && off.length() < radius / cos_half * 1.05 + EPS * 10.0,
                    "ring {i} vertex {j}: {} from the particle, radius {radius}",
                    off.length()
                );
                assert!(
                    off.dot(t).abs() < EPS * 10.0,
                    "ring {i} vertex {j}: not in the ring plane"
                );
                assert!((v.nrm().length() - 1.0).abs() < EPS, "normal not unit");
                assert!(v.nrm().dot(off.normalize()) > 0.5, "normal not outward");
                assert!(
                    (v.tan() - t).length() < EPS * 10.0,
                    "tangent not along the cable"
                );
                assert_eq!(v.tangent[3], -1.0);
            }
            // The seam closes: last vertex of a ring duplicates the first.
            assert_eq!(ring[0].position, ring[sides as usize].position);
            assert_eq!((ring[0].uv[0], ring[sides as usize].uv[0]), (0.0, 1.0));
        }
    }
}

#[test]
fn straight_tube_lies_on_a_cylinder() {
    let (s, e) = (Vec3::new(-1.0, 2.0, 0.5), Vec3::new(3.0, -1.0, 2.0));
    let mut pool = ParticlePool::new();
    let mut d = CableDesc::line(s, e, s.distance(e), 10).unwrap();
    d.params.radius = 0.25;
    pool.add_cable(&d).unwrap();
    let m = build(&pool, &tube(1));
    let axis = (e - s).normalize();
    for v in &m.vertices {
        let rel = v.pos() - s;
        let dist = (rel - axis * rel.dot(axis)).length();
        assert!((dist - 0.25).abs() < 1e-4, "vertex {dist} m from the axis");
    }
}

/// Triangles are counter-clockwise seen from outside: their geometric normal
/// agrees with the vertex normals.
#[test]
fn winding_is_counter_clockwise_from_outside() {
    let a = wavy(12);
    let (pool, _) = pool_of(&[(&a, 0.1, 6, 1.0)]);
    for opt in [tube(1), tube(3), ribbon(Vec3::new(0.2, -0.3, -1.0), true)] {
        let m = build(&pool, &opt);
        for tri in m.indices.chunks_exact(3) {
            let [p, q, r] = [0, 1, 2].map(|k| m.vertices[tri[k] as usize]);
            let g = (q.pos() - p.pos()).cross(r.pos() - p.pos());
            let n = p.nrm() + q.nrm() + r.nrm();
            assert!(g.dot(n) > 0.0, "clockwise triangle {tri:?} ({opt:?})");
        }
    }
}

/// `v` runs from 0 to `tile` in proportion to arc length; `u` around from 0
/// to 1; `w · (normal × tangent)` points towards increasing `u`.
#[test]
fn uvs_and_handedness_follow_the_cable() {
    let pts = [
        Vec3::ZERO,
        Vec3::X,
        Vec3::new(3.0, 0.0, 0.0),
        Vec3::new(3.0, -1.0, 0.0),
    ];
    let (pool, _) = pool_of(&[(&pts, 0.1, 8, 2.5)]);
    let m = build(&pool, &tube(1));
    let arcs = [0.0, 1.0, 3.0, 4.0];
    for (i, ring) in m.vertices.chunks_exact(9).enumerate() {
        for (j, v) in ring.iter().enumerate() {
            assert!(
                (v.uv[1] - 2.5 * arcs[i] / 4.0).abs() < 1e-5,
                "v at ring {i}"
            );
            assert!((v.uv[0] - j as f32 / 8.0).abs() < 1e-6);
            if j < 8 {
                let towards_u = ring[j + 1].pos() - v.pos();
                let bitangent = v.nrm().cross(v.tan()) * v.tangent[3];
                assert!(
                    bitangent.dot(towards_u) > 0.0,
                    "handedness at ring {i} vertex {j}"
                );
            }
        }
    }
}

/// The frame of each ring as a rotation: columns tangent, normal at u = 0, their cross.
fn ring_frames(verts: &[Vertex], per_ring: usize) -> Vec<Mat3> {
    verts
        .chunks_exact(per_ring)
        .map(|r| {
            let t = r[0].tan();
            let n = r[0].nrm();
            Mat3::from_cols(t, n, t.cross(n))
        })
        .collect()
}

fn angle_between(a: Vec3, b: Vec3) -> f32 {
    a.dot(b).clamp(-1.0, 1.0).acos()
}

/// Rotation angle of the rotation taking frame `a` to frame `b`.
fn frame_rotation(a: Mat3, b: Mat3) -> f32 {
    let r = b * a.transpose();
    ((r.x_axis.x + r.y_axis.y + r.z_axis.z - 1.0) * 0.5)
        .clamp(-1.0, 1.0)
        .acos()
}

/// The check of the "Done when": consecutive frames rotate by no more than
/// the bend of the tangent (a twist or a flip adds rotation about the tangent).
fn assert_rotation_minimising(frames: &[Mat3], what: &str) {
    for (i, w) in frames.windows(2).enumerate() {
        let bend = angle_between(w[0].x_axis, w[1].x_axis);
        let turn = frame_rotation(w[0], w[1]);
        assert!(
            turn <= bend + 2.0e-3,
            "{what}: ring {i}→{}: frame turns {turn} rad for a bend of {bend} rad",
            i + 1
        );
    }
}

#[test]
fn the_check_catches_a_flip() {
    // A frame built from a fixed up vector flips when the tangent crosses it.
    let up = Vec3::Y;
    let frame = |t: Vec3| {
        let n = t.cross(up).normalize();
        Mat3::from_cols(t, n, t.cross(n))
    };
    let t0 = Vec3::new(0.05, -1.0, 0.01).normalize();
    let t1 = Vec3::new(-0.05, -1.0, 0.01).normalize();
    let bend = angle_between(t0, t1);
    assert!(frame_rotation(frame(t0), frame(t1)) > bend + 1.0);
}

#[test]
fn tube_through_vertical_neither_twists_nor_flips() {
    // Horizontal, down through vertical, horizontal back: a U in the XY plane,
    // then the same U tilted out of the plane, then an S curve.
    let u = arc(
        Vec3::ZERO,
        Vec3::Y,
        Vec3::X,
        2.0,
        0.0,
        std::f32::consts::PI,
        33,
    );
    let tilted: Vec<Vec3> = u.iter().map(|&p| Mat3::from_rotation_x(0.4) * p).collect();
    let mut s = arc(
        Vec3::ZERO,
        Vec3::Y,
        Vec3::X,
        1.0,
        0.0,
        std::f32::consts::PI,
        17,
    );
    let lower = arc(
        Vec3::new(0.0, -2.0, 0.0),
        Vec3::Y,
        Vec3::NEG_X,
        1.0,
        0.0,
        std::f32::consts::PI,
        17,
    );
    s.extend_from_slice(&lower[1..]);
    let drop: Vec<Vec3> = (0..20)
        .map(|i| Vec3::new(0.001 * i as f32, -(i as f32) * 0.5, 0.0))
        .collect();
    for (name, pts) in [
        ("U", &u),
        ("tilted U", &tilted),
        ("S", &s),
        ("vertical drop", &drop),
    ] {
        let (pool, _) = pool_of(&[(pts, 0.1, 8, 1.0)]);
        for k in [1, 4] {
            let m = build(&pool, &tube(k));
            assert_rotation_minimising(&ring_frames(&m.vertices, 9), name);
        }
    }
}

#[test]
fn full_loop_has_no_twist() {
    // One full turn of a circle in a tilted plane, then one turn of a helix.
    let e1 = Vec3::new(1.0, 0.2, 0.0).normalize();
    let e2 = e1.cross(Vec3::new(0.1, 0.3, 1.0)).normalize();
    let circle = arc(
        Vec3::new(1.0, 2.0, 3.0),
        e1,
        e2,
        1.5,
        0.0,
        std::f32::consts::TAU,
        65,
    );
    let helix: Vec<Vec3> = (0..80)
        .map(|i| {
            let a = i as f32 * 0.1;
            Vec3::new(a.cos(), -0.05 * i as f32, a.sin())
        })
        .collect();
    for (name, pts) in [("circle", &circle), ("helix", &helix)] {
        let (pool, _) = pool_of(&[(pts, 0.1, 8, 1.0)]);
        let m = build(&pool, &tube(1));
        let frames = ring_frames(&m.vertices, 9);
        assert_rotation_minimising(&frames, name);
        if name == "circle" {
            // A planar loop has no torsion: the normal keeps its angle with
            // the plane's normal, so the last ring matches the first.
            let plane = e1.cross(e2);
            let first = frames[0].y_axis.dot(plane);
            for f in &frames {
                assert!(
                    (f.y_axis.dot(plane) - first).abs() < 2e-3,
                    "the normal twists out of step"
                );
            }
        }
    }
}

#[test]
fn coincident_particles_do_not_degenerate() {
    let mut pool = ParticlePool::new();
    let h = pool
        .add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 4.0, 4.0, 8).unwrap())
        .unwrap();
    let p = pool.positions_mut(h).unwrap();
    p[3] = p[2];
    p[4] = p[2];
    p[0] = p[1];
    let all_same = pool
        .add_cable(&CableDesc::line(Vec3::ONE, Vec3::ONE * 2.0, 2.0, 4).unwrap())
        .unwrap();
    pool.positions_mut(all_same).unwrap().fill(Vec3::ONE);
    for opt in [tube(1), tube(3), ribbon(Vec3::X, true)] {
        let m = build(&pool, &opt);
        for v in &m.vertices {
            assert!(v.pos().is_finite() && (v.nrm().length() - 1.0).abs() < 1e-4);
            assert!((v.tan().length() - 1.0).abs() < 1e-4);
        }
    }
}

#[test]
fn smoothing_interpolates_particles_and_follows_the_curve() {
    // Particles on a circle: the smoothed centre line passes through them and
    // stays much closer to the circle than the straight chords do.
    let r = 2.0;
    let pts = arc(Vec3::ZERO, Vec3::X, Vec3::Y, r, 0.0, 3.0, 9);
    let (pool, _) = pool_of(&[(&pts, 0.05, 8, 1.0)]);
    let k = 8;
    let m = build(&pool, &tube(k));
    let centres: Vec<Vec3> = m
        .vertices
        .chunks_exact(9)
        .map(|ring| ring[..8].iter().map(Vertex::pos).sum::<Vec3>() / 8.0)
        .collect();
    assert_eq!(centres.len(), 8 * k as usize + 1);
    for (i, p) in pts.iter().enumerate() {
        assert!(
            centres[i * k as usize].distance(*p) < 1e-4,
            "ring at particle {i}"
        );
    }
    let chord_sagitta = r * (1.0 - (3.0f32 / 8.0 / 2.0).cos());
    // Interior segments have both neighbours: close to the circle. The end
    // segments extend the cable straight beyond its ends (reflected
    // neighbours), so they are only required to beat the chord.
    let dev = |range: std::ops::Range<usize>| {
        centres[range]
            .iter()
            .map(|c| (c.length() - r).abs())
            .fold(0.0, f32::max)
    };
    let (interior, ends) = (dev(8..57), dev(0..9).max(dev(56..65)));
    assert!(
        interior < chord_sagitta / 10.0,
        "interior deviation {interior} vs sagitta {chord_sagitta}"
    );
    assert!(
        ends < chord_sagitta,
        "end deviation {ends} vs sagitta {chord_sagitta}"
    );
    for ring in m.vertices.chunks_exact(9) {
        let c = ring[..8].iter().map(Vertex::pos).sum::<Vec3>() / 8.0;
        for v in ring {
            assert!((v.pos().distance(c) - 0.05).abs() < 1e-4);
        }
    }
}

#[test]
fn ribbons_face_the_viewer_and_have_the_cable_width() {
    let pts = wavy(15);
    let (pool, _) = pool_of(&[(&pts, 0.2, 8, 1.0)]);
    let view = Vec3::new(0.3, -0.2, -1.0).normalize();
    let m = build(&pool, &ribbon(view, true));
    for (i, ring) in m.vertices.chunks_exact(4).enumerate() {
        let t = polyline_tangent(&pts, i);
        let across = ring[1].pos() - ring[0].pos();
        assert!((across.length() - 0.4).abs() < 1e-4, "width");
        assert!(across.dot(t).abs() < 1e-4 && across.dot(view).abs() < 1e-4);
        assert!(((ring[0].pos() + ring[1].pos()) * 0.5).distance(pts[i]) < 1e-5);
        let facing = ring[0].nrm().dot(-view);
        assert!(facing > 0.0, "front faces away from the viewer at ring {i}");
        assert_eq!(ring[2].position, ring[0].position);
        assert_eq!(ring[2].nrm(), -ring[0].nrm());
    }
}

#[test]
fn bounds_hold_every_vertex_and_match_particles_plus_radius() {
    let a = wavy(20);
    let b = arc(
        Vec3::new(5.0, 0.0, 0.0),
        Vec3::X,
        Vec3::Z,
        1.0,
        0.0,
        4.0,
        12,
    );
    let (pool, _) = pool_of(&[(&a, 0.1, 8, 1.0), (&b, 0.4, 5, 1.0)]);
    for opt in [tube(1), tube(5), ribbon(Vec3::Y, false)] {
        let m = build(&pool, &opt);
        let mut union = Aabb::EMPTY;
        for (c, (pts, radius)) in m.cables.iter().zip([(&a, 0.1), (&b, 0.4)]) {
            for v in &m.vertices[c.vertex_range()] {
                assert!(c.bounds.expand(1e-5).contains(v.pos()));
            }
            if opt.rings_per_segment == 1 && opt.style != tube(1).style {
                // UE's CalcBounds: particles ± radius, computed independently
                // (a tube's mitred rings reach farther at bends: the bounds
                // grow by the largest mitre stretch, checked above).
                let lo = pts.iter().fold(Vec3::INFINITY, |m, &p| m.min(p)) - Vec3::splat(radius);
                let hi =
                    pts.iter().fold(Vec3::NEG_INFINITY, |m, &p| m.max(p)) + Vec3::splat(radius);
                assert!((c.bounds.min - lo).abs().max_element() < 1e-6);
                assert!((c.bounds.max - hi).abs().max_element() < 1e-6);
            }
            union = union.union(c.bounds);
        }
        assert_eq!(m.bounds, union);
        if opt.rings_per_segment == 1 && opt.style == tube(1).style {
            for c in &m.cables {
                assert_eq!(cable_bounds(&pool, c.handle).unwrap(), c.bounds);
            }
        }
    }
}

#[test]
fn sockets_sit_on_the_cable_and_match_the_mesh_frame() {
    let pts = [
        Vec3::ZERO,
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(2.0, -3.0, 0.0),
        Vec3::new(2.0, -3.0, 1.0),
    ];
    let (pool, handles) = pool_of(&[(&pts, 0.1, 8, 1.0)]);
    let opt = tube(1);
    let start = cable_socket(&pool, handles[0], SocketAt::Start, &opt).unwrap();
    let end = cable_socket(&pool, handles[0], SocketAt::End, &opt).unwrap();
    assert_eq!(start.position, pts[0]);
    assert_eq!(end.position, pts[3]);
    assert!((start.forward() - Vec3::X).length() < 1e-6);
    assert!(
        (end.forward() - Vec3::Z).length() < 1e-6,
        "end socket along the last segment"
    );
    let m = build(&pool, &opt);
    let n0 = m.vertices[0].nrm();
    assert!(
        (start.rotation * Vec3::Y - n0).length() < 1e-5,
        "socket roll = mesh roll"
    );
    for (d, want) in [
        (1.0, Vec3::X),
        (3.5, Vec3::new(2.0, -1.5, 0.0)),
        (100.0, pts[3]),
        (-2.0, pts[0]),
    ] {
        let s = socket_transform(&pts, SocketAt::Distance(d), opt.reference).unwrap();
        assert!(s.position.distance(want) < 1e-5, "distance {d}");
        assert!((s.rotation.length() - 1.0).abs() < 1e-5);
    }
    let mid = socket_transform(&pts, SocketAt::Distance(3.5), opt.reference).unwrap();
    assert!((mid.forward() - Vec3::NEG_Y).length() < 1e-6);
    assert!(socket_transform(&pts, SocketAt::Distance(f32::NAN), opt.reference).is_err());
    assert!(socket_transform(&pts[..1], SocketAt::Start, opt.reference).is_err());
}

#[test]
fn bad_options_are_refused_with_their_field() {
    let (pool, _) = pool_of(&[(&wavy(4), 0.1, 8, 1.0)]);
    let mut m = MeshBuffers::new();
    let e = build_meshes(&pool, &tube(0), &mut m).unwrap_err();
    assert!(e.to_string().starts_with("rings_per_segment"), "{e}");
    let e = build_meshes(&pool, &ribbon(Vec3::splat(f32::NAN), false), &mut m).unwrap_err();
    assert!(e.to_string().starts_with("view"), "{e}");
}

#[test]
fn meshes_do_not_depend_on_the_thread_count() {
    // Enough cables and vertices that the build splits into many tasks.
    let mut rng = cable_testkit::Rng::new(7);
    let mut pool = ParticlePool::new();
    for _ in 0..60 {
        let pts: Vec<Vec3> = (0..40)
            .map(|i| Vec3::new(i as f32 * 0.2, rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)))
            .collect();
        let mut d = CableDesc::from_points(&pts).unwrap();
        d.params.sides = rng.int(3, 12) as u32;
        pool.add_cable(&d).unwrap();
    }
    let opt = tube(2);
    let run = |threads| {
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        workers.install(|| build(&pool, &opt))
    };
    let one = run(1);
    assert!(one.vertices.len() > 4 * cable::systems::mesh::MESH_GRAIN);
    for threads in [2, 4] {
        let m = run(threads);
        assert_eq!(m.vertex_bytes(), one.vertex_bytes(), "{threads} threads");
        assert_eq!(m.indices, one.indices);
    }
}

#[test]
fn removed_cables_leave_the_buffers_and_rebuilds_reuse_them() {
    let (mut pool, handles) = pool_of(&[
        (&wavy(10), 0.1, 8, 1.0),
        (&wavy(6), 0.1, 4, 1.0),
        (&wavy(8), 0.1, 3, 1.0),
    ]);
    let mut m = MeshBuffers::new();
    build_meshes(&pool, &tube(1), &mut m).unwrap();
    assert_eq!(m.vertices.len(), 10 * 9 + 6 * 5 + 8 * 4);
    pool.remove_cable(handles[1]).unwrap();
    let capacity = m.vertices.capacity();
    build_meshes(&pool, &tube(1), &mut m).unwrap();
    assert_eq!(m.vertices.len(), 10 * 9 + 8 * 4);
    assert_eq!(
        m.vertices.capacity(),
        capacity,
        "the buffer was reallocated"
    );
    assert_eq!(
        m.cables.iter().map(|c| c.handle).collect::<Vec<_>>(),
        [handles[0], handles[2]]
    );
    assert!(m.cable(handles[1]).is_none());
    // The remaining cable's mesh is the one it gets on its own (up to the
    // rounding of carrying its roll over from the previous build).
    let (alone, _) = pool_of(&[(&wavy(8), 0.1, 3, 1.0)]);
    let single = build(&alone, &tube(1));
    let kept = &m.vertices[m.cable(handles[2]).unwrap().vertex_range()];
    assert_eq!(kept.len(), single.vertices.len());
    for (a, b) in kept.iter().zip(&single.vertices) {
        assert!(a.pos().distance(b.pos()) < 1e-6 && a.nrm().distance(b.nrm()) < 1e-6);
        assert_eq!(a.uv, b.uv);
    }
}

mod random {
    use super::*;
    use proptest::prelude::*;

    fn point() -> impl Strategy<Value = Vec3> {
        // Few distinct values, so coincident and folded-back particles are common.
        (-3i32..=3, -3i32..=3, -3i32..=3)
            .prop_map(|(x, y, z)| Vec3::new(x as f32, y as f32, z as f32) * 0.5)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        /// Any particle positions (coincident, folded, straight): finite
        /// vertices, unit normals and tangents, indices inside their cable.
        #[test]
        fn any_positions_give_a_well_formed_mesh(
            pts in prop::collection::vec(point(), 2..24),
            sides in 3u32..12,
            k in 1u32..5,
            style in 0u8..3,
        ) {
            let mut pool = ParticlePool::new();
            let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, (pts.len() - 1) as u32).unwrap()).unwrap();
            pool.positions_mut(h).unwrap().copy_from_slice(&pts);
            let mut d = CableDesc::line(Vec3::ZERO, Vec3::Y, 1.0, 1).unwrap();
            d.params.sides = sides;
            pool.add_cable(&d).unwrap();
            let style = match style {
                0 => MeshStyle::Tube,
                s => MeshStyle::Ribbon { view: Vec3::new(0.0, 0.0, -1.0), two_sided: s == 2 },
            };
            let opt = MeshOptions { style, rings_per_segment: k, ..MeshOptions::default() };
            let m = build(&pool, &opt);
            for c in &m.cables {
                for &i in &m.indices[c.index_range()] {
                    prop_assert!(c.vertex_range().contains(&(i as usize)));
                }
                for v in &m.vertices[c.vertex_range()] {
                    prop_assert!(v.pos().is_finite() && c.bounds.expand(1e-4).contains(v.pos()));
                    prop_assert!((v.nrm().length() - 1.0).abs() < 1e-3);
                    prop_assert!((v.tan().length() - 1.0).abs() < 1e-3);
                }
            }
            let s = socket_transform(&pts, SocketAt::Distance(1.3), Vec3::Z).unwrap();
            prop_assert!(s.position.is_finite() && (s.rotation.length() - 1.0).abs() < 1e-4);
        }
    }
}

/// A cable whose start swings through the reference direction: with
/// `coherent_roll` its first ring turns no more than its tangent from frame
/// to frame; re-seeding every build instead makes the roll jump.
#[test]
fn coherent_roll_does_not_jump_between_frames() {
    use cable::systems::socket::mesh_socket;
    let mut pool = ParticlePool::new();
    let h = pool
        .add_cable(&CableDesc::line(Vec3::ZERO, Vec3::Z * 4.0, 4.0, 8).unwrap())
        .unwrap();
    let tangent = |f: usize| Vec3::new(-0.05 + 0.1 * f as f32 / 40.0, 0.001, 1.0).normalize();
    for coherent in [true, false] {
        let opt = MeshOptions {
            coherent_roll: coherent,
            ..MeshOptions::default()
        };
        let mut m = MeshBuffers::new();
        let mut worst_excess = 0.0f32;
        let mut last: Option<Mat3> = None;
        for f in 0..=40 {
            let t = tangent(f);
            for (i, p) in pool.positions_mut(h).unwrap().iter_mut().enumerate() {
                *p = t * (i as f32 * 0.5);
            }
            build_meshes(&pool, &opt, &mut m).unwrap();
            let frame = ring_frames(&m.vertices[..9], 9)[0];
            if let Some(prev) = last {
                let excess = frame_rotation(prev, frame) - angle_between(prev.x_axis, frame.x_axis);
                worst_excess = worst_excess.max(excess);
            }
            last = Some(frame);
            let s = mesh_socket(&pool, &m, h, SocketAt::Start).unwrap();
            assert!(
                (s.rotation * Vec3::Y - m.vertices[0].nrm()).length() < 1e-4,
                "socket roll = mesh roll"
            );
        }
        if coherent {
            assert!(
                worst_excess < 2e-3,
                "coherent roll jumped by {worst_excess} rad"
            );
        } else {
            assert!(
                worst_excess > 0.5,
                "re-seeding should jump here (the check would catch it)"
            );
        }
    }
}

/// Distance from `p` to the line through `a` and `b`.
fn to_line(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let d = (b - a).normalize();
    let q = p - a;
    (q - d * q.dot(d)).length()
}

#[test]
fn tube_rings_keep_the_radius_at_45_degree_bends() {
    // A polyline turning 45° at each inner point. Each ring at a joint is a
    // mitre: its vertices lie at the radius from the axes of both
    // neighbouring segments, within 2 % (a ring perpendicular to the mean
    // tangent would pinch to r·cos(22.5°), 7.6 % thin).
    let pts: Vec<Vec3> = {
        let mut p = vec![Vec3::ZERO];
        let mut dir = 0.0f32;
        for _ in 0..6 {
            let last = *p.last().expect("one");
            p.push(last + Vec3::new(dir.cos(), dir.sin(), 0.0));
            dir += std::f32::consts::FRAC_PI_4;
        }
        p
    };
    let mut pool = ParticlePool::new();
    let h = pool
        .add_cable(&CableDesc::from_points(&pts).expect("valid"))
        .expect("fits");
    let radius = pool.params(h).expect("live").radius;
    let mut mesh = MeshBuffers::new();
    build_meshes(&pool, &MeshOptions::default(), &mut mesh).expect("fits");
    let per_ring = mesh.vertices.len() / pts.len();
    for (i, ring) in mesh.vertices.chunks_exact(per_ring).enumerate() {
        for v in ring {
            let p = Vec3::from_array(v.position);
            let mut lines = Vec::new();
            if i > 0 {
                lines.push((pts[i - 1], pts[i]));
            }
            if i + 1 < pts.len() {
                lines.push((pts[i], pts[i + 1]));
            }
            for (a, b) in lines {
                let d = to_line(p, a, b);
                assert!(
                    (d - radius).abs() < 0.02 * radius,
                    "ring {i} vertex {p}: {d} m from the axis {a}–{b}"
                );
            }
            let nrm = Vec3::from_array(v.normal);
            assert!((nrm.length() - 1.0).abs() < 1.0e-5, "normal {nrm}");
            assert!(mesh.bounds.contains(p));
        }
    }
}

/// The bits of a cable's vertices in a build.
fn vertex_bits(m: &MeshBuffers, h: CableHandle) -> Vec<u32> {
    let c = m.cable(h).unwrap();
    let first = c.first_vertex as usize;
    m.vertices[first..first + c.counts.vertices as usize]
        .iter()
        .flat_map(|v| {
            v.position
                .iter()
                .chain(&v.normal)
                .chain(&v.tangent)
                .chain(&v.uv)
        })
        .map(|f| f.to_bits())
        .collect()
}

#[test]
fn cables_meshed_eight_at_a_time_are_bitwise_each_cable_alone() {
    // Runs of unsmoothed tubes of one length and number of sides are
    // meshed eight at a time, one cable per SIMD lane; cut short by a
    // cable of another length or number of sides. Each cable's mesh must
    // be exactly the one it gets built alone, whatever its neighbours:
    // bends, a fold back, a straight run, coincident particles.
    let mut rng = cable_testkit::Rng::new(11);
    let mut pool = ParticlePool::new();
    let mut descs = Vec::new();
    for c in 0..45 {
        let n = match c {
            0..20 => 12,
            20..29 => 5,
            _ => 12,
        };
        let mut pts = vec![Vec3::new(c as f32, 0.0, 0.0)];
        for i in 1..n {
            let step = match c {
                4 => Vec3::X * 0.3, // straight: no mitre anywhere
                _ => Vec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 0.5),
                    rng.range(-1.0, 1.0),
                ),
            };
            let p = pts[i - 1] + step;
            pts.push(p);
        }
        if c == 3 {
            pts[5] = pts[3]; // folds back on itself
        }
        let mut d = CableDesc::from_points(&pts).unwrap();
        d.params.sides = if (30..35).contains(&c) { 5 } else { 8 };
        d.params.radius = rng.range(0.01, 0.2);
        d.params.tile = rng.range(0.5, 3.0);
        descs.push(d);
    }
    let handles: Vec<_> = descs.iter().map(|d| pool.add_cable(d).unwrap()).collect();
    // Coincident particles, which no description may have.
    pool.positions_mut(handles[6]).unwrap()[7] = pool.positions(handles[6]).unwrap()[6];
    let mut alone: Vec<(ParticlePool, CableHandle)> = descs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mut p = ParticlePool::new();
            let h = p.add_cable(d).unwrap();
            p.positions_mut(h)
                .unwrap()
                .copy_from_slice(pool.positions(handles[i]).unwrap());
            (p, h)
        })
        .collect();
    let roll = MeshOptions {
        coherent_roll: true,
        ..MeshOptions::default()
    };
    let mut all = MeshBuffers::new();
    let mut each: Vec<MeshBuffers> = alone.iter().map(|_| MeshBuffers::new()).collect();
    // Twice, moving every particle between: the second build carries each
    // cable's roll over from the first.
    for round in 0..2 {
        if round == 1 {
            for (i, &h) in handles.iter().enumerate() {
                let shift = Vec3::new(0.01 * i as f32, -0.3, 0.2);
                for p in pool.positions_mut(h).unwrap() {
                    *p += shift;
                }
                let (p1, h1) = &mut alone[i];
                for p in p1.positions_mut(*h1).unwrap() {
                    *p += shift;
                }
            }
        }
        let stats = build_meshes(&pool, &roll, &mut all).unwrap();
        assert_eq!(stats.rebuilt, 45);
        for (i, &h) in handles.iter().enumerate() {
            let (p1, h1) = &alone[i];
            build_meshes(p1, &roll, &mut each[i]).unwrap();
            let (a, b) = (all.cable(h).unwrap(), each[i].cable(*h1).unwrap());
            assert_eq!(
                vertex_bits(&all, h),
                vertex_bits(&each[i], *h1),
                "cable {i}, round {round}"
            );
            assert_eq!(a.bounds, b.bounds, "cable {i}");
            assert_eq!(a.start_normal, b.start_normal, "cable {i}");
            assert_eq!(a.start_tangent, b.start_tangent, "cable {i}");
        }
    }
}

#[test]
fn rings_between_unequal_segments_keep_the_radius() {
    // A docs-only trial: with the ring's plane perpendicular to the chord
    // between its neighbours, a 90° bend between a 0.2 m and a 1 m
    // segment put vertices 3.9 radii from the axis. Bends of 15°–150°
    // between segments 0.05–1.3 m long, each cable a different mix, nine
    // cables of the same particle count (so the eight-lane path meshes
    // them too): every vertex of a ring at a joint lies at the radius from
    // both segments' axes (the mitre's cylinders meet in its plane), and
    // inside the cable's bounds and `cable_bounds`.
    let lengths = [0.2, 1.0, 0.05, 0.7, 1.3, 0.1, 0.4, 0.9];
    let turns = [90.0f32, 30.0, 120.0, 15.0, 150.0, 60.0, 45.0];
    let cables: Vec<Vec<Vec3>> = (0..9)
        .map(|c| {
            let mut p = vec![Vec3::new(0.0, 0.0, c as f32 * 5.0)];
            let (mut dir, mut up) = (Vec3::X, Vec3::Y);
            for k in 0..8 {
                let last = *p.last().expect("one");
                p.push(last + dir * lengths[(k + c) % 8]);
                let turn = turns[(k + 2 * c) % 7].to_radians();
                let q = glam::Quat::from_axis_angle(up, turn);
                (dir, up) = (q * dir, glam::Quat::from_axis_angle(dir, 0.7) * up);
                up = (up - dir * up.dot(dir)).normalize();
            }
            p
        })
        .collect();
    let with: Vec<(&[Vec3], f32, u32, f32)> = cables
        .iter()
        .map(|p| (p.as_slice(), 0.03, 8, 1.0))
        .collect();
    let (pool, handles) = pool_of(&with);
    let m = build(&pool, &tube(1));
    let mut worst = 0.0f32;
    for ((c, pts), &h) in m.cables.iter().zip(&cables).zip(&handles) {
        let bounds = cable_bounds(&pool, h).expect("live");
        let verts = &m.vertices[c.vertex_range()];
        for (i, ring) in verts.chunks_exact(9).enumerate() {
            for v in ring {
                let p = v.pos();
                let mut axes = Vec::new();
                if i > 0 {
                    axes.push((pts[i - 1], pts[i]));
                }
                if i + 1 < pts.len() {
                    axes.push((pts[i], pts[i + 1]));
                }
                for (a, b) in axes {
                    let d = to_line(p, a, b);
                    worst = worst.max((d / 0.03 - 1.0).abs());
                }
                assert!(
                    c.bounds.contains(p) && bounds.contains(p),
                    "{p} out of the bounds"
                );
            }
        }
    }
    assert!(worst < 2.0e-3, "a vertex {worst} radii off the radius");
}
