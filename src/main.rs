//! The `pgn960` binary: parses the command line and hands over to the library.
//!
//! Everything that knows about terminals, exit codes and argument syntax
//! lives here and in `cli/`; the library never sees clap types.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::run()
}
