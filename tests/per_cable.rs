//! Per-cable damping, friction and iterations (issue 14): a cable with its
//! own value moves bit for bit as it would under a solver with that value,
//! next to cables that use the solver's, on every layout.

use cable::core::{CableDesc, CableHandle, CableParams, Collider, ParticlePool};
use cable::systems::{Layout, SolverParams, Stepper};
use glam::Vec3;

/// Ropes draped over a ball onto a floor (so friction matters), swinging.
fn scene(own: CableParams, others: usize) -> (ParticlePool, Vec<CableHandle>) {
    let mut pool = ParticlePool::new();
    let mut hs = Vec::new();
    for k in 0..=others {
        let z = k as f32 * 0.3;
        let mut d = CableDesc::line(Vec3::new(-2.0, 1.0, z), Vec3::new(2.0, 1.0, z), 5.0, 16)
            .expect("valid line");
        d.attach_end = false;
        if k == 0 {
            d.params = own;
        }
        hs.push(pool.add_cable(&d).expect("fits"));
    }
    let set = pool.colliders_mut();
    set.add(Collider::sphere(Vec3::new(0.0, -0.5, 0.0), 0.8).expect("valid"));
    set.add(Collider::plane(Vec3::Y, -1.5).expect("valid"));
    (pool, hs)
}

fn bits(pool: &ParticlePool, h: CableHandle) -> Vec<u32> {
    pool.positions(h)
        .expect("live")
        .iter()
        .chain(pool.prev_positions(h).expect("live"))
        .flat_map(|v| v.to_array())
        .map(f32::to_bits)
        .collect()
}

fn run(layout: Layout, solver: SolverParams, own: CableParams, others: usize) -> Vec<u32> {
    let (mut pool, hs) = scene(own, others);
    let mut st = Stepper::with_layout(solver, layout).expect("valid params");
    for _ in 0..90 {
        st.advance(&mut pool, 1.0 / 60.0).expect("valid");
    }
    assert!(pool.all_finite());
    bits(&pool, hs[0])
}

#[test]
fn a_cables_own_settings_act_as_the_solvers_would() {
    let base = SolverParams {
        friction: 0.2,
        damping: 0.5,
        ..SolverParams::default()
    };
    let cases = [
        (
            "damping",
            CableParams {
                damping: Some(4.0),
                ..CableParams::default()
            },
            SolverParams {
                damping: 4.0,
                ..base
            },
        ),
        (
            "friction",
            CableParams {
                friction: Some(0.9),
                ..CableParams::default()
            },
            SolverParams {
                friction: 0.9,
                ..base
            },
        ),
        (
            "no friction",
            CableParams {
                friction: Some(0.0),
                ..CableParams::default()
            },
            SolverParams {
                friction: 0.0,
                ..base
            },
        ),
        (
            "iterations",
            CableParams {
                iterations: Some(2),
                ..CableParams::default()
            },
            SolverParams {
                iterations: 2,
                ..base
            },
        ),
    ];
    for (name, own, solver) in cases {
        for layout in Layout::ALL {
            // Alone under a solver with that value, and beside 16 cables
            // using the solver's own (lane groups of mixed settings).
            let want = run(layout, solver, CableParams::default(), 0);
            let got = run(layout, base, own, 16);
            assert!(got == want, "{name} on {layout}: differs from the solver's");
            // And the setting matters: the solver's base value differs.
            let plain = run(layout, base, CableParams::default(), 0);
            assert!(plain != want, "{name} on {layout}: made no difference");
        }
    }
}

#[test]
fn bad_per_cable_settings_are_refused_by_name() {
    for (p, name) in [
        (
            CableParams {
                damping: Some(-1.0),
                ..CableParams::default()
            },
            "damping",
        ),
        (
            CableParams {
                damping: Some(f32::NAN),
                ..CableParams::default()
            },
            "damping",
        ),
        (
            CableParams {
                friction: Some(1.5),
                ..CableParams::default()
            },
            "friction",
        ),
        (
            CableParams {
                iterations: Some(0),
                ..CableParams::default()
            },
            "iterations",
        ),
        (
            CableParams {
                iterations: Some(5000),
                ..CableParams::default()
            },
            "iterations",
        ),
    ] {
        let err = p.validate().unwrap_err().to_string();
        assert!(err.starts_with(name), "{err}");
    }
}
