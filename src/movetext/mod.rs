//! Movetext, read one way: what follows a game's tags, as tokens (moves,
//! move numbers, NAGs, results, comments, variations, escape lines).
//!
//! The lexical rules live here once, and every reader of movetext keeps to
//! them: the splitter, which only needs to know where comments end and
//! where a line is an escape line in order to find game boundaries (it
//! does so at gigabytes a second with block masks, see `split::scanner`,
//! calling [`is_escape_line`] and [`ends_with_result`] for its decisions),
//! and [`Lexer`], which `validate` replays moves from and `games` counts
//! plies with. The rules:
//!
//! - a brace comment runs from `{` to the first `}`; it does not nest, and
//!   nothing inside it counts (a `%`, `;`, `(` or `[` in a comment is text);
//! - a `;` outside comments starts a comment that runs to the end of its
//!   line;
//! - an **escape line** is a line whose first byte other than a space or a
//!   tab is `%`, outside comments: the whole line is skipped. (The PGN
//!   standard asks for `%` in the first column; writers that indent their
//!   escape lines are read as they mean it.)
//! - a line ends at `\n`, `\r\n` or a lone `\r`;
//! - `(` and `)` open and close a variation; a `)` with none open is
//!   ignored, as is a stray `}`;
//! - `1-0`, `0-1`, `1/2-1/2` and `*` are results; `*` is a token of its
//!   own wherever it stands, as the PGN standard makes it (section 7): a
//!   result glued to its move (`h6*`) ends the mainline after `h6`;
//! - any other run of bytes up to white space or one of `{ } ( ) ; *` is a
//!   word: a move number (`12.`, `12...`, possibly glued to its move), a NAG
//!   (`$1`), an annotation glyph on its own (`!?`), or a move.

mod plies;

use std::ops::Range;

/// The four game results.
pub const RESULTS: [&[u8]; 4] = [b"1-0", b"0-1", b"1/2-1/2", b"*"];

/// Whether a word is a game result.
pub fn is_result(word: &[u8]) -> bool {
    RESULTS.contains(&word)
}

/// Whether `line`, from the start of a line, is an escape line: its first
/// byte other than a space or a tab is `%`. (Only a line that starts
/// outside a comment can be one; the caller knows where comments are.)
pub fn is_escape_line(line: &[u8]) -> bool {
    line.iter().find(|&&b| b != b' ' && b != b'\t') == Some(&b'%')
}

/// Whether `before` ends, white space aside, with a result token that
/// stands on its own (after white space, a comment's `}` or a variation's
/// `)`, or at the start; `*`, a token of its own, after anything): where a
/// tag pair right after it on the same line begins the next game
/// (`... 1-0 [Event "next"]`).
pub fn ends_with_result(before: &[u8]) -> bool {
    let end = before
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    let text = &before[..end];
    text.ends_with(b"*")
        || RESULTS.iter().any(|token| {
            text.ends_with(token)
                && text[..text.len() - token.len()]
                    .last()
                    .is_none_or(|b| b.is_ascii_whitespace() || matches!(b, b'}' | b')'))
        })
}

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A move, as written (`Nf3`, `exd8=Q+`, `O-O`, `0-0!?`), or a word that
    /// should be one.
    Move,
    /// A move number, `12.` or `12...` (or bare digits).
    MoveNumber,
    /// A numeric annotation glyph, `$1`.
    Nag,
    /// Annotation glyphs standing alone, `!?`.
    Glyph,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    Result,
    /// A brace comment, braces included (to the end of the text when it is
    /// never closed; see [`Lexer::open_comment`]).
    Comment,
    /// A `;` comment, up to its line end.
    LineComment,
    /// An escape line, up to its line end.
    EscapeLine,
    /// `(`.
    VariationStart,
    /// `)`.
    VariationEnd,
}

/// One token of movetext.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Its bytes in the text.
    pub range: Range<usize>,
    /// Variations open around it: 0 for the mainline. A `(` counts itself,
    /// a `)` does not.
    pub depth: u32,
}

