//! Splitter, parallel workers, ordered consumer: the one way every archive
//! command walks its input.
//!
//! A plain file is mapped into memory and its batches are stretches of the
//! map, never copied; any other input (standard input, a pipe, a
//! compressed file) is read, and decompressed, a few chunks ahead on a
//! thread of its own. One thread splits the bytes into [`Batch`]es of
//! whole games; a rayon pool does the per-game work on whole batches. The
//! splitting thread is a worker of that pool: when the work falls behind,
//! it helps rather than waits, so `--threads N` puts N cores to use
//! whichever side is the slower. A mapped file is also split by jobs of
//! the pool, from places where a game certainly begins, ahead of the
//! splitting thread, which then only hands their batches on in order
//! (module `speculative`); a stream can only be split front to back. The
//! calling thread receives the results and re-sequences them, so output
//! never depends on the thread count or on timing. The bytes of batches in
//! flight are bounded (at most 32 MiB, whatever the thread count, and
//! 16 MiB more for batches split ahead of need), which bounds memory
//! whatever the input.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Read};
use std::sync::{Condvar, Mutex, mpsc};

use crate::input::Reader;
use crate::split::{Batch, BatchData, GameReader};

mod speculative;
use speculative::Chain;

/// How a pipeline runs.
#[derive(Clone, Copy, Debug)]
pub struct PipelineConfig {
    /// Threads of the pool that does the per-batch work; the splitting
    /// runs on one of them, which helps with the work when it is ahead.
    /// Defaults to the number of cores.
    pub threads: usize,
    /// Bytes of whole games per batch. Defaults to 1 MiB.
    pub batch_bytes: usize,
    /// Whether games get line numbers (see [`GameReader::line_numbers`]).
    /// Defaults to on.
    pub line_numbers: bool,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            batch_bytes: 1 << 20,
            line_numbers: true,
        }
    }
}

impl PipelineConfig {
    /// `games` with this batch size and line numbering.
    fn set_up<B: BufRead>(self, games: GameReader<B>) -> GameReader<B> {
        games
            .batch_bytes(self.batch_bytes)
            .line_numbers(self.line_numbers)
    }
}

/// Runs `work` on every batch of `source` in parallel and hands each batch
/// with its result to `consume`, in input order, on the calling thread.
///
/// Stops early when `consume` fails (a broken pipe, a full disk): the
/// reader is told to stop and no further batch is consumed.
///
/// # Errors
///
/// [`PipelineError::Consume`] with the first error of `consume`, else
/// [`PipelineError::Read`] with a read error of `source` (the batches
/// before it have been consumed).
///
/// # Example
///
/// ```
/// use pgn960::pipeline::{run, PipelineConfig};
///
/// let pgn = b"[Event \"a\"]\n*\n\n[Event \"b\"]\n*\n";
/// let mut games = 0;
/// run(&pgn[..], PipelineConfig::default(), |batch| batch.games.len(), |_batch, n| {
///     games += n;
///     Ok::<_, std::convert::Infallible>(())
/// })
/// .expect("reading from memory cannot fail");
/// assert_eq!(games, 2);
/// ```
pub fn run<R, T, E, W, C>(
    source: R,
    config: PipelineConfig,
    work: W,
    consume: C,
) -> Result<(), PipelineError<E>>
where
    R: Read + Send,
    T: Send,
    W: Fn(&Batch) -> T + Sync,
    C: FnMut(&Batch, T) -> Result<(), E>,
{
    std::thread::scope(|scope| {
        let chunks = read_ahead(scope, source);
        let games = config.set_up(GameReader::from_buf_read(chunks));
        run_games(games, config, work, consume)
    })
}

/// As [`run`], for an opened input: a mapped file is split straight from
/// memory, its batches stretches of the map rather than copies, without a
/// read-ahead thread, and (with two threads or more, when it is longer
/// than 2 MiB) on several threads at once; a stream is read ahead.
///
/// # Errors
///
/// As [`run`].
pub fn run_reader<T, E, W, C>(
    reader: Reader,
    config: PipelineConfig,
    work: W,
    consume: C,
) -> Result<(), PipelineError<E>>
where
    T: Send,
    W: Fn(&Batch) -> T + Sync,
    C: FnMut(&Batch, T) -> Result<(), E>,
{
    run_reader_split_every(reader, config, speculative::STRETCH, work, consume)
}

