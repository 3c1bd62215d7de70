//! Every exact layout gives bitwise the positions of the plain per-substep
//! scalar solver (`cable_systems::substep`, run substep by substep over the
//! pool), on random scenes and whatever the rayon thread count.

use cable::core::{CableDesc, End, ParticlePool};
use cable::systems::{Layout, SolverParams, Stepper, substep};
use glam::Vec3;

/// xorshift64*: a tiny deterministic generator for scene shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn f(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn chance(&mut self, p: f32) -> bool {
        self.f(0.0, 1.0) < p
    }
}

/// A random scene: mixed segment counts (many shared, so lane groups form,
/// some long enough for the pipelined sweeps), pins, masses, bending,
/// compliance, wind, and a `-0.0` coordinate or two.
fn random_scene(seed: u64) -> (ParticlePool, SolverParams) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut pool = ParticlePool::new();
    let cables = 20 + (rng.next() % 40) as usize;
    for k in 0..cables {
        let segs = rng.pick(&[1u32, 2, 3, 7, 16, 16, 16, 33, 33, 70]);
        let start = Vec3::new(
            rng.f(-5.0, 5.0),
            rng.f(-5.0, 5.0),
            if k % 7 == 0 { -0.0 } else { rng.f(-1.0, 1.0) },
        );
        let end = start + Vec3::new(rng.f(1.0, 8.0), rng.f(-2.0, 2.0), rng.f(-1.0, 1.0));
        let len = start.distance(end) * rng.f(0.8, 1.4);
        let mut desc = CableDesc::line(start, end, len, segs).expect("valid line");
        desc.attach_start = rng.chance(0.7);
        desc.attach_end = rng.chance(0.5);
        desc.params.stiffness = rng.chance(0.3);
        desc.params.compliance = if rng.chance(0.3) {
            rng.f(1.0e-5, 1.0e-2)
        } else {
            0.0
        };
        desc.params.gravity_scale = rng.f(0.5, 1.5);
        if rng.chance(0.3) {
            desc.params.force = Vec3::new(rng.f(-3.0, 3.0), 0.0, rng.f(-3.0, 3.0));
        }
        let h = pool.add_cable(&desc).expect("within budget");
        let n = segs as usize + 1;
        for i in 0..n {
            if rng.chance(0.15) {
                let w = if rng.chance(0.3) {
                    0.0
                } else {
                    rng.f(0.3, 3.0)
                };
                pool.set_inv_mass(h, i, w).expect("valid mass");
            }
        }
    }
    let params = SolverParams {
        gravity: Vec3::new(0.0, -9.81, rng.f(-1.0, 1.0)),
        iterations: 1 + (rng.next() % 9) as u32,
        damping: if rng.chance(0.5) {
            0.0
        } else {
            rng.f(0.0, 2.0)
        },
        ..SolverParams::default()
    };
    (pool, params)
}

/// Scripted changes between frames: move an attachment, detach an end,
/// remove a cable (so the pool compacts).
fn script(pool: &mut ParticlePool, frame: usize) {
    let handles: Vec<_> = pool.handles().collect();
    match frame {
        2 => {
            let h = handles[0];
            pool.set_attachment(h, End::Start, Some(Vec3::new(0.5, 1.0, -0.5)))
                .expect("live");
        }
        3 => pool
            .set_attachment(handles[1], End::End, None)
            .expect("live"),
        4 => pool.remove_cable(handles[2]).expect("live"),
        5 => {
            pool.positions_mut(handles[3]).expect("live")[0].y += 0.25;
            pool.teleport(handles[4], Vec3::new(0.0, -1.0, 0.5))
                .expect("live");
        }
        _ => {}
    }
}

fn bits(pool: &mut ParticlePool) -> Vec<u32> {
    let handles: Vec<_> = pool.handles().collect();
    let mut out = Vec::new();
    for h in handles {
        for p in pool
            .positions(h)
            .expect("live")
            .iter()
            .chain(pool.prev_positions(h).expect("live"))
        {
            out.extend(p.to_array().map(f32::to_bits));
        }
    }
    out
}

const FRAMES: [f32; 8] = [
    1.0 / 60.0,
    1.0 / 60.0,
    1.0 / 30.0,
    1.0 / 30.0,
    0.0,
    1.0 / 20.0,
    1.0 / 60.0,
    1.0 / 45.0,
];

/// The reference: substep by substep with the plain free function.
fn reference(seed: u64) -> Vec<u32> {
    let (mut pool, params) = random_scene(seed);
    let mut stepper = Stepper::with_layout(params, Layout::Soa).expect("valid params");
    for (f, dt) in FRAMES.into_iter().enumerate() {
        script(&mut pool, f);
        // Let a stepper count the substeps of the frame, then run them one by one.
        let mut probe = ParticlePool::new();
        let n = stepper.advance(&mut probe, dt).expect("valid dt");
        for _ in 0..n {
            substep(&mut pool, &params);
        }
    }
    assert!(pool.all_finite());
    bits(&mut pool)
}

fn run(seed: u64, layout: Layout, threads: usize) -> Vec<u32> {
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("threads");
    workers.install(|| {
        let (mut pool, params) = random_scene(seed);
        let mut stepper = Stepper::with_layout(params, layout).expect("valid params");
        for (f, dt) in FRAMES.into_iter().enumerate() {
            script(&mut pool, f);
            stepper.advance(&mut pool, dt).expect("valid dt");
        }
        bits(&mut pool)
    })
}

#[test]
fn every_layout_is_bitwise_the_scalar_solver_on_random_scenes() {
    for seed in 0..12 {
        let want = reference(seed);
        for layout in Layout::ALL {
            for threads in [1, 2, 3] {
                let got = run(seed, layout, threads);
                assert!(
                    got == want,
                    "seed {seed}: layout {layout} with {threads} threads differs from the scalar solver"
                );
            }
        }
    }
}

#[test]
fn lanes8_actually_uses_lane_groups_on_random_scenes() {
    let (mut pool, params) = random_scene(3);
    let mut stepper = Stepper::with_layout(params, Layout::Lanes8).expect("valid params");
    stepper.advance(&mut pool, 1.0 / 60.0).expect("valid dt");
    let lanes = stepper.layout_state().lanes();
    assert!(
        lanes.lane_cables() >= pool.cable_count() / 2,
        "{} of {}",
        lanes.lane_cables(),
        pool.cable_count()
    );
    assert!(lanes.lane_groups() >= 2);
}
