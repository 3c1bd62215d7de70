//! Narrow phase: distances, contact normals and swept-point hits between
//! pieces of a cable (a particle, a segment) and collider shapes, written
//! once over any [`Lane`] type (one cable in `f32`, many in [`crate::kernel::lane::Fx`]).
//!
//! Every query works on a [`WorldShape`] and returns a signed distance
//! `phi` (metres, negative inside the shape) from the shape's surface to
//! the query, with the unit outward normal along which the query should
//! move to leave the shape. Degenerate inputs (a point on a sphere's
//! centre, a zero-length segment) get a fixed, deterministic normal.
//! Branches of a scalar formulation are selections here: every lane
//! computes both sides and keeps one, so a wide call is bitwise the scalar
//! call of each lane. The plain-`f32` functions without the `_l` suffix
//! ([`point_contact`], [`segment_contact`], [`sweep_point`]) are the
//! one-lane calls, for tools and tests.

use cable_core::WorldShape;
use std::ops::{Div, Neg};

use glam::Vec3;

use crate::kernel::lane::{Lane, M3, Mask, V3};

#[inline(always)]
fn s<L: Lane>(v: f32) -> L {
    L::splat(v)
}

#[inline(always)]
fn v<L: Lane>(p: Vec3) -> V3<L> {
    V3::splat(p)
}

#[inline(always)]
fn m3(m: &glam::Mat3) -> M3 {
    M3 {
        cols: [m.x_axis, m.y_axis, m.z_axis],
    }
}

/// Parameter in [0, 1] of the point of segment `a + t·d` closest to `p`.
#[inline(always)]
pub fn closest_param<L: Lane>(a: V3<L>, d: V3<L>, p: V3<L>) -> L {
    let dd = d.length_squared();
    let t = ((p - a).dot(d) / dd).clamp(s(0.0), s(1.0));
    L::select(dd.le(s(f32::MIN_POSITIVE)), s(0.0), t)
}

/// glam's `any_orthonormal_vector` of a unit `n` (Frisvad / Duff et al.).
#[inline(always)]
fn orthonormal<L: Lane>(n: V3<L>) -> V3<L> {
    let sign = s::<L>(1.0).copysign(n.z);
    let a = s::<L>(-1.0) / (sign + n.z);
    let b = n.x * n.y * a;
    V3::new(b, sign + n.y * n.y * a, n.y.neg())
}

/// A unit vector perpendicular to `d` (any one, deterministic); `Y` when
/// `d` cannot be normalised.
#[inline(always)]
fn perpendicular<L: Lane>(d: V3<L>) -> V3<L> {
    let rcp = s::<L>(1.0) / d.length();
    let ok = rcp.finite() & s::<L>(0.0).lt(rcp);
    V3::select(ok, orthonormal(d.scale(rcp)), v(Vec3::Y))
}

/// Signed distance and outward normal of a point `p` from a ball of
/// `radius` around `c`; `fallback` is the normal when `p` sits on `c`.
#[inline(always)]
fn ball<L: Lane>(p: V3<L>, c: V3<L>, radius: L, fallback: impl FnOnce() -> V3<L>) -> (L, V3<L>) {
    let d = p - c;
    let l = d.length();
    let ok = s::<L>(1.0e-12).lt(l);
    let n = d.div(l);
    // The fallback only matters (and is only computed) for a lane on the centre.
    let n = if ok.all() {
        n
    } else {
        V3::select(ok, n, fallback())
    };
    (L::select(ok, l - radius, radius.neg()), n)
}

