//! Rows as Apache Parquet, the format DuckDB, Polars, pandas and Spark
//! read: typed columns (integers as integers), zstd, row groups of
//! [`ROW_GROUP_ROWS`] rows (fewer when their values are long: a row group
//! is also ended once it holds [`ROW_GROUP_BYTES`]) written as they fill,
//! so that memory stays bounded whatever the size of the archive and
//! whatever the length of its values.
//!
//! Rows are gathered into Arrow arrays of [`CHUNK_ROWS`] rows, or fewer
//! once their text holds [`CHUNK_TEXT_BYTES`]: where rows are cut into
//! chunks and row groups, and so every byte of the file, depends only on
//! the rows, never on how the input was cut into batches (or on the
//! thread count).
//!
//! A thread of its own encodes and compresses the chunks (the [`Encoder`])
//! while the consumer gathers the next one: on the consumer's thread, the
//! encoding held up the batches behind it, and with them the workers,
//! whose batches in flight are bounded.

use std::io::{self, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use super::arrow::{ArrowRows, arrow_schema};
use super::columns::{Column, Schema};
use super::row::{GameRow, RowWriter};

/// Rows of a row group: about 100,000, as engines read them well.
pub const ROW_GROUP_ROWS: usize = 100_000;

/// The most bytes a row group holds, as the writer estimates them encoded:
/// a row group is held in memory until it is written out whole. Rows of
/// the usual archives (2.5 MB of Parquet per 73,000 rows on the benchmark
/// archive) fill [`ROW_GROUP_ROWS`] long before; rows with values of
/// kilobytes (an `Event` of 8 KB held 659 MB in a row group of 100,000
/// rows) end theirs here.
pub const ROW_GROUP_BYTES: usize = 8 << 20;

/// Rows gathered before they go to the Parquet writer, which encodes and
/// compresses them into the row group being filled. Small chunks keep the
/// encoder's work even: with 10,000, the consumer waited on it longer, and
/// the workers on the consumer (on the benchmark archive, 3% slower, and
/// 48 MiB at the peak against 44 MiB); with 1,000, no faster than 2,000.
const CHUNK_ROWS: usize = 2_000;

/// The most bytes of text a chunk gathers before it goes to the writer,
/// whatever its count of rows: three chunks are in memory at once (one
/// gathered, one waiting, one encoded), and 2,000 rows of 8 KB values
/// would be 16 MB each. The usual rows (a few hundred bytes of text)
/// never reach it.
const CHUNK_TEXT_BYTES: usize = 1 << 20;

/// The most bytes a column's page (and dictionary) may hold before it is
/// compressed and set aside: each of the columns holds one while its row
/// group fills, so this bounds the writer's memory. Parquet's default is
/// 1 MiB.
const PAGE_BYTES: usize = 256 << 10;

/// zstd's level: 1, its fastest. On the benchmark archive the file came
/// out smaller than at 3, zstd's default (2.52 MB against 2.56 MB), for
/// less of the writer's time: the pages are short and mostly dictionary
/// indexes already.
const ZSTD_LEVEL: i32 = 1;

/// The Parquet writer on a thread of its own, fed chunks through a
/// channel of one: at most one chunk waits while another is encoded.
struct Encoder<W: Write + Send> {
    chunks: SyncSender<RecordBatch>,
    thread: JoinHandle<Result<ArrowWriter<KeepError<W>>, ParquetError>>,
}

impl<W: Write + Send + 'static> Encoder<W> {
    fn start(mut writer: ArrowWriter<KeepError<W>>) -> io::Result<Encoder<W>> {
        let (chunks, received): (_, Receiver<RecordBatch>) = sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("pgn960-parquet".into())
            .spawn(move || {
                for chunk in received {
                    writer.write(&chunk)?;
                }
                Ok(writer)
            })?;
        Ok(Encoder { chunks, thread })
    }

    /// Hands a chunk over; `false` when the encoder has stopped at an
    /// error, which [`Encoder::finish`] returns.
    fn send(&self, chunk: RecordBatch) -> bool {
        self.chunks.send(chunk).is_ok()
    }

    /// Waits for every chunk to be encoded; the writer, or its first error.
    fn finish(self) -> Result<ArrowWriter<KeepError<W>>, ParquetError> {
        let Encoder { chunks, thread } = self;
        drop(chunks);
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

/// The error of a writer used again after its output failed.
fn failed_before() -> io::Error {
    io::Error::other("the Parquet output failed before")
}

/// Parquet rows.
pub(super) struct ParquetRows<W: Write + Send> {
    /// Running until the output fails or the rows end.
    encoder: Option<Encoder<W>>,
    /// The first I/O error of the output, kept by [`KeepError`].
    error: ErrorSlot,
    rows: ArrowRows,
}

impl<W: Write + Send + 'static> ParquetRows<W> {
    pub(super) fn new(schema: &Schema, out: W) -> io::Result<ParquetRows<W>> {
        let mut properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(
                ZstdLevel::try_new(ZSTD_LEVEL).expect("1 is a zstd level"),
            ))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
            .set_data_page_size_limit(PAGE_BYTES)
            .set_dictionary_page_size_limit(PAGE_BYTES);
        // A value per game: a dictionary would only be built to be dropped.
        for unique in [
            Column::Game,
            Column::Offset,
            Column::Length,
            Column::Line,
            Column::Fingerprint,
        ] {
            properties =
                properties.set_column_dictionary_enabled(ColumnPath::from(unique.name()), false);
        }
        let properties = properties.build();
        let error = ErrorSlot::default();
        let out = KeepError {
            inner: out,
            error: error.clone(),
        };
        let writer = ArrowWriter::try_new(out, arrow_schema(schema), Some(properties))
            .map_err(|err| error.or(err))?;
        Ok(ParquetRows {
            encoder: Some(Encoder::start(writer)?),
            error,
            rows: ArrowRows::new(schema, CHUNK_ROWS),
        })
    }

    /// Hands the rows gathered to the encoder, which writes a row group
    /// out whenever one fills.
    fn flush_chunk(&mut self) -> io::Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let batch = self.rows.finish();
        if self.encoder()?.send(batch) {
            return Ok(());
        }
        // The encoder has stopped at an error: which one.
        Err(self
            .finish_encoding()
            .expect_err("the encoder stops early only at an error"))
    }

    fn encoder(&self) -> io::Result<&Encoder<W>> {
        self.encoder.as_ref().ok_or_else(failed_before)
    }

    /// Ends the encoder: the writer, or the error it stopped at.
    fn finish_encoding(&mut self) -> io::Result<ArrowWriter<KeepError<W>>> {
        let encoder = self.encoder.take().ok_or_else(failed_before)?;
        encoder.finish().map_err(|err| self.error.or(err))
    }
}

