//! Bytes → `cable::systems::save::restore_state` (issue 12): never a panic;
//! a restored state is valid (`ParticlePool::validate`), saves again to the
//! same bytes' meaning (save → restore → save is stable), and steps in
//! every layout with bit-identical results. Bounded like `step_scene`: at
//! most 4,096 particles, 16 iterations, 4 substeps a frame.
#![no_main]

use cable::systems::save::{restore_state, save_state};
use cable::systems::{Layout, SolverParams, Stepper};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(state) = restore_state(data) else {
        return;
    };
    let (pool, stepper) = state.into_parts();
    pool.validate().expect("a restored pool is valid");
    let mut once = Vec::new();
    save_state(&mut once, &pool, &stepper).expect("a restored state saves");
    let again = restore_state(once.as_slice()).expect("a saved state restores");
    let mut twice = Vec::new();
    save_state(&mut twice, &again.pool, &again.stepper).expect("saves");
    assert!(once == twice, "save -> restore -> save is not stable");
    if pool.particle_count() > 4096 {
        return;
    }
    let params = SolverParams {
        iterations: stepper.params().iterations.min(16),
        max_substeps: stepper.params().max_substeps.min(4),
        ..*stepper.params()
    };
    let mut first: Option<Vec<u32>> = None;
    for layout in Layout::ALL {
        let mut pool = pool.clone();
        let mut s = Stepper::with_layout(params, layout).expect("validated params");
        for _ in 0..3 {
            // Refusing (a compliance this substep cannot hold) is fine.
            if s.advance(&mut pool, params.substep).is_err() {
                return;
            }
        }
        let bits: Vec<u32> = pool
            .handles()
            .flat_map(|h| pool.positions(h).expect("live").to_vec())
            .flat_map(|p| p.to_array().map(f32::to_bits))
            .collect();
        match &first {
            None => first = Some(bits),
            Some(want) => assert!(*want == bits, "{layout} differs"),
        }
    }
});
