//! One game's row, read from its [`Reading`], its tags and its movetext:
//! everything of a game that does not depend on where its batch lies in
//! the input (that is [`RowOrder`](super::RowOrder)'s business); and
//! [`RowWriter`], what every format writes rows through.

use std::borrow::Cow;
use std::fmt;
use std::io;
use std::sync::{Arc, OnceLock};

use crate::game::{Fingerprint, Kind, Known, Reading, Start, Unplayed, is_named, tag_value};
use crate::movetext::mainline_plies;
use crate::position::{BackRank, StartArray};
use crate::split::{Batch, Game, LineCounter};
use crate::stats::{parse_elo, parse_year};

use super::columns::{COLUMNS, Column, DUPLICATE_COLUMNS, Schema, Value};

/// How many names [`Known`] has: the text of each is kept by its index.
const KNOWN_TAGS: usize = 16;

/// The slot of the last `Chess960Id` value; the `--tags` values follow.
const CHESS960_ID: u32 = KNOWN_TAGS as u32;

/// The slot of the fingerprint, as 32 hexadecimal digits, with the
/// duplicate columns (see [`RowText`]).
const FINGERPRINT: u32 = u32::MAX;

/// One text value of a row: which it is (a [`Known`] tag by its index,
/// [`CHESS960_ID`], the `--tags` value of index `slot - CHESS960_ID -
/// 1`, or the [`FINGERPRINT`]) and where it lies in [`RowText::text`]: `start..end`.
#[derive(Clone, Copy, Debug)]
struct TextValue {
    slot: u32,
    start: u32,
    end: u32,
}

/// The text values of the rows of one batch, one after another: one
/// allocation a batch, shared by its rows. Only the values a game has are
/// kept, so that a row of a game with few tags is small: a megabyte of
/// tiny games is 65,000 rows.
///
/// Rows are read on the workers and dropped on the writer's thread. With
/// an allocation a row, each of those frees waited on the lock of the
/// worker's glibc arena while the workers allocated (about 5% of `games`'
/// CPU, in `perf`).
#[derive(Debug, Default)]
pub(super) struct RowText {
    text: String,
    /// Every row's values, row after row.
    values: Vec<TextValue>,
    /// How many tags were named with `--tags`: the same for every row
    /// of a batch (kept here, a row stays small).
    extra: u32,
    /// Whether the rows have the duplicate columns (the same for every
    /// row of a batch). A row's fingerprint is then one of its text
    /// values: a batch's rows share one allocation, which the pipeline
    /// counts, where a value of its own for each row would not be.
    duplicates: bool,
    /// A buffer the fingerprints are hashed from, emptied before the
    /// text is shared.
    scratch: Vec<u8>,
}

impl RowText {
    /// The rows' text, set once the last of them is read: a row holds it
    /// from the start, and every row of a batch holds the same one.
    pub(super) fn shared() -> Arc<OnceLock<RowText>> {
        Arc::new(OnceLock::new())
    }

    /// Becomes the text of `shared`, once every row of its batch is read.
    pub(super) fn share(mut self, shared: &OnceLock<RowText>) {
        self.scratch = Vec::new();
        shared.set(self).expect("a batch's text is set once");
    }

    /// Appends the value of `slot`, bytes that are not UTF-8 as U+FFFD.
    fn push(&mut self, slot: u32, value: &[u8]) {
        let start = self.text.len();
        match std::str::from_utf8(value) {
            Ok(value) => self.text.push_str(value),
            Err(_) => self.text.push_str(&String::from_utf8_lossy(value)),
        }
        let at = |at: usize| u32::try_from(at).expect("a batch's tags are under 4 GiB");
        self.values.push(TextValue {
            slot,
            start: at(start),
            end: at(self.text.len()),
        });
    }

    /// How many values there are so far.
    fn len(&self) -> u32 {
        u32::try_from(self.values.len()).expect("a batch holds under 4 G tag values")
    }
}

