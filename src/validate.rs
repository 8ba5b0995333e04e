//! Every way a Chess960 game's headers or moves can be wrong, as findings
//! with stable codes that scripts can filter on.
//!
//! Codes never change meaning once published; new checks get new codes.
//! Each finding points at the game (its index in the input) and at the line
//! of the offending tag or move, so an arbiter can open the file there.
//!
//! Moves are read by a small mainline tokenizer rather than pgn-reader: a
//! report needs the line of the offending move and must name tokens that are
//! not moves at all, and pgn-reader skips such tokens silently and gives no
//! positions. Legality is shakmaty's, in Chess960 castling mode.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use shakmaty::FromSetup;
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, File, Position, Rank, Square,
};

use crate::BackRank;
use crate::classify::{Variant, plain_start_array, tag_value};
use crate::movetext::{Lexer, TokenKind};
use crate::position::{BoardStart, StartArray, check_board_part, classify_board, parse_placement};
use crate::split::{Batch, Game, LineCounter, TagSpan};

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Other software will misread or reject the game.
    Error,
    /// Legal, but unusual or likely to confuse some readers.
    Warning,
    /// Worth knowing; nothing is wrong.
    Info,
}

impl Severity {
    /// The name used in reports: `error`, `warning`, `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! codes {
    ($($variant:ident => $name:literal, $severity:ident, $doc:literal;)*) => {
        /// A kind of problem. The names (`Code::name`) are stable.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $(#[doc = $doc] $variant,)*
        }

        impl Code {
            /// Every code, in report order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable name, e.g. `fen_unparsable`.
            pub fn name(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// How serious findings of this code are.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// One sentence on what the code means.
            pub fn description(self) -> &'static str {
                match self { $(Code::$variant => $doc,)* }
            }
        }
    };
}

codes! {
    FenUnparsable => "fen_unparsable", Error,
        "A FEN tag that is not a valid FEN (wrong number of ranks or files, bad characters, missing or broken fields).";
    FenConflict => "fen_conflict", Error,
        "Two or more FEN tags with different positions.";
    PositionIllegal => "position_illegal", Error,
        "A FEN whose position cannot be played from (a king missing, pawns on a back rank, the side not to move in check).";
    SetupWithoutFen => "setup_without_fen", Error,
        "SetUp \"1\" and no FEN tag.";
    IllegalBackRank => "illegal_back_rank", Error,
        "Both back ranks hold eight pieces behind full pawn rows, but break a Chess960 rule.";
    CastlingRightsInvalid => "castling_rights_invalid", Error,
        "A castling field naming a file with no rook of that side on its back rank, rights for a side whose king is not on its back rank, or a malformed field.";
    IdMismatch => "id_mismatch", Error,
        "A Chess960Id (or Chess960Fritz9Id) that is not the number of the game's start position.";
    IdMalformed => "id_malformed", Error,
        "A Chess960Id that is not an integer 0..959 (a Chess960Fritz9Id not 1..960), or one on a game with no Chess960 start array.";
    IllegalMove => "illegal_move", Error,
        "The first illegal, ambiguous or unreadable move of the mainline.";
    Unterminated => "unterminated", Error,
        "A game cut off by the end of input, inside a comment, variation or tag.";
    VariantMissing => "variant_missing", Warning,
        "A 960 start array other than 518 with no Variant tag naming Chess960.";
    VariantMismatch => "variant_mismatch", Warning,
        "A Variant naming something else (e.g. Standard) on a 960 start array other than 518.";
    FenWithoutSetup => "fen_without_setup", Warning,
        "A FEN tag without SetUp \"1\".";
    DoubleFrc => "double_frc", Warning,
        "Both back ranks legal but different (Double Fischer Random); no Chess960Id applies.";
    CastlingRightsPartial => "castling_rights_partial", Warning,
        "A start array with some but not all four castling rights.";
    CastlingRightsNone => "castling_rights_none", Warning,
        "A start array with no castling rights.";
    StartNotWhiteToMove => "start_not_white_to_move", Warning,
        "A start array with Black to move.";
    StartClockNotInitial => "start_clock_not_initial", Warning,
        "A start array whose halfmove clock is not 0 or whose move number is not 1.";
    ResultMismatch => "result_mismatch", Warning,
        "The Result tag disagrees with a checkmate or stalemate reached by the moves.";
    MovesAfterResult => "moves_after_result", Warning,
        "Movetext after the game's result token (a game without tags, or stray text); it is not checked.";
    GameTooLong => "game_too_long", Warning,
        "A game longer than 16 MiB (or with more than 65,536 tag pairs), read in pieces to bound memory: its moves are not replayed.";
    VariantSpelling => "variant_spelling", Info,
        "A Chess960 Variant spelled in a way common readers reject (FRC, chess-960, 960, ...).";
}

