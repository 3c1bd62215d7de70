//! Contacts of the one kernel: cables against kinematic spheres, capsules,
//! planes and boxes, inside the relaxation loop, with friction and without
//! tunnelling, written once over any [`Lane`] type.
//!
//! Per block (one cable, or a lane group of cables) and substep:
//!
//! 1. **Broad phase** ([`Contacts::find`]): each lane's bounds (current and
//!    previous positions, grown by its radius and its motion this substep)
//!    against the colliders' bounds. The group's union of those bounds is
//!    queried once in the pool's [`cable_core::Bvh`] (planes: a
//!    support-point test); every candidate then carries a lane mask, the
//!    exact answer each lane's own query would give, so a group where some
//!    lanes touch something stays wide and a lane far from every collider
//!    is bitwise unaffected.
//! 2. **No tunnelling** (also in `find`): each free particle's motion from
//!    its previous to its predicted position is swept against the
//!    candidates other than planes ([`crate::kernel::narrow::sweep_point_l`]; a
//!    half-space has no far side to skip to); at the first hit the
//!    motion into the shape is removed and the rest slides along the
//!    surface. Fast segments are checked the same way at intermediate
//!    configurations, so a cable cannot jump over a thin rod lying between
//!    two of its particles. The side of each shape every particle and
//!    segment starts on is remembered: a piece the constraints drag
//!    through a thin shape is pushed back out on that side.
//! 3. **Contact** ([`Contacts::project`], after the constraint sweeps of
//!    every solver iteration near a ball, a capsule or a box; of the last
//!    one only near planes alone: `when.rs`, [`Contacts::lanes_after`]):
//!    every free particle within the cable `radius` of a shape is pushed out to
//!    that distance along the contact normal, and so is every *segment*
//!    whose closest point is (shared by the two particles by inverse mass
//!    and the contact's position along the segment), so a taut cable
//!    catches on a box edge or a ball thinner than its segments. A torn
//!    segment ([`cable_core::ParticlePool::break_segment`]) takes part in
//!    no segment contact, sweep or un-crossing ([`Store::segment_on`]):
//!    its two ends are ends of two pieces, not a piece of cable between. Around a
//!    shape with a core (a capsule's axis, a bar's long axis, a ball's
//!    diameter across the segment's sweep,
//!    [`crate::kernel::narrow::core_of`]), a segment whose motion since the
//!    last pass went over the core, or whose centre line entered the
//!    shape, is put back on the side it came from (`Contacts::uncross`),
//!    so a cable wrapped on a rod slides around it instead of through.
//!    A particle that a solid's push (or a sweep's slide, step 2) would
//!    leave within the radius of a candidate plane goes along the wedge
//!    between the two instead, both constraints solved together
//!    (`shape::along_floors`, `slide_by_floors`): a ball rolled into a
//!    rope on the ground carries it along the ground, not into it.
//!    A plane whose normal is an axis (the ground) tests one coordinate
//!    per particle (`Contacts::project_axis_plane`), bitwise the general
//!    form for finite positions.
//! 4. **Friction** ([`Contacts::finish`]): position-based Coulomb friction
//!    (Macklin et al. 2014) with coefficient `friction`: the particle's
//!    motion this substep relative to the collider's surface (so a moving
//!    collider carries a cable), projected on the contact plane, is removed
//!    when it is at most `friction ×` the normal push-out of this substep,
//!    else shortened by that amount; then one more contact pass.
//!
//! Contacts are inelastic (no bounce). Colliders are visited in slot order
//! and particles in row order, so results depend on the scene alone.

use cable_core::{ColliderSet, WorldCollider, WorldShape};

use glam::Vec3;

use crate::kernel::lane::{Bounds, Lane, Mask, V3};
use crate::kernel::narrow::{
    Core, core_of, point_contact_l, segment_contact_l, support_gap, sweep_point_l,
};
use crate::kernel::store::{Block, Store};
use crate::simd::Wide;

// Public only with `internals` (`inner_modules!`, in `lib.rs`).
inner_modules!(friction, geom, load, planes, shape, when);

use geom::{
    NONE, Plane, axis_bounds, carried, few_groups, longest_segment, lost, plane_near, row_in, s,
    same, seg_in, seg_span, tag, union_of,
};
use shape::{All, Lanes, Load, OneGroup, View, shape_pass, sides_on};

