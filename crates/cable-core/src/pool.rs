//! The structure-of-arrays particle pool that holds every particle of every cable.

use glam::Vec3;

use crate::bvh::Aabb;
use crate::cable::{CableDesc, CableHandle, CableParams, End, bend_compliance, next_owner_id};
use crate::collider::ColliderSet;
use crate::error::{CableError, check_finite, check_vec3};

// Revisions, indexed iteration and read-only cable views: a child module,
// so it sees the private columns.
#[path = "pool_access.rs"]
mod access;
#[path = "pool_sleep.rs"]
mod sleep;
pub use access::CableRef;
// Invariant checks, teleports and (feature `serde`) save and restore: child
// modules too.
#[path = "pool_check.rs"]
mod check;
pub use check::MAX_STATE_COORDINATE;
// Whether a restored pool is a run of a given scene.
#[path = "pool_match.rs"]
mod matching;
pub use matching::SetupMismatch;
#[cfg(feature = "serde")]
#[path = "pool_save.rs"]
mod save;
#[path = "pool_teleport.rs"]
mod teleport;
// The winch (`ParticlePool::reel`).
#[path = "pool_reel.rs"]
mod reel;
// The state columns a layout may hold newer copies of between frames.
#[path = "pool_lent.rs"]
mod lent;
pub use lent::{HeldRead, ParticleState, Reclaimed, StateHolder};

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
    /// `l̄ / EI` in 1/(N·m) ([`CableParams::bend_stiffness`]); 0 = no
    /// constraint (end particles, `EI` = 0, or a broken segment next to it).
    pub bend_compliance: f32,
    /// The segment from this particle to the next is intact (false on the
    /// last particle and once the segment broke).
    pub linked: bool,
}

/// Longest default winch bound ([`CableParams::max_length`]) a cable gets
/// when it is added, metres: the largest length [`CableParams::validate`]
/// accepts.
const MAX_REEL_LENGTH: f32 = 1.0e7;

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
    pub(crate) alive: bool,
    /// Segment length the winch adds or removes particles at, metres.
    pub(crate) reel_segment: f32,
    /// Linear density the cable was built with, for reeled-out particles.
    pub(crate) mass_per_length: Option<f32>,
    /// Longest segment's rest length, metres, kept by `refresh_rows`: with
    /// `reel_segment` it bounds the curvature compliances a winch can
    /// give the cable (`check_bend_for_substep`). Derived: not saved.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) max_rest: f32,
    /// Sleeping and visibility (see [`ParticlePool#sleeping-and-hidden-cables`]).
    pub(crate) sleep: SleepState,
    /// The pool revision of the last edit of this cable's particle state
    /// alone ([`ParticlePool::state_edits_since`]). Not saved: a restored
    /// pool has fresh revisions.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) state_revision: u64,
    /// The pool revision of the last change of this cable's parameters or
    /// masses alone ([`ParticlePool::constant_edits_since`]). Not saved.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) const_revision: u64,
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
struct Slot {
    generation: u32,
    /// Index into `cables` while the cable lives.
    record: Option<u32>,
}

