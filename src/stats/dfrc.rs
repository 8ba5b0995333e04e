//! Double FRC games (White and Black start from different arrays) by pair
//! of arrays, and by each side's array alone (the marginal tables), as
//! exact integer sums under the memory budget of [`BoundedTable`], so that
//! shards merge into what one run over all of them counts.
//!
//! The marginal tables are tables of positions like the one of Chess960
//! games (the position is White's array, or Black's), written and merged
//! by the same code, tests across arrays included. The pairs are kept in
//! a [`BoundedTable`] too, each White array (within its group) a group of
//! its own whose rows are Black's arrays: [`pair_key`] names it so that the
//! groups sort by group, then White's Scharnagl number.

use std::io::{self, Read, Write};
use std::path::Path;

use serde::Deserialize;

use crate::BackRank;
use crate::pipeline;

use super::csv::{
    COLUMNS, Cell, ELO_SUM_COLUMNS, EXACT_COLUMNS, ReadCsvError, into_io, write_cells,
};
use super::facts::GameFacts;
use super::spill::{BoundedTable, Groups};
use super::table::PositionStats;

/// The Double FRC games of a batch, one by one: each game's group (empty
/// without grouping), White's and Black's Scharnagl numbers and its facts.
#[derive(Clone, Debug, Default)]
pub struct DfrcGames {
    /// The groups' names, one after another.
    names: String,
    /// Where each game's group name ends in `names`, White's and Black's
    /// Scharnagl numbers, and the game's facts.
    games: Vec<(u32, u16, u16, GameFacts)>,
}

impl DfrcGames {
    /// Adds a game of `group` from White's array `white` and Black's
    /// `black`.
    pub(super) fn push(&mut self, group: &str, white: BackRank, black: BackRank, facts: GameFacts) {
        self.names.push_str(group);
        let end = u32::try_from(self.names.len()).expect("a batch holds less than 4 GiB");
        self.games
            .push((end, white.scharnagl(), black.scharnagl(), facts));
    }

    /// Each game: its group, White's and Black's Scharnagl numbers and its
    /// facts, in batch order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u16, u16, &GameFacts)> {
        let mut start = 0;
        self.games.iter().map(move |(end, white, black, facts)| {
            let name = &self.names[start..*end as usize];
            start = *end as usize;
            (name, *white, *black, facts)
        })
    }

    /// The number of games.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether there is no game.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }
}

impl pipeline::Footprint for DfrcGames {
    fn heap_bytes(&self) -> usize {
        self.names.capacity()
            + self.games.capacity() * std::mem::size_of::<(u32, u16, u16, GameFacts)>()
    }
}

/// The name, in a [`BoundedTable`] of pairs, of the rows of White's array
/// `white` within `group`: the group, a NUL and White's Scharnagl number
/// in three digits, so that names sort by group, then White's array.
pub fn pair_key(group: &str, white: u16) -> String {
    format!("{group}\0{white:03}")
}

/// The group and White's Scharnagl number of a name made by [`pair_key`].
fn split_pair_key(key: &str) -> (&str, u16) {
    let at = key
        .len()
        .checked_sub(4)
        .filter(|at| key.is_char_boundary(*at));
    let parsed = at.and_then(|at| {
        let (group, white) = key.split_at(at);
        let white = white.strip_prefix('\0')?.parse().ok()?;
        Some((group, white))
    });
    parsed.expect("pair tables are named by pair_key")
}

/// The three tables of Double FRC games: by pair, by White's array and by
/// Black's array, each under its own memory budget.
#[derive(Debug)]
pub struct DfrcTables {
    pairs: BoundedTable,
    white: BoundedTable,
    black: BoundedTable,
}

/// The groups of the three [`DfrcTables`], counted.
#[derive(Debug)]
pub struct DfrcGroups {
    /// By pair: groups named by [`pair_key`], rows by Black's array.
    pub pairs: Groups,
    /// By White's array: a table of positions.
    pub white: Groups,
    /// By Black's array: a table of positions.
    pub black: Groups,
}

impl DfrcTables {
    /// Empty tables, each holding about `budget` bytes at most before it
    /// goes to disk, in a temporary directory of its own.
    pub fn new(budget: usize) -> DfrcTables {
        DfrcTables {
            pairs: BoundedTable::new(budget),
            white: BoundedTable::new(budget),
            black: BoundedTable::new(budget),
        }
    }

