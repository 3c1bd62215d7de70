//! Issue 13, hostile input through the hecs layer (cases 13 and 14 of the
//! issue's table): a bad attachment target or collider transform keeps the
//! last good one and is reported; a cable or collider removed from the pool
//! behind the ECS's back is rebuilt and reported; a spec the stepper would
//! refuse is rejected at spawn. Each case pinned by a test named after it.
#![cfg(feature = "hecs")]

use cable_core::{CableDesc, CableError, Collider, End, ParticlePool};
use cable_systems::SolverParams;
use cable_systems::ecs::{
    AttachTarget, BadBody, CableAttachments, CableBody, CableParticles, CableRejected, CableSpec,
    CableWorld, ColliderBody, ColliderSpec, Transform,
};
use glam::{Quat, Vec3};
use hecs::{Entity, World};

fn field_of(e: &CableError) -> &'static str {
    match e {
        CableError::NotFinite { field, .. } | CableError::OutOfRange { field, .. } => field,
        other => panic!("expected an error naming a field, got {other:?}"),
    }
}

// ---- case 13: bad attachment targets keep the last good one, reported ----

/// A rope hanging from `hand` (start, at the origin, with `offset`), its
/// end free, stepped once so the start is attached.
fn rope_on_hand(offset: Vec3) -> (World, CableWorld, Entity, Entity) {
    let mut world = World::new();
    let hand = world.spawn((Transform::from_translation(Vec3::ZERO),));
    let rope = world.spawn((
        CableSpec::new(
            CableDesc::line(offset, offset + Vec3::new(0.0, -2.0, 0.0), 2.0, 8).unwrap(),
        ),
        CableAttachments {
            start: AttachTarget::Entity {
                entity: hand,
                offset,
            },
            end: AttachTarget::Free,
        },
        CableParticles::default(),
    ));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(cables.report().is_empty());
    (world, cables, hand, rope)
}

fn start_of(world: &World, rope: Entity) -> Vec3 {
    world.get::<&CableParticles>(rope).unwrap().positions[0]
}

fn start_attachment(world: &World, cables: &CableWorld, rope: Entity) -> Option<Vec3> {
    let body = *world.get::<&CableBody>(rope).unwrap();
    cables.pool().attachment(body.handle, End::Start).unwrap()
}

#[test]
fn nan_target_transform_keeps_the_last_good_target_and_is_reported() {
    let (mut world, mut cables, hand, rope) = rope_on_hand(Vec3::ZERO);
    world.get::<&mut Transform>(hand).unwrap().translation = Vec3::new(0.5, 0.0, 0.0);
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let good = Vec3::new(0.5, 0.0, 0.0);
    assert_eq!(start_of(&world, rope), good);
    world.get::<&mut Transform>(hand).unwrap().translation = Vec3::new(f32::NAN, 0.0, 0.0);
    for _ in 0..30 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
        let report = cables.report();
        assert_eq!(report.bad_targets.len(), 1);
        let bad = &report.bad_targets[0];
        assert_eq!(
            (bad.entity, bad.end, bad.target),
            (rope, End::Start, Some(hand))
        );
        assert_eq!(field_of(&bad.error), "transform.translation");
        // Attached where it was: no fall, no snap back later.
        assert_eq!(start_of(&world, rope), good);
        assert_eq!(start_attachment(&world, &cables, rope), Some(good));
    }
    assert!(cables.pool().all_finite());
    // The attachment component is left as the game wrote it.
    assert!(matches!(
        world.get::<&CableAttachments>(rope).unwrap().start,
        AttachTarget::Entity { .. }
    ));
}

