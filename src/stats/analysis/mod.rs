//! Tests across positions: the answer to "do some positions favour
//! White?" that a table of per-position scores cannot give.
//!
//! With about a thousand games per position, chance alone spreads White's
//! score by several points, so the highest raw scores are mostly luck, and
//! a test per position finds some "significant" ones among 960 by chance.
//! This module asks the question of all positions at once, and answers it
//! per position only with the multiplicity, the ratings and the noise
//! taken into account:
//!
//! - `model`: what a game's result is when the position does not matter:
//!   Davidson's model with White's advantage and the ratings' slope fitted
//!   to the group;
//! - `elo`: per position, an exact test of its decisive games given its
//!   draws (`poisson_binomial`); over positions, Q = Σz² against
//!   chi-square or a parametric bootstrap (`montecarlo`);
//! - `contingency`: do the results depend on the position, ratings
//!   aside? Pearson's chi-square, Monte-Carlo when the table is sparse;
//! - `fdr`: which positions, with Benjamini–Hochberg q-values over every
//!   group's tests together;
//! - `shrinkage`: how strong each position is for White, estimated with
//!   its noise (a normal hierarchical model), and how much positions
//!   differ (Q, I², τ²);
//! - `interval`: a draw-aware interval for each raw score;
//! - `power`: what the archive could have found;
//! - `distributions`: the tail probabilities, from statrs.
//!
//! Everything is computed from a group's exact integer sums when a table is
//! written, so a merged table gives the same numbers as one run.

mod contingency;
mod distributions;
mod elo;
mod fdr;
mod interval;
mod model;
mod montecarlo;
mod poisson_binomial;
mod power;
mod shrinkage;

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

pub use contingency::{ChiSquareTest, independence_test};
pub use distributions::{chi_square_upper_tail, two_sided_normal_p};
pub use elo::{EloTest, PositionTest, Reference, VARIANCE_TOLERANCE, elo_test};
pub use fdr::{benjamini_hochberg, benjamini_hochberg_in_place};
pub use interval::score_interval;
pub use model::{
    CONTAMINATION_EVIDENCE, Davidson, DecisiveFit, LOGISTIC_PER_POINT, NullModel, Pooled,
    firth_logistic, fit_decisive,
};
pub(crate) use montecarlo::PooledSum;
pub use montecarlo::REPLICATES;
pub use poisson_binomial::{EXACT_MAX, central_p};
pub use power::{detectable_shift, detectable_tau, heterogeneity_power};
pub use shrinkage::{Heterogeneity, Shrinkage, ShrunkScore, Unit, heterogeneity, shrink};

use super::table::{Rows, StatsTable};
use model::unrated_counts;

/// A position is called significant when its q-value is below this.
pub const FALSE_DISCOVERY_RATE: f64 = 0.05;

