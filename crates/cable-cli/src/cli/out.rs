//! The `--out` JSON writer, streamed frame by frame into a staged file
//! ([`Staged`]) handed to the target only when the run succeeds:
//! `{"substep": h, "frames": [{"frame": i, "time": t, "cables": [[[x, y, z], ...], ...]}]}`,
//! each frame with `"tension": [[T, ...], ...]` after `cables` under `--tension`
//! and `"collider_forces": [[fx, fy, fz], ...]` after that under `--forces`.

use std::io::{BufWriter, Write};
use std::path::Path;

use cable_core::{CableHandle, ParticlePool};
use glam::Vec3;
use serde::Serialize;

use super::error::CliError;
use super::staged::{Staged, io_err};

#[derive(Serialize)]
struct Frame<'a> {
    frame: u64,
    time: f64,
    cables: Vec<&'a [Vec3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tension: Option<&'a [Vec<f32>]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    collider_forces: Option<&'a [Vec3]>,
}

/// Streams frames into a JSON file.
pub struct OutWriter {
    label: String,
    w: BufWriter<StagedWrite>,
    frames: u64,
}

/// [`Staged`] as a writer (the buffer hands it back at the end).
struct StagedWrite(Staged);

impl Write for StagedWrite {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.file().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.file().flush()
    }
}

impl OutWriter {
    /// Stages `path` (see [`Staged::create`]) and writes the header.
    pub fn create(path: &Path, substep: f32) -> Result<Self, CliError> {
        let staged = Staged::create("--out", path)?;
        let mut me = Self {
            label: staged.label(),
            w: BufWriter::with_capacity(1 << 20, StagedWrite(staged)),
            frames: 0,
        };
        let h = serde_json::to_string(&substep).map_err(|e| CliError::Other(e.to_string()))?;
        write!(me.w, "{{\"substep\":{h},\"frames\":[").map_err(|e| io_err("--out", path, &e))?;
        Ok(me)
    }

    /// Appends one frame with every cable's positions in `handles` order,
    /// with `tension` (one list of segment tensions per cable, same
    /// order) and `forces` (one force per collider, scene order) when
    /// given.
    pub fn frame(
        &mut self,
        frame: u64,
        time: f64,
        pool: &ParticlePool,
        handles: &[CableHandle],
        tension: Option<&[Vec<f32>]>,
        forces: Option<&[Vec3]>,
    ) -> Result<(), CliError> {
        let cables = handles
            .iter()
            .map(|&h| pool.positions(h))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        if self.frames > 0 {
            self.w.write_all(b",").map_err(|e| self.err(&e))?;
        }
        serde_json::to_writer(
            &mut self.w,
            &Frame {
                frame,
                time,
                cables,
                tension,
                collider_forces: forces,
            },
        )
        .map_err(|e| CliError::Other(format!("cannot write {}: {e}", self.label)))?;
        self.frames += 1;
        Ok(())
    }

    /// Closes the JSON and flushes it into the staged file, ready for
    /// [`Staged::commit`].
    pub fn finish(mut self) -> Result<Staged, CliError> {
        self.w.write_all(b"]}\n").map_err(|e| self.err(&e))?;
        let label = self.label;
        let StagedWrite(staged) = self
            .w
            .into_inner()
            .map_err(|e| CliError::Other(format!("cannot write {label}: {}", e.error())))?;
        Ok(staged)
    }

    fn err(&self, e: &std::io::Error) -> CliError {
        CliError::Other(format!("cannot write {}: {e}", self.label))
    }
}