#[test]
fn nan_attach_point_keeps_the_last_good_target_and_is_reported() {
    let (mut world, mut cables, _, rope) = rope_on_hand(Vec3::ZERO);
    world.get::<&mut CableAttachments>(rope).unwrap().start =
        AttachTarget::Point(Vec3::new(0.0, 1.0, 0.0));
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let good = Vec3::new(0.0, 1.0, 0.0);
    assert_eq!(start_of(&world, rope), good);
    for bad in [
        Vec3::new(0.0, f32::NAN, 0.0),
        Vec3::splat(f32::INFINITY),
        Vec3::new(2.0e6, 0.0, 0.0),
    ] {
        world.get::<&mut CableAttachments>(rope).unwrap().start = AttachTarget::Point(bad);
        cables.step(&mut world, 1.0 / 60.0).unwrap();
        let report = cables.report();
        assert_eq!(report.bad_targets.len(), 1, "{bad}");
        assert_eq!(report.bad_targets[0].target, None);
        assert_eq!(field_of(&report.bad_targets[0].error), "point");
        assert_eq!(start_of(&world, rope), good, "{bad}");
    }
}

#[test]
fn zero_quaternion_target_keeps_the_last_good_target_and_offset_and_is_reported() {
    let offset = Vec3::new(0.0, 0.0, 0.5);
    let (mut world, mut cables, hand, rope) = rope_on_hand(offset);
    assert_eq!(start_of(&world, rope), offset);
    for q in [
        Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
        Quat::from_xyzw(0.0, 0.0, 0.0, 2.0),
    ] {
        world.get::<&mut Transform>(hand).unwrap().rotation = q;
        cables.step(&mut world, 1.0 / 60.0).unwrap();
        let report = cables.report();
        assert_eq!(report.bad_targets.len(), 1, "{q}");
        assert_eq!(field_of(&report.bad_targets[0].error), "transform.rotation");
        // The offset did not silently vanish.
        assert_eq!(start_of(&world, rope), offset, "{q}");
    }
    // A nearly unit rotation (accumulated rounding) is accepted, normalised.
    let turn = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    world.get::<&mut Transform>(hand).unwrap().rotation = turn * 1.0005;
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(cables.report().is_empty());
    assert!(start_of(&world, rope).distance(turn * offset) < 1e-5);
}

#[test]
fn bad_target_offset_or_result_out_of_range_is_reported() {
    let (mut world, mut cables, hand, rope) = rope_on_hand(Vec3::ZERO);
    world.get::<&mut CableAttachments>(rope).unwrap().start = AttachTarget::Entity {
        entity: hand,
        offset: Vec3::new(f32::NAN, 0.0, 0.0),
    };
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert_eq!(field_of(&cables.report().bad_targets[0].error), "offset");
    // Each finite, the sum beyond ±1e6.
    world.get::<&mut Transform>(hand).unwrap().translation = Vec3::new(9.0e5, 0.0, 0.0);
    world.get::<&mut CableAttachments>(rope).unwrap().start = AttachTarget::Entity {
        entity: hand,
        offset: Vec3::new(2.0e5, 0.0, 0.0),
    };
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert_eq!(field_of(&cables.report().bad_targets[0].error), "target");
    assert_eq!(start_of(&world, rope), Vec3::ZERO);
}

#[test]
fn target_that_becomes_good_again_is_followed_and_the_report_empties() {
    let (mut world, mut cables, hand, rope) = rope_on_hand(Vec3::ZERO);
    world.get::<&mut Transform>(hand).unwrap().translation = Vec3::splat(f32::NAN);
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(!cables.report().is_empty());
    world.get::<&mut Transform>(hand).unwrap().translation = Vec3::new(0.25, 0.0, 0.0);
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(cables.report().is_empty());
    assert_eq!(start_of(&world, rope), Vec3::new(0.25, 0.0, 0.0));
}

#[test]
fn bad_target_before_any_good_one_leaves_the_end_as_described() {
    let mut world = World::new();
    let hand = world.spawn((Transform::from_translation(Vec3::splat(f32::NAN)),));
    let rope = world.spawn((
        CableSpec::new(CableDesc::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.0, 8).unwrap()),
        CableAttachments {
            start: AttachTarget::Entity {
                entity: hand,
                offset: Vec3::ZERO,
            },
            end: AttachTarget::Point(Vec3::new(2.0, 0.0, 0.0)),
        },
        CableParticles::default(),
    ));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    for _ in 0..10 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
        assert_eq!(cables.report().bad_targets.len(), 1);
    }
    // The description pinned the start where it began; it stays pinned.
    assert_eq!(start_of(&world, rope), Vec3::ZERO);
    assert_eq!(start_attachment(&world, &cables, rope), Some(Vec3::ZERO));
}

