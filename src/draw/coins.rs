//! Coin flips: ten flips a number, a number from 960 up flipped again, the
//! number a Scharnagl number.

use std::fmt;

use super::{DrawError, parse_flips};
use crate::position::BackRank;

/// One coin flip: heads counts 1, tails 0.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum Coin {
    /// Heads, written `H` (or `h`); counts 1.
    Heads,
    /// Tails, written `T` (or `t`); counts 0.
    Tails,
}

impl Coin {
    /// `H` or `T` in either case.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::draw::Coin;
    ///
    /// assert_eq!(Coin::from_char('h'), Some(Coin::Heads));
    /// assert_eq!(Coin::from_char('T'), Some(Coin::Tails));
    /// assert_eq!(Coin::from_char('1'), None);
    /// ```
    pub fn from_char(letter: char) -> Option<Coin> {
        match letter.to_ascii_uppercase() {
            'H' => Some(Coin::Heads),
            'T' => Some(Coin::Tails),
            _ => None,
        }
    }

    /// 1 for heads, 0 for tails.
    pub fn bit(self) -> u16 {
        match self {
            Coin::Heads => 1,
            Coin::Tails => 0,
        }
    }
}

impl fmt::Display for Coin {
    /// `H` or `T`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Coin::Heads => "H",
            Coin::Tails => "T",
        })
    }
}

/// How many flips make one number.
pub const FLIPS_PER_NUMBER: usize = 10;

/// The smallest number ten flips can read that is not a Scharnagl number:
/// from here up (to 1023), the next ten flips are used.
pub const FIRST_REFLIP: u16 = BackRank::COUNT;

/// Ten flips read as a number, 0..=1023, the first flip its highest bit.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct CoinNumber {
    /// The flips, first first.
    pub flips: [Coin; FLIPS_PER_NUMBER],
    /// Their value, 0..=1023.
    pub value: u16,
}

impl CoinNumber {
    /// Reads ten flips.
    pub fn new(flips: [Coin; FLIPS_PER_NUMBER]) -> CoinNumber {
        let value = flips.iter().fold(0, |value, coin| 2 * value + coin.bit());
        CoinNumber { flips, value }
    }

    /// Whether the number is a Scharnagl number (below 960); if not, it is
    /// flipped again.
    pub fn counts(&self) -> bool {
        self.value < FIRST_REFLIP
    }

    /// The flips as one word, `HTTHHTHTTH`.
    pub fn word(&self) -> String {
        self.flips.iter().map(Coin::to_string).collect()
    }

    /// The value in binary, ten digits: `1001101001`.
    pub fn binary(&self) -> String {
        format!("{:010b}", self.value)
    }
}

/// What one coin flip did.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum CoinFlip {
    /// The number needs more flips.
    Pending,
    /// The flip completed a number; if it does not
    /// [count](CoinNumber::counts), ten more flips follow.
    Number(CoinNumber),
}

/// What the next flip is for: its place in its number, and how many numbers
/// came before (all 960 or more).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct CoinWant {
    /// 1..=10: the flip's place in its number.
    pub flip: usize,
    /// How many numbers of 960 or more came before.
    pub rejected: usize,
}

/// A coin draw in progress, one flip at a time.
///
/// # Examples
///
/// ```
/// use pgn960::draw::{Coin, CoinDrawer, CoinFlip, CoinWant};
///
/// let mut drawer = CoinDrawer::new();
/// for _ in 0..9 {
///     assert_eq!(drawer.flip(Coin::Heads)?, CoinFlip::Pending);
/// }
/// // 1111111111 = 1023, 960 or more: ten more flips.
/// let CoinFlip::Number(number) = drawer.flip(Coin::Heads)? else { unreachable!() };
/// assert_eq!((number.value, number.counts()), (1023, false));
/// assert_eq!(drawer.wants(), Some(CoinWant { flip: 1, rejected: 1 }));
/// # Ok::<_, pgn960::draw::DrawError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct CoinDrawer {
    numbers: Vec<CoinNumber>,
    current: Vec<Coin>,
}

impl CoinDrawer {
    /// A draw with nothing flipped yet.
    pub fn new() -> CoinDrawer {
        CoinDrawer::default()
    }

    /// What the next flip is for, or `None` when a number below 960 is read.
    pub fn wants(&self) -> Option<CoinWant> {
        if self.numbers.last().is_some_and(CoinNumber::counts) {
            return None;
        }
        Some(CoinWant {
            flip: self.current.len() + 1,
            rejected: self.numbers.len(),
        })
    }

    /// The numbers read so far; all but a last one that counts are 960 or
    /// more.
    pub fn numbers(&self) -> &[CoinNumber] {
        &self.numbers
    }

    /// The flips of the number being read.
    pub fn current(&self) -> &[Coin] {
        &self.current
    }

