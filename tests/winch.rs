//! The winch's limits (issue 42, spec `reel_accel`, `reel_force`): a
//! winch that ramps instead of yanking, and one that holds or slips
//! instead of tearing the rope. Checked against kinematics (the rest length
//! a constant acceleration gives) and statics (the load's weight).

use cable::systems::tension;
use cable::{CableDesc, CableHandle, ParticlePool, SolverParams, Stepper};
use glam::Vec3;

const G: f32 = 9.81;
const H: f32 = 1.0 / 240.0;

/// A 2 m rope of 5 kg/m (9.81 kg less the pinned top particle's share)
/// hanging from a winch at its top, 40 segments, settled for 2 s.
fn hanging(
    speed: f32,
    accel: Option<f32>,
    force: Option<f32>,
) -> (ParticlePool, CableHandle, Stepper) {
    let mut pool = ParticlePool::new();
    let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0), 2.0, 40).expect("valid");
    d.attach_end = false;
    d.mass_per_length = Some(5.0);
    d.params.min_length = Some(0.5);
    d.params.max_length = Some(4.0);
    let h = pool.add_cable(&d).expect("fits");
    let mut st = Stepper::new(SolverParams {
        substep: H,
        damping: 2.0,
        iterations: 16,
        max_substeps: 64,
        ..SolverParams::default()
    })
    .expect("valid");
    st.set_track_tension(true);
    st.run_substeps(&mut pool, 480);
    let mut p = *pool.params(h).expect("live");
    p.reel_speed = speed;
    p.reel_accel = accel;
    p.reel_force = force;
    pool.set_params(h, p).expect("valid");
    (pool, h, st)
}

fn length(pool: &ParticlePool, h: CableHandle) -> f64 {
    pool.rest_lengths(h)
        .expect("live")
        .iter()
        .map(|&r| f64::from(r))
        .sum()
}

fn top_tension(pool: &ParticlePool, h: CableHandle) -> f32 {
    let mut t = Vec::new();
    tension::segment_tensions(pool, h, H, &mut t).expect("live");
    t[0]
}

/// The weight the winch holds at rest: every particle but the pinned top.
fn weight() -> f32 {
    (2.0 - 0.025) * 5.0 * G
}

#[test]
fn an_accelerating_winch_follows_the_ramp_and_does_not_yank() {
    // Reel in at 0.5 m/s, reached at 1 m/s² after 0.5 s: the rest length
    // is 2 − ½·a·t² during the ramp, then falls at 0.5 m/s.
    let (mut pool, h, mut st) = hanging(-0.5, Some(1.0), None);
    let mut peak = 0.0f32;
    for k in 1..=240 {
        st.run_substeps(&mut pool, 1);
        peak = peak.max(top_tension(&pool, h));
        let t = f64::from(k as f32 * H);
        let want = if t <= 0.5 {
            2.0 - 0.5 * t * t
        } else {
            2.0 - 0.125 - 0.5 * (t - 0.5)
        };
        // Each turn moves by the speed after it (one substep's ramp ahead).
        let got = length(&pool, h);
        assert!(
            (got - want).abs() < 2.5e-3,
            "t {t}: rest length {got}, ramp says {want}"
        );
    }
    assert!((pool.reel_rate(h).expect("live") + 0.5).abs() < 1e-6);
    // The load accelerates up at 1 m/s² at most: about W·(1 + a/g).
    let w = weight();
    assert!(peak < 1.25 * w, "peak {peak} N against a weight of {w} N");

    // Without the limit the same winch jumps to 0.5 m/s in one substep.
    let (mut pool, h, mut st) = hanging(-0.5, None, None);
    let mut yank = 0.0f32;
    for _ in 0..240 {
        st.run_substeps(&mut pool, 1);
        yank = yank.max(top_tension(&pool, h));
    }
    assert!(
        yank > 1.5 * w,
        "an instant start pulls {yank} N, more than the ramp's {peak} N"
    );
}

