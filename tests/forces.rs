//! Contact forces (`ColliderSet::set_measure_forces`, the CLI's
//! `--forces`), checked against statics: a rope at rest on colliders
//! pushes them with its whole weight, and its torque about a plane's point
//! is the weight times the lever arm of the rope's centre of mass. Then:
//! the forces are bitwise the same across layouts and thread counts, and
//! measuring them does not change the motion.

use cable::systems::Layout;
use cable::{CableDesc, CableHandle, ParticlePool, SolverParams, Stepper};
use cable_core::{Collider, ColliderHandle};
use glam::{Quat, Vec3};

const G: f32 = 9.81;

fn params(friction: f32) -> SolverParams {
    SolverParams {
        substep: 1.0 / 240.0,
        damping: 2.0,
        friction,
        max_substeps: 64,
        ..SolverParams::default()
    }
}

/// A free rope of `rho` kg/m from `a` to `b` (its length the distance).
fn rope(pool: &mut ParticlePool, a: Vec3, b: Vec3, segments: u32, rho: f32) -> CableHandle {
    let mut d = CableDesc::line(a, b, a.distance(b), segments).expect("valid");
    d.attach_start = false;
    d.attach_end = false;
    d.mass_per_length = Some(rho);
    d.params.radius = 0.02;
    pool.add_cable(&d).expect("fits")
}

/// Steps `seconds` in frames of 1/60 s.
fn run(st: &mut Stepper, pool: &mut ParticlePool, seconds: f32) {
    for _ in 0..(seconds * 60.0).round() as u32 {
        st.advance(pool, 1.0 / 60.0).expect("steps");
    }
}

fn close(got: f32, want: f32, rel: f32) -> bool {
    (got - want).abs() <= rel * want.abs()
}

#[test]
fn a_rope_draped_over_a_rod_pushes_it_with_its_weight() {
    // 2 m at 0.3 kg/m over a horizontal rod (r 5 cm) along z: 5.886 N.
    let mut pool = ParticlePool::new();
    let rod = pool.colliders_mut().add(
        Collider::capsule(Vec3::new(0.0, 1.0, -1.0), Vec3::new(0.0, 1.0, 1.0), 0.05)
            .expect("valid"),
    );
    pool.colliders_mut().set_measure_forces(true);
    let h = rope(
        &mut pool,
        Vec3::new(-1.0, 1.08, 0.0),
        Vec3::new(1.0, 1.08, 0.0),
        40,
        0.3,
    );
    let mut st = Stepper::new(params(0.5)).expect("valid");
    run(&mut st, &mut pool, 6.0);
    let weight = 2.0 * 0.3 * G;
    let f = pool.colliders().contact_force(rod).expect("live");
    let ys: Vec<f32> = pool
        .positions(h)
        .expect("live")
        .iter()
        .map(|p| p.y)
        .collect();
    // Draped: both ends hang, the middle lies on the rod's top (1.05 m
    // plus the rope's radius).
    assert!(ys[0] < 0.3 && ys[40] < 0.3, "the rope drapes: {ys:?}");
    assert!((ys[20] - 1.07).abs() < 0.01, "the rope drapes: {ys:?}");
    assert!(
        close(-f.force.y, weight, 0.03),
        "rod carries {} N, rope weighs {weight} N",
        -f.force.y
    );
    assert!(f.force.x.abs() < 0.03 * weight, "sideways {}", f.force.x);
    assert!(f.force.z.abs() < 1e-3, "along the rod {}", f.force.z);
}

#[test]
fn a_rope_lying_on_the_ground_gives_its_weight_and_the_torque_of_its_centre() {
    // 2 m at 0.5 kg/m lying on y = 0 from x = 1 to 3: 9.81 N down at
    // x = 2, so about the plane's point (the origin) a torque of
    // (0, 0, −2 · 9.81) N·m; and a box it also rests on shares nothing.
    let mut pool = ParticlePool::new();
    let ground = pool
        .colliders_mut()
        .add(Collider::plane(Vec3::Y, 0.0).expect("valid"));
    let far = pool.colliders_mut().add(
        Collider::cuboid(Vec3::new(-5.0, 0.5, 0.0), Vec3::splat(0.5), Quat::IDENTITY)
            .expect("valid"),
    );
    pool.colliders_mut().set_measure_forces(true);
    rope(
        &mut pool,
        Vec3::new(1.0, 0.05, 0.0),
        Vec3::new(3.0, 0.05, 0.0),
        20,
        0.5,
    );
    let mut st = Stepper::new(params(0.3)).expect("valid");
    run(&mut st, &mut pool, 2.0);
    let weight = 2.0 * 0.5 * G;
    let f = pool.colliders().contact_force(ground).expect("live");
    assert!(
        close(-f.force.y, weight, 0.01),
        "ground carries {}",
        -f.force.y
    );
    assert!(
        close(f.torque.z, -2.0 * weight, 0.01),
        "torque {:?}",
        f.torque
    );
    assert!(
        f.torque.x.abs() < 1e-2 && f.torque.y.abs() < 1e-2,
        "torque {:?}",
        f.torque
    );
    let none = pool.colliders().contact_force(far).expect("live");
    assert_eq!((none.force, none.torque), (Vec3::ZERO, Vec3::ZERO));
}

