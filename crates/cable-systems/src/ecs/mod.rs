//! hecs integration: cables, their attachments and their targets as entities,
//! while the particles stay in the SoA [`ParticlePool`] where the systems run
//! at full speed.
//!
//! Spawn an entity with a [`CableSpec`] (and optionally [`CableAttachments`]
//! and [`CableParticles`]); [`CableWorld::step`] does the rest each frame.
//! Nothing in a hot loop hashes or looks up an entity: entity look-ups happen
//! once per cable per frame, the substeps touch only the pool.
//!
//! # Steps of [`CableWorld::step`]
//! 1. **lost cables**: a tracked cable removed from the pool behind the
//!    ECS's back (through [`CableWorld::pool_mut`]) loses its dead
//!    [`CableBody`], so the spawn below rebuilds it from the entity's
//!    [`CableSpec`] in this same step, as when the body is removed; the
//!    entity is listed in [`StepReport::lost_cables`];
//! 2. **spawn**: entities with a [`CableSpec`] and no [`CableBody`] get a pool
//!    cable and a [`CableBody`] naming it (a refused spec, including one
//!    whose compliance overflows at the stepper's substep, gets a
//!    [`CableRejected`] with the reason instead, and is not retried);
//! 3. **despawn**: pool cables whose entity is gone, or lost its
//!    [`CableSpec`] or [`CableBody`], are freed;
//! 4. **colliders**: entities with a [`ColliderSpec`] get a pool collider
//!    (and a [`ColliderBody`]), despawned ones lose it, one removed from
//!    the pool behind the ECS's back is added again
//!    ([`StepReport::lost_colliders`]), and each collider is posed from its
//!    entity's transform (a refused transform keeps the last good pose and
//!    is listed in [`StepReport::bad_poses`]);
//! 5. **attachments**: each end's target is resolved (a world point, or
//!    another entity's transform plus a local offset); a despawned target
//!    frees the end, which keeps its velocity; a refused target (not
//!    finite, beyond ±1e6 m, or a rotation that is not a unit quaternion)
//!    keeps the end at its last good target, as colliders keep their last
//!    good pose, and is listed in [`StepReport::bad_targets`]; a target
//!    that jumped farther than the cable's
//!    [`cable_core::CableParams::teleport_distance`], or whose entity
//!    turned by more than its [`cable_core::CableParams::teleport_rotation`],
//!    since the last frame teleports the cable with it
//!    ([`ParticlePool::teleport_attachment`]: moved rigidly and turned
//!    about the end, or laid out anew, as its
//!    [`cable_core::CableParams::teleport_mode`] says; at most one teleport
//!    per cable and frame, so two ends on one body move it once);
//! 6. **controls**: a [`CableWinch`] added or changed since the last step
//!    sets the cable's winch ([`ParticlePool::reel_to`]; a refused one is
//!    listed in [`StepReport::bad_winches`]), a removed one stops it; a
//!    [`CableHidden`] marker hides the cable ([`ParticlePool::set_visible`]:
//!    skipped while hidden if its parameters say
//!    [`cable_core::CableParams::skip_when_hidden`]);
//! 7. **step**: the [`Stepper`] runs this frame's substeps; moving targets are
//!    interpolated linearly across them, so a fast hand does not yank the
//!    cable; segments that break are listed in [`StepReport::torn`];
//! 8. **write-back**: entities with a [`CableParticles`] get their particle
//!    positions (copied into the component's buffer, no allocation once warm).
//!
//! A [`CableBody`] that names no cable of its entity's in this world (one
//! of another pool, copied from another world; a removed one; another
//! entity's) is replaced during steps 5 and 6: the entity gets a cable
//! built from its [`CableSpec`], as in step 2, and is listed in
//! [`StepReport::bad_bodies`] with why ([`BadBody`]). A winch that stops
//! because paying out needs more particles than the pool's budget is
//! listed in [`StepReport::stalled_winches`].
//!
//! What a step refused or repaired is in [`CableWorld::report`] until the
//! next step: nothing there means all went well.
//!
//! # Save and restore (feature `serde`)
//! `CableWorld::save_state` writes what the layer owns — the pool, the
//! stepper and each cable's end state — and `CableWorld::restore_state`
//! reads it back. Entities are the game's: it saves them itself, with
//! their [`CableBody`] and [`ColliderBody`] (which serialise), and restores
//! the layer after loading them; `CableWorld::restore` links each entity
//! to the cable or collider its body names (`RestoreReport` lists what
//! it could not link). The steps after that are bitwise those of the
//! saved world.
//!
//! # Example
//! ```
//! use cable_core::CableDesc;
//! use cable_systems::ecs::{AttachTarget, CableAttachments, CableParticles, CableSpec, CableWorld, Transform};
//! use cable_systems::SolverParams;
//! use glam::Vec3;
//!
//! let mut world = hecs::World::new();
//! let hand = world.spawn((Transform::from_translation(Vec3::new(0.0, 2.0, 0.0)),));
//! let desc = CableDesc::line(Vec3::new(0.0, 2.0, 0.0), Vec3::new(2.0, 2.0, 0.0), 2.0, 8)?;
//! let rope = world.spawn((
//!     CableSpec::new(desc),
//!     CableAttachments {
//!         start: AttachTarget::Entity { entity: hand, offset: Vec3::ZERO },
//!         end: AttachTarget::Free,
//!     },
//!     CableParticles::default(),
//! ));
//! let mut cables = CableWorld::new(SolverParams::default())?;
//! for frame in 0..30 {
//!     world.get::<&mut Transform>(hand).unwrap().translation.x = frame as f32 * 0.05;
//!     cables.step(&mut world, 1.0 / 60.0)?;
//! }
//! let particles = world.get::<&CableParticles>(rope).unwrap();
//! assert_eq!(particles.positions[0], Vec3::new(29.0 * 0.05, 2.0, 0.0));
//! # Ok::<(), cable_core::CableError>(())
//! ```

