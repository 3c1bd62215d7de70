//! The mesh system: tube or ribbon meshes of every cable, built in parallel
//! over cables into one reused vertex buffer and one index buffer
//! ([`cable_core::mesh::MeshBuffers`]).
//!
//! # Steps of [`build_meshes`]
//! 1. layout: each cable's vertex and index ranges from its particle count,
//!    `sides` and the options (sequential, cheap; no allocation once the
//!    buffers have grown to size);
//! 2. fill: the cables are split recursively at cable boundaries into pieces
//!    of at least [`MESH_GRAIN`] vertices, run with `rayon::join`; each cable
//!    is meshed by one call writing only its own ranges, so the result is
//!    bitwise identical whatever the thread count;
//! 3. bounds: the union of the cables' boxes.
//!
//! Each cable is meshed along its centre line: one ring per particle, or
//! `rings_per_segment` rings per segment on a centripetal Catmull-Rom curve
//! through the particles. Ring tangents are central differences of the ring
//! centres; ring frames come from parallel transport ([`crate::frame`]), so
//! tubes neither twist nor flip. Coincident particles reuse the previous
//! tangent, so no ring degenerates. A tube's ring at a bend is a mitre:
//! stretched along the bend by `1 / cos(θ/2)` (at most 4), so its vertices
//! lie at the radius from both neighbouring pieces of the centre line
//! instead of pinching the tube to `r·cos(θ/2)`; normals stay the unit
//! radial directions.

use cable_core::mesh::{Aabb, CableMesh, MeshBuffers, MeshOptions, MeshStyle, Vertex};
use cable_core::{CableError, CableHandle, CableParams, ParticlePool};
use glam::Vec3;

use crate::frame::{direction, first_direction, seed_normal, transport};

/// Smallest piece of work, in vertices, that [`build_meshes`] hands to one
/// rayon task.
pub const MESH_GRAIN: usize = 8192;

/// Builds the meshes of every live cable of `pool` into `out`, reusing its
/// buffers (no allocation per frame once the sizes are stable).
///
/// Per-cable `radius`, `sides` and `tile` come from each cable's
/// [`CableParams`]; the style and smoothing from `options`. See
/// [`cable_core::mesh`] for the counts and the vertex layout, and the module
/// docs for the steps. The triangles of a broken segment
/// ([`ParticlePool::break_segment`]) are degenerate (all three corners one
/// vertex): the tube shows the gap and the buffer sizes stay those of the
/// table.
///
/// # Errors
/// Invalid `options`, meshes too big for `u32` indices, or
/// [`CableError::OutOfMemory`] when the buffers cannot be allocated (check
/// [`mesh_bytes`] against a budget first to refuse big meshes early). `out`
/// is left empty on error.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool, mesh::{MeshBuffers, MeshOptions}};
/// use cable_systems::mesh::build_meshes;
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 4.0, 5.0, 16)?)?;
/// let mut mesh = MeshBuffers::new();
/// build_meshes(&pool, &MeshOptions::default(), &mut mesh)?;
/// assert_eq!(mesh.vertices.len(), 17 * 9); // 17 rings of 8 sides + seam
/// assert_eq!(mesh.indices.len(), 16 * 8 * 6);
/// assert!(mesh.bounds.contains(Vec3::new(2.0, 0.0, 0.05)));
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn build_meshes(
    pool: &ParticlePool,
    options: &MeshOptions,
    out: &mut MeshBuffers,
) -> Result<(), CableError> {
    crate::trace::span!("cable.mesh");
    out.layout(
        pool.handles().map(|h| {
            // Handles come from the pool itself, so both look-ups succeed.
            let n = pool.particle_count_of(h).unwrap_or(0);
            let sides = pool.params(h).map_or(3, |p| p.sides);
            (h, n, sides)
        }),
        options,
    )?;
    // `fill` writes records in place (bounds, start frames), never their
    // handles or order, so the buffers' handle index stays valid.
    let MeshBuffers {
        vertices,
        indices,
        cables,
        bounds,
        points,
        ..
    } = out;
    fill(pool, options, cables, vertices, indices, points);
    *bounds = cables.iter().fold(Aabb::EMPTY, |b, c| b.union(c.bounds));
    Ok(())
}

