//! Every exact layout gives bitwise the positions of the plain per-substep
//! scalar solver (`cable_systems::substep`, run substep by substep over the
//! pool), on random scenes and whatever the rayon thread count.

use cable::core::{CableDesc, Collider, End, ParticlePool};
use cable::systems::{Layout, Solver, SolverParams, Stepper, substep};
use cable_testkit::Rng;
use cable_testkit::classic::{ClassicCable, Precision};
use glam::{Quat, Vec3};

/// A random scene: mixed segment counts (many shared, so lane groups form,
/// some long enough for the pipelined sweeps), pins, masses, bending,
/// compliance, wind, and a `-0.0` coordinate or two.
fn random_scene(seed: u64) -> (ParticlePool, SolverParams) {
    random_scene_with(seed, false)
}

/// A random scene; with `winches_and_breaking`, some cables reel and some
/// can break (frame-level edits the plain `substep` function does not do).
fn random_scene_with(seed: u64, winches_and_breaking: bool) -> (ParticlePool, SolverParams) {
    let mut rng = Rng::new(seed);
    let mut pool = ParticlePool::new();
    let cables = 20 + rng.index(40);
    for k in 0..cables {
        let segs = rng.pick(&[1u32, 2, 3, 7, 16, 16, 16, 33, 33, 70]);
        let start = Vec3::new(
            rng.range(-5.0, 5.0),
            rng.range(-5.0, 5.0),
            if k % 7 == 0 {
                -0.0
            } else {
                rng.range(-1.0, 1.0)
            },
        );
        let end = start
            + Vec3::new(
                rng.range(1.0, 8.0),
                rng.range(-2.0, 2.0),
                rng.range(-1.0, 1.0),
            );
        let len = start.distance(end) * rng.range(0.8, 1.4);
        let mut desc = CableDesc::line(start, end, len, segs).expect("valid line");
        desc.attach_start = rng.chance(0.7);
        desc.attach_end = rng.chance(0.5);
        desc.params.stiffness = rng.chance(0.3);
        desc.params.compliance = if rng.chance(0.3) {
            rng.range(1.0e-5, 1.0e-2)
        } else {
            0.0
        };
        desc.params.gravity_scale = rng.range(0.5, 1.5);
        if rng.chance(0.3) {
            desc.params.force = Vec3::new(rng.range(-3.0, 3.0), 0.0, rng.range(-3.0, 3.0));
        }
        // The rod features: tethers (on by default), pins, masses, bending stiffness.
        desc.params.tethers = rng.chance(0.7);
        if segs >= 3 && rng.chance(0.3) {
            desc.pins = vec![rng.int(1, u64::from(segs)) as u32];
        }
        if rng.chance(0.3) {
            desc.mass_per_length = Some(rng.range(0.1, 3.0));
        }
        if rng.chance(0.25) {
            desc.params.bend_stiffness = rng.range(0.01, 2.0);
        }
        // Per-cable solver settings (lane layouts group by iterations and
        // friction on/off; damping and the friction coefficient vary per lane).
        if rng.chance(0.2) {
            desc.params.damping = Some(rng.range(0.0, 3.0));
        }
        if rng.chance(0.25) {
            desc.params.friction = Some(if rng.chance(0.3) {
                0.0
            } else {
                rng.range(0.05, 0.9)
            });
        }
        if rng.chance(0.2) {
            desc.params.iterations = Some(rng.pick(&[1u32, 3, 12]));
        }
        // Clamps on some rods' attached ends (no draw of their own: the
        // scenes stay as they were otherwise). In the far-from-origin
        // scenes (seeds from 300) the teleport leaves particles a
        // kilometre from their moved pins, the hardest case the direct
        // solve meets at a clamp.
        let rod = desc.params.bend_stiffness > 0.0;
        desc.params.clamp_start = rod && desc.attach_start && k % 2 == 0;
        desc.params.clamp_end = rod && desc.attach_end && k % 3 == 0;
        if winches_and_breaking {
            if rng.chance(0.3) {
                desc.params.reel_speed = rng.range(-1.0, 1.0);
                // Some winches slip (their pulling limit below what the
                // cable pulls), at either end.
                if rng.chance(0.5) {
                    desc.params.reel_force = Some(rng.range(0.5, 20.0));
                    if rng.chance(0.5) {
                        desc.params.reel_end = cable::core::End::End;
                    }
                }
            }
            if rng.chance(0.3) {
                desc.params.break_tension = Some(rng.range(5.0, 60.0));
            }
        }
        let h = pool.add_cable(&desc).expect("within budget");
        let n = segs as usize + 1;
        for i in 0..n {
            if rng.chance(0.15) {
                let w = if rng.chance(0.3) {
                    0.0
                } else {
                    rng.range(0.3, 3.0)
                };
                pool.set_inv_mass(h, i, w).expect("valid mass");
            }
        }
    }
    let params = SolverParams {
        gravity: Vec3::new(0.0, -9.81, rng.range(-1.0, 1.0)),
        iterations: rng.int(1, 10) as u32,
        damping: if rng.chance(0.5) {
            0.0
        } else {
            rng.range(0.0, 2.0)
        },
        solver: if rng.chance(0.3) {
            Solver::Direct
        } else {
            Solver::GaussSeidel
        },
        friction: if rng.chance(0.5) {
            0.0
        } else {
            rng.range(0.1, 0.6)
        },
        ..SolverParams::default()
    };
    (pool, params)
}

