//! Issue 13, hostile input through the pool's API (cases 10–12 of the
//! issue's table, and the compliance/substep check the stepper relies on):
//! every case pinned by a test named after it. A refused call returns an
//! error naming the field and leaves the pool as it was.

use std::collections::HashSet;

use cable_core::{
    CableDesc, CableError, CableHandle, CableParams, Collider, ColliderHandle, ColliderSet, End,
    MAX_COORDINATE, ParticlePool,
};
use glam::{Quat, Vec3};

/// A pool with one cable from the origin to (1, 0, 0), both ends attached.
fn one_cable() -> (ParticlePool, CableHandle) {
    let mut pool = ParticlePool::new();
    let h = pool
        .add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4).unwrap())
        .unwrap();
    (pool, h)
}

/// Everything a refused call must leave alone.
#[derive(Debug, PartialEq)]
struct State {
    revision: u64,
    pos: Vec<Vec3>,
    prev: Vec<Vec3>,
    attach: [Option<Vec3>; 2],
}

fn state(pool: &ParticlePool, h: CableHandle) -> State {
    State {
        revision: pool.revision(),
        pos: pool.positions(h).unwrap().to_vec(),
        prev: pool.prev_positions(h).unwrap().to_vec(),
        attach: [
            pool.attachment(h, End::Start).unwrap(),
            pool.attachment(h, End::End).unwrap(),
        ],
    }
}

fn field_of(e: &CableError) -> &'static str {
    match e {
        CableError::NotFinite { field, .. } | CableError::OutOfRange { field, .. } => field,
        other => panic!("expected an error naming a field, got {other:?}"),
    }
}

// ---- case 10: handles carry the identity of their pool or set ----

#[test]
fn cable_handle_of_another_pool_is_refused_by_every_method() {
    let (mut a, ha) = one_cable();
    let (mut b, hb) = one_cable();
    // Same slot and generation: only the pool identity tells them apart.
    assert_eq!((ha.index(), ha.generation()), (hb.index(), hb.generation()));
    assert_ne!(ha, hb);
    assert_ne!(a.id(), b.id());
    assert_eq!((ha.pool_id(), hb.pool_id()), (a.id(), b.id()));
    let before = state(&b, hb);
    let stale = Err(CableError::StaleHandle(ha));
    assert!(!b.contains(ha));
    assert_eq!(b.positions(ha).map(<[Vec3]>::len), stale.clone());
    assert_eq!(b.prev_positions(ha).map(<[Vec3]>::len), stale.clone());
    assert_eq!(b.inv_masses(ha).map(<[f32]>::len), stale.clone());
    assert_eq!(b.rest_lengths(ha).map(<[f32]>::len), stale.clone());
    assert_eq!(b.row_consts(ha).map(<[_]>::len), stale.clone());
    assert_eq!(b.multipliers(ha).map(|m| m.0.len()), stale.clone());
    assert_eq!(b.params(ha).map(|_| 0), stale.clone());
    assert_eq!(b.attachment(ha, End::End).map(|_| 0), stale.clone());
    assert_eq!(
        b.validate_cable_for_substep(ha, 0.01).map(|()| 0),
        stale.clone()
    );
    assert_eq!(b.positions_mut(ha).map(|p| p.len()), stale.clone());
    assert_eq!(b.prev_positions_mut(ha).map(|p| p.len()), stale.clone());
    assert_eq!(b.set_inv_mass(ha, 1, 2.0).map(|()| 0), stale.clone());
    assert_eq!(
        b.set_params(ha, CableParams::default()).map(|()| 0),
        stale.clone()
    );
    assert_eq!(
        b.set_attachment(ha, End::End, None).map(|()| 0),
        stale.clone()
    );
    assert_eq!(b.teleport(ha, Vec3::Y).map(|()| 0), stale.clone());
    assert_eq!(b.set_velocity(ha, Vec3::Y, 0.01).map(|()| 0), stale.clone());
    assert_eq!(b.break_segment(ha, 0).map(|()| 0), stale.clone());
    assert_eq!(b.reel(ha, 0.5), stale.clone());
    assert_eq!(b.remove_cable(ha).map(|()| 0), stale);
    // Nothing of `b` was read out, changed or removed.
    assert_eq!(b.cable_count(), 1);
    assert_eq!(state(&b, hb).pos, before.pos);
    assert_eq!(state(&b, hb).prev, before.prev);
    assert_eq!(state(&b, hb).attach, before.attach);
    assert_eq!(b.inv_masses(hb).unwrap()[1], 1.0);
    // And `a` still takes its own handle.
    a.remove_cable(ha).unwrap();
}

