//! The plugin in other schedules than `FixedUpdate`, and interpolation
//! between fixed steps.

mod common;

use std::time::Duration;

use bevy_app::prelude::*;
use bevy_asset::Assets;
use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_mesh::{Mesh, Mesh3d, VertexAttributeValues};
use bevy_time::{Fixed, Time, TimeUpdateStrategy};
use bevy_transform::prelude::*;
use cable_bevy::{
    Cable, CableAnchor, CableAttachments, CableClock, CableCollider, CableInterpolated,
    CableParticles, CablePlugin, CableSimulation, CableTube,
};

/// The fixed timestep of these tests: 60 Hz, whole nanoseconds.
fn timestep() -> Duration {
    Time::<Fixed>::from_hz(60.0).timestep()
}

/// A headless app with `plugin`, its first frame time `frame`.
fn app_with(plugin: CablePlugin, frame: Duration) -> App {
    common::headless(plugin, frame)
}

/// A rope pinned at one end only (it swings and falls onto a ball), a
/// second one pinned at both ends: things move every step.
fn scene(app: &mut App) -> (Entity, Entity) {
    let world = app.world_mut();
    world.spawn((
        CableCollider::sphere(0.5).expect("valid"),
        Transform::from_xyz(2.0, 0.0, 0.0),
    ));
    let swing = world
        .spawn((
            Cable::line(Vec3::new(0.0, 2.0, 0.0), Vec3::new(3.0, 2.0, 0.0), 3.0, 16)
                .expect("valid"),
            CableAttachments {
                start: CableAnchor::Point(Vec3::new(0.0, 2.0, 0.0)),
                end: CableAnchor::Free,
            },
        ))
        .id();
    let sag = world
        .spawn(
            Cable::line(Vec3::new(0.0, 4.0, 1.0), Vec3::new(2.0, 4.0, 1.0), 3.0, 12)
                .expect("valid"),
        )
        .id();
    (swing, sag)
}

use common::positions;

fn set_frame(app: &mut App, frame: Duration) {
    app.insert_resource(TimeUpdateStrategy::ManualDuration(frame));
}

/// Frame times that are not the timestep: shorter, longer (two or three
/// steps in one frame), and none at all.
fn frames() -> impl Iterator<Item = Duration> {
    [7, 23, 3, 40, 16, 0, 17, 51, 9, 12]
        .into_iter()
        .map(Duration::from_millis)
        .cycle()
        .take(120)
}

#[test]
fn in_fixed_post_update_the_run_is_the_fixed_update_run() {
    let mut a = app_with(CablePlugin::default(), timestep());
    let mut b = app_with(CablePlugin::in_schedule(FixedPostUpdate), timestep());
    assert_eq!(
        CablePlugin::in_schedule(FixedPostUpdate).resolved_clock(),
        CableClock::Fixed
    );
    let (ra, _) = scene(&mut a);
    let (rb, _) = scene(&mut b);
    let start = positions(&a, ra);
    for frame in frames() {
        set_frame(&mut a, frame);
        set_frame(&mut b, frame);
        a.update();
        b.update();
        assert_eq!(positions(&a, ra), positions(&b, rb));
    }
    let steps = |app: &App| {
        app.world()
            .resource::<CableSimulation>()
            .stepper()
            .substeps_run()
    };
    assert!(steps(&b) > 100, "it ran: {}", steps(&b));
    assert_eq!(steps(&a), steps(&b));
    assert_ne!(positions(&b, rb), start);
}

/// In `Update`, frame times are accumulated and whole fixed steps run:
/// bit for bit the run of `FixedUpdate` (where Bevy's fixed loop
/// accumulates the same frame times), however uneven the frames.
#[test]
fn in_update_uneven_frames_run_whole_fixed_steps_as_fixed_update_does() {
    let plugin = CablePlugin::in_schedule(Update);
    assert_eq!(plugin.resolved_clock(), CableClock::Accumulated);
    let mut fixed = app_with(CablePlugin::default(), Duration::ZERO);
    let mut update = app_with(plugin, Duration::ZERO);
    let (rf, sf) = scene(&mut fixed);
    let (ru, su) = scene(&mut update);
    // The first update only starts the clocks.
    fixed.update();
    update.update();
    let mut elapsed = Duration::ZERO;
    let mut moved = 0;
    for frame in frames() {
        set_frame(&mut fixed, frame);
        set_frame(&mut update, frame);
        let before = positions(&update, ru);
        fixed.update();
        update.update();
        elapsed += frame;
        assert_eq!(positions(&fixed, rf), positions(&update, ru));
        assert_eq!(positions(&fixed, sf), positions(&update, su));
        let sim = update.world().resource::<CableSimulation>();
        // The test's own count of whole steps in the time elapsed.
        let whole = (elapsed.as_nanos() / timestep().as_nanos()) as u64;
        assert_eq!(sim.stepper().substeps_run(), whole);
        let left =
            (elapsed.as_nanos() % timestep().as_nanos()) as f64 / timestep().as_nanos() as f64;
        assert!((f64::from(sim.overstep_fraction()) - left).abs() < 1e-6);
        if positions(&update, ru) != before {
            moved += 1;
        }
    }
    // Frames shorter than a step (and of 0 s) ran none: the rope stood still.
    assert!(moved > 60 && moved < 120, "{moved} frames moved the rope");
}

