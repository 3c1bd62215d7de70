//! Pool revisions, indexed iteration and read-only cable views: what the
//! layouts need to keep a copy of the pool between frames.

use glam::Vec3;

use super::columns::CableMut;
use super::store::{CableRecord, ParticlePool};
use crate::cable::{CableHandle, CableParams, check_bend_for_substep};

impl ParticlePool {
    /// A number that changes whenever the pool may have changed: every
    /// method taking `&mut self` that can change particles, parameters or
    /// cables gives the pool a new revision, unique across all pools of the
    /// process (a clone keeps its original's revision: same contents).
    ///
    /// Layouts that keep a copy of the particles between frames compare it
    /// with the revision they saw after their last write-back, to know when
    /// the copy is still current.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let r = pool.revision();
    /// let _ = pool.positions(h)?; // reading changes nothing
    /// assert_eq!(pool.revision(), r);
    /// pool.positions_mut(h)?[1].y = 0.5;
    /// assert_ne!(pool.revision(), r);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revisions.any()
    }

    /// Changes whenever [`ParticlePool::set_attachment`] moves the target of
    /// an end that stays attached, which does not change
    /// [`ParticlePool::revision`]: layouts keeping a copy of the pool then
    /// refresh only their attachment targets (an ECS moving hands every
    /// substep does not force a full copy).
    #[inline]
    #[must_use]
    pub fn attachment_revision(&self) -> u64 {
        self.revisions.targets_number()
    }

    /// Changes whenever a cable is added or a cable's parameters are
    /// replaced ([`ParticlePool::set_params`]): whenever
    /// [`ParticlePool::validate_for_substep`] may refuse what it accepted
    /// (removing a cable cannot make it fail; stepping, particle edits and
    /// a winch change nothing it checks beyond its safety margin). Unique
    /// across all pools of the process, like [`ParticlePool::revision`],
    /// and kept by a clone; a stepper checks the pool again only when it
    /// changed.
    #[inline]
    #[must_use]
    pub fn params_revision(&self) -> u64 {
        self.revisions.params_number()
    }

    /// Checks every live cable for a solver of substep `substep` seconds:
    /// its parameters ([`CableParams::validate_for_substep`]: compliance /
    /// substep² must not overflow) and its curvature constraints (`l̄ / EI`
    /// over substep² must not overflow, for its segments now and any a
    /// winch can give it, as [`crate::CableDesc::validate_for_substep`]).
    /// O(cables).
    ///
    /// # Errors
    /// The first refusal, in the order of [`ParticlePool::handles`]:
    /// [`crate::CableError::OutOfRange`] naming `compliance` or
    /// `bend_stiffness` (or `substep` when it is not finite and positive).
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, CableParams, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// pool.set_params(h, CableParams { compliance: 1.0e-4, ..CableParams::default() })?;
    /// assert!(pool.validate_for_substep(1.0 / 60.0).is_ok());
    /// assert!(pool.validate_for_substep(1.0e-23).is_err());
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn validate_for_substep(&self, substep: f32) -> Result<(), crate::CableError> {
        for rec in self.cables.iter().filter(|c| c.alive) {
            check_record(rec, substep)?;
        }
        Ok(())
    }

    /// Like [`ParticlePool::validate_for_substep`] for one cable.
    ///
    /// # Errors
    /// A stale handle, or as [`ParticlePool::validate_for_substep`].
    pub fn validate_cable_for_substep(
        &self,
        handle: CableHandle,
        substep: f32,
    ) -> Result<(), crate::CableError> {
        check_record(self.record(handle)?, substep)
    }

    /// Gives the pool a new revision and a new structure revision.
    #[inline]
    pub(super) fn touch(&mut self) {
        self.revisions.structure();
    }

    /// Gives the pool a new revision for an edit of record `i`'s particle
    /// state (positions, previous positions, carries) alone.
    #[inline]
    pub(super) fn touch_state(&mut self, i: usize) {
        self.revisions.state(&mut self.cables[i].revisions);
    }

    /// Gives the pool a new revision for a change of record `i`'s
    /// parameters or inverse masses alone.
    #[inline]
    pub(super) fn touch_constants(&mut self, i: usize) {
        self.revisions.constants(&mut self.cables[i].revisions);
    }

    /// Like [`ParticlePool::revision`], but unchanged by edits of single
    /// cables: of their particle state ([`ParticlePool::positions_mut`],
    /// [`ParticlePool::prev_positions_mut`], [`ParticlePool::set_velocity`]
    /// and [`ParticlePool::teleport`], which also changes
    /// [`ParticlePool::attachment_revision`] when the cable has an attached
    /// end, whose target moves with it) and of their constants
    /// ([`ParticlePool::set_params`], [`ParticlePool::set_inv_mass`]).
    /// Everything else (cables added or removed, attaching or freeing an
    /// end, breaking, reeling, a cable falling asleep or waking, visibility,
    /// [`ParticlePool::columns_mut`]) changes both.
    ///
    /// A layout keeping a copy of the particles re-copies everything when
    /// this changed, and otherwise only the cables
    /// [`ParticlePool::state_edits_since`] and
    /// [`ParticlePool::constant_edits_since`] list.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let (r, s) = (pool.revision(), pool.structure_revision());
    /// pool.positions_mut(h)?[1].y = 0.5;
    /// assert_ne!(pool.revision(), r);
    /// assert_eq!(pool.structure_revision(), s);
    /// assert_eq!(pool.state_edits_since(r).collect::<Vec<_>>(), [0]);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn structure_revision(&self) -> u64 {
        self.revisions.structure_number()
    }

    /// A number that changes whenever what cable `handle`'s mesh is made
    /// from may have changed: its particles (an edit of them, a teleport, a
    /// winch, a step that simulated it), its parameters or masses, a broken
    /// segment, or every cable's particles lent out through
    /// [`ParticlePool::columns_mut`] outside a step. A cable that sleeps, or
    /// is hidden and skips updates, keeps its number across steps: a mesh
    /// builder that recorded the number keeps the mesh without reading the
    /// particles. Numbers are unique across the process's pools.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`](crate::CableError::StaleHandle) when
    /// `handle` names no live cable.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let m = pool.moved_revision(h)?;
    /// assert_eq!(pool.moved_revision(h)?, m); // reading changes nothing
    /// pool.positions_mut(h)?[1].y = 0.5;
    /// assert_ne!(pool.moved_revision(h)?, m);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn moved_revision(&self, handle: CableHandle) -> Result<u64, crate::CableError> {
        let i = self.record_index(handle)?;
        Ok(self.revisions.moved(self.cables[i].revisions))
    }

    /// A number that changes whenever the cables' handles, order, particle
    /// counts or parameters may have changed: a cable added or removed, a
    /// winch's particles added or removed, a cable's parameters replaced
    /// ([`ParticlePool::set_params`]). What the ranges of a mesh's layout
    /// are made from (`cable_systems::mesh` lays them out again only when
    /// it changed); steps do not change it. Numbers are unique across the
    /// process's pools.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let r = pool.layout_revision();
    /// pool.positions_mut(h)?[1].y = 0.5;
    /// assert_eq!(pool.layout_revision(), r);
    /// pool.reel(h, 0.5)?;
    /// assert_ne!(pool.layout_revision(), r);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn layout_revision(&self) -> u64 {
        self.revisions.shape_number()
    }

    /// Starts a step: what a stepper calls before it takes the columns
    /// ([`ParticlePool::columns_mut`]) to simulate the active cables, and
    /// hands back to [`ParticlePool::end_step`] after. Between the two, the
    /// stepper's own borrows of every cable's particles do not count as
    /// moving every cable ([`ParticlePool::moved_revision`]); `end_step`
    /// records instead that the active cables moved. A stepper that does
    /// not call these leaves every cable's number changed by its borrows:
    /// slower meshes, never stale ones.
    pub fn begin_step(&self) -> StepMark {
        StepMark(self.revisions.bulk_number())
    }

    /// Ends a step begun with [`ParticlePool::begin_step`]: every cable
    /// active now (awake, and not hidden with
    /// [`crate::CableParams::skip_when_hidden`]) gets a new
    /// [`ParticlePool::moved_revision`], and the step's own borrows of the
    /// columns are forgotten. Call it before cables may fall asleep
    /// ([`ParticlePool::update_sleep`]): a cable that moved in this step and
    /// then fell asleep moved all the same.
    pub fn end_step(&mut self, mark: StepMark) {
        self.revisions.restore_bulk(mark.0);
        let number = super::revisions::Revisions::step_number();
        for rec in &mut self.cables {
            if rec.alive && rec.active() {
                super::revisions::Revisions::stepped(&mut rec.revisions, number);
            }
        }
    }

    /// Indices (as in [`ParticlePool::cable`]) of the cables whose particle
    /// state alone was edited after revision `since` (a value
    /// [`ParticlePool::revision`] returned), in index order. Meaningful
    /// while [`ParticlePool::structure_revision`] is what it was at
    /// `since`: a structural change can renumber cables, so a layout then
    /// re-copies everything instead. O(cables).
    pub fn state_edits_since(&self, since: u64) -> impl Iterator<Item = usize> + '_ {
        self.edits_since(move |c| c.revisions.state() > since)
    }

    /// Indices of the live cables whose record passes `edited`.
    fn edits_since<'a>(
        &'a self,
        edited: impl Fn(&CableRecord) -> bool + 'a,
    ) -> impl Iterator<Item = usize> + 'a {
        self.cables
            .iter()
            .filter(|c| c.alive)
            .enumerate()
            .filter(move |(_, c)| edited(c))
            .map(|(i, _)| i)
    }

    /// Like [`ParticlePool::state_edits_since`], for the cables whose
    /// parameters ([`ParticlePool::set_params`]) or inverse masses
    /// ([`ParticlePool::set_inv_mass`]) changed after revision `since`.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let h = pool.add_cable(&CableDesc::line(Vec3::Y, Vec3::ONE, 1.0, 4)?)?;
    /// let (r, s) = (pool.revision(), pool.structure_revision());
    /// let mut p = *pool.params(h)?;
    /// p.gravity_scale = 0.5;
    /// pool.set_params(h, p)?;
    /// assert_eq!(pool.structure_revision(), s);
    /// assert_eq!(pool.constant_edits_since(r).collect::<Vec<_>>(), [1]);
    /// assert_eq!(pool.state_edits_since(r).count(), 0);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn constant_edits_since(&self, since: u64) -> impl Iterator<Item = usize> + '_ {
        self.edits_since(move |c| c.revisions.constants() > since)
    }

    /// Like [`ParticlePool::par_for_each_cable`], and also passes each cable's
    /// index among the live cables in row order (the order of
    /// [`ParticlePool::handles`]), so callers can pair a cable with data of
    /// their own kept in that order (layout mirrors do).
    pub fn par_for_each_cable_indexed<F>(&mut self, f: F)
    where
        F: Fn(usize, CableMut<'_>) + Sync,
    {
        self.columns_mut().par_for_each_indexed(&f);
    }

    /// A read-only view of the live cable with index `index` in row order
    /// (the order of [`ParticlePool::handles`]), or `None` past the end.
    /// O(1) once compacted (stepping compacts), O(cables) otherwise.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let c = pool.cable(0).expect("one cable");
    /// assert_eq!((c.pos.len(), c.rest[3], c.inv_mass[0]), (5, 0.25, 0.0));
    /// assert!(pool.cable(1).is_none());
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[must_use]
    pub fn cable(&self, index: usize) -> Option<CableRef<'_>> {
        let rec = if self.garbage_rows == 0 {
            self.cables.get(index)?
        } else {
            self.cables.iter().filter(|c| c.alive).nth(index)?
        };
        let rows = rec.first..rec.first + rec.count;
        Some(CableRef {
            handle: rec.handle,
            pos: &self.state.get().pos[rows.clone()],
            prev: &self.state.get().prev[rows.clone()],
            carry: &self.state.get().carry[rows.clone()],
            carry_prev: &self.state.get().carry_prev[rows.clone()],
            inv_mass: &self.inv_mass[rows.clone()],
            rest: &self.rest[rows.clone()],
            row_const: &self.row_const[rows],
            params: &rec.params,
            attach: &rec.attach,
            clamp: &rec.clamp,
            slip: rec.slip,
            active: rec.active(),
        })
    }
}

