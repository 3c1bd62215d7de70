//! `cable bench` and `cable run --layout` through the binary.

use std::process::Command;

fn cable(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cable"))
        .args(args)
        .output()
        .expect("the cable binary runs")
}

#[test]
fn bench_json_has_the_spec_keys_and_compares_every_layout() {
    let out = cable(&[
        "bench",
        "--cables",
        "40",
        "--segments",
        "8",
        "--iterations",
        "2",
        "--substeps",
        "3",
        "--threads",
        "2",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let last = text.lines().last().expect("output");
    let v: serde_json::Value = serde_json::from_str(last).expect("JSON on the last line");
    for key in [
        "layout",
        "threads",
        "cables",
        "segments",
        "iterations",
        "substeps",
        "seconds",
        "segment_iterations_per_sec",
        "particle_substeps_per_sec",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {last}");
    }
    assert_eq!(v["cables"], 40);
    assert_eq!(v["threads"], 2);
    let results = v["results"].as_array().expect("results");
    let names: Vec<_> = results
        .iter()
        .map(|r| r["layout"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["aos", "soa", "lanes8"]);
    // The rate is the work over the time.
    let rate = v["segment_iterations_per_sec"].as_f64().expect("number");
    let secs = v["seconds"].as_f64().expect("number");
    assert!((rate * secs - 40.0 * 8.0 * 2.0 * 3.0).abs() < 1e-6 * rate * secs);
    // The top level is the fastest layout.
    let best = results
        .iter()
        .map(|r| r["segment_iterations_per_sec"].as_f64().unwrap_or(0.0))
        .fold(0.0, f64::max);
    assert_eq!(rate, best);
}

#[test]
fn bench_refuses_bad_input_with_one_line_and_exit_2() {
    for (args, want) in [
        (
            &["bench", "--layout", "simd"][..],
            "error: --layout: unknown layout `simd`",
        ),
        (
            &["bench", "--cables", "0"][..],
            "error: --cables: must be at least 1, got 0",
        ),
        (&["bench", "--iterations", "0"][..], "error: --iterations:"),
        (
            &["bench", "--simd", "neon"][..],
            "error: --simd: unknown path `neon`; available: auto, baseline, avx2, avx512",
        ),
        (
            &["bench", "--cables", "100000000", "--segments", "100"][..],
            "error: --cables:",
        ),
    ] {
        let out = cable(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(want), "{args:?}: {err}");
    }
}

#[test]
fn run_gives_byte_identical_out_files_in_every_layout_and_thread_count() {
    let dir = std::env::temp_dir().join(format!("cable-layouts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let scene = dir.join("scene.json");
    std::fs::write(
        &scene,
        r#"{"damping": 0.1, "cables": [
            {"start": [0, 0, 0], "end": [4, 0, 0], "length": 5, "segments": 12, "stiffness": true},
            {"start": [0, 1, 0], "end": [4, 1, 0], "length": 5, "segments": 12},
            {"start": [0, 2, 0], "end": [4, 2, 0], "length": 5, "segments": 12, "compliance": 0.001},
            {"start": [0, 3, 0], "end": [4, 3, 0], "length": 5, "segments": 12, "attach_end": false},
            {"start": [0, 4, 0], "end": [40, 4, 0], "length": 45, "segments": 100},
            {"points": [[0, 5, 0], [1, 5, 0], [3, 5.5, 0]], "attach_end": false}
        ]}"#,
    )
    .expect("write scene");
    let mut outs = Vec::new();
    for layout in ["aos", "soa", "lanes8"] {
        for threads in ["1", "2"] {
            let out = dir.join(format!("{layout}-{threads}.json"));
            let o = cable(&[
                "run",
                scene.to_str().expect("utf-8 path"),
                "--seconds",
                "0.5",
                "--layout",
                layout,
                "--threads",
                threads,
                "--out",
                out.to_str().expect("utf-8 path"),
            ]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            outs.push((layout, threads, std::fs::read(&out).expect("out written")));
        }
    }
    let (_, _, first) = &outs[0];
    assert!(first.len() > 1000);
    for (layout, threads, bytes) in &outs {
        assert!(
            bytes == first,
            "--layout {layout} --threads {threads} differs"
        );
    }
    let bad = cable(&[
        "run",
        scene.to_str().expect("utf-8 path"),
        "--layout",
        "AoS",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}
