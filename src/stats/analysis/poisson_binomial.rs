//! The number of wins among independent games of unequal chances (the
//! Poisson-binomial distribution), and its two-sided p-value.
//!
//! The games come in cells of equal chance (a rating-difference bin), so
//! the distribution is a convolution of binomials: computed exactly up to
//! [`EXACT_MAX`] games, which costs at most about EXACT_MAX²/2 operations
//! a position. Beyond, the tails come from the saddlepoint approximation
//! of Lugannani and Rice (1980) with Daniels's (1987) second continuity
//! correction for a lattice variable (Butler 2007, §1.2.5), whose relative
//! error is far below a percent at such sizes, even for games whose chances
//! are lopsided, where the normal approximation fails in the tails.

use statrs::function::erf::erfc;
use statrs::function::gamma::ln_gamma;
use std::sync::OnceLock;

/// Up to this many games, the distribution is computed exactly.
pub const EXACT_MAX: u64 = 500;

/// Games of equal chance: (how many, P(win)).
pub type Cell = (u64, f64);

/// The exact distribution of the wins: P(k wins) for k = 0 to Σm.
pub fn pmf(cells: &[Cell]) -> Vec<f64> {
    let total: u64 = cells.iter().map(|(m, _)| m).sum();
    let mut pmf = vec![0.0; total as usize + 1];
    let mut next = pmf.clone();
    pmf[0] = 1.0;
    let mut len = 1;
    let mut binomial = Vec::new();
    for &(games, p) in cells {
        binomial_pmf(games, p, &mut binomial);
        // next[k] = Σ pmf[i]·binomial[k − i], its terms added in the order
        // of i, as a convolution row by row adds them: one pass over pmf
        // for each term of the binomial, the last first, none skipped (a
        // zero term adds nothing to a sum of terms of at least zero).
        let m = binomial.len() - 1;
        next[..len + m].fill(0.0);
        for (j, b) in binomial.iter().enumerate().rev() {
            for (sum, a) in next[j..j + len].iter_mut().zip(&pmf[..len]) {
                *sum += a * b;
            }
        }
        std::mem::swap(&mut pmf, &mut next);
        len += m;
    }
    pmf
}

/// P(k wins in `games` games of chance `p`) for k = 0 to `games`, into
/// `pmf`, each computed in logarithms, so that none underflows before it
/// must.
fn binomial_pmf(games: u64, p: f64, pmf: &mut Vec<f64>) {
    pmf.clear();
    if p <= 0.0 || p >= 1.0 {
        pmf.resize(games as usize + 1, 0.0);
        pmf[if p <= 0.0 { 0 } else { games as usize }] = 1.0;
        return;
    }
    let n = games as f64;
    let (ln_p, ln_q) = (p.ln(), (-p).ln_1p());
    let ln_n = ln_factorial(games);
    pmf.extend((0..=games).map(|k| {
        let (ln_k, ln_rest) = (ln_factorial(k), ln_factorial(games - k));
        let k = k as f64;
        (ln_n - ln_k - ln_rest + k * ln_p + (n - k) * ln_q).exp()
    }));
}

/// ln(k!), as `ln_gamma(k + 1)` gives it: from a table made once by that
/// function up to [`EXACT_MAX`], where the exact distribution needs it for
/// every term.
fn ln_factorial(k: u64) -> f64 {
    static TABLE: OnceLock<Vec<f64>> = OnceLock::new();
    let table = TABLE.get_or_init(|| (0..=EXACT_MAX).map(|k| ln_gamma(k as f64 + 1.0)).collect());
    match table.get(k as usize) {
        Some(&value) => value,
        None => ln_gamma(k as f64 + 1.0),
    }
}

/// (P(W ≤ wins), P(W ≥ wins)), exactly up to [`EXACT_MAX`] games, else
/// by the saddlepoint approximation.
pub fn tails(cells: &[Cell], wins: u64) -> (f64, f64) {
    let games: u64 = cells.iter().map(|(m, _)| m).sum();
    if games <= EXACT_MAX {
        let pmf = pmf(cells);
        let at = wins as usize;
        let lower: f64 = pmf[..=at.min(pmf.len() - 1)].iter().sum();
        let upper: f64 = pmf.get(at..).map_or(0.0, |t| t.iter().sum());
        return (lower.min(1.0), upper.min(1.0));
    }
    let flipped: Vec<Cell> = cells.iter().map(|&(m, p)| (m, 1.0 - p)).collect();
    (
        saddlepoint_upper(&flipped, games - wins),
        saddlepoint_upper(cells, wins),
    )
}

