//! Attachment targets through the plugin (`cable_systems::bind`'s checks,
//! shared with the hecs layer): a target out of range or NaN is refused,
//! the end keeping its last good target, and the next good one is followed
//! from there.

mod common;

use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_transform::prelude::*;
use cable_bevy::{
    Cable, CableAnchor, CableAttachments, CableBody, CableNotice, CablePlugin, CableSimulation,
};
use cable_core::{CableError, End};

fn top() -> Vec3 {
    Vec3::new(0.0, 5.0, 0.0)
}

/// Moves `hand` to `at` and runs `frames` updates; the notices sent.
fn move_hand(app: &mut bevy_app::App, hand: Entity, at: Vec3, frames: usize) -> Vec<CableNotice> {
    app.world_mut()
        .get_mut::<Transform>(hand)
        .expect("hand")
        .translation = at;
    let mut notices = Vec::new();
    for _ in 0..frames {
        app.update();
        // Messages live two frames: collect them as they come.
        notices.extend(
            app.world_mut()
                .resource_mut::<Messages<CableNotice>>()
                .drain(),
        );
    }
    notices
}

#[test]
fn a_bad_target_is_refused_and_the_end_keeps_its_last_good_target() {
    // Four substeps a step: the end is moved in four stages toward each
    // step's target.
    let plugin = CablePlugin {
        substeps: 4,
        ..CablePlugin::default()
    };
    let mut app = common::headless(plugin, common::step());
    let hand = app
        .world_mut()
        .spawn(Transform::from_translation(top()))
        .id();
    let mut cable = Cable::line(top(), top() - Vec3::Y * 2.0, 2.0, 8).expect("valid cable");
    cable.desc.attach_end = false;
    let rope = app
        .world_mut()
        .spawn((
            cable,
            CableAttachments {
                start: CableAnchor::Entity {
                    entity: hand,
                    offset: Vec3::ZERO,
                },
                end: CableAnchor::Free,
            },
        ))
        .id();
    move_hand(&mut app, hand, top(), 5);
    let h = app.world().get::<CableBody>(rope).expect("body").handle;
    let attachment = |app: &bevy_app::App| {
        let pool = app.world().resource::<CableSimulation>().pool();
        pool.attachment(h, End::Start).expect("live")
    };
    let near = |app: &bevy_app::App| {
        common::positions(app, rope)
            .iter()
            .all(|p| p.is_finite() && (*p - top()).length() < 3.0)
    };
    // Out of range (beyond ±1e6 m), then NaN, each for three frames: the
    // end stays where the hand last was good, and the rope with it.
    for bad in [Vec3::new(3.0e6, 5.0, 0.0), Vec3::NAN] {
        let notices = move_hand(&mut app, hand, bad, 3);
        assert!(near(&app), "{bad}: {:?}", common::positions(&app, rope));
        // Noticed once for the three refused steps, naming what is wrong.
        match notices.as_slice() {
            [
                CableNotice::BadTarget {
                    entity,
                    end: End::Start,
                    target: Some(t),
                    error:
                        CableError::OutOfRange { field, .. } | CableError::NotFinite { field, .. },
                },
            ] => {
                assert_eq!((*entity, *t), (rope, hand));
                assert_eq!(*field, "transform.translation");
            }
            other => panic!("{bad}: {other:?}"),
        }
        let kept = attachment(&app).expect("attached");
        assert!(
            (kept - glam::Vec3::new(0.0, 5.0, 0.0)).length() < 1e-6,
            "{bad}: {kept}"
        );
        // Good again: followed from the last good target.
        let notices = move_hand(&mut app, hand, top() + Vec3::X * 0.1, 3);
        assert!(notices.is_empty(), "{notices:?}");
        assert!(
            near(&app),
            "after {bad}: {:?}",
            common::positions(&app, rope)
        );
        move_hand(&mut app, hand, top(), 3);
    }
}
