//! The `--svg FILE` writer shared by `cable run` and `cable demo`, and the
//! recording `cable run` keeps for it within a memory budget however the
//! particle count changes during the run ([`SvgFrames`]).

use std::io::{BufWriter, Write};
use std::path::Path;

use cable_core::ParticlePool;
use cable_debug::{Frame, Recorder, SvgOptions, ViewDir};

use super::error::CliError;
use super::staged::Staged;

/// Most particle positions (particles × frames) an animated SVG holds;
/// longer or bigger runs keep fewer, evenly spaced frames.
const PARTICLE_FRAMES: usize = 1_000_000;
/// Faint earlier frames behind the still of `--svg-still`.
const GHOSTS: usize = 10;
/// Most frames of an animated SVG.
const MAX_FRAMES: usize = 300;

/// How many frames to record for a run of `particles` particles.
pub fn capacity(particles: usize) -> usize {
    (PARTICLE_FRAMES / particles.max(1)).clamp(2, MAX_FRAMES)
}

/// An SVG output staged before the run (so an unwritable path fails at
/// once, see [`Staged::create`]), written after it.
pub struct SvgOut {
    staged: Staged,
    title: String,
    still: bool,
    view: ViewDir,
}

impl SvgOut {
    /// Creates the file. `still`: a still of the final frame
    /// coloured by strain over faint earlier frames, instead of the animation.
    pub fn create(path: &Path, title: &str, still: bool, view: ViewDir) -> Result<Self, CliError> {
        Ok(Self {
            staged: Staged::create("--svg", path)?,
            title: title.to_owned(),
            still,
            view,
        })
    }

    /// Checks that recording a run of `particles` particles fits the
    /// budget of [`PARTICLE_FRAMES`] positions (at least 2 frames are kept:
    /// the first and the last), before anything is recorded: exit 1 naming
    /// the output and the sizes otherwise.
    pub fn check_budget(&self, particles: usize) -> Result<(), CliError> {
        let need = particles.saturating_mul(2);
        if need > PARTICLE_FRAMES {
            return Err(CliError::Other(format!(
                "{}: a picture of {particles} particles needs {need} recorded positions (2 frames), more than the budget of {PARTICLE_FRAMES}",
                self.staged.label()
            )));
        }
        Ok(())
    }

    /// The option and path of this output, for messages.
    pub fn label(&self) -> String {
        self.staged.label()
    }

    /// Renders the recording into the staged file, ready for
    /// [`Staged::commit`].
    pub fn write(mut self, recorder: &Recorder) -> Result<Staged, CliError> {
        let last = recorder.frames().last().map_or(0.0, |f| f.time);
        // Tensions in the last frame (`cable run --tension`): colour by
        // them, full red at the largest.
        let largest = recorder.frames().last().and_then(|f| {
            f.cables
                .iter()
                .flat_map(|c| c.tension.iter().copied())
                .filter(|t| t.is_finite())
                .reduce(f32::max)
        });
        let tension_scale = largest.map(|t| t.clamp(1.0e-3, 1.0e12));
        let opts = SvgOptions {
            title: Some(if self.still {
                match tension_scale {
                    Some(t) => format!(
                        "{}: t = {last:.2} s, segments coloured by tension (red: {t:.3} N), earlier frames faint",
                        self.title
                    ),
                    None => format!(
                        "{}: t = {last:.2} s, segments coloured by strain, earlier frames faint",
                        self.title
                    ),
                }
            } else {
                format!(
                    "{}: {:.2} s, {} frames",
                    self.title,
                    last,
                    recorder.frames().len()
                )
            }),
            strain: self.still,
            tension_scale: if self.still { tension_scale } else { None },
            view: self.view,
            ..SvgOptions::default()
        };
        let text = if self.still {
            recorder.trail_svg(GHOSTS, &opts)
        } else {
            recorder.to_svg(&opts)
        }
        .map_err(|e| CliError::Other(format!("internal: {e}")))?;
        let mut w = BufWriter::new(self.staged.file());
        let res = w.write_all(text.as_bytes()).and_then(|()| w.flush());
        drop(w);
        res.map_err(|e| self.staged.io_err(&e))?;
        Ok(self.staged)
    }
}

/// Recorded particle positions of one frame.
fn positions(frame: &Frame) -> usize {
    frame.cables.iter().map(|c| c.points.len()).sum()
}

/// The frames of a `cable run --svg` picture, kept as the run goes within
/// [`PARTICLE_FRAMES`] recorded positions and [`MAX_FRAMES`] frames, also
/// when the particle count changes (a winch paying out).
///
/// Offer it every frame: like [`Recorder`] it keeps every `stride`-th, and
/// whenever it holds too many frames or positions it drops every other one
/// and doubles the stride, so the frames kept stay evenly spaced over the
/// run and the first is always kept. With a constant particle count it
/// keeps the frames a [`Recorder`] of [`capacity`] keeps. A state that
/// would not fit even beside the first frame alone is an error (exit 1
/// naming the output and the budget).
pub struct SvgFrames {
    label: String,
    frames: Vec<Frame>,
    /// Recorded positions in `frames`.
    held: usize,
    budget: usize,
    max_frames: usize,
    stride: u64,
    offered: u64,
    last_kept: bool,
}

impl SvgFrames {
    /// An empty recording for the output named `label` (e.g. `--svg a.svg`).
    pub fn new(label: String) -> Self {
        Self::with_budget(label, PARTICLE_FRAMES, MAX_FRAMES)
    }

    /// An empty recording holding at most `budget` positions in at most
    /// `max_frames` frames (at least 2).
    fn with_budget(label: String, budget: usize, max_frames: usize) -> Self {
        Self {
            label,
            frames: Vec::new(),
            held: 0,
            budget,
            max_frames: max_frames.max(2),
            stride: 1,
            offered: 0,
            last_kept: false,
        }
    }