/// Signed distance from the surface of `shape` to `p` and the outward
/// normal, per lane.
#[inline(always)]
pub fn point_contact_l<L: Lane>(shape: &WorldShape, p: V3<L>) -> (L, V3<L>) {
    match *shape {
        WorldShape::Sphere { center, radius } => ball(p, v(center), s(radius), || v(Vec3::Y)),
        WorldShape::Capsule { a, b, radius } => {
            let (a, d) = (v::<L>(a), v::<L>(b - a));
            let q = a + d.scale(closest_param(a, d, p));
            ball(p, q, s(radius), || perpendicular(d))
        }
        WorldShape::Plane { normal, offset } => (v::<L>(normal).dot(p) - s(offset), v(normal)),
        WorldShape::Cuboid {
            center,
            axes,
            inv_axes,
            half_extents: h,
        } => {
            let l = m3(&inv_axes).mul(p - v(center));
            let hv = v::<L>(h);
            let q = l.max(hv.neg()).min(hv);
            let diff = l - q;
            let dist = diff.length();
            let out = s::<L>(0.0).lt(dist);
            // Inside: leave through the nearest face.
            let gap = hv - l.abs();
            let kx = gap.x.le(gap.y) & gap.x.le(gap.z);
            let ky = !kx & gap.y.le(gap.z);
            let kz = !kx & !ky;
            let sign = |c: L| L::select(c.lt(s(0.0)), s(-1.0), s(1.0));
            let n_in = V3::new(sign(l.x).keep(kx), sign(l.y).keep(ky), sign(l.z).keep(kz));
            let g = L::select(kx, gap.x, L::select(ky, gap.y, gap.z));
            let axes = m3(&axes);
            (
                L::select(out, dist, g.neg()),
                V3::select(out, axes.mul(diff.div(dist)), axes.mul(n_in)),
            )
        }
    }
}

/// Closest approach of segment `a`–`b` to `shape`, per lane: the segment
/// parameter `t` in [0, 1] of the closest (or deepest) point, its signed
/// distance, and the outward normal.
#[inline(always)]
pub fn segment_contact_l<L: Lane>(shape: &WorldShape, a: V3<L>, b: V3<L>) -> (L, L, V3<L>) {
    segment_contact_from_l(shape, a, b, V3::zero)
}

/// Where `hint` is not zero, it replaces `v` (a normal that cannot be
/// told from the geometry); elsewhere `v` stays.
#[inline(always)]
fn or_hint<L: Lane>(hint: V3<L>, v: V3<L>) -> V3<L> {
    let zero = s::<L>(0.0);
    let known = !(hint.x.eq(zero) & hint.y.eq(zero) & hint.z.eq(zero));
    V3::select(known, hint, v)
}

/// Lanes where a contact of `shape` with signed distance `phi` (from
/// [`point_contact_l`] or [`segment_contact_l`]) lies on the shape's
/// centre (a ball's centre, a capsule's axis), where the normal is a
/// fixed fallback rather than a direction the geometry gives: the caller
/// should use the side the piece came from instead. Any fixed fallback
/// pushes a piece sideways, out of the plane of its motion (a rope lying
/// in a plane, met by a bar turning in that plane, was thrown 2 cm out of
/// it).
#[inline(always)]
pub fn on_centre<L: Lane>(shape: &WorldShape, phi: L) -> L::M {
    match *shape {
        WorldShape::Sphere { radius, .. } | WorldShape::Capsule { radius, .. } => {
            phi.le(s::<L>(-radius))
        }
        WorldShape::Plane { .. } | WorldShape::Cuboid { .. } => L::M::splat(false),
    }
}