/// The hecs this module is built on, so a game uses the same version
/// without matching it by hand (`cable_systems::ecs::hecs::World`).
pub use hecs;

use cable_core::error::{check_rotation, check_vec3};
use cable_core::{CableDesc, CableError, CableHandle, Collider, ColliderHandle, End, ParticlePool};
use glam::{Quat, Vec3};
use hecs::{Entity, World};

use crate::params::SolverParams;
use crate::step::Stepper;
use crate::trace::span;

// Save and restore of the layer's own state: a child module, so it sees
// the private fields.
#[cfg(feature = "serde")]
mod save;
#[cfg(feature = "serde")]
pub use save::{CableWorldState, RestoreReport};

/// Describes the cable of an entity. Spawning an entity with it creates a
/// pool cable at the next [`CableWorld::step`]; changing it afterwards has
/// no effect (despawn and respawn, or use the pool through
/// [`CableWorld::pool_mut`]).
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

/// The pool handle of an entity's cable, added by [`CableWorld::step`].
///
/// The cable lives while its entity has both this and its [`CableSpec`]:
/// despawning the entity or removing the spec frees it; removing only this
/// component resets the cable (a new one is built from the spec). Removing
/// the cable from the pool ([`CableWorld::pool_mut`]) does the same: the
/// next step replaces this body by one naming a cable rebuilt from the
/// spec, and reports it ([`StepReport::lost_cables`]); to be rid of the
/// cable, despawn the entity or remove its spec.
///
/// A body naming no cable of its entity's in this world (copied from
/// another world or another entity) is replaced at the next step, and
/// reported ([`StepReport::bad_bodies`]).
///
/// With the `serde` feature it serialises (its handle), so a game saves it
/// with its entities and `CableWorld::restore` links the entity to its
/// restored cable again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CableBody {
    /// The cable in [`CableWorld::pool`].
    pub handle: CableHandle,
}

/// A winch on an entity's cable: reels toward `target_length` metres at
/// `speed` m/s ([`ParticlePool::reel_to`]). Applied when added or changed;
/// removing it stops the winch where the cable is. A grappling hook is a
/// rope with its start on the player and a `CableWinch` reeling it in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CableWinch {
    /// Rest length to reel to, metres, in (0, 1e7].
    pub target_length: f32,
    /// Reeling speed, m/s, in (0, 1e4].
    pub speed: f32,
}

/// Marks a cable entity the engine does not show this frame (its own
/// culling decides): the pool is told ([`ParticlePool::set_visible`]), and a
/// cable whose parameters set [`cable_core::CableParams::skip_when_hidden`]
/// is not simulated while marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CableHidden;

/// Added instead of [`CableBody`] when the pool refused a [`CableSpec`].
#[derive(Debug, Clone, PartialEq)]
pub struct CableRejected(pub CableError);

/// A collider entity: the shape (sphere, capsule, plane, box) that cables
/// rest on and wrap around. When the entity has a transform (read through
/// the world's [`TransformSource`]), the transform replaces the collider's
/// pose every frame (position and rotation), so moving the entity moves the
/// collider kinematically; without one the collider keeps its own pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColliderSpec(pub Collider);

/// The pool handle of a collider entity, added by [`CableWorld::step`].
/// A collider removed from the pool behind the ECS's back is added again
/// from the [`ColliderSpec`] at the next step, with a new body
/// ([`StepReport::lost_colliders`]).
///
/// Serialises with the `serde` feature, as [`CableBody`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ColliderBody {
    /// The collider in [`CableWorld::pool`]'s collider set.
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
    /// ([`StepReport::bad_targets`]).
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
    fn get(&self, end: End) -> AttachTarget {
        match end {
            End::Start => self.start,
            End::End => self.end,
        }
    }

    fn set(&mut self, end: End, target: AttachTarget) {
        match end {
            End::Start => self.start = target,
            End::End => self.end = target,
        }
    }
}

/// The particle positions of an entity's cable, written by
/// [`CableWorld::step`] after each frame (add it to the entities whose
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

/// Where [`CableWorld`] reads the transforms of attachment targets.
///
/// [`OwnTransform`] reads this module's [`Transform`] component. An engine
/// with its own transform type implements this trait, or passes a closure
/// `Fn(&World, Entity) -> Option<Transform>`, to [`CableWorld::with_source`].
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
type PreparedSlots = [(usize, hecs::PreparedQuery<&'static Transform>); 4];

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

/// An attachment target [`CableWorld::step`] refused: the end kept its
/// last good target (or, with none yet, stayed as it was).
#[derive(Debug, Clone, PartialEq)]
pub struct BadTarget {
    /// The cable entity.
    pub entity: Entity,
    /// Which end.
    pub end: End,
    /// The entity whose transform was followed, for an
    /// [`AttachTarget::Entity`].
    pub target: Option<Entity>,
    /// Why: the field (`point`, `transform.translation`,
    /// `transform.rotation`, `offset` or `target`) and the value.
    pub error: CableError,
}

/// Why [`CableWorld::step`] refused an entity's [`CableBody`]
/// ([`StepReport::bad_bodies`]): it names no cable this world keeps for
/// that entity. The step removed the body and built the entity a cable
/// from its [`CableSpec`] instead, as for an entity without a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadBody {
    /// The handle was issued by another pool (a body copied from another
    /// [`CableWorld`], or from a save restored into another world).
    #[error(
        "CableBody names cable {handle:?} of pool {pool}, not of this world's pool {ours}: a body belongs to the CableWorld that built it"
    )]
    ForeignPool {
        /// The handle the body named.
        handle: CableHandle,
        /// The pool that issued it ([`CableHandle::pool_id`]).
        pool: u32,
        /// This world's pool ([`ParticlePool::id`]).
        ours: u32,
    },
    /// The handle is this pool's, but no entity's cable here: removed, or
    /// added to the pool directly ([`CableWorld::pool_mut`]).
    #[error(
        "CableBody names cable {handle:?}, which is no entity's cable in this world (removed, or added to the pool directly)"
    )]
    NotTracked {
        /// The handle the body named.
        handle: CableHandle,
    },
    /// The handle names another entity's cable (a body copied from one
    /// entity to another).
    #[error("CableBody names cable {handle:?}, which is entity {owner:?}'s cable")]
    Claimed {
        /// The handle the body named.
        handle: CableHandle,
        /// The entity whose cable it is.
        owner: Entity,
    },
}

