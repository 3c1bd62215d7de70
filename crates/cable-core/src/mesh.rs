//! Render data of cables: the GPU-ready [`Vertex`], the [`MeshBuffers`] that
//! hold every cable's mesh in one vertex and one index buffer, the
//! [`MeshOptions`] that pick tube or ribbon and smoothing, bounding boxes
//! ([`Aabb`]) and the Wavefront OBJ writer.
//!
//! The mesh system that fills these buffers lives in `cable_systems::mesh`.
//!
//! # Counts
//! A cable of `n` particles (`n - 1` segments) meshed with `k =
//! rings_per_segment` has `rings = (n - 1)·k + 1` rings of vertices along it:
//!
//! | style | vertices | indices |
//! | --- | --- | --- |
//! | tube of `sides` sides | `rings · (sides + 1)` | `(rings - 1) · sides · 6` |
//! | ribbon, one-sided | `rings · 2` | `(rings - 1) · 6` |
//! | ribbon, two-sided | `rings · 4` | `(rings - 1) · 12` |
//!
//! A tube ring has `sides + 1` vertices because the seam is doubled (u = 0
//! and u = 1 sit at the same place with different texture coordinates).
//! Tubes are open at both ends, as Unreal's cable is.
//!
//! A cable's vertices are stored ring after ring from its start. Tube ring
//! vertex `j` (0..=sides) has `u = j / sides` and lies at angle `2π j / sides`
//! from the ring's normal at `u = 0`, counter-clockwise seen from ahead of
//! the cable (looking back along its tangent). A ribbon ring holds its left
//! (`u = 0`) and right (`u = 1`) edge, then, if two-sided, the same two
//! again for the back face.

use std::io::{self, Write};
use std::ops::Range;

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::cable::CableHandle;
use crate::error::{CableError, check_vec3};

/// One mesh vertex, laid out for direct upload to a GPU vertex buffer
/// (48 bytes, no padding; `bytemuck::cast_slice` turns a `&[Vertex]` into bytes).
///
/// - `position`: metres, world space (the pool's space).
/// - `normal`: unit, pointing away from the cable's axis (tube), or towards
///   the viewer (ribbon front face).
/// - `tangent`: `xyz` unit, along the cable (direction of increasing `v`);
///   `w` is the handedness: `w · (normal × tangent.xyz)` points towards
///   increasing `u` (−1 on tubes and ribbon back faces, +1 on ribbon fronts).
/// - `uv`: `u` around the tube from 0 to 1 (across a ribbon), `v` along the
///   cable from 0 at the start to `tile` at the end, proportional to arc length.
///
/// # Example
/// ```
/// use cable_core::mesh::Vertex;
/// assert_eq!(std::mem::size_of::<Vertex>(), 48);
/// let v = Vertex::zeroed_vertex();
/// let bytes: &[u8] = bytemuck::cast_slice(std::slice::from_ref(&v));
/// assert_eq!(bytes.len(), 48);
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct Vertex {
    /// Position, metres.
    pub position: [f32; 3],
    /// Unit outward normal.
    pub normal: [f32; 3],
    /// Unit tangent along the cable, and handedness in `w`.
    pub tangent: [f32; 4],
    /// Texture coordinates: `u` around, `v` along (repeating `tile` times).
    pub uv: [f32; 2],
}

impl Vertex {
    /// A vertex with every field 0 (what buffers are filled with before a build).
    #[inline]
    #[must_use]
    pub fn zeroed_vertex() -> Self {
        Self::zeroed()
    }

    /// The position as a [`Vec3`].
    #[inline]
    #[must_use]
    pub fn pos(&self) -> Vec3 {
        Vec3::from_array(self.position)
    }

    /// The normal as a [`Vec3`].
    #[inline]
    #[must_use]
    pub fn nrm(&self) -> Vec3 {
        Vec3::from_array(self.normal)
    }

    /// The tangent direction (without handedness) as a [`Vec3`].
    #[inline]
    #[must_use]
    pub fn tan(&self) -> Vec3 {
        Vec3::new(self.tangent[0], self.tangent[1], self.tangent[2])
    }
}

/// What shape a cable is drawn as.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MeshStyle {
    /// A closed tube of the cable's `sides` sides and `radius` (UE's cable mesh).
    Tube,
    /// A flat strip of width 2 × `radius` facing against `view` (the
    /// direction the camera looks along), as the Unity rope ports draw.
    Ribbon {
        /// Viewing direction, world space; need not be unit, must not be zero.
        view: Vec3,
        /// Also emit a back face (own vertices, flipped normals and winding).
        two_sided: bool,
    },
}

