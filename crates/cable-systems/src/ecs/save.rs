//! Save and restore of a [`CableWorld`] (feature `serde`).
//!
//! The entities are the game's: the layer saves only what it owns — the
//! pool, the stepper, and per cable the state of its two ends carried from
//! frame to frame (the last target, its last motion, the followed
//! entity's last rotation), keyed by the cable's handle. The game saves
//! its own entities with their [`CableBody`] and [`ColliderBody`]
//! components (both serialise: a handle each) and, after loading them,
//! calls [`CableWorld::restore`], which links every entity whose body
//! names a restored cable or collider back to it.

use std::collections::{HashMap, HashSet};
use std::io;

use cable_core::error::{check_rotation, check_vec3};
use cable_core::{CableError, CableHandle, ColliderHandle, End, ParticlePool};
use hecs::{Entity, World};
use serde::{Deserialize, Serialize};

use super::components::{
    AttachTarget, CableAttachments, CableBody, CableSpec, CableWinch, ColliderBody, ColliderSpec,
};
use super::targets::{EndState, Tracked};
use super::world::CableWorld;
use crate::save::{SaveError, SimulationState};
use crate::step::Stepper;

/// The ends of one cable, as saved.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedEnds {
    handle: CableHandle,
    ends: [EndState; 2],
}

/// Everything a [`CableWorld`] owns, for a save: the simulation (pool and
/// stepper) and the state of each cable's ends. Serialises as
/// `{"simulation": {"format": "cable-save", ...}, "ends": [...]}`;
/// deserialising validates the simulation ([`SimulationState`]) and the
/// ends. Made by [`CableWorld::state`], used by [`CableWorld::restore`];
/// [`CableWorld::save_state`] and [`CableWorld::restore_state`] do both
/// with JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CableWorldState {
    /// The pool and the stepper.
    pub simulation: SimulationState,
    ends: Vec<SavedEnds>,
}

/// The same layout, borrowed, for [`CableWorld::save_state`].
#[derive(Serialize)]
#[serde(rename = "CableWorldState")]
struct StateRef<'a> {
    simulation: SimulationRef<'a>,
    ends: Vec<SavedEnds>,
}

struct SimulationRef<'a>(&'a ParticlePool, &'a Stepper);

impl Serialize for SimulationRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::save::serialize_parts(s, self.0, self.1)
    }
}

/// What [`CableWorld::restore`] could not link: cables and colliders of
/// the save that no entity's body names (removed from the pool: their
/// entities are gone), and entities whose body names nothing restored
/// (their body was removed, so the next step builds them anew from their
/// spec).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RestoreReport {
    /// Saved cables no entity named; removed.
    pub orphan_cables: Vec<CableHandle>,
    /// Saved colliders no entity named; removed.
    pub orphan_colliders: Vec<ColliderHandle>,
    /// Entities whose [`CableBody`] or [`ColliderBody`] named no restored
    /// cable or collider (or one another entity had claimed first).
    pub rebuilt: Vec<Entity>,
}

impl EndState {
    fn check(&self, place: &str) -> Result<(), CableError> {
        let bad = |e: CableError| CableError::InvalidState {
            place: place.to_owned(),
            reason: e.to_string(),
        };
        if let Some(t) = self.target {
            check_vec3("target", t).map_err(bad)?;
        }
        check_vec3("last_move", self.last_move).map_err(bad)?;
        check_rotation("rotation", self.rotation).map_err(bad)?;
        Ok(())
    }
}

impl<S: super::TransformSource> CableWorld<S> {
    fn saved_ends(&self) -> Vec<SavedEnds> {
        self.tracked
            .iter()
            .map(|t| SavedEnds {
                handle: t.handle,
                ends: t.ends,
            })
            .collect()
    }

    /// A copy of everything this layer owns (pool, stepper, end states),
    /// to serialise in a format of the game's choice. O(particles) (the
    /// pool is copied); [`CableWorld::save_state`] writes JSON without the
    /// copy. Call it between steps.
    #[must_use]
    pub fn state(&self) -> CableWorldState {
        CableWorldState {
            simulation: SimulationState {
                pool: self.pool.clone(),
                stepper: self.stepper.clone(),
            },
            ends: self.saved_ends(),
        }
    }

    /// Writes [`CableWorld::state`] as JSON into `writer`, without copying
    /// the pool. The entities are not in it: save them (with their
    /// [`CableBody`] and [`ColliderBody`]) with the rest of the game.
    ///
    /// # Errors
    /// As [`crate::save::save_state`].
    pub fn save_state<W: io::Write>(&self, writer: W) -> Result<(), SaveError> {
        // As the restore checks: a cable the substep cannot step is refused
        // here, not when the save is read.
        crate::bind::check_savable(&self.pool, &self.stepper)?;
        let state = StateRef {
            simulation: SimulationRef(&self.pool, &self.stepper),
            ends: self.saved_ends(),
        };
        serde_json::to_writer(writer, &state)?;
        Ok(())
    }

