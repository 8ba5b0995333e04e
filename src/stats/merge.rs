//! `stats --merge`: the CSVs of shards read row by row into one table of
//! counts under a memory budget, so that CSVs of a million groups merge
//! in the memory of a few thousand.
//!
//! Every check of the CSVs holds whatever their size:
//!
//! - a sum that does not fit: a position's sums are checked as its rows
//!   are merged in memory, so that the message names it, and the grand
//!   total of every column as rows leave memory: when it fits, so does
//!   every sum of some of the rows, the sums being non-negative;
//! - a position twice in one group of one CSV: a CSV is read in parts of
//!   [`PART_ROWS`] rows, each checked whole; a CSV longer than one part
//!   must give its rows in the order `stats` writes them (by group, then
//!   Scharnagl number), checked row by row, so that a repeat is the row
//!   just before.

use std::io::{self, Read};
use std::path::Path;

use super::csv::{CsvRows, ReadCsvError};
use super::spill::{BoundedTable, Groups};
use super::table::{MergeOverflow, PositionStats, StatsTable};

/// The rows of one CSV checked together for a position given twice; a
/// CSV longer than this must keep the order `stats` writes. A group's
/// first row holds some 1.6 KB in a table (see [`super::GROUP_MEMORY`]),
/// so a part of one-row groups holds some 3.3 MB.
pub const PART_ROWS: usize = 2_048;

/// Rows held in memory, with their per-position checks, before they join
/// the bounded table (which goes to disk beyond its budget).
const HELD_ROWS: usize = 2 * PART_ROWS;

