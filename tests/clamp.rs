//! Clamped ends (`CableParams::clamp_start`, `clamp_end`; the scene's
//! `clamp_start` and `clamp_end`): a straight rod clamped at its pinned
//! end bends from that end as Euler-Bernoulli says, without a second
//! pinned particle; a clamp holds the end's direction in the world while
//! its target moves; it is the same rod as one clamped by pinning a
//! particle one segment further out; a free end's clamp does nothing;
//! and what a clamp cannot hold (a pre-bent rest shape, no bending
//! stiffness) is refused by name.

use cable::systems::{Layout, Solver};
use cable::{CableDesc, CableError, CableHandle, End, ParticlePool, SolverParams, Stepper};
use glam::Vec3;

const G: f64 = 9.81;

/// The direct solver at the default 8 iterations and 1/60 s, damped (2/s)
/// so that a cantilever comes to rest.
fn direct() -> SolverParams {
    SolverParams {
        solver: Solver::Direct,
        damping: 2.0,
        ..SolverParams::default()
    }
}

/// A straight rod of `length` along x from the origin, of `segments`,
/// `rho` kg/m and bending rigidity `ei`, tethers off, with only the end
/// `end` attached and clamped.
fn rod(length: f32, segments: u32, rho: f32, ei: f32, end: End) -> CableDesc {
    let mut d =
        CableDesc::line(Vec3::ZERO, Vec3::new(length, 0.0, 0.0), length, segments).expect("valid");
    d.attach_start = end == End::Start;
    d.attach_end = end == End::End;
    d.params.clamp_start = end == End::Start;
    d.params.clamp_end = end == End::End;
    d.mass_per_length = Some(rho);
    d.params.bend_stiffness = ei;
    d.params.tethers = false;
    d
}

/// Runs `frames` frames of 1/60 s on `layout`; returns the most any
/// particle moved in one frame over the last 60.
fn settle(
    layout: Layout,
    params: SolverParams,
    pool: &mut ParticlePool,
    h: CableHandle,
    frames: u32,
) -> f32 {
    let mut st = Stepper::with_layout(params, layout).expect("valid");
    let mut before = pool.positions(h).expect("live").to_vec();
    let mut worst = 0.0f32;
    for f in 0..frames {
        st.advance(pool, 1.0 / 60.0).expect("valid dt");
        let p = pool.positions(h).expect("live");
        assert!(p.iter().all(|q| q.is_finite()), "not finite at frame {f}");
        if f + 60 >= frames {
            for (a, b) in p.iter().zip(&before) {
                worst = worst.max(a.distance(*b));
            }
        }
        before.copy_from_slice(p);
    }
    worst
}

/// The free end's droop below the clamped one after 20 s on the direct
/// solver, and the most a particle moved in a substep over the last second.
fn droop(length: f32, segments: u32, rho: f32, ei: f32, end: End) -> (f64, f32) {
    let mut pool = ParticlePool::new();
    let h = pool
        .add_cable(&rod(length, segments, rho, ei, end))
        .expect("fits");
    let moved = settle(Layout::Soa, direct(), &mut pool, h, 1200);
    let p = pool.positions(h).expect("live");
    let tip = if end == End::Start {
        p[p.len() - 1]
    } else {
        p[0]
    };
    (-f64::from(tip.y), moved)
}

/// Euler-Bernoulli's small-deflection tip droop `q·L⁴ / (8·EI)`: the
/// clamp is at the end particle, so the beam is the whole rod.
fn beam(length: f64, rho: f64, ei: f64) -> f64 {
    rho * G * length.powi(4) / (8.0 * ei)
}

