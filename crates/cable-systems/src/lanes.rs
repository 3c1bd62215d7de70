//! The `Lanes8` layout: cables grouped by equal segment count into lane
//! groups of 8, stored array-of-structures-of-arrays (ultraviolet
//! [`Vec3x8`]/[`f32x8`]), and solved 8 cables at a time.
//!
//! Lane `l` of a group is one cable, and the Gauss-Seidel sweep runs along
//! the segment index, so every lane does exactly the arithmetic of the
//! scalar solver ([`crate::constraints::project_pair`]) in the same order:
//! results are bitwise those of the `Soa` and `Aos` layouts. Branches of the
//! scalar code become masks: a skipped constraint or a pinned particle gets
//! a correction of `+0.0` subtracted, which leaves every value (`-0.0`
//! included) unchanged. There is no fused multiply-add (it rounds
//! differently), and negation flips the sign bit (wide's `-x` is `0 - x`,
//! which is not exact for zeros).
//!
//! The chain along a cable is latency bound (a `sqrt` and a division per
//! segment), so up to [`GROUPS_IN_FLIGHT`] lane groups of the same segment
//! count form a *bundle* whose groups are interleaved segment by segment:
//! their chains are independent and overlap in the CPU.
//!
//! # Data flow of one [`advance`]
//! 1. plan (only when the pool changed since the last write-back, see
//!    [`ParticlePool::revision`]): cables are sorted by (segments, bending, compliant) and cut
//!    into bundles; a key with too few cables to fill a group (fewer than
//!    [`MIN_GROUP_FILL`] in its last group) leaves those cables scalar;
//! 2. in parallel over bundles: gather the bundle's cables from the pool
//!    (again only when it changed), run all the frame's substeps on it
//!    while it is hot in cache;
//! 3. in parallel over the pool's cables: lane cables copy their positions
//!    back, scalar cables run their substeps on the pool directly.
//!
//! The split is by bundles and cables, that is by the scene alone, and
//! cables are independent within a frame, so results do not depend on the
//! thread count. Buffers are kept between frames: a warmed-up step does not
//! allocate.

use cable_core::{CableRef, MIN_SEGMENT_LENGTH, ParticlePool};
use glam::Vec3;
use rayon::prelude::*;
use ultraviolet::{Vec3x8, f32x8};
use wide::CmpLe;

use crate::layout::Stages;
use crate::params::SolverParams;

const _: () = assert!(
    GROUPS_IN_FLIGHT >= 1 && GROUPS_IN_FLIGHT <= 8,
    "advance dispatches 1..=8"
);

/// Cables per lane group: the width of [`f32x8`].
pub const LANES: usize = 8;

/// Most lane groups of one bundle, solved interleaved so that several
/// dependency chains are in flight per thread.
pub const GROUPS_IN_FLIGHT: usize = 4;

/// A key's last, partial lane group is built only when it holds at least
/// this many cables; fewer run on the scalar path (a nearly empty group costs
/// as much as a full one).
pub const MIN_GROUP_FILL: usize = 3;

/// All bits set: a true lane of a mask.
const TRUE: f32 = f32::from_bits(u32::MAX);
/// `-0.0` in every lane: xor with it negates exactly.
const SIGN: f32x8 = f32x8::new([-0.0; LANES]);
const MIN_LEN: f32x8 = f32x8::new([MIN_SEGMENT_LENGTH; LANES]);

/// Sentinel of [`LanesWorld`]'s cable-to-lane map: the cable is scalar.
const SCALAR: u32 = u32::MAX;

/// Constants of one rigid constraint for 8 lanes.
#[derive(Clone, Copy, Debug, Default)]
struct Rigid {
    rest: f32x8,
    /// `-(wa / wsum)`.
    nka: f32x8,
    /// `wb / wsum`.
    kb: f32x8,
    /// `wsum > 0 && wa > 0`: particle a moves.
    ma: f32x8,
    /// `wsum > 0 && wb > 0`: particle b moves.
    mb: f32x8,
}

/// Constants of one compliant (XPBD) constraint for 8 lanes.
#[derive(Clone, Copy, Debug, Default)]
struct Soft {
    rest: f32x8,
    wa: f32x8,
    /// `-wb`.
    nwb: f32x8,
    /// `wsum + alpha_t`.
    denom: f32x8,
    /// `wsum > 0`.
    m: f32x8,
}

