//! Tests of the winch (`pool/reel.rs`): batched insertions and removals
//! against one particle at a time, and the rows they move.

use glam::Vec3;

use super::shifts;
use crate::{CableDesc, CableError, ParticlePool};

/// A 10 m cable of 1,000 segments (1 cm each) behind `before` other
/// cables and ahead of `after` more, its winch unbounded.
fn pool_with_winch(
    before: usize,
    after: usize,
    budget: usize,
) -> (ParticlePool, crate::CableHandle) {
    let mut pool = ParticlePool::with_budget(budget);
    let line =
        |y: f32, segs| CableDesc::line(Vec3::new(0.0, y, 0.0), Vec3::new(10.0, y, 0.0), 10.0, segs);
    for k in 0..before {
        pool.add_cable(&line(k as f32 + 1.0, 100).expect("valid"))
            .expect("fits");
    }
    let mut d = line(0.0, 1000).expect("valid");
    d.params.max_length = Some(1.0e7);
    let h = pool.add_cable(&d).expect("fits");
    for k in 0..after {
        pool.add_cable(&line(-(k as f32) - 1.0, 100).expect("valid"))
            .expect("fits");
    }
    (pool, h)
}

/// Issue 38 N2: a winch at 10,000 m/s for 0.05 s (three substeps of
/// 1/60 s, 166.7 m each) adds 50,000 particles to a 1,001-particle
/// cable with one move of the later rows per call, not one per
/// particle (which took 113 s of CPU for one frame).
#[test]
fn paying_out_moves_the_later_rows_once_per_call() {
    let (mut pool, h) = pool_with_winch(3, 20, crate::DEFAULT_PARTICLE_BUDGET);
    let others = pool.particle_count() - 1001;
    let start = shifts();
    let mut calls = 0;
    for _ in 0..3 {
        pool.reel(h, 10_000.0 / 60.0).expect("within the budget");
        calls += 1;
    }
    let n = pool.positions(h).expect("live").len();
    let paid: f64 = pool
        .rest_lengths(h)
        .expect("live")
        .iter()
        .map(|&r| f64::from(r))
        .sum();
    assert!((paid - 510.0).abs() < 0.05, "rest length {paid}");
    assert!((50_900..=51_100).contains(&n), "{n} particles");
    assert_eq!(pool.particle_count(), others + n);
    assert_eq!(shifts() - start, calls, "one move per call");
    // Reeling in removes as many at once.
    let start = shifts();
    pool.reel(h, -505.0).expect("live");
    assert_eq!(shifts() - start, 1);
    assert!(pool.positions(h).expect("live").len() < 600);
    pool.validate().expect("a consistent pool");
}

/// A winch at the end is the mirror image of one at the start: the
/// same calls give the same rest lengths in reverse order, bit for
/// bit, and the same particles mirrored, paying out and reeling in.
#[test]
fn a_winch_at_the_end_mirrors_one_at_the_start() {
    let mut pool = ParticlePool::new();
    let (a, b) = (Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.0, -1.0, 0.0));
    let mut fwd = CableDesc::line(a, b, 1.0, 5).expect("valid");
    fwd.params.max_length = Some(10.0);
    fwd.params.min_length = Some(0.1);
    fwd.mass_per_length = Some(0.5);
    let mut back = CableDesc::line(b, a, 1.0, 5).expect("valid");
    back.params = fwd.params;
    back.mass_per_length = fwd.mass_per_length;
    back.params.reel_end = crate::End::End;
    let (f, g) = (
        pool.add_cable(&fwd).expect("fits"),
        pool.add_cable(&back).expect("fits"),
    );
    for delta in [0.07, 0.5, 1.3, -0.2, -1.9, 0.01, -0.3, 2.0] {
        let (nf, ng) = (
            pool.reel(f, delta).expect("live"),
            pool.reel(g, delta).expect("live"),
        );
        assert_eq!(nf, ng, "delta {delta}");
        // Segments (the last row's slot is no segment's).
        let bits = |h| -> Vec<u32> {
            let r = pool.rest_lengths(h).expect("live");
            r[..r.len() - 1].iter().map(|r| r.to_bits()).collect()
        };
        let mut rf = bits(f);
        rf.reverse();
        assert_eq!(rf, bits(g), "delta {delta}");
        let (pf, pg) = (
            pool.positions(f).expect("live"),
            pool.positions(g).expect("live"),
        );
        for (x, y) in pf.iter().zip(pg.iter().rev()) {
            assert!(x.distance(*y) < 1e-6, "delta {delta}: {x} vs {y}");
        }
        let (wf, wg) = (
            pool.inv_masses(f).expect("live"),
            pool.inv_masses(g).expect("live"),
        );
        assert!(wf.iter().eq(wg.iter().rev()), "delta {delta}");
    }
    // Both ends stayed where they were pinned.
    assert_eq!(pool.positions(g).expect("live").last(), Some(&a));
    pool.validate().expect("a consistent pool");
}

