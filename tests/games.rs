//! `pgn960 games` run as a researcher would run it.
//!
//! The fixture `testdata/games/fixture.pgn` is small enough to read by
//! hand: every expected value below is worked out in a comment. The
//! Parquet is read back with the parquet crate's own reader, and CSV and
//! JSON lines must hold the same values. Offsets and lengths are checked
//! against the files' bytes (every sample, and with the corpus every
//! corpus file): the slices are the games, and they cover the file.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use arrow_array::{Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::reader::{FileReader, SerializedFileReader};

use crate::common::{
    corpus_or_skip, has_dev_full, lines, one_move_games, pgn960, read_pgn, sample_archives,
    sample_file, sample_files, short_name, testdata_file,
};

/// One cell: `None` for null.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cell {
    Int(i64),
    Text(String),
}

/// A table read back: column names and types, and rows of cells.
#[derive(Debug, PartialEq, Eq)]
struct Table {
    columns: Vec<String>,
    rows: Vec<Vec<Option<Cell>>>,
}

impl Table {
    fn column(&self, name: &str) -> usize {
        self.columns
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.columns))
    }

    fn get(&self, row: usize, name: &str) -> &Option<Cell> {
        &self.rows[row][self.column(name)]
    }

    fn int(&self, row: usize, name: &str) -> Option<i64> {
        match self.get(row, name) {
            Some(Cell::Int(n)) => Some(*n),
            None => None,
            Some(other) => panic!("{name} of row {row} is no integer: {other:?}"),
        }
    }

    fn text(&self, row: usize, name: &str) -> Option<&str> {
        match self.get(row, name) {
            Some(Cell::Text(text)) => Some(text),
            None => None,
            Some(other) => panic!("{name} of row {row} is no text: {other:?}"),
        }
    }

    /// The table as CSV shows it: an empty text is no value there.
    fn as_csv_sees_it(&self) -> Table {
        let rows = self
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|cell| match cell {
                        Some(Cell::Text(text)) if text.is_empty() => None,
                        cell => cell.clone(),
                    })
                    .collect()
            })
            .collect();
        Table {
            columns: self.columns.clone(),
            rows,
        }
    }
}

/// The integer columns, by type, as the README's table gives them.
const INT64_COLUMNS: [&str; 4] = ["game", "offset", "length", "line"];
const INT32_COLUMNS: [&str; 8] = [
    "scharnagl",
    "fritz9",
    "white_scharnagl",
    "black_scharnagl",
    "year",
    "white_elo",
    "black_elo",
    "plies",
];

/// The columns, in order, as the issue names them.
const COLUMNS: [&str; 29] = [
    "file",
    "game",
    "offset",
    "length",
    "line",
    "kind",
    "scharnagl",
    "fritz9",
    "position",
    "white_scharnagl",
    "black_scharnagl",
    "variant",
    "event",
    "site",
    "date",
    "year",
    "round",
    "white",
    "black",
    "result",
    "white_elo",
    "black_elo",
    "time_control",
    "termination",
    "eco",
    "opening",
    "plies",
    "chess960_id",
    "unplayed",
];

/// Reads a Parquet file back with the parquet crate's reader, checking
/// every column's type; also returns the row groups' sizes.
fn read_parquet(path: &Path) -> (Table, Vec<i64>) {
    let file = File::open(path).expect("the Parquet file is there");
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).expect("a Parquet file");
    let schema = builder.schema().clone();
    let columns: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    for field in schema.fields() {
        let expected = if INT64_COLUMNS.contains(&field.name().as_str()) {
            DataType::Int64
        } else if INT32_COLUMNS.contains(&field.name().as_str()) {
            DataType::Int32
        } else {
            DataType::Utf8
        };
        assert_eq!(field.data_type(), &expected, "column {}", field.name());
    }
    let groups = builder
        .metadata()
        .row_groups()
        .iter()
        .map(|group| group.num_rows())
        .collect();
    let mut rows = Vec::new();
    for batch in builder.build().expect("a reader") {
        let batch: RecordBatch = batch.expect("a readable record batch");
        for i in 0..batch.num_rows() {
            let row = batch
                .columns()
                .iter()
                .map(|array| cell_of(array.as_ref(), i))
                .collect();
            rows.push(row);
        }
    }
    (Table { columns, rows }, groups)
}

