//! The plugin: its settings, its system sets, and how it adds the systems.

use bevy_app::{
    App, FixedFirst, FixedLast, FixedMain, FixedPostUpdate, FixedPreUpdate, FixedUpdate, Plugin,
    PostUpdate, RunFixedMainLoop, RunFixedMainLoopSystems,
};
use bevy_ecs::intern::Interned;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::ScheduleLabel;
use cable_core::mesh::MeshOptions;
use cable_systems::{Layout, SolverParams};

use crate::clock::CableClock;
use crate::simulation::{CableContact, CableNotice, CableSimulation, CableTorn, log_error};
use crate::systems::{control_cables, interpolate, step, sync_cables, sync_colliders, write_back};
use crate::tubes::update_tubes;

/// Adds the cable simulation to an app: the [`CableSimulation`] resource and
/// the systems of the crate docs' steps, in [`CablePlugin::schedule`]
/// (`FixedUpdate` by default).
///
/// # Example
/// ```
/// use bevy_app::{App, FixedPostUpdate};
/// use cable_bevy::{CablePlugin, CableSimulation};
///
/// let mut app = App::new();
/// app.add_plugins(CablePlugin { substeps: 2, ..CablePlugin::in_schedule(FixedPostUpdate) });
/// assert_eq!(app.world().resource::<CableSimulation>().pool().cable_count(), 0);
/// ```
#[derive(Debug, Clone)]
pub struct CablePlugin {
    /// The schedule the sync, step and write-back systems run in. Default
    /// `FixedUpdate`. See [`CableClock`] for how long a step is there.
    pub schedule: Interned<dyn ScheduleLabel>,
    /// How the steps follow time in [`CablePlugin::schedule`]. Default
    /// [`CableClock::Auto`].
    pub clock: CableClock,
    /// World parameters: gravity, iterations, damping, friction,
    /// `max_substeps`. Its `substep` is replaced by the fixed timestep over
    /// [`CablePlugin::substeps`] at every step. Change them at run time
    /// with [`CableSimulation::set_params`].
    pub params: SolverParams,
    /// Solver substeps per step (≥ 1, at most `params.max_substeps`).
    /// Default 1. Cables are checked against the substep this gives
    /// (`Time<Fixed>::timestep() / substeps`): a compliance that overflows
    /// at it is refused at spawn.
    pub substeps: u32,
    /// The particle layout (see `cable_systems::layout`). Default: the
    /// fastest exact one.
    pub layout: Layout,
    /// How [`CableTube`](crate::CableTube) meshes are built (sides and radius come from each
    /// cable's parameters).
    pub mesh: MeshOptions,
}

impl Default for CablePlugin {
    fn default() -> Self {
        Self {
            schedule: FixedUpdate.intern(),
            clock: CableClock::Auto,
            params: SolverParams::default(),
            substeps: 1,
            layout: Layout::default(),
            mesh: MeshOptions::default(),
        }
    }
}

impl CablePlugin {
    /// The default plugin, run in `schedule` (as `bevy_rapier`'s
    /// `RapierPhysicsPlugin::in_schedule` and avian's
    /// `PhysicsPlugins::new`). In a schedule of `FixedMain` it runs one
    /// fixed step per run; in any other (`Update`, `PostUpdate`, your own)
    /// it accumulates `Time` and runs whole fixed steps ([`CableClock`]).
    ///
    /// # Example
    /// ```
    /// use bevy_app::{App, FixedPostUpdate};
    /// use cable_bevy::{CableClock, CablePlugin};
    ///
    /// // After your game's own FixedUpdate systems.
    /// let plugin = CablePlugin::in_schedule(FixedPostUpdate);
    /// assert_eq!(plugin.resolved_clock(), CableClock::Fixed);
    /// App::new().add_plugins(plugin);
    /// ```
    #[must_use]
    pub fn in_schedule(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
            ..Self::default()
        }
    }

    /// [`CablePlugin::clock`] with [`CableClock::Auto`] decided:
    /// [`CableClock::Fixed`] or [`CableClock::Accumulated`].
    #[must_use]
    pub fn resolved_clock(&self) -> CableClock {
        match self.clock {
            CableClock::Auto => {
                let fixed = [
                    FixedFirst.intern(),
                    FixedPreUpdate.intern(),
                    FixedUpdate.intern(),
                    FixedPostUpdate.intern(),
                    FixedLast.intern(),
                    FixedMain.intern(),
                ];
                if fixed.contains(&self.schedule) {
                    CableClock::Fixed
                } else {
                    CableClock::Accumulated
                }
            }
            clock => clock,
        }
    }
}

