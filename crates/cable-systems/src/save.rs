//! Save and restore a whole simulation (feature `serde`, on by default):
//! the [`ParticlePool`] and the [`Stepper`], so that a run restored
//! mid-way continues bitwise as if it had never stopped.
//!
//! [`save_state`] writes JSON (`f32` values round-trip exactly through
//! serde_json: checked for every `f32` bit pattern, subnormals and `-0.0`
//! included); [`restore_state`] reads it back and validates it
//! ([`ParticlePool::validate`], [`crate::SolverParams::validate`]), so a
//! truncated or hand-edited save is an error naming what is wrong, never a
//! panic or a broken pool. For a format of your own (a binary one, or a
//! save game holding more), [`SimulationState`], [`ParticlePool`] and
//! [`Stepper`] are `Serialize` and `Deserialize` for any serde format.
//!
//! # What is saved
//! - the pool: its identity (so the game's [`cable_core::CableHandle`]s
//!   and [`cable_core::ColliderHandle`]s name the same cables and
//!   colliders after a restore), its particle budget, every particle
//!   column, each cable's parameters, attachments, broken segments and
//!   winch state, the slot arena (generations, free list), the colliders
//!   and the pose each had at the last substep;
//! - the stepper: its parameters, the time carried to the next frame, the
//!   substeps run (so [`Stepper::time`] goes on), its layout and whether it
//!   tracks tension.
//!
//! Not saved: the layouts' buffers (a cache of the pool: a restored stepper
//! gathers them again, and results do not change), the colliders' prepared
//! world shapes (rebuilt before every substep), the pool's revisions
//! (process-local; a restored pool gets fresh ones). The ECS layer saves
//! its own state on top (`ecs::CableWorld::save_state`).
//!
//! # Example
//! ```
//! use cable_core::{CableDesc, ParticlePool};
//! use cable_systems::save::{restore_state, save_state};
//! use cable_systems::{SolverParams, Stepper};
//! use glam::Vec3;
//!
//! let mut pool = ParticlePool::new();
//! let rope = pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 5.0, 16)?)?;
//! let mut stepper = Stepper::new(SolverParams::default())?;
//! for _ in 0..30 {
//!     stepper.advance(&mut pool, 1.0 / 60.0)?;
//! }
//! let mut file = Vec::new();
//! save_state(&mut file, &pool, &stepper)?;
//!
//! let (mut copy, mut copy_stepper) = restore_state(file.as_slice())?.into_parts();
//! for _ in 0..30 {
//!     stepper.advance(&mut pool, 1.0 / 60.0)?;
//!     copy_stepper.advance(&mut copy, 1.0 / 60.0)?;
//! }
//! assert_eq!(copy.positions(rope)?, pool.positions(rope)?); // the same handle, the same bits
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::io;

use cable_core::{CableError, ParticlePool, SetupMismatch};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::params::SolverParams;
use crate::step::Stepper;

/// The `format` field of a save.
pub const FORMAT: &str = "cable-save";

/// The version of the save format this build writes and reads.
pub const VERSION: u32 = 1;

/// Why a state could not be saved or restored.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The state cannot be saved as it is, for example a simulation gone
    /// NaN ([`ParticlePool::validate`] names the place); nothing was
    /// written.
    #[error("cannot save: {0}")]
    Invalid(#[from] CableError),
    /// The save is not one this build reads: not JSON, truncated, not a
    /// `cable-save`, another version, or a state that breaks an invariant
    /// of the pool or the stepper. The message names the place (`path`,
    /// such as `pool.pos[3][1]`, and for an invariant the place within the
    /// pool, such as `cables[3].first`), the reason, and the line and
    /// column in the file.
    #[error("save {}{source}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
    Format {
        /// Where in the save's JSON the error was found (empty at the top).
        path: String,
        /// The reason, with the line and column.
        source: serde_json::Error,
    },
    /// Reading or writing failed.
    #[error("save: {0}")]
    Io(io::Error),
}

impl From<serde_json::Error> for SaveError {
    fn from(e: serde_json::Error) -> Self {
        if e.is_io() {
            SaveError::Io(e.into())
        } else {
            SaveError::Format {
                path: String::new(),
                source: e,
            }
        }
    }
}

impl From<serde_path_to_error::Error<serde_json::Error>> for SaveError {
    fn from(e: serde_path_to_error::Error<serde_json::Error>) -> Self {
        let path = e.path().to_string();
        match SaveError::from(e.into_inner()) {
            SaveError::Format { source, .. } if path != "." => SaveError::Format { path, source },
            other => other,
        }
    }
}

/// A whole simulation: the pool and the stepper that runs it. Serialises as
/// `{"format": "cable-save", "version": 1, "pool": ..., "stepper": ...}`;
/// deserialising checks the format and version first, then validates the
/// pool and the stepper.
#[derive(Debug, Clone)]
pub struct SimulationState {
    /// Every cable, particle and collider.
    pub pool: ParticlePool,
    /// Parameters, accumulator, substeps run, layout.
    pub stepper: Stepper,
}

