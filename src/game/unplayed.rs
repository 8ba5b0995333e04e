//! Results that were not played: a game whose `Termination` says it was
//! abandoned (a disconnection, a crashed engine, a player who never
//! moved), ended by a rules infraction (an engine's illegal move, an
//! administrative forfeit), unterminated, or stopped by an emergency or a
//! death. Its `Result` says who was given the point, not who won at the
//! board: `stats` leaves it out, `filter --unplayed` selects it and
//! `games` names its reason, all through [`Reading::unplayed`].
//!
//! The values, in the spellings of the PGN standard (section 9.8.1),
//! lichess, cutechess and TCEC, compared ignoring case and everything but
//! letters and digits (`Rules infraction`, `rules_infraction`):
//!
//! | `Termination` | reason |
//! | --- | --- |
//! | `abandoned` (standard, lichess, cutechess, TCEC: a disconnection) | `abandoned` |
//! | `stalled connection` (cutechess) | `abandoned` |
//! | `rules infraction` (standard, lichess) | `rules_infraction` |
//! | `illegal move` (cutechess, TCEC: an engine that sent one) | `rules_infraction` |
//! | `unterminated` (standard, lichess, cutechess) | `unterminated` |
//! | `emergency` (standard) | `emergency` |
//! | `death` (standard) | `death` |
//! | `normal`, `time forfeit`, `adjudication`, `manual adjudication`, any other | played |
//!
//! A game without a `Termination` tag is played, unless its
//! `TerminationDetails` (TCEC's) says a side disconnected or its
//! connection stalled (`White disconnects`, `White's connection
//! stalls`): `abandoned`.

use std::fmt;
use std::str::FromStr;

use crate::split::Batch;

use super::{Known, Reading, tag_value};

/// Why a game's result was not played at the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unplayed {
    /// Abandoned: a disconnection, a crashed or stalled engine, a game
    /// never started.
    Abandoned,
    /// Ended by a rules infraction: an illegal move sent by an engine, an
    /// administrative forfeit (lichess: cheating).
    RulesInfraction,
    /// Not terminated.
    Unterminated,
    /// Stopped by unforeseen circumstances.
    Emergency,
    /// The losing player died.
    Death,
}

/// Every `Termination` value (folded: lower case, letters and digits
/// only) that says a result was not played, with its reason.
const TERMINATIONS: [(&str, Unplayed); 7] = [
    ("abandoned", Unplayed::Abandoned),
    ("stalledconnection", Unplayed::Abandoned),
    ("rulesinfraction", Unplayed::RulesInfraction),
    ("illegalmove", Unplayed::RulesInfraction),
    ("unterminated", Unplayed::Unterminated),
    ("emergency", Unplayed::Emergency),
    ("death", Unplayed::Death),
];

/// How a TCEC `TerminationDetails` of a game without `Termination` ends
/// when a side disconnected or its connection stalled (folded).
const DETAILS: [&str; 2] = ["disconnects", "connectionstalls"];

impl Unplayed {
    /// Every reason, in the order summaries list them.
    pub const ALL: [Unplayed; 5] = [
        Unplayed::Abandoned,
        Unplayed::RulesInfraction,
        Unplayed::Unterminated,
        Unplayed::Emergency,
        Unplayed::Death,
    ];

