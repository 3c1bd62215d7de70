//! No heap allocation per frame once warmed up: the mesh build (parallel,
//! on a 2-thread pool) and the snapshot publish are counted by a global
//! allocator that counts every allocation on every thread.
//!
//! Counted with dhat's global allocator in testing mode (this file holds a
//! single test, so no other test allocates while it counts; no `unsafe`).

use cable::core::mesh::{MeshBuffers, MeshOptions, MeshStyle};
use cable::systems::mesh::{MESH_GRAIN, build_meshes};
use cable::systems::snapshot::snapshot_channel;
use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use glam::Vec3;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Allocations (blocks) made so far on every thread.
fn allocations() -> u64 {
    dhat::HeapStats::get().total_blocks
}

#[test]
fn no_allocation_per_frame_after_warm_up() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let mut pool = ParticlePool::new();
    for i in 0..64 {
        let z = i as f32 * 0.3;
        let mut d =
            CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(6.0, 0.0, z), 8.0, 40).unwrap();
        d.attach_end = i % 3 != 0;
        d.params.sides = 6 + (i % 5) as u32;
        pool.add_cable(&d).unwrap();
    }
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let (mut publisher, mut reader) = snapshot_channel();
    let styles = [
        MeshOptions::default(),
        MeshOptions {
            rings_per_segment: 3,
            ..MeshOptions::default()
        },
        MeshOptions {
            style: MeshStyle::Ribbon {
                view: Vec3::NEG_Z,
                two_sided: true,
            },
            ..MeshOptions::default()
        },
    ];
    for options in styles {
        let mut mesh = MeshBuffers::new();
        let mut counted = 0;
        let mut first_frame = 0;
        workers.install(|| {
            for frame in 0..40u64 {
                stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
                let before = allocations();
                build_meshes(&pool, &options, &mut mesh).unwrap();
                publisher.publish(&pool, frame, stepper.time(), Some(&mesh));
                let during = allocations() - before;
                // Warm-up: the buffers grow on the first build and each of the
                // three snapshot buffers on its first fill.
                if frame == 0 {
                    first_frame = during;
                } else if frame >= 5 {
                    counted += during;
                }
            }
        });
        assert!(
            first_frame > 0,
            "the counter must see the first build's buffers grow"
        );
        assert!(
            mesh.vertices.len() > MESH_GRAIN,
            "the build must run in parallel"
        );
        assert_eq!(
            counted, 0,
            "{options:?}: allocations per frame after warm-up"
        );
        // The reader sees the latest frame's mesh.
        let snap = reader.latest();
        assert_eq!(
            snap.mesh.as_ref().map(|m| m.vertices.len()),
            Some(mesh.vertices.len())
        );
    }
}
