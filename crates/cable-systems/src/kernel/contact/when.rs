//! When a block's lanes meet their candidates: after every constraint
//! iteration, after the last two, or after the last alone
//! ([`Contacts::lanes_after`]).
//!
//! - A lane near a shape with a core (a capsule, a bar, a ball thinner
//!   than its segments: [`crate::kernel::narrow::core_of`]) or near a box
//!   meets its candidates after **every** iteration: a taut segment can be
//!   dragged over a core between two particles, and a cable bent over a
//!   box's edge is held there while the constraints pull, as before.
//! - A lane near a ball bigger than its segments (and no such shape) meets
//!   its candidates after the **last two** iterations: the last sweep
//!   evens out the strain the first pass gives the segments next to the
//!   contact.
//! - A lane near planes alone meets them after the **last** iteration, as
//!   Unreal's cable component collides once per substep after its
//!   constraint iterations: on a plane a push is along one normal for every
//!   particle, and the sweeps between passes would change nothing they
//!   keep.
//!
//! The iterations of a block none of whose lanes meets a candidate after
//! every iteration run as one wavefront (`kernel::substep`), and the
//! plane's pass, friction and the last pass then run as one pass over the
//! rows ([`Contacts::project_and_finish_planes`]). Measured on
//! `cable bench --scene contact` (2,000 cables on the ground and 20 balls)
//! in `docs/performance-history.md`, with the strain this costs at balls.
//!
//! Which lanes do what is each lane's own answer (from its own candidates
//! and segments), so a cable's results do not depend on the cables that
//! share its block: layouts and thread counts agree bit for bit.

use cable_core::ColliderSet;

use super::Contacts;
use crate::kernel::lane::{Lane, Mask};
use crate::kernel::store::{Block, Store};

impl<L: Lane> Contacts<L> {
    /// True when some lane of the block meets its candidates after every
    /// iteration (see the module docs); false when every lane meets them
    /// only after the last, or there are none.
    #[inline]
    #[must_use]
    pub fn every_iteration(&self) -> bool {
        self.every.any()
    }

    /// The lanes that meet their candidates in the contact pass after
    /// iteration `it` of `k` (0-based): after the last, every lane; after
    /// the one before it, also the lanes with a solid candidate (not a
    /// plane: a ball, a box or a capsule, whose surface a segment bends
    /// over, so that the last sweep evens out the strain a contact gives
    /// its neighbours); after the others, the lanes with a core alone.
    #[inline]
    #[must_use]
    pub fn lanes_after(&self, it: u32, k: u32) -> L::M {
        if it + 1 >= k {
            L::M::splat(true)
        } else if it + 2 == k {
            self.every | self.solid
        } else {
            self.every
        }
    }

    /// True when no lane meets a candidate before the last iteration but
    /// some lane with a solid candidate meets them before it too
    /// ([`Contacts::lanes_after`]).
    #[inline]
    #[must_use]
    pub fn solid_before_last(&self) -> bool {
        self.solid.any()
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
