//! Criterion benchmark of the mesh system: tube meshes of 256 hanging cables
//! of 64 segments and 8 sides (149 760 vertices), unsmoothed and with 4 rings
//! per segment, on rayon pools of 1 and 2 threads, every cable meshed anew
//! each time ([`MeshBuffers::invalidate`]: a full rebuild, vertices and
//! indices). Throughput is in vertices.
//!
//! The `frame` group (issue 42) prices a game's frame in the same run, on 2
//! threads: 1,000 cables × 32 segments × 8 sides (the free-air workload of
//! `cable bench`, one substep of 8 iterations per frame, default layout):
//! - `step`: one frame of the solver;
//! - `mesh_moving`: the meshes after a step, every cable moved (a full
//!   rebuild of 297,000 vertices; the step runs between samples, untimed);
//! - `step_and_mesh`: both, what the frame costs;
//! - `mesh_sleeping`: the meshes when every cable is asleep (nothing to
//!   rebuild), and `step_sleeping`: the step then.
//!
//! ```sh
//! cargo bench --bench mesh
//! cargo bench --bench mesh -- frame   # the frame group alone
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use cable::core::mesh::{MeshBuffers, MeshOptions};
use cable::systems::Layout;
use cable::systems::mesh::{MeshStats, build_meshes};
use cable::workload::Workload;
use cable::{CableDesc, CableParams, ParticlePool, SolverParams, Stepper};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;

/// The scene: hanging cables, stepped one second so they are curved.
struct MeshScene {
    pool: ParticlePool,
    mesh: MeshBuffers,
    options: MeshOptions,
}

impl MeshScene {
    fn new(cables: usize, segments: u32, rings_per_segment: u32) -> Self {
        let mut pool = ParticlePool::new();
        for i in 0..cables {
            let z = i as f32 * 0.2;
            let desc = CableDesc::line(
                Vec3::new(0.0, 0.0, z),
                Vec3::new(8.0, 0.0, z),
                10.0,
                segments,
            )
            .expect("valid cable");
            pool.add_cable(&desc).expect("within budget");
        }
        let mut stepper = Stepper::new(SolverParams::default()).expect("default parameters");
        stepper.advance(&mut pool, 1.0).expect("finite frame");
        let options = MeshOptions {
            rings_per_segment,
            ..MeshOptions::default()
        };
        let mut mesh = MeshBuffers::new();
        build_meshes(&pool, &options, &mut mesh).expect("valid options");
        Self {
            pool,
            mesh,
            options,
        }
    }

    /// A full rebuild: forgets what the buffers hold, so every cable is
    /// meshed anew (the pool does not move between builds).
    #[inline(never)]
    fn run(&mut self) {
        self.mesh.invalidate();
        build_meshes(&self.pool, &self.options, &mut self.mesh).expect("valid options");
        black_box(&self.mesh.vertices);
    }
}

fn mesh(c: &mut Criterion) {
    let mut group = c.benchmark_group("mesh");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for rings in [1u32, 4] {
        let mut scene = MeshScene::new(256, 64, rings);
        group.throughput(Throughput::Elements(scene.mesh.vertices.len() as u64));
        for threads in [1usize, 2] {
            let workers = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("thread pool");
            let id = BenchmarkId::new(format!("tube_k{rings}"), format!("{threads}t"));
            group.bench_function(id, |b| workers.install(|| b.iter(|| scene.run())));
        }
    }
    group.finish();
}

/// Looking up every cable's mesh range by handle, 10,000 cables (what an
/// engine does per frame to draw each cable's slice): O(1) per lookup, so
/// the throughput in lookups per second does not fall with the count.
fn lookup(c: &mut Criterion) {
    let mut group = c.benchmark_group("mesh_lookup");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for cables in [1_000usize, 10_000] {
        let scene = MeshScene::new(cables, 4, 1);
        let handles: Vec<_> = scene.pool.handles().collect();
        group.throughput(Throughput::Elements(cables as u64));
        group.bench_function(BenchmarkId::from_parameter(cables), |b| {
            b.iter(|| {
                let mut sum = 0u32;
                for &h in &handles {
                    sum = sum.wrapping_add(scene.mesh.cable(h).map_or(0, |m| m.first_vertex));
                }
                black_box(sum)
            });
        });
    }
    group.finish();
}

/// Step and mesh of one frame, timed in one run (see the file's docs).
/// Times `iters` mesh builds, each after one untimed substep, checking
/// each build's stats with `check`.
fn mesh_after_steps(
    iters: u64,
    stepper: &mut Stepper,
    pool: &mut ParticlePool,
    options: &MeshOptions,
    mesh: &mut MeshBuffers,
    check: impl Fn(MeshStats),
) -> Duration {
    let mut spent = Duration::ZERO;
    for _ in 0..iters {
        stepper.run_substeps(pool, 1);
        let t = Instant::now();
        let stats = build_meshes(pool, options, mesh).expect("fits");
        spent += t.elapsed();
        check(stats);
    }
    spent
}

fn frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("thread pool");
    let w = Workload {
        cables: 1_000,
        segments: 32,
        frame_substeps: 1,
        ..Workload::default()
    };
    let options = MeshOptions::default();
    let (mut pool, mut stepper) = workers
        .install(|| w.prepare(Layout::default()))
        .expect("valid workload");
    let mut mesh = MeshBuffers::new();
    build_meshes(&pool, &options, &mut mesh).expect("fits");
    assert_eq!(mesh.vertices.len(), 1_000 * 33 * 9);
    group.throughput(Throughput::Elements(mesh.vertices.len() as u64));
    group.bench_function("step", |b| {
        workers.install(|| b.iter(|| stepper.run_substeps(&mut pool, 1)));
    });
    group.bench_function("mesh_moving", |b| {
        workers.install(|| {
            b.iter_custom(|iters| {
                mesh_after_steps(iters, &mut stepper, &mut pool, &options, &mut mesh, |s| {
                    assert_eq!(s.rebuilt, 1_000, "every cable moved");
                })
            });
        });
    });
    group.bench_function("step_and_mesh", |b| {
        workers.install(|| {
            b.iter(|| {
                stepper.run_substeps(&mut pool, 1);
                build_meshes(&pool, &options, &mut mesh).expect("fits")
            });
        });
    });
    // Every cable asleep: still enough for any speed, after no delay.
    let handles: Vec<_> = pool.handles().collect();
    for &h in &handles {
        let sleepy = CableParams {
            sleep_speed: 1.0e3,
            sleep_delay: 0.0,
            ..*pool.params(h).expect("live")
        };
        pool.set_params(h, sleepy).expect("valid params");
    }
    workers.install(|| {
        for _ in 0..10 {
            stepper.run_substeps(&mut pool, 1);
        }
    });
    assert_eq!(pool.sleeping_count(), handles.len(), "every cable asleep");
    build_meshes(&pool, &options, &mut mesh).expect("fits");
    group.bench_function("mesh_sleeping", |b| {
        workers.install(|| {
            b.iter_custom(|iters| {
                mesh_after_steps(iters, &mut stepper, &mut pool, &options, &mut mesh, |s| {
                    assert_eq!(s.kept, 1_000, "no cable rebuilt");
                })
            });
        });
    });
    group.bench_function("step_sleeping", |b| {
        workers.install(|| b.iter(|| stepper.run_substeps(&mut pool, 1)));
    });
    group.finish();
}

criterion_group!(benches, mesh, lookup, frame);
criterion_main!(benches);
