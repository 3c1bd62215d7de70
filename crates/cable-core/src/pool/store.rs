//! The pool's data: the [`ParticlePool`] struct and its column and
//! record types, with what every other part of the pool reads (counts,
//! identity, the small helpers). It imports only `revisions` (the
//! revision numbers, changed through named edits alone) and `lent`; the
//! files beside it add `impl ParticlePool` blocks, one job each.

use super::revisions::{CableRevisions, Revisions};

use glam::Vec3;

use crate::bvh::Aabb;
use crate::cable::{CableHandle, CableParams, End};
use crate::collider::ColliderSet;
use crate::error::CableError;
use crate::handle::next_owner_id;

use super::lent::{self, ParticleState};

/// [`RowConst::anchor`] of a side with no pinned particle.
pub const NO_ANCHOR: u32 = u32::MAX;

/// Solver constants of one particle, derived from its cable's geometry,
/// pins and parameters, kept by the pool (`ParticlePool::row_consts`) and
/// recomputed when any of those change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowConst {
    /// Row, within the cable, of the nearest pinned particle towards the
    /// start (index 0) and towards the end (index 1) with no broken
    /// segment in between; [`NO_ANCHOR`] when there is none or tethers are
    /// off ([`CableParams::tethers`]), or the particle is itself pinned.
    pub anchor: [u32; 2],
    /// Rest length along the cable to each anchor, metres: the tether's
    /// reach.
    pub reach: [f32; 2],
    /// Rest curvature at this particle, `2·tan(θ₀/2)` of the turning angle
    /// `θ₀` of the initial polyline (0 on end particles and straight cables).
    pub kappa0: f32,
    /// XPBD compliance of the curvature constraint at this particle,
    /// `l̄ / EI` in 1/(N·m) ([`CableParams::bend_stiffness`]), `l̄` half of
    /// each segment next to it that can bend: a segment between two
    /// pinned particles is inside a clamp and does not (the particle at
    /// a clamp's edge stands for half a segment of rod); 0 = no
    /// constraint (end particles, `EI` = 0, a broken segment next to it,
    /// or both segments inside a clamp).
    pub bend_compliance: f32,
    /// The segment from this particle to the next is intact (false on the
    /// last particle and once the segment broke).
    pub linked: bool,
}

/// Longest default winch bound ([`CableParams::max_length`]) a cable gets
/// when it is added, metres: the largest length [`CableParams::validate`]
/// accepts.
pub(super) const MAX_REEL_LENGTH: f32 = 1.0e7;

/// Default particle budget of [`ParticlePool::new`]: 64 Mi particles
/// (about 2.5 GiB of columns).
pub const DEFAULT_PARTICLE_BUDGET: usize = 64 << 20;

