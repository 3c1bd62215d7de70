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
    // What the check prevents: run unchecked, the solver's arithmetic
    // overflows. (A bent cable, so the curvature constraint acts.)
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
        !bent.all_finite(),
        "unchecked, tiny EI and substep give NaN (this test pins a real overflow)"
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
