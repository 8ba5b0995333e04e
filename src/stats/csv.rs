//! The stats CSV: written with the derived columns (scores, intervals,
//! averages, the tests across positions) computed from the exact sums,
//! read back by column name for `--merge`, which needs only the sums.
//!
//! Columns are only ever added at the end, so that a script reading them
//! by position keeps working: the 15 of the first version, its 6 sums,
//! then the research columns and their 3 sums, the rating bins, and the
//! position's features.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};

use crate::BackRank;
use crate::position::{FeatureCell, file_letter};

use super::analysis::{PositionFindings, TableAnalysis};
use super::decimal;
use super::rating_bins::RatingBins;
use super::table::{PositionStats, Rows, StatsTable};

/// The columns every stats CSV starts with, in this order.
pub const COLUMNS: [&str; 15] = [
    "scharnagl",
    "fritz9",
    "position",
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "unfinished",
    "white_score",
    "white_score_low",
    "white_score_high",
    "draw_rate",
    "avg_white_elo",
    "avg_black_elo",
    "expected_white_score",
];

/// The integer columns after [`COLUMNS`] that make merging exact.
pub const EXACT_COLUMNS: [&str; 6] = [
    "white_elo_count",
    "white_elo_sum",
    "black_elo_count",
    "black_elo_sum",
    "both_rated",
    "expected_white_e9",
];

/// The derived columns of the tests across positions, after
/// [`EXACT_COLUMNS`] (`elo_games` is also a sum that merging reads).
pub const RESEARCH_COLUMNS: [&str; 8] = [
    "elo_games",
    "white_score_vs_elo",
    "z",
    "p_value",
    "q_value",
    "white_score_shrunk",
    "white_score_shrunk_low",
    "white_score_shrunk_high",
];

/// The integer columns after [`RESEARCH_COLUMNS`] that make the research
/// columns merge exactly: over finished games with both ratings, White's
/// points doubled, and Σp and Σp(1 − p) of the Elo expectation p in units
/// of 10^-9.
pub const ELO_SUM_COLUMNS: [&str; 3] = ["elo_points_x2", "elo_expected_e9", "elo_variance_e9"];

/// The columns after [`ELO_SUM_COLUMNS`]: the draw-aware interval of
/// White's score, the score the null model expects from the ratings, and
/// the decisive games of the position's test with the wins the model
/// expects of them.
pub const MODEL_COLUMNS: [&str; 5] = [
    "white_score_wdl_low",
    "white_score_wdl_high",
    "white_score_expected",
    "decisive_games",
    "white_wins_expected",
];

/// The last column, a sum that merging reads: the finished rated games by
/// rating-difference bin and result (see [`RatingBins`]).
pub const BIN_COLUMNS: [&str; 1] = ["rating_bins"];

/// The position's features after [`BIN_COLUMNS`], as `table` writes them:
/// the files of its pieces and its mirror image's Scharnagl number (see
/// [`Features`](crate::position::Features)). Merging ignores them.
pub use crate::position::FEATURE_COLUMNS;

/// How many columns a row has, `group` aside.
pub const WIDTH: usize = COLUMNS.len()
    + EXACT_COLUMNS.len()
    + RESEARCH_COLUMNS.len()
    + ELO_SUM_COLUMNS.len()
    + MODEL_COLUMNS.len()
    + BIN_COLUMNS.len()
    + FEATURE_COLUMNS.len();

/// Writes a table as CSV: [`write_analysis_csv`] of its
/// [`TableAnalysis`].
///
/// # Errors
///
/// Any error of `out`.
pub fn write_csv(
    table: &StatsTable,
    grouped: bool,
    all_positions: bool,
    out: impl Write,
) -> io::Result<()> {
    write_analysis_csv(&TableAnalysis::of(table), grouped, all_positions, out)
}

