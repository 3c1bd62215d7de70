//! Issue 14, lean library: a game that depends on `cable` (or its crates)
//! compiles none of the command line's crates. The command line lives in
//! `crates/cable-cli`; this pins that no library crate takes them back,
//! directly or through another dependency, reading the resolved graph
//! from `cargo metadata` (normal dependencies only: dev and build ones do
//! not reach a game's build). Nor does any library crate, or the command
//! line, take the test kit (`cable-testkit`, a dev-dependency only).

use std::collections::{BTreeSet, HashMap};

use cargo_metadata::{DependencyKind, Metadata, MetadataCommand, Package, PackageId};

/// Crates only the command line needs.
const CLI_ONLY: [&str; 5] = ["clap", "indicatif", "ctrlc", "terminal_size", "tempfile"];

/// Crates only tests need (dev-dependencies of the workspace's crates).
const TEST_ONLY: [&str; 1] = ["cable-testkit"];

/// The library packages a game may depend on.
const LIBRARIES: [&str; 4] = ["cable", "cable-core", "cable-systems", "cable-debug"];

fn metadata() -> Metadata {
    MetadataCommand::new()
        .manifest_path(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .exec()
        .expect("cargo metadata runs")
}

/// Names of every package `root` reaches through normal dependencies.
fn normal_closure(meta: &Metadata, root: &PackageId) -> BTreeSet<String> {
    let resolve = meta.resolve.as_ref().expect("a resolved graph");
    let nodes: HashMap<&PackageId, _> = resolve.nodes.iter().map(|n| (&n.id, n)).collect();
    let packages: HashMap<&PackageId, &Package> =
        meta.packages.iter().map(|p| (&p.id, p)).collect();
    let mut seen = BTreeSet::new();
    let mut names = BTreeSet::new();
    let mut todo = vec![root];
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in &nodes[id].deps {
            let normal = dep
                .dep_kinds
                .iter()
                .any(|k| k.kind == DependencyKind::Normal);
            if normal {
                names.insert(packages[&dep.pkg].name.to_string());
                todo.push(&dep.pkg);
            }
        }
    }
    names
}

fn package<'a>(meta: &'a Metadata, name: &str) -> &'a Package {
    meta.packages
        .iter()
        .find(|p| p.name.as_str() == name)
        .unwrap_or_else(|| panic!("package {name} in the workspace"))
}

#[test]
fn library_crates_depend_on_no_command_line_crate() {
    let meta = metadata();
    for lib in LIBRARIES {
        let deps = normal_closure(&meta, &package(&meta, lib).id);
        for banned in CLI_ONLY {
            assert!(
                !deps.contains(banned),
                "{lib} reaches {banned} through its normal dependencies"
            );
        }
    }
    // The walk does see dependencies: the command line reaches them all,
    // and the facade reaches the core.
    let cli = normal_closure(&meta, &package(&meta, "cable-cli").id);
    for needed in CLI_ONLY {
        assert!(cli.contains(needed), "cable-cli lacks {needed}: {cli:?}");
    }
    assert!(normal_closure(&meta, &package(&meta, "cable").id).contains("cable-core"));
}

#[test]
fn no_library_crate_and_not_the_command_line_depends_on_the_test_kit() {
    let meta = metadata();
    for krate in LIBRARIES.iter().chain(&["cable-cli"]) {
        let deps = normal_closure(&meta, &package(&meta, krate).id);
        for banned in TEST_ONLY {
            assert!(
                !deps.contains(banned),
                "{krate} reaches {banned} through its normal dependencies"
            );
        }
    }
    // The kit is in the workspace, a dev-dependency of the test crates.
    let kit = package(&meta, "cable-testkit");
    assert!(
        kit.publish.as_ref().is_some_and(|p| p.is_empty()),
        "publish = false"
    );
    let facade = package(&meta, "cable");
    assert!(
        facade
            .dependencies
            .iter()
            .any(|d| d.name == "cable-testkit" && d.kind == DependencyKind::Development),
        "the root's tests use the kit"
    );
}
