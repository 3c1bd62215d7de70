//! The stepper: the frame accumulator around the one kernel.
//!
//! The order of a substep is written once, on `kernel::substep`;
//! every layout runs it.

use cable_core::{CableError, CableHandle, CableMut, ColliderHandle, ParticlePool};

use crate::events::{ContactEvent, ContactTracker};

use crate::kernel::{Stages, advance_cable};
use crate::layout::{Layout, LayoutState};
use crate::params::SolverParams;
use crate::trace::span;

/// Runs one substep on one cable in the pool's columns (the one-lane
/// kernel, `kernel::substep`). The pool's colliders must have been
/// prepared for this substep ([`cable_core::ColliderSet::prepare`]), as
/// [`substep`] does.
#[inline]
pub fn substep_cable(c: &mut CableMut<'_>, params: &SolverParams) {
    advance_cable(c, params, 1, Stages::ALL, false);
}

/// Runs one substep of length `params.substep` on every cable of the pool,
/// in parallel over cables; bitwise identical whatever the thread count,
/// and to one substep of every [`Layout`]. First moves the pool's
/// kinematic colliders by one substep of their motion and prepares the
/// colliders for it ([`cable_core::ColliderSet::prepare`]).
pub fn substep(pool: &mut ParticlePool, params: &SolverParams) {
    span!("cable.substep");
    pool.colliders_mut().advance_kinematic(params.substep);
    pool.colliders_mut().prepare();
    pool.par_for_each_cable(|mut c| substep_cable(&mut c, params));
}

/// Relative slack when comparing accumulated time with a substep, so that
/// frames which are whole multiples of the substep up to rounding (for
/// example three frames of 1/180 s against a 1/60 s substep) run it.
const ACCUMULATOR_SLACK: f64 = 1.0e-7;

/// Fixed-substep time stepping with an accumulator, as UE's cable does, but
/// with a cap on substeps per frame (no spiral of death).
///
/// Before running substeps, [`Stepper::advance`] and
/// [`Stepper::advance_with`] check the pool's cables for the substep
/// ([`Stepper::validate_pool`]): a compliance (or a bending compliance
/// `l̄ / EI`) so large that compliance / substep² overflows would turn the
/// cable into NaN, and is refused instead. The check costs O(cables) only
/// when cables were added or their parameters changed since the last one
/// ([`ParticlePool::params_revision`]), O(1) otherwise.
///
/// With the `serde` feature it serialises (parameters, accumulator,
/// substeps run, layout, tension tracking; not the layout's buffers, which
/// a restored stepper gathers from the pool again): see `cable_systems::save`.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_systems::{SolverParams, Stepper};
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 4.0, 5.0, 16)?)?;
/// let mut stepper = Stepper::new(SolverParams::default())?;
/// for _frame in 0..60 {
///     stepper.advance(&mut pool, 1.0 / 60.0)?;
/// }
/// assert_eq!(stepper.substeps_run(), 60);
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Stepper {
    params: SolverParams,
    accumulator: f64,
    substeps_run: u64,
    layout: Layout,
    state: LayoutState,
    /// The pool state and substep last found valid by
    /// [`Stepper::validate_pool`]: (params revision, substep bits).
    validated: Option<(u64, u32)>,
    /// Contact pairs and events ([`Stepper::contact_events`]).
    contacts: ContactTracker,
}

impl Stepper {
    /// A stepper with validated parameters and an empty accumulator, on the
    /// default (fastest exact) [`Layout`].
    ///
    /// # Errors
    /// A parameter out of range (see [`SolverParams::validate`]).
    pub fn new(params: SolverParams) -> Result<Self, CableError> {
        Self::with_layout(params, Layout::default())
    }

