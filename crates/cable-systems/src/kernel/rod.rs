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
///
/// A winch that may slip ([`Block::slip_m`]) holds the rope with at most
/// its slip tension, tethers included: on its side, the tethers of those
/// lanes share what the winch segment's multiplier left of
/// [`Block::slip_lambda`]. They leave every particle at most the same
/// distance `r` past its reach, the least `r` the budget allows (found by
/// bisection: the pulls needed fall as `r` grows); the budget still caps
/// each pull in turn. So a rope the winch cannot hold runs past its
/// reach by `r` evenly, and the winch pays that out after the substep
/// ([`cable_core::ParticlePool::turn_winch`]). (The multipliers are
/// tracked in such blocks: a pulling limit reads the tension.)
#[inline(always)]
pub fn tethers<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>, track: bool) {
    let zero = L::splat(0.0);
    let segs = s.rows() - 1;
    // What each side's winch may still pull, as a multiplier (≤ 0): the
    // bound less what its segment took; and how far past its reach each
    // tethered particle may stay.
    let mut left = [zero; 2];
    let mut past = [zero; 2];
    if b.slip {
        for (side, seg) in [(0, 0), (1, segs - 1)] {
            let m = b.slip_m[side];
            if !m.any() {
                continue;
            }
            let l = b.slip_lambda - s.lambda(1, seg);
            left[side] = L::select(l.lt(zero), l, zero);
            // The pull (a multiplier, ≤ 0) that leaves every particle at
            // most `r` past its reach, and the largest run-past.
            let pull = |s: &S, r: L| {
                let mut sum = zero;
                for i in 0..s.rows() {
                    let (anchor, reach, on) = s.tether(i, side);
                    let len = (s.pos(i) - anchor).length();
                    let over = on & m & (reach + r).lt(len);
                    sum = sum + ((len - reach - r).neg() / s.w(i)).keep(over);
                }
                sum
            };
            let mut most = zero;
            for i in 0..s.rows() {
                let (anchor, reach, on) = s.tether(i, side);
                let run = (s.pos(i) - anchor).length() - reach;
                most = L::select(on & m & most.lt(run), run, most);
            }
            let short = m & pull(s, zero).lt(left[side]);
            if short.any() {
                let (mut lo, mut hi) = (zero, most);
                for _ in 0..24 {
                    let mid = (lo + hi) * L::splat(0.5);
                    let over = pull(s, mid).lt(left[side]);
                    lo = L::select(over, mid, lo);
                    hi = L::select(over, hi, mid);
                }
                past[side] = hi.keep(short);
            }
        }
    }
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
            let w = s.w(i);
            let dl = (len - reach).neg() / w;
            let full = anchor + d.scale(reach / len);
            let (pulled, over, dl) = if b.slip && b.slip_m[side].any() {
                // Limited lanes pull to `past` beyond the reach, at most
                // what is left (dl and the budget are ≤ 0); the others as
                // without a limit, bit for bit.
                let lim = b.slip_m[side] & over;
                let to = reach + past[side];
                let want = (len - to).neg() / w;
                let take = L::select(want.lt(left[side]), left[side], want);
                let lim_on = lim & to.lt(len);
                let take = L::select(lim_on, take, dl);
                left[side] = L::select(lim_on, left[side] - take, left[side]);
                let part = anchor + d.scale((len + take * w) / len);
                let over = (over & !lim) | lim_on;
                (V3::select(lim_on, part, full), over, take)
            } else {
                (full, over, dl)
            };
            s.set_pos(i, V3::select(over, pulled, p));
            if track {
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
/// itself. A clamped end ([`Block::clamp_o`], where [`Store::curv`] of
/// the end row is on) has its constraint too, first (at the start) or
/// last (at the end), against the clamp's virtual particle: fixed,
/// inverse mass 0.
#[inline(always)]
pub fn sweep_curvature<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>, h2: L) {
    let n = s.rows();
    // A clamped end's constraint, against its virtual particle (fixed,
    // `Block::clamp_o` from the pinned end), before the inner ones.
    if s.curv(0).2.any() {
        let x = s.pos(0);
        curvature_at(
            s,
            [None, Some(0), Some(1)],
            [x + b.clamp_o[0], x, s.pos(1)],
            h2,
        );
    }
    for i in 1..n - 1 {
        let (a, q, c) = (s.pos(i - 1), s.pos(i), s.pos(i + 1));
        curvature_at(s, [Some(i - 1), Some(i), Some(i + 1)], [a, q, c], h2);
    }
    if s.curv(n - 1).2.any() {
        let x = s.pos(n - 1);
        let at = [Some(n - 2), Some(n - 1), None];
        curvature_at(s, at, [s.pos(n - 2), x, x + b.clamp_o[1]], h2);
    }
}

/// The turning of a cable at a joint, from its three particles' positions
/// `[a, b, c]`: the edges `e₁ = b − a` and `e₂ = c − b`, their lengths,
/// `e₁ × e₂` and its length, `|e₁||e₂|` and `den = |e₁||e₂| + e₁·e₂`.
/// The geometry both solvers' curvature constraints share.
#[derive(Clone, Copy)]
struct Turn<L: Lane> {
    e1: V3<L>,
    e2: V3<L>,
    l1: L,
    l2: L,
    cr: V3<L>,
    sn: L,
    ll: L,
    den: L,
}

impl<L: Lane> Turn<L> {
    #[inline(always)]
    fn new([a, b, c]: [V3<L>; 3]) -> Self {
        let (e1, e2) = (b - a, c - b);
        let (l1, l2) = (e1.length(), e2.length());
        let cr = e1.cross(e2);
        let ll = l1 * l2;
        Self {
            e1,
            e2,
            l1,
            l2,
            cr,
            sn: cr.length(),
            ll,
            den: ll + e1.dot(e2),
        }
    }

    /// Not folded back on itself, nor with an edge of zero length
    /// (`den` above 10⁻⁶ of `|e₁||e₂|`).
    #[inline(always)]
    fn open(&self) -> L::M {
        (L::splat(1.0e-6) * self.ll).lt(self.den)
    }

    /// Turning enough to have a direction (`|e₁ × e₂|` above 10⁻⁶ of
    /// `|e₁||e₂|`).
    #[inline(always)]
    fn turning(&self) -> L::M {
        (L::splat(1.0e-6) * self.ll).lt(self.sn)
    }

    /// The discrete curvature `κ = 2|e₁ × e₂| / den` (`2·tan(θ/2)`).
    #[inline(always)]
    fn kappa(&self) -> L {
        L::splat(2.0) * self.sn / self.den
    }

    /// `∂κ/∂a`, `∂κ/∂b`, `∂κ/∂c` (finite where [`Turn::open`] and
    /// [`Turn::turning`] hold).
    #[inline(always)]
    fn gradients(&self) -> [V3<L>; 3] {
        let Self {
            e1,
            e2,
            l1,
            l2,
            cr,
            sn,
            ..
        } = *self;
        let kp = L::splat(2.0) * self.ll / self.den;
        let g0 = cr.cross(e1).scale(kp / (sn * l1 * l1));
        let g2 = e2.cross(cr).scale((kp / (sn * l2 * l2)).neg());
        [g0, -(g0 + g2), g2]
    }
}

/// One curvature constraint of [`sweep_curvature`], at the middle one of
/// the three particles `at` (rows; `None` for a clamp's virtual particle,
/// which is fixed: inverse mass 0, never written), at positions `x`.
#[inline(always)]
fn curvature_at<L: Lane, S: Store<L>>(s: &mut S, at: [Option<usize>; 3], x: [V3<L>; 3], h2: L) {
    let i = at[1].unwrap_or(0);
    let (k0, alpha, m) = s.curv(i);
    if !m.any() {
        return;
    }
    let turn = Turn::new(x);
    let ok = m & turn.turning() & turn.open();
    if !ok.any() {
        return;
    }
    let kappa = turn.kappa();
    let [g0, g1, g2] = turn.gradients();
    let w = |r: Option<usize>| r.map_or(L::splat(0.0), |r| s.w(r));
    let (w0, w1, w2) = (w(at[0]), w(at[1]), w(at[2]));
    let at_ = alpha / h2;
    let lam = s.lambda_row(i, CURVATURE);
    let denom =
        w0 * g0.length_squared() + w1 * g1.length_squared() + w2 * g2.length_squared() + at_;
    let dl = ((kappa - k0).neg() - at_ * lam) / denom;
    // A joint stretched beyond what f32 holds (|e₁ × e₂| overflowing)
    // has no finite correction: skipped.
    let ok = ok & L::splat(0.0).lt(denom) & dl.finite();
    s.set_lambda_row(i, CURVATURE, L::select(ok, lam + dl, lam));
    for ((r, p), (g, w)) in at.into_iter().zip(x).zip([(g0, w0), (g1, w1), (g2, w2)]) {
        if let Some(r) = r {
            s.set_pos(r, p + g.scale(w * dl).keep(ok));
        }
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

/// Half-bandwidth of a rope's system in [`solve_direct`] plus one: each
/// row of the band holds its diagonal and the 7 entries left of it (4
/// rows per particle; a distance row reaches back to the first row of the
/// particle before).
pub const BAND: usize = 8;

/// Half-bandwidth of a rod's system in [`solve_direct`] (with curvature
/// rows) plus one: 5 rows per particle, and the bending stiffness of
/// particle `i` couples the last position row of particle `i + 1` to the
/// first of particle `i − 1`, 12 rows before it.
pub const BAND_ROD: usize = 13;

/// Row of the multiplier of the segment ending at a particle, among the
/// particle's rows (after its position's three).
const DIST: usize = 3;

/// Row of the curvature multiplier at a particle, among a rod's rows of
/// the particle (after the distance multiplier).
const KAPPA: usize = 4;

/// Working memory of [`solve_direct`], per block: the predicted positions
/// of the substep and the band of its system (per row, [`BAND`] values
/// for a rope, [`BAND_ROD`] for a rod, per lane). Rewritten by each
/// substep; kept so that a warmed-up step does not allocate.
#[derive(Clone, Debug)]
pub struct Newton<L: Lane> {
    /// The positions the substep's integration predicted (`x̃`).
    tilde: Vec<V3<L>>,
    /// Row `r` at `r·B`: `[1/dᵣ or the diagonal, K[r][r−1], …,
    /// K[r][r−B+1]]`, then the factor `L[r][r−k]` in place of `K[r][r−k]`
    /// (`B` the band of the solve, [`BAND`] or [`BAND_ROD`]).
    band: Vec<L>,
    /// Right-hand side, then the solution (one value per row).
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

    /// Rows the system holds without growing (four per particle of the
    /// longest rope solved so far, five per particle of the longest rod).
    #[cfg(feature = "internals")]
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.y.capacity()
    }
}

#[inline(always)]
fn xyz<L: Lane>(v: V3<L>) -> [L; 3] {
    [v.x, v.y, v.z]
}

/// True when some lane of `s` has a curvature constraint
/// ([`Store::curv`]): the direct solver then solves them with the
/// distance constraints ([`solve_direct`]'s `rod`). A cable decides it
/// alone in every layout (the lane groups do not mix cables with and
/// without curvature constraints), so the layouts agree bit for bit.
#[inline(always)]
pub fn has_curvature<L: Lane, S: Store<L>>(s: &S) -> bool {
    (0..s.rows()).any(|i| s.curv(i).2.any())
}

/// One iteration of the direct solver: one Newton step of every distance
/// constraint of the cable, with `rod` every curvature constraint too
/// (bending stiffness, see [`sweep_curvature`]), and its particles'
/// inertia at once (issue 41's "mode 4"). With `x̃` the substep's
/// prediction ([`Newton::predict`]), `M = 1/w` and the multipliers `λ`
/// (distance: [`Store::lambda`], kg·m, negative in tension, kept from the
/// previous substep and frame, the warm start; curvature:
/// [`Store::lambda_row`] slot [`CURVATURE`], from zero each substep), the
/// residuals `r_x = M (x − x̃) − Jᵀλ` and `r_λ = C + α̃λ` (α̃ the compliance
/// over h², 0 for a rigid cable; `h2` is h²) are linearised and
///
/// ```text
/// [ M + G   −Jᵀ ] [dx]   [ −r_x ]
/// [ −J      −α̃  ] [dλ] = [  r_λ ]        x += dx,  λ += dλ
/// ```
///
/// solved exactly, where `G` is a positive semidefinite geometric
/// stiffness:
///
/// - of the tension, per segment `|λⱼ|/lⱼ · [[K, −K], [−K, K]]` with
///   `K = I − n nᵀ`: it is what makes a hanging cable come to rest
///   (without it the transverse stiffness is integrated explicitly and a
///   catenary jitters by millimetres every substep forever);
/// - of bending, per curvature constraint, `c · Jbᵀ (I − u uᵀ) Jb` on its
///   three particles, where `κb = 2 e₁ × e₂ / (|e₁||e₂| + e₁·e₂)` is the
///   vector curvature (`|κb|` is the constraint's `κ`), `Jb` its 3 × 9
///   Jacobian, `u = κb / |κb|` and `c = max(0, 1 − κ₀/|κb|) / α̃`: the
///   stiffness across the bending plane, which the scalar row does not
///   carry (the Gauss-Newton part of `(|κb| − κ₀)² / 2α̃`). At a straight
///   particle, where the scalar row has no direction and is dead, it is
///   `Jbᵀ Jb / α̃`: the particle is held straight instead of falling
///   freely for one substep.
///
/// The rows are in particle order: per particle its position's three,
/// then the multiplier of the segment ending at it, and for a rod the
/// curvature multiplier at it; a band of half-width 7 for a rope
/// ([`BAND`]), 12 for a rod ([`BAND_ROD`]; a rope's solve does not pay for
/// the rod's rows). Factored as `LDLᵀ` without pivoting (positive pivots
/// on position rows, negative on multiplier rows: a curvature row is
/// compliant, so it may come before its last particle's rows; a vanishing
/// distance pivot is held at `-PIVOT` times its scale, see `PIVOT`).
/// Pinned particles have identity rows; a segment that is broken, shorter
/// than [`MIN_SEGMENT_LENGTH`] or between two pinned particles, and a
/// curvature constraint that is off, straight or folded back on itself
/// (as [`sweep_curvature`] skips it), have a dead row (pivot −1) and
/// their multiplier is set to zero.
///
/// The lanes in `done` are left as they are, bit for bit (the caller's
/// converged lanes). Returns the lanes whose step was taken and moved no
/// particle by more than [`CONVERGED`] times the scale of the system
/// (their distance from the prediction plus rest lengths and
/// violations): converged, so a further iteration would not move them by
/// more than rounding. Each lane's answer depends on its own cable alone,
/// so the layouts, which group cables into lanes differently, agree bit
/// for bit.
#[inline(always)]
pub fn solve_direct<L: Lane, S: Store<L>>(
    s: &mut S,
    b: &Block<L>,
    nw: &mut Newton<L>,
    rod: bool,
    h2: L,
    done: L::M,
) -> L::M {
    let over = crate::kernel::distance::overstretched(s, b) & !done;
    let (ok, small) = if rod {
        rod_step(s, b, nw, h2, done | over)
    } else {
        newton_step::<L, S, 4, BAND>(s, b, nw, h2, done | over)
    };
    let ok = ok & !over;
    if !(ok | done).all() {
        fall_back(s, b, nw, ok | done, rod, h2);
    }
    ok & small & !done
}

/// The largest step, relative to the scale of a cable's system (its
/// particles' largest distance from the prediction plus its rest length
/// and violations), after which [`solve_direct`] counts a lane converged:
/// 2⁻²² (4 f32 roundings of the scale). A Newton step converges
/// quadratically: a released 128-segment chain's steps fall below it in
/// 2–3 of the default 8 iterations, and the iterations left would move
/// it by rounding alone.
pub const CONVERGED: f32 = 1.0 / 4_194_304.0;

/// The iteration of the lanes not in `ok`, whose Newton step
/// ([`newton_step`]) was not taken: not finite, or moving a particle more
/// than 100 times the scale of what the system asks (its distance from
/// the prediction plus the cable's rest length and violations). One Gauss-Seidel
/// sweep of their distance constraints (and, with `rod`, of their
/// curvature constraints, [`sweep_curvature`]), which cannot go
/// non-finite, with their multipliers restarted from zero. The lanes in
/// `ok` keep every bit of their step. A nearly singular system in f32
/// (a rod of fine segments stiffer than the band resolves, a segment
/// stretched thousands of times, a joint folding back on itself) then
/// costs convergence for an iteration, not the cable; the next
/// iteration tries the Newton step again.
#[inline(never)]
fn fall_back<L: Lane, S: Store<L>>(
    s: &mut S,
    b: &Block<L>,
    nw: &mut Newton<L>,
    ok: L::M,
    rod: bool,
    h2: L,
) {
    let np = s.rows();
    // The rows of the curvature multipliers (a rod's alone).
    let rows = if rod { np } else { 0 };
    for j in 0..np - 1 {
        s.set_lambda(1, j, s.lambda(1, j).keep(ok));
    }
    for i in 0..rows {
        s.set_lambda_row(i, CURVATURE, s.lambda_row(i, CURVATURE).keep(ok));
    }
    // The lanes in `ok` get back their positions and multipliers after
    // the sweeps (kept in the solve's scratch, which the next iteration
    // rewrites).
    nw.hold(s);
    let Newton { y, .. } = nw;
    y.clear();
    y.extend((0..np - 1).map(|j| s.lambda(1, j)));
    y.extend((0..rows).map(|i| s.lambda_row(i, CURVATURE)));
    if b.slip {
        crate::kernel::distance::sweep_slip(s, b, b.soft);
    } else if b.soft {
        crate::kernel::distance::sweep_soft(s, 1, b.alpha_t);
    } else {
        crate::kernel::distance::sweep_rigid(s);
    }
    if rod {
        sweep_curvature(s, b, h2);
    }
    for (i, h) in nw.held.iter().enumerate() {
        s.set_pos(i, V3::select(ok, *h, s.pos(i)));
    }
    for j in 0..np - 1 {
        s.set_lambda(1, j, L::select(ok, nw.y[j], s.lambda(1, j)));
    }
    for i in 0..rows {
        let l = nw.y[np - 1 + i];
        s.set_lambda_row(i, CURVATURE, L::select(ok, l, s.lambda_row(i, CURVATURE)));
    }
}

/// A rod's [`newton_step`], out of line and compiled for the build's
/// baseline on every SIMD path: one copy per lane type and store rather
/// than one inlined into each path's kernel (the rod's band, five rows per
/// particle and 9 × 9 bending blocks, added a minute to each build of this
/// crate inlined). Rods under the direct solver are few; the same IEEE
/// operations on every path keep the paths bitwise equal.
#[inline(never)]
fn rod_step<L: Lane, S: Store<L>>(
    s: &mut S,
    b: &Block<L>,
    nw: &mut Newton<L>,
    h2: L,
    done: L::M,
) -> (L::M, L::M) {
    newton_step::<L, S, 5, BAND_ROD>(s, b, nw, h2, done)
}

/// The largest ratio of a rod's bending geometric stiffness (about
/// `c·4/l²` on a particle, `c` of [`solve_direct`]'s `G`) to the lightest
/// free mass of its three particles that the direct solve keeps: the band
/// is `f32`, whose 24-bit mantissa loses the mass beside a stiffness above
/// ~10⁷ times it (measured: a 1 m cantilever of 0.1 kg/m, EI 2 N·m², at
/// 1/60 s went NaN from 180 segments, a ratio of 2·10⁷; 160 segments, 1.4·10⁷,
/// matched beam theory). Above it `c` is held at the cap.
const GEOMETRIC_CAP: f32 = 4.0e6;

/// The skew matrix `[v]×` (`[v]× w = v × w`).
#[inline(always)]
fn skew<L: Lane>(v: V3<L>) -> [[L; 3]; 3] {
    let z = L::splat(0.0);
    [
        [z, v.z.neg(), v.y],
        [v.z, z, v.x.neg()],
        [v.y.neg(), v.x, z],
    ]
}

/// `aᵀ b` of 3 × 3 matrices (rows of arrays).
#[inline(always)]
fn transpose_mul<L: Lane>(a: &[[L; 3]; 3], b: &[[L; 3]; 3]) -> [[L; 3]; 3] {
    std::array::from_fn(|r| {
        std::array::from_fn(|c| a[0][r] * b[0][c] + a[1][r] * b[1][c] + a[2][r] * b[2][c])
    })
}

/// [`solve_direct`] with `PER` rows per particle (4: a rope, 5: a rod
/// with curvature rows) and a band of `B` values per row: the lanes whose
/// step is taken and those whose step is below [`CONVERGED`]; the lanes
/// in `done` keep their state.
#[inline(always)]
fn newton_step<L: Lane, S: Store<L>, const PER: usize, const B: usize>(
    s: &mut S,
    b: &Block<L>,
    nw: &mut Newton<L>,
    h2: L,
    done: L::M,
) -> (L::M, L::M) {
    let rod = PER > KAPPA;
    let np = s.rows();
    let m = PER * np;
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let at = if b.soft { b.alpha_t } else { zero };
    let Newton { tilde, band, y, .. } = nw;
    band.clear();
    band.resize(m * B, zero);
    y.clear();
    y.resize(m, zero);
    // Inertia: M on the position rows, identity where pinned; −M (x − x̃)
    // on their right-hand side.
    // What the step may move a particle by (its trust region, below):
    // the largest distance from the prediction, the violations and the
    // rest lengths, summed as they are met.
    let mut off = zero;
    let mut reach = zero;
    for p in 0..np {
        let f = s.free(p);
        let mass = L::select(f, one / s.w(p), one);
        let from = (s.pos(p) - tilde[p]).length().keep(f);
        off = L::select(off.lt(from), from, off);
        let o = xyz((s.pos(p) - tilde[p]).scale(mass));
        for c in 0..3 {
            band[(PER * p + c) * B] = mass;
            y[PER * p + c] = o[c].neg().keep(f);
        }
    }
    // The multiplier row before the first particle's does not exist.
    band[DIST * B] = one.neg();
    // Distance rows, their couplings and their geometric stiffness.
    let mut pa = s.pos(0);
    for j in 0..np - 1 {
        let r = PER * (j + 1) + DIST;
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
        // A winch segment that slips (`Block::slip_m`) pulls with its
        // slip tension, a force and no longer a constraint: its
        // multiplier fixed at the bound, its row decoupled (Δλ = 0, the
        // force `Jᵀλ` on the right-hand side). It slips while the last
        // step left its multiplier at or beyond the bound and the segment
        // is not shorter than its rest length (held below the bound, it
        // is a constraint again, which the next step may find over it).
        let at_winch = match (j == 0, j + 2 == np) {
            (true, true) => b.slip_m[0] | b.slip_m[1],
            (true, false) => b.slip_m[0],
            (false, true) => b.slip_m[1],
            (false, false) => L::M::splat(false),
        };
        let slips = at_winch & live & s.lambda(1, j).le(b.slip_lambda) & !len.lt(rest);
        // A dead row's multiplier is zero (its step is too).
        let lam = L::select(slips, b.slip_lambda, s.lambda(1, j).keep(live));
        s.set_lambda(1, j, lam);
        band[r * B] = L::select(live & !slips, at.neg(), one.neg());
        // r_λ = C + α̃λ
        let rl = (len - rest + at * lam).keep(live & !slips);
        reach = reach + rest + (len - rest).abs().keep(live);
        let (ja, jb) = (xyz(n.keep(fa & !slips)), xyz(n.keep(fb & !slips)));
        let (na, nb) = (xyz(n.keep(fa)), xyz(n.keep(fb)));
        for q in 0..3 {
            // −J: +n on particle j, −n on particle j + 1.
            band[r * B + PER + DIST - q] = ja[q];
            band[r * B + DIST - q] = jb[q].neg();
            // −r_x += Jᵀλ: −nλ on particle j, +nλ on particle j + 1.
            y[PER * j + q] = y[PER * j + q] - na[q] * lam;
            y[PER * (j + 1) + q] = y[PER * (j + 1) + q] + nb[q] * lam;
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
                    let (ra, rb) = (PER * j + a, PER * (j + 1) + a);
                    band[ra * B + a - c] = band[ra * B + a - c] + k.keep(fa);
                    band[rb * B + a - c] = band[rb * B + a - c] + k.keep(fb);
                }
                let rb = PER * (j + 1) + a;
                band[rb * B + PER + a - c] = band[rb * B + PER + a - c] - k.keep(both);
            }
        }
    }
    if rod {
        curvature_rows::<L, S, PER, B>(s, b, band, y, h2);
    }
    // LDLᵀ in place: `band[r·B + k]` becomes L[r][r−k], `band[r·B]` 1/dᵣ.
    let floor = L::splat(PIVOT);
    let mut ld = [zero; B];
    for r in 0..m {
        let kmax = r.min(B - 1);
        let row = r * B;
        for k in (1..=kmax).rev() {
            let c = r - k;
            let mut v = band[row + k];
            for t in r - kmax..c {
                v = v - ld[r - t] * band[c * B + c - t];
            }
            ld[k] = v;
            band[row + k] = v * band[c * B];
        }
        let mut v = band[row];
        for k in 1..=kmax {
            v = v - ld[k] * band[row + k];
        }
        if r % PER == DIST && r >= PER + DIST {
            // A distance row: its pivot is at most −PIVOT times its scale
            // w_j + w_j+1 + α̃ (of the ends that move).
            let j = r / PER - 1;
            let wa = s.w(j).keep(s.free(j));
            let wb = s.w(j + 1).keep(s.free(j + 1));
            let lim = (floor * (wa + wb + at)).neg();
            v = L::select(v.lt(lim), v, L::select(lim.lt(zero), lim, one.neg()));
        }
        band[row] = one / v;
    }
    // L z = y, then D x' = z and Lᵀ x = x' in one backward pass.
    for r in 0..m {
        let kmax = r.min(B - 1);
        let mut v = y[r];
        for k in 1..=kmax {
            v = v - band[r * B + k] * y[r - k];
        }
        y[r] = v;
    }
    for r in (0..m).rev() {
        let mut v = y[r] * band[r * B];
        for k in 1..B.min(m - r) {
            v = v - band[(r + k) * B + k] * y[r + k];
        }
        y[r] = v;
    }
    // The lanes whose step is finite and moves no particle further than
    // 100 times the scale of what the system asks (the particle's
    // largest distance from the prediction, plus the cable's rest length
    // and its constraints' violations, summed): the others take none of
    // it (`fall_back`). In f32 a nearly singular system (a segment
    // stretched thousands of times, a joint folding back, a rod stiffer
    // than the band resolves) can give a finite step of 10¹¹ m, after
    // which everything is NaN. A Newton step may overshoot (one of
    // 43 m on a 5.9 m cable folding from straight, which the next
    // iterations undo, is met in the golden scenes): the margin keeps
    // such steps.
    let scale = off + reach;
    let bound = L::splat(100.0) * scale;
    let bound = bound * bound;
    let tiny = L::splat(CONVERGED) * scale;
    let tiny = tiny * tiny;
    let mut ok = L::M::splat(true);
    let mut small = L::M::splat(true);
    for v in y.iter() {
        ok = ok & v.finite();
    }
    for p in 0..np {
        let dx = V3::new(y[PER * p], y[PER * p + 1], y[PER * p + 2]);
        let d2 = dx.length_squared().keep(s.free(p));
        ok = ok & d2.le(bound) & (s.pos(p) + dx).finite();
        small = small & d2.le(tiny);
    }
    // The lanes that take their step: not the converged ones.
    let take = ok & !done;

    // Positions and multipliers.
    for p in 0..np {
        let f = s.free(p) & take;
        let dx = V3::new(y[PER * p], y[PER * p + 1], y[PER * p + 2]);
        let x = s.pos(p);
        s.set_pos(p, V3::select(f, x + dx, x));
    }
    for j in 0..np - 1 {
        let r = PER * (j + 1) + DIST;
        let l = s.lambda(1, j);
        s.set_lambda(1, j, L::select(take, l + y[r], l));
    }
    if rod {
        for i in 1..np - 1 {
            let r = PER * i + KAPPA;
            let l = s.lambda_row(i, CURVATURE);
            s.set_lambda_row(i, CURVATURE, L::select(take, l + y[r], l));
        }
        // Clamped ends' rows (`curvature_rows`), in their lanes alone.
        for i in [0, np - 1] {
            let on = s.curv(i).2 & take;
            if on.any() {
                let l = s.lambda_row(i, CURVATURE);
                s.set_lambda_row(i, CURVATURE, L::select(on, l + y[PER * i + KAPPA], l));
            }
        }
    }
    (ok, small)
}

