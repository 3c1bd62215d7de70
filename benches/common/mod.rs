//! Shared set-up of the criterion benches (`mod common;` in each).

use std::time::Duration;

use cable::systems::{Layout, Stages};
use cable::workload::Workload;
use criterion::{BenchmarkId, Criterion, Throughput};

/// Workload shapes every per-system bench runs: (cables, segments).
pub const SHAPES: [(usize, u32); 3] = [(1_000, 32), (256, 128), (8, 4_096)];

/// A modest configuration: the machine is shared.
pub fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

/// Benchmarks one substep doing `stages`, for every layout and shape, with
/// throughput in segment-iterations.
pub fn bench_stages(c: &mut Criterion, name: &str, stages: Stages) {
    let mut group = c.benchmark_group(name);
    for (cables, segments) in SHAPES {
        let w = Workload {
            cables,
            segments,
            iterations: 8,
            substeps: 1,
            frame_substeps: 1,
            ..Workload::default()
        };
        group.throughput(Throughput::Elements(w.segment_iterations_per_substep()));
        for layout in Layout::ALL {
            let (mut pool, mut stepper) = w.prepare(layout).expect("valid workload");
            let id = BenchmarkId::new(layout.name(), format!("{cables}x{segments}"));
            group.bench_function(id, |b| {
                b.iter(|| stepper.run_stages(&mut pool, 1, stages));
            });
        }
    }
    group.finish();
}
