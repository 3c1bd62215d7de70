//! The one solver kernel: the substep written once, generic over the lane
//! type ([`Lane`](crate::kernel::lane::Lane): one cable in `f32`, `N` cables in [`crate::kernel::lane::Fx`])
//! and over the storage it runs on ([`Store`]: the pool's SoA columns, the
//! object-per-particle `Aos` arrays, the `Lanes8` lane groups).
//!
//! Every layout calls [`substep`]; a constraint or contact type added here
//! runs on every layout, and every layout gives bitwise the same positions
//! (the lanes of a wide run perform the scalar run's operations in its
//! order, see [`crate::kernel::lane`]).
//!
//! # Rooms
//!
//! - [`lane`]: the lane types (`f32` for one cable, [`lane::Fx`] for many
//!   in SIMD lanes) and their masks and vectors;
//! - [`stages`]: which stages of a substep run ([`Stages`]);
//! - [`store`]: the block constants ([`Block`], [`Rigid`], [`Soft`]) and the
//!   storage trait every layout implements ([`Store`]);
//! - [`distance`]: the distance constraints (rigid and compliant
//!   projections, the sweeps and their wavefront);
//! - [`rod`]: rods (the direct solver, curvature, tethers);
//! - [`origin`]: lanes far from the origin solved in local coordinates;
//! - [`narrow`]: the narrow phase (point and segment against each shape);
//! - [`contact`]: the contact passes (broad phase and candidates, planes,
//!   other shapes with their side memory, friction);
//! - `substep`: the substep ([`substep()`]) that runs them in order, its
//!   shared inputs and scratch.
//!
//! # Dependency direction
//!
//! The kernel never imports the layouts (`crate::layout`), the stepper or
//! the ECS: they call it. Within the kernel the files import one way only:
//! `substep` → `contact`, `rod`, `distance`, `origin` → `store` → `lane`;
//! `contact` → `narrow` → `lane`; `stages` and `lane` import no other room
//! of the kernel (the lane types use [`crate::simd`], the instruction-set
//! dispatch, which imports nothing of the crate). The re-exports below are
//! for the layouts; the kernel's own files import from the file that
//! defines an item, never through this module.

pub mod contact;
pub mod distance;
pub mod lane;
pub mod narrow;
pub mod origin;
pub mod rod;
pub mod stages;
pub mod store;
mod substep;

pub use stages::Stages;
pub use store::{Block, Rigid, Soft, Store, span_linked, span_rest};
pub use substep::{
    Scratch, Shared, advance_cable, advance_cable_with, begin_frame, end_frame, substep,
};
