//! Save and restore through the plugin: a restored run goes on bit for bit.

mod common;

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_math::{Quat, Vec3};
use bevy_transform::prelude::*;
use cable_bevy::{
    Cable, CableAnchor, CableAttachments, CableBody, CableCollider, CablePlugin, CableSimulation,
    CableWinch, restore_simulation,
};

/// The game's own state: a frame counter that moves the hand.
#[derive(Resource, Default, Clone, Copy)]
struct Frame(u32);

#[derive(Component)]
struct Hand;

/// The hand circles, so the attached end moves every step.
fn move_hand(mut frame: ResMut<Frame>, mut hands: Query<&mut Transform, With<Hand>>) {
    frame.0 += 1;
    let t = frame.0 as f32 / 60.0;
    for mut h in &mut hands {
        h.translation = Vec3::new(t.sin(), 3.0 + 0.5 * (2.0 * t).cos(), 0.0);
        h.rotation = Quat::from_rotation_y(t);
    }
}

fn app(plugin: CablePlugin) -> (App, Entity, Entity, Entity) {
    let mut app = common::headless(plugin, common::step());
    app.init_resource::<Frame>().add_systems(Update, move_hand);
    let world = app.world_mut();
    let hand = world.spawn((Hand, Transform::from_xyz(0.0, 3.0, 0.0))).id();
    world.spawn((
        CableCollider::sphere(0.6).expect("valid"),
        Transform::from_xyz(1.5, 1.0, 0.0),
    ));
    let rope = world
        .spawn((
            Cable::line(Vec3::new(0.0, 3.0, 0.0), Vec3::new(3.0, 3.0, 0.0), 3.5, 24)
                .expect("valid"),
            CableAttachments {
                start: CableAnchor::Entity {
                    entity: hand,
                    offset: Vec3::new(0.2, 0.0, 0.0),
                },
                end: CableAnchor::Free,
            },
        ))
        .id();
    let hoist = world
        .spawn((
            Cable::line(Vec3::new(0.0, 5.0, 2.0), Vec3::new(0.0, 3.0, 2.0), 2.0, 10)
                .expect("valid"),
            CableAttachments {
                start: CableAnchor::Point(Vec3::new(0.0, 5.0, 2.0)),
                end: CableAnchor::Free,
            },
            CableWinch {
                target_length: 3.0,
                speed: 0.5,
            },
        ))
        .id();
    (app, hand, rope, hoist)
}

use common::positions;

/// Runs `m` frames, recording both cables each frame.
fn record(app: &mut App, rope: Entity, hoist: Entity, m: usize) -> Vec<(Vec<Vec3>, Vec<Vec3>)> {
    (0..m)
        .map(|_| {
            app.update();
            (positions(app, rope), positions(app, hoist))
        })
        .collect()
}

fn save_restore_continues_bit_for_bit(plugin: CablePlugin) {
    let (mut app, hand, rope, hoist) = app(plugin);
    for _ in 0..40 {
        app.update();
    }
    // The game saves its own state: the frame counter and the hand.
    let frame = *app.world().resource::<Frame>();
    let hand_pose = (
        *app.world().get::<Transform>(hand).expect("has one"),
        *app.world().get::<GlobalTransform>(hand).expect("has one"),
    );
    let mut file = Vec::new();
    app.world()
        .resource::<CableSimulation>()
        .save(&mut file)
        .expect("saved");
    let first = record(&mut app, rope, hoist, 50);
    // The run went on: the cables moved, the winch reeled particles in.
    assert_ne!(first[0].0, first[49].0);
    assert_ne!(first[0].1.len(), first[49].1.len());

    restore_simulation(app.world_mut(), file.as_slice()).expect("restored");
    app.insert_resource(frame);
    let mut e = app.world_mut().entity_mut(hand);
    e.insert(hand_pose.0);
    e.insert(hand_pose.1);
    let second = record(&mut app, rope, hoist, 50);
    for (i, (a, b)) in first.iter().zip(&second).enumerate() {
        assert_eq!(a, b, "frame {i} after the save");
    }
}

#[test]
fn a_restored_run_in_fixed_update_continues_bit_for_bit() {
    save_restore_continues_bit_for_bit(CablePlugin::default());
}

#[test]
fn a_restored_run_in_update_continues_bit_for_bit() {
    save_restore_continues_bit_for_bit(CablePlugin::in_schedule(Update));
}

/// Entities despawned after the save lose their restored cable; those
/// spawned after it are built anew; a damaged save changes nothing.
#[test]
fn restoring_relinks_the_entities_of_the_world_as_it_is() {
    let (mut app, _, rope, hoist) = app(CablePlugin::default());
    for _ in 0..10 {
        app.update();
    }
    let mut file = Vec::new();
    app.world()
        .resource::<CableSimulation>()
        .save(&mut file)
        .expect("saved");
    app.world_mut().despawn(hoist);
    let late = app
        .world_mut()
        .spawn(
            Cable::line(Vec3::new(5.0, 3.0, 0.0), Vec3::new(6.0, 3.0, 0.0), 1.0, 4).expect("valid"),
        )
        .id();
    for _ in 0..5 {
        app.update();
    }
    let cables = |app: &App| {
        app.world()
            .resource::<CableSimulation>()
            .pool()
            .cable_count()
    };
    assert_eq!(cables(&app), 2);
    assert!(restore_simulation(app.world_mut(), &file[..file.len() / 2]).is_err());
    assert_eq!(cables(&app), 2);
    restore_simulation(app.world_mut(), file.as_slice()).expect("restored");
    // The despawned hoist's cable is gone; the rope has its saved handle.
    assert_eq!(cables(&app), 1);
    let sim = app.world().resource::<CableSimulation>();
    let handle = app.world().get::<CableBody>(rope).expect("linked").handle;
    assert_eq!(sim.cable_of(rope), Some(handle));
    assert!(sim.pool().contains(handle));
    app.update();
    // The late cable was built anew.
    assert_eq!(cables(&app), 2);
    let late_handle = app.world().get::<CableBody>(late).expect("rebuilt").handle;
    assert!(
        app.world()
            .resource::<CableSimulation>()
            .pool()
            .contains(late_handle)
    );
}
