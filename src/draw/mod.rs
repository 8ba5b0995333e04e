//! Drawing a start position by hand, with a die or a coin, for events where
//! no computer draws it: turns what an arbiter threw into the back rank,
//! records every step so that someone else can check the draw, and says
//! exactly which throw is missing, left over or unreadable.
//!
//! Two methods:
//!
//! - **The die** ([`DieDraw`]), piece by piece: the dark-square bishop
//!   (1–4 = a, c, e, g), the light-square bishop (1–4 = b, d, f, h), the
//!   queen on the n-th empty square counting from the a-file (1–6), a knight
//!   on the n-th of the five empty squares (1–5), the other knight on the
//!   n-th of the four left (1–4); rook, king, rook fill the last three
//!   squares. A throw above the range is re-rolled. Every position is
//!   reached by exactly two sequences without re-rolls (the knights in
//!   either order), so all 960 are equally likely.
//! - **Coins** ([`CoinDraw`]): ten flips, heads = 1 and the first flip the
//!   highest bit, read as a number 0–1023. A number below 960 is the
//!   Scharnagl number; from 960 up, the next ten flips are a fresh number,
//!   read the same way, until one is below 960.
//!
//! Both come in two forms: all throws at once ([`DieDraw::from_faces`],
//! [`CoinDraw::from_flips`], and [`DieDraw::parse`] / [`CoinDraw::parse`]
//! for the words an arbiter types), or one throw at a time ([`DieDrawer`],
//! [`CoinDrawer`]), which can say before each throw what it places and
//! which values are re-rolled.

mod coins;
mod die;

pub use coins::{
    Coin, CoinDraw, CoinDrawer, CoinFlip, CoinNumber, CoinWant, FIRST_REFLIP, FLIPS_PER_NUMBER,
};
pub use die::{DieDraw, DieDrawer, DiePiece, DieStep, DieThrow};

use std::{error::Error, fmt};

use shakmaty::{File, Role};

/// Reads one typed die throw: exactly `1` to `6`.
///
/// # Errors
///
/// [`DrawError::NotADieFace`] for anything else.
///
/// # Examples
///
/// ```
/// use pgn960::draw::parse_face;
///
/// assert_eq!(parse_face("6"), Ok(6));
/// assert!(parse_face("0").is_err());
/// assert!(parse_face("06").is_err());
/// ```
pub fn parse_face(word: &str) -> Result<u8, DrawError> {
    match word.as_bytes() {
        &[digit @ b'1'..=b'6'] => Ok(digit - b'0'),
        _ => Err(DrawError::NotADieFace(word.to_owned())),
    }
}

/// Reads one typed word of flips, `H` and `T` in either case.
///
/// # Errors
///
/// [`DrawError::NotAFlip`] with the word and its first other letter.
///
/// # Examples
///
/// ```
/// use pgn960::draw::{parse_flips, Coin::*, DrawError};
///
/// assert_eq!(parse_flips("HtT"), Ok(vec![Heads, Tails, Tails]));
/// assert_eq!(
///     parse_flips("HTX"),
///     Err(DrawError::NotAFlip { word: "HTX".to_owned(), letter: 'X' })
/// );
/// ```
pub fn parse_flips(word: &str) -> Result<Vec<Coin>, DrawError> {
    word.chars()
        .map(|letter| {
            Coin::from_char(letter).ok_or_else(|| DrawError::NotAFlip {
                word: word.to_owned(),
                letter,
            })
        })
        .collect()
}

/// The empty squares of a back rank under construction, a-side first.
fn empty_files(squares: &[Option<Role>; 8]) -> Vec<File> {
    (0..8u32)
        .filter(|&file| squares[file as usize].is_none())
        .map(File::new)
        .collect()
}

