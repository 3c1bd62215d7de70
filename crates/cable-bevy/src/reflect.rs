//! The types registered for reflection (inspectors, scene files).

use bevy_app::App;

use crate::components::CableInterpolated;
use crate::plugin::CableClock;

/// Registers the crate's reflected types.
pub(crate) fn register(app: &mut App) {
    app.register_type::<CableClock>()
        .register_type::<CableInterpolated>();
}
