//! The mainline replayed from the game's start with shakmaty in Chess960
//! castling mode (`O-O`, `O-O-O`, `0-0` accepted), the result it reaches,
//! and movetext left open.

use std::borrow::Cow;

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position, Setup};

use crate::game::{Known, Start, tag_value};
use crate::movetext::{Lexer, TokenKind};

use super::start::FirstFen;
use super::{Code, GameCheck, ValidateOptions};

impl<'a> GameCheck<'a> {
    /// Where the game's movetext starts (after its last tag pair), and the
    /// lexer over it.
    fn movetext(&self) -> (usize, Lexer<'a>) {
        let data: &'a [u8] = &self.batch.data;
        let (start, starts_line) = self.batch.movetext_start(self.game);
        let lexer = Lexer::new(&data[start..self.game.range.end], starts_line);
        (start, lexer)
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
        if matches!(
            self.reading.start,
            Start::BadFen { .. } | Start::Conflict { .. }
        ) {
            return;
        }
        if self.game.continued {
            // The splitter hands an oversized game out in pieces; replaying
            // it whole would hold it whole in memory.
            if options.moves {
                self.report_at_tag(
                    None,
                    Code::GameTooLong,
                    "the game is too long to hold in memory (over 16 MiB or 65,536 tag pairs): \
                     its moves are not replayed"
                        .to_string(),
                );
            }
            return;
        }
        let start_position = matches!(self.reading.start, Start::NoFen | Start::Array(_));
        if !options.moves && start_position {
            return; // a start position is legal: nothing to replay, nothing to report
        }
        let setup = match first_fen {
            None if self.reading.start == Start::NoFen => Some(Setup::initial()),
            None => None,
            Some(fen) => fen.read.setup(),
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
        let mut result_token = None;
        for token in tokens.by_ref() {
            let word = &text[token.range.clone()];
            if token.kind == TokenKind::Result {
                result_token = Some(word);
                break;
            }
            ply += 1;
            let Some(problem) = play_one(&mut pos, word) else {
                continue;
            };
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
        Ok(san) => match san.san.to_move(pos) {
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
