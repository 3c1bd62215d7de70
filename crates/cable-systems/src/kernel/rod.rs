//! The rod constraints of the one kernel beyond the classic distance sweep:
//! tethers (long-range attachments), curvature (bending in physical
//! units) and the direct chain solve. Written once over [`Lane`] and
//! [`Store`], like everything the kernel runs.

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

/// The smallest magnitude a multiplier row's pivot of [`solve_direct`]
/// may have, relative to the row's natural scale `wⱼ + wⱼ₊₁ + α̃`: below it
/// the row is (up to rounding) a combination of the rows before it. A
/// straight chain between two pins has one constraint more than it has
/// freedom along its line, and its last pivot is zero up to rounding
/// (dividing by it made such scenes go NaN in their first substep). The
/// pivot is held at `-PIVOT` times the scale instead (a regularisation of
/// that row alone): the direction it cannot solve is a uniform tension
/// along the line, which moves no particle.
const PIVOT: f32 = 1.0e-4;

/// Half-bandwidth of [`solve_direct`]'s system plus one: each row of the
/// band holds its diagonal and the 7 entries left of it.
pub const BAND: usize = 8;

/// Rows of [`solve_direct`]'s system per particle: its position's three,
/// then the multiplier of the segment ending at it.
const PER: usize = 4;

/// Working memory of [`solve_direct`], per block: the predicted positions
/// of the substep and the band of its system (`4 × rows` rows of
/// [`BAND`] values per lane). Rewritten by each substep; kept so that a
/// warmed-up step does not allocate.
#[derive(Clone, Debug)]
pub struct Newton<L: Lane> {
    /// The positions the substep's integration predicted (`x̃`).
    tilde: Vec<V3<L>>,
    /// Row `r`: `[1/dᵣ or the diagonal, K[r][r−1], …, K[r][r−7]]`, then
    /// the factor `L[r][r−k]` in place of `K[r][r−k]`.
    band: Vec<[L; BAND]>,
    /// Right-hand side, then the solution.
    y: Vec<L>,
    /// The positions before a contact pass ([`Newton::hold`]).
    held: Vec<V3<L>>,
}

impl<L: Lane> Default for Newton<L> {
    fn default() -> Self {
        Self {
            tilde: Vec::new(),
            band: Vec::new(),
            y: Vec::new(),
            held: Vec::new(),
        }
    }
}

impl<L: Lane> Newton<L> {
    /// Keeps the positions of `s` as the substep's prediction `x̃` (called
    /// after the integration, before the first iteration).
    #[inline(always)]
    pub fn predict<S: Store<L>>(&mut self, s: &S) {
        self.tilde.clear();
        self.tilde.extend((0..s.rows()).map(|i| s.pos(i)));
    }

    /// Takes the positions of `s` as the prediction again in lanes `m`:
    /// the lanes [`crate::kernel::origin::to_local`] just moved to local
    /// coordinates (their positions are still the prediction, now local:
    /// no contact candidate moved them since [`Newton::predict`]).
    #[inline(always)]
    pub fn predict_lanes<S: Store<L>>(&mut self, s: &S, m: L::M) {
        for (i, t) in self.tilde.iter_mut().enumerate() {
            *t = V3::select(m, s.pos(i), *t);
        }
    }

    /// Keeps the positions of `s` before a contact pass between two
    /// iterations ([`Newton::contact_moved`] after it).
    #[inline(always)]
    pub fn hold<S: Store<L>>(&mut self, s: &S) {
        self.held.clear();
        self.held.extend((0..s.rows()).map(|i| s.pos(i)));
    }

