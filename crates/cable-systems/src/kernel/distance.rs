//! The distance constraints: the rigid and the compliant (XPBD)
//! projection of one segment, and the sweeps that run them along a
//! cable, alone or as a wavefront of several sweeps.

use cable_core::MIN_SEGMENT_LENGTH;

use crate::kernel::lane::{Lane, Mask, V3};
use crate::kernel::store::{Block, Rigid, Soft, Store};

/// The distance constraints of [`sweeps_wavefront`]: rigid.
pub(super) const RIGID: u8 = 0;
/// Rigid, each segment's multiplier accumulated (tension).
pub(super) const TRACKED: u8 = 1;
/// Compliant (XPBD), with their multipliers.
pub(super) const SOFT: u8 = 2;

/// The classic rigid projection of |b − a| = rest (UE's
/// `SolveDistanceConstraint`): both particles move along their difference,
/// shared by inverse mass; skipped for a segment shorter than
/// [`MIN_SEGMENT_LENGTH`]. `a − d·(−ka·err)` is `a + d·(ka·err)` exactly.
///
/// The masks act on the one factor `err`, not on the two displacements:
/// an end that does not move has a weight of zero ([`Rigid::moves`]) and a
/// skipped segment an `err` of `+0`, so its displacement is a zero, and
/// subtracting it leaves every value as it is. (Only the sign of a zero
/// may change: a coordinate of exactly `−0` can become `+0`. And a pinned
/// end next to a particle that is already NaN or infinite takes the NaN
/// too, which three masks per end would keep out.) Six fewer mask
/// operations per lane group and projection than masking the
/// displacements: the 32-lane sweep runs out of registers, and each mask
/// operation costs spills too (figures in `docs/performance-history.md`).
#[inline(always)]
pub fn project_rigid<L: Lane>(a: &mut V3<L>, b: &mut V3<L>, c: &Rigid<L>) {
    let d = *b - *a;
    let len = d.length();
    let live = !len.le(L::splat(MIN_SEGMENT_LENGTH));
    let err = ((len - c.rest) / len).keep(live);
    *a = *a - d.scale(c.nka * err);
    *b = *b - d.scale(c.kb * err);
}

/// The XPBD projection (Macklin et al. 2016) with multiplier `lambda`:
/// `Δλ = (−C − α̃λ) / (wa + wb + α̃)` with `C = |b − a| − rest`, then
/// `a ← a − wa·Δλ·n`, `b ← b + wb·Δλ·n` along `n = (b − a)/|b − a|`;
/// skipped (λ and both ends unchanged) for a segment shorter than
/// [`MIN_SEGMENT_LENGTH`] or with two pinned ends.
///
/// As in [`project_rigid`], the displacement is `d·(w·k)` with the one
/// factor `k = Δλ/|d|` masked, rather than the unit vector `n` formed with
/// three divisions and each end's displacement masked: two divisions per
/// projection instead of four, and five mask operations fewer. The values
/// are those of the textbook form to rounding (a kernel test checks them
/// against it in `f64`), not its bits: the golden hashes of the scenes
/// with compliant constraints are those of this form. A skipped lane's
/// `k` is `+0`, so its ends keep their values (a `−0` coordinate may
/// become `+0`; a pinned end next to a NaN or infinite particle takes the
/// NaN, as in [`project_rigid`]).
#[inline(always)]
pub fn project_soft<L: Lane>(
    a: &mut V3<L>,
    b: &mut V3<L>,
    c: &Soft<L>,
    alpha_t: L,
    lambda: &mut L,
) {
    let d = *b - *a;
    let len = d.length();
    let m = !len.le(L::splat(MIN_SEGMENT_LENGTH)) & c.m;
    let dl = ((len - c.rest).neg() - alpha_t * *lambda) / c.denom;
    *lambda = L::select(m, *lambda + dl, *lambda);
    // Masked after the division: a skipped segment's `len` may be 0.
    let k = (dl / len).keep(m);
    *a = *a - d.scale(c.wa * k);
    *b = *b - d.scale(c.nwb * k);
}