    /// Takes one flip.
    ///
    /// # Errors
    ///
    /// [`DrawError::FlipsLeftOver`] when a number below 960 has been read
    /// already; the draw is unchanged.
    pub fn flip(&mut self, coin: Coin) -> Result<CoinFlip, DrawError> {
        if self.wants().is_none() {
            return Err(DrawError::FlipsLeftOver(vec![coin]));
        }
        self.current.push(coin);
        let Ok(flips) = <[Coin; FLIPS_PER_NUMBER]>::try_from(self.current.as_slice()) else {
            return Ok(CoinFlip::Pending);
        };
        self.current.clear();
        let number = CoinNumber::new(flips);
        self.numbers.push(number);
        Ok(CoinFlip::Number(number))
    }

    /// The finished draw.
    ///
    /// # Errors
    ///
    /// [`DrawError::TooFewFlips`] until a number below 960 is read.
    pub fn finish(self) -> Result<CoinDraw, DrawError> {
        match self.numbers.last() {
            Some(&last) if last.counts() => {
                let rank = BackRank::from_scharnagl(u32::from(last.value))
                    .expect("a number below 960 is a Scharnagl number");
                Ok(CoinDraw {
                    numbers: self.numbers,
                    rank,
                })
            }
            _ => Err(DrawError::TooFewFlips {
                given: self.current.len(),
                rejected: self.numbers.iter().map(|number| number.value).collect(),
            }),
        }
    }
}

/// A finished coin draw: every number read (all but the last 960 or more)
/// and the position.
///
/// # Examples
///
/// ```
/// use pgn960::draw::{Coin, CoinDraw};
///
/// let draw = CoinDraw::parse(&["HTTHHTHTTH"])?;
/// assert_eq!(draw.scharnagl(), 617);
/// assert_eq!(draw.rank().to_string(), "RNQBBKRN");
///
/// // 960 or more: the next ten flips are a fresh number.
/// let draw = CoinDraw::parse(&["hhhhtttttt", "t t t t t t t t t h"])?;
/// assert_eq!(draw.numbers()[0].value, 960);
/// assert_eq!(draw.scharnagl(), 1);
///
/// // The inverse: the ten flips that read a position's number.
/// assert_eq!(CoinDraw::flips_for(draw.rank())[9], Coin::Heads);
/// # Ok::<_, pgn960::draw::DrawError>(())
/// ```
#[derive(Clone, Eq, PartialEq, Hash, Debug)]
pub struct CoinDraw {
    numbers: Vec<CoinNumber>,
    rank: BackRank,
}

impl CoinDraw {
    /// Draws from all the flips, in the order flipped.
    ///
    /// # Errors
    ///
    /// [`DrawError::TooFewFlips`] when the flips run out before a number
    /// below 960 is read, [`DrawError::FlipsLeftOver`] with every flip after
    /// that number.
    pub fn from_flips(flips: &[Coin]) -> Result<CoinDraw, DrawError> {
        let mut drawer = CoinDrawer::new();
        for (index, &coin) in flips.iter().enumerate() {
            if drawer.wants().is_none() {
                return Err(DrawError::FlipsLeftOver(flips[index..].to_vec()));
            }
            drawer.flip(coin)?;
        }
        drawer.finish()
    }

    /// Draws from flips as typed: `H` and `T` in either case, as one word
    /// (`HTTHHTHTTH`), separate words, or both; whitespace inside a word
    /// separates like the gaps between words.
    ///
    /// # Errors
    ///
    /// [`DrawError::NotAFlip`] for the first letter that is not `H` or `T`,
    /// wherever it is; then those of [`CoinDraw::from_flips`].
    pub fn parse<S: AsRef<str>>(words: &[S]) -> Result<CoinDraw, DrawError> {
        let mut flips = Vec::new();
        for word in words
            .iter()
            .flat_map(|word| word.as_ref().split_whitespace())
        {
            flips.extend(parse_flips(word)?);
        }
        CoinDraw::from_flips(&flips)
    }

    /// Every number read, in order: all but the last are 960 or more.
    pub fn numbers(&self) -> &[CoinNumber] {
        &self.numbers
    }

    /// The Scharnagl number drawn (the last number read).
    pub fn scharnagl(&self) -> u16 {
        self.rank.scharnagl()
    }

    /// The position drawn.
    pub fn rank(&self) -> BackRank {
        self.rank
    }

    /// The ten flips that read `rank`'s Scharnagl number.
    pub fn flips_for(rank: BackRank) -> [Coin; FLIPS_PER_NUMBER] {
        let number = rank.scharnagl();
        std::array::from_fn(|index| {
            if number >> (FLIPS_PER_NUMBER - 1 - index) & 1 == 1 {
                Coin::Heads
            } else {
                Coin::Tails
            }
        })
    }
}
