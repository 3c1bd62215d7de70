//! Frames: copies of the drawable state of a pool, and a recorder that
//! keeps the frames of a run for animation.

use cable_core::ParticlePool;
use glam::Vec3;

use crate::RenderError;
use crate::shape::{Shape, shapes_of};

/// One cable of a [`Frame`].
///
/// # Invariant
/// `pinned` has one entry per point; `rest` and `intact` have one entry per
/// segment (`points.len() - 1`).
#[derive(Debug, Clone, PartialEq)]
pub struct CableFrame {
    /// Particle positions, metres.
    pub points: Vec<Vec3>,
    /// Whether each particle is pinned (inverse mass 0).
    pub pinned: Vec<bool>,
    /// Rest length of each segment, metres.
    pub rest: Vec<f32>,
    /// Cable radius, metres.
    pub radius: f32,
    /// Whether each segment is intact: a segment that broke
    /// (`break_tension`, `ParticlePool::break_segment`) is `false`, and the
    /// views leave a gap there.
    pub intact: Vec<bool>,
    /// Tension of each segment, newtons, when the caller measured it
    /// (`cable_systems::tension::segment_tensions`); empty otherwise. A
    /// still coloured by tension ([`crate::SvgOptions::tension_scale`])
    /// reads it.
    pub tension: Vec<f32>,
}

impl CableFrame {
    /// A cable from points, with rest lengths equal to the current segment
    /// lengths, the given pinned ends and radius.
    ///
    /// # Example
    /// ```
    /// use cable_debug::CableFrame;
    /// use glam::Vec3;
    /// let c = CableFrame::from_points(vec![Vec3::ZERO, Vec3::X, Vec3::new(2.0, -1.0, 0.0)], true, false, 0.05);
    /// assert_eq!(c.pinned, [true, false, false]);
    /// assert_eq!(c.strain().count(), 2);
    /// ```
    #[must_use]
    pub fn from_points(points: Vec<Vec3>, pin_start: bool, pin_end: bool, radius: f32) -> Self {
        let n = points.len();
        let rest = points.windows(2).map(|w| w[0].distance(w[1])).collect();
        let pinned = (0..n)
            .map(|i| (i == 0 && pin_start) || (i + 1 == n && pin_end))
            .collect();
        Self {
            intact: vec![true; n.saturating_sub(1)],
            tension: Vec::new(),
            points,
            pinned,
            rest,
            radius,
        }
    }

    /// The points as drawn: the particles in order, with a NaN point
    /// between the two ends of each broken segment (the views lift the pen
    /// at non-finite points, so the gap shows).
    ///
    /// # Example
    /// ```
    /// use cable_debug::CableFrame;
    /// use glam::Vec3;
    /// let mut c = CableFrame::from_points(vec![Vec3::ZERO, Vec3::X, Vec3::Y], true, false, 0.05);
    /// c.intact[0] = false;
    /// let drawn: Vec<Vec3> = c.drawn_points().collect();
    /// assert_eq!(drawn.len(), 4);
    /// assert!(drawn[1].is_nan());
    /// ```
    pub fn drawn_points(&self) -> impl Iterator<Item = Vec3> + '_ {
        self.points.iter().enumerate().flat_map(|(i, &p)| {
            let gap = i > 0 && !self.intact.get(i - 1).copied().unwrap_or(true);
            gap.then_some(Vec3::NAN)
                .into_iter()
                .chain(std::iter::once(p))
        })
    }

    /// Strain of each segment: `|p[i+1] − p[i]| / rest[i] − 1` (0 = rest
    /// length, 0.01 = stretched by 1 %, negative = shorter than at rest).
    /// Non-finite for a segment with a non-finite end or no rest length.
    pub fn strain(&self) -> impl Iterator<Item = f32> + '_ {
        self.points
            .windows(2)
            .zip(&self.rest)
            .map(|(w, &r)| w[0].distance(w[1]) / r - 1.0)
    }
}

/// The drawable state of a simulation at one time: every cable of a pool and
/// the collider shapes around them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Frame {
    /// Simulated time, seconds.
    pub time: f64,
    /// The cables, in the pool's order.
    pub cables: Vec<CableFrame>,
    /// Collider shapes to outline.
    pub shapes: Vec<Shape>,
}

impl Frame {
    /// Copies the cables of `pool` (positions, pinned particles, rest
    /// lengths, radius) and the outlines of its colliders at their current
    /// poses (see [`shapes_of`]) at simulated time `time` (seconds).
    ///
    /// # Example
    /// ```
    /// use cable_core::{CableDesc, ParticlePool};
    /// use cable_debug::Frame;
    /// use glam::Vec3;
    /// let mut pool = ParticlePool::new();
    /// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
    /// let frame = Frame::capture(&pool, 0.0);
    /// assert_eq!(frame.cables[0].points.len(), 5);
    /// assert_eq!(frame.cables[0].pinned, [true, false, false, false, true]);
    /// # Ok::<(), cable_core::CableError>(())
    /// ```
    #[must_use]
    pub fn capture(pool: &ParticlePool, time: f64) -> Self {
        let cables = pool
            .handles()
            .filter_map(|h| {
                let points = pool.positions(h).ok()?.to_vec();
                let pinned = pool.inv_masses(h).ok()?.iter().map(|&w| w == 0.0).collect();
                let rest = pool.rest_lengths(h).ok()?;
                let rest = rest[..rest.len().saturating_sub(1)].to_vec();
                let radius = pool.params(h).ok()?.radius;
                let rows = pool.row_consts(h).ok()?;
                let intact = rows[..rows.len().saturating_sub(1)]
                    .iter()
                    .map(|k| k.linked)
                    .collect();
                Some(CableFrame {
                    points,
                    pinned,
                    rest,
                    radius,
                    intact,
                    tension: Vec::new(),
                })
            })
            .collect();
        Self {
            time,
            cables,
            shapes: shapes_of(pool.colliders()),
        }
    }

