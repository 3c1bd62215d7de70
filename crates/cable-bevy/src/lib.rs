//! Bevy plugin for the `cable` Verlet rope engine: cables, their
//! attachments and colliders as components, stepped in `FixedUpdate`, the
//! particles kept in one structure-of-arrays [`ParticlePool`] (never one
//! entity per particle).
//!
//! Shaped like `bevy_rapier`: add [`CablePlugin`], spawn an entity with a
//! [`Cable`], and optionally
//!
//! - [`CableAttachments`]: pin its ends to world points or to other
//!   entities (their [`GlobalTransform`] plus a local offset);
//! - [`CableTube`]: a tube [`Mesh`] asset (in a [`Mesh3d`]) rebuilt in place
//!   after every frame;
//!
//! and give other entities a [`CableCollider`] (sphere, capsule, half-space,
//! box) posed by their [`GlobalTransform`]. The particle positions are
//! written back into each cable entity's [`CableParticles`] (required by
//! [`Cable`], so always there). The pool itself is the [`CableSimulation`]
//! resource, for everything the components do not cover.
//!
//! # Steps, each `FixedUpdate` (system set [`CableSystems`])
//! 1. **sync** ([`CableSystems::Sync`]): the solver's substep is set to
//!    `Time<Fixed>::timestep() / substeps`; new [`Cable`]s get a pool cable
//!    and a [`CableBody`], checked against that substep (a refused one,
//!    for example a compliance that overflows at it, gets
//!    [`CableRejected`] instead, and the refusal is logged and sent as a
//!    [`CableNotice::Rejected`]); despawned ones are freed; a cable removed
//!    from the pool behind the plugin's back (through
//!    [`CableSimulation::pool_mut`]) is rebuilt from its entity's [`Cable`]
//!    ([`CableNotice::Lost`]); [`CableCollider`]s are added (again, if
//!    removed through the pool), posed from their entity's
//!    [`GlobalTransform`] and removed;
//! 2. **step** ([`CableSystems::Step`]): each attached end's target is
//!    resolved, the solver runs [`CablePlugin::substeps`] substeps of
//!    `Time<Fixed>::timestep() / substeps`, moving targets interpolated
//!    across them. A cable that no longer fits the substep (made softer
//!    through [`CableSimulation::pool_mut`], or a smaller timestep) is
//!    taken out of the pool alone, its entity given a [`CableRejected`]
//!    ([`CableNotice::Rejected`]), and the others step on; a step that
//!    fails anyway is logged once, not every fixed step;
//! 3. **write-back** ([`CableSystems::Writeback`]): [`CableParticles`] get
//!    the positions.
//!
//! What the plugin refused or repaired on its own is logged (standard
//! error, once per event) and sent as a [`CableNotice`] message.
//!
//! In `PostUpdate` ([`CableSystems::Mesh`]), [`CableTube`] meshes are rebuilt
//! when the [`Assets<Mesh>`] resource exists (an `AssetPlugin`, or the
//! resource inserted by hand in a headless app).
//!
//! A target's [`GlobalTransform`] is the one Bevy propagated at the end of
//! the previous frame (as with any physics in `FixedUpdate`), so a cable
//! follows an entity moved in `Update` one frame later.
//!
//! # glam
//! `cable` accepts glam 0.33 or 0.34; Bevy 0.20 uses 0.33. This crate
//! converts at its edges, so it builds either way, but only with one glam
//! are `cable`'s `Vec3` and Bevy's `Vec3` the same type in your code: run
//! `cargo update -p glam@0.34.3 --precise 0.33.12` (whatever 0.34 release
//! your `Cargo.lock` shows) once in your game.
//!
//! # Example
//! ```
//! use bevy_app::prelude::*;
//! use bevy_ecs::prelude::*;
//! use bevy_math::Vec3;
//! use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
//! use bevy_transform::prelude::*;
//! use cable_bevy::{Cable, CableAnchor, CableAttachments, CableParticles, CablePlugin};
//! use std::time::Duration;
//!
//! let mut app = App::new();
//! app.add_plugins((TaskPoolPlugin::default(), TimePlugin, TransformPlugin, CablePlugin::default()))
//!     .insert_resource(Time::<Fixed>::from_hz(60.0))
//!     .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / 60.0)));
//! let hand = app.world_mut().spawn(Transform::from_xyz(0.0, 2.0, 0.0)).id();
//! let rope = app
//!     .world_mut()
//!     .spawn((
//!         Cable::line(Vec3::new(0.0, 2.0, 0.0), Vec3::new(2.0, 2.0, 0.0), 2.5, 16)?,
//!         CableAttachments {
//!             start: CableAnchor::Entity { entity: hand, offset: Vec3::ZERO },
//!             end: CableAnchor::Point(Vec3::new(2.0, 2.0, 0.0)),
//!         },
//!     ))
//!     .id();
//! for _ in 0..60 {
//!     app.update();
//! }
//! let particles = app.world().get::<CableParticles>(rope).expect("required by Cable");
//! assert_eq!(particles.positions.len(), 17);
//! assert_eq!(particles.positions[0], Vec3::new(0.0, 2.0, 0.0));
//! assert!(particles.positions[8].y < 1.8); // it sags
//! # Ok::<(), cable_core::CableError>(())
//! ```
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

