//! Render hand-off: a reader on another thread only ever sees whole
//! snapshots (never a mix of two frames), in increasing frame order, and the
//! latest one once the publisher stops.

use std::sync::atomic::{AtomicBool, Ordering};

use cable::core::mesh::{MeshBuffers, MeshOptions};
use cable::systems::mesh::build_meshes;
use cable::systems::snapshot::snapshot_channel;
use cable::{CableDesc, ParticlePool};
use glam::Vec3;

#[test]
fn reader_sees_whole_frames_in_order() {
    let mut pool = ParticlePool::new();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let s = Vec3::new(0.0, 0.0, i as f32);
            pool.add_cable(&CableDesc::line(s, s + Vec3::X * 3.0, 3.0, 10 + i).unwrap())
                .unwrap()
        })
        .collect();
    let (mut publisher, mut reader) = snapshot_channel();
    let done = AtomicBool::new(false);
    let frames = 2000u64;
    let seen = std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut last = 0;
            let mut seen = 0u64;
            loop {
                let finished = done.load(Ordering::Acquire);
                let snap = reader.latest();
                assert!(snap.frame >= last, "frames went backwards");
                if snap.frame != last {
                    seen += 1;
                    last = snap.frame;
                    // Every particle of frame f was put at height f: a torn
                    // snapshot would mix heights.
                    let y = snap.frame as f32;
                    assert!(snap.positions.iter().all(|p| p.y == y), "torn snapshot");
                    let mesh = snap.mesh.as_ref().expect("published with a mesh");
                    assert!(mesh.bounds.contains(Vec3::new(1.0, y, 0.0)));
                    assert_eq!(snap.cables.len(), 4);
                }
                if finished {
                    return (last, seen);
                }
            }
        });
        let mut mesh = MeshBuffers::new();
        for f in 1..=frames {
            for &h in &handles {
                for p in pool.positions_mut(h).unwrap() {
                    p.y = f as f32;
                }
            }
            build_meshes(&pool, &MeshOptions::default(), &mut mesh).unwrap();
            publisher.publish(&pool, f, f as f64 / 60.0, Some(&mesh));
        }
        done.store(true, Ordering::Release);
        reader.join().unwrap()
    });
    assert_eq!(seen.0, frames, "the reader ends on the last frame");
    assert!(seen.1 >= 1);
    assert_eq!(publisher.published(), frames);
}

#[test]
fn snapshot_copies_positions_per_cable() {
    let mut pool = ParticlePool::new();
    let a = pool
        .add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 3).unwrap())
        .unwrap();
    let b = pool
        .add_cable(&CableDesc::from_points(&[Vec3::Y, Vec3::ONE]).unwrap())
        .unwrap();
    let (mut publisher, mut reader) = snapshot_channel();
    assert_eq!(reader.latest().frame, 0);
    assert!(!reader.has_new());
    publisher.publish(&pool, 7, 0.5, None);
    assert!(reader.has_new());
    let snap = reader.latest();
    assert_eq!((snap.frame, snap.time), (7, 0.5));
    assert_eq!(snap.cable_positions(0), pool.positions(a).unwrap());
    assert_eq!(snap.cable_positions(1), pool.positions(b).unwrap());
    assert_eq!(snap.cables[1].handle, b);
    assert!(snap.cable_positions(2).is_empty() && snap.mesh.is_none());
}
