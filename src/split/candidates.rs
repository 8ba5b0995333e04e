//! Places in a mapped file where a reader may end early, so that several
//! readers can split one file at once (see [`super::GameReader::end_at_boundaries`]).
//!
//! A candidate is the start of a line `[Event ` whose line ends within
//! [`CANDIDATE_LINE`] bytes. Every reader of the scanner reads such a line
//! as a tag line (its `[` opens a tag name, and its end is well within
//! [`super::MAX_TAG_LINE`]), so wherever the current game has reached its
//! movetext, a new game begins there. The candidates of a file are a fixed
//! sequence, each the first at least a stretch past the one before, so
//! readers started at different candidates agree on where the later ones
//! are.

use memchr::memmem::Finder;

/// A candidate's line must end within this many bytes.
const CANDIDATE_LINE: usize = 64 << 10;

/// The candidates of a file: each the first at least `stretch` bytes past
/// the one before.
///
/// Searches look only as far as asked: a file with no candidate at all (one
/// endless comment) must not be read to its end at the start, which would
/// bring every page of it into memory at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Candidates {
    stretch: usize,
}

impl Candidates {
    /// Candidates at least `stretch` bytes apart (at least one byte).
    pub(crate) fn new(stretch: usize) -> Self {
        Candidates {
            stretch: stretch.max(1),
        }
    }

    /// Where the candidate after `last` (a candidate, or where reading
    /// began) may start at the earliest.
    pub(crate) fn earliest_after(self, last: usize) -> usize {
        last.saturating_add(self.stretch)
    }

    /// The candidate after `last` when it starts before `to`; searches the
    /// starts from `from` on (earlier ones are known not to be one).
    pub(crate) fn next_before(
        self,
        bytes: &[u8],
        last: usize,
        from: usize,
        to: usize,
    ) -> Option<usize> {
        let finder = Finder::new(b"\n[Event ");
        let to = to.min(bytes.len());
        let mut start = from.max(self.earliest_after(last));
        while start < to {
            // The pattern begins with the `\n` before a start.
            let window = &bytes[start - 1..bytes.len().min(to - 1 + PATTERN)];
            let hit = start + finder.find(window)?;
            if hit >= to {
                return None;
            }
            let line = &bytes[hit..bytes.len().min(hit + CANDIDATE_LINE)];
            if memchr::memchr2(b'\n', b'\r', line).is_some() {
                return Some(hit);
            }
            // The line goes on too long: no candidate, look further on.
            start = hit + 1;
        }
        None
    }
}

/// The length of the pattern searched for, `\n[Event `.
const PATTERN: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    impl Candidates {
        /// The candidate after `last`, wherever it is.
        fn after(self, bytes: &[u8], last: usize) -> Option<usize> {
            self.next_before(bytes, last, 0, bytes.len())
        }
    }

    #[test]
    fn a_search_within_bounds_finds_what_a_search_without_finds() {
        let bytes = b"x\n[Event \"a\"]\n1. e4 *\n[Event \"b\"]\n*\n[Event \"c\"]\n*\n";
        let candidates = Candidates::new(1);
        let b = candidates.after(bytes, 2).unwrap();
        for split in 0..bytes.len() {
            // Searching up to `split`, then on from there.
            let found = candidates
                .next_before(bytes, 2, 0, split)
                .or_else(|| candidates.next_before(bytes, 2, split, bytes.len()));
            assert_eq!(found, Some(b), "split at {split}");
        }
    }

    #[test]
    fn candidates_are_event_lines_a_stretch_apart() {
        let bytes = b"[Event \"a\"]\n1. e4 *\n[Event \"b\"]\n*\n[Event \"c\"]\n*\n";
        let b = bytes.windows(9).position(|w| w == b"[Event \"b").unwrap();
        let c = bytes.windows(9).position(|w| w == b"[Event \"c").unwrap();
        let candidates = Candidates::new(1);
        // Never the start of the file: it has no line before it.
        assert_eq!(candidates.after(bytes, 0), Some(b));
        assert_eq!(candidates.after(bytes, b), Some(c));
        assert_eq!(candidates.after(bytes, c), None);
        // A stretch reaching past `b` skips it.
        assert_eq!(Candidates::new(b + 1).after(bytes, 0), Some(c));
        assert_eq!(Candidates::new(bytes.len()).after(bytes, 0), None);
    }

    #[test]
    fn a_candidate_line_must_end_soon() {
        let mut bytes = b"x\n[Event \"long".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', CANDIDATE_LINE));
        bytes.extend_from_slice(b"\"]\n[Event \"short\"]\r\n");
        let short = bytes.len() - b"[Event \"short\"]\r\n".len();
        assert_eq!(Candidates::new(1).after(&bytes, 0), Some(short));
        // Not `[Event` alone, nor one indented or inside a line.
        assert_eq!(Candidates::new(1).after(b"x\n[Eventx\n", 0), None);
        assert_eq!(Candidates::new(1).after(b"x\n [Event \"a\"]\n", 0), None);
        assert_eq!(Candidates::new(1).after(b"x [Event \"a\"]\n", 0), None);
        assert_eq!(
            Candidates::new(usize::MAX).after(b"x\n[Event \"a\"]\n", 1),
            None
        );
    }
}
