//! Attached ends: where each end is held and moving those targets.

use glam::Vec3;

use crate::cable::{CableHandle, End};
use crate::error::{CableError, check_vec3};

use super::store::{ParticlePool, end_offset};

impl ParticlePool {
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
    /// [`CableParams::teleport_distance`](crate::CableParams::teleport_distance) teleports the cable with it
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
            self.revisions.targets();
        }
        refused
    }

    /// [`ParticlePool::set_attachment`] of record `i` (live), without the
    /// teleport check.
    pub(super) fn attach_end(&mut self, i: usize, end: End, target: Option<Vec3>) {
        if self.cables[i].attach[end.slot()] != target {
            self.wake_record(i);
        }
        if self.cables[i].attach[end.slot()].is_some() && target.is_some() {
            // Only a target moves: layouts refresh their targets, not their copies.
            self.revisions.targets();
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
}
