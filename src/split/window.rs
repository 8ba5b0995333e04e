//! The bytes a [`GameReader`](super::GameReader) has read and not yet
//! handed out: its window onto the input.
//!
//! Two kinds, one trait: a [`StreamWindow`] copies a stream's bytes into
//! a buffer of its own (and hands that buffer out as a batch, reusing the
//! ones that come back), while a [`MappedWindow`] is a range of a file
//! mapped into memory, handed out without a copy and given back to the
//! kernel page by page once done with. A mapped window may also be told
//! to stop at places where another reader takes over ([`Stops`]): that is
//! how the pipeline splits one file on several threads at once.

use std::io::{self, BufRead};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::Mmap;

use super::Candidates;
use super::types::BatchData;

/// Bytes read from the source per call.
pub(super) const READ_BYTES: usize = 1 << 20;

/// The reader's view of its input.
pub trait Window {
    /// The bytes read and not yet handed out.
    fn bytes(&self) -> &[u8];

    /// Reads more (about `READ_BYTES`), or up to the next stop.
    ///
    /// # Errors
    ///
    /// The source's error; the bytes read before it stay in the window.
    fn fill(&mut self) -> io::Result<()>;

    /// Whether the input has no more bytes than the window holds.
    fn at_eof(&self) -> bool;

    /// Marks the input as ended (after a read error).
    fn end(&mut self);

    /// Whether the bytes read end where every reader of this input fills
    /// up to, so that decisions taken there (a game too long to hold) never
    /// depend on where a reader started.
    fn at_read_boundary(&self) -> bool;

    /// The stop at which the bytes read end, if they end at one (see
    /// `Stops`).
    fn at_stop(&self) -> Option<usize> {
        None
    }

    /// Reads on past the stop `stop`, where no game certainly begins.
    fn pass_stop(&mut self, _stop: usize) {}

    /// Hands out the first `at` bytes as a batch's bytes; `reserve` is how
    /// much room the window keeps for what follows.
    fn cut(&mut self, at: usize, reserve: usize) -> BatchData;

    /// Takes back the bytes of a batch that is done with.
    fn recycle(&mut self, data: BatchData);
}

/// A window over a stream, which buffers itself: bytes are copied from its
/// buffer into the window's.
pub struct StreamWindow<B> {
    source: B,
    buf: Vec<u8>,
    eof: bool,
    /// Buffers handed back, to be reused: fresh memory costs the kernel a
    /// page fault and a zeroed page for every 4 KiB.
    spare: Vec<Vec<u8>>,
    /// The room asked for at the last cut: buffers much larger are not kept.
    reserve: usize,
}

impl<B: BufRead> StreamWindow<B> {
    /// A window over `source`.
    pub fn new(source: B) -> Self {
        StreamWindow {
            source,
            buf: Vec::with_capacity(READ_BYTES * 2),
            eof: false,
            spare: Vec::new(),
            reserve: READ_BYTES,
        }
    }
}

impl<B: BufRead> Window for StreamWindow<B> {
    fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Copies up to `READ_BYTES` from the source's buffer (which is
    /// reused, so nothing is zero-filled per read).
    fn fill(&mut self) -> io::Result<()> {
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
            self.buf.extend_from_slice(&chunk[..read]);
            self.source.consume(read);
            total += read;
        }
        Ok(())
    }

    fn at_eof(&self) -> bool {
        self.eof
    }

    fn end(&mut self) {
        self.eof = true;
    }

    fn at_read_boundary(&self) -> bool {
        true // a stream is read by one reader only
    }

    fn cut(&mut self, at: usize, reserve: usize) -> BatchData {
        // The unfinished game moves to a fresh buffer; the finished bytes
        // leave as the batch without being copied.
        self.reserve = reserve;
        let wanted = (self.buf.len() - at + READ_BYTES).max(reserve);
        let mut rest = match self.spare.pop() {
            Some(mut spare) => {
                spare.reserve(wanted);
                spare
            }
            None => Vec::with_capacity(wanted),
        };
        rest.extend_from_slice(&self.buf[at..]);
        self.buf.truncate(at);
        BatchData::from(std::mem::replace(&mut self.buf, rest))
    }

    /// Keeps at most two buffers, and none much larger than a batch.
    fn recycle(&mut self, data: BatchData) {
        if let Some(mut buffer) = data.into_owned_buffer()
            && self.spare.len() < 2
            && buffer.capacity() <= self.reserve.saturating_mul(2)
        {
            buffer.clear();
            self.spare.push(buffer);
        }
    }
}

