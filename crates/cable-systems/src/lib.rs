//! The systems of the `cable` Verlet rope engine: plain functions over a
//! [`cable_core::ParticlePool`], parallel over cables with rayon and
//! bitwise deterministic whatever the thread count.
//!
//! # Rooms
//!
//! - [`kernel`]: the one solver kernel — the substep written once, generic
//!   over the lane type ([`kernel::lane`]: one cable in `f32`, many in
//!   SIMD lanes) and the storage ([`kernel::Store`]); the distance
//!   constraints, rods, the contact passes ([`kernel::contact`]) and the
//!   narrow phase ([`kernel::narrow`]); [`Stages`] says which of them run;
//! - [`layout`]: the particle layouts the stepper runs the kernel in
//!   ([`Layout`]: [`layout::aos`], [`layout::soa`], [`layout::lanes`]), all
//!   bitwise identical, and the per-frame controls around them (sleep,
//!   tearing, winches);
//! - [`simd`]: the instruction set the wide kernel runs on, picked at run
//!   time (a leaf: the kernel's lane types and the `Lanes8` layout use it);
//! - [`step`]: the fixed-substep [`Stepper`] (time accumulator);
//! - [`attach`], [`integrate`], [`constraints`]: the kernel's stages as
//!   plain functions over the pool;
//! - `ecs` (feature `hecs`, on by default): cables, attachments and targets as hecs entities;
//! - [`mesh`]: tube and ribbon meshes of every cable, in parallel, into
//!   reused GPU-ready buffers; [`frame`]: the parallel-transport frames they
//!   use; [`socket`]: transforms on a cable; [`snapshot`]: lock-free render hand-off;
//! - `save` (feature `serde`, on by default): save and restore the pool and
//!   the stepper, bitwise.
//! - [`query`]: ray casts and closest points against the cables' tubes;
//! - [`tension`]: segment tension and breaking;
//! - [`trace`]: profiler spans (feature `tracing`).
//!
//! # Dependency direction
//!
//! One way, file by file: `step` → `layout` → `kernel` → `simd`; the
//! kernel never imports a layout, the stepper or the ECS (which is why
//! [`Stages`] lives in the kernel). `ecs` → `step`, `save`; `mesh`,
//! `socket` → `frame`. No two files of the crate import each other,
//! directly or through others.
//!
//! # Example
//! ```
//! use cable_core::{CableDesc, ParticlePool};
//! use cable_systems::{SolverParams, Stepper};
//! use glam::Vec3;
//!
//! let mut pool = ParticlePool::new();
//! let rope = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 5.0, 16)?)?;
//! let mut stepper = Stepper::new(SolverParams::default())?;
//! stepper.advance(&mut pool, 0.5)?; // half a second, 16 substeps at most
//! assert!(pool.positions(rope)?[8].y < 0.0); // the middle sags
//! # Ok::<(), cable_core::CableError>(())
//! ```
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod attach;
pub mod constraints;
#[cfg(feature = "hecs")]
pub mod ecs;
pub mod frame;
pub mod integrate;
pub mod kernel;
pub mod layout;
pub mod mesh;
pub mod params;
pub mod query;
#[cfg(feature = "serde")]
pub mod save;
pub mod simd;
pub mod snapshot;
pub mod socket;
pub mod step;
pub mod tension;
pub mod trace;

pub use kernel::Stages;
pub use layout::{Layout, ParseLayoutError};
pub use params::{ParseSolverError, Solver, SolverParams};
pub use step::{Stepper, substep, substep_cable};

/// Re-export so users of the systems can name the view type.
pub use cable_core::CableMut;
