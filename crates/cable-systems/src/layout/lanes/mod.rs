//! The `Lanes8` layout: cables grouped by (segments, bending, compliance)
//! into lane groups of 8, stored array-of-structures-of-arrays, and solved
//! by the one kernel ([`crate::kernel::substep`]) on [`Fx`] lanes.
//!
//! Lane `l` of a group is one cable, and the Gauss-Seidel sweep runs along
//! the segment index, so every lane does exactly the arithmetic of the
//! one-lane run of its cable: results are bitwise those of the `Soa` and
//! `Aos` layouts. Contacts run in the lanes too (a candidate collider
//! carries a lane mask, [`crate::contact`]), so a group near colliders
//! stays wide.
//!
//! The chain along a cable is latency bound (a `sqrt` and a division per
//! segment), so up to [`GROUPS_IN_FLIGHT`] groups of the same key form a
//! *bundle* solved as one block of 8 or 32 lanes: the kernel's lane
//! operations on a 32-lane block are four independent 8-wide operations,
//! whose chains overlap in the CPU.
//!
//! # Persistent storage
//! The bundles' rows *are* the lane cables' state between frames: after a
//! frame they are lent to the pool ([`ParticlePool::lend_state`]), whose
//! first read or edit of its particles has them copied back, once
//! ([`cable_core::StateHolder::write_back`]). A frame that nothing reads copies nothing. When
//! something did read or edit the pool since the last frame (a game that
//! renders every frame, the ECS write-back, sleeping), the next frame
//! copies its lanes back in the tasks that ran them, while the rows are
//! hot, on every thread, and the reader finds the pool current.
//!
//! # Data flow of one [`advance`]
//! 1. take the bundles back from the pool
//!    ([`ParticlePool::reclaim_state`]); if an edit that did not read the
//!    pool (parameters, masses, structure) needs particles from it, have
//!    the lanes write back first;
//! 2. plan (only when the pool's structure changed since the last
//!    frame, see [`ParticlePool::structure_revision`], or an edited
//!    cable's key did): cables are sorted by key and cut into
//!    bundles; a key with too few cables to fill a group (fewer than
//!    [`MIN_GROUP_FILL`] in its last group) leaves those cables to the
//!    one-lane kernel;
//! 3. the pool's columns are split into one mutable view per cable
//!    ([`cable_core::Columns::into_cables`]), put in bundle order: each
//!    bundle's lanes, then the one-lane cables;
//! 4. one parallel pass, over bundles beside the one-lane cables:
//!    - a bundle gathers its cables from their views (again only when the
//!      plan was made again or one of its cables' parameters or masses
//!      changed; only an edited cable's particles when just those changed,
//!      [`ParticlePool::state_edits_since`]; only the attachment targets
//!      when just those moved),
//!      runs the substeps while it is hot in cache, with the best SIMD the
//!      CPU has ([`crate::simd`]), and, when the pool was read since the
//!      last frame, copies its lanes back into the views from the same
//!      task;
//!    - a one-lane cable runs its substeps on the pool directly
//!      ([`kernel::advance_cable_with`]), in pieces of about
//!      [`cable_core::PAR_GRAIN`] particles, each piece with a scratch of its own
//!      kept between frames;
//! 5. lend the bundles to the pool.
//!
//! The split is by bundles and cables, that is by the scene alone, and
//! cables are independent within a substep, so results do not depend on
//! the thread count. Buffers are kept between frames (the views' too:
//! only their allocation, emptied and reused under the next frame's
//! lifetime), so a warmed-up step does not allocate.

use std::ops::Range;

use cable_core::{
    CableMut, CableRef, HeldRead, NO_ANCHOR, ParticlePool, ParticleState, StateHolder,
};
use glam::Vec3;
use rayon::prelude::*;

use crate::kernel::{self, Block, Rigid, Scratch, Shared, Soft, Store};
use crate::lane::{Fx, Lane, Mask, Mx, V3};
use crate::layout::Stages;
use crate::params::SolverParams;

/// Cables per lane group.
pub const LANES: usize = 8;

/// Most lane groups of one bundle.
pub const GROUPS_IN_FLIGHT: usize = 4;

/// A key's last, partial lane group is built only when it holds at least
/// this many cables; fewer run on the one-lane path (a nearly empty group
/// costs as much as a full one).
pub const MIN_GROUP_FILL: usize = 3;

/// A padding lane of [`Bundle::cables`]; while planning, a one-lane cable.
const SCALAR: u32 = u32::MAX;

/// Cables that may share a lane group: the same length and the same
/// costly constraint kinds. Cheap kinds (tethers, tension tracking) do not
/// split groups: a group runs them when any lane has them, masked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    segs: usize,
    iterations: u32,
    stiff: bool,
    soft: bool,
    curv: bool,
    friction: bool,
}

impl Key {
    fn of(c: &CableRef<'_>, params: &SolverParams) -> Self {
        let n = c.pos.len();
        Self {
            segs: n - 1,
            iterations: c.params.iterations.unwrap_or(params.iterations),
            stiff: c.params.stiffness && n >= 3,
            soft: c.params.compliance != 0.0,
            curv: c.row_const.iter().any(|k| k.bend_compliance > 0.0),
            friction: c.params.friction.unwrap_or(params.friction) > 0.0,
        }
    }
}

/// [`Rows::anchor_u`] of a row whose lanes have different anchors.
const MIXED: u32 = u32::MAX;

/// The particle state of a bundle of `W` lanes: row `r` holds particle `r`
/// of each of the `W` cables.
#[derive(Clone, Debug, Default)]
struct Rows<const W: usize> {
    pos: Vec<V3<Fx<W>>>,
    prev: Vec<V3<Fx<W>>>,
    carry: Vec<V3<Fx<W>>>,
    w: Vec<Fx<W>>,
    free: Col<Mx<W>>,
    /// Distance (index 0) and bending (index 1) constraints, rigid.
    rigid: [Col<Rigid<Fx<W>>>; 2],
    /// Distance and bending constraints, compliant.
    soft: [Col<Soft<Fx<W>>>; 2],
    lambda: [Vec<Fx<W>>; 2],
    /// Per side: each lane's tether anchor row.
    anchor: [Vec<[u32; W]>; 2],
    /// Per side: the anchor row when every lane with a tether has the same
    /// one (the usual case: attached ends), else [`MIXED`].
    anchor_u: [Vec<u32>; 2],
    /// Per side: tether reach, metres.
    reach: [Vec<Fx<W>>; 2],
    /// Per side: lanes with a tether.
    tether_m: [Vec<Mx<W>>; 2],
    /// Rest curvature, compliance and lanes of the curvature constraints.
    curv: Vec<(Fx<W>, Fx<W>, Mx<W>)>,
    /// Row multipliers (tethers, curvature).
    lrow: [Vec<Fx<W>>; 3],
    /// The next bundle's rows, asked for while this one solves.
    ahead: Ahead,
}

/// A constant per row (or per constraint) of a bundle, kept whole or,
/// when every entry but the first and the last is bitwise the same (a
/// uniform cable: equal segments and masses, pinned or attached only at
/// its ends), as those three entries.
///
/// The rows a substep reads are what a frame of one substep streams from
/// memory (see [`Ahead`]): for a uniform bundle, the free masks and the
/// distance constraints' constants shrink from 16 of 52 bytes per lane and
/// row to nothing that leaves the cache.
#[derive(Clone, Debug)]
struct Col<T> {
    v: Vec<T>,
    /// Entries `mid..=end` are entry `mid` ([`usize::MAX`]: kept whole).
    mid: usize,
    end: usize,
}

impl<T> Default for Col<T> {
    fn default() -> Self {
        Self {
            v: Vec::new(),
            mid: usize::MAX,
            end: usize::MAX,
        }
    }
}

impl<T: Copy + SameBits> Col<T> {
    /// Entry `i`.
    #[inline(always)]
    fn get(&self, i: usize) -> T {
        // Whole: `i`. Three entries: 0 for 0, 1 for `1..=end`, then 2.
        self.v[i.min(self.mid) + i.saturating_sub(self.end)]
    }

    /// Empties the column, kept whole, for [`Col::push`]es and a [`Col::pack`].
    fn clear(&mut self) {
        self.v.clear();
        (self.mid, self.end) = (usize::MAX, usize::MAX);
    }

    /// Appends entry `v` (before [`Col::pack`]).
    fn push(&mut self, v: T) {
        self.v.push(v);
    }

    /// Keeps three entries when every entry between the first and the last
    /// is bitwise the same; else the column stays whole.
    fn pack(&mut self) {
        let n = self.v.len();
        if n > 3 && self.v[2..n - 1].iter().all(|e| e.same(&self.v[1])) {
            self.v[2] = self.v[n - 1];
            self.v.truncate(3);
            (self.mid, self.end) = (1, n - 2);
        }
    }

    /// The stored entries (what a substep reads from memory).
    fn stored(&self) -> &[T] {
        &self.v
    }
}

/// Bitwise equality of lane values (`-0` is not `+0`), for [`Col::pack`].
trait SameBits {
    /// Every lane of `self` has the bits of the same lane of `o`.
    fn same(&self, o: &Self) -> bool;
}

