//! Issue 12, save and restore: a run saved mid-way and restored goes on
//! bitwise as the uninterrupted run, on every layout and from every layout
//! to every other, with colliders and friction, moving attachments and a
//! moving collider, tethers, pins, masses, bending, compliance, a winch and
//! breaking cables.

use cable::core::{CableDesc, Collider, End, ParticlePool};
use cable::systems::save::{SaveError, restore_state, save_state};
use cable::systems::{Layout, SolverParams, Stepper};
use cable::{CableHandle, Scene};
use glam::{Quat, Vec3};

/// Every feature that carries state from frame to frame (shared with the
/// command line's test). Frames of 1/50 s against substeps of 1/60 s leave
/// a fraction in the accumulator.
pub const SCENE: &str = include_str!("scenes/save_restore.json");

/// Frame length: 1/50 s against the scene's 1/60 s substep.
const DT: f32 = 0.02;
/// Frames of the whole run (5 s) and of its first part (2 s).
const FRAMES: u32 = 250;
const SAVE_AT: u32 = 100;

/// What the game does before frame `f`: move the first cable's start
/// along a circle and the sphere up and down (every run does the same).
fn drive(pool: &mut ParticlePool, handles: &[CableHandle], f: u32) {
    let t = f as f32 * DT;
    let hand = Vec3::new(
        -3.0 + 0.5 * (2.0 * t).sin(),
        2.0 + 0.5 * (2.0 * t).cos(),
        0.0,
    );
    pool.set_attachment(handles[0], End::Start, Some(hand))
        .expect("live");
    let ball = pool.colliders().handles().next().expect("a sphere");
    let centre = Vec3::new(0.0, 0.3 * (1.5 * t).sin(), 1.2);
    pool.colliders_mut()
        .set_pose(ball, centre, Quat::from_rotation_y(t))
        .expect("valid pose");
}

fn start(layout: Layout) -> (ParticlePool, Stepper, Vec<CableHandle>) {
    let scene = Scene::from_json(SCENE).expect("valid scene");
    let (pool, handles) = scene.build_pool().expect("builds");
    let stepper = Stepper::with_layout(scene.params, layout).expect("valid");
    (pool, stepper, handles)
}

fn run(
    pool: &mut ParticlePool,
    stepper: &mut Stepper,
    h: &[CableHandle],
    frames: std::ops::Range<u32>,
) {
    for f in frames {
        drive(pool, h, f);
        stepper.advance(pool, DT).expect("steps");
    }
}

/// Every bit of the state a run continues from.
fn bits(pool: &ParticlePool, stepper: &Stepper) -> Vec<u32> {
    let mut out = vec![
        stepper.substeps_run() as u32,
        stepper.remainder().to_bits() as u32,
        (stepper.remainder().to_bits() >> 32) as u32,
    ];
    for h in pool.handles() {
        for (p, q) in pool
            .positions(h)
            .expect("live")
            .iter()
            .zip(pool.prev_positions(h).expect("live"))
        {
            out.extend(p.to_array().map(f32::to_bits));
            out.extend(q.to_array().map(f32::to_bits));
        }
        out.extend(
            pool.rest_lengths(h)
                .expect("live")
                .iter()
                .map(|r| r.to_bits()),
        );
    }
    out
}

fn uninterrupted(layout: Layout) -> Vec<u32> {
    let (mut pool, mut stepper, h) = start(layout);
    run(&mut pool, &mut stepper, &h, 0..FRAMES);
    bits(&pool, &stepper)
}

/// Runs to `SAVE_AT` in `first`, saves, restores, goes on in `second`.
fn interrupted(first: Layout, second: Layout) -> Vec<u32> {
    let (mut pool, mut stepper, h) = start(first);
    run(&mut pool, &mut stepper, &h, 0..SAVE_AT);
    let mut file = Vec::new();
    save_state(&mut file, &pool, &stepper).expect("saves");
    drop((pool, stepper));
    let (mut pool, mut stepper) = restore_state(file.as_slice())
        .expect("restores")
        .into_parts();
    assert_eq!(stepper.layout(), first);
    stepper.set_layout(second);
    // The game's handles name the same cables in the restored pool.
    run(&mut pool, &mut stepper, &h, SAVE_AT..FRAMES);
    bits(&pool, &stepper)
}

#[test]
fn issue_12_restored_run_continues_bitwise_on_every_layout() {
    let want = uninterrupted(Layout::Soa);
    for layout in Layout::ALL {
        assert!(uninterrupted(layout) == want, "{layout} differs from soa");
        assert!(
            interrupted(layout, layout) == want,
            "{layout}: the restored run differs"
        );
    }
    // The scene does what it is meant to: a winch turned, a cable broke.
    let (mut pool, mut stepper, h) = start(Layout::Soa);
    run(&mut pool, &mut stepper, &h, 0..FRAMES);
    assert!(
        pool.rest_lengths(h[9]).expect("live").len() < 11,
        "the winch reeled in"
    );
    assert!(
        pool.rest_lengths(h[10]).expect("live").len() > 7,
        "the winch paid out"
    );
    let broke = |c: CableHandle| {
        pool.row_consts(c)
            .expect("live")
            .iter()
            .rev()
            .skip(1)
            .any(|k| !k.linked)
    };
    assert!(broke(h[11]) || broke(h[12]), "a cable broke");
}

