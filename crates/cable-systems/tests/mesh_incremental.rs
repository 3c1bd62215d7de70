//! Incremental meshing (issue 42): a build into reused buffers equals a
//! build into fresh ones, bit for bit, after frames in which cables
//! sleep, hide, move, teleport, reel, tear, change radius, come and go;
//! sleeping and untouched cables are not rewritten (the build reports and
//! stamps what it wrote); a filtered build writes only the cables it is
//! asked for.

use cable_core::mesh::{CableMesh, MeshBuffers, MeshOptions, MeshState, MeshStyle, Vertex};
use cable_core::{CableDesc, CableError, CableHandle, CableParams, ParticlePool};
use cable_systems::mesh::{MeshStats, build_meshes, build_meshes_for};
use cable_systems::{SolverParams, Stepper};
use glam::Vec3;

/// `n` cables hanging from their start (every third pinned at both ends),
/// of varied lengths and sides.
fn scene(n: usize) -> (ParticlePool, Vec<CableHandle>) {
    let mut pool = ParticlePool::new();
    let handles = (0..n)
        .map(|i| {
            let z = i as f32 * 0.4;
            let segs = 6 + (i % 4) as u32 * 3;
            let mut d =
                CableDesc::line(Vec3::new(0.0, 0.0, z), Vec3::new(3.0, 0.0, z), 3.5, segs).unwrap();
            d.attach_end = i % 3 == 0;
            d.params.sides = 3 + (i % 5) as u32;
            pool.add_cable(&d).unwrap()
        })
        .collect();
    (pool, handles)
}

/// A build into fresh buffers, as the reference.
fn fresh(pool: &ParticlePool, options: &MeshOptions) -> MeshBuffers {
    let mut m = MeshBuffers::new();
    build_meshes(pool, options, &mut m).unwrap();
    m
}

/// `a` and `b` draw the same thing, bit for bit: the same ranges, states
/// and bounds, every index, and every vertex of every built cable (a blank
/// cable's vertices are unspecified).
fn assert_same(a: &MeshBuffers, b: &MeshBuffers, frame: usize) {
    let key = |c: &CableMesh| {
        (
            c.handle,
            c.first_vertex,
            c.first_index,
            c.first_point,
            c.counts,
            c.state,
            (c.bounds.min.to_array(), c.bounds.max.to_array()),
        )
    };
    assert_eq!(a.cables.len(), b.cables.len(), "frame {frame}");
    for (ca, cb) in a.cables.iter().zip(&b.cables) {
        assert_eq!(key(ca), key(cb), "frame {frame}");
        if let MeshState::Built { .. } = ca.state {
            let (va, vb) = (
                &a.vertices[ca.vertex_range()],
                &b.vertices[cb.vertex_range()],
            );
            let bits = |v: &[Vertex]| {
                v.iter()
                    .flat_map(|x| {
                        let f = x.position.iter().chain(&x.normal).chain(&x.tangent);
                        f.chain(&x.uv).map(|f| f.to_bits()).collect::<Vec<_>>()
                    })
                    .collect::<Vec<u32>>()
            };
            assert!(
                bits(va) == bits(vb),
                "frame {frame}: cable {:?} differs from a fresh build",
                ca.handle
            );
            assert_eq!(
                a.points[ca.point_range()],
                b.points[cb.point_range()],
                "frame {frame}"
            );
        }
    }
    assert_eq!(a.indices, b.indices, "frame {frame}");
    assert_eq!(a.vertices.len(), b.vertices.len(), "frame {frame}");
    assert_eq!(
        (a.bounds.min, a.bounds.max),
        (b.bounds.min, b.bounds.max),
        "frame {frame}"
    );
}