/// As [`run_reader`], with a mapped file split on several threads at once
/// from `[Event` lines at least `stretch` bytes apart (rather than 1 MiB),
/// when there are several threads and the file is at least two stretches
/// long. For tests and fuzzing: small inputs need a small stretch to be
/// split that way at all.
///
/// # Errors
///
/// As [`run`].
#[doc(hidden)]
pub fn run_reader_split_every<T, E, W, C>(
    reader: Reader,
    config: PipelineConfig,
    stretch: usize,
    work: W,
    consume: C,
) -> Result<(), PipelineError<E>>
where
    T: Send,
    W: Fn(&Batch) -> T + Sync,
    C: FnMut(&Batch, T) -> Result<(), E>,
{
    let mapped = match reader {
        Reader::Mapped(mapped) => mapped,
        Reader::Stream(stream) => return run(stream, config, work, consume),
    };
    let (map, at, read) = mapped.into_parts();
    if config.threads >= 2 && map.len() - at >= stretch.saturating_mul(2) {
        let chain = Chain::new(map, at, read, config, stretch);
        run_games(chain, config, work, consume)
    } else {
        let games = config.set_up(GameReader::from_mapped(map, at, read));
        run_games(games, config, work, consume)
    }
}

/// Where the splitting thread takes batches from.
trait BatchSource: Send {
    /// The next batch in input order; jobs of its own go to `jobs`.
    fn next_batch(&mut self, jobs: &rayon::ScopeFifo<'_>) -> io::Result<Option<Batch>>;

    /// Takes back the bytes of a consumed batch.
    fn recycle(&mut self, data: BatchData);
}

impl<B: BufRead + Send> BatchSource for GameReader<B> {
    fn next_batch(&mut self, _: &rayon::ScopeFifo<'_>) -> io::Result<Option<Batch>> {
        GameReader::next_batch(self)
    }

    fn recycle(&mut self, data: BatchData) {
        GameReader::recycle(self, data);
    }
}

impl BatchSource for Chain {
    fn next_batch(&mut self, jobs: &rayon::ScopeFifo<'_>) -> io::Result<Option<Batch>> {
        Chain::next_batch(self, jobs)
    }

    fn recycle(&mut self, data: BatchData) {
        Chain::recycle(self, data);
    }
}

/// As [`run`], with the batches of `games`: a [`GameReader`] set up by
/// [`PipelineConfig::set_up`], or a [`Chain`].
fn run_games<S, T, E, W, C>(
    mut games: S,
    config: PipelineConfig,
    work: W,
    mut consume: C,
) -> Result<(), PipelineError<E>>
where
    S: BatchSource,
    T: Send,
    W: Fn(&Batch) -> T + Sync,
    C: FnMut(&Batch, T) -> Result<(), E>,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads.max(1))
        .thread_name(|i| format!("pgn960-worker-{i}"))
        .build()
        .map_err(|err| PipelineError::Read(io::Error::other(err)))?;
    let budget = &Budget::new(
        // A batch's buffer has room for a read beyond its bytes: about
        // twice `batch_bytes` a batch.
        (config.threads.max(1) * 2 + 2)
            .saturating_mul(config.batch_bytes.saturating_mul(2))
            .min(MAX_BYTES_IN_FLIGHT),
    );
    let work = &work;

    std::thread::scope(|scope| {
        let (result_tx, result_rx) = mpsc::channel::<(u64, Batch, T)>();
        // Consumed batches' bytes go back to the splitter: reusing buffers
        // spares the kernel zeroing fresh pages for every batch, and the
        // pages of a mapped file go back to the kernel.
        let (spare_tx, spare_rx) = mpsc::channel::<BatchData>();
        // This thread waits while a worker of the pool splits: that worker
        // then helps with the work whenever the budget holds it back. Jobs
        // run oldest first, the order the consumer needs them in.
        let splitter = std::thread::Builder::new()
            .name("pgn960-split".into())
            .spawn_scoped(scope, move || -> io::Result<()> {
                pool.scope_fifo(move |jobs| {
                    let mut seq = 0u64;
                    loop {
                        while let Ok(buffer) = spare_rx.try_recv() {
                            games.recycle(buffer);
                        }
                        let Some(batch) = games.next_batch(jobs)? else {
                            return Ok(());
                        };
                        // Given back once the batch has been consumed.
                        if !budget.take(batch_cost(&batch)) {
                            return Ok(()); // the consumer has stopped
                        }
                        let tx = result_tx.clone();
                        jobs.spawn_fifo(move |_| {
                            let result = work(&batch);
                            let _ = tx.send((seq, batch, result));
                        });
                        seq += 1;
                    }
                })
            })
            .map_err(PipelineError::Read)?;

        let consumed = consume_in_order(result_rx, budget, &spare_tx, &mut consume);
        budget.close();
        let read = splitter.join().expect("the splitter thread does not panic");
        consumed
            .map_err(PipelineError::Consume)
            .and(read.map_err(PipelineError::Read))
    })
}

