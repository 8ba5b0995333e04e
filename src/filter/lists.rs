//! The lists `filter` is given on the command line, read into the sets the
//! criteria test against: start positions by Scharnagl or Fritz9 number
//! (numbers and inclusive ranges), by arrangement, kinds, and `validate`'s
//! codes or severities. A list is comma-separated, spaces around an item
//! are ignored, and an error names the item at fault.

use std::fmt;

use crate::BackRank;
use crate::game::{Kind, UnknownKind, UnknownReason, Unplayed};
use crate::position::BackRankError;
use crate::validate::{Code, Severity};

/// A set of the 960 start positions.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PositionSet([u64; 15]);

impl PositionSet {
    /// No position.
    pub const EMPTY: PositionSet = PositionSet([0; 15]);

    /// Every position.
    pub fn all() -> PositionSet {
        PositionSet([u64::MAX; 15])
    }

    /// Adds a position.
    pub fn insert(&mut self, rank: BackRank) {
        let id = usize::from(rank.scharnagl());
        self.0[id / 64] |= 1 << (id % 64);
    }

    /// Whether the set holds a position.
    pub fn contains(&self, rank: BackRank) -> bool {
        let id = usize::from(rank.scharnagl());
        self.0[id / 64] & (1 << (id % 64)) != 0
    }

    /// The positions in either set.
    #[must_use]
    pub fn union(&self, other: &PositionSet) -> PositionSet {
        let mut either = *self;
        for (mine, theirs) in either.0.iter_mut().zip(other.0) {
            *mine |= theirs;
        }
        either
    }

    /// The positions in both sets.
    #[must_use]
    pub fn intersection(&self, other: &PositionSet) -> PositionSet {
        let mut both = *self;
        for (mine, theirs) in both.0.iter_mut().zip(other.0) {
            *mine &= theirs;
        }
        both
    }

    /// How many positions the set holds.
    pub fn len(&self) -> usize {
        self.0.iter().map(|word| word.count_ones() as usize).sum()
    }

    /// Whether the set holds no position.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&word| word == 0)
    }

    /// The positions, by Scharnagl number.
    pub fn iter(&self) -> impl Iterator<Item = BackRank> + '_ {
        BackRank::all().filter(|rank| self.contains(*rank))
    }

    /// Reads a list of Scharnagl numbers (0–959) and inclusive ranges:
    /// `0,518,700-759`.
    ///
    /// ```
    /// use pgn960::BackRank;
    /// use pgn960::filter::PositionSet;
    ///
    /// let set = PositionSet::scharnagl("0, 518,700-759")?;
    /// assert_eq!(set.len(), 62);
    /// assert!(set.contains(BackRank::STANDARD));
    /// let err = PositionSet::scharnagl("0,5x8").unwrap_err();
    /// assert_eq!(err.to_string(), r#""5x8" is not a number or a range of numbers (like 700-759)"#);
    /// # Ok::<_, pgn960::filter::ListError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ListError`], naming the first item that is not a number or a
    /// range of Scharnagl numbers.
    pub fn scharnagl(list: &str) -> Result<PositionSet, ListError> {
        PositionSet::numbers(list, Numbering::Scharnagl)
    }

    /// Reads a list of Fritz9 numbers (1–960) and inclusive ranges.
    ///
    /// # Errors
    ///
    /// [`ListError`], naming the first item that is not a number or a
    /// range of Fritz9 numbers.
    pub fn fritz9(list: &str) -> Result<PositionSet, ListError> {
        PositionSet::numbers(list, Numbering::Fritz9)
    }

    /// Reads a list of arrangements, in either case: `RNBQKBNR,bbqnnrkr`.
    ///
    /// # Errors
    ///
    /// [`ListError`], naming the first item that is not a legal Chess960
    /// arrangement and the rule it breaks.
    pub fn arrangements(list: &str) -> Result<PositionSet, ListError> {
        let mut set = PositionSet::EMPTY;
        for item in items(list)? {
            let rank = BackRank::from_ascii(item.as_bytes())
                .map_err(|err| ListError::new(item, Problem::Arrangement(err)))?;
            set.insert(rank);
        }
        Ok(set)
    }

    fn numbers(list: &str, numbering: Numbering) -> Result<PositionSet, ListError> {
        let mut set = PositionSet::EMPTY;
        for item in items(list)? {
            let (from, to) = numbering.range(item)?;
            for id in from..=to {
                set.insert(numbering.rank(id));
            }
        }
        Ok(set)
    }
}

impl fmt::Debug for PositionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|rank| rank.scharnagl()))
            .finish()
    }
}

/// The two ways of numbering the positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Numbering {
    /// 0–959, the standard array 518.
    Scharnagl,
    /// 1–960, the standard array 359.
    Fritz9,
}

impl Numbering {
    fn bounds(self) -> (u32, u32) {
        match self {
            Numbering::Scharnagl => (0, 959),
            Numbering::Fritz9 => (1, 960),
        }
    }