/// Frames of a busy scene: some cables fall asleep, some are hidden (one
/// skipped while hidden, one simulated), one is teleported, one reeled,
/// one torn, one resized; a cable is added and one removed. After every
/// frame the reused buffers equal a fresh build, for tubes (plain and
/// smoothed) and ribbons, on the stepper's default layout (which keeps the
/// state between frames: the build reads each cable where it lives).
#[test]
fn reused_buffers_equal_a_fresh_build_every_frame() {
    let styles = [
        MeshOptions::default(),
        MeshOptions {
            rings_per_segment: 3,
            ..MeshOptions::default()
        },
        MeshOptions {
            style: MeshStyle::Ribbon {
                view: Vec3::new(0.2, -0.3, -1.0),
                two_sided: true,
            },
            ..MeshOptions::default()
        },
    ];
    for base in styles {
        // Without coherent roll a mesh depends on the pool alone, so a
        // fresh build is the reference.
        let options = MeshOptions {
            coherent_roll: false,
            ..base
        };
        let (mut pool, handles) = scene(12);
        for &h in &handles[..4] {
            let p = CableParams {
                sleep_speed: 1.0e3,
                sleep_delay: 0.2,
                ..*pool.params(h).unwrap()
            };
            pool.set_params(h, p).unwrap();
        }
        let skipped = CableParams {
            skip_when_hidden: true,
            ..*pool.params(handles[5]).unwrap()
        };
        pool.set_params(handles[5], skipped).unwrap();
        let mut stepper = Stepper::new(SolverParams::default()).unwrap();
        let mut mesh = MeshBuffers::new();
        let mut extra = None;
        let (mut kept, mut hidden) = (0, 0);
        for frame in 0..60 {
            stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
            match frame {
                5 => {
                    pool.set_visible(handles[5], false).unwrap();
                    pool.set_visible(handles[6], false).unwrap();
                }
                10 => pool.teleport(handles[7], Vec3::new(0.0, 2.0, 1.0)).unwrap(),
                15 => drop(pool.reel(handles[8], 0.7).unwrap()),
                20 => pool.break_segment(handles[9], 2).unwrap(),
                25 => {
                    let p = CableParams {
                        radius: 0.12,
                        tile: 3.0,
                        ..*pool.params(handles[10]).unwrap()
                    };
                    pool.set_params(handles[10], p).unwrap();
                }
                30 => {
                    let d = CableDesc::line(Vec3::Y, Vec3::new(1.0, 1.0, 9.0), 10.0, 7).unwrap();
                    extra = Some(pool.add_cable(&d).unwrap());
                }
                35 => pool.set_visible(handles[6], true).unwrap(),
                40 => pool.remove_cable(handles[11]).unwrap(),
                45 => pool.positions_mut(handles[2]).unwrap()[1].x += 0.25,
                // Every cable's particles lent out at once, a sleeping
                // one's moved: no cable's own edit records it.
                47 => pool.par_for_each_cable(|c| {
                    if c.handle == handles[0] {
                        c.pos[2].y += 0.125;
                    }
                }),
                50 => pool.set_visible(handles[5], true).unwrap(),
                55 => pool.remove_cable(extra.take().unwrap()).unwrap(),
                _ => {}
            }
            let stats = build_meshes(&pool, &options, &mut mesh).unwrap();
            assert_eq!(
                stats.rebuilt + stats.kept + stats.hidden,
                pool.handles().count(),
                "frame {frame}: every cable accounted for"
            );
            assert_eq!(stats.not_asked, 0);
            kept += stats.kept;
            hidden += stats.hidden;
            assert_same(&mesh, &fresh(&pool, &options), frame);
        }
        assert!(pool.sleeping_count() >= 3, "cables fell asleep");
        assert!(kept > 100, "sleeping cables kept their meshes: {kept}");
        assert!(hidden > 50, "hidden cables were blank: {hidden}");
    }
}

