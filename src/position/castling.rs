//! A FEN's castling field in both notations: read against a board as the
//! rooks that may castle (X-FEN's `KQkq` and Shredder-FEN's files alike,
//! so that the two agree), and written back for a start array in either
//! notation.
//!
//! Writers disagree on the notation (X-FEN `KQkq`, Shredder-FEN `HAha`);
//! a start array has exactly one rook on each side of each king, so both
//! name the same rooks without ambiguity there.

use std::fmt;
use std::str::FromStr;

use shakmaty::{Bitboard, Board, Color, File, Rank, Setup, Square};

use super::StartArray;

/// How a FEN's castling field names the rooks that may castle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastlingNotation {
    /// X-FEN: `K` and `Q` for the rook on the h-side and a-side of White's
    /// king, `k` and `q` for Black's, in that order (`KQkq`).
    Xfen,
    /// Shredder-FEN: each rook by its file, White's in upper case, then
    /// Black's, each h-side rook first (`HAha`, `HFhf`).
    Shredder,
}

impl CastlingNotation {
    /// The notation's name: `xfen` or `shredder`.
    pub fn name(self) -> &'static str {
        match self {
            CastlingNotation::Xfen => "xfen",
            CastlingNotation::Shredder => "shredder",
        }
    }

    /// Whether `field` is written in this notation alone: only `KQkq`
    /// letters for X-FEN, only files for Shredder-FEN (`-` is both).
    ///
    /// ```
    /// use pgn960::position::CastlingNotation;
    ///
    /// assert!(CastlingNotation::Xfen.writes(b"Kq"));
    /// assert!(CastlingNotation::Shredder.writes(b"BHbh"));
    /// assert!(!CastlingNotation::Shredder.writes(b"KQkq"));
    /// assert!(CastlingNotation::Shredder.writes(b"-"));
    /// ```
    pub fn writes(self, field: &[u8]) -> bool {
        let letter = |b: &u8| match self {
            CastlingNotation::Xfen => matches!(b, b'K' | b'Q' | b'k' | b'q'),
            CastlingNotation::Shredder => matches!(b.to_ascii_lowercase(), b'a'..=b'h'),
        };
        field == b"-" || (!field.is_empty() && field.iter().all(letter))
    }
}

impl fmt::Display for CastlingNotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CastlingNotation {
    type Err = String;

    /// `xfen` or `shredder`, in any case.
    fn from_str(text: &str) -> Result<CastlingNotation, String> {
        [CastlingNotation::Xfen, CastlingNotation::Shredder]
            .into_iter()
            .find(|notation| notation.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| format!("{text:?} is no castling notation (xfen, shredder)"))
    }
}

/// Reads a castling field against a board: the rooks it lets castle, or
/// what is wrong with it. `K`/`Q` (`k`/`q`) name the outermost rook on the
/// h-side/a-side of the king on its back rank; a file names the rook on
/// that file of the back rank.
///
/// # Errors
///
/// One line saying what is wrong: a letter that names no rook, a king not
/// on its back rank, a right given twice, more than four rights, a byte
/// that is no castling letter.
///
/// ```
/// use pgn960::BackRank;
/// use pgn960::position::castling_rooks;
///
/// let board = BackRank::from_scharnagl(0)?.board();
/// assert_eq!(castling_rooks(&board, "KQkq"), castling_rooks(&board, "HFhf"));
/// assert_eq!(castling_rooks(&board, "Kk").map(|rooks| rooks.count()), Ok(2));
/// assert!(castling_rooks(&board, "A").is_err());
/// # Ok::<_, pgn960::position::IdError>(())
/// ```
pub fn castling_rooks(board: &Board, field: &str) -> Result<Bitboard, String> {
    if field == "-" {
        return Ok(Bitboard::EMPTY);
    }
    let mut seen = Bitboard::EMPTY;
    for ch in field.chars() {
        let rook = castling_rook(board, ch)?;
        if seen.contains(rook) {
            return Err(format!("{ch}: the same right is given twice"));
        }
        seen.add(rook);
    }
    if seen.count() > 4 {
        return Err("more than four rights".to_string());
    }
    Ok(seen)
}

