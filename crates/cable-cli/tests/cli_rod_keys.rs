//! The rod keys of the scene file (`solver`, `tethers`, `pins`,
//! `mass_per_length`, `bend_stiffness`, `reel_speed`, `min_length`,
//! `max_length`, `break_tension`) and `cable run --tension`, against the
//! contract (docs/scene-format.md): each key is accepted on `start`/`end`
//! and on `points` cables and has its effect; each bad value or type exits
//! 2 with one line naming the place, and leaves `--out` as it was.

mod common;

use std::path::Path;
use std::process::Output;

use cable::Scene;
use cable::systems::Solver;
use common::{cable_with_stdin, test_dir};
use glam::Vec3;
use serde::Deserialize;

const G: f32 = 9.81;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OutFile {
    substep: f32,
    frames: Vec<OutFrame>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OutFrame {
    frame: u64,
    time: f64,
    cables: Vec<Vec<[f32; 3]>>,
    #[serde(default)]
    tension: Option<Vec<Vec<f32>>>,
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `cable run - --out FILE ARGS` on `scene`; the file's text. Panics
/// (naming `tag`) unless the run succeeds.
fn run_text(tag: &str, scene: &str, args: &[&str]) -> String {
    let d = test_dir(tag);
    let out = d.join("out.json");
    let mut full = vec!["run", "-", "--out", out.to_str().unwrap()];
    full.extend_from_slice(args);
    let o = cable_with_stdin(&full, scene);
    assert!(o.status.success(), "{tag}: {}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_dir_all(&d).ok();
    text
}

/// As [`run_text`], parsed.
fn run(tag: &str, scene: &str, args: &[&str]) -> OutFile {
    serde_json::from_str(&run_text(tag, scene, args)).unwrap()
}

fn dist(a: [f32; 3], b: [f32; 3]) -> f32 {
    Vec3::from_array(a).distance(Vec3::from_array(b))
}

// ---- every key accepted, with both kinds of cable ----

#[test]
fn every_rod_key_is_read_into_the_library_values_with_start_end_and_points_cables() {
    let text = r#"{"solver": "direct", "cables": [
        {"start": [0, 0, 0], "end": [4, 0, 0], "length": 5, "segments": 10,
         "tethers": false, "pins": [3, 7], "mass_per_length": 0.5, "bend_stiffness": 2.5,
         "reel_speed": -0.25, "min_length": 1, "max_length": 8, "break_tension": 300},
        {"points": [[0, 5, 0], [1, 5, 0], [3, 5, 0]], "attach_end": false,
         "tethers": true, "pins": [1], "mass_per_length": 2, "bend_stiffness": 0.1,
         "reel_speed": 0.5, "min_length": 0.5, "max_length": 3, "break_tension": 1e3},
        {"start": [0, 0, 0], "end": [1, 0, 0]}]}"#;
    let scene = Scene::from_json(text).unwrap();
    assert_eq!(scene.params.solver, Solver::Direct);
    let [a, b, c] = &scene.cables[..] else {
        panic!("three cables expected");
    };
    assert!(!a.params.tethers);
    assert_eq!(a.pins, vec![3, 7]);
    assert_eq!(a.mass_per_length, Some(0.5));
    assert_eq!(a.params.bend_stiffness, 2.5);
    assert_eq!(a.params.reel_speed, -0.25);
    assert_eq!(a.params.min_length, Some(1.0));
    assert_eq!(a.params.max_length, Some(8.0));
    assert_eq!(a.params.break_tension, Some(300.0));
    assert!(b.params.tethers);
    assert_eq!(b.pins, vec![1]);
    assert_eq!(b.mass_per_length, Some(2.0));
    assert_eq!(b.params.bend_stiffness, 0.1);
    assert_eq!(b.params.reel_speed, 0.5);
    assert_eq!(b.params.min_length, Some(0.5));
    assert_eq!(b.params.max_length, Some(3.0));
    assert_eq!(b.params.break_tension, Some(1000.0));
    // The defaults of the contract.
    assert!(c.params.tethers);
    assert!(c.pins.is_empty());
    assert_eq!(c.mass_per_length, None);
    assert_eq!(c.params.bend_stiffness, 0.0);
    assert_eq!(c.params.reel_speed, 0.0);
    assert_eq!(c.params.min_length, None);
    assert_eq!(c.params.max_length, None);
    assert_eq!(c.params.break_tension, None);
    let plain = Scene::from_json(r#"{"cables": [{"start": [0,0,0], "end": [1,0,0]}]}"#).unwrap();
    assert_eq!(plain.params.solver, Solver::GaussSeidel);
    let named = Scene::from_json(
        r#"{"solver": "gauss-seidel", "cables": [{"start": [0,0,0], "end": [1,0,0]}]}"#,
    )
    .unwrap();
    assert_eq!(named.params.solver, Solver::GaussSeidel);
    scene.build_pool().unwrap();
    // And the command line runs it.
    let f = run("every_key", text, &["--seconds", "0.5", "--tension"]);
    assert_eq!(f.frames.len(), 30);
}

#[test]
fn reel_bounds_equal_to_the_initial_length_are_accepted_whatever_the_rounding() {
    // 10 segments of 0.1 m sum to 1.0000001 in f32: a bound of exactly the
    // initial length is still the initial length.
    for segments in [3, 7, 10, 1000] {
        let text = format!(
            r#"{{"cables": [{{"start": [0,0,0], "end": [1,0,0], "length": 1, "segments": {segments},
                "min_length": 1, "max_length": 1}}]}}"#
        );
        let scene = Scene::from_json(&text).unwrap();
        scene.build_pool().unwrap();
        run("reel_bounds", &text, &["--seconds", "0.1"]);
    }
    let points = r#"{"cables": [{"points": [[0,0,0],[0.1,0,0],[0.3,0,0],[0.6,0,0]],
        "min_length": 0.6, "max_length": 0.6}]}"#;
    Scene::from_json(points).unwrap().build_pool().unwrap();
}

