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
    let stepper = &save.simulation.stepper;
    check_time(stepper, params, save.frame, frame_dt)?;
    check_kinematic_poses(&save.simulation.pool, pool, stepper)?;
    check_winches(&save.simulation.pool, pool, stepper)
}

/// A scene's winch (`reel_speed`) changes its cable's rest length by
/// `reel_speed × substep` every substep, within `min_length` and
/// `max_length`: a saved cable's rest length must be where the substeps
/// the save ran take it, to the rounding of that many f32 steps (the
/// particles a winch adds or removes follow from it). With `reel_accel`
/// the speed ramps up first (`winch_travel`); with `reel_force` it
/// depends on the tensions of the run, so only the bounds are checked.
fn check_winches(
    saved: &ParticlePool,
    scene: &ParticlePool,
    stepper: &Stepper,
) -> Result<(), String> {
    let steps = stepper.substeps_run() as f64;
    let h = stepper.params().substep;
    for (k, (a, b)) in saved.handles().zip(scene.handles()).enumerate() {
        let (Ok(pb), Ok(rest_a), Ok(rest_b)) = (
            scene.params(b),
            saved.rest_lengths(a),
            scene.rest_lengths(b),
        ) else {
            continue;
        };
        if pb.reel_speed == 0.0 {
            continue;
        }
        let sum = |r: &[f32]| r.iter().map(|&x| f64::from(x)).sum::<f64>();
        let (length, start) = (sum(rest_a), sum(rest_b));
        let delta = f64::from(pb.reel_speed * h);
        let lo = f64::from(pb.min_length.unwrap_or(0.0));
        let hi = f64::from(pb.max_length.unwrap_or(f32::MAX));
        // Each substep rounds the first segment (and the split ones) in f32.
        let seg = rest_b.iter().copied().fold(0.0f32, f32::max);
        let round = |want: f64| {
            (steps + 1.0)
                * 4.0
                * f64::from(f32::EPSILON)
                * (2.0 * f64::from(seg) + delta.abs() + want)
                + 1.0e-6
        };
        if pb.reel_force.is_some() {
            // Held or slipping as the run's tensions said: within bounds.
            if length < lo - round(lo) || length > hi + round(hi) {
                return Err(format!(
                    "is not a save of this scene: cables[{k}].rest: save has a rest length of {length:.6} m, outside its winch's bounds {lo} to {hi} m"
                ));
            }
            continue;
        }
        let (travel, ramp) = winch_travel(pb.reel_speed, pb.reel_accel, h, steps);
        let want = (start + travel).clamp(lo, hi.max(lo));
        // The ramp's speed is rounded at each of its substeps too.
        let tol = round(want) + ramp * ramp * f64::from(f32::EPSILON) * delta.abs();
        if (length - want).abs() > tol {
            return Err(format!(
                "is not a save of this scene: cables[{k}].rest: save has a rest length of {length:.6} m, but its winch ({} m/s) makes it {want:.6} m in the {steps} substeps the save ran",
                pb.reel_speed
            ));
        }
    }
    Ok(())
}

/// How far a winch of `speed` m/s with acceleration limit `accel` turns
/// in `steps` substeps of `h` seconds, ignoring its bounds (each substep
/// moves by the speed after that substep's ramp), and the substeps its
/// ramp takes.
fn winch_travel(speed: f32, accel: Option<f32>, h: f32, steps: f64) -> (f64, f64) {
    let (v, h) = (f64::from(speed), f64::from(h));
    let Some(a) = accel else {
        return (v * h * steps, 0.0);
    };
    let dv = f64::from(a) * h;
    // The substep whose ramp reaches the speed.
    let ramp = (v.abs() / dv).ceil();
    let travel = if steps < ramp {
        dv * h * steps * (steps + 1.0) / 2.0
    } else {
        dv * h * (ramp - 1.0) * ramp / 2.0 + (steps - ramp + 1.0) * v.abs() * h
    };
    (travel.copysign(v), ramp.min(steps))
}

