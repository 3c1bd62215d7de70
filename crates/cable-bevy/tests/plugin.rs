//! The plugin in a headless Bevy app: cables follow moving entities,
//! colliders hold them up, despawning frees, tube meshes update in place.

mod common;

use bevy_app::prelude::*;
use bevy_asset::Assets;
use bevy_ecs::prelude::*;
use bevy_math::{Quat, Vec3};
use bevy_mesh::{Mesh, Mesh3d, VertexAttributeValues};
use bevy_transform::prelude::*;
use cable_bevy::{
    Cable, CableAnchor, CableAttachments, CableBody, CableCollider, CableColliderBody, CableNotice,
    CableParticles, CablePlugin, CableRejected, CableSimulation, CableTube,
};

/// A headless app stepping 1/60 s per update, one fixed step per update.
fn app() -> App {
    app_with(CablePlugin::default())
}

/// As [`app`], with this plugin.
fn app_with(plugin: CablePlugin) -> App {
    common::headless(plugin, common::step())
}

use common::positions as particles;

fn translation(app: &App, e: Entity) -> Vec3 {
    app.world()
        .get::<GlobalTransform>(e)
        .expect("has a transform")
        .translation()
}

#[test]
fn a_cable_attached_to_two_moving_entities_follows_them() {
    let mut app = app();
    let a0 = Vec3::new(0.0, 3.0, 0.0);
    let b0 = Vec3::new(4.0, 3.0, 0.0);
    let a = app.world_mut().spawn(Transform::from_translation(a0)).id();
    let b = app.world_mut().spawn(Transform::from_translation(b0)).id();
    // The end hangs 0.5 m below b in b's own frame, so b's rotation counts.
    let offset = Vec3::new(0.0, -0.5, 0.0);
    let rope = app
        .world_mut()
        .spawn((
            Cable::line(a0, b0 + offset, 5.0, 24).expect("valid cable"),
            CableAttachments {
                start: CableAnchor::Entity {
                    entity: a,
                    offset: Vec3::ZERO,
                },
                end: CableAnchor::Entity { entity: b, offset },
            },
        ))
        .id();
    // The first update starts the clocks; fixed steps run from the second.
    app.update();
    app.update();
    assert!(app.world().get::<CableBody>(rope).is_some());

    // Move both for a second: a on a circle, b along a line while turning.
    let mut max_lag = 0.0f32;
    for frame in 1..=60 {
        let t = frame as f32 / 60.0;
        let a_at = a0 + Vec3::new((t * 3.0).cos() - 1.0, (t * 3.0).sin(), 0.5 * t);
        let b_at = b0 + Vec3::new(1.5 * t, -t, -0.8 * t);
        let world = app.world_mut();
        world.get_mut::<Transform>(a).expect("a").translation = a_at;
        let mut tb = world.get_mut::<Transform>(b).expect("b");
        tb.translation = b_at;
        tb.rotation = Quat::from_rotation_z(t);
        app.update();
        // The ends follow within one frame of motion (GlobalTransform is
        // propagated at the end of the frame).
        let p = particles(&app, rope);
        max_lag = max_lag.max(p[0].distance(a_at));
        assert!(
            p[0].distance(a_at) < 0.1,
            "frame {frame}: {} vs {a_at}",
            p[0]
        );
    }
    assert!(max_lag > 0.0, "the start did move with a");

    // Once they stop, the ends sit exactly on the targets.
    app.update();
    app.update();
    let p = particles(&app, rope);
    let a_now = translation(&app, a);
    let tb = app.world().get::<GlobalTransform>(b).expect("b");
    let b_now = tb.translation() + tb.rotation() * offset;
    assert!(p[0].distance(a_now) < 1.0e-4, "{} vs {a_now}", p[0]);
    assert!(p[24].distance(b_now) < 1.0e-4, "{} vs {b_now}", p[24]);
    assert!(a_now.distance(a0) > 0.5 && b_now.distance(b0 + offset) > 1.0);
}