/// Scripted changes between frames: move an attachment, detach an end,
/// remove a cable (so the pool compacts).
fn script(pool: &mut ParticlePool, frame: usize) {
    let handles: Vec<_> = pool.handles().collect();
    match frame {
        2 => {
            let h = handles[0];
            pool.set_attachment(h, End::Start, Some(Vec3::new(0.5, 1.0, -0.5)))
                .expect("live");
        }
        3 => pool
            .set_attachment(handles[1], End::End, None)
            .expect("live"),
        4 => pool.remove_cable(handles[2]).expect("live"),
        5 => {
            pool.positions_mut(handles[3]).expect("live")[0].y += 0.25;
            pool.teleport(handles[4], Vec3::new(0.0, -1.0, 0.5))
                .expect("live");
            pool.prev_positions_mut(handles[5]).expect("live")[1].x -= 0.01;
        }
        _ => {}
    }
}

fn bits(pool: &mut ParticlePool) -> Vec<u32> {
    let handles: Vec<_> = pool.handles().collect();
    let mut out = Vec::new();
    for h in handles {
        for p in pool
            .positions(h)
            .expect("live")
            .iter()
            .chain(pool.prev_positions(h).expect("live"))
        {
            out.extend(p.to_array().map(f32::to_bits));
        }
    }
    out
}

const FRAMES: [f32; 8] = [
    1.0 / 60.0,
    1.0 / 60.0,
    1.0 / 30.0,
    1.0 / 30.0,
    0.0,
    1.0 / 20.0,
    1.0 / 60.0,
    1.0 / 45.0,
];

/// The reference: substep by substep with the plain free function.
fn reference(seed: u64) -> Vec<u32> {
    let (mut pool, params) = random_scene(seed);
    let mut stepper = Stepper::with_layout(params, Layout::Soa).expect("valid params");
    for (f, dt) in FRAMES.into_iter().enumerate() {
        script(&mut pool, f);
        // Let a stepper count the substeps of the frame, then run them one by one.
        let mut probe = ParticlePool::new();
        let n = stepper.advance(&mut probe, dt).expect("valid dt");
        for _ in 0..n {
            substep(&mut pool, &params);
        }
    }
    assert!(
        pool.all_finite(),
        "seed {seed}: the scalar solver went NaN or infinite"
    );
    bits(&mut pool)
}

fn run(seed: u64, layout: Layout, threads: usize) -> Vec<u32> {
    run_with(seed, layout, threads, false)
}

