//! One row per game, for researchers who slice an archive by rating,
//! time control, date, event or length in DuckDB, Polars, pandas or Spark:
//! what `games` writes, as CSV, JSON lines or Parquet.
//!
//! A row is read from the game's [`Reading`](crate::game::Reading) (its
//! kind and start, as every command reads them), its tags and its
//! movetext, on the worker threads, batch by batch ([`batch_rows`]); the
//! consumer places the rows in the input ([`RowOrder`]: offsets, lines,
//! games read in pieces) and hands them, in input order, to a
//! [`RowWriter`].
//!
//! [`read_rows`] does all of that for one opened input: the one loop
//! `pgn960 games` and the Python module both run.
//!
//! - `columns`: the columns, as data ([`COLUMNS`], [`Schema`]);
//! - `row`: one game's values ([`GameRow`]);
//! - `copies`: which rows repeat a game read before ([`FirstOccurrences`]);
//! - `order`: where each game lies in its input;
//! - `arrow`: rows as Arrow record batches ([`ArrowRows`]);
//! - `write`: the formats and the CSV and JSON lines writers;
//! - `parquet`: the Parquet writer.
//!
//! ```
//! use pgn960::export::{Format, RowOrder, Schema, batch_rows, writer};
//! use pgn960::split::GameReader;
//!
//! let pgn = b"[Event \"A\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 e5 1-0\n";
//! let schema = Schema::default();
//! let mut out = writer(Format::Csv, &schema, Vec::new())?;
//! let mut order = RowOrder::new();
//! let mut reader = GameReader::new(&pgn[..]);
//! while let Some(batch) = reader.next_batch()? {
//!     let rows = batch_rows(&batch, &schema).rows;
//!     order.place(&batch, rows, |row| out.write_row("a.pgn", &row))?;
//! }
//! let csv = String::from_utf8(out.finish()?).expect("CSV of UTF-8");
//! let mut lines = csv.lines();
//! assert!(lines.next().unwrap().starts_with("file,game,offset,length,line,kind,scharnagl,"));
//! assert!(lines.next().unwrap().starts_with("a.pgn,1,0,91,1,chess960,0,81,BBQNNRKR,0,0,,A,"));
//! # Ok::<_, std::io::Error>(())
//! ```

mod arrow;
mod columns;
mod copies;
mod order;
mod parquet;
mod row;
mod write;

pub use arrow::{ArrowRows, arrow_schema};
pub use columns::{COLUMNS, Column, ColumnType, DUPLICATE_COLUMNS, Schema, SchemaError, Value};
pub use copies::{FirstOccurrences, Untold};
pub use order::RowOrder;
pub use parquet::{ROW_GROUP_BYTES, ROW_GROUP_ROWS};
pub use row::{GameRow, Position, RowWriter};
pub use write::{Format, writer};

use crate::game::KindCounts;
use crate::input::Reader;
use crate::pipeline::{self, Footprint, PipelineConfig, PipelineError};
use crate::split::{Batch, LineCounter};
use row::RowText;

/// The rows of one batch, and its games by kind.
#[derive(Clone, Debug, Default)]
pub struct BatchRows {
    /// One row per game, in order; offsets and lines within the batch
    /// until [`RowOrder::place`] places them.
    pub rows: Vec<GameRow>,
    /// The batch's games, by kind.
    pub kinds: KindCounts,
}

/// The rows, and the text of the batch they share once.
impl Footprint for BatchRows {
    fn heap_bytes(&self) -> usize {
        let rows = self.rows.capacity() * std::mem::size_of::<GameRow>();
        rows + self.rows.first().map_or(0, GameRow::batch_text_bytes)
    }
}

/// Reads the row of every game of a batch.
pub fn batch_rows(batch: &Batch, schema: &Schema) -> BatchRows {
    let lines = LineCounter::new(&batch.data);
    let mut kinds = KindCounts::default();
    // One buffer of text values for the whole batch (see `RowText`).
    let shared = RowText::shared();
    let mut text = RowText::default();
    let rows = batch
        .games
        .iter()
        .map(|game| {
            let row = GameRow::read_into(batch, game, schema, &lines, &shared, &mut text);
            kinds.add(row.kind);
            row
        })
        .collect();
    text.share(&shared);
    // The rows counted the lines up to the last game's first line: the
    // rest makes the batch's count, which the pipeline needs.
    batch.counted_line_ends(lines.line_ends());
    BatchRows { rows, kinds }
}

/// Reads the row of every game of one opened input and hands each to
/// `emit`, placed in the input (offsets, lines, a game read in pieces
/// whole), in input order, whatever the thread count.
///
/// The rows are read on `config`'s threads (with line numbers, whatever
/// `config` says); `batch_done` is called on the calling thread with each
/// batch and its games by kind before that batch's rows go out, for
/// progress, counts, or a reason to stop (an error of its own). A game
/// still being read where the input could no longer be read gets its row
/// before the read error is returned.
///
/// # Errors
///
/// As [`pipeline::run_reader`]: the first error of `batch_done` or `emit`
/// ([`PipelineError::Consume`]), a panic of the work, or the input's read
/// error (the rows before it have gone out).
///
/// # Example
///
/// ```
/// use pgn960::export::{Schema, read_rows};
/// use pgn960::input::open_stream;
/// use pgn960::pipeline::PipelineConfig;
///
/// let pgn = b"[Event \"A\"]\n\n1. e4 *\n\n[Event \"B\"]\n\n1. d4 d5 *\n";
/// let opened = open_stream(Box::new(&pgn[..]))?;
/// let mut plies = Vec::new();
/// read_rows(opened.reader, PipelineConfig::default(), &Schema::default(),
///     |_batch, _kinds| Ok::<_, std::io::Error>(()),
///     |row| Ok(plies.push((row.line, row.plies))))
///     .expect("reading from memory cannot fail");
/// assert_eq!(plies, [(1, Some(1)), (5, Some(2))]);
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn read_rows<E>(
    reader: Reader,
    config: PipelineConfig,
    schema: &Schema,
    mut batch_done: impl FnMut(&Batch, &KindCounts) -> Result<(), E>,
    mut emit: impl FnMut(GameRow) -> Result<(), E>,
) -> Result<(), PipelineError<E>> {
    let config = PipelineConfig {
        line_numbers: true,
        ..config
    };
    let mut order = RowOrder::new();
    let result = pipeline::run_reader(
        reader,
        config,
        |batch| batch_rows(batch, schema),
        |batch, read| {
            batch_done(batch, &read.kinds)?;
            order.place(batch, read.rows, &mut emit)
        },
    );
    // A game read in pieces up to the end, or up to where the input could
    // no longer be read, still gets its row.
    if let (Ok(()) | Err(PipelineError::Read(_)), Some(row)) = (&result, order.finish()) {
        emit(row).map_err(PipelineError::Consume)?;
    }
    result
}
