//! The rod constraints of the one kernel beyond the classic distance sweep:
//! tethers (long-range attachments), curvature (bending in physical
//! units) and the direct chain solve. Written once over [`Lane`] and
//! [`Store`], like everything the kernel runs.

use std::ops::Div;

use cable_core::MIN_SEGMENT_LENGTH;

use crate::kernel::lane::{Lane, Mask, V3};
use crate::kernel::store::{Block, Store};

/// Multiplier slot ([`Store::lambda_row`]) of the curvature constraint.
pub const CURVATURE: usize = 2;

/// Long-range attachments (Kim, Chentanez and Müller 2012): each free
/// particle is pulled back to within its rest distance along the cable
/// of the nearest pinned particle on each side. Only the particle moves
/// (the anchor is pinned). With `track`, each tether's multiplier
/// (`-(excess) / w`, kg·m) is accumulated for tension
/// ([`Store::lambda_row`] slots 0 and 1).
#[inline(always)]
pub fn tethers<L: Lane, S: Store<L>>(s: &mut S, track: bool) {
    for i in 0..s.rows() {
        for side in 0..2 {
            let (anchor, reach, m) = s.tether(i, side);
            if !m.any() {
                continue;
            }
            let p = s.pos(i);
            let d = p - anchor;
            let len = d.length();
            let over = m & reach.lt(len);
            if !over.any() {
                continue;
            }
            let pulled = anchor + d.scale(reach / len);
            s.set_pos(i, V3::select(over, pulled, p));
            if track {
                let dl = (len - reach).neg() / s.w(i);
                let l = s.lambda_row(i, side);
                s.set_lambda_row(i, side, L::select(over, l + dl, l));
            }
        }
    }
}

/// One Gauss-Seidel sweep of the curvature constraints (bending stiffness
/// `EI`): at each inner particle, `C = κ − κ₀` with the discrete curvature
/// `κ = 2|e₁ × e₂| / (|e₁||e₂| + e₁·e₂)` (`2·tan(θ/2)` of the turning
/// angle), solved by XPBD with compliance `l̄ / EI` ([`Store::curv`]), so
/// the energy is the discrete elastic rod's `EI·(κ − κ₀)² / (2 l̄)`.
/// Skipped where the turning is too small to have a direction
/// (`|e₁ × e₂|` below 10⁻⁶ of `|e₁||e₂|`) or the cable folds back on
/// itself.
#[inline(always)]
pub fn sweep_curvature<L: Lane, S: Store<L>>(s: &mut S, h2: L) {
    let eps = L::splat(1.0e-6);
    let two = L::splat(2.0);
    for i in 1..s.rows() - 1 {
        let (k0, alpha, m) = s.curv(i);
        if !m.any() {
            continue;
        }
        let (a, b, c) = (s.pos(i - 1), s.pos(i), s.pos(i + 1));
        let (e1, e2) = (b - a, c - b);
        let (l1, l2) = (e1.length(), e2.length());
        let cr = e1.cross(e2);
        let sn = cr.length();
        let ll = l1 * l2;
        let den = ll + e1.dot(e2);
        let ok = m & (eps * ll).lt(sn) & (eps * ll).lt(den);
        if !ok.any() {
            continue;
        }
        let kappa = two * sn / den;
        let kp = two * ll / den;
        let g0 = cr.cross(e1).scale(kp / (sn * l1 * l1));
        let g2 = e2.cross(cr).scale((kp / (sn * l2 * l2)).neg());
        let g1 = -(g0 + g2);
        let (w0, w1, w2) = (s.w(i - 1), s.w(i), s.w(i + 1));
        let at = alpha / h2;
        let lam = s.lambda_row(i, CURVATURE);
        let denom =
            w0 * g0.length_squared() + w1 * g1.length_squared() + w2 * g2.length_squared() + at;
        let dl = ((kappa - k0).neg() - at * lam) / denom;
        let ok = ok & L::splat(0.0).lt(denom);
        s.set_lambda_row(i, CURVATURE, L::select(ok, lam + dl, lam));
        s.set_pos(i - 1, a + g0.scale(w0 * dl).keep(ok));
        s.set_pos(i, b + g1.scale(w1 * dl).keep(ok));
        s.set_pos(i + 1, c + g2.scale(w2 * dl).keep(ok));
    }
}

/// The smallest pivot [`solve_direct`] divides by, relative to the row's
/// diagonal: below it the row is (up to rounding) a combination of the
/// rows before it. Rounding leaves the zero pivot of a straight chain
/// between pins near 1e-7 of the diagonal. A nearly straight chain between
/// pins has a last pivot of the order of the diagonal times the square of
/// its bend angles, so one bent by less than about 0.01 rad per joint is
/// regularised too (its step in that direction would be over 10⁴ times
/// its error).
const PIVOT: f32 = 1.0e-4;

#[inline(always)]
fn s_pivot<L: Lane>() -> L {
    L::splat(PIVOT)
}

/// Scratch of one segment for [`solve_direct`].
#[derive(Clone, Copy, Debug)]
pub struct ChainRow<L: Lane> {
    /// Unit direction of the segment (zero when it is not solved).
    n: V3<L>,
    /// Thomas algorithm's modified super-diagonal.
    cp: L,
    /// Right-hand side, then modified right-hand side, then the solution.
    dp: L,
}

