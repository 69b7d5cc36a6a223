//! Shards read by URL print what the same bytes print on disk, the URL in place of the path:
//! `testdata/` served by a small HTTP server on loopback (Range and ETag, written with the
//! standard library), read by `list`, `show`, `hex`, `verify`, `stats`, `index`, `salvage`, `count`, `head`,
//! `tail` and `sample`.

use std::sync::Mutex;

use super::{run, run_in_process, testdata};
pub use crate::serve::{serve, serve_counted};

/// Runs the binary with `args` against the S3 service at `base` (fake credentials).
fn run_s3(base: &str, args: &[String]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tfr-inspect"))
        .args(args)
        .env_remove("NO_COLOR")
        .env("AWS_ENDPOINT_URL", base.trim_end_matches('/'))
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .output()
        .unwrap()
}

#[test]
fn prefixes_and_globs_over_s3_are_the_dataset_their_directory_is() {
    let base = serve(testdata(""));
    let dir = "realworld/tfds/toy_parcels/2.0.0/";
    let local = format!("{}/", testdata(dir.trim_end_matches('/')).to_str().unwrap());
    let url = format!("s3://b/{dir}");
    let cases: [&[&str]; 7] = [
        &["count", "{}"],
        &["count", "--json", "{}"],
        &["verify", "{}"],
        &["verify", "--json", "{}"],
        &["list", "{}"],
        &["stats", "--json", "{}"],
        &["verify", "{}*-train.tfrecord-*"],
    ];
    for args in cases {
        let with = |prefix: &str| -> Vec<String> {
            args.iter().map(|a| a.replace("{}", prefix)).collect()
        };
        let on_disk = run(with(&local));
        let remote = run_s3(&base, &with(&url));
        let shown =
            |bytes: &[u8], prefix: &str| String::from_utf8_lossy(bytes).replace(prefix, "DIR/");
        assert!(!on_disk.stdout.is_empty(), "{args:?} printed nothing");
        assert_eq!(
            shown(&remote.stdout, &url),
            shown(&on_disk.stdout, &local),
            "{args:?}"
        );
        assert_eq!(
            shown(&remote.stderr, &url),
            shown(&on_disk.stderr, &local),
            "{args:?}"
        );
        assert_eq!(remote.status.code(), on_disk.status.code(), "{args:?}");
    }
    // A prefix with nothing under it is a directory with no TFRecord file; a pattern that
    // matches nothing says so.
    let empty = run_s3(&base, &["verify".into(), "s3://b/nothing/".into()]);
    assert_eq!(empty.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&empty.stderr),
        "tfr-inspect: s3://b/nothing/: is a directory with no TFRecord file in it\n"
    );
    let unmatched = run_s3(&base, &["verify".into(), "s3://b/nothing/x-*".into()]);
    assert_eq!(
        String::from_utf8_lossy(&unmatched.stderr),
        "tfr-inspect: s3://b/nothing/x-*: pattern matched nothing\n"
    );
}

/// What a run printed and ended with: through the binary or in process.
type Printed = (Vec<u8>, Vec<u8>, Option<i32>);

/// Runs the binary with `args`.
fn through_the_binary(args: Vec<String>) -> Printed {
    let output = run(args);
    (output.stdout, output.stderr, output.status.code())
}

/// Runs the subcommand `args` name in this process, URLs read as the binary reads them.
fn in_process(args: Vec<String>) -> Printed {
    tfr_inspect::remote::Remotes::register(false);
    let ran = run_in_process(args);
    (ran.stdout, ran.stderr, ran.status.code())
}

/// Runs `args` with `{}` standing for the file, once with the local path and once with its URL,
/// and checks that both print the same (the URL in place of the path) with the same status.
fn same_as_local(base: &str, name: &str, args: &[&str], runner: fn(Vec<String>) -> Printed) {
    let local = testdata(name);
    let url = format!("{base}{name}");
    let with = |file: &str| -> Vec<String> { args.iter().map(|a| a.replace("{}", file)).collect() };
    let on_disk = runner(with(local.to_str().unwrap()));
    let remote = runner(with(&url));
    assert!(!on_disk.0.is_empty(), "{args:?} on {name} printed nothing");
    let shown = |bytes: &[u8], file: &str| String::from_utf8_lossy(bytes).replace(file, "FILE");
    assert_eq!(
        shown(&remote.0, &url),
        shown(&on_disk.0, local.to_str().unwrap()),
        "stdout of {args:?} on {name}"
    );
    assert_eq!(
        shown(&remote.1, &url),
        shown(&on_disk.1, local.to_str().unwrap()),
        "stderr of {args:?} on {name}"
    );
    assert_eq!(remote.2, on_disk.2, "{args:?} on {name}");
}

