//! One pass over a game's tag pairs, noting where the tags that commands
//! ask about are: a name is compared once, chosen by its length, and never
//! again by any command.

use std::borrow::Cow;

use pgn_reader::RawTag;

use crate::split::{Batch, Game, TagSpan};

/// The tags commands ask about by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// `Event`
    Event,
    /// `Site`
    Site,
    /// `Date`
    Date,
    /// `Round`
    Round,
    /// `White`
    White,
    /// `Black`
    Black,
    /// `Result`
    Result,
    /// `WhiteElo`
    WhiteElo,
    /// `BlackElo`
    BlackElo,
    /// `TimeControl`
    TimeControl,
    /// `Termination`
    Termination,
    /// `ECO`
    Eco,
    /// `Opening`
    Opening,
    /// `Variant`
    Variant,
    /// `SetUp`
    SetUp,
    /// `TerminationDetails` (TCEC's)
    TerminationDetails,
}

const KNOWN: usize = 16;

impl Known {
    /// The tag's name as PGN writes it.
    pub fn name(self) -> &'static str {
        match self {
            Known::Event => "Event",
            Known::Site => "Site",
            Known::Date => "Date",
            Known::Round => "Round",
            Known::White => "White",
            Known::Black => "Black",
            Known::Result => "Result",
            Known::WhiteElo => "WhiteElo",
            Known::BlackElo => "BlackElo",
            Known::TimeControl => "TimeControl",
            Known::Termination => "Termination",
            Known::Eco => "ECO",
            Known::Opening => "Opening",
            Known::Variant => "Variant",
            Known::SetUp => "SetUp",
            Known::TerminationDetails => "TerminationDetails",
        }
    }
}

/// Which tag a name is: told by its length and first letter, then
/// compared once, ignoring case (writers differ). Most names of a game
/// are none of these and cost two comparisons of integers.
fn which(name: &[u8]) -> Option<Which> {
    let first = name.first()?.to_ascii_lowercase();
    match (name.len(), first) {
        (3, b'f') => named(name, b"FEN", Which::Fen),
        (3, b'e') => named(name, b"ECO", Which::Known(Known::Eco)),
        (4, b's') => named(name, b"Site", Which::Known(Known::Site)),
        (4, b'd') => named(name, b"Date", Which::Known(Known::Date)),
        (5, b'e') => named(name, b"Event", Which::Known(Known::Event)),
        (5, b'r') => named(name, b"Round", Which::Known(Known::Round)),
        (5, b'w') => named(name, b"White", Which::Known(Known::White)),
        (5, b'b') => named(name, b"Black", Which::Known(Known::Black)),
        (5, b's') => named(name, b"SetUp", Which::Known(Known::SetUp)),
        (6, b'r') => named(name, b"Result", Which::Known(Known::Result)),
        (7, b'v') => named(name, b"Variant", Which::Known(Known::Variant)),
        (7, b'o') => named(name, b"Opening", Which::Known(Known::Opening)),
        (8, b'w') => named(name, b"WhiteElo", Which::Known(Known::WhiteElo)),
        (8, b'b') => named(name, b"BlackElo", Which::Known(Known::BlackElo)),
        (10, b'c') => named(name, b"Chess960Id", Which::Id { fritz9: false }),
        (11, b't') if name[1].eq_ignore_ascii_case(&b'i') => {
            named(name, b"TimeControl", Which::Known(Known::TimeControl))
        }
        (11, b't') => named(name, b"Termination", Which::Known(Known::Termination)),
        (16, b'c') => named(name, b"Chess960Fritz9Id", Which::Id { fritz9: true }),
        (18, b't') => named(
            name,
            b"TerminationDetails",
            Which::Known(Known::TerminationDetails),
        ),
        _ => None,
    }
}

/// `which` when `name` is `wanted`, ignoring case; compared as an array
/// of its known length, which the compiler does without a call.
#[inline(always)]
fn named<const N: usize>(name: &[u8], wanted: &[u8; N], which: Which) -> Option<Which> {
    let name: &[u8; N] = name.try_into().ok()?;
    (name == wanted || name.eq_ignore_ascii_case(wanted)).then_some(which)
}

#[derive(Clone, Copy, Debug)]
enum Which {
    Known(Known),
    Fen,
    Id { fritz9: bool },
}

/// An id tag of a game: `Chess960Id` or `Chess960Fritz9Id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdTag {
    /// Its index in [`Batch::tags`].
    pub tag: usize,
    /// Whether it is `Chess960Fritz9Id`.
    pub fritz9: bool,
}

/// Where a game's known tags are, as indices into [`Batch::tags`]: the
/// last of each name (a repeated tag's last value wins), and every `FEN`
/// and id tag (a game with several must have them agree); and each known
/// tag that repeats a name before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Headers {
    last: [Option<usize>; KNOWN],
    fens: Few,
    ids: Vec<IdTag>,
    repeated: Vec<usize>,
}

impl Headers {
    /// Reads the names of a game's tags.
    pub fn read(batch: &Batch, game: &Game) -> Headers {
        let mut headers = Headers::default();
        for tag in game.tags.clone() {
            let again = match which(batch.name(&batch.tags[tag])) {
                Some(Which::Known(known)) => headers.last[known as usize].replace(tag).is_some(),
                Some(Which::Fen) => {
                    headers.fens.push(tag);
                    headers.fens.as_slice().len() > 1
                }
                Some(Which::Id { fritz9 }) => {
                    let again = headers.ids.iter().any(|id| id.fritz9 == fritz9);
                    headers.ids.push(IdTag { tag, fritz9 });
                    again
                }
                None => false,
            };
            if again {
                headers.repeated.push(tag);
            }
        }
        headers
    }

