//! Collide system: cables against kinematic spheres, capsules, planes and
//! boxes, inside the relaxation loop, with friction and without tunnelling.
//!
//! Per cable and substep ([`Contacts`]):
//!
//! 1. **Broad phase** ([`Contacts::find`], once per substep): the cable's
//!    bounds (its current and previous positions, grown by its radius and
//!    its motion this substep) are tested against the colliders' bounds
//!    through the pool's [`cable_core::Bvh`] (planes: a support-point test).
//!    A cable near no collider stops here and costs nothing more.
//! 2. **No tunnelling** (also in `find`): each free particle's motion from
//!    its previous to its predicted position is swept against the
//!    candidates ([`crate::narrow::sweep_point`]); at the first hit the
//!    motion into the shape is removed and the rest slides along the
//!    surface, so a particle cannot jump across a thin box; fast segments
//!    are checked the same way at intermediate configurations, so a cable
//!    cannot jump over a thin rod lying between two of its particles. The
//!    side of each shape every particle and segment starts on is
//!    remembered: a piece the constraints drag through a thin shape during
//!    the iterations is pushed back out on that side.
//! 3. **Contact** ([`Contacts::project`], every solver iteration, after
//!    the constraint sweep, as the UE4 sphere/capsule extension does): every
//!    free particle within the cable `radius` of a shape is pushed out to
//!    that distance along the contact normal, and so is every *segment*
//!    whose closest point is (shared by the two particles by inverse mass
//!    and the contact's position along the segment), so a taut cable
//!    catches on a box edge or a ball thinner than its segments.
//! 4. **Friction** ([`Contacts::finish`], after the iterations): position
//!    based Coulomb friction (Macklin et al. 2014) with coefficient
//!    `friction` for static and kinetic friction: the particle's motion
//!    this substep relative to the collider's surface (so a moving collider
//!    carries a cable), projected on the contact plane, is removed entirely
//!    when it is at most `friction ×` the normal push-out of this substep,
//!    else shortened by that amount.
//!
//! Contacts are inelastic (no bounce). Colliders are visited in slot order
//! and the particles of a cable in row order, on one thread per cable, so
//! results do not depend on the thread count.

use std::cell::RefCell;

use cable_core::{Aabb, CableMut, WorldShape};
use glam::Vec3;

use crate::narrow::{point_contact, segment_contact, support_gap, sweep_point};
use crate::params::SolverParams;

/// No collider touched this particle in this substep.
const NONE: u32 = u32::MAX;

#[derive(Debug, Default)]
struct Scratch {
    /// Candidate colliders (indices into the prepared colliders), ascending.
    cands: Vec<u32>,
    /// Total push-out of each particle this substep, metres.
    push: Vec<Vec3>,
    /// Last collider that pushed each particle, or [`NONE`].
    touch: Vec<u32>,
    /// Per candidate: the outward normal of each particle (rows `0..n`) and
    /// segment (rows `n..2n`) at the start of the substep, or zero.
    side: Vec<Vec3>,
}