/// Bookkeeping of one cable: where its rows are and how it behaves.
#[derive(Debug, Clone)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct CableRecord {
    pub(crate) handle: CableHandle,
    /// First row of the cable in the particle columns.
    pub(crate) first: usize,
    /// Number of particles (rows).
    pub(crate) count: usize,
    pub(crate) params: CableParams,
    /// Attachment target of each end (`None`: free or pinned in place).
    pub(crate) attach: [Option<Vec3>; 2],
    /// Inverse mass each end had before it was attached, restored on detach.
    pub(crate) end_inv_mass: [f32; 2],
    /// The direction out of the cable at each end when it was added (unit:
    /// from the second particle to the first, from the last but one to
    /// the last), what a clamp holds ([`CableParams::clamp_start`]).
    /// Saved only when not zero (saves from before clamps read as zero:
    /// their cables have none).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "is_zero_dirs")
    )]
    pub(crate) clamp_dir: [Vec3; 2],
    /// Where each end's clamp puts its virtual particle, relative to the
    /// end particle: `clamp_dir` times the rest length of the end's
    /// segment, while the clamp is on and the end pinned; `None` otherwise.
    /// Kept by `refresh_rows`. Derived: not saved.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) clamp: [Option<Vec3>; 2],
    pub(crate) alive: bool,
    /// Segment length the winch adds or removes particles at, metres.
    pub(crate) reel_segment: f32,
    /// Linear density the cable was built with, for reeled-out particles.
    pub(crate) mass_per_length: Option<f32>,
    /// Its winch was stopped at the particle budget
    /// ([`ParticlePool::stop_winch`]): `params.reel_speed` is 0 where the
    /// scene's is not. Cleared by a `set_params` that turns it again.
    /// Saved only when set, so saves of runs without it read as before.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "std::ops::Not::not")
    )]
    pub(crate) winch_stopped: bool,
    /// The winch's speed now, m/s ([`ParticlePool::turn_winch`]): what
    /// [`crate::CableParams::reel_accel`] ramps toward `reel_speed`.
    /// Saved only when not 0, so saves of runs without it read as before.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_zero_f32"))]
    pub(crate) reel_rate: f32,
    /// The winch slipped in its last turn ([`ParticlePool::turn_winch`],
    /// [`ParticlePool::winch_slipping`]). Saved only when set.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "std::ops::Not::not")
    )]
    pub(crate) winch_slipping: bool,
    /// Longest segment's rest length, metres, kept by `refresh_rows`: with
    /// `reel_segment` it bounds the curvature compliances a winch can
    /// give the cable (`check_bend_for_substep`). Derived: not saved.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) max_rest: f32,
    /// Sum of the rest lengths of its segments, metres, in `f64`, added
    /// in row order (what the winch bounds against `min_length` and
    /// `max_length`), kept by `refresh_rows` and the winch. Derived: not
    /// saved.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) rest_total: f64,
    /// Pinned particles other than its two ends, counted by
    /// `refresh_rows`: with none, a winch turn refreshes its rows partly
    /// (`refresh_after_reel`). Derived: not saved.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) inner_pins: usize,
    /// The most tension (N) its winch holds the rope with in the next
    /// substep ([`crate::CableParams::slip_end`]): `reel_force` while it
    /// reels in, [`crate::SLIP_FACTOR`] × it otherwise, below its
    /// `max_length`; kept by `refresh_rows` and the winch. Derived from
    /// the parameters, the winch speed and the rest lengths: not saved.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) slip: Option<f32>,
    /// Sleeping and visibility (see [`ParticlePool#sleeping-and-hidden-cables`]).
    pub(crate) sleep: SleepState,
    /// The pool revisions of the last edits of this cable's particle state
    /// alone ([`ParticlePool::state_edits_since`]) and of its parameters
    /// or masses alone ([`ParticlePool::constant_edits_since`]). Not
    /// saved: a restored pool has fresh revisions.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) revisions: CableRevisions,
}

/// Skips a zero winch speed when saving.
#[cfg(feature = "serde")]
fn is_zero_f32(v: &f32) -> bool {
    *v == 0.0
}

/// Skips clamp directions that are both zero when saving.
#[cfg(feature = "serde")]
fn is_zero_dirs(v: &[Vec3; 2]) -> bool {
    v.iter().all(|d| *d == Vec3::ZERO)
}

/// Whether a cable sleeps or is hidden, and how long it has been still.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct SleepState {
    /// Seconds every particle has moved slower than the cable's `sleep_speed`.
    pub(crate) still: f32,
    pub(crate) asleep: bool,
    /// Hidden by the engine ([`ParticlePool::set_visible`]).
    pub(crate) hidden: bool,
    /// While asleep: the cable's bounds grown by its radius and
    /// [`WAKE_MARGIN`]; a collider change there wakes it.
    pub(crate) bounds: Aabb,
}

impl Default for SleepState {
    /// Awake, shown, not still; bounds empty but finite (saves are JSON,
    /// which has no infinity).
    fn default() -> Self {
        Self {
            still: 0.0,
            asleep: false,
            hidden: false,
            bounds: Aabb {
                min: Vec3::ZERO,
                max: Vec3::ZERO,
            },
        }
    }
}

