//! `pgn960 validate`: report every problem of every game's Chess960
//! headers and moves, as CSV or JSON lines with stable codes.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use pgn960::game::KindCounts;
use pgn960::validate::{Code, Finding, Severity, ValidateOptions, validate_input};
use serde::Serialize;

use super::archive::{ArchiveArgs, InputFailure, for_each_input};
use super::destination::{Destination, OutputKind, is_stdout};
use super::output::Outputs;
use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, summary};

/// The examples after the options (`-h`); `--help` adds every code.
const EXAMPLES: &str = "Examples:
  pgn960 validate archive.pgn
  pgn960 validate --no-moves --format jsonl --report findings.jsonl *.pgn.zst
  pgn960 validate --strict tournament.pgn && echo publishable";

/// Check Chess960 headers and moves; report every problem with a stable code.
///
/// One finding per problem: file, game (1-based index in its file), line
/// (of the offending tag or move), severity, code, message. Moves are
/// replayed with Chess960 castling rules unless --no-moves. Exit 0 when no
/// finding is an error, 1 when one is (with --strict, warnings too), 2 when
/// an input cannot be read. Every code is listed below (--help) and in the
/// guide (docs/codes.md).
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    archive: ArchiveArgs,

    /// Write the findings to FILE instead of standard output (`-`),
    /// compressed when its name ends in .gz, .zst, .bz2 or .xz.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,

    /// Report format: csv (with a header) or jsonl (one JSON object a
    /// line); default: from the extension of --report (.csv, .jsonl),
    /// else csv.
    #[arg(long, value_enum)]
    format: Option<Format>,

    /// Check the tags only; do not replay the moves.
    #[arg(long)]
    no_moves: bool,

    /// Exit 1 on warnings too, not only on errors.
    #[arg(long)]
    strict: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Csv,
    Jsonl,
}

/// `--report`: CSV or JSON lines, as its name or `--format` says.
const REPORT: OutputKind<Format> = OutputKind {
    option: "--report",
    what: "the findings",
    formats: &[(Format::Csv, "csv"), (Format::Jsonl, "jsonl")],
    unnamed_gets_default: true,
};

#[derive(Serialize)]
struct Row<'a> {
    file: &'a str,
    game: u64,
    line: u64,
    severity: &'static str,
    code: &'static str,
    message: &'a str,
}

/// Writes findings in the chosen format.
struct Report {
    out: ReportWriter,
    started: bool,
}

enum ReportWriter {
    Csv(Box<csv::Writer<Destination>>),
    Jsonl(BufWriter<Destination>),
}

impl Report {
    fn new(format: Format, out: Destination) -> Report {
        let out = match format {
            Format::Csv => ReportWriter::Csv(Box::new(
                csv::WriterBuilder::new()
                    .has_headers(false)
                    .from_writer(out),
            )),
            Format::Jsonl => ReportWriter::Jsonl(BufWriter::with_capacity(1 << 16, out)),
        };
        Report {
            out,
            started: false,
        }
    }

    /// Writes the CSV header, once an input has been opened: a report
    /// without findings has one, a run that read nothing writes nothing.
    fn start(&mut self) -> io::Result<()> {
        if !self.started
            && let ReportWriter::Csv(csv) = &mut self.out
        {
            csv.write_record(["file", "game", "line", "severity", "code", "message"])
                .map_err(pgn960::stats::into_io)?;
        }
        self.started = true;
        Ok(())
    }

    fn write(&mut self, file: &str, finding: &Finding) -> io::Result<()> {
        let row = Row {
            file,
            game: finding.game,
            line: finding.line,
            severity: finding.code.severity().as_str(),
            code: finding.code.name(),
            message: &finding.message,
        };
        match &mut self.out {
            ReportWriter::Csv(csv) => csv.serialize(row).map_err(pgn960::stats::into_io),
            ReportWriter::Jsonl(out) => {
                // `From` keeps the kind of an I/O error, so a broken pipe stays quiet.
                serde_json::to_writer(&mut *out, &row).map_err(io::Error::from)?;
                out.write_all(b"\n")
            }
        }
    }

