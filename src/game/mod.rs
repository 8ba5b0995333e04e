//! The one reading of a game: what its tags say about where it starts, what
//! it is, and which number it carries. `tag`, `stats`, `validate` (and
//! `filter`, `fix`, `games`) all read a game through [`Reading`], so they
//! agree by construction.
//!
//! - `headers`: where the tags commands ask about are, in one pass;
//! - `variant`: what the `Variant` tag names;
//! - `start`: where the game starts, from its `FEN` tags;
//! - `recorded`: what else a game records about its start (id tags, a
//!   back rank in `Opening`), for a game without a `FEN`: when it names
//!   another start than the standard array, the start is unknown
//!   ([`Start::FenMissing`]), never assumed;
//! - `kind`: the vocabulary, [`Kind`], that summaries, `filter` and
//!   `games` use;
//! - `unplayed`: whether a game's result was played at the board, and
//!   if not why ([`Unplayed`]), the other vocabulary they share;
//! - `fingerprint`: what makes a game the same game whatever the
//!   download, hashed: how `stats`, `filter --unique` and `games` find
//!   copies.
//!
//! The rules: a `Variant` naming another game makes it [`Kind::Other`],
//! whatever its FEN; otherwise the start decides, and a game is a Chess960
//! game when its `Variant` names Chess960 or its start array is one of the
//! 959 other than 518. A game whose start is unknown (a `FEN` that does
//! not read, `FEN` tags in conflict, or no `FEN` where the game records
//! another start than the standard array) is [`Kind::Unreadable`]: it has
//! no number, so `tag` leaves its id tags as they are, `stats` does not
//! count it and `filter --position` does not select it.

mod fingerprint;
mod headers;
mod kind;
mod recorded;
mod start;
mod unplayed;
mod variant;

pub use fingerprint::Fingerprint;
pub use headers::{Headers, IdTag, Known, is_named, tag_value};
pub use kind::{Kind, KindCounts, UnknownKind};
pub use recorded::{Recorded, StartRecord, plain_number};
pub use start::Start;
pub use unplayed::{UnknownReason, Unplayed, UnplayedCounts};
pub use variant::{CHESS960_NAMES, COMMON_SPELLINGS, STANDARD_NAMES, Variant, fold};

use crate::position::{BackRank, StartArray};
use crate::split::{Batch, Game};

/// Everything the commands know about a game from its tags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// What the game is.
    pub kind: Kind,
    /// Where it starts.
    pub start: Start,
    /// What its `Variant` tag (the last one, if several) says.
    pub variant: Variant,
    /// Where its known tags are.
    pub headers: Headers,
}

impl Reading {
    /// Reads a game of a batch.
    ///
    /// # Example
    ///
    /// ```
    /// use pgn960::game::{Kind, Reading};
    /// use pgn960::split::GameReader;
    ///
    /// let pgn = b"[Variant \"Chess960\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n\n*\n";
    /// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
    /// let reading = Reading::of(&batch, &batch.games[0]);
    /// assert_eq!(reading.kind, Kind::Chess960);
    /// assert_eq!(reading.back_rank().map(|rank| rank.scharnagl()), Some(0));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn of(batch: &Batch, game: &Game) -> Reading {
        let headers = Headers::read(batch, game);
        let variant = headers.get(Known::Variant).map_or(Variant::Absent, |tag| {
            Variant::from_value(&tag_value(batch, &batch.tags[tag]))
        });
        let start = if game.tags_incomplete {
            Start::TagsIncomplete
        } else if variant == Variant::Other {
            Start::NotChess
        } else {
            match start::read_start(batch, &headers) {
                Start::NoFen => recorded::start_without_fen(batch, &headers, variant),
                start => start,
            }
        };
        let kind = kind_of(&start, variant);
        Reading {
            kind,
            start,
            variant,
            headers,
        }
    }

    /// The array both sides start from, for a Chess960 or standard game.
    pub fn back_rank(&self) -> Option<BackRank> {
        match (self.kind, &self.start) {
            (Kind::Chess960 | Kind::Standard, Start::Array(StartArray::Chess960(rank))) => {
                Some(*rank)
            }
            (Kind::Chess960 | Kind::Standard, _) => Some(BackRank::STANDARD),
            _ => None,
        }
    }

    /// White's and Black's arrays, for a Double FRC game (`dfrc`): two
    /// legal Chess960 back ranks that differ, Black's read from the a-file.
    pub fn double_frc(&self) -> Option<(BackRank, BackRank)> {
        match (self.kind, &self.start) {
            (Kind::Dfrc, Start::Array(StartArray::DoubleFrc { white, black })) => {
                Some((*white, *black))
            }
            _ => None,
        }
    }

    /// The number this game should carry: `Some` for Chess960 games, and
    /// for standard games (518) when `include_standard`.
    pub fn id(&self, include_standard: bool) -> Option<BackRank> {
        match self.kind {
            Kind::Chess960 => self.back_rank(),
            Kind::Standard if include_standard => self.back_rank(),
            _ => None,
        }
    }
}

