//! What `stats` reads of each game besides its start: the result, the
//! ratings, and the group it falls into.

use crate::game::{Known, Reading, is_named, tag_value};
use crate::split::{Batch, Game};

/// A finished game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// `1-0`
    WhiteWins,
    /// `1/2-1/2`
    Draw,
    /// `0-1`
    BlackWins,
}

/// What stats needs to know of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameFacts {
    /// The result, when finished.
    pub result: Option<GameResult>,
    /// `WhiteElo`, when a rating (see [`parse_elo`]).
    pub white_elo: Option<i32>,
    /// `BlackElo`, when a rating.
    pub black_elo: Option<i32>,
}

impl GameFacts {
    /// Reads a game's result and ratings from its tags (the last tag of a
    /// name wins).
    pub fn of(batch: &Batch, reading: &Reading) -> GameFacts {
        let value = |known| {
            reading
                .headers
                .get(known)
                .map(|tag| tag_value(batch, &batch.tags[tag]))
        };
        GameFacts {
            result: value(Known::Result).and_then(|v| parse_result(&v)),
            white_elo: value(Known::WhiteElo).and_then(|v| parse_elo(&v)),
            black_elo: value(Known::BlackElo).and_then(|v| parse_elo(&v)),
        }
    }
}

/// A `Result` value: `1-0`, `0-1` or `1/2-1/2` (surrounding spaces
/// ignored); anything else is no finished game.
pub fn parse_result(value: &[u8]) -> Option<GameResult> {
    match value.trim_ascii() {
        b"1-0" => Some(GameResult::WhiteWins),
        b"0-1" => Some(GameResult::BlackWins),
        b"1/2-1/2" => Some(GameResult::Draw),
        _ => None,
    }
}

/// The ratings a rating tag may hold: anything outside (`0` for
/// "unrated", `-`, `?`, a number no player or engine has) is no rating.
pub const ELO_RANGE: std::ops::RangeInclusive<i32> = 1..=4000;

/// A rating tag's value: an integer in [`ELO_RANGE`] (surrounding spaces
/// ignored), else none.
///
/// ```
/// use pgn960::stats::parse_elo;
///
/// assert_eq!(parse_elo(b" 2710 "), Some(2710));
/// assert_eq!(parse_elo(b"-2000000000"), None);
/// assert_eq!(parse_elo(b"0"), None);
/// ```
pub fn parse_elo(value: &[u8]) -> Option<i32> {
    let elo: i32 = std::str::from_utf8(value.trim_ascii()).ok()?.parse().ok()?;
    ELO_RANGE.contains(&elo).then_some(elo)
}

/// How games are grouped into rows besides their position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupBy {
    /// The value of a tag, named in any case.
    Tag(String),
    /// The year of the `Date` tag.
    Year,
}

/// The group of a game whose value is unknown: the tag is missing or
/// empty, or (for `year`) its Date does not start with four digits. PGN's
/// own mark for an unknown value.
pub const UNKNOWN_GROUP: &str = "?";

impl GroupBy {
    /// `year` (in any case) groups by the year of `Date`; any other word
    /// names a tag.
    pub fn from_arg(arg: &str) -> GroupBy {
        if arg.eq_ignore_ascii_case("year") {
            GroupBy::Year
        } else {
            GroupBy::Tag(arg.to_string())
        }
    }

    /// The group of a game (see [`UNKNOWN_GROUP`]).
    pub fn group_of(&self, batch: &Batch, game: &Game, reading: &Reading) -> String {
        let tag = match self {
            GroupBy::Year => reading.headers.get(Known::Date),
            GroupBy::Tag(name) => batch
                .tags_of(game)
                .iter()
                .rposition(|tag| is_named(batch, tag, name))
                .map(|i| game.tags.start + i),
        };
        let value = tag.map(|tag| tag_value(batch, &batch.tags[tag]));
        let group = match (self, value) {
            (_, None) => None,
            (GroupBy::Tag(_), Some(value)) => {
                (!value.is_empty()).then(|| String::from_utf8_lossy(&value).into_owned())
            }
            (GroupBy::Year, Some(value)) => {
                year_digits(&value).map(|year| String::from_utf8_lossy(year).into_owned())
            }
        };
        group.unwrap_or_else(|| UNKNOWN_GROUP.to_string())
    }
}

/// The year of a `Date` value: its first four bytes, when they are
/// digits (`2024.05.??` is 2024; `????.??.??` has none).
fn year_digits(date: &[u8]) -> Option<&[u8]> {
    date.get(..4)
        .filter(|year| year.iter().all(u8::is_ascii_digit))
}

/// The year of a `Date` value as a number, by the rule of `--group-by
/// year`: its first four bytes, when they are digits.
///
/// ```
/// use pgn960::stats::parse_year;
///
/// assert_eq!(parse_year(b"2024.05.??"), Some(2024));
/// assert_eq!(parse_year(b"????.??.??"), None);
/// assert_eq!(parse_year(b"24.05.2024"), None);
/// ```
pub fn parse_year(date: &[u8]) -> Option<i32> {
    year_digits(date).map(|year| {
        year.iter()
            .fold(0, |n, digit| n * 10 + i32::from(digit - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    #[test]
    fn a_year_is_the_first_four_digits_of_a_date() {
        for (date, year) in [
            (&b"2024.05.??"[..], Some(2024)),
            (b"1851.??.??", Some(1851)),
            (b"0999", Some(999)),
            (b"????.??.??", None),
            (b"24.05.2024", None),
            (b"202", None),
            (b"", None),
        ] {
            assert_eq!(
                parse_year(date),
                year,
                "{:?}",
                String::from_utf8_lossy(date)
            );
        }
    }

    /// The groups of every game of `pgn`, in order.
    fn groups(pgn: &str, by: &str) -> Vec<String> {
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        let group_by = GroupBy::from_arg(by);
        batch
            .games
            .iter()
            .map(|game| group_by.group_of(&batch, game, &Reading::of(&batch, game)))
            .collect()
    }

    #[test]
    fn a_games_group_is_its_own_last_tag_of_the_name() {
        let pgn = "[Event \"a\"]\n[Date \"2019.01.01\"]\n[Site \"x\"]\n\n*\n\n\
                   [Event \"b\"]\n[Site \"y\"]\n[Date \"????.??.??\"]\n[site \"z\"]\n\n*\n\n\
                   [Event \"c\"]\n[Site \"\"]\n\n*\n";
        assert_eq!(groups(pgn, "Site"), ["x", "z", UNKNOWN_GROUP]);
        assert_eq!(groups(pgn, "year"), ["2019", UNKNOWN_GROUP, UNKNOWN_GROUP]);
        assert_eq!(groups(pgn, "Event"), ["a", "b", "c"]);
    }
}