#[test]
fn the_scene_format_example_parses() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scene-format.md"),
    )
    .unwrap();
    let start = doc.find("```json\n").unwrap() + "```json\n".len();
    let end = start + doc[start..].find("```").unwrap();
    let scene = Scene::from_json(&doc[start..end]).unwrap();
    assert_eq!(scene.cables.len(), 3);
    assert_eq!(scene.cables[0].pins, vec![16]);
    assert_eq!(scene.cables[1].mass_per_length, Some(0.2));
    assert_eq!(scene.cables[2].params.reel_speed, -0.5);
    scene.build_pool().unwrap();
    for key in [
        "solver",
        "tethers",
        "pins",
        "mass_per_length",
        "bend_stiffness",
        "reel_speed",
        "min_length",
        "max_length",
        "break_tension",
        "--tension",
    ] {
        assert!(doc.contains(&format!("`{key}`")), "{key} is not documented");
    }
}

// ---- effects ----

/// The classic cable step of the spec's reference semantics, written from
/// the spec: attachments, Verlet, then `iterations` in-order sweeps.
struct Classic {
    p: Vec<Vec3>,
    prev: Vec<Vec3>,
    pinned: Vec<Option<Vec3>>,
    rest: f32,
    accel: Vec3,
}

impl Classic {
    fn new(
        start: Vec3,
        end: Vec3,
        length: f32,
        segments: u32,
        attach_end: bool,
        accel: Vec3,
    ) -> Self {
        let p: Vec<Vec3> = cable::CableDesc::line(start, end, length, segments)
            .unwrap()
            .points()
            .to_vec();
        let n = p.len();
        let pinned = (0..n)
            .map(|i| (i == 0 || (attach_end && i == n - 1)).then_some(p[i]))
            .collect();
        Self {
            prev: p.clone(),
            p,
            pinned,
            rest: length / segments as f32,
            accel,
        }
    }

    fn substep(&mut self, h: f32, iterations: u32) {
        for (i, at) in self.pinned.iter().enumerate() {
            if let Some(at) = at {
                self.p[i] = *at;
                self.prev[i] = *at;
            }
        }
        for i in 0..self.p.len() {
            if self.pinned[i].is_none() {
                let v = self.p[i] - self.prev[i];
                self.prev[i] = self.p[i];
                self.p[i] = self.p[i] + v + h * h * self.accel;
            }
        }
        for _ in 0..iterations {
            for i in 0..self.p.len() - 1 {
                let (fa, fb) = (self.pinned[i].is_none(), self.pinned[i + 1].is_none());
                let d = self.p[i + 1] - self.p[i];
                let len = d.length();
                let corr = d * ((len - self.rest) / len);
                match (fa, fb) {
                    (true, true) => {
                        self.p[i] += 0.5 * corr;
                        self.p[i + 1] -= 0.5 * corr;
                    }
                    (true, false) => self.p[i] += corr,
                    (false, true) => self.p[i + 1] -= corr,
                    (false, false) => {}
                }
            }
        }
    }
}

#[test]
fn tethers_false_with_the_classic_settings_is_the_classic_step() {
    let scene = r#"{"gravity": [0.5, -9.81, 0.25], "substep": 0.01, "iterations": 4, "cables": [
        {"start": [0, 0, 0], "end": [2, 0, 0], "length": 3, "segments": 6, "attach_end": false,
         "gravity_scale": 1.5, "force": [1, 0, 0], "tethers": false},
        {"start": [0, 1, 0], "end": [3, 1, 0], "length": 3.5, "segments": 5, "tethers": false}]}"#;
    let g = Vec3::new(0.5, -9.81, 0.25);
    let mut refs = [
        Classic::new(
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            3.0,
            6,
            false,
            g * 1.5 + Vec3::X,
        ),
        Classic::new(Vec3::Y, Vec3::new(3.0, 1.0, 0.0), 3.5, 5, true, g),
    ];
    let f = run(
        "classic",
        scene,
        &["--seconds", "0.3", "--frame-dt", "0.01"],
    );
    let mut done = 0u64;
    for fr in &f.frames {
        let substeps = (fr.time / f64::from(f.substep)).round() as u64;
        while done < substeps {
            for r in &mut refs {
                r.substep(0.01, 4);
            }
            done += 1;
        }
        for (got, want) in fr.cables.iter().zip(&refs) {
            assert_eq!(got.len(), want.p.len());
            for (g, w) in got.iter().zip(&want.p) {
                assert!(
                    Vec3::from_array(*g).distance(*w) < 1e-4,
                    "frame {}: {g:?} vs the classic step's {w}",
                    fr.frame
                );
            }
        }
    }
    assert!(done >= 25, "only {done} substeps compared");
    // The free end has swung away from where it started: a real comparison.
    assert!(refs[0].p[6].distance(Vec3::new(2.0, 0.0, 0.0)) > 0.1);
}

