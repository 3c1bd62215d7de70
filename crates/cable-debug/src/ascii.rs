//! Plain ASCII rendering: an orthographic xy view of every cable.

use cable_core::ParticlePool;
use glam::Vec2;

/// Options of [`render_ascii`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AsciiOptions {
    /// Columns of the picture (≥ 8).
    pub width: usize,
    /// Rows of the picture (≥ 4).
    pub height: usize,
    /// Height of a terminal cell over its width; 2 keeps circles round in
    /// most terminal fonts.
    pub cell_aspect: f32,
}

impl Default for AsciiOptions {
    fn default() -> Self {
        Self {
            width: 78,
            height: 24,
            cell_aspect: 2.0,
        }
    }
}

/// Draws every cable of `pool` seen along −z (x right, y up), fitted to the
/// cables' bounds: segments as `#`, pinned particles as `O`, and a last line
/// with the scale. Deterministic: the same pool gives the same string.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_debug::{AsciiOptions, render_ascii};
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 4.0, 4.0, 8)?)?;
/// let picture = render_ascii(&pool, &AsciiOptions::default());
/// assert!(picture.contains('O') && picture.contains('#'));
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[must_use]
pub fn render_ascii(pool: &ParticlePool, opts: &AsciiOptions) -> String {
    let w = opts.width.max(8);
    let h = opts.height.max(4);
    let mut lo = Vec2::splat(f32::INFINITY);
    let mut hi = Vec2::splat(f32::NEG_INFINITY);
    for handle in pool.handles() {
        for p in pool.positions(handle).into_iter().flatten() {
            if p.is_finite() {
                lo = lo.min(p.truncate());
                hi = hi.max(p.truncate());
            }
        }
    }
    if lo.x > hi.x || lo.x.is_nan() {
        return format!("{}\n(no cables)\n", " ".repeat(w));
    }
    // Metres per column and per row, keeping the cells' aspect ratio.
    let aspect = if opts.cell_aspect > 0.0 {
        opts.cell_aspect
    } else {
        2.0
    };
    let span = (hi - lo).max(Vec2::splat(1e-3));
    let per_col = (span.x / (w - 1) as f32).max(span.y / ((h - 1) as f32 * aspect));
    let per_row = per_col * aspect;
    let centre = (lo + hi) * 0.5;
    let to_cell = |p: Vec2| -> (f32, f32) {
        (
            (p.x - centre.x) / per_col + (w - 1) as f32 * 0.5,
            (centre.y - p.y) / per_row + (h - 1) as f32 * 0.5,
        )
    };
    let mut grid = vec![b' '; w * h];
    let mut plot = |x: f32, y: f32, ch: u8| {
        let (cx, cy) = (x.round(), y.round());
        if cx >= 0.0 && cy >= 0.0 && (cx as usize) < w && (cy as usize) < h {
            let cell = &mut grid[cy as usize * w + cx as usize];
            if *cell != b'O' {
                *cell = ch;
            }
        }
    };
    for handle in pool.handles() {
        let (Ok(pos), Ok(inv)) = (pool.positions(handle), pool.inv_masses(handle)) else {
            continue;
        };
        for seg in pos.windows(2) {
            if !(seg[0].is_finite() && seg[1].is_finite()) {
                continue;
            }
            let (a, b) = (to_cell(seg[0].truncate()), to_cell(seg[1].truncate()));
            let steps =
                ((b.0 - a.0).abs().max((b.1 - a.1).abs()).ceil() as usize).clamp(1, 4 * (w + h));
            for s in 0..=steps {
                let t = s as f32 / steps as f32;
                plot(a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t, b'#');
            }
        }
        for (p, &m) in pos.iter().zip(inv) {
            if m == 0.0 && p.is_finite() {
                let c = to_cell(p.truncate());
                plot(c.0, c.1, b'O');
            }
        }
    }
    let mut out = String::with_capacity((w + 1) * (h + 1) + 64);
    for row in grid.chunks(w) {
        out.push_str(String::from_utf8_lossy(row).trim_end());
        out.push('\n');
    }
    out.push_str(&format!(
        "x {:.2}..{:.2} m, y {:.2}..{:.2} m, one column = {:.3} m\n",
        lo.x, hi.x, lo.y, hi.y, per_col
    ));
    out
}
