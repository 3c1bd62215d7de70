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
