//! Object URLs as users type them: `gs://bucket/key`, `s3://bucket/key`, `az://container/key`,
//! `abfs[s]://container@account.dfs.core.windows.net/key` and `http[s]://host/path`.
//!
//! A URL whose key is empty or ends in `/` names a prefix, as a directory does locally; a key
//! with glob characters (`*`, `?`, `[`, `{`) is a pattern over the keys under its literal part.

use std::fmt;

/// The service an object lives in, which decides how its store is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cloud {
    S3,
    Gcs,
    Azure,
    /// Any web server that answers GET with Range (and HEAD): one object per URL, no listing.
    Http,
}

impl Cloud {
    pub fn name(self) -> &'static str {
        match self {
            Cloud::S3 => "S3",
            Cloud::Gcs => "Google Cloud Storage",
            Cloud::Azure => "Azure Blob Storage",
            Cloud::Http => "HTTP",
        }
    }
}

/// A parsed object URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectUrl {
    pub cloud: Cloud,
    /// What comes before the bucket: `gs://`, `s3://`, `az://`, `abfss://`, `https://`.
    pub scheme: String,
    /// The bucket (S3, GCS), the container (Azure), or `host[:port]` (HTTP).
    pub bucket: String,
    /// The storage account, from an `abfs[s]://container@account.…` URL.
    pub account: Option<String>,
    /// What follows the bucket's `/`, as typed (may be empty, may end in `/`).
    pub key: String,
}

/// Why a URL cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("{0}: no bucket named (expected SCHEME://BUCKET/KEY)")]
    NoBucket(String),
    #[error("{0}: expected abfs[s]://CONTAINER@ACCOUNT.dfs.core.windows.net/KEY")]
    Abfs(String),
    #[error("{0}: `..` or `.` as a key's segment is not a key object storage can hold")]
    DotSegment(String),
}

/// Whether `text` names an object store (a scheme this crate reads, then `://`), rather than a
/// local path.
pub fn is_url(text: &str) -> bool {
    scheme_of(text).is_some()
}

fn scheme_of(text: &str) -> Option<(Cloud, &str, &str)> {
    const SCHEMES: [(&str, Cloud); 8] = [
        ("gs://", Cloud::Gcs),
        ("s3://", Cloud::S3),
        ("s3a://", Cloud::S3),
        ("az://", Cloud::Azure),
        ("abfs://", Cloud::Azure),
        ("abfss://", Cloud::Azure),
        ("https://", Cloud::Http),
        ("http://", Cloud::Http),
    ];
    SCHEMES.iter().find_map(|(scheme, cloud)| {
        let head = text.get(..scheme.len())?;
        let rest = text.get(scheme.len()..)?;
        head.eq_ignore_ascii_case(scheme)
            .then_some((*cloud, *scheme, rest))
    })
}

impl ObjectUrl {
    /// `None` when `text` is not a URL of a scheme read here (a local path).
    pub fn parse(text: &str) -> Option<Result<ObjectUrl, UrlError>> {
        let (cloud, scheme, rest) = scheme_of(text)?;
        Some(Self::parse_rest(text, cloud, scheme, rest))
    }

    fn parse_rest(
        text: &str,
        cloud: Cloud,
        scheme: &str,
        rest: &str,
    ) -> Result<ObjectUrl, UrlError> {
        let (authority, key) = rest.split_once('/').unwrap_or((rest, ""));
        if authority.is_empty() {
            return Err(UrlError::NoBucket(text.to_string()));
        }
        let (bucket, account) = if scheme.starts_with("abfs") {
            let (container, host) = authority
                .split_once('@')
                .ok_or_else(|| UrlError::Abfs(text.to_string()))?;
            let account = host.split('.').next().unwrap_or_default();
            if container.is_empty() || account.is_empty() {
                return Err(UrlError::Abfs(text.to_string()));
            }
            (container.to_string(), Some(account.to_string()))
        } else {
            (authority.to_string(), None)
        };
        if cloud != Cloud::Http && key.split('/').any(|s| s == "." || s == "..") {
            return Err(UrlError::DotSegment(text.to_string()));
        }
        Ok(ObjectUrl {
            cloud,
            scheme: scheme.to_string(),
            bucket,
            account,
            key: key.to_string(),
        })
    }

    /// Whether the URL names a prefix (a directory) rather than one object.
    pub fn is_prefix(&self) -> bool {
        self.cloud != Cloud::Http && (self.key.is_empty() || self.key.ends_with('/'))
    }