/// The kind of a game that starts at `start` with a Variant of `variant`.
fn kind_of(start: &Start, variant: Variant) -> Kind {
    let chess960 = |rank: BackRank| variant.is_chess960() || rank != BackRank::STANDARD;
    match start {
        Start::NotChess => Kind::Other,
        Start::BadFen { .. }
        | Start::Conflict { .. }
        | Start::TagsIncomplete
        | Start::FenMissing { .. } => Kind::Unreadable,
        Start::NoFen if variant.is_chess960() => Kind::Chess960,
        Start::NoFen => Kind::Standard,
        Start::Array(StartArray::Chess960(rank)) if chess960(*rank) => Kind::Chess960,
        Start::Array(StartArray::Chess960(_)) => Kind::Standard,
        Start::Array(StartArray::DoubleFrc { .. }) => Kind::Dfrc,
        Start::IllegalBackRank { .. } | Start::SetUp => Kind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    fn read(tags: &str) -> Reading {
        let pgn = format!("{tags}\n\n*\n");
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        Reading::of(&batch, &batch.games[0])
    }

    const FEN_0: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR";
    const FEN_518: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

    #[test]
    fn no_fen_is_the_standard_array() {
        assert_eq!(read("[Event \"x\"]").kind, Kind::Standard);
        let reading = read("[Variant \"chess 960\"]");
        assert_eq!(reading.kind, Kind::Chess960);
        assert_eq!(reading.back_rank(), Some(BackRank::STANDARD));
        assert_eq!(read("[Variant \"From Position\"]").kind, Kind::Standard);
    }

    #[test]
    fn a_fen_without_a_variant_is_chess960_unless_518() {
        let zero = BackRank::from_scharnagl(0).unwrap();
        let reading = read(&format!("[FEN \"{FEN_0} w KQkq - 0 1\"]"));
        assert_eq!(
            (reading.kind, reading.id(false)),
            (Kind::Chess960, Some(zero))
        );
        let reading = read(&format!("[FEN \"{FEN_518} w KQkq - 0 1\"]"));
        assert_eq!(reading.kind, Kind::Standard);
        assert_eq!(reading.id(false), None);
        assert_eq!(reading.id(true), Some(BackRank::STANDARD));
        // Standard or From Position on a 960 array: still Chess960.
        let reading = read(&format!(
            "[Variant \"Standard\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]"
        ));
        assert_eq!(reading.kind, Kind::Chess960);
    }

    #[test]
    fn another_game_is_other_whatever_its_fen() {
        let reading = read(&format!(
            "[Variant \"Antichess\"]\n[FEN \"{FEN_0} w - - 0 1\"]"
        ));
        assert_eq!((reading.kind, reading.id(true)), (Kind::Other, None));
        // A Seirawan FEN with pockets is no unreadable chess FEN.
        let reading = read(
            "[Variant \"Seirawan\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1\"]",
        );
        assert_eq!(
            (reading.kind, &reading.start),
            (Kind::Other, &Start::NotChess)
        );
    }

    #[test]
    fn two_fens_must_give_the_same_position() {
        let zero = BackRank::from_scharnagl(0).unwrap();
        let reading = read(&format!(
            "[FEN \"{FEN_0} w HFhf - 0 1\"]\n[Variant \"Fischerandom\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]"
        ));
        assert_eq!(reading.start, Start::Array(StartArray::Chess960(zero)));
        let reading = read(&format!(
            "[FEN \"{FEN_0} w KQkq - 0 1\"]\n[FEN \"{FEN_518} w KQkq - 0 1\"]"
        ));
        assert_eq!(reading.kind, Kind::Unreadable);
        assert!(matches!(
            reading.start,
            Start::Conflict {
                placement: true,
                ..
            }
        ));
        // Only the side to move differs: a conflict all the same.
        let reading = read(&format!(
            "[FEN \"{FEN_0} w KQkq - 0 1\"]\n[FEN \"{FEN_0} b KQkq - 0 1\"]"
        ));
        assert!(matches!(
            reading.start,
            Start::Conflict {
                placement: false,
                ..
            }
        ));
        // A lone board part gives no side to move: no conflict.
        let reading = read(&format!(
            "[FEN \"{FEN_0} b KQkq - 0 1\"]\n[FEN \"{FEN_0}\"]"
        ));
        assert_eq!(reading.kind, Kind::Chess960);
        let reading = read(&format!("[FEN \"{FEN_0} w KQkq - 0 1\"]\n[FEN \"broken\"]"));
        assert!(matches!(reading.start, Start::BadFen { .. }));
    }

    #[test]
    fn double_frc_set_up_illegal_and_broken() {
        let reading = read(
            &format!("[FEN \"{FEN_0}/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]").replace(
                &format!("{FEN_0}/pppppppp/8/8/8/8/PPPPPPPP/"),
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/",
            ),
        );
        assert_eq!(reading.kind, Kind::Dfrc);
        let arrays = reading
            .double_frc()
            .map(|(w, b)| (w.scharnagl(), b.scharnagl()));
        assert_eq!(arrays, Some((518, 0)));
        assert_eq!(read(&format!("[FEN \"{FEN_0}\"]")).double_frc(), None);
        assert_eq!(
            read("[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]").kind,
            Kind::Other
        );
        let reading = read(&format!(
            "[FEN \"{}\"]",
            FEN_518.replace("RNBQKBNR", "RNBQKNBR")
        ));
        assert!(matches!(reading.start, Start::IllegalBackRank { .. }));
        assert_eq!(reading.kind, Kind::Other);
        let reading = read("[Variant \"Chess960\"]\n[FEN \"not a fen\"]");
        assert_eq!(reading.kind, Kind::Unreadable);
        // A lone board part reads, with its number.
        let reading = read(&format!("[FEN \"{FEN_0}\"]"));
        assert_eq!(reading.back_rank().map(|r| r.scharnagl()), Some(0));
    }
}
