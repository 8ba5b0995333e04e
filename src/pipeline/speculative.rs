//! Splitting a mapped file on several threads at once, into exactly the
//! games one splitter reading it front to back finds.
//!
//! When the per-game work is light (`stats`, `tag`), one splitting thread
//! bounds the speed. A mapped file's every byte is at hand, so splitting
//! can start wherever a game certainly begins. The file's *candidates*
//! ([`Candidates`]) are `[Event` lines a stretch apart. A *speculation*, a
//! job on the pool started ahead of need, splits from one candidate up to
//! the next where a new game certainly begins
//! ([`GameReader::end_at_boundaries`]).
//!
//! The [`Chain`] hands out batches in input order. A reader from the start
//! of the file ends at a candidate where a new game certainly begins; from
//! there, the speculation started at that candidate reads exactly what one
//! reader over the whole file would, so its batches come next, and then the
//! batches of the one started where it ended, and so on. A speculation at a
//! candidate the chain has read past is dropped; one that reads far without
//! ending hands its reader to the chain, which reads on with it.
//!
//! In the archives we see, every candidate is a boundary and no work is
//! lost. In odd ones (an archive of tag sections only, `[Event` lines
//! inside one long comment) the chain reads on alone, and what is lost is
//! a few speculations' work.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use memmap2::Mmap;

use super::PipelineConfig;
use super::budget::batch_cost;
use crate::split::{Batch, Candidates, Game, GameReader, MappedWindow, TagSpan};

/// Bytes between candidates, at least: enough to make a speculation's
/// start and end cheap next to its work, few enough to keep every thread
/// busy and the bytes split ahead of the work few.
pub(super) const STRETCH: usize = 1 << 20;

/// The memory a speculation's batches may hold (bytes and records, see
/// [`batch_cost`]), in stretches: the batches of a stretch of the usual
/// archives hold about one and a half.
const SPECULATION_STRETCHES: usize = 3;

/// The most memory that the batches of speculations ahead of the chain may
/// hold, whatever the thread count.
const MAX_SPECULATION_BYTES: usize = 16 << 20;

/// The most memory that emptied record vectors of consumed batches may
/// hold while they wait for a reader (see [`SpareRecords`]).
const MAX_SPARE_BYTES: usize = 4 << 20;

/// A reader over the mapped file.
type MappedReader = GameReader<MappedWindow>;

/// The emptied record vectors of consumed batches, for the readers the
/// chain starts: a speculation reads a stretch or two with a reader of its
/// own, and vectors grown afresh for its every batch cost a page fault
/// every few games.
#[derive(Default)]
struct SpareRecords {
    records: Vec<(Vec<Game>, Vec<TagSpan>)>,
    bytes: usize,
}

impl SpareRecords {
    fn bytes_of(games: &Vec<Game>, tags: &Vec<TagSpan>) -> usize {
        games.capacity() * size_of::<Game>() + tags.capacity() * size_of::<TagSpan>()
    }

    /// Keeps the vectors while they fit within [`MAX_SPARE_BYTES`].
    fn give_back(&mut self, mut games: Vec<Game>, mut tags: Vec<TagSpan>) {
        let bytes = Self::bytes_of(&games, &tags);
        if self.bytes + bytes <= MAX_SPARE_BYTES {
            games.clear();
            tags.clear();
            self.bytes += bytes;
            self.records.push((games, tags));
        }
    }

    fn take(&mut self) -> Option<(Vec<Game>, Vec<TagSpan>)> {
        let (games, tags) = self.records.pop()?;
        self.bytes -= Self::bytes_of(&games, &tags);
        Some((games, tags))
    }
}

/// What a speculation read: its batches, then the reader to go on with
/// (at an end when the speculation reached one).
struct Outcome {
    batches: Vec<Batch>,
    reader: MappedReader,
    error: Option<io::Error>,
}

/// Where a speculation leaves its outcome.
#[derive(Default)]
struct Slot {
    outcome: Mutex<Option<Outcome>>,
    ready: Condvar,
    /// Nobody will take the outcome: the job stops, or does not start.
    cancelled: AtomicBool,
}

/// A speculation handed to the pool.
struct Speculation {
    start: usize,
    slot: Arc<Slot>,
}

impl Drop for Speculation {
    fn drop(&mut self) {
        self.slot.cancelled.store(true, Ordering::Relaxed);
    }
}

/// How readers of one file are set up.
#[derive(Clone)]
struct Readers {
    map: Arc<Mmap>,
    candidates: Candidates,
    config: PipelineConfig,
    spare: Arc<Mutex<SpareRecords>>,
}