/// Most sides a tube may have (the limit of `CableParams::sides`).
pub const MAX_SIDES: u32 = 1024;

/// Most rings per segment [`MeshOptions::rings_per_segment`] accepts.
pub const MAX_RINGS_PER_SEGMENT: u32 = 64;

/// How the mesh system draws cables.
///
/// # Example
/// ```
/// use cable_core::mesh::{MeshOptions, MeshStyle};
/// let smooth = MeshOptions { rings_per_segment: 4, ..MeshOptions::default() };
/// assert_eq!(smooth.style, MeshStyle::Tube);
/// assert!(smooth.validate().is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshOptions {
    /// Tube or ribbon. Default [`MeshStyle::Tube`].
    pub style: MeshStyle,
    /// Rings per segment, 1..=[`MAX_RINGS_PER_SEGMENT`]. 1 puts one ring at
    /// each particle; `k > 1` samples a centripetal Catmull-Rom curve through
    /// the particles `k` times per segment (Flax draws its rope as a spline).
    /// Default 1.
    pub rings_per_segment: u32,
    /// Reference direction that fixes the roll of the first ring: the
    /// normal at `u = 0` of the first ring is this direction made
    /// perpendicular to the cable (another axis is used when the cable starts
    /// parallel to it). The roll of later rings follows by parallel
    /// transport. With [`MeshOptions::coherent_roll`] this applies only to a
    /// cable's first build. Default `Vec3::Z`.
    pub reference: Vec3,
    /// Carry each cable's first-ring frame over from the previous build of
    /// the same [`MeshBuffers`] by parallel transport (in time), instead of
    /// seeding it from `reference` every build. The roll then never jumps
    /// between frames, even when a cable's start swings past `reference`,
    /// at the price of depending on the build history (still deterministic).
    /// A cable is recognised by its handle, in the pool's order; a cable that
    /// is new, or whose earlier cables were removed and re-added, is seeded
    /// afresh. Default true.
    pub coherent_roll: bool,
}

impl Default for MeshOptions {
    fn default() -> Self {
        Self {
            style: MeshStyle::Tube,
            rings_per_segment: 1,
            reference: Vec3::Z,
            coherent_roll: true,
        }
    }
}

impl MeshOptions {
    /// Checks every field, naming the first one out of range.
    ///
    /// # Errors
    /// `rings_per_segment` outside 1..=64, or a zero or non-finite
    /// `reference` or ribbon `view`.
    pub fn validate(&self) -> Result<(), CableError> {
        if !(1..=MAX_RINGS_PER_SEGMENT).contains(&self.rings_per_segment) {
            return Err(CableError::OutOfRange {
                field: "rings_per_segment",
                expected: "must be between 1 and 64",
                value: f64::from(self.rings_per_segment),
            });
        }
        check_direction("reference", self.reference)?;
        if let MeshStyle::Ribbon { view, .. } = self.style {
            check_direction("view", view)?;
        }
        Ok(())
    }

    /// Vertices in one ring for a cable of `sides` sides.
    #[inline]
    #[must_use]
    pub fn ring_vertices(&self, sides: u32) -> u32 {
        match self.style {
            MeshStyle::Tube => sides + 1,
            MeshStyle::Ribbon {
                two_sided: false, ..
            } => 2,
            MeshStyle::Ribbon {
                two_sided: true, ..
            } => 4,
        }
    }

    /// Indices between two consecutive rings for a cable of `sides` sides.
    #[inline]
    #[must_use]
    pub fn gap_indices(&self, sides: u32) -> u32 {
        match self.style {
            MeshStyle::Tube => sides * 6,
            MeshStyle::Ribbon {
                two_sided: false, ..
            } => 6,
            MeshStyle::Ribbon {
                two_sided: true, ..
            } => 12,
        }
    }