impl SimulationState {
    /// The pool and the stepper.
    #[must_use]
    pub fn into_parts(self) -> (ParticlePool, Stepper) {
        (self.pool, self.stepper)
    }

    /// Checks that this state is a run of the scene whose freshly built
    /// pool is `pool` and whose solver parameters are `params`: the same
    /// solver parameters, bit for bit, and a pool that passes
    /// [`ParticlePool::check_same_setup`] (the same cables with the same
    /// parameters, masses, pins and attachments, the same colliders;
    /// positions and velocities, broken segments and a winch's particles
    /// may differ). Call it before continuing a saved run of a scene, so
    /// that a save of another scene is an error rather than a run of
    /// that other scene.
    ///
    /// # Errors
    /// A [`SetupMismatch`] naming the first difference:
    /// `params.substep: save has 0.01, scene has 0.016666668`,
    /// `cables[1].params.compliance: save has 0.01, scene has 0`.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use cable_systems::save::{restore_state, save_state};
    /// use cable_systems::{SolverParams, Stepper};
    /// use glam::Vec3;
    ///
    /// let scene = |length: f32| -> Result<ParticlePool, cable_core::CableError> {
    ///     let mut pool = ParticlePool::new();
    ///     pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, length, 8)?)?;
    ///     Ok(pool)
    /// };
    /// let (mut pool, params) = (scene(1.5)?, SolverParams::default());
    /// let mut stepper = Stepper::new(params)?;
    /// stepper.advance(&mut pool, 0.1)?;
    /// let mut file = Vec::new();
    /// save_state(&mut file, &pool, &stepper)?;
    /// let state = restore_state(file.as_slice())?;
    /// assert!(state.check_same_setup(&scene(1.5)?, &params).is_ok());
    /// let err = state.check_same_setup(&scene(2.0)?, &params).unwrap_err();
    /// assert_eq!(err.to_string(), "cables[0].rest[0]: save has 0.1875, scene has 0.25");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_same_setup(
        &self,
        pool: &ParticlePool,
        params: &SolverParams,
    ) -> Result<(), SetupMismatch> {
        check_solver(self.stepper.params(), params)?;
        self.pool.check_same_setup(pool)
    }
}

/// Compares two solver parameters field by field, bit for bit, naming the
/// first that differs (`params.substep`).
fn check_solver(saved: &SolverParams, scene: &SolverParams) -> Result<(), SetupMismatch> {
    let SolverParams {
        gravity,
        substep,
        iterations,
        max_substeps,
        damping,
        friction,
        solver,
        cable_collision,
    } = *saved;
    let num = |field: &str, a: f32, b: f32| {
        if a.to_bits() == b.to_bits() {
            Ok(())
        } else {
            Err(SetupMismatch::new(
                format!("params.{field}"),
                a.to_string(),
                b.to_string(),
            ))
        }
    };
    let vec = |v: glam::Vec3| format!("[{}, {}, {}]", v.x, v.y, v.z);
    if gravity.to_array().map(f32::to_bits) != scene.gravity.to_array().map(f32::to_bits) {
        return Err(SetupMismatch::new(
            "params.gravity",
            vec(gravity),
            vec(scene.gravity),
        ));
    }
    num("substep", substep, scene.substep)?;
    for (field, a, b) in [
        ("iterations", iterations, scene.iterations),
        ("max_substeps", max_substeps, scene.max_substeps),
    ] {
        if a != b {
            return Err(SetupMismatch::new(
                format!("params.{field}"),
                a.to_string(),
                b.to_string(),
            ));
        }
    }
    num("damping", damping, scene.damping)?;
    num("friction", friction, scene.friction)?;
    if solver != scene.solver {
        return Err(SetupMismatch::new(
            "params.solver",
            solver.name(),
            scene.solver.name(),
        ));
    }
    if cable_collision != scene.cable_collision {
        return Err(SetupMismatch::new(
            "params.cable_collision",
            cable_collision.to_string(),
            scene.cable_collision.to_string(),
        ));
    }
    Ok(())
}

/// Writes the envelope around borrowed parts.
pub(crate) fn serialize_parts<S: Serializer>(
    s: S,
    pool: &ParticlePool,
    stepper: &Stepper,
) -> Result<S::Ok, S::Error> {
    let mut st = s.serialize_struct("SimulationState", 4)?;
    st.serialize_field("format", FORMAT)?;
    st.serialize_field("version", &VERSION)?;
    st.serialize_field("stepper", stepper)?;
    st.serialize_field("pool", pool)?;
    st.end()
}

impl Serialize for SimulationState {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_parts(s, &self.pool, &self.stepper)
    }
}

