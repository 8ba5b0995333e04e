//! From a game's tags to its start: which array it began from, whether it
//! is a Chess960 game, and which number it should carry.
//!
//! `tag`, `stats` and `validate` must agree on these answers, so the rules
//! live here once: no `FEN` tag means the standard array (518); a `FEN`
//! tag is read with either castling notation; a game is a Chess960 game
//! when its `Variant` names Chess960 or its array is a 960 array other than
//! 518. Side to move, castling rights and clocks never change the answer.

use std::borrow::Cow;

use pgn_reader::RawTag;
use shakmaty::Board;

use crate::position::{
    BackRank, BoardStart, FenError, StartArray, classify_board, parse_placement,
};
use crate::split::{Batch, Game, TagSpan};

/// What a game's `Variant` tag says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// No `Variant` tag, or an empty one.
    Absent,
    /// A name of Chess960; `common` when most PGN readers accept this
    /// spelling (`Chess960`, `chess 960`, `Fischerandom`, `fischerrandom`,
    /// `Fischer Random`), not when only lenient ones do (`FRC`, `chess-960`,
    /// `960`, ...).
    Chess960 {
        /// Whether the spelling is one that common readers accept.
        common: bool,
    },
    /// Standard chess (`Standard`, `Chess`, `Normal`).
    Standard,
    /// Some other variant (`Antichess`, `From Position`, ...).
    Other,
}

impl Variant {
    /// Reads a `Variant` tag's value.
    ///
    /// Spellings are compared ignoring case, spaces, hyphens and underscores.
    ///
    /// ```
    /// use pgn960::classify::Variant;
    ///
    /// assert_eq!(Variant::from_value(b"Chess960"), Variant::Chess960 { common: true });
    /// assert_eq!(Variant::from_value(b"Fischer Random"), Variant::Chess960 { common: true });
    /// assert_eq!(Variant::from_value(b"FRC"), Variant::Chess960 { common: false });
    /// assert_eq!(Variant::from_value(b"standard"), Variant::Standard);
    /// assert_eq!(Variant::from_value(b"Antichess"), Variant::Other);
    /// ```
    pub fn from_value(value: &[u8]) -> Variant {
        if value == b"Chess960" {
            // The usual spelling, by far: spare the folding.
            return Variant::Chess960 { common: true };
        }
        let folded: Vec<u8> = value
            .iter()
            .filter(|b| !matches!(b, b' ' | b'-' | b'_' | b'\t'))
            .map(u8::to_ascii_lowercase)
            .collect();
        let common_original = value.trim_ascii().to_ascii_lowercase();
        match folded.as_slice() {
            b"chess960"
            | b"fischerandom"
            | b"fischerrandom"
            | b"frc"
            | b"960"
            | b"fischerrandomchess" => Variant::Chess960 {
                common: matches!(
                    common_original.as_slice(),
                    b"chess960"
                        | b"chess 960"
                        | b"fischerandom"
                        | b"fischerrandom"
                        | b"fischer random"
                ),
            },
            b"" => Variant::Absent,
            b"standard" | b"chess" | b"normal" => Variant::Standard,
            _ => Variant::Other,
        }
    }

    /// Whether the tag names Chess960, in any spelling.
    pub fn is_chess960(self) -> bool {
        matches!(self, Variant::Chess960 { .. })
    }
}

/// Where a game starts, as its `FEN` tags tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// No `FEN` tag: the standard array.
    NoFen,
    /// A FEN of a Chess960 start array (518 included).
    Array(BackRank),
    /// A FEN with two different legal back ranks.
    DoubleFrc {
        /// White's back rank.
        white: BackRank,
        /// Black's back rank.
        black: BackRank,
    },
    /// A FEN of some other position: a set-up game.
    SetUp,
    /// A `FEN` tag that does not parse.
    BadFen(FenError),
    /// Two `FEN` tags with different placements.
    FenConflict,
}

/// Everything the commands need to know about a game's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classification {
    /// What the `FEN` tags say.
    pub start: Start,
    /// What the `Variant` tag says (the last one, if several).
    pub variant: Variant,
}

/// Which of the categories a game falls into: each game falls into one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A Chess960 game with a number.
    Chess960(BackRank),
    /// A standard-chess game on the standard array (no 960 `Variant`).
    Standard,
    /// A Double FRC start: no single number.
    DoubleFrc,
    /// A set-up position, or a variant other than chess and Chess960.
    SetUp,
    /// A `FEN` that does not parse, or conflicting `FEN` tags.
    Unreadable,
}

impl Classification {
    /// The back rank the game starts from, when it starts from one array.
    pub fn back_rank(&self) -> Option<BackRank> {
        match self.start {
            Start::NoFen => Some(BackRank::STANDARD),
            Start::Array(rank) => Some(rank),
            _ => None,
        }
    }