fn cell_of(array: &dyn Array, i: usize) -> Option<Cell> {
    if array.is_null(i) {
        return None;
    }
    let any = array.as_any();
    if let Some(ints) = any.downcast_ref::<Int64Array>() {
        Some(Cell::Int(ints.value(i)))
    } else if let Some(ints) = any.downcast_ref::<Int32Array>() {
        Some(Cell::Int(i64::from(ints.value(i))))
    } else if let Some(texts) = any.downcast_ref::<StringArray>() {
        Some(Cell::Text(texts.value(i).to_string()))
    } else {
        panic!("a column of unexpected type {:?}", array.data_type())
    }
}

/// Reads CSV back: integer columns as integers, an empty field as null.
fn read_csv(bytes: &[u8]) -> Table {
    let mut reader = csv::Reader::from_reader(bytes);
    let columns: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|record| {
            let record = record.expect("a CSV record");
            record
                .iter()
                .zip(&columns)
                .map(|(field, column)| {
                    let int = INT64_COLUMNS.contains(&column.as_str())
                        || INT32_COLUMNS.contains(&column.as_str());
                    match field {
                        "" => None,
                        field if int => {
                            Some(Cell::Int(field.parse().unwrap_or_else(|_| {
                                panic!("{column}: {field:?} is no integer")
                            })))
                        }
                        field => Some(Cell::Text(field.to_string())),
                    }
                })
                .collect()
        })
        .collect();
    Table { columns, rows }
}