/// Bytes of vertex and index buffer that [`build_meshes`] needs for `pool`
/// with `options` (48 per vertex, 4 per index), computed without
/// allocating: check it against a memory budget before meshing. Saturates
/// at `u64::MAX` when a cable's counts overflow `u32` (which
/// [`build_meshes`] refuses anyway).
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool, mesh::MeshOptions};
/// use cable_systems::mesh::mesh_bytes;
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 4.0, 5.0, 16)?)?;
/// // 17 rings of 9 vertices, 16 gaps of 8 sides × 6 indices
/// assert_eq!(mesh_bytes(&pool, &MeshOptions::default()), 17 * 9 * 48 + 16 * 8 * 6 * 4);
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[must_use]
pub fn mesh_bytes(pool: &ParticlePool, options: &MeshOptions) -> u64 {
    let vertex = std::mem::size_of::<Vertex>() as u64;
    pool.handles().fold(0u64, |total, h| {
        // Handles come from the pool itself, so both look-ups succeed.
        let n = pool.particle_count_of(h).unwrap_or(0);
        let sides = pool.params(h).map_or(3, |p| p.sides);
        match options.counts(n, sides) {
            Some(c) => total
                .saturating_add(u64::from(c.vertices).saturating_mul(vertex))
                .saturating_add(u64::from(c.indices).saturating_mul(4)),
            None if n < 2 => total,
            None => u64::MAX,
        }
    })
}

/// The box holding a cable's particles grown by its radius (UE's
/// `CalcBounds`) times the largest mitre stretch at its bends (a tube's
/// ring at a bend reaches `radius / cos(θ/2)` out, see the module docs),
/// without building a mesh: for culling before meshing. It equals the
/// cable's [`CableMesh::bounds`] for unsmoothed tubes; a smoothed curve may
/// bulge slightly beyond the particles, so use the mesh's own bounds there.
///
/// # Errors
/// [`CableError::StaleHandle`] when the handle is not live.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_systems::mesh::cable_bounds;
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
/// let b = cable_bounds(&pool, h)?; // default radius 0.05 m
/// assert_eq!((b.min, b.max), (Vec3::splat(-0.05), Vec3::new(1.05, 0.05, 0.05)));
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn cable_bounds(pool: &ParticlePool, handle: CableHandle) -> Result<Aabb, CableError> {
    let radius = pool.params(handle)?.radius;
    let pts = pool.positions(handle)?;
    let mut stretch = 1.0f32;
    for w in pts.windows(3) {
        // The mesh's ring tangent at an inner particle: the central difference.
        let t = direction(w[2] - w[0]).unwrap_or(Vec3::X);
        if let Some((_, k)) = mitre(w[0], w[1], w[2], t) {
            stretch = stretch.max(k);
        }
    }
    Ok(Aabb::of_points(pts).expand(radius * stretch))
}

/// Meshes a run of cables whose ranges start at `cables[0]`'s first vertex,
/// index and point.
fn fill(
    pool: &ParticlePool,
    options: &MeshOptions,
    cables: &mut [CableMesh],
    vertices: &mut [Vertex],
    indices: &mut [u32],
    points: &mut [Vec3],
) {
    let Some(first) = cables.first() else {
        return;
    };
    let (base_v, base_i, base_p) = (first.first_vertex, first.first_index, first.first_point);
    if cables.len() > 1 && vertices.len() > MESH_GRAIN {
        // Split at the cable nearest the middle vertex: depends on the scene only.
        let mid = base_v + (vertices.len() / 2) as u32;
        let k = cables
            .partition_point(|c| c.first_vertex < mid)
            .clamp(1, cables.len() - 1);
        let (c0, c1) = cables.split_at_mut(k);
        let (v0, v1) = vertices.split_at_mut((c1[0].first_vertex - base_v) as usize);
        let (i0, i1) = indices.split_at_mut((c1[0].first_index - base_i) as usize);
        let (p0, p1) = points.split_at_mut((c1[0].first_point - base_p) as usize);
        rayon::join(
            || fill(pool, options, c0, v0, i0, p0),
            || fill(pool, options, c1, v1, i1, p1),
        );
        return;
    }
    for c in cables {
        let v0 = (c.first_vertex - base_v) as usize;
        let i0 = (c.first_index - base_i) as usize;
        let verts = &mut vertices[v0..v0 + c.counts.vertices as usize];
        let idx = &mut indices[i0..i0 + c.counts.indices as usize];
        let p0 = (c.first_point - base_p) as usize;
        let pos = &mut points[p0..p0 + c.particles as usize];
        // Each cable read where it lives (`copy_positions_to`): a layout
        // that keeps its own rows is not made to write every cable back.
        if let (Ok(()), Ok(params)) = (pool.copy_positions_to(c.handle, pos), pool.params(c.handle))
        {
            mesh_cable(pos, params, options, c, verts, idx);
            if let Ok(rows) = pool.row_consts(c.handle) {
                close_broken(idx, rows, options, params.sides);
            }
        }
    }
}

