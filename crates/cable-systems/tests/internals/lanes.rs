use cable_core::{CableDesc, Collider, End, ParticlePool};
use glam::Vec3;

use cable_systems::layout::lanes::bundle::AnyBundle;
use cable_systems::layout::lanes::rows::{SPANS, Spans};
use cable_systems::layout::lanes::views::Views;
use cable_systems::layout::lanes::world::Held;
use cable_systems::layout::lanes::{LanesWorld, recycle};
use cable_systems::simd;
use cable_systems::{Layout, SolverParams, Stepper};

/// A column packs to three entries exactly when its interior is
/// bitwise uniform, and reads back every entry as it was.
#[test]
fn columns_pack_only_bitwise_uniform_interiors() {
    use cable_systems::kernel::lane::Fx;
    use cable_systems::kernel::lane::Lane;
    use cable_systems::layout::lanes::rows::Col;
    let col = |vals: &[f32]| {
        let mut c = Col::default();
        for &v in vals {
            c.push(Fx::<8>::splat(v));
        }
        c.pack();
        let back: Vec<f32> = (0..vals.len()).map(|i| c.get(i).0[3]).collect();
        assert_eq!(
            back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            vals.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{vals:?} read back as {back:?}"
        );
        c.stored().len()
    };
    assert_eq!(col(&[0.0, 1.0, 1.0, 1.0, 1.0, 2.0]), 3);
    assert_eq!(col(&[1.0, 1.0, 1.0, 1.0]), 3);
    // A different interior entry, or a zero of the other sign.
    assert_eq!(col(&[0.0, 1.0, 1.0, 3.0, 1.0, 2.0]), 6);
    assert_eq!(col(&[0.0, 0.0, -0.0, 0.0, 0.0]), 5);
    // Too short to gain anything.
    assert_eq!(col(&[0.0, 1.0, 2.0]), 3);
    assert_eq!(col(&[5.0]), 1);
    // One lane differs.
    let mut c = Col::default();
    for k in 0..5 {
        let mut v = Fx::<8>::splat(1.0);
        v.0[7] = if k == 2 { 2.0 } else { 1.0 };
        c.push(v);
    }
    c.pack();
    assert_eq!(c.stored().len(), 5);
}

/// Uniform cables (the bench's) keep three rows of free masks and
/// distance constants per bundle; a cable pinned mid-way makes its
/// bundle keep them whole, with the one-lane layout's results either way.
#[test]
fn uniform_bundles_keep_three_rows_of_constants() {
    let run = |layout: Layout, pin: bool| {
        let mut pool = ParticlePool::new();
        let mut handles = Vec::new();
        for k in 0..16 {
            let z = k as f32 * 0.1;
            let mut d = CableDesc::line(Vec3::new(0.0, 1.0, z), Vec3::new(2.0, 1.0, z), 2.2, 12)
                .expect("valid");
            d.attach_start = true;
            handles.push(pool.add_cable(&d).expect("fits"));
        }
        if pin {
            pool.set_inv_mass(handles[9], 6, 0.0).expect("valid");
        }
        let mut st = Stepper::with_layout(SolverParams::default(), layout).expect("valid");
        st.run_substeps(&mut pool, 30);
        let positions = pool.all_positions().to_vec();
        // (bundles with packed columns, bundles), from the lent state.
        let packed = (layout == Layout::Lanes8).then(|| {
            let back = pool.reclaim_state().expect("the lanes lent their state");
            let held: Box<Held> = back.holder.into_any().downcast().expect("a Held");
            let packed = held
                .bundles
                .iter()
                .filter(|b| match b {
                    AnyBundle::One(b) => b.rows.packed(),
                    AnyBundle::Four(b) => b.rows.packed(),
                })
                .count();
            (packed, held.bundles.len())
        });
        (positions, packed)
    };
    for pin in [false, true] {
        let (want, _) = run(Layout::Soa, pin);
        let (got, packed) = run(Layout::Lanes8, pin);
        assert!(same_bits(&got, &want), "pin {pin}: lanes8 differs from soa");
        // Two lane groups of 8 in one bundle.
        assert_eq!(packed, Some((usize::from(!pin), 1)), "pin {pin}");
    }
}

/// The same positions, bit for bit.
fn same_bits(a: &[Vec3], b: &[Vec3]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(a, b)| a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits))
}