/// The ordered stages of the plugin, for ordering your own systems around
/// them (as `bevy_rapier`'s `PhysicsSet`).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CableSystems {
    /// [`CablePlugin::schedule`]: components into the pool (cables, colliders).
    Sync,
    /// [`CablePlugin::schedule`]: attachments resolved, the solver run.
    Step,
    /// [`CablePlugin::schedule`]: positions into [`CableParticles`](crate::CableParticles).
    Writeback,
    /// [`CableInterpolated`](crate::CableInterpolated) readouts written:
    /// in `RunFixedMainLoop` after the fixed loop
    /// (`RunFixedMainLoopSystems::AfterFixedMainLoop`, so `Update` reads
    /// them) with [`CableClock::Fixed`], right after
    /// [`CableSystems::Writeback`] with [`CableClock::Accumulated`].
    Interpolate,
    /// `PostUpdate`: [`CableTube`](crate::CableTube) meshes rebuilt.
    Mesh,
}

impl Plugin for CablePlugin {
    fn build(&self, app: &mut App) {
        let mut params = self.params;
        params.max_substeps = params.max_substeps.max(self.substeps.max(1));
        let fixed = self.resolved_clock() == CableClock::Fixed;
        let sim = match CableSimulation::new(params, self.layout, self.substeps, self.mesh) {
            Ok(sim) => sim,
            Err(e) => {
                // A plugin cannot return an error; fall back to the defaults
                // and say why, rather than aborting the game.
                log_error(&format!(
                    "cable-bevy: invalid CablePlugin ({e}); using the defaults"
                ));
                CableSimulation::default()
            }
        };
        let sim = CableSimulation {
            fixed_clock: fixed,
            ..sim
        };
        let schedule = self.schedule;
        app.insert_resource(sim)
            .add_message::<CableNotice>()
            .add_message::<CableContact>()
            .add_message::<CableTorn>()
            .configure_sets(
                schedule,
                (
                    CableSystems::Sync,
                    CableSystems::Step,
                    CableSystems::Writeback,
                    CableSystems::Interpolate,
                )
                    .chain(),
            )
            .add_systems(
                schedule,
                (
                    (sync_cables, sync_colliders, control_cables)
                        .chain()
                        .in_set(CableSystems::Sync),
                    step.in_set(CableSystems::Step),
                    write_back.in_set(CableSystems::Writeback),
                ),
            )
            // Whatever the schedule, meshes come after the write-back and
            // the interpolation when they share `PostUpdate`.
            .configure_sets(
                PostUpdate,
                CableSystems::Mesh
                    .after(CableSystems::Writeback)
                    .after(CableSystems::Interpolate),
            )
            .add_systems(PostUpdate, update_tubes.in_set(CableSystems::Mesh));
        if fixed {
            app.add_systems(
                RunFixedMainLoop,
                interpolate
                    .in_set(CableSystems::Interpolate)
                    .in_set(RunFixedMainLoopSystems::AfterFixedMainLoop),
            );
        } else {
            app.add_systems(schedule, interpolate.in_set(CableSystems::Interpolate));
        }
        crate::reflect::register(app);
    }
}
