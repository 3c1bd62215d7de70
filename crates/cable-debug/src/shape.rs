//! Collider shapes as the debug views draw them (their outlines in a
//! projection are the view's job: [`crate::Projection`], `Shape::outline`).
//!
//! [`Shape`] mirrors the scene file's collider types (sphere, capsule, plane,
//! box) with glam types, so a renderer can draw colliders without depending
//! on the collision system. A pool's [`Collider`]s convert to shapes at their
//! current pose (`Shape::from(&collider)`, [`shapes_of`]); [`crate::Frame::capture`]
//! does so for every live collider.

use cable_core::{Collider, ColliderSet};
use glam::{Quat, Vec2, Vec3};

use crate::RenderError;

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

pub(crate) fn box_corners(center: Vec3, half: Vec3, rotation: Quat) -> [Vec3; 8] {
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