/// One problem in one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// 1-based index of the game within its input.
    pub game: u64,
    /// 1-based line of the offending tag or move, else of the game's start.
    pub line: u64,
    /// What is wrong.
    pub code: Code,
    /// The details, in one line.
    pub message: String,
}

/// What to check.
#[derive(Clone, Copy, Debug)]
pub struct ValidateOptions {
    /// Replay the mainline (on by default; `--no-moves` turns it off).
    pub moves: bool,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions { moves: true }
    }
}

/// Checks every game of a batch; findings come in game order, and by line
/// within a game.
///
/// Lines are counted within the batch (1 for its first line), and only
/// for the games with findings; once the pipeline has placed the batch
/// ([`Batch::first_line`]), [`Batch::input_line`] turns them into lines of
/// the input.
///
/// # Example
///
/// ```
/// use pgn960::split::GameReader;
/// use pgn960::validate::{validate_batch, Code, ValidateOptions};
///
/// let pgn = b"[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 e5 2. Ke2 *\n";
/// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
/// let findings = validate_batch(&batch, ValidateOptions::default());
/// let codes: Vec<Code> = findings.iter().map(|f| f.code).collect();
/// // Findings on the same line come in the order of `Code::ALL`.
/// assert_eq!(codes, [Code::VariantMissing, Code::FenWithoutSetup, Code::IllegalMove]);
/// assert_eq!(batch.input_line(findings[2].line), 3);
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn validate_batch(batch: &Batch, options: ValidateOptions) -> Vec<Finding> {
    let mut findings = Vec::new();
    let lines = LineCounter::new(&batch.data);
    for game in &batch.games {
        let start = findings.len();
        GameCheck::new(batch, game, &lines, &mut findings).run(options);
        findings[start..].sort_by_key(|f| (f.line, f.code));
    }
    findings
}

/// The tags a game's check looks at (names compared ignoring case).
#[derive(Clone, Copy)]
enum CheckedTag {
    Fen,
    SetUp,
    Result,
    Variant,
    Id { fritz9: bool },
}

/// A FEN tag read as far as it goes.
struct ReadFen {
    /// Where the tag is (its line is counted only for a finding).
    tag_at: usize,
    placement: Placement,
    /// The whole FEN parsed (for replay), when it does; for a start
    /// array's FEN, see [`ReadFen::setup`].
    setup: Option<shakmaty::Setup>,
    castling: Option<CastlingReport>,
    turn: Option<Color>,
    clocks_initial: bool,
}

/// A tag value as text, invalid UTF-8 replaced; valid text (nearly all)
/// is checked the fast way, [`String::from_utf8_lossy`] going byte by byte.
fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Where a FEN puts the pieces.
enum Placement {
    /// Exactly a start array's start position, written as tools write it
    /// (see [`read_start_fen`]): known without a board, and a legal
    /// position by construction. Its board and setup are built only when
    /// asked for (to replay the moves, say).
    Start(StartArray),
    /// Any other board.
    Board(Board),
}

impl ReadFen {
    /// The start array, when the FEN is exactly its start position.
    fn start(&self) -> Option<StartArray> {
        match self.placement {
            Placement::Start(start) => Some(start),
            Placement::Board(_) => None,
        }
    }

    /// The placement.
    fn board(&self) -> Cow<'_, Board> {
        match &self.placement {
            Placement::Start(start) => Cow::Owned(start.board()),
            Placement::Board(board) => Cow::Borrowed(board),
        }
    }

    /// The whole FEN, when it parsed whole.
    fn setup(&self) -> Option<shakmaty::Setup> {
        match &self.placement {
            Placement::Start(start) => {
                let board = start.board();
                Some(shakmaty::Setup {
                    // Every rook of a start array is a castling rook.
                    castling_rights: board.rooks(),
                    board,
                    ..shakmaty::Setup::empty()
                })
            }
            Placement::Board(_) => self.setup.clone(),
        }
    }

    /// The same position: placement, and — where both FENs parsed whole —
    /// side to move, castling rights (as rook squares, so X-FEN and
    /// Shredder-FEN agree) and en passant square. Clocks do not count.
    fn same_position(&self, other: &ReadFen) -> bool {
        if let (Some(one), Some(two)) = (self.start(), other.start()) {
            // White to move, every rook a castling rook, no en passant.
            return one == two;
        }
        let rest = |fen: &ReadFen| {
            fen.setup()
                .map(|s| (s.turn, s.castling_rights, s.ep_square))
        };
        self.board() == other.board()
            && match (rest(self), rest(other)) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

/// What a castling field grants, after checking it against the board.
struct CastlingReport {
    rights: usize,
}

struct GameCheck<'a> {
    batch: &'a Batch,
    game: &'a Game,
    findings: &'a mut Vec<Finding>,
    lines: &'a LineCounter<'a>,
    /// The game's first line, once a finding has asked for a line.
    first_line: Cell<Option<u64>>,
}