#[test]
fn collider_handle_of_another_set_is_refused_by_every_method() {
    let ball = Collider::sphere(Vec3::ZERO, 1.0).unwrap();
    let mut a = ColliderSet::new();
    let mut b = ColliderSet::new();
    let ha = a.add(ball);
    let hb = b.add(ball);
    assert_eq!((ha.index(), ha.generation()), (hb.index(), hb.generation()));
    assert_ne!(ha, hb);
    assert_eq!((ha.set_id(), hb.set_id()), (a.id(), b.id()));
    let stale = CableError::StaleCollider(ha);
    assert!(!b.contains(ha));
    assert_eq!(b.get(ha).err(), Some(stale.clone()));
    assert_eq!(
        b.set_pose(ha, Vec3::Y, Quat::IDENTITY).err(),
        Some(stale.clone())
    );
    assert_eq!(b.remove(ha).err(), Some(stale));
    assert_eq!(b.len(), 1);
    assert_eq!(b.get(hb).unwrap().position(), Vec3::ZERO);
    assert!(a.remove(ha).is_ok());
}

#[test]
fn collider_handle_of_another_pool_is_refused() {
    let (mut a, _) = one_cable();
    let (mut b, _) = one_cable();
    let ball = Collider::sphere(Vec3::ZERO, 1.0).unwrap();
    let ha = a.colliders_mut().add(ball);
    let hb = b.colliders_mut().add(ball);
    assert_ne!(a.colliders().id(), b.colliders().id());
    assert!(b.colliders_mut().remove(ha).is_err());
    assert!(b.colliders().contains(hb));
    assert!(a.colliders().contains(ha));
}

#[test]
fn cloned_pool_keeps_its_identity_and_accepts_its_originals_handles() {
    let (mut pool, h) = one_cable();
    let c = pool
        .colliders_mut()
        .add(Collider::sphere(Vec3::Y, 0.5).unwrap());
    let mut copy = pool.clone();
    // A snapshot: same contents, same identity, the game's handles work.
    assert_eq!(copy.id(), pool.id());
    assert_eq!(copy.colliders().id(), pool.colliders().id());
    assert_eq!(copy.positions(h).unwrap(), pool.positions(h).unwrap());
    assert!(copy.colliders().get(c).is_ok());
    copy.teleport(h, Vec3::Y).unwrap();
    assert_ne!(copy.positions(h).unwrap(), pool.positions(h).unwrap());
    // Restoring the snapshot gives back the state the handles name.
    let saved = pool.clone();
    pool.remove_cable(h).unwrap();
    pool = saved;
    assert!(pool.contains(h));
    // A new pool is another identity.
    assert_ne!(ParticlePool::new().id(), pool.id());
    assert_ne!(ColliderSet::new().id(), pool.colliders().id());
    assert_ne!(ColliderSet::default().id(), ColliderSet::default().id());
}

#[test]
fn handles_stay_small_copy_and_hashable() {
    assert_eq!(std::mem::size_of::<CableHandle>(), 12);
    assert_eq!(std::mem::size_of::<ColliderHandle>(), 12);
    let (_a, ha) = one_cable();
    let (_b, hb) = one_cable();
    let set: HashSet<CableHandle> = [ha, hb, ha].into_iter().collect();
    assert_eq!(set.len(), 2, "handles of two pools hash apart");
}

// ---- case 11: set_velocity bounds its substep and the result ----

#[test]
fn set_velocity_with_substep_f32_max_is_refused_naming_substep() {
    let (mut pool, h) = one_cable();
    pool.set_attachment(h, End::End, None).unwrap();
    let before = state(&pool, h);
    for bad in [
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
        0.0,
        -1.0 / 60.0,
        1.5,
        -0.0,
    ] {
        let e = pool.set_velocity(h, Vec3::X, bad).unwrap_err();
        assert_eq!(field_of(&e), "substep", "h = {bad}: {e}");
        assert_eq!(state(&pool, h), before, "h = {bad} changed the pool");
    }
}

#[test]
fn set_velocity_that_puts_a_previous_position_beyond_max_coordinate_is_refused_naming_velocity() {
    let (mut pool, h) = one_cable();
    pool.set_attachment(h, End::End, None).unwrap();
    let before = state(&pool, h);
    // -1e6 m/s for a whole second: a previous position would be at 1e6 + 0.25.
    let e = pool
        .set_velocity(h, Vec3::new(-MAX_COORDINATE, 0.0, 0.0), 1.0)
        .unwrap_err();
    assert_eq!(field_of(&e), "velocity", "{e}");
    assert!(e.to_string().contains("±1e6"), "{e}");
    assert_eq!(state(&pool, h), before);
    // Out-of-range velocities themselves are refused as before.
    let e = pool
        .set_velocity(h, Vec3::splat(f32::MAX), 0.01)
        .unwrap_err();
    assert_eq!(field_of(&e), "velocity");
    assert_eq!(state(&pool, h), before);
}