    /// Rings, vertices and indices of the mesh of a cable of `particles`
    /// particles and `sides` sides (see the module's table), or `None` for
    /// fewer than 2 particles or counts that do not fit in `u32`.
    ///
    /// # Example
    /// ```
    /// use cable_core::mesh::MeshOptions;
    /// let c = MeshOptions::default().counts(17, 8).unwrap();
    /// assert_eq!((c.rings, c.vertices, c.indices), (17, 17 * 9, 16 * 8 * 6));
    /// ```
    #[must_use]
    pub fn counts(&self, particles: usize, sides: u32) -> Option<MeshCounts> {
        let segments = u32::try_from(particles.checked_sub(1)?).ok()?;
        if segments == 0 {
            return None;
        }
        let rings = segments
            .checked_mul(self.rings_per_segment)?
            .checked_add(1)?;
        Some(MeshCounts {
            rings,
            vertices: rings.checked_mul(self.ring_vertices(sides))?,
            indices: (rings - 1).checked_mul(self.gap_indices(sides))?,
        })
    }
}

/// The options' bits, to compare them exactly.
fn options_bits(o: &MeshOptions) -> [u32; 9] {
    let (style, view, two) = match o.style {
        MeshStyle::Tube => (0, Vec3::ZERO, false),
        MeshStyle::Ribbon { view, two_sided } => (1, view, two_sided),
    };
    let r = o.reference;
    [
        style,
        view.x.to_bits(),
        view.y.to_bits(),
        view.z.to_bits(),
        u32::from(two) | u32::from(o.coherent_roll) << 1,
        o.rings_per_segment,
        r.x.to_bits(),
        r.y.to_bits(),
        r.z.to_bits(),
    ]
}

fn check_direction(field: &'static str, v: Vec3) -> Result<(), CableError> {
    check_vec3(field, v)?;
    if v.length_squared() < 1.0e-12 {
        return Err(CableError::OutOfRange {
            field,
            expected: "must not be the zero vector",
            value: f64::from(v.length()),
        });
    }
    Ok(())
}

/// Sizes of one cable's mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshCounts {
    /// Rings along the cable.
    pub rings: u32,
    /// Vertices.
    pub vertices: u32,
    /// Indices (three per triangle).
    pub indices: u32,
}

/// Axis-aligned bounds, the type the colliders' broad phase uses too.
pub use crate::bvh::Aabb;

/// Where one cable's mesh lies in a [`MeshBuffers`], and its bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CableMesh {
    /// The cable.
    pub handle: CableHandle,
    /// First vertex of the cable in [`MeshBuffers::vertices`].
    pub first_vertex: u32,
    /// First index of the cable in [`MeshBuffers::indices`].
    pub first_index: u32,
    /// First particle of the cable in [`MeshBuffers::points`].
    pub first_point: u32,
    /// Particles of the cable.
    pub particles: u32,
    /// Rings, vertices and indices.
    pub counts: MeshCounts,
    /// Vertices per ring.
    pub ring_vertices: u32,
    /// Box holding every vertex of the cable: the ring centres grown by the
    /// radius (UE's `CalcBounds`).
    pub bounds: Aabb,
    /// Unit tangent of the first ring after the last build (zero before).
    pub start_tangent: Vec3,
    /// Unit normal at `u = 0` of the first ring after the last build (zero
    /// before): the roll that [`MeshOptions::coherent_roll`] carries on.
    pub start_normal: Vec3,
    /// What the cable's ranges hold now.
    pub state: MeshState,
    /// The [`MeshBuffers::build_count`] of the build that last wrote the
    /// cable's vertex or index range (0: none since the layout placed it
    /// there). An engine keeping a GPU copy re-uploads the ranges of the
    /// cables whose `written` is newer than its copy.
    pub written: u64,
    /// The cable's [`crate::ParticlePool::moved_revision`] when a build
    /// last meshed it or found its mesh current (0: none): while the pool
    /// still gives that number, the next build keeps the mesh without
    /// reading the cable's particles (a sleeping cable costs a look-up).
    pub moved: u64,
}

/// What one cable's ranges in a [`MeshBuffers`] hold
/// ([`CableMesh::state`]). After a build every cable is in one of the
/// last three states; only [`MeshBuffers::layout`] (and
/// [`MeshBuffers::invalidate`]) leave cables [`MeshState::Stale`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MeshState {
    /// Laid out but not written since: the ranges hold whatever was
    /// there before (zeros, or another cable's old mesh). The next build
    /// writes the cable whatever it is asked for.
    Stale,
    /// Draws nothing: every index is the cable's first vertex (degenerate
    /// triangles), the bounds are empty, the vertices are unspecified. A
    /// cable a filtered build was not asked for since the layout placed it.
    Empty,
    /// Draws nothing, as [`MeshState::Empty`]: the cable was hidden
    /// ([`crate::ParticlePool::set_visible`]) when a build was last asked
    /// for it.
    Hidden,
    /// Meshed from the positions in [`MeshBuffers::points`], with this
    /// radius and texture tiling ([`crate::CableParams`]) and the options
    /// of the last layout. A build keeps the ranges as they are while the
    /// positions (bit for bit), the broken segments, the radius, the
    /// tiling and the options are those it was built from.
    Built {
        /// [`crate::CableParams::radius`] of the build, metres.
        radius: f32,
        /// [`crate::CableParams::tile`] of the build.
        tile: f32,
        /// Broken segments ([`crate::ParticlePool::break_segment`]) whose
        /// triangles the indices close.
        breaks: u32,
    },
}

