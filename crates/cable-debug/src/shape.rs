//! Collider shapes as the debug views draw them: outlines of their
//! orthographic projection.
//!
//! [`Shape`] mirrors the scene file's collider types (sphere, capsule, plane,
//! box) with glam types, so a renderer can draw colliders without depending
//! on the collision system. A pool's [`Collider`]s convert to shapes at their
//! current pose (`Shape::from(&collider)`, [`shapes_of`]); [`crate::Frame::capture`]
//! does so for every live collider.

use cable_core::{Collider, ColliderSet};
use glam::{Quat, Vec2, Vec3};

use crate::RenderError;
use crate::view::Projection;

/// A collider, in world metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A ball.
    Sphere {
        /// Centre, metres.
        center: Vec3,
        /// Radius, metres (> 0).
        radius: f32,
    },
    /// The points within `radius` of the segment `a`–`b`.
    Capsule {
        /// One end of the axis, metres.
        a: Vec3,
        /// The other end of the axis, metres.
        b: Vec3,
        /// Radius, metres (> 0).
        radius: f32,
    },
    /// The half-space below a plane: points `p` with `dot(normal, p) ≥ offset`
    /// are outside.
    Plane {
        /// Normal, pointing out of the solid (any non-zero length).
        normal: Vec3,
        /// Signed distance of the plane from the origin along the unit normal, metres.
        offset: f32,
    },
    /// An oriented box.
    Box {
        /// Centre, metres.
        center: Vec3,
        /// Half of the size along each local axis, metres (≥ 0).
        half_extents: Vec3,
        /// Orientation (a unit quaternion).
        rotation: Quat,
    },
}

/// One piece of a projected outline, in view metres.
#[derive(Debug, Clone, PartialEq)]
pub enum Outline {
    /// A circle.
    Circle {
        /// Centre, view metres.
        center: Vec2,
        /// Radius, metres.
        radius: f32,
    },
    /// A polyline; closed when its last point equals its first.
    Polyline(Vec<Vec2>),
}

fn bad(index: usize, field: &'static str, reason: String) -> RenderError {
    RenderError::Shape {
        index,
        field,
        reason,
    }
}

