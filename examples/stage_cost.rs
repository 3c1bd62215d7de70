//! What a full substep costs next to its constraints alone, per layout.
//!
//! Runs the issue's cable shape (32 segments, 8 iterations) and alternates
//! timing 20 substeps of the constraints alone with 20 full substeps
//! (attachments + integrate + constraints), many rounds, keeping the fastest
//! round of each: on a shared machine the minimum is the least disturbed.
//!
//! ```sh
//! cargo run --release --example stage_cost
//! ```

use std::time::Instant;

use cable::systems::{Layout, Stages};
use cable::workload::Workload;

fn main() -> Result<(), cable::CableError> {
    let w = Workload {
        cables: 2_000,
        segments: 32,
        iterations: 8,
        substeps: 1,
        frame_substeps: 1,
        ..Workload::default()
    };
    println!(
        "{} cables x {} segments, {} iterations, one substep per frame",
        w.cables, w.segments, w.iterations
    );
    println!(
        "{:<8} {:>16} {:>16} {:>12}",
        "layout", "constraints ms", "full step ms", "step/constr"
    );
    for layout in Layout::ALL {
        let (mut pool, mut stepper) = w.prepare(layout)?;
        let mut best = [f64::INFINITY; 2];
        for _round in 0..15 {
            for (k, stages) in [Stages::CONSTRAINTS, Stages::ALL].into_iter().enumerate() {
                let t = Instant::now();
                for _ in 0..20 {
                    stepper.run_stages(&mut pool, 1, stages);
                }
                best[k] = best[k].min(t.elapsed().as_secs_f64() * 1e3 / 20.0);
            }
        }
        println!(
            "{:<8} {:>16.3} {:>16.3} {:>12.2}",
            layout.name(),
            best[0],
            best[1],
            best[1] / best[0]
        );
    }
    Ok(())
}
