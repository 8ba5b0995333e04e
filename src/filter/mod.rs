//! Choosing games from an archive without changing a byte of them:
//! `filter`'s criteria, and the verdict on each game of a batch.
//!
//! A game is read as every command reads it ([`Reading`]): its kind and
//! its start position come from there, its ratings as `stats` reads them
//! ([`parse_elo`]), and its findings from `validate`'s own checks, so
//! that `--finding` selects exactly the games `validate` reports. Only
//! then is `validate`'s replay paid for; plain filtering reads tags only,
//! as `tag` does.
//!
//! - `lists`: the command line's lists (positions, kinds, codes) read into
//!   sets, with errors naming the item at fault;
//! - `route`: where each byte of a batch goes, game by game, a game handed
//!   out in pieces included.

mod lists;
mod route;

pub use lists::{ListError, PositionSet, codes, kinds, reasons};
pub use route::{Router, Run, write_runs};

use crate::BackRank;
use crate::game::{Kind, KindCounts, Known, Reading, Unplayed, tag_value};
use crate::split::Batch;
use crate::stats::parse_elo;
use crate::validate::{Code, ValidateOptions, validate_each};

/// What selects a game: every criterion given must be met (a list is met
/// by any of its items). With none, every game is selected.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Games starting from one of these positions: Chess960 games, and
    /// standard ones (as 518) with `include_standard`. Games of no single
    /// start position (`dfrc`, `other`, `unreadable`) never meet it.
    pub positions: Option<PositionSet>,
    /// Count standard games as starting from 518, for `positions` and for
    /// [`Verdict::position`]. Off by default, as in `tag` and `stats`.
    pub include_standard: bool,
    /// Games of one of these kinds.
    pub kinds: Option<Vec<Kind>>,
    /// Games where both players are rated at least this (a rating as
    /// [`parse_elo`] reads it; a game without one never meets it).
    pub min_elo: Option<i32>,
    /// Games for which `validate` reports a finding of one of these codes.
    pub findings: Option<Vec<Code>>,
    /// Games whose result was not played ([`Reading::unplayed`]) for one
    /// of these reasons.
    pub unplayed: Option<Vec<Unplayed>>,
    /// Games whose result was played: those [`Reading::unplayed`] gives no
    /// reason for.
    pub played: bool,
    /// Select the games that do not meet the criteria instead.
    pub invert: bool,
}

impl Filter {
    /// Adds a criterion on start positions: with one already given, a game
    /// must meet both.
    pub fn restrict_positions(&mut self, set: PositionSet) {
        self.positions = Some(match self.positions {
            Some(before) => before.intersection(&set),
            None => set,
        });
    }

    /// Whether the filter needs `validate`'s findings (and its replay).
    pub fn needs_findings(&self) -> bool {
        self.findings.is_some()
    }

    /// Whether a game meets every criterion, `flagged` saying whether
    /// `validate` reports one of the wanted findings for it.
    fn meets(&self, batch: &Batch, reading: &Reading, flagged: bool) -> bool {
        if let Some(kinds) = &self.kinds
            && !kinds.contains(&reading.kind)
        {
            return false;
        }
        if let Some(positions) = &self.positions
            && !reading
                .id(self.include_standard)
                .is_some_and(|rank| positions.contains(rank))
        {
            return false;
        }
        if self.played || self.unplayed.is_some() {
            let reason = reading.unplayed(batch);
            if self.played && reason.is_some() {
                return false;
            }
            if let Some(reasons) = &self.unplayed
                && !reason.is_some_and(|reason| reasons.contains(&reason))
            {
                return false;
            }
        }
        if let Some(min) = self.min_elo {
            let rated = |known| {
                reading
                    .headers
                    .get(known)
                    .and_then(|tag| parse_elo(&tag_value(batch, &batch.tags[tag])))
                    .is_some_and(|elo| elo >= min)
            };
            if !(rated(Known::WhiteElo) && rated(Known::BlackElo)) {
                return false;
            }
        }
        !self.needs_findings() || flagged
    }
}

/// The verdict on one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Whether the game is selected (`invert` taken into account).
    pub selected: bool,
    /// What the game is.
    pub kind: Kind,
    /// Its start position: Chess960 games, and standard games with
    /// [`Filter::include_standard`].
    pub position: Option<BackRank>,
}

/// Judges every game of a batch, in order (one verdict per game of
/// [`Batch::games`]).
///
/// # Example
///
/// ```
/// use pgn960::filter::{Filter, PositionSet, select_batch};
/// use pgn960::split::GameReader;
///
/// let pgn = b"[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n*\n\n[Event \"standard\"]\n\n*\n";
/// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
/// let mut filter = Filter::default();
/// filter.restrict_positions(PositionSet::scharnagl("0-9")?);
/// let selected: Vec<bool> = select_batch(&batch, &filter).iter().map(|v| v.selected).collect();
/// assert_eq!(selected, [true, false]);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn select_batch(batch: &Batch, filter: &Filter) -> Vec<Verdict> {
    let verdict = |reading: &Reading, flagged| Verdict {
        selected: filter.meets(batch, reading, flagged) != filter.invert,
        kind: reading.kind,
        position: reading.id(filter.include_standard),
    };
    let Some(codes) = &filter.findings else {
        return batch
            .games
            .iter()
            .map(|game| verdict(&Reading::of(batch, game), false))
            .collect();
    };
    // `validate`'s own checks (with its defaults: the moves replayed),
    // whose reading of each game serves the other criteria too.
    let mut verdicts = Vec::with_capacity(batch.games.len());
    validate_each(batch, ValidateOptions::default(), |_, reading, findings| {
        let flagged = findings.iter().any(|finding| codes.contains(&finding.code));
        verdicts.push(verdict(reading, flagged));
    });
    verdicts
}

