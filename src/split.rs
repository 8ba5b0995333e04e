//! The byte-exact game splitter: cuts a PGN byte stream into whole games
//! without parsing moves, so that every byte can be written back unchanged.
//!
//! pgn-reader parses games but does not say where in the input each one
//! starts and ends, and a tool that rewrites archives in place needs exactly
//! that. This scanner understands just enough PGN to find game boundaries
//! and tag pairs: brace comments, `;` and `%` lines, quoted tag values with
//! escapes, and the three kinds of line ending. Everything else is opaque.
//!
//! Boundaries, in the order they are tried:
//!
//! - a tag pair at the start of a line (after spaces or tabs), outside brace
//!   comments, once the current game has reached its movetext;
//! - a tag pair right after a result token on the same line
//!   (`... 1-0 [Event "next"]`);
//! - in a tag section, a tag whose name the current game already has, after
//!   a blank line (archives of games with tags only). A blank line on its
//!   own, or a repeated name without one, is not a boundary.
//!
//! Bytes after a game's last token (blank lines, stray text) belong to that
//! game, so the concatenation of all games is the input. Bytes before the
//! first tag section belong to the first game.
//!
//! Memory stays bounded whatever the input: a game that grows past
//! [`GameReader::max_game_bytes`] (or past 65,536 tag pairs) is handed out
//! in pieces (the first piece holds its tag section; later pieces are
//! [`Batch::continuation`] bytes).

use std::collections::HashSet;
use std::fmt;
use std::io::{self, BufRead, BufReader, Read};
use std::ops::{Deref, Range};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use memchr::memchr2;
use memmap2::Mmap;

use crate::input::release_pages;

mod block;
use block::{Block, bits_between};

mod candidates;
pub(crate) use candidates::Candidates;

/// One tag pair of a game, as byte ranges into its [`Batch::data`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagSpan {
    /// The tag name, e.g. `Event`.
    pub name: Range<usize>,
    /// The raw value between the quotes, still escaped (`\"`, `\\`).
    pub value: Range<usize>,
    /// Whether the pair was closed by `"` and `]` on its line. A value that
    /// runs to the end of the line is kept but never rewritten.
    pub well_formed: bool,
    /// The offset just after the pair (after its `]`, or at its line end).
    pub end: usize,
}

/// How a game's tag lines end; a tag added to the game uses the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LineEnding {
    /// `\n`
    #[default]
    Lf,
    /// `\r\n`
    CrLf,
    /// A lone `\r`.
    Cr,
}

impl LineEnding {
    /// The bytes of this line ending.
    pub fn as_bytes(self) -> &'static [u8] {
        match self {
            LineEnding::Lf => b"\n",
            LineEnding::CrLf => b"\r\n",
            LineEnding::Cr => b"\r",
        }
    }
}

/// One game (or the first piece of an oversized one) within a [`Batch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// 1-based position of the game within its input.
    pub index: u64,
    /// 1-based line of the game's first tag (or of its first byte when it
    /// has no tags).
    pub line: u64,
    /// The game's bytes within [`Batch::data`], trailing bytes included.
    pub range: Range<usize>,
    /// Which of [`Batch::tags`] belong to this game.
    pub tags: Range<usize>,
    /// Where a new tag line goes: after the last tag line that holds only
    /// tags and ends; without one, before the first tag line — unless the
    /// game began by repeating a tag of the game before it (archives of
    /// tags only), where a line put first would join the two games: then
    /// right after the first tag pair, or, when that pair is broken, nowhere
    /// (`None`).
    pub insert_at: Option<usize>,
    /// The line ending a tag line inserted at `insert_at` takes: that of the
    /// line it follows (or, inserted before the first tag line, that line's).
    pub line_ending: LineEnding,
    /// The game goes on in the next batch(es) as continuation bytes.
    pub continued: bool,
    /// The input ended inside a brace comment of this game.
    pub cut_off: bool,
    /// This is the last game of its input.
    pub at_end: bool,
}

impl Game {
    /// Whether the game has a tag section at all.
    pub fn has_tags(&self) -> bool {
        !self.tags.is_empty()
    }
}

/// A run of whole games (plus, first, the tail of an oversized game) as
/// one contiguous buffer: the unit of parallel work.
#[derive(Debug, Default)]
pub struct Batch {
    /// The bytes: `continuation` bytes, then every game's range in order.
    pub data: BatchData,
    /// How many leading bytes of `data` belong to an earlier, oversized
    /// game (or, in an input with no game at all, to no game).
    pub continuation: usize,
    /// The games, in input order, covering `data[continuation..]`.
    pub games: Vec<Game>,
    /// The tag pairs of all games, in input order.
    pub tags: Vec<TagSpan>,
}

impl Batch {
    /// The bytes of one game.
    pub fn bytes(&self, game: &Game) -> &[u8] {
        &self.data[game.range.clone()]
    }

    /// The tag pairs of one game.
    pub fn tags_of(&self, game: &Game) -> &[TagSpan] {
        &self.tags[game.tags.clone()]
    }

    /// The name of a tag.
    pub fn name(&self, tag: &TagSpan) -> &[u8] {
        &self.data[tag.name.clone()]
    }

    /// The raw (still escaped) value of a tag.
    pub fn raw_value(&self, tag: &TagSpan) -> &[u8] {
        &self.data[tag.value.clone()]
    }
}

/// The bytes of a [`Batch`]: a buffer of its own, or a stretch of a file
/// mapped into memory, shared without a copy. Either way a `[u8]`.
pub struct BatchData(Data);

enum Data {
    Owned(Vec<u8>),
    Mapped { map: Arc<Mmap>, range: Range<usize> },
}

impl BatchData {
    /// For bytes of a mapped file, gives the pages of the file up to their
    /// end back to the kernel, from `released` on (see
    /// [`GameReader::recycle`]); `released` moves on with them.
    pub(crate) fn release_pages(&self, released: &mut usize) {
        if let Data::Mapped { map, range } = &self.0 {
            release_pages(map, released, range.end);
        }
    }

    /// The memory the bytes hold while the batch is in flight.
    pub(crate) fn cost(&self) -> usize {
        match &self.0 {
            Data::Owned(bytes) => bytes.capacity(),
            Data::Mapped { range, .. } => range.len(),
        }
    }
}

