//! Output files written whole or not at all, and never a device replaced.
//!
//! Every output (`--out`, `--svg`, `--obj`, `--save`, `cable demo --svg`,
//! `cable bench --svg`) is staged while the run goes and handed to its
//! target only when the whole run has succeeded ([`commit_all`]). What the
//! target is decides how, as GNU `sponge` or `install` would do it:
//!
//! - A regular file, or nothing yet: the output goes to a hidden temporary
//!   file `.NAME.XXXXXX.tmp` beside it (same directory, so the final rename
//!   cannot cross file systems), renamed over the target at the end. An
//!   existing file's permissions (and, when allowed, owner) are kept.
//! - A symbolic link is followed: its final target is the file written
//!   (by the rename above, in the target's own directory; a dangling link
//!   creates its target), and the link stays a link.
//! - Anything else (a character or block device such as `/dev/null` or
//!   `/dev/full`, a FIFO, a socket, a terminal), and any path that goes
//!   through `/proc` (`/dev/stdout` is a link to `/proc/self/fd/1`): the
//!   output is buffered in an anonymous temporary file in the system's
//!   temporary directory, and at the end the target is opened for writing
//!   (never created, replaced or removed) and the output copied into it.
//!   When that target is the process's own standard output or error, the
//!   copy goes through that descriptor, so it shares its position with the
//!   summary line printed after it. No file is ever created beside such a
//!   target (never in `/dev`).
//!
//! A run that fails, is interrupted (Ctrl-C, SIGTERM, SIGHUP; see
//! [`super::signal::catch_interrupts`]) or whose results go non-finite drops
//! its temporary files, so existing regular files are left as they were
//! and in-place targets are never opened. Every temporary file beside a
//! target is kept in a process-wide registry, so that an interrupt that
//! the run does not answer in time removes them before the process exits
//! ([`abandon`]). A run killed outright (SIGKILL) cannot clean up: it may
//! leave a `.NAME.XXXXXX.tmp` beside the target, but never touches the
//! target itself.

use std::fs::{File, Metadata};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::error::CliError;
use super::signal::live;

/// Most symbolic links followed for one output path (Linux's own limit).
const MAX_LINKS: usize = 40;

/// How an output reaches its target.
enum Sink {
    /// A temporary file beside `dest` (a regular file or nothing yet, links
    /// resolved), renamed over it at the end.
    Replace {
        /// The temporary file, registered in [`LIVE`].
        tmp: NamedTempFile,
        /// Where it goes.
        dest: PathBuf,
    },
    /// An anonymous buffer, copied into the output path opened in place
    /// at the end.
    InPlace {
        /// The buffer (already unlinked: nothing to clean up).
        buf: File,
    },
}

/// One output being written: a temporary file, handed to the target by
/// [`Staged::commit`] (or [`commit_all`]) and dropped otherwise.
pub struct Staged {
    flag: &'static str,
    path: PathBuf,
    /// `None` only while being committed.
    sink: Option<Sink>,
}

/// What an output path leads to.
#[derive(Debug)]
enum Target {
    /// A regular file at `dest` (every link followed), or nothing yet.
    Regular {
        dest: PathBuf,
        /// The existing file's metadata, if any.
        existing: Option<Metadata>,
    },
    /// Not a regular file, or reached through `/proc`: written in place
    /// through the path as given.
    InPlace,
    /// A directory: an error.
    Directory,
}