fn run_with(seed: u64, layout: Layout, threads: usize, edits: bool) -> Vec<u32> {
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("threads");
    workers.install(|| {
        let (mut pool, params) = random_scene_with(seed, edits);
        let mut stepper = Stepper::with_layout(params, layout).expect("valid params");
        for (f, dt) in FRAMES.into_iter().enumerate() {
            script(&mut pool, f);
            stepper.advance(&mut pool, dt).expect("valid dt");
        }
        bits(&mut pool)
    })
}

#[test]
fn every_layout_is_bitwise_the_scalar_solver_on_random_scenes() {
    for seed in 0..12 {
        let want = reference(seed);
        for layout in Layout::ALL {
            for threads in [1, 2, 3] {
                let got = run(seed, layout, threads);
                assert!(
                    got == want,
                    "seed {seed}: layout {layout} with {threads} threads differs from the scalar solver"
                );
            }
        }
    }
}

#[test]
fn every_layout_agrees_bitwise_with_winches_and_breaking_segments() {
    for seed in 100..108 {
        let want = run_with(seed, Layout::Soa, 1, true);
        for layout in Layout::ALL {
            for threads in [1, 2] {
                let got = run_with(seed, layout, threads, true);
                assert!(
                    got == want,
                    "seed {seed}: layout {layout} with {threads} threads differs from soa on 1 thread"
                );
            }
        }
    }
}

/// Colliders among the cables of a random scene: a sphere, a box, a
/// floor, and a capsule that moves every frame.
fn add_colliders(pool: &mut ParticlePool, frame: usize) {
    let set = pool.colliders_mut();
    if frame == 0 {
        set.add(Collider::sphere(Vec3::new(0.0, -2.0, 0.0), 1.5).expect("valid"));
        set.add(
            Collider::cuboid(
                Vec3::new(4.0, 1.0, 0.0),
                Vec3::new(1.0, 0.3, 2.0),
                Quat::from_rotation_z(0.4),
            )
            .expect("valid"),
        );
        set.add(Collider::plane(Vec3::Y, -5.2).expect("valid"));
        set.add(
            Collider::capsule(Vec3::new(-4.0, 0.0, -1.0), Vec3::new(-4.0, 0.0, 1.0), 0.4)
                .expect("valid"),
        );
    } else {
        let capsule = set.handles().last().expect("four colliders");
        set.set_pose(
            capsule,
            Vec3::new(0.05 * frame as f32, 0.0, 0.0),
            Quat::IDENTITY,
        )
        .expect("live");
    }
}

/// Scene `seed` stepped substep by substep with the plain free function,
/// `edit` run before each frame: its bits.
fn scalar_run(seed: u64, edit: &dyn Fn(&mut ParticlePool, usize)) -> Vec<u32> {
    let (mut pool, params) = random_scene(seed);
    let mut stepper = Stepper::with_layout(params, Layout::Soa).expect("valid params");
    for (f, dt) in FRAMES.into_iter().enumerate() {
        edit(&mut pool, f);
        let mut probe = ParticlePool::new();
        let n = stepper.advance(&mut probe, dt).expect("valid dt");
        for _ in 0..n {
            substep(&mut pool, &params);
        }
    }
    assert!(pool.all_finite());
    bits(&mut pool)
}

/// Scene `seed` stepped by `layout` on `threads` threads, `edit` run
/// before each frame: its bits, the cables in lane groups and the cables.
fn layout_run(
    seed: u64,
    layout: Layout,
    threads: usize,
    edit: &(dyn Fn(&mut ParticlePool, usize) + Sync),
) -> (Vec<u32>, usize, usize) {
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("threads");
    workers.install(|| {
        let (mut pool, params) = random_scene(seed);
        let mut stepper = Stepper::with_layout(params, layout).expect("valid params");
        for (f, dt) in FRAMES.into_iter().enumerate() {
            edit(&mut pool, f);
            stepper.advance(&mut pool, dt).expect("valid dt");
        }
        let lanes = stepper.layout_state().lanes().lane_cables();
        (bits(&mut pool), lanes, pool.cable_count())
    })
}

