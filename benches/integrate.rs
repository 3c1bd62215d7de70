//! The integrate system alone, per layout and workload shape.

use cable::systems::Stages;
use criterion::{Criterion, criterion_group, criterion_main};

mod common;

fn integrate(c: &mut Criterion) {
    common::bench_stages(c, "integrate", Stages::INTEGRATE);
}

criterion_group! { name = benches; config = common::config(); targets = integrate }
criterion_main!(benches);
