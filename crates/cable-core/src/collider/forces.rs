//! Contact forces: what the cables push on each collider, for games that
//! couple ropes to their rigid bodies ([`ColliderSet::set_measure_forces`],
//! [`ColliderSet::contact_force`]).
//!
//! The solver adds every contact's share as it runs, block by block and in
//! parallel ([`ColliderSet::add_contact_load`]). Each addition is rounded
//! to a fixed point of 2⁻¹⁶ N (N·m for torques) and added as an integer, so
//! the sums do not depend on the order the blocks ran in: the reported
//! forces are the same bit for bit whatever the layout and thread count.

use std::sync::atomic::{AtomicI64, Ordering};

use glam::Vec3;

use super::{ColliderHandle, ColliderSet, WorldCollider};
use crate::error::CableError;

/// Fixed-point units per newton (or newton metre) of the sums.
const UNITS: f64 = 65_536.0;

/// Largest magnitude one addition may have, in fixed-point units (2³⁰ N):
/// a sum of 2¹⁷ of them still fits an `i64`.
const MOST: f64 = (1u64 << 46) as f64;

/// The force and torque the cables exert on one collider, averaged over
/// the substeps of the last step ([`ColliderSet::contact_force`]).
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
    sums: Vec<[AtomicI64; 6]>,
    substeps: u64,
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
fn fixed(v: f32) -> i64 {
    let x = (f64::from(v) * UNITS).round();
    if x.is_nan() {
        0
    } else {
        x.clamp(-MOST, MOST) as i64
    }
}

impl ColliderSet {
    /// Turns contact force measurement on or off (off by default). While
    /// it is on, every step sums what the cables push on each collider
    /// ([`ColliderSet::contact_force`]); that costs some time in the
    /// contact passes of cables near colliders, and nothing elsewhere.
    /// Turning it on or off changes no cable's motion.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, Collider, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let rod = pool.colliders_mut().add(Collider::capsule(Vec3::new(0.0, 0.0, -1.0), Vec3::new(0.0, 0.0, 1.0), 0.05)?);
    /// pool.colliders_mut().set_measure_forces(true);
    /// // ... step the pool (`cable_systems::Stepper::advance`), then:
    /// let f = pool.colliders().contact_force(rod)?;
    /// assert_eq!(f.force, Vec3::ZERO); // nothing stepped yet
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn set_measure_forces(&mut self, on: bool) {
        self.forces.on = on;
        if !on {
            self.forces.sums.clear();
            self.forces.substeps = 0;
        }
    }

    /// Whether contact forces are measured ([`ColliderSet::set_measure_forces`]).
    #[inline]
    #[must_use]
    pub fn measures_forces(&self) -> bool {
        self.forces.on
    }

    /// The force and torque the cables exerted on collider `h`, averaged
    /// over the substeps of the last step that ran any (contact and
    /// friction together; the opposite of what the collider did to the
    /// cables). Zero when forces are not measured
    /// ([`ColliderSet::set_measure_forces`]) or no cable touched it. A
    /// sleeping cable runs no contact, so what it rests on is not counted
    /// while it sleeps.
    ///
    /// Exact to 2⁻¹⁶ N (N·m) per cable and substep, and the same bit for
    /// bit whatever the layout and thread count.
    ///
    /// # Errors
    /// [`CableError::StaleCollider`] when `h` is not a live collider of
    /// this set.
    pub fn contact_force(&self, h: ColliderHandle) -> Result<ContactForce, CableError> {
        self.entry(h)?;
        let m = &self.forces;
        let Some(s) = m.sums.get(h.index as usize) else {
            return Ok(ContactForce::default());
        };
        if m.substeps == 0 {
            return Ok(ContactForce::default());
        }
        let per = 1.0 / (UNITS * m.substeps as f64);
        let at = |j: usize| (s[j].load(Ordering::Relaxed) as f64 * per) as f32;
        Ok(ContactForce {
            force: Vec3::new(at(0), at(1), at(2)),
            torque: Vec3::new(at(3), at(4), at(5)),
        })
    }

    /// Starts a step's measurement: the sums go back to zero (the stepper
    /// calls this before a step that runs substeps, when forces are
    /// measured). Sizes the sums for every collider slot.
    pub fn clear_contact_forces(&mut self) {
        let m = &mut self.forces;
        if !m.on {
            return;
        }
        m.substeps = 0;
        for s in &mut m.sums {
            for v in s.iter_mut() {
                *v.get_mut() = 0;
            }
        }
        let slots = self.slots.len();
        m.sums.resize_with(slots, Default::default);
    }

    /// Counts `n` more substeps in the measurement: the averages of
    /// [`ColliderSet::contact_force`] divide by the substeps counted since
    /// [`ColliderSet::clear_contact_forces`] (the stepper counts the
    /// substeps it runs).
    pub fn count_force_substeps(&mut self, n: u32) {
        if self.forces.on {
            self.forces.substeps += u64::from(n);
        }
    }

    /// Adds one contact load on prepared collider `col` to the sums: the
    /// solver calls this at the end of each substep with each cable's
    /// total force (N) and torque about the collider's position (N·m) on
    /// it. Ignored when forces are not measured or the collider's slot is
    /// newer than the last [`ColliderSet::clear_contact_forces`].
    /// Thread-safe and order-free: the sums are integers.
    pub fn add_contact_load(&self, col: &WorldCollider, force: Vec3, torque: Vec3) {
        let m = &self.forces;
        if !m.on {
            return;
        }
        let Some(s) = m.sums.get(col.handle.index() as usize) else {
            return;
        };
        for (j, v) in force
            .to_array()
            .into_iter()
            .chain(torque.to_array())
            .enumerate()
        {
            let q = fixed(v);
            if q != 0 {
                // Wrapping: reaching it takes 2^17 additions at the clamp.
                s[j].fetch_add(q, Ordering::Relaxed);
            }
        }
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
