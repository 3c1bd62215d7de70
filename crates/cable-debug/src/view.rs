//! Orthographic views: which way the camera looks and what it frames.
//!
//! A view maps a world point `p` (metres) to view coordinates
//! `(p · right, p · up)`, still in metres; the renderers then scale those to
//! characters or SVG units.

use glam::{Vec2, Vec3};

use crate::RenderError;
use crate::frame::Frame;
use crate::shape::{Outline, Shape, box_corners};

/// The direction the camera looks along, named by the world axes that point
/// right and up on the picture.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum ViewDir {
    /// Front view: x to the right, y up (looking along −z). The default.
    #[default]
    Xy,
    /// x to the right, z up (looking along +y, from below).
    Xz,
    /// z to the right, y up (looking along +x).
    Zy,
    /// Looking along the given direction; world +y is up on the picture
    /// (world +z when looking straight up or down).
    Along(Vec3),
}

impl ViewDir {
    /// The world directions that point right and up on the picture.
    ///
    /// # Errors
    /// [`RenderError::Option`] (`view`) for an `Along` direction that is zero
    /// or not finite.
    ///
    /// # Example
    /// ```
    /// use cable_debug::ViewDir;
    /// use glam::Vec3;
    /// assert_eq!(ViewDir::Xy.basis()?, (Vec3::X, Vec3::Y));
    /// let (right, up) = ViewDir::Along(Vec3::NEG_Z).basis()?;
    /// assert!(right.abs_diff_eq(Vec3::X, 1e-6) && up.abs_diff_eq(Vec3::Y, 1e-6));
    /// assert!(ViewDir::Along(Vec3::ZERO).basis().is_err());
    /// # Ok::<(), cable_debug::RenderError>(())
    /// ```
    pub fn basis(self) -> Result<(Vec3, Vec3), RenderError> {
        Ok(match self {
            ViewDir::Xy => (Vec3::X, Vec3::Y),
            ViewDir::Xz => (Vec3::X, Vec3::Z),
            ViewDir::Zy => (Vec3::Z, Vec3::Y),
            ViewDir::Along(d) => {
                let fwd = d.try_normalize().filter(|f| f.is_finite()).ok_or_else(|| {
                    RenderError::option(
                        "view",
                        format!("must be a finite non-zero direction, got {d}"),
                    )
                })?;
                let world_up = if fwd.y.abs() > 0.999 {
                    Vec3::Z
                } else {
                    Vec3::Y
                };
                let right = fwd.cross(world_up).normalize();
                (right, right.cross(fwd))
            }
        })
    }

    /// A short name for captions: `xy`, `xz`, `zy` or `along (x, y, z)`.
    #[must_use]
    pub fn label(self) -> String {
        match self {
            ViewDir::Xy => "xy".into(),
            ViewDir::Xz => "xz".into(),
            ViewDir::Zy => "zy".into(),
            ViewDir::Along(d) => format!("along ({:.2}, {:.2}, {:.2})", d.x, d.y, d.z),
        }
    }

    /// Names of the axes pointing right and up, for captions (`x`, `y`, or
    /// `h`, `v` for an arbitrary direction).
    #[must_use]
    pub fn axis_names(self) -> (&'static str, &'static str) {
        match self {
            ViewDir::Xy => ("x", "y"),
            ViewDir::Xz => ("x", "z"),
            ViewDir::Zy => ("z", "y"),
            ViewDir::Along(_) => ("h", "v"),
        }
    }
}

/// What the picture frames.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Fit {
    /// Every finite particle and every bounded collider, with a small margin.
    /// The default.
    #[default]
    Bounds,
    /// The projection of this world box (metres), whatever the frame holds;
    /// what lies outside is clipped.
    Box {
        /// Lowest corner, metres.
        min: Vec3,
        /// Highest corner, metres.
        max: Vec3,
    },
}

/// A resolved view: the projection basis and the framed rectangle in view
/// coordinates (metres).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    /// World direction pointing right on the picture.
    pub right: Vec3,
    /// World direction pointing up on the picture.
    pub up: Vec3,
    /// Lowest corner of the framed rectangle, view metres.
    pub lo: Vec2,
    /// Highest corner of the framed rectangle, view metres.
    pub hi: Vec2,
    /// Depth (along `right × up`, towards the viewer) of the middle of the
    /// framed content, metres; planes are drawn where they cross it.
    pub depth: f32,
}

impl Projection {
    /// Resolves `dir` and `fit` for `frame`.
    ///
    /// # Errors
    /// A bad direction, a non-finite or empty fit box, or an invalid shape of
    /// the frame.
    pub fn new(frame: &Frame, dir: ViewDir, fit: Fit) -> Result<Self, RenderError> {
        Self::for_frames(std::slice::from_ref(frame), dir, fit)
    }

