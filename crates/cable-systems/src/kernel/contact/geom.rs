//! The contact helpers that read no contact state: lane masks and
//! bounds for the broad phase, the plane test, a collider's displacement,
//! and the side memory's "which side did it come from" tests.

use crate::kernel::lane::{Bounds, Lane, M3, Mask, V3};
use crate::kernel::narrow::{
    Core, crosses_segment_l, segment_contact_from_l, segment_contact_l, support_gap,
};
use crate::kernel::store::{Block, Store};
use cable_core::{Aabb, WorldCollider, WorldShape};
use glam::Vec3;

/// `touch` of a particle no collider pushed this substep: zero, so that
/// clearing `touch` is a plain memory fill. (With `−1`, LLVM vectorizes
/// the fill across rows into AVX-512 scatter stores, one per float; see
/// `docs/performance-history.md` for what that cost.)
pub const NONE: f32 = 0.0;

/// What `touch` records for the candidate collider `k` (an index into the
/// prepared colliders): `k + 1`, so that [`NONE`] is no collider.
#[inline(always)]
pub(super) fn tag<L: Lane>(k: u32) -> L {
    L::splat(k as f32 + 1.0)
}

#[inline(always)]
pub(super) fn s<L: Lane>(v: f32) -> L {
    L::splat(v)
}

/// The lane groups where the mask `cm` has a lane, when that is not every
/// group (a shape near a few cables of a wide block: only their groups do
/// its work); `None` when it is, and the work runs on the whole block.
#[inline(always)]
pub fn few_groups<L: Lane>(cm: L::M) -> Option<impl Iterator<Item = usize> + Clone> {
    let groups = (0..L::GROUPS).filter(move |&g| L::group_m(cm, g).any());
    (groups.clone().count() < L::GROUPS).then_some(groups)
}

