//! The real binary in a real terminal: tmux runs `tfr-inspect` on a damaged shard, keys are sent
//! the way a person types them, and the screen is read back after each step. Quitting must leave
//! the alternate screen and give the shell its normal screen back.
//!
//! tmux is required (CI installs it); set `TFR_SKIP_TMUX=1` to skip where it cannot be had.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_tfr-inspect");
const DAMAGED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/corrupt/length_bitflip.tfrecord"
);

/// A detached tmux session, killed when dropped.
pub(crate) struct Session {
    name: String,
}

impl Session {
    pub(crate) fn start(width: u16, height: u16) -> Option<Session> {
        if std::env::var_os("TFR_SKIP_TMUX").is_some_and(|v| v == "1") {
            eprintln!("TFR_SKIP_TMUX=1: skipping the tmux test");
            return None;
        }
        let found = Command::new("tmux").arg("-V").output();
        assert!(
            found.is_ok_and(|o| o.status.success()),
            "tmux is not installed: install it (apt-get install tmux) or set TFR_SKIP_TMUX=1"
        );
        // Tests run in parallel: each session gets its own name.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!(
            "tfr-inspect-test-{}-{n}-{width}x{height}",
            std::process::id()
        );
        let session = Session { name };
        let status = session
            .tmux()
            .args(["new-session", "-d", "-s", &session.name, "-x"])
            .arg(width.to_string())
            .arg("-y")
            .arg(height.to_string())
            .args(["env", "PS1=shell$ ", "TERM=xterm-256color"])
            .args(["bash", "--norc", "--noprofile", "-i"])
            .status()
            .expect("run tmux");
        assert!(status.success(), "tmux new-session failed");
        Some(session)
    }

    /// A tmux command on this session's own server: with one server per session, a test that
    /// ends (and kills its server) never takes down a server another test is starting on.
    fn tmux(&self) -> Command {
        let mut command = Command::new("tmux");
        command.args(["-L", &self.name, "-f", "/dev/null"]);
        command
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let status = self
            .tmux()
            .args(["send-keys", "-t", &self.name])
            .args(keys)
            .status()
            .expect("tmux send-keys");
        assert!(status.success());
    }

    pub(crate) fn text(&self, text: &str) {
        let status = self
            .tmux()
            .args(["send-keys", "-t", &self.name, "-l", text])
            .status()
            .expect("tmux send-keys");
        assert!(status.success());
    }

    pub(crate) fn screen(&self) -> String {
        let out = self
            .tmux()
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen with its SGR attributes (`capture-pane -e`).
    fn screen_with_attributes(&self) -> String {
        let out = self
            .tmux()
            .args(["capture-pane", "-p", "-e", "-t", &self.name])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen satisfies `ok`, failing with the screen if it never does. The limit
    /// is a guard against a hang, far above the fraction of a second a screen takes: a machine
    /// busy with other builds must not fail the test.
    pub(crate) fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if start.elapsed() > Duration::from_secs(300) {
                panic!("timed out waiting for {what}; the screen shows:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub(crate) fn wait_text(&self, text: &str) -> String {
        self.wait_for(text, |s| s.contains(text))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // The server leaves its socket behind when killed: remove it too.
        let socket = self
            .tmux()
            .args(["display-message", "-p", "#{socket_path}"])
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        let _ = self.tmux().arg("kill-server").status();
        if let Some(socket) = socket.filter(|s| !s.is_empty()) {
            let _ = std::fs::remove_file(socket);
        }
    }
}

#[test]
fn inspector_in_tmux_jumps_finds_damage_shows_help_and_restores_the_terminal() {
    let Some(tmux) = Session::start(160, 48) else {
        return;
    };
    tmux.wait_text("shell$");
    tmux.text(&format!("{BIN} {DAMAGED}; echo inspector-exited-$?"));
    tmux.keys(&["Enter"]);

    let screen = tmux.wait_text("record 0 · 200 records (0..199)");
    assert!(screen.contains("frames · "), "{screen}");
    assert!(screen.contains("1 damaged"), "{screen}");
    assert!(
        screen.contains("         0  53 00 00 00 00 00 00 00"),
        "{screen}"
    );

    // `:` goes to a record.
    tmux.text(":12");
    tmux.wait_text("go to record: 12");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("record 12 · 200 records");
    assert!(screen.contains(" record 12 "), "tree title: {screen}");

    // `o` goes to TensorFlow's "corrupted record at 5630".
    tmux.text("o5630");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("record 56 · 200 records");
    assert!(
        screen.contains("offset 5630 is in damaged record 56"),
        "{screen}"
    );

    // Back to the top, then `c` finds the damaged frame.
    tmux.text("g");
    tmux.wait_text("record 0 · 200 records (0..199)");
    tmux.text("c");
    let screen = tmux.wait_text("record 56 is damaged");
    assert!(screen.contains("length CRC mismatch"), "{screen}");
    assert!(screen.contains("BAD"), "{screen}");

    // `?` shows the help, `?` again hides it.
    tmux.text("?");
    tmux.wait_text("go to record N (0-based");
    tmux.text("?");
    tmux.wait_for("the help to close", |s| {
        !s.contains("go to record N (0-based")
    });

    // `q` quits and the shell's own screen comes back.
    tmux.text("q");
    let screen = tmux.wait_text("inspector-exited-1");
    assert!(!screen.contains("frames · "), "{screen}");
    assert!(!screen.contains("         0  53 00"), "{screen}");
    assert!(screen.contains("shell$"), "{screen}");
}

#[test]
fn a_small_tmux_window_gets_a_message_and_resizing_recovers() {
    let Some(tmux) = Session::start(50, 10) else {
        return;
    };
    tmux.wait_text("shell$");
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/examples.tfrecord");
    tmux.text(&format!("{BIN} {examples}; echo inspector-exited-$?"));
    tmux.keys(&["Enter"]);
    tmux.wait_text("terminal too small");
    let status = tmux
        .tmux()
        .args(["resize-window", "-t", &tmux.name, "-x", "120", "-y", "40"])
        .status()
        .expect("tmux resize-window");
    assert!(status.success());
    tmux.wait_text("record 0 · 200 records (0..199)");
    tmux.text("q");
    tmux.wait_text("inspector-exited-0");
}

#[test]
fn inputs_that_cannot_be_opened_stay_on_screen_and_exit_2() {
    let Some(tmux) = Session::start(160, 48) else {
        return;
    };
    tmux.wait_text("shell$");
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/examples.tfrecord");
    // A directory is searched for TFRecord files; one that holds none cannot be opened.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().display();
    tmux.text(&format!(
        "{BIN} {examples} /nonexistent-tfr-input {empty}; echo inspector-exited-$?"
    ));
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("record 0 · 200 records");
    assert!(
        screen.contains("not opened: /nonexistent-tfr-input: No such file"),
        "{screen}"
    );
    assert!(
        screen.contains(&format!(
            "not opened: {empty}: is a directory with no TFRecord file in it"
        )),
        "{screen}"
    );
    // Moving around does not clear them.
    tmux.text("jjj:5");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("record 5 · 200 records");
    assert!(screen.contains(&format!("not opened: {empty}")), "{screen}");
    tmux.text("q");
    // Status 2, and the errors are printed again on the normal screen.
    let screen = tmux.wait_text("inspector-exited-2");
    assert!(
        screen.contains("tfr-inspect: /nonexistent-tfr-input: No such file"),
        "{screen}"
    );
    assert!(
        screen.contains(&format!(
            "tfr-inspect: {empty}: is a directory with no TFRecord"
        )),
        "{screen}"
    );
}

#[test]
fn a_gzip_input_shows_its_compression_and_every_record() {
    let Some(tmux) = Session::start(160, 48) else {
        return;
    };
    tmux.wait_text("shell$");
    let gzip = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/examples_gzip.tfrecord"
    );
    tmux.text(&format!("{BIN} {gzip}; echo inspector-exited-$?"));
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("record 0 · 200 records (0..199)");
    assert!(screen.contains("GZIP 2.3 KiB → 19.6 KiB"), "{screen}");
    tmux.text("G");
    tmux.wait_text("record 199 · 200 records");
    tmux.text("q");
    tmux.wait_text("inspector-exited-0");
}

/// An Example of `n` features, each one int64, framed as the only record of a file.
fn one_record_of_features(n: u64) -> Vec<u8> {
    use crate::proto::{ld_into, varint};
    let mut entries = Vec::new();
    for i in 0..n {
        let (mut value, mut list, mut feature, mut entry) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        varint(i, &mut value);
        ld_into(1, &value, &mut list);
        ld_into(3, &list, &mut feature);
        ld_into(1, format!("f{i:07}").as_bytes(), &mut entry);
        ld_into(2, &feature, &mut entry);
        ld_into(1, &entry, &mut entries);
    }
    let mut example = Vec::new();
    ld_into(1, &entries, &mut example);
    let mut file = Vec::new();
    tfr_core::frame::write_record(&example, &mut file).expect("write to memory");
    file
}

#[test]
fn a_record_of_a_million_features_never_keeps_q_waiting() {
    let Some(tmux) = Session::start(160, 48) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("million.tfrecord");
    std::fs::write(&path, one_record_of_features(1_000_000)).expect("write the file");
    tmux.wait_text("shell$");
    tmux.text(&format!(
        "{BIN} {}; echo inspector-exited-$?",
        path.display()
    ));
    tmux.keys(&["Enter"]);
    // As soon as the inspector is up, the tree shows the decoding under way or its result.
    // (A screen is read back whole only once drawn whole: under load tmux may show a redraw
    // half done, so the wait is for everything checked.)
    tmux.wait_for("the tree of record 0", |s| {
        s.contains("frames · ")
            && (s.contains("decoding record 0") || s.contains("1000000 features"))
    });
    // That `q` does not wait for the decoding is checked without a clock, in process
    // (`large::q_quits_while_a_record_decodes_without_waiting_for_it`); here, that it quits
    // and gives the shell its screen back.
    tmux.text("q");
    let screen = tmux.wait_text("inspector-exited-0");
    assert!(!screen.contains("frames · "), "{screen}");
}

#[test]
fn a_file_truncated_while_open_is_re_indexed_without_a_bus_error() {
    let Some(tmux) = Session::start(160, 48) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.tfrecord");
    let payload = vec![b'x'; 2000];
    let mut shard = Vec::new();
    for _ in 0..20_000 {
        tfr_core::frame::write_record(&payload, &mut shard).unwrap();
    }
    std::fs::write(&path, &shard).unwrap();
    tmux.wait_text("shell$");
    tmux.text(&format!(
        "{BIN} {}; echo inspector-exited-$?",
        path.display()
    ));
    tmux.keys(&["Enter"]);
    tmux.wait_text("record 0 · 20000 records (0..19999)");

    // A writer reopens the shard with O_TRUNC: everything past 1,000,000 bytes is gone.
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(1_000_000).unwrap();
    let screen = tmux.wait_text(&format!(
        "shrank from {} to 1000000 bytes; re-indexed",
        shard.len()
    ));
    assert!(!screen.contains("Bus error"), "{screen}");
    tmux.keys(&["End"]);
    // 1,000,000 bytes hold 496 whole frames of 2016 bytes and the start of one more. The screen
    // is judged by what it shows of the record, not by the status line's note: a second look at
    // the file can find its modification time changed after its size (a truncation updates the
    // two one after the other, and fstat may fall between), reopen it once more and say so.
    let screen = tmux.wait_for("the last record, truncated", |s| {
        s.contains("record 496 · 497 records (0..496)")
            && s.contains("truncated_record")
            && s.contains("truncated: the header declares a 2000-byte payload")
    });
    assert!(!screen.contains("Bus error"), "{screen}");

    tmux.text("q");
    let screen = tmux.wait_text("inspector-exited-1");
    assert!(!screen.contains("Bus error"), "{screen}");
    assert!(!screen.contains("frames · "), "{screen}");
    assert!(screen.contains("shell$"), "{screen}");
}

#[test]
fn step_mode_and_the_quiz_in_tmux() {
    let Some(tmux) = Session::start(160, 48) else {
        return;
    };
    tmux.wait_text("shell$");
    let mnist = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/mnist_like.tfrecord");
    tmux.text(&format!("{BIN} {mnist}; echo inspector-exited-$?"));
    tmux.keys(&["Enter"]);
    tmux.wait_text("record 0 · 20 records (0..19)");
    // Step mode from the frame's first byte: header, CRC, tag, then the length e8 06.
    tmux.text("o0");
    tmux.keys(&["Enter"]);
    tmux.text("s...");
    // Everything checked is waited for together: under load a capture can catch a redraw half
    // written.
    tmux.wait_for("step mode on e8 06", |s| {
        s.contains("length at payload 0x1, file 13: e8 06")
            && s.contains("@13 13..15 length e8 06 · byte 1 of 2")
            && s.contains(" step · ")
            && s.contains("groups 1101000, 0000110")
            && s.contains("payload (Example)  872 of 875 bytes left")
    });
    // The quiz asks about the length under the cursor; the answer is typed and checked.
    tmux.text("x");
    tmux.wait_for("the first question", |s| {
        s.contains("question 1: payload 0x1 (file 13): e8 06") && s.contains("= ? (quiz")
    });
    tmux.text("0x368");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the answer and the second question", |s| {
        s.contains("question 1: right, 872 bytes (0x368)")
            && s.contains("question 2: payload 0x3 (file 15): 0a")
    });
    tmux.text("1 3");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the second answer", |s| {
        s.contains("question 2: not quite, you said 1 3") && s.contains("2 (LEN): 1 << 3 | 2 = 10")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_text("quiz over: 1 of 2 right");
    tmux.text("q");
    tmux.wait_text("inspector-exited-0");
}