/// The 2 m, 5 kg/m rope of [`hanging`] with a `load` kg weight at its
/// free end and the solver's velocity `damping` (1/s), settled for 2 s;
/// then the mean top tension over 0.25 s (the static load, measured as
/// the peak is), and the peak top tension over the 1 s after a winch at
/// the top starts reeling in at `speed` m/s, ramped at `accel` m/s².
fn loaded_peak(load: f32, damping: f32, speed: f32, accel: f32) -> (f32, f32) {
    let mut pool = ParticlePool::new();
    let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0), 2.0, 40).expect("valid");
    d.attach_end = false;
    d.mass_per_length = Some(5.0);
    d.params.min_length = Some(0.5);
    d.params.max_length = Some(4.0);
    let h = pool.add_cable(&d).expect("fits");
    let end = pool.positions(h).expect("live").len() - 1;
    let w = pool.inv_masses(h).expect("live")[end];
    pool.set_inv_mass(h, end, 1.0 / (1.0 / w + load))
        .expect("valid");
    let mut st = Stepper::new(SolverParams {
        substep: H,
        damping,
        iterations: 16,
        max_substeps: 64,
        ..SolverParams::default()
    })
    .expect("valid");
    st.set_track_tension(true);
    st.run_substeps(&mut pool, 480);
    let mut sum = 0.0f64;
    for _ in 0..60 {
        st.run_substeps(&mut pool, 1);
        sum += f64::from(top_tension(&pool, h));
    }
    let rest = (sum / 60.0) as f32;
    let mut p = *pool.params(h).expect("live");
    p.reel_speed = speed;
    p.reel_accel = Some(accel);
    pool.set_params(h, p).expect("valid");
    let mut peak = 0.0f32;
    for _ in 0..240 {
        st.run_substeps(&mut pool, 1);
        peak = peak.max(top_tension(&pool, h));
    }
    (rest, peak)
}

/// Issue 42: "a winch with `reel_accel` 2 m/s² starting at 0.5 m/s puts
/// at most 1.2× the static load on the rope". A rigid load accelerated
/// up at a needs W·(1 + a/g): 1 + 2/9.81 = 1.2039 × W, so 1.2 × is below
/// what physics allows. Measured (a 10 kg load on the 9.9 kg rope, no
/// damping): 1.2050 ×, the rigid value within 0.1 %, at the start of the
/// ramp; the same with 4, 16 or 64 iterations and with loads of 0 to
/// 50 kg (1.2046–1.2052 ×). The rope adds no elastic overshoot (an
/// elastic one started on a ramp would reach up to 1 + 2a/g = 1.41 ×);
/// reeling in lowers the hanging weight (a particle removed at the top
/// takes its share off the load), so a bare rope's ratio falls during
/// the ramp and a heavy load's stays near the peak.
#[test]
fn a_winch_ramped_at_2_m_s2_to_0_5_m_s_pulls_its_load_as_a_rigid_load_needs() {
    let a = 2.0;
    let (rest, peak) = loaded_peak(10.0, 0.0, -0.5, a);
    let w = weight() + 10.0 * G;
    assert!(
        (rest - w).abs() < 1e-3 * w,
        "static top tension {rest} N, weight {w} N"
    );
    let ratio = peak / rest;
    let rigid = 1.0 + a / G;
    assert!(
        (ratio - rigid).abs() < 0.005,
        "peak {peak} N = {ratio} × the static {rest} N; a rigid load: {rigid} ×"
    );
    // With the solver's velocity damping c (the other tests here use
    // 2 /s) the winch also pulls the damping's drag, m·c·v: up to
    // 1 + (a + c·v)/g = 1.306 × at the end of the ramp, less the weight
    // reeled in by then (measured 1.2877 ×).
    let c = 2.0;
    let (rest, peak) = loaded_peak(10.0, c, -0.5, a);
    let ratio = peak / rest;
    let drag = 1.0 + (a + c * 0.5) / G;
    assert!(
        ratio > rigid + 0.05 && ratio < drag,
        "peak {ratio} × the static load, damped; rigid {rigid} ×, with drag {drag} ×"
    );
}

/// The same winch paying out (lowering its load) from rest to 0.5 m/s at
/// 2 m/s²: the load accelerates down, so the rope carries less than the
/// weight during the ramp (W·(1 − a/g) for a rigid load) and the weight
/// again after it: at most 1.2× the static load, as the issue asks
/// (measured 1.087× with this 10 kg load, 1.17× for the bare rope; an
/// instant start 8.7×).
#[test]
fn a_winch_paying_out_ramped_at_2_m_s2_to_0_5_m_s_stays_within_1_2_times_its_load() {
    let (rest, peak) = loaded_peak(10.0, 0.0, 0.5, 2.0);
    assert!(
        peak <= 1.2 * rest,
        "peak {peak} N = {} × the static {rest} N",
        peak / rest
    );
    // Without the ramp the same start drops the load and catches it.
    let (rest, yank) = loaded_peak(10.0, 0.0, 0.5, 1.0e5);
    assert!(
        yank > peak && yank > 1.2 * rest,
        "an instant start pulls {yank} N = {} × the static load, the ramp {peak} N",
        yank / rest
    );
}

