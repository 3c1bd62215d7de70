//! The mesh system: tube or ribbon meshes of the cables, built in parallel
//! over cables into one reused vertex buffer and one index buffer
//! ([`cable_core::mesh::MeshBuffers`]), incrementally: a cable whose mesh
//! would come out the same is not rewritten.
//!
//! # Steps of [`build_meshes`] and [`build_meshes_for`]
//! 1. layout: each cable's vertex and index ranges from its particle count,
//!    `sides` and the options (sequential, cheap; no allocation once the
//!    buffers have grown to size). A cable keeps what its ranges hold when
//!    it is the same cable at the same ranges with the same options as in
//!    the last layout; otherwise it is [`MeshState::Stale`];
//! 2. fill: the cables are split recursively at cable boundaries into pieces
//!    of at least [`MESH_GRAIN`] vertices, run with `rayon::join`. Each
//!    cable asked for is then
//!    - blanked ([`MeshState::Hidden`]) when the pool hides it
//!      ([`ParticlePool::set_visible`]), once: its indices all become its
//!      first vertex (no triangle draws) and its bounds empty;
//!    - kept when nothing it is made from changed since it was built or
//!      last checked ([`ParticlePool::moved_revision`], recorded in
//!      [`CableMesh::moved`]): a sleeping, hidden-and-skipped or untouched
//!      cable costs a look-up, not a read of its particles;
//!    - kept when it was built from the positions it has now (compared bit
//!      for bit with [`MeshBuffers::points`]), the same broken segments,
//!      radius and tiling: a cable whose number changed but whose
//!      particles did not (simulated, yet still) costs a copy and a
//!      comparison of its positions;
//!    - else meshed anew: its vertices, and its indices only when they
//!      were not those of a mesh of its layout (after a layout change, a
//!      blank, or when a segment broke). Unsmoothed tubes of one length
//!      and number of sides that follow one another are meshed eight at a
//!      time, one cable per SIMD lane, by the same IEEE operations in the
//!      same order as one cable alone: each gets the same bits either way.
//!
//!    A cable not asked for is left as it is (blanked if its ranges are
//!    new). Each cable's ranges are written by the task that holds them,
//!    so the result is bitwise identical whatever the thread count, and
//!    bitwise that of a build into fresh buffers (without
//!    [`MeshOptions::coherent_roll`], which carries each cable's roll over
//!    from its previous build);
//! 3. bounds: the union of the cables' boxes (blank cables have none).
//!
//! Each cable is meshed along its centre line: one ring per particle, or
//! `rings_per_segment` rings per segment on a centripetal Catmull-Rom curve
//! through the particles. A ring's axis is the bisector of the unit
//! directions into and out of it (the chord between its neighbours at an
//! end or a fold), whatever the two pieces' lengths; ring frames come from
//! parallel transport ([`crate::frame`]), so tubes neither twist nor flip.
//! Coincident particles reuse the previous tangent, so no ring
//! degenerates. A tube's ring at a bend is a mitre: in the plane where the
//! two pieces' cylinders meet, stretched along the bend by `1 / cos(θ/2)`
//! (at most 4), so its vertices lie at the radius from both neighbouring
//! pieces of the centre line instead of pinching the tube to `r·cos(θ/2)`;
//! normals stay the unit radial directions.

mod geometry;

use cable_core::mesh::{Aabb, CableMesh, MeshBuffers, MeshOptions, MeshParts, MeshState, Vertex};
use cable_core::{CableError, CableHandle, CableParams, ParticlePool};
use glam::Vec3;

use crate::frame::direction;
use geometry::{
    LANES, LaneCable, RingTable, breaks_match, close_broken, lanes_can_mesh, mesh_cable,
    mesh_cables_lanes, mitre_of, ring_tangent, write_indices,
};

/// Smallest piece of work, in vertices, that [`build_meshes`] hands to one
/// rayon task.
pub const MESH_GRAIN: usize = 8192;

