//! The crane, the lamp and the colliders of `hecs_crane.rs` for an engine with its own
//! object model: only the pool API, no ECS. The engine keeps a
//! `CableHandle` per game object and feeds end targets each frame,
//! interpolated across the frame's substeps.
//!
//! Run with `cargo run --release --example custom_engine`.

use cable::core::Collider;
use cable::debug::{AsciiOptions, render_ascii};
use cable::{CableDesc, End, ParticlePool, SolverParams, Stepper};
use glam::{Quat, Vec3};

/// The engine's own game object.
struct Trolley {
    position: Vec3,
    hook: Option<cable::CableHandle>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut pool = ParticlePool::new();
    let mut trolley = Trolley {
        position: Vec3::new(-4.0, 6.0, 0.0),
        hook: None,
    };
    let mut hoist = CableDesc::line(
        Vec3::new(-4.0, 5.7, 0.0),
        Vec3::new(-4.0, 0.7, 0.0),
        5.0,
        20,
    )?;
    hoist.attach_end = false;
    let h = pool.add_cable(&hoist)?;
    pool.set_inv_mass(h, 20, 1.0 / 200.0)?; // a 200 kg load
    trolley.hook = Some(h);

    let mut lamp = CableDesc::line(Vec3::new(5.0, 6.0, 0.0), Vec3::new(6.5, 5.0, 0.0), 2.0, 10)?;
    lamp.attach_end = false;
    let lamp = pool.add_cable(&lamp)?;
    pool.set_inv_mass(lamp, 10, 1.0 / 5.0)?;

    // The floor and a crate, added to the pool's collider set directly.
    pool.colliders_mut().add(Collider::plane(Vec3::Y, 0.0)?);
    pool.colliders_mut().add(Collider::cuboid(
        Vec3::new(0.5, 0.4, 0.0),
        Vec3::new(0.5, 0.4, 0.5),
        Quat::IDENTITY,
    )?);

    let mut stepper = Stepper::new(SolverParams {
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
    let hook_offset = Vec3::new(0.0, -0.3, 0.0);
    for frame in 1..=240 {
        let from = trolley.position + hook_offset;
        let t = frame as f32 * dt;
        trolley.position = Vec3::new(-4.0 + 6.0 * (t / 2.0).min(1.0), 6.0, 0.0);
        let to = trolley.position + hook_offset;
        if let Some(hook) = trolley.hook {
            // Move the pinned end smoothly across this frame's substeps.
            stepper.advance_with(&mut pool, dt, |pool, k, n| {
                let s = (k + 1) as f32 / n as f32;
                // The handle is live and the target finite: this cannot fail.
                let _ = pool.set_attachment(hook, End::Start, Some(from.lerp(to, s)));
            })?;
        }
        if frame % 60 == 0 {
            println!("t = {t:.1} s, trolley at x = {:.2} m", trolley.position.x);
            print!("{}", render_ascii(&pool, &opts)?);
        }
    }
    let load = *pool.positions(h)?.last().ok_or("empty cable")?;
    let lamp_end = *pool.positions(lamp)?.last().ok_or("empty cable")?;
    println!("load at {load}, lamp at {lamp_end}");
    Ok(())
}
