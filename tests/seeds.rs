//! The reference systems' own scenes (`scenes/`, one per system in
//! `docs/guide/seeds.md`), each checked against what its source says: the
//! Unreal cable against the classic step and UE's mesh layout, the UE4
//! collision write-up against its sphere and capsule push-out, Flax's
//! spline rope against its keyframe lengths, wind and stretch limit, the
//! Unity hook against its extend and retract, and the Unity 2D rope
//! against explicit Euler.

use cable::core::mesh::{MeshBuffers, MeshOptions};
use cable::scene::Scene;
use cable::systems::mesh::build_meshes;
use cable::{ParticlePool, Stepper};
use cable_testkit::classic::{ClassicCable, Precision};
use cable_testkit::euler::{EulerRope, verlet_energy};
use glam::Vec3;

fn scene(text: &str) -> (Scene, ParticlePool, Vec<cable::CableHandle>, Stepper) {
    let scene = Scene::from_json(text).expect("the shipped scene is valid");
    let (pool, handles) = scene.build_pool().expect("builds");
    let stepper = Stepper::new(scene.params).expect("valid parameters");
    (scene, pool, handles, stepper)
}

fn total_rest(pool: &ParticlePool, h: cable::CableHandle) -> f32 {
    pool.rest_lengths(h).expect("live").iter().sum()
}

/// UCableComponent's defaults (1 m, 10 segments, 0.02 s substeps, one
/// solver iteration, 4 sides, 10 cm wide): every substep is UE's
/// `VerletIntegrate` + `SolveConstraints` (the test kit's independent
/// oracle, loaded with the pool's state before each substep), and the mesh
/// handed to the renderer has UE's `(NumSegments + 1) × (NumSides + 1)`
/// vertices, two triangles per quad, and bounds of the particles ± half
/// the width.
#[test]
fn unreal_cable_steps_as_ue_and_hands_over_a_ue_shaped_mesh() {
    let (scene, mut pool, handles, mut stepper) =
        scene(include_str!("../scenes/unreal-cable.json"));
    let desc = &scene.cables[0];
    assert_eq!(
        (
            desc.particle_count(),
            scene.params.substep,
            scene.params.iterations
        ),
        (11, 0.02, 1)
    );
    let h = handles[0];
    let accel = scene.params.gravity * desc.params.gravity_scale + desc.params.force;
    let mut oracle = ClassicCable::new(desc.points(), 0.1, accel);
    oracle.pin(0, desc.points()[0]).pin(10, desc.points()[10]);
    for step in 0..150 {
        oracle.load(
            pool.positions(h).expect("live"),
            pool.prev_positions(h).expect("live"),
        );
        assert_eq!(stepper.advance(&mut pool, 0.02).expect("steps"), 1);
        oracle.substep(0.02, 1, Precision::F32);
        for (p, q) in pool
            .positions(h)
            .expect("live")
            .iter()
            .zip(&oracle.position)
        {
            for (a, b) in p.to_array().iter().zip(q) {
                // A few f32 spacings of coordinates of about 1 m.
                assert!(
                    (f64::from(*a) - b).abs() <= 8.0 * f64::from(f32::EPSILON),
                    "substep {step}: {a} against UE's {b}"
                );
            }
        }
    }
    // It sags under gravity, held at both ends.
    let p = pool.positions(h).expect("live");
    assert!(p[5].y < -0.01, "the middle hangs: {}", p[5]);

    let mut mesh = MeshBuffers::new();
    build_meshes(&pool, &MeshOptions::default(), &mut mesh).expect("meshes");
    assert_eq!(mesh.vertices.len(), 11 * 5);
    assert_eq!(mesh.indices.len(), 10 * 4 * 6);
    let (lo, hi) = p.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(a, b), &q| (a.min(q), b.max(q)),
    );
    let half = desc.params.radius;
    // UE's `CalcBounds` is the particles ± half the width; a tube's ring at
    // a bend is a mitre, a little wider (by 1/cos of half the turn), and
    // the bounds grow with it: they hold UE's box and every vertex, and
    // exceed UE's box by no more than that stretch.
    let (ue_lo, ue_hi) = (lo - Vec3::splat(half), hi + Vec3::splat(half));
    let b = mesh.bounds;
    assert!(
        b.min.cmple(ue_lo).all() && b.max.cmpge(ue_hi).all(),
        "{b:?} against {ue_lo}..{ue_hi}"
    );
    for v in &mesh.vertices {
        let p = Vec3::from(v.position);
        assert!(
            b.min.cmple(p).all() && b.max.cmpge(p).all(),
            "{p} outside {b:?}"
        );
    }
    let grown = (ue_lo - b.min).max(b.max - ue_hi).max_element();
    assert!(grown < 0.01 * half, "bounds {grown} m wider than UE's");
}

