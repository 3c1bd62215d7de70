//! Attachments system: pinned ends follow their targets.
//!
//! As UE's `TickComponent` does each tick, an attached end particle is set to
//! its target, position *and* previous position, so it carries no velocity of
//! its own into the constraint solve.

use cable_core::{CableMut, ParticlePool};

/// Puts every attached end of one cable at its target.
#[inline]
pub fn attach_cable(c: &mut CableMut<'_>) {
    let last = c.pos.len() - 1;
    for (slot, row) in [(0, 0), (1, last)] {
        if let Some(t) = c.attach[slot] {
            c.pos[row] = t;
            c.prev[row] = t;
        }
    }
}

/// Runs [`attach_cable`] on every cable of the pool, in parallel.
pub fn apply_attachments(pool: &mut ParticlePool) {
    pool.par_for_each_cable(|mut c| attach_cable(&mut c));
}
