//! Per-start-position statistics that merge exactly.
//!
//! Researchers split archives into shards, count them on different machines
//! and merge the results, so every accumulated quantity is an integer: game
//! counts, rating sums, and the Elo expectation summed in units of 10^-9.
//! Integer sums do not depend on the order of addition, so a merge of shard
//! tables is the table of one run over all shards, byte for byte. The
//! derived columns (scores, Wilson intervals, averages) are computed from
//! the integers only when the table is written.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Read, Write};

use crate::BackRank;
use crate::classify::{Kind, classify, is_named, tag_value};
use crate::split::{Batch, Game};

/// z for a two-sided 95% interval.
pub const Z_95: f64 = 1.959964;

/// Scale of the summed Elo expectation: 10^9 units per point.
const EXPECTATION_SCALE: f64 = 1e9;

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

/// Counts for one start position (within one group).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PositionStats {
    /// Games counted.
    pub games: u64,
    /// `1-0` results.
    pub white_wins: u64,
    /// `1/2-1/2` results.
    pub draws: u64,
    /// `0-1` results.
    pub black_wins: u64,
    /// Games with a `*`, missing or malformed result.
    pub unfinished: u64,
    /// Games whose `WhiteElo` is an integer.
    pub white_elo_count: u64,
    /// Sum of those ratings.
    pub white_elo_sum: i64,
    /// Games whose `BlackElo` is an integer.
    pub black_elo_count: u64,
    /// Sum of those ratings.
    pub black_elo_sum: i64,
    /// Games where both ratings are integers.
    pub both_rated: u64,
    /// Sum over those games of White's Elo expectation, in 10^-9 points.
    pub expected_white_e9: u64,
}

impl PositionStats {
    /// Counts one game.
    pub fn add(&mut self, game: &GameFacts) {
        self.games += 1;
        match game.result {
            Some(GameResult::WhiteWins) => self.white_wins += 1,
            Some(GameResult::Draw) => self.draws += 1,
            Some(GameResult::BlackWins) => self.black_wins += 1,
            None => self.unfinished += 1,
        }
        if let Some(elo) = game.white_elo {
            self.white_elo_count += 1;
            self.white_elo_sum += i64::from(elo);
        }
        if let Some(elo) = game.black_elo {
            self.black_elo_count += 1;
            self.black_elo_sum += i64::from(elo);
        }
        if let (Some(white), Some(black)) = (game.white_elo, game.black_elo) {
            self.both_rated += 1;
            self.expected_white_e9 += expectation_e9(white, black);
        }
    }

    /// Adds another table's counts for the same position.
    pub fn merge(&mut self, other: &PositionStats) {
        self.games += other.games;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.black_wins += other.black_wins;
        self.unfinished += other.unfinished;
        self.white_elo_count += other.white_elo_count;
        self.white_elo_sum += other.white_elo_sum;
        self.black_elo_count += other.black_elo_count;
        self.black_elo_sum += other.black_elo_sum;
        self.both_rated += other.both_rated;
        self.expected_white_e9 += other.expected_white_e9;
    }

    /// Games with a result of `1-0`, `0-1` or `1/2-1/2`.
    pub fn finished(&self) -> u64 {
        self.white_wins + self.draws + self.black_wins
    }

    /// (white wins + draws / 2) / finished games.
    pub fn white_score(&self) -> Option<f64> {
        let n = self.finished();
        (n > 0).then(|| (self.white_wins as f64 + self.draws as f64 / 2.0) / n as f64)
    }

    /// The Wilson score interval at 95% for [`Self::white_score`].
    pub fn white_score_interval(&self) -> Option<(f64, f64)> {
        let p = self.white_score()?;
        Some(wilson(p, self.finished() as f64, Z_95))
    }

    /// draws / finished games.
    pub fn draw_rate(&self) -> Option<f64> {
        let n = self.finished();
        (n > 0).then(|| self.draws as f64 / n as f64)
    }

