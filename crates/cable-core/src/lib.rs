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
pub mod groups;
pub mod handle;
pub mod limits;
pub mod mesh;
pub mod pool;

pub use bvh::{Aabb, Bvh};
pub use cable::{
    CableDesc, CableHandle, CableParams, End, MAX_CLAMPED_TURN, MAX_COMPLIANCE, SLIP_FACTOR,
    TeleportMode, Winch, discrete_curvature,
};
pub use collider::{
    Collider, ColliderHandle, ColliderSet, ContactForce, MAX_KINEMATIC_SPEED, Shape, WorldCollider,
    WorldShape,
};
pub use error::CableError;
pub use groups::CollisionGroups;
pub use limits::{MAX_COORDINATE, MAX_SEGMENTS, MIN_SEGMENT_LENGTH};
pub use pool::{
    CableMut, CableRef, Columns, DEFAULT_PARTICLE_BUDGET, HeldRead, MAX_STATE_COORDINATE,
    NO_ANCHOR, PAR_GRAIN, ParticlePool, ParticleState, PoolRows, Reclaimed, RowConst, RowsCable,
    SetupMismatch, StateHolder, StepMark,
};
