//! The `cable` command line against its contract (docs/scene-format.md):
//! exit codes, one-line errors naming the place, the `--out` JSON.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::cable_bin;

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cable-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_scene(scene: &str, extra: &[&str], out: &Path) -> Output {
    let mut child = Command::new(cable_bin())
        .args(["run", "-", "--seconds", "0.5", "--out"])
        .arg(out)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        // A closed pipe is fine: the scene may be rejected before it is read whole.
        let _ = stdin.write_all(scene.as_bytes());
    }
    child.wait_with_output().unwrap()
}

const GOOD_CABLE: &str = r#"{"start": [0, 0, 0], "end": [4, 0, 0]}"#;

/// (scene, place the message must name)
fn bad_scenes() -> Vec<(String, &'static str)> {
    let c = GOOD_CABLE;
    let with = |top: &str| format!(r#"{{{top}, "cables": [{c}]}}"#);
    let cable = |body: &str| format!(r#"{{"cables": [{c}, {{{body}}}]}}"#);
    vec![
        (String::new(), "scene line 1 column 0"),
        ("{".into(), "scene line 1 column 1"),
        (r#"{"cables": [{"start": [0,0,0], "end": [1,0,"#.into(), "scene line 1"),
        ("[]".into(), "scene line 1"),
        ("{}".into(), "scene"),
        (r#"{"cables": []}"#.into(), "scene.cables"),
        (r#"{"cables": 5}"#.into(), "scene.cables"),
        (with(r#""gravty": [0, -9.81, 0]"#), "scene"),
        (with(r#""gravity": [0, -9.81]"#), "scene.gravity"),
        (with(r#""gravity": [0, 1e300, 0]"#), "scene.gravity"),
        (with(r#""gravity": [0, 1e400, 0]"#), "scene.gravity"),
        (with(r#""substep": 0"#), "scene.substep"),
        (with(r#""substep": -0.01"#), "scene.substep"),
        (with(r#""substep": "fast""#), "scene.substep"),
        (with(r#""iterations": 0"#), "scene.iterations"),
        (with(r#""iterations": 1e9"#), "scene.iterations"),
        (with(r#""iterations": 99999999999"#), "scene.iterations"),
        (with(r#""max_substeps": 0"#), "scene.max_substeps"),
        (with(r#""damping": -1"#), "scene.damping"),
        (with(r#""friction": 2"#), "scene.friction"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "segments": 0"#), "scene.cables[1].segments"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "segments": -3"#), "scene.cables[1].segments"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "segments": 2.5"#), "scene.cables[1].segments"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "segments": 4000000000"#), "scene.cables[1].segments"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "length": 0"#), "scene.cables[1].length"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "length": -2"#), "scene.cables[1].length"),
        (cable(r#""start": [1,1,1], "end": [1,1,1]"#), "scene.cables[1].length"),
        (cable(r#""end": [1,0,0]"#), "scene.cables[1].start"),
        (cable(r#""start": [0,0,0]"#), "scene.cables[1].end"),
        (cable(r#""start": [0,0,"x"], "end": [1,0,0]"#), "scene.cables[1].start"),
        (cable(r#""start": [0,0,2e6], "end": [1,0,0]"#), "scene.cables[1].start"),
        (cable(r#""points": [[0,0,0]]"#), "scene.cables[1].points"),
        (cable(r#""points": []"#), "scene.cables[1].points"),
        (cable(r#""points": [[0,0,0],[0,0,0]]"#), "scene.cables[1].points[1]"),
        (cable(r#""points": [[0,0,0],[1,0,0]], "segments": 4"#), "scene.cables[1].segments"),
        (cable(r#""points": [[0,0,0],[1,0,0]], "start": [0,0,0]"#), "scene.cables[1].start"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "colour": "red""#), "scene.cables[1]"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "attach_start": "yes""#), "scene.cables[1].attach_start"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "radius": 0"#), "scene.cables[1].radius"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "sides": 2"#), "scene.cables[1].sides"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "tile": -1"#), "scene.cables[1].tile"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "compliance": -0.5"#), "scene.cables[1].compliance"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "gravity_scale": 1e20"#), "scene.cables[1].gravity_scale"),
        (cable(r#""start": [0,0,0], "end": [1,0,0], "force": [0, null, 0]"#), "scene.cables[1].force"),
        (
            r#"{"cables": [{"start": [0,0,0], "end": [1,0,0], "segments": 10000000}, {"start": [0,0,0], "end": [1,0,0], "segments": 10000000}]}"#.into(),
            "scene.cables[1].segments",
        ),
    ]
}

#[test]
fn every_bad_scene_exits_2_with_one_line_naming_the_place_and_writes_nothing() {
    let dir = temp_dir("bad");
    let cases = bad_scenes();
    assert!(cases.len() >= 20);
    for (i, (scene, place)) in cases.iter().enumerate() {
        let out = dir.join(format!("out-{i}.json"));
        let o = run_scene(scene, &[], &out);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            o.status.code(),
            Some(2),
            "case {i} ({scene}): stderr {stderr}"
        );
        assert_eq!(
            stderr.lines().count(),
            1,
            "case {i}: not one line: {stderr}"
        );
        assert!(
            stderr.starts_with(&format!("error: {place}")),
            "case {i} ({scene}): `{}` should name `{place}`",
            stderr.trim_end()
        );
        assert!(!stderr.contains("panicked"), "case {i} panicked");
        assert!(!out.exists(), "case {i}: --out written for a bad scene");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_usage_exits_2_with_one_line() {
    let dir = temp_dir("usage");
    let scene = dir.join("s.json");
    std::fs::write(&scene, format!(r#"{{"cables": [{GOOD_CABLE}]}}"#)).unwrap();
    let s = scene.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["run"],
        vec!["run", "/nonexistent/scene.json"],
        vec!["run", s, "--seconds", "-1"],
        vec!["run", s, "--seconds", "nan"],
        vec!["run", s, "--seconds", "inf"],
        vec!["run", s, "--frame-dt", "0"],
        vec!["run", s, "--frame-dt", "abc"],
        vec!["run", s, "--threads", "0"],
        vec!["run", s, "--every", "0"],
        vec!["run", s, "--layout", "nonsense"],
        vec!["run", s, "--bogus"],
        vec!["fly"],
    ];
    for args in cases {
        let o = Command::new(cable_bin()).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unwritable_output_exits_1() {
    let o = run_scene(
        &format!(r#"{{"cables": [{GOOD_CABLE}]}}"#),
        &[],
        Path::new("/nonexistent-dir/out.json"),
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: "));
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OutFile {
    substep: f32,
    frames: Vec<OutFrame>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OutFrame {
    frame: u64,
    time: f64,
    cables: Vec<Vec<[f32; 3]>>,
}

#[test]
fn out_file_has_the_spec_shape_every_k_frames_and_always_the_last() {
    let dir = temp_dir("out");
    let out = dir.join("o.json");
    let scene = r#"{"substep": 0.01, "cables": [
        {"start": [0,0,0], "end": [4,0,0], "segments": 8},
        {"points": [[0,5,0],[1,5,0],[3,5,0]], "attach_end": false}]}"#;
    // 0.5 s at the default frame-dt of 1/60: 30 frames; every 7th and the last.
    let o = run_scene(scene, &["--every", "7"], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let f: OutFile = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(f.substep, 0.01);
    let numbers: Vec<u64> = f.frames.iter().map(|fr| fr.frame).collect();
    assert_eq!(numbers, vec![7, 14, 21, 28, 30]);
    for fr in &f.frames {
        assert_eq!(fr.cables.len(), 2);
        assert_eq!(fr.cables[0].len(), 9);
        assert_eq!(fr.cables[1].len(), 3);
        // time = substeps run × substep, and the accumulator keeps it within
        // one substep of frame × frame-dt.
        let substeps = (fr.time / 0.01).round();
        assert!((fr.time - substeps * f64::from(0.01f32)).abs() < 1e-9);
        assert!((fr.time - fr.frame as f64 / 60.0).abs() <= 0.01 + 1e-6);
        // Pinned ends stay at their start.
        assert_eq!(fr.cables[0][0], [0.0, 0.0, 0.0]);
        assert_eq!(fr.cables[0][8], [4.0, 0.0, 0.0]);
        assert_eq!(fr.cables[1][0], [0.0, 5.0, 0.0]);
    }
    // The free end falls.
    assert!(f.frames.last().unwrap().cables[1][2][1] < 5.0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn demo_runs_and_prints_a_picture() {
    let o = Command::new(cable_bin())
        .args(["demo", "--seconds", "1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // Braille lines, pinned ends as ● and the scale line (issue 5's renderer).
    assert!(
        stdout.contains('●')
            && stdout.contains("view xy")
            && stdout
                .chars()
                .any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)),
        "{stdout}"
    );
    assert!(stdout.contains("demo:"));
}

/// Random damage to a valid scene never panics the loader: it gives a
/// scene or an error naming a place.
#[test]
fn mangled_scenes_never_panic() {
    let base = r#"{"gravity": [0, -9.81, 0], "substep": 0.016, "iterations": 8, "cables": [
        {"start": [0, 0, 0], "end": [10, 0, 0], "length": 12, "segments": 32, "stiffness": true},
        {"points": [[0, 5, 0], [1, 5, 0], [3, 5, 0]], "attach_end": false, "compliance": 0.001}]}"#;
    let junk: [&str; 12] = [
        "",
        "-",
        "1e999",
        "null",
        "[",
        "]",
        "\"",
        "0",
        "-1",
        "99999999999999999999",
        "{}",
        ",",
    ];
    let mut rng = cable_testkit::Rng::new(3);
    for _ in 0..3000 {
        let mut s = base.to_owned();
        for _ in 0..rng.int(1, 4) {
            let at = rng.int(0, s.len() as u64) as usize;
            let at = (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
            let end = (at + rng.int(0, 6) as usize).min(s.len());
            let end = (end..=s.len())
                .find(|&i| s.is_char_boundary(i))
                .unwrap_or(s.len());
            s.replace_range(at..end, junk[rng.int(0, junk.len() as u64) as usize]);
        }
        match cable::Scene::from_json(&s) {
            Ok(scene) => assert!(!scene.cables.is_empty()),
            Err(e) => assert!(e.place.starts_with("scene"), "{e}"),
        }
    }
}

/// `--help` is for people at a terminal: no rustdoc markup (intra-doc
/// links such as ``[`Stepper::advance`]``) leaks into it from the
/// argument docs clap reads.
#[test]
fn help_text_has_no_doc_link_markup() {
    for args in [
        &["--help"][..],
        &["demo", "--help"],
        &["run", "--help"],
        &["bench", "--help"],
    ] {
        let out = Command::new(cable_bin()).args(args).output().expect("runs");
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        for bad in [
            "[`",
            "`]",
            "](",
            "crate::",
            "cable_systems::",
            "cable_core::",
        ] {
            assert!(!text.contains(bad), "{args:?} shows `{bad}`:\n{text}");
        }
    }
}