impl<'a> GameCheck<'a> {
    /// Checks `game`, counting its lines with `lines`.
    fn new(
        batch: &'a Batch,
        game: &'a Game,
        lines: &'a LineCounter<'a>,
        findings: &'a mut Vec<Finding>,
    ) -> Self {
        GameCheck {
            batch,
            game,
            findings,
            lines,
            first_line: Cell::new(None),
        }
    }

    /// The game's first line, counted the first time a finding needs a
    /// line: no question of this game goes back further.
    fn first_line(&self) -> u64 {
        if let Some(line) = self.first_line.get() {
            return line;
        }
        let line = self.lines.floor(self.batch.first_line_start(self.game));
        self.first_line.set(Some(line));
        line
    }

    /// The line of `offset`, counted from the game's first line on.
    fn line_of(&self, offset: usize) -> u64 {
        self.first_line();
        self.lines.line_of(offset)
    }

    /// Reports a finding on the line of `at` (an offset into the batch),
    /// or without one, on the game's first line.
    fn report_at(&mut self, at: Option<usize>, code: Code, message: String) {
        let line = at.map_or_else(|| self.first_line(), |at| self.line_of(at));
        self.report(line, code, message);
    }

    fn report(&mut self, line: u64, code: Code, message: String) {
        self.findings.push(Finding {
            game: self.game.index,
            line,
            code,
            message,
        });
    }