/// `cables` cables side by side over a ground plane, the first `short`
/// of 6 segments and the rest of 9, with a stepper in `layout`
/// (3 iterations, friction 0.2).
fn rows_on_a_plane(
    cables: usize,
    short: usize,
    layout: Layout,
) -> (ParticlePool, Vec<cable_core::CableHandle>, Stepper) {
    let mut pool = ParticlePool::new();
    let mut handles = Vec::new();
    for k in 0..cables {
        let z = k as f32 * 0.2;
        let segs = if k < short { 6 } else { 9 };
        let d = CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(2.0, 0.0, z), 2.4, segs)
            .expect("valid");
        handles.push(pool.add_cable(&d).expect("fits"));
    }
    pool.colliders_mut()
        .add(Collider::plane(Vec3::Y, -0.5).expect("valid"));
    let params = SolverParams {
        iterations: 3,
        friction: 0.2,
        ..SolverParams::default()
    };
    let st = Stepper::with_layout(params, layout).expect("valid");
    (pool, handles, st)
}

/// A bundle's hint asks for every line of the next bundle's arrays,
/// once each and in order, within its last substep's projections, and
/// for nothing after; arrays that start or end mid-line and empty ones
/// included.
#[test]
fn ahead_asks_for_every_line_once_within_the_substep() {
    use cable_systems::layout::lanes::rows::{Ahead, LINE, SPANS, Spans};
    let mut spans: Spans = [(0, 0); SPANS];
    spans[0] = (0x1000, 4 * LINE);
    // Starting mid-line, ending mid-line: four lines.
    spans[2] = (0x9020, 3 * LINE + 8);
    spans[5] = (0x20000, LINE);
    let want: Vec<usize> = [0x1000, 0x1040, 0x1080, 0x10c0]
        .into_iter()
        .chain([0x9000, 0x9040, 0x9080, 0x90c0, 0x20000])
        .collect();
    for calls in [1, 2, 3, 7, 9, 40] {
        let mut a = Ahead::new(&spans, calls);
        let mut got = Vec::new();
        for _ in 0..calls {
            a.step_with(|x| got.push(x));
        }
        assert_eq!(got, want, "{calls} calls");
        a.step_with(|x| got.push(x));
        assert_eq!(got.len(), want.len(), "nothing after the last line");
    }
    let mut none = Ahead::default();
    none.step_with(|_| panic!("asked for a line with no spans"));
}

/// The views' buffer changes lifetime without a new allocation.
#[test]
fn recycle_keeps_the_allocation() {
    let mut v: Views<'static> = Vec::with_capacity(40);
    v.push(None);
    let (ptr, cap) = (v.as_ptr().cast::<u8>(), v.capacity());
    let w: Views<'_> = recycle(v);
    assert!(w.is_empty());
    assert_eq!((w.as_ptr().cast::<u8>(), w.capacity()), (ptr, cap));
}

/// One key in row order (its views appended, `in_order`) with padding,
/// and a leftover one-lane key, over frames of one substep with a
/// collider: the same bits as the one-lane layout, the pool edited
/// between frames (re-gathered) and attachment targets moved
/// (refreshed).
#[test]
fn one_key_in_row_order_matches_the_one_lane_layout() {
    let run = |layout: Layout| {
        let (mut pool, handles, mut st) = rows_on_a_plane(21, 19, layout);
        for frame in 0..6 {
            if frame == 2 {
                pool.positions_mut(handles[4]).expect("live")[2].y += 0.1;
            }
            if frame == 4 {
                let to = Some(Vec3::new(0.1, 0.2, 0.0));
                pool.set_attachment(handles[0], cable_core::End::Start, to)
                    .expect("live");
            }
            st.run_substeps(&mut pool, 1);
        }
        if layout == Layout::Lanes8 {
            let w: &LanesWorld = st.layout_state().lanes();
            assert!(w.in_order && w.lane_cables() == 19 && w.lane_groups() == 4);
        }
        pool.all_positions().to_vec()
    };
    let (want, got) = (run(Layout::Soa), run(Layout::Lanes8));
    assert!(same_bits(&got, &want), "lanes8 differs from soa");
}

