//! A warmed-up step allocates nothing, in every layout: the layouts keep
//! their buffers between frames. Counted with dhat's global allocator in
//! testing mode (its own file: it sets `#[global_allocator]`), which
//! counts every allocation of every thread of the process.
//!
//! Run without libtest's harness (`harness = false` in Cargo.toml, so
//! this file has its own `main`): the harness's main thread allocates
//! right after it spawns the test's thread (its record of the running
//! test, its first wait for the result), and on a busy machine it got to
//! that only while the first layout's warmed-up frames were counted
//! ("layout aos, GaussSeidel, tension false: 4 allocations", every run
//! with three other busy threads on two cores). Nothing else runs here
//! but this test and its thread pool.
//!
//! The one-lane cables (`Soa`, and `Lanes8`'s leftovers) run with kernel
//! scratch the layout keeps, one per piece of cables: with one per
//! thread, a thread grew its own the first time work stealing handed it a
//! longer cable than it had met, which could be a counted frame ("layout
//! lanes8, Direct, tension true: 2 allocations", 17 in 1,000 runs).

use cable::core::{CableDesc, Collider, ParticlePool};
use cable::systems::{Layout, Solver, SolverParams, Stepper};
use glam::Vec3;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Mixed cables: lane groups, a partial group, scalar leftovers, a long
/// cable, bending and compliance, tethers (the default), pins and masses,
/// bending stiffness, and breakable cables (strong enough not to break:
/// breaking itself edits the pool). Winches are left out: paying out grows
/// the pool's columns, which allocates now and then, amortised.
fn scene() -> ParticlePool {
    cables(false)
}

/// [`scene`]'s cables, stacked 0.3 m apart (`on_ground` false), or lying
/// side by side on the ground, straight between their pinned ends.
fn cables(on_ground: bool) -> ParticlePool {
    let mut pool = ParticlePool::new();
    for k in 0..43 {
        let y = k as f32 * 0.3;
        let segs = if k % 10 == 9 { 70 } else { 16 };
        let (a, b, len) = if on_ground {
            let z = k as f32 * 0.2;
            (Vec3::new(0.0, 0.05, z), Vec3::new(5.0, 0.05, z), 5.0)
        } else {
            (Vec3::new(0.0, y, 0.0), Vec3::new(5.0, y, 0.0), 6.0)
        };
        let mut desc = CableDesc::line(a, b, len, segs).expect("valid line");
        desc.params.stiffness = k % 3 == 0;
        desc.params.compliance = if k % 4 == 0 { 1.0e-3 } else { 0.0 };
        desc.params.bend_stiffness = if k % 5 == 1 { 0.5 } else { 0.0 };
        desc.params.break_tension = (k % 6 == 2).then_some(1.0e6);
        if k % 7 == 3 {
            desc.pins = vec![4];
            desc.mass_per_length = Some(0.3);
        }
        if on_ground {
            desc.params.friction = Some(0.5);
        }
        pool.add_cable(&desc).expect("within budget");
    }
    pool
}

/// [`scene`]'s cables lying on the ground from the first substep to the
/// last (a steady set of contacts), with friction, contact forces measured
/// and contacts tracked.
fn on_colliders() -> ParticlePool {
    let mut pool = cables(true);
    let c = pool.colliders_mut();
    c.add(Collider::plane(Vec3::Y, 0.0).expect("valid"));
    c.set_measure_forces(true);
    c.set_track_contacts(true);
    pool
}

/// The test (this file's `main` runs it; `--list` lists it, for test
/// runners that ask).
fn main() {
    const NAME: &str = "a_warmed_up_step_allocates_nothing_in_any_layout";
    if std::env::args().any(|a| a == "--list") {
        println!("{NAME}: test");
        return;
    }
    a_warmed_up_step_allocates_nothing_in_any_layout();
    println!("test {NAME} ... ok");
}

fn a_warmed_up_step_allocates_nothing_in_any_layout() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let workers = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("threads");
    // Every worker started (thread start-up allocates, concurrently).
    workers.broadcast(|_| ());
    for (layout, solver, track) in Layout::ALL
        .into_iter()
        .flat_map(|l| [(l, Solver::GaussSeidel, false), (l, Solver::Direct, true)])
    {
        workers.install(|| {
            // With tension tracked, the cables also lie on colliders that
            // measure forces and track contacts from the first frame.
            let mut pool = if track { on_colliders() } else { scene() };
            let first = pool.handles().next().expect("a cable");
            let params = SolverParams {
                solver,
                ..SolverParams::default()
            };
            let mut stepper = Stepper::with_layout(params, layout).expect("valid params");
            stepper.set_track_tension(track);
            for _ in 0..3 {
                stepper.advance(&mut pool, 1.0 / 30.0).expect("valid dt");
            }
            let before = dhat::HeapStats::get();
            assert!(before.total_blocks > 0, "the counting allocator counts");
            for frame in 0..10 {
                if frame == 5 {
                    // A change the layout must pick up: it re-gathers, in place.
                    pool.positions_mut(first).expect("live")[3].y += 0.1;
                }
                stepper.advance(&mut pool, 1.0 / 30.0).expect("valid dt");
            }
            let after = dhat::HeapStats::get();
            assert_eq!(
                after.total_blocks,
                before.total_blocks,
                "layout {layout}, {solver:?}, tension {track}: {} allocations in 10 warmed-up frames",
                after.total_blocks - before.total_blocks
            );
            assert!(pool.all_finite());
            assert_eq!(stepper.substeps_run(), 26);
            if track {
                // The contacts ran: every cable touches the wall.
                assert!(stepper.touching().len() >= 40, "{:?}", stepper.touching());
            }
        });
    }
}