    fn run(mut self, options: ValidateOptions) {
        let batch = self.batch;
        let tags = batch.tags_of(self.game);
        let mut variant = (Variant::Absent, None::<&TagSpan>);
        let mut setup_one = false;
        let mut setup_tag = None;
        let mut fens: Vec<ReadFen> = Vec::new();
        let mut fen_broken = false;
        let mut id_tags: Vec<(&TagSpan, bool)> = Vec::new();
        let mut result_tag = None;

        for tag in tags {
            let name = batch.name(tag);
            // The names differ in length: one comparison at most per tag.
            let (wanted, kind): (&[u8], _) = match name.len() {
                3 => (b"FEN", CheckedTag::Fen),
                5 => (b"SetUp", CheckedTag::SetUp),
                6 => (b"Result", CheckedTag::Result),
                7 => (b"Variant", CheckedTag::Variant),
                10 => (b"Chess960Id", CheckedTag::Id { fritz9: false }),
                16 => (b"Chess960Fritz9Id", CheckedTag::Id { fritz9: true }),
                _ => continue,
            };
            if !name.eq_ignore_ascii_case(wanted) {
                continue;
            }
            match kind {
                CheckedTag::Variant => {
                    variant = (Variant::from_value(&tag_value(batch, tag)), Some(tag));
                }
                CheckedTag::SetUp => {
                    setup_one = tag_value(batch, tag).trim_ascii() == b"1";
                    setup_tag = Some(tag);
                }
                CheckedTag::Fen => match self.read_fen(tag) {
                    Some(fen) => fens.push(fen),
                    None => fen_broken = true,
                },
                CheckedTag::Id { fritz9 } => id_tags.push((tag, fritz9)),
                CheckedTag::Result => result_tag = Some(tag),
            }
        }
        if !tags.is_empty() && tags.last().is_some_and(|t| !t.well_formed) && self.game.at_end {
            let tag = tags.last().expect("checked above");
            let line = self.line_of(tag.name.start);
            if self.game.range.end == tag.end
                || batch.data[tag.end..self.game.range.end]
                    .trim_ascii()
                    .is_empty()
            {
                self.report(
                    line,
                    Code::Unterminated,
                    "the input ends inside a tag".to_string(),
                );
            }
        }

        // SetUp and FEN belong together.
        let first_fen_at = fens.first().map(|f| f.tag_at);
        if setup_one && fens.is_empty() && !fen_broken {
            let line = self.line_of(setup_tag.expect("SetUp seen").name.start);
            self.report(
                line,
                Code::SetupWithoutFen,
                "SetUp \"1\" but no FEN tag".to_string(),
            );
        }
        if let Some(at) = first_fen_at
            && !setup_one
        {
            let line = self.line_of(at);
            let message = match setup_tag {
                Some(tag) => format!(
                    "FEN tag with SetUp {:?} instead of \"1\"",
                    String::from_utf8_lossy(&tag_value(batch, tag))
                ),
                None => "FEN tag without SetUp \"1\"".to_string(),
            };
            self.report(line, Code::FenWithoutSetup, message);
        }

        // Several FEN tags must agree; with a conflict (or a FEN that cannot
        // be read beside one that can) the start is unknown.
        if let Some(second) = fens.iter().skip(1).find(|f| !f.same_position(&fens[0])) {
            let what = if second.board() != fens[0].board() {
                "places the pieces differently"
            } else {
                "gives a different side to move, castling rights or en passant square"
            };
            let first = self.line_of(fens[0].tag_at);
            self.report_at(
                Some(second.tag_at),
                Code::FenConflict,
                format!("this FEN {what} than the FEN on line {first}"),
            );
        }
        let start_unknown = fens.iter().skip(1).any(|f| !f.same_position(&fens[0])) || fen_broken;

        // The start array.
        let start = match fens.first() {
            None if fen_broken => None,
            None => Some((
                BoardStart::Start(StartArray::Chess960(BackRank::STANDARD)),
                None,
            )),
            Some(fen) => {
                let start = fen
                    .start()
                    .map_or_else(|| classify_board(&fen.board()), BoardStart::Start);
                Some((start, Some(fen)))
            }
        };
        let mut array: Option<StartArray> = None;
        let mut illegal_back_rank = false;
        if let Some((start, fen)) = &start {
            match start {
                BoardStart::Start(found) => array = Some(*found),
                BoardStart::IllegalBackRank { white, black } => {
                    let mut rules = Vec::new();
                    if let Err(err) = white {
                        rules.push(format!("white: {err}"));
                    }
                    if let Err(err) = black {
                        rules.push(format!("black: {err}"));
                    }
                    illegal_back_rank = true;
                    self.report_at(
                        fen.map(|f| f.tag_at),
                        Code::IllegalBackRank,
                        format!("not a legal Chess960 start array: {}", rules.join("; ")),
                    );
                }
                BoardStart::NotAStart => {}
            }
            if let Some(StartArray::DoubleFrc { white, black }) = array {
                self.report_at(
                    fen.map(|f| f.tag_at),
                    Code::DoubleFrc,
                    format!(
                        "Double FRC: White starts from {white} ({}), Black from {black} ({}); no Chess960Id applies",
                        white.scharnagl(),
                        black.scharnagl()
                    ),
                );
            }
            if let (Some(_), Some(fen)) = (array, fen) {
                self.check_start_fields(fen);
            }
        }

        self.check_variant(array, variant);
        if !start_unknown {
            self.check_ids(&id_tags, array);
        }
        if self.game.at_end {
            self.check_open_structure();
        }

        // Other variants have other rules: their moves are not replayed.
        if start_unknown || matches!(variant.0, Variant::Other) {
            return;
        }
        if self.game.continued {
            // The splitter hands an oversized game out in pieces; replaying
            // it whole would hold it whole in memory.
            if options.moves {
                self.report_at(
                    None,
                    Code::GameTooLong,
                    "the game is too long to hold in memory (over 16 MiB or 65,536 tag pairs): \
                     its moves are not replayed"
                        .to_string(),
                );
            }
            return;
        }
        if !options.moves && fens.first().is_none_or(|fen| fen.start().is_some()) {
            return; // a start position is legal: nothing to replay, nothing to report
        }
        let setup = match fens.first() {
            None => Some(shakmaty::Setup::initial()),
            Some(fen) => fen.setup(),
        };
        let Some(setup) = setup else {
            return; // the FEN's own problem is reported already
        };
        // Bad castling rights and en passant squares are reported from the
        // FEN itself; play goes on without them.
        let playable = match Chess::from_setup(setup, CastlingMode::Chess960) {
            Ok(pos) => Ok(pos),
            Err(err) => match err.ignore_invalid_castling_rights() {
                Ok(pos) => Ok(pos),
                Err(err) => err.ignore_invalid_ep_square(),
            },
        };
        match playable {
            Ok(pos) if options.moves => self.replay(pos, result_tag),
            Ok(_) => {}
            // An illegal back rank is the root cause; shakmaty's complaint
            // about its material would only repeat it.
            Err(_) if illegal_back_rank => {}
            Err(err) => {
                self.report_at(
                    first_fen_at,
                    Code::PositionIllegal,
                    format!("cannot play from this position: {err}"),
                );
            }
        }
    }

