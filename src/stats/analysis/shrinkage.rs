//! Shrunk estimates of White's score: a position with two games and a
//! score of 1 is not a position that favours White, and a ranking of raw
//! scores puts it first.
//!
//! What is shrunk is what the ratings do not explain. Per position j, with
//! n_j finished games: its score s_j, the score ê_j the null model (see
//! [`super::model`]) expects from the ratings of its games, and v_j, the
//! variance of s_j under the model, draws included (Σ Var(points)/n²). The
//! residual r_j = s_j − ê_j is modelled as
//!
//! ```text
//! r_j ~ N(μ + u_j, v_j),   u_j ~ N(0, τ²)
//! ```
//!
//! the normal hierarchical model of Gelman et al. (2013, *Bayesian Data
//! Analysis*, 3rd ed., §5.4), with a flat prior on μ and a uniform one on
//! τ in [0, ½] (no position's score sits further than ½ from the rest).
//! The posterior of τ is integrated by Gauss–Legendre quadrature over
//! where it lives (found on a coarse grid); given τ, μ and the u_j are
//! normal; so the posterior of each θ_j = ê_j + μ + u_j is a mixture of
//! normals, whose mean is the estimate and whose 2.5% and 97.5% quantiles
//! are its interval. Unlike an empirical-Bayes interval that takes μ̂ and
//! τ̂² as known (and has no width when τ̂² = 0), it carries both
//! uncertainties (Morris 1983's point), and is never of zero width.
//!
//! Beside it, the classical heterogeneity statistics of the residuals:
//! Cochran's Q, I² = (Q − df)/Q (Higgins & Thompson 2002), the
//! DerSimonian–Laird τ², and the Q-profile 95% interval for τ²
//! (Viechtbauer 2007; R's `metafor::confint.rma`).

use std::collections::BTreeMap;

use rayon::prelude::*;

use statrs::distribution::{ChiSquared, ContinuousCDF};
use statrs::function::erf::{erfc, erfc_inv};

/// The prior's upper bound on τ.
const TAU_MAX: f64 = 0.5;

/// Gauss–Legendre nodes over where the posterior of τ lives. The
/// integrand is smooth there (log p(τ | r) is within [`LOG_RANGE`] of its
/// top and even in τ), so 48 nodes integrate it to far below the printed
/// digits, where a trapezoid rule took 200 points for 1e-5.
const NODES: usize = 48;

/// How far below its top the log posterior of τ may fall and still be
/// on the grid: e^−25 of the mode's density is nothing.
const LOG_RANGE: f64 = 25.0;

/// One position's data for the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unit {
    /// The score the null model expects, ê.
    pub expected: f64,
    /// The residual s − ê.
    pub residual: f64,
    /// Its variance under the model.
    pub variance: f64,
}

/// One position's shrunk estimate of White's score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShrunkScore {
    /// The posterior mean of θ = ê + μ + u.
    pub estimate: f64,
    /// The 2.5% posterior quantile, at least 0.
    pub low: f64,
    /// The 97.5% quantile, at most 1.
    pub high: f64,
}

/// The heterogeneity of the residuals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Heterogeneity {
    /// Cochran's Q = Σ (r − r̄)²/v, r̄ weighted by 1/v.
    pub q: f64,
    /// Positions − 1.
    pub df: u64,
    /// (Q − df)/Q, and 0 where Q ≤ df (Q = 0 included).
    pub i2: f64,
    /// DerSimonian and Laird's τ² = max(0, (Q − df)/(Σw − Σw²/Σw)).
    pub tau2: f64,
    /// The Q-profile 95% interval for τ²: where the generalised Q crosses
    /// the 97.5% and 2.5% quantiles of chi-square(df); 0 where it is below
    /// them already at τ² = 0.
    pub tau2_low: f64,
    /// Its upper end.
    pub tau2_high: f64,
}

/// The model fitted to one group.
#[derive(Clone, Debug, PartialEq)]
pub struct Shrinkage {
    /// The posterior mean of μ: White's score above the model's
    /// expectation, over positions.
    pub mu: f64,
    /// The posterior mean of τ².
    pub tau2: f64,
    /// The heterogeneity statistics (none with one position).
    pub heterogeneity: Option<Heterogeneity>,
    /// Per position.
    pub estimates: BTreeMap<u16, ShrunkScore>,
}

