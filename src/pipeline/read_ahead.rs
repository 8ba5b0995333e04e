//! Reading a stream on a thread of its own, a few chunks ahead of the
//! splitter: decompression (or the kernel's copy) then overlaps with
//! splitting instead of adding to it.

use std::io::{self, BufRead, Read};
use std::sync::mpsc;

/// Bytes per read-ahead chunk. Large chunks matter for compressed input:
/// the decoder then runs long stretches without a hand-over, and `tag` on
/// a `.zst` archive ran in 0.81 of the time it took with 64 KiB chunks
/// (`farm-bench --vs`, 7 pairs, on the bench archive).
const CHUNK_BYTES: usize = 1 << 20;

/// Chunks read ahead of the splitter: two are as fast as four, and hold
/// less memory.
const CHUNKS_AHEAD: usize = 2;

/// Reads `source` on its own thread, a few chunks ahead: decompression (or
/// the kernel's copy) then overlaps with splitting instead of adding to it.
pub(super) fn read_ahead<'scope, R: Read + Send + 'scope>(
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
pub(super) struct ChunkReader {
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