    /// The same frame with these collider shapes instead of the captured
    /// ones.
    #[must_use]
    pub fn with_shapes(mut self, shapes: Vec<Shape>) -> Self {
        self.shapes = shapes;
        self
    }

    /// Checks every shape (see [`Shape::validate`]).
    ///
    /// # Errors
    /// The first invalid shape.
    pub fn validate(&self) -> Result<(), RenderError> {
        self.shapes
            .iter()
            .enumerate()
            .try_for_each(|(i, s)| s.validate(i))
    }

    /// Sets each cable's segment tensions, newtons (one list per cable, in
    /// the frame's cable order), for a still coloured by tension.
    #[must_use]
    pub fn with_tensions(mut self, tensions: &[Vec<f32>]) -> Self {
        for (c, t) in self.cables.iter_mut().zip(tensions) {
            c.tension.clone_from(t);
        }
        self
    }

    /// Number of particles that are NaN or infinite (they are not drawn).
    #[must_use]
    pub fn non_finite_count(&self) -> usize {
        self.cables
            .iter()
            .flat_map(|c| &c.points)
            .filter(|p| !p.is_finite())
            .count()
    }
}

/// Keeps the frames of a run for an animation, within a budget.
///
/// Offer it every frame; it keeps every `stride`-th and, when it holds more
/// than its capacity, drops every other kept frame and doubles the stride.
/// So a run of any length ends up as at most `capacity` evenly spaced
/// frames covering all of it. [`Recorder::finish`] adds the final state.
///
/// # Example
/// ```
/// use cable_core::{CableDesc, ParticlePool};
/// use cable_debug::Recorder;
/// use glam::Vec3;
/// let mut pool = ParticlePool::new();
/// pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, 4)?)?;
/// let mut rec = Recorder::new(10);
/// for f in 0..100 {
///     rec.offer(&pool, f as f64 / 60.0);
/// }
/// rec.finish(&pool, 100.0 / 60.0);
/// assert!(rec.frames().len() <= 11);
/// assert_eq!(rec.frames().last().map(|f| f.time), Some(100.0 / 60.0));
/// # Ok::<(), cable_core::CableError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Recorder {
    frames: Vec<Frame>,
    capacity: usize,
    stride: u64,
    offered: u64,
    last_kept: bool,
    shapes: Vec<Shape>,
}

impl Recorder {
    /// A recorder keeping at most `capacity` frames (at least 2).
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        Self {
            frames: Vec::new(),
            capacity: capacity.max(2),
            stride: 1,
            offered: 0,
            last_kept: false,
            shapes: Vec::new(),
        }
    }

    /// Gives every captured frame these shapes besides the pool's own
    /// colliders (drawn after them).
    #[must_use]
    pub fn with_shapes(mut self, shapes: Vec<Shape>) -> Self {
        self.shapes = shapes;
        self
    }

    /// Whether the next offered frame will be kept.
    #[must_use]
    pub fn wants_next(&self) -> bool {
        self.offered.is_multiple_of(self.stride)
    }

    /// Offers the state of `pool` at `time` (seconds); captures it only when
    /// it is kept.
    pub fn offer(&mut self, pool: &ParticlePool, time: f64) {
        if self.wants_next() {
            let frame = self.capture(pool, time);
            self.keep(frame);
        } else {
            self.last_kept = false;
        }
        self.offered += 1;
    }

    fn capture(&self, pool: &ParticlePool, time: f64) -> Frame {
        let mut frame = Frame::capture(pool, time);
        frame.shapes.extend_from_slice(&self.shapes);
        frame
    }

    /// Offers a frame made elsewhere.
    pub fn offer_frame(&mut self, frame: Frame) {
        if self.wants_next() {
            self.keep(frame);
        } else {
            self.last_kept = false;
        }
        self.offered += 1;
    }

    fn keep(&mut self, frame: Frame) {
        self.frames.push(frame);
        self.last_kept = true;
        if self.frames.len() > self.capacity {
            let mut i = 0;
            self.frames.retain(|_| {
                i += 1;
                (i - 1) % 2 == 0
            });
            self.stride *= 2;
            // The frame just kept sits at an odd multiple of the old stride
            // when it was dropped.
            self.last_kept = self.offered.is_multiple_of(self.stride);
        }
    }

    /// Records the final state unless the last offered frame was kept.
    pub fn finish(&mut self, pool: &ParticlePool, time: f64) {
        if !self.last_kept || self.frames.is_empty() {
            let frame = self.capture(pool, time);
            self.frames.push(frame);
            self.last_kept = true;
        }
    }

    /// The last recorded frame, to add what a capture does not hold
    /// (such as [`Frame::with_tensions`]' tensions).
    pub fn last_frame_mut(&mut self) -> Option<&mut Frame> {
        self.frames.last_mut()
    }

    /// The recorded frames, oldest first.
    #[must_use]
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }
}
