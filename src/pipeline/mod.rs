//! Splitter, parallel workers, ordered consumer: the one way every archive
//! command walks its input.
//!
//! A plain file is mapped into memory and its batches are stretches of the
//! map, never copied; any other input (standard input, a pipe, a
//! compressed file) is read, and decompressed, a few chunks ahead on a
//! thread of its own (`read_ahead`). One thread splits the bytes into
//! [`Batch`]es of whole games; a rayon pool does the per-game work on
//! whole batches. The splitting thread is a worker of that pool: when the
//! work falls behind, it helps rather than waits, so `--threads N` puts N
//! cores to use whichever side is the slower. A mapped file is also split
//! by jobs of the pool, from places where a game certainly begins, ahead
//! of the splitting thread, which then only hands their batches on in
//! order (`speculative`); a stream can only be split front to back. The
//! calling thread receives the results, re-sequences them, and (when asked)
//! tells each batch on which line it begins (`lines`), so output never
//! depends on the thread count or on timing. The bytes of batches in
//! flight are bounded (`budget`: at most 24 MiB, whatever the thread
//! count, and 16 MiB more for batches split ahead of need), which bounds
//! memory whatever the input. A panic in the work on a batch ends the run
//! with [`PipelineError::Panic`] rather than leaving it waiting for that
//! batch forever; one in the consumer goes on up, once the splitter has
//! been told to stop. When the consumer stops (its output failed), a
//! stream's reading thread is not waited for: the run ends at once, even
//! on a pipe that stays open with nothing to read.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;

use crate::input::Reader;
use crate::split::{Batch, GameReader, Window};

mod budget;
mod footprint;
mod lines;
mod read_ahead;
mod speculative;

use budget::{Budget, MAX_BYTES_IN_FLIGHT, batch_cost};
pub use footprint::Footprint;
pub(crate) use footprint::btree_bytes;
use lines::{BatchLines, LinePlacer};
use read_ahead::{Stop, read_ahead, read_ahead_detached};
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
    /// Whether the consumer is told each batch's first line
    /// ([`Batch::first_line`]): each worker then counts its batch's lines.
    /// Defaults to off: `tag` and `stats` never ask.
    pub line_numbers: bool,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            batch_bytes: 1 << 20,
            line_numbers: false,
        }
    }
}

impl PipelineConfig {
    /// `games` with this batch size.
    fn set_up<W: Window>(self, games: GameReader<W>) -> GameReader<W> {
        games.batch_bytes(self.batch_bytes)
    }
}

/// Runs `work` on every batch of `source` in parallel and hands each batch
/// with its result to `consume`, in input order, on the calling thread.
///
/// Stops early when `consume` fails (a broken pipe, a full disk): the
/// reader is told to stop and no further batch is consumed. `source` may
/// borrow, so the run still waits for its read under way to return; an
/// opened input given to [`run_reader`] does not hold up the run that way.
///
/// # Errors
///
/// [`PipelineError::Consume`] with the first error of `consume`,
/// [`PipelineError::Panic`] when `work` panicked, else
/// [`PipelineError::Read`] with a read error of `source` (the batches
/// before it have been consumed).
///
/// # Example
///
/// ```
/// use pgn960::pipeline::{run, PipelineConfig};
///
/// let pgn = b"[Event \"a\"]\n*\n\n[Event \"b\"]\n*\n";
/// let config = PipelineConfig { line_numbers: true, ..PipelineConfig::default() };
/// let mut games = Vec::new();
/// run(&pgn[..], config, |batch| batch.games.len(), |batch, n| {
///     games.push((n, batch.first_line));
///     Ok::<_, std::convert::Infallible>(())
/// })
/// .expect("reading from memory cannot fail");
/// assert_eq!(games, [(2, Some(1))]);
/// ```
pub fn run<R, T, E, W, C>(
    source: R,
    config: PipelineConfig,
    work: W,
    consume: C,
) -> Result<(), PipelineError<E>>
where
    R: Read + Send,
    T: Send + Footprint,
    W: Fn(&Batch) -> T + Sync,
    C: FnMut(&Batch, T) -> Result<(), E>,
{
    let stop = Stop::default();
    std::thread::scope(|scope| {
        let chunks = read_ahead(scope, source, &stop);
        let games = config.set_up(GameReader::from_buf_read(chunks));
        run_games(games, config, &stop, Text::Any, work, consume)
    })
}

