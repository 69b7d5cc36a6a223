//! Shards in object stores, read from real emulators of the clouds' services on loopback: moto
//! for S3, fake-gcs-server for Google Cloud Storage and Azurite for Azure Blob Storage, started
//! by `scripts/emulators.sh` (which `.ci/run` calls). Each test uploads `testdata/` files and a
//! TFDS-style dataset directory (one shard damaged), then checks that every command prints for
//! the URLs exactly what it prints for the local copies, the URL in place of the path, with the
//! same exit code.
//!
//! The emulators are found through `TFR_INSPECT_S3_ENDPOINT`, `TFR_INSPECT_GCS_ENDPOINT` and
//! `TFR_INSPECT_AZURE_ENDPOINT` (`http://127.0.0.1:PORT`). A test whose variable is unset skips,
//! unless `TFR_INSPECT_CI=1`, where a missing emulator is a failure.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use object_store::{ObjectStore, ObjectStoreExt};
use sha2::{Digest, Sha256};
use tfr_remote::store::{Env, RemoteOptions, build};

use super::tmux::Session;

const BIN: &str = env!("CARGO_BIN_EXE_tfr-inspect");

/// Azurite's well-known development account and key (public, in Azure's documentation).
const AZURITE_ACCOUNT: &str = "devstoreaccount1";
const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// The testdata files every service is checked on: plain, GZIP, and damaged.
const FILES: [&str; 3] = [
    "mnist_like.tfrecord",
    "examples_gzip.tfrecord",
    "corrupt/data_crc_bitflip.tfrecord",
];

/// The TFDS dataset the dataset directory is a copy of.
const DATASET: &str = "realworld/tfds/toy_parcels/2.0.0";
/// The shard of the copy that is damaged (a flipped bit in its first record's data).
const DAMAGED_SHARD: &str = "toy_parcels-train.tfrecord-00001-of-00002";

#[derive(Clone, Copy, Debug)]
enum Service {
    S3,
    Gcs,
    Azure,
}

impl Service {
    fn variable(self) -> &'static str {
        match self {
            Service::S3 => "TFR_INSPECT_S3_ENDPOINT",
            Service::Gcs => "TFR_INSPECT_GCS_ENDPOINT",
            Service::Azure => "TFR_INSPECT_AZURE_ENDPOINT",
        }
    }

    fn scheme(self) -> &'static str {
        match self {
            Service::S3 => "s3",
            Service::Gcs => "gs",
            Service::Azure => "az",
        }
    }
}

/// One bucket (container) of its own on a running emulator, with the environment that points
/// the binary at it as the clouds' own tools are pointed at an emulator.
struct Bucket {
    service: Service,
    endpoint: String,
    name: String,
    env: Vec<(String, String)>,
    /// The local copies: `files/` (the testdata files) and `ds/` (the dataset directory).
    local: tempfile::TempDir,
}

impl Bucket {
    /// A new bucket on `service`'s emulator holding the files and the dataset, or `None` when
    /// the emulator is not configured (outside CI).
    fn new(service: Service, tag: &str) -> Option<Bucket> {
        let variable = service.variable();
        let endpoint = match std::env::var(variable) {
            Ok(endpoint) if !endpoint.is_empty() => endpoint.trim_end_matches('/').to_string(),
            _ => {
                assert!(
                    std::env::var_os("TFR_INSPECT_CI").is_none_or(|v| v != "1"),
                    "{variable} is not set: CI starts the emulators with scripts/emulators.sh"
                );
                eprintln!("{variable} is not set: skipping (scripts/emulators.sh starts it)");
                return None;
            }
        };
        // Unique per run, so a test run again against the same emulator starts afresh.
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let name = format!("tfr-{tag}-{}-{nanos}", std::process::id());
        let env: Vec<(String, String)> = match service {
            Service::S3 => vec![
                ("AWS_ENDPOINT_URL".into(), endpoint.clone()),
                ("AWS_ACCESS_KEY_ID".into(), "testing".into()),
                ("AWS_SECRET_ACCESS_KEY".into(), "testing".into()),
                ("AWS_REGION".into(), "us-east-1".into()),
            ],
            Service::Gcs => vec![("STORAGE_EMULATOR_HOST".into(), endpoint.clone())],
            Service::Azure => vec![(
                "AZURE_STORAGE_CONNECTION_STRING".into(),
                format!(
                    "DefaultEndpointsProtocol=http;AccountName={AZURITE_ACCOUNT};\
                     AccountKey={AZURITE_KEY};BlobEndpoint={endpoint}/{AZURITE_ACCOUNT};"
                ),
            )],
        };
        create_bucket(service, &endpoint, &name);

        let bucket = Bucket {
            service,
            endpoint,
            name,
            env,
            local: tempfile::tempdir().unwrap(),
        };
        bucket.fill();
        Some(bucket)
    }

