//! Start arrays on a board: a Chess960 start (one back rank for both
//! sides) or a Double FRC pair, told apart from every other position
//! without allocating, since it runs once per game.

use std::{error::Error, fmt};

use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Setup, Square, fen::Fen};

use super::{BackRank, BackRankError, FenError, parse_fen_board};

const RANK_1: Bitboard = Bitboard::from_rank(Rank::First);
const RANK_2: Bitboard = Bitboard::from_rank(Rank::Second);
const RANK_7: Bitboard = Bitboard::from_rank(Rank::Seventh);
const RANK_8: Bitboard = Bitboard::from_rank(Rank::Eighth);
const WHITE_HOME: Bitboard = RANK_1.with_const(RANK_2);
const BLACK_HOME: Bitboard = RANK_7.with_const(RANK_8);
const PAWN_HOME: Bitboard = RANK_2.with_const(RANK_7);

/// The roles a back rank can hold, in the order [`classify_board`] reads
/// them from the board's bitboards.
const PIECE_ROLES: [Role; 5] = [
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// The start of a game: one back rank for both sides (Chess960), or a
/// different one for each (Double FRC).
///
/// # Examples
///
/// ```
/// use pgn960::{BackRank, StartArray};
///
/// let start = StartArray::from_fen("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")?;
/// assert_eq!(start.white(), BackRank::STANDARD);
/// assert_eq!(start.black().scharnagl(), 0);
/// assert_eq!(start.scharnagl(), None); // Double FRC has no single number
/// # Ok::<_, pgn960::position::StartFenError>(())
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Ord, PartialOrd, Debug)]
pub enum StartArray {
    /// Both sides start from the same back rank.
    Chess960(BackRank),
    /// Each side starts from its own back rank. Built by this crate only
    /// when the two differ.
    DoubleFrc {
        /// White's back rank (rank 1).
        white: BackRank,
        /// Black's back rank (rank 8), read from the a-file.
        black: BackRank,
    },
}

impl StartArray {
    /// `Chess960` if the two back ranks are equal, `DoubleFrc` otherwise.
    pub fn from_back_ranks(white: BackRank, black: BackRank) -> StartArray {
        if white == black {
            StartArray::Chess960(white)
        } else {
            StartArray::DoubleFrc { white, black }
        }
    }

    /// Reads a start array from a FEN; see [`classify_fen`](super::classify_fen) for what is
    /// accepted.
    ///
    /// # Errors
    ///
    /// [`StartFenError::Fen`] if the FEN does not parse,
    /// [`StartFenError::NotAStart`] with the first wrong square if the board
    /// is not a start array of any kind, and
    /// [`StartFenError::IllegalBackRank`] if it has the shape of one but a
    /// back rank breaks a Chess960 rule.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::{BackRank, StartArray};
    ///
    /// let start = StartArray::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1")?;
    /// assert_eq!(start, StartArray::Chess960(BackRank::STANDARD));
    ///
    /// let err = StartArray::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    /// assert_eq!(
    ///     err.unwrap_err().to_string(),
    ///     "not a start position: e2 is empty (rank 2 must be full of white pawns)"
    /// );
    /// # Ok::<_, pgn960::position::StartFenError>(())
    /// ```
    pub fn from_fen(fen: &str) -> Result<StartArray, StartFenError> {
        let board = parse_fen_board(fen).map_err(StartFenError::Fen)?;
        match classify_board(&board) {
            BoardStart::Start(start) => Ok(start),
            BoardStart::IllegalBackRank { white, black } => {
                Err(StartFenError::IllegalBackRank { white, black })
            }
            BoardStart::NotAStart => {
                let (square, found) = first_misplaced(&board)
                    .expect("a board that is not a start has a wrong square");
                Err(StartFenError::NotAStart { square, found })
            }
        }
    }

    /// White's back rank.
    pub fn white(&self) -> BackRank {
        match *self {
            StartArray::Chess960(rank) => rank,
            StartArray::DoubleFrc { white, .. } => white,
        }
    }

    /// Black's back rank, read from the a-file like white's.
    pub fn black(&self) -> BackRank {
        match *self {
            StartArray::Chess960(rank) => rank,
            StartArray::DoubleFrc { black, .. } => black,
        }
    }

