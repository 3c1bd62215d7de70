//! The components of the layer: what a game spawns (`CableSpec`,
//! `ColliderSpec`, `AttachTarget`, `CableWinch`…), what the layer writes
//! back (`CableBody`, `ColliderBody`, `CableParticles`…) and where it
//! reads entity transforms (`Transform`, `TransformSource`).

use cable_core::{CableDesc, CableError, CableHandle, Collider, ColliderHandle, End};
use glam::{Quat, Vec3};
use hecs::{Entity, World};

/// Describes the cable of an entity. Spawning an entity with it creates a
/// pool cable at the next [`CableWorld::step`](crate::ecs::CableWorld::step); changing it afterwards has
/// no effect (despawn and respawn, or use the pool through
/// [`CableWorld::pool_mut`](crate::ecs::CableWorld::pool_mut)).
#[derive(Debug, Clone, PartialEq)]
pub struct CableSpec {
    /// Geometry and parameters of the cable.
    pub desc: CableDesc,
    /// Particle masses other than the default 1 kg: (particle index, kg).
    /// A load at the end of a crane cable is `(segments, 50.0)`.
    pub masses: Vec<(usize, f32)>,
}

impl CableSpec {
    /// A spec with the default particle masses.
    #[must_use]
    pub fn new(desc: CableDesc) -> Self {
        Self {
            desc,
            masses: Vec::new(),
        }
    }

    /// Sets the mass of one particle, kilograms (> 0).
    #[must_use]
    pub fn with_mass(mut self, index: usize, kg: f32) -> Self {
        self.masses.push((index, kg));
        self
    }
}

/// The pool handle of an entity's cable, added by [`CableWorld::step`](crate::ecs::CableWorld::step).
///
/// The cable lives while its entity has both this and its [`CableSpec`]:
/// despawning the entity or removing the spec frees it; removing only this
/// component resets the cable (a new one is built from the spec). Removing
/// the cable from the pool ([`CableWorld::pool_mut`](crate::ecs::CableWorld::pool_mut)) does the same: the
/// next step replaces this body by one naming a cable rebuilt from the
/// spec, and reports it ([`StepReport::lost_cables`](crate::ecs::StepReport::lost_cables)); to be rid of the
/// cable, despawn the entity or remove its spec.
///
/// A body naming no cable of its entity's in this world (copied from
/// another world or another entity) is replaced at the next step, and
/// reported ([`StepReport::bad_bodies`](crate::ecs::StepReport::bad_bodies)).
///
/// With the `serde` feature it serialises (its handle), so a game saves it
/// with its entities and `CableWorld::restore` links the entity to its
/// restored cable again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CableBody {
    /// The cable in [`CableWorld::pool`](crate::ecs::CableWorld::pool).
    pub handle: CableHandle,
}

/// A winch on an entity's cable: reels toward `target_length` metres at
/// `speed` m/s ([`ParticlePool::set_winch`](cable_core::ParticlePool::set_winch)). Applied when added or changed;
/// removing it stops the winch where the cable is. Once the order is done
/// (the rest length at the target, the drum still) the winch is stopped
/// there and the component stays, so the cable can fall asleep. An order
/// the pool refuses (a length or speed out of range, NaN included) is
/// reported once ([`StepReport::bad_winches`](crate::ecs::StepReport::bad_winches)),
/// and the order the winch ran goes on and is still stopped when done
/// ([`crate::bind::apply_controls`], shared with the Bevy plugin). A grappling hook is a
/// rope with its start on the player and a `CableWinch` reeling it in.
/// The same type as [`cable_core::Winch`] (the Bevy plugin's `CableWinch`
/// gives the pool the same order).
pub type CableWinch = cable_core::Winch;

/// Marks a cable entity the engine does not show this frame (its own
/// culling decides): the pool is told ([`ParticlePool::set_visible`](cable_core::ParticlePool::set_visible)), and a
/// cable whose parameters set [`cable_core::CableParams::skip_when_hidden`]
/// is not simulated while marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CableHidden;

/// Added instead of [`CableBody`] when the pool refused a [`CableSpec`]
/// ([`crate::bind::spawn_cable`]: the description first, checked against
/// the substep too, then the masses, a bad one named `mass`).
#[derive(Debug, Clone, PartialEq)]
pub struct CableRejected(pub CableError);

