//! Issue 13, hostile input through the stepper: a compliance (or bending
//! compliance) whose ratio to substep² overflows is refused before any
//! substep runs, instead of turning the cable into NaN. Each case pinned
//! by a test named after it.

use cable_core::{CableDesc, CableError, CableHandle, CableParams, ParticlePool};
use cable_systems::{SolverParams, Stepper};
use glam::Vec3;
fn field_of(e: &CableError) -> &'static str {
    match e {
        CableError::NotFinite { field, .. } | CableError::OutOfRange { field, .. } => field,
        other => panic!("expected an error naming a field, got {other:?}"),
    }
}

fn bits(p: &[Vec3]) -> Vec<[u32; 3]> {
    p.iter().map(|v| v.to_array().map(f32::to_bits)).collect()
}

fn pool_with(params: CableParams) -> (ParticlePool, CableHandle) {
    let mut pool = ParticlePool::new();
    let mut desc = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 8).unwrap();
    desc.attach_end = false;
    let h = pool.add_cable(&desc).unwrap();
    pool.set_params(h, params).unwrap();
    (pool, h)
}

#[test]
fn stepper_refuses_a_compliance_that_overflows_at_its_substep_and_runs_nothing() {
    // compliance 1e30 passes CableParams::validate, but 1e30 / h² overflows.
    let (mut pool, h) = pool_with(CableParams {
        compliance: 1.0e30,
        ..CableParams::default()
    });
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    let before = bits(pool.positions(h).unwrap());
    for _ in 0..3 {
        let e = stepper.advance(&mut pool, 1.0 / 60.0).unwrap_err();
        assert_eq!(field_of(&e), "compliance", "{e}");
        let e = stepper
            .advance_with(&mut pool, 1.0 / 60.0, |_, _, _| panic!("no substep runs"))
            .unwrap_err();
        assert_eq!(field_of(&e), "compliance", "{e}");
    }
    assert_eq!(stepper.substeps_run(), 0);
    assert_eq!(stepper.remainder(), 0.0, "the accumulator is untouched");
    assert_eq!(bits(pool.positions(h).unwrap()), before);
    // Fixed, it runs, and stays finite.
    pool.set_params(
        h,
        CableParams {
            compliance: 1.0e-3,
            ..CableParams::default()
        },
    )
    .unwrap();
    assert_eq!(stepper.advance(&mut pool, 1.0 / 60.0).unwrap(), 1);
    assert!(pool.all_finite());
}

#[test]
fn stepper_refuses_bending_that_overflows_at_its_substep() {
    // l̄ / EI = 0.125 / 1e-30 ≈ 1.25e29: over h² = 1/3600 it overflows 1e30.
    let params = CableParams {
        bend_stiffness: 1.0e-30,
        ..CableParams::default()
    };
    let (mut pool, h) = pool_with(params);
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    let e = stepper.advance(&mut pool, 1.0 / 60.0).unwrap_err();
    assert_eq!(field_of(&e), "bend_stiffness", "{e}");
    assert!(pool.all_finite());
    // What the check prevents: run unchecked, the curvature constraint's
    // correction overflows. (A bent cable, so the constraint acts.) The
    // sweep then skips it rather than write it (the cable had gone NaN),
    // so the run stays finite but without its bending: not a run to
    // allow, which is why the stepper refuses it above.
    let mut bent = ParticlePool::new();
    let mut desc =
        CableDesc::from_points(&[Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0)]).unwrap();
    desc.params = params;
    desc.attach_end = false;
    let hb = bent.add_cable(&desc).unwrap();
    bent.positions_mut(hb).unwrap()[2] = Vec3::new(2.0, 0.1, 0.0);
    let mut fast = Stepper::new(SolverParams {
        substep: 1.0e-5,
        ..SolverParams::default()
    })
    .unwrap();
    assert!(fast.validate_pool(&bent).is_err());
    fast.run_substeps(&mut bent, 1);
    assert!(
        bent.all_finite(),
        "unchecked, the overflowing correction was applied (NaN)"
    );
    let _ = h;
}

#[test]
fn stepper_checks_again_when_its_substep_changes() {
    let (mut pool, _) = pool_with(CableParams {
        compliance: 1.0e-4,
        ..CableParams::default()
    });
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    stepper
        .set_params(SolverParams {
            substep: 1.0e-23,
            ..SolverParams::default()
        })
        .unwrap();
    let e = stepper.advance(&mut pool, 1.0).unwrap_err();
    assert_eq!(field_of(&e), "compliance");
    assert!(pool.all_finite());
}

#[test]
fn stepper_checks_a_cable_added_or_changed_after_its_last_check() {
    let (mut pool, h) = pool_with(CableParams::default());
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    let mut desc = CableDesc::line(Vec3::Y, Vec3::ONE, 1.0, 4).unwrap();
    desc.params.compliance = 1.0e29;
    let bad = pool.add_cable(&desc).unwrap();
    assert!(stepper.advance(&mut pool, 1.0 / 60.0).is_err());
    pool.remove_cable(bad).unwrap();
    stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    pool.set_params(
        h,
        CableParams {
            compliance: 1.0e29,
            ..CableParams::default()
        },
    )
    .unwrap();
    assert!(stepper.advance(&mut pool, 1.0 / 60.0).is_err());
}

#[test]
fn stepping_does_not_change_the_params_revision_so_the_check_is_once() {
    let (mut pool, _) = pool_with(CableParams::default());
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    let r = pool.params_revision();
    for _ in 0..10 {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    }
    assert_eq!(pool.params_revision(), r);
}

// ---- issue 38, N2: a fast winch costs what it pays out, and stops at the budget ----

