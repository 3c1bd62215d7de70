//! Rotation-minimising frames along a cable, by parallel transport.
//!
//! A frame is a unit tangent `t` along the cable and a unit normal `n`
//! perpendicular to it (the third axis is `t × n`). The first normal comes
//! from a reference direction ([`seed_normal`]); each next one is the
//! previous normal turned by the smallest rotation that takes the previous
//! tangent to the next ([`transport`]). Such frames do not twist about the
//! cable and do not flip when the cable passes through any particular
//! direction (a frame built from a fixed "up" vector flips when the cable
//! passes through vertical; a Frenet frame flips at every inflection).

use glam::Vec3;

/// Squared length below which a direction is treated as zero
/// (`cable_core::MIN_SEGMENT_LENGTH` squared).
pub(crate) const TINY2: f32 = cable_core::MIN_SEGMENT_LENGTH * cable_core::MIN_SEGMENT_LENGTH;

/// The unit direction of `d`, or `None` when `d` is shorter than
/// `cable_core::MIN_SEGMENT_LENGTH` (coincident particles) or not finite.
#[inline(always)] // the mesh's inner loop: called several times per ring
#[must_use]
pub fn direction(d: Vec3) -> Option<Vec3> {
    let l2 = d.length_squared();
    if l2 > TINY2 && l2.is_finite() {
        // One division, not three: the mesh calls this four times a ring.
        Some(d * (1.0 / l2.sqrt()))
    } else {
        None
    }
}

/// Direction of the first segment of `points` that has a length; `Vec3::X`
/// when every point coincides (or fewer than two are given).
///
/// # Example
/// ```
/// use cable_systems::frame::first_direction;
/// use glam::Vec3;
/// let pts = [Vec3::ZERO, Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0)];
/// assert_eq!(first_direction(&pts), Vec3::NEG_Y);
/// ```
#[must_use]
pub fn first_direction(points: &[Vec3]) -> Vec3 {
    points
        .windows(2)
        .find_map(|w| direction(w[1] - w[0]))
        .unwrap_or(Vec3::X)
}

/// The first normal of a frame with unit tangent `t`: `reference` made
/// perpendicular to `t` and unit. When `t` is within about half a degree of
/// `reference`, the world axis least aligned with `t` is used instead.
///
/// # Example
/// ```
/// use cable_systems::frame::seed_normal;
/// use glam::Vec3;
/// let n = seed_normal(Vec3::X, Vec3::new(0.0, 1.0, 1.0));
/// assert!((n - Vec3::new(0.0, 1.0, 1.0).normalize()).length() < 1e-6);
/// assert!(seed_normal(Vec3::Z, Vec3::Z).dot(Vec3::Z).abs() < 1e-6);
/// ```
#[must_use]
pub fn seed_normal(t: Vec3, reference: Vec3) -> Vec3 {
    let r = reference.normalize_or(Vec3::Z);
    let p = r - t * r.dot(t);
    if p.length_squared() > 1.0e-4 {
        return p.normalize();
    }
    let a = t.abs();
    let axis = if a.x <= a.y && a.x <= a.z {
        Vec3::X
    } else if a.y <= a.z {
        Vec3::Y
    } else {
        Vec3::Z
    };
    (axis - t * axis.dot(t)).normalize()
}

/// Parallel transport of the unit normal `n` from unit tangent `a` to unit
/// tangent `b`: `n` turned by the smallest rotation taking `a` to `b`, made
/// exactly perpendicular to `b` again (so rounding does not drift).
///
/// When `b` turns back onto `a` (a fold, where no smallest rotation is
/// unique), `n` is kept and only made perpendicular to `b`.
///
/// # Example
/// ```
/// use cable_systems::frame::transport;
/// use glam::Vec3;
/// // Turning the tangent from +X to −Y about Z keeps a normal along Z.
/// let n = transport(Vec3::Z, Vec3::X, Vec3::NEG_Y);
/// assert!((n - Vec3::Z).length() < 1e-6);
/// ```
#[inline(always)] // the mesh's inner loop: called once per ring
#[must_use]
pub fn transport(n: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let c = a.dot(b);
    let turned = if c > -0.9999 {
        // Rodrigues with k = a × b (|k| = sin θ, c = cos θ):
        // R n = n + k × n + k × (k × n) / (1 + c).
        let k = a.cross(b);
        let kn = k.cross(n);
        // 1 / (1 + c) does not depend on `n`: off the chain of normals
        // a mesh carries from ring to ring.
        n + kn + k.cross(kn) * (1.0 / (1.0 + c))
    } else {
        n
    };
    let p = turned - b * turned.dot(b);
    direction(p).unwrap_or_else(|| b.any_orthonormal_vector())
}