/// The posterior of τ at the quadrature nodes: (τ, weight) with the weights summing
/// to 1, and per grid point μ̂(τ) and Var(μ | τ).
struct TauPosterior {
    points: Vec<(f64, f64, f64, f64)>,
}

/// log p(τ | r) up to a constant (Gelman et al. 2013, eq. 5.21), with
/// μ̂(τ) and V_μ(τ).
fn log_posterior(units: &[Unit], tau: f64) -> (f64, f64, f64) {
    let t2 = tau * tau;
    let (mut sum_w, mut sum_wr, mut sum_ln_w) = (0.0, 0.0, 0.0);
    // Σ ln w = −Σ ln(v + τ²), one logarithm for each eight positions (of
    // their product) where the product is a normal number: the grid
    // takes this sum some 450 times over every position.
    for chunk in units.chunks(8) {
        let mut product = 1.0;
        for unit in chunk {
            let spread = unit.variance + t2;
            let w = 1.0 / spread;
            sum_w += w;
            sum_wr += w * unit.residual;
            product *= spread;
        }
        sum_ln_w -= if product.is_normal() {
            product.ln()
        } else {
            chunk.iter().map(|unit| (unit.variance + t2).ln()).sum()
        };
    }
    let v_mu = 1.0 / sum_w;
    let mu = sum_wr * v_mu;
    let squares: f64 = units
        .iter()
        .map(|u| (u.residual - mu).powi(2) / (u.variance + t2))
        .sum();
    (0.5 * v_mu.ln() + 0.5 * sum_ln_w - 0.5 * squares, mu, v_mu)
}

impl TauPosterior {
    fn of(units: &[Unit]) -> TauPosterior {
        // Find where the posterior lives: a coarse grid over the prior's
        // range, then a fine one over where it is within e^−25 of its top.
        let coarse: Vec<(f64, f64)> = (0..=400)
            .into_par_iter()
            .map(|i| {
                let tau = TAU_MAX * i as f64 / 400.0;
                (tau, log_posterior(units, tau).0)
            })
            .collect();
        let top = coarse.iter().map(|c| c.1).fold(f64::NEG_INFINITY, f64::max);
        let kept: Vec<usize> = (0..coarse.len())
            .filter(|&i| coarse[i].1 > top - LOG_RANGE)
            .collect();
        let first = kept.first().copied().unwrap_or(0).saturating_sub(1);
        let last = (kept.last().copied().unwrap_or(400) + 1).min(400);
        let (low, high) = (coarse[first].0, coarse[last].0);
        let grid: Vec<(f64, f64, f64, f64, f64)> = gauss_legendre()
            .par_iter()
            .map(|&(node, weight)| {
                let tau = low + (high - low) * (node + 1.0) / 2.0;
                let (lp, mu, v_mu) = log_posterior(units, tau);
                (tau, weight, lp, mu, v_mu)
            })
            .collect();
        let top = grid.iter().map(|g| g.2).fold(f64::NEG_INFINITY, f64::max);
        let mut points: Vec<(f64, f64, f64, f64)> = grid
            .iter()
            .map(|&(tau, weight, lp, mu, v_mu)| (tau, weight * (lp - top).exp(), mu, v_mu))
            .filter(|p| p.1 > 1e-14)
            .collect();
        let total: f64 = points.iter().map(|p| p.1).sum();
        for point in &mut points {
            point.1 /= total;
        }
        TauPosterior { points }
    }
}

/// The [`NODES`] Gauss–Legendre nodes and weights on [−1, 1]: the roots
/// of the Legendre polynomial P_n by Newton's method from Tricomi's
/// approximation, w = 2/((1 − x²)P_n′(x)²) (Press et al. 2007,
/// *Numerical Recipes*, 3rd ed., §4.6.1).
fn gauss_legendre() -> &'static [(f64, f64)] {
    static RULE: std::sync::OnceLock<Vec<(f64, f64)>> = std::sync::OnceLock::new();
    RULE.get_or_init(|| {
        let n = NODES;
        let mut rule = Vec::with_capacity(n);
        for i in 1..=n {
            let mut x = (std::f64::consts::PI * (i as f64 - 0.25) / (n as f64 + 0.5)).cos();
            let mut derivative = 0.0;
            for _ in 0..100 {
                // P_n(x) and P_{n−1}(x) by the three-term recurrence.
                let (mut p, mut previous) = (1.0, 0.0);
                for k in 1..=n {
                    let k = k as f64;
                    (p, previous) = (((2.0 * k - 1.0) * x * p - (k - 1.0) * previous) / k, p);
                }
                derivative = n as f64 * (x * p - previous) / (x * x - 1.0);
                let step = p / derivative;
                x -= step;
                if step.abs() < 1e-15 {
                    break;
                }
            }
            rule.push((x, 2.0 / ((1.0 - x * x) * derivative * derivative)));
        }
        rule
    })
}