#[test]
fn nan_collider_transform_keeps_the_last_pose_and_is_reported() {
    let mut world = World::new();
    let ball = world.spawn((
        ColliderSpec(Collider::sphere(Vec3::ZERO, 0.5).unwrap()),
        Transform::from_translation(Vec3::new(0.0, -1.0, 0.0)),
    ));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(cables.report().is_empty());
    world.get::<&mut Transform>(ball).unwrap().rotation = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let report = cables.report();
    assert_eq!(report.bad_poses.len(), 1);
    assert_eq!(report.bad_poses[0].0, ball);
    assert_eq!(field_of(&report.bad_poses[0].1), "rotation");
    let body = *world.get::<&ColliderBody>(ball).unwrap();
    let c = cables.pool().colliders().get(body.handle).unwrap();
    assert_eq!(c.position(), Vec3::new(0.0, -1.0, 0.0));
}

// ---- case 14: a cable or collider removed behind the ECS's back ----

#[test]
fn cable_removed_behind_the_ecs_is_rebuilt_from_its_spec_and_reported() {
    let mut world = World::new();
    let desc = CableDesc::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.5, 8).unwrap();
    let rope = world.spawn((
        CableSpec::new(desc.clone()),
        CableAttachments {
            start: AttachTarget::Point(Vec3::ZERO),
            end: AttachTarget::Free,
        },
        CableParticles::default(),
    ));
    let other = world.spawn((CableSpec::new(desc.clone()), CableParticles::default()));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    for _ in 0..30 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let old = world.get::<&CableBody>(rope).unwrap().handle;
    let kept = world.get::<&CableBody>(other).unwrap().handle;
    cables.pool_mut().remove_cable(old).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert_eq!(cables.report().lost_cables, vec![rope]);
    // A live body again, naming a new cable built from the spec this step.
    let new = world.get::<&CableBody>(rope).unwrap().handle;
    assert_ne!(new, old);
    assert!(cables.pool().contains(new));
    assert_eq!(cables.pool().cable_count(), 2);
    assert_eq!(world.get::<&CableBody>(other).unwrap().handle, kept);
    let pos = world
        .get::<&CableParticles>(rope)
        .unwrap()
        .positions
        .clone();
    assert_eq!(pos.len(), desc.particle_count());
    assert_eq!(pos[0], Vec3::ZERO, "the start is attached again");
    // Then it is tracked as any other: the report empties, despawn frees it.
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(cables.report().is_empty());
    world.despawn(rope).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(!cables.pool().contains(new));
    assert_eq!(cables.pool().cable_count(), 1);
}

#[test]
fn cable_removed_behind_the_ecs_of_an_entity_without_its_spec_is_just_forgotten() {
    let mut world = World::new();
    let rope = world.spawn((CableSpec::new(
        CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4).unwrap(),
    ),));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let h = world.get::<&CableBody>(rope).unwrap().handle;
    cables.pool_mut().remove_cable(h).unwrap();
    world.remove_one::<CableSpec>(rope).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(cables.report().is_empty());
    assert!(world.get::<&CableBody>(rope).is_err(), "no dead body left");
    assert!(cables.pool().is_empty());
}

#[test]
fn collider_removed_behind_the_ecs_is_added_again_and_reported() {
    let mut world = World::new();
    let ball = world.spawn((
        ColliderSpec(Collider::sphere(Vec3::ZERO, 0.5).unwrap()),
        Transform::from_translation(Vec3::new(0.0, -1.0, 0.0)),
    ));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let old = world.get::<&ColliderBody>(ball).unwrap().handle;
    cables.pool_mut().colliders_mut().remove(old).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert_eq!(cables.report().lost_colliders, vec![ball]);
    let new = world.get::<&ColliderBody>(ball).unwrap().handle;
    assert_ne!(new, old);
    let c = cables.pool().colliders().get(new).unwrap();
    assert_eq!(
        c.position(),
        Vec3::new(0.0, -1.0, 0.0),
        "posed from its transform"
    );
    assert_eq!(cables.pool().colliders().len(), 1);
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(cables.report().is_empty());
}

