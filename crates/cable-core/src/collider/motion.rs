//! Kinematic colliders: their motion, the pose it advances every substep,
//! (the swept bounds and the checks live in the parent module).

use glam::{Quat, Vec3};

use super::{ColliderHandle, ColliderSet, check_motion};
use crate::bvh::Aabb;
use crate::error::CableError;

impl ColliderSet {
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
