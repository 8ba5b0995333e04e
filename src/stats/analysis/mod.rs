//! Tests across positions: the answer to "do some positions favour
//! White?" that a table of per-position scores cannot give.
//!
//! With about a thousand games per position, chance alone spreads White's
//! score by several points, so the highest raw scores are mostly luck, and
//! a test per position finds some "significant" ones among 960 by chance.
//! This module asks the question of all positions at once, and answers it
//! per position only with the multiplicity and the noise taken into
//! account:
//!
//! - `contingency`: do the results (White wins, draws, Black wins) depend
//!   on the position? Pearson's chi-square over the positions × results
//!   table;
//! - `elo`: does White score above the ratings' expectation more at some
//!   positions than at others? A z per position, and Q = Σz²;
//! - `fdr`: which positions, with Benjamini–Hochberg q-values over the z
//!   tests;
//! - `shrinkage`: how strong each position is for White, estimated with
//!   its noise: empirical-Bayes (DerSimonian–Laird) estimates;
//! - `distributions`: the tail probabilities, from statrs.
//!
//! Everything is computed from a group's exact integer sums when a table is
//! written, so a merged table gives the same numbers as one run.

mod contingency;
mod distributions;
mod elo;
mod fdr;
mod shrinkage;

use std::collections::BTreeMap;

use serde::Serialize;

pub use contingency::{ChiSquareTest, independence_test};
pub use distributions::{chi_square_upper_tail, two_sided_normal_p};
pub use elo::{EloTest, elo_test};
pub use fdr::benjamini_hochberg;
pub use shrinkage::{Shrinkage, ShrunkScore, shrink};

use super::table::Rows;

/// A position is called significant when its q-value is below this.
pub const FALSE_DISCOVERY_RATE: f64 = 0.05;

/// What the tests across positions say of one position. Every field is
/// none where it is undefined.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PositionFindings {
    /// (O − E) / n′: White's points above the Elo expectation per finished
    /// rated game (needs n′ > 0).
    pub white_score_vs_elo: Option<f64>,
    /// (O − E − n′δ) / √V (needs V > 0).
    pub z: Option<f64>,
    /// 2(1 − Φ(|z|)).
    pub p_value: Option<f64>,
    /// The Benjamini–Hochberg q-value of the p-value among the group's.
    pub q_value: Option<f64>,
    /// The empirical-Bayes estimate of White's score, with its interval
    /// (needs finished games, and a model: see [`shrink`]).
    pub shrunk: Option<ShrunkScore>,
}

/// The tests over all positions of one group: the object `--summary`
/// writes, key for key. Undefined values are none (`null`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupTests {
    /// Positions with at least one finished game.
    pub positions: u64,
    /// Their finished games.
    pub finished_games: u64,
    /// Pearson's chi-square of independence of position and result.
    pub wdl_chi2: Option<f64>,
    /// Its degrees of freedom, (positions − 1)(results seen − 1).
    pub wdl_df: Option<u64>,
    /// Its p-value (none for 0 degrees of freedom).
    pub wdl_p: Option<f64>,
    /// Positions with V > 0, which the Elo-adjusted test compares.
    pub elo_positions: u64,
    /// Their finished rated games.
    pub elo_games: u64,
    /// δ, White's points above the Elo expectation per rated game.
    pub elo_delta: Option<f64>,
    /// Q = Σz² over the `elo_positions`.
    pub elo_q: Option<f64>,
    /// `elo_positions` − 1.
    pub elo_df: Option<u64>,
    /// The upper tail of chi-square(`elo_df`) at Q.
    pub elo_p: Option<f64>,
    /// μ, the mean of the positions' true scores (random-effects model).
    pub shrink_mu: Option<f64>,
    /// τ², the variance of the positions' true scores.
    pub shrink_tau2: Option<f64>,
    /// The Scharnagl numbers whose q-value is below
    /// [`FALSE_DISCOVERY_RATE`], ascending.
    pub significant: Vec<u16>,
}

/// The tests across the positions of one group, and what they say of each.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The tests over all positions.
    pub tests: GroupTests,
    /// Per position of the rows.
    pub positions: BTreeMap<u16, PositionFindings>,
}

impl Analysis {
    /// Runs every test over the positions of one group.
    pub fn of(rows: &Rows) -> Analysis {
        let elo = elo_test(rows);
        let q_values = q_values(&elo);
        let shrinkage = shrink(rows);
        let positions = rows
            .iter()
            .map(|(id, stats)| {
                let z = elo.z.get(id);
                let findings = PositionFindings {
                    white_score_vs_elo: stats.white_score_vs_elo(),
                    z: z.map(|(z, _)| *z),
                    p_value: z.map(|(_, p)| *p),
                    q_value: q_values.get(id).copied(),
                    shrunk: shrinkage
                        .as_ref()
                        .and_then(|model| model.estimates.get(id).copied()),
                };
                (*id, findings)
            })
            .collect();
        let tests = group_tests(rows, &elo, &q_values, shrinkage.as_ref());
        Analysis { tests, positions }
    }
}

/// The Benjamini–Hochberg q-value of each position the Elo test tested.
fn q_values(elo: &EloTest) -> BTreeMap<u16, f64> {
    let p_values: Vec<f64> = elo.z.values().map(|(_, p)| *p).collect();
    elo.z
        .keys()
        .copied()
        .zip(benjamini_hochberg(&p_values))
        .collect()
}

/// The tests over all positions: the results test, run here, and what the
/// others found.
fn group_tests(
    rows: &Rows,
    elo: &EloTest,
    q_values: &BTreeMap<u16, f64>,
    shrinkage: Option<&Shrinkage>,
) -> GroupTests {
    let results: Vec<[u64; 3]> = rows
        .values()
        .map(|stats| [stats.white_wins, stats.draws, stats.black_wins])
        .collect();
    let wdl = independence_test(&results);
    let finished: Vec<u64> = rows
        .values()
        .map(|stats| stats.finished())
        .filter(|&n| n > 0)
        .collect();
    GroupTests {
        positions: finished.len() as u64,
        finished_games: finished.iter().sum(),
        wdl_chi2: wdl.map(|test| test.statistic),
        wdl_df: wdl.map(|test| test.df),
        wdl_p: wdl.and_then(|test| test.p_value),
        elo_positions: elo.positions,
        elo_games: elo.games,
        elo_delta: elo.delta,
        elo_q: elo.q,
        elo_df: elo.df,
        elo_p: elo.p_value,
        shrink_mu: shrinkage.map(|model| model.mu),
        shrink_tau2: shrinkage.map(|model| model.tau2),
        significant: q_values
            .iter()
            .filter(|(_, q)| **q < FALSE_DISCOVERY_RATE)
            .map(|(id, _)| *id)
            .collect(),
    }
}