impl<const W: usize> SameBits for Fx<W> {
    fn same(&self, o: &Self) -> bool {
        self.0
            .iter()
            .zip(&o.0)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl<const W: usize> SameBits for Mx<W> {
    fn same(&self, o: &Self) -> bool {
        self.0 == o.0
    }
}

impl<const W: usize> SameBits for Rigid<Fx<W>> {
    fn same(&self, o: &Self) -> bool {
        self.rest.same(&o.rest) && self.nka.same(&o.nka) && self.kb.same(&o.kb)
    }
}

impl<const W: usize> SameBits for Soft<Fx<W>> {
    fn same(&self, o: &Self) -> bool {
        self.rest.same(&o.rest)
            && self.wa.same(&o.wa)
            && self.nwb.same(&o.nwb)
            && self.denom.same(&o.denom)
            && self.m.same(&o.m)
    }
}

/// Most arrays [`Spans`] lists.
const SPANS: usize = 7;

/// The memory a bundle's substep first touches, as `(address, bytes)`
/// of its row arrays (unused entries empty): what the bundle before it
/// asks the CPU for ([`Ahead`]).
type Spans = [(usize, usize); SPANS];

/// Asks the CPU for the next bundle's rows while a bundle runs its last
/// substep of the frame ([`Store::ahead`]): a few 64-byte lines per
/// distance projection, spread so that all are asked for by the end of
/// the substep (its `iterations × segments` distance projections; a
/// block with compliant bending calls twice as often and is done by the
/// middle) ([`crate::simd::prefetch`]). The addresses are taken before
/// the frame's tasks run; a bundle that gathers in the frame may move its
/// rows, and the hint then asks for stale lines: speed, never results.
///
/// With all substeps in one frame a bundle is hot in cache for all of
/// them, and only its first touch waits on memory; with one substep per
/// frame (a game at its frame rate) every substep is a first touch, and
/// the scene's rows, larger than the caches, stream from memory every
/// frame. The sweeps are a chain of square roots and divisions whose
/// latency leaves the memory system idle: filled with the next bundle's
/// lines, the two overlap (see `docs/performance-history.md` for the
/// measurement). Since every block runs its iterations as a wavefront
/// (2026-11-26) the kernel solves a substep about as fast as the rows
/// arrive, and a frame of one substep is bound by their first touch: at
/// 10,000 cables they sit in the L3 cache, not the L2 (2026-11-27, `perf`:
/// 10 % of the kernel's samples wait on this prefetch; the README's
/// Measured section). Packed constants ([`Col`]) leave fewer rows to ask for.
#[derive(Clone, Debug, Default)]
struct Ahead {
    spans: Spans,
    /// The span and byte offset of the next line to ask for.
    span: usize,
    off: usize,
    /// Lines per call; 0: nothing to ask for.
    per_call: usize,
}

impl Ahead {
    /// Asks for the lines of `spans`, `calls` calls of [`Ahead::step`] from now.
    fn new(spans: &Spans, calls: usize) -> Self {
        // From the start of each span's first line.
        let spans = spans.map(|(a, n)| (a & !(LINE - 1), n + a % LINE * usize::from(n > 0)));
        let lines: usize = spans.iter().map(|s| s.1.div_ceil(LINE)).sum();
        Self {
            spans,
            span: 0,
            off: 0,
            per_call: lines.div_ceil(calls.max(1)),
        }
    }

    /// The next `per_call` lines, each given to `f` (the prefetch).
    #[inline(always)]
    fn step_with(&mut self, mut f: impl FnMut(usize)) {
        let mut left = self.per_call;
        while left > 0 {
            let Some(&(a, n)) = self.spans.get(self.span) else {
                self.per_call = 0;
                return;
            };
            if self.off < n {
                f(a + self.off);
                self.off += LINE;
                left -= 1;
            } else {
                (self.span, self.off) = (self.span + 1, 0);
            }
        }
    }

    /// [`Ahead::step_with`] the prefetch.
    #[inline(always)]
    fn step(&mut self) {
        self.step_with(crate::simd::prefetch);
    }
}

/// Bytes per cache line.
const LINE: usize = 64;

impl<const W: usize> Rows<W> {
    /// The free masks and distance constants are packed ([`Col::pack`]).
    #[cfg(test)]
    fn packed(&self) -> bool {
        self.free.stored().len() < self.pos.len()
            && (self.rigid[0].stored().len() + self.soft[0].stored().len()) < self.pos.len() - 1
    }

    /// What a substep of these rows first touches, where it is (see
    /// [`Spans`]): the particle state, the distance constraints and, if
    /// the substep uses them (`multipliers`), their multipliers.
    fn spans(&self, multipliers: bool) -> Spans {
        fn span<T>(v: &[T]) -> (usize, usize) {
            (v.as_ptr().addr(), std::mem::size_of_val(v))
        }
        [
            span(&self.pos),
            span(&self.prev),
            span(&self.carry),
            span(self.free.stored()),
            span(self.rigid[0].stored()),
            span(self.soft[0].stored()),
            if multipliers {
                span(&self.lambda[0])
            } else {
                (0, 0)
            },
        ]
    }
}

impl<const W: usize> Store<Fx<W>> for Rows<W> {
    #[inline(always)]
    fn rows(&self) -> usize {
        self.pos.len()
    }
    #[inline(always)]
    fn pos(&self, i: usize) -> V3<Fx<W>> {
        self.pos[i]
    }
    #[inline(always)]
    fn set_pos(&mut self, i: usize, p: V3<Fx<W>>) {
        self.pos[i] = p;
    }
    #[inline(always)]
    fn prev(&self, i: usize) -> V3<Fx<W>> {
        self.prev[i]
    }
    #[inline(always)]
    fn set_prev(&mut self, i: usize, p: V3<Fx<W>>) {
        self.prev[i] = p;
    }
    #[inline(always)]
    fn carry(&self, i: usize) -> V3<Fx<W>> {
        self.carry[i]
    }
    #[inline(always)]
    fn set_carry(&mut self, i: usize, c: V3<Fx<W>>) {
        self.carry[i] = c;
    }
    #[inline(always)]
    fn w(&self, i: usize) -> Fx<W> {
        self.w[i]
    }
    #[inline(always)]
    fn free(&self, i: usize) -> Mx<W> {
        self.free.get(i)
    }
    #[inline(always)]
    fn rigid(&self, i: usize, span: usize) -> Rigid<Fx<W>> {
        self.rigid[span - 1].get(i)
    }
    #[inline(always)]
    fn soft(&self, i: usize, span: usize, _alpha_t: Fx<W>) -> Soft<Fx<W>> {
        self.soft[span - 1].get(i)
    }
    #[inline(always)]
    fn lambda(&self, span: usize, i: usize) -> Fx<W> {
        self.lambda[span - 1][i]
    }
    #[inline(always)]
    fn set_lambda(&mut self, span: usize, i: usize, l: Fx<W>) {
        self.lambda[span - 1][i] = l;
    }
    fn reset_lambda(&mut self) {
        for l in &mut self.lambda {
            l.fill(Fx::default());
        }
    }
    #[inline(always)]
    fn tether(&self, i: usize, side: usize) -> (V3<Fx<W>>, Fx<W>, Mx<W>) {
        let m = self.tether_m[side][i];
        let u = self.anchor_u[side][i];
        let a = if u == MIXED {
            let rows = &self.anchor[side][i];
            let mut a = V3::zero();
            for (l, &r) in rows.iter().enumerate() {
                a.set_lane(l, self.pos[r as usize].lane(l));
            }
            a
        } else {
            self.pos[u as usize]
        };
        (a, self.reach[side][i], m)
    }
    #[inline(always)]
    fn curv(&self, i: usize) -> (Fx<W>, Fx<W>, Mx<W>) {
        self.curv[i]
    }
    #[inline(always)]
    fn lambda_row(&self, i: usize, k: usize) -> Fx<W> {
        self.lrow[k][i]
    }
    #[inline(always)]
    fn set_lambda_row(&mut self, i: usize, k: usize, l: Fx<W>) {
        self.lrow[k][i] = l;
    }
    fn reset_lambda_row(&mut self) {
        for l in &mut self.lrow {
            l.fill(Fx::default());
        }
    }
    #[inline(always)]
    fn ahead(&mut self) {
        self.ahead.step();
    }
}

/// One bundle of `W` lanes: up to `W / 8` lane groups of one key.
#[derive(Clone, Debug, Default)]
struct Bundle<const W: usize> {
    key: Key,
    /// Cable index of each lane, [`SCALAR`] for padding.
    cables: Vec<u32>,
    /// The pool row of each lane's first particle, [`SCALAR`] for padding
    /// (where [`Held::write_back`] copies the lane to).
    at: Vec<u32>,
    rows: Rows<W>,
    block: Block<Fx<W>>,
    scratch: Scratch<Fx<W>>,
    /// Lanes (bit `lane`) whose cable's particle state alone was edited in
    /// the pool since the last write-back ([`Bundle::gather_state`]).
    stale: u32,
    /// Some cable's constants (parameters, masses) changed, its key did
    /// not: the bundle gathers again, the rest of the pool does not.
    regather: bool,
}

impl<const W: usize> Bundle<W> {
    /// Lane `lane`'s positions into `out`, one per row.
    fn copy_lane(&self, lane: usize, out: &mut [Vec3]) {
        for (o, p) in out.iter_mut().zip(&self.rows.pos) {
            *o = p.lane(lane);
        }
    }

    /// Copies the particle state (positions, previous positions, carry) of
    /// the `stale` lanes from their views: a cable edited alone
    /// ([`ParticlePool::state_edits_since`]) costs its own rows, not a
    /// gather of the whole pool.
    fn gather_state(&mut self, views: &[Option<CableMut<'_>>]) {
        let r = &mut self.rows;
        for (lane, c) in views.iter().take(W).enumerate() {
            let Some(c) = c.as_ref().filter(|_| self.stale & (1 << lane) != 0) else {
                continue;
            };
            for row in 0..r.pos.len() {
                r.pos[row].set_lane(lane, c.pos[row]);
                r.prev[row].set_lane(lane, c.prev[row]);
                r.carry[row].set_lane(lane, c.carry[row]);
            }
        }
        self.stale = 0;
    }

    /// Copies the bundle's cables from their views (`views[lane]`, `None`
    /// for padding) and derives the constants.
    fn gather(&mut self, views: &[Option<CableMut<'_>>], params: &SolverParams) {
        // Each real lane and its cable.
        let lanes = || {
            views
                .iter()
                .take(W)
                .enumerate()
                .filter_map(|(lane, c)| Some((lane, c.as_ref()?.view())))
        };
        let n = self.key.segs + 1;
        let r = &mut self.rows;
        // Padding lanes: a straight, pinned, inert line (no NaN, no denormals).
        r.pos.clear();
        r.prev.clear();
        r.carry.clear();
        r.carry.resize(n, V3::zero());
        for row in 0..n {
            let p = V3::new(Fx::splat(row as f32), Fx::splat(0.0), Fx::splat(0.0));
            r.pos.push(p);
            r.prev.push(p);
        }
        r.w.clear();
        r.w.resize(n, Fx::splat(0.0));
        r.free.clear();
        self.block = Block::default();
        for (lane, c) in lanes() {
            for row in 0..n {
                r.pos[row].set_lane(lane, c.pos[row]);
                r.prev[row].set_lane(lane, c.prev[row]);
                r.carry[row].set_lane(lane, c.carry[row]);
                r.w[row].set_lane(lane, c.inv_mass[row]);
            }
            self.block.set_lane(lane, c.params, c.attach, n, params);
        }
        for w in &r.w {
            r.free.push(Fx::splat(0.0).lt(*w));
        }
        r.free.pack();
        let alpha_t = self.block.alpha_t;
        // Padding rest lengths: the padding line's own (1 per segment).
        let rest = |span: usize, i: usize| {
            let mut v = Fx::splat(span as f32);
            for (lane, c) in lanes() {
                v.set_lane(lane, kernel::span_rest(c.rest, i, span));
            }
            v
        };
        // Lanes whose segments i..i + span are intact (padding: all).
        let linked = |span: usize, i: usize| {
            let mut m = Mx::splat(true);
            for (lane, c) in lanes() {
                m.set_lane(lane, kernel::span_linked(c.row_const, i, span));
            }
            m
        };
        for span in [1, 2] {
            let count = match span {
                1 => n - 1,
                _ if self.key.stiff => n - 2,
                _ => 0,
            };
            let k = span - 1;
            r.rigid[k].clear();
            r.soft[k].clear();
            r.lambda[k].clear();
            for i in 0..count {
                let (wa, wb, l) = (r.w[i], r.w[i + span], rest(span, i));
                let m = linked(span, i);
                if self.key.soft {
                    let mut c = Soft::new(wa, wb, l, alpha_t);
                    c.m = c.m & m;
                    r.soft[k].push(c);
                } else {
                    r.rigid[k].push(Rigid::new(wa, wb, l, m));
                }
            }
            r.rigid[k].pack();
            r.soft[k].pack();
            r.lambda[k].resize(count, Fx::default());
        }
        for side in 0..2 {
            r.anchor[side].clear();
            r.anchor_u[side].clear();
            r.reach[side].clear();
            r.tether_m[side].clear();
        }
        r.curv.clear();
        for l in &mut r.lrow {
            l.clear();
            l.resize(n, Fx::default());
        }
        for row in 0..n {
            let mut curv = (Fx::splat(0.0), Fx::splat(0.0), Mx::splat(false));
            for side in 0..2 {
                let mut rows = [0u32; W];
                let mut reach = Fx::splat(0.0);
                let mut m = Mx::splat(false);
                let mut uniform = None;
                for (lane, c) in lanes() {
                    let k = &c.row_const[row];
                    if side == 0 {
                        curv.0.set_lane(lane, k.kappa0);
                        curv.1.set_lane(lane, k.bend_compliance);
                        curv.2.set_lane(lane, k.bend_compliance > 0.0);
                    }
                    let a = k.anchor[side];
                    if a != NO_ANCHOR {
                        rows[lane] = a;
                        reach.set_lane(lane, k.reach[side]);
                        m.set_lane(lane, true);
                        uniform = match uniform {
                            None => Some(a),
                            Some(u) if u == a => Some(u),
                            Some(_) => Some(MIXED),
                        };
                    }
                }
                r.anchor[side].push(rows);
                r.anchor_u[side].push(uniform.unwrap_or(0));
                r.reach[side].push(reach);
                r.tether_m[side].push(m);
            }
            r.curv.push(curv);
        }
        self.block.stiff = self.key.stiff;
        self.block.soft = self.key.soft;
        self.block.curv = self.key.curv;
        self.block.friction = self.key.friction;
        self.block.iterations = self.key.iterations;
        // `tether` and `track`: any lane's, as `Block::set_lane` gathered them.
        self.block.tether = (0..2).any(|side| r.tether_m[side].iter().any(|m| m.any()));
    }

    /// Copies the attachment targets of the bundle's cables from their
    /// views (only targets moved).
    fn refresh_targets(&mut self, views: &[Option<CableMut<'_>>]) {
        for (lane, c) in views.iter().take(W).enumerate() {
            if let Some(c) = c {
                self.block.set_targets(lane, c.attach);
            }
        }
    }

    /// Runs `n` substeps (inlined into each SIMD path of [`Bundle::run`]).
    #[inline(always)]
    fn run_inline(&mut self, sh: &Shared<'_>, n: u32, next: &Spans) {
        for k in 0..n {
            if k + 1 == n {
                // The last substep asks for the next bundle's rows.
                let calls = self.key.iterations as usize * self.key.segs;
                self.rows.ahead = Ahead::new(next, calls);
            }
            kernel::substep(&mut self.rows, &self.block, sh, &mut self.scratch);
        }
        self.rows.ahead = Ahead::default();
    }

    /// Runs `n` substeps with the best SIMD instructions the CPU has. The
    /// rows stay the cables' state: nothing is copied back to the pool
    /// until something reads it ([`Held::write_back`]).
    ///
    /// On AVX2 or AVX-512 the kernel is inlined into a function compiled
    /// for it ([`crate::simd::Wide::run`]): its `Fx` loops become 256-bit
    /// instructions (on AVX-512, LLVM also packs the 32-lane arrays into
    /// 512-bit registers).
    /// Same IEEE operations, bitwise the same results.
    ///
    /// The last substep asks the CPU for `next`, the rows of the bundle
    /// this task most likely runs next ([`Ahead`]).
    fn run(&mut self, sh: &Shared<'_>, n: u32, next: &Spans) {
        match sh.wide {
            Some(wide) => wide.run(
                #[inline(always)]
                || self.run_inline(sh, n, next),
            ),
            None => self.run_inline(sh, n, next),
        }
    }

    /// Copies every lane's particles, and with `track` the multipliers,
    /// to the pool: to its cable's view in the task that ran the substeps
    /// ([`Views`]), or to its rows of the pool's columns ([`PoolRows`],
    /// [`Held::write_back`]).
    ///
    /// By blocks of [`SCATTER_ROWS`] rows: a block of every lane is
    /// transposed into a buffer on the stack (each row read once, from L1:
    /// going lane by lane over all rows, the rows of a 32-lane bundle do
    /// not fit in L1 and nearly every read misses), then each lane's block
    /// goes to its cable in one 96-byte copy (wide stores into the pool's
    /// cold lines rather than one store per float). Kept out of line: the
    /// copies are the same code on every SIMD path.
    ///
    /// The pool's lines are usually cold (the write-back runs when
    /// something reads the pool, frames after the cable was last read), and
    /// a store to a cold line waits for its line: so the bundle's
    /// destination lines are first read, all at once, which keeps many
    /// misses in flight (about 7 % off a frame that wrote back every
    /// substep, see `docs/performance-history.md`).
    #[inline(never)]
    fn scatter(&self, dst: &mut impl Dst, track: bool) {
        let r = &self.rows;
        let n = r.pos.len();
        let mut buf = [[[Vec3::ZERO; SCATTER_ROWS]; W]; 3];
        // Ask for the pool's lines first, all of them at once: loads that
        // do not depend on each other are in flight together, where a store
        // to a cold line waits for its line before the next store's miss
        // is even seen. One `x` per 60 bytes reaches every 64-byte line.
        let mut touched = 0u32;
        for lane in 0..W {
            for col in dst.rows(lane, 0..n).into_iter().flatten() {
                for v in col.iter().step_by(5) {
                    touched |= v.x.to_bits();
                }
            }
        }
        std::hint::black_box(touched);
        for r0 in (0..n).step_by(SCATTER_ROWS) {
            let rows = r0..n.min(r0 + SCATTER_ROWS);
            for (buf, col) in buf.iter_mut().zip([&r.pos, &r.prev, &r.carry]) {
                for (i, v) in col[rows.clone()].iter().enumerate() {
                    // Four lanes at a time (bundles are 8 or 32 wide):
                    // three 4-wide loads, then four `Vec3`s. Lane by lane,
                    // each coordinate was a load of its own; this takes a
                    // frame of one substep to 0.94x the time (2,000 cables
                    // on one thread and the 10,000-cable bench, paired).
                    const { assert!(W % 4 == 0, "a bundle is a whole number of fours") };
                    for (l0, b) in (0..W).step_by(4).zip(buf.chunks_exact_mut(4)) {
                        let four = |f: &Fx<W>| -> [f32; 4] { std::array::from_fn(|k| f.0[l0 + k]) };
                        let (x, y, z) = (four(&v.x), four(&v.y), four(&v.z));
                        for (k, b) in b.iter_mut().enumerate() {
                            b[i] = Vec3::new(x[k], y[k], z[k]);
                        }
                    }
                }
            }
            for lane in 0..W {
                let Some(cols) = dst.rows(lane, rows.clone()) else {
                    continue;
                };
                for (buf, dst) in buf.iter().zip(cols) {
                    let src = &buf[lane];
                    match <&mut [Vec3; SCATTER_ROWS]>::try_from(&mut *dst) {
                        // A whole block: a copy of constant length.
                        Ok(dst) => *dst = *src,
                        Err(_) => dst.copy_from_slice(&src[..dst.len()]),
                    }
                }
            }
        }
        if track || self.block.track {
            for lane in 0..W {
                let Some((lambda, lambda_row)) = dst.multipliers(lane, n) else {
                    continue;
                };
                for (row, l) in lambda.iter_mut().enumerate() {
                    *l = r.lambda[0].get(row).map_or(0.0, |v| v.lane(lane));
                }
                for (row, l) in lambda_row.iter_mut().enumerate() {
                    *l = [0, 1, 2].map(|k| r.lrow[k][row].lane(lane));
                }
            }
        }
    }

    /// One frame of the bundle, in the task that owns it: (re)gather when
    /// the pool changed, run the frame's substeps, asking for `next`
    /// (the next bundle's rows) in the last.
    fn frame(&mut self, views: &mut [Option<CableMut<'_>>], f: &Frame<'_, '_>, next: &Spans) {
        let Frame {
            refresh,
            params,
            sh,
            n,
            eager,
        } = *f;
        match refresh {
            _ if self.regather => {}
            Refresh::Gather => self.regather = true,
            Refresh::Targets => self.refresh_targets(views),
            Refresh::Current => {}
        }
        if self.regather {
            self.regather = false;
            self.stale = 0;
            self.gather(views, params);
        }
        if self.stale != 0 {
            self.gather_state(views);
        }
        self.run(sh, n, next);
        if eager {
            // While the rows are hot, on this task.
            self.scatter(&mut LaneViews(views), sh.track);
        }
    }
}

/// Where [`Bundle::scatter`] copies lane `lane` of a bundle: its cable's
/// rows of the pool's state.
trait Dst {
    /// Rows `rows` of the lane's positions, previous positions and carry;
    /// `None` for a padding lane.
    fn rows(&mut self, lane: usize, rows: Range<usize>) -> Option<[&mut [Vec3]; 3]>;
    /// The lane's `n` distance and row multipliers; `None` for padding.
    fn multipliers(&mut self, lane: usize, n: usize) -> Option<(&mut [f32], &mut [[f32; 3]])>;
}

/// A bundle's cables' views, lane by lane (`None` for padding).
struct LaneViews<'a, 'b>(&'a mut [Option<CableMut<'b>>]);

impl Dst for LaneViews<'_, '_> {
    fn rows(&mut self, lane: usize, rows: Range<usize>) -> Option<[&mut [Vec3]; 3]> {
        let c = self.0.get_mut(lane)?.as_mut()?;
        Some([
            &mut c.pos[rows.clone()],
            &mut c.prev[rows.clone()],
            &mut c.carry[rows],
        ])
    }
    fn multipliers(&mut self, lane: usize, _: usize) -> Option<(&mut [f32], &mut [[f32; 3]])> {
        let c = self.0.get_mut(lane)?.as_mut()?;
        Some((&mut *c.lambda, &mut *c.lambda_row))
    }
}

/// The pool's state columns and the first row of each lane's cable
/// ([`Bundle::at`], [`SCALAR`] for padding).
struct PoolRows<'a> {
    st: &'a mut ParticleState,
    at: &'a [u32],
}

impl Dst for PoolRows<'_> {
    fn rows(&mut self, lane: usize, rows: Range<usize>) -> Option<[&mut [Vec3]; 3]> {
        let a = *self.at.get(lane).filter(|&&a| a != SCALAR)? as usize;
        let rows = a + rows.start..a + rows.end;
        let st = &mut *self.st;
        Some([
            &mut st.pos[rows.clone()],
            &mut st.prev[rows.clone()],
            &mut st.carry[rows],
        ])
    }
    fn multipliers(&mut self, lane: usize, n: usize) -> Option<(&mut [f32], &mut [[f32; 3]])> {
        let a = *self.at.get(lane).filter(|&&a| a != SCALAR)? as usize;
        let st = &mut *self.st;
        Some((&mut st.lambda[a..a + n], &mut st.lambda_row[a..a + n]))
    }
}

/// What every bundle's [`Bundle::frame`] shares.
#[derive(Clone, Copy)]
struct Frame<'a, 'b> {
    refresh: Refresh,
    params: &'a SolverParams,
    sh: &'a Shared<'b>,
    /// Substeps.
    n: u32,
    /// Write back to the views after the substeps.
    eager: bool,
}

/// What a bundle must copy from the pool before its substeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refresh {
    /// The pool changed since the last write-back: everything.
    Gather,
    /// Only attachment targets moved.
    Targets,
    /// The bundle holds the pool's state.
    Current,
}

/// A bundle of one of the two widths (8 lanes for a key's lone group, 32
/// for up to four; a third width would cost compile time, not speed).
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // bundles live in one Vec, each sized once per plan
enum AnyBundle {
    One(Bundle<8>),
    Four(Bundle<32>),
}

macro_rules! each {
    ($b:expr, $x:ident => $e:expr) => {
        match $b {
            AnyBundle::One($x) => $e,
            AnyBundle::Four($x) => $e,
        }
    };
}

impl AnyBundle {
    fn with_groups(groups: usize) -> Self {
        match groups {
            1 => Self::One(Bundle::default()),
            _ => Self::Four(Bundle::default()),
        }
    }
    fn width(&self) -> usize {
        each!(self, b => b.cables.len())
    }
}

/// Rows per block of [`Bundle::scatter`]: 8 rows of a lane are 96 bytes,
/// a copy of constant length (a few wide stores).
const SCATTER_ROWS: usize = 8;

/// Slots of one bundle in [`LanesWorld::views`]: the widest bundle's lanes
/// (a narrower bundle leaves the rest `None`).
const STRIDE: usize = LANES * GROUPS_IN_FLIGHT;

/// The per-cable views of one frame, in bundle order: [`STRIDE`] slots per
/// bundle (`None` for padding), then the one-lane cables in row order.
pub(crate) type Views<'a> = Vec<Option<CableMut<'a>>>;

/// An empty [`Views`] that keeps its allocation for another lifetime: the
/// views of one frame cannot outlive the pool's borrow, their buffer can.
pub(crate) fn recycle<'b>(mut v: Views<'_>) -> Views<'b> {
    v.clear();
    // In place: `Vec`'s in-place collection reuses the buffer of a
    // same-layout element type, an optimisation std does not promise;
    // `recycle_keeps_the_allocation` and tests/alloc.rs catch its loss.
    v.into_iter()
        .map(|_| -> Option<CableMut<'b>> { unreachable!("cleared") })
        .collect()
}

/// The allocation of the views between frames ([`recycle`]), always empty.
#[derive(Default)]
pub(crate) struct ViewBuf(pub(crate) Views<'static>);

impl Clone for ViewBuf {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for ViewBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ViewBuf(capacity {})", self.0.capacity())
    }
}

/// What the `Lanes8` layout keeps between frames: the plan and the
/// bundles, whose rows are the lane cables' state. Lent to the pool after
/// each [`advance`] ([`ParticlePool::lend_state`]), so the first read of
/// the pool writes the lanes back ([`Held::write_back`]) and a frame
/// nothing reads copies nothing; taken back at the next [`advance`].
#[derive(Clone, Debug, Default)]
struct Held {
    order: Vec<(Key, u32)>,
    bundles: Vec<AnyBundle>,
    /// Per cable (row order): its slot in the frame's views, `bundle ·`
    /// [`STRIDE`] `+ lane` for lane cables, after every bundle's slots for
    /// the others.
    dest: Vec<u32>,
    /// `dest` increases along the rows.
    in_order: bool,
    /// Pool structure revision ([`ParticlePool::structure_revision`]) and
    /// parameters right after the last [`advance`]: while both match, the
    /// bundles hold the pool's current state but for the cables
    /// [`ParticlePool::state_edits_since`] `synced_rev` lists.
    synced: Option<(u64, SolverParams)>,
    /// The pool's revision right after the last [`advance`].
    synced_rev: u64,
    /// The pool's attachment revision the targets were copied at.
    synced_attach: u64,
    /// The multipliers are written back too (tension tracking).
    track: bool,
    /// The last frame wrote the lanes back to the pool in the tasks that
    /// ran it (see [`advance`]): the pool is current.
    written: bool,
    /// Cables on the one-lane path.
    scalars: usize,
    /// Per bundle, the next bundle's [`Spans`] (empty for the last),
    /// made each frame.
    next: Vec<Spans>,
}

impl StateHolder for Held {
    /// Copies every bundle's lanes to the pool's rows, bundle by bundle,
    /// on the calling thread (a reader may be a rayon task itself, and a
    /// parallel copy inside the pool's one-time initialisation could wait
    /// on it).
    fn write_back(&self, st: &mut ParticleState) {
        if self.written {
            // Written back in the tasks that ran the frame.
            return;
        }
        for b in &self.bundles {
            each!(b, b => b.scatter(&mut PoolRows { st: &mut *st, at: &b.at }, self.track));
        }
    }
    /// A lane cable's positions from its bundle's rows; a one-lane cable
    /// is solved in the pool's columns, which are current for it.
    fn copy_positions(&self, cable: usize, out: &mut [Vec3]) -> HeldRead {
        if self.written {
            return HeldRead::Columns;
        }
        let Some(&d) = self.dest.get(cable) else {
            return HeldRead::WriteBack;
        };
        let (b, lane) = (d as usize / STRIDE, d as usize % STRIDE);
        match self.bundles.get(b) {
            Some(b) => {
                each!(b, b => b.copy_lane(lane, out));
                HeldRead::Copied
            }
            None => HeldRead::Columns,
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// The `Lanes8` layout's buffers, kept by the stepper between frames (the
/// bundles are lent to the pool in between, see the module docs).
#[derive(Clone, Debug, Default)]
pub struct LanesWorld {
    /// The plan and bundles while not lent to a pool.
    held: Option<Box<Held>>,
    views: ViewBuf,
    /// Kernel scratch of the one-lane cables, one per piece of them
    /// (kept here, not per thread, so a warmed-up frame allocates nothing
    /// whichever threads run it).
    scalar: crate::scalar::ScalarPieces,
    /// Frames that copied the whole pool in ([`LanesWorld::full_gathers`]).
    full_gathers: u64,
    /// Frames that found their bundles' state older than the pool's
    /// ([`LanesWorld::write_backs`]).
    write_backs: u64,
    /// [`LanesWorld::lane_cables`] and [`LanesWorld::lane_groups`] at the
    /// last plan.
    lane_cables: usize,
    lane_groups: usize,
    /// The last plan's slots were in row order ([`Held::in_order`]).
    in_order: bool,
    /// Frames that wrote the lanes back in their own tasks
    /// ([`LanesWorld::eager_frames`]).
    eager_frames: u64,
}

impl LanesWorld {
    /// Number of cables solved in lane groups at the last [`advance`].
    #[must_use]
    pub fn lane_cables(&self) -> usize {
        self.lane_cables
    }

    /// Number of [`advance`] calls that copied the whole pool into the
    /// lanes: the first, and those after a structural change
    /// ([`ParticlePool::structure_revision`]), new solver parameters, or a
    /// cable's new parameters that move it to another lane group. Edits of
    /// single cables' particles re-copy that cable; other changes of its
    /// parameters or masses re-copy its bundle (up to 32 cables); moved
    /// attachment targets refresh the targets.
    #[must_use]
    pub fn full_gathers(&self) -> u64 {
        self.full_gathers
    }

    /// Number of [`advance`] calls that had the lanes written back to the
    /// pool before they could go on (a change that needs the pool's
    /// particles, when nothing had read the pool since the last frame).
    /// Reads of the pool between frames write back without counting here.
    #[must_use]
    pub fn write_backs(&self) -> u64 {
        self.write_backs
    }

    /// Number of [`advance`] calls that wrote the lanes back to the pool in
    /// the tasks that ran them, because something had read or edited the
    /// pool's particles since the frame before. The others left the lanes
    /// lent to the pool ([`ParticlePool::lend_state`]), copied back by the
    /// first reader.
    #[must_use]
    pub fn eager_frames(&self) -> u64 {
        self.eager_frames
    }

    /// Number of lane groups (8 lanes each, padding included) at the last
    /// [`advance`].
    #[must_use]
    pub fn lane_groups(&self) -> usize {
        self.lane_groups
    }
}

impl Held {
    /// Fills [`Held::next`]: each bundle's successor's rows, for its last
    /// substep to ask for ([`Ahead`]), the multipliers among them where
    /// that bundle's substep uses them (compliance, tracked tension, or
    /// `multipliers` for every bundle: tension tracked for all, the direct
    /// solver). Addresses only, a hint: a bundle that gathers this frame
    /// may move its rows, which costs that frame's hint and nothing else.
    fn plan_ahead(&mut self, multipliers: bool) {
        self.next.clear();
        self.next.extend(
            self.bundles
                .iter()
                .skip(1)
                .map(|b| each!(b, b => b.rows.spans(multipliers || b.key.soft || b.block.track))),
        );
        self.next.push(Spans::default());
    }

    /// Marks what the cables edited alone since the last [`advance`]
    /// need: their particles re-read ([`Bundle::stale`]), or their bundle
    /// gathered again ([`Bundle::regather`]) when their constants changed.
    /// False when an edit needs a new plan (a cable's key changed, or it
    /// fell asleep or was hidden).
    fn mark_edits(&mut self, pool: &ParticlePool, params: &SolverParams) -> bool {
        if pool.revision() == self.synced_rev {
            return true;
        }
        let lane_slots = self.bundles.len() * STRIDE;
        for i in pool.constant_edits_since(self.synced_rev) {
            let d = self.dest[i] as usize;
            if d >= lane_slots {
                // A one-lane cable works in the pool itself.
                continue;
            }
            let Some(c) = pool.cable(i) else {
                return false;
            };
            let b = &mut self.bundles[d / STRIDE];
            if !c.active || Key::of(&c, params) != each!(&*b, b => b.key) {
                return false;
            }
            each!(b, b => b.regather = true);
        }
        for i in pool.state_edits_since(self.synced_rev) {
            let d = self.dest[i] as usize;
            if d < lane_slots {
                each!(&mut self.bundles[d / STRIDE], b => b.stale |= 1 << (d % STRIDE));
            }
        }
        true
    }

    /// True when a bundle must read particles from the pool this frame.
    fn reads_pool(&self) -> bool {
        self.bundles
            .iter()
            .any(|b| each!(b, b => b.stale != 0 || b.regather))
    }

    /// Sorts the cables into bundles (step 1 of [`advance`]); the pool is
    /// compacted.
    fn plan(&mut self, pool: &ParticlePool, params: &SolverParams) {
        self.order.clear();
        for i in 0..pool.cable_count() {
            // Sleeping and skipped hidden cables stay out of the bundles
            // (the scalar path leaves them as they are).
            if let Some(c) = pool.cable(i).filter(|c| c.active) {
                self.order.push((Key::of(&c, params), i as u32));
            }
        }
        self.order.sort_unstable();
        self.dest.clear();
        self.dest.resize(pool.cable_count(), SCALAR);
        let mut used = 0;
        let mut start = 0;
        while start < self.order.len() {
            let key = self.order[start].0;
            let len = self.order[start..]
                .iter()
                .take_while(|(k, _)| *k == key)
                .count();
            let in_lanes = if len % LANES >= MIN_GROUP_FILL {
                len
            } else {
                len - len % LANES
            };
            for chunk in self.order[start..start + in_lanes].chunks(STRIDE) {
                let groups = chunk.len().div_ceil(LANES);
                let width = if groups == 1 { 1 } else { GROUPS_IN_FLIGHT } * LANES;
                if used == self.bundles.len() || self.bundles[used].width() != width {
                    let fresh = AnyBundle::with_groups(width / LANES);
                    if used == self.bundles.len() {
                        self.bundles.push(fresh);
                    } else {
                        self.bundles[used] = fresh;
                    }
                }
                each!(&mut self.bundles[used], b => {
                    b.key = key;
                    b.cables.clear();
                    b.cables.resize(width, SCALAR);
                    for (lane, &(_, cable)) in chunk.iter().enumerate() {
                        b.cables[lane] = cable;
                        self.dest[cable as usize] = (used * STRIDE + lane) as u32;
                    }
                });
                used += 1;
            }
            start += len;
        }
        self.bundles.truncate(used);
        // The one-lane cables (sleeping and hidden ones too: the kernel
        // skips them), after the bundles' slots, in row order.
        let mut next = used * STRIDE;
        let mut cables = 0;
        for d in &mut self.dest {
            if *d == SCALAR {
                *d = next as u32;
                next += 1;
                cables += 1;
            }
        }
        self.scalars = cables;
        self.in_order = self.dest.windows(2).all(|d| d[0] < d[1]);
        // Each lane's first row: the pool is compacted, so cable `i`
        // starts where cable `i - 1` ends.
        let mut row = 0u32;
        for (i, &d) in self.dest.iter().enumerate() {
            let d = d as usize;
            if let Some(b) = self.bundles.get_mut(d / STRIDE) {
                each!(b, b => {
                    b.at.resize(b.cables.len(), SCALAR);
                    b.at[d % STRIDE] = row;
                });
            }
            row += pool.cable(i).map_or(0, |c| c.pos.len() as u32);
        }
        for b in &mut self.bundles {
            each!(b, b => {
                b.at.resize(b.cables.len(), SCALAR);
                for (a, &c) in b.at.iter_mut().zip(&b.cables) {
                    if c == SCALAR {
                        *a = SCALAR;
                    }
                }
            });
        }
    }
}

/// Runs `n` substeps of every cable of the pool in the `Lanes8` layout,
/// bitwise identical to the one-lane layouts (see the module docs). The
/// caller has prepared the pool's colliders for these substeps.
pub fn advance(
    world: &mut LanesWorld,
    pool: &mut ParticlePool,
    params: &SolverParams,
    n: u32,
    stages: Stages,
    track: bool,
) {
    // The bundles: back from the pool they were lent to, or kept here.
    let mut current = true;
    let mut lent = None;
    // Write back in the frame's tasks when something read or edited the
    // pool since the last frame: a game that reads every frame (to render,
    // to sync its entities) has the copy made while the rows are hot, by
    // every thread, and one that does not pays none.
    let mut eager = false;
    if let Some(back) = pool.reclaim_state() {
        current = back.current;
        eager = current;
        if back.holder.as_any().is::<Held>() {
            // Checked on the line above.
            lent = Some(back.holder.into_any().downcast().expect("a Held"));
        } else if !current {
            // Another layout's storage: its state first.
            back.holder.write_back(pool.state_columns_mut());
            current = true;
        }
    }
    let mut held: Box<Held> = lent.or_else(|| world.held.take()).unwrap_or_default();
    // Edits of the pool's particles read it first, so the pool is current
    // then; other edits (parameters, masses, structure) may leave it older
    // than the lanes, which must then write back before a bundle or a new
    // plan reads particles from the pool. Moved attachment targets alone
    // read none.
    let ours =
        held.synced == Some((pool.structure_revision(), *params)) && held.mark_edits(pool, params);
    if !current && (!ours || held.reads_pool()) {
        held.write_back(pool.state_columns_mut());
        world.write_backs += 1;
    }
    let refresh = if !ours {
        pool.compact();
        held.plan(pool, params);
        world.full_gathers += 1;
        world.lane_cables = held
            .bundles
            .iter()
            .map(|b| each!(b, b => b.cables.iter().filter(|&&c| c != SCALAR).count()))
            .sum();
        world.lane_groups = held.bundles.iter().map(|b| b.width() / LANES).sum();
        world.in_order = held.in_order;
        for b in &mut held.bundles {
            each!(b, b => (b.stale, b.regather) = (0, false));
        }
        Refresh::Gather
    } else if held.synced_attach != pool.attachment_revision() {
        Refresh::Targets
    } else {
        Refresh::Current
    };
    held.synced_attach = pool.attachment_revision();
    held.track = track;
    held.written = eager;
    held.plan_ahead(track || params.solver == crate::params::Solver::Direct);
    let columns = pool.columns_mut();
    let mut sh = Shared::new(params, columns.colliders(), stages);
    sh.track = track;
    let f = Frame {
        refresh,
        params,
        sh: &sh,
        n,
        eager,
    };
    if refresh == Refresh::Current && !eager && held.scalars == 0 && !held.reads_pool() {
        // Every cable in the lanes, which neither read nor write the pool
        // this frame: no views to make (making them, mostly reading each
        // cable's record, took about 9 % of the samples of a one-substep
        // frame of 10,000 cables; skipping it, 0.82x the wall time, paired).
        held.bundles
            .par_iter_mut()
            .zip(&held.next)
            .for_each(|(b, x)| each!(b, b => b.frame(&mut [], &f, x)));
    } else {
        // Each cable's view in its slot (see `Held::dest`).
        let mut views = recycle(std::mem::take(&mut world.views.0));
        let slots = held.bundles.len() * STRIDE + held.dest.len();
        debug_assert_eq!(columns.len(), held.dest.len());
        if held.in_order {
            // Slots in row order (one key, or keys in row order): appended.
            for (c, &d) in columns.into_cables().zip(&held.dest) {
                debug_assert!(views.len() <= d as usize);
                views.resize_with(d as usize, || None);
                views.push(Some(c));
            }
            views.resize_with(slots, || None);
        } else {
            views.resize_with(slots, || None);
            for (c, &d) in columns.into_cables().zip(&held.dest) {
                views[d as usize] = Some(c);
            }
        }
        let (lane_views, scalar_views) = views.split_at_mut(held.bundles.len() * STRIDE);
        let bundles = &mut held.bundles;
        let next = &held.next;
        let scalar = &mut world.scalar;
        // One parallel pass: bundles beside the one-lane cables.
        rayon::join(
            || {
                bundles
                    .par_iter_mut()
                    .zip(lane_views.par_chunks_mut(STRIDE))
                    .zip(next)
                    .for_each(|((b, v), x)| {
                        each!(b, b => b.frame(v, &f, x));
                    });
            },
            || scalar.advance(scalar_views, params, n, stages, track),
        );
        world.views.0 = recycle(views);
    }
    held.synced = Some((pool.structure_revision(), *params));
    held.synced_rev = pool.revision();
    // The lanes are the state now: lent to the pool, which has them
    // write back when something reads it (or, `written`, notes the read).
    pool.lend_state(held);
    world.eager_frames += u64::from(eager);
}

#[cfg(test)]
mod tests {
    use cable_core::{CableDesc, Collider, End, ParticlePool};
    use glam::Vec3;

    use super::{AnyBundle, Held, LanesWorld, SPANS, Spans, Views, recycle};
    use crate::simd;
    use crate::{Layout, SolverParams, Stepper};

    /// A column packs to three entries exactly when its interior is
    /// bitwise uniform, and reads back every entry as it was.
    #[test]
    fn columns_pack_only_bitwise_uniform_interiors() {
        use super::{Col, Fx};
        use crate::lane::Lane;
        let col = |vals: &[f32]| {
            let mut c = Col::default();
            for &v in vals {
                c.push(Fx::<8>::splat(v));
            }
            c.pack();
            let back: Vec<f32> = (0..vals.len()).map(|i| c.get(i).0[3]).collect();
            assert_eq!(
                back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                vals.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{vals:?} read back as {back:?}"
            );
            c.stored().len()
        };
        assert_eq!(col(&[0.0, 1.0, 1.0, 1.0, 1.0, 2.0]), 3);
        assert_eq!(col(&[1.0, 1.0, 1.0, 1.0]), 3);
        // A different interior entry, or a zero of the other sign.
        assert_eq!(col(&[0.0, 1.0, 1.0, 3.0, 1.0, 2.0]), 6);
        assert_eq!(col(&[0.0, 0.0, -0.0, 0.0, 0.0]), 5);
        // Too short to gain anything.
        assert_eq!(col(&[0.0, 1.0, 2.0]), 3);
        assert_eq!(col(&[5.0]), 1);
        // One lane differs.
        let mut c = Col::default();
        for k in 0..5 {
            let mut v = Fx::<8>::splat(1.0);
            v.0[7] = if k == 2 { 2.0 } else { 1.0 };
            c.push(v);
        }
        c.pack();
        assert_eq!(c.stored().len(), 5);
    }

    /// Uniform cables (the bench's) keep three rows of free masks and
    /// distance constants per bundle; a cable pinned mid-way makes its
    /// bundle keep them whole, with the one-lane layout's results either way.
    #[test]
    fn uniform_bundles_keep_three_rows_of_constants() {
        let run = |layout: Layout, pin: bool| {
            let mut pool = ParticlePool::new();
            let mut handles = Vec::new();
            for k in 0..16 {
                let z = k as f32 * 0.1;
                let mut d =
                    CableDesc::line(Vec3::new(0.0, 1.0, z), Vec3::new(2.0, 1.0, z), 2.2, 12)
                        .expect("valid");
                d.attach_start = true;
                handles.push(pool.add_cable(&d).expect("fits"));
            }
            if pin {
                pool.set_inv_mass(handles[9], 6, 0.0).expect("valid");
            }
            let mut st = Stepper::with_layout(SolverParams::default(), layout).expect("valid");
            st.run_substeps(&mut pool, 30);
            let positions = pool.all_positions().to_vec();
            // (bundles with packed columns, bundles), from the lent state.
            let packed = (layout == Layout::Lanes8).then(|| {
                let back = pool.reclaim_state().expect("the lanes lent their state");
                let held: Box<Held> = back.holder.into_any().downcast().expect("a Held");
                let packed = held
                    .bundles
                    .iter()
                    .filter(|b| match b {
                        AnyBundle::One(b) => b.rows.packed(),
                        AnyBundle::Four(b) => b.rows.packed(),
                    })
                    .count();
                (packed, held.bundles.len())
            });
            (positions, packed)
        };
        for pin in [false, true] {
            let (want, _) = run(Layout::Soa, pin);
            let (got, packed) = run(Layout::Lanes8, pin);
            assert!(same_bits(&got, &want), "pin {pin}: lanes8 differs from soa");
            // Two lane groups of 8 in one bundle.
            assert_eq!(packed, Some((usize::from(!pin), 1)), "pin {pin}");
        }
    }

    /// The same positions, bit for bit.
    fn same_bits(a: &[Vec3], b: &[Vec3]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(a, b)| a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits))
    }

    /// `cables` cables side by side over a ground plane, the first `short`
    /// of 6 segments and the rest of 9, with a stepper in `layout`
    /// (3 iterations, friction 0.2).
    fn rows_on_a_plane(
        cables: usize,
        short: usize,
        layout: Layout,
    ) -> (ParticlePool, Vec<cable_core::CableHandle>, Stepper) {
        let mut pool = ParticlePool::new();
        let mut handles = Vec::new();
        for k in 0..cables {
            let z = k as f32 * 0.2;
            let segs = if k < short { 6 } else { 9 };
            let d = CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(2.0, 0.0, z), 2.4, segs)
                .expect("valid");
            handles.push(pool.add_cable(&d).expect("fits"));
        }
        pool.colliders_mut()
            .add(Collider::plane(Vec3::Y, -0.5).expect("valid"));
        let params = SolverParams {
            iterations: 3,
            friction: 0.2,
            ..SolverParams::default()
        };
        let st = Stepper::with_layout(params, layout).expect("valid");
        (pool, handles, st)
    }

