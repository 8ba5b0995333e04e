//! Chess960 start arrays: the 960 back ranks, their two numberings, their
//! FEN forms, and recognising a start array (or a Double FRC pair) on a board.
//!
//! Everything else in the crate asks this module one question — "which start
//! is this?" — so it is kept small, allocation-free on the hot path
//! ([`classify_board`] runs once per game over archives of millions) and
//! checked exhaustively: the domain has only 960 members.
//!
//! Two numberings are in use:
//!
//! - **Scharnagl** (0–959), the standard one (`Board::chess960` in shakmaty,
//!   the `FRC` numbers in most software): `id = light + 4 × dark + 16 × queen
//!   + 96 × n5n`.
//! - **Fritz9** (1–960), used by ChessBase's Fritz 9: `id = 1 + light + 4 ×
//!   dark + 16 × knights + 240 × queen`.
//!
//! Here `light` is the light-squared bishop's index among files b, d, f, h,
//! `dark` the dark-squared bishop's among a, c, e, g, and the queen and knight
//! codes count the free squares left by the pieces placed before them (see
//! [`BackRank::from_scharnagl`] and [`BackRank::from_fritz9`]).

use std::{error::Error, fmt, str::FromStr};

use shakmaty::{
    Bitboard, Board, ByRole, Color, File, Piece, Rank, Role, Setup, Square,
    fen::{Fen, ParseFenError},
};

/// The seed's N5N table: the ten ways to put two knights on five free
/// squares, numbered 0..=9 in this order (`NN---`, `N-N--`, …, `---NN`).
const N5N: [(u8, u8); 10] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (1, 2),
    (1, 3),
    (1, 4),
    (2, 3),
    (2, 4),
    (3, 4),
];

/// The seed's Fritz9 knight table: the fifteen ways to put two knights on
/// the six squares the bishops leave free, numbered 0..=14 in this order
/// (`NN----`, `N-N---`, …, `----NN`).
const FRITZ9_KNIGHTS: [(u8, u8); 15] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (0, 5),
    (1, 2),
    (1, 3),
    (1, 4),
    (1, 5),
    (2, 3),
    (2, 4),
    (2, 5),
    (3, 4),
    (3, 5),
    (4, 5),
];

const RANK_1: Bitboard = Bitboard::from_rank(Rank::First);
const RANK_2: Bitboard = Bitboard::from_rank(Rank::Second);
const RANK_7: Bitboard = Bitboard::from_rank(Rank::Seventh);
const RANK_8: Bitboard = Bitboard::from_rank(Rank::Eighth);
const WHITE_HOME: Bitboard = RANK_1.with_const(RANK_2);
const BLACK_HOME: Bitboard = RANK_7.with_const(RANK_8);
const PAWN_HOME: Bitboard = RANK_2.with_const(RANK_7);

/// The roles a back rank can hold, in the order [`classify_board`] reads
/// them from the board's bitboards.
const PIECE_ROLES: [Role; 5] = [
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// One of the 960 legal Chess960 back ranks: white's pieces on files a to h.
///
/// The value is always legal: exactly a king, a queen, two rooks, two
/// bishops and two knights, the bishops on squares of opposite colours and
/// the king between the rooks. Black's back rank in a Chess960 start is the
/// same arrangement mirrored onto rank 8.
///
/// # Examples
///
/// ```
/// use pgn960::BackRank;
///
/// let standard: BackRank = "RNBQKBNR".parse()?;
/// assert_eq!(standard, BackRank::STANDARD);
/// assert_eq!(standard.scharnagl(), 518);
/// assert_eq!(standard.fritz9(), 359);
/// assert_eq!(BackRank::from_scharnagl(0)?.to_string(), "BBQNNRKR");
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Ord, PartialOrd, Debug)]
pub struct BackRank([Role; 8]);

impl BackRank {
    /// The back rank of standard chess, `RNBQKBNR` (Scharnagl 518, Fritz9 359).
    pub const STANDARD: BackRank = BackRank([
        Role::Rook,
        Role::Knight,
        Role::Bishop,
        Role::Queen,
        Role::King,
        Role::Bishop,
        Role::Knight,
        Role::Rook,
    ]);

    /// Number of distinct back ranks.
    pub const COUNT: u16 = 960;

    /// The back rank with Scharnagl number `id`, by the direct derivation:
    ///
    /// 1. `id % 4` puts the light-squared bishop on b, d, f or h;
    /// 2. `id / 4 % 4` puts the dark-squared bishop on a, c, e or g;
    /// 3. `id / 16 % 6` puts the queen on that free square, counting from a;
    /// 4. `id / 96` (0..=9) puts the two knights on the five free squares by
    ///    the N5N table (0 = `NN---`, 1 = `N-N--`, …, 9 = `---NN`);
    /// 5. the three squares left take rook, king, rook.
    ///
    /// # Errors
    ///
    /// [`IdError::Scharnagl`] if `id` is not in `0..=959`. (Some software
    /// numbers 1–960 with 960 meaning 0; map that before calling.)
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::BackRank;
    ///
    /// assert_eq!(BackRank::from_scharnagl(518)?, BackRank::STANDARD);
    /// assert_eq!(BackRank::from_scharnagl(959)?.to_string(), "RKRNNQBB");
    /// assert!(BackRank::from_scharnagl(960).is_err());
    /// # Ok::<_, pgn960::position::IdError>(())
    /// ```
    pub fn from_scharnagl(id: u32) -> Result<BackRank, IdError> {
        if id >= u32::from(Self::COUNT) {
            return Err(IdError::Scharnagl(id));
        }
        let mut rank = Partial::default();
        rank.place_bishops((id % 16) as u8);
        rank.place_nth_free(((id / 16) % 6) as u8, Role::Queen);
        let (first, second) = N5N[(id / 96) as usize];
        rank.place_knights(first, second);
        Ok(rank.finish())
    }

