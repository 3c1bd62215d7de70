//! What every command sets up from its options: the worker threads, the
//! number of frames, the simulated seconds.

use super::error::CliError;

/// Builds a rayon pool of `threads` workers (all cores when `None`).
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 || n > 1024 {
            return Err(CliError::Usage(format!(
                "--threads: must be between 1 and 1024, got {n}"
            )));
        }
        b = b.num_threads(n);
    }
    b.build()
        .map_err(|e| CliError::Other(format!("cannot start worker threads: {e}")))
}

/// Most frames one run may have (`--seconds` / `--frame-dt`): 10 million,
/// 46 hours of simulated time at 60 frames a second. More is refused
/// (exit 2) rather than run for ever.
pub const MAX_FRAMES: u64 = 10_000_000;

/// Frames in `seconds` of frames of `dt` ([`frame_count`]), refused
/// (exit 2, naming both options) beyond [`MAX_FRAMES`].
pub fn checked_frames(seconds: f64, dt: f32) -> Result<u64, CliError> {
    let x = seconds / f64::from(dt);
    if !x.is_finite() || x > MAX_FRAMES as f64 {
        return Err(CliError::Usage(format!(
            "--frame-dt: --seconds {seconds} / --frame-dt {dt} gives {x:.3e} frames, more than the most of {MAX_FRAMES}; raise --frame-dt or lower --seconds"
        )));
    }
    Ok(frame_count(seconds, dt).min(MAX_FRAMES))
}

/// Checks `--seconds`: finite, 0..=1e6.
pub fn check_seconds(s: f64) -> Result<f64, CliError> {
    if s.is_finite() && (0.0..=1.0e6).contains(&s) {
        Ok(s)
    } else {
        Err(CliError::Usage(format!(
            "--seconds: must be a number between 0 and 1e6, got {s}"
        )))
    }
}

/// Frames in `seconds` of frames of `dt`: the nearest whole number when
/// within rounding of one, else rounded up.
pub fn frame_count(seconds: f64, dt: f32) -> u64 {
    let x = seconds / f64::from(dt);
    let r = x.round();
    if (x - r).abs() <= 1.0e-6 * x.max(1.0) {
        r as u64
    } else {
        x.ceil() as u64
    }
}
