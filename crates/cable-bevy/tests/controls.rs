//! The game's controls and readouts of a cable entity in a headless Bevy
//! app: `CableWinch`, `CableHidden`, `CableTension` and `CableStatus`.

use std::time::Duration;

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::prelude::*;
use cable_bevy::{
    Cable, CableBody, CableHidden, CableNotice, CableParticles, CablePlugin, CableSimulation,
    CableStatus, CableTension, CableWinch,
};
use cable_systems::SolverParams;

/// A headless app stepping 1/60 s per update, one fixed step per update,
/// with damping `damping` (1/s).
fn app(damping: f32) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        TransformPlugin,
        CablePlugin {
            params: SolverParams {
                damping,
                ..SolverParams::default()
            },
            ..CablePlugin::default()
        },
    ))
    .insert_resource(Time::<Fixed>::from_hz(60.0))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 60.0,
    )));
    app
}

/// A rope hanging from (0, 5, 0), `length` metres of `segments`, its lower
/// end free, `kg_per_m` kg/m.
fn hanging(length: f32, segments: u32, kg_per_m: f32) -> Cable {
    let mut c = Cable::line(
        Vec3::new(0.0, 5.0, 0.0),
        Vec3::new(0.0, 5.0 - length, 0.0),
        length,
        segments,
    )
    .expect("valid cable");
    c.desc.attach_end = false;
    c.desc.mass_per_length = Some(kg_per_m);
    c
}

fn status(app: &App, e: Entity) -> CableStatus {
    *app.world().get::<CableStatus>(e).expect("has a status")
}

fn run(app: &mut App, frames: usize) {
    for _ in 0..frames {
        app.update();
    }
}

#[test]
fn a_winch_component_reels_in_pays_out_and_stops_when_removed() {
    let mut app = app(1.0);
    let rope = app
        .world_mut()
        .spawn((
            hanging(5.0, 20, 1.0),
            CableStatus::default(),
            CableWinch {
                target_length: 3.0,
                speed: 1.0,
            },
        ))
        .id();
    run(&mut app, 2);
    let start = status(&app, rope);
    // One second of fixed steps at 1 m/s: one metre in (a step either way,
    // for when the order reached the pool).
    run(&mut app, 60);
    let s = status(&app, rope);
    assert!(
        (start.rest_length - s.rest_length - 1.0).abs() <= 1.0 / 60.0 + 1e-3,
        "reeled from {} to {} m in 1 s",
        start.rest_length,
        s.rest_length
    );
    assert!(s.particles < start.particles, "{s:?} from {start:?}");
    // It stops at the target, and its winch with it (the component stays),
    // so the cable no longer turns against its bound every substep.
    run(&mut app, 120);
    assert!((status(&app, rope).rest_length - 3.0).abs() < 1e-3);
    let body = app.world().get::<CableBody>(rope).expect("body").handle;
    let sim = app.world().resource::<CableSimulation>();
    assert!(!sim.pool().winch_turns(body).expect("live"));
    assert!(app.world().get::<CableWinch>(rope).is_some());
    // A new order pays out at 2 m/s.
    app.world_mut().entity_mut(rope).insert(CableWinch {
        target_length: 4.5,
        speed: 2.0,
    });
    run(&mut app, 30);
    let s = status(&app, rope);
    assert!((s.rest_length - 4.0).abs() <= 2.0 / 60.0 + 1e-3, "{s:?}");
    // Removed halfway: the winch stops where it is.
    app.world_mut().entity_mut(rope).remove::<CableWinch>();
    run(&mut app, 1);
    let stopped = status(&app, rope).rest_length;
    run(&mut app, 60);
    assert_eq!(status(&app, rope).rest_length, stopped);
    assert!(stopped > 4.0 - 1e-3 && stopped < 4.5, "{stopped}");
    let sim = app.world().resource::<CableSimulation>();
    assert_eq!(sim.pool().params(body).expect("live").reel_speed, 0.0);
}

#[test]
fn a_winch_the_pool_refuses_is_reported_once_and_changes_nothing() {
    let mut app = app(0.0);
    let rope = app
        .world_mut()
        .spawn((
            hanging(2.0, 8, 1.0),
            CableStatus::default(),
            CableWinch {
                target_length: 1.0,
                speed: 0.0,
            },
        ))
        .id();
    // NaN is never equal to itself: still one order, one notice.
    let nan = app
        .world_mut()
        .spawn((
            hanging(2.0, 8, 1.0),
            CableWinch {
                target_length: f32::NAN,
                speed: 1.0,
            },
        ))
        .id();
    // Messages live two frames: collect them as they come.
    let mut notices: Vec<CableNotice> = Vec::new();
    for _ in 0..30 {
        app.update();
        notices.extend(
            app.world_mut()
                .resource_mut::<Messages<CableNotice>>()
                .drain(),
        );
    }
    let bad: Vec<_> = notices
        .iter()
        .filter(|n| matches!(n, CableNotice::BadWinch { entity, .. } if *entity == rope))
        .collect();
    assert_eq!(bad.len(), 1, "{notices:?}");
    let bad_nan = notices
        .iter()
        .filter(|n| matches!(n, CableNotice::BadWinch { entity, .. } if *entity == nan))
        .count();
    assert_eq!(bad_nan, 1, "{notices:?}");
    if let CableNotice::BadWinch { error, .. } = bad[0] {
        assert!(error.to_string().contains("speed"), "{error}");
    }
    assert!((status(&app, rope).rest_length - 2.0).abs() < 1e-5);
}

