//! The contact pass of a shape other than a plane ([`shape_pass`]),
//! written once over the lanes it runs on (the whole block, [`All`], or
//! one lane group, [`OneGroup`]), and the side memory of such a shape
//! ([`sides_on`]), and a collider's contact load ([`Load`], for the
//! contact forces of `load.rs`).

use super::geom::{
    Plane, carried, contains, grown, keep_side, known, or_back, overlap, row_in, s, seg_in,
    seg_span,
};
use crate::kernel::lane::{Bounds, Lane, Mask, V3};
use crate::kernel::narrow::{on_centre, point_contact_l, segment_contact_l};
use crate::kernel::store::Store;
use cable_core::WorldCollider;
use glam::Vec3;

/// [`Contacts::remember_sides`] for the shape `col` on `lanes` of the
/// block: the outward normal where each particle and segment of the
/// candidate's span starts the substep, written into `side` (particles
/// `0..n`, segments `n..2n`) on those lanes. `at`: the candidate lanes,
/// the row span and the per-lane row span ([`Contacts::find_spans`]).
pub fn sides_on<L: Lane, S: Store<L>, P: Lanes<L>>(
    st: &S,
    col: &WorldCollider,
    side: &mut [V3<L>],
    (cm, (lo, hi), ls): (L::M, (usize, usize), (L, L)),
    margin: L,
    lanes: P,
) {
    let n = st.rows();
    let zero = s::<P::G>(0.0);
    let zone = grown(&col.aabb, lanes.v(margin));
    let (cm, ls) = (lanes.m(cm), (lanes.v(ls.0), lanes.v(ls.1)));
    let (slo, shi) = seg_span(lo, hi, n);
    for (i, sd) in side[..n].iter_mut().enumerate().take(hi).skip(lo) {
        // Where the collider carried the start (itself, at rest): the side
        // it came from relative to the collider.
        let p = carried(col, lanes.v3(st.prev(i)));
        let m = cm & row_in(ls, i) & contains(&zone, p);
        if m.any() {
            let (phi, nrm) = point_contact_l(&col.shape, p);
            lanes.set3(sd, nrm.keep(m & zero.lt(phi)));
        }
    }
    for i in slo..shi {
        let (a, bq) = (
            carried(col, lanes.v3(st.prev(i))),
            carried(col, lanes.v3(st.prev(i + 1))),
        );
        let m = cm & seg_in(ls, i) & overlap(&zone, &Bounds::of(a, bq));
        if m.any() {
            let (_, phi, nrm) = segment_contact_l(&col.shape, a, bq);
            lanes.set3(&mut side[n + i], nrm.keep(m & zero.lt(phi)));
        }
    }
}

/// What one shape's contact pass ([`shape_pass`]) reads and writes: a
/// block's particles and contact state, on some of its lanes ([`View`]).
pub(super) trait ShapeRows<G: Lane> {
    /// Particles (rows).
    fn rows(&self) -> usize;
    /// Position of row `i`.
    fn pos(&self, i: usize) -> V3<G>;
    /// Previous position of row `i`.
    fn prev(&self, i: usize) -> V3<G>;
    /// Sets the position of row `i`.
    fn set_pos(&mut self, i: usize, p: V3<G>);
    /// Inverse mass of row `i`.
    fn w(&self, i: usize) -> G;
    /// Lanes where row `i` is free.
    fn free(&self, i: usize) -> G::M;
    /// Lanes where segment `i` takes part in contact ([`Store::segment_on`]).
    fn segment_on(&self, i: usize) -> G::M;
    /// The candidate's side memory: particles `0..n`, segments `n..2n`.
    fn side(&self, i: usize) -> V3<G>;
    /// Friction's bookkeeping: push-out `d` added to row `i` in lanes `m`.
    fn add_push(&mut self, i: usize, m: G::M, d: V3<G>);
    /// Friction's bookkeeping: lanes `m` of row `i` were last pushed by
    /// collider `kf`.
    fn set_touch(&mut self, i: usize, m: G::M, kf: G);
    /// Contact forces' bookkeeping (when measured): lanes `m` of a particle
    /// of inverse mass `w` were moved by `dp` to `at`.
    fn add_load(&mut self, m: G::M, w: G, at: V3<G>, dp: V3<G>);
    /// [`ShapeRows::add_load`] for row `i`, whose inverse mass is read
    /// only when forces are measured.
    fn add_row_load(&mut self, i: usize, m: G::M, at: V3<G>, dp: V3<G>);
    /// How many candidate planes the block has ([`Contacts::floors`]).
    fn floors(&self) -> usize;
    /// Candidate plane `j`: its unit normal, its offset along it and the
    /// lanes for which it is a candidate.
    fn floor(&self, j: usize) -> (V3<G>, G, G::M);
}

