//! Command-line layer: clap definitions, one file per subcommand, and the
//! mapping from library results to exit codes and one-line error messages.

mod archive;
mod bug;
mod completions;
mod destination;
mod draw;
mod filter;
mod fix;
mod games;
mod help;
mod id;
mod in_place;
mod interrupt;
mod man;
mod output;
mod output_dir;
mod pos;
mod random;
mod rewrite;
mod stats;
mod summary;
mod table;
mod tag;
mod temporary;
mod validate;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{FromArgMatches, Parser, Subcommand};

/// Exit code for success.
pub const EXIT_OK: u8 = 0;
/// Exit code for "ran fine, but found something" (`tag --check`, `validate`).
pub const EXIT_FINDINGS: u8 = 1;
/// Exit code for unusable arguments or unreadable inputs.
pub const EXIT_ERROR: u8 = 2;

/// Chess960 numbering and PGN archive tools.
#[derive(Parser, Debug)]
#[command(
    name = "pgn960",
    version,
    about,
    long_about = None,
    propagate_version = true,
    after_help = "The guide, with a page for every command: docs/README.md in the source repository of pgn960."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    Id(id::Args),
    Pos(pos::Args),
    Table(table::Args),
    Random(random::Args),
    Draw(draw::Args),
    Tag(tag::Args),
    Fix(fix::Args),
    Stats(stats::Args),
    Validate(validate::Args),
    Games(games::Args),
    Filter(filter::Args),
    Completions(completions::Args),
    Man(man::Args),
}

/// Parses arguments, runs the subcommand and turns its outcome into an exit code.
///
/// A command returns its own exit code on success; any error is printed as
/// one line (with its cause chain) and ends with [`EXIT_ERROR`], and so is
/// a bug (a panic, on any thread: see [`bug`]). A broken pipe
/// (`pgn960 tag big.pgn | head`) is a normal, quiet end.
pub fn run() -> ExitCode {
    let parsed = help::command()
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(err) => return argument_error(&err),
    };
    bug::install_hook();
    let result = bug::run_caught(|| dispatch(cli.command));
    match result {
        Ok(Ok(code)) => ExitCode::from(code),
        Ok(Err(err)) if is_broken_pipe(&err) => ExitCode::from(EXIT_OK),
        Ok(Err(err)) => {
            let _ = writeln!(io::stderr(), "pgn960: {err:#}");
            ExitCode::from(EXIT_ERROR)
        }
        Err(bug) => {
            let _ = writeln!(io::stderr(), "pgn960: {bug}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Runs one command.
fn dispatch(command: Command) -> anyhow::Result<u8> {
    if bug::planted("main") {
        panic!("planted by PGN960_PLANT_PANIC");
    }
    match command {
        Command::Id(args) => id::run(args),
        Command::Pos(args) => pos::run(args),
        Command::Table(args) => table::run(args),
        Command::Random(args) => random::run(args),
        Command::Draw(args) => draw::run(args),
        Command::Tag(args) => tag::run(args),
        Command::Fix(args) => fix::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Games(args) => games::run(args),
        Command::Filter(args) => filter::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io_err| io_err.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Help and version go to stdout as clap writes them; an unusable argument
/// becomes one `pgn960:` line on stderr (clap's own message up to its first
/// blank line, its lines joined, without the usage block) and exit code 2,
/// like every other error. `pgn960` without a command is such an error too.
fn argument_error(err: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = err.print();
            return ExitCode::from(EXIT_OK);
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let command = help::command();
            let names: Vec<&str> = command
                .get_subcommands()
                .map(clap::Command::get_name)
                .filter(|name| *name != "help")
                .collect();
            let _ = writeln!(
                io::stderr(),
                "pgn960: a command is needed: {} (see --help)",
                names.join(", ")
            );
            return ExitCode::from(EXIT_ERROR);
        }
        _ => {}
    }
    let text = err.render().to_string();
    let message: Vec<&str> = text
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    let message = message.join(" ");
    let message = message.strip_prefix("error: ").unwrap_or(&message);
    let _ = writeln!(io::stderr(), "pgn960: {message} (see --help)");
    ExitCode::from(EXIT_ERROR)
}
