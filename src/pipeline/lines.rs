//! Line numbers across batches: the one place where a batch learns on
//! which line of its input it begins.
//!
//! A worker counts its own batch's line ends (the counting is shared out
//! among the workers); the consumer, which sees batches in input order,
//! adds them up. A `\r\n` split between two batches ends one line.

use crate::split::Batch;

/// What a worker counted of one batch.
#[derive(Clone, Copy, Debug)]
pub(super) struct BatchLines {
    line_ends: u64,
    starts_with_lf: bool,
    ends_with_cr: bool,
}

impl BatchLines {
    /// Counts the line ends of `batch`, as if nothing came before it.
    pub(super) fn count(batch: &Batch) -> BatchLines {
        let data = &batch.data;
        BatchLines {
            line_ends: batch.line_ends(),
            starts_with_lf: data.first() == Some(&b'\n'),
            ends_with_cr: data.last() == Some(&b'\r'),
        }
    }
}

/// The line ends of the batches placed so far.
#[derive(Debug, Default)]
pub(super) struct LinePlacer {
    before: u64,
    /// The last batch ended with `\r`: a `\n` starting the next ends no line.
    cr_before: bool,
}

impl LinePlacer {
    /// The line on which the next batch, counted as `lines`, begins.
    pub(super) fn place(&mut self, lines: BatchLines) -> u64 {
        let joined = u64::from(self.cr_before && lines.starts_with_lf);
        // A joining `\n` stands on the line its `\r` ended.
        let first = self.before + 1 - joined;
        self.before += lines.line_ends - joined;
        self.cr_before = lines.ends_with_cr;
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::{LineCounter, count_line_ends};

    fn batch(data: &[u8]) -> Batch {
        Batch {
            data: data.to_vec().into(),
            ..Batch::default()
        }
    }

    #[test]
    fn a_crlf_split_between_batches_ends_one_line() {
        // "a\r\nb\r" then "\nc\n": "c" is line 3.
        let (first, second) = (batch(b"a\r\nb\r"), batch(b"\nc\n"));
        let mut placer = LinePlacer::default();
        assert_eq!(placer.place(BatchLines::count(&first)), 1);
        let second_first = placer.place(BatchLines::count(&second));
        // Within the second batch, "c" is on its line 2.
        let in_batch = LineCounter::new(&second.data).line_of(1);
        assert_eq!(in_batch, 2);
        assert_eq!(second_first + in_batch - 1, 3);
        assert_eq!(placer.before, 3);
    }

    #[test]
    fn lines_add_up_across_batches() {
        let input = b"1\n2\r\n3\r4\n\n6";
        for cut in 0..=input.len() {
            let (a, b) = (batch(&input[..cut]), batch(&input[cut..]));
            let mut placer = LinePlacer::default();
            placer.place(BatchLines::count(&a));
            let first = placer.place(BatchLines::count(&b));
            if cut < input.len() {
                let expected = count_line_ends(input, 0, cut, false) + 1;
                let expected = if input[cut] == b'\n' && cut > 0 && input[cut - 1] == b'\r' {
                    expected - 1
                } else {
                    expected
                };
                assert_eq!(first, expected, "cut at {cut}");
            }
        }
    }

    /// `games` counts a batch's lines as it numbers its games and hands the
    /// count on: placing the batches after it gives the lines a count of
    /// its own would.
    #[test]
    fn a_count_handed_on_places_the_next_batch() {
        let input = b"[Event \"a\"]\r\n\r\n1. e4 *\r\n[Event \"b\"]\n\n*\r";
        for cut in 1..input.len() {
            let (a, b) = (batch(&input[..cut]), batch(&input[cut..]));
            let counter = LineCounter::new(&a.data);
            a.counted_line_ends(counter.line_ends());
            let mut handed_on = LinePlacer::default();
            handed_on.place(BatchLines::count(&a));
            let mut recounted = LinePlacer::default();
            recounted.place(BatchLines::count(&batch(&input[..cut])));
            assert_eq!(
                handed_on.place(BatchLines::count(&b)),
                recounted.place(BatchLines::count(&b)),
                "cut at {cut}"
            );
            assert_eq!(a.line_ends(), count_line_ends(input, 0, cut, false));
        }
    }
}
