//! Contact forces: what the cables push on each collider, for games that
//! couple ropes to their rigid bodies (`ColliderSet::set_measure_forces`,
//! `ColliderSet::contact_force`, in `measure.rs`): the sums and the
//! reported force.
//!
//! The solver adds every contact's share as it runs, block by block and in
//! parallel (`ColliderSet::add_contact_load`, in `measure.rs`). Each addition is rounded
//! to a fixed point of 2⁻¹⁶ N (N·m for torques) and added as an integer, so
//! the sums do not depend on the order the blocks ran in: the reported
//! forces are the same bit for bit whatever the layout and thread count.

use std::sync::atomic::{AtomicI64, Ordering};

use glam::Vec3;

/// Fixed-point units per newton (or newton metre) of the sums.
pub(super) const UNITS: f64 = 65_536.0;

/// Largest magnitude one addition may have, in fixed-point units (2³⁰ N):
/// a sum of 2¹⁷ of them still fits an `i64`.
const MOST: f64 = (1u64 << 46) as f64;

/// The force and torque the cables exert on one collider, averaged over
/// the substeps of the last step ([`crate::ColliderSet::contact_force`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ContactForce {
    /// The force on the collider, newtons (world axes): what a game adds
    /// to the rigid body the collider stands for.
    pub force: Vec3,
    /// The torque on the collider about its position (a sphere's or box's
    /// centre, the middle of a capsule's axis, a plane's point
    /// `offset · normal`), newton metres.
    pub torque: Vec3,
}

/// The sums behind [`ContactForce`]: six fixed-point numbers per collider
/// slot (force, then torque), and the substeps they cover.
#[derive(Debug, Default)]
pub(super) struct ForceMeter {
    pub(super) on: bool,
    pub(super) sums: Vec<[AtomicI64; 6]>,
    pub(super) substeps: u64,
}

impl Clone for ForceMeter {
    fn clone(&self) -> Self {
        Self {
            on: self.on,
            sums: self
                .sums
                .iter()
                .map(|s| std::array::from_fn(|j| AtomicI64::new(s[j].load(Ordering::Relaxed))))
                .collect(),
            substeps: self.substeps,
        }
    }
}

/// `v` in fixed-point units, within ±[`MOST`] (NaN as 0: a contact of a
/// cable the stepper refused cannot poison the sums).
pub(super) fn fixed(v: f32) -> i64 {
    let x = (f64::from(v) * UNITS).round();
    if x.is_nan() {
        0
    } else {
        x.clamp(-MOST, MOST) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_rounds_clamps_and_drops_nan() {
        assert_eq!(fixed(1.0), 65_536);
        assert_eq!(fixed(-0.5), -32_768);
        assert_eq!(fixed(f32::NAN), 0);
        assert_eq!(fixed(f32::INFINITY), MOST as i64);
        assert_eq!(fixed(f32::NEG_INFINITY), -(MOST as i64));
    }
}
