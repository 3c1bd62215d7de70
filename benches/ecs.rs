//! ECS overhead: one frame (one substep) of 10,000 cables × 32 segments,
//! stepped through `CableWorld::step` on a hecs `World` versus the same
//! pool stepped directly. Every cable's start follows a moving entity, so
//! the ECS path resolves 10,000 attachments and writes 10,000
//! `CableParticles` back each frame.
//!
//! `cargo bench --bench ecs`

use std::hint::black_box;
use std::time::{Duration, Instant};

use cable::systems::ecs::{
    AttachTarget, CableAttachments, CableParticles, CableSpec, CableWorld, Transform,
};
use cable::{CableDesc, End, ParticlePool, SolverParams, Stepper};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;

const CABLES: usize = 10_000;
const SEGMENTS: u32 = 32;

fn desc(i: usize) -> CableDesc {
    let x = (i % 100) as f32;
    let z = (i / 100) as f32;
    let mut d = CableDesc::line(
        Vec3::new(x, 10.0, z),
        Vec3::new(x + 1.0, 10.0, z),
        1.5,
        SEGMENTS,
    )
    .expect("valid constants");
    d.attach_end = false;
    d
}

/// The ECS scenario: one hand entity per cable, moved every frame.
struct EcsScene {
    world: hecs::World,
    cables: CableWorld,
    hands: Vec<hecs::Entity>,
    frame: u32,
}

impl EcsScene {
    fn new(write_back: bool) -> Self {
        let mut world = hecs::World::new();
        let mut hands = Vec::with_capacity(CABLES);
        for i in 0..CABLES {
            let d = desc(i);
            let hand = world.spawn((Transform::from_translation(d.points()[0]),));
            let attach = CableAttachments {
                start: AttachTarget::Entity {
                    entity: hand,
                    offset: Vec3::ZERO,
                },
                end: AttachTarget::Free,
            };
            if write_back {
                world.spawn((CableSpec::new(d), attach, CableParticles::default()));
            } else {
                world.spawn((CableSpec::new(d), attach));
            }
            hands.push(hand);
        }
        let mut cables =
            CableWorld::new(SolverParams::default()).expect("default parameters are valid");
        cables.step(&mut world, 1.0 / 60.0).expect("finite dt");
        Self {
            world,
            cables,
            hands,
            frame: 0,
        }
    }

    #[inline(never)]
    fn run(&mut self) {
        self.frame += 1;
        let dx = 0.001 * (self.frame % 100) as f32;
        for (i, &hand) in self.hands.iter().enumerate() {
            if let Ok(mut t) = self.world.get::<&mut Transform>(hand) {
                t.translation = desc_start(i) + Vec3::new(dx, 0.0, 0.0);
            }
        }
        self.cables
            .step(&mut self.world, 1.0 / 60.0)
            .expect("finite dt");
        black_box(&self.world);
    }
}

fn desc_start(i: usize) -> Vec3 {
    Vec3::new((i % 100) as f32, 10.0, (i / 100) as f32)
}

/// The same work with the pool API only: targets set on the pool directly.
struct PoolScene {
    pool: ParticlePool,
    stepper: Stepper,
    handles: Vec<cable::CableHandle>,
    frame: u32,
}

impl PoolScene {
    fn new() -> Self {
        let mut pool = ParticlePool::new();
        let handles = (0..CABLES)
            .map(|i| pool.add_cable(&desc(i)).expect("within budget"))
            .collect();
        let mut stepper =
            Stepper::new(SolverParams::default()).expect("default parameters are valid");
        stepper.advance(&mut pool, 1.0 / 60.0).expect("finite dt");
        Self {
            pool,
            stepper,
            handles,
            frame: 0,
        }
    }

    #[inline(never)]
    fn run(&mut self) {
        self.frame += 1;
        let dx = 0.001 * (self.frame % 100) as f32;
        for (i, &h) in self.handles.iter().enumerate() {
            let _ = self.pool.set_attachment(
                h,
                End::Start,
                Some(desc_start(i) + Vec3::new(dx, 0.0, 0.0)),
            );
        }
        self.stepper
            .advance(&mut self.pool, 1.0 / 60.0)
            .expect("finite dt");
        black_box(&self.pool);
    }
}

fn ecs_overhead(c: &mut Criterion) {
    let mut g = c.benchmark_group("ecs_overhead_10k_x_32");
    g.sample_size(20);
    let mut pool = PoolScene::new();
    g.bench_function("pool_only", |b| b.iter(|| pool.run()));
    let mut ecs = EcsScene::new(false);
    g.bench_function("hecs", |b| b.iter(|| ecs.run()));
    let mut ecs_wb = EcsScene::new(true);
    g.bench_function("hecs_with_particles_writeback", |b| b.iter(|| ecs_wb.run()));
    // The load of a shared machine drifts between the runs above: this one
    // alternates the pool-only and the hecs frame and prints the ratio of the sums.
    let (mut sum_pool, mut sum_ecs, mut sum_wb, mut frames) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO, 0u64);
    g.bench_function("hecs_interleaved", |b| {
        b.iter_custom(|iters| {
            let mut t_ecs = Duration::ZERO;
            for _ in 0..iters {
                let t0 = Instant::now();
                pool.run();
                let t1 = Instant::now();
                ecs.run();
                let t2 = Instant::now();
                ecs_wb.run();
                sum_pool += t1 - t0;
                t_ecs += t2 - t1;
                sum_wb += t2.elapsed();
            }
            sum_ecs += t_ecs;
            frames += iters;
            t_ecs
        });
    });
    g.finish();
    let ms = |d: Duration| d.as_secs_f64() * 1e3 / frames.max(1) as f64;
    eprintln!(
        "interleaved over {frames} frames: pool only {:.2} ms, hecs {:.2} ms ({:+.1}%), hecs + write-back {:.2} ms ({:+.1}%)",
        ms(sum_pool),
        ms(sum_ecs),
        (sum_ecs.as_secs_f64() / sum_pool.as_secs_f64() - 1.0) * 100.0,
        ms(sum_wb),
        (sum_wb.as_secs_f64() / sum_pool.as_secs_f64() - 1.0) * 100.0,
    );
}

criterion_group!(benches, ecs_overhead);
criterion_main!(benches);