/// Whether a byte ends a word: white space, or one of `{ } ( ) ; *`.
#[inline(always)]
fn ends_word(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b'\r' | b'{' | b'}' | b'(' | b')' | b';' | b'*'
    )
}

/// The length of the move number a word starts with (`12.`, `12...`,
/// bare `12`), 0 when it starts with none (`1-0` and `0-0` do not).
fn move_number_len(word: &[u8]) -> usize {
    let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
    let dots = word[digits..].iter().take_while(|&&b| b == b'.').count();
    if digits > 0 && (dots > 0 || digits == word.len()) {
        digits + dots
    } else {
        0
    }
}

/// Whether a word is annotation glyphs alone (`!?`).
fn is_glyphs(word: &[u8]) -> bool {
    word.iter().all(|b| matches!(b, b'!' | b'?'))
}

/// What a word of the mainline (not a NAG) is to it.
enum MainlineWord {
    /// A game result: the mainline ends.
    Result,
    /// A move, from byte `from` of the word (after its move number).
    Move { from: usize },
    /// A move number or glyphs alone.
    Nothing,
}

/// Reads a word of the mainline: the one rule [`Mainline`] and the ply
/// count (`plies`) share.
#[inline]
fn mainline_word(word: &[u8]) -> MainlineWord {
    if is_result(word) {
        return MainlineWord::Result;
    }
    let from = move_number_len(word);
    if from < word.len() && !is_glyphs(&word[from..]) {
        MainlineWord::Move { from }
    } else {
        MainlineWord::Nothing
    }
}

/// Where a reader of movetext is, and what it has seen open: the state
/// [`Lexer`] and [`Mainline`] share, and the rules they both keep.
#[derive(Clone, Debug)]
struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
    /// Whether `text[0]` starts a line.
    starts_line: bool,
    depth: u32,
    open_comment: Option<usize>,
    open_variation: Option<usize>,
    /// The first `)` or `}` that closes nothing.
    stray_close: Option<usize>,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a [u8], starts_line: bool) -> Self {
        Cursor {
            text,
            at: 0,
            starts_line,
            depth: 0,
            open_comment: None,
            open_variation: None,
            stray_close: None,
        }
    }

    /// Notes a `)` or `}` at `at` that closes nothing.
    fn stray(&mut self, at: usize) {
        self.stray_close.get_or_insert(at);
    }

    /// Skips the brace comment opening at `start`; returns its end.
    fn skip_comment(&mut self, start: usize) -> usize {
        self.at = match memchr::memchr(b'}', &self.text[start..]) {
            Some(close) => start + close + 1,
            None => {
                self.open_comment = Some(start);
                self.text.len()
            }
        };
        self.at
    }

    /// Skips to the end of the line holding `start`; returns it.
    fn skip_line(&mut self, start: usize) -> usize {
        self.at = memchr::memchr2(b'\n', b'\r', &self.text[start..])
            .map_or(self.text.len(), |i| start + i);
        self.at
    }

    /// Whether the `%` at `at` begins an escape line.
    fn escape_line_at(&self, at: usize) -> bool {
        let line = self.text[..at]
            .iter()
            .rposition(|&b| b == b'\n' || b == b'\r')
            .map(|end| end + 1);
        match line {
            Some(start) => is_escape_line(&self.text[start..]),
            None => self.starts_line && is_escape_line(self.text),
        }
    }

    /// A `(` at `start`.
    fn open(&mut self, start: usize) {
        if self.depth == 0 {
            self.open_variation = Some(start);
        }
        self.depth += 1;
        self.at = start + 1;
    }

    /// A `)`: whether it closed a variation (a stray one closes nothing).
    fn close(&mut self) -> bool {
        self.at += 1;
        if self.depth == 0 {
            self.stray(self.at - 1);
            return false;
        }
        self.depth -= 1;
        if self.depth == 0 {
            self.open_variation = None;
        }
        true
    }

    /// Reads the word from `start`; returns its end.
    #[inline(always)]
    fn word_end(&mut self, start: usize) -> usize {
        self.at = self.text[start..]
            .iter()
            .position(|&b| ends_word(b))
            .map_or(self.text.len(), |i| start + i);
        self.at
    }
}

