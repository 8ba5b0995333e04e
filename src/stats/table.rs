//! The table of counts: per group and start position, integer sums only,
//! so that tables merge exactly whatever the order (batches, files,
//! machines) and a merge of shard tables is one run over all shards.

use std::collections::BTreeMap;

use crate::BackRank;

use super::facts::{GameFacts, GameResult};

/// z for a two-sided 95% interval.
pub const Z_95: f64 = 1.959964;

/// Scale of the summed Elo expectation: 10^9 units per point.
pub(super) const EXPECTATION_SCALE: f64 = 1e9;

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
        );
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
/// Ratings are [`super::facts::parse_elo`]'s, so the difference cannot
/// overflow.
fn expectation_e9(white: i32, black: i32) -> u64 {
    let expected = 1.0 / (1.0 + 10f64.powf(f64::from(black - white) / 400.0));
    (expected * EXPECTATION_SCALE).round() as u64
}

/// The rows of one group, by Scharnagl number.
pub(super) type Rows = BTreeMap<u16, PositionStats>;

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

    /// The rows of a group, made when it has none yet.
    pub(super) fn rows_of(&mut self, group: &str) -> &mut Rows {
        // Looked up by reference first: most games fall into a group
        // already seen, which then costs no allocation.
        if !self.groups.contains_key(group) {
            self.groups.insert(group.to_string(), Rows::new());
        }
        self.groups.get_mut(group).expect("inserted above")
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
}
