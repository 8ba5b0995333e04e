//! `validate`: every problem of every game, with `pgn960 validate`'s
//! codes, as a table (the library's [`validate_input`]).

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use pgn960::validate::{ValidateOptions, validate_input};
use pyo3::prelude::*;

use crate::inputs::{config, inputs, interrupted, run_error};
use crate::tables::table_of;

/// The findings gathered so far, column by column.
#[derive(Default)]
struct Findings {
    file: StringBuilder,
    game: Int64Builder,
    line: Int64Builder,
    severity: StringBuilder,
    code: StringBuilder,
    message: StringBuilder,
}

impl Findings {
    fn finish(mut self) -> RecordBatch {
        let text = |name| Field::new(name, DataType::Utf8, false);
        let number = |name| Field::new(name, DataType::Int64, false);
        let schema = Schema::new(vec![
            text("file"),
            number("game"),
            number("line"),
            text("severity"),
            text("code"),
            text("message"),
        ]);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.file.finish()),
            Arc::new(self.game.finish()),
            Arc::new(self.line.finish()),
            Arc::new(self.severity.finish()),
            Arc::new(self.code.finish()),
            Arc::new(self.message.finish()),
        ];
        RecordBatch::try_new(Arc::new(schema), columns).expect("six columns of one length")
    }
}

/// Every problem of every game of `paths` (as for `games`), as
/// `pgn960 validate` reports them: a `pyarrow.Table` of the columns of its
/// CSV report, one row per finding in input order: file, game (1-based in
/// its file), line (of the offending tag or move), severity (`error`,
/// `warning`, `info`), code (stable; listed in the documentation) and
/// message. Moves are replayed under Chess960 rules unless `moves=False`.
#[pyfunction]
#[pyo3(signature = (paths, *, moves = true, threads = None))]
pub fn validate<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    moves: bool,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let inputs = inputs(paths)?;
    let config = config(threads)?;
    let options = ValidateOptions { moves, lines: true };
    let batch = py.detach(|| {
        let mut findings = Findings::default();
        for input in inputs {
            let name = input.name();
            let opened = input.open()?;
            validate_input(
                opened.reader,
                config,
                options,
                |_, _| interrupted(),
                |finding| {
                    findings.file.append_value(&name);
                    findings.game.append_value(finding.game as i64);
                    findings.line.append_value(finding.line as i64);
                    findings
                        .severity
                        .append_value(finding.code.severity().as_str());
                    findings.code.append_value(finding.code.name());
                    findings.message.append_value(&finding.message);
                    Ok(())
                },
            )
            .map_err(|err| run_error(&name, err))?;
        }
        Ok::<_, PyErr>(findings.finish())
    })?;
    table_of(py, batch.schema(), vec![batch])
}