/// One rigid distance sweep; the moving end of each segment stays in
/// registers for the next one.
#[inline(always)]
pub(super) fn sweep_rigid<L: Lane, S: Store<L>>(s: &mut S) {
    let segs = s.rows() - 1;
    let mut a = s.pos(0);
    for i in 0..segs {
        s.ahead();
        let mut b = s.pos(i + 1);
        project_rigid(&mut a, &mut b, &s.rigid(i, 1));
        s.set_pos(i, a);
        a = b;
    }
    s.set_pos(segs, a);
}

/// Lag, in segments, of each sweep behind the one before it in
/// [`sweeps_wavefront`].
pub(super) const WAVEFRONT_LAG: usize = 2;

/// `k` distance sweeps of kind `KIND` (plain rigid, [`sweep_rigid`];
/// rigid with tension, [`sweep_rigid_tracked`]; compliant,
/// [`sweep_soft`] of span 1), one after another, run as a wavefront:
/// sweep `j + 1` projects segment `i` in the same step as sweep `j`
/// projects segment `i + 2`. A segment's multiplier is read and written
/// by that segment's projections alone, which come in sweep order.
///
/// Sweep `j + 1` at segment `i` reads particles `i` and `i + 1`, whose last
/// change by sweep `j` was at segment `i + 1`, one step before; the
/// projections of one step touch disjoint particles. So every projection
/// sees exactly the values it sees when the sweeps run one after another,
/// and the result is bitwise theirs — while the `k` chains of one step
/// (a square root and a division each) are independent, and the CPU
/// overlaps them: a lone long cable is latency bound otherwise, and so is
/// a 32-lane block, whose lanes make only two chains of 16 on the AVX-512
/// path (LLVM packs them in 512-bit registers) and four of 8 on AVX2; so
/// blocks of every width run their sweeps as a wavefront (what it gained
/// per SIMD path is in `docs/performance-history.md`). (A lag of
/// one segment would be as exact, the projections of a step running in
/// sweep order, but each would wait for the one before it.) The layout
/// tests and the golden hashes fail if the order is wrong (checked by
/// running a step's sweeps in reverse order at lag one).
#[inline(always)]
pub(super) fn sweeps_wavefront<L: Lane, S: Store<L>, const KIND: u8>(
    s: &mut S,
    k: usize,
    alpha_t: L,
) {
    let segs = s.rows() - 1;
    if k == 0 || segs == 0 {
        return;
    }
    for step in 0..segs + WAVEFRONT_LAG * (k - 1) {
        // Sweep j is at segment step − LAG·j: the first sweeps may have
        // finished (i ≥ segs), the last may not have started (step < LAG·j).
        let first = (step + 1).saturating_sub(segs).div_ceil(WAVEFRONT_LAG);
        for j in first..k {
            let Some(i) = step.checked_sub(WAVEFRONT_LAG * j) else {
                break;
            };
            s.ahead();
            let (mut a, mut b) = (s.pos(i), s.pos(i + 1));
            // Segment i's sweeps come in order (j at step i + LAG·j), so
            // its multiplier sums them, or the next reads it, in order.
            if KIND == SOFT {
                project_soft_at(s, 1, i, &mut a, &mut b, alpha_t);
            } else {
                let c = s.rigid(i, 1);
                if KIND == TRACKED {
                    track_rigid(s, i, a, b, &c);
                }
                project_rigid(&mut a, &mut b, &c);
            }
            s.set_pos(i, a);
            s.set_pos(i + 1, b);
        }
    }
}