    /// A stepper that runs its substeps in `layout`; every exact layout
    /// gives bitwise the same positions.
    ///
    /// # Errors
    /// A parameter out of range (see [`SolverParams::validate`]).
    ///
    /// # Example
    /// ```
    /// use cable_systems::{Layout, SolverParams, Stepper};
    /// let stepper = Stepper::with_layout(SolverParams::default(), Layout::Aos)?;
    /// assert_eq!(stepper.layout(), Layout::Aos);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn with_layout(params: SolverParams, layout: Layout) -> Result<Self, CableError> {
        params.validate()?;
        Ok(Self {
            params,
            accumulator: 0.0,
            substeps_run: 0,
            layout,
            state: LayoutState::default(),
            validated: None,
            contacts: ContactTracker::default(),
        })
    }

    /// The layout the substeps run in.
    #[inline]
    #[must_use]
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Switches layout; takes effect at the next substep, with no change in
    /// results (the layouts are exact).
    pub fn set_layout(&mut self, layout: Layout) {
        self.layout = layout;
    }

    /// The layout buffers kept between frames (statistics for profiling).
    #[must_use]
    pub fn layout_state(&self) -> &LayoutState {
        &self.state
    }

    /// Runs exactly `n` substeps now, bypassing the accumulator (benchmarks,
    /// offline simulation). Results are those of `n` substeps run by
    /// [`Stepper::advance`].
    ///
    /// Unlike [`Stepper::advance`] it does not check the pool's cables for
    /// the substep: call [`Stepper::validate_pool`] first when the pool
    /// comes from untrusted input (a refused cable would turn NaN). A
    /// winch stopped at the particle budget is listed in
    /// [`Stepper::stalled_winches`] (there is no error to return).
    pub fn run_substeps(&mut self, pool: &mut ParticlePool, n: u32) {
        self.run_stages(pool, n, Stages::ALL);
    }

    /// Runs `n` substeps doing only `stages` of each: for benchmarks and
    /// profiling that time one system alone (a step without integration
    /// does not move the cables forward in time). Does not check the pool,
    /// as [`Stepper::run_substeps`].
    pub fn run_stages(&mut self, pool: &mut ParticlePool, n: u32, stages: Stages) {
        span!("cable.run_substeps", substeps = n);
        self.state.torn.clear();
        self.state.stalled.clear();
        start_forces(pool, n);
        self.state
            .advance(self.layout, pool, &self.params, n, stages);
        pool.colliders_mut().count_force_substeps(n);
        self.contacts.finish(pool, n);
        self.substeps_run += u64::from(n);
    }

    /// Accumulates every constraint's multiplier in each substep and keeps
    /// the last substep's in the pool, so that
    /// [`crate::tension::segment_tensions`] can report segment tension
    /// (cables with [`cable_core::CableParams::break_tension`] are tracked
    /// whatever this says). Off by default: it costs a little time.
    pub fn set_track_tension(&mut self, on: bool) {
        self.state.track = on;
    }

    /// The segments that broke ([`cable_core::CableParams::break_tension`])
    /// during the last [`Stepper::advance`], [`Stepper::advance_with`] or
    /// [`Stepper::run_substeps`] call: (cable, segment index at the moment
    /// it broke), in the order they broke. A segment index counts from the
    /// start particle, so a winch turning later shifts it.
    #[must_use]
    pub fn torn(&self) -> &[(CableHandle, usize)] {
        &self.state.torn
    }

    /// The winches that stopped during the last [`Stepper::advance`],
    /// [`Stepper::advance_with`] or [`Stepper::run_substeps`] call because
    /// paying out needed more particles than the pool's budget allows:
    /// each a [`CableError::WinchBudget`] naming the cable, in the order
    /// they stopped. Such a winch stops where the budget ran out (its
    /// [`cable_core::CableParams::reel_speed`] becomes 0; set it again to
    /// go on once there is room), and the other cables step on.
    /// [`Stepper::advance`] and [`Stepper::advance_with`] also return the
    /// first of them as their error.
    #[must_use]
    pub fn stalled_winches(&self) -> &[CableError] {
        &self.state.stalled
    }

    /// The (cable, collider) pairs that touched during the last step that
    /// ran substeps, sorted, while the colliders track contacts
    /// ([`cable_core::ColliderSet::set_track_contacts`]); empty otherwise.
    /// A cable that did not run (asleep, inactive) keeps the pairs it had
    /// (see [`crate::events`]).
    #[must_use]
    pub fn touching(&self) -> &[(CableHandle, ColliderHandle)] {
        &self.contacts.touching
    }

    /// The contacts that began or ended in the last [`Stepper::advance`],
    /// [`Stepper::advance_with`] or [`Stepper::run_substeps`] call, sorted
    /// by cable and collider, while the colliders track contacts
    /// ([`cable_core::ColliderSet::set_track_contacts`]): a pair that
    /// touches and did not in the step before began, one that no longer
    /// does ended. A call that ran no substep reports none. A stepper that
    /// was just created or restored knows no pairs yet: its first step
    /// reports every contact as begun.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, Collider, ParticlePool};
    /// use cable_systems::events::ContactKind;
    /// use cable_systems::{SolverParams, Stepper};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let ground = pool.colliders_mut().add(Collider::plane(Vec3::Y, 0.0)?);
    /// pool.colliders_mut().set_track_contacts(true);
    /// let mut d = CableDesc::line(Vec3::new(0.0, 0.05, 0.0), Vec3::new(1.0, 0.05, 0.0), 1.0, 8)?;
    /// (d.attach_start, d.attach_end) = (false, false);
    /// let rope = pool.add_cable(&d)?;
    /// let mut stepper = Stepper::new(SolverParams::default())?;
    /// let mut began = 0;
    /// for _ in 0..30 {
    ///     stepper.advance(&mut pool, 1.0 / 60.0)?;
    ///     began += stepper.contact_events().iter().filter(|e| e.kind == ContactKind::Began).count();
    /// }
    /// assert_eq!(began, 1); // it fell onto the ground once, and stays
    /// assert_eq!(stepper.touching(), &[(rope, ground)]);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[must_use]
    pub fn contact_events(&self) -> &[ContactEvent] {
        &self.contacts.events
    }

    /// Whether tension is tracked ([`Stepper::set_track_tension`]).
    #[must_use]
    pub fn track_tension(&self) -> bool {
        self.state.track
    }

    /// The solver parameters.
    #[inline]
    #[must_use]
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// Replaces the solver parameters after validating them; the accumulator is kept.
    ///
    /// # Errors
    /// A parameter out of range.
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), CableError> {
        params.validate()?;
        self.params = params;
        // Another solver or substep: the pool is checked again.
        self.validated = None;
        Ok(())
    }

    /// Checks every cable of `pool` for this stepper's substep
    /// ([`ParticlePool::validate_for_substep`]): a compliance or bending
    /// compliance whose ratio to substep² overflows is refused; with the
    /// direct solver, so is a rod stiffer than it can solve
    /// ([`check_direct_bending`]). Remembers
    /// the pool state it accepted ([`ParticlePool::params_revision`]) and
    /// the substep, so calling it again is O(1) until a cable is added, its
    /// parameters change, or [`Stepper::set_params`] changes the substep.
    /// [`Stepper::advance`] and [`Stepper::advance_with`] call it.
    ///
    /// # Errors
    /// The first cable's refusal, naming `compliance` or `bend_stiffness`.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, CableParams, ParticlePool};
    /// use cable_systems::{SolverParams, Stepper};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let mut stepper = Stepper::new(SolverParams { substep: 1.0e-5, ..SolverParams::default() })?;
    /// pool.set_params(h, CableParams { compliance: 1.0e30, ..CableParams::default() })?;
    /// let err = stepper.advance(&mut pool, 1.0e-5).unwrap_err();
    /// assert!(err.to_string().starts_with("compliance:"));
    /// assert_eq!(stepper.substeps_run(), 0); // nothing ran, the pool is untouched
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn validate_pool(&mut self, pool: &ParticlePool) -> Result<(), CableError> {
        let key = (pool.params_revision(), self.params.substep.to_bits());
        if self.validated == Some(key) {
            return Ok(());
        }
        pool.validate_for_substep(self.params.substep)?;
        if self.params.solver == crate::Solver::Direct {
            for h in pool.handles() {
                check_direct_bending(pool, h, self.params.substep)?;
            }
        }
        self.validated = Some(key);
        Ok(())
    }

    /// Substeps run since creation.
    #[inline]
    #[must_use]
    pub fn substeps_run(&self) -> u64 {
        self.substeps_run
    }

    /// Simulated time, seconds: substeps run × substep.
    #[inline]
    #[must_use]
    pub fn time(&self) -> f64 {
        self.substeps_run as f64 * f64::from(self.params.substep)
    }

    /// Time carried over to the next frame, seconds (less than one substep).
    #[inline]
    #[must_use]
    pub fn remainder(&self) -> f64 {
        self.accumulator
    }

    /// Advances the simulation by a frame of `frame_dt` seconds: adds it to
    /// the accumulator and runs substeps while a whole substep remains, at
    /// most `max_substeps`; whole substeps beyond that are dropped. Returns
    /// the number of substeps run.
    ///
    /// # Errors
    /// `frame_dt` negative or not finite, or a cable refused by
    /// [`Stepper::validate_pool`] (the pool and the accumulator are
    /// untouched). Or, after the frame ran in full (its substeps counted,
    /// the accumulator drawn down), [`CableError::WinchBudget`] when a
    /// winch stopped because paying out needed more particles than the
    /// pool's budget: the first of [`Stepper::stalled_winches`].
    pub fn advance(&mut self, pool: &mut ParticlePool, frame_dt: f32) -> Result<u32, CableError> {
        span!("cable.step");
        self.validate_pool(pool)?;
        let n = self.frame_substeps(frame_dt)?;
        self.state.torn.clear();
        self.state.stalled.clear();
        start_forces(pool, n);
        // Cables are independent within a frame: the layout runs all n
        // substeps of a cable (or lane group) while it is hot in cache.
        self.state
            .advance(self.layout, pool, &self.params, n, Stages::ALL);
        pool.colliders_mut().count_force_substeps(n);
        self.contacts.finish(pool, n);
        self.substeps_run += u64::from(n);
        self.frame_result(n)
    }

    /// `Ok(n)` after a frame of `n` substeps, or the first winch that
    /// stopped at the particle budget during it.
    fn frame_result(&self, n: u32) -> Result<u32, CableError> {
        match self.state.stalled.first() {
            None => Ok(n),
            Some(e) => Err(e.clone()),
        }
    }

    /// Like [`Stepper::advance`], but calls `before_substep(pool, k, n)`
    /// before substep `k` of the `n` this frame runs (k = 0..n), so a caller
    /// can move attachment targets smoothly across the substeps of a frame
    /// (the ECS layer interpolates a moving hand this way). The substeps then
    /// run one at a time, each after its call.
    ///
    /// # Errors
    /// `frame_dt` negative or not finite, or a cable refused by
    /// [`Stepper::validate_pool`] (the pool and the accumulator are
    /// untouched, and `before_substep` is not called). Cables added or
    /// changed by `before_substep` are checked at the next frame. After
    /// the frame ran in full, [`CableError::WinchBudget`] as for
    /// [`Stepper::advance`].
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, End, ParticlePool};
    /// use cable_systems::{SolverParams, Stepper};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let rope = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 2.0, 2.0, 8)?)?;
    /// let mut stepper = Stepper::new(SolverParams { substep: 0.005, ..SolverParams::default() })?;
    /// let (from, to) = (Vec3::ZERO, Vec3::new(0.0, 1.0, 0.0));
    /// stepper.advance_with(&mut pool, 0.02, |pool, k, n| {
    ///     let t = (k + 1) as f32 / n as f32;
    ///     let _ = pool.set_attachment(rope, End::Start, Some(from.lerp(to, t)));
    /// })?;
    /// assert_eq!(pool.positions(rope)?[0], to);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn advance_with<F>(
        &mut self,
        pool: &mut ParticlePool,
        frame_dt: f32,
        mut before_substep: F,
    ) -> Result<u32, CableError>
    where
        F: FnMut(&mut ParticlePool, u32, u32),
    {
        span!("cable.step");
        self.validate_pool(pool)?;
        let n = self.frame_substeps(frame_dt)?;
        self.state.torn.clear();
        self.state.stalled.clear();
        start_forces(pool, n);
        for k in 0..n {
            before_substep(pool, k, n);
            self.state
                .advance(self.layout, pool, &self.params, 1, Stages::ALL);
            pool.colliders_mut().count_force_substeps(1);
        }
        self.contacts.finish(pool, n);
        self.substeps_run += u64::from(n);
        self.frame_result(n)
    }

    /// Adds a frame of `frame_dt` seconds to the accumulator and takes out
    /// the whole substeps this frame runs (at most `max_substeps`; whole
    /// substeps beyond that are dropped, the fraction is kept).
    fn frame_substeps(&mut self, frame_dt: f32) -> Result<u32, CableError> {
        let dt = cable_core::error::check_finite("frame_dt", frame_dt)?;
        if dt < 0.0 {
            return Err(CableError::OutOfRange {
                field: "frame_dt",
                expected: "must be at least 0",
                value: f64::from(dt),
            });
        }
        let (n, acc) = take_substeps(&self.params, self.accumulator, dt);
        self.accumulator = acc;
        Ok(n)
    }

    /// The clock of a stepper that ran `frames` frames of `frame_dt`
    /// seconds with `params` from an empty accumulator: `(substeps run,
    /// accumulator)`, bit for bit what [`Stepper::substeps_run`] and
    /// [`Stepper::remainder`] then say. `None` when replaying it would
    /// take more than `budget` substeps (it costs one subtraction each),
    /// or `frame_dt` is negative or not finite. A program that restores a
    /// save of frames of a fixed length checks the save's clock with it
    /// (`cable run --restore` does).
    ///
    /// # Example
    /// ```
    /// use cable_systems::{SolverParams, Stepper};
    ///
    /// let params = SolverParams { substep: 0.01, ..SolverParams::default() };
    /// let (n, _) = Stepper::clock_after(&params, 0.025, 4, 1 << 20).unwrap();
    /// assert_eq!(n, 10);
    /// ```
    #[must_use]
    pub fn clock_after(
        params: &SolverParams,
        frame_dt: f32,
        frames: u64,
        budget: u64,
    ) -> Option<(u64, f64)> {
        if !(frame_dt.is_finite() && frame_dt >= 0.0) {
            return None;
        }
        let per_frame = f64::from(frame_dt) / f64::from(params.substep) + 1.0;
        let most = (per_frame.min(f64::from(params.max_substeps)) + 1.0) * frames as f64;
        if most > budget as f64 {
            return None;
        }
        let (mut n, mut acc) = (0u64, 0.0f64);
        for _ in 0..frames {
            let (k, a) = take_substeps(params, acc, frame_dt);
            n += u64::from(k);
            acc = a;
        }
        Some((n, acc))
    }
}

