//! Bevy plugin for the `cable` Verlet rope engine: cables, their
//! attachments and colliders as components, stepped in `FixedUpdate` (or
//! the schedule of your choice, [`CablePlugin::in_schedule`]), the
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
//! - [`CableWinch`]: reel its rest length in or out; [`CableHidden`]: your
//!   culling says it is not shown;
//! - readouts written after each fixed step: [`CableTension`] (each
//!   segment's tension) and [`CableStatus`] (asleep, rest length, particle
//!   count); [`CableInterpolated`]: the positions interpolated between the
//!   last two steps for rendering (and the tube mesh with them);
//!
//! and give other entities a [`CableCollider`] (sphere, capsule, half-space,
//! box) posed by their [`GlobalTransform`]. The particle positions are
//! written back into each cable entity's [`CableParticles`] (required by
//! [`Cable`], so always there). The pool itself is the [`CableSimulation`]
//! resource, for everything the components do not cover.
//!
//! # Schedule and clock
//! [`CablePlugin::default`] runs in `FixedUpdate`, one step of
//! `Time<Fixed>::timestep()` per run. [`CablePlugin::in_schedule`] picks
//! another schedule: in the other schedules of `FixedMain`
//! (`FixedPostUpdate`, …) it is the same; in any other (`Update`,
//! `PostUpdate`, your own) the plugin accumulates `Time`'s delta and runs
//! the whole fixed steps it holds, carrying the rest ([`CableClock`]): the
//! solver never sees a variable step. The mesh system stays in
//! `PostUpdate`.
//!
//! # Steps, each run of the schedule (system set [`CableSystems`])
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
//!    [`GlobalTransform`] and removed; [`CableHidden`] and [`CableWinch`]
//!    are given to the pool (a refused winch is logged and sent as
//!    [`CableNotice::BadWinch`]);
//! 2. **step** ([`CableSystems::Step`]): each attached end's target is
//!    resolved and checked as the hecs layer checks it (a NaN or
//!    out-of-range target is refused, the end keeping its last good one,
//!    logged and sent as a [`CableNotice::BadTarget`]), the solver runs [`CablePlugin::substeps`] substeps of
//!    `Time<Fixed>::timestep() / substeps`, moving targets interpolated
//!    across them. A cable that no longer fits the substep (made softer
//!    through [`CableSimulation::pool_mut`], or a smaller timestep) is
//!    taken out of the pool alone, its entity given a [`CableRejected`]
//!    ([`CableNotice::Rejected`]), and the others step on; a step that
//!    fails anyway is logged once, not every fixed step;
//! 3. **write-back** ([`CableSystems::Writeback`]): [`CableParticles`] get
//!    the positions, [`CableTension`] and [`CableStatus`] their readouts,
//!    [`CableColliderForce`] the contact forces.
//!
//! What the plugin refused or repaired on its own is logged once per
//! event, as an error of target `cable_bevy` through `tracing` (Bevy's
//! `LogPlugin` shows it with Bevy's own log), and sent as a
//! [`CableNotice`] message.
//!
//! With [`CableClock::Accumulated`] a run may take no step (then nothing
//! is written back) or several (the attached ends' targets moved across
//! them; messages sent for each).
//!
//! In `PostUpdate` ([`CableSystems::Mesh`]), [`CableTube`] meshes are rebuilt
//! when the [`Assets<Mesh>`] resource exists (an `AssetPlugin`, or the
//! resource inserted by hand in a headless app).
//!
//! A target's [`GlobalTransform`] is the one Bevy propagated at the end of
//! the previous frame (as with any physics in `FixedUpdate`), so a cable
//! follows an entity moved in `Update` one frame later.
//!
//! # Interpolation
//! Insert [`CableInterpolated`] on a cable entity to read (and mesh) it
//! between its last two steps at the overstep fraction
//! (`Time<Fixed>::overstep_fraction()`, or the plugin's own accumulator
//! in a variable schedule), as avian's `TransformInterpolation` does for
//! bodies: written in `RunFixedMainLoop` after the fixed loop, so `Update`
//! reads it.
//!
//! # Reflection
//! Every component, [`CableAnchor`], [`CableClock`] and the
//! [`CableSimulation`] resource derive `Reflect` and are registered by the
//! plugin. Fields of `cable_core` types (a [`Cable`]'s description, a
//! [`CableCollider`]'s shape, the handles, a [`CableRejected`]'s error, the
//! pool) are not reflected: the core crates do not depend on Bevy. Each
//! type's docs say which.
//!
//! # Save and restore
//! [`CableSimulation::save`] writes the simulation and the plugin's state
//! between steps as JSON; [`restore_simulation`] puts it back into the
//! world and relinks the entities, and the run goes on bit for bit.
//!
//! # Debug drawing (feature `gizmos`)
//! With the cargo feature `gizmos`, `CableDebugPlugin` draws each cable's
//! segments (coloured by tension when it has a [`CableTension`]) and each
//! collider with Bevy gizmos every frame, as `bevy_rapier`'s
//! `RapierDebugRenderPlugin` does; the gizmo group `CableGizmos` switches
//! the parts on and off and picks the colours.
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

#[cfg(doc)]
use {
    bevy_asset::Assets,
    bevy_mesh::{Mesh, Mesh3d},
    bevy_transform::components::GlobalTransform,
    cable_core::ParticlePool,
};
mod clock;
mod components;
mod convert;
#[cfg(feature = "gizmos")]
mod debug;
mod plugin;
mod reflect;
mod save;
mod simulation;
mod systems;
mod tubes;

pub use cable_core;
pub use cable_systems;

pub use clock::CableClock;
pub use components::{
    Cable, CableAnchor, CableAttachments, CableBody, CableCollider, CableColliderBody,
    CableColliderForce, CableHidden, CableInterpolated, CableParticles, CableRejected, CableStatus,
    CableTension, CableTube, CableWinch,
};
#[cfg(feature = "gizmos")]
pub use debug::{CableDebugPlugin, CableDebugSystems, CableGizmos, CableTensionColors};
pub use plugin::{CablePlugin, CableSystems};
pub use save::restore_simulation;
pub use simulation::{CableContact, CableNotice, CableSimulation, CableTorn};