/// What the last [`CableWorld::step`] refused or repaired
/// ([`CableWorld::report`]); empty when all went well. Its buffers are
/// reused from step to step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepReport {
    /// Ends whose target was refused this step.
    pub bad_targets: Vec<BadTarget>,
    /// Collider entities whose transform was refused this step: the
    /// collider kept its last good pose.
    pub bad_poses: Vec<(Entity, CableError)>,
    /// Cable entities whose pool cable had been removed behind the ECS's
    /// back ([`CableWorld::pool_mut`]): rebuilt from their [`CableSpec`]
    /// this step (or given a [`CableRejected`] if the pool now refuses it).
    pub lost_cables: Vec<Entity>,
    /// Collider entities whose pool collider had been removed behind the
    /// ECS's back: added again from their [`ColliderSpec`] this step.
    pub lost_colliders: Vec<Entity>,
    /// Cable entities whose [`CableWinch`] was refused this step (the
    /// winch kept its previous setting), with the reason.
    pub bad_winches: Vec<(Entity, CableError)>,
    /// Cable entities whose winch stopped this step because paying out
    /// needed more particles than the pool's budget: each with its
    /// [`CableError::WinchBudget`] ([`Stepper::stalled_winches`]). The
    /// winch stays stopped until its [`CableWinch`] changes.
    pub stalled_winches: Vec<(Entity, CableError)>,
    /// Cable entities whose [`CableBody`] named no cable of theirs in this
    /// world, with why: the body was replaced by one naming a cable built
    /// from the entity's [`CableSpec`] this step (or by a
    /// [`CableRejected`] if the pool refuses the spec).
    pub bad_bodies: Vec<(Entity, BadBody)>,
    /// Segments that broke this step
    /// ([`cable_core::CableParams::break_tension`]): the cable entity and
    /// the segment index, in the order they broke. Not a failure: the
    /// cable lives on in pieces (see [`Stepper::torn`]).
    pub torn: Vec<(Entity, usize)>,
}

impl StepReport {
    /// True when the step refused and repaired nothing (segments that tore
    /// are news, not failures: see [`StepReport::torn`]).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bad_targets.is_empty()
            && self.bad_poses.is_empty()
            && self.lost_cables.is_empty()
            && self.lost_colliders.is_empty()
            && self.bad_winches.is_empty()
            && self.stalled_winches.is_empty()
            && self.bad_bodies.is_empty()
    }

    fn clear(&mut self) {
        self.bad_targets.clear();
        self.bad_poses.clear();
        self.lost_cables.clear();
        self.lost_colliders.clear();
        self.bad_winches.clear();
        self.stalled_winches.clear();
        self.bad_bodies.clear();
        self.torn.clear();
    }
}

/// The world position of an end attached to an entity with transform `tf`
/// at local `offset`, and the entity's rotation (normalised), when
/// [`entity_target`] accepts them: its checks inline, without an error to
/// build (this runs for every followed end every frame).
#[inline]
fn entity_target_fast(tf: &Transform, offset: Vec3) -> Option<(Vec3, Quat)> {
    // `check_rotation`: finite, length within 1e-3 of 1, then normalised.
    let len = tf.rotation.length();
    if !(in_range(tf.translation) && tf.rotation.is_finite() && (len - 1.0).abs() <= 1.0e-3) {
        return None;
    }
    let rotation = tf.rotation / len;
    let target = tf.translation + rotation * offset;
    (in_range(offset) && in_range(target)).then_some((target, rotation))
}

/// The world position of an end attached to an entity with transform `tf`
/// at local `offset`, and the entity's rotation (normalised), or why it is
/// refused.
#[cold]
#[inline(never)]
fn entity_target(tf: &Transform, offset: Vec3) -> Result<(Vec3, Quat), CableError> {
    check_vec3("transform.translation", tf.translation)?;
    let rotation = check_rotation("transform.rotation", tf.rotation)?;
    check_vec3("offset", offset)?;
    let target = check_vec3("target", tf.translation + rotation * offset)?;
    Ok((target, rotation))
}

/// Every component finite and within ±[`cable_core::MAX_COORDINATE`]:
/// what [`check_vec3`] accepts.
#[inline]
fn in_range(v: Vec3) -> bool {
    // NaN compares false, an infinity is out of range; `&`, not `&&`:
    // no branch per component.
    let m = cable_core::MAX_COORDINATE;
    (v.x.abs() <= m) & (v.y.abs() <= m) & (v.z.abs() <= m)
}

/// Per-end state carried from frame to frame.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
struct EndState {
    /// The target at the end of the previous frame (None: not attached).
    target: Option<Vec3>,
    /// Displacement of the target over the last substep, metres: the
    /// velocity × h an end keeps when it is detached.
    last_move: Vec3,
    /// Rotation of the followed entity at the end of the previous frame
    /// (identity for a point target): a turn beyond the cable's
    /// [`cable_core::CableParams::teleport_rotation`] teleports it.
    rotation: Quat,
    /// The entity followed at the end of the previous frame: a turn is
    /// measured only while the end follows the same entity (switching
    /// targets is no turn). Not saved (entities are the game's): a restore
    /// takes it from the entity's [`CableAttachments`].
    #[cfg_attr(feature = "serde", serde(skip))]
    followed: Option<Entity>,
}