    /// [`DfrcTables::new`], writing the runs in folders made in
    /// `directory` (a temporary directory of the caller's, which removes
    /// it).
    ///
    /// # Errors
    ///
    /// An error making the folders.
    pub fn in_directory(budget: usize, directory: &Path) -> io::Result<DfrcTables> {
        let table = |name: &str| {
            let folder = directory.join(name);
            std::fs::create_dir(&folder)?;
            Ok::<_, io::Error>(BoundedTable::in_directory(budget, &folder))
        };
        Ok(DfrcTables {
            pairs: table("dfrc-pairs")?,
            white: table("dfrc-white")?,
            black: table("dfrc-black")?,
        })
    }

    /// Counts every game of a batch under its pair and each side's array.
    ///
    /// # Errors
    ///
    /// An error writing a run.
    pub fn add_games(&mut self, games: &DfrcGames) -> io::Result<()> {
        for (group, white, black, facts) in games.iter() {
            self.add_game(group, white, black, facts)?;
        }
        Ok(())
    }

    /// Counts one game of `group`, from White's array `white` and Black's
    /// `black` (Scharnagl numbers), under its pair and each side's array.
    ///
    /// # Errors
    ///
    /// An error writing a run.
    pub fn add_game(
        &mut self,
        group: &str,
        white: u16,
        black: u16,
        facts: &GameFacts,
    ) -> io::Result<()> {
        self.pairs.add_game(&pair_key(group, white), black, facts)?;
        self.white.add_game(group, white, facts)?;
        self.black.add_game(group, black, facts)
    }

    /// The three tables' groups, in order.
    ///
    /// # Errors
    ///
    /// An error writing the last runs or merging runs.
    pub fn finish(self) -> io::Result<DfrcGroups> {
        Ok(DfrcGroups {
            pairs: self.pairs.finish()?,
            white: self.white.finish()?,
            black: self.black.finish()?,
        })
    }
}

/// The columns that name a pair, first in every row of the pairs' CSV
/// (after `group`, when grouped).
pub const PAIR_COLUMNS: [&str; 6] = [
    "white_scharnagl",
    "white_fritz9",
    "white_position",
    "black_scharnagl",
    "black_fritz9",
    "black_position",
];

/// The columns of the positions' CSV a pair's row has too, after
/// [`PAIR_COLUMNS`]: its counts, score and interval, averages and sums
/// (none of the tests across positions).
fn counted_columns() -> impl Iterator<Item = &'static str> {
    COLUMNS[3..]
        .iter()
        .chain(&EXACT_COLUMNS)
        .chain(&["elo_games", "white_score_vs_elo"])
        .chain(&ELO_SUM_COLUMNS)
        .copied()
}

/// The pairs' CSV's header: `group` (when grouped), [`PAIR_COLUMNS`],
/// then the positions' CSV's counts, score, interval, averages and sums.
pub fn pairs_header(grouped: bool) -> Vec<&'static str> {
    let mut header = Vec::new();
    if grouped {
        header.push("group");
    }
    header.extend(PAIR_COLUMNS);
    header.extend(counted_columns());
    header
}

/// The cells of one pair's row, group aside.
fn pair_row(white: u16, black: u16, stats: &PositionStats) -> Vec<Cell<'_>> {
    let rank = |id: u16| BackRank::from_scharnagl(u32::from(id)).expect("ids below 960");
    let (white_rank, black_rank) = (rank(white), rank(black));
    let (low, high) = stats.white_score_interval().unzip();
    vec![
        Cell::Number(white),
        Cell::Number(white_rank.fritz9()),
        Cell::Arrangement(white_rank),
        Cell::Number(black),
        Cell::Number(black_rank.fritz9()),
        Cell::Arrangement(black_rank),
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
        Cell::Decimal(stats.white_score_vs_elo()),
        Cell::Count(stats.elo_points_x2),
        Cell::Count(stats.elo_expected_e9),
        Cell::Count(stats.elo_variance_e9),
    ]
}

