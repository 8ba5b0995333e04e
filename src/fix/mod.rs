//! Repairing what `validate` finds in a game's tags, as byte edits, so
//! that nothing else of an archive changes.
//!
//! Each game is read once ([`Reading`]) and checked as `validate
//! --no-moves` checks it ([`check_game`]); then the repairs are planned
//! from that reading (`game`), each named by the [`Problem`] it removes:
//!
//! - the start: a game without a `FEN` that records its start as an id
//!   number or a back rank in `Opening` gets that start's `FEN` (and
//!   `SetUp "1"`), when its mainline replays legally from it;
//! - the `Variant`: added on a 960 array other than 518, rewritten from a
//!   spelling common readers reject (`FRC`, ...), and from `Standard` or
//!   `From Position` when the mainline replays legally under Chess960
//!   rules; on request, every spelling of Chess960 rewritten to one, or
//!   every spelling kept;
//! - `SetUp "1"` beside every `FEN`;
//! - the id tags, as `tag` writes them;
//! - a repeated tag, its line removed, when every tag of its name in the
//!   game says the same;
//! - on request, the castling field of every start array's `FEN`, in one
//!   notation.
//!
//! A rewrite changes a tag value's bytes and nothing around them; new tag
//! lines go where `tag` puts its id tags, in the order `Variant`, `SetUp`,
//! `FEN`, `Chess960Id`. Moves are replayed only for the games whose repair
//! depends on them. A game whose start cannot be read is passed through.
//! What is not repaired is counted as left, finding by finding.

mod fen;
mod game;

use std::fmt;

use crate::game::{COMMON_SPELLINGS, KindCounts, Reading, Variant};
use crate::position::CastlingNotation;
use crate::split::{Batch, LineCounter};
use crate::tag::Edit;
use crate::validate::{Code, ValidateOptions, check_game};

/// What to repair, and how.
#[derive(Clone, Debug, Default)]
pub struct FixOptions {
    /// Rewrite the castling field of every start array's `FEN` to this
    /// notation; `None` (the default) leaves castling fields as they are.
    /// A `FEN` that `fix` adds is written in this notation, X-FEN without
    /// one.
    pub castling: Option<CastlingNotation>,
    /// The `Variant` value written. Defaults to `Chess960`.
    pub variant_name: VariantName,
    /// Which spellings of Chess960 in a `Variant` are rewritten to
    /// `variant_name`. Defaults to those `validate` reports.
    pub spellings: Spellings,
    /// Build a [`Row`] for each repair and each finding left (with its
    /// line, which costs counting lines). Defaults to off: the counts are
    /// always kept.
    pub rows: bool,
}

/// Which `Variant` values that name Chess960 `fix` rewrites.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Spellings {
    /// The spellings `validate` reports (`variant_spelling`: `FRC`,
    /// `chess-960`, ...); those common readers accept are kept.
    #[default]
    Reported,
    /// Every spelling other than [`FixOptions::variant_name`], each as
    /// `variant_name` (the ones `validate` reports as `variant_spelling`,
    /// the others as [`Problem::VariantName`]).
    All,
    /// None: every `Variant` that names Chess960 is kept as it is (a
    /// `variant_spelling` finding is left).
    Keep,
}

impl Spellings {
    /// What `--variant-name` asks for: nothing (`None`) repairs the
    /// spellings `validate` reports, writing `Chess960`; `keep` keeps every
    /// spelling; a name rewrites every other spelling to it.
    ///
    /// # Errors
    ///
    /// [`VariantNameError`] for a name that is not `keep` nor one of the
    /// spellings common readers accept ([`VariantName::new`]).
    ///
    /// ```
    /// use pgn960::fix::{Spellings, VariantName};
    ///
    /// assert_eq!(Spellings::asked(None), Ok((Spellings::Reported, VariantName::default())));
    /// assert_eq!(Spellings::asked(Some("keep")), Ok((Spellings::Keep, VariantName::default())));
    /// assert_eq!(Spellings::asked(Some("Chess 960")), Ok((Spellings::All, VariantName::new("Chess 960")?)));
    /// assert!(Spellings::asked(Some("FRC")).is_err());
    /// # Ok::<_, pgn960::fix::VariantNameError>(())
    /// ```
    pub fn asked(name: Option<&str>) -> Result<(Spellings, VariantName), VariantNameError> {
        match name {
            None => Ok((Spellings::Reported, VariantName::default())),
            Some("keep") => Ok((Spellings::Keep, VariantName::default())),
            Some(name) => Ok((Spellings::All, VariantName::new(name)?)),
        }
    }
}

/// A `Variant` value for Chess960 that common readers accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantName(String);