/// [`segment_contact_l`] of a segment that came from the direction `came`
/// gives (a unit vector, or zero if unknown; called only when needed): a
/// segment through a ball's centre or across a capsule's core (two
/// crossing lines in a plane are at distance zero) leaves along `came`
/// (see [`on_centre`]).
#[inline(always)]
pub fn segment_contact_from_l<L: Lane>(
    shape: &WorldShape,
    a: V3<L>,
    b: V3<L>,
    came: impl FnOnce() -> V3<L>,
) -> (L, L, V3<L>) {
    let d = b - a;
    match *shape {
        WorldShape::Sphere { center, radius } => {
            let c = v::<L>(center);
            let t = closest_param(a, d, c);
            let (phi, n) = ball(a + d.scale(t), c, s(radius), || {
                or_hint(came(), perpendicular(d))
            });
            (t, phi, n)
        }
        WorldShape::Capsule {
            a: ca,
            b: cb,
            radius,
        } => {
            let (q0, qd) = (v::<L>(ca), v::<L>(cb - ca));
            let (t, u) = segment_segment(a, d, q0, qd);
            let (phi, n) = ball(a + d.scale(t), q0 + qd.scale(u), s(radius), || {
                or_hint(came(), perpendicular(d))
            });
            (t, phi, n)
        }
        WorldShape::Plane { normal, offset } => {
            let nv = v::<L>(normal);
            let (pa, pb) = (nv.dot(a), nv.dot(b));
            let first = pa.le(pb);
            (
                L::select(first, s(0.0), s(1.0)),
                L::select(first, pa, pb) - s(offset),
                nv,
            )
        }
        WorldShape::Cuboid {
            center,
            axes,
            inv_axes,
            half_extents: h,
        } => {
            let inv = m3(&inv_axes);
            let la = inv.mul(a - v(center));
            let ld = inv.mul(d);
            let hv = v::<L>(h);
            let (t, sq) = segment_box_closest(la, ld, hv);
            let out = s::<L>(0.0).lt(sq);
            let q = la + ld.scale(t);
            let diff = q - q.max(hv.neg()).min(hv);
            let dist = sq.sqrt();
            let rcp = s::<L>(1.0) / diff.length();
            let ok = rcp.finite() & s::<L>(0.0).lt(rcp);
            let n_out = V3::select(ok, diff.scale(rcp), v(Vec3::Y));
            let (depth, n_in) = segment_box_penetration(la, ld, hv);
            let t_in = closest_param(la, ld, V3::zero());
            let axes = m3(&axes);
            (
                L::select(out, t, t_in),
                L::select(out, dist, depth.neg()),
                axes.mul(V3::select(out, n_out, n_in)),
            )
        }
    }
}

/// Signed distance of `p` beyond the plane with unit normal `n` that
/// touches `shape` on its `n` side: `dot(p, n) − max over the shape of
/// dot(x, n)`. The solver uses it to keep a point on the side of the shape
/// it came from (see [`crate::kernel::contact`]).
#[inline(always)]
pub fn support_gap<L: Lane>(shape: &WorldShape, p: V3<L>, n: V3<L>) -> L {
    match *shape {
        WorldShape::Sphere { center, radius } => (p - v(center)).dot(n) - s(radius),
        WorldShape::Capsule { a, b, radius } => {
            p.dot(n) - v::<L>(a).dot(n).max(v::<L>(b).dot(n)) - s(radius)
        }
        WorldShape::Plane { normal, offset } => p.dot(v(normal)) - s(offset),
        WorldShape::Cuboid {
            center,
            axes,
            half_extents: h,
            ..
        } => {
            let reach = v::<L>(axes.x_axis).dot(n).abs() * s(h.x)
                + v::<L>(axes.y_axis).dot(n).abs() * s(h.y)
                + v::<L>(axes.z_axis).dot(n).abs() * s(h.z);
            (p - v(center)).dot(n) - reach
        }
    }
}

/// Closest points of segments `p + s·d1` and `q + u·d2` (s, u in [0, 1]):
/// Ericson, *Real-Time Collision Detection*, 5.1.9, with its branches as
/// selections.
#[inline(always)]
pub fn segment_segment<L: Lane>(p: V3<L>, d1: V3<L>, q: V3<L>, d2: V3<L>) -> (L, L) {
    let eps = s::<L>(1.0e-12);
    let (zero, one) = (s::<L>(0.0), s::<L>(1.0));
    let r = p - q;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let c = d1.dot(r);
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let s0 = L::select(
        (eps * a * e).lt(denom),
        ((b * f - c * e) / denom).clamp(zero, one),
        s(0.5),
    );
    let u0 = (b * s0 + f) / e;
    let below = u0.lt(zero);
    let above = !below & one.lt(u0);
    let u = L::select(below, zero, L::select(above, one, u0));
    let sg = L::select(
        below,
        (c.neg() / a).clamp(zero, one),
        L::select(above, ((b - c) / a).clamp(zero, one), s0),
    );
    // Degenerate segments, as the scalar early returns.
    let a_pt = a.le(eps);
    let e_pt = e.le(eps);
    let sg = L::select(
        a_pt,
        zero,
        L::select(e_pt, (c.neg() / a).clamp(zero, one), sg),
    );
    let u = L::select(
        a_pt & e_pt,
        zero,
        L::select(a_pt, (f / e).clamp(zero, one), L::select(e_pt, zero, u)),
    );
    (sg, u)
}

