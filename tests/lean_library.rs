//! Issue 14, lean library: a game that depends on `cable` (or its crates)
//! compiles none of the command line's crates. The command line lives in
//! `crates/cable-cli`; this pins that no library manifest takes them back.

use std::path::Path;

/// Crates only the command line needs.
const CLI_ONLY: [&str; 5] = ["clap", "indicatif", "ctrlc", "terminal_size", "tempfile"];

/// The dependency names of the `[dependencies]` table of a manifest.
fn normal_dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            names.push(name.to_owned());
        }
    }
    names
}

#[test]
fn library_crates_depend_on_no_command_line_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifests = [
        root.join("Cargo.toml"),
        root.join("crates/cable-core/Cargo.toml"),
        root.join("crates/cable-systems/Cargo.toml"),
        root.join("crates/cable-debug/Cargo.toml"),
    ];
    for m in &manifests {
        let deps = normal_dependencies(m);
        for banned in CLI_ONLY {
            assert!(
                !deps.iter().any(|d| d == banned),
                "{} depends on {banned}: {deps:?}",
                m.display()
            );
        }
    }
    // The parser does see dependencies: the command line's own manifest has them all.
    let cli = normal_dependencies(&root.join("crates/cable-cli/Cargo.toml"));
    for needed in CLI_ONLY {
        assert!(
            cli.iter().any(|d| d == needed),
            "cable-cli lacks {needed}: {cli:?}"
        );
    }
    assert!(
        normal_dependencies(&manifests[0])
            .iter()
            .any(|d| d == "cable-core")
    );
}