impl Shape {
    /// Checks the shape: finite numbers, positive radii, a non-zero normal,
    /// a unit rotation. `index` names the shape in the error.
    ///
    /// # Errors
    /// [`RenderError::Shape`] naming the field.
    ///
    /// # Example
    /// ```
    /// use cable_debug::Shape;
    /// use glam::Vec3;
    /// assert!(Shape::Sphere { center: Vec3::ZERO, radius: 1.0 }.validate(0).is_ok());
    /// let err = Shape::Sphere { center: Vec3::ZERO, radius: -1.0 }.validate(3).unwrap_err();
    /// assert_eq!(err.to_string(), "shapes[3].radius: must be greater than 0, got -1");
    /// ```
    pub fn validate(&self, index: usize) -> Result<(), RenderError> {
        let finite3 = |field: &'static str, v: Vec3| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(bad(index, field, format!("must be finite, got {v}")))
            }
        };
        let radius = |r: f32| {
            if r.is_finite() && r > 0.0 {
                Ok(())
            } else {
                Err(bad(
                    index,
                    "radius",
                    format!("must be greater than 0, got {r}"),
                ))
            }
        };
        match *self {
            Shape::Sphere { center, radius: r } => {
                finite3("center", center)?;
                radius(r)
            }
            Shape::Capsule { a, b, radius: r } => {
                finite3("a", a)?;
                finite3("b", b)?;
                radius(r)
            }
            Shape::Plane { normal, offset } => {
                finite3("normal", normal)?;
                if normal.length_squared() < 1.0e-12 {
                    return Err(bad(index, "normal", "must not be zero".into()));
                }
                if offset.is_finite() {
                    Ok(())
                } else {
                    Err(bad(
                        index,
                        "offset",
                        format!("must be finite, got {offset}"),
                    ))
                }
            }
            Shape::Box {
                center,
                half_extents,
                rotation,
            } => {
                finite3("center", center)?;
                finite3("half_extents", half_extents)?;
                if half_extents.min_element() < 0.0 {
                    return Err(bad(
                        index,
                        "half_extents",
                        format!("must be at least 0, got {half_extents}"),
                    ));
                }
                if !rotation.is_finite() || (rotation.length() - 1.0).abs() > 1.0e-3 {
                    return Err(bad(
                        index,
                        "rotation",
                        format!("must be a unit quaternion, got {rotation}"),
                    ));
                }
                Ok(())
            }
        }
    }

    /// World-space bounding box, `None` for an unbounded plane.
    #[must_use]
    pub fn world_bounds(&self) -> Option<(Vec3, Vec3)> {
        match *self {
            Shape::Sphere { center, radius } => Some((center - radius, center + radius)),
            Shape::Capsule { a, b, radius } => Some((a.min(b) - radius, a.max(b) + radius)),
            Shape::Plane { .. } => None,
            Shape::Box {
                center,
                half_extents,
                rotation,
            } => {
                let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
                for c in box_corners(center, half_extents, rotation) {
                    lo = lo.min(c);
                    hi = hi.max(c);
                }
                Some((lo, hi))
            }
        }
    }

    /// Bounds of the projected outline in view metres, `None` for a plane.
    #[must_use]
    pub fn view_bounds(&self, proj: &Projection) -> Option<(Vec2, Vec2)> {
        match *self {
            Shape::Sphere { center, radius } => {
                let c = proj.project(center);
                Some((c - radius, c + radius))
            }
            Shape::Capsule { a, b, radius } => {
                let (a, b) = (proj.project(a), proj.project(b));
                Some((a.min(b) - radius, a.max(b) + radius))
            }
            Shape::Plane { .. } => None,
            Shape::Box {
                center,
                half_extents,
                rotation,
            } => {
                let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
                for c in box_corners(center, half_extents, rotation) {
                    lo = lo.min(proj.project(c));
                    hi = hi.max(proj.project(c));
                }
                Some((lo, hi))
            }
        }
    }

    /// The outline of the shape seen through `proj`, in view metres:
    /// a sphere is a circle, a capsule a stadium, a box its twelve edges and
    /// a plane the line where it crosses the view's middle depth (with short
    /// ticks on the solid side), cut to the framed rectangle. A plane facing
    /// the viewer has no such line and draws nothing.
    #[must_use]
    pub fn outline(&self, proj: &Projection) -> Vec<Outline> {
        match *self {
            Shape::Sphere { center, radius } => vec![Outline::Circle {
                center: proj.project(center),
                radius,
            }],
            Shape::Capsule { a, b, radius } => {
                let (a, b) = (proj.project(a), proj.project(b));
                let Some(dir) = (b - a).try_normalize() else {
                    return vec![Outline::Circle { center: a, radius }];
                };
                let n = dir.perp();
                let mut pts = Vec::with_capacity(2 * ARC + 3);
                // Half circle around b from +n through +dir to -n, then around a.
                for (c, from) in [(b, n), (a, -n)] {
                    for i in 0..=ARC {
                        let t = std::f32::consts::PI * i as f32 / ARC as f32;
                        let (s, co) = t.sin_cos();
                        let toward = if from == n { dir } else { -dir };
                        pts.push(c + (from * co + toward * s) * radius);
                    }
                }
                pts.push(pts[0]);
                vec![Outline::Polyline(pts)]
            }
            Shape::Box {
                center,
                half_extents,
                rotation,
            } => {
                let c = box_corners(center, half_extents, rotation).map(|c| proj.project(c));
                let mut out = Vec::with_capacity(12);
                for i in 0..8usize {
                    for bit in [1usize, 2, 4] {
                        if i & bit == 0 {
                            out.push(Outline::Polyline(vec![c[i], c[i | bit]]));
                        }
                    }
                }
                out
            }
            Shape::Plane { normal, offset } => plane_trace(normal, offset, proj),
        }
    }
}

