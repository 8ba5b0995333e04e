//! `pgn960 validate`: report every problem of every game's Chess960
//! headers and moves, as CSV or JSON lines with stable codes.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Context;
use pgn960::input::Source;
use pgn960::pipeline::PipelineConfig;
use pgn960::validate::{
    Code, Finding, LineNumbers, Severity, ValidateOptions, validate_batch_counting_lines,
};
use serde::Serialize;

use super::archive::{ArchiveArgs, refuse_output_among_inputs, run_inputs};
use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};

/// Check Chess960 headers and moves; report every problem with a stable code.
///
/// One finding per problem: file, game (1-based index in its file), line
/// (of the offending tag or move), severity, code, message. Moves are
/// replayed with Chess960 castling rules unless --no-moves. Exit 0 when no
/// finding is an error, 1 when one is (with --strict, warnings too), 2 when
/// an input cannot be read. The codes are listed in the README.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  pgn960 validate archive.pgn
  pgn960 validate --no-moves --format jsonl --report findings.jsonl *.pgn.zst
  pgn960 validate --strict tournament.pgn && echo publishable")]
pub struct Args {
    #[command(flatten)]
    archive: ArchiveArgs,

    /// Write the findings to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,

    /// Report format: csv (with a header) or jsonl (one JSON object a line).
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    format: Format,

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
    format: Format,
    csv: Option<csv::Writer<Box<dyn Write>>>,
    plain: Option<BufWriter<Box<dyn Write>>>,
}

impl Report {
    fn new(format: Format, out: Box<dyn Write>) -> io::Result<Report> {
        Ok(match format {
            Format::Csv => {
                // The header is written by hand so that a report without findings has one.
                let mut csv = csv::WriterBuilder::new()
                    .has_headers(false)
                    .from_writer(out);
                csv.write_record(["file", "game", "line", "severity", "code", "message"])
                    .map_err(pgn960::stats::into_io)?;
                Report {
                    format,
                    csv: Some(csv),
                    plain: None,
                }
            }
            Format::Jsonl => Report {
                format,
                csv: None,
                plain: Some(BufWriter::with_capacity(1 << 16, out)),
            },
        })
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
        match self.format {
            Format::Csv => self
                .csv
                .as_mut()
                .expect("a CSV report has a CSV writer")
                .serialize(row)
                .map_err(pgn960::stats::into_io),
            Format::Jsonl => {
                let out = self.plain.as_mut().expect("a JSONL report has a writer");
                // `From` keeps the kind of an I/O error, so a broken pipe stays quiet.
                serde_json::to_writer(&mut *out, &row).map_err(io::Error::from)?;
                out.write_all(b"\n")
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(csv) = &mut self.csv {
            csv.flush()?;
        }
        if let Some(plain) = &mut self.plain {
            plain.flush()?;
        }
        Ok(())
    }
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let options = ValidateOptions {
        moves: !args.no_moves,
    };
    let report_name = args
        .report
        .as_ref()
        .map_or_else(|| "report".to_string(), |p| p.display().to_string());
    let out: Box<dyn Write> = match &args.report {
        Some(path) => {
            refuse_output_among_inputs(path, &args.archive.sources())?;
            Box::new(File::create(path).with_context(|| path.display().to_string())?)
        }
        None => Box::new(io::stdout().lock()),
    };
    let mut report =
        Report::new(args.format, out).with_context(|| format!("writing {report_name}"))?;

    let sources = args.archive.sources();
    let mut progress = args.archive.progress(&sources);
    let mut per_code: BTreeMap<Code, u64> = BTreeMap::new();
    let mut games = 0u64;
    // Lines are counted by the workers, batch by batch, and placed here in
    // input order; each input counts from its own first line.
    let mut lines = LineNumbers::default();
    let mut input: *const Source = std::ptr::null();
    let config = PipelineConfig {
        line_numbers: false,
        ..args.archive.pipeline()
    };
    let failed = run_inputs(
        &sources,
        config,
        &mut progress,
        |batch| validate_batch_counting_lines(batch, options),
        |source, batch, findings| {
            if !std::ptr::eq(source, input) {
                (input, lines) = (source, LineNumbers::default());
            }
            let findings = lines.place(findings);
            games += batch.games.len() as u64;
            let name = source.to_string();
            for finding in &findings {
                *per_code.entry(finding.code).or_default() += 1;
                report.write(&name, finding)?;
            }
            Ok::<_, io::Error>(())
        },
    )
    .with_context(|| format!("writing {report_name}"))?;
    report
        .flush()
        .with_context(|| format!("writing {report_name}"))?;
    progress.finish();
    if !args.archive.quiet {
        print_summary(games, &per_code);
    }
    let count = |severity| count_of(&per_code, severity);
    Ok(if failed {
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

fn print_summary(games: u64, per_code: &BTreeMap<Code, u64>) {
    let total = |severity| count_of(per_code, severity);
    let mut text = format!(
        "pgn960 validate: {games} games checked: {} errors, {} warnings, {} info\n",
        total(Severity::Error),
        total(Severity::Warning),
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