    /// The Scharnagl number of a Chess960 start; `None` for Double FRC,
    /// which has no single number.
    pub fn scharnagl(&self) -> Option<u16> {
        match self {
            StartArray::Chess960(rank) => Some(rank.scharnagl()),
            StartArray::DoubleFrc { .. } => None,
        }
    }

    /// The Fritz9 number of a Chess960 start; `None` for Double FRC.
    pub fn fritz9(&self) -> Option<u16> {
        match self {
            StartArray::Chess960(rank) => Some(rank.fritz9()),
            StartArray::DoubleFrc { .. } => None,
        }
    }

    /// The full start position.
    pub fn board(&self) -> Board {
        let (white, black) = (self.white(), self.black());
        let mut board = Board::empty();
        for file in File::ALL {
            let index = file.to_usize();
            for (rank, piece) in [
                (Rank::First, white.roles()[index].of(Color::White)),
                (
                    Rank::Second,
                    Piece {
                        color: Color::White,
                        role: Role::Pawn,
                    },
                ),
                (
                    Rank::Seventh,
                    Piece {
                        color: Color::Black,
                        role: Role::Pawn,
                    },
                ),
                (Rank::Eighth, black.roles()[index].of(Color::Black)),
            ] {
                board.set_piece_at(Square::from_coords(file, rank), piece);
            }
        }
        board
    }

    /// The start position as X-FEN (white to move, all castling rights,
    /// `KQkq`). See [`BackRank::to_xfen`].
    pub fn to_xfen(&self) -> String {
        let board = self.board();
        let setup = Setup {
            castling_rights: board.rooks(),
            board,
            ..Setup::empty()
        };
        Fen::try_from_setup(setup)
            .expect("two castling rooks per side always fit in a FEN")
            .to_string()
    }

    /// The start position as Shredder-FEN (castling rights by rook file,
    /// e.g. `HAha`). See [`BackRank::to_shredder_fen`].
    pub fn to_shredder_fen(&self) -> String {
        // shakmaty writes only X-FEN castling rights, so the castling field
        // is written here; the board part is shakmaty's.
        let [white_a, white_h] = self.white().rook_files();
        let [black_a, black_h] = self.black().rook_files();
        format!(
            "{} w {}{}{}{} - 0 1",
            self.board().board_fen(),
            white_h.upper_char(),
            white_a.upper_char(),
            black_h.char(),
            black_a.char(),
        )
    }
}

/// What a board is, as far as the start of a game goes.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum BoardStart {
    /// A Chess960 start array or a Double FRC pair.
    Start(StartArray),
    /// Pawn rows full, each back rank holding eight pieces (not pawns) of its
    /// own colour, nothing else on the board — but at least one back rank
    /// breaks a Chess960 rule (piece set, bishop colours, or king between the
    /// rooks). Black's back rank is read from the a-file.
    IllegalBackRank {
        /// White's back rank, or the rule it breaks.
        white: Result<BackRank, BackRankError>,
        /// Black's back rank, or the rule it breaks.
        black: Result<BackRank, BackRankError>,
    },
    /// Anything else: a piece off its home ranks, a missing or extra piece,
    /// a pawn out of place, a piece of the wrong colour.
    NotAStart,
}

/// Tells whether `board` is a start array.
///
/// A Chess960 start: rank 1 a legal arrangement of white pieces, rank 2 full
/// of white pawns, rank 7 full of black pawns, rank 8 the same arrangement in
/// black, nothing else. Double FRC: the same but with two different legal
/// arrangements. See [`BoardStart`] for the rest.
///
/// Does not allocate: three bitboard comparisons reject most boards, and
/// only boards of the right shape have their back ranks read.
///
/// # Examples
///
/// ```
/// use pgn960::position::{classify_board, BoardStart};
/// use pgn960::{BackRank, StartArray};
/// use shakmaty::Board;
///
/// assert_eq!(
///     classify_board(&Board::chess960(518)),
///     BoardStart::Start(StartArray::Chess960(BackRank::STANDARD))
/// );
/// assert_eq!(classify_board(&Board::empty()), BoardStart::NotAStart);
/// ```
pub fn classify_board(board: &Board) -> BoardStart {
    if board.white() != WHITE_HOME || board.black() != BLACK_HOME || board.pawns() != PAWN_HOME {
        return BoardStart::NotAStart;
    }
    // Now ranks 1 and 8 are full of their own side's non-pawn pieces.
    let white = BackRank::from_roles(back_rank_roles(board, RANK_1));
    let black = BackRank::from_roles(back_rank_roles(board, RANK_8));
    match (white, black) {
        (Ok(white), Ok(black)) => BoardStart::Start(StartArray::from_back_ranks(white, black)),
        (white, black) => BoardStart::IllegalBackRank { white, black },
    }
}