    /// Reads a FEN tag, reporting what is wrong with it; `None` when even
    /// the placement cannot be read.
    fn read_fen(&mut self, tag: &TagSpan) -> Option<ReadFen> {
        let at = tag.name.start;
        let value = tag_value(self.batch, tag);
        let text = lossy(&value);
        let text = text.trim();
        if let Some(fen) = read_start_fen(at, text).or_else(|| read_plain_fen(at, text)) {
            return Some(fen);
        }
        let line = self.line_of(at);
        let board = match parse_placement(text) {
            Ok(board) => board,
            Err(err) => {
                self.report(line, Code::FenUnparsable, format!("{err}: {text:?}"));
                return None;
            }
        };
        let fields: Vec<&str> = text.split([' ', '_']).filter(|f| !f.is_empty()).collect();
        if fields.len() < 4 {
            self.report(
                line,
                Code::FenUnparsable,
                format!(
                    "{} of the 6 FEN fields (placement, side to move, castling, en passant, clocks): {text:?}",
                    fields.len()
                ),
            );
            return Some(ReadFen {
                tag_at: at,
                placement: Placement::Board(board),
                setup: None,
                castling: None,
                turn: None,
                clocks_initial: true,
            });
        }
        let (turn_field, castling_field) = (fields[1], fields[2]);
        let turn = match turn_field {
            "w" => Some(Color::White),
            "b" => Some(Color::Black),
            other => {
                self.report(
                    line,
                    Code::FenUnparsable,
                    format!("side to move is {other:?}, not \"w\" or \"b\": {text:?}"),
                );
                None
            }
        };
        let castling = match check_castling(&board, castling_field) {
            Ok(report) => Some(report),
            Err(problem) => {
                self.report(
                    line,
                    Code::CastlingRightsInvalid,
                    format!("castling field {castling_field:?}: {problem}"),
                );
                None
            }
        };
        // The rest of the fields: shakmaty reads them, the castling field
        // too when it passed the check above, else with it blanked.
        let whole = castling
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
            // A bad side to move is reported above; shakmaty would repeat it.
            Err(_) if turn.is_none() => None,
            Err(err) => {
                self.report(line, Code::FenUnparsable, format!("{err}: {text:?}"));
                None
            }
        };
        // Clocks count only when the FEN parsed, so a broken clock field is
        // one finding, not two.
        let clocks_initial = setup
            .as_ref()
            .is_none_or(|setup| setup.halfmoves == 0 && setup.fullmoves.get() == 1);
        Some(ReadFen {
            tag_at: at,
            placement: Placement::Board(board),
            setup,
            castling,
            turn,
            clocks_initial,
        })
    }

    fn check_start_fields(&mut self, fen: &ReadFen) {
        let at = Some(fen.tag_at);
        if let Some(castling) = &fen.castling {
            match castling.rights {
                0 => self.report_at(
                    at,
                    Code::CastlingRightsNone,
                    "a start array with no castling rights".to_string(),
                ),
                1..=3 => self.report_at(
                    at,
                    Code::CastlingRightsPartial,
                    format!(
                        "a start array with {} of the 4 castling rights",
                        castling.rights
                    ),
                ),
                _ => {}
            }
        }
        if fen.turn == Some(Color::Black) {
            self.report_at(
                at,
                Code::StartNotWhiteToMove,
                "a start array with Black to move".to_string(),
            );
        }
        if !fen.clocks_initial {
            self.report_at(
                at,
                Code::StartClockNotInitial,
                "a start array whose halfmove clock is not 0 or move number not 1".to_string(),
            );
        }
    }

    fn check_variant(
        &mut self,
        array: Option<StartArray>,
        (variant, tag): (Variant, Option<&TagSpan>),
    ) {
        let at = tag.map(|t| t.name.start);
        let is_960_array = array.is_some_and(|a| a != StartArray::Chess960(BackRank::STANDARD));
        let shown = |batch: &Batch| {
            tag.map(|t| String::from_utf8_lossy(&tag_value(batch, t)).into_owned())
                .unwrap_or_default()
        };
        match variant {
            Variant::Absent if is_960_array => self.report_at(
                at,
                Code::VariantMissing,
                "a Chess960 start array other than 518 but no Variant tag; readers will take it for standard chess".to_string(),
            ),
            Variant::Standard | Variant::Other if is_960_array => self.report_at(
                at,
                Code::VariantMismatch,
                format!("Variant {:?} on a Chess960 start array other than 518", shown(self.batch)),
            ),
            Variant::Chess960 { common: false } => self.report_at(
                at,
                Code::VariantSpelling,
                format!(
                    "Variant {:?}: many readers only accept \"Chess960\" (or \"chess 960\", \"Fischerandom\")",
                    shown(self.batch)
                ),
            ),
            _ => {}
        }
    }

    fn check_ids(&mut self, id_tags: &[(&TagSpan, bool)], array: Option<StartArray>) {
        for &(tag, fritz9) in id_tags {
            let at = Some(tag.name.start);
            let (name, range) = if fritz9 {
                ("Chess960Fritz9Id", 1..=960)
            } else {
                ("Chess960Id", 0..=959)
            };
            let value = tag_value(self.batch, tag);
            let text = lossy(&value);
            let Some(number) = parse_plain_number(text.trim()).filter(|n| range.contains(n)) else {
                self.report_at(
                    at,
                    Code::IdMalformed,
                    format!(
                        "{name} {text:?} is not a number from {} to {}",
                        range.start(),
                        range.end()
                    ),
                );
                continue;
            };
            let Some(StartArray::Chess960(rank)) = array else {
                let what = match array {
                    Some(StartArray::DoubleFrc { .. }) => "a Double FRC game",
                    _ => "a game with no Chess960 start array",
                };
                self.report_at(at, Code::IdMalformed, format!("{name} {number} on {what}"));
                continue;
            };
            let right = u32::from(if fritz9 {
                rank.fritz9()
            } else {
                rank.scharnagl()
            });
            if number != right {
                self.report_at(
                    at,
                    Code::IdMismatch,
                    format!("{name} is {number}, but the game starts from {rank}, number {right}"),
                );
            }
        }
    }

    /// Replays the mainline from `pos`.
    fn replay(&mut self, mut pos: Chess, result_tag: Option<&TagSpan>) {
        let (movetext_start, lexer) = self.movetext();
        let text = &self.batch.data[movetext_start..self.game.range.end];
        let mut tokens = lexer
            .filter(|t| t.depth == 0 && matches!(t.kind, TokenKind::Move | TokenKind::Result))
            .map(|t| t.range);
        let mut ply = 0u32;
        let mut result_token = None;
        for token in tokens.by_ref() {
            let word = &text[token.clone()];
            if is_result(word) {
                result_token = Some(word);
                break;
            }
            ply += 1;
            let problem = match SanPlus::from_ascii(&zeros_as_letters(strip_glyphs(word))) {
                Err(_) => Some("unreadable move"),
                Ok(SanPlus { san: San::Null, .. }) => Some("null move (not a legal move)"),
                Ok(san) => match san.san.to_move(&pos) {
                    Ok(m) => {
                        pos.play_unchecked(m);
                        None
                    }
                    Err(SanError::AmbiguousSan) => Some("ambiguous move"),
                    Err(SanError::IllegalSan) => Some("illegal move"),
                },
            };
            if let Some(problem) = problem {
                let line = self.line_of(movetext_start + token.start);
                let fen = Fen::from_position(&pos, EnPassantMode::Legal);
                let dots = if pos.turn() == Color::White {
                    "."
                } else {
                    "..."
                };
                self.report(
                    line,
                    Code::IllegalMove,
                    format!(
                        "ply {ply} ({}{dots} {}): {problem}; position before it: {fen}",
                        pos.fullmoves(),
                        String::from_utf8_lossy(word)
                    ),
                );
                return;
            }
        }
        if result_token.is_some()
            && let Some(token) = tokens.next()
        {
            let line = self.line_of(movetext_start + token.start);
            self.report(
                line,
                Code::MovesAfterResult,
                format!(
                    "{:?} after the result token: a game without tags, or stray text; it is not checked",
                    String::from_utf8_lossy(&text[token])
                ),
            );
        }
        self.check_result(&pos, result_tag, result_token);
    }

    /// Where the game's movetext starts (after its last tag pair), and the
    /// lexer over it.
    fn movetext(&self) -> (usize, Lexer<'a>) {
        let data: &'a [u8] = &self.batch.data;
        let start = self
            .batch
            .tags_of(self.game)
            .last()
            .map_or(self.game.range.start, |t| t.end);
        let starts_line = start == 0 || matches!(data[start - 1], b'\n' | b'\r');
        let lexer = Lexer::new(&data[start..self.game.range.end], starts_line);
        (start, lexer)
    }

    /// The last game of an input must not end inside a comment or variation.
    fn check_open_structure(&mut self) {
        let (movetext_start, mut tokens) = self.movetext();
        while tokens.next().is_some() {}
        let open = match (tokens.open_comment(), tokens.open_variation()) {
            (Some(at), _) => Some((at, "comment")),
            (None, Some(at)) => Some((at, "variation")),
            (None, None) => None,
        };
        if let Some((at, inside)) = open {
            let line = self.line_of(movetext_start + at);
            self.report(
                line,
                Code::Unterminated,
                format!("the input ends inside the {inside} opened here"),
            );
        }
    }

    /// A checkmate or stalemate at the end of the moves must agree with the
    /// Result tag (or, without one, with the result token).
    fn check_result(&mut self, pos: &Chess, result_tag: Option<&TagSpan>, token: Option<&[u8]>) {
        let (expected, what) = if pos.is_checkmate() {
            let winner = if pos.turn() == Color::White {
                "0-1"
            } else {
                "1-0"
            };
            (winner, "checkmate")
        } else if pos.is_stalemate() {
            ("1/2-1/2", "stalemate")
        } else {
            return;
        };
        let (line, found, source) = match (result_tag, token) {
            (Some(tag), _) => (
                self.line_of(tag.name.start),
                String::from_utf8_lossy(&tag_value(self.batch, tag))
                    .trim()
                    .to_string(),
                "the Result tag",
            ),
            (None, Some(token)) => (
                self.first_line(),
                String::from_utf8_lossy(token).into_owned(),
                "the result token",
            ),
            (None, None) => return,
        };
        if found != expected {
            self.report(
                line,
                Code::ResultMismatch,
                format!("the moves end in {what} ({expected}), but {source} is {found:?}"),
            );
        }
    }
}

