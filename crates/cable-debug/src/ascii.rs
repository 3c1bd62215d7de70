//! Text rendering: an orthographic view of every cable and collider drawn
//! with Unicode braille cells (2 × 4 dots per character) or plain ASCII.
//!
//! The output is deterministic (the same frame and options give the same
//! string), so it can be compared in snapshot tests and pasted into bug
//! reports.

use cable_core::ParticlePool;
use glam::Vec2;

use crate::RenderError;
use crate::canvas::{Canvas, Pen, clip_segment, draw_frame};
use crate::frame::Frame;
use crate::view::{Fit, Projection, ViewDir, format_metres, nice_length};

/// How lines are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AsciiMode {
    /// Unicode braille cells: 2 × 4 dots per character. The default.
    #[default]
    Braille,
    /// Plain ASCII: one line character (`- | / \`) per cell, colliders as `.`.
    Plain,
}

/// Options of the text views.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AsciiOptions {
    /// Columns of the picture (8..=2000).
    pub width: usize,
    /// Rows of the picture, not counting the scale line (2..=2000). Width
    /// and height are the most used: the picture keeps only the rows and
    /// columns the framed rectangle needs, with no blank bands.
    pub height: usize,
    /// Height of a terminal cell over its width (0.25..=8); 2 keeps circles
    /// round in most terminal fonts.
    pub cell_aspect: f32,
    /// Braille dots or plain ASCII.
    pub mode: AsciiMode,
    /// Which way the camera looks.
    pub view: ViewDir,
    /// What the picture frames.
    pub fit: Fit,
    /// Print a last line with a scale bar and the view's axes.
    pub scale: bool,
}

impl Default for AsciiOptions {
    fn default() -> Self {
        Self {
            width: 78,
            height: 22,
            cell_aspect: 2.0,
            mode: AsciiMode::Braille,
            view: ViewDir::Xy,
            fit: Fit::Bounds,
            scale: true,
        }
    }
}

impl AsciiOptions {
    /// Checks the ranges documented on each field.
    ///
    /// # Errors
    /// [`RenderError::Option`] naming the field.
    pub fn validate(&self) -> Result<(), RenderError> {
        if !(8..=2000).contains(&self.width) {
            return Err(RenderError::option(
                "width",
                format!("must be between 8 and 2000 columns, got {}", self.width),
            ));
        }
        if !(2..=2000).contains(&self.height) {
            return Err(RenderError::option(
                "height",
                format!("must be between 2 and 2000 rows, got {}", self.height),
            ));
        }
        if !(self.cell_aspect.is_finite() && (0.25..=8.0).contains(&self.cell_aspect)) {
            return Err(RenderError::option(
                "cell_aspect",
                format!("must be between 0.25 and 8, got {}", self.cell_aspect),
            ));
        }
        Ok(())
    }
}

/// Draws every cable of `pool` (see [`render_frame_ascii`]).
///
/// # Errors
/// Invalid options.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_debug::{AsciiMode, AsciiOptions, render_ascii};
/// use glam::Vec3;
///
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 4.0, 4.0, 8)?)?;
/// let opts = AsciiOptions { width: 20, height: 3, mode: AsciiMode::Plain, ..AsciiOptions::default() };
/// let picture = render_ascii(&pool, &opts)?;
/// let line = picture.lines().find(|l| l.contains('O')).unwrap_or_default();
/// assert!(line.starts_with("O--") && line.ends_with("--O"), "{picture}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render_ascii(pool: &ParticlePool, opts: &AsciiOptions) -> Result<String, RenderError> {
    render_frame_ascii(&Frame::capture(pool, 0.0), opts)
}

