//! The codes of `validate`'s findings: stable names that scripts filter
//! on, each with its severity and one sentence of meaning (the README's
//! table is checked against these).

use std::fmt;

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
        "Two or more FEN tags with different positions (placement, side to move, castling rights or en passant square, where both give them).";
    PositionIllegal => "position_illegal", Error,
        "A FEN whose position cannot be played from (a king missing, pawns on a back rank, the side not to move in check).";
    SetupWithoutFen => "setup_without_fen", Error,
        "SetUp \"1\" and no FEN tag.";
    FenMissing => "fen_missing", Error,
        "No FEN tag, but a Chess960Id, Chess960Fritz9Id or a back rank in Opening records a start other than the standard array (or records disagree): readers start the game from the standard array, so its start is unknown (kind unreadable) until fix adds the FEN.";
    IllegalBackRank => "illegal_back_rank", Error,
        "Both back ranks hold eight pieces behind full pawn rows, but break a Chess960 rule.";
    CastlingRightsInvalid => "castling_rights_invalid", Error,
        "A castling field naming a file with no rook of that side on its back rank, rights for a side whose king is not on its back rank, or a malformed field.";
    IdMismatch => "id_mismatch", Error,
        "A Chess960Id (or Chess960Fritz9Id) that is not the number of the game's start position.";
    IdMalformed => "id_malformed", Error,
        "A Chess960Id that is not an integer 0..959 written alone, as `tag` writes it (no blanks or leading zeros; a Chess960Fritz9Id 1..960), or one on a game with no Chess960 start array.";
    IllegalMove => "illegal_move", Error,
        "The first illegal, ambiguous or unreadable move of the mainline.";
    Unterminated => "unterminated", Error,
        "A game cut off: the input ends inside a comment, variation or tag, or before the game's result; or a variation is still open when the next game's tags begin.";
    TagSectionTooLong => "tag_section_too_long", Error,
        "A tag section too long to read whole (more than 65,536 tag pairs or 16 MiB, or a tag line longer than 16 MiB): its tags are not all read, so where the game starts is unknown (it is unreadable), and nothing else of it is checked.";
    VariantMissing => "variant_missing", Warning,
        "A 960 start array other than 518 with no Variant tag naming Chess960.";
    VariantMismatch => "variant_mismatch", Warning,
        "A Variant naming something else (e.g. Standard) on a 960 start array other than 518.";
    FenWithoutSetup => "fen_without_setup", Warning,
        "A FEN tag without SetUp \"1\".";
    FenIncomplete => "fen_incomplete", Warning,
        "A FEN tag with fewer than the four fields a position needs (often the board part alone): read as its placement, with White to move and, for a start array, every castling right.";
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
    StrayBracket => "stray_bracket", Warning,
        "A `)` that closes no variation or a `}` that closes no comment in the mainline before the result (the first one): readers stop there or skip it.";
    MovesAfterResult => "moves_after_result", Warning,
        "Movetext after the game's result token (a game without tags, or stray text); it is not checked.";
    TagRepeated => "tag_repeated", Warning,
        "A tag that commands read given twice in a game (its name compared ignoring case): FEN, SetUp, Variant, Chess960Id, Chess960Fritz9Id, Opening, the Seven Tag Roster, WhiteElo, BlackElo, TimeControl, Termination or ECO. Readers keep one or the other.";
    GameTooLong => "game_too_long", Warning,
        "A game longer than 16 MiB, read in pieces to bound memory: its moves are not replayed.";
    VariantSpelling => "variant_spelling", Info,
        "A Chess960 Variant spelled in a way common readers reject (FRC, chess-960, 960, ...).";
}