/// The parameters of every SGR sequence (`ESC [ ... m`) in `screen`.
fn sgr_parameters(screen: &str) -> Vec<String> {
    screen
        .split("\x1b[")
        .skip(1)
        .filter_map(|rest| {
            let end = rest.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
            (rest[end..].starts_with('m')).then(|| rest[..end].to_string())
        })
        .collect()
}

#[test]
fn under_no_color_the_selected_row_is_drawn_in_reverse_video_without_colour() {
    let Some(tmux) = Session::start(120, 40) else {
        return;
    };
    tmux.wait_text("shell$");
    tmux.text(&format!("NO_COLOR=1 {BIN} {DAMAGED}"));
    tmux.keys(&["Enter"]);
    tmux.wait_text("record 0 · 200 records (0..199)");
    let screen = tmux.screen_with_attributes();
    // The selected frame, record 0, is the first row of the frame list, reversed.
    let row = screen
        .lines()
        .find(|l| l.contains("      0             0"))
        .unwrap_or_else(|| panic!("{screen}"));
    let before = &row[..row.find("      0             0").unwrap()];
    let last = sgr_parameters(before).pop().unwrap_or_default();
    assert!(
        last.split(';').any(|p| p == "7"),
        "the selected row is reverse video: {row:?}"
    );
    // No colour anywhere: no foreground or background colour parameter.
    for params in sgr_parameters(&screen) {
        for p in params.split(';') {
            let n: u32 = p.parse().unwrap_or(0);
            assert!(
                !matches!(n, 30..=38 | 40..=48 | 90..=97 | 100..=107),
                "colour {params:?} under NO_COLOR:\n{screen}"
            );
        }
    }
    tmux.text("q");
    tmux.wait_text("shell$");
}