/// Bytes per read-ahead chunk.
const CHUNK_BYTES: usize = 64 << 10;

/// Chunks read ahead of the splitter.
const CHUNKS_AHEAD: usize = 4;

/// Reads `source` on its own thread, a few chunks ahead: decompression (or
/// the kernel's copy) then overlaps with splitting instead of adding to it.
fn read_ahead<'scope, R: Read + Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    mut source: R,
) -> ChunkReader {
    let (chunk_tx, chunk_rx) = mpsc::sync_channel::<io::Result<(Vec<u8>, usize)>>(CHUNKS_AHEAD);
    let (spare_tx, spare_rx) = mpsc::sync_channel::<Vec<u8>>(CHUNKS_AHEAD + 2);
    let spawned = std::thread::Builder::new()
        .name("pgn960-read".into())
        .spawn_scoped(scope, move || {
            loop {
                // Chunks come back to be refilled, so none is zeroed twice.
                let mut chunk = spare_rx.try_recv().unwrap_or_else(|_| vec![0; CHUNK_BYTES]);
                let mut filled = 0;
                let result = loop {
                    match source.read(&mut chunk[filled..]) {
                        Ok(0) => break Ok(()),
                        Ok(n) => {
                            filled += n;
                            if filled == chunk.len() {
                                break Ok(());
                            }
                        }
                        Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                        Err(err) => break Err(err),
                    }
                };
                let end = filled < chunk.len();
                if filled > 0 && chunk_tx.send(Ok((chunk, filled))).is_err() {
                    return; // the splitter has stopped
                }
                if let Err(err) = result {
                    let _ = chunk_tx.send(Err(err));
                    return;
                }
                if end {
                    return;
                }
            }
        });
    // As `Scope::spawn` does: without a thread, nothing can go on.
    spawned.expect("the system starts a thread");
    ChunkReader {
        chunks: chunk_rx,
        spare: spare_tx,
        current: Vec::new(),
        at: 0,
        len: 0,
    }
}

/// The splitter's side of [`read_ahead`].
struct ChunkReader {
    chunks: mpsc::Receiver<io::Result<(Vec<u8>, usize)>>,
    spare: mpsc::SyncSender<Vec<u8>>,
    current: Vec<u8>,
    at: usize,
    len: usize,
}

impl Read for ChunkReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.read(out)?;
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ChunkReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.at == self.len {
            let used = std::mem::take(&mut self.current);
            if !used.is_empty() {
                let _ = self.spare.try_send(used);
            }
            match self.chunks.recv() {
                Ok(Ok((chunk, len))) => {
                    self.current = chunk;
                    self.at = 0;
                    self.len = len;
                }
                Ok(Err(err)) => return Err(err),
                Err(_) => return Ok(&[]), // the reader is done
            }
        }
        Ok(&self.current[self.at..self.len])
    }

    fn consume(&mut self, amount: usize) {
        self.at = (self.at + amount).min(self.len);
    }
}

fn consume_in_order<T, E>(
    results: mpsc::Receiver<(u64, Batch, T)>,
    budget: &Budget,
    spare: &mpsc::Sender<BatchData>,
    consume: &mut impl FnMut(&Batch, T) -> Result<(), E>,
) -> Result<(), E> {
    let mut pending = BTreeMap::new();
    let mut next = 0u64;
    for (seq, batch, result) in results {
        pending.insert(seq, (batch, result));
        while let Some((batch, result)) = pending.remove(&next) {
            let cost = batch_cost(&batch);
            consume(&batch, result)?;
            let _ = spare.send(batch.data);
            budget.give_back(cost);
            next += 1;
        }
    }
    Ok(())
}

/// The most memory that batches in flight may hold, whatever the thread
/// count: the bound on memory must not grow with the machine.
const MAX_BYTES_IN_FLIGHT: usize = 32 << 20;

/// What a batch holds in memory: its bytes and its tag and game records.
fn batch_cost(batch: &Batch) -> usize {
    batch.data.cost()
        + batch.tags.capacity() * std::mem::size_of::<crate::split::TagSpan>()
        + batch.games.capacity() * std::mem::size_of::<crate::split::Game>()
}

/// Bytes of batches in flight, between the splitter and the consumer.
///
/// Counting bytes rather than batches keeps memory bounded when the
/// batches are 16 MiB pieces of an endless game rather than 1 MiB of
/// ordinary games. One batch larger than the whole budget still passes,
/// alone, so nothing can wait forever.
struct Budget {
    limit: usize,
    state: Mutex<BudgetState>,
    changed: Condvar,
}