/// A sweep's slide `slid` (from the hit point `at`, the motion `d` along
/// the surface of normal `nrm` for the fraction `rest` of the substep),
/// made to respect the candidate planes `floors` in lanes `hit`: where it
/// would end within `r` of a plane, the particle slides along the edge of
/// the wedge between the surface and the plane (`d` projected on
/// `nrm × n`) instead, as a ball's front would carry a particle lying on
/// the ground ahead of it rather than down into the ground. Where the
/// surface and the plane are nearly parallel (`|nrm × n|² ≤ 10⁻⁴`) the
/// slide is left as it was.
#[inline(always)]
fn slide_by_floors<L: Lane>(
    floors: &[Plane<L>],
    hit: L::M,
    r: L,
    (at, d, rest, nrm): (V3<L>, V3<L>, L, V3<L>),
    slid: V3<L>,
) -> V3<L> {
    let mut slid = slid;
    for f in floors {
        let under = hit & f.cm & (f.nv.dot(slid) - f.off).lt(r);
        if under.none() {
            continue;
        }
        let e = nrm.cross(f.nv);
        let ee = e.length_squared();
        let ok = under & s::<L>(1.0e-4).lt(ee);
        let along = at + e.scale(e.dot(d) / ee * rest);
        slid = V3::select(ok, along, slid);
    }
    slid
}

/// The contact scratch of one block: candidates and per-particle state of
/// the current substep. Kept between substeps so a warmed-up step does not
/// allocate.
#[derive(Debug, Clone, Default)]
pub struct Contacts<L: Lane> {
    /// Candidate colliders (indices into the prepared colliders), ascending.
    pub cands: Vec<u32>,
    /// Per candidate: the lanes for which it is a candidate.
    pub cand_m: Vec<L::M>,
    /// Per candidate: the rows `lo..hi` whose start and predicted
    /// positions, grown by the margin, reach it in some lane (the row-level
    /// broad phase: a cable's rows far from a ball skip it). A plane's span
    /// is every row: its contact test is one dot product (one coordinate
    /// for an axis-aligned plane), cheaper than the
    /// bounds that would skip it, and it never misses a particle that the
    /// iterations carry farther than the margin.
    pub span: Vec<(usize, usize)>,
    /// Per candidate and lane: that lane's own `lo..hi` (as lane values).
    pub lane_span: Vec<(L, L)>,
    /// Per candidate: the lanes whose span has a row (scratch of
    /// `Contacts::find_spans`).
    pub seen: Vec<L::M>,
    /// Total push-out of each particle this substep, metres (kept only
    /// for friction: `Contacts::pushed`).
    pub push: Vec<V3<L>>,
    /// The last collider that pushed each particle (`tag`), or `NONE`
    /// (kept only for friction, and only when some candidate moves:
    /// [`Contacts::touches`]).
    pub touch: Vec<L>,
    /// Per candidate other than a plane: the outward normal each particle
    /// (rows `0..n`) and segment (rows `n..2n`) started the substep with,
    /// or zero (a plane's part is left as it was: nothing reads it).
    pub side: Vec<V3<L>>,
    /// Where the last contact pass left each particle (at the first pass:
    /// where the substep started), kept only when some candidate has a
    /// core ([`core_of`]): a segment whose motion since then passed
    /// over the core went through the shape.
    pub last: Vec<V3<L>>,
    /// `last` still holds the substep's previous positions (no contact
    /// pass ran yet): against a moving collider, `uncross` reads them where
    /// the collider carried them, so the side they came from is relative
    /// to it.
    pub last_is_prev: bool,
    /// Per candidate: its core ([`core_of`]), when it has one this
    /// substep. A ball has one only when it is thinner than two of the
    /// segments near it (`longest_segment`): a bigger ball cannot pass
    /// between two particles, and the particle sweeps catch it.
    pub core: Vec<Option<Core>>,
    /// Per candidate: the lanes for which it has a core (the lanes of
    /// [`Contacts::cand_m`] for a capsule or a bar; for a ball, those of
    /// them whose own segments near it are longer than its radius). A
    /// segment can pass through the shape between two particles in these
    /// lanes alone, and only they are un-crossed (`Contacts::uncross`).
    pub core_m: Vec<L::M>,
    /// Some candidate has a core.
    pub cores: bool,
    /// The lanes with a candidate that is not a plane: they meet their
    /// candidates after every iteration; the other lanes only after the
    /// last ([`Contacts::lanes_after`]).
    pub every: L::M,
    /// [`Contacts::cand_m`] while [`Contacts::narrow`] has it cut down
    /// (kept so a warmed-up step does not allocate).
    pub cand_all: Vec<L::M>,
    /// Some candidate is not a plane: the sweeps and the row-level broad
    /// phase have work (a plane needs neither).
    pub solids: bool,
    /// The candidates when all of them are planes, in candidate order
    /// (for [`Contacts::project_and_finish_planes`]); else empty.
    pub planes: Vec<Plane<L>>,
    /// The candidate planes when some candidate is a solid, in candidate
    /// order (else empty): a solid's particle push and sweep respect them
    /// (a particle squeezed between a ball and the ground goes along the
    /// wedge between them, not into the ground: `shape::shape_pass`).
    pub floors: Vec<Plane<L>>,
    /// The block has friction: `push` is kept, and `touch` with
    /// [`Contacts::touches`] (nothing else reads them).
    pub friction: bool,
    /// Friction needs `touch`: it has a moving candidate, whose motion a
    /// particle it pushed is carried with. With only still candidates
    /// friction reads whether a particle was pushed from `push` alone (a
    /// push that is zero has no load, which friction skips in either
    /// form: see [`Contacts::friction`]), and no
    /// contact writes `touch`: a load, a blend and a store fewer per row
    /// and contact of the ground plane, and no fill per substep.
    pub touches: bool,
    /// The path the contact passes run on this substep (the kernel's).
    pub wide: Option<Wide>,
    /// Contact forces are measured this substep
    /// ([`cable_core::ColliderSet::measures_forces`]).
    pub forces: bool,
    /// Contacts are tracked this substep
    /// ([`cable_core::ColliderSet::tracks_contacts`]).
    pub events: bool,
    /// `forces || events`: `loads` are kept.
    pub measure: bool,
    /// Per candidate: its load this substep (`load.rs`), when `measure`.
    pub loads: Vec<Load<L>>,
    /// The colliders that pushed some lane in the substeps since the last
    /// [`Contacts::report_touches`], and the lanes (1 where pushed), in the
    /// order first met: carried across the substeps of a block, when
    /// `events`.
    pub touched: Vec<(cable_core::ColliderHandle, L)>,
    /// Per candidate: its position, which torques are taken about.
    pub centres: Vec<Vec3>,
}