#[test]
fn set_velocity_at_a_valid_substep_gives_free_particles_that_velocity() {
    let (mut pool, h) = one_cable();
    pool.set_attachment(h, End::End, None).unwrap();
    pool.set_velocity(h, Vec3::new(0.0, 2.0, 0.0), 0.5).unwrap();
    let (pos, prev) = (pool.positions(h).unwrap(), pool.prev_positions(h).unwrap());
    assert_eq!(pos[0], prev[0], "the attached start stays at rest");
    for i in 1..pos.len() {
        assert_eq!(pos[i] - prev[i], Vec3::new(0.0, 1.0, 0.0));
    }
}

// ---- case 12: teleport never leaves the accepted coordinate range ----

#[test]
fn teleport_repeated_past_max_coordinate_is_refused_naming_offset_and_changes_nothing() {
    let (mut pool, h) = one_cable();
    let step = Vec3::new(0.0, 4.0e5, 0.0);
    pool.teleport(h, step).unwrap();
    pool.teleport(h, step).unwrap(); // at 8e5 m
    let before = state(&pool, h);
    for _ in 0..3 {
        let e = pool.teleport(h, step).unwrap_err();
        assert_eq!(field_of(&e), "offset", "{e}");
        assert_eq!(
            state(&pool, h),
            before,
            "a refused teleport changed the pool"
        );
    }
    // Far along every axis and sign.
    for axis in [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Y] {
        assert!(pool.teleport(h, axis * 1.9e6).is_err());
    }
    assert_eq!(state(&pool, h), before);
}

#[test]
fn attachment_targets_after_teleports_are_accepted_by_set_attachment() {
    let (mut pool, h) = one_cable();
    for _ in 0..10 {
        // Some accepted, the rest refused.
        let _ = pool.teleport(h, Vec3::new(3.0e5, -3.0e5, 1.0e5));
    }
    for end in [End::Start, End::End] {
        let target = pool.attachment(h, end).unwrap();
        assert!(target.is_some());
        pool.set_attachment(h, end, target)
            .expect("the pool's own target is accepted");
    }
}

#[test]
fn teleport_that_takes_only_an_attachment_target_out_of_range_is_refused() {
    let (mut pool, h) = one_cable();
    // The end's target is near the bound; its particle is still at x = 1.
    pool.set_attachment(h, End::End, Some(Vec3::new(9.9e5, 0.0, 0.0)))
        .unwrap();
    let before = state(&pool, h);
    let e = pool.teleport(h, Vec3::new(2.0e4, 0.0, 0.0)).unwrap_err();
    assert_eq!(field_of(&e), "offset");
    assert_eq!(state(&pool, h), before);
    pool.teleport(h, Vec3::new(-2.0e4, 0.0, 0.0)).unwrap();
}

#[test]
fn teleport_that_brings_a_cable_back_into_range_is_accepted() {
    let (mut pool, h) = one_cable();
    // Particles driven out of range by hand (or by a long fall).
    for p in pool.positions_mut(h).unwrap() {
        p.y = -2.0e6;
    }
    for p in pool.prev_positions_mut(h).unwrap() {
        p.y = -2.0e6;
    }
    pool.set_attachment(h, End::Start, None).unwrap();
    pool.set_attachment(h, End::End, None).unwrap();
    pool.teleport(h, Vec3::new(0.0, 2.0e6, 0.0)).unwrap();
    assert!(pool.positions(h).unwrap().iter().all(|p| p.y == 0.0));
}

// ---- compliance / substep², checked by the pool for the stepper ----

#[test]
fn pool_refuses_a_compliance_that_overflows_at_the_substep_naming_compliance() {
    let (mut pool, h) = one_cable();
    let soft = CableParams {
        compliance: 1.0e-4,
        ..CableParams::default()
    };
    pool.set_params(h, soft).unwrap();
    pool.validate_for_substep(1.0 / 60.0).unwrap();
    let e = pool.validate_for_substep(1.0e-23).unwrap_err();
    assert_eq!(field_of(&e), "compliance");
    assert!(e.to_string().contains("raise the substep"), "{e}");
    assert_eq!(pool.validate_cable_for_substep(h, 1.0e-23), Err(e));
}

