//! Cable creation (`bind::spawn_cable`): the description is checked
//! against the substep before the cable is added, then the masses, a bad
//! one named `mass`, as in the Bevy plugin.

use cable_core::{CableDesc, CableError};
use cable_systems::SolverParams;
use cable_systems::ecs::{CableRejected, CableSpec, CableWorld};
use glam::Vec3;
use hecs::World;

fn field_of(e: &CableError) -> &'static str {
    match e {
        CableError::NotFinite { field, .. } | CableError::OutOfRange { field, .. } => field,
        other => panic!("expected an error naming a field, got {other:?}"),
    }
}

#[test]
fn the_description_is_checked_before_the_masses_and_a_bad_mass_is_named_mass() {
    let mut world = World::new();
    let line = || CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4).expect("valid line");
    let mut overflowing = line();
    overflowing.params.compliance = 1.0e30;
    let both = world.spawn((CableSpec::new(overflowing).with_mass(2, f32::NAN),));
    let mass = world.spawn((CableSpec::new(line()).with_mass(2, -1.0),));
    let mut cables = CableWorld::new(SolverParams::default()).expect("valid params");
    cables.step(&mut world, 1.0 / 60.0).expect("steps");
    let field = |e| field_of(&world.get::<&CableRejected>(e).expect("rejected").0);
    assert_eq!(field(both), "compliance", "the description comes first");
    assert_eq!(field(mass), "mass");
    assert_eq!(cables.pool().cable_count(), 0);
}
