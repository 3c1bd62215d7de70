//! Contact events (issue 40): a cable that touches a collider and leaves
//! it gets exactly one begin and one end; a sleeping cable keeps its
//! contact; removed colliders end theirs; the events are the same on
//! every layout and thread count.

use cable::core::{CableDesc, CableHandle, Collider, ColliderHandle, ParticlePool};
use cable::systems::events::{ContactEvent, ContactKind};
use cable::systems::{Layout, SolverParams, Stepper};
use glam::Vec3;

/// A 2 m rope pinned 1.5 m apart at y = 1 (it sags about 0.55 m) and a
/// ball of radius 0.3 under its middle whose top is 0.1 m above the free
/// sag: the rope falls onto the ball and rests on it. `drop` seconds in,
/// the ball starts moving down at `speed` m/s, leaving the rope on its
/// own catenary.
fn rope_on_a_ball(
    layout: Layout,
    threads: usize,
    drop: f32,
    speed: f32,
) -> (Vec<(u32, ContactEvent)>, CableHandle, ColliderHandle) {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
        .install(|| {
            let mut pool = ParticlePool::new();
            // A second rope far away that never touches anything, and the
            // ground far below that only the falling ball reaches.
            let far = CableDesc::line(Vec3::new(9.0, 1.0, 0.0), Vec3::new(10.0, 1.0, 0.0), 1.2, 12)
                .expect("valid");
            pool.add_cable(&far).expect("fits");
            let d = CableDesc::line(Vec3::new(0.0, 1.0, 0.0), Vec3::new(1.5, 1.0, 0.0), 2.0, 32)
                .expect("valid");
            let rope = pool.add_cable(&d).expect("fits");
            let c = pool.colliders_mut();
            c.add(Collider::plane(Vec3::Y, -50.0).expect("valid"));
            let ball = c.add(Collider::sphere(Vec3::new(0.75, 0.25, 0.0), 0.3).expect("valid"));
            c.set_track_contacts(true);
            let mut st = Stepper::with_layout(
                SolverParams {
                    damping: 1.0,
                    friction: 0.3,
                    ..SolverParams::default()
                },
                layout,
            )
            .expect("valid");
            let mut events = Vec::new();
            for frame in 0..300u32 {
                if frame as f32 / 60.0 == drop {
                    pool.colliders_mut()
                        .set_motion(ball, Vec3::new(0.0, -speed, 0.0), Vec3::ZERO)
                        .expect("live");
                }
                st.advance(&mut pool, 1.0 / 60.0).expect("steps");
                events.extend(st.contact_events().iter().map(|&e| (frame, e)));
                for e in st.contact_events() {
                    assert!(
                        st.touching().contains(&(e.cable, e.collider))
                            == (e.kind == ContactKind::Began),
                        "frame {frame}: {e:?} against {:?}",
                        st.touching()
                    );
                }
            }
            (events, rope, ball)
        })
}

#[test]
fn a_rope_that_lands_on_a_ball_and_is_left_behind_begins_and_ends_once() {
    // A ball that starts down at 2 m/s or more leaves the rope at once (it
    // falls 1.4 mm in the first frame, the ball 33 mm or more) and the
    // rope, never faster than the ball before it hangs free 0.1 m lower,
    // does not catch up.
    for speed in [2.0, 5.0, 20.0] {
        let (events, rope, ball) = rope_on_a_ball(Layout::Lanes8, 2, 2.0, speed);
        let kinds: Vec<_> = events
            .iter()
            .map(|(_, e)| (e.cable, e.collider, e.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                (rope, ball, ContactKind::Began),
                (rope, ball, ContactKind::Ended)
            ],
            "ball leaving at {speed} m/s: {events:?}"
        );
        // It lands within the first half second (it falls 0.1 m onto the
        // ball: 0.14 s) and is left the frame the ball starts down.
        let (began, ended) = (events[0].0, events[1].0);
        assert!((5..30).contains(&began), "landed at frame {began}");
        assert_eq!(ended, 120, "left at frame {ended} at {speed} m/s");
    }
    // A ball that starts down at 0.5 m/s leaves the rope for the moment
    // the rope needs to reach that speed, then carries it until the rope
    // hangs free: began, ended, began, ended.
    let (events, _, _) = rope_on_a_ball(Layout::Lanes8, 2, 2.0, 0.5);
    let kinds: Vec<_> = events.iter().map(|(_, e)| e.kind).collect();
    assert_eq!(
        kinds,
        [
            ContactKind::Began,
            ContactKind::Ended,
            ContactKind::Began,
            ContactKind::Ended
        ],
        "{events:?}"
    );
    assert!(events[1].0 == 120 && events[2].0 <= 124, "{events:?}");
}

