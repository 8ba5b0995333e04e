//! What an archive could have found: "nothing significant" is an answer
//! only together with the size of effect the archive could have seen.
//!
//! - Per position: the shift of White's score that a position with the
//!   median number of games would show at q < 0.05 with probability 0.8,
//!   were it the only position that differs among the m tested (it must
//!   then reach p < 0.05/m): (z₁₋₀.₀₂₅/ₘ + z₀.₈)·√v, v the variance of its
//!   score under the null model (the normal approximation).
//! - Over positions: the spread τ of true scores that Cochran's Q detects
//!   at 0.05 with probability 0.8, from the mean and variance of Q under
//!   τ² (Biggerstaff & Tweedie 1997), Q taken as a scaled chi-square with
//!   them (Hedges & Pigott 2001).

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

/// The power these sizes are stated at.
pub const POWER: f64 = 0.8;

/// The level.
const ALPHA: f64 = 0.05;

/// The score shift detectable at the variance `v` among `tests` tests.
pub fn detectable_shift(v: f64, tests: u64) -> Option<f64> {
    if tests == 0 || v <= 0.0 {
        return None;
    }
    let normal = Normal::standard();
    let z_alpha = normal.inverse_cdf(1.0 - ALPHA / 2.0 / tests as f64);
    let z_power = normal.inverse_cdf(POWER);
    Some((z_alpha + z_power) * v.sqrt())
}

/// The probability that Q exceeds the 95% point of chi-square(k − 1) when
/// the true scores spread by `tau`, for positions of variances `v`.
pub fn heterogeneity_power(v: &[f64], tau: f64) -> Option<f64> {
    let k = v.len();
    if k < 2 {
        return None;
    }
    let (s1, s2, s3) = v.iter().fold((0.0, 0.0, 0.0), |(a, b, c), vi| {
        let w = 1.0 / vi;
        (a + w, b + w * w, c + w * w * w)
    });
    let df = (k - 1) as f64;
    let t2 = tau * tau;
    let mean = df + t2 * (s1 - s2 / s1);
    let variance = 2.0 * df
        + 4.0 * t2 * (s1 - s2 / s1)
        + 2.0 * t2 * t2 * (s2 - 2.0 * s3 / s1 + s2 * s2 / (s1 * s1));
    let critical = ChiSquared::new(df).ok()?.inverse_cdf(1.0 - ALPHA);
    let scale = variance / (2.0 * mean);
    let shape = 2.0 * mean * mean / variance;
    Some(1.0 - ChiSquared::new(shape).ok()?.cdf(critical / scale))
}

/// The least τ (up to ½) with [`POWER`]; none when even ½ falls short.
pub fn detectable_tau(v: &[f64]) -> Option<f64> {
    if heterogeneity_power(v, 0.5)? < POWER {
        return None;
    }
    let (mut low, mut high) = (0.0, 0.5);
    for _ in 0..100 {
        let middle = (low + high) / 2.0;
        if heterogeneity_power(v, middle)? < POWER {
            low = middle;
        } else {
            high = middle;
        }
    }
    Some(high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_scipy_and_the_traces_of_q() {
        // reference.py units: "power" (scipy's normal quantiles; the mean
        // and variance of Q as traces of its quadratic form in numpy).
        let shift = detectable_shift(0.004, 600).expect("a variance");
        assert!((shift - 0.3020751248566239).abs() < 1e-9, "{shift}");
        let v = [0.004, 0.006, 0.01, 0.003, 0.008, 0.005];
        let power = heterogeneity_power(&v, 0.05).expect("six positions");
        assert!((power - 0.18615240695781127).abs() < 1e-9, "{power}");
        let tau = detectable_tau(&v).expect("within ½");
        assert!((tau - 0.14394940133310072).abs() < 1e-9, "{tau}");
        assert_eq!(detectable_shift(0.0, 10), None);
        assert_eq!(heterogeneity_power(&[0.01], 0.1), None);
    }
}