/// Why throws do not make a draw.
#[derive(Clone, Eq, PartialEq, Hash, Debug)]
pub enum DrawError {
    /// A throw that is not a die face `1` to `6`, as typed.
    NotADieFace(String),
    /// A word with a letter that is not a flip (`H` or `T`).
    NotAFlip {
        /// The word as typed.
        word: String,
        /// Its first letter that is not a flip.
        letter: char,
    },
    /// The throws ran out before every piece was placed.
    TooFewRolls {
        /// The piece that needs a throw.
        piece: DiePiece,
        /// How many throws there were.
        throws: usize,
    },
    /// The flips ran out before a number below 960 was read.
    TooFewFlips {
        /// Flips of the number being read (0..=9).
        given: usize,
        /// The numbers read before it, all 960 or more.
        rejected: Vec<u16>,
    },
    /// Throws after the last piece was placed.
    RollsLeftOver(Vec<u8>),
    /// Flips after the number was read.
    FlipsLeftOver(Vec<Coin>),
}

impl fmt::Display for DrawError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrawError::NotADieFace(word) => write!(f, "{word:?} is not a die face (1-6)"),
            DrawError::NotAFlip { word, letter } if word.chars().count() == 1 => {
                write!(f, "{letter:?} is not a flip (H or T, either case)")
            }
            DrawError::NotAFlip { word, letter } => {
                write!(
                    f,
                    "{letter:?} in {word:?} is not a flip (H or T, either case)"
                )
            }
            DrawError::TooFewRolls { piece, throws } => write!(
                f,
                "too few throws: the {piece} needs a throw ({}); {} given",
                piece.range(),
                plural(*throws, "throw", "throws"),
            ),
            DrawError::TooFewFlips { given, rejected } => {
                f.write_str("too few flips: ")?;
                if !rejected.is_empty() {
                    let read: Vec<String> = rejected.iter().map(u16::to_string).collect();
                    write!(
                        f,
                        "flips 1-{} read {}, 960 or more, so ",
                        FLIPS_PER_NUMBER * rejected.len(),
                        read.join(" and "),
                    )?;
                }
                let first = FLIPS_PER_NUMBER * rejected.len() + 1;
                write!(
                    f,
                    "flips {first}-{} make the number (H or T); {given} given",
                    first + FLIPS_PER_NUMBER - 1,
                )
            }
            DrawError::RollsLeftOver(faces) => {
                let faces: Vec<String> = faces.iter().map(u8::to_string).collect();
                write!(
                    f,
                    "{} left over after the position was complete: {}",
                    plural(faces.len(), "throw", "throws"),
                    faces.join(" "),
                )
            }
            DrawError::FlipsLeftOver(flips) => {
                let word: String = flips.iter().map(Coin::to_string).collect();
                write!(
                    f,
                    "{} left over after the number was read: {word}",
                    plural(flips.len(), "flip", "flips"),
                )
            }
        }
    }
}

/// `1 throw`, `2 throws`.
fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

