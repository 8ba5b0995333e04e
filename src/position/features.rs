//! The shape of a start array, for questions such as "do bishops in the
//! corners favour White?" or "does the king's file matter?": the file of
//! each piece, and the array's mirror image. `table` and the position
//! rows of `stats` carry them as columns ([`FEATURE_COLUMNS`]).

use shakmaty::{File, Role};

use super::BackRank;

/// The names of the feature columns, in the order of [`Features::cells`].
pub const FEATURE_COLUMNS: [&str; 9] = [
    "king_file",
    "queen_file",
    "knight_file_1",
    "knight_file_2",
    "queenside_rook_file",
    "kingside_rook_file",
    "light_bishop_file",
    "dark_bishop_file",
    "mirror_scharnagl",
];

/// Where each piece of a start array stands, and its mirror image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// The king's file.
    pub king: File,
    /// The queen's file.
    pub queen: File,
    /// The knights' files, the one nearer the a-file first.
    pub knights: [File; 2],
    /// The rooks' files: the queen-side rook (between the a-file and the
    /// king) first, then the king-side one.
    pub rooks: [File; 2],
    /// The file of White's light-squared bishop: b, d, f or h (a1 is
    /// dark). Black's bishop on that file stands on a dark square.
    pub light_bishop: File,
    /// The file of White's dark-squared bishop: a, c, e or g.
    pub dark_bishop: File,
    /// The arrangement reversed, a-file to h-file ([`BackRank::mirror`]).
    pub mirror: BackRank,
}

impl BackRank {
    /// The arrangement reversed, the a-file's piece on the h-file and so
    /// on: a start array too (the king stays between the rooks, and the
    /// bishops swap colours).
    ///
    /// ```
    /// use pgn960::BackRank;
    ///
    /// let rank: BackRank = "BBQNNRKR".parse()?;
    /// assert_eq!(rank.mirror().to_string(), "RKRNNQBB");
    /// assert_eq!(BackRank::STANDARD.mirror().to_string(), "RNBKQBNR");
    /// # Ok::<_, pgn960::position::BackRankError>(())
    /// ```
    pub fn mirror(&self) -> BackRank {
        let mut roles = self.roles();
        roles.reverse();
        BackRank::from_roles(roles).expect("a start array reversed is one")
    }

    /// The array's [`Features`].
    ///
    /// ```
    /// use pgn960::BackRank;
    /// use shakmaty::File;
    ///
    /// let features = BackRank::STANDARD.features();
    /// assert_eq!(features.king, File::E);
    /// assert_eq!(features.light_bishop, File::F);
    /// assert_eq!(features.mirror.scharnagl(), 534);
    /// ```
    pub fn features(&self) -> Features {
        let mut king = File::A;
        let mut queen = File::A;
        let (mut knights, mut rooks, mut bishops) = (Vec::new(), Vec::new(), Vec::new());
        for file in File::ALL {
            match self.role_at(file) {
                Role::King => king = file,
                Role::Queen => queen = file,
                Role::Knight => knights.push(file),
                Role::Rook => rooks.push(file),
                Role::Bishop => bishops.push(file),
                Role::Pawn => unreachable!("a back rank holds no pawn"),
            }
        }
        // On rank 1, the a-file's square is dark: an odd file is light.
        let light = |file: &File| u32::from(*file) % 2 == 1;
        let light_bishop = *bishops.iter().find(|f| light(f)).expect("one light");
        let dark_bishop = *bishops.iter().find(|f| !light(f)).expect("one dark");
        Features {
            king,
            queen,
            knights: [knights[0], knights[1]],
            rooks: [rooks[0], rooks[1]],
            light_bishop,
            dark_bishop,
            mirror: self.mirror(),
        }
    }
}

impl Features {
    /// The files as letters (`a` to `h`) and the mirror's Scharnagl
    /// number, in the order of [`FEATURE_COLUMNS`].
    pub fn cells(&self) -> [FeatureCell; 9] {
        let file = FeatureCell::File;
        [
            file(self.king),
            file(self.queen),
            file(self.knights[0]),
            file(self.knights[1]),
            file(self.rooks[0]),
            file(self.rooks[1]),
            file(self.light_bishop),
            file(self.dark_bishop),
            FeatureCell::Scharnagl(self.mirror.scharnagl()),
        ]
    }
}

/// One feature column's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureCell {
    /// A file, written as its letter.
    File(File),
    /// A Scharnagl number.
    Scharnagl(u16),
}

/// A file's letter, `a` to `h`.
pub fn file_letter(file: File) -> &'static str {
    ["a", "b", "c", "d", "e", "f", "g", "h"][usize::from(file)]
}

impl std::fmt::Display for FeatureCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FeatureCell::File(file) => f.write_str(file_letter(*file)),
            FeatureCell::Scharnagl(n) => write!(f, "{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirroring_twice_is_the_array_and_bishops_swap_colours() {
        for rank in BackRank::all() {
            let features = rank.features();
            assert_eq!(features.mirror.mirror(), rank);
            let mirrored = features.mirror.features();
            assert_eq!(
                u32::from(mirrored.light_bishop),
                7 - u32::from(features.dark_bishop)
            );
            assert!(features.rooks[0] < features.king && features.king < features.rooks[1]);
        }
    }
}
