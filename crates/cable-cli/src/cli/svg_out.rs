//! The `--svg FILE` writer shared by `cable run` and `cable demo`.

use std::io::{BufWriter, Write};
use std::path::Path;

use cable_debug::{Recorder, SvgOptions, ViewDir};

use super::CliError;
use super::staged::Staged;

/// Most particle positions (particles × frames) an animated SVG holds;
/// longer or bigger runs keep fewer, evenly spaced frames.
const PARTICLE_FRAMES: usize = 1_000_000;
/// Faint earlier frames behind the still of `--svg-still`.
const GHOSTS: usize = 10;
/// Most frames of an animated SVG.
const MAX_FRAMES: usize = 300;

/// How many frames to record for a run of `particles` particles.
pub fn capacity(particles: usize) -> usize {
    (PARTICLE_FRAMES / particles.max(1)).clamp(2, MAX_FRAMES)
}

/// An SVG output whose temporary file is created before the run (so an
/// unwritable path fails at once), written after it.
pub struct SvgOut {
    staged: Staged,
    title: String,
    still: bool,
    view: ViewDir,
}

impl SvgOut {
    /// Creates the file. `still`: a still of the final frame
    /// coloured by strain over faint earlier frames, instead of the animation.
    pub fn create(path: &Path, title: &str, still: bool, view: ViewDir) -> Result<Self, CliError> {
        Ok(Self {
            staged: Staged::create("--svg", path)?,
            title: title.to_owned(),
            still,
            view,
        })
    }

    /// Checks that recording a run of `particles` particles fits the
    /// budget of [`PARTICLE_FRAMES`] positions (at least 2 frames are kept:
    /// the first and the last), before anything is recorded: exit 1 naming
    /// the output and the sizes otherwise.
    pub fn check_budget(&self, particles: usize) -> Result<(), CliError> {
        let need = particles.saturating_mul(2);
        if need > PARTICLE_FRAMES {
            return Err(CliError::Other(format!(
                "{}: a picture of {particles} particles needs {need} recorded positions (2 frames), more than the budget of {PARTICLE_FRAMES}",
                self.staged.label()
            )));
        }
        Ok(())
    }

    /// Renders the recording into the temporary file, ready for
    /// [`Staged::commit`].
    pub fn write(mut self, recorder: &Recorder) -> Result<Staged, CliError> {
        let last = recorder.frames().last().map_or(0.0, |f| f.time);
        // Tensions in the last frame (`cable run --tension`): colour by
        // them, full red at the largest.
        let largest = recorder.frames().last().and_then(|f| {
            f.cables
                .iter()
                .flat_map(|c| c.tension.iter().copied())
                .filter(|t| t.is_finite())
                .reduce(f32::max)
        });
        let tension_scale = largest.map(|t| t.clamp(1.0e-3, 1.0e12));
        let opts = SvgOptions {
            title: Some(if self.still {
                match tension_scale {
                    Some(t) => format!(
                        "{}: t = {last:.2} s, segments coloured by tension (red: {t:.3} N), earlier frames faint",
                        self.title
                    ),
                    None => format!(
                        "{}: t = {last:.2} s, segments coloured by strain, earlier frames faint",
                        self.title
                    ),
                }
            } else {
                format!(
                    "{}: {:.2} s, {} frames",
                    self.title,
                    last,
                    recorder.frames().len()
                )
            }),
            strain: self.still,
            tension_scale: if self.still { tension_scale } else { None },
            view: self.view,
            ..SvgOptions::default()
        };
        let text = if self.still {
            recorder.trail_svg(GHOSTS, &opts)
        } else {
            recorder.to_svg(&opts)
        }
        .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        let mut w = BufWriter::new(self.staged.file());
        let res = w.write_all(text.as_bytes()).and_then(|()| w.flush());
        drop(w);
        res.map_err(|e| self.staged.io_err(&e))?;
        Ok(self.staged)
    }
}
