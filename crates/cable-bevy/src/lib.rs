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
//! 1. **sync** ([`CableSystems::Sync`]): new [`Cable`]s get a pool cable and
//!    a [`CableBody`] (a refused one gets [`CableRejected`] instead);
//!    despawned ones are freed; [`CableCollider`]s are added, posed from
//!    their entity's [`GlobalTransform`] and removed;
//! 2. **step** ([`CableSystems::Step`]): each attached end's target is
//!    resolved, the solver runs [`CablePlugin::substeps`] substeps of
//!    `Time<Fixed>::timestep() / substeps`, moving targets interpolated
//!    across them;
//! 3. **write-back** ([`CableSystems::Writeback`]): [`CableParticles`] get
//!    the positions.
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
    /// `params.max_substeps`). Default 1.
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
    /// made from entities are the plugin's: remove them by despawning.
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
/// example a mass out of range, or the pool's particle budget).
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

/// New cables into the pool; cables of despawned entities out of it.
fn sync_cables(
    mut commands: Commands,
    mut sim: ResMut<CableSimulation>,
    new: NewCables,
    bodies: Query<&CableBody, With<Cable>>,
) {
    let sim = &mut *sim;
    // Gone: the entity was despawned, or lost its `Cable` or `CableBody`.
    let pool = &mut sim.pool;
    let targets = &mut sim.targets;
    sim.cables.retain(|entity, handle| {
        let alive = bodies.get(*entity).is_ok_and(|b| b.handle == *handle);
        if !alive {
            let _ = pool.remove_cable(*handle);
            targets.remove(&(*handle, End::Start));
            targets.remove(&(*handle, End::End));
        }
        alive
    });
    let substep = sim.stepper.params().substep;
    let pool = &mut sim.pool;
    for (entity, cable) in &new {
        // A cable whose compliances overflow at this substep would make every
        // step refuse: reject it here, once, instead.
        let added = cable
            .desc
            .validate_for_substep(substep)
            .and_then(|()| add_cable(pool, cable));
        match added {
            Ok(handle) => {
                sim.cables.insert(entity, handle);
                commands.entity(entity).insert(CableBody { handle });
            }
            Err(e) => {
                commands.entity(entity).insert(CableRejected(e));
            }
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
            Some(h) => *h,
            None => {
                let handle = set.add(collider.0);
                sim.colliders.insert(entity, handle);
                handle
            }
        };
        if body.is_none_or(|b| b.handle != handle) {
            commands.entity(entity).insert(CableColliderBody { handle });
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
    mut sim: ResMut<CableSimulation>,
    time: Res<Time<Fixed>>,
    cables: Query<(&CableBody, &CableAttachments)>,
    transforms: Query<&GlobalTransform>,
) {
    let sim = &mut *sim;
    let dt = time.timestep().as_secs_f32();
    if dt <= 0.0 {
        return;
    }
    let h = dt / sim.substeps as f32;
    if sim.stepper.params().substep != h {
        let params = SolverParams {
            substep: h,
            ..*sim.stepper.params()
        };
        if let Err(e) = sim.stepper.set_params(params) {
            log_error(&format!("cable-bevy: fixed timestep {dt} s refused: {e}"));
            return;
        }
    }
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
    let moves = &sim.moves;
    let result = sim.stepper.advance_with(&mut sim.pool, dt, |pool, k, n| {
        let t = (k + 1) as f32 / n as f32;
        for &(handle, end, from, to) in moves {
            // A target beyond the pool's coordinate range is refused: the
            // end keeps its previous target.
            let _ = pool.set_attachment(handle, end, Some(from.lerp(to, t)));
        }
    });
    if let Err(e) = result {
        log_error(&format!("cable-bevy: step refused: {e}"));
    }
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
                commands.entity(entity).insert(Mesh3d(handle.clone()));
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
