//! Sleeping (issue 12): a frame of 2,000 resting cables (the contact
//! scene: 2,000 × 32 draped onto a plane and 20 spheres) once they have
//! fallen asleep, against the same settled cables kept awake.
//!
//! `cargo bench --bench sleep`

use cable::core::{CableParams, ParticlePool};
use cable::systems::{Layout, Stepper};
use cable::workload::{BenchScene, Workload};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

/// The settled contact scene with every cable asleep, its stepper, and the
/// same pool with sleeping turned off (every cable awake, same positions).
fn settled() -> (ParticlePool, ParticlePool, Stepper) {
    let w = Workload {
        cables: 2_000,
        segments: 32,
        scene: BenchScene::Contact,
        frame_substeps: 1,
        ..Workload::default()
    };
    let (mut pool, mut stepper) = w.prepare(Layout::Lanes8).expect("valid workload");
    let sleepy = CableParams {
        sleep_speed: 0.05,
        sleep_delay: 0.5,
        ..CableParams::default()
    };
    let handles: Vec<_> = pool.handles().collect();
    for &h in &handles {
        pool.set_params(h, sleepy).expect("valid params");
    }
    let frame = stepper.params().substep;
    for _ in 0..60 * 60 {
        if pool.sleeping_count() == handles.len() {
            break;
        }
        stepper.advance(&mut pool, frame).expect("valid pool");
    }
    assert_eq!(
        pool.sleeping_count(),
        handles.len(),
        "the contact scene did not settle in 60 s"
    );
    let mut awake = pool.clone();
    for &h in &handles {
        awake
            .set_params(h, CableParams::default())
            .expect("valid params");
    }
    (pool, awake, stepper)
}

fn sleep(c: &mut Criterion) {
    let (mut asleep, mut awake, stepper) = settled();
    let frame = stepper.params().substep;
    let mut group = c.benchmark_group("sleep/contact-2000x32");
    let mut st = stepper.clone();
    group.bench_function("awake", |b| {
        b.iter(|| st.advance(&mut awake, frame).expect("valid pool"));
    });
    let mut st = stepper;
    group.bench_function("asleep", |b| {
        b.iter(|| st.advance(&mut asleep, frame).expect("valid pool"));
    });
    group.finish();
    assert_eq!(asleep.sleeping_count(), 2_000, "a cable woke while timed");
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! { name = benches; config = config(); targets = sleep }
criterion_main!(benches);
