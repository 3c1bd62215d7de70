//! Profiler spans, compiled in with the `tracing` feature and to nothing
//! without it.
//!
//! Spans are coarse: one per stage of a frame (the step, the layout's run,
//! meshes, the ECS's sync phases, a snapshot publish, a query batch), never
//! per cable, particle or lane group. Their names:
//!
//! | span | around |
//! | --- | --- |
//! | `cable.step` | [`crate::Stepper::advance`], [`crate::Stepper::advance_with`] |
//! | `cable.run_substeps` | [`crate::Stepper::run_substeps`], [`crate::Stepper::run_stages`] |
//! | `cable.substep` | [`crate::substep`] |
//! | `cable.layout` | one call of [`crate::layout::LayoutState::advance`] (field `substeps`) |
//! | `cable.layout.aos`, `cable.layout.soa`, `cable.layout.lanes8` | each batch of substeps the layout runs |
//! | `cable.break` | breaking overloaded segments, between substeps |
//! | `cable.mesh` | [`crate::mesh::build_meshes`] |
//! | `cable.ecs.step` | `CableWorld::step` (feature `hecs`) |
//! | `cable.ecs.sync` | its phases before the step, inside it: `cable.ecs.spawn`, `cable.ecs.colliders`, `cable.ecs.cables` (liveness, attachments, winch, visibility) |
//! | `cable.ecs.write_back` | its copy of particles back to the entities |
//! | `cable.snapshot.publish` | [`crate::snapshot::SnapshotPublisher::publish`] |
//! | `cable.query.update`, `cable.query.raycast_many`, `cable.query.closest_points` | the [`crate::query::CableQuery`] methods |
//!
//! All are `INFO`-level spans of target `cable_systems::…`; a subscriber
//! such as `tracing-tracy` shows them on a timeline.

/// Opens an `INFO` span named `$name` (with optional `tracing` fields)
/// until the end of the enclosing block; expands to nothing without the
/// `tracing` feature, so its arguments are then not evaluated. Two in one
/// block nest: give each stage its own block.
#[cfg(feature = "tracing")]
macro_rules! span {
    ($name:literal $(, $($fields:tt)*)?) => {
        let _span = ::tracing::info_span!($name $(, $($fields)*)?).entered();
    };
}

/// Opens an `INFO` span named `$name` (with optional `tracing` fields)
/// until the end of the enclosing block; expands to nothing without the
/// `tracing` feature, so its arguments are then not evaluated. Two in one
/// block nest: give each stage its own block.
#[cfg(not(feature = "tracing"))]
macro_rules! span {
    ($name:literal $(, $($fields:tt)*)?) => {};
}

pub(crate) use span;

/// The `tracing` crate these spans are made with, so a subscriber can be
/// written against the same version.
#[cfg(feature = "tracing")]
pub use tracing;
