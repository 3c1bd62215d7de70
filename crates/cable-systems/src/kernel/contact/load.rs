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

use cable_core::{CableHandle, ColliderSet};
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
        if self.measure {
            let c = self.centres[ci];
            self.loads[ci].add(lanes, c, m, w, at, dp);
        }
    }

    /// [`Contacts::load_on`] for a move whose collider differs by lane:
    /// lanes `m` were moved by the candidate tagged `by` ([`tag`]).
    #[inline(always)]
    pub(super) fn load_by(&mut self, by: L, m: L::M, w: L, at: V3<L>, dp: V3<L>) {
        if !self.measure {
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

    /// Starts the substep's loads: zero for every candidate.
    pub(super) fn start_loads(&mut self, set: &ColliderSet) {
        self.loads.clear();
        self.centres.clear();
        if self.measure {
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
    ///
    /// When contacts are tracked, the lanes each candidate pushed are added
    /// to the block's touches, which [`Contacts::report_touches`] hands to
    /// the collider set after the block's substeps.
    pub fn report_loads(&mut self, set: &ColliderSet, h2: f32) {
        if !self.measure {
            return;
        }
        let world = set.prepared();
        if self.forces {
            let k = -1.0 / h2;
            for ((&c, &cm), load) in self.cands.iter().zip(&self.cand_m).zip(&self.loads) {
                for l in (0..L::WIDTH).filter(|&l| cm.lane(l)) {
                    let at = |v: V3<L>| Vec3::new(v.x.lane(l), v.y.lane(l), v.z.lane(l)) * k;
                    set.add_contact_load(&world[c as usize], at(load.lin), at(load.ang));
                }
            }
        }
        if self.events {
            for (&c, load) in self.cands.iter().zip(&self.loads) {
                if (0..L::WIDTH).all(|l| load.hit.lane(l) == 0.0) {
                    continue;
                }
                let h = world[c as usize].handle;
                // A handful of colliders touch one block: a linear search.
                match self.touched.iter_mut().find(|(t, _)| *t == h) {
                    Some((_, hit)) => *hit = hit.max(load.hit),
                    None => self.touched.push((h, load.hit)),
                }
            }
        }
    }

    /// Hands the block's touches since the last call to the collider set
    /// ([`ColliderSet::add_contacts`]) as (cable, collider) pairs, lane
    /// `l` being cable `cable_of(l)`, and forgets them. The layouts call
    /// it after a block's substeps; nothing when contacts are not tracked.
    pub fn report_touches(
        &mut self,
        set: &ColliderSet,
        cable_of: impl Fn(usize) -> Option<CableHandle>,
    ) {
        if self.touched.is_empty() {
            return;
        }
        let cable_of = &cable_of;
        set.add_contacts(self.touched.iter().flat_map(|&(col, hit)| {
            (0..L::WIDTH)
                .filter(move |&l| hit.lane(l) != 0.0)
                .filter_map(move |l| cable_of(l).map(|c| (c, col)))
        }));
        self.touched.clear();
    }
}
