//! One cable's mesh: its centre line, ring frames, vertices and triangles
//! (see the parent module's docs for the geometry).

use cable_core::mesh::{Aabb, CableMesh, MAX_SIDES, MeshOptions, MeshStyle, Vertex};
use cable_core::{CableParams, RowConst};
use glam::{Vec3, Vec3A};

use crate::frame::{direction, first_direction, seed_normal, transport};

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
        if tube {
            let d_out = direction(next - cur);
            let mitre = mitre_of(d_in, d_out, t);
            d_in = d_out;
            if let Some((_, k)) = mitre {
                stretch = stretch.max(k);
            }
            tube_ring(ring, cur, t, n, radius, v, table, mitre);
        } else {
            side = direction(t.cross(view)).unwrap_or(side);
            ribbon_ring(ring, cur, t, side, radius, v, two_sided);
        }
        bounds = bounds.with_point(cur);
        prev = cur;
        cur = next;
        if r + 2 < rings {
            next = line.point(r + 2);
        }
    }
    rec.bounds = bounds.expand(radius * stretch);
}

/// The mitre of a ring at `cur` between the centre-line pieces from `prev`
/// and to `next`, with ring normal `t`: the in-plane bend direction and
/// the factor `1 / cos(θ/2)` by which the ring stretches along it, so
/// that its vertices lie on both neighbouring cylinders instead of
/// pinching the tube to `r·cos(θ/2)`. `None` on a straight piece or an
/// end. The stretch is capped at 4 (a fold back on itself).
#[inline]
pub(super) fn mitre(prev: Vec3, cur: Vec3, next: Vec3, t: Vec3) -> Option<(Vec3, f32)> {
    mitre_of(direction(cur - prev), direction(next - cur), t)
}

/// [`mitre`] from the directions `cur - prev` and `next - cur`.
#[inline]
fn mitre_of(d_in: Option<Vec3>, d_out: Option<Vec3>, t: Vec3) -> Option<(Vec3, f32)> {
    let (d_in, d_out) = (d_in?, d_out?);
    let bend = d_out - d_in;
    let axis = direction(bend - t * t.dot(bend))?;
    let cos_half = t.dot(d_in).clamp(0.25, 1.0);
    Some((axis, 1.0 / cos_half))
}

/// Writes one tube ring: `sides + 1` vertices around centre `c`, stretched
/// along a mitre's bend direction (see [`mitre`]). Normals stay the unit
/// radial directions. The ring's length is the table's `sides + 1`.
///
/// Vertex `j`'s radial direction is `d = n cos θj + b sin θj`, and its
/// offset, `d` stretched by `k` along the bend `a`, is `d + a (d·a)(k − 1)
/// = cos θj (n + a (n·a)(k − 1)) + sin θj (b + a (b·a)(k − 1))`: two
/// vectors per ring, so a vertex costs two multiply-adds of each kind and
/// no branch.
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
    let (c, n, b) = (Vec3A::from(c), Vec3A::from(n), Vec3A::from(b));
    let (pn, pb) = (Vec3A::from(pn * radius), Vec3A::from(pb * radius));
    let tangent = [t.x, t.y, t.z, -1.0];
    // The seam vertex (`j = sides`) is vertex 0 again with `u = 1`: the
    // table's last angle is exactly its first, so a copy is bitwise what
    // computing it would give.
    let Some((seam, around)) = ring.split_last_mut() else {
        return;
    };
    for (out, (&(sin, cos), &u)) in around.iter_mut().zip(table.sin_cos.iter().zip(&table.u)) {
        *out = Vertex {
            position: (c + pn * cos + pb * sin).to_array(),
            normal: (n * cos + b * sin).to_array(),
            tangent,
            uv: [u, v],
        };
    }
    if let Some(first) = around.first() {
        *seam = Vertex {
            uv: [1.0, v],
            ..*first
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
