//! Core errors say what is wrong; the application says which of its flags helps.
//!
//! Every error the user reads, on stderr, in JSON or in the inspector's status line, goes through
//! [`UserMessage`], so the hint is added in one place and a core message never names a flag.

use tfr_core::error::{DecompressProblem, Error};
use tfr_core::escape::{for_terminal, path_for_terminal};
use tfr_core::output::OutputError;

/// What the user reads for an error.
pub trait UserMessage {
    fn user_message(&self) -> String;
}

impl UserMessage for Error {
    /// The core's message, with the flag that helps where one does.
    fn user_message(&self) -> String {
        match self {
            Error::TooLarge { .. } => format!("{self} (or raise --max-decompressed)"),
            Error::Decompress {
                path,
                offset,
                problem,
            } => {
                let hint = match problem {
                    DecompressProblem::OverLimit { .. } => " (use --max-decompressed to raise it)",
                    DecompressProblem::NotThisCompression(_) => "; try --compression auto or none",
                };
                let path = path_for_terminal(path);
                format!("{path}: {problem}{hint} (at byte {offset})")
            }
            Error::SeveralMessages { path, names } => format!(
                "{}: defines several messages; name the payload type with --message, one of: {}",
                path_for_terminal(path),
                for_terminal(&names.join(", "))
            ),
            // No .proto file to name: the message type came from the flag alone.
            Error::NoSuchMessage { path: None, .. } => format!("--message: {self}"),
            _ => self.to_string(),
        }
    }
}

impl UserMessage for OutputError {
    /// A refusal to write: the core's reason, and the flag that changes it.
    fn user_message(&self) -> String {
        match self {
            OutputError::Exists { .. } => format!("{self}; pass --force to replace it"),
            _ => self.to_string(),
        }
    }
}

impl UserMessage for anyhow::Error {
    /// The outermost message, as `{}` shows it (a core error with its hint).
    fn user_message(&self) -> String {
        match self.downcast_ref::<Error>() {
            Some(core) => core.user_message(),
            None => self.to_string(),
        }
    }
}

impl UserMessage for str {
    fn user_message(&self) -> String {
        self.to_string()
    }
}

impl UserMessage for String {
    fn user_message(&self) -> String {
        self.clone()
    }
}

impl UserMessage for std::io::Error {
    fn user_message(&self) -> String {
        self.to_string()
    }
}

/// The whole chain of `err`, as `{:#}` shows it, with a hint for each core error in it.
pub fn chain_message(err: &anyhow::Error) -> String {
    err.chain()
        .map(|cause| match cause.downcast_ref::<Error>() {
            Some(core) => core.user_message(),
            None => cause.to_string(),
        })
        .collect::<Vec<_>>()
        .join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use tfr_core::compress::Compression;
    use tfr_core::span::FileOffset;

    #[test]
    fn flags_are_named_by_the_application_not_the_core() {
        let path = PathBuf::from("in.gz");
        let over = Error::Decompress {
            path: path.clone(),
            offset: FileOffset(7),
            problem: DecompressProblem::OverLimit {
                compression: Compression::Gzip,
                limit: 10,
            },
        };
        assert_eq!(
            over.to_string(),
            "in.gz: decompressed GZIP stream exceeds the limit of 10 bytes (at byte 7)"
        );
        assert_eq!(
            over.user_message(),
            "in.gz: decompressed GZIP stream exceeds the limit of 10 bytes \
             (use --max-decompressed to raise it) (at byte 7)"
        );
        let unknown = Error::NoSuchMessage {
            path: None,
            name: "a.B".into(),
            known: vec!["x.Y".into()],
        };
        assert_eq!(
            unknown.to_string(),
            "no message named `a.B`; did you mean x.Y?"
        );
        assert_eq!(
            unknown.user_message(),
            "--message: no message named `a.B`; did you mean x.Y?"
        );
        let wrapped = anyhow::Error::new(Error::TooLarge { path, limit: 3 }).context("opening");
        assert_eq!(
            chain_message(&wrapped),
            "opening: in.gz: more than 3 bytes arrived from this pipe; save it to a file first \
             (or raise --max-decompressed)"
        );
    }
}
