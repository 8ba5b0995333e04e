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

use std::{error::Error, fmt};

use shakmaty::{File, Role};

use crate::position::BackRank;

/// The pieces the die places, in the order they are thrown for.
///
/// # Examples
///
/// ```
/// use pgn960::draw::DiePiece;
///
/// assert_eq!(DiePiece::ORDER[0], DiePiece::DarkBishop);
/// assert_eq!(DiePiece::Knight.counting(), 5); // 1-5 count, 6 is re-rolled
/// assert_eq!(DiePiece::OtherKnight.to_string(), "other knight");
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum DiePiece {
    /// The bishop on a dark square: 1–4 = a, c, e, g.
    DarkBishop,
    /// The bishop on a light square: 1–4 = b, d, f, h.
    LightBishop,
    /// The queen, on one of the six empty squares: 1–6.
    Queen,
    /// The first knight, on one of the five empty squares: 1–5.
    Knight,
    /// The other knight, on one of the four squares left: 1–4.
    OtherKnight,
}

impl DiePiece {
    /// The pieces in the order the die places them.
    pub const ORDER: [DiePiece; 5] = [
        DiePiece::DarkBishop,
        DiePiece::LightBishop,
        DiePiece::Queen,
        DiePiece::Knight,
        DiePiece::OtherKnight,
    ];

    /// The highest face that counts for this piece (the number of squares
    /// it chooses from); higher faces are re-rolled.
    pub fn counting(self) -> u8 {
        match self {
            DiePiece::DarkBishop | DiePiece::LightBishop | DiePiece::OtherKnight => 4,
            DiePiece::Queen => 6,
            DiePiece::Knight => 5,
        }
    }

    /// The piece's name in messages: `dark-square bishop`, `light-square
    /// bishop`, `queen`, `knight`, `other knight`.
    pub fn name(self) -> &'static str {
        match self {
            DiePiece::DarkBishop => "dark-square bishop",
            DiePiece::LightBishop => "light-square bishop",
            DiePiece::Queen => "queen",
            DiePiece::Knight => "knight",
            DiePiece::OtherKnight => "other knight",
        }
    }

    /// The faces that are re-rolled for this piece, as in `5 and 6` or
    /// `6`; `None` for the queen, for whom every face counts.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::draw::DiePiece;
    ///
    /// assert_eq!(DiePiece::DarkBishop.rerolled().as_deref(), Some("5 and 6"));
    /// assert_eq!(DiePiece::Knight.rerolled().as_deref(), Some("6"));
    /// assert_eq!(DiePiece::Queen.rerolled(), None);
    /// ```
    pub fn rerolled(self) -> Option<String> {
        match self.counting() {
            6 => None,
            5 => Some("6".to_owned()),
            n => Some(format!("{} and 6", n + 1)),
        }
    }

    /// What counts and what is re-rolled, as in `1-5 count, re-roll 6` or
    /// `1-6 count`.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::draw::DiePiece;
    ///
    /// assert_eq!(DiePiece::DarkBishop.range(), "1-4 count, re-roll 5 and 6");
    /// assert_eq!(DiePiece::Queen.range(), "1-6 count");
    /// ```
    pub fn range(self) -> String {
        match self.rerolled() {
            Some(rerolled) => format!("1-{} count, re-roll {rerolled}", self.counting()),
            None => format!("1-{} count", self.counting()),
        }
    }

    fn role(self) -> Role {
        match self {
            DiePiece::DarkBishop | DiePiece::LightBishop => Role::Bishop,
            DiePiece::Queen => Role::Queen,
            DiePiece::Knight | DiePiece::OtherKnight => Role::Knight,
        }
    }
}

impl fmt::Display for DiePiece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One piece placed by the die: the re-rolls, the throw that counted, the
/// squares it chose from and the square the piece went to.
#[derive(Clone, Eq, PartialEq, Hash, Debug)]
pub struct DieStep {
    /// The piece placed.
    pub piece: DiePiece,
    /// Throws before `face` that were too high for this piece, in order.
    pub rerolls: Vec<u8>,
    /// The throw that placed the piece, 1..=[`DiePiece::counting`].
    pub face: u8,
    /// The squares the throw chose from (for a bishop, the four of its
    /// colour), files a-side first; `face` 1 is the first.
    pub free: Vec<File>,
    /// The file the piece went to, on rank 1.
    pub file: File,
}

/// What one throw of the die did.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum DieThrow {
    /// Too high for the piece: throw again.
    Reroll,
    /// The piece went to this file.
    Placed(File),
}

