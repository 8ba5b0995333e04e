//! Each game counted once, in bounded memory: the copies `stats` leaves
//! out by default.
//!
//! While the fingerprints of the games seen fit their budget ([`Seen`]),
//! a game is counted as it comes unless it repeats one seen before. Once
//! they do not, the fingerprints go to disk as a sorted run, and from
//! then on every game to count goes to disk too, as a record of its
//! fingerprint, its place in the run's order of games, its group,
//! position (or pair of arrays), facts and why its result was not played,
//! in sorted runs written a budget at a time (the runs of
//! groups' machinery, `spill`). At the end the runs are merged in order
//! of fingerprint and place: of each fingerprint's records, the first
//! decides (a game counted before the table filled: all the others are
//! copies; else the first is counted, or left out as unplayed or below
//! `--min-elo`, and the others are copies). So the counts are those of
//! one pass in memory: the first occurrence in input
//! order is the one counted, whatever the thread count or the budget.
//!
//! A record takes about 30 bytes on disk and as many in memory (plus its
//! group's name): a billion games write some 30 GB of runs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use memmap2::Mmap;

use crate::duplicates::{Seen, TooManyGames};
use crate::game::{Fingerprint, Unplayed};
use crate::split::{Batch, Game};

use super::heads::{HeadTable, Look};
use super::spill::{
    RUN_BUFFER, Runs, corrupt, read_varint, read_varint_or_end, unzigzag, write_varint, zigzag,
};
use super::{Candidate, GameFacts, GameResult, Tally};

/// The memory the records of games waiting for the merge may take, once
/// the fingerprints are on disk: 1 MiB (their vector is reserved whole).
pub const WAITING_MEMORY: usize = 1 << 20;

/// The game of a record that stands for a game counted before the
/// fingerprints went to disk: never read.
const NO_GAME: Candidate = Candidate {
    white: 0,
    black: None,
    group: String::new(),
    facts: GameFacts {
        result: None,
        white_elo: None,
        black_elo: None,
    },
    unplayed: None,
};

/// A game to count but for its copies, waiting on disk for the merge.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Waiting {
    fingerprint: u128,
    /// The game's place among the games kept, from 1; 0 marks a
    /// fingerprint counted before the table filled.
    place: u64,
    game: Candidate,
}

/// What becomes of a game offered to [`Copies::offer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered {
    /// Count it: no game seen before has its fingerprint.
    Count,
    /// It repeats a game seen before: leave it out.
    Copy,
    /// Kept for the merge at the end, which counts it or not: its
    /// fingerprint.
    Later(Fingerprint),
}

/// The heads of the games of mapped files seen ([`Fingerprint::head`]),
/// each with where its first game's moves are, unread, in its map: a
/// game's moves are read only when a later game has its head.
#[derive(Debug)]
struct Lazy {
    heads: HeadTable,
    maps: Vec<Arc<Mmap>>,
}

/// A head's value once its games' fingerprints are all in the table.
const HASHED: [u64; 2] = [u64::MAX, u64::MAX];

/// The memory the heads' table may take: 8 MiB, 98,304 games of mapped
/// files in 131,072 slots (beyond, every game's moves are read). Growing,
/// the table holds its old slots and twice as many new ones at once:
/// 262,144 slots would need 12 MiB (of 32 bytes each).
pub const LAZY_MEMORY: usize = 8 << 20;

/// The games seen, across a run's inputs, to count each game once.
///
/// While the inputs are mapped files, a game is known by its head alone
/// until a later game has the same head: only then are the moves of both
/// read (the first from its map), and their fingerprints kept. A game
/// whose batch is not mapped (a stream) has its fingerprint made by the
/// worker, and from the first one on, every game's: [`Copies::eager`]
/// tells the workers.
#[derive(Debug)]
pub struct Copies {
    lazy: Option<Lazy>,
    eager: Arc<AtomicBool>,
    scratch: Vec<u8>,
    seen: Option<Seen>,
    waiting: Vec<Waiting>,
    waiting_bytes: usize,
    waiting_budget: usize,
    places: u64,
    runs: Runs,
}

