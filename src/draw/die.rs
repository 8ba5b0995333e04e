//! The single-die method: the pieces in their order, each throw with its
//! re-rolls, and the draw they make.

use std::fmt;

use shakmaty::{File, Role};

use super::{DrawError, empty_files, parse_face};
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