/// The same payout into a pool whose budget runs out on the way: the
/// particles that fit go in (one move), the rest is refused by count.
#[test]
fn a_payout_beyond_the_budget_fills_it_and_says_how_many_did_not_fit() {
    let (mut pool, h) = pool_with_winch(1, 1, 10_000);
    let live = pool.particle_count();
    let start = shifts();
    let err = pool
        .reel(h, 10_000.0 / 60.0)
        .expect_err("beyond the budget");
    assert_eq!(shifts() - start, 1);
    assert_eq!(pool.particle_count(), 10_000);
    let CableError::BudgetExceeded {
        requested,
        live: now,
        budget,
    } = err
    else {
        panic!("{err:?}");
    };
    assert_eq!((now, budget), (10_000, 10_000));
    // 16,667 splits wanted, 10,000 - live made.
    let wanted = 16_667 - (10_000 - live);
    assert!(requested.abs_diff(wanted) <= 2, "{requested} vs {wanted}");
    // The first segment holds at most 1.5 segments; the pool is sound.
    assert!(pool.rest_lengths(h).expect("live")[0] <= 0.015 + 1e-6);
    pool.validate().expect("a consistent pool");
    // Full: a further payout adds nothing and moves nothing.
    let start = shifts();
    assert!(pool.reel(h, 1.0).is_err());
    assert_eq!(shifts() - start, 0);
}

/// The winch as it was before issue 38 (one row insertion or removal
/// per particle), kept as the reference the batched one must match
/// bitwise.
fn reel_one_at_a_time(pool: &mut ParticlePool, h: crate::CableHandle, delta: f32) {
    let i = pool.record_index(h).expect("live");
    let (first, count) = (pool.cables[i].first, pool.cables[i].count);
    let p = pool.cables[i].params;
    let total: f64 = pool.rest[first..first + count - 1]
        .iter()
        .map(|&r| f64::from(r))
        .sum();
    let lo = f64::from(p.min_length.unwrap_or(0.0));
    let hi = f64::from(p.max_length.unwrap_or(f32::MAX));
    let target = (total + f64::from(delta)).clamp(lo, hi.max(lo));
    let change = (target - total) as f32;
    let seg = pool.cables[i].reel_segment;
    pool.rest[first] += change;
    while change > 0.0 && pool.rest[first] > 1.5 * seg {
        let r0 = pool.rest[first];
        let t = (r0 - seg) / r0;
        let at = first + 1;
        let st = pool.state.get_mut();
        let pos = crate::cable::along(st.pos[first], st.pos[at], t);
        let prev = super::paid_out_prev(
            pos,
            st.pos[first],
            st.prev[first],
            st.pos[at],
            st.prev[at],
            t,
        );
        let w = match pool.cables[i].mass_per_length {
            Some(rho) => 1.0 / (rho * 0.5 * r0),
            None => 1.0,
        };
        let w = if w.is_finite() && w > 0.0 { w } else { 1.0 };
        st.pos.insert(at, pos);
        st.prev.insert(at, prev);
        st.carry.insert(at, Vec3::ZERO);
        st.carry_prev.insert(at, Vec3::ZERO);
        let lam = st.lambda[first];
        st.lambda.insert(at, lam);
        st.lambda_bend.insert(at, 0.0);
        st.lambda_row.insert(at, [0.0; 3]);
        pool.inv_mass.insert(at, w);
        pool.rest[first] = r0 - seg;
        pool.rest.insert(at, seg);
        let linked = pool.row_const[first].linked;
        let row = super::RowConst {
            anchor: [super::NO_ANCHOR; 2],
            reach: [0.0; 2],
            kappa0: 0.0,
            bend_compliance: 0.0,
            linked,
        };
        pool.row_const.insert(at, row);
        pool.shift_records(i, 1);
    }
    while change < 0.0 && pool.rest[first] < 0.5 * seg && pool.cables[i].count > 2 {
        let at = first + 1;
        pool.rest[first] += pool.rest[at];
        pool.row_const[first].linked &= pool.row_const[at].linked;
        let st = pool.state.get_mut();
        st.pos.remove(at);
        st.prev.remove(at);
        st.carry.remove(at);
        st.carry_prev.remove(at);
        st.lambda.remove(at);
        st.lambda_bend.remove(at);
        st.lambda_row.remove(at);
        pool.inv_mass.remove(at);
        pool.rest.remove(at);
        pool.row_const.remove(at);
        pool.shift_records(i, -1);
    }
    pool.rest[first] = pool.rest[first].max(2.0 * crate::MIN_SEGMENT_LENGTH);
    // Every free particle but the winch's own weighs half of each segment
    // next to it (the rule of `CableDesc::inverse_masses`); pinned ends
    // keep the free mass they were made with.
    if let Some(rho) = pool.cables[i].mass_per_length {
        let count = pool.cables[i].count;
        for row in first + 1..first + count {
            let left = pool.rest[row - 1];
            let right = if row + 1 < first + count {
                pool.rest[row]
            } else {
                0.0
            };
            if pool.inv_mass[row] != 0.0 {
                pool.inv_mass[row] = 1.0 / (0.5 * rho * (left + right));
            }
        }
    }
    pool.refresh_rows(i);
}

