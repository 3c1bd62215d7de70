//! Resolving the cables' ends from their attachment targets each step:
//! the tracked state per cable and end, and the per-frame resolution
//! (`Ends`) of steps 5 and 6 of `CableWorld::step`.

use cable_core::{CableError, CableHandle, End, ParticlePool};
use glam::{Quat, Vec3};
use hecs::Entity;

use crate::bind::{self, ControlError, WinchOrders};

use super::{
    components::{AttachTarget, CableAttachments, CableHidden, CableWinch, Transform},
    report::{BadTarget, StepReport},
};

/// Per-end state carried from frame to frame.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(super) struct EndState {
    /// The target at the end of the previous frame (None: not attached).
    pub(super) target: Option<Vec3>,
    /// Displacement of the target over the last substep, metres: the
    /// velocity × h an end keeps when it is detached.
    pub(super) last_move: Vec3,
    /// Rotation of the followed entity at the end of the previous frame
    /// (identity for a point target): a turn beyond the cable's
    /// [`cable_core::CableParams::teleport_rotation`] teleports it.
    pub(super) rotation: Quat,
    /// The entity followed at the end of the previous frame: a turn is
    /// measured only while the end follows the same entity (switching
    /// targets is no turn). Not saved (entities are the game's): a restore
    /// takes it from the entity's [`CableAttachments`].
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) followed: Option<Entity>,
}

#[derive(Debug, Clone)]
pub(super) struct Tracked {
    pub(super) entity: Entity,
    pub(super) handle: CableHandle,
    pub(super) ends: [EndState; 2],
    /// The [`CableWinch`] orders last given and accepted
    /// ([`bind::apply_controls`]).
    pub(super) winch: WinchOrders,
    /// The cable has a teleport threshold
    /// ([`cable_core::CableParams::teleport_distance`] or
    /// [`cable_core::CableParams::teleport_rotation`]), as of
    /// [`CableWorld::teleports_at`]: only then can a moving end teleport it.
    pub(super) teleports: bool,
    /// Per end: the pool's attachment of this end was `None` when the layer
    /// last set or checked it. Trusted only while nothing but the layer
    /// changed the pool ([`CableWorld::synced_revision`]): a free end then
    /// needs no look-up for a pin to release.
    pub(super) released: [bool; 2],
}

impl Tracked {
    pub(super) fn new(
        entity: Entity,
        handle: CableHandle,
        ends: [EndState; 2],
        winch: Option<CableWinch>,
    ) -> Self {
        Self {
            entity,
            handle,
            ends,
            winch: WinchOrders::accepted(winch),
            teleports: false,
            released: [false; 2],
        }
    }
}

/// A moving end this frame: interpolated across the substeps.
#[derive(Debug, Clone, Copy)]
pub(super) struct Motion {
    /// Index into `tracked`.
    pub(super) tracked: usize,
    pub(super) handle: CableHandle,
    pub(super) end: End,
    pub(super) from: Vec3,
    pub(super) to: Vec3,
    /// The end's `last_move` before this frame: the end state holds
    /// `to - from` (the last move of a one-substep frame) while the step
    /// runs, and gets this back if no substep runs.
    pub(super) last_move: Vec3,
}

/// What resolving a cable's ends works with (step 5 of
/// [`CableWorld::step`]).
pub(super) struct Ends<'a, 'l> {
    pub(super) pool: &'a mut ParticlePool,
    pub(super) lookup: &'l dyn Fn(Entity) -> Option<Transform>,
    pub(super) motions: &'a mut Vec<Motion>,
    pub(super) freed: &'a mut Vec<(Entity, End)>,
    pub(super) report: &'a mut StepReport,
    /// Nothing but the layer changed the pool since the last step.
    pub(super) untouched: bool,
}

/// Where an end is to be this frame: its target (`None`: free), the
/// followed entity's rotation (identity for a point) and the entity.
pub(super) type Resolved = (Option<Vec3>, Quat, Option<Entity>);

impl Ends<'_, '_> {
    /// Steps 5 and 6 for tracked cable `t` (index `ti`) of `entity`: its
    /// ends from its attachments, its visibility and its winch.
    #[inline(always)]
    pub(super) fn control(
        &mut self,
        t: &mut Tracked,
        ti: usize,
        entity: Entity,
        att: Option<&CableAttachments>,
        winch: Option<&CableWinch>,
        hidden: Option<&CableHidden>,
    ) {
        if let Some(att) = att {
            self.resolve(t, ti, att);
        }
        let order = winch.copied();
        match bind::apply_controls(self.pool, t.handle, &mut t.winch, order, hidden.is_some()) {
            // The handle is tracked, hence live: it cannot be stale.
            Ok(()) | Err(ControlError::Stale(_)) => {}
            Err(ControlError::WinchRefused(e)) => self.report.bad_winches.push((entity, e)),
        }
    }

