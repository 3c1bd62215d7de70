//! The constraints system alone (8 iterations), per layout and workload shape.

use cable::systems::Stages;
use criterion::{Criterion, criterion_group, criterion_main};

mod common;

fn constraints(c: &mut Criterion) {
    common::bench_stages(c, "constraints", Stages::CONSTRAINTS);
}

criterion_group! { name = benches; config = common::config(); targets = constraints }
criterion_main!(benches);
