//! `cable demo`: a built-in scene drawn in the terminal, and optionally
//! written as SVG.

use std::io::Write;

use cable::Scene;
use cable_debug::{Frame, Recorder, render_frame_ascii};
use cable_systems::Stepper;

use super::anim::{self, Animation};
use super::args::DemoArgs;
use super::error::CliError;
use super::setup::check_seconds;
use super::svg_out;

/// The demo scene, left to right: a rope bridge (a slack deck and a tauter
/// handrail), a swinging chain released from the horizontal, a stiff cable
/// (bending constraints) beside a plain one of the same length, a cable
/// blown sideways by wind with a free end, and a cable with free ends
/// dropped onto a sphere resting on a slab (a box), where it drapes and
/// its ends come to rest on the slab (friction holds it). Parsed through
/// the same validation as any scene file.
pub const DEMO_SCENE: &str = r#"{
  "damping": 0.05,
  "friction": 0.6,
  "cables": [
    { "start": [-12, 4, 0], "end": [-4, 4, 0], "length": 9.5, "segments": 32 },
    { "start": [-12, 5.5, 0], "end": [-4, 5.5, 0], "length": 8.4, "segments": 24 },
    { "start": [-1, 6, 0], "end": [4, 6, 0], "segments": 20, "attach_end": false, "radius": 0.08 },
    { "start": [6, 6, 0], "end": [9, 6, 0], "length": 4.5, "segments": 24, "stiffness": true },
    { "start": [6, 3, 0], "end": [9, 3, 0], "length": 4.5, "segments": 24 },
    { "start": [11, 6, 0], "end": [15, 6, 0], "segments": 20, "attach_end": false,
      "force": [6.0, 0, 0] },
    { "start": [15.5, 3, 0], "end": [22.5, 3, 0], "segments": 32,
      "attach_start": false, "attach_end": false }
  ],
  "colliders": [
    { "type": "sphere", "center": [19, 1, 0], "radius": 1.2 },
    { "type": "box", "center": [19, -0.5, 0], "half_extents": [4, 0.3, 0.6] }
  ]
}"#;

/// Frame length of the demo, seconds.
const DT: f32 = 1.0 / 60.0;

/// Runs `cable demo`.
pub fn demo(a: &DemoArgs) -> Result<(), CliError> {
    let seconds = check_seconds(a.seconds)?;
    let scene =
        Scene::from_json(DEMO_SCENE).map_err(|e| CliError::Other(format!("demo scene: {e}")))?;
    let (mut pool, _handles) = scene
        .build_pool()
        .map_err(|e| CliError::Other(e.to_string()))?;
    let mut stepper = Stepper::new(scene.params).map_err(|e| CliError::Other(e.to_string()))?;
    let frames = super::setup::checked_frames(seconds, DT)?;
    let svg = match &a.svg {
        Some(path) => Some(svg_out::SvgOut::create(
            path,
            "cable demo",
            a.svg_still,
            a.views.view,
        )?),
        None => None,
    };
    if let Some(s) = &svg {
        s.check_budget(pool.particle_count())?;
    }
    // Frames carry the pool's colliders at their current poses.
    let mut recorder = Recorder::new(svg_out::capacity(pool.particle_count()));
    recorder.offer(&pool, stepper.time());
    let base = a.views.ascii();
    let mut animation = if a.no_ascii {
        None
    } else {
        Animation::start(&base)
    };
    for f in 1..=frames {
        if super::signal::interrupted() {
            break;
        }
        stepper
            .advance(&mut pool, DT)
            .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        if svg.is_some() {
            recorder.offer(&pool, stepper.time());
        }
        if let Some(an) = animation.as_mut() {
            let status = format!(
                "cable demo  t = {:.2} s of {seconds:.2} s  ({} cables, {} particles)  Ctrl-C stops",
                stepper.time(),
                pool.cable_count(),
                pool.particle_count()
            );
            an.tick(
                f as f64 * f64::from(DT),
                || Frame::capture(&pool, stepper.time()),
                &status,
            )
            .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        }
    }
    // Leaves the alternate screen before anything else is printed.
    let was_animated = animation.take().is_some();
    if super::signal::interrupted() {
        return Err(CliError::Interrupted);
    }
    recorder.finish(&pool, stepper.time());
    if let Some(out) = svg {
        out.write(&recorder)?.commit()?;
    }
    let mut stdout = std::io::stdout().lock();
    if !a.no_ascii {
        // The last frame stays on the normal screen (or is all a pipe gets).
        let opts = if was_animated {
            terminal_size::terminal_size()
                .map_or(base, |(w, h)| anim::fit_terminal(&base, w.0, h.0.min(40)))
        } else {
            base
        };
        let picture = render_frame_ascii(&Frame::capture(&pool, stepper.time()), &opts)
            .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        let _ = write!(stdout, "{picture}");
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
