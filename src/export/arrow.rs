//! Rows as Apache Arrow record batches: the typed columns the Parquet
//! writer encodes and the Python module hands to pyarrow, built by one
//! [`ArrowRows`] so that the two cannot disagree on a type or a null.

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema as ArrowSchema, SchemaRef};

use super::columns::{ColumnType, Schema, Value};
use super::row::GameRow;

/// The Arrow schema of `schema`'s columns, every one nullable: `Int64`,
/// `Int32` and `Utf8` for [`ColumnType::Int64`], [`ColumnType::Int32`]
/// and [`ColumnType::Text`].
pub fn arrow_schema(schema: &Schema) -> SchemaRef {
    let fields: Vec<Field> = schema
        .columns()
        .map(|(name, column_type)| Field::new(name, data_type(column_type), true))
        .collect();
    Arc::new(ArrowSchema::new(fields))
}

fn data_type(column_type: ColumnType) -> DataType {
    match column_type {
        ColumnType::Int64 => DataType::Int64,
        ColumnType::Int32 => DataType::Int32,
        ColumnType::Text => DataType::Utf8,
    }
}

/// Rows gathered into Arrow arrays, column by column, until
/// [`ArrowRows::finish`] makes them a record batch.
///
/// ```
/// use pgn960::export::{ArrowRows, RowOrder, Schema, batch_rows};
/// use pgn960::split::GameReader;
///
/// let pgn = b"[Event \"A\"]\n[WhiteElo \"2700\"]\n\n1. e4 1-0\n\n[Event \"B\"]\n\n*\n";
/// let schema = Schema::default();
/// let mut rows = ArrowRows::new(&schema, 1_000);
/// let mut reader = GameReader::new(&pgn[..]);
/// let mut order = RowOrder::new();
/// while let Some(batch) = reader.next_batch()? {
///     let read = batch_rows(&batch, &schema).rows;
///     order.place(&batch, read, |row| Ok::<_, std::io::Error>(rows.push("a.pgn", &row)))?;
/// }
/// let batch = rows.finish();
/// assert_eq!(batch.num_rows(), 2);
/// assert_eq!(batch.schema().field(20).name(), "white_elo");
/// assert_eq!(batch.column(20).null_count(), 1);
/// # Ok::<_, std::io::Error>(())
/// ```
pub struct ArrowRows {
    schema: SchemaRef,
    builders: Vec<Builder>,
    rows: usize,
    text_bytes: usize,
}

impl ArrowRows {
    /// Gathers rows of `schema`'s columns, with room for `capacity` rows
    /// before the arrays grow.
    pub fn new(schema: &Schema, capacity: usize) -> ArrowRows {
        ArrowRows {
            schema: arrow_schema(schema),
            builders: schema
                .columns()
                .map(|(_, column_type)| Builder::new(column_type, capacity))
                .collect(),
            rows: 0,
            text_bytes: 0,
        }
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Adds a row of input `file` (the `file` column's value).
    pub fn push(&mut self, file: &str, row: &GameRow) {
        for (builder, value) in self.builders.iter_mut().zip(row.values(file)) {
            if let Value::Text(text) = &value {
                self.text_bytes += text.len();
            }
            builder.append(value);
        }
        self.rows += 1;
    }

    /// Rows gathered since the last batch.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Bytes of text gathered since the last batch: what the arrays hold,
    /// less their offsets and the integer columns.
    pub fn text_bytes(&self) -> usize {
        self.text_bytes
    }

    /// Whether no row has been gathered since the last batch.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The rows gathered since the last batch, as one (perhaps of no
    /// rows); the arrays start again empty.
    pub fn finish(&mut self) -> RecordBatch {
        let columns: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        self.rows = 0;
        self.text_bytes = 0;
        RecordBatch::try_new(Arc::clone(&self.schema), columns)
            .expect("the arrays are built to the schema")
    }
}

/// One column's values gathered so far.
enum Builder {
    Int64(Int64Builder),
    Int32(Int32Builder),
    Text(StringBuilder),
}

impl Builder {
    fn new(column_type: ColumnType, rows: usize) -> Builder {
        match column_type {
            ColumnType::Int64 => Builder::Int64(Int64Builder::with_capacity(rows)),
            ColumnType::Int32 => Builder::Int32(Int32Builder::with_capacity(rows)),
            ColumnType::Text => Builder::Text(StringBuilder::with_capacity(rows, rows * 32)),
        }
    }

    fn append(&mut self, value: Value<'_>) {
        match (self, value) {
            (Builder::Int64(b), Value::Null) => b.append_null(),
            (Builder::Int32(b), Value::Null) => b.append_null(),
            (Builder::Text(b), Value::Null) => b.append_null(),
            (Builder::Int64(b), Value::Int(n)) => b.append_value(n),
            (Builder::Int32(b), Value::Int(n)) => {
                b.append_value(i32::try_from(n).expect("the values of a 32-bit column fit 32 bits"))
            }
            (Builder::Text(b), Value::Text(text)) => b.append_value(text),
            (_, value) => unreachable!("a value of the wrong type for its column: {value:?}"),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Int64(b) => Arc::new(b.finish()),
            Builder::Int32(b) => Arc::new(b.finish()),
            Builder::Text(b) => Arc::new(b.finish()),
        }
    }
}
