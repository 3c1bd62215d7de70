//! The `--obj` writer: the final tube meshes of every cable as Wavefront OBJ.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use cable_core::ParticlePool;
use cable_core::mesh::{MeshBuffers, MeshOptions};
use cable_systems::mesh::build_meshes;

use super::CliError;

/// An OBJ file opened before the run (so an unwritable path fails fast),
/// written after it.
pub struct ObjWriter {
    path: PathBuf,
    file: File,
}

impl ObjWriter {
    /// Creates (truncates) the file.
    pub fn create(path: &Path) -> Result<Self, CliError> {
        let file = File::create(path).map_err(|e| io_err(path, &e))?;
        Ok(Self {
            path: path.to_owned(),
            file,
        })
    }

    /// Meshes every cable of `pool` as tubes (each cable's `radius`, `sides`
    /// and `tile`) and writes them.
    pub fn write(self, pool: &ParticlePool) -> Result<(), CliError> {
        let mut mesh = MeshBuffers::new();
        build_meshes(pool, &MeshOptions::default(), &mut mesh)
            .map_err(|e| CliError::Other(format!("{}: {e}", self.path.display())))?;
        mesh.write_obj(BufWriter::with_capacity(1 << 20, self.file))
            .map_err(|e| io_err(&self.path, &e))
    }
}

fn io_err(path: &Path, e: &std::io::Error) -> CliError {
    CliError::Other(format!("cannot write {}: {e}", path.display()))
}