/// Borrowed parts, for [`save_state`] (no copy of the pool).
struct StateRef<'a>(&'a ParticlePool, &'a Stepper);

impl Serialize for StateRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_parts(s, self.0, self.1)
    }
}

const FIELDS: &[&str] = &["format", "version", "stepper", "pool"];

impl<'de> Deserialize<'de> for SimulationState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_struct("SimulationState", FIELDS, StateVisitor)
    }
}

struct StateVisitor;

impl<'de> Visitor<'de> for StateVisitor {
    type Value = SimulationState;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {FORMAT} object (format, version, stepper, pool)")
    }

    /// Checks `format` and `version` as soon as they come (a save writes
    /// them first), so a save of another version is refused by its
    /// version, not by whatever changed in its pool.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SimulationState, A::Error> {
        let (mut format, mut version, mut stepper, mut pool) = (false, false, None, None);
        while let Some(key) = map.next_key::<String>()? {
            let seen = match key.as_str() {
                "format" => {
                    let f: String = map.next_value()?;
                    if f != FORMAT {
                        return Err(de::Error::custom(format!(
                            "format: is {f:?}, not a {FORMAT:?} file"
                        )));
                    }
                    std::mem::replace(&mut format, true)
                }
                "version" => {
                    let v: u32 = map.next_value()?;
                    if v != VERSION {
                        return Err(de::Error::custom(format!(
                            "version: is {v}, this build reads version {VERSION}"
                        )));
                    }
                    std::mem::replace(&mut version, true)
                }
                "stepper" => stepper.replace(map.next_value::<Stepper>()?).is_some(),
                "pool" => pool.replace(map.next_value::<ParticlePool>()?).is_some(),
                other => return Err(de::Error::unknown_field(other, FIELDS)),
            };
            if seen {
                return Err(de::Error::custom(format!("{key}: given twice")));
            }
        }
        if !format {
            return Err(de::Error::missing_field("format"));
        }
        if !version {
            return Err(de::Error::missing_field("version"));
        }
        let stepper = stepper.ok_or_else(|| de::Error::missing_field("stepper"))?;
        let pool = pool.ok_or_else(|| de::Error::missing_field("pool"))?;
        // Each part is valid; together, the stepper must be able to step
        // the pool (a compliance its substep cannot hold is refused here,
        // not at the first step).
        pool.validate_records_for_substep(stepper.params().substep)
            .map_err(|e| de::Error::custom(format!("pool.{e}")))?;
        Ok(SimulationState { stepper, pool })
    }
}

/// Saves `pool` and `stepper` as JSON into `writer` (wrap a file in a
/// [`io::BufWriter`]). Call it between frames: after
/// [`Stepper::advance`] returns, the pool holds the whole state whatever
/// the layout. The pool is checked first ([`ParticlePool::validate`]), so
/// a written save always restores. O(particles): about 120 bytes a
/// particle (a cable of 32 segments takes 4 KB; 330,000 particles save in
/// 0.2 s and restore in 0.4 s on a 2-core machine, `examples/save_load.rs`).
///
/// # Errors
/// [`SaveError::Invalid`] when the state cannot be restored as it is (a
/// simulation gone NaN or beyond [`cable_core::MAX_STATE_COORDINATE`], or a
/// cable the stepper's substep cannot step, naming the place);
/// [`SaveError::Io`] when writing fails.
pub fn save_state<W: io::Write>(
    writer: W,
    pool: &ParticlePool,
    stepper: &Stepper,
) -> Result<(), SaveError> {
    crate::bind::check_savable(pool, stepper)?;
    serde_json::to_writer(writer, &StateRef(pool, stepper))?;
    Ok(())
}

/// Restores a state written by [`save_state`] from `reader` (wrap a file in
/// a [`io::BufReader`]), validated. Step the restored pool with the
/// restored stepper (or any stepper with the same parameters) and it goes
/// on bitwise as the saved run would have; the game's handles name the
/// same cables and colliders.
///
/// # Errors
/// [`SaveError::Format`] for anything that is not a valid save of this
/// version (the message names the place, e.g. `cables[3].first` in the
/// pool or `stepper.accumulator`, and the line and column): values out of
/// the ranges [`ParticlePool::validate`] and
/// [`crate::SolverParams::validate`] check, or a cable the stepper's
/// substep cannot step ([`ParticlePool::validate_records_for_substep`]).
/// So a damaged save does not restore to a state that turns NaN in its
/// first steps.
/// To continue a saved run of a scene, check that the save is one of that
/// scene too ([`SimulationState::check_same_setup`]);
/// [`SaveError::Io`] when reading fails.
pub fn restore_state<R: io::Read>(reader: R) -> Result<SimulationState, SaveError> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    let state: SimulationState = serde_path_to_error::deserialize(&mut de)?;
    de.end()?;
    Ok(state)
}