/// A JSON object's keys and values, in the order written (serde_json's
/// own map sorts its keys).
struct Ordered(Vec<(String, serde_json::Value)>);

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Ordered;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// Reads JSON lines back: every line an object with the columns as keys,
/// in order.
fn read_jsonl(bytes: &[u8]) -> Table {
    let text = std::str::from_utf8(bytes).expect("JSON lines are UTF-8");
    let mut columns: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for line in text.lines() {
        let Ordered(entries) =
            serde_json::from_str(line).unwrap_or_else(|err| panic!("{line}: {err}"));
        let keys: Vec<String> = entries.iter().map(|(key, _)| key.clone()).collect();
        match &columns {
            None => columns = Some(keys),
            Some(columns) => assert_eq!(&keys, columns, "every line has the same keys"),
        }
        let row = entries
            .into_iter()
            .map(|(_, value)| match value {
                serde_json::Value::Null => None,
                serde_json::Value::Number(n) => Some(Cell::Int(n.as_i64().expect("an integer"))),
                serde_json::Value::String(s) => Some(Cell::Text(s)),
                other => panic!("unexpected JSON value {other}"),
            })
            .collect();
        rows.push(row);
    }
    Table {
        columns: columns.unwrap_or_default(),
        rows,
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Runs `pgn960 games ARGS` (quietly), which must succeed; returns stdout.
fn games(args: &[&str]) -> Vec<u8> {
    let mut all = vec!["games", "-q"];
    all.extend_from_slice(args);
    pgn960(&all, None).ok(&format!("pgn960 {all:?}"))
}

/// The rows of `inputs` in all three formats, which must agree, read back
/// from the Parquet file.
fn all_formats(inputs: &[&str], extra: &[&str]) -> Table {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = |name: &str| dir.path().join(name);
    let mut read = Vec::new();
    for name in ["g.parquet", "g.csv", "g.jsonl"] {
        let mut args: Vec<&str> = inputs.to_vec();
        args.extend_from_slice(extra);
        let target = out(name);
        args.extend(["-o", path(&target)]);
        let stdout = games(&args);
        assert!(stdout.is_empty(), "{name}: nothing on standard output");
        read.push(fs::read(&target).expect("the output is written"));
    }
    let (parquet, _) = read_parquet(&out("g.parquet"));
    let csv = read_csv(&read[1]);
    let jsonl = read_jsonl(&read[2]);
    assert_eq!(
        jsonl, parquet,
        "JSON lines and Parquet hold the same values"
    );
    assert_eq!(
        csv,
        parquet.as_csv_sees_it(),
        "CSV and Parquet hold the same values"
    );
    // Standard output gets the same CSV.
    let mut args: Vec<&str> = inputs.to_vec();
    args.extend_from_slice(extra);
    assert!(
        games(&args) == read[1],
        "CSV on standard output and in a file"
    );
    parquet
}

/// Where each game of the fixture starts: each begins with an `[Event`
/// or `[event` tag at the start of a line (a byte search, independent of
/// the splitter).
fn fixture_starts(bytes: &[u8]) -> Vec<usize> {
    (0..bytes.len())
        .filter(|&i| {
            (i == 0 || bytes[i - 1] == b'\n')
                && (bytes[i..].starts_with(b"[Event ") || bytes[i..].starts_with(b"[event "))
        })
        .filter(|&i| !bytes[i..].starts_with(b"[Event \"Last wins\"]"))
        .collect()
}

#[test]
fn the_fixture_reads_as_worked_out_by_hand() {
    let fixture = testdata_file("games/fixture.pgn");
    let bytes = fs::read(&fixture).expect("readable");
    let table = all_formats(&[path(&fixture)], &["--tags", "Annotator,whitefideid"]);
    let mut columns: Vec<&str> = COLUMNS.to_vec();
    columns.extend(["Annotator", "whitefideid"]);
    assert_eq!(table.columns, columns);
    assert_eq!(table.rows.len(), 6);

    // Offsets, lengths and lines from a byte search of the fixture.
    let starts = fixture_starts(&bytes);
    assert_eq!(starts.len(), 6);
    for (row, &start) in starts.iter().enumerate() {
        let end = starts.get(row + 1).copied().unwrap_or(bytes.len());
        assert_eq!(table.text(row, "file"), Some(path(&fixture)));
        assert_eq!(table.int(row, "game"), Some(row as i64 + 1));
        assert_eq!(table.int(row, "offset"), Some(start as i64), "row {row}");
        assert_eq!(table.int(row, "length"), Some((end - start) as i64));
        let line = bytes[..start].iter().filter(|&&b| b == b'\n').count() + 1;
        assert_eq!(table.int(row, "line"), Some(line as i64));
    }
    assert_eq!(
        (table.int(1, "line"), table.int(5, "line")),
        (Some(24), Some(58))
    );

    // 1. A Chess960 game from BBQNNRKR (Scharnagl 0, Fritz9 81), every
    // known tag; the mainline is e4 e5 Nf3 Nc6!? Bb5: the variation, the
    // comment (with its "(") and NAG, the escape line and the `;` comment
    // do not count: 5 plies.
    let expected: [(&str, Option<Cell>); 24] = [
        ("kind", text("chess960")),
        ("scharnagl", int(0)),
        ("fritz9", int(81)),
        ("position", text("BBQNNRKR")),
        ("white_scharnagl", int(0)),
        ("black_scharnagl", int(0)),
        ("variant", text("Chess960")),
        ("event", text("Freestyle 960 \"Open\"")),
        ("site", text("Weissenhaus GER")),
        ("date", text("2024.02.09")),
        ("year", int(2024)),
        ("round", text("1.2")),
        ("white", text("Carlsen, Magnus")),
        ("black", text("Caruana, Fabiano")),
        ("result", text("1-0")),
        ("white_elo", int(2830)),
        ("black_elo", int(2804)),
        ("time_control", text("5400+30")),
        ("termination", text("normal")),
        ("eco", text("A00")),
        ("opening", text("Chess960")),
        ("plies", int(5)),
        ("chess960_id", text("0")),
        // `normal`: played.
        ("unplayed", None),
    ];
    for (column, value) in &expected {
        assert_eq!(table.get(0, column), value, "game 1, {column}");
    }
    assert_eq!(table.get(0, "Annotator"), &None);

    // 2. Standard chess (no FEN): 518, Fritz9 359. An unknown date has no
    // year; "0" and "?" are no ratings. d4 d5 c4: 3 plies.
    let expected = [
        ("kind", text("standard")),
        ("scharnagl", int(518)),
        ("fritz9", int(359)),
        ("position", text("RNBQKBNR")),
        ("white_scharnagl", int(518)),
        ("black_scharnagl", int(518)),
        ("variant", None),
        ("site", None),
        ("date", text("????.??.??")),
        ("year", None),
        ("white_elo", None),
        ("black_elo", None),
        ("result", text("*")),
        ("plies", int(3)),
        ("chess960_id", None),
    ];
    for (column, value) in &expected {
        assert_eq!(table.get(1, column), value, "game 2, {column}");
    }

    // 3. Double FRC: White RNBQKBNR (518), Black BBQNNRKR (0); no single
    // number. e4 e5: 2 plies.
    let expected = [
        ("kind", text("dfrc")),
        ("scharnagl", None),
        ("fritz9", None),
        ("position", None),
        ("white_scharnagl", int(518)),
        ("black_scharnagl", int(0)),
        ("variant", text("fischerandom")),
        ("year", int(2022)),
        ("result", text("1/2-1/2")),
        ("plies", int(2)),
    ];
    for (column, value) in &expected {
        assert_eq!(table.get(2, column), value, "game 3, {column}");
    }

    // 4. Antichess is another game: no position; its ratings are ratings.
    // e3 b5 Bxb5: 3 plies.
    let expected = [
        ("kind", text("other")),
        ("scharnagl", None),
        ("white_scharnagl", None),
        ("black_scharnagl", None),
        ("variant", text("Antichess")),
        ("white_elo", int(1500)),
        ("black_elo", int(1600)),
        ("plies", int(3)),
    ];
    for (column, value) in &expected {
        assert_eq!(table.get(3, column), value, "game 4, {column}");
    }

    // 5. A FEN that does not read: unreadable, no position, no moves.
    let expected = [
        ("kind", text("unreadable")),
        ("scharnagl", None),
        ("position", None),
        ("white_scharnagl", None),
        ("variant", text("Chess960")),
        ("event", text("Broken")),
        ("plies", int(0)),
    ];
    for (column, value) in &expected {
        assert_eq!(table.get(4, column), value, "game 5, {column}");
    }

    // 6. Tag names in any case, the last of a name wins (Event, and
    // Chess960Id as written, spaces and all, though it is wrong: the game
    // starts from NRBQKBRN, 326, Fritz9 311); "M\xfcller" is Latin-1, not
    // UTF-8: its byte becomes U+FFFD. Ten moves, numbers glued on: 10 plies.
    let expected = [
        ("kind", text("chess960")),
        ("scharnagl", int(326)),
        ("fritz9", int(311)),
        ("position", text("NRBQKBRN")),
        ("event", text("Last wins")),
        ("white", text("M\u{fffd}ller")),
        ("variant", text("chess 960")),
        ("chess960_id", text("  7 ")),
        ("plies", int(10)),
        ("Annotator", text("Someone")),
        ("whitefideid", text("1503014")),
    ];
    for (column, value) in &expected {
        assert_eq!(table.get(5, column), value, "game 6, {column}");
    }
}

fn text(s: &str) -> Option<Cell> {
    Some(Cell::Text(s.to_string()))
}

fn int(n: i64) -> Option<Cell> {
    Some(Cell::Int(n))
}

/// Lines of a file, counted front to back without the library: a line
/// ends at `\n`, `\r\n` or a lone `\r`.
struct LineCount<'a> {
    bytes: &'a [u8],
    at: usize,
    line: u64,
}

impl LineCount<'_> {
    /// The line holding `bytes[to]`; `to` only grows from call to call.
    fn line_at(&mut self, to: usize) -> u64 {
        for i in self.at..to {
            match self.bytes[i] {
                b'\r' => self.line += 1,
                b'\n' if i == 0 || self.bytes[i - 1] != b'\r' => self.line += 1,
                _ => {}
            }
        }
        self.at = to;
        self.line
    }
}

