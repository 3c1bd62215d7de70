//! Narrow phase: distances, contact normals and swept-point hits between
//! pieces of a cable (a particle, a segment) and collider shapes.
//!
//! Every query works on a [`WorldShape`] and returns a signed distance
//! `phi` (metres, negative inside the shape) from the shape's surface to
//! the query, with the unit outward normal along which the query should
//! move to leave the shape. Degenerate inputs (a point on a sphere's
//! centre, a zero-length segment) get a fixed, deterministic normal.

use cable_core::WorldShape;
use glam::Vec3;

/// Parameter in [0, 1] of the point of segment `a + t·d` closest to `p`.
#[inline]
#[must_use]
pub fn closest_param(a: Vec3, d: Vec3, p: Vec3) -> f32 {
    let dd = d.length_squared();
    if dd <= f32::MIN_POSITIVE {
        0.0
    } else {
        ((p - a).dot(d) / dd).clamp(0.0, 1.0)
    }
}

/// A unit vector perpendicular to `d` (any one, deterministic); `Y` for a
/// zero `d`.
#[inline]
fn perpendicular(d: Vec3) -> Vec3 {
    d.try_normalize()
        .map_or(Vec3::Y, Vec3::any_orthonormal_vector)
}

/// Signed distance and outward normal of a point `p` from a ball of
/// `radius` around `c`; `fallback` is the normal when `p` sits on `c`.
#[inline]
fn ball(p: Vec3, c: Vec3, radius: f32, fallback: Vec3) -> (f32, Vec3) {
    let d = p - c;
    let l = d.length();
    if l > 1.0e-12 {
        (l - radius, d / l)
    } else {
        (-radius, fallback)
    }
}

/// Signed distance from the surface of `shape` to `p` and the outward normal.
///
/// # Example
/// ```
/// use cable_core::WorldShape;
/// use cable_systems::narrow::point_contact;
/// use glam::Vec3;
///
/// let s = WorldShape::Sphere { center: Vec3::ZERO, radius: 1.0 };
/// let (phi, n) = point_contact(&s, Vec3::new(0.0, 3.0, 0.0));
/// assert_eq!((phi, n), (2.0, Vec3::Y));
/// ```
#[inline]
#[must_use]
pub fn point_contact(shape: &WorldShape, p: Vec3) -> (f32, Vec3) {
    match *shape {
        WorldShape::Sphere { center, radius } => ball(p, center, radius, Vec3::Y),
        WorldShape::Capsule { a, b, radius } => {
            let d = b - a;
            let q = a + d * closest_param(a, d, p);
            ball(p, q, radius, perpendicular(d))
        }
        WorldShape::Plane { normal, offset } => (normal.dot(p) - offset, normal),
        WorldShape::Cuboid {
            center,
            axes,
            inv_axes,
            half_extents: h,
        } => {
            let l = inv_axes * (p - center);
            let q = l.clamp(-h, h);
            let diff = l - q;
            let dist = diff.length();
            if dist > 0.0 {
                (dist, axes * (diff / dist))
            } else {
                // Inside: leave through the nearest face.
                let gap = h - l.abs();
                let k = if gap.x <= gap.y && gap.x <= gap.z {
                    0
                } else if gap.y <= gap.z {
                    1
                } else {
                    2
                };
                let mut n = Vec3::ZERO;
                n[k] = if l[k] < 0.0 { -1.0 } else { 1.0 };
                (-gap[k], axes * n)
            }
        }
    }
}

/// Closest approach of segment `a`–`b` to `shape`: the segment parameter
/// `t` in [0, 1] of the closest (or deepest) point, its signed distance,
/// and the outward normal.
#[must_use]
pub fn segment_contact(shape: &WorldShape, a: Vec3, b: Vec3) -> (f32, f32, Vec3) {
    let d = b - a;
    let perp = || perpendicular(d);
    match *shape {
        WorldShape::Sphere { center, radius } => {
            let t = closest_param(a, d, center);
            let (phi, n) = ball(a + d * t, center, radius, perp());
            (t, phi, n)
        }
        WorldShape::Capsule {
            a: ca,
            b: cb,
            radius,
        } => {
            let (t, u) = segment_segment(a, d, ca, cb - ca);
            let q = ca + (cb - ca) * u;
            let (phi, n) = ball(a + d * t, q, radius, perp());
            (t, phi, n)
        }
        WorldShape::Plane { normal, offset } => {
            let (pa, pb) = (normal.dot(a), normal.dot(b));
            if pa <= pb {
                (0.0, pa - offset, normal)
            } else {
                (1.0, pb - offset, normal)
            }
        }
        WorldShape::Cuboid {
            center,
            axes,
            inv_axes,
            half_extents: h,
        } => {
            let la = inv_axes * (a - center);
            let ld = inv_axes * d;
            let (t, sq) = segment_box_closest(la, ld, h);
            if sq > 0.0 {
                let q = la + ld * t;
                let diff = q - q.clamp(-h, h);
                let dist = sq.sqrt();
                let n = diff.try_normalize().unwrap_or(Vec3::Y);
                (t, dist, axes * n)
            } else {
                let (depth, n) = segment_box_penetration(la, ld, h);
                (closest_param(la, ld, Vec3::ZERO), -depth, axes * n)
            }
        }
    }
}

