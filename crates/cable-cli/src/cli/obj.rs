//! The `--obj` writer: the final tube meshes of every cable as Wavefront OBJ,
//! checked against a memory budget before anything is allocated.

use std::io::BufWriter;
use std::path::Path;

use cable_core::ParticlePool;
use cable_core::mesh::{MeshBuffers, MeshOptions};
use cable_systems::mesh::{build_meshes, mesh_bytes};

use super::error::CliError;
use super::staged::Staged;

/// Most bytes of mesh buffers (48 per vertex, 4 per index) `--obj` builds:
/// 256 MiB, about 3.7 million vertices, an OBJ file of roughly 600 MB.
pub const OBJ_MESH_BUDGET: u64 = 256 << 20;

/// An OBJ output staged before the run (so an unwritable path fails fast,
/// see [`Staged::create`]), written after it.
pub struct ObjWriter {
    staged: Staged,
}

impl ObjWriter {
    /// Stages `path` ([`Staged::create`]); the target is untouched.
    pub fn create(path: &Path) -> Result<Self, CliError> {
        Ok(Self {
            staged: Staged::create("--obj", path)?,
        })
    }

    /// Checks that the meshes of `pool` fit [`OBJ_MESH_BUDGET`] (exit 1
    /// naming the output and the sizes otherwise).
    pub fn check_budget(&self, pool: &ParticlePool) -> Result<(), CliError> {
        let need = mesh_bytes(pool, &MeshOptions::default());
        if need > OBJ_MESH_BUDGET {
            return Err(CliError::Other(format!(
                "{}: the meshes need {} MiB of memory, more than the budget of {} MiB; use fewer particles or fewer sides",
                self.staged.label(),
                need.div_ceil(1 << 20),
                OBJ_MESH_BUDGET >> 20
            )));
        }
        Ok(())
    }

    /// Meshes every cable of `pool` as tubes (each cable's `radius`, `sides`
    /// and `tile`) and writes them into the staged file, ready for
    /// [`Staged::commit`].
    pub fn write(mut self, pool: &ParticlePool) -> Result<Staged, CliError> {
        self.check_budget(pool)?;
        let mut mesh = MeshBuffers::new();
        build_meshes(pool, &MeshOptions::default(), &mut mesh)
            .map_err(|e| CliError::Other(format!("{}: {e}", self.staged.label())))?;
        let res = mesh.write_obj(BufWriter::with_capacity(1 << 20, self.staged.file()));
        res.map_err(|e| self.staged.io_err(&e))?;
        Ok(self.staged)
    }
}