    /// Reads a state written by [`CableWorld::save_state`] and restores it
    /// as [`CableWorld::restore`] does.
    ///
    /// # Errors
    /// As [`crate::save::restore_state`]; [`SaveError::Invalid`] for an end
    /// state out of range.
    pub fn restore_state<R: io::Read>(
        &mut self,
        reader: R,
        world: &mut World,
    ) -> Result<RestoreReport, SaveError> {
        let mut de = serde_json::Deserializer::from_reader(reader);
        let state: CableWorldState = serde_path_to_error::deserialize(&mut de)?;
        de.end()?;
        Ok(self.restore(state, world)?)
    }

    /// Replaces the simulation by a saved `state` and links the game's
    /// entities to it again: each entity with a [`CableSpec`] and a
    /// [`CableBody`] naming a restored cable gets that cable (and its ends'
    /// saved state), each with a [`ColliderSpec`] and a [`ColliderBody`]
    /// naming a restored collider gets that collider. Call it after the
    /// game loaded its entities, before the next step. The stepper is the
    /// saved one (its parameters replace this world's); the transform
    /// source is kept.
    ///
    /// Saved cables and colliders no entity names are removed; an entity
    /// whose body names nothing restored loses the body, so the next step
    /// builds it anew from its spec (both listed in the report). With every
    /// entity linked, the next steps are bitwise those the saved world
    /// would have run.
    ///
    /// # Errors
    /// [`CableError::InvalidState`] for a saved end state out of range
    /// (nothing is changed).
    pub fn restore(
        &mut self,
        state: CableWorldState,
        world: &mut World,
    ) -> Result<RestoreReport, CableError> {
        for (k, saved) in state.ends.iter().enumerate() {
            for (e, end) in saved.ends.iter().enumerate() {
                end.check(&format!("ends[{k}].ends[{e}]"))?;
            }
        }
        let (pool, stepper) = state.simulation.into_parts();
        self.pool = pool;
        self.stepper = stepper;
        self.tracked.clear();
        self.colliders.clear();
        self.report.clear();
        // A new pool: the next step checks it all.
        self.synced_revision = None;
        self.teleports_at = None;
        let mut report = RestoreReport::default();
        let ends: HashMap<CableHandle, [EndState; 2]> =
            state.ends.iter().map(|s| (s.handle, s.ends)).collect();
        let mut linked = HashSet::new();
        for (entity, body, att, winch) in world
            .query_mut::<(
                Entity,
                &CableBody,
                Option<&CableAttachments>,
                Option<&CableWinch>,
            )>()
            .with::<&CableSpec>()
        {
            if !(self.pool.contains(body.handle) && linked.insert(body.handle)) {
                report.rebuilt.push(entity);
                continue;
            }
            let mut ends = ends.get(&body.handle).copied().unwrap_or_default();
            // The entities the ends follow, as the game restored them.
            for end in [End::Start, End::End] {
                if let (Some(att), Some(_)) = (att, ends[end.slot()].target)
                    && let AttachTarget::Entity { entity, .. } = att.get(end)
                {
                    ends[end.slot()].followed = Some(entity);
                }
            }
            // The saved parameters already hold the winch the entity's
            // component set: applying it again would re-aim it from the
            // restored length.
            self.tracked
                .push(Tracked::new(entity, body.handle, ends, winch.copied()));
        }
        let mut kept = HashSet::new();
        for (entity, body) in world
            .query_mut::<(Entity, &ColliderBody)>()
            .with::<&ColliderSpec>()
        {
            if self.pool.colliders().contains(body.handle) && kept.insert(body.handle) {
                self.colliders.push((entity, body.handle));
            } else {
                report.rebuilt.push(entity);
            }
        }
        for &entity in &report.rebuilt {
            // Bodies naming nothing restored: the next step builds anew.
            let _ = world.remove_one::<CableBody>(entity);
            let _ = world.remove_one::<ColliderBody>(entity);
        }
        report.orphan_cables = self
            .pool
            .handles()
            .filter(|h| !linked.contains(h))
            .collect();
        for &h in &report.orphan_cables {
            // Live: just listed from the pool.
            let _ = self.pool.remove_cable(h);
        }
        let set = self.pool.colliders_mut();
        report.orphan_colliders = set.handles().filter(|h| !kept.contains(h)).collect();
        for &h in &report.orphan_colliders {
            let _ = set.remove(h);
        }
        self.reindex();
        Ok(report)
    }
}