/// The tokens of a stretch of movetext, in order.
///
/// # Example
///
/// ```
/// use pgn960::movetext::{Lexer, TokenKind};
///
/// let text = b"1. e4 {best} e5 (1... c5) 2. Nf3 $1 1-0";
/// let mainline: Vec<&[u8]> = Lexer::new(text, true)
///     .filter(|t| t.depth == 0 && matches!(t.kind, TokenKind::Move | TokenKind::Result))
///     .map(|t| &text[t.range])
///     .collect();
/// assert_eq!(mainline, [&b"e4"[..], b"e5", b"Nf3", b"1-0"]);
/// ```
#[derive(Clone, Debug)]
pub struct Lexer<'a> {
    cursor: Cursor<'a>,
    /// A move glued to its number (`12...Nf6`) comes after the number.
    pending: Option<Range<usize>>,
}

impl<'a> Lexer<'a> {
    /// Tokens of `text`; `starts_line` says whether its first byte is the
    /// first of a line (where an escape line can begin).
    pub fn new(text: &'a [u8], starts_line: bool) -> Self {
        Lexer {
            cursor: Cursor::new(text, starts_line),
            pending: None,
        }
    }

    /// Where a `{` that is never closed opens, once the tokens are read.
    pub fn open_comment(&self) -> Option<usize> {
        self.cursor.open_comment
    }

    /// Where the outermost variation still open opens, once the tokens are
    /// read.
    pub fn open_variation(&self) -> Option<usize> {
        self.cursor.open_variation
    }

    /// Where the first `)` that closes no variation, or `}` that closes no
    /// comment, is, among the tokens read so far.
    pub fn stray_close(&self) -> Option<usize> {
        self.cursor.stray_close
    }

    /// Only the mainline's moves and its result: the tokens a replay needs.
    pub fn mainline(self) -> Mainline<'a> {
        Mainline {
            cursor: self.cursor,
        }
    }

    fn token(&self, kind: TokenKind, range: Range<usize>) -> Token {
        Token {
            kind,
            range,
            depth: self.cursor.depth,
        }
    }

    /// The word from `start`: a move number (with its move kept for the
    /// next call), a NAG, glyphs, a result or a move.
    fn word(&mut self, start: usize) -> Token {
        let end = self.cursor.word_end(start);
        let word = &self.cursor.text[start..end];
        if word[0] == b'$' {
            return self.token(TokenKind::Nag, start..end);
        }
        if is_result(word) {
            return self.token(TokenKind::Result, start..end);
        }
        let number = move_number_len(word);
        if number > 0 {
            if start + number < end {
                self.pending = Some(start + number..end);
            }
            return self.token(TokenKind::MoveNumber, start..start + number);
        }
        self.move_or_glyph(start..end)
    }

    fn move_or_glyph(&self, range: Range<usize>) -> Token {
        let kind = if is_glyphs(&self.cursor.text[range.clone()]) {
            TokenKind::Glyph
        } else {
            TokenKind::Move
        };
        self.token(kind, range)
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        if let Some(range) = self.pending.take() {
            return Some(self.move_or_glyph(range));
        }
        let text = self.cursor.text;
        while self.cursor.at < text.len() {
            let start = self.cursor.at;
            let (kind, end) = match text[start] {
                b' ' | b'\t' | b'\n' | b'\r' | b'.' => {
                    self.cursor.at += 1;
                    continue;
                }
                b'}' => {
                    self.cursor.stray(start);
                    self.cursor.at += 1;
                    continue;
                }
                b'{' => (TokenKind::Comment, self.cursor.skip_comment(start)),
                b';' => (TokenKind::LineComment, self.cursor.skip_line(start)),
                b'%' if self.cursor.escape_line_at(start) => {
                    (TokenKind::EscapeLine, self.cursor.skip_line(start))
                }
                b'(' => {
                    self.cursor.open(start);
                    (TokenKind::VariationStart, start + 1)
                }
                b')' => {
                    if !self.cursor.close() {
                        continue;
                    }
                    (TokenKind::VariationEnd, start + 1)
                }
                b'*' => {
                    self.cursor.at = start + 1;
                    (TokenKind::Result, start + 1)
                }
                _ => return Some(self.word(start)),
            };
            return Some(self.token(kind, start..end));
        }
        None
    }
}