/// The directory holding `p` (`.` for a bare name).
fn parent_dir(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Whether `p` lies in `/proc`, where links are "magic" (`/proc/self/fd/1`
/// names an open file, not a path) and nothing can be created.
fn under_proc(p: &Path) -> bool {
    std::fs::canonicalize(parent_dir(p)).is_ok_and(|d| d.starts_with("/proc"))
}

/// Follows `path`'s symbolic links (each relative one from its own
/// directory) to what it finally names.
fn resolve(path: &Path) -> std::io::Result<Target> {
    let mut cur = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        if under_proc(&cur) {
            return Ok(Target::InPlace);
        }
        let meta = match std::fs::symlink_metadata(&cur) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Target::Regular {
                    dest: cur,
                    existing: None,
                });
            }
            Err(e) => return Err(e),
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            let to = std::fs::read_link(&cur)?;
            cur = if to.is_absolute() {
                to
            } else {
                parent_dir(&cur).join(to)
            };
        } else if kind.is_file() {
            return Ok(Target::Regular {
                dest: cur,
                existing: Some(meta),
            });
        } else if kind.is_dir() {
            return Ok(Target::Directory);
        } else {
            return Ok(Target::InPlace);
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

impl Staged {
    /// Prepares output `path` for the option `flag` (e.g. `--out`), leaving
    /// `path` itself untouched: a temporary file beside a regular target
    /// (or where it will be), an anonymous buffer for any other. Fails
    /// (exit 1) when the directory does not exist or is not writable, or
    /// `path` is a directory. Installs the interrupt handler first, so no
    /// temporary file can outlive a Ctrl-C.
    pub fn create(flag: &'static str, path: &Path) -> Result<Self, CliError> {
        super::signal::catch_interrupts();
        let sink = match resolve(path).map_err(|e| io_err(flag, path, &e))? {
            Target::Directory => {
                return Err(CliError::Other(format!(
                    "{flag} {}: is a directory",
                    path.display()
                )));
            }
            Target::InPlace => Sink::InPlace {
                buf: tempfile::tempfile().map_err(|e| {
                    CliError::Other(format!(
                        "cannot write {} ({flag}): no temporary file in {} to hold the output until the run ends: {e}",
                        path.display(),
                        std::env::temp_dir().display()
                    ))
                })?,
            },
            Target::Regular { dest, existing } => {
                let tmp = temp_beside(&dest, existing.as_ref())
                    .map_err(|e| io_err(flag, path, &e))?;
                Sink::Replace { tmp, dest }
            }
        };
        Ok(Self {
            flag,
            path: path.to_owned(),
            sink: Some(sink),
        })
    }

    /// The staged file, to write the output into.
    pub fn file(&mut self) -> &mut File {
        match &mut self.sink {
            Some(Sink::Replace { tmp, .. }) => tmp.as_file_mut(),
            Some(Sink::InPlace { buf }) => buf,
            // `sink` is taken only by `commit`, which consumes `self`.
            None => unreachable!("a committed output is not written"),
        }
    }

    /// Whether the target is written in place (not a regular file).
    fn in_place(&self) -> bool {
        matches!(self.sink, Some(Sink::InPlace { .. }))
    }

    /// An I/O error writing this output, as a [`CliError`] naming it.
    pub fn io_err(&self, e: &std::io::Error) -> CliError {
        io_err(self.flag, &self.path, e)
    }

    /// The option that named this output and its path, for messages.
    pub fn label(&self) -> String {
        format!("{} {}", self.flag, self.path.display())
    }

    /// Hands the output to its target: renames the temporary file over a
    /// regular target, or copies the buffer into any other target opened
    /// in place. Nothing happens (exit 130) once an interrupt was caught.
    pub fn commit(mut self) -> Result<(), CliError> {
        match self.sink.take() {
            Some(Sink::Replace { mut tmp, dest }) => {
                tmp.flush().map_err(|e| self.io_err(&e))?;
                // Locked, so an interrupt's clean-up cannot remove the
                // temporary file half way, nor a rename follow it.
                let mut temps = live();
                let name = tmp.path().to_owned();
                let res = if super::signal::interrupted() {
                    drop(tmp);
                    Err(CliError::Interrupted)
                } else {
                    tmp.persist(&dest)
                        .map(drop)
                        .map_err(|e| self.io_err(&e.error))
                };
                temps.retain(|p| *p != name);
                res
            }
            Some(Sink::InPlace { mut buf }) => {
                if super::signal::interrupted() {
                    return Err(CliError::Interrupted);
                }
                write_in_place(&self.path, &mut buf).map_err(|e| self.io_err(&e))
            }
            None => Ok(()),
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(Sink::Replace { tmp, .. }) = self.sink.take() {
            let mut temps = live();
            let name = tmp.path().to_owned();
            drop(tmp);
            temps.retain(|p| *p != name);
        }
    }
}

/// Commits every output, the in-place ones first: their writes are the
/// ones that may fail (a full device, a closed pipe), and then no regular
/// file has been replaced yet.
pub fn commit_all(mut outputs: Vec<Staged>) -> Result<(), CliError> {
    outputs.sort_by_key(|s| !s.in_place());
    for s in outputs {
        s.commit()?;
    }
    Ok(())
}

/// Creates the registered temporary file beside `dest`, with the
/// permissions (and owner, when allowed) of the file it will replace, or
/// those `File::create` would give.
fn temp_beside(dest: &Path, existing: Option<&Metadata>) -> std::io::Result<NamedTempFile> {
    let name = dest
        .file_name()
        .ok_or_else(|| std::io::Error::other("not a file name"))?;
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // As `File::create` would: 0666 less the umask, not tempfile's 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    // Registered while locked: an interrupt's clean-up cannot miss it.
    let mut temps = live();
    let tmp = builder.tempfile_in(parent_dir(dest))?;
    temps.push(tmp.path().to_owned());
    drop(temps);
    if let Some(m) = existing {
        #[cfg(unix)]
        {
            use std::os::unix::fs::{MetadataExt, PermissionsExt};
            // Only root may give a file away; others keep their own.
            let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(m.uid()), Some(m.gid()));
            let mode = std::fs::Permissions::from_mode(m.mode() & 0o777);
            tmp.as_file().set_permissions(mode)?;
        }
        #[cfg(not(unix))]
        tmp.as_file().set_permissions(m.permissions())?;
    }
    Ok(tmp)
}

/// Copies `buf` from its start into `path`, opened for writing in place
/// (never created): through the process's own standard output or error
/// when `path` is that file, so the two share one position; otherwise a
/// regular file (one reached through `/proc`) is truncated first, as `>`
/// would.
fn write_in_place(path: &Path, buf: &mut File) -> std::io::Result<()> {
    buf.seek(SeekFrom::Start(0))?;
    let mut target = std::fs::OpenOptions::new().write(true).open(path)?;
    let meta = target.metadata()?;
    if let Some(mut std_stream) = own_stream(&meta) {
        std::io::copy(buf, &mut std_stream)?;
        return std_stream.flush();
    }
    if meta.is_file() {
        target.set_len(0)?;
    }
    std::io::copy(buf, &mut target)?;
    target.flush()
}

/// The process's standard output (or error) as a duplicated descriptor,
/// flushed, when it is the file `meta` describes.
#[cfg(unix)]
fn own_stream(meta: &Metadata) -> Option<File> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let dup = |fd: std::os::fd::BorrowedFd<'_>| fd.try_clone_to_owned().ok().map(File::from);
    let out = std::io::stdout();
    let err = std::io::stderr();
    for stream in [dup(out.as_fd()), dup(err.as_fd())].into_iter().flatten() {
        let same = stream
            .metadata()
            .is_ok_and(|m| (m.dev(), m.ino()) == (meta.dev(), meta.ino()));
        if same {
            let _ = out.lock().flush();
            return Some(stream);
        }
    }
    None
}

