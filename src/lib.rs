#![doc = include_str!("../README.md")]
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod scene;
mod scene_colliders;
pub mod workload;

pub use cable_core as core;
pub use cable_debug as debug;
pub use cable_systems as systems;

pub use cable_core::{CableDesc, CableError, CableHandle, CableParams, End, ParticlePool};
pub use cable_systems::{SolverParams, Stepper};
pub use glam;
pub use scene::{Scene, SceneError};