    fn rank(self, id: u32) -> BackRank {
        match self {
            Numbering::Scharnagl => BackRank::from_scharnagl(id),
            Numbering::Fritz9 => BackRank::from_fritz9(id),
        }
        .expect("ranges are checked against the numbering's bounds")
    }

    /// An item: `N` or `N-M`, with `N <= M`, both within the bounds.
    fn range(self, item: &str) -> Result<(u32, u32), ListError> {
        let (from, to) = match item.split_once('-') {
            Some((from, to)) => (from.trim(), to.trim()),
            None => (item, item),
        };
        let number = |text: &str| {
            let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
            // Digits only (no sign); a number too long for u32 is out of
            // range, not "no number".
            digits.then(|| text.parse::<u32>().unwrap_or(u32::MAX))
        };
        let (Some(from), Some(to)) = (number(from), number(to)) else {
            return Err(ListError::new(item, Problem::NotANumber));
        };
        let (low, high) = self.bounds();
        for id in [from, to] {
            if !(low..=high).contains(&id) {
                return Err(ListError::new(item, Problem::OutOfRange(self, id)));
            }
        }
        if from > to {
            return Err(ListError::new(item, Problem::Backwards(from, to)));
        }
        Ok((from, to))
    }
}

/// Reads a list of kinds: `chess960,dfrc` (any case).
///
/// # Errors
///
/// [`ListError`], naming the first item that is no kind.
pub fn kinds(list: &str) -> Result<Vec<Kind>, ListError> {
    let mut kinds = Vec::new();
    for item in items(list)? {
        let kind = item
            .parse::<Kind>()
            .map_err(|err| ListError::new(item, Problem::Kind(err)))?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Ok(kinds)
}

/// Reads a list of reasons a result was not played:
/// `abandoned,rules_infraction` (any case).
///
/// # Errors
///
/// [`ListError`], naming the first item that is no reason.
pub fn reasons(list: &str) -> Result<Vec<Unplayed>, ListError> {
    let mut reasons = Vec::new();
    for item in items(list)? {
        let reason = item
            .parse::<Unplayed>()
            .map_err(|err| ListError::new(item, Problem::Reason(err)))?;
        if !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    Ok(reasons)
}

/// Reads a list of `validate`'s codes and severities
/// (`error,variant_missing`, any case): the codes they name, a severity
/// standing for all of its codes.
///
/// ```
/// use pgn960::filter::codes;
/// use pgn960::validate::{Code, Severity};
///
/// let named = codes("info, fen_conflict")?;
/// assert_eq!(named, [Code::FenConflict, Code::VariantSpelling]);
/// let errors = codes("error")?;
/// assert!(errors.iter().all(|code| code.severity() == Severity::Error));
/// # Ok::<_, pgn960::filter::ListError>(())
/// ```
///
/// # Errors
///
/// [`ListError`], naming the first item that is neither.
pub fn codes(list: &str) -> Result<Vec<Code>, ListError> {
    let mut wanted = Vec::new();
    for item in items(list)? {
        let severity = [Severity::Error, Severity::Warning, Severity::Info]
            .into_iter()
            .find(|severity| severity.as_str().eq_ignore_ascii_case(item));
        let named: Vec<Code> = match severity {
            Some(severity) => Code::ALL
                .iter()
                .copied()
                .filter(|code| code.severity() == severity)
                .collect(),
            None => Code::ALL
                .iter()
                .copied()
                .filter(|code| code.name().eq_ignore_ascii_case(item))
                .collect(),
        };
        if named.is_empty() {
            return Err(ListError::new(item, Problem::Finding));
        }
        wanted.extend(named);
    }
    // In the order of `Code::ALL`, once each.
    Ok(Code::ALL
        .iter()
        .copied()
        .filter(|code| wanted.contains(code))
        .collect())
}

/// The items of a list, trimmed; an empty item is an error.
fn items(list: &str) -> Result<Vec<&str>, ListError> {
    list.split(',')
        .map(str::trim)
        .map(|item| {
            if item.is_empty() {
                Err(ListError::new(item, Problem::Empty))
            } else {
                Ok(item)
            }
        })
        .collect()
}

/// An item of a list that is not what the list holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListError {
    /// The item, trimmed (empty for an empty item).
    pub item: String,
    problem: Problem,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Problem {
    Empty,
    NotANumber,
    OutOfRange(Numbering, u32),
    Backwards(u32, u32),
    Arrangement(BackRankError),
    Kind(UnknownKind),
    Reason(UnknownReason),
    Finding,
}

impl ListError {
    fn new(item: &str, problem: Problem) -> ListError {
        ListError {
            item: item.to_string(),
            problem,
        }
    }
}

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let item = &self.item;
        match &self.problem {
            Problem::Empty => f.write_str("an empty item (two commas in a row, or one at an end)"),
            Problem::NotANumber => write!(
                f,
                "{item:?} is not a number or a range of numbers (like 700-759)"
            ),
            Problem::OutOfRange(numbering, id) => {
                let (name, (low, high)) = match numbering {
                    Numbering::Scharnagl => ("Scharnagl", numbering.bounds()),
                    Numbering::Fritz9 => ("Fritz9", numbering.bounds()),
                };
                let number = if *id == u32::MAX {
                    "a number that long".to_string()
                } else {
                    id.to_string()
                };
                if item.contains('-') {
                    write!(
                        f,
                        "{item:?}: {number} is not a {name} number ({low}-{high})"
                    )
                } else {
                    write!(f, "{number} is not a {name} number ({low}-{high})")
                }
            }
            Problem::Backwards(from, to) => {
                write!(f, "{item:?} runs backwards (write {to}-{from})")
            }
            Problem::Arrangement(err) => write!(f, "{item:?}: {err}"),
            Problem::Kind(err) => err.fmt(f),
            Problem::Reason(err) => err.fmt(f),
            Problem::Finding => {
                let codes: Vec<&str> = Code::ALL.iter().map(|code| code.name()).collect();
                write!(
                    f,
                    "{item:?} is no severity (error, warning, info) or code of validate ({})",
                    codes.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for ListError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(set: &PositionSet) -> Vec<u16> {
        set.iter().map(|rank| rank.scharnagl()).collect()
    }

    #[test]
    fn numbers_and_ranges_both_ways() {
        let set = PositionSet::scharnagl("7, 0,518 ,3-5,5-5").unwrap();
        assert_eq!(ids(&set), [0, 3, 4, 5, 7, 518]);
        assert_eq!(PositionSet::scharnagl("0-959").unwrap(), PositionSet::all());
        // Fritz9 359 is the standard array, 1 is BBNNQRKR.
        let set = PositionSet::fritz9("359,1").unwrap();
        let expected = [
            BackRank::STANDARD,
            BackRank::from_ascii(b"BBNNQRKR").unwrap(),
        ];
        assert_eq!(set.len(), 2);
        assert!(expected.iter().all(|rank| set.contains(*rank)));
        assert_eq!(PositionSet::fritz9("1-960").unwrap(), PositionSet::all());
        let set = PositionSet::arrangements("rnbqkbnr, BBQNNRKR").unwrap();
        assert_eq!(ids(&set), [0, 518]);
        assert!(set.intersection(&PositionSet::scharnagl("1-959").unwrap()) != set);
        assert_eq!(
            ids(&set.intersection(&PositionSet::scharnagl("1-959").unwrap())),
            [518]
        );
        // Shown by Scharnagl number; none left once the sets share none.
        assert_eq!(format!("{set:?}"), "{0, 518}");
        assert!(!set.is_empty());
        let none = set.intersection(&PositionSet::scharnagl("1-517").unwrap());
        assert!(none.is_empty(), "{none:?}");
        assert_eq!(none.len(), 0);
        assert!(!PositionSet::all().is_empty());
    }

    #[test]
    fn errors_name_the_item_at_fault() {
        let message = |result: Result<PositionSet, ListError>| result.unwrap_err().to_string();
        assert_eq!(
            message(PositionSet::scharnagl("0,960")),
            "960 is not a Scharnagl number (0-959)"
        );
        assert_eq!(
            message(PositionSet::scharnagl("900-960")),
            "\"900-960\": 960 is not a Scharnagl number (0-959)"
        );
        assert_eq!(
            message(PositionSet::fritz9("0")),
            "0 is not a Fritz9 number (1-960)"
        );
        assert_eq!(
            message(PositionSet::scharnagl("99999999999")),
            "a number that long is not a Scharnagl number (0-959)"
        );
        assert_eq!(
            message(PositionSet::scharnagl("759-700")),
            "\"759-700\" runs backwards (write 700-759)"
        );
        for bad in ["-1", "1-", "+5", "a", "1-2-3", "0x10", "1 2"] {
            assert_eq!(
                message(PositionSet::scharnagl(bad)),
                format!("{bad:?} is not a number or a range of numbers (like 700-759)"),
            );
        }
        for bad in ["", "1,", ",1", "1,,2", " , "] {
            assert!(message(PositionSet::scharnagl(bad)).starts_with("an empty item"));
        }
        assert_eq!(
            message(PositionSet::arrangements("RNBQKBNR,RNBQKNBR")),
            "\"RNBQKNBR\": bishops on squares of the same colour (files c and g)"
        );
        let err = kinds("chess960,set-up").unwrap_err();
        assert_eq!(err.item, "set-up");
        assert!(err.to_string().contains("is no kind"), "{err}");
        let err = codes("error,fen_unparseable").unwrap_err().to_string();
        assert!(
            err.starts_with("\"fen_unparseable\" is no severity (error, warning, info) or code of validate (fen_unparsable,"),
            "{err}"
        );
    }

    #[test]
    fn kinds_and_codes_read_in_any_case_once_each() {
        assert_eq!(
            kinds("DFRC, chess960,dfrc").unwrap(),
            [Kind::Dfrc, Kind::Chess960]
        );
        let all = codes("Error,WARNING,info,illegal_move").unwrap();
        assert_eq!(all, Code::ALL);
        assert_eq!(codes("ILLEGAL_MOVE").unwrap(), [Code::IllegalMove]);
    }
}