impl<W: Write + Send + 'static> RowWriter<W> for ParquetRows<W> {
    fn write_row(&mut self, file: &str, row: &GameRow) -> io::Result<()> {
        self.rows.push(file, row);
        if self.rows.len() == CHUNK_ROWS || self.rows.text_bytes() >= CHUNK_TEXT_BYTES {
            self.flush_chunk()?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> io::Result<W> {
        self.flush_chunk()?;
        let writer = self.finish_encoding()?;
        // Writes the last row group and the footer.
        let mut out = writer.into_inner().map_err(|err| self.error.or(err))?;
        out.flush()?;
        Ok(out.inner)
    }
}

/// Where [`KeepError`] keeps the first I/O error of the output: the
/// Parquet writer turns an I/O error into its own, which loses its kind (a
/// broken pipe, a full disk), and the original is what the command
/// reports.
#[derive(Clone, Default)]
struct ErrorSlot(Arc<Mutex<Option<io::Error>>>);

impl ErrorSlot {
    /// The I/O error behind `err` if there was one, else `err`.
    fn or(&self, err: ParquetError) -> io::Error {
        self.lock().take().unwrap_or_else(|| io::Error::other(err))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<io::Error>> {
        // A poisoned slot still holds an error or none.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The output, keeping its first error in an [`ErrorSlot`].
struct KeepError<W> {
    inner: W,
    error: ErrorSlot,
}

impl<W> KeepError<W> {
    fn keep(&self, err: io::Error) -> io::Error {
        let copy = io::Error::new(err.kind(), err.to_string());
        self.error.lock().get_or_insert(err);
        copy
    }
}

impl<W: Write> Write for KeepError<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|err| self.keep(err))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|err| self.keep(err))
    }
}