/// A 4 m chain of 64 segments hanging from its top, 2 iterations a substep:
/// the classic sweep lets it stretch.
fn coarse_chain(extra: &str) -> String {
    format!(
        r#"{{"iterations": 2, "damping": 1, {extra} "cables": [{{"start": [0, 0, 0], "end": [0, -4, 0],
            "segments": 64, "attach_end": false"#
    )
}

/// Hanging distance of the coarse chain's free end after 3 s, and its
/// longest segment.
fn coarse_chain_end(tag: &str, scene: &str) -> (f32, f32) {
    let f = run(tag, scene, &["--seconds", "3", "--every", "1000"]);
    let c = &f.frames.last().unwrap().cables[0];
    let longest = c.windows(2).map(|w| dist(w[0], w[1])).fold(0.0, f32::max);
    (dist(c[0], c[64]), longest)
}

#[test]
fn tethers_keep_a_coarsely_solved_hanging_chain_from_stretching() {
    let (stretched, _) = coarse_chain_end(
        "tethers_off",
        &(coarse_chain("") + r#", "tethers": false}]}"#),
    );
    assert!(
        stretched > 4.4,
        "without tethers the chain should stretch: {stretched}"
    );
    let (held, _) = coarse_chain_end("tethers_on", &(coarse_chain("") + "}]}"));
    assert!(held <= 4.0 * 1.01, "tethers on (the default): {held}");
    assert!(held > 3.9, "{held}");
}

#[test]
fn the_direct_solver_keeps_a_chain_inextensible_in_few_iterations() {
    let scene = |solver: &str| {
        coarse_chain(&format!(r#""solver": "{solver}","#))
            .replace("\"iterations\": 2", "\"iterations\": 4")
            + r#", "tethers": false}]}"#
    };
    let (_, gs) = coarse_chain_end("gauss_seidel", &scene("gauss-seidel"));
    assert!(
        gs > 0.0625 * 1.2,
        "gauss-seidel, 4 iterations: longest segment {gs}"
    );
    let (end, direct) = coarse_chain_end("direct", &scene("direct"));
    assert!(
        direct < 0.0625 * 1.01,
        "direct, 4 iterations: longest segment {direct}"
    );
    assert!((end - 4.0).abs() < 0.04, "{end}");
}

#[test]
fn pins_keep_their_particles_where_they_start() {
    let scene = r#"{"cables": [
        {"start": [0, 0, 0], "end": [4, 0, 0], "length": 6, "segments": 8, "pins": [4, 2]},
        {"points": [[0, 3, 0], [1, 3, 0], [2, 3, 0], [3, 3, 0]],
         "attach_start": false, "attach_end": false, "pins": [1]},
        {"start": [0, 0, 0], "end": [4, 0, 0], "length": 6, "segments": 8}]}"#;
    let f = run("pins", scene, &["--seconds", "1"]);
    for fr in &f.frames {
        assert_eq!(fr.cables[0][4], [2.0, 0.0, 0.0], "frame {}", fr.frame);
        assert_eq!(fr.cables[0][2], [1.0, 0.0, 0.0], "frame {}", fr.frame);
        assert_eq!(fr.cables[1][1], [1.0, 3.0, 0.0], "frame {}", fr.frame);
    }
    let last = f.frames.last().unwrap();
    // Everything else moves: the cable sags between its pins, the points
    // cable hangs from its one pin, and without pins the middle falls.
    assert!(last.cables[0][3][1] < -0.1, "{:?}", last.cables[0][3]);
    assert!(last.cables[1][3][1] < 2.9, "{:?}", last.cables[1][3]);
    assert!(last.cables[1][0][1] < 2.9, "{:?}", last.cables[1][0]);
    assert!(last.cables[2][4][1] < -0.5, "{:?}", last.cables[2][4]);
}

/// The tension of a damped chain hanging from its top: each segment holds
/// the weight of the particles below it.
#[test]
fn a_hanging_chain_of_2_kg_per_metre_holds_its_weight_in_the_top_segment() {
    let chain = |mass: &str| {
        format!(
            r#"{{"damping": 2, "cables": [{{"start": [0, 0, 0], "end": [0, -1, 0], "segments": 16,
                "attach_end": false{mass}}}]}}"#
        )
    };
    let f = run(
        "hanging",
        &chain(r#", "mass_per_length": 2"#),
        &["--seconds", "4", "--tension", "--every", "60"],
    );
    let last = f.frames.last().unwrap();
    assert!((last.time - 4.0).abs() < 0.02, "{}", last.time);
    let t = &last.tension.as_ref().unwrap()[0];
    assert_eq!(t.len(), 16);
    // 2 kg/m · 1 m less the top particle's half segment.
    let want = 2.0 * G * (1.0 - 0.5 / 16.0);
    assert!(
        (t[0] - want).abs() < 0.05 * want,
        "top segment {} N, want {want} N",
        t[0]
    );
    // Down the chain each segment holds one particle less.
    for (j, w) in t.windows(2).enumerate() {
        assert!(w[1] < w[0], "segment {j}: {t:?}");
    }
    let bottom = 2.0 * G * 0.5 / 16.0;
    assert!((t[15] - bottom).abs() < 0.05 * bottom + 0.05, "{t:?}");
    // Without mass_per_length every particle weighs 1 kg: 16 below the top.
    let f = run(
        "hanging_1kg",
        &chain(""),
        &["--seconds", "4", "--tension", "--every", "240"],
    );
    let t = &f.frames.last().unwrap().tension.as_ref().unwrap()[0];
    assert!((t[0] - 16.0 * G).abs() < 0.05 * 16.0 * G, "{}", t[0]);
}

