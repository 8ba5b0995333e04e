//! A FEN tag's text read field by field, as far as it goes: the one reading
//! of a FEN that every command shares. Where the pieces stand decides a
//! game's start (`game`); what is wrong with the other fields is data here,
//! which `validate` turns into findings.
//!
//! Most FEN tags in archives are a start array's start position, written as
//! tools write them: those are read off their bytes without a board.

use std::borrow::Cow;

use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, Color, Setup};

use super::{
    BackRank, BoardStart, FenError, StartArray, castling_rooks, check_board_part, classify_board,
    parse_placement,
};

/// Where a FEN puts the pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// A start array's start position: known without a board, and a legal
    /// position by construction. Its board is built only when asked for.
    Start(StartArray),
    /// Any other board.
    Board(Board),
}

/// A problem of a FEN whose placement reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenProblem {
    /// Fewer than the four fields a position needs (placement, side to
    /// move, castling, en passant): the rest is taken as in a start
    /// position (White to move; a start array's rooks, or none, may
    /// castle). Carries how many fields there are.
    Incomplete(usize),
    /// A field that is not valid: the message says which and why.
    Unparsable(String),
    /// A castling field that does not fit the board.
    CastlingInvalid {
        /// The field as written.
        field: String,
        /// What is wrong.
        problem: String,
    },
}

/// A FEN read field by field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenRead {
    /// Where the pieces stand.
    pub placement: Placement,
    /// The whole FEN as a position to play from, when the side to move and
    /// the fields after the castling field read (a castling field that
    /// does not fit the board is left out of it). For a start placement,
    /// see [`FenRead::setup`].
    setup: Option<Setup>,
    /// The side to move, when the field reads.
    pub turn: Option<Color>,
    /// How many castling rights the castling field grants, when it fits the
    /// board.
    pub castling_rights: Option<usize>,
    /// Whether the halfmove clock is 0 and the move number 1 (or the
    /// clocks are not there, or do not read).
    pub clocks_initial: bool,
    /// Whether all four fields a position needs are there.
    pub complete: bool,
    /// What is wrong, in the order of the fields.
    pub problems: Vec<FenProblem>,
}

impl FenRead {
    /// A start array's start position: White to move, every right.
    fn start(start: StartArray) -> FenRead {
        FenRead {
            placement: Placement::Start(start),
            setup: None,
            turn: Some(Color::White),
            castling_rights: Some(4),
            clocks_initial: true,
            complete: true,
            problems: Vec::new(),
        }
    }

