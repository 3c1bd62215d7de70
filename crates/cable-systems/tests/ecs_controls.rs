//! Run-time controls of the hecs layer (issues 12 and 14): a winch
//! component, hiding, tearing events and world parameters.

use cable_core::{CableDesc, CableParams};
use cable_systems::SolverParams;
use cable_systems::ecs::{
    AttachTarget, CableAttachments, CableBody, CableHidden, CableSpec, CableWinch, CableWorld,
};
use glam::Vec3;
use hecs::World;

/// A rope hanging from a point at the origin, `length` m of `segments`.
fn hanging(length: f32, segments: u32, params: CableParams) -> (CableSpec, CableAttachments) {
    let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -length, 0.0), length, segments)
        .expect("valid line");
    d.attach_end = false;
    d.params = params;
    (
        CableSpec::new(d),
        CableAttachments {
            start: AttachTarget::Point(Vec3::ZERO),
            end: AttachTarget::Free,
        },
    )
}

fn rest_length(cables: &CableWorld, world: &World, e: hecs::Entity) -> f32 {
    let h = world.get::<&CableBody>(e).expect("spawned").handle;
    cables.pool().rest_lengths(h).expect("live").iter().sum()
}

#[test]
fn a_winch_component_reels_the_cable_and_removing_it_stops_there() {
    let mut world = World::new();
    let rope = world.spawn(hanging(10.0, 40, CableParams::default()));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    world
        .insert_one(
            rope,
            CableWinch {
                target_length: 4.0,
                speed: 2.0,
            },
        )
        .unwrap();
    // 2 m/s for 1.5 s: 3 m reeled in, 7 m left.
    for _ in 0..90 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let l = rest_length(&cables, &world, rope);
    assert!((l - 7.0).abs() < 0.05, "length {l} after 1.5 s");
    // Removed: the winch stops where it is.
    world.remove_one::<CableWinch>(rope).unwrap();
    for _ in 0..60 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let stopped = rest_length(&cables, &world, rope);
    assert!((stopped - l).abs() < 0.04, "kept reeling: {l} → {stopped}");
    // Again, to the target: it stops at 4 m.
    world
        .insert_one(
            rope,
            CableWinch {
                target_length: 4.0,
                speed: 2.0,
            },
        )
        .unwrap();
    for _ in 0..180 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let l = rest_length(&cables, &world, rope);
    assert!((l - 4.0).abs() < 1e-3, "stopped at {l}, not 4 m");
    assert!(cables.report().is_empty());
    // Its order done, the winch is stopped though the component stays: it
    // no longer turns against its bound every substep.
    let h = world.get::<&CableBody>(rope).expect("spawned").handle;
    assert!(!cables.pool().winch_turns(h).unwrap());
    assert_eq!(cables.pool().params(h).unwrap().reel_speed, 0.0);
    assert!(world.get::<&CableWinch>(rope).is_ok());
}

#[test]
fn a_bad_winch_is_reported_and_changes_nothing() {
    let mut world = World::new();
    let rope = world.spawn(hanging(2.0, 8, CableParams::default()));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    world
        .insert_one(
            rope,
            CableWinch {
                target_length: f32::NAN,
                speed: 1.0,
            },
        )
        .unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let (e, err) = &cables.report().bad_winches[0];
    assert_eq!(*e, rope);
    assert!(err.to_string().starts_with("target_length"), "{err}");
    assert!((rest_length(&cables, &world, rope) - 2.0).abs() < 1e-5);
}

#[test]
fn a_hidden_cable_is_skipped_when_its_parameters_say_so() {
    let mut world = World::new();
    let skip = CableParams {
        skip_when_hidden: true,
        ..CableParams::default()
    };
    let rope = world.spawn(hanging(2.0, 8, skip));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let h = world.get::<&CableBody>(rope).unwrap().handle;
    // Give it a swing, hide it: it freezes.
    cables
        .pool_mut()
        .set_velocity(h, Vec3::X, 1.0 / 60.0)
        .unwrap();
    world.insert_one(rope, CableHidden).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(!cables.pool().is_visible(h).unwrap());
    let frozen = cables.pool().positions(h).unwrap().to_vec();
    for _ in 0..10 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    assert_eq!(cables.pool().positions(h).unwrap(), &frozen[..]);
    // Shown again, it swings on.
    world.remove_one::<CableHidden>(rope).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(cables.pool().is_visible(h).unwrap());
    assert_ne!(cables.pool().positions(h).unwrap(), &frozen[..]);
}