impl Copies {
    /// No game seen yet: the fingerprints take `budget` bytes at most, the
    /// games waiting for the merge `waiting_budget`; runs go to
    /// `directory` (the caller's temporary directory) or to one of their
    /// own.
    pub fn new(budget: usize, waiting_budget: usize, directory: Option<&Path>) -> Copies {
        Copies {
            lazy: Some(Lazy {
                heads: HeadTable::new(LAZY_MEMORY.min(budget.saturating_mul(2))),
                maps: Vec::new(),
            }),
            eager: Arc::new(AtomicBool::new(false)),
            scratch: Vec::new(),
            seen: Some(Seen::new(budget)),
            waiting: Vec::new(),
            waiting_bytes: 0,
            waiting_budget,
            places: 0,
            runs: Runs::in_directory(directory, "copies-"),
        }
    }

    /// Whether the fingerprints went to disk.
    pub fn spilled(&self) -> bool {
        self.seen.is_none()
    }

    /// Whether a worker must make every game's fingerprint (the games
    /// are not all known by their heads): shared with the workers.
    pub fn eager(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.eager)
    }

    /// Offers game `game` of `batch` (with where its movetext starts and
    /// whether it starts a line), of head `head` (`None`: a game never
    /// taken for a copy, whose tags or movetext are not whole) and, when
    /// its worker made it, fingerprint `made`, in input order: a game to
    /// count, a copy, or once the fingerprints went to disk, a game to
    /// keep ([`Copies::keep`]) for [`Copies::finish`].
    ///
    /// # Errors
    ///
    /// An error writing the fingerprints to disk.
    pub fn offer(
        &mut self,
        batch: &Batch,
        (game, (start, starts_line)): (&Game, (usize, bool)),
        head: Option<u128>,
        made: Option<Fingerprint>,
    ) -> io::Result<Offered> {
        let Some(head) = head else {
            return Ok(Offered::Count);
        };
        if self.lazy.is_some() {
            let mapped = batch.data.map();
            let lazy = self.lazy.as_mut().expect("checked");
            // One look-up a game: most heads are new, and inserted where
            // the look-up found no match.
            match (lazy.heads.look(head), mapped) {
                (Look::New(slot), Some((map, base))) => {
                    let index = match lazy.maps.last() {
                        Some(last) if Arc::ptr_eq(last, map) => lazy.maps.len() - 1,
                        _ => {
                            lazy.maps.push(Arc::clone(map));
                            lazy.maps.len() - 1
                        }
                    };
                    let value = pack(index, (base + start, base + game.range.end), starts_line);
                    // Refused past the table's budget.
                    if let Some(value) = value
                        && slot.insert(value)
                    {
                        return Ok(Offered::Count);
                    }
                    self.go_eager()?;
                }
                (Look::Seen(slot), Some(_)) => {
                    let value = *slot;
                    if value != HASHED {
                        *slot = HASHED;
                        let first = self.read_back(head, value);
                        self.note_counted(first)?;
                    }
                }
                _ => self.go_eager()?,
            }
        }
        let fingerprint = match made {
            Some(fingerprint) => fingerprint,
            None => {
                let moves = Fingerprint::moves(
                    &batch.data[start..game.range.end],
                    starts_line,
                    &mut self.scratch,
                );
                Fingerprint::join(head, moves)
            }
        };
        if let Some(seen) = &mut self.seen {
            match seen.first(fingerprint) {
                Ok(true) => return Ok(Offered::Count),
                Ok(false) => return Ok(Offered::Copy),
                Err(TooManyGames { .. }) => self.spill_seen()?,
            }
        }
        Ok(Offered::Later(fingerprint))
    }

    /// The fingerprint of the first game of head `head`, whose moves are
    /// where `value` says.
    fn read_back(&mut self, head: u128, value: [u64; 2]) -> Fingerprint {
        let lazy = self.lazy.as_ref().expect("only while lazy");
        let (index, range, starts_line) = unpack(value);
        let text = &lazy.maps[index][range];
        Fingerprint::join(
            head,
            Fingerprint::moves(text, starts_line, &mut self.scratch),
        )
    }

    /// Notes a game counted: its fingerprint in the table, or once the
    /// table went to disk, as a record that it was counted.
    fn note_counted(&mut self, fingerprint: Fingerprint) -> io::Result<()> {
        if let Some(seen) = &mut self.seen {
            match seen.first(fingerprint) {
                Ok(_) => return Ok(()),
                Err(TooManyGames { .. }) => self.spill_seen()?,
            }
        }
        self.push_waiting(Waiting {
            fingerprint: fingerprint.0,
            place: 0,
            game: NO_GAME,
        })
    }

    /// From now on every game's fingerprint is made (by its worker where
    /// it can): the first games of the heads seen have theirs read back
    /// and noted, and their maps let go.
    fn go_eager(&mut self) -> io::Result<()> {
        self.eager.store(true, Ordering::Relaxed);
        let Some(lazy) = self.lazy.take() else {
            return Ok(());
        };
        let mut firsts = Vec::new();
        for (head, value) in lazy.heads.iter() {
            if value == HASHED {
                continue;
            }
            let (index, range, starts_line) = unpack(value);
            let moves =
                Fingerprint::moves(&lazy.maps[index][range], starts_line, &mut self.scratch);
            firsts.push(Fingerprint::join(head, moves));
        }
        drop(lazy);
        for first in firsts {
            self.note_counted(first)?;
        }
        Ok(())
    }

    /// Asks for the memory a later [`Copies::offer`] of head `head` (0:
    /// none) will read, while the games before it are offered.
    #[inline]
    pub fn prefetch(&self, head: u128) {
        if let Some(lazy) = &self.lazy
            && head != 0
        {
            lazy.heads.prefetch(head);
        }
    }

    /// Keeps a game [`Copies::offer`] said to keep, in input order, for
    /// the merge at the end.
    ///
    /// # Errors
    ///
    /// An error writing a run.
    pub(super) fn keep(&mut self, fingerprint: Fingerprint, game: Candidate) -> io::Result<()> {
        self.places += 1;
        let place = self.places;
        self.push_waiting(Waiting {
            fingerprint: fingerprint.0,
            place,
            game,
        })
    }

    /// Adds a record to those waiting, and writes them as a run when they
    /// fill their budget.
    fn push_waiting(&mut self, record: Waiting) -> io::Result<()> {
        if self.waiting.capacity() == 0 {
            self.waiting =
                Vec::with_capacity((self.waiting_budget / std::mem::size_of::<Waiting>()).max(1));
        }
        self.waiting_bytes += std::mem::size_of::<Waiting>() + record.game.group.len();
        self.waiting.push(record);
        if self.waiting_bytes > self.waiting_budget || self.waiting.len() == self.waiting.capacity()
        {
            self.spill_waiting()?;
        }
        Ok(())
    }

    /// Writes the fingerprints seen, sorted, as a run of records of place
    /// 0, and frees them.
    fn spill_seen(&mut self) -> io::Result<()> {
        let seen = self.seen.take().expect("spilled once");
        let mut fingerprints = seen.into_fingerprints();
        fingerprints.sort_unstable();
        let (path, mut out) = self.runs.create()?;
        for fingerprint in fingerprints {
            write_waiting(
                &mut out,
                &Waiting {
                    fingerprint: fingerprint.0,
                    place: 0,
                    game: NO_GAME,
                },
            )?;
        }
        finish_run(out)?;
        self.runs.add(path);
        Ok(())
    }

    /// Writes the waiting games, sorted, as a run.
    fn spill_waiting(&mut self) -> io::Result<()> {
        self.waiting_bytes = 0;
        self.waiting
            .sort_unstable_by_key(|w| (w.fingerprint, w.place));
        let (path, mut out) = self.runs.create()?;
        for record in self.waiting.drain(..) {
            write_waiting(&mut out, &record)?;
        }
        finish_run(out)?;
        self.runs.add(path);
        Ok(())
    }

    /// Counts the games kept for the merge that are no copies where
    /// `tally` says, and notes in its summary what became of each.
    ///
    /// # Errors
    ///
    /// An error writing, reading or merging runs, or writing the tables'.
    pub(crate) fn finish(mut self, tally: &mut Tally<'_>) -> io::Result<()> {
        if self.seen.is_some() {
            return Ok(());
        }
        if !self.waiting.is_empty() {
            self.spill_waiting()?;
        }
        self.runs
            .reduce_by(|merged, out| merge(merged, |record| write_waiting(out, &record)))?;
        let mut first: Option<Waiting> = None;
        let decide = |first: Waiting, tally: &mut Tally<'_>| {
            if first.place == 0 {
                return Ok(());
            }
            tally.add(&first.game)
        };
        merge(self.runs.files(), |record| {
            match &first {
                Some(head) if head.fingerprint == record.fingerprint => {
                    tally.summary.duplicates += 1;
                }
                _ => {
                    if let Some(head) = first.replace(record) {
                        decide(head, tally)?;
                    }
                }
            }
            Ok(())
        })?;
        if let Some(head) = first {
            decide(head, tally)?;
        }
        Ok(())
    }
}