impl<L: Lane> Contacts<L> {
    /// Broad phase and continuous collision for one block, right after it
    /// was integrated (positions predicted, previous positions the start of
    /// the substep). Returns true when some collider is a candidate.
    #[inline(always)]
    pub fn find<S: Store<L>>(
        &mut self,
        st: &mut S,
        b: &Block<L>,
        set: &ColliderSet,
        wide: Option<Wide>,
    ) -> bool {
        self.wide = wide;
        self.friction = b.friction;
        self.forces = set.measures_forces();
        self.events = set.tracks_contacts();
        self.measure = self.forces || self.events;
        self.cands.clear();
        self.cand_m.clear();
        let world = set.prepared();
        if world.is_empty() {
            return false;
        }
        let r = b.radius;
        let n = st.rows();
        // Out of line, once per SIMD path: inlined into the kernel, the
        // third axis's loop was compiled lane by lane (blends, lane
        // extractions and branches; 8 % of the plane-only scene's samples
        // against 2 % for each of the other two axes).
        let (x, y, z) = L::out_of_line(
            wide,
            #[inline(always)]
            || {
                (
                    axis_bounds(st, |v| v.x),
                    axis_bounds(st, |v| v.y),
                    axis_bounds(st, |v| v.z),
                )
            },
        );
        let bb = Bounds {
            min: V3::new(x.0, y.0, z.0),
            max: V3::new(x.1, y.1, z.1),
        };
        let motion = x.2.max(y.2).max(z.2);
        // Room for the particles to move during the iterations.
        let margin = s::<L>(1.5) * r + s::<L>(2.0) * motion;
        let query = bb.expand(margin);
        set.query(&union_of(&query, b.live), |k| self.cands.push(k));
        for &k in set.prepared_planes() {
            if let WorldShape::Plane { normal, offset } = world[k as usize].shape
                && (plane_near(normal, offset, &bb, margin) & b.live).any()
            {
                self.cands.push(k);
            }
        }
        if self.cands.is_empty() {
            return false;
        }
        self.cands.sort_unstable();
        // Each lane's own answer: exactly its own BVH query.
        let mut kept = 0;
        for j in 0..self.cands.len() {
            let k = self.cands[j];
            let col = &world[k as usize];
            let m = match col.shape {
                WorldShape::Plane { normal, offset } => plane_near(normal, offset, &bb, margin),
                _ => query.overlaps(&col.aabb),
            } & b.live;
            if m.any() {
                self.cands[kept] = k;
                self.cand_m.push(m);
                kept += 1;
            }
        }
        self.cands.truncate(kept);
        if kept == 0 {
            return false;
        }
        self.solids = self
            .cands
            .iter()
            .any(|&k| !matches!(world[k as usize].shape, WorldShape::Plane { .. }));
        self.planes.clear();
        self.floors.clear();
        let planes = if self.solids {
            &mut self.floors
        } else {
            &mut self.planes
        };
        for (&k, &cm) in self.cands.iter().zip(&self.cand_m) {
            if let WorldShape::Plane { normal, offset } = world[k as usize].shape {
                planes.push(Plane::of(normal, offset, cm, k));
            }
        }
        self.find_spans(st, world, margin);
        // Measured forces attribute friction to the collider that last
        // pushed each particle: `touch` is kept then (friction gives the
        // same bits either way, see `Contacts::touches`).
        self.touches = self.friction
            && (self.forces || self.cands.iter().any(|&k| world[k as usize].is_moving()));
        self.start_loads(set);
        self.push.clear();
        self.touch.clear();
        if self.friction {
            self.push.resize(n, V3::zero());
        }
        if self.touches {
            self.touch.resize(n, s(NONE));
        }
        // The sweep runs out of line once per SIMD path (`Lane::out_of_line`);
        // the side memory and the segment sweeps have one baseline copy:
        // AVX2 copies of them and of `uncross` took the crate's release
        // build from 80 s to 150 s for no gain the contact bench could see.
        self.remember_sides(st, world, margin);
        self.core.clear();
        self.core_m.clear();
        self.every = L::M::splat(false);
        for (ci, &k) in self.cands.iter().enumerate() {
            let shape = &world[k as usize].shape;
            let core = core_of(shape);
            let m = match (*shape, core) {
                (_, None) => L::M::splat(false),
                (WorldShape::Sphere { radius, .. }, Some(_)) => {
                    // Each lane's own segments near the ball only.
                    let (lo, hi) = self.span[ci];
                    let l = longest_segment(st, b, seg_span(lo, hi, n), self.lane_span[ci]);
                    s::<L>(radius).lt(l) & self.cand_m[ci]
                }
                (_, Some(_)) => self.cand_m[ci],
            };
            self.core.push(if m.any() { core } else { None });
            self.core_m.push(m);
            if !matches!(shape, WorldShape::Plane { .. }) {
                // A solid: its lanes meet their candidates after every
                // iteration (`contact::when`).
                self.every = self.every | self.cand_m[ci];
            }
        }
        self.cores = self.core_m.iter().any(|m| m.any());
        self.last.clear();
        if self.cores {
            self.last.extend((0..n).map(|i| st.prev(i)));
        }
        self.last_is_prev = true;
        if self.solids {
            L::out_of_line(
                wide,
                #[inline(always)]
                || self.sweep(st, b, world),
            );
            self.sweep_segments(st, b, world);
        }
        true
    }

