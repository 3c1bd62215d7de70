//! Issue 38, outputs that are not plain files, same-file outputs, signals
//! and the `--svg` budget, through the binary.
//!
//! N1: a target that is not a regular file (a device node, a FIFO, a link
//! into `/proc`) is written in place and stays what it was; a symbolic link
//! is followed and stays a link. These tests never touch the real `/dev`:
//! they use FIFOs, links, device nodes made in a temporary directory (when
//! the process may make them: this machine's tests run as root, so they
//! check the behaviour "as root") and `/proc/self/fd/1`.
//! N3: SIGINT and SIGTERM stop a run within the spec's 0.5 s even inside
//! one long frame. N10: a cable growing during the run keeps `--svg`
//! within its budget. N11: `cable bench --svg` writes whole or not at all.
//! N12: two outputs, or an output and an input, naming one file: exit 2.
#![cfg(unix)]

mod common;

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{cable_bin, test_dir};

fn cable(args: &[&str]) -> Output {
    Command::new(cable_bin()).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small scene: one hanging cable.
const SCENE: &str = r#"{"cables": [{"start": [0, 0, 0], "end": [4, 0, 0], "segments": 8}]}"#;

fn write_scene(d: &Path, text: &str) -> PathBuf {
    let p = d.join("scene.json");
    std::fs::write(&p, text).unwrap();
    p
}

/// The names in `d`, sorted.
fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn assert_only(d: &Path, expected: &[&str]) {
    let mut want: Vec<String> = expected.iter().map(|s| (*s).to_owned()).collect();
    want.sort();
    assert_eq!(names(d), want, "files in {}", d.display());
}

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().unwrap();
    assert!(ok.success(), "mkfifo {}", p.display());
}

fn is_fifo(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_fifo())
}

/// `O_NONBLOCK` on Linux (x86, ARM, RISC-V): opening a FIFO's read end
/// with it neither waits for a writer nor hangs the test if none comes.
const O_NONBLOCK: i32 = 0o4000;

/// The read end of the FIFO at `p`, opened without waiting: while it is
/// open, a writer's open succeeds at once.
fn fifo_reader(p: &Path) -> std::fs::File {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(p)
        .unwrap()
}

/// Reads what arrives at `fifo` until `child` has exited (and the FIFO is
/// drained); `stop_after` bytes stop reading and close the read end early.
/// Kills the child after 120 s.
fn read_while_running(
    fifo: std::fs::File,
    child: &mut Child,
    stop_after: Option<usize>,
) -> (Vec<u8>, std::process::ExitStatus) {
    let started = Instant::now();
    let mut got = Vec::new();
    let mut buf = vec![0; 1 << 16];
    // Dropped (the read end closed) after `stop_after` bytes.
    let mut reader = Some(fifo);
    let status = loop {
        if let Some(r) = reader.as_mut() {
            match r.read(&mut buf) {
                Ok(n) if n > 0 => got.extend_from_slice(&buf[..n]),
                Ok(_) => std::thread::sleep(Duration::from_millis(2)),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => panic!("reading the FIFO: {e}"),
            }
            if stop_after.is_some_and(|n| got.len() >= n) {
                reader = None;
            }
        }
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("the run did not end");
        }
        if reader.is_none() {
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    if let Some(mut r) = reader {
        loop {
            match r.read(&mut buf) {
                Ok(n) if n > 0 => got.extend_from_slice(&buf[..n]),
                _ => break,
            }
        }
    }
    (got, status)
}

fn spawn(args: &[&str]) -> Child {
    Command::new(cable_bin())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn child_stderr(child: &mut Child) -> String {
    let mut e = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut e);
    }
    e
}

// ---- N1: outputs that are not regular files ----

