//! The direct solver's cost against Gauss-Seidel's on the same workload,
//! in one run (issue 41): `cable bench`'s free-air workload (cables ×
//! segments, 8 iterations, one frame of all substeps), each solver timed
//! alternately, best of `REPEAT`, on every layout.
//!
//! ```text
//! cargo run --release --example direct_cost -- [cables] [segments] [substeps] [bend_stiffness]
//! ```
//!
//! With `bend_stiffness` (EI, N·m², default 0: ropes) every cable is a
//! rod: Gauss-Seidel then sweeps its curvature constraints after the
//! distance sweep, the direct solver solves them in its Newton step.

use std::time::Instant;

use cable::systems::{Layout, Solver, Stepper};
use cable::workload::Workload;

const REPEAT: usize = 3;

fn main() {
    let arg = |i: usize, d: u64| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let w = Workload {
        cables: arg(1, 2_000) as usize,
        segments: arg(2, 32) as u32,
        substeps: arg(3, 60) as u32,
        ..Workload::default()
    };
    let ei = std::env::args()
        .nth(4)
        .and_then(|a| a.parse::<f32>().ok())
        .unwrap_or(0.0);
    println!(
        "{} cables x {} segments, {} iterations, {} substeps, bend_stiffness {ei}, best of {REPEAT}",
        w.cables, w.segments, w.iterations, w.substeps
    );
    for layout in Layout::ALL {
        let mut best = [f64::INFINITY; 2];
        for _ in 0..REPEAT {
            for (k, solver) in [Solver::GaussSeidel, Solver::Direct]
                .into_iter()
                .enumerate()
            {
                let mut params = w.params();
                params.solver = solver;
                let mut pool = w.build().expect("builds");
                if ei > 0.0 {
                    for h in pool.handles().collect::<Vec<_>>() {
                        let mut p = *pool.params(h).expect("live");
                        p.bend_stiffness = ei;
                        pool.set_params(h, p).expect("valid");
                    }
                }
                let mut st = Stepper::with_layout(params, layout).expect("valid");
                st.validate_pool(&pool).expect("valid");
                st.run_substeps(&mut pool, 1);
                let t = Instant::now();
                st.run_substeps(&mut pool, w.substeps);
                best[k] = best[k].min(t.elapsed().as_secs_f64());
                assert!(pool.all_finite());
            }
        }
        let per = |s: f64| {
            s * 1e9
                / (w.cables as f64 * f64::from(w.segments) * f64::from(w.iterations))
                / f64::from(w.substeps)
        };
        println!(
            "{layout}: gauss-seidel {:.3} s ({:.2} ns per segment-iteration), direct {:.3} s ({:.2} ns), direct / gauss-seidel {:.2}",
            best[0],
            per(best[0]),
            best[1],
            per(best[1]),
            best[1] / best[0]
        );
    }
}