use std::collections::HashMap;

use bevy_app::{App, FixedUpdate, Plugin, PostUpdate};
use bevy_asset::{Assets, RenderAssetUsages};
use bevy_ecs::prelude::*;
use bevy_math::{Quat, Vec3};
use bevy_mesh::{Indices, Mesh, Mesh3d, PrimitiveTopology, VertexAttributeValues};
use bevy_time::{Fixed, Time};
use bevy_transform::components::GlobalTransform;
use cable_core::mesh::{MeshBuffers, MeshOptions};
use cable_core::{CableDesc, CableError, CableHandle, Collider, ColliderHandle, End, ParticlePool};
use cable_systems::mesh::build_meshes;
use cable_systems::{Layout, SolverParams, Stepper};

pub use cable_core;
pub use cable_systems;

/// Adds the cable simulation to an app: the [`CableSimulation`] resource and
/// the systems of the crate docs' steps.
///
/// # Example
/// ```
/// use bevy_app::App;
/// use cable_bevy::{CablePlugin, CableSimulation};
///
/// let mut app = App::new();
/// app.add_plugins(CablePlugin { substeps: 2, ..CablePlugin::default() });
/// assert_eq!(app.world().resource::<CableSimulation>().pool().cable_count(), 0);
/// ```
#[derive(Debug, Clone)]
pub struct CablePlugin {
    /// World parameters: gravity, iterations, damping, friction,
    /// `max_substeps`. Its `substep` is replaced by the fixed timestep over
    /// [`CablePlugin::substeps`] at every step. Change them at run time
    /// with [`CableSimulation::set_params`].
    pub params: SolverParams,
    /// Solver substeps per `FixedUpdate` (≥ 1, at most
    /// `params.max_substeps`). Default 1. Cables are checked against the
    /// substep this gives (`Time<Fixed>::timestep() / substeps`): a
    /// compliance that overflows at it is refused at spawn.
    pub substeps: u32,
    /// The particle layout (see `cable_systems::layout`). Default: the
    /// fastest exact one.
    pub layout: Layout,
    /// How [`CableTube`] meshes are built (sides and radius come from each
    /// cable's parameters).
    pub mesh: MeshOptions,
}

impl Default for CablePlugin {
    fn default() -> Self {
        Self {
            params: SolverParams::default(),
            substeps: 1,
            layout: Layout::default(),
            mesh: MeshOptions::default(),
        }
    }
}

/// The ordered stages of the plugin, for ordering your own systems around
/// them (as `bevy_rapier`'s `PhysicsSet`).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CableSystems {
    /// `FixedUpdate`: components into the pool (cables, colliders).
    Sync,
    /// `FixedUpdate`: attachments resolved, the solver run.
    Step,
    /// `FixedUpdate`: positions into [`CableParticles`].
    Writeback,
    /// `PostUpdate`: [`CableTube`] meshes rebuilt.
    Mesh,
}

impl Plugin for CablePlugin {
    fn build(&self, app: &mut App) {
        let mut params = self.params;
        params.max_substeps = params.max_substeps.max(self.substeps.max(1));
        let sim = match CableSimulation::new(params, self.layout, self.substeps, self.mesh) {
            Ok(sim) => sim,
            Err(e) => {
                // A plugin cannot return an error; fall back to the defaults
                // and say why, rather than aborting the game.
                log_error(&format!(
                    "cable-bevy: invalid CablePlugin ({e}); using the defaults"
                ));
                CableSimulation::default()
            }
        };
        app.insert_resource(sim)
            .add_message::<CableNotice>()
            .configure_sets(
                FixedUpdate,
                (
                    CableSystems::Sync,
                    CableSystems::Step,
                    CableSystems::Writeback,
                )
                    .chain(),
            )
            .add_systems(
                FixedUpdate,
                (
                    (sync_cables, sync_colliders)
                        .chain()
                        .in_set(CableSystems::Sync),
                    step.in_set(CableSystems::Step),
                    write_back.in_set(CableSystems::Writeback),
                ),
            )
            .add_systems(PostUpdate, update_tubes.in_set(CableSystems::Mesh));
    }
}

fn log_error(message: &str) {
    eprintln!("{message}");
}

/// The simulation: the particle pool, the stepper and the map between
/// entities and pool handles. A resource added by [`CablePlugin`].
#[derive(Resource, Debug)]
pub struct CableSimulation {
    pool: ParticlePool,
    stepper: Stepper,
    substeps: u32,
    mesh_options: MeshOptions,
    mesh: MeshBuffers,
    cables: HashMap<Entity, CableHandle>,
    colliders: HashMap<Entity, ColliderHandle>,
    /// Each attached end's target at the end of the previous step, to
    /// interpolate from.
    targets: HashMap<(CableHandle, End), cable_glam::Vec3>,
    /// Reused per step: (cable, end, from, to).
    moves: Vec<(CableHandle, End, cable_glam::Vec3, cable_glam::Vec3)>,
    /// Reused per sync: cable entities whose pool cable was removed
    /// behind the plugin's back, with the removed handle.
    lost: Vec<(Entity, CableHandle)>,
    /// The last step-level error logged, so that a failure repeated every
    /// fixed step is logged once; cleared by a step that runs.
    last_error: Option<String>,
}

