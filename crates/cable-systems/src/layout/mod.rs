//! Particle layouts: the same step over different memory layouts, a
//! first-class, measurable choice.
//!
//! | layout | storage | threads | kernel |
//! | --- | --- | --- | --- |
//! | [`Layout::Aos`] | one object per cable, an array of particle structs (UE's, Flax's and the Unity ropes' shape) | 1 | one lane |
//! | [`Layout::Soa`] | the pool's structure-of-arrays columns, in place | all, over cables | one lane |
//! | [`Layout::Lanes8`] | lane groups of 8 equal-length cables, up to 4 groups per block | all, over blocks (each copied back by the task that solved it) beside the one-lane leftovers | 8 to 32 lanes, SIMD chosen at run time |
//!
//! Every layout runs the same kernel (`kernel::substep`): the
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
//! to the one-lane kernel run in the same pass (see `layout::lanes`).
//!
//! # Files
//!
//! - this file: the [`Layout`] enum and its dispatch (`LayoutState::run`);
//! - `controls.rs`: what runs around the substeps each frame — waking and
//!   sleeping, tearing overloaded segments, turning winches, preparing
//!   colliders (`LayoutState::advance`);
//! - `aos`, `soa`, `lanes`: the three layouts, each a `kernel::Store`
//!   over its own memory.
//!
//! The layouts import the kernel (`kernel`); the kernel never
//! imports them. The SIMD dispatch ([`crate::simd`]) is a leaf at the crate
//! root rather than a layout file, because the kernel's lane types use it
//! too.
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

use cable_core::{CableError, CableHandle, ParticlePool};

use crate::kernel::Stages;
use crate::params::SolverParams;

#[cfg(feature = "internals")]
pub mod aos;
#[cfg(not(feature = "internals"))]
pub(crate) mod aos;
mod controls;
#[cfg(feature = "internals")]
pub mod lanes;
#[cfg(not(feature = "internals"))]
pub(crate) mod lanes;
#[cfg(feature = "internals")]
pub mod soa;
#[cfg(not(feature = "internals"))]
pub(crate) mod soa;

use aos::AosWorld;
use lanes::LanesWorld;

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

/// [`crate::trace`]'s `span!` named after a layout: `cable.layout.aos`, `cable.layout.soa`
/// or `cable.layout.lanes8` (span names must be literals).
#[cfg(feature = "tracing")]
macro_rules! layout_span {
    ($layout:expr) => {
        let _span = match $layout {
            $crate::layout::Layout::Aos => ::tracing::info_span!("cable.layout.aos"),
            $crate::layout::Layout::Soa => ::tracing::info_span!("cable.layout.soa"),
            $crate::layout::Layout::Lanes8 => ::tracing::info_span!("cable.layout.lanes8"),
        }
        .entered();
    };
}

/// [`crate::trace`]'s `span!` named after a layout: `cable.layout.aos`, `cable.layout.soa`
/// or `cable.layout.lanes8` (span names must be literals).
#[cfg(not(feature = "tracing"))]
macro_rules! layout_span {
    ($layout:expr) => {};
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
    soa: soa::ScalarPieces,
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
    /// frame of one substep would otherwise pay each time (a visible part
    /// of such a frame with many cables).
    plain_at: Option<(u64, u64)>,
    /// Contact between cables, after every substep when
    /// [`SolverParams::cable_collision`] is on.
    pub(crate) between: crate::between::CableCollision,
}

impl LayoutState {
    fn run(
        &mut self,
        layout: Layout,
        pool: &mut ParticlePool,
        params: &SolverParams,
        n: u32,
        stages: Stages,
    ) {
        layout_span!(layout);
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

    /// The contact pass between cables ([`SolverParams::cable_collision`]):
    /// its statistics of the last substep, such as
    /// [`crate::between::CableCollision::pairs_tested`].
    #[must_use]
    pub fn between(&self) -> &crate::between::CableCollision {
        &self.between
    }
}
