//! The hecs integration: spawning, despawning, attachments to moving and
//! despawned entities, and equality with the pool-only path.
#![cfg(feature = "hecs")]

use cable_core::{CableDesc, End, ParticlePool};
use cable_systems::ecs::{
    AttachTarget, CableAttachments, CableBody, CableParticles, CableRejected, CableSpec,
    CableWorld, Transform,
};
use cable_systems::{SolverParams, Stepper};
use cable_testkit::Rng;
use glam::{Quat, Vec3};
use hecs::World;

fn tagged(id: u32) -> CableDesc {
    let pts: Vec<Vec3> = (0..4)
        .map(|k| Vec3::new(id as f32, k as f32, 0.0))
        .collect();
    let mut d = CableDesc::from_points(&pts).unwrap();
    d.attach_end = false;
    d
}

#[test]
fn ten_thousand_cable_entities_spawned_and_despawned_in_random_order() {
    let mut world = World::new();
    let mut cables = CableWorld::new(SolverParams {
        gravity: Vec3::ZERO,
        ..SolverParams::default()
    })
    .unwrap();
    let mut rng = Rng::new(0x1234_5678);
    let mut live = Vec::new();
    let mut next = 0u32;
    while next < 10_000 {
        for _ in 0..rng.int(0, 300) {
            if next < 10_000 {
                live.push((
                    world.spawn((CableSpec::new(tagged(next)), CableParticles::default())),
                    next,
                ));
                next += 1;
            }
        }
        for _ in 0..rng.int(0, 200) {
            if !live.is_empty() {
                let i = rng.index(live.len());
                let (e, _) = live.swap_remove(i);
                world.despawn(e).unwrap();
            }
        }
        cables.step(&mut world, 1.0 / 60.0).unwrap();
        assert_eq!(cables.pool().cable_count(), live.len());
    }
    for &(e, id) in &live {
        let p = world.get::<&CableParticles>(e).unwrap();
        assert_eq!(p.positions.len(), 4);
        assert!(
            p.positions.iter().all(|p| p.x == id as f32),
            "entity of cable {id} got foreign particles"
        );
        let body = world.get::<&CableBody>(e).unwrap();
        assert_eq!(
            cables.pool().positions(body.handle).unwrap(),
            p.positions.as_slice()
        );
    }
    // Removing the spec frees the cable (and drops the body); removing only
    // the body rebuilds the cable from its spec.
    let (e, _) = live[0];
    world.remove_one::<CableSpec>(e).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert_eq!(cables.pool().cable_count(), live.len() - 1);
    assert!(world.get::<&CableBody>(e).is_err());
    let (e, _) = live[1];
    let old = *world.get::<&CableBody>(e).unwrap();
    world.remove_one::<CableBody>(e).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert_eq!(cables.pool().cable_count(), live.len() - 1);
    assert!(!cables.pool().contains(old.handle));
    assert!(
        cables
            .pool()
            .contains(world.get::<&CableBody>(e).unwrap().handle)
    );
}

#[test]
fn end_follows_a_moving_rotating_entity_and_keeps_its_velocity_when_detached() {
    let mut world = World::new();
    let hand = world.spawn((Transform::default(),));
    let offset = Vec3::new(0.0, -0.5, 0.0);
    let rope = world.spawn((
        CableSpec::new(CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0), 2.0, 8).unwrap()),
        CableAttachments {
            start: AttachTarget::Entity {
                entity: hand,
                offset,
            },
            end: AttachTarget::Free,
        },
        CableParticles::default(),
    ));
    let h = 1.0f32 / 240.0;
    let mut cables = CableWorld::new(SolverParams {
        substep: h,
        gravity: Vec3::ZERO,
        ..SolverParams::default()
    })
    .unwrap();
    let speed = Vec3::new(2.0, 0.0, 0.0);
    for frame in 1..=120 {
        let t = frame as f32 / 60.0;
        {
            let mut tf = world.get::<&mut Transform>(hand).unwrap();
            tf.translation = speed * t;
            tf.rotation = Quat::from_rotation_z(0.2 * t);
        }
        assert_eq!(cables.step(&mut world, 1.0 / 60.0).unwrap(), 4);
        let expected = world
            .get::<&Transform>(hand)
            .unwrap()
            .transform_point(offset);
        let p = world.get::<&CableParticles>(rope).unwrap().positions[0];
        assert!(
            p.distance(expected) < 1e-5,
            "frame {frame}: end at {p}, target {expected}"
        );
    }
    // Stop rotating (so the target moves at `speed` exactly), then detach.
    let rot = world.get::<&Transform>(hand).unwrap().rotation;
    for frame in 121..=180 {
        world.get::<&mut Transform>(hand).unwrap().translation = speed * (frame as f32 / 60.0);
        world.get::<&mut Transform>(hand).unwrap().rotation = rot;
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    world.get::<&mut CableAttachments>(rope).unwrap().start = AttachTarget::Free;
    let body = *world.get::<&CableBody>(rope).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    let pool = cables.pool();
    assert_eq!(pool.inv_masses(body.handle).unwrap()[0], 1.0);
    let v = (pool.positions(body.handle).unwrap()[0]
        - pool.prev_positions(body.handle).unwrap()[0])
        / h;
    assert!(
        v.distance(speed) < 0.05 * speed.length(),
        "detached end moves at {v}, hand moved at {speed}"
    );
}