/// Where a game's first line starts: that of its first tag pair (a line
/// whose first byte other than a space or tab is `[`, after the byte order
/// mark a file may begin with), else its first byte.
fn first_line_start(slice: &[u8]) -> usize {
    let mut start = 0;
    for line in lines(slice) {
        let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
        if line.trim_ascii_start().starts_with(b"[") {
            return start;
        }
        start += line.len();
    }
    0
}

/// Checks that the rows of `table` (those of `file`) slice `bytes` into
/// its games: in order, covering every byte, each game's first line where
/// its row says; returns how many rows there were.
fn assert_slices_are_the_games(table: &Table, file: &str, bytes: &[u8], what: &str) -> usize {
    let rows: Vec<usize> = (0..table.rows.len())
        .filter(|&row| table.text(row, "file") == Some(file))
        .collect();
    let mut at = 0usize;
    let mut lines = LineCount {
        bytes,
        at: 0,
        line: 1,
    };
    for (i, &row) in rows.iter().enumerate() {
        let game = i + 1;
        assert_eq!(table.int(row, "game"), Some(game as i64), "{what}");
        let offset = table.int(row, "offset").expect("an offset") as usize;
        let length = table.int(row, "length").expect("a length") as usize;
        assert_eq!(
            offset, at,
            "{what}: game {game} starts where the one before ends"
        );
        assert!(
            length > 0 && offset + length <= bytes.len(),
            "{what}: game {game}"
        );
        let first_line = lines.line_at(offset + first_line_start(&bytes[offset..offset + length]));
        assert_eq!(
            table.int(row, "line"),
            Some(first_line as i64),
            "{what}: game {game}"
        );
        at = offset + length;
    }
    // Every byte is some game's; only white space may be no game's (an
    // input of white space alone).
    if at < bytes.len() {
        assert!(
            bytes[at..].iter().all(u8::is_ascii_whitespace) && rows.is_empty(),
            "{what}: the games end at {at} of {} bytes",
            bytes.len()
        );
    }
    rows.len()
}

