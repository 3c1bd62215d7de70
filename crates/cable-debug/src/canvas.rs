//! The [`Canvas`] trait that every debug view draws on, and [`draw_frame`],
//! the one place that decides what a frame looks like.

use glam::Vec2;

use crate::frame::Frame;
use crate::shape::Outline;
use crate::view::Projection;

/// What a stroke depicts; each canvas picks its own look for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pen {
    /// A segment of cable `index` (in frame order) of the given radius, metres.
    Cable {
        /// Index of the cable in [`Frame::cables`].
        index: usize,
        /// Cable radius, metres.
        radius: f32,
    },
    /// A collider outline.
    Collider,
    /// A pinned particle.
    Pinned,
}

/// A surface in view coordinates (metres, x right, y up) that can draw
/// lines. Only [`Canvas::draw_line`] is required; the other methods have
/// defaults built on it that a canvas may override with something better
/// (an SVG `<circle>`, a marker character).
///
/// # Example
/// A canvas that measures the ink of a frame:
/// ```
/// use cable_debug::{Canvas, Frame, CableFrame, Pen, Projection, ViewDir, Fit, draw_frame};
/// use glam::{Vec2, Vec3};
///
/// struct Ink(f32);
/// impl Canvas for Ink {
///     fn draw_line(&mut self, a: Vec2, b: Vec2, pen: Pen) {
///         if matches!(pen, Pen::Cable { .. }) {
///             self.0 += a.distance(b);
///         }
///     }
/// }
/// let frame = Frame {
///     cables: vec![CableFrame::from_points(vec![Vec3::ZERO, Vec3::X * 3.0], true, true, 0.05)],
///     ..Frame::default()
/// };
/// let proj = Projection::new(&frame, ViewDir::Xy, Fit::Bounds)?;
/// let mut ink = Ink(0.0);
/// draw_frame(&mut ink, &frame, &proj);
/// assert!((ink.0 - 3.0).abs() < 1e-6);
/// # Ok::<(), cable_debug::RenderError>(())
/// ```
pub trait Canvas {
    /// Draws a straight line from `a` to `b` (view metres).
    fn draw_line(&mut self, a: Vec2, b: Vec2, pen: Pen);

    /// Draws a connected line through `points`.
    fn draw_polyline(&mut self, points: &[Vec2], pen: Pen) {
        for w in points.windows(2) {
            self.draw_line(w[0], w[1], pen);
        }
    }

    /// Draws the outline of a circle (as a 48-gon by default).
    fn draw_circle(&mut self, center: Vec2, radius: f32, pen: Pen) {
        const N: usize = 48;
        let pts: Vec<Vec2> = (0..=N)
            .map(|i| {
                let t = std::f32::consts::TAU * (i % N) as f32 / N as f32;
                center + Vec2::from_angle(t) * radius
            })
            .collect();
        self.draw_polyline(&pts, pen);
    }

    /// Marks a point (a pinned particle); by default a zero-length line.
    fn draw_dot(&mut self, at: Vec2, pen: Pen) {
        self.draw_line(at, at, pen);
    }
}

/// Draws `frame` seen through `proj` onto `canvas`: collider outlines first,
/// then every cable as polylines (split where a particle is not finite),
/// then the pinned particles.
pub fn draw_frame(canvas: &mut impl Canvas, frame: &Frame, proj: &Projection) {
    for shape in &frame.shapes {
        for o in shape.outline(proj) {
            match o {
                Outline::Circle { center, radius } => {
                    canvas.draw_circle(center, radius, Pen::Collider);
                }
                Outline::Polyline(p) => canvas.draw_polyline(&p, Pen::Collider),
            }
        }
    }
    let mut run = Vec::new();
    for (index, c) in frame.cables.iter().enumerate() {
        let pen = Pen::Cable {
            index,
            radius: c.radius,
        };
        for p in c.drawn_points() {
            if p.is_finite() {
                run.push(proj.project(p));
            } else {
                if run.len() > 1 {
                    canvas.draw_polyline(&run, pen);
                }
                run.clear();
            }
        }
        if run.len() > 1 {
            canvas.draw_polyline(&run, pen);
        }
        run.clear();
    }
    for c in &frame.cables {
        for (p, &pinned) in c.points.iter().zip(&c.pinned) {
            if pinned && p.is_finite() {
                canvas.draw_dot(proj.project(*p), Pen::Pinned);
            }
        }
    }
}

/// Cuts the segment `a`–`b` to the rectangle `lo..=hi` (Liang–Barsky);
/// `None` when nothing of it lies inside.
#[must_use]
pub fn clip_segment(a: Vec2, b: Vec2, lo: Vec2, hi: Vec2) -> Option<(Vec2, Vec2)> {
    if !(a.is_finite() && b.is_finite()) {
        return None;
    }
    let d = b - a;
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (p, q) in [
        (-d.x, a.x - lo.x),
        (d.x, hi.x - a.x),
        (-d.y, a.y - lo.y),
        (d.y, hi.y - a.y),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    (t0 <= t1).then(|| (a + d * t0, a + d * t1))
}
