//! `pgn960 stats`: per-start-position results, scores with intervals and
//! Elo expectation, and the tests across positions, as CSV that merges
//! exactly across shards; the tests' summary as JSON; two plots as SVG.

use std::cell::Cell;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use anyhow::{Context, bail};
use pgn960::input::{self, MmapChoice, Source};
use pgn960::stats::{
    ANALYSIS_MEMORY, BoundedTable, GROUP_MEMORY, GroupBy, GroupedAnalysis, Groups, StatsOptions,
    StatsSummary, StatsTable, count_input_bounded, read_csv,
};

use super::archive::{ArchiveArgs, InputFailure, InputsRead, for_each_input};
use super::destination::{Destination, OutputKind, is_stdout};
use super::output::Outputs;
use super::{EXIT_ERROR, EXIT_OK, interrupt, summary};

/// Count results per Chess960 start position and write them as CSV.
///
/// One row per position with games (all 960 with --all-positions), sorted by
/// Scharnagl number: games, wins, draws, losses, unfinished games, White's
/// score with its 95% Wilson interval, draw rate, average ratings and White's
/// Elo expectation; then the exact integer sums that let `--merge` combine
/// shard CSVs into what one run over all shards writes; then, per position,
/// the tests across positions (an exact test of White's wins at the
/// position against a model of the ratings and White's advantage fitted to
/// all positions, its Benjamini-Hochberg q-value, a shrunk estimate of
/// White's score with its 95% interval, a score interval that counts
/// draws) and their sums.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  pgn960 stats tcec.pgn.zst -o positions.csv
  pgn960 stats --group-by year --min-elo 2400 events.pgn
  pgn960 stats --plot scores.svg archive.pgn -o positions.csv
  pgn960 stats --summary tests.json --funnel funnel.svg archive.pgn -o positions.csv
  pgn960 stats shard1.pgn -o a.csv; pgn960 stats shard2.pgn -o b.csv
  pgn960 stats --merge a.csv b.csv -o all.csv")]
pub struct Args {
    #[command(flatten)]
    archive: ArchiveArgs,

    /// Write the CSV to FILE instead of standard output (`-`). This and
    /// every other output is compressed when its name ends in .gz, .zst,
    /// .bz2 or .xz, and may be `-`, standard output, when no other output
    /// goes there.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,

    /// Write a row for every one of the 960 positions, with or without games.
    #[arg(long)]
    all_positions: bool,

    /// Add a leading `group` column and a row per group and position; TAG is
    /// any tag name (Event, TimeControl, ...) or `year` (the year of Date).
    #[arg(long, value_name = "TAG", value_parser = tag_name)]
    group_by: Option<String>,

    /// Count only games where both players are rated at least N (0 to
    /// 4000: ratings are 1 to 4000).
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = clap::value_parser!(i32).range(0..=4000))]
    min_elo: Option<i32>,

    /// Also count plain standard-chess games (under 518).
    #[arg(long)]
    include_standard: bool,

    /// The inputs are CSVs written by `pgn960 stats`: combine them into the
    /// CSV one run over all their archives would have written.
    #[arg(long, conflicts_with_all = ["group_by", "min_elo", "include_standard"])]
    merge: bool,

    /// Also draw each position's shrunk estimate of White's score with its
    /// 95% interval, positions ordered by it, as an SVG (the only image
    /// format written: a name that says another, such as .png, is refused).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,

    /// Also draw the funnel plot as an SVG: each position's rating-adjusted
    /// white score against its number of games (log scale), within the
    /// exact 95% and 99.8% limits of chance, significant positions marked.
    #[arg(long, value_name = "FILE.svg")]
    funnel: Option<PathBuf>,

    /// Also write the tests over all positions (results by position,
    /// rating-adjusted heterogeneity, the fitted model, shrinkage, power,
    /// significant positions) as JSON, one object per group under "groups"
    /// with --group-by, and the pooled tests under "within_groups".
    #[arg(long, value_name = "FILE.json")]
    summary: Option<PathBuf>,
}

/// A tag name for `--group-by` (or `year`): not empty, and nothing a tag
/// line's name cannot hold (blanks, `"`, `[`, `]`).
fn tag_name(name: &str) -> Result<String, String> {
    if name.is_empty() {
        return Err(
            "an empty name groups nothing: name a tag (Event, TimeControl, ...) or year".into(),
        );
    }
    match name
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '[' | ']'))
    {
        Some(c) => Err(format!(
            "{c:?} is in no tag name: name a tag (Event, TimeControl, ...) or year"
        )),
        None => Ok(name.to_string()),
    }
}

/// `-o`: the CSV.
const CSV: OutputKind<()> = OutputKind {
    option: "-o",
    what: "the CSV",
    formats: &[((), "csv")],
    unnamed_gets_default: true,
};