#[test]
fn list_on_a_wide_terminal_names_every_feature_that_fits() {
    let Some(tmux) = Session::start(200, 20) else {
        return;
    };
    let images = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/images.tfrecord");
    tmux.wait_text("shell$");
    tmux.text(&format!(
        "{BIN} list {images}; {BIN} list {images} | head -3"
    ));
    tmux.keys(&["Enter"]);
    // Piped (the second command), the summary stays as scripts know it: four names, an ellipsis.
    let screen = tmux.wait_text("image/depth, image/encoded, …");
    assert!(
        screen.contains("image/format, image/height, image/width"),
        "{screen}"
    );
}

#[test]
fn the_inspector_reads_a_dash_from_a_pipe_and_keys_from_the_terminal() {
    let Some(tmux) = Session::start(120, 30) else {
        return;
    };
    tmux.wait_text("shell$");
    tmux.text(&format!(
        "cat {DAMAGED} | {BIN} -; echo inspector-exited-$?"
    ));
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("record 0 · 200 records (0..199)");
    assert!(screen.contains("frames · /dev/stdin"), "{screen}");
    tmux.text("c");
    tmux.wait_text("record 56 · 200 records");
    tmux.text("q");
    tmux.wait_text("inspector-exited-1");
}

#[test]
fn an_image_too_large_to_show_is_never_decoded_for_the_preview_or_i() {
    use tfr_core::crafted::{FeatureValue::Bytes, encode_records, example, zero_png};
    let Some(tmux) = Session::start(160, 48) else {
        return;
    };
    // 268 MB decoded, 1.7 MB stored: the inspector took 1 GB to preview it and 2.3 GB after `i`.
    let record = example(&[("image/encoded", Bytes(vec![zero_png(16384, 16383)]))]);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("huge.tfrecord");
    std::fs::write(&path, encode_records(&[&record])).expect("write the file");
    tmux.wait_text("shell$");
    // Killed at 1 GiB of address space should it decode the image (two malloc arenas, so the
    // limit does not depend on the cores).
    tmux.text(&format!(
        "(ulimit -v 1048576; MALLOC_ARENA_MAX=2 exec {BIN} {}); echo inspector-exited-$?",
        path.display()
    ));
    tmux.keys(&["Enter"]);
    tmux.wait_text("268.4 megapixels");
    tmux.text("i");
    tmux.wait_text("no image to show: not decoded: 16384x16383 is 268.4 megapixels");
    tmux.text("q");
    tmux.wait_text("inspector-exited-0");
}