/// The games of `files` as one CSV, read back.
fn csv_of(files: &[PathBuf], extra: &[&str]) -> Table {
    let mut args: Vec<&str> = files.iter().map(|f| path(f)).collect();
    args.extend_from_slice(extra);
    read_csv(&games(&args))
}

/// How many lines start with `[Event ` (the count of games a plain byte
/// search gives, as in `testdata/README.md`).
fn event_lines(bytes: &[u8]) -> usize {
    lines(bytes)
        .iter()
        .filter(|line| line.starts_with(b"[Event "))
        .count()
}

#[test]
fn offsets_and_lengths_slice_every_sample_into_its_games() {
    let files = sample_files();
    let table = csv_of(&files, &[]);
    let mut total = 0;
    for file in &files {
        let bytes = read_pgn(file);
        let rows = assert_slices_are_the_games(&table, path(file), &bytes, &short_name(file));
        if sample_archives().contains(file) {
            assert_eq!(rows, event_lines(&bytes), "{}: games", short_name(file));
        }
        total += rows;
    }
    assert_eq!(total, table.rows.len(), "every row is of one of the files");
    // The README of testdata counts 860 games in the cuts of real archives.
    let archives: usize = sample_archives()
        .iter()
        .map(|file| event_lines(&read_pgn(file)))
        .sum();
    assert_eq!(archives, 860);
}

#[test]
fn offsets_and_lengths_slice_every_corpus_file_into_its_games() {
    let Some(corpus) =
        corpus_or_skip("games::offsets_and_lengths_slice_every_corpus_file_into_its_games")
    else {
        return;
    };
    let files = corpus.files();
    // A few dozen files a run, as a shard would be.
    for chunk in files.chunks(40) {
        let table = csv_of(chunk, &[]);
        let mut total = 0;
        for file in chunk {
            let bytes = read_pgn(file);
            total += assert_slices_are_the_games(&table, path(file), &bytes, &short_name(file));
        }
        assert_eq!(total, table.rows.len());
    }
}

/// The whole corpus into one Parquet file, read back: as many rows as the
/// CSV, the same values, and row groups of 100,000 rows.
#[test]
fn the_corpus_as_one_parquet_file_corpus() {
    let Some(corpus) = corpus_or_skip("games::the_corpus_as_one_parquet_file_corpus") else {
        return;
    };
    let files = corpus.files();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("corpus.parquet");
    let mut args: Vec<&str> = files.iter().map(|f| path(f)).collect();
    args.extend(["-o", path(&out)]);
    games(&args);
    let (parquet, groups) = read_parquet(&out);
    let csv = csv_of(&files, &[]);
    assert_eq!(csv, parquet.as_csv_sees_it());
    let (last, full) = groups.split_last().expect("a row group");
    assert!(full.iter().all(|&rows| rows == 100_000), "{groups:?}");
    assert!((1..=100_000).contains(last), "{groups:?}");
    eprintln!("games: the corpus has {} games", parquet.rows.len());
}

/// An archive larger than the 2 MiB from which a plain file is split on
/// several threads at once: every sample, decompressed, twice over.
fn big_archive(dir: &Path) -> PathBuf {
    let mut bytes = Vec::new();
    while bytes.len() < 5 << 20 {
        for file in sample_files() {
            bytes.extend(read_pgn(&file));
            // Every file's last game may lack its final line end.
            bytes.extend_from_slice(b"\n\n");
        }
    }
    let big = dir.join("big.pgn");
    fs::write(&big, &bytes).expect("writable");
    big
}

