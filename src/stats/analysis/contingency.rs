//! Pearson's chi-square test of independence: do the positions differ in
//! how often White wins, draws and loses, beyond what chance spreads? One
//! test over all positions at once, where a table of per-position scores
//! invites hundreds of comparisons.
//!
//! The chi-square distribution of the statistic is close enough when no
//! cell expects fewer than 1 game and at most a fifth of the cells expect
//! fewer than 5 (Cochran 1954's rule for tables of more than one degree
//! of freedom; with one degree of freedom every cell must expect 5). A
//! table of 960 positions with a few games each is far from that. Then
//! the p-value is a Monte-Carlo one, as
//! R's `chisq.test(simulate.p.value = TRUE)` computes it (Hope 1968;
//! Patefield 1981): [`REPLICATES`] tables with the same row and column
//! totals drawn at random, each row's results drawn from what the rows
//! before it left, as from an urn (multivariate hypergeometric).

use rand::RngExt;
use rand_distr::{Distribution, Hypergeometric};
use statrs::function::gamma::ln_gamma;

use super::distributions::chi_square_upper_tail;
use super::elo::Reference;
use super::montecarlo::{self, PooledSum, REPLICATES};

/// The expected count that every cell must reach with one degree of
/// freedom, and four fifths of the cells with more.
const COCHRAN_MINIMUM: f64 = 5.0;

/// The expected count below which no cell may fall.
const COCHRAN_FLOOR: f64 = 1.0;

/// The share of cells that may expect fewer than [`COCHRAN_MINIMUM`]
/// games, with more than one degree of freedom.
const COCHRAN_SMALL_SHARE: f64 = 0.2;

/// The outcome of a chi-square test.
#[derive(Clone, Debug, PartialEq)]
pub struct ChiSquareTest {
    /// The statistic.
    pub statistic: f64,
    /// Its degrees of freedom.
    pub df: u64,
    /// The p-value; none for 0 degrees of freedom.
    pub p_value: Option<f64>,
    /// How it was found (none for 0 degrees of freedom).
    pub reference: Option<Reference>,
    /// The simulated statistics, with a Monte-Carlo reference.
    pub replicates: Vec<f64>,
}

/// Pearson's chi-square test of independence of rows and columns on a
/// table of counts, without continuity correction (scipy's
/// `chi2_contingency(table, correction=False)`). Rows and columns without
/// counts are dropped first, so that every expected count is positive;
/// df = (rows − 1)(columns − 1). Where Cochran's rule holds (see the
/// module) the p-value is chi-square's, else a Monte-Carlo one with the
/// random stream of `group`. None when the table holds no count.
///
/// ```
/// use pgn960::stats::independence_test;
///
/// // White wins, draws, Black wins at two positions.
/// let test = independence_test(&[[10, 0, 10], [20, 0, 0]], "").expect("counts");
/// assert_eq!(test.df, 1); // the empty draws column is dropped
/// assert!((test.statistic - 13.333333333333334).abs() < 1e-12);
/// ```
pub fn independence_test<const C: usize>(table: &[[u64; C]], group: &str) -> Option<ChiSquareTest> {
    let rows: Vec<Vec<u64>> = {
        let kept: Vec<&[u64; C]> = table
            .iter()
            .filter(|row| row.iter().any(|&count| count > 0))
            .collect();
        let mut column_totals = [0u64; C];
        for row in &kept {
            for (total, count) in column_totals.iter_mut().zip(row.iter()) {
                *total += count;
            }
        }
        let columns: Vec<usize> = (0..C).filter(|&j| column_totals[j] > 0).collect();
        kept.iter()
            .map(|row| columns.iter().map(|&j| row[j]).collect())
            .collect()
    };
    let columns = rows.first()?.len();
    let column_totals: Vec<u64> = (0..columns)
        .map(|j| rows.iter().map(|row| row[j]).sum())
        .collect();
    let row_totals: Vec<u64> = rows.iter().map(|row| row.iter().sum()).collect();
    let total: u64 = row_totals.iter().sum();
    let statistic = pearson(&rows, &row_totals, &column_totals, total);
    let df = (rows.len() as u64 - 1) * (columns as u64 - 1);
    let mut test = ChiSquareTest {
        statistic,
        df,
        p_value: None,
        reference: None,
        replicates: Vec::new(),
    };
    if df == 0 {
        return Some(test);
    }
    if cochran(&row_totals, &column_totals, total, df) {
        test.reference = Some(Reference::ChiSquare);
        test.p_value = chi_square_upper_tail(statistic, df);
    } else {
        test.replicates = simulate(&row_totals, &column_totals, total, group);
        test.reference = Some(Reference::MonteCarlo);
        test.p_value = Some(montecarlo::p_value(statistic, &test.replicates));
    }
    Some(test)
}

