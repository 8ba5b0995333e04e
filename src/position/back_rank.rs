//! The 960 back ranks and their two numberings, Scharnagl's (0–959) and
//! Fritz9's (1–960), with one error per broken rule when text is not a
//! legal arrangement.

use std::{error::Error, fmt, str::FromStr};

use shakmaty::{Board, ByRole, File, Role};

use super::StartArray;

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
        // Counted off bit sets of files, with no branch on the roles: the
        // games of an archive come in random arrays, whose branches no
        // processor predicts.
        let others = !self.files_of(Role::Bishop) & 0xff;
        let queen = self.files_of(Role::Queen);
        let free = others & !queen;
        let [first, second] = self.slots_of_pair(Role::Knight, free);
        let n5n = N5N_OFFSET[usize::from(first)] + u16::from(second - first - 1);
        self.bishop_code() + 16 * slots_before(others, queen) + 96 * n5n
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
        let others = !self.files_of(Role::Bishop) & 0xff;
        let [first, second] = self.slots_of_pair(Role::Knight, others);
        let knight_code = FRITZ9_OFFSET[usize::from(first)] + u16::from(second - first - 1);
        let free = others & !self.files_of(Role::Knight);
        1 + self.bishop_code()
            + 16 * knight_code
            + 240 * slots_before(free, self.files_of(Role::Queen))
    }

    /// The files where `role` stands, as a set of bits (bit 0 the a-file).
    fn files_of(&self, role: Role) -> u32 {
        files_of(&self.0, role)
    }

    /// The slots among the squares of `free` (a set of files) of the two
    /// pieces of `role`, the first's the smaller.
    fn slots_of_pair(&self, role: Role, free: u32) -> [u8; 2] {
        let files = self.files_of(role);
        let first = files & files.wrapping_neg();
        [first, files & !first].map(|file| slots_before(free, file) as u8)
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
        // Files b, d, f, h (odd index) are light on rank 1; a bishop's
        // index among its four files is its file halved.
        let bishops = self.files_of(Role::Bishop);
        let index = |files: u32| (files.trailing_zeros() / 2) as u16;
        index(bishops & 0xaa) + 4 * index(bishops & 0x55)
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
        // The rules off bit sets of files, with no branch on the roles; a
        // rule broken is then told the slow way, which names it.
        let [knights, bishops, rooks, queen, king] = [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ]
        .map(|role| files_of(&roles, role));
        let pairs = [knights, bishops, rooks].map(u32::count_ones) == [2, 2, 2];
        let ones = [queen, king].map(u32::count_ones) == [1, 1];
        // One bishop on a dark square (even file), one on a light one.
        let colours = (bishops & 0x55).count_ones() == 1;
        // The king after the first rook's file and before the second's.
        let between = rooks.trailing_zeros() < king.trailing_zeros()
            && king.trailing_zeros() < 31 - rooks.leading_zeros();
        if pairs && ones && colours && between {
            return Ok(BackRank(roles));
        }
        let slowly = BackRank::from_roles_slowly(roles);
        // The quick checks refuse only what breaks a rule.
        debug_assert!(slowly.is_err(), "{roles:?} is legal");
        slowly
    }

    /// [`BackRank::from_roles`] a rule at a time, naming the first broken.
    fn from_roles_slowly(roles: [Role; 8]) -> Result<BackRank, BackRankError> {
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
        // Letters read off a table: a match on each, in random order,
        // mispredicts.
        let letters = bytes.map(|byte| ROLE_OF_LETTER[usize::from(byte)]);
        if letters.iter().all(Option::is_some) {
            return BackRank::from_roles(letters.map(|role| role.expect("checked")));
        }
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
    pub(crate) fn rook_files(&self) -> [File; 2] {
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
        // A blank or a digit is no letter: it is named before the length
        // is counted (`"RNBQKBNR "` has a blank, not 9 letters).
        if let Some(ch) = arrangement.chars().find(|ch| !ch.is_alphabetic()) {
            return Err(BackRankError::Letter(ch));
        }
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

/// The files of `roles` where `role` stands, as a set of bits (bit 0 the
/// a-file).
fn files_of(roles: &[Role; 8], role: Role) -> u32 {
    roles
        .iter()
        .enumerate()
        .fold(0, |files, (file, r)| files | u32::from(*r == role) << file)
}

/// The piece of an arrangement's letter, either case (`None` for every
/// byte but `KQRBNkqrbn`).
const ROLE_OF_LETTER: [Option<Role>; 256] = {
    let mut table = [None; 256];
    let letters = [
        (b'K', Role::King),
        (b'Q', Role::Queen),
        (b'R', Role::Rook),
        (b'B', Role::Bishop),
        (b'N', Role::Knight),
    ];
    let mut i = 0;
    while i < letters.len() {
        let (letter, role) = letters[i];
        table[letter as usize] = Some(role);
        table[letter.to_ascii_lowercase() as usize] = Some(role);
        i += 1;
    }
    table
};

/// How many of the squares of `set` (a set of files) lie before the one
/// file of `file`.
fn slots_before(set: u32, file: u32) -> u16 {
    (set & file.wrapping_sub(1)).count_ones() as u16
}

/// Where the pairs whose first knight is on slot `i` begin in [`N5N`]:
/// the table lists pairs in order, the first slot then the second.
const N5N_OFFSET: [u16; 4] = pair_offsets(&N5N);

/// The same for [`FRITZ9_KNIGHTS`].
const FRITZ9_OFFSET: [u16; 5] = pair_offsets(&FRITZ9_KNIGHTS);

/// The index in `table` of the first pair whose first slot is each of
/// `0..N`; that the tables list their pairs in this order is tested.
const fn pair_offsets<const N: usize>(table: &[(u8, u8)]) -> [u16; N] {
    let mut offsets = [0; N];
    let mut i = table.len();
    while i > 0 {
        i -= 1;
        offsets[table[i].0 as usize] = i as u16;
    }
    offsets
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
    /// A letter that is not `K`, `Q`, `R`, `B` or `N` in either case, or a
    /// character that is no letter at all (reported before the length).
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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// The rules read off bit sets accept exactly what the rule-at-a-time
    /// reading accepts, over every arrangement of eight pieces of the six
    /// kinds, and one letter table reads what the match reads.
    #[test]
    fn the_quick_reading_of_roles_is_the_slow_one() {
        let kinds = [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ];
        let mut legal = 0;
        for n in 0..6u32.pow(8) {
            let roles: [Role; 8] =
                std::array::from_fn(|i| kinds[(n / 6u32.pow(i as u32) % 6) as usize]);
            let quick = BackRank::from_roles(roles);
            assert_eq!(quick, BackRank::from_roles_slowly(roles), "{roles:?}");
            legal += usize::from(quick.is_ok());
        }
        assert_eq!(legal, 960);
        for byte in 0..=255u8 {
            let expected = match byte.to_ascii_uppercase() {
                b'K' => Some(Role::King),
                b'Q' => Some(Role::Queen),
                b'R' => Some(Role::Rook),
                b'B' => Some(Role::Bishop),
                b'N' => Some(Role::Knight),
                _ => None,
            };
            assert_eq!(ROLE_OF_LETTER[usize::from(byte)], expected, "{byte}");
        }
    }

    /// The numberings find a knight pair's index from where the pairs of
    /// its first slot begin: so each table must list its pairs in order,
    /// every pair of distinct slots once.
    #[test]
    fn knight_tables_list_their_pairs_in_order() {
        fn check<const N: usize>(table: &[(u8, u8)], offsets: [u16; N], squares: u8) {
            let all: Vec<(u8, u8)> = (0..squares)
                .flat_map(|a| (a + 1..squares).map(move |b| (a, b)))
                .collect();
            assert_eq!(table, all.as_slice());
            for (i, &(a, b)) in table.iter().enumerate() {
                assert_eq!(offsets[usize::from(a)] + u16::from(b - a - 1), i as u16);
            }
        }
        check(&N5N, N5N_OFFSET, 5);
        check(&FRITZ9_KNIGHTS, FRITZ9_OFFSET, 6);
    }

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
            // A character that is no letter at all before the length.
            ("RNBQKBNR ", Letter(' ')),
            (" RNBQKBNR", Letter(' ')),
            ("RNBQ1", Letter('1')),
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
        // From bytes, a byte that is not ASCII is no letter to show.
        assert_eq!(BackRank::from_ascii(b"RNBQKBNX"), Err(Letter('X')));
        assert_eq!(
            BackRank::from_ascii(b"RNBQKBN\xe9"),
            Err(Letter(char::REPLACEMENT_CHARACTER))
        );
    }

    #[test]
    fn error_messages() {
        assert_eq!(
            BackRank::from_scharnagl(960).unwrap_err().to_string(),
            "Scharnagl id 960 is not in 0..=959"
        );
        assert_eq!(
            BackRank::from_fritz9(0).unwrap_err().to_string(),
            "Fritz9 id 0 is not in 1..=960"
        );
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
        }
    }
}