/// One game's row.
#[derive(Clone)]
pub struct GameRow {
    /// The game's 1-based index in its input.
    pub game: u64,
    /// Where the game starts in its input; within its batch until placed
    /// by [`RowOrder`](super::RowOrder).
    pub offset: u64,
    /// The game's bytes; for a game read in pieces, the first piece's until
    /// placed.
    pub length: u64,
    /// The game's first line; within its batch until placed.
    pub line: u64,
    /// What the game is.
    pub kind: Kind,
    /// The array both sides start from, for a `chess960` or `standard` game.
    pub position: Option<Position>,
    /// Each side's back rank's Scharnagl number, for any start array
    /// (Double FRC included).
    pub back_ranks: Option<(u16, u16)>,
    /// The text values of the row's batch (see [`RowText`]).
    batch_text: Arc<OnceLock<RowText>>,
    /// Where the row's text values lie in [`RowText::values`]:
    /// `start..end`. They are those of the known tags with a column of
    /// their own (the last of each name), the last `Chess960Id`, and the
    /// `--tags` tags, each only when the game has it.
    values: (u32, u32),
    /// The year of `Date`.
    pub year: Option<i32>,
    /// `WhiteElo`, when a rating.
    pub white_elo: Option<i32>,
    /// `BlackElo`, when a rating.
    pub black_elo: Option<i32>,
    /// Mainline moves; `None` for a game too long to hold, read in pieces.
    pub plies: Option<u32>,
    /// Why the game's result was not played; `None` when it was.
    pub unplayed: Option<Unplayed>,
    /// The input and index of the game's first occurrence, when it
    /// repeats a game read before and the row has the duplicate columns
    /// (set as the row is written; boxed: a row stays as small as it was).
    duplicate_of: Option<Box<(Arc<str>, u64)>>,
}

impl GameRow {
    /// Reads a game of a batch; `lines` counts the batch's lines (asked in
    /// the order of its games).
    pub fn read(batch: &Batch, game: &Game, schema: &Schema, lines: &LineCounter<'_>) -> GameRow {
        let shared = RowText::shared();
        let mut text = RowText::default();
        let row = GameRow::read_into(batch, game, schema, lines, &shared, &mut text);
        text.share(&shared);
        row
    }

    /// Reads a game of a batch, its text values into `text`, which becomes
    /// `shared`'s once every row of the batch has been read.
    pub(super) fn read_into(
        batch: &Batch,
        game: &Game,
        schema: &Schema,
        lines: &LineCounter<'_>,
        shared: &Arc<OnceLock<RowText>>,
        text: &mut RowText,
    ) -> GameRow {
        let reading = Reading::of(batch, game);
        let value = |known| {
            reading
                .headers
                .get(known)
                .map(|tag| tag_value(batch, &batch.tags[tag]))
        };
        let first = text.len();
        for column in COLUMNS {
            if let Column::Tag(name) = column
                && let Some(value) = value(name)
            {
                text.push(name as u32, &value);
            }
        }
        if let Some(id) = reading.headers.ids().iter().rev().find(|id| !id.fritz9) {
            text.push(CHESS960_ID, &tag_value(batch, &batch.tags[id.tag]));
        }
        extra_tags(batch, game, schema, text);
        text.extra = u32::try_from(schema.extra_tags().len()).expect("under 4 G tags named");
        let position = reading.back_rank().map(Position::of);
        text.duplicates = schema.duplicates();
        if text.duplicates
            && let Some(fingerprint) = Fingerprint::of(batch, game, &reading, &mut text.scratch)
        {
            text.push(FINGERPRINT, fingerprint.hex().as_bytes());
        }
        GameRow {
            game: game.index,
            offset: game.range.start as u64,
            length: game.range.len() as u64,
            line: lines.line_of(batch.first_line_start(game)),
            kind: reading.kind,
            position,
            back_ranks: back_ranks(&reading, position),
            year: value(Known::Date).and_then(|date| parse_year(&date)),
            white_elo: value(Known::WhiteElo).and_then(|elo| parse_elo(&elo)),
            black_elo: value(Known::BlackElo).and_then(|elo| parse_elo(&elo)),
            plies: plies(batch, game),
            unplayed: reading.unplayed(batch),
            values: (first, text.len()),
            batch_text: Arc::clone(shared),
            duplicate_of: None,
        }
    }

    /// The game's fingerprint, when the row has the duplicate columns
    /// (`None` for a game read in pieces, never taken for a copy).
    pub fn fingerprint(&self) -> Option<Fingerprint> {
        let hex = self.text(FINGERPRINT)?;
        let value = u128::from_str_radix(hex, 16).expect("a fingerprint is written in hexadecimal");
        Some(Fingerprint(value))
    }

    /// The input and index of the game's first occurrence, when the game
    /// repeats one read before: the columns `duplicate_of_file` and
    /// `duplicate_of_game`.
    pub fn duplicate_of(&self) -> Option<(&str, u64)> {
        let (file, game) = self.duplicate_of.as_deref()?;
        Some((file, *game))
    }