/// [`sweep_rigid`] that also accumulates each segment's multiplier
/// `−(len − rest) / (wa + wb)` (PBD is XPBD with zero compliance), for
/// tension.
#[inline(always)]
pub(super) fn sweep_rigid_tracked<L: Lane, S: Store<L>>(s: &mut S) {
    let segs = s.rows() - 1;
    let mut a = s.pos(0);
    for i in 0..segs {
        s.ahead();
        let mut b = s.pos(i + 1);
        let c = s.rigid(i, 1);
        track_rigid(s, i, a, b, &c);
        project_rigid(&mut a, &mut b, &c);
        s.set_pos(i, a);
        a = b;
    }
    s.set_pos(segs, a);
}

/// Adds to segment `i`'s multiplier the `−(len − rest) / (wa + wb)` of its
/// projection from particles `a`, `b` (before it), with constants `c`.
#[inline(always)]
pub(super) fn track_rigid<L: Lane, S: Store<L>>(
    s: &mut S,
    i: usize,
    a: V3<L>,
    b: V3<L>,
    c: &Rigid<L>,
) {
    let d = b - a;
    let len = d.length();
    let (ma, mb) = c.moves();
    let live = !len.le(L::splat(MIN_SEGMENT_LENGTH)) & (ma | mb);
    let dl = (len - c.rest).neg() / (s.w(i) + s.w(i + 1));
    let l = s.lambda(1, i);
    s.set_lambda(1, i, L::select(live, l + dl, l));
}

/// Holds the segment at each winch that may slip ([`Block::slip_m`]) at
/// its slip tension: where the segment's multiplier went beyond
/// [`Block::slip_lambda`] (its projections pulled harder than the winch
/// holds), its ends move back apart by the excess `Δλ` (XPBD's
/// displacement, `w·Δλ` along the segment) and the multiplier is set to
/// the bound. What the segment is then stretched beyond its rest length
/// is the rope the winch gives
/// ([`cable_core::ParticlePool::turn_winch`] pays it out after the
/// substep). Part of the solve, the bound cannot be overshot the way a
/// drum driven by the tension of the substep before is.
///
/// The Gauss-Seidel sweeps hold a segment right after projecting it
/// ([`sweep_slip`]), so the segments after it see the held particle; the
/// direct solver makes a slipping segment's row a force of that tension
/// in its system (`kernel::rod`).
#[inline(always)]
fn hold_slip_at<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>, slot: usize, i: usize) {
    let m = b.slip_m[slot];
    if !m.any() {
        return;
    }
    let l = s.lambda(1, i);
    let over = m & l.lt(b.slip_lambda);
    if !over.any() {
        return;
    }
    let (a, c) = (s.pos(i), s.pos(i + 1));
    let d = c - a;
    let len = d.length();
    let on = over & !len.le(L::splat(MIN_SEGMENT_LENGTH));
    let k = ((b.slip_lambda - l) / len).keep(on);
    s.set_pos(i, a - d.scale(s.w(i) * k));
    s.set_pos(i + 1, c + d.scale(s.w(i + 1) * k));
    s.set_lambda(1, i, L::select(on, b.slip_lambda, l));
}

/// One distance sweep of a block with a winch that may slip: rigid with
/// its multipliers tracked, or compliant (`soft`), each winch segment
/// held at its slip tension right after its projection
/// ([`hold_slip_at`]). Bit for bit [`sweep_rigid_tracked`] or
/// [`sweep_soft`] in the lanes whose segment is not over its bound.
#[inline(always)]
pub(crate) fn sweep_slip<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>, soft: bool) {
    let segs = s.rows() - 1;
    for i in 0..segs {
        s.ahead();
        let (mut a, mut c) = (s.pos(i), s.pos(i + 1));
        if soft {
            project_soft_at(s, 1, i, &mut a, &mut c, b.alpha_t);
        } else {
            let k = s.rigid(i, 1);
            track_rigid(s, i, a, c, &k);
            project_rigid(&mut a, &mut c, &k);
        }
        s.set_pos(i, a);
        s.set_pos(i + 1, c);
        if i == 0 {
            hold_slip_at(s, b, 0, i);
        }
        if i + 1 == segs {
            hold_slip_at(s, b, 1, i);
        }
    }
}

