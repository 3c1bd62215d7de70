//! Attachments system: pinned ends follow their targets.
//!
//! As UE's `TickComponent` does each tick, an attached end particle is set to
//! its target, position *and* previous position, so it carries no velocity of
//! its own into the constraint solve. The arithmetic is the kernel's
//! ([`crate::kernel::attach`]).

use cable_core::{CableMut, ParticlePool};

use crate::kernel::{self, Block};
use crate::params::SolverParams;

/// Puts every attached end of one cable at its target.
#[inline]
pub fn attach_cable(c: &mut CableMut<'_>) {
    let b = Block::of_cable(c.params, c.attach, c.pos.len(), &SolverParams::default());
    kernel::attach(c, &b);
}

/// Runs [`attach_cable`] on every cable of the pool, in parallel.
pub fn apply_attachments(pool: &mut ParticlePool) {
    pool.par_for_each_cable(|mut c| attach_cable(&mut c));
}