    /// Notes that the game repeats game `game` of input `file`, read
    /// before (a row without the duplicate columns is left as it is).
    pub fn set_duplicate_of(&mut self, file: Arc<str>, game: u64) {
        if self.batch_text().duplicates {
            self.duplicate_of = Some(Box::new((file, game)));
        }
    }

    /// The bytes of the text this row shares with the rows of its batch.
    pub(super) fn batch_text_bytes(&self) -> usize {
        let text = self.batch_text();
        text.text.capacity() + text.values.capacity() * std::mem::size_of::<TextValue>()
    }

    fn batch_text(&self) -> &RowText {
        self.batch_text
            .get()
            .expect("a row's text is set once its batch is read")
    }

    /// The text of `slot`, when the row has it.
    fn text(&self, slot: u32) -> Option<&str> {
        let text = self.batch_text();
        let (start, end) = self.values;
        let values = &text.values[start as usize..end as usize];
        let value = values.iter().find(|value| value.slot == slot)?;
        Some(&text.text[value.start as usize..value.end as usize])
    }

    /// The value of a known tag with a column of its own.
    pub fn tag(&self, known: Known) -> Option<&str> {
        self.text(known as u32)
    }

    /// The last `Chess960Id` tag's value.
    pub fn chess960_id(&self) -> Option<&str> {
        self.text(CHESS960_ID)
    }

    /// The values of the tags named with `--tags`, in order.
    pub fn extra_tags(&self) -> impl Iterator<Item = Option<&str>> {
        (0..self.batch_text().extra).map(|i| self.text(CHESS960_ID + 1 + i))
    }

    /// The value of a fixed column, for a game of input `file`.
    pub fn value<'a>(&'a self, column: Column, file: &'a str) -> Value<'a> {
        let int = |n: Option<i64>| n.map_or(Value::Null, Value::Int);
        let position = &self.position;
        match column {
            Column::File => Value::Text(Cow::Borrowed(file)),
            Column::Game => Value::Int(self.game as i64),
            Column::Offset => Value::Int(self.offset as i64),
            Column::Length => Value::Int(self.length as i64),
            Column::Line => Value::Int(self.line as i64),
            Column::Kind => Value::Text(Cow::Borrowed(self.kind.name())),
            Column::Scharnagl => int(position.map(|p| i64::from(p.scharnagl))),
            Column::Fritz9 => int(position.map(|p| i64::from(p.fritz9))),
            Column::Position => position
                .as_ref()
                .map_or(Value::Null, |p| Value::Text(Cow::Borrowed(p.arrangement()))),
            Column::WhiteScharnagl => int(self.back_ranks.map(|(white, _)| i64::from(white))),
            Column::BlackScharnagl => int(self.back_ranks.map(|(_, black)| i64::from(black))),
            Column::Tag(known) => self
                .tag(known)
                .map_or(Value::Null, |text| Value::Text(text.into())),
            Column::Year => int(self.year.map(i64::from)),
            Column::WhiteElo => int(self.white_elo.map(i64::from)),
            Column::BlackElo => int(self.black_elo.map(i64::from)),
            Column::Plies => int(self.plies.map(i64::from)),
            Column::Chess960Id => self
                .chess960_id()
                .map_or(Value::Null, |text| Value::Text(text.into())),
            Column::Unplayed => self.unplayed.map_or(Value::Null, |reason| {
                Value::Text(Cow::Borrowed(reason.name()))
            }),
            Column::Fingerprint => self
                .text(FINGERPRINT)
                .map_or(Value::Null, |hex| Value::Text(Cow::Borrowed(hex))),
            Column::DuplicateOfFile => self
                .duplicate_of()
                .map_or(Value::Null, |(file, _)| Value::Text(Cow::Borrowed(file))),
            Column::DuplicateOfGame => self
                .duplicate_of()
                .map_or(Value::Null, |(_, game)| Value::Int(game as i64)),
        }
    }

    /// Every value of the row, in the order of [`Schema::columns`].
    pub fn values<'a>(&'a self, file: &'a str) -> impl Iterator<Item = Value<'a>> {
        let duplicates = if self.batch_text().duplicates {
            &DUPLICATE_COLUMNS[..]
        } else {
            &[]
        };
        COLUMNS
            .iter()
            .chain(duplicates)
            .map(move |&column| self.value(column, file))
            .chain(
                self.extra_tags()
                    .map(|value| value.map_or(Value::Null, |text| Value::Text(text.into()))),
            )
    }
}

