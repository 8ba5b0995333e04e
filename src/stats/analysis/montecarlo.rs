//! Where an approximation is not good enough, a test simulates the
//! archive under its null hypothesis: [`REPLICATES`] times, with a random
//! stream seeded from the group's name and the test's, so the same table
//! gives the same p-values on every run and machine, and a merge of shards
//! the same as one run. The p-value counts the replicates at least as
//! extreme as the archive, the archive included (Davison & Hinkley 1997,
//! §4.2.1): (1 + #{T* ≥ T}) / (1 + B), never 0.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{ChiSquared, Distribution};

use super::distributions::chi_square_upper_tail;
use super::elo::Reference;

/// B: the simulated archives per Monte-Carlo test. Its p-values are
/// multiples of 1/1000, the smallest 0.001.
pub const REPLICATES: usize = 999;

/// A random stream for the test named `purpose` of the group `group`:
/// ChaCha8 seeded with the FNV-1a hash of both.
pub fn stream(group: &str, purpose: &str) -> ChaCha8Rng {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in group.bytes().chain([0xff]).chain(purpose.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    ChaCha8Rng::seed_from_u64(hash)
}

/// (1 + #{replicates ≥ observed}) / (1 + B), with ties at the last digits
/// of a sum of floats counted as ties.
pub fn p_value(observed: f64, replicates: &[f64]) -> f64 {
    let tolerance = 1e-9 * observed.abs().max(1.0);
    let at_least = replicates
        .iter()
        .filter(|&&r| r >= observed - tolerance)
        .count();
    (1 + at_least) as f64 / (1 + replicates.len()) as f64
}

/// A statistic summed over groups, one group at a time in the groups'
/// order, with its p-value: chi-square on the summed degrees of freedom
/// when every group's reference is chi-square, else the groups'
/// replicates summed replicate by replicate, a group referred to
/// chi-square adding a chi-square draw from the stream of `purpose`.
///
/// It holds [`REPLICATES`] sums once a group is referred to Monte Carlo;
/// before that, the degrees of freedom of the groups referred to
/// chi-square, run-length encoded (their draws are made in their order
/// when the first Monte-Carlo group comes), 16 bytes for each run of equal
/// degrees of freedom.
#[derive(Clone, Debug)]
pub struct PooledSum {
    purpose: &'static str,
    statistic: f64,
    df: u64,
    tested: u64,
    chi_square_only: bool,
    deferred: Vec<(u64, u64)>,
    drawn: Option<(ChaCha8Rng, Vec<f64>)>,
}

impl PooledSum {
    /// Nothing summed yet; `purpose` names the random stream of the draws.
    pub fn new(purpose: &'static str) -> PooledSum {
        PooledSum {
            purpose,
            statistic: 0.0,
            df: 0,
            tested: 0,
            chi_square_only: true,
            deferred: Vec::new(),
            drawn: None,
        }
    }

    /// Adds the next tested group: its statistic (none adds nothing to the
    /// sum), degrees of freedom, reference and replicates (read only when
    /// the reference is Monte Carlo).
    pub fn add(
        &mut self,
        statistic: Option<f64>,
        df: u64,
        reference: Option<Reference>,
        replicates: &[f64],
    ) {
        self.tested += 1;
        if let Some(statistic) = statistic {
            self.statistic += statistic;
        }
        self.df += df;
        if reference != Some(Reference::ChiSquare) && self.chi_square_only {
            self.chi_square_only = false;
            let mut rng = stream("", self.purpose);
            let mut sums = vec![0.0; REPLICATES];
            for (df, count) in std::mem::take(&mut self.deferred) {
                for _ in 0..count {
                    add_chi_square_draws(&mut rng, &mut sums, df);
                }
            }
            self.drawn = Some((rng, sums));
        }
        match &mut self.drawn {
            None => match self.deferred.last_mut() {
                Some((last, count)) if *last == df => *count += 1,
                _ => self.deferred.push((df, 1)),
            },
            Some((_, sums)) if reference == Some(Reference::MonteCarlo) => {
                for (sum, r) in sums.iter_mut().zip(replicates) {
                    *sum += r;
                }
            }
            Some((rng, sums)) => add_chi_square_draws(rng, sums, df),
        }
    }

    /// `(statistic, df, p, reference)` over the groups added; none without
    /// any (or when the chi-square tail cannot be had).
    pub fn finish(self) -> Option<(f64, u64, f64, Reference)> {
        if self.tested == 0 {
            return None;
        }
        let (statistic, df) = (self.statistic, self.df);
        match self.drawn {
            None => Some((
                statistic,
                df,
                chi_square_upper_tail(statistic, df)?,
                Reference::ChiSquare,
            )),
            Some((_, sums)) => Some((
                statistic,
                df,
                p_value(statistic, &sums),
                Reference::MonteCarlo,
            )),
        }
    }
}

/// Adds a chi-square draw on `df` degrees of freedom to each sum.
fn add_chi_square_draws(rng: &mut ChaCha8Rng, sums: &mut [f64], df: u64) {
    let chi = ChiSquared::new(df as f64).expect("df > 0");
    for sum in sums.iter_mut() {
        *sum += chi.sample(rng);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn streams_depend_on_the_group_and_the_test_only() {
        let draw = |group, purpose| stream(group, purpose).random::<u64>();
        assert_eq!(draw("a", "elo"), draw("a", "elo"));
        assert_ne!(draw("a", "elo"), draw("a", "wdl"));
        assert_ne!(draw("a", "elo"), draw("b", "elo"));
        // The separator keeps ("ab", "c") apart from ("a", "bc").
        assert_ne!(draw("ab", "c"), draw("a", "bc"));
    }

    #[test]
    fn the_archive_counts_among_its_replicates() {
        assert_eq!(p_value(5.0, &[1.0, 2.0, 3.0]), 0.25);
        assert_eq!(p_value(2.0, &[1.0, 2.0, 3.0]), 0.75);
        assert_eq!(p_value(0.0, &[]), 1.0);
    }
}