fn capsule_distance(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
    p.distance(a + ab * t)
}

/// The UE4 sphere/capsule write-up: particles inside a sphere or a capsule
/// are pushed out to its surface (here: to the cable's radius off it).
/// Two cables slung over a ball and a bar never enter them, in any frame,
/// and come to rest lying on top of them.
#[test]
fn unreal_collision_cables_lie_on_the_ball_and_the_bar() {
    let (scene, mut pool, handles, mut stepper) =
        scene(include_str!("../scenes/unreal-cable-collision.json"));
    let r = scene.cables[0].params.radius;
    let (ball, ball_r) = (Vec3::new(0.0, 0.4, 0.0), 0.5);
    let (a, b, bar_r) = (Vec3::new(-0.5, 0.5, 3.0), Vec3::new(0.5, 0.5, 3.0), 0.3);
    for frame in 0..240 {
        stepper.advance(&mut pool, 1.0 / 60.0).expect("steps");
        for &h in &handles {
            for p in pool.positions(h).expect("live") {
                assert!(p.is_finite(), "frame {frame}: {p}");
                assert!(
                    p.distance(ball) >= ball_r + r - 1.0e-3,
                    "frame {frame}: {p} is {:.4} m from the ball's centre",
                    p.distance(ball)
                );
                assert!(
                    capsule_distance(*p, a, b) >= bar_r + r - 1.0e-3,
                    "frame {frame}: {p} inside the bar"
                );
            }
        }
    }
    let over_ball = pool.positions(handles[0]).expect("live")[20];
    let over_bar = pool.positions(handles[1]).expect("live")[20];
    assert!(
        over_ball.y > ball.y && over_ball.distance(ball) < ball_r + r + 0.01,
        "the first cable's middle rests on the ball: {over_ball}"
    );
    assert!(
        over_bar.y > a.y && capsule_distance(over_bar, a, b) < bar_r + r + 0.01,
        "the second cable's middle rests on the bar: {over_bar}"
    );
}

/// Flax's SplineRopeBody: each segment's rest length is the distance
/// between its keyframes (so they differ), `AdditionalForce` is a wind,
/// and the stretch limit holds every mass within its length along the rope
/// of the attached start, in every frame. With damping the rope comes to
/// rest straight along gravity plus wind.
#[test]
fn flax_rope_keeps_its_keyframe_lengths_and_stretch_limit_in_the_wind() {
    let (scene, mut pool, handles, mut stepper) =
        scene(include_str!("../scenes/flax-spline-rope.json"));
    let desc = &scene.cables[0];
    let h = handles[0];
    let keyframes = desc.points();
    // One entry per particle, the last 0: the segments' are the others.
    let all = pool.rest_lengths(h).expect("live");
    let rest = all[..all.len() - 1].to_vec();
    for (w, r) in keyframes.windows(2).zip(&rest) {
        assert_eq!(*r, w[0].distance(w[1]));
    }
    assert!(
        rest.iter().any(|&r| (r - rest[0]).abs() > 0.1),
        "uneven keyframes"
    );
    let along: Vec<f32> = std::iter::once(0.0)
        .chain(rest.iter().scan(0.0, |s, r| {
            *s += r;
            Some(*s)
        }))
        .collect();
    let start = keyframes[0];
    for frame in 0..20 * 60 {
        stepper.advance(&mut pool, 1.0 / 60.0).expect("steps");
        for (p, reach) in pool.positions(h).expect("live").iter().zip(&along) {
            assert!(
                p.distance(start) <= reach * (1.0 + 1.0e-5) + 1.0e-5,
                "frame {frame}: {p} beyond its reach {reach} m"
            );
        }
    }
    let p = pool.positions(h).expect("live");
    let hang = (p[p.len() - 1] - start).normalize();
    let field = (scene.params.gravity + desc.params.force).normalize();
    let angle = hang.angle_between(field).to_degrees();
    assert!(
        angle < 2.0,
        "the rope hangs {angle:.2}° off gravity plus wind"
    );
    assert!(
        p[p.len() - 1].x > start.x + 0.5,
        "blown downwind: {}",
        p[p.len() - 1]
    );
}

