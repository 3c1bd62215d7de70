//! SVG rendering: a clean, scalable picture of a frame, or an animation
//! (SMIL, plays in a browser with no script) of recorded frames.
//!
//! # Coordinates
//! SVG user units are metres of the view: a view point `(x, y)` is drawn at
//! `(x, −y)`, so the `viewBox` reads directly in metres. Cables are drawn
//! with their real width (twice their radius, but never thinner than
//! [`SvgOptions::min_stroke_px`] pixels). Every cable is one element with
//! `class="cable"`: a `<path>`, or with strain colouring a `<g>` of segments.
//! Every collider shape is one `<g class="collider">` (with `data-collider`,
//! its index, and `data-shape`: sphere, capsule, plane or box).

use std::fmt::Write as _;

use glam::Vec2;

use crate::RenderError;
use crate::canvas::{Canvas, Pen};
use crate::frame::{Frame, Recorder};
use crate::shape::{Outline, Shape};
use crate::view::{Fit, Projection, ViewDir, format_metres, nice_length};

/// Options of the SVG views.
#[derive(Debug, Clone, PartialEq)]
pub struct SvgOptions {
    /// Width of the plot area, pixels (100..=10000). The picture adds room
    /// for the title, the axes and the legend.
    pub width: u32,
    /// Which way the camera looks.
    pub view: ViewDir,
    /// What the picture frames.
    pub fit: Fit,
    /// The title; `None` writes one with the time.
    pub title: Option<String>,
    /// Colour each segment by its strain (`|p₁ − p₀| / rest − 1`) and draw a
    /// legend. Static pictures only; an animation colours by cable.
    pub strain: bool,
    /// The strain that gets the full colour, with `strain`: a fixed scale,
    /// so pictures compare, or the picture's own largest strain.
    pub strain_scale: StrainScale,
    /// Thinnest drawn cable, pixels (0.1..=50), so thin cables stay visible.
    pub min_stroke_px: f32,
    /// With `strain`: colour by tension instead, full red at this many
    /// newtons (greater than 0, at most 1e12), from each cable's
    /// [`crate::CableFrame::tension`] (a segment without one is black).
    /// `None` (the default): by strain.
    pub tension_scale: Option<f32>,
}

impl Default for SvgOptions {
    fn default() -> Self {
        Self {
            width: 960,
            view: ViewDir::Xy,
            fit: Fit::Bounds,
            title: None,
            strain: false,
            strain_scale: StrainScale::default(),
            min_stroke_px: 1.5,
            tension_scale: None,
        }
    }
}

/// How strain maps to colour in a still with [`SvgOptions::strain`]:
/// grey at rest, blue when shorter, red when stretched, full colour at the
/// scale and beyond.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StrainScale {
    /// Full colour at this strain (a fraction: 0.05 is 5 %), the same for
    /// every picture, so two pictures compare and a well-converged cable
    /// reads grey. Between 10⁻⁶ and 10.
    Fixed(f32),
    /// Full colour at the largest |strain| of the picture (at least 0.01 %):
    /// shows where the solver converges least, however little the cables
    /// stretch, but every picture looks equally coloured.
    Largest,
}

impl StrainScale {
    /// The default: [`StrainScale::Fixed`] at 5 % strain.
    pub const DEFAULT_FIXED: f32 = 0.05;
}

impl Default for StrainScale {
    /// `Fixed(0.05)`: full colour at ±5 % strain.
    fn default() -> Self {
        Self::Fixed(Self::DEFAULT_FIXED)
    }
}

impl SvgOptions {
    /// Checks the ranges documented on each field.
    ///
    /// # Errors
    /// [`RenderError::Option`] naming the field.
    pub fn validate(&self) -> Result<(), RenderError> {
        if !(100..=10_000).contains(&self.width) {
            return Err(RenderError::option(
                "width",
                format!("must be between 100 and 10000 pixels, got {}", self.width),
            ));
        }
        if !(self.min_stroke_px.is_finite() && (0.1..=50.0).contains(&self.min_stroke_px)) {
            return Err(RenderError::option(
                "min_stroke_px",
                format!("must be between 0.1 and 50, got {}", self.min_stroke_px),
            ));
        }
        match self.strain_scale {
            StrainScale::Fixed(e) if !(e.is_finite() && (1.0e-6..=10.0).contains(&e)) => {
                return Err(RenderError::option(
                    "strain_scale",
                    format!("a fixed scale must be between 1e-6 and 10, got {e}"),
                ));
            }
            StrainScale::Fixed(_) | StrainScale::Largest => {}
        }
        if let Some(t) = self.tension_scale
            && !(t.is_finite() && t > 0.0 && t <= 1.0e12)
        {
            return Err(RenderError::option(
                "tension_scale",
                format!("must be greater than 0 and at most 1e12 newtons, got {t}"),
            ));
        }
        Ok(())
    }
}