#[test]
fn every_layout_is_bitwise_the_scalar_solver_with_colliders() {
    let edit = |pool: &mut ParticlePool, f: usize| {
        script(pool, f);
        add_colliders(pool, f);
    };
    let mut lanes_used = 0;
    for seed in 0..6 {
        let want = scalar_run(100 + seed, &edit);
        for layout in Layout::ALL {
            for threads in [1, 2] {
                let (got, lane_cables, cables) = layout_run(100 + seed, layout, threads, &edit);
                assert!(
                    got == want,
                    "seed {seed}: layout {layout} with {threads} threads and colliders differs from the scalar solver"
                );
                if layout == Layout::Lanes8 {
                    // Contacts run in the lanes: cables near colliders stay in lane groups too.
                    assert!(lane_cables <= cables);
                    lanes_used += lane_cables;
                }
            }
        }
    }
    assert!(
        lanes_used > 0,
        "no cable stayed in lane groups in any scene"
    );
}

#[test]
fn lanes8_actually_uses_lane_groups_on_random_scenes() {
    // Random cables of two lengths, with and without compliance, with
    // random cheap features (tethers, pins, masses, forces, breakability),
    // which do not split lane groups.
    let mut rng = Rng::new(0x5eed);
    let mut pool = ParticlePool::new();
    for k in 0..48 {
        let segs = rng.pick(&[16u32, 33]);
        let start = Vec3::new(0.0, k as f32 * 0.3, 0.0);
        let mut desc =
            CableDesc::line(start, start + Vec3::new(4.0, 0.0, 0.0), 5.0, segs).expect("valid");
        desc.attach_end = rng.chance(0.5);
        desc.params.tethers = rng.chance(0.5);
        desc.params.compliance = if rng.chance(0.3) { 1.0e-3 } else { 0.0 };
        desc.params.break_tension = rng.chance(0.3).then_some(1.0e3);
        if rng.chance(0.3) {
            desc.pins = vec![5];
        }
        if rng.chance(0.3) {
            desc.mass_per_length = Some(rng.range(0.1, 2.0));
        }
        pool.add_cable(&desc).expect("fits");
    }
    let params = SolverParams::default();
    let mut stepper = Stepper::with_layout(params, Layout::Lanes8).expect("valid params");
    stepper.advance(&mut pool, 1.0 / 60.0).expect("valid dt");
    let lanes = stepper.layout_state().lanes();
    assert!(
        lanes.lane_cables() >= pool.cable_count() / 2,
        "{} of {}",
        lanes.lane_cables(),
        pool.cable_count()
    );
    assert!(lanes.lane_groups() >= 2);
}