/// The Unity 3D grappling rope's extend and retract: the rope that holds
/// the hook reels in at 2 m/s until its minimum, the thrown one pays out
/// at 3 m/s until its maximum, and the particle counts follow (the hook
/// example, `examples/grappling_hook.rs`, adds the player's hand).
#[test]
fn unity_hook_ropes_extend_and_retract_at_their_speeds() {
    let (_, mut pool, handles, mut stepper) = scene(include_str!("../scenes/unity-hook-3d.json"));
    let (held, thrown) = (handles[0], handles[1]);
    let counts = (
        pool.positions(held).expect("live").len(),
        pool.positions(thrown).expect("live").len(),
    );
    for _ in 0..60 {
        stepper.advance(&mut pool, 1.0 / 60.0).expect("steps");
    }
    assert!(
        (total_rest(&pool, held) - 12.0).abs() < 1.0e-3,
        "{}",
        total_rest(&pool, held)
    );
    assert!(
        (total_rest(&pool, thrown) - 5.0).abs() < 1.0e-3,
        "{}",
        total_rest(&pool, thrown)
    );
    for _ in 0..120 {
        stepper.advance(&mut pool, 1.0 / 60.0).expect("steps");
    }
    assert!((total_rest(&pool, held) - 11.0).abs() < 1.0e-4);
    assert!((total_rest(&pool, thrown) - 8.0).abs() < 1.0e-4);
    assert!(pool.positions(held).expect("live").len() < counts.0);
    assert!(pool.positions(thrown).expect("live").len() > counts.1);
    for &h in &handles {
        assert!(
            pool.positions(h)
                .expect("live")
                .iter()
                .all(|p| p.is_finite())
        );
    }
}

/// The Unity 2D rope: it stays in its plane, and Verlet (`cable`) against
/// explicit Euler with a stored velocity and the same sticks
/// (`examples/verlet_vs_euler.rs`): over 10 s the Verlet rope's energy
/// never rises above where it started (position-based sticks only take
/// energy out), while Euler's grows every second, past 10⁴ J.
#[test]
fn unity_2d_rope_stays_flat_and_verlet_keeps_energy_that_euler_gains() {
    let (scene, mut pool, handles, mut stepper) =
        scene(include_str!("../scenes/unity-rope-2d.json"));
    let desc = &scene.cables[0];
    let h = scene.params.substep;
    let accel = scene.params.gravity * desc.params.gravity_scale + desc.params.force;
    let free: Vec<bool> = (0..desc.particle_count()).map(|i| i != 0).collect();
    let mut euler = EulerRope::new(desc.points(), accel);
    euler.pinned[0] = true;
    let energy = |pool: &ParticlePool| {
        let (p, q) = (
            pool.positions(handles[0]).expect("live"),
            pool.prev_positions(handles[0]).expect("live"),
        );
        verlet_energy(p, q, &free, f64::from(h), accel)
    };
    let (e0, mut euler_last) = (energy(&pool), euler.energy());
    // Weight × drop of the rope's centre of mass when it hangs: the scale
    // of the energy that moves between potential and kinetic.
    let scale = 20.0 * 9.81 * 2.0;
    for second in 1..=10 {
        for _ in 0..60 {
            stepper.advance(&mut pool, h).expect("steps");
            euler.substep(f64::from(h), scene.params.iterations);
            let e = energy(&pool);
            assert!(
                e <= e0 + 1.0e-3 * scale,
                "t {second} s: Verlet energy {e} J from {e0} J"
            );
            assert!(
                pool.positions(handles[0])
                    .expect("live")
                    .iter()
                    .all(|p| p.z == 0.0),
                "the 2D rope left its plane"
            );
        }
        let e = euler.energy();
        assert!(
            e > euler_last,
            "t {second} s: Euler's energy {e} J did not grow"
        );
        euler_last = e;
    }
    assert!(
        euler_last > e0 + 1.0e4,
        "Euler's energy after 10 s: {euler_last} J"
    );
}
