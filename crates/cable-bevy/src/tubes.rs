//! The `PostUpdate` system that rebuilds [`CableTube`] meshes in place.

use std::collections::HashMap;

use bevy_asset::{Assets, RenderAssetUsages};
use bevy_ecs::prelude::*;
use bevy_mesh::{Indices, Mesh, Mesh3d, PrimitiveTopology, VertexAttributeValues};
use cable_core::CableHandle;
use cable_systems::mesh::build_meshes;

use crate::components::{CableBody, CableHidden, CableTube};
use crate::simulation::{CableSimulation, log_error};

/// The cables with a [`CableTube`]: entity, body, mesh (if it has one yet)
/// and whether it is hidden.
type Tubes<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static CableBody,
        Option<&'static Mesh3d>,
        Has<CableHidden>,
    ),
    With<CableTube>,
>;

/// Rebuilds the [`CableTube`] meshes in place (not those of
/// [`CableHidden`] cables that have one).
pub(crate) fn update_tubes(
    mut commands: Commands,
    mut sim: ResMut<CableSimulation>,
    meshes: Option<ResMut<Assets<Mesh>>>,
    tubes: Tubes,
) {
    let Some(mut meshes) = meshes else { return };
    if tubes.is_empty() {
        return;
    }
    let sim = &mut *sim;
    if let Err(e) = build_meshes(&sim.pool, &sim.mesh_options, &mut sim.mesh) {
        log_error(&format!("cable-bevy: meshes not built: {e}"));
        return;
    }
    // Per-cable ranges are in pool order; index them once by handle.
    let ranges: HashMap<CableHandle, usize> = sim
        .mesh
        .cables
        .iter()
        .enumerate()
        .map(|(i, c)| (c.handle, i))
        .collect();
    for (entity, body, mesh3d, hidden) in &tubes {
        // A hidden cable's mesh asset keeps its last contents (not
        // rewritten, so not uploaded again); it gets one when it has none.
        if hidden && mesh3d.is_some() {
            continue;
        }
        let Some(&i) = ranges.get(&body.handle) else {
            continue;
        };
        let cable = &sim.mesh.cables[i];
        let vertices = &sim.mesh.vertices[cable.vertex_range()];
        let indices = &sim.mesh.indices[cable.index_range()];
        let first = cable.first_vertex;
        let handle = match mesh3d {
            Some(m) => m.0.clone(),
            None => {
                let handle = meshes.add(Mesh::new(
                    PrimitiveTopology::TriangleList,
                    RenderAssetUsages::default(),
                ));
                commands.entity(entity).try_insert(Mesh3d(handle.clone()));
                handle
            }
        };
        let Some(mut mesh) = meshes.get_mut(&handle) else {
            continue;
        };
        write_tube(&mut mesh, vertices, indices, first);
    }
}

/// Writes one cable's vertices and indices into `mesh`, reusing its buffers.
fn write_tube(mesh: &mut Mesh, vertices: &[cable_core::mesh::Vertex], indices: &[u32], first: u32) {
    fn fill<T>(
        mesh: &mut Mesh,
        id: bevy_mesh::MeshVertexAttribute,
        n: usize,
        values: impl Iterator<Item = T>,
        wrap: fn(Vec<T>) -> VertexAttributeValues,
        unwrap: fn(&mut VertexAttributeValues) -> Option<&mut Vec<T>>,
    ) {
        match mesh
            .try_attribute_mut_option(id)
            .ok()
            .flatten()
            .and_then(unwrap)
        {
            Some(buf) => {
                buf.clear();
                buf.extend(values);
            }
            None => {
                let mut buf = Vec::with_capacity(n);
                buf.extend(values);
                let _ = mesh.try_insert_attribute(id, wrap(buf));
            }
        }
    }
    let n = vertices.len();
    fill(
        mesh,
        Mesh::ATTRIBUTE_POSITION,
        n,
        vertices.iter().map(|v| v.position),
        VertexAttributeValues::Float32x3,
        |v| match v {
            VertexAttributeValues::Float32x3(b) => Some(b),
            _ => None,
        },
    );
    fill(
        mesh,
        Mesh::ATTRIBUTE_NORMAL,
        n,
        vertices.iter().map(|v| v.normal),
        VertexAttributeValues::Float32x3,
        |v| match v {
            VertexAttributeValues::Float32x3(b) => Some(b),
            _ => None,
        },
    );
    fill(
        mesh,
        Mesh::ATTRIBUTE_TANGENT,
        n,
        vertices.iter().map(|v| v.tangent),
        VertexAttributeValues::Float32x4,
        |v| match v {
            VertexAttributeValues::Float32x4(b) => Some(b),
            _ => None,
        },
    );
    fill(
        mesh,
        Mesh::ATTRIBUTE_UV_0,
        n,
        vertices.iter().map(|v| v.uv),
        VertexAttributeValues::Float32x2,
        |v| match v {
            VertexAttributeValues::Float32x2(b) => Some(b),
            _ => None,
        },
    );
    let local = indices.iter().map(|i| i - first);
    match mesh.try_indices_mut_option().ok().flatten() {
        Some(Indices::U32(buf)) => {
            buf.clear();
            buf.extend(local);
        }
        _ => {
            let _ = mesh.try_insert_indices(Indices::U32(local.collect()));
        }
    }
}