/// Sine and cosine of `2π j / sides` for `j = 0..=sides`; the last entry is
/// exactly the first, so the seam closes bit for bit.
struct RingTable {
    sin_cos: [(f32, f32); cable_core::mesh::MAX_SIDES as usize + 1],
}

impl RingTable {
    fn new(sides: u32) -> Self {
        let mut sin_cos = [(0.0, 1.0); cable_core::mesh::MAX_SIDES as usize + 1];
        let step = std::f32::consts::TAU / sides as f32;
        for (j, sc) in sin_cos.iter_mut().enumerate().take(sides as usize) {
            *sc = (j as f32 * step).sin_cos();
        }
        Self { sin_cos }
    }
}

/// The centre line of one cable: ring centres on the polyline or on the
/// centripetal Catmull-Rom curve through the particles.
struct Centerline<'a> {
    pts: &'a [Vec3],
    k: u32,
    inv_k: f32,
    segments: u32,
    /// The curve piece of the segment last evaluated (rings come in order).
    piece: Piece,
}

impl Centerline<'_> {
    /// Segment and curve parameter in 0..=1 of ring `r`.
    #[inline]
    fn locate(&self, r: u32) -> (usize, f32) {
        let i = (r / self.k).min(self.segments - 1);
        let s = (r - i * self.k) as f32 * self.inv_k;
        (i as usize, s)
    }

    #[inline]
    fn point(&mut self, r: u32) -> Vec3 {
        let (i, s) = self.locate(r);
        if s >= 1.0 {
            self.pts[i + 1]
        } else if self.k == 1 || s == 0.0 {
            self.pts[i]
        } else {
            if self.piece.segment != i {
                self.piece = Piece::new(self.pts, i);
            }
            self.piece.eval(s)
        }
    }
}

/// Centripetal Catmull-Rom (α = ½, Barry-Goldman) on one segment: its four
/// control points and knots. Missing or coincident neighbours are replaced
/// by reflections, and a zero-length segment is a straight (constant) piece.
struct Piece {
    segment: usize,
    p: [Vec3; 4],
    /// Knots t1, t2, t3 (t0 = 0).
    t: [f32; 3],
    linear: bool,
}

impl Piece {
    const NONE: Piece = Piece {
        segment: usize::MAX,
        p: [Vec3::ZERO; 4],
        t: [0.0; 3],
        linear: true,
    };

    fn new(pts: &[Vec3], i: usize) -> Self {
        let (p1, p2) = (pts[i], pts[i + 1]);
        let d12 = p1.distance(p2);
        let mut p0 = if i > 0 { pts[i - 1] } else { 2.0 * p1 - p2 };
        let mut p3 = pts.get(i + 2).copied().unwrap_or(2.0 * p2 - p1);
        if p0.distance(p1) <= cable_core::MIN_SEGMENT_LENGTH {
            p0 = 2.0 * p1 - p2;
        }
        if p3.distance(p2) <= cable_core::MIN_SEGMENT_LENGTH {
            p3 = 2.0 * p2 - p1;
        }
        let t1 = p0.distance(p1).sqrt();
        let t2 = t1 + d12.sqrt();
        let t3 = t2 + p2.distance(p3).sqrt();
        Self {
            segment: i,
            p: [p0, p1, p2, p3],
            t: [t1, t2, t3],
            linear: d12 <= cable_core::MIN_SEGMENT_LENGTH,
        }
    }

    #[inline]
    fn eval(&self, s: f32) -> Vec3 {
        let [p0, p1, p2, p3] = self.p;
        if self.linear {
            return p1.lerp(p2, s);
        }
        let [t1, t2, t3] = self.t;
        let t = t1 + s * (t2 - t1);
        let a1 = p0 * ((t1 - t) / t1) + p1 * (t / t1);
        let a2 = p1 * ((t2 - t) / (t2 - t1)) + p2 * ((t - t1) / (t2 - t1));
        let a3 = p2 * ((t3 - t) / (t3 - t2)) + p3 * ((t - t2) / (t3 - t2));
        let b1 = a1 * ((t2 - t) / t2) + a2 * (t / t2);
        let b2 = a2 * ((t3 - t) / (t3 - t1)) + a3 * ((t - t1) / (t3 - t1));
        b1 * ((t2 - t) / (t2 - t1)) + b2 * ((t - t1) / (t2 - t1))
    }
}

