//! The pool's revision numbers, which tell the layouts' cached copies what
//! changed since they last looked. The fields are private to this file:
//! an edit can only record itself through one of the methods below, each
//! named for the kind of edit and bumping exactly the numbers that kind
//! must bump, so no call site can bump one number and forget its partner
//! (the review of 2026-11-27 counted 22 hand-written bump sites).
//!
//! | edit | `any` | `structure` | `targets` | `params` | the cable's |
//! | --- | --- | --- | --- | --- | --- |
//! | [`Revisions::structure`]: cables added, removed, resized, woken, columns lent | new | new | | | |
//! | [`Revisions::state`]: one cable's particle state | new | | | | `state` |
//! | [`Revisions::constants`]: one cable's parameters or masses | new | | | | `constants` |
//! | [`Revisions::targets`]: attached targets moved | | | new | | |
//! | [`Revisions::params`]: a cable added or its parameters replaced | | | | new | |
//! | [`Revisions::bulk`]: every cable's particles lent to a caller outside a step | | | | | |
//! | [`Revisions::stepped`]: a step simulated the cable | | | | | `stepped` |
//! | [`Revisions::shape`]: cables added or removed, a count changed, parameters replaced | | | | | |
//!
//! `shape` is what a mesh's layout of ranges is kept by. `bulk` and
//! `stepped` feed only [`Revisions::moved`], what a cable's mesh is
//! kept by: the latest of its `state`, `constants` and `stepped` numbers
//! and of `bulk` (a caller that had every cable's particles may have
//! moved any of them).
//!
//! A leaf of the pool: imports nothing of it.

use std::sync::atomic::{AtomicU64, Ordering};

/// Source of pool revisions: unique across all pools of the process.
static NEXT_REVISION: AtomicU64 = AtomicU64::new(1);

/// A fresh revision number.
fn next_revision() -> u64 {
    NEXT_REVISION.fetch_add(1, Ordering::Relaxed)
}

/// The pool-wide revision numbers (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Revisions {
    any: u64,
    structure: u64,
    targets: u64,
    params: u64,
    bulk: u64,
    shape: u64,
}

/// One cable's revision numbers: the pool revision of the last edit of
/// its particle state alone, and of its constants (parameters, masses)
/// alone. Not saved: a restored pool has fresh revisions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CableRevisions {
    state: u64,
    constants: u64,
    stepped: u64,
}

impl CableRevisions {
    /// The pool revision of the last edit of the cable's particle state.
    #[inline]
    pub(crate) fn state(self) -> u64 {
        self.state
    }

    /// The pool revision of the last change of the cable's constants.
    #[inline]
    pub(crate) fn constants(self) -> u64 {
        self.constants
    }
}

impl Revisions {
    /// Fresh numbers, unique across the process (a new or restored pool).
    pub(crate) fn fresh() -> Self {
        Self {
            any: next_revision(),
            structure: next_revision(),
            targets: next_revision(),
            params: next_revision(),
            bulk: next_revision(),
            shape: next_revision(),
        }
    }

    /// Changes when the cables' handles, order, particle counts or
    /// parameters may have changed ([`Revisions::shape`]).
    #[inline]
    pub(crate) fn shape_number(&self) -> u64 {
        self.shape
    }

    /// Records that a cable was added or removed, its particle count
    /// changed, or its parameters were replaced: what the ranges of a
    /// mesh's layout are made from.
    #[inline]
    pub(crate) fn shape(&mut self) {
        self.shape = next_revision();
    }

    /// The latest number of any edit that may have moved `cable`'s
    /// particles or changed what its mesh is made from: its state, its
    /// constants, a step that simulated it, or every cable's particles
    /// lent out ([`Revisions::bulk`]). Numbers only grow, so this changes
    /// exactly when one of them does.
    #[inline]
    pub(crate) fn moved(&self, cable: CableRevisions) -> u64 {
        cable
            .state
            .max(cable.constants)
            .max(cable.stepped)
            .max(self.bulk)
    }

    /// The number of the last [`Revisions::bulk`].
    #[inline]
    pub(crate) fn bulk_number(&self) -> u64 {
        self.bulk
    }

    /// Records that a caller had every cable's particles to change
    /// (`ParticlePool::columns_mut`).
    #[inline]
    pub(crate) fn bulk(&mut self) {
        self.bulk = next_revision();
    }