/// Draws a frame as text: `opts.height` lines of `opts.width` columns at
/// most (trailing blanks trimmed), then the scale line when asked. Cables
/// are connected lines, pinned particles `●` (`O` in plain mode), colliders
/// lighter dotted outlines (`.` in plain mode). The view keeps the cells'
/// aspect ratio, so a circle stays round. Non-finite particles are skipped
/// and counted on the scale line.
///
/// # Errors
/// Invalid options or shapes.
pub fn render_frame_ascii(frame: &Frame, opts: &AsciiOptions) -> Result<String, RenderError> {
    opts.validate()?;
    let proj = Projection::new(frame, opts.view, opts.fit)?;
    let mut canvas = AsciiCanvas::new(&proj, opts);
    draw_frame(&mut canvas, frame, &proj);
    let mut out = canvas.to_text();
    if opts.scale {
        out.push_str(&canvas.scale_line(opts.view));
        let bad = frame.non_finite_count();
        if bad > 0 {
            out.push_str(&format!("  ({bad} non-finite particles not drawn)"));
        }
        out.push('\n');
    }
    Ok(out)
}

/// A character grid that implements [`Canvas`].
#[derive(Debug, Clone)]
pub struct AsciiCanvas {
    cols: usize,
    rows: usize,
    mode: AsciiMode,
    /// Sub-pixels per cell: 2 × 4 (braille) or 1 × 1.
    sub: (usize, usize),
    /// View metres of the picture's left edge and top edge.
    left: f32,
    top: f32,
    /// Metres per column and per row.
    per_col: f32,
    per_row: f32,
    cable_dots: Vec<u8>,
    collider_dots: Vec<u8>,
    plain: Vec<(char, u8)>,
    marks: Vec<bool>,
    collider_tick: usize,
}

