//! What the splitter hands out: batches of whole games, each game a byte
//! range with its tag pairs, so that every command reads the same game
//! from the same bytes and can write them back unchanged.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::{Arc, OnceLock};

use memmap2::Mmap;

use super::lines::{count_line_ends, line_start};
use crate::input::release_pages;

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
    /// The game's bytes within [`Batch::data`], trailing bytes included.
    pub range: Range<usize>,
    /// Which of [`Batch::tags`] belong to this game.
    pub tags: Range<usize>,
    /// Where a new tag line goes: after the last tag line that holds only
    /// tags and ends; without one, before the first tag line — unless the
    /// game began by repeating a tag of the game before it (archives of
    /// tags only), where a line put first would join the two games: then
    /// right after the first tag pair, or, when that pair is broken, nowhere
    /// (`None`). A game without tags (only ever an input's first) gets it
    /// first, after a byte-order mark.
    pub insert_at: Option<usize>,
    /// The line ending a tag line inserted at `insert_at` takes: that of the
    /// line it follows; inserted before a line, that line's; when no line of
    /// the game ends from there on (the input's last line), that of the
    /// input's line before; `\n` only when no line before it ends either.
    pub line_ending: LineEnding,
    /// The game goes on in the next batch(es) as continuation bytes.
    pub continued: bool,
    /// The input ended inside a brace comment of this game.
    pub cut_off: bool,
    /// This is the last game of its input.
    pub at_end: bool,
    /// The game's tag section was not read whole: it is handed out in
    /// pieces within its tag section (more than 65,536 tag pairs, or more
    /// than [`GameReader::max_game_bytes`](super::GameReader::max_game_bytes)
    /// of it), or holds a tag line longer than 16 MiB, skipped unread. Its
    /// tags are then not all known, nor is where it starts.
    pub tags_incomplete: bool,
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
    /// The input's line on which `data` begins (1 for the first), once the
    /// pipeline has counted the lines before it (see
    /// [`crate::pipeline::PipelineConfig::line_numbers`]); `None` before,
    /// and always for a work function, which sees batches out of order.
    /// Lines within the batch are counted by
    /// [`LineCounter`](crate::split::LineCounter).
    pub first_line: Option<u64>,
    /// The line ends in `data`, once counted: by the pipeline, or before
    /// it by a work function that counted them anyway (see
    /// [`Batch::line_ends`]).
    pub(crate) line_ends: OnceLock<u64>,
    /// Where the first NUL byte of `data` is, once looked for (see
    /// [`Batch::first_nul`]).
    pub(crate) first_nul: OnceLock<Option<usize>>,
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

    /// Where a game's first line starts: that of its first tag, else its
    /// first byte.
    pub fn first_line_start(&self, game: &Game) -> usize {
        self.tags_of(game).first().map_or(game.range.start, |tag| {
            line_start(&self.data, tag.name.start)
        })
    }

    /// Where a game's movetext starts: after its last tag pair (at its
    /// first byte when it has none); and whether that place starts a line
    /// (where an escape line can begin). Its movetext runs from there to
    /// the game's end.
    pub fn movetext_start(&self, game: &Game) -> (usize, bool) {
        let start = self
            .tags_of(game)
            .last()
            .map_or(game.range.start, |tag| tag.end);
        let starts_line = start == 0 || matches!(self.data[start - 1], b'\n' | b'\r');
        (start, starts_line)
    }

    /// The input's line of a line counted within the batch (1 for the
    /// batch's first), once the pipeline has placed the batch; else the
    /// line within the batch.
    pub fn input_line(&self, line_in_batch: u64) -> u64 {
        self.first_line
            .map_or(line_in_batch, |first| first + line_in_batch - 1)
    }

    /// The line ends (`\n`, `\r\n`, lone `\r`) in the batch's bytes,
    /// counted once: a work function that has counted every line of the
    /// batch (`games` numbers each game's first line) hands its count on
    /// with `Batch::counted_line_ends`, and the pipeline, which places
    /// batches by their lines, then reads no byte again.
    pub fn line_ends(&self) -> u64 {
        *self
            .line_ends
            .get_or_init(|| count_line_ends(&self.data, 0, self.data.len(), false))
    }

    /// Where the first NUL byte of the batch's bytes is, if any: looked
    /// for once. A speculation ([`crate::pipeline`]) looks right after
    /// splitting the batch, while its bytes are still in the cache of the
    /// processor that read them; else the pipeline's worker does.
    pub(crate) fn first_nul(&self) -> Option<usize> {
        *self.first_nul.get_or_init(|| memchr::memchr(0, &self.data))
    }

    /// Keeps only the games that end at or before byte `at` (and the
    /// continuation bytes before them, when `at` is past those): the
    /// batch as it would be had its bytes ended before the game that holds
    /// byte `at`. For a reading that must stop there (a NUL byte, no PGN).
    pub(crate) fn truncate_before(&mut self, at: usize) {
        let kept = self
            .games
            .iter()
            .take_while(|game| game.range.end <= at)
            .count();
        self.games.truncate(kept);
        let end = match self.games.last() {
            Some(game) => game.range.end,
            None if at >= self.continuation => self.continuation,
            None => {
                self.continuation = 0;
                0
            }
        };
        self.tags
            .truncate(self.games.last().map_or(0, |game| game.tags.end));
        self.data.truncate(end);
        self.line_ends = OnceLock::new();
        self.first_nul = OnceLock::new();
    }

    /// Notes the batch's line ends, counted by whoever reads all its lines
    /// anyway ([`LineCounter::line_ends`](crate::split::LineCounter::line_ends)
    /// over `data`).
    pub(crate) fn counted_line_ends(&self, line_ends: u64) {
        debug_assert_eq!(
            line_ends,
            count_line_ends(&self.data, 0, self.data.len(), false)
        );
        let _ = self.line_ends.set(line_ends);
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
    /// A stretch of a mapped file.
    pub(crate) fn mapped(map: &Arc<Mmap>, range: Range<usize>) -> BatchData {
        BatchData(Data::Mapped {
            map: Arc::clone(map),
            range,
        })
    }

    /// For bytes of a mapped file, the map and where in it the bytes
    /// begin; `None` for owned bytes.
    pub(crate) fn map(&self) -> Option<(&Arc<Mmap>, usize)> {
        match &self.0 {
            Data::Owned(_) => None,
            Data::Mapped { map, range } => Some((map, range.start)),
        }
    }

    /// The buffer of owned bytes, to be reused; `None` for mapped bytes.
    pub(crate) fn into_owned_buffer(self) -> Option<Vec<u8>> {
        match self.0 {
            Data::Owned(buffer) => Some(buffer),
            Data::Mapped { .. } => None,
        }
    }

    /// For bytes of a mapped file, gives the pages of the file up to their
    /// end back to the kernel, from `released` on (see
    /// [`GameReader::recycle`]); `released` moves on with them.
    pub(crate) fn release_pages(&self, released: &mut usize) {
        if let Data::Mapped { map, range } = &self.0 {
            release_pages(map, released, range.end);
        }
    }

    /// Keeps the first `len` bytes.
    fn truncate(&mut self, len: usize) {
        match &mut self.0 {
            Data::Owned(bytes) => bytes.truncate(len),
            Data::Mapped { range, .. } => range.end = range.start + len.min(range.len()),
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