/// The rook one letter of a castling field names.
fn castling_rook(board: &Board, ch: char) -> Result<Square, String> {
    let color = if ch.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    };
    let back = Rank::new(if color == Color::White { 0 } else { 7 });
    let rooks = board.rooks() & board.by_color(color) & Bitboard::from_rank(back);
    let king = (board.kings() & board.by_color(color) & Bitboard::from_rank(back)).first();
    let side = if color == Color::White {
        "White"
    } else {
        "Black"
    };
    let rook = match ch.to_ascii_lowercase() {
        'k' | 'q' => {
            let Some(king) = king else {
                return Err(format!("{ch}: {side}'s king is not on its back rank"));
            };
            let kingside = ch.eq_ignore_ascii_case(&'k');
            let outside = if kingside {
                rooks.into_iter().filter(|r| r.file() > king.file()).max()
            } else {
                rooks.into_iter().filter(|r| r.file() < king.file()).min()
            };
            outside.ok_or_else(|| {
                let wing = if kingside { "h-side" } else { "a-side" };
                format!("{ch}: no {side} rook on the {wing} of the king")
            })?
        }
        file @ 'a'..='h' => {
            let file = File::new(u32::from(file) - u32::from('a'));
            let square = Square::from_coords(file, back);
            if !rooks.contains(square) {
                return Err(format!("{ch}: no {side} rook on {square}"));
            }
            if king.is_none() {
                return Err(format!("{ch}: {side}'s king is not on its back rank"));
            }
            square
        }
        _ => return Err(format!("{ch:?} is not a castling letter (KQkq or a file)")),
    };
    if king.is_some_and(|k| k.file() == rook.file()) {
        return Err(format!("{ch}: the rook and king share a square"));
    }
    Ok(rook)
}

impl StartArray {
    /// The castling field that lets `rooks` castle, in `notation`: for each
    /// side (White first) its h-side rook, then its a-side rook; `-` for
    /// none. Squares that hold no rook of this start are left out.
    ///
    /// ```
    /// use pgn960::{BackRank, StartArray};
    /// use pgn960::position::CastlingNotation;
    ///
    /// let start = StartArray::Chess960(BackRank::from_scharnagl(0)?);
    /// let every = start.board().rooks();
    /// assert_eq!(start.castling_field(every, CastlingNotation::Xfen), "KQkq");
    /// assert_eq!(start.castling_field(every, CastlingNotation::Shredder), "HFhf");
    /// # Ok::<_, pgn960::position::IdError>(())
    /// ```
    pub fn castling_field(&self, rooks: Bitboard, notation: CastlingNotation) -> String {
        let mut field = String::new();
        for (color, rank, back_rank) in [
            (Color::White, Rank::First, self.white()),
            (Color::Black, Rank::Eighth, self.black()),
        ] {
            let [a_side, h_side] = back_rank.rook_files();
            for (file, xfen) in [(h_side, 'k'), (a_side, 'q')] {
                if !rooks.contains(Square::from_coords(file, rank)) {
                    continue;
                }
                let letter = match notation {
                    CastlingNotation::Xfen => xfen,
                    CastlingNotation::Shredder => file.char(),
                };
                field.push(if color == Color::White {
                    letter.to_ascii_uppercase()
                } else {
                    letter
                });
            }
        }
        if field.is_empty() {
            field.push('-');
        }
        field
    }

    /// The start position as a FEN (White to move, every castling right),
    /// with the castling field in `notation`: [`StartArray::to_xfen`] or
    /// [`StartArray::to_shredder_fen`].
    pub fn to_fen(&self, notation: CastlingNotation) -> String {
        match notation {
            CastlingNotation::Xfen => self.to_xfen(),
            CastlingNotation::Shredder => self.to_shredder_fen(),
        }
    }