#[test]
fn a_winch_set_to_stop_slows_down_at_its_acceleration() {
    let (mut pool, h, mut st) = hanging(0.6, Some(2.0), None);
    st.run_substeps(&mut pool, 240); // 0.3 s to full speed, then 0.7 s at it
    assert!((pool.reel_rate(h).expect("live") - 0.6).abs() < 1e-6);
    let mut p = *pool.params(h).expect("live");
    p.reel_speed = 0.0;
    pool.set_params(h, p).expect("valid");
    let before = length(&pool, h);
    st.run_substeps(&mut pool, 240);
    // 0.3 s of slowing from 0.6 m/s: 0.09 m more, then it stands.
    let paid = length(&pool, h) - before;
    assert!(
        (paid - 0.09).abs() < 3e-3,
        "paid out {paid} m while stopping"
    );
    assert_eq!(pool.reel_rate(h).expect("live"), 0.0);
}

#[test]
fn a_winch_at_its_pulling_limit_holds_and_slips_when_overloaded() {
    let w = weight();
    // Limit well above the load: it reels in at 0.5 m/s for 1 s.
    let (mut pool, h, mut st) = hanging(-0.5, Some(2.0), Some(2.0 * w));
    st.run_substeps(&mut pool, 240);
    let l = length(&pool, h);
    assert!(
        (l - (2.0 - 0.5 + 0.0625)).abs() < 5e-3,
        "reeled in to {l} m"
    );
    assert!(!pool.winch_slipping(h).expect("live"));

    // Limit just under the load (the load is 1.05 × it, below the slip
    // point at 1.2 ×): the winch holds the rope where it is.
    let (mut pool, h, mut st) = hanging(-0.5, Some(2.0), Some(w / 1.05));
    st.run_substeps(&mut pool, 720);
    let l = length(&pool, h);
    assert!((l - 2.0).abs() < 0.01, "held at {l} m");
    assert!(!pool.winch_slipping(h).expect("live"));

    // Limit far under the load (the load is 2 × it): the winch slips,
    // the rope at it never pulls more than 1.2 × the limit, and the rope
    // runs out (the load falling, braked by that force) instead of
    // tearing.
    let force = w / 2.0;
    let (mut pool, h, mut st) = hanging(-0.5, Some(2.0), Some(force));
    let mut peak = 0.0f32;
    for _ in 0..120 {
        st.run_substeps(&mut pool, 1);
        peak = peak.max(top_tension(&pool, h));
    }
    assert!(
        peak <= 1.2 * force * 1.001,
        "the rope pulled {peak} N at a winch that slips at {} N",
        1.2 * force
    );
    assert!(pool.winch_slipping(h).expect("live"));
    let l = length(&pool, h);
    assert!(l > 2.2, "slipped out to {l} m in 0.5 s");
}

/// A 10 kg load on a light rope (2 m, 0.05 kg/m) hanging from a winch
/// that reels in at 0.5 m/s with a pulling limit F, settled first; no
/// damping. Returns the rope length after `secs` seconds of the winch,
/// the peak tension at the winch, the pool, and the share of the
/// substeps of the last half of the run in which the winch slipped.
fn slipping_load(
    force: f32,
    end: cable::core::End,
    solver: cable::systems::Solver,
    secs: f32,
) -> (f64, f32, ParticlePool, CableHandle, f32) {
    let mut pool = ParticlePool::new();
    let top = Vec3::new(0.0, 0.0, 0.0);
    let bottom = Vec3::new(0.0, -2.0, 0.0);
    let at_end = end == cable::core::End::End;
    let (a, b) = if at_end { (bottom, top) } else { (top, bottom) };
    let mut d = CableDesc::line(a, b, 2.0, 40).expect("valid");
    d.attach_start = !at_end;
    d.attach_end = at_end;
    d.mass_per_length = Some(0.05);
    d.params.max_length = Some(50.0);
    d.params.reel_end = end;
    let h = pool.add_cable(&d).expect("fits");
    let load = if at_end { 0 } else { 40 };
    let w = pool.inv_masses(h).expect("live")[load];
    pool.set_inv_mass(h, load, 1.0 / (1.0 / w + 10.0))
        .expect("valid");
    let mut st = Stepper::new(SolverParams {
        substep: H,
        damping: 0.0,
        iterations: 16,
        max_substeps: 64,
        solver,
        ..SolverParams::default()
    })
    .expect("valid");
    st.set_track_tension(true);
    st.run_substeps(&mut pool, 240);
    let mut p = *pool.params(h).expect("live");
    p.reel_speed = -0.5;
    p.reel_force = Some(force);
    pool.set_params(h, p).expect("valid");
    let mut peak = 0.0f32;
    let mut t = Vec::new();
    let n = (secs / H).round() as usize;
    let mut slipped = 0;
    for k in 0..n {
        st.run_substeps(&mut pool, 1);
        tension::segment_tensions(&pool, h, H, &mut t).expect("live");
        let at = if at_end { t[t.len() - 1] } else { t[0] };
        peak = peak.max(at);
        if 2 * k >= n && pool.winch_slipping(h).expect("live") {
            slipped += 1;
        }
    }
    let share = slipped as f32 / (n - n / 2) as f32;
    (length(&pool, h), peak, pool, h, share)
}