    /// The back rank with Fritz9 number `id`.
    ///
    /// With `n = id - 1`: `n % 16` is the bishop code (as in Scharnagl's
    /// numbering), `n / 16 % 15` puts the two knights on the six squares the
    /// bishops left free (0 = `NN----`, 1 = `N-N---`, …, 14 = `----NN`),
    /// `n / 240` (0..=3) puts the queen on that one of the four squares left,
    /// and rook, king, rook fill the last three.
    ///
    /// # Errors
    ///
    /// [`IdError::Fritz9`] if `id` is not in `1..=960`.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::BackRank;
    ///
    /// assert_eq!(BackRank::from_fritz9(359)?, BackRank::STANDARD);
    /// assert_eq!(BackRank::from_fritz9(1)?.to_string(), "BBNNQRKR");
    /// assert!(BackRank::from_fritz9(0).is_err());
    /// # Ok::<_, pgn960::position::IdError>(())
    /// ```
    pub fn from_fritz9(id: u32) -> Result<BackRank, IdError> {
        if !(1..=u32::from(Self::COUNT)).contains(&id) {
            return Err(IdError::Fritz9(id));
        }
        let n = id - 1;
        let mut rank = Partial::default();
        rank.place_bishops((n % 16) as u8);
        let (first, second) = FRITZ9_KNIGHTS[((n / 16) % 15) as usize];
        rank.place_knights(first, second);
        rank.place_nth_free((n / 240) as u8, Role::Queen);
        Ok(rank.finish())
    }

    /// The Scharnagl number, 0..=959.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::BackRank;
    ///
    /// assert_eq!("BBQNNRKR".parse::<BackRank>()?.scharnagl(), 0);
    /// assert_eq!(BackRank::STANDARD.scharnagl(), 518);
    /// # Ok::<_, pgn960::position::BackRankError>(())
    /// ```
    pub fn scharnagl(&self) -> u16 {
        // Slots count squares not yet taken: the queen among the six
        // non-bishop squares, the knights among the five left after her.
        let mut queen = 0;
        let mut knights = [0u8; 2];
        let mut found_knights = 0;
        let mut free_before_queen = 0;
        let mut free_for_knights = 0;
        for role in self.0 {
            match role {
                Role::Bishop => continue,
                Role::Queen => queen = free_before_queen,
                Role::Knight => {
                    knights[found_knights] = free_for_knights;
                    found_knights += 1;
                }
                _ => (),
            }
            free_before_queen += 1;
            if role != Role::Queen {
                free_for_knights += 1;
            }
        }
        let n5n = pair_code(&N5N, knights);
        self.bishop_code() + 16 * queen + 96 * n5n
    }

    /// The Fritz9 number, 1..=960.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::BackRank;
    ///
    /// assert_eq!(BackRank::STANDARD.fritz9(), 359);
    /// assert_eq!("BBQNNRKR".parse::<BackRank>()?.fritz9(), 81);
    /// # Ok::<_, pgn960::position::BackRankError>(())
    /// ```
    pub fn fritz9(&self) -> u16 {
        // Knights count among the six non-bishop squares, the queen among
        // the four left after bishops and knights.
        let mut queen = 0;
        let mut knights = [0u8; 2];
        let mut found_knights = 0;
        let mut non_bishops = 0;
        let mut free_for_queen = 0;
        for role in self.0 {
            match role {
                Role::Bishop => continue,
                Role::Knight => {
                    knights[found_knights] = non_bishops;
                    found_knights += 1;
                }
                Role::Queen => queen = free_for_queen,
                _ => (),
            }
            non_bishops += 1;
            if role != Role::Knight {
                free_for_queen += 1;
            }
        }
        let knight_code = pair_code(&FRITZ9_KNIGHTS, knights);
        1 + self.bishop_code() + 16 * knight_code + 240 * queen
    }

    /// The bishop code shared by both numberings, 0..=15: the light-squared
    /// bishop's index among b, d, f, h plus four times the dark-squared
    /// bishop's index among a, c, e, g.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::BackRank;
    ///
    /// // Bishops on c1 (dark, index 1) and f1 (light, index 2).
    /// assert_eq!(BackRank::STANDARD.bishop_code(), 2 + 4 * 1);
    /// ```
    pub fn bishop_code(&self) -> u16 {
        let mut code = 0;
        for (file, role) in self.0.into_iter().enumerate() {
            if role == Role::Bishop {
                // Files b, d, f, h (odd index) are light on rank 1.
                let index = (file / 2) as u16;
                code += if file % 2 == 1 { index } else { 4 * index };
            }
        }
        code
    }

    /// All 960 back ranks in Scharnagl order (0 first).
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::BackRank;
    ///
    /// assert_eq!(BackRank::all().len(), 960);
    /// assert_eq!(BackRank::all().nth(518), Some(BackRank::STANDARD));
    /// ```
    pub fn all() -> impl ExactSizeIterator<Item = BackRank> + DoubleEndedIterator {
        (0..u32::from(Self::COUNT))
            .map(|id| BackRank::from_scharnagl(id).expect("0..960 are all Scharnagl ids"))
    }

    /// Checks eight roles (files a to h) against the rules of Chess960.
    ///
    /// This is the constructor for arrangements read off a board. The rules
    /// are checked in this order and the first one broken is reported:
    /// piece set, bishop colours, king between the rooks.
    ///
    /// # Errors
    ///
    /// - [`BackRankError::PieceSet`] unless the roles are exactly one king,
    ///   one queen, two rooks, two bishops and two knights (a pawn is a wrong
    ///   piece here);
    /// - [`BackRankError::SameColourBishops`] if both bishops stand on
    ///   squares of the same colour;
    /// - [`BackRankError::KingNotBetweenRooks`] if the king is not between
    ///   the rooks.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::position::{BackRank, BackRankError};
    /// use shakmaty::{File, Role::*};
    ///
    /// assert_eq!(
    ///     BackRank::from_roles([Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook]),
    ///     Ok(BackRank::STANDARD)
    /// );
    /// assert_eq!(
    ///     BackRank::from_roles([Rook, Knight, Bishop, Queen, King, Knight, Bishop, Rook]),
    ///     Err(BackRankError::SameColourBishops([File::C, File::G]))
    /// );
    /// ```
    pub fn from_roles(roles: [Role; 8]) -> Result<BackRank, BackRankError> {
        let mut counts = ByRole::<u8>::default();
        for role in roles {
            *counts.get_mut(role) += 1;
        }
        let expected = ByRole {
            pawn: 0,
            knight: 2,
            bishop: 2,
            rook: 2,
            queen: 1,
            king: 1,
        };
        if counts != expected {
            return Err(BackRankError::PieceSet(counts));
        }

        let files_of = |wanted: Role| {
            let mut files = roles
                .iter()
                .enumerate()
                .filter(move |&(_, &role)| role == wanted)
                .map(|(file, _)| File::new(file as u32));
            let first = files.next().expect("the piece set was checked");
            (first, files.next())
        };

        let (bishop, other) = files_of(Role::Bishop);
        let other = other.expect("the piece set has two bishops");
        if (bishop.to_u32() + other.to_u32()) % 2 == 0 {
            return Err(BackRankError::SameColourBishops([bishop, other]));
        }

        let (king, _) = files_of(Role::King);
        let (rook, other) = files_of(Role::Rook);
        let other = other.expect("the piece set has two rooks");
        if !(rook < king && king < other) {
            return Err(BackRankError::KingNotBetweenRooks {
                king,
                rooks: [rook, other],
            });
        }

        Ok(BackRank(roles))
    }

