//! Sleeping and hidden cables (issue 12): still cables stop costing solver
//! time and wake when edited or when a collider changes near them; awake
//! cables' results do not depend on what sleeps; every layout agrees.

use cable::core::{CableDesc, CableHandle, CableParams, Collider, End, ParticlePool};
use cable::systems::{Layout, SolverParams, Stepper};
use glam::{Quat, Vec3};

const LAYOUTS: [Layout; 3] = [Layout::Aos, Layout::Soa, Layout::Lanes8];

/// Sleeping enabled: still below 5 cm/s for half a second.
fn sleepy() -> CableParams {
    CableParams {
        sleep_speed: 0.05,
        sleep_delay: 0.5,
        ..CableParams::default()
    }
}

/// A 3 m rope of 16 segments hanging between two points 2 m apart at `x`.
fn hanging(pool: &mut ParticlePool, x: f32, params: CableParams) -> CableHandle {
    let mut d = CableDesc::line(Vec3::new(x, 0.0, 0.0), Vec3::new(x, 0.0, 2.0), 3.0, 16)
        .expect("valid line");
    d.params = params;
    pool.add_cable(&d).expect("fits the budget")
}

fn bits(pool: &ParticlePool, h: CableHandle) -> Vec<u32> {
    let p = pool.positions(h).expect("live");
    let q = pool.prev_positions(h).expect("live");
    p.iter()
        .chain(q)
        .flat_map(|v| v.to_array())
        .map(f32::to_bits)
        .collect()
}

fn stepper(layout: Layout) -> Stepper {
    Stepper::with_layout(
        SolverParams {
            damping: 2.0,
            ..SolverParams::default()
        },
        layout,
    )
    .expect("valid params")
}

/// Steps 1/60 s frames until `done` or `max` frames; returns the frames run.
fn run_until(
    pool: &mut ParticlePool,
    st: &mut Stepper,
    max: u32,
    mut done: impl FnMut(&ParticlePool) -> bool,
) -> u32 {
    for f in 0..max {
        if done(pool) {
            return f;
        }
        st.advance(pool, 1.0 / 60.0).expect("valid pool");
    }
    max
}

#[test]
fn a_still_rope_falls_asleep_and_stays_put() {
    for layout in LAYOUTS {
        let mut pool = ParticlePool::new();
        let h = hanging(&mut pool, 0.0, sleepy());
        let mut st = stepper(layout);
        // Not asleep while it swings down.
        st.advance(&mut pool, 0.5).expect("valid pool");
        assert!(
            !pool.is_asleep(h).unwrap(),
            "{layout}: asleep while falling"
        );
        let frames = run_until(&mut pool, &mut st, 60 * 30, |p| p.is_asleep(h).unwrap());
        assert!(frames < 60 * 30, "{layout}: never fell asleep in 30 s");
        assert_eq!(pool.sleeping_count(), 1);
        assert!(!pool.is_active(h).unwrap());
        // Velocity zeroed, and no further step moves it.
        assert_eq!(pool.positions(h).unwrap(), pool.prev_positions(h).unwrap());
        let before = bits(&pool, h);
        for _ in 0..120 {
            st.advance(&mut pool, 1.0 / 60.0).unwrap();
        }
        assert_eq!(bits(&pool, h), before, "{layout}: a sleeping rope moved");
        // It sleeps hanging, not frozen mid-air: the middle sagged.
        let mid = pool.positions(h).unwrap()[8];
        assert!(mid.y < -0.8, "{layout}: middle at {mid}");
    }
}

#[test]
fn a_cable_without_sleep_speed_never_sleeps() {
    let mut pool = ParticlePool::new();
    let h = hanging(&mut pool, 0.0, CableParams::default());
    let mut st = stepper(Layout::Lanes8);
    for _ in 0..600 {
        st.advance(&mut pool, 1.0 / 60.0).unwrap();
    }
    assert!(!pool.is_asleep(h).unwrap());
    assert_eq!(pool.sleeping_count(), 0);
}

/// A row of hanging ropes, every other one sleepy, plus a few other kinds.
fn mixed_scene(with_sleep: bool) -> (ParticlePool, Vec<CableHandle>) {
    let mut pool = ParticlePool::new();
    let mut hs = Vec::new();
    for k in 0..40 {
        let mut p = if k % 2 == 0 && with_sleep {
            sleepy()
        } else {
            CableParams::default()
        };
        p.stiffness = k % 3 == 0;
        p.compliance = if k % 5 == 0 { 1.0e-4 } else { 0.0 };
        hs.push(hanging(&mut pool, k as f32 * 0.5, p));
    }
    pool.colliders_mut()
        .add(Collider::plane(Vec3::Y, -1.2).expect("valid plane"));
    (pool, hs)
}