    /// The board.
    pub fn board(&self) -> Cow<'_, Board> {
        match &self.placement {
            Placement::Start(start) => Cow::Owned(start.board()),
            Placement::Board(board) => Cow::Borrowed(board),
        }
    }

    /// What the board is, as a start.
    pub fn board_start(&self) -> BoardStart {
        match &self.placement {
            Placement::Start(start) => BoardStart::Start(*start),
            Placement::Board(board) => classify_board(board),
        }
    }

    /// The position to play from, when there is one (see the field).
    pub fn setup(&self) -> Option<Setup> {
        match &self.placement {
            Placement::Start(start) => Some(start.setup()),
            Placement::Board(_) => self.setup.clone(),
        }
    }

    /// Whether two FENs give the same position: the same placement, and —
    /// where both give them — the same side to move, castling rights (as
    /// rook squares, so that X-FEN and Shredder-FEN agree) and en passant
    /// square. Clocks do not count.
    pub fn same_position(&self, other: &FenRead) -> bool {
        if let (Placement::Start(one), Placement::Start(two)) = (&self.placement, &other.placement)
        {
            // White to move, every rook a castling rook, no en passant.
            return one == two;
        }
        let rest = |fen: &FenRead| {
            fen.complete
                .then(|| fen.setup())
                .flatten()
                .map(|s| (s.turn, s.castling_rights, s.ep_square))
        };
        self.board() == other.board()
            && match (rest(self), rest(other)) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

/// Reads a FEN tag's value (escapes already removed; bytes that are not
/// UTF-8 never read as a FEN).
///
/// # Errors
///
/// [`FenError`] when not even the placement reads: then nothing of the FEN
/// is known.
///
/// # Example
///
/// ```
/// use pgn960::position::{read_fen, FenProblem};
///
/// let fen = read_fen(b"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR")?;
/// assert_eq!(fen.problems, [FenProblem::Incomplete(1)]);
/// assert_eq!(fen.setup().map(|s| s.turn), Some(shakmaty::Color::White));
/// # Ok::<_, pgn960::position::FenError>(())
/// ```
pub fn read_fen(value: &[u8]) -> Result<FenRead, FenError> {
    let text = match std::str::from_utf8(value) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(value),
    };
    let text = text.trim();
    if let Some(fen) = read_start_fen(text).or_else(|| read_plain_fen(text)) {
        return Ok(fen);
    }
    let board = parse_placement(text)?;
    let fields: Vec<&str> = text.split([' ', '_']).filter(|f| !f.is_empty()).collect();
    if fields.len() < 4 {
        return Ok(incomplete(board, fields.len()));
    }
    let mut problems = Vec::new();
    let (turn_field, castling_field) = (fields[1], fields[2]);
    let turn = match turn_field {
        "w" => Some(Color::White),
        "b" => Some(Color::Black),
        other => {
            problems.push(FenProblem::Unparsable(format!(
                "side to move is {other:?}, not \"w\" or \"b\": {text:?}"
            )));
            None
        }
    };
    let castling_rights = match castling_rooks(&board, castling_field).map(Bitboard::count) {
        Ok(rights) => Some(rights),
        Err(problem) => {
            problems.push(FenProblem::CastlingInvalid {
                field: castling_field.to_string(),
                problem,
            });
            None
        }
    };
    // The rest of the fields: shakmaty reads them, the castling field
    // too when it passed the check above, else with it blanked.
    let whole = castling_rights
        .is_some()
        .then(|| Fen::from_ascii(fields.join(" ").as_bytes()).ok())
        .flatten();
    let parsed = whole.map_or_else(
        || {
            let mut blanked = fields.clone();
            blanked[2] = "-";
            Fen::from_ascii(blanked.join(" ").as_bytes())
        },
        Ok,
    );
    let setup = match parsed {
        Ok(fen) => turn.map(|_| fen.into_setup()),
        // A bad side to move is told above; shakmaty would repeat it.
        Err(_) if turn.is_none() => None,
        Err(err) => {
            problems.push(FenProblem::Unparsable(format!("{err}: {text:?}")));
            None
        }
    };
    // Clocks count only when the FEN parsed, so that a broken clock field
    // is one problem, not two.
    let clocks_initial = setup
        .as_ref()
        .is_none_or(|setup| setup.halfmoves == 0 && setup.fullmoves.get() == 1);
    Ok(FenRead {
        placement: Placement::Board(board),
        setup,
        turn,
        castling_rights,
        clocks_initial,
        complete: true,
        problems,
    })
}

/// A FEN of fewer than four fields: the placement, the rest as in a start
/// position.
fn incomplete(board: Board, fields: usize) -> FenRead {
    let problems = vec![FenProblem::Incomplete(fields)];
    if let BoardStart::Start(start) = classify_board(&board) {
        return FenRead {
            complete: false,
            problems,
            ..FenRead::start(start)
        };
    }
    FenRead {
        setup: Some(Setup {
            board: board.clone(),
            ..Setup::empty()
        }),
        placement: Placement::Board(board),
        turn: None,
        castling_rights: None,
        clocks_initial: true,
        complete: false,
        problems,
    }
}

/// The length of a start array's placement: `rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR`.
const START_PLACEMENT_LEN: usize = 43;

/// Reads a FEN that is exactly a Chess960 start as [`BackRank::to_xfen`]
/// or [`BackRank::to_shredder_fen`] write it, as lichess and most tools
/// write them: without parsing, to what [`read_plain_fen`] reads from it.
fn read_start_fen(text: &str) -> Option<FenRead> {
    let (placement, rest) = text.split_once(' ')?;
    let rank = plain_start_array(placement.as_bytes())?;
    if placement.len() != START_PLACEMENT_LEN
        || (rest != "w KQkq - 0 1" && text != rank.to_shredder_fen())
    {
        return None;
    }
    Some(FenRead::start(StartArray::Chess960(rank)))
}

