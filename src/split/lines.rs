//! Line numbers, counted where they are needed: within a batch by the
//! worker that needs them ([`LineCounter`]), and across batches by the
//! pipeline, which sees them in order (`pipeline::lines`). The splitter
//! counts none: `tag` and `stats` never ask.
//!
//! A line ends at `\n`, `\r\n` or a lone `\r`, as in every PGN writer's
//! output; a `\r\n` split between two batches ends one line.

use std::cell::Cell;

/// The offset of the start of the line holding `at`.
pub fn line_start(data: &[u8], at: usize) -> usize {
    data[..at]
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1)
}

/// Counts the line ends (`\n`, `\r\n`, lone `\r`) that finish in
/// `data[from..to]`; `cr_before` says whether the byte before `data` was a
/// `\r` (whose `\n` at `data[0]` then ends no new line).
pub fn count_line_ends(data: &[u8], from: usize, to: usize, cr_before: bool) -> u64 {
    let slice = &data[from..to];
    let newlines = memchr::memchr_iter(b'\n', slice).count() as u64;
    let mut prev_cr = if from == 0 {
        cr_before
    } else {
        data[from - 1] == b'\r'
    };
    if memchr::memchr(b'\r', slice).is_none() {
        // A `\n` right after a `\r` from before this slice ends no new line.
        let joined = prev_cr && slice.first() == Some(&b'\n');
        return newlines - u64::from(joined);
    }
    let mut lines = 0;
    for &b in slice {
        match b {
            b'\n' if !prev_cr => lines += 1,
            b'\r' => lines += 1,
            _ => {}
        }
        prev_cr = b == b'\r';
    }
    lines
}

/// The lines of one batch's bytes, counted only as far as asked: most
/// games have nothing to report and need no line number.
///
/// Asking in increasing order counts every byte once. A game's checks may
/// ask out of order (a move, then a tag above it): [`LineCounter::floor`]
/// marks the game's first line, from which such a question is counted
/// again, so that a game costs one pass over its own bytes however many
/// questions it asks.
#[derive(Debug)]
pub struct LineCounter<'a> {
    data: &'a [u8],
    /// The last place asked about, and its line.
    last: Cell<(usize, u64)>,
    /// A place no later question comes before, and its line.
    floor: Cell<(usize, u64)>,
}

impl<'a> LineCounter<'a> {
    /// Lines of `data`, the first of which is line 1.
    pub fn new(data: &'a [u8]) -> Self {
        LineCounter {
            data,
            last: Cell::new((0, 1)),
            floor: Cell::new((0, 1)),
        }
    }

    /// The line (1 for the first) holding `data[offset]`.
    pub fn line_of(&self, offset: usize) -> u64 {
        let (from, line) = [self.last.get(), self.floor.get()]
            .into_iter()
            .filter(|&(at, _)| at <= offset)
            .max_by_key(|&(at, _)| at)
            .unwrap_or((0, 1));
        let line = line + count_line_ends(self.data, from, offset, false);
        self.last.set((offset, line));
        line
    }

    /// Notes that no question will come before `offset` until the next
    /// floor, and returns its line.
    pub fn floor(&self, offset: usize) -> u64 {
        let line = self.line_of(offset);
        self.floor.set((offset, line));
        line
    }

    /// Every line end in the bytes.
    pub fn line_ends(&self) -> u64 {
        self.line_of(self.data.len()) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_each_kind_of_line_ending() {
        let data = b"a\nb\r\nc\rd";
        assert_eq!(count_line_ends(data, 0, data.len(), false), 3);
        assert_eq!(
            count_line_ends(b"\nx", 0, 2, true),
            0,
            "the \\n of a split \\r\\n"
        );
        assert_eq!(count_line_ends(b"\nx", 0, 2, false), 1);
        // Counting from within the data, the byte before `from` tells
        // whether a `\n` there ends a line of its own.
        assert_eq!(count_line_ends(b"a\r\nb", 2, 4, false), 0);
        assert_eq!(count_line_ends(b"a\n\nb", 2, 4, false), 1);
        let counter = LineCounter::new(data);
        assert_eq!(counter.line_of(7), 4);
        assert_eq!(counter.line_of(0), 1);
        assert_eq!(counter.line_of(5), 3);
        assert_eq!(counter.line_ends(), 3);
    }

    #[test]
    fn questions_out_of_order_count_from_the_floor() {
        let data = b"1\n2\n3\n4\n5\n6\n";
        let counter = LineCounter::new(data);
        assert_eq!(counter.floor(4), 3);
        assert_eq!(counter.line_of(10), 6);
        // Before the last question, after the floor: counted from the floor.
        assert_eq!(counter.line_of(6), 4);
        // Before the floor: from the start.
        assert_eq!(counter.line_of(2), 2);
        assert_eq!(line_start(data, 7), 6);
    }
}
