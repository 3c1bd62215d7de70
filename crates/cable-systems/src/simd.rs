//! Run-time choice of the SIMD instructions the wide kernel is compiled
//! for: the default build runs the best the CPU has, without RUSTFLAGS.
//!
//! The kernel's lane types (`kernel::lane::Fx`) are plain arrays, so the
//! same source compiles to SSE2 (the x86-64 baseline) and, inside a
//! function marked `#[target_feature(enable = ...)]`, to 256-bit AVX2 or
//! to AVX-512 (F and VL) on the same lane types. All paths perform the
//! same IEEE operations (no fused multiply-add: Rust never contracts a
//! multiply and an add), so their results are bitwise equal; tests force
//! each path with `force`.
//!
//! The AVX-512 path runs the same lane types: what the compiler gains is
//! the instruction set's 32 vector registers (AVX2 has 16), mask
//! registers for the selects, and 512-bit instructions, which it picks for
//! the 32-lane arrays of the distance sweep (two registers per
//! coordinate). See `docs/guide/performance.md` for how to time each
//! path (`cable bench --simd`).

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction set the wide kernel can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Simd {
    /// What the build targets (SSE2 on a default x86-64 build).
    Baseline,
    /// 256-bit AVX2, when the CPU has it.
    Avx2,
    /// AVX-512 F and VL, when the CPU has them (and AVX2).
    Avx512,
}

impl Simd {
    /// Every path, slowest first.
    pub const ALL: [Simd; 3] = [Simd::Baseline, Simd::Avx2, Simd::Avx512];

    /// The name used by `cable bench --simd`: `baseline`, `avx2` or
    /// `avx512`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Simd::Baseline => "baseline",
            Simd::Avx2 => "avx2",
            Simd::Avx512 => "avx512",
        }
    }

    /// The path named `name` ([`Simd::name`]).
    ///
    /// # Example
    /// ```
    /// use cable_systems::simd::Simd;
    /// assert_eq!(Simd::from_name("avx512"), Some(Simd::Avx512));
    /// assert_eq!(Simd::from_name("neon"), None);
    /// ```
    #[must_use]
    pub fn from_name(name: &str) -> Option<Simd> {
        Simd::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether the running CPU has this path's instructions.
    #[must_use]
    pub fn supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Simd::Baseline => true,
                Simd::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
                Simd::Avx512 => {
                    std::arch::is_x86_feature_detected!("avx2")
                        && std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx512vl")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Simd::Baseline
        }
    }
}

const AUTO: u8 = 0;
const BASELINE: u8 = 1;
const AVX2: u8 = 2;
const AVX512: u8 = 3;

static FORCED: AtomicU8 = AtomicU8::new(AUTO);

/// The best instruction set this CPU supports.
#[must_use]
pub fn detected() -> Simd {
    // Without a `Vec` ([`available`]): a frame asks, and a warmed-up step
    // allocates nothing (`tests/alloc.rs`).
    Simd::ALL
        .into_iter()
        .rev()
        .find(|s| s.supported())
        .unwrap_or(Simd::Baseline)
}

/// Every path this CPU can run, slowest first (the baseline always).
///
/// # Example
/// ```
/// use cable_systems::simd::{self, Simd};
/// let paths = simd::available();
/// assert_eq!(paths[0], Simd::Baseline);
/// assert_eq!(paths.last(), Some(&simd::detected()));
/// ```
#[must_use]
pub fn available() -> Vec<Simd> {
    Simd::ALL.into_iter().filter(|s| s.supported()).collect()
}

/// The instruction set the wide kernel uses now: the one `force`d, when
/// the CPU has it, else [`detected`].
#[must_use]
pub fn active() -> Simd {
    let forced = match FORCED.load(Ordering::Relaxed) {
        BASELINE => Simd::Baseline,
        AVX2 => Simd::Avx2,
        AVX512 => Simd::Avx512,
        _ => return detected(),
    };
    if forced.supported() {
        forced
    } else {
        detected()
    }
}

/// Forces an instruction set for the whole process (`None`: back to
/// automatic), for tests and benchmarks that compare the paths (feature
/// `internals`: a process-wide switch is no API for a game).
/// `force(Some(Simd::Baseline))` makes [`active`] the baseline;
/// `force(None)` makes it [`detected`] again.
#[cfg(any(test, feature = "internals"))]
pub fn force(simd: Option<Simd>) {
    let v = match simd {
        None => AUTO,
        Some(Simd::Baseline) => BASELINE,
        Some(Simd::Avx2) => AVX2,
        Some(Simd::Avx512) => AVX512,
    };
    FORCED.store(v, Ordering::Relaxed);
}