#[derive(Debug, Clone)]
struct Tracked {
    entity: Entity,
    handle: CableHandle,
    ends: [EndState; 2],
    /// The [`CableWinch`] last applied.
    winch: Option<CableWinch>,
    /// The cable has a teleport threshold
    /// ([`cable_core::CableParams::teleport_distance`] or
    /// [`cable_core::CableParams::teleport_rotation`]), as of
    /// [`CableWorld::teleports_at`]: only then can a moving end teleport it.
    teleports: bool,
    /// Per end: the pool's attachment of this end was `None` when the layer
    /// last set or checked it. Trusted only while nothing but the layer
    /// changed the pool ([`CableWorld::synced_revision`]): a free end then
    /// needs no look-up for a pin to release.
    released: [bool; 2],
}

impl Tracked {
    fn new(
        entity: Entity,
        handle: CableHandle,
        ends: [EndState; 2],
        winch: Option<CableWinch>,
    ) -> Self {
        Self {
            entity,
            handle,
            ends,
            winch,
            teleports: false,
            released: [false; 2],
        }
    }
}

/// A moving end this frame: interpolated across the substeps.
#[derive(Debug, Clone, Copy)]
struct Motion {
    /// Index into `tracked`.
    tracked: usize,
    handle: CableHandle,
    end: End,
    from: Vec3,
    to: Vec3,
    /// The end's `last_move` before this frame: the end state holds
    /// `to - from` (the last move of a one-substep frame) while the step
    /// runs, and gets this back if no substep runs.
    last_move: Vec3,
}

/// The cable simulation of a hecs [`World`]: owns the [`ParticlePool`] and
/// the [`Stepper`], and syncs entities into them. See the [module
/// docs](self) for the order of a step.
#[derive(Debug)]
pub struct CableWorld<S = OwnTransform> {
    pool: ParticlePool,
    stepper: Stepper,
    source: S,
    tracked: Vec<Tracked>,
    /// Per pool cable slot (`CableHandle::index`): its index in `tracked`.
    by_slot: Vec<u32>,
    /// Per tracked cable: its entity was found this frame.
    seen: Vec<bool>,
    colliders: Vec<(Entity, ColliderHandle)>,
    new_colliders: Vec<(Entity, ColliderHandle)>,
    spawned: Vec<(Entity, Result<CableHandle, CableError>)>,
    motions: Vec<Motion>,
    freed: Vec<(Entity, End)>,
    /// Scratch: tracked cables or colliders found removed from the pool.
    lost: Vec<Entity>,
    /// Scratch: cable entities whose [`CableBody`] names no cable of
    /// theirs, with the handle it names.
    strays: Vec<(Entity, CableHandle)>,
    report: StepReport,
    /// [`ParticlePool::revision`] at the end of the last step (`None`
    /// after an error or a restore). While the pool still has it, nothing
    /// changed the pool behind the layer's back: no tracked cable was
    /// removed and no free end attached, so a step skips those checks.
    synced_revision: Option<u64>,
    /// [`ParticlePool::params_revision`] at which the `teleports` flags of
    /// `tracked` were read from the pool.
    teleports_at: Option<u64>,
}

impl CableWorld<OwnTransform> {
    /// A cable world reading targets' [`Transform`] components.
    ///
    /// # Errors
    /// A solver parameter out of range.
    pub fn new(params: SolverParams) -> Result<Self, CableError> {
        Self::with_source(params, OwnTransform)
    }
}

impl<S: TransformSource> CableWorld<S> {
    /// A cable world reading targets' transforms through `source`.
    ///
    /// # Errors
    /// A solver parameter out of range.
    pub fn with_source(params: SolverParams, source: S) -> Result<Self, CableError> {
        Ok(Self {
            pool: ParticlePool::new(),
            stepper: Stepper::new(params)?,
            source,
            tracked: Vec::new(),
            by_slot: Vec::new(),
            seen: Vec::new(),
            colliders: Vec::new(),
            new_colliders: Vec::new(),
            spawned: Vec::new(),
            motions: Vec::new(),
            freed: Vec::new(),
            lost: Vec::new(),
            strays: Vec::new(),
            report: StepReport::default(),
            synced_revision: None,
            teleports_at: None,
        })
    }

    /// The particle pool (read the particles of a [`CableBody`] here without copying).
    #[must_use]
    pub fn pool(&self) -> &ParticlePool {
        &self.pool
    }

    /// The particle pool, mutably (for pool-level edits such as teleports).
    ///
    /// Removing a tracked cable or collider here does not end it: the next
    /// step rebuilds it from its entity's spec and reports it
    /// ([`StepReport::lost_cables`], [`StepReport::lost_colliders`]);
    /// despawn the entity or remove its spec instead.
    pub fn pool_mut(&mut self) -> &mut ParticlePool {
        &mut self.pool
    }

    /// What the last [`CableWorld::step`] refused or repaired: bad
    /// attachment targets and collider transforms (kept at their last good
    /// value), and cables or colliders removed from the pool behind the
    /// ECS's back (rebuilt). Empty when all went well.
    ///
    /// # Example
    /// ```
    /// use cable_core::CableDesc;
    /// use cable_systems::ecs::{AttachTarget, CableAttachments, CableSpec, CableWorld};
    /// use cable_systems::SolverParams;
    /// use glam::Vec3;
    ///
    /// let mut world = hecs::World::new();
    /// let desc = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?;
    /// let start = AttachTarget::Point(Vec3::new(f32::NAN, 0.0, 0.0));
    /// let rope = world.spawn((
    ///     CableSpec::new(desc),
    ///     CableAttachments { start, end: AttachTarget::Free },
    /// ));
    /// let mut cables = CableWorld::new(SolverParams::default())?;
    /// cables.step(&mut world, 1.0 / 60.0)?;
    /// let bad = &cables.report().bad_targets[0];
    /// assert_eq!(bad.entity, rope);
    /// assert!(bad.error.to_string().starts_with("point:"));
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[must_use]
    pub fn report(&self) -> &StepReport {
        &self.report
    }

    /// The stepper (parameters, simulated time).
    #[must_use]
    pub fn stepper(&self) -> &Stepper {
        &self.stepper
    }

