//! The systems of the `cable` Verlet rope engine: plain functions over a
//! [`cable_core::ParticlePool`], parallel over cables with rayon and
//! bitwise deterministic whatever the thread count.
//!
//! # What an engine uses
//!
//! - [`Stepper`] (in [`step`]): the fixed-substep accumulator that runs the
//!   solver over a pool, in the [`Layout`] you choose ([`layout`]: all
//!   bitwise identical), with [`SolverParams`] ([`params`]);
//! - [`mesh`]: tube and ribbon meshes of every cable, in parallel, into
//!   reused GPU-ready buffers; [`frame`]: the parallel-transport frames they
//!   use; [`socket`]: transforms on a cable; [`snapshot`]: lock-free render
//!   hand-off;
//! - [`query`]: ray casts and closest points against the cables' tubes;
//! - [`tension`]: segment tension and breaking; [`between`]: contact
//!   between cables (`SolverParams::cable_collision`);
//! - `ecs` (feature `hecs`, on by default): cables, attachments and targets
//!   as hecs entities; [`bind`]: what it shares with the Bevy plugin
//!   (winch orders, target checks, collider poses, cable creation);
//! - `save` (feature `serde`, on by default): save and restore the pool and
//!   the stepper, bitwise;
//! - [`simd`]: which instruction set the wide kernel runs on (picked at run
//!   time); [`trace`]: profiler spans (feature `tracing`).
//!
//! # Inside
//!
//! The solver kernel (`kernel`: the substep written once, generic over the
//! lane type and the storage; constraints, rods, contact, narrow phase) and
//! the layouts' storage (`layout::aos`, `layout::soa`, `layout::lanes`) are
//! internal; the `internals` feature makes them public for benchmarks that
//! time one stage. Dependencies go one way, file by file: `step` →
//! `layout` → `kernel` → `simd`; the kernel never imports a layout, the
//! stepper or the ECS (which is why [`Stages`] lives in the kernel). The
//! repository's `docs/ARCHITECTURE.md` walks through the rooms, one frame's
//! data flow and how to add a constraint.
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

// Declares a room's inner modules (the contact passes', the lane
// layout's): public with the `internals` feature, for this crate's tests
// of its internals (`tests/internals`), else private; private in
// rustdoc's build too, whose pages are the public API. Defined before the
// modules, so that they can use it.
macro_rules! inner_modules {
    ($($m:ident),*) => {
        $(
            #[cfg(all(feature = "internals", not(doc)))]
            pub mod $m;
            #[cfg(not(all(feature = "internals", not(doc))))]
            mod $m;
        )*
    };
}

pub mod between;
pub mod bind;
#[cfg(feature = "hecs")]
pub mod ecs;
pub mod events;
pub mod frame;
// The solver kernel: public only with the `internals` feature (for the
// benchmarks that time one stage), else internal.
#[cfg(feature = "internals")]
pub mod kernel;
#[cfg(not(feature = "internals"))]
pub(crate) mod kernel;
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
pub use step::{
    MAX_DIRECT_BENDING_RATIO, Stepper, check_direct_bending, direct_bending_ratio, substep,
    substep_cable,
};

/// Re-export so users of the systems can name the view type.
pub use cable_core::CableMut;