/// Colours of the cables, by index.
const PALETTE: [&str; 8] = [
    "#1f5fa8", "#c2410c", "#15803d", "#7e22ce", "#b91c1c", "#0e7490", "#a16207", "#be185d",
];

/// Pixel margins around the plot: left, top, right, bottom.
const MARGIN: [f32; 4] = [72.0, 56.0, 24.0, 52.0];
/// Extra right margin for the strain legend, pixels.
const LEGEND_PX: f32 = 120.0;

/// Draws one frame as a static SVG picture.
///
/// # Errors
/// Invalid options or shapes.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_debug::{Frame, SvgOptions, render_svg};
/// use glam::Vec3;
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 4.0, 5.0, 8)?)?;
/// let svg = render_svg(&Frame::capture(&pool, 0.0), &SvgOptions { strain: true, ..SvgOptions::default() })?;
/// assert!(svg.starts_with("<svg") && svg.contains("class=\"cable\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render_svg(frame: &Frame, opts: &SvgOptions) -> Result<String, RenderError> {
    still(frame, &[], opts)
}

/// Draws the last of `frames` as a still (see [`render_svg`]) over up to
/// `ghosts` earlier frames, evenly spaced and drawn faintly (`class="ghost"`),
/// so one picture shows how the cables moved.
///
/// # Errors
/// No frames, invalid options or shapes.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_debug::{Frame, SvgOptions, render_trail};
/// use glam::Vec3;
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
/// let frames = vec![Frame::capture(&pool, 0.0), Frame::capture(&pool, 0.1), Frame::capture(&pool, 0.2)];
/// let svg = render_trail(&frames, 8, &SvgOptions::default())?;
/// assert_eq!(svg.matches("class=\"ghost\"").count(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render_trail(
    frames: &[Frame],
    ghosts: usize,
    opts: &SvgOptions,
) -> Result<String, RenderError> {
    let (last, earlier) = frames.split_last().ok_or(RenderError::NoFrames)?;
    let n = ghosts.min(earlier.len());
    // Evenly spaced from the first frame on, ending one step before the last.
    let picked: Vec<&Frame> = (0..n).map(|k| &earlier[k * earlier.len() / n]).collect();
    still(last, &picked, opts)
}

