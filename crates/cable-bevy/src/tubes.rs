//! The `PostUpdate` system that rebuilds [`CableTube`] meshes in place.

use std::collections::HashMap;

use bevy_asset::{Assets, RenderAssetUsages};
use bevy_ecs::prelude::*;
use bevy_mesh::{Indices, Mesh, Mesh3d, PrimitiveTopology, VertexAttributeValues};
use cable_core::CableHandle;
use cable_core::mesh::{MeshState, Vertex};
use cable_systems::mesh::build_meshes;

use crate::components::{CableBody, CableHidden, CableInterpolated, CableTube};
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
        Has<CableInterpolated>,
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
    for (entity, body, mesh3d, hidden, interpolated) in &tubes {
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
        // Interpolated: mixed with the mesh before the last step, when it
        // has the same vertices (no winch changed the count since).
        let before = interpolated
            .then(|| sim.prev_mesh.cable(body.handle))
            .flatten()
            .filter(|p| {
                matches!(p.state, MeshState::Built { .. })
                    && p.counts.vertices == cable.counts.vertices
            })
            .map(|p| &sim.prev_mesh.vertices[p.vertex_range()]);
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
        write_tube(
            &mut mesh,
            vertices,
            before.map(|b| (b, sim.fraction)),
            indices,
            first,
        );
    }
}

/// Writes one cable's vertices and indices into `mesh`, reusing its
/// buffers; with `before` (the same cable's vertices before the last step,
/// and the overstep fraction), the vertices mixed from those to these.
fn write_tube(
    mesh: &mut Mesh,
    vertices: &[Vertex],
    before: Option<(&[Vertex], f32)>,
    indices: &[u32],
    first: u32,
) {
    let mixed: Vec<Vertex>;
    let vertices = match before {
        Some((before, f)) if before.len() == vertices.len() => {
            mixed = before
                .iter()
                .zip(vertices)
                .map(|(a, b)| mix(a, b, f))
                .collect();
            &mixed[..]
        }
        _ => vertices,
    };
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

/// One vertex between `a` (fraction 0) and `b` (fraction 1): positions and
/// texture coordinates mixed, normal and tangent mixed and renormalised
/// (the tangent's handedness is `b`'s).
fn mix(a: &Vertex, b: &Vertex, f: f32) -> Vertex {
    use bevy_math::{Vec2, Vec3};
    let unit = |x: Vec3, y: Vec3| {
        let m = x.lerp(y, f);
        m.try_normalize().unwrap_or(y)
    };
    let tangent = unit(
        Vec3::from_slice(&a.tangent[..3]),
        Vec3::from_slice(&b.tangent[..3]),
    );
    Vertex {
        position: Vec3::from(a.position)
            .lerp(Vec3::from(b.position), f)
            .to_array(),
        normal: unit(Vec3::from(a.normal), Vec3::from(b.normal)).to_array(),
        tangent: [tangent.x, tangent.y, tangent.z, b.tangent[3]],
        uv: Vec2::from(a.uv).lerp(Vec2::from(b.uv), f).to_array(),
    }
}