    /// Forgets the [`Revisions::bulk`] edits after `before`: a stepper's
    /// own, whose changes it records per cable with
    /// [`Revisions::stepped`] instead.
    #[inline]
    pub(crate) fn restore_bulk(&mut self, before: u64) {
        self.bulk = before;
    }

    /// A fresh number for the cables a step simulated
    /// ([`Revisions::stepped`]).
    #[inline]
    pub(crate) fn step_number() -> u64 {
        next_revision()
    }

    /// Records that a step simulated `cable`, as number `number`.
    #[inline]
    pub(crate) fn stepped(cable: &mut CableRevisions, number: u64) {
        cable.stepped = number;
    }

    /// Changes with every edit but moves of attached targets.
    #[inline]
    pub(crate) fn any(&self) -> u64 {
        self.any
    }

    /// Changes with every edit but those of one cable's state or constants.
    #[inline]
    pub(crate) fn structure_number(&self) -> u64 {
        self.structure
    }

    /// Changes when an attached end's target moves.
    #[inline]
    pub(crate) fn targets_number(&self) -> u64 {
        self.targets
    }

    /// Changes when a cable is added or its parameters are replaced.
    #[inline]
    pub(crate) fn params_number(&self) -> u64 {
        self.params
    }

    /// Records an edit of the pool's structure (or of anything a layout
    /// must re-copy whole).
    #[inline]
    pub(crate) fn structure(&mut self) {
        self.any = next_revision();
        self.structure = self.any;
    }

    /// Records an edit of one cable's particle state alone.
    #[inline]
    pub(crate) fn state(&mut self, cable: &mut CableRevisions) {
        self.any = next_revision();
        cable.state = self.any;
    }

    /// Records a change of one cable's parameters or masses alone.
    #[inline]
    pub(crate) fn constants(&mut self, cable: &mut CableRevisions) {
        self.any = next_revision();
        cable.constants = self.any;
    }

    /// Records a move of attached targets alone.
    #[inline]
    pub(crate) fn targets(&mut self) {
        self.targets = next_revision();
    }

    /// Records that a cable was added or its parameters replaced.
    #[inline]
    pub(crate) fn params(&mut self) {
        self.params = next_revision();
    }
}

#[cfg(test)]
mod tests {
    use super::{CableRevisions, Revisions};

    #[test]
    fn each_edit_bumps_exactly_its_numbers() {
        let mut r = Revisions::fresh();
        let mut c = CableRevisions::default();
        let snap = |r: &Revisions| {
            (
                r.any(),
                r.structure_number(),
                r.targets_number(),
                r.params_number(),
            )
        };
        let (a, s, t, p) = snap(&r);
        r.state(&mut c);
        assert!(r.any() > a && c.state() == r.any() && c.constants() == 0);
        assert_eq!(
            (r.structure_number(), r.targets_number(), r.params_number()),
            (s, t, p)
        );
        let (a, s, t, p) = snap(&r);
        r.constants(&mut c);
        assert!(r.any() > a && c.constants() == r.any());
        assert_eq!(
            (r.structure_number(), r.targets_number(), r.params_number()),
            (s, t, p)
        );
        let (a, _, t, p) = snap(&r);
        r.structure();
        assert!(r.any() > a && r.structure_number() == r.any());
        assert_eq!((r.targets_number(), r.params_number()), (t, p));
        let (a, s, t, p) = snap(&r);
        r.targets();
        assert!(r.targets_number() > t);
        assert_eq!(
            (r.any(), r.structure_number(), r.params_number()),
            (a, s, p)
        );
        let (a, s, t, p) = snap(&r);
        r.params();
        assert!(r.params_number() > p);
        assert_eq!(
            (r.any(), r.structure_number(), r.targets_number()),
            (a, s, t)
        );
        // What a mesh is kept by: the latest of the cable's numbers and
        // the bulk one; a stepper's own bulk edits are forgotten.
        let (a, s, t, p) = snap(&r);
        let m = r.moved(c);
        let before = r.bulk_number();
        r.bulk();
        assert!(r.moved(c) > m);
        assert_eq!(snap(&r), (a, s, t, p), "bulk moves nothing else");
        r.restore_bulk(before);
        assert_eq!(r.moved(c), m);
        let n = Revisions::step_number();
        Revisions::stepped(&mut c, n);
        assert_eq!(r.moved(c), n);
        let other = CableRevisions::default();
        assert_eq!(r.moved(other), r.bulk_number(), "a cable not stepped");
    }
}
