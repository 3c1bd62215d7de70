//! [`Rng`]: SplitMix64, the tests' one pseudo-random generator.

/// SplitMix64 (Steele, Lea and Flood; the seeding generator of
/// xoshiro): a tiny deterministic generator, so tests need no seed files.
///
/// Integer arithmetic only, so a seed gives the same sequence on every
/// platform and build; the `f32` helpers take the top 24 bits of a draw,
/// which an `f32` holds exactly. Every seed is fine (zero included).
///
/// ```
/// use cable_testkit::Rng;
/// let mut a = Rng::new(7);
/// let mut b = Rng::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// let x = a.range(-1.0, 1.0);
/// assert!((-1.0..1.0).contains(&x));
/// ```
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose sequence is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), in steps of 2⁻²⁴.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in [lo, hi) (`hi > lo`; the modulo bias is
    /// negligible for the small ranges tests draw from).
    pub fn int(&mut self, lo: u64, hi: u64) -> u64 {
        assert!(hi > lo, "an empty range {lo}..{hi}");
        lo + self.next_u64() % (hi - lo)
    }

    /// Uniform index into a collection of `len` items (`len > 0`).
    pub fn index(&mut self, len: usize) -> usize {
        self.int(0, len as u64) as usize
    }

    /// One of `xs`, uniformly (`xs` not empty).
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.index(xs.len())]
    }

    /// A fair coin.
    pub fn coin(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn splitmix64_reference_values() {
        // The first outputs for seed 1234567 of the reference C code
        // (Vigna's splitmix64.c).
        let mut r = Rng::new(1_234_567);
        let want = [
            6_457_827_717_110_365_317u64,
            3_203_168_211_198_807_973,
            9_817_491_932_198_370_423,
            4_593_380_528_125_082_431,
            16_408_922_859_458_223_821,
        ];
        for w in want {
            assert_eq!(r.next_u64(), w);
        }
    }

    #[test]
    fn helpers_stay_in_their_ranges() {
        let mut r = Rng::new(0);
        for _ in 0..10_000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            let x = r.range(-3.0, 5.0);
            assert!((-3.0..5.0).contains(&x));
            let k = r.int(3, 9);
            assert!((3..9).contains(&k));
            assert!(r.index(4) < 4);
            assert!([2, 5].contains(&r.pick(&[2, 5])));
        }
        assert!(!Rng::new(1).chance(0.0));
        assert!(Rng::new(1).chance(1.0));
    }
}
