//! Kinematic colliders moving into ropes (issue 40): a rod (r 1 cm), a bar
//! (2 × 2 cm), balls (r 1, 2, 5 cm) and a box (0.5 m) driven at 1 to 20 m/s
//! into a slack rope pinned at both ends and into a free rope, and a bar
//! spinning at 5 rev/s (tip 15.7 m/s) into a hanging rope. The rope
//! (radius 1 cm) lies in the plane z = 0 and every obstacle runs along z
//! through it (or, the ball, is centred in it), so the question is
//! two-dimensional and checked here independently of the solver, after
//! every substep: the rope's centre line never reaches 1 mm into the
//! obstacle's cross-section, and never passes over its centre (the
//! rope's winding angle around the centre never jumps by more than π in
//! one substep; a free rope's ends may wrap round the obstacle, which
//! winds continuously). Last, solids resting on the ground (a ball, a
//! capsule) pushed into a rope lying on it: the rope stays on the ground
//! and out of the solid.

use cable::systems::Layout;
use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use cable_core::Collider;
use glam::{Quat, Vec2, Vec3};

/// Substep and frame, seconds (one substep a frame: every substep checked).
const H: f32 = 1.0 / 60.0;
/// Rope radius, metres.
const ROPE_R: f32 = 0.01;

/// An obstacle: its cross-section in the plane z = 0 and its collider.
#[derive(Clone, Copy, Debug)]
enum Obstacle {
    /// A capsule along z (a rod) of this radius.
    Rod(f32),
    /// A ball of this radius.
    Ball(f32),
    /// A box, long along z, of this half side.
    Bar(f32),
}

impl Obstacle {
    fn collider(self, c: Vec2, v: Vec3) -> Collider {
        let made = match self {
            Obstacle::Rod(r) => {
                Collider::capsule(Vec3::new(c.x, c.y, -1.0), Vec3::new(c.x, c.y, 1.0), r)
            }
            Obstacle::Ball(r) => Collider::sphere(c.extend(0.0), r),
            Obstacle::Bar(h) => {
                Collider::cuboid(c.extend(0.0), Vec3::new(h, h, 1.0), Quat::IDENTITY)
            }
        };
        made.and_then(|m| m.with_motion(v, Vec3::ZERO))
            .expect("a valid obstacle")
    }

    /// How deep the segment a–b reaches into the cross-section centred at
    /// `c` (0 outside).
    fn depth(self, c: Vec2, a: Vec2, b: Vec2) -> f32 {
        match self {
            Obstacle::Rod(r) | Obstacle::Ball(r) => (r - point_segment(c, a, b)).max(0.0),
            Obstacle::Bar(h) => {
                // Sample the segment finely: the square's depth is concave.
                (0..=64)
                    .map(|k| {
                        let p = a.lerp(b, k as f32 / 64.0);
                        (Vec2::splat(h) - (p - c).abs()).min_element()
                    })
                    .fold(0.0f32, f32::max)
            }
        }
    }
}

