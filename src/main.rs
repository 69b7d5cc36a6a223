//! The `tfr-inspect` binary: parse arguments, dispatch, map the outcome to an exit status.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use tfr_inspect::cli::{self, Command, Env, Groups, Messages, Status};
use tfr_inspect::tui;

fn main() -> ExitCode {
    let messages = Messages::stderr();
    let mut cli = match cli::argv::parse(std::env::args_os().collect()) {
        cli::argv::Parsed::Run(cli) => cli,
        cli::argv::Parsed::Typo(message) => {
            messages.error(&message);
            return ExitCode::from(Status::Unusable as u8);
        }
    };
    if let Err(message) = cli::argv::settle(&mut cli) {
        messages.error(&message);
        return ExitCode::from(Status::Unusable as u8);
    }
    // The one look at the terminal and the environment: everything below is handed `env`.
    let env = Env::probe(cli.color);
    // Arguments may be object URLs (gs://, s3://, az://, https://): the core asks this for them.
    let read = cli.groups().read.cloned().unwrap_or_default();
    if let Some(jobs) = read.jobs {
        // The one pool every parallel step of the core runs on; built before any of them starts.
        let built = rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(jobs))
            .build_global();
        if let Err(e) = built {
            messages.error(&format_args!("--jobs {jobs}: {e}"));
            return ExitCode::from(Status::Unusable as u8);
        }
    }
    tfr_inspect::remote::Remotes::new(read.anonymous)
        .connections(read.connections)
        .limited(read.max_bytes)
        .watched(tfr_inspect::remote::Shown::new(env.progress(false)))
        .install();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = match &cli.command {
        Some(command) => cli::run(command, &env, &messages, &mut out),
        None if cli.files.is_empty() => {
            messages.error(&"no file given; try `tfr-inspect --help`");
            Ok(Status::Unusable)
        }
        None if env.stdout.terminal => {
            drop(out);
            // Directories and patterns open as the TFRecord files they hold; arguments that
            // name none are listed on the inspector's screen with the files it cannot open.
            let dataset = tfr_core::dataset::Dataset::resolve(&cli.files);
            let files: Vec<PathBuf> = dataset.members.iter().map(|m| m.path.clone()).collect();
            if files.is_empty() {
                for error in &dataset.errors {
                    messages.error(error);
                }
                return exit(Ok(Status::Unusable), &messages);
            }
            // The inspector draws on a terminal: only `--color never` or NO_COLOR take colour away.
            let colour = env.stdout.colour;
            let status = inspect(&files, &dataset.errors, cli.groups(), colour, &messages);
            return exit(status, &messages);
        }
        None => {
            // Not a terminal: behave like `list` so pipelines get plain text.
            let args = cli::list::ListArgs {
                files: cli.files.clone(),
                json: false,
                decode: cli.decode.clone(),
                read: cli.read.clone(),
                bytes: cli.bytes.clone(),
            };
            cli::run(
                &Command::List(cli::Deferred(args)),
                &env,
                &messages,
                &mut out,
            )
        }
    };
    let flushed = out.flush();
    match (result, flushed) {
        (Err(e), _) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        (Ok(_), Err(e)) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            messages.error(&e);
            ExitCode::from(Status::Unusable as u8)
        }
        (result, _) => exit(result, &messages),
    }
}

/// Runs the inspector with the options the arguments resolve to.
fn inspect(
    files: &[PathBuf],
    unopened: &[String],
    groups: Groups<'_>,
    colour: bool,
    messages: &Messages,
) -> anyhow::Result<Status> {
    tui::run(files, unopened, &groups.open_options()?, colour, messages)
}

fn exit(result: anyhow::Result<Status>, messages: &Messages) -> ExitCode {
    match result {
        Ok(status) => ExitCode::from(status as u8),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => ExitCode::from(messages.failed(&e) as u8),
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
