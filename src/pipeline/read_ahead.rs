//! Reading a stream on a thread of its own, a few chunks ahead of the
//! splitter: decompression (or the kernel's copy) then overlaps with
//! splitting instead of adding to it.

use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

/// Bytes per read-ahead chunk. Large chunks matter for compressed input:
/// the decoder then runs long stretches without a hand-over, and `tag` on
/// a `.zst` archive ran in 0.81 of the time it took with 64 KiB chunks
/// (`farm-bench --vs`, 7 pairs, on the bench archive).
const CHUNK_BYTES: usize = 1 << 20;

/// Chunks read ahead of the splitter: two are as fast as four, and hold
/// less memory.
const CHUNKS_AHEAD: usize = 2;

/// How often a splitter waiting for a chunk looks whether the run has
/// stopped.
const STOP_POLL: Duration = Duration::from_millis(50);

/// Set once the consumer has stopped: the splitter then stops waiting for
/// the stream, which may stay open and silent (a pipe whose writer waits).
#[derive(Clone, Debug, Default)]
pub(super) struct Stop(Arc<AtomicBool>);

impl Stop {
    pub(super) fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Reads `source` on its own thread, a few chunks ahead: decompression (or
/// the kernel's copy) then overlaps with splitting instead of adding to it.
/// The run waits for that thread when it ends, so it ends only when a read
/// does: [`read_ahead_detached`] spares it that.
pub(super) fn read_ahead<'scope, R: Read + Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    source: R,
    stop: &Stop,
) -> ChunkReader {
    let (reader, chunks, spare) = chunk_reader(stop);
    let spawned = std::thread::Builder::new()
        .name("pgn960-read".into())
        .spawn_scoped(scope, move || read_chunks(source, &chunks, &spare));
    // As `Scope::spawn` does: without a thread, nothing can go on.
    spawned.expect("the system starts a thread");
    reader
}

/// [`read_ahead`] on a thread the run does not wait for: once the
/// consumer has stopped (its output failed, say), the run ends at once,
/// even while the thread waits on a pipe that stays open; the thread ends
/// at its next read, or with the process.
///
/// # Errors
///
/// When the system starts no thread.
pub(super) fn read_ahead_detached<R: Read + Send + 'static>(
    source: R,
    stop: &Stop,
) -> io::Result<ChunkReader> {
    let (reader, chunks, spare) = chunk_reader(stop);
    std::thread::Builder::new()
        .name("pgn960-read".into())
        .spawn(move || read_chunks(source, &chunks, &spare))?;
    Ok(reader)
}

/// A chunk and how many of its bytes were read into it, or a read's error.
type Chunk = io::Result<(Vec<u8>, usize)>;

/// The splitter's side, and the reading thread's ends of its channels.
fn chunk_reader(
    stop: &Stop,
) -> (
    ChunkReader,
    mpsc::SyncSender<Chunk>,
    mpsc::Receiver<Vec<u8>>,
) {
    let (chunk_tx, chunk_rx) = mpsc::sync_channel::<Chunk>(CHUNKS_AHEAD);
    let (spare_tx, spare_rx) = mpsc::sync_channel::<Vec<u8>>(CHUNKS_AHEAD + 2);
    let reader = ChunkReader {
        chunks: chunk_rx,
        spare: spare_tx,
        stop: stop.clone(),
        current: Vec::new(),
        at: 0,
        len: 0,
    };
    (reader, chunk_tx, spare_rx)
}

/// The reading thread: chunks of `source` to `chunks` until its end, its
/// first error, or the splitter's end.
fn read_chunks<R: Read>(
    mut source: R,
    chunks: &mpsc::SyncSender<Chunk>,
    spare: &mpsc::Receiver<Vec<u8>>,
) {
    loop {
        // Chunks come back to be refilled, so none is zeroed twice.
        let mut chunk = spare.try_recv().unwrap_or_else(|_| vec![0; CHUNK_BYTES]);
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
        if filled > 0 && chunks.send(Ok((chunk, filled))).is_err() {
            return; // the splitter has stopped
        }
        if let Err(err) = result {
            let _ = chunks.send(Err(err));
            return;
        }
        if end {
            return;
        }
    }
}

/// The splitter's side of [`read_ahead`].
pub(super) struct ChunkReader {
    chunks: mpsc::Receiver<Chunk>,
    spare: mpsc::SyncSender<Vec<u8>>,
    stop: Stop,
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
            match self.chunks.recv_timeout(STOP_POLL) {
                Ok(Ok((chunk, len))) => {
                    self.current = chunk;
                    self.at = 0;
                    self.len = len;
                }
                Ok(Err(err)) => return Err(err),
                Err(mpsc::RecvTimeoutError::Timeout) if !self.stop.stopped() => {}
                // The reader is done, or nobody wants more.
                Err(_) => return Ok(&[]),
            }
        }
        Ok(&self.current[self.at..self.len])
    }

    fn consume(&mut self, amount: usize) {
        self.at = (self.at + amount).min(self.len);
    }
}
