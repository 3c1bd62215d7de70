//! hecs integration: cables, their attachments and their targets as entities,
//! while the particles stay in the SoA [`ParticlePool`](cable_core::ParticlePool) where the systems run
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
//!    [`CableRejected`] with the reason instead, is listed once in
//!    [`StepReport::refused_specs`], and is not retried until the
//!    `CableRejected` is removed);
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
//!    ([`ParticlePool::teleport_attachment`](cable_core::ParticlePool::teleport_attachment): moved rigidly and turned
//!    about the end, or laid out anew, as its
//!    [`cable_core::CableParams::teleport_mode`] says; at most one teleport
//!    per cable and frame, so two ends on one body move it once);
//! 6. **controls**: a [`CableWinch`] added or changed since the last step
//!    sets the cable's winch ([`ParticlePool::reel_to`](cable_core::ParticlePool::reel_to); a refused one is
//!    listed in [`StepReport::bad_winches`]), a removed one stops it; a
//!    [`CableHidden`] marker hides the cable ([`ParticlePool::set_visible`](cable_core::ParticlePool::set_visible):
//!    skipped while hidden if its parameters say
//!    [`cable_core::CableParams::skip_when_hidden`]);
//! 7. **step**: the [`Stepper`](crate::Stepper) runs this frame's substeps; moving targets are
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
// The files import one way: `report` and `components` nothing of the
// layer, `targets` → `components`, `report`; `world` → those three;
// `save` → `components`, `targets`, `world`. No two import each other.
mod components;
mod report;
#[cfg(feature = "serde")]
mod save;
mod targets;
mod world;

pub use components::{
    AttachTarget, CableAttachments, CableBody, CableHidden, CableParticles, CableRejected,
    CableSpec, CableWinch, ColliderBody, ColliderForce, ColliderSpec, OwnTransform, Transform,
    TransformSource,
};
pub use report::{BadBody, BadTarget, EntityContact, StepReport};
#[cfg(feature = "serde")]
pub use save::{CableWorldState, RestoreReport};
pub use world::CableWorld;