/// `i` draws the image over the inspector; after it, quitting gives the shell its own screen back
/// as it was, the image gone with the inspector.
#[test]
fn an_image_shown_whole_leaves_the_shell_screen_as_it_was() {
    let Some(tmux) = Session::start(120, 40) else {
        return;
    };
    let images = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/images.tfrecord");
    tmux.wait_text("shell$");
    tmux.text("echo typed-before-the-inspector");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the echo", |s| {
        s.lines().any(|l| l == "typed-before-the-inspector")
    });
    tmux.text(&format!("{BIN} {images}; echo inspector-exited-$?"));
    tmux.keys(&["Enter"]);
    tmux.wait_text("record 0 · ");
    tmux.text("i");
    let shown = tmux.wait_text("press any key to return");
    assert!(shown.contains("drawn with half blocks"), "{shown}");
    assert!(shown.contains('▄'), "{shown}");
    tmux.text(" ");
    tmux.wait_for("the inspector to come back", |s| {
        s.contains("record 0 · ") && !s.contains("press any key to return")
    });
    tmux.text("q");
    let screen = tmux.wait_text("inspector-exited-0");
    // On a line of its own: the shell's screen holds nothing the inspector drew.
    assert!(
        screen.lines().any(|l| l == "inspector-exited-0"),
        "{screen}"
    );
    assert!(
        screen.lines().any(|l| l == "typed-before-the-inspector"),
        "{screen}"
    );
    assert!(!screen.contains("press any key to return"), "{screen}");
    assert!(!screen.contains('▄'), "{screen}");
}

