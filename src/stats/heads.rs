//! The heads' table of [`super::copies`]: the heads of the games seen,
//! each with where its first game's moves are, in slots of 32 bytes two
//! to a cache line, so that a look-up reads one line where a hash map
//! of control bytes and slots reads two, and that line can be fetched
//! a few games ahead.
//!
//! The counting thread looks up every game's head here while the
//! workers stream the archive through the caches, so a look-up is a
//! miss to memory; fetched ahead ([`HeadTable::prefetch`]), it is not.
//! The heads are hashes (uniform), so a head's low bits are its bucket;
//! a bucket found full sends the search on to the next (linear
//! probing), and the table doubles once three quarters of its slots
//! hold a head.

/// A slot: a head (0 marks an empty slot: no head is 0) and its value.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    head: u128,
    value: [u64; 2],
}

/// Two slots, one cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct Bucket([Slot; 2]);

/// The bytes of a slot.
pub(super) const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

/// The slots of the first table: 4 buckets.
const FIRST_SLOTS: usize = 8;

/// The heads `slots` slots hold before the table doubles: three
/// quarters of them (probing then reads some two buckets a new head on
/// average, four and a half at the most).
pub(super) fn holds(slots: usize) -> usize {
    slots / 4 * 3
}

/// Heads (non-zero 128-bit hashes) and a value of two words each, in at
/// most `budget` bytes counting a growing table's old and new slots.
#[derive(Debug)]
pub(super) struct HeadTable {
    buckets: Vec<Bucket>,
    len: usize,
    budget: usize,
}

/// What [`HeadTable::look`] finds.
pub(super) enum Look<'a> {
    /// The head is in the table: its value.
    Seen(&'a mut [u64; 2]),
    /// It is not: where it goes.
    New(Vacant<'a>),
}

/// Where a head not in the table goes.
pub(super) struct Vacant<'a> {
    table: &'a mut HeadTable,
    head: u128,
    /// The empty slot the search ended at (none in an empty table).
    at: Option<(usize, usize)>,
}

impl HeadTable {
    /// An empty table of at most `budget` bytes.
    pub(super) fn new(budget: usize) -> HeadTable {
        HeadTable {
            buckets: Vec::new(),
            len: 0,
            budget,
        }
    }

    /// The heads held.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The slots of the table as it is.
    pub(super) fn slots(&self) -> usize {
        self.buckets.len() * 2
    }

    /// Whether one more head fits: in the table as it is, or in one
    /// twice its size while both are held.
    fn fits(&self) -> bool {
        if self.len < holds(self.slots()) {
            return true;
        }
        let grown = (self.slots() * 2).max(FIRST_SLOTS);
        (self.slots() + grown) * SLOT_BYTES <= self.budget
    }

    fn bucket_of(&self, head: u128) -> usize {
        head as usize & (self.buckets.len() - 1)
    }

    /// Asks for the cache line where a search for `head` begins, for a
    /// look-up some games later.
    #[inline]
    pub(super) fn prefetch(&self, head: u128) {
        if self.buckets.is_empty() {
            return;
        }
        let bucket = &self.buckets[self.bucket_of(head)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a hint, on a pointer to memory of the table; SSE is
        // part of every x86_64 processor.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(bucket).cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = bucket;
    }

    /// Where `head` is, or the empty slot where it would go.
    fn search(&self, head: u128) -> Result<(usize, usize), Option<(usize, usize)>> {
        debug_assert_ne!(head, 0, "no head is 0");
        if self.buckets.is_empty() {
            return Err(None);
        }
        let mask = self.buckets.len() - 1;
        let mut at = self.bucket_of(head);
        for _ in 0..self.buckets.len() {
            for (i, slot) in self.buckets[at].0.iter().enumerate() {
                if slot.head == head {
                    return Ok((at, i));
                }
                if slot.head == 0 {
                    return Err(Some((at, i)));
                }
            }
            at = (at + 1) & mask;
        }
        unreachable!("a table three quarters full at most has an empty slot")
    }

    /// The value of `head`, or where it goes.
    pub(super) fn look(&mut self, head: u128) -> Look<'_> {
        match self.search(head) {
            Ok((bucket, slot)) => Look::Seen(&mut self.buckets[bucket].0[slot].value),
            Err(at) => Look::New(Vacant {
                table: self,
                head,
                at,
            }),
        }
    }

