//! Contact between cables: segments against the segments of other cables
//! and of the same cable ([`SolverParams::cable_collision`]), run after
//! each substep of every cable ([`CableCollision::solve`]).
//!
//! # What it does
//!
//! 1. **Segments.** Every intact segment of every cable that is simulated
//!    or asleep (a hidden cable that skips updates takes no part), with
//!    its box: both ends where the substep started and where it ended,
//!    grown by the cable's radius and a margin.
//! 2. **Broad phase.** The boxes go into a hashed uniform grid (each box
//!    into every cell it covers; the cell is the boxes' mean size, doubled
//!    until no more than eight cells a segment are covered). The (cell,
//!    segment) keys are sorted; each run of one key gives its pairs, kept
//!    when the boxes overlap, the cables' [`CollisionGroups`] interact,
//!    and they are not neighbours along one cable (segments that share a
//!    particle, or whose gap along the cable is less than the sum of the
//!    two radii, which touch wherever the cable bends). The pairs are
//!    sorted and deduplicated: their order is the scene's, not the
//!    threads'.
//! 3. **Normals from the start of the substep.** Each pair's normal is the
//!    direction between its closest points *where the substep started*,
//!    so two ropes that crossed during the substep (faster than their
//!    thickness in one substep) are pushed back to the side they came
//!    from, not through: the contact is continuous for any speed at which
//!    the segments do not already pass each other's start.
//! 4. **Relaxation.** [`ITERATIONS`] Gauss–Seidel passes over the pairs
//!    in their sorted order: each pair closer than the two radii along its
//!    normal gets the correction that separates its closest points, shared
//!    by the four particles by inverse mass and position along the
//!    segments, with Coulomb friction on the relative sliding of the
//!    closest points in the substep (the mean of the two cables'
//!    coefficients, capped by the pair's whole normal push in the
//!    substep). One order on one thread: the result is bitwise the same
//!    whatever the thread count and the layout. (Steps 1–3 run in
//!    parallel.)
//! 5. **Settling.** [`SETTLE_ROUNDS`] rounds of a distance sweep of every
//!    rigid cable that touched, then a contact pass: the kernel's
//!    constraints ran before the pass, so without this a rope pressed
//!    between another and its own pins is pulled back into the contact
//!    every substep until it passes ([`CableCollision::solve`]'s
//!    contacts and lengths hold together when the substep ends).
//! 6. **Approach stopped.** Pairs still closing have their previous
//!    positions moved so that they no longer approach (inelastic).
//!
//! Particles move; their previous positions do not, so the push is
//! inelastic (the velocity along the normal is what the push leaves). A
//! sleeping cable that is pushed wakes.

use cable_core::{CollisionGroups, ParticlePool, PoolRows};
use glam::Vec3;
use rayon::prelude::*;

use crate::kernel::lane::V3;
use crate::kernel::narrow::segment_segment;
use crate::params::SolverParams;

/// Gauss–Seidel passes over the contacts per substep.
pub const ITERATIONS: u32 = 4;

/// Rounds of the pass's settling (step 5 of the [module](self) docs): a
/// distance sweep of the touching cables, then a contact pass, per round.
pub const SETTLE_ROUNDS: u32 = 4;

/// Most grid cells a segment may cover on average before the cell doubles.
const CELLS_PER_SEGMENT: usize = 8;

/// One segment taking part.
#[derive(Debug, Clone, Copy)]
struct Seg {
    /// Row of its first particle (the second is the next row).
    row: u32,
    /// Its cable's index in row order.
    cable: u32,
    /// Rest length along the cable from the cable's start to this
    /// segment's start, and to its end, metres.
    along: (f32, f32),
    /// Cable radius, metres.
    radius: f32,
    /// Coulomb friction coefficient.
    mu: f32,
    groups: CollisionGroups,
    /// Its cable is simulated now (not asleep).
    awake: bool,
    lo: Vec3,
    hi: Vec3,
}

/// One pair of segments near each other, with the normal from the start
/// of the substep (zero: no normal found, the pair does nothing).
#[derive(Debug, Clone, Copy)]
struct Pair {
    s: u32,
    t: u32,
    n: Vec3,
    /// The push along `n` this pair has given in the substep so far,
    /// metres: friction's cap is µ times it (static friction holds what
    /// the whole contact can, not what the last, smaller pass pushed).
    pushed: f32,
}