#[test]
fn the_inspector_opens_thousands_of_files_as_it_needs_them() {
    let Some(tmux) = Session::start(160, 48) else {
        return;
    };
    // More files than the process can map at once; the last one damaged.
    let dir = tempfile::tempdir().unwrap();
    let mut record = Vec::new();
    tfr_core::frame::write_record(b"\x0a\x00", &mut record).unwrap();
    let files = 4200;
    for i in 0..files {
        let mut bytes = record.clone();
        if i == files - 1 {
            *bytes.last_mut().unwrap() ^= 0xff;
        }
        std::fs::write(dir.path().join(format!("f{i:04}.tfrecord")), bytes).unwrap();
    }
    tmux.wait_text("shell$");
    tmux.text(&format!(
        "{BIN} {}; echo inspector-exited-$?",
        dir.path().display()
    ));
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("record 0 · 1 record");
    assert!(!screen.contains("not opened"), "{screen}");
    // `c` finds the damage in the last file, closed until then, once indexed in the background.
    let last = format!("damaged frame 0 in file {files} of {files}");
    let start = Instant::now();
    let screen = loop {
        tmux.text("c");
        std::thread::sleep(Duration::from_millis(500));
        let screen = tmux.screen();
        // A guard against a hang, far above the second or two this takes.
        if screen.contains(&last) || start.elapsed() > Duration::from_secs(600) {
            break screen;
        }
    };
    assert!(screen.contains(&last), "{screen}");
    assert!(screen.contains("f4199.tfrecord"), "{screen}");
    tmux.text("q");
    tmux.wait_text("inspector-exited-1");
}

