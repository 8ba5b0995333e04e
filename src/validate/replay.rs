//! The mainline replayed from the game's start with shakmaty in Chess960
//! castling mode (`O-O`, `O-O-O`, `0-0` accepted), the result it reaches,
//! and movetext left open.

use std::borrow::Cow;

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position, PositionError, Setup,
};

use crate::game::{Known, Start, tag_value};
use crate::movetext::{Lexer, Mainline, Token, TokenKind};
use crate::split::{Batch, Game};

use super::start::FirstFen;
use super::{Code, GameCheck, ValidateOptions};

/// Where a game's movetext starts (after its last tag pair), and the
/// lexer over it.
pub(super) fn movetext<'a>(batch: &'a Batch, game: &Game) -> (usize, Lexer<'a>) {
    let data: &'a [u8] = &batch.data;
    let (start, starts_line) = batch.movetext_start(game);
    let lexer = Lexer::new(&data[start..game.range.end], starts_line);
    (start, lexer)
}

/// The position to play a setup from: bad castling rights and en passant
/// squares are reported from the FEN itself, and play goes on without
/// them. (shakmaty's error is large, and rare here: it is boxed.)
fn playable(setup: Setup) -> Result<Chess, Box<PositionError<Chess>>> {
    let lenient = match Chess::from_setup(setup, CastlingMode::Chess960) {
        Ok(pos) => Ok(pos),
        Err(err) => match err.ignore_invalid_castling_rights() {
            Ok(pos) => Ok(pos),
            Err(err) => err.ignore_invalid_ep_square(),
        },
    };
    lenient.map_err(Box::new)
}

/// How playing a mainline stopped.
enum Played<'t> {
    /// At the result token, whose bytes these are.
    Result(&'t [u8]),
    /// The moves ran out before any result.
    End,
    /// At a move that cannot be played, with what is wrong with it.
    Stopped(Token, &'static str),
}

/// Plays the mainline's moves (`tokens` over `text`) from `pos`, counting
/// them in `ply`, up to the result, the first move that cannot be played,
/// or the end: the one replay of `validate` and [`replays_legally`].
fn play_mainline<'t>(
    pos: &mut Chess,
    text: &'t [u8],
    tokens: &mut Mainline<'_>,
    ply: &mut u32,
) -> Played<'t> {
    for token in tokens.by_ref() {
        let word = &text[token.range.clone()];
        if token.kind == TokenKind::Result {
            return Played::Result(word);
        }
        *ply += 1;
        if let Some(problem) = play_one(pos, word) {
            return Played::Stopped(token, problem);
        }
    }
    Played::End
}

/// Whether the mainline of `game` replays legally from `setup` under
/// Chess960 castling rules, up to its result — as `validate` replays it,
/// finding no `illegal_move` (bad castling rights and en passant squares
/// of `setup` are dropped, as `validate` drops them). A game in pieces
/// ([`Game::continued`]), or a setup no game can be played from, does
/// not replay.
///
/// # Example
///
/// ```
/// use pgn960::{BackRank, StartArray};
/// use pgn960::split::GameReader;
/// use pgn960::validate::replays_legally;
///
/// // A knight from g1 to h3: in start array 0 (BBQNNRKR) g1 holds the king.
/// let pgn = b"[Event \"x\"]\n\n1. Nh3 Nh6 *\n";
/// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
/// let game = &batch.games[0];
/// let standard = StartArray::Chess960(BackRank::STANDARD);
/// let zero = StartArray::Chess960(BackRank::from_scharnagl(0)?);
/// assert!(replays_legally(&batch, game, standard.setup()));
/// assert!(!replays_legally(&batch, game, zero.setup()));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn replays_legally(batch: &Batch, game: &Game, setup: Setup) -> bool {
    if game.continued {
        return false;
    }
    let Ok(mut pos) = playable(setup) else {
        return false;
    };
    let (start, lexer) = movetext(batch, game);
    let text = &batch.data[start..game.range.end];
    let mut ply = 0;
    !matches!(
        play_mainline(&mut pos, text, &mut lexer.mainline(), &mut ply),
        Played::Stopped(..)
    )
}