#[test]
fn despawning_a_target_frees_the_end_and_despawning_the_cable_frees_the_pool() {
    let mut app = app();
    let hook = app
        .world_mut()
        .spawn(Transform::from_xyz(2.0, 0.0, 0.0))
        .id();
    let rope = app
        .world_mut()
        .spawn((
            Cable::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.0, 8).expect("valid"),
            CableAttachments {
                start: CableAnchor::Point(Vec3::ZERO),
                end: CableAnchor::Entity {
                    entity: hook,
                    offset: Vec3::ZERO,
                },
            },
        ))
        .id();
    for _ in 0..10 {
        app.update();
    }
    assert!(particles(&app, rope)[8].distance(Vec3::new(2.0, 0.0, 0.0)) < 1.0e-5);
    app.world_mut().despawn(hook);
    for _ in 0..30 {
        app.update();
    }
    let p = particles(&app, rope);
    assert_eq!(p[0], Vec3::ZERO, "the start stays pinned");
    assert!(p[8].y < -0.5, "the freed end fell: {}", p[8]);

    assert_eq!(
        app.world()
            .resource::<CableSimulation>()
            .pool()
            .cable_count(),
        1
    );
    app.world_mut().despawn(rope);
    app.update();
    let sim = app.world().resource::<CableSimulation>();
    assert_eq!(sim.pool().cable_count(), 0);
    assert_eq!(sim.cable_of(rope), None);
}

#[test]
fn removing_only_the_cable_component_frees_the_pool_and_leaves_nothing_stale() {
    let mut app = app();
    let rope = app
        .world_mut()
        .spawn((
            Transform::default(),
            Cable::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.0, 8).expect("valid"),
        ))
        .id();
    let bad = app
        .world_mut()
        .spawn(
            Cable::line(Vec3::ZERO, Vec3::X, 1.0, 4)
                .expect("valid")
                .with_mass(2, -1.0),
        )
        .id();
    run(&mut app, 3);
    assert!(app.world().get::<CableBody>(rope).is_some());
    assert!(app.world().get::<CableRejected>(bad).is_some());
    app.world_mut().entity_mut(rope).remove::<Cable>();
    app.world_mut().entity_mut(bad).remove::<Cable>();
    run(&mut app, 3);
    let sim = app.world().resource::<CableSimulation>();
    assert_eq!(sim.pool().cable_count(), 0, "the pool cable is freed");
    assert_eq!(sim.cable_of(rope), None);
    for e in [rope, bad] {
        let entity = app.world().entity(e);
        assert!(!entity.contains::<CableBody>(), "no stale CableBody");
        assert!(
            !entity.contains::<CableRejected>(),
            "no stale CableRejected"
        );
        assert!(!entity.contains::<CableParticles>(), "no stale positions");
    }
    assert!(
        app.world().get::<Transform>(rope).is_some(),
        "the rest stays"
    );
    // Given a cable again, the entity gets a new pool cable.
    app.world_mut()
        .entity_mut(rope)
        .insert(Cable::line(Vec3::ZERO, Vec3::Y, 1.0, 3).expect("valid"));
    run(&mut app, 3);
    assert!(app.world().get::<CableBody>(rope).is_some());
    assert_eq!(particles(&app, rope).len(), 4);
}

#[test]
fn a_collider_entity_holds_a_cable_up_and_a_bad_cable_is_rejected() {
    let mut app = app();
    // A ball under the middle of a loosely hanging cable.
    let ball = app
        .world_mut()
        .spawn((
            CableCollider::sphere(0.5).expect("valid"),
            Transform::from_xyz(2.0, -1.0, 0.0),
        ))
        .id();
    let rope = app
        .world_mut()
        .spawn(Cable::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 6.0, 32).expect("valid"))
        .id();
    let bad = app
        .world_mut()
        .spawn(
            Cable::line(Vec3::ZERO, Vec3::X, 1.0, 4)
                .expect("valid")
                .with_mass(99, 1.0),
        )
        .id();
    for _ in 0..120 {
        app.update();
    }
    let radius = 0.05;
    let centre = Vec3::new(2.0, -1.0, 0.0);
    for p in particles(&app, rope) {
        assert!(
            p.distance(centre) >= 0.5 + radius - 1.0e-3,
            "{p} inside the ball"
        );
    }
    // Without the ball the middle would hang lower than the ball's top.
    assert!(particles(&app, rope)[16].y > -0.6);
    assert!(app.world().get::<CableRejected>(bad).is_some());
    assert!(app.world().get::<CableBody>(bad).is_none());
    // Despawning the ball removes its collider: the cable drops.
    assert_eq!(
        app.world()
            .resource::<CableSimulation>()
            .pool()
            .colliders()
            .len(),
        1
    );
    app.world_mut().despawn(ball);
    for _ in 0..60 {
        app.update();
    }
    assert!(
        app.world()
            .resource::<CableSimulation>()
            .pool()
            .colliders()
            .is_empty()
    );
    assert!(particles(&app, rope)[16].y < -1.0);
}

