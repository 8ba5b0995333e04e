//! The one vocabulary for what a game is, used by every command, summary
//! and column: `chess960`, `standard`, `dfrc`, `other`, `unreadable`.

use std::fmt;
use std::str::FromStr;

/// What a game is, as far as its start goes. Each game is exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A Chess960 game with one start array: its `Variant` names Chess960,
    /// or its array is one of the 959 other than the standard one.
    Chess960,
    /// Standard chess from the standard array (no `FEN` tag, or the FEN of
    /// the standard start), with no `Variant` naming Chess960.
    Standard,
    /// Double Fischer Random: both back ranks legal Chess960 arrangements,
    /// but different. No single number applies.
    Dfrc,
    /// A set-up position (a FEN that is no start array), or a `Variant`
    /// naming another game (Antichess, Crazyhouse, ...).
    Other,
    /// The start is not known: a `FEN` tag whose placement cannot be read,
    /// `FEN` tags that give different positions, a tag section too long to
    /// read whole, or no `FEN` tag where an id tag or a back rank in
    /// `Opening` records a start other than the standard array.
    Unreadable,
}

impl Kind {
    /// Every kind, in the order summaries list them.
    pub const ALL: [Kind; 5] = [
        Kind::Chess960,
        Kind::Standard,
        Kind::Dfrc,
        Kind::Other,
        Kind::Unreadable,
    ];

    /// The kind's name: `chess960`, `standard`, `dfrc`, `other`, `unreadable`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Chess960 => "chess960",
            Kind::Standard => "standard",
            Kind::Dfrc => "dfrc",
            Kind::Other => "other",
            Kind::Unreadable => "unreadable",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        write!(f, "{:?} is no kind ({})", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownKind {}

impl FromStr for Kind {
    type Err = UnknownKind;

    /// Reads a kind's name, ignoring case.
    fn from_str(text: &str) -> Result<Kind, UnknownKind> {
        Kind::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| UnknownKind(text.to_string()))
    }
}

/// Games counted by kind; counts add up across batches, files and runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindCounts([u64; 5]);

impl KindCounts {
    /// Counts one game.
    pub fn add(&mut self, kind: Kind) {
        self.0[kind.index()] += 1;
    }

    /// Adds other counts to these.
    pub fn merge(&mut self, other: &KindCounts) {
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            *mine += theirs;
        }
    }

    /// The games of one kind.
    pub fn get(&self, kind: Kind) -> u64 {
        self.0[kind.index()]
    }

    /// All games.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

impl fmt::Display for KindCounts {
    /// `6 chess960, 1 standard, 1 dfrc, 0 other, 0 unreadable`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            let separator = if i == 0 { "" } else { ", " };
            write!(f, "{separator}{} {kind}", self.get(kind))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_counts_add_up() {
        for kind in Kind::ALL {
            assert_eq!(kind.name().parse::<Kind>(), Ok(kind));
            assert_eq!(kind.name().to_uppercase().parse::<Kind>(), Ok(kind));
        }
        let err = "set-up".parse::<Kind>().unwrap_err().to_string();
        assert!(
            err.contains("chess960, standard, dfrc, other, unreadable"),
            "{err}"
        );
        let mut counts = KindCounts::default();
        counts.add(Kind::Chess960);
        counts.add(Kind::Chess960);
        counts.add(Kind::Unreadable);
        let mut more = KindCounts::default();
        more.add(Kind::Dfrc);
        counts.merge(&more);
        assert_eq!(counts.total(), 4);
        assert_eq!(
            counts.to_string(),
            "2 chess960, 0 standard, 1 dfrc, 0 other, 1 unreadable"
        );
    }
}