impl Deref for BatchData {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Data::Owned(bytes) => bytes,
            Data::Mapped { map, range } => &map[range.clone()],
        }
    }
}

impl From<Vec<u8>> for BatchData {
    fn from(bytes: Vec<u8>) -> Self {
        BatchData(Data::Owned(bytes))
    }
}

impl Default for BatchData {
    fn default() -> Self {
        Vec::new().into()
    }
}

impl fmt::Debug for BatchData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.0 {
            Data::Owned(_) => "owned",
            Data::Mapped { .. } => "mapped",
        };
        write!(f, "BatchData({kind}, {} bytes)", self.len())
    }
}

/// Where a [`GameReader`] keeps the bytes read and not yet handed out.
enum Buffer {
    /// Copied from a stream.
    Owned(Vec<u8>),
    /// A window `start..end` onto a mapped file, handed out without a copy.
    Mapped {
        map: Arc<Mmap>,
        start: usize,
        end: usize,
        /// Pages before this have been given back to the kernel.
        released: usize,
        /// Bytes of the file read, for progress reports.
        read: Arc<AtomicU64>,
    },
}

impl Buffer {
    fn bytes(&self) -> &[u8] {
        match self {
            Buffer::Owned(bytes) => bytes,
            Buffer::Mapped {
                map, start, end, ..
            } => &map[*start..*end],
        }
    }
}

/// Reads games from a byte stream, in batches of whole games.
///
/// # Example
///
/// ```
/// use pgn960::split::GameReader;
///
/// let pgn = b"[Event \"A\"]\n\n1. e4 e5 1-0\n\n[Event \"B\"]\n\n1. d4 *\n";
/// let mut reader = GameReader::new(&pgn[..]);
/// let batch = reader.next_batch()?.expect("one batch");
/// assert_eq!(batch.games.len(), 2);
/// assert_eq!(batch.bytes(&batch.games[1]), b"[Event \"B\"]\n\n1. d4 *\n");
/// assert_eq!(batch.games[1].line, 5);
/// # Ok::<_, std::io::Error>(())
/// ```
pub struct GameReader<R> {
    source: R,
    buf: Buffer,
    eof: bool,
    scanner: Scanner,
    batch_bytes: usize,
    max_game_bytes: usize,
    next_index: u64,
    /// Lines completed before `buf[0]`.
    lines_before: u64,
    /// The byte before `buf[0]` was a `\r` (a `\n` at `buf[0]` then ends no new line).
    cr_before: bool,
    line_numbers: bool,
    done: bool,
    /// A read error, returned after the games read before it.
    pending_error: Option<io::Error>,
    /// Buffers handed back by [`GameReader::recycle`].
    spare: Vec<Vec<u8>>,
    /// Where reading may end before the end of a mapped file (see
    /// [`GameReader::end_at_boundaries`]).
    early_end: Option<EarlyEnd>,
}

/// The candidates at which a reader over a mapped file ends, the first
/// where a new game certainly begins.
#[derive(Clone, Copy, Debug)]
struct EarlyEnd {
    candidates: Candidates,
    /// The last candidate passed, or where reading began.
    last: usize,
    /// The next candidate, once found; reads go no further until it is
    /// decided.
    next: Option<usize>,
    /// Searched for the next candidate up to here (starts before it are
    /// none), as far as the bytes read: no further, for an input without
    /// candidates must not be read ahead of need.
    searched_to: usize,
}

/// Bytes read from the source per call.
const READ_BYTES: usize = 1 << 20;

/// The buffer size of a plain reader's [`BufReader`].
const READ_CHUNK: usize = 256 << 10;

/// A line starting with `[` longer than this is not read as a tag line,
/// so that a hostile "tag" cannot make the splitter buffer without limit.
const MAX_TAG_LINE: usize = 4 << 20;

/// Tag pairs past which a game is handed out in pieces, like a game over
/// [`GameReader::max_game_bytes`]: a tag record takes far more memory than
/// the four bytes of `[a]\n`, so an endless tag section is bounded by its
/// count of tags, not by its size.
const MAX_GAME_TAGS: usize = 1 << 16;

/// Tags a game may have before [`Scanner::current_has_tag`] keeps a set.
const NAME_SET_FROM: usize = 32;

impl<R: Read> GameReader<BufReader<R>> {
    /// A reader over `source` with default batch and game sizes.
    pub fn new(source: R) -> Self {
        GameReader::from_buf_read(BufReader::with_capacity(READ_CHUNK, source))
    }
}

impl GameReader<io::Empty> {
    /// A reader over a file mapped into memory from `from`, whose batches
    /// are stretches of the map rather than copies; `read` counts the
    /// bytes read.
    pub(crate) fn from_mapped(map: Arc<Mmap>, from: usize, read: Arc<AtomicU64>) -> Self {
        let window = Buffer::Mapped {
            map,
            start: from,
            end: from,
            released: from,
            read,
        };
        GameReader::with_buffer(io::empty(), window)
    }

    /// Makes the reader end early, at the first of `candidates` past where
    /// it starts at which a new game certainly begins: where a reader
    /// started afresh would begin the same game, in the same state. Reading
    /// on from there is then the business of another reader, so that
    /// several can split one file at once, and the games of readers started
    /// one where the one before ended are exactly those of one reader over
    /// the whole file.
    ///
    /// A candidate is certain when the scanner reaches it outside comments,
    /// in the movetext of a game (or the text after it), with nothing left
    /// to decide before it. Inside a comment or a tag section, or in a game
    /// handed out in pieces, reading goes on to the next candidate.
    pub(crate) fn end_at_boundaries(mut self, candidates: Candidates) -> Self {
        let start = self.position();
        self.early_end = Some(EarlyEnd {
            candidates,
            last: start,
            next: None,
            searched_to: start,
        });
        self
    }

    /// Where in the mapped file the bytes not yet handed out start: once
    /// [`GameReader::next_batch`] has returned `None`, where reading ended.
    pub(crate) fn position(&self) -> usize {
        match &self.buf {
            Buffer::Mapped { start, .. } => *start,
            Buffer::Owned(_) => 0,
        }
    }
}

impl<B: BufRead> GameReader<B> {
    /// A reader over a source that buffers itself; bytes are copied from
    /// its buffer straight into batches.
    pub fn from_buf_read(source: B) -> Self {
        GameReader::with_buffer(source, Buffer::Owned(Vec::with_capacity(READ_BYTES * 2)))
    }