/// What one pair does in one pass: the moves of its four particles
/// (rows `a`, `a + 1`, `b`, `b + 1`) and its push along the normal.
#[derive(Debug, Clone, Copy, Default)]
struct Push {
    touching: bool,
    d: [Vec3; 4],
    normal: f32,
}

/// The cable–cable contact pass and its buffers, kept between substeps so
/// that a warm pass allocates nothing. [`crate::Stepper`] runs it after
/// every substep when [`SolverParams::cable_collision`] is on.
#[derive(Debug, Clone, Default)]
pub struct CableCollision {
    segs: Vec<Seg>,
    keys: Vec<(u64, u32)>,
    runs: Vec<(u32, u32)>,
    pairs: Vec<Pair>,
    /// Pairs of cables (row-order indices) touching in some pass of the
    /// last substep.
    touching: Vec<(u32, u32)>,
    /// Pairs tested in the narrow phase in the last pass.
    tested: usize,
    /// The cables (row-order indices) that touched, each once.
    touched: Vec<u32>,
}

impl CableCollision {
    /// Runs the pass on every cable of `pool` (see the [module](self)).
    pub fn solve(&mut self, pool: &mut ParticlePool, params: &SolverParams) {
        crate::trace::span!("cable.between");
        pool.edit_rows(|rows| self.run(rows, params));
    }

    /// Pairs of cables, by index in row order ([`ParticlePool::cable`]),
    /// that touched in the last pass, sorted, each once (a cable touching
    /// itself is the pair `(k, k)`).
    #[must_use]
    pub fn touching(&self) -> &[(u32, u32)] {
        &self.touching
    }

    /// Segment pairs the broad phase passed to the narrow phase in the last
    /// pass (a diagnostic for benchmarks).
    #[must_use]
    pub fn pairs_tested(&self) -> usize {
        self.tested
    }

    fn run(&mut self, rows: &mut PoolRows<'_>, params: &SolverParams) {
        self.touching.clear();
        self.tested = 0;
        self.gather(rows, params);
        if self.segs.len() < 2 {
            return;
        }
        self.broad_phase(rows);
        self.tested = self.pairs.len();
        if self.pairs.is_empty() {
            return;
        }
        self.normals(rows);
        for _ in 0..ITERATIONS {
            if !self.relax(rows) {
                break;
            }
        }
        self.settle(rows);
        self.stop_approach(rows);
        self.touching.sort_unstable();
        self.touching.dedup();
        for &(a, b) in &self.touching {
            for k in [a, b] {
                rows.mark_moved(k as usize);
            }
        }
    }

    /// Step 1: the segments that take part, with their boxes.
    fn gather(&mut self, rows: &PoolRows<'_>, params: &SolverParams) {
        self.segs.clear();
        for (k, c) in rows.cables.iter().enumerate() {
            let g = c.params.collision_groups;
            if !c.present || g.memberships == 0 || g.filter == 0 || c.count < 2 {
                continue;
            }
            let r = c.params.radius;
            let grow = Vec3::splat(r * 1.25);
            let mu = c.params.friction.unwrap_or(params.friction);
            let mut along = 0.0f32;
            for i in c.first..c.first + c.count - 1 {
                let end = along + rows.rest[i];
                if rows.row_const[i].linked {
                    let (p, q) = (rows.pos[i], rows.pos[i + 1]);
                    let (pp, pq) = (rows.prev[i], rows.prev[i + 1]);
                    // Row indices fit in u32: the particle budget is below 2³².
                    self.segs.push(Seg {
                        row: i as u32,
                        cable: k as u32,
                        along: (along, end),
                        radius: r,
                        mu,
                        groups: g,
                        awake: c.awake,
                        lo: p.min(q).min(pp.min(pq)) - grow,
                        hi: p.max(q).max(pp.max(pq)) + grow,
                    });
                }
                along = end;
            }
        }
    }

