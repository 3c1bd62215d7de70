//! The plugin: its settings, its system sets, and how it adds the systems.

use bevy_app::{App, FixedUpdate, Plugin, PostUpdate};
use bevy_ecs::prelude::*;
use cable_core::mesh::MeshOptions;
use cable_systems::{Layout, SolverParams};

use crate::simulation::{CableContact, CableNotice, CableSimulation, CableTorn, log_error};
use crate::systems::{control_cables, step, sync_cables, sync_colliders, write_back};
use crate::tubes::update_tubes;

/// Adds the cable simulation to an app: the [`CableSimulation`] resource and
/// the systems of the crate docs' steps.
///
/// # Example
/// ```
/// use bevy_app::App;
/// use cable_bevy::{CablePlugin, CableSimulation};
///
/// let mut app = App::new();
/// app.add_plugins(CablePlugin { substeps: 2, ..CablePlugin::default() });
/// assert_eq!(app.world().resource::<CableSimulation>().pool().cable_count(), 0);
/// ```
#[derive(Debug, Clone)]
pub struct CablePlugin {
    /// World parameters: gravity, iterations, damping, friction,
    /// `max_substeps`. Its `substep` is replaced by the fixed timestep over
    /// [`CablePlugin::substeps`] at every step. Change them at run time
    /// with [`CableSimulation::set_params`].
    pub params: SolverParams,
    /// Solver substeps per `FixedUpdate` (≥ 1, at most
    /// `params.max_substeps`). Default 1. Cables are checked against the
    /// substep this gives (`Time<Fixed>::timestep() / substeps`): a
    /// compliance that overflows at it is refused at spawn.
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
            params: SolverParams::default(),
            substeps: 1,
            layout: Layout::default(),
            mesh: MeshOptions::default(),
        }
    }
}

/// The ordered stages of the plugin, for ordering your own systems around
/// them (as `bevy_rapier`'s `PhysicsSet`).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CableSystems {
    /// `FixedUpdate`: components into the pool (cables, colliders).
    Sync,
    /// `FixedUpdate`: attachments resolved, the solver run.
    Step,
    /// `FixedUpdate`: positions into [`CableParticles`](crate::CableParticles).
    Writeback,
    /// `PostUpdate`: [`CableTube`](crate::CableTube) meshes rebuilt.
    Mesh,
}

impl Plugin for CablePlugin {
    fn build(&self, app: &mut App) {
        let mut params = self.params;
        params.max_substeps = params.max_substeps.max(self.substeps.max(1));
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
        app.insert_resource(sim)
            .add_message::<CableNotice>()
            .add_message::<CableContact>()
            .add_message::<CableTorn>()
            .configure_sets(
                FixedUpdate,
                (
                    CableSystems::Sync,
                    CableSystems::Step,
                    CableSystems::Writeback,
                )
                    .chain(),
            )
            .add_systems(
                FixedUpdate,
                (
                    (sync_cables, sync_colliders, control_cables)
                        .chain()
                        .in_set(CableSystems::Sync),
                    step.in_set(CableSystems::Step),
                    write_back.in_set(CableSystems::Writeback),
                ),
            )
            .add_systems(PostUpdate, update_tubes.in_set(CableSystems::Mesh));
    }
}