    fn url(&self, key: &str) -> String {
        format!("{}://{}/{key}", self.service.scheme(), self.name)
    }

    fn local(&self, key: &str) -> String {
        format!("{}/{key}", self.local.path().to_str().unwrap())
    }

    /// Writes the local copies and uploads them with the object store client the binary reads
    /// with, built from the same environment.
    fn fill(&self) {
        let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut files: Vec<(String, Vec<u8>)> = FILES
            .iter()
            .map(|name| {
                (
                    format!("files/{name}"),
                    std::fs::read(testdata.join(name)).unwrap(),
                )
            })
            .collect();
        for entry in std::fs::read_dir(testdata.join(DATASET)).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let mut bytes = std::fs::read(entry.path()).unwrap();
            if name == DAMAGED_SHARD {
                // Byte 20 is in the first record's data (the frame header is 12 bytes).
                bytes[20] ^= 0x10;
            }
            files.push((format!("ds/{name}"), bytes));
        }
        for (key, bytes) in &files {
            let path = PathBuf::from(self.local(key));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
        }

        if let Service::Gcs = self.service {
            // object_store's GCS client asks for a token before every upload, unsigned or not
            // (off-cloud, from the metadata server): the emulator's JSON API takes them instead.
            for (key, bytes) in &files {
                let target = format!(
                    "/upload/storage/v1/b/{}/o?uploadType=media&name={}",
                    self.name,
                    key.replace('/', "%2F")
                );
                let headers = [("Content-Type", "application/octet-stream".to_string())];
                let (status, body) = http(&self.endpoint, "POST", &target, &headers, bytes);
                assert_eq!(status, 200, "upload of {key}: {body}");
            }
            return;
        }
        let env = Env::from_pairs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        // Installs the TLS provider the client is built with, as the binary does.
        let _ = tfr_remote::Remote::new(RemoteOptions::default(), env.clone()).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let url = tfr_remote::ObjectUrl::parse(&self.url("x"))
            .unwrap()
            .unwrap();
        let store: Arc<dyn ObjectStore> = {
            let _entered = runtime.enter();
            build(&url, &env, &RemoteOptions::default()).unwrap().store
        };
        runtime.block_on(async {
            for (key, bytes) in files {
                let path = object_store::path::Path::from(key.as_str());
                store
                    .put(&path, bytes.into())
                    .await
                    .unwrap_or_else(|e| panic!("upload of {key}: {e}"));
            }
        });
    }

    /// The binary with `args`, pointed at the emulator.
    fn run(&self, args: &[String]) -> Output {
        binary()
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap()
    }

    /// Runs `args` (`{}` standing for the input) on the local copy `key` and on its URL, and
    /// checks that both print the same, the URL in place of the path, with the same status.
    fn same_as_local(&self, key: &str, args: &[&str]) {
        let local = self.local(key);
        let url = self.url(key);
        let with =
            |input: &str| -> Vec<String> { args.iter().map(|a| a.replace("{}", input)).collect() };
        let on_disk = binary().args(with(&local)).output().unwrap();
        let remote = self.run(&with(&url));
        // Messages may name other objects than the input (a missing shard's neighbours): the
        // whole root is replaced.
        let (local_root, url_root) = (self.local(""), self.url(""));
        let shown =
            |bytes: &[u8], root: &str| String::from_utf8_lossy(bytes).replace(root, "ROOT/");
        assert!(
            !on_disk.stdout.is_empty(),
            "{args:?} on {local} printed nothing: {on_disk:?}"
        );
        assert_eq!(
            shown(&remote.stdout, &url_root),
            shown(&on_disk.stdout, &local_root),
            "stdout of {args:?} on {url} ({:?})",
            self.service
        );
        assert_eq!(
            shown(&remote.stderr, &url_root),
            shown(&on_disk.stderr, &local_root),
            "stderr of {args:?} on {url} ({:?})",
            self.service
        );
        assert_eq!(
            remote.status.code(),
            on_disk.status.code(),
            "exit code of {args:?} on {url} ({:?})",
            self.service
        );
    }

    /// What every service is checked on: `list`, `show`, `verify` on each file (the damaged one
    /// included), on the dataset's prefix and on a pattern over its shards.
    fn check_reading(&self) {
        for name in FILES {
            let key = format!("files/{name}");
            self.same_as_local(&key, &["list", "{}"]);
            self.same_as_local(&key, &["show", "--format", "json", "{}"]);
            self.same_as_local(&key, &["verify", "{}"]);
            self.same_as_local(&key, &["verify", "--json", "{}"]);
        }
        for args in [
            &["verify", "{}"][..],
            &["verify", "--json", "{}"],
            &["list", "{}"],
        ] {
            self.same_as_local("ds/", args);
        }
        self.same_as_local("ds/", &["verify", "{}toy_parcels-train*"]);
        self.same_as_local("ds/", &["list", "{}toy_parcels-*-00001-of-00002"]);
        // The damaged shard is found as on disk: exit 1.
        let damaged = self.run(&["verify".into(), self.url("ds/")]);
        assert_eq!(damaged.status.code(), Some(1), "{damaged:?}");
        // A missing object is unusable input naming the URL.
        let missing = self.url("files/no-such.tfrecord");
        let output = self.run(&["verify".into(), missing.clone()]);
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            format!("tfr-inspect: {missing}: no such object\n")
        );
    }
}