    /// The row-level broad phase: for each candidate, per lane, the first
    /// and one past the last row of the segments whose motion this substep
    /// (bounds of both ends, now and before), grown by `margin`, reaches it
    /// in a lane for which it is a candidate (each lane exactly its own
    /// one-lane answer), and their union over the lanes as loop bounds.
    /// Segment i is rows i and i + 1: a thin shape can touch a segment's
    /// middle far from both its ends.
    ///
    /// One pass over the rows for every candidate: each row's bounds are
    /// taken once, each segment's is the union of its two rows'. A plane's
    /// span is every row (see [`Contacts::span`]); with only planes there
    /// is no pass.
    #[inline(always)]
    fn find_spans<S: Store<L>>(&mut self, st: &S, world: &[WorldCollider], margin: L) {
        let n = st.rows();
        let far = s::<L>(n as f32);
        self.lane_span.clear();
        self.seen.clear();
        for (&k, &cm) in self.cands.iter().zip(&self.cand_m) {
            if matches!(world[k as usize].shape, WorldShape::Plane { .. }) {
                self.lane_span.push((s(0.0), far));
                self.seen.push(cm);
            } else {
                self.lane_span.push((far, far));
                self.seen.push(L::M::splat(false));
            }
        }
        if !self.solids {
            self.span.clear();
            self.span.resize(self.cands.len(), (0, n));
            return;
        }
        let mut row = Bounds::of(st.pos(0), st.prev(0));
        for i in 0..n - 1 {
            let next = Bounds::of(st.pos(i + 1), st.prev(i + 1));
            let b = row.union(&next);
            row = next;
            let grown = b.expand(margin);
            for (ci, &k) in self.cands.iter().enumerate() {
                let col = &world[k as usize];
                if matches!(col.shape, WorldShape::Plane { .. }) {
                    continue; // every row
                }
                let r = self.cand_m[ci] & grown.overlaps(&col.aabb);
                if r.none() {
                    continue;
                }
                let (lo, hi) = &mut self.lane_span[ci];
                let seen = &mut self.seen[ci];
                *lo = L::select(r & !*seen, s(i as f32), *lo);
                *hi = L::select(r, s((i + 2) as f32), *hi);
                *seen = *seen | r;
            }
        }
        self.span.clear();
        for (&(lo, hi), &seen) in self.lane_span.iter().zip(&self.seen) {
            let (mut ulo, mut uhi) = (n, 0);
            for l in (0..L::WIDTH).filter(|&l| seen.lane(l)) {
                ulo = ulo.min(lo.lane(l) as usize);
                uhi = uhi.max(hi.lane(l) as usize);
            }
            self.span.push((ulo, uhi.max(ulo)));
        }
    }

