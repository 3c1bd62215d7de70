//! What each part of the contact scene costs (the measurements are in
//! `docs/performance-history.md`): the bench's 2,000 cables × 32 segments
//! draped onto a ground plane and 20 spheres, timed with no colliders, the
//! plane alone, the spheres alone and both, with and without friction, on
//! the `lanes8` layout.
//!
//! Each case first runs 120 substeps (2 s) so the cables lie on the ground,
//! then times 120 more in one frame; the rounds interleave the cases so a
//! noisy machine moves them alike. Read the ratios to `none`, not the
//! seconds.
//!
//! ```sh
//! cargo run --release --example contact_parts              # every case, 3 rounds
//! cargo run --release --example contact_parts -- "both f0.3"  # one case (for perf)
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

fn main() -> Result<(), CableError> {
    let only = std::env::args().nth(1);
    for round in 0..3 {
        for (name, plane, spheres, friction) in CASES {
            if only.as_deref().is_some_and(|o| o != name) {
                continue;
            }
            let mut pool = build(plane, spheres)?;
            let params = SolverParams {
                iterations: 8,
                max_substeps: 120,
                friction,
                ..SolverParams::default()
            };
            let mut stepper = Stepper::with_layout(params, Layout::Lanes8)?;
            stepper.run_substeps(&mut pool, 120);
            let t = Instant::now();
            stepper.run_substeps(&mut pool, 120);
            println!("round {round} {name:13} {:.4} s", t.elapsed().as_secs_f64());
        }
    }
    Ok(())
}