/// Reads a FEN written with single spaces that has nothing to report: its
/// board has the right shape, shakmaty reads it whole, its side to move is
/// `w` or `b` and its castling field names rooks that are there. Most FEN
/// tags are such; they are read once, where [`read_fen`] reads others field
/// by field to say what is wrong. `None`: read it that way.
fn read_plain_fen(text: &str) -> Option<FenRead> {
    if text.contains(['_', '\t']) || text.contains("  ") {
        return None;
    }
    let mut fields = text.split(' ');
    let (board, turn, castling) = (fields.next()?, fields.next()?, fields.next()?);
    fields.next()?; // the en passant field: four at least
    check_board_part(board).ok()?;
    let turn = match turn {
        "w" => Color::White,
        "b" => Color::Black,
        _ => return None,
    };
    let setup = Fen::from_ascii(text.as_bytes()).ok()?.into_setup();
    let castling_rights = castling_rooks(&setup.board, castling).ok()?.count();
    Some(FenRead {
        placement: Placement::Board(setup.board.clone()),
        clocks_initial: setup.halfmoves == 0 && setup.fullmoves.get() == 1,
        setup: Some(setup),
        castling_rights: Some(castling_rights),
        turn: Some(turn),
        complete: true,
        problems: Vec::new(),
    })
}

