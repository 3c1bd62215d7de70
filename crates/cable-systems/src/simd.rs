//! Run-time choice of the SIMD instructions the wide kernel is compiled
//! for: the default build runs the best the CPU has, without RUSTFLAGS.
//!
//! The kernel's lane types ([`crate::lane::Fx`]) are plain arrays, so the
//! same source compiles to SSE2 (the x86-64 baseline) and, inside a
//! function marked `#[target_feature(enable = "avx2")]`, to 256-bit AVX2.
//! Both paths perform the same IEEE operations (no fused multiply-add), so
//! their results are bitwise equal; tests force each path with
//! [`force`].

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction set the wide kernel can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Simd {
    /// What the build targets (SSE2 on a default x86-64 build).
    Baseline,
    /// 256-bit AVX2, when the CPU has it.
    Avx2,
}

impl Simd {
    /// The name used by `cable bench --simd`: `baseline` or `avx2`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Simd::Baseline => "baseline",
            Simd::Avx2 => "avx2",
        }
    }
}

const AUTO: u8 = 0;
const BASELINE: u8 = 1;
const AVX2: u8 = 2;

static FORCED: AtomicU8 = AtomicU8::new(AUTO);

/// The best instruction set this CPU supports.
#[must_use]
pub fn detected() -> Simd {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return Simd::Avx2;
    }
    Simd::Baseline
}

/// The instruction set the wide kernel uses now: the one [`force`]d, else
/// [`detected`].
#[must_use]
pub fn active() -> Simd {
    match FORCED.load(Ordering::Relaxed) {
        BASELINE => Simd::Baseline,
        AVX2 if detected() == Simd::Avx2 => Simd::Avx2,
        _ => detected(),
    }
}

/// Forces an instruction set for the whole process (`None`: back to
/// automatic), for tests and benchmarks that compare the paths. Forcing
/// AVX2 on a CPU without it falls back to [`detected`]. Results do not
/// change, only speed.
///
/// # Example
/// ```
/// use cable_systems::simd::{self, Simd};
/// simd::force(Some(Simd::Baseline));
/// assert_eq!(simd::active(), Simd::Baseline);
/// simd::force(None);
/// assert_eq!(simd::active(), simd::detected());
/// ```
pub fn force(simd: Option<Simd>) {
    let v = match simd {
        None => AUTO,
        Some(Simd::Baseline) => BASELINE,
        Some(Simd::Avx2) => AVX2,
    };
    FORCED.store(v, Ordering::Relaxed);
}