/// Far from the origin the state includes what rounding dropped of the
/// positions and of the previous positions (`ParticlePool::carry`,
/// `ParticlePool::carry_prev`): swinging cables 10 km out, saved mid-way
/// and restored, go on bitwise as the uninterrupted run, on every layout.
#[test]
fn a_run_far_from_the_origin_continues_bitwise() {
    let start = |layout: Layout| {
        let mut pool = ParticlePool::new();
        for k in 0..10 {
            let pin = Vec3::new(10_000.0 + 3.0 * k as f32, 10_000.0, -10_000.0);
            let to = pin + Vec3::new(0.8, -0.6, 0.1 * k as f32).normalize();
            let mut d = CableDesc::line(pin, to, 1.0, 4).expect("valid");
            d.attach_end = false;
            pool.add_cable(&d).expect("fits");
        }
        let params = SolverParams {
            substep: 1.0 / 240.0,
            ..SolverParams::default()
        };
        (pool, Stepper::with_layout(params, layout).expect("valid"))
    };
    let frames = |pool: &mut ParticlePool, stepper: &mut Stepper, n: u32| {
        for _ in 0..n {
            stepper.advance(pool, 1.0 / 60.0).expect("steps");
        }
    };
    let state = |pool: &ParticlePool, stepper: &Stepper| {
        let mut out = bits(pool, stepper);
        for h in pool.handles() {
            for c in pool
                .carry(h)
                .expect("live")
                .iter()
                .chain(pool.carry_prev(h).expect("live"))
            {
                out.extend(c.to_array().map(f32::to_bits));
            }
        }
        out
    };
    for layout in Layout::ALL {
        let (mut pool, mut stepper) = start(layout);
        frames(&mut pool, &mut stepper, 120);
        let want = state(&pool, &stepper);
        assert!(
            pool.handles().any(|h| pool
                .carry_prev(h)
                .expect("live")
                .iter()
                .any(|c| *c != Vec3::ZERO)),
            "far out, the previous positions' carries are not all zero"
        );
        let (mut pool, mut stepper) = start(layout);
        frames(&mut pool, &mut stepper, 50);
        let mut file = Vec::new();
        save_state(&mut file, &pool, &stepper).expect("saves");
        let (mut pool, mut stepper) = restore_state(file.as_slice())
            .expect("restores")
            .into_parts();
        frames(&mut pool, &mut stepper, 70);
        assert!(
            state(&pool, &stepper) == want,
            "{layout}: the restored run far from the origin differs"
        );
    }
}

#[test]
fn a_save_of_one_layout_restores_into_every_other() {
    let want = uninterrupted(Layout::Lanes8);
    for first in Layout::ALL {
        for second in Layout::ALL {
            if first != second {
                assert!(
                    interrupted(first, second) == want,
                    "{first} -> {second} differs"
                );
            }
        }
    }
}

#[test]
fn a_save_made_twice_is_the_same_file_and_restoring_it_keeps_it() {
    let (mut pool, mut stepper, h) = start(Layout::Lanes8);
    run(&mut pool, &mut stepper, &h, 0..SAVE_AT);
    let mut a = Vec::new();
    save_state(&mut a, &pool, &stepper).expect("saves");
    let (p2, s2) = restore_state(a.as_slice()).expect("restores").into_parts();
    let mut b = Vec::new();
    save_state(&mut b, &p2, &s2).expect("saves");
    assert!(a == b, "save -> restore -> save changed the file");
    assert_eq!(p2.id(), pool.id());
}

#[test]
fn a_non_finite_state_is_not_saved() {
    let (mut pool, stepper, h) = start(Layout::Soa);
    pool.positions_mut(h[3]).expect("live")[4].x = f32::NAN;
    let mut file = Vec::new();
    let err = save_state(&mut file, &pool, &stepper).unwrap_err();
    assert!(matches!(err, SaveError::Invalid(_)), "{err}");
    assert!(err.to_string().contains("must be finite"), "{err}");
    assert!(file.is_empty());
}

#[test]
fn restored_handles_are_the_games_and_removed_ones_stay_dead() {
    let (mut pool, stepper, h) = start(Layout::Soa);
    pool.remove_cable(h[2]).expect("live");
    pool.remove_cable(h[7]).expect("live");
    let ball = pool.colliders().handles().next().expect("a sphere");
    let post = pool.colliders().handles().nth(1).expect("a capsule");
    pool.colliders_mut().remove(post).expect("live");
    let mut file = Vec::new();
    save_state(&mut file, &pool, &stepper).expect("saves");
    let (mut copy, _) = restore_state(file.as_slice())
        .expect("restores")
        .into_parts();
    for (k, &c) in h.iter().enumerate() {
        assert_eq!(copy.contains(c), k != 2 && k != 7, "cable {k}");
    }
    assert!(copy.colliders().contains(ball) && !copy.colliders().contains(post));
    // New cables and colliders reuse the freed slots as the original would.
    let desc = cable::CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 2).expect("valid");
    assert_eq!(
        copy.add_cable(&desc).expect("fits"),
        pool.add_cable(&desc).expect("fits")
    );
    let ball2 = Collider::sphere(Vec3::ZERO, 1.0).expect("valid");
    assert_eq!(
        copy.colliders_mut().add(ball2),
        pool.colliders_mut().add(ball2)
    );
    // Another pool's handles are still refused.
    let other = ParticlePool::new().add_cable(&desc).expect("fits");
    assert!(!copy.contains(other));
}
