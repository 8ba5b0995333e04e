//! The rating-adjusted tests: does White do better at some positions than
//! the group's games of all positions predict for the same ratings?
//!
//! Each position is tested on its decisive games, given which of its games
//! were drawn: under the null model (see [`super::model`]) its White wins
//! are a sum of independent wins of chances p = P(White wins | decisive)
//! at each game's rating difference, a Poisson-binomial variable, whose
//! exact distribution gives the position's p-value (see
//! [`super::poisson_binomial`]). Conditioning on the draws makes the test
//! exact whatever the draw rate, which differs between events and levels
//! of play and would otherwise have to be modelled (in Davidson's model
//! the draws say nothing about White's advantage); a position that turns
//! losses into draws still shows, as a larger share of wins among its
//! decisive games. Two games between unequal players give no small
//! p-value: the chance that White loses both of a colour-reversed pair at
//! expectations 0.981 and 0.019 is 0.019.
//!
//! Over all positions, Q = Σ z², z = (W − E)/√V with E = Σp and V =
//! Σp(1 − p) per position, is Pearson's statistic for the model. When
//! every position has at least 5 expected wins and 5 expected losses
//! (Cochran's rule) and Q's exact variance under the model, Σ(2 +
//! κ₄/V²) with κ₄ = Σp(1 − p)(1 − 6p(1 − p)) the fourth cumulant of the
//! wins, is within [`VARIANCE_TOLERANCE`] of chi-square's 2 per position
//! (lopsided games give the wins heavy tails that Cochran's rule does not
//! see), Q is referred to chi-square on (positions − parameters fitted)
//! degrees of freedom; else to a parametric bootstrap:
//! [`REPLICATES`] archives simulated from the fitted model (the same
//! decisive games, their results drawn anew), the model refitted to each.

use std::collections::BTreeMap;

use rand::RngExt;
use rand_distr::{Binomial, Distribution};
use rayon::prelude::*;

use super::super::rating_bins::RatingBins;
use super::super::table::{EXPECTATION_SCALE, Rows};
use super::distributions::chi_square_upper_tail;
use super::model::{
    DecisiveFit, NullModel, Pooled, bin_logit, contaminated, firth_logistic,
    firth_logistic_from_zero, firth_logistic_maxima, fit_given_epsilon, unrated_counts,
};
use super::montecarlo::{self, PooledSum, REPLICATES};
use super::poisson_binomial::{Cell, central_p};

/// Expected wins and losses a position needs for the chi-square reference.
const COCHRAN_MINIMUM: f64 = 5.0;

/// How far the variance of Q may be from chi-square's for the chi-square
/// reference: 5%.
pub const VARIANCE_TOLERANCE: f64 = 0.05;

/// How a test's p-value over all positions was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reference {
    /// The chi-square distribution of the statistic.
    ChiSquare,
    /// [`REPLICATES`] simulated archives.
    MonteCarlo,
}

impl Reference {
    /// `chi-square` or `monte-carlo`, as the summary writes it.
    pub fn name(self) -> &'static str {
        match self {
            Reference::ChiSquare => "chi-square",
            Reference::MonteCarlo => "monte-carlo",
        }
    }
}

/// One position's rating-adjusted test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionTest {
    /// Its decisive games (rated and unrated, where the model has a fit).
    pub decisive: u64,
    /// White's wins among them.
    pub wins: u64,
    /// E = Σp: the wins the null model expects.
    pub expected: f64,
    /// V = Σp(1 − p).
    pub variance: f64,
    /// (W − E)/√V.
    pub z: f64,
    /// The exact (or saddlepoint) two-sided p-value of W.
    pub p_value: f64,
}

/// The rating-adjusted tests over the positions of one group.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EloTest {
    /// The fitted null model.
    pub model: NullModel,
    /// White's points above the Elo formula per finished rated game,
    /// Σ(O − E)/Σn′ (descriptive; none without rated games).
    pub delta: Option<f64>,
    /// The positions tested (V > 0).
    pub positions: u64,
    /// Their decisive games.
    pub games: u64,
    /// Q = Σz².
    pub q: Option<f64>,
    /// Positions tested less the parameters fitted; none when not positive.
    pub df: Option<u64>,
    /// The p-value of Q (none without degrees of freedom).
    pub p_value: Option<f64>,
    /// How it was found.
    pub reference: Option<Reference>,
    /// The simulated Q*, when the reference is [`Reference::MonteCarlo`].
    pub replicates: Vec<f64>,
    /// Per position tested.
    pub tests: BTreeMap<u16, PositionTest>,
}

