//! Particle layouts: the same step over different memory layouts, a
//! first-class, measurable choice.
//!
//! | layout | storage | threads | kernel |
//! | --- | --- | --- | --- |
//! | [`Layout::Aos`] | one object per cable, an array of particle structs (UE's, Flax's and the Unity ropes' shape) | 1 | one lane |
//! | [`Layout::Soa`] | the pool's structure-of-arrays columns, in place | all, over cables | one lane |
//! | [`Layout::Lanes8`] | lane groups of 8 equal-length cables, up to 4 groups per block | all, over blocks (each copied back by the task that solved it) beside the one-lane leftovers | 8 to 32 lanes, SIMD chosen at run time |
//!
//! Every layout runs the same kernel ([`crate::kernel::substep`]): the
//! layouts differ only in storage and lane width, and give bitwise
//! identical positions whatever the thread count and SIMD path
//! (tests/layouts.rs checks it on random scenes with colliders). The pool
//! keeps its public API whatever the layout: `Aos` and `Lanes8` keep their
//! own copies between frames, re-gathered only when the pool was edited
//! (see [`cable_core::ParticlePool::revision`]; moving an attachment target
//! only refreshes targets), and write positions back to the pool before
//! [`crate::Stepper::advance`] returns. `Lanes8` does it in one parallel
//! pass: each lane block is copied back by the task that ran its substeps,
//! while its rows are in cache, through per-cable views of the pool split
//! once per frame ([`cable_core::Columns::into_cables`]); the cables left
//! to the one-lane kernel run in the same pass (see [`crate::lanes`]).
//!
//! # Example
//! ```
//! use cable_core::{CableDesc, ParticlePool};
//! use cable_systems::{Layout, SolverParams, Stepper};
//! use glam::Vec3;
//!
//! let mut pools = [ParticlePool::new(), ParticlePool::new(), ParticlePool::new()];
//! for pool in &mut pools {
//!     for k in 0..10 {
//!         let y = k as f32;
//!         pool.add_cable(&CableDesc::line(Vec3::new(0.0, y, 0.0), Vec3::new(4.0, y, 0.0), 5.0, 16)?)?;
//!     }
//! }
//! for (pool, layout) in pools.iter_mut().zip(Layout::ALL) {
//!     let mut stepper = Stepper::with_layout(SolverParams::default(), layout)?;
//!     stepper.advance(pool, 0.25)?;
//! }
//! let [a, s, l] = &mut pools;
//! assert_eq!(a.all_positions(), s.all_positions());
//! assert_eq!(s.all_positions(), l.all_positions());
//! assert_eq!("lanes8".parse::<Layout>()?, Layout::Lanes8);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;

use cable_core::{CableError, CableHandle, CableParams, ParticlePool};

use crate::aos::{self, AosWorld};
use crate::lanes::{self, LanesWorld};
use crate::params::SolverParams;

/// A particle layout the stepper can run (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Layout {
    /// Array of particle structs per cable, one cable after another on one
    /// thread: the seeds' shape, the reference and baseline.
    Aos,
    /// The pool's structure-of-arrays columns, scalar, parallel over cables.
    Soa,
    /// Lane groups of 8 cables solved in SIMD lanes, up to 4 groups per
    /// block, parallel over blocks. The fastest exact layout.
    #[default]
    Lanes8,
}

impl Layout {
    /// Every layout, slowest first.
    pub const ALL: [Layout; 3] = [Layout::Aos, Layout::Soa, Layout::Lanes8];

    /// The name used on the command line: `aos`, `soa` or `lanes8`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Layout::Aos => "aos",
            Layout::Soa => "soa",
            Layout::Lanes8 => "lanes8",
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown layout name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown layout `{0}`; available: aos, soa, lanes8")]
pub struct ParseLayoutError(pub String);

impl FromStr for Layout {
    type Err = ParseLayoutError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Layout::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| ParseLayoutError(s.to_owned()))
    }
}

/// Which stages of a substep run: all of them normally; benchmarks and
/// profiling time one stage alone ([`crate::Stepper::run_stages`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stages {
    /// 1. attachments.
    pub attach: bool,
    /// 2. integrate.
    pub integrate: bool,
    /// 4. the constraint sweeps (distance, bending).
    pub constraints: bool,
    /// 3–5. contacts: broad phase, sweeps, contact passes, friction.
    pub collide: bool,
}