/// What a cable segment passing through `shape` must cross on the way
/// ([`core_of`]): a fixed segment, or a ball's diameter across the
/// segment's own sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Core {
    /// A fixed segment ([`core_segment`]).
    Segment(Vec3, Vec3),
    /// A ball of this centre and radius: per lane, its diameter along the
    /// normal of the segment's sweep.
    Ball(Vec3, f32),
}

impl Core {
    /// Per lane, the core a segment moving from `a0`–`b0` to `a1`–`b1`
    /// must cross to pass through the shape, as a start and a direction.
    /// A ball's is its diameter along `(b0 − a0) × (m1 − m0)` (m the
    /// segment's midpoint), the normal of the surface the segment sweeps:
    /// that diameter pierces the surface exactly when the segment swept
    /// over the ball's centre. A segment moving along itself sweeps no
    /// surface and gets a core of zero length, which it never crosses.
    #[inline(always)]
    #[must_use]
    pub fn lanes<L: Lane>(self, a0: V3<L>, b0: V3<L>, a1: V3<L>, b1: V3<L>) -> (V3<L>, V3<L>) {
        match self {
            Core::Segment(p, q) => (v::<L>(p), v::<L>(q - p)),
            Core::Ball(c, r) => {
                let e = b0 - a0;
                let m = (a1 + b1) - (a0 + b0);
                let n = e.cross(m);
                let len2 = n.length_squared();
                // Below this the sweep has no normal worth the name (a
                // segment moving along itself, or not at all).
                let some = s::<L>(1.0e-20).lt(len2) & len2.finite();
                let k = s::<L>(r) / L::select(some, len2.sqrt(), s::<L>(1.0));
                let half = V3::select(some, n.scale(k), V3::zero());
                (v::<L>(c) - half, half + half)
            }
        }
    }
}

/// The core a cable crossing `shape` must cross ([`Core`]): a capsule's
/// axis or a bar's long axis ([`core_segment`]), or a ball (its diameter
/// across each segment's sweep, so that a ball smaller than a segment
/// cannot slip between two particles). `None` for planes and for boxes
/// other than bars.
#[must_use]
pub fn core_of(shape: &WorldShape) -> Option<Core> {
    match *shape {
        WorldShape::Sphere { center, radius } => Some(Core::Ball(center, radius)),
        _ => core_segment(shape).map(|(p, q)| Core::Segment(p, q)),
    }
}

/// A segment inside `shape` that a cable crossing the shape must cross
/// too, for the shapes a cable segment can pass through without either
/// end touching them: a capsule's axis, a bar's long axis (a box whose
/// other two sides are at most a quarter of its longest). `None` for
/// spheres, planes and other boxes (a plane has no far side; a sphere, a
/// plate or a block is caught by the particles and the segment contact).
#[must_use]
pub fn core_segment(shape: &WorldShape) -> Option<(Vec3, Vec3)> {
    match *shape {
        WorldShape::Capsule { a, b, .. } => Some((a, b)),
        WorldShape::Cuboid {
            center,
            axes,
            half_extents: h,
            ..
        } => {
            let k = if h.x >= h.y && h.x >= h.z {
                0
            } else if h.y >= h.z {
                1
            } else {
                2
            };
            // Only a bar: both other sides at most a quarter of the long
            // one. A plate or a block is thick where a cable meets it.
            let middle = [h.x, h.y, h.z]
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != k)
                .map(|(_, &v)| v)
                .fold(0.0f32, f32::max);
            (middle <= 0.25 * h[k]).then(|| {
                let half = axes.col(k) * h[k];
                (center - half, center + half)
            })
        }
        WorldShape::Sphere { .. } | WorldShape::Plane { .. } => None,
    }
}