/// A 10 m cable of 1,000 segments (1 cm each), hanging free at its end,
/// its winch paying out at 10,000 m/s (the most `reel_speed` accepts)
/// with no length bound to speak of.
fn fast_winch(pool: &mut ParticlePool) -> CableHandle {
    let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0), 10.0, 1000).unwrap();
    d.attach_end = false;
    d.params.reel_speed = 1.0e4;
    d.params.max_length = Some(1.0e7);
    pool.add_cable(&d).unwrap()
}

/// Issue 38 N2: paying out 500 m of 1 cm segments in 0.05 s used to move
/// every later row once per particle (quadratic: one frame took 113 s of
/// CPU). The winch now adds each substep's particles in one go: the frame
/// runs its 3 substeps and the cable holds the 51,000 particles it paid
/// out (the work is counted in `cable_core`'s `pool::reel` unit tests:
/// one row move per call).
#[test]
fn a_winch_paying_out_at_10000_m_s_for_50_ms_adds_its_particles_in_one_frame() {
    let mut pool = ParticlePool::new();
    let h = fast_winch(&mut pool);
    // A cable after it, whose rows every insertion moves.
    pool.add_cable(&CableDesc::line(Vec3::Y, Vec3::new(10.0, 1.0, 0.0), 10.0, 1000).unwrap())
        .unwrap();
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    // 0.05 s: three substeps of 1/60 s.
    let frame = 3.0 * SolverParams::default().substep;
    assert_eq!(stepper.advance(&mut pool, frame).unwrap(), 3);
    assert!(stepper.stalled_winches().is_empty());
    let n = pool.positions(h).unwrap().len();
    // 10 m + 3 × 166.7 m of 1 cm segments.
    assert!((50_900..=51_100).contains(&n), "{n} particles");
    assert_eq!(pool.particle_count(), n + 1001);
    let length: f64 = pool
        .rest_lengths(h)
        .unwrap()
        .iter()
        .map(|&r| f64::from(r))
        .sum();
    assert!((length - 510.0).abs() < 0.05, "{length} m");
    assert!(pool.all_finite());
    pool.validate().unwrap();
}

/// Issue 38 N2: a winch that needs more particles than the pool's budget
/// fills the budget, stops (its `reel_speed` set to 0) and the frame,
/// run in full, returns an error naming the cable and the budget; the
/// next frame runs clean, the cable as long as the budget allowed.
#[test]
fn a_winch_beyond_the_particle_budget_stops_with_an_error_naming_cable_and_budget() {
    let mut pool = ParticlePool::with_budget(20_000);
    let other = pool
        .add_cable(&CableDesc::line(Vec3::Y, Vec3::new(1.0, 1.0, 0.0), 1.0, 8).unwrap())
        .unwrap();
    let h = fast_winch(&mut pool);
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    let e = stepper
        .advance(&mut pool, 3.0 * SolverParams::default().substep)
        .unwrap_err();
    let CableError::WinchBudget {
        cable,
        requested,
        live,
        budget,
    } = e
    else {
        panic!("expected a winch stopped at the budget, got {e:?}");
    };
    assert_eq!((cable, live, budget), (h, 20_000, 20_000));
    // 16,667 splits a substep: the first fitted, of the second's only
    // what was left of the 20,000 - 1,010.
    assert!(
        requested.abs_diff(2 * 16_667 - (20_000 - 1_010)) <= 3,
        "{requested}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains(&format!("{h:?}")) && msg.contains("budget of 20000"),
        "{msg}"
    );
    // The frame ran in full, the other cable with it.
    assert_eq!(stepper.substeps_run(), 3);
    assert_eq!(stepper.stalled_winches(), std::slice::from_ref(&e));
    assert_eq!(pool.particle_count(), 20_000);
    assert_eq!(pool.params(h).unwrap().reel_speed, 0.0, "the winch stopped");
    assert!(pool.rest_lengths(h).unwrap()[0] <= 0.015 + 1e-6);
    assert!(pool.all_finite());
    pool.validate().unwrap();
    let before = pool.positions(other).unwrap()[4];
    assert_eq!(stepper.advance(&mut pool, 1.0 / 60.0).unwrap(), 1);
    assert!(stepper.stalled_winches().is_empty());
    assert_eq!(pool.particle_count(), 20_000);
    assert_ne!(
        pool.positions(other).unwrap()[4],
        before,
        "the other cable steps on"
    );
}

// ---- issue 38, N9: tension needs a usable substep ----

/// Issue 38 N9: `segment_tensions` divides by the substep²: a substep of
/// 0, negative, NaN, infinite or so small its square underflows (or so
/// large it overflows) gave inf or NaN tensions. Each is refused, naming
/// `substep`, and `out` is left as it was.
#[test]
fn segment_tensions_refuses_a_substep_that_is_not_positive_and_finite() {
    let (mut pool, h) = pool_with(CableParams::default());
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    stepper.set_track_tension(true);
    stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    let mut out = vec![7.0f32; 3];
    for bad in [
        0.0,
        -0.0,
        -1.0 / 60.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0e-30,
        1.0e20,
    ] {
        let e = cable_systems::tension::segment_tensions(&pool, h, bad, &mut out).unwrap_err();
        assert_eq!(field_of(&e), "substep", "{bad}: {e}");
        assert!(e.to_string().starts_with("substep:"), "{e}");
        assert_eq!(out, [7.0; 3], "{bad}: out untouched");
    }
    cable_systems::tension::segment_tensions(&pool, h, 1.0 / 60.0, &mut out).unwrap();
    assert_eq!(out.len(), 8);
    assert!(out.iter().all(|t| t.is_finite()), "{out:?}");
}
