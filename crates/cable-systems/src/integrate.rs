//! Integrate system: position Verlet with gravity, force and linear damping.
//!
//! For every free particle (inverse mass > 0), with `h` the substep:
//!
//! ```text
//! v      = (p - p_prev) · keep          keep = max(0, 1 - damping·h), exactly 1 without damping
//! p_prev = p
//! p      = p + v + h² · (gravity · gravity_scale + force)
//! ```
//!
//! which is UE's `VerletIntegrate` when damping is 0, bit for bit. The
//! arithmetic is the kernel's ([`crate::kernel::integrate`]).

use cable_core::{CableMut, ParticlePool};

use crate::kernel::{self, Block};
use crate::params::SolverParams;

/// Integrates one cable over one substep.
#[inline]
pub fn integrate_cable(c: &mut CableMut<'_>, params: &SolverParams) {
    let b = Block::of_cable(c.params, c.attach, c.pos.len(), params);
    kernel::integrate(c, &b);
}

/// Runs [`integrate_cable`] on every cable of the pool, in parallel.
pub fn integrate(pool: &mut ParticlePool, params: &SolverParams) {
    pool.par_for_each_cable(|mut c| integrate_cable(&mut c, params));
}
