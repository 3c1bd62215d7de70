//! Physics checked against physics: the catenary, the pendulum, free fall.

use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use cable_testkit::catenary_parameter;
use glam::Vec3;

#[test]
fn catenary_sag_of_a_chain_pinned_at_both_ends() {
    let (span, length, segments) = (10.0f32, 12.0f32, 64u32);
    let mut pool = ParticlePool::new();
    let chain = pool
        .add_cable(
            &CableDesc::line(Vec3::ZERO, Vec3::new(span, 0.0, 0.0), length, segments).unwrap(),
        )
        .unwrap();
    let params = SolverParams {
        substep: 1.0 / 120.0,
        iterations: 200,
        damping: 3.0,
        ..SolverParams::default()
    };
    let mut stepper = Stepper::new(params).unwrap();
    for _ in 0..(20 * 60) {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    }
    let pos = pool.positions(chain).unwrap();
    let lowest = pos.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    let c = catenary_parameter(f64::from(span), f64::from(length));
    let expected = c * ((f64::from(span) / (2.0 * c)).cosh() - 1.0);
    let sag = -f64::from(lowest);
    let rel = (sag - expected).abs() / expected;
    assert!(
        rel < 0.015,
        "sag {sag:.4} m vs catenary {expected:.4} m: {:.2}% off",
        rel * 100.0
    );
    // The shape, not only the lowest point: every particle near the curve
    // y(x) = c·(cosh((x − D/2)/c) − cosh(D/2c)).
    for p in pos {
        let x = f64::from(p.x) - f64::from(span) / 2.0;
        let y = c * ((x / c).cosh() - (f64::from(span) / (2.0 * c)).cosh());
        assert!(
            (f64::from(p.y) - y).abs() < 0.015 * expected,
            "particle {p} off the catenary ({y:.4})"
        );
    }
    // At rest: the middle particle barely moves over one more second.
    let mid_before = pool.positions(chain).unwrap()[32];
    for _ in 0..60 {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    }
    assert!(pool.positions(chain).unwrap()[32].distance(mid_before) < 1e-3);
}

#[test]
fn one_segment_pendulum_has_period_two_pi_sqrt_l_over_g() {
    let (l, g) = (1.0f32, 9.81f32);
    let theta0 = 5.0f32.to_radians();
    let bob = Vec3::new(l * theta0.sin(), -l * theta0.cos(), 0.0);
    let mut desc = CableDesc::from_points(&[Vec3::ZERO, bob]).unwrap();
    desc.attach_end = false;
    let mut pool = ParticlePool::new();
    let cable = pool.add_cable(&desc).unwrap();
    let h = 1.0f32 / 240.0;
    let params = SolverParams {
        gravity: Vec3::new(0.0, -g, 0.0),
        substep: h,
        iterations: 4,
        ..SolverParams::default()
    };
    let mut stepper = Stepper::new(params).unwrap();
    // Times of downward zero crossings of x (from + to −), linearly interpolated.
    let mut crossings = Vec::new();
    let mut last_x = bob.x;
    for n in 1..=(240 * 12) {
        stepper.advance(&mut pool, h).unwrap();
        let x = pool.positions(cable).unwrap()[1].x;
        if last_x > 0.0 && x <= 0.0 {
            let t = (n - 1) as f32 * h + h * last_x / (last_x - x);
            crossings.push(f64::from(t));
        }
        last_x = x;
        // The rod keeps its length.
        let p = pool.positions(cable).unwrap();
        assert!((p[1].distance(p[0]) - l).abs() < 1e-4);
    }
    assert!(crossings.len() >= 5, "only {} swings", crossings.len());
    let periods = crossings.len() - 1;
    let measured = (crossings[periods] - crossings[0]) / periods as f64;
    // Small-angle period with the first finite-amplitude correction (θ0²/16).
    let t0 = 2.0 * std::f64::consts::PI * (f64::from(l) / f64::from(g)).sqrt();
    let expected = t0 * (1.0 + f64::from(theta0 * theta0) / 16.0);
    let rel = (measured - expected).abs() / expected;
    assert!(
        rel < 0.01,
        "period {measured:.4} s vs {expected:.4} s ({:.3}% off)",
        rel * 100.0
    );
}