#[test]
fn bend_stiffness_holds_a_cantilever_up() {
    // Clamped by particles 0 and 1, the rest free: a rope hangs, a stiff
    // rod stays nearer the horizontal.
    let tip = |ei: f32| {
        let scene = format!(
            r#"{{"iterations": 64, "damping": 2, "cables": [{{"start": [0, 0, 0], "end": [1, 0, 0],
                "segments": 16, "attach_end": false, "pins": [1], "mass_per_length": 1,
                "bend_stiffness": {ei}}}]}}"#
        );
        let f = run("cantilever", &scene, &["--seconds", "3", "--every", "1000"]);
        f.frames.last().unwrap().cables[0][16]
    };
    let rope = tip(0.0);
    let rod = tip(10.0);
    assert!(rope[1] < -0.8, "a rope's tip hangs: {rope:?}");
    assert!(
        rod[1] > rope[1] + 0.2,
        "EI 10 N·m²: tip {rod:?}, rope's {rope:?}"
    );
}

#[test]
fn break_tension_breaks_an_overloaded_segment_and_the_rest_falls() {
    let chain = |limit: &str| {
        format!(
            r#"{{"cables": [{{"start": [0, 0, 0], "end": [0, -2, 0], "segments": 8,
                "attach_end": false, "break_tension": {limit}}}]}}"#
        )
    };
    // 8 free particles of 1 kg: the top segment holds 78 N.
    let f = run("break", &chain("50"), &["--seconds", "1", "--tension"]);
    let last = f.frames.last().unwrap();
    let t = &last.tension.as_ref().unwrap()[0];
    assert_eq!(t.len(), 8);
    assert_eq!(t[0], 0.0, "the top segment broke: {t:?}");
    assert_eq!(
        last.cables[0].len(),
        9,
        "a broken cable keeps its particles"
    );
    assert!(
        last.cables[0][8][1] < -5.0,
        "the rest falls freely: {:?}",
        last.cables[0][8]
    );
    assert_eq!(last.cables[0][0], [0.0, 0.0, 0.0]);
    // Strong enough: it holds.
    let f = run("unbroken", &chain("1000"), &["--seconds", "1", "--tension"]);
    let last = f.frames.last().unwrap();
    let t = &last.tension.as_ref().unwrap()[0];
    assert!((t[0] - 8.0 * G).abs() < 0.05 * 8.0 * G, "{t:?}");
    assert!(last.cables[0][8][1] > -2.1, "{:?}", last.cables[0][8]);
}