fn still(frame: &Frame, ghosts: &[&Frame], opts: &SvgOptions) -> Result<String, RenderError> {
    opts.validate()?;
    let proj = Projection::for_frames(
        std::iter::once(frame).chain(ghosts.iter().copied()),
        opts.view,
        opts.fit,
    )?;
    let layout = Layout::new(&proj, opts, opts.strain);
    let title = opts
        .title
        .clone()
        .unwrap_or_else(|| format!("cable: t = {:.2} s", frame.time));
    let mut c = SvgCanvas::new(layout);
    c.header(&title, opts.view);
    c.shapes(frame, &proj);
    if !ghosts.is_empty() {
        c.out.push_str("<g class=\"ghosts\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\" opacity=\"0.22\">\n");
        for g in ghosts {
            for (i, cable) in g.cables.iter().enumerate() {
                let d = c.path(cable.drawn_points().map(|p| proj.project(p)));
                let _ = writeln!(
                    c.out,
                    "<path class=\"ghost\" data-time=\"{:.3}\" stroke=\"{}\" stroke-width=\"{}\" d=\"{d}\"/>",
                    g.time,
                    PALETTE[i % PALETTE.len()],
                    c.num(c.px(c.l.min_stroke_px))
                );
            }
        }
        c.out.push_str("</g>\n");
    }
    let strain_scale = opts.strain.then(|| match opts.strain_scale {
        StrainScale::Fixed(e) => e,
        StrainScale::Largest => largest_strain(frame),
    });
    c.out.push_str(
        "<g class=\"cables\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n",
    );
    for (i, cable) in frame.cables.iter().enumerate() {
        let w = c.stroke(cable.radius);
        if let Some(scale) = strain_scale {
            let colour_scale = opts.tension_scale.unwrap_or(scale);
            let _ = writeln!(
                c.out,
                "<g class=\"cable\" data-cable=\"{i}\" stroke-width=\"{}\">",
                c.num(w)
            );
            for (j, ((seg, strain), &intact)) in cable
                .points
                .windows(2)
                .zip(cable.strain())
                .zip(&cable.intact)
                .enumerate()
            {
                // By tension (newtons, never negative) or by strain.
                let e = match opts.tension_scale {
                    Some(_) => cable.tension.get(j).copied().unwrap_or(f32::NAN),
                    None => strain,
                };
                let (a, b) = (proj.project(seg[0]), proj.project(seg[1]));
                if !(intact && a.is_finite() && b.is_finite()) {
                    continue;
                }
                let _ = writeln!(
                    c.out,
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>",
                    c.num(a.x),
                    c.num(-a.y),
                    c.num(b.x),
                    c.num(-b.y),
                    strain_colour(e, colour_scale)
                );
            }
            c.out.push_str("</g>\n");
        } else {
            let d = c.path(cable.drawn_points().map(|p| proj.project(p)));
            let _ = writeln!(
                c.out,
                "<path class=\"cable\" data-cable=\"{i}\" stroke=\"{}\" stroke-width=\"{}\" d=\"{d}\"/>",
                PALETTE[i % PALETTE.len()],
                c.num(w)
            );
        }
    }
    c.out.push_str("</g>\n<g class=\"pins\">\n");
    for cable in &frame.cables {
        for (p, &pinned) in cable.points.iter().zip(&cable.pinned) {
            if pinned && p.is_finite() {
                c.draw_dot(proj.project(*p), Pen::Pinned);
            }
        }
    }
    c.out.push_str("</g>\n");
    if let Some(scale) = strain_scale {
        match opts.tension_scale {
            Some(t) => c.legend(t, true),
            None => c.legend(scale, false),
        }
    }
    c.out.push_str("</svg>\n");
    Ok(c.out)
}

/// Draws recorded frames as an animated SVG (SMIL): each cable is one
/// `<path>` whose `d` steps through every frame at the frames' own times,
/// pinned particles follow, and a bar shows the time. It loops forever in
/// a browser; viewers without SMIL (rsvg, image converters) show the last
/// frame, the attributes' static values. For a still that every viewer
/// shows alike, use [`render_svg`] or [`Recorder::still_svg`].
///
/// # Errors
/// No frames, invalid options or shapes.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_debug::{Recorder, SvgOptions, render_animation};
/// use glam::Vec3;
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 4.0, 5.0, 8)?)?;
/// let mut rec = Recorder::new(100);
/// rec.offer(&pool, 0.0);
/// rec.offer(&pool, 0.5);
/// let svg = render_animation(rec.frames(), &SvgOptions::default())?;
/// assert!(svg.contains("<animate attributeName=\"d\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render_animation(frames: &[Frame], opts: &SvgOptions) -> Result<String, RenderError> {
    opts.validate()?;
    let first = frames.first().ok_or(RenderError::NoFrames)?;
    let last = &frames[frames.len() - 1];
    let proj = Projection::for_frames(frames, opts.view, opts.fit)?;
    let mut c = SvgCanvas::new(Layout::new(&proj, opts, false));
    let title = opts.title.clone().unwrap_or_else(|| {
        format!(
            "cable: {} frames, t = {:.2} to {:.2} s",
            frames.len(),
            first.time,
            last.time
        )
    });
    c.header(&title, opts.view);
    // The static values (colliders, paths, pins, time bar) are the last
    // frame's, what a viewer without SMIL shows.
    c.shapes(last, &proj);
    // Each frame shows from its own time until the next one; the last for
    // as long as the mean frame interval.
    let span = (last.time - first.time).max(0.0);
    let tail = if frames.len() > 1 {
        span / (frames.len() - 1) as f64
    } else {
        1.0
    };
    let dur = (span + tail).max(1.0e-3);
    let key_times = frames
        .iter()
        .map(|f| format!("{:.6}", ((f.time - first.time) / dur).clamp(0.0, 1.0)))
        .collect::<Vec<_>>()
        .join(";");
    let anim = |attr: &str, values: &str| {
        format!(
            "<animate attributeName=\"{attr}\" dur=\"{dur:.4}s\" repeatCount=\"indefinite\" calcMode=\"discrete\" keyTimes=\"{key_times}\" values=\"{values}\"/>"
        )
    };
    c.out.push_str(
        "<g class=\"cables\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n",
    );
    for (i, cable) in first.cables.iter().enumerate() {
        let paths: Vec<String> = frames
            .iter()
            .map(|f| {
                f.cables
                    .get(i)
                    .map(|cb| c.path(cb.drawn_points().map(|p| proj.project(p))))
                    .unwrap_or_default()
            })
            .collect();
        let _ = writeln!(
            c.out,
            "<path class=\"cable\" data-cable=\"{i}\" stroke=\"{}\" stroke-width=\"{}\" d=\"{}\">{}</path>",
            PALETTE[i % PALETTE.len()],
            c.num(c.stroke(cable.radius)),
            paths[paths.len() - 1],
            anim("d", &paths.join(";"))
        );
    }
    c.out.push_str("</g>\n<g class=\"pins\">\n");
    let r = c.px(4.0);
    for (i, cable) in first.cables.iter().enumerate() {
        for (j, _) in cable.pinned.iter().enumerate().filter(|(_, p)| **p) {
            let at = |f: &Frame| {
                f.cables
                    .get(i)
                    .and_then(|cb| cb.points.get(j))
                    .map_or(Vec2::ZERO, |p| proj.project(*p))
            };
            let xs: Vec<String> = frames.iter().map(|f| c.num(at(f).x)).collect();
            let ys: Vec<String> = frames.iter().map(|f| c.num(-at(f).y)).collect();
            let _ = writeln!(
                c.out,
                "<circle class=\"pin\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"#111\">{}{}</circle>",
                xs[xs.len() - 1],
                ys[ys.len() - 1],
                c.num(r),
                anim("cx", &xs.join(";")),
                anim("cy", &ys.join(";"))
            );
        }
    }
    c.out.push_str("</g>\n");
    c.time_bar(first.time, last.time, dur);
    c.out.push_str("</svg>\n");
    Ok(c.out)
}