/// Every layout is the spec's classic step "to float rounding": from the
/// same positions, each substep is within a few f32 spacings of the plain
/// f32 step written out independently (the pool carries what rounding
/// drops of each position update, `ParticlePool::carry`), and the layouts
/// agree with each other bit for bit.
#[test]
fn every_layout_is_the_specs_classic_step_to_float_rounding() {
    let mut rng = Rng::new(77);
    let params = SolverParams {
        iterations: 6,
        ..SolverParams::default()
    };
    let mut pool = ParticlePool::new();
    let mut reference = Vec::new();
    for k in 0..27 {
        let segs = rng.pick(&[4u32, 9, 9, 9, 80]);
        let start = Vec3::new(rng.range(-3.0, 3.0), k as f32 * 0.5, rng.range(-1.0, 1.0));
        let end = start + Vec3::new(rng.range(2.0, 6.0), rng.range(-1.0, 1.0), 0.0);
        let length = start.distance(end) * rng.range(1.0, 1.3);
        let mut desc = CableDesc::line(start, end, length, segs).expect("valid line");
        desc.attach_end = rng.chance(0.6);
        desc.params.tethers = false; // the spec's classic step has none
        pool.add_cable(&desc).expect("within budget");
        let pts = desc.points();
        let mut r = ClassicCable::new(pts, desc.rest_lengths()[0], params.gravity);
        r.pin(0, start);
        if desc.attach_end {
            r.pin(pts.len() - 1, end);
        }
        reference.push(r);
    }
    let mut results = Vec::new();
    for layout in Layout::ALL {
        let mut pool = pool.clone();
        let mut reference = reference.clone();
        let mut stepper = Stepper::with_layout(params, layout).expect("valid params");
        let handles: Vec<_> = pool.handles().collect();
        for substep in 0..40 {
            for (h, r) in handles.iter().zip(&mut reference) {
                r.load(
                    pool.positions(*h).expect("live"),
                    pool.prev_positions(*h).expect("live"),
                );
                r.substep(params.substep, params.iterations, Precision::F32);
            }
            stepper
                .advance(&mut pool, params.substep)
                .expect("valid dt");
            for (c, (h, r)) in handles.iter().zip(&reference).enumerate() {
                let got = pool.positions(*h).expect("live");
                for (p, w) in got.iter().zip(&r.position) {
                    let w = Vec3::from_array(w.map(|x| x as f32));
                    // The f32 spacing at the larger coordinate, at least 1 m's.
                    let spacing = p.abs().max_element().max(1.0) * f32::EPSILON;
                    let off = (*p - w).abs().max_element() / spacing;
                    assert!(
                        off <= 8.0,
                        "layout {layout}, substep {substep}, cable {c}: {p} is {off} f32 spacings from the classic step's {w}"
                    );
                }
            }
        }
        assert_eq!(stepper.substeps_run(), 40);
        let bits: Vec<u32> = handles
            .iter()
            .flat_map(|h| pool.positions(*h).expect("live").to_vec())
            .flat_map(|p| p.to_array())
            .map(f32::to_bits)
            .collect();
        results.push((layout, bits));
    }
    for (layout, bits) in &results[1..] {
        assert!(
            *bits == results[0].1,
            "{layout} differs from {} bitwise",
            results[0].0
        );
    }
}

#[test]
fn every_layout_follows_targets_moved_every_substep_bitwise() {
    // Attachment targets moved between substeps (as the ECS layer does)
    // change only the pool's attachment revision: layouts refresh their
    // targets in place instead of copying the pool again.
    for seed in 0..4 {
        let run = |layout: Layout, reference: bool| -> Vec<u32> {
            let (mut pool, params) = random_scene(200 + seed);
            let handles: Vec<_> = pool.handles().collect();
            let mut stepper = Stepper::with_layout(params, layout).expect("valid params");
            let mut tick = 0u32;
            for dt in FRAMES {
                let mut probe = ParticlePool::new();
                let n = if reference {
                    stepper.advance(&mut probe, dt).expect("valid dt")
                } else {
                    0
                };
                let mut hook = |pool: &mut ParticlePool| {
                    tick += 1;
                    for (k, &h) in handles.iter().enumerate().step_by(3) {
                        if pool.attachment(h, End::Start).expect("live").is_some() {
                            let t = Vec3::new(k as f32 * 0.1, (tick as f32 * 0.05).sin(), 0.0);
                            pool.set_attachment(h, End::Start, Some(t)).expect("live");
                        }
                    }
                };
                if reference {
                    for _ in 0..n {
                        hook(&mut pool);
                        substep(&mut pool, &params);
                    }
                } else {
                    stepper
                        .advance_with(&mut pool, dt, |pool, _, _| hook(pool))
                        .expect("valid dt");
                }
            }
            bits(&mut pool)
        };
        let want = run(Layout::Soa, true);
        for layout in Layout::ALL {
            assert!(
                run(layout, false) == want,
                "seed {seed}: {layout} differs with moving targets"
            );
        }
    }
}

