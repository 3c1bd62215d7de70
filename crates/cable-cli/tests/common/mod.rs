//! Helpers shared by the command line's tests: the library's test helpers
//! (one copy, in the repository's `tests/common`), plus the binary's path.
#![allow(dead_code)] // each test binary uses a different subset

#[path = "../../../../tests/common/mod.rs"]
mod shared;
#[allow(unused_imports)] // some test binaries use only `cable_bin`
pub use shared::*;

/// The path of the `cable` binary built for the tests.
pub fn cable_bin() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_BIN_EXE_cable"))
}
