//! Building a store for a URL from the environment, as the clouds' own tools read it, and the
//! [`Remote`] that owns the runtime, the stores and the cap on parts in flight.
//!
//! S3 reads `AWS_*` (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
//! `AWS_REGION`, `AWS_ENDPOINT_URL` as the AWS CLI and SDKs do, web identity and container
//! credentials, then the instance's metadata server). Google Cloud Storage reads `GOOGLE_*`
//! (`GOOGLE_APPLICATION_CREDENTIALS`), gcloud's application-default credentials, then the
//! metadata server; `STORAGE_EMULATOR_HOST`, as Google's client libraries read it, points at an
//! emulator and needs no credentials. Azure reads `AZURE_*`, `AZURE_STORAGE_CONNECTION_STRING`
//! (`UseDevelopmentStorage=true` for Azurite) and `AZURE_STORAGE_USE_EMULATOR`. `--anonymous`
//! signs nothing, for public buckets.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use object_store::aws::AmazonS3Builder;
use object_store::azure::MicrosoftAzureBuilder;
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::http::HttpBuilder;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, RetryConfig};

use crate::error::{Error, chain, credentials_hint};
use crate::url::{Cloud, ObjectUrl};

/// How objects are read.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    /// Sign nothing: read public buckets without credentials.
    pub anonymous: bool,
    /// The most one TCP (and TLS) connection may take to open.
    pub connect_timeout: Duration,
    /// The most one request may take, its body included.
    pub request_timeout: Duration,
    /// The most a response may stay silent mid-body (a stalled server).
    pub read_timeout: Duration,
    /// Retries of a failed request (5xx, 429, a dropped connection), with backoff.
    pub retries: usize,
    /// The bytes of one ranged GET.
    pub part_size: u64,
    /// Parts of one object in flight at once.
    pub parts_per_object: usize,
    /// Parts in flight at once across every object read.
    pub parts_in_flight: usize,
    /// Parts fetched ahead of the last one read, in the direction of travel.
    pub read_ahead: usize,
}

impl Default for RemoteOptions {
    fn default() -> RemoteOptions {
        RemoteOptions {
            anonymous: false,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(120),
            read_timeout: Duration::from_secs(30),
            retries: 4,
            part_size: crate::PART_SIZE,
            parts_per_object: 4,
            parts_in_flight: 8,
            read_ahead: 2,
        }
    }
}

impl RemoteOptions {
    /// The most one part may take with all its retries: past it, the read fails as a timeout.
    pub fn part_deadline(&self) -> Duration {
        let tries = u32::try_from(self.retries.saturating_add(1)).unwrap_or(u32::MAX);
        self.request_timeout
            .saturating_add(self.connect_timeout)
            .saturating_mul(tries)
            .saturating_add(Duration::from_secs(5))
    }

    fn client(&self, allow_http: bool) -> ClientOptions {
        ClientOptions::new()
            .with_connect_timeout(self.connect_timeout)
            .with_timeout(self.request_timeout)
            .with_read_timeout(self.read_timeout)
            .with_allow_http(allow_http)
    }

    fn retry(&self) -> RetryConfig {
        RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(5),
                base: 2.,
            },
            max_retries: self.retries,
            retry_timeout: self.request_timeout,
        }
    }
}

/// The environment a store is built from (the process's, or a test's).
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