thread_local! {
    /// Per-thread scratch reused across cables; fully rewritten for each
    /// cable, so it carries no state between them.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The contacts of one cable during one substep (see the module docs).
#[derive(Debug)]
pub struct Contacts {
    s: Scratch,
}

impl Contacts {
    /// No candidates: every later call is a no-op.
    fn none() -> Self {
        Self {
            s: Scratch::default(),
        }
    }

    /// True when no collider is near the cable this substep.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.s.cands.is_empty()
    }

    /// Broad phase and continuous collision for one cable, right after it
    /// was integrated (positions predicted, previous positions the start of
    /// the substep). Returns the cable's candidate colliders.
    pub fn find(c: &mut CableMut<'_>) -> Self {
        let set = c.colliders;
        let world = set.prepared();
        if world.is_empty() {
            return Self::none();
        }
        let r = c.params.radius;
        let mut bb = Aabb::EMPTY;
        let mut motion = 0.0f32;
        for (&p, &q) in c.pos.iter().zip(c.prev.iter()) {
            bb = bb.with_point(p).with_point(q);
            motion = motion.max((p - q).abs().max_element());
        }
        // Room for the particles to move during the iterations.
        let margin = 1.5 * r + 2.0 * motion;
        let query = bb.expand(margin);
        let mut s = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
        s.cands.clear();
        set.query(&query, |k| s.cands.push(k));
        let (centre, half) = (bb.center(), (bb.max - bb.min) * 0.5);
        for &k in set.prepared_planes() {
            if let WorldShape::Plane { normal, offset } = world[k as usize].shape {
                if normal.dot(centre) - normal.abs().dot(half) - offset < margin {
                    s.cands.push(k);
                }
            }
        }
        if s.cands.is_empty() {
            SCRATCH.with(|cell| *cell.borrow_mut() = s);
            return Self::none();
        }
        s.cands.sort_unstable();
        let n = c.pos.len();
        s.push.clear();
        s.push.resize(n, Vec3::ZERO);
        s.touch.clear();
        s.touch.resize(n, NONE);
        let mut me = Self { s };
        me.remember_sides(c, margin);
        me.sweep(c);
        me.sweep_segments(c);
        me
    }

    /// Records on which side of each candidate every particle and segment
    /// starts the substep (its outward normal there), so that a piece which
    /// the constraints drag deep into or across a thin shape is pushed back
    /// out on the side it came from, not through the nearest far face.
    fn remember_sides(&mut self, c: &CableMut<'_>, margin: f32) {
        let world = c.colliders.prepared();
        let n = c.pos.len();
        let s = &mut self.s;
        s.side.clear();
        s.side.resize(2 * n * s.cands.len(), Vec3::ZERO);
        for (ci, &k) in s.cands.iter().enumerate() {
            let col = &world[k as usize];
            if matches!(col.shape, WorldShape::Plane { .. }) {
                continue; // a half-space has one side only
            }
            let zone = col.aabb.expand(margin);
            let side = &mut s.side[2 * n * ci..2 * n * (ci + 1)];
            for (i, &p) in c.prev.iter().enumerate() {
                if zone.contains(p) {
                    let (phi, nrm) = point_contact(&col.shape, p);
                    if phi > 0.0 {
                        side[i] = nrm;
                    }
                }
            }
            for (i, w) in c.prev.windows(2).enumerate() {
                if zone.overlaps(&Aabb::from_points(w[0], w[1])) {
                    let (_, phi, nrm) = segment_contact(&col.shape, w[0], w[1]);
                    if phi > 0.0 {
                        side[n + i] = nrm;
                    }
                }
            }
        }
    }

    /// Continuous collision of fast segments: a segment that starts clear of
    /// a shape and moves farther this substep than about half the shape's
    /// thickness plus the cable radius is checked at intermediate
    /// configurations (linear in time, spaced so that it cannot skip the
    /// shape); at the first one in contact both particles are put there,
    /// keeping their motion along the surface, so a cable cannot jump over
    /// a thin rod or edge lying between two of its particles.
    fn sweep_segments(&mut self, c: &mut CableMut<'_>) {
        let world = c.colliders.prepared();
        let r = c.params.radius;
        for &k in &self.s.cands {
            let col = &world[k as usize];
            let thickness = match col.shape {
                WorldShape::Plane { .. } => continue,
                WorldShape::Sphere { radius, .. } | WorldShape::Capsule { radius, .. } => {
                    2.0 * radius
                }
                WorldShape::Cuboid { half_extents, .. } => 2.0 * half_extents.min_element(),
            };
            let step = 0.5 * thickness + r;
            for i in 0..c.pos.len() - 1 {
                let (wa, wb) = (c.inv_mass[i], c.inv_mass[i + 1]);
                let (a0, b0) = (c.prev[i], c.prev[i + 1]);
                let (da, db) = (c.pos[i] - a0, c.pos[i + 1] - b0);
                let motion = da.length().max(db.length());
                if wa + wb <= 0.0 || motion <= step {
                    continue;
                }
                let swept = Aabb::from_points(a0, b0)
                    .with_point(c.pos[i])
                    .with_point(c.pos[i + 1])
                    .expand(r);
                if !col.aabb.overlaps(&swept) || segment_contact(&col.shape, a0, b0).1 < r {
                    continue;
                }
                // At most 64 checks: beyond that the motion is absurd anyway.
                let n = (motion / step).ceil().min(64.0) as u32;
                for j in 1..n {
                    let t = j as f32 / n as f32;
                    let (a, b) = (a0 + da * t, b0 + db * t);
                    let (_, phi, nrm) = segment_contact(&col.shape, a, b);
                    if phi < r {
                        let rest = 1.0 - t;
                        for (row, w, start, d) in [(i, wa, a, da), (i + 1, wb, b, db)] {
                            if w > 0.0 {
                                let into = d.dot(nrm).min(0.0);
                                c.pos[row] = start + (d - nrm * into) * rest;
                                self.s.push[row] += nrm * (-into * rest);
                                self.s.touch[row] = k;
                            }
                        }
                        break;
                    }
                }
            }
        }
    }

    /// Continuous collision of every free particle's motion this substep.
    fn sweep(&mut self, c: &mut CableMut<'_>) {
        let world = c.colliders.prepared();
        let r = c.params.radius;
        for i in 0..c.pos.len() {
            let (from, to) = (c.prev[i], c.pos[i]);
            if c.inv_mass[i] <= 0.0 || from == to {
                continue;
            }
            let path = Aabb::from_points(from, to).expand(r);
            let mut first: Option<(f32, u32)> = None;
            for &k in &self.s.cands {
                let col = &world[k as usize];
                if !col.aabb.overlaps(&path) {
                    continue;
                }
                if let Some(t) = sweep_point(&col.shape, from, to, r) {
                    if first.is_none_or(|(ft, _)| t < ft) {
                        first = Some((t, k));
                    }
                }
            }
            if let Some((t, k)) = first {
                let d = to - from;
                let hit = from + d * t;
                let (_, n) = point_contact(&world[k as usize].shape, hit);
                let into = d.dot(n).min(0.0);
                // Keep the motion along the surface; drop the part into it.
                c.pos[i] = hit + (d - n * into) * (1.0 - t);
                self.s.push[i] += n * (-into * (1.0 - t));
                self.s.touch[i] = k;
            }
        }
    }

    /// One contact pass, run after every constraint sweep: pushes particles
    /// and segments out of the candidate colliders to the cable radius.
    pub fn project(&mut self, c: &mut CableMut<'_>) {
        let world = c.colliders.prepared();
        let r = c.params.radius;
        let w = c.inv_mass;
        let n = c.pos.len();
        let s = &mut self.s;
        for (ci, &k) in s.cands.iter().enumerate() {
            let col = &world[k as usize];
            let zone = col.aabb.expand(r);
            let side = &s.side[2 * n * ci..2 * n * (ci + 1)];
            let rows = c
                .pos
                .iter_mut()
                .zip(w)
                .zip(s.push.iter_mut().zip(&mut s.touch));
            for (((p, &wi), (push, touch)), &came) in rows.zip(side) {
                if wi > 0.0 && zone.contains(*p) {
                    let (phi, nrm) = point_contact(&col.shape, *p);
                    let (phi, nrm) = keep_side(&col.shape, *p, phi, nrm, came);
                    if phi < r {
                        let dp = nrm * (r - phi);
                        *p += dp;
                        *push += dp;
                        *touch = k;
                    }
                }
            }
            if matches!(col.shape, WorldShape::Plane { .. }) {
                // A segment whose ends are outside a half-space is outside.
                continue;
            }
            for i in 0..n - 1 {
                let (wa, wb) = (w[i], w[i + 1]);
                let (a, b) = (c.pos[i], c.pos[i + 1]);
                if wa + wb <= 0.0 || !zone.overlaps(&Aabb::from_points(a, b)) {
                    continue;
                }
                let (t, phi, nrm) = segment_contact(&col.shape, a, b);
                let (phi, nrm) = keep_side(&col.shape, a.lerp(b, t), phi, nrm, side[n + i]);
                if phi >= r {
                    continue;
                }
                let (sa, sb) = (1.0 - t, t);
                // Moving the contact point by `depth` needs depth / denom; the
                // floor keeps a contact next to a pinned end from flinging
                // the free end (it then takes a few iterations instead).
                let denom = (sa * sa * wa + sb * sb * wb).max(0.25 * wa.max(wb));
                let scale = (r - phi) / denom;
                let (da, db) = (nrm * (sa * wa * scale), nrm * (sb * wb * scale));
                c.pos[i] += da;
                c.pos[i + 1] += db;
                s.push[i] += da;
                s.push[i + 1] += db;
                if wa > 0.0 {
                    s.touch[i] = k;
                }
                if wb > 0.0 {
                    s.touch[i + 1] = k;
                }
            }
        }
    }

    /// Friction after the iterations (and a last contact pass), then hands
    /// the scratch back.
    pub fn finish(mut self, c: &mut CableMut<'_>, params: &SolverParams) {
        if self.s.cands.is_empty() {
            return;
        }
        let mu = params.friction;
        if mu > 0.0 {
            self.friction(c, mu);
            // Sliding along a curved surface or past an edge can dip into
            // it; one more contact pass puts the cable back outside.
            self.project(c);
        }
        SCRATCH.with(|cell| *cell.borrow_mut() = self.s);
    }

    /// Position-based Coulomb friction with coefficient `mu`.
    fn friction(&mut self, c: &mut CableMut<'_>, mu: f32) {
        let s = &self.s;
        {
            let world = c.colliders.prepared();
            for i in 0..c.pos.len() {
                let k = s.touch[i];
                if k == NONE || c.inv_mass[i] <= 0.0 {
                    continue;
                }
                let push = s.push[i];
                let load = push.length();
                if load <= 0.0 {
                    continue;
                }
                let nrm = push / load;
                let carried = world[k as usize].displacement_at(c.pos[i]);
                let dx = c.pos[i] - c.prev[i] - carried;
                let slip = dx - nrm * dx.dot(nrm);
                let len = slip.length();
                let hold = mu * load;
                if len <= hold {
                    c.pos[i] -= slip; // static: stick to the surface
                } else {
                    c.pos[i] -= slip * (hold / len); // kinetic: slide, slowed
                }
            }
        }
    }
}

