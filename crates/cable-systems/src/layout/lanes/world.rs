//! The `Lanes8` layout's state between frames ([`LanesWorld`], the lent
//! [`Held`] plan and bundles) and its frame ([`advance`]).

use cable_core::{HeldRead, ParticlePool, ParticleState, StateHolder};
use glam::Vec3;
use rayon::prelude::*;

use super::{
    bundle::{AnyBundle, Frame, PoolRows, Refresh, each},
    plan::{GROUPS_IN_FLIGHT, Key, LANES, MIN_GROUP_FILL, SCALAR, STRIDE},
    rows::Spans,
    views::{ViewBuf, recycle},
};
use crate::kernel::Shared;
use crate::kernel::Stages;
use crate::params::SolverParams;

/// What the `Lanes8` layout keeps between frames: the plan and the
/// bundles, whose rows are the lane cables' state. Lent to the pool after
/// each [`advance`] ([`ParticlePool::lend_state`]), so the first read of
/// the pool writes the lanes back ([`Held::write_back`]) and a frame
/// nothing reads copies nothing; taken back at the next [`advance`].
#[derive(Clone, Debug, Default)]
pub struct Held {
    /// The plan: each lane cable's key and cable index, sorted by key.
    pub order: Vec<(Key, u32)>,
    /// The bundles of the plan.
    pub bundles: Vec<AnyBundle>,
    /// Per cable (row order): its slot in the frame's views, `bundle ·`
    /// [`STRIDE`] `+ lane` for lane cables, after every bundle's slots for
    /// the others.
    pub dest: Vec<u32>,
    /// `dest` increases along the rows.
    pub in_order: bool,
    /// Pool structure revision ([`ParticlePool::structure_revision`]) and
    /// parameters right after the last [`advance`]: while both match, the
    /// bundles hold the pool's current state but for the cables
    /// [`ParticlePool::state_edits_since`] `synced_rev` lists.
    pub synced: Option<(u64, SolverParams)>,
    /// The pool's revision right after the last [`advance`].
    pub synced_rev: u64,
    /// The pool's attachment revision the targets were copied at.
    pub synced_attach: u64,
    /// The multipliers are written back too (tension tracking, or the
    /// direct solver's warm start).
    pub track: bool,
    /// The last frame wrote the lanes back to the pool in the tasks that
    /// ran it (see [`advance`]): the pool is current.
    pub written: bool,
    /// Cables on the one-lane path.
    pub scalars: usize,
    /// Per bundle, the next bundle's [`Spans`] (empty for the last),
    /// made each frame.
    pub next: Vec<Spans>,
}