/// The mainline's moves and result of a stretch of movetext: what
/// [`Lexer`] gives at depth 0 of kinds [`TokenKind::Move`] and
/// [`TokenKind::Result`], read in one tight loop that builds no other
/// token (a replay reads millions of moves, each between a move number and
/// a comment). The unit tests hold the two to the same tokens.
#[derive(Clone, Debug)]
pub struct Mainline<'a> {
    cursor: Cursor<'a>,
}

impl Mainline<'_> {
    /// Where a `{` that is never closed opens, once the tokens are read.
    pub fn open_comment(&self) -> Option<usize> {
        self.cursor.open_comment
    }

    /// Where the outermost variation still open opens, once the tokens are
    /// read.
    pub fn open_variation(&self) -> Option<usize> {
        self.cursor.open_variation
    }

    /// Where the first `)` that closes no variation, or `}` that closes no
    /// comment, is, among the tokens read so far.
    pub fn stray_close(&self) -> Option<usize> {
        self.cursor.stray_close
    }
}

impl Iterator for Mainline<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let cursor = &mut self.cursor;
        let text = cursor.text;
        while cursor.at < text.len() {
            let start = cursor.at;
            let b = text[start];
            match b {
                b' ' | b'\t' | b'\n' | b'\r' | b'.' => cursor.at += 1,
                b'}' => {
                    cursor.stray(start);
                    cursor.at += 1;
                }
                b'{' => {
                    cursor.skip_comment(start);
                }
                b';' => {
                    cursor.skip_line(start);
                }
                b'%' if cursor.escape_line_at(start) => {
                    cursor.skip_line(start);
                }
                b'(' => cursor.open(start),
                b')' => {
                    cursor.close();
                }
                b'*' => {
                    cursor.at = start + 1;
                    if cursor.depth == 0 {
                        return Some(Token {
                            kind: TokenKind::Result,
                            range: start..start + 1,
                            depth: 0,
                        });
                    }
                }
                _ => {
                    let end = cursor.word_end(start);
                    if cursor.depth > 0 || b == b'$' {
                        continue;
                    }
                    let (kind, range) = match mainline_word(&text[start..end]) {
                        MainlineWord::Result => (TokenKind::Result, start..end),
                        MainlineWord::Move { from } => (TokenKind::Move, start + from..end),
                        MainlineWord::Nothing => continue,
                    };
                    return Some(Token {
                        kind,
                        range,
                        depth: 0,
                    });
                }
            }
        }
        None
    }
}

/// The mainline's moves: how many plies a game has, counted without
/// replaying them (every word that is not a number, NAG, glyph or result,
/// outside variations and comments, up to the result): `games` counts the
/// plies of every game. Bit masks 64 bytes at a time where the text holds
/// only words and brace comments (`plies`), else the tight loop of
/// [`Mainline`].
pub fn mainline_plies(text: &[u8], starts_line: bool) -> u32 {
    plies::count_plies(text).unwrap_or_else(|| lexed_plies(text, starts_line))
}