impl Readers {
    fn at(&self, start: usize) -> MappedReader {
        // Bytes read are counted by the chain as it hands them out: readers
        // may read the same bytes more than once.
        let uncounted = Arc::new(AtomicU64::new(0));
        let reader = GameReader::from_mapped(Arc::clone(&self.map), start, uncounted);
        let mut reader = self
            .config
            .set_up(reader)
            .end_at_boundaries(self.candidates);
        let spare = self.spare().take();
        if let Some((games, tags)) = spare {
            reader.recycle_records(games, tags);
        }
        reader
    }

    fn spare(&self) -> std::sync::MutexGuard<'_, SpareRecords> {
        self.spare.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A speculation's work: reads from `start` until the reader ends or
    /// its batches hold `limit` bytes of memory (see [`batch_cost`]), and
    /// leaves the outcome in `slot`.
    fn speculate(&self, start: usize, limit: usize, slot: &Slot) {
        if slot.cancelled.load(Ordering::Relaxed) {
            return;
        }
        let mut reader = self.at(start);
        let mut batches = Vec::new();
        let mut error = None;
        let mut read = 0;
        while read < limit && !slot.cancelled.load(Ordering::Relaxed) {
            match reader.next_batch() {
                Ok(Some(batch)) => {
                    // Looked for now, while the bytes just split are in
                    // this processor's cache: the work reads only some.
                    batch.first_nul();
                    read += batch_cost(&batch);
                    batches.push(batch);
                }
                Ok(None) => break,
                Err(err) => {
                    error = Some(err);
                    break;
                }
            }
        }
        let mut outcome = slot.outcome.lock().unwrap_or_else(PoisonError::into_inner);
        *outcome = Some(Outcome {
            batches,
            reader,
            error,
        });
        slot.ready.notify_all();
    }
}

/// The batches of a mapped file in input order, split by speculations on
/// the pool (see the module docs).
pub(super) struct Chain {
    readers: Readers,
    /// Speculations running or waiting ahead of the chain, at most.
    ahead_max: usize,
    /// The memory a speculation's batches may hold before it hands its
    /// reader on.
    speculation_bytes: usize,
    /// Batches of a speculation taken, still to hand out.
    ready: VecDeque<Batch>,
    /// The reader at the chain's end, once `ready` is empty.
    reader: Option<MappedReader>,
    error: Option<io::Error>,
    /// Where the current reader started.
    position: usize,
    /// Games before `position`: the current reader counts from there.
    games_before: u64,
    ahead: VecDeque<Speculation>,
    /// The candidate to speculate from next.
    next_candidate: Option<usize>,
    /// Pages before this have been given back to the kernel.
    released: usize,
    /// Bytes handed out, for progress reports.
    read: Arc<AtomicU64>,
}

impl Chain {
    /// The chain over `map` from `from`, whose batches count into `read`,
    /// with candidates `stretch` bytes apart at least.
    pub(super) fn new(
        map: Arc<Mmap>,
        from: usize,
        read: Arc<AtomicU64>,
        config: PipelineConfig,
        stretch: usize,
    ) -> Self {
        let candidates = Candidates::new(stretch);
        let speculation_bytes = stretch.saturating_mul(SPECULATION_STRETCHES).max(1);
        Chain {
            next_candidate: next_candidate(&map, candidates, from),
            readers: Readers {
                map,
                candidates,
                config,
                spare: Arc::default(),
            },
            ahead_max: (2 * config.threads)
                .min(MAX_SPECULATION_BYTES / speculation_bytes)
                .max(1),
            speculation_bytes,
            ready: VecDeque::new(),
            reader: None,
            error: None,
            position: from,
            games_before: 0,
            ahead: VecDeque::new(),
            released: from,
            read,
        }
    }

