//! `games` and `iter_games`: one row per game, the columns and types of
//! `pgn960 games`, as Arrow data built in Rust by the library's own
//! [`read_rows`] and [`ArrowRows`] (the Parquet writer's builder).

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_pyarrow::ToPyArrow;
use arrow_schema::SchemaRef;
use pgn960::duplicates::GAMES_MEMORY;
use pgn960::export::{ArrowRows, FirstOccurrences, Schema, arrow_schema, read_rows};
use pgn960::pipeline::{PipelineConfig, PipelineError};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::inputs::{
    Input, config, inputs, internal_error, interrupted, names, os_error, run_error,
};
use crate::tables::table_of;

/// Rows a record batch holds, by default (`batch_size = 65536` in the
/// signatures, which must spell it out for Python's `inspect`): large enough that pyarrow,
/// Polars and DuckDB work on long arrays, small enough that a batch of
/// long tags stays a few tens of MiB. Also the most rows room is made for
/// before they come (a larger `batch_size` grows as rows arrive).
pub const BATCH_ROWS: usize = 65_536;

/// The columns of a run: the fixed ones, the duplicate columns with
/// `duplicates`, and one per tag of `tags`.
fn schema_of(tags: Option<&Bound<'_, PyAny>>, duplicates: bool) -> PyResult<Schema> {
    let extra = match tags {
        Some(tags) => names("tags", tags)?,
        None => Vec::new(),
    };
    Ok(Schema::new(extra)
        .map_err(|err| PyValueError::new_err(format!("tags: {err}")))?
        .with_duplicates(duplicates))
}

/// The first occurrences of a run's games, with `duplicates`: as many as
/// `pgn960 games --duplicates` holds.
fn first_occurrences(duplicates: bool) -> Option<FirstOccurrences> {
    duplicates.then(|| FirstOccurrences::new(GAMES_MEMORY))
}

/// Marks `row` as `pgn960 games --duplicates` does; a `RuntimeError`
/// with its message when the run cannot tell copies apart any longer.
fn mark(copies: &mut Option<FirstOccurrences>, row: &mut pgn960::export::GameRow) -> PyResult<()> {
    match copies {
        Some(copies) => copies
            .mark(row)
            .map_err(|err| PyRuntimeError::new_err(err.to_string())),
        None => Ok(()),
    }
}

fn batch_rows(batch_size: i64) -> PyResult<usize> {
    usize::try_from(batch_size)
        .ok()
        .filter(|rows| *rows > 0)
        .ok_or_else(|| PyValueError::new_err(format!("batch_size: {batch_size} is not positive")))
}

/// The schema of `games`' tables: the columns of `pgn960 games` (with
/// `duplicates`, those of `pgn960 games --duplicates`) and one string
/// column per tag of `tags`, as a `pyarrow.Schema`.
#[pyfunction]
#[pyo3(signature = (*, tags = None, duplicates = false))]
pub fn schema<'py>(
    py: Python<'py>,
    tags: Option<&Bound<'py, PyAny>>,
    duplicates: bool,
) -> PyResult<Bound<'py, PyAny>> {
    arrow_schema(&schema_of(tags, duplicates)?).to_pyarrow(py)
}

