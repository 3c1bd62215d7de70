//! Winch orders through the plugin (`cable_systems::bind::apply_controls`,
//! shared with the hecs layer): an order the pool refuses is reported
//! once, and the order the winch runs is still finished when it is done.

mod common;

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use cable_bevy::{Cable, CableBody, CableNotice, CablePlugin, CableSimulation, CableWinch};

/// A 2 m rope of 8 segments hanging from (0, 5, 0), its lower end free.
fn hanging() -> Cable {
    let mut c = Cable::line(Vec3::new(0.0, 5.0, 0.0), Vec3::new(0.0, 3.0, 0.0), 2.0, 8)
        .expect("valid cable");
    c.desc.attach_end = false;
    c
}

#[test]
fn a_refused_order_is_reported_once_and_the_running_order_still_finishes() {
    let mut app = common::headless(CablePlugin::default(), common::step());
    let reel = CableWinch {
        target_length: 1.5,
        speed: 1.0,
    };
    let ropes: Vec<Entity> = (0..2)
        .map(|_| app.world_mut().spawn((hanging(), reel)).id())
        .collect();
    for _ in 0..10 {
        app.update();
    }
    // Refused orders while the first one still reels: a speed of 0, and a
    // NaN (never equal to itself).
    app.world_mut().entity_mut(ropes[0]).insert(CableWinch {
        target_length: 1.0,
        speed: 0.0,
    });
    app.world_mut().entity_mut(ropes[1]).insert(CableWinch {
        target_length: f32::NAN,
        speed: 1.0,
    });
    let mut notices: Vec<CableNotice> = Vec::new();
    for _ in 0..120 {
        app.update();
        notices.extend(
            app.world_mut()
                .resource_mut::<Messages<CableNotice>>()
                .drain(),
        );
    }
    for rope in ropes {
        let bad = notices
            .iter()
            .filter(|n| matches!(n, CableNotice::BadWinch { entity, .. } if *entity == rope))
            .count();
        assert_eq!(bad, 1, "{notices:?}");
        let h = app.world().get::<CableBody>(rope).expect("body").handle;
        let pool = app.world().resource::<CableSimulation>().pool();
        let length: f32 = pool.rest_lengths(h).expect("live").iter().sum();
        assert!(
            (length - 1.5).abs() < 1e-3,
            "the running order reels on: {length}"
        );
        assert!(
            !pool.winch_turns(h).expect("live"),
            "the running order, done, is stopped"
        );
    }
}

/// A winch stopped at the particle budget is news for its entity
/// (`bind::stalled_winches`, as the hecs layer's `StepReport`), not a
/// refused step: before, the plugin logged "step refused" and sent
/// nothing.
#[test]
fn a_winch_stopped_at_the_budget_is_sent_once_and_the_step_runs() {
    use cable_bevy::cable_core::{CableError, ParticlePool};

    let mut app = common::headless(CablePlugin::default(), common::step());
    *app.world_mut().resource_mut::<CableSimulation>().pool_mut() = ParticlePool::with_budget(300);
    // A slack rope between two pins: it sags when it steps.
    let other = app
        .world_mut()
        .spawn(
            Cable::line(Vec3::new(2.0, 0.0, 0.0), Vec3::new(6.0, 0.0, 0.0), 5.0, 16)
                .expect("valid"),
        )
        .id();
    let rope = app
        .world_mut()
        .spawn((
            hanging(),
            CableWinch {
                target_length: 1.0e7,
                speed: 1.0e4,
            },
        ))
        .id();
    let mut notices: Vec<CableNotice> = Vec::new();
    for _ in 0..20 {
        app.update();
        notices.extend(
            app.world_mut()
                .resource_mut::<Messages<CableNotice>>()
                .drain(),
        );
    }
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        matches!(
            &notices[0],
            CableNotice::WinchStalled { entity, error: CableError::WinchBudget { budget: 300, .. } }
                if *entity == rope
        ),
        "{notices:?}"
    );
    let sim = app.world().resource::<CableSimulation>();
    assert_eq!(sim.pool().particle_count(), 300);
    assert!(sim.stepper().substeps_run() >= 19, "every step ran");
    let sag = common::positions(&app, other)[8].y;
    assert!(sag < -0.1, "the other rope stepped: its middle at {sag}");
}
