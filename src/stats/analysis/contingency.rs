//! Pearson's chi-square test of independence: do the positions differ in
//! how often White wins, draws and loses, beyond what chance spreads? One
//! test over all positions at once, where a table of per-position scores
//! invites hundreds of comparisons.

use super::distributions::chi_square_upper_tail;

/// The outcome of a chi-square test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChiSquareTest {
    /// The statistic.
    pub statistic: f64,
    /// Its degrees of freedom.
    pub df: u64,
    /// The upper tail at the statistic; none for 0 degrees of freedom.
    pub p_value: Option<f64>,
}

/// Pearson's chi-square test of independence of rows and columns on a
/// table of counts, without continuity correction (scipy's
/// `chi2_contingency(table, correction=False)`). Rows and columns without
/// counts are dropped first, so that every expected count is positive;
/// df = (rows − 1)(columns − 1). None when the table holds no count.
///
/// ```
/// use pgn960::stats::independence_test;
///
/// // White wins, draws, Black wins at two positions.
/// let test = independence_test(&[[10, 0, 10], [20, 0, 0]]).expect("counts");
/// assert_eq!(test.df, 1); // the empty draws column is dropped
/// assert!((test.statistic - 13.333333333333334).abs() < 1e-12);
/// ```
pub fn independence_test<const C: usize>(table: &[[u64; C]]) -> Option<ChiSquareTest> {
    let rows: Vec<&[u64; C]> = table
        .iter()
        .filter(|row| row.iter().any(|&count| count > 0))
        .collect();
    let mut column_totals = [0u64; C];
    for row in &rows {
        for (total, count) in column_totals.iter_mut().zip(row.iter()) {
            *total += count;
        }
    }
    let columns: Vec<usize> = (0..C).filter(|&j| column_totals[j] > 0).collect();
    let total: u64 = column_totals.iter().sum();
    if total == 0 {
        return None;
    }
    let mut statistic = 0.0;
    for row in &rows {
        let row_total: u64 = row.iter().sum();
        for &j in &columns {
            // Products of counts are exact in f64 up to 2^53.
            let expected = row_total as f64 * column_totals[j] as f64 / total as f64;
            let difference = row[j] as f64 - expected;
            statistic += difference * difference / expected;
        }
    }
    let df = (rows.len() as u64 - 1) * (columns.len() as u64 - 1);
    Some(ChiSquareTest {
        statistic,
        df,
        p_value: chi_square_upper_tail(statistic, df),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64) -> bool {
        (got / want - 1.0).abs() < 1e-9
    }

    #[test]
    fn matches_scipy() {
        // python3 -c "from scipy.stats import chi2_contingency as c;
        //   r = c([[30, 50, 20], [45, 40, 15], [10, 12, 3], [60, 90, 50]],
        //         correction=False); print(repr(r.statistic), r.dof, repr(r.pvalue))"
        let test = independence_test(&[[30, 50, 20], [45, 40, 15], [10, 12, 3], [60, 90, 50]])
            .expect("counts");
        assert!(close(test.statistic, 10.661776711076278), "{test:?}");
        assert_eq!(test.df, 6);
        assert!(
            close(test.p_value.expect("df 6"), 0.09940920503248286),
            "{test:?}"
        );
    }

    #[test]
    fn empty_rows_and_columns_are_dropped() {
        // python3 -c "from scipy.stats import chi2_contingency as c;
        //   r = c([[3, 9], [8, 1], [5, 5]], correction=False);
        //   print(repr(r.statistic), r.dof, repr(r.pvalue))"
        let test =
            independence_test(&[[3, 0, 9], [0, 0, 0], [8, 0, 1], [5, 0, 5]]).expect("counts");
        assert!(close(test.statistic, 8.420949074074075), "{test:?}");
        assert_eq!(test.df, 2);
        assert!(
            close(test.p_value.expect("df 2"), 0.014839324857773221),
            "{test:?}"
        );
    }

    #[test]
    fn one_row_is_no_test_and_no_counts_none() {
        let one = independence_test(&[[4, 5, 6]]).expect("counts");
        assert_eq!((one.statistic, one.df, one.p_value), (0.0, 0, None));
        assert_eq!(independence_test::<3>(&[[0, 0, 0]]), None);
        assert_eq!(independence_test::<3>(&[]), None);
    }
}