impl Env {
    pub fn from_process() -> Env {
        let vars = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        Env { vars }
    }

    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Env {
        Env {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// The variable's value, when set and not empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    fn prefixed<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (String, &'a str)> + 'a {
        self.vars
            .iter()
            .filter(move |(k, v)| k.starts_with(prefix) && !v.is_empty())
            .map(|(k, v)| (k.to_ascii_lowercase(), v.as_str()))
    }
}

/// A store and what to tell the user when it refuses.
#[derive(Clone)]
pub struct Built {
    pub store: Arc<dyn ObjectStore>,
    pub hint: String,
}

/// Builds the store that serves `url` as `env` and `options` say.
pub fn build(url: &ObjectUrl, env: &Env, options: &RemoteOptions) -> Result<Built, Error> {
    match url.cloud {
        Cloud::S3 => s3(url, env, options),
        Cloud::Gcs => gcs(url, env, options),
        Cloud::Azure => azure(url, env, options),
        Cloud::Http => http(url, options),
    }
}

/// The error of a store that cannot be built for `url`: what is wrong with its credentials.
fn refused(url: &ObjectUrl, message: String) -> Error {
    Error::Credentials {
        url: url.to_string(),
        message,
    }
}

/// `store` with what to tell the user when it refuses (`hint`, else how its cloud's credentials
/// are set), or why it could not be built.
fn built(
    url: &ObjectUrl,
    store: Result<Arc<dyn ObjectStore>, object_store::Error>,
    hint: Option<String>,
) -> Result<Built, Error> {
    let hint = hint.unwrap_or_else(|| credentials_hint(url.cloud).into());
    match store {
        Ok(store) => Ok(Built { store, hint }),
        Err(e) => Err(refused(url, format!("{}; {hint}", chain(&e)))),
    }
}

/// An S3 store: credentials and endpoint from `AWS_*` as the AWS CLI reads them.
fn s3(url: &ObjectUrl, env: &Env, options: &RemoteOptions) -> Result<Built, Error> {
    let endpoint = env
        .get("AWS_ENDPOINT_URL_S3")
        .or(env.get("AWS_ENDPOINT_URL"));
    if !options.anonymous
        && env.get("AWS_ACCESS_KEY_ID").is_none()
        && env.get("AWS_WEB_IDENTITY_TOKEN_FILE").is_none()
        && let Some(profile) = env.get("AWS_PROFILE")
    {
        return Err(refused(
            url,
            format!(
                "AWS_PROFILE={profile} is set, but profiles and SSO are not read here: \
             export the profile's credentials with `eval \"$(aws configure \
             export-credentials --profile {profile} --format env)\"`"
            ),
        ));
    }
    let mut builder = AmazonS3Builder::new();
    for (key, value) in env.prefixed("AWS_") {
        if let Ok(key) = key.parse() {
            builder = builder.with_config(key, value);
        }
    }
    if let Some(endpoint) = endpoint {
        builder = builder.with_endpoint(endpoint);
    }
    let allow_http = endpoint.is_some_and(|e| e.starts_with("http://"));
    let builder = builder
        .with_bucket_name(&url.bucket)
        .with_skip_signature(options.anonymous)
        .with_client_options(options.client(allow_http))
        .with_retry(options.retry());
    built(url, builder.build().map(|s| Arc::new(s) as _), None)
}

/// A GCS store: credentials from `GOOGLE_*`, unsigned for an emulator (`STORAGE_EMULATOR_HOST`,
/// as Google's client libraries read it).
fn gcs(url: &ObjectUrl, env: &Env, options: &RemoteOptions) -> Result<Built, Error> {
    let emulator = env.get("STORAGE_EMULATOR_HOST").map(|host| {
        if host.contains("://") {
            host.trim_end_matches('/').to_string()
        } else {
            format!("http://{host}")
        }
    });
    let mut hint = credentials_hint(Cloud::Gcs).to_string();
    if let Some(file) = env.get("GOOGLE_APPLICATION_CREDENTIALS") {
        if emulator.is_none() && !options.anonymous && !std::path::Path::new(file).is_file() {
            return Err(refused(
                url,
                format!(
                    "GOOGLE_APPLICATION_CREDENTIALS names {file}, which is not a readable \
                 file; set it to a service account's key file"
                ),
            ));
        }
        hint = format!("check the key file GOOGLE_APPLICATION_CREDENTIALS names ({file}); {hint}");
    }
    let unsigned = options.anonymous || emulator.is_some();
    let mut builder = GoogleCloudStorageBuilder::new();
    for (key, value) in env.prefixed("GOOGLE_") {
        // Unsigned requests read no key file (one named but absent is no error then).
        if unsigned && (key.contains("credentials") || key.contains("service_account")) {
            continue;
        }
        if let Ok(key) = key.parse() {
            builder = builder.with_config(key, value);
        }
    }
    let allow_http = emulator
        .as_deref()
        .is_some_and(|e| e.starts_with("http://"));
    if let Some(emulator) = &emulator {
        builder = builder.with_base_url(emulator);
    }
    let builder = builder
        .with_bucket_name(&url.bucket)
        .with_skip_signature(unsigned)
        .with_client_options(options.client(allow_http))
        .with_retry(options.retry());
    built(url, builder.build().map(|s| Arc::new(s) as _), Some(hint))
}

/// An Azure Blob store: credentials from `AZURE_*` and the connection string's settings.
fn azure(url: &ObjectUrl, env: &Env, options: &RemoteOptions) -> Result<Built, Error> {
    let mut builder = MicrosoftAzureBuilder::new();
    for (key, value) in env.prefixed("AZURE_") {
        if let Ok(key) = key.parse() {
            builder = builder.with_config(key, value);
        }
    }
    let mut allow_http = false;
    if let Some(settings) = env.get("AZURE_STORAGE_CONNECTION_STRING") {
        for (key, value) in settings.split(';').filter_map(|s| s.split_once('=')) {
            match key.trim() {
                "UseDevelopmentStorage" if value.eq_ignore_ascii_case("true") => {
                    builder = builder.with_use_emulator(true);
                    allow_http = true;
                }
                "AccountName" => builder = builder.with_account(value),
                "AccountKey" => builder = builder.with_access_key(value),
                "SharedAccessSignature" => {
                    builder = builder.with_config(
                        "azure_storage_sas_key"
                            .parse()
                            .map_err(|e: object_store::Error| refused(url, chain(&e)))?,
                        value,
                    )
                }
                "BlobEndpoint" => {
                    allow_http |= value.starts_with("http://");
                    builder = builder.with_endpoint(value.trim_end_matches('/').into());
                }
                _ => {}
            }
        }
    }
    if env
        .get("AZURE_STORAGE_USE_EMULATOR")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    {
        allow_http = true;
    }
    if let Some(account) = &url.account {
        builder = builder.with_account(account);
    }
    let builder = builder
        .with_container_name(&url.bucket)
        .with_skip_signature(options.anonymous)
        .with_client_options(options.client(allow_http))
        .with_retry(options.retry());
    built(url, builder.build().map(|s| Arc::new(s) as _), None)
}

/// A plain web server, read without credentials.
fn http(url: &ObjectUrl, options: &RemoteOptions) -> Result<Built, Error> {
    let base = format!("{}{}", url.scheme, url.bucket);
    let builder = HttpBuilder::new()
        .with_url(base)
        .with_client_options(options.client(url.scheme.starts_with("http:")))
        .with_retry(options.retry());
    built(url, builder.build().map(|s| Arc::new(s) as _), None)
}

/// Where objects are read from: the runtime their requests run on, the stores built so far (one
/// per bucket), and the cap on parts in flight across every object.
pub struct Remote {
    pub(crate) runtime: tokio::runtime::Runtime,
    pub(crate) options: RemoteOptions,
    env: Env,
    stores: Mutex<HashMap<String, Built>>,
    /// Stands in for every bucket (tests: an in-memory store).
    fixed: Option<Built>,
    pub(crate) cap: Arc<tokio::sync::Semaphore>,
}

impl Remote {
    /// Reads objects with stores built from `env`.
    pub fn new(options: RemoteOptions, env: Env) -> Result<Remote, Error> {
        // TLS through rustls over ring; a provider installed before is kept.
        let _ = rustls::crypto::ring::default_provider().install_default();
        Remote::with(options, env, None)
    }

