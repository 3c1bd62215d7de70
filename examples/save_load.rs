//! Save a running simulation, load it back, and go on bitwise: `CABLES`
//! cables of 32 segments hanging between pinned ends over a floor, stepped
//! for a second, saved as JSON (`cable::systems::save`), restored, and
//! stepped on side by side with the original. Prints the save's size and
//! how long saving and restoring took.
//!
//! ```sh
//! cargo run --release --example save_load [CABLES]
//! ```
//!
//! Default 1000 cables.

use std::time::Instant;

use cable::core::Collider;
use cable::systems::save::{restore_state, save_state};
use cable::{CableDesc, ParticlePool, SolverParams, Stepper};
use glam::Vec3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cables: usize = match std::env::args().nth(1) {
        Some(a) => a.parse().map_err(|e| format!("CABLES `{a}`: {e}"))?,
        None => 1000,
    };
    let mut pool = ParticlePool::new();
    let mut handles = Vec::new();
    for k in 0..cables {
        let z = k as f32 * 0.1;
        let desc = CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(4.0, 0.0, z), 5.0, 32)?;
        handles.push(pool.add_cable(&desc)?);
    }
    pool.colliders_mut().add(Collider::plane(Vec3::Y, -1.0)?);
    let params = SolverParams {
        friction: 0.3,
        ..SolverParams::default()
    };
    let mut stepper = Stepper::new(params)?;
    for _ in 0..60 {
        stepper.advance(&mut pool, 1.0 / 60.0)?;
    }

    // Save: in a game, a `BufWriter` around a file.
    let t = Instant::now();
    let mut file = Vec::new();
    save_state(&mut file, &pool, &stepper)?;
    let saved = t.elapsed();

    // Restore: the game's handles name the same cables in the copy.
    let t = Instant::now();
    let (mut copy, mut copy_stepper) = restore_state(file.as_slice())?.into_parts();
    let restored = t.elapsed();

    for _ in 0..60 {
        stepper.advance(&mut pool, 1.0 / 60.0)?;
        copy_stepper.advance(&mut copy, 1.0 / 60.0)?;
    }
    for &h in &handles {
        let (a, b) = (pool.positions(h)?, copy.positions(h)?);
        let same = a
            .iter()
            .zip(b)
            .all(|(p, q)| p.to_array().map(f32::to_bits) == q.to_array().map(f32::to_bits));
        if !same {
            return Err(format!("cable {h:?} differs after the restore").into());
        }
    }
    println!(
        "{cables} cables, {} particles: save {:.1} MB ({:.0} bytes per particle), saved in {:.1} ms, restored in {:.1} ms; one second later the copy is bitwise the original",
        pool.particle_count(),
        file.len() as f64 / 1.0e6,
        file.len() as f64 / pool.particle_count() as f64,
        saved.as_secs_f64() * 1.0e3,
        restored.as_secs_f64() * 1.0e3,
    );
    Ok(())
}
