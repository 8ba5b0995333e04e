//! Benjamini–Hochberg q-values: with one test per position, hundreds of
//! p-values are read at once, and some fall below 0.05 by chance alone. A
//! position whose q-value is below 0.05 is one of a set of discoveries of
//! which at most 5% are expected to be false.

/// The Benjamini–Hochberg adjusted p-value (q-value) of each of
/// `p_values`, in the same order: for the p-value of rank i among m,
/// the least m·p(j)/j over the ranks j ≥ i, at most 1 (scipy's
/// `false_discovery_control(p, method="bh")`, R's `p.adjust(p, "BH")`).
///
/// ```
/// let q = pgn960::stats::benjamini_hochberg(&[0.01, 0.04, 0.03, 0.5]);
/// assert_eq!(q, [0.04, 0.04 * 4.0 / 3.0, 0.04 * 4.0 / 3.0, 0.5]);
/// ```
pub fn benjamini_hochberg(p_values: &[f64]) -> Vec<f64> {
    let mut q_values = p_values.to_vec();
    benjamini_hochberg_in_place(&mut q_values);
    q_values
}

/// [`benjamini_hochberg`] in place: each p-value is replaced by its
/// q-value. Beside the values, it holds 4 bytes per value while it runs.
pub fn benjamini_hochberg_in_place(values: &mut [f64]) {
    let m = values.len();
    let mut order: Vec<u32> = (0..u32::try_from(m).expect("fewer than 2^32 p-values")).collect();
    // Equal p-values get equal q-values whatever their order, so a stable
    // sort is only for determinism.
    order.sort_by(|&a, &b| values[a as usize].total_cmp(&values[b as usize]));
    let mut least = 1.0_f64;
    // Each value is read at its rank before it is overwritten, and only
    // the ranks above it have been.
    for (rank, &index) in order.iter().enumerate().rev() {
        let index = index as usize;
        least = least.min(values[index] * m as f64 / (rank + 1) as f64);
        values[index] = least;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_scipy() {
        // python3 -c "from scipy.stats import false_discovery_control as f;
        //   print(list(f([0.2, 1e-6, 0.04, 0.04, 0.9, 0.012, 0.3, 0.049],
        //                method='bh')))"
        let p = [0.2, 1e-6, 0.04, 0.04, 0.9, 0.012, 0.3, 0.049];
        let want = [
            0.26666666666666666,
            8e-06,
            0.07840000000000001,
            0.07840000000000001,
            0.9,
            0.048,
            0.3428571428571428,
            0.07840000000000001,
        ];
        for (got, want) in benjamini_hochberg(&p).iter().zip(want) {
            assert!((got / want - 1.0).abs() < 1e-12, "{got} against {want}");
        }
        assert!(benjamini_hochberg(&[]).is_empty());
        assert_eq!(benjamini_hochberg(&[0.7]), [0.7]);
    }
}
