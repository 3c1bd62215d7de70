//! Interrupts (SIGINT, SIGTERM, SIGHUP) and the temporary files an
//! interrupt must remove: what the animation (`anim`) and the staged
//! outputs (`staged`) both answer to, so neither depends on the other.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Set by the Ctrl-C handler (SIGINT, SIGTERM, SIGHUP); the frame loop stops on it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether the alternate screen is on (an [`Animation`] is running), for
/// the interrupt handler to leave it when it must end the process itself.
pub(super) static ANIMATING: AtomicBool = AtomicBool::new(false);

/// Set (by [`finishing`]) once the command has returned and the process is
/// about to exit with its own message; the interrupt handler then leaves
/// the exit to it.
static FINISHING: Mutex<bool> = Mutex::new(false);

/// How long after an interrupt the handler waits for the command to stop
/// by itself (it checks between frames) before ending the process: the
/// spec gives a run 0.5 s to stop, whatever a frame is doing.
pub const GRACE: Duration = Duration::from_millis(300);

/// Show the cursor, leave the alternate screen.
pub(super) const LEAVE: &str = "\x1b[?25h\x1b[?1049l";

/// The temporary files beside targets that exist right now: removed by
/// [`abandon`] when an interrupt must end the process at once.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Locks [`LIVE`] (a panic elsewhere does not make the list unusable).
pub(super) fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Removes every registered temporary file and returns the registry still
/// locked: while the caller holds it no output can be committed (call it
/// just before ending the process on an interrupt).
pub fn abandon() -> MutexGuard<'static, Vec<PathBuf>> {
    let mut temps = live();
    for p in temps.drain(..) {
        let _ = std::fs::remove_file(p);
    }
    temps
}

/// Whether Ctrl-C was pressed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Makes Ctrl-C (SIGINT, SIGTERM, SIGHUP) set the flag of [`interrupted`]
/// instead of killing the process, so the frame loop can stop cleanly and
/// drop unfinished output files. A command that has not stopped [`GRACE`]
/// after the signal (in a long frame, a blocked read or write) is ended by
/// the handler: it removes every temporary output file
/// ([`abandon`], which also keeps any output from being
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
            let _temps = abandon();
            if ANIMATING.load(Ordering::SeqCst) {
                leave_screen_unlocked();
            }
            eprintln!("error: interrupted");
            std::process::exit(130);
        });
        // ctrlc sets the flag on its own thread, some time after the
        // signal: a read the signal ends (the writer of a pipe stopped by
        // the same Ctrl-C) could fail first and be reported as what it
        // read. Setting it in the signal handler itself, which runs before
        // the interrupted read returns, closes that gap. signal-hook keeps
        // (and calls) the handler ctrlc installed.
        #[cfg(unix)]
        for sig in [
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
        ] {
            let _ = signal_hook::flag::register(sig, &INTERRUPTED);
        }
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