    /// Step 2: the pairs of segments whose boxes overlap, sorted.
    fn broad_phase(&mut self, rows: &PoolRows<'_>) {
        let segs = &self.segs;
        let mean = segs
            .iter()
            .map(|s| f64::from((s.hi - s.lo).max_element()))
            .sum::<f64>()
            / segs.len() as f64;
        let mut cell = mean.max(1.0e-4);
        let budget = CELLS_PER_SEGMENT * segs.len() + 1024;
        // Coarser cells until the boxes cover few enough of them.
        while segs
            .iter()
            .map(|s| span(s, cell).2)
            .try_fold(0usize, |acc, c| acc.checked_add(c).filter(|&t| t <= budget))
            .is_none()
        {
            cell *= 2.0;
        }
        self.keys.clear();
        self.keys
            .par_extend(segs.par_iter().enumerate().flat_map_iter(|(i, s)| {
                let (lo, hi, _) = span(s, cell);
                (lo[0]..=hi[0]).flat_map(move |x| {
                    (lo[1]..=hi[1]).flat_map(move |y| {
                        // Segment indices fit in u32 (rows do).
                        (lo[2]..=hi[2]).map(move |z| (hash(x, y, z), i as u32))
                    })
                })
            }));
        self.keys.par_sort_unstable();
        self.runs.clear();
        let mut start = 0;
        for i in 1..=self.keys.len() {
            if i == self.keys.len() || self.keys[i].0 != self.keys[start].0 {
                if i - start > 1 {
                    self.runs.push((start as u32, i as u32));
                }
                start = i;
            }
        }
        let keys = &self.keys;
        let inv = rows.inv_mass;
        self.pairs.clear();
        self.pairs
            .par_extend(self.runs.par_iter().flat_map_iter(|&(b, e)| {
                (b..e).flat_map(move |i| {
                    (i + 1..e).filter_map(move |j| {
                        let (u, v) = (keys[i as usize].1, keys[j as usize].1);
                        let (s, t) = (u.min(v), u.max(v));
                        collides(&segs[s as usize], &segs[t as usize], inv).then_some(Pair {
                            s,
                            t,
                            n: Vec3::ZERO,
                            pushed: 0.0,
                        })
                    })
                })
            }));
        self.pairs.par_sort_unstable_by_key(|p| (p.s, p.t));
        self.pairs.dedup_by_key(|p| (p.s, p.t));
    }

    /// Step 3: each pair's normal where the substep started; the pairs
    /// that are not within the sum of their radii and a margin along it
    /// (or crossed) are dropped.
    fn normals(&mut self, rows: &PoolRows<'_>) {
        let segs = &self.segs;
        let (pos, prev) = (&*rows.pos, &*rows.prev);
        self.pairs.par_iter_mut().for_each(|p| {
            let (a, b) = (
                segs[p.s as usize].row as usize,
                segs[p.t as usize].row as usize,
            );
            let then = closest(prev[a], prev[a + 1], prev[b], prev[b + 1]);
            let now = closest(pos[a], pos[a + 1], pos[b], pos[b + 1]);
            // Where the substep started; if the closest points met there,
            // where it ended; else no normal.
            let n = [then.2, now.2]
                .into_iter()
                .find(|d| d.length_squared() > 1.0e-18)
                .map_or(Vec3::ZERO, Vec3::normalize);
            let (ra, rb) = (segs[p.s as usize].radius, segs[p.t as usize].radius);
            // Within reach of the pushes of this substep: the margin is
            // the boxes' growth (a quarter of each radius).
            let near = now.2.dot(n) < 1.25 * (ra + rb);
            p.n = if near { n } else { Vec3::ZERO };
        });
        self.pairs.retain(|p| p.n != Vec3::ZERO);
    }

    /// Step 4: one Gauss–Seidel pass over the pairs in their sorted order,
    /// each pair's push applied before the next pair reads the positions;
    /// false when no pair touched.
    fn relax(&mut self, rows: &mut PoolRows<'_>) -> bool {
        let segs = &self.segs;
        let mut any = false;
        for p in &mut self.pairs {
            let push = push(p, segs, rows.pos, &*rows.prev, rows.inv_mass);
            if !push.touching {
                continue;
            }
            any = true;
            p.pushed += push.normal;
            let (sa, sb) = (&segs[p.s as usize], &segs[p.t as usize]);
            self.touching.push((sa.cable, sb.cable));
            let (a, b) = (sa.row as usize, sb.row as usize);
            for (row, d) in [a, a + 1, b, b + 1].into_iter().zip(push.d) {
                rows.pos[row] += d;
            }
        }
        any
    }
}

