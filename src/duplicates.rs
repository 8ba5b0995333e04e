//! Copies of a game across all inputs of a run: the fingerprints seen so
//! far ([`Fingerprint`]), in a table held in memory under a budget.
//!
//! The table is asked in input order, on the thread that consumes the
//! batches, so the first occurrence of a game is the first in input
//! order, whatever the number of threads.
//!
//! Memory: a fingerprint takes 16 bytes, and the hash table one byte
//! more a slot, its slots at most 7/8 full and doubled when they are: 19
//! to 39 bytes a distinct game, and while the slots double, the old and
//! the new at once. The table never grows past its budget; the game that
//! would make it grow past is refused ([`TooManyGames`]). `stats` then
//! goes on on disk (`stats::Copies`), from a budget of
//! [`DUPLICATES_MEMORY`], 4 MiB (114,688 distinct games), as it stays
//! under 64 MiB whatever its input; `filter --unique`, which writes in
//! input order as it reads, ends the run, at a budget of
//! [`UNIQUE_MEMORY`], 32 MiB (917,504 distinct games). `games
//! --duplicates` notes where each game was first seen too ([`Firsts`]: 21
//! bytes a slot, as many games in a budget) and ends the run likewise, at
//! a budget of [`GAMES_MEMORY`], 16 MiB (458,752 distinct games). A
//! billion distinct games would need 36 GB (2³¹ slots), 55 GB while the
//! slots double (45 and 68 GB with where each was first seen). Beyond the
//! budget, split the archive by start position
//! (`filter --split-by position`): every copy of a game starts from the
//! same position, so each part holds all copies of its games. Copies in
//! different shards of an archive cut some other way are the shards'
//! business: `stats --merge` adds what each shard counted.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use crate::game::{Fingerprint, Reading};
use crate::split::Batch;

/// The memory the table of fingerprints of `stats` may take before it
/// goes to disk: 4 MiB.
pub const DUPLICATES_MEMORY: usize = 4 << 20;

/// The memory the table of fingerprints of `filter --unique` may take:
/// 32 MiB.
pub const UNIQUE_MEMORY: usize = 32 << 20;

/// The memory the table of first occurrences of `games --duplicates` may
/// take: 16 MiB (458,752 distinct games), so that `games` stays under 64
/// MiB with it (its batches in flight take less room with the option).
pub const GAMES_MEMORY: usize = 16 << 20;

/// The fingerprints seen so far.
///
/// ```
/// use pgn960::duplicates::Seen;
/// use pgn960::game::Fingerprint;
///
/// let mut seen = Seen::new(1 << 20);
/// assert!(seen.first(Fingerprint(7))?);
/// assert!(!seen.first(Fingerprint(7))?);
/// assert_eq!((seen.distinct(), seen.repeats()), (1, 1));
/// # Ok::<_, pgn960::duplicates::TooManyGames>(())
/// ```
#[derive(Debug)]
pub struct Seen {
    set: HashSet<[u64; 2], BuildHasherDefault<LowBits>>,
    budget: usize,
    repeats: u64,
}

/// The table holds more than its budget allows: the run cannot tell
/// copies apart any longer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyGames {
    /// Distinct games held when the table was full.
    pub distinct: usize,
    /// The budget, in bytes.
    pub budget: usize,
}

impl fmt::Display for TooManyGames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "more than {} distinct games: telling their copies apart would take more than \
             {} MiB (PGN960_DUPLICATES_MEMORY sets it, in bytes); split the archive with \
             `filter --split-by position` (every copy of a game starts from the same \
             position) and run on each part",
            self.distinct,
            self.budget >> 20
        )
    }
}

impl std::error::Error for TooManyGames {}

impl Seen {
    /// An empty table that never takes more than `budget` bytes.
    pub fn new(budget: usize) -> Seen {
        Seen {
            set: HashSet::default(),
            budget,
            repeats: 0,
        }
    }