/// What one build did, counted per cable ([`build_meshes`],
/// [`build_meshes_for`]). The counts depend on the scene and the build
/// history only, not on the thread count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeshStats {
    /// Cables meshed anew: their vertex ranges were rewritten.
    pub rebuilt: usize,
    /// Cables asked for whose mesh was kept: nothing it is made from
    /// changed since it was built (sleeping and untouched cables).
    pub kept: usize,
    /// Cables asked for that the pool hides: blank (their indices are
    /// written only on the build that finds them hidden).
    pub hidden: usize,
    /// Cables not asked for: left as they were (blanked when their ranges
    /// were new).
    pub not_asked: usize,
}

impl MeshStats {
    fn add(self, o: Self) -> Self {
        Self {
            rebuilt: self.rebuilt + o.rebuilt,
            kept: self.kept + o.kept,
            hidden: self.hidden + o.hidden,
            not_asked: self.not_asked + o.not_asked,
        }
    }
}

/// Builds the meshes of every live cable of `pool` into `out`, reusing its
/// buffers (no allocation per frame once the sizes are stable) and what
/// they hold: only the cables that changed since the last build into `out`
/// are meshed anew (see the module docs), and hidden cables
/// ([`ParticlePool::set_visible`]) are blank: they draw nothing and have
/// empty bounds until shown again. Returns what it did per cable.
///
/// Per-cable `radius`, `sides` and `tile` come from each cable's
/// [`cable_core::CableParams`]; the style and smoothing from `options`.
/// See [`cable_core::mesh`] for the counts and the vertex layout, and the
/// module docs for the steps. The triangles of a broken segment
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
/// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 4.0, 5.0, 16)?)?;
/// let mut mesh = MeshBuffers::new();
/// let stats = build_meshes(&pool, &MeshOptions::default(), &mut mesh)?;
/// assert_eq!(mesh.vertices.len(), 17 * 9); // 17 rings of 8 sides + seam
/// assert_eq!(mesh.indices.len(), 16 * 8 * 6);
/// assert!(mesh.bounds.contains(Vec3::new(2.0, 0.0, 0.05)));
/// assert_eq!(stats.rebuilt, 1);
/// // Nothing moved: the next build keeps the mesh.
/// assert_eq!(build_meshes(&pool, &MeshOptions::default(), &mut mesh)?.kept, 1);
/// pool.positions_mut(h)?[8].y -= 0.5;
/// assert_eq!(build_meshes(&pool, &MeshOptions::default(), &mut mesh)?.rebuilt, 1);
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn build_meshes(
    pool: &ParticlePool,
    options: &MeshOptions,
    out: &mut MeshBuffers,
) -> Result<MeshStats, CableError> {
    crate::trace::span!("cable.mesh");
    lay_out(pool, options, out)?;
    Ok(fill_all(pool, options, out))
}

/// Like [`build_meshes`], but meshes only the cables of `handles` (in any
/// order; a handle may repeat): every live cable keeps its ranges in `out`
/// (the layout is that of [`build_meshes`], so ranges do not move when the
/// set asked for changes), and a cable not asked for keeps what its last
/// build wrote, or is blank ([`MeshState::Empty`]: draws nothing) when its
/// ranges are new. For a game that meshes only the cables it will draw
/// this frame.
///
/// # Errors
/// [`CableError::StaleHandle`] when a handle is not live (checked first:
/// `out` is then left as it was), or as [`build_meshes`].
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool, mesh::{MeshBuffers, MeshOptions, MeshState}};
/// use cable_systems::mesh::build_meshes_for;
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// let near = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
/// let far = pool.add_cable(&CableDesc::line(Vec3::Y * 90.0, Vec3::ONE * 90.0, 1.0, 4)?)?;
/// let mut mesh = MeshBuffers::new();
/// let stats = build_meshes_for(&pool, &MeshOptions::default(), &[near], &mut mesh)?;
/// assert_eq!((stats.rebuilt, stats.not_asked), (1, 1));
/// assert!(matches!(mesh.cable(near).map(|c| c.state), Some(MeshState::Built { .. })));
/// // The far cable has its ranges, but draws nothing until asked for.
/// assert_eq!(mesh.cable(far).map(|c| c.state), Some(MeshState::Empty));
/// assert!(mesh.bounds.contains(Vec3::X) && !mesh.bounds.contains(Vec3::ONE * 90.0));
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn build_meshes_for(
    pool: &ParticlePool,
    options: &MeshOptions,
    handles: &[CableHandle],
    out: &mut MeshBuffers,
) -> Result<MeshStats, CableError> {
    crate::trace::span!("cable.mesh");
    for &h in handles {
        pool.is_visible(h)?;
    }
    lay_out(pool, options, out)?;
    // Every handle is live, so laid out: the selection cannot fail.
    out.select(handles)?;
    Ok(fill_all(pool, options, out))
}