    /// Every head and its value, in no order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u128, [u64; 2])> + '_ {
        self.buckets
            .iter()
            .flat_map(|bucket| bucket.0.iter())
            .filter(|slot| slot.head != 0)
            .map(|slot| (slot.head, slot.value))
    }

    /// The table at twice its size (or its first size), every head moved.
    fn grow(&mut self) {
        let slots = (self.slots() * 2).max(FIRST_SLOTS);
        let old = std::mem::replace(&mut self.buckets, vec![Bucket::default(); slots / 2]);
        for slot in old.iter().flat_map(|bucket| bucket.0.iter()) {
            if slot.head != 0 {
                let Err(Some((bucket, i))) = self.search(slot.head) else {
                    unreachable!("a head moved once, into a table with room");
                };
                self.buckets[bucket].0[i] = *slot;
            }
        }
    }
}

impl Vacant<'_> {
    /// Puts the head in with `value`, unless the table would then take
    /// more than its budget: `false`, and nothing put in.
    pub(super) fn insert(self, value: [u64; 2]) -> bool {
        let table = self.table;
        if !table.fits() {
            return false;
        }
        let mut at = self.at;
        if table.len >= holds(table.slots()) {
            table.grow();
            at = table.search(self.head).err().flatten();
        }
        let (bucket, i) = at.expect("a table with room has an empty slot");
        table.buckets[bucket].0[i] = Slot {
            head: self.head,
            value,
        };
        table.len += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A slot is 32 bytes, a bucket one 64-byte cache line, aligned.
    #[test]
    fn two_slots_make_a_cache_line() {
        assert_eq!(SLOT_BYTES, 32);
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
        assert_eq!(std::mem::align_of::<Bucket>(), 64);
    }

    /// Against a `HashMap`: heads put in, found again with their values
    /// (changed in place), new ones not found, every head listed once,
    /// across the table's growths and with heads that share low bits
    /// (their buckets collide and the search runs on, past the end of
    /// the table and round to its start).
    #[test]
    fn holds_what_a_hash_map_holds() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut table = HeadTable::new(usize::MAX);
        let mut oracle: HashMap<u128, [u64; 2]> = HashMap::new();
        for i in 0..20_000u64 {
            // Every fourth head ends in the same 12 bits as many others.
            let low = if i % 4 == 0 { 0xfff } else { next() };
            let head = (u128::from(next()) << 64 | u128::from(low)).max(1);
            let value = [i, !i];
            match (table.look(head), oracle.get(&head)) {
                (Look::New(vacant), None) => {
                    assert!(vacant.insert(value));
                    oracle.insert(head, value);
                }
                (Look::Seen(found), Some(expected)) => {
                    assert_eq!(found, expected);
                    found[0] += 1;
                    oracle.get_mut(&head).unwrap()[0] += 1;
                }
                _ => panic!("head {head:#x}: the table and the map disagree"),
            }
            if i % 7 == 0 {
                // A head seen before, looked up again.
                let (&again, _) = oracle.iter().next().unwrap();
                assert!(matches!(table.look(again), Look::Seen(_)));
            }
            assert_eq!(table.len(), oracle.len());
            assert!(table.len() <= holds(table.slots()));
        }
        let mut listed: Vec<(u128, [u64; 2])> = table.iter().collect();
        listed.sort_unstable();
        let mut expected: Vec<(u128, [u64; 2])> = oracle.into_iter().collect();
        expected.sort_unstable();
        assert_eq!(listed, expected);
    }

    /// The budget counts a growing table's old slots and its new ones:
    /// a table full at 6, 12, 24, 48 heads (8, 16, 32, 64 slots) takes
    /// one more head only when the budget holds the old slots and twice
    /// as many new ones, and an empty table when it holds 8; refused, a
    /// head is not put in.
    #[test]
    fn a_growing_table_counts_its_old_and_new_slots() {
        for (full, slots) in [(0, 0), (6, 8), (12, 16), (24, 32), (48, 64)] {
            let grown = (slots * 2).max(8);
            let needed = (slots + grown) * 32;
            for budget in [needed, needed - 1] {
                let mut table = HeadTable::new(usize::MAX);
                for head in 1..=full as u128 {
                    let Look::New(vacant) = table.look(head << 64 | head) else {
                        panic!("a new head");
                    };
                    assert!(vacant.insert([0, 0]));
                }
                assert_eq!((table.len(), table.slots()), (full, slots));
                table.budget = budget;
                assert_eq!(table.fits(), budget == needed, "{full} heads, {budget}");
                let Look::New(vacant) = table.look(u128::MAX) else {
                    panic!("a new head");
                };
                assert_eq!(vacant.insert([1, 1]), budget == needed);
                assert_eq!(table.len(), full + usize::from(budget == needed));
                assert_eq!(
                    matches!(table.look(u128::MAX), Look::Seen(_)),
                    budget == needed
                );
            }
        }
    }
}