    fn with_buffer(source: B, buf: Buffer) -> Self {
        GameReader {
            source,
            buf,
            eof: false,
            scanner: Scanner::new(),
            batch_bytes: 1 << 20,
            max_game_bytes: 16 << 20,
            next_index: 1,
            lines_before: 0,
            cr_before: false,
            line_numbers: true,
            done: false,
            pending_error: None,
            spare: Vec::new(),
            early_end: None,
        }
    }

    /// Games handed out so far.
    pub(crate) fn games_read(&self) -> u64 {
        self.next_index - 1
    }

    /// Line ends in the bytes handed out so far (counted with line numbers
    /// on, else 0).
    pub(crate) fn lines_read(&self) -> u64 {
        self.lines_before
    }

    /// Sets how many bytes of whole games a batch should hold at least
    /// (the last batch may hold fewer). Defaults to 1 MiB.
    pub fn batch_bytes(mut self, bytes: usize) -> Self {
        self.batch_bytes = bytes.max(1);
        self
    }

    /// Sets whether games get their line numbers ([`Game::line`]); counting
    /// costs a pass over the bytes that `tag` does not need. Defaults to on;
    /// when off, every line number is 0.
    pub fn line_numbers(mut self, on: bool) -> Self {
        self.line_numbers = on;
        self
    }

    /// Sets the size past which a game is handed out in pieces. Defaults to
    /// 16 MiB; values below 64 KiB are raised to 64 KiB.
    pub fn max_game_bytes(mut self, bytes: usize) -> Self {
        self.max_game_bytes = bytes.max(64 << 10);
        self
    }

    /// Hands back the [`Batch::data`] of a batch that is done with, to be
    /// reused for a later batch: fresh memory costs the kernel a page fault
    /// and a zeroed page for every 4 KiB. At most two are kept.
    ///
    /// The bytes of a batch from a mapped file are not copied: once the
    /// batch is done with, its pages are given back to the kernel, so that
    /// the mapped file never adds more than the batches in flight to the
    /// memory in use.
    pub fn recycle(&mut self, data: BatchData) {
        if let Buffer::Mapped { released, .. } = &mut self.buf {
            data.release_pages(released);
        }
        if let Data::Owned(mut buffer) = data.0
            && self.spare.len() < 2
            && buffer.capacity() <= 2 * (self.batch_bytes + READ_BYTES)
        {
            buffer.clear();
            self.spare.push(buffer);
        }
    }

    /// Reads the next batch, or `None` at the end of the input.
    ///
    /// # Errors
    ///
    /// Any error of the underlying reader (interrupted reads are retried),
    /// after every byte read before it has been handed out: a damaged
    /// compressed file still yields the games before the damage.
    pub fn next_batch(&mut self) -> io::Result<Option<Batch>> {
        if self.done {
            return self.pending_error.take().map_or(Ok(None), Err);
        }
        loop {
            let buf = self.buf.bytes();
            self.scanner.scan(buf, self.eof);
            let buffered = buf.len();
            if self.eof {
                self.done = true;
                self.scanner.finish(buffered);
                if buffered == 0 {
                    return self.pending_error.take().map_or(Ok(None), Err);
                }
                return Ok(Some(self.cut(buffered, false)));
            }
            if let Some(stop) = self.at_early_end() {
                if self.scanner.at_certain_boundary(buffered) {
                    self.done = true;
                    self.scanner.end_game(buffered);
                    return Ok(Some(self.cut(buffered, false)));
                }
                self.pass_early_end(stop);
            }
            let complete = self.scanner.current.start;
            if complete >= self.batch_bytes {
                return Ok(Some(self.cut(complete, false)));
            }
            let current_len = buffered - complete;
            let current_tags = self.scanner.tags.len() - self.scanner.current.tags_from;
            // Decided only where every reader of this input fills up to,
            // so that the pieces of a game never depend on the reader.
            let oversized = (current_len >= self.max_game_bytes || current_tags >= MAX_GAME_TAGS)
                && self.at_read_boundary();
            // The scanner stops short of the buffer's end only to wait for
            // the rest of a line, at most MAX_TAG_LINE away: read on rather
            // than cut a few bytes at a time.
            let waiting = self.scanner.pos < buffered;
            if oversized && !waiting && self.scanner.pos > complete {
                let at = self.scanner.pos;
                return Ok(Some(self.cut(at, true)));
            }
            if let Err(err) = self.fill() {
                // Hand out what was read, then the error.
                self.pending_error = Some(err);
                self.eof = true;
            }
        }
    }