    /// A bundle's hint asks for every line of the next bundle's arrays,
    /// once each and in order, within its last substep's projections, and
    /// for nothing after; arrays that start or end mid-line and empty ones
    /// included.
    #[test]
    fn ahead_asks_for_every_line_once_within_the_substep() {
        use super::{Ahead, LINE, SPANS, Spans};
        let mut spans: Spans = [(0, 0); SPANS];
        spans[0] = (0x1000, 4 * LINE);
        // Starting mid-line, ending mid-line: four lines.
        spans[2] = (0x9020, 3 * LINE + 8);
        spans[5] = (0x20000, LINE);
        let want: Vec<usize> = [0x1000, 0x1040, 0x1080, 0x10c0]
            .into_iter()
            .chain([0x9000, 0x9040, 0x9080, 0x90c0, 0x20000])
            .collect();
        for calls in [1, 2, 3, 7, 9, 40] {
            let mut a = Ahead::new(&spans, calls);
            let mut got = Vec::new();
            for _ in 0..calls {
                a.step_with(|x| got.push(x));
            }
            assert_eq!(got, want, "{calls} calls");
            a.step_with(|x| got.push(x));
            assert_eq!(got.len(), want.len(), "nothing after the last line");
        }
        let mut none = Ahead::default();
        none.step_with(|_| panic!("asked for a line with no spans"));
    }