/// Appends the mainline's moves, up to its result, to `out`, each
/// normalised by [`push_move`] and followed by a space: what a game's
/// fingerprint holds of its movetext (`game::Fingerprint`). Move numbers,
/// comments, NAGs, variations, escape lines, spacing and line ends leave
/// no trace. The same bit masks as [`mainline_plies`] where the text holds
/// only words and brace comments, else [`Mainline`]: both write the same
/// bytes for every text (the tests hold them to it).
pub fn write_mainline(text: &[u8], starts_line: bool, out: &mut Vec<u8>) {
    let before = out.len();
    if plies::write_moves(text, out) {
        return;
    }
    out.truncate(before);
    write_lexed(text, starts_line, out);
}

/// [`write_mainline`] by [`Mainline`], a token at a time.
fn write_lexed(text: &[u8], starts_line: bool, out: &mut Vec<u8>) {
    for token in Lexer::new(text, starts_line).mainline() {
        if token.kind == TokenKind::Result {
            break;
        }
        push_move(out, &text[token.range]);
    }
}

/// Appends a move without its check or mate sign and annotation glyphs
/// (`+`, `#`, `!`, `?` at its end), castling with the letter `O` (`0-0`
/// is `O-O`), then a space.
#[inline(always)]
pub fn push_move(out: &mut Vec<u8>, word: &[u8]) {
    let end = word
        .iter()
        .rposition(|b| !matches!(b, b'+' | b'#' | b'!' | b'?'))
        .map_or(0, |i| i + 1);
    match &word[..end] {
        b"0-0" => out.extend_from_slice(b"O-O"),
        b"0-0-0" => out.extend_from_slice(b"O-O-O"),
        word => out.extend_from_slice(word),
    }
    out.push(b' ');
}

/// [`mainline_plies`] by [`Mainline`], a token at a time.
fn lexed_plies(text: &[u8], starts_line: bool) -> u32 {
    let mut plies = 0;
    for token in Lexer::new(text, starts_line).mainline() {
        if token.kind == TokenKind::Result {
            break;
        }
        plies += 1;
    }
    plies
}