impl Default for CableSimulation {
    fn default() -> Self {
        Self {
            pool: ParticlePool::new(),
            stepper: Stepper::with_layout(SolverParams::default(), Layout::default())
                .unwrap_or_else(|_| unreachable!("the default parameters are valid")),
            substeps: 1,
            mesh_options: MeshOptions::default(),
            mesh: MeshBuffers::new(),
            cables: HashMap::new(),
            colliders: HashMap::new(),
            targets: HashMap::new(),
            moves: Vec::new(),
            lost: Vec::new(),
            last_error: None,
        }
    }
}

impl CableSimulation {
    fn new(
        params: SolverParams,
        layout: Layout,
        substeps: u32,
        mesh: MeshOptions,
    ) -> Result<Self, CableError> {
        if substeps == 0 {
            return Err(CableError::OutOfRange {
                field: "substeps",
                expected: "must be at least 1",
                value: 0.0,
            });
        }
        mesh.validate()?;
        Ok(Self {
            stepper: Stepper::with_layout(params, layout)?,
            substeps,
            mesh_options: mesh,
            ..Self::default()
        })
    }

    /// The particle pool: positions of any cable by handle, zero copy.
    #[must_use]
    pub fn pool(&self) -> &ParticlePool {
        &self.pool
    }

    /// The particle pool, for what the components do not cover (particle
    /// masses, velocities, parameters of one cable). Cables and colliders
    /// made from entities are the plugin's: remove them by despawning the
    /// entity (or removing its [`Cable`] or [`CableCollider`]).
    ///
    /// Removing an entity's cable here does not end it: the next
    /// [`CableSystems::Sync`] rebuilds it from the entity's [`Cable`] (a
    /// new [`CableBody`], the particles back where the [`Cable`] put
    /// them), logs it and sends a [`CableNotice::Lost`]; a collider removed
    /// here is added again the same way. Parameters set here are checked
    /// at the next step: a cable whose compliance then overflows at the
    /// substep is taken out alone ([`CableNotice::Rejected`], or
    /// [`CableNotice::Dropped`] for a cable added here), so the others
    /// keep moving.
    pub fn pool_mut(&mut self) -> &mut ParticlePool {
        &mut self.pool
    }

    /// The solver parameters in force.
    #[must_use]
    pub fn params(&self) -> &SolverParams {
        self.stepper.params()
    }

    /// Replaces the world parameters (gravity, iterations, damping,
    /// friction) from the next step on. `substep` is ignored: it follows
    /// the fixed timestep.
    ///
    /// # Errors
    /// A parameter out of range; the old ones stay.
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), CableError> {
        let mut params = params;
        params.substep = self.stepper.params().substep;
        params.max_substeps = params.max_substeps.max(self.substeps);
        self.stepper.set_params(params)
    }

    /// The stepper (layout, simulated time, substeps run).
    #[must_use]
    pub fn stepper(&self) -> &Stepper {
        &self.stepper
    }

    /// The pool cable of a cable entity, once [`CableSystems::Sync`] has run.
    #[must_use]
    pub fn cable_of(&self, entity: Entity) -> Option<CableHandle> {
        self.cables.get(&entity).copied()
    }

    /// The pool collider of a collider entity.
    #[must_use]
    pub fn collider_of(&self, entity: Entity) -> Option<ColliderHandle> {
        self.colliders.get(&entity).copied()
    }

    /// The solver substep a fixed timestep of `dt` seconds gives, set on
    /// the stepper; `None` (logged once) when the stepper refuses it or
    /// `dt` is not positive.
    fn sync_substep(&mut self, dt: f32) -> Option<f32> {
        if !(dt > 0.0 && dt.is_finite()) {
            return None;
        }
        let h = dt / self.substeps as f32;
        if self.stepper.params().substep != h {
            let params = SolverParams {
                substep: h,
                ..*self.stepper.params()
            };
            if let Err(e) = self.stepper.set_params(params) {
                self.log_once(format!("cable-bevy: fixed timestep {dt} s refused: {e}"));
                return None;
            }
        }
        Some(h)
    }

    /// Logs a step-level error unless it is the one logged last.
    fn log_once(&mut self, message: String) {
        if self.last_error.as_deref() != Some(message.as_str()) {
            log_error(&message);
            self.last_error = Some(message);
        }
    }

    /// Takes every pool cable that refuses substep `h` out of the pool, so
    /// that the others can step: an entity's cable leaves its entity with
    /// a [`CableRejected`] (and empty [`CableParticles`]), one added
    /// through [`CableSimulation::pool_mut`] is removed. Each is logged
    /// and sent as a [`CableNotice`].
    fn drop_refused(
        &mut self,
        h: f32,
        commands: &mut Commands,
        notices: &mut MessageWriter<CableNotice>,
    ) {
        let refused: Vec<(CableHandle, CableError)> = self
            .pool
            .handles()
            .filter_map(|c| {
                self.pool
                    .validate_cable_for_substep(c, h)
                    .err()
                    .map(|e| (c, e))
            })
            .collect();
        for (handle, error) in refused {
            // Live: listed by `handles` just above.
            let _ = self.pool.remove_cable(handle);
            self.targets.remove(&(handle, End::Start));
            self.targets.remove(&(handle, End::End));
            let owner = self
                .cables
                .iter()
                .find(|(_, c)| **c == handle)
                .map(|(e, _)| *e);
            match owner {
                Some(entity) => {
                    self.cables.remove(&entity);
                    log_error(&format!(
                        "cable-bevy: cable {entity} taken out of the simulation \
                         (substep {h} s): {error}"
                    ));
                    if let Ok(mut e) = commands.get_entity(entity) {
                        e.try_remove::<CableBody>()
                            .try_insert((CableRejected(error.clone()), CableParticles::default()));
                    }
                    notices.write(CableNotice::Rejected { entity, error });
                }
                None => {
                    log_error(&format!(
                        "cable-bevy: pool cable {handle:?} (no entity) removed \
                         (substep {h} s): {error}"
                    ));
                    notices.write(CableNotice::Dropped { handle, error });
                }
            }
        }
    }
}

