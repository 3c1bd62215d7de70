//! Cables that stop fitting the substep (`bind::take_refused`, shared with
//! the Bevy plugin): taken out alone before the step, so the others step;
//! stalled winches (`bind::stalled_winches`); and a save that would not
//! restore refused when written (`bind::check_savable`).

use cable_core::{CableDesc, CableError, ParticlePool};
use cable_systems::SolverParams;
use cable_systems::ecs::{CableBody, CableParticles, CableRejected, CableSpec, CableWorld};
use glam::Vec3;
use hecs::World;

/// A 5 m rope of 16 segments between two pins at height `y`.
fn rope(y: f32) -> CableSpec {
    CableSpec::new(
        CableDesc::line(Vec3::new(0.0, y, 0.0), Vec3::new(4.0, y, 0.0), 5.0, 16)
            .expect("valid rope"),
    )
}

fn middle(world: &World, e: hecs::Entity) -> Vec3 {
    world.get::<&CableParticles>(e).expect("readout").positions[8]
}

/// Before, one cable that no longer fitted the substep failed every hecs
/// step (the Bevy plugin took it out alone).
#[test]
fn a_cable_that_stops_fitting_the_substep_is_taken_out_alone_once() {
    let mut world = World::new();
    let a = world.spawn((rope(0.0), CableParticles::default()));
    let b = world.spawn((rope(1.0), CableParticles::default()));
    let mut cables = CableWorld::new(SolverParams::default()).expect("valid params");
    for _ in 0..5 {
        cables.step(&mut world, 1.0 / 60.0).expect("steps");
    }
    let hb = world.get::<&CableBody>(b).expect("b simulated").handle;
    // b made too soft for 1/480 s through the pool, and a cable of the
    // pool's own (no entity) just as soft; then the substep goes to 1/480 s.
    let mut soft = *cables.pool().params(hb).expect("live");
    soft.compliance = 1.0e26;
    cables.pool_mut().set_params(hb, soft).expect("valid alone");
    let mut lone = CableDesc::line(Vec3::new(0.0, 3.0, 0.0), Vec3::new(4.0, 3.0, 0.0), 5.0, 16)
        .expect("valid rope");
    lone.params.compliance = 1.0e26;
    let lone = cables
        .pool_mut()
        .add_cable(&lone)
        .expect("the pool takes it");
    let fine = SolverParams {
        substep: 1.0 / 480.0,
        ..*cables.stepper().params()
    };
    cables.set_params(fine).expect("valid params");
    let before = middle(&world, a);
    let runs = cables.stepper().substeps_run();
    let n = cables
        .step(&mut world, 1.0 / 60.0)
        .expect("the others step");
    assert_eq!(n, 8);
    assert_ne!(middle(&world, a), before, "a kept moving");
    let report = cables.report().clone();
    let rejected = world.get::<&CableRejected>(b).expect("b refused").0.clone();
    assert!(rejected.to_string().starts_with("compliance"), "{rejected}");
    assert_eq!(report.rejected, [(b, rejected)]);
    assert_eq!(report.dropped.len(), 1, "{report:?}");
    assert_eq!(report.dropped[0].0, lone);
    assert!(!report.is_empty());
    assert!(world.get::<&CableBody>(b).is_err());
    assert!(
        world
            .get::<&CableParticles>(b)
            .unwrap()
            .positions
            .is_empty(),
        "no frozen particles"
    );
    assert!(!cables.pool().contains(hb) && !cables.pool().contains(lone));
    // Once: the next steps run for a alone, with nothing to report.
    for _ in 0..30 {
        cables.step(&mut world, 1.0 / 60.0).expect("steps");
        assert!(cables.report().is_empty(), "{:?}", cables.report());
    }
    assert_eq!(cables.pool().cable_count(), 1);
    assert_eq!(cables.stepper().substeps_run(), runs + 31 * 8);
    assert!(middle(&world, a).y < -0.3, "{}", middle(&world, a));
    // Removing the CableRejected tries the spec again: still too soft? No:
    // the spec is the original rope, which fits.
    world.remove_one::<CableRejected>(b).expect("had one");
    cables.step(&mut world, 1.0 / 60.0).expect("steps");
    assert!(
        world.get::<&CableBody>(b).is_ok(),
        "b rebuilt from its spec"
    );
}

