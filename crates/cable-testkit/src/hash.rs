//! A bitwise fingerprint of a pool.

use cable_core::ParticlePool;

/// FNV-1a over the bits of every particle position of every live cable,
/// in handle order (one `u32` of bits per coordinate folded in at once).
///
/// Two pools hash the same when their positions are bitwise the same
/// (`-0.0` and `0.0` differ). Not the golden tests' hash
/// (`tests/golden.rs` folds in each byte, over the raw rows).
pub fn hash_positions(pool: &ParticlePool) -> u64 {
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