/// What the plugin refused or repaired on its own, as a message (read it
/// with a `MessageReader<CableNotice>`); each is also logged once.
///
/// # Example
/// ```
/// use bevy_ecs::prelude::*;
/// use cable_bevy::CableNotice;
///
/// fn report(mut notices: MessageReader<CableNotice>) {
///     for notice in notices.read() {
///         if let CableNotice::Rejected { entity, error } = notice {
///             println!("cable {entity} refused: {error}");
///         }
///     }
/// }
/// # bevy_ecs::system::assert_is_system(report);
/// ```
#[derive(Message, Debug, Clone, PartialEq)]
pub enum CableNotice {
    /// The entity's [`Cable`] has no pool cable: refused at spawn (for
    /// example a mass out of range, or a compliance that overflows at the
    /// substep), or taken out at a step because it no longer fits the
    /// substep. The entity has a [`CableRejected`] with the same error.
    Rejected {
        /// The cable entity.
        entity: Entity,
        /// Why.
        error: CableError,
    },
    /// The entity's pool cable was removed behind the plugin's back
    /// (through [`CableSimulation::pool_mut`]): it was rebuilt from its
    /// [`Cable`] (see its new [`CableBody`]), or refused
    /// ([`CableNotice::Rejected`] follows).
    Lost {
        /// The cable entity.
        entity: Entity,
        /// The removed pool cable.
        handle: CableHandle,
    },
    /// A pool cable no entity owns (added through
    /// [`CableSimulation::pool_mut`]) no longer fit the substep and would
    /// have stopped every step: it was removed from the pool.
    Dropped {
        /// The removed pool cable.
        handle: CableHandle,
        /// Why.
        error: CableError,
    },
    /// The entity's pool collider was removed behind the plugin's back
    /// (through [`CableSimulation::pool_mut`]): it was added again from its
    /// [`CableCollider`] (see its new [`CableColliderBody`]).
    ColliderLost {
        /// The collider entity.
        entity: Entity,
        /// The removed pool collider.
        handle: ColliderHandle,
    },
}

/// Bevy's glam and `cable`'s glam are the same crate when the lock file
/// unifies them; these conversions then compile to nothing.
mod convert {
    use super::cable_glam;

    #[inline]
    pub fn to_cable(v: bevy_math::Vec3) -> cable_glam::Vec3 {
        cable_glam::Vec3::from_array(v.to_array())
    }

    #[inline]
    pub fn to_cable_quat(q: bevy_math::Quat) -> cable_glam::Quat {
        cable_glam::Quat::from_array(q.to_array())
    }

    #[inline]
    pub fn to_bevy(v: cable_glam::Vec3) -> bevy_math::Vec3 {
        bevy_math::Vec3::from_array(v.to_array())
    }
}
use convert::{to_bevy, to_cable, to_cable_quat};

/// A cable: what [`CablePlugin`] builds a pool cable from when the entity
/// appears. Changing it afterwards has no effect (despawn and respawn, or
/// edit the cable through [`CableSimulation::pool_mut`]).
///
/// # Example
/// ```
/// use bevy_math::Vec3;
/// use cable_bevy::Cable;
///
/// let mut rope = Cable::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 5.0, 20)?;
/// rope.desc.params.radius = 0.02;
/// let rope = rope.with_mass(20, 10.0); // a 10 kg load at the end
/// assert_eq!(rope.desc.particle_count(), 21);
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[derive(Component, Debug, Clone, PartialEq)]
#[require(CableParticles)]
pub struct Cable {
    /// Geometry and parameters (radius, sides, stiffness, …) of the cable.
    pub desc: CableDesc,
    /// Particle masses other than the default 1 kg: (particle index, kg).
    pub masses: Vec<(usize, f32)>,
}