    /// The next batch in input order; speculations go to `jobs`.
    pub(super) fn next_batch(&mut self, jobs: &rayon::ScopeFifo<'_>) -> io::Result<Option<Batch>> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Ok(Some(self.hand_out(batch)));
            }
            if let Some(err) = self.error.take() {
                return Err(err);
            }
            if let Some(reader) = &mut self.reader {
                if let Some(batch) = reader.next_batch()? {
                    // Reading on past speculations (in a long comment, say)
                    // makes them useless: let go of what they hold.
                    let read_to = reader.position();
                    while self.ahead.front().is_some_and(|s| s.start < read_to) {
                        self.ahead.pop_front();
                    }
                    return Ok(Some(self.hand_out(batch)));
                }
                self.games_before += reader.games_read();
                self.position = reader.position();
                self.reader = None;
            }
            if self.position >= self.readers.map.len() {
                return Ok(None);
            }
            self.start_reader(jobs);
        }
    }

    /// Gives the pages of a consumed batch back to the kernel, and its
    /// records' vectors to the readers to come.
    pub(super) fn recycle(&mut self, batch: Batch) {
        batch.data.release_pages(&mut self.released);
        self.readers.spare().give_back(batch.games, batch.tags);
    }

    /// Numbers a batch's games within the file.
    fn hand_out(&mut self, mut batch: Batch) -> Batch {
        for game in &mut batch.games {
            game.index += self.games_before;
        }
        self.read
            .fetch_add(batch.data.len() as u64, Ordering::Relaxed);
        batch
    }

    /// Starts reading at `position`: takes the speculation started there,
    /// or reads there itself.
    fn start_reader(&mut self, jobs: &rayon::ScopeFifo<'_>) {
        // Speculations the chain read past are of no use.
        while self.ahead.front().is_some_and(|s| s.start < self.position) {
            self.ahead.pop_front();
        }
        // Speculating goes on after the last speculation (or where the
        // chain is), once the candidate it was to go on from is passed or
        // was too far to look for.
        let last = self.ahead.back().map_or(self.position, |s| s.start);
        if self.next_candidate.is_none_or(|c| c <= last) {
            self.next_candidate = next_candidate(&self.readers.map, self.readers.candidates, last);
        }
        let taken = match self.ahead.front() {
            Some(speculation) if speculation.start == self.position => self.ahead.pop_front(),
            _ => None,
        };
        self.speculate(jobs);
        let reader = match taken {
            Some(speculation) => {
                let outcome = wait_for(&speculation.slot);
                self.ready = outcome.batches.into();
                self.error = outcome.error;
                outcome.reader
            }
            None => self.readers.at(self.position),
        };
        self.reader = Some(reader);
    }

    /// Starts speculations at the next candidates, up to `ahead_max`.
    fn speculate(&mut self, jobs: &rayon::ScopeFifo<'_>) {
        while self.ahead.len() < self.ahead_max {
            let Some(start) = self.next_candidate else {
                return;
            };
            self.next_candidate = next_candidate(&self.readers.map, self.readers.candidates, start);
            let slot = Arc::new(Slot::default());
            let readers = self.readers.clone();
            let limit = self.speculation_bytes;
            let job_slot = Arc::clone(&slot);
            jobs.spawn_fifo(move |_| readers.speculate(start, limit, &job_slot));
            self.ahead.push_back(Speculation { start, slot });
        }
    }
}

/// The candidate after `last` to speculate from, when it is near: the
/// search goes no further than a stretch (64 KiB at least) past where it
/// may begin; when none is there, speculating waits until the chain has
/// moved on. An input without candidates (one endless comment) is then
/// never read far ahead of need, which would bring its pages into memory.
fn next_candidate(map: &Mmap, candidates: Candidates, last: usize) -> Option<usize> {
    let earliest = candidates.earliest_after(last);
    let window = (earliest - last).max(64 << 10);
    candidates.next_before(map, last, earliest, earliest.saturating_add(window))
}