#[test]
fn a_rope_hanging_over_a_box_edge_gives_weight_and_torque_about_the_box() {
    // Draped over a turned box (a ridge), centred 0.3 m off the rope's
    // middle: the box carries the weight, with the torque of that weight
    // about its centre: the rope's mass centre x̄ gives τz = −W·(x̄ − cx).
    let mut pool = ParticlePool::new();
    let centre = Vec3::new(0.3, 1.0, 0.0);
    let ridge = pool.colliders_mut().add(
        Collider::cuboid(
            centre,
            Vec3::new(0.2, 0.2, 1.0),
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
        )
        .expect("valid"),
    );
    pool.colliders_mut().set_measure_forces(true);
    let top = centre.y + 0.2 * std::f32::consts::SQRT_2 + 0.03;
    let h = rope(
        &mut pool,
        Vec3::new(-0.7, top, 0.0),
        Vec3::new(1.3, top, 0.0),
        40,
        0.4,
    );
    let mut st = Stepper::new(params(0.8)).expect("valid");
    run(&mut st, &mut pool, 6.0);
    let weight = 2.0 * 0.4 * G;
    let f = pool.colliders().contact_force(ridge).expect("live");
    assert!(
        close(-f.force.y, weight, 0.03),
        "ridge carries {}",
        -f.force.y
    );
    // The lever arm the solver's own rope has (its mass centre at rest).
    let (xs, w): (Vec<f32>, Vec<f32>) = {
        let p = pool.positions(h).expect("live");
        let inv = pool.inv_masses(h).expect("live");
        (
            p.iter().map(|p| p.x).collect(),
            inv.iter().map(|w| 1.0 / w).collect(),
        )
    };
    let mass: f32 = w.iter().sum();
    let xbar = xs.iter().zip(&w).map(|(x, m)| x * m).sum::<f32>() / mass;
    let want = -weight * (xbar - centre.x);
    assert!(
        (f.torque.z - want).abs() < 0.03 * weight * 0.5,
        "torque {} N·m, statics says {want} (x̄ {xbar})",
        f.torque.z
    );
}

/// A scene of 12 ropes of three lengths (so lane groups form) dropped on
/// a moving box, a spinning capsule, a sphere and the ground, with
/// friction; returns the forces on each collider after every frame.
fn forces_of(layout: Layout, threads: usize, measure: bool) -> (Vec<Vec3>, Vec<Vec3>) {
    let pool_threads = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    pool_threads.install(|| {
        let mut pool = ParticlePool::new();
        let c = pool.colliders_mut();
        let mut cols: Vec<ColliderHandle> = vec![
            c.add(Collider::plane(Vec3::Y, 0.0).expect("valid")),
            c.add(
                Collider::cuboid(
                    Vec3::new(-1.0, 0.4, 0.0),
                    Vec3::new(0.6, 0.2, 1.0),
                    Quat::IDENTITY,
                )
                .and_then(|b| b.with_motion(Vec3::new(0.7, 0.0, 0.0), Vec3::ZERO))
                .expect("valid"),
            ),
            c.add(
                Collider::capsule(Vec3::new(1.0, 0.5, -1.0), Vec3::new(1.0, 0.5, 1.0), 0.05)
                    .and_then(|b| b.with_motion(Vec3::ZERO, Vec3::new(0.0, 0.0, 3.0)))
                    .expect("valid"),
            ),
            c.add(Collider::sphere(Vec3::new(2.5, 0.3, 0.0), 0.3).expect("valid")),
        ];
        cols.sort_by_key(|h| h.index());
        pool.colliders_mut().set_measure_forces(measure);
        for k in 0..12 {
            let z = -0.8 + 0.15 * k as f32;
            let len = [1.5, 2.0, 3.0][k % 3];
            let x0 = -1.5 + 0.2 * (k / 3) as f32;
            rope(
                &mut pool,
                Vec3::new(x0, 1.0, z),
                Vec3::new(x0 + len, 1.0, z),
                24,
                0.2,
            );
        }
        let mut st = Stepper::with_layout(params(0.4), layout).expect("valid");
        let (mut forces, mut spots) = (Vec::new(), Vec::new());
        for _ in 0..90 {
            st.advance(&mut pool, 1.0 / 60.0).expect("steps");
            for &h in &cols {
                let f = pool.colliders().contact_force(h).expect("live");
                forces.push(f.force);
                forces.push(f.torque);
            }
            for h in pool.handles().collect::<Vec<_>>() {
                spots.extend_from_slice(pool.positions(h).expect("live"));
            }
        }
        (forces, spots)
    })
}

