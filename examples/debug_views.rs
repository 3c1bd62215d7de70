//! Prints a sagging cable and a swinging chain in the terminal (braille and
//! plain ASCII) and writes two SVGs of the run into the system's temporary
//! directory (never into the checkout): an animation
//! (`cable-debug_views-animated.svg`, plays in a browser) and a still of the
//! final frame coloured by strain (`cable-debug_views-still.svg`, any viewer).
//!
//! Run with `cargo run --example debug_views`.

use cable::debug::{
    AsciiMode, AsciiOptions, Frame, Recorder, Shape, SvgOptions, render_frame_ascii,
};
use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use glam::Vec3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut pool = ParticlePool::new();
    pool.add_cable(&CableDesc::line(
        Vec3::new(-4.0, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 0.0),
        5.0,
        24,
    )?)?;
    let mut chain = CableDesc::line(Vec3::new(1.0, 0.0, 0.0), Vec3::new(4.0, 0.0, 0.0), 3.0, 12)?;
    chain.attach_end = false;
    pool.add_cable(&chain)?;
    // Colliders are drawn from simple shapes (the solver does not see this one).
    let ball = Shape::Sphere {
        center: Vec3::new(-2.0, -2.6, 0.0),
        radius: 0.6,
    };

    let mut stepper = Stepper::new(SolverParams::default())?;
    let mut recorder = Recorder::new(120).with_shapes(vec![ball]);
    recorder.offer(&pool, 0.0);
    for _ in 0..45 {
        stepper.advance(&mut pool, 1.0 / 60.0)?;
        recorder.offer(&pool, stepper.time());
    }
    recorder.finish(&pool, stepper.time());

    let frame = Frame::capture(&pool, stepper.time()).with_shapes(vec![ball]);
    for mode in [AsciiMode::Braille, AsciiMode::Plain] {
        let opts = AsciiOptions {
            width: 60,
            height: 14,
            mode,
            ..AsciiOptions::default()
        };
        println!("{}", render_frame_ascii(&frame, &opts)?);
    }
    let dir = std::env::temp_dir();
    let animated = dir.join("cable-debug_views-animated.svg");
    std::fs::write(&animated, recorder.to_svg(&SvgOptions::default())?)?;
    let still = dir.join("cable-debug_views-still.svg");
    let strain = SvgOptions {
        strain: true,
        ..SvgOptions::default()
    };
    std::fs::write(&still, recorder.still_svg(&strain)?)?;
    println!(
        "wrote {} ({} frames) and {}",
        animated.display(),
        recorder.frames().len(),
        still.display()
    );
    Ok(())
}
