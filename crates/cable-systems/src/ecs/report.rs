//! What a step of the layer reports: entities whose targets or bodies
//! could not be used (`BadTarget`, `BadBody`), in a `StepReport`.

use cable_core::{CableError, CableHandle, End};
use hecs::Entity;

use crate::events::ContactKind;

/// A cable entity started or stopped touching a collider entity
/// ([`StepReport::contacts`]; [`crate::events`] says what touching is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntityContact {
    /// The cable entity.
    pub cable: Entity,
    /// The collider entity.
    pub collider: Entity,
    /// Began or ended.
    pub kind: ContactKind,
}

/// An attachment target [`CableWorld::step`](crate::ecs::CableWorld::step) refused: the end kept its
/// last good target (or, with none yet, stayed as it was).
#[derive(Debug, Clone, PartialEq)]
pub struct BadTarget {
    /// The cable entity.
    pub entity: Entity,
    /// Which end.
    pub end: End,
    /// The entity whose transform was followed, for an
    /// [`AttachTarget::Entity`](crate::ecs::AttachTarget::Entity).
    pub target: Option<Entity>,
    /// Why: the field (`point`, `transform.translation`,
    /// `transform.rotation`, `offset` or `target`) and the value.
    pub error: CableError,
}

/// Why [`CableWorld::step`](crate::ecs::CableWorld::step) refused an entity's [`CableBody`](crate::ecs::CableBody)
/// ([`StepReport::bad_bodies`]): it names no cable this world keeps for
/// that entity. The step removed the body and built the entity a cable
/// from its [`CableSpec`](crate::ecs::CableSpec) instead, as for an entity without a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadBody {
    /// The handle was issued by another pool (a body copied from another
    /// [`CableWorld`](crate::ecs::CableWorld), or from a save restored into another world).
    #[error(
        "CableBody names cable {handle:?} of pool {pool}, not of this world's pool {ours}: a body belongs to the CableWorld that built it"
    )]
    ForeignPool {
        /// The handle the body named.
        handle: CableHandle,
        /// The pool that issued it ([`CableHandle::pool_id`]).
        pool: u32,
        /// This world's pool ([`ParticlePool::id`](cable_core::ParticlePool::id)).
        ours: u32,
    },
    /// The handle is this pool's, but no entity's cable here: removed, or
    /// added to the pool directly ([`CableWorld::pool_mut`](crate::ecs::CableWorld::pool_mut)).
    #[error(
        "CableBody names cable {handle:?}, which is no entity's cable in this world (removed, or added to the pool directly)"
    )]
    NotTracked {
        /// The handle the body named.
        handle: CableHandle,
    },
    /// The handle names another entity's cable (a body copied from one
    /// entity to another).
    #[error("CableBody names cable {handle:?}, which is entity {owner:?}'s cable")]
    Claimed {
        /// The handle the body named.
        handle: CableHandle,
        /// The entity whose cable it is.
        owner: Entity,
    },
}