/// A collider entity: the shape (sphere, capsule, plane, box) that cables
/// rest on and wrap around. When the entity has a transform (read through
/// the world's [`TransformSource`]), the transform replaces the collider's
/// pose every frame (position and rotation), so moving the entity moves the
/// collider kinematically; without one the collider keeps its own pose.
/// The first pose, in the step that adds the collider, is taken without a
/// motion ([`ColliderSet::teleport`](cable_core::ColliderSet::teleport)),
/// as in the Bevy plugin: the collider does not sweep through the cables
/// from its shape's own pose ([`crate::bind::pose_collider`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColliderSpec(pub Collider);

/// The pool handle of a collider entity, added by [`CableWorld::step`](crate::ecs::CableWorld::step).
/// A collider removed from the pool behind the ECS's back is added again
/// from the [`ColliderSpec`] at the next step, with a new body
/// ([`StepReport::lost_colliders`](crate::ecs::StepReport::lost_colliders)).
///
/// Serialises with the `serde` feature, as [`CableBody`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ColliderBody {
    /// The collider in [`CableWorld::pool`](crate::ecs::CableWorld::pool)'s collider set.
    pub handle: ColliderHandle,
}

/// Where one end of a cable hangs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AttachTarget {
    /// Not attached: the end moves freely (a pin from the [`CableDesc`] is
    /// released).
    #[default]
    Free,
    /// Pinned to a fixed world point, metres (finite, within ±1e6; a point
    /// out of range is refused and the end keeps its last good target).
    Point(Vec3),
    /// Pinned to another entity: its transform's translation plus `offset`
    /// rotated by its rotation (UE's `AttachEndTo` with a socket offset).
    /// A transform that is not finite, whose rotation is not a unit
    /// quaternion, or that puts the target beyond ±1e6 m is refused for
    /// that frame: the end stays at its last good target
    /// ([`StepReport::bad_targets`](crate::ecs::StepReport::bad_targets)).
    Entity {
        /// The entity followed; when it is despawned the end becomes free.
        entity: Entity,
        /// Offset in the target's local frame, metres.
        offset: Vec3,
    },
}

/// The attachments of a cable entity's two ends. Without this component
/// the ends stay as the [`CableDesc`] pinned them. Change it at any time:
/// attaching pins the end to its target from the next substep, detaching
/// frees it without a jump.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CableAttachments {
    /// Particle 0.
    pub start: AttachTarget,
    /// The last particle.
    pub end: AttachTarget,
}

impl CableAttachments {
    pub(super) fn get(&self, end: End) -> AttachTarget {
        match end {
            End::Start => self.start,
            End::End => self.end,
        }
    }

    pub(super) fn set(&mut self, end: End, target: AttachTarget) {
        match end {
            End::Start => self.start = target,
            End::End => self.end = target,
        }
    }
}

/// What the cables push on a collider entity: the force (N) and torque
/// (N·m about the collider's position) averaged over the last step's
/// substeps ([`cable_core::ColliderSet::contact_force`]), written by
/// [`CableWorld::step`](crate::ecs::CableWorld::step) onto collider
/// entities that have it (add it to those whose push you read, for
/// two-way coupling with your rigid bodies). While any entity has one,
/// the pool measures contact forces.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, Collider};
/// use cable_systems::ecs::{CableSpec, CableWorld, ColliderForce, ColliderSpec, hecs::World};
/// use cable_systems::SolverParams;
/// use glam::Vec3;
///
/// let mut world = World::new();
/// let ground = world.spawn((ColliderSpec(Collider::plane(Vec3::Y, 0.0)?), ColliderForce::default()));
/// let mut rope = CableDesc::line(Vec3::new(0.0, 0.05, 0.0), Vec3::new(1.0, 0.05, 0.0), 1.0, 10)?;
/// (rope.attach_start, rope.attach_end) = (false, false);
/// rope.mass_per_length = Some(2.0); // 2 kg: 19.62 N
/// world.spawn((CableSpec::new(rope),));
/// let mut cables = CableWorld::new(SolverParams { damping: 2.0, ..SolverParams::default() })?;
/// for _ in 0..60 {
///     cables.step(&mut world, 1.0 / 60.0)?;
/// }
/// let push = world.get::<&ColliderForce>(ground).expect("spawned").0;
/// assert!((push.force.y + 19.62).abs() < 0.2, "{push:?}");
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ColliderForce(pub cable_core::ContactForce);