impl VariantName {
    /// A name of Chess960 in one of the spellings common readers accept
    /// ([`COMMON_SPELLINGS`], in any case; `Chess960` is the default).
    ///
    /// # Errors
    ///
    /// [`VariantNameError`] for any other value: it would leave every
    /// rewritten game with a `variant_spelling` finding, or not name
    /// Chess960 at all.
    ///
    /// ```
    /// use pgn960::fix::VariantName;
    ///
    /// assert_eq!(VariantName::new("fischerandom").map(|n| n.as_str().to_owned()), Ok("fischerandom".into()));
    /// assert!(VariantName::new("FRC").is_err());
    /// assert!(VariantName::new("Standard").is_err());
    /// ```
    pub fn new(name: &str) -> Result<VariantName, VariantNameError> {
        if name.trim() == name
            && Variant::from_value(name.as_bytes()) == (Variant::Chess960 { common: true })
        {
            Ok(VariantName(name.to_string()))
        } else {
            Err(VariantNameError(name.to_string()))
        }
    }

    /// The value as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for VariantName {
    fn default() -> Self {
        VariantName("Chess960".to_string())
    }
}

/// A `Variant` value that is not one of the common spellings of Chess960.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantNameError(pub String);

impl fmt::Display for VariantNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spellings: Vec<String> = COMMON_SPELLINGS.iter().map(|s| format!("{s:?}")).collect();
        write!(
            f,
            "{:?} is not a name of Chess960 that common readers accept ({}, in any case)",
            self.0,
            spellings.join(", ")
        )
    }
}

impl std::error::Error for VariantNameError {}

/// What a repair removes, or what a finding left is: a `validate` code,
/// or one of the three things `fix` repairs that `validate` does not
/// report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Problem {
    /// A finding of `validate`, by its code.
    Finding(Code),
    /// A Chess960 game without a `Chess960Id` tag: `tag` adds it.
    IdMissing,
    /// A start array's `FEN` whose castling field is not in the notation
    /// asked for with `--castling`.
    CastlingNotation,
    /// A `Variant` that names Chess960 in a spelling common readers
    /// accept, but not the one asked for with `--variant-name`
    /// ([`Spellings::All`]).
    VariantName,
}

/// How many codes `validate` has.
const CODES: usize = Code::ALL.len();
/// How many problems there are: the codes and `fix`'s own three.
const PROBLEMS: usize = CODES + 3;

impl Problem {
    /// The stable name: a `validate` code, or `id_missing`,
    /// `castling_notation`, `variant_name`.
    pub fn name(self) -> &'static str {
        match self {
            Problem::Finding(code) => code.name(),
            Problem::IdMissing => "id_missing",
            Problem::CastlingNotation => "castling_notation",
            Problem::VariantName => "variant_name",
        }
    }

    /// Its place in report order: the codes in the order of
    /// [`Code::ALL`], then `fix`'s own.
    fn index(self) -> usize {
        match self {
            // The codes are declared in the order of `Code::ALL`.
            Problem::Finding(code) => code as usize,
            Problem::IdMissing => CODES,
            Problem::CastlingNotation => CODES + 1,
            Problem::VariantName => CODES + 2,
        }
    }

    /// The problem at `index` in report order.
    fn at(index: usize) -> Problem {
        match index.checked_sub(CODES) {
            None => Problem::Finding(Code::ALL[index]),
            Some(0) => Problem::IdMissing,
            Some(1) => Problem::CastlingNotation,
            Some(_) => Problem::VariantName,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a row is a repair or a finding left alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// A tag was added or its value rewritten.
    Fixed,
    /// The problem is still there.
    Left,
}

impl Action {
    /// `fixed` or `left`.
    pub fn name(self) -> &'static str {
        match self {
            Action::Fixed => "fixed",
            Action::Left => "left",
        }
    }
}

/// One repair (one tag added or rewritten), or one finding left alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// 1-based index of the game within its input.
    pub game: u64,
    /// The line within the batch (see [`Batch::input_line`]): of the tag
    /// rewritten, of the line a new tag goes before, or of the finding.
    pub line: u64,
    /// What the repair removes, or what is left.
    pub problem: Problem,
    /// Repaired or left.
    pub action: Action,
    /// The tag added or rewritten (empty for a finding left).
    pub tag: String,
    /// Its value before (empty for a tag added or a finding left).
    pub before: String,
    /// Its value after (empty for a finding left).
    pub after: String,
}

/// How the games of a run fared; counts add up across batches and inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FixCounts {
    /// Games read, by kind (as they were read, before any repair).
    pub kinds: KindCounts,
    /// Games with at least one repair.
    pub games_fixed: u64,
    /// Repairs (tags added or rewritten), by problem in report order.
    fixed: [u64; PROBLEMS],
    /// Findings left alone, by problem in report order.
    left: [u64; PROBLEMS],
}

