//! `pgn960 filter`: select games by start position, kind, rating or
//! `validate`'s findings, and write each one's bytes unchanged, to one
//! output or to one file per position or kind.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pgn960::compression::Compression;
use pgn960::duplicates::{Seen, UNIQUE_MEMORY, fingerprints};
use pgn960::filter::{
    self, Filter, FilterCounts, ListError, PositionSet, Router, Run, Verdict, select_batch,
    write_runs,
};
use pgn960::game::Kind;
use pgn960::split::Batch;

use super::archive::{ArchiveArgs, InputFailure, Progress, for_each_input, run_input};
use super::destination::{Destination, is_stdout};
use super::output::{Joined, Outputs};
use super::output_dir::OutputDir;
use super::rewrite::PGN_OUTPUT;
use super::{EXIT_ERROR, EXIT_OK, summary};

/// Select games by start position, kind, rating or validate's findings.
///
/// A game is selected when it meets every criterion given; a list is met
/// by any of its items (an option given twice adds to its list). Each
/// selected game is written byte for byte as in the input, with the bytes
/// after it that belong to it, in input order; nothing else is written.
/// --position, --fritz9 and --arrangement select Chess960 games (standard
/// games too, as 518, with --include-standard), never Double FRC, other or
/// unreadable ones.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  pgn960 filter --position 518,700-759 archive.pgn -o some.pgn
  pgn960 filter --kind dfrc,other,unreadable --invert dump.pgn.zst -o numbered.pgn.zst
  pgn960 filter --min-elo 2600 --finding error tcec.pgn
  pgn960 filter --unplayed tcec.pgn.zst -o left-out.pgn
  pgn960 filter --split-by position --output-dir positions --compress zst archive.pgn")]
pub struct Args {
    #[command(flatten)]
    archive: ArchiveArgs,

    /// Chess960 games whose Scharnagl number is in SPEC: numbers (0-959)
    /// and inclusive ranges, comma-separated (0,518,700-759).
    #[arg(long, value_name = "SPEC")]
    position: Vec<String>,

    /// The same in Fritz9 numbers (1-960).
    #[arg(long, value_name = "SPEC")]
    fritz9: Vec<String>,

    /// Games starting from one of these arrangements, in either case
    /// (RNBQKBNR,BBQNNRKR).
    #[arg(long, value_name = "LIST")]
    arrangement: Vec<String>,

    /// Count standard-chess games as position 518 (for --position,
    /// --fritz9, --arrangement and --split-by position).
    #[arg(long)]
    include_standard: bool,

    /// Games of these kinds: chess960, standard, dfrc, other, unreadable.
    #[arg(long, value_name = "LIST")]
    kind: Vec<String>,