#[test]
fn tension_reads_the_weight_below_and_hidden_cables_stop_when_they_may() {
    let mut app = app(2.0);
    // 2 m of 1 kg/m in 8 segments: the top segment holds everything but
    // the pinned top particle's 0.125 kg.
    let mut cable = hanging(2.0, 8, 1.0);
    cable.desc.params.skip_when_hidden = true;
    let rope = app.world_mut().spawn((cable, CableTension::default())).id();
    run(&mut app, 240);
    let t = app
        .world()
        .get::<CableTension>(rope)
        .expect("has a tension")
        .segments
        .clone();
    assert_eq!(t.len(), 8);
    let weight = 1.875 * 9.81;
    assert!(
        (t[0] - weight).abs() < 0.02 * weight,
        "top {} N, weight {weight} N",
        t[0]
    );
    assert!(t[7] < t[0] / 4.0, "the bottom segment holds little: {t:?}");
    // Tracking is on while some cable reads it, off when none does.
    assert!(
        app.world()
            .resource::<CableSimulation>()
            .stepper()
            .track_tension()
    );

    // Hidden: the pool is told, and this cable (skip_when_hidden) stops.
    let body = app.world().get::<CableBody>(rope).expect("body").handle;
    app.world_mut()
        .entity_mut(rope)
        .insert(CableHidden)
        .remove::<CableTension>();
    // Give it a kick it would follow if it were simulated.
    app.world_mut()
        .resource_mut::<CableSimulation>()
        .pool_mut()
        .prev_positions_mut(body)
        .expect("live")[8] += glam::Vec3::new(0.05, 0.0, 0.0);
    run(&mut app, 1);
    let sim = app.world().resource::<CableSimulation>();
    assert!(!sim.pool().is_visible(body).expect("live"));
    assert!(!sim.stepper().track_tension());
    let frozen = app
        .world()
        .get::<CableParticles>(rope)
        .expect("particles")
        .positions
        .clone();
    run(&mut app, 30);
    assert_eq!(
        app.world()
            .get::<CableParticles>(rope)
            .expect("particles")
            .positions,
        frozen
    );
    app.world_mut().entity_mut(rope).remove::<CableHidden>();
    run(&mut app, 30);
    assert!(
        app.world()
            .resource::<CableSimulation>()
            .pool()
            .is_visible(body)
            .expect("live")
    );
    assert_ne!(
        app.world()
            .get::<CableParticles>(rope)
            .expect("particles")
            .positions,
        frozen,
        "shown again, it moves"
    );
}

#[test]
fn a_cable_whose_winch_is_done_falls_asleep_with_the_component_on() {
    let mut app = app(4.0);
    let mut cable = hanging(3.0, 12, 1.0);
    cable.desc.params.sleep_speed = 0.01;
    cable.desc.params.sleep_delay = 0.5;
    let rope = app
        .world_mut()
        .spawn((
            cable,
            CableStatus::default(),
            CableWinch {
                target_length: 2.0,
                speed: 1.0,
            },
        ))
        .id();
    run(&mut app, 600);
    let s = status(&app, rope);
    assert!((s.rest_length - 2.0).abs() < 1e-3, "{s:?}");
    assert!(
        s.asleep,
        "done reeling and damped for 9 s, yet awake: {s:?}"
    );
}

#[test]
fn the_status_says_when_a_cable_falls_asleep() {
    let mut app = app(4.0);
    let mut cable = hanging(1.0, 8, 1.0);
    cable.desc.params.sleep_speed = 0.01;
    cable.desc.params.sleep_delay = 0.5;
    let rope = app.world_mut().spawn((cable, CableStatus::default())).id();
    run(&mut app, 2);
    assert!(!status(&app, rope).asleep);
    let mut slept = None;
    for frame in 0..600 {
        app.update();
        if status(&app, rope).asleep {
            slept = Some(frame);
            break;
        }
    }
    let frame = slept.expect("a damped hanging rope falls asleep within 10 s");
    let body = app.world().get::<CableBody>(rope).expect("body").handle;
    assert!(
        app.world()
            .resource::<CableSimulation>()
            .pool()
            .is_asleep(body)
            .expect("live"),
        "frame {frame}"
    );
    let s = status(&app, rope);
    assert_eq!((s.particles, s.rest_length), (9, 1.0));
}