#[test]
fn a_tube_mesh_is_created_once_and_updated_in_place() {
    let mut app = app();
    app.init_resource::<Assets<Mesh>>();
    let rope = app
        .world_mut()
        .spawn((
            Cable::line(Vec3::ZERO, Vec3::new(3.0, 0.0, 0.0), 4.0, 12).expect("valid"),
            CableTube,
        ))
        .id();
    app.update();
    app.update();
    let handle = app
        .world()
        .get::<Mesh3d>(rope)
        .expect("mesh added")
        .0
        .clone();
    let positions = |app: &App| -> Vec<[f32; 3]> {
        let meshes = app.world().resource::<Assets<Mesh>>();
        match meshes
            .get(&handle)
            .and_then(|m| m.attribute(Mesh::ATTRIBUTE_POSITION))
        {
            Some(VertexAttributeValues::Float32x3(p)) => p.clone(),
            other => panic!("positions: {other:?}"),
        }
    };
    let first = positions(&app);
    assert_eq!(first.len(), 13 * 9, "13 rings of 8 sides + seam");
    let meshes = app.world().resource::<Assets<Mesh>>();
    let mesh = meshes.get(&handle).expect("mesh");
    assert_eq!(mesh.indices().map(|i| i.len()), Some(12 * 8 * 6));
    assert!(mesh.indices().expect("indices").iter().all(|i| i < 13 * 9));
    for _ in 0..20 {
        app.update();
    }
    assert_eq!(app.world().get::<Mesh3d>(rope).expect("kept").0, handle);
    assert_eq!(
        app.world().resource::<Assets<Mesh>>().len(),
        1,
        "no new asset"
    );
    let later = positions(&app);
    assert_eq!(later.len(), first.len());
    // The middle ring sagged with the cable.
    let mid = |p: &[[f32; 3]]| p[6 * 9][1];
    assert!(
        mid(&later) < mid(&first) - 0.2,
        "{} vs {}",
        mid(&later),
        mid(&first)
    );
}

#[test]
fn world_parameters_change_at_run_time() {
    let mut app = app();
    let rope = app
        .world_mut()
        .spawn(Cable::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 3.0, 8).expect("valid"))
        .id();
    {
        let mut sim = app.world_mut().resource_mut::<CableSimulation>();
        let mut params = *sim.params();
        params.gravity = cable_bevy::cable_systems::SolverParams::default().gravity * -1.0;
        sim.set_params(params).expect("valid");
    }
    for _ in 0..30 {
        app.update();
    }
    assert!(particles(&app, rope)[4].y > 0.3, "gravity points up now");
    let mut sim = app.world_mut().resource_mut::<CableSimulation>();
    let mut params = *sim.params();
    params.iterations = 0;
    assert!(sim.set_params(params).is_err());
    assert_eq!(sim.params().iterations, 8);
    assert!((sim.params().substep - 1.0 / 60.0).abs() < 1.0e-7);
}

