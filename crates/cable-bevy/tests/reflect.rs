//! The components and the resource are registered for reflection, and
//! what an inspector or a scene writes through it acts on the cables.

use std::any::TypeId;
use std::time::Duration;

use bevy_app::prelude::*;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent, ReflectResource};
use bevy_math::Vec3;
use bevy_reflect::GetPath;
use bevy_reflect::structs::DynamicStruct;
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::prelude::*;
use cable_bevy::{
    Cable, CableAnchor, CableAttachments, CableBody, CableCollider, CableColliderBody,
    CableColliderForce, CableHidden, CableInterpolated, CableParticles, CablePlugin, CableRejected,
    CableSimulation, CableStatus, CableTension, CableTube, CableWinch,
};

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        TransformPlugin,
        CablePlugin::default(),
    ))
    .insert_resource(Time::<Fixed>::from_hz(60.0))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 60.0,
    )));
    app
}

#[test]
fn every_component_and_the_resource_are_registered() {
    let app = app();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let components = [
        TypeId::of::<Cable>(),
        TypeId::of::<CableAttachments>(),
        TypeId::of::<CableBody>(),
        TypeId::of::<CableCollider>(),
        TypeId::of::<CableColliderBody>(),
        TypeId::of::<CableColliderForce>(),
        TypeId::of::<CableHidden>(),
        TypeId::of::<CableInterpolated>(),
        TypeId::of::<CableParticles>(),
        TypeId::of::<CableRejected>(),
        TypeId::of::<CableStatus>(),
        TypeId::of::<CableTension>(),
        TypeId::of::<CableTube>(),
        TypeId::of::<CableWinch>(),
    ];
    for id in components {
        let reg = registry.get(id).expect("registered");
        assert!(
            reg.data::<ReflectComponent>().is_some(),
            "{} reflects as a component",
            reg.type_info().type_path()
        );
    }
    let sim = registry
        .get(TypeId::of::<CableSimulation>())
        .expect("registered");
    assert!(sim.data::<ReflectResource>().is_some());
}

/// What an inspector does: a winch inserted and an attachment edited
/// through reflection, by field path, with no Rust type in hand.
#[test]
fn a_winch_inserted_and_an_anchor_moved_through_reflection_act_on_the_cable() {
    let mut app = app();
    let start = Vec3::new(0.0, 3.0, 0.0);
    let end = Vec3::new(4.0, 3.0, 0.0);
    let rope = app
        .world_mut()
        .spawn((
            Cable::line(start, end, 5.0, 20).expect("valid"),
            CableAttachments {
                start: CableAnchor::Point(start),
                end: CableAnchor::Point(end),
            },
            CableStatus::default(),
        ))
        .id();
    for _ in 0..10 {
        app.update();
    }
    let rest = app
        .world()
        .get::<CableStatus>(rope)
        .expect("inserted")
        .rest_length;
    assert!((rest - 5.0).abs() < 1e-3);

    let registry = app.world().resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    // Insert a winch from a dynamic value, as a scene loader does.
    let mut winch = DynamicStruct::default();
    winch.insert("target_length", 4.5_f32);
    winch.insert("speed", 1.0_f32);
    winch.set_represented_type(registry.get_type_info(TypeId::of::<CableWinch>()));
    let reflect_winch = registry
        .get_type_data::<ReflectComponent>(TypeId::of::<CableWinch>())
        .expect("registered");
    reflect_winch.insert(&mut app.world_mut().entity_mut(rope), &winch, &registry);
    // Move the end anchor 1 m down, by field path, as an inspector does.
    let reflect_attach = registry
        .get_type_data::<ReflectComponent>(TypeId::of::<CableAttachments>())
        .expect("registered");
    {
        let mut entity = app.world_mut().entity_mut(rope);
        let mut attachments = reflect_attach
            .reflect_mut(&mut entity)
            .expect("the rope has attachments");
        let y = attachments
            .reflect_path_mut("end.0.y")
            .expect("a Point anchor's y")
            .try_downcast_mut::<f32>()
            .expect("f32");
        *y -= 1.0;
    }
    drop(registry);
    for _ in 0..60 {
        app.update();
    }
    let rest = app
        .world()
        .get::<CableStatus>(rope)
        .expect("inserted")
        .rest_length;
    assert!((rest - 4.5).abs() < 0.02, "reeled in to {rest}");
    let p = app.world().get::<CableParticles>(rope).expect("required");
    let last = *p.positions.last().expect("particles");
    assert!(last.distance(end - Vec3::Y) < 1e-4, "the end is at {last}");
}

/// Colliders and cables reflect as markers; their handles and shapes are
/// not reflected (no `Reflect` in the core crates), but are there.
#[test]
fn handles_are_not_reflected_but_the_markers_are() {
    let mut app = app();
    let ball = app
        .world_mut()
        .spawn((
            CableCollider::sphere(0.5).expect("valid"),
            Transform::default(),
        ))
        .id();
    app.update();
    app.update();
    let registry = app.world().resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let reflect_body = registry
        .get_type_data::<ReflectComponent>(TypeId::of::<CableColliderBody>())
        .expect("registered");
    let entity = app.world().entity(ball);
    let body = reflect_body
        .reflect(entity)
        .expect("the collider has a body");
    assert!(body.reflect_path("handle").is_err());
    assert!(
        app.world()
            .resource::<CableSimulation>()
            .collider_of(ball)
            .is_some()
    );
}