    /// The views' buffer changes lifetime without a new allocation.
    #[test]
    fn recycle_keeps_the_allocation() {
        let mut v: Views<'static> = Vec::with_capacity(40);
        v.push(None);
        let (ptr, cap) = (v.as_ptr().cast::<u8>(), v.capacity());
        let w: Views<'_> = recycle(v);
        assert!(w.is_empty());
        assert_eq!((w.as_ptr().cast::<u8>(), w.capacity()), (ptr, cap));
    }

    /// One key in row order (its views appended, `in_order`) with padding,
    /// and a leftover one-lane key, over frames of one substep with a
    /// collider: the same bits as the one-lane layout, the pool edited
    /// between frames (re-gathered) and attachment targets moved
    /// (refreshed).
    #[test]
    fn one_key_in_row_order_matches_the_one_lane_layout() {
        let run = |layout: Layout| {
            let (mut pool, handles, mut st) = rows_on_a_plane(21, 19, layout);
            for frame in 0..6 {
                if frame == 2 {
                    pool.positions_mut(handles[4]).expect("live")[2].y += 0.1;
                }
                if frame == 4 {
                    let to = Some(Vec3::new(0.1, 0.2, 0.0));
                    pool.set_attachment(handles[0], cable_core::End::Start, to)
                        .expect("live");
                }
                st.run_substeps(&mut pool, 1);
            }
            if layout == Layout::Lanes8 {
                let w: &LanesWorld = st.layout_state().lanes();
                assert!(w.in_order && w.lane_cables() == 19 && w.lane_groups() == 4);
            }
            pool.all_positions().to_vec()
        };
        let (want, got) = (run(Layout::Soa), run(Layout::Lanes8));
        assert!(same_bits(&got, &want), "lanes8 differs from soa");
    }