    /// Advances the world by a frame of `dt` seconds; returns the substeps
    /// run. What it refused or repaired on the way is in
    /// [`CableWorld::report`].
    ///
    /// # Errors
    /// `dt` negative or not finite, or a cable refused by
    /// [`Stepper::validate_pool`] (one changed through
    /// [`CableWorld::pool_mut`]: specs are checked when spawned); no
    /// substep runs. A winch stopped at the particle budget is no error
    /// here: the frame ran, and it is in [`StepReport::stalled_winches`].
    pub fn step(&mut self, world: &mut World, dt: f32) -> Result<u32, CableError> {
        span!("cable.ecs.step");
        self.report.clear();
        self.sync(world);
        let before = self.stepper.substeps_run();
        let motions = &self.motions;
        let advanced = if motions.is_empty() {
            // Nothing to interpolate: the layout runs the frame in one batch.
            self.stepper.advance(&mut self.pool, dt)
        } else {
            self.stepper.advance_with(&mut self.pool, dt, |pool, k, n| {
                let t = (k + 1) as f32 / n as f32;
                // The handles are live (checked this frame) and the targets
                // finite (resolved from finite transforms), so none is
                // refused; one batch, as `set_attachment` for each.
                let _ = pool.set_attachment_targets(
                    motions
                        .iter()
                        .map(|m| (m.handle, m.end, m.from.lerp(m.to, t))),
                );
            })
        };
        let n = match advanced {
            Ok(n) => n,
            // The frame ran in full; the winches that stopped are reported
            // below. At most `max_substeps` substeps: fits a u32.
            Err(CableError::WinchBudget { .. }) => {
                u32::try_from(self.stepper.substeps_run() - before).unwrap_or(u32::MAX)
            }
            Err(e) => {
                // No substep ran: the moving ends keep their last move.
                for m in &self.motions {
                    self.tracked[m.tracked].ends[m.end.slot()].last_move = m.last_move;
                }
                return Err(e);
            }
        };
        // The moving ends hold `to - from`, their move over one substep
        // (exact: x / 1 is x); only other substep counts revisit them.
        if n != 1 {
            for m in &self.motions {
                let state = &mut self.tracked[m.tracked].ends[m.end.slot()];
                if n > 0 {
                    state.last_move = (m.to - m.from) / n as f32;
                } else {
                    // No substep ran: the end is still at `from`; move it next frame.
                    state.last_move = m.last_move;
                    state.target = Some(m.from);
                }
            }
        }
        for &(handle, segment) in self.stepper.torn() {
            if let Some(t) = self.tracked_of(handle) {
                self.report.torn.push((t.entity, segment));
            }
        }
        for e in self.stepper.stalled_winches() {
            if let CableError::WinchBudget { cable, .. } = *e {
                if let Some(t) = self.tracked_of(cable) {
                    self.report.stalled_winches.push((t.entity, e.clone()));
                }
            }
        }
        self.write_back(world);
        self.synced_revision = Some(self.pool.revision());
        Ok(n)
    }

