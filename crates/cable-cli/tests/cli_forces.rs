//! `cable run --forces` (spec: `"collider_forces"` in every written frame):
//! a rope draped over a rod gives the rod its weight, what nothing touches
//! gets zero, the output is byte-identical across layouts and thread
//! counts, and without `--out` the flag is a usage error.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{cable_bin, test_dir};
use serde_json::Value;

/// 2 m of rope at 0.3 kg/m dropped over a rod, a ground plane under it, a
/// ball moving past far away, and a second rope lying on the ground.
const SCENE: &str = r#"{ "substep": 0.004166667, "damping": 2, "friction": 0.5,
  "colliders": [
    { "type": "capsule", "a": [0, 1, -1], "b": [0, 1, 1], "radius": 0.05 },
    { "type": "plane", "normal": [0, 1, 0], "offset": 0 },
    { "type": "sphere", "center": [-20, 5, 0], "radius": 0.5, "velocity": [1, 0, 0] }
  ],
  "cables": [
    { "start": [-1, 1.08, 0], "end": [1, 1.08, 0], "segments": 40, "attach_start": false,
      "attach_end": false, "mass_per_length": 0.3, "radius": 0.02 },
    { "start": [3, 0.05, 0], "end": [4, 0.05, 0], "segments": 12, "attach_start": false,
      "attach_end": false, "mass_per_length": 2, "radius": 0.02 }
  ] }"#;

fn run(dir: &Path, name: &str, extra: &[&str]) -> (Output, std::path::PathBuf) {
    let scene = dir.join("scene.json");
    std::fs::write(&scene, SCENE).unwrap();
    let out = dir.join(name);
    let mut args = vec![
        "run".to_string(),
        scene.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let o = Command::new(cable_bin()).args(&args).output().unwrap();
    (o, out)
}

fn force(v: &Value) -> [f64; 3] {
    let a = v.as_array().expect("a force is [fx, fy, fz]");
    assert_eq!(a.len(), 3, "{v}");
    [0, 1, 2].map(|j| a[j].as_f64().expect("a number"))
}

#[test]
fn every_frame_has_a_force_per_collider_and_the_rod_carries_the_rope() {
    let d = test_dir("forces-drape");
    let (o, out) = run(
        &d,
        "out.json",
        &["--seconds", "5", "--forces", "--every", "30"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 10);
    for f in frames {
        let fc = f["collider_forces"].as_array().expect("collider_forces");
        assert_eq!(fc.len(), 3, "one force per collider: {f}");
        // The ball never comes near: exactly zero.
        assert_eq!(force(&fc[2]), [0.0; 3]);
    }
    let last = &frames.last().unwrap()["collider_forces"];
    let (rod, ground) = (force(&last[0]), force(&last[1]));
    let (w_rope, w_lying) = (2.0 * 0.3 * 9.81, 1.0 * 2.0 * 9.81);
    assert!(
        (-rod[1] - w_rope).abs() < 0.02 * w_rope,
        "rod {rod:?}, weight {w_rope}"
    );
    assert!(rod[0].abs() < 0.02 * w_rope && rod[2] == 0.0, "rod {rod:?}");
    assert!(
        (-ground[1] - w_lying).abs() < 0.01 * w_lying,
        "ground {ground:?}"
    );
}

#[test]
fn forces_are_byte_identical_across_layouts_and_threads() {
    let d = test_dir("forces-layouts");
    let mut files = Vec::new();
    for (layout, threads) in [("aos", "1"), ("soa", "2"), ("lanes8", "1"), ("lanes8", "2")] {
        let name = format!("{layout}-{threads}.json");
        let (o, out) = run(
            &d,
            &name,
            &[
                "--seconds",
                "1",
                "--forces",
                "--layout",
                layout,
                "--threads",
                threads,
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        files.push((name, std::fs::read(out).unwrap()));
    }
    for (name, bytes) in &files[1..] {
        assert!(bytes == &files[0].1, "{name} differs from {}", files[0].0);
    }
}

#[test]
fn forces_without_out_is_a_usage_error() {
    let d = test_dir("forces-usage");
    let scene = d.join("scene.json");
    std::fs::write(&scene, SCENE).unwrap();
    let o = Command::new(cable_bin())
        .args([
            "run",
            scene.to_str().unwrap(),
            "--forces",
            "--seconds",
            "0.1",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("--forces") && e.contains("--out"), "{e}");
}

#[test]
fn a_scene_without_colliders_gets_an_empty_list() {
    let d = test_dir("forces-none");
    let scene = d.join("scene.json");
    std::fs::write(
        &scene,
        r#"{ "cables": [ { "start": [0, 0, 0], "end": [1, 0, 0] } ] }"#,
    )
    .unwrap();
    let out = d.join("out.json");
    let o = Command::new(cable_bin())
        .args([
            "run",
            scene.to_str().unwrap(),
            "--forces",
            "--seconds",
            "0.1",
        ])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
    for f in v["frames"].as_array().unwrap() {
        assert_eq!(f["collider_forces"], Value::Array(vec![]), "{f}");
    }
}
