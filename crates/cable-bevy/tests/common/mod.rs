//! What the plugin's test files share: a headless app and a cable's
//! positions.
#![allow(dead_code)] // each test file uses some of these

use std::time::Duration;

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::prelude::*;
use cable_bevy::{CableParticles, CablePlugin};

/// A headless app (task pools, time, transforms) with `plugin`, fixed
/// steps of 1/60 s, and every update `frame` long.
pub fn headless(plugin: CablePlugin, frame: Duration) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        TransformPlugin,
        plugin,
    ))
    .insert_resource(Time::<Fixed>::from_hz(60.0))
    .insert_resource(TimeUpdateStrategy::ManualDuration(frame));
    app
}

/// One fixed step, 1/60 s, as Bevy rounds it.
pub fn step() -> Duration {
    Duration::from_secs_f64(1.0 / 60.0)
}

/// Cable entity `e`'s particle positions.
pub fn positions(app: &App, e: Entity) -> Vec<Vec3> {
    app.world()
        .get::<CableParticles>(e)
        .expect("Cable requires CableParticles")
        .positions
        .clone()
}