    /// Replaces the solver parameters (gravity, substep, iterations,
    /// damping, friction…) at run time, after validating them; the cables
    /// and the accumulator are kept. The next step checks every cable
    /// against a changed substep.
    ///
    /// # Errors
    /// A parameter out of range (the old parameters stay).
    ///
    /// # Example
    /// ```
    /// use cable_systems::ecs::CableWorld;
    /// use cable_systems::SolverParams;
    /// use glam::Vec3;
    ///
    /// let mut cables = CableWorld::new(SolverParams::default())?;
    /// let moon = SolverParams { gravity: Vec3::new(0.0, -1.62, 0.0), ..*cables.stepper().params() };
    /// cables.set_params(moon)?;
    /// assert_eq!(cables.stepper().params().gravity.y, -1.62);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), CableError> {
        self.stepper.set_params(params)
    }

    /// The tracked cable of a live pool handle.
    fn tracked_of(&self, handle: CableHandle) -> Option<&Tracked> {
        let ti = *self.by_slot.get(handle.index() as usize)? as usize;
        self.tracked.get(ti).filter(|t| t.handle == handle)
    }

    /// The phases before the step: entities to pool.
    fn sync(&mut self, world: &mut World) {
        span!("cable.ecs.sync");
        // Nothing changed the pool since the last step ended: every tracked
        // cable is still in it, and no free end was attached behind our back.
        let untouched = self.synced_revision.take() == Some(self.pool.revision());
        if !untouched {
            self.drop_lost_cables(world);
        }
        self.spawn_cables(world);
        self.read_teleport_flags();
        self.sync_colliders(world);
        self.sync_cables(world, untouched);
    }

    /// Reads which tracked cables have a teleport threshold, when cable
    /// parameters changed since the last read (O(1) otherwise).
    fn read_teleport_flags(&mut self) {
        let revision = self.pool.params_revision();
        if self.teleports_at == Some(revision) {
            return;
        }
        for t in &mut self.tracked {
            t.teleports = self
                .pool
                .params(t.handle)
                .is_ok_and(|p| p.teleport_distance.is_some() || p.teleport_rotation.is_some());
        }
        self.teleports_at = Some(revision);
    }

    fn spawn_cables(&mut self, world: &mut World) {
        span!("cable.ecs.spawn");
        self.spawned.clear();
        let substep = self.stepper.params().substep;
        for (entity, spec) in world
            .query::<(Entity, &CableSpec)>()
            .without::<hecs::Or<&CableBody, &CableRejected>>()
            .iter()
        {
            let result = self.pool.add_cable(&spec.desc).and_then(|h| {
                for &(i, kg) in &spec.masses {
                    let check = if kg > 0.0 && kg.is_finite() {
                        self.pool.set_inv_mass(h, i, 1.0 / kg)
                    } else {
                        Err(CableError::OutOfRange {
                            field: "mass",
                            expected: "must be greater than 0",
                            value: f64::from(kg),
                        })
                    };
                    if let Err(e) = check {
                        // The cable was just added, so its handle is live.
                        let _ = self.pool.remove_cable(h);
                        return Err(e);
                    }
                }
                // Refused here rather than by every later step of the world.
                if let Err(e) = self.pool.validate_cable_for_substep(h, substep) {
                    let _ = self.pool.remove_cable(h);
                    return Err(e);
                }
                Ok(h)
            });
            self.spawned.push((entity, result));
        }
        let mut added = false;
        for (entity, result) in self.spawned.drain(..) {
            match result {
                Ok(handle) => {
                    // The entity was yielded by the query above and nothing despawned it since.
                    let _ = world.insert_one(entity, CableBody { handle });
                    self.tracked
                        .push(Tracked::new(entity, handle, Default::default(), None));
                    // Read by `read_teleport_flags` (adding the cable changed the
                    // parameters revision).
                    self.teleports_at = None;
                    added = true;
                }
                Err(e) => {
                    let _ = world.insert_one(entity, CableRejected(e));
                }
            }
        }
        if added {
            self.reindex();
        }
    }

    /// Forgets tracked cables that were removed from the pool behind the
    /// ECS's back and takes their dead [`CableBody`] away, so that
    /// `spawn_cables` rebuilds them from their spec. One
    /// O(1) slot check per cable; entity look-ups only for lost ones. Only
    /// called when the pool changed since the last step.
    fn drop_lost_cables(&mut self, world: &mut World) {
        let pool = &self.pool;
        if self.tracked.iter().all(|t| pool.contains(t.handle)) {
            return;
        }
        let lost = &mut self.spawned;
        lost.clear();
        self.tracked.retain(|t| {
            let keep = pool.contains(t.handle);
            if !keep {
                lost.push((t.entity, Ok(t.handle)));
            }
            keep
        });
        for (entity, handle) in self.spawned.drain(..) {
            let dead = world
                .get::<&CableBody>(entity)
                .is_ok_and(|b| Ok(b.handle) == handle);
            if dead {
                let _ = world.remove_one::<CableBody>(entity);
                if world.satisfies::<&CableSpec>(entity) {
                    self.report.lost_cables.push(entity);
                }
            }
        }
        self.reindex();
    }

    /// Rebuilds `by_slot` after `tracked` changed.
    fn reindex(&mut self) {
        self.by_slot.clear();
        for (ti, t) in self.tracked.iter().enumerate() {
            let slot = t.handle.index() as usize;
            if self.by_slot.len() <= slot {
                self.by_slot.resize(slot + 1, u32::MAX);
            }
            self.by_slot[slot] = ti as u32;
        }
    }

    /// Frees the pool cables whose entity is gone or lost its
    /// [`CableSpec`] or [`CableBody`]. Called only when `sync_cables` found
    /// fewer live entities than tracked cables.
    fn free_despawned(&mut self, world: &mut World) {
        // One archetype-linear pass marks the cables whose entity still has
        // its body and spec; no per-entity look-up unless something is gone.
        self.seen.clear();
        self.seen.resize(self.tracked.len(), false);
        let mut live = 0;
        for (entity, body) in world
            .query_mut::<(Entity, &CableBody)>()
            .with::<&CableSpec>()
        {
            let ti = *self
                .by_slot
                .get(body.handle.index() as usize)
                .unwrap_or(&u32::MAX) as usize;
            if ti < self.tracked.len()
                && self.tracked[ti].handle == body.handle
                && self.tracked[ti].entity == entity
                && !self.seen[ti]
            {
                self.seen[ti] = true;
                live += 1;
            }
        }
        if live == self.tracked.len() {
            return;
        }
        let pool = &mut self.pool;
        let orphans = &mut self.spawned;
        orphans.clear();
        let mut k = 0;
        let seen = &self.seen;
        self.tracked.retain(|t| {
            let keep = seen[k];
            k += 1;
            if !keep {
                // Tracked handles are live until this removal.
                let _ = pool.remove_cable(t.handle);
                orphans.push((t.entity, Ok(t.handle)));
            }
            keep
        });
        for (entity, handle) in orphans.drain(..) {
            // The spec was removed but the entity lives: drop its stale body.
            let stale = world
                .get::<&CableBody>(entity)
                .is_ok_and(|b| Ok(b.handle) == handle);
            if stale {
                let _ = world.remove_one::<CableBody>(entity);
            }
        }
        self.reindex();
    }

    /// Removes the colliders of despawned collider entities (or ones that
    /// lost their [`ColliderSpec`]), forgets those removed from the pool
    /// behind the ECS's back, adds colliders for new (and lost) collider
    /// entities, and poses every collider from its entity's transform.
    fn sync_colliders(&mut self, world: &mut World) {
        span!("cable.ecs.colliders");
        let Self {
            pool,
            colliders,
            new_colliders,
            lost,
            report,
            source,
            ..
        } = self;
        let set = pool.colliders_mut();
        lost.clear();
        colliders.retain(|&(entity, handle)| {
            let alive = world
                .get::<&ColliderBody>(entity)
                .is_ok_and(|b| b.handle == handle)
                && world.satisfies::<&ColliderSpec>(entity);
            if !alive {
                // Tracked collider handles are live until this removal (or
                // were removed behind our back: then this is a no-op).
                let _ = set.remove(handle);
                false
            } else if !set.contains(handle) {
                lost.push(entity);
                false
            } else {
                true
            }
        });
        for &entity in lost.iter() {
            // A dead body: the query below adds the collider again.
            let _ = world.remove_one::<ColliderBody>(entity);
            report.lost_colliders.push(entity);
        }
        new_colliders.clear();
        for (entity, spec) in world
            .query::<(Entity, &ColliderSpec)>()
            .without::<&ColliderBody>()
            .iter()
        {
            new_colliders.push((entity, set.add(spec.0)));
        }
        for &(entity, handle) in new_colliders.iter() {
            // The entity was yielded by the query above and nothing despawned it since.
            let _ = world.insert_one(entity, ColliderBody { handle });
        }
        colliders.append(new_colliders);
        for &(entity, handle) in colliders.iter() {
            if let Some(t) = source.transform(world, entity) {
                // A non-finite or non-unit transform keeps the previous pose.
                if let Err(e) = set.set_pose(handle, t.translation, t.rotation) {
                    report.bad_poses.push((entity, e));
                }
            }
        }
    }

    /// Steps 3, 5 and 6 in one archetype-linear pass over the cable
    /// entities: each tracked cable whose entity still has its
    /// [`CableSpec`] and [`CableBody`] is counted live, its ends are
    /// resolved ([`CableAttachments`]) and its controls applied
    /// ([`CableWinch`], [`CableHidden`]); then, only if some tracked cable
    /// was not met, the cables of despawned entities are freed. Each
    /// cable's pool edits are its own, so doing them cable by cable gives
    /// the pool of the phase-by-phase order.
    fn sync_cables(&mut self, world: &mut World, untouched: bool) {
        span!("cable.ecs.cables");
        self.motions.clear();
        self.freed.clear();
        let Self {
            pool,
            source,
            tracked,
            by_slot,
            motions,
            freed,
            report,
            strays,
            ..
        } = self;
        strays.clear();
        let shared: &World = world;
        let live = source.with_lookup(shared, |lookup| {
            let mut ends = Ends {
                pool,
                lookup,
                motions,
                freed,
                report,
                untouched,
            };
            let mut live = 0;
            let mut query = shared
                .query::<(
                    Entity,
                    &CableBody,
                    Option<&CableAttachments>,
                    Option<&CableWinch>,
                    Option<&CableHidden>,
                )>()
                .with::<&CableSpec>();
            for (entity, body, att, winch, hidden) in query.iter() {
                let ti = *by_slot
                    .get(body.handle.index() as usize)
                    .unwrap_or(&u32::MAX) as usize;
                let Some(t) = tracked
                    .get_mut(ti)
                    .filter(|t| t.handle == body.handle && t.entity == entity)
                else {
                    // Names no cable of this entity's: replaced below.
                    strays.push((entity, body.handle));
                    continue;
                };
                live += 1;
                ends.control(t, ti, entity, att, winch, hidden);
            }
            live
        });
        if live != self.tracked.len() {
            self.free_despawned(world);
            // `tracked` shrank: the moving ends' indices follow their cables.
            for m in &mut self.motions {
                m.tracked = self.by_slot[m.handle.index() as usize] as usize;
            }
        }
        if !self.strays.is_empty() {
            self.replace_stray_bodies(world, untouched);
        }
        // A despawned target frees the end for good: record that in the component.
        for &(entity, end) in &self.freed {
            if let Ok(mut att) = world.get::<&mut CableAttachments>(entity) {
                att.set(end, AttachTarget::Free);
            }
        }
    }

    /// Replaces the [`CableBody`] of each entity in `strays` (one naming no
    /// cable of that entity's: another pool's, a removed one, another
    /// entity's) by a cable built from its [`CableSpec`], as an entity
    /// without a body gets, reported in [`StepReport::bad_bodies`]; the new
    /// cables' ends and controls are then applied as `sync_cables` applies
    /// every other's. Only called when `sync_cables` met such a body.
    #[cold]
    fn replace_stray_bodies(&mut self, world: &mut World, untouched: bool) {
        let ours = self.pool.id();
        for k in 0..self.strays.len() {
            let (entity, handle) = self.strays[k];
            let why = if handle.pool_id() != ours {
                BadBody::ForeignPool {
                    handle,
                    pool: handle.pool_id(),
                    ours,
                }
            } else if let Some(t) = self.tracked_of(handle) {
                BadBody::Claimed {
                    handle,
                    owner: t.entity,
                }
            } else {
                BadBody::NotTracked { handle }
            };
            // The entity was yielded by the query of `sync_cables`, and
            // nothing despawned it since.
            let _ = world.remove_one::<CableBody>(entity);
            self.report.bad_bodies.push((entity, why));
        }
        let old = self.tracked.len();
        self.spawn_cables(world);
        self.read_teleport_flags();
        let Self {
            pool,
            source,
            tracked,
            motions,
            freed,
            report,
            ..
        } = self;
        let shared: &World = world;
        source.with_lookup(shared, |lookup| {
            let mut ends = Ends {
                pool,
                lookup,
                motions,
                freed,
                report,
                untouched,
            };
            for (ti, t) in tracked.iter_mut().enumerate().skip(old) {
                let entity = t.entity;
                let mut q = shared.query_one::<(
                    Option<&CableAttachments>,
                    Option<&CableWinch>,
                    Option<&CableHidden>,
                )>(entity);
                if let Ok((att, winch, hidden)) = q.get() {
                    ends.control(t, ti, entity, att, winch, hidden);
                }
            }
        });
    }

    fn write_back(&mut self, world: &mut World) {
        span!("cable.ecs.write_back");
        // Each cable read where it lives (`copy_positions`): a layout that
        // keeps its own rows is not made to write every cable back.
        for (body, out) in world.query_mut::<(&CableBody, &mut CableParticles)>() {
            // A tracked body's handle is live; a stale one leaves `out` as it was.
            let _ = self.pool.copy_positions(body.handle, &mut out.positions);
        }
    }
}