/// A read-only view of one cable's rows and parameters
/// ([`ParticlePool::cable`]).
#[derive(Debug, Clone, Copy)]
pub struct CableRef<'a> {
    /// The cable's handle.
    pub handle: CableHandle,
    /// Positions, metres.
    pub pos: &'a [Vec3],
    /// Previous positions (Verlet state).
    pub prev: &'a [Vec3],
    /// What rounding dropped of each particle's last displacement, metres
    /// ([`ParticlePool::carry`]).
    pub carry: &'a [Vec3],
    /// The carry of each particle's previous position, metres
    /// ([`ParticlePool::carry_prev`]).
    pub carry_prev: &'a [Vec3],
    /// Inverse masses; 0 = pinned.
    pub inv_mass: &'a [f32],
    /// Rest length of the segment starting at each row, metres; last entry 0.
    pub rest: &'a [f32],
    /// Derived solver constants of each particle.
    pub row_const: &'a [super::RowConst],
    /// The cable's parameters.
    pub params: &'a CableParams,
    /// Attachment target of each end ([`crate::End::slot`] order).
    pub attach: &'a [Option<Vec3>; 2],
    /// Where each end's clamp puts its virtual particle, relative to the
    /// end particle, while the clamp holds ([`crate::CableParams::clamp_start`]):
    /// the end's direction when the cable was added times its segment's
    /// rest length. `None`: no clamp, or the end is free.
    pub clamp: &'a [Option<Vec3>; 2],
    /// The most tension (N) the cable's winch holds the rope with in the
    /// next substep ([`crate::CableParams::slip_end`]): `reel_force` while
    /// a winch with a pulling limit reels in, [`crate::SLIP_FACTOR`] ×
    /// `reel_force` while it holds or pays out, as long as it has rope
    /// left to give (below `max_length`). `None`: no such winch.
    pub slip: Option<f32>,
    /// False while the cable sleeps or is hidden and skipped
    /// ([`ParticlePool::is_active`]).
    pub active: bool,
}

impl CableMut<'_> {
    /// The view read-only: what [`ParticlePool::cable`] gives of the same
    /// cable.
    #[inline]
    #[must_use]
    pub fn view(&self) -> CableRef<'_> {
        CableRef {
            handle: self.handle,
            pos: self.pos,
            prev: self.prev,
            carry: self.carry,
            carry_prev: self.carry_prev,
            inv_mass: self.inv_mass,
            rest: self.rest,
            row_const: self.row_const,
            params: self.params,
            attach: self.attach,
            clamp: self.clamp,
            slip: self.slip,
            active: self.active,
        }
    }
}

/// [`ParticlePool::validate_cable_for_substep`] of one record.
pub(super) fn check_record(rec: &CableRecord, substep: f32) -> Result<(), crate::CableError> {
    // The parameters were validated when set; only the substep is new.
    rec.params.check_compliance_for_substep(substep)?;
    check_bend_for_substep(
        rec.max_rest,
        rec.reel_segment,
        rec.params.bend_stiffness,
        substep,
    )
}

/// What [`ParticlePool::begin_step`] hands to [`ParticlePool::end_step`]:
/// the pool's bulk-borrow number before the step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "hand it to `ParticlePool::end_step`"]
pub struct StepMark(u64);