/// As [`run`], for a stream read on a thread the run does not wait for:
/// when the consumer stops early, the run ends at once, even while that
/// thread waits on a pipe that stays open (see `read_ahead_detached`).
fn run_stream<R, T, E, W, C>(
    source: R,
    config: PipelineConfig,
    work: W,
    consume: C,
) -> Result<(), PipelineError<E>>
where
    R: Read + Send + 'static,
    T: Send + Footprint,
    W: Fn(&Batch) -> T + Sync,
    C: FnMut(&Batch, T) -> Result<(), E>,
{
    let stop = Stop::default();
    let chunks = read_ahead_detached(source, &stop).map_err(PipelineError::Read)?;
    let games = config.set_up(GameReader::from_buf_read(chunks));
    run_games(games, config, &stop, Text::Pgn, work, consume)
}

/// As [`run`], for an opened input: a mapped file is split straight from
/// memory, its batches stretches of the map rather than copies, without a
/// read-ahead thread, and (with two threads or more, when it is longer
/// than 2 MiB) on several threads at once; a stream is read ahead.
///
/// An opened input is PGN text ([`crate::input::open`] refused what is
/// not, by its first bytes): a NUL byte further on ends the run as a read
/// error at that byte, every game before the one that holds it consumed,
/// however the batches were cut (so at any thread count), and none after.
/// Each worker looks for one in its batch, so the check costs the run no
/// time on the splitting thread.
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
    T: Send + Footprint,
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
    T: Send + Footprint,
    W: Fn(&Batch) -> T + Sync,
    C: FnMut(&Batch, T) -> Result<(), E>,
{
    let mapped = match reader {
        Reader::Mapped(mapped) => mapped,
        Reader::Stream(stream) => return run_stream(stream, config, work, consume),
    };
    let (map, at, read) = mapped.into_parts();
    let stop = &Stop::default();
    if config.threads >= 2 && map.len() - at >= stretch.saturating_mul(2) {
        let chain = Chain::new(map, at, read, config, stretch);
        run_games(chain, config, stop, Text::Pgn, work, consume)
    } else {
        let games = config.set_up(GameReader::from_mapped(map, at, read));
        run_games(games, config, stop, Text::Pgn, work, consume)
    }
}

/// Where the splitting thread takes batches from.
trait BatchSource: Send {
    /// The next batch in input order; jobs of its own go to `jobs`.
    fn next_batch(&mut self, jobs: &rayon::ScopeFifo<'_>) -> io::Result<Option<Batch>>;

    /// Takes back a consumed batch: its bytes, and its records' vectors.
    fn recycle(&mut self, batch: Batch);
}

impl<W: Window + Send> BatchSource for GameReader<W> {
    fn next_batch(&mut self, _: &rayon::ScopeFifo<'_>) -> io::Result<Option<Batch>> {
        GameReader::next_batch(self)
    }

    fn recycle(&mut self, batch: Batch) {
        GameReader::recycle_batch(self, batch);
    }
}

impl BatchSource for Chain {
    fn next_batch(&mut self, jobs: &rayon::ScopeFifo<'_>) -> io::Result<Option<Batch>> {
        Chain::next_batch(self, jobs)
    }