fn bits(v: &[Vec3]) -> Vec<[u32; 3]> {
    v.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
}

#[test]
fn forces_are_the_same_on_every_layout_and_thread_count_and_change_no_motion() {
    let (want, moved) = forces_of(Layout::Aos, 1, true);
    assert!(
        want.iter().any(|f| f.length() > 1.0),
        "the ropes touch the colliders"
    );
    let (_, unmeasured) = forces_of(Layout::Aos, 1, false);
    assert_eq!(
        bits(&moved),
        bits(&unmeasured),
        "measuring changed the motion"
    );
    for layout in Layout::ALL {
        for threads in [1, 2] {
            let (got, spots) = forces_of(layout, threads, true);
            assert_eq!(bits(&got), bits(&want), "{layout:?}, {threads} threads");
            assert_eq!(bits(&spots), bits(&moved), "{layout:?}, {threads} threads");
        }
    }
    let (_, unmeasured) = forces_of(Layout::Lanes8, 2, false);
    assert_eq!(bits(&unmeasured), bits(&moved), "lanes8 without forces");
}

#[test]
fn no_measurement_reports_zero_and_stale_handles_are_refused() {
    let mut pool = ParticlePool::new();
    let g = pool
        .colliders_mut()
        .add(Collider::plane(Vec3::Y, 0.0).expect("valid"));
    rope(
        &mut pool,
        Vec3::new(0.0, 0.05, 0.0),
        Vec3::new(1.0, 0.05, 0.0),
        8,
        1.0,
    );
    let mut st = Stepper::new(params(0.0)).expect("valid");
    run(&mut st, &mut pool, 0.5);
    assert_eq!(
        pool.colliders().contact_force(g).expect("live").force,
        Vec3::ZERO
    );
    pool.colliders_mut().set_measure_forces(true);
    run(&mut st, &mut pool, 0.5);
    assert!(pool.colliders().contact_force(g).expect("live").force.y < -9.0);
    pool.colliders_mut().remove(g).expect("live");
    assert!(pool.colliders().contact_force(g).is_err());
}

/// Far from the origin a substep's h²·g is a few f32 spacings of the
/// coordinate, or none: the part of the motion positions cannot show (the
/// carry) counts too, so a resting rope still gives its weight.
#[test]
fn a_rope_resting_far_from_the_origin_still_gives_its_weight() {
    for (lift, friction) in [(1.0e3, 0.5), (1.0e4, 0.5), (1.0e4, 0.0), (1.0e3, 0.0)] {
        let mut pool = ParticlePool::new();
        let ground = pool
            .colliders_mut()
            .add(Collider::plane(Vec3::Y, lift).expect("valid"));
        pool.colliders_mut().set_measure_forces(true);
        let y = lift + 0.03;
        rope(
            &mut pool,
            Vec3::new(1.0, y, 0.0),
            Vec3::new(3.4, y, 0.0),
            40,
            1.0,
        );
        let mut st = Stepper::new(params(friction)).expect("valid");
        run(&mut st, &mut pool, 3.0);
        // The mean over the last second: frames scatter by the spacing.
        let mut sum = 0.0;
        for _ in 0..60 {
            st.advance(&mut pool, 1.0 / 60.0).expect("steps");
            sum += pool
                .colliders()
                .contact_force(ground)
                .expect("live")
                .force
                .y;
        }
        let (got, weight) = (-sum / 60.0, 2.4 * G);
        assert!(
            close(got, weight, 0.03),
            "{lift} m up, friction {friction}: {got} N against {weight} N"
        );
    }
    // Draped over a rod 1 km up.
    let mut pool = ParticlePool::new();
    let up = 1.0e3;
    let rod = pool.colliders_mut().add(
        Collider::capsule(Vec3::new(0.0, up, -1.0), Vec3::new(0.0, up, 1.0), 0.05).expect("valid"),
    );
    pool.colliders_mut().set_measure_forces(true);
    rope(
        &mut pool,
        Vec3::new(-1.0, up + 0.08, 0.0),
        Vec3::new(1.0, up + 0.08, 0.0),
        40,
        0.3,
    );
    let mut st = Stepper::new(params(0.5)).expect("valid");
    run(&mut st, &mut pool, 5.0);
    let mut sum = 0.0;
    for _ in 0..60 {
        st.advance(&mut pool, 1.0 / 60.0).expect("steps");
        sum += pool.colliders().contact_force(rod).expect("live").force.y;
    }
    let (got, weight) = (-sum / 60.0, 2.0 * 0.3 * G);
    assert!(
        close(got, weight, 0.03),
        "1 km up over a rod: {got} N against {weight} N"
    );
}
