//! The parts of `--help` made from the library's own lists (the codes of
//! `validate`, the repairs of `fix`), so that a binary installed alone
//! says what they are; the man page shows the same text.

use clap::CommandFactory;

use super::Cli;

/// The whole command line, with the help texts made at run time.
pub fn command() -> clap::Command {
    Cli::command()
        .mut_subcommand("validate", |sub| {
            sub.after_long_help(super::validate::long_help())
        })
        .mut_subcommand("fix", |sub| sub.after_long_help(super::fix::long_help()))
}

/// Appends `text` to `out`, wrapped at 79 columns, each line after
/// `indent`.
pub fn wrap_into(out: &mut String, text: &str, indent: &str) {
    let mut line = String::from(indent);
    for word in text.split_whitespace() {
        if line.len() > indent.len() && line.len() + 1 + word.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line = String::from(indent);
        }
        if line.len() > indent.len() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
}