    /// The start position to play from: White to move, every rook a
    /// castling rook.
    pub fn setup(&self) -> Setup {
        let board = self.board();
        Setup {
            castling_rights: board.rooks(),
            board,
            ..Setup::empty()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BackRank;

    #[test]
    fn a_notation_has_its_name_and_writes_its_own_letters_alone() {
        use CastlingNotation::{Shredder, Xfen};
        assert_eq!((Xfen.name(), Shredder.name()), ("xfen", "shredder"));
        assert_eq!(
            (Xfen.to_string(), Shredder.to_string()),
            ("xfen".to_string(), "shredder".to_string())
        );
        for (field, xfen, shredder) in [
            (&b"KQkq"[..], true, false),
            (b"Kq", true, false),
            (b"HAha", false, true),
            (b"BHbh", false, true),
            (b"-", true, true),
            (b"", false, false),
            (b"KAka", false, false),
            (b"K-", false, false),
        ] {
            let field_text = String::from_utf8_lossy(field);
            assert_eq!(Xfen.writes(field), xfen, "X-FEN {field_text:?}");
            assert_eq!(
                Shredder.writes(field),
                shredder,
                "Shredder-FEN {field_text:?}"
            );
        }
    }

    #[test]
    fn castling_field_checks() {
        let board = BackRank::from_scharnagl(0).unwrap().board();
        assert_eq!(castling_rooks(&board, "KQkq").map(Bitboard::count), Ok(4));
        assert_eq!(castling_rooks(&board, "HFhf").map(Bitboard::count), Ok(4));
        assert_eq!(castling_rooks(&board, "Kk").map(Bitboard::count), Ok(2));
        assert!(castling_rooks(&board, "A").is_err());
        assert!(castling_rooks(&board, "KK").is_err());
        assert!(castling_rooks(&board, "X").is_err());
    }

    /// What is wrong is told with the side it is wrong for.
    #[test]
    fn a_wrong_letter_is_told_with_its_side() {
        let board = BackRank::from_scharnagl(0).unwrap().board();
        let error = |board: &Board, field| castling_rooks(board, field).unwrap_err();
        assert_eq!(error(&board, "A"), "A: no White rook on a1");
        assert_eq!(error(&board, "a"), "a: no Black rook on a8");
        let kings_up: Board = "4r3/8/4k3/8/8/8/8/4K2R".parse().unwrap();
        assert_eq!(
            error(&kings_up, "Q"),
            "Q: no White rook on the a-side of the king"
        );
        assert_eq!(
            error(&kings_up, "k"),
            "k: Black's king is not on its back rank"
        );
    }

    #[test]
    fn to_fen_writes_the_notation_asked_for() {
        let start = StartArray::Chess960(BackRank::from_scharnagl(0).unwrap());
        let xfen = start.to_fen(CastlingNotation::Xfen);
        let shredder = start.to_fen(CastlingNotation::Shredder);
        assert_eq!(
            xfen,
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        );
        assert_eq!(
            shredder,
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"
        );
    }

    #[test]
    fn every_start_and_every_set_of_rights_round_trips_in_both_notations() {
        let ranks: Vec<BackRank> = BackRank::all().collect();
        let starts = ranks
            .iter()
            .map(|&rank| StartArray::Chess960(rank))
            .chain([StartArray::from_back_ranks(ranks[0], ranks[959])]);
        for start in starts {
            let board = start.board();
            let every: Vec<Square> = board.rooks().into_iter().collect();
            for subset in 0..16u32 {
                let rooks: Bitboard = every
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| subset & (1 << i) != 0)
                    .map(|(_, &square)| square)
                    .collect();
                for notation in [CastlingNotation::Xfen, CastlingNotation::Shredder] {
                    let field = start.castling_field(rooks, notation);
                    assert!(notation.writes(field.as_bytes()), "{field}");
                    assert_eq!(
                        castling_rooks(&board, &field),
                        Ok(rooks),
                        "{start:?} {field}"
                    );
                }
            }
            let every = board.rooks();
            assert_eq!(
                start.to_xfen().split(' ').nth(2),
                Some(start.castling_field(every, CastlingNotation::Xfen).as_str())
            );
            assert_eq!(
                start.to_shredder_fen().split(' ').nth(2),
                Some(
                    start
                        .castling_field(every, CastlingNotation::Shredder)
                        .as_str()
                )
            );
        }
    }
}