/// Whether Cochran's (1954) rule allows the chi-square reference: with
/// one degree of freedom, every expected count at least 5; with more,
/// none below 1 and at most a fifth of them below 5.
fn cochran(row_totals: &[u64], column_totals: &[u64], total: u64, df: u64) -> bool {
    let expected = row_totals.iter().flat_map(|&r| {
        column_totals
            .iter()
            .map(move |&c| r as f64 * c as f64 / total as f64)
    });
    let (mut cells, mut small) = (0usize, 0usize);
    for count in expected {
        if count < COCHRAN_FLOOR || (df == 1 && count < COCHRAN_MINIMUM) {
            return false;
        }
        cells += 1;
        small += usize::from(count < COCHRAN_MINIMUM);
    }
    small as f64 <= COCHRAN_SMALL_SHARE * cells as f64
}

/// Σ (observed − expected)² / expected.
fn pearson(rows: &[Vec<u64>], row_totals: &[u64], column_totals: &[u64], total: u64) -> f64 {
    let mut statistic = 0.0;
    for (row, &row_total) in rows.iter().zip(row_totals) {
        for (&count, &column_total) in row.iter().zip(column_totals) {
            // Products of counts are exact in f64 up to 2^53.
            let expected = row_total as f64 * column_total as f64 / total as f64;
            let difference = count as f64 - expected;
            statistic += difference * difference / expected;
        }
    }
    statistic
}

/// The statistics of [`REPLICATES`] random tables with the given totals.
fn simulate(row_totals: &[u64], column_totals: &[u64], total: u64, group: &str) -> Vec<f64> {
    let mut rng = montecarlo::stream(group, "wdl");
    let mut table: Vec<Vec<u64>> = vec![vec![0; column_totals.len()]; row_totals.len()];
    (0..REPLICATES)
        .map(|_| {
            let mut left: Vec<u64> = column_totals.to_vec();
            let mut left_total = total;
            for (row, &row_total) in table.iter_mut().zip(row_totals) {
                // Draw the row's games one column at a time: of the games
                // left, `left[j]` are of column j.
                let mut to_draw = row_total;
                let mut urn = left_total;
                for (j, cell) in row.iter_mut().enumerate() {
                    let count = if j + 1 == left.len() || to_draw == 0 {
                        to_draw
                    } else {
                        hypergeometric(&mut rng, urn, left[j], to_draw)
                    };
                    *cell = count;
                    urn -= left[j];
                    left[j] -= count;
                    to_draw -= count;
                }
                left_total -= row_total;
            }
            pearson(&table, row_totals, column_totals, total)
        })
        .collect()
}

/// The number of marked balls among `draws` drawn without replacement
/// from an urn of `urn` balls of which `marked` are marked.
fn hypergeometric(rng: &mut impl rand::Rng, urn: u64, marked: u64, draws: u64) -> u64 {
    if marked == 0 || draws == 0 {
        return 0;
    }
    if marked == urn {
        return draws;
    }
    if draws <= 64 {
        // A few draws: one uniform each is quicker than the sampler's
        // set-up.
        let (mut urn, mut marked, mut count) = (urn, marked, 0);
        for _ in 0..draws {
            if rng.random_range(0..urn) < marked {
                marked -= 1;
                count += 1;
            }
            urn -= 1;
        }
        return count;
    }
    match Hypergeometric::new(urn, marked, draws) {
        Ok(sampler) => sampler.sample(rng),
        // rand_distr refuses an urn of many balls when the mode is near
        // the least count (its inverse transform multiplies factorials and
        // overflows): there, walk the distribution from that count.
        Err(_) => inverse_transform(rng, urn, marked, draws),
    }
}