    /// Cables edited alone between frames (positions, previous positions,
    /// velocity, a teleport of an attached cable, parameters and masses
    /// that keep the cable in its group) in a 32-lane bundle, an 8-lane
    /// bundle and on the one-lane path: the lanes re-read just those cables
    /// ([`super::Bundle::gather_state`]) or their bundle, and the result is
    /// bitwise the one-lane layout's, which works in the pool itself.
    #[test]
    fn cables_edited_alone_match_the_one_lane_layout() {
        let run = |layout: Layout| {
            let mut pool = ParticlePool::new();
            let mut handles = Vec::new();
            // 26 cables of 6 segments (24 in a 32-lane bundle, the last 2
            // too few for a group: one-lane), 8 of 9 (an 8-lane bundle), 2
            // of 4 (one-lane).
            for (k, segs) in [(26, 6), (8, 9), (2, 4)]
                .into_iter()
                .flat_map(|(count, segs)| std::iter::repeat_n(segs, count))
                .enumerate()
            {
                let z = k as f32 * 0.2;
                let mut d =
                    CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(2.0, 0.0, z), 2.4, segs)
                        .expect("valid");
                d.attach_end = k % 3 != 0;
                handles.push(pool.add_cable(&d).expect("fits"));
            }
            let params = SolverParams {
                iterations: 3,
                ..SolverParams::default()
            };
            let h = params.substep;
            let mut st = Stepper::with_layout(params, layout).expect("valid");
            st.run_substeps(&mut pool, 1);
            for frame in 0..8 {
                for (j, &c) in handles.iter().enumerate().skip(frame % 3).step_by(5) {
                    match (frame + j) % 6 {
                        0 => pool.positions_mut(c).expect("live")[2].y += 0.05,
                        1 => pool.prev_positions_mut(c).expect("live")[1].x -= 0.02,
                        2 => pool
                            .set_velocity(c, Vec3::new(0.0, 1.0, 0.5), h)
                            .expect("valid"),
                        3 => pool
                            .teleport(c, Vec3::new(0.1, 0.0, -0.05))
                            .expect("in range"),
                        4 => {
                            // Constants that keep the cable in its group.
                            let mut p = *pool.params(c).expect("live");
                            p.gravity_scale += 0.5;
                            p.damping = Some(0.1);
                            p.tethers = !p.tethers;
                            pool.set_params(c, p).expect("valid");
                        }
                        _ => pool.set_inv_mass(c, 1, 0.25).expect("valid"),
                    }
                }
                if frame == 5 {
                    // A change of key: the plan changes, one more full copy.
                    let mut p = *pool.params(handles[3]).expect("live");
                    p.compliance = 1.0e-4;
                    pool.set_params(handles[3], p).expect("valid");
                }
                st.run_substeps(&mut pool, 1);
            }
            if layout == Layout::Lanes8 {
                let w: &LanesWorld = st.layout_state().lanes();
                assert_eq!((w.lane_cables(), w.lane_groups()), (32, 5));
                // The first frame and the change of key copied the whole pool.
                assert_eq!(w.full_gathers(), 2);
            }
            pool.all_positions().to_vec()
        };
        let (want, got) = (run(Layout::Soa), run(Layout::Lanes8));
        assert!(same_bits(&got, &want), "lanes8 differs from soa");
    }

