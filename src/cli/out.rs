//! The `--out` JSON writer, streamed frame by frame:
//! `{"substep": h, "frames": [{"frame": i, "time": t, "cables": [[[x, y, z], ...], ...]}]}`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use cable_core::{CableHandle, ParticlePool};
use glam::Vec3;
use serde::Serialize;

use super::CliError;

#[derive(Serialize)]
struct Frame<'a> {
    frame: u64,
    time: f64,
    cables: Vec<&'a [Vec3]>,
}

/// Streams frames into a JSON file.
pub struct OutWriter {
    path: PathBuf,
    w: BufWriter<File>,
    frames: u64,
}

impl OutWriter {
    /// Creates the file and writes the header.
    pub fn create(path: &Path, substep: f32) -> Result<Self, CliError> {
        let file = File::create(path).map_err(|e| io_err(path, &e))?;
        let mut me = Self {
            path: path.to_owned(),
            w: BufWriter::with_capacity(1 << 20, file),
            frames: 0,
        };
        let h = serde_json::to_string(&substep).map_err(|e| CliError::Other(e.to_string()))?;
        write!(me.w, "{{\"substep\":{h},\"frames\":[").map_err(|e| io_err(path, &e))?;
        Ok(me)
    }

    /// Appends one frame with every cable's positions in `handles` order.
    pub fn frame(
        &mut self,
        frame: u64,
        time: f64,
        pool: &ParticlePool,
        handles: &[CableHandle],
    ) -> Result<(), CliError> {
        let cables = handles
            .iter()
            .map(|&h| pool.positions(h))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        if self.frames > 0 {
            self.w.write_all(b",").map_err(|e| io_err(&self.path, &e))?;
        }
        serde_json::to_writer(
            &mut self.w,
            &Frame {
                frame,
                time,
                cables,
            },
        )
        .map_err(|e| CliError::Other(format!("{}: {e}", self.path.display())))?;
        self.frames += 1;
        Ok(())
    }

    /// Closes the JSON and flushes the file.
    pub fn finish(mut self) -> Result<(), CliError> {
        self.w
            .write_all(b"]}\n")
            .map_err(|e| io_err(&self.path, &e))?;
        self.w.flush().map_err(|e| io_err(&self.path, &e))?;
        Ok(())
    }
}

fn io_err(path: &Path, e: &std::io::Error) -> CliError {
    CliError::Other(format!("cannot write {}: {e}", path.display()))
}
