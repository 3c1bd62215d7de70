//! The `cable` command line: `run`, `demo` and `bench`
//! (see `shared/spec/cli-and-scene.md`).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
