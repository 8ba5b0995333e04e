//! `pgn960 table`: all 960 start positions as CSV.

use std::io;

use pgn960::BackRank;

use super::EXIT_OK;

/// Print all 960 start positions as CSV, in Scharnagl order.
///
/// Columns: scharnagl (0-959), fritz9 (1-960), position (the back rank,
/// upper case), xfen and shredder_fen (the start position as FEN, white to
/// move, with X-FEN `KQkq` and Shredder-FEN rook-file castling rights).
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  $ pgn960 table | head -3
  scharnagl,fritz9,position,xfen,shredder_fen
  0,81,BBQNNRKR,bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1,bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1
  1,82,BQNBNRKR,bqnbnrkr/pppppppp/8/8/8/8/PPPPPPPP/BQNBNRKR w KQkq - 0 1,bqnbnrkr/pppppppp/8/8/8/8/PPPPPPPP/BQNBNRKR w HFhf - 0 1
  $ pgn960 table | grep ',RNBQKBNR,'")]
pub struct Args {}

#[derive(serde::Serialize)]
struct Row {
    scharnagl: u16,
    fritz9: u16,
    position: String,
    xfen: String,
    shredder_fen: String,
}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    let stdout = io::stdout();
    // csv buffers on its own; no BufWriter needed.
    let mut writer = csv::Writer::from_writer(stdout.lock());
    for rank in BackRank::all() {
        writer
            .serialize(Row {
                scharnagl: rank.scharnagl(),
                fritz9: rank.fritz9(),
                position: rank.to_string(),
                xfen: rank.to_xfen(),
                shredder_fen: rank.to_shredder_fen(),
            })
            .map_err(pgn960::stats::into_io)?;
    }
    writer.flush()?;
    Ok(EXIT_OK)
}