/// The roles on one fully occupied, pawn-free back rank.
fn back_rank_roles(board: &Board, rank: Bitboard) -> [Role; 8] {
    let mut roles = [Role::Pawn; 8];
    for role in PIECE_ROLES {
        for square in board.by_role(role) & rank {
            roles[square.file().to_usize()] = role;
        }
    }
    roles
}

/// The first square (a1, b1, …, h8) that keeps `board` from having the
/// shape of a start array, with what stands there.
fn first_misplaced(board: &Board) -> Option<(Square, Option<Piece>)> {
    let white_pieces = board.white() & !board.pawns();
    let black_pieces = board.black() & !board.pawns();
    let white_pawns = board.white() & board.pawns();
    let black_pawns = board.black() & board.pawns();
    let middle = !(WHITE_HOME | BLACK_HOME);
    let wrong = (RANK_1 & !white_pieces)
        | (RANK_2 & !white_pawns)
        | (RANK_7 & !black_pawns)
        | (RANK_8 & !black_pieces)
        | (middle & board.occupied());
    wrong.first().map(|square| (square, board.piece_at(square)))
}

/// Why a FEN is not a start array; see [`StartArray::from_fen`].
#[derive(Clone, Eq, PartialEq, Debug)]
pub enum StartFenError {
    /// The FEN does not parse.
    Fen(FenError),
    /// The board is not a start array of any kind.
    NotAStart {
        /// The first wrong square, from a1 to h8.
        square: Square,
        /// What stands there.
        found: Option<Piece>,
    },
    /// The board has the shape of a start array, but a back rank breaks a
    /// Chess960 rule (at least one side is an `Err`).
    IllegalBackRank {
        /// White's back rank, or the rule it breaks.
        white: Result<BackRank, BackRankError>,
        /// Black's back rank, or the rule it breaks.
        black: Result<BackRank, BackRankError>,
    },
}

impl fmt::Display for StartFenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartFenError::Fen(err) => err.fmt(f),
            StartFenError::NotAStart { square, found } => {
                write!(f, "not a start position: {square} ")?;
                match found {
                    None => f.write_str("is empty")?,
                    Some(piece) => write!(
                        f,
                        "holds a {} {}",
                        piece.color.fold_wb("white", "black"),
                        role_name(piece.role)
                    )?,
                }
                f.write_str(match square.rank() {
                    Rank::First => " (rank 1 must hold white pieces, no pawns)",
                    Rank::Second => " (rank 2 must be full of white pawns)",
                    Rank::Seventh => " (rank 7 must be full of black pawns)",
                    Rank::Eighth => " (rank 8 must hold black pieces, no pawns)",
                    _ => " (ranks 3 to 6 must be empty)",
                })
            }
            StartFenError::IllegalBackRank { white, black } => {
                let mut separator = "illegal back rank: ";
                for (side, rank) in [("white", white), ("black", black)] {
                    if let Err(err) = rank {
                        write!(f, "{separator}{side}: {err}")?;
                        separator = "; ";
                    }
                }
                Ok(())
            }
        }
    }
}

