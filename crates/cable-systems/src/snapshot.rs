//! Render hand-off: the simulation publishes a [`Snapshot`] after each frame
//! and a render thread reads the latest one, both without blocking, through
//! a triple buffer (the `triple_buffer` crate): the writer always has a free
//! buffer to fill, the reader always holds a complete frame.
//!
//! Snapshots reuse their allocations: once each of the three buffers has
//! grown to the scene's size, publishing does not allocate.
//!
//! # Example
//! ```
//! use cable_core::{CableDesc, ParticlePool};
//! use cable_systems::snapshot::snapshot_channel;
//! use glam::Vec3;
//!
//! let mut pool = ParticlePool::new();
//! pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
//! let (mut publisher, mut reader) = snapshot_channel();
//! publisher.publish(&pool, 1, 1.0 / 60.0, None);
//! std::thread::spawn(move || {
//!     let snap = reader.latest();
//!     assert_eq!((snap.frame, snap.cable_positions(0).len()), (1, 5));
//! })
//! .join()
//! .unwrap();
//! # Ok::<(), cable_core::CableError>(())
//! ```

use std::ops::Range;

use cable_core::mesh::MeshBuffers;
use cable_core::{CableHandle, ParticlePool};
use glam::Vec3;

/// One cable in a [`Snapshot`]: its handle and its rows in
/// [`Snapshot::positions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotCable {
    /// The cable.
    pub handle: CableHandle,
    /// Its particles' rows in [`Snapshot::positions`].
    pub first: u32,
    /// Number of particles.
    pub count: u32,
}

impl SnapshotCable {
    /// The cable's rows in [`Snapshot::positions`].
    #[inline]
    #[must_use]
    pub fn rows(&self) -> Range<usize> {
        self.first as usize..(self.first + self.count) as usize
    }
}

/// The state a renderer needs from one simulation frame: every particle
/// position (metres) of every cable, and optionally the built meshes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    /// Frame number given by the publisher (0 before the first publish).
    pub frame: u64,
    /// Simulated time of the frame, seconds.
    pub time: f64,
    /// Positions of every particle of every cable, cable after cable.
    pub positions: Vec<Vec3>,
    /// The cables, in the pool's order.
    pub cables: Vec<SnapshotCable>,
    /// The meshes, when the publisher passed them.
    pub mesh: Option<MeshBuffers>,
}

impl Snapshot {
    /// Makes `self` a copy of the pool's current state (and `mesh`), reusing
    /// its allocations.
    pub fn capture(
        &mut self,
        pool: &ParticlePool,
        frame: u64,
        time: f64,
        mesh: Option<&MeshBuffers>,
    ) {
        self.frame = frame;
        self.time = time;
        self.positions.clear();
        self.cables.clear();
        for handle in pool.handles() {
            // Handles come from the pool itself, so the look-up succeeds.
            let Ok(pos) = pool.positions(handle) else {
                continue;
            };
            self.cables.push(SnapshotCable {
                handle,
                first: self.positions.len() as u32,
                count: pos.len() as u32,
            });
            self.positions.extend_from_slice(pos);
        }
        match (mesh, &mut self.mesh) {
            (Some(src), Some(dst)) => dst.copy_from(src),
            (Some(src), None) => self.mesh = Some(src.clone()),
            (None, dst) => *dst = None,
        }
    }

    /// Positions of the `i`-th cable (pool order); empty when out of range.
    #[must_use]
    pub fn cable_positions(&self, i: usize) -> &[Vec3] {
        self.cables
            .get(i)
            .and_then(|c| self.positions.get(c.rows()))
            .unwrap_or(&[])
    }
}

/// The simulation's end of a snapshot channel.
#[derive(Debug)]
pub struct SnapshotPublisher {
    input: triple_buffer::Input<Snapshot>,
    published: u64,
}

/// The render thread's end of a snapshot channel.
#[derive(Debug)]
pub struct SnapshotReader {
    output: triple_buffer::Output<Snapshot>,
}

/// A new channel: the publisher goes to the simulation thread, the reader
/// to the render thread. Neither side ever waits for the other.
#[must_use]
pub fn snapshot_channel() -> (SnapshotPublisher, SnapshotReader) {
    let (input, output) = triple_buffer::triple_buffer(&Snapshot::default());
    (
        SnapshotPublisher {
            input,
            published: 0,
        },
        SnapshotReader { output },
    )
}

impl SnapshotPublisher {
    /// Captures the pool (and `mesh`) into the free buffer and publishes it;
    /// never blocks. Returns true when the previous snapshot was overwritten
    /// before the reader saw it (the reader is slower than the simulation).
    pub fn publish(
        &mut self,
        pool: &ParticlePool,
        frame: u64,
        time: f64,
        mesh: Option<&MeshBuffers>,
    ) -> bool {
        crate::trace::span!("cable.snapshot.publish");
        self.input
            .input_buffer_mut()
            .capture(pool, frame, time, mesh);
        self.published += 1;
        self.input.publish()
    }

    /// Snapshots published so far.
    #[inline]
    #[must_use]
    pub fn published(&self) -> u64 {
        self.published
    }
}

impl SnapshotReader {
    /// The most recent published snapshot (the default, empty one before
    /// the first publish); never blocks.
    pub fn latest(&mut self) -> &Snapshot {
        self.output.read()
    }

    /// True when a snapshot newer than the last one read is waiting.
    #[must_use]
    pub fn has_new(&self) -> bool {
        self.output.updated()
    }
}