/// Cables edited alone between frames (positions, previous positions,
/// velocity, a teleport of an attached cable, parameters and masses
/// that keep the cable in its group) in a 32-lane bundle, an 8-lane
/// bundle and on the one-lane path: the lanes re-read just those cables
/// ([`cable_systems::layout::lanes::bundle::Bundle::gather_state`]) or their bundle, and the result is
/// bitwise the one-lane layout's, which works in the pool itself.
#[test]
fn cables_edited_alone_match_the_one_lane_layout() {
    let run = |layout: Layout| {
        let mut pool = ParticlePool::new();
        let mut handles = Vec::new();
        // 26 cables of 6 segments (24 in a 32-lane bundle, the last 2
        // too few for a group: one-lane), 8 of 9 (an 8-lane bundle), 2
        // of 4 (one-lane).
        for (k, segs) in [(26, 6), (8, 9), (2, 4)]
            .into_iter()
            .flat_map(|(count, segs)| std::iter::repeat_n(segs, count))
            .enumerate()
        {
            let z = k as f32 * 0.2;
            let mut d = CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(2.0, 0.0, z), 2.4, segs)
                .expect("valid");
            d.attach_end = k % 3 != 0;
            handles.push(pool.add_cable(&d).expect("fits"));
        }
        let params = SolverParams {
            iterations: 3,
            ..SolverParams::default()
        };
        let h = params.substep;
        let mut st = Stepper::with_layout(params, layout).expect("valid");
        st.run_substeps(&mut pool, 1);
        for frame in 0..8 {
            for (j, &c) in handles.iter().enumerate().skip(frame % 3).step_by(5) {
                match (frame + j) % 6 {
                    0 => pool.positions_mut(c).expect("live")[2].y += 0.05,
                    1 => pool.prev_positions_mut(c).expect("live")[1].x -= 0.02,
                    2 => pool
                        .set_velocity(c, Vec3::new(0.0, 1.0, 0.5), h)
                        .expect("valid"),
                    3 => pool
                        .teleport(c, Vec3::new(0.1, 0.0, -0.05))
                        .expect("in range"),
                    4 => {
                        // Constants that keep the cable in its group.
                        let mut p = *pool.params(c).expect("live");
                        p.gravity_scale += 0.5;
                        p.damping = Some(0.1);
                        p.tethers = !p.tethers;
                        pool.set_params(c, p).expect("valid");
                    }
                    _ => pool.set_inv_mass(c, 1, 0.25).expect("valid"),
                }
            }
            if frame == 5 {
                // A change of key: the plan changes, one more full copy.
                let mut p = *pool.params(handles[3]).expect("live");
                p.compliance = 1.0e-4;
                pool.set_params(handles[3], p).expect("valid");
            }
            st.run_substeps(&mut pool, 1);
        }
        if layout == Layout::Lanes8 {
            let w: &LanesWorld = st.layout_state().lanes();
            assert_eq!((w.lane_cables(), w.lane_groups()), (32, 5));
            // The first frame and the change of key copied the whole pool.
            assert_eq!(w.full_gathers(), 2);
        }
        pool.all_positions().to_vec()
    };
    let (want, got) = (run(Layout::Soa), run(Layout::Lanes8));
    assert!(same_bits(&got, &want), "lanes8 differs from soa");
}