/// One frame of `dt` seconds on an accumulator holding `acc`: the whole
/// substeps it runs (at most `max_substeps`; whole substeps beyond that
/// are dropped, the fraction is kept) and the accumulator after them.
fn take_substeps(params: &SolverParams, acc: f64, dt: f32) -> (u32, f64) {
    let h = f64::from(params.substep);
    let mut acc = acc + f64::from(dt);
    let mut n = 0;
    while n < params.max_substeps && acc >= h * (1.0 - ACCUMULATOR_SLACK) {
        acc -= h;
        n += 1;
    }
    if acc >= h {
        // Capped: drop the whole substeps we could not afford, keep the fraction.
        acc %= h;
    }
    (n, acc.max(0.0))
}

/// `Serialize`/`Deserialize` of the [`Stepper`] (feature `serde`): its
/// parameters, accumulator, substep count, layout and whether it tracks
/// tension. The layout's buffers are a cache of the pool and are not
/// saved: a restored stepper gathers them from the pool at its first
/// substep, with bitwise the same results.
#[cfg(feature = "serde")]
mod saved {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{ContactTracker, Layout, LayoutState, SolverParams, Stepper};
    use cable_core::CableError;

    #[derive(Serialize, Deserialize)]
    #[serde(rename = "Stepper", deny_unknown_fields)]
    struct Repr {
        params: SolverParams,
        /// Seconds carried to the next frame, as a decimal string that
        /// Rust's parser reads back to the same `f64` (JSON readers may
        /// round a 17-digit number to a neighbouring one).
        accumulator: String,
        substeps_run: u64,
        layout: Layout,
        track_tension: bool,
    }