/// The winch of the contract: `reel_speed` changes the rest length at the
/// start, adding or removing particles, within `min_length`..`max_length`.
#[test]
fn reel_speed_pays_out_and_reels_in_within_the_bounds() {
    let scene = |speed: f32, bound: &str| {
        format!(
            r#"{{"damping": 2, "cables": [{{"start": [0, 0, 0], "end": [0, -1, 0], "segments": 8,
                "attach_end": false, "reel_speed": {speed}, {bound}}}]}}"#
        )
    };
    let length = |c: &[[f32; 3]]| c.windows(2).map(|w| dist(w[0], w[1])).sum::<f32>();
    // Out at 0.5 m/s for 3 s, up to 1.5 m.
    let f = run(
        "reel_out",
        &scene(0.5, r#""max_length": 1.5"#),
        &["--seconds", "3"],
    );
    let last = &f.frames.last().unwrap().cables[0];
    assert!(last.len() > 9, "particles were added: {}", last.len());
    assert!((length(last) - 1.5).abs() < 0.05 * 1.5, "{}", length(last));
    // In at 0.5 m/s for 3 s, down to 0.5 m.
    let f = run(
        "reel_in",
        &scene(-0.5, r#""min_length": 0.5"#),
        &["--seconds", "3"],
    );
    let last = &f.frames.last().unwrap().cables[0];
    assert!(last.len() < 9, "particles were removed: {}", last.len());
    assert!((length(last) - 0.5).abs() < 0.05 * 0.5, "{}", length(last));
}

/// The winch's limits of the contract: `reel_accel` ramps the speed (the
/// rest length follows ½·a·t² at first), `reel_force` holds a load heavier
/// than it instead of reeling it in.
#[test]
fn reel_accel_ramps_and_reel_force_holds() {
    let scene = |extra: &str| {
        format!(
            r#"{{"damping": 2, "substep": 0.004166667, "cables": [{{"start": [0, 0, 0], "end": [0, -1, 0],
                "segments": 20, "attach_end": false, "mass_per_length": 2, "reel_speed": -0.5,
                "min_length": 0.2, {extra}}}]}}"#
        )
    };
    let length = |c: &[[f32; 3]]| c.windows(2).map(|w| dist(w[0], w[1])).sum::<f32>();
    // 0.5 s of ramping at 1 m/s²: 0.125 m in, the speed then 0.5 m/s.
    let f = run(
        "reel_accel",
        &scene(r#""reel_accel": 1"#),
        &["--seconds", "0.5"],
    );
    let l = length(&f.frames.last().unwrap().cables[0]);
    assert!((l - 0.875).abs() < 0.01, "ramped to {l} m");
    // The load (19.1 N) over a 17 N limit, below its slipping point
    // (20.4 N): held at 1 m.
    let f = run(
        "reel_force",
        &scene(r#""reel_force": 17"#),
        &["--seconds", "1"],
    );
    let l = length(&f.frames.last().unwrap().cables[0]);
    assert!((l - 1.0).abs() < 0.01, "held at {l} m");
    // A 100 N limit reels it in at 0.5 m/s.
    let f = run(
        "reel_force_in",
        &scene(r#""reel_force": 100"#),
        &["--seconds", "1"],
    );
    let l = length(&f.frames.last().unwrap().cables[0]);
    assert!((l - 0.5).abs() < 0.02, "reeled in to {l} m");
}

// ---- --tension ----

#[test]
fn tension_frames_hold_one_array_per_cable_with_one_entry_per_segment() {
    let scene = r#"{"substep": 0.01, "cables": [
        {"start": [0, 0, 0], "end": [4, 0, 0], "length": 5, "segments": 8},
        {"points": [[0, 5, 0], [1, 5, 0], [3, 5, 0]], "attach_end": false, "mass_per_length": 0.5}]}"#;
    let text = run_text(
        "tension_shape",
        scene,
        &["--seconds", "0.5", "--every", "7", "--tension"],
    );
    // The spec's shape, key for key: frame, time, cables, tension.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 5);
    for fr in frames {
        let keys: Vec<&str> = fr.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 4, "{keys:?}");
        for k in ["frame", "time", "cables", "tension"] {
            assert!(keys.contains(&k), "{keys:?}");
        }
    }
    let f: OutFile = serde_json::from_str(&text).unwrap();
    for fr in &f.frames {
        let t = fr.tension.as_ref().unwrap();
        assert_eq!(t.len(), fr.cables.len());
        for (tc, pc) in t.iter().zip(&fr.cables) {
            assert_eq!(tc.len(), pc.len() - 1);
            assert!(tc.iter().all(|x| x.is_finite()));
        }
        // The cable starts straight and shorter than its rest length, so
        // inner segments may push at first; its attached ends pull.
        assert!(t[0][0] > 0.0 && t[0][7] > 0.0, "{t:?}");
    }
    // Without --tension there is no tension key at all.
    let plain = run_text(
        "tension_absent",
        scene,
        &["--seconds", "0.5", "--every", "7"],
    );
    assert!(!plain.contains("tension"));
}