/// A position's decisive games by cell: (bin or `None` for unrated,
/// decisive games, White wins).
type Decisive = Vec<(Option<i16>, u64, u64)>;

fn decisive_cells(bins: &RatingBins, unrated: [u64; 3]) -> Decisive {
    let mut cells: Decisive = bins
        .iter()
        .filter(|(_, [w, _, l])| w + l > 0)
        .map(|(bin, [w, _, l])| (Some(bin), w + l, w))
        .collect();
    if unrated[0] + unrated[2] > 0 {
        cells.push((None, unrated[0] + unrated[2], unrated[0]));
    }
    cells
}

/// P(White wins | decisive) per cell under `model`; cells the model has
/// no fit for are left out.
fn chances(model: &NullModel, cells: &Decisive) -> Vec<(Cell, u64)> {
    cells
        .iter()
        .filter_map(|&(bin, games, wins)| {
            let (category, x) = model.category(bin)?;
            let p = category.win_given_decisive(x)?;
            Some(((games, p), wins))
        })
        .collect()
}

/// Runs the tests over `rows`, with the random stream of group `group`.
pub fn elo_test(rows: &Rows, group: &str) -> EloTest {
    let pooled = Pooled::of(rows);
    let model = NullModel::fit(&pooled);
    let positions: Vec<(u16, Decisive)> = rows
        .iter()
        .map(|(id, stats)| {
            (
                *id,
                decisive_cells(&stats.rating_bins, unrated_counts(stats)),
            )
        })
        .filter(|(_, cells)| !cells.is_empty())
        .collect();
    let mut test = EloTest {
        model,
        delta: descriptive_delta(rows),
        ..EloTest::default()
    };
    let mut q = 0.0;
    let mut cochran = true;
    let mut excess_kurtosis = 0.0;
    // Each position's exact test on its own (in parallel: they are
    // independent), then summed in the positions' order.
    let tested: Vec<(u16, PositionTest, f64)> = positions
        .par_iter()
        .filter_map(|(id, cells)| {
            let chances = chances(&model, cells);
            let position = position_test(&chances)?;
            let kappa4: f64 = chances
                .iter()
                .map(|&((m, p), _)| m as f64 * p * (1.0 - p) * (1.0 - 6.0 * p * (1.0 - p)))
                .sum();
            Some((*id, position, kappa4))
        })
        .collect();
    for (id, position, kappa4) in tested {
        cochran &= position.expected >= COCHRAN_MINIMUM
            && position.decisive as f64 - position.expected >= COCHRAN_MINIMUM;
        excess_kurtosis += kappa4 / (position.variance * position.variance);
        q += position.z * position.z;
        test.games += position.decisive;
        test.tests.insert(id, position);
    }
    test.positions = test.tests.len() as u64;
    if test.positions == 0 {
        return test;
    }
    test.q = Some(q);
    let parameters = fitted_parameters(&model, &pooled);
    test.df = test.positions.checked_sub(parameters).filter(|df| *df > 0);
    let Some(df) = test.df else {
        return test;
    };
    // Var(Q)/(2k) − 1 = Σ(κ₄/V²)/(2k).
    let variance_ratio = excess_kurtosis / (2.0 * test.positions as f64);
    if cochran && variance_ratio.abs() <= VARIANCE_TOLERANCE {
        test.reference = Some(Reference::ChiSquare);
        test.p_value = chi_square_upper_tail(q, df);
    } else {
        test.replicates = bootstrap(&positions, &pooled, &model, group);
        test.reference = Some(Reference::MonteCarlo);
        test.p_value = Some(montecarlo::p_value(q, &test.replicates));
    }
    test
}

/// z and the exact p-value of one position; none when V = 0.
fn position_test(chances: &[(Cell, u64)]) -> Option<PositionTest> {
    let cells: Vec<Cell> = chances.iter().map(|(cell, _)| *cell).collect();
    let wins: u64 = chances.iter().map(|(_, w)| w).sum();
    let decisive: u64 = cells.iter().map(|(m, _)| m).sum();
    let expected: f64 = cells.iter().map(|&(m, p)| m as f64 * p).sum();
    let variance: f64 = cells.iter().map(|&(m, p)| m as f64 * p * (1.0 - p)).sum();
    (variance > 0.0).then(|| PositionTest {
        decisive,
        wins,
        expected,
        variance,
        z: (wins as f64 - expected) / variance.sqrt(),
        p_value: central_p(&cells, wins),
    })
}