/// Writes an analysed table as CSV: a header ([`header`]), then one row
/// per position with games (every position with `all_positions`, in each
/// group), sorted by group and Scharnagl number ([`for_each_row`]). With
/// `grouped`, a leading `group` column. The tests across positions are
/// run per group, their q-values over all groups together (see
/// [`TableAnalysis`]).
///
/// # Errors
///
/// Any error of `out`.
pub fn write_analysis_csv(
    analysis: &TableAnalysis<'_>,
    grouped: bool,
    all_positions: bool,
    out: impl Write,
) -> io::Result<()> {
    let mut csv = csv::Writer::from_writer(out);
    csv.write_record(header(grouped)).map_err(into_io)?;
    let mut text = String::new();
    for_each_row(analysis, grouped, all_positions, |cells| {
        write_cells(&mut csv, cells, &mut text)
    })
    .map_err(into_io)?;
    csv.flush()
}

/// Turns a CSV writer's error into an I/O error that keeps its kind: a
/// closed pipe must stay a broken pipe, so that `pgn960 stats | head` ends
/// quietly.
pub fn into_io(err: csv::Error) -> io::Error {
    if !err.is_io_error() {
        return io::Error::other(err);
    }
    match err.into_kind() {
        csv::ErrorKind::Io(err) => err,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// The names of the CSV's columns, in order: `group` (with `grouped`),
/// [`COLUMNS`], [`EXACT_COLUMNS`], [`RESEARCH_COLUMNS`],
/// [`ELO_SUM_COLUMNS`], [`MODEL_COLUMNS`], [`BIN_COLUMNS`],
/// [`FEATURE_COLUMNS`].
pub fn header(grouped: bool) -> Vec<&'static str> {
    let mut header: Vec<&str> = Vec::with_capacity(WIDTH + 1);
    if grouped {
        header.push("group");
    }
    header.extend(COLUMNS);
    header.extend(EXACT_COLUMNS);
    header.extend(RESEARCH_COLUMNS);
    header.extend(ELO_SUM_COLUMNS);
    header.extend(MODEL_COLUMNS);
    header.extend(BIN_COLUMNS);
    header.extend(FEATURE_COLUMNS);
    header
}

/// One value of a stats row, typed: [`write_csv`] writes its text, the
/// Python module an Arrow value of its type.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell<'a> {
    /// Text (the group).
    Text(&'a str),
    /// A position's arrangement (`RNBQKBNR`).
    Arrangement(BackRank),
    /// A position's number (Scharnagl or Fritz9).
    Number(u16),
    /// A count, or a sum that cannot be negative.
    Count(u64),
    /// A sum of ratings.
    Sum(i64),
    /// A derived value, written with six decimals; none is empty.
    Decimal(Option<f64>),
    /// A p- or q-value, written with six significant digits
    /// (`1.23457e-12`): they span hundreds of orders of magnitude, where
    /// six decimals would write most as 0. None is empty.
    Probability(Option<f64>),
    /// A count that may be undefined (empty).
    MaybeCount(Option<u64>),
    /// A position's rating bins, written as [`RatingBins`] shows them.
    Bins(&'a RatingBins),
}

impl Cell<'_> {
    /// The cell as the CSV writes it.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        self.write_text(&mut text);
        text
    }

    /// Appends the cell as the CSV writes it to `text`.
    pub fn write_text(&self, text: &mut String) {
        use std::fmt::Write as _;
        // Writing to a `String` cannot fail.
        let _ = match self {
            Cell::Text(value) => {
                text.push_str(value);
                Ok(())
            }
            Cell::Arrangement(rank) => write!(text, "{rank}"),
            Cell::Number(n) => {
                decimal::push_u64(text, u64::from(*n));
                Ok(())
            }
            Cell::Count(n) | Cell::MaybeCount(Some(n)) => {
                decimal::push_u64(text, *n);
                Ok(())
            }
            Cell::Sum(n) => {
                decimal::push_i64(text, *n);
                Ok(())
            }
            Cell::Decimal(Some(v)) => {
                decimal::push_fixed6(text, *v);
                Ok(())
            }
            Cell::Probability(Some(v)) => write!(text, "{v:.5e}"),
            Cell::Decimal(None) | Cell::Probability(None) | Cell::MaybeCount(None) => Ok(()),
            Cell::Bins(bins) => {
                bins.write_text(text);
                Ok(())
            }
        };
    }
}

