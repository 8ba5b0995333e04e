//! The three formats rows are written in, behind [`RowWriter`]: CSV and
//! JSON lines here, Parquet in `parquet`. Each walks the same columns
//! ([`Schema::columns`]) and the same values ([`GameRow::values`]).

use std::fmt;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::columns::{Schema, Value};
use super::parquet;
use super::row::{GameRow, RowWriter};

/// A format rows can be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// CSV with a header; a null is an empty field.
    Csv,
    /// One JSON object a line, keys in column order; a null is `null`.
    Jsonl,
    /// Apache Parquet: typed columns, zstd, row groups of 100,000 rows (or
    /// 8 MiB, whichever comes first).
    Parquet,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 3] = [Format::Csv, Format::Jsonl, Format::Parquet];

    /// The format's name, which is also its file extension.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::Parquet => "parquet",
        }
    }

    /// The format a file's extension names (`.csv`, `.jsonl`, `.parquet`,
    /// in any case), if any.
    ///
    /// ```
    /// use pgn960::export::Format;
    /// use std::path::Path;
    ///
    /// assert_eq!(Format::of_path(Path::new("shard-07.Parquet")), Some(Format::Parquet));
    /// assert_eq!(Format::of_path(Path::new("games.csv.gz")), None);
    /// ```
    pub fn of_path(path: &Path) -> Option<Format> {
        let extension = path.extension()?.to_str()?;
        Format::ALL
            .into_iter()
            .find(|format| format.name().eq_ignore_ascii_case(extension))
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A writer of `format` into `out`, which has the header (CSV) or the
/// file's start (Parquet) already; JSON lines have none.
///
/// # Errors
///
/// When the start cannot be written.
pub fn writer<W: Write + Send + 'static>(
    format: Format,
    schema: &Schema,
    out: W,
) -> io::Result<Box<dyn RowWriter<W>>> {
    Ok(match format {
        Format::Csv => Box::new(CsvRows::new(schema, out)?),
        Format::Jsonl => Box::new(JsonRows::new(schema, out)),
        Format::Parquet => Box::new(parquet::ParquetRows::new(schema, out)?),
    })
}

/// CSV, with a header of the column names.
struct CsvRows<W: Write> {
    out: csv::Writer<W>,
    number: String,
}

impl<W: Write> CsvRows<W> {
    fn new(schema: &Schema, out: W) -> io::Result<CsvRows<W>> {
        let mut out = csv::WriterBuilder::new()
            .buffer_capacity(1 << 16)
            .from_writer(out);
        out.write_record(schema.columns().map(|(name, _)| name))
            .map_err(crate::stats::into_io)?;
        Ok(CsvRows {
            out,
            number: String::new(),
        })
    }
}

impl<W: Write> RowWriter<W> for CsvRows<W> {
    fn write_row(&mut self, file: &str, row: &GameRow) -> io::Result<()> {
        for value in row.values(file) {
            let field: &[u8] = match &value {
                Value::Null => b"",
                Value::Int(n) => {
                    self.number.clear();
                    fmt::Write::write_fmt(&mut self.number, format_args!("{n}"))
                        .expect("formatting into a String cannot fail");
                    self.number.as_bytes()
                }
                Value::Text(text) => text.as_bytes(),
            };
            self.out.write_field(field).map_err(crate::stats::into_io)?;
        }
        self.out
            .write_record(None::<&[u8]>)
            .map_err(crate::stats::into_io)
    }

    fn finish(self: Box<Self>) -> io::Result<W> {
        self.out.into_inner().map_err(|err| err.into_error())
    }
}

/// JSON lines: one object a line, the columns as keys, in order.
struct JsonRows<W: Write> {
    out: BufWriter<W>,
    /// Each column's key, quoted, with its `:` and the `{` or `,` before it.
    keys: Vec<Vec<u8>>,
}

impl<W: Write> JsonRows<W> {
    fn new(schema: &Schema, out: W) -> JsonRows<W> {
        let keys = schema
            .columns()
            .enumerate()
            .map(|(i, (name, _))| {
                let mut key = vec![if i == 0 { b'{' } else { b',' }];
                serde_json::to_writer(&mut key, name).expect("writing into a Vec cannot fail");
                key.push(b':');
                key
            })
            .collect();
        JsonRows {
            out: BufWriter::with_capacity(1 << 16, out),
            keys,
        }
    }
}

impl<W: Write> RowWriter<W> for JsonRows<W> {
    fn write_row(&mut self, file: &str, row: &GameRow) -> io::Result<()> {
        for (key, value) in self.keys.iter().zip(row.values(file)) {
            self.out.write_all(key)?;
            match value {
                Value::Null => self.out.write_all(b"null")?,
                Value::Int(n) => write!(self.out, "{n}")?,
                // `From` keeps the kind of an I/O error, so a broken pipe stays quiet.
                Value::Text(text) => {
                    serde_json::to_writer(&mut self.out, text.as_ref()).map_err(io::Error::from)?
                }
            }
        }
        self.out.write_all(b"}\n")
    }

    fn finish(self: Box<Self>) -> io::Result<W> {
        self.out.into_inner().map_err(|err| err.into_error())
    }
}
