//! What every part of the scene file shares: the error type, which names
//! a place in the file, and the checked conversions of JSON numbers (so
//! `scene` and `scene_colliders` both build on it and neither on the
//! other).

use std::fmt;

use cable_core::CableError;
use glam::Vec3;

/// A refused scene: where in the file, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {reason}")]
pub struct SceneError {
    /// Where: `scene.cables[1].segments`, or `scene line 7 column 12`.
    pub place: String,
    /// Why, in one line.
    pub reason: String,
}

impl SceneError {
    /// An error at `place` for `reason`. Control characters (a key or a
    /// string of the file may hold an escaped newline) are written as
    /// escapes, so the message stays one line.
    pub(crate) fn at(place: impl fmt::Display, reason: impl fmt::Display) -> Self {
        Self {
            place: one_line(&place.to_string()),
            reason: one_line(&reason.to_string()),
        }
    }

    /// A [`CableError`] about the cable at `base` (e.g. `scene.cables[2]`).
    pub(crate) fn from_cable(base: &str, e: &CableError) -> Self {
        match e {
            CableError::NotFinite { field, .. } | CableError::OutOfRange { field, .. } => {
                let reason = e.to_string();
                let reason = reason
                    .strip_prefix(&format!("{field}: "))
                    .unwrap_or(&reason)
                    .to_owned();
                Self::at(format!("{base}.{}", field.replace(' ', "_")), reason)
            }
            CableError::TooFew { field, min, got } => Self::at(
                format!("{base}.{field}"),
                format!("needs at least {min} entries, got {got}"),
            ),
            CableError::ZeroLengthSegment { index } => Self::at(
                format!("{base}.points[{index}]"),
                "coincides with the point before it (a segment of zero length)",
            ),
            other => Self::at(base, other),
        }
    }
}

/// Largest magnitude accepted for any number before conversion to f32.
const MAX_MAGNITUDE: f64 = 1.0e30;

pub(crate) fn f32_of(place: &str, v: f64) -> Result<f32, SceneError> {
    if !v.is_finite() || v.abs() > MAX_MAGNITUDE {
        return Err(SceneError::at(
            place,
            format!("must be a finite number of magnitude at most 1e30, got {v}"),
        ));
    }
    Ok(v as f32)
}

pub(crate) fn vec3(place: &str, v: [f64; 3]) -> Result<Vec3, SceneError> {
    let mut out = [0f32; 3];
    for (o, c) in out.iter_mut().zip(v) {
        *o = f32_of(place, c)?;
        if o.abs() > cable_core::MAX_COORDINATE {
            return Err(SceneError::at(
                place,
                format!("every component must lie within ±1e6, got {c}"),
            ));
        }
    }
    Ok(Vec3::from_array(out))
}

/// `text` with its control characters escaped (`\n`, `\u{c}`).
fn one_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