/// Every particle of every cable, stored as structure-of-arrays columns.
///
/// # Invariant
/// `pos`, `prev`, `carry`, `inv_mass`, `rest`, `lambda` and `lambda_bend`
/// always have the same length; row `i` of each is particle `i`. A cable owns the
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
/// ([`StateHolder`]), so every reader sees the newest state and a frame
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
    id: u32,
    /// The columns a step changes (positions, previous positions, carry,
    /// multipliers), possibly lent to a layout ([`ParticlePool::lend_state`]).
    state: lent::Lent,
    inv_mass: Vec<f32>,
    rest: Vec<f32>,
    row_const: Vec<RowConst>,
    cables: Vec<CableRecord>,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    garbage_rows: usize,
    /// Removed cables whose records await compaction.
    dead_records: usize,
    budget: usize,
    // --- colliders (issue 3) ---
    colliders: ColliderSet,
    /// Changes with every mutable access (see [`ParticlePool::revision`]).
    revision: u64,
    /// Changes with every mutable access but the edits of one cable's
    /// particle state (see [`ParticlePool::structure_revision`]).
    structure_revision: u64,
    /// Changes when an attached end's target moves (see
    /// [`ParticlePool::attachment_revision`]).
    attach_revision: u64,
    /// Changes when a cable is added or its parameters change (see
    /// [`ParticlePool::params_revision`]).
    params_revision: u64,
    /// Live cables whose parameters let them sleep.
    sleepy: usize,
    /// Live cables asleep.
    sleeping: usize,
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
            revision: access::next_revision(),
            structure_revision: access::next_revision(),
            attach_revision: access::next_revision(),
            params_revision: access::next_revision(),
            sleepy: 0,
            sleeping: 0,
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

    /// Adds a cable and returns its handle.
    ///
    /// # Errors
    /// [`CableError`] naming the parameter that is out of range, or
    /// [`CableError::BudgetExceeded`] when the pool would exceed its budget.
    pub fn add_cable(&mut self, desc: &CableDesc) -> Result<CableHandle, CableError> {
        self.touch();
        desc.params.validate()?;
        let geo = &desc.geometry;
        let count = geo.points.len();
        if count < 2 || geo.rest.len() != count - 1 {
            return Err(CableError::TooFew {
                field: "points",
                min: 2,
                got: count,
            });
        }
        for &pin in &desc.pins {
            if pin as usize >= count {
                return Err(CableError::OutOfRange {
                    field: "pins",
                    expected: "every index must be less than the number of particles",
                    value: f64::from(pin),
                });
            }
        }
        let inv_mass = desc.inverse_masses()?;
        let mut params = desc.params;
        let length = desc.length();
        let min = params.min_length.unwrap_or(geo.rest[0]);
        // 4 × the length, but within what `CableParams::validate` accepts
        // (1e7 m), so that `set_params(h, *params(h)?)` is accepted.
        let max = params
            .max_length
            .unwrap_or((4.0 * length).min(length.max(MAX_REEL_LENGTH)));
        if !(min > 0.0 && min <= length) {
            return Err(CableError::OutOfRange {
                field: "min_length",
                expected: "must be greater than 0 and at most the cable's initial length",
                value: f64::from(min),
            });
        }
        if !(max >= length && max.is_finite()) {
            return Err(CableError::OutOfRange {
                field: "max_length",
                expected: "must be at least the cable's initial length",
                value: f64::from(max),
            });
        }
        params.min_length = Some(min);
        params.max_length = Some(max);
        let live = self.particle_count();
        if count > self.budget.saturating_sub(live) {
            return Err(CableError::BudgetExceeded {
                requested: count,
                live,
                budget: self.budget,
            });
        }
        if self.garbage_rows > 0 && self.garbage_rows * 4 >= self.inv_mass.len() {
            self.compact();
        }
        let handle = self.alloc_slot();
        let first = self.inv_mass.len();
        let st = self.state.get_mut();
        st.pos.extend_from_slice(&geo.points);
        st.prev.extend_from_slice(&geo.points);
        st.carry.extend(std::iter::repeat_n(Vec3::ZERO, count));
        st.lambda.extend(std::iter::repeat_n(0.0, count));
        st.lambda_bend.extend(std::iter::repeat_n(0.0, count));
        st.lambda_row.extend(std::iter::repeat_n([0.0; 3], count));
        self.inv_mass.extend_from_slice(&inv_mass);
        for &pin in &desc.pins {
            self.inv_mass[first + pin as usize] = 0.0;
        }
        self.rest.extend_from_slice(&geo.rest);
        self.rest.push(0.0);
        self.row_const.extend((0..count).map(|i| RowConst {
            anchor: [NO_ANCHOR; 2],
            reach: [0.0; 2],
            kappa0: if i == 0 || i + 1 == count {
                0.0
            } else {
                discrete_curvature(geo.points[i - 1], geo.points[i], geo.points[i + 1])
            },
            bend_compliance: 0.0,
            linked: i + 1 < count,
        }));
        let mut record = CableRecord {
            handle,
            first,
            count,
            params,
            attach: [None, None],
            end_inv_mass: [inv_mass[0], inv_mass[count - 1]],
            alive: true,
            reel_segment: length / (count - 1) as f32,
            mass_per_length: desc.mass_per_length,
            max_rest: 0.0,
            sleep: SleepState::default(),
            state_revision: 0,
            const_revision: 0,
        };
        for (end, on) in [(End::Start, desc.attach_start), (End::End, desc.attach_end)] {
            if on {
                let row = first + end_offset(count, end);
                record.attach[end.slot()] = Some(geo.points[end_offset(count, end)]);
                self.inv_mass[row] = 0.0;
            }
        }
        self.slots[handle.index as usize].record = Some(self.cables.len() as u32);
        self.sleepy += usize::from(record.sleepy());
        self.cables.push(record);
        self.params_revision = access::next_revision();
        self.refresh_rows(self.cables.len() - 1);
        self.debug_check();
        Ok(handle)
    }

    /// Recomputes the derived [`RowConst`]s of cable record `rec` (tether
    /// anchors and reaches, bending compliances) from its inverse masses,
    /// rest lengths, links and parameters.
    fn refresh_rows(&mut self, rec: usize) {
        let r = &self.cables[rec];
        let rows = r.first..r.first + r.count;
        let params = r.params;
        let w = &self.inv_mass[rows.clone()];
        let rest = &self.rest[rows.clone()];
        let k = &mut self.row_const[rows];
        let n = k.len();
        // Towards the start: walk forward, remembering the last pinned particle.
        let mut anchor = NO_ANCHOR;
        let mut reach = 0.0f32;
        for i in 0..n {
            if i > 0 {
                if k[i - 1].linked {
                    reach += rest[i - 1];
                } else {
                    anchor = NO_ANCHOR;
                }
            }
            if w[i] == 0.0 {
                anchor = i as u32;
                reach = 0.0;
                k[i].anchor[0] = NO_ANCHOR;
            } else {
                k[i].anchor[0] = if params.tethers { anchor } else { NO_ANCHOR };
            }
            k[i].reach[0] = reach;
        }
        let mut anchor = NO_ANCHOR;
        let mut reach = 0.0f32;
        for i in (0..n).rev() {
            if i + 1 < n {
                if k[i].linked {
                    reach += rest[i];
                } else {
                    anchor = NO_ANCHOR;
                }
            }
            if w[i] == 0.0 {
                anchor = i as u32;
                reach = 0.0;
                k[i].anchor[1] = NO_ANCHOR;
            } else {
                k[i].anchor[1] = if params.tethers { anchor } else { NO_ANCHOR };
            }
            k[i].reach[1] = reach;
        }
        for i in 0..n {
            let inner = i > 0 && i + 1 < n && k[i - 1].linked && k[i].linked;
            k[i].bend_compliance = if inner {
                bend_compliance(rest[i - 1], rest[i], params.bend_stiffness)
            } else {
                0.0
            };
        }
        // Not a params revision: the stepper's check bounds what a winch
        // can do to the rest lengths (see `check_bend_for_substep`).
        self.cables[rec].max_rest = rest.iter().copied().fold(0.0, f32::max);
    }

    fn alloc_slot(&mut self) -> CableHandle {
        if let Some(index) = self.free_slots.pop() {
            let generation = self.slots[index as usize].generation;
            CableHandle {
                index,
                generation,
                pool: self.id,
            }
        } else {
            let index = u32::try_from(self.slots.len())
                // The particle budget bounds cables far below 2^32 (each has ≥ 2 particles
                // and the columns are indexed by usize); a pool that still overflows is a bug.
                .expect("more than 2^32 cable slots");
            self.slots.push(Slot {
                generation: 0,
                record: None,
            });
            CableHandle {
                index,
                generation: 0,
                pool: self.id,
            }
        }
    }

    /// Removes a cable. Its handle is refused from now on, even after the
    /// slot is reused by a new cable.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn remove_cable(&mut self, handle: CableHandle) -> Result<(), CableError> {
        self.touch();
        let rec = self.record_index(handle)?;
        let slot = &mut self.slots[handle.index as usize];
        slot.record = None;
        // Wrapping: after 2^32 reuses of one slot a handle could alias; that
        // many removals of one slot is far beyond any game's lifetime.
        slot.generation = slot.generation.wrapping_add(1);
        self.free_slots.push(handle.index);
        let r = &mut self.cables[rec];
        self.sleepy -= usize::from(r.sleepy());
        self.sleeping -= usize::from(r.sleep.asleep);
        r.alive = false;
        self.garbage_rows += r.count;
        self.dead_records += 1;
        Ok(())
    }

    /// Squeezes the rows of removed cables out of the columns in one
    /// order-preserving pass. Cheap when there is nothing to do.
    pub fn compact(&mut self) {
        if self.garbage_rows == 0 {
            return;
        }
        let st = self.state.get_mut();
        let mut write = 0usize;
        let mut kept = 0usize;
        for i in 0..self.cables.len() {
            if !self.cables[i].alive {
                continue;
            }
            let (first, count) = (self.cables[i].first, self.cables[i].count);
            if first != write {
                let src = first..first + count;
                st.pos.copy_within(src.clone(), write);
                st.prev.copy_within(src.clone(), write);
                st.carry.copy_within(src.clone(), write);
                self.inv_mass.copy_within(src.clone(), write);
                self.rest.copy_within(src.clone(), write);
                st.lambda.copy_within(src.clone(), write);
                st.lambda_bend.copy_within(src.clone(), write);
                self.row_const.copy_within(src.clone(), write);
                st.lambda_row.copy_within(src, write);
            }
            let mut rec = self.cables[i].clone();
            rec.first = write;
            self.slots[rec.handle.index as usize].record = Some(kept as u32);
            self.cables[kept] = rec;
            write += count;
            kept += 1;
        }
        self.cables.truncate(kept);
        for col in [
            &mut self.inv_mass,
            &mut self.rest,
            &mut st.lambda,
            &mut st.lambda_bend,
        ] {
            col.truncate(write);
        }
        st.pos.truncate(write);
        st.prev.truncate(write);
        st.carry.truncate(write);
        self.row_const.truncate(write);
        st.lambda_row.truncate(write);
        self.garbage_rows = 0;
        self.dead_records = 0;
        self.debug_check();
    }

    /// True while `handle` names a live cable of this pool.
    #[inline]
    #[must_use]
    pub fn contains(&self, handle: CableHandle) -> bool {
        self.record_index(handle).is_ok()
    }

    fn record_index(&self, handle: CableHandle) -> Result<usize, CableError> {
        match self.slots.get(handle.index as usize) {
            Some(Slot {
                generation,
                record: Some(r),
            }) if *generation == handle.generation && handle.pool == self.id => Ok(*r as usize),
            _ => Err(CableError::StaleHandle(handle)),
        }
    }

    fn record(&self, handle: CableHandle) -> Result<&CableRecord, CableError> {
        Ok(&self.cables[self.record_index(handle)?])
    }

    fn rows(&self, handle: CableHandle) -> Result<std::ops::Range<usize>, CableError> {
        let r = self.record(handle)?;
        Ok(r.first..r.first + r.count)
    }

    /// Handles of the live cables, in the order they were added.
    pub fn handles(&self) -> impl ExactSizeIterator<Item = CableHandle> + '_ {
        LiveHandles {
            inner: self.cables.iter(),
            remaining: self.cable_count(),
        }
    }

    /// Current particle positions of a cable, without copying (UE's
    /// `GetCableParticleLocations`).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn positions(&self, handle: CableHandle) -> Result<&[Vec3], CableError> {
        Ok(&self.state.get().pos[self.rows(handle)?])
    }

    /// Mutable particle positions of a cable, for teleports and scripted
    /// motion. Moving a particle without moving its previous position gives it
    /// a velocity; use [`ParticlePool::teleport`] to move a cable rigidly.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn positions_mut(&mut self, handle: CableHandle) -> Result<&mut [Vec3], CableError> {
        let rows = self.rows(handle)?;
        let i = self.record_index(handle)?;
        self.touch_state(i);
        self.wake_record(i);
        Ok(&mut self.state.get_mut().pos[rows])
    }

    /// Previous particle positions (the Verlet state; velocity × substep is
    /// `position - previous`).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn prev_positions(&self, handle: CableHandle) -> Result<&[Vec3], CableError> {
        Ok(&self.state.get().prev[self.rows(handle)?])
    }

    /// Mutable previous positions: set `prev = pos - v·h` to give a particle
    /// velocity `v` at substep `h`.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn prev_positions_mut(&mut self, handle: CableHandle) -> Result<&mut [Vec3], CableError> {
        let rows = self.rows(handle)?;
        let i = self.record_index(handle)?;
        self.touch_state(i);
        self.wake_record(i);
        // The caller sets the velocity: no rounding of the last update to carry.
        self.state.get_mut().carry[rows.clone()].fill(Vec3::ZERO);
        Ok(&mut self.state.get_mut().prev[rows])
    }

    /// The part of each particle's last displacement that rounding its
    /// position to f32 dropped, metres.
    ///
    /// A particle's velocity over the last substep `h` is
    /// `(pos - prev + carry) / h`. Far from the origin a position update of
    /// a few millimetres is rounded to the spacing of f32 coordinates
    /// (0.06 mm at 1 km, 1 mm at 10 km); the integrator keeps what it drops
    /// here and adds it to the next update, so the rounding never becomes
    /// velocity. Zero after [`ParticlePool::prev_positions_mut`]; set by
    /// [`ParticlePool::set_velocity`] so the velocity it gives is exact.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn carry(&self, handle: CableHandle) -> Result<&[Vec3], CableError> {
        Ok(&self.state.get().carry[self.rows(handle)?])
    }

    /// Inverse masses (0 = pinned) of a cable's particles.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn inv_masses(&self, handle: CableHandle) -> Result<&[f32], CableError> {
        Ok(&self.inv_mass[self.rows(handle)?])
    }

    /// Rest length of each segment of a cable, metres; the slice has one
    /// entry per particle and the last entry is 0 (no segment follows).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn rest_lengths(&self, handle: CableHandle) -> Result<&[f32], CableError> {
        Ok(&self.rest[self.rows(handle)?])
    }

    /// Derived solver constants of each particle of a cable (tether anchors
    /// and reaches, rest curvature, bending compliance, intact segments).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn row_consts(&self, handle: CableHandle) -> Result<&[RowConst], CableError> {
        Ok(&self.row_const[self.rows(handle)?])
    }

    /// The multipliers the last substep's constraints accumulated, per
    /// particle: the segment starting at each particle (kg·m; tension is
    /// this / substep²), and the start-side tether, end-side tether and
    /// curvature constraint of each particle. Written only while the
    /// stepper tracks tension (`cable_systems::Stepper::set_track_tension`).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn multipliers(&self, handle: CableHandle) -> Result<(&[f32], &[[f32; 3]]), CableError> {
        let rows = self.rows(handle)?;
        let st = self.state.get();
        Ok((&st.lambda[rows.clone()], &st.lambda_row[rows]))
    }

    /// Breaks segment `segment` (from particle `segment` to `segment + 1`)
    /// for good: its distance constraint, and the bending and tethers
    /// across it, are removed. Breaking a broken segment changes nothing.
    ///
    /// # Errors
    /// Stale handle, or a segment index not less than the segment count.
    pub fn break_segment(&mut self, handle: CableHandle, segment: usize) -> Result<(), CableError> {
        let i = self.record_index(handle)?;
        let rec = &self.cables[i];
        if segment + 1 >= rec.count {
            return Err(CableError::ParticleOutOfRange {
                index: segment,
                len: rec.count - 1,
            });
        }
        let row = rec.first + segment;
        if self.row_const[row].linked {
            self.touch();
            self.wake_record(i);
            self.row_const[row].linked = false;
            self.refresh_rows(i);
        }
        Ok(())
    }

    /// Runs the winch toward a rest length: from now on the stepper reels
    /// at `speed` m/s (paying out or reeling in, whichever the target
    /// needs) and stops at `target_length` metres, which becomes the
    /// cable's [`CableParams::max_length`] (paying out) or
    /// [`CableParams::min_length`] (reeling in). The other bound widens to
    /// the target if needed. A cable already at the target stops its winch.
    /// The winch itself is [`ParticlePool::reel`], run by the stepper every
    /// substep from [`CableParams::reel_speed`].
    ///
    /// # Errors
    /// Stale handle; `target_length` not in (0, 1e7] or `speed` not in
    /// (0, 1e4] (each named).
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -10.0, 0.0), 10.0, 20)?)?;
    /// pool.reel_to(h, 4.0, 0.5)?; // reel in to 4 m at 0.5 m/s
    /// assert_eq!(pool.params(h)?.reel_speed, -0.5);
    /// assert_eq!(pool.params(h)?.min_length, Some(4.0));
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn reel_to(
        &mut self,
        handle: CableHandle,
        target_length: f32,
        speed: f32,
    ) -> Result<(), CableError> {
        let target = check_finite("target_length", target_length)?;
        if !(target > 0.0 && target <= 1.0e7) {
            return Err(CableError::OutOfRange {
                field: "target_length",
                expected: "must be greater than 0 and at most 1e7",
                value: f64::from(target),
            });
        }
        let speed = check_finite("speed", speed)?;
        if !(speed > 0.0 && speed <= 1.0e4) {
            return Err(CableError::OutOfRange {
                field: "speed",
                expected: "must be greater than 0 and at most 1e4",
                value: f64::from(speed),
            });
        }
        let i = self.record_index(handle)?;
        let (first, count) = (self.cables[i].first, self.cables[i].count);
        let length: f64 = self.rest[first..first + count - 1]
            .iter()
            .map(|&r| f64::from(r))
            .sum();
        let mut p = self.cables[i].params;
        let (lo, hi) = (
            p.min_length.unwrap_or(target),
            p.max_length.unwrap_or(target),
        );
        match f64::from(target).partial_cmp(&length) {
            Some(std::cmp::Ordering::Greater) => {
                p.reel_speed = speed;
                p.max_length = Some(target);
                p.min_length = Some(lo.min(target));
            }
            Some(std::cmp::Ordering::Less) => {
                p.reel_speed = -speed;
                p.min_length = Some(target);
                p.max_length = Some(hi.max(target));
            }
            _ => p.reel_speed = 0.0,
        }
        self.set_params(handle, p)
    }

    /// Record `i` gained (`by` > 0) or lost (`by` < 0) rows: later cables move.
    fn shift_records(&mut self, i: usize, by: isize) {
        let rec = &mut self.cables[i];
        rec.count = rec.count.saturating_add_signed(by);
        for r in &mut self.cables[i + 1..] {
            r.first = r.first.saturating_add_signed(by);
        }
    }

    /// Sets the inverse mass (1/kg) of one particle; 0 pins it in place.
    /// A particle that is attached keeps inverse mass 0 until detached, and
    /// gets this value then.
    ///
    /// # Errors
    /// Stale handle, index out of range, or a negative or non-finite value.
    pub fn set_inv_mass(
        &mut self,
        handle: CableHandle,
        index: usize,
        inv_mass: f32,
    ) -> Result<(), CableError> {
        let w = check_finite("inv_mass", inv_mass)?;
        if w < 0.0 {
            return Err(CableError::OutOfRange {
                field: "inv_mass",
                expected: "must be at least 0",
                value: f64::from(w),
            });
        }
        let rec_i = self.record_index(handle)?;
        self.touch_constants(rec_i);
        self.wake_record(rec_i);
        let rec = &mut self.cables[rec_i];
        if index >= rec.count {
            return Err(CableError::ParticleOutOfRange {
                index,
                len: rec.count,
            });
        }
        for end in [End::Start, End::End] {
            if index == end_offset(rec.count, end) && rec.attach[end.slot()].is_some() {
                rec.end_inv_mass[end.slot()] = w;
                return Ok(());
            }
        }
        self.inv_mass[rec.first + index] = w;
        self.refresh_rows(rec_i);
        Ok(())
    }

    /// Parameters of a cable.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn params(&self, handle: CableHandle) -> Result<&CableParams, CableError> {
        Ok(&self.record(handle)?.params)
    }

    /// Replaces the parameters of a cable after validating them.
    ///
    /// # Errors
    /// Stale handle, or a parameter out of range (see [`CableParams::validate`]).
    pub fn set_params(
        &mut self,
        handle: CableHandle,
        params: CableParams,
    ) -> Result<(), CableError> {
        params.validate()?;
        let i = self.record_index(handle)?;
        self.touch_constants(i);
        let old = self.cables[i].params;
        let mut params = params;
        // Winch bounds resolved when the cable was added stay unless given.
        params.min_length = params.min_length.or(old.min_length);
        params.max_length = params.max_length.or(old.max_length);
        self.wake_record(i);
        self.sleepy -= usize::from(self.cables[i].sleepy());
        self.cables[i].params = params;
        self.sleepy += usize::from(self.cables[i].sleepy());
        self.params_revision = access::next_revision();
        self.refresh_rows(i);
        Ok(())
    }

    /// The attachment target of one end, if attached.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn attachment(&self, handle: CableHandle, end: End) -> Result<Option<Vec3>, CableError> {
        Ok(self.record(handle)?.attach[end.slot()])
    }

    /// Attaches (`Some(target)`) or detaches (`None`) one end of a cable.
    ///
    /// An attached end is pinned (inverse mass 0) and the attachments system
    /// puts it at `target` at the start of every substep. Detaching restores
    /// the end's inverse mass; the particle keeps its current position and
    /// velocity, so it does not jump.
    ///
    /// Moving the target of an attached end farther than the cable's
    /// [`CableParams::teleport_distance`] teleports the cable with it
    /// instead ([`ParticlePool::teleport_attachment`]); with the default
    /// (off), or within the threshold, the end is only retargeted and the
    /// cable follows through the solver.
    ///
    /// # Errors
    /// Stale handle, or a non-finite or out-of-range target, or a teleport
    /// that would take a particle beyond ±1e6 m (naming `target`; nothing
    /// changes).
    pub fn set_attachment(
        &mut self,
        handle: CableHandle,
        end: End,
        target: Option<Vec3>,
    ) -> Result<(), CableError> {
        if let Some(t) = target {
            check_vec3("attachment target", t)?;
        }
        let i = self.record_index(handle)?;
        if let Some(t) = target {
            // Only cables with a threshold pay for the check.
            if self.cables[i].params.teleport_distance.is_some()
                && self.teleport_record(i, end, t, glam::Quat::IDENTITY)?
            {
                return Ok(());
            }
        }
        self.attach_end(i, end, target);
        Ok(())
    }

    /// Moves the targets of many ends at once: the same as
    /// [`ParticlePool::set_attachment`] with `Some(target)` for each
    /// `(handle, end, target)` in turn (a refused one changes nothing and is
    /// skipped), but an end that stays attached, on a cable without a
    /// teleport threshold, is retargeted inline and the batch takes one
    /// [`ParticlePool::attachment_revision`]. What an ECS moving many hands
    /// every substep calls. Returns how many were refused.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, End, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let a = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let b = pool.add_cable(&CableDesc::line(Vec3::Y, Vec3::new(1.0, 1.0, 0.0), 1.0, 4)?)?;
    /// let up = Vec3::new(0.0, 0.1, 0.0);
    /// let refused = pool.set_attachment_targets([(a, End::Start, up), (b, End::Start, Vec3::Y + up)]);
    /// assert_eq!(refused, 0);
    /// assert_eq!(pool.attachment(b, End::Start)?, Some(Vec3::Y + up));
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn set_attachment_targets<I>(&mut self, targets: I) -> usize
    where
        I: IntoIterator<Item = (CableHandle, End, Vec3)>,
    {
        let mut refused = 0;
        let mut moved = false;
        for (handle, end, target) in targets {
            let slot = end.slot();
            let fast = self.record_index(handle).ok().filter(|&i| {
                let rec = &self.cables[i];
                rec.attach[slot].is_some()
                    && rec.params.teleport_distance.is_none()
                    && target.abs().cmple(Vec3::splat(crate::MAX_COORDINATE)).all()
            });
            match fast {
                Some(i) => {
                    // `attach_end` for an end that stays attached.
                    if self.cables[i].attach[slot] != Some(target) {
                        self.wake_record(i);
                    }
                    self.cables[i].attach[slot] = Some(target);
                    moved = true;
                }
                None => {
                    refused += usize::from(self.set_attachment(handle, end, Some(target)).is_err())
                }
            }
        }
        if moved {
            // Only targets moved: layouts refresh their targets, not their copies.
            self.attach_revision = access::next_revision();
        }
        refused
    }

    /// [`ParticlePool::set_attachment`] of record `i` (live), without the
    /// teleport check.
    fn attach_end(&mut self, i: usize, end: End, target: Option<Vec3>) {
        if self.cables[i].attach[end.slot()] != target {
            self.wake_record(i);
        }
        if self.cables[i].attach[end.slot()].is_some() && target.is_some() {
            // Only a target moves: layouts refresh their targets, not their copies.
            self.attach_revision = access::next_revision();
        } else {
            self.touch();
        }
        let rec = &mut self.cables[i];
        let row = rec.first + end_offset(rec.count, end);
        let slot = end.slot();
        match (rec.attach[slot].is_some(), target.is_some()) {
            (false, true) => {
                rec.end_inv_mass[slot] = self.inv_mass[row];
                self.inv_mass[row] = 0.0;
            }
            (true, false) => self.inv_mass[row] = rec.end_inv_mass[slot],
            _ => {}
        }
        let changed = rec.attach[slot].is_some() != target.is_some();
        rec.attach[slot] = target;
        if changed {
            self.refresh_rows(i);
        }
    }

    /// Moves a whole cable rigidly by `offset` (positions and previous
    /// positions, so its velocity is kept), and its attachment targets with it:
    /// UE5's teleport handling.
    ///
    /// A teleport that would take any particle (position or previous
    /// position) or attachment target of the cable beyond
    /// ±[`crate::MAX_COORDINATE`] is refused and changes nothing, so the
    /// targets the pool holds are always ones
    /// [`ParticlePool::set_attachment`] accepts.
    ///
    /// # Errors
    /// Stale handle; a non-finite offset, or one that would take the cable
    /// out of range ([`CableError::OutOfRange`] naming `offset`).
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// pool.teleport(h, Vec3::new(0.0, 9.0e5, 0.0))?;
    /// assert!(pool.teleport(h, Vec3::new(0.0, 2.0e5, 0.0)).is_err()); // past 1e6 m
    /// assert_eq!(pool.positions(h)?[0], Vec3::new(0.0, 9.0e5, 0.0));
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn teleport(&mut self, handle: CableHandle, offset: Vec3) -> Result<(), CableError> {
        // Up to 2e6 per axis is meaningful (from -1e6 to 1e6); the check
        // below bounds where the cable lands.
        for c in offset.to_array() {
            check_finite("offset", c)?;
        }
        let i = self.record_index(handle)?;
        let rec = &self.cables[i];
        let rows = rec.first..rec.first + rec.count;
        let st = self.state.get();
        let moved = st.pos[rows.clone()]
            .iter()
            .chain(&st.prev[rows.clone()])
            .chain(rec.attach.iter().flatten());
        for &p in moved {
            let q = p + offset;
            if let Some(axis) = (0..3).find(|&a| !in_range(q[a])) {
                return Err(CableError::OutOfRange {
                    field: "offset",
                    expected: "must keep every particle and attachment target of the cable within ±1e6",
                    value: f64::from(offset[axis]),
                });
            }
        }
        self.touch_state(i);
        self.wake_record(i);
        if self.cables[i].attach.iter().any(Option::is_some) {
            // The targets move with the cable.
            self.attach_revision = access::next_revision();
        }
        let st = self.state.get_mut();
        for p in st.pos[rows.clone()].iter_mut().chain(&mut st.prev[rows]) {
            *p += offset;
        }
        for t in self.cables[i].attach.iter_mut().flatten() {
            *t += offset;
        }
        Ok(())
    }

    /// Sets a cable's speed: every free particle gets velocity `v` (m/s) at
    /// substep `h` (s), by moving its previous position to `p - v·h`.
    ///
    /// `h` is the solver's substep, in (0, 1] like
    /// `SolverParams::substep`; the previous positions must stay within
    /// ±[`crate::MAX_COORDINATE`]. A refused call changes nothing.
    ///
    /// # Errors
    /// Stale handle; a non-finite or out-of-range `v` (naming `velocity`);
    /// `h` not finite or not in (0, 1] (naming `substep`); a `v·h` that
    /// would put a previous position beyond ±1e6 (naming `velocity`).
    pub fn set_velocity(&mut self, handle: CableHandle, v: Vec3, h: f32) -> Result<(), CableError> {
        check_vec3("velocity", v)?;
        let h = check_finite("substep", h)?;
        if !(h > 0.0 && h <= 1.0) {
            return Err(CableError::OutOfRange {
                field: "substep",
                expected: "must be greater than 0 and at most 1",
                value: f64::from(h),
            });
        }
        let rows = self.rows(handle)?;
        let step = v * h;
        let pos = &self.state.get().pos;
        for r in rows.clone() {
            if self.inv_mass[r] > 0.0 {
                let q = pos[r] - step;
                if let Some(axis) = (0..3).find(|&a| !in_range(q[a])) {
                    return Err(CableError::OutOfRange {
                        field: "velocity",
                        expected: "velocity × substep must keep every previous position within ±1e6",
                        value: f64::from(v[axis]),
                    });
                }
            }
        }
        let i = self.record_index(handle)?;
        self.touch_state(i);
        self.wake_record(i);
        let st = self.state.get_mut();
        for r in rows {
            if self.inv_mass[r] > 0.0 {
                st.prev[r] = st.pos[r] - step;
                // What rounding `prev` dropped: far from the origin the
                // velocity is still `v` to f32 precision.
                st.carry[r] = step - (st.pos[r] - st.prev[r]);
            }
        }
        Ok(())
    }

    /// All positions of all live cables, row order (compacts first).
    pub fn all_positions(&mut self) -> &[Vec3] {
        self.compact();
        &self.state.get_mut().pos
    }

    /// Checks every column finite: a diagnostic for tests and debugging.
    #[must_use]
    pub fn all_finite(&self) -> bool {
        self.state
            .get()
            .pos
            .iter()
            .chain(&self.state.get().prev)
            .chain(&self.state.get().carry)
            .all(|p| p.is_finite())
    }

    /// Splits the pool into one mutable view per live cable, in row order,
    /// after compacting. The views borrow disjoint rows, so callers may hand
    /// them to threads; [`ParticlePool::par_for_each_cable`] does that.
    pub fn columns_mut(&mut self) -> Columns<'_> {
        self.touch();
        self.compact();
        let st = self.state.get_mut();
        Columns {
            base: 0,
            first_cable: 0,
            pos: &mut st.pos,
            prev: &mut st.prev,
            carry: &mut st.carry,
            inv_mass: &self.inv_mass,
            rest: &self.rest,
            lambda: &mut st.lambda,
            lambda_bend: &mut st.lambda_bend,
            row_const: &self.row_const,
            lambda_row: &mut st.lambda_row,
            cables: &mut self.cables,
            colliders: &self.colliders,
        }
    }

    /// Runs `f` on every live cable, in parallel with rayon.
    ///
    /// The work is split recursively by cable boundaries into pieces of at
    /// least [`PAR_GRAIN`] particles; the split depends on the scene alone,
    /// never on the thread count, and each cable is processed by exactly one
    /// call, so results are bitwise identical whatever the thread pool.
    pub fn par_for_each_cable<F>(&mut self, f: F)
    where
        F: Fn(CableMut<'_>) + Sync,
    {
        self.columns_mut().par_for_each(&f);
    }

    fn debug_check(&self) {
        let n = self.inv_mass.len();
        debug_assert!(
            self.state.get().prev.len() == n
                && self.state.get().carry.len() == n
                && self.inv_mass.len() == n
                && self.rest.len() == n
                && self.state.get().lambda.len() == n
                && self.state.get().lambda_bend.len() == n
                && self.row_const.len() == n
                && self.state.get().lambda_row.len() == n,
            "ParticlePool columns out of step"
        );
    }
}