/// Step 1: the ranges of every live cable, in the pool's order; kept as
/// they are while the pool's [`ParticlePool::layout_revision`] and the
/// options are those of the last layout into `out`.
fn lay_out(
    pool: &ParticlePool,
    options: &MeshOptions,
    out: &mut MeshBuffers,
) -> Result<(), CableError> {
    out.layout_at(
        pool.layout_revision(),
        || {
            pool.handles().map(|h| {
                // Handles come from the pool itself, so both look-ups succeed.
                let n = pool.particle_count_of(h).unwrap_or(0);
                let sides = pool.params(h).map_or(3, |p| p.sides);
                (h, n, sides)
            })
        },
        options,
    )
}

/// Steps 2 and 3 on the laid-out, selected buffers.
fn fill_all(pool: &ParticlePool, options: &MeshOptions, out: &mut MeshBuffers) -> MeshStats {
    // `fill` writes records in place (bounds, start frames, states), never
    // their handles or order, so the buffers' handle index stays valid.
    let MeshParts {
        vertices,
        indices,
        cables,
        points,
        scratch,
        selected,
        bounds,
        build,
    } = out.parts_mut();
    let job = Job {
        pool,
        options,
        build,
    };
    let stats = fill(
        &job,
        Run {
            cables,
            selected,
            vertices,
            indices,
            points,
            scratch,
        },
    );
    *bounds = cables.iter().fold(Aabb::EMPTY, |b, c| b.union(c.bounds));
    stats
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
        // The mesh's ring axis at an inner particle (`ring_tangent`).
        let (d_in, d_out) = (direction(w[1] - w[0]), direction(w[2] - w[1]));
        let t = ring_tangent(d_in, d_out, w[2] - w[0], Vec3::X);
        if let Some((_, k)) = mitre_of(d_in, d_out, t) {
            stretch = stretch.max(k);
        }
    }
    Ok(Aabb::of_points(pts).expand(radius * stretch))
}

/// What every cable of a build shares.
struct Job<'a> {
    pool: &'a ParticlePool,
    options: &'a MeshOptions,
    build: u64,
}

/// A run of consecutive cables and their ranges, which start at
/// `cables[0]`'s first vertex, index and point.
struct Run<'a> {
    cables: &'a mut [CableMesh],
    selected: &'a [bool],
    vertices: &'a mut [Vertex],
    indices: &'a mut [u32],
    points: &'a mut [Vec3],
    scratch: &'a mut [Vec3],
}

