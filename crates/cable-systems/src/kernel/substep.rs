//! The one solver kernel: the substep written once, generic over the lane
//! type ([`Lane`]: one cable in `f32`, `N` cables in [`crate::lane::Fx`])
//! and over the storage it runs on ([`Store`]: the pool's SoA columns, the
//! object-per-particle `Aos` arrays, the `Lanes8` lane groups).
//!
//! Every layout calls [`substep`]; a constraint or contact type added here
//! runs on every layout, and every layout gives bitwise the same positions
//! (the lanes of a wide run perform the scalar run's operations in its
//! order, see [`crate::lane`]).

use cable_core::{ColliderSet, MIN_SEGMENT_LENGTH};

use glam::Vec3;

use crate::contact::Contacts;
use crate::lane::{Lane, Mask, V3};
use crate::layout::Stages;
use crate::params::SolverParams;

/// Constants of one rigid constraint between particles `i` and `i + span`,
/// derived from the inverse masses `wa`, `wb` and the rest length. Which
/// ends move is read from the weights (a weight is zero exactly when its
/// end does not move), so a row of 32 lanes is 384 bytes, not 640 with two
/// masks: one substep per frame streams every row from memory.
#[derive(Clone, Copy, Debug)]
pub struct Rigid<L: Lane> {
    /// Rest length, metres.
    pub rest: L,
    /// `-(wa / (wa + wb))` where particle a moves, else ±0.
    pub nka: L,
    /// `wb / (wa + wb)` where particle b moves, else ±0.
    pub kb: L,
}

impl<L: Lane> Rigid<L> {
    /// The constants of a constraint of length `rest` between inverse
    /// masses `wa`, `wb`, on in the lanes of `linked` (a torn segment's is
    /// off): an end moves where the constraint is on, its inverse mass is
    /// positive and the sum of both is (see [`Rigid::moves`] for the
    /// extremes where a weight is zero all the same).
    #[inline(always)]
    pub fn new(wa: L, wb: L, rest: L, linked: L::M) -> Self {
        let zero = L::splat(0.0);
        let wsum = wa + wb;
        let on = zero.lt(wsum) & linked;
        Self {
            rest,
            nka: (wa / wsum).neg().keep(on & zero.lt(wa)),
            kb: (wb / wsum).keep(on & zero.lt(wb)),
        }
    }

    /// The lanes where particle a moves, and where b does: their weights
    /// are not zero. An end whose weight rounds to zero though its inverse
    /// mass is positive (inverse masses some 10⁴⁵ apart), or both ends when
    /// `wa + wb` overflows to infinity, count as pinned: the segment then
    /// leaves them exactly where they are (before 2026-11-26 they moved
    /// by a signed zero, or became NaN with an infinite length).
    #[inline(always)]
    pub fn moves(&self) -> (L::M, L::M) {
        let zero = L::splat(0.0);
        (!self.nka.eq(zero), !self.kb.eq(zero))
    }
}

/// Constants of one compliant (XPBD) constraint.
#[derive(Clone, Copy, Debug)]
pub struct Soft<L: Lane> {
    /// Rest length, metres.
    pub rest: L,
    /// Inverse mass of particle a.
    pub wa: L,
    /// `-wb`.
    pub nwb: L,
    /// `wa + wb + α/h²`.
    pub denom: L,
    /// `wa + wb > 0`.
    pub m: L::M,
}

impl<L: Lane> Soft<L> {
    /// The constants of a compliant constraint with `alpha_t` = compliance / h².
    #[inline(always)]
    pub fn new(wa: L, wb: L, rest: L, alpha_t: L) -> Self {
        let wsum = wa + wb;
        Self {
            rest,
            wa,
            nwb: wb.neg(),
            denom: wsum + alpha_t,
            m: L::splat(0.0).lt(wsum),
        }
    }
}

/// The particle state the kernel runs on: one cable (`L = f32`) or a lane
/// group of equal-length cables, in whatever memory layout.
///
/// Rows are particles along the cable. Implementations are small accessors;
/// every piece of arithmetic is the kernel's.
pub trait Store<L: Lane> {
    /// Number of particles (rows).
    fn rows(&self) -> usize;
    /// Position of row `i`.
    fn pos(&self, i: usize) -> V3<L>;
    /// Sets the position of row `i`.
    fn set_pos(&mut self, i: usize, p: V3<L>);
    /// Previous position of row `i`.
    fn prev(&self, i: usize) -> V3<L>;
    /// Sets the previous position of row `i`.
    fn set_prev(&mut self, i: usize, p: V3<L>);
    /// What rounding dropped of particle `i`'s last displacement
    /// ([`cable_core::ParticlePool::carry`]).
    fn carry(&self, i: usize) -> V3<L>;
    /// Sets particle `i`'s carried rounding.
    fn set_carry(&mut self, i: usize, c: V3<L>);
    /// Inverse mass of row `i`.
    fn w(&self, i: usize) -> L;
    /// Row `i` is free (`w > 0`).
    fn free(&self, i: usize) -> L::M;
    /// The rigid constraint between rows `i` and `i + span` (1: distance, 2: bending).
    fn rigid(&self, i: usize, span: usize) -> Rigid<L>;
    /// The compliant constraint between rows `i` and `i + span`.
    fn soft(&self, i: usize, span: usize, alpha_t: L) -> Soft<L>;
    /// XPBD multiplier of constraint `i` of `span`.
    fn lambda(&self, span: usize, i: usize) -> L;
    /// Sets the XPBD multiplier of constraint `i` of `span`.
    fn set_lambda(&mut self, span: usize, i: usize, l: L);
    /// Zeroes every multiplier (start of a substep).
    fn reset_lambda(&mut self);
    /// The tether of row `i` towards the start (`side` 0) or the end (1):
    /// the anchor particle's position, the reach, and the lanes that have
    /// one ([`cable_core::RowConst::anchor`]).
    fn tether(&self, i: usize, side: usize) -> (V3<L>, L, L::M);
    /// The curvature constraint of row `i`: rest curvature, compliance
    /// (not yet divided by h²) and the lanes that have one.
    fn curv(&self, i: usize) -> (L, L, L::M);
    /// Multiplier `k` of row `i`: 0 and 1 the tethers, 2 the curvature.
    fn lambda_row(&self, i: usize, k: usize) -> L;
    /// Sets multiplier `k` of row `i`.
    fn set_lambda_row(&mut self, i: usize, k: usize, l: L);
    /// Zeroes every row multiplier (start of a substep).
    fn reset_lambda_row(&mut self);
    /// Called before each projection of a distance sweep and of a
    /// compliant sweep (bending too), not by the rigid bending and
    /// curvature sweeps: a store
    /// may ask the CPU for memory it will need next (`lanes8` asks for the
    /// next bundle's rows, a few lines at a time, so that memory traffic
    /// overlaps the sweep's latency-bound chain). A hint: it must change
    /// no value. Does nothing by default.
    #[inline(always)]
    fn ahead(&mut self) {}
}

