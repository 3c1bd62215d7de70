//! Criterion benchmark of the queries (`cable::systems::query`): 10,000
//! cables of 16 segments on a 100 × 100 grid (3 m spans, 0.4 m apart,
//! sagging after half a second), queried by 10,000 rays aimed into the grid
//! from all around it and by 10,000 closest-point probes inside it, on
//! rayon pools of 1 and 2 threads; and the query's per-frame update (the
//! same cables moved: the tree is refitted) and a build from nothing.
//! Throughput is in queries (update and build: in cables).
//!
//! ```sh
//! cargo bench --bench query
//! ```

use std::hint::black_box;
use std::time::Duration;

use cable::systems::query::{CableQuery, ClosestPoint, Ray, RayHit};
use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;

/// Cables per side of the grid.
const SIDE: usize = 100;
/// Grid spacing, metres.
const GAP: f32 = 0.4;
/// Queries per batch.
const QUERIES: usize = 10_000;

/// The scene, its query, and the batches.
struct QueryScene {
    pool: ParticlePool,
    query: CableQuery,
    rays: Vec<Ray>,
    points: Vec<Vec3>,
    hits: Vec<Option<RayHit>>,
    near: Vec<Option<ClosestPoint>>,
}

impl QueryScene {
    fn new() -> Self {
        let mut pool = ParticlePool::new();
        for i in 0..SIDE * SIDE {
            let (y, z) = ((i / SIDE) as f32 * GAP, (i % SIDE) as f32 * GAP);
            let desc = CableDesc::line(Vec3::new(0.0, y, z), Vec3::new(3.0, y, z), 3.3, 16)
                .expect("valid cable");
            pool.add_cable(&desc).expect("within budget");
        }
        let mut stepper = Stepper::new(SolverParams::default()).expect("default parameters");
        stepper.advance(&mut pool, 0.5).expect("finite frame");
        let extent = Vec3::new(3.0, SIDE as f32 * GAP, SIDE as f32 * GAP);
        let centre = extent * 0.5;
        let mut rng = cable_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut rays = Vec::with_capacity(QUERIES);
        let mut points = Vec::with_capacity(QUERIES);
        for _ in 0..QUERIES {
            // From a sphere of 60 m around the grid's centre at a random
            // point inside the grid's box.
            let dir = Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            )
            .normalize_or(Vec3::X);
            let origin = centre + dir * 60.0;
            let target = Vec3::new(rng.unit(), rng.unit(), rng.unit()) * extent;
            rays.push(Ray::new(origin, target - origin, f32::INFINITY).expect("finite ray"));
            points.push(Vec3::new(rng.unit(), rng.unit(), rng.unit()) * extent);
        }
        let query = CableQuery::from_pool(&pool);
        Self {
            pool,
            query,
            rays,
            points,
            hits: Vec::new(),
            near: Vec::new(),
        }
    }

    #[inline(never)]
    fn raycast(&mut self) {
        self.query.raycast_many(&self.rays, &mut self.hits);
        black_box(&self.hits);
    }

    #[inline(never)]
    fn closest(&mut self) {
        self.query
            .closest_points(&self.points, f32::INFINITY, &mut self.near)
            .expect("valid points");
        black_box(&self.near);
    }

    /// The per-frame update: same cables, so the tree is refitted.
    #[inline(never)]
    fn update(&mut self) {
        self.query.update(&self.pool);
        black_box(&self.query);
    }

    /// A query built from nothing (allocations and a full tree build).
    #[inline(never)]
    fn build(&self) {
        black_box(CableQuery::from_pool(&self.pool));
    }
}

fn query(c: &mut Criterion) {
    let mut scene = QueryScene::new();
    scene.raycast();
    let hit = scene.hits.iter().filter(|h| h.is_some()).count();
    eprintln!("query bench: {hit} of {QUERIES} rays hit a cable");
    let mut group = c.benchmark_group("query");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for threads in [1usize, 2] {
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        group.throughput(Throughput::Elements(QUERIES as u64));
        let id = BenchmarkId::new("raycast_10k_rays_10k_cables", format!("{threads}t"));
        group.bench_function(id, |b| workers.install(|| b.iter(|| scene.raycast())));
        let id = BenchmarkId::new("closest_10k_points_10k_cables", format!("{threads}t"));
        group.bench_function(id, |b| workers.install(|| b.iter(|| scene.closest())));
        group.throughput(Throughput::Elements((SIDE * SIDE) as u64));
        let id = BenchmarkId::new("update_10k_cables", format!("{threads}t"));
        group.bench_function(id, |b| workers.install(|| b.iter(|| scene.update())));
        let id = BenchmarkId::new("build_10k_cables", format!("{threads}t"));
        group.bench_function(id, |b| workers.install(|| b.iter(|| scene.build())));
    }
    group.finish();
}

criterion_group!(benches, query);
criterion_main!(benches);