/// Meshes a run of cables, halving it across rayon tasks while it is long.
fn fill(job: &Job<'_>, run: Run<'_>) -> MeshStats {
    let Some(first) = run.cables.first() else {
        return MeshStats::default();
    };
    let (base_v, base_i, base_p) = (first.first_vertex, first.first_index, first.first_point);
    if run.cables.len() > 1 && run.vertices.len() > MESH_GRAIN {
        // Split at the cable nearest the middle vertex: depends on the scene only.
        let mid = base_v + (run.vertices.len() / 2) as u32;
        let k = run
            .cables
            .partition_point(|c| c.first_vertex < mid)
            .clamp(1, run.cables.len() - 1);
        let (c0, c1) = run.cables.split_at_mut(k);
        let (s0, s1) = run.selected.split_at(k);
        let (v0, v1) = run
            .vertices
            .split_at_mut((c1[0].first_vertex - base_v) as usize);
        let (i0, i1) = run
            .indices
            .split_at_mut((c1[0].first_index - base_i) as usize);
        let at = (c1[0].first_point - base_p) as usize;
        let (p0, p1) = run.points.split_at_mut(at);
        let (r0, r1) = run.scratch.split_at_mut(at);
        let (a, b) = rayon::join(
            || {
                fill(
                    job,
                    Run {
                        cables: c0,
                        selected: s0,
                        vertices: v0,
                        indices: i0,
                        points: p0,
                        scratch: r0,
                    },
                )
            },
            || {
                fill(
                    job,
                    Run {
                        cables: c1,
                        selected: s1,
                        vertices: v1,
                        indices: i1,
                        points: p1,
                        scratch: r1,
                    },
                )
            },
        );
        return a.add(b);
    }
    let mut table = RingTable::new();
    let mut stats = MeshStats::default();
    // Unsmoothed tubes of one length and number of sides are meshed eight
    // at a time (`mesh_cables_lanes`); the rest, and what is left of a
    // batch, one at a time. Either way each cable gets the same bits.
    let mut batch: [Option<LaneCable<'_>>; LANES] = Default::default();
    let mut batched = 0usize;
    let mut batch_sides = 0u32;
    let (mut verts_left, mut idx_left, mut pos_left, mut read_left) =
        (run.vertices, run.indices, run.points, run.scratch);
    let (mut at_v, mut at_i, mut at_p, mut at_r) = (0usize, 0usize, 0usize, 0usize);
    for (c, &asked) in run.cables.iter_mut().zip(run.selected) {
        let v0 = (c.first_vertex - base_v) as usize;
        let i0 = (c.first_index - base_i) as usize;
        let p0 = (c.first_point - base_p) as usize;
        let verts = carve(&mut verts_left, &mut at_v, v0, c.counts.vertices as usize);
        let idx = carve(&mut idx_left, &mut at_i, i0, c.counts.indices as usize);
        let read = carve(&mut read_left, &mut at_r, p0, c.particles as usize);
        let pos = carve(&mut pos_left, &mut at_p, p0, c.particles as usize);
        let done = mesh_one(job, c, asked, idx, pos, read);
        let params = match done {
            Done::Rebuilt(params) => params,
            Done::Kept => {
                stats.kept += 1;
                continue;
            }
            Done::Hidden => {
                stats.hidden += 1;
                continue;
            }
            Done::NotAsked => {
                stats.not_asked += 1;
                continue;
            }
        };
        stats.rebuilt += 1;
        let pts: &[Vec3] = pos;
        if !lanes_can_mesh(job.options, pts.len(), c.counts.rings) {
            table.set(params.sides);
            mesh_cable(pts, params, job.options, &table, c, verts);
            continue;
        }
        let same = batch[0]
            .as_ref()
            .is_none_or(|b| b.pts.len() == pts.len() && batch_sides == params.sides);
        if !same {
            // A batch of other cables: mesh them now, one at a time.
            table.set(batch_sides);
            mesh_cables_lanes(&mut batch, job.options, &table);
            batched = 0;
        }
        batch_sides = params.sides;
        batch[batched] = Some(LaneCable {
            pts,
            params,
            rec: c,
            vertices: verts,
        });
        batched += 1;
        if batched == LANES {
            table.set(batch_sides);
            mesh_cables_lanes(&mut batch, job.options, &table);
            batched = 0;
        }
    }
    if batched > 0 {
        table.set(batch_sides);
        mesh_cables_lanes(&mut batch, job.options, &table);
    }
    stats
}

/// The next `len` items of `left` from offset `start` of the run (`at` is
/// the run offset of `left`'s first item; ranges come in increasing
/// order): cut off `left`, which keeps what follows.
fn carve<'a, T>(left: &mut &'a mut [T], at: &mut usize, start: usize, len: usize) -> &'a mut [T] {
    let skip = start.saturating_sub(*at).min(left.len());
    let rest = std::mem::take(left).split_at_mut(skip).1;
    let (this, after) = rest.split_at_mut(len.min(rest.len()));
    *left = after;
    *at = start + this.len();
    this
}

