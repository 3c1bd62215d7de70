//! Bevy's glam and `cable`'s glam (0.33 or 0.34) are the same crate when
//! the lock file unifies them; these conversions then compile to nothing.

/// `cable`'s own glam, named for the conversions.
pub(crate) use glam as cable_glam;

#[inline]
pub(crate) fn to_cable(v: bevy_math::Vec3) -> cable_glam::Vec3 {
    cable_glam::Vec3::from_array(v.to_array())
}

#[inline]
pub(crate) fn to_cable_quat(q: bevy_math::Quat) -> cable_glam::Quat {
    cable_glam::Quat::from_array(q.to_array())
}

#[inline]
pub(crate) fn to_bevy(v: cable_glam::Vec3) -> bevy_math::Vec3 {
    bevy_math::Vec3::from_array(v.to_array())
}
