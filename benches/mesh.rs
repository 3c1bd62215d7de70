//! Criterion benchmark of the mesh system: tube meshes of 256 hanging cables
//! of 64 segments and 8 sides (149 760 vertices), unsmoothed and with 4 rings
//! per segment, on rayon pools of 1 and 2 threads. Throughput is in vertices.
//!
//! ```sh
//! cargo bench --bench mesh
//! ```

use std::hint::black_box;
use std::time::Duration;

use cable::core::mesh::{MeshBuffers, MeshOptions};
use cable::systems::mesh::build_meshes;
use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
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

    #[inline(never)]
    fn run(&mut self) {
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

criterion_group!(benches, mesh, lookup);
criterion_main!(benches);