    /// Whether the key is a glob pattern.
    pub fn is_pattern(&self) -> bool {
        self.cloud != Cloud::Http && self.key.contains(['*', '?', '[', '{'])
    }

    /// The key's part before its first glob character, cut back to the last `/`: the prefix
    /// to list for a pattern.
    pub fn literal_prefix(&self) -> &str {
        let first = self
            .key
            .find(['*', '?', '[', '{'])
            .unwrap_or(self.key.len());
        let head = self.key.get(..first).unwrap_or_default();
        head.rfind('/')
            .and_then(|slash| self.key.get(..=slash))
            .unwrap_or_default()
    }

    /// The same bucket's object `key`.
    pub fn with_key(&self, key: &str) -> ObjectUrl {
        ObjectUrl {
            key: key.to_string(),
            ..self.clone()
        }
    }

    /// The object's name: the key's last segment.
    pub fn file_name(&self) -> &str {
        self.key
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or("")
    }

    /// `scheme://bucket/` (with the account of an abfs URL): what every key of the store is
    /// written after.
    pub fn root(&self) -> String {
        match &self.account {
            Some(account) if self.scheme.starts_with("abfs") => {
                format!(
                    "{}{}@{account}.dfs.core.windows.net/",
                    self.scheme, self.bucket
                )
            }
            _ => format!("{}{}/", self.scheme, self.bucket),
        }
    }
}

impl fmt::Display for ObjectUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.root(), self.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ObjectUrl {
        ObjectUrl::parse(text).unwrap().unwrap()
    }

    #[test]
    fn each_scheme_parses_into_its_cloud_bucket_and_key() {
        let url = parse("gs://tfds-data/datasets/mnist/train-00000-of-00001");
        assert_eq!(url.cloud, Cloud::Gcs);
        assert_eq!(url.bucket, "tfds-data");
        assert_eq!(url.key, "datasets/mnist/train-00000-of-00001");
        assert_eq!(url.file_name(), "train-00000-of-00001");
        assert!(!url.is_prefix());
        assert_eq!(
            url.to_string(),
            "gs://tfds-data/datasets/mnist/train-00000-of-00001"
        );
        assert_eq!(parse("s3://b/k").cloud, Cloud::S3);
        assert_eq!(parse("S3://b/k").cloud, Cloud::S3);
        assert_eq!(parse("az://c/k").cloud, Cloud::Azure);
        let abfs = parse("abfss://data@acct.dfs.core.windows.net/x/y");
        assert_eq!((abfs.cloud, abfs.bucket.as_str()), (Cloud::Azure, "data"));
        assert_eq!(abfs.account.as_deref(), Some("acct"));
        assert_eq!(
            abfs.to_string(),
            "abfss://data@acct.dfs.core.windows.net/x/y"
        );
        let http = parse("https://example.com:8443/a/b.tfrecord");
        assert_eq!(
            (http.cloud, http.bucket.as_str()),
            (Cloud::Http, "example.com:8443")
        );
        assert_eq!(http.key, "a/b.tfrecord");
    }

    #[test]
    fn a_trailing_slash_or_no_key_is_a_prefix_and_globs_list_their_literal_part() {
        assert!(parse("s3://b/dataset/").is_prefix());
        assert!(parse("s3://b").is_prefix());
        let glob = parse("gs://b/data/train-*");
        assert!(glob.is_pattern() && !glob.is_prefix());
        assert_eq!(glob.literal_prefix(), "data/");
        assert_eq!(parse("gs://b/*/x").literal_prefix(), "");
        assert_eq!(parse("gs://b/a/b{1,2}/c").literal_prefix(), "a/");
        // A web server's URL is one object, whatever its characters.
        assert!(!parse("https://h/a/?x=*").is_pattern());
    }

    #[test]
    fn local_paths_and_bad_urls_are_told_apart() {
        assert!(ObjectUrl::parse("data/train.tfrecord").is_none());
        assert!(ObjectUrl::parse("gs:/b/k").is_none());
        assert!(ObjectUrl::parse("ftp://h/k").is_none());
        assert!(!is_url("-"));
        assert_eq!(
            ObjectUrl::parse("gs:///k"),
            Some(Err(UrlError::NoBucket("gs:///k".into())))
        );
        assert!(matches!(
            ObjectUrl::parse("abfs://nocontainer/k"),
            Some(Err(UrlError::Abfs(_)))
        ));
        assert!(matches!(
            ObjectUrl::parse("s3://b/a/../k"),
            Some(Err(UrlError::DotSegment(_)))
        ));
    }
}