    /// Mean `WhiteElo` over the games that have an integer one.
    pub fn avg_white_elo(&self) -> Option<f64> {
        mean(self.white_elo_sum, self.white_elo_count)
    }

    /// Mean `BlackElo` over the games that have an integer one.
    pub fn avg_black_elo(&self) -> Option<f64> {
        mean(self.black_elo_sum, self.black_elo_count)
    }

    /// Mean Elo expectation of White over the games where both are rated.
    pub fn expected_white_score(&self) -> Option<f64> {
        (self.both_rated > 0)
            .then(|| self.expected_white_e9 as f64 / EXPECTATION_SCALE / self.both_rated as f64)
    }
}

fn mean(sum: i64, count: u64) -> Option<f64> {
    (count > 0).then(|| sum as f64 / count as f64)
}

/// The Wilson score interval for proportion `p` over `n` trials.
///
/// ```
/// let (low, high) = pgn960::stats::wilson(0.5, 100.0, 1.959964);
/// assert!((low - 0.4038).abs() < 1e-4 && (high - 0.5962).abs() < 1e-4);
/// ```
pub fn wilson(p: f64, n: f64, z: f64) -> (f64, f64) {
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((center - half).max(0.0), (center + half).min(1.0))
}

/// White's Elo expectation 1 / (1 + 10^((black - white) / 400)), in 10^-9.
fn expectation_e9(white: i32, black: i32) -> u64 {
    let expected = 1.0 / (1.0 + 10f64.powf(f64::from(black - white) / 400.0));
    (expected * EXPECTATION_SCALE).round() as u64
}

/// A finished game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// `1-0`
    WhiteWins,
    /// `1/2-1/2`
    Draw,
    /// `0-1`
    BlackWins,
}

/// What stats needs to know of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameFacts {
    /// The result, when finished.
    pub result: Option<GameResult>,
    /// `WhiteElo`, when an integer.
    pub white_elo: Option<i32>,
    /// `BlackElo`, when an integer.
    pub black_elo: Option<i32>,
}

/// How games are grouped into rows besides their position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupBy {
    /// The value of a tag (empty when the game lacks it).
    Tag(String),
    /// The year of the `Date` tag (`????` when unknown).
    Year,
}

impl GroupBy {
    /// `year` groups by the year of `Date`; any other word names a tag.
    pub fn from_arg(arg: &str) -> GroupBy {
        if arg == "year" {
            GroupBy::Year
        } else {
            GroupBy::Tag(arg.to_string())
        }
    }
}

/// What to count.
#[derive(Clone, Debug, Default)]
pub struct StatsOptions {
    /// Count plain standard games too (under 518).
    pub include_standard: bool,
    /// Group rows by a tag or the year.
    pub group_by: Option<GroupBy>,
    /// Keep only games where both players are rated at least this.
    pub min_elo: Option<i32>,
}

/// Why games were not counted; adds up across batches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatsSummary {
    /// Games read.
    pub games: u64,
    /// Games counted in the table.
    pub counted: u64,
    /// Double FRC games skipped.
    pub double_frc: u64,
    /// Set-up positions and other variants skipped.
    pub set_up: u64,
    /// Games with an unreadable start skipped.
    pub unreadable: u64,
    /// Plain standard games skipped (without `--include-standard`).
    pub standard: u64,
    /// Games below `--min-elo` (or unrated) skipped.
    pub below_min_elo: u64,
}

impl StatsSummary {
    /// Adds another summary to this one.
    pub fn merge(&mut self, other: &StatsSummary) {
        self.games += other.games;
        self.counted += other.counted;
        self.double_frc += other.double_frc;
        self.set_up += other.set_up;
        self.unreadable += other.unreadable;
        self.standard += other.standard;
        self.below_min_elo += other.below_min_elo;
    }
}

/// Rows keyed by group (empty without grouping) and Scharnagl number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatsTable {
    rows: BTreeMap<(String, u16), PositionStats>,
}

