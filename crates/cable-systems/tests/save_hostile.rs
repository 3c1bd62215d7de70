//! Issue 12, save and restore of untrusted files: a truncated, damaged or
//! hand-edited save is an error that names what is wrong, never a panic
//! and never a pool that breaks its invariants.
#![cfg(feature = "serde")]

use cable_core::{CableDesc, Collider, ParticlePool};
use cable_systems::save::{SaveError, SimulationState, restore_state, save_state};
use cable_systems::{SolverParams, Stepper};
use glam::{Quat, Vec3};
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
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let alphabet = b"0123456789-.e,[]{}\":truefalsn ";
    let mut accepted = 0;
    for _ in 0..3000 {
        let mut bad = file.clone();
        for _ in 0..1 + next() % 3 {
            let at = (next() % bad.len() as u64) as usize;
            bad[at] = alphabet[(next() % alphabet.len() as u64) as usize];
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