    /// Sorts the game into exactly one [`Kind`].
    pub fn kind(&self) -> Kind {
        match (&self.start, self.back_rank()) {
            (_, Some(rank)) if self.variant.is_chess960() || rank != BackRank::STANDARD => {
                Kind::Chess960(rank)
            }
            (_, Some(_)) if matches!(self.variant, Variant::Other) => Kind::SetUp,
            (_, Some(_)) => Kind::Standard,
            (Start::DoubleFrc { .. }, _) => Kind::DoubleFrc,
            (Start::BadFen(_) | Start::FenConflict, _) => Kind::Unreadable,
            _ => Kind::SetUp,
        }
    }

    /// The Chess960 number this game should carry: `Some` for Chess960
    /// games, and for standard games when `include_standard`.
    pub fn id(&self, include_standard: bool) -> Option<BackRank> {
        match self.kind() {
            Kind::Chess960(rank) => Some(rank),
            Kind::Standard if include_standard => Some(BackRank::STANDARD),
            _ => None,
        }
    }
}

/// A tag's value with `\"` and `\\` unescaped.
pub fn tag_value<'a>(batch: &'a Batch, tag: &TagSpan) -> Cow<'a, [u8]> {
    RawTag(batch.raw_value(tag)).decode()
}

/// Whether a tag has the given name (ASCII case-insensitive, as writers differ).
#[inline]
pub fn is_named(batch: &Batch, tag: &TagSpan, name: &str) -> bool {
    batch.name(tag).eq_ignore_ascii_case(name.as_bytes())
}

/// Classifies one game of a batch from its tags.
///
/// # Example
///
/// ```
/// use pgn960::classify::{classify, Kind};
/// use pgn960::split::GameReader;
/// use pgn960::BackRank;
///
/// let pgn = b"[Variant \"Chess960\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n\n*\n";
/// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
/// let class = classify(&batch, &batch.games[0]);
/// assert_eq!(class.kind(), Kind::Chess960(BackRank::from_scharnagl(0)?));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn classify(batch: &Batch, game: &Game) -> Classification {
    let mut variant = Variant::Absent;
    let mut first_board: Option<Board> = None;
    let mut start = Start::NoFen;
    let mut fens = 0;
    for tag in batch.tags_of(game) {
        if is_named(batch, tag, "Variant") {
            variant = Variant::from_value(&tag_value(batch, tag));
        } else if is_named(batch, tag, "FEN") {
            fens += 1;
            if matches!(start, Start::BadFen(_) | Start::FenConflict) {
                continue;
            }
            if fens == 1
                && let Some(rank) = plain_start_array(batch.raw_value(tag))
            {
                start = Start::Array(rank);
                continue;
            }
            if let (2, Start::Array(rank)) = (fens, &start)
                && first_board.is_none()
            {
                // The first FEN took the short way: its board, to compare.
                first_board = Some(rank.board());
            }
            let value = tag_value(batch, tag);
            // Bytes that are not UTF-8 become U+FFFD, which no FEN accepts.
            let board = match parse_placement(&String::from_utf8_lossy(&value)) {
                Ok(board) => board,
                Err(err) => {
                    start = Start::BadFen(err);
                    continue;
                }
            };
            match &first_board {
                Some(first) if *first != board => start = Start::FenConflict,
                Some(_) => {}
                None => {
                    start = start_of(&board);
                    first_board = Some(board);
                }
            }
        }
    }
    Classification { start, variant }
}

/// The back rank of a FEN spelled the usual way for a start array: white's
/// rank, `pppppppp/8/8/8/8/PPPPPPPP` and black's mirror image, a legal
/// Chess960 arrangement. Most FEN tags in archives are spelled so; reading
/// them takes no board. `None` for anything else, which the general way
/// reads (and answers the same for these).
pub(crate) fn plain_start_array(raw_value: &[u8]) -> Option<BackRank> {
    const MIDDLE: &[u8] = b"/pppppppp/8/8/8/8/PPPPPPPP/";
    let is_separator = |b: &u8| matches!(b, b' ' | b'_');
    let from = raw_value.iter().position(|b| !is_separator(b))?;
    let board = &raw_value[from..];
    let board = &board[..board.iter().position(is_separator).unwrap_or(board.len())];
    let (black, rest) = board.split_at_checked(8)?;
    let (middle, white) = rest.split_at_checked(MIDDLE.len())?;
    let lower = |b: &u8| matches!(b, b'r' | b'n' | b'b' | b'q' | b'k');
    if middle != MIDDLE
        || white.len() != 8
        || !black.iter().all(lower)
        || !white.eq_ignore_ascii_case(black)
        || !white.iter().all(u8::is_ascii_uppercase)
    {
        return None;
    }
    BackRank::from_ascii(white).ok()
}