/// Cantilevers of `length`, `rho` and each of `segments` at `ei` and
/// `4·ei`: within 3 % of beam theory (the issue asks for 20 %; measured
/// within 1 %), the stiffer one drooping 3.4 to 4.6 times less, at rest.
fn check(length: f32, segments: &[u32], rho: f32, ei: f32) {
    for &n in segments {
        let want = beam(f64::from(length), f64::from(rho), f64::from(ei));
        let (d, moved) = droop(length, n, rho, ei, End::Start);
        let (d4, moved4) = droop(length, n, rho, 4.0 * ei, End::Start);
        eprintln!(
            "clamped {length} m of {n}, EI {ei}: droop/EB {:.4}, 4 EI {:.4}, ratio {:.3}",
            d / want,
            d4 / (want / 4.0),
            d / d4
        );
        assert!(
            (d / want - 1.0).abs() < 0.03,
            "{length} m of {n}, EI {ei}: droop {d} m, beam theory {want} m"
        );
        assert!(
            (d4 / (want / 4.0) - 1.0).abs() < 0.03,
            "{length} m of {n}, EI {}: droop {d4} m, beam theory {} m",
            4.0 * ei,
            want / 4.0
        );
        assert!((3.4..=4.6).contains(&(d / d4)), "ratio {}", d / d4);
        assert!(
            moved < 1.0e-5 && moved4 < 1.0e-5,
            "still moving {moved} / {moved4} m per substep"
        );
    }
}

#[test]
fn clamped_cantilevers_of_10_to_100_segments_droop_as_beam_theory_says() {
    // 1 m, 0.1 kg/m, EI 2 N·m² (a droop of 6 % of the length).
    check(1.0, &[10, 20, 40, 100], 0.1, 2.0);
}

#[test]
fn clamped_cantilevers_of_other_lengths_masses_and_stiffnesses_droop_as_beam_theory_says() {
    check(0.5, &[10], 0.2, 0.25);
    check(2.0, &[40], 0.1, 20.0);
    check(3.0, &[60], 0.5, 400.0);
}

#[test]
fn a_clamp_at_the_end_holds_as_one_at_the_start() {
    let (a, _) = droop(1.0, 20, 0.1, 2.0, End::Start);
    let (b, moved) = droop(1.0, 20, 0.1, 2.0, End::End);
    assert!(moved < 1.0e-5);
    assert!((a - b).abs() < 1.0e-5, "start {a} m, end {b} m");
}

#[test]
fn a_clamp_is_the_rod_clamped_by_a_pinned_particle_one_segment_further_out() {
    // The clamp's virtual particle, made real: one more segment behind
    // the clamped end, pinned, with the end pinned too. The same rod, up
    // to the order of the solve's rounding.
    let (n, l) = (20u32, 1.0f32);
    let seg = l / n as f32;
    let (clamped, _) = droop(l, n, 0.1, 2.0, End::Start);
    let mut d = CableDesc::line(
        Vec3::new(-seg, 0.0, 0.0),
        Vec3::new(l, 0.0, 0.0),
        l + seg,
        n + 1,
    )
    .expect("valid");
    d.attach_end = false;
    d.pins = vec![1];
    d.mass_per_length = Some(0.1);
    d.params.bend_stiffness = 2.0;
    d.params.tethers = false;
    let mut pool = ParticlePool::new();
    let h = pool.add_cable(&d).expect("fits");
    settle(Layout::Soa, direct(), &mut pool, h, 1200);
    let pinned = -f64::from(pool.positions(h).expect("live")[n as usize + 1].y);
    eprintln!("clamp {clamped} m, two pins {pinned} m");
    assert!(
        (clamped - pinned).abs() < 2.0e-5,
        "clamp {clamped} m, two pins {pinned} m"
    );
}

