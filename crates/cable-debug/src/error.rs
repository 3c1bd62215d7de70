//! Errors of the debug views: refused options and shapes.

use thiserror::Error;

/// Why a view was refused. Every variant names the field at fault, so a
/// caller can point the user at it (`width`, `shapes[2].radius`, …).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RenderError {
    /// An option of [`crate::AsciiOptions`] or [`crate::SvgOptions`] is out of range.
    #[error("{field}: {reason}")]
    Option {
        /// The option, e.g. `width` or `view`.
        field: &'static str,
        /// Why, in one line.
        reason: String,
    },
    /// A collider [`crate::Shape`] of a frame is invalid.
    #[error("shapes[{index}].{field}: {reason}")]
    Shape {
        /// Index of the shape in [`crate::Frame::shapes`].
        index: usize,
        /// The field at fault, e.g. `radius`.
        field: &'static str,
        /// Why, in one line.
        reason: String,
    },
    /// A frame index outside the recording.
    #[error("frame {index}: out of range for a recording of {len} frames")]
    FrameOutOfRange {
        /// The index asked for.
        index: usize,
        /// Frames recorded.
        len: usize,
    },
    /// A recording holds no frame.
    #[error("frames: the recording is empty")]
    NoFrames,
}

impl RenderError {
    pub(crate) fn option(field: &'static str, reason: impl Into<String>) -> Self {
        Self::Option {
            field,
            reason: reason.into(),
        }
    }
}
