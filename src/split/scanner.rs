//! The splitter's state machine: reads bytes once, front to back, and
//! notes where each game and each tag pair begins and ends.
//!
//! It stops only where a game boundary could be: at `{`, `}`, `[`, `;` and
//! `%`, found 64 bytes at a time off block masks (see `block`), and keeps
//! to the movetext rules of [`crate::movetext`] for comments and escape
//! lines. It can stop anywhere and resume when more bytes arrive, so a
//! reader can hand out games while the rest of the input is still coming.

use std::collections::HashSet;
use std::ops::Range;

use memchr::memchr2;

use super::block::{Block, bits_between};
use super::tag_line::{
    BOM, LineEnd, MAX_TAG_LINE, find_line_end, line_end_at, only_blanks, parse_tag,
    past_blanks_and_boms, plain_tag_line, tag_name_at,
};
use super::types::{Game, LineEnding, TagSpan};
use crate::movetext;

/// Tags a game may have before [`Scanner::current_has_tag`] keeps a set.
const NAME_SET_FROM: usize = 32;

/// Where the scanner is within the input's syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// At the start of a line, before any of its bytes.
    LineStart,
    /// In movetext (or stray text), outside comments.
    Movetext,
    /// Inside a `{ }` comment (of the movetext, or of a tag section).
    Comment,
    /// On a line of a tag section, after a comment: more tag pairs,
    /// comments or the line end keep the tag section going; anything
    /// else begins the movetext.
    TagLineRest,
    /// Inside a `;` comment or a `%` escape line, up to the line end.
    RestOfLine,
    /// At a line end, which is consumed before the next line starts.
    EndOfLine,
}

/// Which part of the current game the scanner has reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    /// Nothing but white space yet (only the first game of an input).
    Preamble,
    /// In the tag section; `blank_line` once a blank line followed a tag.
    Tags { blank_line: bool },
    /// Past the tag section.
    Movetext,
}

/// The game being scanned.
#[derive(Clone, Debug)]
struct Current {
    start: usize,
    /// Index into `Scanner::tags` of this game's first tag.
    tags_from: usize,
    section: Section,
    first_tag_line: Option<usize>,
    after_last_tag_line: Option<usize>,
    /// The line ending of the first tag line (`None` when it is the
    /// input's last line and has none), and of the last clean one.
    first_line_ending: Option<LineEnding>,
    last_line_ending: Option<LineEnding>,
    /// This "game" is the tail of an oversized game already handed out.
    continuation: bool,
    /// A tag line too long to read was skipped (see
    /// [`Game::tags_incomplete`]).
    tags_incomplete: bool,
    /// The game began where a tag the game before already had came again
    /// after a blank line (archives of tags only).
    by_repeated_tag: bool,
    /// The names of this game's first tags, once it has more than
    /// [`NAME_SET_FROM`] (see [`Scanner::current_has_tag`]).
    names: TagNames,
}

/// A set of tag names, filled from a game's tags as far as `indexed`.
#[derive(Clone, Debug, Default)]
struct TagNames {
    indexed: usize,
    set: HashSet<Vec<u8>>,
}

impl Current {
    fn new(start: usize, tags_from: usize, section: Section) -> Self {
        Current {
            start,
            tags_from,
            section,
            first_tag_line: None,
            after_last_tag_line: None,
            first_line_ending: None,
            last_line_ending: None,
            continuation: false,
            tags_incomplete: false,
            by_repeated_tag: false,
            names: TagNames::default(),
        }
    }
}

/// The resumable state machine behind [`GameReader`](super::GameReader).
pub(super) struct Scanner {
    pos: usize,
    mode: Mode,
    current: Current,
    games: Vec<Game>,
    tags: Vec<TagSpan>,
    /// Vectors of consumed batches, emptied, to hold the records of later
    /// ones (see [`Scanner::recycle`]).
    spare: Spare,
    /// Set when a continuation ends inside the buffer: its end offset.
    continuation_end: Option<usize>,
    /// The first byte of the input has not been looked at (BOM check).
    at_input_start: bool,
    /// Where the line holding `line_checked_to` starts (`None`: before the
    /// buffer), and whether it is a `%` escape line. Movetext is scanned
    /// without stopping at line ends; this cache makes finding the line of
    /// a hit cost O(1) amortised, even on one-line movetext.
    line: LineCache,
    /// The last line end searched for: `buf[from..to]` holds no line end,
    /// and `buf[to]` is one when `found`. Many `[` on one long line then
    /// cost one search for its end, not one each.
    line_end: Option<LineEndCache>,
    /// The block of bytes movetext and comments were last searched in.
    block: Option<Block>,
    /// Per [`Stop`]: whether the last one was found close to where the
    /// search began.
    dense: [bool; 2],
    /// The ending of the input's last line end before the current game
    /// (`None` when there is none): the line ending of a new line put
    /// first in a game that has no line end of its own. (A reader started
    /// within a file starts at a tag line that ends, see
    /// [`Candidates`](super::candidates::Candidates), so its first game
    /// never needs what came before.)
    ending_before_current: Option<LineEnding>,
}