    /// The lanes lent to the pool between frames: frames nobody reads copy
    /// nothing (the pool stays lent), frames after a read write back in
    /// their own tasks, and every way of touching the pool in between (a
    /// read, a clone, an edit of particles, of parameters and masses
    /// without a read, a new cable, a removed one, moved targets) sees or
    /// keeps the newest state: the positions read after each frame are
    /// bitwise the one-lane layout's, which works in the pool itself.
    #[test]
    fn lent_lanes_match_the_one_lane_layout_however_the_pool_is_touched() {
        let run = |layout: Layout| {
            let (mut pool, handles, mut st) = rows_on_a_plane(40, 36, layout);
            let mut seen = Vec::new();
            let mut lent_after = Vec::new();
            for frame in 0..16 {
                st.run_substeps(&mut pool, 1);
                lent_after.push(pool.is_lent());
                match frame {
                    // Unread: the next frame finds the lanes still lent.
                    0 | 1 | 5 | 6 | 11 => continue,
                    // Parameters and masses edited without a read: the
                    // lanes write back before their bundle gathers again.
                    2 => {
                        let mut p = *pool.params(handles[3]).expect("live");
                        p.gravity_scale = 0.5;
                        pool.set_params(handles[3], p).expect("valid");
                        pool.set_inv_mass(handles[5], 2, 0.5).expect("valid");
                        continue;
                    }
                    // A particle edited: the edit reads the pool first.
                    3 => pool.positions_mut(handles[7]).expect("live")[2].y += 0.1,
                    // Moved targets alone: nothing read.
                    7 => {
                        let to = Some(Vec3::new(0.1, 0.2, 0.0));
                        pool.set_attachment(handles[0], End::Start, to)
                            .expect("live");
                        continue;
                    }
                    // A clone reads the pool, and steps on its own.
                    8 => {
                        let mut copy = pool.clone();
                        assert!(!copy.is_lent());
                        st.clone().run_substeps(&mut copy, 1);
                    }
                    // Structure: a removed cable and a new one.
                    9 => pool.remove_cable(handles[11]).expect("live"),
                    12 => {
                        let d = CableDesc::line(Vec3::Y, Vec3::new(2.0, 1.0, 0.0), 2.4, 6)
                            .expect("valid");
                        pool.add_cable(&d).expect("fits");
                    }
                    _ => {}
                }
                let all: Vec<Vec3> = (0..pool.cable_count())
                    .filter_map(|i| pool.cable(i))
                    .flat_map(|c| c.pos.to_vec())
                    .collect();
                seen.push(all);
            }
            seen.push(pool.all_positions().to_vec());
            if layout == Layout::Lanes8 {
                let w: &LanesWorld = st.layout_state().lanes();
                // Frames after a read or an edit of particles wrote back
                // in their tasks: 4, 5, 9, 10, 11, 13, 14, 15 (frame 8
                // comes after moved targets alone: nothing read).
                assert_eq!(w.eager_frames(), 8, "frames that wrote back in-task");
                // Frame 3 found parameters and masses edited while the
                // lanes were lent, and had them write back first.
                assert_eq!(w.write_backs(), 1);
                // Every frame lends the lanes (the reads after it then
                // copy them back, asserted bitwise below).
                assert!(lent_after.iter().all(|&l| l));
            }
            seen
        };
        let (want, got) = (run(Layout::Soa), run(Layout::Lanes8));
        assert_eq!(want.len(), got.len());
        for (k, (a, b)) in want.iter().zip(&got).enumerate() {
            assert!(same_bits(b, a), "lanes8 differs from soa at read {k}");
        }
    }

