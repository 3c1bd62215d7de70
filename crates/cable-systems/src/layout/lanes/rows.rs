//! The particle state of a bundle in lane rows ([`Rows`]): row `r` holds
//! particle `r` of each lane's cable, with the per-row constants and the
//! prefetching of rows ahead; the kernel's [`Store`] over them.

use crate::kernel::lane::{Fx, Mask, Mx, V3};
use crate::kernel::{Rigid, Soft, Store};

/// [`Rows::anchor_u`] of a row whose lanes have different anchors.
pub(super) const MIXED: u32 = u32::MAX;

/// The particle state of a bundle of `W` lanes: row `r` holds particle `r`
/// of each of the `W` cables.
#[derive(Clone, Debug, Default)]
pub struct Rows<const W: usize> {
    pub(super) pos: Vec<V3<Fx<W>>>,
    pub(super) prev: Vec<V3<Fx<W>>>,
    pub(super) carry: Vec<V3<Fx<W>>>,
    pub(super) carry_prev: Vec<V3<Fx<W>>>,
    /// The lanes whose `carry_prev` may be other than zero
    /// ([`Store::carry_prev_live`]).
    pub(super) carry_prev_live: Mx<W>,
    pub(super) w: Vec<Fx<W>>,
    pub(super) free: Col<Mx<W>>,
    /// Distance (index 0) and bending (index 1) constraints, rigid.
    pub(super) rigid: [Col<Rigid<Fx<W>>>; 2],
    /// Distance and bending constraints, compliant.
    pub(super) soft: [Col<Soft<Fx<W>>>; 2],
    pub(super) lambda: [Vec<Fx<W>>; 2],
    /// Per side: each lane's tether anchor row.
    pub(super) anchor: [Vec<[u32; W]>; 2],
    /// Per side: the anchor row when every lane with a tether has the same
    /// one (the usual case: attached ends), else [`MIXED`].
    pub(super) anchor_u: [Vec<u32>; 2],
    /// Per side: tether reach, metres.
    pub(super) reach: [Vec<Fx<W>>; 2],
    /// Per side: lanes with a tether.
    pub(super) tether_m: [Vec<Mx<W>>; 2],
    /// Rest curvature, compliance and lanes of the curvature constraints.
    pub(super) curv: Vec<(Fx<W>, Fx<W>, Mx<W>)>,
    /// Row multipliers (tethers, curvature).
    pub(super) lrow: [Vec<Fx<W>>; 3],
    /// The next bundle's rows, asked for while this one solves.
    pub(super) ahead: Ahead,
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
pub struct Col<T> {
    pub(super) v: Vec<T>,
    /// Entries `mid..=end` are entry `mid` ([`usize::MAX`]: kept whole).
    pub(super) mid: usize,
    pub(super) end: usize,
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
    pub fn get(&self, i: usize) -> T {
        // Whole: `i`. Three entries: 0 for 0, 1 for `1..=end`, then 2.
        self.v[i.min(self.mid) + i.saturating_sub(self.end)]
    }

    /// Empties the column, kept whole, for [`Col::push`]es and a [`Col::pack`].
    pub(super) fn clear(&mut self) {
        self.v.clear();
        (self.mid, self.end) = (usize::MAX, usize::MAX);
    }

    /// Appends entry `v` (before [`Col::pack`]).
    pub fn push(&mut self, v: T) {
        self.v.push(v);
    }

    /// Keeps three entries when every entry between the first and the last
    /// is bitwise the same; else the column stays whole.
    pub fn pack(&mut self) {
        let n = self.v.len();
        if n > 3 && self.v[2..n - 1].iter().all(|e| e.same(&self.v[1])) {
            self.v[2] = self.v[n - 1];
            self.v.truncate(3);
            (self.mid, self.end) = (1, n - 2);
        }
    }

    /// The stored entries (what a substep reads from memory).
    pub fn stored(&self) -> &[T] {
        &self.v
    }
}

/// Bitwise equality of lane values (`-0` is not `+0`), for [`Col::pack`].
pub trait SameBits {
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
pub const SPANS: usize = 8;

/// The memory a bundle's substep first touches, as `(address, bytes)`
/// of its row arrays (unused entries empty): what the bundle before it
/// asks the CPU for ([`Ahead`]).
pub type Spans = [(usize, usize); SPANS];

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
/// lines, the two overlap. Since every block runs its iterations as a
/// wavefront the kernel solves a substep about as fast as the rows
/// arrive, and a frame of one substep is bound by their first touch: at
/// 10,000 cables they sit in the L3 cache, not the L2, and part of the
/// kernel's time waits on this prefetch (the measurements are in
/// `docs/performance-history.md`; how to profile, in
/// `docs/guide/profiling.md`). Packed constants ([`Col`]) leave fewer rows
/// to ask for.
#[derive(Clone, Debug, Default)]
pub struct Ahead {
    pub(super) spans: Spans,
    /// The span and byte offset of the next line to ask for.
    pub(super) span: usize,
    pub(super) off: usize,
    /// Lines per call; 0: nothing to ask for.
    pub(super) per_call: usize,
}

impl Ahead {
    /// Asks for the lines of `spans`, `calls` calls of [`Ahead::step`] from now.
    pub fn new(spans: &Spans, calls: usize) -> Self {
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
    pub fn step_with(&mut self, mut f: impl FnMut(usize)) {
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
    pub(super) fn step(&mut self) {
        self.step_with(crate::simd::prefetch);
    }
}

/// Bytes per cache line.
pub const LINE: usize = 64;

impl<const W: usize> Rows<W> {
    /// The free masks and distance constants are packed ([`Col::pack`]).
    #[cfg(feature = "internals")]
    pub fn packed(&self) -> bool {
        self.free.stored().len() < self.pos.len()
            && (self.rigid[0].stored().len() + self.soft[0].stored().len()) < self.pos.len() - 1
    }

    /// What a substep of these rows first touches, where it is (see
    /// [`Spans`]): the particle state, the distance constraints and, if
    /// the substep uses them (`multipliers`), their multipliers.
    pub fn spans(&self, multipliers: bool) -> Spans {
        fn span<T>(v: &[T]) -> (usize, usize) {
            (v.as_ptr().addr(), std::mem::size_of_val(v))
        }
        [
            span(&self.pos),
            span(&self.prev),
            span(&self.carry),
            if self.carry_prev_live.any() {
                span(&self.carry_prev)
            } else {
                (0, 0)
            },
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
    fn carry_prev(&self, i: usize) -> V3<Fx<W>> {
        self.carry_prev[i]
    }
    #[inline(always)]
    fn set_carry_prev(&mut self, i: usize, c: V3<Fx<W>>) {
        self.carry_prev[i] = c;
    }
    #[inline(always)]
    fn carry_prev_live(&self) -> Mx<W> {
        self.carry_prev_live
    }
    #[inline(always)]
    fn set_carry_prev_live(&mut self, m: Mx<W>) {
        self.carry_prev_live = m;
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
