//! What a game says about its start besides its `FEN` tags: the numbers of
//! its id tags (`Chess960Id`, `Chess960Fritz9Id`) and a back rank written
//! in `Opening` (as CCRL writes it: `[Opening "NBRKQRBN"]`).
//!
//! A game with a `FEN` starts where the `FEN` says, and these only have
//! to agree with it. A game without one starts, for every reader, from
//! the standard array; when it names Chess960 (or carries an id tag) and
//! records another start here, that assumption is no fact: its start is
//! unknown ([`Start::FenMissing`]), so no command counts it under 518 or
//! rewrites its record, `validate` reports it (`fen_missing`) and `fix`
//! adds the `FEN` of the recorded start.

use std::ops::RangeInclusive;

use crate::position::BackRank;
use crate::split::Batch;

use super::{Headers, IdTag, Known, Reading, Start, Variant, tag_value};

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

/// One record of a game's start: a tag, and the back rank it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartRecord {
    /// The tag (an id tag, or `Opening`), an index into [`Batch::tags`].
    pub tag: usize,
    /// The back rank its value names.
    pub rank: BackRank,
}

/// Every record of the start of a game without a `FEN` tag, when it names
/// Chess960 or carries an id tag: its id tags' numbers, in order, then the
/// back rank in its `Opening` tag (eight letters of `KQRBN`, in either
/// case). A malformed id records nothing.
fn records(batch: &Batch, headers: &Headers, variant: Variant) -> Vec<StartRecord> {
    let ids = headers.ids();
    let asks = variant.is_chess960() || !ids.is_empty();
    if !headers.fens().is_empty() || !asks {
        return Vec::new();
    }
    let opening = headers.get(Known::Opening).and_then(|tag| {
        let value = tag_value(batch, &batch.tags[tag]);
        let rank = BackRank::from_ascii(value.trim_ascii()).ok()?;
        Some(StartRecord { tag, rank })
    });
    ids.iter()
        .filter_map(|id| {
            let rank = id.back_rank(batch)?;
            Some(StartRecord { tag: id.tag, rank })
        })
        .chain(opening)
        .collect()
}

/// What the records say, together.
fn agreed(records: &[StartRecord]) -> Recorded {
    let Some(first) = records.first() else {
        return Recorded::Nothing;
    };
    if records.iter().all(|record| record.rank == first.rank) {
        Recorded::One(first.rank)
    } else {
        Recorded::Disagree
    }
}

/// The start of a game without a `FEN` tag: the standard array, unless its
/// records name another start (or disagree), which leaves it unknown.
pub(super) fn start_without_fen(batch: &Batch, headers: &Headers, variant: Variant) -> Start {
    // The usual game without a FEN (standard chess) has no record: no work.
    if !variant.is_chess960() && headers.ids().is_empty() {
        return Start::NoFen;
    }
    match agreed(&records(batch, headers, variant)) {
        Recorded::Nothing => Start::NoFen,
        Recorded::One(rank) if rank == BackRank::STANDARD => Start::NoFen,
        Recorded::One(rank) => Start::FenMissing {
            recorded: Some(rank),
        },
        Recorded::Disagree => Start::FenMissing { recorded: None },
    }
}

impl Reading {
    /// Every record of this game's start besides a `FEN` tag (see
    /// [`Reading::recorded_start`]), in order: the id tags, then `Opening`.
    pub fn start_records(&self, batch: &Batch) -> Vec<StartRecord> {
        match self.start {
            Start::NoFen | Start::FenMissing { .. } => records(batch, &self.headers, self.variant),
            _ => Vec::new(),
        }
    }

    /// The start this game records without a `FEN` tag: the back ranks its
    /// id tags' numbers name, and the back rank in its `Opening` tag (eight
    /// letters of `KQRBN`, in either case), when it has no `FEN` tag and
    /// names Chess960 or carries an id tag. A record of another start than
    /// the standard array makes the start unknown ([`Start::FenMissing`]).
    ///
    /// # Example
    ///
    /// ```
    /// use pgn960::game::{Kind, Reading, Recorded, Start};
    /// use pgn960::split::GameReader;
    ///
    /// let pgn = b"[Variant \"Chess960\"]\n[Opening \"NBRKQRBN\"]\n\n1. e4 *\n";
    /// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
    /// let reading = Reading::of(&batch, &batch.games[0]);
    /// let Recorded::One(rank) = reading.recorded_start(&batch) else { panic!() };
    /// assert_eq!(rank.to_string(), "NBRKQRBN");
    /// assert_eq!(reading.start, Start::FenMissing { recorded: Some(rank) });
    /// assert_eq!((reading.kind, reading.id(true)), (Kind::Unreadable, None));
    /// # Ok::<_, std::io::Error>(())
    /// ```
    pub fn recorded_start(&self, batch: &Batch) -> Recorded {
        agreed(&self.start_records(batch))
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