    /// `copy_positions` reads a lent pool where each cable lives, lane
    /// cables from their bundle and one-lane cables from the pool's
    /// columns: bitwise the one-lane layout's positions every frame, and
    /// the pool stays lent, so no frame writes back.
    #[test]
    fn copying_positions_reads_the_lanes_where_they_live() {
        let run = |layout: Layout| {
            // 38 short cables (lanes) and 2 long ones, too few for a
            // lane group (one-lane path).
            let (mut pool, handles, mut st) = rows_on_a_plane(40, 38, layout);
            let mut buf = Vec::new();
            let mut seen = Vec::new();
            for frame in 0..8 {
                st.run_substeps(&mut pool, 1);
                for &h in &handles {
                    pool.copy_positions(h, &mut buf).expect("live");
                    seen.push(buf.clone());
                }
                if layout == Layout::Lanes8 {
                    assert!(
                        pool.is_lent(),
                        "frame {frame}: a copy made the pool current"
                    );
                }
            }
            if layout == Layout::Lanes8 {
                let w: &LanesWorld = st.layout_state().lanes();
                assert!(
                    (1..handles.len()).contains(&w.lane_cables()),
                    "both paths: {} lane cables of {}",
                    w.lane_cables(),
                    handles.len()
                );
                assert_eq!(w.eager_frames(), 0, "a copy counted as a read");
                assert_eq!(w.write_backs(), 0);
            }
            seen
        };
        let (want, got) = (run(Layout::Soa), run(Layout::Lanes8));
        assert_eq!(want.len(), got.len());
        for (k, (a, b)) in want.iter().zip(&got).enumerate() {
            assert!(same_bits(b, a), "copy {k} differs from soa");
        }
    }

