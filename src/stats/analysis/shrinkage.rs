//! Empirical-Bayes estimates of White's score: a position with two games
//! and a score of 1 is not a position that favours White, and a ranking of
//! raw scores puts it first. The DerSimonian–Laird random-effects model
//! estimates how much the positions' true scores spread (τ²) beyond what
//! their game counts explain, and pulls each raw score towards the mean μ
//! by as much as its own noise outweighs that spread: hardly at all for a
//! position with thousands of games, almost wholly for one with two.
//!
//! Over the positions with finished games (k of them), with the totals W,
//! D, L and N of the group, and per position its n finished games and
//! score s:
//!
//! ```text
//! s̄  = (W + D/2) / N
//! σ² = (W(1 − s̄)² + D(½ − s̄)² + L·s̄²) / N     the variance of one game's points
//! v  = σ²/n,  w = 1/v,  s_w = Σws / Σw,  Q_s = Σw(s − s_w)²
//! τ² = max(0, (Q_s − (k − 1)) / (Σw − Σw²/Σw))
//! μ  = Σ(s/(v + τ²)) / Σ(1/(v + τ²)),  B = τ²/(τ² + v)
//! estimate = μ + B(s − μ),  interval = estimate ∓ 1.959964·√(B·v), within [0, 1]
//! ```

use std::collections::BTreeMap;

use super::super::table::{PositionStats, Rows, Z_95};

/// One position's empirical-Bayes estimate of White's score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShrunkScore {
    /// μ + B(s − μ).
    pub estimate: f64,
    /// The low end of its 95% interval, at least 0.
    pub low: f64,
    /// The high end, at most 1.
    pub high: f64,
}

/// The random-effects model of one group's scores.
#[derive(Clone, Debug, PartialEq)]
pub struct Shrinkage {
    /// μ, the estimated mean of the positions' true scores.
    pub mu: f64,
    /// τ², the estimated variance of the positions' true scores.
    pub tau2: f64,
    /// Per position with finished games.
    pub estimates: BTreeMap<u16, ShrunkScore>,
}

/// Fits the model to the positions of `rows` with finished games. None
/// with fewer than two such positions (nothing to estimate a spread from)
/// or when every finished game has the same result (σ² = 0: no noise to
/// weigh).
pub fn shrink(rows: &Rows) -> Option<Shrinkage> {
    let positions: Vec<(u16, &PositionStats)> = rows
        .iter()
        .filter(|(_, stats)| stats.finished() > 0)
        .map(|(id, stats)| (*id, stats))
        .collect();
    let k = positions.len();
    let sigma2 = game_variance(positions.iter().map(|(_, stats)| *stats))?;
    if k < 2 {
        return None;
    }
    // (score, v) per position.
    let scored: Vec<(u16, f64, f64)> = positions
        .iter()
        .map(|(id, stats)| {
            let n = stats.finished() as f64;
            let score = stats.white_score().expect("a position with finished games");
            (*id, score, sigma2 / n)
        })
        .collect();
    let (mut sum_w, mut sum_w2, mut sum_ws) = (0.0, 0.0, 0.0);
    for &(_, score, v) in &scored {
        let w = 1.0 / v;
        sum_w += w;
        sum_w2 += w * w;
        sum_ws += w * score;
    }
    let weighted_mean = sum_ws / sum_w;
    let q: f64 = scored
        .iter()
        .map(|&(_, score, v)| (score - weighted_mean).powi(2) / v)
        .sum();
    let tau2 = ((q - (k - 1) as f64) / (sum_w - sum_w2 / sum_w)).max(0.0);
    let (mut sum_ws_random, mut sum_w_random) = (0.0, 0.0);
    for &(_, score, v) in &scored {
        sum_ws_random += score / (v + tau2);
        sum_w_random += 1.0 / (v + tau2);
    }
    let mu = sum_ws_random / sum_w_random;
    let estimates = scored
        .iter()
        .map(|&(id, score, v)| {
            let b = tau2 / (tau2 + v);
            let estimate = mu + b * (score - mu);
            let half = Z_95 * (b * v).sqrt();
            let shrunk = ShrunkScore {
                estimate,
                low: (estimate - half).max(0.0),
                high: (estimate + half).min(1.0),
            };
            (id, shrunk)
        })
        .collect();
    Some(Shrinkage {
        mu,
        tau2,
        estimates,
    })
}