/// Distance beyond a sleeping cable's surface within which a collider
/// change wakes it, metres.
pub const WAKE_MARGIN: f32 = 0.01;

impl CableRecord {
    /// True when the stepper simulates the cable: awake, and shown unless
    /// it is to be skipped while hidden.
    #[inline]
    pub(crate) fn active(&self) -> bool {
        !(self.sleep.asleep || self.sleep.hidden && self.params.skip_when_hidden)
    }

    /// True when the cable's parameters let it fall asleep.
    #[inline]
    pub(crate) fn sleepy(&self) -> bool {
        self.alive && self.params.sleep_speed > 0.0 && self.params.reel_speed == 0.0
    }
}

#[derive(Debug, Clone, Copy)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(super) struct Slot {
    pub(super) generation: u32,
    /// Index into `cables` while the cable lives.
    pub(super) record: Option<u32>,
}

/// Every particle of every cable, stored as structure-of-arrays columns.
///
/// # Invariant
/// `pos`, `prev`, `carry`, `carry_prev`, `inv_mass`, `rest`, `lambda` and
/// `lambda_bend` always have the same length; row `i` of each is particle `i`. A cable owns the
/// contiguous rows `first..first + count`, cables lie in the columns in the
/// order they were added, and `rest[r]` is the rest length of the segment
/// from row `r` to row `r + 1` (0 on a cable's last row). Only
/// [`ParticlePool::add_cable`] and [`ParticlePool::compact`] change lengths,
/// and each touches every column.
///
/// Removing a cable is O(1): its handle dies at once and its rows become
/// garbage that the next [`ParticlePool::compact`] (run by every system
/// before it touches the columns, and by `add_cable` once garbage exceeds a
/// quarter of the rows) squeezes out in one order-preserving pass. Systems
/// therefore always see dense columns.
///
/// # Sleeping and hidden cables
/// A cable with [`CableParams::sleep_speed`] > 0 falls asleep once every
/// particle has moved slower than that for [`CableParams::sleep_delay`]
/// seconds ([`ParticlePool::update_sleep`], run by the stepper after each
/// step): its velocity is zeroed and the stepper skips it, so it costs no
/// solver time. It wakes when the pool edits it (positions, velocity,
/// masses, parameters, a moved attachment target, teleport, winch, a
/// broken segment, [`ParticlePool::wake`]) or when a collider is added,
/// removed or moved near it ([`ParticlePool::wake_near_collider_changes`],
/// run by the stepper before each step). A cable with
/// [`CableParams::skip_when_hidden`] is skipped while the engine says it is
/// hidden ([`ParticlePool::set_visible`]). Cables never interact, so
/// whatever sleeps, the awake cables' results are bitwise the same.
///
/// # Lent state
/// A layout that keeps cables in storage of its own between frames (the
/// `Lanes8` layout of `cable-systems`) lends it to the pool after a step
/// ([`ParticlePool::lend_state`]) instead of copying every particle back:
/// the first access to the pool's particles afterwards, through `&self` or
/// `&mut self`, on any thread, has that storage write its state back once
/// ([`StateHolder`](crate::StateHolder)), so every reader sees the newest state and a frame
/// nothing reads copies nothing. [`ParticlePool::is_lent`] tells whether
/// that copy is still pending; [`ParticlePool::sync_state`] makes it now.
///
/// # Identity and clones
/// Every pool has an identity ([`ParticlePool::id`]) that the handles it
/// issues carry, so a handle of another pool is refused
/// ([`CableError::StaleHandle`]) even when this pool has a live cable in
/// the same slot; its [`ColliderSet`] has an identity of its own.
/// `clone` makes a pool with the same contents *and the same identity*
/// (a snapshot): the original's handles name the same cables in the clone,
/// so a saved pool can be restored and stepped with the handles the game
/// holds. The two are not told apart afterwards: a cable added to each
/// after the clone may get the same handle in both.
///
/// A restored pool (feature `serde`: `ParticlePool` serialises, and
/// deserialising validates, see [`ParticlePool::validate`]) keeps the
/// saved identity too: the handles the game held when it saved name the
/// same cables after the restore, in this process or another. Restoring
/// the same save twice gives two such snapshots, as two clones would be.
/// Pools and sets created after a restore never take a restored identity,
/// whatever identity the save holds: the identity counter skips one it
/// has not reached yet (even `u32::MAX`) when it gets there, rather than
/// jump past it, so no save can use the identities up. The counter never
/// wraps: a process that creates 2³² − 1 pools and sets panics rather
/// than reuse an identity, as `std::thread::ThreadId` does.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::with_budget(1_000);
/// let a = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
/// let b = pool.add_cable(&CableDesc::from_points(&[Vec3::ZERO, Vec3::Y, Vec3::ONE])?)?;
/// pool.remove_cable(a)?;
/// assert!(pool.positions(a).is_err()); // removed handles are refused
/// assert_eq!(pool.positions(b)?, &[Vec3::ZERO, Vec3::Y, Vec3::ONE]);
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ParticlePool {
    /// Identity carried by the handles this pool issues.
    pub(super) id: u32,
    /// The columns a step changes (positions, previous positions, carries,
    /// multipliers), possibly lent to a layout ([`ParticlePool::lend_state`]).
    pub(super) state: lent::Lent,
    pub(super) inv_mass: Vec<f32>,
    pub(super) rest: Vec<f32>,
    pub(super) row_const: Vec<RowConst>,
    pub(super) cables: Vec<CableRecord>,
    pub(super) slots: Vec<Slot>,
    pub(super) free_slots: Vec<u32>,
    pub(super) garbage_rows: usize,
    /// Removed cables whose records await compaction.
    pub(super) dead_records: usize,
    pub(super) budget: usize,
    // --- colliders (issue 3) ---
    pub(super) colliders: ColliderSet,
    /// The revision numbers (see [`ParticlePool::revision`] and its
    /// relatives): changed only through their named edits.
    pub(super) revisions: Revisions,
    /// Live cables whose parameters let them sleep.
    pub(super) sleepy: usize,
    /// Live cables asleep.
    pub(super) sleeping: usize,
    /// Scratch of [`ParticlePool::edit_rows`], kept so that a warm pass
    /// allocates nothing.
    pub(super) rows_scratch: Vec<RowsCable>,
    /// Scratch of [`ParticlePool::edit_rows`]: the cables a pass moved.
    pub(super) moved_scratch: Vec<u32>,
}

