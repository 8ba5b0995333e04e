//! The tests across positions on simulated archives, where the truth is
//! known: when every position has the same result probabilities, the
//! tests over all positions must give p-values spread evenly over [0, 1]
//! (about 5% of them below 0.05, whatever the seed); when one position
//! gives White more, they must find it.
//!
//! Games are made in memory and counted through the library (`StatsTable`,
//! `Analysis`), as `stats` counts the games it reads: reading PGN is
//! tested elsewhere, and this way a few million games take seconds in a
//! debug build. Seeds are fixed, so every run sees the same archives.
//!
//! The archives: ratings drawn uniformly from 2450 to 2550, p the Elo
//! expectation of White, and White a further 0.05 better everywhere (the
//! first move's advantage that δ takes out). With draws, a game is drawn
//! with probability 0.3 and won by White with probability p + 0.05 − 0.15
//! (at least 0.26, at most 0.54 + 0.15 for the planted position, so every
//! probability is one); without draws, won with probability p + 0.05.
//! Either way White's expected points are p + 0.05 at every position.

use pgn960::BackRank;
use pgn960::stats::{Analysis, GameFacts, GameResult, GroupTests, StatsTable};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// White's advantage over the ratings at every position.
const WHITE_ADVANTAGE: f64 = 0.05;

/// The draw rate of the archives with draws.
const DRAW_RATE: f64 = 0.3;

/// The planted position and what it adds to White's expected points.
const PLANTED: u16 = 518;
const PLANTED_ADVANTAGE: f64 = 0.15;

/// One simulated archive's shape.
#[derive(Clone, Copy)]
struct Archive {
    positions: u16,
    games_per_position: u32,
    draws: bool,
    planted: bool,
}

impl Archive {
    /// The positions: spread over the 960, 518 among them.
    fn ids(&self) -> impl Iterator<Item = u16> {
        let step = BackRank::COUNT / self.positions;
        (0..self.positions).map(move |i| if i == 32 { PLANTED } else { i * step + 1 })
    }

    /// The tests over the archive drawn from `seed`.
    fn tests(&self, seed: u64) -> Analysis {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut table = StatsTable::default();
        for id in self.ids() {
            let position = BackRank::from_scharnagl(u32::from(id)).expect("ids below 960");
            let extra = if self.planted && id == PLANTED {
                PLANTED_ADVANTAGE
            } else {
                0.0
            };
            for _ in 0..self.games_per_position {
                let game = self.game(&mut rng, extra);
                table.add("", position, &game);
            }
        }
        let rows = table.groups().next().expect("games were added").1;
        Analysis::of(rows)
    }

    /// One game, White `extra` better than at the other positions.
    fn game(&self, rng: &mut ChaCha8Rng, extra: f64) -> GameFacts {
        let white: i32 = rng.random_range(2450..=2550);
        let black: i32 = rng.random_range(2450..=2550);
        let p = 1.0 / (1.0 + 10f64.powf(f64::from(black - white) / 400.0));
        let expected = p + WHITE_ADVANTAGE + extra;
        let u: f64 = rng.random();
        let result = if self.draws {
            let win = expected - DRAW_RATE / 2.0;
            if u < DRAW_RATE {
                GameResult::Draw
            } else if u < DRAW_RATE + win {
                GameResult::WhiteWins
            } else {
                GameResult::BlackWins
            }
        } else if u < expected {
            GameResult::WhiteWins
        } else {
            GameResult::BlackWins
        };
        GameFacts {
            result: Some(result),
            white_elo: Some(white),
            black_elo: Some(black),
        }
    }
}

/// The largest distance between the empirical distribution of `p_values`
/// and the uniform one (Kolmogorov–Smirnov's D).
fn distance_from_uniform(p_values: &[f64]) -> f64 {
    let mut sorted = p_values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    sorted
        .iter()
        .enumerate()
        .map(|(i, p)| (p - i as f64 / n).abs().max(((i + 1) as f64 / n - p).abs()))
        .fold(0.0, f64::max)
}