#[test]
fn unpinned_cable_falls_g_t_squared_over_two_and_keeps_its_length() {
    let mut desc = CableDesc::line(
        Vec3::new(0.0, 100.0, 0.0),
        Vec3::new(5.0, 100.0, 0.0),
        5.0,
        20,
    )
    .unwrap();
    desc.attach_start = false;
    desc.attach_end = false;
    let mut pool = ParticlePool::new();
    let cable = pool.add_cable(&desc).unwrap();
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    for _ in 0..120 {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    }
    let t = stepper.time();
    assert!((t - 2.0).abs() < 1e-5);
    let expected = 9.81 * t * t / 2.0;
    for p in pool.positions(cable).unwrap() {
        let fallen = 100.0 - f64::from(p.y);
        assert!(
            (fallen - expected).abs() / expected < 0.01,
            "fell {fallen} m, expected {expected} m"
        );
    }
    let pos = pool.positions(cable).unwrap();
    for w in pos.windows(2) {
        assert!((w[0].distance(w[1]) - 0.25).abs() < 1e-4);
    }
}

#[test]
fn compliant_cable_stretches_under_load_and_rigid_one_does_not() {
    // A vertical cable with a heavy bob: XPBD compliance lets it stretch by
    // about compliance × tension; compliance 0 holds the rest length.
    let run = |compliance: f32| -> f32 {
        let mut desc = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0), 2.0, 8).unwrap();
        desc.attach_end = false;
        desc.params.compliance = compliance;
        // Tethers would hold the cable at its rest length: an elastic cable goes without.
        desc.params.tethers = false;
        let mut pool = ParticlePool::new();
        let c = pool.add_cable(&desc).unwrap();
        let params = SolverParams {
            iterations: 50,
            damping: 5.0,
            ..SolverParams::default()
        };
        let mut stepper = Stepper::new(params).unwrap();
        for _ in 0..600 {
            stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
        }
        -pool.positions(c).unwrap()[8].y
    };
    let rigid = run(0.0);
    assert!((rigid - 2.0).abs() < 1e-3, "rigid cable length {rigid}");
    // Unit masses: the top segment carries 8 particles, tension 8·g N; the
    // whole cable stretches by α·g·(8+7+…+1) = α·g·36.
    let alpha = 1e-3f32;
    let soft = run(alpha);
    let expected = 2.0 + alpha * 9.81 * 36.0;
    assert!(
        (soft - expected).abs() / (expected - 2.0) < 0.05,
        "compliant length {soft} vs {expected}"
    );
}

#[test]
fn bending_stiffness_keeps_cable_straighter() {
    // UE's and Flax's stiffness: distance constraints from i to i+2 at the
    // summed rest length. It resists folding (the i..i+2 chord stays near
    // its rest length) but, being a distance constraint, only weakly: a
    // cantilever still droops, less than a limp one.
    let run = |stiffness: bool| -> (f32, f32) {
        let mut desc = CableDesc::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.0, 10).unwrap();
        desc.attach_end = false;
        desc.params.stiffness = stiffness;
        let mut pool = ParticlePool::new();
        let c = pool.add_cable(&desc).unwrap();
        // Pin the second particle too: a clamped end that bending can act on.
        pool.set_inv_mass(c, 1, 0.0).unwrap();
        let mut stepper = Stepper::new(SolverParams {
            damping: 2.0,
            iterations: 64,
            ..SolverParams::default()
        })
        .unwrap();
        for _ in 0..60 {
            stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
        }
        let p = pool.positions(c).unwrap();
        // Mean shortfall of the i..i+2 chords: 0 for a straight cable.
        let fold = p.windows(3).map(|w| 0.4 - w[0].distance(w[2])).sum::<f32>() / 9.0;
        (-p[10].y, fold)
    };
    let ((limp_sag, limp_fold), (stiff_sag, stiff_fold)) = (run(false), run(true));
    assert!(limp_sag > 1.0, "a limp cable hangs down: {limp_sag}");
    assert!(
        stiff_sag < 0.95 * limp_sag,
        "stiff tip sag {stiff_sag} vs limp {limp_sag}"
    );
    assert!(
        stiff_fold < 0.5 * limp_fold,
        "stiff fold {stiff_fold} vs limp {limp_fold}"
    );
}

