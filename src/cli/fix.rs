//! `pgn960 fix`: repair what `validate` finds in Chess960 headers, changing
//! no other byte; optionally, a CSV report of every repair and of every
//! finding left alone.

use std::io::{self, Seek, Write};
use std::path::PathBuf;

use anyhow::Context;
use pgn960::fix::{
    Action, BatchFix, FixCounts, FixOptions, Row, Spellings, VariantName, fix_batch,
};
use pgn960::input::Opened;
use pgn960::pipeline::{PipelineConfig, PipelineError};
use pgn960::position::CastlingNotation;
use pgn960::split::Batch;
use pgn960::tag::apply;

use super::archive::{ArchiveArgs, InputFailure, Progress, for_each_input, run_input, walk_inputs};
use super::destination::{Destination, OutputKind, is_stdout};
use super::in_place::{Original, RewriteError};
use super::output::Outputs;
use super::rewrite::{RewriteArgs, Sink};
use super::summary::{self, Rewritten};
use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};

/// The examples after the options (`-h`); `--help` adds the repairs.
const EXAMPLES: &str = "Examples:
  pgn960 fix broadcast.pgn > fixed.pgn
  pgn960 fix --in-place --report repairs.csv 2024/*.pgn.zst
  pgn960 fix --castling shredder archive.pgn -o shredder.pgn
  pgn960 fix --check archive.pgn || echo 'archive needs repairs'";

/// Repair what validate finds in Chess960 headers, changing no other byte.
///
/// Rewrites a wrong Chess960Id and adds a missing one (as tag does); adds
/// [Variant "Chess960"] on a Chess960 start array other than 518 and
/// rewrites every other spelling of Chess960; rewrites Standard or From
/// Position there when the moves replay legally under Chess960 rules; adds
/// [SetUp "1"] beside a FEN; adds the FEN of a start recorded only as an id
/// number or as a back rank in Opening when the moves replay from it. Every
/// other byte reaches the output unchanged; what is not repaired is counted
/// as left. Every repair is listed below (--help) and in the guide
/// (docs/codes.md).
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    archive: ArchiveArgs,

    #[command(flatten)]
    rewrite: RewriteArgs,

    /// Also write a CSV to FILE: one row per repair and one per finding
    /// left alone (file,game,line,code,action,tag,before,after);
    /// compressed when its name ends in .gz, .zst, .bz2 or .xz; `-` is
    /// standard output.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,

    /// Castling fields of start-array FENs: keep them, or rewrite them to
    /// X-FEN (KQkq) or Shredder-FEN (HAha). A FEN that fix adds is written
    /// in X-FEN unless shredder is asked for.
    #[arg(long, value_enum, value_name = "NOTATION", default_value_t = Castling::Keep)]
    castling: Castling,

    /// The Variant spelling: without this option, a spelling readers
    /// reject (FRC, chess-960, ...) is rewritten to Chess960 and the others
    /// are kept; a spelling common readers accept (Chess960, Chess 960,
    /// Fischerandom, Fischerrandom, Fischer Random) rewrites every other
    /// spelling to it; keep keeps every spelling.
    #[arg(long, value_name = "NAME|keep", value_parser = parse_variant_name)]
    variant_name: Option<(Spellings, VariantName)>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Castling {
    Keep,
    Xfen,
    Shredder,
}

fn parse_variant_name(name: &str) -> Result<(Spellings, VariantName), String> {
    Spellings::asked(Some(name)).map_err(|err| err.to_string())
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let sources = args.archive.sources();
    let outputs = Outputs::guarding(&sources).hint(", or use --in-place");
    let mut sink = Sink::of(&args.rewrite, &sources, &outputs, args.archive.threads)?;
    let mut report = Report::of(&args, &outputs)?;
    let (spellings, variant_name) = args
        .variant_name
        .clone()
        .unwrap_or_else(|| (Spellings::Reported, VariantName::default()));
    let options = FixOptions {
        castling: match args.castling {
            Castling::Keep => None,
            Castling::Xfen => Some(CastlingNotation::Xfen),
            Castling::Shredder => Some(CastlingNotation::Shredder),
        },
        variant_name,
        spellings,
        rows: report.is_some(),
    };
    let config = PipelineConfig {
        line_numbers: report.is_some(),
        ..args.archive.pipeline()
    };
    let mut progress = args.archive.progress(&sources);
    let mut total = FixCounts::default();
    let mut rewritten = Vec::new();
    let report_name = || {
        args.report
            .as_ref()
            .map_or_else(String::new, |p| match is_stdout(p) {
                true => "writing the report".to_string(),
                false => format!("writing {}", p.display()),
            })
    };
    let start_report = |report: &mut Option<Report>| {
        if let Some(report) = report {
            report
                .start()
                .map_err(|err| InputFailure::Run(anyhow::Error::new(err).context(report_name())))?;
        }
        Ok::<_, InputFailure>(())
    };
    let inputs = if let Sink::InPlace(in_place) = &sink {
        let in_place = *in_place;
        walk_inputs(
            &sources,
            &mut progress,
            |source| Ok(in_place.open_source(source)?),
            |source, original, progress| {
                start_report(&mut report)?;
                let run = Run {
                    config,
                    options: &options,
                    file: source.to_string(),
                };
                let settings = original.settings();
                if run.in_place(original, progress, &mut total, report.as_mut())? {
                    rewritten.push(Rewritten::new(source, settings));
                }
                Ok(())
            },
        )?
    } else {
        for_each_input(&sources, &mut progress, |source, opened, progress| {
            start_report(&mut report)?;
            let run = Run {
                config,
                options: &options,
                file: source.to_string(),
            };
            let out = sink
                .stream()
                .expect("a sink that is no --in-place has a stream");
            let rows = report.as_mut().map(Report::rows);
            let result = run
                .stream(opened, out, progress, &mut total, rows)
                .map_err(|err| run.failure(err, &args, &report_name));
            sink.end_input();
            result
        })?
    };
    sink.finish(inputs.opened > 0)
        .with_context(|| args.rewrite.output_name())?;
    if let Some(report) = report {
        report.finish(inputs.opened > 0).with_context(report_name)?;
    }
    progress.finish();
    if !args.archive.quiet && inputs.opened > 0 {
        print_summary(&total, args.rewrite.check, &rewritten);
    }
    let code = if inputs.failed {
        EXIT_ERROR
    } else if args.rewrite.check && total.repairs() > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    };
    if args.rewrite.in_place {
        outputs.settle_all_the_same(code)
    } else {
        outputs.settle(code)
    }
}

/// Why writing stopped: the repaired games, or the report.
#[derive(Debug)]
enum WriteError {
    Output(io::Error),
    Report(io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Output(err) | WriteError::Report(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::Output(err) | WriteError::Report(err) => Some(err),
        }
    }
}

impl From<WriteError> for io::Error {
    fn from(err: WriteError) -> io::Error {
        match err {
            WriteError::Output(err) | WriteError::Report(err) => err,
        }
    }
}

/// `--report`: CSV, compressed as its name says.
const REPORT: OutputKind<()> = OutputKind {
    option: "--report",
    what: "the report",
    formats: &[((), "csv")],
    unnamed_gets_default: true,
};

/// The rows of the report, as CSV.
type Rows<W> = csv::Writer<W>;

/// The report file: a header once an input is opened, then the rows.
struct Report {
    /// Always there but while rows written elsewhere are appended.
    csv: Option<Rows<Destination>>,
    started: bool,
}

impl Report {
    /// The report `--report` asks for, its file created now through
    /// `outputs`: refused when it is an input or the same file as the
    /// output.
    fn of(args: &Args, outputs: &Outputs) -> anyhow::Result<Option<Report>> {
        let Some(path) = &args.report else {
            return Ok(None);
        };
        let (out, ()) = outputs.open(&REPORT, Some(path), None)?;
        Ok(Some(Report {
            csv: Some(rows_writer(out)),
            started: false,
        }))
    }

    fn rows(&mut self) -> &mut Rows<Destination> {
        self.csv
            .as_mut()
            .expect("the report's writer is back after appending")
    }

    /// Writes the header, once: a report without rows has one, a run that
    /// read nothing writes nothing.
    fn start(&mut self) -> io::Result<()> {
        if !self.started {
            self.rows()
                .write_record([
                    "file", "game", "line", "code", "action", "tag", "before", "after",
                ])
                .map_err(pgn960::stats::into_io)?;
            self.started = true;
        }
        Ok(())
    }

    /// Appends rows written elsewhere (a spool of one input).
    fn append(&mut self, rows: &mut (impl io::Read + Seek)) -> io::Result<()> {
        // The CSV writer lends its output only by giving it up.
        let csv = self.csv.take().expect("the report's writer is there");
        let mut out = csv.into_inner().map_err(|err| err.into_error())?;
        rows.rewind()?;
        let copied = io::copy(rows, &mut out);
        self.csv = Some(rows_writer(out));
        copied.map(|_| ())
    }

    fn finish(self, any_input_read: bool) -> io::Result<()> {
        let csv = self.csv.expect("the report's writer is there");
        let out = csv.into_inner().map_err(|err| err.into_error())?;
        out.finish(any_input_read)
    }
}

/// A CSV writer of rows, the header written apart.
fn rows_writer<W: Write>(out: W) -> Rows<W> {
    csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(out)
}

/// Writes one row of the report.
fn write_row<W: Write>(rows: &mut Rows<W>, file: &str, batch: &Batch, row: &Row) -> io::Result<()> {
    rows.write_record([
        file,
        &row.game.to_string(),
        &batch.input_line(row.line).to_string(),
        row.problem.name(),
        row.action.name(),
        &row.tag,
        &row.before,
        &row.after,
    ])
    .map_err(pgn960::stats::into_io)
}

/// What every input of a run shares.
struct Run<'a> {
    config: PipelineConfig,
    options: &'a FixOptions,
    /// The input's name in the report.
    file: String,
}

impl Run<'_> {
    /// Repairs one input into `out`, adding its games to `total` as they go
    /// out (so that an input cut short still counts the games read before),
    /// and its rows to `rows`.
    fn stream<W: Write>(
        &self,
        opened: Opened,
        out: &mut dyn Write,
        progress: &mut Progress,
        total: &mut FixCounts,
        mut rows: Option<&mut Rows<W>>,
    ) -> Result<(), PipelineError<WriteError>> {
        run_input(
            opened,
            self.config,
            progress,
            |batch| fix_batch(batch, self.options),
            |batch, fixed: BatchFix| {
                total.merge(&fixed.counts);
                apply(&batch.data, &fixed.edits, out).map_err(WriteError::Output)?;
                if let Some(rows) = rows.as_deref_mut() {
                    for row in &fixed.rows {
                        write_row(rows, &self.file, batch, row).map_err(WriteError::Report)?;
                    }
                }
                Ok(())
            },
        )
    }

    /// `--in-place`: rewrites the file when anything changes; its rows go
    /// to the report only when it was rewritten (or needed no change).
    /// Whether it was rewritten.
    fn in_place(
        &self,
        mut original: Original,
        progress: &mut Progress,
        total: &mut FixCounts,
        report: Option<&mut Report>,
    ) -> Result<bool, InputFailure> {
        let opened = original.take_input();
        let before = *total;
        let mut spool = report
            .is_some()
            .then(|| rows_writer(tempfile::spooled_tempfile(1 << 20)));
        let rewritten = original.rewrite(|out| {
            self.stream(opened, out, progress, total, spool.as_mut())
                .map_err(RewriteError::from)?;
            Ok(total.games_fixed > before.games_fixed)
        });
        let changed = match rewritten {
            Ok(changed) => changed,
            Err(failure) => {
                // The games were read, but the file is as it was.
                let kinds = total.kinds;
                *total = before;
                total.kinds = kinds;
                return Err(failure.into());
            }
        };
        if let (Some(report), Some(spool)) = (report, spool) {
            let mut rows = spool.into_inner().map_err(|err| {
                InputFailure::Input(format!("the report's rows: {}", err.error()))
            })?;
            report.append(&mut rows).map_err(|err| {
                InputFailure::Run(anyhow::Error::new(err).context("writing the report"))
            })?;
        }
        Ok(changed)
    }

    /// How a failure of [`Run::stream`] ends the input or the run.
    fn failure(
        &self,
        err: PipelineError<WriteError>,
        args: &Args,
        report_name: &dyn Fn() -> String,
    ) -> InputFailure {
        match err {
            PipelineError::Consume(WriteError::Report(err)) => {
                InputFailure::Run(anyhow::Error::new(err).context(report_name()))
            }
            PipelineError::Consume(WriteError::Output(err)) => {
                InputFailure::Run(anyhow::Error::new(err).context(args.rewrite.output_name()))
            }
            PipelineError::Read(err) => InputFailure::Input(err.to_string()),
            PipelineError::Panic(message) => InputFailure::panicked(&message),
        }
    }
}

fn print_summary(counts: &FixCounts, check: bool, rewritten: &[Rewritten]) {
    let games = summary::count(counts.games_fixed, "game", "games");
    let (head, label) = if check {
        (format!("{games} to fix"), "to fix")
    } else {
        (format!("fixed {games}"), "fixed")
    };
    let mut text = format!(
        "pgn960 fix: {}\n  {head}: {}, {} left\n",
        summary::games_by_kind(&counts.kinds, "read"),
        summary::count(counts.repairs(), "repair", "repairs"),
        summary::count(counts.findings_left(), "finding", "findings"),
    );
    for (action, label) in [(Action::Fixed, label), (Action::Left, "left")] {
        for (problem, n) in counts.by_problem(action) {
            text.push_str(&format!("  {label:<7} {:<24} {n}\n", problem.name()));
        }
    }
    summary::push_rewritten(&mut text, rewritten);
    eprint!("{text}");
}

/// What `fix` repairs, each by the name its report gives it: the codes of
/// `validate` it removes, then its own three.
const REPAIRS: &[(&str, &str)] = &[
    (
        "id_mismatch, id_malformed",
        "each Chess960Id and Chess960Fritz9Id of a game that starts from a Chess960 array is rewritten to the array's number",
    ),
    (
        "id_missing",
        "(not a validate code) a Chess960 game without Chess960Id gets one, as tag adds it",
    ),
    (
        "variant_missing",
        "[Variant \"Chess960\"] is added on a start array other than 518; an empty Variant is rewritten",
    ),
    (
        "variant_spelling",
        "a spelling of Chess960 that common readers reject (FRC, 960, chess-960, ...) is rewritten to Chess960, or to --variant-name; with --variant-name keep it is left",
    ),
    (
        "variant_name",
        "(not a validate code) with --variant-name NAME, every other spelling naming Chess960 is rewritten to NAME",
    ),
    (
        "variant_mismatch",
        "Standard or From Position on a start array other than 518 is rewritten to Chess960 when the mainline replays legally under Chess960 rules",
    ),
    (
        "fen_without_setup",
        "[SetUp \"1\"] is added beside a FEN, or another SetUp value rewritten",
    ),
    (
        "fen_missing, setup_without_fen",
        "a game without a FEN whose id tags or Opening back rank record another start than 518, all agreeing, gets that start's FEN, SetUp \"1\" and a Variant, when the mainline replays from it",
    ),
    (
        "tag_repeated",
        "a repeated tag alone on its line is removed when every tag of its name in the game says the same (the same value; FENs of the same start and clocks; the id tags of a Chess960 start, the first rewritten); tags that disagree are left",
    ),
    (
        "castling_notation",
        "(not a validate code) with --castling xfen or shredder, the castling field of every start array's FEN is rewritten to that notation",
    ),
];

/// `fix --help`'s text after the options: the examples, then every repair.
pub fn long_help() -> String {
    let mut text = String::from(EXAMPLES);
    text.push_str("\n\nRepairs (the report's code column names each by what it removes):\n");
    for (codes, repair) in REPAIRS {
        text.push_str(&format!("  {codes}\n"));
        super::help::wrap_into(&mut text, repair, "      ");
    }
    text.push_str("Every other validate code is left, and counted as left.");
    text
}
