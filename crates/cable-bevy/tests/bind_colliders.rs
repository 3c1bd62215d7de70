//! New colliders through the plugin (`cable_systems::bind::pose_collider`,
//! shared with the hecs layer): a collider entity's first pose is taken
//! without a motion, so it does not sweep through the cables from its
//! shape's own pose. The hecs layer's twin is
//! `cable-systems/tests/ecs_bind/colliders.rs`.

mod common;

use bevy_math::Vec3;
use bevy_transform::prelude::*;
use cable_bevy::{Cable, CableCollider, CablePlugin};
use cable_core::Collider;

#[test]
fn a_new_collider_appears_at_its_transform_without_sweeping_the_cables() {
    let mut app = common::headless(CablePlugin::default(), common::step());
    // A rope 0.8 m up, pinned at both ends; a ball whose shape sits at the
    // origin (below the rope) and whose entity stands at 1.6 m (above it):
    // neither pose touches the rope, the way from one to the other does.
    let rope = app
        .world_mut()
        .spawn(
            Cable::line(Vec3::new(-2.0, 0.8, 0.0), Vec3::new(2.0, 0.8, 0.0), 4.0, 16)
                .expect("valid cable"),
        )
        .id();
    for _ in 0..2 {
        app.update();
    }
    app.world_mut().spawn((
        CableCollider(Collider::sphere(glam::Vec3::ZERO, 0.5).expect("valid sphere")),
        Transform::from_xyz(0.0, 1.6, 0.0),
    ));
    for _ in 0..3 {
        app.update();
    }
    let top = common::positions(&app, rope)
        .iter()
        .map(|p| p.y)
        .fold(f32::MIN, f32::max);
    assert!(top <= 0.8 + 1e-4, "the rope was swept up to {top} m");
}
