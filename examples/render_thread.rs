//! The simulation on one thread, a renderer on another, handing frames over
//! through a lock-free snapshot channel.
//!
//! The simulation thread steps a few hanging cables at 1/60 s frames as fast
//! as it can, builds their tube meshes into reused buffers, and publishes a
//! snapshot after every frame. The render thread takes the latest snapshot
//! whenever it is ready (here it "draws" by summing the vertex positions and
//! sleeps a little, like a display at roughly 120 Hz). Neither waits for the
//! other. After the run both print how many frames they did.
//!
//! ```sh
//! cargo run --release --example render_thread [SECONDS]
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cable::core::mesh::{MeshBuffers, MeshOptions};
use cable::systems::mesh::build_meshes;
use cable::systems::snapshot::snapshot_channel;
use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use glam::Vec3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: f64 = match std::env::args().nth(1) {
        Some(s) => s.parse()?,
        None => 3.0,
    };
    let mut pool = ParticlePool::new();
    for i in 0..64 {
        let z = i as f32 * 0.5;
        let mut desc = CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(8.0, 0.0, z), 10.0, 32)?;
        desc.attach_end = i % 2 == 0;
        pool.add_cable(&desc)?;
    }
    let mut stepper = Stepper::new(SolverParams::default())?;
    let options = MeshOptions::default();
    let (mut publisher, mut reader) = snapshot_channel();
    let stop = AtomicBool::new(false);
    let run_for = Duration::from_secs_f64(seconds);

    let (sim_frames, (render_frames, checksum)) = std::thread::scope(|s| {
        let sim = s.spawn(|| -> Result<u64, cable::CableError> {
            let mut mesh = MeshBuffers::new();
            let started = Instant::now();
            let mut frame = 0u64;
            while started.elapsed() < run_for {
                stepper.advance(&mut pool, 1.0 / 60.0)?;
                build_meshes(&pool, &options, &mut mesh)?;
                frame += 1;
                publisher.publish(&pool, frame, stepper.time(), Some(&mesh));
            }
            stop.store(true, Ordering::Release);
            Ok(frame)
        });
        let render = s.spawn(|| {
            let mut drawn = 0u64;
            let mut last = 0u64;
            let mut checksum = 0.0f64;
            while !stop.load(Ordering::Acquire) {
                let snap = reader.latest();
                if snap.frame != last {
                    last = snap.frame;
                    drawn += 1;
                    if let Some(mesh) = &snap.mesh {
                        checksum += mesh
                            .vertices
                            .iter()
                            .map(|v| f64::from(v.position[1]))
                            .sum::<f64>();
                    }
                }
                std::thread::sleep(Duration::from_millis(8));
            }
            (drawn, checksum)
        });
        let sim_frames = sim.join().expect("the simulation thread panicked");
        let render = render.join().expect("the render thread panicked");
        (sim_frames, render)
    });
    let sim_frames = sim_frames?;
    println!(
        "simulation: {sim_frames} frames ({:.0} per second), {} snapshots published",
        sim_frames as f64 / seconds,
        sim_frames
    );
    println!(
        "render:     {render_frames} frames drawn ({:.0} per second), checksum {checksum:.3}",
        render_frames as f64 / seconds
    );
    Ok(())
}