    /// Parses an arrangement such as `RNBQKBNR`, in either case.
    ///
    /// Checks are made in this order and the first broken one is reported:
    /// length, letters, then the rules of [`BackRank::from_roles`].
    ///
    /// # Errors
    ///
    /// [`BackRankError::Length`] unless there are exactly eight bytes,
    /// [`BackRankError::Letter`] for a byte other than `KQRBN` in either
    /// case (a non-ASCII byte is reported as `U+FFFD`), then the errors of
    /// [`BackRank::from_roles`].
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::position::{BackRank, BackRankError};
    ///
    /// assert_eq!(BackRank::from_ascii(b"rnbqkbnr"), Ok(BackRank::STANDARD));
    /// assert_eq!(BackRank::from_ascii(b"RNBQKBN"), Err(BackRankError::Length(7)));
    /// assert_eq!(BackRank::from_ascii(b"RNBPKBNR"), Err(BackRankError::Letter('P')));
    /// ```
    pub fn from_ascii(arrangement: &[u8]) -> Result<BackRank, BackRankError> {
        let bytes: &[u8; 8] = arrangement
            .try_into()
            .map_err(|_| BackRankError::Length(arrangement.len()))?;
        let mut roles = [Role::Pawn; 8];
        for (role, &byte) in roles.iter_mut().zip(bytes) {
            *role = match byte.to_ascii_uppercase() {
                b'K' => Role::King,
                b'Q' => Role::Queen,
                b'R' => Role::Rook,
                b'B' => Role::Bishop,
                b'N' => Role::Knight,
                _ if byte.is_ascii() => return Err(BackRankError::Letter(char::from(byte))),
                _ => return Err(BackRankError::Letter(char::REPLACEMENT_CHARACTER)),
            };
        }
        BackRank::from_roles(roles)
    }

    /// The roles on files a to h.
    pub fn roles(&self) -> [Role; 8] {
        self.0
    }

    /// The role on `file`.
    pub fn role_at(&self, file: File) -> Role {
        self.0[file.to_usize()]
    }

    /// The full start position: this back rank for white, mirrored for
    /// black, pawns on ranks 2 and 7.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::BackRank;
    /// use shakmaty::Board;
    ///
    /// assert_eq!(BackRank::STANDARD.board(), Board::new());
    /// ```
    pub fn board(&self) -> Board {
        StartArray::Chess960(*self).board()
    }

    /// The start position as X-FEN, white to move, all four castling rights.
    ///
    /// Every Chess960 start has exactly one rook on each side of each king,
    /// so X-FEN's `KQkq` names the castling rooks without ambiguity.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::BackRank;
    ///
    /// assert_eq!(
    ///     BackRank::STANDARD.to_xfen(),
    ///     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    /// );
    /// ```
    pub fn to_xfen(&self) -> String {
        StartArray::Chess960(*self).to_xfen()
    }

    /// The start position as Shredder-FEN: castling rights by rook file,
    /// white's (upper case) then black's, each h-side rook first.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::BackRank;
    ///
    /// assert_eq!(
    ///     BackRank::STANDARD.to_shredder_fen(),
    ///     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
    /// );
    /// ```
    pub fn to_shredder_fen(&self) -> String {
        StartArray::Chess960(*self).to_shredder_fen()
    }

    /// The files of the two rooks, a-side first.
    fn rook_files(&self) -> [File; 2] {
        let mut files = [File::A; 2];
        let mut found = 0;
        for (file, role) in self.0.into_iter().enumerate() {
            if role == Role::Rook {
                files[found] = File::new(file as u32);
                found += 1;
            }
        }
        files
    }
}

impl TryFrom<[Role; 8]> for BackRank {
    type Error = BackRankError;

    /// See [`BackRank::from_roles`].
    fn try_from(roles: [Role; 8]) -> Result<BackRank, BackRankError> {
        BackRank::from_roles(roles)
    }
}

impl FromStr for BackRank {
    type Err = BackRankError;

    /// See [`BackRank::from_ascii`]; the length is counted in characters.
    fn from_str(arrangement: &str) -> Result<BackRank, BackRankError> {
        let length = arrangement.chars().count();
        if length != 8 {
            return Err(BackRankError::Length(length));
        }
        if let Some(ch) = arrangement.chars().find(|ch| !ch.is_ascii()) {
            return Err(BackRankError::Letter(ch));
        }
        BackRank::from_ascii(arrangement.as_bytes())
    }
}

impl fmt::Display for BackRank {
    /// Upper-case letters, files a to h: `RNBQKBNR`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for role in self.0 {
            fmt::Write::write_char(f, role.upper_char())?;
        }
        Ok(())
    }
}

/// A back rank under construction: `None` marks a free square.
#[derive(Default)]
struct Partial([Option<Role>; 8]);

impl Partial {
    /// Places the bishops by the 0..=15 bishop code.
    fn place_bishops(&mut self, code: u8) {
        let light = 2 * (code % 4) + 1; // b, d, f, h
        let dark = 2 * (code / 4); // a, c, e, g
        self.0[usize::from(light)] = Some(Role::Bishop);
        self.0[usize::from(dark)] = Some(Role::Bishop);
    }

    /// Places `role` on the `n`th free square, counting from 0 on the a-side.
    fn place_nth_free(&mut self, n: u8, role: Role) {
        let square = self
            .0
            .iter_mut()
            .filter(|square| square.is_none())
            .nth(usize::from(n))
            .expect("a slot index is smaller than the number of free squares");
        *square = Some(role);
    }