/// What a run read and selected; adds up across batches and inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilterCounts {
    /// Games read, by kind.
    pub read: KindCounts,
    /// Games selected, by kind.
    pub selected: KindCounts,
    /// Games selected without a start position ([`Verdict::position`]).
    pub selected_without_position: u64,
    /// Games that met the criteria but repeat a game selected before
    /// (`filter --unique`), and were not selected.
    pub duplicates: u64,
}

impl FilterCounts {
    /// Counts one game.
    pub fn add(&mut self, verdict: &Verdict) {
        self.read.add(verdict.kind);
        if verdict.selected {
            self.selected.add(verdict.kind);
            self.selected_without_position += u64::from(verdict.position.is_none());
        }
    }

    /// Adds another run's counts to these.
    pub fn merge(&mut self, other: &FilterCounts) {
        self.read.merge(&other.read);
        self.selected.merge(&other.selected);
        self.selected_without_position += other.selected_without_position;
        self.duplicates += other.duplicates;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    const FEN_0: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1";
    const DFRC: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    /// One game of each kind, with ratings, and one with an illegal move.
    fn archive() -> String {
        [
            format!("[Event \"0\"]\n[WhiteElo \"2500\"]\n[BlackElo \"2450\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n\n1. e4 e5 *\n\n"),
            "[Event \"standard\"]\n[WhiteElo \"2600\"]\n[BlackElo \"x\"]\n\n1. e4 *\n\n".to_string(),
            format!("[Event \"dfrc\"]\n[SetUp \"1\"]\n[FEN \"{DFRC}\"]\n\n1. e4 *\n\n"),
            "[Event \"other\"]\n[Variant \"Atomic\"]\n\n1. e4 *\n\n".to_string(),
            "[Event \"unreadable\"]\n[SetUp \"1\"]\n[FEN \"not a fen\"]\n\n1. e4 *\n\n".to_string(),
            format!("[Event \"0, illegal\"]\n[WhiteElo \"2400\"]\n[BlackElo \"2400\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n\n1. Ke2 *\n"),
        ]
        .concat()
    }

    /// The indices of the games `filter` selects.
    fn selected(filter: &Filter) -> Vec<u64> {
        let pgn = archive();
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        batch
            .games
            .iter()
            .zip(select_batch(&batch, filter))
            .filter(|(_, verdict)| verdict.selected)
            .map(|(game, _)| game.index)
            .collect()
    }

    #[test]
    fn each_criterion() {
        assert_eq!(selected(&Filter::default()), [1, 2, 3, 4, 5, 6]);
        let mut filter = Filter::default();
        filter.restrict_positions(PositionSet::scharnagl("0,518").unwrap());
        assert_eq!(selected(&filter), [1, 6]);
        filter.include_standard = true;
        assert_eq!(selected(&filter), [1, 2, 6]);
        filter.restrict_positions(PositionSet::arrangements("RNBQKBNR").unwrap());
        assert_eq!(selected(&filter), [2]);
        filter.invert = true;
        assert_eq!(selected(&filter), [1, 3, 4, 5, 6]);

        let filter = Filter {
            kinds: Some(kinds("dfrc,other,unreadable").unwrap()),
            ..Filter::default()
        };
        assert_eq!(selected(&filter), [3, 4, 5]);
        let filter = Filter {
            min_elo: Some(2400),
            ..Filter::default()
        };
        assert_eq!(selected(&filter), [1, 6]);
        let filter = Filter {
            min_elo: Some(2401),
            ..Filter::default()
        };
        assert_eq!(selected(&filter), [1]);
        let filter = Filter {
            findings: Some(codes("illegal_move").unwrap()),
            ..Filter::default()
        };
        assert_eq!(selected(&filter), [6]);
        let filter = Filter {
            findings: Some(codes("error").unwrap()),
            min_elo: Some(1),
            ..Filter::default()
        };
        // The unreadable FEN is an error too, but that game is unrated.
        assert_eq!(selected(&filter), [6]);
    }

    #[test]
    fn counts_by_kind_and_position() {
        let pgn = archive();
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        let filter = Filter {
            kinds: Some(vec![Kind::Chess960, Kind::Dfrc]),
            ..Filter::default()
        };
        let mut counts = FilterCounts::default();
        for verdict in select_batch(&batch, &filter) {
            counts.add(&verdict);
        }
        assert_eq!(counts.read.total(), 6);
        assert_eq!(
            counts.selected.to_string(),
            "2 chess960, 0 standard, 1 dfrc, 0 other, 0 unreadable"
        );
        assert_eq!(counts.selected_without_position, 1);

        // Counted in two parts (as the Python module counts each input)
        // and merged: the counts of the whole, duplicates added.
        let verdicts = select_batch(&batch, &filter);
        let mut parts = [FilterCounts::default(), FilterCounts::default()];
        for (i, verdict) in verdicts.iter().enumerate() {
            parts[usize::from(i >= 2)].add(verdict);
        }
        assert_eq!(
            (
                parts[0].selected_without_position,
                parts[1].selected_without_position
            ),
            (0, 1),
            "the Double FRC game, without a position, is in the second part"
        );
        (parts[0].duplicates, parts[1].duplicates) = (2, 3);
        let [mut merged, second] = parts;
        merged.merge(&second);
        counts.duplicates = 5;
        assert_eq!(merged, counts);
    }
}