#[test]
fn awake_cables_are_bitwise_the_same_whatever_sleeps() {
    let (mut reference, hs) = mixed_scene(false);
    let mut st = stepper(Layout::Soa);
    let mut frames = Vec::new();
    for _ in 0..300 {
        st.advance(&mut reference, 1.0 / 60.0).unwrap();
        frames.push(hs.iter().map(|&h| bits(&reference, h)).collect::<Vec<_>>());
    }
    let mut by_layout = Vec::new();
    for layout in LAYOUTS {
        let (mut pool, hs) = mixed_scene(true);
        let mut st = stepper(layout);
        let mut all = Vec::new();
        for f in &frames {
            st.advance(&mut pool, 1.0 / 60.0).unwrap();
            for (k, &h) in hs.iter().enumerate() {
                if k % 2 == 1 {
                    assert!(bits(&pool, h) == f[k], "{layout}: awake cable {k} differs");
                }
            }
            all.push(hs.iter().map(|&h| bits(&pool, h)).collect::<Vec<_>>());
        }
        assert!(
            pool.sleeping_count() >= 10,
            "{layout}: only {} of 20 sleepy cables slept",
            pool.sleeping_count()
        );
        by_layout.push(all);
    }
    assert!(by_layout[0] == by_layout[1], "aos and soa differ");
    assert!(by_layout[1] == by_layout[2], "soa and lanes8 differ");
}

#[test]
fn a_collider_dropped_among_sleeping_cables_wakes_those_it_touches() {
    for layout in LAYOUTS {
        let mut pool = ParticlePool::new();
        let hs: Vec<_> = (0..6)
            .map(|k| hanging(&mut pool, k as f32 * 2.0, sleepy()))
            .collect();
        let mut st = stepper(layout);
        let frames = run_until(&mut pool, &mut st, 60 * 30, |p| p.sleeping_count() == 6);
        assert!(frames < 60 * 30, "{layout}: not all asleep");
        // A ball far from every rope: nobody wakes.
        let far = pool
            .colliders_mut()
            .add(Collider::sphere(Vec3::new(0.0, 10.0, 0.0), 0.3).unwrap());
        st.advance(&mut pool, 1.0 / 60.0).unwrap();
        assert_eq!(pool.sleeping_count(), 6, "{layout}: a far ball woke a rope");
        // Dropped onto rope 2's middle: rope 2 wakes (and sags around it),
        // the others sleep on.
        let ball = pool
            .colliders_mut()
            .add(Collider::sphere(Vec3::new(4.0, -0.6, 1.0), 0.3).unwrap());
        st.advance(&mut pool, 1.0 / 60.0).unwrap();
        for (k, &h) in hs.iter().enumerate() {
            assert_eq!(
                pool.is_asleep(h).unwrap(),
                k != 2,
                "{layout}: rope {k} after the drop"
            );
        }
        let y0 = pool.positions(hs[2]).unwrap()[8].y;
        for _ in 0..30 {
            st.advance(&mut pool, 1.0 / 60.0).unwrap();
        }
        assert!(
            pool.positions(hs[2]).unwrap()[8].y != y0,
            "{layout}: the woken rope did not move"
        );
        // Setting a pose to where it is changes nothing; moving the far
        // ball far away wakes nobody.
        pool.colliders_mut()
            .set_pose(far, Vec3::new(0.0, 10.0, 0.0), Quat::IDENTITY)
            .unwrap();
        pool.colliders_mut()
            .set_pose(far, Vec3::new(0.0, 12.0, 0.0), Quat::IDENTITY)
            .unwrap();
        st.advance(&mut pool, 1.0 / 60.0).unwrap();
        for (k, &h) in hs.iter().enumerate() {
            if k != 2 {
                assert!(pool.is_asleep(h).unwrap(), "{layout}: rope {k} woke");
            }
        }
        // Removing the ball under rope 2 after it slept again wakes it.
        run_until(&mut pool, &mut st, 60 * 30, |p| p.is_asleep(hs[2]).unwrap());
        assert!(
            pool.is_asleep(hs[2]).unwrap(),
            "{layout}: rope 2 never slept again"
        );
        pool.colliders_mut().remove(ball).unwrap();
        st.advance(&mut pool, 1.0 / 60.0).unwrap();
        assert!(
            !pool.is_asleep(hs[2]).unwrap(),
            "{layout}: removal woke nobody"
        );
    }
}