impl StatsTable {
    /// Counts one game under a group and position.
    pub fn add(&mut self, group: String, position: BackRank, game: &GameFacts) {
        self.rows
            .entry((group, position.scharnagl()))
            .or_default()
            .add(game);
    }

    /// Adds every row of another table.
    pub fn merge(&mut self, other: &StatsTable) {
        for (key, stats) in &other.rows {
            self.rows.entry(key.clone()).or_default().merge(stats);
        }
    }

    /// The rows, sorted by group, then Scharnagl number.
    pub fn rows(&self) -> impl Iterator<Item = (&str, u16, &PositionStats)> {
        self.rows
            .iter()
            .map(|((group, id), stats)| (group.as_str(), *id, stats))
    }

    /// The counts of one position in one group (the empty group without grouping).
    pub fn get(&self, group: &str, scharnagl: u16) -> Option<&PositionStats> {
        self.rows.get(&(group.to_string(), scharnagl))
    }

    /// All games of all rows together.
    pub fn total(&self) -> PositionStats {
        let mut total = PositionStats::default();
        for stats in self.rows.values() {
            total.merge(stats);
        }
        total
    }
}

/// Counts the games of a batch.
pub fn stats_batch(batch: &Batch, options: &StatsOptions) -> (StatsTable, StatsSummary) {
    let mut table = StatsTable::default();
    let mut summary = StatsSummary::default();
    for game in &batch.games {
        summary.games += 1;
        let class = classify(batch, game);
        let Some(position) = class.id(options.include_standard) else {
            match class.kind() {
                Kind::DoubleFrc => summary.double_frc += 1,
                Kind::SetUp => summary.set_up += 1,
                Kind::Unreadable => summary.unreadable += 1,
                Kind::Standard | Kind::Chess960(_) => summary.standard += 1,
            }
            continue;
        };
        let facts = game_facts(batch, game);
        if let Some(min) = options.min_elo {
            let rated = |elo: Option<i32>| elo.is_some_and(|elo| elo >= min);
            if !(rated(facts.white_elo) && rated(facts.black_elo)) {
                summary.below_min_elo += 1;
                continue;
            }
        }
        let group = options
            .group_by
            .as_ref()
            .map_or_else(String::new, |by| group_of(batch, game, by));
        table.add(group, position, &facts);
        summary.counted += 1;
    }
    (table, summary)
}

/// Reads a game's result and ratings from its tags (the last tag wins).
pub fn game_facts(batch: &Batch, game: &Game) -> GameFacts {
    let mut facts = GameFacts {
        result: None,
        white_elo: None,
        black_elo: None,
    };
    for tag in batch.tags_of(game) {
        if is_named(batch, tag, "Result") {
            facts.result = match tag_value(batch, tag).trim_ascii() {
                b"1-0" => Some(GameResult::WhiteWins),
                b"0-1" => Some(GameResult::BlackWins),
                b"1/2-1/2" => Some(GameResult::Draw),
                _ => None,
            };
        } else if is_named(batch, tag, "WhiteElo") {
            facts.white_elo = parse_elo(&tag_value(batch, tag));
        } else if is_named(batch, tag, "BlackElo") {
            facts.black_elo = parse_elo(&tag_value(batch, tag));
        }
    }
    facts
}

fn parse_elo(value: &[u8]) -> Option<i32> {
    std::str::from_utf8(value.trim_ascii()).ok()?.parse().ok()
}

fn group_of(batch: &Batch, game: &Game, by: &GroupBy) -> String {
    let wanted = match by {
        GroupBy::Tag(name) => name.as_str(),
        GroupBy::Year => "Date",
    };
    let value = batch
        .tags_of(game)
        .iter()
        .rev()
        .find(|tag| is_named(batch, tag, wanted))
        .map(|tag| tag_value(batch, tag));
    match by {
        GroupBy::Tag(_) => {
            value.map_or_else(String::new, |v| String::from_utf8_lossy(&v).into_owned())
        }
        GroupBy::Year => value
            .and_then(|v| {
                let year = v.get(..4)?;
                year.iter()
                    .all(u8::is_ascii_digit)
                    .then(|| String::from_utf8_lossy(year).into_owned())
            })
            .unwrap_or_else(|| "????".to_string()),
    }
}