/// The curvature rows of a rod's system ([`solve_direct`]): each inner
/// particle's row (`−J` left and right of it, `−α̃` on its diagonal,
/// `C + α̃λ` on its right-hand side, `Jᵀλ` added to its particles'), and
/// the bending geometric stiffness on its three particles. The end
/// particles' rows are dead, but for a clamped end's ([`Block::clamp_o`]):
/// its constraint against the clamp's virtual particle (fixed) in the
/// end particle's row.
#[inline(always)]
fn curvature_rows<L: Lane, S: Store<L>, const PER: usize, const B: usize>(
    s: &mut S,
    b: &Block<L>,
    band: &mut [L],
    y: &mut [L],
    h2: L,
) {
    let np = s.rows();
    let one = L::splat(1.0);
    band[KAPPA * B] = one.neg();
    band[(PER * (np - 1) + KAPPA) * B] = one.neg();
    for i in 1..np - 1 {
        let at = [Some(i - 1), Some(i), Some(i + 1)];
        let x = [s.pos(i - 1), s.pos(i), s.pos(i + 1)];
        curvature_row::<L, S, PER, B, false>(s, band, y, h2, at, x);
    }
    // Clamped ends, where some lane has one. Their writes are selected
    // lane by lane (`EDGE`), so a lane without a clamp keeps every bit of
    // what the rows above left, as a cable without one that skips them.
    if s.curv(0).2.any() {
        let x = s.pos(0);
        let at = [None, Some(0), Some(1)];
        curvature_row::<L, S, PER, B, true>(s, band, y, h2, at, [x + b.clamp_o[0], x, s.pos(1)]);
    }
    if s.curv(np - 1).2.any() {
        let x = s.pos(np - 1);
        let at = [Some(np - 2), Some(np - 1), None];
        let xs = [s.pos(np - 2), x, x + b.clamp_o[1]];
        curvature_row::<L, S, PER, B, true>(s, band, y, h2, at, xs);
    }
}