    /// Resolves both ends of tracked cable `t` (index `ti`) from its
    /// attachments: pins, frees, teleports, or records the motion to
    /// interpolate.
    #[inline(always)]
    pub(super) fn resolve(&mut self, t: &mut Tracked, ti: usize, att: &CableAttachments) {
        // At most one teleport per cable and frame: after one end
        // teleported the cable, the other's turn is not applied again.
        let mut teleported = false;
        self.resolve_end(t, ti, End::Start, &att.start, &mut teleported);
        self.resolve_end(t, ti, End::End, &att.end, &mut teleported);
    }

    /// The target of one end, or `None` when it is refused (reported; the
    /// end keeps its last good target).
    #[inline(always)]
    pub(super) fn target(
        &mut self,
        cable: Entity,
        end: End,
        attach: &AttachTarget,
    ) -> Option<Resolved> {
        match *attach {
            AttachTarget::Free => Some((None, Quat::IDENTITY, None)),
            AttachTarget::Point(p) => match bind::point_target(p) {
                Ok(p) => Some((Some(p), Quat::IDENTITY, None)),
                Err(error) => self.refused(cable, end, None, error),
            },
            AttachTarget::Entity { entity, offset } => match (self.lookup)(entity) {
                Some(tf) => match bind::entity_target(tf.translation, tf.rotation, offset) {
                    Ok((p, q)) => Some((Some(p), q, Some(entity))),
                    Err(error) => self.refused(cable, end, Some(entity), error),
                },
                None => {
                    self.freed.push((cable, end));
                    Some((None, Quat::IDENTITY, None))
                }
            },
        }
    }

    /// A refused target ([`bind::entity_target`], [`bind::point_target`]):
    /// reported, the end keeping its last good target (the pool holds
    /// it), as colliders keep their last good pose. Returns `None`.
    #[cold]
    #[inline(never)]
    pub(super) fn refused(
        &mut self,
        cable: Entity,
        end: End,
        followed: Option<Entity>,
        error: CableError,
    ) -> Option<Resolved> {
        self.report.bad_targets.push(BadTarget {
            entity: cable,
            end,
            target: followed,
            error,
        });
        None
    }

    #[inline(always)]
    pub(super) fn resolve_end(
        &mut self,
        t: &mut Tracked,
        ti: usize,
        end: End,
        attach: &AttachTarget,
        teleported: &mut bool,
    ) {
        let Some((target, rotation, followed)) = self.target(t.entity, end, attach) else {
            return;
        };
        let slot = end.slot();
        let pool = &mut *self.pool;
        let state = &mut t.ends[slot];
        match (state.target, target) {
            (Some(from), Some(to)) => {
                // A jump beyond the cable's teleport thresholds moves the
                // cable at once (no interpolation); without a threshold the
                // pool would not teleport it.
                let jumped = t.teleports && {
                    let turn = if *teleported || followed.is_none() || state.followed != followed {
                        Quat::IDENTITY
                    } else {
                        rotation * state.rotation.conjugate()
                    };
                    (from != to || turn != Quat::IDENTITY)
                        && pool
                            .teleport_attachment(t.handle, end, to, turn)
                            .unwrap_or(false)
                };
                if jumped {
                    *teleported = true;
                    state.last_move = Vec3::ZERO;
                } else if from != to {
                    self.motions.push(Motion {
                        tracked: ti,
                        handle: t.handle,
                        end,
                        from,
                        to,
                        last_move: state.last_move,
                    });
                    // Its move over one substep; `CableWorld::step` divides
                    // it for more.
                    state.last_move = to - from;
                }
                t.released[slot] = false;
            }
            (None, Some(to)) => {
                let _ = pool.set_attachment(t.handle, end, Some(to));
                t.released[slot] = false;
                state.last_move = Vec3::ZERO;
            }
            (Some(_), None) => {
                // Detach: free the end and give it the target's last velocity.
                let _ = pool.set_attachment(t.handle, end, None);
                if let Ok(pos) = pool.positions(t.handle) {
                    let row = if end == End::Start { 0 } else { pos.len() - 1 };
                    let p = pos[row];
                    if let Ok(prev) = pool.prev_positions_mut(t.handle) {
                        prev[row] = p - state.last_move;
                    }
                }
                t.released[slot] = true;
                state.last_move = Vec3::ZERO;
            }
            (None, None) => {
                // A free end: release a pin the description set (a no-op
                // once released, which the pool need not be asked again
                // while only the layer changed it).
                if !(self.untouched && t.released[slot])
                    && pool.attachment(t.handle, end).ok().flatten().is_some()
                {
                    let _ = pool.set_attachment(t.handle, end, None);
                }
                t.released[slot] = true;
                state.last_move = Vec3::ZERO;
            }
        }
        state.target = target;
        state.rotation = rotation;
        state.followed = followed;
    }
}
