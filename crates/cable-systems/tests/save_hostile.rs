//! Issue 12, save and restore of untrusted files: a truncated, damaged or
//! hand-edited save is an error that names what is wrong, never a panic
//! and never a pool that breaks its invariants.
#![cfg(feature = "serde")]

use cable_core::{CableDesc, Collider, ParticlePool};
use cable_systems::save::{SaveError, SimulationState, restore_state, save_state};
use cable_systems::{SolverParams, Stepper};
use cable_testkit::Rng;
use cable_testkit::save::{number_paths, set_number};
use glam::{Quat, Vec3};
use proptest::prelude::*;
use serde_json::{Value, json};

/// A small state with every kind of entry: free slots (a removed cable and
/// a removed collider), attached and free ends, pins, a winch, colliders of
/// every shape, a fraction in the accumulator.
fn state() -> (ParticlePool, Stepper) {
    let mut pool = ParticlePool::new();
    let mut handles = Vec::new();
    for k in 0..4 {
        let y = k as f32;
        let mut d =
            CableDesc::line(Vec3::new(0.0, y, 0.0), Vec3::new(2.0, y, 0.0), 2.5, 5).unwrap();
        d.attach_end = k % 2 == 0;
        d.params.reel_speed = if k == 3 { 0.5 } else { 0.0 };
        d.pins = if k == 1 { vec![2] } else { Vec::new() };
        handles.push(pool.add_cable(&d).unwrap());
    }
    let set = pool.colliders_mut();
    set.add(Collider::sphere(Vec3::new(1.0, -1.0, 0.0), 0.5).unwrap());
    let gone = set.add(Collider::capsule(Vec3::ZERO, Vec3::Y, 0.2).unwrap());
    set.add(Collider::plane(Vec3::Y, -3.0).unwrap());
    set.add(
        Collider::cuboid(
            Vec3::new(3.0, 0.0, 0.0),
            Vec3::splat(0.5),
            Quat::from_rotation_z(0.3),
        )
        .unwrap(),
    );
    set.remove(gone).unwrap();
    let mut stepper = Stepper::new(SolverParams {
        friction: 0.3,
        ..SolverParams::default()
    })
    .unwrap();
    for _ in 0..5 {
        stepper.advance(&mut pool, 0.021).unwrap();
    }
    // Removed after the last step: its rows await compaction.
    pool.remove_cable(handles[1]).unwrap();
    (pool, stepper)
}

fn saved() -> Vec<u8> {
    let (pool, stepper) = state();
    let mut file = Vec::new();
    save_state(&mut file, &pool, &stepper).unwrap();
    file
}

/// A restored state must be a valid one that steps without panicking.
fn check_usable(state: SimulationState) {
    let (mut pool, mut stepper) = state.into_parts();
    pool.validate().expect("a restored pool is valid");
    for _ in 0..3 {
        // Refusing (a compliance the substep cannot hold) is fine; panicking is not.
        let _ = stepper.advance(&mut pool, 1.0 / 60.0);
    }
}

#[test]
fn every_truncation_of_a_save_is_an_error() {
    let file = saved();
    assert!(restore_state(file.as_slice()).is_ok());
    for len in 0..file.len() {
        match restore_state(&file[..len]) {
            Err(SaveError::Format { source: e, .. }) => {
                assert!(e.is_eof() || e.is_syntax(), "{len}: {e}")
            }
            Err(e) => panic!("{len}: {e}"),
            Ok(_) => panic!("a save cut at {len} of {} bytes was accepted", file.len()),
        }
    }
}

#[test]
fn damaged_bytes_never_panic_and_never_give_an_invalid_pool() {
    let file = saved();
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let alphabet = b"0123456789-.e,[]{}\":truefalsn ";
    let mut accepted = 0;
    for _ in 0..3000 {
        let mut bad = file.clone();
        for _ in 0..rng.int(1, 4) {
            let at = rng.index(bad.len());
            bad[at] = rng.pick(alphabet);
        }
        if let Ok(state) = restore_state(bad.as_slice()) {
            accepted += 1;
            check_usable(state);
        }
    }
    // Most damage is caught; changed digits may still make a valid state.
    assert!(accepted < 3000, "{accepted}");
}

