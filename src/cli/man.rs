//! `pgn960 man`: the manual page, for `man pgn960` without a browser.
//!
//! One page holds everything, as ripgrep's does: the commands are one
//! tool, and a reader searching the page for an option finds it whichever
//! command has it. clap_mangen renders each part from the same definitions
//! as `--help`, so the page never goes stale.

use std::io::{self, Write};

use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use super::EXIT_OK;

/// Print the manual page (roff) to standard output.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  pgn960 man | man -l -
  pgn960 man > ~/.local/share/man/man1/pgn960.1")]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    let mut page = Vec::new();
    render(&mut page)?;
    let mut out = io::stdout().lock();
    out.write_all(&page)?;
    out.flush()?;
    Ok(EXIT_OK)
}

/// Writes the whole page: the tool, then a section per command with its
/// synopsis, description and options, then the exit codes.
fn render(out: &mut Vec<u8>) -> io::Result<()> {
    let mut command = super::help::command();
    command.build();
    let man = Man::new(command.clone()).title("PGN960").section("1");
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    let commands: Vec<&clap::Command> = command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
        .collect();
    let mut list = Roff::new();
    list.control("SH", ["COMMANDS"]);
    for sub in &commands {
        let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        list.control("TP", [])
            .text([bold(format!("pgn960 {}", sub.get_name()))])
            .text([roman(about)]);
    }
    list.to_writer(out)?;
    for sub in commands {
        let name = format!("pgn960 {}", sub.get_name());
        let mut part = Vec::new();
        let sub_man = Man::new(sub.clone().bin_name(&name));
        sub_man.render_synopsis_section(&mut part)?;
        sub_man.render_description_section(&mut part)?;
        sub_man.render_options_section(&mut part)?;
        if sub.get_after_help().is_some() {
            sub_man.render_extra_section(&mut part)?;
        }
        Roff::new()
            .control("SH", [name.to_uppercase().as_str()])
            .to_writer(out)?;
        // The command's parts become subsections of its section.
        for line in String::from_utf8_lossy(&part).lines() {
            let line = line.strip_prefix(".SH ").map_or_else(
                || line.to_string(),
                |heading| format!(".SS {}", heading.replace("EXTRA", "EXAMPLES")),
            );
            writeln!(out, "{line}")?;
        }
    }
    Roff::new()
        .control("SH", ["EXIT STATUS"])
        .text([roman(
            "0: success. 1: the command found something to report (tag --check, validate). \
             2: an unusable argument, or an input or output that could not be used; \
             each such error is one line on standard error, starting with pgn960:.",
        )])
        .control("SH", ["SEE ALSO"])
        .text([roman(
            "The guide, docs/README.md in the source repository of pgn960: a page for every \
             command with every option and examples, and pages on how games are read.",
        )])
        .to_writer(out)?;
    // Each part repeats roff's two-line definition of the apostrophe
    // string: the first is enough.
    let text = String::from_utf8_lossy(out).into_owned();
    let mut definitions = 0;
    let mut page = String::with_capacity(text.len());
    for line in text.lines() {
        if line.starts_with(".ie \\n(.g .ds Aq") || line.starts_with(".el .ds Aq") {
            definitions += 1;
            if definitions > 2 {
                continue;
            }
        }
        page.push_str(line);
        page.push('\n');
    }
    *out = page.into_bytes();
    Ok(())
}
