//! Reading and editing one cable's columns: positions, previous
//! positions, carries, masses, rest lengths, solver constants, multipliers,
//! broken segments and parameters.

use glam::Vec3;

use crate::cable::{CableHandle, CableParams, End};
use crate::error::{CableError, check_finite};

use super::store::{ParticlePool, RowConst, end_offset};

impl ParticlePool {
    /// Current particle positions of a cable, without copying (UE's
    /// `GetCableParticleLocations`).
    ///
    /// Each is the simulated position rounded to f32, whose spacing grows
    /// with the distance from the origin (0.06 mm at 1 km, 1 mm at 10 km).
    /// Far out, [`ParticlePool::carry`] holds what the rounding dropped:
    /// a resting 5 cm segment 10 km out can read 2 % long or short from
    /// the positions alone; `(p₁ − p₀) + (c₁ − c₀)` (the difference first,
    /// which f32 holds exactly, then the carries) gives its length in
    /// full.
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
        self.state.get_mut().carry_prev[rows.clone()].fill(Vec3::ZERO);
        Ok(&mut self.state.get_mut().prev[rows])
    }

    /// The part of each particle's last displacement that rounding its
    /// position to f32 dropped, metres.
    ///
    /// A particle's velocity over the last substep `h` is
    /// `(pos - prev + carry - carry_prev) / h` (see
    /// [`ParticlePool::carry_prev`], zero near the origin). Far from the
    /// origin a position update of a few millimetres is rounded to the
    /// spacing of f32 coordinates (0.06 mm at 1 km, 1 mm at 10 km); the
    /// integrator keeps what it drops here and adds it to the next update,
    /// so the rounding never becomes velocity, and for a cable whose first
    /// particle is more than 256 m from the origin the position the
    /// simulation works with is `pos + carry`, so the rounding never moves
    /// it either (beyond 32 m the constraints already solve from
    /// `pos + carry`). Zero after [`ParticlePool::prev_positions_mut`]; set by
    /// [`ParticlePool::set_velocity`] so the velocity it gives is exact.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn carry(&self, handle: CableHandle) -> Result<&[Vec3], CableError> {
        Ok(&self.state.get().carry[self.rows(handle)?])
    }

    /// The carry ([`ParticlePool::carry`]) of each particle's previous
    /// position, metres: for a cable whose first particle is more than
    /// 256 m from the origin the previous position the simulation works
    /// with is `prev + carry_prev`. Zero near the origin, where the
    /// previous position is taken as stored, and after
    /// [`ParticlePool::prev_positions_mut`] and
    /// [`ParticlePool::set_velocity`].
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn carry_prev(&self, handle: CableHandle) -> Result<&[Vec3], CableError> {
        Ok(&self.state.get().carry_prev[self.rows(handle)?])
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
    /// stepper tracks tension (`cable_systems::Stepper::set_track_tension`),
    /// and the segments' by the direct solver, whose warm start they are
    /// (kept across substeps and frames, saved and restored with the pool).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn multipliers(&self, handle: CableHandle) -> Result<(&[f32], &[[f32; 3]]), CableError> {
        let rows = self.rows(handle)?;
        let st = self.state.get();
        Ok((&st.lambda[rows.clone()], &st.lambda_row[rows]))
    }

    /// The cable's intact pieces: ranges of particle indices joined by
    /// unbroken segments, in order. A cable that never broke is one piece
    /// (`0..particles`); a segment broken by [`ParticlePool::break_segment`]
    /// or by [`CableParams::break_tension`] ends one piece and starts the
    /// next. A game draws or attaches each piece as a rope of its own.
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
    /// assert_eq!(pool.pieces(h)?, vec![0..5]);
    /// pool.break_segment(h, 1)?;
    /// assert_eq!(pool.pieces(h)?, vec![0..2, 2..5]);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn pieces(&self, handle: CableHandle) -> Result<Vec<std::ops::Range<usize>>, CableError> {
        let rows = &self.row_const[self.rows(handle)?];
        let mut out = Vec::new();
        let mut start = 0;
        for (i, r) in rows.iter().enumerate() {
            // The last row has no segment after it: it always ends a piece.
            if !r.linked || i + 1 == rows.len() {
                out.push(start..i + 1);
                start = i + 1;
            }
        }
        Ok(out)
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
            // The cable's own mark too (`ParticlePool::moved_revision`).
            self.touch_constants(i);
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

    /// Starts, changes or stops a cable's winch, as the winch components
    /// of the hecs layer and the Bevy plugin do: `Some(w)` is
    /// [`ParticlePool::reel_to`]`(handle, w.target_length, w.speed)`, `None`
    /// stops the winch where it is ([`CableParams::reel_speed`] 0; the
    /// bounds stay).
    ///
    /// # Errors
    /// As [`ParticlePool::reel_to`]; a stale handle also for `None`.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool, Winch};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -10.0, 0.0), 10.0, 20)?)?;
    /// pool.set_winch(h, Some(Winch { target_length: 12.0, speed: 2.0 }))?; // pay out
    /// assert_eq!(pool.params(h)?.reel_speed, 2.0);
    /// pool.set_winch(h, None)?; // and stop
    /// assert_eq!(pool.params(h)?.reel_speed, 0.0);
    /// assert_eq!(pool.params(h)?.max_length, Some(12.0));
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn set_winch(
        &mut self,
        handle: CableHandle,
        winch: Option<crate::Winch>,
    ) -> Result<(), CableError> {
        match winch {
            Some(w) => self.reel_to(handle, w.target_length, w.speed),
            None => {
                let p = *self.params(handle)?;
                self.set_params(
                    handle,
                    CableParams {
                        reel_speed: 0.0,
                        ..p
                    },
                )
            }
        }
    }

    /// Record `i` gained (`by` > 0) or lost (`by` < 0) rows: later cables move.
    pub(super) fn shift_records(&mut self, i: usize, by: isize) {
        self.revisions.shape();
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
        let r = &self.cables[i];
        crate::cable::check_clamps(
            &params,
            self.row_const[r.first..r.first + r.count]
                .iter()
                .map(|k| k.kappa0),
        )?;
        self.touch_constants(i);
        let old = self.cables[i].params;
        let mut params = params;
        // Winch bounds resolved when the cable was added stay unless given.
        params.min_length = params.min_length.or(old.min_length);
        params.max_length = params.max_length.or(old.max_length);
        self.wake_record(i);
        self.sleepy -= usize::from(self.cables[i].sleepy());
        self.cables[i].params = params;
        if params.reel_speed != 0.0 {
            self.cables[i].winch_stopped = false;
        }
        self.sleepy += usize::from(self.cables[i].sleepy());
        self.revisions.params();
        self.revisions.shape();
        self.refresh_rows(i);
        Ok(())
    }

    /// Stops the cable's winch: its [`CableParams::reel_speed`] becomes 0,
    /// and the pool remembers that it was stopped rather than built
    /// without one, so [`ParticlePool::check_same_setup`] accepts a save of
    /// it as a run of the scene whose winch turns. The stepper calls this
    /// when paying out needs more particles than the pool's budget
    /// ([`CableError::WinchBudget`]); a game may call it to stop a winch
    /// for the same reason. [`ParticlePool::set_params`] with a non-zero
    /// `reel_speed` turns it again.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when `handle` names no live cable.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let mut desc = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?;
    /// desc.params.reel_speed = 0.5;
    /// let h = pool.add_cable(&desc)?;
    /// pool.stop_winch(h)?;
    /// assert_eq!(pool.params(h)?.reel_speed, 0.0);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn stop_winch(&mut self, handle: CableHandle) -> Result<(), CableError> {
        let i = self.record_index(handle)?;
        let params = CableParams {
            reel_speed: 0.0,
            ..self.cables[i].params
        };
        self.set_params(handle, params)?;
        self.cables[i].winch_stopped = true;
        self.cables[i].reel_rate = 0.0;
        self.cables[i].winch_slipping = false;
        Ok(())
    }
}
