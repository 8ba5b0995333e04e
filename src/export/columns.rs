//! The columns of `games`, as data: their names, their types, and the
//! tags the user adds with `--tags`. Every writer (CSV, JSON lines,
//! Parquet) walks the same list, so the three formats cannot drift apart.

use std::borrow::Cow;
use std::fmt;

use crate::game::Known;

/// A column's type: every writer stores it its own way (Parquet as typed
/// columns, JSON as numbers and strings, CSV as text), `null` where a
/// value is absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// A 64-bit integer (game numbers and byte offsets).
    Int64,
    /// A 32-bit integer (position numbers, years, ratings, plies).
    Int32,
    /// UTF-8 text.
    Text,
}

/// One of the fixed columns, in the order they are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// The input's name as given on the command line (`<stdin>` for
    /// standard input).
    File,
    /// The game's 1-based index in its input.
    Game,
    /// Where the game's bytes start in the (decompressed) input.
    Offset,
    /// How many bytes the game has, trailing bytes included.
    Length,
    /// The game's first line (that of its first tag).
    Line,
    /// The game's [`Kind`](crate::game::Kind), by name.
    Kind,
    /// The Scharnagl number of a `chess960` or `standard` game.
    Scharnagl,
    /// The Fritz9 number of a `chess960` or `standard` game.
    Fritz9,
    /// The arrangement of a `chess960` or `standard` game (`RNBQKBNR`).
    Position,
    /// White's back rank's Scharnagl number, for any start array.
    WhiteScharnagl,
    /// Black's back rank's Scharnagl number, for any start array.
    BlackScharnagl,
    /// A tag's value as written.
    Tag(Known),
    /// The year of `Date` (its first four digits).
    Year,
    /// `WhiteElo` when it is a rating.
    WhiteElo,
    /// `BlackElo` when it is a rating.
    BlackElo,
    /// Mainline moves, counted by the movetext lexer.
    Plies,
    /// The last `Chess960Id` tag's value as written.
    Chess960Id,
    /// Why the game's result was not played
    /// ([`Unplayed`](crate::game::Unplayed), by name; null when played).
    Unplayed,
    /// The game's [`Fingerprint`](crate::game::Fingerprint), as 32
    /// hexadecimal digits (with `--duplicates`).
    Fingerprint,
    /// The input of the game's first occurrence in the run, when the game
    /// repeats one read before (with `--duplicates`).
    DuplicateOfFile,
    /// The index in its input of the game's first occurrence in the run,
    /// when the game repeats one read before (with `--duplicates`).
    DuplicateOfGame,
}

/// The fixed columns, in order.
pub const COLUMNS: [Column; 29] = [
    Column::File,
    Column::Game,
    Column::Offset,
    Column::Length,
    Column::Line,
    Column::Kind,
    Column::Scharnagl,
    Column::Fritz9,
    Column::Position,
    Column::WhiteScharnagl,
    Column::BlackScharnagl,
    Column::Tag(Known::Variant),
    Column::Tag(Known::Event),
    Column::Tag(Known::Site),
    Column::Tag(Known::Date),
    Column::Year,
    Column::Tag(Known::Round),
    Column::Tag(Known::White),
    Column::Tag(Known::Black),
    Column::Tag(Known::Result),
    Column::WhiteElo,
    Column::BlackElo,
    Column::Tag(Known::TimeControl),
    Column::Tag(Known::Termination),
    Column::Tag(Known::Eco),
    Column::Tag(Known::Opening),
    Column::Plies,
    Column::Chess960Id,
    Column::Unplayed,
];

/// The columns that follow the fixed ones with `--duplicates`, in order.
pub const DUPLICATE_COLUMNS: [Column; 3] = [
    Column::Fingerprint,
    Column::DuplicateOfFile,
    Column::DuplicateOfGame,
];

