//! Cost of collisions: one substep of 10,000 cables × 32 segments, without
//! colliders and with 256 colliders of which each cable touches at most one,
//! on the `soa` and `lanes8` layouts (through `Stepper::run_substeps`, the
//! path `Stepper::advance` takes).
//!
//! ```sh
//! cargo bench --bench collide
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use cable::{CableDesc, ParticlePool, SolverParams};
use cable_core::{Aabb, Collider};
use cable_systems::kernel::narrow::segment_contact;
use cable_systems::{Layout, Stepper};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec3};

/// Cables per row (along x) and rows (along z).
const COLS: usize = 100;
const ROWS: usize = 100;
const SEGMENTS: u32 = 32;

/// 10,000 sagging cables on a grid, with or without 256 colliders placed
/// under some of them (255 spheres, capsules and boxes, and a floor plane
/// below them all), settled for one second before measuring.
struct Scenario {
    pool: ParticlePool,
    stepper: Stepper,
}

impl Scenario {
    fn new(colliders: bool, layout: Layout) -> Self {
        let mut pool = ParticlePool::new();
        for i in 0..COLS {
            for j in 0..ROWS {
                let a = Vec3::new(4.0 * i as f32, 0.0, 0.5 * j as f32);
                let b = a + Vec3::new(3.0, 0.0, 0.0);
                let desc = CableDesc::line(a, b, 3.3, SEGMENTS).expect("valid cable");
                pool.add_cable(&desc).expect("within budget");
            }
        }
        if colliders {
            let set = pool.colliders_mut();
            set.add(Collider::plane(Vec3::Y, -5.0).expect("valid"));
            for k in 0..255 {
                // A 15 × 17 grid over the cables' area; each collider sits
                // under the middle of one cable, 0.6 m below its ends, holding it up.
                let (i, j) = (k % 15, k / 15);
                let c = Vec3::new(4.0 * (i * 6 + 3) as f32 + 1.5, -0.6, 0.5 * (j * 6) as f32);
                let shape = match k % 3 {
                    0 => Collider::sphere(c, 0.3),
                    1 => Collider::capsule(c - Vec3::X * 0.3, c + Vec3::X * 0.3, 0.25),
                    _ => Collider::cuboid(c, Vec3::splat(0.25), Quat::from_rotation_y(0.4)),
                };
                set.add(shape.expect("valid"));
            }
        }
        let params = SolverParams {
            friction: 0.5,
            ..SolverParams::default()
        };
        let stepper = Stepper::with_layout(params, layout).expect("valid parameters");
        let mut me = Self { pool, stepper };
        for _ in 0..60 {
            me.run();
        }
        if colliders {
            let touching = me.touching_cables();
            eprintln!("cables touching a collider: {touching} of {}", COLS * ROWS);
            assert!(touching >= 200, "the scenario should have contacts");
        }
        me
    }

    /// Cables with a segment within 1 mm of contact with some collider.
    fn touching_cables(&self) -> usize {
        let set = self.pool.colliders();
        let world = set.prepared();
        let r = 0.05 + 1.0e-3;
        self.pool
            .handles()
            .filter(|&h| {
                self.pool.positions(h).expect("live").windows(2).any(|w| {
                    let mut hit = false;
                    set.query(&Aabb::from_points(w[0], w[1]).expand(r), |k| {
                        hit |= segment_contact(&world[k as usize].shape, w[0], w[1]).1 < r;
                    });
                    hit
                })
            })
            .count()
    }

    #[inline(never)]
    fn run(&mut self) {
        self.stepper.run_substeps(black_box(&mut self.pool), 1);
    }
}

fn collide(c: &mut Criterion) {
    for layout in [Layout::Soa, Layout::Lanes8] {
        collide_on(c, layout);
    }
}

fn collide_on(c: &mut Criterion, layout: Layout) {
    let mut g = c.benchmark_group(format!("substep_10k_cables_32_segments/{layout}"));
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    let mut plain = Scenario::new(false, layout);
    let mut with = Scenario::new(true, layout);
    g.bench_function(BenchmarkId::from_parameter("no_colliders"), |b| {
        b.iter(|| plain.run());
    });
    g.bench_function(BenchmarkId::from_parameter("256_colliders"), |b| {
        b.iter(|| with.run());
    });
    // On a shared machine the load drifts between the two runs above; this
    // one alternates the two scenarios substep by substep, reports the
    // collider case's time, and prints the ratio of the two sums.
    let (mut sum_plain, mut sum_with, mut pairs) = (Duration::ZERO, Duration::ZERO, 0u64);
    g.bench_function(
        BenchmarkId::from_parameter("256_colliders_interleaved"),
        |b| {
            b.iter_custom(|iters| {
                let mut t_with = Duration::ZERO;
                for _ in 0..iters {
                    let t0 = Instant::now();
                    plain.run();
                    let t1 = Instant::now();
                    with.run();
                    sum_plain += t1 - t0;
                    t_with += t1.elapsed();
                }
                sum_with += t_with;
                pairs += iters;
                t_with
            });
        },
    );
    g.finish();
    eprintln!(
        "{layout} interleaved: 256 colliders / no colliders = {:.3} ({:.2} ms / {:.2} ms per substep, mean of {pairs} alternating pairs)",
        sum_with.as_secs_f64() / sum_plain.as_secs_f64(),
        sum_with.as_secs_f64() * 1e3 / pairs.max(1) as f64,
        sum_plain.as_secs_f64() * 1e3 / pairs.max(1) as f64,
    );
}

criterion_group!(benches, collide);
criterion_main!(benches);