/// One row per game of `paths`, as a `pyarrow.Table` with exactly the
/// columns and types of `pgn960 games` (its Parquet file read back), in
/// input order: file, game, offset, length, line, kind, scharnagl,
/// fritz9, position, white_scharnagl, black_scharnagl, variant, event,
/// site, date, year, round, white, black, result, white_elo, black_elo,
/// time_control, termination, eco, opening, plies, chess960_id,
/// unplayed; with `duplicates`, fingerprint, duplicate_of_file and
/// duplicate_of_game, as `pgn960 games --duplicates` writes them (a copy
/// names the file and game of its first occurrence among all of
/// `paths`; up to 458,752 distinct games, else `RuntimeError`); then one
/// string column per tag named in `tags` (`"WhiteFideId,BlackFideId"` or a
/// list), holding the last value of that name.
///
/// `paths` is a path (plain, or compressed with gzip, zstd, bzip2 or xz,
/// recognised by content), bytes of PGN (named `<bytes>` in the file
/// column), or a list of them. The table is built in Rust on `threads`
/// threads (default: one per core) with the GIL released, and handed to
/// pyarrow without a copy; Ctrl-C stops it between batches. The whole
/// table is held in memory: for archives larger than memory, use
/// `iter_games`.
///
/// Raises `OSError` (`FileNotFoundError`, ...) for an input that cannot
/// be read, with `pgn960 games`' message; `ValueError` for a bad argument.
#[pyfunction]
#[pyo3(signature = (paths, *, tags = None, duplicates = false, threads = None, batch_size = 65536))]
pub fn games<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    tags: Option<&Bound<'py, PyAny>>,
    duplicates: bool,
    threads: Option<i64>,
    batch_size: i64,
) -> PyResult<Bound<'py, PyAny>> {
    let inputs = inputs(paths)?;
    let schema = schema_of(tags, duplicates)?;
    let config = config(threads)?;
    let batch_size = batch_rows(batch_size)?;
    debug_assert_eq!(BATCH_ROWS, 65_536, "the signatures' default");
    let batches = py.detach(|| {
        let mut rows = ArrowRows::new(&schema, batch_size.min(BATCH_ROWS));
        let mut batches = Vec::new();
        let mut copies = first_occurrences(duplicates);
        for input in inputs {
            let name = input.name();
            let opened = input.open()?;
            if let Some(copies) = copies.as_mut() {
                copies.start_input(&name);
            }
            read_rows(
                opened.reader,
                config,
                &schema,
                |_, _| interrupted(),
                |mut row| {
                    mark(&mut copies, &mut row)?;
                    rows.push(&name, &row);
                    if rows.len() == batch_size {
                        batches.push(rows.finish());
                    }
                    Ok(())
                },
            )
            .map_err(|err| run_error(&name, err))?;
        }
        if !rows.is_empty() {
            batches.push(rows.finish());
        }
        Ok::<_, PyErr>(batches)
    })?;
    table_of(py, arrow_schema(&schema), batches)
}

/// As `games`, one `pyarrow.RecordBatch` of up to `batch_size` rows at a
/// time, for archives larger than memory: the games are read as the
/// batches are taken, on a thread of their own, one batch ahead, so that
/// memory stays bounded as `pgn960 games`' does. Every batch has the
/// schema `schema(tags=..., duplicates=...)`.
///
/// An input that cannot be read raises `OSError` when its batches are
/// due; Ctrl-C while waiting for a batch raises `KeyboardInterrupt` and
/// stops the reading. Dropping the iterator (or `close()`) stops it too.
#[pyfunction]
#[pyo3(signature = (paths, *, tags = None, duplicates = false, threads = None, batch_size = 65536))]
pub fn iter_games(
    paths: &Bound<'_, PyAny>,
    tags: Option<&Bound<'_, PyAny>>,
    duplicates: bool,
    threads: Option<i64>,
    batch_size: i64,
) -> PyResult<GameBatches> {
    let inputs = inputs(paths)?;
    let schema = schema_of(tags, duplicates)?;
    let config = config(threads)?;
    let batch_size = batch_rows(batch_size)?;
    let arrow = arrow_schema(&schema);
    // One batch waits while the next is built: the memory of two.
    let (sender, received) = sync_channel(1);
    let stop = Arc::new(AtomicBool::new(false));
    let reading = Reading {
        inputs,
        copies: first_occurrences(duplicates),
        schema,
        config,
        batch_size,
        sender,
        stop: Arc::clone(&stop),
    };
    // A panic of the reading thread ends the batches with an error, never
    // with an end that looks like the archive's.
    let on_panic = reading.sender.clone();
    let thread = std::thread::Builder::new()
        .name("pgn960-games".into())
        .spawn(move || {
            if let Err(panic) = std::panic::catch_unwind(AssertUnwindSafe(|| reading.run())) {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|text| text.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".to_string());
                let _ = on_panic.send(Err(Failure::Panic(message)));
            }
        })
        .map_err(|err| os_error("starting a thread", &err))?;
    Ok(GameBatches {
        schema: arrow,
        received: Mutex::new(Some(received)),
        thread: Mutex::new(Some(thread)),
        stop,
    })
}

/// Why the reading thread stopped early.
enum Failure {
    /// An input could not be opened or read: its name and error.
    Input(String, std::io::Error),
    /// A bug of the library.
    Panic(String),
    /// The run cannot tell copies apart any longer: why.
    Untold(String),
}

impl Failure {
    fn into_py(self) -> PyErr {
        match self {
            Failure::Input(name, err) => os_error(&name, &err),
            Failure::Panic(message) => internal_error(&message),
            Failure::Untold(message) => PyRuntimeError::new_err(message),
        }
    }
}

/// What the reading thread reads, and where its batches go.
struct Reading {
    inputs: Vec<Input>,
    /// The first occurrences of the games, with `duplicates`.
    copies: Option<FirstOccurrences>,
    schema: Schema,
    config: PipelineConfig,
    batch_size: usize,
    sender: SyncSender<Result<RecordBatch, Failure>>,
    stop: Arc<AtomicBool>,
}