impl Default for ParticlePool {
    fn default() -> Self {
        Self::new()
    }
}

impl ParticlePool {
    /// An empty pool with the [`DEFAULT_PARTICLE_BUDGET`].
    #[must_use]
    pub fn new() -> Self {
        Self::with_budget(DEFAULT_PARTICLE_BUDGET)
    }

    /// An empty pool that refuses cables once it would hold more than
    /// `max_particles` particles.
    #[must_use]
    pub fn with_budget(max_particles: usize) -> Self {
        Self {
            id: next_owner_id(),
            state: lent::Lent::new(ParticleState::default()),
            inv_mass: Vec::new(),
            rest: Vec::new(),
            row_const: Vec::new(),
            cables: Vec::new(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            garbage_rows: 0,
            dead_records: 0,
            budget: max_particles,
            colliders: ColliderSet::new(),
            revisions: Revisions::fresh(),
            sleepy: 0,
            sleeping: 0,
            rows_scratch: Vec::new(),
            moved_scratch: Vec::new(),
        }
    }

    /// The pool's identity, carried by the handles it issues
    /// ([`CableHandle::pool_id`]): no pool or collider set created
    /// afterwards in the process gets it, nor one restored before
    /// (whatever identity a save holds), but a clone keeps it (see
    /// [Identity and clones](ParticlePool#identity-and-clones)).
    #[inline]
    #[must_use]
    pub fn id(&self) -> u32 {
        self.id
    }

    // --- colliders (issue 3) ---

    /// The pool's colliders (spheres, capsules, planes, boxes).
    #[inline]
    #[must_use]
    pub fn colliders(&self) -> &ColliderSet {
        &self.colliders
    }

    /// The pool's colliders, to add, move and remove them.
    #[inline]
    pub fn colliders_mut(&mut self) -> &mut ColliderSet {
        &mut self.colliders
    }

    // --- end colliders ---

    /// The particle budget.
    #[inline]
    #[must_use]
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Sets the particle budget: from now on the pool refuses cables and
    /// payouts that would take it over `max_particles` particles
    /// ([`CableError::BudgetExceeded`], [`CableError::WinchBudget`]).
    ///
    /// # Errors
    /// [`CableError::OutOfRange`] (field `max_particles`) when the pool
    /// already holds more particles than that; the budget is unchanged.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, CableError, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// pool.set_budget(100).expect("the pool is empty");
    /// let rope = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 200).expect("valid");
    /// assert!(matches!(
    ///     pool.add_cable(&rope),
    ///     Err(CableError::BudgetExceeded { requested: 201, budget: 100, .. })
    /// ));
    /// ```
    pub fn set_budget(&mut self, max_particles: usize) -> Result<(), CableError> {
        if self.particle_count() > max_particles {
            return Err(CableError::OutOfRange {
                field: "max_particles",
                expected: "must be at least the number of particles the pool holds",
                value: max_particles as f64,
            });
        }
        self.budget = max_particles;
        Ok(())
    }

    /// Number of live cables.
    #[inline]
    #[must_use]
    pub fn cable_count(&self) -> usize {
        // Dead records exist only between a removal and the next compaction.
        self.cables.len() - self.dead_records
    }

    /// Number of particles of live cables.
    #[inline]
    #[must_use]
    pub fn particle_count(&self) -> usize {
        self.inv_mass.len() - self.garbage_rows
    }

    /// Number of particles of cable `handle` (segments + 1), read from its
    /// record: unlike the length of [`ParticlePool::positions`], it does
    /// not make a lent pool current ([`ParticlePool::lend_state`]).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// assert_eq!(pool.particle_count_of(h)?, 5);
    /// pool.remove_cable(h)?;
    /// assert!(pool.particle_count_of(h).is_err());
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn particle_count_of(&self, handle: CableHandle) -> Result<usize, CableError> {
        Ok(self.record(handle)?.count)
    }

    /// True when the pool holds no cable.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cable_count() == 0
    }
}

