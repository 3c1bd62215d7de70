//! Issue 12 through the binary: `cable run --save FILE --save-at S` and
//! `--restore FILE`. Saved at 2 s, restored and run to 5 s, a run writes
//! byte for byte the `--out` frames an uninterrupted 5 s run writes after
//! 2 s, on every layout (colliders with friction, attachments, tethers,
//! pins, masses, bending, a winch, breaking cables).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{cable_bin, test_dir};

const SCENE: &str = include_str!("../../../tests/scenes/save_restore.json");

fn cable(args: &[&str]) -> Output {
    Command::new(cable_bin())
        .args(args)
        .output()
        .expect("the cable binary runs")
}

fn ok(args: &[&str]) {
    let o = cable(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Exit 2 with one line naming `want`.
fn usage(args: &[&str], want: &str) {
    let o = cable(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.starts_with("error: ") && err.contains(want),
        "{args:?}: expected {want:?} in {err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

fn setup(tag: &str) -> (PathBuf, String) {
    let dir = test_dir(tag);
    let scene = dir.join("scene.json");
    std::fs::write(&scene, SCENE).expect("write the scene");
    let s = scene.to_str().expect("utf-8").to_owned();
    (dir, s)
}

fn p(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().expect("utf-8").to_owned()
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).expect("the output exists")
}

#[test]
fn issue_12_save_at_2_s_restore_and_run_to_5_s_gives_byte_identical_out() {
    let (dir, scene) = setup("save");
    let common = ["--frame-dt", "0.02", "--threads", "2"];
    // The uninterrupted run: every frame with tensions, and the last frame alone.
    let (full, last) = (p(&dir, "full.json"), p(&dir, "last.json"));
    let mut args = vec![
        "run",
        &scene,
        "--seconds",
        "5",
        "--layout",
        "soa",
        "--tension",
        "--out",
        &full,
    ];
    args.extend(common);
    ok(&args);
    let mut args = vec![
        "run",
        &scene,
        "--seconds",
        "5",
        "--layout",
        "soa",
        "--out",
        &last,
        "--every",
        "1000",
    ];
    args.extend(common);
    ok(&args);
    let full = String::from_utf8(read(&full)).expect("utf-8");
    let tail = &full[full.find("{\"frame\":101,").expect("frame 101")..];
    let head = &full[..full.find("{\"frame\":1,").expect("frame 1")];
    for (first, second) in [
        ("lanes8", "lanes8"),
        ("soa", "soa"),
        ("aos", "aos"),
        ("lanes8", "aos"),
        ("aos", "soa"),
    ] {
        let save = p(&dir, &format!("{first}-{second}.save.json"));
        // 3 s asked, saved at 2 s (frame 100 of 0.02 s).
        let mut args = vec![
            "run",
            &scene,
            "--seconds",
            "3",
            "--layout",
            first,
            "--save",
            &save,
            "--save-at",
            "2",
        ];
        args.extend(common);
        ok(&args);
        let (rest, rest_last) = (p(&dir, "rest.json"), p(&dir, "rest_last.json"));
        let mut args = vec![
            "run",
            &scene,
            "--seconds",
            "5",
            "--layout",
            second,
            "--restore",
            &save,
            "--tension",
            "--out",
            &rest,
        ];
        args.extend(common);
        ok(&args);
        let rest = String::from_utf8(read(&rest)).expect("utf-8");
        assert!(
            rest == format!("{head}{tail}"),
            "{first} -> {second}: the restored frames differ"
        );
        let mut args = vec![
            "run",
            &scene,
            "--seconds",
            "5",
            "--layout",
            second,
            "--restore",
            &save,
            "--out",
            &rest_last,
            "--every",
            "1000",
        ];
        args.extend(common);
        ok(&args);
        assert!(
            read(&rest_last) == read(&last),
            "{first} -> {second}: the last frame differs"
        );
    }
}

#[test]
fn a_run_save_holds_a_library_save_and_saves_at_the_end_by_default() {
    let (dir, scene) = setup("save_lib");
    let save = p(&dir, "end.json");
    ok(&[
        "run",
        &scene,
        "--seconds",
        "0.5",
        "--frame-dt",
        "0.02",
        "--save",
        &save,
    ]);
    let v: serde_json::Value = serde_json::from_slice(&read(&save)).expect("JSON");
    assert_eq!(v["format"], "cable-run-save");
    assert_eq!(v["frame"], 25);
    let text = serde_json::to_vec(&v["simulation"]).expect("JSON");
    let state = cable_systems::save::restore_state(text.as_slice()).expect("a library save");
    // 25 frames of 0.02 s against substeps of 1/60 s (rounded to f32).
    assert_eq!(state.stepper.substeps_run(), 29);
    assert_eq!(state.pool.cable_count(), 19);
    // Restoring at the end runs nothing and writes the same save again.
    let again = p(&dir, "again.json");
    ok(&[
        "run",
        &scene,
        "--seconds",
        "0.5",
        "--frame-dt",
        "0.02",
        "--restore",
        &save,
        "--save",
        &again,
    ]);
    assert!(read(&again) == read(&save));
}

#[test]
fn bad_saves_and_options_exit_2_and_write_nothing() {
    let (dir, scene) = setup("save_bad");
    let save = p(&dir, "s.json");
    ok(&[
        "run",
        &scene,
        "--seconds",
        "1",
        "--frame-dt",
        "0.02",
        "--save",
        &save,
    ]);
    let good = read(&save);
    let out = p(&dir, "out.json");
    std::fs::write(&out, "precious").expect("write");
    let keep = p(&dir, "keep.json");
    std::fs::write(&keep, "also precious").expect("write");
    // A truncated save.
    let cut = p(&dir, "cut.json");
    std::fs::write(&cut, &good[..good.len() / 2]).expect("write");
    usage(
        &[
            "run",
            &scene,
            "--frame-dt",
            "0.02",
            "--restore",
            &cut,
            "--out",
            &out,
            "--save",
            &keep,
        ],
        "--restore",
    );
    // A hand-edited one: a cable's rows moved.
    let mut v: serde_json::Value = serde_json::from_slice(&good).expect("JSON");
    v["simulation"]["pool"]["cables"][2]["first"] = serde_json::json!(5);
    let edited = p(&dir, "edited.json");
    std::fs::write(&edited, serde_json::to_vec(&v).expect("JSON")).expect("write");
    usage(
        &[
            "run",
            &scene,
            "--frame-dt",
            "0.02",
            "--restore",
            &edited,
            "--out",
            &out,
        ],
        "simulation.pool: cables[2].first: is 5",
    );
    usage(
        &["run", &scene, "--restore", &save, "--out", &out],
        "was saved with --frame-dt 0.02",
    );
    usage(
        &[
            "run",
            &scene,
            "--frame-dt",
            "0.02",
            "--seconds",
            "0.5",
            "--restore",
            &save,
        ],
        "--seconds: the restored state is at frame 50",
    );
    usage(
        &[
            "run",
            &scene,
            "--frame-dt",
            "0.02",
            "--restore",
            &p(&dir, "missing.json"),
        ],
        "cannot read",
    );
    usage(
        &["run", &scene, "--frame-dt", "0.02", "--restore", &scene],
        "format",
    );
    usage(
        &[
            "run",
            &scene,
            "--frame-dt",
            "0.02",
            "--restore",
            &save,
            "--save",
            &keep,
            "--save-at",
            "0.5",
        ],
        "--save-at: is before the restored state",
    );
    usage(
        &[
            "run",
            &scene,
            "--seconds",
            "1",
            "--save",
            &keep,
            "--save-at",
            "2",
        ],
        "--save-at: 2 s is after the end of the run",
    );
    usage(
        &["run", &scene, "--save", &keep, "--save-at", "-1"],
        "--save-at: must be a number between 0 and 1e6, got -1",
    );
    usage(&["run", &scene, "--save-at", "1"], "--save");
    usage(&["run", &scene, "--save", &out, "--out", &out], "--save: ");
    // Another scene.
    let other = p(&dir, "other.json");
    std::fs::write(
        &other,
        r#"{"cables": [{"start": [0, 0, 0], "end": [1, 0, 0]}]}"#,
    )
    .expect("write");
    usage(
        &["run", &other, "--frame-dt", "0.02", "--restore", &save],
        "is not a save of this scene: params.iterations: save has 6, scene has 8",
    );
    assert_eq!(read(&out), b"precious");
    assert_eq!(read(&keep), b"also precious");
}

/// Issue 38 N4: a save of another scene with the same cable count and
/// solver parameters is refused (exit 2) naming the first difference, and
/// nothing is written; the save of the scene itself continues it.
#[test]
fn issue_38_n4_a_save_of_another_scene_is_refused_naming_the_difference() {
    let (dir, scene) = setup("save_other_scene");
    let save = p(&dir, "s.json");
    let run = ["--frame-dt", "0.02", "--seconds", "2"];
    ok(&[
        "run",
        &scene,
        "--seconds",
        "1",
        "--frame-dt",
        "0.02",
        "--save",
        &save,
    ]);
    let out = p(&dir, "out.json");
    std::fs::write(&out, "precious").expect("write");
    // Each scene differs from the saved one in one thing only.
    for (from, to, want) in [
        (
            r#""compliance": 0.001"#,
            r#""compliance": 0.002"#,
            "cables[2].params.compliance: save has 0.001, scene has 0.002",
        ),
        (
            r#""pins": [6]"#,
            r#""pins": [5]"#,
            "cables[5].inv_mass[5]: save has 1, scene has 0",
        ),
        (
            r#""gravity_scale": 0.5"#,
            r#""gravity_scale": 0.6"#,
            "cables[8].params.gravity_scale: save has 0.5, scene has 0.6",
        ),
        (
            r#""mass_per_length": 0.5"#,
            r#""mass_per_length": 0.25"#,
            "cables[4].mass_per_length: save has 0.5, scene has 0.25",
        ),
        (
            r#""start": [-3, 2, 0.0]"#,
            r#""start": [-3, 2.5, 0.0]"#,
            "cables[0].attach[0]: save has [-3, 2, 0], scene has [-3, 2.5, 0]",
        ),
        (
            r#""radius": 1.0}"#,
            r#""radius": 1.25}"#,
            "colliders[0].shape: save has a sphere of radius 1, scene has a sphere of radius 1.25",
        ),
        (
            r#""offset": -3"#,
            r#""offset": -2.5"#,
            "colliders[2].position: save has [-0, -3, -0], scene has [-0, -2.5, -0]",
        ),
        (
            r#""friction": 0.4"#,
            r#""friction": 0.5"#,
            "params.friction: save has 0.4, scene has 0.5",
        ),
    ] {
        assert!(SCENE.contains(from), "{from}");
        let other = p(&dir, "other.json");
        std::fs::write(&other, SCENE.replacen(from, to, 1)).expect("write");
        let mut a = vec!["run", other.as_str(), "--restore", &save, "--out", &out];
        a.extend(run);
        usage(
            &a,
            &format!("--restore {save}: is not a save of this scene: {want}"),
        );
    }
    assert_eq!(read(&out), b"precious");
    let mut a = vec!["run", scene.as_str(), "--restore", &save, "--out", &out];
    a.extend(run);
    ok(&a);
}

/// Issue 38 N5: a save damaged into values the scene validation refuses
/// is an error naming the place (exit 2), not a run that goes NaN.
#[test]
fn issue_38_n5_a_damaged_save_is_refused_not_run_into_nan() {
    let (dir, scene) = setup("save_damaged");
    let save = p(&dir, "s.json");
    ok(&[
        "run",
        &scene,
        "--seconds",
        "0.5",
        "--frame-dt",
        "0.02",
        "--save",
        &save,
    ]);
    let good: serde_json::Value = serde_json::from_slice(&read(&save)).expect("JSON");
    for (edit, want) in [
        ("/simulation/pool/pos/30/1", "pos[30]: must lie within"),
        (
            "/simulation/pool/rest/40",
            "rest[40]: a segment's rest length",
        ),
        (
            "/simulation/pool/kappa0/100",
            "kappa0[100]: a rest curvature",
        ),
    ] {
        let mut v = good.clone();
        *v.pointer_mut(edit).expect(edit) = serde_json::json!(1e30);
        let bad = p(&dir, "bad.json");
        std::fs::write(&bad, serde_json::to_vec(&v).expect("JSON")).expect("write");
        usage(
            &[
                "run",
                &scene,
                "--seconds",
                "1",
                "--frame-dt",
                "0.02",
                "--restore",
                &bad,
            ],
            want,
        );
    }
    // A frame count its stepper has run past.
    let mut v = good.clone();
    v["frame"] = serde_json::json!(2);
    let bad = p(&dir, "bad.json");
    std::fs::write(&bad, serde_json::to_vec(&v).expect("JSON")).expect("write");
    usage(
        &[
            "run",
            &scene,
            "--seconds",
            "1",
            "--frame-dt",
            "0.02",
            "--restore",
            &bad,
        ],
        "simulation.stepper.substeps_run: 29 substeps",
    );
}

/// Issue 38 N6: a cable in free fall for 3000 s is 44,000 km down, where
/// what rounding drops from a position (the carry) is over a metre (1.98
/// m here): the run saves (exit 0, where it exited 1 with "cannot save:
/// carry[0]"), and the save restores and continues. (A sphere far aside,
/// never touched, keeps the substeps on the path that moves a far cable to
/// local coordinates and back every substep, whose carry this is; in free
/// air a frame of several substeps keeps the cable local for the whole
/// frame, and its carry at the frame's end was 0.49 m.)
#[test]
fn issue_38_n6_a_3000_s_free_fall_saves_and_restores() {
    let dir = test_dir("save_free_fall");
    let scene = p(&dir, "fall.json");
    std::fs::write(
        &scene,
        r#"{"max_substeps": 60, "cables": [{"start": [0, 0, 0], "end": [1, 0, 0], "segments": 2, "attach_start": false, "attach_end": false}],
 "colliders": [{"type": "sphere", "center": [1000, 0, 0], "radius": 1.0}]}"#,
    )
    .expect("write");
    let (save, out) = (p(&dir, "fall_save.json"), p(&dir, "fall_out.json"));
    ok(&[
        "run",
        &scene,
        "--seconds",
        "3000",
        "--frame-dt",
        "1",
        "--save",
        &save,
        "--out",
        &out,
        "--every",
        "1000",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&read(&save)).expect("JSON");
    let pool = &v["simulation"]["pool"];
    assert!(
        pool["pos"][0][1].as_f64().expect("y") < -4.0e7,
        "{}",
        pool["pos"][0]
    );
    let carry = pool["carry"].as_array().expect("carry");
    assert!(
        carry
            .iter()
            .flat_map(|c| c.as_array().expect("xyz"))
            .any(|c| c.as_f64().expect("number").abs() > 1.0),
        "the carry is within a metre: {carry:?}"
    );
    let again = p(&dir, "fall_again.json");
    ok(&[
        "run",
        &scene,
        "--seconds",
        "3010",
        "--frame-dt",
        "1",
        "--restore",
        &save,
        "--save",
        &again,
    ]);
}

/// A hand edit of a save.
type Edit = fn(&mut serde_json::Value);

/// A rope over a sphere that moves 1 km from the origin and a bar that
/// spins, for the checks of a kinematic collider's saved pose.
const MOVING: &str = r#"{"substep": 0.004166667,
 "cables": [{"start": [995, 3, 0], "end": [1005, 3, 0], "length": 12, "segments": 24}],
 "colliders": [
   {"type": "sphere", "center": [1000, 0, 0], "radius": 1.0, "velocity": [7, 0, 0.5]},
   {"type": "box", "center": [1000, -2, 0], "half_extents": [3, 0.2, 0.2],
    "rotation": [0, 0, 0, 1], "angular_velocity": [0, 30, 0]}]}"#;

/// Issue 38, round two's trial: what a save holds that the scene does not
/// fix must still be what a run of the scene makes. A scene that adds a
/// winch does not restore a save without one; a moving collider's pose
/// must be where its motion takes it in the substeps the save ran; a
/// cable that never sleeps is not asleep; and the substeps run must be
/// those of the saved frames (no fewer, no more). Each is exit 2 naming
/// the place; the save as written restores and continues.
#[test]
fn issue_38_a_save_must_be_what_a_run_of_the_scene_makes() {
    let dir = test_dir("save_must_match");
    let scene = p(&dir, "moving.json");
    std::fs::write(&scene, MOVING).expect("write");
    let save = p(&dir, "s.json");
    ok(&["run", &scene, "--seconds", "2", "--save", &save]);
    let good: serde_json::Value = serde_json::from_slice(&read(&save)).expect("JSON");
    let restore = |scene: &str, save: &str| {
        vec![
            "run".to_owned(),
            scene.to_owned(),
            "--seconds".into(),
            "3".into(),
            "--restore".into(),
            save.to_owned(),
        ]
    };
    let usage_of = |args: Vec<String>, want: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        usage(&args, want);
    };
    // The save as written continues (its poses are within the rounding of
    // 480 f32 steps 1 km out).
    let args = restore(&scene, &save);
    ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let collider = "/simulation/pool/colliders/slots";
    let edits: [(&str, Edit, &str); 6] = [
        (
            "moved",
            |v| {
                let x = v
                    .pointer_mut("/simulation/pool/colliders/slots/0/entry/collider/position/0")
                    .expect("sphere x");
                *x = serde_json::json!(x.as_f64().expect("x") + 3.0);
            },
            "is not a save of this scene: colliders[0].position: save has [1017",
        ),
        (
            "turned",
            |v| {
                *v.pointer_mut("/simulation/pool/colliders/slots/1/entry/collider/rotation")
                    .expect("bar rotation") = serde_json::json!([0.0, 0.0, 0.0, 1.0]);
            },
            "is not a save of this scene: colliders[1].rotation",
        ),
        (
            "asleep",
            |v| {
                *v.pointer_mut("/simulation/pool/cables/0/sleep/asleep")
                    .expect("asleep") = serde_json::json!(true);
            },
            "is not a save of this scene: cables[0].sleep.asleep: save has true",
        ),
        (
            "no substeps",
            |v| {
                *v.pointer_mut("/simulation/stepper/substeps_run")
                    .expect("n") = 0.into()
            },
            "simulation.stepper.substeps_run: 0 substeps",
        ),
        (
            "one substep short",
            |v| {
                *v.pointer_mut("/simulation/stepper/substeps_run")
                    .expect("n") = 479.into()
            },
            "simulation.stepper.substeps_run: 479 substeps",
        ),
        (
            "one frame short",
            |v| *v.pointer_mut("/frame").expect("frame") = 119.into(),
            "simulation.stepper.substeps_run: 480 substeps",
        ),
    ];
    assert!(good.pointer(collider).is_some());
    for (what, edit, want) in edits {
        let mut v = good.clone();
        edit(&mut v);
        let bad = p(&dir, "bad.json");
        std::fs::write(&bad, serde_json::to_vec(&v).expect("JSON")).expect("write");
        let o = cable(
            &restore(&scene, &bad)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        assert_eq!(
            o.status.code(),
            Some(2),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        usage_of(restore(&scene, &bad), want);
    }
    // A scene with a winch where the save has none.
    let winch = p(&dir, "winch.json");
    std::fs::write(
        &winch,
        MOVING.replacen(
            r#""segments": 24"#,
            r#""segments": 24, "reel_speed": 0.5"#,
            1,
        ),
    )
    .expect("write");
    usage_of(
        restore(&winch, &save),
        "is not a save of this scene: cables[0].params.reel_speed: save has 0, scene has 0.5",
    );
    // A cable of another segment count or length is named as such.
    for (from, to, want) in [
        (
            r#""segments": 24"#,
            r#""segments": 20"#,
            "cables[0].count: save has 25 particles, scene has 21",
        ),
        (
            r#""length": 12"#,
            r#""length": 13"#,
            "cables[0].rest[0]: save has 0.5, scene has 0.5416667",
        ),
    ] {
        let other = p(&dir, "other.json");
        std::fs::write(&other, MOVING.replacen(from, to, 1)).expect("write");
        usage_of(restore(&other, &save), want);
    }
}

/// Issue 38, round two's trial: a winch that could pay out more particles
/// than a scene may hold is refused up front (exit 2, naming the key),
/// where the run used to stop after minutes at the budget.
#[test]
fn issue_38_a_winch_beyond_the_particle_budget_is_refused_up_front() {
    let dir = test_dir("winch_budget");
    let scene = p(&dir, "winch.json");
    for (cable, key) in [
        (
            r#""segments": 1000, "reel_speed": 9999, "max_length": 9e6"#,
            "scene.cables[0].max_length: a winch paying out to 9000000 m in segments of 0.001 m",
        ),
        (
            r#""segments": 5000000, "reel_speed": 1"#,
            "scene.cables[0].reel_speed: a winch paying out to 4 m",
        ),
    ] {
        let text = format!(
            r#"{{"cables": [{{"start": [0, 0, 0], "end": [0, -1, 0], "attach_end": false, {cable}}}]}}"#
        );
        std::fs::write(&scene, text).expect("write");
        usage(&["run", &scene, "--seconds", "1"], key);
    }
}

/// Issue 38, the second docs-only trial: the clock is replayed exactly
/// (one substep more than the frames run, or the frames of a capped run
/// one short, is refused), a kinematic collider's swept-from pose is its
/// pose, and a winch's cable has the rest length its winch gives it in
/// the substeps run (a particle added or a segment shortened by hand is
/// refused). Genuine saves of each scene restore.
#[test]
fn issue_38_a_save_s_clock_sweep_and_winch_are_those_of_the_run() {
    let dir = test_dir("save_clock_winch");
    let cases: [(&str, &str, &str, Edit, &str); 4] = [
        (
            r#"{"substep": 0.002, "cables": [{"start": [0, 0, 0], "end": [2, 0, 0], "segments": 8, "length": 3}]}"#,
            "0.0131",
            "1.3",
            |v| {
                let n = v
                    .pointer_mut("/simulation/stepper/substeps_run")
                    .expect("n");
                *n = (n.as_u64().expect("n") + 1).into();
            },
            "simulation.stepper.substeps_run: 655 substeps",
        ),
        (
            r#"{"substep": 0.002, "max_substeps": 5, "cables": [{"start": [0, 0, 0], "end": [2, 0, 0], "segments": 8, "length": 3}]}"#,
            "0.05",
            "1.3",
            |v| {
                let f = v.pointer_mut("/frame").expect("frame");
                *f = (f.as_u64().expect("frame") - 1).into();
            },
            "but 25 frames of 0.05 s, which run 125 substeps",
        ),
        (
            r#"{"substep": 0.004, "friction": 1, "cables": [{"start": [-1, 0.55, 0], "end": [1, 0.55, 0], "segments": 20, "attach_start": false, "attach_end": false}],
                "colliders": [{"type": "box", "center": [0, 0, 0], "half_extents": [3, 0.5, 3], "velocity": [0.7, 0, 0], "angular_velocity": [0, 0.8, 0]}]}"#,
            "0.011",
            "0.6",
            |v| {
                let x = v
                    .pointer_mut("/simulation/pool/colliders/slots/0/entry/stepped/0/0")
                    .expect("stepped x");
                *x = serde_json::json!(x.as_f64().expect("x") - 0.05);
            },
            "is not a save of this scene: colliders[0].stepped",
        ),
        (
            r#"{"substep": 0.003, "cables": [{"start": [0, 5, 0], "end": [0, 2, 0], "segments": 12, "attach_end": false, "reel_speed": 1.7, "max_length": 7.5, "mass_per_length": 0.4}]}"#,
            "0.0171",
            "1",
            |v| {
                let r = v.pointer_mut("/simulation/pool/rest/0").expect("rest[0]");
                *r = serde_json::json!(r.as_f64().expect("rest") - 0.05);
            },
            "is not a save of this scene: cables[0].rest: save has a rest length of",
        ),
    ];
    fn strs(a: &[String]) -> Vec<&str> {
        a.iter().map(String::as_str).collect()
    }
    for (k, (text, dt, at, edit, want)) in cases.into_iter().enumerate() {
        let scene = p(&dir, &format!("scene{k}.json"));
        std::fs::write(&scene, text).expect("write");
        let save = p(&dir, &format!("save{k}.json"));
        let run = |extra: &[&str]| {
            let mut a = vec!["run", scene.as_str(), "--seconds", "2", "--frame-dt", dt];
            a.extend_from_slice(extra);
            a.into_iter().map(str::to_owned).collect::<Vec<_>>()
        };
        ok(&strs(&run(&["--save", &save, "--save-at", at])));
        ok(&strs(&run(&["--restore", &save])));
        let mut v: serde_json::Value = serde_json::from_slice(&read(&save)).expect("JSON");
        edit(&mut v);
        let bad = p(&dir, &format!("bad{k}.json"));
        std::fs::write(&bad, serde_json::to_vec(&v).expect("JSON")).expect("write");
        usage(&strs(&run(&["--restore", &bad])), want);
    }
}