impl MeshState {
    /// True for [`MeshState::Empty`] and [`MeshState::Hidden`]: the ranges
    /// draw nothing.
    #[inline]
    #[must_use]
    pub fn is_blank(&self) -> bool {
        matches!(self, MeshState::Empty | MeshState::Hidden)
    }
}

impl CableMesh {
    /// The cable's range in [`MeshBuffers::points`].
    #[inline]
    #[must_use]
    pub fn point_range(&self) -> Range<usize> {
        self.first_point as usize..(self.first_point + self.particles) as usize
    }

    /// The cable's range in [`MeshBuffers::vertices`].
    #[inline]
    #[must_use]
    pub fn vertex_range(&self) -> Range<usize> {
        self.first_vertex as usize..(self.first_vertex + self.counts.vertices) as usize
    }

    /// The cable's range in [`MeshBuffers::indices`].
    #[inline]
    #[must_use]
    pub fn index_range(&self) -> Range<usize> {
        self.first_index as usize..(self.first_index + self.counts.indices) as usize
    }
}

/// The meshes of every cable: one vertex buffer, one `u32` index buffer, and
/// each cable's ranges in them, in the pool's cable order.
///
/// Indices are absolute (they index [`MeshBuffers::vertices`] directly), so
/// the whole buffer draws with one call, and one cable with its
/// [`CableMesh::index_range`]. Triangles are counter-clockwise seen from
/// outside the tube (from the viewer for a ribbon's front face).
///
/// The buffers are reused: rebuilding with the same number of cables and
/// particles does not allocate.
///
/// # Incremental builds
/// The buffers remember what each cable's ranges were built from
/// ([`CableMesh::state`]), so a build rewrites only the cables whose
/// particles, broken segments, radius or tiling changed since the last
/// build into the same buffers; a change of the options or of the layout
/// (cables added, removed, reordered, resized) rewrites every cable whose
/// ranges moved. A cable whose [`CableMesh::moved`] number is still the
/// pool's ([`crate::ParticlePool::moved_revision`]) is kept without
/// reading its particles; any other is compared with [`MeshBuffers::points`]
/// bit for bit, and rebuilt when they differ. Edit `vertices`, `indices`, `cables` or
/// `points` by hand only after [`MeshBuffers::invalidate`], or the next
/// build may keep the edits.
#[derive(Debug, Clone, Default)]
pub struct MeshBuffers {
    /// Every vertex of every cable.
    pub vertices: Vec<Vertex>,
    /// Every index of every cable, three per triangle.
    pub indices: Vec<u32>,
    /// Per-cable ranges and bounds, in the pool's cable order.
    pub cables: Vec<CableMesh>,
    /// Union of the cables' bounds.
    pub bounds: Aabb,
    /// Every cable's particle positions as the last build read them, in
    /// `cables` order ([`CableMesh::point_range`]): the mesh builder copies
    /// each cable here from where the layout keeps it, so meshing a pool
    /// whose state a layout holds does not make it write every cable back.
    pub points: Vec<Vec3>,
    /// Position in `cables` of each handle slot ([`CableHandle::index`]),
    /// `u32::MAX` for none: [`MeshBuffers::cable`] in O(1).
    by_slot: Vec<u32>,
    /// Where a build reads each cable's positions before comparing them
    /// with `points` (as long as `points`).
    scratch: Vec<Vec3>,
    /// Per cable, in `cables` order: asked for by the coming build.
    selected: Vec<bool>,
    /// The options of the last layout; `None` before, or after an error.
    options: Option<MeshOptions>,
    /// Builds started into these buffers ([`MeshBuffers::build_count`]).
    builds: u64,
    /// What the last [`MeshBuffers::layout_at`] laid out: the pool's
    /// layout revision, and the lengths of `cables`, `vertices`,
    /// `indices` and `points` it left (a buffer edited by hand since does
    /// not match). `None` after [`MeshBuffers::layout`] or
    /// [`MeshBuffers::invalidate`].
    laid: Option<(u64, [usize; 4])>,
}