    /// Reads every URL from `store`, whatever its bucket (an in-memory store in tests).
    pub fn over_store(
        options: RemoteOptions,
        store: Arc<dyn ObjectStore>,
    ) -> Result<Remote, Error> {
        let built = Built {
            store,
            hint: String::new(),
        };
        Remote::with(options, Env::default(), Some(built))
    }

    fn with(options: RemoteOptions, env: Env, fixed: Option<Built>) -> Result<Remote, Error> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("tfr-remote")
            .enable_all()
            .build()
            .map_err(|e| Error::Io {
                url: String::new(),
                message: format!("cannot start the network runtime: {e}"),
            })?;
        let cap = Arc::new(tokio::sync::Semaphore::new(options.parts_in_flight.max(1)));
        Ok(Remote {
            runtime,
            options,
            env,
            stores: Mutex::new(HashMap::new()),
            fixed,
            cap,
        })
    }

    pub fn options(&self) -> &RemoteOptions {
        &self.options
    }

    /// The store that serves `url`, built once per bucket.
    pub fn store(&self, url: &ObjectUrl) -> Result<Built, Error> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let root = url.root();
        let mut stores = self.stores.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(built) = stores.get(&root) {
            return Ok(built.clone());
        }
        // Building may read a key file; the runtime is entered since some builders ask for it.
        let _entered = self.runtime.enter();
        let built = build(url, &self.env, &self.options)?;
        stores.insert(root, built.clone());
        Ok(built)
    }

    /// Runs `future` on the runtime from a thread outside it, failing as a timeout after
    /// `deadline`.
    pub(crate) fn block_on<T>(
        &self,
        url: &ObjectUrl,
        deadline: Duration,
        what: &'static str,
        future: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        self.runtime.block_on(async {
            tokio::time::timeout(deadline, future)
                .await
                .unwrap_or_else(|_| {
                    Err(Error::Timeout {
                        url: url.to_string(),
                        seconds: deadline.as_secs(),
                        what,
                    })
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> ObjectUrl {
        ObjectUrl::parse(text).unwrap().unwrap()
    }

    #[test]
    fn an_aws_profile_without_exported_credentials_says_how_to_export_them() {
        let env = Env::from_pairs([("AWS_PROFILE", "work")]);
        let Err(Error::Credentials { message, .. }) =
            build(&url("s3://b/k"), &env, &RemoteOptions::default())
        else {
            panic!("a profile alone is refused")
        };
        assert!(message.contains("aws configure export-credentials --profile work"));
        // Exported credentials (or --anonymous) are used as they are.
        let env = Env::from_pairs([
            ("AWS_PROFILE", "work"),
            ("AWS_ACCESS_KEY_ID", "id"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
        ]);
        assert!(build(&url("s3://b/k"), &env, &RemoteOptions::default()).is_ok());
    }

    #[test]
    fn a_missing_google_key_file_is_named() {
        let env = Env::from_pairs([("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/key.json")]);
        let Err(error) = build(&url("gs://b/k"), &env, &RemoteOptions::default()) else {
            panic!("a key file that is not there is refused")
        };
        let text = error.to_string();
        assert!(text.contains("GOOGLE_APPLICATION_CREDENTIALS names /nonexistent/key.json"));
        // An emulator needs no credentials.
        let env = Env::from_pairs([
            ("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/key.json"),
            ("STORAGE_EMULATOR_HOST", "127.0.0.1:9"),
        ]);
        assert!(build(&url("gs://b/k"), &env, &RemoteOptions::default()).is_ok());
    }

    #[test]
    fn endpoints_and_emulators_come_from_the_environment() {
        let options = RemoteOptions::default();
        let env = Env::from_pairs([
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:9"),
            ("AWS_ACCESS_KEY_ID", "id"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
        ]);
        let s3 = build(&url("s3://b/k"), &env, &options).unwrap();
        assert!(s3.store.to_string().contains("b"));
        let azurite = Env::from_pairs([(
            "AZURE_STORAGE_CONNECTION_STRING",
            "UseDevelopmentStorage=true",
        )]);
        assert!(build(&url("az://c/k"), &azurite, &options).is_ok());
        assert!(build(&url("http://127.0.0.1:9/k"), &Env::default(), &options).is_ok());
        assert!(
            build(
                &url("gs://b/k"),
                &Env::default(),
                &RemoteOptions {
                    anonymous: true,
                    ..options
                }
            )
            .is_ok()
        );
    }
}