    /// Games where both players are rated at least N (as in stats: 0 to
    /// 4000).
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = clap::value_parser!(i32).range(0..=4000))]
    min_elo: Option<i32>,

    /// Games validate reports a finding for, of one of these codes or
    /// severities (error, warning, info).
    #[arg(long, value_name = "LIST")]
    finding: Vec<String>,

    /// Games whose result was not played, for one of these reasons
    /// (abandoned, rules_infraction, unterminated, emergency, death; all
    /// of them when none is given): the games stats leaves out, read from
    /// their Termination as stats reads it.
    #[arg(long, value_name = "LIST", num_args = 0..=1, require_equals = true,
          default_missing_value = "abandoned,rules_infraction,unterminated,emergency,death",
          conflicts_with = "played")]
    unplayed: Vec<String>,

    /// Games whose result was played: the games stats counts.
    #[arg(long)]
    played: bool,

    /// Select the games that do not meet the criteria instead.
    #[arg(long)]
    invert: bool,

    /// Write only the first occurrence of each game among those selected,
    /// across all inputs: a game that repeats one selected before (same
    /// players, result, Event, Date, Round, start and moves, whatever its
    /// comments, clocks, spacing or other tags; see docs/commands/filter.md)
    /// is left out.
    #[arg(long)]
    unique: bool,

    /// Write to FILE instead of standard output (`-`), compressed when its
    /// name ends in .gz, .zst, .bz2 or .xz.
    #[arg(short, long, value_name = "FILE", conflicts_with = "split_by")]
    output: Option<PathBuf>,

    /// Write one file per start position (NNN.pgn, by Scharnagl number)
    /// or per kind (chess960.pgn, ...) into --output-dir.
    #[arg(long, value_enum, value_name = "WHAT", requires = "output_dir")]
    split_by: Option<SplitBy>,

    /// The folder for --split-by's files, created when missing.
    #[arg(long, value_name = "DIR", requires = "split_by")]
    output_dir: Option<PathBuf>,

    /// Compress --split-by's files, adding the format's extension.
    #[arg(long, value_enum, value_name = "FORMAT", requires = "split_by")]
    compress: Option<Compress>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum SplitBy {
    Position,
    Kind,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Compress {
    Zst,
    Gz,
    Bz2,
    Xz,
}

impl Compress {
    fn compression(self) -> Compression {
        match self {
            Compress::Zst => Compression::Zstd,
            Compress::Gz => Compression::Gzip,
            Compress::Bz2 => Compression::Bzip2,
            Compress::Xz => Compression::Xz,
        }
    }
}

/// Where a selected game's bytes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Standard output or `-o FILE`.
    Output,
    /// A file of `--output-dir`.
    File(Part),
}

/// A file of `--split-by`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    /// A start position, by Scharnagl number.
    Position(u16),
    /// A kind.
    Kind(Kind),
}

impl Part {
    /// Every file `--split-by` may write.
    fn all(by: SplitBy) -> Vec<Part> {
        match by {
            SplitBy::Position => (0..960).map(Part::Position).collect(),
            SplitBy::Kind => Kind::ALL.into_iter().map(Part::Kind).collect(),
        }
    }