/// Rows are equal when their values are, whatever else the text of their
/// batches holds.
impl PartialEq for GameRow {
    fn eq(&self, other: &GameRow) -> bool {
        self.values("").eq(other.values(""))
    }
}

impl Eq for GameRow {}

impl fmt::Debug for GameRow {
    /// The values of the fixed columns but `file`, which a row does not
    /// know, and then the `--tags` values.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut row = f.debug_struct("GameRow");
        for (column, value) in COLUMNS.iter().zip(self.values("")).skip(1) {
            row.field(column.name(), &value);
        }
        row.field("fingerprint", &self.text(FINGERPRINT))
            .field("duplicate_of", &self.duplicate_of())
            .field("extra_tags", &self.extra_tags().collect::<Vec<_>>())
            .finish()
    }
}

/// A start position's numbers and arrangement, worked out once, on the
/// worker that reads the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The Scharnagl number, 0..=959.
    pub scharnagl: u16,
    /// The Fritz9 number, 1..=960.
    pub fritz9: u16,
    arrangement: [u8; 8],
}

impl Position {
    /// The numbers and arrangement of `rank`.
    pub fn of(rank: BackRank) -> Position {
        let mut arrangement = [0; 8];
        for (letter, role) in arrangement.iter_mut().zip(rank.roles()) {
            *letter = role.upper_char() as u8;
        }
        Position {
            scharnagl: rank.scharnagl(),
            fritz9: rank.fritz9(),
            arrangement,
        }
    }

    /// The arrangement, as `id` and `tag` write it: `RNBQKBNR`.
    pub fn arrangement(&self) -> &str {
        std::str::from_utf8(&self.arrangement).expect("piece letters are ASCII")
    }
}

/// Each side's back rank's number, where the game starts from a start
/// array: the one both share for `chess960` and `standard`, both of a
/// Double FRC.
fn back_ranks(reading: &Reading, position: Option<Position>) -> Option<(u16, u16)> {
    match (reading.kind, &reading.start) {
        (Kind::Dfrc, Start::Array(StartArray::DoubleFrc { white, black })) => {
            Some((white.scharnagl(), black.scharnagl()))
        }
        _ => position.map(|p| (p.scharnagl, p.scharnagl)),
    }
}

/// The mainline's moves, from the end of the game's last tag pair;
/// `None` for a game read in pieces, whose movetext is never whole.
fn plies(batch: &Batch, game: &Game) -> Option<u32> {
    if game.continued {
        return None;
    }
    let (start, starts_line) = batch.movetext_start(game);
    Some(mainline_plies(
        &batch.data[start..game.range.end],
        starts_line,
    ))
}

/// The values of the `--tags` tags the game has (the last of each name,
/// in any case) into `text`.
fn extra_tags(batch: &Batch, game: &Game, schema: &Schema, text: &mut RowText) {
    let names = schema.extra_tags();
    if names.is_empty() {
        return;
    }
    let mut tags = vec![None; names.len()];
    for tag in batch.tags_of(game) {
        if let Some(i) = names.iter().position(|name| is_named(batch, tag, name)) {
            tags[i] = Some(tag);
        }
    }
    for (i, tag) in tags.into_iter().enumerate() {
        if let Some(tag) = tag {
            let slot = u32::try_from(i).expect("under 4 G tags named");
            text.push(CHESS960_ID + 1 + slot, &tag_value(batch, tag));
        }
    }
}

/// Writes rows, in order, into `W`.
pub trait RowWriter<W> {
    /// Writes the row of a game of input `file`.
    ///
    /// # Errors
    ///
    /// When the output cannot be written.
    fn write_row(&mut self, file: &str, row: &GameRow) -> io::Result<()>;

    /// Ends the output (the Parquet footer; buffered bytes) and hands back
    /// the writer.
    ///
    /// # Errors
    ///
    /// When the output cannot be written.
    fn finish(self: Box<Self>) -> io::Result<W>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    fn rows(pgn: &[u8], schema: &Schema) -> Vec<GameRow> {
        let batch = GameReader::new(pgn).next_batch().unwrap().unwrap();
        let lines = LineCounter::new(&batch.data);
        batch
            .games
            .iter()
            .map(|game| GameRow::read(&batch, game, schema, &lines))
            .collect()
    }

    #[test]
    fn known_has_as_many_names_as_rows_keep() {
        assert_eq!(Known::TerminationDetails as usize, KNOWN_TAGS - 1);
    }