#[test]
fn tension_changes_no_position_and_is_the_same_on_every_layout_and_thread_count() {
    let scene = r#"{"damping": 0.5, "friction": 0.3, "cables": [
        {"start": [0, 0, 0], "end": [4, 0, 0], "length": 5, "segments": 20, "bend_stiffness": 0.5,
         "pins": [10], "mass_per_length": 0.3},
        {"points": [[0, 3, 0], [1, 3, 0], [2, 3.5, 0], [3, 3, 0]], "attach_end": false,
         "break_tension": 20}],
        "colliders": [{"type": "sphere", "center": [1, -1.2, 0], "radius": 0.6}]}"#;
    let base = run_text(
        "det_base",
        scene,
        &["--seconds", "2", "--tension", "--threads", "1"],
    );
    for args in [
        ["--threads", "2", "--layout", "lanes8"],
        ["--threads", "2", "--layout", "aos"],
        ["--threads", "1", "--layout", "soa"],
    ] {
        let mut a = vec!["--seconds", "2", "--tension"];
        a.extend_from_slice(&args);
        assert!(run_text("det", scene, &a) == base, "{args:?} differs");
    }
    let with: OutFile = serde_json::from_str(&base).unwrap();
    let without = run("det_plain", scene, &["--seconds", "2"]);
    assert_eq!(with.frames.len(), without.frames.len());
    for (a, b) in with.frames.iter().zip(&without.frames) {
        assert_eq!(a.cables, b.cables, "frame {}", a.frame);
        assert!(b.tension.is_none());
    }
    // The direct solver too.
    let direct = format!(r#"{{"solver": "direct", {}"#, &scene[1..]);
    let one = run_text(
        "det_direct1",
        &direct,
        &["--seconds", "1", "--tension", "--threads", "1"],
    );
    let two = run_text(
        "det_direct2",
        &direct,
        &[
            "--seconds",
            "1",
            "--tension",
            "--threads",
            "2",
            "--layout",
            "soa",
        ],
    );
    assert!(
        one == two,
        "the direct solver's output depends on threads or layout"
    );
}