/// The parameters the model fitted to decisive games: α and β for rated
/// games at two rating differences or more (as [`fit_decisive`] fits a
/// slope, whatever value β takes: a fitted 0 is a parameter too), α alone
/// at one, and α₀ for unrated ones.
///
/// [`fit_decisive`]: super::model::fit_decisive
fn fitted_parameters(model: &NullModel, pooled: &Pooled) -> u64 {
    let mut decisive_bins = pooled
        .rated
        .iter()
        .filter(|(_, [w, _, l])| w + l > 0)
        .map(|(bin, _)| *bin);
    let rated = match (model.rated, decisive_bins.next()) {
        (Some(_), Some(first)) if decisive_bins.any(|bin| bin != first) => 2,
        (Some(_), Some(_)) => 1,
        _ => 0,
    };
    let unrated = u64::from(pooled.unrated[0] + pooled.unrated[2] > 0);
    rated + unrated
}

/// Σ(O − E)/Σn′ over all finished rated games, O and E by the Elo
/// formula's expectation.
fn descriptive_delta(rows: &Rows) -> Option<f64> {
    let games: u64 = rows.values().map(|s| s.elo_games).sum();
    let excess: i128 = rows.values().map(|s| s.elo_excess_e9()).sum();
    (games > 0).then(|| excess as f64 / EXPECTATION_SCALE / games as f64)
}

/// Q* of [`REPLICATES`] archives simulated from `model`: every decisive
/// game's result drawn anew, the model refitted, Q computed again.
fn bootstrap(
    positions: &[(u16, Decisive)],
    pooled: &Pooled,
    model: &NullModel,
    group: &str,
) -> Vec<f64> {
    let mut rng = montecarlo::stream(group, "elo");
    // Every cell of every position, with its chance under the fit.
    let cells: Vec<Vec<(Option<i16>, u64, f64)>> = positions
        .iter()
        .map(|(_, cells)| {
            cells
                .iter()
                .filter_map(|&(bin, games, _)| {
                    let (category, x) = model.category(bin)?;
                    Some((bin, games, category.win_given_decisive(x)?))
                })
                .collect()
        })
        .collect();
    let bins: Vec<i16> = pooled.rated.iter().map(|(bin, _)| *bin).collect();
    let index = |bin: i16| bins.binary_search(&bin).expect("every bin is pooled");
    let decisive_per_bin: Vec<u64> = pooled.rated.iter().map(|(_, [w, _, l])| w + l).collect();
    let unrated_decisive = pooled.unrated[0] + pooled.unrated[2];
    let start = model.rated.map(|m| DecisiveFit {
        alpha: m.alpha,
        beta: m.beta,
        epsilon: m.epsilon,
    });
    // A replicate is refitted as the archive was, from every start, where
    // the archive's penalised likelihood had several maxima (few games,
    // nearly separated); elsewhere from the flat curve alone, which then
    // reaches the one maximum at a seventh of the cost.
    let observed: Vec<(f64, f64, f64)> = pooled
        .rated
        .iter()
        .filter(|(_, [w, _, l])| w + l > 0)
        .map(|&(bin, [w, _, l])| (bin_logit(bin), w as f64, l as f64))
        .collect();
    let several_maxima = firth_logistic_maxima(&observed).is_some_and(|(_, several)| several);
    let refit = if several_maxima {
        firth_logistic
    } else {
        firth_logistic_from_zero
    };
    let mut replicates = Vec::with_capacity(REPLICATES);
    let mut simulated: Vec<Vec<u64>> = cells.iter().map(|c| vec![0; c.len()]).collect();
    for _ in 0..REPLICATES {
        let mut wins_per_bin = vec![0u64; bins.len()];
        let mut unrated_wins = 0;
        for (position, wins) in cells.iter().zip(simulated.iter_mut()) {
            for (&(bin, games, p), win) in position.iter().zip(wins.iter_mut()) {
                *win = binomial(&mut rng, games, p);
                match bin {
                    Some(bin) => wins_per_bin[index(bin)] += *win,
                    None => unrated_wins += *win,
                }
            }
        }
        let rated: Vec<(f64, f64, f64)> = bins
            .iter()
            .zip(&wins_per_bin)
            .zip(&decisive_per_bin)
            .filter(|(_, n)| **n > 0)
            .map(|((bin, w), n)| (bin_logit(*bin), *w as f64, (n - w) as f64))
            .collect();
        let rated_fit = match start {
            Some(start) if start.epsilon > 0.0 => {
                fit_given_epsilon(&rated, start.epsilon, (start.alpha, start.beta))
            }
            _ => refit(&rated).map(|(alpha, beta)| DecisiveFit {
                alpha,
                beta,
                epsilon: 0.0,
            }),
        };
        let unrated_fit = (unrated_decisive > 0)
            .then(|| {
                let w = unrated_wins as f64;
                firth_logistic(&[(0.0, w, unrated_decisive as f64 - w)])
            })
            .flatten();
        let chance = |bin: Option<i16>| -> Option<f64> {
            match bin {
                Some(bin) => {
                    let fit = rated_fit?;
                    Some(contaminated(
                        fit.epsilon,
                        fit.alpha + fit.beta * bin_logit(bin),
                    ))
                }
                None => {
                    let (alpha, _) = unrated_fit?;
                    Some(contaminated(0.0, alpha))
                }
            }
        };
        let mut q = 0.0;
        for (position, wins) in cells.iter().zip(&simulated) {
            let (mut w, mut e, mut v) = (0.0, 0.0, 0.0);
            for (&(bin, games, _), &win) in position.iter().zip(wins) {
                let Some(p) = chance(bin) else { continue };
                w += win as f64;
                e += games as f64 * p;
                v += games as f64 * p * (1.0 - p);
            }
            if v > 0.0 {
                q += (w - e) * (w - e) / v;
            }
        }
        replicates.push(q);
    }
    replicates
}

