//! The particle pool: handles, removal, compaction, budget, read-out.

use cable::{CableDesc, CableError, End, ParticlePool, SolverParams, Stepper};
use cable_testkit::Rng;
use glam::Vec3;

/// A cable whose particles all carry its id in x, so a read-out proves
/// which cable it came from.
fn tagged(id: u32, segments: u32) -> CableDesc {
    let x = id as f32;
    let points: Vec<Vec3> = (0..=segments)
        .map(|k| Vec3::new(x, k as f32 * 0.25, 0.0))
        .collect();
    CableDesc::from_points(&points).unwrap()
}

#[test]
fn ten_thousand_cables_added_and_removed_in_random_order() {
    let mut rng = Rng::new(1);
    let mut pool = ParticlePool::new();
    let mut live: Vec<(cable::CableHandle, u32, u32)> = Vec::new();
    let mut dead = Vec::new();
    let mut next_id = 0u32;
    while next_id < 10_000 || !live.is_empty() {
        let add = next_id < 10_000 && (live.is_empty() || rng.int(0, 10) < 6);
        if add {
            let segs = rng.int(1, 9) as u32;
            let h = pool.add_cable(&tagged(next_id, segs)).unwrap();
            live.push((h, next_id, segs));
            next_id += 1;
        } else {
            let i = rng.int(0, live.len() as u64) as usize;
            let (h, _, _) = live.swap_remove(i);
            pool.remove_cable(h).unwrap();
            dead.push(h);
        }
        if rng.int(0, 500) == 0 {
            pool.compact();
        }
        if next_id.is_multiple_of(1000) || live.is_empty() {
            // Every live handle reads its own particles.
            for &(h, id, segs) in &live {
                let p = pool.positions(h).unwrap();
                assert_eq!(p.len(), segs as usize + 1);
                assert!(
                    p.iter().all(|p| p.x == id as f32),
                    "cable {id} reads foreign rows"
                );
            }
            assert_eq!(pool.cable_count(), live.len());
            assert_eq!(
                pool.particle_count(),
                live.iter().map(|l| l.2 as usize + 1).sum::<usize>()
            );
        }
    }
    // Removed handles are refused, even though their slots were reused.
    for h in dead {
        assert_eq!(pool.positions(h), Err(CableError::StaleHandle(h)));
        assert!(pool.remove_cable(h).is_err());
    }
    assert!(pool.is_empty());
    assert!(pool.all_positions().is_empty());
}

#[test]
fn removal_keeps_columns_dense_and_in_order_for_the_systems() {
    let mut pool = ParticlePool::new();
    let hs: Vec<_> = (0..10)
        .map(|i| pool.add_cable(&tagged(i, 3)).unwrap())
        .collect();
    for h in hs.iter().step_by(2) {
        pool.remove_cable(*h).unwrap();
    }
    // After a step (which compacts) the columns hold exactly the live cables, in order.
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    let xs: Vec<f32> = pool.all_positions().iter().map(|p| p.x).collect();
    let expected: Vec<f32> = [1, 3, 5, 7, 9]
        .iter()
        .flat_map(|&i| [i as f32; 4])
        .collect();
    assert_eq!(xs, expected);
    let order: Vec<_> = pool.handles().collect();
    assert_eq!(
        order,
        hs.iter().copied().skip(1).step_by(2).collect::<Vec<_>>()
    );
}

#[test]
fn budget_refuses_absurd_sizes_without_allocating_them() {
    let mut pool = ParticlePool::with_budget(100);
    pool.add_cable(&tagged(0, 49)).unwrap();
    let err = pool.add_cable(&tagged(1, 50)).unwrap_err();
    assert!(matches!(
        err,
        CableError::BudgetExceeded {
            requested: 51,
            live: 50,
            budget: 100
        }
    ));
    assert!(err.to_string().contains("budget"));
    assert_eq!(pool.cable_count(), 1);
    // Segment counts beyond MAX_SEGMENTS are refused before any allocation.
    assert!(CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, u32::MAX).is_err());
}