impl StateHolder for Held {
    /// Copies every bundle's lanes to the pool's rows, bundle by bundle,
    /// on the calling thread (a reader may be a rayon task itself, and a
    /// parallel copy inside the pool's one-time initialisation could wait
    /// on it).
    fn write_back(&self, st: &mut ParticleState) {
        if self.written {
            // Written back in the tasks that ran the frame.
            return;
        }
        for b in &self.bundles {
            each!(b, b => b.scatter(&mut PoolRows { st: &mut *st, at: &b.at }, self.track));
        }
    }
    /// A lane cable's positions from its bundle's rows; a one-lane cable
    /// is solved in the pool's columns, which are current for it.
    fn copy_positions(&self, cable: usize, out: &mut [Vec3]) -> HeldRead {
        if self.written {
            return HeldRead::Columns;
        }
        let Some(&d) = self.dest.get(cable) else {
            return HeldRead::WriteBack;
        };
        let (b, lane) = (d as usize / STRIDE, d as usize % STRIDE);
        match self.bundles.get(b) {
            Some(b) => {
                each!(b, b => b.copy_lane(lane, out));
                HeldRead::Copied
            }
            None => HeldRead::Columns,
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// The `Lanes8` layout's buffers, kept by the stepper between frames (the
/// bundles are lent to the pool in between, see the module docs).
#[derive(Clone, Debug, Default)]
pub struct LanesWorld {
    /// The plan and bundles while not lent to a pool.
    pub(super) held: Option<Box<Held>>,
    pub(super) views: ViewBuf,
    /// Kernel scratch of the one-lane cables, one per piece of them
    /// (kept here, not per thread, so a warmed-up frame allocates nothing
    /// whichever threads run it).
    pub(super) scalar: crate::layout::soa::ScalarPieces,
    /// Frames that copied the whole pool in ([`LanesWorld::full_gathers`]).
    pub(super) full_gathers: u64,
    /// Frames that found their bundles' state older than the pool's
    /// ([`LanesWorld::write_backs`]).
    pub(super) write_backs: u64,
    /// [`LanesWorld::lane_cables`] and [`LanesWorld::lane_groups`] at the
    /// last plan.
    pub(super) lane_cables: usize,
    pub(super) lane_groups: usize,
    /// The last plan's slots were in row order (`Held::in_order`).
    pub in_order: bool,
    /// Frames that wrote the lanes back in their own tasks
    /// ([`LanesWorld::eager_frames`]).
    pub(super) eager_frames: u64,
}

impl LanesWorld {
    /// Number of cables solved in lane groups at the last [`advance`].
    #[must_use]
    pub fn lane_cables(&self) -> usize {
        self.lane_cables
    }

    /// Number of [`advance`] calls that copied the whole pool into the
    /// lanes: the first, and those after a structural change
    /// ([`ParticlePool::structure_revision`]), new solver parameters, or a
    /// cable's new parameters that move it to another lane group. Edits of
    /// single cables' particles re-copy that cable; other changes of its
    /// parameters or masses re-copy its bundle (up to 32 cables); moved
    /// attachment targets refresh the targets.
    #[must_use]
    pub fn full_gathers(&self) -> u64 {
        self.full_gathers
    }

    /// Number of [`advance`] calls that had the lanes written back to the
    /// pool before they could go on (a change that needs the pool's
    /// particles, when nothing had read the pool since the last frame).
    /// Reads of the pool between frames write back without counting here.
    #[must_use]
    pub fn write_backs(&self) -> u64 {
        self.write_backs
    }

    /// Number of [`advance`] calls that wrote the lanes back to the pool in
    /// the tasks that ran them, because something had read or edited the
    /// pool's particles since the frame before. The others left the lanes
    /// lent to the pool ([`ParticlePool::lend_state`]), copied back by the
    /// first reader.
    #[must_use]
    pub fn eager_frames(&self) -> u64 {
        self.eager_frames
    }

    /// Number of lane groups (8 lanes each, padding included) at the last
    /// [`advance`].
    #[must_use]
    pub fn lane_groups(&self) -> usize {
        self.lane_groups
    }
}

impl Held {
    /// Fills [`Held::next`]: each bundle's successor's rows, for its last
    /// substep to ask for ([`Ahead`]), the multipliers among them where
    /// that bundle's substep uses them (compliance, tracked tension, or
    /// `multipliers` for every bundle: tension tracked for all, the direct
    /// solver). Addresses only, a hint: a bundle that gathers this frame
    /// may move its rows, which costs that frame's hint and nothing else.
    pub(super) fn plan_ahead(&mut self, multipliers: bool) {
        self.next.clear();
        self.next.extend(
            self.bundles
                .iter()
                .skip(1)
                .map(|b| each!(b, b => b.rows.spans(multipliers || b.key.soft || b.block.track))),
        );
        self.next.push(Spans::default());
    }

    /// Marks what the cables edited alone since the last [`advance`]
    /// need: their particles re-read ([`Bundle::stale`]), or their bundle
    /// gathered again ([`Bundle::regather`]) when their constants changed.
    /// False when an edit needs a new plan (a cable's key changed, or it
    /// fell asleep or was hidden).
    pub(super) fn mark_edits(&mut self, pool: &ParticlePool, params: &SolverParams) -> bool {
        if pool.revision() == self.synced_rev {
            return true;
        }
        let lane_slots = self.bundles.len() * STRIDE;
        for i in pool.constant_edits_since(self.synced_rev) {
            let d = self.dest[i] as usize;
            if d >= lane_slots {
                // A one-lane cable works in the pool itself.
                continue;
            }
            let Some(c) = pool.cable(i) else {
                return false;
            };
            let b = &mut self.bundles[d / STRIDE];
            if !c.active || Key::of(&c, params) != each!(&*b, b => b.key) {
                return false;
            }
            each!(b, b => b.regather = true);
        }
        for i in pool.state_edits_since(self.synced_rev) {
            let d = self.dest[i] as usize;
            if d < lane_slots {
                each!(&mut self.bundles[d / STRIDE], b => b.stale |= 1 << (d % STRIDE));
            }
        }
        true
    }

    /// True when a bundle must read particles from the pool this frame.
    pub(super) fn reads_pool(&self) -> bool {
        self.bundles
            .iter()
            .any(|b| each!(b, b => b.stale != 0 || b.regather))
    }

    /// Sorts the cables into bundles (step 1 of [`advance`]); the pool is
    /// compacted.
    pub(super) fn plan(&mut self, pool: &ParticlePool, params: &SolverParams) {
        self.order.clear();
        for i in 0..pool.cable_count() {
            // Sleeping and skipped hidden cables stay out of the bundles
            // (the scalar path leaves them as they are).
            if let Some(c) = pool.cable(i).filter(|c| c.active) {
                self.order.push((Key::of(&c, params), i as u32));
            }
        }
        self.order.sort_unstable();
        self.dest.clear();
        self.dest.resize(pool.cable_count(), SCALAR);
        let mut used = 0;
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
            for chunk in self.order[start..start + in_lanes].chunks(STRIDE) {
                let groups = chunk.len().div_ceil(LANES);
                let width = if groups == 1 { 1 } else { GROUPS_IN_FLIGHT } * LANES;
                if used == self.bundles.len() || self.bundles[used].width() != width {
                    let fresh = AnyBundle::with_groups(width / LANES);
                    if used == self.bundles.len() {
                        self.bundles.push(fresh);
                    } else {
                        self.bundles[used] = fresh;
                    }
                }
                each!(&mut self.bundles[used], b => {
                    b.key = key;
                    b.cables.clear();
                    b.cables.resize(width, SCALAR);
                    for (lane, &(_, cable)) in chunk.iter().enumerate() {
                        b.cables[lane] = cable;
                        self.dest[cable as usize] = (used * STRIDE + lane) as u32;
                    }
                });
                used += 1;
            }
            start += len;
        }
        self.bundles.truncate(used);
        // The one-lane cables (sleeping and hidden ones too: the kernel
        // skips them), after the bundles' slots, in row order.
        let mut next = used * STRIDE;
        let mut cables = 0;
        for d in &mut self.dest {
            if *d == SCALAR {
                *d = next as u32;
                next += 1;
                cables += 1;
            }
        }
        self.scalars = cables;
        self.in_order = self.dest.windows(2).all(|d| d[0] < d[1]);
        // Each lane's first row: the pool is compacted, so cable `i`
        // starts where cable `i - 1` ends.
        let mut row = 0u32;
        for (i, &d) in self.dest.iter().enumerate() {
            let d = d as usize;
            if let Some(b) = self.bundles.get_mut(d / STRIDE) {
                each!(b, b => {
                    b.at.resize(b.cables.len(), SCALAR);
                    b.at[d % STRIDE] = row;
                });
            }
            row += pool.cable(i).map_or(0, |c| c.pos.len() as u32);
        }
        for b in &mut self.bundles {
            each!(b, b => {
                b.at.resize(b.cables.len(), SCALAR);
                for (a, &c) in b.at.iter_mut().zip(&b.cables) {
                    if c == SCALAR {
                        *a = SCALAR;
                    }
                }
            });
        }
    }
}

/// Runs `n` substeps of every cable of the pool in the `Lanes8` layout,
/// bitwise identical to the one-lane layouts (see the module docs). The
/// caller has prepared the pool's colliders for these substeps.
pub fn advance(
    world: &mut LanesWorld,
    pool: &mut ParticlePool,
    params: &SolverParams,
    n: u32,
    stages: Stages,
    track: bool,
) {
    // The bundles: back from the pool they were lent to, or kept here.
    let mut current = true;
    let mut lent = None;
    // Write back in the frame's tasks when something read or edited the
    // pool since the last frame: a game that reads every frame (to render,
    // to sync its entities) has the copy made while the rows are hot, by
    // every thread, and one that does not pays none.
    let mut eager = false;
    if let Some(back) = pool.reclaim_state() {
        current = back.current;
        eager = current;
        if back.holder.as_any().is::<Held>() {
            // Checked on the line above.
            lent = Some(back.holder.into_any().downcast().expect("a Held"));
        } else if !current {
            // Another layout's storage: its state first.
            back.holder.write_back(pool.state_columns_mut());
            current = true;
        }
    }
    let mut held: Box<Held> = lent.or_else(|| world.held.take()).unwrap_or_default();
    // Edits of the pool's particles read it first, so the pool is current
    // then; other edits (parameters, masses, structure) may leave it older
    // than the lanes, which must then write back before a bundle or a new
    // plan reads particles from the pool. Moved attachment targets alone
    // read none.
    let ours =
        held.synced == Some((pool.structure_revision(), *params)) && held.mark_edits(pool, params);
    if !current && (!ours || held.reads_pool()) {
        held.write_back(pool.state_columns_mut());
        world.write_backs += 1;
    }
    let refresh = if !ours {
        pool.compact();
        held.plan(pool, params);
        world.full_gathers += 1;
        world.lane_cables = held
            .bundles
            .iter()
            .map(|b| each!(b, b => b.cables.iter().filter(|&&c| c != SCALAR).count()))
            .sum();
        world.lane_groups = held.bundles.iter().map(|b| b.width() / LANES).sum();
        world.in_order = held.in_order;
        for b in &mut held.bundles {
            each!(b, b => (b.stale, b.regather) = (0, false));
        }
        Refresh::Gather
    } else if held.synced_attach != pool.attachment_revision() {
        Refresh::Targets
    } else {
        Refresh::Current
    };
    held.synced_attach = pool.attachment_revision();
    // The direct solver's multipliers are state (its warm start): written
    // back with the particles.
    held.track = track || params.solver == crate::params::Solver::Direct;
    held.written = eager;
    held.plan_ahead(track || params.solver == crate::params::Solver::Direct);
    let columns = pool.columns_mut();
    let mut sh = Shared::new(params, columns.colliders(), stages);
    sh.track = track;
    let f = Frame {
        refresh,
        params,
        sh: &sh,
        n,
        eager,
    };
    if refresh == Refresh::Current && !eager && held.scalars == 0 && !held.reads_pool() {
        // Every cable in the lanes, which neither read nor write the pool
        // this frame: no views to make (making them, mostly reading each
        // cable's record, took about 9 % of the samples of a one-substep
        // frame of 10,000 cables; skipping it, 0.82x the wall time, paired).
        held.bundles
            .par_iter_mut()
            .zip(&held.next)
            .for_each(|(b, x)| each!(b, b => b.frame(&mut [], &f, x)));
    } else {
        // Each cable's view in its slot (see `Held::dest`).
        let mut views = recycle(std::mem::take(&mut world.views.0));
        let slots = held.bundles.len() * STRIDE + held.dest.len();
        debug_assert_eq!(columns.len(), held.dest.len());
        if held.in_order {
            // Slots in row order (one key, or keys in row order): appended.
            for (c, &d) in columns.into_cables().zip(&held.dest) {
                debug_assert!(views.len() <= d as usize);
                views.resize_with(d as usize, || None);
                views.push(Some(c));
            }
            views.resize_with(slots, || None);
        } else {
            views.resize_with(slots, || None);
            for (c, &d) in columns.into_cables().zip(&held.dest) {
                views[d as usize] = Some(c);
            }
        }
        let (lane_views, scalar_views) = views.split_at_mut(held.bundles.len() * STRIDE);
        let bundles = &mut held.bundles;
        let next = &held.next;
        let scalar = &mut world.scalar;
        // One parallel pass: bundles beside the one-lane cables.
        rayon::join(
            || {
                bundles
                    .par_iter_mut()
                    .zip(lane_views.par_chunks_mut(STRIDE))
                    .zip(next)
                    .for_each(|((b, v), x)| {
                        each!(b, b => b.frame(v, &f, x));
                    });
            },
            || scalar.advance(scalar_views, params, n, stages, track),
        );
        world.views.0 = recycle(views);
    }
    held.synced = Some((pool.structure_revision(), *params));
    held.synced_rev = pool.revision();
    // The lanes are the state now: lent to the pool, which has them
    // write back when something reads it (or, `written`, notes the read).
    pool.lend_state(held);
    world.eager_frames += u64::from(eager);
}
