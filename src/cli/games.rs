//! `pgn960 games`: one row per game (where it is, what it is, where it
//! starts, its tags and length) as Parquet, CSV or JSON lines, for
//! researchers who slice archives in DuckDB, Polars, pandas or Spark.

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, bail};
use pgn960::duplicates::GAMES_MEMORY;
use pgn960::export::{FirstOccurrences, Format, GameRow, RowWriter, Schema, read_rows, writer};
use pgn960::game::KindCounts;
use pgn960::input::Opened;
use pgn960::pipeline::{PipelineConfig, PipelineError};

use super::archive::{ArchiveArgs, InputFailure, Progress, for_each_input};
use super::destination::{Destination, OutputKind, is_stdout};
use super::output::Outputs;
use super::{EXIT_ERROR, EXIT_OK, summary};

/// Write one row per game: where it is, what it is, where it starts, its
/// tags and its length, as Parquet, CSV or JSON lines.
///
/// Rows come in input order: file, game (1-based index in its file),
/// offset and length (the game's bytes in the decompressed input), line,
/// kind, the start position's numbers and back rank, both sides' numbers,
/// Variant, Event, Site, Date, year, Round, White, Black, Result, both
/// ratings, TimeControl, Termination, ECO, Opening, plies (mainline moves)
/// and Chess960Id; nulls where a value is absent; with --duplicates,
/// fingerprint, duplicate_of_file and duplicate_of_game. The format comes from
/// the extension of -o (.parquet, .csv, .jsonl) or --format; standard
/// output gets CSV. The columns are described in the guide (docs/commands/games.md).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  pgn960 games archive.pgn.zst -o games.parquet
  pgn960 games --tags WhiteFideId,BlackFideId 2024/*.pgn -o 2024.parquet
  pgn960 games events.pgn | head
  pgn960 games --format jsonl events.pgn -o games.jsonl
  pgn960 games --duplicates site1.pgn site2.pgn -o merged.parquet")]
pub struct Args {
    #[command(flatten)]
    archive: ArchiveArgs,

    /// Write to FILE (format from its extension: .parquet, .csv, .jsonl;
    /// compressed when it ends in .gz, .zst, .bz2 or .xz) instead of
    /// standard output (`-`).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,

    /// Output format; default: from the extension of --output, else csv.
    #[arg(long, value_enum)]
    format: Option<FormatArg>,

    /// Add a column for each tag named (its value as written; the last of
    /// that name, which is matched ignoring case), named as given.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    tags: Vec<String>,

    /// Add the columns fingerprint (the game's, as `stats` and `filter
    /// --unique` find copies by it), duplicate_of_file and
    /// duplicate_of_game (the file and game of its first occurrence among
    /// all inputs, when the game repeats one read before; null otherwise).
    /// Holds up to 458,752 distinct games in 16 MiB; beyond, the run ends
    /// with an error.
    #[arg(long)]
    duplicates: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum FormatArg {
    Parquet,
    Csv,
    Jsonl,
}

impl From<FormatArg> for Format {
    fn from(format: FormatArg) -> Format {
        match format {
            FormatArg::Parquet => Format::Parquet,
            FormatArg::Csv => Format::Csv,
            FormatArg::Jsonl => Format::Jsonl,
        }
    }
}

/// `-o`: the format its extension names (under a compression extension:
/// `.csv.gz`) or `--format` gives; standard output gets CSV.
const GAMES: OutputKind<FormatArg> = OutputKind {
    option: "-o",
    what: "the games",
    formats: &[
        (FormatArg::Csv, "csv"),
        (FormatArg::Jsonl, "jsonl"),
        (FormatArg::Parquet, "parquet"),
    ],
    unnamed_gets_default: false,
};

/// The output: a writer once an input has been opened (a run that reads
/// nothing writes nothing, and leaves an output file as it was).
struct Output {
    format: Format,
    schema: Schema,
    waiting: Option<Destination>,
    writer: Option<Box<dyn RowWriter<Destination>>>,
}

impl Output {
    /// The writer, started (the CSV header, the Parquet magic) if it was not.
    fn start(&mut self) -> io::Result<&mut dyn RowWriter<Destination>> {
        if let Some(out) = self.waiting.take() {
            self.writer = Some(writer(self.format, &self.schema, out)?);
        }
        Ok(self
            .writer
            .as_deref_mut()
            .expect("an output is waiting or writing"))
    }

    /// Ends the output: written whole when an input was read, else left as
    /// it was.
    fn finish(self) -> io::Result<()> {
        match (self.waiting, self.writer) {
            (Some(out), _) => out.finish(false),
            (None, Some(writer)) => writer.finish()?.finish(true),
            (None, None) => unreachable!("an output is waiting or writing"),
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let to_stdout = args.output.as_deref().is_none_or(is_stdout);
    let schema = Schema::new(args.tags.clone())
        .context("--tags")?
        .with_duplicates(args.duplicates);
    if to_stdout && args.format == Some(FormatArg::Parquet) && io::stdout().is_terminal() {
        bail!(
            "Parquet is binary: write it to a file with -o FILE.parquet (or redirect standard output)"
        );
    }
    let sources = args.archive.sources();
    let output_name = match &args.output {
        Some(path) if !to_stdout => path.display().to_string(),
        _ => "output".to_string(),
    };
    let outputs = Outputs::guarding(&sources);
    let (destination, format) = outputs.open(&GAMES, args.output.as_deref(), args.format)?;
    let format = Format::from(format);
    let mut output = Output {
        format,
        schema: schema.clone(),
        waiting: Some(destination),
        writer: None,
    };

    let mut progress = args.archive.progress(&sources);
    let mut counts = Counts::default();
    let mut copies = args
        .duplicates
        .then(|| FirstOccurrences::new(super::stats::duplicates_memory(GAMES_MEMORY)));
    let mut config = args.archive.pipeline();
    if args.duplicates {
        // Each row holds its fingerprint too (44 bytes more, the most of a
        // tiny game's row) and the table of first occurrences takes its
        // budget: batches a quarter as large keep the rows in flight
        // within the memory of `games` without it.
        config.batch_bytes /= 4;
    }
    let writing = || format!("writing {output_name}");
    let inputs = for_each_input(&sources, &mut progress, |source, opened, progress| {
        let out = output
            .start()
            .map_err(|err| InputFailure::Run(anyhow::Error::new(err).context(writing())))?;
        let name = source.to_string();
        if let Some(copies) = copies.as_mut() {
            copies.start_input(&name);
        }
        let input = Input {
            opened,
            config,
            schema: &schema,
        };
        let mut untold = None;
        export_input(input, out, &name, progress, &mut counts, |row| {
            let Some(copies) = copies.as_mut() else {
                return Ok(());
            };
            copies.mark(row).map_err(|err| {
                untold = Some(err);
                io::Error::other(err)
            })
        })
        .map_err(|err| match untold {
            Some(untold) => InputFailure::Run(anyhow::Error::new(untold)),
            None => InputFailure::of(err, writing),
        })
    })?;
    output.finish().with_context(writing)?;
    progress.finish();
    if !args.archive.quiet && inputs.opened > 0 {
        let to = if to_stdout {
            "standard output".to_string()
        } else {
            output_name.clone()
        };
        let marked = copies.as_ref().map_or(String::new(), |copies| {
            format!(
                "\n  marked {} of games read before",
                summary::count(copies.repeats(), "duplicate", "duplicates")
            )
        });
        eprintln!(
            "pgn960 games: {}{marked}\n  wrote {} ({format}) to {to}",
            summary::games_by_kind(&counts.kinds, "read"),
            summary::count(counts.rows, "row", "rows"),
        );
    }
    outputs.settle(if inputs.failed { EXIT_ERROR } else { EXIT_OK })
}

/// What a run has read and written so far.
#[derive(Default)]
struct Counts {
    kinds: KindCounts,
    rows: u64,
}

/// One opened input and how to read it.
struct Input<'a> {
    opened: Opened,
    config: PipelineConfig,
    schema: &'a Schema,
}

/// Writes the rows of one input, in order, as input `name`, each once
/// `mark` has seen it (the duplicate columns).
fn export_input(
    input: Input<'_>,
    out: &mut dyn RowWriter<Destination>,
    name: &str,
    progress: &mut Progress,
    counts: &mut Counts,
    mut mark: impl FnMut(&mut GameRow) -> io::Result<()>,
) -> Result<(), PipelineError<io::Error>> {
    let raw_read = Arc::clone(&input.opened.raw_read);
    let result = read_rows(
        input.opened.reader,
        input.config,
        input.schema,
        |batch, kinds| {
            progress.update(&raw_read, batch.games.len());
            counts.kinds.merge(kinds);
            Ok(())
        },
        |mut row| {
            mark(&mut row)?;
            counts.rows += 1;
            out.write_row(name, &row)
        },
    );
    progress.finish_input(&raw_read);
    result
}
