//! The Elo-adjusted test: does White score above the ratings at some
//! positions more than at others? A position's raw score mixes what the
//! position gives White with who played it; comparing White's points with
//! the Elo expectation of each game takes the players out, and comparing
//! every position with White's advantage over all positions (δ) takes out
//! what the first move gives White everywhere.
//!
//! Per position, over its finished games with both ratings: n′ games, O
//! points, expectation E = Σp and variance V = Σp(1 − p), where
//! p = 1 / (1 + 10^((BlackElo − WhiteElo)/400)). Over the positions with
//! V > 0: δ = Σ(O − E) / Σn′; per position z = (O − E − n′δ) / √V, and
//! Q = Σz², chi-square with one degree of freedom fewer than positions
//! when no position differs.
//!
//! V is the variance of White's points were every game won or lost; draws
//! make the true variance smaller, so with many draws z is too small and
//! the test errs on the cautious side.

use std::collections::BTreeMap;

use super::super::table::{EXPECTATION_SCALE, Rows};
use super::distributions::{chi_square_upper_tail, two_sided_normal_p};

/// The Elo-adjusted test over the positions of one group.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EloTest {
    /// The positions with V > 0, which the test compares.
    pub positions: u64,
    /// Their finished rated games, Σn′.
    pub games: u64,
    /// δ: White's points above the Elo expectation per rated game, over
    /// all those positions; none without them.
    pub delta: Option<f64>,
    /// Q = Σz² over those positions; none without them.
    pub q: Option<f64>,
    /// Positions − 1; none without positions.
    pub df: Option<u64>,
    /// The upper tail of chi-square(df) at Q; none for df = 0.
    pub p_value: Option<f64>,
    /// Per position with V > 0: z and its two-sided p-value.
    pub z: BTreeMap<u16, (f64, f64)>,
}

/// Runs the Elo-adjusted test over `rows`. Every sum is exact up to the
/// divisions, which are done once, in the order of Scharnagl numbers, so
/// that the same rows always give the same bits.
pub fn elo_test(rows: &Rows) -> EloTest {
    let tested: Vec<(u16, &_)> = rows
        .iter()
        .filter(|(_, stats)| stats.elo_variance_e9 > 0)
        .map(|(id, stats)| (*id, stats))
        .collect();
    let games: u64 = tested.iter().map(|(_, stats)| stats.elo_games).sum();
    let mut test = EloTest {
        positions: tested.len() as u64,
        games,
        ..EloTest::default()
    };
    if tested.is_empty() {
        return test;
    }
    let excess_e9: i128 = tested.iter().map(|(_, stats)| stats.elo_excess_e9()).sum();
    let delta = excess_e9 as f64 / EXPECTATION_SCALE / games as f64;
    let mut q = 0.0;
    for (id, stats) in tested {
        let excess = stats.elo_excess_e9() as f64 / EXPECTATION_SCALE;
        let z = (excess - stats.elo_games as f64 * delta) / stats.elo_variance().sqrt();
        q += z * z;
        test.z.insert(id, (z, two_sided_normal_p(z)));
    }
    let df = test.positions - 1;
    test.delta = Some(delta);
    test.q = Some(q);
    test.df = Some(df);
    test.p_value = chi_square_upper_tail(q, df);
    test
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BackRank;
    use crate::stats::{GameFacts, GameResult, StatsTable};

    /// (position, result, WhiteElo, BlackElo): `ELO_GAMES` of
    /// `testdata/stats/reference.py`.
    const GAMES: [(u32, GameResult, i32, i32); 12] = {
        use GameResult::{BlackWins as L, Draw as D, WhiteWins as W};
        [
            (1, W, 2500, 2400),
            (1, D, 2400, 2400),
            (1, W, 2300, 2500),
            (1, L, 2600, 2450),
            (2, L, 2500, 2400),
            (2, D, 2450, 2500),
            (2, D, 2700, 2300),
            (2, W, 2500, 2500),
            (2, L, 2350, 2400),
            (3, W, 2500, 2500),
            (3, W, 2400, 2600),
            (3, W, 2550, 2500),
        ]
    };

    fn add(table: &mut StatsTable, id: u32, result: Option<GameResult>, elo: (i32, i32)) {
        let position = BackRank::from_scharnagl(id).expect("test ids are below 960");
        let game = GameFacts {
            result,
            white_elo: Some(elo.0),
            black_elo: Some(elo.1),
        };
        table.add("", position, &game);
    }

    fn rows() -> Rows {
        let mut table = StatsTable::default();
        for (id, result, white, black) in GAMES {
            add(&mut table, id, Some(result), (white, black));
        }
        // Left out: an unfinished game, and one whose expectation rounds
        // to 0 (1 / (1 + 10^9.75)), so that its position has V = 0.
        add(&mut table, 2, None, (2500, 2000));
        add(&mut table, 4, Some(GameResult::BlackWins), (100, 4000));
        table.merged_positions()
    }

    fn close(got: f64, want: f64, tolerance: f64) {
        assert!(
            (got - want).abs() <= tolerance * want.abs().max(1e-300),
            "{got} against {want}"
        );
    }

    #[test]
    fn matches_the_scipy_reference() {
        // python3 testdata/stats/reference.py elo
        let test = elo_test(&rows());
        assert_eq!((test.positions, test.games, test.df), (3, 12, Some(2)));
        // Expectations are summed in units of 10^-9: 1e-7 is ample.
        close(test.delta.expect("δ"), 0.09986258821131573, 1e-7);
        close(test.q.expect("Q"), 4.723552798787463, 1e-7);
        close(test.p_value.expect("df 2"), 0.09425264405686898, 1e-7);
        let want = [
            (1, 0.018045373750984577, 0.9856026562754827),
            (2, -1.36983578581149, 0.17073816841141654),
            (3, 1.6872394860196545, 0.0915573116540297),
        ];
        assert_eq!(test.z.len(), 3, "position 4 has V = 0: no z");
        for (id, z, p) in want {
            let (got_z, got_p) = test.z[&id];
            close(got_z, z, 1e-6);
            close(got_p, p, 1e-6);
        }
        let rows = rows();
        close(
            rows[&1].white_score_vs_elo().expect("rated"),
            0.10407423084331102,
            1e-7,
        );
        close(
            rows[&2].white_score_vs_elo().expect("rated"),
            -0.18124593481540635,
            1e-7,
        );
        assert_eq!(rows[&4].elo_games, 1);
        assert!(rows[&4].white_score_vs_elo().expect("rated").abs() < 1e-9);
    }

    #[test]
    fn no_tested_position_is_no_test() {
        let mut table = StatsTable::default();
        add(&mut table, 9, None, (2500, 2500));
        let test = elo_test(&table.merged_positions());
        assert_eq!(test, EloTest::default());
        // One position: δ is its own excess, so z = 0, Q = 0, df = 0.
        add(&mut table, 9, Some(GameResult::WhiteWins), (2500, 2400));
        let test = elo_test(&table.merged_positions());
        assert_eq!((test.positions, test.df, test.p_value), (1, Some(0), None));
        assert!(test.q.expect("Q").abs() < 1e-20);
    }
}
