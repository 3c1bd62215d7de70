//! Every scene the repository ships (`scenes/*.json`, the reference
//! systems' own scenes) runs through `cable run` as its guide chapter
//! says, with every output, and gives finite positions.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn every_shipped_scene_runs_through_the_command_line() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut scenes: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the scenes folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    scenes.sort();
    assert!(
        scenes.len() >= 5,
        "one scene per reference system: {scenes:?}"
    );
    let tmp = tempfile::tempdir().expect("a temporary folder");
    for scene in &scenes {
        let (out, svg, obj) = (
            tmp.path().join("out.json"),
            tmp.path().join("run.svg"),
            tmp.path().join("run.obj"),
        );
        let run = Command::new(env!("CARGO_BIN_EXE_cable"))
            .arg("run")
            .arg(scene)
            .args(["--seconds", "2", "--every", "30", "--tension", "--forces"])
            .arg("--out")
            .arg(&out)
            .arg("--svg")
            .arg(&svg)
            .arg("--obj")
            .arg(&obj)
            .output()
            .expect("the cable binary runs");
        assert!(
            run.status.success(),
            "{}: {}",
            scene.display(),
            String::from_utf8_lossy(&run.stderr)
        );
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&out).expect("--out written")).expect("JSON");
        let last = v["frames"]
            .as_array()
            .and_then(|f| f.last())
            .expect("frames");
        for cable in last["cables"].as_array().expect("cables") {
            for p in cable.as_array().expect("particles") {
                for x in p.as_array().expect("a point") {
                    assert!(
                        x.as_f64().is_some_and(f64::is_finite),
                        "{}: {p}",
                        scene.display()
                    );
                }
            }
        }
        assert!(std::fs::metadata(&svg).expect("--svg written").len() > 0);
        assert!(std::fs::metadata(&obj).expect("--obj written").len() > 0);
    }
}