/// The lanes lent to the pool between frames: frames nobody reads copy
/// nothing (the pool stays lent), frames after a read write back in
/// their own tasks, and every way of touching the pool in between (a
/// read, a clone, an edit of particles, of parameters and masses
/// without a read, a new cable, a removed one, moved targets) sees or
/// keeps the newest state: the positions read after each frame are
/// bitwise the one-lane layout's, which works in the pool itself.
#[test]
fn lent_lanes_match_the_one_lane_layout_however_the_pool_is_touched() {
    let run = |layout: Layout| {
        let (mut pool, handles, mut st) = rows_on_a_plane(40, 36, layout);
        let mut seen = Vec::new();
        let mut lent_after = Vec::new();
        for frame in 0..16 {
            st.run_substeps(&mut pool, 1);
            lent_after.push(pool.is_lent());
            match frame {
                // Unread: the next frame finds the lanes still lent.
                0 | 1 | 5 | 6 | 11 => continue,
                // Parameters and masses edited without a read: the
                // lanes write back before their bundle gathers again.
                2 => {
                    let mut p = *pool.params(handles[3]).expect("live");
                    p.gravity_scale = 0.5;
                    pool.set_params(handles[3], p).expect("valid");
                    pool.set_inv_mass(handles[5], 2, 0.5).expect("valid");
                    continue;
                }
                // A particle edited: the edit reads the pool first.
                3 => pool.positions_mut(handles[7]).expect("live")[2].y += 0.1,
                // Moved targets alone: nothing read.
                7 => {
                    let to = Some(Vec3::new(0.1, 0.2, 0.0));
                    pool.set_attachment(handles[0], End::Start, to)
                        .expect("live");
                    continue;
                }
                // A clone reads the pool, and steps on its own.
                8 => {
                    let mut copy = pool.clone();
                    assert!(!copy.is_lent());
                    st.clone().run_substeps(&mut copy, 1);
                }
                // Structure: a removed cable and a new one.
                9 => pool.remove_cable(handles[11]).expect("live"),
                12 => {
                    let d =
                        CableDesc::line(Vec3::Y, Vec3::new(2.0, 1.0, 0.0), 2.4, 6).expect("valid");
                    pool.add_cable(&d).expect("fits");
                }
                _ => {}
            }
            let all: Vec<Vec3> = (0..pool.cable_count())
                .filter_map(|i| pool.cable(i))
                .flat_map(|c| c.pos.to_vec())
                .collect();
            seen.push(all);
        }
        seen.push(pool.all_positions().to_vec());
        if layout == Layout::Lanes8 {
            let w: &LanesWorld = st.layout_state().lanes();
            // Frames after a read or an edit of particles wrote back
            // in their tasks: 4, 5, 9, 10, 11, 13, 14, 15 (frame 8
            // comes after moved targets alone: nothing read).
            assert_eq!(w.eager_frames(), 8, "frames that wrote back in-task");
            // Frame 3 found parameters and masses edited while the
            // lanes were lent, and had them write back first.
            assert_eq!(w.write_backs(), 1);
            // Every frame lends the lanes (the reads after it then
            // copy them back, asserted bitwise below).
            assert!(lent_after.iter().all(|&l| l));
        }
        seen
    };
    let (want, got) = (run(Layout::Soa), run(Layout::Lanes8));
    assert_eq!(want.len(), got.len());
    for (k, (a, b)) in want.iter().zip(&got).enumerate() {
        assert!(same_bits(b, a), "lanes8 differs from soa at read {k}");
    }
}

/// `copy_positions` reads a lent pool where each cable lives, lane
/// cables from their bundle and one-lane cables from the pool's
/// columns: bitwise the one-lane layout's positions every frame, and
/// the pool stays lent, so no frame writes back.
#[test]
fn copying_positions_reads_the_lanes_where_they_live() {
    let run = |layout: Layout| {
        // 38 short cables (lanes) and 2 long ones, too few for a
        // lane group (one-lane path).
        let (mut pool, handles, mut st) = rows_on_a_plane(40, 38, layout);
        let mut buf = Vec::new();
        let mut seen = Vec::new();
        for frame in 0..8 {
            st.run_substeps(&mut pool, 1);
            for &h in &handles {
                pool.copy_positions(h, &mut buf).expect("live");
                seen.push(buf.clone());
            }
            if layout == Layout::Lanes8 {
                assert!(
                    pool.is_lent(),
                    "frame {frame}: a copy made the pool current"
                );
            }
        }
        if layout == Layout::Lanes8 {
            let w: &LanesWorld = st.layout_state().lanes();
            assert!(
                (1..handles.len()).contains(&w.lane_cables()),
                "both paths: {} lane cables of {}",
                w.lane_cables(),
                handles.len()
            );
            assert_eq!(w.eager_frames(), 0, "a copy counted as a read");
            assert_eq!(w.write_backs(), 0);
        }
        seen
    };
    let (want, got) = (run(Layout::Soa), run(Layout::Lanes8));
    assert_eq!(want.len(), got.len());
    for (k, (a, b)) in want.iter().zip(&got).enumerate() {
        assert!(same_bits(b, a), "copy {k} differs from soa");
    }
}

/// Meshing a lent pool reads each cable where it lives: the same
/// buffers as meshing it after a write-back, and the pool stays lent,
/// so the next frame does not write back either.
#[test]
fn meshing_a_lent_pool_leaves_it_lent() {
    use cable_core::mesh::{MeshBuffers, MeshOptions};
    let (mut pool, _, mut st) = rows_on_a_plane(40, 38, Layout::Lanes8);
    let options = MeshOptions::default();
    let (mut lent, mut synced) = (MeshBuffers::new(), MeshBuffers::new());
    for _ in 0..3 {
        st.run_substeps(&mut pool, 1);
        // The same buffers before the build (each ring frame carries on
        // from the last build's).
        synced.clone_from(&lent);
        cable_systems::mesh::build_meshes(&pool, &options, &mut lent).expect("fits");
        assert!(pool.is_lent(), "meshing made the pool current");
    }
    assert_eq!(st.layout_state().lanes().eager_frames(), 0);
    pool.sync_state();
    cable_systems::mesh::build_meshes(&pool, &options, &mut synced).expect("fits");
    assert!(!lent.vertices.is_empty());
    assert_eq!(lent.points, pool.all_positions());
    assert_eq!(lent, synced);
}

