//! The layer itself: `CableWorld`, the pool and stepper beside a hecs
//! world, and its step.

use cable_core::{CableError, CableHandle, ColliderHandle, End, ParticlePool};
use hecs::{Entity, World};

use super::{
    components::{
        AttachTarget, CableAttachments, CableBody, CableHidden, CableParticles, CableRejected,
        CableSpec, CableWinch, ColliderBody, ColliderForce, ColliderSpec, OwnTransform,
        TransformSource,
    },
    report::{BadBody, EntityContact, StepReport},
    targets::{Ends, Motion, Tracked},
};
use crate::bind;
use crate::params::SolverParams;
use crate::step::Stepper;
use crate::trace::span;

/// The cable simulation of a hecs [`World`]: owns the [`ParticlePool`] and
/// the [`Stepper`], and syncs entities into them. See the [module
/// docs](crate::ecs) for the order of a step.
#[derive(Debug)]
pub struct CableWorld<S = OwnTransform> {
    pub(super) pool: ParticlePool,
    pub(super) stepper: Stepper,
    pub(super) source: S,
    pub(super) tracked: Vec<Tracked>,
    /// Per pool cable slot (`CableHandle::index`): its index in `tracked`.
    pub(super) by_slot: Vec<u32>,
    /// Per tracked cable: its entity was found this frame.
    pub(super) seen: Vec<bool>,
    pub(super) colliders: Vec<(Entity, ColliderHandle)>,
    pub(super) new_colliders: Vec<(Entity, ColliderHandle)>,
    pub(super) spawned: Vec<(Entity, Result<CableHandle, CableError>)>,
    pub(super) motions: Vec<Motion>,
    pub(super) freed: Vec<(Entity, End)>,
    /// Scratch: tracked cables or colliders found removed from the pool.
    pub(super) lost: Vec<Entity>,
    /// Scratch: cable entities whose [`CableBody`] names no cable of
    /// theirs, with the handle it names.
    pub(super) strays: Vec<(Entity, CableHandle)>,
    pub(super) report: StepReport,
    /// [`ParticlePool::revision`] at the end of the last step (`None`
    /// after an error or a restore). While the pool still has it, nothing
    /// changed the pool behind the layer's back: no tracked cable was
    /// removed and no free end attached, so a step skips those checks.
    pub(super) synced_revision: Option<u64>,
    /// [`ParticlePool::params_revision`] at which the `teleports` flags of
    /// `tracked` were read from the pool.
    pub(super) teleports_at: Option<u64>,
}

impl CableWorld<OwnTransform> {
    /// A cable world reading targets' [`Transform`](crate::ecs::Transform) components.
    ///
    /// # Errors
    /// A solver parameter out of range.
    pub fn new(params: SolverParams) -> Result<Self, CableError> {
        Self::with_source(params, OwnTransform)
    }
}

impl<S: TransformSource> CableWorld<S> {
    /// A cable world reading targets' transforms through `source`.
    ///
    /// # Errors
    /// A solver parameter out of range.
    pub fn with_source(params: SolverParams, source: S) -> Result<Self, CableError> {
        Ok(Self {
            pool: ParticlePool::new(),
            stepper: Stepper::new(params)?,
            source,
            tracked: Vec::new(),
            by_slot: Vec::new(),
            seen: Vec::new(),
            colliders: Vec::new(),
            new_colliders: Vec::new(),
            spawned: Vec::new(),
            motions: Vec::new(),
            freed: Vec::new(),
            lost: Vec::new(),
            strays: Vec::new(),
            report: StepReport::default(),
            synced_revision: None,
            teleports_at: None,
        })
    }

    /// The particle pool (read the particles of a [`CableBody`] here without copying).
    #[must_use]
    pub fn pool(&self) -> &ParticlePool {
        &self.pool
    }

    /// The particle pool, mutably (for pool-level edits such as teleports).
    ///
    /// Removing a tracked cable or collider here does not end it: the next
    /// step rebuilds it from its entity's spec and reports it
    /// ([`StepReport::lost_cables`], [`StepReport::lost_colliders`]);
    /// despawn the entity or remove its spec instead.
    pub fn pool_mut(&mut self) -> &mut ParticlePool {
        &mut self.pool
    }

