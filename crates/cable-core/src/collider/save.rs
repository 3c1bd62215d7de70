//! Serialisation of colliders and collider sets (feature `serde`).
//!
//! A set saves its identity, its slots (each live collider with the pose
//! the last substep used, which friction measures motion from) and its
//! free list. The prepared state ([`ColliderSet::prepared`], the BVH) is
//! not saved: the stepper prepares the set before every substep that
//! reads it, so a restored set starts with none and gives the same
//! results. Deserialising validates ([`ColliderSet::validate`]).

use glam::{Quat, Vec3};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Collider, ColliderSet, ColliderSlot, Shape};
use crate::bvh::Aabb;
use crate::error::CableError;

/// The fields of a [`Collider`], checked before they become one.
#[derive(Deserialize)]
#[serde(rename = "Collider", deny_unknown_fields)]
pub(super) struct ColliderRepr {
    shape: Shape,
    position: Vec3,
    rotation: Quat,
    #[serde(default)]
    velocity: Vec3,
    #[serde(default)]
    angular_velocity: Vec3,
}

impl TryFrom<ColliderRepr> for Collider {
    type Error = CableError;

    fn try_from(r: ColliderRepr) -> Result<Self, CableError> {
        let c = Collider {
            shape: r.shape,
            position: r.position,
            rotation: r.rotation,
            velocity: r.velocity,
            angular_velocity: r.angular_velocity,
        };
        c.check()?;
        Ok(c)
    }
}

#[derive(Serialize)]
#[serde(rename = "ColliderSet")]
struct SetOut<'a> {
    id: u32,
    slots: &'a [ColliderSlot],
    free: &'a [u32],
    /// Regions of collider changes sleeping cables have not yet seen
    /// (clamped to ±f32::MAX: JSON has no infinity, and a plane's region
    /// is all of space).
    changes: Vec<Aabb>,
}

#[derive(Deserialize)]
#[serde(rename = "ColliderSet", deny_unknown_fields)]
struct SetIn {
    id: u32,
    slots: Vec<ColliderSlot>,
    free: Vec<u32>,
    #[serde(default)]
    changes: Vec<Aabb>,
}

impl Serialize for ColliderSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SetOut {
            id: self.id,
            slots: &self.slots,
            free: &self.free,
            changes: self
                .changes
                .iter()
                .map(|a| Aabb {
                    min: a.min.clamp(Vec3::splat(f32::MIN), Vec3::splat(f32::MAX)),
                    max: a.max.clamp(Vec3::splat(f32::MIN), Vec3::splat(f32::MAX)),
                })
                .collect(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for ColliderSet {
    /// Reads a saved set and checks it ([`ColliderSet::validate`]); it keeps
    /// its identity, so the handles it issued before it was saved name the
    /// same colliders.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = SetIn::deserialize(d)?;
        let mut set =
            ColliderSet::from_saved(r.id, r.slots, r.free).map_err(serde::de::Error::custom)?;
        // At most MAX_CHANGES regions are kept; a longer list merges (a
        // region is only ever a reason to wake, so this loses nothing).
        for region in r.changes {
            set.note_change(region);
        }
        Ok(set)
    }
}

impl ColliderSet {
    /// A set from saved parts, validated; the identity counter moves past
    /// its identity, so sets created later in this process get others.
    fn from_saved(id: u32, slots: Vec<ColliderSlot>, free: Vec<u32>) -> Result<Self, CableError> {
        let live = slots.iter().filter(|s| s.entry.is_some()).count();
        let set = ColliderSet {
            id,
            slots,
            free,
            live,
            ..ColliderSet::default()
        };
        set.validate()?;
        crate::handle::reserve_owner_id(id);
        Ok(set)
    }
}