/// The `elo_p` and `wdl_p` of `seeds` archives.
fn null_p_values(archive: Archive, seeds: u64) -> (Vec<f64>, Vec<f64>) {
    let tests: Vec<GroupTests> = (0..seeds).map(|seed| archive.tests(seed).tests).collect();
    let take = |p: fn(&GroupTests) -> Option<f64>| -> Vec<f64> {
        tests.iter().map(|t| p(t).expect("a p-value")).collect()
    };
    (take(|t| t.elo_p), take(|t| t.wdl_p))
}

fn share_below(p_values: &[f64], level: f64) -> f64 {
    p_values.iter().filter(|&&p| p < level).count() as f64 / p_values.len() as f64
}

/// 300 archives: the share below 0.05 of a uniform p-value has standard
/// deviation 1.3%, so 8% is more than two of them above 5%; D's critical
/// value at 1% is 1.63 / √300 = 0.094.
const SEEDS: u64 = 300;
const MAX_SHARE_BELOW_5_PERCENT: f64 = 0.08;
const MAX_DISTANCE: f64 = 0.094;

fn assert_uniform(p_values: &[f64], what: &str) {
    let share = share_below(p_values, 0.05);
    let distance = distance_from_uniform(p_values);
    assert!(
        share <= MAX_SHARE_BELOW_5_PERCENT,
        "{what}: {share} below 0.05"
    );
    assert!(
        distance <= MAX_DISTANCE,
        "{what}: D = {distance} from uniform"
    );
}

#[test]
fn without_draws_both_tests_are_uniform_when_no_position_differs() {
    let archive = Archive {
        positions: 60,
        games_per_position: 100,
        draws: false,
        planted: false,
    };
    let (elo, wdl) = null_p_values(archive, SEEDS);
    assert_uniform(&elo, "elo_p");
    assert_uniform(&wdl, "wdl_p");
}

/// With draws, the results test stays uniform; the Elo test's variance,
/// Σp(1 − p), is that of games without draws, larger than these games'
/// (here about 0.17 a game against 0.25), so its p-values crowd towards
/// 1: it rejects less often than it should, never more.
#[test]
fn with_draws_the_results_test_is_uniform_and_the_elo_test_cautious() {
    let archive = Archive {
        positions: 60,
        games_per_position: 100,
        draws: true,
        planted: false,
    };
    let (elo, wdl) = null_p_values(archive, SEEDS);
    assert_uniform(&wdl, "wdl_p");
    assert!(
        share_below(&elo, 0.05) <= MAX_SHARE_BELOW_5_PERCENT,
        "elo_p"
    );
    let mean = elo.iter().sum::<f64>() / elo.len() as f64;
    assert!(mean > 0.6, "elo_p is cautious with draws: mean {mean}");
}

/// 518 gives White 0.15 more than the other 59 positions, with 400 games
/// each (z about 6 on average, so that a miss is a fault, not bad luck):
/// it is significant (with at most one other, by chance), and its
/// estimate is pulled towards the mean but stays above every other
/// position's.
#[test]
fn a_planted_white_advantage_is_found() {
    for draws in [true, false] {
        let archive = Archive {
            positions: 60,
            games_per_position: 400,
            draws,
            planted: true,
        };
        for seed in 0..10 {
            let analysis = archive.tests(seed);
            let what = format!("draws {draws}, seed {seed}");
            let tests = &analysis.tests;
            assert!(tests.significant.contains(&PLANTED), "{what}: {tests:?}");
            assert!(tests.significant.len() <= 2, "{what}: {tests:?}");
            let planted = analysis.positions[&PLANTED];
            assert!(
                planted.q_value.expect("tested") < 0.01,
                "{what}: {planted:?}"
            );
            assert!(planted.z.expect("tested") > 0.0, "{what}");
            // No claim on elo_p: one position among 60 adds about z² = 36
            // to a Q of about 59, which the test over all positions may
            // well miss; the q-values are what finds a single position.
            let mu = tests.shrink_mu.expect("a model");
            let shrunk = planted.shrunk.expect("an estimate").estimate;
            let best_other = analysis
                .positions
                .iter()
                .filter(|(id, _)| **id != PLANTED)
                .map(|(_, f)| f.shrunk.expect("an estimate").estimate)
                .fold(0.0, f64::max);
            assert!(
                shrunk > best_other && shrunk > mu,
                "{what}: {shrunk}, {best_other}, {mu}"
            );
        }
    }
}