impl Column {
    /// The column's name: lower case, words joined by `_`.
    pub fn name(self) -> &'static str {
        match self {
            Column::File => "file",
            Column::Game => "game",
            Column::Offset => "offset",
            Column::Length => "length",
            Column::Line => "line",
            Column::Kind => "kind",
            Column::Scharnagl => "scharnagl",
            Column::Fritz9 => "fritz9",
            Column::Position => "position",
            Column::WhiteScharnagl => "white_scharnagl",
            Column::BlackScharnagl => "black_scharnagl",
            Column::Tag(known) => tag_column_name(known),
            Column::Year => "year",
            Column::WhiteElo => "white_elo",
            Column::BlackElo => "black_elo",
            Column::Plies => "plies",
            Column::Chess960Id => "chess960_id",
            Column::Unplayed => "unplayed",
            Column::Fingerprint => "fingerprint",
            Column::DuplicateOfFile => "duplicate_of_file",
            Column::DuplicateOfGame => "duplicate_of_game",
        }
    }

    /// The column's type.
    pub fn column_type(self) -> ColumnType {
        match self {
            Column::Game
            | Column::Offset
            | Column::Length
            | Column::Line
            | Column::DuplicateOfGame => ColumnType::Int64,
            Column::Scharnagl
            | Column::Fritz9
            | Column::WhiteScharnagl
            | Column::BlackScharnagl
            | Column::Year
            | Column::WhiteElo
            | Column::BlackElo
            | Column::Plies => ColumnType::Int32,
            Column::File
            | Column::Kind
            | Column::Position
            | Column::Tag(_)
            | Column::Chess960Id
            | Column::Unplayed
            | Column::Fingerprint
            | Column::DuplicateOfFile => ColumnType::Text,
        }
    }

    /// The tag whose value the column holds (or is read from), if any.
    fn tag_name(self) -> Option<&'static str> {
        match self {
            Column::Tag(known) => Some(known.name()),
            Column::Year => Some("Date"),
            Column::WhiteElo => Some("WhiteElo"),
            Column::BlackElo => Some("BlackElo"),
            Column::Chess960Id => Some("Chess960Id"),
            _ => None,
        }
    }
}

fn tag_column_name(known: Known) -> &'static str {
    match known {
        Known::Event => "event",
        Known::Site => "site",
        Known::Date => "date",
        Known::Round => "round",
        Known::White => "white",
        Known::Black => "black",
        Known::Result => "result",
        Known::WhiteElo => "white_elo",
        Known::BlackElo => "black_elo",
        Known::TimeControl => "time_control",
        Known::Termination => "termination",
        Known::Eco => "eco",
        Known::Opening => "opening",
        Known::Variant => "variant",
        Known::SetUp => "setup",
        Known::TerminationDetails => "termination_details",
    }
}

/// One value of a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// No value: the tag is absent, or does not read as the column's type.
    Null,
    /// An integer, of a column of type [`ColumnType::Int64`] or
    /// [`ColumnType::Int32`].
    Int(i64),
    /// Text, of a column of type [`ColumnType::Text`].
    Text(Cow<'a, str>),
}

/// All the columns of a run: the fixed ones, the duplicate columns when
/// asked for ([`Schema::with_duplicates`]), then one per tag named with
/// `--tags`, named as given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schema {
    extra: Vec<String>,
    duplicates: bool,
}

/// A `--tags` name that cannot be a column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaError {
    /// Not a PGN tag name (letters, digits and `_`).
    NotATagName(String),
    /// A tag that already has its column.
    HasAColumn {
        /// The name as given.
        name: String,
        /// The column that holds it.
        column: &'static str,
    },
    /// Named twice.
    Repeated(String),
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaError::NotATagName(name) => write!(
                f,
                "{name:?} is not a tag name (letters, digits and underscores)"
            ),
            SchemaError::HasAColumn { name, column } => {
                write!(f, "{name} is already the column `{column}`")
            }
            SchemaError::Repeated(name) => write!(f, "{name} is named twice"),
        }
    }
}

impl std::error::Error for SchemaError {}