    /// Records on which side of each candidate every particle and segment
    /// starts the substep (its outward normal there): for a shape near a
    /// few cables of a wide block, on their lane groups only
    /// (`few_groups`), as its contact pass runs; the other lanes keep
    /// the zero the buffer is filled with, which is what the whole-block
    /// pass writes where the shape is no candidate.
    pub fn remember_sides<S: Store<L>>(&mut self, st: &S, world: &[WorldCollider], margin: L) {
        let n = st.rows();
        // Sized for every candidate, zeroed only for the shapes that read
        // it (`project_shape`): a plane's part is never read (`memset`,
        // whose largest buffer this was, took 1.7 % of the plane-only
        // contact scene's samples; skipping it measured 0.98x the time).
        self.side.resize(2 * n * self.cands.len(), V3::zero());
        for (ci, &k) in self.cands.iter().enumerate() {
            let col = &world[k as usize];
            if matches!(col.shape, WorldShape::Plane { .. }) {
                continue; // a half-space has one side only
            }
            let side = &mut self.side[2 * n * ci..2 * n * (ci + 1)];
            side.fill(V3::zero());
            let at = (self.cand_m[ci], self.span[ci], self.lane_span[ci]);
            match few_groups::<L>(at.0) {
                Some(groups) => {
                    for g in groups {
                        sides_on(st, col, side, at, margin, OneGroup(g));
                    }
                }
                None => sides_on(st, col, side, at, margin, All),
            }
        }
    }

    /// Continuous collision of every free particle's motion this substep.
    #[inline(always)] // into one out-of-line copy per SIMD path
    fn sweep<S: Store<L>>(&mut self, st: &mut S, b: &Block<L>, world: &[WorldCollider]) {
        let r = b.radius;
        let one = s::<L>(1.0);
        // Only rows in some shape's span can hit (planes have no sweep):
        // 1.8 % of the contact scene's instructions, by callgrind.
        let (lo, hi) = self
            .cands
            .iter()
            .zip(&self.span)
            .filter(|&(&k, _)| !matches!(world[k as usize].shape, WorldShape::Plane { .. }))
            .fold((usize::MAX, 0), |(lo, hi), (_, &(l, h))| {
                (lo.min(l), hi.max(h))
            });
        // A moving collider sweeps over particles that do not move: those
        // are checked against it too (against the motion relative to it).
        let moving = self.cands.iter().any(|&k| {
            let col = &world[k as usize];
            col.is_moving() && !matches!(col.shape, WorldShape::Plane { .. })
        });
        for i in lo..hi.min(st.rows()) {
            let (from, to) = (st.prev(i), st.pos(i));
            let still = from.x.eq(to.x) & from.y.eq(to.y) & from.z.eq(to.z);
            let free = st.free(i);
            let active = free & !still;
            if active.none() && !(moving && free.any()) {
                continue;
            }
            let path = Bounds::of(from, to).expand(r);
            let mut best_t = s::<L>(f32::INFINITY);
            let mut best_n = V3::<L>::zero();
            let mut best_k = s::<L>(NONE);
            let mut best_from = from;
            let mut hit = L::M::splat(false);
            for (ci, &k) in self.cands.iter().enumerate() {
                let (lo, hi) = self.span[ci];
                let col = &world[k as usize];
                // A half-space has no far side to skip to: no sweep.
                if i < lo || i >= hi || matches!(col.shape, WorldShape::Plane { .. }) {
                    continue;
                }
                // Against a moving collider, the particle's motion relative
                // to it: from where the collider carried its start.
                let (from, act, path) = if col.is_moving() {
                    let from = carried(col, from);
                    (from, free, Bounds::of(from, to).expand(r))
                } else {
                    (from, active, path)
                };
                let m = act
                    & self.cand_m[ci]
                    & row_in(self.lane_span[ci], i)
                    & path.overlaps(&col.aabb);
                if m.none() {
                    continue;
                }
                let (h, t) = sweep_point_l(&col.shape, from, to, r);
                let upd = m & h & (t.lt(best_t) | !hit);
                if upd.any() {
                    let at = from + (to - from).scale(t);
                    let (_, nrm) = point_contact_l(&col.shape, at);
                    best_t = L::select(upd, t, best_t);
                    best_n = V3::select(upd, nrm, best_n);
                    best_k = L::select(upd, tag(k), best_k);
                    best_from = V3::select(upd, from, best_from);
                    hit = hit | upd;
                }
            }
            if hit.any() {
                let from = best_from;
                let d = to - from;
                let at = from + d.scale(best_t);
                let into = d.dot(best_n).min(s(0.0));
                let rest = one - best_t;
                // Keep the motion along the surface; drop the part into it.
                let slid = at + (d - best_n.scale(into)).scale(rest);
                let slid = slide_by_floors(&self.floors, hit, r, (at, d, rest, best_n), slid);
                st.set_pos(i, V3::select(hit, slid, to));
                self.pushed(i, hit, best_n.scale(into.neg() * rest), best_k);
                if self.measure {
                    self.load_by(best_k, hit, st.w(i), slid, slid - to);
                }
            }
        }
    }