    /// The last tag of this name.
    pub fn get(&self, known: Known) -> Option<usize> {
        self.last[known as usize]
    }

    /// Every `FEN` tag, in order.
    pub fn fens(&self) -> &[usize] {
        self.fens.as_slice()
    }

    /// Every `Chess960Id` and `Chess960Fritz9Id` tag, in order.
    pub fn ids(&self) -> &[IdTag] {
        &self.ids
    }

    /// Each known tag (one of [`Known`], `FEN`, an id tag) whose name
    /// (ignoring case) an earlier tag of the game has, in order.
    pub fn repeated(&self) -> &[usize] {
        &self.repeated
    }
}

/// Indices of a game's tags of one name, held without an allocation
/// while there are at most two: every game of a Chess960 archive has its
/// `FEN`, and a vector each would cost an allocation a game.
#[derive(Clone, Debug, Default)]
struct Few {
    inline: [usize; 2],
    len: usize,
    /// All of them, once there are more than two.
    more: Vec<usize>,
}

impl Few {
    fn push(&mut self, index: usize) {
        if self.len < self.inline.len() {
            self.inline[self.len] = index;
        } else {
            if self.more.is_empty() {
                self.more.extend_from_slice(&self.inline);
            }
            self.more.push(index);
        }
        self.len += 1;
    }

    fn as_slice(&self) -> &[usize] {
        if self.more.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.more
        }
    }
}

impl PartialEq for Few {
    fn eq(&self, other: &Few) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Few {}

/// A tag's value with `\"` and `\\` unescaped.
pub fn tag_value<'a>(batch: &'a Batch, tag: &TagSpan) -> Cow<'a, [u8]> {
    RawTag(batch.raw_value(tag)).decode()
}

/// Whether a tag has the given name (ASCII case-insensitive, as writers differ).
#[inline]
pub fn is_named(batch: &Batch, tag: &TagSpan, name: &str) -> bool {
    batch.name(tag).eq_ignore_ascii_case(name.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    #[test]
    fn every_known_name_is_found_whatever_its_case() {
        let names = [
            Known::Event,
            Known::Site,
            Known::Date,
            Known::Round,
            Known::White,
            Known::Black,
            Known::Result,
            Known::WhiteElo,
            Known::BlackElo,
            Known::TimeControl,
            Known::Termination,
            Known::Eco,
            Known::Opening,
            Known::Variant,
            Known::SetUp,
            Known::TerminationDetails,
        ];
        let mut pgn = String::new();
        for known in names {
            pgn.push_str(&format!("[{} \"x\"]\n", known.name().to_lowercase()));
        }
        pgn.push_str("[FEN \"a\"]\n[Fen \"b\"]\n[Chess960Id \"1\"]\n[CHESS960FRITZ9ID \"2\"]\n[Other \"y\"]\n[Event \"last\"]\n\n*\n");
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        let headers = Headers::read(&batch, &batch.games[0]);
        for (i, known) in names.into_iter().enumerate() {
            let expected = if known == Known::Event {
                names.len() + 5
            } else {
                i
            };
            assert_eq!(headers.get(known), Some(expected), "{known:?}");
        }
        assert_eq!(headers.fens(), [16, 17]);
        let mut few = Few::default();
        for (i, index) in [7, 3, 9, 1].into_iter().enumerate() {
            few.push(index);
            assert_eq!(few.as_slice(), &[7, 3, 9, 1][..=i]);
        }
        // Equal when they hold the same indices, whatever the room left.
        let of = |indices: &[usize]| {
            let mut few = Few::default();
            indices.iter().for_each(|&i| few.push(i));
            few
        };
        assert_eq!(of(&[7, 3, 9, 1]), few);
        assert_eq!(of(&[]), Few::default());
        assert_ne!(of(&[7, 3, 9]), few);
        assert_ne!(of(&[7]), of(&[3]));
        assert_eq!(of(&[7]), of(&[7]));
        assert_eq!(
            headers.ids(),
            [
                IdTag {
                    tag: 18,
                    fritz9: false
                },
                IdTag {
                    tag: 19,
                    fritz9: true
                }
            ]
        );
        assert_eq!(KNOWN, names.len());
    }

    #[test]
    fn a_name_of_the_same_length_and_first_letter_is_not_taken_for_another() {
        for name in [
            "Fun",
            "Eel",
            "Sort",
            "Dime",
            "Ember",
            "Rouge",
            "Whale",
            "Blank",
            "SetOn",
            "Resolt",
            "Variety",
            "Openers",
            "WhiteAge",
            "BlackAge",
            "Chess960No",
            "TimeControX",
            "Terminators",
            "Chess960Fritz9No",
            "TerminationDetailz",
        ] {
            assert!(which(name.as_bytes()).is_none(), "{name} is none of ours");
        }
        assert!(matches!(which(b"fen"), Some(Which::Fen)));
        assert!(matches!(
            which(b"TIMECONTROL"),
            Some(Which::Known(Known::TimeControl))
        ));
        assert!(matches!(
            which(b"termination"),
            Some(Which::Known(Known::Termination))
        ));
    }
}