    /// The reason's name: `abandoned`, `rules_infraction`,
    /// `unterminated`, `emergency`, `death`.
    pub fn name(self) -> &'static str {
        match self {
            Unplayed::Abandoned => "abandoned",
            Unplayed::RulesInfraction => "rules_infraction",
            Unplayed::Unterminated => "unterminated",
            Unplayed::Emergency => "emergency",
            Unplayed::Death => "death",
        }
    }

    /// The reason a `Termination` value gives, if it says the result was
    /// not played (see the module's table).
    ///
    /// ```
    /// use pgn960::game::Unplayed;
    ///
    /// assert_eq!(Unplayed::of_termination(b"Rules infraction"), Some(Unplayed::RulesInfraction));
    /// assert_eq!(Unplayed::of_termination(b"illegal move"), Some(Unplayed::RulesInfraction));
    /// assert_eq!(Unplayed::of_termination(b"Time forfeit"), None);
    /// ```
    pub fn of_termination(value: &[u8]) -> Option<Unplayed> {
        let folded = fold(value);
        TERMINATIONS
            .iter()
            .find(|(spelling, _)| spelling.as_bytes() == folded.as_slice())
            .map(|&(_, reason)| reason)
    }

    /// The reason a TCEC `TerminationDetails` value gives (of a game
    /// without `Termination`): `abandoned` when a side disconnected or its
    /// connection stalled.
    pub fn of_details(value: &[u8]) -> Option<Unplayed> {
        let folded = fold(value);
        DETAILS
            .iter()
            .any(|end| folded.ends_with(end.as_bytes()))
            .then_some(Unplayed::Abandoned)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A value in lower case, letters and digits only.
fn fold(value: &[u8]) -> Vec<u8> {
    value
        .iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(u8::to_ascii_lowercase)
        .collect()
}

impl Reading {
    /// Why the game's result was not played, if it was not: its
    /// `Termination` (the last one) read by [`Unplayed::of_termination`],
    /// or without one, its `TerminationDetails` by
    /// [`Unplayed::of_details`]. The one decision `stats`, `filter`,
    /// `games` and the Python module use.
    ///
    /// ```
    /// use pgn960::game::{Reading, Unplayed};
    /// use pgn960::split::GameReader;
    ///
    /// let pgn = b"[Termination \"Abandoned\"]\n[Result \"1-0\"]\n\n1-0\n";
    /// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
    /// let reading = Reading::of(&batch, &batch.games[0]);
    /// assert_eq!(reading.unplayed(&batch), Some(Unplayed::Abandoned));
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn unplayed(&self, batch: &Batch) -> Option<Unplayed> {
        let value = |known| {
            self.headers
                .get(known)
                .map(|tag| tag_value(batch, &batch.tags[tag]))
        };
        match value(Known::Termination) {
            Some(termination) => Unplayed::of_termination(&termination),
            None => {
                value(Known::TerminationDetails).and_then(|details| Unplayed::of_details(&details))
            }
        }
    }
}

impl fmt::Display for Unplayed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownReason(pub String);

impl fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Unplayed::ALL.iter().map(|r| r.name()).collect();
        write!(
            f,
            "{:?} is no reason a result was not played ({})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownReason {}

impl FromStr for Unplayed {
    type Err = UnknownReason;

    /// Reads a reason's name, ignoring case (`-` for `_` too).
    fn from_str(text: &str) -> Result<Unplayed, UnknownReason> {
        let text = text.trim().replace('-', "_");
        Unplayed::ALL
            .into_iter()
            .find(|reason| reason.name().eq_ignore_ascii_case(&text))
            .ok_or_else(|| UnknownReason(text.to_string()))
    }
}

/// Games whose result was not played, counted by reason; counts add up
/// across batches, files and runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnplayedCounts([u64; 5]);

impl UnplayedCounts {
    /// Counts one game.
    pub fn add(&mut self, reason: Unplayed) {
        self.0[reason.index()] += 1;
    }

    /// Adds other counts to these.
    pub fn merge(&mut self, other: &UnplayedCounts) {
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            *mine += theirs;
        }
    }

    /// The games of one reason.
    pub fn get(&self, reason: Unplayed) -> u64 {
        self.0[reason.index()]
    }

    /// All of them.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

impl serde::Serialize for UnplayedCounts {
    /// As an object from each reason's name to its games, every reason in
    /// the order of [`Unplayed::ALL`].
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(Unplayed::ALL.len()))?;
        for reason in Unplayed::ALL {
            map.serialize_entry(reason.name(), &self.get(reason))?;
        }
        map.end()
    }
}