/// What the last [`CableWorld::step`](crate::ecs::CableWorld::step) refused or repaired
/// ([`CableWorld::report`](crate::ecs::CableWorld::report)); empty when all went well. Its buffers are
/// reused from step to step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepReport {
    /// Ends whose target was refused this step.
    pub bad_targets: Vec<BadTarget>,
    /// Collider entities whose transform was refused this step: the
    /// collider kept its last good pose.
    pub bad_poses: Vec<(Entity, CableError)>,
    /// Cable entities whose pool cable had been removed behind the ECS's
    /// back ([`CableWorld::pool_mut`](crate::ecs::CableWorld::pool_mut)): rebuilt from their [`CableSpec`](crate::ecs::CableSpec)
    /// this step (or given a [`CableRejected`](crate::ecs::CableRejected) if the pool now refuses it).
    pub lost_cables: Vec<Entity>,
    /// Collider entities whose pool collider had been removed behind the
    /// ECS's back: added again from their [`ColliderSpec`](crate::ecs::ColliderSpec) this step.
    pub lost_colliders: Vec<Entity>,
    /// Cable entities whose [`CableWinch`](crate::ecs::CableWinch) was refused this step (the
    /// winch kept its previous setting), with the reason. Each order is
    /// reported once, in the step it was given: the same order in the
    /// next steps (bit for bit, NaN included) is not tried again.
    pub bad_winches: Vec<(Entity, CableError)>,
    /// Cable entities whose winch stopped this step because paying out
    /// needed more particles than the pool's budget: each with its
    /// [`CableError::WinchBudget`] ([`Stepper::stalled_winches`](crate::Stepper::stalled_winches)). The
    /// winch stays stopped until its [`CableWinch`](crate::ecs::CableWinch) changes.
    pub stalled_winches: Vec<(Entity, CableError)>,
    /// Cable entities whose [`CableBody`](crate::ecs::CableBody) named no cable of theirs in this
    /// world, with why: the body was replaced by one naming a cable built
    /// from the entity's [`CableSpec`](crate::ecs::CableSpec) this step (or by a
    /// [`CableRejected`](crate::ecs::CableRejected) if the pool refuses the spec).
    pub bad_bodies: Vec<(Entity, BadBody)>,
    /// Cable entities whose [`CableSpec`](crate::ecs::CableSpec) the pool
    /// refused when this step built their cable (a description the pool
    /// refuses, a compliance that overflows at the substep, the pool's
    /// particle budget), with why: each now has a
    /// [`CableRejected`](crate::ecs::CableRejected) with the same error
    /// and is not tried again until that component is removed, so each
    /// refusal is listed once.
    pub refused_specs: Vec<(Entity, CableError)>,
    /// Cable entities whose pool cable no longer fitted the substep
    /// (parameters replaced, or the cable changed through
    /// [`CableWorld::pool_mut`](crate::ecs::CableWorld::pool_mut)), with
    /// why: taken out of the pool before this step so the others could
    /// step; the entity now has a [`CableRejected`](crate::ecs::CableRejected)
    /// with the same error in place of its [`CableBody`](crate::ecs::CableBody),
    /// and empty [`CableParticles`](crate::ecs::CableParticles). It is not
    /// rebuilt (remove the `CableRejected` to try its spec again).
    pub rejected: Vec<(Entity, CableError)>,
    /// Pool cables no entity owns (added through
    /// [`CableWorld::pool_mut`](crate::ecs::CableWorld::pool_mut)) that no
    /// longer fitted the substep, with why: removed from the pool before
    /// this step so the others could step.
    pub dropped: Vec<(CableHandle, CableError)>,
    /// Segments that broke this step
    /// ([`cable_core::CableParams::break_tension`]): the cable entity and
    /// the segment index, in the order they broke. Not a failure: the
    /// cable lives on in pieces (see [`Stepper::torn`](crate::Stepper::torn)).
    pub torn: Vec<(Entity, usize)>,
    /// Contacts that began or ended this step, while contacts are tracked
    /// ([`CableWorld::set_track_contacts`](crate::ecs::CableWorld::set_track_contacts)),
    /// sorted by cable and collider handle (see
    /// [`Stepper::contact_events`](crate::Stepper::contact_events)). News,
    /// not failures. A pair whose cable or collider entity is gone (its
    /// contact ended by despawning) is not listed.
    pub contacts: Vec<EntityContact>,
}

impl StepReport {
    /// True when the step refused and repaired nothing (segments that tore
    /// and contacts are news, not failures: see [`StepReport::torn`]).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bad_targets.is_empty()
            && self.bad_poses.is_empty()
            && self.lost_cables.is_empty()
            && self.lost_colliders.is_empty()
            && self.bad_winches.is_empty()
            && self.stalled_winches.is_empty()
            && self.bad_bodies.is_empty()
            && self.refused_specs.is_empty()
            && self.rejected.is_empty()
            && self.dropped.is_empty()
    }

    pub(super) fn clear(&mut self) {
        self.bad_targets.clear();
        self.bad_poses.clear();
        self.lost_cables.clear();
        self.lost_colliders.clear();
        self.bad_winches.clear();
        self.stalled_winches.clear();
        self.bad_bodies.clear();
        self.refused_specs.clear();
        self.rejected.clear();
        self.dropped.clear();
        self.torn.clear();
        self.contacts.clear();
    }
}
