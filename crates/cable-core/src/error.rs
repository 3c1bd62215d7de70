//! Errors returned when user data is refused.

use thiserror::Error;

/// A refused value as an error message shows it: the shortest decimal
/// that reads back as the same `f32` when the value is one (most come
/// from `f32` fields: 0.1, not 0.10000000149011612), whole numbers in
/// all their digits, in exponent form from 10⁸ up or below 10⁻⁴ (1e30,
/// not 31 digits).
struct Shown(f64);

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = self.0;
        let a = v.abs();
        let short = v as f32;
        let exp = a >= 1.0e8 || (a != 0.0 && a < 1.0e-4);
        let from_f32 = f64::from(short) == v;
        if exp && from_f32 {
            write!(f, "{short:e}")
        } else if exp {
            write!(f, "{v:e}")
        } else if from_f32 && v.fract() != 0.0 {
            write!(f, "{short}")
        } else {
            // Whole numbers below 10⁸ in all their digits.
            write!(f, "{v}")
        }
    }
}

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
    #[error("{field}: {expected}, got {}", Shown(*.value))]
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

#[cfg(test)]
mod shown_tests {
    use super::CableError;

    fn says(value: f64) -> String {
        CableError::OutOfRange {
            field: "x",
            expected: "must be something",
            value,
        }
        .to_string()
    }

    #[test]
    fn refused_values_read_as_they_were_written() {
        assert_eq!(says(0.0), "x: must be something, got 0");
        assert_eq!(says(-1.0), "x: must be something, got -1");
        assert_eq!(says(-3.0e6), "x: must be something, got -3000000");
        assert_eq!(says(99_999_999.0), "x: must be something, got 99999999");
        assert_eq!(
            says(4_294_967_296.0),
            "x: must be something, got 4.2949673e9"
        );
        // From f32 fields: their shortest decimal, not the f64 expansion.
        assert_eq!(says(f64::from(0.1f32)), "x: must be something, got 0.1");
        assert_eq!(says(f64::from(1.0e30f32)), "x: must be something, got 1e30");
        assert_eq!(
            says(f64::from(-2.5e-7f32)),
            "x: must be something, got -2.5e-7"
        );
        // Values no f32 holds keep their f64 digits.
        assert_eq!(says(0.1), "x: must be something, got 0.1");
        assert_eq!(says(1.0e60), "x: must be something, got 1e60");
    }

    #[test]
    fn a_compliance_too_soft_for_the_substep_reports_the_ratio_checked() {
        let p = crate::CableParams {
            compliance: 1.0,
            ..crate::CableParams::default()
        };
        let e = p
            .validate_for_substep(1.0e-30)
            .expect_err("1 / 1e-60 overflows");
        let text = e.to_string();
        assert!(
            text.starts_with("compliance: compliance / substep²"),
            "{text}"
        );
        let got: f64 = text
            .rsplit("got ")
            .next()
            .and_then(|v| v.parse().ok())
            .expect("a number");
        assert!((got / 1.0e60 - 1.0).abs() < 1.0e-6, "{text}");
    }
}