    /// Whether this is the first time `fingerprint` is seen (it is then
    /// noted), or a repeat.
    ///
    /// # Errors
    ///
    /// [`TooManyGames`] when noting a new fingerprint would take the
    /// table past its budget.
    pub fn first(&mut self, fingerprint: Fingerprint) -> Result<bool, TooManyGames> {
        let key = [fingerprint.0 as u64, (fingerprint.0 >> 64) as u64];
        if self.set.contains(&key) {
            self.repeats += 1;
            return Ok(false);
        }
        if self.set.len() == self.set.capacity() {
            let grown = slots_for(self.set.len() + 1) * SLOT_BYTES;
            if self.bytes() + grown > self.budget {
                return Err(TooManyGames {
                    distinct: self.set.len(),
                    budget: self.budget,
                });
            }
        }
        self.set.insert(key);
        Ok(true)
    }

    /// Distinct games seen.
    pub fn distinct(&self) -> usize {
        self.set.len()
    }

    /// Games that repeated one seen before.
    pub fn repeats(&self) -> u64 {
        self.repeats
    }

    /// Every fingerprint seen, in no order, the table freed.
    pub fn into_fingerprints(self) -> Vec<Fingerprint> {
        self.set
            .into_iter()
            .map(|[low, high]| Fingerprint(u128::from(high) << 64 | u128::from(low)))
            .collect()
    }

    /// The bytes the table holds now.
    pub fn bytes(&self) -> usize {
        table_bytes(self.set.capacity(), SLOT_BYTES)
    }
}

/// The first occurrence of every fingerprint seen so far, by a number
/// its caller gives (`games --duplicates` gives each game's place in the
/// run), held in memory under a budget as [`Seen`] is: 20 bytes a
/// fingerprint, 21 a slot of the table, so that the same budget holds as
/// many games as `Seen`'s (917,504 distinct games in 32 MiB, 33 MB while
/// the slots double; `games --duplicates` takes [`GAMES_MEMORY`]).
///
/// ```
/// use pgn960::duplicates::Firsts;
/// use pgn960::game::Fingerprint;
///
/// let mut firsts = Firsts::new(1 << 20);
/// assert_eq!(firsts.first_of(Fingerprint(7), 1)?, None);
/// assert_eq!(firsts.first_of(Fingerprint(8), 2)?, None);
/// assert_eq!(firsts.first_of(Fingerprint(7), 3)?, Some(1));
/// # Ok::<_, pgn960::duplicates::TooManyGames>(())
/// ```
#[derive(Debug)]
pub struct Firsts {
    map: HashMap<[u32; 4], u32, BuildHasherDefault<LowBits>>,
    budget: usize,
}

impl Firsts {
    /// An empty table that never takes more than `budget` bytes.
    pub fn new(budget: usize) -> Firsts {
        Firsts {
            map: HashMap::default(),
            budget,
        }
    }

    /// The number noted with the first occurrence of `fingerprint`, or
    /// `None` when this is its first occurrence (`at` is then noted).
    ///
    /// # Errors
    ///
    /// [`TooManyGames`] when noting a new fingerprint would take the
    /// table past its budget.
    pub fn first_of(
        &mut self,
        fingerprint: Fingerprint,
        at: u32,
    ) -> Result<Option<u32>, TooManyGames> {
        let f = fingerprint.0;
        let key = [
            f as u32,
            (f >> 32) as u32,
            (f >> 64) as u32,
            (f >> 96) as u32,
        ];
        if let Some(&first) = self.map.get(&key) {
            return Ok(Some(first));
        }
        if self.map.len() == self.map.capacity() {
            let grown = slots_for(self.map.len() + 1) * FIRST_SLOT_BYTES;
            if self.bytes() + grown > self.budget {
                return Err(TooManyGames {
                    distinct: self.map.len(),
                    budget: self.budget,
                });
            }
        }
        self.map.insert(key, at);
        Ok(None)
    }

    /// Distinct games seen.
    pub fn distinct(&self) -> usize {
        self.map.len()
    }

    /// The bytes the table holds now.
    pub fn bytes(&self) -> usize {
        table_bytes(self.map.capacity(), FIRST_SLOT_BYTES)
    }
}

