//! The bounds every check of the crate shares (a leaf: the error type,
//! descriptions, colliders and the pool all refer to them).

/// Largest accepted coordinate magnitude, metres. Beyond it f32 positions
/// lose millimetre precision and squared distances approach overflow.
pub const MAX_COORDINATE: f32 = 1.0e6;

/// Most segments one cable may have.
pub const MAX_SEGMENTS: u32 = 1 << 24;

/// Segments shorter than this (metres) are treated as zero-length: the
/// solver skips them (Flax's `ZeroTolerance`) and `from_points` refuses them.
pub const MIN_SEGMENT_LENGTH: f32 = 1.0e-6;