/// What resolving a cable's ends works with (step 5 of
/// [`CableWorld::step`]).
struct Ends<'a, 'l> {
    pool: &'a mut ParticlePool,
    lookup: &'l dyn Fn(Entity) -> Option<Transform>,
    motions: &'a mut Vec<Motion>,
    freed: &'a mut Vec<(Entity, End)>,
    report: &'a mut StepReport,
    /// Nothing but the layer changed the pool since the last step.
    untouched: bool,
}

/// Where an end is to be this frame: its target (`None`: free), the
/// followed entity's rotation (identity for a point) and the entity.
type Resolved = (Option<Vec3>, Quat, Option<Entity>);

impl Ends<'_, '_> {
    /// Steps 5 and 6 for tracked cable `t` (index `ti`) of `entity`: its
    /// ends from its attachments, its visibility and its winch.
    #[inline(always)]
    fn control(
        &mut self,
        t: &mut Tracked,
        ti: usize,
        entity: Entity,
        att: Option<&CableAttachments>,
        winch: Option<&CableWinch>,
        hidden: Option<&CableHidden>,
    ) {
        if let Some(att) = att {
            self.resolve(t, ti, att);
        }
        let pool = &mut *self.pool;
        // The handle is tracked, hence live: these cannot fail on it.
        let _ = pool.set_visible(t.handle, hidden.is_none());
        let winch = winch.copied();
        if winch != t.winch {
            let applied = match winch {
                Some(w) => pool.reel_to(t.handle, w.target_length, w.speed),
                None => pool.params(t.handle).copied().and_then(|p| {
                    pool.set_params(
                        t.handle,
                        cable_core::CableParams {
                            reel_speed: 0.0,
                            ..p
                        },
                    )
                }),
            };
            match applied {
                Ok(()) => t.winch = winch,
                Err(e) => self.report.bad_winches.push((entity, e)),
            }
        }
    }