/// A shard of three 16 MiB parts (the last one short): 300 Examples of 128 KiB each.
fn three_part_shard() -> Vec<u8> {
    use tfr_core::crafted::{FeatureValue, encode_records, example};
    let payloads: Vec<Vec<u8>> = (0..300u32)
        .map(|i| {
            example(&[
                ("label", FeatureValue::Ints(vec![i64::from(i)])),
                (
                    "image",
                    FeatureValue::Bytes(vec![vec![(i % 251) as u8; 128 << 10]]),
                ),
            ])
        })
        .collect();
    let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    encode_records(&refs)
}

#[test]
fn the_inspector_stops_fetching_at_max_bytes_says_so_and_restores_the_terminal() {
    let Some(tmux) = Session::start(160, 48) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("train.tfrecord"), three_part_shard()).unwrap();
    let (base, asked) = crate::serve::serve_counted(dir.path().to_path_buf());
    tmux.wait_text("shell$");
    // Room for the first part (16 MiB), not for the second the indexing goes on to.
    tmux.text(&format!(
        "{BIN} --max-bytes 20000000 {base}train.tfrecord; echo inspector-exited-$?"
    ));
    tmux.keys(&["Enter"]);
    let exited = |s: &str| (0..=9).any(|c| s.contains(&format!("inspector-exited-{c}")));
    let screen = tmux.wait_for("the refusal", |s| {
        s.contains("indexing stopped") || exited(s)
    });
    assert!(!exited(&screen), "{screen}");
    tmux.text("q");
    let screen = tmux.wait_text("inspector-exited-2");
    // Back on the normal screen, with the reason said there (in lines the terminal wrapped).
    assert!(
        screen.replace('\n', "").contains(&format!(
            "{base}train.tfrecord: not read further: 16777216 bytes (16.0 MiB) more would pass \
             --max-bytes 20000000 (16777216 bytes (16.0 MiB) read before it)"
        )),
        "{screen}"
    );
    assert!(screen.contains("shell$"), "{screen}");
    // The size first, then the first part: nothing past the limit was asked for.
    let asked = asked.lock().unwrap();
    let shard: Vec<&String> = asked.iter().filter(|r| r.contains("train")).collect();
    assert_eq!(
        shard,
        ["HEAD /train.tfrecord", "GET /train.tfrecord"],
        "{asked:?}"
    );
}

#[test]
fn a_gzip_object_opens_in_the_inspector_as_its_local_copy_does() {
    let Some(tmux) = Session::start(160, 48) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let gzip = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/examples_gzip.tfrecord"
    );
    std::fs::copy(gzip, dir.path().join("x.tfrecord.gz")).unwrap();
    let (base, asked) = crate::serve::serve_counted(dir.path().to_path_buf());
    tmux.wait_text("shell$");
    // Fetched whole before it opens (stderr is a terminal: the bar is on until the inspector
    // takes the screen), and counted against --max-bytes: exactly its size is enough.
    let len = std::fs::metadata(gzip).unwrap().len();
    tmux.text(&format!(
        "{BIN} --max-bytes {len} {base}x.tfrecord.gz; echo inspector-exited-$?"
    ));
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_text("record 0 · 200 records (0..199)");
    assert!(screen.contains("GZIP 2.3 KiB → 19.6 KiB"), "{screen}");
    assert!(!screen.contains("fetching"), "{screen}");
    tmux.text("G");
    tmux.wait_text("record 199 · 200 records");
    tmux.text("q");
    tmux.wait_text("inspector-exited-0");
    let asked = asked.lock().unwrap();
    let object: Vec<&String> = asked.iter().filter(|r| r.contains("x.tfrecord")).collect();
    assert_eq!(
        object,
        ["HEAD /x.tfrecord.gz", "GET /x.tfrecord.gz"],
        "{asked:?}"
    );
}