impl<'a> GameCheck<'a> {
    /// Where the game's movetext starts, and the lexer over it.
    fn movetext(&self) -> (usize, Lexer<'a>) {
        movetext(self.batch, self.game)
    }

    /// The last game of an input must not end inside a comment or a
    /// variation, or before its result. (A variation still open when the
    /// next game begins is seen by the replay, in [`GameCheck::play`].)
    pub(super) fn check_input_end(&mut self) {
        if !self.game.at_end {
            return;
        }
        let (movetext_start, mut tokens) = self.movetext();
        let mut result = false;
        let mut moves = false;
        for token in tokens.by_ref() {
            match token.kind {
                TokenKind::Result if token.depth == 0 => result = true,
                TokenKind::Move | TokenKind::MoveNumber => moves = true,
                _ => {}
            }
        }
        let open = match (tokens.open_comment(), tokens.open_variation()) {
            (Some(at), _) => Some((at, "comment")),
            (None, Some(at)) => Some((at, "variation")),
            (None, None) => None,
        };
        if let Some((at, inside)) = open {
            let line = self.line_of(movetext_start + at);
            let message = format!("the input ends inside the {inside} opened here");
            self.report(line, Code::Unterminated, message);
        } else if moves && !result && !self.game.continued {
            let line = self.first_line();
            self.report(
                line,
                Code::Unterminated,
                "the input ends before the game's result".to_string(),
            );
        }
    }

    /// Replays the mainline, unless the start is unknown.
    pub(super) fn replay(&mut self, first_fen: Option<&FirstFen>, options: ValidateOptions) {
        if !self.reading.start.is_known() || matches!(self.reading.start, Start::FenMissing { .. })
        {
            return; // no start to replay from
        }
        if self.game.continued {
            // The splitter hands an oversized game out in pieces; replaying
            // it whole would hold it whole in memory.
            if options.moves {
                self.report_at_tag(
                    None,
                    Code::GameTooLong,
                    "the game is too long to hold in memory (over 16 MiB): its moves are not replayed"
                        .to_string(),
                );
            }
            return;
        }
        let start_position = matches!(self.reading.start, Start::NoFen | Start::Array(_));
        if !options.moves && start_position {
            return; // a start position is legal: nothing to replay, nothing to report
        }
        // Without a first FEN the game has none (a FEN that does not read
        // is `Start::BadFen`, returned above): the standard array.
        let setup = match first_fen {
            None => Some(Setup::initial()),
            Some(fen) => fen.read.setup(),
        };
        let Some(setup) = setup else {
            return; // the FEN's own problem is reported already
        };
        match playable(setup) {
            Ok(pos) if options.moves => self.play(pos),
            Ok(_) => {}
            // An illegal back rank is the root cause; shakmaty's complaint
            // about its material would only repeat it.
            Err(_) if matches!(self.reading.start, Start::IllegalBackRank { .. }) => {}
            Err(err) => {
                let message = format!("cannot play from this position: {err}");
                self.report_at_tag(first_fen.map(|fen| fen.tag), Code::PositionIllegal, message);
            }
        }
    }