/// What became of one cable.
enum Done<'p> {
    /// Its vertices are to be written, with these parameters.
    Rebuilt(&'p CableParams),
    Kept,
    Hidden,
    NotAsked,
}

/// Decides what becomes of one cable: meshed if it is asked for and
/// changed (see the module docs). A cable to mesh has its points copied
/// to `pos`, its indices and record written, and is returned as
/// [`Done::Rebuilt`]: its vertices are the caller's to write.
fn mesh_one<'p>(
    job: &Job<'p>,
    c: &mut CableMesh,
    asked: bool,
    idx: &mut [u32],
    pos: &mut [Vec3],
    read: &mut [Vec3],
) -> Done<'p> {
    let (pool, options) = (job.pool, job.options);
    let blank = |c: &mut CableMesh, idx: &mut [u32], state| {
        idx.fill(c.first_vertex);
        c.bounds = Aabb::EMPTY;
        c.state = state;
        c.written = job.build;
    };
    if !asked {
        if c.state == MeshState::Stale {
            blank(c, idx, MeshState::Empty);
        }
        return Done::NotAsked;
    }
    // The records come from the pool's handles, so the look-ups succeed.
    let Ok(visible) = pool.is_visible(c.handle) else {
        return Done::NotAsked;
    };
    if !visible {
        if c.state != MeshState::Hidden {
            blank(c, idx, MeshState::Hidden);
        }
        return Done::Hidden;
    }
    // Nothing it is made from changed since it was built or checked (a
    // sleeping or untouched cable): kept without reading a particle.
    let moved = pool.moved_revision(c.handle).unwrap_or(0);
    if matches!(c.state, MeshState::Built { .. }) && c.moved != 0 && moved == c.moved {
        return Done::Kept;
    }
    let (Ok(params), Ok(rows)) = (pool.params(c.handle), pool.row_consts(c.handle)) else {
        return Done::NotAsked;
    };
    // Each cable read where it lives (`copy_positions_to`): a layout
    // that keeps its own rows is not made to write every cable back.
    if pool.copy_positions_to(c.handle, read).is_err() {
        return Done::NotAsked;
    }
    // Segments broken now: read in a row, so the common case (none now,
    // none when built) needs no look at the indices.
    let segments = rows.len().saturating_sub(1);
    let broken = rows[..segments].iter().filter(|r| !r.linked).count() as u32;
    let (same_params, breaks) = match c.state {
        MeshState::Built {
            radius,
            tile,
            breaks,
        } => {
            let same = radius.to_bits() == params.radius.to_bits()
                && tile.to_bits() == params.tile.to_bits();
            // Indices are those of this layout; do they close these gaps?
            let closed =
                (breaks == 0 && broken == 0) || breaks_match(idx, rows, options, params.sides);
            (same, closed)
        }
        // The ranges are new or blank: the indices must be written.
        _ => (false, false),
    };
    if same_params && breaks && same_bits(read, pos) {
        c.moved = moved;
        return Done::Kept;
    }
    pos.copy_from_slice(read);
    if !breaks {
        write_indices(idx, c, options, params.sides);
        close_broken(idx, rows, options, params.sides);
    }
    c.state = MeshState::Built {
        radius: params.radius,
        tile: params.tile,
        breaks: broken,
    };
    c.written = job.build;
    c.moved = moved;
    Done::Rebuilt(params)
}

/// True when the two runs of points are equal bit for bit (a NaN equals
/// itself, 0 and −0 differ: what the mesh is made from).
fn same_bits(a: &[Vec3], b: &[Vec3]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(p, q)| {
            (p.x.to_bits(), p.y.to_bits(), p.z.to_bits())
                == (q.x.to_bits(), q.y.to_bits(), q.z.to_bits())
        })
}
