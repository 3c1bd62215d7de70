//! A bundle of lane groups ([`Bundle`]): gathered from the pool, run
//! through the kernel, and scattered back to the per-cable views.

use std::ops::Range;

use cable_core::{CableMut, NO_ANCHOR, ParticleState};
use glam::Vec3;

use super::{
    plan::{Key, SCALAR},
    rows::{Ahead, MIXED, Rows, Spans},
};
use crate::kernel::lane::{Fx, Lane, Mask, Mx, V3};
use crate::kernel::{self, Block, Rigid, Scratch, Shared, Soft};
use crate::params::SolverParams;

/// One bundle of `W` lanes: up to `W / 8` lane groups of one key.
#[derive(Clone, Debug, Default)]
pub struct Bundle<const W: usize> {
    /// What its cables share: the plan's grouping key.
    pub key: Key,
    /// Cable index of each lane, [`SCALAR`] for padding.
    pub(super) cables: Vec<u32>,
    /// The pool row of each lane's first particle, [`SCALAR`] for padding
    /// (where [`Held::write_back`] copies the lane to).
    pub(super) at: Vec<u32>,
    /// The lanes' particle rows and constants.
    pub rows: Rows<W>,
    pub(super) block: Block<Fx<W>>,
    pub(super) scratch: Scratch<Fx<W>>,
    /// Lanes (bit `lane`) whose cable's particle state alone was edited in
    /// the pool since the last write-back ([`Bundle::gather_state`]).
    pub(super) stale: u32,
    /// Some cable's constants (parameters, masses) changed, its key did
    /// not: the bundle gathers again, the rest of the pool does not.
    pub(super) regather: bool,
}

impl<const W: usize> Bundle<W> {
    /// Lane `lane`'s positions into `out`, one per row.
    pub(super) fn copy_lane(&self, lane: usize, out: &mut [Vec3]) {
        for (o, p) in out.iter_mut().zip(&self.rows.pos) {
            *o = p.lane(lane);
        }
    }