    /// Plays the mainline's moves from `pos`, up to the result. When the
    /// moves run out inside a variation, the next game's tags begin there.
    fn play(&mut self, mut pos: Chess) {
        let (movetext_start, lexer) = self.movetext();
        let text = &self.batch.data[movetext_start..self.game.range.end];
        let mut tokens = lexer.mainline();
        let mut ply = 0u32;
        let result_token = match play_mainline(&mut pos, text, &mut tokens, &mut ply) {
            Played::Result(word) => Some(word),
            Played::End => None,
            Played::Stopped(token, problem) => {
                let word = &text[token.range.clone()];
                let line = self.line_of(movetext_start + token.range.start);
                let fen = Fen::from_position(&pos, EnPassantMode::Legal);
                let dots = if pos.turn() == Color::White {
                    "."
                } else {
                    "..."
                };
                let message = format!(
                    "ply {ply} ({}{dots} {}): {problem}; position before it: {fen}",
                    pos.fullmoves(),
                    String::from_utf8_lossy(word)
                );
                self.report(line, Code::IllegalMove, message);
                return;
            }
        };
        if let Some(at) = tokens.stray_close() {
            let line = self.line_of(movetext_start + at);
            let what = match text[at] {
                b')' => "a `)` that closes no variation",
                _ => "a `}` that closes no comment",
            };
            let message = format!("{what}: readers stop here or skip it");
            self.report(line, Code::StrayBracket, message);
        }
        if result_token.is_none()
            && !self.game.at_end
            && let Some(at) = tokens.open_variation()
        {
            let line = self.line_of(movetext_start + at);
            let message = "the next game's tags begin inside the variation opened here".to_string();
            self.report(line, Code::Unterminated, message);
        }
        if result_token.is_some()
            && let Some(token) = tokens.next()
        {
            let line = self.line_of(movetext_start + token.range.start);
            let message = format!(
                "{:?} after the result token: a game without tags, or stray text; it is not checked",
                String::from_utf8_lossy(&text[token.range])
            );
            self.report(line, Code::MovesAfterResult, message);
        }
        self.check_result(&pos, result_token);
    }

    /// A checkmate or stalemate at the end of the moves must agree with the
    /// Result tag (or, without one, with the result token).
    fn check_result(&mut self, pos: &Chess, token: Option<&[u8]>) {
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
        let result_tag = self.reading.headers.get(Known::Result);
        let (line, found, source) = match (result_tag, token) {
            (Some(tag), _) => (
                self.line_of_tag(tag),
                String::from_utf8_lossy(&tag_value(self.batch, &self.batch.tags[tag]))
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

/// Plays one move written `word`; what is wrong with it, if anything.
fn play_one(pos: &mut Chess, word: &[u8]) -> Option<&'static str> {
    match SanPlus::from_ascii(&zeros_as_letters(strip_glyphs(word))) {
        Err(_) => Some("unreadable move"),
        Ok(SanPlus { san: San::Null, .. }) => Some("null move (not a legal move)"),
        Ok(san) => match super::san::to_move(san.san, pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                None
            }
            Err(SanError::AmbiguousSan) => Some("ambiguous move"),
            Err(SanError::IllegalSan) => Some("illegal move"),
        },
    }
}

/// `0-0` and `0-0-0` (zeros, as some writers castle) read as `O-O`, `O-O-O`.
fn zeros_as_letters(word: &[u8]) -> Cow<'_, [u8]> {
    if word.starts_with(b"0-0") {
        let mut fixed = word.to_vec();
        for b in fixed.iter_mut().take_while(|b| matches!(b, b'0' | b'-')) {
            if *b == b'0' {
                *b = b'O';
            }
        }
        Cow::Owned(fixed)
    } else {
        Cow::Borrowed(word)
    }
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
    use crate::position::{BackRank, StartArray};
    use crate::split::GameReader;

    /// Whether the one game of `pgn` replays from the array numbered
    /// `scharnagl`.
    fn replays_from(pgn: &str, scharnagl: u32) -> bool {
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        let rank = BackRank::from_scharnagl(scharnagl).unwrap();
        replays_legally(&batch, &batch.games[0], StartArray::Chess960(rank).setup())
    }

    #[test]
    fn replays_legally_follows_the_mainline_from_the_start_given() {
        // Knights on g1 and g8 in the standard array, not in array 0
        // (BBQNNRKR); castling at once, king f1 to g1 and rook g1 to f1,
        // in array 325 (NRBBQKRN) alone.
        let knights = "[Event \"x\"]\n\n1. Nh3 {Nf6??} Nh6 (1... Qxh2) 2. Ng5 *\n";
        assert!(replays_from(knights, 518));
        assert!(!replays_from(knights, 0));
        let castles = "[Event \"x\"]\n\n1. O-O O-O *\n";
        assert!(replays_from(castles, 325));
        assert!(!replays_from(castles, 518));
        // A move the mainline cannot make after a legal one.
        assert!(!replays_from("[Event \"x\"]\n\n1. e4 e5 2. e5 *\n", 518));
    }
}