fn point_segment(c: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = ((c - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
    (a + ab * t).distance(c)
}

/// The rope's centre line in the plane z = 0.
fn line(pool: &ParticlePool, h: cable::CableHandle) -> Vec<Vec2> {
    pool.positions(h)
        .expect("live")
        .iter()
        .map(|p| p.truncate())
        .collect()
}

/// How many radians the rope's centre line winds around `c`: the sum of
/// the angles its segments subtend there. It changes continuously while
/// the rope moves around `c`, and jumps by about 2π when a segment passes
/// over `c`: through the obstacle.
fn winding(rope: &[Vec2], c: Vec2) -> f32 {
    rope.windows(2)
        .map(|w| {
            let (a, b) = (w[0] - c, w[1] - c);
            a.perp_dot(b).atan2(a.dot(b))
        })
        .sum()
}

/// The rope's height at `x` (the first segment spanning it), if any.
fn height_at(rope: &[Vec2], x: f32) -> Option<f32> {
    rope.windows(2).find_map(|w| {
        let (a, b) = (w[0], w[1]);
        let (lo, hi) = (a.x.min(b.x), a.x.max(b.x));
        (lo <= x && x <= hi && hi > lo).then(|| a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x))
    })
}

/// Result of one run: deepest reach into the obstacle and whether the
/// rope got past it.
struct Outcome {
    depth: f32,
    crossed: bool,
    positions: Vec<Vec3>,
}

/// A rope of 48 segments, 2.4 m long over a 2 m span centred on x = 0 at
/// height 0; `pinned`: both ends pinned and settled 2 s under gravity,
/// else free, straight, without gravity. The obstacle starts 0.3 m below
/// the rope's lowest point (just off x = 0, between particles) and moves
/// up at `speed` for 0.6 m, then stays; 0.5 s more are run.
fn drive(ob: Obstacle, speed: f32, pinned: bool, layout: Layout) -> Outcome {
    let mut pool = ParticlePool::new();
    let mut desc = CableDesc::line(Vec3::new(-1.2, 0.0, 0.0), Vec3::new(1.2, 0.0, 0.0), 2.4, 48)
        .expect("valid rope");
    if pinned {
        desc = CableDesc::line(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), 2.4, 48)
            .expect("valid rope");
    } else {
        desc.attach_start = false;
        desc.attach_end = false;
    }
    desc.params.radius = ROPE_R;
    let rope = pool.add_cable(&desc).expect("rope added");
    let params = SolverParams {
        substep: H,
        gravity: if pinned {
            Vec3::new(0.0, -9.81, 0.0)
        } else {
            Vec3::ZERO
        },
        damping: 0.5,
        ..SolverParams::default()
    };
    let mut stepper = Stepper::with_layout(params, layout).expect("valid stepper");
    if pinned {
        for _ in 0..120 {
            stepper.advance(&mut pool, H).expect("settles");
        }
    }
    let x = 0.013;
    let low = height_at(&line(&pool, rope), x).expect("the rope spans x");
    let start = Vec2::new(x, low - 0.3);
    let k = pool
        .colliders_mut()
        .add(ob.collider(start, Vec3::new(0.0, speed, 0.0)));
    let travel_frames = (0.6 / (speed * H)).round() as u32;
    let mut out = Outcome {
        depth: 0.0,
        crossed: false,
        positions: Vec::new(),
    };
    let mut turns = winding(&line(&pool, rope), start);
    for f in 0..travel_frames + 30 {
        if f == travel_frames {
            pool.colliders_mut()
                .set_motion(k, Vec3::ZERO, Vec3::ZERO)
                .expect("live collider");
        }
        stepper.advance(&mut pool, H).expect("steps");
        let c = pool.colliders().get(k).expect("live").position().truncate();
        let l = line(&pool, rope);
        for w in l.windows(2) {
            out.depth = out.depth.max(ob.depth(c, w[0], w[1]));
        }
        // Through it: a segment passed over the obstacle's centre (the
        // rope's ends may wrap round it; that winds continuously).
        let now = winding(&l, c);
        if (now - turns).abs() > std::f32::consts::PI {
            out.crossed = true;
        }
        turns = now;
    }
    out.positions = pool.positions(rope).expect("live").to_vec();
    out
}

/// Runs every obstacle of `obstacles` at every speed of `speeds` into a
/// pinned and a free rope; returns the runs that crossed or went 1 mm in.
fn sweep(obstacles: &[Obstacle], speeds: &[f32]) -> Vec<String> {
    let mut failed = Vec::new();
    for &ob in obstacles {
        for &speed in speeds {
            for pinned in [true, false] {
                let o = drive(ob, speed, pinned, Layout::default());
                println!(
                    "{ob:?} at {speed} m/s, {}: depth {:.2} mm, crossed {}",
                    if pinned { "pinned" } else { "free" },
                    o.depth * 1000.0,
                    o.crossed
                );
                if o.crossed || o.depth > 1.0e-3 {
                    failed.push(format!(
                        "{ob:?} {speed} m/s pinned={pinned}: depth {:.2} mm crossed {}",
                        o.depth * 1000.0,
                        o.crossed
                    ));
                }
            }
        }
    }
    failed
}