#[test]
fn despawned_target_frees_the_end_without_panicking() {
    let mut world = World::new();
    let lamp_post = world.spawn((Transform::from_translation(Vec3::new(0.0, 3.0, 0.0)),));
    let rope = world.spawn((
        CableSpec::new(
            CableDesc::line(Vec3::new(0.0, 3.0, 0.0), Vec3::new(2.0, 3.0, 0.0), 2.0, 8).unwrap(),
        ),
        CableAttachments {
            start: AttachTarget::Point(Vec3::new(0.0, 3.0, 0.0)),
            end: AttachTarget::Entity {
                entity: lamp_post,
                offset: Vec3::new(2.0, 0.0, 0.0),
            },
        },
        CableParticles::default(),
    ));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    for _ in 0..10 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    assert_eq!(
        world.get::<&CableParticles>(rope).unwrap().positions[8],
        Vec3::new(2.0, 3.0, 0.0)
    );
    world.despawn(lamp_post).unwrap();
    for _ in 0..30 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    assert_eq!(
        world.get::<&CableAttachments>(rope).unwrap().end,
        AttachTarget::Free
    );
    let end = world.get::<&CableParticles>(rope).unwrap().positions[8];
    assert!(end.y < 2.9, "the freed end falls: {end}");
    let body = *world.get::<&CableBody>(rope).unwrap();
    assert_eq!(
        cables.pool().attachment(body.handle, End::End).unwrap(),
        None
    );
}

#[test]
fn ecs_path_and_pool_path_give_identical_positions() {
    // Three cables, one following a moving crane hook; the pool-only path
    // interpolates the hook across substeps as the ECS layer documents.
    let descs: Vec<CableDesc> = (0..3)
        .map(|i| {
            let x = i as f32 * 3.0;
            let mut d = CableDesc::line(
                Vec3::new(x, 5.0, 0.0),
                Vec3::new(x + 2.0, 5.0, 0.0),
                3.0,
                12,
            )
            .unwrap();
            d.params.stiffness = i == 1;
            d
        })
        .collect();
    let params = SolverParams {
        substep: 1.0 / 120.0,
        damping: 0.3,
        ..SolverParams::default()
    };
    let hook_at =
        |frame: u32| Vec3::new(frame as f32 * 0.03, 5.0 + (frame as f32 * 0.1).sin(), 0.0);

    let mut world = World::new();
    let hook = world.spawn((Transform::from_translation(hook_at(0)),));
    let ents: Vec<_> = descs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            if i == 2 {
                let start = d.points()[0];
                world.spawn((
                    CableSpec::new(d.clone()),
                    CableAttachments {
                        start: AttachTarget::Point(start),
                        end: AttachTarget::Entity {
                            entity: hook,
                            offset: Vec3::ZERO,
                        },
                    },
                    CableParticles::default(),
                ))
            } else {
                world.spawn((CableSpec::new(d.clone()), CableParticles::default()))
            }
        })
        .collect();
    let mut cables = CableWorld::new(params).unwrap();

    let mut pool = ParticlePool::new();
    let handles: Vec<_> = descs.iter().map(|d| pool.add_cable(d).unwrap()).collect();
    let mut stepper = Stepper::new(params).unwrap();
    let mut hook_prev: Option<Vec3> = None;

    for frame in 0..120 {
        world.get::<&mut Transform>(hook).unwrap().translation = hook_at(frame);
        cables.step(&mut world, 1.0 / 60.0).unwrap();

        let to = hook_at(frame);
        match hook_prev {
            None => pool.set_attachment(handles[2], End::End, Some(to)).unwrap(),
            Some(from) => {
                stepper
                    .advance_with(&mut pool, 1.0 / 60.0, |pool, k, n| {
                        let t = (k + 1) as f32 / n as f32;
                        pool.set_attachment(handles[2], End::End, Some(from.lerp(to, t)))
                            .unwrap();
                    })
                    .unwrap();
            }
        }
        if hook_prev.is_none() {
            stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
        }
        hook_prev = Some(to);
        for (e, h) in ents.iter().zip(&handles) {
            let a = &world.get::<&CableParticles>(*e).unwrap().positions;
            let b = pool.positions(*h).unwrap();
            let same = a
                .iter()
                .zip(b)
                .all(|(a, b)| a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits));
            assert!(same, "frame {frame}: ECS and pool paths differ");
        }
    }
}

