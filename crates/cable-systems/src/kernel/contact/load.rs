//! Contact forces of [`Contacts`]: while the colliders measure them
//! ([`cable_core::ColliderSet::set_measure_forces`]), every contact move of
//! a substep (sweeps, contact passes, un-crossing and its put-backs,
//! friction) adds `m · Δx` and `(x − c) × m · Δx` to its collider's
//! [`Load`], per lane; at the end of the substep each lane's load becomes
//! a force `−Σ m·Δx / h²` and torque on the collider
//! ([`Contacts::report_loads`]). A particle's contact moves are the
//! impulses the collider gave it; their opposite is what it pushed.
//!
//! Every layout runs the same per-lane operations in the same order (the
//! lane rules), and the collider set sums in fixed point, so the forces
//! are bitwise the same across layouts, thread counts and SIMD paths.

use cable_core::ColliderSet;
use glam::Vec3;

use super::Contacts;
use super::geom::tag;
use super::shape::{All, Lanes, Load};
use crate::kernel::lane::{Lane, Mask, V3};

impl<L: Lane> Contacts<L> {
    /// Adds to candidate `ci`'s load (when forces are measured): lanes
    /// `m` of `lanes` of a particle of inverse mass `w` moved by `dp` to
    /// `at`.
    #[inline(always)]
    pub(super) fn load_on<P: Lanes<L>>(
        &mut self,
        ci: usize,
        lanes: P,
        m: <P::G as Lane>::M,
        w: P::G,
        at: V3<P::G>,
        dp: V3<P::G>,
    ) {
        if self.forces {
            let c = self.centres[ci];
            self.loads[ci].add(lanes, c, m, w, at, dp);
        }
    }

    /// [`Contacts::load_on`] for a move whose collider differs by lane:
    /// lanes `m` were moved by the candidate tagged `by` ([`tag`]).
    #[inline(always)]
    pub(super) fn load_by(&mut self, by: L, m: L::M, w: L, at: V3<L>, dp: V3<L>) {
        if !self.forces {
            return;
        }
        for ci in 0..self.cands.len() {
            let mk = m & by.eq(tag(self.cands[ci]));
            if mk.any() {
                let c = self.centres[ci];
                self.loads[ci].add(All, c, mk, w, at, dp);
            }
        }
    }

    /// Whether this substep measures contact forces (the colliders'
    /// [`ColliderSet::measures_forces`] as [`Contacts::find`] saw it).
    #[inline]
    #[must_use]
    pub fn measures_forces(&self) -> bool {
        self.forces
    }

    /// Starts the substep's loads: zero for every candidate.
    pub(super) fn start_loads(&mut self, set: &ColliderSet) {
        self.loads.clear();
        self.centres.clear();
        if self.forces {
            let world = set.prepared();
            self.loads.resize(self.cands.len(), Load::zero());
            self.centres
                .extend(self.cands.iter().map(|&k| world[k as usize].position()));
        }
    }

    /// Ends the substep's loads (after [`Contacts::finish`]): each lane's
    /// load on each candidate, as force `−Σ m·Δx / h²` and torque, goes to
    /// the collider set's sums ([`ColliderSet::add_contact_load`]); `h2`
    /// is the substep squared.
    pub fn report_loads(&self, set: &ColliderSet, h2: f32) {
        if !self.forces {
            return;
        }
        let world = set.prepared();
        let k = -1.0 / h2;
        for ((&c, &cm), load) in self.cands.iter().zip(&self.cand_m).zip(&self.loads) {
            for l in (0..L::WIDTH).filter(|&l| cm.lane(l)) {
                let at = |v: V3<L>| Vec3::new(v.x.lane(l), v.y.lane(l), v.z.lane(l)) * k;
                set.add_contact_load(&world[c as usize], at(load.lin), at(load.ang));
            }
        }
    }
}
