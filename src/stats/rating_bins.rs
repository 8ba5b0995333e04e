//! The finished games of a position that have both ratings, counted by
//! result in bins of the rating difference: the exact, mergeable sums
//! behind the per-position tests, which need to know how lopsided each
//! game was, not only the sum of the Elo expectations.
//!
//! A game falls in the bin of `WhiteElo − BlackElo`, rounded to the
//! nearest multiple of [`BIN_WIDTH`] (halves away from zero) and clamped
//! to ±[`MAX_DIFFERENCE`]: 201 bins at most. A position holds only the
//! bins it has games in, so it costs 32 bytes per bin used, at most
//! 201 × 32 = 6.4 KB, and 960 positions at most 6.2 MB per group; a
//! position with few games costs no more than 32 bytes a game.
//!
//! In the CSV the bins are one cell, `bin:white_wins/draws/black_wins`
//! separated by `;`, bins ascending: `-12:1/0/2;4:0/3/1` says that two
//! games White lost and one it won were played with White 115 to 124
//! points below Black, and three draws and a loss with White 35 to 44
//! points above.

use std::fmt;

use super::decimal;
use super::facts::GameResult;

/// Width of a bin in rating points.
pub const BIN_WIDTH: i32 = 10;

/// Differences beyond ± this many points count in the outermost bins
/// (an Elo expectation beyond 0.997 or below 0.003).
pub const MAX_DIFFERENCE: i32 = 1000;

/// The number of the outermost bin, `MAX_DIFFERENCE / BIN_WIDTH`.
pub const MAX_BIN: i16 = (MAX_DIFFERENCE / BIN_WIDTH) as i16;

/// Results by rating-difference bin: `(bin, [white wins, draws, black
/// wins])`, sorted by bin, each bin once and with at least one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RatingBins(Vec<(i16, [u64; 3])>);

/// The bin of a rating difference `white − black`.
///
/// ```
/// use pgn960::stats::rating_bin;
///
/// assert_eq!(rating_bin(2500, 2500), 0);
/// assert_eq!((rating_bin(2504, 2500), rating_bin(2505, 2500)), (0, 1));
/// assert_eq!((rating_bin(2496, 2500), rating_bin(2495, 2500)), (0, -1));
/// assert_eq!(rating_bin(4000, 1), 100);
/// ```
pub fn rating_bin(white: i32, black: i32) -> i16 {
    let difference = (white - black).clamp(-MAX_DIFFERENCE, MAX_DIFFERENCE);
    let rounded = (difference.abs() + BIN_WIDTH / 2) / BIN_WIDTH;
    (difference.signum() * rounded) as i16
}

impl RatingBins {
    /// Counts one finished game with both ratings.
    pub fn add(&mut self, white: i32, black: i32, result: GameResult) {
        let bin = rating_bin(white, black);
        let column = match result {
            GameResult::WhiteWins => 0,
            GameResult::Draw => 1,
            GameResult::BlackWins => 2,
        };
        self.add_count(bin, column, 1);
    }

    fn add_count(&mut self, bin: i16, column: usize, count: u64) {
        match self.0.binary_search_by_key(&bin, |(b, _)| *b) {
            Ok(at) => self.0[at].1[column] += count,
            Err(at) => {
                let mut counts = [0; 3];
                counts[column] = count;
                self.0.insert(at, (bin, counts));
            }
        }
    }

    /// Adds another position's bins.
    pub fn merge(&mut self, other: &RatingBins) {
        if other.0.is_empty() {
            return;
        }
        if self.0.is_empty() {
            self.0.clone_from(&other.0);
            return;
        }
        // Add in place the bins both have (after the first batches, most
        // of them), then put the others in order: no allocation when
        // `other` brings no new bin.
        let mut new_bins = Vec::new();
        let mut at = 0;
        for &(bin, counts) in &other.0 {
            while at < self.0.len() && self.0[at].0 < bin {
                at += 1;
            }
            match self.0.get_mut(at) {
                Some((mine, sums)) if *mine == bin => {
                    for (sum, count) in sums.iter_mut().zip(counts) {
                        *sum += count;
                    }
                }
                _ => new_bins.push((bin, counts)),
            }
        }
        if !new_bins.is_empty() {
            self.0.extend(new_bins);
            self.0.sort_unstable_by_key(|(bin, _)| *bin);
        }
    }