/// The discrete curvature `2·|e₁ × e₂| / (|e₁||e₂| + e₁·e₂)` (that is
/// `2·tan(θ/2)` of the turning angle θ) at `b` of the polyline `a, b, c`;
/// 0 where it is not defined (a reversal or a degenerate segment).
#[must_use]
pub fn discrete_curvature(a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let (e1, e2) = (b - a, c - b);
    let den = e1.length() * e2.length() + e1.dot(e2);
    let k = 2.0 * e1.cross(e2).length() / den;
    if den > 0.0 && k.is_finite() { k } else { 0.0 }
}

/// True when `c` is finite and within ±[`crate::MAX_COORDINATE`].
#[inline]
fn in_range(c: f32) -> bool {
    c.abs() <= crate::MAX_COORDINATE
}

/// Offset of an end's particle within a cable of `count` particles.
#[inline]
fn end_offset(count: usize, end: End) -> usize {
    match end {
        End::Start => 0,
        End::End => count - 1,
    }
}

struct LiveHandles<'a> {
    inner: std::slice::Iter<'a, CableRecord>,
    remaining: usize,
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

/// Smallest piece of work, in particles, that [`ParticlePool::par_for_each_cable`]
/// hands to one rayon task.
pub const PAR_GRAIN: usize = 4096;