#[test]
fn s3_objects_prefixes_and_patterns_print_what_their_local_copies_print() {
    let Some(bucket) = Bucket::new(Service::S3, "s3") else {
        return;
    };
    bucket.check_reading();
    for name in FILES {
        let key = format!("files/{name}");
        bucket.same_as_local(&key, &["hex", "{}", "-n", "0"]);
        bucket.same_as_local(&key, &["stats", "--json", "{}"]);
        bucket.same_as_local(&key, &["index", "--intact-only", "{}"]);
    }
    let shard = format!("ds/{DAMAGED_SHARD}");
    for args in [
        &["show", "--format", "json", "{}"][..],
        &["hex", "{}", "-n", "0"],
        &["stats", "--json", "{}"],
        &["index", "--intact-only", "{}"],
    ] {
        bucket.same_as_local(&shard, args);
    }
    bucket.same_as_local("ds/", &["stats", "--json", "{}"]);
    bucket.same_as_local("ds/", &["stats", "--json", "{}toy_parcels-validation*"]);
    bucket.same_as_local("", &["verify", "{}**/*.tfrecord*"]);

    // salvage from a URL writes the file salvage writes from the local copy.
    let out = tempfile::tempdir().unwrap();
    let from_disk = out.path().join("disk.tfrecord");
    let from_url = out.path().join("url.tfrecord");
    for (input, output) in [
        (bucket.local(&shard), &from_disk),
        (bucket.url(&shard), &from_url),
    ] {
        let result = bucket.run(&[
            "salvage".into(),
            input,
            "-o".into(),
            output.to_str().unwrap().into(),
        ]);
        assert_eq!(result.status.code(), Some(1), "salvage: {result:?}");
    }
    let salvaged = std::fs::read(&from_url).unwrap();
    assert!(!salvaged.is_empty());
    assert_eq!(salvaged, std::fs::read(&from_disk).unwrap());
}

#[test]
fn gcs_objects_prefixes_and_patterns_print_what_their_local_copies_print() {
    if let Some(bucket) = Bucket::new(Service::Gcs, "gs") {
        bucket.check_reading();
    }
}

#[test]
fn azure_objects_prefixes_and_patterns_print_what_their_local_copies_print() {
    let Some(bucket) = Bucket::new(Service::Azure, "az") else {
        return;
    };
    bucket.check_reading();
    // Azurite's other settings, as Azure's tools read them: the development account at the
    // address AZURITE_BLOB_STORAGE_URL gives.
    let args = ["verify".to_string(), bucket.url("ds/")];
    let connection = bucket.run(&args);
    let development = binary()
        .args(&args)
        .env(
            "AZURE_STORAGE_CONNECTION_STRING",
            "UseDevelopmentStorage=true",
        )
        .env("AZURITE_BLOB_STORAGE_URL", &bucket.endpoint)
        .output()
        .unwrap();
    assert_eq!(connection.status.code(), Some(1));
    assert!(!connection.stdout.is_empty());
    assert_eq!(development.stdout, connection.stdout);
    assert_eq!(development.stderr, connection.stderr);
    assert_eq!(development.status.code(), connection.status.code());
}

