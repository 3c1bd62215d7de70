//! A headless Bevy app (the plugins of Bevy's `MinimalPlugins`: task pools,
//! frame count, time, a schedule runner) with a crane: a rope from a
//! moving trolley to a swinging hook, a tube mesh, a ball the rope drapes
//! over, a winch that hoists the hook from 5 m to 3.5 m of rope at 0.5 m/s
//! and a load cell (the top segment's tension). Beside it a tag line with
//! a 5 kg weight, rated at 30 N, parts at its top (a `CableTorn` message)
//! and is hidden once it has fallen (`CableHidden`); contacts are tracked
//! (`CableContact` messages: the rope and the ball); anything the plugin
//! refuses would arrive as a `CableNotice`. It runs 180 frames of 1/60 s,
//! prints the hook's position, the rope's length and the load every 30
//! frames and each message as it comes, then saves the simulation,
//! restores it, and exits.
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
    Cable, CableAnchor, CableAttachments, CableCollider, CableContact, CableHidden, CableNotice,
    CableParticles, CablePlugin, CableSimulation, CableStatus, CableTension, CableTorn, CableTube,
    CableWinch, restore_simulation,
};

/// Frames to run.
const FRAMES: u32 = 180;

#[derive(Component)]
struct Trolley;

#[derive(Component)]
struct Hook;

/// The tag line that parts.
#[derive(Component)]
struct TagLine;

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
        .add_systems(
            Update,
            (move_trolley, report, news, hide_fallen, save_and_restore),
        )
        .run()
}

fn setup(mut commands: Commands, mut sim: ResMut<CableSimulation>) {
    // `CableContact` messages for every cable and collider entity.
    sim.set_track_contacts(true);
    // The tag line: 2 m, a 5 kg weight at its free end (49 N), rated at
    // 30 N: its top segment breaks in the first step.
    let mut tag = Cable::line(Vec3::new(5.0, 5.0, 0.0), Vec3::new(5.0, 3.0, 0.0), 2.0, 8)
        .expect("a valid tag line")
        .with_mass(8, 5.0);
    tag.desc.attach_end = false;
    tag.desc.params.break_tension = Some(30.0);
    commands.spawn((tag, TagLine));
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

/// Prints the plugin's messages as they come.
fn news(
    frames: Res<FrameCount>,
    mut contacts: MessageReader<CableContact>,
    mut torn: MessageReader<CableTorn>,
    mut notices: MessageReader<CableNotice>,
) {
    for c in contacts.read() {
        println!(
            "frame {:3}: contact {:?} between cable {} and collider {}",
            frames.0, c.kind, c.cable, c.collider
        );
    }
    for t in torn.read() {
        println!(
            "frame {:3}: cable {} parted at segment {}",
            frames.0, t.cable, t.segment
        );
    }
    for n in notices.read() {
        println!("frame {:3}: the plugin says {n:?}", frames.0);
    }
}

/// The tag line while it is shown.
type ShownTagLine = (With<TagLine>, Without<CableHidden>);

/// Hides the tag line once its lower piece has fallen below the ground
/// level a game would cull it at (y < 0): hidden cables are not simulated
/// (`skip_when_hidden`) and their tube is not rewritten.
fn hide_fallen(
    mut commands: Commands,
    lines: Query<(Entity, &CableParticles), ShownTagLine>,
    frames: Res<FrameCount>,
) {
    for (e, particles) in &lines {
        if particles.positions.last().is_some_and(|p| p.y < 0.0) {
            commands.entity(e).insert(CableHidden);
            println!(
                "frame {:3}: the tag line's weight fell below y = 0: hidden",
                frames.0
            );
        }
    }
}

/// At the last frame: saves the whole simulation, restores it into the
/// same world (the entities are relinked), and prints the save's size.
fn save_and_restore(world: &mut World) {
    if world.resource::<FrameCount>().0 != FRAMES {
        return;
    }
    let mut save = Vec::new();
    world
        .resource::<CableSimulation>()
        .save(&mut save)
        .expect("a running simulation saves");
    restore_simulation(world, save.as_slice()).expect("its own save restores");
    let cables = world.resource::<CableSimulation>().pool().cable_count();
    println!(
        "saved {} bytes and restored them: {cables} cables",
        save.len()
    );
}