    /// Resolves `dir` and `fit` for all of `frames` at once (an animation:
    /// one view that holds every frame).
    ///
    /// # Errors
    /// A bad direction, a non-finite or empty fit box, or an invalid shape of
    /// a frame.
    pub fn for_frames<'a>(
        frames: impl IntoIterator<Item = &'a Frame>,
        dir: ViewDir,
        fit: Fit,
    ) -> Result<Self, RenderError> {
        let frames: Vec<&Frame> = frames.into_iter().collect();
        let (right, up) = dir.basis()?;
        let toward = right.cross(up);
        frames.iter().try_for_each(|f| f.validate())?;
        let points = || {
            frames
                .iter()
                .flat_map(|f| f.cables.iter().flat_map(|c| &c.points))
                .filter(|p| p.is_finite())
        };
        let shapes = || frames.iter().flat_map(|f| &f.shapes);
        let mut me = Self {
            right,
            up,
            lo: Vec2::ZERO,
            hi: Vec2::ZERO,
            depth: 0.0,
        };
        let (mut lo, mut hi, depth) = match fit {
            Fit::Box { min, max } => {
                if !(min.is_finite() && max.is_finite()) || min.cmpgt(max).any() {
                    return Err(RenderError::option(
                        "fit",
                        format!("the box must be finite with min ≤ max, got {min}..{max}"),
                    ));
                }
                let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
                for i in 0..8 {
                    let c = Vec3::new(
                        if i & 1 == 0 { min.x } else { max.x },
                        if i & 2 == 0 { min.y } else { max.y },
                        if i & 4 == 0 { min.z } else { max.z },
                    );
                    let p = me.project(c);
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
                (lo, hi, ((min + max) * 0.5).dot(toward))
            }
            Fit::Bounds => {
                let (mut lo3, mut hi3) =
                    (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
                for p in points() {
                    lo3 = lo3.min(*p);
                    hi3 = hi3.max(*p);
                }
                for s in shapes() {
                    if let Some((a, b)) = s.world_bounds() {
                        lo3 = lo3.min(a);
                        hi3 = hi3.max(b);
                    }
                }
                if lo3.x > hi3.x {
                    (Vec2::splat(-1.0), Vec2::splat(1.0), 0.0)
                } else {
                    let (mut lo, mut hi) =
                        (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
                    for p in points() {
                        lo = lo.min(me.project(*p));
                        hi = hi.max(me.project(*p));
                    }
                    for s in shapes() {
                        if let Some((a, b)) = s.view_bounds(&me) {
                            lo = lo.min(a);
                            hi = hi.max(b);
                        }
                    }
                    (lo, hi, ((lo3 + hi3) * 0.5).dot(toward))
                }
            }
        };
        // Keep a minimum extent so a single point or a straight line still
        // gets a sensible scale, then a 4 % margin on every side.
        let span = (hi - lo).max_element().max(1.0e-3);
        let min_extent = Vec2::splat(span * 0.05);
        let centre = (lo + hi) * 0.5;
        let half = ((hi - lo) * 0.5).max(min_extent);
        lo = centre - half;
        hi = centre + half;
        if matches!(fit, Fit::Bounds) {
            let margin = span * 0.04;
            lo -= Vec2::splat(margin);
            hi += Vec2::splat(margin);
        }
        me.lo = lo;
        me.hi = hi;
        me.depth = depth;
        Ok(me)
    }

    /// View coordinates (metres) of a world point.
    #[inline]
    #[must_use]
    pub fn project(&self, p: Vec3) -> Vec2 {
        Vec2::new(p.dot(self.right), p.dot(self.up))
    }

    /// The world direction towards the viewer (`right × up`).
    #[inline]
    #[must_use]
    pub fn toward_viewer(&self) -> Vec3 {
        self.right.cross(self.up)
    }
}

/// A "nice" length near `target` (1, 2 or 5 × 10ⁿ metres), for scale bars
/// and axis ticks.
///
/// # Example
/// ```
/// assert_eq!(cable_debug::view::nice_length(3.4), 2.0);
/// assert_eq!(cable_debug::view::nice_length(0.08), 0.05);
/// ```
#[must_use]
pub fn nice_length(target: f32) -> f32 {
    if !(target.is_finite() && target > 0.0) {
        return 1.0;
    }
    // In f64 with an integer power, so 0.05 comes out as the f32 nearest 0.05.
    let t = f64::from(target);
    let base = 10f64.powi(t.log10().floor() as i32);
    let m = t / base;
    let nice = if m < 2.0 {
        1.0
    } else if m < 5.0 {
        2.0
    } else {
        5.0
    };
    (nice * base) as f32
}

/// Formats a length in metres compactly: `2 m`, `0.5 m`, `20 m`, `1e-4 m`.
#[must_use]
pub fn format_metres(v: f32) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0 m".into()
    } else if (0.001..100_000.0).contains(&a) {
        let s = format!("{v:.3}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        format!("{s} m")
    } else {
        format!("{v:e} m")
    }
}

/// How shapes look through a projection (here, not in `shape`, so that
/// shapes stay plain geometry: `view` depends on `shape` and `frame`,
/// neither depends on `view`).
impl Shape {
    /// Bounds of the projected outline in view metres, `None` for a plane.
    #[must_use]
    pub fn view_bounds(&self, proj: &Projection) -> Option<(Vec2, Vec2)> {
        match *self {
            Shape::Sphere { center, radius } => {
                let c = proj.project(center);
                Some((c - radius, c + radius))
            }
            Shape::Capsule { a, b, radius } => {
                let (a, b) = (proj.project(a), proj.project(b));
                Some((a.min(b) - radius, a.max(b) + radius))
            }
            Shape::Plane { .. } => None,
            Shape::Box {
                center,
                half_extents,
                rotation,
            } => {
                let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
                for c in box_corners(center, half_extents, rotation) {
                    lo = lo.min(proj.project(c));
                    hi = hi.max(proj.project(c));
                }
                Some((lo, hi))
            }
        }
    }

    /// The outline of the shape seen through `proj`, in view metres:
    /// a sphere is a circle, a capsule a stadium, a box its twelve edges and
    /// a plane the line where it crosses the view's middle depth (with short
    /// ticks on the solid side), cut to the framed rectangle. A plane facing
    /// the viewer has no such line and draws nothing.
    #[must_use]
    pub fn outline(&self, proj: &Projection) -> Vec<Outline> {
        match *self {
            Shape::Sphere { center, radius } => vec![Outline::Circle {
                center: proj.project(center),
                radius,
            }],
            Shape::Capsule { a, b, radius } => {
                let (a, b) = (proj.project(a), proj.project(b));
                let Some(dir) = (b - a).try_normalize() else {
                    return vec![Outline::Circle { center: a, radius }];
                };
                let n = dir.perp();
                let mut pts = Vec::with_capacity(2 * ARC + 3);
                // Half circle around b from +n through +dir to -n, then around a.
                for (c, from) in [(b, n), (a, -n)] {
                    for i in 0..=ARC {
                        let t = std::f32::consts::PI * i as f32 / ARC as f32;
                        let (s, co) = t.sin_cos();
                        let toward = if from == n { dir } else { -dir };
                        pts.push(c + (from * co + toward * s) * radius);
                    }
                }
                pts.push(pts[0]);
                vec![Outline::Polyline(pts)]
            }
            Shape::Box {
                center,
                half_extents,
                rotation,
            } => {
                let c = box_corners(center, half_extents, rotation).map(|c| proj.project(c));
                let mut out = Vec::with_capacity(12);
                for i in 0..8usize {
                    for bit in [1usize, 2, 4] {
                        if i & bit == 0 {
                            out.push(Outline::Polyline(vec![c[i], c[i | bit]]));
                        }
                    }
                }
                out
            }
            Shape::Plane { normal, offset } => plane_trace(normal, offset, proj),
        }
    }
}

/// Points on each half circle of a capsule outline.
const ARC: usize = 16;

fn plane_trace(normal: Vec3, offset: f32, proj: &Projection) -> Vec<Outline> {
    let len = normal.length();
    let (n, off) = (normal / len, offset);
    // Points right·x + up·y + toward·depth with dot(n, p) = off.
    let n2 = Vec2::new(n.dot(proj.right), n.dot(proj.up));
    let k = off - n.dot(proj.toward_viewer()) * proj.depth;
    let m = n2.length();
    if m < 1.0e-4 {
        return Vec::new();
    }
    let n2u = n2 / m;
    let centre = (proj.lo + proj.hi) * 0.5;
    // The point of the line nearest the view centre, and its direction.
    let base = centre + n2u * ((k / m) - centre.dot(n2u));
    let dir = n2u.perp();
    let half = (proj.hi - proj.lo).length();
    if !(half.is_finite() && base.is_finite()) {
        return Vec::new();
    }
    let mut out = vec![Outline::Polyline(vec![
        base - dir * half,
        base + dir * half,
    ])];
    // Ticks into the solid (against the normal), every `step` metres.
    let step = nice_length(half / 12.0);
    let tick = step * 0.4;
    let along0 = ((base - centre).dot(dir) / step).floor();
    // About 24 ticks span the view; the cap only guards against rounding.
    let count = ((2.0 * half / step).ceil() as i32).min(64);
    for i in -count..=count {
        let at = base + dir * ((along0 + i as f32) * step);
        let end = at - (n2u + dir) * (tick * std::f32::consts::FRAC_1_SQRT_2);
        out.push(Outline::Polyline(vec![at, end]));
    }
    out
}