    /// Places the knights on free squares `first < second`.
    fn place_knights(&mut self, first: u8, second: u8) {
        // The later one first, so that placing it does not shift the count
        // for the earlier one.
        self.place_nth_free(second, Role::Knight);
        self.place_nth_free(first, Role::Knight);
    }

    /// Puts rook, king, rook on the three squares left.
    fn finish(mut self) -> BackRank {
        for role in [Role::Rook, Role::King, Role::Rook] {
            self.place_nth_free(0, role);
        }
        BackRank(self.0.map(|role| role.expect("every square is filled")))
    }
}

/// The index of a knight pair in one of the seed's knight tables.
fn pair_code(table: &[(u8, u8)], [first, second]: [u8; 2]) -> u16 {
    let index = table
        .iter()
        .position(|&pair| pair == (first, second))
        .expect("a legal back rank has its knights on a pair from the table");
    index as u16
}

/// A number outside the range of a numbering.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum IdError {
    /// A Scharnagl number outside `0..=959`.
    Scharnagl(u32),
    /// A Fritz9 number outside `1..=960`.
    Fritz9(u32),
}

impl fmt::Display for IdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            IdError::Scharnagl(id) => write!(f, "Scharnagl id {id} is not in 0..=959"),
            IdError::Fritz9(id) => write!(f, "Fritz9 id {id} is not in 1..=960"),
        }
    }
}

impl Error for IdError {}

/// Why eight letters or eight roles are not a legal Chess960 back rank.
///
/// Each variant is one rule; parsing reports the first broken rule in the
/// order the variants are listed. Messages name the problem but not the
/// input, which the caller knows better (and may be a board, not text).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum BackRankError {
    /// Not eight letters; carries how many there were.
    Length(usize),
    /// A letter that is not `K`, `Q`, `R`, `B` or `N` in either case.
    Letter(char),
    /// Not exactly K, Q, 2 R, 2 B and 2 N; carries the counts found.
    PieceSet(ByRole<u8>),
    /// Both bishops on squares of the same colour; carries their files.
    SameColourBishops([File; 2]),
    /// The king is not between the rooks; carries the files.
    KingNotBetweenRooks {
        /// The king's file.
        king: File,
        /// The rooks' files, a-side first.
        rooks: [File; 2],
    },
}

impl fmt::Display for BackRankError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BackRankError::Length(1) => f.write_str("1 letter, not 8"),
            BackRankError::Length(length) => write!(f, "{length} letters, not 8"),
            BackRankError::Letter(letter) => {
                write!(f, "{letter:?} is not a piece letter (K, Q, R, B, N)")
            }
            BackRankError::PieceSet(counts) => {
                f.write_str("wrong pieces (found ")?;
                let mut first = true;
                for role in [
                    Role::King,
                    Role::Queen,
                    Role::Rook,
                    Role::Bishop,
                    Role::Knight,
                    Role::Pawn,
                ] {
                    let count = *counts.get(role);
                    if count == 0 {
                        continue;
                    }
                    if !first {
                        f.write_str(", ")?;
                    }
                    first = false;
                    if count > 1 {
                        write!(f, "{count} ")?;
                    }
                    write!(f, "{}", role.upper_char())?;
                }
                f.write_str("; need K, Q, 2 R, 2 B, 2 N)")
            }
            BackRankError::SameColourBishops([first, second]) => write!(
                f,
                "bishops on squares of the same colour (files {first} and {second})"
            ),
            BackRankError::KingNotBetweenRooks {
                king,
                rooks: [a_side, h_side],
            } => write!(
                f,
                "king not between the rooks (king on file {king}, rooks on files {a_side} and {h_side})"
            ),
        }
    }
}

impl Error for BackRankError {}

/// The start of a game: one back rank for both sides (Chess960), or a
/// different one for each (Double FRC).
///
/// # Examples
///
/// ```
/// use pgn960::{BackRank, StartArray};
///
/// let start = StartArray::from_fen("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")?;
/// assert_eq!(start.white(), BackRank::STANDARD);
/// assert_eq!(start.black().scharnagl(), 0);
/// assert_eq!(start.scharnagl(), None); // Double FRC has no single number
/// # Ok::<_, pgn960::position::StartFenError>(())
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Ord, PartialOrd, Debug)]
pub enum StartArray {
    /// Both sides start from the same back rank.
    Chess960(BackRank),
    /// Each side starts from its own back rank. Built by this crate only
    /// when the two differ.
    DoubleFrc {
        /// White's back rank (rank 1).
        white: BackRank,
        /// Black's back rank (rank 8), read from the a-file.
        black: BackRank,
    },
}

impl StartArray {
    /// `Chess960` if the two back ranks are equal, `DoubleFrc` otherwise.
    pub fn from_back_ranks(white: BackRank, black: BackRank) -> StartArray {
        if white == black {
            StartArray::Chess960(white)
        } else {
            StartArray::DoubleFrc { white, black }
        }
    }

    /// Reads a start array from a FEN; see [`classify_fen`] for what is
    /// accepted.
    ///
    /// # Errors
    ///
    /// [`StartFenError::Fen`] if the FEN does not parse,
    /// [`StartFenError::NotAStart`] with the first wrong square if the board
    /// is not a start array of any kind, and
    /// [`StartFenError::IllegalBackRank`] if it has the shape of one but a
    /// back rank breaks a Chess960 rule.
    ///
    /// # Examples
    ///
    /// ```
    /// use pgn960::{BackRank, StartArray};
    ///
    /// let start = StartArray::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1")?;
    /// assert_eq!(start, StartArray::Chess960(BackRank::STANDARD));
    ///
    /// let err = StartArray::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    /// assert_eq!(
    ///     err.unwrap_err().to_string(),
    ///     "not a start position: e2 is empty (rank 2 must be full of white pawns)"
    /// );
    /// # Ok::<_, pgn960::position::StartFenError>(())
    /// ```
    pub fn from_fen(fen: &str) -> Result<StartArray, StartFenError> {
        let board = parse_fen_board(fen).map_err(StartFenError::Fen)?;
        match classify_board(&board) {
            BoardStart::Start(start) => Ok(start),
            BoardStart::IllegalBackRank { white, black } => {
                Err(StartFenError::IllegalBackRank { white, black })
            }
            BoardStart::NotAStart => {
                let (square, found) = first_misplaced(&board)
                    .expect("a board that is not a start has a wrong square");
                Err(StartFenError::NotAStart { square, found })
            }
        }
    }