#[test]
fn a_cable_whose_compliance_overflows_at_the_substep_is_rejected_at_spawn() {
    let mut app = app();
    let good = app
        .world_mut()
        .spawn(Cable::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 5.0, 16).expect("valid"))
        .id();
    // 1e30 is a valid compliance, but 1e30 / (1/60 s)² overflows: every step
    // would be refused if the pool took it.
    let mut soft = Cable::line(Vec3::Y, Vec3::new(4.0, 1.0, 0.0), 5.0, 16).expect("valid");
    soft.desc.params.compliance = 1.0e30;
    let bad = app.world_mut().spawn(soft).id();
    for _ in 0..30 {
        app.update();
    }
    assert!(app.world().get::<CableRejected>(bad).is_some());
    assert!(app.world().get::<CableBody>(bad).is_none());
    // The good cable is simulated: its middle sags.
    assert!(
        particles(&app, good)[8].y < -0.3,
        "{:?}",
        particles(&app, good)[8]
    );
}

/// Runs `frames` updates and returns the notices sent meanwhile.
fn run(app: &mut App, frames: u32) -> Vec<CableNotice> {
    let mut out = Vec::new();
    for _ in 0..frames {
        app.update();
        out.extend(
            app.world_mut()
                .resource_mut::<Messages<CableNotice>>()
                .drain(),
        );
    }
    out
}

fn body(app: &App, e: Entity) -> Option<cable_bevy::cable_core::CableHandle> {
    app.world().get::<CableBody>(e).map(|b| b.handle)
}

#[test]
fn a_cable_removed_through_the_pool_is_rebuilt_from_its_entity() {
    let mut app = app();
    let rope = app
        .world_mut()
        .spawn((
            Cable::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.5, 8).expect("valid"),
            CableAttachments {
                start: CableAnchor::Point(Vec3::ZERO),
                end: CableAnchor::Free,
            },
        ))
        .id();
    run(&mut app, 40);
    let old = body(&app, rope).expect("a body");
    let hanging = particles(&app, rope);
    assert!(hanging[8].y < -0.5, "it fell: {}", hanging[8]);
    app.world_mut()
        .resource_mut::<CableSimulation>()
        .pool_mut()
        .remove_cable(old)
        .expect("live");

    let notices = run(&mut app, 1);
    let new = body(&app, rope).expect("rebuilt, not left with a dead body");
    assert_ne!(new, old);
    let sim = app.world().resource::<CableSimulation>();
    assert!(sim.pool().contains(new));
    assert!(!sim.pool().contains(old));
    assert_eq!(sim.cable_of(rope), Some(new));
    assert_eq!(sim.pool().cable_count(), 1);
    assert_eq!(
        notices,
        [CableNotice::Lost {
            entity: rope,
            handle: old
        }]
    );
    // Rebuilt from its `Cable`: it starts over from the line and falls
    // again, pinned at the start; the particles are written, not frozen.
    let again = particles(&app, rope);
    assert!(again[8].y > hanging[8].y, "{} vs {}", again[8], hanging[8]);
    let notices = run(&mut app, 30);
    assert!(notices.is_empty(), "reported once: {notices:?}");
    let later = particles(&app, rope);
    assert_eq!(later[0], Vec3::ZERO);
    assert!(
        later[8].y < again[8].y - 0.3,
        "{} vs {}",
        later[8],
        again[8]
    );
    assert_eq!(body(&app, rope), Some(new));
}

#[test]
fn a_collider_removed_through_the_pool_is_added_again() {
    let mut app = app();
    let ball = app
        .world_mut()
        .spawn((
            CableCollider::sphere(0.5).expect("valid"),
            Transform::from_xyz(2.0, -1.0, 0.0),
        ))
        .id();
    let rope = app
        .world_mut()
        .spawn(Cable::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 6.0, 32).expect("valid"))
        .id();
    run(&mut app, 5);
    let old = app
        .world()
        .get::<CableColliderBody>(ball)
        .expect("a body")
        .handle;
    app.world_mut()
        .resource_mut::<CableSimulation>()
        .pool_mut()
        .colliders_mut()
        .remove(old)
        .expect("live");
    let notices = run(&mut app, 120);
    assert_eq!(
        notices,
        [CableNotice::ColliderLost {
            entity: ball,
            handle: old
        }]
    );
    let new = app
        .world()
        .get::<CableColliderBody>(ball)
        .expect("a body")
        .handle;
    assert_ne!(new, old);
    let sim = app.world().resource::<CableSimulation>();
    assert!(sim.pool().colliders().contains(new));
    assert_eq!(sim.collider_of(ball), Some(new));
    // The ball holds the cable up again.
    assert!(particles(&app, rope)[16].y > -0.6);
}

