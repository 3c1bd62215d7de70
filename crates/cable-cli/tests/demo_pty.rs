//! The terminal animation under a real pseudo-terminal: it draws on the
//! alternate screen with the cursor hidden, and leaves the terminal restored
//! (cursor shown, main screen) when it ends and when Ctrl-C stops it.

mod common;

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 30;
const COLS: u16 = 100;

struct Session {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    output: mpsc::Receiver<Vec<u8>>,
    seen: Vec<u8>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

fn spawn(args: &[&str]) -> Session {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("openpty");
    let mut cmd = CommandBuilder::new(common::cable_bin());
    cmd.args(args);
    cmd.env("TERM", "xterm-256color");
    let child = pair.slave.spawn_command(cmd).expect("spawn cable");
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let writer = pair.master.take_writer().expect("writer");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        // Reading the master fails with EIO once the child has gone: EOF.
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    Session {
        child,
        writer,
        output: rx,
        seen: Vec::new(),
        _master: pair.master,
    }
}

impl Session {
    /// Collects output until `pred` holds for it or `limit` passes.
    fn read_until(&mut self, limit: Duration, pred: impl Fn(&[u8]) -> bool) -> bool {
        let end = Instant::now() + limit;
        while !pred(&self.seen) {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            match self
                .output
                .recv_timeout(left.min(Duration::from_millis(100)))
            {
                Ok(chunk) => self.seen.extend(chunk),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return pred(&self.seen),
            }
        }
        true
    }

    /// Waits for the child to exit (killing it after `limit`) and drains
    /// its output; returns the exit code.
    fn finish(&mut self, limit: Duration) -> u32 {
        let end = Instant::now() + limit;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                break s;
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                panic!(
                    "cable did not exit within {limit:?}; output so far:\n{}",
                    String::from_utf8_lossy(&self.seen)
                );
            }
            while let Ok(chunk) = self.output.try_recv() {
                self.seen.extend(chunk);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // The reader thread ends at EOF after the child is gone.
        self.read_until(Duration::from_secs(2), |_| false);
        status.exit_code()
    }

    /// The terminal's state after everything the program wrote.
    fn screen(&self) -> vt100::Parser {
        let rows = std::num::NonZeroU16::new(ROWS).expect("ROWS is not 0");
        let cols = std::num::NonZeroU16::new(COLS).expect("COLS is not 0");
        let mut p = vt100::Parser::new(rows, cols, 0);
        p.process(&self.seen);
        p
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn demo_animates_on_the_alternate_screen_and_restores_the_terminal() {
    let mut s = spawn(&["demo", "--seconds", "0.6"]);
    let code = s.finish(Duration::from_secs(60));
    let out = String::from_utf8_lossy(&s.seen).into_owned();
    assert_eq!(code, 0, "{out}");
    assert!(
        contains(&s.seen, b"\x1b[?1049h"),
        "never entered the alternate screen:\n{out}"
    );
    assert!(
        contains(&s.seen, b"\x1b[?25l"),
        "never hid the cursor:\n{out}"
    );
    assert!(out.contains("Ctrl-C stops"), "no animated frame:\n{out}");
    let p = s.screen();
    let screen = p.screen();
    assert!(!screen.alternate_screen(), "left on the alternate screen");
    assert!(!screen.hide_cursor(), "cursor left hidden");
    // The final frame and the summary stay on the normal screen.
    let text = screen.contents();
    assert!(text.contains("demo: 7 cables"), "{text}");
    assert!(text.contains('●') && text.contains("view xy"), "{text}");
}

#[test]
fn ctrl_c_stops_the_demo_and_restores_the_terminal() {
    let mut s = spawn(&["demo", "--seconds", "120"]);
    assert!(
        s.read_until(Duration::from_secs(60), |b| contains(b, b"Ctrl-C stops")),
        "no frame drawn:\n{}",
        String::from_utf8_lossy(&s.seen)
    );
    s.writer.write_all(b"\x03").expect("send Ctrl-C");
    s.writer.flush().expect("flush");
    let code = s.finish(Duration::from_secs(20));
    assert_eq!(code, 130, "{}", String::from_utf8_lossy(&s.seen));
    let p = s.screen();
    assert!(
        !p.screen().alternate_screen(),
        "left on the alternate screen"
    );
    assert!(!p.screen().hide_cursor(), "cursor left hidden");
    assert!(p.screen().contents().contains("error: interrupted"));
}

#[test]
fn run_ascii_on_a_terminal_animates_and_restores_it() {
    let dir = std::env::temp_dir().join(format!("cable-pty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let scene = dir.join("scene.json");
    std::fs::write(
        &scene,
        r#"{"cables": [{"start": [0, 0, 0], "end": [4, 0, 0], "length": 5, "segments": 16}]}"#,
    )
    .expect("write scene");
    let mut s = spawn(&[
        "run",
        scene.to_str().expect("utf-8 path"),
        "--seconds",
        "0.4",
        "--ascii",
    ]);
    let code = s.finish(Duration::from_secs(60));
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&s.seen));
    assert!(contains(&s.seen, b"\x1b[?1049h"));
    let p = s.screen();
    assert!(!p.screen().alternate_screen() && !p.screen().hide_cursor());
    assert!(p.screen().contents().contains("1 cables, 17 particles"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_on_a_terminal_shows_its_progress_then_clears_it() {
    let mut s = spawn(&[
        "bench",
        "--cables",
        "64",
        "--segments",
        "16",
        "--repeat",
        "2",
    ]);
    let code = s.finish(Duration::from_secs(120));
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&s.seen));
    // Drawn while it ran: "<done>/<all> runs, <layout>".
    assert!(
        contains(&s.seen, b"/6 runs, "),
        "no progress drawn: {}",
        String::from_utf8_lossy(&s.seen)
    );
    // Cleared at the end: the table stays, the bar does not.
    let screen = s.screen().screen().contents();
    assert!(!screen.contains(" runs, "), "bar left on screen:\n{screen}");
    assert!(screen.contains("lanes8"), "no table:\n{screen}");
}
