//! The `--svg FILE` writer shared by `cable run` and `cable demo`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use cable_debug::{Recorder, SvgOptions, ViewDir};

use super::CliError;

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

/// An SVG file opened before the run (so an unwritable path fails at once)
/// and written after it.
pub struct SvgOut {
    path: PathBuf,
    file: File,
    title: String,
    still: bool,
    view: ViewDir,
}

impl SvgOut {
    /// Creates the file. `still`: a still of the final frame
    /// coloured by strain over faint earlier frames, instead of the animation.
    pub fn create(path: &Path, title: &str, still: bool, view: ViewDir) -> Result<Self, CliError> {
        let file = File::create(path).map_err(|e| io_err(path, &e))?;
        Ok(Self {
            path: path.to_owned(),
            file,
            title: title.to_owned(),
            still,
            view,
        })
    }

    /// Renders the recording and writes it.
    pub fn write(self, recorder: &Recorder) -> Result<(), CliError> {
        let last = recorder.frames().last().map_or(0.0, |f| f.time);
        let opts = SvgOptions {
            title: Some(if self.still {
                format!(
                    "{}: t = {last:.2} s, segments coloured by strain, earlier frames faint",
                    self.title
                )
            } else {
                format!(
                    "{}: {:.2} s, {} frames",
                    self.title,
                    last,
                    recorder.frames().len()
                )
            }),
            strain: self.still,
            view: self.view,
            ..SvgOptions::default()
        };
        let text = if self.still {
            recorder.trail_svg(GHOSTS, &opts)
        } else {
            recorder.to_svg(&opts)
        }
        .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        let mut w = BufWriter::new(self.file);
        w.write_all(text.as_bytes())
            .and_then(|()| w.flush())
            .map_err(|e| io_err(&self.path, &e))
    }
}

fn io_err(path: &Path, e: &std::io::Error) -> CliError {
    CliError::Other(format!("cannot write {}: {e}", path.display()))
}