/// A die draw in progress, one throw at a time.
///
/// # Examples
///
/// ```
/// use pgn960::draw::{DieDrawer, DiePiece, DieThrow};
/// use shakmaty::File;
///
/// let mut drawer = DieDrawer::new();
/// assert_eq!(drawer.wants(), Some(DiePiece::DarkBishop));
/// assert_eq!(drawer.throw(5)?, DieThrow::Reroll);
/// assert_eq!(drawer.throw(2)?, DieThrow::Placed(File::C));
/// assert_eq!(drawer.wants(), Some(DiePiece::LightBishop));
/// for face in [3, 3, 2, 3] {
///     drawer.throw(face)?;
/// }
/// assert_eq!(drawer.wants(), None);
/// assert_eq!(drawer.finish()?.rank().scharnagl(), 518);
/// # Ok::<_, pgn960::draw::DrawError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct DieDrawer {
    steps: Vec<DieStep>,
    rerolls: Vec<u8>,
    squares: [Option<Role>; 8],
}

impl DieDrawer {
    /// A draw with nothing thrown yet.
    pub fn new() -> DieDrawer {
        DieDrawer::default()
    }

    /// The piece the next throw places, or `None` when all five are placed.
    pub fn wants(&self) -> Option<DiePiece> {
        DiePiece::ORDER.get(self.steps.len()).copied()
    }

    /// The squares the next throw chooses from, a-side first (face 1 is
    /// the first); empty when the draw is complete.
    pub fn free(&self) -> Vec<File> {
        match self.wants() {
            Some(DiePiece::DarkBishop) => vec![File::A, File::C, File::E, File::G],
            Some(DiePiece::LightBishop) => vec![File::B, File::D, File::F, File::H],
            Some(_) => empty_files(&self.squares),
            None => Vec::new(),
        }
    }

    /// The throws so far that have not placed a piece yet (re-rolls of
    /// the piece [`wants`](DieDrawer::wants) names).
    pub fn pending_rerolls(&self) -> &[u8] {
        &self.rerolls
    }

    /// The back rank so far: the pieces placed, `None` on empty squares.
    pub fn squares(&self) -> [Option<Role>; 8] {
        self.squares
    }

    /// Takes one throw.
    ///
    /// # Errors
    ///
    /// [`DrawError::NotADieFace`] unless `face` is 1..=6;
    /// [`DrawError::RollsLeftOver`] when all five pieces are placed already.
    /// The draw is unchanged after an error.
    pub fn throw(&mut self, face: u8) -> Result<DieThrow, DrawError> {
        if !(1..=6).contains(&face) {
            return Err(DrawError::NotADieFace(face.to_string()));
        }
        let Some(piece) = self.wants() else {
            return Err(DrawError::RollsLeftOver(vec![face]));
        };
        if face > piece.counting() {
            self.rerolls.push(face);
            return Ok(DieThrow::Reroll);
        }
        let free = self.free();
        let file = free[usize::from(face - 1)];
        self.squares[file.to_usize()] = Some(piece.role());
        self.steps.push(DieStep {
            piece,
            rerolls: std::mem::take(&mut self.rerolls),
            face,
            free,
            file,
        });
        Ok(DieThrow::Placed(file))
    }

    /// The finished draw.
    ///
    /// # Errors
    ///
    /// [`DrawError::TooFewRolls`], naming the piece that still needs a
    /// throw, when not all five pieces are placed.
    pub fn finish(self) -> Result<DieDraw, DrawError> {
        if let Some(piece) = self.wants() {
            let throws = self
                .steps
                .iter()
                .map(|s| s.rerolls.len() + 1)
                .sum::<usize>()
                + self.rerolls.len();
            return Err(DrawError::TooFewRolls { piece, throws });
        }
        let rest = empty_files(&self.squares);
        let mut roles = self.squares;
        for (file, role) in rest.iter().zip([Role::Rook, Role::King, Role::Rook]) {
            roles[file.to_usize()] = Some(role);
        }
        let rank = BackRank::from_roles(roles.map(|role| role.expect("every square is filled")))
            .expect("the die method only builds legal back ranks");
        Ok(DieDraw {
            steps: self.steps,
            rook_king_rook: [rest[0], rest[1], rest[2]],
            rank,
        })
    }
}

/// A finished die draw: the position and every step that led to it.
///
/// # Examples
///
/// ```
/// use pgn960::draw::{DieDraw, DiePiece};
///
/// let draw = DieDraw::from_faces(&[5, 2, 3, 3, 2, 3])?;
/// assert_eq!(draw.rank().to_string(), "RNBQKBNR");
/// assert_eq!(draw.steps()[0].piece, DiePiece::DarkBishop);
/// assert_eq!(draw.steps()[0].rerolls, [5]);
/// assert_eq!(draw.faces(), [5, 2, 3, 3, 2, 3]);
///
/// // The inverse: both sequences without re-rolls that draw a position.
/// assert_eq!(DieDraw::faces_for(draw.rank()), [[2, 3, 3, 2, 3], [2, 3, 3, 4, 2]]);
/// # Ok::<_, pgn960::draw::DrawError>(())
/// ```
#[derive(Clone, Eq, PartialEq, Hash, Debug)]
pub struct DieDraw {
    steps: Vec<DieStep>,
    rook_king_rook: [File; 3],
    rank: BackRank,
}