struct BudgetState {
    used: usize,
    closed: bool,
}

impl Budget {
    fn new(limit: usize) -> Self {
        Budget {
            limit,
            state: Mutex::new(BudgetState {
                used: 0,
                closed: false,
            }),
            changed: Condvar::new(),
        }
    }

    /// Waits until `cost` fits and takes it; `false` once closed. While
    /// it waits, the calling thread (a worker of the pool) does pending
    /// work of the pool: when the workers are behind, the splitting
    /// thread helps them instead of idling.
    fn take(&self, cost: usize) -> bool {
        let lock = || {
            self.state
                .lock()
                .expect("no thread panics holding the budget")
        };
        let fits = |state: &BudgetState| {
            state.closed || state.used == 0 || state.used + cost <= self.limit
        };
        loop {
            let mut state = lock();
            if fits(&state) {
                state.used += cost;
                return !state.closed;
            }
            drop(state);
            if rayon::yield_now() == Some(rayon::Yield::Executed) {
                continue;
            }
            // Nothing to help with: every job in flight is being worked on,
            // and the consumer gives bytes back as they finish.
            let state = lock();
            if !fits(&state) {
                drop(
                    self.changed
                        .wait(state)
                        .expect("no thread panics holding the budget"),
                );
            }
        }
    }

    fn give_back(&self, cost: usize) {
        let mut state = self
            .state
            .lock()
            .expect("no thread panics holding the budget");
        state.used -= cost;
        self.changed.notify_all();
    }

    /// The consumer has stopped: nothing more is taken.
    fn close(&self) {
        let mut state = self
            .state
            .lock()
            .expect("no thread panics holding the budget");
        state.closed = true;
        self.changed.notify_all();
    }
}

/// Why a pipeline stopped.
#[derive(Debug)]
pub enum PipelineError<E> {
    /// The input could not be read (or decompressed).
    Read(io::Error),
    /// The consumer failed (for example, writing the output).
    Consume(E),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive(games: usize) -> Vec<u8> {
        (0..games)
            .flat_map(|i| {
                format!(
                    "[Event \"{i}\"]\n\n1. e4 {{ {} }} *\n\n",
                    "x".repeat(i % 97)
                )
                .into_bytes()
            })
            .collect()
    }

    #[test]
    fn order_and_content_do_not_depend_on_threads() {
        let input = archive(5000);
        for threads in [1, 2, 7] {
            let config = PipelineConfig {
                threads,
                batch_bytes: 4096,
                ..PipelineConfig::default()
            };
            let mut out = Vec::new();
            let mut indices = Vec::new();
            run(
                &input[..],
                config,
                |batch| batch.games.iter().map(|g| g.index).collect::<Vec<_>>(),
                |batch, idx| {
                    out.extend_from_slice(&batch.data);
                    indices.extend(idx);
                    Ok::<_, ()>(())
                },
            )
            .unwrap();
            assert_eq!(out, input);
            assert_eq!(indices, (1..=5000).collect::<Vec<u64>>());
        }
    }

    #[test]
    fn a_mapped_file_gives_the_games_a_stream_gives() {
        let input = archive(5000);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        std::fs::write(&path, &input).unwrap();
        let games_of = |reader: Reader, threads| {
            let config = PipelineConfig {
                threads,
                batch_bytes: 4096,
                ..PipelineConfig::default()
            };
            views_of(reader, config, speculative::STRETCH, &input)
        };
        let open = || {
            let source = crate::input::Source::Path(path.clone());
            // SAFETY: the test's own file, which nothing else touches.
            crate::input::open(&source, unsafe { crate::input::MmapChoice::auto() }).unwrap()
        };
        let mapped = open();
        assert!(matches!(mapped.reader, Reader::Mapped(_)));
        let streamed = Reader::Stream(Box::new(std::io::Cursor::new(input.clone())));
        let expected = games_of(streamed, 2);
        assert_eq!(expected.len(), 5000);
        assert_eq!(games_of(mapped.reader, 2), expected);
        assert_eq!(games_of(open().reader, 1), expected);
        assert_eq!(games_of(open().reader, 7), expected);
    }

    /// What a game is to a command: everything the splitter says of it,
    /// with offsets taken from the game's start.
    type GameView = (
        u64,
        u64,
        Vec<u8>,
        Vec<(Vec<u8>, Vec<u8>, bool, usize)>,
        String,
    );