#[test]
fn contact_events_are_the_same_on_every_layout_and_thread_count() {
    // Each pool and set has its own identity: compare slots and frames.
    let run = |layout, threads| {
        let (events, _, _) = rope_on_a_ball(layout, threads, 1.5, 0.5);
        events
            .iter()
            .map(|(f, e)| (*f, e.cable.index(), e.collider.index(), e.kind))
            .collect::<Vec<_>>()
    };
    let want = run(Layout::Aos, 1);
    assert_eq!(want.len(), 4, "{want:?}");
    for layout in Layout::ALL {
        for threads in [1, 2] {
            assert_eq!(
                run(layout, threads),
                want,
                "layout {layout}, {threads} threads"
            );
        }
    }
}

#[test]
fn a_sleeping_rope_keeps_its_contact_and_a_removed_collider_ends_it() {
    let mut pool = ParticlePool::new();
    let ground = pool
        .colliders_mut()
        .add(Collider::plane(Vec3::Y, 0.0).expect("valid"));
    pool.colliders_mut().set_track_contacts(true);
    let mut d = CableDesc::line(Vec3::new(0.0, 0.2, 0.0), Vec3::new(2.0, 0.2, 0.0), 2.0, 16)
        .expect("valid");
    (d.attach_start, d.attach_end) = (false, false);
    d.params.sleep_speed = 0.05;
    d.params.sleep_delay = 0.5;
    let rope = pool.add_cable(&d).expect("fits");
    let mut st = Stepper::new(SolverParams {
        damping: 2.0,
        friction: 0.5,
        ..SolverParams::default()
    })
    .expect("valid");
    let mut kinds = Vec::new();
    for _ in 0..240 {
        st.advance(&mut pool, 1.0 / 60.0).expect("steps");
        kinds.extend(st.contact_events().iter().map(|e| e.kind));
    }
    assert!(pool.is_asleep(rope).expect("live"), "the rope fell asleep");
    assert_eq!(
        kinds,
        [ContactKind::Began],
        "asleep on the ground, still touching"
    );
    assert_eq!(st.touching(), &[(rope, ground)]);
    // No substep, no news.
    st.advance(&mut pool, 0.0).expect("steps");
    assert!(st.contact_events().is_empty());
    assert_eq!(st.touching(), &[(rope, ground)]);
    // The ground goes: the contact ends (the rope wakes and falls).
    pool.colliders_mut().remove(ground).expect("live");
    st.advance(&mut pool, 1.0 / 60.0).expect("steps");
    assert_eq!(
        st.contact_events(),
        &[ContactEvent {
            cable: rope,
            collider: ground,
            kind: ContactKind::Ended
        }]
    );
    assert!(st.touching().is_empty());
    // Tracking off: nothing listed.
    pool.colliders_mut().set_track_contacts(false);
    st.advance(&mut pool, 1.0 / 60.0).expect("steps");
    assert!(st.contact_events().is_empty() && st.touching().is_empty());
}

#[test]
fn tracking_contacts_changes_no_motion() {
    let run = |track: bool| {
        let mut pool = ParticlePool::new();
        let c = pool.colliders_mut();
        c.add(Collider::plane(Vec3::Y, 0.0).expect("valid"));
        c.add(
            Collider::cuboid(
                Vec3::new(1.0, 0.3, 0.0),
                Vec3::splat(0.2),
                glam::Quat::IDENTITY,
            )
            .and_then(|b| b.with_motion(Vec3::new(0.5, 0.0, 0.0), Vec3::ZERO))
            .expect("valid"),
        );
        c.set_track_contacts(track);
        for k in 0..10 {
            let z = 0.1 * k as f32;
            let mut d = CableDesc::line(Vec3::new(0.0, 1.0, z), Vec3::new(2.0, 1.0, z), 2.5, 20)
                .expect("valid");
            d.attach_end = k % 2 == 0;
            pool.add_cable(&d).expect("fits");
        }
        let mut st = Stepper::new(SolverParams {
            friction: 0.4,
            ..SolverParams::default()
        })
        .expect("valid");
        let mut touched = 0;
        for _ in 0..120 {
            st.advance(&mut pool, 1.0 / 60.0).expect("steps");
            touched += st.touching().len();
        }
        let bits: Vec<u32> = pool
            .handles()
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|h| pool.positions(h).expect("live").to_vec())
            .flat_map(|p| p.to_array())
            .map(f32::to_bits)
            .collect();
        (bits, touched)
    };
    let (on, touched) = run(true);
    let (off, none) = run(false);
    assert!(touched > 0 && none == 0);
    assert!(on == off, "tracking contacts moved the cables");
}