impl<L: Lane> Default for ChainRow<L> {
    fn default() -> Self {
        Self {
            n: V3::zero(),
            cp: L::splat(0.0),
            dp: L::splat(0.0),
        }
    }
}

/// One iteration of the direct solver: every distance constraint of the
/// cable at once. The constraints `Cⱼ = |pⱼ₊₁ − pⱼ| − restⱼ` are
/// linearised at the current positions, and `(J W Jᵀ + α̃) Δλ = −C − α̃λ`
/// — tridiagonal along the chain, `J W Jᵀ` having `wⱼ + wⱼ₊₁` on the
/// diagonal and `−wⱼ₊₁ (nⱼ · nⱼ₊₁)` beside it — is solved exactly by the
/// Thomas algorithm; then `pᵢ += wᵢ (nᵢ₋₁ Δλᵢ₋₁ − nᵢ Δλᵢ)` (one Newton step
/// of the constrained chain, as Deul et al. 2018 do for rods). Segments
/// that are broken, shorter than [`MIN_SEGMENT_LENGTH`] or between two
/// pinned particles drop out of the system; a pivot that vanishes (a
/// straight chain between pins) is held at a floor (see `PIVOT`). The
/// multipliers accumulate in
/// [`Store::lambda`] (tension).
#[inline(always)]
pub fn solve_direct<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>, chain: &mut Vec<ChainRow<L>>) {
    let segs = s.rows() - 1;
    chain.clear();
    chain.resize(segs, ChainRow::default());
    let zero = L::splat(0.0);
    let at = if b.soft { b.alpha_t } else { zero };
    // Directions and right-hand sides.
    let mut pa = s.pos(0);
    for (j, row) in chain.iter_mut().enumerate() {
        let pb = s.pos(j + 1);
        let d = pb - pa;
        let len = d.length();
        // Rest length and whether either end moves (a compliant block
        // keeps its constants in the compliant form).
        let (rest, moves) = if b.soft {
            let c = s.soft(j, 1, at);
            (c.rest, c.m)
        } else {
            let c = s.rigid(j, 1);
            let (ma, mb) = c.moves();
            (c.rest, ma | mb)
        };
        let live = !len.le(L::splat(MIN_SEGMENT_LENGTH)) & moves;
        row.n = d.div(len).keep(live);
        let rhs = (len - rest).neg() - at * s.lambda(1, j);
        row.dp = rhs.keep(live);
        row.cp = L::select(live, zero, L::splat(1.0)); // diagonal placeholder: 1 when dead
        pa = pb;
    }
    // Forward elimination.
    let mut cp_prev = zero;
    let mut dp_prev = zero;
    for j in 0..segs {
        let (wa, wb) = (s.w(j), s.w(j + 1));
        let dead = L::splat(0.0).lt(chain[j].cp);
        let diag = L::select(dead, L::splat(1.0), wa + wb + at);
        let lower = if j > 0 {
            (wa * chain[j - 1].n.dot(chain[j].n)).neg()
        } else {
            zero
        };
        let upper = if j + 1 < segs {
            (wb * chain[j].n.dot(chain[j + 1].n)).neg()
        } else {
            zero
        };
        // A pivot that vanishes marks a constraint the rows before it
        // already fix: a straight chain between two pinned particles (a
        // rope hanging plumb between two pins, or stretched taut) has one
        // more constraint than degrees of freedom along its line, and its
        // last pivot is zero up to rounding. Dividing by it gave an
        // infinite step (the scene went NaN in its first substep). The
        // pivot is held at `PIVOT` times the diagonal instead (a
        // regularisation of that row alone): the direction it cannot
        // solve is a uniform tension along the line, which moves no
        // particle. A chain at its length then solves exactly; one pulled
        // over its length takes the whole excess as that tension (its
        // multipliers grow large) and does not spread the strain, which
        // stays where it was (`tests/rod.rs`; open in the rods issue).
        let floor = s_pivot::<L>() * diag;
        let den = diag - lower * cp_prev;
        let den = L::select(floor.lt(den), den, floor);
        let cp = upper / den;
        let dp = (chain[j].dp - lower * dp_prev) / den;
        chain[j].cp = cp;
        chain[j].dp = dp;
        cp_prev = cp;
        dp_prev = dp;
    }
    // Back substitution: dp becomes Δλ.
    for j in (0..segs.saturating_sub(1)).rev() {
        let next = chain[j + 1].dp;
        chain[j].dp = chain[j].dp - chain[j].cp * next;
    }
    // Multipliers and positions.
    for (j, row) in chain.iter().enumerate() {
        s.set_lambda(1, j, s.lambda(1, j) + row.dp);
    }
    for i in 0..=segs {
        let mut dp = V3::zero();
        if i > 0 {
            dp = dp + chain[i - 1].n.scale(chain[i - 1].dp);
        }
        if i < segs {
            dp = dp - chain[i].n.scale(chain[i].dp);
        }
        let step = dp.scale(s.w(i));
        let f = s.free(i);
        let p = s.pos(i);
        s.set_pos(i, V3::select(f, p + step, p));
    }
}