/// The back rank of a FEN spelled the usual way for a start array: white's
/// rank, `pppppppp/8/8/8/8/PPPPPPPP` and black's mirror image, a legal
/// Chess960 arrangement. Most FEN tags in archives are spelled so; reading
/// them takes no board (and not even the unescaping of the tag's value).
/// `None` for anything else, which [`read_fen`] reads (and answers the same
/// for these).
pub fn plain_start_array(raw_value: &[u8]) -> Option<BackRank> {
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

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, FromSetup};

    use super::*;
    use crate::position::parse_placement;

    /// What a FEN read tells, for comparing the short ways with the
    /// general one.
    fn summary(fen: &FenRead) -> impl PartialEq + std::fmt::Debug {
        (
            fen.board().into_owned(),
            fen.setup(),
            fen.castling_rights,
            fen.turn,
            fen.clocks_initial,
            fen.problems.clone(),
        )
    }

    #[test]
    fn start_fens_read_without_parsing_as_when_parsed() {
        for rank in BackRank::all() {
            for fen in [rank.to_xfen(), rank.to_shredder_fen()] {
                let short = read_start_fen(&fen).expect("a start FEN");
                let parsed = read_plain_fen(&fen).expect("a FEN with nothing to report");
                assert_eq!(summary(&short), summary(&parsed), "{fen}");
                // What the readers then skip: classifying the board, and
                // asking shakmaty whether the position is legal.
                assert_eq!(
                    short.board_start(),
                    classify_board(&parsed.board()),
                    "{fen}"
                );
                let setup = parsed.setup().expect("parsed whole");
                assert!(
                    Chess::from_setup(setup, CastlingMode::Chess960).is_ok(),
                    "{fen}"
                );
            }
        }
        for fen in [
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR b KQkq - 0 1",
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w Kkq - 0 1",
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 2",
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HAha - 0 1",
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR_w KQkq - 0 1",
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR  w KQkq - 0 1",
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq -",
        ] {
            assert!(read_start_fen(fen).is_none(), "{fen}");
        }
    }

    /// The general reading of a FEN's board, for comparison.
    fn general_start(fen: &str) -> Option<BoardStart> {
        parse_placement(fen)
            .ok()
            .map(|board| classify_board(&board))
    }

    #[test]
    fn the_short_way_reads_start_arrays_as_the_general_way_does() {
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
                "bbqnnrkr/ppppppp1/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
                "BBQNNRKR/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
                "bbqnnrkrx/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR[] w KQkq - 0 1",
                "",
            ]
            .map(String::from),
        );
        for fen in &fens {
            if let Some(rank) = plain_start_array(fen.as_bytes()) {
                let expected = BoardStart::Start(StartArray::Chess960(rank));
                assert_eq!(Some(expected), general_start(fen), "{fen}");
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
    fn problems_of_each_field() {
        let read = |fen: &str| read_fen(fen.as_bytes());
        let zero = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR";
        // A lone board part: the start array, with a warning.
        let lone = read(zero).unwrap();
        assert_eq!(lone.problems, [FenProblem::Incomplete(1)]);
        assert!(matches!(lone.placement, Placement::Start(_)));
        assert!(!lone.complete);
        // Two fields of a set-up board: no castling assumed.
        let setup = read("8/8/8/8/8/8/8/K6k w").unwrap();
        assert_eq!(setup.problems, [FenProblem::Incomplete(2)]);
        assert_eq!(
            setup.setup().map(|s| s.castling_rights),
            Some(Bitboard::EMPTY)
        );
        // ... and played from its own board.
        let board: Board = "8/8/8/8/8/8/8/K6k".parse().unwrap();
        assert_eq!(setup.setup().map(|s| s.board), Some(board));
        let bad_turn = read(&format!("{zero} x KQkq - 0 1")).unwrap();
        assert!(
            matches!(&bad_turn.problems[..], [FenProblem::Unparsable(m)] if m.contains("side to move"))
        );
        assert_eq!(bad_turn.setup(), None);
        let bad_castling = read(&format!("{zero} w KQkqA - 0 1")).unwrap();
        assert!(matches!(
            &bad_castling.problems[..],
            [FenProblem::CastlingInvalid { field, .. }] if field == "KQkqA"
        ));
        assert!(
            bad_castling.setup().is_some(),
            "played on without the rights"
        );
        // A bad field other than the side to move and castling is told.
        let bad_clock = read("8/8/8/8/8/8/8/K6k w - - x 1").unwrap();
        assert!(
            matches!(&bad_clock.problems[..], [FenProblem::Unparsable(m)] if m.contains("K6k w - - x 1")),
            "{:?}",
            bad_clock.problems
        );
        assert_eq!(bad_clock.setup(), None);
        assert!(matches!(read("not a fen"), Err(FenError::RankCount(1))));
        // Bytes that are not UTF-8 never read as a FEN.
        assert!(read_fen(b"\xff").is_err());
    }

    /// Four fields are a whole FEN (the clocks may be left out), read the
    /// short way (single spaces) or field by field (here, double spaces).
    #[test]
    fn four_fields_and_the_clocks_either_way() {
        for gap in [" ", "  "] {
            let read = |rest: &str| {
                let fen = format!("8/8/8/8/8/8/8/K6k{gap}{}", rest.replace(' ', gap));
                read_fen(fen.as_bytes()).unwrap()
            };
            let four = read("b - -");
            assert!(four.problems.is_empty(), "{gap:?}: {:?}", four.problems);
            assert!(four.complete);
            assert_eq!(four.turn, Some(Color::Black));
            for (clocks, initial) in [
                ("0 1", true),
                ("3 1", false),
                ("0 7", false),
                ("2 9", false),
            ] {
                assert_eq!(
                    read(&format!("w - - {clocks}")).clocks_initial,
                    initial,
                    "{gap:?} {clocks}"
                );
            }
        }
    }

    #[test]
    fn positions_are_the_same_when_every_field_both_give_agrees() {
        let zero = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR";
        let read = |fen: String| read_fen(fen.as_bytes()).unwrap();
        let xfen = read(format!("{zero} w KQkq - 0 1"));
        let shredder = read(format!("{zero} w HFhf - 0 1"));
        assert!(xfen.same_position(&shredder));
        assert!(
            xfen.same_position(&read(format!("{zero} w KQkq - 5 9"))),
            "clocks"
        );
        assert!(
            xfen.same_position(&read(zero.to_string())),
            "a lone board part"
        );
        assert!(!xfen.same_position(&read(format!("{zero} b KQkq - 0 1"))));
        assert!(!xfen.same_position(&read(format!("{zero} w Kk - 0 1"))));
        let other = read("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into());
        assert!(!xfen.same_position(&other));
    }
}