#[test]
fn commands_print_for_a_url_what_they_print_for_the_file() {
    let base = serve(testdata(""));
    for name in [
        "mnist_like.tfrecord",
        "examples_gzip.tfrecord",
        "corrupt/data_crc_bitflip.tfrecord",
    ] {
        // Through the binary, as a user runs it (its own settling of URL inputs, its exit code);
        // every other command in process, through the same reading of URLs.
        same_as_local(&base, name, &["list", "{}"], through_the_binary);
        for args in [
            &["verify", "{}"][..],
            &["verify", "--json", "{}"],
            &["show", "--format", "json", "{}"],
            &["hex", "{}", "-n", "0"],
            &["stats", "--json", "{}"],
            &["index", "--intact-only", "{}"],
            &["count", "{}"],
            &["count", "--json", "{}"],
            &["head", "-n", "3", "{}"],
            &["tail", "-n", "3", "--json", "{}"],
            &["sample", "4", "{}", "--seed", "11", "--json"],
        ] {
            same_as_local(&base, name, args, in_process);
        }
    }
}

#[test]
fn salvage_writes_from_a_url_the_file_it_writes_from_disk() {
    let base = serve(testdata(""));
    let dir = tempfile::tempdir().unwrap();
    let name = "corrupt/data_crc_bitflip.tfrecord";
    let from_disk = dir.path().join("disk.tfrecord");
    let from_url = dir.path().join("url.tfrecord");
    let disk = run([
        "salvage",
        testdata(name).to_str().unwrap(),
        "-o",
        from_disk.to_str().unwrap(),
    ]);
    let url = run([
        "salvage",
        &format!("{base}{name}"),
        "-o",
        from_url.to_str().unwrap(),
    ]);
    assert_eq!(url.status.code(), disk.status.code());
    assert_eq!(
        std::fs::read(&from_url).unwrap(),
        std::fs::read(&from_disk).unwrap()
    );
}

#[test]
fn a_missing_object_is_unusable_input_naming_the_url() {
    let base = serve(testdata(""));
    let url = format!("{base}no/such.tfrecord");
    let output = run(["verify", &url]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("tfr-inspect: {url}: no such object\n")
    );
}

#[test]
fn max_bytes_refuses_a_read_that_would_pass_it_before_reading_any_byte() {
    let root = tempfile::tempdir().unwrap();
    let shard = std::fs::read(testdata("mnist_like.tfrecord")).unwrap();
    std::fs::write(root.path().join("a.tfrecord"), &shard).unwrap();
    let (base, asked) = serve_counted(root.path().to_path_buf());
    let url = format!("{base}a.tfrecord");
    let len = shard.len();
    // One byte short: refused after one HEAD, no GET.
    let short = (len - 1).to_string();
    let refused = run(["verify", &url, "--max-bytes", &short]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        format!(
            "tfr-inspect: {url}: not read: its {len} bytes ({}) would pass --max-bytes {short} \
             (0 bytes read before it)\n",
            tfr_core::words::binary_size(len as u64)
        )
    );
    assert!(refused.stdout.is_empty());
    assert_eq!(*asked.lock().unwrap(), ["HEAD /a.tfrecord"]);
    // Exactly the object: read, and the same as without a limit.
    let exact = run(["verify", &url, "--max-bytes", &len.to_string()]);
    let unlimited = run(["verify", &url]);
    assert_eq!(exact.status.code(), Some(0));
    assert_eq!(exact.stdout, unlimited.stdout);
    assert_eq!(exact.stderr, unlimited.stderr);
    // Two objects and room for one: the first is verified, the second refused.
    let two = run([
        "verify",
        &url,
        &url,
        "--max-bytes",
        &(len + len / 2).to_string(),
    ]);
    assert_eq!(two.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&two.stderr);
    assert!(
        stderr.ends_with(&format!(
            "would pass --max-bytes {} ({len} bytes ({}) read before it)\n",
            len + len / 2,
            tfr_core::words::binary_size(len as u64)
        )),
        "{stderr}"
    );
    assert!(!two.stdout.is_empty());
}

