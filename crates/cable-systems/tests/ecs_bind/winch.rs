//! Winch orders (`bind::apply_controls`): an order the pool refuses is
//! reported once, and the order the winch runs is still finished when done.

use cable_core::CableDesc;
use cable_systems::SolverParams;
use cable_systems::ecs::{
    AttachTarget, CableAttachments, CableBody, CableSpec, CableWinch, CableWorld,
};
use glam::Vec3;
use hecs::{Entity, World};

/// A 2 m rope of 8 segments hanging from the origin, its end free.
fn hanging() -> (CableSpec, CableAttachments) {
    let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0), 2.0, 8).expect("valid line");
    d.attach_end = false;
    (
        CableSpec::new(d),
        CableAttachments {
            start: AttachTarget::Point(Vec3::ZERO),
            end: AttachTarget::Free,
        },
    )
}

fn handle(world: &World, e: Entity) -> cable_core::CableHandle {
    world.get::<&CableBody>(e).expect("spawned").handle
}

#[test]
fn a_refused_order_is_reported_once_and_the_running_order_still_finishes() {
    let mut world = World::new();
    let nan = world.spawn(hanging());
    let still = world.spawn(hanging());
    let mut cables = CableWorld::new(SolverParams::default()).expect("valid params");
    cables.step(&mut world, 1.0 / 60.0).expect("steps");
    let reel = CableWinch {
        target_length: 1.5,
        speed: 1.0,
    };
    world.insert_one(nan, reel).expect("live");
    world.insert_one(still, reel).expect("live");
    for _ in 0..10 {
        cables.step(&mut world, 1.0 / 60.0).expect("steps");
    }
    assert!(cables.report().bad_winches.is_empty());
    // Refused orders while the first one still reels: a NaN (never equal to
    // itself) and a speed of 0.
    let refused = |target_length, speed| CableWinch {
        target_length,
        speed,
    };
    world.insert_one(nan, refused(f32::NAN, 1.0)).expect("live");
    world.insert_one(still, refused(1.0, 0.0)).expect("live");
    let mut reports = Vec::new();
    for _ in 0..120 {
        cables.step(&mut world, 1.0 / 60.0).expect("steps");
        reports.extend(cables.report().bad_winches.iter().map(|(e, _)| *e));
    }
    assert_eq!(
        reports,
        vec![nan, still],
        "each refused order reported once"
    );
    for rope in [nan, still] {
        let h = handle(&world, rope);
        let length: f32 = cables.pool().rest_lengths(h).expect("live").iter().sum();
        assert!(
            (length - 1.5).abs() < 1e-3,
            "the running order reels on: {length}"
        );
        assert!(
            !cables.pool().winch_turns(h).expect("live"),
            "the running order, done, is stopped"
        );
    }
}