/// Applies `edit` to the saved JSON and expects an error containing `want`.
fn refused(edit: impl FnOnce(&mut Value), want: &str) {
    let mut v: Value = serde_json::from_slice(&saved()).unwrap();
    edit(&mut v);
    let text = serde_json::to_vec(&v).unwrap();
    match restore_state(text.as_slice()) {
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains(want), "expected {want:?} in {msg:?}");
        }
        Ok(_) => panic!("an edit expecting {want:?} was accepted"),
    }
}

#[test]
fn hand_edited_saves_are_refused_naming_the_place() {
    refused(
        |v| v["version"] = json!(2),
        "version: is 2, this build reads version 1",
    );
    refused(|v| v["format"] = json!("scene"), "format: is \"scene\"");
    refused(
        |v| v.as_object_mut().unwrap().remove("pool").map(drop).unwrap(),
        "missing field `pool`",
    );
    refused(|v| v["extra"] = json!(1), "unknown field `extra`");
    fn p(v: &mut Value) -> &mut Value {
        &mut v["pool"]
    }
    refused(
        |v| p(v)["cables"][1]["first"] = json!(1),
        "cables[1].first: is 1",
    );
    refused(
        |v| p(v)["cables"][0]["count"] = json!(1),
        "cables[0].count: a cable has at least 2 particles",
    );
    refused(
        |v| p(v)["cables"][2]["count"] = json!(1u64 << 40),
        "cables[2].count: rows",
    );
    refused(
        |v| p(v)["cables"][3]["count"] = json!(5),
        "pos: holds 24 rows, but the cables hold 23",
    );
    refused(
        |v| p(v)["pos"].as_array_mut().unwrap().truncate(10),
        "holds 24 rows, but pos holds 10",
    );
    refused(
        |v| p(v)["lambda"].as_array_mut().unwrap().push(json!(0)),
        "lambda: holds 25 rows",
    );
    refused(|v| p(v)["slots"][0]["record"] = json!(3), "slots[0]");
    refused(|v| p(v)["slots"][2]["generation"] = json!(7), "slots[2]");
    refused(
        |v| p(v)["slots"][1]["record"] = json!(1),
        "free_slots[0]: slot 1 names a cable",
    );
    refused(
        |v| p(v)["free_slots"] = json!([]),
        "slots[1]: is empty but not in free_slots",
    );
    refused(
        |v| p(v)["free_slots"] = json!([1, 1]),
        "free_slots[1]: slot 1 is listed twice",
    );
    refused(
        |v| p(v)["free_slots"] = json!([1, 0]),
        "free_slots[1]: slot 0 names a cable",
    );
    refused(
        |v| p(v)["free_slots"] = json!([9]),
        "free_slots[0]: slot 9 does not exist",
    );
    refused(
        |v| p(v)["cables"][2]["handle"]["pool"] = json!(0),
        "cables[2].handle.pool: is 0",
    );
    refused(
        |v| p(v)["budget"] = json!(3),
        "budget: is 3, but the cables hold 18 particles",
    );
    refused(
        |v| p(v)["pos"][3][1] = json!(null),
        "invalid type: null, expected f32",
    );
    refused(
        |v| p(v)["prev"][3][1] = json!(1e39),
        "prev[3]: must be finite, got inf",
    );
    refused(|v| p(v)["pos"][3] = json!([1, 2]), "invalid length 2");
    refused(
        |v| p(v)["carry"][2][0] = json!(5.0),
        "carry[2]: must be finite and within ±1 m per axis",
    );
    refused(
        |v| p(v)["carry"].as_array_mut().unwrap().truncate(3),
        "carry: holds 3 rows",
    );
    refused(
        |v| p(v)["carry_prev"][2][1] = json!(-5.0),
        "carry_prev[2]: must be finite and within ±1 m per axis",
    );
    refused(
        |v| p(v)["carry_prev"][1][2] = json!(1e39),
        "carry_prev[1]: must be finite",
    );
    refused(
        |v| p(v)["carry_prev"].as_array_mut().unwrap().truncate(3),
        "carry_prev: holds 3 rows",
    );
    refused(
        |v| p(v)["inv_mass"][7] = json!(-1),
        "inv_mass[7]: must be finite and at least 0",
    );
    refused(
        |v| p(v)["inv_mass"][0] = json!(1),
        "inv_mass[0]: an attached end is pinned",
    );
    refused(
        |v| p(v)["rest"][2] = json!(0),
        "rest[2]: a segment's rest length must be finite and greater than 0",
    );
    refused(
        |v| p(v)["rest"][5] = json!(1),
        "rest[5]: the last row of a cable has rest length 0",
    );
    refused(|v| p(v)["linked"][5] = json!(true), "rest[5]: the last row");
    refused(
        |v| p(v)["kappa0"][4] = json!(1e39),
        "kappa0[4]: must be finite",
    );
    refused(
        |v| p(v)["cables"][0]["params"]["radius"] = json!(-1),
        "cables[0].params: radius",
    );
    refused(
        |v| p(v)["cables"][0]["params"]["teleport_distance"] = json!(-1),
        "cables[0].params: teleport_distance",
    );
    refused(
        |v| p(v)["cables"][0]["params"]["colour"] = json!(1),
        "unknown field `colour`",
    );
    refused(
        |v| p(v)["cables"][0]["params"]["min_length"] = json!(null),
        "min_length and max_length must be given",
    );
    refused(
        |v| p(v)["cables"][0]["attach"][0] = json!([2e6, 0, 0]),
        "cables[0].attach[0]",
    );
    refused(
        |v| p(v)["cables"][0]["end_inv_mass"][1] = json!(-2),
        "cables[0].end_inv_mass[1]",
    );
    refused(
        |v| p(v)["cables"][0]["reel_segment"] = json!(0),
        "cables[0].reel_segment",
    );
    refused(
        |v| p(v)["cables"][0]["mass_per_length"] = json!(0),
        "cables[0].mass_per_length",
    );
    refused(
        |v| p(v)["cables"][0]["max_rest"] = json!(1),
        "unknown field `max_rest`",
    );
    fn c(v: &mut Value) -> &mut Value {
        &mut v["pool"]["colliders"]
    }
    refused(
        |v| c(v)["slots"][0]["entry"]["collider"]["shape"]["sphere"]["radius"] = json!(-1),
        "pool.colliders.slots[0].entry.collider: radius: must be greater than 0",
    );
    refused(
        |v| c(v)["slots"][3]["entry"]["collider"]["rotation"] = json!([0, 0, 0, 2]),
        "pool.colliders.slots[3].entry.collider: rotation: must be a unit quaternion",
    );
    refused(
        |v| c(v)["slots"][3]["entry"]["stepped"][0] = json!([0, 1e7, 0]),
        "colliders.slots[3].stepped: position",
    );
    refused(
        |v| c(v)["slots"][0]["entry"]["collider"]["shape"] = json!({"cone": {}}),
        "unknown variant `cone`",
    );
    refused(
        |v| c(v)["free"] = json!([0]),
        "colliders.free[0]: slot 0 holds a live collider",
    );
    refused(
        |v| c(v)["free"] = json!([]),
        "colliders.slots[1]: is empty but not in the free list",
    );
    fn s(v: &mut Value) -> &mut Value {
        &mut v["stepper"]
    }
    refused(
        |v| s(v)["accumulator"] = json!("1.0"),
        "stepper.accumulator: must be at least 0 and less than the substep",
    );
    refused(
        |v| s(v)["accumulator"] = json!("soon"),
        "stepper.accumulator: must be a number",
    );
    refused(
        |v| s(v)["params"]["iterations"] = json!(0),
        "stepper.params: iterations",
    );
    refused(|v| s(v)["layout"] = json!("gpu"), "unknown variant `gpu`");
    refused(
        |v| s(v)["substeps_run"] = json!(u64::MAX),
        "stepper.substeps_run: must be at most 2^53",
    );
}