#[test]
fn rods_bars_balls_and_boxes_driven_into_ropes_at_1_to_20_m_per_s_never_pass_through() {
    let obstacles = [
        Obstacle::Rod(0.01),
        Obstacle::Bar(0.01),
        Obstacle::Ball(0.05),
        Obstacle::Bar(0.25),
    ];
    let failed = sweep(&obstacles, &[1.0, 2.0, 5.0, 10.0, 20.0]);
    assert!(
        failed.is_empty(),
        "{} of 40 runs failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn small_balls_driven_into_ropes_up_to_5_m_per_s_never_pass_through() {
    let obstacles = [Obstacle::Ball(0.01), Obstacle::Ball(0.02)];
    let failed = sweep(&obstacles, &[1.0, 2.0, 5.0]);
    assert!(
        failed.is_empty(),
        "{} of 12 runs failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// Balls of 1 and 2 cm at 10 and 20 m/s: thinner than a segment (5 cm)
/// and faster than a particle's contact reaches in a substep, so only the
/// un-crossing against the ball's diameter across each segment's sweep
/// holds them (`cable_systems::kernel::narrow::Core::Ball`); before it,
/// they reached 1 to 12 mm into the ball and some passed through.
#[test]
fn small_balls_at_10_and_20_m_per_s_never_pass_through() {
    let obstacles = [Obstacle::Ball(0.01), Obstacle::Ball(0.02)];
    let failed = sweep(&obstacles, &[10.0, 20.0]);
    assert!(
        failed.is_empty(),
        "{} of 8 runs failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn moving_obstacles_give_the_same_bits_on_every_layout() {
    for (ob, speed) in [(Obstacle::Rod(0.01), 5.0), (Obstacle::Ball(0.05), 20.0)] {
        let runs: Vec<_> = Layout::ALL
            .iter()
            .map(|&l| drive(ob, speed, true, l).positions)
            .collect();
        for (l, r) in Layout::ALL.iter().zip(&runs) {
            assert_eq!(r, &runs[0], "{l} differs from {}", Layout::ALL[0]);
        }
    }
}

/// A 1 m rope hanging from (0, 1) with a free end, and a 1 m bar spinning
/// at `rev_per_s` beside it for 2 s: the particles that went through the
/// bar, the deepest reach of the rope into it, and the farthest any
/// particle left the plane z = 0 (nothing in the scene acts along z),
/// metres.
fn spin_into_hanging_rope(rev_per_s: f32) -> (u32, f32, f32) {
    let mut pool = ParticlePool::new();
    // A 1 m rope hanging from (0, 1) with a free end.
    let mut desc = CableDesc::line(Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.0, 0.0), 1.0, 32)
        .expect("valid rope");
    desc.attach_end = false;
    desc.params.radius = ROPE_R;
    let rope = pool.add_cable(&desc).expect("rope added");
    // A 1 m bar (r 1 cm) in the plane, upright 0.3 m beside the rope (clear
    // of it), then spinning about z: at 5 rev/s its tip moves at
    // 2π · 5 · 0.5 = 15.7 m/s.
    let half = 0.5;
    let centre = Vec3::new(0.3, 0.5, 0.0);
    let spin = rev_per_s * std::f32::consts::TAU;
    let bar = Collider::capsule(centre - Vec3::Y * half, centre + Vec3::Y * half, 0.01)
        .and_then(|c| c.with_motion(Vec3::ZERO, Vec3::new(0.0, 0.0, spin)))
        .expect("valid bar");
    let k = pool.colliders_mut().add(bar);
    let params = SolverParams {
        substep: H,
        gravity: Vec3::new(0.0, -9.81, 0.0),
        ..SolverParams::default()
    };
    let mut stepper = Stepper::new(params).expect("valid stepper");
    // A particle's (along, across) coordinates in the frame of the bar
    // turned by `angle` about z (its axis is y at angle 0).
    let coords = |p: Vec2, angle: f32| {
        let u = Vec2::new(-angle.sin(), angle.cos());
        let d = p - centre.truncate();
        (d.dot(u), d.perp_dot(u))
    };
    let mut before = line(&pool, rope);
    let (mut deepest, mut crossings, mut lifted) = (0.0f32, 0, 0.0f32);
    for step in 0..120 {
        stepper.advance(&mut pool, H).expect("steps");
        let z = pool.positions(rope).expect("live").iter();
        lifted = z.fold(lifted, |m, p| m.max(p.z.abs()));
        let rot = pool.colliders().get(k).expect("live").rotation();
        let (a, b) = (
            (centre + rot * (Vec3::Y * half)).truncate(),
            (centre - rot * (Vec3::Y * half)).truncate(),
        );
        let l = line(&pool, rope);
        for w in l.windows(2) {
            // Distance between the rope's segment and the bar's core.
            let d = point_segment(w[0], a, b)
                .min(point_segment(w[1], a, b))
                .min(point_segment(a, w[0], w[1]))
                .min(point_segment(b, w[0], w[1]));
            deepest = deepest.max(0.01 - d);
        }
        // Each particle's path relative to the bar over the substep (a
        // straight line in the world while the bar turns at its spin),
        // sampled finely: a path that ends on the other side of the bar,
        // having crossed its axis within its length an odd number of
        // times, went through it. (A particle the bar carries far in one
        // substep may have a chord that dips across the axis and back.)
        let (a0, a1) = (step as f32 * spin * H, (step + 1) as f32 * spin * H);
        for (p, q) in before.iter().zip(&l) {
            let at = |t: f32| coords(p.lerp(*q, t), a0 + (a1 - a0) * t);
            let (mut was, mut through) = (at(0.0), 0);
            for j in 1..=64 {
                let now = at(j as f32 / 64.0);
                if was.1 * now.1 < 0.0 && was.0.abs().max(now.0.abs()) < half - 0.05 {
                    through += 1;
                }
                was = now;
            }
            if through % 2 == 1 && at(0.0).1 * at(1.0).1 < 0.0 {
                crossings += 1;
            }
        }
        before = l;
    }
    (crossings, deepest, lifted)
}

/// A bar spinning at `rev_per_s` lets no particle through, the rope
/// reaches less than 1 mm into it and stays within 1 mm of its plane.
fn holds_against_spin(rev_per_s: f32) {
    let (crossings, deepest, lifted) = spin_into_hanging_rope(rev_per_s);
    assert_eq!(crossings, 0, "particles went through the spinning bar");
    assert!(
        deepest < 1.0e-3,
        "the rope reached {:.2} mm into the bar",
        deepest * 1000.0
    );
    assert!(
        lifted < 1.0e-3,
        "the rope left its plane by {:.2} mm",
        lifted * 1000.0
    );
}

#[test]
fn a_bar_spinning_at_half_a_rev_per_s_never_lets_a_hanging_rope_through() {
    holds_against_spin(0.5);
}

/// At 1 rev/s the bar's tip moves at 3.1 m/s. Before the contact normal
/// of a piece on the bar's core came from the side it started on (or
/// against its motion), this threw the rope 27 cm out of its plane and
/// let 19 particles through.
#[test]
fn a_bar_spinning_at_1_rev_per_s_never_lets_a_hanging_rope_through() {
    holds_against_spin(1.0);
}

/// Open (issue 40): at 2 to 5 rev/s, 2 or 3 passes in 2 s. At 5 rev/s
/// each is of the particle next to the pinned one, once the bar has wound
/// the rope round itself and stretched that first segment across it (the
/// rope's 8 iterations cannot hold it against a tip at 16 m/s); at 2 and
/// 5 rev/s the rope's centre line also reaches 6.5 and 9.2 mm into the
/// bar. Printed per substep: before each pass the bar has carried the
/// first particles far from the pin (particle 1 0.64 m from it, 3.1 cm at
/// rest). Tried: three more rounds of tethers and a contact pass before
/// friction (8 passes), and the solid's push solved together with the
/// tether's reach (9, and 1 at 1 rev/s): the reach must be solved with
/// the constraints, not in the contact alone.
#[test]
#[ignore = "open in issue 40: a bar spinning at 5 rev/s"]
fn a_bar_spinning_at_5_rev_per_s_never_lets_a_hanging_rope_through() {
    holds_against_spin(5.0);
}

#[test]
fn scene_files_give_colliders_a_velocity_and_a_spin() {
    let scene = cable::Scene::from_json(
        r#"{"cables": [{"start": [0, 0, 0], "end": [1, 0, 0]}],
            "colliders": [{"type": "box", "center": [0, -1, 0], "half_extents": [0.5, 0.1, 0.5],
                           "velocity": [0, 2, 0], "angular_velocity": [0, 0, 3]}]}"#,
    )
    .expect("a valid scene");
    let (pool, _) = scene.build_pool().expect("builds");
    let k = pool.colliders().handles().next().expect("one collider");
    let c = pool.colliders().get(k).expect("live");
    assert_eq!(c.velocity(), Vec3::new(0.0, 2.0, 0.0));
    assert_eq!(c.angular_velocity(), Vec3::new(0.0, 0.0, 3.0));
    // One second of substeps moves it 2 m up and turns it 3 rad.
    let mut pool = pool;
    let mut stepper = Stepper::new(scene.params).expect("valid");
    for _ in 0..60 {
        stepper.advance(&mut pool, 1.0 / 60.0).expect("steps");
    }
    let c = pool.colliders().get(k).expect("live");
    assert!((c.position().y - 1.0).abs() < 1e-4, "{}", c.position());
    let (axis, angle) = c.rotation().to_axis_angle();
    assert!(
        (angle - 3.0).abs() < 1e-3 && axis.z > 0.999,
        "{axis} {angle}"
    );
    for (bad, place) in [
        (r#""velocity": [0, 1e6, 0]"#, "scene.colliders[0].velocity"),
        (
            r#""angular_velocity": [0, 0, "x"]"#,
            "scene.colliders[0].angular_velocity",
        ),
        (r#""speed": 1"#, "scene.colliders[0].speed"),
    ] {
        let text = format!(
            r#"{{"cables": [{{"start": [0, 0, 0], "end": [1, 0, 0]}}],
                "colliders": [{{"type": "sphere", "center": [0, 0, 0], "radius": 1, {bad}}}]}}"#
        );
        let err = cable::Scene::from_json(&text).expect_err(bad).to_string();
        assert!(err.starts_with(place), "{bad}: {err}");
    }
}

/// A torn segment joins nothing: its two ends, one each side of a
/// collider, are two lone particles, not a piece of cable across it. The
/// contact's segment passes (sweeps, segment contact, putting a segment
/// back on its side of a rod) once treated them as one: a sphere between
/// them, or a capsule spinning at 50 rad/s, pushed particles 3 m away
/// (issue 38's second trial). Without gravity and at rest, particles no
/// shape comes near must not move at all, on every layout, whether the
/// shape stands, moves across the gap or spins.
#[test]
fn a_torn_segment_across_a_collider_touches_nothing() {
    let shapes = [
        Collider::sphere(Vec3::ZERO, 0.5).expect("valid"),
        Collider::sphere(Vec3::new(0.0, 0.0, -2.0), 0.3)
            .and_then(|c| c.with_motion(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO))
            .expect("valid"),
        Collider::capsule(Vec3::new(-0.4, 0.0, 0.0), Vec3::new(0.4, 0.0, 0.0), 0.2)
            .and_then(|c| c.with_motion(Vec3::ZERO, Vec3::new(0.0, 0.0, 50.0)))
            .expect("valid"),
        Collider::cuboid(Vec3::ZERO, Vec3::new(0.3, 0.3, 0.3), Quat::IDENTITY)
            .and_then(|c| c.with_motion(Vec3::new(0.0, 3.0, 0.0), Vec3::new(0.0, 0.0, 20.0)))
            .expect("valid"),
    ];
    for shape in shapes {
        for layout in Layout::ALL {
            let mut pool = ParticlePool::new();
            // Several cables, so the lane layouts run full groups: each a
            // single segment from x = -3 to x = 3 through the shape's path,
            // torn before the first step.
            let mut ropes = Vec::new();
            for k in 0..9 {
                let z = 0.01 * k as f32;
                let mut d =
                    CableDesc::line(Vec3::new(-3.0, 0.0, z), Vec3::new(3.0, 0.0, z), 6.0, 1)
                        .expect("valid rope");
                d.attach_start = false;
                d.attach_end = false;
                d.params.radius = 0.02;
                let h = pool.add_cable(&d).expect("added");
                pool.break_segment(h, 0).expect("segment 0 exists");
                ropes.push((h, pool.positions(h).expect("live").to_vec()));
            }
            pool.colliders_mut().add(shape);
            let params = SolverParams {
                substep: 0.005,
                gravity: Vec3::ZERO,
                ..SolverParams::default()
            };
            let mut stepper = Stepper::with_layout(params, layout).expect("valid stepper");
            for _ in 0..200 {
                stepper.advance(&mut pool, 0.005).expect("steps");
            }
            for (h, start) in &ropes {
                let now = pool.positions(*h).expect("live");
                assert_eq!(
                    now,
                    &start[..],
                    "{layout}: {shape:?} moved a torn rope's ends"
                );
            }
        }
    }
}

/// A solid resting on the ground (y = 0), its centre `start`, driven at
/// `speed` m/s along z into a free rope lying on the ground across its
/// path (2 m, 40 segments, radius 1 cm, friction 0.5), for as long as it
/// takes to cross the rope's start line and 0.3 s more, one substep a
/// frame. `solid(centre)` makes the collider at a centre and `dist(p,
/// centre)` is a point's distance from its surface (written here). Returns
/// the deepest any particle went into the ground and into the solid
/// (metres, 0 when never) and how many particles lie ahead of the solid's
/// centre at the end.
fn push_rope_on_ground(
    start: Vec3,
    speed: f32,
    solid: impl Fn(Vec3) -> Collider,
    dist: impl Fn(Vec3, Vec3) -> f32,
) -> (f32, f32, usize) {
    let mut pool = ParticlePool::new();
    pool.colliders_mut()
        .add(Collider::plane(Vec3::Y, 0.0).expect("valid plane"));
    let v = Vec3::new(0.0, 0.0, speed);
    pool.colliders_mut().add(
        solid(start)
            .with_motion(v, Vec3::ZERO)
            .expect("valid motion"),
    );
    let y = ROPE_R + 1.0e-4;
    let mut d = CableDesc::line(Vec3::new(-1.0, y, 0.0), Vec3::new(1.0, y, 0.0), 2.0, 40)
        .expect("valid rope");
    d.attach_start = false;
    d.attach_end = false;
    d.params.radius = ROPE_R;
    let h = pool.add_cable(&d).expect("added");
    let params = SolverParams {
        friction: 0.5,
        ..SolverParams::default()
    };
    let mut stepper = Stepper::new(params).expect("valid stepper");
    let frames = ((-start.z / speed + 0.3) / H).ceil() as usize;
    let (mut ground, mut into) = (0.0f32, 0.0f32);
    let mut centre = start;
    for frame in 1..=frames {
        stepper.advance(&mut pool, H).expect("steps");
        centre = start + v * (frame as f32 * H);
        for &p in pool.positions(h).expect("live") {
            ground = ground.max(ROPE_R - p.y);
            into = into.max(ROPE_R - dist(p, centre));
        }
    }
    let ahead = pool
        .positions(h)
        .expect("live")
        .iter()
        .filter(|p| p.z > centre.z)
        .count();
    (ground, into, ahead)
}

/// A ball (`ball: true`, radius `size`) or a capsule of radius `size`
/// lying on the ground across the rope's direction (0.6 m long) rolled or
/// pushed into a rope lying on the ground at `speed`, starting `from`
/// metres away (so that it meets the rope at different points of a
/// substep): the rope stays within 1 mm of the ground and of the solid
/// every substep and ends ahead of it.
fn holds_on_ground(ball: bool, size: f32, speed: f32, from: f32) {
    let start = Vec3::new(0.0, size, -from);
    let half = Vec3::new(0.3, 0.0, 0.0);
    let (ground, into, ahead) = if ball {
        push_rope_on_ground(
            start,
            speed,
            |c| Collider::sphere(c, size).expect("valid ball"),
            |p, c| p.distance(c) - size,
        )
    } else {
        push_rope_on_ground(
            start,
            speed,
            |c| Collider::capsule(c - half, c + half, size).expect("valid capsule"),
            |p, c| {
                let x = (p.x - c.x).clamp(-half.x, half.x);
                p.distance(Vec3::new(c.x + x, c.y, c.z)) - size
            },
        )
    };
    let at = format!(
        "{} r {size} m at {speed} m/s from {from} m",
        if ball { "ball" } else { "capsule" }
    );
    assert!(
        ground < 1.0e-3,
        "{at}: the rope went {:.2} mm into the ground",
        ground * 1e3
    );
    assert!(
        into < 1.0e-3,
        "{at}: the rope went {:.2} mm into the solid",
        into * 1e3
    );
    assert!(ahead > 0, "{at}: the solid went over the rope");
}

/// A ball rolled into a rope lying on the ground squeezes it between
/// itself and the ground, whose contacts push in turn: the ball's push,
/// down its front, into the ground. Pushed along the wedge between the
/// two instead, the rope is carried ahead of the ball on the ground, at
/// the speeds the collisions guide states (before: 5.6 to 26.8 mm into
/// the ground for a 0.1 m ball, and rolled over at 5 and 10 m/s). A
/// capsule lying across the rope's path, pushed along the ground, is the
/// same wedge (before: 2.3 mm into the ground at 1 m/s, 29 mm at 5).
#[test]
fn a_ball_rolled_into_a_rope_on_the_ground_pushes_it_along_the_ground() {
    for from in [1.0, 1.029, 1.047] {
        for speed in [1.0, 2.0, 5.0] {
            holds_on_ground(true, 0.1, speed, from);
            holds_on_ground(false, 0.15, speed, from);
        }
        for speed in [2.0, 5.0, 10.0] {
            holds_on_ground(true, 0.3, speed, from);
        }
    }
}

/// A rope pinned at the ground, a little lower than its radius (as an end
/// tied to a peg), and a ball rolled across its first segment: the pinned
/// end never moves. (The first cut of the ground wedge moved a pinned
/// segment end whose share of the ball's push was zero: 15.7 mm here.)
#[test]
fn a_ball_rolled_over_a_rope_pinned_at_the_ground_leaves_the_pin_where_it_is() {
    let pin = Vec3::new(0.0, 0.5 * ROPE_R, 0.0);
    let mut pool = ParticlePool::new();
    pool.colliders_mut()
        .add(Collider::plane(Vec3::Y, 0.0).expect("valid plane"));
    pool.colliders_mut().add(
        Collider::sphere(Vec3::new(0.05, 0.15, -0.5), 0.15)
            .and_then(|c| c.with_motion(Vec3::new(0.0, 0.0, 1.0), Vec3::ZERO))
            .expect("valid ball"),
    );
    let mut d = CableDesc::line(pin, Vec3::new(1.0, ROPE_R, 0.0), 1.0, 10).expect("valid rope");
    d.attach_end = false;
    d.params.radius = ROPE_R;
    let h = pool.add_cable(&d).expect("added");
    let params = SolverParams {
        friction: 0.5,
        ..SolverParams::default()
    };
    let mut stepper = Stepper::new(params).expect("valid stepper");
    for frame in 0..72 {
        stepper.advance(&mut pool, H).expect("steps");
        let at = pool.positions(h).expect("live")[0];
        assert_eq!(at, pin, "frame {frame}: the pinned end moved");
    }
}
