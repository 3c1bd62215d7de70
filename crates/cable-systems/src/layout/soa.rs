//! The `Soa` layout: the one-lane kernel over the pool's own
//! structure-of-arrays columns. It runs the one-lane cables of a frame
//! (every cable of `Soa`, the leftovers of `Lanes8`) in parallel in pieces of about [`PAR_GRAIN`] particles,
//! each piece with a kernel scratch of its own.
//!
//! A piece is a run of consecutive cables in the order the layout hands
//! them over, cut by their particle counts alone, so the same cables meet
//! the same scratch every frame while the scene's structure stays: what a
//! scratch grows to (the direct solver's chain, the contact buffers)
//! depends on the scene, not on the threads. With one scratch per thread
//! instead, a thread grows its own the first time work stealing hands it
//! a longer cable than it has met, which can be any frame: a warmed-up
//! frame then allocates, now and then (tests/alloc.rs).

use cable_core::{CableMut, PAR_GRAIN};

use crate::kernel::Stages;
use crate::kernel::{self, Scratch};
use crate::params::SolverParams;

/// The scratch of each piece, and where the pieces end, kept from frame to
/// frame so that a warmed-up frame allocates nothing.
#[derive(Default)]
pub(crate) struct ScalarPieces {
    /// One kernel scratch per piece (at least as many as pieces).
    scratch: Vec<Scratch<f32>>,
    /// Per piece: the index one past its last view.
    ends: Vec<usize>,
}

impl Clone for ScalarPieces {
    /// Empty: scratch is rebuilt on use.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for ScalarPieces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScalarPieces")
            .field("scratch", &self.scratch.len())
            .field("pieces", &self.ends.len())
            .finish()
    }
}

impl ScalarPieces {
    /// Runs `n` substeps of every cable of `views` (`None`s skipped) in
    /// the one-lane kernel ([`kernel::advance_cable_with`]), in parallel
    /// over pieces of consecutive views of at least [`PAR_GRAIN`]
    /// particles (the last may hold fewer), split in halves by piece
    /// count: the split depends on the views alone.
    pub(crate) fn advance(
        &mut self,
        views: &mut [Option<CableMut<'_>>],
        params: &SolverParams,
        n: u32,
        stages: Stages,
        track: bool,
    ) {
        self.ends.clear();
        let mut rows = 0;
        for (k, c) in views.iter().enumerate() {
            rows += c.as_ref().map_or(0, |c| c.pos.len());
            if rows >= PAR_GRAIN {
                self.ends.push(k + 1);
                rows = 0;
            }
        }
        if rows > 0 {
            self.ends.push(views.len());
        }
        if self.scratch.len() < self.ends.len() {
            self.scratch.resize_with(self.ends.len(), Scratch::default);
        }
        let f = |c: &mut CableMut<'_>, s: &mut Scratch<f32>| {
            kernel::advance_cable_with(c, params, n, stages, track, s);
        };
        run(views, 0, &self.ends, &mut self.scratch, &f);
    }

    /// Pieces of the last frame.
    #[cfg(test)]
    fn pieces(&self) -> usize {
        self.ends.len()
    }
}

/// Runs `f` on the views of the pieces that end at `ends` (indices from
/// `base`, the index of `views[0]`), piece `i` with `scratch[i]`.
fn run<F>(
    views: &mut [Option<CableMut<'_>>],
    base: usize,
    ends: &[usize],
    scratch: &mut [Scratch<f32>],
    f: &F,
) where
    F: Fn(&mut CableMut<'_>, &mut Scratch<f32>) + Sync,
{
    match ends.len() {
        0 => {}
        1 => {
            let s = &mut scratch[0];
            for c in views.iter_mut().flatten() {
                f(c, s);
            }
        }
        len => {
            let mid = len / 2;
            let cut = ends[mid - 1] - base;
            let (va, vb) = views.split_at_mut(cut);
            let (ea, eb) = ends.split_at(mid);
            let (sa, sb) = scratch.split_at_mut(mid);
            rayon::join(
                || run(va, base, ea, sa, f),
                || run(vb, base + cut, eb, sb, f),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use cable_core::{CableDesc, PAR_GRAIN, ParticlePool};
    use glam::Vec3;

    use super::ScalarPieces;
    use crate::kernel::Stages;
    use crate::params::{Solver, SolverParams};

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
}