/// Physics of the slip: with the rope at the winch held at 1.2 × F
/// below the load's weight, the load falls at a = g − 1.2·F/m (Newton's
/// second law; the light rope's own mass, 1 % of the load's and growing
/// as it runs out, ignored), so the rope runs out ½·a·t². The direct
/// solver: the load within 1 % (measured 0.6 %), the rope inextensible
/// (it ran out as far as the load fell), a winch at either end mirror
/// images of each other to rounding. Gauss-Seidel: the load within 3 %
/// (measured 0.7 %); its 16 iterations leave a rope of 40 light segments
/// under a load 800 times their mass stretched (20–40 %), which the
/// tethers no longer hide (they share the winch's bound), so the rope's
/// rest length runs out less than the load falls.
#[test]
fn an_overloaded_winch_lets_its_load_fall_braked_by_1_2_times_its_limit() {
    let m = 10.0 + 0.05 * 2.0;
    let weight = m * G;
    let force = 0.5 * weight; // slips at 0.6 W
    let secs = 1.0;
    let a = G - 1.2 * force / m;
    let want = 2.0 + 0.5 * f64::from(a * secs * secs);
    for solver in [
        cable::systems::Solver::GaussSeidel,
        cable::systems::Solver::Direct,
    ] {
        let direct = solver == cable::systems::Solver::Direct;
        let mut ends = Vec::new();
        for end in [cable::core::End::Start, cable::core::End::End] {
            let (l, peak, pool, h, slipped) = slipping_load(force, end, solver, secs);
            assert!(
                peak <= 1.2 * force * 1.001,
                "{solver:?} {end:?}: {peak} N at a winch that slips at {} N",
                1.2 * force
            );
            let p = pool.positions(h).expect("live");
            assert!(p.iter().all(|p| p.is_finite()));
            // It slips: the direct solver in every substep of the last
            // half second; Gauss-Seidel, stretched, in fewer (measured
            // 0.83 with the winch at the start, 0.275 at the end, where its
            // sweeps reach the winch last: the winch segment comes to its
            // bound a substep in four, and gives more rope when it does;
            // the load still falls as Newton says, below).
            let least = match (direct, end) {
                (true, _) => 1.0,
                (false, cable::core::End::Start) => 0.75,
                (false, cable::core::End::End) => 0.2,
            };
            assert!(
                slipped >= least,
                "{solver:?} {end:?}: slipped in {slipped} of the substeps"
            );
            // The load falls as Newton's law says, with either solver.
            let span = f64::from((p[0] - p[p.len() - 1]).length());
            let tol = if direct { 0.01 } else { 0.03 };
            assert!(
                (span - want).abs() < tol * (want - 2.0),
                "{solver:?} {end:?}: the load fell to {span} m in {secs} s, a = {a} m/s² gives {want} m"
            );
            if direct {
                // Inextensible: the rope ran out as far as the load fell.
                assert!(
                    (span - l).abs() < 1e-3 * l,
                    "{end:?}: span {span} m, rest {l} m"
                );
            } else {
                // Gauss-Seidel's stretch under a load 800 times a
                // segment's mass (measured: 20 % with the winch at the
                // start, 40 % at the end, where the sweeps reach the
                // winch last), which the tethers no longer hide: they
                // share the winch's bound.
                assert!(
                    span > l && span < 1.5 * l,
                    "{end:?}: span {span} m, rest {l} m"
                );
            }
            ends.push(l);
        }
        if direct {
            assert!(
                (ends[0] - ends[1]).abs() < 1e-4,
                "start {} m, end {} m",
                ends[0],
                ends[1]
            );
        }
    }
}

