//! A headless Bevy app (the plugins of Bevy's `MinimalPlugins`: task pools,
//! frame count, time, a schedule runner) with a crane: a rope from a
//! moving trolley to a swinging hook, a tube mesh, a ball the rope drapes
//! over, a winch that hoists the hook from 5 m to 3.5 m of rope at 0.5 m/s
//! and a load cell (the top segment's tension). It runs 180 frames of
//! 1/60 s, prints the hook's position, the rope's length and the load
//! every 30 frames, and exits.
//!
//! Run with `cargo run --manifest-path crates/cable-bevy/Cargo.toml --example headless`.

use std::time::Duration;

use bevy_app::{AppExit, ScheduleRunnerPlugin, prelude::*};
use bevy_asset::Assets;
use bevy_diagnostic::{FrameCount, FrameCountPlugin};
use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_mesh::{Mesh, Mesh3d};
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::prelude::*;
use cable_bevy::{
    Cable, CableAnchor, CableAttachments, CableCollider, CableParticles, CablePlugin, CableStatus,
    CableTension, CableTube, CableWinch,
};

/// Frames to run.
const FRAMES: u32 = 180;

#[derive(Component)]
struct Trolley;

#[derive(Component)]
struct Hook;

fn main() -> AppExit {
    App::new()
        .add_plugins((
            TaskPoolPlugin::default(),
            FrameCountPlugin,
            TimePlugin,
            ScheduleRunnerPlugin::run_loop(Duration::ZERO),
            TransformPlugin,
            CablePlugin::default(),
        ))
        // Simulated time, not wall time: every run gives the same numbers.
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        // No AssetPlugin headless: the mesh store by hand.
        .init_resource::<Assets<Mesh>>()
        .add_systems(Startup, setup)
        .add_systems(Update, (move_trolley, report))
        .run()
}

fn setup(mut commands: Commands) {
    let top = Vec3::new(0.0, 5.0, 0.0);
    let trolley = commands
        .spawn((Trolley, Transform::from_translation(top)))
        .id();
    let hook_at = Vec3::new(3.0, 5.0, 0.0);
    let hook = commands
        .spawn((Hook, Transform::from_translation(hook_at)))
        .id();
    let rope = Cable::line(top, hook_at, 5.0, 32)
        .expect("a valid rope")
        .with_mass(32, 20.0); // a 20 kg hook
    commands.spawn((
        rope,
        CableAttachments {
            start: CableAnchor::Entity {
                entity: trolley,
                offset: Vec3::ZERO,
            },
            end: CableAnchor::Free,
        },
        CableTube,
        HookOf(hook),
        // Hoist: the winch at the trolley reels the rope in to 3.5 m.
        CableWinch {
            target_length: 3.5,
            speed: 0.5,
        },
        CableTension::default(),
        CableStatus::default(),
    ));
    commands.spawn((
        CableCollider::sphere(0.6).expect("a valid ball"),
        Transform::from_xyz(2.0, 2.0, 0.0),
    ));
}

/// The entity that shows where the rope's free end is.
#[derive(Component)]
struct HookOf(Entity);

fn move_trolley(frames: Res<FrameCount>, mut trolley: Query<&mut Transform, With<Trolley>>) {
    let t = frames.0 as f32 / 60.0;
    for mut tf in &mut trolley {
        tf.translation.x = 1.5 * (t * 1.2).sin();
    }
}

fn report(
    frames: Res<FrameCount>,
    ropes: Query<(
        &CableParticles,
        &HookOf,
        Option<&Mesh3d>,
        &CableTension,
        &CableStatus,
    )>,
    mut hooks: Query<&mut Transform, (With<Hook>, Without<Trolley>)>,
    meshes: Res<Assets<Mesh>>,
    mut exit: MessageWriter<AppExit>,
) {
    for (particles, hook, mesh, tension, status) in &ropes {
        let Some(&end) = particles.positions.last() else {
            continue;
        };
        if let Ok(mut tf) = hooks.get_mut(hook.0) {
            tf.translation = end; // the hook entity rides on the rope's end
        }
        if frames.0.is_multiple_of(30) {
            let vertices = mesh
                .and_then(|m| meshes.get(&m.0))
                .map_or(0, Mesh::count_vertices);
            let load = tension.segments.first().copied().unwrap_or(0.0);
            println!(
                "frame {:3}: hook at ({:6.3}, {:6.3}, {:6.3}), rope {:.3} m, load {load:6.1} N, \
                 tube mesh of {vertices} vertices",
                frames.0, end.x, end.y, end.z, status.rest_length
            );
        }
    }
    if frames.0 >= FRAMES {
        exit.write(AppExit::Success);
    }
}
