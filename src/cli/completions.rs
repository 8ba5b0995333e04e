//! `pgn960 completions`: tab completion of commands and options, for each
//! shell clap_complete knows.

use std::io::{self, Write};

use clap_complete::Shell;

use super::EXIT_OK;

/// Print a shell's completion script to standard output.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  pgn960 completions bash > ~/.local/share/bash-completion/completions/pgn960
  pgn960 completions zsh > ~/.zfunc/_pgn960      # with fpath+=~/.zfunc in ~/.zshrc
  pgn960 completions fish > ~/.config/fish/completions/pgn960.fish")]
pub struct Args {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum, value_name = "SHELL")]
    shell: Shell,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let mut command = super::help::command();
    // Written whole, then out: `generate` panics on a write error, and a
    // closed pipe (`| head`) must end the run quietly, as `man`'s does.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "pgn960", &mut script);
    io::stdout().lock().write_all(&script)?;
    Ok(EXIT_OK)
}
