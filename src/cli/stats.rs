//! `pgn960 stats`: per-start-position results, scores with intervals and
//! Elo expectation, and the tests across positions, as CSV that merges
//! exactly across shards; the tests' summary as JSON; two plots as SVG.

use std::cell::Cell;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use anyhow::{Context, bail};
use pgn960::duplicates::DUPLICATES_MEMORY;
use pgn960::input::{self, MmapChoice, Source};
use pgn960::stats::{
    ANALYSIS_MEMORY, BoundedTable, Copies, CsvMerge, DfrcGroups, DfrcTables, GROUP_MEMORY, GroupBy,
    GroupedAnalysis, Groups, MergeError, PositionStats, StatsOptions, StatsSummary, SummaryNotes,
    WAITING_MEMORY, count_input_bounded, finish_copies, is_pairs_header, read_pairs_csv,
    write_pairs_csv,
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
/// draws) and their sums. With --dfrc-pairs, --dfrc-white or --dfrc-black,
/// the Double FRC games too, by pair of arrays and by each side's array.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  pgn960 stats tcec.pgn.zst -o positions.csv
  pgn960 stats --group-by year --min-elo 2400 events.pgn
  pgn960 stats --plot scores.svg archive.pgn -o positions.csv
  pgn960 stats --summary tests.json --funnel funnel.svg archive.pgn -o positions.csv
  pgn960 stats shard1.pgn -o a.csv; pgn960 stats shard2.pgn -o b.csv
  pgn960 stats --merge a.csv b.csv -o all.csv
  pgn960 stats tcec.pgn.zst -o positions.csv --dfrc-pairs pairs.csv --dfrc-white white.csv")]
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

    /// Also count the games whose result was not played: a Termination
    /// that says the game was abandoned (`abandoned`, `stalled connection`,
    /// TCEC's TerminationDetails `... disconnects`), ended by a rules
    /// infraction (`rules infraction`, `illegal move`), `unterminated`,
    /// `emergency` or `death`. Left out by default, and counted by reason
    /// in the summary; `time forfeit`, `adjudication` and `normal` are
    /// played.
    #[arg(long)]
    keep_unplayed: bool,

    /// Count every copy of a game. By default a game that repeats one read
    /// before (same players, result, Event, Date, Round, start and moves,
    /// whatever its comments, clocks, spacing or other tags; see
    /// docs/commands/stats.md) is counted once, across all inputs, and the
    /// summary says how many copies were skipped. A copy is told before
    /// its result is looked at: a copy of an unplayed game is a copy.
    #[arg(long)]
    keep_duplicates: bool,

    /// The inputs are CSVs written by `pgn960 stats`: combine them into the
    /// CSV one run over all their archives would have written: CSVs of
    /// positions (-o, --dfrc-white, --dfrc-black) into one of positions,
    /// of pairs (--dfrc-pairs) into one of pairs.
    #[arg(long, conflicts_with_all = ["group_by", "min_elo", "include_standard",
                                      "dfrc_pairs", "dfrc_white", "dfrc_black", "keep_unplayed",
                                      "keep_duplicates"])]
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

    /// Also count the Double FRC games (White and Black start from
    /// different arrays) and write a row per pair of arrays with games, as
    /// CSV: White's and Black's array, then the counts, White's score with
    /// its interval, the averages and the exact sums of -o's rows (none of
    /// its tests across positions).
    #[arg(long, value_name = "FILE.csv")]
    dfrc_pairs: Option<PathBuf>,

    /// Also count the Double FRC games by White's array alone and write
    /// them as a CSV of -o's columns, tests across arrays included (the
    /// position is White's array).
    #[arg(long, value_name = "FILE.csv")]
    dfrc_white: Option<PathBuf>,

    /// Also count the Double FRC games by Black's array alone and write
    /// them as a CSV of -o's columns, tests across arrays included (the
    /// position is Black's array, read from the a-file).
    #[arg(long, value_name = "FILE.csv")]
    dfrc_black: Option<PathBuf>,
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

/// `--dfrc-pairs`: CSV.
const DFRC_PAIRS: OutputKind<()> = OutputKind {
    option: "--dfrc-pairs",
    what: "the Double FRC pairs' CSV",
    formats: &[((), "csv")],
    unnamed_gets_default: true,
};