/// Writes `cells` to `csv` as one record, each cell formatted in `text`
/// (a buffer kept from record to record: no allocation per cell).
///
/// # Errors
///
/// Any error of `csv`.
pub(crate) fn write_cells<W: Write>(
    csv: &mut csv::Writer<W>,
    cells: &[Cell<'_>],
    text: &mut String,
) -> csv::Result<()> {
    for cell in cells {
        text.clear();
        cell.write_text(text);
        csv.write_field(text.as_bytes())?;
    }
    csv.write_record(None::<&[u8]>)
}

/// Hands every row of the CSV, as its cells, to `each`: one per position
/// with games (every position with `all_positions`, in each group),
/// sorted by group and Scharnagl number, each starting with its group
/// with `grouped`. The tests across positions are those of `analysis`.
///
/// # Errors
///
/// The first error of `each`.
pub fn for_each_row<'a, E>(
    analysis: &'a TableAnalysis<'a>,
    grouped: bool,
    all_positions: bool,
    mut each: impl FnMut(&[Cell<'_>]) -> Result<(), E>,
) -> Result<(), E> {
    let table = analysis.table;
    let mut groups: Vec<(&str, Option<&Rows>)> = table
        .groups()
        .map(|(group, rows)| (group, Some(rows)))
        .collect();
    if groups.is_empty() && all_positions {
        groups.push(("", None));
    }
    for (index, (group, rows)) in groups.into_iter().enumerate() {
        let findings: Option<Vec<(u16, PositionFindings)>> = rows.map(|_| {
            let positions = &analysis.groups[index].1.positions;
            positions.iter().map(|(id, f)| (*id, *f)).collect()
        });
        for_each_row_of_group(
            group,
            rows,
            findings.as_deref(),
            grouped,
            all_positions,
            &mut each,
        )?;
    }
    Ok(())
}

/// Hands the rows of one group to `each`, as [`for_each_row`] does: its
/// positions with games (every position with `all_positions`), each
/// starting with the group with `grouped`, the tests across positions
/// those of `findings` (by Scharnagl number, ascending; none without
/// rows).
///
/// # Errors
///
/// The first error of `each`.
pub fn for_each_row_of_group<E>(
    group: &str,
    rows: Option<&Rows>,
    findings: Option<&[(u16, PositionFindings)]>,
    grouped: bool,
    all_positions: bool,
    mut each: impl FnMut(&[Cell<'_>]) -> Result<(), E>,
) -> Result<(), E> {
    let empty = PositionStats::default();
    let no_findings = PositionFindings::default();
    let mut cells: Vec<Cell<'_>> = Vec::with_capacity(WIDTH + 1);
    let ids: Vec<u16> = if all_positions {
        (0..BackRank::COUNT).collect()
    } else {
        rows.map(|rows| rows.keys().copied().collect())
            .unwrap_or_default()
    };
    for id in ids {
        let stats = rows.and_then(|rows| rows.get(&id)).unwrap_or(&empty);
        let findings = findings
            .and_then(|all| {
                let at = all.binary_search_by_key(&id, |(id, _)| *id).ok()?;
                Some(&all[at].1)
            })
            .unwrap_or(&no_findings);
        cells.clear();
        if grouped {
            cells.push(Cell::Text(group));
        }
        cells.extend(row(id, stats, findings));
        each(&cells)?;
    }
    Ok(())
}

/// The cells of one position's row, group aside.
fn row<'a>(id: u16, stats: &'a PositionStats, findings: &PositionFindings) -> [Cell<'a>; WIDTH] {
    let rank = BackRank::from_scharnagl(u32::from(id)).expect("rows hold ids below 960");
    let (low, high) = stats.white_score_interval().unzip();
    let (wdl_low, wdl_high) = findings.score_interval.unzip();
    let shrunk = findings.shrunk;
    let test = findings.test;
    let [
        king,
        queen,
        knight_1,
        knight_2,
        rook_1,
        rook_2,
        light,
        dark,
        mirror,
    ] = rank.features().cells().map(|cell| match cell {
        FeatureCell::File(file) => Cell::Text(file_letter(file)),
        FeatureCell::Scharnagl(n) => Cell::Number(n),
    });
    [
        Cell::Number(id),
        Cell::Number(rank.fritz9()),
        Cell::Arrangement(rank),
        Cell::Count(stats.games),
        Cell::Count(stats.white_wins),
        Cell::Count(stats.draws),
        Cell::Count(stats.black_wins),
        Cell::Count(stats.unfinished),
        Cell::Decimal(stats.white_score()),
        Cell::Decimal(low),
        Cell::Decimal(high),
        Cell::Decimal(stats.draw_rate()),
        Cell::Decimal(stats.avg_white_elo()),
        Cell::Decimal(stats.avg_black_elo()),
        Cell::Decimal(stats.expected_white_score()),
        Cell::Count(stats.white_elo_count),
        Cell::Sum(stats.white_elo_sum),
        Cell::Count(stats.black_elo_count),
        Cell::Sum(stats.black_elo_sum),
        Cell::Count(stats.both_rated),
        Cell::Count(stats.expected_white_e9),
        Cell::Count(stats.elo_games),
        Cell::Decimal(findings.white_score_vs_elo),
        Cell::Decimal(test.map(|t| t.z)),
        Cell::Probability(test.map(|t| t.p_value)),
        Cell::Probability(findings.q_value),
        Cell::Decimal(shrunk.map(|s| s.estimate)),
        Cell::Decimal(shrunk.map(|s| s.low)),
        Cell::Decimal(shrunk.map(|s| s.high)),
        Cell::Count(stats.elo_points_x2),
        Cell::Count(stats.elo_expected_e9),
        Cell::Count(stats.elo_variance_e9),
        Cell::Decimal(wdl_low),
        Cell::Decimal(wdl_high),
        Cell::Decimal(findings.expected_score),
        Cell::MaybeCount(test.map(|t| t.decisive)),
        Cell::Decimal(test.map(|t| t.expected)),
        Cell::Bins(&stats.rating_bins),
        king,
        queen,
        knight_1,
        knight_2,
        rook_1,
        rook_2,
        light,
        dark,
        mirror,
    ]
}

/// The type of each column of a row without its group, in order: the
/// cells of a row of no games.
pub(super) fn cell_types() -> [Cell<'static>; WIDTH] {
    static EMPTY: std::sync::LazyLock<PositionStats> =
        std::sync::LazyLock::new(PositionStats::default);
    row(0, &EMPTY, &PositionFindings::default())
}

/// A stats CSV that cannot be merged.
#[derive(Debug)]
pub enum ReadCsvError {
    /// The CSV layer failed (I/O, syntax, or a cell that is not the number
    /// its column holds), with the record where known.
    Csv(csv::Error),
    /// The header lacks a column merging needs.
    MissingColumn(&'static str),
    /// The header is that of a version of `pgn960 stats` from before the
    /// research columns: it lacks their sums, which cannot be made up.
    OlderVersion(&'static str),
    /// A `rating_bins` cell that no run writes.
    BadBins {
        /// 1-based line of the record.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A cell that is not the number its column holds.
    BadCell {
        /// 1-based line of the record.
        line: u64,
        /// The column's name.
        column: String,
        /// What is wrong.
        message: String,
    },
    /// A row whose `games` is not the sum of `white_wins`, `draws`,
    /// `black_wins` and `unfinished`.
    GamesNotSummed {
        /// 1-based line of the record.
        line: u64,
    },
    /// A position given twice (in one group).
    Repeated {
        /// 1-based line of the second record.
        line: u64,
        /// The position's Scharnagl number.
        scharnagl: u16,
    },
    /// A pairs' CSV whose rows are not in the order `pgn960 stats` writes
    /// them: a pair given twice, or rows moved.
    OutOfOrder {
        /// 1-based line of the record.
        line: u64,
    },
    /// A Scharnagl number that is no position.
    BadPosition {
        /// 1-based line of the record.
        line: u64,
        /// The number.
        scharnagl: u64,
    },
}

impl fmt::Display for ReadCsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadCsvError::Csv(err) => match err.kind() {
                // The csv crate's own text gives a byte offset too, which
                // counts a CRLF input's bytes without its `\r`s
                // ([`CrlfAsLf`]): the line alone is what a reader needs.
                csv::ErrorKind::UnequalLengths {
                    pos: Some(pos),
                    expected_len,
                    len,
                } => write!(
                    f,
                    "line {}: {len} cells, where the header has {expected_len}",
                    pos.line()
                ),
                csv::ErrorKind::Utf8 { pos: Some(pos), .. } => {
                    write!(f, "line {}: not UTF-8", pos.line())
                }
                _ => write!(f, "{err}"),
            },
            ReadCsvError::BadCell {
                line,
                column,
                message,
            } => write!(f, "line {line}: `{column}`: {message}"),
            ReadCsvError::GamesNotSummed { line } => write!(
                f,
                "line {line}: `games` is not `white_wins` + `draws` + `black_wins` + `unfinished`"
            ),
            ReadCsvError::Repeated { line, scharnagl } => {
                write!(f, "line {line}: position {scharnagl} again")
            }
            ReadCsvError::MissingColumn(column) => write!(
                f,
                "no `{column}` column: not a CSV written by `pgn960 stats`"
            ),
            ReadCsvError::OlderVersion(column) => write!(
                f,
                "no `{column}` column: written by an older `pgn960 stats`, whose sums cannot be merged exactly; count its archive again"
            ),
            ReadCsvError::BadBins { line, message } => {
                write!(f, "line {line}: `rating_bins`: {message}")
            }
            ReadCsvError::OutOfOrder { line } => write!(
                f,
                "line {line}: a pair again, or after a pair it comes before: rows not in the order `pgn960 stats` writes them"
            ),
            ReadCsvError::BadPosition { line, scharnagl } => {
                write!(f, "line {line}: `scharnagl` is {scharnagl}, not 0 to 959")
            }
        }
    }
}

impl std::error::Error for ReadCsvError {}

impl From<csv::Error> for ReadCsvError {
    fn from(err: csv::Error) -> Self {
        ReadCsvError::Csv(err)
    }
}

/// The columns of [`SUMS`] that a CSV of an older version lacks.
const ELO_SUMS: [&str; 5] = [
    "elo_games",
    "elo_points_x2",
    "elo_expected_e9",
    "elo_variance_e9",
    "rating_bins",
];

/// The columns of a stats CSV that merging reads, which a mergeable CSV
/// must have: the sums (the derived columns are computed again from them).
const SUMS: [&str; 17] = [
    "scharnagl",
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "unfinished",
    "white_elo_count",
    "white_elo_sum",
    "black_elo_count",
    "black_elo_sum",
    "both_rated",
    "expected_white_e9",
    "elo_games",
    "elo_points_x2",
    "elo_expected_e9",
    "elo_variance_e9",
    "rating_bins",
];

/// Reads a CSV written by [`write_csv`] back into a table, and whether it
/// had a `group` column.
///
/// # Errors
///
/// [`ReadCsvError`] when the CSV is unreadable, lacks a column that
/// merging needs, has a cell that is not a number, or gives a position
/// twice in one group.
pub fn read_csv(input: impl Read) -> Result<(StatsTable, bool), ReadCsvError> {
    let mut rows = CsvRows::new(input)?;
    let mut table = StatsTable::default();
    while let Some(row) = rows.next_row()? {
        if row.stats.games == 0 {
            continue; // an --all-positions row: nothing to add
        }
        if table
            .rows_of(&row.group)
            .insert(row.scharnagl, row.stats)
            .is_some()
        {
            return Err(ReadCsvError::Repeated {
                line: row.line,
                scharnagl: row.scharnagl,
            });
        }
    }
    Ok((table, rows.grouped()))
}

/// One row of a stats CSV, as merging reads it: its sums.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvRow {
    /// 1-based line of the record in its file.
    pub line: u64,
    /// Its group (empty without grouping).
    pub group: String,
    /// Its position's Scharnagl number.
    pub scharnagl: u16,
    /// Its sums, checked: the results add up to `games`, the rating bins
    /// to `elo_games`.
    pub stats: PositionStats,
}

/// The sums of a row as read, before they are checked.
struct SumsRow<'a> {
    scharnagl: u64,
    games: u64,
    white_wins: u64,
    draws: u64,
    black_wins: u64,
    unfinished: u64,
    white_elo_count: u64,
    // Sums of ratings of 1 to 4000: never negative.
    white_elo_sum: u64,
    black_elo_count: u64,
    black_elo_sum: u64,
    both_rated: u64,
    expected_white_e9: u64,
    elo_games: u64,
    elo_points_x2: u64,
    elo_expected_e9: u64,
    elo_variance_e9: u64,
    rating_bins: &'a str,
}

/// A CSV reader over `input` whose records' lines are right also with
/// CRLF line ends ([`CrlfAsLf`]).
pub(crate) fn reader<R: Read>(input: R) -> csv::Reader<CrlfAsLf<R>> {
    csv::Reader::from_reader(CrlfAsLf::new(input))
}

/// The bytes of `R` with every `\r\n` read as `\n`. The csv crate counts
/// a CRLF record's line end only when it reads the record after it, so
/// its line numbers run one low from the second record on
/// (BurntSushi/rust-csv#395). A CSV `pgn960 stats` writes has no line end
/// inside a cell (its groups are tag values, which end at the line's
/// end), so nothing else changes.
pub(crate) struct CrlfAsLf<R> {
    inner: BufReader<R>,
}

impl<R: Read> CrlfAsLf<R> {
    fn new(input: R) -> CrlfAsLf<R> {
        CrlfAsLf {
            inner: BufReader::new(input),
        }
    }
}

impl<R: Read> Read for CrlfAsLf<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.inner.fill_buf()?;
        let (mut read, mut written) = (0, 0);
        while read < available.len() && written < out.len() {
            let byte = available[read];
            if byte == b'\r' {
                match available.get(read + 1) {
                    Some(b'\n') => {
                        read += 1;
                        continue;
                    }
                    Some(_) => {}
                    // A `\r` at the end of what is buffered: what follows
                    // it decides.
                    None if written > 0 => break,
                    None => {
                        self.inner.consume(read + 1);
                        let next = self.inner.fill_buf()?;
                        out[0] = if next.first() == Some(&b'\n') {
                            self.inner.consume(1);
                            b'\n'
                        } else {
                            b'\r'
                        };
                        return Ok(1);
                    }
                }
            }
            out[written] = byte;
            written += 1;
            read += 1;
        }
        self.inner.consume(read);
        Ok(written)
    }
}