/// Flushes a run.
fn finish_run(out: BufWriter<File>) -> io::Result<()> {
    out.into_inner().map_err(io::IntoInnerError::into_error)?;
    Ok(())
}

/// Hands every record of `files`' runs to `each`, in order of fingerprint
/// and place.
fn merge(files: &[PathBuf], mut each: impl FnMut(Waiting) -> io::Result<()>) -> io::Result<()> {
    let mut inputs = Vec::with_capacity(files.len());
    let mut heads = BinaryHeap::with_capacity(files.len());
    let mut records = Vec::with_capacity(files.len());
    for (run, path) in files.iter().enumerate() {
        let mut input = BufReader::with_capacity(RUN_BUFFER, File::open(path)?);
        let record = read_waiting(&mut input)?;
        if let Some(record) = &record {
            heads.push(Reverse((record.fingerprint, record.place, run)));
        }
        records.push(record);
        inputs.push(input);
    }
    while let Some(Reverse((_, _, run))) = heads.pop() {
        let record = records[run].take().expect("a record for each head");
        let next = read_waiting(&mut inputs[run])?;
        if let Some(next) = &next {
            heads.push(Reverse((next.fingerprint, next.place, run)));
        }
        records[run] = next;
        each(record)?;
    }
    Ok(())
}