    /// What the last [`CableWorld::step`] refused or repaired: bad
    /// attachment targets and collider transforms (kept at their last good
    /// value), and cables or colliders removed from the pool behind the
    /// ECS's back (rebuilt). Empty when all went well.
    ///
    /// # Example
    /// ```
    /// use cable_core::CableDesc;
    /// use cable_systems::ecs::{AttachTarget, CableAttachments, CableSpec, CableWorld};
    /// use cable_systems::SolverParams;
    /// use glam::Vec3;
    ///
    /// let mut world = hecs::World::new();
    /// let desc = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?;
    /// let start = AttachTarget::Point(Vec3::new(f32::NAN, 0.0, 0.0));
    /// let rope = world.spawn((
    ///     CableSpec::new(desc),
    ///     CableAttachments { start, end: AttachTarget::Free },
    /// ));
    /// let mut cables = CableWorld::new(SolverParams::default())?;
    /// cables.step(&mut world, 1.0 / 60.0)?;
    /// let bad = &cables.report().bad_targets[0];
    /// assert_eq!(bad.entity, rope);
    /// assert!(bad.error.to_string().starts_with("point:"));
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[must_use]
    pub fn report(&self) -> &StepReport {
        &self.report
    }

    /// The stepper (parameters, simulated time).
    #[must_use]
    pub fn stepper(&self) -> &Stepper {
        &self.stepper
    }

    /// Advances the world by a frame of `dt` seconds; returns the substeps
    /// run. What it refused or repaired on the way is in
    /// [`CableWorld::report`].
    ///
    /// A cable that no longer fits the substep (after
    /// [`CableWorld::set_params`] or an edit through
    /// [`CableWorld::pool_mut`]; specs are checked when spawned) is taken
    /// out alone and the others step: see [`StepReport::rejected`] and
    /// [`StepReport::dropped`].
    ///
    /// # Errors
    /// `dt` negative or not finite, or the pool refused by
    /// [`Stepper::validate_pool`] for a reason no single cable explains;
    /// no substep runs. A winch stopped at the particle budget is no error
    /// here: the frame ran, and it is in [`StepReport::stalled_winches`].
    pub fn step(&mut self, world: &mut World, dt: f32) -> Result<u32, CableError> {
        span!("cable.ecs.step");
        self.report.clear();
        if self.stepper.validate_pool(&self.pool).is_err() {
            self.take_out_refused(world);
        }
        self.sync(world);
        // Contact forces are measured while some collider entity reads them.
        if !self.pool.colliders().measures_forces()
            && world
                .query_mut::<&ColliderForce>()
                .into_iter()
                .next()
                .is_some()
        {
            self.pool.colliders_mut().set_measure_forces(true);
        }
        let before = self.stepper.substeps_run();
        let motions = &self.motions;
        let advanced = if motions.is_empty() {
            // Nothing to interpolate: the layout runs the frame in one batch.
            self.stepper.advance(&mut self.pool, dt)
        } else {
            self.stepper.advance_with(&mut self.pool, dt, |pool, k, n| {
                let t = (k + 1) as f32 / n as f32;
                // The handles are live (checked this frame) and the targets
                // finite (resolved from finite transforms), so none is
                // refused; one batch, as `set_attachment` for each.
                let _ = pool.set_attachment_targets(
                    motions
                        .iter()
                        .map(|m| (m.handle, m.end, m.from.lerp(m.to, t))),
                );
            })
        };
        let n = match advanced {
            Ok(n) => n,
            // The frame ran in full; the winches that stopped are reported
            // below. At most `max_substeps` substeps: fits a u32.
            Err(CableError::WinchBudget { .. }) => {
                u32::try_from(self.stepper.substeps_run() - before).unwrap_or(u32::MAX)
            }
            Err(e) => {
                // No substep ran: the moving ends keep their last move.
                for m in &self.motions {
                    self.tracked[m.tracked].ends[m.end.slot()].last_move = m.last_move;
                }
                return Err(e);
            }
        };
        // The moving ends hold `to - from`, their move over one substep
        // (exact: x / 1 is x); only other substep counts revisit them.
        if n != 1 {
            for m in &self.motions {
                let state = &mut self.tracked[m.tracked].ends[m.end.slot()];
                if n > 0 {
                    state.last_move = (m.to - m.from) / n as f32;
                } else {
                    // No substep ran: the end is still at `from`; move it next frame.
                    state.last_move = m.last_move;
                    state.target = Some(m.from);
                }
            }
        }
        for &(handle, segment) in self.stepper.torn() {
            if let Some(t) = self.tracked_of(handle) {
                self.report.torn.push((t.entity, segment));
            }
        }
        for (cable, e) in bind::stalled_winches(&self.stepper) {
            if let Some(t) = self.tracked_of(cable) {
                self.report.stalled_winches.push((t.entity, e.clone()));
            }
        }
        for e in self.stepper.contact_events() {
            let collider = self.colliders.iter().find(|c| c.1 == e.collider);
            if let (Some(t), Some(&(collider, _))) = (self.tracked_of(e.cable), collider) {
                self.report.contacts.push(EntityContact {
                    cable: t.entity,
                    collider,
                    kind: e.kind,
                });
            }
        }
        self.write_back(world);
        self.synced_revision = Some(self.pool.revision());
        Ok(n)
    }

