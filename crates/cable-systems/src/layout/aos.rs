//! The `Aos` layout: one object per cable holding an array of particle
//! structs, stepped one cable after another on one thread, the memory
//! shape of UE's `FCableSimulation`, Flax's rope and the Unity Verlet ropes.
//!
//! It is kept as the baseline of the layout benchmarks. It runs the one
//! kernel ([`crate::kernel::substep`]) over its particle array, so its
//! results are bitwise those of the other layouts. Buffers are kept between
//! frames: a warmed-up step does not allocate.

use cable_core::{CableParams, NO_ANCHOR, ParticlePool, RowConst};
use glam::Vec3;

use crate::kernel::Stages;
use crate::kernel::lane::V3;
use crate::kernel::{self, Block, Rigid, Scratch, Shared, Soft, Store};
use crate::params::SolverParams;

/// One particle, as the seeds store it.
#[derive(Debug, Clone, Copy)]
pub struct AosParticle {
    /// Position, metres.
    pub pos: Vec3,
    /// Previous position (Verlet state).
    pub prev: Vec3,
    /// What rounding dropped of the last displacement, metres
    /// ([`cable_core::ParticlePool::carry`]).
    pub carry: Vec3,
    /// The carry of the previous position, metres
    /// ([`cable_core::ParticlePool::carry_prev`]).
    pub carry_prev: Vec3,
    /// Inverse mass, 1/kg; 0 = pinned.
    pub inv_mass: f32,
    /// Rest length of the segment to the next particle, metres (0 on the last).
    pub rest: f32,
    /// XPBD multiplier of the distance constraint to the next particle.
    pub lambda: f32,
    /// XPBD multiplier of the bending constraint to particle + 2.
    pub lambda_bend: f32,
    /// Derived solver constants (tethers, curvature, intact segment).
    pub k: RowConst,
    /// Multipliers of the tethers and the curvature constraint.
    pub lambda_row: [f32; 3],
}

impl Default for AosParticle {
    fn default() -> Self {
        Self {
            pos: Vec3::ZERO,
            prev: Vec3::ZERO,
            carry: Vec3::ZERO,
            carry_prev: Vec3::ZERO,
            inv_mass: 0.0,
            rest: 0.0,
            lambda: 0.0,
            lambda_bend: 0.0,
            k: RowConst {
                anchor: [NO_ANCHOR; 2],
                reach: [0.0; 2],
                kappa0: 0.0,
                bend_compliance: 0.0,
                linked: false,
            },
            lambda_row: [0.0; 3],
        }
    }
}

/// One cable object: its particles and parameters.
#[derive(Debug, Clone, Default)]
pub struct AosCable {
    /// The particles, start to end.
    pub particles: Vec<AosParticle>,
    /// The cable's parameters.
    pub params: CableParams,
    /// Attachment target of each end.
    pub attach: [Option<Vec3>; 2],
    /// Each end's clamp offset ([`cable_core::CableMut::clamp`]).
    pub clamp: [Option<Vec3>; 2],
    /// Its winch's slip tension ([`cable_core::CableMut::slip`]).
    pub slip: Option<f32>,
    /// False while the cable sleeps or is hidden and skipped: not stepped.
    pub active: bool,
}