fn write_waiting(out: &mut impl Write, record: &Waiting) -> io::Result<()> {
    let game = &record.game;
    out.write_all(&record.fingerprint.to_be_bytes())?;
    write_varint(out, record.place)?;
    write_varint(out, game.group.len() as u64)?;
    out.write_all(game.group.as_bytes())?;
    write_varint(out, u64::from(game.white))?;
    // Black's array, plus one; 0 for none.
    write_varint(out, game.black.map_or(0, |black| u64::from(black) + 1))?;
    let result = match game.facts.result {
        None => 0,
        Some(GameResult::WhiteWins) => 1,
        Some(GameResult::Draw) => 2,
        Some(GameResult::BlackWins) => 3,
    };
    // The reason the result was not played, plus one; 0 for none.
    let unplayed = game.unplayed.map_or(0, |reason| {
        1 + Unplayed::ALL
            .iter()
            .position(|r| *r == reason)
            .expect("every reason is in ALL") as u8
    });
    out.write_all(&[result | unplayed << 2])?;
    for elo in [game.facts.white_elo, game.facts.black_elo] {
        write_varint(out, elo.map_or(0, |elo| zigzag(i64::from(elo)) + 1))?;
    }
    Ok(())
}

/// The next record of a run, or none at its end.
fn read_waiting(input: &mut impl BufRead) -> io::Result<Option<Waiting>> {
    if input.fill_buf()?.is_empty() {
        return Ok(None);
    }
    let mut fingerprint = [0; 16];
    input.read_exact(&mut fingerprint)?;
    let place = read_varint(input)?;
    let len = usize::try_from(read_varint(input)?).map_err(|_| corrupt())?;
    let mut group = vec![0; len];
    input.read_exact(&mut group)?;
    let group = String::from_utf8(group).map_err(|_| corrupt())?;
    let white = u16::try_from(read_varint(input)?).map_err(|_| corrupt())?;
    let black = match read_varint(input)? {
        0 => None,
        n => Some(u16::try_from(n - 1).map_err(|_| corrupt())?),
    };
    let mut flags = [0];
    input.read_exact(&mut flags)?;
    let result = match flags[0] & 3 {
        0 => None,
        1 => Some(GameResult::WhiteWins),
        2 => Some(GameResult::Draw),
        _ => Some(GameResult::BlackWins),
    };
    let mut elo = || -> io::Result<Option<i32>> {
        match read_varint_or_end(input)?.ok_or_else(corrupt)? {
            0 => Ok(None),
            n => i32::try_from(unzigzag(n - 1))
                .map(Some)
                .map_err(|_| corrupt()),
        }
    };
    let white_elo = elo()?;
    let black_elo = elo()?;
    let unplayed = match flags[0] >> 2 {
        0 => None,
        n => Some(*Unplayed::ALL.get(usize::from(n) - 1).ok_or_else(corrupt)?),
    };
    Ok(Some(Waiting {
        fingerprint: u128::from_be_bytes(fingerprint),
        place,
        game: Candidate {
            white,
            black,
            group,
            facts: GameFacts {
                result,
                white_elo,
                black_elo,
            },
            unplayed,
        },
    }))
}