impl CableCollision {
    /// Step 4b: the contacts and the touching cables' lengths solved
    /// together. The kernel's constraints ran before this pass, so a rope
    /// pressed between another rope and its own pins or load is pulled
    /// back into the contact at the next substep: each substep the gap
    /// closes a little more, until it passes. Here, [`SETTLE_ROUNDS`]
    /// times, a Gauss–Seidel sweep of the distance constraints of every
    /// rigid cable that touched (compliant ones may stretch) and then a
    /// contact pass: both hold together when the substep ends, the
    /// contact last. One order on one thread, as the rest of the pass.
    fn settle(&mut self, rows: &mut PoolRows<'_>) {
        for _ in 0..SETTLE_ROUNDS {
            self.touched.clear();
            self.touched
                .extend(self.touching.iter().flat_map(|&(a, b)| [a, b]));
            if self.touched.is_empty() {
                return;
            }
            self.touched.sort_unstable();
            self.touched.dedup();
            for &k in &self.touched {
                let c = rows.cables[k as usize];
                if c.params.compliance > 0.0 {
                    continue;
                }
                for i in c.first..c.first + c.count - 1 {
                    if !rows.row_const[i].linked {
                        continue;
                    }
                    let (w0, w1) = (rows.inv_mass[i], rows.inv_mass[i + 1]);
                    let wsum = w0 + w1;
                    let d = rows.pos[i + 1] - rows.pos[i];
                    let len = d.length();
                    if wsum <= 0.0 || len <= f32::MIN_POSITIVE {
                        continue;
                    }
                    let k = d * ((len - rows.rest[i]) / (len * wsum));
                    rows.pos[i] += k * w0;
                    rows.pos[i + 1] -= k * w1;
                }
            }
            if !self.relax(rows) {
                return;
            }
        }
    }

    /// Step 5: the pairs in contact stop approaching each other. Each
    /// pair whose closest points still move towards each other along its
    /// normal over the substep (`pos − prev`, the Verlet velocity × h) has
    /// the previous positions of its four particles moved, shared as the
    /// pushes are, so that the relative velocity along the normal is zero:
    /// a perfectly inelastic contact, as a rope landing on a rope. Without
    /// it the push restores the gap but leaves the approach speed, and a
    /// rope driven faster than its thickness per substep crosses the
    /// other in the next substep.
    fn stop_approach(&mut self, rows: &mut PoolRows<'_>) {
        let segs = &self.segs;
        for p in &self.pairs {
            let (sa, sb) = (&segs[p.s as usize], &segs[p.t as usize]);
            let (a, b) = (sa.row as usize, sb.row as usize);
            let pos = &*rows.pos;
            let (s, t, d) = closest(pos[a], pos[a + 1], pos[b], pos[b + 1]);
            if d.dot(p.n) - (sa.radius + sb.radius) > 1.0e-3 * (sa.radius + sb.radius) {
                continue;
            }
            let prev = &*rows.prev;
            let then = prev[a].lerp(prev[a + 1], s) - prev[b].lerp(prev[b + 1], t);
            // How far the closest points came towards each other.
            let closing = (d - then).dot(p.n);
            if closing >= 0.0 {
                continue;
            }
            let Some((w, wsum)) = weights(rows.inv_mass, (a, b), (s, t)) else {
                continue;
            };
            // Moving `then` by −closing·n along the normal zeroes it.
            let k = p.n * (closing / wsum);
            for (row, m) in [(a, w[0]), (a + 1, w[1]), (b, -w[2]), (b + 1, -w[3])] {
                rows.prev[row] += k * m;
            }
        }
    }
}

/// The grid cells a segment's box covers: least and greatest cell per
/// axis, and how many cells (saturating).
fn span(s: &Seg, cell: f64) -> ([i64; 3], [i64; 3], usize) {
    let c = |v: f32| (f64::from(v) / cell).floor() as i64;
    let lo = [c(s.lo.x), c(s.lo.y), c(s.lo.z)];
    let hi = [c(s.hi.x), c(s.hi.y), c(s.hi.z)];
    let count = (0..3).fold(1usize, |acc, k| {
        acc.saturating_mul(usize::try_from(hi[k] - lo[k] + 1).unwrap_or(usize::MAX))
    });
    (lo, hi, count)
}