/// Reeling in, the winch pulls with at most `reel_force` (its motor):
/// started at once, it lifts a 10 kg load it can lift (F = 1.1 W) at
/// a = (F − W)/m until the load reaches the winch's 0.5 m/s, so in 1 s
/// the rope comes in ½·a·t₁² + 0.5·(1 − t₁) with t₁ = 0.5/a (Newton's
/// second law); one it cannot lift (F = 0.9 W, below 1.2 × F = 1.08 W)
/// stops it, and it holds. A docs-only trial found such a winch, started
/// at once, alternating between a yank and slack and paying rope out
/// for limits of 1.01–1.21 × the load.
#[test]
fn an_instant_winch_lifts_at_its_pulling_limit_and_holds_what_it_cannot_lift() {
    let m = 10.0 + 0.05 * 2.0;
    let weight = m * G;
    let a = 0.1 * G;
    let t1 = 0.5 / a;
    let want = 2.0 - f64::from(0.5 * a * t1 * t1 + 0.5 * (1.0 - t1));
    for solver in [
        cable::systems::Solver::GaussSeidel,
        cable::systems::Solver::Direct,
    ] {
        for end in [cable::core::End::Start, cable::core::End::End] {
            let (l, peak, _, _, _) = slipping_load(1.1 * weight, end, solver, 1.0);
            assert!(
                (l - want).abs() < 0.03 * (2.0 - want),
                "{solver:?} {end:?}: reeled in to {l} m in 1 s; a = {a} m/s² to 0.5 m/s gives {want} m"
            );
            assert!(peak <= 1.1 * weight * 1.001, "{solver:?} {end:?}: {peak} N");
            let (l, _, _, _, _) = slipping_load(0.9 * weight, end, solver, 1.0);
            assert!((l - 2.0).abs() < 0.01, "{solver:?} {end:?}: held at {l} m");
        }
    }
}

/// A winch set on a rope hanging at rest, with the direct solver: the
/// first Newton step holds it rigidly and converges at once, and must not
/// stop there with the tension over the bound (a docs-only trial saw
/// 1.67 × the bound in the first frame tear a rope rated at 1.33 × it).
#[test]
fn a_winch_set_on_a_resting_rope_slips_from_the_first_substep_with_the_direct_solver() {
    let mut pool = ParticlePool::new();
    let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -3.0, 0.0), 3.0, 30).expect("valid");
    d.attach_end = false;
    d.mass_per_length = Some(2.0);
    let weight = 3.0 * 2.0 * G;
    d.params.reel_speed = -0.5;
    d.params.reel_force = Some(0.5 * weight);
    d.params.break_tension = Some(0.8 * weight);
    let h = pool.add_cable(&d).expect("fits");
    let params = SolverParams {
        solver: cable::systems::Solver::Direct,
        ..SolverParams::default()
    };
    let mut st = Stepper::new(params).expect("valid");
    st.set_track_tension(true);
    let mut t = Vec::new();
    for _ in 0..60 {
        st.advance(&mut pool, 1.0 / 60.0).expect("valid");
        tension::segment_tensions(&pool, h, params.substep, &mut t).expect("live");
        assert!(
            t[0] <= 0.6 * weight * 1.001,
            "{} N at a bound of {} N",
            t[0],
            0.6 * weight
        );
        assert_eq!(pool.pieces(h).expect("live").len(), 1, "the rope tore");
    }
}

/// The case a docs-only trial tore (a 3 m rope of 2 kg/m with its winch's
/// limit at 0.8 × the rope's weight and a breaking tension of 1.3 × it:
/// the drum, then driven by the tension of the substep before, swung
/// the rope's tension up to the breaking point in 2.6 s): the bound is
/// part of the solve now, and the rope runs out (getting longer and
/// heavier: its weight passes the breaking tension at 3.9 m) without
/// tearing, at the solver's default settings. With the direct solver
/// no segment pulls harder than the one at the winch (a rope falling
/// under a brake at its top: tension falls along it).
#[test]
fn a_slipping_winch_does_not_tear_a_rope_rated_above_its_limit() {
    for solver in [
        cable::systems::Solver::GaussSeidel,
        cable::systems::Solver::Direct,
    ] {
        let mut pool = ParticlePool::new();
        let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(0.0, -3.0, 0.0), 3.0, 30).expect("valid");
        d.attach_end = false;
        d.mass_per_length = Some(2.0);
        let weight = 3.0 * 2.0 * G;
        d.params.break_tension = Some(1.3 * weight);
        d.params.max_length = Some(100.0);
        let h = pool.add_cable(&d).expect("fits");
        let params = SolverParams {
            solver,
            ..SolverParams::default()
        };
        let mut st = Stepper::new(params).expect("valid");
        st.set_track_tension(true);
        st.advance(&mut pool, 1.0).expect("valid");
        let mut p = *pool.params(h).expect("live");
        p.reel_speed = -0.5;
        p.reel_force = Some(0.8 * weight);
        pool.set_params(h, p).expect("valid");
        let mut t = Vec::new();
        let (mut peak, mut below) = (0.0f32, 0.0f32);
        for _ in 0..150 {
            st.advance(&mut pool, 1.0 / 60.0).expect("valid");
            tension::segment_tensions(&pool, h, params.substep, &mut t).expect("live");
            peak = peak.max(t[0]);
            below = t[1..].iter().fold(below, |m, &x| m.max(x));
            assert_eq!(
                pool.pieces(h).expect("live").len(),
                1,
                "{solver:?}: the rope tore"
            );
        }
        let bound = 1.2 * 0.8 * weight;
        assert!(peak <= bound * 1.001, "{solver:?}: {peak} N");
        if solver == cable::systems::Solver::Direct {
            assert!(
                below <= bound * 1.001,
                "{below} N below the winch's {peak} N"
            );
        }
        let l = length(&pool, h);
        assert!(l > 4.0, "{solver:?}: ran out to {l} m");
    }
}