/// Meshes one cable into its own vertex and index ranges; sets its bounds
/// and start frame.
fn mesh_cable(
    pts: &[Vec3],
    params: &CableParams,
    options: &MeshOptions,
    rec: &mut CableMesh,
    vertices: &mut [Vertex],
    indices: &mut [u32],
) {
    let segments = rec.counts.rings.saturating_sub(1) / options.rings_per_segment;
    if pts.len() < 2 || segments as usize != pts.len() - 1 {
        return; // layout and pool disagree: impossible within one build
    }
    let mut line = Centerline {
        pts,
        k: options.rings_per_segment,
        inv_k: 1.0 / options.rings_per_segment as f32,
        segments,
        piece: Piece::NONE,
    };
    let rings = rec.counts.rings;
    let rv = rec.ring_vertices as usize;
    let total: f32 = pts.windows(2).map(|w| w[0].distance(w[1])).sum();
    let v_scale = if total > cable_core::MIN_SEGMENT_LENGTH {
        params.tile / total
    } else {
        0.0
    };
    let radius = params.radius;
    let table = match options.style {
        MeshStyle::Tube => Some(RingTable::new(params.sides)),
        MeshStyle::Ribbon { .. } => None,
    };
    let view = match options.style {
        MeshStyle::Ribbon { view, .. } => view.normalize_or(Vec3::NEG_Z),
        MeshStyle::Tube => Vec3::NEG_Z,
    };

    let (mut prev, mut cur, mut next) = (pts[0], pts[0], line.point(1));
    let mut t = first_direction(pts);
    let mut n = Vec3::ZERO;
    let mut side = Vec3::ZERO;
    let (mut seg, mut arc) = (0usize, 0.0f32);
    let mut bounds = Aabb::EMPTY;
    let mut stretch = 1.0f32; // largest mitre stretch: the bounds grow by it
    let mut ring_slots = vertices.chunks_exact_mut(rv);
    for r in 0..rings {
        let (i, s) = line.locate(r);
        while seg < i {
            arc += pts[seg].distance(pts[seg + 1]);
            seg += 1;
        }
        let v = (arc + s * pts[i].distance(pts[i + 1])) * v_scale;
        let new_t = direction(next - prev).unwrap_or(t);
        if r == 0 {
            let carried = rec.start_normal.length_squared() > 0.5 && options.coherent_roll;
            n = if carried {
                transport(rec.start_normal, rec.start_tangent, new_t)
            } else {
                seed_normal(new_t, options.reference)
            };
            t = new_t;
            side = n;
            (rec.start_tangent, rec.start_normal) = (t, n);
        } else {
            n = transport(n, t, new_t);
            t = new_t;
        }
        let Some(ring) = ring_slots.next() else {
            break; // the layout sized the buffer for `rings` rings
        };
        match (&table, options.style) {
            (Some(table), _) => {
                let mitre = mitre(prev, cur, next, t);
                if let Some((_, k)) = mitre {
                    stretch = stretch.max(k);
                }
                tube_ring(ring, cur, t, n, radius, v, params.sides, table, mitre);
            }
            (None, MeshStyle::Ribbon { two_sided, .. }) => {
                side = direction(t.cross(view)).unwrap_or(side);
                ribbon_ring(ring, cur, t, side, radius, v, two_sided);
            }
            (None, MeshStyle::Tube) => {}
        }
        bounds = bounds.with_point(cur);
        prev = cur;
        cur = next;
        if r + 2 < rings {
            next = line.point(r + 2);
        }
    }
    write_indices(indices, rec, options, params.sides);
    rec.bounds = bounds.expand(radius * stretch);
}

/// The mitre of a ring at `cur` between the centre-line pieces from `prev`
/// and to `next`, with ring normal `t`: the in-plane bend direction and
/// the factor `1 / cos(θ/2)` by which the ring stretches along it, so
/// that its vertices lie on both neighbouring cylinders instead of
/// pinching the tube to `r·cos(θ/2)`. `None` on a straight piece or an
/// end. The stretch is capped at 4 (a fold back on itself).
#[inline]
fn mitre(prev: Vec3, cur: Vec3, next: Vec3, t: Vec3) -> Option<(Vec3, f32)> {
    let (d_in, d_out) = (direction(cur - prev)?, direction(next - cur)?);
    let bend = d_out - d_in;
    let axis = direction(bend - t * t.dot(bend))?;
    let cos_half = t.dot(d_in).clamp(0.25, 1.0);
    Some((axis, 1.0 / cos_half))
}