/// Each output option into a FIFO: the run writes its whole output into
/// the FIFO, which is still a FIFO afterwards, and nothing is created
/// beside it (as root the FIFO was replaced by a regular file).
#[cfg(target_os = "linux")]
#[test]
fn a_fifo_output_is_written_in_place_and_stays_a_fifo() {
    let d = test_dir("outputs_fifo");
    let scene = write_scene(&d, SCENE);
    let fifo = d.join("pipe");
    mkfifo(&fifo);
    for (flag, starts) in [
        ("--out", "{\"substep\""),
        ("--svg", "<svg"),
        ("--obj", "# cable meshes"),
        ("--save", "{\"format\":\"cable-run-save\""),
    ] {
        let reader = fifo_reader(&fifo);
        let mut child = spawn(&["run", s(&scene), "--seconds", "0.2", flag, s(&fifo)]);
        let (got, status) = read_while_running(reader, &mut child, None);
        let err = child_stderr(&mut child);
        assert!(status.success(), "{flag}: {err}");
        let text = String::from_utf8(got).unwrap();
        assert!(text.starts_with(starts), "{flag}: {text:.80}");
        if flag == "--out" {
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v["frames"].as_array().map(Vec::len), Some(12));
        }
        assert!(is_fifo(&fifo), "{flag}: the FIFO was replaced");
        assert_only(&d, &["pipe", "scene.json"]);
    }
}