/// One rigid bending sweep (particles i and i + 2).
#[inline(always)]
pub(super) fn bend_rigid<L: Lane, S: Store<L>>(s: &mut S) {
    for i in 0..s.rows() - 2 {
        let (mut a, mut b) = (s.pos(i), s.pos(i + 2));
        project_rigid(&mut a, &mut b, &s.rigid(i, 2));
        s.set_pos(i, a);
        s.set_pos(i + 2, b);
    }
}

/// One compliant sweep of the constraints between i and i + `span`.
#[inline(always)]
pub(super) fn sweep_soft<L: Lane, S: Store<L>>(s: &mut S, span: usize, alpha_t: L) {
    for i in 0..s.rows() - span {
        s.ahead();
        let (mut a, mut b) = (s.pos(i), s.pos(i + span));
        project_soft_at(s, span, i, &mut a, &mut b, alpha_t);
        s.set_pos(i, a);
        s.set_pos(i + span, b);
    }
}

/// [`project_soft`] of constraint `i` of `span` on its particles `a`, `b`,
/// with the multiplier it keeps in the store.
#[inline(always)]
pub(super) fn project_soft_at<L: Lane, S: Store<L>>(
    s: &mut S,
    span: usize,
    i: usize,
    a: &mut V3<L>,
    b: &mut V3<L>,
    alpha_t: L,
) {
    let mut l = s.lambda(span, i);
    project_soft(a, b, &s.soft(i, span, alpha_t), alpha_t, &mut l);
    s.set_lambda(span, i, l);
}

/// How much farther apart (relative) than the rope between them reaches
/// two pinned particles of a rigid cable may be before [`crate::kernel::rod::solve_direct`]
/// gives up its Newton step for Gauss-Seidel's (`overstretched`).
pub const OVERSTRETCH: f32 = 1.0e-3;

/// The lanes of a rigid cable (not compliant) in which two pinned
/// particles, joined by live segments (none torn, none a winch's that may
/// slip), are farther apart than [`OVERSTRETCH`] beyond the rest length
/// between them: constraints that cannot all hold, whose Newton steps
/// grew the multipliers without bound (a 2 m rope between pins pulled
/// 2.5 m apart: 1.3·10⁸ N, particles thrown 0.37 m a frame). The direct solver
/// takes Gauss-Seidel's sweep for them (its fall-back iteration), which stretches
/// the rope between the pins as a projection does, with a finite
/// tension, until the pins come back within reach. Decided per lane from
/// the lane's own cable, so the layouts agree bit for bit.
#[inline(always)]
pub(crate) fn overstretched<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>) -> L::M {
    let none = L::M::splat(false);
    if b.soft {
        return none;
    }
    let np = s.rows();
    let slack = L::splat(1.0 + OVERSTRETCH);
    let mut over = none;
    // Per lane: the last pinned particle of the live run so far, and the
    // rest length from it.
    let mut anchor = s.pos(0);
    let mut held = !s.free(0);
    let mut rest = L::splat(0.0);
    for j in 0..np - 1 {
        let c = s.rigid(j, 1);
        let (ma, mb) = c.moves();
        let slips = match (j == 0, j + 2 == np) {
            (true, true) => b.slip_m[0] | b.slip_m[1],
            (true, false) => b.slip_m[0],
            (false, true) => b.slip_m[1],
            (false, false) => none,
        };
        let live = (ma | mb) & !slips;
        rest = rest + c.rest;
        let p = s.pos(j + 1);
        let pin = !s.free(j + 1);
        let far = (p - anchor).length().gt(rest * slack);
        over = over | (held & live & pin & far);
        // A pin starts a new run; a dead segment ends the run.
        held = (held & live) | pin;
        anchor = V3::select(pin, p, anchor);
        rest = rest.keep(!pin);
    }
    over
}