    fn recycle(&mut self, batch: Batch) {
        Chain::recycle(self, batch);
    }
}

/// What a worker sends back: the batch (cut before the game that holds a
/// NUL byte, when it is PGN text and holds one), its result (or the
/// message of the panic that took its place), where the NUL byte was, the
/// cost in the budget of the batch and of its result (what the result
/// holds) and, when asked, its lines.
struct Done<T> {
    seq: u64,
    batch: Batch,
    result: Result<T, String>,
    nul: Option<usize>,
    cost: usize,
    lines: Option<BatchLines>,
}

/// What the bytes of a run may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Text {
    /// Anything: the caller's bytes, split as they come.
    Any,
    /// PGN text, which holds no NUL byte: one ends the run as a read error.
    Pgn,
}

/// As [`run`], with the batches of `games`: a [`GameReader`] set up by
/// [`PipelineConfig::set_up`], or a [`Chain`]; `stop` is set once the
/// consumer is done.
fn run_games<S, T, E, W, C>(
    mut games: S,
    config: PipelineConfig,
    stop: &Stop,
    text: Text,
    work: W,
    mut consume: C,
) -> Result<(), PipelineError<E>>
where
    S: BatchSource,
    T: Send + Footprint,
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
        // twice `batch_bytes` a batch, and as much again set aside for its
        // result.
        (config.threads.max(1) * 2 + 2)
            .saturating_mul(config.batch_bytes.saturating_mul(4))
            .min(MAX_BYTES_IN_FLIGHT),
    );
    let work = &work;

    std::thread::scope(|scope| {
        let (result_tx, result_rx) = mpsc::channel::<Done<T>>();
        // Consumed batches go back to the splitter: reusing their buffers
        // and record vectors spares the kernel zeroing fresh pages for
        // every batch, and the pages of a mapped file go back to the
        // kernel.
        let (spare_tx, spare_rx) = mpsc::channel::<Batch>();
        // This thread waits while a worker of the pool splits: that worker
        // then helps with the work whenever the budget holds it back. Jobs
        // run oldest first, the order the consumer needs them in.
        let splitter = std::thread::Builder::new()
            .name("pgn960-split".into())
            .spawn_scoped(scope, move || -> io::Result<()> {
                pool.scope_fifo(move |jobs| {
                    let mut seq = 0u64;
                    loop {
                        while let Ok(consumed) = spare_rx.try_recv() {
                            games.recycle(consumed);
                        }
                        let Some(batch) = games.next_batch(jobs)? else {
                            return Ok(());
                        };
                        // Given back once the batch has been consumed, with
                        // room for a result as large as the batch, settled
                        // once the result is made.
                        let cost = batch_cost(&batch);
                        if !budget.take(cost + cost) {
                            return Ok(()); // the consumer has stopped
                        }
                        let tx = result_tx.clone();
                        jobs.spawn_fifo(move |_| {
                            // PGN text ends before the game that holds a
                            // NUL byte, wherever the batches were cut.
                            let mut batch = batch;
                            let nul = match text {
                                Text::Any => None,
                                Text::Pgn => batch.first_nul(),
                            };
                            if let Some(at) = nul {
                                batch.truncate_before(at);
                            }
                            // A bug in the work (or in weighing its
                            // result, or in counting lines) must end the
                            // run, not leave the consumer waiting for this
                            // batch.
                            let done = panic::catch_unwind(AssertUnwindSafe(|| {
                                let result = work(&batch);
                                // Counted until consumed, with the batch.
                                let held = result.total_bytes();
                                let lines = config.line_numbers.then(|| BatchLines::count(&batch));
                                (result, held, lines)
                            }));
                            let (result, held, lines) = match done {
                                Ok((result, held, lines)) => (Ok(result), held, lines),
                                Err(payload) => (Err(panic_message(payload.as_ref())), 0, None),
                            };
                            budget.settle(cost, held);
                            let cost = cost + held;
                            let _ = tx.send(Done {
                                seq,
                                batch,
                                result,
                                nul,
                                cost,
                                lines,
                            });
                        });
                        seq += 1;
                    }
                })
            })
            .map_err(PipelineError::Read)?;

        let consumed = {
            let _closed_at_the_end = CloseOnDrop(budget, stop);
            consume_in_order(result_rx, budget, &spare_tx, &mut consume)
        };
        let read = splitter
            .join()
            .map_err(|payload| PipelineError::Panic(panic_message(payload.as_ref())))?;
        consumed.and(read.map_err(PipelineError::Read))
    })
}