    /// Turns contact tracking on or off (off by default): while on, each
    /// step lists the contacts between cable and collider entities that
    /// began or ended in [`StepReport::contacts`]. Costs some time in the
    /// contact passes of cables near colliders; changes no motion.
    ///
    /// # Example
    /// ```
    /// use cable_systems::ecs::CableWorld;
    /// use cable_systems::SolverParams;
    ///
    /// let mut cables = CableWorld::new(SolverParams::default())?;
    /// cables.set_track_contacts(true);
    /// assert!(cables.pool().colliders().tracks_contacts());
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn set_track_contacts(&mut self, on: bool) {
        self.pool.colliders_mut().set_track_contacts(on);
    }

    /// Replaces the solver parameters (gravity, substep, iterations,
    /// damping, friction…) at run time, after validating them; the cables
    /// and the accumulator are kept. The next step checks every cable
    /// against a changed substep.
    ///
    /// # Errors
    /// A parameter out of range (the old parameters stay).
    ///
    /// # Example
    /// ```
    /// use cable_systems::ecs::CableWorld;
    /// use cable_systems::SolverParams;
    /// use glam::Vec3;
    ///
    /// let mut cables = CableWorld::new(SolverParams::default())?;
    /// let moon = SolverParams { gravity: Vec3::new(0.0, -1.62, 0.0), ..*cables.stepper().params() };
    /// cables.set_params(moon)?;
    /// assert_eq!(cables.stepper().params().gravity.y, -1.62);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), CableError> {
        self.stepper.set_params(params)
    }

    /// The tracked cable of a live pool handle.
    pub(super) fn tracked_of(&self, handle: CableHandle) -> Option<&Tracked> {
        let ti = *self.by_slot.get(handle.index() as usize)? as usize;
        self.tracked.get(ti).filter(|t| t.handle == handle)
    }

    /// Takes the cables that no longer fit the substep (parameters
    /// replaced with [`CableWorld::set_params`], or a cable changed through
    /// [`CableWorld::pool_mut`]) out of the pool alone, before anything
    /// else this step ([`bind::take_refused`], as the Bevy plugin does), so
    /// the others step: an entity's cable leaves its entity with a
    /// [`CableRejected`] in place of its [`CableBody`] and empty
    /// [`CableParticles`] ([`StepReport::rejected`]); a pool cable no
    /// entity owns is removed ([`StepReport::dropped`]).
    fn take_out_refused(&mut self, world: &mut World) {
        let refused = bind::take_refused(&mut self.pool, self.stepper.params().substep);
        if refused.is_empty() {
            return;
        }
        for (handle, error) in refused {
            match self.tracked_of(handle).map(|t| t.entity) {
                Some(entity) => {
                    let _ = world.remove_one::<CableBody>(entity);
                    let _ = world.insert(
                        entity,
                        (CableRejected(error.clone()), CableParticles::default()),
                    );
                    self.report.rejected.push((entity, error));
                }
                None => self.report.dropped.push((handle, error)),
            }
        }
        let pool = &self.pool;
        self.tracked.retain(|t| pool.contains(t.handle));
        self.reindex();
    }

    /// The phases before the step: entities to pool.
    pub(super) fn sync(&mut self, world: &mut World) {
        span!("cable.ecs.sync");
        // Nothing changed the pool since the last step ended: every tracked
        // cable is still in it, and no free end was attached behind our back.
        let untouched = self.synced_revision.take() == Some(self.pool.revision());
        if !untouched {
            self.drop_lost_cables(world);
        }
        self.spawn_cables(world);
        self.read_teleport_flags();
        self.sync_colliders(world);
        self.sync_cables(world, untouched);
    }

    /// Reads which tracked cables have a teleport threshold, when cable
    /// parameters changed since the last read (O(1) otherwise).
    pub(super) fn read_teleport_flags(&mut self) {
        let revision = self.pool.params_revision();
        if self.teleports_at == Some(revision) {
            return;
        }
        for t in &mut self.tracked {
            t.teleports = self
                .pool
                .params(t.handle)
                .is_ok_and(|p| p.teleport_distance.is_some() || p.teleport_rotation.is_some());
        }
        self.teleports_at = Some(revision);
    }

    pub(super) fn spawn_cables(&mut self, world: &mut World) {
        span!("cable.ecs.spawn");
        self.spawned.clear();
        let substep = self.stepper.params().substep;
        for (entity, spec) in world
            .query::<(Entity, &CableSpec)>()
            .without::<hecs::Or<&CableBody, &CableRejected>>()
            .iter()
        {
            let result = bind::spawn_cable(&mut self.pool, &spec.desc, &spec.masses, substep);
            self.spawned.push((entity, result));
        }
        let mut added = false;
        for (entity, result) in self.spawned.drain(..) {
            match result {
                Ok(handle) => {
                    // The entity was yielded by the query above and nothing despawned it since.
                    let _ = world.insert_one(entity, CableBody { handle });
                    self.tracked
                        .push(Tracked::new(entity, handle, Default::default(), None));
                    // Read by `read_teleport_flags` (adding the cable changed the
                    // parameters revision).
                    self.teleports_at = None;
                    added = true;
                }
                Err(e) => {
                    self.report.refused_specs.push((entity, e.clone()));
                    let _ = world.insert_one(entity, CableRejected(e));
                }
            }
        }
        if added {
            self.reindex();
        }
    }

    /// Forgets tracked cables that were removed from the pool behind the
    /// ECS's back and takes their dead [`CableBody`] away, so that
    /// `spawn_cables` rebuilds them from their spec. One
    /// O(1) slot check per cable; entity look-ups only for lost ones. Only
    /// called when the pool changed since the last step.
    pub(super) fn drop_lost_cables(&mut self, world: &mut World) {
        let pool = &self.pool;
        if self.tracked.iter().all(|t| pool.contains(t.handle)) {
            return;
        }
        let lost = &mut self.spawned;
        lost.clear();
        self.tracked.retain(|t| {
            let keep = pool.contains(t.handle);
            if !keep {
                lost.push((t.entity, Ok(t.handle)));
            }
            keep
        });
        for (entity, handle) in self.spawned.drain(..) {
            let dead = world
                .get::<&CableBody>(entity)
                .is_ok_and(|b| Ok(b.handle) == handle);
            if dead {
                let _ = world.remove_one::<CableBody>(entity);
                if world.satisfies::<&CableSpec>(entity) {
                    self.report.lost_cables.push(entity);
                }
            }
        }
        self.reindex();
    }

    /// Rebuilds `by_slot` after `tracked` changed.
    pub(super) fn reindex(&mut self) {
        self.by_slot.clear();
        for (ti, t) in self.tracked.iter().enumerate() {
            let slot = t.handle.index() as usize;
            if self.by_slot.len() <= slot {
                self.by_slot.resize(slot + 1, u32::MAX);
            }
            self.by_slot[slot] = ti as u32;
        }
    }

    /// Frees the pool cables whose entity is gone or lost its
    /// [`CableSpec`] or [`CableBody`]. Called only when `sync_cables` found
    /// fewer live entities than tracked cables.
    pub(super) fn free_despawned(&mut self, world: &mut World) {
        // One archetype-linear pass marks the cables whose entity still has
        // its body and spec; no per-entity look-up unless something is gone.
        self.seen.clear();
        self.seen.resize(self.tracked.len(), false);
        let mut live = 0;
        for (entity, body) in world
            .query_mut::<(Entity, &CableBody)>()
            .with::<&CableSpec>()
        {
            let ti = *self
                .by_slot
                .get(body.handle.index() as usize)
                .unwrap_or(&u32::MAX) as usize;
            if ti < self.tracked.len()
                && self.tracked[ti].handle == body.handle
                && self.tracked[ti].entity == entity
                && !self.seen[ti]
            {
                self.seen[ti] = true;
                live += 1;
            }
        }
        if live == self.tracked.len() {
            return;
        }
        let pool = &mut self.pool;
        let orphans = &mut self.spawned;
        orphans.clear();
        let mut k = 0;
        let seen = &self.seen;
        self.tracked.retain(|t| {
            let keep = seen[k];
            k += 1;
            if !keep {
                // Tracked handles are live until this removal.
                let _ = pool.remove_cable(t.handle);
                orphans.push((t.entity, Ok(t.handle)));
            }
            keep
        });
        for (entity, handle) in orphans.drain(..) {
            // The spec was removed but the entity lives: drop its stale body.
            let stale = world
                .get::<&CableBody>(entity)
                .is_ok_and(|b| Ok(b.handle) == handle);
            if stale {
                let _ = world.remove_one::<CableBody>(entity);
            }
        }
        self.reindex();
    }

    /// Removes the colliders of despawned collider entities (or ones that
    /// lost their [`ColliderSpec`]), forgets those removed from the pool
    /// behind the ECS's back, adds colliders for new (and lost) collider
    /// entities, and poses every collider from its entity's transform.
    pub(super) fn sync_colliders(&mut self, world: &mut World) {
        span!("cable.ecs.colliders");
        let Self {
            pool,
            colliders,
            new_colliders,
            lost,
            report,
            source,
            ..
        } = self;
        let set = pool.colliders_mut();
        lost.clear();
        colliders.retain(|&(entity, handle)| {
            let alive = world
                .get::<&ColliderBody>(entity)
                .is_ok_and(|b| b.handle == handle)
                && world.satisfies::<&ColliderSpec>(entity);
            if !alive {
                // Tracked collider handles are live until this removal (or
                // were removed behind our back: then this is a no-op).
                let _ = set.remove(handle);
                false
            } else if !set.contains(handle) {
                lost.push(entity);
                false
            } else {
                true
            }
        });
        for &entity in lost.iter() {
            // A dead body: the query below adds the collider again.
            let _ = world.remove_one::<ColliderBody>(entity);
            report.lost_colliders.push(entity);
        }
        new_colliders.clear();
        for (entity, spec) in world
            .query::<(Entity, &ColliderSpec)>()
            .without::<&ColliderBody>()
            .iter()
        {
            new_colliders.push((entity, set.add(spec.0)));
        }
        for &(entity, handle) in new_colliders.iter() {
            // The entity was yielded by the query above and nothing despawned it since.
            let _ = world.insert_one(entity, ColliderBody { handle });
        }
        // The colliders from `first_new` on were added this frame: their
        // first pose is taken without a motion (`bind::pose_collider`).
        let first_new = colliders.len();
        colliders.append(new_colliders);
        for (i, &(entity, handle)) in colliders.iter().enumerate() {
            if let Some(t) = source.transform(world, entity) {
                // A non-finite or non-unit transform keeps the previous pose.
                let new = i >= first_new;
                if let Err(e) = bind::pose_collider(set, handle, t.translation, t.rotation, new) {
                    report.bad_poses.push((entity, e));
                }
            }
        }
    }

    /// Steps 3, 5 and 6 in one archetype-linear pass over the cable
    /// entities: each tracked cable whose entity still has its
    /// [`CableSpec`] and [`CableBody`] is counted live, its ends are
    /// resolved ([`CableAttachments`]) and its controls applied
    /// ([`CableWinch`], [`CableHidden`]); then, only if some tracked cable
    /// was not met, the cables of despawned entities are freed. Each
    /// cable's pool edits are its own, so doing them cable by cable gives
    /// the pool of the phase-by-phase order.
    pub(super) fn sync_cables(&mut self, world: &mut World, untouched: bool) {
        span!("cable.ecs.cables");
        self.motions.clear();
        self.freed.clear();
        let Self {
            pool,
            source,
            tracked,
            by_slot,
            motions,
            freed,
            report,
            strays,
            ..
        } = self;
        strays.clear();
        let shared: &World = world;
        let live = source.with_lookup(shared, |lookup| {
            let mut ends = Ends {
                pool,
                lookup,
                motions,
                freed,
                report,
                untouched,
            };
            let mut live = 0;
            let mut query = shared
                .query::<(
                    Entity,
                    &CableBody,
                    Option<&CableAttachments>,
                    Option<&CableWinch>,
                    Option<&CableHidden>,
                )>()
                .with::<&CableSpec>();
            for (entity, body, att, winch, hidden) in query.iter() {
                let ti = *by_slot
                    .get(body.handle.index() as usize)
                    .unwrap_or(&u32::MAX) as usize;
                let Some(t) = tracked
                    .get_mut(ti)
                    .filter(|t| t.handle == body.handle && t.entity == entity)
                else {
                    // Names no cable of this entity's: replaced below.
                    strays.push((entity, body.handle));
                    continue;
                };
                live += 1;
                ends.control(t, ti, entity, att, winch, hidden);
            }
            live
        });
        if live != self.tracked.len() {
            self.free_despawned(world);
            // `tracked` shrank: the moving ends' indices follow their cables.
            for m in &mut self.motions {
                m.tracked = self.by_slot[m.handle.index() as usize] as usize;
            }
        }
        if !self.strays.is_empty() {
            self.replace_stray_bodies(world, untouched);
        }
        // A despawned target frees the end for good: record that in the component.
        for &(entity, end) in &self.freed {
            if let Ok(mut att) = world.get::<&mut CableAttachments>(entity) {
                att.set(end, AttachTarget::Free);
            }
        }
    }

    /// Replaces the [`CableBody`] of each entity in `strays` (one naming no
    /// cable of that entity's: another pool's, a removed one, another
    /// entity's) by a cable built from its [`CableSpec`], as an entity
    /// without a body gets, reported in [`StepReport::bad_bodies`]; the new
    /// cables' ends and controls are then applied as `sync_cables` applies
    /// every other's. Only called when `sync_cables` met such a body.
    #[cold]
    pub(super) fn replace_stray_bodies(&mut self, world: &mut World, untouched: bool) {
        let ours = self.pool.id();
        for k in 0..self.strays.len() {
            let (entity, handle) = self.strays[k];
            let why = if handle.pool_id() != ours {
                BadBody::ForeignPool {
                    handle,
                    pool: handle.pool_id(),
                    ours,
                }
            } else if let Some(t) = self.tracked_of(handle) {
                BadBody::Claimed {
                    handle,
                    owner: t.entity,
                }
            } else {
                BadBody::NotTracked { handle }
            };
            // The entity was yielded by the query of `sync_cables`, and
            // nothing despawned it since.
            let _ = world.remove_one::<CableBody>(entity);
            self.report.bad_bodies.push((entity, why));
        }
        let old = self.tracked.len();
        self.spawn_cables(world);
        self.read_teleport_flags();
        let Self {
            pool,
            source,
            tracked,
            motions,
            freed,
            report,
            ..
        } = self;
        let shared: &World = world;
        source.with_lookup(shared, |lookup| {
            let mut ends = Ends {
                pool,
                lookup,
                motions,
                freed,
                report,
                untouched,
            };
            for (ti, t) in tracked.iter_mut().enumerate().skip(old) {
                let entity = t.entity;
                let mut q = shared.query_one::<(
                    Option<&CableAttachments>,
                    Option<&CableWinch>,
                    Option<&CableHidden>,
                )>(entity);
                if let Ok((att, winch, hidden)) = q.get() {
                    ends.control(t, ti, entity, att, winch, hidden);
                }
            }
        });
    }

    pub(super) fn write_back(&mut self, world: &mut World) {
        span!("cable.ecs.write_back");
        // Each cable read where it lives (`copy_positions`): a layout that
        // keeps its own rows is not made to write every cable back.
        for (body, out) in world.query_mut::<(&CableBody, &mut CableParticles)>() {
            // A tracked body's handle is live; a stale one leaves `out` as it was.
            let _ = self.pool.copy_positions(body.handle, &mut out.positions);
        }
        let colliders = self.pool.colliders();
        for (body, out) in world.query_mut::<(&ColliderBody, &mut ColliderForce)>() {
            // A tracked body's handle is live; a stale one reads zero.
            out.0 = colliders.contact_force(body.handle).unwrap_or_default();
        }
    }
}