#[test]
fn the_thread_count_changes_no_byte() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let big = big_archive(dir.path());
    let zst = sample_file("tcec-s16-frc-sufi.pgn.zst");
    for format in ["parquet", "csv", "jsonl"] {
        let mut outputs = Vec::new();
        for threads in ["1", "2", "4"] {
            let out = dir.path().join(format!("t{threads}.{format}"));
            games(&[
                path(&big),
                path(&zst),
                "--threads",
                threads,
                "--tags",
                "PlyCount,Annotator",
                "-o",
                path(&out),
            ]);
            outputs.push(fs::read(&out).expect("written"));
        }
        assert!(outputs[0] == outputs[1], "{format}: 1 and 2 threads differ");
        assert!(outputs[0] == outputs[2], "{format}: 1 and 4 threads differ");
    }
    let (table, groups) = read_parquet(&dir.path().join("t1.parquet"));
    let bytes = fs::read(&big).expect("readable");
    let rows = assert_slices_are_the_games(&table, path(&big), &bytes, "big.pgn");
    assert!(rows > 1_000, "{rows} games");
    assert_eq!(groups.iter().sum::<i64>(), table.rows.len() as i64);
    // The same bytes on standard input: the same rows but for `file`.
    let args = [
        "games",
        "-q",
        "--threads",
        "3",
        "--tags",
        "PlyCount,Annotator",
    ];
    let piped = pgn960(&args, Some(&bytes)).ok("games < big.pgn");
    let piped = read_csv(&piped);
    let file = table.column("file");
    let strip = |table: &Table| -> Vec<Vec<Option<Cell>>> {
        table.rows[..rows]
            .iter()
            .map(|row| [&row[..file], &row[file + 1..]].concat())
            .collect()
    };
    assert_eq!(piped.text(0, "file"), Some("<stdin>"));
    let (piped, file) = (strip(&piped), strip(&table.as_csv_sees_it()));
    assert_eq!(piped.len(), file.len(), "games of big.pgn");
    if let Some(i) = (0..piped.len()).find(|&i| piped[i] != file[i]) {
        panic!("row {i} differs:\n{:?}\n{:?}", piped[i], file[i]);
    }
}

/// A Parquet file's row groups and their compression, read from its
/// footer by the parquet crate's file reader.
fn row_groups(path: &Path) -> Vec<(i64, Vec<Compression>)> {
    let reader = SerializedFileReader::new(File::open(path).expect("there")).expect("Parquet");
    reader
        .metadata()
        .row_groups()
        .iter()
        .map(|group| {
            let codecs = group.columns().iter().map(|c| c.compression()).collect();
            (group.num_rows(), codecs)
        })
        .collect()
}

#[test]
fn row_groups_of_100000_rows_compressed_with_zstd() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = dir.path().join("many.pgn");
    let mut bytes = Vec::new();
    for i in 0..250_001 {
        bytes.extend_from_slice(format!("[Event \"{i}\"]\n\n1. e4 *\n").as_bytes());
    }
    fs::write(&pgn, &bytes).expect("writable");
    let out = dir.path().join("many.parquet");
    games(&[path(&pgn), "-o", path(&out)]);
    let groups = row_groups(&out);
    let sizes: Vec<i64> = groups.iter().map(|(rows, _)| *rows).collect();
    assert_eq!(sizes, [100_000, 100_000, 50_001]);
    for (_, codecs) in &groups {
        assert_eq!(codecs.len(), COLUMNS.len());
        assert!(
            codecs.iter().all(|c| matches!(c, Compression::ZSTD(_))),
            "{codecs:?}"
        );
    }
    let (table, _) = read_parquet(&out);
    assert_eq!(table.rows.len(), 250_001);
    assert_eq!(table.text(250_000, "event"), Some("250000"));
    let last = "[Event \"250000\"]\n\n1. e4 *\n".len();
    assert_eq!(
        table.int(250_000, "offset"),
        Some((bytes.len() - last) as i64)
    );
    assert_eq!(table.int(123_456, "plies"), Some(1));
}