/// Switching layouts while the lanes are lent and unread: the next
/// layout works on the lanes' state (bitwise the one-lane layout's
/// run), and the lent storage is freed.
#[test]
fn switching_layouts_takes_the_lent_state() {
    let run = |layouts: &[Layout]| {
        let mut pool = ParticlePool::new();
        for k in 0..16 {
            let z = k as f32 * 0.2;
            let d = CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(2.0, 0.0, z), 2.4, 6)
                .expect("valid");
            pool.add_cable(&d).expect("fits");
        }
        let params = SolverParams {
            iterations: 3,
            ..SolverParams::default()
        };
        let mut st = Stepper::with_layout(params, layouts[0]).expect("valid");
        for &layout in layouts {
            st.set_layout(layout);
            st.run_substeps(&mut pool, 1);
            st.run_substeps(&mut pool, 1);
            assert_eq!(pool.is_lent(), layout == Layout::Lanes8);
            if layout != Layout::Lanes8 {
                // The lanes' storage was dropped, not kept in the pool.
                assert!(pool.reclaim_state().is_none());
            }
        }
        pool.all_positions().to_vec()
    };
    let want = run(&[Layout::Soa; 4]);
    let got = run(&[Layout::Lanes8, Layout::Soa, Layout::Lanes8, Layout::Aos]);
    assert!(
        same_bits(&got, &want),
        "a layout switch lost the lanes' state"
    );
}

/// Each bundle asks for its successor's rows ([`Held::plan_ahead`]):
/// bundle `i`'s spans are bundle `i + 1`'s arrays, the last bundle's are
/// empty, and the multipliers are among them exactly where the next
/// bundle's substep uses them (compliant cables here). A hint pointed
/// at the wrong bundle would change no result, so only this catches it.
#[test]
fn each_bundle_asks_for_the_next_ones_rows() {
    let mut pool = ParticlePool::new();
    // Three keys, three bundles: 8 rigid cables of 4 segments (one lane
    // group), 8 compliant of 5 (one), 32 rigid of 3 (four groups).
    for (k, (count, segs, compliance)) in [(8, 4, 0.0), (8, 5, 1.0e-3), (32, 3, 0.0)]
        .into_iter()
        .enumerate()
    {
        for c in 0..count {
            let z = (k * 40 + c) as f32 * 0.3;
            let (a, b) = (Vec3::new(0.0, 0.0, z), Vec3::new(2.0, 0.0, z));
            let mut d = CableDesc::line(a, b, 2.5, segs).expect("valid");
            d.params.compliance = compliance;
            pool.add_cable(&d).expect("fits");
        }
    }
    let mut st = Stepper::with_layout(SolverParams::default(), Layout::Lanes8).expect("valid");
    // Two frames: the second plans with the rows the first made.
    st.run_substeps(&mut pool, 1);
    st.run_substeps(&mut pool, 1);
    let back = pool.reclaim_state().expect("the lanes lent their state");
    let held: Box<Held> = back.holder.into_any().downcast().expect("a Held");
    assert_eq!(held.bundles.len(), 3, "three bundles");
    assert_eq!(held.next.len(), 3, "one hint per bundle");
    for (i, hint) in held.next.iter().enumerate() {
        let Some(b) = held.bundles.get(i + 1) else {
            assert_eq!(*hint, Spans::default(), "the last bundle asks for nothing");
            continue;
        };
        let (rows, soft) = match b {
            AnyBundle::One(b) => (b.rows.spans(true), b.key.soft),
            AnyBundle::Four(b) => (b.rows.spans(true), b.key.soft),
        };
        assert!(rows[0].1 > 0, "bundle {} has rows", i + 1);
        for (k, (&got, &want)) in hint.iter().zip(&rows).enumerate() {
            // The multipliers (the last span) only where used.
            let want = if k + 1 == SPANS && !soft {
                (0, 0)
            } else {
                want
            };
            assert_eq!(got, want, "bundle {i}'s hint, span {k}");
        }
    }
    // Not vacuous: one successor is compliant, one is not.
    let soft: Vec<bool> = held.bundles[1..]
        .iter()
        .map(|b| match b {
            AnyBundle::One(b) => b.key.soft,
            AnyBundle::Four(b) => b.key.soft,
        })
        .collect();
    assert!(soft.contains(&true) && soft.contains(&false), "{soft:?}");
}

