//! Sleeping and hidden cables: which cables the stepper skips.

use rayon::prelude::*;

use super::store::{ParticlePool, WAKE_MARGIN};
use crate::bvh::Aabb;
use crate::cable::CableHandle;
use crate::error::CableError;

/// Records handed to one rayon task by [`ParticlePool::update_sleep`].
const SLEEP_GRAIN: usize = 64;

impl ParticlePool {
    /// Recounts the cables that may sleep and those asleep (after a restore).
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(super) fn recount_sleep(&mut self) {
        let live = self.cables.iter().filter(|r| r.alive);
        self.sleepy = live.clone().filter(|r| r.sleepy()).count();
        self.sleeping = live.filter(|r| r.sleep.asleep).count();
    }

    /// Wakes record `i` (if asleep) and restarts its still time: something
    /// edited the cable.
    pub(super) fn wake_record(&mut self, i: usize) {
        let s = &mut self.cables[i].sleep;
        s.still = 0.0;
        if s.asleep {
            s.asleep = false;
            self.sleeping -= 1;
            self.touch();
        }
    }

    /// True when the cable sleeps ([`crate::CableParams::sleep_speed`]).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn is_asleep(&self, handle: CableHandle) -> Result<bool, CableError> {
        Ok(self.record(handle)?.sleep.asleep)
    }

    /// Number of live cables asleep.
    #[must_use]
    pub fn sleeping_count(&self) -> usize {
        self.sleeping
    }

    /// True when the stepper simulates the cable now: it is awake, and
    /// shown unless [`crate::CableParams::skip_when_hidden`] is set.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn is_active(&self, handle: CableHandle) -> Result<bool, CableError> {
        Ok(self.record(handle)?.active())
    }

    /// Wakes a sleeping cable (and restarts the time it must stay still
    /// before it sleeps again). Editing a cable through the pool wakes it
    /// too: positions, velocities, masses, parameters, a moved attachment
    /// target, a teleport, the winch, a broken segment.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn wake(&mut self, handle: CableHandle) -> Result<(), CableError> {
        let i = self.record_index(handle)?;
        self.wake_record(i);
        Ok(())
    }

    /// Tells the pool whether the engine shows the cable (all are shown
    /// until told otherwise). A hidden cable with
    /// [`crate::CableParams::skip_when_hidden`] is not simulated; it keeps
    /// its positions and velocity and resumes when shown.
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn set_visible(&mut self, handle: CableHandle, visible: bool) -> Result<(), CableError> {
        let i = self.record_index(handle)?;
        let rec = &mut self.cables[i];
        if rec.sleep.hidden != visible {
            return Ok(());
        }
        rec.sleep.hidden = !visible;
        if rec.params.skip_when_hidden {
            // The set of simulated cables changed: layouts re-plan.
            self.touch();
        }
        Ok(())
    }

    /// Whether the engine shows the cable ([`ParticlePool::set_visible`]).
    ///
    /// # Errors
    /// [`CableError::StaleHandle`] when the handle is not live.
    pub fn is_visible(&self, handle: CableHandle) -> Result<bool, CableError> {
        Ok(!self.record(handle)?.sleep.hidden)
    }

    /// Wakes every sleeping cable near a collider that was added, removed or
    /// moved since the last call ([`crate::ColliderSet::take_changes`]):
    /// its bounds, grown by its radius and [`WAKE_MARGIN`], overlap the
    /// collider's bounds before or after. The stepper calls this before
    /// each step; O(sleeping cables × changed colliders).
    pub fn wake_near_collider_changes(&mut self) {
        let mut woke = 0;
        let cables = &mut self.cables;
        let sleeping = self.sleeping;
        self.colliders.take_changes(|region| {
            if sleeping == woke {
                return;
            }
            for rec in cables.iter_mut() {
                if rec.alive && rec.sleep.asleep && rec.sleep.bounds.overlaps(region) {
                    rec.sleep.asleep = false;
                    rec.sleep.still = 0.0;
                    woke += 1;
                }
            }
        });
        if woke > 0 {
            self.sleeping -= woke;
            self.touch();
        }
    }

    /// Puts still cables to sleep, after a step of `elapsed` seconds whose
    /// substep was `substep` seconds: a simulated cable whose particles all
    /// moved less than `sleep_speed · substep` over the last substep has
    /// been still for `elapsed` more seconds (any faster particle restarts
    /// the count); after `sleep_delay` seconds it sleeps, with its velocity
    /// set to zero. The stepper calls this after each step. O(particles of
    /// the cables that may sleep), in parallel; free when none may.
    pub fn update_sleep(&mut self, elapsed: f32, substep: f32) {
        if self.sleepy == 0 {
            return;
        }
        let st = self.state.get_mut();
        let (pos, prev) = (&st.pos, &st.prev);
        let fell = self
            .cables
            .par_iter_mut()
            .with_min_len(SLEEP_GRAIN)
            .map(|rec| {
                if !rec.sleepy() || !rec.active() {
                    return 0usize;
                }
                let rows = rec.first..rec.first + rec.count;
                let limit = rec.params.sleep_speed * substep;
                let limit2 = limit * limit;
                let still = pos[rows.clone()]
                    .iter()
                    .zip(&prev[rows.clone()])
                    .all(|(p, q)| (*p - *q).length_squared() < limit2);
                if !still {
                    rec.sleep.still = 0.0;
                    return 0;
                }
                rec.sleep.still += elapsed;
                if rec.sleep.still < rec.params.sleep_delay {
                    return 0;
                }
                rec.sleep.asleep = true;
                rec.sleep.bounds =
                    Aabb::of_points(&pos[rows]).expand(rec.params.radius + WAKE_MARGIN);
                1
            })
            .sum::<usize>();
        if fell == 0 {
            return;
        }
        self.sleeping += fell;
        // Asleep means at rest: no velocity to resume with when woken.
        for rec in &self.cables {
            if rec.alive && rec.sleep.asleep {
                let rows = rec.first..rec.first + rec.count;
                let st = self.state.get_mut();
                st.prev[rows.clone()].copy_from_slice(&st.pos[rows.clone()]);
                self.state.get_mut().carry[rows.clone()].fill(glam::Vec3::ZERO);
                self.state.get_mut().carry_prev[rows].fill(glam::Vec3::ZERO);
            }
        }
        self.touch();
    }
}
