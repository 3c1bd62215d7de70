//! The solver's internals, tested one piece at a time: the kernel's
//! stages against textbook steps, the contact passes, the narrow phase,
//! the lane layout's bundles, rows and SIMD paths.
//!
//! These were the crate's unit tests. They live here, against the
//! `internals` feature (which this crate's dev-dependency on itself turns
//! on), so that `cargo test` compiles the crate once rather than twice:
//! the library's test build (`cfg(test)`) was a second full compile of
//! the kernel, about a third of the workspace's test build on 2 cores.

mod contact;
mod frame;
mod kernel;
mod lane;
mod lanes;
mod narrow;
mod simd;
mod soa;
