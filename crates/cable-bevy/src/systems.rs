//! The `FixedUpdate` systems: sync, step, write-back.

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_time::{Fixed, Time};
use bevy_transform::components::GlobalTransform;
use bevy_transform::helper::TransformHelper;
use cable_core::{CableError, CableHandle, End, ParticlePool};
use cable_systems::bind::{self, ControlError};

use crate::components::{
    Cable, CableAnchor, CableAttachments, CableBody, CableCollider, CableColliderBody,
    CableColliderForce, CableHidden, CableInterpolated, CableParticles, CableRejected, CableStatus,
    CableTension, CableTube, CableWinch,
};
use crate::convert::cable_glam;
use crate::convert::{to_bevy, to_cable, to_cable_quat};
use crate::simulation::{CableContact, CableNotice, CableSimulation, CableTorn, log_error};

type NewCables<'w, 's> =
    Query<'w, 's, (Entity, &'static Cable), (Without<CableBody>, Without<CableRejected>)>;

/// Entities holding what the plugin gives a [`Cable`] after the `Cable`
/// was removed.
type Orphans<'w, 's> = Query<
    'w,
    's,
    Entity,
    (
        Or<(With<CableBody>, With<CableRejected>, With<CableParticles>)>,
        Without<Cable>,
    ),
>;

/// The substep first (from the fixed timestep); new cables into the pool,
/// checked against it; cables of despawned entities out of it; cables
/// removed from the pool behind the plugin's back rebuilt.
pub(crate) fn sync_cables(
    mut commands: Commands,
    mut sim: ResMut<CableSimulation>,
    time: Option<Res<Time<Fixed>>>,
    new: NewCables,
    bodies: Query<(&CableBody, &Cable)>,
    orphans: Orphans,
    mut notices: MessageWriter<CableNotice>,
) {
    let sim = &mut *sim;
    // An entity that lost its `Cable` loses what the plugin gave it, so
    // that nothing stale stays (its pool cable goes just below).
    for entity in &orphans {
        commands
            .entity(entity)
            .try_remove::<(CableBody, CableRejected, CableParticles)>();
    }
    // The substep the next step runs: cables are checked against it.
    let substep = time.and_then(|t| sim.sync_substep(t.timestep().as_secs_f32()));
    // Gone: the entity was despawned, or lost its `Cable` or `CableBody`.
    // Lost: the entity is whole but its pool cable was removed through
    // `pool_mut` (or the pool replaced).
    let pool = &mut sim.pool;
    let targets = &mut sim.targets;
    let refused_targets = &mut sim.refused_targets;
    let lost = &mut sim.lost;
    lost.clear();
    sim.cables.retain(|entity, handle| {
        let owned = bodies.get(*entity).is_ok_and(|(b, _)| b.handle == *handle);
        let live = pool.contains(*handle);
        if !(owned && live) {
            // A no-op when the cable is already gone.
            let _ = pool.remove_cable(*handle);
            for end in [End::Start, End::End] {
                targets.remove(&(*handle, end));
                refused_targets.remove(&(*handle, end));
            }
            if owned {
                lost.push((*entity, *handle));
            }
        }
        owned && live
    });
    for i in 0..sim.lost.len() {
        let (entity, handle) = sim.lost[i];
        log_error(&format!(
            "cable-bevy: the pool cable {handle:?} of {entity} was removed behind \
             the plugin's back; rebuilding it from its Cable"
        ));
        notices.write(CableNotice::Lost { entity, handle });
        let Ok(mut e) = commands.get_entity(entity) else {
            continue;
        };
        // Without a body the entity is new again: rebuilt below, or at the
        // next sync when the substep is not known yet.
        e.try_remove::<CableBody>();
        if let (Some(h), Ok((_, cable))) = (substep, bodies.get(entity)) {
            let added = spawn_cable(&mut sim.pool, cable, h);
            settle(&mut commands, sim, &mut notices, entity, added);
        }
    }
    let Some(h) = substep else {
        // No substep to check against: new cables wait.
        return;
    };
    for (entity, cable) in &new {
        let added = spawn_cable(&mut sim.pool, cable, h);
        settle(&mut commands, sim, &mut notices, entity, added);
    }
}

/// Adds a cable checked for substep `h` (`bind::spawn_cable`, shared with
/// the hecs layer): a cable whose compliances overflow at it would make
/// every step refuse, so it is refused here, once, instead.
fn spawn_cable(pool: &mut ParticlePool, cable: &Cable, h: f32) -> Result<CableHandle, CableError> {
    bind::spawn_cable(pool, &cable.desc, &cable.masses, h)
}

/// Gives `entity` the outcome of [`spawn_cable`]: a [`CableBody`], or a
/// [`CableRejected`] with the reason, logged and sent as a notice.
fn settle(
    commands: &mut Commands,
    sim: &mut CableSimulation,
    notices: &mut MessageWriter<CableNotice>,
    entity: Entity,
    added: Result<CableHandle, CableError>,
) {
    match added {
        Ok(handle) => {
            sim.cables.insert(entity, handle);
            if let Ok(mut e) = commands.get_entity(entity) {
                e.try_insert(CableBody { handle });
            }
        }
        Err(error) => {
            log_error(&format!("cable-bevy: cable {entity} refused: {error}"));
            if let Ok(mut e) = commands.get_entity(entity) {
                e.try_insert((CableRejected(error.clone()), CableParticles::default()));
            }
            notices.write(CableNotice::Rejected { entity, error });
        }
    }
}

/// Colliders: new ones added, all posed from their transforms, gone ones removed.
pub(crate) fn sync_colliders(
    mut commands: Commands,
    mut sim: ResMut<CableSimulation>,
    colliders: Query<(
        Entity,
        &CableCollider,
        Option<&CableColliderBody>,
        Option<&GlobalTransform>,
    )>,
    placed: TransformHelper,
    mut notices: MessageWriter<CableNotice>,
    wants_forces: Query<(), With<CableColliderForce>>,
) {
    let sim = &mut *sim;
    let set = sim.pool.colliders_mut();
    // Contact forces are measured while some collider entity reads them.
    if !set.measures_forces() && !wants_forces.is_empty() {
        set.set_measure_forces(true);
    }
    // Gone: the entity was despawned or lost its `CableCollider`.
    sim.colliders.retain(|entity, handle| {
        let alive = colliders.contains(*entity);
        if !alive {
            let _ = set.remove(*handle);
        }
        alive
    });
    for (entity, collider, body, transform) in &colliders {
        let mut fresh = false;
        let handle = match sim.colliders.get(&entity) {
            Some(h) if set.contains(*h) => *h,
            old => {
                fresh = true;
                if let Some(&lost) = old {
                    // Removed behind the plugin's back: added again.
                    log_error(&format!(
                        "cable-bevy: the pool collider {lost:?} of {entity} was removed \
                         behind the plugin's back; adding it again"
                    ));
                    notices.write(CableNotice::ColliderLost {
                        entity,
                        handle: lost,
                    });
                }
                let handle = set.add(collider.0);
                sim.colliders.insert(entity, handle);
                handle
            }
        };
        if body.is_none_or(|b| b.handle != handle) {
            commands
                .entity(entity)
                .try_insert(CableColliderBody { handle });
        }
        if fresh {
            // A collider spawned this frame: its `GlobalTransform` is
            // propagated only in `PostUpdate`, after this system, so it is
            // computed from the hierarchy here, and the collider is put
            // there without a motion (a pose set from identity would sweep
            // it through the cables as if it had moved there).
            let pose = placed.compute_global_transform(entity).ok();
            if let Some(t) = pose.or(transform.copied()) {
                let (_, rotation, translation) = t.to_scale_rotation_translation();
                let (at, turn) = (to_cable(translation), to_cable_quat(rotation));
                let _ = bind::pose_collider(set, handle, at, turn, true);
            }
        } else if let Some(t) = transform {
            let (_, rotation, translation) = t.to_scale_rotation_translation();
            let (at, turn) = (to_cable(translation), to_cable_quat(rotation));
            // A pose out of range (a NaN transform) keeps the last good one.
            let _ = bind::pose_collider(set, handle, at, turn, false);
        }
    }
}

/// The game's controls of each cable: [`CableHidden`] into the pool's
/// visibility, a [`CableWinch`] added, changed or removed into the pool's
/// winch (`bind::apply_controls`, shared with the hecs layer: each order
/// given once, a refused one reported once, the running one finished when
/// done), and tension tracking on while some cable has a [`CableTension`].
pub(crate) fn control_cables(
    mut sim: ResMut<CableSimulation>,
    cables: Query<(Entity, &CableBody, Option<&CableWinch>, Has<CableHidden>)>,
    wants_tension: Query<(), With<CableTension>>,
    mut notices: MessageWriter<CableNotice>,
) {
    let sim = &mut *sim;
    let track = !wants_tension.is_empty();
    if sim.stepper.track_tension() != track {
        sim.stepper.set_track_tension(track);
    }
    let pool = &mut sim.pool;
    // Orders of cables that are gone are forgotten.
    sim.winches.retain(|h, _| pool.contains(*h));
    for (entity, body, winch, hidden) in &cables {
        let order = winch.map(|w| cable_core::Winch::from(*w));
        let known = sim.winches.get(&body.handle).copied();
        let mut orders = known.unwrap_or_default();
        match bind::apply_controls(pool, body.handle, &mut orders, order, hidden) {
            Ok(()) => {}
            // A stale body (its cable just rebuilt) is fixed at the next sync.
            Err(ControlError::Stale(_)) => continue,
            Err(ControlError::WinchRefused(error)) => {
                log_error(&format!("cable-bevy: winch of {entity} refused: {error}"));
                notices.write(CableNotice::BadWinch { entity, error });
            }
        }
        if known.is_some() || orders != bind::WinchOrders::default() {
            sim.winches.insert(body.handle, orders);
        }
    }
}

/// How many steps this run takes: one per run with the fixed clock; with
/// the accumulated clock, the whole timesteps in the accumulator after
/// adding `Time`'s delta, all of them (each is one `advance` of
/// `substeps` substeps, so `max_substeps` does not bound their number;
/// Bevy's fixed loop runs them all too). Sets the accumulated clock's
/// overstep fraction.
fn steps_due(sim: &mut CableSimulation, timestep: Duration, delta: Option<Duration>) -> u32 {
    if sim.fixed_clock {
        return 1;
    }
    let Some(delta) = delta else { return 0 };
    sim.accumulator = sim.accumulator.saturating_add(delta);
    let mut n = 0u32;
    // Exact: `Duration`s are whole nanoseconds, as in `Time<Fixed>`.
    while sim.accumulator >= timestep {
        sim.accumulator -= timestep;
        n = n.saturating_add(1);
    }
    sim.fraction = (sim.accumulator.as_secs_f64() / timestep.as_secs_f64()).clamp(0.0, 1.0) as f32;
    n
}

/// Resolves the attachments and runs the solver: one fixed timestep, or
/// the whole timesteps the accumulated clock holds.
#[allow(clippy::too_many_arguments)]
pub(crate) fn step(
    mut commands: Commands,
    mut sim: ResMut<CableSimulation>,
    fixed: Option<Res<Time<Fixed>>>,
    time: Option<Res<Time>>,
    cables: Query<(Entity, &CableBody, &CableAttachments)>,
    transforms: Query<&GlobalTransform>,
    mut interpolated: Query<(&CableBody, &mut CableInterpolated, Has<CableTube>)>,
    mut notices: MessageWriter<CableNotice>,
    (mut contacts, mut torn): (MessageWriter<CableContact>, MessageWriter<CableTorn>),
) {
    let sim = &mut *sim;
    sim.ran = 0;
    let Some(fixed) = fixed else { return };
    let timestep = fixed.timestep();
    let dt = timestep.as_secs_f32();
    let Some(h) = sim.sync_substep(dt) else {
        return;
    };
    let n = steps_due(sim, timestep, time.map(|t| t.delta()));
    if n == 0 {
        return;
    }
    sim.moves.clear();
    for (cable, body, attachments) in &cables {
        for (end, anchor) in [(End::Start, attachments.start), (End::End, attachments.end)] {
            // Checked as the hecs layer checks its targets (`bind`); a
            // despawned target entity frees the end.
            let (target, followed) = match anchor {
                CableAnchor::Free => (Ok(None), None),
                CableAnchor::Point(p) => (bind::point_target(to_cable(p)).map(Some), None),
                CableAnchor::Entity { entity, offset } => match transforms.get(entity) {
                    Ok(t) => {
                        let (translation, rotation) = (t.translation(), t.rotation());
                        let target = bind::entity_target(
                            to_cable(translation),
                            to_cable_quat(rotation),
                            to_cable(offset),
                        );
                        (target.map(|(p, _)| Some(p)), Some(entity))
                    }
                    Err(_) => (Ok(None), None),
                },
            };
            let key = (body.handle, end);
            match target {
                Ok(Some(to)) => {
                    sim.refused_targets.remove(&key);
                    let from = sim.targets.insert(key, to).unwrap_or(to);
                    sim.moves.push((body.handle, end, from, to));
                }
                Ok(None) => {
                    sim.refused_targets.remove(&key);
                    if sim.targets.remove(&key).is_some()
                        || sim
                            .pool
                            .attachment(body.handle, end)
                            .ok()
                            .flatten()
                            .is_some()
                    {
                        let _ = sim.pool.set_attachment(body.handle, end, None);
                    }
                }
                Err(error) => {
                    // Refused: the end keeps its last good target (the pool
                    // holds it, and the next good one moves from it).
                    // Noticed when the refusals start.
                    if sim.refused_targets.insert(key) {
                        log_error(&format!(
                            "cable-bevy: {end:?} target of {cable} refused: {error}"
                        ));
                        notices.write(CableNotice::BadTarget {
                            entity: cable,
                            end,
                            target: followed,
                            error,
                        });
                    }
                }
            }
        }
    }
    for i in 0..n {
        if i + 1 == n {
            // The positions before the last step, to interpolate from.
            let mut buf = std::mem::take(&mut sim.scratch);
            sim.interpolated_tubes.clear();
            for (body, mut interp, tube) in &mut interpolated {
                if tube && sim.pool.contains(body.handle) {
                    sim.interpolated_tubes.push(body.handle);
                }
                if sim.pool.copy_positions(body.handle, &mut buf).is_ok() {
                    let prev = &mut interp.previous;
                    prev.clear();
                    prev.extend(buf.iter().map(|v| to_bevy(*v)));
                }
            }
            sim.scratch = buf;
            sim.snapshot_tubes();
        }
        // The targets move from `from` to `to` across the run's steps.
        let span = (i as f32 / n as f32, (i + 1) as f32 / n as f32);
        let result = match advance(sim, dt, span) {
            // Refused before any substep ran (the pool and the accumulator
            // are untouched) because some cable no longer fits the
            // substep: take those out, alone, and run the step for the
            // others.
            Err(_) if sim.stepper.validate_pool(&sim.pool).is_err() => {
                sim.drop_refused(h, &mut commands, &mut notices);
                advance(sim, dt, span)
            }
            other => other,
        };
        match result {
            // A winch stopped at the particle budget: the step ran (each
            // stalled winch is sent below, as the hecs layer reports it).
            Ok(_) | Err(CableError::WinchBudget { .. }) => sim.last_error = None,
            Err(e) => sim.log_once(format!("cable-bevy: step refused: {e}")),
        }
        sim.ran += 1;
        // A handful per step: the reverse lookups are linear.
        let cable_entity = |h| sim.cables.iter().find(|(_, c)| **c == h).map(|(e, _)| *e);
        for &(handle, segment) in sim.stepper.torn() {
            if let Some(cable) = cable_entity(handle) {
                torn.write(CableTorn { cable, segment });
            }
        }
        for (handle, error) in bind::stalled_winches(&sim.stepper) {
            if let Some(entity) = cable_entity(handle) {
                log_error(&format!(
                    "cable-bevy: the winch of cable {entity} stopped: {error}"
                ));
                notices.write(CableNotice::WinchStalled {
                    entity,
                    error: error.clone(),
                });
            }
        }
        for e in sim.stepper.contact_events() {
            let collider = sim
                .colliders
                .iter()
                .find(|(_, c)| **c == e.collider)
                .map(|(k, _)| *k);
            if let (Some(cable), Some(collider)) = (cable_entity(e.cable), collider) {
                contacts.write(CableContact {
                    cable,
                    collider,
                    kind: e.kind,
                });
            }
        }
    }
}

/// Runs the solver for one fixed timestep of `dt` seconds, the attached
/// ends moved across its substeps over `span` of their way from the
/// previous run's targets to this run's.
fn advance(sim: &mut CableSimulation, dt: f32, span: (f32, f32)) -> Result<u32, CableError> {
    let moves = &sim.moves;
    let (a, b) = span;
    sim.stepper.advance_with(&mut sim.pool, dt, |pool, k, n| {
        // With one step a run, `a + (b - a) * t` is `t` exactly.
        let t = a + (b - a) * ((k + 1) as f32 / n as f32);
        for &(handle, end, from, to) in moves {
            // The targets were checked (`bind`); only a cable just taken
            // out refuses it.
            let _ = pool.set_attachment(handle, end, Some(from.lerp(to, t)));
        }
    })
}

/// Writes each [`CableInterpolated`] readout: the positions before the
/// last step and after it ([`CableParticles`]), mixed at the overstep
/// fraction (`Time<Fixed>`'s with the fixed clock, the accumulator's
/// otherwise).
pub(crate) fn interpolate(
    mut sim: ResMut<CableSimulation>,
    fixed: Option<Res<Time<Fixed>>>,
    mut cables: Query<(&CableParticles, &mut CableInterpolated)>,
) {
    if sim.fixed_clock {
        let fraction = fixed.map_or(1.0, |t| t.overstep_fraction().clamp(0.0, 1.0));
        if sim.fraction != fraction {
            sim.fraction = fraction;
        }
    }
    let f = sim.fraction;
    for (now, mut interp) in &mut cables {
        let interp = &mut *interp;
        let out = &mut interp.positions;
        out.clear();
        if interp.previous.len() == now.positions.len() {
            out.extend(
                interp
                    .previous
                    .iter()
                    .zip(&now.positions)
                    .map(|(p, c)| p.lerp(*c, f)),
            );
        } else {
            // No step yet, or a winch changed the count: no pairs to mix.
            out.extend_from_slice(&now.positions);
        }
    }
}

/// Contact forces into [`CableColliderForce`]; positions into
/// [`CableParticles`], each cable read where the layout
/// keeps it (`ParticlePool::copy_positions`, through a buffer kept
/// between frames); tensions into [`CableTension`], the rest into
/// [`CableStatus`].
pub(crate) fn write_back(
    sim: Res<CableSimulation>,
    mut cables: Query<(&CableBody, &mut CableParticles)>,
    mut forces: Query<(&CableColliderBody, &mut CableColliderForce)>,
    mut readouts: Query<(
        &CableBody,
        Option<&mut CableTension>,
        Option<&mut CableStatus>,
    )>,
    mut buf: Local<Vec<cable_glam::Vec3>>,
) {
    if sim.ran == 0 {
        // No step this run (the accumulated clock held less than one):
        // the readouts are up to date, and stay unchanged.
        return;
    }
    let substep = sim.stepper.params().substep;
    for (body, tension, status) in &mut readouts {
        if let Some(mut t) = tension {
            // Only a stale handle or a substep of 0 fail: the readout then
            // keeps its last values.
            let _ = cable_systems::tension::segment_tensions(
                &sim.pool,
                body.handle,
                substep,
                &mut t.segments,
            );
        }
        if let Some(mut st) = status
            && let (Ok(asleep), Ok(rest)) = (
                sim.pool.is_asleep(body.handle),
                sim.pool.rest_lengths(body.handle),
            )
        {
            *st = CableStatus {
                asleep,
                // One entry per particle, the last 0.
                rest_length: rest.iter().sum(),
                particles: rest.len(),
            };
        }
    }
    for (body, mut out) in &mut forces {
        if let Ok(f) = sim.pool.colliders().contact_force(body.handle) {
            *out = CableColliderForce {
                force: to_bevy(f.force),
                torque: to_bevy(f.torque),
            };
        }
    }
    for (body, mut particles) in &mut cables {
        if sim.pool.copy_positions(body.handle, &mut buf).is_ok() {
            let out = &mut particles.positions;
            out.clear();
            out.extend(buf.iter().map(|v| to_bevy(*v)));
        }
    }
}
