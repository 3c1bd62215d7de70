//! What each part of the contact scene costs (the measurements are in
//! `docs/performance-history.md`): the bench's 2,000 cables × 32 segments
//! draped onto a ground plane and 20 spheres, timed with no colliders, the
//! plane alone, the spheres alone and both, with and without friction, on
//! the `lanes8` layout.
//!
//! Each case first runs 120 substeps (2 s) so the cables lie on the ground,
//! then times 120 more in one frame (or as many frames of 120 as the
//! second argument asks for); the rounds interleave the cases so a noisy
//! machine moves them alike. Read the ratios to `none`, not the seconds.
//!
//! ```sh
//! cargo run --release --example contact_parts                     # every case, 3 rounds
//! cargo run --release --example contact_parts -- "both f0.3"      # one case (for perf)
//! cargo run --release --example contact_parts -- "both f0.3" 1200 # 1,200 settled substeps
//! cargo run --release --example contact_parts -- all 1200         # every case, 1,200 each
//! ```

use std::time::Instant;

use cable::CableError;
use cable::core::{ParticlePool, Shape};
use cable::systems::{Layout, SolverParams, Stepper};
use cable::workload::{BenchScene, Workload};

/// A case: name, ground plane, spheres, friction coefficient.
const CASES: [(&str, bool, bool, f32); 6] = [
    ("none", false, false, 0.0),
    ("plane f0", true, false, 0.0),
    ("plane f0.3", true, false, 0.3),
    ("spheres f0.3", false, true, 0.3),
    ("both f0", true, true, 0.0),
    ("both f0.3", true, true, 0.3),
];

/// The contact bench's scene (`cable bench --scene contact`), keeping only
/// the colliders asked for.
fn build(plane: bool, spheres: bool) -> Result<ParticlePool, CableError> {
    let workload = Workload {
        cables: 2_000,
        scene: BenchScene::Contact,
        ..Workload::default()
    };
    let mut pool = workload.build()?;
    let set = pool.colliders_mut();
    let handles: Vec<_> = set.handles().collect();
    for h in handles {
        let keep = match set.get(h)?.shape() {
            Shape::Plane => plane,
            _ => spheres,
        };
        if !keep {
            set.remove(h)?;
        }
    }
    Ok(pool)
}

/// Substeps per timed frame (and of the settling before).
const FRAME: u32 = 120;

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("contact_parts: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let only = std::env::args().nth(1).filter(|o| o != "all");
    if let Some(o) = &only
        && !CASES.iter().any(|c| c.0 == o)
    {
        let names: Vec<_> = CASES.iter().map(|c| c.0).collect();
        return Err(format!("no case {o:?}: one of {names:?}, or \"all\"").into());
    }
    let substeps: u32 = match std::env::args().nth(2) {
        None => FRAME,
        Some(s) => s
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("substeps {s:?}: a whole number of at least 1"))?,
    };
    let frames = substeps.div_ceil(FRAME);
    for round in 0..3 {
        for (name, plane, spheres, friction) in CASES {
            if only.as_deref().is_some_and(|o| o != name) {
                continue;
            }
            let mut pool = build(plane, spheres)?;
            let params = SolverParams {
                iterations: 8,
                max_substeps: FRAME,
                friction,
                ..SolverParams::default()
            };
            let mut stepper = Stepper::with_layout(params, Layout::Lanes8)?;
            stepper.run_substeps(&mut pool, FRAME);
            let t = Instant::now();
            for _ in 0..frames {
                stepper.run_substeps(&mut pool, FRAME);
            }
            println!(
                "round {round} {name:13} {:.4} s ({} substeps)",
                t.elapsed().as_secs_f64(),
                u64::from(frames) * u64::from(FRAME)
            );
        }
    }
    Ok(())
}
