//! `pgn960 id`: the numbers of back-rank arrangements and start FENs.

use std::io::{self, Write};

use pgn960::{BackRank, StartArray};

use super::{EXIT_ERROR, EXIT_OK};

/// Print the Scharnagl and Fritz9 numbers of arrangements or start FENs.
///
/// Each input is a back-rank arrangement such as RNBQKBNR (either case) or,
/// if it contains a '/', a FEN (X-FEN or Shredder-FEN castling, or just the
/// board part). For each input one line is printed:
///
///   SCHARNAGL FRITZ9 ARRANGEMENT
///
/// A Double FRC FEN (different back ranks for white and black) prints six
/// fields: white's three, then black's three with black's arrangement in
/// lower case, as in a FEN.
///
/// A bad input gets a one-line message on stderr naming it and the problem;
/// the other inputs are still printed, and the exit code is 2.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  $ pgn960 id RNBQKBNR
  518 359 RNBQKBNR
  $ pgn960 id bbqnnrkr 'rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1'
  0 81 BBQNNRKR
  959 928 RKRNNQBB
  $ pgn960 id 'bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
  518 359 RNBQKBNR 0 81 bbqnnrkr")]
pub struct Args {
    /// Arrangements (RNBQKBNR) or FENs.
    #[arg(required = true, value_name = "ARRANGEMENT|FEN")]
    inputs: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut failed = false;
    for input in &args.inputs {
        let start = if input.contains('/') {
            StartArray::from_fen(input).map_err(|err| err.to_string())
        } else {
            input
                .parse::<BackRank>()
                .map(StartArray::Chess960)
                .map_err(|err| err.to_string())
        };
        match start {
            Ok(StartArray::Chess960(rank)) => {
                writeln!(out, "{} {} {}", rank.scharnagl(), rank.fritz9(), rank)?;
            }
            Ok(StartArray::DoubleFrc { white, black }) => writeln!(
                out,
                "{} {} {} {} {} {}",
                white.scharnagl(),
                white.fritz9(),
                white,
                black.scharnagl(),
                black.fritz9(),
                black.to_string().to_ascii_lowercase(),
            )?,
            Err(message) => {
                // Flushed first so that on a terminal the message appears
                // after the lines of the inputs before it.
                out.flush()?;
                // Debug quoting keeps the message on one line whatever the
                // input holds.
                eprintln!("pgn960: id: {input:?}: {message}");
                failed = true;
            }
        }
    }
    out.flush()?;
    Ok(if failed { EXIT_ERROR } else { EXIT_OK })
}