/// Which lanes of a block a shape's pass runs on ([`View`]): all of them
/// ([`All`]) or one group ([`OneGroup`]).
pub trait Lanes<L: Lane>: Copy {
    /// The lanes run on.
    type G: Lane;
    /// Those lanes of `x`.
    fn v(self, x: L) -> Self::G;
    /// Sets those lanes of `x`.
    fn set(self, x: &mut L, v: Self::G);
    /// Those lanes of the mask `m`.
    fn m(self, m: L::M) -> <Self::G as Lane>::M;
    /// Those lanes of `p`.
    #[inline(always)]
    fn v3(self, p: V3<L>) -> V3<Self::G> {
        V3::new(self.v(p.x), self.v(p.y), self.v(p.z))
    }
    /// Sets those lanes of `p`.
    #[inline(always)]
    fn set3(self, p: &mut V3<L>, v: V3<Self::G>) {
        self.set(&mut p.x, v.x);
        self.set(&mut p.y, v.y);
        self.set(&mut p.z, v.z);
    }
}

/// Every lane of the block.
#[derive(Clone, Copy)]
pub struct All;

impl<L: Lane> Lanes<L> for All {
    type G = L;
    #[inline(always)]
    fn v(self, x: L) -> L {
        x
    }
    #[inline(always)]
    fn set(self, x: &mut L, v: L) {
        *x = v;
    }
    #[inline(always)]
    fn m(self, m: L::M) -> L::M {
        m
    }
}

/// Lane group `.0` of the block ([`Lane::group`]).
#[derive(Clone, Copy)]
pub(super) struct OneGroup(pub(super) usize);

impl<L: Lane> Lanes<L> for OneGroup {
    type G = L::G;
    #[inline(always)]
    fn v(self, x: L) -> L::G {
        x.group(self.0)
    }
    #[inline(always)]
    fn set(self, x: &mut L, v: L::G) {
        x.set_group(self.0, v);
    }
    #[inline(always)]
    fn m(self, m: L::M) -> <L::G as Lane>::M {
        L::group_m(m, self.0)
    }
}

/// [`ShapeRows`] on the `lanes` of a block.
pub(super) struct View<'a, L: Lane, S, P> {
    pub(super) st: &'a mut S,
    pub(super) side: &'a [V3<L>],
    pub(super) push: &'a mut [V3<L>],
    pub(super) touch: &'a mut [L],
    pub(super) lanes: P,
    /// The block is compliant ([`Store::segment_on`]).
    pub(super) soft: bool,
    /// The candidate's load and position, when forces are measured.
    pub(super) load: Option<(&'a mut Load<L>, Vec3)>,
    /// The block's candidate planes ([`Contacts::floors`]).
    pub(super) floors: &'a [Plane<L>],
}

impl<L: Lane, S: Store<L>, P: Lanes<L>> ShapeRows<P::G> for View<'_, L, S, P> {
    #[inline(always)]
    fn rows(&self) -> usize {
        self.st.rows()
    }
    #[inline(always)]
    fn pos(&self, i: usize) -> V3<P::G> {
        self.lanes.v3(self.st.pos(i))
    }
    #[inline(always)]
    fn prev(&self, i: usize) -> V3<P::G> {
        self.lanes.v3(self.st.prev(i))
    }
    #[inline(always)]
    fn set_pos(&mut self, i: usize, p: V3<P::G>) {
        let mut row = self.st.pos(i);
        self.lanes.set3(&mut row, p);
        self.st.set_pos(i, row);
    }
    #[inline(always)]
    fn w(&self, i: usize) -> P::G {
        self.lanes.v(self.st.w(i))
    }
    #[inline(always)]
    fn free(&self, i: usize) -> <P::G as Lane>::M {
        self.lanes.m(self.st.free(i))
    }
    #[inline(always)]
    fn segment_on(&self, i: usize) -> <P::G as Lane>::M {
        self.lanes.m(self.st.segment_on(i, self.soft))
    }
    #[inline(always)]
    fn side(&self, i: usize) -> V3<P::G> {
        self.lanes.v3(self.side[i])
    }
    #[inline(always)]
    fn add_push(&mut self, i: usize, m: <P::G as Lane>::M, d: V3<P::G>) {
        let p = self.lanes.v3(self.push[i]);
        self.lanes.set3(&mut self.push[i], V3::select(m, p + d, p));
    }
    #[inline(always)]
    fn set_touch(&mut self, i: usize, m: <P::G as Lane>::M, kf: P::G) {
        // Empty when no candidate moves ([`Contacts::touches`]).
        if self.touch.is_empty() {
            return;
        }
        let t = self.lanes.v(self.touch[i]);
        self.lanes.set(&mut self.touch[i], P::G::select(m, kf, t));
    }
    #[inline(always)]
    fn add_load(&mut self, m: <P::G as Lane>::M, w: P::G, at: V3<P::G>, dp: V3<P::G>) {
        if let Some((load, c)) = &mut self.load {
            load.add(self.lanes, *c, m, w, at, dp);
        }
    }
    #[inline(always)]
    fn add_row_load(&mut self, i: usize, m: <P::G as Lane>::M, at: V3<P::G>, dp: V3<P::G>) {
        if self.load.is_some() {
            let w = self.w(i);
            self.add_load(m, w, at, dp);
        }
    }
    #[inline(always)]
    fn floors(&self) -> usize {
        self.floors.len()
    }
    #[inline(always)]
    fn floor(&self, j: usize) -> (V3<P::G>, P::G, <P::G as Lane>::M) {
        let f = &self.floors[j];
        (self.lanes.v3(f.nv), self.lanes.v(f.off), self.lanes.m(f.cm))
    }
}