/// Mutable, disjoint borrows of the particle columns of a run of cables.
#[derive(Debug)]
pub struct Columns<'a> {
    base: usize,
    /// Index (among the live cables, row order) of the run's first cable.
    first_cable: usize,
    pos: &'a mut [Vec3],
    prev: &'a mut [Vec3],
    carry: &'a mut [Vec3],
    inv_mass: &'a [f32],
    rest: &'a [f32],
    lambda: &'a mut [f32],
    lambda_bend: &'a mut [f32],
    row_const: &'a [RowConst],
    lambda_row: &'a mut [[f32; 3]],
    cables: &'a mut [CableRecord],
    colliders: &'a ColliderSet,
}

/// The cables of a [`Columns`] run, one view each, in row order
/// ([`Columns::into_cables`]).
#[derive(Debug)]
pub struct IntoCables<'a> {
    rest: Columns<'a>,
}

impl<'a> Iterator for IntoCables<'a> {
    type Item = CableMut<'a>;

    #[inline]
    fn next(&mut self) -> Option<CableMut<'a>> {
        let r = &mut self.rest;
        let (rec, cables) = std::mem::take(&mut r.cables).split_first_mut()?;
        let rec: &'a CableRecord = rec;
        debug_assert!(rec.alive && rec.first == r.base);
        let n = rec.count;
        let (pos, pos1) = std::mem::take(&mut r.pos).split_at_mut(n);
        let (prev, prev1) = std::mem::take(&mut r.prev).split_at_mut(n);
        let (carry, carry1) = std::mem::take(&mut r.carry).split_at_mut(n);
        let (inv_mass, inv_mass1) = r.inv_mass.split_at(n);
        let (rest, rest1) = r.rest.split_at(n);
        let (lambda, lambda1) = std::mem::take(&mut r.lambda).split_at_mut(n);
        let (lambda_bend, lambda_bend1) = std::mem::take(&mut r.lambda_bend).split_at_mut(n);
        let (row_const, row_const1) = r.row_const.split_at(n);
        let (lambda_row, lambda_row1) = std::mem::take(&mut r.lambda_row).split_at_mut(n);
        (r.pos, r.prev, r.carry, r.inv_mass, r.rest) = (pos1, prev1, carry1, inv_mass1, rest1);
        (r.lambda, r.lambda_bend, r.row_const, r.lambda_row) =
            (lambda1, lambda_bend1, row_const1, lambda_row1);
        r.cables = cables;
        r.base += n;
        r.first_cable += 1;
        Some(CableMut {
            handle: rec.handle,
            pos,
            prev,
            carry,
            inv_mass,
            rest,
            lambda,
            lambda_bend,
            row_const,
            lambda_row,
            params: &rec.params,
            attach: &rec.attach,
            active: rec.active(),
            colliders: r.colliders,
        })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.rest.len(), Some(self.rest.len()))
    }
}