    /// Reads up to [`READ_BYTES`] more, copying from the source's buffer
    /// (which is reused, so nothing is zero-filled per read), or widens the
    /// window onto a mapped file.
    fn fill(&mut self) -> io::Result<()> {
        let buf = match &mut self.buf {
            Buffer::Owned(buf) => buf,
            Buffer::Mapped { map, end, read, .. } => {
                // Up to the next multiple of a read (see
                // `at_read_boundary`), but never past the next candidate
                // for an early end: whether reading ends there is decided
                // first.
                let mut limit = ((*end / READ_BYTES + 1) * READ_BYTES).min(map.len());
                if let Some(early_end) = &mut self.early_end {
                    if early_end.next.is_none() {
                        let EarlyEnd {
                            candidates,
                            last,
                            searched_to,
                            ..
                        } = *early_end;
                        early_end.next = candidates.next_before(map, last, searched_to, limit);
                        early_end.searched_to = limit;
                    }
                    limit = limit.min(early_end.next.unwrap_or(limit));
                }
                let more = limit - *end;
                // One call maps the pages of the whole read, rather than a
                // page fault every few pages. Only a hint: the pages are
                // mapped on first touch anyway.
                #[cfg(target_os = "linux")]
                let _ = map.advise_range(memmap2::Advice::PopulateRead, *end, more);
                *end += more;
                read.fetch_add(more as u64, Ordering::Relaxed);
                self.eof = *end == map.len();
                return Ok(());
            }
        };
        let mut total = 0;
        while total < READ_BYTES {
            let chunk = match self.source.fill_buf() {
                Ok([]) => {
                    self.eof = true;
                    break;
                }
                Ok(chunk) => chunk,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            // A source in memory hands out all it has: take a read's worth.
            let read = chunk.len().min(READ_BYTES - total);
            buf.extend_from_slice(&chunk[..read]);
            self.source.consume(read);
            total += read;
        }
        Ok(())
    }

    /// Whether the bytes read end where every reader of the input fills up
    /// to: a multiple of [`READ_BYTES`] into the input. A reader that ends
    /// early also fills up to its candidates.
    fn at_read_boundary(&self) -> bool {
        match &self.buf {
            Buffer::Owned(_) => true,
            Buffer::Mapped { end, .. } => *end % READ_BYTES == 0,
        }
    }

    /// The candidate for an early end at which the bytes read end, if they
    /// end at one.
    fn at_early_end(&self) -> Option<usize> {
        match (&self.buf, self.early_end?.next) {
            (Buffer::Mapped { end, .. }, Some(next)) if *end == next => Some(next),
            _ => None,
        }
    }

    /// Reads on past the candidate `stop`, where no game certainly begins.
    fn pass_early_end(&mut self, stop: usize) {
        if let Some(early_end) = &mut self.early_end {
            early_end.last = stop;
            early_end.next = None;
            early_end.searched_to = stop;
        }
    }

    /// Hands out `buf[..at]` as a batch. With `split_current`, `at` lies
    /// inside the current game, whose head goes out now and whose rest
    /// becomes continuation bytes.
    fn cut(&mut self, at: usize, split_current: bool) -> Batch {
        let scanner = &mut self.scanner;
        let buf = self.buf.bytes();
        if scanner.line.checked_to < at {
            // Bring the line cache up to the cut, whose bytes are leaving.
            scanner.line_of(buf, at);
        }
        // Decide now whether the line is an escape line, while its start
        // is still in the buffer.
        scanner.escape_line(buf);
        if split_current {
            scanner.split_current(at);
        }
        let data = match &mut self.buf {
            Buffer::Owned(buf) => {
                // The unfinished game moves to a fresh buffer; the finished
                // bytes leave as the batch without being copied.
                let wanted = (buf.len() - at + READ_BYTES).max(self.batch_bytes + READ_BYTES);
                let mut rest = match self.spare.pop() {
                    Some(mut spare) => {
                        spare.reserve(wanted);
                        spare
                    }
                    None => Vec::with_capacity(wanted),
                };
                rest.extend_from_slice(&buf[at..]);
                buf.truncate(at);
                BatchData::from(std::mem::replace(buf, rest))
            }
            Buffer::Mapped { map, start, .. } => {
                let range = *start..*start + at;
                *start += at;
                BatchData(Data::Mapped {
                    map: Arc::clone(map),
                    range,
                })
            }
        };

        let mut games = std::mem::take(&mut scanner.games);
        let keep_tags = scanner.current.tags_from;
        let current_tags = scanner.tags.split_off(keep_tags);
        let tags = std::mem::replace(&mut scanner.tags, current_tags);
        let continuation = scanner.continuation_end.take().unwrap_or(0);
        for game in &mut games {
            game.index = self.next_index;
            self.next_index += 1;
        }
        self.scanner.rebase(at, keep_tags);
        if self.line_numbers {
            self.number_lines(&data, &tags, &mut games);
        }
        Batch {
            data,
            continuation,
            games,
            tags,
        }
    }

    /// Counts line ends up to each game's first tag line.
    fn number_lines(&mut self, data: &[u8], tags: &[TagSpan], games: &mut [Game]) {
        let mut counted_to = 0;
        for game in games {
            let first = tags
                .get(game.tags.start)
                .filter(|_| game.has_tags())
                .map_or(game.range.start, |t| line_start(data, t.name.start));
            self.lines_before += count_line_ends(data, counted_to, first, self.cr_before);
            counted_to = first;
            game.line = self.lines_before + 1;
        }
        self.lines_before += count_line_ends(data, counted_to, data.len(), self.cr_before);
        self.cr_before = data.last() == Some(&b'\r');
    }
}

/// The offset of the start of the line holding `at`.
pub(crate) fn line_start(data: &[u8], at: usize) -> usize {
    data[..at]
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1)
}

/// Counts the line ends (`\n`, `\r\n`, lone `\r`) that finish in `data[from..to]`.
pub(crate) fn count_line_ends(data: &[u8], from: usize, to: usize, cr_before: bool) -> u64 {
    let slice = &data[from..to];
    let newlines = memchr::memchr_iter(b'\n', slice).count() as u64;
    let mut prev_cr = if from == 0 {
        cr_before
    } else {
        data[from - 1] == b'\r'
    };
    if memchr::memchr(b'\r', slice).is_none() {
        // A `\n` right after a `\r` from before this slice ends no new line.
        let joined = prev_cr && slice.first() == Some(&b'\n');
        return newlines - u64::from(joined);
    }
    let mut lines = 0;
    for &b in slice {
        match b {
            b'\n' if !prev_cr => lines += 1,
            b'\r' => lines += 1,
            _ => {}
        }
        prev_cr = b == b'\r';
    }
    lines
}

/// Where the scanner is within the input's syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// At the start of a line, before any of its bytes.
    LineStart,
    /// In movetext (or stray text), outside comments.
    Movetext,
    /// Inside a `{ }` comment.
    Comment,
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
    /// The line ending of the first tag line, and of the last clean one.
    first_line_ending: Option<LineEnding>,
    last_line_ending: Option<LineEnding>,
    /// This "game" is the tail of an oversized game already handed out.
    continuation: bool,
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
            by_repeated_tag: false,
            names: TagNames::default(),
        }
    }
}