#[test]
fn a_tearing_rope_is_reported_by_entity_and_segment() {
    let mut world = World::new();
    let weak = CableParams {
        break_tension: Some(5.0),
        ..CableParams::default()
    };
    // 21 particles of 1 kg: the top segment carries ~196 N.
    let rope = world.spawn(hanging(2.0, 20, weak));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    let mut torn = Vec::new();
    for _ in 0..30 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
        torn.extend_from_slice(&cables.report().torn);
    }
    assert!(!torn.is_empty(), "nothing tore");
    assert!(torn.iter().all(|&(e, s)| e == rope && s < 20), "{torn:?}");
    // Reported once each.
    let mut segs: Vec<_> = torn.iter().map(|&(_, s)| s).collect();
    segs.sort_unstable();
    segs.dedup();
    assert_eq!(segs.len(), torn.len());
}

#[test]
fn world_parameters_change_at_run_time() {
    let mut world = World::new();
    let mut d = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4).unwrap();
    d.attach_start = false;
    d.attach_end = false;
    let rope = world.spawn((CableSpec::new(d),));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    let zero_g = SolverParams {
        gravity: Vec3::ZERO,
        ..*cables.stepper().params()
    };
    cables.set_params(zero_g).unwrap();
    for _ in 0..30 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let h = world.get::<&CableBody>(rope).unwrap().handle;
    assert_eq!(cables.pool().positions(h).unwrap()[0], Vec3::ZERO);
    let bad = SolverParams {
        iterations: 0,
        ..zero_g
    };
    assert!(cables.set_params(bad).is_err());
    assert_eq!(cables.stepper().params().iterations, zero_g.iterations);
}

#[test]
fn contacts_are_reported_by_entity_when_they_begin_and_end() {
    use cable_core::Collider;
    use cable_systems::ecs::{ColliderSpec, Transform};
    use cable_systems::events::ContactKind;

    let mut world = World::new();
    // A ball beside the hanging rope, overlapping it by 3 cm: touching
    // from the first step; then the ball moves 1 m away.
    let ball = world.spawn((
        ColliderSpec(Collider::sphere(Vec3::ZERO, 0.3).unwrap()),
        Transform::from_translation(Vec3::new(0.32, -1.0, 0.0)),
    ));
    let rope = world.spawn(hanging(2.0, 20, CableParams::default()));
    let mut cables = CableWorld::new(SolverParams {
        damping: 2.0,
        ..SolverParams::default()
    })
    .unwrap();
    cables.set_track_contacts(true);
    let mut seen = Vec::new();
    for frame in 0..120 {
        if frame == 60 {
            *world.get::<&mut Transform>(ball).unwrap() =
                Transform::from_translation(Vec3::new(1.5, -1.0, 0.0));
        }
        cables.step(&mut world, 1.0 / 60.0).unwrap();
        seen.extend(cables.report().contacts.iter().map(|&c| (frame, c)));
    }
    // The overlap kicks the rope away; it swings back onto the ball and
    // rests against it until the ball goes: began and ended in turn, the
    // first at once, the last when the ball left.
    assert!(
        seen.iter()
            .all(|(_, c)| c.cable == rope && c.collider == ball),
        "{seen:?}"
    );
    let kinds: Vec<_> = seen.iter().map(|(_, c)| c.kind).collect();
    assert!(
        kinds.len() >= 2
            && kinds
                .chunks(2)
                .all(|k| k == [ContactKind::Began, ContactKind::Ended]),
        "{seen:?}"
    );
    assert_eq!(seen.first().map(|s| s.0), Some(0), "{seen:?}");
    assert_eq!(seen.last().map(|s| s.0), Some(60), "{seen:?}");
}
