//! `pgn960 random`: draw start positions uniformly from all 960.

use std::io::{self, Write};

use anyhow::Context;
use pgn960::BackRank;
use rand::{RngExt, SeedableRng, rngs::SysRng};
use rand_chacha::ChaCha20Rng;

use super::EXIT_OK;

/// Draw Chess960 start positions uniformly at random from all 960.
///
/// Each draw prints one line in the format of `pgn960 id`:
///
///   SCHARNAGL FRITZ9 ARRANGEMENT
///
/// Without --seed the draws are unpredictable: the generator (ChaCha20) is
/// seeded from the operating system's cryptographic random source. With
/// --seed S it is seeded from S, and the same S gives the same draws on
/// every machine.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  $ pgn960 random
  $ pgn960 random --count 8
  $ pgn960 random --count 3 --seed 2024   # the same three every time")]
pub struct Args {
    /// How many positions to draw.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 1)]
    count: u64,

    /// Make the draws reproducible: ChaCha20 seeded from this number.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    // Both ways use ChaCha20, a cryptographic generator; only the seed
    // differs. Seeding from the OS once (rather than drawing every number
    // from `SysRng`) lets an OS failure come back as an error: `SysRng` is
    // fallible, but rand's range sampling needs an infallible generator.
    let mut rng = match args.seed {
        Some(seed) => ChaCha20Rng::seed_from_u64(seed),
        None => ChaCha20Rng::try_from_rng(&mut SysRng)
            .context("random: cannot read the operating system's random source")?,
    };

    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    for _ in 0..args.count {
        let id = rng.random_range(0..u32::from(BackRank::COUNT));
        let rank = BackRank::from_scharnagl(id).expect("drawn from 0..960");
        // The same line as `pgn960 id` prints.
        writeln!(out, "{} {} {}", rank.scharnagl(), rank.fritz9(), rank)?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}