    /// Meshing a lent pool reads each cable where it lives: the same
    /// buffers as meshing it after a write-back, and the pool stays lent,
    /// so the next frame does not write back either.
    #[test]
    fn meshing_a_lent_pool_leaves_it_lent() {
        use cable_core::mesh::{MeshBuffers, MeshOptions};
        let (mut pool, _, mut st) = rows_on_a_plane(40, 38, Layout::Lanes8);
        let options = MeshOptions::default();
        let (mut lent, mut synced) = (MeshBuffers::new(), MeshBuffers::new());
        for _ in 0..3 {
            st.run_substeps(&mut pool, 1);
            // The same buffers before the build (each ring frame carries on
            // from the last build's).
            synced.clone_from(&lent);
            crate::mesh::build_meshes(&pool, &options, &mut lent).expect("fits");
            assert!(pool.is_lent(), "meshing made the pool current");
        }
        assert_eq!(st.layout_state().lanes().eager_frames(), 0);
        pool.sync_state();
        crate::mesh::build_meshes(&pool, &options, &mut synced).expect("fits");
        assert!(!lent.vertices.is_empty());
        assert_eq!(lent.points, pool.all_positions());
        assert_eq!(lent, synced);
    }

    /// Switching layouts while the lanes are lent and unread: the next
    /// layout works on the lanes' state (bitwise the one-lane layout's
    /// run), and the lent storage is freed.
    #[test]
    fn switching_layouts_takes_the_lent_state() {
        let run = |layouts: &[Layout]| {
            let mut pool = ParticlePool::new();
            for k in 0..16 {
                let z = k as f32 * 0.2;
                let d = CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(2.0, 0.0, z), 2.4, 6)
                    .expect("valid");
                pool.add_cable(&d).expect("fits");
            }
            let params = SolverParams {
                iterations: 3,
                ..SolverParams::default()
            };
            let mut st = Stepper::with_layout(params, layouts[0]).expect("valid");
            for &layout in layouts {
                st.set_layout(layout);
                st.run_substeps(&mut pool, 1);
                st.run_substeps(&mut pool, 1);
                assert_eq!(pool.is_lent(), layout == Layout::Lanes8);
                if layout != Layout::Lanes8 {
                    // The lanes' storage was dropped, not kept in the pool.
                    assert!(pool.reclaim_state().is_none());
                }
            }
            pool.all_positions().to_vec()
        };
        let want = run(&[Layout::Soa; 4]);
        let got = run(&[Layout::Lanes8, Layout::Soa, Layout::Lanes8, Layout::Aos]);
        assert!(
            same_bits(&got, &want),
            "a layout switch lost the lanes' state"
        );
    }

    /// Each bundle asks for its successor's rows ([`Held::plan_ahead`]):
    /// bundle `i`'s spans are bundle `i + 1`'s arrays, the last bundle's are
    /// empty, and the multipliers are among them exactly where the next
    /// bundle's substep uses them (compliant cables here). A hint pointed
    /// at the wrong bundle would change no result, so only this catches it.
    #[test]
    fn each_bundle_asks_for_the_next_ones_rows() {
        let mut pool = ParticlePool::new();
        // Three keys, three bundles: 8 rigid cables of 4 segments (one lane
        // group), 8 compliant of 5 (one), 32 rigid of 3 (four groups).
        for (k, (count, segs, compliance)) in [(8, 4, 0.0), (8, 5, 1.0e-3), (32, 3, 0.0)]
            .into_iter()
            .enumerate()
        {
            for c in 0..count {
                let z = (k * 40 + c) as f32 * 0.3;
                let (a, b) = (Vec3::new(0.0, 0.0, z), Vec3::new(2.0, 0.0, z));
                let mut d = CableDesc::line(a, b, 2.5, segs).expect("valid");
                d.params.compliance = compliance;
                pool.add_cable(&d).expect("fits");
            }
        }
        let mut st = Stepper::with_layout(SolverParams::default(), Layout::Lanes8).expect("valid");
        // Two frames: the second plans with the rows the first made.
        st.run_substeps(&mut pool, 1);
        st.run_substeps(&mut pool, 1);
        let back = pool.reclaim_state().expect("the lanes lent their state");
        let held: Box<Held> = back.holder.into_any().downcast().expect("a Held");
        assert_eq!(held.bundles.len(), 3, "three bundles");
        assert_eq!(held.next.len(), 3, "one hint per bundle");
        for (i, hint) in held.next.iter().enumerate() {
            let Some(b) = held.bundles.get(i + 1) else {
                assert_eq!(*hint, Spans::default(), "the last bundle asks for nothing");
                continue;
            };
            let (rows, soft) = each!(b, b => (b.rows.spans(true), b.key.soft));
            assert!(rows[0].1 > 0, "bundle {} has rows", i + 1);
            for (k, (&got, &want)) in hint.iter().zip(&rows).enumerate() {
                // The multipliers (the last span) only where used.
                let want = if k + 1 == SPANS && !soft {
                    (0, 0)
                } else {
                    want
                };
                assert_eq!(got, want, "bundle {i}'s hint, span {k}");
            }
        }
        // Not vacuous: one successor is compliant, one is not.
        let soft: Vec<bool> = held.bundles[1..]
            .iter()
            .map(|b| each!(b, b => b.key.soft))
            .collect();
        assert!(soft.contains(&true) && soft.contains(&false), "{soft:?}");
    }

    /// The AVX2 and AVX-512 paths (`unsafe` calls, in [`crate::simd::Wide::run`],
    /// for the kernel and the contact passes) and the baseline path give
    /// the same bits as the one-lane layout, with a bundle asking for the
    /// next one's rows (the third `unsafe` call, [`crate::simd::prefetch`]).
    /// Small enough for Miri, which passes it on every path (2026-11-26,
    /// 20:40 UTC, 1,727 s; under Miri a path is detected when the build
    /// enables its features, as below):
    ///
    /// ```sh
    /// RUSTFLAGS="-C target-feature=+avx2,+avx512f,+avx512vl" \
    /// MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks" \
    /// cargo +nightly miri test -p cable-systems --lib -- lanes::tests::every_simd_path simd::tests
    /// ```
    ///
    /// (`rustup component add --toolchain nightly miri rust-src` first.)
    /// Tree Borrows because Stacked Borrows stops in rayon's crossbeam-epoch
    /// first (a known report against that crate, not this code); leaks
    /// ignored because rayon's global pool outlives `main`.
    #[test]
    fn every_simd_path_matches_the_one_lane_layout() {
        let run = |layout: Layout| {
            let mut pool = ParticlePool::new();
            // Four keys (4 or 3 segments, rigid or compliant): the two of
            // 4 segments fill a lane group each, so two bundles, the first
            // asking for the second's rows (`Ahead`, `simd::prefetch`); the
            // other two have too few cables and run one lane each.
            for k in 0..10 {
                let z = k as f32 * 0.3;
                let segs = if k < 6 { 4 } else { 3 };
                let mut d =
                    CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(2.0, 0.0, z), 2.5, segs)
                        .expect("valid");
                d.params.compliance = if k % 2 == 0 { 0.0 } else { 1.0e-3 };
                pool.add_cable(&d).expect("fits");
            }
            // Every kind of contact pass: the plane (inlined into the
            // kernel), a sphere and a box through the cables
            // (`project_shape`, one copy per path) and a rod across them
            // (`uncross`, baseline only).
            let colliders = pool.colliders_mut();
            colliders.add(Collider::plane(Vec3::Y, -0.6).expect("valid"));
            colliders.add(Collider::sphere(Vec3::new(1.0, 0.05, 1.2), 0.1).expect("valid"));
            let (c, half) = (Vec3::new(1.5, -0.02, 0.6), Vec3::new(0.05, 0.05, 0.3));
            colliders.add(Collider::cuboid(c, half, glam::Quat::IDENTITY).expect("valid"));
            let (a, b) = (Vec3::new(0.5, -0.05, -0.1), Vec3::new(0.5, -0.05, 2.5));
            colliders.add(Collider::capsule(a, b, 0.04).expect("valid"));
            let params = SolverParams {
                iterations: 2,
                friction: 0.3,
                ..SolverParams::default()
            };
            let mut st = Stepper::with_layout(params, layout).expect("valid");
            // Two frames: the second asks for rows made in the first.
            let asked = simd::PREFETCHES.load(std::sync::atomic::Ordering::Relaxed);
            st.run_substeps(&mut pool, 2);
            st.run_substeps(&mut pool, 2);
            if layout == Layout::Lanes8 {
                let w = st.layout_state().lanes();
                assert_eq!((w.lane_cables(), w.lane_groups()), (6, 2), "two bundles");
                let now = simd::PREFETCHES.load(std::sync::atomic::Ordering::Relaxed);
                assert!(now > asked, "no bundle asked for the next one's rows");
            }
            let moved = pool.all_positions().iter().filter(|p| p.y > 0.0).count();
            assert!(
                moved > 0,
                "no particle was pushed up by the sphere or the box"
            );
            pool.all_positions().to_vec()
        };
        let want = run(Layout::Soa);
        let _one_at_a_time = simd::tests::FORCING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for path in simd::available() {
            simd::force(Some(path));
            let got = run(Layout::Lanes8);
            simd::force(None);
            assert!(same_bits(&got, &want), "{path:?} differs from soa");
        }
    }
}