/// Checks a castling field against a board. Returns how many rights it
/// grants, or what is wrong.
/// Reads a FEN that is exactly a Chess960 start as [`BackRank::to_xfen`]
/// or [`BackRank::to_shredder_fen`] write it, as lichess and most tools
/// write them: without parsing, to what [`read_plain_fen`] reads from it.
fn read_start_fen(at: usize, text: &str) -> Option<ReadFen> {
    let (placement, rest) = text.split_once(' ')?;
    let rank = plain_start_array(placement.as_bytes())?;
    if placement.len() != START_PLACEMENT_LEN
        || (rest != "w KQkq - 0 1" && text != rank.to_shredder_fen())
    {
        return None;
    }
    Some(ReadFen {
        tag_at: at,
        placement: Placement::Start(StartArray::Chess960(rank)),
        setup: None,
        castling: Some(CastlingReport { rights: 4 }),
        turn: Some(Color::White),
        clocks_initial: true,
    })
}

/// The length of a start array's placement: `rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR`.
const START_PLACEMENT_LEN: usize = 43;

/// Reads a FEN written with single spaces that has nothing to report: its
/// board has the right shape, shakmaty reads it whole, its side to move is
/// `w` or `b` and its castling field names rooks that are there. Most FEN
/// tags are such; they are read once, where [`GameCheck::read_fen`] reads
/// others field by field to say what is wrong. `None`: read it that way.
fn read_plain_fen(at: usize, text: &str) -> Option<ReadFen> {
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
    let castling = check_castling(&setup.board, castling).ok()?;
    Some(ReadFen {
        tag_at: at,
        placement: Placement::Board(setup.board.clone()),
        clocks_initial: setup.halfmoves == 0 && setup.fullmoves.get() == 1,
        setup: Some(setup),
        castling: Some(castling),
        turn: Some(turn),
    })
}