    /// Checks that a frame of `particles` particles at `time` fits beside
    /// the first frame (a picture holds at least the first and the last).
    fn check(&self, particles: usize, time: f64) -> Result<(), CliError> {
        let first = self.frames.first().map_or(particles, positions);
        let need = first.saturating_add(particles);
        if need > self.budget {
            return Err(CliError::Other(format!(
                "{}: at t = {time:.4} s the scene has {particles} particles; a picture of the run (its first frame and this one) needs {need} recorded positions, more than the budget of {}",
                self.label, self.budget
            )));
        }
        Ok(())
    }

    /// Offers the state of `pool` at `time` (seconds): captured when kept,
    /// and checked against the budget either way.
    pub fn offer(&mut self, pool: &ParticlePool, time: f64) -> Result<(), CliError> {
        self.check(pool.particle_count(), time)?;
        if self.offered.is_multiple_of(self.stride) {
            self.keep(Frame::capture(pool, time));
        } else {
            self.last_kept = false;
        }
        self.offered += 1;
        Ok(())
    }

    fn keep(&mut self, frame: Frame) {
        self.held += positions(&frame);
        self.frames.push(frame);
        self.last_kept = true;
        while self.frames.len() > 2
            && (self.frames.len() > self.max_frames || self.held > self.budget)
        {
            self.halve();
            // The frame just kept sits at an odd multiple of the old stride
            // when it was dropped.
            self.last_kept = self.offered.is_multiple_of(self.stride);
        }
    }

    /// Drops every other frame (the first stays) and doubles the stride.
    fn halve(&mut self) {
        let mut i = 0;
        self.frames.retain(|_| {
            i += 1;
            (i - 1) % 2 == 0
        });
        self.held = self.frames.iter().map(positions).sum();
        self.stride = self.stride.saturating_mul(2);
    }

    /// Adds the final state of `pool` at `time` unless the last offered
    /// frame was kept (making room for it within the budget), and hands
    /// the frames over as a [`Recorder`] for [`SvgOut::write`].
    pub fn finish(mut self, pool: &ParticlePool, time: f64) -> Result<Recorder, CliError> {
        if !self.last_kept || self.frames.is_empty() {
            self.check(pool.particle_count(), time)?;
            let last = Frame::capture(pool, time);
            let n = positions(&last);
            while self.frames.len() > 1 && self.held.saturating_add(n) > self.budget {
                self.halve();
            }
            self.held += n;
            self.frames.push(last);
        }
        let mut recorder = Recorder::new(self.frames.len());
        for f in self.frames {
            recorder.offer_frame(f);
        }
        Ok(recorder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cable_core::CableDesc;
    use glam::Vec3;

    fn line(segments: u32) -> ParticlePool {
        let mut pool = ParticlePool::new();
        pool.add_cable(&CableDesc::line(Vec3::ZERO, Vec3::X, 1.0, segments).unwrap())
            .unwrap();
        pool
    }

    #[test]
    fn constant_counts_keep_the_frames_of_a_recorder() {
        for (segments, frames) in [(4, 1000), (99, 37), (9_999, 250), (1, 5)] {
            let pool = line(segments);
            let mut ours = SvgFrames::new("--svg x".into());
            let mut theirs = Recorder::new(capacity(pool.particle_count()));
            for f in 0..frames {
                ours.offer(&pool, f64::from(f)).unwrap();
                theirs.offer(&pool, f64::from(f));
            }
            theirs.finish(&pool, f64::from(frames));
            let ours = ours.finish(&pool, f64::from(frames)).unwrap();
            let times = |r: &Recorder| r.frames().iter().map(|f| f.time).collect::<Vec<_>>();
            let (a, b) = (times(&ours), times(&theirs));
            // The same frames, but the final one only when it fits.
            assert!(a.len() <= b.len() && b.len() <= a.len() * 2, "{a:?} {b:?}");
            if a.len() == b.len() {
                assert_eq!(a, b);
            }
            let held: usize = ours.frames().iter().map(positions).sum();
            assert!(held <= PARTICLE_FRAMES, "{segments}: {held}");
        }
    }

    #[test]
    fn a_growing_cable_stays_within_the_budget() {
        let mut rec = SvgFrames::with_budget("--svg x".into(), 1000, 300);
        let mut held_most = 0;
        for n in 1..=40_u32 {
            let pool = line(n * 10);
            rec.offer(&pool, f64::from(n)).unwrap();
            held_most = held_most.max(rec.held);
            assert!(rec.held <= 1000, "{n}: {}", rec.held);
        }
        assert!(held_most > 500, "{held_most}");
        let last = line(400);
        let r = rec.finish(&last, 41.0).unwrap();
        let held: usize = r.frames().iter().map(positions).sum();
        assert!(held <= 1000, "{held}");
        assert_eq!(r.frames().first().map(|f| f.time), Some(1.0));
        assert_eq!(r.frames().last().map(|f| f.time), Some(41.0));
    }

    #[test]
    fn a_state_too_big_beside_the_first_frame_names_svg_and_the_budget() {
        let mut rec = SvgFrames::with_budget("--svg big.svg".into(), 1000, 300);
        rec.offer(&line(100), 0.0).unwrap();
        let Err(CliError::Other(msg)) = rec.offer(&line(999), 1.5) else {
            panic!("1101 positions fit a budget of 1000");
        };
        assert!(msg.starts_with("--svg big.svg: at t = 1.5000 s"), "{msg}");
        assert!(msg.contains("budget of 1000"), "{msg}");
    }
}