/// Per-block constants of a substep.
#[derive(Clone, Copy, Debug)]
pub struct Block<L: Lane> {
    /// `h² · (gravity · gravity_scale + force)`, metres.
    pub dacc: V3<L>,
    /// Compliance / h² (XPBD's α̃).
    pub alpha_t: L,
    /// Attached ends: which lanes, and their targets ([`cable_core::End::slot`] order).
    pub attach_m: [L::M; 2],
    /// Attachment targets.
    pub attach_t: [V3<L>; 2],
    /// Cable radius, metres (contacts).
    pub radius: L,
    /// Lanes holding a cable (not padding).
    pub live: L::M,
    /// Bending constraints (i to i + 2) are on.
    pub stiff: bool,
    /// The distance constraints are compliant (XPBD).
    pub soft: bool,
    /// Some lane has tethers on.
    pub tether: bool,
    /// Some lane has curvature constraints (bending stiffness).
    pub curv: bool,
    /// Some lane can break: accumulate the multipliers (tension).
    pub track: bool,
    /// Verlet velocity factor `max(0, 1 - damping·h)` of each lane (the
    /// cable's damping, or the solver's).
    pub keep: L,
    /// Coulomb friction coefficient of each lane.
    pub mu: L,
    /// Friction runs (every lane of a lane group agrees: the layouts group
    /// cables by it).
    pub friction: bool,
    /// Solver iterations (every lane agrees, as for `friction`).
    pub iterations: u32,
}

impl<L: Lane> Default for Block<L> {
    fn default() -> Self {
        Self {
            dacc: V3::zero(),
            alpha_t: L::splat(0.0),
            attach_m: [L::M::splat(false); 2],
            attach_t: [V3::zero(); 2],
            radius: L::splat(0.0),
            live: L::M::splat(false),
            stiff: false,
            soft: false,
            tether: false,
            curv: false,
            track: false,
            keep: L::splat(1.0),
            mu: L::splat(0.0),
            friction: false,
            iterations: 1,
        }
    }
}

impl<L: Lane> Block<L> {
    /// Sets lane `l` from one cable's parameters (`rows` particles).
    pub fn set_lane(
        &mut self,
        l: usize,
        cable: &cable_core::CableParams,
        attach: &[Option<Vec3>; 2],
        rows: usize,
        params: &SolverParams,
    ) {
        let h = params.substep;
        let acc = params.gravity * cable.gravity_scale + cable.force;
        self.dacc.set_lane(l, acc * (h * h));
        self.alpha_t.set_lane(l, cable.compliance / (h * h));
        self.radius.set_lane(l, cable.radius);
        self.live.set_lane(l, true);
        self.set_targets(l, attach);
        self.stiff = cable.stiffness && rows >= 3;
        self.soft = cable.compliance != 0.0;
        self.tether |= cable.tethers;
        self.curv |= cable.bend_stiffness > 0.0 && rows >= 3;
        self.track |= cable.break_tension.is_some();
        let damping = cable.damping.unwrap_or(params.damping);
        // `SolverParams::velocity_keep`'s arithmetic, so a cable without a
        // damping of its own gets the solver's factor bit for bit.
        self.keep.set_lane(l, (1.0 - damping * h).max(0.0));
        let mu = cable.friction.unwrap_or(params.friction);
        self.mu.set_lane(l, mu);
        self.friction = mu > 0.0;
        self.iterations = cable.iterations.unwrap_or(params.iterations);
    }

    /// Sets lane `l`'s attachment targets.
    pub fn set_targets(&mut self, l: usize, attach: &[Option<Vec3>; 2]) {
        for (slot, t) in attach.iter().enumerate() {
            self.attach_m[slot].set_lane(l, t.is_some());
            self.attach_t[slot].set_lane(l, t.unwrap_or(Vec3::ZERO));
        }
    }

    /// The constants of one cable.
    #[must_use]
    pub fn of_cable(
        cable: &cable_core::CableParams,
        attach: &[Option<Vec3>; 2],
        rows: usize,
        params: &SolverParams,
    ) -> Self {
        let mut b = Self::default();
        b.set_lane(0, cable, attach, rows, params);
        b
    }
}

/// What every block of a substep shares.
#[derive(Clone, Copy, Debug)]
pub struct Shared<'a> {
    /// The colliders, prepared for this substep.
    pub colliders: &'a ColliderSet,
    /// Which stages run.
    pub stages: Stages,
    /// Solve the distance constraints with [`crate::rod::solve_direct`].
    pub direct: bool,
    /// Accumulate every constraint's multiplier (tension output).
    pub track: bool,
    /// The substep squared, s².
    pub h2: f32,
    /// The contact passes run on a path wider than the baseline
    /// ([`crate::simd::Wide`]); set from
    /// [`crate::simd::active`], like the lane loops' path.
    pub wide: Option<crate::simd::Wide>,
    /// Blocks run their distance sweeps' iterations as a wavefront where
    /// they can (see [`substep`]);
    /// `false` runs them one after another. Both give the same results,
    /// bit for bit (the kernel's tests compare them); on by default.
    pub wavefront: bool,
}

impl<'a> Shared<'a> {
    /// The shared values of `params` and `colliders`.
    #[must_use]
    pub fn new(params: &SolverParams, colliders: &'a ColliderSet, stages: Stages) -> Self {
        Self {
            colliders,
            stages,
            direct: params.solver == crate::params::Solver::Direct,
            track: false,
            h2: params.substep * params.substep,
            wide: crate::simd::Wide::active(),
            wavefront: true,
        }
    }
}