impl Recorder {
    /// The recording as an **animated** SVG (SMIL, see
    /// [`render_animation`]): it plays in a browser; viewers without SMIL
    /// (rsvg, most image viewers and converters) show the final frame.
    /// For a still, use [`Recorder::still_svg`].
    ///
    /// # Errors
    /// No frames, invalid options or shapes.
    pub fn to_svg(&self, opts: &SvgOptions) -> Result<String, RenderError> {
        render_animation(self.frames(), opts)
    }

    /// A **still** SVG of the final recorded frame (see [`render_svg`]):
    /// every viewer shows the same picture. With [`SvgOptions::strain`] the
    /// segments are coloured by strain on [`SvgOptions::strain_scale`].
    ///
    /// # Errors
    /// No frames, invalid options or shapes.
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use cable_debug::{Recorder, SvgOptions};
    /// use glam::Vec3;
    /// let mut pool = ParticlePool::new();
    /// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X * 4.0, 5.0, 8)?)?;
    /// let mut rec = Recorder::new(100);
    /// rec.offer(&pool, 0.0);
    /// rec.offer(&pool, 0.5);
    /// let svg = rec.still_svg(&SvgOptions { strain: true, ..SvgOptions::default() })?;
    /// assert!(!svg.contains("<animate") && svg.contains("t = 0.50 s"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn still_svg(&self, opts: &SvgOptions) -> Result<String, RenderError> {
        render_svg(self.frames().last().ok_or(RenderError::NoFrames)?, opts)
    }

    /// A still of the last recorded frame over `ghosts` faint earlier ones
    /// (see [`render_trail`]).
    ///
    /// # Errors
    /// No frames, invalid options or shapes.
    pub fn trail_svg(&self, ghosts: usize, opts: &SvgOptions) -> Result<String, RenderError> {
        render_trail(self.frames(), ghosts, opts)
    }

    /// A static SVG of recorded frame `index` (see [`render_svg`]).
    ///
    /// # Errors
    /// Index out of range, invalid options or shapes.
    pub fn frame_svg(&self, index: usize, opts: &SvgOptions) -> Result<String, RenderError> {
        let frame = self
            .frames()
            .get(index)
            .ok_or(RenderError::FrameOutOfRange {
                index,
                len: self.frames().len(),
            })?;
        render_svg(frame, opts)
    }
}

