//! Terminal animation for `cable demo` and `cable run --ascii`: frames drawn
//! in place with ANSI cursor control on the alternate screen, and the
//! terminal restored on every way out (end, error, panic, Ctrl-C); and the
//! interrupt handling every command shares ([`catch_interrupts`]).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use cable_debug::{AsciiOptions, Fit, Frame, RenderError, render_frame_ascii};
use glam::Vec3;

/// Set by the Ctrl-C handler (SIGINT, SIGTERM, SIGHUP); the frame loop stops on it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether the alternate screen is on (an [`Animation`] is running), for
/// the interrupt handler to leave it when it must end the process itself.
static ANIMATING: AtomicBool = AtomicBool::new(false);

/// Set (by [`finishing`]) once the command has returned and the process is
/// about to exit with its own message; the interrupt handler then leaves
/// the exit to it.
static FINISHING: Mutex<bool> = Mutex::new(false);

/// How long after an interrupt the handler waits for the command to stop
/// by itself (it checks between frames) before ending the process: the
/// spec gives a run 0.5 s to stop, whatever a frame is doing.
pub const GRACE: Duration = Duration::from_millis(300);

/// Enter the alternate screen, hide the cursor, clear.
const ENTER: &str = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J";
/// Show the cursor, leave the alternate screen.
const LEAVE: &str = "\x1b[?25h\x1b[?1049l";

/// Most frames drawn per second of wall time.
const MAX_FPS: f64 = 30.0;

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Makes Ctrl-C (SIGINT, SIGTERM, SIGHUP) set the flag of [`interrupted`]
/// instead of killing the process, so the frame loop can stop cleanly and
/// drop unfinished output files. A command that has not stopped [`GRACE`]
/// after the signal (in a long frame, a blocked read or write) is ended by
/// the handler: it removes every temporary output file
/// ([`super::staged::abandon`], which also keeps any output from being
/// committed), restores the terminal, prints `error: interrupted` and exits
/// with 130. Idempotent.
pub fn catch_interrupts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // The handler can be set only once per process; `Once` sees to that.
    // Setting it fails only when the signals cannot be caught at all, and
    // then they keep their default action (the process ends, which leaves
    // the targets of unfinished outputs untouched anyway).
    ONCE.call_once(|| {
        // ctrlc runs the handler on its own thread: it may wait there.
        let _ = ctrlc::set_handler(|| {
            INTERRUPTED.store(true, Ordering::SeqCst);
            std::thread::sleep(GRACE);
            let done = FINISHING.lock().unwrap_or_else(PoisonError::into_inner);
            if *done {
                // The command stopped and is printing its own message.
                return;
            }
            // Held until the exit: no output can be committed meanwhile.
            let _temps = super::staged::abandon();
            if ANIMATING.load(Ordering::SeqCst) {
                leave_screen_unlocked();
            }
            eprintln!("error: interrupted");
            std::process::exit(130);
        });
    });
}

/// Marks the command as returned: an interrupt handled from now on leaves
/// the exit (and its message) to the caller. Call before printing the
/// command's result.
pub fn finishing() {
    *FINISHING.lock().unwrap_or_else(PoisonError::into_inner) = true;
}

/// Leaves the alternate screen through a duplicate of standard output's
/// descriptor, which needs no lock (the frame loop may hold it).
fn leave_screen_unlocked() {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() {
            let mut out = std::fs::File::from(fd);
            let _ = out.write_all(LEAVE.as_bytes());
        }
    }
}

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