/// What [`Scanner::find`] looks for.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// `{`, `[`, `;` or `%`: what ends a stretch of movetext.
    Movetext,
    /// `}`: the end of a comment.
    CommentEnd,
}

/// A stop this close to where the search began counts as dense.
const DENSE: usize = 128;

impl Stop {
    fn bits(self, block: &Block) -> u64 {
        match self {
            Stop::Movetext => block.movetext,
            Stop::CommentEnd => block.close,
        }
    }

    fn search(self, bytes: &[u8]) -> Option<usize> {
        match self {
            Stop::Movetext => {
                // Four bytes: memchr3 for three, then `%` where it stopped.
                let three = memchr::memchr3(b'{', b'[', b';', bytes);
                let before = &bytes[..three.unwrap_or(bytes.len())];
                memchr::memchr(b'%', before).or(three)
            }
            Stop::CommentEnd => memchr::memchr(b'}', bytes),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct LineEndCache {
    from: usize,
    to: usize,
    found: bool,
}

#[derive(Clone, Copy, Debug)]
struct LineCache {
    checked_to: usize,
    start: Option<usize>,
    /// `None` until the line's first byte other than a blank is known.
    escape: Option<bool>,
}

/// What scanning a line start decided.
enum LineStartStep {
    NeedMore,
    Continue,
}

/// Emptied record vectors of consumed batches, for later batches.
#[derive(Default)]
struct Spare {
    games: Vec<Vec<Game>>,
    tags: Vec<Vec<TagSpan>>,
}

/// What a reader hands out of the scanner's records when it cuts a batch.
pub(super) struct Cut {
    /// The games that ended before the cut, not yet numbered.
    pub games: Vec<Game>,
    /// Their tag pairs.
    pub tags: Vec<TagSpan>,
    /// Leading bytes that belong to no game of the batch.
    pub continuation: usize,
}

impl Scanner {
    pub(super) fn new() -> Self {
        Scanner {
            pos: 0,
            mode: Mode::LineStart,
            current: Current::new(0, 0, Section::Preamble),
            games: Vec::new(),
            tags: Vec::new(),
            spare: Spare::default(),
            continuation_end: None,
            at_input_start: true,
            line: LineCache {
                checked_to: 0,
                start: Some(0),
                escape: None,
            },
            line_end: None,
            block: None,
            dense: [true; 2],
            ending_before_current: None,
        }
    }

    /// Where the line holding `at` ends, as far as the buffer can tell
    /// (see [`LineEnd`]); remembers how far it looked.
    fn line_end(&mut self, buf: &[u8], at: usize, eof: bool) -> LineEnd {
        let search_from = match self.line_end {
            Some(known) if known.from <= at && at <= known.to => {
                if known.found {
                    return line_end_at(buf, at, Some(known.to), eof);
                }
                known.to
            }
            _ => at,
        };
        let found = find_line_end(buf, search_from);
        self.line_end = Some(LineEndCache {
            from: at,
            to: found.unwrap_or(buf.len()),
            found: found.is_some(),
        });
        line_end_at(buf, at, found, eof)
    }

    /// Notes that a line starts at `start` and holds no line end up to `to`.
    fn known_line(&mut self, start: usize, to: usize) {
        self.line = LineCache {
            checked_to: to,
            start: Some(start),
            escape: None,
        };
    }

    /// The start of the line holding `at` (`None` when it started before
    /// the buffer), and whether that line is a `%` escape line (as far as
    /// the buffer tells; always known when `buf[at]` is no blank).
    #[inline]
    fn line_of(&mut self, buf: &[u8], at: usize) -> (Option<usize>, bool) {
        let from = self.line.checked_to.min(at);
        let last_end = match self.block {
            // The usual case: the line cache is at most a block behind.
            Some(block) if block.start <= from && at <= block.end() => {
                let ends = bits_between(block.line_ends, from - block.start, at - block.start);
                (ends != 0).then(|| block.start + 63 - ends.leading_zeros() as usize - from)
            }
            _ => memchr::memrchr2(b'\n', b'\r', &buf[from..at]),
        };
        if let Some(end) = last_end {
            let start = from + end + 1;
            self.known_line(start, at);
        } else {
            self.line.checked_to = at;
        }
        (self.line.start, self.escape_line(buf))
    }

    /// Whether the line of the line cache is a `%` escape line, `false`
    /// while no byte but blanks has been read of it. A line that began
    /// before the buffer and is still undecided holds only blanks up to
    /// the buffer's start (see [`Scanner::rebase`]).
    fn escape_line(&mut self, buf: &[u8]) -> bool {
        if self.line.escape.is_none() {
            let line = &buf[self.line.start.unwrap_or(0)..];
            let decided = line.iter().any(|&b| b != b' ' && b != b'\t');
            self.line.escape = decided.then(|| movetext::is_escape_line(line));
        }
        self.line.escape == Some(true)
    }

    /// The first `stop` at or after `from`. Stops that come close together
    /// are read off block masks; past two blocks without one, or when the
    /// last stop of the kind was far, memchr takes over, faster over long
    /// stretches such as engine comments.
    #[inline(always)]
    fn find(&mut self, buf: &[u8], from: usize, stop: Stop) -> Option<usize> {
        let mut at = from;
        let blocks = if self.dense[stop as usize] { 2 } else { 1 };
        for _ in 0..blocks {
            if at >= buf.len() {
                return None;
            }
            let block = self.block_at(buf, at);
            let hits = stop.bits(block) >> (at - block.start);
            if hits != 0 {
                let hit = at + hits.trailing_zeros() as usize;
                self.dense[stop as usize] = hit - from < DENSE;
                return Some(hit);
            }
            at = block.end();
        }
        let hit = stop.search(buf.get(at..)?).map(|i| at + i);
        self.dense[stop as usize] = hit.is_some_and(|hit| hit - from < DENSE);
        hit
    }

    /// The next movetext stop from `from` when the block at hand shows it
    /// to be a `{`: another comment, skipped without a round through the
    /// scanner's loop. `None` whenever the block cannot tell (the loop
    /// then looks).
    #[inline]
    fn next_open(&self, from: usize) -> Option<usize> {
        let block = self.block.as_ref()?;
        if from < block.start || from >= block.end() {
            return None;
        }
        let stops = bits_between(block.movetext, from - block.start, block.len);
        if stops == 0 {
            return None;
        }
        let next = block.start + stops.trailing_zeros() as usize;
        block.is_open(next).then_some(next)
    }

    /// The block holding `at`: the last one when it still does, else a new
    /// one from `at`. Moving on to the next block brings the line cache up
    /// to it, so that [`Scanner::line_of`] never searches back further
    /// than one block.
    #[inline(always)]
    fn block_at(&mut self, buf: &[u8], at: usize) -> &Block {
        match self.block {
            Some(block) if block.start <= at && at < block.end() && block.is_current(buf.len()) => {
            }
            _ => self.next_block(buf, at),
        }
        self.block.as_ref().expect("set above")
    }

    #[inline(never)]
    fn next_block(&mut self, buf: &[u8], at: usize) {
        if let Some(block) = self.block {
            let from = self.line.checked_to;
            if at == block.end() && block.start <= from && from <= at {
                let ends = bits_between(block.line_ends, from - block.start, block.len);
                if ends == 0 {
                    self.line.checked_to = at;
                } else {
                    self.known_line(block.start + 64 - ends.leading_zeros() as usize, at);
                }
            }
        }
        self.block = Some(Block::at(buf, at));
    }

    /// Scans `buf` from `self.pos` as far as it can without more input.
    pub(super) fn scan(&mut self, buf: &[u8], eof: bool) {
        if self.at_input_start {
            if buf.len() < 3 && !eof {
                return;
            }
            if buf.starts_with(BOM) {
                self.pos = 3;
            }
            self.at_input_start = false;
        }
        while self.pos < buf.len() {
            match self.mode {
                Mode::LineStart => match self.line_start(buf, eof) {
                    LineStartStep::NeedMore => return,
                    LineStartStep::Continue => {}
                },
                Mode::Movetext => {
                    // Line ends do not matter here: a new game must start
                    // with `[`, comments with `{` or `;`, and escape lines
                    // with `%`. Whatever stop comes first on a line is no
                    // later than its `%`: only a `%` (or the end of a
                    // comment) asks whether the line is an escape line.
                    let Some(at) = self.find(buf, self.pos, Stop::Movetext) else {
                        self.pos = buf.len();
                        return;
                    };
                    match buf[at] {
                        b'%' => {
                            let (_, escape) = self.line_of(buf, at);
                            if escape {
                                self.mode = Mode::RestOfLine;
                                self.pos = at;
                            } else {
                                self.pos = at + 1;
                            }
                        }
                        b'{' => {
                            // Comments come close together (a clock after
                            // every move): skip them one after another
                            // without a round through the loop.
                            let mut open = at;
                            loop {
                                let Some(close) = self.find(buf, open + 1, Stop::CommentEnd) else {
                                    self.mode = Mode::Comment;
                                    self.pos = buf.len();
                                    break;
                                };
                                self.pos = close + 1;
                                match self.next_open(close + 1) {
                                    Some(next) => open = next,
                                    None => break,
                                }
                            }
                        }
                        b';' => {
                            self.mode = Mode::RestOfLine;
                            self.pos = at + 1;
                        }
                        _ => {
                            let (line, _) = self.line_of(buf, at);
                            // Only blanks (and byte-order marks) between the
                            // line start and `at`: look back over those, never
                            // over the whole line.
                            let at_line_start =
                                line.is_some_and(|line| only_blanks(&buf[line..at]));
                            if at_line_start {
                                match self.line_end(buf, at, eof) {
                                    LineEnd::NeedMore => {
                                        self.pos = at; // the whole line is needed
                                        return;
                                    }
                                    LineEnd::At(_) | LineEnd::TooLong
                                        if tag_name_at(buf, at).is_some() =>
                                    {
                                        // A tag pair at the start of a line:
                                        // `line_start` begins the next game.
                                        self.pos = line.expect("checked above");
                                        self.mode = Mode::LineStart;
                                        continue;
                                    }
                                    _ => {}
                                }
                            }
                            if !movetext::ends_with_result(&buf[self.current.start..at]) {
                                self.pos = at + 1;
                                continue;
                            }
                            let eol = match self.line_end(buf, at, eof) {
                                LineEnd::At(eol) => Some(eol),
                                LineEnd::NeedMore => {
                                    self.pos = at;
                                    return;
                                }
                                LineEnd::TooLong => None,
                            };
                            if tag_name_at(buf, at).is_some() {
                                self.end_game(buf, at);
                                self.current.section = Section::Tags { blank_line: false };
                                match eol {
                                    Some(eol) => self.tag_line(buf, at, at, eol),
                                    None => self.unread_tag_line(at),
                                }
                            } else {
                                self.pos = at + 1;
                            }
                        }
                    }
                }
                Mode::Comment => match self.find(buf, self.pos, Stop::CommentEnd) {
                    Some(close) => {
                        self.pos = close + 1;
                        self.mode = if self.current.section == Section::Movetext {
                            Mode::Movetext
                        } else {
                            Mode::TagLineRest
                        };
                    }
                    None => self.pos = buf.len(),
                },
                Mode::TagLineRest => {
                    if let LineStartStep::NeedMore = self.tag_line_rest(buf, eof) {
                        return;
                    }
                }
                Mode::RestOfLine => match memchr2(b'\n', b'\r', &buf[self.pos..]) {
                    Some(eol) => {
                        self.pos += eol;
                        self.mode = if self.current.section == Section::Movetext {
                            Mode::Movetext
                        } else {
                            Mode::EndOfLine
                        };
                    }
                    None => self.pos = buf.len(),
                },
                Mode::EndOfLine => {
                    let at = self.pos;
                    if buf[at] == b'\r' && at + 1 == buf.len() && !eof {
                        return; // a `\r\n` may be split between reads
                    }
                    self.pos =
                        at + 1 + usize::from(buf[at] == b'\r' && buf.get(at + 1) == Some(&b'\n'));
                    self.mode = Mode::LineStart;
                }
            }
        }
    }

    fn line_start(&mut self, buf: &[u8], eof: bool) -> LineStartStep {
        let line = self.pos;
        let mut at = line;
        while at < buf.len() && (buf[at] == b' ' || buf[at] == b'\t') {
            at += 1;
        }
        if at == buf.len() {
            if eof {
                self.pos = at;
                return LineStartStep::Continue;
            }
            if at - line >= MAX_TAG_LINE {
                // So many blanks make no tag line: read them as movetext
                // rather than hold them all.
                return self.movetext_from(at);
            }
            return LineStartStep::NeedMore;
        }
        if buf[at] == BOM[0] {
            // A byte-order mark, where files that begin with one were
            // joined, is read as a blank before a tag pair or a line end.
            let after = past_blanks_and_boms(buf, at);
            match buf.get(after) {
                None if eof => {
                    self.pos = after;
                    return LineStartStep::Continue;
                }
                None if after - line >= MAX_TAG_LINE => return self.movetext_from(at),
                None => return LineStartStep::NeedMore,
                Some(b'[' | b'\n' | b'\r') => at = after,
                Some(_) => {}
            }
        }
        match buf[at] {
            b'[' => {
                let plain = plain_tag_line(buf, at, eof);
                let (name, eol) = match &plain {
                    Some(plain) => (plain.name.clone(), Some(plain.eol)),
                    None => {
                        let eol = match self.line_end(buf, at, eof) {
                            LineEnd::At(eol) => Some(eol),
                            LineEnd::NeedMore => return LineStartStep::NeedMore,
                            LineEnd::TooLong => None,
                        };
                        let Some(name) = tag_name_at(buf, at) else {
                            return self.movetext_from(at);
                        };
                        (name, eol)
                    }
                };
                let section_before = self.current.section;
                let boundary = match section_before {
                    Section::Movetext => true,
                    Section::Tags { blank_line: true } => self.current_has_tag(buf, name),
                    Section::Tags { blank_line: false } | Section::Preamble => false,
                };
                if boundary {
                    self.end_game(buf, line);
                    self.current.by_repeated_tag =
                        matches!(section_before, Section::Tags { blank_line: true });
                }
                self.current.section = Section::Tags { blank_line: false };
                match (plain, eol) {
                    (Some(plain), _) => {
                        self.tags.push(TagSpan {
                            name: plain.name,
                            value: plain.value,
                            well_formed: true,
                            end: plain.eol,
                        });
                        self.end_tag_line(buf, line, plain.eol, plain.eol);
                    }
                    (None, Some(eol)) => self.tag_line(buf, line, at, eol),
                    (None, None) => self.unread_tag_line(at),
                }
                LineStartStep::Continue
            }
            // A `%` escape line, in movetext or a tag section; in a tag
            // section (or before the first), a `;` comment too, and a
            // brace comment before any blank line after its tags: each is
            // part of it. (A brace comment after the blank line begins the
            // movetext, as a game's first comment does.)
            b'%' => {
                self.mode = Mode::RestOfLine;
                self.pos = at + 1;
                LineStartStep::Continue
            }
            b';' if self.current.section != Section::Movetext => {
                self.mode = Mode::RestOfLine;
                self.pos = at + 1;
                LineStartStep::Continue
            }
            b'{' if matches!(
                self.current.section,
                Section::Preamble | Section::Tags { blank_line: false }
            ) =>
            {
                self.mode = Mode::Comment;
                self.pos = at + 1;
                LineStartStep::Continue
            }
            b'\n' => {
                self.blank_line();
                self.pos = at + 1;
                LineStartStep::Continue
            }
            b'\r' => {
                if at + 1 == buf.len() && !eof {
                    return LineStartStep::NeedMore;
                }
                self.blank_line();
                self.pos = at + 1 + usize::from(buf.get(at + 1) == Some(&b'\n'));
                LineStartStep::Continue
            }
            _ => self.movetext_from(at),
        }
    }

    /// The rest of a line of a tag section after a comment on it: blanks,
    /// then the line end, another comment or tag pairs keep the tag
    /// section going; anything else begins the movetext.
    fn tag_line_rest(&mut self, buf: &[u8], eof: bool) -> LineStartStep {
        let mut at = self.pos;
        while at < buf.len() && (buf[at] == b' ' || buf[at] == b'\t') {
            at += 1;
        }
        self.pos = at;
        let Some(&next) = buf.get(at) else {
            return LineStartStep::Continue; // blanks to the buffer's end
        };
        match next {
            b'\n' | b'\r' => self.mode = Mode::EndOfLine,
            b';' => {
                self.mode = Mode::RestOfLine;
                self.pos = at + 1;
            }
            b'{' => {
                self.mode = Mode::Comment;
                self.pos = at + 1;
            }
            // The whole line is needed, the tag's name included.
            b'[' => match self.line_end(buf, at, eof) {
                LineEnd::NeedMore => return LineStartStep::NeedMore,
                _ if tag_name_at(buf, at).is_none() => return self.movetext_from(at),
                LineEnd::At(eol) => self.tag_line(buf, at, at, eol),
                LineEnd::TooLong => self.unread_tag_line(at),
            },
            _ => return self.movetext_from(at),
        }
        LineStartStep::Continue
    }

    /// A tag line whose `[` is at `at`, too long to hold: it is skipped
    /// whole, as part of the tag section, and the game is read as one
    /// whose tags are not all known.
    fn unread_tag_line(&mut self, at: usize) {
        self.current.tags_incomplete = true;
        self.mode = Mode::RestOfLine;
        self.pos = at + 1;
    }

    fn movetext_from(&mut self, at: usize) -> LineStartStep {
        self.current.section = Section::Movetext;
        self.mode = Mode::Movetext;
        self.pos = at;
        LineStartStep::Continue
    }

    fn blank_line(&mut self) {
        if let Section::Tags { .. } = self.current.section {
            self.current.section = Section::Tags { blank_line: true };
        }
    }

    /// Whether the current game already has a tag called `name`. A linear
    /// scan suits the usual dozen tags; past [`NAME_SET_FROM`] tags the
    /// names go into a set, so that a tag section of many distinct names
    /// separated by blank lines costs linear, not quadratic, time.
    fn current_has_tag(&mut self, buf: &[u8], name: Range<usize>) -> bool {
        let name = &buf[name];
        let tags = &self.tags[self.current.tags_from..];
        if tags.len() <= NAME_SET_FROM {
            return tags.iter().any(|tag| &buf[tag.name.clone()] == name);
        }
        let names = &mut self.current.names;
        for tag in &tags[names.indexed..] {
            names.set.insert(buf[tag.name.clone()].to_vec());
        }
        names.indexed = tags.len();
        names.set.contains(name)
    }

    /// Reads the tag pairs on the line `line..eol` (the first `[` at
    /// `first`), then moves to the line end or into movetext.
    fn tag_line(&mut self, buf: &[u8], line: usize, first: usize, eol: usize) {
        let mut at = first;
        while at < eol && buf[at] == b'[' {
            let Some(name) = tag_name_at(buf, at) else {
                break;
            };
            let (tag, next) = parse_tag(buf, name, eol);
            self.tags.push(tag);
            at = next;
            while at < eol && (buf[at] == b' ' || buf[at] == b'\t') {
                at += 1;
            }
        }
        self.end_tag_line(buf, line, at, eol);
    }

    /// Notes a tag line `line..eol` whose tag pairs end at `at`, then moves
    /// to the line end or, when text follows the pairs, into movetext.
    fn end_tag_line(&mut self, buf: &[u8], line: usize, at: usize, eol: usize) {
        let mut clean = true;
        let ending = match buf.get(eol) {
            Some(b'\r') if buf.get(eol + 1) == Some(&b'\n') => LineEnding::CrLf,
            Some(b'\r') => LineEnding::Cr,
            _ => LineEnding::Lf,
        };
        if self.current.first_tag_line.is_none() {
            self.current.first_tag_line = Some(line);
            self.current.first_line_ending = (eol < buf.len()).then_some(ending);
        }
        // A `;` comment after the tags runs to the line end: the line
        // still holds only tags.
        let at = if buf.get(at) == Some(&b';') { eol } else { at };
        if at < eol && buf[at] == b'{' {
            // A brace comment after the tags: the tag section goes on.
            clean = false;
            self.mode = Mode::Comment;
            self.pos = at + 1;
        } else if at < eol {
            // Moves (or other text) follow the tags on the same line.
            clean = false;
            self.current.section = Section::Movetext;
            self.mode = Mode::Movetext;
            self.pos = at;
        } else {
            self.mode = Mode::EndOfLine;
            self.pos = eol;
        }
        // Callers make sure a `\r` at `eol` is followed by its next byte
        // (or the end of input), so `\r\n` is never mistaken for `\r`.
        if clean && eol < buf.len() {
            self.current.last_line_ending = Some(ending);
            self.current.after_last_tag_line = Some(eol + ending.as_bytes().len());
        }
    }

    /// Ends the current game just before `at`; a new one starts there.
    pub(super) fn end_game(&mut self, buf: &[u8], at: usize) {
        let current = &self.current;
        if current.continuation {
            self.continuation_end = Some(at);
            // Tags read in the tail of a game go out with no game.
            self.tags.truncate(current.tags_from);
        } else {
            self.games.push(self.game_record(buf, at, false, false));
        }
        self.note_line_ending_before(buf, at);
        let tags_from = self.tags.len();
        self.current = Current::new(at, tags_from, Section::Movetext);
    }

    /// Notes the ending of the last line end before `at`, where the next
    /// game (or piece) starts, while the current one is still in `buf`.
    fn note_line_ending_before(&mut self, buf: &[u8], at: usize) {
        if let Some(ending) = last_line_ending(buf, self.current.start, at) {
            self.ending_before_current = Some(ending);
        }
    }

    fn game_record(&self, buf: &[u8], end: usize, continued: bool, cut_off: bool) -> Game {
        self.game_record_at(buf, end, continued, cut_off, false)
    }

    fn game_record_at(
        &self,
        buf: &[u8],
        end: usize,
        continued: bool,
        cut_off: bool,
        at_end: bool,
    ) -> Game {
        let current = &self.current;
        let insert_at = match (current.after_last_tag_line, current.first_tag_line) {
            (Some(after), _) => Some(after),
            (None, Some(first)) if !current.by_repeated_tag => Some(first),
            (None, Some(_)) => self
                .tags
                .get(current.tags_from)
                .filter(|tag| tag.well_formed)
                .map(|tag| tag.end),
            // No tags: only the input's first game, whose byte-order mark
            // stays first.
            (None, None) if buf[current.start..end].starts_with(BOM) => Some(current.start + 3),
            (None, None) => Some(current.start),
        };
        Game {
            index: 0,
            range: current.start..end,
            tags: current.tags_from..self.tags.len(),
            insert_at,
            line_ending: self.new_line_ending(buf, end, insert_at, continued),
            continued,
            cut_off,
            at_end,
            // A game cut in its tag section has tags in its other pieces.
            tags_incomplete: current.tags_incomplete
                || (continued && current.section != Section::Movetext),
        }
    }

    /// The line ending of a new line inserted at `insert_at` in the current
    /// game, which ends at `end`: that of the line it follows, after the
    /// tag lines (a lone `\r` must never meet a `\n`); put before a line,
    /// that line's, wherever it ends (a game without tags can end within
    /// its first line, where a tag pair follows a result: `1. e4 * [Event`);
    /// when that line does not end (the input's last line), that of the
    /// line before it in the input; `\n` only in an input with no line end
    /// before the game's last line. So a CRLF file gets CRLF lines also in
    /// a game without tags, or on one line.
    fn new_line_ending(
        &self,
        buf: &[u8],
        end: usize,
        insert_at: Option<usize>,
        continued: bool,
    ) -> LineEnding {
        let current = &self.current;
        if current.after_last_tag_line.is_some() {
            return current.last_line_ending.unwrap_or_default();
        }
        let at = insert_at.unwrap_or(current.start);
        let own = if current.first_tag_line.is_some() {
            current.first_line_ending
        } else {
            // The game's line goes on into the next game's first tag line,
            // whose end the scanner has found (within `MAX_TAG_LINE`, so
            // that every reader finds it or none does).
            first_line_ending(buf, at, end).or_else(|| {
                let next_line = end..buf.len().min(end.saturating_add(MAX_TAG_LINE));
                (!continued && !next_line.is_empty())
                    .then(|| first_line_ending(buf, next_line.start, next_line.end))
                    .flatten()
            })
        };
        own.or_else(|| last_line_ending(buf, current.start, at))
            .or(self.ending_before_current)
            .unwrap_or_default()
    }

    /// Whether a new game certainly begins at `end`, the end of the
    /// buffer, when a tag line starts there: everything before it has been
    /// scanned, the current game has reached its movetext (so the tag line
    /// ends it), and no comment or piece of an oversized game is open. A
    /// scanner started afresh at `end` then reads what this one would.
    pub(super) fn at_certain_boundary(&self, end: usize) -> bool {
        self.pos == end
            && matches!(self.mode, Mode::LineStart | Mode::Movetext)
            && self.current.section == Section::Movetext
            && !self.current.continuation
    }

    /// At the end of input: the current game ends at `end`.
    pub(super) fn finish(&mut self, buf: &[u8], end: usize) {
        let current = &self.current;
        if current.continuation {
            self.continuation_end = Some(end);
            self.tags.truncate(current.tags_from);
        } else if current.section == Section::Preamble {
            // Only white space: no game, just bytes.
            self.continuation_end = Some(end);
        } else {
            let cut_off = self.mode == Mode::Comment;
            self.games
                .push(self.game_record_at(buf, end, false, cut_off, true));
        }
        self.current = Current::new(end, self.tags.len(), Section::Movetext);
    }

    /// The current game is handed out up to `at`; its rest is continuation.
    fn split_current(&mut self, buf: &[u8], at: usize) {
        if self.current.continuation || self.current.section == Section::Preamble {
            self.note_line_ending_before(buf, at);
            // No game has started: all bytes so far are bytes of no game
            // (or of the oversized game handed out earlier, whose tags
            // read since go out with no game).
            self.continuation_end = Some(at);
            self.tags.truncate(self.current.tags_from);
            let mut rest = Current::new(at, self.tags.len(), self.current.section);
            rest.continuation = self.current.continuation;
            self.current = rest;
            return;
        }
        self.games.push(self.game_record(buf, at, true, false));
        self.note_line_ending_before(buf, at);
        // The rest goes on where the head stopped: in the tag section, a
        // tag line there continues the game rather than begin another.
        let mut rest = Current::new(at, self.tags.len(), self.current.section);
        rest.continuation = true;
        self.current = rest;
    }

    /// Where the game being scanned starts: the bytes before are whole
    /// games, ready to hand out.
    pub(super) fn complete(&self) -> usize {
        self.current.start
    }

    /// How many tag pairs the game being scanned has so far.
    pub(super) fn current_tags(&self) -> usize {
        self.tags.len() - self.current.tags_from
    }

    /// Whether the scanner stopped at the start of a line (waiting for the
    /// rest of it, when short of the buffer's end): a place where reading
    /// may resume as if afresh, in the same section of the same game.
    pub(super) fn waits_at_line_start(&self) -> bool {
        self.mode == Mode::LineStart
    }

    /// How far the bytes have been scanned: short of the buffer's end only
    /// while waiting for the rest of a line.
    pub(super) fn scanned_to(&self) -> usize {
        self.pos
    }

    /// Takes the records of `buf[..at]`, which leaves the buffer as a
    /// batch. With `split_current`, `at` lies inside the current game,
    /// whose head goes out now and whose rest becomes continuation bytes.
    pub(super) fn hand_out(&mut self, buf: &[u8], at: usize, split_current: bool) -> Cut {
        if self.line.checked_to < at {
            // Bring the line cache up to the cut, whose bytes are leaving.
            self.line_of(buf, at);
        }
        // Decide now whether the line is an escape line, while its start
        // is still in the buffer.
        self.escape_line(buf);
        if split_current {
            self.split_current(buf, at);
        }
        let games = std::mem::replace(&mut self.games, self.spare.games.pop().unwrap_or_default());
        let keep_tags = self.current.tags_from;
        let mut current_tags = self.spare.tags.pop().unwrap_or_default();
        current_tags.extend(self.tags.drain(keep_tags..));
        let tags = std::mem::replace(&mut self.tags, current_tags);
        let continuation = self.continuation_end.take().unwrap_or(0);
        self.rebase(at, keep_tags);
        Cut {
            games,
            tags,
            continuation,
        }
    }

    /// Takes back the records of a consumed batch, to hold those of later
    /// ones: growing fresh vectors for every batch costs a page fault every
    /// few games. At most two of each are kept, and none larger than
    /// `limit` bytes, so the memory kept is bounded.
    pub(super) fn recycle(&mut self, mut games: Vec<Game>, mut tags: Vec<TagSpan>, limit: usize) {
        games.clear();
        tags.clear();
        // A new scanner's own vectors are taken first.
        if self.games.capacity() == 0 {
            self.games = std::mem::take(&mut games);
        }
        if self.tags.capacity() == 0 {
            self.tags = std::mem::take(&mut tags);
        }
        if self.spare.games.len() < 2 && games.capacity() * size_of::<Game>() <= limit {
            self.spare.games.push(games);
        }
        if self.spare.tags.len() < 2 && tags.capacity() * size_of::<TagSpan>() <= limit {
            self.spare.tags.push(tags);
        }
    }

    /// Shifts every offset after the first `at` bytes were handed out, and
    /// the first `dropped_tags` tags with them.
    fn rebase(&mut self, at: usize, dropped_tags: usize) {
        self.pos -= at;
        self.line_end = self
            .line_end
            .filter(|known| known.from >= at)
            .map(|known| LineEndCache {
                from: known.from - at,
                to: known.to - at,
                found: known.found,
            });
        self.block = None;
        self.line.checked_to -= at;
        // A line whose start leaves, still undecided, holds only blanks up
        // to the end of the buffer: its first other byte is yet to come.
        self.line.start = self.line.start.and_then(|start| start.checked_sub(at));
        let current = &mut self.current;
        current.start -= at;
        current.tags_from -= dropped_tags.min(current.tags_from);
        for offset in [
            &mut current.first_tag_line,
            &mut current.after_last_tag_line,
        ]
        .into_iter()
        .flatten()
        {
            *offset -= at;
        }
        for tag in &mut self.tags {
            tag.name = tag.name.start - at..tag.name.end - at;
            tag.value = tag.value.start - at..tag.value.end - at;
            tag.end -= at;
        }
    }
}

/// The ending of the first line end in `buf[from..to]` (a `\r` is read
/// with the byte after it, which may lie past `to`).
fn first_line_ending(buf: &[u8], from: usize, to: usize) -> Option<LineEnding> {
    let at = from + memchr2(b'\n', b'\r', &buf[from..to])?;
    Some(ending_at(buf, at))
}

/// The ending of the last line end in `buf[from..to]` (a `\n` is read with
/// the byte before it, which may lie before `from`).
fn last_line_ending(buf: &[u8], from: usize, to: usize) -> Option<LineEnding> {
    let at = from + memchr::memrchr2(b'\n', b'\r', &buf[from..to])?;
    Some(if buf[at] == b'\n' && at > 0 && buf[at - 1] == b'\r' {
        LineEnding::CrLf
    } else {
        ending_at(buf, at)
    })
}

/// The ending that starts at `buf[at]`, a `\n` or a `\r`.
fn ending_at(buf: &[u8], at: usize) -> LineEnding {
    match (buf[at], buf.get(at + 1)) {
        (b'\r', Some(b'\n')) => LineEnding::CrLf,
        (b'\r', _) => LineEnding::Cr,
        _ => LineEnding::Lf,
    }
}