    /// Flushes the report and ends its output (see [`Destination::finish`]).
    fn finish(self) -> io::Result<()> {
        let out = match self.out {
            ReportWriter::Csv(csv) => (*csv).into_inner().map_err(|err| err.into_error())?,
            ReportWriter::Jsonl(out) => out.into_inner().map_err(|err| err.into_error())?,
        };
        out.finish(self.started)
    }
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let options = ValidateOptions {
        moves: !args.no_moves,
        lines: true,
    };
    let sources = args.archive.sources();
    let report_name = match &args.report {
        Some(path) if !is_stdout(path) => path.display().to_string(),
        _ => "report".to_string(),
    };
    let outputs = Outputs::guarding(&sources);
    let (out, format) = outputs.open(&REPORT, args.report.as_deref(), args.format)?;
    let mut report = Report::new(format, out);

    let mut progress = args.archive.progress(&sources);
    let mut per_code: BTreeMap<Code, u64> = BTreeMap::new();
    let mut kinds = KindCounts::default();
    let config = args.archive.pipeline();
    let writing = || format!("writing {report_name}");
    let inputs = for_each_input(&sources, &mut progress, |source, opened, progress| {
        report
            .start()
            .map_err(|err| InputFailure::Run(anyhow::Error::new(err).context(writing())))?;
        let name = source.to_string();
        let raw_read = Arc::clone(&opened.raw_read);
        let result = validate_input(
            opened.reader,
            config,
            options,
            |batch, batch_kinds| {
                progress.update(&raw_read, batch.games.len());
                kinds.merge(batch_kinds);
                Ok(())
            },
            |finding| {
                *per_code.entry(finding.code).or_default() += 1;
                report.write(&name, &finding)
            },
        );
        progress.finish_input(&raw_read);
        result.map_err(|err| InputFailure::of(err, writing))
    })?;
    report
        .finish()
        .with_context(|| format!("writing {report_name}"))?;
    progress.finish();
    if !args.archive.quiet && inputs.opened > 0 {
        print_summary(&kinds, &per_code);
    }
    let count = |severity| count_of(&per_code, severity);
    outputs.settle(if inputs.failed {
        EXIT_ERROR
    } else if count(Severity::Error) > 0 || (args.strict && count(Severity::Warning) > 0) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

fn count_of(per_code: &BTreeMap<Code, u64>, severity: Severity) -> u64 {
    per_code
        .iter()
        .filter(|(code, _)| code.severity() == severity)
        .map(|(_, n)| n)
        .sum()
}

fn print_summary(kinds: &KindCounts, per_code: &BTreeMap<Code, u64>) {
    let total = |severity| count_of(per_code, severity);
    let mut text = format!(
        "pgn960 validate: {}\n  {}, {}, {} info\n",
        summary::games_by_kind(kinds, "checked"),
        summary::count(total(Severity::Error), "error", "errors"),
        summary::count(total(Severity::Warning), "warning", "warnings"),
        total(Severity::Info)
    );
    for (code, n) in per_code {
        text.push_str(&format!(
            "  {:<8} {:<24} {n}\n",
            code.severity().as_str(),
            code.name()
        ));
    }
    eprint!("{text}");
}

/// `validate --help`'s text after the options: the examples, then every
/// code with its severity and meaning, from the codes themselves.
pub fn long_help() -> String {
    let mut text = String::from(EXAMPLES);
    text.push_str("\n\nCodes (stable; the CSV's code column):\n");
    for code in Code::ALL {
        text.push_str(&format!("  {} ({})\n", code.name(), code.severity()));
        super::help::wrap_into(&mut text, code.description(), "      ");
    }
    text
}