    /// Copies the particle state (positions, previous positions, carries) of
    /// the `stale` lanes from their views: a cable edited alone
    /// ([`ParticlePool::state_edits_since`]) costs its own rows, not a
    /// gather of the whole pool.
    ///
    /// With `direct` (the direct solver), the distance multipliers too:
    /// they are its warm start, part of the state.
    pub(super) fn gather_state(&mut self, views: &[Option<CableMut<'_>>], direct: bool) {
        let r = &mut self.rows;
        for (lane, c) in views.iter().take(W).enumerate() {
            let Some(c) = c.as_ref().filter(|_| self.stale & (1 << lane) != 0) else {
                continue;
            };
            for row in 0..r.pos.len() {
                r.pos[row].set_lane(lane, c.pos[row]);
                r.prev[row].set_lane(lane, c.prev[row]);
                r.carry[row].set_lane(lane, c.carry[row]);
                r.carry_prev[row].set_lane(lane, c.carry_prev[row]);
            }
            r.carry_prev_live.set_lane(lane, live(&c.carry_prev[..]));
            if direct {
                for (row, l) in r.lambda[0].iter_mut().enumerate() {
                    l.set_lane(lane, c.lambda[row]);
                }
            }
        }
        self.stale = 0;
    }

    /// Copies the bundle's cables from their views (`views[lane]`, `None`
    /// for padding) and derives the constants.
    pub(super) fn gather(&mut self, views: &[Option<CableMut<'_>>], params: &SolverParams) {
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
        r.carry_prev.clear();
        r.carry_prev.resize(n, V3::zero());
        for row in 0..n {
            let p = V3::new(Fx::splat(row as f32), Fx::splat(0.0), Fx::splat(0.0));
            r.pos.push(p);
            r.prev.push(p);
        }
        r.w.clear();
        r.w.resize(n, Fx::splat(0.0));
        r.free.clear();
        self.block = Block::default();
        r.carry_prev_live = Mx::splat(false);
        for (lane, c) in lanes() {
            r.carry_prev_live.set_lane(lane, live(c.carry_prev));
            for row in 0..n {
                r.pos[row].set_lane(lane, c.pos[row]);
                r.prev[row].set_lane(lane, c.prev[row]);
                r.carry[row].set_lane(lane, c.carry[row]);
                r.carry_prev[row].set_lane(lane, c.carry_prev[row]);
                r.w[row].set_lane(lane, c.inv_mass[row]);
            }
            self.block.set_lane(lane, c.params, c.attach, c.clamp, c.slip, n, params);
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
        if params.solver == crate::params::Solver::Direct {
            // The direct solver's multipliers are its warm start, part of
            // the state (the other solvers reset theirs every substep).
            for (lane, c) in views.iter().take(W).enumerate() {
                let Some(c) = c.as_ref() else { continue };
                for (row, l) in r.lambda[0].iter_mut().enumerate() {
                    l.set_lane(lane, c.lambda[row]);
                }
            }
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
    pub(super) fn refresh_targets(&mut self, views: &[Option<CableMut<'_>>]) {
        for (lane, c) in views.iter().take(W).enumerate() {
            if let Some(c) = c {
                self.block.set_targets(lane, c.attach);
            }
        }
    }

    /// Runs `n` substeps (inlined into each SIMD path of [`Bundle::run`]).
    #[inline(always)]
    pub(super) fn run_inline(&mut self, sh: &Shared<'_>, n: u32, next: &Spans) {
        // The block of this frame: the bundle's, with its far lanes'
        // attachment targets in local coordinates (`kernel::begin_frame`).
        let mut b = self.block;
        let held = kernel::begin_frame(&mut self.rows, &mut b, sh, n);
        for k in 0..n {
            if k + 1 == n {
                // The last substep asks for the next bundle's rows.
                let calls = self.key.iterations as usize * self.key.segs;
                self.rows.ahead = Ahead::new(next, calls);
            }
            kernel::substep(&mut self.rows, &b, sh, &mut self.scratch);
        }
        kernel::end_frame(&mut self.rows, held);
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
    ///
    /// Unoptimised builds (`cable_unoptimized`, set by `build.rs` at
    /// `opt-level = 0`) keep every temporary of the inlined kernel in its
    /// own stack slot: a 32-lane substep then needs about 2 MB of stack,
    /// more than a rayon worker's 2 MiB. There the substeps run on a stack
    /// grown for them when less than [`UNOPTIMIZED_RED_ZONE`] is left.
    pub(super) fn run(&mut self, sh: &Shared<'_>, n: u32, next: &Spans) {
        #[cfg(cable_unoptimized)]
        stacker::maybe_grow(UNOPTIMIZED_RED_ZONE, UNOPTIMIZED_STACK, || {
            self.run_on_this_stack(sh, n, next);
        });
        #[cfg(not(cable_unoptimized))]
        self.run_on_this_stack(sh, n, next);
    }

    #[inline(always)]
    fn run_on_this_stack(&mut self, sh: &Shared<'_>, n: u32, next: &Spans) {
        match sh.wide {
            Some(wide) => wide.run(
                #[inline(always)]
                || self.run_inline(sh, n, next),
            ),
            None => self.run_inline(sh, n, next),
        }
    }

    /// Copies every lane's particles, and with `track` (tension tracked,
    /// or the direct solver, whose multipliers are state) the multipliers,
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
    /// misses in flight (which shortens a frame that writes back every
    /// substep, see `docs/performance-history.md`).
    #[inline(never)]
    pub(super) fn scatter(&self, dst: &mut impl Dst, track: bool) {
        let r = &self.rows;
        let n = r.pos.len();
        let mut buf = [[[Vec3::ZERO; SCATTER_ROWS]; W]; 4];
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
            let cols = [&r.pos, &r.prev, &r.carry, &r.carry_prev];
            for (buf, col) in buf.iter_mut().zip(cols) {
                for (i, v) in col[rows.clone()].iter().enumerate() {
                    // Four lanes at a time (bundles are 8 or 32 wide):
                    // three 4-wide loads, then four `Vec3`s. Lane by lane,
                    // each coordinate was a load of its own; this takes a
                    // frame of one substep to 0.94x the time (2,000 cables
                    // on one thread and the 10,000-cable bench, paired).
                    const { assert!(W.is_multiple_of(4), "a bundle is a whole number of fours") };
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
    pub(super) fn frame(
        &mut self,
        views: &mut [Option<CableMut<'_>>],
        f: &Frame<'_, '_>,
        next: &Spans,
    ) {
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
            self.gather_state(views, sh.direct);
        }
        self.run(sh, n, next);
        // Lane `l` is the cable of `views[l]` (as `Bundle::gather` read them).
        self.scratch.contacts.report_touches(sh.colliders, |l| {
            views.get(l).and_then(Option::as_ref).map(|c| c.handle)
        });
        if eager {
            // While the rows are hot, on this task.
            self.scatter(&mut LaneViews(views), sh.track || sh.direct);
        }
    }
}

/// True when some carry of a previous position in `carry_prev` is other
/// than zero (its bits: a −0 counts), what [`Store::carry_prev_live`]
/// says of a lane.
fn live(carry_prev: &[Vec3]) -> bool {
    carry_prev
        .iter()
        .any(|c| c.to_array().iter().any(|x| x.to_bits() != 0))
}

/// Where [`Bundle::scatter`] copies lane `lane` of a bundle: its cable's
/// rows of the pool's state.
pub(super) trait Dst {
    /// Rows `rows` of the lane's positions, previous positions and
    /// carries; `None` for a padding lane.
    fn rows(&mut self, lane: usize, rows: Range<usize>) -> Option<[&mut [Vec3]; 4]>;
    /// The lane's `n` distance and row multipliers; `None` for padding.
    fn multipliers(&mut self, lane: usize, n: usize) -> Option<(&mut [f32], &mut [[f32; 3]])>;
}

/// A bundle's cables' views, lane by lane (`None` for padding).
pub(super) struct LaneViews<'a, 'b>(pub(super) &'a mut [Option<CableMut<'b>>]);

impl Dst for LaneViews<'_, '_> {
    fn rows(&mut self, lane: usize, rows: Range<usize>) -> Option<[&mut [Vec3]; 4]> {
        let c = self.0.get_mut(lane)?.as_mut()?;
        Some([
            &mut c.pos[rows.clone()],
            &mut c.prev[rows.clone()],
            &mut c.carry[rows.clone()],
            &mut c.carry_prev[rows],
        ])
    }
    fn multipliers(&mut self, lane: usize, _: usize) -> Option<(&mut [f32], &mut [[f32; 3]])> {
        let c = self.0.get_mut(lane)?.as_mut()?;
        Some((&mut *c.lambda, &mut *c.lambda_row))
    }
}

/// The pool's state columns and the first row of each lane's cable
/// ([`Bundle::at`], [`SCALAR`] for padding).
pub(super) struct PoolRows<'a> {
    pub(super) st: &'a mut ParticleState,
    pub(super) at: &'a [u32],
}

impl Dst for PoolRows<'_> {
    fn rows(&mut self, lane: usize, rows: Range<usize>) -> Option<[&mut [Vec3]; 4]> {
        let a = *self.at.get(lane).filter(|&&a| a != SCALAR)? as usize;
        let rows = a + rows.start..a + rows.end;
        let st = &mut *self.st;
        Some([
            &mut st.pos[rows.clone()],
            &mut st.prev[rows.clone()],
            &mut st.carry[rows.clone()],
            &mut st.carry_prev[rows],
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
pub(super) struct Frame<'a, 'b> {
    pub(super) refresh: Refresh,
    pub(super) params: &'a SolverParams,
    pub(super) sh: &'a Shared<'b>,
    /// Substeps.
    pub(super) n: u32,
    /// Write back to the views after the substeps.
    pub(super) eager: bool,
}

/// What a bundle must copy from the pool before its substeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refresh {
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
pub enum AnyBundle {
    /// One group of 8 lanes.
    One(Bundle<8>),
    /// Up to four groups, 32 lanes.
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
pub(super) use each;

impl AnyBundle {
    pub(super) fn with_groups(groups: usize) -> Self {
        match groups {
            1 => Self::One(Bundle::default()),
            _ => Self::Four(Bundle::default()),
        }
    }
    pub(super) fn width(&self) -> usize {
        each!(self, b => b.cables.len())
    }
}

/// Stack an unoptimised build leaves free before [`Bundle::run`] runs
/// the substeps on a stack of their own: at `opt-level = 0` a 32-lane
/// bundle's substep takes about 1.8 MB (the AVX-512 path's frame), 4–5 MB
/// with the contact passes it calls.
#[cfg(cable_unoptimized)]
const UNOPTIMIZED_RED_ZONE: usize = 8 << 20;

/// The stack [`Bundle::run`] grows to in an unoptimised build (reserved,
/// not committed: only the pages it touches cost memory).
#[cfg(cable_unoptimized)]
const UNOPTIMIZED_STACK: usize = 64 << 20;

/// Rows per block of [`Bundle::scatter`]: 8 rows of a lane are 96 bytes,
/// a copy of constant length (a few wide stores).
pub(super) const SCATTER_ROWS: usize = 8;
