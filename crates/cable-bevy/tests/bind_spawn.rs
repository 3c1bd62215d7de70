//! Cable creation through the plugin (`cable_systems::bind::spawn_cable`,
//! shared with the hecs layer): a bad mass is refused naming `mass`.

mod common;

use bevy_math::Vec3;
use cable_bevy::{Cable, CablePlugin, CableRejected};
use cable_core::CableError;

#[test]
fn a_bad_mass_is_refused_naming_mass() {
    let mut app = common::headless(CablePlugin::default(), common::step());
    let mut ropes = Vec::new();
    for kg in [f32::NAN, 0.0, -1.0, f32::INFINITY] {
        let mut cable = Cable::line(Vec3::ZERO, Vec3::X, 1.0, 4).expect("valid cable");
        cable.masses.push((2, kg));
        ropes.push((kg, app.world_mut().spawn(cable).id()));
    }
    app.update();
    app.update();
    for (kg, rope) in ropes {
        let rejected = app.world().get::<CableRejected>(rope).expect("rejected");
        match &rejected.0 {
            CableError::OutOfRange { field, .. } => assert_eq!(*field, "mass", "{kg}"),
            other => panic!("{kg}: expected OutOfRange on mass, got {other:?}"),
        }
    }
}