/// Lane `l`'s union with the box of lane `l` of `b`.
pub(super) fn union_of<L: Lane>(b: &Bounds<L>, live: L::M) -> Aabb {
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
/// that it inlines: called through a pointer, each row's positions are
/// copied whole to memory for it, which made the bounds a large part of
/// the contact scene's time.
#[inline(always)]
pub(super) fn axis_bounds<L: Lane, S: Store<L>>(st: &S, get: impl Fn(V3<L>) -> L) -> (L, L, L) {
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
pub fn axis_normal(n: Vec3) -> Option<(usize, bool)> {
    let a = n.to_array();
    let k = a.iter().position(|c| c.abs() == 1.0)?;
    let others_zero = (0..3).filter(|&j| j != k).all(|j| a[j].to_bits() == 0);
    others_zero.then_some((k, a[k] < 0.0))
}

/// Coordinate `axis` (0, 1, 2) of `p`.
#[inline(always)]
pub(super) fn coord<L: Lane>(p: &mut V3<L>, axis: usize) -> &mut L {
    match axis {
        0 => &mut p.x,
        1 => &mut p.y,
        _ => &mut p.z,
    }
}

/// Lanes whose bounds reach the plane within `margin`.
#[inline(always)]
pub fn plane_near<L: Lane>(normal: Vec3, offset: f32, bb: &Bounds<L>, margin: L) -> L::M {
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
pub(super) fn grown<L: Lane>(b: &Aabb, m: L) -> Bounds<L> {
    Bounds {
        min: V3::splat(b.min),
        max: V3::splat(b.max),
    }
    .expand(m)
}

/// Lanes where box `z` (per lane) contains `p`.
#[inline(always)]
pub(super) fn contains<L: Lane>(z: &Bounds<L>, p: V3<L>) -> L::M {
    z.min.x.le(p.x)
        & p.x.le(z.max.x)
        & z.min.y.le(p.y)
        & p.y.le(z.max.y)
        & z.min.z.le(p.z)
        & p.z.le(z.max.z)
}

/// Lanes where the per-lane boxes `z` and `o` overlap.
#[inline(always)]
pub(super) fn overlap<L: Lane>(z: &Bounds<L>, o: &Bounds<L>) -> L::M {
    z.min.x.le(o.max.x)
        & z.min.y.le(o.max.y)
        & z.min.z.le(o.max.z)
        & o.min.x.le(z.max.x)
        & o.min.y.le(z.max.y)
        & o.min.z.le(z.max.z)
}

/// Lanes whose span `lo..hi` holds row `i`.
#[inline(always)]
pub(super) fn row_in<L: Lane>((lo, hi): (L, L), i: usize) -> L::M {
    let x = s::<L>(i as f32);
    lo.le(x) & x.lt(hi)
}

/// Lanes whose span `lo..hi` holds a row of segment `i`.
#[inline(always)]
pub(super) fn seg_in<L: Lane>((lo, hi): (L, L), i: usize) -> L::M {
    lo.le(s((i + 1) as f32)) & s::<L>(i as f32).lt(hi)
}

/// The segments next to rows `lo..hi` of a cable of `n` rows: every
/// segment with an end in the range.
#[inline(always)]
pub(super) fn seg_span(lo: usize, hi: usize, n: usize) -> (usize, usize) {
    if lo >= hi {
        return (0, 0);
    }
    (lo.saturating_sub(1), hi.min(n - 1))
}

/// How far the collider's material point now at `p` moved during the last
/// substep (zero for a collider at rest).
#[inline(always)]
pub(super) fn displacement<L: Lane>(col: &WorldCollider, p: V3<L>) -> V3<L> {
    match col.frames() {
        None => V3::zero(),
        Some((pos, inv, prev_pos, prev_rot)) => {
            let local = m3(&inv).mul(p - V3::splat(pos));
            p - (V3::splat(prev_pos) + m3(&prev_rot).mul(local))
        }
    }
}

/// Where the collider's material point that was at `p` when the substep
/// began is now (`p` itself for a collider at rest): continuous contact
/// sweeps a particle from there, so it sweeps the motion relative to the
/// collider (`WorldCollider::carry`).
#[inline(always)]
pub(super) fn carried<L: Lane>(col: &WorldCollider, p: V3<L>) -> V3<L> {
    match col.carry() {
        None => p,
        Some((from, turn, to)) => V3::splat(to) + m3(&turn).mul(p - V3::splat(from)),
    }
}

#[inline(always)]
pub(super) fn m3(m: &glam::Mat3) -> M3 {
    M3 {
        cols: [m.x_axis, m.y_axis, m.z_axis],
    }
}

/// The contact to resolve for a piece at `p` with closest-feature contact
/// (`phi`, `nrm`) that started the substep outside with normal `came` (zero
/// if unknown): when the closest feature is now on the other side, the
/// piece was dragged through and must go back the way it came.
#[inline(always)]
pub(super) fn keep_side<L: Lane>(
    shape: &WorldShape,
    p: V3<L>,
    phi: L,
    nrm: V3<L>,
    came: V3<L>,
) -> (L, V3<L>) {
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

/// Per lane, `came` where it is known (not zero), else the direction of
/// `back` (the way back along a piece's motion), else zero: which way a
/// piece on a shape's centre or core leaves.
#[inline(always)]
pub(super) fn or_back<L: Lane>(came: V3<L>, back: V3<L>) -> V3<L> {
    let zero = s::<L>(0.0);
    let known = !(came.x.eq(zero) & came.y.eq(zero) & came.z.eq(zero));
    let rcp = s::<L>(1.0) / back.length();
    let moved = rcp.finite() & zero.lt(rcp);
    V3::select(known, came, V3::select(moved, back.scale(rcp), V3::zero()))
}

/// Lanes where `v` is not zero.
#[inline(always)]
pub(super) fn known<L: Lane>(v: V3<L>) -> L::M {
    let zero = s::<L>(0.0);
    !(v.x.eq(zero) & v.y.eq(zero) & v.z.eq(zero))
}

/// Lanes where `a` and `b` are the same point.
#[inline(always)]
pub(super) fn same<L: Lane>(a: V3<L>, b: V3<L>) -> L::M {
    a.x.eq(b.x) & a.y.eq(b.y) & a.z.eq(b.z)
}

/// Lanes of `m` where the segment that was `a0`–`b0` at the last contact
/// pass and is `a`–`b` now is lost ([`Contacts::uncross`]): its motion
/// passed over the shape's `core`, or its centre line has entered the
/// shape since; with the outward normal it had at the last pass.
#[inline(always)]
pub(super) fn lost<L: Lane>(
    col: &WorldCollider,
    core: Core,
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
    // A segment that lay across the core at the last pass has no normal
    // there: it came from where its motion since points away from.
    let back = || or_back(V3::zero(), (a0 - a) + (b0 - b));
    let (_, phi0, came) = segment_contact_from_l(&col.shape, a0, b0, back);
    let (_, phi, _) = segment_contact_l(&col.shape, a, b);
    let (p, d) = core.lanes(a0, b0, a, b);
    let lost = m & (crosses_segment_l(a0, b0, a, b, p, d) | (phi.lt(zero) & zero.le(phi0)));
    (lost, came)
}

/// Per lane, the longest of the segments `lo..hi` as they are now that
/// lie in the lane's own span `lane_span` ([`seg_in`]; a torn one counts
/// for nothing), metres: whether a ball is thin enough to pass between two
/// particles ([`super::Contacts::find`]).
#[inline(always)]
pub(super) fn longest_segment<L: Lane, S: Store<L>>(
    st: &S,
    b: &Block<L>,
    (lo, hi): (usize, usize),
    lane_span: (L, L),
) -> L {
    let mut longest = L::splat(0.0);
    if lo >= hi {
        return longest;
    }
    let mut a = st.pos(lo);
    for i in lo..hi {
        let next = st.pos(i + 1);
        // Each lane's own segments (its span's), so that a lane's answer
        // does not depend on the cables it shares a block with.
        let on = st.segment_on(i, b.soft) & seg_in(lane_span, i);
        let l = (next - a).length().keep(on);
        longest = longest.max(l);
        a = next;
    }
    longest
}

/// [`Plane::axis`] of a plane whose normal is not an axis.
pub(super) const ANY_AXIS: usize = 3;

/// One candidate plane's contact constants for a substep: what each
/// particle's contact with it reads ([`Contacts::plane_row`]).
#[derive(Debug, Clone, Copy)]
pub struct Plane<L: Lane> {
    /// The normal's axis (0, 1, 2) when it is exactly `±1` there and `+0`
    /// elsewhere ([`axis_normal`]), else [`ANY_AXIS`].
    pub axis: usize,
    /// The normal is the axis's negative.
    pub neg: bool,
    /// The unit normal.
    pub nv: V3<L>,
    /// The plane's offset along its normal, metres.
    pub off: L,
    /// The lanes for which the plane is a candidate.
    pub cm: L::M,
    /// The plane's collider index, as `touch` records it ([`tag`]).
    pub kf: L,
}

impl<L: Lane> Plane<L> {
    /// The plane `normal · x = offset` of collider `k`, a candidate of
    /// the lanes `cm`.
    pub fn of(normal: Vec3, offset: f32, cm: L::M, k: u32) -> Self {
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