#[test]
fn a_clamp_keeps_its_direction_in_the_world_while_its_target_moves() {
    // A clamped end carried up 1 m and 2 m sideways over 2 s: once it
    // stops, the rod droops below it as it does at rest in place, every
    // layout alike.
    let (still, _) = droop(1.0, 20, 0.1, 2.0, End::Start);
    for layout in Layout::ALL {
        let mut pool = ParticlePool::new();
        let h = pool
            .add_cable(&rod(1.0, 20, 0.1, 2.0, End::Start))
            .expect("fits");
        let mut st = Stepper::with_layout(direct(), layout).expect("valid");
        for f in 0..1200 {
            let t = (f as f32 / 120.0).min(1.0);
            pool.set_attachment(h, End::Start, Some(Vec3::new(0.0, t, 2.0 * t)))
                .expect("live");
            st.advance(&mut pool, 1.0 / 60.0).expect("valid dt");
        }
        let p = pool.positions(h).expect("live");
        let (root, tip) = (p[0], p[p.len() - 1]);
        assert_eq!(root, Vec3::new(0.0, 1.0, 2.0));
        let moved = f64::from(root.y - tip.y);
        assert!(
            (moved - still).abs() < 1.0e-4 && (tip.z - 2.0).abs() < 1.0e-4,
            "{layout}: droop {moved} m below the moved clamp (in place {still} m), tip z {}",
            tip.z
        );
    }
}

#[test]
fn a_clamp_on_a_free_end_does_nothing() {
    // Clamped or not, a rod whose ends are free falls the same, bit for bit.
    let fall = |clamp: bool| {
        let mut d = rod(1.0, 12, 0.1, 2.0, End::Start);
        d.attach_start = false;
        d.params.clamp_end = clamp;
        d.params.clamp_start = clamp;
        let mut pool = ParticlePool::new();
        let h = pool.add_cable(&d).expect("fits");
        settle(Layout::Lanes8, direct(), &mut pool, h, 90);
        pool.positions(h).expect("live").to_vec()
    };
    assert_eq!(fall(true), fall(false));
}

#[test]
fn a_clamp_also_holds_under_gauss_seidel() {
    // The sweep is softer (the direct solver is the one for rods), but a
    // clamped cantilever still stands out where a hinged one hangs.
    let hangs = |clamp: bool| {
        let mut d = rod(1.0, 10, 0.1, 2.0, End::Start);
        d.params.clamp_start = clamp;
        let mut pool = ParticlePool::new();
        let h = pool.add_cable(&d).expect("fits");
        let params = SolverParams {
            iterations: 64,
            damping: 2.0,
            ..SolverParams::default()
        };
        settle(Layout::Soa, params, &mut pool, h, 600);
        -pool.positions(h).expect("live")[10].y
    };
    let (clamped, hinged) = (hangs(true), hangs(false));
    eprintln!("Gauss-Seidel, 64 iterations: clamped {clamped} m, hinged {hinged} m");
    assert!(
        clamped < 0.5 * hinged,
        "clamped {clamped} m, hinged {hinged} m"
    );
}

#[test]
fn what_a_clamp_cannot_hold_is_refused_by_name() {
    let mut pool = ParticlePool::new();
    // No bending stiffness: nothing to hold the direction with.
    let mut d = rod(1.0, 8, 0.1, 2.0, End::Start);
    d.params.bend_stiffness = 0.0;
    match pool.add_cable(&d) {
        Err(CableError::OutOfRange { field, .. }) => assert_eq!(field, "bend_stiffness"),
        other => panic!("expected bend_stiffness refused, got {other:?}"),
    }
    // A pre-bent rest shape would roll about its clamp.
    let hook = [Vec3::ZERO, Vec3::X, Vec3::new(1.5, 0.5, 0.0)];
    let mut d = CableDesc::from_points(&hook).expect("valid");
    d.params.bend_stiffness = 2.0;
    d.params.clamp_end = true;
    match pool.add_cable(&d) {
        Err(CableError::OutOfRange { field, .. }) => assert_eq!(field, "clamp_end"),
        other => panic!("expected clamp_end refused, got {other:?}"),
    }
    // The same, set on a cable already in the pool.
    d.params.clamp_end = false;
    let h = pool.add_cable(&d).expect("a hinged hook");
    let mut p = *pool.params(h).expect("live");
    p.clamp_start = true;
    let e = pool.set_params(h, p).expect_err("a clamped hook");
    assert!(e.to_string().contains("straight rest shape"), "{e}");
    assert!(!pool.params(h).expect("live").clamp_start);
}

