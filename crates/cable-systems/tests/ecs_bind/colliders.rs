//! New colliders (`bind::pose_collider`): a collider entity's first pose is
//! taken without a motion, as the Bevy plugin takes it, so the collider
//! does not sweep through the cables from its shape's own pose.

use cable_core::{CableDesc, Collider};
use cable_systems::SolverParams;
use cable_systems::ecs::{CableParticles, CableSpec, CableWorld, ColliderSpec, Transform};
use glam::Vec3;
use hecs::World;

#[test]
fn a_new_collider_appears_at_its_transform_without_sweeping_the_cables() {
    let mut world = World::new();
    // A rope 0.8 m up, pinned at both ends; a ball whose shape sits at the
    // origin (below the rope) and whose entity stands at 1.6 m (above it):
    // neither pose touches the rope, the way from one to the other does.
    let rope = world.spawn((
        CableSpec::new(
            CableDesc::line(Vec3::new(-2.0, 0.8, 0.0), Vec3::new(2.0, 0.8, 0.0), 4.0, 16)
                .expect("valid line"),
        ),
        CableParticles::default(),
    ));
    let mut cables = CableWorld::new(SolverParams::default()).expect("valid params");
    cables.step(&mut world, 1.0 / 60.0).expect("steps");
    world.spawn((
        ColliderSpec(Collider::sphere(Vec3::ZERO, 0.5).expect("valid sphere")),
        Transform::from_translation(Vec3::new(0.0, 1.6, 0.0)),
    ));
    for _ in 0..3 {
        cables.step(&mut world, 1.0 / 60.0).expect("steps");
    }
    assert!(cables.report().is_empty());
    let top = world
        .get::<&CableParticles>(rope)
        .expect("particles")
        .positions
        .iter()
        .map(|p| p.y)
        .fold(f32::MIN, f32::max);
    assert!(top <= 0.8 + 1e-4, "the rope was swept up to {top} m");
}
