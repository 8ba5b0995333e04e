//! FEN text: its board part read with a diagnosis of what is wrong with
//! it, which shakmaty (rightly terse) does not give.

use std::{error::Error, fmt};

use shakmaty::{
    Board, Rank,
    fen::{Fen, ParseFenError},
};

use super::{BoardStart, classify_board};

/// Tells whether a FEN's board is a start array.
///
/// Accepts X-FEN and Shredder-FEN castling rights, and a lone board part
/// with the other fields left out. Side to move, castling rights, en
/// passant square and clocks must be well-formed but do not change the
/// answer.
///
/// # Errors
///
/// [`FenError`] if the FEN does not parse.
///
/// # Examples
///
/// ```
/// use pgn960::position::{classify_fen, BoardStart, FenError};
/// use pgn960::{BackRank, StartArray};
///
/// let standard = BoardStart::Start(StartArray::Chess960(BackRank::STANDARD));
/// assert_eq!(classify_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")?, standard);
/// assert_eq!(classify_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")?, standard);
/// assert_eq!(
///     classify_fen("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
///     Err(FenError::RankCount(7))
/// );
/// # Ok::<_, FenError>(())
/// ```
pub fn classify_fen(fen: &str) -> Result<BoardStart, FenError> {
    parse_fen_board(fen).map(|board| classify_board(&board))
}

/// Parses a FEN and returns its board: the parsing half of
/// [`classify_fen`], for callers that also need the board itself (to compare
/// two FENs' placements, say).
///
/// Accepts what [`classify_fen`] accepts. Problems with the board part are
/// diagnosed here (shakmaty only says that it is broken); the other fields
/// are checked by shakmaty and then ignored.
///
/// # Errors
///
/// [`FenError`] if the FEN does not parse.
///
/// # Examples
///
/// ```
/// use pgn960::position::{parse_fen_board, FenError};
/// use shakmaty::Board;
///
/// assert_eq!(parse_fen_board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 3 9")?, Board::new());
/// assert_eq!(parse_fen_board("8/8/8/9/8/8/8/8"), Err(FenError::BoardChar('9')));
/// # Ok::<_, FenError>(())
/// ```
pub fn parse_fen_board(fen: &str) -> Result<Board, FenError> {
    let fen = fen.trim_ascii();
    // shakmaty separates fields by spaces or underscores.
    let board_part = fen
        .split([' ', '_'])
        .find(|part| !part.is_empty())
        .ok_or(FenError::Empty)?;
    check_board_part(board_part)?;
    let setup = Fen::from_ascii(fen.as_bytes())
        .map_err(FenError::Other)?
        .into_setup();
    Ok(setup.board)
}

/// Parses only a FEN's placement (its first field); the other fields may
/// be anything. This is how archives are classified: side to move,
/// castling rights and clocks never change a game's start array, so a
/// broken castling field must not cost a game its number (`validate`
/// reports it instead).
///
/// # Errors
///
/// [`FenError`] if the placement does not parse.
///
/// # Examples
///
/// ```
/// use pgn960::position::parse_placement;
/// use shakmaty::Board;
///
/// let board = parse_placement("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w XYZ - 0 1")?;
/// assert_eq!(board, Board::new());
/// # Ok::<_, pgn960::position::FenError>(())
/// ```
pub fn parse_placement(fen: &str) -> Result<Board, FenError> {
    let board_part = fen
        .split([' ', '_'])
        .find(|part| !part.is_empty())
        .ok_or(FenError::Empty)?;
    check_board_part(board_part)?;
    Board::from_ascii_board_fen(board_part.as_bytes()).map_err(FenError::Other)
}

/// Checks the shape of a FEN's board part: 8 ranks of 8 squares, piece
/// letters and digits 1 to 8 only, no Crazyhouse pockets or markers.
pub(crate) fn check_board_part(board_part: &str) -> Result<(), FenError> {
    if board_part.contains(['[', ']', '~']) {
        return Err(FenError::Crazyhouse);
    }
    let ranks = board_part.split('/').count();
    if ranks != 8 {
        return Err(FenError::RankCount(ranks));
    }
    for (index, rank) in board_part.split('/').enumerate() {
        let mut squares = 0;
        for ch in rank.chars() {
            squares += match ch {
                '1'..='8' => ch as usize - '0' as usize,
                'p' | 'n' | 'b' | 'r' | 'q' | 'k' | 'P' | 'N' | 'B' | 'R' | 'Q' | 'K' => 1,
                _ => return Err(FenError::BoardChar(ch)),
            };
        }
        if squares != 8 {
            return Err(FenError::RankWidth {
                rank: Rank::new(7 - index as u32),
                squares,
            });
        }
    }
    Ok(())
}

/// A FEN that does not parse.
///
/// Problems with the board part are diagnosed here; problems with the other
/// fields are shakmaty's [`ParseFenError`].
#[derive(Clone, Eq, PartialEq, Debug)]
pub enum FenError {
    /// Nothing but white space.
    Empty,
    /// The board part does not have 8 ranks; carries how many it has.
    RankCount(usize),
    /// A rank of the board part does not describe 8 squares.
    RankWidth {
        /// The rank (the board part starts with rank 8).
        rank: Rank,
        /// How many squares it describes.
        squares: usize,
    },
    /// A character in the board part that is neither a piece letter, a digit
    /// 1 to 8 nor `/`.
    BoardChar(char),
    /// Crazyhouse pockets or promotion markers (`[`, `]`, `~`).
    Crazyhouse,
    /// A problem shakmaty found in the other fields (side to move, castling,
    /// en passant, clocks).
    Other(ParseFenError),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => f.write_str("empty FEN"),
            FenError::RankCount(1) => f.write_str("board part has 1 rank, not 8"),
            FenError::RankCount(ranks) => write!(f, "board part has {ranks} ranks, not 8"),
            FenError::RankWidth { rank, squares } => {
                write!(
                    f,
                    "rank {rank} of the board part has {squares} squares, not 8"
                )
            }
            FenError::BoardChar(ch) => {
                write!(f, "board part has {ch:?}, not a piece letter or digit 1-8")
            }
            FenError::Crazyhouse => {
                f.write_str("board part has Crazyhouse pockets or promotion markers")
            }
            FenError::Other(err) => err.fmt(f),
        }
    }
}

// No `source()` for `Other`: the message already is shakmaty's, and a
// cause chain would print it twice.
impl Error for FenError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_errors() {
        let error = |fen: &str| classify_fen(fen).unwrap_err().to_string();
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            "board part has 7 ranks, not 8"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            "board part has 9 ranks, not 8"
        );
        assert_eq!(
            error("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            "rank 7 of the board part has 7 squares, not 8"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX"),
            "board part has 'X', not a piece letter or digit 1-8"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"),
            "invalid turn part in fen"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqz - 0 1"),
            "invalid castling part in fen"
        );
        assert_eq!(error("   "), "empty FEN");
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"),
            "board part has Crazyhouse pockets or promotion markers"
        );
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;
        use crate::StartArray;

        proptest! {
            #[test]
            fn fen_reading_never_panics(fen in "[pnbrqkPNBRQK0-9/ wb_KQkqA-Ha-h~\\[\\]-]{0,90}") {
                let _ = classify_fen(&fen);
                let _ = StartArray::from_fen(&fen);
            }
        }
    }
}