impl Stages {
    /// The whole substep.
    pub const ALL: Stages = Stages {
        attach: true,
        integrate: true,
        constraints: true,
        collide: true,
    };
    /// Integrate alone.
    pub const INTEGRATE: Stages = Stages {
        attach: false,
        integrate: true,
        constraints: false,
        collide: false,
    };
    /// Constraints alone (no contacts).
    pub const CONSTRAINTS: Stages = Stages {
        attach: false,
        integrate: false,
        constraints: true,
        collide: false,
    };
}

impl Default for Stages {
    fn default() -> Self {
        Self::ALL
    }
}

/// Turns every winch by one substep of `h` seconds
/// ([`cable_core::CableParams::reel_speed`], [`ParticlePool::reel`]). A
/// winch whose payout does not fit the pool's particle budget stops there
/// (its `reel_speed` set to 0), listed in `stalled` as a
/// [`CableError::WinchBudget`].
fn reel_all(
    pool: &mut ParticlePool,
    h: f32,
    winches: &mut Vec<(CableHandle, f32)>,
    stalled: &mut Vec<CableError>,
) {
    winches.clear();
    winches.extend(
        (0..pool.cable_count())
            .filter_map(|i| pool.cable(i))
            .filter(|c| c.active && c.params.reel_speed != 0.0)
            .map(|c| (c.handle, c.params.reel_speed * h)),
    );
    for &(cable, delta) in winches.iter() {
        // Only a full particle budget can refuse (the handles are live and
        // the deltas finite): the cable paid out as far as it fits.
        if let Err(CableError::BudgetExceeded {
            requested,
            live,
            budget,
        }) = pool.reel(cable, delta)
        {
            // Stopped, rather than retried (and refused) every substep.
            if let Ok(&p) = pool.params(cable) {
                let _ = pool.set_params(
                    cable,
                    CableParams {
                        reel_speed: 0.0,
                        ..p
                    },
                );
            }
            stalled.push(CableError::WinchBudget {
                cable,
                requested,
                live,
                budget,
            });
        }
    }
}

/// The buffers a layout keeps between frames.
#[derive(Debug, Clone, Default)]
pub struct LayoutState {
    aos: AosWorld,
    lanes: LanesWorld,
    /// `Soa`: the views' allocation between frames, and the kernel scratch
    /// of each piece of the cables (not per thread: a warmed-up frame
    /// allocates nothing whichever threads run it).
    soa_views: lanes::ViewBuf,
    soa: crate::scalar::ScalarPieces,
    /// Accumulate and write back every constraint's multiplier, for
    /// tension ([`crate::Stepper::set_track_tension`]).
    pub(crate) track: bool,
    /// Scratch of breaking and winches, kept so a step does not allocate.
    handles: Vec<CableHandle>,
    tensions: Vec<f32>,
    winches: Vec<(CableHandle, f32)>,
    /// Segments broken since the stepper last cleared this, in the order
    /// they broke ([`crate::Stepper::torn`]).
    pub(crate) torn: Vec<(CableHandle, usize)>,
    /// Winches stopped at the particle budget since the stepper last
    /// cleared this ([`crate::Stepper::stalled_winches`]).
    pub(crate) stalled: Vec<CableError>,
    /// The pool's (structure, parameters) revisions at which no cable
    /// could break or reel: looking costs a pass over every cable, which a
    /// frame of one substep would otherwise pay each time (about 5 % of
    /// such a frame's samples at 10,000 cables).
    plain_at: Option<(u64, u64)>,
}

