//! What the substep reads and writes: the constants of a block of cables
//! ([`Block`], [`Rigid`], [`Soft`]) and the storage trait every layout
//! implements ([`Store`]), with its one-lane implementation over the
//! pool's SoA columns ([`cable_core::CableMut`]).
//!
//! The rest of the kernel (the substep, the distance sweeps, rods,
//! contact) imports these types from here; this file imports only the lane
//! types.

use glam::Vec3;

use crate::kernel::lane::{Lane, Mask, V3};
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
    /// leaves them exactly where they are (not moved by a signed zero,
    /// and not made NaN by an infinite length).
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
    /// The carry of particle `i`'s previous position
    /// ([`cable_core::ParticlePool::carry_prev`]).
    fn carry_prev(&self, i: usize) -> V3<L>;
    /// Sets the carry of particle `i`'s previous position.
    fn set_carry_prev(&mut self, i: usize, c: V3<L>);
    /// The lanes whose [`Store::carry_prev`] may be other than zero in
    /// some row (all of them by default). Where it says no lane, the
    /// integration of a block near the origin leaves that column alone
    /// (which it would keep zero): `lanes8` keeps its rows of a frame
    /// within the first-level cache that way.
    #[inline(always)]
    fn carry_prev_live(&self) -> L::M {
        L::M::splat(true)
    }
    /// Records the lanes whose [`Store::carry_prev`] may be other than
    /// zero after the integration wrote it. Does nothing by default.
    #[inline(always)]
    fn set_carry_prev_live(&mut self, _m: L::M) {}
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
    /// compliant sweep (bending too) and for each segment of the direct
    /// solve, not by the rigid bending and curvature sweeps: a store
    /// may ask the CPU for memory it will need next (`lanes8` asks for the
    /// next bundle's rows, a few lines at a time, so that memory traffic
    /// overlaps the sweep's latency-bound chain). A hint: it must change
    /// no value. Does nothing by default.
    #[inline(always)]
    fn ahead(&mut self) {}
    /// The lanes where segment `i` (rows `i`, `i + 1`) takes part in
    /// contact: it is intact (a torn segment joins nothing: its two ends
    /// are not a piece of cable between them) and one of its ends moves,
    /// as the block's distance constraint says: [`Soft::m`] where the
    /// block is compliant (`soft`), else [`Rigid::moves`]. (A store keeps
    /// only the kind its block uses.)
    #[inline(always)]
    fn segment_on(&self, i: usize, soft: bool) -> L::M {
        if soft {
            self.soft(i, 1, L::splat(0.0)).m
        } else {
            let (a, b) = self.rigid(i, 1).moves();
            a | b
        }
    }
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
    /// Where each end's clamp puts its virtual particle, relative to the
    /// end particle ([`cable_core::CableMut::clamp`]); zero in lanes
    /// without one (their end rows' curvature constraints are off, see
    /// [`Store::curv`]).
    pub clamp_o: [V3<L>; 2],
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
    /// Lanes whose winch may slip ([`cable_core::CableMut::slip`]), at the
    /// start (slot 0) and at the end (slot 1).
    pub slip_m: [L::M; 2],
    /// The bound on their winch segment's multiplier, `−slip·h²` (its
    /// tension stays at most `slip`); 0 in the other lanes.
    pub slip_lambda: L,
    /// Some lane's winch may slip: the distance iterations hold its
    /// segment (`kernel::distance::sweep_slip`), so they do not
    /// run as one wavefront.
    pub slip: bool,
}

impl<L: Lane> Default for Block<L> {
    fn default() -> Self {
        Self {
            dacc: V3::zero(),
            alpha_t: L::splat(0.0),
            attach_m: [L::M::splat(false); 2],
            attach_t: [V3::zero(); 2],
            clamp_o: [V3::zero(); 2],
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
            slip_m: [L::M::splat(false); 2],
            slip_lambda: L::splat(0.0),
            slip: false,
        }
    }
}

impl<L: Lane> Block<L> {
    /// True when the block's constraints are distance constraints alone
    /// (rigid or compliant, with or without tethers), so that
    /// [`crate::kernel::substep`] may run its iterations as one wavefront.
    ///
    /// Every field is named on purpose, with no `..`: a field added to
    /// `Block` (a new constraint's flag) does not compile until its author
    /// says here whether it keeps the wavefront, which otherwise would
    /// silently skip the new constraint for plain cables.
    #[inline]
    #[must_use]
    pub fn distance_only(&self) -> bool {
        let Self {
            dacc: _,
            alpha_t: _,
            attach_m: _,
            attach_t: _,
            clamp_o: _,
            radius: _,
            live: _,
            stiff,
            soft: _,
            tether: _,
            curv,
            track: _,
            keep: _,
            mu: _,
            friction: _,
            iterations: _,
            slip_m: _,
            slip_lambda: _,
            slip,
        } = self;
        !(*stiff || *curv || *slip)
    }

    /// Sets lane `l` from one cable's parameters (`rows` particles), its
    /// attachment targets, clamps and winch's slip tension
    /// ([`cable_core::CableMut`]'s fields of those names).
    #[allow(clippy::too_many_arguments)]
    pub fn set_lane(
        &mut self,
        l: usize,
        cable: &cable_core::CableParams,
        attach: &[Option<Vec3>; 2],
        clamp: &[Option<Vec3>; 2],
        slip: Option<f32>,
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
        for (o, c) in self.clamp_o.iter_mut().zip(clamp) {
            o.set_lane(l, c.unwrap_or(Vec3::ZERO));
        }
        self.stiff = cable.stiffness && rows >= 3;
        self.soft = cable.compliance != 0.0;
        self.tether |= cable.tethers;
        // Inner particles' constraints, or (one segment) a clamp's alone.
        let clamped = clamp.iter().any(Option::is_some);
        self.curv |= cable.bend_stiffness > 0.0 && (rows >= 3 || (rows == 2 && clamped));
        // Tearing and a winch's pulling limit read the substep's tensions.
        self.track |= cable.break_tension.is_some() || cable.reel_force.is_some();
        let damping = cable.damping.unwrap_or(params.damping);
        // The Verlet velocity factor of one substep, max(0, 1 − damping·h):
        // exactly 1 without damping, so UE's integration bit for bit.
        self.keep.set_lane(l, (1.0 - damping * h).max(0.0));
        let mu = cable.friction.unwrap_or(params.friction);
        self.mu.set_lane(l, mu);
        self.friction = mu > 0.0;
        self.iterations = cable.iterations.unwrap_or(params.iterations);
        // A winch that may slip: its segment's tension bound, as a
        // multiplier (tension = −λ/h²).
        let at_end = cable.reel_end == cable_core::End::End;
        self.slip_m[0].set_lane(l, slip.is_some() && !at_end);
        self.slip_m[1].set_lane(l, slip.is_some() && at_end);
        self.slip_lambda.set_lane(l, -slip.unwrap_or(0.0) * (h * h));
        self.slip |= slip.is_some();
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
        clamp: &[Option<Vec3>; 2],
        slip: Option<f32>,
        rows: usize,
        params: &SolverParams,
    ) -> Self {
        let mut b = Self::default();
        b.set_lane(0, cable, attach, clamp, slip, rows, params);
        b
    }
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
    fn carry_prev(&self, i: usize) -> V3<f32> {
        self.carry_prev[i].into()
    }
    #[inline(always)]
    fn set_carry_prev(&mut self, i: usize, c: V3<f32>) {
        self.carry_prev[i] = c.into();
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
