//! `cable run --save FILE [--save-at S]` and `--restore FILE`: the run's
//! state at a frame, written whole or not at all like the other outputs.
//!
//! The file is JSON:
//! `{"format": "cable-run-save", "version": 1, "frame": F, "frame_dt": DT, "simulation": {...}}`,
//! `frame` the frames run so far, `frame_dt` the frame length they ran
//! with, and `simulation` a library save ([`cable_systems::save`]: the pool
//! and the stepper), so a program can restore it with
//! `cable_systems::save::restore_state` too.

use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use cable_core::ParticlePool;
use cable_systems::save::{SaveError, SimulationState, save_state};
use cable_systems::{SolverParams, Stepper};
use serde::Deserialize;

use super::error::CliError;
use super::staged::Staged;

/// The `format` field of a run's save.
const FORMAT: &str = "cable-run-save";
/// Its version.
const VERSION: u32 = 1;

/// A run's state read back by `--restore`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSave {
    format: String,
    version: u32,
    /// Frames run when it was saved.
    pub frame: u64,
    /// The frame length they ran with, seconds.
    pub frame_dt: f32,
    /// The pool and the stepper.
    pub simulation: SimulationState,
}

/// Writes the state after frame `frame` (of `frame_dt` seconds) into the
/// staged `--save` file.
pub fn write(
    staged: &mut Staged,
    frame: u64,
    frame_dt: f32,
    pool: &ParticlePool,
    stepper: &Stepper,
) -> Result<(), CliError> {
    let label = staged.label();
    let mut w = BufWriter::with_capacity(1 << 20, staged.file());
    let dt = serde_json::to_string(&frame_dt).map_err(|e| CliError::Other(e.to_string()))?;
    let head = format!(
        "{{\"format\":\"{FORMAT}\",\"version\":{VERSION},\"frame\":{frame},\"frame_dt\":{dt},\"simulation\":"
    );
    let io = |e: std::io::Error| CliError::Other(format!("cannot write {label}: {e}"));
    w.write_all(head.as_bytes()).map_err(io)?;
    save_state(&mut w, pool, stepper).map_err(|e| match e {
        SaveError::Io(e) => io(e),
        other => CliError::Other(format!("{label}: {other}")),
    })?;
    w.write_all(b"}").map_err(io)?;
    w.flush().map_err(io)
}

/// Checks that a `--restore` file read by [`read`] continues a run of the
/// scene whose fresh pool is `pool` and solver parameters `params`, with
/// frames of `frame_dt` seconds: the same cables, parameters, masses and
/// colliders ([`SimulationState::check_same_setup`]), and a stepper that
/// has not run longer than the saved frames hold. The error names the
/// first difference (the caller prefixes the file's name; exit 2).
pub fn check_scene(
    save: &RunSave,
    pool: &ParticlePool,
    params: &SolverParams,
    frame_dt: f32,
) -> Result<(), String> {
    save.simulation
        .check_same_setup(pool, params)
        .map_err(|e| format!("is not a save of this scene: {e}"))?;
    // Each frame runs at most its length in substeps (a frame capped by
    // max_substeps runs fewer); the accumulator keeps less than one.
    let stepper = &save.simulation.stepper;
    let held = save.frame as f64 * f64::from(frame_dt);
    let ran = stepper.time() + stepper.remainder();
    if ran > held * (1.0 + 1.0e-6) + f64::from(params.substep) {
        return Err(format!(
            "simulation.stepper.substeps_run: {} substeps and {} s carried are t = {ran:.6} s, more than the {} frames of {frame_dt} s it was saved at (t = {held:.6} s)",
            stepper.substeps_run(),
            stepper.remainder(),
            save.frame
        ));
    }
    Ok(())
}

/// Reads and checks a `--restore` file (exit 2 for anything wrong with it).
pub fn read(path: &Path) -> Result<RunSave, CliError> {
    let name = path.display();
    let file = std::fs::File::open(path)
        .map_err(|e| CliError::Usage(format!("--restore {name}: cannot read: {e}")))?;
    let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 20, file));
    let save: RunSave = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let at = if path == "." {
            String::new()
        } else {
            format!("{path}: ")
        };
        CliError::Usage(format!("--restore {name}: {at}{inner}"))
    })?;
    de.end()
        .map_err(|e| CliError::Usage(format!("--restore {name}: {e}")))?;
    if save.format != FORMAT {
        return Err(CliError::Usage(format!(
            "--restore {name}: format: is {:?}, not a {FORMAT:?} file written by cable run --save",
            save.format
        )));
    }
    if save.version != VERSION {
        return Err(CliError::Usage(format!(
            "--restore {name}: version: is {}, this build reads version {VERSION}",
            save.version
        )));
    }
    Ok(save)
}