/// Writes a table as CSV: a header, then one row per position with games
/// (every position with `all_positions`, in each group), sorted by group
/// and Scharnagl number. With `grouped`, a leading `group` column.
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
    let mut csv = csv::Writer::from_writer(out);
    write_rows(&mut csv, table, grouped, all_positions).map_err(into_io)?;
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

fn write_rows<W: Write>(
    csv: &mut csv::Writer<W>,
    table: &StatsTable,
    grouped: bool,
    all_positions: bool,
) -> csv::Result<()> {
    let mut header: Vec<&str> = Vec::new();
    if grouped {
        header.push("group");
    }
    header.extend(COLUMNS);
    header.extend(EXACT_COLUMNS);
    csv.write_record(&header)?;

    let empty = PositionStats::default();
    let mut groups: Vec<&str> = table.rows.keys().map(|(g, _)| g.as_str()).collect();
    groups.dedup();
    if groups.is_empty() && all_positions {
        groups.push("");
    }
    for group in groups {
        let ids: Box<dyn Iterator<Item = u16>> = if all_positions {
            Box::new(0..BackRank::COUNT)
        } else {
            Box::new(
                table
                    .rows
                    .range((group.to_string(), 0)..=(group.to_string(), u16::MAX))
                    .map(|((_, id), _)| *id),
            )
        };
        for id in ids {
            let stats = table.get(group, id).unwrap_or(&empty);
            let rank = BackRank::from_scharnagl(u32::from(id)).expect("rows hold ids below 960");
            let mut record: Vec<String> = Vec::with_capacity(header.len());
            if grouped {
                record.push(group.to_string());
            }
            let (low, high) = stats.white_score_interval().unzip();
            record.extend([
                id.to_string(),
                rank.fritz9().to_string(),
                rank.to_string(),
                stats.games.to_string(),
                stats.white_wins.to_string(),
                stats.draws.to_string(),
                stats.black_wins.to_string(),
                stats.unfinished.to_string(),
                float(stats.white_score()),
                float(low),
                float(high),
                float(stats.draw_rate()),
                float(stats.avg_white_elo()),
                float(stats.avg_black_elo()),
                float(stats.expected_white_score()),
                stats.white_elo_count.to_string(),
                stats.white_elo_sum.to_string(),
                stats.black_elo_count.to_string(),
                stats.black_elo_sum.to_string(),
                stats.both_rated.to_string(),
                stats.expected_white_e9.to_string(),
            ]);
            csv.write_record(&record)?;
        }
    }
    Ok(())
}

fn float(value: Option<f64>) -> String {
    value.map_or_else(String::new, |v| format!("{v:.6}"))
}

/// A stats CSV that cannot be merged.
#[derive(Debug)]
pub enum ReadCsvError {
    /// The CSV layer failed (I/O or syntax), with the record where known.
    Csv(csv::Error),
    /// The header lacks a column merging needs.
    MissingColumn(&'static str),
    /// A cell that should hold a number does not.
    BadNumber {
        /// 1-based line of the record.
        line: u64,
        /// The column.
        column: &'static str,
        /// What the cell holds.
        value: String,
    },
}

impl fmt::Display for ReadCsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadCsvError::Csv(err) => write!(f, "{err}"),
            ReadCsvError::MissingColumn(column) => write!(
                f,
                "no `{column}` column: not a CSV written by `pgn960 stats`"
            ),
            ReadCsvError::BadNumber {
                line,
                column,
                value,
            } => write!(f, "line {line}: `{column}` is {value:?}, not a number"),
        }
    }
}

