//! Data-oriented Verlet cable and rope simulation: ropes, cables, chains and
//! hoses for games and tools.
//!
//! Every particle of every cable lives in one structure-of-arrays
//! [`ParticlePool`]; a [`Stepper`] advances it in fixed substeps with one
//! solver kernel (distance constraints, tethers, bending, contacts and
//! friction) that runs over SIMD lanes and in parallel over cables, with
//! results bitwise identical whatever the thread count, layout or SIMD path.
//!
//! ```
//! use cable::prelude::*;
//!
//! let mut pool = ParticlePool::new();
//! let rope = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(10.0, 0.0, 0.0), 12.0, 32)?)?;
//! let mut stepper = Stepper::new(SolverParams::default())?;
//! for _frame in 0..60 {
//!     stepper.advance(&mut pool, 1.0 / 60.0)?;
//! }
//! assert!(pool.positions(rope)?[16].y < 0.0); // it sags
//! # Ok::<(), cable::CableError>(())
//! ```
//!
//! This package is the facade over the library crates, with the same types:
//!
//! - [`core`] (`cable-core`): the pool, [`CableDesc`], [`CableParams`],
//!   handles, colliders, mesh data types, [`CableError`];
//! - [`systems`] (`cable-systems`): the [`Stepper`] and its [`SolverParams`],
//!   the layouts, meshes, sockets, snapshots, queries, save and restore, the
//!   hecs layer, profiler spans (feature `tracing`);
//! - `debug` (feature `debug`, on by default): ASCII and SVG views of a pool;
//! - [`scene`]: the JSON scene files of the `cable` command line ([`Scene`]);
//! - [`workload`]: the synthetic workloads of `cable bench` and the benches;
//! - [`glam`]: the vector types of the API;
//! - [`prelude`]: what almost every user names, in one `use`.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `hecs` | on | the hecs ECS layer, `systems::ecs` |
//! | `save` | on | bitwise save and restore, `systems::save` |
//! | `debug` | on | ASCII and SVG views, `debug` |
//! | `tracing` | off | profiler spans around each stage of a frame |
//! | `internals` | off | the solver kernel and `simd::force` as public API, for benchmarks (not semver-stable) |
//!
//! The README and the guide in the repository's `docs/guide/` explain each
//! feature, what it is checked against and what it costs.
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod scene;
mod scene_colliders;
mod scene_values;
pub mod workload;

pub use cable_core as core;
#[cfg(feature = "debug")]
pub use cable_debug as debug;
pub use cable_systems as systems;

pub use cable_core::{CableDesc, CableError, CableHandle, CableParams, End, ParticlePool};
pub use cable_systems::{SolverParams, Stepper};
pub use glam;

/// What almost every user of `cable` names: the pool and its cables, the
/// colliders, the stepper and its parameters, the layouts, scenes and
/// glam's vector types.
///
/// ```
/// use cable::prelude::*;
///
/// let mut pool = ParticlePool::new();
/// let rope = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 2.0, 2.0, 8)?)?;
/// pool.colliders_mut().add(Collider::sphere(Vec3::new(1.0, -1.0, 0.0), 0.5)?);
/// let mut stepper = Stepper::with_layout(SolverParams::default(), Layout::Soa)?;
/// stepper.advance(&mut pool, 1.0 / 60.0)?;
/// assert_eq!(pool.positions(rope)?.len(), 9);
/// # Ok::<(), CableError>(())
/// ```
pub mod prelude {
    pub use crate::scene::{Scene, SceneError};
    pub use cable_core::{
        CableDesc, CableError, CableHandle, CableParams, Collider, ColliderHandle, End,
        ParticlePool,
    };
    pub use cable_systems::{Layout, Solver, SolverParams, Stages, Stepper};
    pub use glam::{Quat, Vec3};
}
pub use scene::{Scene, SceneError};

// The README and the guide's chapters are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/bevy.md")]
mod guide_bevy {}

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/collisions.md")]
mod guide_collisions {}

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/debug-views.md")]
mod guide_debug_views {}

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/meshes.md")]
mod guide_meshes {}

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/profiling.md")]
mod guide_profiling {}

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/queries.md")]
mod guide_queries {}

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/save-restore.md")]
mod guide_save_restore {}
