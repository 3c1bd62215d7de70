//! Contacts of the one kernel: cables against kinematic spheres, capsules,
//! planes and boxes, inside the relaxation loop, with friction and without
//! tunnelling, written once over any [`Lane`] type.
//!
//! Per block (one cable, or a lane group of cables) and substep:
//!
//! 1. **Broad phase** ([`Contacts::find`]): each lane's bounds (current and
//!    previous positions, grown by its radius and its motion this substep)
//!    against the colliders' bounds. The group's union of those bounds is
//!    queried once in the pool's [`cable_core::Bvh`] (planes: a
//!    support-point test); every candidate then carries a lane mask, the
//!    exact answer each lane's own query would give, so a group where some
//!    lanes touch something stays wide and a lane far from every collider
//!    is bitwise unaffected.
//! 2. **No tunnelling** (also in `find`): each free particle's motion from
//!    its previous to its predicted position is swept against the
//!    candidates other than planes ([`crate::narrow::sweep_point_l`]; a
//!    half-space has no far side to skip to); at the first hit the
//!    motion into the shape is removed and the rest slides along the
//!    surface. Fast segments are checked the same way at intermediate
//!    configurations, so a cable cannot jump over a thin rod lying between
//!    two of its particles. The side of each shape every particle and
//!    segment starts on is remembered: a piece the constraints drag
//!    through a thin shape is pushed back out on that side.
//! 3. **Contact** ([`Contacts::project`], every solver iteration, after the
//!    constraint sweeps, as the UE4 sphere/capsule extension does): every
//!    free particle within the cable `radius` of a shape is pushed out to
//!    that distance along the contact normal, and so is every *segment*
//!    whose closest point is (shared by the two particles by inverse mass
//!    and the contact's position along the segment), so a taut cable
//!    catches on a box edge or a ball thinner than its segments. Around a
//!    shape with a core (a capsule's axis, a bar's long axis,
//!    [`crate::narrow::core_segment`]), a segment whose motion since the
//!    last pass went over the core, or whose centre line entered the
//!    shape, is put back on the side it came from (`Contacts::uncross`),
//!    so a cable wrapped on a rod slides around it instead of through.
//!    A plane whose normal is an axis (the ground) tests one coordinate
//!    per particle (`Contacts::project_axis_plane`), bitwise the general
//!    form for finite positions.
//! 4. **Friction** ([`Contacts::finish`]): position-based Coulomb friction
//!    (Macklin et al. 2014) with coefficient `friction`: the particle's
//!    motion this substep relative to the collider's surface (so a moving
//!    collider carries a cable), projected on the contact plane, is removed
//!    when it is at most `friction ×` the normal push-out of this substep,
//!    else shortened by that amount; then one more contact pass.
//!
//! Contacts are inelastic (no bounce). Colliders are visited in slot order
//! and particles in row order, so results depend on the scene alone.

use cable_core::{Aabb, ColliderSet, WorldCollider, WorldShape};
use std::ops::Div;

use glam::Vec3;

use crate::kernel::{Block, Store};
use crate::lane::{Bounds, Lane, M3, Mask, V3};
use crate::narrow::{
    core_segment, crosses_segment, point_contact_l, segment_contact_l, support_gap, sweep_point_l,
};
use crate::simd::Wide;

/// `touch` of a particle no collider pushed this substep: zero, so that
/// clearing `touch` is a plain memory fill. (With `−1`, LLVM vectorized
/// the fill across rows into AVX-512 scatter stores, one per float: 8 %
/// of the contact scene's samples, 2026-11-27.)
const NONE: f32 = 0.0;

/// What `touch` records for the candidate collider `k` (an index into the
/// prepared colliders): `k + 1`, so that [`NONE`] is no collider.
#[inline(always)]
fn tag<L: Lane>(k: u32) -> L {
    L::splat(k as f32 + 1.0)
}

/// The candidate planes of a substep, lent out by
/// [`Contacts::lend_planes`].
#[derive(Default)]
pub struct Planes<L: Lane>(Vec<Plane<L>>);

impl<L: Lane> std::fmt::Debug for Planes<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Planes")
            .field("len", &self.0.len())
            .finish()
    }
}

/// [`Plane::axis`] of a plane whose normal is not an axis.
const ANY_AXIS: usize = 3;

/// One candidate plane's contact constants for a substep: what each
/// particle's contact with it reads ([`Contacts::plane_row`]).
#[derive(Debug, Clone, Copy)]
struct Plane<L: Lane> {
    /// The normal's axis (0, 1, 2) when it is exactly `±1` there and `+0`
    /// elsewhere ([`axis_normal`]), else [`ANY_AXIS`].
    axis: usize,
    /// The normal is the axis's negative.
    neg: bool,
    /// The unit normal.
    nv: V3<L>,
    /// The plane's offset along its normal, metres.
    off: L,
    /// The lanes for which the plane is a candidate.
    cm: L::M,
    /// The plane's collider index, as `touch` records it ([`tag`]).
    kf: L,
}

impl<L: Lane> Plane<L> {
    fn of(normal: Vec3, offset: f32, cm: L::M, k: u32) -> Self {
        let (axis, neg) = axis_normal(normal).unwrap_or((ANY_AXIS, false));
        Self {
            axis,
            neg,
            nv: V3::splat(normal),
            off: s(offset),
            cm,
            kf: tag(k),
        }
    }
}

/// The contact scratch of one block: candidates and per-particle state of
/// the current substep. Kept between substeps so a warmed-up step does not
/// allocate.
#[derive(Debug, Clone, Default)]
pub struct Contacts<L: Lane> {
    /// Candidate colliders (indices into the prepared colliders), ascending.
    cands: Vec<u32>,
    /// Per candidate: the lanes for which it is a candidate.
    cand_m: Vec<L::M>,
    /// Per candidate: the rows `lo..hi` whose start and predicted
    /// positions, grown by the margin, reach it in some lane (the row-level
    /// broad phase: a cable's rows far from a ball skip it). A plane's span
    /// is every row: its contact test is one dot product (one coordinate
    /// for an axis-aligned plane), cheaper than the
    /// bounds that would skip it, and it never misses a particle that the
    /// iterations carry farther than the margin.
    span: Vec<(usize, usize)>,
    /// Per candidate and lane: that lane's own `lo..hi` (as lane values).
    lane_span: Vec<(L, L)>,
    /// Per candidate: the lanes whose span has a row (scratch of
    /// `Contacts::find_spans`).
    seen: Vec<L::M>,
    /// Total push-out of each particle this substep, metres (kept only
    /// for friction: `Contacts::pushed`).
    push: Vec<V3<L>>,
    /// The last collider that pushed each particle ([`tag`]), or `NONE`
    /// (kept only for friction, and only when some candidate moves:
    /// [`Contacts::touches`]).
    touch: Vec<L>,
    /// Per candidate other than a plane: the outward normal each particle
    /// (rows `0..n`) and segment (rows `n..2n`) started the substep with,
    /// or zero (a plane's part is left as it was: nothing reads it).
    side: Vec<V3<L>>,
    /// Where the last contact pass left each particle (at the first pass:
    /// where the substep started), kept only when some candidate has a
    /// core ([`core_segment`]): a segment whose motion since then passed
    /// over the core went through the shape.
    last: Vec<V3<L>>,
    /// Some candidate has a core.
    cores: bool,
    /// Some candidate is not a plane: the sweeps and the row-level broad
    /// phase have work (a plane needs neither).
    solids: bool,
    /// The candidates when all of them are planes, in candidate order
    /// ([`Contacts::planes_only`]); else empty.
    planes: Vec<Plane<L>>,
    /// The block has friction: `push` is kept, and `touch` with
    /// [`Contacts::touches`] (nothing else reads them).
    friction: bool,
    /// Friction needs `touch`: it has a moving candidate, whose motion a
    /// particle it pushed is carried with. With only still candidates
    /// friction reads whether a particle was pushed from `push` alone (a
    /// push that is zero has no load, which friction skips in either
    /// form: see [`Contacts::friction`]), and no
    /// contact writes `touch`: a load, a blend and a store fewer per row
    /// and contact of the ground plane, and no fill per substep.
    touches: bool,
    /// The path the contact passes run on this substep (the kernel's).
    wide: Option<Wide>,
}

#[inline(always)]
fn s<L: Lane>(v: f32) -> L {
    L::splat(v)
}