impl FixCounts {
    /// Adds other counts to these.
    pub fn merge(&mut self, other: &FixCounts) {
        self.kinds.merge(&other.kinds);
        self.games_fixed += other.games_fixed;
        for (mine, theirs) in self.fixed.iter_mut().zip(other.fixed) {
            *mine += theirs;
        }
        for (mine, theirs) in self.left.iter_mut().zip(other.left) {
            *mine += theirs;
        }
    }

    /// Counts one repair, or one finding left.
    pub fn add(&mut self, problem: Problem, action: Action) {
        match action {
            Action::Fixed => self.fixed[problem.index()] += 1,
            Action::Left => self.left[problem.index()] += 1,
        }
    }

    /// How many repairs (`Action::Fixed`) or findings left
    /// (`Action::Left`) there are of each problem that has any, in report
    /// order: the codes in the order of [`Code::ALL`], then `id_missing`,
    /// `fen_missing`, `castling_notation`, `variant_name`.
    pub fn by_problem(&self, action: Action) -> impl Iterator<Item = (Problem, u64)> + '_ {
        let counts = match action {
            Action::Fixed => &self.fixed,
            Action::Left => &self.left,
        };
        counts
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, n)| (Problem::at(i), *n))
    }

    /// All repairs.
    pub fn repairs(&self) -> u64 {
        self.fixed.iter().sum()
    }

    /// All findings left.
    pub fn findings_left(&self) -> u64 {
        self.left.iter().sum()
    }
}

/// What fixing a batch gives.
#[derive(Clone, Debug, Default)]
pub struct BatchFix {
    /// The edits, in offset order, for [`crate::tag::apply`].
    pub edits: Vec<Edit>,
    /// One row per repair and per finding left, in game order and by line
    /// within a game; empty unless [`FixOptions::rows`].
    pub rows: Vec<Row>,
    /// The counts.
    pub counts: FixCounts,
}

/// Repairs every game of a batch.
///
/// # Example
///
/// ```
/// use pgn960::fix::{fix_batch, FixOptions};
/// use pgn960::split::GameReader;
/// use pgn960::tag::apply;
///
/// let pgn = b"[Variant \"FRC\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 *\n";
/// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
/// let fixed = fix_batch(&batch, &FixOptions::default());
/// let mut out = Vec::new();
/// apply(&batch.data, &fixed.edits, &mut out)?;
/// assert_eq!(
///     String::from_utf8_lossy(&out),
///     "[Variant \"Chess960\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\
///      [SetUp \"1\"]\n[Chess960Id \"0\"]\n\n1. e4 *\n"
/// );
/// assert_eq!(fixed.counts.repairs(), 3);
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn fix_batch(batch: &Batch, options: &FixOptions) -> BatchFix {
    let mut fixed = BatchFix::default();
    let lines = LineCounter::new(&batch.data);
    let mut findings = Vec::new();
    let checks = ValidateOptions {
        moves: false,
        lines: options.rows,
    };
    for game in &batch.games {
        let reading = Reading::of(batch, game);
        fixed.counts.kinds.add(reading.kind);
        findings.clear();
        check_game(batch, game, &reading, checks, &lines, &mut findings);
        game::GameFix::new(batch, game, &reading, options, &lines, &mut fixed).run(&findings);
    }
    fixed.edits.sort_by_key(|edit| edit.at);
    fixed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_counted_in_report_order() {
        for (i, &code) in Code::ALL.iter().enumerate() {
            assert_eq!(Problem::Finding(code).index(), i, "{code:?}");
        }
        for i in 0..PROBLEMS {
            assert_eq!(Problem::at(i).index(), i);
        }
        let mut counts = FixCounts::default();
        counts.add(Problem::CastlingNotation, Action::Fixed);
        counts.add(Problem::Finding(Code::IdMismatch), Action::Fixed);
        counts.add(Problem::Finding(Code::DoubleFrc), Action::Left);
        let mut more = counts;
        more.merge(&counts);
        let fixed: Vec<(Problem, u64)> = more.by_problem(Action::Fixed).collect();
        assert_eq!(
            fixed,
            [
                (Problem::Finding(Code::IdMismatch), 2),
                (Problem::CastlingNotation, 2)
            ]
        );
        assert_eq!((more.repairs(), more.findings_left()), (4, 2));
    }

    /// A problem shows as its stable name, the one of `docs/codes.md`
    /// and of the report's `code` column.
    #[test]
    fn a_problem_shows_as_its_stable_name() {
        let shown = [
            Problem::Finding(Code::FenMissing),
            Problem::IdMissing,
            Problem::CastlingNotation,
            Problem::VariantName,
        ]
        .map(|problem| problem.to_string());
        assert_eq!(
            shown,
            [
                "fen_missing",
                "id_missing",
                "castling_notation",
                "variant_name"
            ]
        );
    }
}
