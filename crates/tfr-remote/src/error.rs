//! What goes wrong reading an object, said so that the user knows what to set or retry.
//!
//! `object_store`'s errors name the store's internals; these name the URL, and for credentials
//! the variable or file that would fix them.

use crate::url::{Cloud, ObjectUrl, UrlError};

/// Why an object (or a listing) could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Url(#[from] UrlError),
    #[error("{url}: no such object")]
    NotFound { url: String },
    #[error("{url}: the object was rewritten while it was read (its ETag changed); read it again")]
    Rewritten { url: String },
    #[error("{url}: {message}")]
    Credentials { url: String, message: String },
    #[error("{url}: no answer within {seconds} s ({what})")]
    Timeout {
        url: String,
        seconds: u64,
        what: &'static str,
    },
    #[error("{url}: the object is {len} bytes, more than the limit of {limit} bytes")]
    TooLarge { url: String, len: u64, limit: u64 },
    #[error("{url}: cannot be listed: {cloud} URLs name one object each")]
    NotListable { url: String, cloud: &'static str },
    #[error("{url}: {message}")]
    Io { url: String, message: String },
    #[error("{url}: {message}")]
    Other { url: String, message: String },
    /// A request its object's allowance refused ([`crate::fetch::Allowance`]); the message
    /// names the URL itself.
    #[error("{message}")]
    Refused { url: String, message: String },
}

impl Error {
    /// Turns `object_store`'s error for `url` into one that says what to do.
    pub fn from_store(url: &ObjectUrl, error: object_store::Error, hint: &str) -> Error {
        let text = url.to_string();
        match error {
            object_store::Error::NotFound { .. } => Error::NotFound { url: text },
            object_store::Error::Precondition { .. } | object_store::Error::NotModified { .. } => {
                Error::Rewritten { url: text }
            }
            object_store::Error::Unauthenticated { source, .. }
            | object_store::Error::PermissionDenied { source, .. } => Error::Credentials {
                url: text,
                message: format!(
                    "access denied ({}); {hint}",
                    first_line(&source.to_string())
                ),
            },
            other => {
                let message = chain(&other);
                if looks_like_credentials(&message) {
                    Error::Credentials {
                        url: text,
                        message: format!("no usable credentials ({message}); {hint}"),
                    }
                } else {
                    Error::Other { url: text, message }
                }
            }
        }
    }

    /// Whether reading again from the start could succeed where this failed (a timeout or a
    /// transport error, not a missing object or a refused credential).
    pub fn is_transient(&self) -> bool {
        matches!(self, Error::Timeout { .. } | Error::Other { .. })
    }
}

/// The error and its sources, on one line.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = first_line(&error.to_string());
    let mut source = error.source();
    while let Some(inner) = source {
        let line = first_line(&inner.to_string());
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = inner.source();
    }
    text
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

fn looks_like_credentials(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    [
        "credential",
        "metadata",
        "token",
        "instance profile",
        "imds",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// What to set for `cloud`'s credentials, for an error that says none were usable.
pub fn credentials_hint(cloud: Cloud) -> &'static str {
    match cloud {
        Cloud::S3 => {
            "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or for a \
             profile or SSO run `eval \"$(aws configure export-credentials --format env)\"`; \
             AWS_ENDPOINT_URL names another S3 service; --anonymous reads a public bucket"
        }
        Cloud::Gcs => {
            "set GOOGLE_APPLICATION_CREDENTIALS to a service account's key file, or run \
             `gcloud auth application-default login`; STORAGE_EMULATOR_HOST names an emulator; \
             --anonymous reads a public bucket"
        }
        Cloud::Azure => {
            "set AZURE_STORAGE_ACCOUNT_NAME with AZURE_STORAGE_ACCOUNT_KEY or \
             AZURE_STORAGE_SAS_TOKEN (or AZURE_CLIENT_ID, AZURE_CLIENT_SECRET and \
             AZURE_TENANT_ID), or AZURE_STORAGE_CONNECTION_STRING; --anonymous reads a public \
             container"
        }
        Cloud::Http => "the server refused the request",
    }
}
