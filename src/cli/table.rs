//! `pgn960 table`: all 960 start positions as CSV.

use std::io;

use pgn960::BackRank;
use pgn960::position::FEATURE_COLUMNS;

use super::EXIT_OK;

/// Print all 960 start positions as CSV, in Scharnagl order.
///
/// Columns: scharnagl (0-959), fritz9 (1-960), position (the back rank,
/// upper case), xfen and shredder_fen (the start position as FEN, white to
/// move, with X-FEN `KQkq` and Shredder-FEN rook-file castling rights);
/// then the position's features: the files (a-h) of the king, the queen,
/// the knights (knight_file_1 nearer the a-file), the rooks (queenside
/// then kingside), White's light- and dark-squared bishops (a1 is dark),
/// and mirror_scharnagl, the number of the arrangement reversed (a<->h).
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  $ pgn960 table | head -2
  scharnagl,fritz9,position,xfen,shredder_fen,king_file,queen_file,knight_file_1,knight_file_2,queenside_rook_file,kingside_rook_file,light_bishop_file,dark_bishop_file,mirror_scharnagl
  0,81,BBQNNRKR,bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1,bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1,g,c,d,e,f,h,b,a,959
  $ pgn960 table | grep ',RNBQKBNR,'")]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<u8> {
    let stdout = io::stdout();
    // csv buffers on its own; no BufWriter needed.
    let mut writer = csv::Writer::from_writer(stdout.lock());
    let mut header = vec!["scharnagl", "fritz9", "position", "xfen", "shredder_fen"];
    header.extend(FEATURE_COLUMNS);
    writer
        .write_record(&header)
        .map_err(pgn960::stats::into_io)?;
    for rank in BackRank::all() {
        let mut record = vec![
            rank.scharnagl().to_string(),
            rank.fritz9().to_string(),
            rank.to_string(),
            rank.to_xfen(),
            rank.to_shredder_fen(),
        ];
        record.extend(rank.features().cells().map(|cell| cell.to_string()));
        writer
            .write_record(&record)
            .map_err(pgn960::stats::into_io)?;
    }
    writer.flush()?;
    Ok(EXIT_OK)
}
