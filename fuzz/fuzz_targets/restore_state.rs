//! Bytes → `cable::systems::save::restore_state` (issue 12): never a panic;
//! a restored state is valid (`ParticlePool::validate`), saves again to the
//! same bytes' meaning (save → restore → save is stable), and steps in
//! every layout with bit-identical results. Bounded like `step_scene`: at
//! most 4,096 particles, 16 iterations, 4 substeps a frame.
//!
//! Issue 38, restore against a scene: the first byte picks what the rest
//! is.
//! - `0..=127` (a JSON save begins so): the whole input is a save, checked
//!   as above and against the scene of `tests/scenes/save_restore.json`
//!   (never a panic).
//! - `128..=191`: a position (4 bytes) and a byte: that byte of a save of
//!   that scene (1 s into it) replaced.
//! - `192..=255`: an index (4 bytes) and an `f64` (8 bytes): that number of
//!   the same save replaced.
//!
//! A save damaged byte by byte or number by number restores to a state
//! that saves back the same and steps 60 frames without a NaN (or is an
//! error); whether it still matches its scene
//! (`SimulationState::check_same_setup`) is asked too.
#![no_main]

use std::sync::OnceLock;

use cable::scene::Scene;
use cable::systems::save::{SimulationState, restore_state, save_state};
use cable::systems::{Layout, SolverParams, Stepper};
use cable_testkit::save::{number_paths, set_number};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const SCENE: &str = include_str!("../../tests/scenes/save_restore.json");

/// The scene, its save 1 s in, and the JSON pointer of each number in it.
struct Seed {
    scene: Scene,
    save: Vec<u8>,
    json: Value,
    numbers: Vec<String>,
}

fn seed() -> &'static Seed {
    static SEED: OnceLock<Seed> = OnceLock::new();
    SEED.get_or_init(|| {
        let scene = Scene::from_json(SCENE).expect("the scene is valid");
        let (mut pool, _) = scene.build_pool().expect("it builds");
        let mut stepper = Stepper::new(scene.params).expect("valid params");
        for _ in 0..60 {
            stepper.advance(&mut pool, 1.0 / 60.0).expect("steps");
        }
        let mut save = Vec::new();
        save_state(&mut save, &pool, &stepper).expect("saves");
        let json: Value = serde_json::from_slice(&save).expect("JSON");
        let numbers = number_paths(&json);
        Seed {
            scene,
            save,
            json,
            numbers,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode {
        // A save begins with `{` or white space: the whole input is one.
        0..=127 => any_save(data),
        128..=191 => {
            let Some((at, rest)) = rest.split_first_chunk::<4>() else {
                return;
            };
            let Some(&byte) = rest.first() else { return };
            let s = seed();
            let mut file = s.save.clone();
            let i = u32::from_le_bytes(*at) as usize % file.len();
            file[i] = byte;
            one_edit(&file);
        }
        _ => {
            let Some((at, rest)) = rest.split_first_chunk::<4>() else {
                return;
            };
            let Some((value, _)) = rest.split_first_chunk::<8>() else {
                return;
            };
            let s = seed();
            let mut json = s.json.clone();
            let path = &s.numbers[u32::from_le_bytes(*at) as usize % s.numbers.len()];
            let value = f64::from_le_bytes(*value);
            if !value.is_finite() {
                return; // JSON has no NaN or infinity
            }
            set_number(&mut json, path, value);
            one_edit(&serde_json::to_vec(&json).expect("JSON"));
        }
    }
});

/// A save damaged once: restored, it saves back the same and steps 60
/// frames without a NaN (or refuses to step).
fn one_edit(file: &[u8]) {
    let Ok(state) = restore_state(file) else {
        return;
    };
    let s = seed();
    let (scene_pool, _) = s.scene.build_pool().expect("it builds");
    let matches = state.check_same_setup(&scene_pool, &s.scene.params).is_ok();
    stable(&state);
    let (mut pool, mut stepper) = state.into_parts();
    for frame in 0..60 {
        if stepper.advance(&mut pool, 1.0 / 60.0).is_err() {
            return;
        }
        assert!(
            pool.all_finite(),
            "a restored save (matching its scene: {matches}) went NaN after {} frames",
            frame + 1
        );
    }
}

/// Save → restore → save gives the same bytes.
fn stable(state: &SimulationState) {
    let mut once = Vec::new();
    save_state(&mut once, &state.pool, &state.stepper).expect("a restored state saves");
    let again = restore_state(once.as_slice()).expect("a saved state restores");
    let mut twice = Vec::new();
    save_state(&mut twice, &again.pool, &again.stepper).expect("saves");
    assert!(once == twice, "save -> restore -> save is not stable");
}

/// Any bytes as a save: the checks of issue 12, and the scene check.
fn any_save(data: &[u8]) {
    let Ok(state) = restore_state(data) else {
        return;
    };
    state.pool.validate().expect("a restored pool is valid");
    let s = seed();
    let (scene_pool, _) = s.scene.build_pool().expect("it builds");
    // Never a panic, whatever the state.
    let _ = state.check_same_setup(&scene_pool, &s.scene.params);
    stable(&state);
    let (pool, stepper) = state.into_parts();
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
}
