//! Save and restore of the whole simulation through the plugin: the pool
//! and the stepper (`cable_systems::save`), plus what the plugin keeps
//! between steps, so that a restored run goes on bit for bit.

use std::collections::HashMap;
use std::io;
use std::time::Duration;

use bevy_ecs::prelude::*;
use cable_core::mesh::MeshBuffers;
use cable_core::{CableHandle, ColliderHandle, End, ParticlePool, Winch};
use cable_systems::Stepper;
use cable_systems::bind::WinchOrders;
use cable_systems::save::SaveError;
use serde::{Deserialize, Serialize};

use crate::components::{
    Cable, CableBody, CableCollider, CableColliderBody, CableInterpolated, CableParticles,
    CableRejected,
};
use crate::convert::{cable_glam, to_bevy};
use crate::simulation::CableSimulation;

/// The `format` field of a plugin save.
const FORMAT: &str = "cable-bevy-save";
/// The version of the plugin's save format this build writes and reads.
const VERSION: u32 = 1;

/// What is written: borrowed from the resource.
#[derive(Serialize)]
struct SavedRef<'a> {
    format: &'a str,
    version: u32,
    pool: &'a ParticlePool,
    stepper: &'a Stepper,
    links: Links,
}

/// What is read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Saved {
    format: String,
    version: u32,
    pool: ParticlePool,
    stepper: Stepper,
    links: Links,
}

/// Winch orders by cable: (target length, speed), `None` for no order.
type SavedWinches = Vec<(CableHandle, Option<(f32, f32)>)>;

/// The plugin's own state: which entity owns which handle, each attached
/// end's last target (the next step moves the end from it), the last
/// winch orders, the accumulated clock's time not yet stepped.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Links {
    /// (entity bits, handle).
    cables: Vec<(u64, CableHandle)>,
    colliders: Vec<(u64, ColliderHandle)>,
    targets: Vec<(CableHandle, End, [f32; 3])>,
    /// The last winch order given to each cable (accepted or not).
    winches: SavedWinches,
    /// The last winch order the pool accepted of each cable; a save
    /// without it (written before it was kept) takes the given ones.
    #[serde(default)]
    running: Option<SavedWinches>,
    accumulator_nanos: u64,
}

impl CableSimulation {
    /// Saves the simulation as JSON: every cable, particle and collider,
    /// the solver's clock, and the plugin's own state between steps (which
    /// entity owns which cable and collider, the attached ends' last
    /// targets, the winch orders, the accumulated time), so that
    /// [`restore_simulation`] continues the run bit for bit. Call it
    /// between steps (in an exclusive system, or outside the schedule);
    /// the save names entities by their bits: restore it into the same
    /// world (a quick save, a rewind, a rollback). Your own entities (the
    /// transforms cables hang from, the colliders' poses, `Time`) are
    /// yours to save.
    ///
    /// # Errors
    /// As `cable_systems::save::save_state`: [`SaveError::Invalid`] for a
    /// state that cannot be restored as it is (a simulation gone NaN),
    /// [`SaveError::Io`] when writing fails.
    ///
    /// # Example
    /// ```
    /// use bevy_app::App;
    /// use bevy_ecs::world::World;
    /// use cable_bevy::{CablePlugin, CableSimulation, restore_simulation};
    ///
    /// let mut app = App::new();
    /// app.add_plugins(CablePlugin::default());
    /// let mut file = Vec::new(); // a BufWriter around a File in a game
    /// app.world().resource::<CableSimulation>().save(&mut file)?;
    /// restore_simulation(app.world_mut(), file.as_slice())?;
    /// # Ok::<(), cable_bevy::cable_systems::save::SaveError>(())
    /// ```
    pub fn save<W: io::Write>(&self, writer: W) -> Result<(), SaveError> {
        cable_systems::bind::check_savable(&self.pool, &self.stepper)?;
        let mut targets: Vec<_> = self
            .targets
            .iter()
            .map(|(&(h, end), v)| (h, end, v.to_array()))
            .collect();
        let mut cables: Vec<_> = self.cables.iter().map(|(e, h)| (e.to_bits(), *h)).collect();
        let mut colliders: Vec<_> = self
            .colliders
            .iter()
            .map(|(e, h)| (e.to_bits(), *h))
            .collect();
        let pair = |w: Option<Winch>| w.map(|w| (w.target_length, w.speed));
        let mut winches: Vec<_> = self
            .winches
            .iter()
            .map(|(h, w)| (*h, pair(w.given)))
            .collect();
        let mut running: Vec<_> = self
            .winches
            .iter()
            .map(|(h, w)| (*h, pair(w.running)))
            .collect();
        // Sorted: the same state writes the same file.
        targets.sort_by_key(|t| (t.0, t.1 == End::End));
        cables.sort_unstable();
        colliders.sort_unstable();
        winches.sort_by_key(|w| w.0);
        running.sort_by_key(|w| w.0);
        let saved = SavedRef {
            format: FORMAT,
            version: VERSION,
            pool: &self.pool,
            stepper: &self.stepper,
            links: Links {
                cables,
                colliders,
                targets,
                winches,
                running: Some(running),
                accumulator_nanos: u64::try_from(self.accumulator.as_nanos()).unwrap_or(u64::MAX),
            },
        };
        serde_json::to_writer(writer, &saved)?;
        Ok(())
    }
}

/// A format error at `path` of the save.
fn format_error(path: &str, message: String) -> SaveError {
    SaveError::Format {
        path: path.to_owned(),
        source: <serde_json::Error as serde::de::Error>::custom(message),
    }
}