impl DieDraw {
    /// Draws from all the throws, re-rolls included, in the order thrown.
    ///
    /// # Errors
    ///
    /// [`DrawError::NotADieFace`] for a throw outside 1..=6 (the first
    /// one), [`DrawError::TooFewRolls`] when the throws run out before the
    /// last knight is placed, [`DrawError::RollsLeftOver`] with every throw
    /// after the one that placed it.
    pub fn from_faces(faces: &[u8]) -> Result<DieDraw, DrawError> {
        if let Some(&bad) = faces.iter().find(|face| !(1..=6).contains(*face)) {
            return Err(DrawError::NotADieFace(bad.to_string()));
        }
        let mut drawer = DieDrawer::new();
        for (index, &face) in faces.iter().enumerate() {
            if drawer.wants().is_none() {
                return Err(DrawError::RollsLeftOver(faces[index..].to_vec()));
            }
            drawer.throw(face)?;
        }
        drawer.finish()
    }

    /// Draws from throws as typed: each word (split further at whitespace)
    /// one face, `1` to `6`.
    ///
    /// # Errors
    ///
    /// [`DrawError::NotADieFace`] for the first word that is not a face,
    /// wherever it is; then those of [`DieDraw::from_faces`].
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::draw::{DieDraw, DrawError};
    ///
    /// assert_eq!(DieDraw::parse(&["5 2", "3", "3", "2", "3"])?.rank().scharnagl(), 518);
    /// assert_eq!(
    ///     DieDraw::parse(&["2", "7"]),
    ///     Err(DrawError::NotADieFace("7".to_owned()))
    /// );
    /// # Ok::<_, DrawError>(())
    /// ```
    pub fn parse<S: AsRef<str>>(words: &[S]) -> Result<DieDraw, DrawError> {
        let faces = words
            .iter()
            .flat_map(|word| word.as_ref().split_whitespace())
            .map(parse_face)
            .collect::<Result<Vec<u8>, DrawError>>()?;
        DieDraw::from_faces(&faces)
    }

    /// The five pieces the die placed, in order.
    pub fn steps(&self) -> &[DieStep] {
        &self.steps
    }

    /// The three squares left for rook, king and rook, a-side first.
    pub fn rook_king_rook(&self) -> [File; 3] {
        self.rook_king_rook
    }

    /// The position drawn.
    pub fn rank(&self) -> BackRank {
        self.rank
    }

    /// Every throw, re-rolls included, in the order thrown.
    pub fn faces(&self) -> Vec<u8> {
        self.steps
            .iter()
            .flat_map(|step| step.rerolls.iter().copied().chain([step.face]))
            .collect()
    }

    /// How many throws were re-rolls.
    pub fn reroll_count(&self) -> usize {
        self.steps.iter().map(|step| step.rerolls.len()).sum()
    }

    /// The two sequences of throws without re-rolls that draw `rank`: the
    /// a-side knight placed first, then the h-side knight first.
    pub fn faces_for(rank: BackRank) -> [[u8; 5]; 2] {
        let roles = rank.roles();
        // 1-based place of `file` among the files a to h whose role is not
        // in `taken`: what the die shows for a piece on `file`.
        let place = |file: usize, taken: &[Role]| {
            1 + roles[..file]
                .iter()
                .filter(|role| !taken.contains(role))
                .count()
        };
        let mut dark = 0;
        let mut light = 0;
        let mut queen = 0;
        let mut knights = Vec::with_capacity(2);
        for (file, role) in roles.into_iter().enumerate() {
            match role {
                // Even files (a, c, e, g) are dark on rank 1.
                Role::Bishop if file % 2 == 0 => dark = file / 2 + 1,
                Role::Bishop => light = file / 2 + 1,
                Role::Queen => queen = place(file, &[Role::Bishop]),
                Role::Knight => knights.push(place(file, &[Role::Bishop, Role::Queen])),
                _ => (),
            }
        }
        let (a_side, h_side) = (knights[0], knights[1]);
        let faces = |first: usize, second: usize| {
            [dark, light, queen, first, second].map(|face| face as u8)
        };
        // Once the a-side knight stands, the h-side one is a square nearer
        // the a-file among the empty squares; the other way round, nothing
        // before the a-side knight changes.
        [faces(a_side, h_side - 1), faces(h_side, a_side)]
    }
}

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