/// Largest finite |strain| of a frame, at least 10⁻⁴ (0.01 %).
fn largest_strain(frame: &Frame) -> f32 {
    frame
        .cables
        .iter()
        .flat_map(|c| c.strain())
        .filter(|e| e.is_finite())
        .fold(1.0e-4f32, |m, e| m.max(e.abs()))
}

/// Diverging colour: blue (shorter than rest) – grey (at rest) – red (stretched).
fn strain_colour(e: f32, scale: f32) -> String {
    if !e.is_finite() {
        return "#000000".into();
    }
    let u = (e / scale).clamp(-1.0, 1.0);
    let grey = [150.0f32, 150.0, 150.0];
    let end = if u < 0.0 {
        [33.0, 102.0, 172.0]
    } else {
        [200.0, 24.0, 43.0]
    };
    let t = u.abs();
    let c: Vec<u8> = (0..3)
        .map(|k| (grey[k] + (end[k] - grey[k]) * t).round() as u8)
        .collect();
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// Escapes text for XML.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Where the plot sits in the picture.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// Pixels per metre.
    s: f32,
    /// Framed rectangle, view metres.
    lo: Vec2,
    hi: Vec2,
    /// Margins in pixels: left, top, right, bottom.
    margin: [f32; 4],
    min_stroke_px: f32,
    /// Decimals written for coordinates (a tenth of a pixel).
    prec: usize,
}

impl Layout {
    fn new(proj: &Projection, opts: &SvgOptions, legend: bool) -> Self {
        let span = (proj.hi - proj.lo).max(Vec2::splat(1.0e-6));
        let w = opts.width as f32;
        // The plot is at most 1.25 times as tall as wide.
        let s = (w / span.x).min(1.25 * w / span.y);
        let mut margin = MARGIN;
        if legend {
            margin[2] += LEGEND_PX;
        }
        let prec = (s * 10.0).log10().ceil().clamp(0.0, 7.0) as usize;
        Self {
            s,
            lo: proj.lo,
            hi: proj.hi,
            margin,
            min_stroke_px: opts.min_stroke_px,
            prec,
        }
    }
}

/// Writes SVG elements; implements [`Canvas`] for collider outlines and pins.
struct SvgCanvas {
    out: String,
    l: Layout,
}

impl SvgCanvas {
    fn new(l: Layout) -> Self {
        Self {
            out: String::with_capacity(1 << 14),
            l,
        }
    }