impl Cable {
    /// A cable of `segments` segments and rest `length` metres whose
    /// particles start evenly on the line from `start` to `end`, both ends
    /// pinned where they start (see [`CableAttachments`] to attach them).
    ///
    /// # Errors
    /// As `CableDesc::line`: coordinates beyond ±1e6 m, a length not in
    /// (0, 1e6], no segments.
    pub fn line(start: Vec3, end: Vec3, length: f32, segments: u32) -> Result<Self, CableError> {
        Ok(Self::from_desc(CableDesc::line(
            to_cable(start),
            to_cable(end),
            length,
            segments,
        )?))
    }

    /// A cable through `points` (at least 2); each segment's rest length is
    /// the distance between its two points.
    ///
    /// # Errors
    /// As `CableDesc::from_points`.
    pub fn from_points(points: &[Vec3]) -> Result<Self, CableError> {
        let points: Vec<_> = points.iter().map(|p| to_cable(*p)).collect();
        Ok(Self::from_desc(CableDesc::from_points(&points)?))
    }

    /// A cable from a full description.
    #[must_use]
    pub fn from_desc(desc: CableDesc) -> Self {
        Self {
            desc,
            masses: Vec::new(),
        }
    }

    /// Sets the mass of particle `index`, kilograms (> 0).
    #[must_use]
    pub fn with_mass(mut self, index: usize, kg: f32) -> Self {
        self.masses.push((index, kg));
        self
    }
}

/// The pool cable of a [`Cable`] entity, added by [`CableSystems::Sync`].
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CableBody {
    /// The cable in [`CableSimulation::pool`].
    pub handle: CableHandle,
}

/// Added instead of [`CableBody`] when the pool refused a [`Cable`] (for
/// example a mass out of range, the pool's particle budget, or a
/// compliance that overflows at the substep), at spawn or at a later step
/// (its [`CableParticles`] are then emptied). The plugin does not retry
/// while it is there: remove it to try again.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct CableRejected(pub CableError);

/// The particle positions of a cable entity, metres, from its start to its
/// end, written after every step (the buffer is reused).
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct CableParticles {
    /// Positions, world space.
    pub positions: Vec<Vec3>,
}

/// Where one end of a cable hangs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum CableAnchor {
    /// Not attached: the end moves freely.
    #[default]
    Free,
    /// Pinned to a world point, metres.
    Point(Vec3),
    /// Pinned to another entity: its [`GlobalTransform`]'s translation plus
    /// `offset` rotated by its rotation. When the entity is despawned (or
    /// has no [`GlobalTransform`]) the end is free.
    Entity {
        /// The entity followed.
        entity: Entity,
        /// Offset in the entity's local frame, metres.
        offset: Vec3,
    },
}

/// The attachments of a cable entity's two ends. Without it the ends stay
/// as the [`Cable`]'s description pinned them. Change it at any time:
/// attaching pins the end to its target from the next substep, detaching
/// frees it without a jump.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct CableAttachments {
    /// Particle 0.
    pub start: CableAnchor,
    /// The last particle.
    pub end: CableAnchor,
}

/// A kinematic collider for cables, in the entity's local frame; its pose
/// is the entity's [`GlobalTransform`] (translation and rotation; scale is
/// ignored), or the identity without one. Cables rest on it, wrap around it
/// and slide on it; it is not pushed back.
///
/// # Example
/// ```
/// use cable_bevy::CableCollider;
///
/// let ball = CableCollider::sphere(0.5)?;
/// let post = CableCollider::capsule_y(1.0, 0.1)?;
/// let floor = CableCollider::half_space();
/// let crate_ = CableCollider::cuboid(bevy_math::Vec3::splat(0.5))?;
/// # let _ = (ball, post, floor, crate_);
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct CableCollider(pub Collider);

impl CableCollider {
    /// A ball of `radius` metres around the entity's origin.
    ///
    /// # Errors
    /// `radius` not in (0, 1e6].
    pub fn sphere(radius: f32) -> Result<Self, CableError> {
        Ok(Self(Collider::sphere(to_cable(Vec3::ZERO), radius)?))
    }

    /// A capsule along the local Y axis: the points within `radius` of the
    /// segment from `-half_length` to `+half_length` on Y.
    ///
    /// # Errors
    /// A size out of range.
    pub fn capsule_y(half_length: f32, radius: f32) -> Result<Self, CableError> {
        let h = to_cable(Vec3::new(0.0, half_length, 0.0));
        Ok(Self(Collider::capsule(-h, h, radius)?))
    }

    /// The half-space below the entity's local XZ plane: local `+Y` is the
    /// outward normal (a floor at the entity's height).
    #[must_use]
    pub fn half_space() -> Self {
        Self(
            Collider::plane(to_cable(Vec3::Y), 0.0)
                .unwrap_or_else(|_| unreachable!("the Y axis is a valid normal")),
        )
    }

