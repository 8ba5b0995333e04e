//! The table of counts: per group and start position, integer sums only,
//! so that tables merge exactly whatever the order (batches, files,
//! machines) and a merge of shard tables is one run over all shards.

use std::collections::BTreeMap;

use crate::BackRank;

use super::facts::{GameFacts, GameResult};
use super::rating_bins::RatingBins;

/// z for a two-sided 95% interval: Φ⁻¹(0.975), to 7 digits.
pub const Z_95: f64 = 1.959964;

/// z for a two-sided 99.8% interval: Φ⁻¹(0.999), to 7 digits.
pub const Z_998: f64 = 3.090232;

/// Scale of the summed Elo expectation: 10^9 units per point.
pub(super) const EXPECTATION_SCALE: f64 = 1e9;

/// Counts for one start position (within one group).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    /// Finished games where both ratings are integers (n′): the games of
    /// the Elo-adjusted test. Unlike [`Self::both_rated`], unfinished games
    /// are left out, since they have no points to compare.
    pub elo_games: u64,
    /// White's points in those games, doubled so that a draw counts 1 (2·O).
    pub elo_points_x2: u64,
    /// Sum over those games of White's Elo expectation p, in 10^-9 points (E).
    pub elo_expected_e9: u64,
    /// Sum over those games of p(1 − p), the variance of White's points if
    /// every game were won or lost, in 10^-9 (V). Each game adds at most
    /// 2.5·10^8, so the sum holds 7·10^10 games.
    pub elo_variance_e9: u64,
    /// The same games by result and rating difference: the sums behind
    /// the per-position tests.
    pub rating_bins: RatingBins,
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
            let expected = expectation_e9(white, black);
            self.both_rated += 1;
            self.expected_white_e9 += expected;
            if let Some(result) = game.result {
                self.elo_games += 1;
                self.elo_points_x2 += match result {
                    GameResult::WhiteWins => 2,
                    GameResult::Draw => 1,
                    GameResult::BlackWins => 0,
                };
                self.elo_expected_e9 += expected;
                self.elo_variance_e9 += variance_e9(expected);
                self.rating_bins.add(white, black, result);
            }
        }
    }

    /// Adds another table's counts for the same position.
    pub fn merge(&mut self, other: &PositionStats) {
        add_fields!(
            self,
            other,
            games,
            white_wins,
            draws,
            black_wins,
            unfinished,
            white_elo_count,
            white_elo_sum,
            black_elo_count,
            black_elo_sum,
            both_rated,
            expected_white_e9,
            elo_games,
            elo_points_x2,
            elo_expected_e9,
            elo_variance_e9,
        );
        self.rating_bins.merge(&other.rating_bins);
    }

    /// Adds another table's counts for the same position, unless a sum
    /// would not fit: then the name of its column, and these counts are
    /// left as they were.
    ///
    /// # Errors
    ///
    /// The column of the first sum that would overflow.
    pub fn checked_merge(&mut self, other: &PositionStats) -> Result<(), &'static str> {
        let mut sum = self.clone();
        macro_rules! add {
            ($($field:ident),+) => {
                $( sum.$field = sum.$field.checked_add(other.$field).ok_or(stringify!($field))?; )+
            };
        }
        add!(
            games,
            white_wins,
            draws,
            black_wins,
            unfinished,
            white_elo_count,
            white_elo_sum,
            black_elo_count,
            black_elo_sum,
            both_rated,
            expected_white_e9,
            elo_games,
            elo_points_x2,
            elo_expected_e9,
            elo_variance_e9
        );
        sum.rating_bins = self
            .rating_bins
            .checked_merge(&other.rating_bins)
            .ok_or("rating_bins")?;
        *self = sum;
        Ok(())
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

    /// The variance of one finished game's points (1, ½ or 0) about
    /// [`Self::white_score`]: (W(1 − s)² + D(½ − s)² + L·s²) / n. None
    /// without finished games.
    pub fn white_score_variance(&self) -> Option<f64> {
        let mean = self.white_score()?;
        let (w, d, l) = (
            self.white_wins as f64,
            self.draws as f64,
            self.black_wins as f64,
        );
        let sum = w * (1.0 - mean).powi(2) + d * (0.5 - mean).powi(2) + l * mean.powi(2);
        Some(sum / self.finished() as f64)
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

    /// White's points above the Elo expectation over the finished rated
    /// games, O − E, exactly, in 10^-9 points.
    pub fn elo_excess_e9(&self) -> i128 {
        let points_e9 = i128::from(self.elo_points_x2) * (EXPECTATION_SCALE as i128 / 2);
        points_e9 - i128::from(self.elo_expected_e9)
    }

    /// (O − E) / n′: White's points above the Elo expectation per finished
    /// rated game.
    pub fn white_score_vs_elo(&self) -> Option<f64> {
        (self.elo_games > 0)
            .then(|| self.elo_excess_e9() as f64 / EXPECTATION_SCALE / self.elo_games as f64)
    }

    /// V = Σ p(1 − p) over the finished rated games, in points².
    pub fn elo_variance(&self) -> f64 {
        self.elo_variance_e9 as f64 / EXPECTATION_SCALE
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
/// Ratings are [`super::facts::parse_elo`]'s, so the difference cannot
/// overflow.
fn expectation_e9(white: i32, black: i32) -> u64 {
    let expected = 1.0 / (1.0 + 10f64.powf(f64::from(black - white) / 400.0));
    (expected * EXPECTATION_SCALE).round() as u64
}

/// p(1 − p) for an expectation p given in 10^-9 points, in 10^-9, rounded
/// to the nearest unit: integer arithmetic on the rounded expectation, so
/// the sum is as exact as [`expectation_e9`]'s.
fn variance_e9(expected_e9: u64) -> u64 {
    const SCALE: u64 = EXPECTATION_SCALE as u64;
    let expected = expected_e9.min(SCALE);
    (expected * (SCALE - expected) + SCALE / 2) / SCALE
}

/// The rows of one group, by Scharnagl number.
pub type Rows = BTreeMap<u16, PositionStats>;

/// A sum too large for its column, met by [`StatsTable::checked_merge`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeOverflow {
    /// The group (empty without grouping).
    pub group: String,
    /// The position's Scharnagl number.
    pub scharnagl: u16,
    /// The column whose sum does not fit.
    pub column: &'static str,
}

impl std::fmt::Display for MergeOverflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "position {}", self.scharnagl)?;
        if !self.group.is_empty() {
            write!(f, " of group {:?}", self.group)?;
        }
        write!(
            f,
            ": the sum of `{}` is too large to hold; these CSVs cannot be merged",
            self.column
        )
    }
}