/// The next number of a xorshift generator: the random texts of the
/// tests here and in `plies`.
#[cfg(test)]
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &[u8]) -> Vec<(TokenKind, String, u32)> {
        Lexer::new(text, true)
            .map(|t| {
                let word = String::from_utf8_lossy(&text[t.range]).into_owned();
                (t.kind, word, t.depth)
            })
            .collect()
    }

    fn mainline(text: &[u8]) -> Vec<String> {
        Lexer::new(text, true)
            .filter(|t| t.depth == 0 && matches!(t.kind, TokenKind::Move | TokenKind::Result))
            .map(|t| String::from_utf8_lossy(&text[t.range]).into_owned())
            .collect()
    }

    #[test]
    fn comments_variations_numbers_and_nags() {
        let text =
            b"1. e4 {c (} e5 (1... c5 2. Nf3) 2.Nf3 $1 2...Nc6!? ; rest\n% escaped\n3. Bb5 1-0";
        assert_eq!(mainline(text), ["e4", "e5", "Nf3", "Nc6!?", "Bb5", "1-0"]);
        use TokenKind::*;
        let all = kinds(b"12...Nf6 $3 !? (a) {x");
        assert_eq!(
            all,
            [
                (MoveNumber, "12...".into(), 0),
                (Move, "Nf6".into(), 0),
                (Nag, "$3".into(), 0),
                (Glyph, "!?".into(), 0),
                (VariationStart, "(".into(), 1),
                (Move, "a".into(), 1),
                (VariationEnd, ")".into(), 0),
                (Comment, "{x".into(), 0),
            ]
        );
    }

    #[test]
    fn an_escape_line_may_be_indented_but_never_inside_a_comment() {
        assert_eq!(mainline(b"e4\n  % skipped { here\ne5 *"), ["e4", "e5", "*"]);
        assert_eq!(
            mainline(b"e4\t% is no escape\n*"),
            ["e4", "%", "is", "no", "escape", "*"]
        );
        // In a comment, a `%` line is text; the comment ends at its `}`.
        assert_eq!(mainline(b"e4 {a\n% b } e5 *"), ["e4", "e5", "*"]);
        // The text's first line is an escape line only if it starts one.
        assert_eq!(mainline(b"% x\ne4"), ["e4"]);
        let not_at_line_start: Vec<TokenKind> = Lexer::new(b"% x", false).map(|t| t.kind).collect();
        assert_eq!(not_at_line_start, [TokenKind::Move, TokenKind::Move]);
        assert!(is_escape_line(b" \t%"));
        assert!(!is_escape_line(b" x%"));
    }

    #[test]
    fn stray_closers_close_nothing_and_open_ones_are_reported() {
        assert_eq!(
            mainline(b"1. e4 } { a { b } c } e5 *"),
            ["e4", "c", "e5", "*"]
        );
        assert_eq!(mainline(b") e4 ) e5"), ["e4", "e5"]);
        let mut lexer = Lexer::new(b"e4 (e5 (d5) {open", true);
        while lexer.next().is_some() {}
        assert_eq!(lexer.open_variation(), Some(3));
        assert_eq!(lexer.open_comment(), Some(12));
    }

    /// The mainline's tight loop gives exactly what the lexer gives at
    /// depth 0, and sees the same comment and variation left open.
    #[test]
    fn the_mainline_is_the_lexers_mainline() {
        const PIECES: &[&str] = &[
            "1.", " ", "e4", "\n", "12...Nf6", "{c}", "{", "}", "(", ")", ";x\n", "% esc\n", "  %",
            "1-0", "*", "0-0", "$4", "!?", "e5!", ".", "\r\n", "1/2-1/2", "Nxd5+", "\t",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for case in 0..20_000 {
            let mut text = String::new();
            for _ in 0..(case % 23) {
                let state = xorshift(&mut state);
                text.push_str(PIECES[(state % PIECES.len() as u64) as usize]);
            }
            let bytes = text.as_bytes();
            for starts_line in [true, false] {
                let mut lexer = Lexer::new(bytes, starts_line);
                let expected: Vec<Token> = lexer
                    .by_ref()
                    .filter(|t| {
                        t.depth == 0 && matches!(t.kind, TokenKind::Move | TokenKind::Result)
                    })
                    .collect();
                let mut mainline = Lexer::new(bytes, starts_line).mainline();
                let got: Vec<Token> = mainline.by_ref().collect();
                assert_eq!(got, expected, "{text:?}");
                assert_eq!(mainline.open_comment(), lexer.open_comment(), "{text:?}");
                assert_eq!(
                    mainline.open_variation(),
                    lexer.open_variation(),
                    "{text:?}"
                );
            }
        }
    }

    /// `*` is a token of its own (PGN standard, section 7): glued to a
    /// move, it still ends the game (kokopu's test database has `1... h6*`).
    #[test]
    fn an_asterisk_is_a_result_wherever_it_stands() {
        assert_eq!(mainline(b"1... h6*"), ["h6", "*"]);
        assert_eq!(mainline(b"e4 (e5*) d5*x"), ["e4", "d5", "*", "x"]);
        assert_eq!(mainline_plies(b"1. e4 h6* Nf3", true), 2);
        assert!(ends_with_result(b"1... h6* "));
        assert!(ends_with_result(b"e4 {c}*"));
        assert!(!ends_with_result(b"h6*x"));
    }

    #[test]
    fn results_stand_alone() {
        assert!(ends_with_result(b"1. e4 1-0 "));
        assert!(ends_with_result(b"{c}*"));
        assert!(ends_with_result(b"1/2-1/2"));
        assert!(!ends_with_result(b"11-0"));
        assert!(!ends_with_result(b"e4"));
        assert_eq!(
            mainline_plies(b"1. e4 e5 (1... c5) 2. Nf3 1-0 3. d4", true),
            3
        );
    }
}