/// The lane groups where the mask `cm` has a lane, when that is not every
/// group (a shape near a few cables of a wide block: only their groups do
/// its work); `None` when it is, and the work runs on the whole block.
#[inline(always)]
fn few_groups<L: Lane>(cm: L::M) -> Option<impl Iterator<Item = usize> + Clone> {
    let groups = (0..L::GROUPS).filter(move |&g| L::group_m(cm, g).any());
    (groups.clone().count() < L::GROUPS).then_some(groups)
}

/// [`Contacts::remember_sides`] for the shape `col` on `lanes` of the
/// block: the outward normal where each particle and segment of the
/// candidate's span starts the substep, written into `side` (particles
/// `0..n`, segments `n..2n`) on those lanes. `at`: the candidate lanes,
/// the row span and the per-lane row span ([`Contacts::find_spans`]).
fn sides_on<L: Lane, S: Store<L>, P: Lanes<L>>(
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
        let p = lanes.v3(st.prev(i));
        let m = cm & row_in(ls, i) & contains(&zone, p);
        if m.any() {
            let (phi, nrm) = point_contact_l(&col.shape, p);
            lanes.set3(sd, nrm.keep(m & zero.lt(phi)));
        }
    }
    for i in slo..shi {
        let (a, bq) = (lanes.v3(st.prev(i)), lanes.v3(st.prev(i + 1)));
        let m = cm & seg_in(ls, i) & overlap(&zone, &Bounds::of(a, bq));
        if m.any() {
            let (_, phi, nrm) = segment_contact_l(&col.shape, a, bq);
            lanes.set3(&mut side[n + i], nrm.keep(m & zero.lt(phi)));
        }
    }
}

/// Lane `l`'s union with the box of lane `l` of `b`.
fn union_of<L: Lane>(b: &Bounds<L>, live: L::M) -> Aabb {
    let mut u = Aabb::EMPTY;
    for l in 0..L::WIDTH {
        if live.lane(l) {
            u = u.union(b.lane(l));
        }
    }
    u
}

/// Per lane, the least and greatest coordinate `get` picks of every row's
/// position and previous position, and the largest change of it between
/// the two.
///
/// One axis at a time: the bounds and motion of every lane of a 32-lane
/// block, carried for all three axes at once, do not fit in the registers
/// and spill on every row. Generic over `get` (not a function pointer), so
/// that it inlines: called through a pointer, each row's positions were
/// copied whole to memory for it, and the bounds took 13 % of the contact
/// scene's time with only the plane.
#[inline(always)]
fn axis_bounds<L: Lane, S: Store<L>>(st: &S, get: impl Fn(V3<L>) -> L) -> (L, L, L) {
    let (mut lo, mut hi) = (s::<L>(f32::INFINITY), s::<L>(f32::NEG_INFINITY));
    let mut moved = s::<L>(0.0);
    for i in 0..st.rows() {
        let (p, q) = (get(st.pos(i)), get(st.prev(i)));
        // `mx - mn` is `|p - q|` exactly (IEEE subtraction is antisymmetric),
        // and one operation on each loop-carried value instead of two.
        let (mn, mx) = (p.min(q), p.max(q));
        (lo, hi) = (lo.min(mn), hi.max(mx));
        moved = moved.max(mx - mn);
    }
    (lo, hi, moved)
}

/// The axis and sign of a plane normal that is exactly `±1` on one axis
/// and `+0` on the others (the ground, walls): its contact then reads one
/// coordinate per particle instead of a dot product
/// ([`Contacts::project_axis_plane`]).
fn axis_normal(n: Vec3) -> Option<(usize, bool)> {
    let a = n.to_array();
    let k = a.iter().position(|c| c.abs() == 1.0)?;
    let others_zero = (0..3).filter(|&j| j != k).all(|j| a[j].to_bits() == 0);
    others_zero.then_some((k, a[k] < 0.0))
}

/// Coordinate `axis` (0, 1, 2) of `p`.
#[inline(always)]
fn coord<L: Lane>(p: &mut V3<L>, axis: usize) -> &mut L {
    match axis {
        0 => &mut p.x,
        1 => &mut p.y,
        _ => &mut p.z,
    }
}

/// Lanes whose bounds reach the plane within `margin`.
#[inline(always)]
fn plane_near<L: Lane>(normal: Vec3, offset: f32, bb: &Bounds<L>, margin: L) -> L::M {
    // The box's corner deepest into the plane: per axis the low side where
    // the normal points up that axis, else the high side.
    let deep = |n: f32, lo: L, hi: L| if n >= 0.0 { lo } else { hi };
    let c = V3::new(
        deep(normal.x, bb.min.x, bb.max.x),
        deep(normal.y, bb.min.y, bb.max.y),
        deep(normal.z, bb.min.z, bb.max.z),
    );
    (V3::<L>::splat(normal).dot(c) - s(offset)).lt(margin)
}

/// The box `b` grown by `m` per lane.
#[inline(always)]
fn grown<L: Lane>(b: &Aabb, m: L) -> Bounds<L> {
    Bounds {
        min: V3::splat(b.min),
        max: V3::splat(b.max),
    }
    .expand(m)
}

/// Lanes where box `z` (per lane) contains `p`.
#[inline(always)]
fn contains<L: Lane>(z: &Bounds<L>, p: V3<L>) -> L::M {
    z.min.x.le(p.x)
        & p.x.le(z.max.x)
        & z.min.y.le(p.y)
        & p.y.le(z.max.y)
        & z.min.z.le(p.z)
        & p.z.le(z.max.z)
}

/// Lanes where the per-lane boxes `z` and `o` overlap.
#[inline(always)]
fn overlap<L: Lane>(z: &Bounds<L>, o: &Bounds<L>) -> L::M {
    z.min.x.le(o.max.x)
        & z.min.y.le(o.max.y)
        & z.min.z.le(o.max.z)
        & o.min.x.le(z.max.x)
        & o.min.y.le(z.max.y)
        & o.min.z.le(z.max.z)
}

/// Lanes whose span `lo..hi` holds row `i`.
#[inline(always)]
fn row_in<L: Lane>((lo, hi): (L, L), i: usize) -> L::M {
    let x = s::<L>(i as f32);
    lo.le(x) & x.lt(hi)
}

/// Lanes whose span `lo..hi` holds a row of segment `i`.
#[inline(always)]
fn seg_in<L: Lane>((lo, hi): (L, L), i: usize) -> L::M {
    lo.le(s((i + 1) as f32)) & s::<L>(i as f32).lt(hi)
}

/// The segments next to rows `lo..hi` of a cable of `n` rows: every
/// segment with an end in the range.
#[inline(always)]
fn seg_span(lo: usize, hi: usize, n: usize) -> (usize, usize) {
    if lo >= hi {
        return (0, 0);
    }
    (lo.saturating_sub(1), hi.min(n - 1))
}

/// How far the collider's material point now at `p` moved during the last
/// substep (zero for a collider at rest).
#[inline(always)]
fn displacement<L: Lane>(col: &WorldCollider, p: V3<L>) -> V3<L> {
    match col.frames() {
        None => V3::zero(),
        Some((pos, inv, prev_pos, prev_rot)) => {
            let local = m3(&inv).mul(p - V3::splat(pos));
            p - (V3::splat(prev_pos) + m3(&prev_rot).mul(local))
        }
    }
}

#[inline(always)]
fn m3(m: &glam::Mat3) -> M3 {
    M3 {
        cols: [m.x_axis, m.y_axis, m.z_axis],
    }
}

/// The contact to resolve for a piece at `p` with closest-feature contact
/// (`phi`, `nrm`) that started the substep outside with normal `came` (zero
/// if unknown): when the closest feature is now on the other side, the
/// piece was dragged through and must go back the way it came.
#[inline(always)]
fn keep_side<L: Lane>(shape: &WorldShape, p: V3<L>, phi: L, nrm: V3<L>, came: V3<L>) -> (L, V3<L>) {
    let zero = s::<L>(0.0);
    let known = !(came.x.eq(zero) & came.y.eq(zero) & came.z.eq(zero));
    let flip = known & nrm.dot(came).lt(zero);
    if flip.none() {
        return (phi, nrm);
    }
    (
        L::select(flip, support_gap(shape, p, came), phi),
        V3::select(flip, came, nrm),
    )
}

