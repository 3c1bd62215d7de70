//! The error every command returns, with its exit code.

/// A failure of a command, with its exit code.
#[derive(Debug)]
pub enum CliError {
    /// Bad usage or a bad scene: exit code 2.
    Usage(String),
    /// Anything else (I/O): exit code 1.
    Other(String),
    /// Stopped by Ctrl-C: exit code 130, as shells report SIGINT.
    Interrupted,
}

impl CliError {
    pub(super) fn code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Other(_) => 1,
            CliError::Interrupted => 130,
        }
    }
    pub(super) fn message(&self) -> &str {
        match self {
            CliError::Usage(m) | CliError::Other(m) => m,
            CliError::Interrupted => "interrupted",
        }
    }
}