/// `--dfrc-white`: CSV.
const DFRC_WHITE: OutputKind<()> = OutputKind {
    option: "--dfrc-white",
    what: "the CSV by White's array",
    formats: &[((), "csv")],
    unnamed_gets_default: true,
};

/// `--dfrc-black`: CSV.
const DFRC_BLACK: OutputKind<()> = OutputKind {
    option: "--dfrc-black",
    what: "the CSV by Black's array",
    formats: &[((), "csv")],
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
    let dfrc_out = DfrcOutputs {
        pairs: open_also(&outputs, &DFRC_PAIRS, args.dfrc_pairs.as_deref())?,
        white: open_also(&outputs, &DFRC_WHITE, args.dfrc_white.as_deref())?,
        black: open_also(&outputs, &DFRC_BLACK, args.dfrc_black.as_deref())?,
    };
    // Groups beyond the memory budget go to sorted runs in a temporary
    // directory, removed at the end, on an error or a signal.
    let runs = tempfile::Builder::new()
        .prefix("pgn960-groups-")
        .tempdir()
        .context("making a temporary directory for the groups")?;
    let _removed_on_signal = interrupt::register(runs.path());
    let (group_memory, findings_memory) = memory();
    let (groups, grouped, inputs, counted, dfrc) = if args.merge {
        match merge_inputs(&args, runs.path(), group_memory)? {
            Merged::Positions((groups, grouped, inputs, counted)) => {
                (groups, grouped, inputs, counted, None)
            }
            Merged::Pairs(pairs, grouped, inputs) => {
                refuse_with_pairs(&args)?;
                write_pairs(pairs, grouped, csv_out, &args.output)?;
                return outputs.settle(if inputs.failed { EXIT_ERROR } else { EXIT_OK });
            }
        }
    } else {
        let mut table = BoundedTable::in_directory(group_memory, runs.path());
        let mut dfrc = dfrc_out
            .any()
            .then(|| DfrcTables::in_directory(group_memory, runs.path()))
            .transpose()
            .context(GROUPS_FILE)?;
        let (grouped, inputs, counted) =
            count_inputs(&args, &sources, (&mut table, dfrc.as_mut()), runs.path())?;
        let dfrc = dfrc
            .map(DfrcTables::finish)
            .transpose()
            .context(GROUPS_FILE)?;
        (
            table.finish().context(GROUPS_FILE)?,
            grouped,
            inputs,
            counted,
            dfrc,
        )
    };
    let mut place = (0, 0);
    let mut pair_rows = 0;
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
        // A count of archives notes its unplayed games; CSVs do not
        // record them.
        let notes = counted
            .as_ref()
            .map_or_else(SummaryNotes::default, |summary| {
                SummaryNotes::of_count(summary.unplayed, args.keep_unplayed)
            });
        analysis
            .write(
                &groups,
                grouped,
                args.all_positions,
                &mut csv_out,
                json.as_mut().map(|(out, _)| out),
                &notes,
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
        if let Some(dfrc) = dfrc {
            pair_rows = dfrc_out.write(&dfrc, grouped, args.all_positions, findings_memory)?;
        }
    } else {
        dfrc_out.leave()?;
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
        print_summary(&args, &summary, place, pair_rows);
    }
    Ok(code)
}

