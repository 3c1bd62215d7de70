//! `cable demo`: a built-in scene drawn in the terminal.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use cable::Scene;
use cable_debug::{AsciiOptions, render_ascii};
use cable_systems::Stepper;

use super::{CliError, DemoArgs, check_seconds};

/// The demo scene: a rope bridge, a swinging chain and a wind-blown cable
/// with a free end. Parsed through the same validation as any scene file.
pub const DEMO_SCENE: &str = r#"{
  "damping": 0.05,
  "cables": [
    { "start": [-9, 4, 0], "end": [-2, 4, 0], "length": 8, "segments": 28, "stiffness": true },
    { "start": [0, 5, 0], "end": [4, 5, 0], "segments": 16, "attach_end": false },
    { "start": [6, 5, 0], "end": [10, 5, 0], "segments": 20, "attach_end": false,
      "force": [3.0, 0, 0] }
  ]
}"#;

/// Runs `cable demo`.
pub fn demo(a: &DemoArgs) -> Result<(), CliError> {
    if a.svg.is_some() {
        return Err(CliError::Usage(
            "--svg: not available in this build yet".into(),
        ));
    }
    let seconds = check_seconds(a.seconds)?;
    let scene =
        Scene::from_json(DEMO_SCENE).map_err(|e| CliError::Other(format!("demo scene: {e}")))?;
    let (mut pool, _handles) = scene
        .build_pool()
        .map_err(|e| CliError::Other(e.to_string()))?;
    let mut stepper = Stepper::new(scene.params).map_err(|e| CliError::Other(e.to_string()))?;
    let dt = 1.0f32 / 60.0;
    let frames = super::run::frame_count(seconds, dt);
    let animate = !a.no_ascii && std::io::stdout().is_terminal();
    let opts = AsciiOptions::default();
    let mut stdout = std::io::stdout().lock();
    let started = Instant::now();
    for f in 1..=frames {
        stepper
            .advance(&mut pool, dt)
            .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        if animate && f % 2 == 0 {
            let picture = render_ascii(&pool, &opts);
            let _ = writeln!(stdout, "\x1b[H\x1b[2J{picture}t = {:.2} s", stepper.time());
            let _ = stdout.flush();
            let due = started + Duration::from_secs_f64(f as f64 * f64::from(dt));
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
    }
    if !a.no_ascii && !animate {
        let _ = write!(stdout, "{}", render_ascii(&pool, &opts));
    }
    let _ = writeln!(
        stdout,
        "demo: {} cables, {} particles, {:.2} s simulated in {} substeps",
        pool.cable_count(),
        pool.particle_count(),
        stepper.time(),
        stepper.substeps_run()
    );
    Ok(())
}