impl std::error::Error for MergeOverflow {}

/// The rows of one group as a worker counts a batch's games into them:
/// each position's row found by its Scharnagl number at once. A batch
/// holds a few games a position at most, so a search through a tree of
/// rows for each game, and an insertion for each new row, cost more than
/// the counting itself; the tree is built once, from the sorted rows.
#[derive(Debug)]
pub(super) struct RowsBuilder {
    /// Where each position's row is in `rows`; [`RowsBuilder::NONE`] for
    /// a position without one yet.
    slots: Box<[u16; 960]>,
    rows: Vec<(u16, PositionStats)>,
}

impl RowsBuilder {
    const NONE: u16 = u16::MAX;

    pub(super) fn new() -> RowsBuilder {
        RowsBuilder {
            slots: Box::new([RowsBuilder::NONE; 960]),
            rows: Vec::new(),
        }
    }

    /// Counts one game under its position.
    pub(super) fn add(&mut self, position: BackRank, game: &GameFacts) {
        let id = position.scharnagl();
        let slot = &mut self.slots[usize::from(id)];
        if *slot == RowsBuilder::NONE {
            *slot = u16::try_from(self.rows.len()).expect("at most 960 rows");
            self.rows.push((id, PositionStats::default()));
        }
        self.rows[usize::from(*slot)].1.add(game);
    }

    /// The rows counted, `None` when no game was.
    pub(super) fn finish(mut self) -> Option<Rows> {
        if self.rows.is_empty() {
            return None;
        }
        self.rows.sort_unstable_by_key(|(id, _)| *id);
        Some(self.rows.into_iter().collect())
    }
}

