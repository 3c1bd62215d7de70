//! A crane moving along a path with a cable and a heavy load, a lamp
//! swinging on a cable, a floor and a crate, all as hecs entities; printed
//! as ASCII frames.
//!
//! Run with `cargo run --release --example hecs_crane`.

use cable::core::Collider;
use cable::debug::{AsciiOptions, render_ascii};
use cable::systems::ecs::{
    AttachTarget, CableAttachments, CableParticles, CableSpec, CableWorld, ColliderSpec, Transform,
};
use cable::{CableDesc, SolverParams};
use glam::{Quat, Vec3};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = hecs::World::new();

    // The crane's trolley: an entity with a transform that a game would move.
    let trolley = world.spawn((Transform::from_translation(Vec3::new(-4.0, 6.0, 0.0)),));
    // A 5 m hoist cable from the trolley (hook 0.3 m below it) to a 200 kg load.
    let hoist = CableDesc::line(
        Vec3::new(-4.0, 5.7, 0.0),
        Vec3::new(-4.0, 0.7, 0.0),
        5.0,
        20,
    )?;
    let load = world.spawn((
        CableSpec::new(hoist).with_mass(20, 200.0),
        CableAttachments {
            start: AttachTarget::Entity {
                entity: trolley,
                offset: Vec3::new(0.0, -0.3, 0.0),
            },
            end: AttachTarget::Free,
        },
        CableParticles::default(),
    ));

    // A lamp on a 2 m cable hanging from a fixed point, pushed sideways.
    let mut lamp_cable =
        CableDesc::line(Vec3::new(5.0, 6.0, 0.0), Vec3::new(6.5, 5.0, 0.0), 2.0, 10)?;
    lamp_cable.attach_end = false;
    let lamp = world.spawn((
        CableSpec::new(lamp_cable).with_mass(10, 5.0),
        CableAttachments {
            start: AttachTarget::Point(Vec3::new(5.0, 6.0, 0.0)),
            end: AttachTarget::Free,
        },
        CableParticles::default(),
    ));

    // Colliders are entities too: the floor, and a crate the load swings over.
    world.spawn((ColliderSpec(Collider::plane(Vec3::Y, 0.0)?),));
    world.spawn((
        ColliderSpec(Collider::cuboid(
            Vec3::ZERO,
            Vec3::new(0.5, 0.4, 0.5),
            Quat::IDENTITY,
        )?),
        Transform::from_translation(Vec3::new(0.5, 0.4, 0.0)),
    ));

    let mut cables = CableWorld::new(SolverParams {
        iterations: 16,
        damping: 0.1,
        ..SolverParams::default()
    })?;
    let opts = AsciiOptions {
        width: 60,
        height: 16,
        ..AsciiOptions::default()
    };
    let dt = 1.0 / 60.0;
    for frame in 1..=240 {
        // The trolley runs along its rail and brakes: the load swings.
        let t = frame as f32 * dt;
        let x = -4.0 + 6.0 * (t / 2.0).min(1.0);
        if let Ok(mut tf) = world.get::<&mut Transform>(trolley) {
            tf.translation = Vec3::new(x, 6.0, 0.0);
            tf.rotation = Quat::IDENTITY;
        }
        cables.step(&mut world, dt)?;
        if frame % 60 == 0 {
            println!("t = {t:.1} s, trolley at x = {x:.2} m");
            print!("{}", render_ascii(cables.pool(), &opts)?);
        }
    }
    let load_pos = *world
        .get::<&CableParticles>(load)?
        .positions
        .last()
        .ok_or("empty cable")?;
    let lamp_pos = *world
        .get::<&CableParticles>(lamp)?
        .positions
        .last()
        .ok_or("empty cable")?;
    println!("load at {load_pos}, lamp at {lamp_pos}");
    Ok(())
}