/// What the tests across positions say of one position. Every field is
/// none where it is undefined.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PositionFindings {
    /// (O − E) / n′: White's points above the Elo formula's expectation
    /// per finished rated game (needs n′ > 0).
    pub white_score_vs_elo: Option<f64>,
    /// The rating-adjusted test of the position's decisive games.
    pub test: Option<PositionTest>,
    /// The Benjamini–Hochberg q-value of its p-value, among every tested
    /// position of every group.
    pub q_value: Option<f64>,
    /// The score the null model expects from the ratings of its games.
    pub expected_score: Option<f64>,
    /// A 95% interval for its raw score that counts draws.
    pub score_interval: Option<(f64, f64)>,
    /// The shrunk estimate of White's score, with its interval.
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
    /// `chi-square` or `monte-carlo`: how `wdl_p` was found.
    pub wdl_reference: Option<&'static str>,
    /// Positions with a rating-adjusted test.
    pub elo_positions: u64,
    /// Their decisive games.
    pub elo_games: u64,
    /// White's points above the Elo formula per finished rated game.
    pub elo_delta: Option<f64>,
    /// Q = Σz² over the `elo_positions`.
    pub elo_q: Option<f64>,
    /// `elo_positions` less the parameters fitted.
    pub elo_df: Option<u64>,
    /// The p-value of Q.
    pub elo_p: Option<f64>,
    /// `chi-square` or `monte-carlo`: how `elo_p` was found.
    pub elo_reference: Option<&'static str>,
    /// β: how much the ratings predict results (1: as the Elo formula
    /// says; 0: not at all).
    pub rating_slope: Option<f64>,
    /// White's advantage at equal ratings among decisive games, α, in
    /// Elo points (400α / ln 10).
    pub white_advantage_elo: Option<f64>,
    /// ε: half the share of decisive rated games that went either way
    /// whatever the ratings (crashes, forfeits, blunders).
    pub random_results: Option<f64>,
    /// The posterior mean of μ: White's score above the model's
    /// expectation, averaged over positions.
    pub shrink_mu: Option<f64>,
    /// The posterior mean of τ²: the variance of the positions' effects
    /// on White's score, ratings aside.
    pub shrink_tau2: Option<f64>,
    /// Cochran's Q of the positions' scores above the model's expectation.
    pub heterogeneity_q: Option<f64>,
    /// Its degrees of freedom.
    pub heterogeneity_df: Option<u64>,
    /// I² = (Q − df)/Q, at least 0.
    pub i2: Option<f64>,
    /// The DerSimonian–Laird τ².
    pub tau2: Option<f64>,
    /// The Q-profile 95% interval for τ².
    pub tau2_low: Option<f64>,
    /// Its upper end.
    pub tau2_high: Option<f64>,
    /// The median number of finished games of the positions shrunk.
    pub median_games: Option<f64>,
    /// The score shift a position with the median variance would show at
    /// q < 0.05 with probability 0.8.
    pub detectable_shift: Option<f64>,
    /// The spread of true scores Cochran's Q detects with probability 0.8.
    pub detectable_tau: Option<f64>,
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
    /// The rating-adjusted tests, in full.
    pub elo: EloTest,
    /// The results test, in full.
    pub wdl: Option<ChiSquareTest>,
}

impl Analysis {
    /// Runs every test over the positions of one group, `group` naming
    /// its random streams. The q-values are the group's own; see
    /// [`TableAnalysis`] for q-values over all groups.
    pub fn of(rows: &Rows, group: &str) -> Analysis {
        let elo = elo_test(rows, group);
        let results: Vec<[u64; 3]> = rows
            .values()
            .map(|stats| [stats.white_wins, stats.draws, stats.black_wins])
            .collect();
        let wdl = independence_test(&results, group);
        let units = units(rows, &elo.model);
        let shrinkage = shrink(&units);
        let group_draw_rate = {
            let total: u64 = rows.values().map(|s| s.finished()).sum();
            let draws: u64 = rows.values().map(|s| s.draws).sum();
            if total > 0 {
                draws as f64 / total as f64
            } else {
                0.0
            }
        };
        // Each position's interval on its own (in parallel: a bisection
        // each).
        let positions = rows
            .par_iter()
            .map(|(id, stats)| {
                let findings = PositionFindings {
                    white_score_vs_elo: stats.white_score_vs_elo(),
                    test: elo.tests.get(id).copied(),
                    q_value: None,
                    expected_score: units.get(id).map(|u| u.expected),
                    score_interval: score_interval(
                        stats.white_wins,
                        stats.draws,
                        stats.black_wins,
                        group_draw_rate,
                    ),
                    shrunk: shrinkage
                        .as_ref()
                        .and_then(|model| model.estimates.get(id).copied()),
                };
                (*id, findings)
            })
            .collect();
        let tests = group_tests(rows, &elo, wdl.as_ref(), &units, shrinkage.as_ref());
        let mut analysis = Analysis {
            tests,
            positions,
            elo,
            wdl,
        };
        let p_values = analysis.p_values();
        let q_values = benjamini_hochberg(&p_values.iter().map(|(_, p)| *p).collect::<Vec<_>>());
        analysis.set_q_values(p_values.iter().map(|(id, _)| *id).zip(q_values));
        analysis
    }

    /// The p-values of the tested positions, by Scharnagl number.
    pub(crate) fn p_values(&self) -> Vec<(u16, f64)> {
        self.elo
            .tests
            .iter()
            .map(|(id, test)| (*id, test.p_value))
            .collect()
    }