/// Lanes where `a` and `b` are the same point.
#[inline(always)]
fn same<L: Lane>(a: V3<L>, b: V3<L>) -> L::M {
    a.x.eq(b.x) & a.y.eq(b.y) & a.z.eq(b.z)
}

/// Lanes of `m` where the segment that was `a0`–`b0` at the last contact
/// pass and is `a`–`b` now is lost ([`Contacts::uncross`]): its motion
/// passed over the shape's `core`, or its centre line has entered the
/// shape since; with the outward normal it had at the last pass.
#[inline(always)]
fn lost<L: Lane>(
    col: &WorldCollider,
    (p, q): (Vec3, Vec3),
    m: L::M,
    r: L,
    (a0, b0): (V3<L>, V3<L>),
    (a, b): (V3<L>, V3<L>),
) -> (L::M, V3<L>) {
    let none = (L::M::splat(false), V3::zero());
    if m.none() {
        return none;
    }
    let m = m & Bounds::of(a0, b0)
        .with(a)
        .with(b)
        .expand(r)
        .overlaps(&col.aabb);
    if m.none() {
        return none;
    }
    let zero = s::<L>(0.0);
    let (_, phi0, came) = segment_contact_l(&col.shape, a0, b0);
    let (_, phi, _) = segment_contact_l(&col.shape, a, b);
    let lost = m & (crosses_segment(a0, b0, a, b, p, q) | (phi.lt(zero) & zero.le(phi0)));
    (lost, came)
}