    fn view(batch: &Batch) -> Vec<GameView> {
        let games = batch.games.iter();
        games
            .map(|g| {
                let from_start = |at: usize| at - g.range.start;
                let tags = batch.tags_of(g).iter();
                let tags = tags.map(|t| {
                    let value = batch.raw_value(t).to_vec();
                    (
                        batch.name(t).to_vec(),
                        value,
                        t.well_formed,
                        from_start(t.end),
                    )
                });
                let facts = format!(
                    "{:?} {:?} {} {} {}",
                    g.insert_at.map(from_start),
                    g.line_ending,
                    g.continued,
                    g.cut_off,
                    g.at_end
                );
                (
                    g.index,
                    g.line,
                    batch.bytes(g).to_vec(),
                    tags.collect(),
                    facts,
                )
            })
            .collect()
    }

    /// Every game of `reader` as [`view`] sees it (a mapped file split
    /// from `[Event` lines `stretch` apart), checking that the batches'
    /// bytes are `input`.
    fn views_of(
        reader: Reader,
        config: PipelineConfig,
        stretch: usize,
        input: &[u8],
    ) -> Vec<GameView> {
        let mut games = Vec::new();
        let mut bytes = Vec::new();
        run_reader_split_every(reader, config, stretch, view, |batch, views| {
            bytes.extend_from_slice(&batch.data);
            games.extend(views);
            Ok::<_, ()>(())
        })
        .unwrap();
        assert_eq!(bytes, input);
        games
    }

    /// Pieces of archives, among them every kind of `[Event` line that
    /// does not begin a game where it stands.
    const PIECES: &[&str] = &[
        "[Event \"a\"]\n[Site \"b\"]\n\n1. e4 e5 { [%clk 0:01:00] } 1-0\n\n",
        "[Event \"crlf\"]\r\n[Result \"*\"]\r\n\r\n1. d4 *\r\n\r\n",
        "[Event \"cr\"]\r[Site \"x\"]\r\r1. c4 *\r\r",
        "[Event \"comment\"]\n\n1. e4 { a comment\n[Event \"inside\"]\n} 1/2-1/2\n\n",
        "[Event \"open comment\"]\n\n1. e4 { left open\n",
        "}\n",
        "[Event \"tags only\"]\n[Site \"s\"]\n\n",
        "[Event \"tags, no blank line\"]\n",
        "; a line comment\n",
        "%escape line\n",
        "1-0 [Event \"after a result\"]\n*\n",
        "  [Event \"indented\"]\n*\n",
        "[Event \"broken\n",
        "[Event x]\n*\n",
        "\n\n",
        "1. Nf3 Nf6 2. g3 g6 3. Bg2 Bg7 4. O-O O-O\n",
        "\u{feff}",
    ];

    fn tricky_archive(seed: u64, pieces: usize) -> Vec<u8> {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut archive = Vec::new();
        for _ in 0..pieces {
            archive.extend_from_slice(PIECES[rng.random_range(0..PIECES.len())].as_bytes());
        }
        archive
    }

    #[test]
    fn splitting_a_file_on_several_threads_finds_the_games_one_splitter_finds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        for seed in 0..40 {
            let input = tricky_archive(seed, 400);
            std::fs::write(&path, &input).unwrap();
            for line_numbers in [true, false] {
                let games_of = |reader: Reader, threads, stretch| {
                    let config = PipelineConfig {
                        threads,
                        batch_bytes: 512,
                        line_numbers,
                    };
                    views_of(reader, config, stretch, &input)
                };
                let streamed = Reader::Stream(Box::new(std::io::Cursor::new(input.clone())));
                let expected = games_of(streamed, 1, usize::MAX);
                for (threads, stretch) in [(2, 1), (2, 97), (3, 1000), (2, 4000)] {
                    let source = crate::input::Source::Path(path.clone());
                    // SAFETY: the test's own file, which nothing else touches.
                    let mmap = unsafe { crate::input::MmapChoice::auto() };
                    let opened = crate::input::open(&source, mmap);
                    let reader = opened.unwrap().reader;
                    assert!(matches!(reader, Reader::Mapped(_)));
                    assert!(
                        games_of(reader, threads, stretch) == expected,
                        "seed {seed}, {threads} threads, stretch {stretch}, lines {line_numbers}"
                    );
                }
            }
        }
    }

    #[test]
    fn consumer_error_stops_the_run() {
        let input = archive(5000);
        let config = PipelineConfig {
            threads: 2,
            batch_bytes: 1024,
            ..PipelineConfig::default()
        };
        let mut calls = 0;
        let err = run(
            &input[..],
            config,
            |_| (),
            |_, ()| {
                calls += 1;
                Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"))
            },
        )
        .unwrap_err();
        let PipelineError::Consume(err) = err else {
            panic!("expected the consumer's error")
        };
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(calls, 1);
    }
}
