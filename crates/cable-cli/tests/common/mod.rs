//! Helpers of the command line's tests only: the binary's path, a scratch
//! directory, a run with standard input. What the workspace's test crates
//! share (the RNG, oracles, hashes) is in `cable-testkit`.
#![allow(dead_code)] // each test binary uses a different subset

/// The path of the `cable` binary built for the tests.
pub fn cable_bin() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_BIN_EXE_cable"))
}

/// A fresh, empty directory for one test, under Cargo's temporary
/// directory for integration tests.
///
/// Unique per call (process id and a counter), so two tests of one binary
/// that pass the same tag never share, or remove, each other's directory.
pub fn test_dir(tag: &str) -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli_{}_{n}_{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create the test directory");
    d
}

/// Runs `cable` with `args` and `input` on standard input (a closed pipe
/// is fine: the reader may stop early), returning its output.
pub fn cable_with_stdin(args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(cable_bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start cable");
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let o = child.wait_with_output().expect("wait for cable");
    writer.join().expect("stdin writer");
    o
}
