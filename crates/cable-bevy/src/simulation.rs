//! The [`CableSimulation`] resource (the pool, the stepper, the map between
//! entities and handles) and the [`CableNotice`] message.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_reflect::std_traits::ReflectDefault;
use cable_core::mesh::{MeshBuffers, MeshOptions};
use cable_core::{CableError, CableHandle, ColliderHandle, End, ParticlePool};
use cable_systems::bind::WinchOrders;
use cable_systems::{Layout, SolverParams, Stepper};

#[cfg(doc)]
use crate::clock::CableClock;
#[cfg(doc)]
use crate::components::{Cable, CableCollider, CableColliderBody, CableInterpolated};
use crate::components::{CableBody, CableParticles, CableRejected};
use crate::convert::cable_glam;

/// The simulation: the particle pool, the stepper and the map between
/// entities and pool handles. A resource added by [`CablePlugin`](crate::CablePlugin).
///
/// # Reflection
/// Registered, but opaque to inspectors: none of its fields is reflected
/// (the pool and the stepper are `cable_core`/`cable_systems` types, which
/// have no `Reflect`; the rest is the plugin's bookkeeping). Read it
/// through its methods; save it with [`CableSimulation::save`].
#[derive(Resource, Debug, bevy_reflect::Reflect)]
#[reflect(Resource, Default)]
pub struct CableSimulation {
    #[reflect(ignore)]
    pub(crate) pool: ParticlePool,
    #[reflect(ignore)]
    pub(crate) stepper: Stepper,
    #[reflect(ignore)]
    pub(crate) substeps: u32,
    #[reflect(ignore)]
    pub(crate) mesh_options: MeshOptions,
    #[reflect(ignore)]
    pub(crate) mesh: MeshBuffers,
    #[reflect(ignore)]
    pub(crate) cables: HashMap<Entity, CableHandle>,
    #[reflect(ignore)]
    pub(crate) colliders: HashMap<Entity, ColliderHandle>,
    /// Each attached end's target at the end of the previous step, to
    /// interpolate from.
    #[reflect(ignore)]
    pub(crate) targets: HashMap<(CableHandle, End), cable_glam::Vec3>,
    /// Reused per step: (cable, end, from, to).
    #[reflect(ignore)]
    pub(crate) moves: Vec<(CableHandle, End, cable_glam::Vec3, cable_glam::Vec3)>,
    /// Reused per sync: cable entities whose pool cable was removed
    /// behind the plugin's back, with the removed handle.
    #[reflect(ignore)]
    pub(crate) lost: Vec<(Entity, CableHandle)>,
    /// The last step-level error logged, so that a failure repeated every
    /// fixed step is logged once; cleared by a step that runs.
    #[reflect(ignore)]
    pub(crate) last_error: Option<String>,
    /// Each cable's winch orders: the last given (refused ones too, so a
    /// refusal is reported once) and the last the pool accepted
    /// (`bind::apply_controls`).
    #[reflect(ignore)]
    pub(crate) winches: HashMap<CableHandle, WinchOrders>,
    /// The attached ends whose target the last step refused, so that a
    /// refusal is noticed once, when it starts.
    #[reflect(ignore)]
    pub(crate) refused_targets: HashSet<(CableHandle, End)>,
    /// The steps follow `Time<Fixed>` one per run ([`CableClock::Fixed`]),
    /// or accumulate `Time` ([`CableClock::Accumulated`]).
    #[reflect(ignore)]
    pub(crate) fixed_clock: bool,
    /// [`CableClock::Accumulated`]: time not yet stepped.
    #[reflect(ignore)]
    pub(crate) accumulator: Duration,
    /// Where rendering stands between the last two steps, 0 to 1: set
    /// by the interpolation system, read by the meshes.
    #[reflect(ignore)]
    pub(crate) fraction: f32,
    /// Steps the last run of the step system ran (0 when the
    /// accumulator held less than a step).
    #[reflect(ignore)]
    pub(crate) ran: u32,
    /// The tube meshes of the interpolated cables before the last step.
    #[reflect(ignore)]
    pub(crate) prev_mesh: MeshBuffers,
    /// The interpolated cables with a tube, whose mesh before the last
    /// step is kept (reused per step).
    #[reflect(ignore)]
    pub(crate) interpolated_tubes: Vec<CableHandle>,
    /// Reused per step: one cable's positions.
    #[reflect(ignore)]
    pub(crate) scratch: Vec<cable_glam::Vec3>,
}