#[test]
fn edits_wake_a_sleeping_cable() {
    let mut pool = ParticlePool::new();
    let h = hanging(&mut pool, 0.0, sleepy());
    let mut st = stepper(Layout::Lanes8);
    let settle = |pool: &mut ParticlePool, st: &mut Stepper| {
        let f = run_until(pool, st, 60 * 30, |p| p.is_asleep(h).unwrap());
        assert!(f < 60 * 30, "never slept");
    };
    settle(&mut pool, &mut st);
    // The same attachment target again: still asleep.
    let start = pool.attachment(h, End::Start).unwrap();
    pool.set_attachment(h, End::Start, start).unwrap();
    assert!(pool.is_asleep(h).unwrap());
    // A moved target wakes it, and the end follows.
    pool.set_attachment(h, End::Start, Some(Vec3::new(0.0, 0.5, 0.0)))
        .unwrap();
    assert!(!pool.is_asleep(h).unwrap());
    st.advance(&mut pool, 1.0 / 60.0).unwrap();
    assert_eq!(pool.positions(h).unwrap()[0], Vec3::new(0.0, 0.5, 0.0));
    settle(&mut pool, &mut st);
    pool.set_params(
        h,
        CableParams {
            radius: 0.1,
            ..sleepy()
        },
    )
    .unwrap();
    assert!(!pool.is_asleep(h).unwrap());
    settle(&mut pool, &mut st);
    pool.wake(h).unwrap();
    assert!(!pool.is_asleep(h).unwrap());
    settle(&mut pool, &mut st);
    pool.set_velocity(h, Vec3::X, 1.0 / 60.0).unwrap();
    assert!(!pool.is_asleep(h).unwrap());
    settle(&mut pool, &mut st);
    pool.teleport(h, Vec3::Z).unwrap();
    assert!(!pool.is_asleep(h).unwrap());
    settle(&mut pool, &mut st);
    pool.positions_mut(h).unwrap()[8].x += 0.1;
    assert!(!pool.is_asleep(h).unwrap());
}

#[test]
fn hidden_cables_are_skipped_only_when_asked() {
    for layout in LAYOUTS {
        let mut pool = ParticlePool::new();
        let skip = hanging(
            &mut pool,
            0.0,
            CableParams {
                skip_when_hidden: true,
                ..CableParams::default()
            },
        );
        let keep = hanging(&mut pool, 2.0, CableParams::default());
        let mut st = stepper(layout);
        st.advance(&mut pool, 0.1).unwrap();
        pool.set_visible(skip, false).unwrap();
        pool.set_visible(keep, false).unwrap();
        assert!(!pool.is_visible(skip).unwrap());
        let (a, b) = (bits(&pool, skip), bits(&pool, keep));
        st.advance(&mut pool, 0.1).unwrap();
        assert_eq!(
            bits(&pool, skip),
            a,
            "{layout}: a skipped hidden cable moved"
        );
        assert_ne!(
            bits(&pool, keep),
            b,
            "{layout}: a hidden cable not skipped stood still"
        );
        // Shown again, it resumes with the velocity it had.
        pool.set_visible(skip, true).unwrap();
        st.advance(&mut pool, 0.1).unwrap();
        assert_ne!(bits(&pool, skip), a, "{layout}: did not resume");
    }
}

#[test]
fn bad_sleep_parameters_are_refused_by_name() {
    let mut pool = ParticlePool::new();
    let h = hanging(&mut pool, 0.0, CableParams::default());
    for (p, name) in [
        (
            CableParams {
                sleep_speed: -1.0,
                ..CableParams::default()
            },
            "sleep_speed",
        ),
        (
            CableParams {
                sleep_speed: f32::NAN,
                ..CableParams::default()
            },
            "sleep_speed",
        ),
        (
            CableParams {
                sleep_delay: -0.5,
                ..CableParams::default()
            },
            "sleep_delay",
        ),
        (
            CableParams {
                sleep_delay: f32::INFINITY,
                ..CableParams::default()
            },
            "sleep_delay",
        ),
    ] {
        let err = pool.set_params(h, p).unwrap_err().to_string();
        assert!(err.starts_with(name), "{err}");
    }
}

#[test]
fn a_restored_run_with_sleeping_cables_goes_on_bitwise() {
    use cable::systems::save::{restore_state, save_state};
    let frame = 1.0 / 60.0;
    let (mut pool, hs) = mixed_scene(true);
    let ball = pool
        .colliders_mut()
        .add(Collider::sphere(Vec3::new(3.0, 5.0, 1.0), 0.3).unwrap());
    let mut st = stepper(Layout::Lanes8);
    for _ in 0..240 {
        st.advance(&mut pool, frame).unwrap();
    }
    assert!(pool.sleeping_count() > 0, "nothing slept before the save");
    // A change the sleeping cables have not seen yet, then the save.
    pool.colliders_mut()
        .set_pose(ball, Vec3::new(3.0, -0.6, 1.0), Quat::IDENTITY)
        .unwrap();
    let mut saved = Vec::new();
    save_state(&mut saved, &pool, &st).unwrap();
    let (mut restored, mut st2) = restore_state(&saved[..]).unwrap().into_parts();
    for _ in 0..240 {
        st.advance(&mut pool, frame).unwrap();
        st2.advance(&mut restored, frame).unwrap();
        for &h in &hs {
            assert!(bits(&pool, h) == bits(&restored, h), "restored run differs");
            assert_eq!(pool.is_asleep(h).unwrap(), restored.is_asleep(h).unwrap());
        }
    }
}