/// Bits of a packed place's end; above them, its map's index (15 bits)
/// and whether it starts a line (1 bit).
const END_BITS: u32 = 48;

/// Where a game's moves are: its map's index, their bytes, and whether
/// they start a line, in two words; `None` beyond what two words hold.
fn pack(index: usize, (start, end): (usize, usize), starts_line: bool) -> Option<[u64; 2]> {
    let (start, end, index) = (start as u64, end as u64, index as u64);
    if end >> END_BITS != 0 || index >= 1 << 15 {
        return None;
    }
    Some([
        start,
        end | index << END_BITS | u64::from(starts_line) << 63,
    ])
}

/// [`pack`] undone.
fn unpack(value: [u64; 2]) -> (usize, std::ops::Range<usize>, bool) {
    let end = value[1] & ((1 << END_BITS) - 1);
    let index = (value[1] >> END_BITS) & ((1 << 15) - 1);
    (
        index as usize,
        value[0] as usize..end as usize,
        value[1] >> 63 == 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the docs say of the heads' table: 98,304 games in its 8 MiB
    /// (three quarters of 131,072 slots; the next size would take 12 MiB
    /// while growing).
    #[test]
    fn the_heads_table_holds_98_304_games_within_its_budget() {
        let mut heads = HeadTable::new(LAZY_MEMORY);
        let mut head = 0u128;
        loop {
            head += 1;
            let Look::New(slot) = heads.look(head << 64 | head) else {
                panic!("a new head");
            };
            if !slot.insert([0, 0]) {
                break;
            }
        }
        assert_eq!((heads.len(), heads.slots()), (98_304, 131_072));
    }

    /// Where a game's moves are packs into two words and back at the
    /// limits of what they hold (the 32,768th map, an end just under
    /// 2⁴⁸, a game that starts a line), and beyond them is refused: the
    /// run then makes every game's fingerprint.
    #[test]
    fn places_pack_and_unpack_at_their_limits() {
        let last_map = (1 << 15) - 1;
        let last_end = (1 << END_BITS) - 1;
        for (index, (start, end), starts_line) in [
            (0, (0, 0), false),
            (1, (3, 9), false),
            (last_map, (7, last_end), true),
        ] {
            let packed = pack(index, (start, end), starts_line).expect("within two words");
            assert_eq!(unpack(packed), (index, start..end, starts_line));
        }
        assert_eq!(pack(last_map + 1, (0, 1), false), None);
        assert_eq!(pack(0, (0, last_end + 1), false), None);
    }

    /// The games of a stream offered one by one: while their fingerprints
    /// fit the budget, each new game is counted and nothing is on disk;
    /// past it, the fingerprints go to disk and the later games wait for
    /// the merge at the end.
    #[test]
    fn fingerprints_past_their_budget_go_to_disk() {
        use crate::game::Reading;
        use crate::split::GameReader;
        let pgn: Vec<u8> = (0..2_000)
            .flat_map(|i| format!("[White \"{i}\"]\n\n1. e4 *\n\n").into_bytes())
            .collect();
        let batch = GameReader::new(&pgn[..]).next_batch().unwrap().unwrap();
        assert_eq!(batch.games.len(), 2_000);
        let dir = tempfile::tempdir().unwrap();
        for (budget, spills) in [(4 << 10, true), (1 << 20, false)] {
            let mut copies = Copies::new(budget, 1 << 10, Some(dir.path()));
            assert!(!copies.spilled());
            let mut scratch = Vec::new();
            let offered: Vec<Offered> = batch
                .games
                .iter()
                .map(|game| {
                    let reading = Reading::of(&batch, game);
                    let head = Fingerprint::head(&batch, game, &reading, &mut scratch);
                    let made = Fingerprint::of(&batch, game, &reading, &mut scratch);
                    let movetext = batch.movetext_start(game);
                    copies.offer(&batch, (game, movetext), head, made).unwrap()
                })
                .collect();
            assert_eq!(copies.spilled(), spills, "budget {budget}");
            assert_eq!(offered[0], Offered::Count);
            let later = offered
                .iter()
                .filter(|o| matches!(o, Offered::Later(_)))
                .count();
            assert_eq!(later > 0, spills, "budget {budget}");
            assert!(!offered.contains(&Offered::Copy));
        }
    }

    /// The games waiting for the merge at the end go to disk once they
    /// fill their budget, their groups' names counted: games of long
    /// names never hold more than it.
    #[test]
    fn games_waiting_never_hold_more_than_their_budget() {
        let dir = tempfile::tempdir().unwrap();
        let budget = 8 << 10;
        let mut copies = Copies::new(1 << 10, budget, Some(dir.path()));
        for i in 0..50 {
            let game = Candidate {
                group: "g".repeat(1_000),
                ..NO_GAME
            };
            copies.keep(Fingerprint(i + 1), game).unwrap();
            assert!(copies.waiting_bytes <= budget, "after {i}");
        }
        assert!(copies.waiting.len() < 10);
    }

    #[test]
    fn records_read_back_as_written() {
        let records = [
            Waiting {
                fingerprint: u128::MAX - 5,
                place: 0,
                game: NO_GAME,
            },
            Waiting {
                fingerprint: 7,
                place: 1 << 40,
                game: Candidate {
                    white: 959,
                    black: Some(0),
                    group: "Rated blitz ☃".into(),
                    facts: GameFacts {
                        result: Some(GameResult::BlackWins),
                        white_elo: Some(-3),
                        black_elo: Some(4000),
                    },
                    unplayed: Some(Unplayed::ALL[4]),
                },
            },
        ];
        let mut bytes = Vec::new();
        for record in &records {
            write_waiting(&mut bytes, record).unwrap();
        }
        let mut input = &bytes[..];
        for record in &records {
            assert_eq!(read_waiting(&mut input).unwrap().as_ref(), Some(record));
        }
        assert_eq!(read_waiting(&mut input).unwrap(), None);
    }
}