    /// Sets the q-values of the tested positions (and so which are
    /// significant), by Scharnagl number.
    pub(crate) fn set_q_values(&mut self, q_values: impl Iterator<Item = (u16, f64)>) {
        self.tests.significant.clear();
        for (id, q) in q_values {
            if let Some(findings) = self.positions.get_mut(&id) {
                findings.q_value = Some(q);
            }
            if q < FALSE_DISCOVERY_RATE {
                self.tests.significant.push(id);
            }
        }
    }
}

/// Per position with finished games that the model covers: ê, s − ê and
/// the variance of s, from the model's expected points and their variance
/// for each game.
fn units(rows: &Rows, model: &NullModel) -> BTreeMap<u16, Unit> {
    rows.iter()
        .filter_map(|(id, stats)| {
            let n = stats.finished();
            if n == 0 {
                return None;
            }
            let mut cells: Vec<(Option<i16>, u64)> = stats
                .rating_bins
                .iter()
                .map(|(bin, c)| (Some(bin), c.iter().sum()))
                .collect();
            let unrated: u64 = unrated_counts(stats).iter().sum();
            if unrated > 0 {
                cells.push((None, unrated));
            }
            let (mut mean, mut variance) = (0.0, 0.0);
            for (bin, games) in cells {
                let (category, x) = model.category(bin)?;
                let (m, v) = category.score_moments(x);
                mean += games as f64 * m;
                variance += games as f64 * v;
            }
            let n = n as f64;
            let score = stats.white_score()?;
            let unit = Unit {
                expected: mean / n,
                residual: score - mean / n,
                variance: variance / (n * n),
            };
            (unit.variance > 0.0).then_some((*id, unit))
        })
        .collect()
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    })
}

/// The tests over all positions.
fn group_tests(
    rows: &Rows,
    elo: &EloTest,
    wdl: Option<&ChiSquareTest>,
    units: &BTreeMap<u16, Unit>,
    shrinkage: Option<&Shrinkage>,
) -> GroupTests {
    let finished: Vec<u64> = rows
        .values()
        .map(|stats| stats.finished())
        .filter(|&n| n > 0)
        .collect();
    let heterogeneity = shrinkage.and_then(|s| s.heterogeneity);
    let variances: Vec<f64> = units.values().map(|u| u.variance).collect();
    let games: Vec<f64> = units.keys().map(|id| rows[id].finished() as f64).collect();
    GroupTests {
        positions: finished.len() as u64,
        finished_games: finished.iter().sum(),
        wdl_chi2: wdl.map(|test| test.statistic),
        wdl_df: wdl.map(|test| test.df),
        wdl_p: wdl.and_then(|test| test.p_value),
        wdl_reference: wdl.and_then(|test| test.reference).map(Reference::name),
        elo_positions: elo.positions,
        elo_games: elo.games,
        elo_delta: elo.delta,
        elo_q: elo.q,
        elo_df: elo.df,
        elo_p: elo.p_value,
        elo_reference: elo.reference.map(Reference::name),
        rating_slope: elo.model.rated.filter(|m| m.nu.is_finite()).map(|m| m.beta),
        white_advantage_elo: elo
            .model
            .rated
            .filter(|m| m.nu.is_finite())
            .map(|m| m.alpha / LOGISTIC_PER_POINT),
        random_results: elo
            .model
            .rated
            .filter(|m| m.nu.is_finite())
            .map(|m| m.epsilon),
        shrink_mu: shrinkage.map(|s| s.mu),
        shrink_tau2: shrinkage.map(|s| s.tau2),
        heterogeneity_q: heterogeneity.map(|h| h.q),
        heterogeneity_df: heterogeneity.map(|h| h.df),
        i2: heterogeneity.map(|h| h.i2),
        tau2: heterogeneity.map(|h| h.tau2),
        tau2_low: heterogeneity.map(|h| h.tau2_low),
        tau2_high: heterogeneity.map(|h| h.tau2_high),
        median_games: median(games),
        detectable_shift: median(variances.clone())
            .and_then(|v| detectable_shift(v, elo.positions.max(1))),
        detectable_tau: detectable_tau(&variances),
        significant: Vec::new(),
    }
}