/// The substeps a save ran must be those `frames` frames of `frame_dt`
/// seconds run: each frame runs at most its length in substeps (fewer
/// when `max_substeps` caps it) and at least the whole substeps it holds
/// up to that cap; the accumulator keeps less than one. A frame that the
/// cap never reaches (`frame_dt` + one substep within `max_substeps`
/// substeps) runs exactly its time, up to the accumulator's slack.
fn check_time(
    stepper: &Stepper,
    params: &SolverParams,
    frames: u64,
    frame_dt: f32,
) -> Result<(), String> {
    let (h, dt) = (f64::from(params.substep), f64::from(frame_dt));
    let held = frames as f64 * dt;
    let n = stepper.substeps_run();
    let ran = stepper.time() + stepper.remainder();
    let said = || {
        format!(
            "simulation.stepper.substeps_run: {n} substeps and {} s carried are t = {ran:.6} s, but {frames} frames of {frame_dt} s",
            stepper.remainder()
        )
    };
    // Replayed exactly where that is cheap (one subtraction per substep;
    // at most 1e9, about a second): the substeps and the accumulator must
    // be those, bit for bit.
    if let Some((want, acc)) = Stepper::clock_after(params, frame_dt, frames, 1_000_000_000) {
        if n != want || stepper.remainder().to_bits() != acc.to_bits() {
            return Err(format!(
                "{}, which run {want} substeps and carry {acc} s",
                said()
            ));
        }
        return Ok(());
    }
    if ran > held * (1.0 + 1.0e-6) + h {
        return Err(format!("{} run at most t = {held:.6} s", said()));
    }
    let cap = f64::from(params.max_substeps);
    let least = if dt + h <= cap * h {
        // Never capped: all of the time ran, less the accumulator's slack
        // (1e-7 of a substep per substep) and rounding.
        held * (1.0 - 1.0e-6) - n as f64 * h * 1.0e-6 - h * 1.0e-6
    } else {
        // Capped at times: each frame ran at least the whole substeps it
        // held, up to the cap.
        frames as f64 * (dt / h * (1.0 - 1.0e-6)).floor().min(cap) * h * (1.0 - 1.0e-6)
    };
    if ran < least {
        return Err(format!("{} run at least t = {least:.6} s", said()));
    }
    Ok(())
}

/// A scene's kinematic collider (`velocity`, `angular_velocity`) moves by
/// its motion every substep: the pose in a save must be the one that
/// motion reaches in the substeps the save ran, up to the rounding of
/// that many f32 steps (the stepper advances poses in f32). A collider
/// whose motion took it to the ±1e6 m bound stopped translating there.
fn check_kinematic_poses(
    saved: &ParticlePool,
    scene: &ParticlePool,
    stepper: &Stepper,
) -> Result<(), String> {
    let (a, b) = (saved.colliders(), scene.colliders());
    let steps = stepper.substeps_run() as f64;
    let h = f64::from(stepper.params().substep);
    let t = stepper.time();
    for (i, (ha, hb)) in a.handles().zip(b.handles()).enumerate() {
        let (Ok(ca), Ok(cb)) = (a.get(ha), b.get(hb)) else {
            continue;
        };
        if !cb.is_kinematic() {
            // At rest: compared exactly by `check_same_setup`.
            continue;
        }
        let (p0, v) = (cb.position().as_dvec3(), cb.velocity().as_dvec3());
        // When the motion stops at the coordinate bound: the time it got
        // there (one substep of leeway for the step it stopped before).
        let bound = f64::from(cable_core::MAX_COORDINATE);
        let stop = (0..3)
            .filter(|&k| v[k] != 0.0)
            .map(|k| (bound.copysign(v[k]) - p0[k]) / v[k])
            .fold(f64::INFINITY, f64::min);
        let (te, leeway) = if t > stop {
            (stop, v.length() * h)
        } else {
            (t, 0.0)
        };
        let expected = p0 + v * te;
        let scale = p0.length() + v.length() * te + 1.0e-3;
        let tol = (steps + 1.0) * f64::from(f32::EPSILON) * scale + leeway + 1.0e-6;
        let off = ca.position().as_dvec3().distance(expected);
        if off.is_nan() || off > tol {
            return Err(format!(
                "is not a save of this scene: colliders[{i}].position: save has [{}, {}, {}], but the collider's velocity takes it to [{:.6}, {:.6}, {:.6}] in the {steps} substeps (t = {t:.6} s) the save ran ({off:.3e} m away)",
                ca.position().x,
                ca.position().y,
                ca.position().z,
                expected.x,
                expected.y,
                expected.z
            ));
        }
        let w = cb.angular_velocity().as_dvec3();
        if w != glam::DVec3::ZERO {
            let q0 = cb.rotation().as_dquat();
            let turned = glam::DQuat::from_scaled_axis(w * t) * q0;
            let qa = ca.rotation().as_dquat();
            // The angle between the two rotations (q and -q are one).
            let d = (turned * qa.inverse()).normalize();
            let angle = 2.0 * d.xyz().length().min(1.0).asin();
            let tol = (steps + 1.0) * 8.0 * f64::from(f32::EPSILON)
                + 2.0 * f64::from(f32::EPSILON) * w.length() * t
                + 1.0e-5;
            if angle.is_nan() || angle > tol {
                return Err(format!(
                    "is not a save of this scene: colliders[{i}].rotation: save has [{}, {}, {}, {}], {angle:.3e} rad from where the collider's angular_velocity turns it in the {steps} substeps (t = {t:.6} s) the save ran",
                    ca.rotation().x,
                    ca.rotation().y,
                    ca.rotation().z,
                    ca.rotation().w
                ));
            }
        }
        // The last substep swept the collider to its pose: the pose the
        // next one sweeps from is that pose (before any substep, the
        // scene's).
        if a.stepped_pose(ha).map_err(|e| e.to_string())? != (ca.position(), ca.rotation()) {
            return Err(format!(
                "is not a save of this scene: colliders[{i}].stepped: save has a pose the last substep used other than the collider's pose (a kinematic collider's are the same between frames)"
            ));
        }
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
