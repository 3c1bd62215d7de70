//! Core data of the `cable` Verlet rope engine: the structure-of-arrays
//! [`ParticlePool`], cable descriptions and parameters, stable generational
//! [`CableHandle`]s, kinematic [`Collider`]s, and the error type.
//!
//! Units are SI throughout: metres, seconds, kilograms (particle masses
//! default to 1, so inverse mass 1/kg; inverse mass 0 pins a particle).
//!
//! # Example
//! ```
//! use cable_core::{CableDesc, ParticlePool};
//! use glam::Vec3;
//!
//! let mut pool = ParticlePool::new();
//! let rope = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 5.0, 20)?)?;
//! assert_eq!(pool.positions(rope)?.len(), 21);
//! # Ok::<(), cable_core::CableError>(())
//! ```
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod bvh;
pub mod cable;
pub mod collider;
pub mod error;
pub mod mesh;
pub mod pool;

pub use bvh::{Aabb, Bvh};
pub use cable::{CableDesc, CableHandle, CableParams, End, MAX_COMPLIANCE, TeleportMode};
pub use collider::{Collider, ColliderHandle, ColliderSet, Shape, WorldCollider, WorldShape};
pub use error::CableError;
pub use pool::{
    CableMut, CableRef, Columns, DEFAULT_PARTICLE_BUDGET, HeldRead, MAX_STATE_COORDINATE,
    NO_ANCHOR, PAR_GRAIN, ParticlePool, ParticleState, Reclaimed, RowConst, SetupMismatch,
    StateHolder, discrete_curvature,
};

/// Largest accepted coordinate magnitude, metres. Beyond it f32 positions
/// lose millimetre precision and squared distances approach overflow.
pub const MAX_COORDINATE: f32 = 1.0e6;

/// Most segments one cable may have.
pub const MAX_SEGMENTS: u32 = 1 << 24;

/// Segments shorter than this (metres) are treated as zero-length: the
/// solver skips them (Flax's `ZeroTolerance`) and `from_points` refuses them.
pub const MIN_SEGMENT_LENGTH: f32 = 1.0e-6;