/// Before, the hecs layer wrote such a save, and only its restore failed.
#[test]
fn a_save_the_substep_cannot_step_is_refused_when_written() {
    let mut world = World::new();
    let e = world.spawn((rope(0.0),));
    let mut cables = CableWorld::new(SolverParams::default()).expect("valid params");
    cables.step(&mut world, 1.0 / 60.0).expect("steps");
    let mut ok = Vec::new();
    cables.save_state(&mut ok).expect("a valid state saves");
    let h = world.get::<&CableBody>(e).expect("simulated").handle;
    let mut soft = *cables.pool().params(h).expect("live");
    soft.compliance = 1.0e26;
    cables.pool_mut().set_params(h, soft).expect("valid alone");
    let fine = SolverParams {
        substep: 1.0 / 480.0,
        ..*cables.stepper().params()
    };
    cables.set_params(fine).expect("valid params");
    let mut out = Vec::new();
    let err = cables.save_state(&mut out).expect_err("cannot be restored");
    assert!(err.to_string().contains("compliance"), "{err}");
    assert!(out.is_empty(), "nothing written");
}

#[test]
fn a_winch_stopped_at_the_budget_is_reported_once_per_stop() {
    let mut world = World::new();
    let winch = cable_systems::ecs::CableWinch {
        target_length: 1.0e7,
        speed: 1.0e4,
    };
    let e = world.spawn((rope(0.0), winch));
    let mut cables = CableWorld::new(SolverParams::default()).expect("valid params");
    *cables.pool_mut() = ParticlePool::with_budget(400);
    cables.step(&mut world, 1.0 / 60.0).expect("the frame ran");
    let stalled = &cables.report().stalled_winches;
    assert_eq!(stalled.len(), 1, "{:?}", cables.report());
    assert_eq!(stalled[0].0, e);
    assert!(matches!(
        stalled[0].1,
        CableError::WinchBudget { budget: 400, .. }
    ));
    // Stopped: the next frames do not stall again.
    for _ in 0..5 {
        cables.step(&mut world, 1.0 / 60.0).expect("steps");
        assert!(cables.report().stalled_winches.is_empty());
    }
}

/// A spec the pool refuses when the step builds its cable (here: over a
/// particle budget set on the world's pool) is listed once in
/// `StepReport::refused_specs`, with the error its `CableRejected` holds;
/// the other cables step; removing the `CableRejected` tries it again.
#[test]
fn a_spec_refused_at_spawn_is_reported_once() {
    let mut world = World::new();
    let mut cables = CableWorld::new(SolverParams::default()).expect("valid params");
    // Room for two ropes of 17 particles, not three.
    cables.pool_mut().set_budget(40).expect("the pool is empty");
    let a = world.spawn((rope(0.0), CableParticles::default()));
    let b = world.spawn((rope(1.0), CableParticles::default()));
    let c = world.spawn((rope(2.0), CableParticles::default()));
    cables.step(&mut world, 1.0 / 60.0).expect("steps");
    let report = cables.report().clone();
    assert_eq!(report.refused_specs.len(), 1, "{report:?}");
    assert!(!report.is_empty());
    let (refused, error) = &report.refused_specs[0];
    // Entities are spawned in query order: the third rope is over budget.
    assert_eq!(*refused, c);
    assert!(
        matches!(
            error,
            CableError::BudgetExceeded {
                requested: 17,
                live: 34,
                budget: 40
            }
        ),
        "{error}"
    );
    assert_eq!(
        world.get::<&CableRejected>(c).expect("marked").0,
        *error,
        "the component holds the reported error"
    );
    for e in [a, b] {
        assert!(world.get::<&CableBody>(e).is_ok(), "{e:?} simulated");
    }
    // Reported once: the next steps leave it alone.
    for _ in 0..3 {
        cables.step(&mut world, 1.0 / 60.0).expect("steps");
        assert!(cables.report().refused_specs.is_empty());
    }
    // With room made (a despawned: its cable is freed by the next step),
    // removing the marker tries it again.
    world.despawn(a).expect("live");
    cables.step(&mut world, 1.0 / 60.0).expect("steps");
    world.remove_one::<CableRejected>(c).expect("marked");
    cables.step(&mut world, 1.0 / 60.0).expect("steps");
    assert!(
        cables.report().refused_specs.is_empty(),
        "{:?}",
        cables.report()
    );
    assert!(world.get::<&CableBody>(c).is_ok(), "c built on retry");
    // A budget below what the pool holds is refused by name.
    let held = cables.pool().particle_count();
    let err = cables
        .pool_mut()
        .set_budget(held - 1)
        .expect_err("too small");
    assert!(err.to_string().starts_with("max_particles:"), "{err}");
    assert_eq!(cables.pool().budget(), 40);
}