impl fmt::Display for UnplayedCounts {
    /// The reasons with games: `28 abandoned, 8 rules_infraction` (empty
    /// with none).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for reason in Unplayed::ALL {
            let games = self.get(reason);
            if games > 0 {
                let separator = if first { "" } else { ", " };
                write!(f, "{separator}{games} {reason}")?;
                first = false;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    fn reasons(tags: &[&str]) -> Vec<Option<Unplayed>> {
        let pgn: String = tags
            .iter()
            .map(|tags| format!("{tags}\n[Result \"1-0\"]\n\n1-0\n\n"))
            .collect();
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        batch
            .games
            .iter()
            .map(|game| Reading::of(&batch, game).unplayed(&batch))
            .collect()
    }

    #[test]
    fn every_spelling_gives_its_reason_and_played_results_none() {
        use Unplayed::*;
        let cases = [
            // lichess
            ("Abandoned", Some(Abandoned)),
            ("Rules infraction", Some(RulesInfraction)),
            ("Unterminated", Some(Unterminated)),
            ("Time forfeit", None),
            ("Normal", None),
            // cutechess and TCEC
            ("abandoned", Some(Abandoned)),
            ("stalled connection", Some(Abandoned)),
            ("illegal move", Some(RulesInfraction)),
            ("time forfeit", None),
            ("adjudication", None),
            ("manual adjudication", None),
            // the PGN standard
            ("rules infraction", Some(RulesInfraction)),
            ("unterminated", Some(Unterminated)),
            ("emergency", Some(Emergency)),
            ("death", Some(Death)),
            ("normal", None),
            // other spellings of the same
            (" RULES_INFRACTION ", Some(RulesInfraction)),
            ("Illegal-Move", Some(RulesInfraction)),
            ("", None),
            ("abandoned game?", None),
        ];
        let tags: Vec<String> = cases
            .iter()
            .map(|(value, _)| format!("[Termination \"{value}\"]"))
            .collect();
        let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
        let expected: Vec<Option<Unplayed>> = cases.iter().map(|(_, reason)| *reason).collect();
        assert_eq!(reasons(&tags), expected);
    }

    #[test]
    fn tcec_details_count_only_without_a_termination() {
        use Unplayed::*;
        assert_eq!(
            reasons(&[
                "[TerminationDetails \"White's connection stalls\"]",
                "[TerminationDetails \"Black disconnects\"]",
                "[TerminationDetails \"White mates\"]",
                "[Termination \"adjudication\"]\n[TerminationDetails \"Black disconnects\"]",
                "[Termination \"illegal move\"]\n[TerminationDetails \"F8f7\"]",
                "[Event \"no termination\"]",
                "[Termination \"normal\"]\n[Termination \"abandoned\"]",
            ]),
            [
                Some(Abandoned),
                Some(Abandoned),
                None,
                None,
                Some(RulesInfraction),
                None,
                Some(Abandoned),
            ]
        );
    }

    #[test]
    fn names_read_back_and_counts_add_up() {
        for reason in Unplayed::ALL {
            assert_eq!(reason.name().parse::<Unplayed>(), Ok(reason));
        }
        assert_eq!(
            "Rules-Infraction".parse::<Unplayed>(),
            Ok(Unplayed::RulesInfraction)
        );
        let err = "forfeit".parse::<Unplayed>().unwrap_err().to_string();
        assert!(
            err.contains("abandoned, rules_infraction, unterminated, emergency, death"),
            "{err}"
        );
        let mut counts = UnplayedCounts::default();
        assert_eq!(counts.to_string(), "");
        counts.add(Unplayed::Death);
        counts.add(Unplayed::Abandoned);
        let mut more = UnplayedCounts::default();
        more.add(Unplayed::Abandoned);
        counts.merge(&more);
        assert_eq!((counts.total(), counts.get(Unplayed::Abandoned)), (3, 2));
        assert_eq!(counts.to_string(), "2 abandoned, 1 death");
    }
}