/// The two-sided p-value of `wins`: twice the smaller tail, at most 1
/// (the "central" p-value, which matches the equal-tailed confidence
/// interval; Fay 2010, R package exactci).
pub fn central_p(cells: &[Cell], wins: u64) -> f64 {
    let (lower, upper) = tails(cells, wins);
    (2.0 * lower.min(upper)).min(1.0)
}

/// The cumulants K(s), K'(s), K''(s) of the wins at s.
fn cumulants(cells: &[Cell], s: f64) -> (f64, f64, f64) {
    let (mut k, mut k1, mut k2) = (0.0, 0.0, 0.0);
    for &(games, p) in cells {
        let m = games as f64;
        // With r = p e^s / (1 − p + p e^s), computed stably either side.
        let log_odds = (p / (1.0 - p)).ln() + s;
        let r = super::model::logistic(log_odds);
        // ln(1 − p + p e^s) = ln(1 − p) + ln(1 + e^(log_odds)).
        let softplus = if log_odds > 0.0 {
            log_odds + (-log_odds).exp().ln_1p()
        } else {
            log_odds.exp().ln_1p()
        };
        k += m * ((-p).ln_1p() + softplus);
        k1 += m * r;
        k2 += m * r * (1.0 - r);
    }
    (k, k1, k2)
}