/// Closes the budget when the consumer is done, also when it panics: the
/// splitter, waiting for room in the budget, then stops, and the panic
/// ends the run instead of the run waiting for the splitter forever. A
/// splitter waiting for a stream's bytes stops too (the [`Stop`]).
struct CloseOnDrop<'a>(&'a Budget, &'a Stop);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
        self.1.stop();
    }
}

/// The message a panic carries, as far as it says one.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

fn consume_in_order<T, E>(
    results: mpsc::Receiver<Done<T>>,
    budget: &Budget,
    spare: &mpsc::Sender<Batch>,
    consume: &mut impl FnMut(&Batch, T) -> Result<(), E>,
) -> Result<(), PipelineError<E>> {
    let mut pending = BTreeMap::new();
    let mut next = 0u64;
    let mut lines = LinePlacer::default();
    // Bytes of the batches consumed so far: where the next one begins.
    let mut offset = 0u64;
    for done in results {
        let result = done.result.map_err(PipelineError::Panic)?;
        pending.insert(
            done.seq,
            (done.batch, result, done.nul, done.cost, done.lines),
        );
        while let Some((mut batch, result, nul, cost, counted)) = pending.remove(&next) {
            batch.first_line = counted.map(|counted| lines.place(counted));
            consume(&batch, result).map_err(PipelineError::Consume)?;
            if let Some(at) = nul {
                let at = offset + at as u64;
                return Err(PipelineError::Read(crate::input::nul_byte_at(at)));
            }
            offset += batch.data.len() as u64;
            let _ = spare.send(batch);
            budget.give_back(cost);
            next += 1;
        }
    }
    Ok(())
}

/// Why a pipeline stopped.
#[derive(Debug)]
pub enum PipelineError<E> {
    /// The input could not be read (or decompressed).
    Read(io::Error),
    /// The consumer failed (for example, writing the output).
    Consume(E),
    /// The work on a batch, or the splitting, panicked: a bug. Carries the
    /// panic's message.
    Panic(String),
}

#[cfg(test)]
mod tests {
    use std::io::Write;

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