#[test]
fn a_save_without_the_previous_positions_carry_reads_with_zero() {
    // Saves written before the column existed have no `carry_prev`.
    let mut v: Value = serde_json::from_slice(&saved()).unwrap();
    v["pool"]
        .as_object_mut()
        .unwrap()
        .remove("carry_prev")
        .unwrap();
    let text = serde_json::to_vec(&v).unwrap();
    let state = restore_state(text.as_slice()).expect("an older save reads");
    for h in state.pool.handles() {
        assert!(
            state
                .pool
                .carry_prev(h)
                .unwrap()
                .iter()
                .all(|c| *c == glam::Vec3::ZERO)
        );
    }
    check_usable(state);
}

#[test]
fn a_save_without_the_carry_column_reads_with_zero_carry() {
    // Saves written before the column existed have no `carry`.
    let mut v: Value = serde_json::from_slice(&saved()).unwrap();
    v["pool"].as_object_mut().unwrap().remove("carry").unwrap();
    let text = serde_json::to_vec(&v).unwrap();
    let state = restore_state(text.as_slice()).expect("an older save reads");
    for h in state.pool.handles() {
        assert!(
            state
                .pool
                .carry(h)
                .unwrap()
                .iter()
                .all(|c| *c == glam::Vec3::ZERO)
        );
    }
    check_usable(state);
}