/// The push `dp` (along the unit normal `nrm`, which needs `e1 = r − φ`)
/// of a particle at `p` in lanes `hit` (lanes where it is free: the
/// result may be nonzero where `dp` is zero), made to respect the candidate
/// planes too: where `p + dp` would lie within `r` of a plane
/// (`n·x = off`) on whose lanes it is a candidate, the particle goes
/// instead to the nearest point that is `e1` out along `nrm` and `r` in
/// front of the plane, both at once (the two linearised constraints
/// solved together: `p + a·nrm + b·n` with `a + c·b = e1`,
/// `c·a + b = e2`, `c = nrm·n`). Pushed in turn, a ball pressing a
/// particle onto the ground and the ground push it back and forth, the
/// ball's push, down into the ground, the last; together they move it
/// along the wedge between them. Where the two normals are nearly
/// parallel (`1 − c² ≤ 0.01`: squeezed between two faces, no wedge to
/// slide along) or the solution needs a pull (`a < 0` or `b < 0`), the
/// push is left as it was.
#[inline(always)]
fn along_floors<G: Lane, V: ShapeRows<G>>(
    v: &V,
    p: V3<G>,
    (nrm, e1, dp): (V3<G>, G, V3<G>),
    r: G,
    hit: G::M,
) -> V3<G> {
    let zero = s::<G>(0.0);
    let mut dp = dp;
    for j in 0..v.floors() {
        let (n, off, fm) = v.floor(j);
        let under = hit & fm & (n.dot(p + dp) - off).lt(r);
        if under.none() {
            continue;
        }
        let e2 = off + r - n.dot(p);
        let c = nrm.dot(n);
        let det = s::<G>(1.0) - c * c;
        let a = (e1 - c * e2) / det;
        let b = (e2 - c * e1) / det;
        let ok = under & s::<G>(0.01).lt(det) & zero.le(a) & zero.le(b);
        dp = V3::select(ok, nrm.scale(a) + n.scale(b), dp);
    }
    dp
}

