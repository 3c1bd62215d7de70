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
pub struct ScalarPieces {
    /// One kernel scratch per piece (at least as many as pieces).
    pub scratch: Vec<Scratch<f32>>,
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
    pub fn advance(
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
    #[cfg(feature = "internals")]
    pub fn pieces(&self) -> usize {
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
