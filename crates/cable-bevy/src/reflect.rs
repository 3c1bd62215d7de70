//! The types registered for reflection (inspectors, scene files).

use bevy_app::App;

use crate::clock::CableClock;
use crate::components::{
    Cable, CableAnchor, CableAttachments, CableBody, CableCollider, CableColliderBody,
    CableColliderForce, CableHidden, CableInterpolated, CableParticles, CableRejected, CableStatus,
    CableTension, CableTube, CableWinch,
};
use crate::simulation::CableSimulation;

/// Registers the crate's reflected types.
pub(crate) fn register(app: &mut App) {
    app.register_type::<Cable>()
        .register_type::<CableAnchor>()
        .register_type::<CableAttachments>()
        .register_type::<CableBody>()
        .register_type::<CableClock>()
        .register_type::<CableCollider>()
        .register_type::<CableColliderBody>()
        .register_type::<CableColliderForce>()
        .register_type::<CableHidden>()
        .register_type::<CableInterpolated>()
        .register_type::<CableParticles>()
        .register_type::<CableRejected>()
        .register_type::<CableSimulation>()
        .register_type::<CableStatus>()
        .register_type::<CableTension>()
        .register_type::<CableTube>()
        .register_type::<CableWinch>();
}
