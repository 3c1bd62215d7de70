//! Terminal animation for `cable demo` and `cable run --ascii`: frames drawn
//! in place with ANSI cursor control on the alternate screen, and the
//! terminal restored on every way out (end, error, panic, Ctrl-C); and the
//! interrupt handling every command shares ([`super::signal::catch_interrupts`]).

use std::io::{IsTerminal, Write};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use cable_debug::{AsciiOptions, Fit, Frame, RenderError, render_frame_ascii};
use glam::Vec3;

use super::signal::{ANIMATING, LEAVE, catch_interrupts, interrupted};

/// Enter the alternate screen, hide the cursor, clear.
const ENTER: &str = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J";
/// Most frames drawn per second of wall time.
const MAX_FPS: f64 = 30.0;

/// Restores the terminal when dropped.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        ANIMATING.store(false, Ordering::SeqCst);
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(LEAVE.as_bytes());
        let _ = out.flush();
    }
}

/// A running animation on the terminal.
pub struct Animation {
    opts: AsciiOptions,
    started: Instant,
    next_draw: Instant,
    /// World box of everything drawn so far: the view grows to hold it and
    /// never shrinks, so the picture does not jitter.
    seen: Option<(Vec3, Vec3)>,
    _guard: Guard,
}

/// Picture options that fill a terminal of `cols` × `rows` cells, leaving
/// the last rows for the scale and status lines.
pub fn fit_terminal(base: &AsciiOptions, cols: u16, rows: u16) -> AsciiOptions {
    AsciiOptions {
        width: usize::from(cols).saturating_sub(1).clamp(8, 2000),
        height: usize::from(rows).saturating_sub(3).clamp(2, 2000),
        ..*base
    }
}

impl Animation {
    /// Starts animating when standard output is a terminal, else `None`.
    /// Installs the Ctrl-C handler first, so an interrupt never leaves the
    /// terminal on the alternate screen.
    pub fn start(base: &AsciiOptions) -> Option<Self> {
        if !std::io::stdout().is_terminal() {
            return None;
        }
        catch_interrupts();
        let (cols, rows) = terminal_size::terminal_size().map_or((80, 24), |(w, h)| (w.0, h.0));
        let mut out = std::io::stdout().lock();
        ANIMATING.store(true, Ordering::SeqCst);
        let _ = out.write_all(ENTER.as_bytes());
        let _ = out.flush();
        let now = Instant::now();
        Some(Self {
            opts: fit_terminal(base, cols, rows),
            started: now,
            next_draw: now,
            seen: None,
            _guard: Guard,
        })
    }

    /// Called after simulating up to `sim_time` seconds: draws the frame
    /// made by `frame` (at most [`MAX_FPS`] a second), then waits until the
    /// wall clock catches up with the simulation so it plays in real time.
    pub fn tick(
        &mut self,
        sim_time: f64,
        frame: impl FnOnce() -> Frame,
        status: &str,
    ) -> Result<(), RenderError> {
        let now = Instant::now();
        if now >= self.next_draw {
            self.next_draw = now + Duration::from_secs_f64(1.0 / MAX_FPS);
            // Follow the terminal's size; clear once when it changes.
            if let Some((w, h)) = terminal_size::terminal_size() {
                let sized = fit_terminal(&self.opts, w.0, h.0);
                if (sized.width, sized.height) != (self.opts.width, self.opts.height) {
                    self.opts = sized;
                    let _ = std::io::stdout().lock().write_all(b"\x1b[2J");
                }
            }
            let frame = frame();
            let mut seen = self.seen;
            for p in frame.cables.iter().flat_map(|c| &c.points) {
                if p.is_finite() {
                    seen = Some(seen.map_or((*p, *p), |(lo, hi)| (lo.min(*p), hi.max(*p))));
                }
            }
            for (lo, hi) in frame
                .shapes
                .iter()
                .filter_map(cable_debug::Shape::world_bounds)
            {
                seen = Some(seen.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
            }
            self.seen = seen;
            let opts = match seen {
                // A blown-up simulation can overflow the box: fit each frame then.
                Some((lo, hi)) if ((hi - lo) * 1.1).is_finite() => {
                    let margin = Vec3::splat((hi - lo).max_element().max(1.0e-3) * 0.04);
                    AsciiOptions {
                        fit: Fit::Box {
                            min: lo - margin,
                            max: hi + margin,
                        },
                        ..self.opts
                    }
                }
                _ => self.opts,
            };
            let picture = render_frame_ascii(&frame, &opts)?;
            let mut screen = String::with_capacity(picture.len() + 256);
            screen.push_str("\x1b[H");
            for line in picture.lines() {
                screen.push_str(line);
                screen.push_str("\x1b[K\r\n");
            }
            // One line only: a wrapped status would scroll the picture.
            screen.extend(status.chars().take(self.opts.width));
            screen.push_str("\x1b[K\x1b[J");
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(screen.as_bytes());
            let _ = out.flush();
        }
        let due = self.started + Duration::from_secs_f64(sim_time.max(0.0));
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            // Sleep in short slices so Ctrl-C answers at once.
            let end = Instant::now() + wait;
            while !interrupted() {
                let left = end.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                std::thread::sleep(left.min(Duration::from_millis(20)));
            }
        }
        Ok(())
    }
}
