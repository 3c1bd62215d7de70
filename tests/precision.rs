//! Precision far from the origin (issue 11): free fall against the exact
//! float64 Verlet recurrence.
//!
//! Near the origin the drop is within 1 % (this test). Far from it it is
//! not, yet: positions are plain f32 and Verlet keeps each substep's
//! rounding as velocity, so 1 km from the origin at 1/240 s and 10 km at
//! 1/60 s a cable falls 7.5 % too fast, and 10 km at 1/240 s it does not
//! fall at all (measured 2026-11-23 with the ignored tests below:
//! `cargo test --release --test precision -- --ignored --nocapture`). The
//! fix the spec allows (a residual column compensating the rounding of each
//! substep's position update) is the next step; these tests are its
//! acceptance check.

use cable::core::{CableDesc, ParticlePool};
use cable::systems::{Layout, SolverParams, Stepper};
use glam::Vec3;

/// The exact drop of position Verlet from rest after `n` substeps of `h`
/// seconds under gravity `g` (float64): x_{k+1} = 2·x_k − x_{k−1} + h²·g,
/// x_1 − x_0 = 0 before the first substep.
fn verlet_drop(n: u32, h: f64, g: f64) -> f64 {
    let (mut x, mut prev) = (0.0f64, 0.0f64);
    for _ in 0..n {
        let next = 2.0 * x - prev + h * h * g;
        prev = x;
        x = next;
    }
    -x
}

/// How far a free 2 m cable of 8 segments, at rest at `at`, has dropped
/// after `seconds`, on `layout` (mean over its particles).
fn simulated_drop(layout: Layout, at: Vec3, substep: f32, seconds: f32) -> f64 {
    let mut pool = ParticlePool::new();
    let mut d = CableDesc::line(at, at + Vec3::new(2.0, 0.0, 0.0), 2.0, 8).expect("valid line");
    d.attach_start = false;
    d.attach_end = false;
    let h = pool.add_cable(&d).expect("fits");
    let params = SolverParams {
        substep,
        max_substeps: 1_000,
        ..SolverParams::default()
    };
    let mut st = Stepper::with_layout(params, layout).expect("valid params");
    let n = (seconds / substep).round() as u32;
    st.run_substeps(&mut pool, n);
    let p = pool.positions(h).expect("live");
    p.iter()
        .map(|q| f64::from(at.y) - f64::from(q.y))
        .sum::<f64>()
        / p.len() as f64
}

fn check(at: Vec3, substep: f32) {
    let n = (1.0 / substep).round() as u32;
    let want = verlet_drop(n, f64::from(substep), -9.81);
    for layout in Layout::ALL {
        let got = simulated_drop(layout, at, substep, 1.0);
        let err = (got - want).abs() / want;
        assert!(
            err < 0.01,
            "{layout} at {at}, substep {substep}: dropped {got:.4} m, exact Verlet {want:.4} m ({:.2} % off)",
            err * 100.0
        );
    }
}

#[test]
#[ignore = "issue 11 open: f32 positions far from the origin (see the module docs)"]
fn free_fall_1_km_from_the_origin_at_1_240_s() {
    check(Vec3::new(0.0, 1_000.0, 0.0), 1.0 / 240.0);
    check(Vec3::new(1_000.0, -1_000.0, 1_000.0), 1.0 / 240.0);
}

#[test]
#[ignore = "issue 11 open: f32 positions far from the origin (see the module docs)"]
fn free_fall_10_km_from_the_origin_at_1_60_s() {
    check(Vec3::new(0.0, 10_000.0, 0.0), 1.0 / 60.0);
    check(Vec3::new(-10_000.0, -10_000.0, 10_000.0), 1.0 / 60.0);
}

#[test]
fn free_fall_near_the_origin() {
    check(Vec3::new(0.0, 1.0, 0.0), 1.0 / 60.0);
    check(Vec3::new(3.0, 10.0, -2.0), 1.0 / 240.0);
}

/// Prints the error of the drop at several distances, substeps and times.
#[test]
#[ignore = "prints figures"]
fn print_errors() {
    for (at, h) in [
        (Vec3::new(0.0, 1_000.0, 0.0), 1.0f32 / 240.0),
        (Vec3::new(0.0, 10_000.0, 0.0), 1.0 / 60.0),
        (Vec3::new(0.0, 10_000.0, 0.0), 1.0 / 240.0),
        (Vec3::new(0.0, 1.0, 0.0), 1.0 / 60.0),
    ] {
        for secs in [0.05f32, 0.1, 0.25, 0.5, 1.0, 2.0] {
            let n = (secs / h).round() as u32;
            let want = verlet_drop(n, f64::from(h), -9.81);
            let got = simulated_drop(Layout::Soa, at, h, secs);
            println!(
                "{at} h={h:.5} t={secs}: got {got:.6} want {want:.6} err {:.3} %",
                (got - want) / want * 100.0
            );
        }
    }
}