#[test]
fn trailing_content_after_a_save_is_refused() {
    let mut file = saved();
    file.extend_from_slice(b" {}");
    assert!(
        restore_state(file.as_slice())
            .unwrap_err()
            .to_string()
            .contains("trailing characters")
    );
}

#[test]
fn an_io_error_is_reported_as_one() {
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk on fire"))
        }
    }
    let err = restore_state(Broken).unwrap_err();
    assert!(matches!(err, SaveError::Io(_)), "{err}");
    assert!(err.to_string().contains("disk on fire"));
}

// --- Issue 38: restore only what matches, and nothing that turns NaN ---

/// The pool of a small scene: attached, pinned, bending, breaking cables,
/// two winches (paying out and reeling in) and a collider of each shape.
/// `edit` changes cable `k`'s description before it is added; `colliders`
/// are added after the cables.
fn scene_pool(edit: &dyn Fn(usize, &mut CableDesc), colliders: &[Collider]) -> ParticlePool {
    let mut pool = ParticlePool::new();
    for k in 0..6 {
        let y = k as f32;
        let mut d = if k == 2 {
            CableDesc::from_points(&[
                Vec3::new(0.0, y, 0.0),
                Vec3::new(0.5, y + 0.3, 0.0),
                Vec3::new(1.0, y, 0.0),
                Vec3::new(1.5, y + 0.3, 0.0),
            ])
            .unwrap()
        } else {
            CableDesc::line(Vec3::new(0.0, y, 0.0), Vec3::new(2.0, y, 0.0), 2.5, 5).unwrap()
        };
        d.attach_end = k != 3;
        match k {
            1 => d.pins = vec![2],
            2 => {
                d.params.bend_stiffness = 0.5;
                d.params.stiffness = true;
            }
            3 => {
                d.params.reel_speed = 0.8;
                d.params.max_length = Some(6.0);
            }
            4 => {
                d.attach_end = false;
                d.params.reel_speed = -0.8;
                d.params.min_length = Some(0.8);
            }
            5 => {
                d.mass_per_length = Some(2.0);
                d.params.break_tension = Some(8.0);
            }
            _ => {}
        }
        edit(k, &mut d);
        pool.add_cable(&d).unwrap();
    }
    for &c in colliders {
        pool.colliders_mut().add(c);
    }
    pool
}

fn scene_colliders() -> Vec<Collider> {
    vec![
        Collider::sphere(Vec3::new(1.0, -1.0, 0.0), 0.5).unwrap(),
        Collider::capsule(Vec3::new(-1.0, -1.0, 0.0), Vec3::new(-1.0, -1.0, 2.0), 0.2).unwrap(),
        Collider::plane(Vec3::Y, -3.0).unwrap(),
        Collider::cuboid(
            Vec3::new(3.0, 0.0, 0.0),
            Vec3::splat(0.5),
            Quat::from_rotation_z(0.3),
        )
        .unwrap(),
    ]
}

fn scene_params() -> SolverParams {
    SolverParams {
        friction: 0.3,
        ..SolverParams::default()
    }
}

/// The scene run for `frames` frames of 1/60 s, and its save.
fn scene_run(frames: usize) -> (ParticlePool, Stepper, Vec<u8>) {
    let mut pool = scene_pool(&|_, _| {}, &scene_colliders());
    let mut stepper = Stepper::new(scene_params()).unwrap();
    for _ in 0..frames {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    }
    let mut file = Vec::new();
    save_state(&mut file, &pool, &stepper).unwrap();
    (pool, stepper, file)
}