/// Runs one substep on one block: the order of the simulation, written once.
///
/// # Steps
/// 1. **attachments**: attached ends are set to their targets (position
///    and previous position), as UE's `TickComponent`;
/// 2. **integrate**: for free particles `v = (p − p_prev)·keep;
///    p_prev = p; p += v + h²·(gravity·gravity_scale + force)`;
/// 3. **contacts** (only with colliders near the block): broad phase,
///    the side each piece starts on, swept particles and swept segments
///    against thin shapes ([`crate::contact`]);
/// 4. `iterations` times:
///    1. the **distance** constraints: a Gauss-Seidel sweep over the
///       segments in order (rigid, or XPBD with compliance), or with
///       [`crate::Solver::Direct`] all of them at once
///       ([`crate::rod::solve_direct`]);
///    2. the i to i + 2 **bending** sweep with `stiffness`;
///    3. the **curvature** sweep with `bend_stiffness`
///       ([`crate::rod::sweep_curvature`]);
///    4. in the last iteration only, **tethers**
///       ([`crate::rod::tethers`]): they only pull particles in, so one
///       pass at the end leaves every particle within its reach (a pass
///       every iteration cost half the free-air benchmark's throughput for
///       the same guarantee), and the contact passes after it keep
///       colliders the last word;
///    5. a **contact** pass;
///
///    (For a block, of any width, whose
///    iterations are distance sweeps alone (rigid, tracked or not, or
///    compliant) and tethers, with no collider near or only planes, the
///    sweeps run as one wavefront,
///    `sweeps_wavefront`, each particle meeting the planes as soon
///    as its sweep is done with it: the same result, bit for bit.)
/// 5. **friction**, then a last contact pass.
///
/// Multipliers (tension) are reset at the start of the substep and
/// accumulated through it when compliant constraints, the direct solver
/// or tension tracking need them.
#[inline(always)]
pub fn substep<L: Lane, S: Store<L>>(
    s: &mut S,
    b: &Block<L>,
    sh: &Shared<'_>,
    scratch: &mut Scratch<L>,
) {
    if sh.stages.attach {
        attach(s, b);
    }
    if sh.stages.integrate {
        integrate(s, b);
    }
    let touching = sh.stages.collide && scratch.contacts.find(s, b, sh.colliders, sh.wide);
    if !sh.stages.constraints && !touching {
        return;
    }
    let track = sh.track || b.track;
    if b.soft || track || sh.direct {
        s.reset_lambda();
    }
    if b.curv || (track && b.tether) {
        s.reset_lambda_row();
    }
    let h2 = L::splat(sh.h2);
    if sh.wavefront
        && sh.stages.constraints
        && !(b.stiff || b.curv || sh.direct)
        && (!touching || (scratch.contacts.planes_only() && s.rows() >= 2))
    {
        // Distance sweeps alone (rigid, their multipliers tracked or not,
        // or compliant), and no collider near or only planes, whose
        // contact pass is per particle: all iterations at once.
        let args = (s, b, sh, scratch, touching, track);
        match (b.soft, track) {
            (true, _) => iterations_wavefront::<L, S, SOFT>(args),
            (false, true) => iterations_wavefront::<L, S, TRACKED>(args),
            (false, false) => iterations_wavefront::<L, S, RIGID>(args),
        }
        return;
    }
    for it in 0..b.iterations {
        if sh.stages.constraints {
            if sh.direct {
                crate::rod::solve_direct(s, b, &mut scratch.chain);
            }
            if b.soft {
                sweep_soft(s, 1, b.alpha_t);
            } else if track || sh.direct {
                sweep_rigid_tracked(s);
            } else {
                sweep_rigid(s);
            }
            if b.stiff {
                if b.soft {
                    sweep_soft(s, 2, b.alpha_t);
                } else {
                    bend_rigid(s);
                }
            }
            if b.curv {
                crate::rod::sweep_curvature(s, h2);
            }
            if b.tether && it + 1 == b.iterations {
                crate::rod::tethers(s, track);
            }
        }
        if touching {
            scratch.contacts.project(s, b, sh.colliders);
        }
    }
    if touching {
        scratch.contacts.finish(s, b, sh.colliders);
    }
}

/// The distance constraints of [`sweeps_wavefront`]: rigid.
const RIGID: u8 = 0;
/// Rigid, each segment's multiplier accumulated (tension).
const TRACKED: u8 = 1;
/// Compliant (XPBD), with their multipliers.
const SOFT: u8 = 2;

/// [`substep`]'s iterations as one wavefront (`sweeps_wavefront`) for a
/// block whose iterations are distance sweeps alone, of kind `KIND`
/// ([`RIGID`], [`TRACKED`], [`SOFT`]), and whose contact candidates, if
/// `touching`, are all planes: each particle meets the planes as soon as
/// a sweep is done with it, then the tethers, then friction; the same
/// operations in an order with the same result.
#[inline(always)]
fn iterations_wavefront<L: Lane, S: Store<L>, const KIND: u8>(
    (s, b, sh, scratch, touching, track): (
        &mut S,
        &Block<L>,
        &Shared<'_>,
        &mut Scratch<L>,
        bool,
        bool,
    ),
) {
    let k = b.iterations as usize;
    let tethers = b.tether && k > 0;
    if touching {
        let (c, r) = (&mut scratch.contacts, b.radius);
        // The last iteration's contact pass comes after its tethers.
        let fused = if tethers { k - 1 } else { k };
        let planes = c.lend_planes();
        sweeps_wavefront::<L, S, KIND>(
            s,
            k,
            b.alpha_t,
            fused,
            #[inline(always)]
            |s, i, p| c.planes_row(&planes, i, p, s.free(i), r),
        );
        c.return_planes(planes);
        if tethers {
            crate::rod::tethers(s, track);
            c.project(s, b, sh.colliders);
        }
        c.finish(s, b, sh.colliders);
    } else {
        sweeps_wavefront::<L, S, KIND>(
            s,
            k,
            b.alpha_t,
            0,
            #[inline(always)]
            |_, _, _| {},
        );
        if tethers {
            crate::rod::tethers(s, track);
        }
    }
}