/// Each substep is the fixed timestep over `substeps`, whatever the frame.
#[test]
fn in_update_with_substeps_each_frame_runs_whole_substeps() {
    let mut app = app_with(
        CablePlugin {
            substeps: 4,
            ..CablePlugin::in_schedule(Update)
        },
        Duration::ZERO,
    );
    scene(&mut app);
    app.update();
    set_frame(&mut app, Duration::from_millis(40)); // 2.4 steps
    app.update();
    let sim = app.world().resource::<CableSimulation>();
    assert_eq!(sim.stepper().substeps_run(), 8);
    assert_eq!(sim.params().substep, timestep().as_secs_f32() / 4.0);
    app.update(); // 4.8 steps in all
    let sim = app.world().resource::<CableSimulation>();
    assert_eq!(sim.stepper().substeps_run(), 16);
    assert!((sim.overstep_fraction() - 0.8).abs() < 1e-4);
}

/// Long frames with substeps: a 100 ms frame holds 6 steps of 4
/// substeps, more than `max_substeps` (16) substeps in one run. Every
/// whole step still runs, as Bevy's fixed loop runs them in
/// `FixedUpdate`: the same bits and the same count, no time dropped.
#[test]
fn in_update_long_frames_with_substeps_drop_no_step() {
    let with_substeps = |p: CablePlugin| CablePlugin { substeps: 4, ..p };
    let mut fixed = app_with(with_substeps(CablePlugin::default()), Duration::ZERO);
    let mut update = app_with(
        with_substeps(CablePlugin::in_schedule(Update)),
        Duration::ZERO,
    );
    let (rf, _) = scene(&mut fixed);
    let (ru, _) = scene(&mut update);
    fixed.update();
    update.update();
    let mut elapsed = Duration::ZERO;
    for ms in [100, 7, 100, 33, 0, 100, 100] {
        let frame = Duration::from_millis(ms);
        set_frame(&mut fixed, frame);
        set_frame(&mut update, frame);
        fixed.update();
        update.update();
        elapsed += frame;
        let whole = (elapsed.as_nanos() / timestep().as_nanos()) as u64;
        let run = |app: &App| {
            app.world()
                .resource::<CableSimulation>()
                .stepper()
                .substeps_run()
        };
        assert_eq!(run(&update), 4 * whole, "after {elapsed:?}");
        assert_eq!(run(&fixed), run(&update));
        assert_eq!(positions(&fixed, rf), positions(&update, ru));
    }
}

/// Paused virtual time steps nothing in `Update` (nor in `FixedUpdate`).
#[test]
fn in_update_paused_time_runs_no_step() {
    let mut app = app_with(CablePlugin::in_schedule(Update), timestep());
    let (rope, _) = scene(&mut app);
    for _ in 0..10 {
        app.update();
    }
    app.world_mut()
        .resource_mut::<Time<bevy_time::Virtual>>()
        .pause();
    let still = positions(&app, rope);
    let steps = app
        .world()
        .resource::<CableSimulation>()
        .stepper()
        .substeps_run();
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(positions(&app, rope), still);
    assert_eq!(
        app.world()
            .resource::<CableSimulation>()
            .stepper()
            .substeps_run(),
        steps
    );
}

/// The positions of each fixed step, recorded after it.
#[derive(Resource, Default)]
struct Steps(Vec<Vec<Vec3>>);

/// What `Update` read once: the readout, the overstep fraction and the
/// last two steps.
type Read = (Vec<Vec3>, f32, Vec<Vec3>, Vec<Vec3>);

/// Every [`Read`].
#[derive(Resource, Default)]
struct Reads(Vec<Read>);

#[derive(Resource)]
struct Watched(Entity);

fn record_step(watched: Res<Watched>, cables: Query<&CableParticles>, mut steps: ResMut<Steps>) {
    if let Ok(p) = cables.get(watched.0) {
        steps.0.push(p.positions.clone());
    }
}

