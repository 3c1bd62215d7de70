//! How the plugin's steps follow time ([`CableClock`]).

/// How the plugin's steps follow time. Every step is
/// `Time<Fixed>::timestep()` long (split into [`CablePlugin::substeps`](crate::CablePlugin::substeps)
/// substeps): a Verlet solver needs a fixed step, so a variable frame time
/// never reaches the solver.
///
/// # Example
/// ```
/// use bevy_app::Update;
/// use cable_bevy::{CableClock, CablePlugin};
///
/// // Stepped in `Update`: the frame times are accumulated and whole fixed
/// // steps run (as `bevy_rapier`'s `TimestepMode::Interpolated`).
/// let plugin = CablePlugin::in_schedule(Update);
/// assert_eq!(plugin.resolved_clock(), CableClock::Accumulated);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bevy_reflect::Reflect)]
pub enum CableClock {
    /// [`CableClock::Fixed`] when [`CablePlugin::schedule`](crate::CablePlugin::schedule) is one of the
    /// schedules of Bevy's `FixedMain` (`FixedFirst`, `FixedPreUpdate`,
    /// `FixedUpdate`, `FixedPostUpdate`, `FixedLast`, `FixedMain`),
    /// [`CableClock::Accumulated`] otherwise.
    #[default]
    Auto,
    /// Each run of the schedule is one step of `Time<Fixed>::timestep()`:
    /// for a schedule that runs once per fixed step (those of `FixedMain`,
    /// or your own schedule run from one). Interpolated readouts use
    /// `Time<Fixed>::overstep_fraction()`.
    Fixed,
    /// Each run of the schedule adds `Time`'s delta (virtual time in
    /// `Update` or `PostUpdate`: paused and scaled with it) to the plugin's
    /// accumulator and runs the whole steps of `Time<Fixed>::timestep()` it
    /// holds, keeping the remainder for the next run, as Bevy's fixed loop
    /// does (no time is dropped: `Time<Virtual>`'s maximum delta bounds a
    /// long frame, as it bounds the fixed loop).
    /// Interpolated readouts use the remainder over the timestep
    /// ([`CableSimulation::overstep_fraction`](crate::CableSimulation::overstep_fraction)).
    Accumulated,
}