/// Per-lane constants of one lane group.
#[derive(Clone, Copy, Debug, Default)]
struct GroupConst {
    /// `h² · (gravity · gravity_scale + force)`.
    dacc: Vec3x8,
    /// `compliance / h²`.
    alpha_t: f32x8,
    /// Attached ends: mask and target, [`cable_core::End::slot`] order.
    attach_m: [f32x8; 2],
    attach_t: [Vec3x8; 2],
}

/// Cables that may share a lane group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    segs: usize,
    stiff: bool,
    soft: bool,
}

impl Key {
    fn of(c: &CableRef<'_>) -> Self {
        let n = c.pos.len();
        Self {
            segs: n - 1,
            stiff: c.params.stiffness && n >= 3,
            soft: c.params.compliance != 0.0,
        }
    }
}

/// Up to [`GROUPS_IN_FLIGHT`] lane groups of cables with one [`Key`].
/// Particle `r` of group `g` is at index `r * groups + g`, constraint `i`
/// of group `g` at `i * groups + g`.
#[derive(Clone, Debug, Default)]
struct Bundle {
    key: Key,
    groups: usize,
    /// Cable index of each lane (`groups * 8`), [`SCALAR`] for padding.
    cables: Vec<u32>,
    pos: Vec<Vec3x8>,
    prev: Vec<Vec3x8>,
    /// `inv_mass > 0`: the particle integrates.
    free: Vec<f32x8>,
    dist: Vec<Rigid>,
    /// Per distance constraint: every lane moves both particles.
    plain: Vec<bool>,
    bend: Vec<Rigid>,
    dist_soft: Vec<Soft>,
    bend_soft: Vec<Soft>,
    lambda: Vec<f32x8>,
    lambda_bend: Vec<f32x8>,
    consts: Vec<GroupConst>,
}

/// The `Lanes8` layout's buffers, kept by the stepper between frames.
#[derive(Clone, Debug, Default)]
pub struct LanesWorld {
    order: Vec<(Key, u32)>,
    bundles: Vec<Bundle>,
    used: usize,
    /// Per cable: `bundle << 8 | lane`, or [`SCALAR`].
    slot: Vec<u32>,
    /// Pool revision and parameters right after the last write-back: while
    /// both match, the bundles hold the pool's current state.
    synced: Option<(u64, SolverParams)>,
    /// Cables kept out of the lane groups ([`advance_except`]).
    except: Vec<bool>,
    /// The pool's attachment revision the targets were copied at.
    synced_attach: u64,
}

impl LanesWorld {
    /// Number of cables solved in lane groups at the last [`advance`].
    #[must_use]
    pub fn lane_cables(&self) -> usize {
        self.slot.iter().filter(|&&s| s != SCALAR).count()
    }

    /// Number of lane groups (8 lanes each, padding included) at the last
    /// [`advance`].
    #[must_use]
    pub fn lane_groups(&self) -> usize {
        self.bundles[..self.used].iter().map(|b| b.groups).sum()
    }

    /// Sorts the cables into bundles (step 1 of [`advance`]).
    fn plan(&mut self, pool: &ParticlePool) {
        self.order.clear();
        for i in 0..pool.cable_count() {
            if self.except.get(i).copied().unwrap_or(false) {
                continue;
            }
            if let Some(c) = pool.cable(i) {
                self.order.push((Key::of(&c), i as u32));
            }
        }
        self.order.sort_unstable();
        self.slot.clear();
        self.slot.resize(pool.cable_count(), SCALAR);
        self.used = 0;
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
            for chunk in self.order[start..start + in_lanes].chunks(LANES * GROUPS_IN_FLIGHT) {
                if self.used == self.bundles.len() {
                    self.bundles.push(Bundle::default());
                }
                let b = &mut self.bundles[self.used];
                b.key = key;
                b.groups = chunk.len().div_ceil(LANES);
                b.cables.clear();
                b.cables.resize(b.groups * LANES, SCALAR);
                for (lane, &(_, cable)) in chunk.iter().enumerate() {
                    b.cables[lane] = cable;
                    self.slot[cable as usize] = ((self.used as u32) << 8) | lane as u32;
                }
                self.used += 1;
            }
            start += len;
        }
    }
}