/// One curvature row of [`curvature_rows`], at the middle one of the
/// three particles `at` (rows; `None` for a clamp's virtual particle,
/// fixed and outside the system), at positions `x`. With `EDGE` every
/// write is selected by the lanes it concerns (a clamped end's row,
/// which lanes without a clamp must leave as it was, bit for bit);
/// without, the inner rows' masked arithmetic.
#[inline(always)]
fn curvature_row<L: Lane, S: Store<L>, const PER: usize, const B: usize, const EDGE: bool>(
    s: &mut S,
    band: &mut [L],
    y: &mut [L],
    h2: L,
    at: [Option<usize>; 3],
    x: [V3<L>; 3],
) {
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    let two = L::splat(2.0);
    let i = at[1].unwrap_or(0);
    // A written value: `v` where `m`, else (`EDGE`) what is there.
    let put = |m: L::M, v: L, old: L| if EDGE { L::select(m, v, old) } else { v };
    let rr = PER * i + KAPPA;
    // Every lane runs the same operations, its constraint on or off
    // (masked): a lane group and a single cable agree bit for bit.
    let (k0, alpha, on) = s.curv(i);
    let atk = alpha / h2;
    let turn = Turn::new(x);
    let Turn {
        e1,
        e2,
        l1,
        l2,
        cr,
        den,
        ..
    } = turn;
    // Not folded back on itself (nor a segment of zero length): the
    // bending stiffness applies; turning too: the row has a direction.
    let open = on & turn.open();
    let live = open & turn.turning();
    // The scalar row, as `sweep_curvature` (a gradient where the row is
    // dead is never read: each use is masked by `live`).
    let kappa = turn.kappa().keep(live);
    let [g0, g1, g2] = turn.gradients();
    let lam_old = s.lambda_row(i, CURVATURE);
    let lam = lam_old.keep(live);
    s.set_lambda_row(i, CURVATURE, put(on, lam, lam_old));
    band[rr * B] = put(on, L::select(live, atk.neg(), one.neg()), band[rr * B]);
    y[rr] = put(on, (kappa - k0 + atk * lam).keep(live), y[rr]);
    for (q, g) in [g0, g1, g2].into_iter().enumerate() {
        let Some(p) = at[q] else { continue };
        let f = s.free(p) & live;
        let (gv, nv) = (xyz(g.keep(f)), xyz((-g).keep(f)));
        for c in 0..3 {
            let col = PER * p + c;
            // −J, left of the diagonal in the row, or in the rows of
            // particle i + 1 after it.
            let e = if col < rr {
                rr * B + rr - col
            } else {
                col * B + col - rr
            };
            band[e] = put(on, nv[c], band[e]);
            y[col] = put(f, y[col] + gv[c] * lam, y[col]);
        }
    }
    // Vector curvature κb = 2 e₁×e₂ / den and its Jacobian: with
    // dd₁ = ∂den/∂e₁ = (l₂/l₁) e₁ + e₂ and dd₂ = (l₁/l₂) e₂ + e₁,
    // ∂κb/∂e₁ = (−2[e₂]× − κb dd₁ᵀ)/den, ∂κb/∂e₂ = (2[e₁]× − κb dd₂ᵀ)/den.
    let inv = (one / den).keep(open);
    let kb = xyz(cr.scale(two * inv));
    let dd1 = xyz((e1.scale(l2 / l1) + e2).keep(open));
    let dd2 = xyz((e2.scale(l1 / l2) + e1).keep(open));
    let (c1, c2) = (skew(e1), skew(e2));
    let mut jac = [[[zero; 3]; 3]; 3];
    for a in 0..3 {
        for c in 0..3 {
            let j1 = ((two * c2[a][c]).neg() - kb[a] * dd1[c]) * inv;
            let j2 = (two * c1[a][c] - kb[a] * dd2[c]) * inv;
            jac[0][a][c] = j1.neg();
            jac[1][a][c] = j1 - j2;
            jac[2][a][c] = j2;
        }
    }
    // P = c (I − u uᵀ), c = max(0, 1 − κ₀/|κb|)/α̃ (1/α̃ when straight).
    let ui = (one / kappa).keep(live);
    let u = [kb[0] * ui, kb[1] * ui, kb[2] * ui];
    let t = one - k0 * ui;
    let t = L::select(zero.lt(t), t, zero);
    let cs = L::select(live, t, one) / atk;
    // In f32 the band loses a particle's mass beside a stiffness over
    // ~10⁷ times it (a stiff rod of fine segments went NaN), so c is held
    // where this constraint's stiffness on each particle, `c·|Jq|²`
    // (Frobenius norm of its 3 × 3 block of Jb) times the particle's
    // inverse mass, stays below 2·`GEOMETRIC_CAP`: the middle particle's
    // is `c·8/l²` at a straight joint of equal segments (the cap's
    // `c·4/l²`), and it grows as 1/(1 + cos θ)² as the joint folds (a rod
    // thrown about by a pin moved a kilometre went NaN at such a joint
    // when c was bounded by the straight joint's alone).
    // Only the step's Hessian changes, not the residual: a converged step
    // is the same rod; below the cap not a bit changes.
    let wf = |r: Option<usize>| r.map_or(zero, |r| s.w(r).keep(s.free(r)));
    let mut most = zero;
    for (q, r) in at.into_iter().enumerate() {
        let mut f = zero;
        for row in &jac[q] {
            for &v in row {
                f = f + v * v;
            }
        }
        let f = f * wf(r);
        most = L::select(most.lt(f), f, most);
    }
    let fold = L::splat(2.0 * GEOMETRIC_CAP) / most;
    let cs = L::select(cs.lt(fold), cs, fold).keep(open);
    let mut pm = [[zero; 3]; 3];
    for a in 0..3 {
        for c in 0..3 {
            let delta = if a == c { one } else { zero };
            pm[a][c] = cs * (delta - u[a] * u[c]);
        }
    }
    // P Jb per particle, then Jbᵀ P Jb block by block (lower half).
    let mut pj = [[[zero; 3]; 3]; 3];
    for q in 0..3 {
        for a in 0..3 {
            for c in 0..3 {
                let mut v = pm[a][0] * jac[q][0][c];
                for x in 1..3 {
                    v = v + pm[a][x] * jac[q][x][c];
                }
                pj[q][a][c] = v;
            }
        }
    }
    for (qa, ja) in jac.iter().enumerate() {
        for (qb, pjb) in pj.iter().enumerate().take(qa + 1) {
            let (Some(pa), Some(pb)) = (at[qa], at[qb]) else {
                continue;
            };
            let mk = open & s.free(pa) & s.free(pb);
            for (ca, hrow) in transpose_mul(ja, pjb).iter().enumerate() {
                for (cb, &v) in hrow.iter().enumerate() {
                    if qa == qb && cb > ca {
                        continue;
                    }
                    let (ra, rb) = (PER * pa + ca, PER * pb + cb);
                    let e = ra * B + ra - rb;
                    band[e] = put(mk, band[e] + v.keep(mk), band[e]);
                }
            }
        }
    }
}