/// Restores a save written by [`CableSimulation::save`] into `world`'s
/// [`CableSimulation`], and links the world's entities to it again: each
/// cable entity the save knows gets its saved [`CableBody`] (its
/// [`CableParticles`] the restored positions), each collider entity its
/// [`CableColliderBody`]; pool cables and colliders of entities that are
/// gone (or lost their component) are removed; cable and collider
/// entities spawned after the save are built anew at the next step, as
/// new ones. [`CableInterpolated`] readouts restart from the restored
/// positions. The step after this one goes on bit for bit as the saved
/// run did, given the same inputs (the targets' transforms, `Time`).
///
/// Call it between steps, with the world at hand: in an exclusive system
/// (`fn load(world: &mut World)`), through `commands.queue(|world:
/// &mut World| { ... })`, or outside the schedule.
///
/// # Errors
/// [`SaveError::Format`] for anything that is not a valid plugin save of
/// this version (as `cable_systems::save::restore_state`, the pool and
/// the stepper are validated); [`SaveError::Io`] when reading fails or
/// the world has no [`CableSimulation`] (no [`CablePlugin`](crate::CablePlugin)).
/// On error the world is untouched.
pub fn restore_simulation<R: io::Read>(world: &mut World, reader: R) -> Result<(), SaveError> {
    let saved: Saved = serde_json::from_reader(reader)?;
    if saved.format != FORMAT {
        return Err(format_error(
            "format",
            format!("is {:?}, not {FORMAT:?}", saved.format),
        ));
    }
    if saved.version != VERSION {
        return Err(format_error(
            "version",
            format!("is {}, this build reads {VERSION}", saved.version),
        ));
    }
    if let Err(e) = saved
        .pool
        .validate_records_for_substep(saved.stepper.params().substep)
    {
        return Err(format_error("pool", e.to_string()));
    }
    if !world.contains_resource::<CableSimulation>() {
        return Err(SaveError::Io(io::Error::other(
            "no CableSimulation resource: add CablePlugin first",
        )));
    }
    let Saved {
        mut pool,
        stepper,
        links,
        ..
    } = saved;

    // Cables: the saved owners that still hold a `Cable` keep their pool
    // cable; the others' are removed.
    let mut cables = HashMap::new();
    for (bits, handle) in links.cables {
        let owner = Entity::try_from_bits(bits).filter(|e| world.get::<Cable>(*e).is_some());
        match owner {
            Some(entity) if pool.contains(handle) => {
                cables.insert(entity, handle);
            }
            _ => {
                let _ = pool.remove_cable(handle);
            }
        }
    }
    let mut colliders = HashMap::new();
    for (bits, handle) in links.colliders {
        let owner =
            Entity::try_from_bits(bits).filter(|e| world.get::<CableCollider>(*e).is_some());
        match owner {
            Some(entity) if pool.colliders().contains(handle) => {
                colliders.insert(entity, handle);
            }
            _ => {
                let _ = pool.colliders_mut().remove(handle);
            }
        }
    }
    // Link the entities: saved ones get their handles, later ones are new.
    let cable_entities: Vec<Entity> = world
        .query_filtered::<Entity, With<Cable>>()
        .iter(world)
        .collect();
    let mut buf: Vec<cable_glam::Vec3> = Vec::new();
    for entity in cable_entities {
        let mut e = world.entity_mut(entity);
        e.remove::<CableRejected>();
        match cables.get(&entity) {
            Some(&handle) => {
                e.insert(CableBody { handle });
                if pool.copy_positions(handle, &mut buf).is_ok()
                    && let Some(mut p) = e.get_mut::<CableParticles>()
                {
                    p.positions.clear();
                    p.positions.extend(buf.iter().map(|v| to_bevy(*v)));
                }
            }
            None => {
                e.remove::<CableBody>();
            }
        }
        if let Some(mut i) = e.get_mut::<CableInterpolated>() {
            i.previous.clear();
        }
    }
    let collider_entities: Vec<Entity> = world
        .query_filtered::<Entity, With<CableCollider>>()
        .iter(world)
        .collect();
    for entity in collider_entities {
        let mut e = world.entity_mut(entity);
        match colliders.get(&entity) {
            Some(&handle) => {
                e.insert(CableColliderBody { handle });
            }
            None => {
                e.remove::<CableColliderBody>();
            }
        }
    }
    let targets = links
        .targets
        .into_iter()
        .filter(|(h, _, _)| pool.contains(*h))
        .map(|(h, end, v)| ((h, end), cable_glam::Vec3::from_array(v)))
        .collect();
    let order = |w: Option<(f32, f32)>| {
        w.map(|(target_length, speed)| Winch {
            target_length,
            speed,
        })
    };
    let mut winches: HashMap<CableHandle, WinchOrders> = links
        .winches
        .into_iter()
        .filter(|(h, _)| pool.contains(*h))
        .map(|(h, w)| (h, WinchOrders::accepted(order(w))))
        .collect();
    for (h, w) in links.running.into_iter().flatten() {
        if let Some(orders) = winches.get_mut(&h) {
            orders.running = order(w);
        }
    }
    // Checked above: the plugin's resource is there.
    let Some(mut sim) = world.get_resource_mut::<CableSimulation>() else {
        return Ok(());
    };
    let sim = &mut *sim;
    sim.pool = pool;
    sim.stepper = stepper;
    sim.cables = cables;
    sim.colliders = colliders;
    sim.targets = targets;
    sim.winches = winches;
    sim.refused_targets.clear();
    sim.accumulator = Duration::from_nanos(links.accumulator_nanos);
    sim.last_error = None;
    sim.moves.clear();
    // Caches of the old pool.
    sim.mesh = MeshBuffers::new();
    sim.prev_mesh = MeshBuffers::new();
    Ok(())
}
