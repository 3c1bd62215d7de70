//! Results do not depend on the number of threads: same bits with 1, 2 and 4.

mod common;

use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use cable_testkit::{Rng, hash_positions};
use common::cable_bin;
use glam::Vec3;

/// A scene big enough that the pool splits it into many parallel pieces,
/// with every feature of the step: pins, stiffness, compliance, damping,
/// wind, mixed segment counts and a removal (compaction).
fn build_scene() -> ParticlePool {
    let mut rng = Rng::new(42);
    let mut pool = ParticlePool::new();
    let mut handles = Vec::new();
    for i in 0..1500 {
        let start = Vec3::new(i as f32 * 0.1, rng.range(0.0, 5.0), 0.0);
        let end = start
            + Vec3::new(
                rng.range(1.0, 4.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
        let mut desc =
            CableDesc::line(start, end, start.distance(end) * 1.2, rng.int(1, 48) as u32).unwrap();
        desc.attach_end = rng.coin();
        desc.params.stiffness = rng.coin();
        desc.params.compliance = if rng.coin() { 0.0 } else { 1e-4 };
        desc.params.force = Vec3::new(rng.range(0.0, 3.0), 0.0, 0.0);
        handles.push(pool.add_cable(&desc).unwrap());
    }
    for h in handles.iter().step_by(7) {
        pool.remove_cable(*h).unwrap();
    }
    pool
}

fn run_with_threads(threads: usize) -> u64 {
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    workers.install(|| {
        let mut pool = build_scene();
        let mut stepper = Stepper::new(SolverParams {
            damping: 0.5,
            ..SolverParams::default()
        })
        .unwrap();
        for _ in 0..120 {
            stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
        }
        assert!(pool.all_finite());
        hash_positions(&pool)
    })
}

#[test]
fn same_bits_with_1_2_and_4_threads() {
    assert!(
        build_scene().particle_count() > 4 * cable::core::PAR_GRAIN,
        "scene too small to split"
    );
    let one = run_with_threads(1);
    assert_eq!(one, run_with_threads(2), "2 threads differ from 1");
    assert_eq!(one, run_with_threads(4), "4 threads differ from 1");
}

#[test]
fn cli_out_files_are_byte_identical_with_1_and_2_threads() {
    let dir = std::env::temp_dir().join(format!("cable-det-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cables: Vec<String> = (0..400)
        .map(|i| {
            format!(
                r#"{{"start": [{x}, 0, 0], "end": [{x}, 0, 3], "length": 3.5, "segments": 24, "stiffness": {s}, "attach_end": {a}}}"#,
                x = i as f32 * 0.05,
                s = i % 3 == 0,
                a = i % 2 == 0
            )
        })
        .collect();
    let scene = format!(r#"{{"damping": 0.2, "cables": [{}]}}"#, cables.join(","));
    let scene_path = dir.join("scene.json");
    std::fs::write(&scene_path, scene).unwrap();
    let mut outs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.join(format!("out-{threads}.json"));
        let status = std::process::Command::new(cable_bin())
            .args([
                "run",
                scene_path.to_str().unwrap(),
                "--seconds",
                "1",
                "--every",
                "10",
                "--threads",
                threads,
            ])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        outs.push(std::fs::read(&out).unwrap());
    }
    assert!(outs[0].len() > 100_000);
    assert!(outs[0] == outs[1], "--out differs between 1 and 2 threads");
    std::fs::remove_dir_all(&dir).ok();
}
