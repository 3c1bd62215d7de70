//! `cable run --svg/--ascii` and `cable demo --svg` through the binary:
//! exit codes, nothing written on a bad scene, well-formed output.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

/// A file named `name` in `dir`, a test's own temporary folder (removed
/// when the test ends).
fn tmp(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn cable(args: &[&str]) -> Output {
    Command::new(common::cable_bin())
        .args(args)
        .output()
        .expect("run cable")
}

const SCENE: &str = r#"{"cables": [
  {"start": [0, 0, 0], "end": [4, 0, 0], "length": 5, "segments": 16},
  {"start": [5, 0, 0], "end": [8, 0, 0], "segments": 8, "attach_end": false}
]}"#;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn run_svg_writes_an_animation_of_the_run() {
    let dir = tempdir();
    let scene = tmp(&dir, "ok.json");
    std::fs::write(&scene, SCENE).unwrap();
    let svg = tmp(&dir, "ok.svg");
    let o = cable(&[
        "run",
        scene.to_str().unwrap(),
        "--seconds",
        "0.5",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let cables: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("cable"))
        .collect();
    assert_eq!(cables.len(), 2);
    // 30 frames of 1/60 s and the initial state.
    let anim = cables[0]
        .children()
        .find(|n| n.has_tag_name("animate"))
        .unwrap();
    assert_eq!(anim.attribute("values").unwrap().split(';').count(), 31);

    let still = tmp(&dir, "still.svg");
    let o = cable(&[
        "run",
        scene.to_str().unwrap(),
        "--seconds",
        "0.5",
        "--svg",
        still.to_str().unwrap(),
        "--svg-still",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&still).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    assert!(
        doc.descendants()
            .any(|n| n.attribute("class") == Some("legend"))
    );
    assert!(!text.contains("<animate"));
}

#[test]
fn run_svg_with_a_bad_scene_exits_2_and_writes_nothing() {
    let dir = tempdir();
    let scene = tmp(&dir, "bad.json");
    std::fs::write(
        &scene,
        r#"{"cables": [{"start": [0, 0, 0], "end": [1, 0, 0], "segments": 0}]}"#,
    )
    .unwrap();
    let svg = tmp(&dir, "bad.svg");
    let o = cable(&[
        "run",
        scene.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
        "--ascii",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o).trim(),
        "error: scene.cables[0].segments: must be at least 1, got 0"
    );
    assert!(!svg.exists(), "an SVG was written for a bad scene");
    assert!(o.stdout.is_empty());
}

#[test]
fn run_svg_to_an_unwritable_path_exits_1() {
    let dir = tempdir();
    let scene = tmp(&dir, "ok2.json");
    std::fs::write(&scene, SCENE).unwrap();
    let o = cable(&[
        "run",
        scene.to_str().unwrap(),
        "--svg",
        "/nonexistent-dir/x/out.svg",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with("error: cannot write /nonexistent-dir/x/out.svg"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn run_ascii_off_a_terminal_prints_the_last_frame_only() {
    let dir = tempdir();
    let scene = tmp(&dir, "ok3.json");
    std::fs::write(&scene, SCENE).unwrap();
    let o = cable(&["run", scene.to_str().unwrap(), "--seconds", "1", "--ascii"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(!out.contains('\x1b'), "escape codes written to a pipe");
    assert_eq!(out.matches("view xy").count(), 1, "{out}");
    assert_eq!(out.matches('●').count(), 3, "{out}");
    assert!(out.trim_end().ends_with("threads"), "{out}");
}

#[test]
fn demo_off_a_terminal_prints_one_frame_and_writes_svg() {
    let dir = tempdir();
    let svg = tmp(&dir, "demo.svg");
    let o = cable(&["demo", "--seconds", "0.5", "--svg", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(!out.contains('\x1b'));
    assert_eq!(out.matches("view xy").count(), 1, "{out}");
    let doc_text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&doc_text).unwrap();
    assert_eq!(
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("cable"))
            .count(),
        7
    );
    // The demo's colliders: the sphere the last cable drapes over, and the
    // slab under it.
    let shapes: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("collider"))
        .filter_map(|n| n.attribute("data-shape"))
        .collect();
    assert_eq!(shapes, ["sphere", "box"]);

    let o = cable(&["demo", "--seconds", "0.2", "--no-ascii"]);
    assert!(o.status.success());
    assert!(!String::from_utf8_lossy(&o.stdout).contains("view xy"));

    let o = cable(&["demo", "--svg-still"]);
    assert_eq!(o.status.code(), Some(2), "--svg-still needs --svg");
    let o = cable(&["demo", "--svg", "/nonexistent-dir/d.svg", "--no-ascii"]);
    assert_eq!(o.status.code(), Some(1));
}