/// A cell's key (different cells may share one: their segments are then
/// tested against each other for nothing, never missed).
fn hash(x: i64, y: i64, z: i64) -> u64 {
    (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (z as u64).wrapping_mul(0x1656_67B1_9E37_79F9)
}

/// Whether segments `s` and `t` (`s < t`) may collide: boxes overlap,
/// groups interact, at least one cable awake and one particle free, and
/// not neighbours along one cable.
fn collides(s: &Seg, t: &Seg, inv: &[f32]) -> bool {
    let overlap = s.lo.cmple(t.hi).all() && t.lo.cmple(s.hi).all();
    if !(overlap && s.groups.interacts_with(t.groups) && (s.awake || t.awake)) {
        return false;
    }
    let (a, b) = (s.row as usize, t.row as usize);
    if inv[a] + inv[a + 1] + inv[b] + inv[b + 1] <= 0.0 {
        return false;
    }
    if s.cable == t.cable {
        // Rows of one cable are in order along it: `s` comes first.
        let gap = t.along.0 - s.along.1;
        if b <= a + 1 || gap < s.radius + t.radius {
            return false;
        }
    }
    true
}

/// Closest points of segments `a0`–`a1` and `b0`–`b1`: the parameters
/// along each and the vector from the second's point to the first's.
fn closest(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> (f32, f32, Vec3) {
    let (s, t) = segment_segment::<f32>(
        V3::from(a0),
        V3::from(a1 - a0),
        V3::from(b0),
        V3::from(b1 - b0),
    );
    let d = a0.lerp(a1, s) - b0.lerp(b1, t);
    (s, t, d)
}

/// How a relative move of the closest points at `s` and `t` along
/// segments `a`–`a + 1` and `b`–`b + 1` is shared: each particle's weight
/// (inverse mass × its share of the closest point) and their sum, the
/// pair's generalised inverse mass; `None` when nothing can move.
fn weights(inv: &[f32], (a, b): (usize, usize), (s, t): (f32, f32)) -> Option<([f32; 4], f32)> {
    let w = [
        inv[a] * (1.0 - s),
        inv[a + 1] * s,
        inv[b] * (1.0 - t),
        inv[b + 1] * t,
    ];
    let wsum = w[0] * (1.0 - s) + w[1] * s + w[2] * (1.0 - t) + w[3] * t;
    (wsum > 0.0 && wsum.is_finite()).then_some((w, wsum))
}

/// The moves of one pair's four particles in one pass: apart along the
/// pair's normal to the sum of the radii, and friction on the closest
/// points' relative sliding since the substep started.
fn push(p: &Pair, segs: &[Seg], pos: &[Vec3], prev: &[Vec3], inv: &[f32]) -> Push {
    if p.n == Vec3::ZERO {
        return Push::default();
    }
    let (sa, sb) = (&segs[p.s as usize], &segs[p.t as usize]);
    let (a, b) = (sa.row as usize, sb.row as usize);
    let (s, t, d) = closest(pos[a], pos[a + 1], pos[b], pos[b + 1]);
    let gap = d.dot(p.n) - (sa.radius + sb.radius);
    if gap >= 0.0 {
        return Push::default();
    }
    let Some((w, wsum)) = weights(inv, (a, b), (s, t)) else {
        return Push::default();
    };
    // The relative move of the closest points: apart along the normal...
    let mut m = p.n * -gap;
    // ...and against their sliding since the substep started (Coulomb:
    // at most µ times the pair's whole push in the substep, this one's
    // included).
    let mu = 0.5 * (sa.mu + sb.mu);
    if mu > 0.0 {
        let then = prev[a].lerp(prev[a + 1], s) - prev[b].lerp(prev[b + 1], t);
        let slide = d - then;
        let tangent = slide - p.n * slide.dot(p.n);
        let len = tangent.length();
        let cap = mu * (p.pushed - gap);
        if len > 0.0 {
            m -= tangent * (cap / len).min(1.0);
        }
    }
    let k = m / wsum;
    Push {
        touching: true,
        d: [k * w[0], k * w[1], -k * w[2], -k * w[3]],
        normal: -gap,
    }
}