#[test]
fn issue_38_n4_a_save_of_another_scene_is_refused_naming_the_first_difference() {
    let (pool, _, file) = scene_run(90);
    // The run changed what a run may change: winches, a broken segment.
    let counts: Vec<usize> = pool
        .handles()
        .map(|h| pool.particle_count_of(h).unwrap())
        .collect();
    assert!(
        counts[3] > 6 && counts[4] < 6,
        "the winches turned: {counts:?}"
    );
    let broken = pool.handles().nth(5).unwrap();
    let linked = pool.row_consts(broken).unwrap();
    assert!(linked[..5].iter().any(|k| !k.linked), "a segment broke");
    let state = restore_state(file.as_slice()).unwrap();
    let (colliders, params) = (scene_colliders(), scene_params());
    state
        .check_same_setup(&scene_pool(&|_, _| {}, &colliders), &params)
        .expect("a save of its own scene");
    let differs =
        |edit: &dyn Fn(usize, &mut CableDesc), c: &[Collider], p: &SolverParams, want: &str| {
            let err = state
                .check_same_setup(&scene_pool(edit, c), p)
                .expect_err(want)
                .to_string();
            assert!(err.starts_with(want), "expected {want:?}, got {err:?}");
        };
    let same: &dyn Fn(usize, &mut CableDesc) = &|_, _| {};
    differs(
        &|k, d| {
            if k == 1 {
                d.params.compliance = 0.01;
            }
        },
        &colliders,
        &params,
        "cables[1].params.compliance: save has 0, scene has 0.01",
    );
    differs(
        &|k, d| {
            if k == 1 {
                d.pins = vec![3];
            }
        },
        &colliders,
        &params,
        "cables[1].inv_mass[2]: save has 0, scene has 1",
    );
    differs(
        &|k, d| {
            if k == 0 {
                d.attach_start = false;
            }
        },
        &colliders,
        &params,
        "cables[0].attach[0]: save has [0, 0, 0], scene has none",
    );
    differs(
        &|k, d| {
            if k == 0 {
                d.mass_per_length = Some(2.0);
            }
        },
        &colliders,
        &params,
        "cables[0].mass_per_length: save has none, scene has 2",
    );
    differs(
        &|k, d| {
            if k == 5 {
                d.mass_per_length = Some(3.0);
            }
        },
        &colliders,
        &params,
        "cables[5].mass_per_length: save has 2, scene has 3",
    );
    // The same cable count and lengths, another shape.
    differs(
        &|k, d| {
            if k == 2 {
                let params = d.params;
                *d = CableDesc::from_points(&[
                    Vec3::new(0.0, 2.0, 0.0),
                    Vec3::new(0.5, 2.3, 0.0),
                    Vec3::new(1.0, 2.0, 0.0),
                    Vec3::new(1.5, 2.3, 0.1),
                ])
                .unwrap();
                d.params = params;
            }
        },
        &colliders,
        &params,
        "cables[2].",
    );
    differs(
        &|k, d| {
            if k == 0 {
                *d = CableDesc::line(Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), 2.5, 6).unwrap();
            }
        },
        &colliders,
        &params,
        // Another segment count is named as such (not by the winch bounds
        // derived from the length).
        "cables[0].count: save has 6 particles, scene has 7 particles",
    );
    // A winch's rows: the scene's end must be the scene's.
    differs(
        &|k, d| {
            if k == 3 {
                d.pins = vec![5];
            }
        },
        &colliders,
        &params,
        "cables[3].inv_mass[",
    );
    differs(
        &|k, d| {
            if k == 3 {
                d.params.reel_speed = 0.7;
            }
        },
        &colliders,
        &params,
        "cables[3].params.reel_speed: save has 0.8, scene has 0.7",
    );
    let mut c = colliders.clone();
    c[0] = Collider::sphere(Vec3::new(1.0, -1.0, 0.0), 0.6).unwrap();
    differs(
        same,
        &c,
        &params,
        "colliders[0].shape: save has a sphere of radius 0.5, scene has a sphere of radius 0.6",
    );
    c[0] = Collider::sphere(Vec3::new(1.0, -1.5, 0.0), 0.5).unwrap();
    differs(
        same,
        &c,
        &params,
        "colliders[0].position: save has [1, -1, 0], scene has [1, -1.5, 0]",
    );
    differs(
        same,
        &colliders[..3],
        &params,
        "colliders: save has 4 colliders, scene has 3 colliders",
    );
    let mut c = colliders.clone();
    c.swap(0, 1);
    differs(same, &c, &params, "colliders[0].shape");
    differs(
        same,
        &colliders,
        &SolverParams {
            substep: 0.01,
            ..params
        },
        "params.substep: save has 0.016666668, scene has 0.01",
    );
    differs(
        same,
        &colliders,
        &SolverParams {
            friction: 0.0,
            ..params
        },
        "params.friction: save has 0.3, scene has 0",
    );
    let mut more = scene_pool(same, &colliders);
    more.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 2).unwrap())
        .unwrap();
    assert_eq!(
        state
            .check_same_setup(&more, &params)
            .unwrap_err()
            .to_string(),
        "cables: save has 6 cables, scene has 7 cables"
    );
}