/// Why the reading of an input stopped early, but for a read error.
enum Stopped {
    /// The iterator stopped taking batches.
    Taken,
    /// The run cannot tell copies apart any longer: why.
    Untold(String),
}

impl Reading {
    fn run(mut self) {
        let mut rows = ArrowRows::new(&self.schema, self.batch_size.min(BATCH_ROWS));
        for input in std::mem::take(&mut self.inputs) {
            let name = input.name();
            match self.read(input, &name, &mut rows) {
                Ok(()) => {}
                Err(None) => return,
                Err(Some(failure)) => {
                    // The rows before the failure go out first.
                    if !rows.is_empty() && self.sender.send(Ok(rows.finish())).is_err() {
                        return;
                    }
                    let _ = self.sender.send(Err(failure));
                    return;
                }
            }
        }
        if !rows.is_empty() {
            let _ = self.sender.send(Ok(rows.finish()));
        }
    }

    /// Reads one input; `Err(None)` when the iterator has stopped.
    fn read(
        &mut self,
        input: Input,
        name: &str,
        rows: &mut ArrowRows,
    ) -> Result<(), Option<Failure>> {
        let opened = input
            .open_io()
            .map_err(|err| Some(Failure::Input(name.to_string(), err)))?;
        if let Some(copies) = self.copies.as_mut() {
            copies.start_input(name);
        }
        let copies = &mut self.copies;
        let (stop, sender, batch_size) = (&self.stop, &self.sender, self.batch_size);
        let result = read_rows(
            opened.reader,
            self.config,
            &self.schema,
            |_, _| match stop.load(Ordering::Relaxed) {
                true => Err(Stopped::Taken),
                false => Ok(()),
            },
            |mut row| {
                if let Some(copies) = copies.as_mut() {
                    copies
                        .mark(&mut row)
                        .map_err(|err| Stopped::Untold(err.to_string()))?;
                }
                rows.push(name, &row);
                if rows.len() == batch_size {
                    sender.send(Ok(rows.finish())).map_err(|_| Stopped::Taken)?;
                }
                Ok(())
            },
        );
        match result {
            Ok(()) => Ok(()),
            Err(PipelineError::Consume(Stopped::Taken)) => Err(None),
            Err(PipelineError::Consume(Stopped::Untold(message))) => {
                Err(Some(Failure::Untold(message)))
            }
            Err(PipelineError::Read(err)) => Err(Some(Failure::Input(name.to_string(), err))),
            Err(PipelineError::Panic(message)) => Err(Some(Failure::Panic(message))),
        }
    }
}

/// The record batches of `iter_games`, read one batch ahead on a thread
/// of their own.
#[pyclass(module = "pgn960")]
pub struct GameBatches {
    schema: SchemaRef,
    /// `None` once the batches have ended (or failed).
    received: Mutex<Option<Receiver<Result<RecordBatch, Failure>>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    stop: Arc<AtomicBool>,
}

/// How long a wait for a batch lasts before signals are checked again.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

impl GameBatches {
    /// Stops the reading thread, if it still runs, and waits for it.
    fn close_now(&self) {
        self.stop.store(true, Ordering::Relaxed);
        // A thread waiting to hand over a batch sees the receiver gone.
        drop(lock(&self.received).take());
        if let Some(thread) = lock(&self.thread).take() {
            let _ = thread.join();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[pymethods]
impl GameBatches {
    /// The schema of every batch, as a `pyarrow.Schema`.
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.schema.to_pyarrow(py)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        loop {
            let next = py.detach(|| {
                lock(&self.received)
                    .as_ref()
                    .map(|received| received.recv_timeout(SIGNAL_CHECK))
            });
            match next {
                None | Some(Err(RecvTimeoutError::Disconnected)) => {
                    self.close_now();
                    return Ok(None);
                }
                Some(Ok(Ok(batch))) => return batch.to_pyarrow(py).map(Some),
                Some(Ok(Err(failure))) => {
                    self.close_now();
                    return Err(failure.into_py());
                }
                Some(Err(RecvTimeoutError::Timeout)) => {
                    if let Err(err) = py.check_signals() {
                        self.close_now();
                        return Err(err);
                    }
                }
            }
        }
    }

    /// Stops reading; the iterator then ends.
    fn close(&self, py: Python<'_>) {
        py.detach(|| self.close_now());
    }
}

impl Drop for GameBatches {
    fn drop(&mut self) {
        self.close_now();
    }
}