    /// Continuous collision of fast segments: a segment that starts clear of
    /// a shape and moves farther this substep than about half the shape's
    /// thickness plus the cable radius is checked at intermediate
    /// configurations (linear in time, spaced so that it cannot skip the
    /// shape); at the first one in contact both particles are put there,
    /// keeping their motion along the surface.
    fn sweep_segments<S: Store<L>>(&mut self, st: &mut S, b: &Block<L>, world: &[WorldCollider]) {
        let r = b.radius;
        let (zero, one) = (s::<L>(0.0), s::<L>(1.0));
        for ci in 0..self.cands.len() {
            let k = self.cands[ci];
            let col = &world[k as usize];
            let thickness = match col.shape {
                WorldShape::Plane { .. } => continue,
                WorldShape::Sphere { radius, .. } | WorldShape::Capsule { radius, .. } => {
                    2.0 * radius
                }
                WorldShape::Cuboid { half_extents, .. } => 2.0 * half_extents.min_element(),
            };
            let step = s::<L>(0.5 * thickness) + r;
            let kf = tag::<L>(k);
            let (lo, hi) = self.span[ci];
            let ls = self.lane_span[ci];
            let (slo, shi) = seg_span(lo, hi, st.rows());
            for i in slo..shi {
                let (wa, wb) = (st.w(i), st.w(i + 1));
                // Relative to a moving collider: from where it carried them.
                let (a0, b0) = (carried(col, st.prev(i)), carried(col, st.prev(i + 1)));
                let (pa, pb) = (st.pos(i), st.pos(i + 1));
                let (da, db) = (pa - a0, pb - b0);
                let motion = da.length().max(db.length());
                let mut m =
                    self.cand_m[ci] & seg_in(ls, i) & st.segment_on(i, b.soft) & step.lt(motion);
                if m.none() {
                    continue;
                }
                let swept = Bounds::of(a0, b0).with(pa).with(pb).expand(r);
                m = m & swept.overlaps(&col.aabb);
                if m.none() {
                    continue;
                }
                m = m & !segment_contact_l(&col.shape, a0, b0).1.lt(r);
                if m.none() {
                    continue;
                }
                // At most 64 checks: beyond that the motion is absurd anyway.
                let checks = (motion / step).ceil().min(s(64.0));
                let most = (0..L::WIDTH)
                    .filter(|&l| m.lane(l))
                    .map(|l| checks.lane(l))
                    .fold(0.0f32, f32::max);
                let mut done = !m;
                let mut j = 1.0f32;
                while j < most {
                    let jl = s::<L>(j);
                    let active = !done & jl.lt(checks);
                    if active.none() {
                        break;
                    }
                    let t = jl / checks;
                    let (a, bb) = (a0 + da.scale(t), b0 + db.scale(t));
                    let (_, phi, nrm) = segment_contact_l(&col.shape, a, bb);
                    let hit = active & phi.lt(r);
                    if hit.any() {
                        let rest = one - t;
                        for (row, w, start, d) in [(i, wa, a, da), (i + 1, wb, bb, db)] {
                            let mw = hit & zero.lt(w);
                            let into = d.dot(nrm).min(zero);
                            let p = start + (d - nrm.scale(into)).scale(rest);
                            let p = slide_by_floors(&self.floors, mw, r, (start, d, rest, nrm), p);
                            let old = st.pos(row);
                            st.set_pos(row, V3::select(mw, p, old));
                            self.pushed(row, mw, nrm.scale(into.neg() * rest), kf);
                            self.load_on(ci, All, mw, w, p, p - old);
                        }
                        done = done | hit;
                    }
                    j += 1.0;
                }
            }
        }
    }