#[test]
fn issue_38_n4_a_winch_stopped_by_the_budget_is_still_its_scene() {
    let (pool, stepper, _) = scene_run(0);
    let h = pool.handles().nth(3).unwrap();
    let check = |stop: &dyn Fn(&mut ParticlePool)| {
        let (mut pool, mut stepper) = (pool.clone(), stepper.clone());
        stop(&mut pool);
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
        let mut file = Vec::new();
        save_state(&mut file, &pool, &stepper).unwrap();
        let state = restore_state(file.as_slice()).unwrap();
        state.check_same_setup(&scene_pool(&|_, _| {}, &scene_colliders()), &scene_params())
    };
    // Stopped as the stepper stops it at the particle budget: its scene.
    check(&|pool| pool.stop_winch(h).unwrap()).expect("a stopped winch");
    // Turned off by hand: a cable without a winch, not the scene's.
    let off = check(&|pool| {
        let p = *pool.params(h).unwrap();
        pool.set_params(
            h,
            cable_core::CableParams {
                reel_speed: 0.0,
                ..p
            },
        )
        .unwrap();
    })
    .expect_err("a winch turned off is not the scene's");
    assert_eq!(
        off.to_string(),
        "cables[3].params.reel_speed: save has 0, scene has 0.8"
    );
}

fn pool_json(v: &mut Value) -> &mut Value {
    &mut v["pool"]
}

#[test]
fn issue_38_n5_values_the_scene_validation_refuses_are_refused_naming_the_place() {
    refused(
        |v| pool_json(v)["pos"][3][1] = json!(1e20),
        "pos[3]: must lie within ±1e15 m per axis",
    );
    refused(
        |v| pool_json(v)["prev"][4][0] = json!(-2e15),
        "prev[4]: must lie within ±1e15 m per axis",
    );
    refused(
        |v| pool_json(v)["rest"][2] = json!(1e15),
        "rest[2]: a segment's rest length must be finite and greater than 0, and at most 1.5e7",
    );
    refused(
        |v| pool_json(v)["kappa0"][4] = json!(1e30),
        "kappa0[4]: a rest curvature",
    );
    refused(
        |v| pool_json(v)["kappa0"][3] = json!(-0.5),
        "kappa0[3]: a rest curvature",
    );
    refused(
        |v| pool_json(v)["cables"][0]["sleep"]["still"] = json!(-1),
        "cables[0].sleep.still: must be finite and at least 0",
    );
    refused(
        |v| pool_json(v)["cables"][0]["sleep"]["bounds"]["max"][0] = json!(1e39),
        "cables[0].sleep.bounds: must be finite",
    );
    // Valid alone, but the stepper's substep cannot hold it.
    refused(
        |v| pool_json(v)["cables"][2]["params"]["compliance"] = json!(1e29),
        "pool.cables[2]: compliance: ",
    );
}