/// A hypergeometric draw by inversion: a uniform u, and the least count
/// whose cumulative probability reaches it, from the least possible count
/// up, its probability from log-factorials and the next ones by the ratio
/// P(x + 1)/P(x) = (K − x)(n − x)/((x + 1)(N − K − n + x + 1)). Quick only
/// where the mode is near the least count, where rand_distr refuses.
fn inverse_transform(rng: &mut impl rand::Rng, urn: u64, marked: u64, draws: u64) -> u64 {
    let least = (draws + marked).saturating_sub(urn);
    let most = draws.min(marked);
    let ln_choose = |n: u64, k: u64| {
        ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
    };
    let mut p = (ln_choose(marked, least) + ln_choose(urn - marked, draws - least)
        - ln_choose(urn, draws))
    .exp();
    let u: f64 = rng.random();
    let (mut x, mut cumulative) = (least, p);
    while cumulative < u && x < most {
        p *= (marked - x) as f64 * (draws - x) as f64
            / ((x + 1) as f64 * (urn - marked - draws + x + 1) as f64);
        x += 1;
        cumulative += p;
    }
    x
}

/// Σ over groups of the statistic, and its p-value: chi-square on the
/// summed degrees of freedom when every group's reference is chi-square,
/// else the replicates summed group by group (a chi-square draw for a
/// group referred to chi-square). `(statistic, df, p, reference)`.
pub fn pooled(tests: &[&ChiSquareTest]) -> Option<(f64, u64, f64, Reference)> {
    let mut sum = PooledSum::new("pooled wdl");
    for test in tests {
        if test.reference.is_some() {
            sum.add(
                Some(test.statistic),
                test.df,
                test.reference,
                &test.replicates,
            );
        }
    }
    sum.finish()
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn hypergeometric_draws_where_rand_distr_refuses_the_urn() {
        // 70,000 games, 100 of one result, a row of 5,000: rand_distr's
        // sampler overflows (the bench archive grouped by Event stopped
        // here with a panic). Mean and variance against the textbook
        // formulas, kn/N and kn/N(N − K)/N(N − n)/(N − 1), over 20,000
        // draws (standard errors about 0.019 and 0.13).
        let (urn, marked, draws) = (70_000u64, 100u64, 5_000u64);
        assert!(Hypergeometric::new(urn, marked, draws).is_err());
        let mut rng = montecarlo::stream("test", "hypergeometric");
        let samples: Vec<f64> = (0..20_000)
            .map(|_| hypergeometric(&mut rng, urn, marked, draws) as f64)
            .collect();
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let variance = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let (big_n, k, m) = (urn as f64, marked as f64, draws as f64);
        let want_mean = m * k / big_n;
        let want_variance = want_mean * (big_n - k) / big_n * (big_n - m) / (big_n - 1.0);
        assert!(
            (mean - want_mean).abs() < 0.08,
            "{mean} against {want_mean}"
        );
        assert!(
            (variance - want_variance).abs() < 0.5,
            "{variance} against {want_variance}"
        );
    }

    fn close(got: f64, want: f64) -> bool {
        (got / want - 1.0).abs() < 1e-9
    }

    #[test]
    fn matches_scipy() {
        // python3 -c "from scipy.stats import chi2_contingency as c;
        //   r = c([[30, 50, 20], [45, 40, 15], [10, 12, 3], [60, 90, 50]],
        //         correction=False); print(repr(r.statistic), r.dof, repr(r.pvalue))"
        let test = independence_test(&[[30, 50, 20], [45, 40, 15], [10, 12, 3], [60, 90, 50]], "")
            .expect("counts");
        assert!(close(test.statistic, 10.661776711076278), "{test:?}");
        assert_eq!(test.df, 6);
        assert!(
            close(test.p_value.expect("df 6"), 0.09940920503248286),
            "{test:?}"
        );
        assert_eq!(test.reference, Some(Reference::ChiSquare));
    }

    #[test]
    fn a_sparse_table_gets_the_monte_carlo_p_value_of_its_exact_test() {
        // Expected counts below 5: the p-value is a Monte-Carlo estimate
        // of the exact conditional one (the Freeman-Halton extension of
        // Fisher's test with Pearson's statistic), which enumerating the
        // 3 × 2 tables with these totals gives (python3: sum of
        // C(12,a)C(9,b)C(10,16-a-b)/C(31,16) over the tables whose
        // statistic reaches 8.420949): 0.01814621501792796. 999
        // replicates estimate it within 3 standard errors.
        // scipy.stats.chi2_contingency([[3, 9], [8, 1], [5, 5]],
        // correction=False) gives the statistic and df.
        let test =
            independence_test(&[[3, 0, 9], [0, 0, 0], [8, 0, 1], [5, 0, 5]], "").expect("counts");
        assert!(close(test.statistic, 8.420949074074075), "{test:?}");
        assert_eq!(test.df, 2);
        assert_eq!(test.reference, Some(Reference::MonteCarlo));
        let exact = 0.01814621501792796;
        let sd = (exact * (1.0 - exact) / REPLICATES as f64).sqrt();
        let p = test.p_value.expect("df 2");
        assert!((p - exact).abs() < 3.0 * sd + 1.0 / 1000.0, "{p}");
        // The same table, the same p-value: the stream is seeded.
        assert_eq!(
            independence_test(&[[3, 0, 9], [8, 0, 1], [5, 0, 5]], "")
                .expect("counts")
                .p_value,
            Some(p)
        );
        // Another group, another stream.
        let other = independence_test(&[[3, 0, 9], [8, 0, 1], [5, 0, 5]], "x").expect("counts");
        assert!((other.p_value.expect("df 2") - exact).abs() < 3.0 * sd + 1.0 / 1000.0);
    }

    #[test]
    fn cochrans_rule_allows_a_fifth_of_small_cells_and_none_below_one() {
        // Values from scipy 1.17.1:
        //   r = chi2_contingency(t, correction=False)
        //   r.statistic, r.dof, r.pvalue, (r.expected_freq < 5).mean(),
        //   r.expected_freq.min()
        // Three of fifteen cells (20%) expect fewer than 5, the least 4.24:
        // chi-square.
        let fifth = independence_test(
            &[
                [30, 9, 30],
                [35, 6, 28],
                [20, 4, 20],
                [18, 2, 24],
                [22, 5, 17],
            ],
            "",
        )
        .expect("counts");
        assert_eq!(fifth.reference, Some(Reference::ChiSquare));
        assert!(close(fifth.statistic, 4.658472397168049), "{fifth:?}");
        assert_eq!(fifth.df, 8);
        assert!(close(fifth.p_value.expect("df 8"), 0.7933770486818703));
        // Ten of 33 cells (30%) below 5, none below 1: Monte-Carlo.
        let third = independence_test(
            &[
                [30, 9, 30],
                [35, 6, 28],
                [20, 4, 20],
                [18, 2, 24],
                [22, 5, 17],
                [40, 1, 40],
                [38, 0, 36],
                [41, 2, 35],
                [44, 0, 33],
                [39, 1, 38],
                [90, 1, 85],
            ],
            "",
        )
        .expect("counts");
        assert_eq!(third.reference, Some(Reference::MonteCarlo));
        assert!(close(third.statistic, 49.36695316978295), "{third:?}");
        // One cell of 30 below 5, but at 0.914: Monte-Carlo.
        let below_one = independence_test(
            &[
                [100, 10, 95],
                [98, 12, 101],
                [90, 9, 99],
                [105, 8, 92],
                [97, 11, 100],
                [93, 10, 104],
                [99, 9, 96],
                [102, 11, 94],
                [96, 10, 100],
                [10, 0, 9],
            ],
            "",
        )
        .expect("counts");
        assert_eq!(below_one.reference, Some(Reference::MonteCarlo));
        assert!(close(below_one.statistic, 4.641615487367401));
        // One degree of freedom: every cell must expect 5; one of four
        // expects 3.83.
        let two_by_two = independence_test(&[[3, 0, 7], [20, 0, 30]], "").expect("counts");
        assert_eq!(two_by_two.df, 1);
        assert_eq!(two_by_two.reference, Some(Reference::MonteCarlo));
        assert!(close(two_by_two.statistic, 0.35252643948296103));
    }

    #[test]
    fn one_row_is_no_test_and_no_counts_none() {
        let one = independence_test(&[[4, 5, 6]], "").expect("counts");
        assert_eq!(
            (one.statistic, one.df, one.p_value, one.reference),
            (0.0, 0, None, None)
        );
        assert_eq!(independence_test::<3>(&[[0, 0, 0]], ""), None);
        assert_eq!(independence_test::<3>(&[], ""), None);
    }
}