/// The kernel's working memory for one block: contact candidates and the
/// direct solver's chain. Fully rewritten by each use, so it carries
/// nothing between blocks; kept between frames so a warmed-up step does
/// not allocate.
#[derive(Clone)]
pub struct Scratch<L: Lane> {
    /// Contact candidates and state ([`Contacts::find`]).
    pub contacts: Contacts<L>,
    /// Per segment scratch of [`crate::rod::solve_direct`].
    pub chain: Vec<crate::rod::ChainRow<L>>,
}

impl<L: Lane> std::fmt::Debug for Scratch<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scratch")
            .field("chain_rows", &self.chain.len())
            .finish_non_exhaustive()
    }
}

impl<L: Lane> Default for Scratch<L>
where
    Contacts<L>: Default,
{
    fn default() -> Self {
        Self {
            contacts: Contacts::default(),
            chain: Vec::new(),
        }
    }
}

thread_local! {
    static SCALAR: std::cell::RefCell<Scratch<f32>> = std::cell::RefCell::new(Scratch::default());
}

impl Scratch<f32> {
    /// Runs `f` with this thread's one-lane scratch.
    pub fn with_thread_local<R>(f: impl FnOnce(&mut Scratch<f32>) -> R) -> R {
        SCALAR.with(|cell| {
            let mut c = std::mem::take(&mut *cell.borrow_mut());
            let r = f(&mut c);
            *cell.borrow_mut() = c;
            r
        })
    }
}

/// Step 1: attached ends at their targets.
#[inline(always)]
pub fn attach<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>) {
    let last = s.rows() - 1;
    for (slot, row) in [(0, 0), (1, last)] {
        let m = b.attach_m[slot];
        if m.any() {
            let t = b.attach_t[slot];
            s.set_pos(row, V3::select(m, t, s.pos(row)));
            s.set_prev(row, V3::select(m, t, s.prev(row)));
        }
    }
}