/// P(W ≥ wins) by the saddlepoint approximation with continuity
/// correction: s̃ solves K'(s̃) = wins − ½, w̃ = sgn(s̃)√(2(s̃(wins − ½) −
/// K(s̃))), ũ = 2 sinh(s̃/2)√K''(s̃), and P ≈ 1 − Φ(w̃) − φ(w̃)(1/w̃ − 1/ũ).
/// Exact at the ends; the normal approximation with continuity correction
/// where the saddlepoint is too close to 0 for the formula's digits.
fn saddlepoint_upper(cells: &[Cell], wins: u64) -> f64 {
    let cells: Vec<Cell> = cells.iter().copied().filter(|(m, _)| *m > 0).collect();
    // Cells of certain outcome shift the count and add nothing random.
    let certain: u64 = cells
        .iter()
        .filter(|(_, p)| *p >= 1.0)
        .map(|(m, _)| m)
        .sum();
    let random: Vec<Cell> = cells
        .iter()
        .copied()
        .filter(|(_, p)| *p > 0.0 && *p < 1.0)
        .collect();
    if wins <= certain {
        return 1.0;
    }
    let wins = wins - certain;
    let max: u64 = random.iter().map(|(m, _)| m).sum();
    if wins > max {
        return 0.0;
    }
    if wins == max {
        return random
            .iter()
            .map(|&(m, p)| m as f64 * p.ln())
            .sum::<f64>()
            .exp();
    }
    let mean: f64 = random.iter().map(|&(m, p)| m as f64 * p).sum();
    let variance: f64 = random.iter().map(|&(m, p)| m as f64 * p * (1.0 - p)).sum();
    let target = wins as f64 - 0.5;
    if (target - mean).abs() < 1e-3 * variance.sqrt() {
        return normal_upper((target - mean) / variance.sqrt());
    }
    let s = solve_saddlepoint(&random, target);
    let (k, _, k2) = cumulants(&random, s);
    let w = s.signum() * (2.0 * (s * target - k)).max(0.0).sqrt();
    let u = 2.0 * (s / 2.0).sinh() * k2.sqrt();
    let density = (-w * w / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    (normal_upper(w) - density * (1.0 / w - 1.0 / u)).clamp(0.0, 1.0)
}

/// 1 − Φ(z), keeping its digits far into the upper tail.
fn normal_upper(z: f64) -> f64 {
    erfc(z / std::f64::consts::SQRT_2) / 2.0
}

/// The s with K'(s) = target, by bisection on s (K' rises from 0 to the
/// number of games).
fn solve_saddlepoint(cells: &[Cell], target: f64) -> f64 {
    let (mut low, mut high) = (-1.0, 1.0);
    while cumulants(cells, low).1 > target {
        low *= 2.0;
    }
    while cumulants(cells, high).1 < target {
        high *= 2.0;
    }
    for _ in 0..200 {
        let middle = (low + high) / 2.0;
        if cumulants(cells, middle).1 < target {
            low = middle;
        } else {
            high = middle;
        }
        if high - low < 1e-14 * high.abs().max(1.0) {
            break;
        }
    }
    (low + high) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, relative: f64) {
        assert!(
            (got - want).abs() <= relative * want.abs(),
            "{got} against {want}"
        );
    }

    #[test]
    fn the_issues_two_games_are_no_evidence() {
        // Position 456 of the TCEC League 2: White lost both games, at
        // expectations 0.981 and 0.019 (issue 32, item 1): P(0 wins) =
        // 0.019 × 0.981, and the two-sided p-value twice that.
        let cells = [(1, 0.981), (1, 0.019)];
        let (lower, upper) = tails(&cells, 0);
        close(lower, 0.019 * 0.981, 1e-12);
        close(upper, 1.0, 1e-12);
        close(central_p(&cells, 0), 2.0 * 0.019 * 0.981, 1e-12);
    }

    #[test]
    fn exact_tails_add_up_and_the_pmf_is_a_distribution() {
        let cells = [(3, 0.2), (5, 0.7), (1, 0.5)];
        let pmf = pmf(&cells);
        assert_eq!(pmf.len(), 10);
        close(pmf.iter().sum(), 1.0, 1e-13);
        for wins in 0..=9 {
            let (lower, upper) = tails(&cells, wins);
            close(lower + upper - pmf[wins as usize], 1.0, 1e-13);
        }
    }

    #[test]
    fn exact_tails_match_numpys_convolution() {
        // reference.py units: "pb" (numpy.convolve of scipy's binomials).
        let cells = [(3, 0.2), (5, 0.7), (1, 0.5), (4, 0.93)];
        for (wins, lower, upper, p) in [
            (0, 1.4936140799999978e-08, 1.0, 2.9872281599999955e-08),
            (
                4,
                0.004180324039601998,
                0.9995554054925382,
                0.008360648079203996,
            ),
            (
                7,
                0.2756586827130296,
                0.8998645896299362,
                0.5513173654260592,
            ),
            (13, 1.0, 0.0005029004052828001, 0.0010058008105656002),
        ] {
            let (l, u) = tails(&cells, wins);
            close(l, lower, 1e-10);
            close(u, upper, 1e-10);
            close(central_p(&cells, wins), p, 1e-10);
        }
    }

    /// Games whose outcome is certain (a chance of 0 or 1, as a fit at
    /// the edge gives) shift the wins and add nothing random.
    #[test]
    fn certain_games_shift_the_distribution() {
        for (cells, want) in [
            (vec![(2, 1.0), (1, 0.5)], vec![0.0, 0.0, 0.5, 0.5]),
            (vec![(3, 0.0), (1, 0.25)], vec![0.75, 0.25, 0.0, 0.0, 0.0]),
            (
                vec![(1, 0.25), (2, 0.0), (1, 1.0)],
                vec![0.0, 0.75, 0.25, 0.0, 0.0],
            ),
        ] {
            let got = pmf(&cells);
            assert_eq!(got.len(), want.len(), "{cells:?}");
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-13, "{cells:?}: {got:?}");
            }
        }
    }

    #[test]
    fn a_binomial_beyond_the_table_of_ln_k_factorial_is_exact_too() {
        // 600 games of chance 0.3, past EXACT_MAX: C(600, k) 0.3^k 0.7^(600 − k)
        // in exact rational arithmetic (Python's math.comb and fractions).
        let pmf = pmf(&[(600, 0.3)]);
        assert_eq!(pmf.len(), 601);
        for (k, want) in [
            (150, 0.0009306980657277774),
            (180, 0.035522038476919524),
            (200, 0.007285361362333606),
        ] {
            close(pmf[k], want, 1e-10);
        }
    }

    #[test]
    fn the_saddlepoint_is_within_a_percent_of_the_exact_tails() {
        // 700 games, beyond EXACT_MAX; reference.py units: "pb large".
        let cells = [(300, 0.97), (250, 0.6), (150, 0.05)];
        for (wins, lower, upper) in [
            (430, 0.01984674626122765, 0.9850073970222204),
            (470, 0.9945779088928695, 0.007538250658591),
            (500, 0.9999999995497947, 9.58753130508938e-10),
            (520, 1.0, 1.2581637261220323e-17),
        ] {
            let (l, u) = tails(&cells, wins);
            close(l, lower, 1e-2);
            close(u, upper, 1e-2);
        }
    }
}
