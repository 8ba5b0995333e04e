//! Where the commands that rewrite archives (`tag`, `fix`) send the games:
//! standard output, `-o FILE`, each input in place, or nowhere
//! (`--check`). One set of options and one set of rules for both.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::bail;
use pgn960::input::Source;

use super::destination::{Destination, OutputKind, is_stdout};
use super::in_place::InPlace;
use super::output::{Joined, Outputs};

/// `-o`: PGN, compressed as its name says.
pub const PGN_OUTPUT: OutputKind<()> = OutputKind {
    option: "-o",
    what: "the games",
    formats: &[((), "pgn")],
    unnamed_gets_default: true,
};

/// The output options of a rewriting command.
#[derive(clap::Args, Debug)]
pub struct RewriteArgs {
    /// Write to FILE instead of standard output (`-`), compressed when its
    /// name ends in .gz, .zst, .bz2 or .xz.
    #[arg(short, long, value_name = "FILE", conflicts_with_all = ["in_place", "check"])]
    pub output: Option<PathBuf>,

    /// Rewrite each input file (through a temporary file in the same
    /// directory, renamed over the original only when complete); a
    /// compressed file keeps its compression, at about its size. Files
    /// that need no change are not touched.
    #[arg(long, conflicts_with = "check")]
    pub in_place: bool,

    /// With --in-place, the compression level of rewritten compressed
    /// files, on each format's own scale (gzip and bzip2 1-9, xz 0-9, zstd
    /// 1-22); by default, the level each file was written at, as far as
    /// its format tells.
    #[arg(long, value_name = "N", requires = "in_place")]
    pub level: Option<u32>,

    /// With --in-place, also rewrite files without write permission, and
    /// files with other hard links (which keep the old contents).
    #[arg(long, requires = "in_place")]
    pub force: bool,

    /// Write nothing; exit 1 when any game would change.
    #[arg(long)]
    pub check: bool,
}

impl RewriteArgs {
    /// What an error while writing the output was doing, for its message.
    pub fn output_name(&self) -> String {
        match &self.output {
            Some(path) if !is_stdout(path) => format!("writing {}", path.display()),
            _ => "writing output".to_string(),
        }
    }
}

/// Where rewritten games go.
pub enum Sink {
    /// `--check`: nowhere.
    Nowhere(io::Sink),
    /// Standard output or `-o FILE`, all inputs one after another.
    Stream(Joined<Destination>),
    /// `--in-place`: each input to its own temporary file.
    InPlace(InPlace),
}

impl Sink {
    /// The sink the arguments ask for, its file created now through
    /// `outputs`; refused when `--in-place` meets standard input or `-o`
    /// names an input.
    pub fn of(
        args: &RewriteArgs,
        sources: &[Source],
        outputs: &Outputs,
        threads: Option<u16>,
    ) -> anyhow::Result<Sink> {
        if args.in_place && sources.contains(&Source::Stdin) {
            bail!("--in-place needs input files, not standard input");
        }
        Ok(if args.check {
            Sink::Nowhere(io::sink())
        } else if args.in_place {
            Sink::InPlace(InPlace::new(args.level, args.force, threads))
        } else {
            let (out, ()) = outputs.open(&PGN_OUTPUT, args.output.as_deref(), None)?;
            Sink::Stream(Joined::new(out))
        })
    }

    /// The stream every input is written to one after another; `None` for
    /// `--in-place`, where each input has its own. An input written to it
    /// is ended by [`Sink::end_input`].
    pub fn stream(&mut self) -> Option<&mut dyn Write> {
        match self {
            Sink::Nowhere(out) => Some(out),
            Sink::Stream(out) => Some(out),
            Sink::InPlace(_) => None,
        }
    }

    /// An input has been written to the stream: the next begins on a line
    /// of its own.
    pub fn end_input(&mut self) {
        match self {
            Sink::Stream(out) => out.end_input(),
            Sink::Nowhere(_) | Sink::InPlace(_) => {}
        }
    }

    /// Ends the output (see [`Destination::finish`]).
    pub fn finish(self, any_input_read: bool) -> io::Result<()> {
        match self {
            Sink::Stream(out) => out.into_inner().finish(any_input_read),
            Sink::Nowhere(_) | Sink::InPlace(_) => Ok(()),
        }
    }
}