/// Step 2: Verlet integration of the free particles.
#[inline(always)]
pub fn integrate<L: Lane, S: Store<L>>(s: &mut S, b: &Block<L>) {
    let keep = b.keep;
    for i in 0..s.rows() {
        let f = s.free(i);
        let cur = s.pos(i);
        let q = s.prev(i);
        // The last displacement in full: what the positions show plus what
        // rounding them dropped.
        let v = (cur - q + s.carry(i)).scale(keep);
        let step = v + b.dacc;
        let next = cur + step;
        // What rounding `next` to f32 drops of `step` (Fast2Sum's error
        // term: exact while |step| ≤ |cur|, and below the rounding of
        // `step` itself otherwise). Far from the origin a substep's h²·g is
        // a few spacings of the coordinate; carried, its rounding never
        // becomes velocity.
        let lost = step - (next - cur);
        s.set_pos(i, V3::select(f, next, cur));
        s.set_prev(i, V3::select(f, cur, q));
        s.set_carry(i, V3::select(f, lost, V3::zero()));
    }
}

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
/// end next to a particle that is already NaN or infinite now takes the
/// NaN too, where three masks per end kept it out before 2026-11-26.)
/// Six fewer mask operations per lane group and projection: the 32-lane
/// sweep runs out of registers, and each of them cost spills too (see the
/// performance history, `docs/performance-history.md`).
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
/// against it in `f64`), not its bits: the golden scenes with compliant
/// constraints were re-minted for this on 2026-11-26. A skipped lane's
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
fn sweep_rigid<L: Lane, S: Store<L>>(s: &mut S) {
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
const WAVEFRONT_LAG: usize = 2;

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
/// path (LLVM packs them in 512-bit registers) and four of 8 on AVX2. Run
/// as a wavefront the 32-lane bundles of `cable bench --layout lanes8`
/// went from 3.09–3.12 × 10⁹ segment-iterations per second to 3.90–3.97
/// × 10⁹ on the AVX-512 path and from 2.30 to 2.66–2.69 × 10⁹ on the AVX2
/// path (three alternating rounds each, 2026-11-26 about 22:20 UTC; before that
/// only blocks of at most 8 lanes ran it: with 32, on AVX2, the bench had
/// measured 0.93× on 2026-11-24, on another host and kernel). (A lag of
/// one segment would be as exact, the projections of a step running in
/// sweep order, but each would wait for the one before it.) The layout
/// tests and the golden hashes fail if the order is wrong (checked by
/// running a step's sweeps in reverse order at lag one).
///
/// With `fused > 0`, sweeps `0..fused` are each followed by a per-particle
/// pass `then(s, i, p)` (the contact pass with planes,
/// [`Contacts::planes_row`]), run on particle `i` as soon as its sweep is
/// done with it: after segment `i` (the last particle after the last
/// segment). The next sweep reads particle `i` one step later, at its
/// segment `i − 1`, so it sees the particle the pass left, as when the
/// sweeps and passes run one after another; `then` reads and writes that
/// particle (and its contact state) alone. The kernel's tests check this
/// bit for bit against the sweeps and passes in turn.
#[inline(always)]
fn sweeps_wavefront<L: Lane, S: Store<L>, const KIND: u8>(
    s: &mut S,
    k: usize,
    alpha_t: L,
    fused: usize,
    mut then: impl FnMut(&S, usize, &mut V3<L>),
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
            if j < fused {
                then(s, i, &mut a);
                if i + 1 == segs {
                    then(s, segs, &mut b);
                }
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
fn sweep_rigid_tracked<L: Lane, S: Store<L>>(s: &mut S) {
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
fn track_rigid<L: Lane, S: Store<L>>(s: &mut S, i: usize, a: V3<L>, b: V3<L>, c: &Rigid<L>) {
    let d = b - a;
    let len = d.length();
    let (ma, mb) = c.moves();
    let live = !len.le(L::splat(MIN_SEGMENT_LENGTH)) & (ma | mb);
    let dl = (len - c.rest).neg() / (s.w(i) + s.w(i + 1));
    let l = s.lambda(1, i);
    s.set_lambda(1, i, L::select(live, l + dl, l));
}

/// One rigid bending sweep (particles i and i + 2).
#[inline(always)]
fn bend_rigid<L: Lane, S: Store<L>>(s: &mut S) {
    for i in 0..s.rows() - 2 {
        let (mut a, mut b) = (s.pos(i), s.pos(i + 2));
        project_rigid(&mut a, &mut b, &s.rigid(i, 2));
        s.set_pos(i, a);
        s.set_pos(i + 2, b);
    }
}

/// One compliant sweep of the constraints between i and i + `span`.
#[inline(always)]
fn sweep_soft<L: Lane, S: Store<L>>(s: &mut S, span: usize, alpha_t: L) {
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
fn project_soft_at<L: Lane, S: Store<L>>(
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

/// The pool's SoA columns of one cable as a one-lane [`Store`].
impl Store<f32> for cable_core::CableMut<'_> {
    #[inline(always)]
    fn rows(&self) -> usize {
        self.pos.len()
    }
    #[inline(always)]
    fn pos(&self, i: usize) -> V3<f32> {
        self.pos[i].into()
    }
    #[inline(always)]
    fn set_pos(&mut self, i: usize, p: V3<f32>) {
        self.pos[i] = p.into();
    }
    #[inline(always)]
    fn prev(&self, i: usize) -> V3<f32> {
        self.prev[i].into()
    }
    #[inline(always)]
    fn set_prev(&mut self, i: usize, p: V3<f32>) {
        self.prev[i] = p.into();
    }
    #[inline(always)]
    fn carry(&self, i: usize) -> V3<f32> {
        self.carry[i].into()
    }
    #[inline(always)]
    fn set_carry(&mut self, i: usize, c: V3<f32>) {
        self.carry[i] = c.into();
    }
    #[inline(always)]
    fn w(&self, i: usize) -> f32 {
        self.inv_mass[i]
    }
    #[inline(always)]
    fn free(&self, i: usize) -> bool {
        self.inv_mass[i] > 0.0
    }
    #[inline(always)]
    fn rigid(&self, i: usize, span: usize) -> Rigid<f32> {
        Rigid::new(
            self.inv_mass[i],
            self.inv_mass[i + span],
            span_rest(self.rest, i, span),
            span_linked(self.row_const, i, span),
        )
    }
    #[inline(always)]
    fn soft(&self, i: usize, span: usize, alpha_t: f32) -> Soft<f32> {
        let rest = span_rest(self.rest, i, span);
        let mut c = Soft::new(self.inv_mass[i], self.inv_mass[i + span], rest, alpha_t);
        c.m &= span_linked(self.row_const, i, span);
        c
    }
    #[inline(always)]
    fn tether(&self, i: usize, side: usize) -> (V3<f32>, f32, bool) {
        let k = &self.row_const[i];
        match k.anchor[side] {
            cable_core::NO_ANCHOR => (V3::zero(), 0.0, false),
            a => (self.pos[a as usize].into(), k.reach[side], true),
        }
    }
    #[inline(always)]
    fn curv(&self, i: usize) -> (f32, f32, bool) {
        let k = &self.row_const[i];
        (k.kappa0, k.bend_compliance, k.bend_compliance > 0.0)
    }
    #[inline(always)]
    fn lambda_row(&self, i: usize, k: usize) -> f32 {
        self.lambda_row[i][k]
    }
    #[inline(always)]
    fn set_lambda_row(&mut self, i: usize, k: usize, l: f32) {
        self.lambda_row[i][k] = l;
    }
    fn reset_lambda_row(&mut self) {
        self.lambda_row.fill([0.0; 3]);
    }
    #[inline(always)]
    fn lambda(&self, span: usize, i: usize) -> f32 {
        if span == 1 {
            self.lambda[i]
        } else {
            self.lambda_bend[i]
        }
    }
    #[inline(always)]
    fn set_lambda(&mut self, span: usize, i: usize, l: f32) {
        if span == 1 {
            self.lambda[i] = l;
        } else {
            self.lambda_bend[i] = l;
        }
    }
    fn reset_lambda(&mut self) {
        self.lambda.fill(0.0);
        self.lambda_bend.fill(0.0);
    }
}

/// Rest length between rows `i` and `i + span`: one segment, or the sum of
/// two (UE's and Flax's bending constraint).
#[inline(always)]
pub fn span_rest(rest: &[f32], i: usize, span: usize) -> f32 {
    if span == 1 {
        rest[i]
    } else {
        rest[i] + rest[i + 1]
    }
}

/// The segments between rows `i` and `i + span` are all intact.
#[inline(always)]
pub fn span_linked(k: &[cable_core::RowConst], i: usize, span: usize) -> bool {
    if span == 1 {
        k[i].linked
    } else {
        k[i].linked && k[i + 1].linked
    }
}

/// Runs `n` substeps of one cable in the pool's columns (the `Soa`
/// layout's work, and the scalar path of every other layout), with this
/// thread's scratch ([`Scratch::with_thread_local`]).
pub fn advance_cable(
    c: &mut cable_core::CableMut<'_>,
    params: &SolverParams,
    n: u32,
    stages: Stages,
    track: bool,
) {
    if !c.active {
        // Asleep, or hidden and skipped: left as it is.
        return;
    }
    Scratch::<f32>::with_thread_local(|scratch| {
        advance_cable_with(c, params, n, stages, track, scratch);
    });
}

/// [`advance_cable`] with the caller's scratch: the layouts keep one per
/// piece of their one-lane cables, so that what a
/// scratch grows to depends on the scene alone, not on which thread ran
/// which cable (a thread's own scratch grows the first time that thread
/// meets a longer cable, which work stealing may make any frame).
pub fn advance_cable_with(
    c: &mut cable_core::CableMut<'_>,
    params: &SolverParams,
    n: u32,
    stages: Stages,
    track: bool,
    scratch: &mut Scratch<f32>,
) {
    if !c.active {
        // Asleep, or hidden and skipped: left as it is.
        return;
    }
    let b = Block::of_cable(c.params, c.attach, c.pos.len(), params);
    let colliders = c.colliders;
    let mut sh = Shared::new(params, colliders, stages);
    sh.track = track;
    for _ in 0..n {
        substep(c, &b, &sh, scratch);
    }
}

#[cfg(test)]
mod tests {
    use cable_core::{CableDesc, Collider, ParticlePool};
    use glam::Vec3;

    use super::{Block, Rigid, Scratch, Shared, Soft, Store, V3, substep};
    use crate::layout::Stages;
    use crate::params::SolverParams;

    /// Segments of the cables of [`run`]: cable `k` has `SEGS[k]`.
    const SEGS: [u32; 6] = [1, 2, 5, 13, 32, 3];

    /// Cables draped over `planes` (and tethers, pins, friction, tension
    /// tracking as asked) after 150 substeps, run with or without the
    /// wavefront: every particle's bits, then every multiplier's. Cable 5
    /// has one iteration and a free end; with `soft` it is both compliant
    /// and tracked.
    fn run(
        planes: &[Collider],
        tethers: bool,
        friction: f32,
        track: bool,
        soft: bool,
        wavefront: bool,
    ) -> Vec<[u32; 3]> {
        let mut pool = ParticlePool::new();
        let mut handles = Vec::new();
        for (k, segs) in SEGS.into_iter().enumerate() {
            let y = 0.1 * k as f32;
            let z = 0.5 * k as f32;
            let (a, b) = (Vec3::new(0.0, y, z), Vec3::new(4.0, y + 0.5, z));
            let mut desc = CableDesc::line(a, b, 6.0, segs).expect("a valid cable");
            desc.attach_end = k % 2 == 0;
            desc.params.tethers = tethers;
            desc.params.radius = 0.05;
            if track && k % 2 == 1 {
                // Far above what the scene pulls: tracked, never broken.
                desc.params.break_tension = Some(1e9);
            }
            if soft && (k % 2 == 0 || k == 5) {
                desc.params.compliance = 1e-4;
            }
            desc.params.iterations = Some(if k == 5 { 1 } else { 1 + (k as u32 * 3) % 8 });
            if segs > 4 {
                desc.pins = vec![segs / 2];
            }
            handles.push(pool.add_cable(&desc).expect("room for the cable"));
        }
        for c in planes {
            pool.colliders_mut().add(*c);
        }
        let params = SolverParams {
            friction,
            ..SolverParams::default()
        };
        let stages = Stages::default();
        let mut scratch = Scratch::<f32>::default();
        for _ in 0..150 {
            pool.colliders_mut().prepare();
            let cols = pool.columns_mut();
            let set = cols.colliders();
            let mut sh = Shared::new(&params, set, stages);
            sh.wavefront = wavefront;
            for mut c in cols.into_cables() {
                let b = Block::of_cable(c.params, c.attach, c.pos.len(), &params);
                substep(&mut c, &b, &sh, &mut scratch);
            }
        }
        let mut bits: Vec<[u32; 3]> = handles
            .iter()
            .flat_map(|&h| pool.positions(h).expect("a live cable").to_vec())
            .map(|p| p.to_array().map(f32::to_bits))
            .collect();
        for &h in &handles {
            let (lambda, lambda_row) = pool.multipliers(h).expect("a live cable");
            bits.extend(lambda.iter().map(|l| [l.to_bits(), 0, 0]));
            bits.extend(lambda_row.iter().map(|l| l.map(f32::to_bits)));
        }
        bits
    }

    /// The wavefront with planes (each particle meets the planes as soon
    /// as its sweep is done with it) is bitwise the sweeps and contact
    /// passes in turn: an axis plane, an oblique one, two planes, with and
    /// without tethers (whose last pass is not fused), friction, tension
    /// tracking (each segment's multiplier summed over the iterations in
    /// their order) and compliance (each segment's XPBD multiplier read by
    /// the next iteration).
    #[test]
    fn the_wavefront_is_the_sweeps_and_passes_in_turn() {
        let ground = Collider::plane(Vec3::Y, -0.5).expect("a plane");
        let tilted = Collider::plane(Vec3::new(0.3, 1.0, -0.2), -0.4).expect("a plane");
        let wall = Collider::plane(Vec3::NEG_X, -3.5).expect("a plane");
        let scenes: [&[Collider]; 4] = [&[], &[ground], &[tilted], &[ground, wall]];
        for (n, planes) in scenes.iter().enumerate() {
            for tethers in [false, true] {
                for friction in [0.0, 0.4] {
                    for (track, soft) in
                        [(false, false), (true, false), (false, true), (true, true)]
                    {
                        let want = run(planes, tethers, friction, track, soft, false);
                        let got = run(planes, tethers, friction, track, soft, true);
                        assert_eq!(got.len(), want.len());
                        if n == 1 {
                            // Not vacuous: every cable that can move lies on the
                            // ground (y = −0.5, radius 0.05).
                            let mut at = 0;
                            for (k, segs) in SEGS.into_iter().enumerate() {
                                let n = segs as usize + 1;
                                let low = got[at..at + n]
                                    .iter()
                                    .map(|p| f32::from_bits(p[1]))
                                    .fold(f32::INFINITY, f32::min);
                                at += n;
                                assert!(k == 0 || low < -0.44, "cable {k} is not down: {low}");
                            }
                        }
                        let first = got.iter().zip(&want).position(|(g, w)| g != w);
                        assert_eq!(
                            first, None,
                            "scene {n}, tethers {tethers}, friction {friction}, tension {track}, \
                             compliance {soft}: \
                             bits differ (particles, then multipliers)"
                        );
                    }
                }
            }
        }
    }

    /// Counts [`Store::ahead`] calls, forwarding everything else.
    struct Counting<'s, S> {
        s: &'s mut S,
        calls: usize,
    }

    impl<S: Store<f32>> Store<f32> for Counting<'_, S> {
        fn rows(&self) -> usize {
            self.s.rows()
        }
        fn pos(&self, i: usize) -> V3<f32> {
            self.s.pos(i)
        }
        fn set_pos(&mut self, i: usize, p: V3<f32>) {
            self.s.set_pos(i, p);
        }
        fn prev(&self, i: usize) -> V3<f32> {
            self.s.prev(i)
        }
        fn set_prev(&mut self, i: usize, p: V3<f32>) {
            self.s.set_prev(i, p);
        }
        fn carry(&self, i: usize) -> V3<f32> {
            self.s.carry(i)
        }
        fn set_carry(&mut self, i: usize, c: V3<f32>) {
            self.s.set_carry(i, c);
        }
        fn w(&self, i: usize) -> f32 {
            self.s.w(i)
        }
        fn free(&self, i: usize) -> bool {
            self.s.free(i)
        }
        fn rigid(&self, i: usize, span: usize) -> Rigid<f32> {
            self.s.rigid(i, span)
        }
        fn soft(&self, i: usize, span: usize, alpha_t: f32) -> Soft<f32> {
            self.s.soft(i, span, alpha_t)
        }
        fn lambda(&self, span: usize, i: usize) -> f32 {
            self.s.lambda(span, i)
        }
        fn set_lambda(&mut self, span: usize, i: usize, l: f32) {
            self.s.set_lambda(span, i, l);
        }
        fn reset_lambda(&mut self) {
            self.s.reset_lambda();
        }
        fn tether(&self, i: usize, side: usize) -> (V3<f32>, f32, bool) {
            self.s.tether(i, side)
        }
        fn curv(&self, i: usize) -> (f32, f32, bool) {
            self.s.curv(i)
        }
        fn lambda_row(&self, i: usize, k: usize) -> f32 {
            self.s.lambda_row(i, k)
        }
        fn set_lambda_row(&mut self, i: usize, k: usize, l: f32) {
            self.s.set_lambda_row(i, k, l);
        }
        fn reset_lambda_row(&mut self) {
            self.s.reset_lambda_row();
        }
        fn ahead(&mut self) {
            self.calls += 1;
        }
    }

    /// Every way a substep can solve calls [`Store::ahead`] at least
    /// `iterations × segments` times, the budget `lanes8` spreads the next
    /// bundle's rows over (`lanes::Ahead`): rigid, bending, compliant (with
    /// compliant bending), curvature, tethers, tracked tension, the direct
    /// solver, each in free air, on the ground (the wavefront with planes)
    /// and by a ball (no wavefront), with the wavefront allowed or not. A
    /// sweep that stopped calling it would leave lines unasked for: speed
    /// lost, no value changed, so only this test sees it.
    #[test]
    fn every_solver_calls_the_hook_once_per_distance_projection() {
        let ground = Collider::plane(Vec3::Y, -0.5).expect("a plane");
        let ball = Collider::sphere(Vec3::new(2.0, 0.2, 1.0), 0.6).expect("a ball");
        let scenes: [&[Collider]; 3] = [&[], &[ground], &[ground, ball]];
        // (stiffness, compliance, bend_stiffness, tethers, tracked, direct)
        let solvers = [
            (false, 0.0, 0.0, false, false, false),
            (true, 0.0, 0.0, false, false, false),
            (false, 1e-4, 0.0, false, false, false),
            (true, 1e-4, 0.0, false, false, false),
            (false, 0.0, 0.5, false, false, false),
            (false, 0.0, 0.0, true, false, false),
            (false, 0.0, 0.0, false, true, false),
            (false, 0.0, 0.0, false, false, true),
        ];
        for (n, colliders) in scenes.iter().enumerate() {
            for &(stiff, compliance, bend, tethers, track, direct) in &solvers {
                for wavefront in [false, true] {
                    let mut pool = ParticlePool::new();
                    for (k, segs) in SEGS.into_iter().enumerate() {
                        let z = 0.5 * k as f32;
                        let (a, b) = (Vec3::new(0.0, 0.0, z), Vec3::new(4.0, 0.5, z));
                        let mut desc = CableDesc::line(a, b, 6.0, segs).expect("a valid cable");
                        desc.attach_end = k % 2 == 0;
                        desc.params.radius = 0.05;
                        desc.params.stiffness = stiff;
                        desc.params.compliance = compliance;
                        desc.params.bend_stiffness = bend;
                        desc.params.tethers = tethers;
                        desc.params.iterations = Some(1 + (k as u32 * 3) % 8);
                        pool.add_cable(&desc).expect("room for the cable");
                    }
                    for c in *colliders {
                        pool.colliders_mut().add(*c);
                    }
                    let params = SolverParams {
                        friction: 0.3,
                        solver: if direct {
                            crate::params::Solver::Direct
                        } else {
                            crate::params::Solver::default()
                        },
                        ..SolverParams::default()
                    };
                    let mut scratch = Scratch::<f32>::default();
                    for frame in 0..40 {
                        pool.colliders_mut().prepare();
                        let cols = pool.columns_mut();
                        let set = cols.colliders();
                        let mut sh = Shared::new(&params, set, Stages::default());
                        sh.wavefront = wavefront;
                        sh.track = track;
                        for (k, mut c) in cols.into_cables().enumerate() {
                            let b = Block::of_cable(c.params, c.attach, c.pos.len(), &params);
                            let mut counted = Counting {
                                s: &mut c,
                                calls: 0,
                            };
                            substep(&mut counted, &b, &sh, &mut scratch);
                            let want = b.iterations as usize * (counted.rows() - 1);
                            assert!(
                                counted.calls >= want,
                                "scene {n}, (stiffness, compliance, bend, tethers, tracked, \
                                 direct) {:?}, wavefront {wavefront}, frame {frame}, cable {k}: \
                                 {} calls, want at least {want}",
                                (stiff, compliance, bend, tethers, track, direct),
                                counted.calls
                            );
                        }
                    }
                }
            }
        }
    }

    /// The reference: the masks on each end's displacement, as the
    /// projection was written before 2026-11-26.
    fn project_rigid_masked(a: &mut V3<f32>, b: &mut V3<f32>, c: &Rigid<f32>) {
        let d = *b - *a;
        let len = d.length();
        let live = !<f32 as super::Lane>::le(len, super::MIN_SEGMENT_LENGTH);
        let err = (len - c.rest) / len;
        let (ma, mb) = c.moves();
        *a = *a - d.scale(c.nka * err).keep(live & ma);
        *b = *b - d.scale(c.kb * err).keep(live & mb);
    }

    proptest::proptest! {
        /// [`super::project_rigid`], its mask on `err` alone, gives every
        /// value the masked displacements give: bit for bit but for the
        /// sign of a zero, over pinned ends (weight 0), torn segments,
        /// segments shorter than [`super::MIN_SEGMENT_LENGTH`] and
        /// coordinates of `±0`.
        #[test]
        fn the_projection_masks_its_factor_as_the_displacements_were(
            a in proptest::array::uniform3(-3.0f32..3.0),
            step in proptest::array::uniform3(-2.0f32..2.0),
            tiny in 0u8..3,
            zeros in proptest::array::uniform3(0u8..3),
            rest in 0.0f32..4.0,
            wa in proptest::sample::select(vec![0.0f32, 0.5, 1.0, 3.0]),
            wb in proptest::sample::select(vec![0.0f32, 0.5, 1.0, 3.0]),
            linked: bool,
        ) {
            let mut a = V3::new(a[0], a[1], a[2]);
            // Some coordinates exactly ±0.
            for (k, z) in zeros.into_iter().enumerate() {
                let c = match k { 0 => &mut a.x, 1 => &mut a.y, _ => &mut a.z };
                match z { 0 => *c = 0.0, 1 => *c = -0.0, _ => {} }
            }
            // Segments of normal length, near zero, and of zero length.
            let scale = [1.0, 1e-7, 0.0][usize::from(tiny)];
            let mut b = a + V3::new(step[0], step[1], step[2]).scale(scale);
            let c = Rigid::new(wa, wb, rest, linked);
            let (mut a2, mut b2) = (a, b);
            project_rigid_masked(&mut a2, &mut b2, &c);
            super::project_rigid(&mut a, &mut b, &c);
            for (got, want) in [a.x, a.y, a.z, b.x, b.y, b.z]
                .into_iter()
                .zip([a2.x, a2.y, a2.z, b2.x, b2.y, b2.z])
            {
                proptest::prop_assert!(
                    got == want && (got.to_bits() == want.to_bits() || got == 0.0),
                    "{got:e} against {want:e}"
                );
            }
        }

        /// [`super::project_soft`] against the textbook XPBD step in
        /// `f64` (`Δλ = (−C − α̃λ)/(wa + wb + α̃)`, ends moved along the
        /// unit vector): the multiplier and both ends to a few `f32`
        /// roundings of the scene's scale, and exactly unchanged (but for
        /// the sign of a zero) where the step is skipped (two pinned ends,
        /// a segment under [`super::MIN_SEGMENT_LENGTH`], one of zero
        /// length).
        #[test]
        fn the_compliant_projection_is_the_textbook_step(
            a in proptest::array::uniform3(-3.0f32..3.0),
            step in proptest::array::uniform3(-2.0f32..2.0),
            tiny in 0u8..3,
            rest in 0.0f32..4.0,
            wa in proptest::sample::select(vec![0.0f32, 0.5, 1.0, 3.0]),
            wb in proptest::sample::select(vec![0.0f32, 0.5, 1.0, 3.0]),
            alpha_t in proptest::sample::select(vec![0.0f32, 1e-4, 0.01, 1.0, 100.0]),
            lambda0 in -2.0f32..2.0,
        ) {
            let a = V3::new(a[0], a[1], a[2]);
            let scale = [1.0, 1e-7, 0.0][usize::from(tiny)];
            let b = a + V3::new(step[0], step[1], step[2]).scale(scale);
            let c = Soft::new(wa, wb, rest, alpha_t);
            let (mut a1, mut b1, mut l1) = (a, b, lambda0);
            super::project_soft(&mut a1, &mut b1, &c, alpha_t, &mut l1);

            let f = |v: V3<f32>| [f64::from(v.x), f64::from(v.y), f64::from(v.z)];
            let (pa, pb) = (f(a), f(b));
            let d: Vec<f64> = (0..3).map(|k| pb[k] - pa[k]).collect();
            let len = d.iter().map(|x| x * x).sum::<f64>().sqrt();
            let (wa, wb, at) = (f64::from(wa), f64::from(wb), f64::from(alpha_t));
            // The kernel's test is on the f32 length, as the step is.
            let skip = wa + wb == 0.0 || (b - a).length() <= super::MIN_SEGMENT_LENGTH;
            if skip {
                proptest::prop_assert!(l1.to_bits() == lambda0.to_bits());
                for (got, want) in [a1.x, a1.y, a1.z, b1.x, b1.y, b1.z]
                    .into_iter()
                    .zip([a.x, a.y, a.z, b.x, b.y, b.z])
                {
                    proptest::prop_assert!(got == want, "{got:e} against {want:e}");
                }
                return Ok(());
            }
            let l0 = f64::from(lambda0);
            let dl = (-(len - f64::from(rest)) - at * l0) / (wa + wb + at);
            // Tolerances: a few f32 roundings of each quantity's scale
            // (|d| may be 1e-7, so `n` carries the rounding of `d`).
            let tol_l = 8.0 * f64::from(f32::EPSILON) * (l0.abs() + dl.abs() + 8.0);
            proptest::prop_assert!(
                (f64::from(l1) - (l0 + dl)).abs() <= tol_l,
                "lambda {l1:e} against {:e}", l0 + dl
            );
            let got_a = f(a1);
            let got_b = f(b1);
            let eps = 16.0 * f64::from(f32::EPSILON);
            // `Δλ` comes from `len − rest`, which cancels: its error is a
            // few roundings of `len` and `rest` themselves, not of `Δλ`
            // (a = 0, step (−0.712, 1.238, 0), rest 1.452, wa 0.5 moved
            // `a` 7.6e-8 from the f64 step, against 4.6e-8 allowed on the
            // scale of `Δλ` alone).
            let err_dl = eps * (len + f64::from(rest) + at * l0.abs()) / (wa + wb + at);
            for k in 0..3 {
                let n = d[k] / len;
                let want_a = pa[k] - wa * dl * n;
                let want_b = pb[k] + wb * dl * n;
                let ta = eps * (pa[k].abs() + (wa * dl).abs() + 1e-30) + wa * err_dl;
                let tb = eps * (pb[k].abs() + (wb * dl).abs() + 1e-30) + wb * err_dl;
                proptest::prop_assert!(
                    (got_a[k] - want_a).abs() <= ta && (got_b[k] - want_b).abs() <= tb,
                    "axis {k}: a {:e} against {want_a:e}, b {:e} against {want_b:e}",
                    got_a[k], got_b[k]
                );
            }
        }
    }
}