impl ExactSizeIterator for IntoCables<'_> {}

/// A mutable view of one cable's rows and parameters, handed to systems.
#[derive(Debug)]
pub struct CableMut<'a> {
    /// The cable's handle.
    pub handle: CableHandle,
    /// Positions, metres.
    pub pos: &'a mut [Vec3],
    /// Previous positions (Verlet state).
    pub prev: &'a mut [Vec3],
    /// The part of each particle's last displacement that rounding its
    /// position dropped (metres): the velocity is `pos - prev + carry`
    /// ([`ParticlePool::carry`]).
    pub carry: &'a mut [Vec3],
    /// Inverse masses; 0 = pinned.
    pub inv_mass: &'a [f32],
    /// Rest length of the segment starting at each row; last entry 0.
    pub rest: &'a [f32],
    /// XPBD multipliers of the distance constraints (solver scratch).
    pub lambda: &'a mut [f32],
    /// XPBD multipliers of the bending constraints (solver scratch).
    pub lambda_bend: &'a mut [f32],
    /// Derived solver constants of each particle.
    pub row_const: &'a [RowConst],
    /// Multipliers of each particle's start-side tether, end-side tether
    /// and curvature constraint (solver scratch).
    pub lambda_row: &'a mut [[f32; 3]],
    /// The cable's parameters.
    pub params: &'a CableParams,
    /// Attachment target of each end ([`End::slot`] order).
    pub attach: &'a [Option<Vec3>; 2],
    /// False while the cable sleeps or is hidden and skipped: systems leave
    /// it as it is ([`ParticlePool::is_active`]).
    pub active: bool,
    /// The pool's colliders, as prepared for this substep (read-only).
    pub colliders: &'a ColliderSet,
}