/// Fits the model to `units` (positions with v > 0). None without them.
pub fn shrink(units: &BTreeMap<u16, Unit>) -> Option<Shrinkage> {
    let list: Vec<Unit> = units.values().copied().collect();
    if list.is_empty() {
        return None;
    }
    let posterior = TauPosterior::of(&list);
    let mu: f64 = posterior.points.iter().map(|p| p.1 * p.2).sum();
    let tau2: f64 = posterior.points.iter().map(|p| p.1 * p.0 * p.0).sum();
    let estimates = units
        .par_iter()
        .map(|(id, unit)| (*id, estimate(&posterior, unit)))
        .collect();
    Some(Shrinkage {
        mu,
        tau2,
        heterogeneity: heterogeneity(&list),
        estimates,
    })
}

/// The posterior of one θ: a mixture over the τ grid of normals with mean
/// μ̂ + (1 − B)(r − μ̂) and variance (1 − B)v + B²V_μ, B = v/(v + τ²).
fn estimate(posterior: &TauPosterior, unit: &Unit) -> ShrunkScore {
    let components: Vec<(f64, f64, f64)> = posterior
        .points
        .iter()
        .map(|&(tau, weight, mu, v_mu)| {
            let b = unit.variance / (unit.variance + tau * tau);
            let mean = mu + (1.0 - b) * (unit.residual - mu);
            let variance = (1.0 - b) * unit.variance + b * b * v_mu;
            (weight, mean, variance.sqrt())
        })
        .collect();
    let mean: f64 = components.iter().map(|(w, m, _)| w * m).sum();
    let clamp = |x: f64| (unit.expected + x).clamp(0.0, 1.0);
    ShrunkScore {
        estimate: clamp(mean),
        low: clamp(mixture_quantile(&components, 0.025)),
        high: clamp(mixture_quantile(&components, 0.975)),
    }
}

/// Φ(z).
fn normal_cdf(z: f64) -> f64 {
    erfc(-z / std::f64::consts::SQRT_2) / 2.0
}

/// Φ⁻¹(p).
fn normal_quantile(p: f64) -> f64 {
    -std::f64::consts::SQRT_2 * erfc_inv(2.0 * p)
}

/// The `level` quantile of a mixture of normals (weight, mean, sd), by
/// Halley's method kept inside a bisection bracket.
fn mixture_quantile(components: &[(f64, f64, f64)], level: f64) -> f64 {
    // Per component: weight, mean, 1/sd and weight·φ's constant/sd.
    let scaled: Vec<(f64, f64, f64, f64)> = components
        .iter()
        .map(|&(w, m, s)| (w, m, 1.0 / s, w / (s * (2.0 * std::f64::consts::PI).sqrt())))
        .collect();
    // The mixture's cdf, density and the density's derivative at x.
    let evaluate = |x: f64| {
        scaled
            .iter()
            .fold((0.0, 0.0, 0.0), |(c, d, slope), &(w, m, inv_s, height)| {
                let z = (x - m) * inv_s;
                let density = height * (-z * z / 2.0).exp();
                (
                    c + w * normal_cdf(z),
                    d + density,
                    slope - density * z * inv_s,
                )
            })
    };
    let mut low = components
        .iter()
        .map(|(_, m, s)| m - 10.0 * s)
        .fold(f64::INFINITY, f64::min);
    let mut high = components
        .iter()
        .map(|(_, m, s)| m + 10.0 * s)
        .fold(f64::NEG_INFINITY, f64::max);
    // Start from the normal of the mixture's mean and variance, and take
    // Halley's steps (cubic convergence): two or three evaluations of the
    // mixture where bisection would take fifty.
    let mean: f64 = components.iter().map(|(w, m, _)| w * m).sum();
    let variance: f64 = components
        .iter()
        .map(|(w, m, s)| w * (s * s + (m - mean) * (m - mean)))
        .sum();
    let mut x = mean + normal_quantile(level) * variance.sqrt();
    if !(x > low && x < high) {
        x = mean;
    }
    for _ in 0..100 {
        let (cdf, pdf, slope) = evaluate(x);
        let f = cdf - level;
        if f.abs() < 1e-12 {
            break;
        }
        if f < 0.0 {
            low = x;
        } else {
            high = x;
        }
        let halley = x - 2.0 * f * pdf / (2.0 * pdf * pdf - f * slope);
        if pdf > 0.0 && halley > low && halley < high {
            // Halley's error cubes at each step: after a step this small
            // it is far below 1e-15, and evaluating again would only
            // confirm it.
            if (halley - x).abs() < 1e-9 {
                return halley;
            }
            x = halley;
        } else {
            x = (low + high) / 2.0;
        }
        if high - low < 1e-13 {
            break;
        }
    }
    x
}