/// The bytes of a table of `capacity` entries in slots of `slot_bytes`.
fn table_bytes(capacity: usize, slot_bytes: usize) -> usize {
    if capacity == 0 {
        0
    } else {
        slots_for(capacity) * slot_bytes
    }
}

/// The fingerprints of the games of a batch for which `wanted` (given
/// each game's index in the batch) is true; `None` for the others.
pub fn fingerprints(batch: &Batch, wanted: impl Fn(usize) -> bool) -> Vec<Option<Fingerprint>> {
    let mut scratch = Vec::new();
    batch
        .games
        .iter()
        .enumerate()
        .map(|(i, game)| {
            if !wanted(i) {
                return None;
            }
            Fingerprint::of(batch, game, &Reading::of(batch, game), &mut scratch)
        })
        .collect()
}

/// A slot of the table: the key and a control byte.
const SLOT_BYTES: usize = std::mem::size_of::<[u64; 2]>() + 1;

/// A slot of [`Firsts`]' table: the key, the number and a control byte.
const FIRST_SLOT_BYTES: usize = std::mem::size_of::<([u32; 4], u32)>() + 1;

/// The slots a table of `capacity` entries has: at most 7/8 full, a power
/// of two (the standard library's table, as it grows).
fn slots_for(capacity: usize) -> usize {
    if capacity < 8 {
        return if capacity < 4 { 4 } else { 8 };
    }
    (capacity * 8 / 7).next_power_of_two()
}

/// A hasher that takes a fingerprint's low 64 bits as they are: they are
/// a hash already.
#[derive(Default)]
pub(crate) struct LowBits(u64);

impl Hasher for LowBits {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // `[u64; 2]` hashes as its length and its two words; the low word
        // (written first after the length) is kept.
        for chunk in bytes.chunks(8) {
            let mut word = [0; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = self.0.rotate_left(5) ^ u64::from_le_bytes(word);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = self.0.rotate_left(5) ^ value;
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_stays_within_its_budget() {
        let budget = 64 << 10;
        let mut seen = Seen::new(budget);
        let mut refused = None;
        for i in 0..100_000u128 {
            let fingerprint =
                Fingerprint(i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835));
            match seen.first(fingerprint) {
                Ok(true) => {}
                Ok(false) => panic!("no repeats here"),
                Err(err) => {
                    refused = Some(err);
                    break;
                }
            }
            assert!(seen.bytes() <= budget);
        }
        let refused = refused.expect("100,000 games take more than 64 KiB");
        assert_eq!(refused.distinct, seen.distinct());
        // Half the budget or more is used before the refusal.
        assert!(seen.bytes() * 4 >= budget, "{} of {budget}", seen.bytes());
    }

    /// A budget holds as many games in either table: 917,504 in that of
    /// `filter --unique` (7/8 of 2²⁰ slots).
    #[test]
    fn both_tables_hold_as_many_games_in_a_budget() {
        assert_eq!(FIRST_SLOT_BYTES, 21);
        let mut seen = Seen::new(UNIQUE_MEMORY);
        let mut firsts = Firsts::new(UNIQUE_MEMORY);
        let mut i = 0u32;
        let (seen_full, firsts_full) = loop {
            let fingerprint =
                Fingerprint(u128::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835));
            let (a, b) = (seen.first(fingerprint), firsts.first_of(fingerprint, i));
            match (a, b) {
                (Ok(true), Ok(None)) => {}
                (Err(a), Err(b)) => break (a, b),
                other => panic!("game {i}: {other:?}"),
            }
            assert!(firsts.bytes() <= UNIQUE_MEMORY);
            i += 1;
        };
        assert_eq!(seen_full.distinct, 917_504);
        assert_eq!(firsts_full.distinct, 917_504);
        let again = Fingerprint(3u128.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835));
        assert_eq!(
            firsts.first_of(again, i),
            Ok(Some(3)),
            "a copy is still told"
        );
    }
}