    fn num(&self, v: f32) -> String {
        let s = format!("{:.*}", self.l.prec, v);
        let s = if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.')
        } else {
            &s
        };
        if s == "-0" { "0".into() } else { s.into() }
    }

    /// `px` pixels in metres.
    fn px(&self, px: f32) -> f32 {
        px / self.l.s
    }

    fn stroke(&self, radius: f32) -> f32 {
        (2.0 * radius).max(self.px(self.l.min_stroke_px))
    }

    /// Path data through view points; a non-finite point starts a new piece.
    fn path(&self, pts: impl Iterator<Item = Vec2>) -> String {
        let mut d = String::new();
        let mut pen_down = false;
        for p in pts {
            if p.is_finite() {
                let _ = write!(
                    d,
                    "{}{} {}",
                    if pen_down {
                        " L"
                    } else if d.is_empty() {
                        "M"
                    } else {
                        " M"
                    },
                    self.num(p.x),
                    self.num(-p.y)
                );
                pen_down = true;
            } else {
                pen_down = false;
            }
        }
        d
    }

    fn text(&mut self, at: Vec2, px: f32, anchor: &str, body: &str, class: &str) {
        let _ = writeln!(
            self.out,
            "<text class=\"{class}\" x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{anchor}\">{}</text>",
            self.num(at.x),
            self.num(at.y),
            self.num(self.px(px)),
            escape(body)
        );
    }

    /// Root element, title, background, grid and axes with a metric scale.
    fn header(&mut self, title: &str, view: ViewDir) {
        let l = self.l;
        let [ml, mt, mr, mb] = l.margin.map(|m| self.px(m));
        let (x0, y0) = (l.lo.x - ml, -l.hi.y - mt);
        let (w, h) = (l.hi.x - l.lo.x + ml + mr, l.hi.y - l.lo.y + mt + mb);
        let _ = writeln!(
            self.out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{:.0}\" viewBox=\"{} {} {} {}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">",
            w * l.s,
            h * l.s,
            self.num(x0),
            self.num(y0),
            self.num(w),
            self.num(h)
        );
        let _ = writeln!(self.out, "<title>{}</title>", escape(title));
        let _ = writeln!(
            self.out,
            "<rect class=\"background\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
            self.num(x0),
            self.num(y0),
            self.num(w),
            self.num(h)
        );
        let thin = self.num(self.px(1.0));
        // Grid and ticks at a nice step in each direction.
        let step = nice_length((l.hi - l.lo).max_element() / 8.0);
        let ticks = |lo: f32, hi: f32| {
            let first = (lo / step).ceil() as i64;
            let last = (hi / step).floor() as i64;
            (first..=last.min(first.saturating_add(200))).map(|k| k as f32 * step)
        };
        let _ = writeln!(
            self.out,
            "<g class=\"grid\" stroke=\"#e5e7eb\" stroke-width=\"{thin}\">"
        );
        for x in ticks(l.lo.x, l.hi.x) {
            let _ = writeln!(
                self.out,
                "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>",
                self.num(x),
                self.num(-l.hi.y),
                self.num(-l.lo.y)
            );
        }
        for y in ticks(l.lo.y, l.hi.y) {
            let _ = writeln!(
                self.out,
                "<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\"/>",
                self.num(-y),
                self.num(l.lo.x),
                self.num(l.hi.x)
            );
        }
        self.out.push_str("</g>\n");
        let _ = writeln!(
            self.out,
            "<g class=\"axes\" fill=\"#374151\">\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#9ca3af\" stroke-width=\"{thin}\"/>",
            self.num(l.lo.x),
            self.num(-l.hi.y),
            self.num(l.hi.x - l.lo.x),
            self.num(l.hi.y - l.lo.y)
        );
        for x in ticks(l.lo.x, l.hi.x) {
            let at = Vec2::new(x, -l.lo.y + self.px(18.0));
            self.text(at, 12.0, "middle", &format_metres(x), "tick");
        }
        for y in ticks(l.lo.y, l.hi.y) {
            let at = Vec2::new(l.lo.x - self.px(8.0), -y + self.px(4.0));
            self.text(at, 12.0, "end", &format_metres(y), "tick");
        }
        let (hn, vn) = view.axis_names();
        let mid = (l.lo + l.hi) * 0.5;
        self.text(
            Vec2::new(mid.x, -l.lo.y + self.px(40.0)),
            13.0,
            "middle",
            &format!("{hn} (m), view {}", view.label()),
            "axis-label",
        );
        self.text(
            Vec2::new(l.lo.x - self.px(8.0), -l.hi.y - self.px(10.0)),
            13.0,
            "end",
            &format!("{vn} (m)"),
            "axis-label",
        );
        self.out.push_str("</g>\n");
        self.text(
            Vec2::new(l.lo.x, -l.hi.y - self.px(30.0)),
            18.0,
            "start",
            title,
            "title",
        );
    }

    /// Collider outlines of `frame`.
    fn shapes(&mut self, frame: &Frame, proj: &Projection) {
        let _ = writeln!(
            self.out,
            "<g class=\"colliders\" fill=\"#d1d5db\" fill-opacity=\"0.6\" stroke=\"#6b7280\" stroke-width=\"{}\">",
            self.num(self.px(1.5))
        );
        for (i, shape) in frame.shapes.iter().enumerate() {
            // One group per collider, whatever its outline is made of.
            let kind = match shape {
                Shape::Sphere { .. } => "sphere",
                Shape::Capsule { .. } => "capsule",
                Shape::Plane { .. } => "plane",
                Shape::Box { .. } => "box",
            };
            let _ = writeln!(
                self.out,
                "<g class=\"collider\" data-collider=\"{i}\" data-shape=\"{kind}\">"
            );
            for o in shape.outline(proj) {
                match o {
                    Outline::Circle { center, radius } => {
                        self.draw_circle(center, radius, Pen::Collider);
                    }
                    Outline::Polyline(p) => self.draw_polyline(&p, Pen::Collider),
                }
            }
            self.out.push_str("</g>\n");
        }
        self.out.push_str("</g>\n");
    }

    /// The strain legend: a gradient bar from −scale to +scale.
    /// The colour scale: of strain (a fraction), or with `tension` of
    /// tension in newtons.
    fn legend(&mut self, scale: f32, tension: bool) {
        let l = self.l;
        let x = l.hi.x + self.px(MARGIN[2] + 24.0);
        let (top, bottom) = (-l.hi.y + self.px(24.0), -l.hi.y + self.px(224.0));
        let w = self.px(18.0);
        self.out
            .push_str("<defs><linearGradient id=\"strain\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">");
        for k in 0..=4 {
            let u = k as f32 / 4.0;
            let _ = write!(
                self.out,
                "<stop offset=\"{u}\" stop-color=\"{}\"/>",
                strain_colour((u * 2.0 - 1.0) * scale, scale)
            );
        }
        self.out
            .push_str("</linearGradient></defs>\n<g class=\"legend\" fill=\"#374151\">\n");
        let _ = writeln!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"url(#strain)\" stroke=\"#6b7280\" stroke-width=\"{}\"/>",
            self.num(x),
            self.num(top),
            self.num(w),
            self.num(bottom - top),
            self.num(self.px(1.0))
        );
        self.text(
            Vec2::new(x, top - self.px(10.0)),
            13.0,
            "start",
            if tension { "tension" } else { "strain" },
            "legend-title",
        );
        let pct = scale * 100.0;
        let labels = if tension {
            [
                (top, format!("{scale} N")),
                (top + self.px(14.0), "pulled".to_string()),
                ((top + bottom) * 0.5, "0 N".to_string()),
                (bottom - self.px(14.0), String::new()),
                (bottom, String::new()),
            ]
        } else {
            [
                (top, format!("+{pct:.2} %")),
                (top + self.px(14.0), "stretched".to_string()),
                ((top + bottom) * 0.5, "0 (at rest)".to_string()),
                (bottom - self.px(14.0), "shorter".to_string()),
                (bottom, format!("\u{2212}{pct:.2} %")),
            ]
        };
        for (y, label) in labels {
            if label.is_empty() {
                continue;
            }
            self.text(
                Vec2::new(x + w + self.px(6.0), y + self.px(4.0)),
                11.0,
                "start",
                &label,
                "legend-label",
            );
        }
        self.out.push_str("</g>\n");
    }

    /// A bar under the title that fills up over the animation, with the times.
    fn time_bar(&mut self, t0: f64, t1: f64, dur: f64) {
        let l = self.l;
        let (x, y) = (l.hi.x - self.px(200.0), -l.hi.y - self.px(40.0));
        let (w, h) = (self.px(150.0), self.px(8.0));
        let _ = writeln!(
            self.out,
            "<g class=\"time\"><rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" fill=\"#e5e7eb\"/><rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" fill=\"#6b7280\"><animate attributeName=\"width\" from=\"0\" to=\"{2}\" dur=\"{dur:.4}s\" repeatCount=\"indefinite\"/></rect></g>",
            self.num(x),
            self.num(y),
            self.num(w),
            self.num(h)
        );
        self.text(
            Vec2::new(x + w + self.px(6.0), y + self.px(8.0)),
            11.0,
            "start",
            &format!("{t0:.2}\u{2013}{t1:.2} s"),
            "time-label",
        );
    }
}