/// `--plot`: an SVG.
const PLOT: OutputKind<()> = OutputKind {
    option: "--plot",
    what: "the plot",
    formats: &[((), "svg")],
    unnamed_gets_default: true,
};

/// `--funnel`: an SVG.
const FUNNEL: OutputKind<()> = OutputKind {
    option: "--funnel",
    what: "the funnel plot",
    formats: &[((), "svg")],
    unnamed_gets_default: true,
};

/// `--summary`: JSON.
const SUMMARY: OutputKind<()> = OutputKind {
    option: "--summary",
    what: "the summary",
    formats: &[((), "json")],
    unnamed_gets_default: true,
};

pub fn run(args: Args) -> anyhow::Result<u8> {
    let sources = args.archive.sources();
    // Every output exists before any input is read, and none is an input.
    let outputs = Outputs::guarding(&sources);
    let (mut csv_out, ()) = outputs.open(&CSV, args.output.as_deref(), None)?;
    let plot_out = open_also(&outputs, &PLOT, args.plot.as_deref())?;
    let funnel_out = open_also(&outputs, &FUNNEL, args.funnel.as_deref())?;
    let summary_out = open_also(&outputs, &SUMMARY, args.summary.as_deref())?;
    // Groups beyond the memory budget go to sorted runs in a temporary
    // directory, removed at the end, on an error or a signal.
    let runs = tempfile::Builder::new()
        .prefix("pgn960-groups-")
        .tempdir()
        .context("making a temporary directory for the groups")?;
    let _removed_on_signal = interrupt::register(runs.path());
    let (group_memory, findings_memory) = memory();
    let (groups, grouped, inputs, counted) = if args.merge {
        merge_inputs(&args)?
    } else {
        let mut table = BoundedTable::in_directory(group_memory, runs.path());
        let (grouped, inputs, counted) = count_inputs(&args, &sources, &mut table)?;
        (
            table.finish().context(GROUPS_FILE)?,
            grouped,
            inputs,
            counted,
        )
    };
    let mut place = (0, 0);
    if inputs.opened > 0 {
        // The tests run once, for every output, a group at a time.
        let analysis =
            GroupedAnalysis::with_memory(&groups, findings_memory).context(GROUPS_FILE)?;
        place = (analysis.rows(), analysis.groups());
        if plot_out.is_some() || funnel_out.is_some() {
            let plotted = analysis.plotted();
            write_to(plot_out, |out| {
                pgn960::plot::write_ranking_svg(&plotted, out)
            })?;
            write_to(funnel_out, |out| {
                pgn960::plot::write_funnel_svg(&plotted, out)
            })?;
        }
        // The CSV and the summary are written together, group by group;
        // an error names the one that failed.
        let json_failed = Rc::new(Cell::new(false));
        let mut json = summary_out.map(|(out, path)| {
            let watched = Watched {
                inner: out,
                failed: Rc::clone(&json_failed),
            };
            (watched, path)
        });
        analysis
            .write(
                &groups,
                grouped,
                args.all_positions,
                &mut csv_out,
                json.as_mut().map(|(out, _)| out),
            )
            .with_context(|| match &json {
                Some((_, path)) if json_failed.get() => format!("writing {}", name_of(path)),
                _ => format!("writing {}", output_name(&args)),
            })?;
        if let Some((out, path)) = json {
            out.inner
                .finish(true)
                .with_context(|| format!("writing {}", name_of(path)))?;
        }
    }
    csv_out
        .finish(inputs.opened > 0)
        .with_context(|| format!("writing {}", output_name(&args)))?;
    let code = outputs.settle(if inputs.failed { EXIT_ERROR } else { EXIT_OK })?;
    // Only once every output is written: a summary says the run went well.
    if let Some(summary) = counted
        && !args.archive.quiet
        && inputs.opened > 0
    {
        print_summary(&args, &summary, place);
    }
    Ok(code)
}

/// What an error with the groups' temporary files says.
const GROUPS_FILE: &str = "the temporary files of the groups";

/// The memory the counts may hold before they go to disk, and the
/// findings of the tests between the passes over the groups:
/// [`GROUP_MEMORY`] and [`ANALYSIS_MEMORY`], or both `PGN960_GROUP_MEMORY`
/// bytes (for tests, which make the groups of a small input go to disk).
fn memory() -> (usize, usize) {
    std::env::var("PGN960_GROUP_MEMORY")
        .ok()
        .and_then(|bytes| bytes.parse().ok())
        .map_or((GROUP_MEMORY, ANALYSIS_MEMORY), |bytes| (bytes, bytes))
}

/// A writer that notes whether it failed.
struct Watched<W> {
    inner: W,
    failed: Rc<Cell<bool>>,
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.inner.write(buf);
        self.failed.set(self.failed.get() || result.is_err());
        result
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.inner.flush();
        self.failed.set(self.failed.get() || result.is_err());
        result
    }
}

