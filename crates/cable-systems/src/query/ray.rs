//! The validated ray of the queries ([`Ray`]).

use cable_core::CableError;
use cable_core::error::{check_finite, check_vec3};
use glam::Vec3;

/// A half-line from `origin` along a unit direction, up to `max_dist`
/// metres: validated once, so batches of them cannot fail.
///
/// # Example
/// ```
/// use cable_systems::query::Ray;
/// use glam::Vec3;
///
/// let ray = Ray::new(Vec3::ZERO, Vec3::new(0.0, 0.0, -3.0), f32::INFINITY)?;
/// assert_eq!(ray.direction(), Vec3::NEG_Z); // normalised
/// assert_eq!(ray.at(2.0), Vec3::new(0.0, 0.0, -2.0));
/// let err = Ray::new(Vec3::ZERO, Vec3::ZERO, 1.0).unwrap_err();
/// assert_eq!(err.to_string(), "direction: must have a nonzero length, got 0");
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    pub(super) origin: Vec3,
    pub(super) dir: Vec3,
    pub(super) max_dist: f32,
}

impl Ray {
    /// A ray from `origin` along `direction` (any nonzero length; it is
    /// normalised), hitting nothing farther than `max_dist` metres
    /// (`f32::INFINITY` for no limit).
    ///
    /// # Errors
    /// `origin` not finite or beyond ±[`cable_core::MAX_COORDINATE`]
    /// ([`CableError::NotFinite`], [`CableError::OutOfRange`] naming
    /// `origin`), `direction` not finite or zero (naming `direction`),
    /// `max_dist` negative or NaN (naming `max_dist`).
    pub fn new(origin: Vec3, direction: Vec3, max_dist: f32) -> Result<Self, CableError> {
        let origin = check_vec3("origin", origin)?;
        for c in direction.to_array() {
            check_finite("direction", c)?;
        }
        // Scaled first, so a huge finite direction does not overflow.
        let m = direction.abs().max_element();
        if m == 0.0 {
            return Err(CableError::OutOfRange {
                field: "direction",
                expected: "must have a nonzero length",
                value: 0.0,
            });
        }
        let dir = (direction / m).normalize();
        Ok(Self {
            origin,
            dir,
            max_dist: check_max_dist(max_dist)?,
        })
    }

    /// Where the ray starts, metres.
    #[inline]
    #[must_use]
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// The unit direction.
    #[inline]
    #[must_use]
    pub fn direction(&self) -> Vec3 {
        self.dir
    }

    /// The farthest hit reported, metres.
    #[inline]
    #[must_use]
    pub fn max_dist(&self) -> f32 {
        self.max_dist
    }

    /// The point `t` metres along the ray.
    #[inline]
    #[must_use]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

/// A query distance: at least 0, `f32::INFINITY` allowed.
pub(super) fn check_max_dist(max_dist: f32) -> Result<f32, CableError> {
    if max_dist >= 0.0 {
        Ok(max_dist)
    } else {
        Err(CableError::OutOfRange {
            field: "max_dist",
            expected: "must be a number at least 0 (f32::INFINITY for no limit)",
            value: f64::from(max_dist),
        })
    }
}