#[test]
fn one_connection_reads_a_url_as_the_default_eight_do_and_none_is_refused() {
    let base = serve(testdata(""));
    let url = format!("{base}mnist_like.tfrecord");
    let default = run(["verify", "--json", &url]);
    let one = run(["verify", "--json", "--connections", "1", &url]);
    assert_eq!(one.status.code(), Some(0));
    assert!(!one.stdout.is_empty());
    assert_eq!(one.stdout, default.stdout);
    let none = run(["verify", "--connections", "0", &url]);
    assert_eq!(none.status.code(), Some(2));
    let said = String::from_utf8_lossy(&none.stderr);
    assert!(said.contains("--connections"), "{said}");
}

#[test]
fn a_compressed_object_counts_against_max_bytes_as_a_plain_one_does() {
    let root = tempfile::tempdir().unwrap();
    let shard = std::fs::read(testdata("examples_gzip.tfrecord")).unwrap();
    std::fs::write(root.path().join("a.tfrecord.gz"), &shard).unwrap();
    let (base, asked) = serve_counted(root.path().to_path_buf());
    let url = format!("{base}a.tfrecord.gz");
    let len = shard.len();
    let short = (len - 1).to_string();
    let refused = run(["verify", &url, "--max-bytes", &short]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        format!(
            "tfr-inspect: {url}: not read: its {len} bytes ({}) would pass --max-bytes {short} \
             (0 bytes read before it)\n",
            tfr_core::words::binary_size(len as u64)
        )
    );
    assert_eq!(*asked.lock().unwrap(), ["HEAD /a.tfrecord.gz"]);
    // Exactly its size: read (its first part, then the rest streamed), as without a limit.
    let exact = run(["verify", &url, "--max-bytes", &len.to_string()]);
    let unlimited = run(["verify", &url]);
    assert_eq!(exact.status.code(), Some(0));
    assert_eq!(exact.stdout, unlimited.stdout);
    assert!(String::from_utf8_lossy(&exact.stdout).contains("GZIP"));
}

#[test]
fn a_side_file_missing_beside_many_shards_is_asked_for_once_and_never_under_a_listed_prefix() {
    let root = tempfile::tempdir().unwrap();
    let shard = std::fs::read(testdata("mnist_like.tfrecord")).unwrap();
    std::fs::create_dir(root.path().join("d")).unwrap();
    for i in 0..3 {
        std::fs::write(root.path().join(format!("d/train-{i:05}-of-00003")), &shard).unwrap();
    }
    let (base, asked) = serve_counted(root.path().to_path_buf());
    let side = |asked: &Mutex<Vec<String>>| -> Vec<String> {
        let mut asked = asked.lock().unwrap();
        let side = asked
            .iter()
            .filter(|r| !r.contains("train-") && !r.contains("list-type"))
            .cloned()
            .collect();
        asked.clear();
        side
    };
    // Listed whole: what is not among the objects listed is not there, and not asked for.
    let listed = run_s3(&base, &["stats".into(), "s3://b/d/".into()]);
    assert_eq!(listed.status.code(), Some(0));
    assert_eq!(side(&asked), Vec::<String>::new());
    // Named one by one: each missing side file is asked for once in the run.
    let urls: Vec<String> = (0..3)
        .map(|i| format!("s3://b/d/train-{i:05}-of-00003"))
        .collect();
    let named = run_s3(&base, &[vec!["stats".to_string()], urls.clone()].concat());
    assert_eq!(named.status.code(), Some(0));
    assert_eq!(named.stdout, listed.stdout);
    let asked_once = side(&asked);
    let mut unique = asked_once.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(asked_once.len(), unique.len(), "{asked_once:?}");
}