    /// The bins of both, added, unless a count would not fit in a `u64`.
    pub fn checked_merge(&self, other: &RatingBins) -> Option<RatingBins> {
        let mut merged = self.clone();
        for &(bin, counts) in &other.0 {
            match merged.0.binary_search_by_key(&bin, |(b, _)| *b) {
                Ok(at) => {
                    let mine = &mut merged.0[at].1;
                    for (sum, count) in mine.iter_mut().zip(counts) {
                        *sum = sum.checked_add(count)?;
                    }
                }
                Err(at) => merged.0.insert(at, (bin, counts)),
            }
        }
        Some(merged)
    }

    /// Adds a bin above every bin held (a table read back from disk).
    pub(crate) fn push_above(&mut self, bin: i16, counts: [u64; 3]) {
        debug_assert!(self.0.last().is_none_or(|(last, _)| *last < bin));
        self.0.push((bin, counts));
    }

    /// How many bins hold games.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The bins, ascending: `(bin, [white wins, draws, black wins])`.
    pub fn iter(&self) -> impl Iterator<Item = (i16, [u64; 3])> + '_ {
        self.0.iter().copied()
    }

    /// The games of all bins: [white wins, draws, black wins].
    pub fn totals(&self) -> [u64; 3] {
        self.0.iter().fold([0; 3], |sum, (_, c)| {
            [sum[0] + c[0], sum[1] + c[1], sum[2] + c[2]]
        })
    }

    /// [`Self::totals`], unless a sum would not fit in a `u64`.
    pub fn checked_totals(&self) -> Option<[u64; 3]> {
        self.0.iter().try_fold([0u64; 3], |sum, (_, c)| {
            Some([
                sum[0].checked_add(c[0])?,
                sum[1].checked_add(c[1])?,
                sum[2].checked_add(c[2])?,
            ])
        })
    }

    /// Reads the CSV cell [`Display`](fmt::Display) writes.
    ///
    /// # Errors
    ///
    /// A message saying what is wrong: a bin outside ±[`MAX_BIN`], out of
    /// order or repeated, or without games, or not `bin:w/d/l` at all.
    pub fn parse(cell: &str) -> Result<RatingBins, String> {
        let mut bins = Vec::new();
        if cell.is_empty() {
            return Ok(RatingBins(bins));
        }
        for entry in cell.split(';') {
            let bad = || format!("`{entry}` is no `bin:white_wins/draws/black_wins`");
            let (bin, counts) = entry.split_once(':').ok_or_else(bad)?;
            let bin: i16 = bin.parse().map_err(|_| bad())?;
            if bin.abs() > MAX_BIN {
                return Err(format!("bin {bin} is beyond ±{MAX_BIN}"));
            }
            let mut parts = counts.split('/');
            let mut next = || -> Result<u64, String> {
                parts.next().ok_or_else(bad)?.parse().map_err(|_| bad())
            };
            let counts = [next()?, next()?, next()?];
            if parts.next().is_some() {
                return Err(bad());
            }
            if counts == [0; 3] {
                return Err(format!("bin {bin} has no games"));
            }
            if bins.last().is_some_and(|(last, _)| *last >= bin) {
                return Err(format!("bin {bin} is out of order"));
            }
            bins.push((bin, counts));
        }
        Ok(RatingBins(bins))
    }
}

impl RatingBins {
    /// Appends the bins to `text` as [`Display`](fmt::Display) shows
    /// them, without the formatter: the CSV writes a cell of them per
    /// position.
    pub(super) fn write_text(&self, text: &mut String) {
        for (i, (bin, [w, d, l])) in self.0.iter().enumerate() {
            if i > 0 {
                text.push(';');
            }
            decimal::push_i64(text, i64::from(*bin));
            for (separator, count) in [(':', w), ('/', d), ('/', l)] {
                text.push(separator);
                decimal::push_u64(text, *count);
            }
        }
    }
}