/// A cable object's particle array as a one-lane [`Store`]: the kernel
/// runs on the object-per-particle layout as it is.
impl Store<f32> for AosCable {
    #[inline(always)]
    fn rows(&self) -> usize {
        self.particles.len()
    }
    #[inline(always)]
    fn pos(&self, i: usize) -> V3<f32> {
        self.particles[i].pos.into()
    }
    #[inline(always)]
    fn set_pos(&mut self, i: usize, p: V3<f32>) {
        self.particles[i].pos = p.into();
    }
    #[inline(always)]
    fn prev(&self, i: usize) -> V3<f32> {
        self.particles[i].prev.into()
    }
    #[inline(always)]
    fn set_prev(&mut self, i: usize, p: V3<f32>) {
        self.particles[i].prev = p.into();
    }
    #[inline(always)]
    fn carry(&self, i: usize) -> V3<f32> {
        self.particles[i].carry.into()
    }
    #[inline(always)]
    fn set_carry(&mut self, i: usize, c: V3<f32>) {
        self.particles[i].carry = c.into();
    }
    #[inline(always)]
    fn carry_prev(&self, i: usize) -> V3<f32> {
        self.particles[i].carry_prev.into()
    }
    #[inline(always)]
    fn set_carry_prev(&mut self, i: usize, c: V3<f32>) {
        self.particles[i].carry_prev = c.into();
    }
    #[inline(always)]
    fn w(&self, i: usize) -> f32 {
        self.particles[i].inv_mass
    }
    #[inline(always)]
    fn free(&self, i: usize) -> bool {
        self.particles[i].inv_mass > 0.0
    }
    #[inline(always)]
    fn rigid(&self, i: usize, span: usize) -> Rigid<f32> {
        let (a, b) = (&self.particles[i], &self.particles[i + span]);
        Rigid::new(
            a.inv_mass,
            b.inv_mass,
            self.rest(i, span),
            self.linked(i, span),
        )
    }
    #[inline(always)]
    fn soft(&self, i: usize, span: usize, alpha_t: f32) -> Soft<f32> {
        let (a, b) = (&self.particles[i], &self.particles[i + span]);
        let mut c = Soft::new(a.inv_mass, b.inv_mass, self.rest(i, span), alpha_t);
        c.m &= self.linked(i, span);
        c
    }
    #[inline(always)]
    fn tether(&self, i: usize, side: usize) -> (V3<f32>, f32, bool) {
        let k = &self.particles[i].k;
        match k.anchor[side] {
            NO_ANCHOR => (V3::zero(), 0.0, false),
            a => (self.particles[a as usize].pos.into(), k.reach[side], true),
        }
    }
    #[inline(always)]
    fn curv(&self, i: usize) -> (f32, f32, bool) {
        let k = &self.particles[i].k;
        (k.kappa0, k.bend_compliance, k.bend_compliance > 0.0)
    }
    #[inline(always)]
    fn lambda_row(&self, i: usize, k: usize) -> f32 {
        self.particles[i].lambda_row[k]
    }
    #[inline(always)]
    fn set_lambda_row(&mut self, i: usize, k: usize, l: f32) {
        self.particles[i].lambda_row[k] = l;
    }
    fn reset_lambda_row(&mut self) {
        for p in &mut self.particles {
            p.lambda_row = [0.0; 3];
        }
    }
    #[inline(always)]
    fn lambda(&self, span: usize, i: usize) -> f32 {
        let p = &self.particles[i];
        if span == 1 { p.lambda } else { p.lambda_bend }
    }
    #[inline(always)]
    fn set_lambda(&mut self, span: usize, i: usize, l: f32) {
        let p = &mut self.particles[i];
        if span == 1 {
            p.lambda = l;
        } else {
            p.lambda_bend = l;
        }
    }
    fn reset_lambda(&mut self) {
        for p in &mut self.particles {
            p.lambda = 0.0;
            p.lambda_bend = 0.0;
        }
    }
}

impl AosCable {
    /// The segments between particles `i` and `i + span` are intact.
    #[inline(always)]
    fn linked(&self, i: usize, span: usize) -> bool {
        self.particles[i].k.linked && (span == 1 || self.particles[i + 1].k.linked)
    }

    /// Rest length between particles `i` and `i + span`.
    #[inline(always)]
    fn rest(&self, i: usize, span: usize) -> f32 {
        if span == 1 {
            self.particles[i].rest
        } else {
            self.particles[i].rest + self.particles[i + 1].rest
        }
    }
}

