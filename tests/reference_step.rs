//! The default step is the classic step of the spec's "Reference
//! semantics", compared with a straightforward, independent implementation
//! written from the spec (UE's `VerletIntegrate` +
//! `SolveDistanceConstraint`): the test kit's oracle,
//! `cable_testkit::classic`, in f32 and in f64 arithmetic.

use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use cable_testkit::Rng;
use cable_testkit::classic::{ClassicCable, Precision};
use glam::Vec3;

/// Largest coordinate difference between the pool's cables and a
/// reference run, metres, and the root mean square of the differences.
fn differences(pool: &ParticlePool, refs: &[ClassicCable]) -> (f64, f64) {
    let (mut max, mut sum, mut n) = (0.0f64, 0.0f64, 0usize);
    for (handle, r) in pool.handles().zip(refs) {
        for (p, q) in pool.positions(handle).unwrap().iter().zip(&r.position) {
            for (a, b) in p.to_array().iter().zip(q) {
                let d = (f64::from(*a) - b).abs();
                max = max.max(d);
                sum += d * d;
                n += 1;
            }
        }
    }
    (max, (sum / n as f64).sqrt())
}

/// Random scenes of the spec's reference semantics, `steps` substeps.
/// Before each substep the reference takes the pool's positions and
/// previous positions, so what is compared is one substep from the same
/// state. Returns, per scene and substep, the difference of the pool from
/// the f32 reference and that of the f32 reference from the f64 one (how
/// much plain rounding moves this scene in one substep), both in units of
/// the f32 spacing of the largest coordinate.
fn compare(seed: u64, scenes: usize, steps: usize) -> Vec<Vec<(f64, f64)>> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for scene in 0..scenes {
        let gravity = Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-20.0, 0.0),
            rng.range(-1.0, 1.0),
        );
        let h = [1.0 / 60.0, 1.0 / 120.0, 0.01, 1.0 / 30.0][scene % 4];
        let iterations = rng.int(1, 17) as u32;
        let mut pool = ParticlePool::new();
        let mut refs = Vec::new();
        for _ in 0..rng.int(1, 12) {
            let start = Vec3::new(
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
            );
            let end = start
                + Vec3::new(
                    rng.range(0.5, 8.0),
                    rng.range(-2.0, 2.0),
                    rng.range(-2.0, 2.0),
                );
            let length = start.distance(end) * rng.range(0.8, 1.6);
            let segments = rng.int(1, 40) as u32;
            let mut desc = CableDesc::line(start, end, length, segments).unwrap();
            desc.attach_start = rng.coin();
            desc.attach_end = rng.coin();
            desc.params.tethers = false; // the spec's classic step has none
            desc.params.gravity_scale = rng.range(0.0, 2.0);
            desc.params.force = Vec3::new(rng.range(-3.0, 3.0), 0.0, rng.range(-3.0, 3.0));
            pool.add_cable(&desc).unwrap();
            // The reference starts from the same initial points and derives
            // everything else itself (in f32, as the spec's data is).
            let points = desc.points();
            let mut r = ClassicCable::new(
                points,
                length / segments as f32,
                gravity * desc.params.gravity_scale + desc.params.force,
            );
            if desc.attach_start {
                r.pin(0, start);
            }
            if desc.attach_end {
                r.pin(points.len() - 1, end);
            }
            refs.push(r);
        }
        let params = SolverParams {
            gravity,
            substep: h,
            iterations,
            ..SolverParams::default()
        };
        let mut stepper = Stepper::new(params).unwrap();
        let mut worst = Vec::new();
        for _ in 0..steps {
            for (handle, r) in pool.handles().zip(&mut refs) {
                r.load(
                    pool.positions(handle).unwrap(),
                    pool.prev_positions(handle).unwrap(),
                );
            }
            assert_eq!(stepper.advance(&mut pool, h).unwrap(), 1);
            let mut exact = refs.clone();
            let mut far = 0.0f32;
            for ((handle, r), e) in pool.handles().zip(&mut refs).zip(&mut exact) {
                r.substep(h, iterations, Precision::F32);
                e.substep(h, iterations, Precision::F64);
                far = pool
                    .positions(handle)
                    .unwrap()
                    .iter()
                    .fold(far, |m, p| m.max(p.abs().max_element()));
            }
            let spacing = f64::from(far.max(1.0)) * f64::from(f32::EPSILON);
            let rounding = refs
                .iter()
                .zip(&exact)
                .flat_map(|(r, e)| r.position.iter().zip(&e.position))
                .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
                .fold(0.0f64, f64::max);
            worst.push((differences(&pool, &refs).0 / spacing, rounding / spacing));
        }
        out.push(worst);
    }
    out
}

/// The default step is the spec's classic step "to float rounding": the
/// pool keeps what rounding drops of each position update
/// ([`ParticlePool::carry`]) and adds it to the next, so a substep from the
/// same positions is the plain f32 step to within a few spacings of f32
/// coordinates (the constraint sweeps pass a one-spacing difference on
/// along the chain, they do not grow it).
#[test]
fn default_substep_is_the_classic_step_to_float_rounding() {
    for (scene, steps) in compare(7, 20, 90).into_iter().enumerate() {
        let (mut worst, mut sensitive) = (0.0f64, 0.0f64);
        for (step, (ours, rounding)) in steps.into_iter().enumerate() {
            worst = worst.max(ours);
            sensitive = sensitive.max(rounding);
            // A few spacings, or (in a scene so ill-conditioned that f32
            // and f64 arithmetic already differ by more) twice what plain
            // rounding does to it.
            assert!(
                ours <= 8.0_f64.max(2.0 * rounding),
                "scene {scene} substep {step}: {ours} f32 spacings from the plain f32 classic step \
                 (f32 and f64 differ by {rounding} there)"
            );
        }
        println!(
            "scene {scene}: at most {worst:.1} spacings from the f32 step (f32 vs f64: {sensitive:.1})"
        );
    }
}