/// Lanes where the segment moving linearly from `a0`–`b0` to `a1`–`b1`
/// crosses the fixed segment `p`–`q` on the way (continuous collision of
/// a cable segment with a thin shape's core, [`core_segment`]).
///
/// At a crossing the two segments are coplanar: the triple product
/// `((b − a) × (p − a)) · (q − p)` is quadratic in time, and at each of its
/// roots in [0, 1] the segments must meet (closest points within 10⁻⁴ of
/// their lengths plus a metre).
#[cfg(feature = "internals")]
#[inline(always)]
pub fn crosses_segment<L: Lane>(
    a0: V3<L>,
    b0: V3<L>,
    a1: V3<L>,
    b1: V3<L>,
    p: Vec3,
    q: Vec3,
) -> L::M {
    // `q − p` once, then in every lane: the bits of the lane-wise form.
    crosses_segment_l(a0, b0, a1, b1, v::<L>(p), v::<L>(q - p))
}

/// `crosses_segment` (its one-core form, kept for the tests) with a core
/// that differs per lane: the fixed
/// segment `pv + t·d`, t in [0, 1] (a ball's diameter across each lane's
/// segment sweep, [`Core::lanes`]). A core of zero length is never crossed.
#[inline(always)]
pub fn crosses_segment_l<L: Lane>(
    a0: V3<L>,
    b0: V3<L>,
    a1: V3<L>,
    b1: V3<L>,
    pv: V3<L>,
    d: V3<L>,
) -> L::M {
    let (zero, one) = (s::<L>(0.0), s::<L>(1.0));
    let e0 = b0 - a0;
    let de = (b1 - a1) - e0;
    let w0 = pv - a0;
    let dw = a0 - a1;
    let c0 = e0.cross(w0).dot(d);
    let c1 = (e0.cross(dw) + de.cross(w0)).dot(d);
    let c2 = de.cross(dw).dot(d);
    let scale = c0.abs().max(c1.abs());
    let linear = c2.abs().le(s::<L>(1.0e-6) * scale);
    let disc = c1 * c1 - s::<L>(4.0) * c2 * c0;
    let real = linear | zero.le(disc);
    let root = disc.max(zero).sqrt();
    let two_a = s::<L>(2.0) * c2;
    let t_lin = c0.neg() / c1;
    let t1 = L::select(linear, t_lin, (c1.neg() - root) / two_a);
    let t2 = L::select(linear, t_lin, (c1.neg() + root) / two_a);
    // Rounding of the roots leaves the segments a little apart at them;
    // passing within 0.1 mm per metre of the core is inside the shape anyway.
    let tol = s::<L>(1.0e-4) * (e0.length() + d.length() + one);
    let gap_at = |t: L| {
        let a = a0 + (a1 - a0).scale(t);
        let b = b0 + (b1 - b0).scale(t);
        let (u, w) = segment_segment(a, b - a, pv, d);
        (a + (b - a).scale(u) - (pv + d.scale(w))).length()
    };
    // A segment that starts on the core has no side to keep: leaving it
    // (the root nearer 0) is not a crossing; coming back later is. A
    // segment whose line only points at the core (c0 = 0 with the segment
    // away from it) starts on no core, and both roots count.
    let on_core = c0.abs().le(s::<L>(1.0e-4) * e0.length() * d.length()) & gap_at(zero).le(tol);
    let first_nearer = t1.abs().le(t2.abs());
    let meets = |t: L, leaving: L::M| {
        let ok = real & !(on_core & leaving) & zero.le(t) & t.le(one) & t.finite();
        ok & gap_at(L::select(ok, t, zero)).le(tol)
    };
    // (A linear case has one root, t1 = t2.)
    meets(t1, first_nearer) | meets(t2, !first_nearer | linear)
}