impl fmt::Display for RatingBins {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (bin, [w, d, l])) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(";")?;
            }
            write!(f, "{bin}:{w}/{d}/{l}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use GameResult::{BlackWins as L, Draw as D, WhiteWins as W};

    #[test]
    fn bins_round_halves_away_from_zero_and_clamp() {
        assert_eq!(rating_bin(1500, 1500), 0);
        assert_eq!(rating_bin(1515, 1500), 2);
        assert_eq!(rating_bin(1485, 1500), -2);
        assert_eq!(rating_bin(1514, 1500), 1);
        assert_eq!(rating_bin(1, 4000), -MAX_BIN);
        assert_eq!(rating_bin(2000, 1000), MAX_BIN);
        assert_eq!(rating_bin(1994, 1000), 99);
    }

    #[test]
    fn merging_adds_bin_by_bin_whatever_the_order() {
        let mut a = RatingBins::default();
        a.add(2500, 2380, L);
        a.add(2500, 2381, W);
        a.add(2400, 2440, D);
        let mut b = RatingBins::default();
        b.add(2440, 2400, D);
        b.add(2500, 2500, W);
        b.add(2380, 2500, L);
        let (mut ab, mut ba) = (a.clone(), b.clone());
        ab.merge(&b);
        ba.merge(&a);
        assert_eq!(ab, ba);
        assert_eq!(
            ab.to_string(),
            "-12:0/0/1;-4:0/1/0;0:1/0/0;4:0/1/0;12:1/0/1"
        );
        assert_eq!(ab.totals(), [2, 2, 2]);
        let mut empty = RatingBins::default();
        empty.merge(&ab);
        assert_eq!(empty, ab);
    }

    #[test]
    fn merged_parts_hold_the_games_of_all_of_them_counted_by_hand() {
        // 600 games from a fixed stream, in three parts that share most
        // of their bins; the oracle counts each game into a map by hand.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |modulo: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % modulo
        };
        let mut by_hand = std::collections::BTreeMap::<i16, [u64; 3]>::new();
        let mut parts = [(); 3].map(|()| RatingBins::default());
        for game in 0..600 {
            let white = 2000 + next(400) as i32;
            let black = 2000 + next(400) as i32;
            let (result, column) = [(W, 0), (D, 1), (L, 2)][next(3) as usize];
            parts[game % 3].add(white, black, result);
            by_hand.entry(rating_bin(white, black)).or_default()[column] += 1;
        }
        let want: Vec<(i16, [u64; 3])> = by_hand.into_iter().collect();
        for order in [[0, 1, 2], [2, 0, 1], [1, 2, 0]] {
            let mut merged = RatingBins::default();
            let mut checked = RatingBins::default();
            for part in order {
                merged.merge(&parts[part]);
                checked = checked.checked_merge(&parts[part]).expect("no overflow");
            }
            assert_eq!(merged.iter().collect::<Vec<_>>(), want, "{order:?}");
            assert_eq!(checked, merged, "{order:?}");
        }
        let by_result = want.iter().fold([0; 3], |sum, (_, c)| {
            [sum[0] + c[0], sum[1] + c[1], sum[2] + c[2]]
        });
        assert_eq!(by_result.iter().sum::<u64>(), 600);
        let mut all = RatingBins::default();
        for part in &parts {
            all.merge(part);
        }
        assert_eq!(all.totals(), by_result);
        assert_eq!(all.checked_totals(), Some(by_result));
        // A sum past u64::MAX is refused, not wrapped.
        let mut full = RatingBins::default();
        full.push_above(3, [u64::MAX, 0, 0]);
        let mut one = RatingBins::default();
        one.add(2030, 2000, W);
        assert_eq!(full.checked_merge(&one), None);
        full.push_above(5, [1, 0, 0]);
        assert_eq!(full.checked_totals(), None);
        assert!(full.checked_merge(&RatingBins::default()).is_some());
    }

    #[test]
    fn the_cell_reads_back_and_refuses_what_no_run_writes() {
        let mut bins = RatingBins::default();
        for (white, result) in [(1000, W), (2999, D), (3000, L), (2003, W)] {
            bins.add(white, 2000, result);
        }
        let cell = bins.to_string();
        assert_eq!(cell, "-100:1/0/0;0:1/0/0;100:0/1/1");
        // The CSV's way of writing them writes the same.
        let mut text = String::from("x");
        bins.write_text(&mut text);
        assert_eq!(text, format!("x{cell}"));
        let mut text = String::new();
        RatingBins::default().write_text(&mut text);
        assert_eq!(text, "");
        assert_eq!(RatingBins::parse(&cell), Ok(bins));
        assert_eq!(RatingBins::parse(""), Ok(RatingBins::default()));
        for bad in [
            "1:1/0",
            "x:1/0/0",
            "1:1/0/0/0",
            "3:0/0/0",
            "2:1/0/0;1:1/0/0",
            "101:1/0/0",
            "1:1/0/0;1:0/1/0",
        ] {
            assert!(RatingBins::parse(bad).is_err(), "{bad}");
        }
    }
}