/// A cable whose compliance is fine at 1/60 s but overflows at 1/480 s.
fn too_soft_for_eight_substeps(y: f32) -> Cable {
    let mut soft =
        Cable::line(Vec3::new(0.0, y, 0.0), Vec3::new(4.0, y, 0.0), 5.0, 16).expect("valid");
    soft.desc.params.compliance = 1.0e26;
    assert!(soft.desc.validate_for_substep(1.0 / 60.0).is_ok());
    assert!(soft.desc.validate_for_substep(1.0 / 480.0).is_err());
    soft
}

#[test]
fn with_eight_substeps_a_cable_too_soft_for_them_is_refused_at_spawn_and_the_others_move() {
    let mut app = app_with(CablePlugin {
        substeps: 8,
        ..CablePlugin::default()
    });
    let good = app
        .world_mut()
        .spawn(Cable::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 5.0, 16).expect("valid"))
        .id();
    let bad = app.world_mut().spawn(too_soft_for_eight_substeps(1.0)).id();
    let notices = run(&mut app, 30);
    let rejected = app.world().get::<CableRejected>(bad).expect("refused");
    assert!(
        rejected.0.to_string().starts_with("compliance"),
        "{}",
        rejected.0
    );
    assert!(app.world().get::<CableBody>(bad).is_none());
    assert_eq!(
        notices,
        [CableNotice::Rejected {
            entity: bad,
            error: rejected.0.clone()
        }]
    );
    let sim = app.world().resource::<CableSimulation>();
    assert_eq!(sim.pool().cable_count(), 1);
    assert!((sim.params().substep - 1.0 / 480.0).abs() < 1.0e-9);
    assert!(sim.stepper().substeps_run() >= 28 * 8);
    // The good cable is simulated: its middle sags.
    assert!(
        particles(&app, good)[8].y < -0.3,
        "{:?}",
        particles(&app, good)[8]
    );
}

#[test]
fn a_cable_that_stops_fitting_the_substep_is_taken_out_alone_once() {
    let mut app = app_with(CablePlugin {
        substeps: 8,
        ..CablePlugin::default()
    });
    let a = app
        .world_mut()
        .spawn(Cable::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 5.0, 16).expect("valid"))
        .id();
    let b = app
        .world_mut()
        .spawn(Cable::line(Vec3::Y, Vec3::new(4.0, 1.0, 0.0), 5.0, 16).expect("valid"))
        .id();
    assert!(run(&mut app, 5).is_empty());
    let hb = body(&app, b).expect("b simulated");
    // Made too soft for 1/480 s through the pool, and a cable of the pool's
    // own (no entity) just as soft.
    let lone = {
        let mut sim = app.world_mut().resource_mut::<CableSimulation>();
        let pool = sim.pool_mut();
        let mut params = *pool.params(hb).expect("live");
        params.compliance = 1.0e26;
        pool.set_params(hb, params)
            .expect("valid at any substep alone");
        pool.add_cable(&too_soft_for_eight_substeps(3.0).desc)
            .expect("the pool takes it")
    };
    let before = particles(&app, a);
    let runs = app
        .world()
        .resource::<CableSimulation>()
        .stepper()
        .substeps_run();
    let notices = run(&mut app, 1);
    let after = particles(&app, a);
    assert_ne!(before, after, "a kept moving");
    let notices = [notices, run(&mut app, 30)].concat();
    // Each taken out once; every step ran, for a.
    let rejected = app.world().get::<CableRejected>(b).expect("b refused");
    assert!(rejected.0.to_string().starts_with("compliance"));
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices.contains(&CableNotice::Rejected {
        entity: b,
        error: rejected.0.clone()
    }));
    assert!(notices.iter().any(|n| matches!(
        n,
        CableNotice::Dropped { handle, .. } if *handle == lone
    )));
    assert!(app.world().get::<CableBody>(b).is_none());
    assert!(particles(&app, b).is_empty(), "no frozen particles");
    let sim = app.world().resource::<CableSimulation>();
    assert_eq!(sim.cable_of(b), None);
    assert!(!sim.pool().contains(hb) && !sim.pool().contains(lone));
    assert_eq!(sim.pool().cable_count(), 1);
    assert!(sim.stepper().substeps_run() >= runs + 30 * 8);
    assert!(particles(&app, a)[8].y < -0.3, "{}", particles(&app, a)[8]);
}

