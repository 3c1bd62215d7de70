//! Issue 3: the scene file's `colliders` and `friction` keys, their
//! validation, and `cable run` using them.

use std::process::Command;

use cable::Scene;

fn err(json: &str) -> (String, String) {
    let e = Scene::from_json(json).expect_err("scene must be refused");
    (e.place, e.reason)
}

const CABLE: &str = r#""cables": [{"start": [0, 0, 0], "end": [4, 0, 0]}]"#;

#[test]
fn spec_example_colliders_parse_and_build() {
    let json = format!(
        r#"{{"friction": 0.5, {CABLE}, "colliders": [
            {{ "type": "sphere",  "center": [5, -3, 0], "radius": 1.0 }},
            {{ "type": "capsule", "a": [0, -6, -1], "b": [0, -6, 1], "radius": 0.5 }},
            {{ "type": "plane",   "normal": [0, 1, 0], "offset": -8.0 }},
            {{ "type": "box",     "center": [8, -5, 0], "half_extents": [1, 1, 1],
               "rotation": [0, 0, 0, 1] }}
        ]}}"#
    );
    let scene = Scene::from_json(&json).expect("valid scene");
    assert_eq!(scene.colliders.len(), 4);
    assert_eq!(scene.params.friction, 0.5);
    let (pool, _) = scene.build_pool().expect("fits");
    assert_eq!(pool.colliders().len(), 4);
    // Plane defaults: the ground y ≥ 0; box rotation defaults to none.
    let json = format!(
        r#"{{{CABLE}, "colliders": [{{"type": "plane"}}, {{"type": "box", "center": [0,0,0], "half_extents": [1,2,3]}}]}}"#
    );
    assert_eq!(Scene::from_json(&json).expect("valid").colliders.len(), 2);
}

#[test]
fn bad_colliders_are_refused_naming_the_place() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"{"type": "sphere", "center": [0,0,0], "radius": 0}"#,
            "scene.colliders[2].radius",
            "greater than 0",
        ),
        (
            r#"{"type": "sphere", "center": [0,0,0], "radiu": 1}"#,
            "scene.colliders[2].radiu",
            "unknown key",
        ),
        (
            r#"{"type": "cylinder", "center": [0,0,0]}"#,
            "scene.colliders[2].type",
            "unknown collider type",
        ),
        (
            r#"{"center": [0,0,0]}"#,
            "scene.colliders[2].type",
            "required",
        ),
        (
            r#"{"type": "sphere", "radius": 1}"#,
            "scene.colliders[2].center",
            "required",
        ),
        (
            r#"{"type": "capsule", "a": [0,0,0], "b": [0,"x",0], "radius": 1}"#,
            "scene.colliders[2].b",
            "invalid type",
        ),
        (
            r#"{"type": "plane", "normal": [0,0,0]}"#,
            "scene.colliders[2].normal",
            "length greater than 0",
        ),
        (
            r#"{"type": "box", "center": [0,0,0], "half_extents": [1,-1,1]}"#,
            "scene.colliders[2].half_extents",
            "greater than 0",
        ),
        (
            r#"{"type": "box", "center": [0,0,0], "half_extents": [1,1,1], "rotation": [0,0,0,2]}"#,
            "scene.colliders[2].rotation",
            "unit quaternion",
        ),
        (
            r#"{"type": "sphere", "center": [0,0,1e7], "radius": 1}"#,
            "scene.colliders[2].center",
            "within",
        ),
        (r#"[1, 2]"#, "scene.colliders[2]", "must be an object"),
    ];
    let ok = r#"{"type": "sphere", "center": [0,0,0], "radius": 1}"#;
    for (bad, place, reason) in cases {
        let json = format!(r#"{{{CABLE}, "colliders": [{ok}, {ok}, {bad}]}}"#);
        let (p, r) = err(&json);
        assert_eq!(&p, place, "for {bad}: {r}");
        assert!(
            r.contains(reason),
            "for {bad}: reason `{r}` lacks `{reason}`"
        );
    }
    let (p, _) = err(&format!(r#"{{"friction": 1.5, {CABLE}}}"#));
    assert_eq!(p, "scene.friction");
}

#[test]
fn cable_run_uses_colliders_and_refuses_bad_ones() {
    let dir = std::env::temp_dir().join(format!("cable-collide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let scene = dir.join("scene.json");
    let out = dir.join("out.json");
    // A free cable dropped onto a ball: with the collider it must stay outside.
    std::fs::write(
        &scene,
        r#"{"friction": 0.5, "cables": [{"start": [-1, 1, 0], "end": [1, 1, 0], "segments": 20,
            "attach_start": false, "attach_end": false}],
            "colliders": [{"type": "sphere", "center": [0, 0, 0], "radius": 0.5}]}"#,
    )
    .expect("write scene");
    let st = Command::new(env!("CARGO_BIN_EXE_cable"))
        .args([
            "run",
            scene.to_str().expect("utf-8"),
            "--seconds",
            "2",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("runs");
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("out written")).expect("json");
    let frames = v["frames"].as_array().expect("frames");
    let last = frames.last().expect("a frame");
    for p in last["cables"][0].as_array().expect("cable") {
        let q: Vec<f64> = p
            .as_array()
            .expect("xyz")
            .iter()
            .map(|c| c.as_f64().expect("num"))
            .collect();
        let d = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
        assert!(d >= 0.55 - 1.0e-3, "particle {q:?} inside the ball");
    }
    std::fs::write(
        &scene,
        r#"{"cables": [{"start": [0, 0, 0], "end": [1, 0, 0]}],
            "colliders": [{"type": "sphere", "center": [0, 0, 0], "radius": -1}]}"#,
    )
    .expect("write scene");
    let st = Command::new(env!("CARGO_BIN_EXE_cable"))
        .args(["run", scene.to_str().expect("utf-8")])
        .output()
        .expect("runs");
    assert_eq!(st.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&st.stderr);
    assert!(
        msg.starts_with("error: scene.colliders[0].radius: "),
        "{msg}"
    );
    assert_eq!(msg.lines().count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
