//! A winch on a cable whose segments are not all one length (made from
//! points): paying out only splits, reeling in only merges, so the
//! particles the user placed stay until the winch reaches them.

use cable_core::{CableDesc, End, ParticlePool};
use glam::Vec3;

/// Points along x: a 0.1 m segment, a 3 m one, then 1 m ones (mean 1 m
/// over 6 segments would be 1.0: the short one is under half of it, the
/// long one over one and a half). `mirrored` lays them from the end.
fn uneven(end: End) -> (ParticlePool, cable_core::CableHandle, Vec<Vec3>) {
    let mut xs = vec![0.0f32, 0.1, 3.1, 4.1, 5.1, 6.1, 7.1];
    if end == End::End {
        let last = *xs.last().unwrap();
        xs = xs.iter().rev().map(|x| last - x).collect();
    }
    let pts: Vec<Vec3> = xs.iter().map(|&x| Vec3::new(x, 0.0, 0.0)).collect();
    let mut d = CableDesc::from_points(&pts).unwrap();
    d.params.reel_end = end;
    d.params.max_length = Some(100.0);
    let mut pool = ParticlePool::new();
    let h = pool.add_cable(&d).unwrap();
    (pool, h, pts)
}

/// The particles of `now` that `placed` had, found by position (paying
/// out at the winch leaves every other particle where it was).
fn kept(placed: &[Vec3], now: &[Vec3]) -> usize {
    placed
        .iter()
        .filter(|p| now.iter().any(|q| q.distance(**p) < 1.0e-6))
        .count()
}

/// Rest length of the segment at the winch.
fn winch_segment(pool: &ParticlePool, h: cable_core::CableHandle, end: End) -> f32 {
    let rest = pool.rest_lengths(h).unwrap();
    // One rest length a particle: the last row's is not a segment.
    match end {
        End::Start => rest[0],
        End::End => rest[rest.len() - 2],
    }
}

#[test]
fn paying_out_slowly_keeps_a_short_first_segment() {
    for end in [End::Start, End::End] {
        let (mut pool, h, placed) = uneven(end);
        // 1 mm a call, up to 5 cm: the 0.1 m segment grows, nothing merges.
        for _ in 0..50 {
            pool.reel(h, 0.001).unwrap();
            let now = pool.positions(h).unwrap();
            assert_eq!(
                now.len(),
                placed.len(),
                "{end:?}: no particle added or removed"
            );
            assert_eq!(
                kept(&placed, now),
                placed.len(),
                "{end:?}: every placed particle stays"
            );
        }
        let winch = winch_segment(&pool, h, end);
        assert!(
            (winch - 0.15).abs() < 1.0e-4,
            "{end:?}: winch segment {winch}"
        );
    }
}

#[test]
fn reeling_in_slowly_keeps_a_long_segment_whole() {
    for end in [End::Start, End::End] {
        let (mut pool, h, placed) = uneven(end);
        // 0.5 mm a call: the 0.1 m winch segment is eaten, merges with the
        // 3 m one, which is not split while reeling in.
        let mut merged = false;
        for _ in 0..400 {
            pool.reel(h, -0.0005).unwrap();
            let n = pool.positions(h).unwrap().len();
            assert!(
                n <= placed.len(),
                "{end:?}: reeling in added particles ({n})"
            );
            merged |= n < placed.len();
        }
        assert!(merged, "{end:?}: the short segment merged");
        let winch = winch_segment(&pool, h, end);
        // 3.1 m less the 0.2 m reeled in, one segment.
        assert!(
            (winch - 2.9).abs() < 1.0e-3,
            "{end:?}: winch segment {winch}"
        );
        assert_eq!(pool.positions(h).unwrap().len(), placed.len() - 1);
    }
}