impl<L: Lane> Contacts<L> {
    /// True when no collider is near the block this substep.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cands.is_empty()
    }

    /// Broad phase and continuous collision for one block, right after it
    /// was integrated (positions predicted, previous positions the start of
    /// the substep). Returns true when some collider is a candidate.
    #[inline(always)]
    pub fn find<S: Store<L>>(
        &mut self,
        st: &mut S,
        b: &Block<L>,
        set: &ColliderSet,
        wide: Option<Wide>,
    ) -> bool {
        self.wide = wide;
        self.friction = b.friction;
        self.cands.clear();
        self.cand_m.clear();
        let world = set.prepared();
        if world.is_empty() {
            return false;
        }
        let r = b.radius;
        let n = st.rows();
        // Out of line, once per SIMD path: inlined into the kernel, the
        // third axis's loop was compiled lane by lane (blends, lane
        // extractions and branches; 8 % of the plane-only scene's samples
        // against 2 % for each of the other two axes).
        let (x, y, z) = L::out_of_line(
            wide,
            #[inline(always)]
            || {
                (
                    axis_bounds(st, |v| v.x),
                    axis_bounds(st, |v| v.y),
                    axis_bounds(st, |v| v.z),
                )
            },
        );
        let bb = Bounds {
            min: V3::new(x.0, y.0, z.0),
            max: V3::new(x.1, y.1, z.1),
        };
        let motion = x.2.max(y.2).max(z.2);
        // Room for the particles to move during the iterations.
        let margin = s::<L>(1.5) * r + s::<L>(2.0) * motion;
        let query = bb.expand(margin);
        set.query(&union_of(&query, b.live), |k| self.cands.push(k));
        for &k in set.prepared_planes() {
            if let WorldShape::Plane { normal, offset } = world[k as usize].shape {
                if (plane_near(normal, offset, &bb, margin) & b.live).any() {
                    self.cands.push(k);
                }
            }
        }
        if self.cands.is_empty() {
            return false;
        }
        self.cands.sort_unstable();
        // Each lane's own answer: exactly its own BVH query.
        let mut kept = 0;
        for j in 0..self.cands.len() {
            let k = self.cands[j];
            let col = &world[k as usize];
            let m = match col.shape {
                WorldShape::Plane { normal, offset } => plane_near(normal, offset, &bb, margin),
                _ => query.overlaps(&col.aabb),
            } & b.live;
            if m.any() {
                self.cands[kept] = k;
                self.cand_m.push(m);
                kept += 1;
            }
        }
        self.cands.truncate(kept);
        if kept == 0 {
            return false;
        }
        self.solids = self
            .cands
            .iter()
            .any(|&k| !matches!(world[k as usize].shape, WorldShape::Plane { .. }));
        self.planes.clear();
        if !self.solids {
            for (&k, &cm) in self.cands.iter().zip(&self.cand_m) {
                if let WorldShape::Plane { normal, offset } = world[k as usize].shape {
                    self.planes.push(Plane::of(normal, offset, cm, k));
                }
            }
        }
        self.find_spans(st, world, margin);
        self.touches = self.friction && self.cands.iter().any(|&k| world[k as usize].is_moving());
        self.push.clear();
        self.touch.clear();
        if self.friction {
            self.push.resize(n, V3::zero());
        }
        if self.touches {
            self.touch.resize(n, s(NONE));
        }
        // The sweep runs out of line once per SIMD path (`Lane::out_of_line`);
        // the side memory and the segment sweeps have one baseline copy:
        // AVX2 copies of them and of `uncross` took the crate's release
        // build from 80 s to 150 s for no gain the contact bench could see.
        self.remember_sides(st, world, margin);
        self.cores = self
            .cands
            .iter()
            .any(|&k| core_segment(&world[k as usize].shape).is_some());
        self.last.clear();
        if self.cores {
            self.last.extend((0..n).map(|i| st.prev(i)));
        }
        if self.solids {
            L::out_of_line(
                wide,
                #[inline(always)]
                || self.sweep(st, b, world),
            );
            self.sweep_segments(st, b, world);
        }
        true
    }

    /// The row-level broad phase: for each candidate, per lane, the first
    /// and one past the last row of the segments whose motion this substep
    /// (bounds of both ends, now and before), grown by `margin`, reaches it
    /// in a lane for which it is a candidate (each lane exactly its own
    /// one-lane answer), and their union over the lanes as loop bounds.
    /// Segment i is rows i and i + 1: a thin shape can touch a segment's
    /// middle far from both its ends.
    ///
    /// One pass over the rows for every candidate: each row's bounds are
    /// taken once, each segment's is the union of its two rows'. A plane's
    /// span is every row (see [`Contacts::span`]); with only planes there
    /// is no pass.
    #[inline(always)]
    fn find_spans<S: Store<L>>(&mut self, st: &S, world: &[WorldCollider], margin: L) {
        let n = st.rows();
        let far = s::<L>(n as f32);
        self.lane_span.clear();
        self.seen.clear();
        for (&k, &cm) in self.cands.iter().zip(&self.cand_m) {
            if matches!(world[k as usize].shape, WorldShape::Plane { .. }) {
                self.lane_span.push((s(0.0), far));
                self.seen.push(cm);
            } else {
                self.lane_span.push((far, far));
                self.seen.push(L::M::splat(false));
            }
        }
        if !self.solids {
            self.span.clear();
            self.span.resize(self.cands.len(), (0, n));
            return;
        }
        let mut row = Bounds::of(st.pos(0), st.prev(0));
        for i in 0..n - 1 {
            let next = Bounds::of(st.pos(i + 1), st.prev(i + 1));
            let b = row.union(&next);
            row = next;
            let grown = b.expand(margin);
            for (ci, &k) in self.cands.iter().enumerate() {
                let col = &world[k as usize];
                if matches!(col.shape, WorldShape::Plane { .. }) {
                    continue; // every row
                }
                let r = self.cand_m[ci] & grown.overlaps(&col.aabb);
                if r.none() {
                    continue;
                }
                let (lo, hi) = &mut self.lane_span[ci];
                let seen = &mut self.seen[ci];
                *lo = L::select(r & !*seen, s(i as f32), *lo);
                *hi = L::select(r, s((i + 2) as f32), *hi);
                *seen = *seen | r;
            }
        }
        self.span.clear();
        for (&(lo, hi), &seen) in self.lane_span.iter().zip(&self.seen) {
            let (mut ulo, mut uhi) = (n, 0);
            for l in (0..L::WIDTH).filter(|&l| seen.lane(l)) {
                ulo = ulo.min(lo.lane(l) as usize);
                uhi = uhi.max(hi.lane(l) as usize);
            }
            self.span.push((ulo, uhi.max(ulo)));
        }
    }

    /// Records on which side of each candidate every particle and segment
    /// starts the substep (its outward normal there): for a shape near a
    /// few cables of a wide block, on their lane groups only
    /// ([`few_groups`]), as its contact pass runs; the other lanes keep
    /// the zero the buffer is filled with, which is what the whole-block
    /// pass writes where the shape is no candidate.
    fn remember_sides<S: Store<L>>(&mut self, st: &S, world: &[WorldCollider], margin: L) {
        let n = st.rows();
        // Sized for every candidate, zeroed only for the shapes that read
        // it (`project_shape`): a plane's part is never read (`memset`,
        // whose largest buffer this was, took 1.7 % of the plane-only
        // contact scene's samples; skipping it measured 0.98x the time).
        self.side.resize(2 * n * self.cands.len(), V3::zero());
        for (ci, &k) in self.cands.iter().enumerate() {
            let col = &world[k as usize];
            if matches!(col.shape, WorldShape::Plane { .. }) {
                continue; // a half-space has one side only
            }
            let side = &mut self.side[2 * n * ci..2 * n * (ci + 1)];
            side.fill(V3::zero());
            let at = (self.cand_m[ci], self.span[ci], self.lane_span[ci]);
            match few_groups::<L>(at.0) {
                Some(groups) => {
                    for g in groups {
                        sides_on(st, col, side, at, margin, OneGroup(g));
                    }
                }
                None => sides_on(st, col, side, at, margin, All),
            }
        }
    }

    /// Continuous collision of every free particle's motion this substep.
    #[inline(always)] // into one out-of-line copy per SIMD path
    fn sweep<S: Store<L>>(&mut self, st: &mut S, b: &Block<L>, world: &[WorldCollider]) {
        let r = b.radius;
        let one = s::<L>(1.0);
        // Only rows in some shape's span can hit (planes have no sweep):
        // 1.8 % of the contact scene's instructions, by callgrind.
        let (lo, hi) = self
            .cands
            .iter()
            .zip(&self.span)
            .filter(|&(&k, _)| !matches!(world[k as usize].shape, WorldShape::Plane { .. }))
            .fold((usize::MAX, 0), |(lo, hi), (_, &(l, h))| {
                (lo.min(l), hi.max(h))
            });
        for i in lo..hi.min(st.rows()) {
            let (from, to) = (st.prev(i), st.pos(i));
            let still = from.x.eq(to.x) & from.y.eq(to.y) & from.z.eq(to.z);
            let active = st.free(i) & !still;
            if active.none() {
                continue;
            }
            let path = Bounds::of(from, to).expand(r);
            let mut best_t = s::<L>(f32::INFINITY);
            let mut best_n = V3::<L>::zero();
            let mut best_k = s::<L>(NONE);
            let mut hit = L::M::splat(false);
            for (ci, &k) in self.cands.iter().enumerate() {
                let (lo, hi) = self.span[ci];
                let col = &world[k as usize];
                // A half-space has no far side to skip to: no sweep.
                if i < lo || i >= hi || matches!(col.shape, WorldShape::Plane { .. }) {
                    continue;
                }
                let m = active
                    & self.cand_m[ci]
                    & row_in(self.lane_span[ci], i)
                    & path.overlaps(&col.aabb);
                if m.none() {
                    continue;
                }
                let (h, t) = sweep_point_l(&col.shape, from, to, r);
                let upd = m & h & (t.lt(best_t) | !hit);
                if upd.any() {
                    let at = from + (to - from).scale(t);
                    let (_, nrm) = point_contact_l(&col.shape, at);
                    best_t = L::select(upd, t, best_t);
                    best_n = V3::select(upd, nrm, best_n);
                    best_k = L::select(upd, tag(k), best_k);
                    hit = hit | upd;
                }
            }
            if hit.any() {
                let d = to - from;
                let at = from + d.scale(best_t);
                let into = d.dot(best_n).min(s(0.0));
                let rest = one - best_t;
                // Keep the motion along the surface; drop the part into it.
                let slid = at + (d - best_n.scale(into)).scale(rest);
                st.set_pos(i, V3::select(hit, slid, to));
                self.pushed(i, hit, best_n.scale(into.neg() * rest), best_k);
            }
        }
    }

    /// Continuous collision of fast segments: a segment that starts clear of
    /// a shape and moves farther this substep than about half the shape's
    /// thickness plus the cable radius is checked at intermediate
    /// configurations (linear in time, spaced so that it cannot skip the
    /// shape); at the first one in contact both particles are put there,
    /// keeping their motion along the surface.
    fn sweep_segments<S: Store<L>>(&mut self, st: &mut S, b: &Block<L>, world: &[WorldCollider]) {
        let r = b.radius;
        let (zero, one) = (s::<L>(0.0), s::<L>(1.0));
        for ci in 0..self.cands.len() {
            let k = self.cands[ci];
            let col = &world[k as usize];
            let thickness = match col.shape {
                WorldShape::Plane { .. } => continue,
                WorldShape::Sphere { radius, .. } | WorldShape::Capsule { radius, .. } => {
                    2.0 * radius
                }
                WorldShape::Cuboid { half_extents, .. } => 2.0 * half_extents.min_element(),
            };
            let step = s::<L>(0.5 * thickness) + r;
            let kf = tag::<L>(k);
            let (lo, hi) = self.span[ci];
            let ls = self.lane_span[ci];
            let (slo, shi) = seg_span(lo, hi, st.rows());
            for i in slo..shi {
                let (wa, wb) = (st.w(i), st.w(i + 1));
                let (a0, b0) = (st.prev(i), st.prev(i + 1));
                let (pa, pb) = (st.pos(i), st.pos(i + 1));
                let (da, db) = (pa - a0, pb - b0);
                let motion = da.length().max(db.length());
                let mut m = self.cand_m[ci] & seg_in(ls, i) & zero.lt(wa + wb) & step.lt(motion);
                if m.none() {
                    continue;
                }
                let swept = Bounds::of(a0, b0).with(pa).with(pb).expand(r);
                m = m & swept.overlaps(&col.aabb);
                if m.none() {
                    continue;
                }
                m = m & !segment_contact_l(&col.shape, a0, b0).1.lt(r);
                if m.none() {
                    continue;
                }
                // At most 64 checks: beyond that the motion is absurd anyway.
                let checks = (motion / step).ceil().min(s(64.0));
                let most = (0..L::WIDTH)
                    .filter(|&l| m.lane(l))
                    .map(|l| checks.lane(l))
                    .fold(0.0f32, f32::max);
                let mut done = !m;
                let mut j = 1.0f32;
                while j < most {
                    let jl = s::<L>(j);
                    let active = !done & jl.lt(checks);
                    if active.none() {
                        break;
                    }
                    let t = jl / checks;
                    let (a, bb) = (a0 + da.scale(t), b0 + db.scale(t));
                    let (_, phi, nrm) = segment_contact_l(&col.shape, a, bb);
                    let hit = active & phi.lt(r);
                    if hit.any() {
                        let rest = one - t;
                        for (row, w, start, d) in [(i, wa, a, da), (i + 1, wb, bb, db)] {
                            let mw = hit & zero.lt(w);
                            let into = d.dot(nrm).min(zero);
                            let p = start + (d - nrm.scale(into)).scale(rest);
                            st.set_pos(row, V3::select(mw, p, st.pos(row)));
                            self.pushed(row, mw, nrm.scale(into.neg() * rest), kf);
                        }
                        done = done | hit;
                    }
                    j += 1.0;
                }
            }
        }
    }

    /// One contact pass, run after every constraint sweep: pushes particles
    /// and segments out of the candidate colliders to the cable radius.
    /// (A block whose candidates are all planes may instead run the same
    /// operations per particle inside its sweeps, [`Contacts::planes_row`].)
    ///
    /// Inlined into the kernel (and so compiled for the kernel's SIMD
    /// path) for the plane, the common ground; other shapes go through
    /// `Contacts::project_shape`, compiled out of line once per SIMD path
    /// ([`Lane::out_of_line`]).
    #[inline(always)]
    pub fn project<S: Store<L>>(&mut self, st: &mut S, b: &Block<L>, set: &ColliderSet) {
        let world = set.prepared();
        let r = b.radius;
        for ci in 0..self.cands.len() {
            let k = self.cands[ci];
            let col = &world[k as usize];
            if let WorldShape::Plane { normal, offset } = col.shape {
                // Every row of the candidate lanes (a plane's span).
                let pl = Plane::of(normal, offset, self.cand_m[ci], k);
                // One copy per axis: the coordinate is picked at compile time.
                match pl.axis {
                    0 => self.project_axis_plane::<S, 0>(st, &pl, r),
                    1 => self.project_axis_plane::<S, 1>(st, &pl, r),
                    2 => self.project_axis_plane::<S, 2>(st, &pl, r),
                    _ => self.project_plane(st, &pl, r),
                }
            } else {
                let (wide, cm) = (self.wide, self.cand_m[ci]);
                let core = core_segment(&col.shape);
                // A shape with a core near a few cables of a wide block: its
                // un-crossing on their lane groups only, as its pass below.
                let uncross = |this: &mut Self, st: &mut S| {
                    let Some(core) = core else { return };
                    match few_groups::<L>(cm) {
                        Some(groups) => {
                            for g in groups {
                                this.uncross(st, b, col, ci, core, OneGroup(g));
                            }
                        }
                        None => this.uncross(st, b, col, ci, core, All),
                    }
                };
                uncross(self, st);
                if let Some(groups) = few_groups::<L>(cm) {
                    // A shape near a few cables of a wide block (a ball
                    // under two of 32): only their lane groups do its work.
                    for g in groups {
                        L::G::out_of_line(
                            wide,
                            #[inline(always)]
                            || self.project_shape(st, b, col, ci, OneGroup(g)),
                        );
                    }
                } else {
                    L::out_of_line(
                        wide,
                        #[inline(always)]
                        || self.project_shape(st, b, col, ci, All),
                    );
                }
                uncross(self, st);
            }
        }
        if self.cores {
            for (i, l) in self.last.iter_mut().enumerate() {
                *l = st.pos(i);
            }
        }
    }

    /// [`Contacts::project`]'s contact with the plane `pl` (`n·x = off`)
    /// on its candidate lanes: the same operations as `point_contact_l`,
    /// written out here.
    #[inline(always)]
    fn project_plane<S: Store<L>>(&mut self, st: &mut S, pl: &Plane<L>, r: L) {
        for i in 0..st.rows() {
            let mut p = st.pos(i);
            if self.dot_plane_row(i, &mut p, st.free(i), pl, r) {
                st.set_pos(i, p);
            }
        }
    }

    /// [`Contacts::project_plane`] on row `i`: particle `p`, its free
    /// lanes `free`. Returns whether `p` moved.
    #[inline(always)]
    fn dot_plane_row(&mut self, i: usize, p: &mut V3<L>, free: L::M, pl: &Plane<L>, r: L) -> bool {
        let m = pl.cm & free;
        if m.none() {
            return false;
        }
        let phi = pl.nv.dot(*p) - pl.off;
        let hit = m & phi.lt(r);
        if hit.none() {
            return false;
        }
        let dp = pl.nv.scale(r - phi);
        *p = V3::select(hit, *p + dp, *p);
        self.pushed(i, hit, dp, pl.kf);
        true
    }

    /// [`Contacts::project`]'s plane contact for a plane whose normal is
    /// axis `AXIS` (`pl.neg`: its negative), as [`axis_normal`] found it;
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
    /// The ground plane is the largest part of the contact scene's cost:
    /// counted by callgrind (`RAYON_NUM_THREADS=1 valgrind --tool=callgrind
    /// target/release/examples/contact_parts "both f0.3"`), this form took
    /// the whole run from 8.03 × 10⁹ instructions to 6.91 × 10⁹.
    #[inline(always)]
    fn project_axis_plane<S: Store<L>, const AXIS: usize>(
        &mut self,
        st: &mut S,
        pl: &Plane<L>,
        r: L,
    ) {
        for i in 0..st.rows() {
            // One test per row (rows with no candidate lane are rare: the
            // plane is a candidate for most of a block near it).
            let mut p = st.pos(i);
            if self.axis_plane_row::<AXIS>(i, &mut p, st.free(i), pl, r) {
                st.set_pos(i, p);
            }
        }
    }

    /// [`Contacts::project_axis_plane`] on row `i`: particle `p`, its free
    /// lanes `free`. Returns whether `p` moved.
    #[inline(always)]
    fn axis_plane_row<const AXIS: usize>(
        &mut self,
        i: usize,
        p: &mut V3<L>,
        free: L::M,
        pl: &Plane<L>,
        r: L,
    ) -> bool {
        let along = |c: L| if pl.neg { c.neg() } else { c };
        let phi = along(*coord(p, AXIS)) - pl.off;
        let hit = pl.cm & free & phi.lt(r);
        if hit.none() {
            return false;
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
        true
    }

    /// True when every candidate of this substep is a plane (after
    /// [`Contacts::find`] found some): a contact pass is then the same
    /// operations on each particle alone ([`Contacts::planes_row`]), so it
    /// can run inside the distance sweeps (see `kernel::substep`).
    #[inline]
    #[must_use]
    pub fn planes_only(&self) -> bool {
        !self.cands.is_empty() && !self.solids
    }

    /// The planes of a substep whose candidates are all planes
    /// ([`Contacts::planes_only`]), lent out for [`Contacts::planes_row`]
    /// (a row's contact then reads them in place); give them back with
    /// [`Contacts::return_planes`].
    #[must_use]
    pub fn lend_planes(&mut self) -> Planes<L> {
        Planes(std::mem::take(&mut self.planes))
    }

    /// Takes back the planes of [`Contacts::lend_planes`].
    pub fn return_planes(&mut self, planes: Planes<L>) {
        self.planes = planes.0;
    }

    /// A whole contact pass ([`Contacts::project`]) on one particle, `p`
    /// (row `i`, free lanes `free`, cable radius `r`), when every candidate
    /// is a plane ([`Contacts::planes_only`], `planes` from
    /// [`Contacts::lend_planes`]): each plane's contact in candidate order,
    /// the operations of the pass over the rows.
    #[inline(always)]
    pub fn planes_row(&mut self, planes: &Planes<L>, i: usize, p: &mut V3<L>, free: L::M, r: L) {
        for pl in &planes.0 {
            match pl.axis {
                0 => _ = self.axis_plane_row::<0>(i, p, free, pl, r),
                1 => _ = self.axis_plane_row::<1>(i, p, free, pl, r),
                2 => _ = self.axis_plane_row::<2>(i, p, free, pl, r),
                _ => _ = self.dot_plane_row(i, p, free, pl, r),
            }
        }
    }

    /// Records, for friction ([`Contacts::finish`]), that lanes `hit` of
    /// particle `i` were pushed by `dp` by candidate collider `kf`. Without
    /// friction nothing reads that, and the pass after every iteration
    /// skips it (a third of the plane's pass, by a count of operations).
    #[inline(always)]
    fn pushed(&mut self, i: usize, hit: L::M, dp: V3<L>, kf: L) {
        self.pushed_on(All, i, hit, dp, kf);
    }

    /// [`Contacts::pushed`] on the block's `lanes`.
    #[inline(always)]
    fn pushed_on<P: Lanes<L>>(
        &mut self,
        lanes: P,
        i: usize,
        hit: <P::G as Lane>::M,
        dp: V3<P::G>,
        kf: P::G,
    ) {
        if self.friction {
            let p = lanes.v3(self.push[i]);
            lanes.set3(&mut self.push[i], V3::select(hit, p + dp, p));
            if self.touches {
                let t = lanes.v(self.touch[i]);
                lanes.set(&mut self.touch[i], P::G::select(hit, kf, t));
            }
        }
    }

    /// Keeps every segment of candidate `ci`'s span on its side of the
    /// shape: a segment that went through the shape's `core` since the
    /// last contact pass (its linear motion from [`Contacts::last`] passed
    /// over the core, which a piece outside the shape cannot do), or whose
    /// centre line entered the shape since then, is *lost*. Each free end
    /// of a lost segment is moved along the outward normal the segment had
    /// at the last pass until it is the cable radius in front of the
    /// shape's support plane there, keeping its motion along that plane,
    /// so the cable slides around a rod instead of through it. Moving an
    /// end can lose its other segment, so this repeats (four rounds).
    /// Segments still lost then (a tight wrap where both segments of a
    /// particle press on the shape from either side and the constraints
    /// pull harder than the pushes) have their free ends put back where
    /// the last pass left them; a segment whose ends are both back has not
    /// moved and cannot be lost, so those rounds stop, at most one per
    /// segment.
    ///
    /// The other contacts only see where pieces are: a segment resting on
    /// a rod that integration or one constraint sweep carries past it is
    /// wholly behind the rod, out of reach of the contact and of the side
    /// memory, and one pressed to within rounding of the core has no side
    /// left. This runs before and after the other contacts of the shape,
    /// so a contact pass never ends with a segment lost.
    ///
    /// Runs on `lanes`: all of the block's, or one lane group where the
    /// shape is a candidate ([`Contacts::project`]): a capsule under two
    /// cables of a 32-lane block does the work of 8 lanes, not 32. Each
    /// group then stops its rounds when none of its lanes changed: a lane
    /// whose round changed nothing sees the same positions in the next
    /// round, so it would change nothing again, and its results are those
    /// of the rounds over every lane, bit for bit. Not inlined: compiled once per
    /// lane, store and `lanes` type, for the baseline (inlined at its call
    /// sites it made the crate build several times slower, and an AVX2
    /// copy of it doubled the crate's build time).
    #[inline(never)]
    fn uncross<S: Store<L>, P: Lanes<L>>(
        &mut self,
        st: &mut S,
        b: &Block<L>,
        col: &WorldCollider,
        ci: usize,
        core: (Vec3, Vec3),
        lanes: P,
    ) {
        let zero = s::<P::G>(0.0);
        let r = lanes.v(b.radius);
        let n = st.rows();
        let cm = lanes.m(self.cand_m[ci]);
        let kf = tag::<P::G>(self.cands[ci]);
        let (lo, hi) = self.span[ci];
        let ls = (lanes.v(self.lane_span[ci].0), lanes.v(self.lane_span[ci].1));
        let (slo, shi) = seg_span(lo, hi, n);
        let set = |st: &mut S, row: usize, p: V3<P::G>| {
            let mut whole = st.pos(row);
            lanes.set3(&mut whole, p);
            st.set_pos(row, whole);
        };
        for _ in 0..4 {
            let mut fixed = false;
            for i in slo..shi {
                let (wa, wb) = (lanes.v(st.w(i)), lanes.v(st.w(i + 1)));
                let (a0, b0) = (lanes.v3(self.last[i]), lanes.v3(self.last[i + 1]));
                let (a, bq) = (lanes.v3(st.pos(i)), lanes.v3(st.pos(i + 1)));
                let m = cm & seg_in(ls, i) & zero.lt(wa + wb);
                let (lost, came) = lost(col, core, m, r, (a0, b0), (a, bq));
                if lost.none() {
                    continue;
                }
                fixed = true;
                for (row, w, x) in [(i, wa, a), (i + 1, wb, bq)] {
                    let gap = support_gap(&col.shape, x, came);
                    let mw = lost & zero.lt(w) & gap.lt(r);
                    let dp = came.scale(r - gap);
                    set(st, row, V3::select(mw, x + dp, x));
                    self.pushed_on(lanes, row, mw, dp, kf);
                }
            }
            if !fixed {
                return;
            }
        }
        for _ in slo..shi {
            let mut back = false;
            for i in slo..shi {
                let (a0, b0) = (lanes.v3(self.last[i]), lanes.v3(self.last[i + 1]));
                let (a, bq) = (lanes.v3(st.pos(i)), lanes.v3(st.pos(i + 1)));
                let ma = lanes.m(st.free(i)) & !same(a, a0);
                let mb = lanes.m(st.free(i + 1)) & !same(bq, b0);
                let m = cm & seg_in(ls, i) & (ma | mb);
                let (lost, _) = lost(col, core, m, r, (a0, b0), (a, bq));
                if lost.none() {
                    continue;
                }
                back = true;
                set(st, i, V3::select(lost & ma, a0, a));
                set(st, i + 1, V3::select(lost & mb, b0, bq));
            }
            if !back {
                return;
            }
        }
    }

    /// [`Contacts::project`] for candidate `ci`, a shape other than a
    /// plane, on the block's `lanes`: all of them, or one group whose
    /// lanes are the only candidates.
    #[inline(always)] // into one out-of-line copy per SIMD path and lanes
    fn project_shape<S: Store<L>, P: Lanes<L>>(
        &mut self,
        st: &mut S,
        b: &Block<L>,
        col: &WorldCollider,
        ci: usize,
        lanes: P,
    ) {
        let n = st.rows();
        let ls = self.lane_span[ci];
        let mut v = View {
            st,
            side: &self.side[2 * n * ci..2 * n * (ci + 1)],
            push: &mut self.push,
            touch: &mut self.touch,
            lanes,
        };
        shape_pass(
            &mut v,
            col,
            lanes.v(b.radius),
            lanes.m(self.cand_m[ci]),
            (lanes.v(ls.0), lanes.v(ls.1)),
            self.span[ci],
            tag(self.cands[ci]),
            self.friction,
        );
    }

    /// Friction after the iterations, then one more contact pass (sliding
    /// along a curved surface or past an edge can dip into it).
    pub fn finish<S: Store<L>>(&mut self, st: &mut S, b: &Block<L>, set: &ColliderSet) {
        if b.friction {
            L::out_of_line(
                self.wide,
                #[inline(always)]
                || self.friction(st, set.prepared(), b.mu),
            );
            // Nothing reads the pushes after friction (the next substep's
            // `find` clears them): the last pass keeps no books.
            self.friction = false;
            self.project(st, b, set);
            self.friction = true;
        }
    }

    /// Position-based Coulomb friction with coefficient `mu`.
    #[inline(always)] // into one out-of-line copy per SIMD path
    fn friction<S: Store<L>>(&mut self, st: &mut S, world: &[WorldCollider], mu: L) {
        let zero = s::<L>(0.0);
        for i in 0..st.rows() {
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
                continue; // a row in the air: no square root
            }
            let load = push.length();
            let m = touched & zero.lt(load);
            if m.none() {
                continue;
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
            // origin it would make a stuck cable creep).
            st.set_carry(i, V3::select(m, V3::zero(), st.carry(i)));
        }
    }
}