/// Sleeping cables are not rewritten: the build counts them as kept and
/// their `written` stamp stays that of the build that last meshed them,
/// while the awake ones are rebuilt every frame.
#[test]
fn sleeping_cables_are_not_rewritten() {
    let (mut pool, handles) = scene(8);
    for &h in &handles[..5] {
        let p = CableParams {
            sleep_speed: 1.0e3,
            sleep_delay: 0.0,
            ..*pool.params(h).unwrap()
        };
        pool.set_params(h, p).unwrap();
    }
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    for _ in 0..5 {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    }
    assert_eq!(pool.sleeping_count(), 5);
    let options = MeshOptions::default();
    let mut mesh = MeshBuffers::new();
    let first = build_meshes(&pool, &options, &mut mesh).unwrap();
    assert_eq!(first.rebuilt, 8);
    let stamp = |m: &MeshBuffers, h| m.cable(h).map(|c| c.written);
    let before: Vec<_> = handles.iter().map(|&h| stamp(&mesh, h)).collect();
    let snapshot = mesh.clone();
    for frame in 0..10 {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
        let stats = build_meshes(&pool, &options, &mut mesh).unwrap();
        assert_eq!(
            stats,
            MeshStats {
                rebuilt: 3,
                kept: 5,
                hidden: 0,
                not_asked: 0
            },
            "frame {frame}"
        );
    }
    for (i, &h) in handles.iter().enumerate() {
        let c = mesh.cable(h).unwrap();
        if i < 5 {
            assert_eq!(stamp(&mesh, h), before[i], "sleeping cable {i} rewritten");
            let old = snapshot.cable(h).unwrap();
            assert_eq!(
                mesh.vertices[c.vertex_range()],
                snapshot.vertices[old.vertex_range()]
            );
        } else {
            assert_eq!(c.written, mesh.build_count(), "awake cable {i} rebuilt");
        }
    }
    // Waking one rebuilds it only when it moves (nothing moved since).
    pool.wake(handles[0]).unwrap();
    assert_eq!(build_meshes(&pool, &options, &mut mesh).unwrap().kept, 8);
    // New options rebuild everything.
    let smooth = MeshOptions {
        rings_per_segment: 2,
        ..options
    };
    assert_eq!(build_meshes(&pool, &smooth, &mut mesh).unwrap().rebuilt, 8);
    assert_eq!(build_meshes(&pool, &smooth, &mut mesh).unwrap().kept, 8);
    // And so does forgetting what was built.
    mesh.invalidate();
    assert_eq!(build_meshes(&pool, &smooth, &mut mesh).unwrap().rebuilt, 8);
}

/// A filtered build writes the ranges of the cables asked for and nothing
/// else; the others keep their last mesh (or are blank when new); a stale
/// handle is refused before anything is written.
#[test]
fn a_filtered_build_touches_only_the_cables_asked_for() {
    let (mut pool, handles) = scene(6);
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    stepper.advance(&mut pool, 0.5).unwrap();
    let options = MeshOptions::default();
    let mut mesh = MeshBuffers::new();
    build_meshes(&pool, &options, &mut mesh).unwrap();
    stepper.advance(&mut pool, 0.1).unwrap(); // every cable moves
    let before = mesh.clone();
    let asked = [handles[4], handles[1], handles[4]];
    let stats = build_meshes_for(&pool, &options, &asked, &mut mesh).unwrap();
    assert_eq!((stats.rebuilt, stats.not_asked), (2, 4));
    let reference = fresh(&pool, &options);
    for (i, c) in mesh.cables.iter().enumerate() {
        let (v, x, p) = (c.vertex_range(), c.index_range(), c.point_range());
        if i == 1 || i == 4 {
            assert_ne!(mesh.vertices[v.clone()], before.vertices[v.clone()]);
            assert_eq!(mesh.vertices[v.clone()], reference.vertices[v]);
            assert_eq!(mesh.points[p.clone()], reference.points[p]);
        } else {
            assert_eq!(mesh.vertices[v.clone()], before.vertices[v]);
            assert_eq!(mesh.indices[x.clone()], before.indices[x]);
            assert_eq!(mesh.points[p.clone()], before.points[p]);
            assert_eq!(c.written, 1, "cable {i} written by the first build only");
        }
    }
    // A stale handle: refused, nothing written.
    let gone = handles[5];
    pool.remove_cable(gone).unwrap();
    let kept = mesh.clone();
    let e = build_meshes_for(&pool, &options, &[handles[0], gone], &mut mesh).unwrap_err();
    assert!(matches!(e, CableError::StaleHandle(h) if h == gone));
    assert_eq!(mesh, kept);
    assert_eq!(mesh.build_count(), kept.build_count());
    // Into fresh buffers, the cables not asked for are laid out but blank.
    let mut blank = MeshBuffers::new();
    let stats = build_meshes_for(&pool, &options, &[handles[2]], &mut blank).unwrap();
    assert_eq!((stats.rebuilt, stats.not_asked), (1, 4));
    for c in &blank.cables {
        if c.handle == handles[2] {
            assert!(matches!(c.state, MeshState::Built { .. }));
            assert_eq!(blank.bounds, c.bounds);
        } else {
            assert_eq!(c.state, MeshState::Empty);
            assert!(
                blank.indices[c.index_range()]
                    .iter()
                    .all(|&i| i == c.first_vertex)
            );
        }
    }
    // Asking for nothing writes nothing.
    let quiet = blank.clone();
    let stats = build_meshes_for(&pool, &options, &[], &mut blank).unwrap();
    assert_eq!((stats.rebuilt, stats.not_asked), (0, 5));
    assert_eq!(blank, quiet);
}