/// The tip droop of a 1.5 m rod of 30 segments (0.15 kg/m, EI 3 N·m²)
/// along x from `origin`, clamped (or, without `clamp`, held by pinning
/// its first two particles), after 20 s on the direct solver; and how far
/// any particle left the rod's plane (z = `origin.z`), metres.
fn far_droop(origin: Vec3, clamp: bool) -> (f64, f32) {
    let mut d = CableDesc::line(origin, origin + Vec3::new(1.5, 0.0, 0.0), 1.5, 30).expect("valid");
    d.attach_end = false;
    d.params.clamp_start = clamp;
    if !clamp {
        d.pins = vec![1];
    }
    d.mass_per_length = Some(0.15);
    d.params.bend_stiffness = 3.0;
    d.params.tethers = false;
    let mut pool = ParticlePool::new();
    let h = pool
        .add_cable(&d)
        .expect("a straight rod, wherever it lies");
    settle(Layout::Lanes8, direct(), &mut pool, h, 1200);
    let p = pool.positions(h).expect("live");
    let aside = p
        .iter()
        .map(|q| (q.z - origin.z).abs())
        .fold(0.0f32, f32::max);
    (f64::from(p[0].y) - f64::from(p[30].y), aside)
}

#[test]
fn a_rod_far_from_the_origin_droops_as_at_the_origin() {
    // Found by a docs-only trial: a straight rod 1 km out sideways had its
    // f32 points' rounding as rest curvature (a "pre-bent" clamp refused;
    // pinned, it drooped 6 % more at 1 km, 30 % at 10 km) and bent out of
    // its plane.
    for clamp in [true, false] {
        let (near, _) = far_droop(Vec3::ZERO, clamp);
        for (origin, tol) in [
            (Vec3::new(0.0, 0.0, 1000.0), 5.0e-4),
            (Vec3::new(700.0, -300.0, 700.0), 5.0e-4),
            (Vec3::new(0.0, 0.0, 10_000.0), 3.0e-3),
        ] {
            let (far, aside) = far_droop(origin, clamp);
            eprintln!(
                "clamp {clamp}: droop {near} m at the origin, {far} m at {origin}, {aside} m aside"
            );
            assert!(
                (far - near).abs() < tol,
                "clamp {clamp}: {far} m at {origin}, {near} m at the origin"
            );
            // Nothing acts across the plane of the rod and gravity (a line
            // 1 km out was laid with its shared coordinate rounded, and a
            // rod along it bent sideways by 1.8 mm, 28 mm at 10 km).
            assert!(
                f64::from(aside) < tol,
                "clamp {clamp}: {aside} m out of its plane at {origin}"
            );
        }
    }
}

#[test]
fn a_clamped_rod_of_one_segment_is_a_torsion_spring_at_its_clamp() {
    // One segment of length L: its end particle (half the segment's mass)
    // turns by θ below the clamp's line until the bending moment of the
    // clamp's curvature constraint, EI/l̄ · κ · dκ/dθ with κ = 2·tan(θ/2)
    // and l̄ = L/2 (half a segment can bend), balances gravity's m·g·L·cos θ.
    let (l, rho, ei) = (0.5f32, 0.2f32, 0.05f32);
    let mut d = rod(l, 1, rho, ei, End::Start);
    d.params.clamp_start = true;
    let mut pool = ParticlePool::new();
    let h = pool.add_cable(&d).expect("fits");
    let moved = settle(Layout::Soa, direct(), &mut pool, h, 1200);
    let tip = pool.positions(h).expect("live")[1];
    let theta = f64::from(-tip.y).atan2(f64::from(tip.x));
    let (l, m, ei) = (f64::from(l), f64::from(rho * l) / 2.0, f64::from(ei));
    let moment = |t: f64| ei / (l / 2.0) * 2.0 * (t / 2.0).tan() / (t / 2.0).cos().powi(2);
    // Bisection on moment(θ) = m·g·L·cos θ over (0, π/2).
    let (mut lo, mut hi) = (0.0f64, std::f64::consts::FRAC_PI_2);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if moment(mid) < m * G * l * mid.cos() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    eprintln!("one clamped segment: {theta} rad, torsion spring {lo} rad");
    assert!(moved < 1.0e-5);
    assert!(
        (theta - lo).abs() < 1.0e-3 * lo.max(0.01),
        "{theta} rad, spring {lo} rad"
    );
}