/// Rows keyed by group (empty without grouping) and Scharnagl number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatsTable {
    groups: BTreeMap<String, Rows>,
}

impl StatsTable {
    /// Counts one game under a group and position.
    pub fn add(&mut self, group: &str, position: BackRank, game: &GameFacts) {
        self.rows_of(group)
            .entry(position.scharnagl())
            .or_default()
            .add(game);
    }

    /// A table of one group's rows.
    pub(super) fn of_group(group: &str, rows: Rows) -> StatsTable {
        StatsTable {
            groups: BTreeMap::from([(group.to_string(), rows)]),
        }
    }

    /// The rows of a group, made when it has none yet.
    pub(super) fn rows_of(&mut self, group: &str) -> &mut Rows {
        // Looked up by reference first: most games fall into a group
        // already seen, which then costs no allocation.
        if !self.groups.contains_key(group) {
            self.groups.insert(group.to_string(), Rows::new());
        }
        self.groups.get_mut(group).expect("inserted above")
    }

    /// The rows of a group, if it has any.
    pub(super) fn rows_in(&self, group: &str) -> Option<&Rows> {
        self.groups.get(group)
    }

    /// The rows of a group, if it has any, to change.
    pub(super) fn rows_in_mut(&mut self, group: &str) -> Option<&mut Rows> {
        self.groups.get_mut(group)
    }

    /// Whether no game is counted.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Adds every row of another table.
    pub fn merge(&mut self, other: &StatsTable) {
        for (group, rows) in &other.groups {
            let mine = self.rows_of(group);
            for (id, stats) in rows {
                mine.entry(*id).or_default().merge(stats);
            }
        }
    }

    /// Adds another table's counts to these, as [`StatsTable::merge`],
    /// unless a sum would not fit in its column.
    ///
    /// # Errors
    ///
    /// [`MergeOverflow`]: the group, position and column of the first sum
    /// that would overflow (the rows before it are merged).
    pub fn checked_merge(&mut self, other: &StatsTable) -> Result<(), MergeOverflow> {
        for (group, rows) in &other.groups {
            let mine = self.rows_of(group);
            for (id, stats) in rows {
                mine.entry(*id)
                    .or_default()
                    .checked_merge(stats)
                    .map_err(|column| MergeOverflow {
                        group: group.clone(),
                        scharnagl: *id,
                        column,
                    })?;
            }
        }
        Ok(())
    }

    /// The rows, sorted by group, then Scharnagl number.
    pub fn rows(&self) -> impl Iterator<Item = (&str, u16, &PositionStats)> {
        self.groups.iter().flat_map(|(group, rows)| {
            rows.iter()
                .map(move |(id, stats)| (group.as_str(), *id, stats))
        })
    }

    /// The groups, sorted, with their rows.
    pub fn groups(&self) -> impl Iterator<Item = (&str, &Rows)> {
        self.groups
            .iter()
            .map(|(group, rows)| (group.as_str(), rows))
    }

    /// The counts of one position in one group (the empty group without grouping).
    pub fn get(&self, group: &str, scharnagl: u16) -> Option<&PositionStats> {
        self.groups.get(group)?.get(&scharnagl)
    }

    /// The rows of all groups added up per position: the table as it would
    /// be without grouping.
    pub fn merged_positions(&self) -> Rows {
        let mut merged = Rows::new();
        for (_group, scharnagl, stats) in self.rows() {
            merged.entry(scharnagl).or_default().merge(stats);
        }
        merged
    }