impl Canvas for SvgCanvas {
    fn draw_line(&mut self, a: Vec2, b: Vec2, _pen: Pen) {
        let _ = writeln!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            self.num(a.x),
            self.num(-a.y),
            self.num(b.x),
            self.num(-b.y)
        );
    }

    fn draw_polyline(&mut self, points: &[Vec2], _pen: Pen) {
        let closed = points.len() > 2 && points.first() == points.last();
        let pts = points
            .iter()
            .map(|p| format!("{},{}", self.num(p.x), self.num(-p.y)))
            .collect::<Vec<_>>()
            .join(" ");
        if closed {
            let _ = writeln!(self.out, "<polygon points=\"{pts}\"/>");
        } else {
            let _ = writeln!(self.out, "<polyline points=\"{pts}\" fill=\"none\"/>");
        }
    }

    fn draw_circle(&mut self, center: Vec2, radius: f32, _pen: Pen) {
        let _ = writeln!(
            self.out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
            self.num(center.x),
            self.num(-center.y),
            self.num(radius)
        );
    }

    fn draw_dot(&mut self, at: Vec2, _pen: Pen) {
        let _ = writeln!(
            self.out,
            "<circle class=\"pin\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"#111111\"/>",
            self.num(at.x),
            self.num(-at.y),
            self.num(self.px(4.0))
        );
    }
}
