//! The numbering functions, as the commands `id`, `pos` and `table`:
//! the numbers of an arrangement or a start FEN, the position of a
//! number, all 960 positions.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use pgn960::position::{FEATURE_COLUMNS, FeatureCell, file_letter};
use pgn960::{BackRank, StartArray};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A Chess960 start position: both of its numbers, its back rank and its
/// FEN in both castling notations, as `pgn960 pos` prints them.
#[pyclass(module = "pgn960", frozen, eq, hash, get_all, skip_from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    /// The Scharnagl number, 0-959 (518 is the standard array).
    scharnagl: u16,
    /// The Fritz9 number, 1-960.
    fritz9: u16,
    /// The back rank, upper case, files a to h (`"RNBQKBNR"`).
    position: String,
    /// The start position as a FEN with X-FEN castling rights (`KQkq`).
    xfen: String,
    /// The start position as a FEN with Shredder-FEN castling rights (`HAha`).
    shredder_fen: String,
}

impl Position {
    fn of(rank: BackRank) -> Position {
        Position {
            scharnagl: rank.scharnagl(),
            fritz9: rank.fritz9(),
            position: rank.to_string(),
            xfen: rank.to_xfen(),
            shredder_fen: rank.to_shredder_fen(),
        }
    }
}

#[pymethods]
impl Position {
    fn __repr__(&self) -> String {
        format!(
            "Position(scharnagl={}, fritz9={}, position='{}')",
            self.scharnagl, self.fritz9, self.position
        )
    }
}

/// The start of an arrangement (`"RNBQKBNR"`, either case) or of a FEN
/// (any string with a `/`: X-FEN or Shredder-FEN castling, or the board
/// alone), as `pgn960 id` reads it.
///
/// Returns the `Position` both sides start from; for a Double FRC FEN
/// (different back ranks for White and Black), the pair
/// `(white, black)`.
///
/// Raises `ValueError` with `pgn960 id`'s message for anything else.
///
/// >>> pgn960.id("RNBQKBNR").scharnagl
/// 518
#[pyfunction]
#[pyo3(signature = (arrangement_or_fen, /))]
pub fn id<'py>(py: Python<'py>, arrangement_or_fen: &str) -> PyResult<Bound<'py, PyAny>> {
    let start = if arrangement_or_fen.contains('/') {
        StartArray::from_fen(arrangement_or_fen).map_err(|err| err.to_string())
    } else {
        arrangement_or_fen
            .parse::<BackRank>()
            .map(StartArray::Chess960)
            .map_err(|err| err.to_string())
    };
    match start {
        Ok(StartArray::Chess960(rank)) => Ok(Bound::new(py, Position::of(rank))?.into_any()),
        Ok(StartArray::DoubleFrc { white, black }) => Ok(PyTuple::new(
            py,
            [
                Bound::new(py, Position::of(white))?,
                Bound::new(py, Position::of(black))?,
            ],
        )?
        .into_any()),
        Err(message) => Err(PyValueError::new_err(format!(
            "id: {arrangement_or_fen:?}: {message}"
        ))),
    }
}

/// The position numbered `n`: a Scharnagl number, 0-959 (960 is another
/// name for 0, for numberings that run 1-960), or with `fritz9=True` a
/// Fritz9 number, 1-960; as `pgn960 pos`.
///
/// Raises `ValueError` with `pgn960 pos`'s message for any other number.
///
/// >>> pgn960.position(518).position
/// 'RNBQKBNR'
#[pyfunction]
#[pyo3(signature = (n, /, fritz9 = false))]
pub fn position(n: &Bound<'_, PyAny>, fritz9: bool) -> PyResult<Position> {
    let number: i128 = n.extract().map_err(|_| {
        let shown = n
            .str()
            .map_or_else(|_| "?".to_string(), |text| text.to_string());
        PyValueError::new_err(format!("pos: {shown:?} is not a number"))
    })?;
    if fritz9 {
        match u32::try_from(number).map(BackRank::from_fritz9) {
            Ok(Ok(rank)) => Ok(Position::of(rank)),
            _ => Err(PyValueError::new_err(format!(
                "pos: {number} is not a Fritz9 number (1-960)"
            ))),
        }
    } else {
        match u32::try_from(number).map(|id| BackRank::from_scharnagl(id % 960)) {
            Ok(Ok(rank)) if number <= 960 => Ok(Position::of(rank)),
            _ => Err(PyValueError::new_err(format!(
                "pos: {number} is not a Scharnagl number (0-959, or 960 for 0)"
            ))),
        }
    }
}

/// All 960 start positions as a `pyarrow.Table`, in Scharnagl order, with
/// the columns of `pgn960 table`: scharnagl, fritz9 (int32), position,
/// xfen, shredder_fen (string), then the features: the files of the king,
/// queen, knights, rooks and bishops (string, `a` to `h`) and
/// mirror_scharnagl (int32), as the position rows of `stats` give them.
#[pyfunction]
pub fn table(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let ranks: Vec<BackRank> = BackRank::all().collect();
    let number = |of: fn(&BackRank) -> u16| -> ArrayRef {
        Arc::new(Int32Array::from_iter_values(
            ranks.iter().map(|rank| i32::from(of(rank))),
        ))
    };
    let text = |of: fn(&BackRank) -> String| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(ranks.iter().map(of)))
    };
    let mut columns = vec![
        ("scharnagl", number(BackRank::scharnagl)),
        ("fritz9", number(BackRank::fritz9)),
        ("position", text(|rank| rank.to_string())),
        ("xfen", text(BackRank::to_xfen)),
        ("shredder_fen", text(BackRank::to_shredder_fen)),
    ];
    let features: Vec<[FeatureCell; 9]> =
        ranks.iter().map(|rank| rank.features().cells()).collect();
    for (at, name) in FEATURE_COLUMNS.into_iter().enumerate() {
        let column: ArrayRef = match features[0][at] {
            FeatureCell::File(_) => Arc::new(StringArray::from_iter_values(features.iter().map(
                |cells| match cells[at] {
                    FeatureCell::File(file) => file_letter(file),
                    FeatureCell::Scharnagl(_) => unreachable!("a column holds one kind"),
                },
            ))),
            FeatureCell::Scharnagl(_) => Arc::new(Int32Array::from_iter_values(
                features.iter().map(|cells| match cells[at] {
                    FeatureCell::Scharnagl(n) => i32::from(n),
                    FeatureCell::File(_) => unreachable!("a column holds one kind"),
                }),
            )),
        };
        columns.push((name, column));
    }
    let batch = RecordBatch::try_from_iter(columns).expect("fourteen columns of 960 rows");
    crate::tables::table_of(py, batch.schema(), vec![batch])
}
