//! Sockets: a position and rotation on a cable, for attaching a hook, a lamp
//! or a particle effect (UE's `GetSocketTransform` with `CableStart` and
//! `CableEnd`, plus any distance along the cable).

use cable_core::mesh::{MeshBuffers, MeshOptions};
use cable_core::{CableError, CableHandle, ParticlePool};
use glam::{Mat3, Quat, Vec3};

use crate::frame::{direction, first_direction, seed_normal, transport};

/// Where on a cable a socket sits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SocketAt {
    /// Particle 0 (UE's `CableStart`).
    Start,
    /// The last particle (UE's `CableEnd`).
    End,
    /// This many metres along the cable's current polyline from its start;
    /// clamped to the cable's current length.
    Distance(f32),
}

/// A rigid transform: where a socket is and how it is turned.
///
/// The rotation maps local +X onto the cable's direction (towards its end),
/// local +Y onto the normal at `u = 0` of the tube mesh built with the same
/// reference direction, and local +Z onto X × Y.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SocketTransform {
    /// Position, metres.
    pub position: Vec3,
    /// Rotation from socket space to world space (unit).
    pub rotation: Quat,
}

impl SocketTransform {
    /// The cable's direction at the socket (local +X in world space).
    #[inline]
    #[must_use]
    pub fn forward(&self) -> Vec3 {
        self.rotation * Vec3::X
    }

    /// A point given in socket space, in world space.
    #[inline]
    #[must_use]
    pub fn transform_point(&self, local: Vec3) -> Vec3 {
        self.position + self.rotation * local
    }
}

/// The socket transform at `at` on the cable through `points`, with the roll
/// fixed by `reference` as in [`MeshOptions::reference`] and carried along
/// by parallel transport over the segment directions.
///
/// # Errors
/// Fewer than 2 points, a non-finite distance, or a zero or non-finite
/// reference direction.
///
/// # Example
/// ```
/// use cable_systems::socket::{SocketAt, socket_transform};
/// use glam::Vec3;
///
/// let pts = [Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, -1.0, 0.0)];
/// let end = socket_transform(&pts, SocketAt::End, Vec3::Z)?;
/// assert_eq!(end.position, pts[2]);
/// assert!((end.forward() - Vec3::NEG_Y).length() < 1e-6); // hangs down
/// let mid = socket_transform(&pts, SocketAt::Distance(1.5), Vec3::Z)?;
/// assert!((mid.position - Vec3::new(1.0, -0.5, 0.0)).length() < 1e-6);
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn socket_transform(
    points: &[Vec3],
    at: SocketAt,
    reference: Vec3,
) -> Result<SocketTransform, CableError> {
    if points.len() < 2 {
        return Err(CableError::TooFew {
            field: "points",
            min: 2,
            got: points.len(),
        });
    }
    MeshOptions {
        reference,
        ..MeshOptions::default()
    }
    .validate()?;
    let t = first_direction(points);
    walk(points, at, t, seed_normal(t, reference))
}

/// The socket transform of a cable with the roll of its tube in `mesh`
/// exactly (the mesh's first-ring frame carried along the cable), which
/// matters when the mesh was built with [`MeshOptions::coherent_roll`].
///
/// # Errors
/// A stale handle, a cable that is not in `mesh`, or a non-finite distance.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool, mesh::{MeshBuffers, MeshOptions}};
/// use cable_systems::{mesh::build_meshes, socket::{SocketAt, mesh_socket}};
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
/// let mut mesh = MeshBuffers::new();
/// build_meshes(&pool, &MeshOptions::default(), &mut mesh)?;
/// let s = mesh_socket(&pool, &mesh, h, SocketAt::Start)?;
/// assert!((s.rotation * Vec3::Y - mesh.vertices[0].nrm()).length() < 1e-6);
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn mesh_socket(
    pool: &ParticlePool,
    mesh: &MeshBuffers,
    handle: CableHandle,
    at: SocketAt,
) -> Result<SocketTransform, CableError> {
    let points = pool.positions(handle)?;
    let rec = mesh.cable(handle).ok_or(CableError::StaleHandle(handle))?;
    let t = first_direction(points);
    let n = if rec.start_normal.length_squared() > 0.5 {
        transport(rec.start_normal, rec.start_tangent, t)
    } else {
        seed_normal(t, MeshOptions::default().reference)
    };
    walk(points, at, t, n)
}

/// Walks `points` from the frame (`t`, `n`) at the start to `at`.
fn walk(points: &[Vec3], at: SocketAt, t: Vec3, n: Vec3) -> Result<SocketTransform, CableError> {
    if points.len() < 2 {
        return Err(CableError::TooFew {
            field: "points",
            min: 2,
            got: points.len(),
        });
    }
    let (mut t, mut n) = (t, n);
    let target = match at {
        SocketAt::Start => 0.0,
        SocketAt::End => f32::INFINITY,
        SocketAt::Distance(d) => cable_core::error::check_finite("distance", d)?.max(0.0),
    };
    let mut arc = 0.0f32;
    let mut position = points[points.len() - 1];
    for w in points.windows(2) {
        let d = w[1] - w[0];
        let len = d.length();
        if let Some(dir) = direction(d) {
            n = transport(n, t, dir);
            t = dir;
        }
        if arc + len >= target {
            position = w[0] + t * (target - arc).max(0.0);
            break;
        }
        arc += len;
    }
    let rotation = Quat::from_mat3(&Mat3::from_cols(t, n, t.cross(n))).normalize();
    Ok(SocketTransform { position, rotation })
}

/// The socket transform of a cable of `pool` (see [`socket_transform`]),
/// with the roll seeded from `options.reference`: the roll of the cable's
/// tube on its first build. Use [`mesh_socket`] to follow a mesh built with
/// [`MeshOptions::coherent_roll`] over many frames.
///
/// # Errors
/// A stale handle, a non-finite distance or invalid options.
pub fn cable_socket(
    pool: &ParticlePool,
    handle: CableHandle,
    at: SocketAt,
    options: &MeshOptions,
) -> Result<SocketTransform, CableError> {
    socket_transform(pool.positions(handle)?, at, options.reference)
}
