//! Bytes → a scene → a pool → a few frames of stepping in every layout,
//! meshing and the debug frame: never a panic. Sizes are bounded so each
//! input runs in milliseconds: at most 4,096 particles, 16 iterations and 4
//! substeps a frame.
#![no_main]

use cable::core::mesh::{MeshBuffers, MeshOptions};
use cable::systems::mesh::{build_meshes, mesh_bytes};
use cable::systems::{Layout, Stepper};
use libfuzzer_sys::fuzz_target;

/// Frames stepped per input.
const FRAMES: usize = 3;

fuzz_target!(|data: &[u8]| {
    let Ok(mut scene) = cable::Scene::from_slice(data) else {
        return;
    };
    if scene.particle_count() > 4096 {
        return;
    }
    scene.params.iterations = scene.params.iterations.min(16);
    scene.params.max_substeps = scene.params.max_substeps.min(4);
    let (pool, handles) = scene.build_pool().expect("a validated scene fits its pool");
    // The frame length comes from the input's last byte: up to 4 substeps.
    let k = data.last().map_or(1.0, |b| f32::from(b % 5));
    let dt = scene.params.substep * k;
    // Exact layouts give bit-identical results (the spec's promise).
    let mut first: Option<Vec<u32>> = None;
    for layout in [Layout::Aos, Layout::Soa, Layout::Lanes8] {
        let mut pool = pool.clone();
        let mut stepper = Stepper::with_layout(scene.params, layout).expect("validated params");
        for _ in 0..FRAMES {
            // A loaded scene passes the stepper's compliance/substep check too.
            stepper
                .advance(&mut pool, dt)
                .expect("a valid frame length and a validated scene");
        }
        let bits: Vec<u32> = handles
            .iter()
            .flat_map(|&h| pool.positions(h).expect("a live handle").to_vec())
            .flat_map(|p| p.to_array().map(f32::to_bits))
            .collect();
        match &first {
            None => first = Some(bits),
            Some(b) => assert!(*b == bits, "layout {layout:?} differs from aos"),
        }
        if mesh_bytes(&pool, &MeshOptions::default()) <= 16 << 20 {
            let mut mesh = MeshBuffers::new();
            // Errors are fine (a cable may hold NaN); panics are not.
            let _ = build_meshes(&pool, &MeshOptions::default(), &mut mesh);
        }
        let _ = cable::debug::Frame::capture(&pool, stepper.time());
    }
});