/// What one shape's contact pass ([`shape_pass`]) reads and writes: a
/// block's particles and contact state, on some of its lanes ([`View`]).
trait ShapeRows<G: Lane> {
    /// Particles (rows).
    fn rows(&self) -> usize;
    /// Position of row `i`.
    fn pos(&self, i: usize) -> V3<G>;
    /// Sets the position of row `i`.
    fn set_pos(&mut self, i: usize, p: V3<G>);
    /// Inverse mass of row `i`.
    fn w(&self, i: usize) -> G;
    /// Lanes where row `i` is free.
    fn free(&self, i: usize) -> G::M;
    /// The candidate's side memory: particles `0..n`, segments `n..2n`.
    fn side(&self, i: usize) -> V3<G>;
    /// Friction's bookkeeping: push-out `d` added to row `i` in lanes `m`.
    fn add_push(&mut self, i: usize, m: G::M, d: V3<G>);
    /// Friction's bookkeeping: lanes `m` of row `i` were last pushed by
    /// collider `kf`.
    fn set_touch(&mut self, i: usize, m: G::M, kf: G);
}

/// Which lanes of a block a shape's pass runs on ([`View`]): all of them
/// ([`All`]) or one group ([`OneGroup`]).
trait Lanes<L: Lane>: Copy {
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
struct All;

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
struct OneGroup(usize);

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
struct View<'a, L: Lane, S, P> {
    st: &'a mut S,
    side: &'a [V3<L>],
    push: &'a mut [V3<L>],
    touch: &'a mut [L],
    lanes: P,
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
}

