//! What one game frame of the solver costs in this build: `CABLES` cables of
//! 32 segments hanging between pinned ends, 8 iterations, one 1/60 s substep
//! per `Stepper::advance`, as a game at 60 Hz runs it. Prints the mean
//! milliseconds per frame.
//!
//! Compare a debug build with a release build, and a debug build that
//! optimises only the `cable` crates (the `opt-level` advice of the README):
//!
//! ```sh
//! cargo run --release --example frame_cost
//! cargo run --example frame_cost
//! cargo run --example frame_cost --config 'profile.dev.package.cable-systems.opt-level=3' \
//!     --config 'profile.dev.package.cable-core.opt-level=3'
//! ```
//!
//! Arguments: `[CABLES] [FRAMES] [--layout aos|soa|lanes8] [--edit]
//! [--edit-params]`, default 2000 cables, 60 frames, the default layout.
//! `--edit` writes one particle of one cable through `positions_mut` before
//! every frame, as a game moving one rope by hand does, to show what such
//! an edit costs; `--edit-params` changes one cable's `gravity_scale`
//! through `set_params` before every frame instead.

use std::time::Instant;

use cable::systems::Layout;
use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use glam::Vec3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut cables, mut frames, mut layout, mut edit, mut edit_params) =
        (2000usize, 60u32, Layout::default(), false, false);
    let mut numbers = 0;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--edit" => edit = true,
            "--edit-params" => edit_params = true,
            "--layout" => {
                let name = args.next().ok_or("--layout needs a name")?;
                layout = name.parse()?;
            }
            _ if numbers == 0 => {
                cables = a.parse().map_err(|e| format!("CABLES `{a}`: {e}"))?;
                numbers += 1;
            }
            _ if numbers == 1 => {
                frames = a.parse().map_err(|e| format!("FRAMES `{a}`: {e}"))?;
                numbers += 1;
            }
            _ => return Err(format!("unexpected argument `{a}`").into()),
        }
    }
    if frames == 0 {
        return Err("FRAMES must be at least 1".into());
    }

    let mut pool = ParticlePool::new();
    let mut first = None;
    let side = (cables as f64).sqrt().ceil().max(1.0) as usize;
    for k in 0..cables {
        let start = Vec3::new(0.0, (k / side) as f32 * 0.5, (k % side) as f32 * 0.5);
        let h = pool.add_cable(&CableDesc::line(start, start + Vec3::X * 10.0, 12.0, 32)?)?;
        first.get_or_insert(h);
    }
    let first = first.ok_or("CABLES must be at least 1")?;
    let params = SolverParams {
        iterations: 8,
        ..SolverParams::default()
    };
    let mut stepper = Stepper::with_layout(params, layout)?;
    // Warm-up: buffers allocated, layout copies made.
    stepper.advance(&mut pool, 1.0 / 60.0)?;

    let started = Instant::now();
    for _ in 0..frames {
        if edit {
            pool.positions_mut(first)?[16].z += 1.0e-3;
        }
        if edit_params {
            let mut p = *pool.params(first)?;
            p.gravity_scale = if p.gravity_scale == 1.0 { 0.9 } else { 1.0 };
            pool.set_params(first, p)?;
        }
        stepper.advance(&mut pool, 1.0 / 60.0)?;
    }
    let ms = started.elapsed().as_secs_f64() * 1000.0 / f64::from(frames);
    let build = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "{build} build, layout {layout}{}: {cables} cables x 32 segments, 8 iterations, one substep a frame: {ms:.2} ms per frame (mean of {frames})",
        match (edit, edit_params) {
            (true, true) => ", one cable's particles and parameters edited every frame",
            (true, false) => ", one cable edited every frame",
            (false, true) => ", one cable's parameters changed every frame",
            (false, false) => "",
        }
    );
    Ok(())
}