impl std::error::Error for ReadCsvError {}

impl From<csv::Error> for ReadCsvError {
    fn from(err: csv::Error) -> Self {
        ReadCsvError::Csv(err)
    }
}

/// Reads a CSV written by [`write_csv`] back into a table, and whether it
/// had a `group` column.
///
/// # Errors
///
/// [`ReadCsvError`] when the CSV is unreadable, lacks a column that
/// merging needs, or has a cell that is not a number.
pub fn read_csv(input: impl Read) -> Result<(StatsTable, bool), ReadCsvError> {
    let mut csv = csv::Reader::from_reader(input);
    let header = csv.headers()?.clone();
    let find = |name: &'static str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or(ReadCsvError::MissingColumn(name))
    };
    let grouped = header.iter().any(|h| h == "group");
    let group_column = if grouped { Some(find("group")?) } else { None };
    let id_column = find("scharnagl")?;
    let count_columns: Vec<(usize, &'static str)> = [
        "games",
        "white_wins",
        "draws",
        "black_wins",
        "unfinished",
        "white_elo_count",
        "black_elo_count",
        "both_rated",
        "expected_white_e9",
    ]
    .into_iter()
    .map(|name| find(name).map(|i| (i, name)))
    .collect::<Result<_, _>>()?;
    let sum_columns = [find("white_elo_sum")?, find("black_elo_sum")?];

    let mut table = StatsTable::default();
    for record in csv.records() {
        let record = record?;
        let line = record.position().map_or(0, |p| p.line());
        let cell = |i: usize| record.get(i).unwrap_or("");
        let number = |i: usize, column: &'static str| {
            cell(i).parse::<u64>().map_err(|_| ReadCsvError::BadNumber {
                line,
                column,
                value: cell(i).to_string(),
            })
        };
        let signed = |i: usize, column: &'static str| {
            cell(i).parse::<i64>().map_err(|_| ReadCsvError::BadNumber {
                line,
                column,
                value: cell(i).to_string(),
            })
        };
        let id = number(id_column, "scharnagl")?;
        if id >= u64::from(BackRank::COUNT) {
            return Err(ReadCsvError::BadNumber {
                line,
                column: "scharnagl",
                value: id.to_string(),
            });
        }
        let counts: Vec<u64> = count_columns
            .iter()
            .map(|&(i, name)| number(i, name))
            .collect::<Result<_, _>>()?;
        let stats = PositionStats {
            games: counts[0],
            white_wins: counts[1],
            draws: counts[2],
            black_wins: counts[3],
            unfinished: counts[4],
            white_elo_count: counts[5],
            black_elo_count: counts[6],
            both_rated: counts[7],
            expected_white_e9: counts[8],
            white_elo_sum: signed(sum_columns[0], "white_elo_sum")?,
            black_elo_sum: signed(sum_columns[1], "black_elo_sum")?,
        };
        if stats.games == 0 {
            continue; // an --all-positions row: nothing to add
        }
        let group = group_column.map_or_else(String::new, |i| cell(i).to_string());
        table
            .rows
            .entry((group, id as u16))
            .or_default()
            .merge(&stats);
    }
    Ok((table, grouped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_hand_computation() {
        // p = 0.75 over n = 4: center (0.75 + 0.48018) / 1.96037 = 0.62753,
        // half 0.99979 * sqrt(0.046875 + 0.060023) = 0.32689.
        let (low, high) = wilson(0.75, 4.0, Z_95);
        assert!((low - 0.300_64).abs() < 1e-4, "{low}");
        assert!((high - 0.954_4).abs() < 1e-4, "{high}");
    }

    #[test]
    fn expectation_is_symmetric_and_exactly_summable() {
        assert_eq!(expectation_e9(1500, 1500), 500_000_000);
        assert_eq!(
            expectation_e9(1900, 1500) + expectation_e9(1500, 1900),
            1_000_000_000
        );
    }
}