/// The rows of a CSV written by [`write_csv`], read one at a time, so that
/// a CSV of a million groups is merged without holding it.
pub struct CsvRows<R: Read> {
    csv: csv::Reader<CrlfAsLf<R>>,
    record: csv::StringRecord,
    /// Where each column of [`SUMS`] is in a record.
    sums: [usize; SUMS.len()],
    /// Where the `group` column is, when there is one.
    group: Option<usize>,
}

impl<R: Read> CsvRows<R> {
    /// Reads the header.
    ///
    /// # Errors
    ///
    /// [`ReadCsvError`] when the CSV is unreadable or lacks a column that
    /// merging needs.
    pub fn new(input: R) -> Result<CsvRows<R>, ReadCsvError> {
        let mut csv = reader(input);
        let header = csv.headers()?.clone();
        let has = |name: &str| header.iter().any(|h| h == name);
        if let Some(missing) = SUMS.iter().find(|name| !has(name)) {
            let older = ELO_SUMS.contains(missing) && has("expected_white_e9");
            return Err(if older {
                ReadCsvError::OlderVersion(missing)
            } else {
                ReadCsvError::MissingColumn(missing)
            });
        }
        let at = |name: &str| header.iter().position(|h| h == name);
        Ok(CsvRows {
            csv,
            record: csv::StringRecord::new(),
            sums: SUMS.map(|name| at(name).expect("every column is there")),
            group: at("group"),
        })
    }