#[test]
fn constructors_name_what_is_wrong() {
    let bad = [
        (CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 0), "segments"),
        (CableDesc::line(Vec3::ZERO, Vec3::X, 0.0, 4), "length"),
        (CableDesc::line(Vec3::ZERO, Vec3::X, -1.0, 4), "length"),
        (CableDesc::line(Vec3::ZERO, Vec3::X, f32::NAN, 4), "length"),
        (CableDesc::line(Vec3::NAN, Vec3::X, 1.0, 4), "start"),
        (CableDesc::line(Vec3::ZERO, Vec3::INFINITY, 1.0, 4), "end"),
        (CableDesc::line(Vec3::ZERO, Vec3::splat(1e9), 1.0, 4), "end"),
        (CableDesc::from_points(&[Vec3::ZERO]), "points"),
        (
            CableDesc::from_points(&[Vec3::ZERO, Vec3::ZERO]),
            "points[1]",
        ),
        (
            CableDesc::from_points(&[Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0)]),
            "points",
        ),
    ];
    for (i, (result, field)) in bad.into_iter().enumerate() {
        let err = result.expect_err(&format!("case {i} accepted"));
        assert!(
            err.to_string().starts_with(field),
            "case {i}: `{err}` should name {field}"
        );
    }
    let mut pool = ParticlePool::new();
    let mut desc = tagged(0, 4);
    for (field, set) in [
        (
            "radius",
            (|d: &mut CableDesc| d.params.radius = 0.0) as fn(&mut CableDesc),
        ),
        ("sides", |d| d.params.sides = 2),
        ("compliance", |d| d.params.compliance = -1.0),
        ("tile", |d| d.params.tile = f32::INFINITY),
        ("gravity_scale", |d| d.params.gravity_scale = f32::NAN),
        ("force", |d| d.params.force = Vec3::NAN),
    ] {
        let mut d = desc.clone();
        set(&mut d);
        let err = pool.add_cable(&d).unwrap_err();
        assert!(
            err.to_string().starts_with(field),
            "`{err}` should name {field}"
        );
    }
    desc.params.radius = 0.1;
    assert!(pool.add_cable(&desc).is_ok());
}

#[test]
fn positions_are_read_without_copying_and_from_points_keeps_non_uniform_lengths() {
    let pts = [
        Vec3::ZERO,
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(3.0, 0.0, 0.0),
    ];
    let mut pool = ParticlePool::new();
    let h = pool
        .add_cable(&CableDesc::from_points(&pts).unwrap())
        .unwrap();
    let a = pool.positions(h).unwrap().as_ptr();
    let b = pool.positions(h).unwrap().as_ptr();
    assert_eq!(a, b, "read-out must borrow the pool's column");
    assert_eq!(pool.rest_lengths(h).unwrap(), &[1.0, 2.0, 0.0]);
}

#[test]
fn attach_moves_the_end_and_detach_keeps_its_velocity() {
    let mut desc = CableDesc::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.0, 8).unwrap();
    desc.attach_end = false;
    let mut pool = ParticlePool::new();
    let h = pool.add_cable(&desc).unwrap();
    assert_eq!(pool.inv_masses(h).unwrap()[8], 1.0);
    let target = Vec3::new(1.0, 1.0, 0.0);
    pool.set_attachment(h, End::End, Some(target)).unwrap();
    assert_eq!(pool.inv_masses(h).unwrap()[8], 0.0);
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    for _ in 0..10 {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
        assert_eq!(pool.positions(h).unwrap()[8], target);
    }
    // Move the start each frame; it follows.
    for i in 0..10 {
        let t = Vec3::new(0.0, i as f32 * 0.01, 0.0);
        pool.set_attachment(h, End::Start, Some(t)).unwrap();
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
        assert_eq!(pool.positions(h).unwrap()[0], t);
    }
    pool.set_attachment(h, End::End, None).unwrap();
    assert_eq!(pool.inv_masses(h).unwrap()[8], 1.0);
    let before = pool.positions(h).unwrap()[8];
    stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    let after = pool.positions(h).unwrap()[8];
    assert!(
        after.distance(before) < 0.05,
        "detached end jumped from {before} to {after}"
    );
    assert!(after.y < before.y, "detached end falls");
}

