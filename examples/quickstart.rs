//! The smallest useful program: a rope bridge and a cable with a free end,
//! stepped for two seconds, printed as ASCII and as numbers.
//!
//! Run with `cargo run --release --example quickstart`.

use cable::debug::{AsciiOptions, render_ascii};
use cable::{CableDesc, End, ParticlePool, SolverParams, Stepper};
use glam::Vec3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut pool = ParticlePool::new();

    // A 12 m bridge across a 10 m gap, 32 segments, both ends pinned.
    let bridge = pool.add_cable(&CableDesc::line(
        Vec3::ZERO,
        Vec3::new(10.0, 0.0, 0.0),
        12.0,
        32,
    )?)?;

    // A stiff 3 m cable hanging from a hook, its far end free.
    let mut desc = CableDesc::line(
        Vec3::new(12.0, 0.0, 0.0),
        Vec3::new(15.0, 0.0, 0.0),
        3.0,
        12,
    )?;
    desc.attach_end = false;
    desc.params.stiffness = true;
    let hook = pool.add_cable(&desc)?;

    let mut stepper = Stepper::new(SolverParams {
        damping: 0.5, // per second
        ..SolverParams::default()
    })?;
    for frame in 0..120 {
        // Move the hook sideways: the pinned start follows its attachment.
        let x = 12.0 + 0.5 * (frame as f32 / 30.0).sin();
        pool.set_attachment(hook, End::Start, Some(Vec3::new(x, 0.0, 0.0)))?;
        stepper.advance(&mut pool, 1.0 / 60.0)?;
    }

    print!("{}", render_ascii(&pool, &AsciiOptions::default())?);
    let mid = pool.positions(bridge)?[16];
    let tip = *pool.positions(hook)?.last().ok_or("empty cable")?;
    println!(
        "after {:.2} s: bridge middle at y = {:.3} m, hook tip at {tip}",
        stepper.time(),
        mid.y
    );
    Ok(())
}