/// The pooled test of a position effect within groups.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WithinGroups {
    /// Groups with a rating-adjusted test over positions.
    pub elo_groups: u64,
    /// Σ of their Q.
    pub elo_q: Option<f64>,
    /// Σ of their degrees of freedom.
    pub elo_df: Option<u64>,
    /// The p-value of the sum.
    pub elo_p: Option<f64>,
    /// How it was found.
    pub elo_reference: Option<&'static str>,
    /// Groups with a results test.
    pub wdl_groups: u64,
    /// Σ of their chi-square statistics.
    pub wdl_chi2: Option<f64>,
    /// Σ of their degrees of freedom.
    pub wdl_df: Option<u64>,
    /// The p-value of the sum.
    pub wdl_p: Option<f64>,
    /// How it was found.
    pub wdl_reference: Option<&'static str>,
    /// The positions tested in all groups: the family of the q-values.
    pub tested_positions: u64,
    /// The (group, Scharnagl number) pairs with q < 0.05, q-values over
    /// every group's tests together.
    pub significant: u64,
}

/// Every group's analysis, with q-values over all groups' tests together.
#[derive(Clone, Debug, PartialEq)]
pub struct TableAnalysis<'a> {
    /// The table analysed.
    pub table: &'a StatsTable,
    /// By group, in the table's order.
    pub groups: Vec<(&'a str, Analysis)>,
    /// The tests pooled over groups.
    pub within: WithinGroups,
}

impl<'a> TableAnalysis<'a> {
    /// Analyses every group of `table`, then adjusts the p-values of all
    /// groups' positions together (Benjamini–Hochberg over the whole
    /// family), so that a q-value means the same with one group or many.
    pub fn of(table: &'a StatsTable) -> TableAnalysis<'a> {
        let mut groups: Vec<(&str, Analysis)> = table
            .groups()
            .map(|(group, rows)| (group, Analysis::of(rows, group)))
            .collect();
        let family: Vec<(usize, u16, f64)> = groups
            .iter()
            .enumerate()
            .flat_map(|(g, (_, analysis))| {
                analysis
                    .p_values()
                    .into_iter()
                    .map(move |(id, p)| (g, id, p))
            })
            .collect();
        let q_values = benjamini_hochberg(&family.iter().map(|f| f.2).collect::<Vec<_>>());
        let mut per_group: Vec<Vec<(u16, f64)>> = vec![Vec::new(); groups.len()];
        for ((g, id, _), q) in family.iter().zip(&q_values) {
            per_group[*g].push((*id, *q));
        }
        for ((_, analysis), q) in groups.iter_mut().zip(per_group) {
            analysis.set_q_values(q.into_iter());
        }
        let elo: Vec<&EloTest> = groups.iter().map(|(_, a)| &a.elo).collect();
        let wdl: Vec<&ChiSquareTest> = groups.iter().filter_map(|(_, a)| a.wdl.as_ref()).collect();
        let elo_pooled = elo::pooled(&elo);
        let wdl_pooled = contingency::pooled(&wdl);
        let within = WithinGroups {
            elo_groups: elo.iter().filter(|t| t.df.is_some()).count() as u64,
            elo_q: elo_pooled.map(|p| p.0),
            elo_df: elo_pooled.map(|p| p.1),
            elo_p: elo_pooled.map(|p| p.2),
            elo_reference: elo_pooled.map(|p| p.3.name()),
            wdl_groups: wdl.iter().filter(|t| t.reference.is_some()).count() as u64,
            wdl_chi2: wdl_pooled.map(|p| p.0),
            wdl_df: wdl_pooled.map(|p| p.1),
            wdl_p: wdl_pooled.map(|p| p.2),
            wdl_reference: wdl_pooled.map(|p| p.3.name()),
            tested_positions: family.len() as u64,
            significant: q_values
                .iter()
                .filter(|q| **q < FALSE_DISCOVERY_RATE)
                .count() as u64,
        };
        TableAnalysis {
            table,
            groups,
            within,
        }
    }
}