#[test]
fn teleport_moves_rigidly_and_keeps_velocity() {
    let mut pool = ParticlePool::new();
    let h = pool.add_cable(&tagged(0, 4)).unwrap();
    let before: Vec<Vec3> = pool.positions(h).unwrap().to_vec();
    pool.teleport(h, Vec3::new(10.0, 0.0, 0.0)).unwrap();
    for (a, b) in before.iter().zip(pool.positions(h).unwrap()) {
        assert_eq!(*a + Vec3::new(10.0, 0.0, 0.0), *b);
    }
    assert_eq!(
        pool.attachment(h, End::Start).unwrap(),
        Some(Vec3::new(10.0, 0.0, 0.0))
    );
    assert!(pool.teleport(h, Vec3::NAN).is_err());
}

#[test]
fn stepper_caps_substeps_and_drops_extra_time() {
    let mut pool = ParticlePool::new();
    pool.add_cable(&tagged(0, 4)).unwrap();
    let params = SolverParams {
        max_substeps: 4,
        ..SolverParams::default()
    };
    let mut stepper = Stepper::new(params).unwrap();
    // A one-second hitch runs 4 substeps, not 60.
    assert_eq!(stepper.advance(&mut pool, 1.0).unwrap(), 4);
    assert!(stepper.remainder() < f64::from(params.substep));
    // Then frames of one substep run one each, and half substeps alternate.
    assert_eq!(stepper.advance(&mut pool, params.substep).unwrap(), 1);
    let counts: Vec<u32> = (0..6)
        .map(|_| stepper.advance(&mut pool, params.substep / 2.0).unwrap())
        .collect();
    assert_eq!(counts.iter().sum::<u32>(), 3);
    assert!(stepper.advance(&mut pool, f32::NAN).is_err());
    assert!(stepper.advance(&mut pool, -1.0).is_err());
    assert!(
        Stepper::new(SolverParams {
            iterations: 0,
            ..params
        })
        .is_err()
    );
    assert!(
        Stepper::new(SolverParams {
            substep: 0.0,
            ..params
        })
        .is_err()
    );
}

#[test]
fn set_velocity_is_exact_far_from_the_origin() {
    // 100 km out the f32 spacing is 7.8 mm, more than 0.1 m/s × 1/60 s:
    // the previous position alone cannot hold this velocity; with the
    // carried rounding it is exact.
    let at = Vec3::new(100_000.0, 0.0, 0.0);
    let mut pool = ParticlePool::new();
    let mut d = CableDesc::line(at, at + Vec3::X, 1.0, 4).unwrap();
    d.attach_start = false;
    d.attach_end = false;
    let h = pool.add_cable(&d).unwrap();
    let (v, dt) = (Vec3::new(0.1, 0.0, -0.05), 1.0 / 60.0);
    pool.set_velocity(h, v, dt).unwrap();
    let (p, q, c) = (
        pool.positions(h).unwrap(),
        pool.prev_positions(h).unwrap(),
        pool.carry(h).unwrap(),
    );
    for ((p, q), c) in p.iter().zip(q).zip(c) {
        let got = (*p - *q + *c) / dt;
        assert!((got - v).length() < 1e-6, "{got} vs {v}");
        assert!((*p - *q) / dt != v, "the spacing should round it");
    }
    // Setting the previous positions by hand sets the velocity: no carry.
    pool.prev_positions_mut(h).unwrap()[0].x -= 1.0;
    assert!(pool.carry(h).unwrap().iter().all(|c| *c == Vec3::ZERO));
}