/// Hands every pair's row, as its cells, to `each`: a row per pair with
/// games, sorted by group, White's Scharnagl number, then Black's, each
/// starting with its group with `grouped`; every value is computed from
/// the row's own sums.
///
/// # Errors
///
/// The first error of `each`, or one reading the runs.
pub fn for_each_pair_row<E: From<io::Error>>(
    pairs: &Groups,
    grouped: bool,
    mut each: impl FnMut(&[Cell<'_>]) -> Result<(), E>,
) -> Result<(), E> {
    pairs.for_each(|key, by_black| {
        let (group, white) = split_pair_key(key);
        let mut cells: Vec<Cell<'_>> = Vec::new();
        for (black, stats) in by_black {
            cells.clear();
            if grouped {
                cells.push(Cell::Text(group));
            }
            cells.extend(pair_row(white, *black, stats));
            each(&cells)?;
        }
        Ok(())
    })
}

/// Writes the pairs' CSV: [`pairs_header`], then the rows of
/// [`for_each_pair_row`], so that a merge of shards' CSVs is one run's,
/// byte for byte. Returns the number of rows.
///
/// # Errors
///
/// Any error of `out` or reading the runs.
pub fn write_pairs_csv(pairs: &Groups, grouped: bool, out: impl Write) -> io::Result<u64> {
    let mut csv = csv::Writer::from_writer(out);
    csv.write_record(pairs_header(grouped)).map_err(into_io)?;
    let mut rows = 0;
    let mut text = String::new();
    for_each_pair_row(pairs, grouped, |cells| {
        write_cells(&mut csv, cells, &mut text).map_err(into_io)?;
        rows += 1;
        Ok::<_, io::Error>(())
    })?;
    csv.flush()?;
    Ok(rows)
}

/// The type of each column of a pair's row without its group, in order.
pub(super) fn pair_cell_types() -> Vec<Cell<'static>> {
    static EMPTY: std::sync::LazyLock<PositionStats> =
        std::sync::LazyLock::new(PositionStats::default);
    pair_row(0, 1, &EMPTY)
}

/// The columns of a pairs' CSV that merging reads: the sums.
#[derive(Deserialize)]
struct PairSumsRow {
    #[serde(default)]
    group: String,
    white_scharnagl: u64,
    black_scharnagl: u64,
    games: u64,
    white_wins: u64,
    draws: u64,
    black_wins: u64,
    unfinished: u64,
    white_elo_count: u64,
    white_elo_sum: u64,
    black_elo_count: u64,
    black_elo_sum: u64,
    both_rated: u64,
    expected_white_e9: u64,
    elo_games: u64,
    elo_points_x2: u64,
    elo_expected_e9: u64,
    elo_variance_e9: u64,
}

/// The columns [`PairSumsRow`] reads, which a pairs' CSV must have.
const PAIR_SUMS: [&str; 17] = [
    "white_scharnagl",
    "black_scharnagl",
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
];

/// Whether a CSV header (its first line) is that of a pairs' CSV.
pub fn is_pairs_header(line: &str) -> bool {
    line.split(',')
        .any(|name| name.trim_end() == PAIR_COLUMNS[0])
}

/// Reads a pairs' CSV written by [`write_pairs_csv`] into `pairs` (a
/// table of groups named by [`pair_key`]), adding to what it holds, and
/// every row into `total`, which sums all CSVs read: when it holds, so
/// does every sum of some of the rows. Returns whether the CSV had a
/// `group` column.
///
/// # Errors
///
/// [`ReadCsvError`] when the CSV is unreadable, lacks a column that
/// merging needs, has a cell that is not its column's number, a pair that
/// is no Double FRC pair, rows out of the order [`write_pairs_csv`]
/// writes (a pair twice), or sums too large to hold; an error writing a
/// run, as [`ReadCsvError::Csv`].
pub fn read_pairs_csv(
    input: impl Read,
    pairs: &mut BoundedTable,
    total: &mut PositionStats,
) -> Result<bool, ReadCsvError> {
    let mut csv = super::csv::reader(input);
    let header = csv.headers()?.clone();
    let has = |name: &str| header.iter().any(|h| h == name);
    if let Some(missing) = PAIR_SUMS.iter().find(|name| !has(name)) {
        return Err(ReadCsvError::MissingColumn(missing));
    }
    let grouped = has("group");
    let mut last: Option<(String, u16)> = None;
    for record in csv.records() {
        let record = record?;
        let line = record.position().map_or(0, |p| p.line());
        let row: PairSumsRow = record.deserialize(Some(&header)).map_err(|err| {
            let column = match err.kind() {
                csv::ErrorKind::Deserialize { err, .. } => err
                    .field()
                    .and_then(|field| header.get(field as usize))
                    .map(|name| (name.to_string(), err.kind().to_string())),
                _ => None,
            };
            match column {
                Some((column, message)) => ReadCsvError::BadCell {
                    line,
                    column,
                    message,
                },
                None => ReadCsvError::Csv(err),
            }
        })?;
        let bad = |column: &str, message: String| ReadCsvError::BadCell {
            line,
            column: column.to_string(),
            message,
        };
        let array = |id: u64, column: &str| {
            u16::try_from(id)
                .ok()
                .filter(|id| *id < BackRank::COUNT)
                .ok_or_else(|| bad(column, format!("{id} is no array's number (0 to 959)")))
        };
        let white = array(row.white_scharnagl, "white_scharnagl")?;
        let black = array(row.black_scharnagl, "black_scharnagl")?;
        if white == black {
            return Err(bad(
                "black_scharnagl",
                format!("{black}, White's array too: no Double FRC pair"),
            ));
        }
        let elo_sum = |sum: u64, column: &str| {
            i64::try_from(sum)
                .map_err(|_| bad(column, "number too large to fit in target type".to_string()))
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
            rating_bins: Default::default(),
        };
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
        if stats.games == 0 {
            return Err(bad("games", "0: a pair's row has games".to_string()));
        }
        let key = pair_key(&row.group, white);
        let after_last = last
            .as_ref()
            .is_none_or(|(last_key, last_black)| (last_key, *last_black) < (&key, black));
        if !after_last {
            return Err(ReadCsvError::OutOfOrder { line });
        }
        total.checked_merge(&stats).map_err(|column| {
            bad(
                column,
                "the sum over all CSVs is too large to hold; these CSVs cannot be merged"
                    .to_string(),
            )
        })?;
        pairs
            .add_row(&key, black, &stats)
            .map_err(|err| ReadCsvError::Csv(err.into()))?;
        last = Some((key, black));
    }
    Ok(grouped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::GameResult;

    fn facts(result: Option<GameResult>, white_elo: Option<i32>) -> GameFacts {
        GameFacts {
            result,
            white_elo,
            black_elo: Some(3000),
        }
    }

    fn rank(id: u32) -> BackRank {
        BackRank::from_scharnagl(id).expect("an id")
    }

    /// The worker's list of a batch's Double FRC games, against the
    /// batch as written: two games from different arrays (Scharnagl 0,
    /// `BBQNNRKR`, and 518, `RNBQKBNR`, either way round) and a Chess960
    /// game between them, which is no Double FRC game. What the list
    /// holds counts in the memory the batch holds in flight.
    #[test]
    fn a_batch_s_double_frc_games_are_listed_and_weighed() {
        use crate::pipeline::Footprint;
        use crate::split::GameReader;

        let game = |fen: &str, result: &str| {
            format!("[FEN \"{fen}\"]\n[Result \"{result}\"]\n\n1. e4 {result}\n\n")
        };
        let pgn = [
            game(
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
                "1-0",
            ),
            game(
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
                "1-0",
            ),
            game(
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "0-1",
            ),
        ]
        .concat();
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        let options = super::super::StatsOptions {
            dfrc: true,
            ..Default::default()
        };
        let (_, summary, pairs) = super::super::stats_batch(&batch, &options);
        assert_eq!(summary.kinds.get(crate::game::Kind::Dfrc), 2);
        assert_eq!((pairs.len(), pairs.is_empty()), (2, false));
        let listed: Vec<(u16, u16, Option<GameResult>)> = pairs
            .iter()
            .map(|(group, white, black, facts)| {
                assert_eq!(group, "");
                (white, black, facts.result)
            })
            .collect();
        assert_eq!(
            listed,
            [
                (0, 518, Some(GameResult::WhiteWins)),
                (518, 0, Some(GameResult::BlackWins))
            ]
        );
        let record = std::mem::size_of::<(u32, u16, u16, GameFacts)>();
        assert!(
            pairs.heap_bytes() >= 2 * record,
            "{} bytes for two records of {record}",
            pairs.heap_bytes()
        );

        let none = DfrcGames::default();
        assert_eq!(
            (none.len(), none.is_empty(), none.heap_bytes()),
            (0, true, 0)
        );
    }

    #[test]
    fn pair_keys_sort_by_group_then_white_and_read_back() {
        let keys = [pair_key("", 5), pair_key("", 40), pair_key("", 959)];
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        assert!(pair_key("a", 959) < pair_key("b", 0));
        assert!(pair_key("a", 959) < pair_key("a b", 0));
        for (group, white) in [("", 0), ("x", 7), ("é\0,", 959)] {
            assert_eq!(split_pair_key(&pair_key(group, white)), (group, white));
        }
    }

    /// Pairs counted with a budget so small that every game spills, then
    /// written, read back and written again: the same bytes.
    #[test]
    fn pairs_spilled_write_read_and_merge_exactly() {
        let results = [
            Some(GameResult::WhiteWins),
            Some(GameResult::Draw),
            Some(GameResult::BlackWins),
            None,
        ];
        let mut whole = DfrcTables::new(usize::MAX);
        let mut halves = [DfrcTables::new(1), DfrcTables::new(1)];
        for i in 0..400u32 {
            let mut games = DfrcGames::default();
            let (white, black) = (i * 7 % 13, 100 + i % 5);
            let game = facts(results[(i % 4) as usize], (i % 3 > 0).then_some(2000));
            games.push(
                ["x", "y,\"z\""][(i % 2) as usize],
                rank(white),
                rank(black),
                game,
            );
            whole.add_games(&games).expect("in memory");
            halves[(i / 200) as usize]
                .add_games(&games)
                .expect("writable");
        }
        let whole = whole.finish().expect("in memory");
        assert!(!whole.pairs.spilled());
        let mut expected = Vec::new();
        let rows = write_pairs_csv(&whole.pairs, true, &mut expected).expect("in memory");
        assert_eq!(
            rows,
            2 * 13 * 5,
            "every white with every black, in each group"
        );
        let mut merged = BoundedTable::new(1);
        let mut total = PositionStats::default();
        for half in halves {
            let half = half.finish().expect("merged");
            assert!(half.pairs.spilled());
            let mut csv = Vec::new();
            write_pairs_csv(&half.pairs, true, &mut csv).expect("in memory");
            assert!(read_pairs_csv(&csv[..], &mut merged, &mut total).expect("reads"));
        }
        assert_eq!(total.games, 400);
        let mut again = Vec::new();
        write_pairs_csv(&merged.finish().expect("merged"), true, &mut again).expect("in memory");
        assert_eq!(
            String::from_utf8(again).unwrap(),
            String::from_utf8(expected).unwrap()
        );
    }

    #[test]
    fn a_pair_row_out_of_order_or_of_one_array_is_refused() {
        let mut tables = DfrcTables::new(usize::MAX);
        let mut games = DfrcGames::default();
        games.push("", rank(1), rank(2), facts(Some(GameResult::Draw), None));
        games.push("", rank(3), rank(2), facts(Some(GameResult::Draw), None));
        tables.add_games(&games).expect("in memory");
        let mut csv = Vec::new();
        write_pairs_csv(&tables.finish().unwrap().pairs, false, &mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        let read = |text: String| {
            read_pairs_csv(
                text.as_bytes(),
                &mut BoundedTable::new(usize::MAX),
                &mut PositionStats::default(),
            )
        };
        let swapped = format!("{}\n{}\n{}\n", lines[0], lines[2], lines[1]);
        assert!(matches!(
            read(swapped),
            Err(ReadCsvError::OutOfOrder { line: 3 })
        ));
        let twice = format!("{}\n{}\n{}\n", lines[0], lines[1], lines[1]);
        assert!(matches!(
            read(twice),
            Err(ReadCsvError::OutOfOrder { line: 3 })
        ));
        let same = format!("{}\n{}\n", lines[0], lines[1].replacen("1,", "2,", 1));
        let error = read(same).unwrap_err().to_string();
        assert!(error.contains("no Double FRC pair"), "{error}");
        assert!(read(csv.clone()).is_ok());
    }
}