/// Cochran's Q, I², the DerSimonian–Laird τ² and its Q-profile interval.
pub fn heterogeneity(units: &[Unit]) -> Option<Heterogeneity> {
    let df = units.len().checked_sub(1).filter(|df| *df > 0)? as u64;
    let generalised_q = |tau2: f64| {
        let (mut sum_w, mut sum_wr) = (0.0, 0.0);
        for u in units {
            let w = 1.0 / (u.variance + tau2);
            sum_w += w;
            sum_wr += w * u.residual;
        }
        let mean = sum_wr / sum_w;
        units
            .iter()
            .map(|u| (u.residual - mean).powi(2) / (u.variance + tau2))
            .sum::<f64>()
    };
    let q = generalised_q(0.0);
    let (sum_w, sum_w2) = units.iter().fold((0.0, 0.0), |(a, b), u| {
        let w = 1.0 / u.variance;
        (a + w, b + w * w)
    });
    let tau2 = ((q - df as f64) / (sum_w - sum_w2 / sum_w)).max(0.0);
    let chi = ChiSquared::new(df as f64).expect("df > 0");
    let profile = |target: f64| -> f64 {
        if q <= target {
            return 0.0;
        }
        // The generalised Q falls from Q towards 0 as τ² grows.
        let mut high = tau2.max(1e-6);
        while generalised_q(high) > target {
            high *= 2.0;
        }
        let mut low = 0.0;
        for _ in 0..200 {
            let middle = (low + high) / 2.0;
            if generalised_q(middle) > target {
                low = middle;
            } else {
                high = middle;
            }
            if high - low < 1e-15 * high.max(1e-12) {
                break;
            }
        }
        (low + high) / 2.0
    };
    Some(Heterogeneity {
        q,
        df,
        // 0 where Q is at most its df (τ̂² = 0, as metafor's I² =
        // τ̂²/(τ̂² + s²)), also where Q is 0 or rounds to a hair above it.
        i2: if q > df as f64 {
            (q - df as f64) / q
        } else {
            0.0
        },
        tau2,
        tau2_low: profile(chi.inverse_cdf(0.975)),
        tau2_high: profile(chi.inverse_cdf(0.025)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log posterior's Σ ln w, taken of products of eight positions,
    /// agrees with a logarithm a position (written out here) where the
    /// products are normal numbers and where they underflow (variances
    /// of 1e-45 at τ = 0: a product of eight is 0).
    #[test]
    fn the_log_posterior_agrees_with_one_logarithm_a_position() {
        for (variance, tau) in [(0.003_f64, 0.02), (1e-45, 0.0), (0.5, 0.5)] {
            let units: Vec<Unit> = (0..21)
                .map(|i| Unit {
                    expected: 0.5,
                    residual: 0.1 * (i as f64 - 10.0) * variance.sqrt(),
                    variance: variance * (1.0 + i as f64 / 7.0),
                })
                .collect();
            let t2 = tau * tau;
            let w: Vec<f64> = units.iter().map(|u| 1.0 / (u.variance + t2)).collect();
            let sum_w: f64 = w.iter().sum();
            let mu = units
                .iter()
                .zip(&w)
                .map(|(u, w)| w * u.residual)
                .sum::<f64>()
                / sum_w;
            let squares: f64 = units
                .iter()
                .zip(&w)
                .map(|(u, w)| w * (u.residual - mu).powi(2))
                .sum();
            let sum_ln_w: f64 = w.iter().map(|w| w.ln()).sum();
            let expected = -0.5 * sum_w.ln() + 0.5 * sum_ln_w - 0.5 * squares;
            let (lp, got_mu, v_mu) = log_posterior(&units, tau);
            assert!(
                (lp - expected).abs() <= 1e-12 * expected.abs().max(1.0),
                "{variance}: {lp} vs {expected}"
            );
            assert!((got_mu - mu).abs() <= 1e-12, "{variance}");
            assert!((v_mu - 1.0 / sum_w).abs() <= 1e-12 / sum_w, "{variance}");
        }
    }

    /// `UNITS` of `testdata/stats/reference.py`: (residual, variance).
    const UNITS: [(f64, f64); 6] = [
        (0.05, 0.004),
        (-0.02, 0.006),
        (0.11, 0.01),
        (0.0, 0.003),
        (-0.07, 0.008),
        (0.03, 0.005),
    ];

    fn units() -> BTreeMap<u16, Unit> {
        UNITS
            .iter()
            .enumerate()
            .map(|(i, &(residual, variance))| {
                let unit = Unit {
                    expected: 0.5,
                    residual,
                    variance,
                };
                (i as u16, unit)
            })
            .collect()
    }

    #[test]
    fn the_posterior_matches_scipys_quadrature() {
        // reference.py units: "hierarchical" (scipy.integrate.quad over
        // τ, quantiles by brentq); the grid of 200 points agrees to 1e-5.
        let model = shrink(&units()).expect("six positions");
        assert!(
            (model.mu - 0.015071855888421637).abs() < 1e-8,
            "{}",
            model.mu
        );
        assert!(
            (model.tau2 - 0.004289040806817793).abs() < 1e-8,
            "{}",
            model.tau2
        );
        let want = [
            (
                0.02553166504104121,
                -0.05508841421163562,
                0.11839729161642455,
            ),
            (
                0.006321744441512915,
                -0.09589630620816483,
                0.09537332776104898,
            ),
            (
                0.03274201627633375,
                -0.06226307241668372,
                0.16336246509879235,
            ),
            (
                0.00982996411031069,
                -0.07108961247101629,
                0.08622533776380696,
            ),
            (
                -0.0030416121264581057,
                -0.12621998367127404,
                0.08840581778810681,
            ),
            (0.01904735758778937, -0.06833141345149962, 0.112213914225439),
        ];
        for (i, (mean, low, high)) in want.into_iter().enumerate() {
            let got = model.estimates[&(i as u16)];
            for (g, w) in [(got.estimate, mean), (got.low, low), (got.high, high)] {
                assert!((g - (0.5 + w)).abs() < 1e-8, "{i}: {g} against {}", 0.5 + w);
            }
        }
    }

    #[test]
    fn heterogeneity_matches_statsmodels_and_the_q_profile() {
        // reference.py units: "heterogeneity" (statsmodels'
        // combine_effects for Q and the DerSimonian-Laird τ², brentq on
        // the generalised Q for the interval).
        let list: Vec<Unit> = units().into_values().collect();
        let h = heterogeneity(&list).expect("five degrees of freedom");
        assert!((h.q - 2.436004728132388).abs() < 1e-12, "{h:?}");
        assert_eq!(h.df, 5);
        assert_eq!((h.i2, h.tau2, h.tau2_low), (0.0, 0.0, 0.0));
        assert!((h.tau2_high - 0.014731386710971094).abs() < 1e-12, "{h:?}");
    }

    #[test]
    fn equal_residuals_spread_not_at_all() {
        // Q = 0 (or a rounding error above it): I² = 0, not undefined,
        // whichever way its last bit falls (two groups of `stats
        // --group-by White` gave Q = 3e-32 and Q = 0 for the same data).
        for residual in [0.0, 0.1, 1.0 / 3.0] {
            let list = vec![
                Unit {
                    expected: 0.5,
                    residual,
                    variance: 0.125,
                };
                2
            ];
            let h = heterogeneity(&list).expect("one degree of freedom");
            assert!(h.q < 1e-20, "{h:?}");
            assert_eq!(
                (h.i2, h.tau2, h.tau2_low, h.tau2_high),
                (0.0, 0.0, 0.0, 0.0)
            );
        }
    }

    #[test]
    fn no_spread_still_gives_intervals_of_width() {
        // Q below its degrees of freedom: τ̂² = 0, yet every interval has
        // width, for μ and τ are estimated.
        let model = shrink(&units()).expect("six positions");
        for estimate in model.estimates.values() {
            assert!(estimate.high - estimate.low > 0.1, "{estimate:?}");
        }
        assert_eq!(shrink(&BTreeMap::new()), None);
    }
}