/// Every column of `pool`, as bits.
fn bits(pool: &mut ParticlePool) -> Vec<u32> {
    let mut out = Vec::new();
    let st = pool.state.get_mut();
    for v in [&st.pos, &st.prev, &st.carry, &st.carry_prev] {
        out.extend(v.iter().flat_map(|p| p.to_array().map(f32::to_bits)));
    }
    for v in [&st.lambda, &st.lambda_bend, &pool.inv_mass, &pool.rest] {
        out.extend(v.iter().map(|x| x.to_bits()));
    }
    out.extend(st.lambda_row.iter().flatten().map(|x| x.to_bits()));
    for k in &pool.row_const {
        out.extend(k.anchor);
        out.extend(k.reach.map(f32::to_bits));
        out.extend([
            k.kappa0.to_bits(),
            k.bend_compliance.to_bits(),
            u32::from(k.linked),
        ]);
    }
    for c in &pool.cables {
        out.extend([c.first as u32, c.count as u32]);
    }
    out
}

/// Batched payouts and reel-ins give bitwise the pool of one row
/// insertion or removal per particle: positions, velocities, masses,
/// rest lengths, row constants and the later cables' rows.
#[test]
fn batched_reeling_matches_one_particle_at_a_time_bitwise() {
    let build = || {
        let mut pool = ParticlePool::new();
        let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(3.0, -4.0, 0.0), 5.0, 7).expect("valid");
        d.mass_per_length = Some(0.7);
        d.params.max_length = Some(100.0);
        d.params.min_length = Some(0.1);
        d.params.bend_stiffness = 0.3;
        let h = pool.add_cable(&d).expect("fits");
        pool.add_cable(&CableDesc::line(Vec3::Y, Vec3::ONE, 1.0, 3).expect("valid"))
            .expect("fits");
        // Some velocity, so the inserted previous positions differ.
        for (k, p) in pool
            .prev_positions_mut(h)
            .expect("live")
            .iter_mut()
            .enumerate()
        {
            *p += Vec3::new(0.01, 0.02 * k as f32, -0.03);
        }
        (pool, h)
    };
    let (mut a, ha) = build();
    let (mut b, hb) = build();
    for delta in [7.3, 0.01, 30.0, -0.2, -12.0, 0.4, -40.0, 55.5, -0.001] {
        a.reel(ha, delta).expect("fits");
        reel_one_at_a_time(&mut b, hb, delta);
        assert_eq!(bits(&mut a), bits(&mut b), "after reeling {delta}");
    }
    a.validate().expect("consistent");
}