/// The outputs of the Double FRC games, those asked for.
struct DfrcOutputs<'a> {
    pairs: Option<(Destination, &'a Path)>,
    white: Option<(Destination, &'a Path)>,
    black: Option<(Destination, &'a Path)>,
}

impl DfrcOutputs<'_> {
    /// Whether any is asked for: then the Double FRC games are counted.
    fn any(&self) -> bool {
        self.pairs.is_some() || self.white.is_some() || self.black.is_some()
    }

    /// Writes each output asked for: the pairs, and the tables by White's
    /// and by Black's array as the positions' CSV is written. Returns the
    /// number of pairs' rows.
    fn write(
        self,
        dfrc: &DfrcGroups,
        grouped: bool,
        all_positions: bool,
        findings_memory: usize,
    ) -> anyhow::Result<u64> {
        let mut rows = 0;
        write_to(self.pairs, |out| {
            rows = write_pairs_csv(&dfrc.pairs, grouped, out)?;
            Ok::<_, io::Error>(())
        })?;
        for (out, groups) in [(self.white, &dfrc.white), (self.black, &dfrc.black)] {
            if out.is_none() {
                continue;
            }
            let analysis =
                GroupedAnalysis::with_memory(groups, findings_memory).context(GROUPS_FILE)?;
            write_to(out, |out| {
                analysis.write(
                    groups,
                    grouped,
                    all_positions,
                    out,
                    None::<io::Sink>,
                    &SummaryNotes::default(),
                )
            })?;
        }
        Ok(rows)
    }

    /// Leaves every output as it was: no input could be read.
    fn leave(self) -> anyhow::Result<()> {
        for (out, path) in [self.pairs, self.white, self.black].into_iter().flatten() {
            out.finish(false)
                .with_context(|| format!("writing {}", name_of(path)))?;
        }
        Ok(())
    }
}

/// Refuses the options that have nothing to show of pairs: their CSV has
/// no tests across positions, and no row for pairs without games.
fn refuse_with_pairs(args: &Args) -> anyhow::Result<()> {
    let refused = [
        (args.summary.is_some(), "--summary"),
        (args.plot.is_some(), "--plot"),
        (args.funnel.is_some(), "--funnel"),
        (args.all_positions, "--all-positions"),
    ];
    if let Some((_, option)) = refused.iter().find(|(given, _)| *given) {
        bail!(
            "{option}: the CSVs are Double FRC pairs' (--dfrc-pairs), which have no tests across positions and no rows without games; merge them without {option}"
        );
    }
    Ok(())
}

/// Writes the merged pairs to `-o`.
fn write_pairs(
    pairs: Groups,
    grouped: bool,
    mut out: Destination,
    path: &Option<PathBuf>,
) -> anyhow::Result<()> {
    let name = match path {
        Some(path) => name_of(path),
        None => name_of(Path::new("-")),
    };
    write_pairs_csv(&pairs, grouped, &mut out).with_context(|| format!("writing {name}"))?;
    out.finish(true).with_context(|| format!("writing {name}"))
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

/// The memory the table of games seen may take: `default`, or
/// `PGN960_DUPLICATES_MEMORY` bytes (for tests, which make the
/// fingerprints of a small input go to disk).
pub(super) fn duplicates_memory(default: usize) -> usize {
    std::env::var("PGN960_DUPLICATES_MEMORY")
        .ok()
        .and_then(|bytes| bytes.parse().ok())
        .unwrap_or(default)
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

/// What `--merge` read: CSVs of positions, or of Double FRC pairs (their
/// groups named by [`pgn960::stats::pair_key`]), whether grouped, and how
/// the inputs went.
enum Merged {
    Positions(Counted),
    Pairs(Groups, bool, InputsRead),
}

fn count_inputs(
    args: &Args,
    sources: &[Source],
    (table, mut dfrc): (&mut BoundedTable, Option<&mut DfrcTables>),
    runs: &Path,
) -> anyhow::Result<(bool, InputsRead, Option<StatsSummary>)> {
    let options = StatsOptions {
        include_standard: args.include_standard,
        group_by: args.group_by.as_deref().map(GroupBy::from_arg),
        min_elo: args.min_elo,
        dfrc: dfrc.is_some(),
        keep_unplayed: args.keep_unplayed,
    };
    let mut progress = args.archive.progress(sources);
    let mut summary = StatsSummary::default();
    let config = args.archive.pipeline();
    // The games waiting for the merge of copies take a budget of their
    // own, the fingerprints' or less.
    let (budget, waiting) = match std::env::var("PGN960_DUPLICATES_MEMORY") {
        Ok(_) => (
            duplicates_memory(DUPLICATES_MEMORY),
            duplicates_memory(WAITING_MEMORY),
        ),
        Err(_) => (DUPLICATES_MEMORY, WAITING_MEMORY),
    };
    let mut copies = (!args.keep_duplicates).then(|| Copies::new(budget, waiting, Some(runs)));
    let inputs = for_each_input(sources, &mut progress, |_, opened, progress| {
        let raw_read = Arc::clone(&opened.raw_read);
        let result = count_input_bounded(
            opened.reader,
            config,
            &options,
            (&mut *table, dfrc.as_deref_mut()),
            &mut summary,
            copies.as_mut(),
            |batch| {
                progress.update(&raw_read, batch.games.len());
                Ok::<_, io::Error>(())
            },
        );
        progress.finish_input(&raw_read);
        result.map_err(|err| InputFailure::of(err, || GROUPS_FILE.to_string()))
    })?;
    if let Some(copies) = copies {
        finish_copies(copies, &options, (table, dfrc), &mut summary).context(GROUPS_FILE)?;
    }
    progress.finish();
    Ok((options.group_by.is_some(), inputs, Some(summary)))
}

fn merge_inputs(args: &Args, runs: &Path, memory: usize) -> anyhow::Result<Merged> {
    if args.archive.inputs.is_empty() {
        bail!("--merge needs the CSV files to merge");
    }
    // Row by row, under the memory budget of the groups: a CSV of a
    // million groups goes to disk as an archive's groups do.
    let mut positions = CsvMerge::in_directory(memory, runs);
    // Pairs can be many: they are merged under the memory budget.
    let mut pairs: Option<(BoundedTable, PositionStats)> = None;
    let mut grouped_all: Option<bool> = None;
    for (index, path) in args.archive.inputs.iter().enumerate() {
        // A CSV compressed by `-o s.csv.gz` reads as it was written; `-`
        // is standard input.
        let source = Source::from_arg(path);
        let opened =
            input::open(&source, MmapChoice::never()).with_context(|| source.to_string())?;
        let mut reader = BufReader::new(opened.reader);
        let mut first_line = String::new();
        reader
            .read_line(&mut first_line)
            .with_context(|| source.to_string())?;
        let of_pairs = is_pairs_header(&first_line);
        if index == 0 && of_pairs {
            let folder = runs.join("merged-pairs");
            std::fs::create_dir(&folder).context(GROUPS_FILE)?;
            pairs = Some((
                BoundedTable::in_directory(memory, &folder),
                PositionStats::default(),
            ));
        }
        if of_pairs != pairs.is_some() {
            bail!(
                "{}: a CSV of {}, unlike the CSVs before it; merge CSVs of one kind at a time",
                path.display(),
                if of_pairs {
                    "Double FRC pairs"
                } else {
                    "positions"
                }
            );
        }
        let csv = io::Cursor::new(first_line).chain(reader);
        let grouped = match pairs.as_mut() {
            Some((pairs, total)) => {
                read_pairs_csv(csv, pairs, total).with_context(|| source.to_string())?
            }
            None => positions.add_csv(csv).with_context(|| source.to_string())?,
        };
        match grouped_all {
            Some(before) if before != grouped => bail!(
                "{}: has {} `group` column, unlike the CSVs before it",
                path.display(),
                if grouped { "a" } else { "no" }
            ),
            _ => grouped_all = Some(grouped),
        }
    }
    let inputs = InputsRead {
        opened: args.archive.inputs.len(),
        failed: false,
    };
    let grouped = grouped_all.unwrap_or(false);
    if let Some((pairs, _)) = pairs {
        let groups = pairs.finish().context(GROUPS_FILE)?;
        return Ok(Merged::Pairs(groups, grouped, inputs));
    }
    let (groups, _) = positions.finish().map_err(|err| match err {
        MergeError::Io(err) => anyhow::Error::new(err).context(GROUPS_FILE),
        other => other.into(),
    })?;
    Ok(Merged::Positions((groups, grouped, inputs, None)))
}

fn print_summary(args: &Args, counts: &StatsSummary, (rows, groups): (u64, u64), pair_rows: u64) {
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
    let unplayed = counts.unplayed.total();
    if unplayed > 0 {
        text.push_str(&format!(
            "; {} {} ({})",
            summary::count(unplayed, "unplayed game", "unplayed games"),
            if args.keep_unplayed {
                "kept"
            } else {
                "left out"
            },
            counts.unplayed
        ));
    }
    if args.min_elo.is_some() {
        text.push_str(&format!(
            "; {} below --min-elo",
            summary::count(counts.below_min_elo, "game", "games")
        ));
    }
    if args.dfrc_pairs.is_some() || args.dfrc_white.is_some() || args.dfrc_black.is_some() {
        text.push_str(&format!(
            "\n  counted {}",
            summary::count(counts.dfrc_counted, "dfrc game", "dfrc games")
        ));
        if args.dfrc_pairs.is_some() {
            text.push_str(&format!(
                " in {}",
                summary::count(pair_rows, "pair of arrays", "pairs of arrays")
            ));
        }
    }
    if !args.keep_duplicates {
        text.push_str(&format!(
            "\n  skipped {} of games read before",
            summary::count(counts.duplicates, "duplicate", "duplicates")
        ));
    }
    eprintln!("{text}");
}