    /// White's back rank.
    pub fn white(&self) -> BackRank {
        match *self {
            StartArray::Chess960(rank) => rank,
            StartArray::DoubleFrc { white, .. } => white,
        }
    }

    /// Black's back rank, read from the a-file like white's.
    pub fn black(&self) -> BackRank {
        match *self {
            StartArray::Chess960(rank) => rank,
            StartArray::DoubleFrc { black, .. } => black,
        }
    }

    /// The Scharnagl number of a Chess960 start; `None` for Double FRC,
    /// which has no single number.
    pub fn scharnagl(&self) -> Option<u16> {
        match self {
            StartArray::Chess960(rank) => Some(rank.scharnagl()),
            StartArray::DoubleFrc { .. } => None,
        }
    }

    /// The Fritz9 number of a Chess960 start; `None` for Double FRC.
    pub fn fritz9(&self) -> Option<u16> {
        match self {
            StartArray::Chess960(rank) => Some(rank.fritz9()),
            StartArray::DoubleFrc { .. } => None,
        }
    }

    /// The full start position.
    pub fn board(&self) -> Board {
        let (white, black) = (self.white(), self.black());
        let mut board = Board::empty();
        for file in File::ALL {
            let index = file.to_usize();
            for (rank, piece) in [
                (Rank::First, white.0[index].of(Color::White)),
                (
                    Rank::Second,
                    Piece {
                        color: Color::White,
                        role: Role::Pawn,
                    },
                ),
                (
                    Rank::Seventh,
                    Piece {
                        color: Color::Black,
                        role: Role::Pawn,
                    },
                ),
                (Rank::Eighth, black.0[index].of(Color::Black)),
            ] {
                board.set_piece_at(Square::from_coords(file, rank), piece);
            }
        }
        board
    }

    /// The start position as X-FEN (white to move, all castling rights,
    /// `KQkq`). See [`BackRank::to_xfen`].
    pub fn to_xfen(&self) -> String {
        let board = self.board();
        let setup = Setup {
            castling_rights: board.rooks(),
            board,
            ..Setup::empty()
        };
        Fen::try_from_setup(setup)
            .expect("two castling rooks per side always fit in a FEN")
            .to_string()
    }

    /// The start position as Shredder-FEN (castling rights by rook file,
    /// e.g. `HAha`). See [`BackRank::to_shredder_fen`].
    pub fn to_shredder_fen(&self) -> String {
        // shakmaty writes only X-FEN castling rights, so the castling field
        // is written here; the board part is shakmaty's.
        let [white_a, white_h] = self.white().rook_files();
        let [black_a, black_h] = self.black().rook_files();
        format!(
            "{} w {}{}{}{} - 0 1",
            self.board().board_fen(),
            white_h.upper_char(),
            white_a.upper_char(),
            black_h.char(),
            black_a.char(),
        )
    }
}

/// What a board is, as far as the start of a game goes.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum BoardStart {
    /// A Chess960 start array or a Double FRC pair.
    Start(StartArray),
    /// Pawn rows full, each back rank holding eight pieces (not pawns) of its
    /// own colour, nothing else on the board — but at least one back rank
    /// breaks a Chess960 rule (piece set, bishop colours, or king between the
    /// rooks). Black's back rank is read from the a-file.
    IllegalBackRank {
        /// White's back rank, or the rule it breaks.
        white: Result<BackRank, BackRankError>,
        /// Black's back rank, or the rule it breaks.
        black: Result<BackRank, BackRankError>,
    },
    /// Anything else: a piece off its home ranks, a missing or extra piece,
    /// a pawn out of place, a piece of the wrong colour.
    NotAStart,
}

/// Tells whether `board` is a start array.
///
/// A Chess960 start: rank 1 a legal arrangement of white pieces, rank 2 full
/// of white pawns, rank 7 full of black pawns, rank 8 the same arrangement in
/// black, nothing else. Double FRC: the same but with two different legal
/// arrangements. See [`BoardStart`] for the rest.
///
/// Does not allocate: three bitboard comparisons reject most boards, and
/// only boards of the right shape have their back ranks read.
///
/// # Examples
///
/// ```
/// use pgn960::position::{classify_board, BoardStart};
/// use pgn960::{BackRank, StartArray};
/// use shakmaty::Board;
///
/// assert_eq!(
///     classify_board(&Board::chess960(518)),
///     BoardStart::Start(StartArray::Chess960(BackRank::STANDARD))
/// );
/// assert_eq!(classify_board(&Board::empty()), BoardStart::NotAStart);
/// ```
pub fn classify_board(board: &Board) -> BoardStart {
    if board.white() != WHITE_HOME || board.black() != BLACK_HOME || board.pawns() != PAWN_HOME {
        return BoardStart::NotAStart;
    }
    // Now ranks 1 and 8 are full of their own side's non-pawn pieces.
    let white = BackRank::from_roles(back_rank_roles(board, RANK_1));
    let black = BackRank::from_roles(back_rank_roles(board, RANK_8));
    match (white, black) {
        (Ok(white), Ok(black)) => BoardStart::Start(StartArray::from_back_ranks(white, black)),
        (white, black) => BoardStart::IllegalBackRank { white, black },
    }
}

/// The roles on one fully occupied, pawn-free back rank.
fn back_rank_roles(board: &Board, rank: Bitboard) -> [Role; 8] {
    let mut roles = [Role::Pawn; 8];
    for role in PIECE_ROLES {
        for square in board.by_role(role) & rank {
            roles[square.file().to_usize()] = role;
        }
    }
    roles
}

/// The first square (a1, b1, …, h8) that keeps `board` from having the
/// shape of a start array, with what stands there.
fn first_misplaced(board: &Board) -> Option<(Square, Option<Piece>)> {
    let white_pieces = board.white() & !board.pawns();
    let black_pieces = board.black() & !board.pawns();
    let white_pawns = board.white() & board.pawns();
    let black_pawns = board.black() & board.pawns();
    let middle = !(WHITE_HOME | BLACK_HOME);
    let wrong = (RANK_1 & !white_pieces)
        | (RANK_2 & !white_pawns)
        | (RANK_7 & !black_pawns)
        | (RANK_8 & !black_pieces)
        | (middle & board.occupied());
    wrong.first().map(|square| (square, board.piece_at(square)))
}