impl LayoutState {
    /// Runs `n` substeps of every cable of the pool in `layout`, doing the
    /// `stages` of each ([`Stages::ALL`] for a normal step).
    ///
    /// Before the substeps, sleeping cables near colliders that changed
    /// wake ([`ParticlePool::wake_near_collider_changes`]); after them (with
    /// every stage run), still cables fall asleep
    /// ([`ParticlePool::update_sleep`]). Sleeping cables, and hidden ones
    /// that skip updates, are left as they are.
    ///
    /// With colliders, [`cable_core::ColliderSet::prepare`] runs before the
    /// first substep (it measures how far each collider moved since the
    /// last substep, for friction) and again before the second; colliders
    /// cannot move between the substeps of one call, so the remaining
    /// substeps share that second preparation and run back to back.
    pub fn advance(
        &mut self,
        layout: Layout,
        pool: &mut ParticlePool,
        params: &SolverParams,
        n: u32,
        stages: Stages,
    ) {
        if n == 0 {
            return;
        }
        crate::trace::span!("cable.layout", substeps = n);
        pool.wake_near_collider_changes();
        self.advance_awake(layout, pool, params, n, stages);
        if stages == Stages::ALL {
            pool.update_sleep(n as f32 * params.substep, params.substep);
        }
    }

    /// [`LayoutState::advance`] of the cables awake.
    fn advance_awake(
        &mut self,
        layout: Layout,
        pool: &mut ParticlePool,
        params: &SolverParams,
        n: u32,
        stages: Stages,
    ) {
        // Revisions are unique across the process's pools: no other pool
        // (and no other state of this one) can carry the same pair.
        let (mut breakable, mut reeling) = (false, false);
        if self.plain_at != Some((pool.structure_revision(), pool.params_revision())) {
            // Parameters only: reading the particles would have a layout
            // that keeps them write them back (`ParticlePool::lend_state`).
            for p in pool.handles().filter_map(|h| pool.params(h).ok()) {
                breakable |= p.break_tension.is_some();
                reeling |= p.reel_speed != 0.0;
            }
        }
        self.plain_at = None;
        if breakable || reeling {
            // Segments break and winches turn between substeps: one
            // substep at a time (breaking first: it reads the multipliers
            // of the substep, indexed by the particles before reeling).
            for _ in 0..n {
                self.advance_unbroken(layout, pool, params, 1, stages);
                if breakable {
                    crate::tension::break_overloaded(
                        pool,
                        params.substep,
                        &mut self.handles,
                        &mut self.tensions,
                        &mut self.torn,
                    );
                }
                if reeling && stages.integrate {
                    reel_all(pool, params.substep, &mut self.winches, &mut self.stalled);
                }
            }
        } else {
            self.advance_unbroken(layout, pool, params, n, stages);
            // Substeps change no cable's parameters and add no cable (the
            // layouts' access to the columns gives the pool a new structure
            // revision all the same): the answer holds at the revisions
            // the pool has now. Breaking and winches change parameters and
            // cables, so after those the next frame looks again.
            self.plain_at = Some((pool.structure_revision(), pool.params_revision()));
        }
    }

    fn advance_unbroken(
        &mut self,
        layout: Layout,
        pool: &mut ParticlePool,
        params: &SolverParams,
        n: u32,
        stages: Stages,
    ) {
        let colliders = !pool.colliders().is_empty() || !pool.colliders().prepared().is_empty();
        if colliders && stages.collide {
            pool.colliders_mut().prepare();
            self.run(layout, pool, params, 1, stages);
            if n > 1 {
                pool.colliders_mut().prepare();
                self.run(layout, pool, params, n - 1, stages);
            }
        } else {
            self.run(layout, pool, params, n, stages);
        }
    }

    fn run(
        &mut self,
        layout: Layout,
        pool: &mut ParticlePool,
        params: &SolverParams,
        n: u32,
        stages: Stages,
    ) {
        crate::trace::layout_span!(layout);
        let track = self.track;
        if layout != Layout::Lanes8 {
            // Storage `Lanes8` lent the pool (the layout changed): its state
            // back into the pool, and its memory freed.
            pool.sync_state();
            drop(pool.reclaim_state());
        }
        match layout {
            Layout::Aos => aos::advance(&mut self.aos, pool, params, n, stages, track),
            Layout::Soa => {
                let mut views = lanes::recycle(std::mem::take(&mut self.soa_views.0));
                views.extend(pool.columns_mut().into_cables().map(Some));
                self.soa.advance(&mut views, params, n, stages, track);
                self.soa_views.0 = lanes::recycle(views);
            }
            Layout::Lanes8 => lanes::advance(&mut self.lanes, pool, params, n, stages, track),
        }
    }

    /// The `Lanes8` buffers (lane statistics of the last frame).
    #[must_use]
    pub fn lanes(&self) -> &LanesWorld {
        &self.lanes
    }
}