/// Writes one tube ring: `sides + 1` vertices around centre `c`, stretched
/// along a mitre's bend direction (see [`mitre`]). Normals stay the unit
/// radial directions.
#[allow(clippy::too_many_arguments)] // one call site; a struct would only rename them
#[inline]
fn tube_ring(
    ring: &mut [Vertex],
    c: Vec3,
    t: Vec3,
    n: Vec3,
    radius: f32,
    v: f32,
    sides: u32,
    table: &RingTable,
    mitre: Option<(Vec3, f32)>,
) {
    let b = t.cross(n);
    let inv = 1.0 / sides as f32;
    for (j, (out, &(sin, cos))) in ring.iter_mut().zip(&table.sin_cos).enumerate() {
        let dir = n * cos + b * sin;
        let offset = match mitre {
            Some((axis, k)) => dir + axis * (dir.dot(axis) * (k - 1.0)),
            None => dir,
        };
        *out = Vertex {
            position: (c + offset * radius).to_array(),
            normal: dir.to_array(),
            tangent: [t.x, t.y, t.z, -1.0],
            uv: [
                if j as u32 == sides {
                    1.0
                } else {
                    j as f32 * inv
                },
                v,
            ],
        };
    }
}

/// Writes one ribbon ring: the two edge vertices (and their back-face twins).
#[inline]
fn ribbon_ring(ring: &mut [Vertex], c: Vec3, t: Vec3, side: Vec3, radius: f32, v: f32, two: bool) {
    let nrm = t.cross(side);
    let edge = [c - side * radius, c + side * radius];
    for (j, e) in edge.iter().enumerate() {
        ring[j] = Vertex {
            position: e.to_array(),
            normal: nrm.to_array(),
            tangent: [t.x, t.y, t.z, 1.0],
            uv: [j as f32, v],
        };
        if two {
            ring[j + 2] = Vertex {
                normal: (-nrm).to_array(),
                tangent: [t.x, t.y, t.z, -1.0],
                ..ring[j]
            };
        }
    }
}

/// Turns the triangles of broken segments
/// ([`cable_core::ParticlePool::break_segment`]) into degenerate ones (all
/// three corners the same vertex): the tube shows the gap, the buffer
/// sizes stay those of the table.
fn close_broken(
    indices: &mut [u32],
    rows: &[cable_core::RowConst],
    options: &MeshOptions,
    sides: u32,
) {
    let gap = options.gap_indices(sides) as usize;
    let k = options.rings_per_segment.max(1) as usize;
    for (r, out) in indices.chunks_exact_mut(gap).enumerate() {
        if rows.get(r / k).is_some_and(|row| !row.linked) {
            let a = out[0];
            out.fill(a);
        }
    }
}

/// Writes a cable's triangles: counter-clockwise seen from outside the tube
/// (from the viewer for a ribbon's front face).
fn write_indices(indices: &mut [u32], rec: &CableMesh, options: &MeshOptions, sides: u32) {
    let rv = rec.ring_vertices;
    let gap = options.gap_indices(sides) as usize;
    for (r, out) in indices.chunks_exact_mut(gap).enumerate() {
        let a0 = rec.first_vertex + r as u32 * rv;
        let b0 = a0 + rv;
        match options.style {
            MeshStyle::Tube => {
                for (j, q) in out.chunks_exact_mut(6).enumerate() {
                    let j = j as u32;
                    let (a, b, c, d) = (a0 + j, a0 + j + 1, b0 + j, b0 + j + 1);
                    q.copy_from_slice(&[a, b, c, b, d, c]);
                }
            }
            MeshStyle::Ribbon { two_sided, .. } => {
                let (a, b, c, d) = (a0, a0 + 1, b0, b0 + 1);
                out[..6].copy_from_slice(&[a, c, b, b, c, d]);
                if two_sided {
                    let (a, b, c, d) = (a + 2, b + 2, c + 2, d + 2);
                    out[6..12].copy_from_slice(&[a, b, c, b, d, c]);
                }
            }
        }
    }
}
