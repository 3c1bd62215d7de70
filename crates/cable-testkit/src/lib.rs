//! The test kit of the `cable` workspace (issue 39): what more than one
//! test crate needs, written once.
//!
//! - [`Rng`]: the one deterministic pseudo-random generator of the tests,
//!   benches and fuzz targets (SplitMix64), so a case is reproduced from
//!   its seed alone, on any platform.
//! - [`classic`]: the reference oracle of the spec's classic step
//!   (Verlet + Gauss–Seidel distance constraints), written out on plain
//!   arrays in f32 or f64 arithmetic, independently of the solver.
//! - [`euler`]: the explicit-Euler rope the Unity Verlet-rope write-ups
//!   compare Verlet with, and the energy of a Verlet state.
//! - [`catenary_parameter`]: the analytic catenary a hanging chain is
//!   checked against.
//! - [`hash_positions`]: a bitwise fingerprint of a pool's positions.
//! - [`save`]: edits of a saved state's JSON, for hostile-input tests and
//!   the `restore_state` fuzz target.
//!
//! It is a dev-dependency of the test crates (a normal one of the fuzz
//! workspace only): no library crate depends on it, which
//! `tests/lean_library.rs` checks.

mod catenary;
pub mod classic;
pub mod euler;
mod hash;
mod rng;
pub mod save;

pub use catenary::catenary_parameter;
pub use hash::hash_positions;
pub use rng::Rng;