impl Error for DrawError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::BackRank;

    #[test]
    fn the_issue_example_with_its_reroll() {
        let draw = DieDraw::from_faces(&[5, 2, 3, 3, 2, 3]).expect("a full draw");
        assert_eq!(draw.rank(), BackRank::STANDARD);
        let placed: Vec<(DiePiece, File)> =
            draw.steps().iter().map(|s| (s.piece, s.file)).collect();
        assert_eq!(
            placed,
            [
                (DiePiece::DarkBishop, File::C),
                (DiePiece::LightBishop, File::F),
                (DiePiece::Queen, File::D),
                (DiePiece::Knight, File::B),
                (DiePiece::OtherKnight, File::G),
            ]
        );
        assert_eq!(draw.steps()[0].rerolls, [5]);
        assert_eq!(draw.reroll_count(), 1);
        assert_eq!(
            draw.steps()[2].free,
            [File::A, File::B, File::D, File::E, File::G, File::H]
        );
        assert_eq!(draw.steps()[4].free, [File::A, File::E, File::G, File::H]);
        assert_eq!(draw.rook_king_rook(), [File::A, File::E, File::H]);
    }

    #[test]
    fn every_piece_rerolls_exactly_the_faces_above_its_range() {
        // Before each counting throw, every face above the piece's range.
        let mut faces = Vec::new();
        for (piece, face) in DiePiece::ORDER.into_iter().zip([1, 1, 1, 1, 1]) {
            faces.extend(piece.counting() + 1..=6);
            faces.push(face);
        }
        assert_eq!(faces, [5, 6, 1, 5, 6, 1, 1, 6, 1, 5, 6, 1]);
        let draw = DieDraw::from_faces(&faces).expect("a full draw");
        let rerolls: Vec<&[u8]> = draw.steps().iter().map(|s| s.rerolls.as_slice()).collect();
        assert_eq!(rerolls, [&[5, 6][..], &[5, 6], &[], &[6], &[5, 6]]);
        assert_eq!(draw.faces(), faces);
        assert_eq!(draw.rank().to_string(), "BBQNNRKR");
    }

    #[test]
    fn refusals_name_the_piece_and_the_leftovers() {
        assert_eq!(
            DieDraw::from_faces(&[2, 3, 3, 6]),
            Err(DrawError::TooFewRolls {
                piece: DiePiece::Knight,
                throws: 4
            })
        );
        assert_eq!(
            DieDraw::from_faces(&[2, 3, 3, 2, 3, 4, 5])
                .expect_err("two too many")
                .to_string(),
            "2 throws left over after the position was complete: 4 5"
        );
        assert_eq!(
            DieDraw::from_faces(&[]).expect_err("none").to_string(),
            "too few throws: the dark-square bishop needs a throw (1-4 count, re-roll 5 and 6); 0 throws given"
        );
        assert_eq!(
            DieDraw::from_faces(&[2, 3, 3, 2, 3, 0]),
            Err(DrawError::NotADieFace("0".to_owned()))
        );
        let mut drawer = DieDrawer::new();
        assert_eq!(drawer.throw(7), Err(DrawError::NotADieFace("7".to_owned())));
        assert_eq!(drawer.wants(), Some(DiePiece::DarkBishop));
    }

    #[test]
    fn coin_numbers_read_the_first_flip_as_the_highest_bit() {
        let number = CoinNumber::new(
            parse_flips("HTTTTTTTTT")
                .expect("flips")
                .try_into()
                .expect("ten"),
        );
        assert_eq!(
            (number.value, number.binary()),
            (512, "1000000000".to_owned())
        );
        let draw = CoinDraw::parse(&["TTTTTTTTTT"]).expect("a full draw");
        assert_eq!(draw.scharnagl(), 0);
        let draw =
            CoinDraw::parse(&["HHHH TTTTTH", "HHHHHHHHHH", "tthtthhhhh"]).expect("two re-flips");
        let values: Vec<u16> = draw.numbers().iter().map(|n| n.value).collect();
        assert_eq!(values, [961, 1023, 159]);
        assert_eq!(draw.scharnagl(), 159);
    }

    #[test]
    fn coin_refusals() {
        assert_eq!(
            CoinDraw::parse(&["HTH"]).expect_err("short").to_string(),
            "too few flips: flips 1-10 make the number (H or T); 3 given"
        );
        assert_eq!(
            CoinDraw::parse(&["HHHHHHHHHH", "HHHHTTTTTT", "T"])
                .expect_err("short")
                .to_string(),
            "too few flips: flips 1-20 read 1023 and 960, 960 or more, so flips 21-30 make the number (H or T); 1 given"
        );
        assert_eq!(
            CoinDraw::parse(&["TTTTTTTTTTht"])
                .expect_err("long")
                .to_string(),
            "2 flips left over after the number was read: HT"
        );
        assert_eq!(
            CoinDraw::parse(&["TTTTTTTTTT", "1"])
                .expect_err("bad")
                .to_string(),
            "'1' is not a flip (H or T, either case)"
        );
    }
}