/// A window onto a file mapped into memory: `start..end` of the map.
pub struct MappedWindow {
    map: Arc<Mmap>,
    start: usize,
    end: usize,
    /// Pages before this have been given back to the kernel.
    released: usize,
    /// Bytes of the file read, for progress reports.
    read: Arc<AtomicU64>,
    stops: Option<Stops>,
}

impl MappedWindow {
    /// A window onto `map` from `from`; `read` counts the bytes read.
    pub(crate) fn new(map: Arc<Mmap>, from: usize, read: Arc<AtomicU64>) -> Self {
        MappedWindow {
            map,
            start: from,
            end: from,
            released: from,
            read,
            stops: None,
        }
    }

    /// Makes the window stop at each of `candidates` past where it starts,
    /// so that its reader can end there when a new game certainly begins
    /// (see [`GameReader::end_at_boundaries`](super::GameReader::end_at_boundaries)).
    pub(crate) fn stopping_at(mut self, candidates: Candidates) -> Self {
        self.stops = Some(Stops {
            candidates,
            last: self.start,
            next: None,
            searched_to: self.start,
        });
        self
    }

    /// Where in the file the bytes not yet handed out start: once the
    /// reader has ended, where reading ended.
    pub(crate) fn position(&self) -> usize {
        self.start
    }
}

impl Window for MappedWindow {
    fn bytes(&self) -> &[u8] {
        &self.map[self.start..self.end]
    }

    /// Widens the window up to the next multiple of `READ_BYTES` into the
    /// file (see [`Window::at_read_boundary`]), but never past the next
    /// stop: whether reading ends there is decided first.
    fn fill(&mut self) -> io::Result<()> {
        let mut limit = ((self.end / READ_BYTES + 1) * READ_BYTES).min(self.map.len());
        if let Some(stops) = &mut self.stops {
            limit = limit.min(stops.next_before(&self.map, limit).unwrap_or(limit));
        }
        let more = limit - self.end;
        // One call maps the pages of the whole read, rather than a page
        // fault every few pages. Only a hint: the pages are mapped on
        // first touch anyway.
        #[cfg(target_os = "linux")]
        let _ = self
            .map
            .advise_range(memmap2::Advice::PopulateRead, self.end, more);
        self.end += more;
        self.read.fetch_add(more as u64, Ordering::Relaxed);
        Ok(())
    }

    fn at_eof(&self) -> bool {
        self.end == self.map.len()
    }

    fn end(&mut self) {
        // A map cannot fail to read; nothing to mark.
    }

    fn at_read_boundary(&self) -> bool {
        self.end.is_multiple_of(READ_BYTES)
    }

    fn at_stop(&self) -> Option<usize> {
        let next = self.stops.as_ref()?.next?;
        (self.end == next).then_some(next)
    }

    fn pass_stop(&mut self, stop: usize) {
        if let Some(stops) = &mut self.stops {
            stops.last = stop;
            stops.next = None;
            stops.searched_to = stop;
        }
    }

    fn cut(&mut self, at: usize, _reserve: usize) -> BatchData {
        let range = self.start..self.start + at;
        self.start += at;
        BatchData::mapped(&self.map, range)
    }

    /// The bytes of a batch from the map are not copied: once the batch is
    /// done with, its pages are given back to the kernel, so that the
    /// mapped file never adds more than the batches in flight to the
    /// memory in use.
    fn recycle(&mut self, data: BatchData) {
        data.release_pages(&mut self.released);
    }
}

/// The candidates at which a mapped window stops, so that its reader can
/// end at the first where a new game certainly begins.
#[derive(Clone, Copy, Debug)]
pub struct Stops {
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

impl Stops {
    /// The next candidate, searched for as far as `limit`.
    fn next_before(&mut self, map: &Mmap, limit: usize) -> Option<usize> {
        if self.next.is_none() {
            self.next = self
                .candidates
                .next_before(map, self.last, self.searched_to, limit);
            self.searched_to = limit;
        }
        self.next
    }
}
