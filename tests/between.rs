//! Contact between cables (`SolverParams::cable_collision`, the scene's
//! `cable_collision`): checked with geometry written here, independently
//! of the solver: a coil dropped on the ground does not pass through
//! itself, a rope dropped across a pinned rope comes to rest on it, ropes
//! driven into each other at 1 to 7 m/s do not pass, collision groups opt
//! cables out, and every layout and thread count gives the same bits.
//! Open (issue 43, ignored here): ropes driven into each other at 10 to
//! 20 m/s; a small pile's bottom ropes pushed into the ground.

use cable::systems::Layout;
use cable::{CableDesc, CableHandle, ParticlePool, SolverParams, Stepper};
use cable_core::{Collider, CollisionGroups};
use glam::Vec3;

const H: f32 = 1.0 / 60.0;

fn params(gravity: Vec3) -> SolverParams {
    SolverParams {
        gravity,
        cable_collision: true,
        ..SolverParams::default()
    }
}

/// Closest distance between segments p0–p1 and q0–q1, by sampling both
/// finely (independent of the library's closest-point routine).
fn seg_dist(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> f32 {
    let mut best = f32::INFINITY;
    for i in 0..=24 {
        let p = p0.lerp(p1, i as f32 / 24.0);
        // The exact distance from p to segment q.
        let d = q1 - q0;
        let t = ((p - q0).dot(d) / d.length_squared().max(1e-12)).clamp(0.0, 1.0);
        best = best.min(p.distance(q0 + d * t));
    }
    best
}

fn line(pool: &ParticlePool, h: CableHandle) -> Vec<Vec3> {
    pool.positions(h).expect("live").to_vec()
}

/// A rope pinned at both ends along x, and a free one dropped across it
/// from 0.5 m above, along z: with contact on, the free rope comes to rest
/// draped over the pinned one, its middle on top (centre lines two radii
/// apart); with it off, it falls through.
fn drop_across(on: bool, layout: Layout, threads: usize) -> (Vec<Vec3>, Vec<Vec3>) {
    let mut pool = ParticlePool::new();
    let mut a = CableDesc::line(
        Vec3::new(-1.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        2.02,
        40,
    )
    .expect("valid");
    a.params.radius = 0.03;
    a.params.damping = Some(1.0);
    let a = pool.add_cable(&a).expect("added");
    let mut b = CableDesc::line(Vec3::new(0.0, 0.5, -0.8), Vec3::new(0.0, 0.5, 0.8), 1.6, 32)
        .expect("valid");
    b.attach_start = false;
    b.attach_end = false;
    b.params.radius = 0.03;
    b.params.friction = Some(0.5);
    b.params.damping = Some(1.0);
    let b = pool.add_cable(&b).expect("added");
    let mut stepper = Stepper::with_layout(
        SolverParams {
            cable_collision: on,
            ..params(Vec3::new(0.0, -9.81, 0.0))
        },
        layout,
    )
    .expect("valid");
    let run = |pool: &mut ParticlePool, stepper: &mut Stepper| {
        for _ in 0..240 {
            stepper.advance(pool, H).expect("steps");
        }
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool")
        .install(|| run(&mut pool, &mut stepper));
    (line(&pool, a), line(&pool, b))
}

/// It held its place once the contact's friction was capped by the
/// pair's whole push over the substep rather than by the last pass's
/// (smaller) one: before, the rope slid off lengthwise.
#[test]
fn a_rope_dropped_across_a_pinned_rope_comes_to_rest_on_it() {
    let (a, b) = drop_across(true, Layout::Lanes8, 2);
    let r = 0.03;
    // The free rope's middle particle lies above the pinned rope's
    // middle, by at least 1.5 radii (two radii when resting exactly).
    let (ma, mb) = (a[a.len() / 2], b[b.len() / 2]);
    assert!(
        mb.y - ma.y > 1.5 * r,
        "the dropped rope's middle is {:.4} m above the pinned one's (needs > {:.3})",
        mb.y - ma.y,
        1.5 * r
    );
    // It hangs over the pinned rope, not off it: its 0.8 m halves reach
    // no lower than their length below the pinned rope's middle (plus
    // 10 % for stretch and sag).
    let lowest = b.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    assert!(
        lowest > ma.y - 0.88,
        "the rope fell away: its lowest point is {:.3} m below the pinned rope's middle",
        ma.y - lowest
    );
    // No segment of one goes into the other (centre lines at least 1.8
    // radii apart: a little give while it settles).
    let mut closest = f32::INFINITY;
    for sa in a.windows(2) {
        for sb in b.windows(2) {
            closest = closest.min(seg_dist(sa[0], sa[1], sb[0], sb[1]));
        }
    }
    assert!(closest > 1.8 * r, "centre lines {closest:.4} m apart");
    // Without contact it falls through.
    let (a, b) = drop_across(false, Layout::Lanes8, 2);
    assert!(b[b.len() / 2].y < a[a.len() / 2].y - 0.1);
}

#[test]
fn every_layout_and_thread_count_gives_the_same_bits() {
    let base = drop_across(true, Layout::Soa, 1);
    for layout in Layout::ALL {
        for threads in [1, 2, 3] {
            assert_eq!(
                drop_across(true, layout, threads),
                base,
                "{layout} on {threads} threads differs"
            );
        }
    }
}

/// The smallest distance between the centre lines of two segments of one
/// cable that are not neighbours (at least `skip` segments apart).
fn self_closest(p: &[Vec3], skip: usize) -> f32 {
    let mut best = f32::INFINITY;
    for i in 0..p.len() - 1 {
        for j in i + skip..p.len() - 1 {
            best = best.min(seg_dist(p[i], p[i + 1], p[j], p[j + 1]));
        }
    }
    best
}

#[test]
fn a_coil_dropped_on_the_ground_does_not_pass_through_itself() {
    // 120 particles on a helix of radius 0.2 m, 3 turns, pitch 0.07 m
    // (more than the rope's 5 cm thickness), dropped from 1 m onto the
    // ground: the turns land on each other.
    let r = 0.025;
    let points: Vec<Vec3> = (0..120)
        .map(|i| {
            let a = i as f32 / 119.0 * 3.0 * std::f32::consts::TAU;
            Vec3::new(
                0.2 * a.cos(),
                1.0 + 0.07 * a / std::f32::consts::TAU,
                0.2 * a.sin(),
            )
        })
        .collect();
    let mut desc = CableDesc::from_points(&points).expect("valid");
    desc.attach_start = false;
    desc.attach_end = false;
    desc.params.radius = r;
    desc.params.friction = Some(0.3);
    desc.params.damping = Some(0.5);
    let mut pool = ParticlePool::new();
    let h = pool.add_cable(&desc).expect("added");
    pool.colliders_mut()
        .add(Collider::plane(Vec3::Y, 0.0).expect("valid"));
    let mut stepper = Stepper::new(params(Vec3::new(0.0, -9.81, 0.0))).expect("valid");
    // Segment length 0.047 m: segments 3 apart are 0.14 m apart along the
    // cable, beyond the two radii the pass skips.
    let mut worst = f32::INFINITY;
    for _ in 0..180 {
        stepper.advance(&mut pool, H).expect("steps");
        worst = worst.min(self_closest(&line(&pool, h), 3));
    }
    // Touching turns are two radii apart. The pass runs after the
    // constraints, which pull a landing coil's turns into each other
    // again every substep: they give up to 40 % of the thickness (0.029 m
    // measured), but never come near passing (0 m).
    assert!(
        worst > r,
        "turns of the coil came {worst:.4} m apart (the rope is {:.3} m thick)",
        2.0 * r
    );
    // It landed: every particle near the ground, and its centre line
    // above it (a turn pressed down by the pass after the ground's
    // contact may dip into the ground by part of the radius: 1.1 cm of
    // 2.5 cm measured).
    let p = line(&pool, h);
    assert!(p.iter().all(|q| q.y > 0.0 && q.y < 0.4), "{p:?}");
    // Turns lie on turns: some particle rests about one thickness up.
    assert!(p.iter().any(|q| q.y > 2.5 * r), "the coil lies flat: {p:?}");
}

/// Layers of ropes dropped crosswise onto the ground (a small pile):
/// the ropes at the bottom, pressed down by the ones piled on them, stay
/// on the ground (one radius above it) at every frame, and the pile has
/// height (ropes lie on ropes, not through them).
///
/// Open (issue 43): the contact pass between cables runs after the
/// kernel's collider contacts, so the ropes at the bottom are pushed into
/// the ground. Pushing particles back out of the colliders inside that
/// pass was tried: it keeps this pile on the ground but lets the coil's
/// turns (`a_coil_dropped_on_the_ground_does_not_pass_through_itself`)
/// come within 1 mm of passing. So was letting a particle that lies on a
/// plane take no share of a pair's push into it (the other rope takes
/// all of it): 6.3 cm into the ground became 2.6 mm, but the coil's turns
/// came 0.1 mm apart; removing only the push's part into the plane: 8.1
/// mm, and 0.3 mm apart. The pass needs to run inside the kernel's
/// iterations, with the colliders' contacts after it.
#[test]
#[ignore = "open in issue 43: a pile's bottom ropes are pushed into the ground"]
fn ropes_piled_on_the_ground_are_not_pushed_through_it() {
    let r = 0.025;
    let mut pool = ParticlePool::new();
    let mut handles = Vec::new();
    for layer in 0..6 {
        for k in 0..5 {
            let (y, c) = (0.1 + 0.15 * layer as f32, -0.4 + 0.2 * k as f32);
            let (a, b) = if layer % 2 == 0 {
                (Vec3::new(-0.8, y, c), Vec3::new(0.8, y, c))
            } else {
                (Vec3::new(c, y, -0.8), Vec3::new(c, y, 0.8))
            };
            let mut desc = CableDesc::line(a, b, 1.6, 24).expect("valid");
            desc.attach_start = false;
            desc.attach_end = false;
            desc.params.radius = r;
            desc.params.friction = Some(0.3);
            handles.push(pool.add_cable(&desc).expect("added"));
        }
    }
    pool.colliders_mut()
        .add(Collider::plane(Vec3::Y, 0.0).expect("valid"));
    let mut stepper = Stepper::new(params(Vec3::new(0.0, -9.81, 0.0))).expect("valid");
    let mut lowest = f32::INFINITY;
    for _ in 0..120 {
        stepper.advance(&mut pool, H).expect("steps");
        for &h in &handles {
            lowest = line(&pool, h).iter().fold(lowest, |m, q| m.min(q.y));
        }
    }
    assert!(
        lowest > r - 5e-4,
        "a particle went {:.4} m into the ground",
        r - lowest
    );
    let top = handles
        .iter()
        .flat_map(|&h| line(&pool, h))
        .fold(f32::NEG_INFINITY, |m, q| m.max(q.y));
    // Six layers of 5 cm ropes: the top layer well above the first.
    assert!(top > 4.0 * r, "the pile is {top:.3} m high");
}

/// The closest pair of segments of two polylines: their distance and the
/// side of A that B is on at them, the sign of `(cB − cA) · (tA × tB)`
/// (t the segments' directions): it changes only when the centre lines
/// pass through each other, not when one slides along or around the
/// other. Sampled, independently of the library.
fn closest_side(a: &[Vec3], b: &[Vec3]) -> (f32, f32) {
    let mut best = (f32::INFINITY, 0.0);
    for sa in a.windows(2) {
        for sb in b.windows(2) {
            for i in 0..=16 {
                let p = sa[0].lerp(sa[1], i as f32 / 16.0);
                let d = sb[1] - sb[0];
                let t = ((p - sb[0]).dot(d) / d.length_squared()).clamp(0.0, 1.0);
                let q = sb[0] + d * t;
                let dist = p.distance(q);
                if dist < best.0 {
                    let side = (q - p).dot((sa[1] - sa[0]).cross(d));
                    best = (dist, side.signum());
                }
            }
        }
    }
    best
}

/// Rope B, free and straight along z, is driven at `speed` down onto rope
/// A, pinned at both ends along x, with no gravity, for 1 s: B's side of A
/// at the start and at every substep (`closest_side`), and the least
/// distance between their centre lines.
fn drive_through(speed: f32, groups: CollisionGroups) -> (bool, f32) {
    let r = 0.02;
    let mut pool = ParticlePool::new();
    let mut a = CableDesc::line(
        Vec3::new(-1.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        2.05,
        40,
    )
    .expect("valid");
    a.params.radius = r;
    let a = pool.add_cable(&a).expect("added");
    let mut b = CableDesc::line(Vec3::new(0.0, 0.5, -1.0), Vec3::new(0.0, 0.5, 1.0), 2.0, 40)
        .expect("valid");
    b.attach_start = false;
    b.attach_end = false;
    b.params.radius = r;
    b.params.collision_groups = groups;
    let b = pool.add_cable(&b).expect("added");
    for p in pool.prev_positions_mut(b).expect("live") {
        p.y += speed * H;
    }
    let mut stepper = Stepper::new(params(Vec3::ZERO)).expect("valid");
    let (_, start) = closest_side(&line(&pool, a), &line(&pool, b));
    let (mut kept, mut least) = (true, f32::INFINITY);
    for _ in 0..60 {
        stepper.advance(&mut pool, H).expect("steps");
        let (dist, side) = closest_side(&line(&pool, a), &line(&pool, b));
        kept &= side == start;
        least = least.min(dist);
    }
    (kept, least)
}

#[test]
fn ropes_driven_into_each_other_at_1_to_7_m_per_s_do_not_pass() {
    for speed in [1.0, 2.0, 5.0, 7.0] {
        let (kept, least) = drive_through(speed, CollisionGroups::ALL);
        assert!(
            kept,
            "at {speed} m/s the driven rope passed through the other"
        );
        assert!(
            least > 0.03,
            "at {speed} m/s the centre lines came {least:.4} m apart (touching: 0.04)"
        );
    }
}

/// Open (issue 43): at 10 m/s and more the driven rope pushes the pinned
/// one down until it is taut, folds round it, and its side of the other
/// changes (the centre lines came 6 mm apart at 10 m/s, 12 mm at 20). The
/// pass's rounds of distance sweeps and contacts (`SETTLE_ROUNDS`) took
/// the limit from 2 to 7 m/s; contacts solved inside the kernel's
/// constraint iterations are the next step.
#[test]
#[ignore = "open in issue 43: ropes driven into each other at 10-20 m/s"]
fn ropes_driven_into_each_other_at_10_to_20_m_per_s_do_not_pass() {
    for speed in [10.0, 15.0, 20.0] {
        let (kept, least) = drive_through(speed, CollisionGroups::ALL);
        assert!(
            kept,
            "at {speed} m/s the driven rope passed through the other"
        );
        assert!(least > 0.03, "at {speed} m/s: {least:.4} m apart");
    }
}

#[test]
fn collision_groups_let_a_cable_opt_out() {
    // No group: collides with nothing, and passes.
    let (kept, _) = drive_through(2.0, CollisionGroups::NONE);
    assert!(!kept, "an opted-out rope must pass");
    // In group 2, colliding with group 2: the other rope, in every group
    // and colliding with every group, still meets it.
    let alone = CollisionGroups {
        memberships: 0b10,
        filter: 0b10,
    };
    assert!(drive_through(2.0, alone).0);
    // Group 2 against a rope in group 3 only: they pass.
    let other = CollisionGroups {
        memberships: 0b100,
        filter: 0b100,
    };
    assert!(!other.interacts_with(alone));
}

#[test]
fn the_scene_key_switches_it_and_is_off_by_default() {
    let text = |extra: &str| {
        format!(r#"{{{extra} "cables": [{{"start": [0, 0, 0], "end": [1, 0, 0]}}]}}"#)
    };
    let on = cable::Scene::from_json(&text(r#""cable_collision": true,"#)).expect("valid");
    assert!(on.params.cable_collision);
    let off = cable::Scene::from_json(&text("")).expect("valid");
    assert!(!off.params.cable_collision);
    let err = cable::Scene::from_json(&text(r#""cable_collision": 1,"#))
        .expect_err("not a boolean")
        .to_string();
    assert!(err.contains("cable_collision"), "{err}");
}
