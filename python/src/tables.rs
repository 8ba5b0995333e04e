//! Arrow data handed to pyarrow through the Arrow C Data Interface: the
//! arrays built in Rust become pyarrow's without a copy.

use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_pyarrow::IntoPyArrow;
use arrow_schema::SchemaRef;
use pyo3::intern;
use pyo3::prelude::*;

/// `batches` (all of `schema`) as one `pyarrow.Table`, handed over as one
/// Arrow C stream and read whole by pyarrow.
///
/// # Errors
///
/// When pyarrow cannot be imported, or refuses the stream.
pub fn table_of(
    py: Python<'_>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'_, PyAny>> {
    let reader: Box<dyn RecordBatchReader + Send> = Box::new(RecordBatchIterator::new(
        batches.into_iter().map(Ok),
        schema,
    ));
    reader
        .into_pyarrow(py)?
        .call_method0(intern!(py, "read_all"))
}