    #[test]
    fn a_chess960_game_and_a_double_frc_one() {
        let pgn = b"[Event \"E\"]\n[Date \"2024.05.??\"]\n[WhiteElo \"2710\"]\n[BlackElo \"-\"]\n\
[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n[Chess960Id \"7\"]\n\n\
1. e4 {a (comment} e5 (1... c5 2. c3) 2. Nf3 $1 Nc6 1-0\n\n\
[Event \"D\"]\n[Date \"????.??.??\"]\n\
[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n1. e4 *\n";
        let rows = rows(pgn, &Schema::default());
        let first = &rows[0];
        assert_eq!(first.kind, Kind::Chess960);
        assert_eq!(first.position.map(|p| p.scharnagl), Some(0));
        assert_eq!(first.tag(Known::Event), Some("E"));
        assert_eq!(
            (first.year, first.white_elo, first.black_elo),
            (Some(2024), Some(2710), None)
        );
        assert_eq!(first.plies, Some(4));
        assert_eq!(first.chess960_id(), Some("7"));
        assert_eq!(first.line, 1);
        let second = &rows[1];
        assert_eq!(
            (second.kind, second.position, second.year),
            (Kind::Dfrc, None, None)
        );
        assert_eq!(second.back_ranks, Some((518, 0)));
        assert_eq!(second.line, 10);
        assert_eq!(second.game, 2);
        assert_eq!(
            second.offset as usize,
            pgn.windows(11).position(|w| w == b"[Event \"D\"]").unwrap()
        );
        let values: Vec<Value<'_>> = second.values("f.pgn").collect();
        assert_eq!(values.len(), 29);
        assert_eq!(values[28], Value::Null, "played: no reason");
        assert_eq!(values[0], Value::Text("f.pgn".into()));
        assert_eq!(values[5], Value::Text("dfrc".into()));
        assert_eq!(values[6], Value::Null);
        assert_eq!(values[9], Value::Int(518));
        assert_eq!(values[10], Value::Int(0));
    }

    #[test]
    fn extra_tags_take_the_last_value_of_their_name_in_any_case() {
        let schema = Schema::new(vec!["Annotator".into(), "WhiteFideId".into()]).unwrap();
        let pgn = "[annotator \"a\"]\n[ANNOTATOR \"b\\\"c\"]\n[Black \"Bl\u{e9}\"]\n\n*\n";
        let rows = rows(pgn.as_bytes(), &schema);
        let extra: Vec<Option<&str>> = rows[0].extra_tags().collect();
        assert_eq!(extra, [Some("b\"c"), None]);
        assert_eq!(rows[0].tag(Known::Black), Some("Bl\u{e9}"));
        assert_eq!(rows[0].kind, Kind::Standard);
        let position = rows[0].position.unwrap();
        assert_eq!((position.scharnagl, position.fritz9), (518, 359));
        assert_eq!(position.arrangement(), "RNBQKBNR");
    }

    #[test]
    fn rows_of_a_batch_share_its_text_and_keep_their_own_values() {
        let schema = Schema::new(vec!["Annotator".into()]).unwrap();
        let pgn = b"[White \"w1\"]\n[Annotator \"a1\"]\n\n*\n\n[White \"w2\"]\n\n*\n\n\
[Annotator \"a3\"]\n[Chess960Id \"518\"]\n\n*\n";
        let batch = GameReader::new(&pgn[..]).next_batch().unwrap().unwrap();
        let read = crate::export::batch_rows(&batch, &schema).rows;
        let alone = rows(pgn, &schema);
        assert_eq!(read, alone);
        fn values(row: &GameRow) -> (Option<&str>, Vec<Option<&str>>, Option<&str>) {
            let extra = row.extra_tags().collect();
            (row.tag(Known::White), extra, row.chess960_id())
        }
        assert_eq!(values(&read[0]), (Some("w1"), vec![Some("a1")], None));
        assert_eq!(values(&read[1]), (Some("w2"), vec![None], None));
        assert_eq!(values(&read[2]), (None, vec![Some("a3")], Some("518")));
        assert_ne!(read[0], read[1]);
        let debug = format!("{:?}", read[2]);
        assert!(debug.contains("extra_tags: [Some(\"a3\")]"), "{debug}");
    }

    #[test]
    fn bytes_that_are_not_utf8_become_replacement_characters() {
        let rows = rows(
            b"[White \"a\xffb\"]\n[Black \"\\\"\xe9\"]\n\n*\n",
            &Schema::default(),
        );
        assert_eq!(rows[0].tag(Known::White), Some("a\u{fffd}b"));
        assert_eq!(rows[0].tag(Known::Black), Some("\"\u{fffd}"));
    }
}