/// Runs `n` substeps of every cable of the pool in the `Lanes8` layout,
/// bitwise identical to the scalar layouts (see the module docs).
/// `scalar` runs `n` substeps of one cable on the scalar path.
pub fn advance<F>(
    world: &mut LanesWorld,
    pool: &mut ParticlePool,
    params: &SolverParams,
    n: u32,
    stages: Stages,
    scalar: F,
) where
    F: Fn(&mut cable_core::CableMut<'_>) + Sync,
{
    advance_except(world, pool, params, n, stages, &[], scalar);
}

/// [`advance`], but the cables `i` with `except[i]` true (a shorter slice
/// means false for the rest) take the scalar path: the collide layout
/// hands over the cables a collider may reach.
pub fn advance_except<F>(
    world: &mut LanesWorld,
    pool: &mut ParticlePool,
    params: &SolverParams,
    n: u32,
    stages: Stages,
    except: &[bool],
    scalar: F,
) where
    F: Fn(&mut cable_core::CableMut<'_>) + Sync,
{
    let current = world.synced == Some((pool.revision(), *params)) && world.except == except;
    if !current {
        pool.compact();
        world.except.clear();
        world.except.extend_from_slice(except);
        world.plan(pool);
    } else if world.synced_attach != pool.attachment_revision() {
        // Only attachment targets moved: refresh them, keep the copies.
        let shared: &ParticlePool = pool;
        world.bundles[..world.used]
            .par_iter_mut()
            .for_each(|b| b.refresh_targets(shared));
    }
    world.synced_attach = pool.attachment_revision();
    let used = world.used;
    {
        let shared: &ParticlePool = pool;
        world.bundles[..used].par_iter_mut().for_each(|b| {
            if !current {
                b.gather(shared, params);
            }
            match b.groups {
                1 => b.run::<1>(params, n, stages),
                2 => b.run::<2>(params, n, stages),
                3 => b.run::<3>(params, n, stages),
                4 => b.run::<4>(params, n, stages),
                5 => b.run::<5>(params, n, stages),
                6 => b.run::<6>(params, n, stages),
                7 => b.run::<7>(params, n, stages),
                _ => b.run::<8>(params, n, stages),
            }
        });
    }
    let bundles = &world.bundles;
    let slot = &world.slot;
    pool.par_for_each_cable_indexed(|i, mut c| {
        let s = slot[i];
        if s == SCALAR {
            scalar(&mut c);
            return;
        }
        let b = &bundles[(s >> 8) as usize];
        let lane = (s & 0xff) as usize;
        let (g, l) = (lane / LANES, lane % LANES);
        for (r, (p, q)) in c.pos.iter_mut().zip(c.prev.iter_mut()).enumerate() {
            let k = r * b.groups + g;
            *p = get(&b.pos[k], l);
            *q = get(&b.prev[k], l);
        }
    });
    world.synced = Some((pool.revision(), *params));
}

#[inline]
fn get(v: &Vec3x8, l: usize) -> Vec3 {
    Vec3::new(
        v.x.as_array_ref()[l],
        v.y.as_array_ref()[l],
        v.z.as_array_ref()[l],
    )
}

#[inline]
fn set(v: &mut Vec3x8, l: usize, p: Vec3) {
    v.x.as_array_mut()[l] = p.x;
    v.y.as_array_mut()[l] = p.y;
    v.z.as_array_mut()[l] = p.z;
}

#[inline]
fn mask(b: bool) -> f32 {
    if b { TRUE } else { 0.0 }
}

/// Per-lane `if m { t } else { f }`, exact for every value.
#[inline(always)]
fn select(m: f32x8, t: Vec3x8, f: Vec3x8) -> Vec3x8 {
    Vec3x8::new(m.blend(t.x, f.x), m.blend(t.y, f.y), m.blend(t.z, f.z))
}

/// `p - (d * f)` in lanes where `m`, `p` elsewhere (bit for bit: `x - +0.0 == x`).
#[inline(always)]
fn sub_masked(p: Vec3x8, d: Vec3x8, f: f32x8, m: f32x8) -> Vec3x8 {
    Vec3x8::new(
        p.x - ((d.x * f) & m),
        p.y - ((d.y * f) & m),
        p.z - ((d.z * f) & m),
    )
}

/// `glam::Vec3::length`, lane by lane and in its order: `sqrt(x·x + y·y + z·z)`.
#[inline(always)]
fn length(d: Vec3x8) -> f32x8 {
    (d.x * d.x + d.y * d.y + d.z * d.z).sqrt()
}

/// [`crate::constraints::project_pair`] for 8 lanes.
#[inline(always)]
fn project_rigid(a: &mut Vec3x8, b: &mut Vec3x8, s: &Rigid) {
    let d = *b - *a;
    let len = length(d);
    // Lanes where the scalar code does not skip: !(len <= MIN), NaN included.
    let skip = len.cmp_le(MIN_LEN);
    let err = (len - s.rest) / len;
    // a + d·(ka·err) == a - d·(-(ka)·err), exactly.
    *a = sub_masked(*a, d, s.nka * err, !skip & s.ma);
    *b = sub_masked(*b, d, s.kb * err, !skip & s.mb);
}

/// [`project_rigid`] for a constraint whose lanes all move both particles
/// (`plain`): when no lane skips either, every mask is all ones and the
/// masking (an `and` with all ones) can go, bit for bit.
#[inline(always)]
fn project_rigid_plain(a: &mut Vec3x8, b: &mut Vec3x8, s: &Rigid, plain: bool) {
    let d = *b - *a;
    let len = length(d);
    let skip = len.cmp_le(MIN_LEN);
    let err = (len - s.rest) / len;
    let (fa, fb) = (s.nka * err, s.kb * err);
    if plain && skip.none() {
        *a = Vec3x8::new(a.x - d.x * fa, a.y - d.y * fa, a.z - d.z * fa);
        *b = Vec3x8::new(b.x - d.x * fb, b.y - d.y * fb, b.z - d.z * fb);
    } else {
        *a = sub_masked(*a, d, fa, !skip & s.ma);
        *b = sub_masked(*b, d, fb, !skip & s.mb);
    }
}

/// [`crate::constraints::project_pair_compliant`] for 8 lanes.
#[inline(always)]
fn project_soft(a: &mut Vec3x8, b: &mut Vec3x8, s: &Soft, alpha_t: f32x8, lambda: &mut f32x8) {
    let d = *b - *a;
    let len = length(d);
    let m = !len.cmp_le(MIN_LEN) & s.m;
    let c = len - s.rest;
    let dl = ((c ^ SIGN) - alpha_t * *lambda) / s.denom;
    *lambda = m.blend(*lambda + dl, *lambda);
    let n = Vec3x8::new(d.x / len, d.y / len, d.z / len);
    *a = sub_masked(*a, n, s.wa * dl, m);
    // b + n·(wb·dl) == b - n·((-wb)·dl), exactly.
    *b = sub_masked(*b, n, s.nwb * dl, m);
}

impl Bundle {
    /// Copies the attachment targets of the bundle's cables from the pool
    /// (their pinned ends are unchanged: only targets moved).
    fn refresh_targets(&mut self, pool: &ParticlePool) {
        for (lane, &cable) in self.cables.iter().enumerate() {
            let Some(c) = (cable != SCALAR)
                .then(|| pool.cable(cable as usize))
                .flatten()
            else {
                continue;
            };
            let k = &mut self.consts[lane / LANES];
            for slot in 0..2 {
                if let Some(t) = c.attach[slot] {
                    set(&mut k.attach_t[slot], lane % LANES, t);
                }
            }
        }
    }

    /// Copies the bundle's cables from the pool and derives the constants.
    fn gather(&mut self, pool: &ParticlePool, params: &SolverParams) {
        let g_n = self.groups;
        let segs = self.key.segs;
        let rows = segs + 1;
        let bends = if self.key.stiff { segs - 1 } else { 0 };
        let h = params.substep;
        self.pos.clear();
        self.prev.clear();
        self.free.clear();
        self.dist.clear();
        self.bend.clear();
        self.dist_soft.clear();
        self.bend_soft.clear();
        self.consts.clear();
        // Padding lanes: a straight inert line (no NaN, no denormals).
        for r in 0..rows {
            let p = Vec3x8::new(f32x8::splat(r as f32), f32x8::ZERO, f32x8::ZERO);
            for _ in 0..g_n {
                self.pos.push(p);
                self.prev.push(p);
                self.free.push(f32x8::ZERO);
            }
        }
        let pad_rigid = Rigid {
            rest: f32x8::ONE,
            ..Rigid::default()
        };
        let pad_soft = Soft {
            rest: f32x8::ONE,
            denom: f32x8::ONE,
            ..Soft::default()
        };
        if self.key.soft {
            self.dist_soft.resize(segs * g_n, pad_soft);
            self.bend_soft.resize(bends * g_n, pad_soft);
            self.lambda.resize(segs * g_n, f32x8::ZERO);
            self.lambda_bend.resize(bends * g_n, f32x8::ZERO);
        } else {
            self.dist.resize(segs * g_n, pad_rigid);
            self.bend.resize(bends * g_n, pad_rigid);
        }
        self.consts.resize(g_n, GroupConst::default());
        for (lane, &cable) in self.cables.iter().enumerate() {
            let Some(c) = (cable != SCALAR)
                .then(|| pool.cable(cable as usize))
                .flatten()
            else {
                continue;
            };
            let (g, l) = (lane / LANES, lane % LANES);
            for r in 0..rows {
                let k = r * g_n + g;
                set(&mut self.pos[k], l, c.pos[r]);
                set(&mut self.prev[k], l, c.prev[r]);
                self.free[k].as_array_mut()[l] = mask(c.inv_mass[r] > 0.0);
            }
            let k = &mut self.consts[g];
            let acc = params.gravity * c.params.gravity_scale + c.params.force;
            set(&mut k.dacc, l, acc * (h * h));
            let alpha_t = if self.key.soft {
                c.params.compliance / (h * h)
            } else {
                0.0
            };
            k.alpha_t.as_array_mut()[l] = alpha_t;
            for slot in 0..2 {
                if let Some(t) = c.attach[slot] {
                    k.attach_m[slot].as_array_mut()[l] = TRUE;
                    set(&mut k.attach_t[slot], l, t);
                }
            }
            let w = c.inv_mass;
            let put =
                |i: usize, j: usize, rest: f32, rigid: &mut Vec<Rigid>, soft: &mut Vec<Soft>| {
                    let (wa, wb) = (w[i], w[j]);
                    let wsum = wa + wb;
                    let k = i * g_n + g;
                    if self.key.soft {
                        let s = &mut soft[k];
                        s.rest.as_array_mut()[l] = rest;
                        s.wa.as_array_mut()[l] = wa;
                        s.nwb.as_array_mut()[l] = -wb;
                        s.denom.as_array_mut()[l] = wsum + alpha_t;
                        s.m.as_array_mut()[l] = mask(wsum > 0.0);
                    } else {
                        let s = &mut rigid[k];
                        s.rest.as_array_mut()[l] = rest;
                        let live = wsum > 0.0;
                        s.nka.as_array_mut()[l] = if live { -(wa / wsum) } else { 0.0 };
                        s.kb.as_array_mut()[l] = if live { wb / wsum } else { 0.0 };
                        s.ma.as_array_mut()[l] = mask(live && wa > 0.0);
                        s.mb.as_array_mut()[l] = mask(live && wb > 0.0);
                    }
                };
            for i in 0..segs {
                put(i, i + 1, c.rest[i], &mut self.dist, &mut self.dist_soft);
            }
            for i in 0..bends {
                let rest = c.rest[i] + c.rest[i + 1];
                put(i, i + 2, rest, &mut self.bend, &mut self.bend_soft);
            }
        }
        self.plain.clear();
        self.plain
            .extend(self.dist.iter().map(|s| (s.ma & s.mb).all()));
    }

    /// Runs `n` substeps on the bundle; `G` is its number of groups.
    fn run<const G: usize>(&mut self, params: &SolverParams, n: u32, stages: Stages) {
        debug_assert_eq!(self.groups, G);
        let segs = self.key.segs;
        let keep = f32x8::splat(params.velocity_keep());
        for _ in 0..n {
            // 1. attachments
            for (g, k) in self.consts.iter().enumerate().filter(|_| stages.attach) {
                for (slot, row) in [(0, 0), (1, segs)] {
                    let m = k.attach_m[slot];
                    if m.any() {
                        let i = row * G + g;
                        self.pos[i] = select(m, k.attach_t[slot], self.pos[i]);
                        self.prev[i] = select(m, k.attach_t[slot], self.prev[i]);
                    }
                }
            }
            // 2. integrate
            let dacc: [Vec3x8; G] = std::array::from_fn(|g| self.consts[g].dacc);
            let rows = if stages.integrate { self.free.len() } else { 0 };
            for ((p, q), f) in self
                .pos
                .chunks_exact_mut(G)
                .zip(self.prev.chunks_exact_mut(G))
                .zip(self.free[..rows].chunks_exact(G))
            {
                for g in 0..G {
                    let cur = p[g];
                    let v = (cur - q[g]) * keep;
                    p[g] = select(f[g], cur + v + dacc[g], cur);
                    q[g] = select(f[g], cur, q[g]);
                }
            }
            // 3. constraints
            if !stages.constraints {
                continue;
            }
            if self.key.soft {
                let alpha: [f32x8; G] = std::array::from_fn(|g| self.consts[g].alpha_t);
                self.lambda.fill(f32x8::ZERO);
                self.lambda_bend.fill(f32x8::ZERO);
                for _ in 0..params.iterations {
                    sweep_soft::<G, 1>(&mut self.pos, &self.dist_soft, &mut self.lambda, &alpha);
                    sweep_soft::<G, 2>(
                        &mut self.pos,
                        &self.bend_soft,
                        &mut self.lambda_bend,
                        &alpha,
                    );
                }
            } else {
                for _ in 0..params.iterations {
                    sweep_rigid::<G>(&mut self.pos, &self.dist, &self.plain);
                    bend_rigid::<G>(&mut self.pos, &self.bend);
                }
            }
        }
    }
}

/// One distance sweep over `G` interleaved groups: the moving end of each
/// segment stays in registers for the next one.
#[inline(always)]
fn sweep_rigid<const G: usize>(pos: &mut [Vec3x8], cons: &[Rigid], plain: &[bool]) {
    let mut a: [Vec3x8; G] = std::array::from_fn(|g| pos[g]);
    for (i, (s, p)) in cons.chunks_exact(G).zip(plain.chunks_exact(G)).enumerate() {
        let next = &mut pos[i * G..(i + 2) * G];
        for g in 0..G {
            let mut b = next[G + g];
            project_rigid_plain(&mut a[g], &mut b, &s[g], p[g]);
            next[g] = a[g];
            a[g] = b;
        }
    }
    let segs = cons.len() / G;
    pos[segs * G..(segs + 1) * G].copy_from_slice(&a);
}

/// One bending sweep (particles i and i + 2) over `G` interleaved groups.
#[inline(always)]
fn bend_rigid<const G: usize>(pos: &mut [Vec3x8], cons: &[Rigid]) {
    for (i, s) in cons.chunks_exact(G).enumerate() {
        let win = &mut pos[i * G..(i + 3) * G];
        for g in 0..G {
            let (mut a, mut b) = (win[g], win[2 * G + g]);
            project_rigid(&mut a, &mut b, &s[g]);
            win[g] = a;
            win[2 * G + g] = b;
        }
    }
}

/// One compliant sweep of constraints between particles i and i + `SPAN`.
#[inline(always)]
fn sweep_soft<const G: usize, const SPAN: usize>(
    pos: &mut [Vec3x8],
    cons: &[Soft],
    lambda: &mut [f32x8],
    alpha: &[f32x8; G],
) {
    for (i, (s, l)) in cons
        .chunks_exact(G)
        .zip(lambda.chunks_exact_mut(G))
        .enumerate()
    {
        let win = &mut pos[i * G..(i + SPAN + 1) * G];
        for g in 0..G {
            let (mut a, mut b) = (win[g], win[SPAN * G + g]);
            project_soft(&mut a, &mut b, &s[g], alpha[g], &mut l[g]);
            win[g] = a;
            win[SPAN * G + g] = b;
        }
    }
}