fn start_of(board: &Board) -> Start {
    match classify_board(board) {
        BoardStart::Start(StartArray::Chess960(rank)) => Start::Array(rank),
        BoardStart::Start(StartArray::DoubleFrc { white, black }) => {
            Start::DoubleFrc { white, black }
        }
        BoardStart::IllegalBackRank { .. } | BoardStart::NotAStart => Start::SetUp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    fn class_of(tags: &str) -> Classification {
        let pgn = format!("{tags}\n\n*\n");
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        classify(&batch, &batch.games[0])
    }

    const FEN_0: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR";

    #[test]
    fn no_fen_is_standard() {
        assert_eq!(class_of("[Event \"x\"]").kind(), Kind::Standard);
        assert_eq!(
            class_of("[Variant \"chess 960\"]").kind(),
            Kind::Chess960(BackRank::STANDARD)
        );
        assert_eq!(class_of("[Variant \"Antichess\"]").kind(), Kind::SetUp);
    }

    #[test]
    fn fen_without_variant_is_chess960_unless_518() {
        let zero = BackRank::from_scharnagl(0).unwrap();
        let class = class_of(&format!("[FEN \"{FEN_0} w KQkq - 0 1\"]"));
        assert_eq!(class.kind(), Kind::Chess960(zero));
        let class = class_of(&format!(
            "[FEN \"{} w KQkq - 0 1\"]",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
        ));
        assert_eq!(class.kind(), Kind::Standard);
    }

    #[test]
    fn two_notations_agree_two_placements_conflict() {
        let zero = BackRank::from_scharnagl(0).unwrap();
        let class = class_of(&format!(
            "[FEN \"{FEN_0} w HFhf - 0 1\"]\n[Variant \"Fischerandom\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]"
        ));
        assert_eq!(class.kind(), Kind::Chess960(zero));
        let class = class_of(&format!(
            "[FEN \"{FEN_0} w KQkq - 0 1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]"
        ));
        assert_eq!(class.start, Start::FenConflict);
        assert_eq!(class.kind(), Kind::Unreadable);
    }

    /// The general reading of a FEN's start, for comparison.
    fn general_start(fen: &str) -> Start {
        match parse_placement(fen) {
            Ok(board) => start_of(&board),
            Err(err) => Start::BadFen(err),
        }
    }

    #[test]
    fn the_short_way_reads_fens_as_the_general_way_does() {
        let mut fens: Vec<String> = BackRank::all()
            .flat_map(|rank| [rank.to_xfen(), rank.to_shredder_fen()])
            .collect();
        fens.extend(
            [
                "  bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
                "__bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR_w_KQkq_-_0_1",
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR",
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "BBQNNRKR/pppppppp/8/8/8/8/PPPPPPPP/bbqnnrkr w KQkq - 0 1",
                "bbqnnrkr/PPPPPPPP/8/8/8/8/pppppppp/BBQNNRKR w KQkq - 0 1",
                "bqbnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BQBNNRKR w KQkq - 0 1",
                "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1",
                "bbqnnrk/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRK w KQkq - 0 1",
                "bbqnnrkr/pppppppp/8/8/4P3/8/PPPP1PPP/BBQNNRKR b KQkq - 0 1",
                "bbqnnrkr/pppppppp/44/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
                "bbqnnrkrx/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR[] w KQkq - 0 1",
                "",
            ]
            .map(String::from),
        );
        for fen in &fens {
            if let Some(rank) = plain_start_array(fen.as_bytes()) {
                assert_eq!(Start::Array(rank), general_start(fen), "{fen}");
            }
        }
        // The usual spellings do take the short way: every array in both
        // notations, the three spellings of array 0 above, and RKRNNQBB.
        let short = fens
            .iter()
            .filter(|f| plain_start_array(f.as_bytes()).is_some());
        assert_eq!(short.count(), 2 * 960 + 4);
    }

    #[test]
    fn a_second_fen_is_compared_after_a_first_read_the_short_way() {
        let class = class_of(&format!(
            "[FEN \"{FEN_0} w KQkq - 0 1\"]\n[FEN \"{FEN_0} w HFhf - 0 1\"]"
        ));
        assert_eq!(
            class.start,
            Start::Array(BackRank::from_scharnagl(0).unwrap())
        );
        let class = class_of(&format!(
            "[FEN \"{FEN_0} w KQkq - 0 1\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1\"]"
        ));
        assert_eq!(class.start, Start::FenConflict);
        let class = class_of(&format!("[FEN \"{FEN_0} w KQkq - 0 1\"]\n[FEN \"broken\"]"));
        assert!(matches!(class.start, Start::BadFen(_)));
    }

    #[test]
    fn double_frc_setup_and_broken() {
        let class = class_of("[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]");
        assert_eq!(class.kind(), Kind::DoubleFrc);
        let class = class_of("[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]");
        assert_eq!(class.kind(), Kind::SetUp);
        let class = class_of("[Variant \"Chess960\"]\n[FEN \"not a fen\"]");
        assert_eq!(class.kind(), Kind::Unreadable);
    }
}