/// True when `c` is finite and within ±[`crate::MAX_COORDINATE`].
#[inline]
pub(super) fn in_range(c: f32) -> bool {
    c.abs() <= crate::MAX_COORDINATE
}

/// Offset of an end's particle within a cable of `count` particles.
#[inline]
pub(super) fn end_offset(count: usize, end: End) -> usize {
    match end {
        End::Start => 0,
        End::End => count - 1,
    }
}

pub(super) struct LiveHandles<'a> {
    pub(super) inner: std::slice::Iter<'a, CableRecord>,
    pub(super) remaining: usize,
}

impl Iterator for LiveHandles<'_> {
    type Item = CableHandle;
    fn next(&mut self) -> Option<CableHandle> {
        for c in self.inner.by_ref() {
            if c.alive {
                self.remaining -= 1;
                return Some(c.handle);
            }
        }
        None
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for LiveHandles<'_> {}

/// One cable of [`super::PoolRows`] (defined here, beside the pool
/// that keeps a buffer of them).
#[derive(Debug, Clone, Copy)]
pub struct RowsCable {
    /// First row.
    pub first: usize,
    /// Number of rows (particles).
    pub count: usize,
    /// The cable's parameters.
    pub params: CableParams,
    /// The cable is simulated, or sleeps (a pass may move it, which wakes
    /// it); false for a hidden cable that skips updates.
    pub present: bool,
    /// The cable is awake (simulated now, unless hidden and skipped).
    pub awake: bool,
}
