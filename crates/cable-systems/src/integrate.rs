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
//! which is UE's `VerletIntegrate` when damping is 0, bit for bit.

use cable_core::{CableMut, ParticlePool};

use crate::params::SolverParams;

/// Integrates one cable over one substep.
#[inline]
pub fn integrate_cable(c: &mut CableMut<'_>, params: &SolverParams) {
    let h = params.substep;
    let acc = params.gravity * c.params.gravity_scale + c.params.force;
    let dacc = acc * (h * h);
    let keep = params.velocity_keep();
    for ((p, q), &w) in c.pos.iter_mut().zip(c.prev.iter_mut()).zip(c.inv_mass) {
        if w > 0.0 {
            let cur = *p;
            let v = (cur - *q) * keep;
            *q = cur;
            *p = cur + v + dacc;
        }
    }
}

/// Runs [`integrate_cable`] on every cable of the pool, in parallel.
pub fn integrate(pool: &mut ParticlePool, params: &SolverParams) {
    pool.par_for_each_cable(|mut c| integrate_cable(&mut c, params));
}