/// Tells whether a FEN's board is a start array.
///
/// Accepts X-FEN and Shredder-FEN castling rights, and a lone board part
/// with the other fields left out. Side to move, castling rights, en
/// passant square and clocks must be well-formed but do not change the
/// answer.
///
/// # Errors
///
/// [`FenError`] if the FEN does not parse.
///
/// # Examples
///
/// ```
/// use pgn960::position::{classify_fen, BoardStart, FenError};
/// use pgn960::{BackRank, StartArray};
///
/// let standard = BoardStart::Start(StartArray::Chess960(BackRank::STANDARD));
/// assert_eq!(classify_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")?, standard);
/// assert_eq!(classify_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")?, standard);
/// assert_eq!(
///     classify_fen("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
///     Err(FenError::RankCount(7))
/// );
/// # Ok::<_, FenError>(())
/// ```
pub fn classify_fen(fen: &str) -> Result<BoardStart, FenError> {
    parse_fen_board(fen).map(|board| classify_board(&board))
}

/// Parses a FEN and returns its board: the parsing half of
/// [`classify_fen`], for callers that also need the board itself (to compare
/// two FENs' placements, say).
///
/// Accepts what [`classify_fen`] accepts. Problems with the board part are
/// diagnosed here (shakmaty only says that it is broken); the other fields
/// are checked by shakmaty and then ignored.
///
/// # Errors
///
/// [`FenError`] if the FEN does not parse.
///
/// # Examples
///
/// ```
/// use pgn960::position::{parse_fen_board, FenError};
/// use shakmaty::Board;
///
/// assert_eq!(parse_fen_board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 3 9")?, Board::new());
/// assert_eq!(parse_fen_board("8/8/8/9/8/8/8/8"), Err(FenError::BoardChar('9')));
/// # Ok::<_, FenError>(())
/// ```
pub fn parse_fen_board(fen: &str) -> Result<Board, FenError> {
    let fen = fen.trim_ascii();
    // shakmaty separates fields by spaces or underscores.
    let board_part = fen
        .split([' ', '_'])
        .find(|part| !part.is_empty())
        .ok_or(FenError::Empty)?;
    check_board_part(board_part)?;
    let setup = Fen::from_ascii(fen.as_bytes())
        .map_err(FenError::Other)?
        .into_setup();
    Ok(setup.board)
}

/// Parses only a FEN's placement (its first field); the other fields may
/// be anything. This is how archives are classified: side to move,
/// castling rights and clocks never change a game's start array, so a
/// broken castling field must not cost a game its number (`validate`
/// reports it instead).
///
/// # Errors
///
/// [`FenError`] if the placement does not parse.
///
/// # Examples
///
/// ```
/// use pgn960::position::parse_placement;
/// use shakmaty::Board;
///
/// let board = parse_placement("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w XYZ - 0 1")?;
/// assert_eq!(board, Board::new());
/// # Ok::<_, pgn960::position::FenError>(())
/// ```
pub fn parse_placement(fen: &str) -> Result<Board, FenError> {
    let board_part = fen
        .split([' ', '_'])
        .find(|part| !part.is_empty())
        .ok_or(FenError::Empty)?;
    check_board_part(board_part)?;
    Board::from_ascii_board_fen(board_part.as_bytes()).map_err(FenError::Other)
}

/// Checks the shape of a FEN's board part: 8 ranks of 8 squares, piece
/// letters and digits 1 to 8 only, no Crazyhouse pockets or markers.
pub(crate) fn check_board_part(board_part: &str) -> Result<(), FenError> {
    if board_part.contains(['[', ']', '~']) {
        return Err(FenError::Crazyhouse);
    }
    let ranks = board_part.split('/').count();
    if ranks != 8 {
        return Err(FenError::RankCount(ranks));
    }
    for (index, rank) in board_part.split('/').enumerate() {
        let mut squares = 0;
        for ch in rank.chars() {
            squares += match ch {
                '1'..='8' => ch as usize - '0' as usize,
                'p' | 'n' | 'b' | 'r' | 'q' | 'k' | 'P' | 'N' | 'B' | 'R' | 'Q' | 'K' => 1,
                _ => return Err(FenError::BoardChar(ch)),
            };
        }
        if squares != 8 {
            return Err(FenError::RankWidth {
                rank: Rank::new(7 - index as u32),
                squares,
            });
        }
    }
    Ok(())
}

/// A FEN that does not parse.
///
/// Problems with the board part are diagnosed here; problems with the other
/// fields are shakmaty's [`ParseFenError`].
#[derive(Clone, Eq, PartialEq, Debug)]
pub enum FenError {
    /// Nothing but white space.
    Empty,
    /// The board part does not have 8 ranks; carries how many it has.
    RankCount(usize),
    /// A rank of the board part does not describe 8 squares.
    RankWidth {
        /// The rank (the board part starts with rank 8).
        rank: Rank,
        /// How many squares it describes.
        squares: usize,
    },
    /// A character in the board part that is neither a piece letter, a digit
    /// 1 to 8 nor `/`.
    BoardChar(char),
    /// Crazyhouse pockets or promotion markers (`[`, `]`, `~`).
    Crazyhouse,
    /// A problem shakmaty found in the other fields (side to move, castling,
    /// en passant, clocks).
    Other(ParseFenError),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => f.write_str("empty FEN"),
            FenError::RankCount(1) => f.write_str("board part has 1 rank, not 8"),
            FenError::RankCount(ranks) => write!(f, "board part has {ranks} ranks, not 8"),
            FenError::RankWidth { rank, squares } => {
                write!(
                    f,
                    "rank {rank} of the board part has {squares} squares, not 8"
                )
            }
            FenError::BoardChar(ch) => {
                write!(f, "board part has {ch:?}, not a piece letter or digit 1-8")
            }
            FenError::Crazyhouse => {
                f.write_str("board part has Crazyhouse pockets or promotion markers")
            }
            FenError::Other(err) => err.fmt(f),
        }
    }
}

// No `source()` for `Other`: the message already is shakmaty's, and a
// cause chain would print it twice.
impl Error for FenError {}