#[test]
fn contacts_and_tearing_are_sent_as_messages() {
    use cable_bevy::cable_systems::events::ContactKind;
    use cable_bevy::{CableContact, CableTorn};

    let mut app = app();
    app.world_mut()
        .resource_mut::<CableSimulation>()
        .set_track_contacts(true);
    // A crate under a free rope: it lands once and stays.
    let crate_box = app
        .world_mut()
        .spawn((
            CableCollider::cuboid(Vec3::splat(0.5)).expect("valid"),
            Transform::from_xyz(0.0, 0.5, 0.0),
        ))
        .id();
    let mut free =
        Cable::line(Vec3::new(-1.0, 2.0, 0.0), Vec3::new(1.0, 2.0, 0.0), 2.0, 20).expect("valid");
    (free.desc.attach_start, free.desc.attach_end) = (false, false);
    let rope = app.world_mut().spawn(free).id();
    // A weak rope hanging from a point: it tears.
    let mut weak =
        Cable::line(Vec3::new(5.0, 3.0, 0.0), Vec3::new(5.0, 1.0, 0.0), 2.0, 20).expect("valid");
    weak.desc.attach_end = false;
    weak.desc.params.break_tension = Some(5.0);
    let weak = app.world_mut().spawn(weak).id();
    let (mut contacts, mut torn) = (Vec::new(), Vec::new());
    for frame in 0..90 {
        app.update();
        let w = app.world_mut();
        contacts.extend(
            w.resource_mut::<Messages<CableContact>>()
                .drain()
                .map(|c| (frame, c)),
        );
        torn.extend(w.resource_mut::<Messages<CableTorn>>().drain());
    }
    // 0.95 m of fall: about 0.44 s, frame 26.
    assert_eq!(contacts.len(), 1, "{contacts:?}");
    let (frame, c) = contacts[0];
    assert_eq!(
        c,
        CableContact {
            cable: rope,
            collider: crate_box,
            kind: ContactKind::Began
        }
    );
    assert!((20..32).contains(&frame), "landed at frame {frame}");
    assert!(!torn.is_empty() && torn.iter().all(|t| t.cable == weak && t.segment < 20));
}

#[test]
fn a_collider_entity_with_a_force_component_gets_the_ropes_weight() {
    use cable_bevy::CableColliderForce;

    let mut app = app();
    // A floor, and a free rope of 21 particles of 1 kg lying on it.
    let floor = app
        .world_mut()
        .spawn((
            CableCollider::half_space(),
            CableColliderForce::default(),
            Transform::from_xyz(3.0, -0.05, 0.0),
        ))
        .id();
    let mut free =
        Cable::line(Vec3::new(1.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0), 2.0, 20).expect("valid");
    (free.desc.attach_start, free.desc.attach_end) = (false, false);
    app.world_mut().spawn(free);
    for _ in 0..120 {
        app.update();
    }
    let f = *app
        .world()
        .get::<CableColliderForce>(floor)
        .expect("spawned with it");
    let weight = 21.0 * 9.81;
    assert!(
        (f.force.y + weight).abs() < 0.01 * weight && f.force.x.abs() < 0.01 * weight,
        "{f:?} against {weight} N"
    );
    // About the floor's point (3, −0.05, 0), the rope's centre at x = 2:
    // torque z = (x̄ − 3)·F_y = +W·1 m.
    assert!((f.torque.z - weight).abs() < 0.03 * weight, "{f:?}");
}
