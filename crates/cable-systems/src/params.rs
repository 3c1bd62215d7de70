//! World-level solver parameters shared by the systems.

use cable_core::CableError;
use cable_core::error::{check_finite, check_vec3};
use glam::Vec3;

/// Most solver iterations per substep accepted by [`SolverParams::validate`].
pub const MAX_ITERATIONS: u32 = 1024;

/// Most substeps per frame accepted by [`SolverParams::validate`].
pub const MAX_SUBSTEPS: u32 = 10_000;

/// Parameters of the whole simulation (the scene file's top-level keys).
///
/// Units: metres, seconds. Defaults are those of the scene format.
///
/// With the `serde` feature it serialises with its field names (missing
/// fields take their defaults, unknown ones are refused).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct SolverParams {
    /// World gravity, m/s². Default `[0, -9.81, 0]`.
    pub gravity: Vec3,
    /// Fixed substep `h`, seconds, in (0, 1]. Default 1/60.
    pub substep: f32,
    /// Constraint solver iterations per substep (UE's `SolverIterations`), ≥ 1. Default 8.
    pub iterations: u32,
    /// Most substeps run for one frame; extra whole substeps are dropped
    /// (no spiral of death). ≥ 1. Default 16.
    pub max_substeps: u32,
    /// Linear velocity damping per second, ≥ 0: each substep the Verlet
    /// velocity is multiplied by `max(0, 1 - damping·h)`. 0 = none. Default 0.
    pub damping: f32,
    /// Friction on collider contact, 0..=1 (UE's `CollisionFriction`). Default 0.
    pub friction: f32,
    /// How each iteration solves the distance constraints. Default
    /// [`Solver::GaussSeidel`].
    pub solver: Solver,
    /// Cables collide with each other and with themselves: segment against
    /// segment, at the sum of the two cables' radii, with friction
    /// ([`crate::between`]; the scene's `cable_collision`). Which cables
    /// collide is chosen per cable by
    /// [`cable_core::CableParams::collision_groups`]. Default false.
    pub cable_collision: bool,
}

/// How each solver iteration solves a cable's distance constraints (the
/// scene's `solver` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Solver {
    /// The classic sweep over the segments in order, each projected alone
    /// (`"gauss-seidel"`): cheap, but a long chain stretches unless the
    /// iterations are many.
    #[default]
    GaussSeidel,
    /// All distance constraints of a cable at once (`"direct"`): each
    /// iteration is one Newton step of the constraints and the particles'
    /// inertia together, with the tension's geometric stiffness, a banded
    /// system solved exactly along the cable
    /// (`kernel::rod::solve_direct`), its multipliers carried from
    /// substep to substep: a chain is inextensible within a few iterations
    /// whatever its resolution, and a damped one comes to rest.
    Direct,
}

impl Solver {
    /// The scene-file name: `gauss-seidel` or `direct`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Solver::GaussSeidel => "gauss-seidel",
            Solver::Direct => "direct",
        }
    }
}

/// An unknown solver name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown solver `{0}`; available: gauss-seidel, direct")]
pub struct ParseSolverError(pub String);

impl std::str::FromStr for Solver {
    type Err = ParseSolverError;

    /// Parses `gauss-seidel` or `direct`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "gauss-seidel" => Ok(Solver::GaussSeidel),
            "direct" => Ok(Solver::Direct),
            _ => Err(ParseSolverError(s.to_owned())),
        }
    }
}

impl Default for SolverParams {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            substep: 1.0 / 60.0,
            iterations: 8,
            max_substeps: 16,
            damping: 0.0,
            friction: 0.0,
            solver: Solver::GaussSeidel,
            cable_collision: false,
        }
    }
}

impl SolverParams {
    /// Checks every field, naming the first that is out of range.
    ///
    /// # Errors
    /// [`CableError::NotFinite`] or [`CableError::OutOfRange`] naming the field.
    pub fn validate(&self) -> Result<(), CableError> {
        check_vec3("gravity", self.gravity)?;
        let h = check_finite("substep", self.substep)?;
        if !(h > 0.0 && h <= 1.0) {
            return Err(out_of_range(
                "substep",
                "must be greater than 0 and at most 1",
                h,
            ));
        }
        if !(1..=MAX_ITERATIONS).contains(&self.iterations) {
            return Err(out_of_range(
                "iterations",
                "must be between 1 and 1024",
                self.iterations as f32,
            ));
        }
        if !(1..=MAX_SUBSTEPS).contains(&self.max_substeps) {
            return Err(out_of_range(
                "max_substeps",
                "must be between 1 and 10000",
                self.max_substeps as f32,
            ));
        }
        let d = check_finite("damping", self.damping)?;
        if !(0.0..=1.0e6).contains(&d) {
            return Err(out_of_range("damping", "must be between 0 and 1e6", d));
        }
        let f = check_finite("friction", self.friction)?;
        if !(0.0..=1.0).contains(&f) {
            return Err(out_of_range("friction", "must be between 0 and 1", f));
        }
        Ok(())
    }
}

fn out_of_range(field: &'static str, expected: &'static str, value: f32) -> CableError {
    CableError::OutOfRange {
        field,
        expected,
        value: f64::from(value),
    }
}