/// Elsewhere the target is written through its own descriptor.
#[cfg(not(unix))]
fn own_stream(_: &Metadata) -> Option<File> {
    None
}

/// An I/O error writing output `flag` at `path` (the OS's reason alone:
/// the temporary file's name would only confuse).
pub fn io_err(flag: &str, path: &Path, e: &std::io::Error) -> CliError {
    let reason = e.raw_os_error().map_or_else(
        || e.to_string(),
        |c| std::io::Error::from_raw_os_error(c).to_string(),
    );
    CliError::Other(format!(
        "cannot write {} ({flag}): {reason}",
        path.display()
    ))
}

/// What makes two paths the same file.
#[derive(Debug, PartialEq, Eq)]
enum FileKey {
    /// An existing file: its device and inode (every link followed).
    Inode(u64, u64),
    /// A file still to be created: where (its directory made canonical).
    Path(PathBuf),
}

/// The identity of the file at `p` for [`check_distinct`].
fn file_key(p: &Path) -> Option<FileKey> {
    #[cfg(unix)]
    if let Ok(m) = std::fs::metadata(p) {
        use std::os::unix::fs::MetadataExt;
        return Some(FileKey::Inode(m.dev(), m.ino()));
    }
    if let Ok(c) = std::fs::canonicalize(p) {
        return Some(FileKey::Path(c));
    }
    // Not there yet (maybe the target of a dangling link).
    match resolve(p).ok()? {
        Target::Regular { dest, .. } => {
            let dir = std::fs::canonicalize(parent_dir(&dest)).ok()?;
            Some(FileKey::Path(dir.join(dest.file_name()?)))
        }
        _ => None,
    }
}

