use cable_core::{CableDesc, PAR_GRAIN, ParticlePool};
use glam::Vec3;

use cable_systems::kernel::Stages;
use cable_systems::layout::soa::ScalarPieces;
use cable_systems::params::{Solver, SolverParams};

/// The pieces follow the particle counts (cables of 1,001 particles go
/// 5 to a piece: 4 hold 4,004 < 4,096), and a piece's scratch is the
/// same one every frame, whatever thread runs it: its capacity does
/// not change after the first frame.
#[test]
fn pieces_are_cut_by_particles_and_keep_their_scratch() {
    let mut pool = ParticlePool::new();
    for k in 0..23 {
        let y = k as f32;
        let d = CableDesc::line(Vec3::new(0.0, y, 0.0), Vec3::new(5.0, y, 0.0), 5.0, 1000)
            .expect("valid");
        pool.add_cable(&d).expect("within budget");
    }
    let params = SolverParams {
        solver: Solver::Direct,
        ..SolverParams::default()
    };
    let mut pieces = ScalarPieces::default();
    let mut caps = Vec::new();
    for frame in 0..4 {
        let mut views: Vec<_> = pool.columns_mut().into_cables().map(Some).collect();
        pieces.advance(&mut views, &params, 1, Stages::ALL, false);
        let now: Vec<usize> = pieces.scratch.iter().map(|s| s.newton.capacity()).collect();
        if frame > 0 {
            assert_eq!(now, caps, "frame {frame}: a piece's scratch grew again");
        }
        caps = now;
    }
    // 23 cables of 1,001 particles: 5 to a piece (5,005 ≥ 4,096), so
    // 4 full pieces and one of 3.
    const _: () = assert!(5 * 1001 >= PAR_GRAIN && 4 * 1001 < PAR_GRAIN);
    assert_eq!(pieces.pieces(), 5);
    assert!(caps.iter().all(|&c| c >= 1000), "{caps:?}");
    assert!(pool.all_finite());
}