#[test]
fn a_winch_stops_at_its_bounds() {
    let (mut pool, h, mut st) = hanging(-2.0, Some(4.0), None);
    st.run_substeps(&mut pool, 480); // needs 1.5 m at 2 m/s: stops at 0.5 m
    assert!(
        (length(&pool, h) - 0.5).abs() < 1e-4,
        "{}",
        length(&pool, h)
    );
    assert_eq!(
        pool.reel_rate(h).expect("live"),
        0.0,
        "a drum at its stop stands still"
    );
}

#[test]
fn bad_winch_limits_are_refused_by_name() {
    let mut pool = ParticlePool::new();
    for (accel, force, field) in [
        (Some(0.0), None, "reel_accel"),
        (Some(f32::NAN), None, "reel_accel"),
        (None, Some(-1.0), "reel_force"),
        (None, Some(f32::INFINITY), "reel_force"),
    ] {
        let mut d = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4).expect("valid");
        d.params.reel_speed = 1.0;
        d.params.reel_accel = accel;
        d.params.reel_force = force;
        let e = pool.add_cable(&d).expect_err("refused").to_string();
        assert!(e.contains(field), "{e}");
    }
}

#[test]
fn a_winch_at_the_end_reels_the_end_and_keeps_the_start() {
    // The rope hangs from its end (pinned at the top); the winch there
    // reels in at 0.4 m/s, ramped at 2 m/s²: after 1 s, 0.36 m in.
    let mut pool = ParticlePool::new();
    let top = Vec3::new(1.0, 0.0, 0.0);
    let mut d = CableDesc::line(Vec3::new(1.0, -2.0, 0.0), top, 2.0, 40).expect("valid");
    d.attach_start = false;
    d.mass_per_length = Some(1.0);
    d.params.reel_speed = -0.4;
    d.params.reel_accel = Some(2.0);
    d.params.reel_end = cable::core::End::End;
    let h = pool.add_cable(&d).expect("fits");
    let mut st = Stepper::new(SolverParams {
        substep: H,
        damping: 2.0,
        max_substeps: 64,
        ..SolverParams::default()
    })
    .expect("valid");
    st.run_substeps(&mut pool, 240);
    let l = length(&pool, h);
    assert!((l - (2.0 - 0.36)).abs() < 3e-3, "reeled in to {l} m");
    let p = pool.positions(h).expect("live");
    assert_eq!(
        p.last(),
        Some(&top),
        "the winch's end stays where it is pinned"
    );
    // The free start rose with the rope: it hangs l below the top.
    assert!((p[0].y + l as f32).abs() < 0.02, "start at {}", p[0]);
    // Particles were removed next to the end: the start's segments are
    // the scene's 5 cm ones, the one at the winch the remainder.
    let rest = pool.rest_lengths(h).expect("live");
    assert!(
        rest[..rest.len() - 2].iter().all(|&r| r == 0.05),
        "{rest:?}"
    );
}