/// Rows with values of kilobytes end their row group once it holds 8 MiB,
/// long before 100,000 rows: a row group is held in memory until it is
/// written whole. Every value still reads back as written.
#[test]
fn row_groups_of_wide_rows_are_bounded_in_bytes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = dir.path().join("wide.pgn");
    let mut bytes = Vec::new();
    let mut seed = 7u64;
    for i in 0..6_000 {
        bytes.extend_from_slice(b"[Event \"");
        // 8 KB of letters (a to z) that do not compress to nothing.
        for _ in 0..8 << 10 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            bytes.push(b'a' + (seed >> 59) as u8 % 26);
        }
        bytes.extend_from_slice(format!("\"]\n[Round \"{i}\"]\n\n1. e4 *\n\n").as_bytes());
    }
    fs::write(&pgn, &bytes).expect("writable");
    let out = dir.path().join("wide.parquet");
    games(&[path(&pgn), "-o", path(&out)]);
    let reader = SerializedFileReader::new(File::open(&out).expect("there")).expect("Parquet");
    let sizes: Vec<(i64, i64)> = reader
        .metadata()
        .row_groups()
        .iter()
        .map(|group| (group.num_rows(), group.compressed_size()))
        .collect();
    assert!(sizes.len() >= 4, "{sizes:?}");
    for &(rows, compressed) in &sizes {
        // A row group ends at the first chunk that takes it past 8 MiB.
        assert!(
            compressed < 10 << 20,
            "{rows} rows in {compressed} bytes: {sizes:?}"
        );
    }
    assert_eq!(sizes.iter().map(|(rows, _)| rows).sum::<i64>(), 6_000);
    let (table, _) = read_parquet(&out);
    for i in [0, 2_999, 5_999] {
        let event = table.text(i, "event").expect("an event");
        let start = bytes
            .windows(12)
            .enumerate()
            .filter(|(_, w)| w.starts_with(b"[Event \""))
            .nth(i)
            .map(|(at, _)| at + 8)
            .expect("the game's Event");
        assert_eq!(
            event.as_bytes(),
            &bytes[start..start + (8 << 10)],
            "row {i}"
        );
        assert_eq!(table.text(i, "round"), Some(i.to_string().as_str()));
    }
}

/// A game longer than the 16 MiB the splitter holds at once is read in
/// pieces: its row has the length of all of them, and no plies (its
/// movetext is never whole).
#[test]
fn a_game_read_in_pieces_has_its_whole_length() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = dir.path().join("long.pgn");
    let mut bytes = b"[Event \"short\"]\n\n1. e4 *\n\n[Event \"long\"]\n\n1. e4 {".to_vec();
    bytes.resize(bytes.len() + (40 << 20), b'x');
    bytes.extend_from_slice(b"} e5 *\n\n[Event \"after\"]\n\n1. d4 d5 *\n");
    fs::write(&pgn, &bytes).expect("writable");
    for threads in ["1", "2"] {
        let table = read_csv(&games(&[path(&pgn), "--threads", threads]));
        assert_eq!(table.rows.len(), 3);
        assert_slices_are_the_games(&table, path(&pgn), &bytes, "long.pgn");
        let at = |event: &[u8]| bytes.windows(event.len()).position(|w| w == event);
        let long = at(b"[Event \"after\"]").unwrap() - at(b"[Event \"long\"]").unwrap();
        assert_eq!(table.int(1, "length"), Some(long as i64));
        assert!(long > 40 << 20);
        let plies: Vec<Option<i64>> = (0..3).map(|row| table.int(row, "plies")).collect();
        assert_eq!(plies, [Some(1), None, Some(2)]);
    }
    // The same through standard input (a stream, not a mapped file).
    let table = read_csv(&pgn960(&["games", "-q"], Some(&bytes)).ok("games < long.pgn"));
    assert_slices_are_the_games(&table, "<stdin>", &bytes, "long.pgn on stdin");
}

#[test]
fn an_empty_input_has_a_header_and_no_rows() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let empty = dir.path().join("empty.pgn");
    fs::write(&empty, b"\n  \n").expect("writable");
    let csv = games(&[path(&empty)]);
    assert_eq!(String::from_utf8_lossy(&csv).lines().count(), 1);
    let out = dir.path().join("empty.parquet");
    games(&[path(&empty), "-o", path(&out)]);
    let (table, _) = read_parquet(&out);
    assert_eq!((table.columns.len(), table.rows.len()), (29, 0));
    let out = dir.path().join("empty.jsonl");
    fs::write(&out, b"old bytes\n").expect("writable");
    games(&[path(&empty), "-o", path(&out)]);
    assert_eq!(fs::read(&out).expect("written"), b"");
}

