//! Constraints system: Gauss-Seidel relaxation of distance and bending
//! constraints, rigid (classic) or compliant (XPBD), with the contact
//! passes of [`crate::kernel::contact`] between sweeps.
//!
//! Each of the substep's `iterations` sweeps visits the segments in order
//! 0, 1, …, n − 1 and moves the two particles of each along their difference
//! so that the segment regains its rest length, shared by inverse mass
//! (half each for equal masses, all of it onto the free one when the other
//! is pinned, nothing when both are pinned). With `stiffness`, a second
//! sweep does the same for particles i and i + 2 at the sum of the two rest
//! lengths (UE's and Flax's bending). Segments shorter than
//! [`cable_core::MIN_SEGMENT_LENGTH`] are skipped: their direction is undefined.
//!
//! With compliance α > 0 the sweeps are XPBD (Macklin et al. 2016): each
//! constraint accumulates a multiplier λ over the substep's iterations and
//! moves by `Δλ = (−C − α̃·λ) / (w_a + w_b + α̃)` with `α̃ = α / h²`. With
//! α = 0 the classic projection runs instead, so a rigid cable is exactly
//! UE's `SolveDistanceConstraint`.
//!
//! The arithmetic lives in the one kernel ([`crate::kernel::project_rigid`],
//! [`crate::kernel::project_soft`]); these functions run that stage alone
//! on the pool, for benchmarks and engines that schedule stages themselves.

use cable_core::{CableMut, ParticlePool};

use crate::kernel::Stages;
use crate::kernel::advance_cable;
use crate::params::SolverParams;

/// The solve stage alone: constraints and contacts.
const SOLVE: Stages = Stages {
    attach: false,
    integrate: false,
    constraints: true,
    collide: true,
};

/// Runs `iterations` sweeps over one cable's constraints, each followed by
/// a contact pass against the colliders near the cable, then friction.
pub fn solve_cable(c: &mut CableMut<'_>, params: &SolverParams) {
    advance_cable(c, params, 1, SOLVE, false);
}

/// Runs [`solve_cable`] on every cable of the pool, in parallel.
pub fn solve_constraints(pool: &mut ParticlePool, params: &SolverParams) {
    pool.par_for_each_cable(|mut c| solve_cable(&mut c, params));
}