    impl Serialize for Stepper {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            Repr {
                params: self.params,
                accumulator: format!("{:?}", self.accumulator),
                substeps_run: self.substeps_run,
                layout: self.layout,
                track_tension: self.state.track,
            }
            .serialize(s)
        }
    }

    impl<'de> Deserialize<'de> for Stepper {
        /// Reads a saved stepper and checks it: valid parameters, an
        /// accumulator in `[0, substep)`.
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let r = Repr::deserialize(d)?;
            from_repr(r).map_err(serde::de::Error::custom)
        }
    }

    fn from_repr(r: Repr) -> Result<Stepper, CableError> {
        let bad = |place: &str, reason: String| CableError::InvalidState {
            place: place.into(),
            reason,
        };
        r.params
            .validate()
            .map_err(|e| bad("stepper.params", e.to_string()))?;
        let acc: f64 = r.accumulator.parse().map_err(|_| {
            bad(
                "stepper.accumulator",
                format!("must be a number in a string, got {:?}", r.accumulator),
            )
        })?;
        if !(acc >= 0.0 && acc < f64::from(r.params.substep)) {
            return Err(bad(
                "stepper.accumulator",
                format!(
                    "must be at least 0 and less than the substep ({}), got {acc}",
                    r.params.substep
                ),
            ));
        }
        // Far beyond any run (2^53 substeps of 1 ms: 285,000 years), and
        // exact in the f64 of `Stepper::time`; counting on cannot overflow.
        if r.substeps_run > 1 << 53 {
            return Err(bad(
                "stepper.substeps_run",
                format!("must be at most 2^53, got {}", r.substeps_run),
            ));
        }
        let mut stepper = Stepper {
            params: r.params,
            accumulator: acc,
            substeps_run: r.substeps_run,
            layout: r.layout,
            state: LayoutState::default(),
            validated: None,
            contacts: ContactTracker::default(),
        };
        stepper.set_track_tension(r.track_tension);
        Ok(stepper)
    }
}