    /// One contact pass, run after the constraint sweeps of the iterations
    /// [`Contacts::lanes_after`] names: pushes particles and segments out
    /// of the candidate colliders to the cable radius. (A block whose
    /// candidates are all planes may instead run its last pass with
    /// friction and the pass after it row by row,
    /// [`Contacts::project_and_finish_planes`].)
    ///
    /// Inlined into the kernel (and so compiled for the kernel's SIMD
    /// path) for the plane, the common ground; other shapes go through
    /// `Contacts::project_shape`, compiled out of line once per SIMD path
    /// ([`Lane::out_of_line`]).
    #[inline(always)]
    pub fn project<S: Store<L>>(&mut self, st: &mut S, b: &Block<L>, set: &ColliderSet) {
        let world = set.prepared();
        let r = b.radius;
        for ci in 0..self.cands.len() {
            let k = self.cands[ci];
            let col = &world[k as usize];
            if let WorldShape::Plane { normal, offset } = col.shape {
                // Every row of the candidate lanes (a plane's span).
                let pl = Plane::of(normal, offset, self.cand_m[ci], k);
                // One copy per axis: the coordinate is picked at compile time.
                match pl.axis {
                    0 => self.project_axis_plane::<S, 0>(st, &pl, r, ci),
                    1 => self.project_axis_plane::<S, 1>(st, &pl, r, ci),
                    2 => self.project_axis_plane::<S, 2>(st, &pl, r, ci),
                    _ => self.project_plane(st, &pl, r, ci),
                }
            } else {
                let (wide, cm) = (self.wide, self.cand_m[ci]);
                let core = self.core[ci];
                let core_m = cm & self.core_m[ci];
                // A shape with a core near a few cables of a wide block: its
                // un-crossing on their lane groups only, as its pass below.
                let uncross = |this: &mut Self, st: &mut S| {
                    let Some(core) = core else { return };
                    if core_m.none() {
                        return;
                    }
                    match few_groups::<L>(core_m) {
                        Some(groups) => {
                            for g in groups {
                                this.uncross(st, b, col, ci, core, OneGroup(g));
                            }
                        }
                        None => this.uncross(st, b, col, ci, core, All),
                    }
                };
                uncross(self, st);
                if let Some(groups) = few_groups::<L>(cm) {
                    // A shape near a few cables of a wide block (a ball
                    // under two of 32): only their lane groups do its work.
                    for g in groups {
                        L::G::out_of_line(
                            wide,
                            #[inline(always)]
                            || self.project_shape(st, b, col, ci, OneGroup(g)),
                        );
                    }
                } else {
                    L::out_of_line(
                        wide,
                        #[inline(always)]
                        || self.project_shape(st, b, col, ci, All),
                    );
                }
                uncross(self, st);
            }
        }
        if self.cores {
            for (i, l) in self.last.iter_mut().enumerate() {
                *l = st.pos(i);
            }
        }
        self.last_is_prev = false;
    }

    /// Records, for friction ([`Contacts::finish`]), that lanes `hit` of
    /// particle `i` were pushed by `dp` by candidate collider `kf`. Without
    /// friction nothing reads that, and the pass after every iteration
    /// skips it (a third of the plane's pass, by a count of operations).
    #[inline(always)]
    fn pushed(&mut self, i: usize, hit: L::M, dp: V3<L>, kf: L) {
        self.pushed_on(All, i, hit, dp, kf);
    }

    /// [`Contacts::pushed`] on the block's `lanes`.
    #[inline(always)]
    fn pushed_on<P: Lanes<L>>(
        &mut self,
        lanes: P,
        i: usize,
        hit: <P::G as Lane>::M,
        dp: V3<P::G>,
        kf: P::G,
    ) {
        if self.friction {
            let p = lanes.v3(self.push[i]);
            lanes.set3(&mut self.push[i], V3::select(hit, p + dp, p));
            if self.touches {
                let t = lanes.v(self.touch[i]);
                lanes.set(&mut self.touch[i], P::G::select(hit, kf, t));
            }
        }
    }

