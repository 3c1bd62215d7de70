//! One cable's mesh: its centre line, ring frames, vertices and triangles
//! (see the parent module's docs for the geometry).

use cable_core::mesh::{Aabb, CableMesh, MAX_SIDES, MeshOptions, MeshStyle, Vertex};
use cable_core::{CableParams, RowConst};
use glam::{BVec4A, Vec3, Vec4};

use crate::frame::{TINY2, direction, first_direction, seed_normal, transport};
use crate::kernel::lane::{Lane, Mask};

/// Sine and cosine of `2π j / sides` and the texture coordinate `u =
/// j / sides` for `j = 0..=sides`; the last entry is exactly the first
/// (`u` = 1), so the seam closes bit for bit. Kept by a run of cables and
/// recomputed only when the number of sides changes (most scenes have
/// one), so a ring does no trigonometry and a vertex no branch.
pub(super) struct RingTable {
    sides: u32,
    sin_cos: [(f32, f32); MAX_SIDES as usize + 1],
    u: [f32; MAX_SIDES as usize + 1],
}

impl RingTable {
    /// A table for no sides yet (see [`RingTable::set`]).
    pub(super) fn new() -> Self {
        Self {
            sides: 0,
            sin_cos: [(0.0, 1.0); MAX_SIDES as usize + 1],
            u: [0.0; MAX_SIDES as usize + 1],
        }
    }