#[test]
fn pool_refuses_bending_that_overflows_at_the_substep_naming_bend_stiffness() {
    let mut desc = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4).unwrap();
    desc.params.bend_stiffness = 1.0e-30; // l̄ / EI = 2.5e29
    let e = desc.validate_for_substep(1.0 / 60.0).unwrap_err();
    assert_eq!(field_of(&e), "bend_stiffness");
    let mut pool = ParticlePool::new();
    let h = pool.add_cable(&desc).unwrap();
    let e = pool.validate_for_substep(1.0 / 60.0).unwrap_err();
    assert_eq!(field_of(&e), "bend_stiffness", "{e}");
    pool.set_params(
        h,
        CableParams {
            bend_stiffness: 1.0e-3,
            ..CableParams::default()
        },
    )
    .unwrap();
    pool.validate_for_substep(1.0 / 60.0).unwrap();
}

#[test]
fn pool_accepts_the_params_it_holds_for_a_cable_of_1e7_m() {
    // The winch bound resolved when the cable was added (4 × 1e7 m before)
    // must be one `set_params` and the substep check accept.
    let mut pool = ParticlePool::new();
    let desc = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -1.0e6, 0.0), 1.0e7, 2).unwrap();
    let h = pool.add_cable(&desc).unwrap();
    let held = *pool.params(h).unwrap();
    assert_eq!(held.max_length, Some(1.0e7));
    pool.set_params(h, held).unwrap();
    pool.validate_for_substep(1.0 / 60.0).unwrap();
    // A short cable keeps 4 × its length.
    let short = pool
        .add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 2.0, 2).unwrap())
        .unwrap();
    assert_eq!(pool.params(short).unwrap().max_length, Some(8.0));
}

#[test]
fn params_revision_changes_only_when_a_substep_check_may_change() {
    let (mut pool, h) = one_cable();
    let r0 = pool.params_revision();
    pool.teleport(h, Vec3::Y).unwrap();
    pool.positions_mut(h).unwrap()[1].y += 0.1;
    pool.set_attachment(h, End::End, None).unwrap();
    let _ = pool.columns_mut();
    assert_eq!(pool.params_revision(), r0, "edits of particles only");
    pool.set_params(h, CableParams::default()).unwrap();
    let r1 = pool.params_revision();
    assert_ne!(r1, r0);
    pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 2).unwrap())
        .unwrap();
    assert_ne!(pool.params_revision(), r1);
    // A clone is the same state.
    assert_eq!(pool.clone().params_revision(), pool.params_revision());
}

#[test]
fn winch_never_takes_a_bent_cable_past_the_substep_check_it_passed() {
    // The check bounds every state a winch can reach, so the stepper need
    // not repeat it as the winch turns. Cables at the edge of the bound:
    // uniform, non-uniform and a single segment (no inner particle until
    // it pays out); the last one in a pool whose budget runs out.
    let h = 1.0f32 / 60.0;
    let shapes: [&[Vec3]; 3] = [
        &[
            Vec3::ZERO,
            Vec3::NEG_Y,
            Vec3::NEG_Y * 2.0,
            Vec3::NEG_Y * 3.0,
        ],
        &[
            Vec3::ZERO,
            Vec3::NEG_Y * 0.1,
            Vec3::NEG_Y * 2.0,
            Vec3::new(0.3, -2.1, 0.0),
        ],
        &[Vec3::ZERO, Vec3::NEG_Y],
    ];
    for (k, pts) in shapes.iter().enumerate() {
        let mut desc = CableDesc::from_points(pts).unwrap();
        // The smallest bending rigidity the check accepts, within 1%.
        let mut ei = 1.0e-25f32;
        desc.params.bend_stiffness = ei;
        while desc.validate_for_substep(h).is_err() {
            ei *= 1.01;
            desc.params.bend_stiffness = ei;
        }
        desc.params.max_length = Some(40.0);
        let mut pool = ParticlePool::with_budget(30);
        let c = pool.add_cable(&desc).unwrap();
        pool.validate_for_substep(h).unwrap();
        let mut worst = 0.0f32;
        let mut budget_hit = false;
        for delta in [
            0.7, 0.45, 0.1, -0.3, -1.3, 2.0, -2.5, 0.12, 30.0, -35.0, 3.3,
        ] {
            budget_hit |= matches!(pool.reel(c, delta), Err(CableError::BudgetExceeded { .. }));
            let rows = pool.row_consts(c).unwrap();
            let max = rows.iter().map(|r| r.bend_compliance).fold(0.0, f32::max);
            worst = worst.max(max / (h * h));
            pool.validate_for_substep(h)
                .unwrap_or_else(|e| panic!("shape {k}: refused after reeling: {e}"));
        }
        assert!(budget_hit, "shape {k}: the budget ran out once");
        assert!(worst > 1.0e28, "shape {k}: the bound is near ({worst:e})");
        assert!(
            worst <= 1.0e30,
            "shape {k}: a winch went past the bound ({worst:e})"
        );
    }
}