/// σ², the variance of one finished game's points about the mean score of
/// all of them; none without games or when it is 0.
fn game_variance<'a>(positions: impl Iterator<Item = &'a PositionStats>) -> Option<f64> {
    let mut total = PositionStats::default();
    for stats in positions {
        total.merge(stats);
    }
    total.white_score_variance().filter(|&sigma2| sigma2 > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `SHRINKAGE_TABLE` of `testdata/stats/reference.py`: (W, D, L).
    const TABLE: [(u16, [u64; 3]); 6] = [
        (3, [40, 30, 30]),
        (10, [5, 2, 3]),
        (77, [120, 100, 80]),
        (400, [1, 0, 0]),
        (518, [20, 50, 30]),
        (901, [60, 10, 30]),
    ];

    fn rows(table: &[(u16, [u64; 3])]) -> Rows {
        table
            .iter()
            .map(|&(id, [w, d, l])| {
                let stats = PositionStats {
                    games: w + d + l,
                    white_wins: w,
                    draws: d,
                    black_wins: l,
                    ..PositionStats::default()
                };
                (id, stats)
            })
            .collect()
    }

    fn close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-12, "{got} against {want}");
    }

    #[test]
    fn matches_the_statsmodels_reference() {
        // python3 testdata/stats/reference.py shrinkage (τ² from
        // statsmodels' combine_effects(method_re="dl"), the rest by numpy).
        let model = shrink(&rows(&TABLE)).expect("six positions");
        close(model.mu, 0.5603723265320462);
        close(model.tau2, 0.00341074510765069);
        let want = [
            (
                3,
                0.5534212250242184,
                0.48768186730304636,
                0.6191605827453905,
            ),
            (
                10,
                0.5670641037825399,
                0.4627103245880796,
                0.6714178829770002,
            ),
            (
                77,
                0.5657795494132843,
                0.5228072952293757,
                0.6087518035971929,
            ),
            (
                400,
                0.5691266309237973,
                0.45580702854915706,
                0.6824462332984376,
            ),
            (
                518,
                0.48640538738787165,
                0.4206660296666996,
                0.5521447451090438,
            ),
            (
                901,
                0.6204370626605652,
                0.5546977049393931,
                0.6861764203817373,
            ),
        ];
        assert_eq!(model.estimates.len(), want.len());
        for (id, estimate, low, high) in want {
            let shrunk = model.estimates[&id];
            close(shrunk.estimate, estimate);
            close(shrunk.low, low);
            close(shrunk.high, high);
        }
    }

    #[test]
    fn no_spread_beyond_chance_shrinks_every_position_to_the_mean() {
        // Scores 0.5 and 0.6 over 10 games each: Q_s < k - 1, so τ² = 0,
        // B = 0, and each estimate is μ with an interval of no width.
        let model = shrink(&rows(&[(1, [4, 2, 4]), (2, [5, 2, 3])])).expect("two positions");
        assert_eq!(model.tau2, 0.0);
        close(model.mu, 0.55);
        for shrunk in model.estimates.values() {
            assert_eq!(
                (shrunk.estimate, shrunk.low, shrunk.high),
                (model.mu, model.mu, model.mu)
            );
        }
    }

    #[test]
    fn undefined_without_two_positions_or_without_noise() {
        assert_eq!(shrink(&rows(&[(1, [4, 2, 4])])), None, "one position");
        assert_eq!(
            shrink(&rows(&[(1, [0, 3, 0]), (2, [0, 5, 0])])),
            None,
            "σ² = 0"
        );
        assert_eq!(shrink(&rows(&[])), None);
        // A position without finished games is left out, not counted.
        let model = shrink(&rows(&[(1, [4, 2, 4]), (2, [5, 2, 3]), (3, [0, 0, 0])]));
        assert_eq!(model.expect("two positions").estimates.len(), 2);
    }
}