/// The contact to resolve for a piece at `p` with closest-feature contact
/// (`phi`, `nrm`) that started the substep outside with normal `came` (zero
/// if unknown): when the closest feature is now on the other side, the
/// piece was dragged through and must go back the way it came.
#[inline]
fn keep_side(shape: &WorldShape, p: Vec3, phi: f32, nrm: Vec3, came: Vec3) -> (f32, Vec3) {
    if came != Vec3::ZERO && nrm.dot(came) < 0.0 {
        (support_gap(shape, p, came), came)
    } else {
        (phi, nrm)
    }
}

/// A conservative test, run *before* a substep (after
/// [`cable_core::ColliderSet::prepare`]): `false` only when
/// [`Contacts::find`] is certain to find no candidate collider for this
/// cable in the coming substep, whatever its integration does. Layouts
/// without a collide kernel of their own (`Lanes8`) keep such cables in
/// their fast path and hand the others to the scalar kernel, so results
/// stay bitwise those of the scalar solver.
///
/// The bound: after attachments and integration a particle has moved by at
/// most `m = max |p − p_prev| + h²·max |a|` per axis (velocity factor ≤ 1),
/// and `find` queries the post-integration bounds grown by
/// `1.5·radius + 2·m`; this queries the current bounds (with attachment
/// targets) grown by `1.5·radius + 3·m` plus a rounding slack.
#[must_use]
pub fn may_touch(
    c: &cable_core::CableRef<'_>,
    colliders: &cable_core::ColliderSet,
    params: &SolverParams,
) -> bool {
    let world = colliders.prepared();
    if world.is_empty() || c.pos.is_empty() {
        return false;
    }
    let mut bb = Aabb::EMPTY;
    let mut v = 0.0f32;
    // Pinned particles without an attachment keep their previous position,
    // so it is in the bounds too; over-estimating costs only speed.
    for (&p, &q) in c.pos.iter().zip(c.prev.iter()) {
        bb = bb.with_point(p).with_point(q);
        v = v.max((p - q).abs().max_element());
    }
    for t in c.attach.iter().flatten() {
        bb = bb.with_point(*t);
    }
    let h = params.substep;
    let acc = params.gravity * c.params.gravity_scale + c.params.force;
    let m = v + h * h * acc.abs().max_element();
    let scale = bb.min.abs().max(bb.max.abs()).max_element();
    let margin = 1.5 * c.params.radius + 3.0 * m + 1.0e-3 + 1.0e-5 * scale;
    if !margin.is_finite() {
        return true;
    }
    let mut hit = false;
    colliders.query(&bb.expand(margin), |_| hit = true);
    if hit {
        return true;
    }
    let (centre, half) = (bb.center(), (bb.max - bb.min) * 0.5);
    colliders
        .prepared_planes()
        .iter()
        .any(|&k| match world[k as usize].shape {
            WorldShape::Plane { normal, offset } => {
                normal.dot(centre) - normal.abs().dot(half) - offset < margin
            }
            _ => false,
        })
}