impl Schema {
    /// The fixed columns and one text column per tag of `extra`, named as
    /// given, in that order. Tag names are matched ignoring case, as
    /// writers differ; a tag that is named twice holds its last value.
    ///
    /// # Errors
    ///
    /// A name that is no PGN tag name, one that already has a column
    /// (`Event`, or `event`), or one named twice: the column names must be
    /// unique, ignoring case, for engines such as DuckDB.
    pub fn new(extra: Vec<String>) -> Result<Schema, SchemaError> {
        for (i, name) in extra.iter().enumerate() {
            let tag_name =
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !tag_name {
                return Err(SchemaError::NotATagName(name.clone()));
            }
            if let Some(column) = COLUMNS.iter().chain(&DUPLICATE_COLUMNS).find(|column| {
                column.name().eq_ignore_ascii_case(name)
                    || column
                        .tag_name()
                        .is_some_and(|tag| tag.eq_ignore_ascii_case(name))
            }) {
                return Err(SchemaError::HasAColumn {
                    name: name.clone(),
                    column: column.name(),
                });
            }
            if extra[..i]
                .iter()
                .any(|before| before.eq_ignore_ascii_case(name))
            {
                return Err(SchemaError::Repeated(name.clone()));
            }
        }
        Ok(Schema {
            extra,
            duplicates: false,
        })
    }

    /// The same columns, with the duplicate columns ([`DUPLICATE_COLUMNS`])
    /// after the fixed ones when `duplicates` is true.
    pub fn with_duplicates(self, duplicates: bool) -> Schema {
        Schema { duplicates, ..self }
    }

    /// Whether the rows have the duplicate columns.
    pub fn duplicates(&self) -> bool {
        self.duplicates
    }

    /// The tags named with `--tags`, in order.
    pub fn extra_tags(&self) -> &[String] {
        &self.extra
    }

    /// Every column's name and type, in order.
    pub fn columns(&self) -> impl Iterator<Item = (&str, ColumnType)> {
        let duplicates = if self.duplicates {
            &DUPLICATE_COLUMNS[..]
        } else {
            &[]
        };
        COLUMNS
            .iter()
            .chain(duplicates)
            .map(|column| (column.name(), column.column_type()))
            .chain(
                self.extra
                    .iter()
                    .map(|name| (name.as_str(), ColumnType::Text)),
            )
    }

    /// How many columns there are.
    pub fn len(&self) -> usize {
        let duplicates = if self.duplicates {
            DUPLICATE_COLUMNS.len()
        } else {
            0
        };
        COLUMNS.len() + duplicates + self.extra.len()
    }

    /// Whether there are no columns: never.
    pub fn is_empty(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let schema = Schema::default();
        let names: Vec<&str> = schema.columns().map(|(name, _)| name).collect();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[..i].contains(name), "{name} twice");
        }
        assert_eq!(schema.len(), 29);
        let schema = Schema::new(vec!["Annotator".into()])
            .unwrap()
            .with_duplicates(true);
        let names: Vec<&str> = schema.columns().map(|(name, _)| name).collect();
        assert_eq!(schema.len(), names.len());
        assert_eq!(
            names[28..],
            [
                "unplayed",
                "fingerprint",
                "duplicate_of_file",
                "duplicate_of_game",
                "Annotator"
            ]
        );
    }

    #[test]
    fn tags_that_cannot_be_columns_are_refused() {
        let new = |names: &[&str]| Schema::new(names.iter().map(|n| n.to_string()).collect());
        assert!(new(&["WhiteFideId", "Annotator", "FEN", "SetUp"]).is_ok());
        assert_eq!(
            new(&["EVENT"]).unwrap_err().to_string(),
            "EVENT is already the column `event`"
        );
        assert_eq!(
            new(&["TimeControl"]).unwrap_err().to_string(),
            "TimeControl is already the column `time_control`"
        );
        assert_eq!(
            new(&["chess960id"]).unwrap_err().to_string(),
            "chess960id is already the column `chess960_id`"
        );
        assert_eq!(
            new(&["Plies"]).unwrap_err().to_string(),
            "Plies is already the column `plies`"
        );
        assert_eq!(
            new(&["A", "a"]).unwrap_err(),
            SchemaError::Repeated("a".into())
        );
        assert_eq!(
            new(&["Duplicate_Of_Game"]).unwrap_err().to_string(),
            "Duplicate_Of_Game is already the column `duplicate_of_game`"
        );
        assert!(matches!(new(&[""]), Err(SchemaError::NotATagName(_))));
        assert!(matches!(
            new(&["White Elo"]),
            Err(SchemaError::NotATagName(_))
        ));
    }
}