    /// A box with `half_extents` along the local axes.
    ///
    /// # Errors
    /// A half extent not in (0, 1e6].
    pub fn cuboid(half_extents: Vec3) -> Result<Self, CableError> {
        Ok(Self(Collider::cuboid(
            to_cable(Vec3::ZERO),
            to_cable(half_extents),
            to_cable_quat(Quat::IDENTITY),
        )?))
    }
}

/// The pool collider of a [`CableCollider`] entity, added by
/// [`CableSystems::Sync`].
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CableColliderBody {
    /// The collider in [`CableSimulation::pool`]'s collider set.
    pub handle: ColliderHandle,
}

/// Asks for a tube mesh of the cable: the plugin creates a [`Mesh`] asset
/// (and a [`Mesh3d`] holding it, unless the entity has one) and rewrites
/// its positions, normals, tangents, UVs and indices in place every frame.
/// Add a material to see it. Needs the [`Assets<Mesh>`] resource.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CableTube;

// --- systems ---------------------------------------------------------------

type NewCables<'w, 's> =
    Query<'w, 's, (Entity, &'static Cable), (Without<CableBody>, Without<CableRejected>)>;

/// The substep first (from the fixed timestep); new cables into the pool,
/// checked against it; cables of despawned entities out of it; cables
/// removed from the pool behind the plugin's back rebuilt.
fn sync_cables(
    mut commands: Commands,
    mut sim: ResMut<CableSimulation>,
    time: Option<Res<Time<Fixed>>>,
    new: NewCables,
    bodies: Query<(&CableBody, &Cable)>,
    mut notices: MessageWriter<CableNotice>,
) {
    let sim = &mut *sim;
    // The substep the next step runs: cables are checked against it.
    let substep = time.and_then(|t| sim.sync_substep(t.timestep().as_secs_f32()));
    // Gone: the entity was despawned, or lost its `Cable` or `CableBody`.
    // Lost: the entity is whole but its pool cable was removed through
    // `pool_mut` (or the pool replaced).
    let pool = &mut sim.pool;
    let targets = &mut sim.targets;
    let lost = &mut sim.lost;
    lost.clear();
    sim.cables.retain(|entity, handle| {
        let owned = bodies.get(*entity).is_ok_and(|(b, _)| b.handle == *handle);
        let live = pool.contains(*handle);
        if !(owned && live) {
            // A no-op when the cable is already gone.
            let _ = pool.remove_cable(*handle);
            targets.remove(&(*handle, End::Start));
            targets.remove(&(*handle, End::End));
            if owned {
                lost.push((*entity, *handle));
            }
        }
        owned && live
    });
    for i in 0..sim.lost.len() {
        let (entity, handle) = sim.lost[i];
        log_error(&format!(
            "cable-bevy: the pool cable {handle:?} of {entity} was removed behind \
             the plugin's back; rebuilding it from its Cable"
        ));
        notices.write(CableNotice::Lost { entity, handle });
        let Ok(mut e) = commands.get_entity(entity) else {
            continue;
        };
        // Without a body the entity is new again: rebuilt below, or at the
        // next sync when the substep is not known yet.
        e.try_remove::<CableBody>();
        if let (Some(h), Ok((_, cable))) = (substep, bodies.get(entity)) {
            let added = spawn_cable(&mut sim.pool, cable, h);
            settle(&mut commands, sim, &mut notices, entity, added);
        }
    }
    let Some(h) = substep else {
        // No substep to check against: new cables wait.
        return;
    };
    for (entity, cable) in &new {
        let added = spawn_cable(&mut sim.pool, cable, h);
        settle(&mut commands, sim, &mut notices, entity, added);
    }
}

/// Adds a cable checked for substep `h`: a cable whose compliances
/// overflow at it would make every step refuse, so it is refused here,
/// once, instead.
fn spawn_cable(pool: &mut ParticlePool, cable: &Cable, h: f32) -> Result<CableHandle, CableError> {
    cable
        .desc
        .validate_for_substep(h)
        .and_then(|()| add_cable(pool, cable))
}

/// Gives `entity` the outcome of [`spawn_cable`]: a [`CableBody`], or a
/// [`CableRejected`] with the reason, logged and sent as a notice.
fn settle(
    commands: &mut Commands,
    sim: &mut CableSimulation,
    notices: &mut MessageWriter<CableNotice>,
    entity: Entity,
    added: Result<CableHandle, CableError>,
) {
    match added {
        Ok(handle) => {
            sim.cables.insert(entity, handle);
            if let Ok(mut e) = commands.get_entity(entity) {
                e.try_insert(CableBody { handle });
            }
        }
        Err(error) => {
            log_error(&format!("cable-bevy: cable {entity} refused: {error}"));
            if let Ok(mut e) = commands.get_entity(entity) {
                e.try_insert((CableRejected(error.clone()), CableParticles::default()));
            }
            notices.write(CableNotice::Rejected { entity, error });
        }
    }
}

fn add_cable(pool: &mut ParticlePool, cable: &Cable) -> Result<CableHandle, CableError> {
    let handle = pool.add_cable(&cable.desc)?;
    for &(index, kg) in &cable.masses {
        let inv = if kg > 0.0 && kg.is_finite() {
            1.0 / kg
        } else {
            f32::NAN // refused below with the field named
        };
        if let Err(e) = pool.set_inv_mass(handle, index, inv) {
            let _ = pool.remove_cable(handle);
            return Err(e);
        }
    }
    Ok(handle)
}

/// Colliders: new ones added, all posed from their transforms, gone ones removed.
fn sync_colliders(
    mut commands: Commands,
    mut sim: ResMut<CableSimulation>,
    colliders: Query<(
        Entity,
        &CableCollider,
        Option<&CableColliderBody>,
        Option<&GlobalTransform>,
    )>,
    mut notices: MessageWriter<CableNotice>,
) {
    let sim = &mut *sim;
    let set = sim.pool.colliders_mut();
    // Gone: the entity was despawned or lost its `CableCollider`.
    sim.colliders.retain(|entity, handle| {
        let alive = colliders.contains(*entity);
        if !alive {
            let _ = set.remove(*handle);
        }
        alive
    });
    for (entity, collider, body, transform) in &colliders {
        let handle = match sim.colliders.get(&entity) {
            Some(h) if set.contains(*h) => *h,
            old => {
                if let Some(&lost) = old {
                    // Removed behind the plugin's back: added again.
                    log_error(&format!(
                        "cable-bevy: the pool collider {lost:?} of {entity} was removed \
                         behind the plugin's back; adding it again"
                    ));
                    notices.write(CableNotice::ColliderLost {
                        entity,
                        handle: lost,
                    });
                }
                let handle = set.add(collider.0);
                sim.colliders.insert(entity, handle);
                handle
            }
        };
        if body.is_none_or(|b| b.handle != handle) {
            commands
                .entity(entity)
                .try_insert(CableColliderBody { handle });
        }
        if let Some(t) = transform {
            let (_, rotation, translation) = t.to_scale_rotation_translation();
            // A pose out of range (a NaN transform) keeps the last good one.
            let _ = set.set_pose(handle, to_cable(translation), to_cable_quat(rotation));
        }
    }
}

/// Resolves the attachments and runs the solver for one fixed timestep.
fn step(
    mut commands: Commands,
    mut sim: ResMut<CableSimulation>,
    time: Option<Res<Time<Fixed>>>,
    cables: Query<(&CableBody, &CableAttachments)>,
    transforms: Query<&GlobalTransform>,
    mut notices: MessageWriter<CableNotice>,
) {
    let sim = &mut *sim;
    let Some(time) = time else { return };
    let dt = time.timestep().as_secs_f32();
    let Some(h) = sim.sync_substep(dt) else {
        return;
    };
    sim.moves.clear();
    for (body, attachments) in &cables {
        for (end, anchor) in [(End::Start, attachments.start), (End::End, attachments.end)] {
            let target = match anchor {
                CableAnchor::Free => None,
                CableAnchor::Point(p) => Some(p),
                CableAnchor::Entity { entity, offset } => transforms
                    .get(entity)
                    .ok()
                    .map(|t| t.translation() + t.rotation() * offset),
            };
            match target.map(to_cable) {
                Some(to) => {
                    let from = sim.targets.insert((body.handle, end), to).unwrap_or(to);
                    sim.moves.push((body.handle, end, from, to));
                }
                None => {
                    if sim.targets.remove(&(body.handle, end)).is_some()
                        || sim
                            .pool
                            .attachment(body.handle, end)
                            .ok()
                            .flatten()
                            .is_some()
                    {
                        let _ = sim.pool.set_attachment(body.handle, end, None);
                    }
                }
            }
        }
    }
    let result = match advance(sim, dt) {
        // Refused before any substep ran (the pool and the accumulator are
        // untouched) because some cable no longer fits the substep: take
        // those out, alone, and run the step for the others.
        Err(_) if sim.stepper.validate_pool(&sim.pool).is_err() => {
            sim.drop_refused(h, &mut commands, &mut notices);
            advance(sim, dt)
        }
        other => other,
    };
    match result {
        Ok(_) => sim.last_error = None,
        Err(e) => sim.log_once(format!("cable-bevy: step refused: {e}")),
    }
}

/// Runs the solver for one fixed timestep of `dt` seconds, the attached
/// ends moved across its substeps.
fn advance(sim: &mut CableSimulation, dt: f32) -> Result<u32, CableError> {
    let moves = &sim.moves;
    sim.stepper.advance_with(&mut sim.pool, dt, |pool, k, n| {
        let t = (k + 1) as f32 / n as f32;
        for &(handle, end, from, to) in moves {
            // A target beyond the pool's coordinate range (or of a cable
            // just taken out) is refused: the end keeps its previous target.
            let _ = pool.set_attachment(handle, end, Some(from.lerp(to, t)));
        }
    })
}

/// Positions into [`CableParticles`], each cable read where the layout
/// keeps it (`ParticlePool::copy_positions`, through a buffer kept
/// between frames).
fn write_back(
    sim: Res<CableSimulation>,
    mut cables: Query<(&CableBody, &mut CableParticles)>,
    mut buf: Local<Vec<cable_glam::Vec3>>,
) {
    for (body, mut particles) in &mut cables {
        if sim.pool.copy_positions(body.handle, &mut buf).is_ok() {
            let out = &mut particles.positions;
            out.clear();
            out.extend(buf.iter().map(|v| to_bevy(*v)));
        }
    }
}

/// Rebuilds the [`CableTube`] meshes in place.
fn update_tubes(
    mut commands: Commands,
    mut sim: ResMut<CableSimulation>,
    meshes: Option<ResMut<Assets<Mesh>>>,
    tubes: Query<(Entity, &CableBody, Option<&Mesh3d>), With<CableTube>>,
) {
    let Some(mut meshes) = meshes else { return };
    if tubes.is_empty() {
        return;
    }
    let sim = &mut *sim;
    if let Err(e) = build_meshes(&sim.pool, &sim.mesh_options, &mut sim.mesh) {
        log_error(&format!("cable-bevy: meshes not built: {e}"));
        return;
    }
    // Per-cable ranges are in pool order; index them once by handle.
    let ranges: HashMap<CableHandle, usize> = sim
        .mesh
        .cables
        .iter()
        .enumerate()
        .map(|(i, c)| (c.handle, i))
        .collect();
    for (entity, body, mesh3d) in &tubes {
        let Some(&i) = ranges.get(&body.handle) else {
            continue;
        };
        let cable = &sim.mesh.cables[i];
        let vertices = &sim.mesh.vertices[cable.vertex_range()];
        let indices = &sim.mesh.indices[cable.index_range()];
        let first = cable.first_vertex;
        let handle = match mesh3d {
            Some(m) => m.0.clone(),
            None => {
                let handle = meshes.add(Mesh::new(
                    PrimitiveTopology::TriangleList,
                    RenderAssetUsages::default(),
                ));
                commands.entity(entity).try_insert(Mesh3d(handle.clone()));
                handle
            }
        };
        let Some(mut mesh) = meshes.get_mut(&handle) else {
            continue;
        };
        write_tube(&mut mesh, vertices, indices, first);
    }
}

/// Writes one cable's vertices and indices into `mesh`, reusing its buffers.
fn write_tube(mesh: &mut Mesh, vertices: &[cable_core::mesh::Vertex], indices: &[u32], first: u32) {
    fn fill<T>(
        mesh: &mut Mesh,
        id: bevy_mesh::MeshVertexAttribute,
        n: usize,
        values: impl Iterator<Item = T>,
        wrap: fn(Vec<T>) -> VertexAttributeValues,
        unwrap: fn(&mut VertexAttributeValues) -> Option<&mut Vec<T>>,
    ) {
        match mesh
            .try_attribute_mut_option(id)
            .ok()
            .flatten()
            .and_then(unwrap)
        {
            Some(buf) => {
                buf.clear();
                buf.extend(values);
            }
            None => {
                let mut buf = Vec::with_capacity(n);
                buf.extend(values);
                let _ = mesh.try_insert_attribute(id, wrap(buf));
            }
        }
    }
    let n = vertices.len();
    fill(
        mesh,
        Mesh::ATTRIBUTE_POSITION,
        n,
        vertices.iter().map(|v| v.position),
        VertexAttributeValues::Float32x3,
        |v| match v {
            VertexAttributeValues::Float32x3(b) => Some(b),
            _ => None,
        },
    );
    fill(
        mesh,
        Mesh::ATTRIBUTE_NORMAL,
        n,
        vertices.iter().map(|v| v.normal),
        VertexAttributeValues::Float32x3,
        |v| match v {
            VertexAttributeValues::Float32x3(b) => Some(b),
            _ => None,
        },
    );
    fill(
        mesh,
        Mesh::ATTRIBUTE_TANGENT,
        n,
        vertices.iter().map(|v| v.tangent),
        VertexAttributeValues::Float32x4,
        |v| match v {
            VertexAttributeValues::Float32x4(b) => Some(b),
            _ => None,
        },
    );
    fill(
        mesh,
        Mesh::ATTRIBUTE_UV_0,
        n,
        vertices.iter().map(|v| v.uv),
        VertexAttributeValues::Float32x2,
        |v| match v {
            VertexAttributeValues::Float32x2(b) => Some(b),
            _ => None,
        },
    );
    let local = indices.iter().map(|i| i - first);
    match mesh.try_indices_mut_option().ok().flatten() {
        Some(Indices::U32(buf)) => {
            buf.clear();
            buf.extend(local);
        }
        _ => {
            let _ = mesh.try_insert_indices(Indices::U32(local.collect()));
        }
    }
}

/// `cable`'s own glam (0.33 or 0.34), named for the conversions.
use glam as cable_glam;