#[test]
fn replaced_pool_rebuilds_every_tracked_cable_and_collider() {
    let mut world = World::new();
    let ropes: Vec<Entity> = (0..3)
        .map(|i| {
            let x = i as f32;
            world.spawn((
                CableSpec::new(
                    CableDesc::line(Vec3::new(x, 0.0, 0.0), Vec3::new(x, -1.0, 0.0), 1.0, 4)
                        .unwrap(),
                ),
                CableParticles::default(),
            ))
        })
        .collect();
    let ball = world.spawn((ColliderSpec(
        Collider::sphere(Vec3::new(0.0, -3.0, 0.0), 0.5).unwrap(),
    ),));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    // A handle of the old pool names nothing in the new one, even in the same slot.
    *cables.pool_mut() = ParticlePool::new();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let mut lost = cables.report().lost_cables.clone();
    lost.sort();
    let mut expected = ropes.clone();
    expected.sort();
    assert_eq!(lost, expected);
    assert_eq!(cables.report().lost_colliders, vec![ball]);
    assert_eq!(cables.pool().cable_count(), 3);
    for e in ropes {
        let h = world.get::<&CableBody>(e).unwrap().handle;
        assert_eq!(h.pool_id(), cables.pool().id());
    }
}

#[test]
fn spec_whose_compliance_overflows_at_the_substep_is_rejected_not_stepped() {
    let mut world = World::new();
    let mut desc = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4).unwrap();
    desc.params.compliance = 1.0e30;
    let bad = world.spawn((CableSpec::new(desc),));
    let good = world.spawn((
        CableSpec::new(CableDesc::line(Vec3::Y, Vec3::ONE, 1.0, 4).unwrap()),
        CableParticles::default(),
    ));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    for _ in 0..3 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let rejected = world.get::<&CableRejected>(bad).unwrap();
    assert_eq!(field_of(&rejected.0), "compliance");
    assert!(world.get::<&CableBody>(good).is_ok());
    assert_eq!(cables.pool().cable_count(), 1);
    assert_eq!(cables.stepper().substeps_run(), 3);
}

// ---- issue 38, N8: a body naming no cable of its entity's ----

/// A rope spec 2 m long, hanging from its start.
fn rope_spec(x: f32) -> CableSpec {
    CableSpec::new(
        CableDesc::line(Vec3::new(x, 0.0, 0.0), Vec3::new(x, -2.0, 0.0), 2.0, 8).unwrap(),
    )
}

/// Issue 38 N8: an entity whose `CableBody` names another pool's cable
/// (copied from another `CableWorld`) was skipped silently, left with no
/// cable. Now the step reports it (`bad_bodies`, `BadBody::ForeignPool`)
/// and gives the entity a cable of its own from its spec, in that same
/// step: attached where its attachments say, its particles written back.
#[test]
fn body_naming_another_worlds_cable_is_reported_and_replaced_by_a_cable_of_this_world() {
    let mut other_world = World::new();
    let donor = other_world.spawn((rope_spec(5.0),));
    let mut other = CableWorld::new(SolverParams::default()).unwrap();
    other.step(&mut other_world, 1.0 / 60.0).unwrap();
    let foreign = *other_world.get::<&CableBody>(donor).unwrap();

    let mut world = World::new();
    let hand = Vec3::new(1.0, 2.0, 3.0);
    let e = world.spawn((
        rope_spec(0.0),
        foreign,
        CableAttachments {
            start: AttachTarget::Point(hand),
            end: AttachTarget::Free,
        },
        CableParticles::default(),
    ));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let report = cables.report().clone();
    assert_eq!(report.bad_bodies.len(), 1, "{report:?}");
    let (who, why) = report.bad_bodies[0];
    assert_eq!(who, e);
    assert_eq!(
        why,
        BadBody::ForeignPool {
            handle: foreign.handle,
            pool: other.pool().id(),
            ours: cables.pool().id(),
        }
    );
    assert!(
        why.to_string().contains("not of this world's pool"),
        "{why}"
    );
    assert!(!report.is_empty());
    // A cable of this world now, stepped and attached this frame.
    let body = *world.get::<&CableBody>(e).unwrap();
    assert_ne!(body, foreign);
    assert!(cables.pool().contains(body.handle));
    assert_eq!(cables.pool().cable_count(), 1);
    assert_eq!(cables.pool().positions(body.handle).unwrap()[0], hand);
    assert_eq!(world.get::<&CableParticles>(e).unwrap().positions.len(), 9);
    // The next step finds all well.
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(cables.report().is_empty(), "{:?}", cables.report());
}

