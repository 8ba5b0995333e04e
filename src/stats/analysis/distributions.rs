//! The two tail probabilities the tests need, taken from statrs rather
//! than written by hand: a well-kept implementation of the incomplete gamma
//! and complementary error functions is accurate far into the tails, where
//! the p-values of a large archive live.

use statrs::distribution::{ChiSquared, ContinuousCDF};
use statrs::function::erf::erfc;

/// 2(1 − Φ(|z|)), computed as erfc(|z| / √2) so that it keeps its digits
/// when it is tiny (1 − Φ would round to 0 beyond |z| ≈ 8.3).
pub fn two_sided_normal_p(z: f64) -> f64 {
    erfc(z.abs() / std::f64::consts::SQRT_2)
}

/// The upper tail of the chi-square distribution with `df` degrees of
/// freedom at `statistic`; none for `df` = 0, which has no distribution.
pub fn chi_square_upper_tail(statistic: f64, df: u64) -> Option<f64> {
    if df == 0 {
        return None;
    }
    let distribution = ChiSquared::new(df as f64).expect("a positive df is a chi-square");
    Some(distribution.sf(statistic))
}

#[cfg(test)]
mod tests {
    use statrs::distribution::{ContinuousCDF, Normal};

    use super::*;
    use crate::stats::{Z_95, Z_998};

    #[test]
    fn the_z_constants_are_the_normal_quantiles() {
        let normal = Normal::standard();
        assert!((normal.inverse_cdf(0.975) - Z_95).abs() < 5e-7);
        assert!((normal.inverse_cdf(0.999) - Z_998).abs() < 5e-7);
    }

    #[test]
    fn tails_match_scipy() {
        // python3 -c "from scipy.stats import norm, chi2;
        //   print(repr(2*norm.sf(1.959964)), repr(2*norm.sf(9.5)),
        //         repr(chi2.sf(12.3, 4)), repr(chi2.sf(3000, 959)))"
        let close = |got: f64, want: f64| (got / want - 1.0).abs() < 1e-9;
        assert!(close(two_sided_normal_p(1.959964), 0.049999998192884795));
        assert!(close(two_sided_normal_p(-9.5), 2.098903015072521e-21));
        let p = chi_square_upper_tail(12.3, 4).expect("df 4");
        assert!(close(p, 0.015254394655769615), "{p}");
        let p = chi_square_upper_tail(3000.0, 959).expect("df 959");
        assert!(close(p, 1.705660931218074e-208), "{p}");
        assert_eq!(chi_square_upper_tail(1.0, 0), None);
    }
}
