//! The exact part of [`super`]: ray against box, cylinder and sphere,
//! point against segment, and the candidates a query keeps. Each test
//! rejects `NaN` input (a comparison with `NaN` is false), so a pool that
//! blew up answers "no hit", never panics.

use cable_core::Aabb;
use glam::Vec3;

use super::ray::Ray;

/// Where a ray enters a box (0 when it starts inside), or `None` when it
/// misses. Axes the ray barely moves along are tested as parallel, so no
/// `0 × ∞` arises.
#[inline]
pub(super) fn ray_box(ray: &Ray, inv: Vec3, b: &Aabb) -> Option<f32> {
    let (mut t0, mut t1) = (0.0f32, f32::INFINITY);
    for a in 0..3 {
        let (o, lo, hi) = (ray.origin[a], b.min[a], b.max[a]);
        if ray.dir[a].abs() < 1.0e-20 {
            if !(lo <= o && o <= hi) {
                return None;
            }
            continue;
        }
        let (ta, tb) = ((lo - o) * inv[a], (hi - o) * inv[a]);
        t0 = t0.max(ta.min(tb));
        t1 = t1.min(ta.max(tb));
    }
    (t0 <= t1).then_some(t0)
}

/// Where the ray from `o` along unit `d` enters the cylinder of squared
/// radius `r2` around segment `a`–`b` between its end planes (0 when `o`
/// is inside), and the hit's position along the segment (0..=1). Spheres
/// at the ends ([`ray_sphere`]) make the capsule.
#[inline]
pub(super) fn ray_cylinder(o: Vec3, d: Vec3, a: Vec3, b: Vec3, r2: f32) -> Option<(f32, f32)> {
    let ab = b - a;
    let l2 = ab.length_squared();
    if l2.is_nan() || l2 <= cable_core::MIN_SEGMENT_LENGTH * cable_core::MIN_SEGMENT_LENGTH {
        return None; // a point: its spheres are the whole capsule
    }
    let l = l2.sqrt();
    let u = ab / l;
    let oa = o - a;
    let (du, ou) = (d.dot(u), oa.dot(u));
    // The problem in the plane across the axis: a 2-D ray from `op` along `dp`.
    let (dp, op) = (d - u * du, oa - u * ou);
    let c = op.length_squared() - r2;
    if c <= 0.0 {
        return (0.0 <= ou && ou <= l).then(|| (0.0, ou / l));
    }
    let bq = op.dot(dp);
    if bq.is_nan() || bq >= 0.0 {
        return None; // moving away from the axis (or parallel to it)
    }
    let aq = dp.length_squared();
    // Squared distance of the 2-D line from the axis, computed directly
    // rather than as b² − a·c, which cancels for far origins.
    let h = op - dp * (bq / aq);
    let disc = aq * (r2 - h.length_squared());
    if disc.is_nan() || disc < 0.0 {
        return None;
    }
    let t = c / (-bq + disc.sqrt());
    let y = ou + t * du;
    (0.0 <= y && y <= l).then(|| (t, y / l))
}

/// Where the ray from `o` along unit `d` enters the sphere of squared
/// radius `r2` at `c` (0 when `o` is inside).
#[inline]
pub(super) fn ray_sphere(o: Vec3, d: Vec3, c: Vec3, r2: f32) -> Option<f32> {
    let oc = o - c;
    let cc = oc.length_squared() - r2;
    if cc <= 0.0 {
        return Some(0.0);
    }
    let b = oc.dot(d);
    if b.is_nan() || b >= 0.0 {
        return None;
    }
    let h = oc - d * b;
    let disc = r2 - h.length_squared();
    if disc.is_nan() || disc < 0.0 {
        return None;
    }
    Some(cc / (-b + disc.sqrt()))
}

/// The point of segment `a`–`b` nearest to `p` and its position along the
/// segment; exactly `a` or `b` at the ends, so a particle shared by two
/// segments gives both the same distance.
#[inline]
pub(super) fn closest_on_segment(p: Vec3, a: Vec3, b: Vec3) -> (Vec3, f32) {
    let ab = b - a;
    let l2 = ab.length_squared();
    let s = if l2 > 0.0 {
        ((p - a).dot(ab) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    if s <= 0.0 {
        (a, 0.0)
    } else if s >= 1.0 {
        (b, 1.0)
    } else {
        (a + ab * s, s)
    }
}

/// The best ray candidate so far: its distance, cable index, segment,
/// position along the segment and the axis point it was measured from.
#[derive(Debug, Clone, Copy)]
pub(super) struct RayCand {
    pub(super) t: f32,
    pub(super) cable: u32,
    pub(super) segment: u32,
    pub(super) along: f32,
    pub(super) foot: Vec3,
}

/// One ray's search state.
pub(super) struct RayProbe {
    pub(super) ray: Ray,
    pub(super) best: Option<RayCand>,
    /// The best distance so far (the ray's `max_dist` before any hit).
    pub(super) cutoff: f32,
}

impl RayProbe {
    /// Offers a candidate: kept when nearer, or as near with a lower
    /// (cable, segment).
    #[inline]
    pub(super) fn offer(&mut self, c: RayCand) {
        if c.t.is_nan() || c.t > self.cutoff {
            return;
        }
        let better = match self.best {
            None => true,
            Some(b) => c.t < b.t || (c.t == b.t && (c.cable, c.segment) < (b.cable, b.segment)),
        };
        if better {
            self.best = Some(c);
            self.cutoff = c.t;
        }
    }

    /// Tests segments `segs` of one cable (their bodies, then the round
    /// ends at their particles).
    pub(super) fn chunk(
        &mut self,
        cable: u32,
        radius: f32,
        pts: &[Vec3],
        linked: &[bool],
        segs: std::ops::Range<usize>,
    ) {
        let (o, d, r2) = (self.ray.origin, self.ray.dir, radius * radius);
        for s in segs.clone() {
            if !linked.get(s).copied().unwrap_or(false) {
                continue;
            }
            let (a, b) = (pts[s], pts[s + 1]);
            if let Some((t, along)) = ray_cylinder(o, d, a, b, r2) {
                self.offer(RayCand {
                    t,
                    cable,
                    segment: s as u32,
                    along,
                    foot: a + (b - a) * along,
                });
            }
        }
        // A particle's sphere belongs to the segment before it when that
        // is intact, else to the one after (the lower wins ties anyway).
        for i in segs.start..=segs.end {
            let owner = if i > 0 && linked.get(i - 1).copied().unwrap_or(false) {
                (i - 1, 1.0)
            } else if linked.get(i).copied().unwrap_or(false) {
                (i, 0.0)
            } else {
                continue;
            };
            let Some(&c) = pts.get(i) else {
                continue;
            };
            if let Some(t) = ray_sphere(o, d, c, r2) {
                self.offer(RayCand {
                    t,
                    cable,
                    segment: owner.0 as u32,
                    along: owner.1,
                    foot: c,
                });
            }
        }
    }
}

/// A closest-point candidate.
#[derive(Debug, Clone, Copy)]
pub(super) struct PointCand {
    pub(super) d2: f32,
    pub(super) cable: u32,
    pub(super) segment: u32,
    pub(super) along: f32,
    pub(super) point: Vec3,
}

impl PointCand {
    /// The total order candidates are ranked by.
    #[inline]
    pub(super) fn key(&self) -> (f32, u32, u32) {
        (self.d2, self.cable, self.segment)
    }
}