/// A binomial draw; exact for every size (rand_distr's BTPE and
/// inversion).
pub fn binomial(rng: &mut impl rand::Rng, games: u64, p: f64) -> u64 {
    if p <= 0.0 || games == 0 {
        return 0;
    }
    if p >= 1.0 {
        return games;
    }
    if games <= 16 {
        // A few games: one uniform each is quicker than BTPE's set-up.
        return (0..games).filter(|_| rng.random::<f64>() < p).count() as u64;
    }
    Binomial::new(games, p)
        .expect("0 < p < 1 is a binomial")
        .sample(rng)
}

/// Σ over groups of Q, and its p-value: chi-square on the summed degrees
/// of freedom when every group's reference is chi-square, else the sum of
/// the groups' replicates (a chi-square draw for a group referred to
/// chi-square), replicate by replicate. `(q, df, p, reference)`.
pub fn pooled(tests: &[&EloTest]) -> Option<(f64, u64, f64, Reference)> {
    let mut sum = PooledSum::new("pooled elo");
    for test in tests {
        if let Some(df) = test.df {
            sum.add(test.q, df, test.reference, &test.replicates);
        }
    }
    sum.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameters(rated: &[(i16, [u64; 3])], unrated: [u64; 3]) -> u64 {
        let pooled = Pooled {
            rated: rated.to_vec(),
            unrated,
        };
        fitted_parameters(&NullModel::fit(&pooled), &pooled)
    }

    #[test]
    fn a_slope_fitted_to_zero_is_a_parameter_too() {
        // Two games lost by White at rating differences either side of 0
        // (five groups of `stats --group-by White` on the benchmark
        // archive): the fit's β is 0 or a rounding error from it,
        // depending on where its steps start, and it is fitted all the
        // same: α and β from two positions leave no degree of freedom.
        assert_eq!(parameters(&[(-3, [0, 0, 1]), (3, [0, 0, 1])], [0; 3]), 2);
        assert_eq!(parameters(&[(-3, [1, 0, 0]), (3, [0, 0, 1])], [0; 3]), 2);
        // One rating difference: α alone; drawn games fit no α or β.
        assert_eq!(parameters(&[(4, [2, 0, 1])], [0; 3]), 1);
        assert_eq!(parameters(&[(4, [2, 0, 1]), (9, [0, 5, 0])], [0; 3]), 1);
        assert_eq!(parameters(&[(4, [0, 3, 0]), (9, [0, 5, 0])], [0; 3]), 0);
        // Unrated decisive games add their own α.
        assert_eq!(parameters(&[(-3, [0, 0, 1]), (3, [1, 0, 0])], [1, 0, 0]), 3);
        assert_eq!(parameters(&[], [1, 2, 0]), 1);
        assert_eq!(parameters(&[], [0, 2, 0]), 0);
    }
}