#[test]
fn the_format_comes_from_the_extension_or_format() {
    let fixture = testdata_file("games/fixture.pgn");
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Any case of the extension; --format for a name without one.
    let upper = dir.path().join("G.PARQUET");
    games(&[path(&fixture), "-o", path(&upper)]);
    assert!(fs::read(&upper).expect("written").starts_with(b"PAR1"));
    let plain = dir.path().join("g.out");
    games(&[path(&fixture), "--format", "jsonl", "-o", path(&plain)]);
    assert_eq!(
        read_jsonl(&fs::read(&plain).expect("written")).rows.len(),
        6
    );
    // Parquet on standard output, when it is no terminal.
    let stdout = games(&[path(&fixture), "--format", "parquet"]);
    assert!(stdout.starts_with(b"PAR1") && stdout.ends_with(b"PAR1"));
    let summary = pgn960(&["games", path(&fixture), "-o", path(&upper)], None);
    assert_eq!(
        summary.stderr,
        "pgn960 games: 6 games read: 2 chess960, 1 standard, 1 dfrc, 1 other, 1 unreadable\n  \
         wrote 6 rows (parquet) to "
            .to_string()
            + path(&upper)
            + "\n"
    );
}

/// Asserts exit 2 with one `pgn960:` line containing `says`, and that
/// nothing was written.
fn assert_refused(args: &[&str], says: &str) {
    let mut all = vec!["games"];
    all.extend_from_slice(args);
    let run = pgn960(&all, None);
    assert_eq!(run.code, 2, "{all:?}: {}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{all:?}: {}", run.stderr);
    assert!(
        lines[0].starts_with("pgn960: ") && lines[0].contains(says),
        "{all:?}: {}",
        lines[0]
    );
    assert!(run.stdout.is_empty(), "{all:?}");
}

#[test]
fn unusable_options_are_one_line_and_exit_2() {
    let fixture = testdata_file("games/fixture.pgn");
    let f = path(&fixture);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = |name: &str| dir.path().join(name).to_str().expect("UTF-8").to_string();
    assert_refused(&[f, "--format", "xlsx"], "xlsx");
    assert_refused(
        &[f, "-o", &out("g.txt")],
        "no format known by this extension",
    );
    assert_refused(
        &[f, "-o", &out("g.gz")],
        "no format known by this extension",
    );
    assert_refused(
        &[f, "-o", &out("g.pgn")],
        "-o writes the games as csv, jsonl or parquet, not pgn",
    );
    assert_refused(
        &[f, "-o", &out("g.csv"), "--format", "parquet"],
        "the extension says csv, but --format says parquet",
    );
    assert_refused(
        &[f, "--tags", "Event"],
        "--tags: Event is already the column `event`",
    );
    assert_refused(&[f, "--tags", "a,A"], "--tags: A is named twice");
    assert_refused(&[f, "--tags", "White Elo"], "is not a tag name");
    assert_refused(&[f, "-o", f, "--format", "csv"], "also an input");
    assert_eq!(fs::read_dir(dir.path()).expect("listable").count(), 0);
    assert_eq!(
        fs::read(&fixture).expect("readable"),
        fs::read(testdata_file("games/fixture.pgn")).expect("readable")
    );
}

/// A full disk is one error line and exit 2, whether the first row group
/// fills (and is written, by the Parquet encoder's thread, while rows are
/// still coming) or the output fails only at its end.
#[test]
fn a_full_disk_is_one_error_line() {
    if !has_dev_full("games::a_full_disk_is_one_error_line") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let many = dir.path().join("many.pgn");
    let bytes = one_move_games(120_000);
    fs::write(&many, &bytes).expect("writable");
    let fixture = testdata_file("games/fixture.pgn");
    for input in [&many, &fixture] {
        for format in ["parquet", "csv", "jsonl"] {
            let args = [
                "games",
                "-q",
                path(input),
                "--format",
                format,
                "-o",
                "/dev/full",
            ];
            let run = pgn960(&args, None);
            assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
            let lines: Vec<&str> = run.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{args:?}: {}", run.stderr);
            assert!(
                lines[0].starts_with("pgn960: ") && lines[0].contains("No space left"),
                "{args:?}: {}",
                lines[0]
            );
        }
    }
}

/// A missing input is reported and the others are still written; the
/// exit code is 2, as for `tag`.
#[test]
fn a_bad_input_is_reported_and_the_others_written() {
    let fixture = testdata_file("games/fixture.pgn");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let missing = dir.path().join("missing.pgn");
    let run = pgn960(&["games", "-q", path(&missing), path(&fixture)], None);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("missing.pgn"), "{}", run.stderr);
    assert_eq!(read_csv(&run.stdout).rows.len(), 6);
}
