//! Debug views of a cable simulation without any graphics stack.
//!
//! [`ascii`] draws the cables of a [`cable_core::ParticlePool`] into a
//! character grid, for terminals, CI logs and unit tests.
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod ascii;

pub use ascii::{AsciiOptions, render_ascii};