/// Proof that the running CPU has a path wider than the baseline (AVX2,
/// or AVX-512 F and VL), and the one door to code compiled for it:
/// [`Wide::run`]. Only [`Wide::active`] makes one, so safe code cannot
/// hold one on a CPU without its instructions.
///
/// The wide kernel's lane loops are compiled for the path by inlining
/// them into a `#[target_feature(enable = ...)]` function; the contact
/// passes, too large to inline into every kernel, go through this door one
/// pass at a time (`kernel::contact::Contacts`).
///
/// # Example
/// ```
/// use cable_systems::simd::Wide;
/// let sum = |x: &[f32]| x.iter().sum::<f32>();
/// let x = [1.0, 2.0, 3.0];
/// // The same IEEE operations on every path: the same result.
/// let on_path = Wide::on_path(Wide::active(), || sum(&x));
/// assert_eq!(on_path, sum(&x));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wide(Simd);

impl Wide {
    /// `Some` when the wide kernel runs on a path wider than the baseline
    /// now ([`active`]).
    #[must_use]
    pub fn active() -> Option<Self> {
        match active() {
            Simd::Baseline => None,
            // `active` returns only paths the CPU supports.
            path => Some(Self(path)),
        }
    }

    /// The path: [`Simd::Avx2`] or [`Simd::Avx512`].
    #[must_use]
    pub fn simd(self) -> Simd {
        self.0
    }

    /// Runs `f` compiled for this path: `f`'s body, and what it inlines,
    /// is inlined into a function compiled with the path's instructions
    /// enabled.
    #[inline(always)]
    pub fn run<R>(self, f: impl FnOnce() -> R) -> R {
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2")]
            #[inline(never)]
            fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
                #[cfg(feature = "counters")]
                RUNS.with(|r| r[1].set(r[1].get() + 1));
                f()
            }
            #[target_feature(enable = "avx2,avx512f,avx512vl")]
            #[inline(never)]
            fn with_avx512<R>(f: impl FnOnce() -> R) -> R {
                #[cfg(feature = "counters")]
                RUNS.with(|r| r[2].set(r[2].get() + 1));
                f()
            }
            if self.0 == Simd::Avx512 {
                // SAFETY: `self` holds `Avx512` only when `active` saw the
                // running CPU report AVX2, AVX-512F and AVX-512VL
                // (`is_x86_feature_detected!`, in `Simd::supported`), the
                // one precondition of calling a function with those
                // target features.
                #[allow(unsafe_code)]
                unsafe {
                    with_avx512(f)
                }
            } else {
                // SAFETY: `self` holds `Avx2` only when `active` saw the
                // running CPU report AVX2 (`is_x86_feature_detected!`, in
                // `Simd::supported`), the one precondition of calling a
                // `#[target_feature(enable = "avx2")]` function.
                #[allow(unsafe_code)]
                unsafe {
                    with_avx2(f)
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            f()
        }
    }

    /// Runs `f` out of line, on this path when `wide` is `Some`, else
    /// compiled for the build's baseline: one copy of `f` per path,
    /// whatever the number of call sites of the function that calls this.
    #[inline(always)]
    pub fn on_path<R>(wide: Option<Self>, f: impl FnOnce() -> R) -> R {
        match wide {
            Some(w) => w.run(f),
            None => out_of_line(f),
        }
    }
}

// Calls into each path's compiled function, by `Simd::ALL` index, on this
// thread (tests check that a forced path is the one that runs; per thread,
// so other tests' frames do not count).
#[cfg(feature = "counters")]
thread_local! {
    /// Calls into each path's compiled function, by [`Simd::ALL`] index,
    /// on this thread (feature `counters`).
    pub static RUNS: [std::cell::Cell<u64>; 3] = const { [const { std::cell::Cell::new(0) }; 3] };
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
/// solves (`layout::lanes`), so that a frame of one substep finds them in
/// cache instead of waiting on memory at each first touch.
#[inline(always)]
pub(crate) fn prefetch(addr: usize) {
    #[cfg(feature = "counters")]
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
#[cfg(feature = "counters")]
pub static PREFETCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