/// The resumable state machine behind [`GameReader`].
struct Scanner {
    pos: usize,
    mode: Mode,
    current: Current,
    games: Vec<Game>,
    tags: Vec<TagSpan>,
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

impl Scanner {
    fn new() -> Self {
        Scanner {
            pos: 0,
            mode: Mode::LineStart,
            current: Current::new(0, 0, Section::Preamble),
            games: Vec::new(),
            tags: Vec::new(),
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
            let from = self.line.start.unwrap_or(0);
            self.line.escape = buf[from..]
                .iter()
                .find(|&&b| b != b' ' && b != b'\t')
                .map(|&b| b == b'%');
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

    /// Whether the comment opened at `open` (`None`: somewhere before) and
    /// closed at `close` closed on an escape line, whose rest is then
    /// skipped. Only a comment that spans lines can: the line it opened on
    /// is none (its `%` would have come first).
    fn ends_on_escape_line(&mut self, buf: &[u8], open: Option<usize>, close: usize) -> bool {
        let one_line = open.is_some_and(|open| {
            self.block.as_ref().is_some_and(|block| {
                block.start <= open
                    && close < block.end()
                    && bits_between(block.line_ends, open - block.start, close - block.start) == 0
            })
        });
        !one_line && self.line_of(buf, close).1
    }

    /// The next movetext stop from `from` when the block at hand shows it
    /// to be a `{` on the line of the `{` at `open`, which is no escape line:
    /// a comment that needs no further checks. `None` whenever the block
    /// cannot tell (the general path then looks).
    #[inline]
    fn next_open_on_line(&self, open: usize, from: usize) -> Option<usize> {
        let block = self.block.as_ref()?;
        if open < block.start || from >= block.end() {
            return None;
        }
        let stops = bits_between(block.movetext, from - block.start, block.len);
        if stops == 0 {
            return None;
        }
        let next = block.start + stops.trailing_zeros() as usize;
        let new_line = bits_between(block.line_ends, open - block.start, next - block.start);
        (block.is_open(next) && new_line == 0).then_some(next)
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
    fn scan(&mut self, buf: &[u8], eof: bool) {
        if self.at_input_start {
            if buf.len() < 3 && !eof {
                return;
            }
            if buf.starts_with(b"\xef\xbb\xbf") {
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
                                if self.ends_on_escape_line(buf, Some(open), close) {
                                    self.mode = Mode::RestOfLine;
                                    break;
                                }
                                match self.next_open_on_line(open, close + 1) {
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
                            // Only blanks between the line start and `at`: look
                            // back over blanks, never over the whole line.
                            let at_line_start = line.is_some_and(|line| {
                                let blanks = buf[line..at]
                                    .iter()
                                    .rev()
                                    .take_while(|&&b| b == b' ' || b == b'\t')
                                    .count();
                                line + blanks == at
                            });
                            if at_line_start {
                                match self.line_end(buf, at, eof) {
                                    LineEnd::NeedMore => {
                                        self.pos = at; // the whole line is needed
                                        return;
                                    }
                                    LineEnd::At(_) if tag_name_at(buf, at).is_some() => {
                                        // A tag pair at the start of a line:
                                        // `line_start` begins the next game.
                                        self.pos = line.expect("checked above");
                                        self.mode = Mode::LineStart;
                                        continue;
                                    }
                                    _ => {}
                                }
                            }
                            if !follows_result(&buf[self.current.start..at]) {
                                self.pos = at + 1;
                                continue;
                            }
                            let eol = match self.line_end(buf, at, eof) {
                                LineEnd::At(eol) => eol,
                                LineEnd::NeedMore => {
                                    self.pos = at;
                                    return;
                                }
                                LineEnd::TooLong => {
                                    self.pos = at + 1;
                                    continue;
                                }
                            };
                            if tag_name_at(buf, at).is_some() {
                                self.end_game(at);
                                self.current.section = Section::Tags { blank_line: false };
                                self.tag_line(buf, at, at, eol);
                            } else {
                                self.pos = at + 1;
                            }
                        }
                    }
                }
                Mode::Comment => match self.find(buf, self.pos, Stop::CommentEnd) {
                    Some(close) => {
                        self.pos = close + 1;
                        self.mode = if self.ends_on_escape_line(buf, None, close) {
                            Mode::RestOfLine
                        } else {
                            Mode::Movetext
                        };
                    }
                    None => self.pos = buf.len(),
                },
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
        match buf[at] {
            b'[' => {
                let plain = plain_tag_line(buf, at, eof);
                let (name, eol) = match &plain {
                    Some(plain) => (plain.name.clone(), plain.eol),
                    None => {
                        let eol = match self.line_end(buf, at, eof) {
                            LineEnd::At(eol) => eol,
                            LineEnd::NeedMore => return LineStartStep::NeedMore,
                            LineEnd::TooLong => return self.movetext_from(at),
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
                    self.end_game(line);
                    self.current.by_repeated_tag =
                        matches!(section_before, Section::Tags { blank_line: true });
                }
                self.current.section = Section::Tags { blank_line: false };
                match plain {
                    Some(plain) => {
                        self.tags.push(TagSpan {
                            name: plain.name,
                            value: plain.value,
                            well_formed: true,
                            end: eol,
                        });
                        self.end_tag_line(buf, line, eol, eol);
                    }
                    None => self.tag_line(buf, line, at, eol),
                }
                LineStartStep::Continue
            }
            b'%' => {
                self.mode = Mode::RestOfLine;
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
            self.current.first_line_ending = Some(ending);
        }
        if at < eol {
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
    fn end_game(&mut self, at: usize) {
        let current = &self.current;
        if current.continuation {
            self.continuation_end = Some(at);
        } else {
            self.games.push(self.game_record(at, false, false));
        }
        let tags_from = self.tags.len();
        self.current = Current::new(at, tags_from, Section::Movetext);
    }

    fn game_record(&self, end: usize, continued: bool, cut_off: bool) -> Game {
        self.game_record_at(end, continued, cut_off, false)
    }

    fn game_record_at(&self, end: usize, continued: bool, cut_off: bool, at_end: bool) -> Game {
        let current = &self.current;
        let insert_at = match (current.after_last_tag_line, current.first_tag_line) {
            (Some(after), _) => Some(after),
            (None, Some(first)) if !current.by_repeated_tag => Some(first),
            (None, Some(_)) => self
                .tags
                .get(current.tags_from)
                .filter(|tag| tag.well_formed)
                .map(|tag| tag.end),
            (None, None) => Some(current.start),
        };
        Game {
            index: 0,
            line: 0,
            range: current.start..end,
            tags: current.tags_from..self.tags.len(),
            insert_at,
            // The new line follows the line it is inserted after, so it takes
            // that line's ending: a lone `\r` must never meet a `\n`.
            line_ending: if current.after_last_tag_line.is_some() {
                current.last_line_ending
            } else {
                current.first_line_ending
            }
            .unwrap_or_default(),
            continued,
            cut_off,
            at_end,
        }
    }

    /// Whether a new game certainly begins at `end`, the end of the
    /// buffer, when a tag line starts there: everything before it has been
    /// scanned, the current game has reached its movetext (so the tag line
    /// ends it), and no comment or piece of an oversized game is open. A
    /// scanner started afresh at `end` then reads what this one would.
    fn at_certain_boundary(&self, end: usize) -> bool {
        self.pos == end
            && matches!(self.mode, Mode::LineStart | Mode::Movetext)
            && self.current.section == Section::Movetext
            && !self.current.continuation
    }

    /// At the end of input: the current game ends at `end`.
    fn finish(&mut self, end: usize) {
        let current = &self.current;
        if current.continuation {
            self.continuation_end = Some(end);
        } else if current.section == Section::Preamble {
            // Only white space: no game, just bytes.
            self.continuation_end = Some(end);
        } else {
            let cut_off = self.mode == Mode::Comment;
            self.games
                .push(self.game_record_at(end, false, cut_off, true));
        }
        self.current = Current::new(end, self.tags.len(), Section::Movetext);
    }

    /// The current game is handed out up to `at`; its rest is continuation.
    fn split_current(&mut self, at: usize) {
        let tags_from = self.tags.len();
        if self.current.continuation || self.current.section == Section::Preamble {
            // No game has started: all bytes so far are bytes of no game
            // (or of the oversized game handed out earlier).
            self.continuation_end = Some(at);
            let mut rest = Current::new(at, tags_from, self.current.section);
            rest.continuation = self.current.continuation;
            self.current = rest;
            return;
        }
        self.games.push(self.game_record(at, true, false));
        let mut rest = Current::new(at, tags_from, Section::Movetext);
        rest.continuation = true;
        self.current = rest;
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

/// Where the line holding `at` ends, as far as the buffer can tell.
enum LineEnd {
    /// At this offset (its `\n` or `\r`, or the end of input); a `\r` is
    /// followed by its next byte, so `\r\n` is told from `\r`.
    At(usize),
    /// Not yet in the buffer: read more.
    NeedMore,
    /// Longer than any tag line may be: not a tag line.
    TooLong,
}

/// What the line end found at `eol` (or none in the buffer) means for a
/// line holding `at`.
///
/// Whether a line is too long depends on its length alone, never on how
/// much of the input is in the buffer: readers that fill their buffers
/// differently (see [`GameReader::end_at_boundaries`]) must agree.
fn line_end_at(buf: &[u8], at: usize, eol: Option<usize>, eof: bool) -> LineEnd {
    let end = eol.unwrap_or(buf.len());
    if end - at >= MAX_TAG_LINE {
        return LineEnd::TooLong;
    }
    match eol {
        Some(eol) if buf[eol] == b'\r' && eol + 1 == buf.len() && !eof => LineEnd::NeedMore,
        Some(eol) => LineEnd::At(eol),
        None if eof => LineEnd::At(buf.len()),
        None => LineEnd::NeedMore,
    }
}

/// The end of the line holding `from`: the offset of its `\n` or `\r`.
fn find_line_end(buf: &[u8], from: usize) -> Option<usize> {
    memchr2(b'\n', b'\r', &buf[from..]).map(|i| from + i)
}

/// A tag line of the plainest shape, `[Name "value"]` right before its
/// line end, as most are.
struct PlainTagLine {
    name: Range<usize>,
    value: Range<usize>,
    /// The line end, just after the `]`.
    eol: usize,
}

/// Longest plain tag line read by [`plain_tag_line`]; longer ones take the
/// general way.
const PLAIN_TAG_LINE: usize = 4 << 10;

/// Reads the line from the `[` at `at` in one pass when it is a plain tag
/// line: no blanks around the name, one space before the value, no
/// backslash or quote inside it, `"]` and the line end right after (a `\r`
/// followed by its next byte or the end of input). The reading is exactly
/// that of [`Scanner::line_end`], [`tag_name_at`] and [`parse_tag`], which
/// read every other line.
fn plain_tag_line(buf: &[u8], at: usize, eof: bool) -> Option<PlainTagLine> {
    let line = &buf[at..buf.len().min(at + PLAIN_TAG_LINE)];
    let first = *line.get(1)?;
    if !(first.is_ascii_alphanumeric() || first == b'_') {
        return None;
    }
    let name_end = 1 + line[1..]
        .iter()
        .position(|b| matches!(b, b' ' | b'\t' | b'"' | b']' | b'\n' | b'\r'))?;
    if line.get(name_end..name_end + 2)? != b" \"" {
        return None;
    }
    let value_start = name_end + 2;
    let close = value_start
        + line[value_start..]
            .iter()
            .position(|b| matches!(b, b'"' | b'\\' | b'\n' | b'\r'))?;
    if line[close] != b'"' || line.get(close + 1) != Some(&b']') {
        return None;
    }
    let eol = close + 2;
    match line.get(eol) {
        Some(b'\n') => {}
        Some(b'\r') if at + eol + 1 < buf.len() || eof => {}
        _ => return None,
    }
    Some(PlainTagLine {
        name: at + 1..at + name_end,
        value: at + value_start..at + close,
        eol: at + eol,
    })
}

/// If `buf[at]` is `[` opening a tag pair, the range of its name.
fn tag_name_at(buf: &[u8], at: usize) -> Option<Range<usize>> {
    let mut start = at + 1;
    while start < buf.len() && (buf[start] == b' ' || buf[start] == b'\t') {
        start += 1;
    }
    let first = *buf.get(start)?;
    if !(first.is_ascii_alphanumeric() || first == b'_') {
        return None;
    }
    let mut end = start;
    while end < buf.len() && !matches!(buf[end], b' ' | b'\t' | b'"' | b']' | b'\n' | b'\r') {
        end += 1;
    }
    Some(start..end)
}

/// Parses one tag pair whose name is `name`, within the line ending at
/// `eol`. Returns the pair and the offset after it.
fn parse_tag(buf: &[u8], name: Range<usize>, eol: usize) -> (TagSpan, usize) {
    let line = &buf[..eol];
    let Some(quote) = memchr2(b'"', b']', &line[name.end..]).map(|i| name.end + i) else {
        let tag = TagSpan {
            name,
            value: eol..eol,
            well_formed: false,
            end: eol,
        };
        return (tag, eol);
    };
    if line[quote] == b']' {
        // `[Name]` with no value.
        let tag = TagSpan {
            name,
            value: quote..quote,
            well_formed: false,
            end: quote + 1,
        };
        return (tag, quote + 1);
    }
    let value_start = quote + 1;
    // The closing quote honours `\"` and `\\`.
    let mut at = value_start;
    let mut close = None;
    while let Some(i) = memchr2(b'"', b'\\', &line[at..]) {
        let hit = at + i;
        if line[hit] == b'\\' {
            at = (hit + 2).min(eol);
        } else {
            close = Some(hit);
            break;
        }
    }
    // A closing quote must be followed by `]`; when it is not, the value
    // holds unescaped quotes (or a stray backslash): take the next quote
    // that is followed by `]`.
    let closes_pair = |q: usize| after_spaces(line, q + 1).is_some_and(|k| line[k] == b']');
    let close = close.filter(|&q| closes_pair(q)).or_else(|| {
        let from = close.unwrap_or(value_start);
        memchr::memchr_iter(b'"', &line[from..])
            .map(|i| from + i)
            .find(|&q| q >= value_start && closes_pair(q))
    });
    match close {
        Some(q) => {
            let ket = after_spaces(line, q + 1).expect("closes_pair checked a `]` follows");
            let tag = TagSpan {
                name,
                value: value_start..q,
                well_formed: true,
                end: ket + 1,
            };
            (tag, ket + 1)
        }
        None => {
            let tag = TagSpan {
                name,
                value: value_start..eol,
                well_formed: false,
                end: eol,
            };
            (tag, eol)
        }
    }
}

/// The first offset at or after `from` that is not a space or tab.
fn after_spaces(line: &[u8], from: usize) -> Option<usize> {
    (from..line.len()).find(|&i| line[i] != b' ' && line[i] != b'\t')
}

/// Whether `before` ends (ignoring white space) with a result token.
fn follows_result(before: &[u8]) -> bool {
    let end = before
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    let text = &before[..end];
    [&b"1-0"[..], b"0-1", b"1/2-1/2", b"*"].iter().any(|token| {
        text.ends_with(token)
            && text[..text.len() - token.len()]
                .last()
                .is_none_or(|b| b.is_ascii_whitespace() || matches!(b, b'}' | b')'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's index, line, bytes, and whether it is continued or last.
    type GameSeen = (u64, u64, String, bool, bool);

    /// The games of a mapped file as readers ending early at candidates
    /// `stretch` apart, each started where the one before ended, find them
    /// (`None`: as one reader does), with games and lines counted across
    /// readers; and the number of readers.
    fn split_mapped(
        map: &Arc<Mmap>,
        stretch: Option<usize>,
        max_game_bytes: usize,
    ) -> (Vec<GameSeen>, usize) {
        let (mut games, mut lines, mut at, mut readers) = (0, 0, 0, 0);
        let mut out = Vec::new();
        while at < map.len() {
            let read = Arc::new(AtomicU64::new(0));
            let mut reader = GameReader::from_mapped(Arc::clone(map), at, read)
                .batch_bytes(100)
                .max_game_bytes(max_game_bytes);
            if let Some(stretch) = stretch {
                reader = reader.end_at_boundaries(Candidates::new(stretch));
            }
            while let Some(batch) = reader.next_batch().unwrap() {
                for game in &batch.games {
                    let bytes = String::from_utf8_lossy(batch.bytes(game)).into_owned();
                    let at_end = game.at_end;
                    out.push((
                        games + game.index,
                        lines + game.line,
                        bytes,
                        game.continued,
                        at_end,
                    ));
                }
            }
            games += reader.games_read();
            lines += reader.lines_read();
            at = reader.position();
            readers += 1;
        }
        (out, readers)
    }

    #[test]
    fn readers_ending_early_find_the_games_of_one_reader() {
        let comment_lines = "[Event \"in a comment\"]\n".repeat(60_000);
        let long_moves = "1. e4 e5 ".repeat(150_000);
        let input = format!(
            "[Event \"1\"]\n\n1. e4 *\n\n\
             [Event \"2\"]\n\n1. d4 {{\n{comment_lines}}} *\n\n\
             [Event \"3\"]\n\n{long_moves}\n[Event \"4\"]\n\n*\n\
             [Event \"5\"]\n[Event \"6, tags only\"]\n\n[Event \"7\"]\n\n{long_moves}\n\
             [Event \"8\"]\r\n\r\n1. c4 {{ left open\n[Event \"9\"]\n"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        std::fs::write(&path, &input).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // SAFETY: the file is ours, and nothing changes it while mapped.
        let map = Arc::new(unsafe { Mmap::map(&file) }.unwrap());
        for max_game_bytes in [64 << 10, 16 << 20] {
            let (expected, one) = split_mapped(&map, None, max_game_bytes);
            assert_eq!(one, 1);
            assert_eq!(expected.len(), 7);
            assert_eq!(expected.iter().any(|g| g.3), max_game_bytes == 64 << 10);
            let mut ended_early = false;
            for stretch in [1, 100, 5000, 70_000] {
                let (games, readers) = split_mapped(&map, Some(stretch), max_game_bytes);
                ended_early |= readers > 1;
                assert!(
                    games == expected,
                    "stretch {stretch}, games up to {max_game_bytes}"
                );
            }
            assert!(ended_early, "games up to {max_game_bytes}");
        }
    }

    #[test]
    fn a_line_too_long_for_a_tag_line_is_so_wherever_reading_stops() {
        for offset in [0, 300 << 10, 700 << 10] {
            let mut input = b"[Event \"a\"]\n\n1. e4 *\n".to_vec();
            input.resize(input.len() + offset, b' ');
            input.extend_from_slice(b"\n[Long \"");
            input.resize(input.len() + MAX_TAG_LINE, b'x');
            input.extend_from_slice(b"\"]\n\n1. d4 *\n\n[Event \"b\"]\n\n*\n");
            let games = split(&input);
            assert_eq!(games.len(), 2, "offset {offset}");
        }
    }

    fn split(input: &[u8]) -> Vec<(u64, String)> {
        split_with(input, 1 << 20)
    }

    fn split_with(input: &[u8], batch_bytes: usize) -> Vec<(u64, String)> {
        let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
        let mut out = Vec::new();
        let mut all = Vec::new();
        while let Some(batch) = reader.next_batch().unwrap() {
            all.extend_from_slice(&batch.data);
            for game in &batch.games {
                out.push((
                    game.line,
                    String::from_utf8_lossy(batch.bytes(game)).into_owned(),
                ));
            }
        }
        assert_eq!(all, input, "batches must cover the input exactly");
        out
    }

    #[test]
    fn splits_at_tag_sections() {
        let games = split(b"[Event \"a\"]\n\n1. e4 1-0\n\n[Event \"b\"]\n1. d4 *\n");
        assert_eq!(
            games,
            vec![
                (1, "[Event \"a\"]\n\n1. e4 1-0\n\n".to_string()),
                (5, "[Event \"b\"]\n1. d4 *\n".to_string()),
            ]
        );
    }

    #[test]
    fn comment_with_event_line_is_no_boundary() {
        let input = b"[Event \"a\"]\n\n1. e4 { see\n[Event \"x\"]\n} 1-0\n";
        assert_eq!(split(input).len(), 1);
    }

    #[test]
    fn tags_only_games_split_on_repeated_tag_after_blank_line() {
        let input = b"[Event \"a\"]\n[Site \"s\"]\n\n[Event \"b\"]\n[Site \"t\"]\n";
        let games = split(input);
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].0, 4);
        // A blank line inside one tag section is not a boundary.
        let input = b"[Event \"a\"]\n\n[Site \"s\"]\n\n1. e4 *\n";
        assert_eq!(split(input).len(), 1);
        // Nor is a repeated tag without a blank line.
        let input = b"[FEN \"x\"]\n[FEN \"y\"]\n\n1. e4 *\n";
        assert_eq!(split(input).len(), 1);
    }

    #[test]
    fn tag_after_result_on_same_line() {
        let games = split(b"[Event \"a\"] 1. e4 1-0 [Event \"b\"] 1. d4 *");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].1, "[Event \"b\"] 1. d4 *");
    }

    #[test]
    fn line_endings_and_line_numbers() {
        let games = split(b"[Event \"a\"]\r\r1. e4 *\r\r[Event \"b\"]\r\r1. d4 *\r");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].0, 5);
        let games = split(b"\xef\xbb\xbf[Event \"a\"]\r\n\r\n1. e4 *\r\n\r\n[Event \"b\"]\r\n");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].0, 5);
    }

    #[test]
    fn hostile_tag_values() {
        let input = br#"[A "b\""] [B "b\""] [C "A]]"] [D "A]]["] [E "\"A]][\""]
[Event "Tournament "Championship" Finals"]
[Site "back\"]
"#;
        let mut reader = GameReader::new(&input[..]);
        let batch = reader.next_batch().unwrap().unwrap();
        let values: Vec<_> = batch
            .tags
            .iter()
            .map(|t| String::from_utf8_lossy(batch.raw_value(t)).into_owned())
            .collect();
        assert_eq!(
            values,
            [
                r#"b\""#,
                r#"b\""#,
                "A]]",
                "A]][",
                r#"\"A]][\""#,
                r#"Tournament "Championship" Finals"#,
                r"back\",
            ]
        );
        assert!(batch.tags.iter().all(|t| t.well_formed));
    }

    #[test]
    fn small_batches_cover_input() {
        let mut input = Vec::new();
        for i in 0..200 {
            input.extend_from_slice(format!("[Event \"{i}\"]\n\n1. e4 {{ c }} *\n\n").as_bytes());
        }
        let games = split_with(&input, 1);
        assert_eq!(games.len(), 200);
        assert_eq!(games[199].0, 199 * 4 + 1);
    }

    #[test]
    fn escape_lines_and_semicolon_comments_hide_braces() {
        let input = b"[Event \"a\"]\n\n1. e4 ; not a comment {\n% also not {\n1... e5 *\n\n[Event \"b\"]\n*\n";
        let games = split(input);
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].0, 7);
    }

    #[test]
    fn tag_lines_in_movetext_start_games_after_any_line_ending() {
        for eol in ["\n", "\r\n", "\r"] {
            let input = format!(
                "[Event \"a\"]{eol}{eol}1. e4 e5{eol}  [Event \"b\"]{eol}{eol}1. d4 *{eol}"
            );
            let games = split(input.as_bytes());
            assert_eq!(games.len(), 2, "{eol:?}");
            assert!(games[1].1.starts_with("  [Event \"b\"]"), "{eol:?}");
            assert_eq!(games[1].0, 4, "{eol:?}");
        }
    }

    #[test]
    fn bracket_inside_a_line_is_movetext() {
        assert_eq!(split(b"[Event \"a\"]\n\n1. e4 [%clk 0:01] e5 *\n").len(), 1);
    }

    #[test]
    fn a_read_error_comes_after_the_games_before_it() {
        let good = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4".to_vec();
        let failing = std::io::Cursor::new(good.clone()).chain(FailingReader);
        let mut reader = GameReader::new(failing);
        let batch = reader.next_batch().expect("the bytes before the error");
        assert_eq!(*batch.expect("a batch").data, good[..]);
        assert!(reader.next_batch().is_err());
        assert!(reader.next_batch().unwrap().is_none());
    }

    struct FailingReader;

    impl Read for FailingReader {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::InvalidData, "damaged"))
        }
    }

    #[test]
    fn whitespace_only_input_has_no_game() {
        assert!(split(b"\n\n  \n").is_empty());
        assert!(split(b"").is_empty());
    }

    #[test]
    fn oversized_game_comes_in_pieces() {
        let mut input = b"[Event \"big\"]\n\n1. e4 {".to_vec();
        input.extend(std::iter::repeat_n(b'x', 3 << 20));
        input.extend_from_slice(b"} *\n\n[Event \"next\"]\n\n*\n");
        let mut reader = GameReader::new(&input[..]).max_game_bytes(64 << 10);
        let mut heads = Vec::new();
        let mut all = Vec::new();
        while let Some(batch) = reader.next_batch().unwrap() {
            all.extend_from_slice(&batch.data);
            for game in &batch.games {
                heads.push((game.index, game.continued, batch.tags_of(game).len()));
            }
        }
        assert_eq!(all, input);
        assert_eq!(heads, vec![(1, true, 1), (2, false, 1)]);
    }
}