#[test]
fn refused_spec_is_marked_not_retried_and_does_not_panic() {
    let mut world = World::new();
    let mut desc = tagged(0);
    desc.params.radius = -1.0;
    let bad = world.spawn((CableSpec::new(desc),));
    let heavy_nan = world.spawn((CableSpec::new(tagged(1)).with_mass(3, f32::NAN),));
    let out_of_range = world.spawn((CableSpec::new(tagged(2)).with_mass(99, 1.0),));
    let good = world.spawn((CableSpec::new(tagged(3)).with_mass(3, 50.0),));
    let mut cables = CableWorld::new(SolverParams::default()).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    for e in [bad, heavy_nan, out_of_range] {
        assert!(world.get::<&CableRejected>(e).is_ok());
        assert!(world.get::<&CableBody>(e).is_err());
    }
    assert_eq!(cables.pool().cable_count(), 1);
    let body = *world.get::<&CableBody>(good).unwrap();
    assert_eq!(
        cables.pool().inv_masses(body.handle).unwrap()[3],
        1.0 / 50.0
    );
    assert!(cables.step(&mut world, f32::NAN).is_err());
}

#[test]
fn collider_entities_are_synced_posed_and_freed() {
    use cable_core::Collider;
    use cable_systems::ecs::{ColliderBody, ColliderSpec};

    let mut world = World::new();
    // A ball entity, posed by its transform (the collider's own centre is replaced).
    let ball = world.spawn((
        ColliderSpec(Collider::sphere(Vec3::ZERO, 0.5).unwrap()),
        Transform::from_translation(Vec3::new(0.0, -1.0, 0.0)),
    ));
    let mut desc =
        CableDesc::line(Vec3::new(-1.5, 0.0, 0.0), Vec3::new(1.5, 0.0, 0.0), 3.0, 30).unwrap();
    desc.attach_start = false;
    desc.attach_end = false;
    let rope = world.spawn((CableSpec::new(desc), CableParticles::default()));
    let mut cables = CableWorld::new(SolverParams {
        damping: 1.0,
        ..SolverParams::default()
    })
    .unwrap();
    for _ in 0..120 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let body = *world.get::<&ColliderBody>(ball).unwrap();
    let centre = cables
        .pool()
        .colliders()
        .get(body.handle)
        .unwrap()
        .position();
    assert_eq!(centre, Vec3::new(0.0, -1.0, 0.0));
    // The rope drapes over the ball: nothing inside it, and it did not fall past.
    let pos = world
        .get::<&CableParticles>(rope)
        .unwrap()
        .positions
        .clone();
    for p in &pos {
        assert!(
            p.distance(centre) >= 0.5 + 0.05 - 1e-3,
            "particle {p} inside the ball"
        );
    }
    assert!(
        pos[15].y > -1.0,
        "the middle rests on top of the ball: {}",
        pos[15]
    );
    // Moving the entity moves the collider.
    world.get::<&mut Transform>(ball).unwrap().translation = Vec3::new(0.0, -1.2, 0.0);
    cables.step(&mut world, 1.0 / 60.0).unwrap();
    assert_eq!(
        cables
            .pool()
            .colliders()
            .get(body.handle)
            .unwrap()
            .position(),
        Vec3::new(0.0, -1.2, 0.0)
    );
    // Despawning it frees the collider; the rope then falls.
    world.despawn(ball).unwrap();
    for _ in 0..60 {
        cables.step(&mut world, 1.0 / 60.0).unwrap();
    }
    assert!(cables.pool().colliders().is_empty());
    assert!(world.get::<&CableParticles>(rope).unwrap().positions[15].y < -2.0);
}
