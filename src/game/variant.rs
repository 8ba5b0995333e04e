//! What a game's `Variant` tag names. Writers spell Chess960 a dozen ways
//! (`Chess960`, `chess 960`, `Fischerandom`, `FRC`, ...), and a Variant
//! that names another game (Antichess, Crazyhouse, ...) means the game is
//! not chess at all, whatever its FEN says.

/// The names of Chess960, compared after [`fold`]ing: any spelling that
/// folds to one of these names Chess960.
pub const CHESS960_NAMES: [&str; 6] = [
    "chess960",
    "fischerandom",
    "fischerrandom",
    "fischerrandomchess",
    "frc",
    "960",
];

/// The spellings of Chess960 that common readers accept (python-chess's
/// five, compared ignoring case): others get a `variant_spelling` note.
pub const COMMON_SPELLINGS: [&str; 5] = [
    "Chess960",
    "Chess 960",
    "Fischerandom",
    "Fischerrandom",
    "Fischer Random",
];

/// The names of standard chess, after [`fold`]ing.
pub const STANDARD_NAMES: [&str; 5] = ["standard", "chess", "normal", "regular", "classical"];

/// What a `Variant` tag says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// No `Variant` tag, or an empty one.
    Absent,
    /// A name of Chess960; `common` when most PGN readers accept this
    /// spelling ([`COMMON_SPELLINGS`]).
    Chess960 {
        /// Whether the spelling is one that common readers accept.
        common: bool,
    },
    /// Standard chess (`Standard`, `Chess`, `Normal`, `Regular`, `Classical`).
    Standard,
    /// `From Position`: lichess's name for a game from a set-up position,
    /// chess by the usual rules.
    FromPosition,
    /// Another game: Antichess, Atomic, Crazyhouse, Three-check, King of
    /// the Hill, Horde, Racing Kings, Seirawan, ... (any other value).
    Other,
}

impl Variant {
    /// Reads a `Variant` tag's value (escapes removed).
    ///
    /// ```
    /// use pgn960::game::Variant;
    ///
    /// assert_eq!(Variant::from_value(b"Chess960"), Variant::Chess960 { common: true });
    /// assert_eq!(Variant::from_value(b"Fischer Random"), Variant::Chess960 { common: true });
    /// assert_eq!(Variant::from_value(b"FRC"), Variant::Chess960 { common: false });
    /// assert_eq!(Variant::from_value(b"standard"), Variant::Standard);
    /// assert_eq!(Variant::from_value(b"From Position"), Variant::FromPosition);
    /// assert_eq!(Variant::from_value(b"Antichess"), Variant::Other);
    /// ```
    pub fn from_value(value: &[u8]) -> Variant {
        if value == b"Chess960" {
            // The usual spelling, by far: spare the folding.
            return Variant::Chess960 { common: true };
        }
        let folded = fold(value);
        if CHESS960_NAMES.iter().any(|name| name.as_bytes() == folded) {
            let trimmed = value.trim_ascii();
            let common = COMMON_SPELLINGS
                .iter()
                .any(|spelling| spelling.as_bytes().eq_ignore_ascii_case(trimmed));
            Variant::Chess960 { common }
        } else if folded.is_empty() {
            Variant::Absent
        } else if STANDARD_NAMES.iter().any(|name| name.as_bytes() == folded) {
            Variant::Standard
        } else if folded == b"fromposition" {
            Variant::FromPosition
        } else {
            Variant::Other
        }
    }

    /// Whether the tag names Chess960, in any spelling.
    pub fn is_chess960(self) -> bool {
        matches!(self, Variant::Chess960 { .. })
    }
}

/// A value as it is compared: lower case, without spaces, tabs, hyphens
/// and underscores.
pub fn fold(value: &[u8]) -> Vec<u8> {
    value
        .iter()
        .filter(|b| !matches!(b, b' ' | b'-' | b'_' | b'\t'))
        .map(u8::to_ascii_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_in_the_wild() {
        let chess960 = [
            "Chess960",
            "chess 960",
            "CHESS-960",
            "Fischerandom",
            "fischerrandom",
            "Fischer Random",
            "Fischer Random Chess",
            "FRC",
            "960",
            "9 6 0",
            " Chess960 ",
        ];
        for spelling in chess960 {
            assert!(
                Variant::from_value(spelling.as_bytes()).is_chess960(),
                "{spelling}"
            );
        }
        let common: Vec<bool> = chess960
            .iter()
            .map(|s| Variant::from_value(s.as_bytes()) == Variant::Chess960 { common: true })
            .collect();
        assert_eq!(
            common,
            [
                true, true, false, true, true, true, false, false, false, false, true
            ]
        );
        for other in [
            "Antichess",
            "Seirawan",
            "Crazyhouse",
            "three-check",
            "King of the Hill",
        ] {
            assert_eq!(
                Variant::from_value(other.as_bytes()),
                Variant::Other,
                "{other}"
            );
        }
        assert_eq!(Variant::from_value(b"  "), Variant::Absent);
        assert_eq!(Variant::from_value(b"Normal"), Variant::Standard);
        assert_eq!(Variant::from_value(b"from position"), Variant::FromPosition);
    }
}
