//! Continuous contact with thin shapes (issue 11): a cable driven at a
//! 1 cm-radius rod or a 2 × 2 cm box bar never lets its centre line cross
//! the obstacle, at 10, 20 and 50 m/s, with the default 1/60 s substep,
//! cable radius 2 mm and 1 cm, on every layout: broadside (the rod between
//! particles and at a particle, the bar between particles, off-centre and
//! turned corner first) and obliquely (30° and 60° off broadside, the rod
//! and a bar turned 0.3 rad).
//!
//! The checks are written here, independently of the solver: the cable
//! lies in the plane z = 0 and the obstacle runs along z through it, so
//! the question is two-dimensional. After every substep no segment of the
//! centre line may overlap the obstacle's cross-section (a disc or a
//! square) by 1 mm or more, and the winding angle of the cable around the
//! obstacle's axis may never jump by more than π in one substep (a
//! segment passing over the axis). Broadside every substep is checked,
//! strictly: a jump counts even where an end piece whirling round the
//! obstacle could cause one without crossing (none does). Driven
//! obliquely the cable slides along itself, its ends reach the obstacle
//! and one such whirl did jump by more than π with the centre line never
//! inside, so there only substeps with both ends 0.5 m or more from the
//! axis count (13 to 90 of the 90, printed with `--nocapture`) and the
//! depth check carries the rest.
//!
//! Status (2026-11-24): every case passes on every layout; the test
//! allows the centre line 1 mm into the obstacle, and none of the 162 runs
//! goes 0.05 mm in. A segment that went over the
//! obstacle's axis since the last contact pass, or whose centre line
//! entered it, is put back on the side it came from
//! (`cable_systems::kernel::contact`, `Contacts::uncross`). The bar failed until
//! the box's segment contact stopped reading a segment straight through
//! the box as just touching it (`narrow::segment_box_closest` took the
//! face where the segment enters, which rounding can put a hair outside).
//! `cargo test --release --test thin -- --nocapture` prints each run's
//! depth and crossings.

use cable::systems::Layout;
use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use cable_core::Collider;
use glam::{Quat, Vec2, Vec3};

/// The obstacle's cross-section in the plane z = 0.
#[derive(Clone, Copy, Debug)]
enum Section {
    /// A disc: centre, radius.
    Disc(Vec2, f32),
    /// A square: centre, half side, turn about z (radians; 0: sides
    /// along x and y).
    Square(Vec2, f32, f32),
}

impl Section {
    fn centre(self) -> Vec2 {
        match self {
            Section::Disc(c, _) | Section::Square(c, _, _) => c,
        }
    }

    /// The 3D collider: a capsule or box 2 m long along z.
    fn collider(self) -> Collider {
        match self {
            Section::Disc(c, r) => {
                Collider::capsule(Vec3::new(c.x, c.y, -1.0), Vec3::new(c.x, c.y, 1.0), r)
            }
            Section::Square(c, h, turn) => Collider::cuboid(
                Vec3::new(c.x, c.y, 0.0),
                Vec3::new(h, h, 1.0),
                Quat::from_rotation_z(turn),
            ),
        }
        .expect("valid obstacle")
    }