/// A restored damaged save: it saves again and restores to the same
/// state, and steps `frames` frames without a NaN (or refuses to step).
/// Returns whether it stepped finite.
fn steps_finite(state: SimulationState, frames: usize) -> Result<(), String> {
    let mut once = Vec::new();
    save_state(&mut once, &state.pool, &state.stepper).map_err(|e| format!("resave: {e}"))?;
    let again = restore_state(once.as_slice()).map_err(|e| format!("re-restore: {e}"))?;
    let mut twice = Vec::new();
    save_state(&mut twice, &again.pool, &again.stepper).map_err(|e| e.to_string())?;
    if once != twice {
        return Err("save -> restore -> save is not stable".into());
    }
    let (mut pool, mut stepper) = state.into_parts();
    for f in 0..frames {
        if stepper.advance(&mut pool, 1.0 / 60.0).is_err() {
            return Ok(());
        }
        if !pool.all_finite() {
            return Err(format!("NaN or infinite after {} frames", f + 1));
        }
    }
    Ok(())
}

/// The save of [`scene_run`] after 30 frames (made once).
fn scene_save() -> &'static [u8] {
    static FILE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    FILE.get_or_init(|| scene_run(30).2)
}

/// Replacement values for one number of a save: every kind of damage.
fn damage() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-1.0),
        Just(1e30),
        Just(-1e30),
        Just(3.4e38),
        Just(1e39),
        Just(4294967295.0),
        Just(1e15),
        Just(-1e15),
        Just(1e20),
        -1e40f64..1e40,
        -1e6f64..1e6,
        -10.0f64..10.0,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Issue 38: a save damaged number by number restores (to a state that
    /// saves back the same, and steps without a NaN) or is an error; and
    /// one that restores against its scene continues it without a NaN.
    #[test]
    fn issue_38_a_save_changed_number_by_number_restores_finite_or_is_refused(
        pick in any::<prop::sample::Index>(),
        value in damage(),
        scale in prop_oneof![Just(None), Just(Some(-1.0)), Just(Some(10.0)), Just(Some(1.0e6))],
    ) {
        let mut v: Value = serde_json::from_slice(scene_save()).unwrap();
        let paths = number_paths(&v);
        let at = &paths[pick.index(paths.len())];
        let new = match scale {
            Some(s) => v.pointer(at).unwrap().as_f64().unwrap() * s,
            None => value,
        };
        set_number(&mut v, at, new);
        let text = serde_json::to_vec(&v).unwrap();
        if let Ok(state) = restore_state(text.as_slice()) {
            let of_scene = state
                .check_same_setup(&scene_pool(&|_, _| {}, &scene_colliders()), &scene_params())
                .is_ok();
            let r = steps_finite(state, 60);
            prop_assert!(r.is_ok(), "{} = {} (against its scene: {}): {}", at, new, of_scene, r.unwrap_err());
        }
    }

    /// The same, byte by byte: one byte of the save replaced.
    #[test]
    fn issue_38_a_save_changed_byte_by_byte_restores_finite_or_is_refused(
        pick in any::<prop::sample::Index>(),
        byte in prop::sample::select(b"0123456789-+.eE,[]{}\":truefalsn ".to_vec()),
    ) {
        let mut file = scene_save().to_vec();
        let i = pick.index(file.len());
        file[i] = byte;
        if let Ok(state) = restore_state(file.as_slice()) {
            let r = steps_finite(state, 60);
            prop_assert!(r.is_ok(), "byte {} = {:?}: {}", i, byte as char, r.unwrap_err());
        }
    }
}