/// Squared distance from `p` to the box `|x| ≤ h`.
#[inline(always)]
fn box_sq_dist<L: Lane>(p: V3<L>, h: V3<L>) -> L {
    (p - p.max(h.neg()).min(h)).length_squared()
}

/// Compare-exchange for the sorting network.
#[inline(always)]
fn cas<L: Lane>(t: &mut [L; 8], i: usize, j: usize) {
    let (a, b) = (t[i], t[j]);
    t[i] = a.min(b);
    t[j] = b.max(a);
}

/// Closest point of segment `a + t·d` (t in [0, 1]) to the box `|x| ≤ h`:
/// `(t, squared distance)`. The squared distance is a convex piecewise
/// quadratic in t whose pieces break where a coordinate crosses a face
/// plane; the breaks are sorted (a sorting network, the same in every lane)
/// and each piece is minimised exactly.
#[inline(always)]
pub fn segment_box_closest<L: Lane>(a: V3<L>, d: V3<L>, h: V3<L>) -> (L, L) {
    let (zero, one) = (s::<L>(0.0), s::<L>(1.0));
    // Where coordinate k crosses the face plane ±h_k, or 1 when it does not
    // cross it inside the segment. Built as one array literal: written element by
    // element in a loop, LLVM vectorized the writes across the elements
    // into AVX-512 scatter stores, one per lane.
    let cross = |k: usize, neg: bool| {
        let (ak, dk, hk) = (a.get(k), d.get(k), h.get(k));
        let live = s::<L>(1.0e-12).lt(dk.abs());
        let bound = if neg { hk.neg() } else { hk };
        let t = (bound - ak) / dk;
        let inside = live & zero.lt(t) & t.lt(one);
        L::select(inside, t, one)
    };
    let mut ts = [
        zero,
        one,
        cross(0, true),
        cross(0, false),
        cross(1, true),
        cross(1, false),
        cross(2, true),
        cross(2, false),
    ];
    // Batcher's odd-even merge sort of 8.
    for (i, j) in [
        (0, 1),
        (2, 3),
        (4, 5),
        (6, 7),
        (0, 2),
        (1, 3),
        (4, 6),
        (5, 7),
        (1, 2),
        (5, 6),
        (0, 4),
        (1, 5),
        (2, 6),
        (3, 7),
        (2, 4),
        (3, 5),
        (1, 2),
        (3, 4),
        (5, 6),
    ] {
        cas(&mut ts, i, j);
    }
    let mut best_t = zero;
    let mut best_v = box_sq_dist(a, h);
    for w in 0..7 {
        let (t0, t1) = (ts[w], ts[w + 1]);
        let pm = a + d.scale(s::<L>(0.5) * (t0 + t1));
        let (mut qa, mut qb) = (zero, zero);
        let mut outside = L::M::splat(false);
        for k in 0..3 {
            let (pk, ak, dk, hk) = (pm.get(k), a.get(k), d.get(k), h.get(k));
            let over = hk.lt(pk);
            let under = pk.lt(hk.neg());
            let e = L::select(over, ak - hk, ak + hk);
            let on = over | under;
            outside = outside | on;
            qa = qa + (dk * dk).keep(on);
            qb = qb + (dk * e).keep(on);
        }
        // A piece inside the box is at distance 0 throughout: take its
        // midpoint, which the classification above found inside, and not
        // its start, a face crossing that rounding may put a hair outside
        // (a segment through the box then read as just touching it).
        let mid = s::<L>(0.5) * (t0 + t1);
        let t = L::select(
            zero.lt(qa),
            (qb.neg() / qa).clamp(t0, t1),
            L::select(outside, t0, mid),
        );
        let val = box_sq_dist(a + d.scale(t), h);
        let better = val.lt(best_v);
        best_t = L::select(better, t, best_t);
        best_v = L::select(better, val, best_v);
    }
    (best_t, best_v)
}