    /// Resolves both ends of tracked cable `t` (index `ti`) from its
    /// attachments: pins, frees, teleports, or records the motion to
    /// interpolate.
    #[inline(always)]
    fn resolve(&mut self, t: &mut Tracked, ti: usize, att: &CableAttachments) {
        // At most one teleport per cable and frame: after one end
        // teleported the cable, the other's turn is not applied again.
        let mut teleported = false;
        self.resolve_end(t, ti, End::Start, &att.start, &mut teleported);
        self.resolve_end(t, ti, End::End, &att.end, &mut teleported);
    }

    /// The target of one end, or `None` when it is refused (reported; the
    /// end keeps its last good target).
    #[inline(always)]
    fn target(&mut self, cable: Entity, end: End, attach: &AttachTarget) -> Option<Resolved> {
        match *attach {
            AttachTarget::Free => Some((None, Quat::IDENTITY, None)),
            AttachTarget::Point(p) if in_range(p) => Some((Some(p), Quat::IDENTITY, None)),
            AttachTarget::Point(p) => {
                let checked = check_vec3("point", p).map(|p| (Some(p), Quat::IDENTITY, None));
                self.checked(cable, end, None, checked)
            }
            AttachTarget::Entity { entity, offset } => match (self.lookup)(entity) {
                Some(tf) => match entity_target_fast(&tf, offset) {
                    Some((p, q)) => Some((Some(p), q, Some(entity))),
                    None => {
                        let checked =
                            entity_target(&tf, offset).map(|(p, q)| (Some(p), q, Some(entity)));
                        self.checked(cable, end, Some(entity), checked)
                    }
                },
                None => {
                    self.freed.push((cable, end));
                    Some((None, Quat::IDENTITY, None))
                }
            },
        }
    }

    /// A target the inline checks refused, checked again to name the
    /// field: reported, the end keeping its last good target (the pool
    /// holds it), as colliders keep their last good pose.
    #[cold]
    #[inline(never)]
    fn checked(
        &mut self,
        cable: Entity,
        end: End,
        followed: Option<Entity>,
        checked: Result<Resolved, CableError>,
    ) -> Option<Resolved> {
        match checked {
            Ok(resolved) => Some(resolved),
            Err(error) => {
                self.report.bad_targets.push(BadTarget {
                    entity: cable,
                    end,
                    target: followed,
                    error,
                });
                None
            }
        }
    }

    #[inline(always)]
    fn resolve_end(
        &mut self,
        t: &mut Tracked,
        ti: usize,
        end: End,
        attach: &AttachTarget,
        teleported: &mut bool,
    ) {
        let Some((target, rotation, followed)) = self.target(t.entity, end, attach) else {
            return;
        };
        let slot = end.slot();
        let pool = &mut *self.pool;
        let state = &mut t.ends[slot];
        match (state.target, target) {
            (Some(from), Some(to)) => {
                // A jump beyond the cable's teleport thresholds moves the
                // cable at once (no interpolation); without a threshold the
                // pool would not teleport it.
                let jumped = t.teleports && {
                    let turn = if *teleported || followed.is_none() || state.followed != followed {
                        Quat::IDENTITY
                    } else {
                        rotation * state.rotation.conjugate()
                    };
                    (from != to || turn != Quat::IDENTITY)
                        && pool
                            .teleport_attachment(t.handle, end, to, turn)
                            .unwrap_or(false)
                };
                if jumped {
                    *teleported = true;
                    state.last_move = Vec3::ZERO;
                } else if from != to {
                    self.motions.push(Motion {
                        tracked: ti,
                        handle: t.handle,
                        end,
                        from,
                        to,
                        last_move: state.last_move,
                    });
                    // Its move over one substep; `CableWorld::step` divides
                    // it for more.
                    state.last_move = to - from;
                }
                t.released[slot] = false;
            }
            (None, Some(to)) => {
                let _ = pool.set_attachment(t.handle, end, Some(to));
                t.released[slot] = false;
                state.last_move = Vec3::ZERO;
            }
            (Some(_), None) => {
                // Detach: free the end and give it the target's last velocity.
                let _ = pool.set_attachment(t.handle, end, None);
                if let Ok(pos) = pool.positions(t.handle) {
                    let row = if end == End::Start { 0 } else { pos.len() - 1 };
                    let p = pos[row];
                    if let Ok(prev) = pool.prev_positions_mut(t.handle) {
                        prev[row] = p - state.last_move;
                    }
                }
                t.released[slot] = true;
                state.last_move = Vec3::ZERO;
            }
            (None, None) => {
                // A free end: release a pin the description set (a no-op
                // once released, which the pool need not be asked again
                // while only the layer changed it).
                if !(self.untouched && t.released[slot])
                    && pool.attachment(t.handle, end).ok().flatten().is_some()
                {
                    let _ = pool.set_attachment(t.handle, end, None);
                }
                t.released[slot] = true;
                state.last_move = Vec3::ZERO;
            }
        }
        state.target = target;
        state.rotation = rotation;
        state.followed = followed;
    }
}