/// Compares what a reader sees: vertices, indices, the cables' records,
/// the bounds and the points (not the builder's scratch space).
impl PartialEq for MeshBuffers {
    fn eq(&self, other: &Self) -> bool {
        self.vertices == other.vertices
            && self.indices == other.indices
            && self.cables == other.cables
            && self.bounds == other.bounds
            && self.points == other.points
    }
}

/// The parts of a [`MeshBuffers`] a mesh builder writes, borrowed at once
/// ([`MeshBuffers::parts_mut`]). Every slice of points and flags is in
/// `cables` order, at each cable's [`CableMesh::point_range`] (`points`,
/// `scratch`) or index in `cables` (`selected`).
#[derive(Debug)]
pub struct MeshParts<'a> {
    /// [`MeshBuffers::vertices`].
    pub vertices: &'a mut [Vertex],
    /// [`MeshBuffers::indices`].
    pub indices: &'a mut [u32],
    /// [`MeshBuffers::cables`].
    pub cables: &'a mut [CableMesh],
    /// [`MeshBuffers::points`]: the positions each built cable's mesh was
    /// made from.
    pub points: &'a mut [Vec3],
    /// Space as long as `points` to read the pool's positions into before
    /// comparing them with `points`; its contents mean nothing.
    pub scratch: &'a mut [Vec3],
    /// Whether the coming build is asked for each cable
    /// ([`MeshBuffers::select`]).
    pub selected: &'a [bool],
    /// [`MeshBuffers::bounds`].
    pub bounds: &'a mut Aabb,
    /// The number of this build ([`MeshBuffers::build_count`]), for
    /// [`CableMesh::written`].
    pub build: u64,
}

impl MeshBuffers {
    /// Empty buffers.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the per-cable ranges for `cables` (handle, particle count, sides)
    /// and sizes the buffers to match; the contents are left for the mesh
    /// system to fill. Does not allocate when the sizes fit the capacity.
    /// Each cable keeps the start frame of its previous build in these
    /// buffers (see [`MeshOptions::coherent_roll`]). On error the buffers are
    /// left empty.
    ///
    /// # Errors
    /// Invalid options, a cable of fewer than 2 particles, more vertices
    /// or indices than `u32` can count, or [`CableError::OutOfMemory`] when
    /// the buffers cannot be allocated.
    pub fn layout(
        &mut self,
        cables: impl Iterator<Item = (CableHandle, usize, u32)>,
        options: &MeshOptions,
    ) -> Result<(), CableError> {
        self.laid = None;
        let res = self.try_layout(cables, options);
        if res.is_err() {
            self.cables.clear();
            self.vertices.clear();
            self.indices.clear();
            self.points.clear();
            self.scratch.clear();
            self.selected.clear();
            self.options = None;
            self.bounds = Aabb::EMPTY;
        }
        res
    }

    /// [`MeshBuffers::layout`] for a pool at layout revision `revision`
    /// (`cable_core::ParticlePool::layout_revision`), done only when the
    /// revision or the options differ from the last `layout_at`'s, or the
    /// buffers' lengths are not those it left: otherwise the ranges are
    /// those `cables` would give, and only the selection is reset (every
    /// cable asked for, as after a layout). `cables` is not called then.
    ///
    /// # Errors
    /// As [`MeshBuffers::layout`].
    pub fn layout_at<I>(
        &mut self,
        revision: u64,
        cables: impl FnOnce() -> I,
        options: &MeshOptions,
    ) -> Result<(), CableError>
    where
        I: Iterator<Item = (CableHandle, usize, u32)>,
    {
        let same_options = self
            .options
            .is_some_and(|o| options_bits(&o) == options_bits(options));
        if same_options && self.laid == Some((revision, self.lengths())) {
            self.selected.clear();
            self.selected.resize(self.cables.len(), true);
            return Ok(());
        }
        self.layout(cables(), options)?;
        self.laid = Some((revision, self.lengths()));
        Ok(())
    }

    /// The lengths [`MeshBuffers::laid`] compares.
    fn lengths(&self) -> [usize; 4] {
        [
            self.cables.len(),
            self.vertices.len(),
            self.indices.len(),
            self.points.len(),
        ]
    }