/// The `Aos` layout's cable objects, kept by the stepper between frames.
#[derive(Debug, Clone, Default)]
pub struct AosWorld {
    cables: Vec<AosCable>,
    scratch: Scratch<f32>,
    /// Pool revision and parameters right after the last write-back: while
    /// both match, the cable objects hold the pool's current state.
    synced: Option<(u64, SolverParams)>,
    /// The pool\'s attachment revision the targets were copied at.
    synced_attach: u64,
}

/// Runs `n` substeps of every cable in the `Aos` layout: copies the pool
/// into cable objects (when it changed since the last call), steps them one
/// after another on this thread, and copies the positions back.
pub fn advance(
    world: &mut AosWorld,
    pool: &mut ParticlePool,
    params: &SolverParams,
    n: u32,
    stages: Stages,
    track: bool,
) {
    let current = world.synced == Some((pool.revision(), *params));
    if current && world.synced_attach != pool.attachment_revision() {
        // Only attachment targets moved: refresh them, keep the objects.
        for (i, obj) in world.cables.iter_mut().enumerate() {
            if let Some(c) = pool.cable(i) {
                obj.attach = *c.attach;
            }
        }
    }
    world.synced_attach = pool.attachment_revision();
    if !current {
        pool.compact();
        let count = pool.cable_count();
        world.cables.truncate(count);
        world.cables.resize_with(count, AosCable::default);
        for (i, obj) in world.cables.iter_mut().enumerate() {
            let Some(c) = pool.cable(i) else { continue };
            let Ok((lambda, _)) = pool.multipliers(c.handle) else {
                continue;
            };
            obj.params = *c.params;
            obj.attach = *c.attach;
            obj.clamp = *c.clamp;
            obj.slip = c.slip;
            obj.active = c.active;
            obj.particles.clear();
            obj.particles.extend((0..c.pos.len()).map(|r| AosParticle {
                pos: c.pos[r],
                prev: c.prev[r],
                carry: c.carry[r],
                carry_prev: c.carry_prev[r],
                inv_mass: c.inv_mass[r],
                rest: c.rest[r],
                // The direct solver's warm start (unused by the others,
                // which reset the multipliers they use every substep).
                lambda: lambda[r],
                lambda_bend: 0.0,
                k: c.row_const[r],
                lambda_row: [0.0; 3],
            }));
        }
    }
    let mut sh = Shared::new(params, pool.colliders(), stages);
    sh.track = track;
    for (i, obj) in world
        .cables
        .iter_mut()
        .enumerate()
        .filter(|(_, o)| o.active)
    {
        let mut b = Block::of_cable(
            &obj.params,
            &obj.attach,
            &obj.clamp,
            obj.slip,
            obj.particles.len(),
            params,
        );
        let held = kernel::begin_frame(obj, &mut b, &sh, n);
        for _ in 0..n {
            kernel::substep(obj, &b, &sh, &mut world.scratch);
        }
        kernel::end_frame(obj, held);
        let handle = pool.cable(i).map(|c| c.handle);
        world
            .scratch
            .contacts
            .report_touches(sh.colliders, |_| handle);
    }
    let cables = &world.cables;
    let direct = sh.direct;
    pool.par_for_each_cable_indexed(|i, c| {
        for ((((p, q), e), f), s) in c
            .pos
            .iter_mut()
            .zip(c.prev.iter_mut())
            .zip(c.carry.iter_mut())
            .zip(c.carry_prev.iter_mut())
            .zip(&cables[i].particles)
        {
            *p = s.pos;
            *q = s.prev;
            *e = s.carry;
            *f = s.carry_prev;
        }
        let p = &cables[i].params;
        if track || direct || p.break_tension.is_some() || p.reel_force.is_some() {
            for ((l, x), s) in c
                .lambda
                .iter_mut()
                .zip(c.lambda_row.iter_mut())
                .zip(&cables[i].particles)
            {
                *l = s.lambda;
                *x = s.lambda_row;
            }
        }
    });
    world.synced = Some((pool.revision(), *params));
}