#[test]
fn a_force_limited_winch_at_the_end_reads_its_own_segment() {
    // The same rope as `hanging`, hung from its end: the winch there
    // slips under twice its limit and holds under 1.05 × (after the slip
    // of its instant start), as at the start (it read the free start's
    // segment, nearly slack, and reeled in). The mirror images agree to
    // rounding with the direct solver, to the order of the sweeps with
    // Gauss-Seidel.
    let w = weight();
    for solver in [
        cable::systems::Solver::GaussSeidel,
        cable::systems::Solver::Direct,
    ] {
        for (force, slips) in [(w / 2.0, true), (w / 1.05, false)] {
            let mut runs = Vec::new();
            for end in [cable::core::End::Start, cable::core::End::End] {
                let mut pool = ParticlePool::new();
                let (top, bottom) = (Vec3::ZERO, Vec3::new(0.0, -2.0, 0.0));
                let at_end = end == cable::core::End::End;
                let (a, b) = if at_end { (bottom, top) } else { (top, bottom) };
                let mut d = CableDesc::line(a, b, 2.0, 40).expect("valid");
                d.attach_start = !at_end;
                d.attach_end = at_end;
                d.mass_per_length = Some(5.0);
                d.params.min_length = Some(0.5);
                d.params.max_length = Some(4.0);
                d.params.reel_end = end;
                let h = pool.add_cable(&d).expect("fits");
                let mut st = Stepper::new(SolverParams {
                    substep: H,
                    damping: 2.0,
                    iterations: 16,
                    max_substeps: 64,
                    solver,
                    ..SolverParams::default()
                })
                .expect("valid");
                st.set_track_tension(true);
                st.run_substeps(&mut pool, 480);
                let mut p = *pool.params(h).expect("live");
                p.reel_speed = -0.5;
                p.reel_force = Some(force);
                pool.set_params(h, p).expect("valid");
                st.run_substeps(&mut pool, 120);
                let slipping = pool.winch_slipping(h).expect("live");
                st.run_substeps(&mut pool, 120);
                runs.push((length(&pool, h), slipping));
            }
            let ((l, s0), (le, s1)) = (runs[0], runs[1]);
            let tol = if solver == cable::systems::Solver::Direct {
                1e-3
            } else {
                0.05
            };
            assert!(
                (l - le).abs() < tol,
                "{solver:?}: limit {force} N of a {w} N load: {l} m at the start, {le} m at the end"
            );
            assert_eq!((s0, s1), (slips, slips), "{solver:?}: limit {force} N");
            if slips {
                assert!(l > 2.2, "{solver:?}: slipped to {l} m");
            } else {
                assert!(l < 2.1, "{solver:?}: held at {l} m");
            }
        }
    }
}

/// Runs the winch of `hanging` at `speed` (ramped at 1 m/s²) until the
/// rest length reaches `to`, stops it, and lets the rope settle for 3 s.
fn reeled_to(speed: f32, to: f64) -> (ParticlePool, CableHandle) {
    let (mut pool, h, mut st) = hanging(speed, Some(1.0), None);
    let mut p = *pool.params(h).expect("live");
    if speed > 0.0 {
        p.max_length = Some(to as f32);
    } else {
        p.min_length = Some(to as f32);
    }
    pool.set_params(h, p).expect("valid");
    st.run_substeps(&mut pool, 240 * 4);
    assert!(
        (length(&pool, h) - to).abs() < 1.0e-3,
        "reached {}",
        length(&pool, h)
    );
    let mut p = *pool.params(h).expect("live");
    p.reel_speed = 0.0;
    pool.set_params(h, p).expect("valid");
    st.run_substeps(&mut pool, 240 * 3);
    (pool, h)
}

#[test]
fn rope_paid_out_or_reeled_in_weighs_its_mass_per_length() {
    // A docs-only trial: paying out 2 m → 3 m of a 1 kg/m rope left its
    // free particles 2.72 kg where 2.95 kg hang, and the top tension 7.8 %
    // low; reeling in left the particle by the winch its old mass (33 %
    // high). Every free particle weighs half of each segment next to it,
    // so the winch holds the rope's length less half its own segment.
    for (speed, to) in [(0.5, 3.0), (-0.5, 1.0), (0.5, 2.37)] {
        let (pool, h) = reeled_to(speed, to);
        let rest = pool.rest_lengths(h).expect("live");
        let w = pool.inv_masses(h).expect("live");
        let free: f64 = w
            .iter()
            .filter(|&&w| w > 0.0)
            .map(|&w| 1.0 / f64::from(w))
            .sum();
        let want = 5.0 * (to - 0.5 * f64::from(rest[0]));
        assert!(
            (free - want).abs() < 1.0e-3 * want,
            "{speed}: mass {free} kg, want {want}"
        );
        // Each particle its two half segments (the pinned top excepted).
        for (i, &wi) in w.iter().enumerate().skip(1) {
            let right = if i + 1 < w.len() { rest[i] } else { 0.0 };
            let m = 5.0 * 0.5 * (rest[i - 1] + right);
            assert!(
                (1.0 / wi - m).abs() < 1.0e-4 * m,
                "{speed}: particle {i}: {} kg, want {m}",
                1.0 / wi
            );
        }
        let t = top_tension(&pool, h);
        let load = want as f32 * G;
        assert!(
            (t - load).abs() < 0.01 * load,
            "{speed}: top tension {t} N, weight {load} N"
        );
    }
}