    /// Forgets what every cable was built from: the next build rewrites
    /// every cable it is asked for, and blanks the others
    /// ([`MeshState::Empty`]). Call it after editing the buffers by hand.
    pub fn invalidate(&mut self) {
        self.laid = None;
        for c in &mut self.cables {
            c.state = MeshState::Stale;
        }
    }

    /// The number of builds started into these buffers (the
    /// [`CableMesh::written`] of the cables the last one wrote).
    #[inline]
    #[must_use]
    pub fn build_count(&self) -> u64 {
        self.builds
    }

    /// Asks the coming build for every cable (what
    /// [`MeshBuffers::layout`] does).
    pub fn select_all(&mut self) {
        self.selected.fill(true);
    }

    /// Asks the coming build for the cables of `handles` only (a handle
    /// may repeat). O(cables + handles), no allocation.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] for a handle not in the buffers (call
    /// after [`MeshBuffers::layout`]); the selection is then empty.
    pub fn select(&mut self, handles: &[CableHandle]) -> Result<(), CableError> {
        self.selected.fill(false);
        for &h in handles {
            let Some(i) = self.position(h) else {
                self.selected.fill(false);
                return Err(CableError::StaleHandle(h));
            };
            self.selected[i] = true;
        }
        Ok(())
    }

    /// Index in `cables` of a handle's record.
    fn position(&self, handle: CableHandle) -> Option<usize> {
        let slot = self.by_slot.get(handle.index() as usize).copied();
        if let Some(i) = slot
            && self
                .cables
                .get(i as usize)
                .is_some_and(|c| c.handle == handle)
        {
            return Some(i as usize);
        }
        self.cables.iter().position(|c| c.handle == handle)
    }

