//! A grappling hook, as hecs entities: a running player shoots a hook at a
//! beam (the rope pays out from the player's hand while the hook flies),
//! the hook catches, then a winch reels the rope in while its start follows
//! the player, whom the rope pulls in (the game's side: the player is kept
//! within the rope's length of the beam). Prints one line per 0.25 s; the
//! worst stretch is read right after the winch has shortened (or split)
//! the first segment, so while reeling it shows that segment's pending
//! change (the winch's speed × substep over its rest length), which the
//! next substep's constraints take up.
//!
//! Run with `cargo run --release --example grappling_hook`.

use cable::systems::ecs::{
    AttachTarget, CableAttachments, CableBody, CableParticles, CableSpec, CableWinch, CableWorld,
    Transform,
};
use cable::{CableDesc, SolverParams};
use glam::Vec3;

/// Where the hook catches: a point on a beam, metres.
const ANCHOR: Vec3 = Vec3::new(9.0, 7.0, 0.0);
/// Player speed along x, m/s.
const RUN: f32 = 2.0;
/// Hook launch speed, m/s.
const SHOT: f32 = 20.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dt = 1.0 / 60.0;
    let mut world = hecs::World::new();
    let mut hand = Vec3::new(0.0, 1.5, 0.0);
    let player = world.spawn((Transform::from_translation(hand),));

    // The hook leaves the hand on half a metre of rope, aimed a little above
    // the anchor (gravity pulls it down in flight).
    let aim = (ANCHOR + Vec3::new(0.0, 1.0, 0.0) - hand).normalize();
    let mut desc = CableDesc::line(hand, hand + aim * 0.5, 0.5, 2)?;
    desc.attach_end = false;
    desc.params.radius = 0.015;
    desc.params.max_length = Some(30.0);
    // A light line (50 g/m) and a 1 kg hook at its end.
    desc.mass_per_length = Some(0.05);
    let rope = world.spawn((
        CableSpec::new(desc).with_mass(2, 1.0),
        CableAttachments {
            start: AttachTarget::Entity {
                entity: player,
                offset: Vec3::ZERO,
            },
            end: AttachTarget::Free,
        },
        CableParticles::default(),
        // Pay out as fast as the hook flies, up to 30 m.
        CableWinch {
            target_length: 30.0,
            speed: SHOT,
        },
    ));
    let mut cables = CableWorld::new(SolverParams::default())?;
    cables.step(&mut world, dt)?;
    let handle = world.get::<&CableBody>(rope)?.handle;
    let substep = cables.stepper().params().substep;
    cables
        .pool_mut()
        .set_velocity(handle, aim * SHOT, substep)?;

    let mut phase = "flying";
    let mut closest = f32::INFINITY;
    println!("   t  phase     player (x, y)    hook (x, y)       rope m  worst stretch");
    for frame in 1..=360 {
        let t = frame as f32 * dt;
        hand.x += RUN * dt;
        if phase == "reeling" {
            // The game's character controller: the rope pulls the player
            // in, never further from the beam than the rope is long.
            let length: f32 = cables.pool().rest_lengths(handle)?.iter().sum();
            let out = hand - ANCHOR;
            if out.length() > length {
                hand = ANCHOR + out.normalize() * length;
            }
        }
        world.get::<&mut Transform>(player)?.translation = hand;
        cables.step(&mut world, dt)?;

        let hook = *world
            .get::<&CableParticles>(rope)?
            .positions
            .last()
            .ok_or("a rope has particles")?;
        let d = hook.distance(ANCHOR);
        if phase == "flying" {
            closest = closest.min(d);
            // Caught once the hook is within 0.6 m of the beam, or passing it.
            if d < 0.6 || (d > closest + 0.1 && closest < 1.5) {
                phase = "reeling";
                let mut att = world.get::<&mut CableAttachments>(rope)?;
                att.end = AttachTarget::Point(ANCHOR);
                drop(att);
                // Stop paying out; reel in to 2 m at 3 m/s.
                world.insert_one(
                    rope,
                    CableWinch {
                        target_length: 2.0,
                        speed: 3.0,
                    },
                )?;
            } else if t > 1.5 {
                return Err(format!("the hook missed: closest {closest:.2} m").into());
            }
        }
        let pool = cables.pool();
        let rest = pool.rest_lengths(handle)?;
        let pos = pool.positions(handle)?;
        let length: f32 = rest.iter().sum();
        let stretch = pos
            .windows(2)
            .zip(rest)
            .map(|(p, &r)| p[0].distance(p[1]) / r)
            .fold(0.0f32, f32::max);
        if frame % 15 == 0 {
            println!(
                "{t:4.2}  {phase:8}  ({:5.2}, {:5.2})  ({:6.2}, {:5.2})  {length:6.2}  {stretch:6.3}",
                hand.x, hand.y, hook.x, hook.y
            );
        }
        if !pos.iter().all(|p| p.is_finite()) {
            return Err("the rope went non-finite".into());
        }
    }
    let length: f32 = cables.pool().rest_lengths(handle)?.iter().sum();
    let worst = {
        let pool = cables.pool();
        let (rest, pos) = (pool.rest_lengths(handle)?, pool.positions(handle)?);
        pos.windows(2)
            .zip(rest)
            .map(|(p, &r)| p[0].distance(p[1]) / r)
            .fold(0.0f32, f32::max)
    };
    if worst > 1.5 {
        return Err(format!("a segment ended {worst:.2}× its rest length").into());
    }
    if phase != "reeling" || (length - 2.0).abs() > 0.01 {
        return Err(
            format!("expected the rope reeled in to 2 m, got {length:.3} m ({phase})").into(),
        );
    }
    println!("reeled in to {length:.2} m; the hook holds at {ANCHOR}");
    Ok(())
}
