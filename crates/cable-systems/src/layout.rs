//! Particle layouts: the same step over different memory layouts, a
//! first-class, measurable choice.
//!
//! | layout | storage | threads | kernel |
//! | --- | --- | --- | --- |
//! | [`Layout::Aos`] | one object per cable, an array of particle structs (the seeds' shape) | 1 | scalar |
//! | [`Layout::Soa`] | the pool's structure-of-arrays columns, in place | all, over cables | scalar; long cables pipelined |
//! | [`Layout::Lanes8`] | lane groups of 8 equal-length cables, `Vec3x8`/`f32x8` | all, over lane groups | 8-wide, several groups in flight |
//!
//! All three are *exact*: they give bitwise identical positions, whatever
//! the thread count (tests/layouts.rs checks it on random scenes). The pool
//! keeps its public API whatever the layout: `Aos` and `Lanes8` copy the
//! cables into their own buffers at the start of a frame, run the frame's
//! substeps there, and copy positions back before [`crate::Stepper::advance`]
//! returns.
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

use cable_core::{CableMut, ParticlePool};
use rayon::prelude::*;

use crate::aos::{self, AosWorld};
use crate::attach::attach_cable;
use crate::collide::may_touch;
use crate::constraints::solve_cable;
use crate::integrate::integrate_cable;
use crate::lanes::{self, LanesWorld};
use crate::params::SolverParams;
use crate::pipeline::{PIPELINE_MIN_SEGMENTS, solve_cable_pipelined};

/// A particle layout the stepper can run (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// Array of particle structs per cable, one cable after another on one
    /// thread: the seeds' shape, the reference and baseline.
    Aos,
    /// The pool's structure-of-arrays columns, scalar, parallel over cables.
    Soa,
    /// Lane groups of 8 cables in `f32x8`, several groups in flight per
    /// thread, parallel over lane groups. The fastest exact layout.
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
#[non_exhaustive] // a collide stage joins with the collide system
pub struct Stages {
    /// 1. attachments.
    pub attach: bool,
    /// 2. integrate.
    pub integrate: bool,
    /// 3. constraints.
    pub constraints: bool,
}

impl Stages {
    /// The whole substep.
    pub const ALL: Stages = Stages {
        attach: true,
        integrate: true,
        constraints: true,
    };
    /// Integrate alone.
    pub const INTEGRATE: Stages = Stages {
        attach: false,
        integrate: true,
        constraints: false,
    };
    /// Constraints alone.
    pub const CONSTRAINTS: Stages = Stages {
        attach: false,
        integrate: false,
        constraints: true,
    };
}

impl Default for Stages {
    fn default() -> Self {
        Self::ALL
    }
}

/// Runs `n` substeps on one cable in place, in the pool's columns: the
/// `Soa` layout's work for one cable (the order of
/// [`crate::step::substep_cable`]; cables with at least
/// [`PIPELINE_MIN_SEGMENTS`] segments solve with pipelined sweeps, bitwise
/// the same).
pub fn advance_cable(c: &mut CableMut<'_>, params: &SolverParams, n: u32, stages: Stages) {
    // The pipelined sweeps have no contact pass: with colliders, long
    // cables take the plain solver (which does).
    let long = c.pos.len() > PIPELINE_MIN_SEGMENTS && c.colliders.prepared().is_empty();
    for _ in 0..n {
        if stages.attach {
            attach_cable(c);
        }
        if stages.integrate {
            integrate_cable(c, params);
        }
        if !stages.constraints {
            continue;
        }
        if long {
            solve_cable_pipelined(c, params);
        } else {
            solve_cable(c, params);
        }
    }
}

/// The buffers a layout keeps between frames (empty for `Soa`).
#[derive(Debug, Clone, Default)]
pub struct LayoutState {
    aos: AosWorld,
    lanes: LanesWorld,
    /// Per cable: a collider may reach it this substep (Lanes8 with colliders).
    near: Vec<bool>,
}

impl LayoutState {
    /// Runs `n` substeps of every cable of the pool in `layout`, doing the
    /// `stages` of each ([`Stages::ALL`] for a normal step).
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
        if !pool.colliders().is_empty() || !pool.colliders().prepared().is_empty() {
            self.advance_with_colliders(layout, pool, params, n, stages);
            return;
        }
        match layout {
            Layout::Aos => aos::advance(&mut self.aos, pool, params, n, stages),
            Layout::Soa => {
                pool.par_for_each_cable(|mut c| advance_cable(&mut c, params, n, stages));
            }
            Layout::Lanes8 => lanes::advance(&mut self.lanes, pool, params, n, stages, |c| {
                advance_cable(c, params, n, stages);
            }),
        }
    }

    /// With colliders the substeps run one at a time, each after
    /// [`cable_core::ColliderSet::prepare`] (which tracks collider motion
    /// per substep). `Soa` runs the scalar kernel with its contact pass;
    /// `Lanes8` keeps in lane groups the cables that no collider can reach
    /// this substep ([`crate::collide::may_touch`]) and solves the others
    /// with the scalar kernel, so results stay bitwise those of `Soa`;
    /// `Aos`, the seeds' shape kept as a baseline, has no contact kernel
    /// and runs the `Soa` path while colliders exist.
    fn advance_with_colliders(
        &mut self,
        layout: Layout,
        pool: &mut ParticlePool,
        params: &SolverParams,
        n: u32,
        stages: Stages,
    ) {
        for _ in 0..n {
            pool.colliders_mut().prepare();
            match layout {
                Layout::Aos | Layout::Soa => {
                    pool.par_for_each_cable(|mut c| advance_cable(&mut c, params, 1, stages));
                }
                Layout::Lanes8 => {
                    pool.compact();
                    let mut near = std::mem::take(&mut self.near);
                    near.clear();
                    near.resize(pool.cable_count(), false);
                    {
                        let shared: &ParticlePool = pool;
                        near.par_iter_mut().enumerate().for_each(|(i, flag)| {
                            if let Some(c) = shared.cable(i) {
                                *flag = may_touch(&c, shared.colliders(), params);
                            }
                        });
                    }
                    lanes::advance_except(&mut self.lanes, pool, params, 1, stages, &near, |c| {
                        advance_cable(c, params, 1, stages);
                    });
                    self.near = near;
                }
            }
        }
    }

    /// The `Lanes8` buffers (lane statistics of the last frame).
    #[must_use]
    pub fn lanes(&self) -> &LanesWorld {
        &self.lanes
    }
}