impl Default for CableSimulation {
    fn default() -> Self {
        Self {
            pool: ParticlePool::new(),
            stepper: Stepper::with_layout(SolverParams::default(), Layout::default())
                .unwrap_or_else(|_| unreachable!("the default parameters are valid")),
            substeps: 1,
            mesh_options: MeshOptions::default(),
            mesh: MeshBuffers::new(),
            cables: HashMap::new(),
            colliders: HashMap::new(),
            targets: HashMap::new(),
            moves: Vec::new(),
            lost: Vec::new(),
            last_error: None,
            winches: HashMap::new(),
            refused_targets: HashSet::new(),
            fixed_clock: true,
            accumulator: Duration::ZERO,
            fraction: 1.0,
            ran: 0,
            prev_mesh: MeshBuffers::new(),
            interpolated_tubes: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

impl CableSimulation {
    pub(crate) fn new(
        params: SolverParams,
        layout: Layout,
        substeps: u32,
        mesh: MeshOptions,
    ) -> Result<Self, CableError> {
        if substeps == 0 {
            return Err(CableError::OutOfRange {
                field: "substeps",
                expected: "must be at least 1",
                value: 0.0,
            });
        }
        mesh.validate()?;
        Ok(Self {
            stepper: Stepper::with_layout(params, layout)?,
            substeps,
            mesh_options: mesh,
            ..Self::default()
        })
    }

    /// The particle pool: positions of any cable by handle, zero copy.
    #[must_use]
    pub fn pool(&self) -> &ParticlePool {
        &self.pool
    }

    /// The particle pool, for what the components do not cover (particle
    /// masses, velocities, parameters of one cable). Cables and colliders
    /// made from entities are the plugin's: remove them by despawning the
    /// entity (or removing its [`Cable`] or [`CableCollider`]).
    ///
    /// Removing an entity's cable here does not end it: the next
    /// [`CableSystems::Sync`](crate::CableSystems::Sync) rebuilds it from the entity's [`Cable`] (a
    /// new [`CableBody`], the particles back where the [`Cable`] put
    /// them), logs it and sends a [`CableNotice::Lost`]; a collider removed
    /// here is added again the same way. Parameters set here are checked
    /// at the next step: a cable whose compliance then overflows at the
    /// substep is taken out alone ([`CableNotice::Rejected`], or
    /// [`CableNotice::Dropped`] for a cable added here), so the others
    /// keep moving.
    pub fn pool_mut(&mut self) -> &mut ParticlePool {
        &mut self.pool
    }

    /// The solver parameters in force.
    #[must_use]
    pub fn params(&self) -> &SolverParams {
        self.stepper.params()
    }

    /// Replaces the world parameters (gravity, iterations, damping,
    /// friction) from the next step on. `substep` is ignored: it follows
    /// the fixed timestep.
    ///
    /// # Errors
    /// A parameter out of range; the old ones stay.
    pub fn set_params(&mut self, params: SolverParams) -> Result<(), CableError> {
        let mut params = params;
        params.substep = self.stepper.params().substep;
        params.max_substeps = params.max_substeps.max(self.substeps);
        self.stepper.set_params(params)
    }

    /// The stepper (layout, simulated time, substeps run).
    #[must_use]
    pub fn stepper(&self) -> &Stepper {
        &self.stepper
    }

    /// Turns contact tracking on or off (off by default): while on, each
    /// fixed step sends a [`CableContact`] for each contact between a
    /// cable entity and a collider entity that began or ended. Costs some
    /// time in the contact passes of cables near colliders; changes no
    /// motion.
    pub fn set_track_contacts(&mut self, on: bool) {
        self.pool.colliders_mut().set_track_contacts(on);
    }

    /// The pool cable of a cable entity, once [`CableSystems::Sync`](crate::CableSystems::Sync) has run.
    #[must_use]
    pub fn cable_of(&self, entity: Entity) -> Option<CableHandle> {
        self.cables.get(&entity).copied()
    }

    /// Where rendering stands between the last two steps, from 0 (the
    /// step before the last) to 1 (the last step), as the last
    /// [`CableSystems::Interpolate`](crate::CableSystems::Interpolate) found it: `Time<Fixed>::overstep_fraction()`
    /// with [`CableClock::Fixed`], the plugin's accumulator over the
    /// timestep with [`CableClock::Accumulated`]. [`CableInterpolated`]
    /// readouts and interpolated tube meshes are at this fraction.
    #[must_use]
    pub fn overstep_fraction(&self) -> f32 {
        self.fraction
    }

    /// The pool collider of a collider entity.
    #[must_use]
    pub fn collider_of(&self, entity: Entity) -> Option<ColliderHandle> {
        self.colliders.get(&entity).copied()
    }

    /// The solver substep a fixed timestep of `dt` seconds gives, set on
    /// the stepper; `None` (logged once) when the stepper refuses it or
    /// `dt` is not positive.
    pub(crate) fn sync_substep(&mut self, dt: f32) -> Option<f32> {
        if !(dt > 0.0 && dt.is_finite()) {
            return None;
        }
        let h = dt / self.substeps as f32;
        if self.stepper.params().substep != h {
            let params = SolverParams {
                substep: h,
                ..*self.stepper.params()
            };
            if let Err(e) = self.stepper.set_params(params) {
                self.log_once(format!("cable-bevy: fixed timestep {dt} s refused: {e}"));
                return None;
            }
        }
        Some(h)
    }

    /// Keeps the tube meshes of the interpolated cables as they are
    /// before a step, to interpolate the meshes from.
    pub(crate) fn snapshot_tubes(&mut self) {
        if self.interpolated_tubes.is_empty() {
            return;
        }
        let result = cable_systems::mesh::build_meshes_for(
            &self.pool,
            &self.mesh_options,
            &self.interpolated_tubes,
            &mut self.prev_mesh,
        );
        if let Err(e) = result {
            // The tube is then drawn at the last step, not interpolated.
            self.prev_mesh = MeshBuffers::new();
            self.log_once(format!("cable-bevy: interpolated meshes not kept: {e}"));
        }
    }

    /// Logs a step-level error unless it is the one logged last.
    pub(crate) fn log_once(&mut self, message: String) {
        if self.last_error.as_deref() != Some(message.as_str()) {
            log_error(&message);
            self.last_error = Some(message);
        }
    }

    /// Takes every pool cable that refuses substep `h` out of the pool, so
    /// that the others can step: an entity's cable leaves its entity with
    /// a [`CableRejected`] (and empty [`CableParticles`]), one added
    /// through [`CableSimulation::pool_mut`] is removed. Each is logged
    /// and sent as a [`CableNotice`].
    pub(crate) fn drop_refused(
        &mut self,
        h: f32,
        commands: &mut Commands,
        notices: &mut MessageWriter<CableNotice>,
    ) {
        for (handle, error) in cable_systems::bind::take_refused(&mut self.pool, h) {
            self.targets.remove(&(handle, End::Start));
            self.targets.remove(&(handle, End::End));
            let owner = self
                .cables
                .iter()
                .find(|(_, c)| **c == handle)
                .map(|(e, _)| *e);
            match owner {
                Some(entity) => {
                    self.cables.remove(&entity);
                    log_error(&format!(
                        "cable-bevy: cable {entity} taken out of the simulation \
                         (substep {h} s): {error}"
                    ));
                    if let Ok(mut e) = commands.get_entity(entity) {
                        e.try_remove::<CableBody>()
                            .try_insert((CableRejected(error.clone()), CableParticles::default()));
                    }
                    notices.write(CableNotice::Rejected { entity, error });
                }
                None => {
                    log_error(&format!(
                        "cable-bevy: pool cable {handle:?} (no entity) removed \
                         (substep {h} s): {error}"
                    ));
                    notices.write(CableNotice::Dropped { handle, error });
                }
            }
        }
    }
}

/// What the plugin refused or repaired on its own, as a message (read it
/// with a `MessageReader<CableNotice>`); each is also logged once.
///
/// # Example
/// ```
/// use bevy_ecs::prelude::*;
/// use cable_bevy::CableNotice;
///
/// fn report(mut notices: MessageReader<CableNotice>) {
///     for notice in notices.read() {
///         if let CableNotice::Rejected { entity, error } = notice {
///             println!("cable {entity} refused: {error}");
///         }
///     }
/// }
/// # bevy_ecs::system::assert_is_system(report);
/// ```
#[derive(Message, Debug, Clone, PartialEq)]
pub enum CableNotice {
    /// The entity's [`Cable`] has no pool cable: refused at spawn (for
    /// example a mass out of range, or a compliance that overflows at the
    /// substep), or taken out at a step because it no longer fits the
    /// substep. The entity has a [`CableRejected`] with the same error.
    Rejected {
        /// The cable entity.
        entity: Entity,
        /// Why.
        error: CableError,
    },
    /// The entity's pool cable was removed behind the plugin's back
    /// (through [`CableSimulation::pool_mut`]): it was rebuilt from its
    /// [`Cable`] (see its new [`CableBody`]), or refused
    /// ([`CableNotice::Rejected`] follows).
    Lost {
        /// The cable entity.
        entity: Entity,
        /// The removed pool cable.
        handle: CableHandle,
    },
    /// A pool cable no entity owns (added through
    /// [`CableSimulation::pool_mut`]) no longer fit the substep and would
    /// have stopped every step: it was removed from the pool.
    Dropped {
        /// The removed pool cable.
        handle: CableHandle,
        /// Why.
        error: CableError,
    },
    /// The pool refused the entity's [`CableWinch`](crate::CableWinch)
    /// order (a target length or speed out of range): the cable's winch
    /// keeps what it did before. Sent once per order.
    BadWinch {
        /// The cable entity.
        entity: Entity,
        /// Why.
        error: CableError,
    },
    /// The target of an attached end of the entity's cable was refused: a
    /// [`CableAnchor::Point`](crate::CableAnchor::Point), or the followed
    /// entity's translation, the offset or the end's position, NaN or
    /// beyond ±1e6 m, or its rotation not a unit quaternion (the checks of
    /// the hecs layer, `cable_systems::bind::entity_target`). The end keeps
    /// its last good target, and moves from there to the next good one.
    /// Sent once when an end's targets start being refused (again after a
    /// good one).
    BadTarget {
        /// The cable entity.
        entity: Entity,
        /// Which end.
        end: End,
        /// The followed entity (`None` for a point).
        target: Option<Entity>,
        /// Why.
        error: CableError,
    },
    /// The entity's winch stopped in this step because paying out needed
    /// more particles than the pool's budget
    /// ([`CableError::WinchBudget`]); the step ran for everything else.
    /// The winch stays stopped until its [`CableWinch`](crate::CableWinch)
    /// changes. Sent in the step it stopped.
    WinchStalled {
        /// The cable entity.
        entity: Entity,
        /// The [`CableError::WinchBudget`], naming how many particles the
        /// winch needed and the budget.
        error: CableError,
    },
    /// The entity's pool collider was removed behind the plugin's back
    /// (through [`CableSimulation::pool_mut`]): it was added again from its
    /// [`CableCollider`] (see its new [`CableColliderBody`]).
    ColliderLost {
        /// The collider entity.
        entity: Entity,
        /// The removed pool collider.
        handle: ColliderHandle,
    },
}

/// A cable entity started or stopped touching a collider entity, as a
/// message (read it with a `MessageReader<CableContact>`), sent after each
/// fixed step while contacts are tracked
/// ([`CableSimulation::set_track_contacts`]). A pair touches during a
/// step when a contact pushed the cable out of the collider in some
/// substep; a sleeping cable keeps its contacts; pairs whose entity is
/// gone are not sent (see `cable_systems::events`).
///
/// # Example
/// ```
/// use bevy_ecs::prelude::*;
/// use cable_bevy::CableContact;
/// use cable_bevy::cable_systems::events::ContactKind;
///
/// fn clack(mut contacts: MessageReader<CableContact>) {
///     for c in contacts.read() {
///         if c.kind == ContactKind::Began {
///             println!("cable {} hit {}", c.cable, c.collider);
///         }
///     }
/// }
/// # bevy_ecs::system::assert_is_system(clack);
/// ```
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CableContact {
    /// The cable entity.
    pub cable: Entity,
    /// The collider entity.
    pub collider: Entity,
    /// Began or ended.
    pub kind: cable_systems::events::ContactKind,
}

/// A segment of a cable entity broke (`CableParams::break_tension`), as a
/// message sent after the fixed step it broke in, in the order segments
/// broke; the cable lives on in pieces (`Stepper::torn`).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CableTorn {
    /// The cable entity.
    pub cable: Entity,
    /// The segment's index when it broke, counted from the start particle.
    pub segment: usize,
}

/// Logs what the plugin refused or repaired on its own, as an error of
/// target `cable_bevy` through `tracing`: Bevy's `LogPlugin` shows it with
/// Bevy's own messages (and filters it like them); an app without a
/// subscriber prints nothing (the [`CableNotice`] messages carry the same).
pub(crate) fn log_error(message: &str) {
    tracing::error!(target: "cable_bevy", "{message}");
}