    /// Moves the prediction `x̃` of each particle by what the contact pass
    /// since [`Newton::hold`] moved it. A collider's push is a force from
    /// outside the system the Newton step solves: left out of `x̃`, the
    /// next step's inertia term `M (x − x̃)` pulled each pushed particle
    /// back into the collider, the pass pushed it out again, and a rope
    /// draped over a ball, a capsule or a box came to rest with segments
    /// 15–23 % longer than their rest length (Gauss-Seidel: 6–8 %).
    #[inline(always)]
    pub fn contact_moved<S: Store<L>>(&mut self, s: &S) {
        for (i, (t, h)) in self.tilde.iter_mut().zip(&self.held).enumerate() {
            *t = *t + (s.pos(i) - *h);
        }
    }

    /// Rows the band holds without growing (four per particle of the
    /// longest cable solved so far).
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.band.capacity()
    }
}

#[inline(always)]
fn xyz<L: Lane>(v: V3<L>) -> [L; 3] {
    [v.x, v.y, v.z]
}

/// One iteration of the direct solver: one Newton step of every distance
/// constraint of the cable and its particles' inertia at once (issue 41's
/// "mode 4"). With `x̃` the substep's prediction ([`Newton::predict`]),
/// `M = 1/w` and the multipliers `λ` ([`Store::lambda`], kg·m, negative
/// in tension, kept from the previous substep and frame: the warm start),
/// the residuals `r_x = M (x − x̃) − Jᵀλ` and `r_λ = C + α̃λ` (α̃ the
/// compliance over h², 0 for a rigid cable) are linearised and
///
/// ```text
/// [ M + G   −Jᵀ ] [dx]   [ −r_x ]
/// [ −J      −α̃  ] [dλ] = [  r_λ ]        x += dx,  λ += dλ
/// ```
///
/// solved exactly, where `G` is the geometric stiffness of the tension,
/// per segment `|λⱼ|/lⱼ · [[K, −K], [−K, K]]` with `K = I − n nᵀ`: it
/// is what makes a hanging cable come to rest (without it the transverse
/// stiffness is integrated explicitly and a catenary jitters by
/// millimetres every substep forever).
///
/// The rows are in particle order, four per particle (its position's
/// three, then the multiplier of the segment ending at it), a band of
/// half-width 7, factored as `LDLᵀ` without pivoting (positive pivots on
/// position rows, negative on multiplier rows; a vanishing multiplier
/// pivot is held at `-PIVOT` times its scale, see `PIVOT`). Pinned
/// particles have identity rows; a segment that is broken, shorter than
/// [`MIN_SEGMENT_LENGTH`] or between two pinned particles has a dead row
/// (pivot −1) and its multiplier is set to zero.
#[inline(always)]
pub fn solve_direct<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>, nw: &mut Newton<L>) {
    let np = s.rows();
    let m = PER * np;
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let at = if b.soft { b.alpha_t } else { zero };
    let Newton { tilde, band, y, .. } = nw;
    band.clear();
    band.resize(m, [zero; BAND]);
    y.clear();
    y.resize(m, zero);
    // Inertia: M on the position rows, identity where pinned; −M (x − x̃)
    // on their right-hand side.
    for p in 0..np {
        let f = s.free(p);
        let mass = L::select(f, one / s.w(p), one);
        let o = xyz((s.pos(p) - tilde[p]).scale(mass));
        for c in 0..3 {
            band[PER * p + c][0] = mass;
            y[PER * p + c] = o[c].neg().keep(f);
        }
    }
    // The multiplier row before the first particle's does not exist.
    band[PER - 1][0] = one.neg();
    // Distance rows, their couplings and their geometric stiffness.
    let mut pa = s.pos(0);
    for j in 0..np - 1 {
        let r = PER * j + 2 * PER - 1;
        s.ahead();
        let pb = s.pos(j + 1);
        let d = pb - pa;
        pa = pb;
        let len = d.length();
        let (rest, moves) = if b.soft {
            let c = s.soft(j, 1, at);
            (c.rest, c.m)
        } else {
            let c = s.rigid(j, 1);
            let (ma, mb) = c.moves();
            (c.rest, ma | mb)
        };
        let live = !len.le(L::splat(MIN_SEGMENT_LENGTH)) & moves;
        let (fa, fb) = (s.free(j) & live, s.free(j + 1) & live);
        let n = d.scale(one / len).keep(live);
        // A dead row's multiplier is zero (its step is too).
        let lam = s.lambda(1, j).keep(live);
        s.set_lambda(1, j, lam);
        band[r][0] = L::select(live, at.neg(), one.neg());
        // r_λ = C + α̃λ
        let rl = (len - rest + at * lam).keep(live);
        let (na, nb) = (xyz(n.keep(fa)), xyz(n.keep(fb)));
        for q in 0..3 {
            // −J: +n on particle j, −n on particle j + 1.
            band[r][2 * PER - 1 - q] = na[q];
            band[r][PER - 1 - q] = nb[q].neg();
            // −r_x += Jᵀλ: −nλ on particle j, +nλ on particle j + 1.
            y[PER * j + q] = y[PER * j + q] - na[q] * lam;
            y[PER * j + PER + q] = y[PER * j + PER + q] + nb[q] * lam;
        }
        y[r] = rl;
        // G = |λ|/l (I − n nᵀ), on both particles and between them.
        let t = (lam.abs() / len).keep(live);
        let nv = xyz(n);
        let both = fa & fb;
        for a in 0..3 {
            for c in 0..3 {
                let delta = if a == c { t } else { zero };
                let k = delta - t * nv[a] * nv[c];
                if c <= a {
                    let (ra, rb) = (PER * j + a, PER * j + PER + a);
                    band[ra][a - c] = band[ra][a - c] + k.keep(fa);
                    band[rb][a - c] = band[rb][a - c] + k.keep(fb);
                }
                let rb = PER * j + PER + a;
                band[rb][PER + a - c] = band[rb][PER + a - c] - k.keep(both);
            }
        }
    }
    // LDLᵀ in place: `band[r][k]` becomes L[r][r−k], `band[r][0]` 1/dᵣ.
    let floor = L::splat(PIVOT);
    let mut ld = [zero; BAND];
    for r in 0..m {
        let kmax = r.min(BAND - 1);
        for k in (1..=kmax).rev() {
            let c = r - k;
            let mut v = band[r][k];
            for t in r - kmax..c {
                v = v - ld[r - t] * band[c][c - t];
            }
            ld[k] = v;
            band[r][k] = v * band[c][0];
        }
        let mut v = band[r][0];
        for k in 1..=kmax {
            v = v - ld[k] * band[r][k];
        }
        if r % PER == PER - 1 && r >= 2 * PER - 1 {
            // A multiplier row: its pivot is at most −PIVOT times its
            // scale w_j + w_j+1 + α̃ (of the ends that move).
            let j = (r + 1) / PER - 2;
            let wa = s.w(j).keep(s.free(j));
            let wb = s.w(j + 1).keep(s.free(j + 1));
            let lim = (floor * (wa + wb + at)).neg();
            v = L::select(v.lt(lim), v, L::select(lim.lt(zero), lim, one.neg()));
        }
        band[r][0] = one / v;
    }
    // L z = y, then D x' = z and Lᵀ x = x' in one backward pass.
    for r in 0..m {
        let kmax = r.min(BAND - 1);
        let mut v = y[r];
        for k in 1..=kmax {
            v = v - band[r][k] * y[r - k];
        }
        y[r] = v;
    }
    for r in (0..m).rev() {
        let mut v = y[r] * band[r][0];
        for k in 1..BAND.min(m - r) {
            v = v - band[r + k][k] * y[r + k];
        }
        y[r] = v;
    }
    // Positions and multipliers.
    for p in 0..np {
        let f = s.free(p);
        let dx = V3::new(y[PER * p], y[PER * p + 1], y[PER * p + 2]);
        let x = s.pos(p);
        s.set_pos(p, V3::select(f, x + dx, x));
    }
    for j in 0..np - 1 {
        let r = PER * j + 2 * PER - 1;
        s.set_lambda(1, j, s.lambda(1, j) + y[r]);
    }
}
