//! The winch's payout (issue 42: "paying out 1,000 → 100,000 particles
//! costs time proportional to what is paid out"): a 10 m cable of 1,000
//! segments (1 cm each) pays out K = 1,000, 10,000 and 100,000 particles,
//! in a pool that also holds 1,000 other cables of 32 segments (33,000
//! particles, all in rows after the winch's cable, so a cost proportional
//! to the pool shows). Throughput is in particles paid out: a cost
//! proportional to what is paid out gives the same throughput for every K.
//!
//! - `reel/one_call`: one [`ParticlePool::reel`] of K segments, the
//!   batched payout a fast winch makes in one substep.
//! - `reel/turns_start`, `reel/turns_end`: the winch at the start (or at
//!   the end, `reel_end: End`) turned by [`ParticlePool::turn_winch`],
//!   as the stepper does between substeps, at 100 particles a turn
//!   (60 m/s at 1/60 s): K / 100 turns. The solver's substeps are not
//!   run: this times the winch alone.
//!
//! After each payout the cable is reeled back in to 10 m (not timed):
//! every payout starts from the same cable, in columns that have grown
//! before: no `Vec` reallocation is timed (a payout into full columns,
//! as in a freshly cloned pool, also copies every column of the pool into
//! a larger allocation).
//!
//! ```sh
//! cargo bench --bench reel
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use cable::core::End;
use cable::{CableDesc, CableHandle, ParticlePool};
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use glam::Vec3;

/// Particles paid out per measurement.
const PAYOUTS: [usize; 3] = [1_000, 10_000, 100_000];
/// The winch cable's segment length, metres (10 m / 1,000 segments).
const SEG: f32 = 0.01;
/// The substep of a turn, seconds.
const H: f32 = 1.0 / 60.0;
/// Particles a turn pays out.
const PER_TURN: usize = 100;

/// The winch's cable (first in the pool, its winch at `end`, unbounded
/// above) and 1,000 other cables of 32 segments after it.
fn pool(end: End) -> (ParticlePool, CableHandle) {
    let mut pool = ParticlePool::new();
    // Hanging from its winch's end, the other end free.
    let (top, bottom) = (Vec3::ZERO, Vec3::new(0.0, -10.0, 0.0));
    let (a, b) = match end {
        End::Start => (top, bottom),
        End::End => (bottom, top),
    };
    let mut d = CableDesc::line(a, b, 10.0, 1_000).expect("valid cable");
    d.attach_start = end == End::Start;
    d.attach_end = end == End::End;
    d.params.reel_end = end;
    d.params.max_length = Some(1.0e7);
    let h = pool.add_cable(&d).expect("within budget");
    for k in 0..1_000 {
        let (x, z) = ((k % 40) as f32 * 0.5, (k / 40) as f32 * 0.5 + 1.0);
        let other = CableDesc::line(Vec3::new(x, 0.0, z), Vec3::new(x + 3.0, 0.0, z), 3.2, 32)
            .expect("valid cable");
        pool.add_cable(&other).expect("within budget");
    }
    (pool, h)
}

/// The pool with its winch set to pay out `PER_TURN` particles a turn.
fn turning(end: End) -> (ParticlePool, CableHandle) {
    let (mut pool, h) = pool(end);
    let mut p = *pool.params(h).expect("live");
    p.reel_speed = PER_TURN as f32 * SEG / H;
    pool.set_params(h, p).expect("valid params");
    (pool, h)
}

/// `k / PER_TURN` turns of the winch; the cable's particle count.
fn turn(pool: &mut ParticlePool, h: CableHandle, k: usize) -> usize {
    let mut n = 0;
    for _ in 0..k / PER_TURN {
        n = pool.turn_winch(h, H, 0.0).expect("within budget");
    }
    n
}

/// The cable grew by about `k` particles (the rounding of the turns'
/// lengths may move one split from turn to turn).
fn check_growth(before: usize, after: usize, k: usize) {
    let grew = after - before;
    assert!(grew.abs_diff(k) <= k / 100 + 1, "grew by {grew}, not {k}");
}

/// Times `iters` payouts by `pay` of one pool, each followed (untimed)
/// by one reel-in of what it paid out, so every payout starts from the
/// same cable and finds its columns already grown (no reallocation timed).
fn payouts(
    pool: &mut ParticlePool,
    h: CableHandle,
    iters: u64,
    mut pay: impl FnMut(&mut ParticlePool) -> usize,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let t = Instant::now();
        black_box(pay(pool));
        total += t.elapsed();
        pool.reel(h, 10.0 - length(pool, h)).expect("live");
    }
    total
}

/// The cable's rest length, metres.
fn length(pool: &ParticlePool, h: CableHandle) -> f32 {
    let r = pool.rest_lengths(h).expect("live");
    r[..r.len() - 1].iter().map(|&x| f64::from(x)).sum::<f64>() as f32
}

fn reel(c: &mut Criterion) {
    let mut group = c.benchmark_group("reel");
    // One iteration of the slowest case is long: the same number of
    // iterations in every sample.
    group.sampling_mode(SamplingMode::Flat);
    let (mut pool, h) = pool(End::Start);
    let n0 = pool.particle_count_of(h).expect("live");
    for k in PAYOUTS {
        let pay = |pool: &mut ParticlePool| pool.reel(h, k as f32 * SEG).expect("within budget");
        check_growth(n0, pay(&mut pool), k);
        pool.reel(h, 10.0 - length(&pool, h)).expect("live");
        group.throughput(Throughput::Elements(k as u64));
        group.bench_function(BenchmarkId::new("one_call", k), |b| {
            b.iter_custom(|iters| payouts(&mut pool, h, iters, pay));
        });
    }
    for (name, end) in [("turns_start", End::Start), ("turns_end", End::End)] {
        let (mut pool, h) = turning(end);
        let n0 = pool.particle_count_of(h).expect("live");
        for k in PAYOUTS {
            let pay = |pool: &mut ParticlePool| turn(pool, h, k);
            check_growth(n0, pay(&mut pool), k);
            pool.reel(h, 10.0 - length(&pool, h)).expect("live");
            group.throughput(Throughput::Elements(k as u64));
            group.bench_function(BenchmarkId::new(name, k), |b| {
                b.iter_custom(|iters| payouts(&mut pool, h, iters, pay));
            });
        }
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! { name = benches; config = config(); targets = reel }
criterion_main!(benches);