/// The outline shape of a pool collider at its current pose (position and
/// rotation). Infallible: a [`Collider`] is validated when built.
///
/// # Example
/// ```
/// use cable_core::Collider;
/// use cable_debug::Shape;
/// use glam::{Quat, Vec3};
/// let c = Collider::capsule(Vec3::new(1.0, 2.0, 0.0), Vec3::new(3.0, 2.0, 0.0), 0.5)?;
/// let Shape::Capsule { a, b, radius } = Shape::from(&c) else { unreachable!() };
/// assert!(a.distance(Vec3::new(1.0, 2.0, 0.0)) < 1e-5 || a.distance(Vec3::new(3.0, 2.0, 0.0)) < 1e-5);
/// assert!((a.distance(b) - 2.0).abs() < 1e-5);
/// assert_eq!(radius, 0.5);
/// # Ok::<(), cable_core::CableError>(())
/// ```
impl From<&Collider> for Shape {
    fn from(c: &Collider) -> Self {
        let (p, q) = (c.position(), c.rotation());
        match c.shape() {
            cable_core::Shape::Sphere { radius } => Shape::Sphere { center: p, radius },
            cable_core::Shape::Capsule {
                half_length,
                radius,
            } => {
                let h = q * Vec3::new(0.0, half_length, 0.0);
                Shape::Capsule {
                    a: p - h,
                    b: p + h,
                    radius,
                }
            }
            cable_core::Shape::Plane => {
                // The local half-space `y ≤ 0` is solid.
                let normal = (q * Vec3::Y).normalize_or(Vec3::Y);
                Shape::Plane {
                    normal,
                    offset: normal.dot(p),
                }
            }
            cable_core::Shape::Cuboid { half_extents } => Shape::Box {
                center: p,
                half_extents,
                rotation: q,
            },
        }
    }
}

/// The outline shapes of every live collider of `set`, in the set's
/// processing (slot) order, at their current poses.
///
/// # Example
/// ```
/// use cable_core::{Collider, ParticlePool};
/// use cable_debug::{Shape, shapes_of};
/// use glam::Vec3;
/// let mut pool = ParticlePool::new();
/// pool.colliders_mut().add(Collider::sphere(Vec3::new(0.0, 1.0, 0.0), 0.8)?);
/// pool.colliders_mut().add(Collider::plane(Vec3::Y, 0.0)?);
/// let shapes = shapes_of(pool.colliders());
/// assert_eq!(shapes[0], Shape::Sphere { center: Vec3::new(0.0, 1.0, 0.0), radius: 0.8 });
/// assert!(matches!(shapes[1], Shape::Plane { .. }));
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[must_use]
pub fn shapes_of(set: &ColliderSet) -> Vec<Shape> {
    set.handles()
        .filter_map(|h| set.get(h).ok())
        .map(Shape::from)
        .collect()
}

/// Points on each half circle of a capsule outline.
const ARC: usize = 16;

fn box_corners(center: Vec3, half: Vec3, rotation: Quat) -> [Vec3; 8] {
    let rot = rotation.normalize();
    std::array::from_fn(|i| {
        let local = Vec3::new(
            if i & 1 == 0 { -half.x } else { half.x },
            if i & 2 == 0 { -half.y } else { half.y },
            if i & 4 == 0 { -half.z } else { half.z },
        );
        center + rot * local
    })
}

fn plane_trace(normal: Vec3, offset: f32, proj: &Projection) -> Vec<Outline> {
    let len = normal.length();
    let (n, off) = (normal / len, offset);
    // Points right·x + up·y + toward·depth with dot(n, p) = off.
    let n2 = Vec2::new(n.dot(proj.right), n.dot(proj.up));
    let k = off - n.dot(proj.toward_viewer()) * proj.depth;
    let m = n2.length();
    if m < 1.0e-4 {
        return Vec::new();
    }
    let n2u = n2 / m;
    let centre = (proj.lo + proj.hi) * 0.5;
    // The point of the line nearest the view centre, and its direction.
    let base = centre + n2u * ((k / m) - centre.dot(n2u));
    let dir = n2u.perp();
    let half = (proj.hi - proj.lo).length();
    if !(half.is_finite() && base.is_finite()) {
        return Vec::new();
    }
    let mut out = vec![Outline::Polyline(vec![
        base - dir * half,
        base + dir * half,
    ])];
    // Ticks into the solid (against the normal), every `step` metres.
    let step = crate::view::nice_length(half / 12.0);
    let tick = step * 0.4;
    let along0 = ((base - centre).dot(dir) / step).floor();
    // About 24 ticks span the view; the cap only guards against rounding.
    let count = ((2.0 * half / step).ceil() as i32).min(64);
    for i in -count..=count {
        let at = base + dir * ((along0 + i as f32) * step);
        let end = at - (n2u + dir) * (tick * std::f32::consts::FRAC_1_SQRT_2);
        out.push(Outline::Polyline(vec![at, end]));
    }
    out
}
