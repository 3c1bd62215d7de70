//! The plane contact passes of [`Contacts`]: a plane's test is one dot
//! product (one coordinate for an axis-aligned plane), run row by row,
//! alone or with friction and the last pass in one pass over the rows
//! ([`Contacts::project_and_finish_planes`]).

use super::Contacts;
use super::geom::Plane;
use super::geom::{coord, s};
use super::shape::All;
use crate::kernel::lane::{Lane, Mask, V3};
use crate::kernel::store::Store;
use cable_core::WorldCollider;

impl<L: Lane> Contacts<L> {
    /// [`Contacts::project`]'s contact with the plane `pl` (`n·x = off`)
    /// on its candidate lanes: the same operations as `point_contact_l`,
    /// written out here. `ci`: the plane's candidate index (for its load,
    /// `load.rs`).
    #[inline(always)]
    pub fn project_plane<S: Store<L>>(&mut self, st: &mut S, pl: &Plane<L>, r: L, ci: usize) {
        for i in 0..st.rows() {
            let mut p = st.pos(i);
            let q = p;
            let hit = self.dot_plane_row(i, &mut p, st.free(i), pl, r);
            if hit.any() {
                st.set_pos(i, p);
                if self.measure {
                    self.load_on(ci, All, hit, st.w(i), p, p - q);
                }
            }
        }
    }

    /// [`Contacts::project_plane`] on row `i`: particle `p`, its free
    /// lanes `free`. Returns the lanes it pushed.
    #[inline(always)]
    pub(super) fn dot_plane_row(
        &mut self,
        i: usize,
        p: &mut V3<L>,
        free: L::M,
        pl: &Plane<L>,
        r: L,
    ) -> L::M {
        let m = pl.cm & free;
        if m.none() {
            return m;
        }
        let phi = pl.nv.dot(*p) - pl.off;
        let hit = m & phi.lt(r);
        if hit.none() {
            return hit;
        }
        let dp = pl.nv.scale(r - phi);
        *p = V3::select(hit, *p + dp, *p);
        self.pushed(i, hit, dp, pl.kf);
        hit
    }

    /// [`Contacts::project`]'s plane contact for a plane whose normal is
    /// axis `AXIS` (`pl.neg`: its negative), as `axis_normal` found it;
    /// the candidate lanes `pl.cm`, the plane's offset `pl.off`. For finite positions
    /// this is bitwise the dot-product form:
    ///
    /// - `n·p` is `±p[axis]` plus products `+0·p[j]`, zeros that change it
    ///   at most in the sign of a zero; neither `φ < r` nor `r − φ` tells
    ///   `+0` from `−0` (and `φ = n·p − offset` does not either, unless the
    ///   offset is zero);
    /// - a touching lane's push `n·(r − φ)` is `+0` off the axis, since
    ///   `r − φ > 0` there: those coordinates still get `+ 0`, which turns
    ///   a `−0` into `+0` as the dot-product form does. Friction's pushes
    ///   start at `+0` and a sum is `−0` only when both terms are, so their
    ///   off-axis coordinates are left as they are.
    ///
    /// Where a coordinate is not finite (`0·∞` is NaN) the forms differ;
    /// every layout runs this one, so the layouts still agree.
    ///
    /// The ground plane is the largest part of the contact scene's cost,
    /// and this form is the cheaper one: one coordinate instead of a dot
    /// product (instruction counts of the `contact_parts` example in
    /// `docs/performance-history.md`).
    #[inline(always)]
    pub fn project_axis_plane<S: Store<L>, const AXIS: usize>(
        &mut self,
        st: &mut S,
        pl: &Plane<L>,
        r: L,
        ci: usize,
    ) {
        for i in 0..st.rows() {
            // One test per row (rows with no candidate lane are rare: the
            // plane is a candidate for most of a block near it).
            let mut p = st.pos(i);
            let q = p;
            let hit = self.axis_plane_row::<AXIS>(i, &mut p, st.free(i), pl, r);
            if hit.any() {
                st.set_pos(i, p);
                if self.measure {
                    self.load_on(ci, All, hit, st.w(i), p, p - q);
                }
            }
        }
    }

    /// [`Contacts::project_axis_plane`] on row `i`: particle `p`, its free
    /// lanes `free`. Returns the lanes it pushed.
    #[inline(always)]
    pub(super) fn axis_plane_row<const AXIS: usize>(
        &mut self,
        i: usize,
        p: &mut V3<L>,
        free: L::M,
        pl: &Plane<L>,
        r: L,
    ) -> L::M {
        let along = |c: L| if pl.neg { c.neg() } else { c };
        let phi = along(*coord(p, AXIS)) - pl.off;
        let hit = pl.cm & free & phi.lt(r);
        if hit.none() {
            return hit;
        }
        let d = along(r - phi);
        // Off the axis: `+ 0` on a touching lane, as the dot-product
        // form adds, and `+ (−0)` elsewhere, which changes no value.
        let zero = s::<L>(0.0);
        let z = L::select(hit, zero, zero.neg());
        let on = L::select(hit, *coord(p, AXIS) + d, *coord(p, AXIS));
        p.x = p.x + z;
        p.y = p.y + z;
        p.z = p.z + z;
        *coord(p, AXIS) = on;
        if self.friction {
            // `+ 0` leaves a push as it is (never `−0`, see above).
            let push = coord(&mut self.push[i], AXIS);
            *push = *push + d.keep(hit);
            if self.touches {
                self.touch[i] = L::select(hit, pl.kf, self.touch[i]);
            }
        }
        hit
    }

    /// For a block whose candidates are all planes, when nothing is
    /// measured: the contact pass after the iterations
    /// ([`Contacts::project`]), friction and the last pass
    /// ([`Contacts::finish`]), row by row: each row's operations are those
    /// of the three passes in turn, and each reads and writes its own row
    /// alone (a plane's contact is per particle, and so is friction), so
    /// the result is bitwise theirs, in one pass over the rows instead of
    /// three. Returns false (and does nothing) for any other block.
    #[inline(always)]
    pub fn project_and_finish_planes<S: Store<L>>(
        &mut self,
        st: &mut S,
        r: L,
        world: &[WorldCollider],
        mu: L,
    ) -> bool {
        if self.solids || self.measure || self.cands.is_empty() {
            return false;
        }
        let planes = std::mem::take(&mut self.planes);
        let friction = self.friction;
        for i in 0..st.rows() {
            let free = st.free(i);
            let mut p = st.pos(i);
            self.planes_row(&planes, i, &mut p, free, r);
            st.set_pos(i, p);
            if friction {
                self.friction_row(st, world, mu, i);
                // The last pass keeps no books (as `finish`'s).
                self.friction = false;
                let mut p = st.pos(i);
                self.planes_row(&planes, i, &mut p, free, r);
                st.set_pos(i, p);
                self.friction = true;
            }
        }
        self.planes = planes;
        true
    }

    /// Every plane's contact, in candidate order, on particle `p` (row `i`,
    /// free lanes `free`, cable radius `r`).
    #[inline(always)]
    fn planes_row(&mut self, planes: &[Plane<L>], i: usize, p: &mut V3<L>, free: L::M, r: L) {
        for pl in planes {
            match pl.axis {
                0 => _ = self.axis_plane_row::<0>(i, p, free, pl, r),
                1 => _ = self.axis_plane_row::<1>(i, p, free, pl, r),
                2 => _ = self.axis_plane_row::<2>(i, p, free, pl, r),
                _ => _ = self.dot_plane_row(i, p, free, pl, r),
            }
        }
    }
}