    /// Keeps every segment of candidate `ci`'s span on its side of the
    /// shape: a segment that went through the shape's `core` since the
    /// last contact pass (its linear motion from [`Contacts::last`] passed
    /// over the core, which a piece outside the shape cannot do), or whose
    /// centre line entered the shape since then, is *lost*. Each free end
    /// of a lost segment is moved along the outward normal the segment had
    /// at the last pass until it is the cable radius in front of the
    /// shape's support plane there, keeping its motion along that plane,
    /// so the cable slides around a rod instead of through it. Moving an
    /// end can lose its other segment, so this repeats (four rounds).
    /// Segments still lost then (a tight wrap where both segments of a
    /// particle press on the shape from either side and the constraints
    /// pull harder than the pushes) have their free ends put back where
    /// the last pass left them; a segment whose ends are both back has not
    /// moved and cannot be lost, so those rounds stop, at most one per
    /// segment.
    ///
    /// The other contacts only see where pieces are: a segment resting on
    /// a rod that integration or one constraint sweep carries past it is
    /// wholly behind the rod, out of reach of the contact and of the side
    /// memory, and one pressed to within rounding of the core has no side
    /// left. This runs before and after the other contacts of the shape,
    /// so a contact pass never ends with a segment lost.
    ///
    /// Runs on `lanes`: all of the block's, or one lane group where the
    /// shape is a candidate ([`Contacts::project`]): a capsule under two
    /// cables of a 32-lane block does the work of 8 lanes, not 32. Each
    /// group then stops its rounds when none of its lanes changed: a lane
    /// whose round changed nothing sees the same positions in the next
    /// round, so it would change nothing again, and its results are those
    /// of the rounds over every lane, bit for bit. Not inlined: compiled once per
    /// lane, store and `lanes` type, for the baseline (inlined at its call
    /// sites it made the crate build several times slower, and an AVX2
    /// copy of it doubled the crate's build time).
    #[inline(never)]
    fn uncross<S: Store<L>, P: Lanes<L>>(
        &mut self,
        st: &mut S,
        b: &Block<L>,
        col: &WorldCollider,
        ci: usize,
        core: Core,
        lanes: P,
    ) {
        let zero = s::<P::G>(0.0);
        let r = lanes.v(b.radius);
        let n = st.rows();
        let cm = lanes.m(self.cand_m[ci] & self.core_m[ci]);
        let kf = tag::<P::G>(self.cands[ci]);
        let (lo, hi) = self.span[ci];
        let ls = (lanes.v(self.lane_span[ci].0), lanes.v(self.lane_span[ci].1));
        let (slo, shi) = seg_span(lo, hi, n);
        let set = |st: &mut S, row: usize, p: V3<P::G>| {
            let mut whole = st.pos(row);
            lanes.set3(&mut whole, p);
            st.set_pos(row, whole);
        };
        // Where the pieces were at the last pass, relative to the collider.
        let carry = self.last_is_prev && col.is_moving();
        let last = |this: &Self, i: usize| {
            let p = lanes.v3(this.last[i]);
            if carry { carried(col, p) } else { p }
        };
        for _ in 0..4 {
            let mut fixed = false;
            for i in slo..shi {
                let (wa, wb) = (lanes.v(st.w(i)), lanes.v(st.w(i + 1)));
                let (a0, b0) = (last(self, i), last(self, i + 1));
                let (a, bq) = (lanes.v3(st.pos(i)), lanes.v3(st.pos(i + 1)));
                let m = cm & seg_in(ls, i) & lanes.m(st.segment_on(i, b.soft));
                let (lost, came) = lost(col, core, m, r, (a0, b0), (a, bq));
                if lost.none() {
                    continue;
                }
                fixed = true;
                for (row, w, x) in [(i, wa, a), (i + 1, wb, bq)] {
                    let gap = support_gap(&col.shape, x, came);
                    let mw = lost & zero.lt(w) & gap.lt(r);
                    let dp = came.scale(r - gap);
                    let moved = V3::select(mw, x + dp, x);
                    set(st, row, moved);
                    self.pushed_on(lanes, row, mw, dp, kf);
                    self.load_on(ci, lanes, mw, w, moved, moved - x);
                }
            }
            if !fixed {
                return;
            }
        }
        for _ in slo..shi {
            let mut back = false;
            for i in slo..shi {
                let (a0, b0) = (last(self, i), last(self, i + 1));
                let (a, bq) = (lanes.v3(st.pos(i)), lanes.v3(st.pos(i + 1)));
                let ma = lanes.m(st.free(i)) & !same(a, a0);
                let mb = lanes.m(st.free(i + 1)) & !same(bq, b0);
                let m = cm & seg_in(ls, i) & lanes.m(st.segment_on(i, b.soft)) & (ma | mb);
                let (lost, _) = lost(col, core, m, r, (a0, b0), (a, bq));
                if lost.none() {
                    continue;
                }
                back = true;
                set(st, i, V3::select(lost & ma, a0, a));
                set(st, i + 1, V3::select(lost & mb, b0, bq));
                let (wa, wb) = (lanes.v(st.w(i)), lanes.v(st.w(i + 1)));
                self.load_on(ci, lanes, lost & ma, wa, a0, a0 - a);
                self.load_on(ci, lanes, lost & mb, wb, b0, b0 - bq);
            }
            if !back {
                return;
            }
        }
    }

    /// [`Contacts::project`] for candidate `ci`, a shape other than a
    /// plane, on the block's `lanes`: all of them, or one group whose
    /// lanes are the only candidates.
    #[inline(always)] // into one out-of-line copy per SIMD path and lanes
    fn project_shape<S: Store<L>, P: Lanes<L>>(
        &mut self,
        st: &mut S,
        b: &Block<L>,
        col: &WorldCollider,
        ci: usize,
        lanes: P,
    ) {
        let n = st.rows();
        let ls = self.lane_span[ci];
        let centre = self.centres.get(ci).copied();
        let mut v = View {
            st,
            side: &self.side[2 * n * ci..2 * n * (ci + 1)],
            push: &mut self.push,
            touch: &mut self.touch,
            lanes,
            soft: b.soft,
            load: self.loads.get_mut(ci).zip(centre),
            floors: &self.floors,
        };
        shape_pass(
            &mut v,
            col,
            lanes.v(b.radius),
            lanes.m(self.cand_m[ci]),
            (lanes.v(ls.0), lanes.v(ls.1)),
            self.span[ci],
            tag(self.cands[ci]),
            self.friction,
        );
    }

    /// Friction after the iterations, then one more contact pass (sliding
    /// along a curved surface or past an edge can dip into it).
    pub fn finish<S: Store<L>>(&mut self, st: &mut S, b: &Block<L>, set: &ColliderSet) {
        if b.friction {
            L::out_of_line(
                self.wide,
                #[inline(always)]
                || self.friction(st, set.prepared(), b.mu),
            );
            // Nothing reads the pushes after friction (the next substep's
            // `find` clears them): the last pass keeps no books.
            self.friction = false;
            self.project(st, b, set);
            self.friction = true;
        }
    }
}