impl Error for StartFenError {}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::classify_fen;

    #[test]
    fn fen_round_trip() {
        for rank in BackRank::all() {
            let start = StartArray::Chess960(rank);
            for fen in [rank.to_xfen(), rank.to_shredder_fen()] {
                assert_eq!(StartArray::from_fen(&fen), Ok(start), "{fen}");
                assert_eq!(classify_fen(&fen), Ok(BoardStart::Start(start)), "{fen}");
            }
            let xfen = rank.to_xfen();
            assert!(xfen.ends_with(" w KQkq - 0 1"), "{xfen}");
            // The board part alone, and with odd fields, gives the same answer.
            let board_part = xfen.split(' ').next().unwrap();
            assert_eq!(StartArray::from_fen(board_part), Ok(start));
            assert_eq!(
                StartArray::from_fen(&format!("{board_part} b - - 12 40")),
                Ok(start)
            );
        }
    }

    #[test]
    fn double_frc_both_ways() {
        let white = BackRank::STANDARD;
        let black = BackRank::from_scharnagl(0).unwrap();
        let start = StartArray::from_back_ranks(white, black);
        assert_eq!(start, StartArray::DoubleFrc { white, black });
        assert_eq!(start.scharnagl(), None);
        assert_eq!(start.fritz9(), None);
        let chess960 = StartArray::Chess960(black);
        assert_eq!(
            (chess960.scharnagl(), chess960.fritz9()),
            (Some(0), Some(81))
        );
        assert_eq!(StartArray::from_fen(&start.to_xfen()), Ok(start));
        assert_eq!(StartArray::from_fen(&start.to_shredder_fen()), Ok(start));
        assert_eq!(
            start.to_shredder_fen(),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAhf - 0 1"
        );
    }

    #[test]
    fn classify_shapes() {
        let fen = |fen: &str| classify_fen(fen).unwrap();
        assert_eq!(fen("8/8/8/8/8/8/8/8"), BoardStart::NotAStart);
        // A move played.
        assert_eq!(
            fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"),
            BoardStart::NotAStart
        );
        // Colours swapped on the back ranks.
        assert_eq!(
            fen("RNBQKBNR/pppppppp/8/8/8/8/PPPPPPPP/rnbqkbnr"),
            BoardStart::NotAStart
        );
        // A pawn on the back rank.
        assert_eq!(
            fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP"),
            BoardStart::NotAStart
        );
        // An illegal arrangement on one side only.
        assert_eq!(
            fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKNBR"),
            BoardStart::IllegalBackRank {
                white: Err(BackRankError::SameColourBishops([File::C, File::G])),
                black: Ok(BackRank::STANDARD),
            }
        );
        // Both sides breaking rules, differently.
        assert!(matches!(
            fen("rnbqkbnq/pppppppp/8/8/8/8/PPPPPPPP/BBNNQRRK"),
            BoardStart::IllegalBackRank {
                white: Err(BackRankError::KingNotBetweenRooks { .. }),
                black: Err(BackRankError::PieceSet(_))
            }
        ));
    }

    #[test]
    fn start_fen_error_messages() {
        let error = |fen: &str| StartArray::from_fen(fen).unwrap_err().to_string();
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKNBR w KQkq - 0 1"),
            "illegal back rank: white: bishops on squares of the same colour (files c and g)"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP"),
            "not a start position: h1 holds a white pawn (rank 1 must hold white pieces, no pawns)"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/3N4/8/PPPPPPPP/RNBQKBNR"),
            "not a start position: d4 holds a white knight (ranks 3 to 6 must be empty)"
        );
        // Each rank is checked as strictly: here the first wrong square
        // is the last of its rank.
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR"),
            "not a start position: h2 is empty (rank 2 must be full of white pawns)"
        );
        assert_eq!(
            error("rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            "not a start position: h7 is empty (rank 7 must be full of black pawns)"
        );
        assert_eq!(
            error("rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            "not a start position: h8 is empty (rank 8 must hold black pieces, no pawns)"
        );
        assert_eq!(
            StartArray::from_fen("rnbqkbnp/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            Err(StartFenError::NotAStart {
                square: Square::H8,
                found: Some(Piece {
                    color: Color::Black,
                    role: Role::Pawn
                })
            })
        );
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            #[test]
            fn one_changed_character_never_panics(
                id in 0u32..960,
                position in 0usize..60,
                replacement in "[pnbrqkPNBRQK0-9/ x~]",
            ) {
                let mut fen = BackRank::from_scharnagl(id).unwrap().to_shredder_fen();
                let position = position % fen.len();
                fen.replace_range(position..=position, &replacement);
                if let Ok(start) = StartArray::from_fen(&fen) {
                    // Whatever still reads as a start must write back to
                    // the same start.
                    prop_assert_eq!(StartArray::from_fen(&start.to_xfen()), Ok(start));
                }
            }
        }
    }
}
