//! Thread scaling: the cable shape (32 segments, 8 iterations) on
//! explicit rayon pools of 1 and 2 threads, per parallel layout.

use cable::systems::Layout;
use cable::workload::Workload;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

#[allow(dead_code)] // only the configuration is shared here
mod common;

fn threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("threads");
    let w = Workload {
        cables: 4_000,
        segments: 32,
        iterations: 8,
        substeps: 1,
        frame_substeps: 1,
        ..Workload::default()
    };
    group.throughput(Throughput::Elements(w.segment_iterations_per_substep()));
    for layout in [Layout::Soa, Layout::Lanes8] {
        for threads in [1, 2] {
            let workers = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            let (mut pool, mut stepper) = w.prepare(layout).expect("valid workload");
            let id = BenchmarkId::new(layout.name(), threads);
            group.bench_function(id, |b| {
                b.iter(|| workers.install(|| stepper.run_substeps(&mut pool, 1)));
            });
        }
    }
    group.finish();
}

criterion_group! { name = benches; config = common::config(); targets = threads }
criterion_main!(benches);
