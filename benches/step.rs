//! A full substep (attachments + integrate + constraints), per layout and
//! workload shape: compare with `constraints` for the cost of the rest.

use cable::systems::Stages;
use criterion::{Criterion, criterion_group, criterion_main};

mod common;

fn step(c: &mut Criterion) {
    common::bench_stages(c, "step", Stages::ALL);
}

criterion_group! { name = benches; config = common::config(); targets = step }
criterion_main!(benches);