/// Where the free end of a 1 m rod (20 segments, 0.1 kg/m, `ei`, clamped
/// or hinged at its attached start, `iterations`) rests relative to its
/// pin after 20 s on the direct solver, when the pin is moved by `jump`
/// in one frame at 1/6 s; asserts that every frame is finite. Returns
/// the tip's offset from the pin and the most any segment is stretched.
fn after_a_jump(clamp: bool, ei: f32, iterations: u32, jump: Vec3) -> (Vec3, f32) {
    let mut d = rod(1.0, 20, 0.1, ei, End::Start);
    d.params.clamp_start = clamp;
    d.params.iterations = Some(iterations);
    let mut pool = ParticlePool::new();
    let h = pool.add_cable(&d).expect("fits");
    let mut st = Stepper::with_layout(direct(), Layout::Soa).expect("valid");
    for f in 0..1200 {
        if f == 10 {
            pool.set_attachment(h, End::Start, Some(jump))
                .expect("live");
        }
        st.advance(&mut pool, 1.0 / 60.0).expect("valid dt");
        let p = pool.positions(h).expect("live");
        assert!(
            p.iter().all(|q| q.is_finite()),
            "clamp {clamp}, EI {ei}, {iterations} iterations, pin moved by {jump}: not finite at frame {f}"
        );
    }
    let p = pool.positions(h).expect("live");
    let stretch = p
        .windows(2)
        .map(|w| f64::from(w[0].distance(w[1])) / 0.05 - 1.0)
        .fold(0.0f64, f64::max);
    (p[20] - p[0], stretch as f32)
}

#[test]
fn a_rod_whose_pin_jumps_a_kilometre_stays_finite_and_comes_to_rest_below_it() {
    // A game that sets a pin's target a kilometre away in one frame (not
    // `teleport`) stretches the segment at the pin to 20,000 times its
    // rest length. The rod is thrown about, and its joints pass close to
    // folding back on themselves, where the bending's geometric stiffness
    // grows as 1/(1 + cos θ)²: held below the f32 band's limit only for
    // straight joints, it went non-finite in 20 of these 42 runs with a
    // clamp and 14 of 42 without (EI 0.01 and 2, 1, 3 and 12 iterations,
    // 1 and 10 km in seven directions). Once it settles it hangs from the
    // moved pin as it did from the first one: in the same shape within
    // what f32 resolves there (a soft clamped rod, EI 0.01, has a second
    // resting shape curled back under its clamp, and lands in either).
    for clamp in [true, false] {
        for ei in [0.01, 2.0] {
            let (still, _) = after_a_jump(clamp, ei, 8, Vec3::ZERO);
            for iterations in [1, 3, 12] {
                for (jump, tol) in [
                    (Vec3::new(1000.0, 0.0, 0.0), 1.0e-3),
                    (Vec3::new(-1000.0, 0.0, 0.0), 1.0e-3),
                    (Vec3::new(0.0, 1000.0, 0.0), 1.0e-3),
                    (Vec3::new(0.0, -1000.0, 0.0), 1.0e-3),
                    (Vec3::new(1000.0, -1000.0, 0.0), 1.0e-3),
                    (Vec3::new(0.0, 0.0, 10_000.0), 5.0e-3),
                    (Vec3::new(-10_000.0, 10_000.0, 0.0), 5.0e-3),
                ] {
                    let (tip, stretch) = after_a_jump(clamp, ei, iterations, jump);
                    let case = format!(
                        "clamp {clamp}, EI {ei}, {iterations} iterations, pin moved by {jump}"
                    );
                    // A segment of 5 cm read in f32 at 10 km is resolved to
                    // about 1 mm: 2 %.
                    assert!(
                        stretch < tol * 5.0,
                        "{case}: a segment stretched by {stretch}"
                    );
                    if clamp && ei < 1.0 {
                        assert!(
                            tip.y < 0.0 && tip.length() < 1.0 + tol,
                            "{case}: tip at {tip} from the pin"
                        );
                    } else {
                        assert!(
                            tip.distance(still) < tol,
                            "{case}: tip at {tip} from the pin, {still} without the jump"
                        );
                    }
                }
            }
        }
    }
}