    /// Makes the table that of `sides` sides (at most [`MAX_SIDES`]).
    pub(super) fn set(&mut self, sides: u32) {
        let sides = sides.clamp(1, MAX_SIDES);
        if self.sides == sides {
            return;
        }
        self.sides = sides;
        let n = sides as usize;
        let step = std::f32::consts::TAU / sides as f32;
        let inv = 1.0 / sides as f32;
        for (j, (sc, u)) in self.sin_cos[..n].iter_mut().zip(&mut self.u).enumerate() {
            *sc = (j as f32 * step).sin_cos();
            *u = j as f32 * inv;
        }
        self.sin_cos[n] = (0.0, 1.0);
        self.u[n] = 1.0;
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
        if self.k == 1 {
            // One ring per particle: no division.
            let i = r.min(self.segments - 1);
            return (i as usize, (r - i) as f32);
        }
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

/// Meshes one cable's vertices into its own range; sets its bounds and
/// start frame. `table` must be set to `params.sides` for a tube.
pub(super) fn mesh_cable(
    pts: &[Vec3],
    params: &CableParams,
    options: &MeshOptions,
    table: &RingTable,
    rec: &mut CableMesh,
    vertices: &mut [Vertex],
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
    let (tube, view, two_sided) = match options.style {
        MeshStyle::Tube => (true, Vec3::NEG_Z, false),
        MeshStyle::Ribbon { view, two_sided } => (false, view.normalize_or(Vec3::NEG_Z), two_sided),
    };

    let (mut prev, mut cur, mut next) = (pts[0], pts[0], line.point(1));
    let mut t = first_direction(pts);
    let mut n = Vec3::ZERO;
    let mut side = Vec3::ZERO;
    let (mut seg, mut arc) = (0usize, 0.0f32);
    // Length of segment `seg` (the one ring `r` lies on).
    let mut seg_len = pts[0].distance(pts[1]);
    let mut bounds = Aabb::EMPTY;
    let mut stretch = 1.0f32; // largest mitre stretch: the bounds grow by it
    let mut ring_slots = vertices.chunks_exact_mut(rv);
    // Direction of the centre line into the ring (`cur - prev`): the
    // previous ring's way out, computed once (`mitre` would twice).
    let mut d_in = None;
    for r in 0..rings {
        let (i, s) = line.locate(r);
        while seg < i {
            arc += seg_len;
            seg += 1;
            seg_len = pts[seg].distance(pts[seg + 1]);
        }
        let v = (arc + s * seg_len) * v_scale;
        let d_out = direction(next - cur);
        let new_t = ring_tangent(d_in, d_out, next - prev, t);
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
        if tube {
            let mitre = mitre_of(d_in, d_out, t);
            if let Some((_, k)) = mitre {
                stretch = stretch.max(k);
            }
            tube_ring(ring, cur, t, n, radius, v, table, mitre);
        } else {
            side = direction(t.cross(view)).unwrap_or(side);
            ribbon_ring(ring, cur, t, side, radius, v, two_sided);
        }
        d_in = d_out;
        bounds = bounds.with_point(cur);
        prev = cur;
        cur = next;
        if r + 2 < rings {
            next = line.point(r + 2);
        }
    }
    rec.bounds = bounds.expand(radius * stretch);
}

/// The direction of a ring's axis (its plane's normal): the bisector of
/// the unit directions into the ring (`d_in`) and out of it (`d_out`),
/// the plane in which two cylinders of equal radius along them meet, so
/// that [`mitre_of`]'s stretch puts every vertex on both; the chord
/// `chord` (next ring less previous one) where a way is missing (an end)
/// or the two cancel (a fold back on itself); `t` where that has no
/// direction either. The chord alone tilts the ring toward the shorter
/// of two unequal pieces: at a 90° bend between a 0.2 m and a 1 m
/// segment the tube was 3.9 radii wide on one side.
#[inline]
pub(super) fn ring_tangent(d_in: Option<Vec3>, d_out: Option<Vec3>, chord: Vec3, t: Vec3) -> Vec3 {
    if let (Some(a), Some(b)) = (d_in, d_out)
        && let Some(bisector) = direction(a + b)
    {
        return bisector;
    }
    direction(chord).unwrap_or(t)
}

/// The mitre of a ring between the centre-line pieces of unit directions
/// `d_in` (into the ring) and `d_out` (out of it), with ring axis `t`
/// ([`ring_tangent`]): the in-plane bend direction and the factor `1 / cos(θ/2)` by which the ring stretches along it, so
/// that its vertices lie on both neighbouring cylinders instead of
/// pinching the tube to `r·cos(θ/2)`. `None` on a straight piece or an
/// end. The stretch is capped at 4 (a fold back on itself).
#[inline]
pub(super) fn mitre_of(d_in: Option<Vec3>, d_out: Option<Vec3>, t: Vec3) -> Option<(Vec3, f32)> {
    let (d_in, d_out) = (d_in?, d_out?);
    let bend = d_out - d_in;
    let axis = direction(bend - t * t.dot(bend))?;
    let cos_half = t.dot(d_in).clamp(0.25, 1.0);
    Some((axis, 1.0 / cos_half))
}

/// Writes one tube ring: `sides + 1` vertices around centre `c`, stretched
/// along a mitre's bend direction (see [`mitre_of`]). Normals stay the unit
/// radial directions. The ring's length is the table's `sides + 1`.
///
/// Vertex `j`'s radial direction is `d = n cos θj + b sin θj`, and its
/// offset, `d` stretched by `k` along the bend `a`, is `d + a (d·a)(k − 1)
/// = cos θj (n + a (n·a)(k − 1)) + sin θj (b + a (b·a)(k − 1))`: two
/// vectors per ring, so a vertex costs two multiply-adds of each kind and
/// no branch.
///
/// A vertex is its 12 floats in three 4-lane rows, computed and stored
/// whole (`[p.x p.y p.z n.x]`, `[n.y n.z t.x t.y]`, `[t.z −1 u v]`): three
/// stores a vertex where field-by-field writes took ten (stores bounded
/// the ring). Each lane is the same IEEE operations as the fields': the
/// position `c + pn cos θ + pb sin θ` and the normal `n cos θ + b sin θ`
/// (the normal's `x` rides in the position row after `−0`, which adds
/// nothing to any value, signed zeros included).
#[allow(clippy::too_many_arguments)] // one call site; a struct would only rename them
#[inline]
fn tube_ring(
    ring: &mut [Vertex],
    c: Vec3,
    t: Vec3,
    n: Vec3,
    radius: f32,
    v: f32,
    table: &RingTable,
    mitre: Option<(Vec3, f32)>,
) {
    let b = t.cross(n);
    let (pn, pb) = match mitre {
        Some((axis, k)) => {
            let s = k - 1.0;
            (n + axis * (n.dot(axis) * s), b + axis * (b.dot(axis) * s))
        }
        None => (n, b),
    };
    let (pn, pb) = (pn * radius, pb * radius);
    // Row 0: the position, then the normal's x.
    let c0 = Vec4::new(c.x, c.y, c.z, -0.0);
    let cos0 = Vec4::new(pn.x, pn.y, pn.z, n.x);
    let sin0 = Vec4::new(pb.x, pb.y, pb.z, b.x);
    // Row 1: the normal's y and z, then the tangent's x and y.
    let cos1 = Vec4::new(n.y, n.z, 0.0, 0.0);
    let sin1 = Vec4::new(b.y, b.z, 0.0, 0.0);
    let tan1 = Vec4::new(0.0, 0.0, t.x, t.y);
    let radial = BVec4A::new(true, true, false, false);
    // The seam vertex (`j = sides`) is vertex 0 again with `u = 1`: the
    // table's last angle is exactly its first, so a copy is bitwise what
    // computing it would give.
    let Some((seam, around)) = ring.split_last_mut() else {
        return;
    };
    let rows = |sin: f32, cos: f32, u: f32| -> Vertex {
        let r0 = c0 + cos0 * cos + sin0 * sin;
        let r1 = Vec4::select(radial, cos1 * cos + sin1 * sin, tan1);
        let r2 = Vec4::new(t.z, -1.0, u, v);
        bytemuck::cast([r0.to_array(), r1.to_array(), r2.to_array()])
    };
    for (out, (&(sin, cos), &u)) in around.iter_mut().zip(table.sin_cos.iter().zip(&table.u)) {
        *out = rows(sin, cos, u);
    }
    // Computed again rather than read back: a read of the vertex just
    // stored, in other widths than it was stored with, stalls.
    let (sin, cos) = table.sin_cos[0];
    *seam = rows(sin, cos, 1.0);
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
pub(super) fn close_broken(
    indices: &mut [u32],
    rows: &[RowConst],
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

/// True when a cable's indices, written by [`write_indices`] and
/// [`close_broken`], show exactly the broken segments of `rows`: a gap's
/// first two indices are equal only when [`close_broken`] closed it.
pub(super) fn breaks_match(
    indices: &[u32],
    rows: &[RowConst],
    options: &MeshOptions,
    sides: u32,
) -> bool {
    let per_segment =
        options.gap_indices(sides) as usize * options.rings_per_segment.max(1) as usize;
    indices
        .chunks_exact(per_segment)
        .zip(rows)
        .all(|(gaps, row)| (gaps[0] == gaps[1]) != row.linked)
}

/// Writes a cable's triangles: counter-clockwise seen from outside the tube
/// (from the viewer for a ribbon's front face).
pub(super) fn write_indices(
    indices: &mut [u32],
    rec: &CableMesh,
    options: &MeshOptions,
    sides: u32,
) {
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

/// Cables meshed side by side, one per lane, by [`mesh_cables_lanes`].
pub(super) const LANES: usize = 8;

/// One lane per cable: `f32` arithmetic on [`LANES`] cables at once.
type L8 = crate::kernel::lane::Fx<LANES>;
type V8 = crate::kernel::lane::V3<L8>;
type M8 = <L8 as Lane>::M;

/// One cable of a batch for [`mesh_cables_lanes`]: its particles, its
/// parameters, its record and its vertex range.
pub(super) struct LaneCable<'a> {
    pub(super) pts: &'a [Vec3],
    pub(super) params: &'a CableParams,
    pub(super) rec: &'a mut CableMesh,
    pub(super) vertices: &'a mut [Vertex],
}

/// True when [`mesh_cables_lanes`] can mesh a cable of `particles`
/// particles and `rings` rings with `options`: an unsmoothed tube (one
/// ring per particle) of at least two particles.
pub(super) fn lanes_can_mesh(options: &MeshOptions, particles: usize, rings: u32) -> bool {
    options.style == MeshStyle::Tube
        && options.rings_per_segment == 1
        && particles >= 2
        && rings as usize == particles
}

/// [`mesh_cable`] for [`LANES`] cables of the same number of particles and
/// sides (`table` set to them), unsmoothed tubes ([`lanes_can_mesh`]):
/// the ring frames (tangents, parallel transport, mitres: the chains of
/// square roots and divisions that bound the scalar build) are computed
/// for the eight cables at once, one cable per lane, by the same IEEE
/// operations in the same order as [`mesh_cable`], so each cable's
/// vertices, bounds and start frame are bitwise what [`mesh_cable`] gives
/// it alone. The vertices are then written cable by cable.
///
/// The batch is full (every slot `Some`) and taken (every slot `None`
/// after); a batch that is not full, or whose cables differ in length, is
/// meshed by [`mesh_cable`] cable by cable.
pub(super) fn mesh_cables_lanes(
    slots: &mut [Option<LaneCable<'_>>; LANES],
    options: &MeshOptions,
    table: &RingTable,
) {
    let n = slots[0].as_ref().map_or(0, |c| c.pts.len());
    let full = slots
        .iter()
        .all(|c| c.as_ref().is_some_and(|c| c.pts.len() == n));
    if !full || n < 2 {
        for c in slots.iter_mut().filter_map(Option::take) {
            mesh_cable(c.pts, c.params, options, table, c.rec, c.vertices);
        }
        return;
    }
    // Every slot holds a cable: `full` was checked just above.
    let mut batch = slots.each_mut().map(|c| c.take().expect("a full batch"));
    let pts = batch.each_ref().map(|c| c.pts);
    let point = |r: usize| {
        let mut p = V8::zero();
        for (i, c) in pts.iter().enumerate() {
            p.set_lane(i, c[r]);
        }
        p
    };
    let segments = n - 1;
    // The length along each cable, summed in order as `mesh_cable` does.
    let mut v_scale = L8::splat(0.0);
    let mut t = V8::zero();
    for (i, c) in batch.iter().enumerate() {
        let sum: f32 = c.pts.windows(2).map(|w| w[0].distance(w[1])).sum();
        let scale = if sum > cable_core::MIN_SEGMENT_LENGTH {
            c.params.tile / sum
        } else {
            0.0
        };
        v_scale.set_lane(i, scale);
        t.set_lane(i, first_direction(c.pts));
    }
    let (mut prev, mut cur, mut next) = (point(0), point(0), point(1));
    let mut n_ = V8::zero();
    let (mut seg, mut arc) = (0usize, L8::splat(0.0));
    let mut seg_len = (point(0) - point(1)).length();
    let mut stretch = L8::splat(1.0);
    let mut bounds = [Aabb::EMPTY; LANES];
    // The previous ring's way out (`None` lanes: no direction).
    let mut d_in = V8::zero();
    let mut d_in_ok = M8::splat(false);
    let rv = batch[0].rec.ring_vertices as usize;
    for r in 0..n {
        // One ring per particle: ring `r` is particle `r`, the last one
        // the end of the last segment (`locate` of `mesh_cable`).
        let i = r.min(segments - 1);
        let s = (r - i) as f32;
        while seg < i {
            arc = arc + seg_len;
            seg += 1;
            seg_len = (point(seg) - point(seg + 1)).length();
        }
        let v = (arc + L8::splat(s) * seg_len) * v_scale;
        // The ring's axis (`ring_tangent`): the bisector of the ways in
        // and out, else the chord, else the last axis.
        let (d_out, out_ok) = direction8(next - cur);
        let (bis, bis_ok) = direction8(d_in + d_out);
        let (chord, chord_ok) = direction8(next - prev);
        let new_t = V8::select(
            d_in_ok & out_ok & bis_ok,
            bis,
            V8::select(chord_ok, chord, t),
        );
        if r == 0 {
            for (i, c) in batch.iter_mut().enumerate() {
                let new_t = new_t.lane(i);
                let rec = &mut *c.rec;
                let carried = rec.start_normal.length_squared() > 0.5 && options.coherent_roll;
                let first = if carried {
                    transport(rec.start_normal, rec.start_tangent, new_t)
                } else {
                    seed_normal(new_t, options.reference)
                };
                (rec.start_tangent, rec.start_normal) = (new_t, first);
                n_.set_lane(i, first);
            }
        } else {
            n_ = transport8(n_, t, new_t);
        }
        t = new_t;
        // The mitre (`mitre_of`): where both ways exist and bend.
        let bend = d_out - d_in;
        let (axis, axis_ok) = direction8(bend - t.scale(t.dot(bend)));
        let mitred = d_in_ok & out_ok & axis_ok;
        let cos_half = t.dot(d_in).clamp(L8::splat(0.25), L8::splat(1.0));
        let k = L8::splat(1.0) / cos_half;
        stretch = L8::select(mitred, stretch.max(k), stretch);
        (d_in, d_in_ok) = (d_out, out_ok);
        for (lane, c) in batch.iter_mut().enumerate() {
            // Sized by the layout for `n` rings of `rv` vertices.
            let Some(ring) = c.vertices.get_mut(r * rv..(r + 1) * rv) else {
                continue;
            };
            let mitre = mitred.lane(lane).then(|| (axis.lane(lane), k.lane(lane)));
            let centre = cur.lane(lane);
            tube_ring(
                ring,
                centre,
                t.lane(lane),
                n_.lane(lane),
                c.params.radius,
                v.lane(lane),
                table,
                mitre,
            );
            bounds[lane] = bounds[lane].with_point(centre);
        }
        prev = cur;
        cur = next;
        if r + 2 < n {
            next = point(r + 2);
        }
    }
    for (lane, c) in batch.iter_mut().enumerate() {
        c.rec.bounds = bounds[lane].expand(c.params.radius * stretch.lane(lane));
    }
}

/// [`direction`] lane by lane: the unit vector and the lanes where it
/// exists (elsewhere the value is meaningless).
#[inline(always)]
fn direction8(d: V8) -> (V8, M8) {
    let l2 = d.length_squared();
    let ok = l2.gt(L8::splat(TINY2)) & l2.finite();
    (d.scale(L8::splat(1.0) / l2.sqrt()), ok)
}

/// [`transport`] lane by lane.
#[inline(always)]
fn transport8(n: V8, a: V8, b: V8) -> V8 {
    let c = a.dot(b);
    let k = a.cross(b);
    let kn = k.cross(n);
    let rodrigues = n + kn + k.cross(kn).scale(L8::splat(1.0) / (L8::splat(1.0) + c));
    let turned = V8::select(c.gt(L8::splat(-0.9999)), rodrigues, n);
    let (p, ok) = direction8(turned - b.scale(turned.dot(b)));
    if ok.all() {
        return p;
    }
    // A normal turned onto the tangent (rare): any perpendicular.
    let mut out = p;
    for i in 0..LANES {
        if !ok.lane(i) {
            out.set_lane(i, b.lane(i).any_orthonormal_vector());
        }
    }
    out
}