impl<'a> Columns<'a> {
    /// Number of cables in this run.
    #[must_use]
    pub fn len(&self) -> usize {
        self.cables.len()
    }

    /// True when the run holds no cable.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cables.is_empty()
    }

    fn rows(&self) -> usize {
        self.inv_mass.len()
    }

    /// Splits before cable `k` of the run.
    fn split_at(self, k: usize) -> (Columns<'a>, Columns<'a>) {
        let row = self.cables[k].first - self.base;
        let (c0, c1) = self.cables.split_at_mut(k);
        let (p0, p1) = self.pos.split_at_mut(row);
        let (q0, q1) = self.prev.split_at_mut(row);
        let (e0, e1) = self.carry.split_at_mut(row);
        let (w0, w1) = self.inv_mass.split_at(row);
        let (r0, r1) = self.rest.split_at(row);
        let (l0, l1) = self.lambda.split_at_mut(row);
        let (b0, b1) = self.lambda_bend.split_at_mut(row);
        let (k0, k1) = self.row_const.split_at(row);
        let (x0, x1) = self.lambda_row.split_at_mut(row);
        (
            Columns {
                base: self.base,
                first_cable: self.first_cable,
                pos: p0,
                prev: q0,
                carry: e0,
                inv_mass: w0,
                rest: r0,
                lambda: l0,
                lambda_bend: b0,
                row_const: k0,
                lambda_row: x0,
                cables: c0,
                colliders: self.colliders,
            },
            Columns {
                base: self.base + row,
                first_cable: self.first_cable + k,
                pos: p1,
                prev: q1,
                carry: e1,
                inv_mass: w1,
                rest: r1,
                lambda: l1,
                lambda_bend: b1,
                row_const: k1,
                lambda_row: x1,
                cables: c1,
                colliders: self.colliders,
            },
        )
    }

    /// The pool's colliders, shared by every cable of the run: borrowed
    /// for as long as the columns, so a caller can hold them beside the
    /// cables' views ([`Columns::into_cables`]).
    #[must_use]
    pub fn colliders(&self) -> &'a ColliderSet {
        self.colliders
    }

    /// One view per cable of the run, in row order, each borrowing its own
    /// rows for the columns' whole lifetime: a caller may keep them, put
    /// them in any order and hand them to threads (a layout that solves
    /// cables in its own grouping writes each group back from the task
    /// that solved it). O(1) per cable.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// for k in 0..3 {
    ///     pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 2 + k)?)?;
    /// }
    /// let mut views: Vec<_> = pool.columns_mut().into_cables().collect();
    /// views.reverse(); // any order: each view owns its rows
    /// for c in &mut views {
    ///     c.pos[0].y = c.pos.len() as f32;
    /// }
    /// assert_eq!(pool.cable(0).expect("live").pos[0].y, 3.0);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[must_use]
    pub fn into_cables(self) -> IntoCables<'a> {
        IntoCables { rest: self }
    }

    /// Calls `f` on each cable of the run in order, on this thread.
    pub fn for_each(self, f: &impl Fn(CableMut<'_>)) {
        self.for_each_indexed(&|_, c| f(c));
    }

    /// Calls `f` with each cable's index (among the live cables, row order)
    /// and view, in order, on this thread.
    pub fn for_each_indexed(self, f: &impl Fn(usize, CableMut<'_>)) {
        let first = self.first_cable;
        for (i, c) in self.into_cables().enumerate() {
            f(first + i, c);
        }
    }

    /// Calls `f` on each cable of the run, in parallel (see
    /// [`ParticlePool::par_for_each_cable`]).
    pub fn par_for_each<F>(self, f: &F)
    where
        F: Fn(CableMut<'_>) + Sync,
    {
        self.par_for_each_indexed(&|_, c| f(c));
    }

    /// Calls `f` with each cable's index (among the live cables, row order)
    /// and view, in parallel, split by the scene alone as
    /// [`Columns::par_for_each`] is.
    pub fn par_for_each_indexed<F>(self, f: &F)
    where
        F: Fn(usize, CableMut<'_>) + Sync,
    {
        if self.len() <= 1 || self.rows() <= PAR_GRAIN {
            self.for_each_indexed(f);
            return;
        }
        // Split at the cable nearest the middle row: depends on the scene only.
        let mid_row = self.base + self.rows() / 2;
        let k = self
            .cables
            .partition_point(|c| c.first < mid_row)
            .clamp(1, self.len() - 1);
        let (a, b) = self.split_at(k);
        rayon::join(|| a.par_for_each_indexed(f), || b.par_for_each_indexed(f));
    }
}