/// A link to a regular file in another directory: the file is written
/// (its temporary file made beside it, not beside the link), the link
/// stays a link to it.
#[test]
fn a_link_to_a_regular_file_is_followed_and_stays_a_link() {
    let d = test_dir("outputs_link");
    let scene = write_scene(&d, SCENE);
    let (a, b) = (d.join("a"), d.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(b.join("target.json"), "old").unwrap();
    let link = a.join("link.json");
    std::os::unix::fs::symlink("../b/target.json", &link).unwrap();
    let o = cable(&["run", s(&scene), "--seconds", "0.1", "--out", s(&link)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        PathBuf::from("../b/target.json")
    );
    let text = std::fs::read_to_string(b.join("target.json")).unwrap();
    assert!(text.starts_with("{\"substep\""), "{text:.80}");
    assert_only(&a, &["link.json"]);
    assert_only(&b, &["target.json"]);
}

/// A dangling link creates its target; a chain of links is followed to the
/// end; and a failed run leaves the target as it was.
#[test]
fn a_dangling_link_creates_its_target_and_a_failed_run_leaves_it() {
    let d = test_dir("outputs_dangling");
    let scene = write_scene(&d, SCENE);
    let sub = d.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::os::unix::fs::symlink("sub/new.svg", d.join("first")).unwrap();
    std::os::unix::fs::symlink("first", d.join("second")).unwrap();
    let link = d.join("second");
    let o = cable(&["run", s(&scene), "--seconds", "0.1", "--svg", s(&link)]);
    assert!(o.status.success(), "{}", stderr(&o));
    for l in ["first", "second"] {
        let meta = std::fs::symlink_metadata(d.join(l)).unwrap();
        assert!(meta.file_type().is_symlink(), "{l} was replaced");
    }
    let svg = std::fs::read_to_string(sub.join("new.svg")).unwrap();
    assert!(svg.contains("<svg"));
    // A bad --every: exit 2, the target untouched.
    std::fs::write(sub.join("new.svg"), "old").unwrap();
    let o = cable(&["run", s(&scene), "--every", "0", "--svg", s(&link)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(sub.join("new.svg")).unwrap(), "old");
    assert_only(&sub, &["new.svg"]);
    assert_only(&d, &["first", "scene.json", "second", "sub"]);
}

/// `/proc/self/fd/1` (what `/dev/stdout` links to) is written in place:
/// into a pipe, and into a regular file that is the run's standard output
/// through a link, which stays a link; the JSON comes first and the
/// summary line after it, both whole. It failed (exit 1, a rename into
/// `/proc`), or replaced the link with a regular file.
#[test]
fn standard_output_through_proc_is_written_in_place() {
    let d = test_dir("outputs_stdout");
    let scene = write_scene(&d, SCENE);
    let o = cable(&[
        "run",
        s(&scene),
        "--seconds",
        "0.1",
        "--out",
        "/proc/self/fd/1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let (json, summary) = text.split_once("]}\n").unwrap();
    let _: serde_json::Value = serde_json::from_str(&format!("{json}]}}")).unwrap();
    assert!(summary.contains("cables"), "{summary}");

    let link = d.join("stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    let log = d.join("log.txt");
    std::fs::write(&log, "").unwrap();
    let status = Command::new(cable_bin())
        .args(["run", s(&scene), "--seconds", "0.1", "--out", s(&link)])
        .stdout(std::fs::File::create(&log).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let (json, summary) = text.split_once("]}\n").unwrap();
    let v: serde_json::Value = serde_json::from_str(&format!("{json}]}}")).unwrap();
    assert_eq!(v["frames"].as_array().map(Vec::len), Some(6));
    assert!(
        summary.starts_with("1 cables") && summary.ends_with('\n'),
        "{summary}"
    );
    assert_only(&d, &["log.txt", "scene.json", "stdout"]);
}

/// Makes a character device node `name` (major, minor) in `d`, as root
/// can; `None` when this process may not make or open one (not root, or
/// a file system mounted `nodev`): the caller then skips.
fn device_node(d: &Path, name: &str, major: u32, minor: u32) -> Option<PathBuf> {
    let p = d.join(name);
    let made = Command::new("mknod")
        .arg(&p)
        .args(["c", &major.to_string(), &minor.to_string()])
        .stderr(Stdio::null())
        .status()
        .ok()?;
    if !made.success() {
        eprintln!("skipped: cannot make a device node here");
        return None;
    }
    if std::fs::OpenOptions::new().write(true).open(&p).is_err() {
        eprintln!("skipped: device nodes cannot be opened here (nodev)");
        let _ = std::fs::remove_file(&p);
        return None;
    }
    Some(p)
}

fn is_char_device(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_char_device())
}

/// As root, `--out` (and every other output) at a null device, directly or
/// through a link, leaves the device node a device node: it was replaced
/// by a regular file holding the output. (A copy of `/dev/null` made in a
/// temporary directory: the real `/dev` is never touched.)
#[test]
fn a_null_device_stays_a_device_whatever_writes_to_it() {
    let d = test_dir("outputs_null");
    let scene = write_scene(&d, SCENE);
    let Some(null) = device_node(&d, "null", 1, 3) else {
        return;
    };
    std::os::unix::fs::symlink("null", d.join("link")).unwrap();
    for flag in ["--out", "--svg", "--obj", "--save"] {
        for target in [&null, &d.join("link")] {
            let o = cable(&["run", s(&scene), "--seconds", "0.1", flag, s(target)]);
            assert!(
                o.status.success(),
                "{flag} {}: {}",
                target.display(),
                stderr(&o)
            );
            assert!(is_char_device(&null), "{flag}: the device was replaced");
            assert!(
                std::fs::symlink_metadata(d.join("link"))
                    .unwrap()
                    .is_symlink()
            );
            assert_only(&d, &["link", "null", "scene.json"]);
        }
    }
    let o = cable(&["demo", "--seconds", "0.1", "--no-ascii", "--svg", s(&null)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(is_char_device(&null));
    assert_only(&d, &["link", "null", "scene.json"]);
}

/// Writing to a full device (a copy of `/dev/full`) fails with exit 1 and
/// a message naming the output and the reason; the node stays.
#[test]
fn a_full_device_fails_with_exit_1_and_a_message() {
    let d = test_dir("outputs_full");
    let scene = write_scene(&d, SCENE);
    let Some(full) = device_node(&d, "full", 1, 7) else {
        return;
    };
    let o = cable(&["run", s(&scene), "--seconds", "0.1", "--out", s(&full)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("error: cannot write {} (--out): ", full.display())),
        "{err}"
    );
    assert!(err.contains("No space left on device"), "{err}");
    assert!(is_char_device(&full));
    assert_only(&d, &["full", "scene.json"]);
}

/// A FIFO whose reader goes away mid-output: exit 1 with a message (as with
/// `/dev/full`), the FIFO still a FIFO.
#[cfg(target_os = "linux")]
#[test]
fn a_fifo_closed_by_its_reader_fails_with_exit_1() {
    let d = test_dir("outputs_fifo_closed");
    // About 2 MB of frames, far more than a pipe holds.
    let scene = write_scene(
        &d,
        r#"{"cables": [{"start": [0, 0, 0], "end": [4, 0, 0], "segments": 400}]}"#,
    );
    let fifo = d.join("pipe");
    mkfifo(&fifo);
    let reader = fifo_reader(&fifo);
    let mut child = spawn(&["run", s(&scene), "--seconds", "3", "--out", s(&fifo)]);
    let (_, status) = read_while_running(reader, &mut child, Some(1));
    let err = child_stderr(&mut child);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(&format!("error: cannot write {} (--out): ", fifo.display())),
        "{err}"
    );
    assert!(is_fifo(&fifo));
    assert_only(&d, &["pipe", "scene.json"]);
}

/// A run that fails after its outputs were staged (here: the file size
/// limit makes every staged write fail) sends nothing into a FIFO output,
/// and leaves a regular one as it was.
#[cfg(target_os = "linux")]
#[test]
fn a_failed_run_sends_nothing_into_a_fifo() {
    let d = test_dir("outputs_fifo_failed");
    let scene = write_scene(&d, SCENE);
    let fifo = d.join("pipe");
    mkfifo(&fifo);
    let keep = d.join("keep.obj");
    std::fs::write(&keep, "precious").unwrap();
    let reader = fifo_reader(&fifo);
    let mut child = limited_file_size(&[
        "run",
        s(&scene),
        "--seconds",
        "0.1",
        "--svg",
        s(&fifo),
        "--obj",
        s(&keep),
    ]);
    let (got, status) = read_while_running(reader, &mut child, None);
    let err = child_stderr(&mut child);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(got.is_empty(), "{} bytes were sent", got.len());
    assert!(is_fifo(&fifo));
    assert_eq!(std::fs::read_to_string(&keep).unwrap(), "precious");
    assert_only(&d, &["keep.obj", "pipe", "scene.json"]);
}

/// Starts `cable args` with a file size limit of 0 (SIGXFSZ ignored), so
/// that any write into a regular file fails with EFBIG.
fn limited_file_size(args: &[&str]) -> Child {
    Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0 && exec \"$0\" \"$@\"")
        .arg(cable_bin())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

// ---- N11: bench --svg ----

/// `cable bench --svg` whose write fails leaves the existing file as it
/// was: it wrote in place, and a failed write left it truncated.
#[test]
fn bench_svg_that_cannot_be_written_leaves_the_existing_file() {
    let d = test_dir("outputs_bench");
    let svg = d.join("chart.svg");
    std::fs::write(&svg, "precious").unwrap();
    let bench = [
        "bench",
        "--cables",
        "1",
        "--segments",
        "4",
        "--substeps",
        "2",
        "--layout",
        "aos",
        "--svg",
        s(&svg),
    ];
    let mut child = limited_file_size(&bench);
    let status = child.wait().unwrap();
    let err = child_stderr(&mut child);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(&format!("error: cannot write {} (--svg): ", svg.display())),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), "precious");
    assert_only(&d, &["chart.svg"]);
    // Unlimited, the chart replaces it whole (a new file: the old one, still
    // open here, keeps its bytes).
    let old = std::fs::File::open(&svg).unwrap();
    let o = cable(&bench);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    let mut was = String::new();
    std::io::BufReader::new(old)
        .read_to_string(&mut was)
        .unwrap();
    assert_eq!(was, "precious");
    assert_only(&d, &["chart.svg"]);
}

// ---- N12: one file named twice ----

/// Exit 2, one line naming `flag` first.
fn assert_usage(o: &Output, flag: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with(&format!("error: {flag}: ")), "{err}");
}

/// `--restore s.json --out s.json` overwrote the save; the same through
/// another spelling, a link or a hard link; an output naming the scene.
#[test]
fn an_output_naming_the_restored_save_or_the_scene_is_refused() {
    let d = test_dir("outputs_same_file");
    let scene = write_scene(&d, SCENE);
    let save = d.join("save.json");
    let o = cable(&["run", s(&scene), "--seconds", "0.1", "--save", s(&save)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let saved = std::fs::read(&save).unwrap();
    std::os::unix::fs::symlink("save.json", d.join("link")).unwrap();
    std::fs::hard_link(&save, d.join("hard")).unwrap();
    let dotted = format!("{}/./save.json", d.display());
    for (flag, out) in [
        ("--out", s(&save).to_owned()),
        ("--svg", dotted.clone()),
        ("--obj", s(&d.join("link")).to_owned()),
        ("--save", s(&d.join("hard")).to_owned()),
    ] {
        let o = cable(&[
            "run",
            s(&scene),
            "--seconds",
            "0.2",
            "--restore",
            s(&save),
            flag,
            &out,
        ]);
        assert_usage(&o, flag);
        assert!(stderr(&o).contains("--restore"), "{}", stderr(&o));
        assert_eq!(std::fs::read(&save).unwrap(), saved, "{flag} {out}");
    }
    // The scene itself, spelled otherwise.
    let o = Command::new(cable_bin())
        .current_dir(&d)
        .args([
            "run",
            "scene.json",
            "--seconds",
            "0.1",
            "--out",
            "./scene.json",
        ])
        .output()
        .unwrap();
    assert_usage(&o, "--out");
    assert!(stderr(&o).contains("the scene"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&scene).unwrap(), SCENE);
    assert_only(&d, &["hard", "link", "save.json", "scene.json"]);
}

/// Two outputs at one file not there yet, one named through a dangling
/// link, or through `x` and `./x`: one would replace the other.
#[test]
fn two_outputs_at_one_new_file_are_refused() {
    let d = test_dir("outputs_same_new");
    let scene = write_scene(&d, SCENE);
    std::os::unix::fs::symlink("new.json", d.join("link")).unwrap();
    let o = cable(&[
        "run",
        s(&scene),
        "--out",
        s(&d.join("new.json")),
        "--svg",
        s(&d.join("link")),
    ]);
    assert_usage(&o, "--svg");
    let o = Command::new(cable_bin())
        .current_dir(&d)
        .args(["run", "scene.json", "--out", "x", "--obj", "./x"])
        .output()
        .unwrap();
    assert_usage(&o, "--obj");
    assert_only(&d, &["link", "scene.json"]);
}

// ---- N3: signals inside a long frame ----

/// One frame of this scene runs for minutes (10,000 substeps of 20,000
/// particles at 64 iterations).
const LONG_FRAME: &str = r#"{"substep": 0.001, "max_substeps": 10000, "iterations": 64,
  "cables": [{"start": [0, 0, 0], "end": [40, 0, 0], "segments": 20000, "attach_end": false}]}"#;

/// Waits until the run has created a temporary file in `d`.
fn wait_for_temp(d: &Path) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(60) {
        if names(d).iter().any(|n| n.ends_with(".tmp")) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the run never started writing");
}

/// Sends `signal` to a run inside its long first frame: it ends with 130
/// and `error: interrupted` within the spec's 0.5 s (it took the rest of
/// the frame, 19-22 s in the issue), with its temporary file removed, the
/// existing output as it was and nothing sent into the FIFO output. The
/// handler ends the run 0.3 s after the signal; the test allows 1 s, for a
/// loaded machine.
#[cfg(target_os = "linux")]
fn signal_stops_a_long_frame(signal: &str) {
    let d = test_dir(&format!("outputs_signal_{signal}"));
    let scene = write_scene(&d, LONG_FRAME);
    let keep = d.join("keep.json");
    std::fs::write(&keep, "precious").unwrap();
    let fifo = d.join("pipe");
    mkfifo(&fifo);
    let mut reader = fifo_reader(&fifo);
    let mut child = spawn(&[
        "run",
        s(&scene),
        "--seconds",
        "100",
        "--frame-dt",
        "10",
        "--out",
        s(&keep),
        "--svg",
        s(&fifo),
    ]);
    wait_for_temp(&d);
    // Well inside the first frame.
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    let sent = Instant::now();
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if sent.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{signal}: the run did not stop");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = sent.elapsed();
    let err = child_stderr(&mut child);
    assert_eq!(status.code(), Some(130), "{signal}: {err}");
    assert_eq!(err, "error: interrupted\n");
    assert!(
        took < Duration::from_secs(1),
        "{signal}: stopped after {took:?}"
    );
    assert_eq!(std::fs::read_to_string(&keep).unwrap(), "precious");
    let mut got = Vec::new();
    let _ = reader.read_to_end(&mut got);
    assert!(got.is_empty(), "{signal}: {} bytes sent", got.len());
    assert!(is_fifo(&fifo));
    assert_only(&d, &["keep.json", "pipe", "scene.json"]);
}

#[cfg(target_os = "linux")]
#[test]
fn sigint_stops_a_run_inside_a_long_frame() {
    signal_stops_a_long_frame("INT");
}

#[cfg(target_os = "linux")]
#[test]
fn sigterm_stops_a_run_inside_a_long_frame() {
    signal_stops_a_long_frame("TERM");
}

// ---- N10: the --svg budget as the particle count grows ----

/// Recorded positions in an animated SVG: the points of every frame of
/// every cable (the `values` of each cable path's animation).
fn recorded_positions(svg: &str) -> (usize, usize) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let mut points = 0;
    let mut frames = 0;
    for node in doc.descendants().filter(|n| n.has_tag_name("animate")) {
        let parent = node.parent().unwrap();
        if node.attribute("attributeName") != Some("d")
            || parent.attribute("class") != Some("cable")
        {
            continue;
        }
        let values = node.attribute("values").unwrap();
        frames = frames.max(values.split(';').count());
        points += values.matches(['M', 'L']).count();
    }
    (points, frames)
}

/// A winch paying out grows a cable from 17 to 19,617 particles: the
/// recording kept all 295 frames of it (2.9 million positions, 27 MB of
/// SVG, nearly 3x the budget of 1,000,000). It now thins its frames to stay
/// within.
#[test]
fn a_growing_cable_keeps_the_svg_within_its_budget() {
    let d = test_dir("outputs_svg_budget");
    let scene = write_scene(
        &d,
        r#"{"gravity": [0, 0, 0], "cables": [{"start": [0, 0, 0], "end": [4, 0, 0], "segments": 16,
            "attach_end": false, "reel_speed": 1000, "max_length": 5000}]}"#,
    );
    let svg = d.join("grow.svg");
    let out = d.join("grow.json");
    let o = cable(&[
        "run",
        s(&scene),
        "--seconds",
        "4.9",
        "--every",
        "300",
        "--svg",
        s(&svg),
        "--out",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let last = v["frames"][0]["cables"][0].as_array().unwrap().len();
    assert!(last > 19_000, "the cable grew to {last} particles only");
    let (points, frames) = recorded_positions(&std::fs::read_to_string(&svg).unwrap());
    assert!(points <= 1_000_000, "{points} positions in {frames} frames");
    assert!(frames >= 50, "{frames} frames");
}
