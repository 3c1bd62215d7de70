//! Measuring contact forces on a [`ColliderSet`]: switching it on, the
//! solver's additions, the stepper's bookkeeping and the reported
//! [`ContactForce`] (the sums themselves are `forces.rs`); and tracking
//! which cable touches which collider (the log is `touches.rs`).

use std::sync::atomic::Ordering;

use glam::Vec3;

use super::forces::{ContactForce, UNITS, fixed};
use super::{ColliderHandle, ColliderSet, WorldCollider};
use crate::error::CableError;
use crate::handle::CableHandle;

impl ColliderSet {
    /// Turns contact force measurement on or off (off by default). While
    /// it is on, every step sums what the cables push on each collider
    /// ([`ColliderSet::contact_force`]); that costs some time in the
    /// contact passes of cables near colliders, and nothing elsewhere.
    /// Turning it on or off changes no cable's motion.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, Collider, ParticlePool};
    /// use glam::Vec3;
    ///
    /// let mut pool = ParticlePool::new();
    /// let rod = pool.colliders_mut().add(Collider::capsule(Vec3::new(0.0, 0.0, -1.0), Vec3::new(0.0, 0.0, 1.0), 0.05)?);
    /// pool.colliders_mut().set_measure_forces(true);
    /// // ... step the pool (`cable_systems::Stepper::advance`), then:
    /// let f = pool.colliders().contact_force(rod)?;
    /// assert_eq!(f.force, Vec3::ZERO); // nothing stepped yet
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn set_measure_forces(&mut self, on: bool) {
        self.forces.on = on;
        if !on {
            self.forces.sums.clear();
            self.forces.substeps = 0;
        }
    }

    /// Whether contact forces are measured ([`ColliderSet::set_measure_forces`]).
    #[inline]
    #[must_use]
    pub fn measures_forces(&self) -> bool {
        self.forces.on
    }

    /// The force and torque the cables exerted on collider `h`, averaged
    /// over the substeps of the last step that ran any (contact and
    /// friction together; the opposite of what the collider did to the
    /// cables). Zero when forces are not measured
    /// ([`ColliderSet::set_measure_forces`]) or no cable touched it. A
    /// sleeping cable runs no contact, so what it rests on is not counted
    /// while it sleeps.
    ///
    /// Exact to 2⁻¹⁶ N (N·m) per cable and substep, and the same bit for
    /// bit whatever the layout and thread count.
    ///
    /// # Errors
    /// [`CableError::StaleCollider`] when `h` is not a live collider of
    /// this set.
    pub fn contact_force(&self, h: ColliderHandle) -> Result<ContactForce, CableError> {
        self.entry(h)?;
        let m = &self.forces;
        let Some(s) = m.sums.get(h.index as usize) else {
            return Ok(ContactForce::default());
        };
        if m.substeps == 0 {
            return Ok(ContactForce::default());
        }
        let per = 1.0 / (UNITS * m.substeps as f64);
        let at = |j: usize| (s[j].load(Ordering::Relaxed) as f64 * per) as f32;
        Ok(ContactForce {
            force: Vec3::new(at(0), at(1), at(2)),
            torque: Vec3::new(at(3), at(4), at(5)),
        })
    }

    /// Starts a step's measurement: the sums go back to zero (the stepper
    /// calls this before a step that runs substeps, when forces are
    /// measured). Sizes the sums for every collider slot.
    pub fn clear_contact_forces(&mut self) {
        let m = &mut self.forces;
        if !m.on {
            return;
        }
        m.substeps = 0;
        for s in &mut m.sums {
            for v in s.iter_mut() {
                *v.get_mut() = 0;
            }
        }
        let slots = self.slots.len();
        m.sums.resize_with(slots, Default::default);
    }

    /// Counts `n` more substeps in the measurement: the averages of
    /// [`ColliderSet::contact_force`] divide by the substeps counted since
    /// [`ColliderSet::clear_contact_forces`] (the stepper counts the
    /// substeps it runs).
    pub fn count_force_substeps(&mut self, n: u32) {
        if self.forces.on {
            self.forces.substeps += u64::from(n);
        }
    }

    /// Adds one contact load on prepared collider `col` to the sums: the
    /// solver calls this at the end of each substep with each cable's
    /// total force (N) and torque about the collider's position (N·m) on
    /// it. Ignored when forces are not measured or the collider's slot is
    /// newer than the last [`ColliderSet::clear_contact_forces`].
    /// Thread-safe and order-free: the sums are integers.
    pub fn add_contact_load(&self, col: &WorldCollider, force: Vec3, torque: Vec3) {
        let m = &self.forces;
        if !m.on {
            return;
        }
        let Some(s) = m.sums.get(col.handle.index() as usize) else {
            return;
        };
        for (j, v) in force
            .to_array()
            .into_iter()
            .chain(torque.to_array())
            .enumerate()
        {
            let q = fixed(v);
            if q != 0 {
                // Wrapping: reaching it takes 2^17 additions at the clamp.
                s[j].fetch_add(q, Ordering::Relaxed);
            }
        }
    }

    /// Turns contact tracking on or off (off by default). While it is on,
    /// each step records which cable touched which collider: a pair
    /// touches during a step when a contact pushed one of the cable's
    /// particles or segments out of the collider (or kept it from passing
    /// through) in at least one substep. `cable_systems::Stepper` turns
    /// the record into begin and end events (`Stepper::contact_events`).
    /// Costs some time in the contact passes of cables near colliders, and
    /// nothing elsewhere; changes no cable's motion.
    ///
    /// # Example
    /// ```
    /// use cable_core::ParticlePool;
    ///
    /// let mut pool = ParticlePool::new();
    /// pool.colliders_mut().set_track_contacts(true);
    /// assert!(pool.colliders().tracks_contacts());
    /// ```
    pub fn set_track_contacts(&mut self, on: bool) {
        self.touches.on = on;
        if !on {
            self.touches.pairs_mut().clear();
        }
    }

    /// Whether contacts are tracked ([`ColliderSet::set_track_contacts`]).
    #[inline]
    #[must_use]
    pub fn tracks_contacts(&self) -> bool {
        self.touches.on
    }

    /// Records that cable `.0` touched collider `.1` during this step,
    /// for each pair of `pairs` (the solver calls this once per block and
    /// step, from any thread). Ignored when contacts are not tracked.
    pub fn add_contacts(&self, pairs: impl IntoIterator<Item = (CableHandle, ColliderHandle)>) {
        if !self.touches.on {
            return;
        }
        let mut log = self
            .touches
            .pairs
            .lock()
            // A list of pairs is valid whatever panicked while it was held.
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        log.extend(pairs);
    }

    /// Moves the pairs recorded since the last call into `out` (cleared
    /// first), unsorted and possibly repeated; the log is left empty with
    /// its capacity. The stepper calls this after each step.
    pub fn take_contacts(&mut self, out: &mut Vec<(CableHandle, ColliderHandle)>) {
        out.clear();
        out.append(self.touches.pairs_mut());
    }

    /// Forgets the pairs recorded so far (the stepper calls this before a
    /// step that runs substeps).
    pub fn clear_contacts(&mut self) {
        self.touches.pairs_mut().clear();
    }
}
