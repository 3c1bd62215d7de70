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

/// Proof that the running CPU has AVX2, and the one door to code compiled
/// for it: [`Avx2::run`]. Only [`Avx2::active`] makes one, so safe code
/// cannot hold one on a CPU without AVX2.
///
/// The wide kernel's lane loops are compiled for AVX2 by inlining them
/// into a `#[target_feature(enable = "avx2")]` function; the contact
/// passes, too large to inline into every kernel, go through this door one
/// pass at a time ([`crate::contact::Contacts`]).
///
/// # Example
/// ```
/// use cable_systems::simd::Avx2;
/// let sum = |x: &[f32]| x.iter().sum::<f32>();
/// let x = [1.0, 2.0, 3.0];
/// // The same IEEE operations on either path: the same result.
/// let on_path = Avx2::on_path(Avx2::active(), || sum(&x));
/// assert_eq!(on_path, sum(&x));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2(());

impl Avx2 {
    /// `Some` when the wide kernel runs on AVX2 now ([`active`]).
    #[must_use]
    pub fn active() -> Option<Self> {
        (active() == Simd::Avx2).then_some(Self(()))
    }

    /// Runs `f` compiled for AVX2: `f`'s body, and what it inlines, is
    /// inlined into a function compiled with AVX2 enabled.
    #[inline(always)]
    pub fn run<R>(self, f: impl FnOnce() -> R) -> R {
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2")]
            #[inline(never)]
            fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            // SAFETY: `self` exists only when `active` saw the running CPU
            // report AVX2 (`is_x86_feature_detected!`, through `detected`),
            // the one precondition of calling a `#[target_feature(enable =
            // "avx2")]` function.
            #[allow(unsafe_code)]
            unsafe {
                with_avx2(f)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            f()
        }
    }

    /// Runs `f` out of line, on AVX2 when `avx2` is `Some`, else compiled
    /// for the build's baseline: one copy of `f` per path, whatever the
    /// number of call sites of the function that calls this.
    #[inline(always)]
    pub fn on_path<R>(avx2: Option<Self>, f: impl FnOnce() -> R) -> R {
        match avx2 {
            Some(a) => a.run(f),
            None => out_of_line(f),
        }
    }
}

/// Runs `f` out of line, compiled for the build's baseline: `f`'s body,
/// and what it inlines, is inlined into one function of its own.
#[inline(never)]
pub fn out_of_line<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Asks the CPU to bring the 64-byte line holding address `addr` into its
/// level-2 cache, without waiting for it: a hint that reads nothing the
/// program can see, changes nothing, and is dropped for an address that is
/// not mapped. `lanes8` asks for the next bundle's rows while a bundle
/// solves ([`crate::lanes`]), so that a frame of one substep finds them in
/// cache instead of waiting on memory at each first touch.
#[inline(always)]
pub(crate) fn prefetch(addr: usize) {
    #[cfg(test)]
    PREFETCHES.fetch_add(1, Ordering::Relaxed);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
        // SAFETY: `prefetch` (the instruction) performs no access the
        // program can observe: it raises no fault, even for an address that
        // is not mapped, and changes no value, so any address is sound; the
        // pointer is never dereferenced. It needs SSE, which every x86-64
        // CPU has (the target's baseline).
        #[allow(unsafe_code)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T1>(std::ptr::without_provenance(addr));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

/// Lines [`prefetch`] was asked for, in this process (tests check that the
/// hint runs).
#[cfg(test)]
pub(crate) static PREFETCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