    /// How deep the segment a–b reaches into the section (0 when it stays
    /// outside): for the disc, radius minus the segment's distance from the
    /// centre; for the square, the depth of the segment's deepest point
    /// (the square clipped by the segment, Liang–Barsky).
    fn depth(self, a: Vec2, b: Vec2) -> f32 {
        match self {
            Section::Disc(c, r) => {
                let ab = b - a;
                let t = ((c - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
                (r - (a + ab * t).distance(c)).max(0.0)
            }
            Section::Square(c, h, turn) => {
                // In the square's own frame.
                let back = Vec2::from_angle(-turn);
                let (a, b) = (c + back.rotate(a - c), c + back.rotate(b - c));
                let (lo, hi) = (c - Vec2::splat(h), c + Vec2::splat(h));
                let d = b - a;
                let (mut t0, mut t1) = (0.0f32, 1.0f32);
                for k in 0..2 {
                    if d[k].abs() < 1e-12 {
                        if a[k] < lo[k] || a[k] > hi[k] {
                            return 0.0;
                        }
                    } else {
                        let (u, v) = ((lo[k] - a[k]) / d[k], (hi[k] - a[k]) / d[k]);
                        t0 = t0.max(u.min(v));
                        t1 = t1.min(u.max(v));
                    }
                }
                if t0 > t1 {
                    return 0.0;
                }
                // The deepest point of the clipped piece: the square's
                // depth function is concave, so check the piece's ends and
                // its point nearest the centre.
                let depth_at = |p: Vec2| (Vec2::splat(h) - (p - c).abs()).min_element();
                let (p0, p1) = (a + d * t0, a + d * t1);
                let tc =
                    ((c - p0).dot(p1 - p0) / (p1 - p0).length_squared().max(1e-12)).clamp(0.0, 1.0);
                depth_at(p0)
                    .max(depth_at(p1))
                    .max(depth_at(p0.lerp(p1, tc)))
                    .max(0.0)
            }
        }
    }
}

/// The angle the polyline subtends as seen from `c`, radians: the sum of
/// its segments' signed angles. It equals the angle between the ends'
/// directions plus 2π times how often the cable winds around `c`, so it
/// changes continuously while the cable moves, slides along `c` or goes
/// around it, and jumps by 2π exactly when a segment passes over `c`.
fn winding(pts: &[Vec2], c: Vec2) -> f64 {
    pts.windows(2)
        .map(|w| {
            let (a, b) = ((w[0] - c).as_dvec2(), (w[1] - c).as_dvec2());
            a.perp_dot(b).atan2(a.dot(b))
        })
        .sum()
}

/// Drives a free 2 m cable of 20 segments (particles every 10 cm), lying
/// along x, at `speed` m/s at the obstacle: in −y turned by `heading`
/// radians towards +x (0: broadside), with the obstacle's axis where the
/// cable's middle would pass; checks every substep.
/// Returns the largest depth the centre line reached into the obstacle,
/// how often it crossed the obstacle's axis (a jump of the winding angle
/// around the axis by more than π in one substep) and in how many
/// substeps that was checked (see the module docs).
fn drive(
    layout: Layout,
    section: Section,
    cable_radius: f32,
    speed: f32,
    heading: f32,
) -> (f32, usize, usize) {
    let mut pool = ParticlePool::new();
    pool.colliders_mut().add(section.collider());
    let centre = section.centre();
    // Start 0.3 m before the obstacle along the path.
    let back = 0.3 * heading.tan();
    let (a, b) = (
        Vec3::new(centre.x - 1.0 - back, centre.y + 0.3, 0.0),
        Vec3::new(centre.x + 1.0 - back, centre.y + 0.3, 0.0),
    );
    let mut d = CableDesc::line(a, b, 2.0, 20).expect("valid cable");
    d.attach_start = false;
    d.attach_end = false;
    d.params.radius = cable_radius;
    let c = pool.add_cable(&d).expect("fits");
    let params = SolverParams::default();
    let v = Vec3::new(heading.sin(), -heading.cos(), 0.0) * speed;
    pool.set_velocity(c, v, params.substep)
        .expect("valid velocity");
    let mut st = Stepper::with_layout(params, layout).expect("valid params");
    let flat = |p: &[Vec3]| p.iter().map(|v| Vec2::new(v.x, v.y)).collect::<Vec<_>>();
    let mut angle = winding(&flat(pool.positions(c).expect("live")), centre);
    let (mut deepest, mut crossings, mut checked) = (0.0f32, 0usize, 0usize);
    let start = flat(pool.positions(c).expect("live"));
    let mut ends = [start[0], start[start.len() - 1]];
    for _ in 0..90 {
        st.run_substeps(&mut pool, 1);
        let now = flat(pool.positions(c).expect("live"));
        for i in 0..now.len() - 1 {
            deepest = deepest.max(section.depth(now[i], now[i + 1]));
        }
        let next = winding(&now, centre);
        // Driven obliquely the cable slides along itself and its ends reach
        // the obstacle, where an end piece whirling round it can turn by
        // more than π in one substep without passing over it: there, only
        // substeps with both ends 0.5 m or more from the axis count (see
        // the module docs).
        let far = heading == 0.0
            || [now[0], now[now.len() - 1], ends[0], ends[1]]
                .iter()
                .all(|e| e.distance(centre) >= 0.5);
        if far && (next - angle).abs() > std::f64::consts::PI {
            crossings += 1;
        }
        checked += usize::from(far);
        ends = [now[0], now[now.len() - 1]];
        angle = next;
    }
    assert!(pool.all_finite());
    (deepest, crossings, checked)
}

fn check(section: Section, heading: f32) {
    let mut failures = Vec::new();
    for layout in Layout::ALL {
        for cable_radius in [0.002f32, 0.01] {
            for speed in [10.0f32, 20.0, 50.0] {
                let (deepest, crossings, checked) =
                    drive(layout, section, cable_radius, speed, heading);
                println!(
                    "{section:?} heading {heading:.3} {layout} r={cable_radius} {speed} m/s: depth {deepest:.4} m, \
                     crossings {crossings} in {checked} of 90 substeps checked"
                );
                // Never across, and the centre line never more than 1 mm
                // inside (measured: under 0.05 mm in every run).
                if deepest >= 0.001 || crossings > 0 {
                    failures.push(format!(
                        "{layout}, cable radius {cable_radius} m, {speed} m/s: centre line {deepest} m \
                         inside, crossed the axis {crossings} times"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{section:?}:\n{}", failures.join("\n"));
}

#[test]
fn a_cable_never_crosses_a_1_cm_rod_between_its_particles() {
    check(Section::Disc(Vec2::new(0.05, 0.0), 0.01), 0.0);
}

#[test]
fn a_cable_never_crosses_a_1_cm_rod_at_a_particle() {
    check(Section::Disc(Vec2::new(0.0, 0.0), 0.01), 0.0);
}

#[test]
fn a_cable_never_crosses_a_2_cm_box_bar_between_its_particles() {
    check(Section::Square(Vec2::new(0.05, 0.0), 0.01, 0.0), 0.0);
}

#[test]
fn a_cable_never_crosses_a_2_cm_box_bar_off_centre() {
    check(Section::Square(Vec2::new(0.03, 0.0), 0.01, 0.0), 0.0);
}

#[test]
fn a_cable_never_crosses_a_bar_turned_corner_first() {
    check(
        Section::Square(Vec2::new(0.05, 0.0), 0.01, std::f32::consts::FRAC_PI_4),
        0.0,
    );
}

#[test]
fn a_cable_driven_obliquely_never_crosses_a_rod_or_a_bar() {
    for heading in [30.0f32.to_radians(), 60.0f32.to_radians()] {
        check(Section::Disc(Vec2::new(0.05, 0.0), 0.01), heading);
        check(Section::Square(Vec2::new(0.05, 0.0), 0.01, 0.3), heading);
    }
}

/// Work on a shape near a few cables of a wide block runs on their lane
/// groups only (`few_groups` in `cable_systems::kernel::contact`): the side
/// memory, the contact pass and the un-crossing. Sixteen cables side by
/// side (one bundle, two lane groups live) are driven at 20 m/s at a rod,
/// a bar and a small ball that reach only the first few. `lanes8` must
/// give the bits of `soa`, which runs each cable alone. The one-cable runs
/// above never reach the lane groups (a single cable runs one lane wide).
/// Skipping the first group's contact pass fails this (checked,
/// 2026-11-27); skipping its side memory does not change these runs, and
/// `cable_systems::kernel::contact`'s unit test
/// `side_memory_on_lane_groups_is_the_whole_block_pass` checks that part.
#[test]
fn shapes_near_a_few_cables_of_a_bundle_match_the_one_lane_layout() {
    let shapes = [
        Collider::capsule(
            Vec3::new(0.05, 0.0, -0.05),
            Vec3::new(0.05, 0.0, 0.45),
            0.01,
        ),
        Collider::cuboid(
            Vec3::new(0.0, 0.0, 0.2),
            Vec3::new(0.01, 0.01, 0.25),
            Quat::from_rotation_z(0.3),
        ),
        Collider::sphere(Vec3::new(0.02, 0.0, 0.2), 0.012),
    ];
    for shape in shapes {
        let shape = shape.expect("valid obstacle");
        let run = |layout: Layout| -> Vec<u32> {
            let mut pool = ParticlePool::new();
            pool.colliders_mut().add(shape);
            let params = SolverParams::default();
            let mut cables = Vec::new();
            for k in 0..16 {
                let z = k as f32 * 0.1;
                let mut d =
                    CableDesc::line(Vec3::new(-1.0, 0.3, z), Vec3::new(1.0, 0.3, z), 2.0, 20)
                        .expect("valid cable");
                d.attach_start = false;
                d.attach_end = false;
                d.params.radius = 0.002 + 0.001 * (k % 3) as f32;
                let h = pool.add_cable(&d).expect("fits");
                let v = Vec3::new(0.01 * k as f32, -20.0, 0.0);
                pool.set_velocity(h, v, params.substep)
                    .expect("valid velocity");
                cables.push(h);
            }
            let mut st = Stepper::with_layout(params, layout).expect("valid params");
            for _ in 0..90 {
                st.run_substeps(&mut pool, 1);
            }
            cables
                .iter()
                .flat_map(|&h| pool.positions(h).expect("live").to_vec())
                .flat_map(|p| p.to_array().map(f32::to_bits))
                .collect()
        };
        let (wide, one) = (run(Layout::Lanes8), run(Layout::Soa));
        let first = wide.iter().zip(&one).position(|(a, b)| a != b);
        assert!(
            first.is_none(),
            "{:?}: lanes8 differs from soa first at coordinate {first:?}",
            shape.shape()
        );
    }
}