/// For a segment `a + t·d` that meets the box `|x| ≤ h`: the shortest move
/// (depth, unit direction) that separates them, over the box's face
/// normals and the cross products of the segment with the box axes
/// (the separating axis theorem).
#[inline(always)]
pub fn segment_box_penetration<L: Lane>(a: V3<L>, d: V3<L>, h: V3<L>) -> (L, V3<L>) {
    let b = a + d;
    let mut best = (s::<L>(f32::INFINITY), v::<L>(Vec3::Y));
    let mut try_axis = |l: V3<L>, valid: L::M| {
        let r = h.dot(l.abs());
        let (pa, pb) = (a.dot(l), b.dot(l));
        let up = r - pa.min(pb);
        let down = pa.max(pb) + r;
        let m = valid & up.lt(best.0);
        best = (L::select(m, up, best.0), V3::select(m, l, best.1));
        let m = valid & down.lt(best.0);
        best = (L::select(m, down, best.0), V3::select(m, l.neg(), best.1));
    };
    let yes = L::M::splat(true);
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        try_axis(v(axis), yes);
    }
    let dl = d.length();
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        let c = d.cross(v(axis));
        let cl = c.length();
        try_axis(c.div(cl), (s::<L>(1.0e-4) * dl).lt(cl));
    }
    best
}

/// First time `t` in [0, 1] at which a point moving in a straight line from
/// `from` to `to` comes within `radius` of `shape` (continuous collision
/// detection against tunnelling): the lanes that hit, and their `t`.
///
/// A point that starts closer than `radius` sweeps against the shape grown
/// by slightly less than its current distance instead, so resting and
/// sliding contacts still stop at the surface rather than pass it. Planes
/// never need a sweep (a half-space has no far side). Boxes are grown with
/// sharp corners: conservative.
#[inline(always)]
pub fn sweep_point_l<L: Lane>(shape: &WorldShape, from: V3<L>, to: V3<L>, radius: L) -> (L::M, L) {
    let shrink = s::<L>(1.0 - 1.0e-3);
    let zero = s::<L>(0.0);
    let d = to - from;
    match *shape {
        WorldShape::Plane { .. } => (L::M::splat(false), zero),
        WorldShape::Sphere { center, radius: r } => {
            let c = v::<L>(center);
            let (phi, _) = ball(from, c, s(r), || v(Vec3::Y));
            let (hit, t) = ray_ball(from, d, c, s::<L>(r) + radius.min(phi) * shrink);
            (hit & zero.lt(phi), t)
        }
        WorldShape::Capsule { a, b, radius: r } => {
            let (av, ax) = (v::<L>(a), v::<L>(b - a));
            let (phi, _) = ball(
                from,
                av + ax.scale(closest_param(av, ax, from)),
                s(r),
                || v(Vec3::Y),
            );
            let (hit, t) = ray_capsule(from, d, av, v(b), s::<L>(r) + radius.min(phi) * shrink);
            (hit & zero.lt(phi), t)
        }
        WorldShape::Cuboid {
            center,
            inv_axes,
            half_extents: h,
            ..
        } => {
            let inv = m3(&inv_axes);
            let l0 = inv.mul(from - v(center));
            let ld = inv.mul(d);
            let hv = v::<L>(h);
            let gap = (l0.abs() - hv).max_element();
            let g = radius.min(gap) * shrink;
            let (hit, t) = ray_box(l0, ld, hv + V3::new(g, g, g));
            (hit & zero.lt(gap), t)
        }
    }
}

/// Entry time in [0, 1] of `o + t·d` into the ball (c, r); `o` outside.
#[inline(always)]
fn ray_ball<L: Lane>(o: V3<L>, d: V3<L>, c: V3<L>, r: L) -> (L::M, L) {
    let zero = s::<L>(0.0);
    let a = d.length_squared();
    let oc = o - c;
    let b = d.dot(oc);
    let cc = oc.length_squared() - r * r;
    let disc = b * b - a * cc;
    let t = (b.neg() - disc.sqrt()) / a;
    let inside = cc.le(zero);
    let hit = zero.lt(a) & !disc.lt(zero) & b.lt(zero) & zero.le(t) & t.le(s(1.0));
    (
        zero.lt(a) & (inside | hit),
        L::select(inside, zero, t.max(zero)),
    )
}

