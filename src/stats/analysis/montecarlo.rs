//! Where an approximation is not good enough, a test simulates the
//! archive under its null hypothesis: [`REPLICATES`] times, with a random
//! stream seeded from the group's name and the test's, so the same table
//! gives the same p-values on every run and machine, and a merge of shards
//! the same as one run. The p-value counts the replicates at least as
//! extreme as the archive, the archive included (Davison & Hinkley 1997,
//! §4.2.1): (1 + #{T* ≥ T}) / (1 + B), never 0.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

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
