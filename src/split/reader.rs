//! The batching reader: fills its window, lets the scanner read, and cuts
//! batches of whole games (or, for a game too long to hold, pieces of it)
//! at the sizes that keep memory bounded and every thread busy.

use std::io::{self, BufRead, BufReader, Read};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use memmap2::Mmap;

use super::Candidates;
use super::scanner::Scanner;
use super::types::{Batch, BatchData, Game, TagSpan};
use super::window::{MappedWindow, READ_BYTES, StreamWindow, Window};

/// The buffer size of a plain reader's [`BufReader`].
const READ_CHUNK: usize = 256 << 10;

/// Tag pairs past which a game is handed out in pieces, like a game over
/// [`GameReader::max_game_bytes`]: a tag record takes far more memory than
/// the four bytes of `[a]\n`, so an endless tag section is bounded by its
/// count of tags, not by its size.
const MAX_GAME_TAGS: usize = 1 << 16;

/// The most room reserved up front for the next batch of a stream, in
/// bytes: a batch asked to be larger grows as it is read.
pub const MAX_RESERVED_BATCH: usize = 256 << 20;

/// Reads games from an input, in batches of whole games.
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
/// assert_eq!(batch.games[1].index, 2);
/// # Ok::<_, std::io::Error>(())
/// ```
pub struct GameReader<W> {
    window: W,
    scanner: Scanner,
    batch_bytes: usize,
    max_game_bytes: usize,
    next_index: u64,
    done: bool,
    /// A read error, returned after the games read before it.
    pending_error: Option<io::Error>,
}

impl<R: Read> GameReader<StreamWindow<BufReader<R>>> {
    /// A reader over `source` with default batch and game sizes.
    pub fn new(source: R) -> Self {
        GameReader::from_buf_read(BufReader::with_capacity(READ_CHUNK, source))
    }
}

impl<B: BufRead> GameReader<StreamWindow<B>> {
    /// A reader over a source that buffers itself; bytes are copied from
    /// its buffer straight into batches.
    pub fn from_buf_read(source: B) -> Self {
        GameReader::over(StreamWindow::new(source))
    }
}

impl GameReader<MappedWindow> {
    /// A reader over a file mapped into memory from `from`, whose batches
    /// are stretches of the map rather than copies; `read` counts the
    /// bytes read.
    pub(crate) fn from_mapped(map: Arc<Mmap>, from: usize, read: Arc<AtomicU64>) -> Self {
        GameReader::over(MappedWindow::new(map, from, read))
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
        self.window = self.window.stopping_at(candidates);
        self
    }

    /// Where in the mapped file the bytes not yet handed out start: once
    /// [`GameReader::next_batch`] has returned `None`, where reading ended.
    pub(crate) fn position(&self) -> usize {
        self.window.position()
    }
}

impl<W: Window> GameReader<W> {
    fn over(window: W) -> Self {
        GameReader {
            window,
            scanner: Scanner::new(),
            batch_bytes: 1 << 20,
            max_game_bytes: 16 << 20,
            next_index: 1,
            done: false,
            pending_error: None,
        }
    }

    /// Games handed out so far.
    pub(crate) fn games_read(&self) -> u64 {
        self.next_index - 1
    }

    /// Sets how many bytes of whole games a batch should hold at least
    /// (the last batch may hold fewer). Defaults to 1 MiB. Any size is
    /// taken, `usize::MAX` included (one batch for the whole input, games
    /// too long aside); room for a batch read from a stream is reserved up
    /// front for at most [`MAX_RESERVED_BATCH`] bytes, and grows past that
    /// as the batch is read.
    pub fn batch_bytes(mut self, bytes: usize) -> Self {
        self.batch_bytes = bytes.max(1);
        self
    }

    /// Sets the size past which a game is handed out in pieces. Defaults to
    /// 16 MiB; values below 64 KiB are raised to 64 KiB.
    pub fn max_game_bytes(mut self, bytes: usize) -> Self {
        self.max_game_bytes = bytes.max(64 << 10);
        self
    }

    /// Hands back the [`Batch::data`] of a batch that is done with: a
    /// stream's buffer is reused for a later batch, a mapped file's pages
    /// go back to the kernel.
    pub fn recycle(&mut self, data: BatchData) {
        self.window.recycle(data);
    }

    /// Hands back a whole batch that is done with: its bytes as
    /// [`GameReader::recycle`] does, and its records' vectors, reused to
    /// hold those of later batches.
    pub fn recycle_batch(&mut self, batch: Batch) {
        let Batch {
            data, games, tags, ..
        } = batch;
        self.window.recycle(data);
        self.recycle_records(games, tags);
    }

    /// Takes back the emptied vectors of a consumed batch's records, to
    /// hold those of later batches.
    pub(crate) fn recycle_records(&mut self, games: Vec<Game>, tags: Vec<TagSpan>) {
        // Vectors of a batch as large as usual are kept; those of a batch of
        // unusually many tiny games or tags are let go.
        self.scanner.recycle(
            games,
            tags,
            self.batch_bytes.min(MAX_RESERVED_BATCH) + READ_BYTES,
        );
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
            let buf = self.window.bytes();
            let eof = self.window.at_eof();
            self.scanner.scan(buf, eof);
            let buffered = buf.len();
            if eof {
                self.done = true;
                self.scanner.finish(buf, buffered);
                if buffered == 0 {
                    return self.pending_error.take().map_or(Ok(None), Err);
                }
                return Ok(Some(self.cut(buffered, false)));
            }
            if let Some(stop) = self.window.at_stop() {
                if self.scanner.at_certain_boundary(buffered) {
                    self.done = true;
                    self.scanner.end_game(buf, buffered);
                    return Ok(Some(self.cut(buffered, false)));
                }
                self.window.pass_stop(stop);
            }
            let complete = self.scanner.complete();
            if complete >= self.batch_bytes {
                return Ok(Some(self.cut(complete, false)));
            }
            // Decided only where every reader of this input fills up to,
            // so that the pieces of a game never depend on the reader.
            let oversized = (buffered - complete >= self.max_game_bytes
                || self.scanner.current_tags() >= MAX_GAME_TAGS)
                && self.window.at_read_boundary();
            // The scanner stops short of the buffer's end only to wait for
            // the rest of a line, at most a tag line away: read on rather
            // than cut a few bytes at a time — unless it waits at the start
            // of a line, where the game can be cut as well as anywhere (a
            // tag section whose reads all end within its lines must not
            // grow without bound).
            let scanned = self.scanner.scanned_to();
            let cuttable = scanned == buffered || self.scanner.waits_at_line_start();
            if oversized && cuttable && scanned > complete {
                return Ok(Some(self.cut(scanned, true)));
            }
            if let Err(err) = self.window.fill() {
                // Hand out what was read, then the error.
                self.pending_error = Some(err);
                self.window.end();
            }
        }
    }

    /// Hands out the window's first `at` bytes as a batch.
    fn cut(&mut self, at: usize, split_current: bool) -> Batch {
        let cut = self
            .scanner
            .hand_out(self.window.bytes(), at, split_current);
        let reserve = self.batch_bytes.min(MAX_RESERVED_BATCH) + READ_BYTES;
        let data = self.window.cut(at, reserve);
        let mut games = cut.games;
        for game in &mut games {
            game.index = self.next_index;
            self.next_index += 1;
        }
        Batch {
            data,
            continuation: cut.continuation,
            games,
            tags: cut.tags,
            first_line: None,
            line_ends: Default::default(),
            first_nul: Default::default(),
        }
    }
}