/// An output's name in a message.
fn name_of(path: &Path) -> String {
    if is_stdout(path) {
        "standard output".to_string()
    } else {
        path.display().to_string()
    }
}

/// The output `kind` asks for, when its option is given.
fn open_also<'a>(
    outputs: &Outputs,
    kind: &OutputKind<()>,
    path: Option<&'a Path>,
) -> anyhow::Result<Option<(Destination, &'a Path)>> {
    path.map(|path| Ok((outputs.open(kind, Some(path), None)?.0, path)))
        .transpose()
}

/// Writes `out`, when there is one, whole with `write`; an error names
/// the output.
fn write_to<E>(
    out: Option<(Destination, &Path)>,
    write: impl FnOnce(&mut Destination) -> Result<(), E>,
) -> anyhow::Result<()>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let Some((mut out, path)) = out else {
        return Ok(());
    };
    let name = name_of(path);
    write(&mut out).with_context(|| format!("writing {name}"))?;
    out.finish(true).with_context(|| format!("writing {name}"))
}

fn output_name(args: &Args) -> String {
    match &args.output {
        Some(path) if !is_stdout(path) => path.display().to_string(),
        _ => "output".to_string(),
    }
}

/// The groups, whether they are grouped, how the inputs went, and
/// (counting archives) the games counted.
type Counted = (Groups, bool, InputsRead, Option<StatsSummary>);

fn count_inputs(
    args: &Args,
    sources: &[Source],
    table: &mut BoundedTable,
) -> anyhow::Result<(bool, InputsRead, Option<StatsSummary>)> {
    let options = StatsOptions {
        include_standard: args.include_standard,
        group_by: args.group_by.as_deref().map(GroupBy::from_arg),
        min_elo: args.min_elo,
    };
    let mut progress = args.archive.progress(sources);
    let mut summary = StatsSummary::default();
    let config = args.archive.pipeline();
    let inputs = for_each_input(sources, &mut progress, |_, opened, progress| {
        let raw_read = Arc::clone(&opened.raw_read);
        let result = count_input_bounded(
            opened.reader,
            config,
            &options,
            table,
            &mut summary,
            |batch| {
                progress.update(&raw_read, batch.games.len());
                Ok::<_, io::Error>(())
            },
        );
        progress.finish_input(&raw_read);
        result.map_err(|err| InputFailure::of(err, || GROUPS_FILE.to_string()))
    })?;
    progress.finish();
    Ok((options.group_by.is_some(), inputs, Some(summary)))
}

fn merge_inputs(args: &Args) -> anyhow::Result<Counted> {
    if args.archive.inputs.is_empty() {
        bail!("--merge needs the CSV files to merge");
    }
    let mut table = StatsTable::default();
    let mut grouped_all: Option<bool> = None;
    for path in &args.archive.inputs {
        // A CSV compressed by `-o s.csv.gz` reads as it was written; `-`
        // is standard input.
        let source = Source::from_arg(path);
        let opened =
            input::open(&source, MmapChoice::never()).with_context(|| source.to_string())?;
        let (part, grouped) =
            read_csv(BufReader::new(opened.reader)).with_context(|| source.to_string())?;
        match grouped_all {
            Some(before) if before != grouped => bail!(
                "{}: has {} `group` column, unlike the CSVs before it",
                path.display(),
                if grouped { "a" } else { "no" }
            ),
            _ => grouped_all = Some(grouped),
        }
        table
            .checked_merge(&part)
            .with_context(|| source.to_string())?;
    }
    if let Err(column) = table.checked_total() {
        bail!(
            "the sum of `{column}` over all positions is too large to hold; these CSVs cannot be merged"
        );
    }
    let inputs = InputsRead {
        opened: args.archive.inputs.len(),
        failed: false,
    };
    // The CSVs are read whole: their groups stay in memory.
    Ok((
        Groups::from(table),
        grouped_all.unwrap_or(false),
        inputs,
        None,
    ))
}

fn print_summary(args: &Args, counts: &StatsSummary, (rows, groups): (u64, u64)) {
    let what = if args.include_standard {
        "chess960 and standard"
    } else {
        "chess960"
    };
    let games = summary::count(
        counts.counted,
        &format!("{what} game"),
        &format!("{what} games"),
    );
    let place = if args.group_by.is_some() {
        format!(
            "{} of {}",
            summary::count(rows, "row", "rows"),
            summary::count(groups, "group", "groups")
        )
    } else {
        summary::count(rows, "position", "positions")
    };
    let mut text = format!(
        "pgn960 stats: {}\n  counted {games} in {place}",
        summary::games_by_kind(&counts.kinds, "read")
    );
    if args.min_elo.is_some() {
        text.push_str(&format!(
            "; {} below --min-elo",
            summary::count(counts.below_min_elo, "game", "games")
        ));
    }
    eprintln!("{text}");
}
