//! The `cable` command line: `run`, `demo` and `bench`
//! (see `docs/scene-format.md`).
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