/// Braille dot bit of sub-pixel (x, y) of a cell, x in 0..2, y in 0..4.
const BRAILLE_BITS: [[u8; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];

impl AsciiCanvas {
    /// An empty grid showing `proj`'s rectangle, letterboxed to keep the
    /// cells' aspect ratio. `opts` should be valid ([`AsciiOptions::validate`]);
    /// out-of-range sizes are clamped.
    #[must_use]
    pub fn new(proj: &Projection, opts: &AsciiOptions) -> Self {
        let cols = opts.width.clamp(1, 2000);
        let rows = opts.height.clamp(1, 2000);
        let aspect = if opts.cell_aspect.is_finite() && opts.cell_aspect > 0.0 {
            opts.cell_aspect
        } else {
            2.0
        };
        let span = (proj.hi - proj.lo).max(Vec2::splat(1.0e-6));
        let per_col = (span.x / cols as f32).max(span.y / (rows as f32 * aspect));
        let per_row = per_col * aspect;
        // The picture takes only the rows and columns the framed rectangle
        // needs: no blank bands.
        let cols = ((span.x / per_col).ceil() as usize).clamp(1, cols);
        let rows = ((span.y / per_row).ceil() as usize).clamp(1, rows);
        let centre = (proj.lo + proj.hi) * 0.5;
        let sub = match opts.mode {
            AsciiMode::Braille => (2, 4),
            AsciiMode::Plain => (1, 1),
        };
        Self {
            cols,
            rows,
            mode: opts.mode,
            sub,
            left: centre.x - cols as f32 * per_col * 0.5,
            top: centre.y + rows as f32 * per_row * 0.5,
            per_col,
            per_row,
            cable_dots: vec![0; cols * rows],
            collider_dots: vec![0; cols * rows],
            plain: vec![(' ', 0); cols * rows],
            marks: vec![false; cols * rows],
            collider_tick: 0,
        }
    }

    /// Metres per column.
    #[must_use]
    pub fn metres_per_column(&self) -> f32 {
        self.per_col
    }

    /// The cell (column, row) that shows view point `p`, if inside.
    #[must_use]
    pub fn cell_of(&self, p: Vec2) -> Option<(usize, usize)> {
        let s = self.to_sub(p);
        let (x, y) = (s.x.floor(), s.y.floor());
        let (w, h) = self.sub_size();
        (x >= 0.0 && y >= 0.0 && x < w && y < h)
            .then(|| (x as usize / self.sub.0, y as usize / self.sub.1))
    }

    fn sub_size(&self) -> (f32, f32) {
        (
            (self.cols * self.sub.0) as f32,
            (self.rows * self.sub.1) as f32,
        )
    }

    fn to_sub(&self, p: Vec2) -> Vec2 {
        Vec2::new(
            (p.x - self.left) / self.per_col * self.sub.0 as f32,
            (self.top - p.y) / self.per_row * self.sub.1 as f32,
        )
    }

    fn plot(&mut self, s: Vec2, pen: Pen, ch: char) {
        let (w, h) = self.sub_size();
        let x = s.x.floor().clamp(0.0, w - 1.0) as usize;
        let y = s.y.floor().clamp(0.0, h - 1.0) as usize;
        let cell = (y / self.sub.1) * self.cols + x / self.sub.0;
        match self.mode {
            AsciiMode::Braille => {
                let bit = BRAILLE_BITS[x % 2][y % 4];
                match pen {
                    Pen::Cable { .. } => self.cable_dots[cell] |= bit,
                    Pen::Collider => self.collider_dots[cell] |= bit,
                    Pen::Pinned => self.marks[cell] = true,
                }
            }
            AsciiMode::Plain => {
                let prio = match pen {
                    Pen::Collider => 1,
                    Pen::Cable { .. } => 2,
                    Pen::Pinned => {
                        self.marks[cell] = true;
                        return;
                    }
                };
                if self.plain[cell].1 <= prio {
                    self.plain[cell] = (ch, prio);
                }
            }
        }
    }

    /// The grid as text: one line per row, trailing blanks trimmed.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity((self.cols * 3 + 1) * self.rows);
        for r in 0..self.rows {
            let mut line = String::with_capacity(self.cols * 3);
            for c in 0..self.cols {
                let i = r * self.cols + c;
                let ch = match (self.mode, self.marks[i]) {
                    (AsciiMode::Braille, true) => '●',
                    (AsciiMode::Plain, true) => 'O',
                    (AsciiMode::Braille, false) => {
                        let bits = self.cable_dots[i] | self.collider_dots[i];
                        if bits == 0 {
                            ' '
                        } else {
                            // Braille patterns start at U+2800; bits < 256.
                            char::from_u32(0x2800 + u32::from(bits)).unwrap_or('?')
                        }
                    }
                    (AsciiMode::Plain, false) => self.plain[i].0,
                };
                line.push(ch);
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// A scale bar about a fifth of the width long, and the view's axes.
    #[must_use]
    pub fn scale_line(&self, view: ViewDir) -> String {
        let len = nice_length(self.per_col * self.cols as f32 / 5.0);
        let n = ((len / self.per_col).round() as usize).clamp(1, self.cols);
        let (l, m, r) = match self.mode {
            AsciiMode::Braille => ('├', '─', '┤'),
            AsciiMode::Plain => ('|', '-', '|'),
        };
        let mut s = String::new();
        s.push(l);
        s.extend(std::iter::repeat_n(m, n.saturating_sub(1)));
        s.push(r);
        let (h, v) = view.axis_names();
        s.push_str(&format!(
            " {}   view {} ({h} right, {v} up)",
            format_metres(len),
            view.label()
        ));
        s
    }
}

impl Canvas for AsciiCanvas {
    fn draw_line(&mut self, a: Vec2, b: Vec2, pen: Pen) {
        let ch = if self.mode == AsciiMode::Plain {
            let d = b - a;
            match pen {
                Pen::Collider => '.',
                Pen::Pinned => 'O',
                Pen::Cable { .. } if d.y.abs() <= 0.414 * d.x.abs() => '-',
                Pen::Cable { .. } if d.x.abs() <= 0.414 * d.y.abs() => '|',
                Pen::Cable { .. } if d.x * d.y > 0.0 => '/',
                Pen::Cable { .. } => '\\',
            }
        } else {
            ' '
        };
        let (w, h) = self.sub_size();
        let Some((sa, sb)) =
            clip_segment(self.to_sub(a), self.to_sub(b), Vec2::ZERO, Vec2::new(w, h))
        else {
            return;
        };
        let steps = (sb - sa).abs().max_element().ceil().max(1.0) as usize;
        for i in 0..=steps {
            let s = sa + (sb - sa) * (i as f32 / steps as f32);
            if pen == Pen::Collider && self.mode == AsciiMode::Braille {
                // Dotted: every other dot, so outlines read lighter than cables.
                self.collider_tick += 1;
                if self.collider_tick.is_multiple_of(2) {
                    continue;
                }
            }
            self.plot(s, pen, ch);
        }
    }
}