    /// The batches in flight and their results hold 24 MiB at most,
    /// whatever the thread count, when the consumer is slower than the
    /// work: counted from outside the budget, as the work makes its
    /// results (as large as their batches, as `games`' rows of tiny games
    /// are) and the consumer drops them. One batch may pass alone, beyond
    /// the budget, so that none waits forever. A mapped file's batches
    /// hold exactly their bytes and records.
    #[test]
    fn batches_in_flight_and_their_results_hold_24_mib_at_most() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        std::fs::write(&path, archive(250_000)).unwrap();
        for threads in [1, 3, 16] {
            let config = PipelineConfig {
                threads,
                batch_bytes: 512 << 10,
                ..PipelineConfig::default()
            };
            let source = crate::input::Source::Path(path.clone());
            // SAFETY: the test's own file, which nothing else touches.
            let mmap = unsafe { crate::input::MmapChoice::auto() };
            let reader = crate::input::open(&source, mmap).unwrap().reader;
            assert!(matches!(reader, Reader::Mapped(_)));
            let alive = AtomicUsize::new(0);
            let peak = AtomicUsize::new(0);
            let (mut largest, mut batches) = (0, 0);
            run_reader(
                reader,
                config,
                |batch| {
                    let cost = batch_cost(batch);
                    let result = vec![1u8; cost];
                    let now = alive.fetch_add(cost + result.len(), Ordering::SeqCst);
                    peak.fetch_max(now + cost + result.len(), Ordering::SeqCst);
                    (cost, result)
                },
                |_, (cost, result)| {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    largest = largest.max(cost + result.len());
                    batches += 1;
                    alive.fetch_sub(cost + result.len(), Ordering::SeqCst);
                    Ok::<_, ()>(())
                },
            )
            .unwrap();
            let peak = peak.into_inner();
            assert!(
                batches * largest > 4 * MAX_BYTES_IN_FLIGHT,
                "{batches} batches"
            );
            assert!(
                peak <= MAX_BYTES_IN_FLIGHT + largest,
                "{threads} threads: {peak} bytes of batches and results at once"
            );
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

    /// The games of a batch, each with its line counted within the batch.
    fn view(batch: &Batch) -> Vec<GameView> {
        let lines = crate::split::LineCounter::new(&batch.data);
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
                    lines.line_of(batch.first_line_start(g)),
                    batch.bytes(g).to_vec(),
                    tags.collect(),
                    facts,
                )
            })
            .collect()
    }

    /// Every game of `reader` as [`view`] sees it (a mapped file split
    /// from `[Event` lines `stretch` apart), checking that the batches'
    /// bytes are `input` and, with line numbers, that each game's line is
    /// its line in `input` (else 0).
    fn views_of(
        reader: Reader,
        config: PipelineConfig,
        stretch: usize,
        input: &[u8],
    ) -> Vec<GameView> {
        let mut games = Vec::new();
        let mut bytes = Vec::new();
        run_reader_split_every(reader, config, stretch, view, |batch, views| {
            assert_eq!(batch.first_line.is_some(), config.line_numbers);
            for (mut game, g) in views.into_iter().zip(&batch.games) {
                game.1 = match batch.first_line {
                    Some(_) => {
                        let first = bytes.len() + batch.first_line_start(g);
                        let line = crate::split::count_line_ends(input, 0, first, false) + 1;
                        assert_eq!(batch.input_line(game.1), line, "game {}", game.0);
                        line
                    }
                    None => 0,
                };
                games.push(game);
            }
            bytes.extend_from_slice(&batch.data);
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
    fn a_panic_in_the_work_ends_the_run_with_its_message() {
        panic_ends_the_run(
            |batch| {
                let bug = batch.games.iter().any(|g| g.index == 40_000);
                assert!(!bug, "a bug in the batch of game 40000");
            },
            "a bug in the batch",
        );
    }

    /// A result that panics when the pipeline weighs it, for the batch of
    /// game 40,000.
    struct Heavy(bool);

    impl Footprint for Heavy {
        fn heap_bytes(&self) -> usize {
            assert!(!self.0, "a bug weighing the result of game 40000");
            0
        }
    }

    #[test]
    fn a_panic_weighing_the_work_s_result_ends_the_run_with_its_message() {
        panic_ends_the_run(
            |batch| Heavy(batch.games.iter().any(|g| g.index == 40_000)),
            "a bug weighing the result",
        );
    }

    /// Runs `work`, which panics with `message` at the batch of game
    /// 40,000, at several thread counts, streamed and mapped: the run ends
    /// with the panic's message, after the batches before it.
    fn panic_ends_the_run<T: Send + Footprint + 'static>(work: fn(&Batch) -> T, message: &str) {
        // Several MiB: the games before the panicking batch come in
        // batches of their own.
        let input = archive(60_000);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        std::fs::write(&path, &input).unwrap();
        for (threads, mapped) in [(1, false), (2, false), (4, false), (1, true), (2, true)] {
            let input = input.clone();
            let path = path.clone();
            let (done_tx, done_rx) = mpsc::channel();
            // On a thread of its own, so that a hang fails the test
            // instead of stopping it.
            std::thread::spawn(move || {
                let config = PipelineConfig {
                    threads,
                    batch_bytes: 4096,
                    line_numbers: true,
                };
                let reader = if mapped {
                    let source = crate::input::Source::Path(path);
                    // SAFETY: the test's own file, which nothing else touches.
                    let mmap = unsafe { crate::input::MmapChoice::auto() };
                    crate::input::open(&source, mmap).unwrap().reader
                } else {
                    Reader::Stream(Box::new(std::io::Cursor::new(input)))
                };
                let mut consumed = 0;
                let result = run_reader_split_every(reader, config, 64 << 10, work, |_, _| {
                    consumed += 1;
                    Ok::<_, ()>(())
                });
                let _ = done_tx.send((result, consumed));
            });
            let (result, consumed) = done_rx
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("a panic in the work must end the run, not hang it");
            match result {
                Err(PipelineError::Panic(got)) => {
                    assert!(got.contains(message), "{got}");
                }
                other => panic!("{threads} threads, mapped {mapped}: {other:?}"),
            }
            assert!(consumed > 0, "the batches before the panic were consumed");
        }
    }

    #[test]
    fn a_panic_in_the_consumer_ends_the_run_not_hangs_it() {
        // Several MiB: batches of about a read (1 MiB) each, more than the
        // budget holds.
        let input = archive(100_000);
        let (done_tx, done_rx) = mpsc::channel();
        // On a thread of its own, so that a hang fails the test instead of
        // stopping it.
        std::thread::spawn(move || {
            let config = PipelineConfig {
                threads: 2,
                batch_bytes: 1024,
                ..PipelineConfig::default()
            };
            let mut consumed = 0;
            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                run(
                    &input[..],
                    config,
                    |_| (),
                    |_, ()| {
                        consumed += 1;
                        assert!(consumed < 2, "a bug in the consumer");
                        Ok::<_, ()>(())
                    },
                )
            }));
            let _ = done_tx.send(result.map_err(|payload| panic_message(payload.as_ref())));
        });
        let result = done_rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("a panic in the consumer must end the run, not hang it");
        let message = result.expect_err("the consumer's panic goes on up");
        assert!(message.contains("a bug in the consumer"), "{message}");
    }

    /// The read-ahead thread tries an interrupted read again: a stream a
    /// signal keeps interrupting gives every byte and no error.
    #[test]
    fn interrupted_reads_of_a_stream_are_retried() {
        let input = archive(2000);
        let source = crate::test_support::Interrupting::new(&input, 4096);
        let mut out = Vec::new();
        run(
            source,
            PipelineConfig::default(),
            |_| (),
            |batch, ()| {
                out.extend_from_slice(&batch.data);
                Ok::<_, ()>(())
            },
        )
        .expect("an interrupted read is no error");
        assert_eq!(out, input);
    }

    /// A stream that stays open with nothing more to read (its writer
    /// waits) does not hold up the end of a run whose consumer stopped.
    #[test]
    fn a_stopped_consumer_ends_the_run_while_the_stream_stays_open() {
        let (source, mut writer) = io::pipe().expect("a pipe");
        let (ended_tx, ended_rx) = mpsc::channel::<()>();
        // Writes more than a read-ahead chunk (1 MiB), then holds the pipe
        // open until the run ends.
        let feeding = std::thread::spawn(move || {
            let _ = writer.write_all(&archive(20_000));
            let _ = ended_rx.recv();
        });
        let config = PipelineConfig {
            batch_bytes: 1024,
            ..PipelineConfig::default()
        };
        let (done_tx, done_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let result = run_reader(
                Reader::Stream(Box::new(source)),
                config,
                |_| (),
                |_, ()| Err(io::Error::new(io::ErrorKind::StorageFull, "full")),
            );
            let _ = done_tx.send(result.is_err());
        });
        let failed = done_rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the run ends while the stream is open");
        assert!(failed, "the consumer's error ends the run");
        drop(ended_tx);
        feeding.join().expect("the writer ends");
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
