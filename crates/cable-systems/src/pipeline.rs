//! Pipelined constraint sweeps for long cables: the same Gauss-Seidel
//! solve as [`crate::constraints::solve_cable`], bit for bit, with the
//! iteration sweeps overlapped so that several dependency chains are in
//! flight at once.
//!
//! One sweep along a cable is a chain: each constraint needs the particle the
//! previous one just moved, so a plain sweep runs at the latency of one
//! `sqrt` + one division per segment (about 6 × 10⁷ segments/s here). But
//! sweep `k + 1` only needs sweep `k` to be done with the particles it
//! touches: sweep `k + 1` may solve constraint `j` as soon as sweep `k` has
//! solved every constraint that touches particles `j ..= j + span`. Starting
//! each sweep a fixed *lag* of `span + 1` constraints behind the one before
//! it (2 for distance, 3 for bending) therefore gives every particle exactly
//! the sequence of updates of the plain solver, while the sweeps of one
//! *step* touch disjoint particles and run in parallel in the CPU's
//! out-of-order window.
//!
//! # Example
//! ```
//! use cable_core::{CableDesc, ParticlePool};
//! use cable_systems::{SolverParams, constraints::solve_cable, pipeline::solve_cable_pipelined};
//! use glam::Vec3;
//!
//! let desc = CableDesc::line(Vec3::ZERO, Vec3::new(50.0, 0.0, 0.0), 60.0, 500)?;
//! let (mut a, mut b) = (ParticlePool::new(), ParticlePool::new());
//! a.add_cable(&desc)?;
//! b.add_cable(&desc)?;
//! let params = SolverParams::default();
//! cable_systems::integrate::integrate(&mut a, &params);
//! cable_systems::integrate::integrate(&mut b, &params);
//! a.par_for_each_cable(|mut c| solve_cable(&mut c, &params));
//! b.par_for_each_cable(|mut c| solve_cable_pipelined(&mut c, &params));
//! assert_eq!(a.all_positions(), b.all_positions()); // bit for bit
//! # Ok::<(), cable_core::CableError>(())
//! ```

use cable_core::CableMut;

use crate::constraints::{project, project_compliant};
use crate::params::SolverParams;

/// Cables with at least this many segments take the pipelined solve in the
/// `Soa` and `Lanes8` layouts; shorter ones gain little (ramp-up and
/// ramp-down of the pipeline) and keep the plain loop.
pub const PIPELINE_MIN_SEGMENTS: usize = 64;

/// Runs `iterations` Gauss-Seidel sweeps over one cable's constraints, with
/// the sweeps pipelined (see the module docs); bitwise identical to
/// [`crate::constraints::solve_cable`].
pub fn solve_cable_pipelined(c: &mut CableMut<'_>, params: &SolverParams) {
    let n = c.pos.len();
    let segs = n - 1;
    let stiff = c.params.stiffness && n >= 3;
    let compliance = c.params.compliance;
    let w = c.inv_mass;
    let rest = c.rest;
    let pos = &mut *c.pos;
    let iters = params.iterations as usize;
    // Sweep s = 2k (distance of iteration k) starts at step k·period;
    // s = 2k + 1 (bending) starts 3 later. Distance after bending needs a
    // lag of 2, so the period is 5 with bending and 2 without.
    let period = if stiff { 5 } else { 2 };
    let bend_lag = 3;
    let last_start = (iters - 1) * period + if stiff { bend_lag } else { 0 };
    let last_len = if stiff { segs - 1 } else { segs };
    let steps = last_start + last_len;
    let alpha_t = if compliance == 0.0 {
        None
    } else {
        let h = params.substep;
        c.lambda.fill(0.0);
        c.lambda_bend.fill(0.0);
        Some(compliance / (h * h))
    };
    // Iterations whose distance sweep is active: start ≤ t < start + segs;
    // `lo` advances monotonically, `hi` is computed from t.
    let span = if stiff { bend_lag + segs - 1 } else { segs };
    let mut lo = 0usize;
    for t in 0..steps {
        // Iteration `lo` is done once both its sweeps have passed their ends.
        while lo < iters && lo * period + span <= t {
            lo += 1;
        }
        let hi = (t / period).min(iters - 1);
        for k in lo..=hi {
            let start = k * period;
            // Distance sweep of iteration k, constraint t - start.
            if t >= start && t - start < segs {
                let i = t - start;
                match alpha_t {
                    None => project(pos, i, i + 1, w[i], w[i + 1], rest[i]),
                    Some(a) => {
                        let l = &mut c.lambda[i];
                        project_compliant(pos, i, i + 1, w[i], w[i + 1], rest[i], a, l);
                    }
                }
            }
            // Bending sweep of iteration k, constraint t - start - 3.
            if stiff && t >= start + bend_lag && t - start - bend_lag < segs - 1 {
                let i = t - start - bend_lag;
                let r = rest[i] + rest[i + 1];
                match alpha_t {
                    None => project(pos, i, i + 2, w[i], w[i + 2], r),
                    Some(a) => {
                        let l = &mut c.lambda_bend[i];
                        project_compliant(pos, i, i + 2, w[i], w[i + 2], r, a, l);
                    }
                }
            }
        }
    }
}
