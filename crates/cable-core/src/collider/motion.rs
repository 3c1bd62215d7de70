//! Kinematic colliders: their motion, the pose it advances every substep,
//! (the swept bounds and the checks live in the parent module).

use glam::{Quat, Vec3};

use super::{ColliderHandle, ColliderSet, check_motion};
use crate::bvh::Aabb;
use crate::error::CableError;

impl ColliderSet {
    /// The pose (position, rotation) collider `h` had at the last
    /// [`ColliderSet::prepare`]: where the next substep sweeps its motion
    /// from. After a substep it is the collider's pose unless the game
    /// moved it since ([`ColliderSet::set_pose`]); a saved state keeps it,
    /// so a restored run sweeps the same motion.
    ///
    /// # Errors
    /// [`CableError::StaleCollider`] when the handle is not live.
    pub fn stepped_pose(&self, h: ColliderHandle) -> Result<(Vec3, Quat), CableError> {
        Ok(self.entry(h)?.stepped)
    }

    /// Makes collider `h` move kinematically (see [`Collider::with_motion`](super::Collider::with_motion)),
    /// or stop with zero vectors.
    ///
    /// # Errors
    /// Stale handle, or as [`Collider::with_motion`](super::Collider::with_motion).
    pub fn set_motion(
        &mut self,
        h: ColliderHandle,
        velocity: Vec3,
        angular_velocity: Vec3,
    ) -> Result<(), CableError> {
        let velocity = check_motion("velocity", velocity)?;
        let angular_velocity = check_motion("angular_velocity", angular_velocity)?;
        let e = self.entry_mut(h)?;
        e.collider.velocity = velocity;
        e.collider.angular_velocity = angular_velocity;
        Ok(())
    }

    /// Puts collider `h` at a new pose without moving it there: unlike
    /// [`ColliderSet::set_pose`], the next substep does not see a motion
    /// (nothing is swept or pushed along the way, nothing is carried by
    /// friction); cables that are inside the collider at its new pose are
    /// pushed out of it where they are. For a respawn, a level load, or the
    /// first pose of a collider whose owner (an engine entity) was not
    /// placed yet when the collider was added.
    ///
    /// # Errors
    /// As [`ColliderSet::set_pose`].
    ///
    /// ```
    /// use cable_core::{Collider, ColliderSet};
    /// use glam::{Quat, Vec3};
    ///
    /// let mut set = ColliderSet::new();
    /// let ball = set.add(Collider::sphere(Vec3::ZERO, 0.5)?);
    /// set.teleport(ball, Vec3::new(2.0, -1.0, 0.0), Quat::IDENTITY)?;
    /// set.prepare();
    /// assert!(!set.prepared()[0].is_moving());
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn teleport(
        &mut self,
        h: ColliderHandle,
        position: Vec3,
        rotation: Quat,
    ) -> Result<(), CableError> {
        self.set_pose(h, position, rotation)?;
        // `set_pose` checked both and normalised the rotation.
        let e = self.entry_mut(h)?;
        e.stepped = (e.collider.position, e.collider.rotation);
        Ok(())
    }

    /// True when some live collider moves on its own
    /// ([`Collider::is_kinematic`](super::Collider::is_kinematic)). O(colliders).
    #[must_use]
    pub fn has_kinematic(&self) -> bool {
        self.slots
            .iter()
            .filter_map(|s| s.entry.as_ref())
            .any(|e| e.collider.is_kinematic())
    }

    /// Advances every kinematic collider's pose by `dt` seconds of its
    /// motion: the position by `velocity · dt`, the rotation by
    /// `angular_velocity · dt` about its origin. The stepper calls it before
    /// every substep. A collider whose motion would take its origin beyond
    /// ±1e6 m stops translating there (it keeps spinning).
    pub fn advance_kinematic(&mut self, dt: f32) {
        let mut changed: Option<Aabb> = None;
        for slot in &mut self.slots {
            let Some(e) = slot.entry.as_mut() else {
                continue;
            };
            let c = &mut e.collider;
            if !c.is_kinematic() {
                continue;
            }
            let before = c.world_shape().aabb();
            let moved = c.position + c.velocity * dt;
            if moved.is_finite() && moved.abs().max_element() <= crate::MAX_COORDINATE {
                c.position = moved;
            }
            if c.angular_velocity != Vec3::ZERO {
                let turned =
                    (Quat::from_scaled_axis(c.angular_velocity * dt) * c.rotation).normalize();
                if turned.is_finite() {
                    c.rotation = turned;
                }
            }
            let region = before.union(c.world_shape().aabb());
            changed = Some(changed.map_or(region, |r| r.union(region)));
        }
        if let Some(region) = changed {
            self.note_change(region);
        }
    }
}
