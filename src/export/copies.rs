//! Which rows repeat a game read before, across all inputs of a run: the
//! values of `games --duplicates`' columns `duplicate_of_file` and
//! `duplicate_of_game`, from each game's [`Fingerprint`] (the one
//! `stats` and `filter --unique` count copies by) and a table of first
//! occurrences held in memory under a budget ([`Firsts`]).
//!
//! Rows are marked in input order, on the thread that writes them, so
//! the first occurrence of a game is the first in input order, whatever
//! the number of threads.

use std::fmt;
use std::sync::Arc;

use crate::duplicates::{Firsts, TooManyGames};
use crate::game::Fingerprint;

use super::GameRow;

/// The first occurrence of every game of a run so far: each is noted by
/// its place in the run (its index in its input, after the games of the
/// inputs before it), and found again from that place.
///
/// ```
/// use pgn960::export::{FirstOccurrences, GameRow, Schema};
/// use pgn960::split::{GameReader, LineCounter};
///
/// let pgn = b"[White \"A\"]\n\n1. e4 1-0\n\n[White \"A\"]\n\n1. e4 {[%clk 0:01:00]} 1-0\n";
/// let schema = Schema::default().with_duplicates(true);
/// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
/// let lines = LineCounter::new(&batch.data);
/// let mut firsts = FirstOccurrences::new(1 << 20);
/// firsts.start_input("a.pgn");
/// let mut rows: Vec<GameRow> =
///     batch.games.iter().map(|game| GameRow::read(&batch, game, &schema, &lines)).collect();
/// for row in &mut rows {
///     firsts.mark(row)?;
/// }
/// assert_eq!(rows[0].duplicate_of(), None);
/// assert_eq!(rows[1].duplicate_of(), Some(("a.pgn", 1)));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FirstOccurrences {
    firsts: Firsts,
    /// Each input so far: the place of its first game less one, and its
    /// name.
    inputs: Vec<(u64, Arc<str>)>,
    /// The last place given so far.
    last: u64,
    /// Rows marked as repeats.
    repeats: u64,
}

/// Why a row could not be marked: the run cannot tell copies apart any
/// longer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Untold {
    /// The table of first occurrences is full.
    TooManyGames(TooManyGames),
    /// A game first seen after the 4,294,967,295th game of the run (its
    /// place is held in 32 bits).
    TooManyRows,
}

impl fmt::Display for Untold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Untold::TooManyGames(full) => full.fmt(f),
            Untold::TooManyRows => write!(
                f,
                "a new game after the {}th game of the run: its place cannot be noted; \
                 split the archive with `filter --split-by position` (every copy of a \
                 game starts from the same position) and run on each part",
                u32::MAX
            ),
        }
    }
}

impl std::error::Error for Untold {}

impl FirstOccurrences {
    /// No game seen yet; the table never takes more than `budget` bytes.
    pub fn new(budget: usize) -> FirstOccurrences {
        FirstOccurrences {
            firsts: Firsts::new(budget),
            inputs: Vec::new(),
            last: 0,
            repeats: 0,
        }
    }

    /// The rows of input `name` come next (its name is the value of
    /// `duplicate_of_file` for the copies of its games).
    pub fn start_input(&mut self, name: &str) {
        self.inputs.push((self.last, Arc::from(name)));
    }

    /// Marks `row`, the next row of the current input, as a copy of the
    /// game it repeats, if any; a game first seen is noted. A row without
    /// a fingerprint (read in pieces, or without the duplicate columns)
    /// is left as it is.
    ///
    /// # Errors
    ///
    /// [`Untold`] when a game first seen cannot be noted.
    ///
    /// # Panics
    ///
    /// When no input has been started.
    pub fn mark(&mut self, row: &mut GameRow) -> Result<(), Untold> {
        let (before, _) = self.inputs.last().expect("an input is started");
        let place = before + row.game;
        self.last = self.last.max(place);
        let Some(fingerprint) = row.fingerprint() else {
            return Ok(());
        };
        if let Some((file, game)) = self.first_of(fingerprint, place)? {
            row.set_duplicate_of(file, game);
            self.repeats += 1;
        }
        Ok(())
    }

    /// The input and index of the first occurrence of `fingerprint`, or
    /// `None` when this is its first (then noted at `place`).
    fn first_of(
        &mut self,
        fingerprint: Fingerprint,
        place: u64,
    ) -> Result<Option<(Arc<str>, u64)>, Untold> {
        // A place past 32 bits is refused only when it would be noted.
        let at = u32::try_from(place).unwrap_or(u32::MAX);
        let Some(first) = self
            .firsts
            .first_of(fingerprint, at)
            .map_err(Untold::TooManyGames)?
        else {
            if at == u32::MAX {
                return Err(Untold::TooManyRows);
            }
            return Ok(None);
        };
        let first = u64::from(first);
        // The input whose games' places hold `first`: the last that
        // starts before it.
        let input = self.inputs.partition_point(|(before, _)| *before < first) - 1;
        let (before, name) = &self.inputs[input];
        Ok(Some((Arc::clone(name), first - before)))
    }

    /// Rows marked as copies so far.
    pub fn repeats(&self) -> u64 {
        self.repeats
    }
}
