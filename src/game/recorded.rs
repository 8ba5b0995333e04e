//! What a game says about its start besides its `FEN` tags: the numbers of
//! its id tags (`Chess960Id`, `Chess960Fritz9Id`) and a back rank written
//! in `Opening` (as CCRL writes it: `[Opening "NBRKQRBN"]`).
//!
//! A game with a `FEN` starts where the `FEN` says, and these only have
//! to agree with it. A game without one starts, for every reader, from
//! the standard array; when it names Chess960 (or carries an id tag) and
//! records another start here, its `FEN` is missing: `fix` adds it from
//! this record, and `validate` judges its id tags by one reading of them.

use std::ops::RangeInclusive;

use crate::position::BackRank;
use crate::split::Batch;

use super::{IdTag, Known, Reading, Start, tag_value};

impl IdTag {
    /// The tag's name: `Chess960Id` or `Chess960Fritz9Id`.
    pub fn name(self) -> &'static str {
        if self.fritz9 {
            "Chess960Fritz9Id"
        } else {
            "Chess960Id"
        }
    }

    /// The numbers of its numbering: 0–959 (Scharnagl) or 1–960 (Fritz9).
    pub fn numbers(self) -> RangeInclusive<u32> {
        if self.fritz9 { 1..=960 } else { 0..=959 }
    }

    /// The number `rank` has in this tag's numbering.
    pub fn number_of(self, rank: BackRank) -> u32 {
        u32::from(if self.fritz9 {
            rank.fritz9()
        } else {
            rank.scharnagl()
        })
    }

    /// The back rank the tag's value names, when it is a number written
    /// plainly (see [`plain_number`]) within [`IdTag::numbers`].
    pub fn back_rank(self, batch: &Batch) -> Option<BackRank> {
        let value = tag_value(batch, &batch.tags[self.tag]);
        let number = std::str::from_utf8(&value)
            .ok()
            .and_then(|text| plain_number(text.trim()))
            .filter(|n| self.numbers().contains(n))?;
        let rank = if self.fritz9 {
            BackRank::from_fritz9(number)
        } else {
            BackRank::from_scharnagl(number)
        };
        rank.ok()
    }
}

/// A number written plainly: digits only, no sign, no leading zero.
///
/// ```
/// use pgn960::game::plain_number;
///
/// assert_eq!(plain_number("518"), Some(518));
/// assert_eq!(plain_number("0"), Some(0));
/// assert_eq!(plain_number("05"), None);
/// assert_eq!(plain_number("+5"), None);
/// ```
pub fn plain_number(text: &str) -> Option<u32> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    plain.then(|| text.parse().ok()).flatten()
}

/// The start a game without a `FEN` tag records otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Nothing to go by: the game has a `FEN` tag, or names neither
    /// Chess960 nor carries an id tag, or no id tag holds a number and
    /// `Opening` no back rank.
    Nothing,
    /// Every record names this back rank.
    One(BackRank),
    /// The records name different back ranks.
    Disagree,
}

impl Reading {
    /// The start this game records without a `FEN` tag: the back ranks its
    /// id tags' numbers name, and the back rank in its `Opening` tag (eight
    /// letters of `KQRBN`, in either case), when it has no `FEN` tag and
    /// names Chess960 or carries an id tag.
    ///
    /// # Example
    ///
    /// ```
    /// use pgn960::game::{Reading, Recorded};
    /// use pgn960::split::GameReader;
    ///
    /// let pgn = b"[Variant \"Chess960\"]\n[Opening \"NBRKQRBN\"]\n\n1. e4 *\n";
    /// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
    /// let reading = Reading::of(&batch, &batch.games[0]);
    /// let Recorded::One(rank) = reading.recorded_start(&batch) else { panic!() };
    /// assert_eq!(rank.to_string(), "NBRKQRBN");
    /// # Ok::<_, std::io::Error>(())
    /// ```
    pub fn recorded_start(&self, batch: &Batch) -> Recorded {
        let ids = self.headers.ids();
        let asks = self.variant.is_chess960() || !ids.is_empty();
        if self.start != Start::NoFen || !asks {
            return Recorded::Nothing;
        }
        let opening = self.headers.get(Known::Opening).and_then(|tag| {
            let value = tag_value(batch, &batch.tags[tag]);
            BackRank::from_ascii(value.trim_ascii()).ok()
        });
        let mut ranks = ids
            .iter()
            .filter_map(|id| id.back_rank(batch))
            .chain(opening);
        let Some(first) = ranks.next() else {
            return Recorded::Nothing;
        };
        if ranks.all(|rank| rank == first) {
            Recorded::One(first)
        } else {
            Recorded::Disagree
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    fn recorded(tags: &str) -> Recorded {
        let pgn = format!("{tags}\n\n*\n");
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        Reading::of(&batch, &batch.games[0]).recorded_start(&batch)
    }

    #[test]
    fn an_id_tag_is_named_and_numbered_as_written() {
        let pgn = b"[chess960fritz9id \"81\"]\n[Chess960Id \"0\"]\n\n*\n";
        let batch = GameReader::new(&pgn[..]).next_batch().unwrap().unwrap();
        let reading = Reading::of(&batch, &batch.games[0]);
        let [fritz9, scharnagl] = reading.headers.ids() else {
            panic!("two id tags: {:?}", reading.headers.ids());
        };
        assert_eq!(
            (fritz9.name(), scharnagl.name()),
            ("Chess960Fritz9Id", "Chess960Id")
        );
        assert_eq!((fritz9.numbers(), scharnagl.numbers()), (1..=960, 0..=959));
        let rank = BackRank::from_scharnagl(0).unwrap();
        assert_eq!((fritz9.number_of(rank), scharnagl.number_of(rank)), (81, 0));
        assert_eq!(fritz9.back_rank(&batch), Some(rank));
        assert_eq!(scharnagl.back_rank(&batch), Some(rank));
    }

    #[test]
    fn ids_and_opening_record_a_start_when_there_is_no_fen() {
        let rank = |n| BackRank::from_scharnagl(n).unwrap();
        assert_eq!(recorded("[Chess960Id \"5\"]"), Recorded::One(rank(5)));
        assert_eq!(
            recorded("[Chess960Fritz9Id \"81\"]\n[Chess960Id \"0\"]"),
            Recorded::One(rank(0))
        );
        assert_eq!(
            recorded("[Variant \"FRC\"]\n[Opening \" bbqnnrkr \"]"),
            Recorded::One(rank(0))
        );
        assert_eq!(
            recorded("[Chess960Id \"0\"]\n[Opening \"RNBQKBNR\"]"),
            Recorded::Disagree
        );
        // A malformed id records nothing; an opening's name is no back rank.
        assert_eq!(recorded("[Chess960Id \"05\"]"), Recorded::Nothing);
        assert_eq!(
            recorded("[Variant \"Chess960\"]\n[Opening \"Sicilian\"]"),
            Recorded::Nothing
        );
        // A back rank in Opening counts only in a game that names Chess960
        // or carries an id tag.
        assert_eq!(recorded("[Opening \"NBRKQRBN\"]"), Recorded::Nothing);
        // With a FEN, the FEN tells.
        assert_eq!(
            recorded(
                "[Chess960Id \"5\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]"
            ),
            Recorded::Nothing
        );
    }
}