/// Refuses (exit 2) two `outputs`, or an output and one of `inputs`,
/// naming the same file: the same path, two spellings of it (`./x` and
/// `x`), links to it, or hard links. Each is `(label, path)`: an option
/// such as `--out`, or `the scene` for the scene file; `None`s are
/// skipped. The output is named first. (Two inputs may be one file: both
/// are only read.)
pub fn check_distinct(
    inputs: &[(&'static str, Option<&Path>)],
    outputs: &[(&'static str, Option<&Path>)],
) -> Result<(), CliError> {
    let keyed =
        |files: &[(&'static str, Option<&Path>)]| -> Vec<(&'static str, PathBuf, Option<FileKey>)> {
            files
                .iter()
                .filter_map(|&(flag, p)| p.map(|p| (flag, p.to_owned(), file_key(p))))
                .collect()
        };
    let mut seen = keyed(inputs);
    for (flag, p, key) in keyed(outputs) {
        for (other, q, other_key) in &seen {
            let same = p == *q || key.as_ref().is_some_and(|k| Some(k) == other_key.as_ref());
            if same {
                return Err(CliError::Usage(format!(
                    "{flag}: {} is also the file of {other}{}",
                    p.display(),
                    if p == *q {
                        String::new()
                    } else {
                        format!(" ({})", q.display())
                    }
                )));
            }
        }
        seen.push((flag, p, key));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("staged_{}_{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_to_their_final_target() {
        let d = dir("resolve");
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("sub/real"), "x").unwrap();
        std::os::unix::fs::symlink("sub/real", d.join("a")).unwrap();
        std::os::unix::fs::symlink("a", d.join("b")).unwrap();
        std::os::unix::fs::symlink("sub/none", d.join("dangling")).unwrap();
        std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
        let Ok(Target::Regular { dest, existing }) = resolve(&d.join("b")) else {
            panic!("b is a link to a regular file");
        };
        assert_eq!(std::fs::canonicalize(dest).unwrap(), d.join("sub/real"));
        assert!(existing.is_some());
        let Ok(Target::Regular { dest, existing }) = resolve(&d.join("dangling")) else {
            panic!("a dangling link names a file to create");
        };
        assert_eq!(dest, d.join("sub/none"));
        assert!(existing.is_none());
        assert!(matches!(resolve(&d), Ok(Target::Directory)));
        assert!(resolve(&d.join("loop")).is_err());
        // /proc's links name open files, not paths: written in place.
        assert!(matches!(
            resolve(Path::new("/proc/self/fd/0")),
            Ok(Target::InPlace)
        ));
        std::os::unix::fs::symlink("/proc/self/fd/1", d.join("out")).unwrap();
        assert!(matches!(resolve(&d.join("out")), Ok(Target::InPlace)));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn temporary_files_are_registered_until_committed_or_dropped() {
        let d = dir("registry");
        let registered = |s: &Staged| {
            let Some(Sink::Replace { tmp, .. }) = &s.sink else {
                panic!("a regular target");
            };
            live().contains(&tmp.path().to_owned())
        };
        let a = Staged::create("--out", &d.join("a")).unwrap();
        let mut b = Staged::create("--svg", &d.join("b")).unwrap();
        assert!(registered(&a) && registered(&b));
        b.file().write_all(b"b").unwrap();
        drop(a);
        let Some(Sink::Replace { tmp, .. }) = &b.sink else {
            panic!("a regular target");
        };
        let name = tmp.path().to_owned();
        b.commit().unwrap();
        assert!(!live().contains(&name));
        assert_eq!(std::fs::read_to_string(d.join("b")).unwrap(), "b");
        let names: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