/// One contact pass of a shape other than a plane: every free particle
/// of rows `lo..hi` within `r` of it, then every segment whose closest
/// point is, pushed out along the contact normal (see the module docs),
/// in the lanes `cm` of the candidate whose span `ls` holds the row.
/// Written once over the lanes it runs on: a whole block, or one group.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the candidate's fields, each in its lanes
fn shape_pass<G: Lane, V: ShapeRows<G>>(
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
        let (phi, nrm) = keep_side(&col.shape, p, phi, nrm, v.side(i));
        let hit = m & phi.lt(r);
        if hit.any() {
            let dp = nrm.scale(r - phi);
            v.set_pos(i, V3::select(hit, p + dp, p));
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
        let m = cm & seg_in(ls, i) & zero.lt(wa + wb) & overlap(&zone, &Bounds::of(a, bq));
        if m.none() {
            continue;
        }
        let (t, phi, nrm) = segment_contact_l(&col.shape, a, bq);
        let at = a + (bq - a).scale(t);
        let (phi, nrm) = keep_side(&col.shape, at, phi, nrm, v.side(n + i));
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
        let (da, db) = (nrm.scale(sa * wa * scale), nrm.scale(sb * wb * scale));
        v.set_pos(i, V3::select(hit, a + da, a));
        v.set_pos(i + 1, V3::select(hit, bq + db, bq));
        if friction {
            v.add_push(i, hit, da);
            v.add_push(i + 1, hit, db);
            v.set_touch(i, hit & zero.lt(wa), kf);
            v.set_touch(i + 1, hit & zero.lt(wb), kf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{Fx, Mx};

    /// Positions, free masks, previous positions and carries of `W`
    /// lanes: what a plane's contact, a shape's side memory and friction
    /// read.
    #[derive(Clone)]
    struct Pts<const W: usize = 8> {
        pos: Vec<V3<Fx<W>>>,
        free: Vec<Mx<W>>,
        prev: Vec<V3<Fx<W>>>,
        carry: Vec<V3<Fx<W>>>,
    }

    impl<const W: usize> Store<Fx<W>> for Pts<W> {
        fn rows(&self) -> usize {
            self.pos.len()
        }
        fn pos(&self, i: usize) -> V3<Fx<W>> {
            self.pos[i]
        }
        fn set_pos(&mut self, i: usize, p: V3<Fx<W>>) {
            self.pos[i] = p;
        }
        fn free(&self, i: usize) -> Mx<W> {
            self.free[i]
        }
        fn prev(&self, i: usize) -> V3<Fx<W>> {
            self.prev[i]
        }
        fn set_prev(&mut self, _: usize, _: V3<Fx<W>>) {
            unreachable!()
        }
        fn carry(&self, i: usize) -> V3<Fx<W>> {
            self.carry[i]
        }
        fn set_carry(&mut self, i: usize, c: V3<Fx<W>>) {
            self.carry[i] = c;
        }
        fn w(&self, _: usize) -> Fx<W> {
            unreachable!()
        }
        fn rigid(&self, _: usize, _: usize) -> crate::kernel::Rigid<Fx<W>> {
            unreachable!()
        }
        fn soft(&self, _: usize, _: usize, _: Fx<W>) -> crate::kernel::Soft<Fx<W>> {
            unreachable!()
        }
        fn lambda(&self, _: usize, _: usize) -> Fx<W> {
            unreachable!()
        }
        fn set_lambda(&mut self, _: usize, _: usize, _: Fx<W>) {
            unreachable!()
        }
        fn reset_lambda(&mut self) {
            unreachable!()
        }
        fn tether(&self, _: usize, _: usize) -> (V3<Fx<W>>, Fx<W>, Mx<W>) {
            unreachable!()
        }
        fn curv(&self, _: usize) -> (Fx<W>, Fx<W>, Mx<W>) {
            unreachable!()
        }
        fn lambda_row(&self, _: usize, _: usize) -> Fx<W> {
            unreachable!()
        }
        fn set_lambda_row(&mut self, _: usize, _: usize, _: Fx<W>) {
            unreachable!()
        }
        fn reset_lambda_row(&mut self) {
            unreachable!()
        }
    }

    /// Bits of every lane of `v`, for bitwise comparison.
    fn bits(v: &[V3<Fx<8>>]) -> Vec<[u32; 3]> {
        v.iter()
            .flat_map(|p| (0..8).map(move |l| p.lane(l).to_array().map(f32::to_bits)))
            .collect()
    }

    /// Panics naming the first row and lane where `a` and `b` differ.
    fn same_bits<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T], what: &str) {
        if let Some(k) = (0..a.len()).find(|&k| a[k] != b[k]) {
            panic!(
                "{what}: row {}, lane {}: {:?} against {:?}",
                k / 8,
                k % 8,
                a[k],
                b[k]
            );
        }
        assert_eq!(a.len(), b.len(), "{what}");
    }

    /// With no moving candidate, friction tells the particles a contact
    /// pushed from their pushes alone (`Contacts::touches` false, nothing
    /// written to `touch`); with one, from `touch`. On the same pushes the
    /// two give bitwise the same positions and carries: pushes that are
    /// zero, `−0`, cancelled to zero by a second contact (touched, no
    /// load), so small that their square underflows, NaN, infinite, along
    /// one axis or several, on free and pinned particles, sticking and
    /// sliding. Fails, for one, if the push test looks at one coordinate.
    #[test]
    fn friction_without_touches_is_friction_with_them() {
        let pushes = [
            (Vec3::ZERO, false),
            (Vec3::ZERO, true), // pushed, then pushed back to zero
            (Vec3::new(-0.0, 0.0, -0.0), true),
            (Vec3::new(0.0, 0.01, 0.0), true),
            (Vec3::new(0.02, 0.0, 0.0), true),
            (Vec3::new(0.0, 0.0, -0.03), true),
            (Vec3::new(0.004, 0.003, 0.0), true),
            (Vec3::new(1e-30, 0.0, 0.0), true), // its square underflows
            (Vec3::new(0.0, f32::NAN, 0.0), true),
            (Vec3::new(f32::INFINITY, 0.0, 0.0), true),
            (Vec3::new(0.0, 2.0, 0.0), true), // a heavy load: sticks
        ];
        let slips = [
            Vec3::new(0.001, 0.0, 0.0005),
            Vec3::new(0.05, -0.01, 0.02),
            Vec3::ZERO,
            Vec3::new(-0.3, 0.0, 0.1),
        ];
        let rows = 12;
        let mut st = Pts::<8> {
            pos: vec![V3::zero(); rows],
            free: vec![Mx::splat(true); rows],
            prev: vec![V3::zero(); rows],
            carry: vec![V3::splat(Vec3::splat(1e-9)); rows],
        };
        let mut push = vec![V3::<Fx<8>>::zero(); rows];
        let mut touch = vec![Fx::<8>::splat(NONE); rows];
        for i in 0..rows {
            for l in 0..8 {
                let (p, touched) = pushes[(i * 8 + l) % pushes.len()];
                push[i].set_lane(l, p);
                if touched {
                    touch[i].set_lane(l, 1.0); // `tag(0)`
                }
                let prev = Vec3::new(i as f32, 0.5, l as f32);
                st.prev[i].set_lane(l, prev);
                st.pos[i].set_lane(l, prev + slips[(i + l) % slips.len()]);
            }
            st.free[i].set_lane(i % 8, i % 3 != 0); // some pinned particles
        }
        let with = Contacts::<Fx<8>> {
            friction: true,
            touches: true,
            push,
            touch,
            ..Contacts::default()
        };
        let without = Contacts {
            touches: false,
            touch: Vec::new(),
            ..with.clone()
        };
        let mu = Fx::splat(0.5);
        let mut results = Vec::new();
        for mut c in [with, without] {
            let mut s = st.clone();
            c.friction(&mut s, &[], mu);
            results.push(s);
        }
        let what = "friction with and without touches";
        same_bits(&bits(&results[0].pos), &bits(&results[1].pos), what);
        same_bits(&bits(&results[0].carry), &bits(&results[1].carry), what);
        // Friction acted: some particles moved, and some carries were cleared.
        assert_ne!(bits(&results[0].pos), bits(&st.pos));
        assert_ne!(bits(&results[0].carry), bits(&st.carry));
    }

    /// A plane whose normal is an axis takes the one-coordinate form
    /// (`Contacts::project_axis_plane`), and it is bitwise the dot-product
    /// form (`Contacts::project_plane`): positions, friction's pushes and
    /// touches, over two passes (the second accumulates onto the first's
    /// pushes), for every axis and sign, zero and non-zero offsets, and
    /// coordinates that are `±0`, denormal, inside, on and outside the
    /// cable radius. Fails, for one, if the off-axis coordinates of a
    /// pushed particle are left as they were (a `−0` stays `−0` where the
    /// dot-product form adds `+0`).
    #[test]
    fn axis_plane_contact_is_the_dot_product_form() {
        assert_eq!(axis_normal(Vec3::Y), Some((1, false)));
        assert_eq!(axis_normal(Vec3::NEG_Z), Some((2, true)));
        assert_eq!(axis_normal(Vec3::new(-0.0, 1.0, 0.0)), None);
        assert_eq!(axis_normal(Vec3::new(0.6, 0.8, 0.0)), None);
        let values = [
            0.0f32, -0.0, 1e-40, -1e-40, 0.05, -0.05, 0.1, -0.1, 0.0999, 0.3, 0.33, -0.7, 2.0,
            -0.95, -1.05, -1.1, 0.2, -0.2,
        ];
        let (rows, r) = (24, Fx::<8>::splat(0.1));
        let mut st = Pts {
            pos: vec![V3::zero(); rows],
            free: vec![Mx::splat(true); rows],
            prev: Vec::new(),
            carry: Vec::new(),
        };
        for i in 0..rows {
            for l in 0..8 {
                let v = |c: usize| values[(i * 7 + l * 3 + c * 5) % values.len()];
                st.pos[i].set_lane(l, Vec3::new(v(0), v(1), v(2)));
            }
            st.free[i].set_lane(i % 8, i % 3 != 0); // some pinned particles
        }
        let mut cm = Mx::<8>::splat(true);
        cm.set_lane(6, false); // a lane the plane is no candidate for
        let (mut pushed, mut differs_from_input) = (0, 0);
        for axis in 0..3 {
            for neg in [false, true] {
                for off in [0.0f32, -0.0, 0.25, -1.0] {
                    let mut n = [0.0f32; 3];
                    n[axis] = if neg { -1.0 } else { 1.0 };
                    let normal = Vec3::from_array(n);
                    assert_eq!(axis_normal(normal), Some((axis, neg)));
                    let mut c = Contacts::<Fx<8>> {
                        friction: true,
                        touches: true,
                        push: vec![V3::zero(); rows],
                        touch: vec![Fx::splat(NONE); rows],
                        ..Contacts::default()
                    };
                    let (mut c2, mut st2, mut st1) = (c.clone(), st.clone(), st.clone());
                    let (kf, offl) = (Fx::splat(3.0), Fx::splat(off));
                    let pl = Plane {
                        axis,
                        neg,
                        nv: V3::splat(normal),
                        off: offl,
                        cm,
                        kf,
                    };
                    for _ in 0..2 {
                        match axis {
                            0 => c.project_axis_plane::<_, 0>(&mut st1, &pl, r),
                            1 => c.project_axis_plane::<_, 1>(&mut st1, &pl, r),
                            _ => c.project_axis_plane::<_, 2>(&mut st1, &pl, r),
                        }
                        c2.project_plane(&mut st2, &pl, r);
                    }
                    let what = format!("normal {normal}, offset {off}");
                    same_bits(
                        &bits(&st1.pos),
                        &bits(&st2.pos),
                        &format!("positions, {what}"),
                    );
                    same_bits(&bits(&c.push), &bits(&c2.push), &format!("pushes, {what}"));
                    let touch = |c: &Contacts<Fx<8>>| -> Vec<u32> {
                        c.touch.iter().flat_map(|t| t.0.map(f32::to_bits)).collect()
                    };
                    same_bits(&touch(&c), &touch(&c2), &format!("touches, {what}"));
                    pushed += c
                        .touch
                        .iter()
                        .flat_map(|t| t.0)
                        .filter(|&t| t >= 0.0)
                        .count();
                    differs_from_input += usize::from(bits(&st1.pos) != bits(&st.pos));
                }
            }
        }
        // The comparison saw contacts, and zero signs turned by them.
        assert!(pushed > 200, "only {pushed} pushes");
        assert_eq!(differs_from_input, 24);
    }

    /// A shape's side memory on the lane groups where it is a candidate
    /// ([`few_groups`]) holds, in every lane of the block, what the pass
    /// over the whole block writes: the outward normal where the shape is
    /// a candidate, zero elsewhere. Fails if a candidate group is skipped
    /// or its lanes are written into another group's. (Run through the
    /// stepper, no scene here depends on the side memory of a block with
    /// few candidate groups: skipping the first group passed every other
    /// test.)
    #[test]
    fn side_memory_on_lane_groups_is_the_whole_block_pass() {
        let mut set = ColliderSet::new();
        set.add(cable_core::Collider::sphere(Vec3::ZERO, 0.3).expect("valid ball"));
        set.prepare();
        let world = set.prepared();
        let rows = 6;
        let mut st = Pts::<32> {
            pos: vec![V3::zero(); rows],
            free: vec![Mx::splat(true); rows],
            prev: vec![V3::zero(); rows],
            carry: vec![V3::zero(); rows],
        };
        for i in 0..rows {
            for l in 0..32 {
                // Rows cross the ball's box along x; lanes at different
                // heights, some through the ball, some outside it.
                let x = -0.3 + 0.12 * i as f32;
                let y = -0.35 + 0.025 * l as f32;
                st.prev[i].set_lane(l, Vec3::new(x, y, 0.002 * l as f32));
            }
        }
        // A candidate in groups 1 and 3 only (lanes 8..=13 and 25..=27).
        let mut cm = Mx::<32>::splat(false);
        for l in (8..=13).chain(25..=27) {
            cm.set_lane(l, true);
        }
        assert!(few_groups::<Fx<32>>(cm).is_some(), "the groups' path");
        let margin = Fx::<32>::splat(0.05);
        let mut c = Contacts::<Fx<32>> {
            cands: vec![0],
            cand_m: vec![cm],
            span: vec![(0, rows)],
            lane_span: vec![(Fx::splat(0.0), Fx::splat(rows as f32))],
            ..Contacts::default()
        };
        c.remember_sides(&st, world, margin);
        let mut whole = vec![V3::<Fx<32>>::zero(); 2 * rows];
        let at = (cm, (0, rows), c.lane_span[0]);
        sides_on(&st, &world[0], &mut whole, at, margin, All);
        let lanes = |v: &[V3<Fx<32>>]| -> Vec<[u32; 3]> {
            v.iter()
                .flat_map(|p| (0..32).map(move |l| p.lane(l).to_array().map(f32::to_bits)))
                .collect()
        };
        same_bits(&lanes(&c.side), &lanes(&whole), "side memory");
        // Normals remembered in both candidate groups, and only there.
        let mut per_group = [0; 4];
        for (k, n) in lanes(&whole).iter().enumerate() {
            if *n != [0; 3] {
                per_group[k % 32 / 8] += 1;
            }
        }
        assert!(
            per_group[1] > 4 && per_group[3] > 4 && per_group[0] + per_group[2] == 0,
            "normals remembered per group: {per_group:?}"
        );
    }

    /// The broad phase's plane test is the exact minimum over the box's
    /// eight corners: no lane whose box reaches the plane within the
    /// margin is missed, and none farther is kept.
    #[test]
    fn plane_near_is_the_nearest_corner_test() {
        let normals = [
            Vec3::Y,
            Vec3::NEG_Y,
            Vec3::new(0.6, 0.8, 0.0),
            Vec3::new(-0.48, 0.6, -0.64),
            Vec3::new(0.0, 0.0, -1.0),
        ];
        let mut checked = 0;
        for (k, normal) in normals.into_iter().enumerate() {
            let offset = k as f32 * 0.37 - 0.5;
            // Eight boxes, one per lane, around the plane and away from it.
            let mut bb = Bounds {
                min: V3::<Fx<8>>::zero(),
                max: V3::<Fx<8>>::zero(),
            };
            for l in 0..8 {
                let c = Vec3::new(
                    l as f32 * 0.3 - 1.0,
                    (l % 3) as f32 - 1.0,
                    0.5 - l as f32 * 0.2,
                );
                let h = Vec3::new(0.1 + l as f32 * 0.05, 0.2, 0.05 * (8 - l) as f32);
                bb.min.set_lane(l, c - h);
                bb.max.set_lane(l, c + h);
            }
            for margin in [0.0f32, 0.1, 0.5, 1.0] {
                let got = plane_near(normal, offset, &bb, Fx::splat(margin));
                for l in 0..8 {
                    let (lo, hi) = (bb.min.lane(l), bb.max.lane(l));
                    let nearest = (0..8)
                        .map(|c| {
                            let p = Vec3::new(
                                if c & 1 == 0 { lo.x } else { hi.x },
                                if c & 2 == 0 { lo.y } else { hi.y },
                                if c & 4 == 0 { lo.z } else { hi.z },
                            );
                            normal.dot(p) - offset
                        })
                        .fold(f32::INFINITY, f32::min);
                    // Away from the threshold by more than rounding.
                    if (nearest - margin).abs() > 1e-5 {
                        assert_eq!(got.lane(l), nearest < margin, "normal {normal}, lane {l}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(
            checked > 100,
            "only {checked} lanes away from the threshold"
        );
    }
}
