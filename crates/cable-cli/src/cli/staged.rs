//! Output files written whole or not at all.
//!
//! Every output (`--out`, `--svg`, `--obj`) is first written to a temporary
//! file beside its target (same directory, so the final rename cannot cross
//! file systems), and renamed over the target only when the whole run has
//! succeeded. A run that fails, is interrupted (Ctrl-C, SIGTERM, SIGHUP) or
//! whose results go non-finite drops its temporary files and leaves any
//! existing file at an output path as it was. A run killed outright
//! (SIGKILL) cannot clean up: it may leave a hidden `.NAME.XXXXXX.tmp`
//! beside the target, but never touches the target itself.

use std::io::Write;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::CliError;

/// One output file being written: a temporary file beside `path`.
pub struct Staged {
    flag: &'static str,
    path: PathBuf,
    tmp: NamedTempFile,
}

impl Staged {
    /// Creates the temporary file beside `path` for the option `flag`
    /// (e.g. `--out`), leaving `path` itself untouched. Fails when the
    /// directory does not exist or is not writable, or `path` is a directory.
    pub fn create(flag: &'static str, path: &Path) -> Result<Self, CliError> {
        if path.is_dir() {
            return Err(CliError::Other(format!(
                "{flag} {}: is a directory",
                path.display()
            )));
        }
        let name = path.file_name().ok_or_else(|| {
            CliError::Other(format!("{flag} {}: not a file name", path.display()))
        })?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
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
        let tmp = builder
            .tempfile_in(dir)
            .map_err(|e| io_err(flag, path, &e))?;
        Ok(Self {
            flag,
            path: path.to_owned(),
            tmp,
        })
    }

    /// The temporary file, to write into.
    pub fn file(&mut self) -> &mut NamedTempFile {
        &mut self.tmp
    }

    /// An I/O error writing this output, as a [`CliError`] naming it.
    pub fn io_err(&self, e: &std::io::Error) -> CliError {
        io_err(self.flag, &self.path, e)
    }

    /// The option that named this output and its path, for messages.
    pub fn label(&self) -> String {
        format!("{} {}", self.flag, self.path.display())
    }

    /// Flushes the temporary file and renames it over the target.
    pub fn commit(mut self) -> Result<(), CliError> {
        self.tmp.flush().map_err(|e| self.io_err(&e))?;
        let (flag, path) = (self.flag, self.path);
        self.tmp
            .persist(&path)
            .map(drop)
            .map_err(|e| io_err(flag, &path, &e.error))
    }
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

/// Refuses two outputs at the same path (exit 2): one would silently
/// replace the other.
pub fn check_distinct(outputs: &[(&'static str, Option<&PathBuf>)]) -> Result<(), CliError> {
    let given: Vec<(&str, &PathBuf)> = outputs
        .iter()
        .filter_map(|&(flag, p)| p.map(|p| (flag, p)))
        .collect();
    for (i, (flag, p)) in given.iter().enumerate() {
        for (other, q) in &given[..i] {
            let same = p == q
                || matches!(
                    (std::fs::canonicalize(p), std::fs::canonicalize(q)),
                    (Ok(a), Ok(b)) if a == b
                );
            if same {
                return Err(CliError::Usage(format!(
                    "{flag}: {} is also the file of {other}",
                    p.display()
                )));
            }
        }
    }
    Ok(())
}