/// The particle positions of an entity's cable, written by
/// [`CableWorld::step`](crate::ecs::CableWorld::step) after each frame (add it to the entities whose
/// positions you read; its buffer is reused, so no allocation once warm).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CableParticles {
    /// Positions, metres, from the start to the end of the cable.
    pub positions: Vec<Vec3>,
}

/// A rigid transform: this crate's own, for worlds without one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Position, metres.
    pub translation: Vec3,
    /// Orientation (unit quaternion).
    pub rotation: Quat,
}

impl Default for Transform {
    fn default() -> Self {
        Self {
            translation: Vec3::ZERO,
            rotation: Quat::IDENTITY,
        }
    }
}

impl Transform {
    /// A transform at `translation` with no rotation.
    #[inline]
    #[must_use]
    pub fn from_translation(translation: Vec3) -> Self {
        Self {
            translation,
            rotation: Quat::IDENTITY,
        }
    }

    /// Maps a point of the local frame to the world.
    #[inline]
    #[must_use]
    pub fn transform_point(&self, local: Vec3) -> Vec3 {
        self.translation + self.rotation * local
    }
}

/// Where [`CableWorld`](crate::ecs::CableWorld) reads the transforms of attachment targets.
///
/// [`OwnTransform`] reads this module's [`Transform`] component. An engine
/// with its own transform type implements this trait, or passes a closure
/// `Fn(&World, Entity) -> Option<Transform>`, to [`CableWorld::with_source`](crate::ecs::CableWorld::with_source).
pub trait TransformSource {
    /// The world transform of `entity`, or `None` when it has none (or is
    /// gone): the end attached to it is then freed.
    fn transform(&self, world: &World, entity: Entity) -> Option<Transform>;

    /// Runs `f` with a look-up for the many entities of one frame. An
    /// implementation may hold one borrow for all of them (the default calls
    /// [`TransformSource::transform`] each time).
    fn with_lookup<R>(
        &self,
        world: &World,
        f: impl FnOnce(&dyn Fn(Entity) -> Option<Transform>) -> R,
    ) -> R
    where
        Self: Sized,
    {
        f(&|e| self.transform(world, e))
    }
}

/// Reads the [`Transform`] component.
#[derive(Debug, Clone, Copy, Default)]
pub struct OwnTransform;

/// Prepared `&Transform` queries of [`OwnTransform`], per thread, for the
/// last few worlds it read (keyed by the world's address).
pub(super) type PreparedSlots = [(usize, hecs::PreparedQuery<&'static Transform>); 4];

thread_local! {
    static PREPARED_TRANSFORMS: std::cell::RefCell<PreparedSlots> =
        std::cell::RefCell::new(Default::default());
}

impl TransformSource for OwnTransform {
    fn transform(&self, world: &World, entity: Entity) -> Option<Transform> {
        world.get::<&Transform>(entity).ok().map(|t| *t)
    }

    fn with_lookup<R>(
        &self,
        world: &World,
        f: impl FnOnce(&dyn Fn(Entity) -> Option<Transform>) -> R,
    ) -> R {
        // One borrow of the Transform column for all look-ups of the frame,
        // through a prepared query kept per thread and world (a plain view
        // allocates its table of archetypes every frame). The world's
        // address only picks the slot: the prepared query itself checks it
        // belongs to this world and its archetypes, and prepares anew if not.
        PREPARED_TRANSFORMS.with(|slots| {
            let Ok(mut slots) = slots.try_borrow_mut() else {
                // Re-entered from `f` (a step inside a step): a plain view.
                let view = world.view::<&Transform>();
                return f(&|e| view.get(e).copied());
            };
            let key = std::ptr::from_ref(world) as usize;
            let k = slots.iter().position(|s| s.0 == key).unwrap_or_else(|| {
                // The least recently used slot: the last one.
                slots.len() - 1
            });
            // Most recently used first.
            slots[..=k].rotate_right(1);
            slots[0].0 = key;
            let mut borrow = slots[0].1.query(world);
            let view = borrow.view();
            f(&|e| view.get(e).copied())
        })
    }
}

impl<F> TransformSource for F
where
    F: Fn(&World, Entity) -> Option<Transform>,
{
    fn transform(&self, world: &World, entity: Entity) -> Option<Transform> {
        self(world, entity)
    }
}
