//! Friction of [`Contacts`] (step 4 of the contact model, see the
//! module docs of `contact`): position-based Coulomb friction against the
//! surface of the collider that pushed each particle.

use super::Contacts;
use super::geom::{displacement, s, tag};
use crate::kernel::lane::{Lane, Mask, V3};
use crate::kernel::store::Store;
use cable_core::WorldCollider;
use std::ops::Div;

impl<L: Lane> Contacts<L> {
    /// Position-based Coulomb friction with coefficient `mu`.
    #[inline(always)] // into one out-of-line copy per SIMD path
    pub fn friction<S: Store<L>>(&mut self, st: &mut S, world: &[WorldCollider], mu: L) {
        for i in 0..st.rows() {
            self.friction_row(st, world, mu, i);
        }
    }

    /// [`Contacts::friction`] on row `i` alone.
    #[inline(always)]
    pub(super) fn friction_row<S: Store<L>>(
        &mut self,
        st: &mut S,
        world: &[WorldCollider],
        mu: L,
        i: usize,
    ) {
        let zero = s::<L>(0.0);
        // Pushed this substep. Without `touch` (no candidate moves),
        // a push that is not zero: every contact that records its
        // collider in `touch` adds its push, and a push that is zero
        // (it cancelled, or a contact that moved nothing) gives
        // `load` zero, which `m` drops in either form, so `m` is the
        // same (a unit test compares the two).
        let push = self.push[i];
        let touched = st.free(i)
            & if self.touches {
                zero.lt(self.touch[i])
            } else {
                !(push.x.eq(zero) & push.y.eq(zero) & push.z.eq(zero))
            };
        if touched.none() {
            return; // a row in the air: no square root
        }
        let load = push.length();
        let m = touched & zero.lt(load);
        if m.none() {
            return;
        }
        let p = st.pos(i);
        let nrm = push.div(load);
        let mut carried = V3::<L>::zero();
        if self.touches {
            let touch = self.touch[i];
            for &k in &self.cands {
                let col = &world[k as usize];
                if !col.is_moving() {
                    continue;
                }
                let mk = m & touch.eq(tag(k));
                if mk.any() {
                    carried = V3::select(mk, displacement(col, p), carried);
                }
            }
        }
        let dx = p - st.prev(i) - carried;
        let slip = dx - nrm.scale(dx.dot(nrm));
        let len = slip.length();
        let hold = mu * load;
        // Static: stick to the surface; kinetic: slide, slowed.
        let stuck = len.le(hold);
        // A resting cable sticks everywhere: no division then.
        let moved = if (m & !stuck).any() {
            V3::select(stuck, p - slip, p - slip.scale(hold / len))
        } else {
            p - slip
        };
        st.set_pos(i, V3::select(m, moved, p));
        // Friction decided this particle's motion: no rounding of the
        // free motion to carry into the next substep (far from the
        // origin it would make a stuck cable creep), the positions as
        // stored.
        let carry = st.carry(i);
        let carry_prev = st.carry_prev(i);
        st.set_carry(i, V3::select(m, V3::zero(), carry));
        st.set_carry_prev(i, V3::select(m, V3::zero(), carry_prev));
        if self.forces && self.touches {
            // Forces (when measured) go to the collider that last
            // pushed the particle: friction's move, and the motion the
            // dropped carries held (far from the origin a substep's
            // h²·g can be all carry, the position never moving).
            let held = carry - carry_prev;
            self.load_by(self.touch[i], m, st.w(i), moved, moved - p - held);
        }
    }
}