/// A 2.4 m rope of 24 segments, 1 kg/m, pinned 2 m apart at both ends,
/// its winch at `end` reeling in at 0.5 m/s for 3 s (1.5 m: far shorter
/// than the span) with `solver`. Returns the pool, the rope, the largest
/// tension at the winch after 1 s and the largest distance a particle
/// moved in one substep over the last second.
fn reeled_against_two_pins(
    end: cable::core::End,
    solver: cable::systems::Solver,
) -> (ParticlePool, CableHandle, f32, f32) {
    let mut pool = ParticlePool::new();
    let mut d = CableDesc::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.4, 24).expect("valid");
    d.mass_per_length = Some(1.0);
    d.params.reel_speed = -0.5;
    d.params.reel_end = end;
    let h = pool.add_cable(&d).expect("fits");
    let mut st = Stepper::new(SolverParams {
        substep: H,
        damping: 1.0,
        solver,
        ..SolverParams::default()
    })
    .expect("valid");
    st.set_track_tension(true);
    let (mut peak, mut jump) = (0.0f32, 0.0f32);
    let mut t = Vec::new();
    for k in 0..240 * 3 {
        let before = pool.positions(h).expect("live").to_vec();
        st.run_substeps(&mut pool, 1);
        tension::segment_tensions(&pool, h, H, &mut t).expect("live");
        if k >= 240 {
            peak = peak.max(if end == cable::core::End::End {
                t[t.len() - 1]
            } else {
                t[0]
            });
        }
        if k >= 240 * 2 {
            let p = pool.positions(h).expect("live");
            for (a, b) in before.iter().zip(p) {
                jump = jump.max(a.distance(*b));
            }
        }
    }
    (pool, h, peak, jump)
}

#[test]
fn a_winch_reeling_a_rope_between_two_pins_stalls_where_the_rope_is_straight() {
    // A docs-only trial: the direct solver, asked to reel the rope shorter
    // than the span, pulled 3.5e8–1.2e9 N and threw particles 0.8–1.08 m
    // a frame; Gauss-Seidel held the rope straight at 4.5–5.4 kN while the
    // rest length ran on below the span. The winch now stalls where the
    // rope is straight: the rest length stays at the span, the winch
    // stands still. The direct solver rests there with the statics of an
    // inextensible rope pulled straight: a sag s under the tension
    // T = w·L²/(8s) (measured: 0.1 mm, 55 kN). Gauss-Seidel's 8
    // iterations do not converge on a taut rope: it sags 4.5 cm,
    // stretched, and trembles by about a millimetre a substep (measured
    // 1.05–1.42 mm), but no longer ran away.
    for solver in [
        cable::systems::Solver::GaussSeidel,
        cable::systems::Solver::Direct,
    ] {
        for end in [cable::core::End::Start, cable::core::End::End] {
            let (pool, h, peak, jump) = reeled_against_two_pins(end, solver);
            let l = length(&pool, h);
            assert!(
                (2.0..2.0 + 1.0e-3).contains(&l),
                "{solver:?} {end:?}: rest length {l} m across a 2 m span"
            );
            assert_eq!(pool.reel_rate(h).expect("live"), 0.0, "{solver:?} {end:?}");
            let p = pool.positions(h).expect("live");
            let sag = p.iter().map(|p| p.y.abs()).fold(0.0f32, f32::max);
            if solver == cable::systems::Solver::Direct {
                assert!(sag < 1.0e-3, "{end:?}: sags {sag} m");
                assert!(
                    jump < 1.0e-5,
                    "{end:?}: a particle moved {jump} m a substep"
                );
                let statics = G * 2.0 * 2.0 / (8.0 * sag);
                assert!(
                    (peak / statics - 1.0).abs() < 0.25,
                    "{end:?}: {peak} N at the winch, w·L²/(8s) = {statics} N"
                );
            } else {
                assert!(sag < 0.1, "{end:?}: sags {sag} m");
                assert!(jump < 5.0e-3, "{end:?}: a particle jumped {jump} m");
                assert!(peak < 1.0e3, "{end:?}: {peak} N");
            }
        }
    }
}