/// Runs a rod (or rope: `ei` 0) on the direct solver with both ends'
/// targets set by `targets(frame)` for `frames` frames at 1/60 s; asserts
/// every frame finite; returns its positions.
fn abused(
    desc: &CableDesc,
    params: SolverParams,
    frames: usize,
    targets: impl Fn(usize) -> (Vec3, Option<Vec3>),
) -> Vec<Vec3> {
    let mut pool = ParticlePool::new();
    let h = pool.add_cable(desc).expect("fits");
    let mut st = Stepper::with_layout(params, Layout::Soa).expect("valid");
    for f in 0..frames {
        let (a, b) = targets(f);
        pool.set_attachment(h, End::Start, Some(a)).expect("live");
        if let Some(b) = b {
            pool.set_attachment(h, End::End, Some(b)).expect("live");
        }
        st.advance(&mut pool, 1.0 / 60.0).expect("valid dt");
        let p = pool.positions(h).expect("live");
        assert!(p.iter().all(|q| q.is_finite()), "not finite at frame {f}");
    }
    pool.positions(h).expect("live").to_vec()
}

#[test]
fn a_nearly_singular_newton_step_is_not_taken() {
    // Found by a docs-only trial: in f32 the direct solve of a stiff,
    // light rod thrown 10 km (4 m, 80 segments, 0.02 kg/m, EI 500,
    // 1/120 s, 12 iterations) gave a finite step of about 10¹¹ m, and the
    // rod went NaN in the frame of the jump; so did a rope of 60 segments
    // whose two pins were pulled 5 m apart each (5.8 times its length).
    // Such a step is now refused lane by lane (a Gauss-Seidel iteration
    // instead), and both come back to rest as they were.
    let dir = Vec3::new(1.0, 0.35, -0.6).normalize();
    let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), 4.0, 80).expect("valid");
    d.attach_end = false;
    d.params.clamp_start = true;
    d.mass_per_length = Some(0.02);
    d.params.bend_stiffness = 500.0;
    d.params.iterations = Some(12);
    let params = SolverParams {
        solver: Solver::Direct,
        damping: 1.5,
        substep: 1.0 / 120.0,
        ..SolverParams::default()
    };
    let before = abused(&d, params, 600, |_| (Vec3::ZERO, None));
    let after = abused(&d, params, 1800, |f| {
        (if f < 600 { Vec3::ZERO } else { dir * 10_000.0 }, None)
    });
    let moved = after
        .iter()
        .zip(&before)
        .map(|(a, b)| (*a - dir * 10_000.0).distance(*b))
        .fold(0.0f32, f32::max);
    assert!(
        moved < 5.0e-3,
        "the thrown rod rests {moved} m from its shape before"
    );

    let mut rope = CableDesc::line(Vec3::ZERO, Vec3::new(1.6, 0.0, 0.0), 2.0, 60).expect("valid");
    rope.mass_per_length = Some(0.05);
    let params = SolverParams {
        solver: Solver::Direct,
        damping: 1.0,
        ..SolverParams::default()
    };
    let end = Vec3::new(1.6, 0.0, 0.0);
    let p = abused(&rope, params, 1800, |f| {
        if (600..660).contains(&f) {
            (
                Vec3::new(-5.0, 0.0, 0.0),
                Some(end + Vec3::new(5.0, 0.0, 0.0)),
            )
        } else {
            (Vec3::ZERO, Some(end))
        }
    });
    let worst = p
        .windows(2)
        .map(|w| w[0].distance(w[1]) / (2.0 / 60.0) - 1.0)
        .fold(0.0f32, f32::max);
    assert!(
        worst < 1.0e-3,
        "a segment of the rope rests stretched by {worst}"
    );
}