    /// [`Self::total`], unless a sum would not fit in its column: then the
    /// column's name. When the total fits, so does every sum of some of the
    /// rows ([`Self::merged_positions`]), the sums being non-negative.
    ///
    /// # Errors
    ///
    /// The column of the first sum that would overflow.
    pub fn checked_total(&self) -> Result<PositionStats, &'static str> {
        let mut total = PositionStats::default();
        for (_, _, stats) in self.rows() {
            total.checked_merge(stats)?;
        }
        Ok(total)
    }

    /// All games of all rows together.
    pub fn total(&self) -> PositionStats {
        let mut total = PositionStats::default();
        for (_, _, stats) in self.rows() {
            total.merge(stats);
        }
        total
    }
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

    #[test]
    fn variance_is_p_times_one_minus_p() {
        assert_eq!(variance_e9(500_000_000), 250_000_000);
        assert_eq!(variance_e9(0), 0);
        assert_eq!(variance_e9(1_000_000_000), 0);
        // 1 / (1 + 10^-0.5) = 0.7597469266..., rounded 759_746_927; then
        // 759_746_927 * 240_253_073 / 10^9 = 182_531_534.3, rounded.
        let p = expectation_e9(2200, 2000);
        assert_eq!(p, 759_746_927);
        assert_eq!(variance_e9(p), 182_531_534);
    }

    #[test]
    fn only_finished_rated_games_enter_the_elo_sums() {
        let game = |result, white_elo, black_elo| GameFacts {
            result,
            white_elo,
            black_elo,
        };
        let mut stats = PositionStats::default();
        stats.add(&game(Some(GameResult::WhiteWins), Some(2200), Some(2000)));
        stats.add(&game(Some(GameResult::Draw), Some(2000), Some(2000)));
        stats.add(&game(None, Some(2300), Some(2000)));
        stats.add(&game(Some(GameResult::BlackWins), None, Some(2000)));
        assert_eq!((stats.both_rated, stats.elo_games), (3, 2));
        assert_eq!(stats.elo_points_x2, 3);
        assert_eq!(stats.elo_expected_e9, 759_746_927 + 500_000_000);
        assert_eq!(stats.elo_variance_e9, 182_531_534 + 250_000_000);
        // O - E = 1.5 - 1.259746927.
        assert_eq!(stats.elo_excess_e9(), 240_253_073);
        let per_game = stats.white_score_vs_elo().expect("two rated games");
        assert!((per_game - 0.120_126_536_5).abs() < 1e-12, "{per_game}");
    }

    #[test]
    fn tables_merge_whatever_the_order() {
        let game = |result| GameFacts {
            result,
            white_elo: Some(2000),
            black_elo: None,
        };
        let zero = BackRank::from_scharnagl(0).unwrap();
        let mut a = StatsTable::default();
        a.add("x", zero, &game(Some(GameResult::WhiteWins)));
        a.add("", BackRank::STANDARD, &game(None));
        let mut b = StatsTable::default();
        b.add("x", zero, &game(Some(GameResult::Draw)));
        let (mut ab, mut ba) = (a.clone(), b.clone());
        ab.merge(&b);
        ba.merge(&a);
        assert_eq!(ab, ba);
        let x0 = ab.get("x", 0).expect("a row");
        assert_eq!(
            (x0.games, x0.white_wins, x0.draws, x0.white_elo_sum),
            (2, 1, 1, 4000)
        );
        assert_eq!(ab.rows().count(), 2);
        assert_eq!(ab.total().games, 3);
    }

    /// A batch counted by array of positions holds what the same games
    /// added one by one to a table hold, in any order of positions.
    #[test]
    fn rows_built_by_array_equal_rows_added_one_by_one() {
        let mut builder = RowsBuilder::new();
        assert_eq!(RowsBuilder::new().finish(), None);
        let mut table = StatsTable::default();
        // Positions visited out of order and again, 0 and 959 included.
        for (k, id) in [959u32, 0, 518, 0, 7, 959, 518, 518, 300]
            .into_iter()
            .enumerate()
        {
            let game = GameFacts {
                result: [
                    Some(GameResult::WhiteWins),
                    Some(GameResult::Draw),
                    None,
                    Some(GameResult::BlackWins),
                ][k % 4],
                white_elo: Some(1500 + 37 * k as i32),
                black_elo: (k % 3 != 0).then_some(1900 - 11 * k as i32),
            };
            let position = BackRank::from_scharnagl(id).unwrap();
            builder.add(position, &game);
            table.add("", position, &game);
        }
        let rows = builder.finish().expect("games were counted");
        assert_eq!(
            rows.keys().copied().collect::<Vec<_>>(),
            [0, 7, 300, 518, 959]
        );
        assert_eq!(StatsTable::of_group("", rows), table);
    }
}