/// Before a step of `n` substeps: measured contact forces start again
/// ([`cable_core::ColliderSet::clear_contact_forces`]) when it runs any, so
/// [`cable_core::ColliderSet::contact_force`] reports the last step that
/// ran substeps; so do tracked contacts.
fn start_forces(pool: &mut ParticlePool, n: u32) {
    if n > 0 {
        pool.colliders_mut().clear_contact_forces();
    }
    ContactTracker::start(pool, n);
}

/// The largest [`direct_bending_ratio`] the direct solver accepts: 2·10⁸.
/// Its band is `f32`; beside a bending stiffness this far above a
/// particle's mass it cannot solve a step. Measured at 1/60 s, 8
/// iterations, clamped cantilevers (ratios of this function): 4.4·10⁷ (a
/// 1 m rod of 0.1 kg/m, EI 2 N·m², 250 segments) rests at beam theory's
/// droop; 1.2·10⁸ (0.5 m, 0.05 kg/m, EI 50, 60 segments) rests 1.26×
/// beam theory's; 2.8·10⁸ (the first rod at 400 segments) never rests,
/// its segments stretched up to 5.6 times, and 3.6·10⁸ flips over.
pub const MAX_DIRECT_BENDING_RATIO: f32 = 2.0e8;

/// How stiff a cable's bending is for the direct solver at `substep`:
/// `EI·h² / (m·l³)`, with `EI` its `bend_stiffness`, `h` the substep, `m`
/// its lightest free particle's mass and `l` its shortest segment (for a
/// uniform rod of ρ kg/m, `EI·h²/(ρ·l⁴)`, twice that at a free end,
/// whose particle has half a segment's mass). 0 without bending
/// stiffness or free particles. Scales with `h²`: halving the substep
/// divides it by 4.
///
/// # Errors
/// A stale handle.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_systems::direct_bending_ratio;
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// let mut d = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 100)?;
/// d.attach_end = false;
/// d.mass_per_length = Some(0.1); // kg/m: 1 g particles, 0.5 g at the free end
/// d.params.bend_stiffness = 2.0; // N·m²
/// let h = pool.add_cable(&d)?;
/// let r = direct_bending_ratio(&pool, h, 1.0 / 60.0)?;
/// // 2 · (1/60)² / (0.0005 · 0.01³)
/// assert!((r / 1.111e6 - 1.0).abs() < 0.01);
/// # Ok::<(), cable_core::CableError>(())
/// ```
pub fn direct_bending_ratio(
    pool: &ParticlePool,
    handle: CableHandle,
    substep: f32,
) -> Result<f32, CableError> {
    let ei = pool.params(handle)?.bend_stiffness;
    if ei <= 0.0 {
        return Ok(0.0);
    }
    // The largest inverse mass: the lightest free particle.
    let w = pool
        .inv_masses(handle)?
        .iter()
        .copied()
        .fold(0.0f32, f32::max);
    let rest = pool.rest_lengths(handle)?;
    let n = rest.len().saturating_sub(1);
    let l = rest[..n]
        .iter()
        .copied()
        .filter(|&r| r > 0.0)
        .fold(f32::INFINITY, f32::min);
    if w == 0.0 || !l.is_finite() {
        return Ok(0.0);
    }
    let (ei, h, w, l) = (
        f64::from(ei),
        f64::from(substep),
        f64::from(w),
        f64::from(l),
    );
    Ok((ei * h * h * w / (l * l * l)) as f32)
}

/// Refuses a cable whose bending the direct solver cannot solve at
/// `substep`: a [`direct_bending_ratio`] above
/// [`MAX_DIRECT_BENDING_RATIO`]. [`Stepper::validate_pool`] calls it for
/// every cable when the solver is [`crate::Solver::Direct`].
///
/// # Errors
/// A stale handle; [`CableError::OutOfRange`] naming `bend_stiffness`,
/// with the ratio as its value.
pub fn check_direct_bending(
    pool: &ParticlePool,
    handle: CableHandle,
    substep: f32,
) -> Result<(), CableError> {
    let r = direct_bending_ratio(pool, handle, substep)?;
    if r > MAX_DIRECT_BENDING_RATIO {
        return Err(CableError::OutOfRange {
            field: "bend_stiffness",
            expected: "bend_stiffness × substep² / (lightest particle mass × shortest segment³) must be at most 2e8 for the direct solver, whose f32 system cannot solve a stiffer rod (use a smaller substep, fewer or longer segments, or the Gauss-Seidel solver)",
            // Three significant digits: a ratio, not a measured value.
            value: format!("{r:.2e}").parse().unwrap_or(f64::from(r)),
        });
    }
    Ok(())
}
