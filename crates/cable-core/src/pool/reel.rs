//! The winch ([`ParticlePool::reel`]): particles added or removed next to
//! a cable's start particle.
//!
//! A call adds (or removes) all the particles it needs with one insertion
//! (or one removal) in each column, so the rows after the cable move once
//! per call, not once per particle: paying out `k` particles costs
//! O(`k` + the rows after the cable), not O(`k` × the rows after it).
//! The values are those of inserting the particles one at a time (each
//! splits the first segment a whole winch segment before the particle
//! after the start), computed in the same order: bitwise the same pool.

use glam::Vec3;

use super::store::{NO_ANCHOR, ParticlePool, RowConst};
use crate::cable::{CableHandle, along};
use crate::error::{CableError, check_finite};

#[cfg(test)]
thread_local! {
    /// Times this thread moved the rows after a cable to make room for
    /// (or close the gap of) a winch's particles.
    static SHIFTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Rows moved by the winch on this thread so far (tests count the work a
/// payout does).
#[cfg(test)]
pub(super) fn shifts() -> u64 {
    SHIFTS.with(std::cell::Cell::get)
}

impl ParticlePool {
    /// The winch: changes the cable's rest length by `delta` metres
    /// (positive pays out), clamped to its
    /// [`crate::CableParams::min_length`]..=[`crate::CableParams::max_length`],
    /// at the end [`crate::CableParams::reel_end`] names (below, for the
    /// start; the end is its mirror image).
    /// The change goes into the first segment. Paying out, while it is
    /// longer than 1.5 times the cable's segment length (its initial length
    /// / segments) a particle is inserted after the start particle, on the
    /// first segment, a whole segment length before the particle after it,
    /// with the velocity there; reeling in, while it is shorter than half
    /// of it (with more than one segment left) the particle after the start
    /// is removed and its segment merged into the first. Only paying out
    /// splits and only reeling in merges, so a cable whose segments differ
    /// in length (made from points) keeps them until the winch reaches
    /// them. Returns the new particle count.
    ///
    /// All the particles one call adds go in at once, so its cost is
    /// proportional to the particles it adds plus the rows after the
    /// cable (moved once), however far it pays out. A segment length
    /// below the rounding of the first segment's length (a cable of tiny
    /// segments paying out far in one call) cannot split it further: the
    /// first segment then keeps 1.5 segment lengths and the rest of the
    /// change is dropped.
    ///
    /// # Errors
    /// Stale handle, a non-finite `delta`, or
    /// [`CableError::BudgetExceeded`] when the particles to add do not fit
    /// the pool's budget (`requested`: how many did not fit): the cable
    /// has then paid out as far as the budget allows (its first segment at
    /// most 1.5 times the segment length).
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let h = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -1.0, 0.0), 1.0, 4)?)?;
    /// assert_eq!(pool.reel(h, 0.2)?, 6); // 1.2 m: the first segment split
    /// assert!((pool.rest_lengths(h)?.iter().sum::<f32>() - 1.2).abs() < 1e-6);
    /// assert_eq!(pool.reel(h, -0.9)?, 2); // reeled in to one segment's length (0.25 m)
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn reel(&mut self, handle: CableHandle, delta: f32) -> Result<usize, CableError> {
        self.reel_to_bound(handle, delta).map(|(n, _)| n)
    }

    /// The winch's speed now, m/s: [`crate::CableParams::reel_speed`] once
    /// the winch has turned without an acceleration limit, else where
    /// [`crate::CableParams::reel_accel`] has ramped it so far (0 at the
    /// start, and after the winch reached a length bound).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when `handle` names no live cable.
    pub fn reel_rate(&self, handle: CableHandle) -> Result<f32, CableError> {
        Ok(self.cables[self.record_index(handle)?].reel_rate)
    }

    /// Whether the cable's winch slipped in its last turn
    /// ([`ParticlePool::turn_winch`]): the rope pulled at it with
    /// [`crate::SLIP_FACTOR`] × its `reel_force` and the winch paid out
    /// what the load took. False for a winch without a pulling limit.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when `handle` names no live cable.
    pub fn winch_slipping(&self, handle: CableHandle) -> Result<bool, CableError> {
        Ok(self.cables[self.record_index(handle)?].winch_slipping)
    }

    /// Whether the cable's winch turns: a `reel_speed` that is not 0, or a
    /// winch still slowing down to 0 ([`ParticlePool::reel_rate`]).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when `handle` names no live cable.
    pub fn winch_turns(&self, handle: CableHandle) -> Result<bool, CableError> {
        let c = &self.cables[self.record_index(handle)?];
        Ok(c.params.reel_speed != 0.0 || c.reel_rate != 0.0)
    }

    /// Ends a winch order to reel to `target_length` metres once it is
    /// done: when the winch turns, its drum stands still
    /// ([`ParticlePool::reel_rate`] 0) and the rest length is at the target
    /// (to 10⁻⁶ of it), the winch is stopped there
    /// ([`ParticlePool::set_winch`] with `None`). Returns whether it
    /// stopped it. A winch whose `reel_speed` stays set turns against its
    /// bound every substep, which keeps the cable awake and runs its
    /// substeps one at a time; the ECS layers call this every frame for a
    /// cable with a winch component.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when `handle` names no live cable.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool, Winch};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let mut desc = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0), 2.0, 8)?;
    /// desc.attach_end = false; // hanging from the winch at its top
    /// let h = pool.add_cable(&desc)?;
    /// let order = Winch { target_length: 1.5, speed: 1.0 };
    /// pool.set_winch(h, Some(order))?;
    /// assert!(!pool.finish_winch(h, order.target_length)?); // not there yet
    /// for _ in 0..60 {
    ///     pool.turn_winch(h, 1.0 / 60.0, 0.0)?; // what the stepper does each substep
    /// }
    /// assert!(pool.finish_winch(h, order.target_length)?);
    /// assert!(!pool.winch_turns(h)?);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn finish_winch(
        &mut self,
        handle: CableHandle,
        target_length: f32,
    ) -> Result<bool, CableError> {
        if !self.winch_turns(handle)? {
            return Ok(false);
        }
        let c = &self.cables[self.record_index(handle)?];
        if c.reel_rate != 0.0 {
            return Ok(false);
        }
        let total = c.rest_total;
        let target = f64::from(target_length);
        if (total - target).abs() > 1.0e-6 * target {
            return Ok(false);
        }
        self.set_winch(handle, None)?;
        Ok(true)
    }

    /// Turns the cable's winch by one substep of `h` seconds, as the
    /// stepper does between substeps, given the `tension` (N) of the
    /// segment at the winch in the substep just run (read only with
    /// [`crate::CableParams::reel_force`]). The winch's speed
    /// ([`ParticlePool::reel_rate`]) goes toward its target, at most
    /// `reel_accel · h` per call when [`crate::CableParams::reel_accel`]
    /// is set: the target is `reel_speed`, except that above `reel_force`
    /// it does not reel in (it holds). The rest length changes by that
    /// speed × `h`, and where the solver held the rope at the winch's
    /// bound in the substep just run ([`crate::CableParams::slip_end`]:
    /// `tension` at `reel_force` while reeling in, at
    /// [`crate::SLIP_FACTOR`] × it otherwise) by how far the winch segment
    /// stretched beyond its rest length: the rope the load pulled off the
    /// drum
    /// (reeling in, at most what the winch reeled in, and a winch segment
    /// stretched beyond that stops the winch: it holds)
    /// ([`ParticlePool::reel`]). A winch that reaches `min_length` or
    /// `max_length` stops there (its speed becomes 0). A pinned winch
    /// reeling in a rigid cable (`compliance` 0) stalls (its speed becomes
    /// 0) where the rope from it to the next pinned particle would be
    /// shorter than the straight line between them: the rope cannot come,
    /// and the solvers are not asked for the impossible. Returns the
    /// particle count.
    ///
    /// # Errors
    /// As [`ParticlePool::reel`]; and `h` or `tension` not finite, or `h`
    /// negative.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let mut desc = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -1.0, 0.0), 1.0, 10)?;
    /// desc.params.reel_speed = 1.0; // 1 m/s, reached at 2 m/s²: in 0.5 s
    /// desc.params.reel_accel = Some(2.0);
    /// let h = pool.add_cable(&desc)?;
    /// for _ in 0..30 {
    ///     pool.turn_winch(h, 1.0 / 60.0, 0.0)?;
    /// }
    /// assert!((pool.reel_rate(h)? - 1.0).abs() < 1e-5);
    /// // Paid out ½·a·t² = 0.25 m while speeding up (the speed after each turn, times h).
    /// let paid: f32 = pool.rest_lengths(h)?.iter().sum::<f32>() - 1.0;
    /// assert!((paid - 0.2583).abs() < 1e-3, "{paid}");
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn turn_winch(
        &mut self,
        handle: CableHandle,
        h: f32,
        tension: f32,
    ) -> Result<usize, CableError> {
        let h = check_finite("h", h)?;
        let tension = check_finite("tension", tension)?;
        if h < 0.0 {
            return Err(CableError::OutOfRange {
                field: "h",
                expected: "must be at least 0",
                value: f64::from(h),
            });
        }
        let i = self.record_index(handle)?;
        let c = &self.cables[i];
        let (p, rate) = (c.params, c.reel_rate);
        let mut target = p.reel_speed;
        let mut slip = 0.0f32;
        if let Some(most) = p.reel_force {
            // The solver held the rope at the winch at its bound
            // (`CableRecord::slip`, to the rounding of the tension read
            // back): how far it let the winch segment stretch is rope the
            // load pulled off the drum.
            let at_bound = c.count >= 2 && c.slip.is_some_and(|l| tension >= l * (1.0 - 1.0e-3));
            if at_bound && rate < 0.0 {
                // Reeling in, the motor pulled at its limit: it gave back
                // what the rope held it to, at most what it reeled in; its
                // segment stretched beyond that (a load it cannot lift,
                // running out) stops it, and it holds.
                let (own, run) = (self.run_off_winch(i), self.run_past_reach(i));
                let reeled = -rate * h;
                slip = run.min(reeled);
                if own > reeled * (1.0 + 1.0e-3) {
                    target = target.max(0.0);
                }
            } else {
                if at_bound {
                    slip = self.run_off_winch(i);
                }
                if tension > most {
                    target = target.max(0.0);
                }
            }
        }
        self.cables[i].winch_slipping = slip > 0.0 && rate >= 0.0;
        let speed = match p.reel_accel {
            Some(a) => {
                let dv = a * h;
                rate + (target - rate).clamp(-dv, dv)
            }
            None => target,
        };
        self.cables[i].reel_rate = speed;
        let mut delta = speed * h + slip;
        if delta < 0.0 && p.compliance == 0.0 {
            // An inextensible rope cannot be reeled shorter than the
            // straight line from its winch to the first pinned particle:
            // the winch stalls there (its drum stands still) instead of
            // asking the solver for the impossible.
            let slack = self.slack_to_pin(i).max(0.0);
            if -delta > slack {
                delta = -slack;
                self.cables[i].reel_rate = 0.0;
            }
        }
        let (count, bound) = if delta == 0.0 {
            (self.cables[i].count, false)
        } else {
            self.reel_to_bound(handle, delta)?
        };
        if bound {
            // At its end stop the drum stands still.
            self.cables[i].reel_rate = 0.0;
        }
        // The next substep's bound: the motor's while it reels in, the
        // brake's otherwise; the layouts read it again when it changes.
        let before = self.cables[i].slip;
        self.refresh_slip(i);
        if self.cables[i].slip != before {
            self.touch();
        }
        Ok(count)
    }

    /// How far (m) the rope of record `i` ran off its winch: the winch
    /// segment's stretch beyond its rest length. (Further along, a
    /// Gauss-Seidel rope also stretches by itself, which is not rope off
    /// the drum: paying out the farthest run past the reach left the top
    /// of the rope slack, jerked taut at each new particle, and tore
    /// ropes rated at 1.25–3 times the bound in a docs-only trial.)
    fn run_off_winch(&self, i: usize) -> f32 {
        let c = &self.cables[i];
        let (first, n) = (c.first, c.count);
        let (w, next) = if c.params.reel_end == crate::End::End {
            (first + n - 1, first + n - 2)
        } else {
            (first, first + 1)
        };
        let pos = &self.state.get().pos;
        ((pos[next] - pos[w]).length() - self.rest[w.min(next)]).max(0.0)
    }

    /// How much longer (m) the rope of record `i` is, from its winch's
    /// particle to the first pinned particle after it (from the winch's
    /// end), than the straight line between the two: what the winch can
    /// still reel in. Infinite without such a particle, when a torn
    /// segment lies between, or when the winch's own particle is free.
    fn slack_to_pin(&self, i: usize) -> f32 {
        let c = &self.cables[i];
        let (first, n) = (c.first, c.count);
        let at_end = c.params.reel_end == crate::End::End;
        let w = if at_end { first + n - 1 } else { first };
        if self.inv_mass[w] != 0.0 {
            return f32::INFINITY; // a free winch end moves with the rope
        }
        let pos = &self.state.get().pos;
        let mut rest = 0.0f64;
        for k in 1..n {
            let (row, seg) = if at_end {
                (first + n - 1 - k, first + n - 1 - k)
            } else {
                (first + k, first + k - 1)
            };
            if !self.row_const[seg].linked {
                return f32::INFINITY; // torn: the pin beyond holds no rope of the winch's
            }
            rest += f64::from(self.rest[seg]);
            if self.inv_mass[row] == 0.0 {
                return (rest - f64::from((pos[row] - pos[w]).length())) as f32;
            }
        }
        f32::INFINITY
    }

    /// How far (m) the rope of record `i` runs past its reach from its
    /// winch: the winch segment's stretch, and with tethers the farthest
    /// any particle tethered to the winch is past its reach (the solver's
    /// tethers leave each at most the same distance past it where the
    /// winch's bound stopped their pulls). What a stalled motor gives
    /// back (it reeled the rope in no further than the rope came).
    /// O(particles).
    fn run_past_reach(&self, i: usize) -> f32 {
        let c = &self.cables[i];
        let (first, n) = (c.first, c.count);
        let at_end = c.params.reel_end == crate::End::End;
        let (side, w) = if at_end {
            (1, first + n - 1)
        } else {
            (0, first)
        };
        let pos = &self.state.get().pos;
        let mut most = self.run_off_winch(i);
        if c.params.tethers {
            for row in first..first + n {
                let k = &self.row_const[row];
                if k.anchor[side] as usize == w - first {
                    most = most.max((pos[row] - pos[w]).length() - k.reach[side]);
                }
            }
        }
        most
    }

    /// [`ParticlePool::reel`], and whether `min_length` or `max_length`
    /// cut the change short.
    fn reel_to_bound(
        &mut self,
        handle: CableHandle,
        delta: f32,
    ) -> Result<(usize, bool), CableError> {
        let delta = check_finite("reel", delta)?;
        let i = self.record_index(handle)?;
        self.touch();
        let (first, count) = (self.cables[i].first, self.cables[i].count);
        let p = self.cables[i].params;
        let at_end = p.reel_end == crate::End::End;
        // The winch's segment: the one next to its end particle.
        let wi = |pool: &Self| {
            let c = &pool.cables[i];
            if at_end {
                c.first + c.count - 2
            } else {
                c.first
            }
        };
        // The in-order sum of its rest lengths, kept by `refresh_rows` and
        // `refresh_after_reel` (`ParticlePool::validate` checks it).
        let total = self.cables[i].rest_total;
        debug_assert_eq!(
            total.to_bits(),
            self.rest[first..first + count - 1]
                .iter()
                .map(|&r| f64::from(r))
                .sum::<f64>()
                .to_bits()
        );
        let lo = f64::from(p.min_length.unwrap_or(0.0));
        let hi = f64::from(p.max_length.unwrap_or(f32::MAX));
        let wanted = total + f64::from(delta);
        let target = wanted.clamp(lo, hi.max(lo));
        let bound = target != wanted;
        let change = (target - total) as f32;
        if change == 0.0 {
            return Ok((count, bound));
        }
        self.wake_record(i);
        // The cable's own mark too (`ParticlePool::moved_revision`).
        self.touch_state(i);
        let seg = self.cables[i].reel_segment;
        // May go below zero for a moment: the merges below absorb it.
        let w0 = wi(self);
        self.rest[w0] += change;
        // Pay out: split the first segment, a whole segment behind each new
        // particle. Count the splits first (each leaves the first segment
        // one segment shorter), then make room for all of them at once.
        // Only paying out splits and only reeling in merges: a cable whose
        // segments are not all `reel_segment` long (one made from points)
        // keeps them until the winch reaches them.
        let room = self.budget.saturating_sub(self.particle_count());
        let mut r = self.rest[w0];
        let mut k = 0;
        while change > 0.0 && r > 1.5 * seg && k < room {
            let shorter = r - seg;
            if shorter >= r {
                // The segment length is below the rounding of `r`.
                break;
            }
            r = shorter;
            k += 1;
        }
        if k > 0 {
            if at_end {
                self.insert_before_end(i, seg, k);
            } else {
                self.insert_after_start(i, seg, k);
            }
        }
        let w1 = wi(self);
        if change > 0.0 && self.rest[w1] > 1.5 * seg {
            // Paid out as far as the budget (or the rounding) allows: the
            // first segment holds no more than any split one, so the rows
            // stay within the bounds the stepper checked
            // (`check_bend_for_substep`).
            let left = f64::from(self.rest[w1]) - 1.5 * f64::from(seg);
            self.rest[w1] = 1.5 * seg;
            self.reweigh_at_winch(i, at_end, k + 2);
            self.refresh_after_reel(i, at_end, k + 2, k as isize);
            self.debug_check();
            if k == room {
                // Whole particles still wanted (at least one); saturating.
                let requested = (left / f64::from(seg)).ceil().max(1.0) as usize;
                return Err(CableError::BudgetExceeded {
                    requested,
                    live: self.particle_count(),
                    budget: self.budget,
                });
            }
            return Ok((self.cables[i].count, bound));
        }
        // Reel in: merge the first two segments, as often as needed.
        let before = self.cables[i].count;
        if change < 0.0 {
            if at_end {
                self.remove_before_end(i, seg);
            } else {
                self.remove_after_start(i, seg);
            }
        }
        let w2 = wi(self);
        self.rest[w2] = self.rest[w2].max(2.0 * crate::MIN_SEGMENT_LENGTH);
        // Paid out (`k` rows inserted, the winch segment and the `k` new
        // ones changed; no merge follows a split) or reeled in (rows
        // removed, the merged winch segment changed).
        // The particles next to changed segments (the winch's, the new
        // ones, the first old one) weigh what their segments do; the rows
        // refreshed reach one past them (bending reads the masses around
        // a particle).
        self.reweigh_at_winch(i, at_end, k + 2);
        match (k, before - self.cables[i].count) {
            (0, gone) => self.refresh_after_reel(i, at_end, 2, -(gone as isize)),
            (k, 0) => self.refresh_after_reel(i, at_end, k + 2, k as isize),
            _ => self.refresh_rows(i),
        }
        self.debug_check();
        Ok((self.cables[i].count, bound))
    }

    /// Gives the free particles among the `rows` of record `i` nearest its
    /// winch's end (`at_end`), the winch's own particle excepted, the mass
    /// of half of each segment next to them, as
    /// [`crate::CableDesc::inverse_masses`] does when the cable is added,
    /// when the cable has a `mass_per_length`: the winch's segment changes
    /// length every turn, and paid-out particles are a segment apart.
    /// Pinned particles stay pinned, and the free mass of a pinned end
    /// (what it weighs once let go) stays what the cable was made with,
    /// as does the winch's particle (the drum's end of the rope), so that
    /// a save restores onto its scene
    /// (`ParticlePool::check_same_setup` allows the one particle of the
    /// scene's next to the changed segments its new mass).
    fn reweigh_at_winch(&mut self, i: usize, at_end: bool, rows: usize) {
        let Some(rho) = self.cables[i].mass_per_length else {
            return;
        };
        let (first, count) = (self.cables[i].first, self.cables[i].count);
        let rows = rows.min(count);
        let span = if at_end {
            first + count - rows..first + count - 1
        } else {
            first + 1..first + rows
        };
        for row in span {
            if self.inv_mass[row] == 0.0 {
                continue;
            }
            let left = if row > first { self.rest[row - 1] } else { 0.0 };
            let right = if row + 1 < first + count {
                self.rest[row]
            } else {
                0.0
            };
            let w = 1.0 / (0.5 * rho * (left + right));
            if w.is_finite() && w > 0.0 {
                self.inv_mass[row] = w;
            }
        }
    }

    /// Inserts `k` particles on the first segment of record `i`, each `seg`
    /// metres of rest length before the particle after the start, as `k`
    /// insertions one after another would (the last one inserted is the
    /// nearest the start), moving the later rows once.
    fn insert_after_start(&mut self, i: usize, seg: f32, k: usize) {
        let first = self.cables[i].first;
        let at = first + 1;
        let linked = self.row_const[first].linked;
        let rho = self.cables[i].mass_per_length;
        // Room for the new rows: one move of the rows after the start.
        self.open_rows(at, k, seg, linked);
        let st = self.state.get_mut();
        // The j-th insertion (from 0) split the first segment of length
        // `r0` at `seg` before the particle then after the start (the one
        // inserted before it, or the old particle 1), and went to row
        // `at + k - 1 - j`.
        let (p0, q0) = (st.pos[first], st.prev[first]);
        // The new segments carry the winch segment's multiplier (the
        // direct solver's warm start; the tension of the rope there).
        let lam = st.lambda[first];
        st.lambda[at..at + k].fill(lam);
        let mut r0 = self.rest[first];
        for row in (at..at + k).rev() {
            let t = (r0 - seg) / r0; // along 0 → 1
            st.pos[row] = along(p0, st.pos[row + 1], t);
            st.prev[row] = paid_out_prev(st.pos[row], p0, q0, st.pos[row + 1], st.prev[row + 1], t);
            let w = match rho {
                Some(rho) => 1.0 / (rho * 0.5 * r0),
                None => 1.0,
            };
            self.inv_mass[row] = if w.is_finite() && w > 0.0 { w } else { 1.0 };
            r0 -= seg;
        }
        self.rest[first] = r0;
        self.shift_records(i, k as isize);
    }

    /// Inserts `k` rows at row `at` of every column, moving the rows after
    /// it once: zero state, rest length `seg`, no anchors, `linked` (the
    /// winch insertions fill in positions and masses).
    fn open_rows(&mut self, at: usize, k: usize, seg: f32, linked: bool) {
        let st = self.state.get_mut();
        let gap = at..at;
        st.pos
            .splice(gap.clone(), std::iter::repeat_n(Vec3::ZERO, k));
        st.prev
            .splice(gap.clone(), std::iter::repeat_n(Vec3::ZERO, k));
        st.carry
            .splice(gap.clone(), std::iter::repeat_n(Vec3::ZERO, k));
        st.carry_prev
            .splice(gap.clone(), std::iter::repeat_n(Vec3::ZERO, k));
        st.lambda.splice(gap.clone(), std::iter::repeat_n(0.0, k));
        st.lambda_bend
            .splice(gap.clone(), std::iter::repeat_n(0.0, k));
        st.lambda_row
            .splice(gap.clone(), std::iter::repeat_n([0.0; 3], k));
        self.inv_mass
            .splice(gap.clone(), std::iter::repeat_n(0.0, k));
        self.rest.splice(gap.clone(), std::iter::repeat_n(seg, k));
        let row = RowConst {
            anchor: [NO_ANCHOR; 2],
            reach: [0.0; 2],
            kappa0: 0.0,
            bend_compliance: 0.0,
            linked,
        };
        self.row_const.splice(gap, std::iter::repeat_n(row, k));
        #[cfg(test)]
        SHIFTS.with(|s| s.set(s.get() + 1));
    }

    /// Removes rows `gone` from every column, moving the rows after them once.
    fn close_rows(&mut self, gone: std::ops::Range<usize>) {
        let st = self.state.get_mut();
        st.pos.drain(gone.clone());
        st.prev.drain(gone.clone());
        st.carry.drain(gone.clone());
        st.carry_prev.drain(gone.clone());
        st.lambda.drain(gone.clone());
        st.lambda_bend.drain(gone.clone());
        st.lambda_row.drain(gone.clone());
        self.inv_mass.drain(gone.clone());
        self.rest.drain(gone.clone());
        self.row_const.drain(gone);
        #[cfg(test)]
        SHIFTS.with(|s| s.set(s.get() + 1));
    }

    /// The mirror image of [`ParticlePool::insert_after_start`] at the end
    /// of record `i`: `k` particles on its last segment, each `seg` metres
    /// of rest length after the particle before the end (the last one
    /// inserted is the nearest the end), moving the later rows once.
    fn insert_before_end(&mut self, i: usize, seg: f32, k: usize) {
        let (first, count) = (self.cables[i].first, self.cables[i].count);
        let at = first + count - 1; // the end particle's row
        let linked = self.row_const[at - 1].linked;
        let rho = self.cables[i].mass_per_length;
        self.open_rows(at, k, seg, linked);
        let st = self.state.get_mut();
        // The j-th insertion (from 0) split the last segment of length
        // `r0` at `seg` after the particle then before the end (the one
        // inserted before it, or the old particle before the end), and
        // went to row `at + j`; the end particle is now at `at + k`.
        let end = at + k;
        let (pe, qe) = (st.pos[end], st.prev[end]);
        // The new segments, the winch's last among them, carry the winch
        // segment's multiplier (the direct solver's warm start; the
        // tension of the rope there).
        let lam = st.lambda[at - 1];
        st.lambda[at..end].fill(lam);
        let mut r0 = self.rest[at - 1];
        for row in at..at + k {
            let t = (r0 - seg) / r0; // along end → before
            st.pos[row] = along(pe, st.pos[row - 1], t);
            st.prev[row] = paid_out_prev(st.pos[row], pe, qe, st.pos[row - 1], st.prev[row - 1], t);
            let w = match rho {
                Some(rho) => 1.0 / (rho * 0.5 * r0),
                None => 1.0,
            };
            self.inv_mass[row] = if w.is_finite() && w > 0.0 { w } else { 1.0 };
            // The segment before the new particle is a whole one; the
            // rest of the split one is the new particle's, to the end.
            self.rest[row - 1] = seg;
            r0 -= seg;
        }
        self.rest[end - 1] = r0;
        self.shift_records(i, k as isize);
    }

    /// The mirror image of [`ParticlePool::remove_after_start`] at the end
    /// of record `i`: merges segments into its last one while that is
    /// shorter than half of `seg` and more than one segment is left.
    fn remove_before_end(&mut self, i: usize, seg: f32) {
        let (first, count) = (self.cables[i].first, self.cables[i].count);
        let last = first + count - 1;
        let mut r = self.rest[last - 1];
        let mut linked = self.row_const[last - 1].linked;
        let mut k = 0;
        while r < 0.5 * seg && count - k > 2 {
            // Remove the particle at row `last - 1 - k`: its segment
            // before merges into the last one.
            let row = last - 1 - k;
            r += self.rest[row - 1];
            linked &= self.row_const[row - 1].linked;
            k += 1;
        }
        if k == 0 {
            return;
        }
        self.rest[last - 1 - k] = r;
        self.row_const[last - 1 - k].linked = linked;
        // The merged segment is the winch's: its multiplier (the direct
        // solver's warm start, the tension read between substeps) too.
        let st = self.state.get_mut();
        st.lambda[last - 1 - k] = st.lambda[last - 1];
        let gone = last - k..last;
        self.close_rows(gone);
        self.shift_records(i, -(k as isize));
    }

    /// Merges segments into the first of record `i` while it is shorter
    /// than half of `seg` and more than one segment is left, removing the
    /// particles between them, as removing them one at a time would,
    /// moving the later rows once.
    fn remove_after_start(&mut self, i: usize, seg: f32) {
        let (first, count) = (self.cables[i].first, self.cables[i].count);
        let mut r = self.rest[first];
        let mut linked = self.row_const[first].linked;
        let mut k = 0;
        while r < 0.5 * seg && count - k > 2 {
            let row = first + 1 + k;
            r += self.rest[row];
            linked &= self.row_const[row].linked;
            k += 1;
        }
        if k == 0 {
            return;
        }
        self.rest[first] = r;
        self.row_const[first].linked = linked;
        let gone = first + 1..first + 1 + k;
        self.close_rows(gone);
        self.shift_records(i, -(k as isize));
    }
}

/// The previous position of a particle paid out at `pos`, `t` of the way
/// from the winch's particle (position `p0`, previous position `q0`) to
/// the next one (`p1`, `q1`). The rope streams off the winch: along the
/// segment the new particle moves as the next one does (an inextensible
/// rope runs at one speed along itself, which is the payout speed at the
/// winch), across it at `t` of the next one's speed relative to the
/// winch (the segment turning about the winch). A new particle at rest
/// would be jerked to the rope's speed in one substep: a rope slipping
/// off its winch at 3 m/s pulled a quarter above its tension at each
/// new particle.
fn paid_out_prev(pos: Vec3, p0: Vec3, q0: Vec3, p1: Vec3, q1: Vec3, t: f32) -> Vec3 {
    let v0 = p0 - q0;
    let u = (p1 - q1) - v0;
    let n = (p1 - p0).normalize_or_zero();
    let axial = n * u.dot(n);
    pos - (v0 + axial + (u - axial) * t)
}

#[cfg(test)]
mod tests;
