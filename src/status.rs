//! The exit status a run ends with, the same for every subcommand and for the inspector.
//!
//! It lives beside the front ends rather than in either, so the inspector can report a status
//! without importing the command line, and `main` turns it into the process's exit code.

/// Exit statuses, documented in `--help`: 0 all intact, 1 damage found, 2 input unusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Everything read and intact.
    Clean = 0,
    /// Damage found (CRC mismatch, truncation, bytes that are not frames).
    Damage = 1,
    /// An input could not be used at all (missing, unreadable, a directory, bad arguments).
    Unusable = 2,
}