#[test]
fn tension_without_out_is_a_usage_error_naming_the_flag() {
    let o = cable_with_stdin(
        &["run", "-", "--seconds", "0.1", "--tension"],
        r#"{"cables": [{"start": [0,0,0], "end": [1,0,0]}]}"#,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: --tension: "), "{err}");
    assert!(err.contains("--out"), "{err}");
}

// ---- bad values ----

/// (scene, the whole message expected on standard error)
fn bad_scenes() -> Vec<(String, String)> {
    let top = |kv: &str| format!(r#"{{{kv}, "cables": [{{"start": [0,0,0], "end": [4,0,0]}}]}}"#);
    // cables[1], a line of 16 segments (17 particles) 4 m long.
    let line = |kv: &str| {
        format!(
            r#"{{"cables": [{{"start": [0,0,0], "end": [1,0,0]}}, {{"start": [0,0,0], "end": [4,0,0], {kv}}}]}}"#
        )
    };
    // cables[0] through 3 points, 2 m long.
    let pts =
        |kv: &str| format!(r#"{{"cables": [{{"points": [[0,0,0],[1,0,0],[2,0,0]], {kv}}}]}}"#);
    let c1 = "error: scene.cables[1]";
    let mut cases: Vec<(String, String)> = vec![
        (
            top(r#""solver": "jacobi""#),
            r#"error: scene.solver: must be "gauss-seidel" or "direct", got "jacobi""#.into(),
        ),
        (
            top(r#""solver": 1"#),
            r#"error: scene.solver: must be "gauss-seidel" or "direct", got 1"#.into(),
        ),
        (
            top(r#""solver": ["direct"]"#),
            r#"error: scene.solver: must be "gauss-seidel" or "direct", got an array"#.into(),
        ),
        (
            top(r#""solver": "Direct""#),
            r#"error: scene.solver: must be "gauss-seidel" or "direct", got "Direct""#.into(),
        ),
    ];
    let cable_cases: [(&str, &str); 37] = [
        (r#""tethers": 1"#, "tethers: must be true or false, got 1"),
        (
            r#""tethers": "yes""#,
            r#"tethers: must be true or false, got "yes""#,
        ),
        (
            r#""tethers": {}"#,
            "tethers: must be true or false, got an object",
        ),
        (
            r#""pins": [1, 2, 40]"#,
            "pins[2]: must be less than the number of particles (17), got 40",
        ),
        (
            r#""pins": [17]"#,
            "pins[0]: must be less than the number of particles (17), got 17",
        ),
        (
            r#""pins": [0, 4294967296]"#,
            "pins[1]: must be less than the number of particles (17), got 4294967296",
        ),
        (
            r#""pins": [99999999999999999999]"#,
            "pins[0]: must be less than the number of particles (17), got 1e20",
        ),
        (
            r#""pins": [1e20]"#,
            "pins[0]: must be less than the number of particles (17), got 1e20",
        ),
        (
            r#""pins": [3, 1.5]"#,
            "pins[1]: must be a whole number (a particle index), got 1.5",
        ),
        (
            r#""pins": [2.0]"#,
            "pins[0]: must be a whole number written without a fraction or exponent, got 2.0",
        ),
        (r#""pins": [-1]"#, "pins[0]: must be at least 0, got -1"),
        (r#""pins": [-0.5]"#, "pins[0]: must be at least 0, got -0.5"),
        (
            r#""pins": [null]"#,
            "pins[0]: must be a particle index (a whole number), got null",
        ),
        (
            r#""pins": ["3"]"#,
            r#"pins[0]: must be a particle index (a whole number), got "3""#,
        ),
        (
            r#""pins": [[3]]"#,
            "pins[0]: must be a particle index (a whole number), got an array",
        ),
        (
            r#""pins": 3"#,
            "pins: must be an array of particle indices, got 3",
        ),
        (
            r#""pins": {"i": 3}"#,
            "pins: must be an array of particle indices, got an object",
        ),
        (
            r#""mass_per_length": 0"#,
            "mass_per_length: must be greater than 0 and at most 1e6, got 0",
        ),
        (
            r#""mass_per_length": -2"#,
            "mass_per_length: must be greater than 0 and at most 1e6, got -2",
        ),
        (
            r#""mass_per_length": "heavy""#,
            r#"mass_per_length: must be a number, got "heavy""#,
        ),
        (
            r#""mass_per_length": 1e31"#,
            "mass_per_length: must be a finite number of magnitude at most 1e30, got 10000000000000000000000000000000",
        ),
        (
            r#""bend_stiffness": -1"#,
            "bend_stiffness: must be between 0 and 1e12, got -1",
        ),
        (
            r#""bend_stiffness": true"#,
            "bend_stiffness: must be a number, got true",
        ),
        (
            r#""reel_speed": 1e5"#,
            "reel_speed: must lie within ±1e4, got 100000",
        ),
        (
            r#""reel_speed": -20000"#,
            "reel_speed: must lie within ±1e4, got -20000",
        ),
        (
            r#""reel_speed": [1]"#,
            "reel_speed: must be a number, got an array",
        ),
        (
            r#""min_length": 0"#,
            "min_length: must be greater than 0 and at most 1e7, got 0",
        ),
        (
            r#""min_length": -1"#,
            "min_length: must be greater than 0 and at most 1e7, got -1",
        ),
        (
            r#""min_length": 5"#,
            "min_length: must be at most the cable's initial length (4), got 5",
        ),
        (
            r#""max_length": 3"#,
            "max_length: must be at least the cable's initial length (4), got 3",
        ),
        (
            r#""max_length": 1e8"#,
            "max_length: must be greater than 0 and at most 1e7, got 1e8",
        ),
        (
            r#""min_length": 2, "max_length": 1.5"#,
            "min_length: must be at most max_length, got 2",
        ),
        (
            r#""max_length": null, "min_length": "1""#,
            r#"min_length: must be a number, got "1""#,
        ),
        (
            r#""break_tension": 0"#,
            "break_tension: must be greater than 0, got 0",
        ),
        (
            r#""break_tension": -5"#,
            "break_tension: must be greater than 0, got -5",
        ),
        (
            r#""break_tension": "x""#,
            r#"break_tension: must be a number, got "x""#,
        ),
        (
            r#""break_tension": 1e31"#,
            "break_tension: must be a finite number of magnitude at most 1e30, got 10000000000000000000000000000000",
        ),
    ];
    for (kv, msg) in cable_cases {
        cases.push((line(kv), format!("{c1}.{msg}")));
    }
    // The same keys on a points cable: the place and the particle count are its own.
    for (kv, msg) in [
        (
            r#""pins": [0, 3]"#,
            "pins[1]: must be less than the number of particles (3), got 3",
        ),
        (
            r#""max_length": 1.5"#,
            "max_length: must be at least the cable's initial length (2), got 1.5",
        ),
        (
            r#""min_length": 2.5"#,
            "min_length: must be at most the cable's initial length (2), got 2.5",
        ),
        (r#""tethers": 0"#, "tethers: must be true or false, got 0"),
        (
            r#""mass_per_length": -1"#,
            "mass_per_length: must be greater than 0 and at most 1e6, got -1",
        ),
        (
            r#""reel_speed": 1, "reel_accel": 0"#,
            "reel_accel: must be greater than 0 and at most 1e6, got 0",
        ),
        (
            r#""reel_speed": 1, "reel_accel": 2e6"#,
            "reel_accel: must be greater than 0 and at most 1e6, got 2000000",
        ),
        (
            r#""reel_accel": "fast""#,
            r#"reel_accel: must be a number, got "fast""#,
        ),
        (
            r#""reel_force": -5"#,
            "reel_force: must be greater than 0 and at most 1e12, got -5",
        ),
        (
            r#""reel_force": [1]"#,
            "reel_force: must be a number, got an array",
        ),
        (
            r#""reel_end": "middle""#,
            r#"reel_end: must be "start" or "end", got "middle""#,
        ),
        (
            r#""reel_end": 1"#,
            r#"reel_end: must be "start" or "end", got 1"#,
        ),
    ] {
        cases.push((pts(kv), format!("error: scene.cables[0].{msg}")));
    }
    cases
}

#[test]
fn every_bad_rod_value_exits_2_with_one_line_naming_the_place_and_leaves_out_alone() {
    let d = test_dir("bad_rod");
    let out = d.join("out.json");
    for (i, (scene, want)) in bad_scenes().iter().enumerate() {
        std::fs::write(&out, "keep me").unwrap();
        let o = cable_with_stdin(
            &[
                "run",
                "-",
                "--seconds",
                "0.1",
                "--tension",
                "--out",
                out.to_str().unwrap(),
            ],
            scene,
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "case {i} ({scene}): {err}");
        assert_eq!(err.trim_end(), want, "case {i} ({scene})");
        assert_eq!(err.lines().count(), 1, "case {i}");
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "keep me",
            "case {i}: --out touched"
        );
        // The library names the same place.
        let e = Scene::from_json(scene).unwrap_err();
        assert_eq!(format!("error: {e}"), *want, "case {i}");
    }
    assert_eq!(
        std::fs::read_dir(&d).unwrap().count(),
        1,
        "a temporary file was left"
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn huge_pins_arrays_are_refused_without_holding_them() {
    // 3 million entries, the bad one last: refused naming it.
    let mut pins = "0,".repeat(3_000_000);
    pins.push_str("17");
    let scene =
        format!(r#"{{"cables": [{{"start": [0,0,0], "end": [4,0,0], "pins": [{pins}]}}]}}"#);
    let e = Scene::from_json(&scene).unwrap_err();
    assert_eq!(e.place, "scene.cables[0].pins[3000000]");
    // Accepted when every entry is good (duplicates are harmless).
    let scene = scene.replace(",17]", ",16]");
    assert_eq!(
        Scene::from_json(&scene).unwrap().cables[0].pins.len(),
        3_000_001
    );
}

#[test]
fn a_rod_key_given_twice_is_refused() {
    for (scene, place) in [
        (
            r#"{"cables": [{"start": [0,0,0], "end": [1,0,0], "tethers": true, "tethers": false}]}"#,
            "scene.cables[0].tethers",
        ),
        (
            r#"{"solver": "direct", "solver": "direct", "cables": [{"start": [0,0,0], "end": [1,0,0]}]}"#,
            "scene.solver",
        ),
        (
            r#"{"cables": [{"start": [0,0,0], "end": [1,0,0], "pins": [1], "pins": [2]}]}"#,
            "scene.cables[0].pins",
        ),
    ] {
        let e = Scene::from_json(scene).unwrap_err();
        assert!(e.place.starts_with(place), "{e}");
        assert!(e.reason.contains("duplicate"), "{e}");
    }
}

/// Random damage to a scene using every rod key never panics the loader,
/// and a scene it accepts is one the pool accepts too.
#[test]
fn mangled_rod_scenes_never_panic_and_accepted_ones_build() {
    let base = r#"{"solver": "direct", "cables": [
        {"start": [0, 0, 0], "end": [10, 0, 0], "length": 12, "segments": 32, "tethers": false,
         "pins": [3, 16, 30], "mass_per_length": 0.5, "bend_stiffness": 2, "reel_speed": -1,
         "min_length": 1, "max_length": 20, "break_tension": 500},
        {"points": [[0, 5, 0], [1, 5, 0], [3, 5, 0]], "attach_end": false, "pins": [1],
         "max_length": 3, "min_length": 3}]}"#;
    let junk: [&str; 14] = [
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
        "1.5",
        "true",
    ];
    let mut rng = cable_testkit::Rng::new(11);
    for _ in 0..3000 {
        let mut s = base.to_owned();
        for _ in 0..rng.int(1, 4) {
            let at = rng.int(0, s.len() as u64) as usize;
            let end = (at + rng.int(0, 6) as usize).min(s.len());
            s.replace_range(at..end, junk[rng.int(0, junk.len() as u64) as usize]);
        }
        match Scene::from_json(&s) {
            Ok(scene) => {
                if let Err(e) = scene.build_pool() {
                    panic!("accepted but refused by the pool: {e}\n{s}");
                }
            }
            Err(e) => assert!(e.place.starts_with("scene"), "{e}"),
        }
    }
}

/// JSON has no number for a NaN: a tension that is not finite must never
/// reach `--out` as `null`. Either the run succeeds with finite tensions,
/// or it exits 1 naming the cable and writes nothing. (With the library at
/// e8e7b59 a density of 1e30 kg/m made tension NaN; densities now stop at 1e6.)
#[test]
fn a_non_finite_tension_is_never_written() {
    let scene = r#"{"cables": [{"start": [0, 0, 0], "end": [0, -1e6, 0], "length": 1e7,
        "segments": 2, "attach_end": false, "mass_per_length": 1e6}]}"#;
    let d = test_dir("nan_tension");
    let out = d.join("out.json");
    let o = cable_with_stdin(
        &[
            "run",
            "-",
            "--seconds",
            "2",
            "--tension",
            "--out",
            out.to_str().unwrap(),
        ],
        scene,
    );
    let err = stderr(&o);
    match o.status.code() {
        Some(0) => {
            let f: OutFile = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
            for fr in &f.frames {
                assert!(
                    fr.tension.as_ref().unwrap()[0]
                        .iter()
                        .all(|t| t.is_finite())
                );
            }
        }
        Some(1) => {
            assert!(
                err.starts_with("error: scene.cables[0]: the tension"),
                "{err}"
            );
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(!out.exists(), "--out written for a failed run");
        }
        other => panic!("exit {other:?}: {err}"),
    }
    std::fs::remove_dir_all(&d).ok();
}
