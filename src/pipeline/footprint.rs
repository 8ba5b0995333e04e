//! What the result of a batch's work holds in memory: it is counted
//! against the in-flight budget with its batch, until both are consumed.
//!
//! A batch of a million tiny games costs little as bytes, but what the
//! work makes of it (a row per game, an edit per game, a table row per
//! group) can take several times as much: counting only the batches let
//! the results of the batches waiting for the consumer grow past any bound.

use crate::filter::Verdict;
use crate::fix::{BatchFix, FixCounts, Row};
use crate::game::{Fingerprint, KindCounts};
use crate::stats::{StatsSummary, StatsTable};
use crate::tag::{Edit, TagCounts};
use crate::validate::{Finding, Validation};

/// The memory a value holds beyond its own size: its heap allocations, and
/// theirs, as the in-flight budget counts them.
///
/// Implemented for the results of the library's batch functions
/// ([`tag_batch`](crate::tag::tag_batch),
/// [`validate_batch`](crate::validate::validate_batch),
/// [`stats_batch`](crate::stats::stats_batch), ...), for the standard
/// containers of such values, and for plain values (which hold none).
///
/// ```
/// use pgn960::pipeline::Footprint;
///
/// let words = vec![String::from("four"), String::with_capacity(100)];
/// let expected = 2 * std::mem::size_of::<String>() + 4 + 100;
/// assert!(words.heap_bytes() >= expected);
/// assert_eq!(42u64.heap_bytes(), 0);
/// ```
pub trait Footprint {
    /// Bytes on the heap that this value owns.
    fn heap_bytes(&self) -> usize;

    /// The value's own size and its heap bytes.
    fn total_bytes(&self) -> usize
    where
        Self: Sized,
    {
        std::mem::size_of::<Self>() + self.heap_bytes()
    }
}

/// Values that own nothing on the heap.
macro_rules! no_heap {
    ($($t:ty),+ $(,)?) => {
        $(impl Footprint for $t {
            fn heap_bytes(&self) -> usize {
                0
            }
        })+
    };
}

no_heap!(
    (),
    bool,
    u8,
    u16,
    u32,
    u64,
    usize,
    i32,
    i64,
    f64,
    KindCounts,
    TagCounts,
    FixCounts,
    StatsSummary,
    Verdict,
    Fingerprint,
);

impl Footprint for String {
    fn heap_bytes(&self) -> usize {
        self.capacity()
    }
}

impl<T: Footprint> Footprint for Vec<T> {
    fn heap_bytes(&self) -> usize {
        self.capacity() * std::mem::size_of::<T>()
            + self.iter().map(Footprint::heap_bytes).sum::<usize>()
    }
}

impl<T: Footprint> Footprint for Option<T> {
    fn heap_bytes(&self) -> usize {
        self.as_ref().map_or(0, Footprint::heap_bytes)
    }
}

/// Tuples, of up to five values.
macro_rules! tuple {
    ($($name:ident),+) => {
        impl<$($name: Footprint),+> Footprint for ($($name,)+) {
            #[allow(non_snake_case)]
            fn heap_bytes(&self) -> usize {
                let ($($name,)+) = self;
                0 $(+ $name.heap_bytes())+
            }
        }
    };
}

tuple!(A, B);
tuple!(A, B, C);
tuple!(A, B, C, D);
tuple!(A, B, C, D, E);

impl Footprint for Edit {
    fn heap_bytes(&self) -> usize {
        self.insert.heap_bytes()
    }
}

impl Footprint for Finding {
    fn heap_bytes(&self) -> usize {
        self.message.heap_bytes()
    }
}

impl Footprint for Validation {
    fn heap_bytes(&self) -> usize {
        self.findings.heap_bytes()
    }
}

impl Footprint for Row {
    fn heap_bytes(&self) -> usize {
        self.tag.heap_bytes() + self.before.heap_bytes() + self.after.heap_bytes()
    }
}

impl Footprint for BatchFix {
    fn heap_bytes(&self) -> usize {
        self.edits.heap_bytes() + self.rows.heap_bytes()
    }
}

impl Footprint for StatsTable {
    /// An estimate from above: the map's nodes are not in sight, so each
    /// map is taken to fill its nodes of eleven entries only to five.
    fn heap_bytes(&self) -> usize {
        let groups = self.groups();
        let (count, bytes) = groups.fold((0, 0), |(count, bytes), (group, rows)| {
            let rows = btree_bytes::<u16, crate::stats::PositionStats>(rows.len());
            (count + 1, bytes + group.len() + rows)
        });
        bytes + btree_bytes::<String, crate::stats::Rows>(count)
    }
}

/// About the most memory a `BTreeMap<K, V>` of `len` entries holds: leaves
/// of eleven entries filled to five at least, and a node above every six.
pub(crate) fn btree_bytes<K, V>(len: usize) -> usize {
    // A leaf: eleven keys and values, the parent's address, two counts.
    const CAPACITY: usize = 11;
    let leaf = CAPACITY * (std::mem::size_of::<K>() + std::mem::size_of::<V>()) + 16;
    let leaves = len.div_ceil(5).max(1);
    // Internal nodes hold twelve child addresses more.
    let internal = leaves.div_ceil(6) * (leaf + 12 * 8);
    leaves * leaf + if leaves > 1 { internal } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_count_their_capacity_and_what_their_items_hold() {
        let mut edits = Vec::with_capacity(4);
        edits.push(Edit {
            at: 0,
            remove: 0,
            insert: Vec::with_capacity(30),
        });
        let expected = 4 * std::mem::size_of::<Edit>() + 30;
        assert_eq!(edits.heap_bytes(), expected);
        let pair = (edits, TagCounts::default());
        assert_eq!(pair.heap_bytes(), expected);
        assert_eq!(
            pair.total_bytes(),
            expected + std::mem::size_of::<(Vec<Edit>, TagCounts)>()
        );
        assert_eq!(Some(String::with_capacity(7)).heap_bytes(), 7);
    }

    #[test]
    fn a_map_is_counted_at_a_leaf_at_least_and_grows_with_its_entries() {
        let one = btree_bytes::<u16, u64>(1);
        assert!(one >= 11 * 10, "{one}");
        let many = btree_bytes::<u16, u64>(10_000);
        assert!(many >= 10_000 * 10, "{many}");
        assert!(many <= 10_000 * 10 * 4, "{many}");
    }
}