/// Why a FEN is not a start array; see [`StartArray::from_fen`].
#[derive(Clone, Eq, PartialEq, Debug)]
pub enum StartFenError {
    /// The FEN does not parse.
    Fen(FenError),
    /// The board is not a start array of any kind.
    NotAStart {
        /// The first wrong square, from a1 to h8.
        square: Square,
        /// What stands there.
        found: Option<Piece>,
    },
    /// The board has the shape of a start array, but a back rank breaks a
    /// Chess960 rule (at least one side is an `Err`).
    IllegalBackRank {
        /// White's back rank, or the rule it breaks.
        white: Result<BackRank, BackRankError>,
        /// Black's back rank, or the rule it breaks.
        black: Result<BackRank, BackRankError>,
    },
}

impl fmt::Display for StartFenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartFenError::Fen(err) => err.fmt(f),
            StartFenError::NotAStart { square, found } => {
                write!(f, "not a start position: {square} ")?;
                match found {
                    None => f.write_str("is empty")?,
                    Some(piece) => write!(
                        f,
                        "holds a {} {}",
                        piece.color.fold_wb("white", "black"),
                        role_name(piece.role)
                    )?,
                }
                f.write_str(match square.rank() {
                    Rank::First => " (rank 1 must hold white pieces, no pawns)",
                    Rank::Second => " (rank 2 must be full of white pawns)",
                    Rank::Seventh => " (rank 7 must be full of black pawns)",
                    Rank::Eighth => " (rank 8 must hold black pieces, no pawns)",
                    _ => " (ranks 3 to 6 must be empty)",
                })
            }
            StartFenError::IllegalBackRank { white, black } => {
                let mut separator = "illegal back rank: ";
                for (side, rank) in [("white", white), ("black", black)] {
                    if let Err(err) = rank {
                        write!(f, "{separator}{side}: {err}")?;
                        separator = "; ";
                    }
                }
                Ok(())
            }
        }
    }
}

