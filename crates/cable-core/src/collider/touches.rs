//! Contact tracking: which cable touched which collider during a step,
//! for games that react to contact (`ColliderSet::set_track_contacts`,
//! `ColliderSet::add_contacts`, `ColliderSet::take_contacts`, in
//! `measure.rs`): the log the solver fills.
//!
//! The solver adds the pairs block by block and in parallel, each block
//! once per step under a lock; the order they arrive in depends on the
//! threads, so the reader sorts them (`cable_systems::Stepper` does).

use std::sync::{Mutex, PoisonError};

use crate::handle::{CableHandle, ColliderHandle};

/// The (cable, collider) pairs that touched during the step, unsorted and
/// possibly repeated.
#[derive(Debug, Default)]
pub(super) struct TouchLog {
    pub(super) on: bool,
    pub(super) pairs: Mutex<Vec<(CableHandle, ColliderHandle)>>,
}

impl TouchLog {
    /// The pairs, for reading or writing alone (`&mut`: no lock taken).
    pub(super) fn pairs_mut(&mut self) -> &mut Vec<(CableHandle, ColliderHandle)> {
        // A panic while the lock was held left a list of pairs, nothing
        // half-written: it is still a valid list.
        self.pairs.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Clone for TouchLog {
    fn clone(&self) -> Self {
        let pairs = self
            .pairs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        Self {
            on: self.on,
            pairs: Mutex::new(pairs),
        }
    }
}