/// A hidden cable draws nothing (degenerate triangles, empty bounds) and
/// is written once, when found hidden; shown again, it is meshed as
/// before it hid.
#[test]
fn hidden_cables_are_blank_and_written_once() {
    let (mut pool, handles) = scene(3);
    // Without coherent roll: the roll carried over is not the point here.
    let options = MeshOptions {
        coherent_roll: false,
        ..MeshOptions::default()
    };
    // The last cable: the others' bounds do not hold it.
    let hid = handles[2];
    let mut mesh = MeshBuffers::new();
    build_meshes(&pool, &options, &mut mesh).unwrap();
    let shown = mesh.clone();
    pool.set_visible(hid, false).unwrap();
    let stats = build_meshes(&pool, &options, &mut mesh).unwrap();
    assert_eq!((stats.hidden, stats.kept), (1, 2));
    let c = *mesh.cable(hid).unwrap();
    assert_eq!(c.state, MeshState::Hidden);
    assert!(c.bounds.is_empty());
    assert!(
        mesh.indices[c.index_range()]
            .iter()
            .all(|&i| i == c.first_vertex)
    );
    assert!(!mesh.bounds.contains(pool.positions(hid).unwrap()[3]));
    let stamp = c.written;
    build_meshes(&pool, &options, &mut mesh).unwrap();
    assert_eq!(mesh.cable(hid).unwrap().written, stamp, "written once");
    pool.set_visible(hid, true).unwrap();
    let stats = build_meshes(&pool, &options, &mut mesh).unwrap();
    assert_eq!((stats.rebuilt, stats.kept), (1, 2));
    assert_eq!(mesh.vertices, shown.vertices);
    assert_eq!(mesh.indices, shown.indices);
    assert_eq!(mesh.bounds, shown.bounds);
}

/// What a mesh is kept by: a sleeping cable's
/// [`ParticlePool::moved_revision`] stays the same across steps, an awake
/// one's changes every step, and an edit of every cable's particles at once
/// ([`ParticlePool::par_for_each_cable`]) changes every cable's; the mesh
/// of a sleeping cable moved that way is rebuilt.
#[test]
fn sleeping_cables_keep_their_moved_number() {
    let (mut pool, handles) = scene(4);
    for &h in &handles[..2] {
        let p = CableParams {
            sleep_speed: 1.0e3,
            sleep_delay: 0.0,
            ..*pool.params(h).unwrap()
        };
        pool.set_params(h, p).unwrap();
    }
    let mut stepper = Stepper::new(SolverParams::default()).unwrap();
    for _ in 0..5 {
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
    }
    assert_eq!(pool.sleeping_count(), 2);
    let numbers = |pool: &ParticlePool| -> Vec<u64> {
        handles
            .iter()
            .map(|&h| pool.moved_revision(h).unwrap())
            .collect()
    };
    let options = MeshOptions::default();
    let mut mesh = MeshBuffers::new();
    build_meshes(&pool, &options, &mut mesh).unwrap();
    for _ in 0..3 {
        let before = numbers(&pool);
        stepper.advance(&mut pool, 1.0 / 60.0).unwrap();
        let after = numbers(&pool);
        assert_eq!(after[..2], before[..2], "sleeping cables did not move");
        assert!(
            after[2] != before[2] && after[3] != before[3],
            "awake ones did"
        );
        let stats = build_meshes(&pool, &options, &mut mesh).unwrap();
        assert_eq!((stats.kept, stats.rebuilt), (2, 2));
    }
    let before = numbers(&pool);
    pool.par_for_each_cable(|c| {
        if c.handle == handles[0] {
            c.pos[1].x += 0.5;
        }
    });
    let after = numbers(&pool);
    assert!(
        after.iter().zip(&before).all(|(a, b)| a != b),
        "every cable may have moved"
    );
    let stats = build_meshes(&pool, &options, &mut mesh).unwrap();
    // Only the moved sleeper is rebuilt: the others' particles are read
    // (their numbers changed) and found the same.
    assert_eq!((stats.kept, stats.rebuilt), (3, 1));
    assert!(mesh.cable(handles[0]).unwrap().written == mesh.build_count());
    assert_same(&mesh, &fresh(&pool, &options), 0);
}
