//! The memory of batches in flight, counted in bytes: the splitter takes
//! a batch's cost before it hands the batch on, the worker adds what its
//! result holds, and the consumer gives both back once it is done.

use std::sync::{Condvar, Mutex};

use crate::split::{Batch, Game, TagSpan};

/// The most memory that batches in flight and their results may hold,
/// whatever the thread count: the bound on memory must not grow with the
/// machine.
pub(super) const MAX_BYTES_IN_FLIGHT: usize = 24 << 20;

/// What a batch holds in memory: its bytes and its tag and game records.
pub(super) fn batch_cost(batch: &Batch) -> usize {
    batch.data.cost()
        + batch.tags.capacity() * std::mem::size_of::<TagSpan>()
        + batch.games.capacity() * std::mem::size_of::<Game>()
}

/// Bytes of batches in flight, between the splitter and the consumer, and
/// of their results.
///
/// Counting bytes rather than batches keeps memory bounded when the
/// batches are 16 MiB pieces of an endless game rather than 1 MiB of
/// ordinary games. One batch larger than the whole budget still passes,
/// alone, so nothing can wait forever. A batch takes room for its result
/// too, as much as the batch itself holds, before its work begins; once
/// the result is made, what it holds takes the place of that room
/// ([`Budget::settle`]), so that the results waiting for the consumer
/// count too, and only a result larger than its batch is ever counted
/// late.
pub(super) struct Budget {
    limit: usize,
    state: Mutex<BudgetState>,
    changed: Condvar,
}

struct BudgetState {
    used: usize,
    closed: bool,
}

impl Budget {
    pub(super) fn new(limit: usize) -> Self {
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
    pub(super) fn take(&self, cost: usize) -> bool {
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

    /// Replaces `reserved` bytes taken for a result not yet made with the
    /// `held` bytes of the result made, without waiting: a result larger
    /// than its room is counted all the same, and [`Budget::take`] then
    /// waits until it is given back.
    pub(super) fn settle(&self, reserved: usize, held: usize) {
        let mut state = self
            .state
            .lock()
            .expect("no thread panics holding the budget");
        state.used = state.used + held - reserved;
        if held < reserved {
            self.changed.notify_all();
        }
    }

    pub(super) fn give_back(&self, cost: usize) {
        let mut state = self
            .state
            .lock()
            .expect("no thread panics holding the budget");
        state.used -= cost;
        self.changed.notify_all();
    }

    /// The consumer has stopped: nothing more is taken.
    pub(super) fn close(&self) {
        let mut state = self
            .state
            .lock()
            .expect("no thread panics holding the budget");
        state.closed = true;
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicU64;

    use super::*;
    use crate::split::GameReader;

    /// A batch weighs at least the bytes it holds, read from a stream (its
    /// buffer) or from a mapped file (its pages): the budget of bytes in
    /// flight counts what the batches really hold.
    #[test]
    fn a_batch_weighs_at_least_its_bytes() {
        // Games of long movetext: their bytes outweigh their records.
        let input: Vec<u8> = (0..4_000)
            .flat_map(|i| {
                format!("[Event \"{i}\"]\n\n1. e4 {{{}}} *\n\n", "x".repeat(i % 700)).into_bytes()
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        std::fs::write(&path, &input).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // SAFETY: the test's own file, which nothing else touches.
        let map = Arc::new(unsafe { memmap2::Mmap::map(&file) }.unwrap());
        let mut weighed = 0;
        let mut stream = GameReader::new(&input[..]).batch_bytes(64 << 10);
        while let Some(batch) = stream.next_batch().unwrap() {
            assert!(batch_cost(&batch) >= batch.data.len());
            weighed += batch.data.len();
        }
        let mut mapped =
            GameReader::from_mapped(map, 0, Arc::new(AtomicU64::new(0))).batch_bytes(64 << 10);
        while let Some(batch) = mapped.next_batch().unwrap() {
            assert!(batch_cost(&batch) >= batch.data.len());
            weighed += batch.data.len();
        }
        assert_eq!(weighed, 2 * input.len());
    }
}
