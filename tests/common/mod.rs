//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses a different subset

/// SplitMix64: a tiny deterministic generator, so tests need no seed files.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }
    /// Uniform integer in [lo, hi).
    pub fn int(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo)
    }
    pub fn coin(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }
}

/// FNV-1a over the bits of every particle position of every cable.
pub fn hash_positions(pool: &cable::ParticlePool) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for handle in pool.handles() {
        for p in pool.positions(handle).expect("live handle") {
            for c in p.to_array() {
                h ^= u64::from(c.to_bits());
                h = h.wrapping_mul(0x100_0000_01b3);
            }
        }
    }
    h
}

/// The catenary parameter c of a chain of `length` hanging over `span`:
/// `length = 2c·sinh(span / 2c)`, solved by bisection in f64.
pub fn catenary_parameter(span: f64, length: f64) -> f64 {
    let f = |c: f64| 2.0 * c * (span / (2.0 * c)).sinh() - length;
    // f decreases in c: tiny c gives a huge length, huge c gives the span.
    let (mut lo, mut hi) = (1e-3 * span, 1e3 * span);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}