/// Signed distance of `p` beyond the plane with unit normal `n` that
/// touches `shape` on its `n` side: `dot(p, n) − max over the shape of
/// dot(x, n)`. The solver uses it to keep a point on the side of the shape
/// it came from (see [`crate::collide`]).
#[inline]
#[must_use]
pub fn support_gap(shape: &WorldShape, p: Vec3, n: Vec3) -> f32 {
    match *shape {
        WorldShape::Sphere { center, radius } => (p - center).dot(n) - radius,
        WorldShape::Capsule { a, b, radius } => p.dot(n) - a.dot(n).max(b.dot(n)) - radius,
        WorldShape::Plane { normal, offset } => p.dot(normal) - offset,
        WorldShape::Cuboid {
            center,
            axes,
            half_extents: h,
            ..
        } => {
            let reach = axes.x_axis.dot(n).abs() * h.x
                + axes.y_axis.dot(n).abs() * h.y
                + axes.z_axis.dot(n).abs() * h.z;
            (p - center).dot(n) - reach
        }
    }
}

/// Closest points of segments `p + s·d1` and `q + u·d2` (s, u in [0, 1]):
/// Ericson, *Real-Time Collision Detection*, 5.1.9.
#[must_use]
pub fn segment_segment(p: Vec3, d1: Vec3, q: Vec3, d2: Vec3) -> (f32, f32) {
    let r = p - q;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    const EPS: f32 = 1.0e-12;
    if a <= EPS && e <= EPS {
        return (0.0, 0.0);
    }
    if a <= EPS {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(r);
    if e <= EPS {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > EPS * a * e {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.5
    };
    let mut u = (b * s + f) / e;
    if u < 0.0 {
        u = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if u > 1.0 {
        u = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (s, u)
}

/// Squared distance from `p` to the box `|x| ≤ h`.
#[inline]
fn box_sq_dist(p: Vec3, h: Vec3) -> f32 {
    (p - p.clamp(-h, h)).length_squared()
}

/// Closest point of segment `a + t·d` (t in [0, 1]) to the box `|x| ≤ h`:
/// `(t, squared distance)`. The squared distance is a convex piecewise
/// quadratic in t whose pieces break where a coordinate crosses a face
/// plane; each piece is minimised exactly.
#[must_use]
pub fn segment_box_closest(a: Vec3, d: Vec3, h: Vec3) -> (f32, f32) {
    let mut ts = [0.0f32; 8];
    ts[1] = 1.0;
    let mut m = 2;
    for k in 0..3 {
        if d[k].abs() > 1.0e-12 {
            for bound in [-h[k], h[k]] {
                let t = (bound - a[k]) / d[k];
                if t > 0.0 && t < 1.0 {
                    ts[m] = t;
                    m += 1;
                }
            }
        }
    }
    let ts = &mut ts[..m];
    ts.sort_unstable_by(f32::total_cmp);
    let mut best = (0.0, box_sq_dist(a, h));
    for w in ts.windows(2) {
        let (t0, t1) = (w[0], w[1]);
        let pm = a + d * (0.5 * (t0 + t1));
        let (mut qa, mut qb) = (0.0f32, 0.0f32);
        for k in 0..3 {
            let e = if pm[k] > h[k] {
                a[k] - h[k]
            } else if pm[k] < -h[k] {
                a[k] + h[k]
            } else {
                continue;
            };
            qa += d[k] * d[k];
            qb += d[k] * e;
        }
        let t = if qa > 0.0 {
            (-qb / qa).clamp(t0, t1)
        } else {
            t0
        };
        let v = box_sq_dist(a + d * t, h);
        if v < best.1 {
            best = (t, v);
        }
    }
    best
}

/// For a segment `a + t·d` that meets the box `|x| ≤ h`: the shortest move
/// (depth, unit direction) that separates them, over the box's face
/// normals and the cross products of the segment with the box axes
/// (the separating axis theorem).
#[must_use]
pub fn segment_box_penetration(a: Vec3, d: Vec3, h: Vec3) -> (f32, Vec3) {
    let b = a + d;
    let mut best = (f32::INFINITY, Vec3::Y);
    let mut try_axis = |l: Vec3| {
        let r = h.dot(l.abs());
        let (pa, pb) = (a.dot(l), b.dot(l));
        let up = r - pa.min(pb);
        let down = pa.max(pb) + r;
        if up < best.0 {
            best = (up, l);
        }
        if down < best.0 {
            best = (down, -l);
        }
    };
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        try_axis(axis);
    }
    let dl = d.length();
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        let c = d.cross(axis);
        let cl = c.length();
        if cl > 1.0e-4 * dl {
            try_axis(c / cl);
        }
    }
    best
}

/// First time `t` in [0, 1] at which a point moving in a straight line from
/// `from` to `to` comes within `radius` of `shape` (continuous collision
/// detection against tunnelling), or `None`.
///
/// A point that starts closer than `radius` sweeps against the shape grown
/// by slightly less than its current distance instead, so resting and
/// sliding contacts still stop at the surface rather than pass it. Planes
/// never need a sweep (a half-space has no far side) and return `None`.
/// Boxes are grown with sharp corners: conservative.
#[must_use]
pub fn sweep_point(shape: &WorldShape, from: Vec3, to: Vec3, radius: f32) -> Option<f32> {
    const SHRINK: f32 = 1.0 - 1.0e-3;
    let d = to - from;
    match *shape {
        WorldShape::Plane { .. } => None,
        WorldShape::Sphere { center, radius: r } => {
            let (phi, _) = ball(from, center, r, Vec3::Y);
            if phi <= 0.0 {
                return None;
            }
            ray_ball(from, d, center, r + radius.min(phi) * SHRINK)
        }
        WorldShape::Capsule { a, b, radius: r } => {
            let ax = b - a;
            let (phi, _) = ball(from, a + ax * closest_param(a, ax, from), r, Vec3::Y);
            if phi <= 0.0 {
                return None;
            }
            ray_capsule(from, d, a, b, r + radius.min(phi) * SHRINK)
        }
        WorldShape::Cuboid {
            center,
            inv_axes,
            half_extents: h,
            ..
        } => {
            let l0 = inv_axes * (from - center);
            let ld = inv_axes * d;
            let gap = (l0.abs() - h).max_element();
            if gap <= 0.0 {
                return None;
            }
            ray_box(l0, ld, h + Vec3::splat(radius.min(gap) * SHRINK))
        }
    }
}

/// Entry time in [0, 1] of `o + t·d` into the ball (c, r); `o` outside.
fn ray_ball(o: Vec3, d: Vec3, c: Vec3, r: f32) -> Option<f32> {
    let a = d.length_squared();
    if a <= 0.0 {
        return None;
    }
    let oc = o - c;
    let b = d.dot(oc);
    let cc = oc.length_squared() - r * r;
    if cc <= 0.0 {
        return Some(0.0);
    }
    let disc = b * b - a * cc;
    if disc < 0.0 || b >= 0.0 {
        return None;
    }
    let t = (-b - disc.sqrt()) / a;
    (0.0..=1.0).contains(&t).then_some(t.max(0.0))
}

/// Entry time in [0, 1] of `o + t·d` into the capsule (a, b, r); `o` outside.
fn ray_capsule(o: Vec3, d: Vec3, a: Vec3, b: Vec3, r: f32) -> Option<f32> {
    let ba = b - a;
    let baba = ba.length_squared();
    let mut best: Option<f32> = None;
    // Cylinder body.
    if baba > 0.0 {
        let oa = o - a;
        let bard = ba.dot(d);
        let baoa = ba.dot(oa);
        let qa = baba * d.length_squared() - bard * bard;
        let qb = baba * d.dot(oa) - baoa * bard;
        let qc = baba * oa.length_squared() - baoa * baoa - r * r * baba;
        if qa > 1.0e-12 * baba * d.length_squared() {
            let h = qb * qb - qa * qc;
            if h >= 0.0 {
                let t = (-qb - h.sqrt()) / qa;
                let y = baoa + t * bard;
                if (0.0..=1.0).contains(&t) && y > 0.0 && y < baba {
                    best = Some(t);
                }
            }
        }
    }
    // End caps.
    for c in [a, b] {
        if let Some(t) = ray_ball(o, d, c, r) {
            best = Some(best.map_or(t, |bt: f32| bt.min(t)));
        }
    }
    best
}

/// Entry time in [0, 1] of `o + t·d` into the box `|x| ≤ h` (slab test).
fn ray_box(o: Vec3, d: Vec3, h: Vec3) -> Option<f32> {
    let mut t0 = 0.0f32;
    let mut t1 = 1.0f32;
    for k in 0..3 {
        if d[k].abs() < 1.0e-20 {
            if o[k].abs() > h[k] {
                return None;
            }
        } else {
            let inv = 1.0 / d[k];
            let (mut ta, mut tb) = ((-h[k] - o[k]) * inv, (h[k] - o[k]) * inv);
            if ta > tb {
                std::mem::swap(&mut ta, &mut tb);
            }
            t0 = t0.max(ta);
            t1 = t1.min(tb);
            if t0 > t1 {
                return None;
            }
        }
    }
    Some(t0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat3, Quat};
    use proptest::prelude::*;

    fn v3() -> impl Strategy<Value = Vec3> {
        (-3.0f32..3.0, -3.0f32..3.0, -3.0f32..3.0).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }

    /// Brute force: smallest `f` over 4001 samples of the segment.
    fn sampled(a: Vec3, b: Vec3, f: impl Fn(Vec3) -> f32) -> f32 {
        (0..=4000)
            .map(|i| f(a.lerp(b, i as f32 / 4000.0)))
            .fold(f32::INFINITY, f32::min)
    }

    fn cuboid(h: Vec3, q: Quat) -> WorldShape {
        let axes = Mat3::from_quat(q);
        WorldShape::Cuboid {
            center: Vec3::new(0.3, -0.2, 0.1),
            axes,
            inv_axes: axes.transpose(),
            half_extents: h,
        }
    }

    proptest! {
        #[test]
        fn segment_contact_matches_sampling(a in v3(), b in v3(), h in (0.05f32..1.5, 0.05f32..1.5, 0.05f32..1.5), ang in -3.0f32..3.0) {
            let q = Quat::from_euler(glam::EulerRot::XYZ, ang, 0.5 * ang, 0.2);
            for shape in [
                cuboid(Vec3::new(h.0, h.1, h.2), q),
                WorldShape::Sphere { center: Vec3::ONE * 0.2, radius: h.0 },
                WorldShape::Capsule { a: Vec3::new(-1.0, 0.5, 0.0), b: q * Vec3::new(1.0, h.1, h.2), radius: h.0 },
            ] {
                let (t, phi, n) = segment_contact(&shape, a, b);
                let brute = sampled(a, b, |p| point_contact(&shape, p).0);
                if brute > 1.0e-3 {
                    // Outside: exact closest distance, and the reported point has it.
                    prop_assert!((phi - brute).abs() < 2.0e-3, "phi {phi} brute {brute}");
                    prop_assert!((point_contact(&shape, a.lerp(b, t)).0 - phi).abs() < 2.0e-3);
                    prop_assert!((n.length() - 1.0).abs() < 1.0e-3);
                } else {
                    // Touching or crossing: reported as such, normal unit.
                    prop_assert!(phi <= 2.0e-3, "phi {phi} brute {brute}");
                    prop_assert!((n.length() - 1.0).abs() < 1.0e-3);
                }
            }
        }

        #[test]
        fn sweep_hits_where_the_path_first_comes_within_radius(from in v3(), to in v3(), r in 0.01f32..0.3, ang in -3.0f32..3.0) {
            let q = Quat::from_rotation_y(ang);
            for shape in [
                cuboid(Vec3::new(0.5, 0.02, 0.8), q),
                WorldShape::Sphere { center: Vec3::ZERO, radius: 0.4 },
                WorldShape::Capsule { a: Vec3::new(-1.0, 0.0, 0.0), b: q * Vec3::new(1.0, 0.0, 0.0), radius: 0.2 },
            ] {
                let phi0 = point_contact(&shape, from).0;
                prop_assume!(phi0 > r);
                let first = (0..=4000)
                    .map(|i| i as f32 / 4000.0)
                    .find(|&t| point_contact(&shape, from.lerp(to, t)).0 <= r * 0.999);
                match (sweep_point(&shape, from, to, r), first) {
                    // Never later than the first sample within the radius (boxes
                    // may stop earlier: their sweep has sharp corners).
                    (Some(t), Some(f)) => prop_assert!(t <= f + 1.0e-3, "t {t} first {f}"),
                    (None, Some(f)) => prop_assert!(false, "missed a hit at {f}"),
                    (Some(t), None) => prop_assert!(
                        matches!(shape, WorldShape::Cuboid { .. }) || point_contact(&shape, from.lerp(to, t)).0 <= r * 1.01,
                        "spurious hit at {t}"
                    ),
                    (None, None) => {}
                }
            }
        }
    }
}