/// Entry time in [0, 1] of `o + t·d` into the capsule (a, b, r); `o` outside.
#[inline(always)]
fn ray_capsule<L: Lane>(o: V3<L>, d: V3<L>, a: V3<L>, b: V3<L>, r: L) -> (L::M, L) {
    let zero = s::<L>(0.0);
    let ba = b - a;
    let baba = ba.length_squared();
    // Cylinder body.
    let oa = o - a;
    let bard = ba.dot(d);
    let baoa = ba.dot(oa);
    let dd = d.length_squared();
    let qa = baba * dd - bard * bard;
    let qb = baba * d.dot(oa) - baoa * bard;
    let qc = baba * oa.length_squared() - baoa * baoa - r * r * baba;
    let hh = qb * qb - qa * qc;
    let t = (qb.neg() - hh.sqrt()) / qa;
    let y = baoa + t * bard;
    let mut hit = zero.lt(baba)
        & (s::<L>(1.0e-12) * baba * dd).lt(qa)
        & zero.le(hh)
        & zero.le(t)
        & t.le(s(1.0))
        & zero.lt(y)
        & y.lt(baba);
    let mut best = L::select(hit, t, zero);
    // End caps.
    for c in [a, b] {
        let (h, t) = ray_ball(o, d, c, r);
        best = L::select(h, L::select(hit, best.min(t), t), best);
        hit = hit | h;
    }
    (hit, best)
}

/// Entry time in [0, 1] of `o + t·d` into the box `|x| ≤ h` (slab test).
#[inline(always)]
fn ray_box<L: Lane>(o: V3<L>, d: V3<L>, h: V3<L>) -> (L::M, L) {
    let mut t0 = s::<L>(0.0);
    let mut t1 = s::<L>(1.0);
    let mut ok = L::M::splat(true);
    for k in 0..3 {
        let (ok_, dk, hk) = (o.get(k), d.get(k), h.get(k));
        let flat = dk.abs().lt(s(1.0e-20));
        ok = ok & !(flat & hk.lt(ok_.abs()));
        let inv = s::<L>(1.0) / dk;
        let (ta, tb) = ((hk.neg() - ok_) * inv, (hk - ok_) * inv);
        let (lo, hi) = (ta.min(tb), tb.max(ta));
        t0 = L::select(flat, t0, t0.max(lo));
        t1 = L::select(flat, t1, t1.min(hi));
    }
    (ok & t0.le(t1), t0)
}

/// [`point_contact_l`] for one point (feature `internals`).
///
/// # Example
/// ```
/// use cable_core::WorldShape;
/// use cable_systems::kernel::narrow::point_contact;
/// use glam::Vec3;
///
/// let s = WorldShape::Sphere { center: Vec3::ZERO, radius: 1.0 };
/// let (phi, n) = point_contact(&s, Vec3::new(0.0, 3.0, 0.0));
/// assert_eq!((phi, n), (2.0, Vec3::Y));
/// ```
#[cfg(any(test, feature = "internals"))]
#[must_use]
pub fn point_contact(shape: &WorldShape, p: Vec3) -> (f32, Vec3) {
    let (phi, n) = point_contact_l::<f32>(shape, p.into());
    (phi, n.into())
}

/// [`segment_contact_l`] for one segment.
#[cfg(any(test, feature = "internals"))]
#[must_use]
pub fn segment_contact(shape: &WorldShape, a: Vec3, b: Vec3) -> (f32, f32, Vec3) {
    let (t, phi, n) = segment_contact_l::<f32>(shape, a.into(), b.into());
    (t, phi, n.into())
}

/// [`sweep_point_l`] for one point: the hit time, or `None`.
#[cfg(any(test, feature = "internals"))]
#[must_use]
pub fn sweep_point(shape: &WorldShape, from: Vec3, to: Vec3, radius: f32) -> Option<f32> {
    let (hit, t) = sweep_point_l::<f32>(shape, from.into(), to.into(), radius);
    hit.then_some(t)
}