impl Error for StartFenError {}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn scharnagl_is_a_bijection() {
        let all: Vec<BackRank> = BackRank::all().collect();
        assert_eq!(all.iter().collect::<HashSet<_>>().len(), 960);
        for (id, rank) in all.iter().enumerate() {
            assert_eq!(usize::from(rank.scharnagl()), id, "{rank}");
        }
    }

    #[test]
    fn fritz9_is_a_bijection() {
        let mut seen = HashSet::new();
        for id in 1..=960 {
            let rank = BackRank::from_fritz9(id).unwrap();
            assert_eq!(u32::from(rank.fritz9()), id, "{rank}");
            assert!(seen.insert(rank), "Fritz9 {id} repeats {rank}");
        }
        for rank in BackRank::all() {
            assert_eq!(BackRank::from_fritz9(u32::from(rank.fritz9())), Ok(rank));
        }
    }

    #[test]
    fn matches_shakmaty_chess960() {
        for id in 0..960 {
            let rank = BackRank::from_scharnagl(id).unwrap();
            assert_eq!(rank.board(), Board::chess960(id), "Scharnagl {id}");
        }
    }

    #[test]
    fn seed_examples() {
        assert_eq!(BackRank::STANDARD.scharnagl(), 518);
        assert_eq!(BackRank::STANDARD.fritz9(), 359);
        let zero = BackRank::from_scharnagl(0).unwrap();
        assert_eq!(zero.to_string(), "BBQNNRKR");
        assert_eq!(zero.fritz9(), 81);
        assert_eq!(BackRank::from_fritz9(1).unwrap().to_string(), "BBNNQRKR");
    }

    #[test]
    fn out_of_range_ids() {
        assert_eq!(BackRank::from_scharnagl(960), Err(IdError::Scharnagl(960)));
        assert_eq!(
            BackRank::from_scharnagl(u32::MAX),
            Err(IdError::Scharnagl(u32::MAX))
        );
        assert_eq!(BackRank::from_fritz9(0), Err(IdError::Fritz9(0)));
        assert_eq!(BackRank::from_fritz9(961), Err(IdError::Fritz9(961)));
    }

    #[test]
    fn text_round_trip() {
        for rank in BackRank::all() {
            let text = rank.to_string();
            assert_eq!(text.parse(), Ok(rank));
            assert_eq!(text.to_ascii_lowercase().parse(), Ok(rank));
        }
    }

    #[test]
    fn fen_round_trip() {
        for rank in BackRank::all() {
            let start = StartArray::Chess960(rank);
            for fen in [rank.to_xfen(), rank.to_shredder_fen()] {
                assert_eq!(StartArray::from_fen(&fen), Ok(start), "{fen}");
                assert_eq!(classify_fen(&fen), Ok(BoardStart::Start(start)), "{fen}");
            }
            let xfen = rank.to_xfen();
            assert!(xfen.ends_with(" w KQkq - 0 1"), "{xfen}");
            // The board part alone, and with odd fields, gives the same answer.
            let board_part = xfen.split(' ').next().unwrap();
            assert_eq!(StartArray::from_fen(board_part), Ok(start));
            assert_eq!(
                StartArray::from_fen(&format!("{board_part} b - - 12 40")),
                Ok(start)
            );
        }
    }

    #[test]
    fn shredder_castling_letters() {
        assert!(
            BackRank::STANDARD
                .to_shredder_fen()
                .ends_with(" w HAha - 0 1")
        );
        let zero = BackRank::from_scharnagl(0).unwrap(); // BBQNNRKR
        assert_eq!(
            zero.to_shredder_fen(),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"
        );
    }

    #[test]
    fn double_frc_both_ways() {
        let white = BackRank::STANDARD;
        let black = BackRank::from_scharnagl(0).unwrap();
        let start = StartArray::from_back_ranks(white, black);
        assert_eq!(start, StartArray::DoubleFrc { white, black });
        assert_eq!(start.scharnagl(), None);
        assert_eq!(start.fritz9(), None);
        assert_eq!(StartArray::from_fen(&start.to_xfen()), Ok(start));
        assert_eq!(StartArray::from_fen(&start.to_shredder_fen()), Ok(start));
        assert_eq!(
            start.to_shredder_fen(),
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAhf - 0 1"
        );
    }

    #[test]
    fn parse_errors_in_rule_order() {
        use BackRankError::*;
        let cases: &[(&str, BackRankError)] = &[
            ("RNBQKBN", Length(7)),
            ("", Length(0)),
            ("RNBQKBNRR", Length(9)),
            ("RNBQKBNX", Letter('X')),
            ("RNBQKBNé", Letter('é')),
            ("pNBQKBNR", Letter('p')),
            // Length before letters.
            ("XX", Length(2)),
            // Letters before the piece set.
            ("RRRRRRRX", Letter('X')),
            // Piece set before bishops and king.
            (
                "RNBQKBNN",
                PieceSet(ByRole {
                    pawn: 0,
                    knight: 3,
                    bishop: 2,
                    rook: 1,
                    queen: 1,
                    king: 1,
                }),
            ),
            (
                "RNBBKBNR",
                PieceSet(ByRole {
                    pawn: 0,
                    knight: 2,
                    bishop: 3,
                    rook: 2,
                    queen: 0,
                    king: 1,
                }),
            ),
            ("RNBQKNBR", SameColourBishops([File::C, File::G])),
            // Bishops before king.
            (
                "BBNNQRRK",
                KingNotBetweenRooks {
                    king: File::H,
                    rooks: [File::F, File::G],
                },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(text.parse::<BackRank>(), Err(*expected), "{text}");
        }
    }

    #[test]
    fn error_messages() {
        let message = |text: &str| text.parse::<BackRank>().unwrap_err().to_string();
        assert_eq!(message("RNBQKBN"), "7 letters, not 8");
        assert_eq!(
            message("RNBQKBNX"),
            "'X' is not a piece letter (K, Q, R, B, N)"
        );
        assert_eq!(
            message("RNBQKBNN"),
            "wrong pieces (found K, Q, R, 2 B, 3 N; need K, Q, 2 R, 2 B, 2 N)"
        );
        assert_eq!(
            message("RNBQKNBR"),
            "bishops on squares of the same colour (files c and g)"
        );
        assert_eq!(
            message("BBNNQRRK"),
            "king not between the rooks (king on file h, rooks on files f and g)"
        );
    }

    #[test]
    fn from_roles_rejects_pawns() {
        let mut roles = BackRank::STANDARD.roles();
        roles[3] = Role::Pawn;
        assert!(
            matches!(BackRank::from_roles(roles), Err(BackRankError::PieceSet(counts)) if counts.pawn == 1)
        );
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            #[test]
            fn parsing_text_never_panics(text in "\\PC{0,12}") {
                let _ = text.parse::<BackRank>();
                let _ = BackRank::from_ascii(text.as_bytes());
            }

            #[test]
            fn eight_piece_letters_parse_or_break_a_rule(text in "[KQRBNkqrbn]{8}") {
                match text.parse::<BackRank>() {
                    Ok(rank) => prop_assert_eq!(rank.to_string(), text.to_ascii_uppercase()),
                    Err(err) => prop_assert!(matches!(
                        err,
                        BackRankError::PieceSet(_)
                            | BackRankError::SameColourBishops(_)
                            | BackRankError::KingNotBetweenRooks { .. }
                    ), "{text}: {err}"),
                }
            }

            #[test]
            fn fen_reading_never_panics(fen in "[pnbrqkPNBRQK0-9/ wb_KQkqA-Ha-h~\\[\\]-]{0,90}") {
                let _ = classify_fen(&fen);
                let _ = StartArray::from_fen(&fen);
            }

            #[test]
            fn one_changed_character_never_panics(
                id in 0u32..960,
                position in 0usize..60,
                replacement in "[pnbrqkPNBRQK0-9/ x~]",
            ) {
                let mut fen = BackRank::from_scharnagl(id).unwrap().to_shredder_fen();
                let position = position % fen.len();
                fen.replace_range(position..=position, &replacement);
                if let Ok(start) = StartArray::from_fen(&fen) {
                    // Whatever still reads as a start must write back to
                    // the same start.
                    prop_assert_eq!(StartArray::from_fen(&start.to_xfen()), Ok(start));
                }
            }
        }
    }

    #[test]
    fn classify_shapes() {
        let fen = |fen: &str| classify_fen(fen).unwrap();
        assert_eq!(fen("8/8/8/8/8/8/8/8"), BoardStart::NotAStart);
        // A move played.
        assert_eq!(
            fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"),
            BoardStart::NotAStart
        );
        // Colours swapped on the back ranks.
        assert_eq!(
            fen("RNBQKBNR/pppppppp/8/8/8/8/PPPPPPPP/rnbqkbnr"),
            BoardStart::NotAStart
        );
        // A pawn on the back rank.
        assert_eq!(
            fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP"),
            BoardStart::NotAStart
        );
        // An illegal arrangement on one side only.
        assert_eq!(
            fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKNBR"),
            BoardStart::IllegalBackRank {
                white: Err(BackRankError::SameColourBishops([File::C, File::G])),
                black: Ok(BackRank::STANDARD),
            }
        );
        // Both sides breaking rules, differently.
        assert!(matches!(
            fen("rnbqkbnq/pppppppp/8/8/8/8/PPPPPPPP/BBNNQRRK"),
            BoardStart::IllegalBackRank {
                white: Err(BackRankError::KingNotBetweenRooks { .. }),
                black: Err(BackRankError::PieceSet(_))
            }
        ));
    }

    #[test]
    fn fen_errors() {
        let error = |fen: &str| classify_fen(fen).unwrap_err().to_string();
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            "board part has 7 ranks, not 8"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            "board part has 9 ranks, not 8"
        );
        assert_eq!(
            error("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            "rank 7 of the board part has 7 squares, not 8"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX"),
            "board part has 'X', not a piece letter or digit 1-8"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"),
            "invalid turn part in fen"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqz - 0 1"),
            "invalid castling part in fen"
        );
        assert_eq!(error("   "), "empty FEN");
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"),
            "board part has Crazyhouse pockets or promotion markers"
        );
    }

    #[test]
    fn start_fen_error_messages() {
        let error = |fen: &str| StartArray::from_fen(fen).unwrap_err().to_string();
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKNBR w KQkq - 0 1"),
            "illegal back rank: white: bishops on squares of the same colour (files c and g)"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP"),
            "not a start position: h1 holds a white pawn (rank 1 must hold white pieces, no pawns)"
        );
        assert_eq!(
            error("rnbqkbnr/pppppppp/8/8/3N4/8/PPPPPPPP/RNBQKBNR"),
            "not a start position: d4 holds a white knight (ranks 3 to 6 must be empty)"
        );
    }
}