#[test]
fn issue_38_n6_a_long_free_fall_saves_restores_and_continues_bitwise() {
    // Free fall far from the origin: at 4.4e7 m the spacing of f32
    // coordinates is 4 m, and what rounding drops (the carry) is over a
    // metre; the state is the simulation's own and must save.
    let mut pool = ParticlePool::new();
    let mut d = CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 2).unwrap();
    (d.attach_start, d.attach_end) = (false, false);
    let h = pool.add_cable(&d).unwrap();
    let mut stepper = Stepper::new(SolverParams {
        substep: 0.1,
        max_substeps: 10,
        ..SolverParams::default()
    })
    .unwrap();
    let mut frames = 0;
    while !(stepper.time() > 2900.0
        && pool
            .carry(h)
            .unwrap()
            .iter()
            .any(|c| c.abs().max_element() > 1.0))
    {
        stepper.advance(&mut pool, 1.0).unwrap();
        frames += 1;
        assert!(
            frames < 3300,
            "no carry over a metre by t = {}",
            stepper.time()
        );
    }
    assert!(pool.positions(h).unwrap()[0].y < -4.0e7);
    let mut file = Vec::new();
    save_state(&mut file, &pool, &stepper).expect("a state the simulation reached saves");
    let (mut copy, mut copy_stepper) = restore_state(file.as_slice())
        .expect("and restores")
        .into_parts();
    for _ in 0..20 {
        stepper.advance(&mut pool, 1.0).unwrap();
        copy_stepper.advance(&mut copy, 1.0).unwrap();
    }
    let bits = |p: &ParticlePool| -> Vec<u32> {
        p.positions(h)
            .unwrap()
            .iter()
            .chain(p.carry(h).unwrap())
            .flat_map(|v| v.to_array().map(f32::to_bits))
            .collect()
    };
    assert_eq!(bits(&copy), bits(&pool));
    // Damage is still refused there: a carry of a kilometre.
    let mut v: Value = serde_json::from_slice(&file).unwrap();
    v["pool"]["carry"][0][1] = json!(1000.0);
    let Err(err) = restore_state(serde_json::to_vec(&v).unwrap().as_slice()) else {
        panic!("a carry of 1 km is refused");
    };
    assert!(
        err.to_string().contains("carry[0]: must be finite"),
        "{err}"
    );
}

/// The save with pool identity `id` (the pool's, and each handle's).
fn with_pool_id(file: &[u8], id: u64) -> Vec<u8> {
    let mut v: Value = serde_json::from_slice(file).unwrap();
    v["pool"]["id"] = json!(id);
    for c in v["pool"]["cables"].as_array_mut().unwrap() {
        c["handle"]["pool"] = json!(id);
    }
    serde_json::to_vec(&v).unwrap()
}

#[test]
fn issue_38_n7_no_saved_identity_lets_another_pool_accept_a_pools_handles() {
    let file = saved();
    for id in [u32::MAX, u32::MAX - 1] {
        // The collider set's identity too.
        let mut v: Value = serde_json::from_slice(&with_pool_id(&file, id.into())).unwrap();
        v["pool"]["colliders"]["id"] = json!(id - 2);
        let restored = restore_state(serde_json::to_vec(&v).unwrap().as_slice())
            .expect("any identity restores")
            .pool;
        assert_eq!((restored.id(), restored.colliders().id()), (id, id - 2));
        let old = restored.handles().next().unwrap();
        let ball = restored.colliders().handles().next().unwrap();
        for _ in 0..3 {
            let mut fresh = ParticlePool::new();
            assert!(
                ![id, id - 2].contains(&fresh.id())
                    && ![id, id - 2].contains(&fresh.colliders().id()),
                "{} {}",
                fresh.id(),
                fresh.colliders().id()
            );
            let new = fresh
                .add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4).unwrap())
                .unwrap();
            fresh
                .colliders_mut()
                .add(Collider::sphere(Vec3::ZERO, 1.0).unwrap());
            assert!(!fresh.contains(old) && fresh.positions(old).is_err());
            assert!(!restored.contains(new));
            assert!(fresh.colliders().get(ball).is_err());
            // Nothing was used up: a new pool still saves and restores.
            let mut again = Vec::new();
            save_state(
                &mut again,
                &fresh,
                &Stepper::new(SolverParams::default()).unwrap(),
            )
            .unwrap();
            assert_eq!(
                restore_state(again.as_slice()).unwrap().pool.id(),
                fresh.id()
            );
        }
    }
    // An identity ahead of the counter is skipped when the counter gets
    // there: the pools created meanwhile never take it.
    let ahead = ParticlePool::new().id() + 50_000;
    let restored = restore_state(with_pool_id(&file, ahead.into()).as_slice())
        .unwrap()
        .pool;
    let old = restored.handles().next().unwrap();
    loop {
        let fresh = ParticlePool::new();
        assert_ne!(fresh.id(), ahead);
        assert_ne!(fresh.colliders().id(), ahead);
        assert!(!fresh.contains(old));
        if fresh.id() > ahead {
            break;
        }
    }
}