/// A winch started, or a break tension set, after frames that had neither
/// takes effect at the next frame on every layout (the stepper remembers
/// between frames that no cable breaks or reels, and must notice the edit).
#[test]
fn a_winch_or_break_tension_set_between_frames_takes_effect() {
    for layout in [Layout::Aos, Layout::Soa, Layout::Lanes8] {
        let mut pool = ParticlePool::new();
        let handles: Vec<_> = (0..24)
            .map(|k| {
                let s = Vec3::new(0.0, 0.0, k as f32);
                let mut desc =
                    CableDesc::line(s, s + Vec3::X * 4.0, 5.0, 16).expect("a valid line");
                desc.params.tethers = false;
                pool.add_cable(&desc).expect("room for the cable")
            })
            .collect();
        let mut stepper =
            Stepper::with_layout(SolverParams::default(), layout).expect("default parameters");
        for _ in 0..5 {
            stepper
                .advance(&mut pool, 1.0 / 60.0)
                .expect("a valid pool");
        }
        let length = |pool: &ParticlePool| -> f32 {
            pool.rest_lengths(handles[3]).expect("live").iter().sum()
        };
        let before = length(&pool);
        pool.reel_to(handles[3], 2.0, 1.0).expect("a valid winch");
        for _ in 0..6 {
            stepper
                .advance(&mut pool, 1.0 / 60.0)
                .expect("a valid pool");
        }
        let after = length(&pool);
        assert!(
            after < before - 0.05,
            "{layout:?}: the winch did not turn ({before} m, then {after} m)"
        );
        // A break tension far below the cable's own weight: it tears.
        let mut params = *pool.params(handles[7]).expect("live");
        params.break_tension = Some(1.0e-6);
        pool.set_params(handles[7], params)
            .expect("valid parameters");
        let cables = pool.cable_count();
        stepper
            .advance(&mut pool, 1.0 / 60.0)
            .expect("a valid pool");
        assert!(
            pool.cable_count() > cables || !stepper.torn().is_empty(),
            "{layout:?}: a cable under tension above its break tension did not break"
        );
    }
}

/// Random scenes with some cables moved 1 km and 10 km out, sharing lane
/// groups with cables near the origin, and a ball near some of the far
/// ones: far lanes without contact are solved in local coordinates
/// (`kernel::origin`), each lane deciding alone, so every layout and thread
/// count is still bitwise the scalar solver.
#[test]
fn every_layout_is_bitwise_the_scalar_solver_far_from_the_origin() {
    let shift = |pool: &mut ParticlePool, frame: usize| {
        add_colliders(pool, frame);
        if frame == 0 {
            let handles: Vec<_> = pool.handles().collect();
            for (k, h) in handles.into_iter().enumerate() {
                let by = match k % 3 {
                    0 => Vec3::new(1_000.0, -1_000.0, 0.0),
                    1 => Vec3::new(0.0, 10_000.0, 0.0),
                    _ => Vec3::ZERO,
                };
                pool.teleport(h, by).expect("live");
            }
            pool.colliders_mut()
                .add(Collider::sphere(Vec3::new(1_003.0, -1_002.0, 0.0), 1.5).expect("valid"));
        }
    };
    let edit = |pool: &mut ParticlePool, f: usize| {
        shift(pool, f);
        script(pool, f);
    };
    let mut far_in_lanes = 0;
    for seed in 0..4 {
        let want = scalar_run(300 + seed, &edit);
        for layout in Layout::ALL {
            for threads in [1, 2] {
                let (got, lane_cables, _) = layout_run(300 + seed, layout, threads, &edit);
                assert!(
                    got == want,
                    "seed {seed}: layout {layout} with {threads} threads far from the origin differs from the scalar solver"
                );
                if layout == Layout::Lanes8 {
                    far_in_lanes += lane_cables;
                }
            }
        }
    }
    assert!(far_in_lanes > 0, "no cable in lane groups in any scene");
}