fn read_in_update(
    watched: Res<Watched>,
    cables: Query<&CableInterpolated>,
    fixed: Res<Time<Fixed>>,
    steps: Res<Steps>,
    mut reads: ResMut<Reads>,
) {
    let (Ok(i), [.., prev, last]) = (cables.get(watched.0), steps.0.as_slice()) else {
        return;
    };
    reads.0.push((
        i.positions.clone(),
        fixed.overstep_fraction(),
        prev.clone(),
        last.clone(),
    ));
}

/// With `CableInterpolated`, what `Update` reads between two fixed steps
/// lies between the two steps' positions, at Bevy's overstep fraction;
/// the tube mesh is drawn there too.
#[test]
fn interpolated_positions_lie_between_the_last_two_steps_at_the_overstep_fraction() {
    // 144 Hz frames, 60 Hz steps: most frames run no step.
    let mut app = app_with(CablePlugin::default(), Duration::from_secs_f64(1.0 / 144.0));
    app.init_resource::<Assets<Mesh>>()
        .init_resource::<Steps>()
        .init_resource::<Reads>()
        .add_systems(FixedPostUpdate, record_step)
        .add_systems(Update, read_in_update);
    let (rope, _) = scene(&mut app);
    app.world_mut()
        .entity_mut(rope)
        .insert((CableInterpolated::default(), CableTube));
    app.insert_resource(Watched(rope));
    let mut mesh_checked = 0;
    for _ in 0..150 {
        app.update();
        // The tube's rings are centred on the interpolated positions.
        let world = app.world();
        let interp = &world
            .get::<CableInterpolated>(rope)
            .expect("inserted")
            .positions;
        let last = positions(&app, rope);
        let Some(mesh) = world
            .get::<Mesh3d>(rope)
            .and_then(|m| world.resource::<Assets<Mesh>>().get(&m.0))
        else {
            continue;
        };
        let Some(VertexAttributeValues::Float32x3(v)) = mesh.attribute(Mesh::ATTRIBUTE_POSITION)
        else {
            panic!("tube positions");
        };
        let ring = v.len() / interp.len();
        let sides = ring - 1; // the seam repeats the first vertex
        for (i, p) in interp.iter().enumerate() {
            let centre = v[i * ring..i * ring + sides]
                .iter()
                .fold(Vec3::ZERO, |s, x| s + Vec3::from(*x))
                / sides as f32;
            assert!(centre.distance(*p) < 1e-4, "ring {i}: {centre} vs {p}");
            if p.distance(last[i]) > 1e-3 {
                mesh_checked += 1;
            }
        }
    }
    assert!(
        mesh_checked > 100,
        "the tube was drawn between steps {mesh_checked} times"
    );
    let reads = &app.world().resource::<Reads>().0;
    let mut between = 0;
    for (interp, f, prev, last) in reads {
        assert_eq!(interp.len(), last.len());
        for ((p, a), b) in interp.iter().zip(prev).zip(last) {
            let expected = *a + (*b - *a) * *f;
            assert!(p.distance(expected) < 1e-5, "{p} vs {expected} at {f}");
            let (lo, hi) = (a.min(*b), a.max(*b));
            assert!(p.cmpge(lo - 1e-6).all() && p.cmple(hi + 1e-6).all());
            if *f > 0.1 && *f < 0.9 && a.distance(*b) > 1e-3 {
                between += 1;
            }
        }
    }
    assert!(
        between > 200,
        "{between} particles strictly between two steps"
    );
}

/// In `Update`, the readout is at the accumulator's fraction of a step:
/// the time since the last whole step over the timestep.
#[test]
fn in_update_interpolation_follows_the_accumulated_time() {
    let mut app = app_with(CablePlugin::in_schedule(Update), Duration::ZERO);
    let (rope, _) = scene(&mut app);
    app.world_mut()
        .entity_mut(rope)
        .insert(CableInterpolated::default());
    app.update();
    set_frame(&mut app, Duration::from_millis(6));
    let mut elapsed = Duration::ZERO;
    let mut last = positions(&app, rope);
    let mut prev = last.clone();
    let mut checked = 0;
    for _ in 0..100 {
        app.update();
        elapsed += Duration::from_millis(6);
        let now = positions(&app, rope);
        if now != last {
            prev = std::mem::replace(&mut last, now);
        }
        let f = (elapsed.as_nanos() % timestep().as_nanos()) as f32 / timestep().as_nanos() as f32;
        let interp = &app
            .world()
            .get::<CableInterpolated>(rope)
            .expect("inserted")
            .positions;
        if elapsed < 2 * timestep() {
            continue; // fewer than two steps to mix
        }
        for ((p, a), b) in interp.iter().zip(&prev).zip(&last) {
            assert!(p.distance(a.lerp(*b, f)) < 1e-4, "{p} at {f}");
        }
        checked += 1;
    }
    assert!(checked > 90);
}