fn check_castling(board: &Board, field: &str) -> Result<CastlingReport, String> {
    if field == "-" {
        return Ok(CastlingReport { rights: 0 });
    }
    let mut seen = Vec::new();
    for ch in field.chars() {
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
                let outside = if ch.eq_ignore_ascii_case(&'k') {
                    rooks.into_iter().filter(|r| r.file() > king.file()).max()
                } else {
                    rooks.into_iter().filter(|r| r.file() < king.file()).min()
                };
                outside.ok_or_else(|| {
                    let wing = if ch.eq_ignore_ascii_case(&'k') {
                        "h-side"
                    } else {
                        "a-side"
                    };
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
        if seen.contains(&rook) {
            return Err(format!("{ch}: the same right is given twice"));
        }
        seen.push(rook);
    }
    if seen.len() > 4 {
        return Err("more than four rights".to_string());
    }
    Ok(CastlingReport { rights: seen.len() })
}

/// `0-0` and `0-0-0` (zeros, as some writers castle) read as `O-O`, `O-O-O`.
fn zeros_as_letters(word: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if word.starts_with(b"0-0") {
        let mut fixed = word.to_vec();
        for b in fixed.iter_mut().take_while(|b| matches!(b, b'0' | b'-')) {
            if *b == b'0' {
                *b = b'O';
            }
        }
        std::borrow::Cow::Owned(fixed)
    } else {
        std::borrow::Cow::Borrowed(word)
    }
}

/// A number written plainly: digits only, no sign, no leading zero.
fn parse_plain_number(text: &str) -> Option<u32> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    plain.then(|| text.parse().ok()).flatten()
}

/// Whether a token is a game result.
fn is_result(word: &[u8]) -> bool {
    matches!(word, b"1-0" | b"0-1" | b"1/2-1/2" | b"*")
}

/// A move without trailing `!` and `?` glyphs.
fn strip_glyphs(word: &[u8]) -> &[u8] {
    let end = word
        .iter()
        .rposition(|b| !matches!(b, b'!' | b'?'))
        .map_or(0, |i| i + 1);
    &word[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    fn codes(pgn: &str) -> Vec<&'static str> {
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        validate_batch(&batch, ValidateOptions::default())
            .iter()
            .map(|f| f.code.name())
            .collect()
    }

    const FEN_0: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1";

    /// What the short ways read from a FEN, for comparison.
    fn summary(fen: &ReadFen) -> impl PartialEq + std::fmt::Debug {
        (
            fen.tag_at,
            fen.board().into_owned(),
            fen.setup(),
            fen.castling.as_ref().map(|c| c.rights),
            fen.turn,
            fen.clocks_initial,
        )
    }

    #[test]
    fn start_fens_read_without_parsing_as_when_parsed() {
        for rank in BackRank::all() {
            for fen in [rank.to_xfen(), rank.to_shredder_fen()] {
                let short = read_start_fen(7, &fen).expect("a start FEN");
                let parsed = read_plain_fen(7, &fen).expect("a FEN with nothing to report");
                assert_eq!(summary(&short), summary(&parsed), "{fen}");
                // What the check then skips: classifying the board, and
                // asking shakmaty whether the position is legal.
                let start = short.start().map(BoardStart::Start);
                assert_eq!(start, Some(classify_board(&parsed.board())), "{fen}");
                let setup = parsed.setup.expect("parsed whole");
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
            assert!(read_start_fen(7, fen).is_none(), "{fen}");
        }
    }

    #[test]
    fn clean_960_game_has_no_finding() {
        let pgn = format!(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n[Chess960Id \"0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Nc3 Nf6 1-0\n"
        );
        assert_eq!(codes(&pgn), Vec::<&str>::new());
        // Castling written with zeros, in the standard array played as 960.
        let pgn =
            "[Variant \"Chess960\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 Nf6 5. d3 0-0 *\n";
        assert_eq!(codes(pgn), Vec::<&str>::new());
    }

    #[test]
    fn a_stray_closing_brace_is_skipped() {
        for input in [&b"}"[..], b"[Event \"{\"]\n\n} *\n"] {
            let batch = GameReader::new(input).next_batch().unwrap().unwrap();
            let _ = validate_batch(&batch, ValidateOptions::default());
        }
    }

    #[test]
    fn an_indented_escape_line_is_skipped_as_the_splitter_skips_it() {
        // Two games: the splitter reads the second line of moves as an
        // escape line, and so does the replay.
        let pgn = format!(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n\n1. e4\n  % escape {{ here\ne5 *\n\n[Event \"b\"]\n\n1. d4 *\n"
        );
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        assert_eq!(batch.games.len(), 2);
        assert_eq!(codes(&pgn), Vec::<&str>::new());
    }

    #[test]
    fn castling_field_checks() {
        let board = BackRank::from_scharnagl(0).unwrap().board();
        assert_eq!(check_castling(&board, "KQkq").unwrap().rights, 4);
        assert_eq!(check_castling(&board, "HFhf").unwrap().rights, 4);
        assert_eq!(check_castling(&board, "Kk").unwrap().rights, 2);
        assert!(check_castling(&board, "A").is_err());
        assert!(check_castling(&board, "KK").is_err());
        assert!(check_castling(&board, "X").is_err());
    }

    #[test]
    fn illegal_and_unreadable_moves() {
        let pgn = format!(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n\n1. e4 e5 2. Qxh7 *\n"
        );
        assert_eq!(codes(&pgn), ["illegal_move"]);
        let pgn =
            format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n\n1. e4 zz9 *\n");
        assert_eq!(codes(&pgn), ["illegal_move"]);
    }
}
