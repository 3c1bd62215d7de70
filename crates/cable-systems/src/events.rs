//! Contact events: when a cable starts and stops touching a collider.
//!
//! While the colliders track contacts
//! ([`cable_core::ColliderSet::set_track_contacts`]), the kernel records
//! every (cable, collider) pair whose contact pushed the cable in some
//! substep of a step. After each step that ran substeps, the [`Stepper`]
//! sorts that record into the pairs touching now
//! ([`Stepper::touching`]) and compares them with the step before: a pair
//! new to the list [`ContactKind::Began`], a pair gone from it
//! [`ContactKind::Ended`] ([`Stepper::contact_events`]).
//!
//! A cable that did not run (asleep, or inactive) keeps the pairs it had,
//! so a rope that falls asleep on the ground does not end its contact;
//! a removed cable or collider ends its pairs at the next step. Pairs and
//! events are sorted by cable handle, then collider handle: the same
//! whatever the layout and thread count.
//!
//! [`Stepper`]: crate::Stepper
//! [`Stepper::touching`]: crate::Stepper::touching
//! [`Stepper::contact_events`]: crate::Stepper::contact_events

use cable_core::{CableHandle, ColliderHandle, ParticlePool};

/// Whether a cable–collider contact began or ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ContactKind {
    /// The pair touches in this step and did not in the last one.
    Began,
    /// The pair touched in the last step and does not in this one (or
    /// the cable or the collider was removed).
    Ended,
}

/// A cable started or stopped touching a collider during the last step
/// ([`crate::Stepper::contact_events`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ContactEvent {
    /// The cable.
    pub cable: CableHandle,
    /// The collider.
    pub collider: ColliderHandle,
    /// Began or ended.
    pub kind: ContactKind,
}

/// The stepper's contact bookkeeping: the pairs touching after the last
/// step that ran substeps, and that step's events. Buffers are reused: a
/// warmed-up step allocates nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct ContactTracker {
    /// Sorted, without repeats.
    pub(crate) touching: Vec<(CableHandle, ColliderHandle)>,
    pub(crate) events: Vec<ContactEvent>,
    fresh: Vec<(CableHandle, ColliderHandle)>,
}

impl ContactTracker {
    /// Before a step of `n` substeps: the record starts again.
    pub(crate) fn start(pool: &mut ParticlePool, n: u32) {
        if n > 0 && pool.colliders().tracks_contacts() {
            pool.colliders_mut().clear_contacts();
        }
    }

    /// After a step of `n` substeps: the new pairs and the events.
    pub(crate) fn finish(&mut self, pool: &mut ParticlePool, n: u32) {
        self.events.clear();
        if !pool.colliders().tracks_contacts() {
            self.touching.clear();
            return;
        }
        if n == 0 {
            // Nothing ran: nothing changed.
            return;
        }
        pool.colliders_mut().take_contacts(&mut self.fresh);
        // Cables that did not run keep their pairs with live colliders.
        let colliders = pool.colliders();
        self.fresh
            .extend(self.touching.iter().copied().filter(|&(c, k)| {
                pool.is_active(c).is_ok_and(|active| !active) && colliders.contains(k)
            }));
        self.fresh.sort_unstable();
        self.fresh.dedup();
        // Both lists are sorted: one merge gives the differences in order.
        let (old, new) = (&self.touching, &self.fresh);
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < new.len() {
            let kind = match (old.get(i), new.get(j)) {
                (Some(a), Some(b)) if a == b => {
                    i += 1;
                    j += 1;
                    continue;
                }
                (Some(a), Some(b)) if a < b => ContactKind::Ended,
                (Some(_), None) => ContactKind::Ended,
                _ => ContactKind::Began,
            };
            let (cable, collider) = if kind == ContactKind::Ended {
                i += 1;
                old[i - 1]
            } else {
                j += 1;
                new[j - 1]
            };
            self.events.push(ContactEvent {
                cable,
                collider,
                kind,
            });
        }
        std::mem::swap(&mut self.touching, &mut self.fresh);
    }
}