/// Why CSVs could not be merged.
#[derive(Debug)]
pub enum MergeError {
    /// A CSV is unreadable or one of its rows is wrong.
    Read(ReadCsvError),
    /// A CSV has a `group` column and one before it has none, or the
    /// other way round.
    GroupColumn {
        /// Whether this CSV has one.
        grouped: bool,
    },
    /// A row of a CSV longer than [`PART_ROWS`] rows comes before the row
    /// above it in the order `stats` writes.
    OutOfOrder {
        /// 1-based line of the row.
        line: u64,
    },
    /// A position's sum of a column does not fit.
    Overflow(MergeOverflow),
    /// The sum of a column over all positions does not fit.
    TotalOverflow(&'static str),
    /// Writing or reading the counts on disk.
    Io(io::Error),
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeError::Read(err) => write!(f, "{err}"),
            MergeError::GroupColumn { grouped } => write!(
                f,
                "has {} `group` column, unlike the CSVs before it",
                if *grouped { "a" } else { "no" }
            ),
            MergeError::OutOfOrder { line } => write!(
                f,
                "line {line}: not in the order `pgn960 stats` writes its rows (by group, then \
                 scharnagl), which a CSV of more than {PART_ROWS} rows must keep"
            ),
            MergeError::Overflow(overflow) => write!(f, "{overflow}"),
            MergeError::TotalOverflow(column) => write!(
                f,
                "the sum of `{column}` over all positions is too large to hold; these CSVs \
                 cannot be merged"
            ),
            MergeError::Io(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for MergeError {}

impl From<ReadCsvError> for MergeError {
    fn from(err: ReadCsvError) -> Self {
        MergeError::Read(err)
    }
}

impl From<io::Error> for MergeError {
    fn from(err: io::Error) -> Self {
        MergeError::Io(err)
    }
}

/// CSVs written by `pgn960 stats`, merged one after the other.
///
/// ```
/// use pgn960::stats::CsvMerge;
///
/// let csv = "scharnagl,games,white_wins,draws,black_wins,unfinished,white_elo_count,\
/// white_elo_sum,black_elo_count,black_elo_sum,both_rated,expected_white_e9,elo_games,\
/// elo_points_x2,elo_expected_e9,elo_variance_e9,rating_bins\n\
/// 0,2,1,1,0,0,0,0,0,0,0,0,0,0,0,0,\n";
/// let mut merge = CsvMerge::new(1 << 20);
/// merge.add_csv(csv.as_bytes())?;
/// merge.add_csv(csv.as_bytes())?;
/// let (groups, grouped) = merge.finish()?;
/// assert!(!grouped);
/// let mut games = 0;
/// groups.for_each(|_group, rows| {
///     games += rows.values().map(|stats| stats.games).sum::<u64>();
///     Ok::<_, std::io::Error>(())
/// })?;
/// assert_eq!(games, 4);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub struct CsvMerge {
    /// The rows read lately, with their positions' sums checked.
    held: StatsTable,
    /// How many rows `held` took in (an upper bound of its rows).
    held_rows: usize,
    /// Every row before those, under its memory budget.
    bounded: BoundedTable,
    /// The sum of every row read.
    total: PositionStats,
    /// Whether the CSVs have a `group` column, once one is read.
    grouped: Option<bool>,
}

impl CsvMerge {
    /// A merge whose counts go to a temporary directory of their own
    /// beyond `budget` bytes.
    pub fn new(budget: usize) -> CsvMerge {
        CsvMerge::with_table(BoundedTable::new(budget))
    }

    /// A merge whose counts go to `directory` (made by the caller, which
    /// removes it) beyond `budget` bytes.
    pub fn in_directory(budget: usize, directory: &Path) -> CsvMerge {
        CsvMerge::with_table(BoundedTable::in_directory(budget, directory))
    }

    fn with_table(bounded: BoundedTable) -> CsvMerge {
        CsvMerge {
            held: StatsTable::default(),
            held_rows: 0,
            bounded,
            total: PositionStats::default(),
            grouped: None,
        }
    }

    /// Adds every row of one CSV; whether it has a `group` column.
    ///
    /// # Errors
    ///
    /// [`MergeError`] when the CSV cannot be read, disagrees with the CSVs
    /// before it about groups, gives a position twice in a group, or
    /// brings a sum past what it can hold.
    pub fn add_csv(&mut self, input: impl Read) -> Result<bool, MergeError> {
        let mut rows = CsvRows::new(input)?;
        let grouped = rows.grouped();
        if self.grouped.is_some_and(|before| before != grouped) {
            return Err(MergeError::GroupColumn { grouped });
        }
        self.grouped = Some(grouped);
        let mut part = StatsTable::default();
        let mut part_rows = 0;
        // Once a CSV is read in more than one part, its rows must come in
        // order, each after the one before; so must those of its first
        // part, whose first row out of order is noted.
        let mut in_parts = false;
        let mut first_out_of_order = None;
        let mut last: Option<(String, u16)> = None;
        while let Some(row) = rows.next_row()? {
            let key = (row.group, row.scharnagl);
            if last.as_ref().is_some_and(|last| key <= *last) {
                if in_parts {
                    return Err(if last.as_ref() == Some(&key) {
                        MergeError::Read(ReadCsvError::Repeated {
                            line: row.line,
                            scharnagl: key.1,
                        })
                    } else {
                        MergeError::OutOfOrder { line: row.line }
                    });
                }
                first_out_of_order.get_or_insert(row.line);
            }
            if row.stats.games > 0 {
                if part.rows_of(&key.0).insert(key.1, row.stats).is_some() {
                    return Err(MergeError::Read(ReadCsvError::Repeated {
                        line: row.line,
                        scharnagl: key.1,
                    }));
                }
                part_rows += 1;
            }
            if part_rows == PART_ROWS {
                if let Some(line) = first_out_of_order {
                    return Err(MergeError::OutOfOrder { line });
                }
                self.add_part(std::mem::take(&mut part), part_rows)?;
                part_rows = 0;
                in_parts = true;
            }
            last = Some(key);
        }
        self.add_part(part, part_rows)?;
        Ok(grouped)
    }

    /// Adds a part of a CSV, its positions' sums checked against the rows
    /// held; the rows held join the bounded table once there are many.
    fn add_part(&mut self, part: StatsTable, rows: usize) -> Result<(), MergeError> {
        if self.held.is_empty() {
            self.held = part;
        } else {
            self.held
                .checked_merge(&part)
                .map_err(MergeError::Overflow)?;
        }
        self.held_rows += rows;
        if self.held_rows >= HELD_ROWS {
            self.let_go()?;
        }
        Ok(())
    }

    /// The rows held join the bounded table, their sum the total (checked:
    /// when the total fits, so does every sum of some of the rows).
    fn let_go(&mut self) -> Result<(), MergeError> {
        let held = std::mem::take(&mut self.held);
        let sum = held.checked_total().map_err(MergeError::TotalOverflow)?;
        self.total
            .checked_merge(&sum)
            .map_err(MergeError::TotalOverflow)?;
        self.bounded.merge(&held)?;
        self.held_rows = 0;
        Ok(())
    }

    /// The groups merged, in order, and whether the CSVs had a `group`
    /// column.
    ///
    /// # Errors
    ///
    /// An error writing or merging the counts on disk.
    pub fn finish(mut self) -> Result<(Groups, bool), MergeError> {
        self.let_go()?;
        Ok((self.bounded.finish()?, self.grouped.unwrap_or(false)))
    }
}