/// One contact pass of a shape other than a plane: every free particle
/// of rows `lo..hi` within `r` of it, then every segment whose closest
/// point is, pushed out along the contact normal (see the module docs),
/// in the lanes `cm` of the candidate whose span `ls` holds the row.
/// Written once over the lanes it runs on: a whole block, or one group.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the candidate's fields, each in its lanes
pub(super) fn shape_pass<G: Lane, V: ShapeRows<G>>(
    v: &mut V,
    col: &WorldCollider,
    r: G,
    cm: G::M,
    ls: (G, G),
    (lo, hi): (usize, usize),
    kf: G,
    friction: bool,
) {
    let n = v.rows();
    let (zero, one) = (s::<G>(0.0), s::<G>(1.0));
    let zone = grown(&col.aabb, r);
    for i in lo..hi {
        let p = v.pos(i);
        let m = cm & row_in(ls, i) & v.free(i) & contains(&zone, p);
        if m.none() {
            continue;
        }
        let (phi, nrm) = point_contact_l(&col.shape, p);
        let came = v.side(i);
        // On the centre: out the side it started on, or against its motion.
        let centre = on_centre(&col.shape, phi);
        let nrm = if centre.any() {
            let back = or_back(came, carried(col, v.prev(i)) - p);
            V3::select(centre & known(back), back, nrm)
        } else {
            nrm
        };
        let (phi, nrm) = keep_side(&col.shape, p, phi, nrm, came);
        let hit = m & phi.lt(r);
        if hit.any() {
            let dp = nrm.scale(r - phi);
            let dp = if v.floors() > 0 {
                along_floors(v, p, (nrm, r - phi, dp), r, hit)
            } else {
                dp
            };
            let moved = V3::select(hit, p + dp, p);
            v.set_pos(i, moved);
            // The motion as rounded (far from the origin, not `dp`).
            v.add_row_load(i, hit, moved, moved - p);
            if friction {
                v.add_push(i, hit, dp);
                v.set_touch(i, hit, kf);
            }
        }
    }
    let (slo, shi) = seg_span(lo, hi, n);
    for i in slo..shi {
        let (wa, wb) = (v.w(i), v.w(i + 1));
        let (a, bq) = (v.pos(i), v.pos(i + 1));
        let m = cm & seg_in(ls, i) & v.segment_on(i) & overlap(&zone, &Bounds::of(a, bq));
        if m.none() {
            continue;
        }
        let (t, phi, nrm) = segment_contact_l(&col.shape, a, bq);
        let came = v.side(n + i);
        let centre = on_centre(&col.shape, phi);
        let nrm = if centre.any() {
            let (a0, b0) = (carried(col, v.prev(i)), carried(col, v.prev(i + 1)));
            let back = or_back(came, (a0 - a) + (b0 - bq));
            V3::select(centre & known(back), back, nrm)
        } else {
            nrm
        };
        let at = a + (bq - a).scale(t);
        let (phi, nrm) = keep_side(&col.shape, at, phi, nrm, came);
        let hit = m & phi.lt(r);
        if hit.none() {
            continue;
        }
        let (sa, sb) = (one - t, t);
        // Moving the contact point by `depth` needs depth / denom; the
        // floor keeps a contact next to a pinned end from flinging the
        // free end (it then takes a few iterations instead).
        let denom = (sa * sa * wa + sb * sb * wb).max(s::<G>(0.25) * wa.max(wb));
        let scale = (r - phi) / denom;
        let (ea, eb) = (sa * wa * scale, sb * wb * scale);
        let (da, db) = (nrm.scale(ea), nrm.scale(eb));
        let (da, db) = if v.floors() > 0 {
            (
                // Only an end that moves: a pinned end's share is zero,
                // and it must stay so whatever the planes.
                along_floors(v, a, (nrm, ea, da), r, hit & zero.lt(wa)),
                along_floors(v, bq, (nrm, eb, db), r, hit & zero.lt(wb)),
            )
        } else {
            (da, db)
        };
        let (na, nb) = (V3::select(hit, a + da, a), V3::select(hit, bq + db, bq));
        v.set_pos(i, na);
        v.set_pos(i + 1, nb);
        v.add_load(hit, wa, na, na - a);
        v.add_load(hit, wb, nb, nb - bq);
        if friction {
            v.add_push(i, hit, da);
            v.add_push(i + 1, hit, db);
            v.set_touch(i, hit & zero.lt(wa), kf);
            v.set_touch(i + 1, hit & zero.lt(wb), kf);
        }
    }
}

/// One candidate collider's load over a substep, per lane: the sum of
/// `m · Δx` (kg·m) and of `(x − c) × m · Δx` about its position `c`.
#[derive(Debug, Clone, Copy)]
pub struct Load<L: Lane> {
    pub(super) lin: V3<L>,
    pub(super) ang: V3<L>,
    /// 1 in the lanes the collider pushed (contact tracking), else 0.
    pub(super) hit: L,
}

impl<L: Lane> Load<L> {
    /// Nothing yet.
    pub(super) fn zero() -> Self {
        Self {
            lin: V3::zero(),
            ang: V3::zero(),
            hit: L::splat(0.0),
        }
    }

    /// Adds the move `dp` of a particle of inverse mass `w` now at `at`,
    /// in lanes `m` of `lanes` where it has mass, about the collider's
    /// position `c`; lanes `m` were pushed (`hit`).
    #[inline(always)]
    pub(super) fn add<P: Lanes<L>>(
        &mut self,
        lanes: P,
        c: Vec3,
        m: <P::G as Lane>::M,
        w: P::G,
        at: V3<P::G>,
        dp: V3<P::G>,
    ) {
        let h = lanes.v(self.hit);
        lanes.set(&mut self.hit, P::G::select(m, s::<P::G>(1.0), h));
        let m = m & s::<P::G>(0.0).lt(w);
        if m.none() {
            return;
        }
        // Lanes without mass divide by zero: `select` drops them.
        let mdp = dp.scale(s::<P::G>(1.0) / w);
        let arm = at - V3::splat(c);
        let (f, t) = (lanes.v3(self.lin), lanes.v3(self.ang));
        lanes.set3(&mut self.lin, V3::select(m, f + mdp, f));
        lanes.set3(&mut self.ang, V3::select(m, t + arm.cross(mdp), t));
    }
}