    /// `007.pgn`, `chess960.pgn`.
    fn file_name(&self) -> String {
        match self {
            Part::Position(id) => format!("{id:03}.pgn"),
            Part::Kind(kind) => format!("{}.pgn", kind.name()),
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let filter = filter_of(&args)?;
    let sources = args.archive.sources();
    let outputs = Outputs::guarding(&sources);
    let mut sink = match (args.split_by, &args.output_dir) {
        (Some(by), Some(dir)) => {
            let compression = args
                .compress
                .map_or(Compression::None, Compress::compression);
            let files = OutputDir::new(&outputs, dir, compression, Part::all(by), Part::file_name)?;
            Sink::Split { by, files }
        }
        _ => Sink::One(Box::new(OneOutput::new(&outputs, args.output.as_deref())?)),
    };
    let config = args.archive.pipeline();
    let mut progress = args.archive.progress(&sources);
    let mut counts = FilterCounts::default();
    let mut seen = args
        .unique
        .then(|| Seen::new(super::stats::duplicates_memory(UNIQUE_MEMORY)));
    let inputs = for_each_input(&sources, &mut progress, |_, opened, progress| {
        sink.start_input().map_err(InputFailure::Run)?;
        let mut router = sink.router(args.invert);
        let mut full = None;
        let unique = args.unique;
        run_input(
            opened,
            config,
            progress,
            |batch| {
                let verdicts = select_batch(batch, &filter);
                let fingerprints = unique.then(|| fingerprints(batch, |i| verdicts[i].selected));
                (verdicts, fingerprints)
            },
            |batch, (mut verdicts, fingerprints)| {
                if let (Some(seen), Some(fingerprints)) = (seen.as_mut(), fingerprints) {
                    for (i, fingerprint) in fingerprints.into_iter().enumerate() {
                        let Some(fingerprint) = fingerprint else {
                            continue;
                        };
                        match seen.first(fingerprint) {
                            Ok(true) => {}
                            Ok(false) => {
                                verdicts[i].selected = false;
                                counts.duplicates += 1;
                            }
                            Err(err) => {
                                full = Some(err);
                                return Err(io::Error::other(err));
                            }
                        }
                    }
                }
                for verdict in &verdicts {
                    counts.add(verdict);
                }
                sink.write(batch, &verdicts, &mut router)
            },
        )
        .map_err(|err| match full {
            Some(full) => InputFailure::Run(anyhow::Error::new(full)),
            None => InputFailure::of(err, || format!("writing {}", sink.name())),
        })
    })?;
    let files = sink.finish(&outputs, inputs.opened > 0, &progress)?;
    progress.finish();
    if !args.archive.quiet && inputs.opened > 0 {
        // After a failed input, the files are not written (see `settle`).
        print_summary(&args, &counts, files.filter(|_| !inputs.failed));
    }
    outputs.settle(if inputs.failed { EXIT_ERROR } else { EXIT_OK })
}

/// The criteria the arguments give.
fn filter_of(args: &Args) -> anyhow::Result<Filter> {
    let mut filter = Filter {
        include_standard: args.include_standard,
        min_elo: args.min_elo,
        played: args.played,
        invert: args.invert,
        ..Filter::default()
    };
    let positions = [
        (
            "--position",
            &args.position,
            PositionSet::scharnagl as fn(&str) -> _,
        ),
        ("--fritz9", &args.fritz9, PositionSet::fritz9),
        (
            "--arrangement",
            &args.arrangement,
            PositionSet::arrangements,
        ),
    ];
    for (option, lists, read) in positions {
        if let Some(sets) = read_lists(option, lists, read)? {
            let set = sets
                .into_iter()
                .fold(PositionSet::EMPTY, |all, set| all.union(&set));
            filter.restrict_positions(set);
        }
    }
    filter.kinds = read_lists("--kind", &args.kind, filter::kinds)?.map(|lists| lists.concat());
    filter.findings =
        read_lists("--finding", &args.finding, filter::codes)?.map(|lists| lists.concat());
    filter.unplayed =
        read_lists("--unplayed", &args.unplayed, filter::reasons)?.map(|lists| lists.concat());
    if args.include_standard
        && filter.positions.is_none()
        && args.split_by != Some(SplitBy::Position)
    {
        bail!(
            "filter: --include-standard needs --position, --fritz9, --arrangement or \
             --split-by position (for which it counts standard games as position 518)"
        );
    }
    Ok(filter)
}

/// Each list given to `option`, read; `None` when it was not given.
fn read_lists<T>(
    option: &str,
    lists: &[String],
    read: impl Fn(&str) -> Result<T, ListError>,
) -> anyhow::Result<Option<Vec<T>>> {
    if lists.is_empty() {
        return Ok(None);
    }
    lists
        .iter()
        .map(|list| read(list).map_err(|err| anyhow::anyhow!("filter: {option} {list:?}: {err}")))
        .collect::<anyhow::Result<Vec<T>>>()
        .map(Some)
}

/// Where the selected games go.
enum Sink {
    /// Standard output or `-o FILE`.
    One(Box<OneOutput>),
    /// `--split-by`: one file per part.
    Split { by: SplitBy, files: OutputDir<Part> },
}

impl Sink {
    /// Where a game goes.
    fn place(&self, verdict: &Verdict) -> Option<Place> {
        if !verdict.selected {
            return None;
        }
        match self {
            Sink::One(_) => Some(Place::Output),
            Sink::Split {
                by: SplitBy::Position,
                ..
            } => verdict
                .position
                .map(|rank| Place::File(Part::Position(rank.scharnagl()))),
            Sink::Split {
                by: SplitBy::Kind, ..
            } => Some(Place::File(Part::Kind(verdict.kind))),
        }
    }

    /// The router of one input. An input that holds no game (white space
    /// or comments only) is written whole where the selected games go,
    /// without `--invert`, so that `filter C` and `filter C --invert`
    /// together are the input; with `--split-by`, nowhere.
    fn router(&self, invert: bool) -> Router<Place> {
        match self {
            Sink::One(_) if !invert => Router::new().no_game_to(Place::Output),
            _ => Router::new(),
        }
    }

    /// An input is about to be read: the one before it has ended.
    fn start_input(&mut self) -> anyhow::Result<()> {
        match self {
            Sink::One(one) => one.start().with_context(|| format!("writing {}", one.name)),
            Sink::Split { files, .. } => {
                files.end_input();
                Ok(())
            }
        }
    }

    /// Writes the selected games of a batch.
    fn write(
        &mut self,
        batch: &Batch,
        verdicts: &[Verdict],
        router: &mut Router<Place>,
    ) -> io::Result<()> {
        let runs = router.runs(batch, |i| self.place(&verdicts[i]));
        match self {
            Sink::One(one) => write_runs(&batch.data, &runs, one.writer()),
            Sink::Split { files, .. } => {
                for Run { place, range } in runs {
                    if let Place::File(part) = place {
                        files.write(part, &batch.data[range])?;
                    }
                }
                Ok(())
            }
        }
    }

    /// What is written, for messages.
    fn name(&self) -> String {
        match self {
            Sink::One(one) => one.name.clone(),
            Sink::Split { files, .. } => files.dir().display().to_string(),
        }
    }

    /// Ends the output; for `--split-by`, how many files were written.
    fn finish(
        self,
        outputs: &Outputs,
        any_input_read: bool,
        progress: &Progress,
    ) -> anyhow::Result<Option<usize>> {
        match self {
            Sink::One(one) => {
                let name = one.name.clone();
                one.finish(any_input_read)
                    .with_context(|| format!("writing {name}"))?;
                Ok(None)
            }
            Sink::Split { files, .. } => files.finish(outputs, any_input_read, progress).map(Some),
        }
    }
}

/// Standard output or `-o FILE`, compressed by the file's extension; the
/// inputs one after another, each beginning on a line of its own.
struct OneOutput {
    name: String,
    out: Joined<Destination>,
}

impl OneOutput {
    fn new(outputs: &Outputs, path: Option<&Path>) -> anyhow::Result<OneOutput> {
        let (out, ()) = outputs.open(&PGN_OUTPUT, path, None)?;
        let name = match path {
            Some(path) if !is_stdout(path) => path.display().to_string(),
            _ => "output".to_string(),
        };
        Ok(OneOutput {
            name,
            out: Joined::new(out),
        })
    }

    /// An input is about to be written: the one before it has ended.
    fn start(&mut self) -> io::Result<()> {
        self.out.end_input();
        Ok(())
    }

    fn writer(&mut self) -> &mut dyn Write {
        &mut self.out
    }

    fn finish(self, any_input_read: bool) -> io::Result<()> {
        self.out.into_inner().finish(any_input_read)
    }
}

fn print_summary(args: &Args, counts: &FilterCounts, files: Option<usize>) {
    let mut text = format!(
        "pgn960 filter: {}\n  selected {}: {}\n",
        summary::games_by_kind(&counts.read, "read"),
        summary::count(counts.selected.total(), "game", "games"),
        counts.selected
    );
    if args.unique {
        text.push_str(&format!(
            "  left out {} of games selected before\n",
            summary::count(counts.duplicates, "duplicate", "duplicates")
        ));
    }
    if let (Some(written), Some(dir)) = (files, &args.output_dir) {
        text.push_str(&format!(
            "  wrote {} to {}",
            summary::count(written as u64, "file", "files"),
            dir.display()
        ));
        let unplaced = counts.selected_without_position;
        if args.split_by == Some(SplitBy::Position) && unplaced > 0 {
            text.push_str(&format!(
                "; {} no position and {} not written",
                if unplaced == 1 {
                    "1 selected game has".to_string()
                } else {
                    format!("{unplaced} selected games have")
                },
                if unplaced == 1 { "was" } else { "were" }
            ));
        }
        text.push('\n');
    }
    eprint!("{text}");
}