/// Issue 38 N8: a body copied from one entity to another (the second then
/// names the first's cable) and a body naming a cable added to the pool
/// directly (no entity's) are reported too, each entity getting its own.
#[test]
fn body_naming_another_entitys_cable_or_an_untracked_one_is_reported_and_replaced() {
    let mut world = World::new();
    let first = world.spawn((rope_spec(0.0),));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let body = *world.get::<&CableBody>(first).unwrap();
    let copy = world.spawn((rope_spec(1.0), body));
    let loose = cables
        .pool_mut()
        .add_cable(&CableDesc::line(Vec3::Z, Vec3::ONE, 2.0, 4).unwrap())
        .unwrap();
    let adopter = world.spawn((rope_spec(2.0), CableBody { handle: loose }));
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let mut bad = cables.report().bad_bodies.clone();
    bad.sort_by_key(|(e, _)| *e);
    assert_eq!(
        bad,
        [
            (
                copy,
                BadBody::Claimed {
                    handle: body.handle,
                    owner: first,
                }
            ),
            (adopter, BadBody::NotTracked { handle: loose }),
        ]
    );
    // The first keeps its cable; the others have cables of their own.
    assert_eq!(*world.get::<&CableBody>(first).unwrap(), body);
    let (a, b) = (
        world.get::<&CableBody>(copy).unwrap().handle,
        world.get::<&CableBody>(adopter).unwrap().handle,
    );
    assert!(a != body.handle && b != body.handle && a != b && b != loose);
    assert!(cables.pool().contains(a) && cables.pool().contains(b));
    assert_eq!(
        cables.pool().positions(a).unwrap()[0],
        Vec3::new(1.0, 0.0, 0.0)
    );
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert!(cables.report().is_empty(), "{:?}", cables.report());
}

/// Issue 38 N2 through the hecs layer: a winch stopped at the particle
/// budget is news in the report, not a failed step (the frame ran).
#[test]
fn winch_stopped_at_the_particle_budget_is_reported_not_an_error() {
    let mut world = World::new();
    let rope = world.spawn((
        rope_spec(0.0),
        cable_systems::ecs::CableWinch {
            target_length: 1.0e7,
            speed: 1.0e4,
        },
    ));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    // A small budget: 1e4 m/s over segments of 0.25 m wants 667
    // particles a substep, and 491 fit beside the rope's 9.
    let budget = 500;
    *cables.pool_mut() = ParticlePool::with_budget(budget);
    let n = cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert_eq!(n, 1);
    let report = cables.report();
    assert_eq!(report.stalled_winches.len(), 1, "{report:?}");
    let (who, e) = &report.stalled_winches[0];
    assert_eq!(*who, rope);
    assert!(
        matches!(e, CableError::WinchBudget { budget: b, .. } if *b == budget),
        "{e}"
    );
    assert_eq!(cables.pool().particle_count(), budget);
    assert_eq!(cables.stepper().substeps_run(), 1);
}