#[test]
fn the_inspector_on_an_s3_url_opens_on_the_screen_of_its_local_copy() {
    let Some(bucket) = Bucket::new(Service::S3, "tui") else {
        return;
    };
    let key = format!("ds/{DAMAGED_SHARD}");
    let first_screen = |input: &str, env: &str| -> Option<String> {
        let tmux = Session::start(140, 40)?;
        tmux.wait_text("shell$");
        tmux.text(&format!("{env} {BIN} {input}; echo inspector-exited-$?"));
        tmux.keys(&["Enter"]);
        let screen = tmux.wait_for("the first screen, indexed", |s| {
            s.contains("record 0 ·") && s.contains("damaged")
        });
        tmux.text("q");
        tmux.wait_text("inspector-exited-");
        Some(screen)
    };
    let env: Vec<String> = bucket.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let url = bucket.url(&key);
    let local = bucket.local(&key);
    let Some(remote) = first_screen(&url, &format!("env {}", env.join(" "))) else {
        return;
    };
    let on_disk = first_screen(&local, "env").unwrap();
    // The inspector fills the terminal (its alternate screen): the screens are compared whole,
    // the input's name replaced and the border after it, whose length is the name's, as one.
    let inspector = |screen: &str, input: &str| -> String {
        screen
            .lines()
            .map(|l| {
                let mut line = String::new();
                for c in l.replace(input, "IN").trim_end().chars() {
                    if !(c == '─' && line.ends_with('─')) {
                        line.push(c);
                    }
                }
                line
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let remote = inspector(&remote, &url);
    assert!(remote.contains("record 0 ·"), "{remote}");
    assert!(remote.contains("IN"), "the title names the input: {remote}");
    assert_eq!(remote, inspector(&on_disk, &local));
}

/// The binary, with none of the caller's cloud settings (a developer's own credentials or
/// endpoints would point it elsewhere).
fn binary() -> Command {
    let mut command = Command::new(BIN);
    command.env_remove("NO_COLOR");
    for (name, _) in std::env::vars_os() {
        let cloud = name.to_str().is_some_and(|n| {
            [
                "AWS_",
                "GOOGLE_",
                "AZURE_",
                "AZURITE_",
                "STORAGE_EMULATOR_HOST",
            ]
            .iter()
            .any(|p| n.starts_with(p))
        });
        if cloud {
            command.env_remove(name);
        }
    }
    command
}

/// Creates `name` on the emulator at `endpoint` with the service's own request.
fn create_bucket(service: Service, endpoint: &str, name: &str) {
    let (status, body) = match service {
        // moto reads an unsigned request as any account's.
        Service::S3 => http(endpoint, "PUT", &format!("/{name}"), &[], b""),
        Service::Gcs => http(
            endpoint,
            "POST",
            "/storage/v1/b",
            &[("Content-Type", "application/json".into())],
            format!("{{\"name\":\"{name}\"}}").as_bytes(),
        ),
        Service::Azure => {
            let date = http_date(SystemTime::now());
            let version = "2021-08-06";
            let target = format!("/{AZURITE_ACCOUNT}/{name}?restype=container");
            // Shared Key: the verb, eleven standard headers (none here), the x-ms- headers,
            // then the resource with its query.
            let to_sign = format!(
                "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:{date}\nx-ms-version:{version}\n\
                 /{AZURITE_ACCOUNT}/{AZURITE_ACCOUNT}/{name}\nrestype:container"
            );
            let key = base64::engine::general_purpose::STANDARD
                .decode(AZURITE_KEY)
                .unwrap();
            let signature = base64::engine::general_purpose::STANDARD
                .encode(hmac_sha256(&key, to_sign.as_bytes()));
            http(
                endpoint,
                "PUT",
                &target,
                &[
                    ("x-ms-date", date),
                    ("x-ms-version", version.into()),
                    (
                        "Authorization",
                        format!("SharedKey {AZURITE_ACCOUNT}:{signature}"),
                    ),
                ],
                b"",
            )
        }
    };
    assert!(
        (200..300).contains(&status),
        "creating {name} on {endpoint} ({service:?}): HTTP {status}\n{body}"
    );
}

/// One HTTP/1.1 request to `endpoint` (`http://HOST:PORT`); the status and the body.
fn http(
    endpoint: &str,
    method: &str,
    target: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> (u16, String) {
    let host = endpoint.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut request = format!(
        "{method} {target} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| -> Vec<u8> { block.iter().map(|b| b ^ byte).collect() };
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// `time` as HTTP writes dates (RFC 1123, GMT).
fn http_date(time: SystemTime) -> String {
    let seconds = time.duration_since(UNIX_EPOCH).unwrap().as_secs();
    let days = (seconds / 86_400) as i64;
    let rest = seconds % 86_400;
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][(days % 7) as usize];
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{weekday}, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        months[(month - 1) as usize],
        rest / 3_600,
        rest % 3_600 / 60,
        rest % 60
    )
}

#[test]
fn http_dates_are_rfc_1123() {
    assert_eq!(
        http_date(UNIX_EPOCH + Duration::from_secs(1_795_840_247)),
        "Sat, 28 Nov 2026 04:30:47 GMT"
    );
    assert_eq!(http_date(UNIX_EPOCH), "Thu, 01 Jan 1970 00:00:00 GMT");
}
