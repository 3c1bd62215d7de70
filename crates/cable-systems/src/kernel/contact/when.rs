//! When a block's lanes meet their candidates: after every constraint
//! iteration, or after the last alone ([`Contacts::lanes_after`]).
//!
//! - A lane near a solid (a ball, a capsule, a box) meets its candidates,
//!   planes included, after **every** iteration: a taut segment can be
//!   dragged over a thin shape between two particles, a cable bent over a
//!   ball or a box's edge is held there while the constraints pull, and a
//!   ball pressing a cable onto the ground is met by both in every
//!   iteration (its push along the wedge between them), so the cable is
//!   squeezed out rather than through.
//! - A lane near planes alone meets them after the **last** iteration, as
//!   Unreal's cable component collides once per substep after its
//!   constraint iterations: a plane pushes every particle along its one
//!   normal, and the same rope on the ground, on a slope, dropped from
//!   5 m or pressed into a corner of two planes ends each substep outside
//!   them either way.
//!
//! The iterations of a block none of whose lanes is near a solid run as
//! one wavefront (`kernel::substep`), and the planes' pass, friction and
//! the last pass then run as one pass over the rows
//! ([`Contacts::project_and_finish_planes`]). Measured on
//! `cable bench --scene ground` and `--scene contact` in
//! `docs/performance-history.md`.
//!
//! Which lanes do what is each lane's own answer (from its own
//! candidates), so a cable gets the same result whatever cables share its
//! block: layouts and thread counts agree bit for bit.

use cable_core::ColliderSet;

use super::Contacts;
use crate::kernel::lane::{Lane, Mask};
use crate::kernel::store::{Block, Store};

impl<L: Lane> Contacts<L> {
    /// True when some lane of the block is near a solid and so meets its
    /// candidates after every iteration (see the module docs); false when
    /// every lane meets them only after the last, or there are none.
    #[inline]
    #[must_use]
    pub fn every_iteration(&self) -> bool {
        self.every.any()
    }

    /// The lanes with some candidate this substep (after a
    /// [`Contacts::find`] that returned true).
    #[inline]
    #[must_use]
    pub fn lanes(&self) -> L::M {
        self.cand_m
            .iter()
            .fold(L::M::splat(false), |all, &m| all | m)
    }

    /// The lanes that meet their candidates in the contact pass after
    /// iteration `it` of `k` (0-based): after the last, every lane; after
    /// the others, the lanes near a solid (see the module docs).
    #[inline]
    #[must_use]
    pub fn lanes_after(&self, it: u32, k: u32) -> L::M {
        if it + 1 >= k {
            L::M::splat(true)
        } else {
            self.every
        }
    }

    /// Cuts every candidate's lanes down to `lanes` for the next contact
    /// pass; [`Contacts::widen`] gives the others back.
    pub fn narrow(&mut self, lanes: L::M) {
        self.cand_all.clear();
        self.cand_all.extend_from_slice(&self.cand_m);
        for m in &mut self.cand_m {
            *m = *m & lanes;
        }
    }

    /// Undoes [`Contacts::narrow`]: every candidate's lanes again.
    pub fn widen(&mut self) {
        std::mem::swap(&mut self.cand_m, &mut self.cand_all);
    }

    /// One contact pass ([`Contacts::project`]) on `lanes` alone (all of
    /// them: no narrowing).
    #[inline(always)]
    pub fn project_on<S: Store<L>>(
        &mut self,
        st: &mut S,
        b: &Block<L>,
        set: &ColliderSet,
        lanes: L::M,
    ) {
        if lanes.all() {
            self.project(st, b, set);
        } else if lanes.any() {
            self.narrow(lanes);
            self.project(st, b, set);
            self.widen();
        }
    }
}