#[test]
fn long_run_stays_finite_with_bounded_energy() {
    // A swinging chain released from horizontal, no damping: total energy
    // (kinetic + potential) may only fall (constraint projection dissipates),
    // never grow beyond rounding.
    let mut desc = CableDesc::line(Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), 3.0, 24).unwrap();
    desc.attach_end = false;
    let mut pool = ParticlePool::new();
    let c = pool.add_cable(&desc).unwrap();
    let h = 1.0f32 / 60.0;
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    let energy = |pool: &ParticlePool| -> f64 {
        let p = pool.positions(c).unwrap();
        let q = pool.prev_positions(c).unwrap();
        p.iter()
            .zip(q)
            .skip(1)
            .map(|(p, q)| {
                let v = (*p - *q) / h;
                0.5 * f64::from(v.length_squared()) + 9.81 * f64::from(p.y)
            })
            .sum()
    };
    let e0 = energy(&pool);
    for _ in 0..(60 * 60) {
        stepper.advance(&mut pool, h).unwrap();
        assert!(pool.all_finite());
        assert!(
            energy(&pool) < e0 + 1.0,
            "energy grew: {} > {e0}",
            energy(&pool)
        );
    }
}

/// A compliant cable hanging from a pin stretches as XPBD's compliance says
/// (each segment by `compliance × tension`, the tension of segment k the
/// weight of the particles below it): in a scene, tethers default to off
/// for a compliant cable (the spec), so it can; an explicit `"tethers":
/// true` holds every particle within its rest distance of the pin.
#[test]
fn a_compliant_scene_cable_stretches_under_its_weight_unless_tethered() {
    let (segments, length, compliance, g) = (10u32, 5.0f64, 1.0e-3f64, 9.81f64);
    let run = |tethers: &str| -> (f64, bool) {
        let text = format!(
            r#"{{"damping": 2.0, "iterations": 32,
                "cables": [{{"start": [0, 0, 0], "end": [0, -{length}, 0], "length": {length},
                             "segments": {segments}, "attach_end": false,
                             "compliance": {compliance}{tethers}}}]}}"#
        );
        let scene = cable::Scene::from_json(&text).expect("valid scene");
        let tethered = scene.cables[0].params.tethers;
        let (mut pool, handles) = scene.build_pool().expect("pool");
        let mut stepper = Stepper::new(scene.params).expect("params");
        for _ in 0..(15 * 60) {
            stepper.advance(&mut pool, 1.0 / 60.0).expect("step");
        }
        let pos = pool.positions(handles[0]).expect("live");
        (f64::from(pos[0].distance(pos[pos.len() - 1])), tethered)
    };
    // Unit masses: segment k (from the top) holds the N − k particles below.
    let n = f64::from(segments);
    let stretch = compliance * g * n * (n + 1.0) / 2.0;
    let (free, tethered) = run("");
    assert!(!tethered, "a compliant cable's tethers default to off");
    let rel = (free - length - stretch).abs() / stretch;
    assert!(
        rel < 0.05,
        "hangs {free:.4} m: stretched {:.4} m, XPBD's compliance × tension gives {stretch:.4} m ({:.1}% off)",
        free - length,
        rel * 100.0
    );
    let (held, tethered) = run(r#", "tethers": true"#);
    assert!(tethered);
    assert!(
        held <= length * 1.0005,
        "tethers on: hangs {held:.5} m, more than its {length} m"
    );
}