    /// Starts a build: counts it and lends its parts (see [`MeshParts`]).
    /// For mesh builders: `cable_systems::mesh` calls it after
    /// [`MeshBuffers::layout`] and [`MeshBuffers::select`].
    pub fn parts_mut(&mut self) -> MeshParts<'_> {
        self.builds += 1;
        self.selected.resize(self.cables.len(), true);
        self.scratch.resize(self.points.len(), Vec3::ZERO);
        MeshParts {
            vertices: &mut self.vertices,
            indices: &mut self.indices,
            cables: &mut self.cables,
            points: &mut self.points,
            scratch: &mut self.scratch,
            selected: &self.selected,
            bounds: &mut self.bounds,
            build: self.builds,
        }
    }

    fn try_layout(
        &mut self,
        cables: impl Iterator<Item = (CableHandle, usize, u32)>,
        options: &MeshOptions,
    ) -> Result<(), CableError> {
        options.validate()?;
        // What was built with other options is stale (compared bit for bit:
        // a zero's sign can reach the output).
        let same_options = self
            .options
            .is_some_and(|o| options_bits(&o) == options_bits(options));
        self.options = None;
        // Records are rewritten in place: entry `idx` is written only after
        // every old entry at or before the search position was read, so the
        // previous start frames can be carried over without a second buffer.
        let old_len = self.cables.len();
        let (mut idx, mut search) = (0usize, 0usize);
        let (mut nv, mut ni, mut np) = (0u32, 0u32, 0u32);
        let too_many = |field| CableError::OutOfRange {
            field,
            expected: "the meshes of all cables must hold fewer than 2^32 vertices and indices",
            value: f64::from(u32::MAX),
        };
        for (handle, particles, sides) in cables {
            if particles < 2 {
                return Err(CableError::TooFew {
                    field: "points",
                    min: 2,
                    got: particles,
                });
            }
            let counts = options
                .counts(particles, sides)
                .ok_or_else(|| too_many("mesh vertices"))?;
            let mut start = (Vec3::ZERO, Vec3::ZERO);
            if let Some(off) = self.cables[search.min(old_len)..old_len]
                .iter()
                .position(|c| c.handle == handle)
            {
                let old = &self.cables[search + off];
                start = (old.start_tangent, old.start_normal);
                search += off + 1;
            }
            // At most the vertices, which fit in `u32` (checked above).
            let count = u32::try_from(particles).map_err(|_| too_many("mesh points"))?;
            let mut rec = CableMesh {
                handle,
                first_vertex: nv,
                first_index: ni,
                first_point: np,
                particles: count,
                counts,
                ring_vertices: options.ring_vertices(sides),
                bounds: Aabb::EMPTY,
                start_tangent: start.0,
                start_normal: start.1,
                state: MeshState::Stale,
                written: 0,
                moved: 0,
            };
            // The old record at this position is not overwritten yet: when
            // it is the same cable at the same ranges, what it holds stays.
            if same_options
                && let Some(old) = self.cables[..old_len].get(idx)
                && (
                    old.handle,
                    old.first_vertex,
                    old.first_index,
                    old.first_point,
                ) == (handle, nv, ni, np)
                && (old.particles, old.counts, old.ring_vertices)
                    == (rec.particles, rec.counts, rec.ring_vertices)
            {
                rec.state = old.state;
                rec.written = old.written;
                rec.bounds = old.bounds;
                rec.moved = old.moved;
            }
            // Overwriting an old entry not yet searched only loses its carried
            // frame (a new cable before old ones); handles are unique, so a
            // new record is never matched again.
            if idx < self.cables.len() {
                self.cables[idx] = rec;
            } else {
                self.cables.push(rec);
            }
            idx += 1;
            nv = nv
                .checked_add(counts.vertices)
                .ok_or_else(|| too_many("mesh vertices"))?;
            ni = ni
                .checked_add(counts.indices)
                .ok_or_else(|| too_many("mesh indices"))?;
            // Fewer particles than vertices: cannot overflow where they did not.
            np += count;
        }
        self.cables.truncate(idx);
        self.index_slots();
        // Ask for the memory first, so an absurd size is an error, not an abort.
        let (nv, ni) = (nv as usize, ni as usize);
        let oom = |what, n: usize, size: usize| CableError::OutOfMemory {
            what,
            bytes: (n as u64).saturating_mul(size as u64),
        };
        self.vertices
            .try_reserve_exact(nv.saturating_sub(self.vertices.len()))
            .map_err(|_| oom("mesh vertices", nv, std::mem::size_of::<Vertex>()))?;
        self.indices
            .try_reserve_exact(ni.saturating_sub(self.indices.len()))
            .map_err(|_| oom("mesh indices", ni, std::mem::size_of::<u32>()))?;
        self.points
            .try_reserve_exact((np as usize).saturating_sub(self.points.len()))
            .map_err(|_| oom("mesh points", np as usize, std::mem::size_of::<Vec3>()))?;
        self.vertices.resize(nv, Vertex::zeroed());
        self.indices.resize(ni, 0);
        self.points.resize(np as usize, Vec3::ZERO);
        self.scratch
            .try_reserve_exact((np as usize).saturating_sub(self.scratch.len()))
            .map_err(|_| oom("mesh points", np as usize, std::mem::size_of::<Vec3>()))?;
        self.scratch.resize(np as usize, Vec3::ZERO);
        self.selected.clear();
        self.selected.resize(self.cables.len(), true);
        self.options = Some(*options);
        self.bounds = Aabb::EMPTY;
        Ok(())
    }

    /// The mesh record of a cable, if it is in the buffers: O(1) through
    /// an index by handle slot kept by [`MeshBuffers::layout`] (a linear
    /// search only if `cables` was edited by hand since).
    ///
    /// # Example
    /// ```
    /// use cable_core::mesh::{MeshBuffers, MeshOptions};
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let a = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let b = pool.add_cable(&CableDesc::line(Vec3::Y, Vec3::ONE, 1.0, 2)?)?;
    /// let mut mesh = MeshBuffers::new();
    /// let handles = [(a, 5, 8), (b, 3, 8)];
    /// mesh.layout(handles.into_iter(), &MeshOptions::default())?;
    /// assert_eq!(mesh.cable(b).map(|c| c.first_vertex), Some(5 * 9));
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[must_use]
    pub fn cable(&self, handle: CableHandle) -> Option<&CableMesh> {
        self.position(handle).map(|i| &self.cables[i])
    }

    /// Rebuilds the slot index of `cables` (no allocation once it has grown).
    fn index_slots(&mut self) {
        self.by_slot.fill(u32::MAX);
        for (i, c) in self.cables.iter().enumerate() {
            let s = c.handle.index() as usize;
            if s >= self.by_slot.len() {
                self.by_slot.resize(s + 1, u32::MAX);
            }
            self.by_slot[s] = i as u32;
        }
    }

    /// The vertex buffer as bytes, ready for upload.
    #[must_use]
    pub fn vertex_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.vertices)
    }

    /// The index buffer as bytes, ready for upload.
    #[must_use]
    pub fn index_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.indices)
    }

    /// Number of triangles.
    #[must_use]
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Makes `self` a copy of `other`, reusing `self`'s allocations (no
    /// allocation once the capacities suffice), for render hand-off. The
    /// copy remembers what `other` was built from: building into it later
    /// is incremental too.
    pub fn copy_from(&mut self, other: &MeshBuffers) {
        self.points.clear();
        self.points.extend_from_slice(&other.points);
        self.options = other.options;
        self.laid = other.laid;
        self.builds = other.builds;
        self.vertices.clear();
        self.vertices.extend_from_slice(&other.vertices);
        self.indices.clear();
        self.indices.extend_from_slice(&other.indices);
        self.cables.clear();
        self.cables.extend_from_slice(&other.cables);
        self.bounds = other.bounds;
        self.by_slot.clear();
        self.by_slot.extend_from_slice(&other.by_slot);
    }

    /// Writes the meshes as Wavefront OBJ: one object `o cable_<i>` per
    /// cable (scene order, from 0) with its `v`, `vt` and `vn` lines and
    /// triangles as `f v/vt/vn` with 1-based indices (the three are equal:
    /// every vertex has its own position, texture coordinate and normal).
    ///
    /// # Errors
    /// The writer's I/O errors.
    ///
    /// # Example
    /// ```
    /// use cable_core::mesh::MeshBuffers;
    /// let mut text = Vec::new();
    /// MeshBuffers::new().write_obj(&mut text)?;
    /// assert!(String::from_utf8(text).unwrap().starts_with('#'));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn write_obj<W: Write>(&self, mut w: W) -> io::Result<()> {
        writeln!(
            w,
            "# cable meshes: {} cables, {} vertices, {} triangles",
            self.cables.len(),
            self.vertices.len(),
            self.triangle_count()
        )?;
        for (i, c) in self.cables.iter().enumerate() {
            writeln!(w, "o cable_{i}")?;
            let verts = &self.vertices[c.vertex_range()];
            for v in verts {
                let [x, y, z] = v.position;
                writeln!(w, "v {x} {y} {z}")?;
            }
            for v in verts {
                let [u, t] = v.uv;
                writeln!(w, "vt {u} {t}")?;
            }
            for v in verts {
                let [x, y, z] = v.normal;
                writeln!(w, "vn {x} {y} {z}")?;
            }
            for tri in self.indices[c.index_range()].chunks_exact(3) {
                if tri[0] == tri[1] && tri[1] == tri[2] {
                    continue; // degenerate: a broken segment's gap
                }
                let [a, b, d] = [tri[0] + 1, tri[1] + 1, tri[2] + 1];
                writeln!(w, "f {a}/{a}/{a} {b}/{b}/{b} {d}/{d}/{d}")?;
            }
        }
        w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_table() {
        let tube = MeshOptions::default();
        let c = tube.counts(5, 6).unwrap();
        assert_eq!((c.rings, c.vertices, c.indices), (5, 35, 4 * 36));
        let smooth = MeshOptions {
            rings_per_segment: 3,
            ..tube
        };
        assert_eq!(smooth.counts(5, 6).unwrap().rings, 13);
        let ribbon = MeshOptions {
            style: MeshStyle::Ribbon {
                view: Vec3::Z,
                two_sided: true,
            },
            ..tube
        };
        let c = ribbon.counts(5, 6).unwrap();
        assert_eq!((c.vertices, c.indices), (20, 48));
        assert!(tube.counts(1, 6).is_none());
    }

    #[test]
    fn bad_options_name_their_field() {
        let bad = MeshOptions {
            rings_per_segment: 0,
            ..MeshOptions::default()
        };
        assert!(matches!(
            bad.validate(),
            Err(CableError::OutOfRange {
                field: "rings_per_segment",
                ..
            })
        ));
        let bad = MeshOptions {
            style: MeshStyle::Ribbon {
                view: Vec3::ZERO,
                two_sided: false,
            },
            ..MeshOptions::default()
        };
        assert!(matches!(
            bad.validate(),
            Err(CableError::OutOfRange { field: "view", .. })
        ));
    }

    #[test]
    fn empty_box_is_neutral() {
        let b = Aabb::EMPTY.union(Aabb::of_points(&[Vec3::ONE]));
        assert_eq!(b.min, Vec3::ONE);
        assert!(Aabb::EMPTY.is_empty() && Aabb::EMPTY.expand(1.0).is_empty());
    }
}