/// The AVX2 and AVX-512 paths (`unsafe` calls, in [`cable_systems::simd::Wide::run`],
/// for the kernel and the contact passes) and the baseline path give
/// the same bits as the one-lane layout, with a bundle asking for the
/// next one's rows (the third `unsafe` call, [`cable_systems::simd::prefetch`]).
/// Small enough for Miri, which passes it on every path (under Miri a
/// path is detected when the build enables its features, as below):
///
/// ```sh
/// RUSTFLAGS="-C target-feature=+avx2,+avx512f,+avx512vl" \
/// MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks" \
/// cargo +nightly miri test -p cable-systems --test internals -- lanes::every_simd_path simd::
/// ```
///
/// (`rustup component add --toolchain nightly miri rust-src` first.)
/// Tree Borrows because Stacked Borrows stops in rayon's crossbeam-epoch
/// first (a known report against that crate, not this code); leaks
/// ignored because rayon's global pool outlives `main`.
#[test]
fn every_simd_path_matches_the_one_lane_layout() {
    let run = |layout: Layout| {
        let mut pool = ParticlePool::new();
        // Four keys (4 or 3 segments, rigid or compliant): the two of
        // 4 segments fill a lane group each, so two bundles, the first
        // asking for the second's rows (`Ahead`, `simd::prefetch`); the
        // other two have too few cables and run one lane each.
        for k in 0..10 {
            let z = k as f32 * 0.3;
            let segs = if k < 6 { 4 } else { 3 };
            let mut d = CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(2.0, 0.0, z), 2.5, segs)
                .expect("valid");
            d.params.compliance = if k % 2 == 0 { 0.0 } else { 1.0e-3 };
            pool.add_cable(&d).expect("fits");
        }
        // Every kind of contact pass: the plane (inlined into the
        // kernel), a sphere and a box through the cables
        // (`project_shape`, one copy per path) and a rod across them
        // (`uncross`, baseline only).
        let colliders = pool.colliders_mut();
        colliders.add(Collider::plane(Vec3::Y, -0.6).expect("valid"));
        colliders.add(Collider::sphere(Vec3::new(1.0, 0.05, 1.2), 0.1).expect("valid"));
        let (c, half) = (Vec3::new(1.5, -0.02, 0.6), Vec3::new(0.05, 0.05, 0.3));
        colliders.add(Collider::cuboid(c, half, glam::Quat::IDENTITY).expect("valid"));
        let (a, b) = (Vec3::new(0.5, -0.05, -0.1), Vec3::new(0.5, -0.05, 2.5));
        colliders.add(Collider::capsule(a, b, 0.04).expect("valid"));
        let params = SolverParams {
            iterations: 2,
            friction: 0.3,
            ..SolverParams::default()
        };
        let mut st = Stepper::with_layout(params, layout).expect("valid");
        // Two frames: the second asks for rows made in the first.
        let asked = simd::PREFETCHES.load(std::sync::atomic::Ordering::Relaxed);
        st.run_substeps(&mut pool, 2);
        st.run_substeps(&mut pool, 2);
        if layout == Layout::Lanes8 {
            let w = st.layout_state().lanes();
            assert_eq!((w.lane_cables(), w.lane_groups()), (6, 2), "two bundles");
            let now = simd::PREFETCHES.load(std::sync::atomic::Ordering::Relaxed);
            assert!(now > asked, "no bundle asked for the next one's rows");
        }
        let moved = pool.all_positions().iter().filter(|p| p.y > 0.0).count();
        assert!(
            moved > 0,
            "no particle was pushed up by the sphere or the box"
        );
        pool.all_positions().to_vec()
    };
    let want = run(Layout::Soa);
    let _one_at_a_time = super::simd::FORCING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for path in simd::available() {
        simd::force(Some(path));
        let got = run(Layout::Lanes8);
        simd::force(None);
        assert!(same_bits(&got, &want), "{path:?} differs from soa");
    }
}
