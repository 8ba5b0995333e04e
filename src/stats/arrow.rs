//! The stats table as an Apache Arrow record batch: the CSV's rows and
//! columns ([`for_each_row`]), typed, for the Python module (and any
//! program that takes Arrow data).

use std::sync::Arc;

use arrow_array::builder::{
    Float64Builder, Int32Builder, Int64Builder, StringBuilder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use super::analysis::TableAnalysis;
use super::csv::{Cell, cell_types, for_each_row, header};
use super::dfrc::{for_each_pair_row, pair_cell_types, pairs_header};
use super::spill::Groups;
use super::table::StatsTable;

/// The rows [`write_csv`](super::write_csv) writes, as one record batch
/// with the CSV's columns: text for the group and the arrangement,
/// `Int32` for the positions' numbers, `UInt64` for counts and sums that
/// cannot be negative, `Int64` for rating sums, `Float64` for the derived
/// values (at full precision, where the CSV rounds), null where the CSV
/// has an empty cell.
///
/// ```
/// use pgn960::stats::{StatsTable, record_batch};
///
/// let batch = record_batch(&StatsTable::default(), false, true);
/// assert_eq!(batch.num_rows(), 960);
/// assert_eq!(batch.schema().field(0).name(), "scharnagl");
/// ```
pub fn record_batch(table: &StatsTable, grouped: bool, all_positions: bool) -> RecordBatch {
    analysis_record_batch(&TableAnalysis::of(table), grouped, all_positions)
}

/// [`record_batch`] of an analysis already made, so that a caller who
/// also writes its summary ([`write_analysis_json`](super::write_analysis_json))
/// pays for the analysis once.
pub fn analysis_record_batch(
    analysis: &TableAnalysis<'_>,
    grouped: bool,
    all_positions: bool,
) -> RecordBatch {
    let mut types: Vec<Cell<'static>> = Vec::new();
    if grouped {
        types.push(Cell::Text(""));
    }
    types.extend(cell_types());
    let mut columns: Vec<Column> = types.iter().map(Column::of).collect();
    for_each_row(analysis, grouped, all_positions, |cells| {
        for (column, cell) in columns.iter_mut().zip(cells) {
            column.append(cell);
        }
        Ok::<_, std::convert::Infallible>(())
    })
    .unwrap_or_else(|never| match never {});
    batch_of(header(grouped), columns)
}

/// The rows [`write_pairs_csv`](super::write_pairs_csv) writes of the
/// Double FRC pairs, as one record batch with its columns, typed as
/// [`record_batch`] types them.
///
/// # Errors
///
/// An error reading the pairs' runs.
pub fn pairs_record_batch(pairs: &Groups, grouped: bool) -> std::io::Result<RecordBatch> {
    let mut types: Vec<Cell<'static>> = Vec::new();
    if grouped {
        types.push(Cell::Text(""));
    }
    types.extend(pair_cell_types());
    let mut columns: Vec<Column> = types.iter().map(Column::of).collect();
    for_each_pair_row(pairs, grouped, |cells| {
        for (column, cell) in columns.iter_mut().zip(cells) {
            column.append(cell);
        }
        Ok::<_, std::io::Error>(())
    })?;
    Ok(batch_of(pairs_header(grouped), columns))
}

/// The record batch of `columns`, named by `names`.
fn batch_of(names: Vec<&str>, mut columns: Vec<Column>) -> RecordBatch {
    let fields: Vec<Field> = names
        .into_iter()
        .zip(&columns)
        .map(|(name, column)| Field::new(name, column.data_type(), true))
        .collect();
    let arrays: Vec<ArrayRef> = columns.iter_mut().map(Column::finish).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
        .expect("the arrays are built to the schema")
}

/// One column's values gathered so far.
enum Column {
    Text(StringBuilder),
    Number(Int32Builder),
    Count(UInt64Builder),
    Sum(Int64Builder),
    Float(Float64Builder),
}

impl Column {
    /// An empty column of `cell`'s type.
    fn of(cell: &Cell<'_>) -> Column {
        match cell {
            Cell::Text(_) | Cell::Arrangement(_) | Cell::Bins(_) => {
                Column::Text(StringBuilder::new())
            }
            Cell::Number(_) => Column::Number(Int32Builder::new()),
            Cell::Count(_) | Cell::MaybeCount(_) => Column::Count(UInt64Builder::new()),
            Cell::Sum(_) => Column::Sum(Int64Builder::new()),
            Cell::Decimal(_) | Cell::Probability(_) => Column::Float(Float64Builder::new()),
        }
    }

    fn data_type(&self) -> DataType {
        match self {
            Column::Text(_) => DataType::Utf8,
            Column::Number(_) => DataType::Int32,
            Column::Count(_) => DataType::UInt64,
            Column::Sum(_) => DataType::Int64,
            Column::Float(_) => DataType::Float64,
        }
    }

    fn append(&mut self, cell: &Cell<'_>) {
        match (self, cell) {
            (Column::Text(b), Cell::Text(text)) => b.append_value(text),
            (Column::Text(b), Cell::Arrangement(rank)) => b.append_value(rank.to_string()),
            (Column::Number(b), Cell::Number(n)) => b.append_value(i32::from(*n)),
            (Column::Text(b), Cell::Bins(bins)) => b.append_value(bins.to_string()),
            (Column::Count(b), Cell::Count(n)) => b.append_value(*n),
            (Column::Count(b), Cell::MaybeCount(n)) => b.append_option(*n),
            (Column::Sum(b), Cell::Sum(n)) => b.append_value(*n),
            (Column::Float(b), Cell::Decimal(value) | Cell::Probability(value)) => {
                b.append_option(*value)
            }
            (_, cell) => unreachable!("a cell of the wrong type for its column: {cell:?}"),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Column::Text(b) => Arc::new(b.finish()),
            Column::Number(b) => Arc::new(b.finish()),
            Column::Count(b) => Arc::new(b.finish()),
            Column::Sum(b) => Arc::new(b.finish()),
            Column::Float(b) => Arc::new(b.finish()),
        }
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt64Type};

    use super::*;
    use crate::split::GameReader;
    use crate::stats::{
        DfrcTables, GroupBy, StatsOptions, stats_batch, write_csv, write_pairs_csv,
    };

    /// A table of games at three positions in two groups, with ratings.
    fn table() -> StatsTable {
        let mut pgn = String::new();
        for (i, (fen, result, elo)) in [
            ("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR", "1-0", 2700),
            (
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR",
                "1/2-1/2",
                2650,
            ),
            ("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB", "0-1", 2500),
            ("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB", "*", 0),
            ("bqnbnrkr/pppppppp/8/8/8/8/PPPPPPPP/BQNBNRKR", "1-0", 2400),
        ]
        .into_iter()
        .enumerate()
        {
            pgn.push_str(&format!(
                "[Event \"{}\"]\n[FEN \"{fen} w KQkq - 0 1\"]\n[Result \"{result}\"]\n\
                 [WhiteElo \"{elo}\"]\n[BlackElo \"2600\"]\n\n{result}\n\n",
                ["a", "b"][i % 2]
            ));
        }
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        let options = StatsOptions {
            group_by: Some(GroupBy::from_arg("Event")),
            ..StatsOptions::default()
        };
        stats_batch(&batch, &options).0
    }

    /// The cell of row `i` of column `name` as the CSV writes it: p- and
    /// q-values with six significant digits, other floats with six decimals.
    fn as_csv(name: &str, column: &dyn Array, i: usize) -> String {
        if column.is_null(i) {
            return String::new();
        }
        match column.data_type() {
            DataType::Utf8 => column.as_string::<i32>().value(i).to_string(),
            DataType::Int32 => column.as_primitive::<Int32Type>().value(i).to_string(),
            DataType::Int64 => column.as_primitive::<Int64Type>().value(i).to_string(),
            DataType::UInt64 => column.as_primitive::<UInt64Type>().value(i).to_string(),
            DataType::Float64 => {
                let v = column.as_primitive::<Float64Type>().value(i);
                if name == "p_value" || name == "q_value" {
                    format!("{v:.5e}")
                } else {
                    format!("{v:.6}")
                }
            }
            other => panic!("a column of type {other}"),
        }
    }

    /// The pairs of arrays of six Double FRC games, with ratings, in two
    /// groups with `grouped`.
    fn pairs(grouped: bool) -> Groups {
        let mut pgn = String::new();
        for (i, (fen, result)) in [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR", "1-0"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR", "1/2-1/2"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR", "0-1"),
            ("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB", "0-1"),
            ("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB", "*"),
            ("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR", "1-0"),
        ]
        .into_iter()
        .enumerate()
        {
            pgn.push_str(&format!(
                "[Event \"{}\"]\n[FEN \"{fen} w KQkq - 0 1\"]\n[Result \"{result}\"]\n\
                 [WhiteElo \"{}\"]\n[BlackElo \"2600\"]\n\n{result}\n\n",
                ["a", "b"][i % 2],
                2500 + 50 * i
            ));
        }
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        let options = StatsOptions {
            group_by: grouped.then(|| GroupBy::from_arg("Event")),
            dfrc: true,
            ..StatsOptions::default()
        };
        let (_, summary, games) = stats_batch(&batch, &options);
        assert_eq!(summary.dfrc_counted, 6);
        let mut tables = DfrcTables::new(1 << 20);
        tables.add_games(&games).unwrap();
        tables.finish().unwrap().pairs
    }

    /// Checks that `batch` has the columns of `csv`'s header and, row by
    /// row, its cells; returns the rows and the empty cells (nulls).
    fn assert_holds(batch: &RecordBatch, csv: &str) -> (usize, usize) {
        let mut lines = csv.lines();
        let names: Vec<&str> = lines.next().unwrap().split(',').collect();
        let fields: Vec<&str> = batch
            .schema_ref()
            .fields()
            .iter()
            .map(|field| field.name().as_str())
            .collect();
        assert_eq!(fields, names);
        let rows: Vec<&str> = lines.collect();
        assert_eq!(batch.num_rows(), rows.len());
        let mut nulls = 0;
        for (i, line) in rows.iter().enumerate() {
            for (j, cell) in line.split(',').enumerate() {
                assert_eq!(
                    as_csv(names[j], batch.column(j).as_ref(), i),
                    cell,
                    "{} row {i}",
                    names[j]
                );
                nulls += usize::from(cell.is_empty());
            }
        }
        (rows.len(), nulls)
    }

    #[test]
    fn the_pairs_batch_holds_the_pairs_csvs_cells() {
        for grouped in [true, false] {
            let pairs = pairs(grouped);
            let batch = pairs_record_batch(&pairs, grouped).unwrap();
            let mut csv = Vec::new();
            let rows = write_pairs_csv(&pairs, grouped, &mut csv).unwrap();
            let csv = String::from_utf8(csv).unwrap();
            let (held, _) = assert_holds(&batch, &csv);
            assert_eq!(held as u64, rows);
            assert_eq!(rows, if grouped { 5 } else { 3 }, "{csv}");
        }
    }

    #[test]
    fn the_batch_holds_the_csvs_cells() {
        let table = table();
        let mut nulls = 0;
        for (grouped, all_positions) in [(true, false), (false, false), (true, true)] {
            let batch = record_batch(&table, grouped, all_positions);
            let mut csv = Vec::new();
            write_csv(&table, grouped, all_positions, &mut csv).unwrap();
            nulls += assert_holds(&batch, &String::from_utf8(csv).unwrap()).1;
        }
        assert!(nulls > 0, "some cells are empty, and null");
    }
}