/// Waits for a speculation's outcome, doing pending jobs of the pool
/// meanwhile (other speculations, work on batches).
fn wait_for(slot: &Slot) -> Outcome {
    let lock = || slot.outcome.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some(outcome) = lock().take() {
            return outcome;
        }
        if rayon::yield_now() == Some(rayon::Yield::Executed) {
            continue;
        }
        // Nothing else to do: the speculation is running on another
        // thread, and only this thread adds jobs.
        let mut outcome = slot
            .ready
            .wait_while(lock(), |outcome| outcome.is_none())
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(outcome) = outcome.take() {
            return outcome;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` written to a temporary file and mapped.
    fn mapped(bytes: &[u8]) -> (tempfile::TempDir, Arc<Mmap>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("archive.pgn");
        std::fs::write(&path, bytes).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // SAFETY: the test's own file, which nothing else touches.
        let map = unsafe { Mmap::map(&file) }.unwrap();
        (dir, Arc::new(map))
    }

    fn games(count: usize) -> Vec<u8> {
        (0..count)
            .flat_map(|i| {
                format!("[Event \"{i}\"]\n[Site \"s\"]\n\n1. e4 e5 2. Nf3 1-0\n\n").into_bytes()
            })
            .collect()
    }

    fn readers(map: &Arc<Mmap>, stretch: usize) -> Readers {
        Readers {
            map: Arc::clone(map),
            candidates: Candidates::new(stretch),
            config: PipelineConfig {
                threads: 2,
                batch_bytes: 1024,
                line_numbers: false,
            },
            spare: Arc::default(),
        }
    }

    #[test]
    fn spare_records_hold_4_mib_at_most_and_come_back_empty() {
        let mut spare = SpareRecords::default();
        let tags = || {
            let mut tags = Vec::with_capacity((1 << 20) / size_of::<TagSpan>());
            tags.push(TagSpan {
                name: 0..1,
                value: 2..3,
                well_formed: true,
                end: 4,
            });
            tags
        };
        for _ in 0..10 {
            spare.give_back(Vec::new(), tags());
        }
        let mut bytes = 0;
        let mut taken = 0;
        while let Some((games, tags)) = spare.take() {
            assert!(games.is_empty() && tags.is_empty());
            bytes += tags.capacity() * size_of::<TagSpan>();
            taken += 1;
        }
        assert_eq!(taken, 4);
        assert!(bytes <= MAX_SPARE_BYTES);
        assert_eq!(spare.bytes, 0);
    }

    #[test]
    fn speculations_ahead_hold_16_mib_at_most_whatever_the_thread_count() {
        let (_dir, map) = mapped(&games(10));
        for threads in [1, 2, 8, 64, 1024] {
            for stretch in [1, 4096, STRETCH, 8 << 20, usize::MAX] {
                let config = PipelineConfig {
                    threads,
                    ..PipelineConfig::default()
                };
                let read = Arc::new(AtomicU64::new(0));
                let chain = Chain::new(Arc::clone(&map), 0, read, config, stretch);
                assert!(chain.ahead_max >= 1, "{threads} threads, stretch {stretch}");
                assert!(chain.ahead_max <= 2 * threads);
                // One speculation may be larger than the cap, alone.
                assert!(
                    chain.ahead_max == 1
                        || chain.ahead_max * chain.speculation_bytes <= MAX_SPECULATION_BYTES,
                    "{threads} threads, stretch {stretch}: {} of {} bytes",
                    chain.ahead_max,
                    chain.speculation_bytes
                );
            }
        }
    }

    #[test]
    fn no_candidate_is_looked_for_beyond_a_stretch_and_64_kib() {
        // A comment of 200 KiB with an `[Event` line 150 KiB in.
        let mut bytes = b"[Event \"a\"]\n\n1. e4 {".to_vec();
        bytes.resize(150 << 10, b'x');
        let candidate = bytes.len() + 1;
        bytes.extend_from_slice(b"\n[Event \"b\"]\n");
        bytes.resize(200 << 10, b'y');
        bytes.extend_from_slice(b"} *\n");
        let (_dir, map) = mapped(&bytes);
        let near = Candidates::new(1);
        assert_eq!(
            next_candidate(&map, near, 0),
            None,
            "too far from the start"
        );
        assert_eq!(next_candidate(&map, near, 100 << 10), Some(candidate));
        // A long stretch looks as far as the stretch again.
        let far = Candidates::new(100 << 10);
        assert_eq!(next_candidate(&map, far, 0), Some(candidate));
        assert_eq!(next_candidate(&map, far, candidate), None, "none after it");
    }

    #[test]
    fn a_cancelled_speculation_reads_nothing() {
        let (_dir, map) = mapped(&games(100));
        let slot = Slot::default();
        slot.cancelled.store(true, Ordering::Relaxed);
        readers(&map, 1).speculate(0, usize::MAX, &slot);
        assert!(slot.outcome.lock().unwrap().is_none());
    }

    /// A speculation that reaches its memory limit stops there, and its
    /// reader reads on to the boundary it would have reached: together,
    /// the bytes from its candidate to the next one, once.
    #[test]
    fn a_speculation_at_its_limit_hands_on_a_reader_that_reads_on() {
        let bytes = games(2000);
        let (_dir, map) = mapped(&bytes);
        let stretch = bytes.len() / 3;
        let readers = readers(&map, stretch);
        let start = next_candidate(&map, readers.candidates, 0).expect("a candidate");
        let end = next_candidate(&map, readers.candidates, start).expect("another");
        let slot = Slot::default();
        readers.speculate(start, 4096, &slot);
        let Outcome {
            batches,
            mut reader,
            error,
        } = slot.outcome.lock().unwrap().take().expect("an outcome");
        assert!(error.is_none());
        let cost: usize = batches.iter().map(batch_cost).sum();
        assert!(cost >= 4096, "stopped early, at {cost} bytes");
        assert!(
            batches.len() < 20,
            "read past its limit: {} batches",
            batches.len()
        );
        let mut read: Vec<u8> = batches.iter().flat_map(|b| b.data.to_vec()).collect();
        while let Some(batch) = reader.next_batch().unwrap() {
            read.extend_from_slice(&batch.data);
        }
        assert!(
            read == bytes[start..end],
            "{} bytes, not {}",
            read.len(),
            end - start
        );
    }
}