    /// Whether the CSV has a `group` column.
    pub fn grouped(&self) -> bool {
        self.group.is_some()
    }

    /// The next row, checked; `None` at the end.
    ///
    /// # Errors
    ///
    /// [`ReadCsvError`] for a record that is unreadable, has a cell that is
    /// not a number, or sums that do not add up.
    pub fn next_row(&mut self) -> Result<Option<CsvRow>, ReadCsvError> {
        if !self.csv.read_record(&mut self.record)? {
            return Ok(None);
        }
        let record = &self.record;
        let line = record.position().map_or(0, |p| p.line());
        // Each column is read by its place in the header, found once.
        let cell = |column: usize| record.get(self.sums[column]).unwrap_or_default();
        let number = |column: usize| {
            cell(column)
                .parse::<u64>()
                .map_err(|err| ReadCsvError::BadCell {
                    line,
                    column: SUMS[column].to_string(),
                    message: err.to_string(),
                })
        };
        let row = SumsRow {
            scharnagl: number(0)?,
            games: number(1)?,
            white_wins: number(2)?,
            draws: number(3)?,
            black_wins: number(4)?,
            unfinished: number(5)?,
            white_elo_count: number(6)?,
            white_elo_sum: number(7)?,
            black_elo_count: number(8)?,
            black_elo_sum: number(9)?,
            both_rated: number(10)?,
            expected_white_e9: number(11)?,
            elo_games: number(12)?,
            elo_points_x2: number(13)?,
            elo_expected_e9: number(14)?,
            elo_variance_e9: number(15)?,
            rating_bins: cell(16),
        };
        let group = self
            .group
            .and_then(|column| record.get(column))
            .unwrap_or_default()
            .to_string();
        let scharnagl = u16::try_from(row.scharnagl)
            .ok()
            .filter(|id| *id < BackRank::COUNT)
            .ok_or(ReadCsvError::BadPosition {
                line,
                scharnagl: row.scharnagl,
            })?;
        let elo_sum = |sum: u64, column: &str| {
            i64::try_from(sum).map_err(|_| ReadCsvError::BadCell {
                line,
                column: column.to_string(),
                message: "number too large to fit in target type".to_string(),
            })
        };
        let stats = PositionStats {
            games: row.games,
            white_wins: row.white_wins,
            draws: row.draws,
            black_wins: row.black_wins,
            unfinished: row.unfinished,
            white_elo_count: row.white_elo_count,
            white_elo_sum: elo_sum(row.white_elo_sum, "white_elo_sum")?,
            black_elo_count: row.black_elo_count,
            black_elo_sum: elo_sum(row.black_elo_sum, "black_elo_sum")?,
            both_rated: row.both_rated,
            expected_white_e9: row.expected_white_e9,
            elo_games: row.elo_games,
            elo_points_x2: row.elo_points_x2,
            elo_expected_e9: row.elo_expected_e9,
            elo_variance_e9: row.elo_variance_e9,
            rating_bins: RatingBins::parse(row.rating_bins)
                .map_err(|message| ReadCsvError::BadBins { line, message })?,
        };
        let binned = stats
            .rating_bins
            .checked_totals()
            .ok_or_else(|| ReadCsvError::BadBins {
                line,
                message: "holds more games than a count can hold".to_string(),
            })?;
        let binned_games = binned.iter().try_fold(0u64, |sum, b| sum.checked_add(*b));
        let results = [stats.white_wins, stats.draws, stats.black_wins];
        if binned_games != Some(stats.elo_games) || binned.iter().zip(&results).any(|(b, r)| b > r)
        {
            let message = format!(
                "holds {} games, {} by result, where `elo_games` is {} and the results {}/{}/{}",
                binned.iter().map(|b| u128::from(*b)).sum::<u128>(),
                binned.map(|b| b.to_string()).join("/"),
                stats.elo_games,
                results[0],
                results[1],
                results[2]
            );
            return Err(ReadCsvError::BadBins { line, message });
        }
        let summed = [
            stats.white_wins,
            stats.draws,
            stats.black_wins,
            stats.unfinished,
        ]
        .into_iter()
        .try_fold(0u64, u64::checked_add);
        if summed != Some(stats.games) {
            return Err(ReadCsvError::GamesNotSummed { line });
        }
        Ok(Some(CsvRow {
            line,
            group,
            scharnagl,
            stats,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CSV of an empty table with every position: a row for each.
    fn every_position() -> String {
        let mut out = Vec::new();
        write_csv(&StatsTable::default(), false, true, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// `csv` without its column `name`.
    fn without_column(csv: &str, name: &str) -> String {
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let drop = header.iter().position(|h| *h == name).unwrap();
        csv.lines()
            .map(|line| {
                let cells: Vec<&str> = line.split(',').collect();
                let kept: Vec<&str> = cells
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != drop)
                    .map(|(_, cell)| *cell)
                    .collect();
                kept.join(",") + "\n"
            })
            .collect()
    }

    /// Reads `bytes` `step` bytes at a time at most, as a slow pipe gives
    /// them.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.bytes.len().min(self.step).min(out.len());
            out[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn crlf_reads_as_lf_and_nothing_else_changes_wherever_reads_end() {
        let text = "a,b\r\n1,2\r\n\r\r\n\rx\r\r\n\n\r";
        let want = text.replace("\r\n", "\n");
        for step in 1..=text.len() {
            for out_len in [1, 2, 3, 64] {
                let mut adapter = CrlfAsLf::new(Trickle {
                    bytes: text.as_bytes(),
                    step,
                });
                let mut got = Vec::new();
                let mut out = vec![0; out_len];
                loop {
                    let n = adapter.read(&mut out).expect("reads");
                    if n == 0 {
                        break;
                    }
                    got.extend_from_slice(&out[..n]);
                }
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    want,
                    "step {step}, out {out_len}"
                );
            }
        }
    }

    #[test]
    fn a_missing_research_sum_means_an_older_version_only_beside_the_older_columns() {
        let csv = every_position();
        let (table, grouped) = read_csv(csv.as_bytes()).unwrap();
        assert_eq!((table.rows().count(), grouped), (0, false));
        let error = |csv: &str| read_csv(csv.as_bytes()).unwrap_err().to_string();
        let missing = |name: &'static str| ReadCsvError::MissingColumn(name).to_string();
        // An older version wrote `expected_white_e9` but no Elo sums.
        assert_eq!(
            error(&without_column(&csv, "elo_games")),
            ReadCsvError::OlderVersion("elo_games").to_string()
        );
        assert_eq!(error(&without_column(&csv, "games")), missing("games"));
        let neither = without_column(&without_column(&csv, "expected_white_e9"), "elo_games");
        assert_eq!(error(&neither), missing("expected_white_e9"));
        let no_elo_games = without_column(&without_column(&csv, "elo_games"), "games");
        assert_eq!(error(&no_elo_games), missing("games"));
    }

    #[test]
    fn a_scharnagl_number_past_959_is_refused_with_its_line() {
        let csv = every_position();
        let last = csv.lines().last().unwrap();
        assert!(last.starts_with("959,"), "{last}");
        let bad = csv.replace(last, &last.replacen("959", "960", 1));
        match read_csv(bad.as_bytes()) {
            Err(ReadCsvError::BadPosition { line, scharnagl }) => {
                assert_eq!((line, scharnagl), (961, 960));
            }
            other => panic!("{other:?}"),
        }
    }
}
