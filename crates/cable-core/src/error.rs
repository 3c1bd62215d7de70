//! Errors returned when user data is refused.

use thiserror::Error;

/// Why a cable description, a parameter or a pool operation was refused.
///
/// Every variant names the offending field (`field`), so a caller can point
/// the user at the exact place, for example `cables[3].segments`.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CableError {
    /// A number is NaN or infinite.
    #[error("{field}: must be a finite number, got {value}")]
    NotFinite {
        /// The field that holds the value.
        field: &'static str,
        /// The offending value, as written.
        value: f64,
    },
    /// A number lies outside the range the engine accepts.
    #[error("{field}: {expected}, got {value}")]
    OutOfRange {
        /// The field that holds the value.
        field: &'static str,
        /// A human-readable statement of the accepted range, e.g. "must be greater than 0".
        expected: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A list holds too few entries.
    #[error("{field}: needs at least {min} entries, got {got}")]
    TooFew {
        /// The field that holds the list.
        field: &'static str,
        /// The least number of entries accepted.
        min: usize,
        /// How many were given.
        got: usize,
    },
    /// Two consecutive points of a cable coincide, which leaves a segment with no length.
    #[error("points[{index}]: coincides with the point before it (segment of zero length)")]
    ZeroLengthSegment {
        /// Index of the second of the two coincident points.
        index: usize,
    },
    /// Adding the cable would exceed the pool's particle budget.
    #[error(
        "particles: the cable needs {requested} particles but the pool holds {live} of a budget of {budget}"
    )]
    BudgetExceeded {
        /// Particles the new cable needs.
        requested: usize,
        /// Particles already in the pool.
        live: usize,
        /// The pool's configured budget ([`crate::ParticlePool::with_budget`]).
        budget: usize,
    },
    /// A winch ([`crate::CableParams::reel_speed`]) could not pay out: the
    /// particles it needed do not fit the pool's particle budget. The
    /// stepper stopped that winch (its `reel_speed` is now 0), with the
    /// cable paid out as far as the budget allows.
    #[error(
        "cable {cable:?}: its winch stopped: paying out needs {requested} more particles, but the pool holds {live} of its budget of {budget}"
    )]
    WinchBudget {
        /// The cable whose winch stopped.
        cable: crate::CableHandle,
        /// Particles the payout still needed when the budget ran out.
        requested: usize,
        /// Particles in the pool.
        live: usize,
        /// The pool's configured budget ([`crate::ParticlePool::with_budget`]).
        budget: usize,
    },
    /// Memory for a buffer could not be had: the request is larger than the
    /// machine (or the process's limit) can give. Nothing was changed.
    #[error("{what}: cannot allocate {bytes} bytes")]
    OutOfMemory {
        /// What the memory was for, e.g. "mesh vertices".
        what: &'static str,
        /// Bytes asked for.
        bytes: u64,
    },
    /// The handle names a cable that was removed (or never belonged to this pool).
    #[error("cable handle {0:?} is stale: the cable was removed or belongs to another pool")]
    StaleHandle(crate::CableHandle),
    /// The handle names a collider that was removed (or never belonged to this set).
    #[error("collider handle {0:?} is stale: the collider was removed or belongs to another set")]
    StaleCollider(crate::ColliderHandle),
    /// A restored state (or a pool checked by
    /// [`crate::ParticlePool::validate`]) breaks an invariant: a hand-edited
    /// or damaged save. Nothing was restored.
    #[error("{place}: {reason}")]
    InvalidState {
        /// Where, as a path into the saved state, e.g. `pool.cables[3].first`.
        place: String,
        /// What is wrong, e.g. "rows 40..60 lie outside the 50 rows of the columns".
        reason: String,
    },
    /// An entry of a list was refused, for example the fourth point of a
    /// batch of queries: `points[3].y: must be a finite number, got NaN`.
    #[error("{list}[{index}].{source}")]
    InList {
        /// The list, e.g. "points".
        list: &'static str,
        /// Index of the refused entry.
        index: usize,
        /// Why it was refused; its field names the part of the entry.
        source: Box<CableError>,
    },
    /// A particle index lies outside the cable.
    #[error("particle index {index} is out of range for a cable of {len} particles")]
    ParticleOutOfRange {
        /// The index asked for.
        index: usize,
        /// The cable's particle count.
        len: usize,
    },
}

/// Checks that `value` is finite, naming `field` otherwise.
///
/// # Example
/// ```
/// # use cable_core::error::check_finite;
/// assert!(check_finite("length", 2.0).is_ok());
/// assert!(check_finite("length", f32::NAN).is_err());
/// ```
pub fn check_finite(field: &'static str, value: f32) -> Result<f32, CableError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(CableError::NotFinite {
            field,
            value: f64::from(value),
        })
    }
}

/// Checks that every component of `v` is finite and within
/// ±[`crate::MAX_COORDINATE`], naming `field` otherwise.
pub fn check_vec3(field: &'static str, v: glam::Vec3) -> Result<glam::Vec3, CableError> {
    for c in v.to_array() {
        check_finite(field, c)?;
        if c.abs() > crate::MAX_COORDINATE {
            return Err(CableError::OutOfRange {
                field,
                expected: "every component must lie within ±1e6",
                value: f64::from(c),
            });
        }
    }
    Ok(v)
}

/// Checks that `q` is a unit quaternion (every component finite, length
/// within 1e-3 of 1), naming `field` otherwise, and returns it normalised.
/// A zero quaternion is refused: it is no rotation at all.
///
/// # Example
/// ```
/// # use cable_core::error::check_rotation;
/// use glam::Quat;
/// assert!(check_rotation("rotation", Quat::IDENTITY).is_ok());
/// assert!(check_rotation("rotation", Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)).is_err());
/// ```
pub fn check_rotation(field: &'static str, q: glam::Quat) -> Result<glam::Quat, CableError> {
    for c in q.to_array() {
        check_finite(field, c)?;
    }
    let len = q.length();
    if (len - 1.0).abs() > 1.0e-3 {
        return Err(CableError::OutOfRange {
            field,
            expected: "must be a unit quaternion [x, y, z, w] (length 1)",
            value: f64::from(len),
        });
    }
    Ok(q / len)
}
