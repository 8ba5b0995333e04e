//! The Python module `pgn960`: Chess960 start positions and PGN archives
//! for notebooks, as the command line reads them, because it is the same
//! library.
//!
//! Every function here converts arguments, releases the GIL, calls the
//! library, and hands the answer over: tables as Arrow data built in Rust
//! (through the C Data Interface, without a copy), errors as Python
//! exceptions with the command line's one-line messages. No game is read
//! here: the library reads them ([`pgn960::export::read_rows`],
//! [`pgn960::stats::count_input`], [`pgn960::validate::validate_input`],
//! the pipeline for `tag`, `fix` and `filter`).
//!
//! - `inputs`: paths and bytes, threads, Ctrl-C, errors;
//! - `numbering`: `id`, `position`, `table`;
//! - `games`: `games`, `iter_games`, `schema`;
//! - `stats`: `count`, `stats`, `dfrc_stats`, `Counts`;
//! - `validate`: `validate`;
//! - `rewrite`: `tag`, `fix`, `filter`;
//! - `tables`: Arrow data to pyarrow.

mod games;
mod inputs;
mod numbering;
mod rewrite;
mod stats;
mod tables;
mod validate;

use pyo3::prelude::*;

/// Chess960 (Fischer random chess) archives as Arrow tables: start
/// positions, one row per game, statistics per start position,
/// validation and repair, as the `pgn960` command line computes them.
#[pymodule]
#[pyo3(name = "pgn960")]
fn pgn960_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(numbering::id, m)?)?;
    m.add_function(wrap_pyfunction!(numbering::position, m)?)?;
    m.add_function(wrap_pyfunction!(numbering::table, m)?)?;
    m.add_class::<numbering::Position>()?;
    m.add_function(wrap_pyfunction!(games::games, m)?)?;
    m.add_function(wrap_pyfunction!(games::iter_games, m)?)?;
    m.add_function(wrap_pyfunction!(games::schema, m)?)?;
    m.add_class::<games::GameBatches>()?;
    m.add_function(wrap_pyfunction!(stats::count, m)?)?;
    m.add_function(wrap_pyfunction!(stats::stats, m)?)?;
    m.add_function(wrap_pyfunction!(stats::dfrc_stats, m)?)?;
    m.add_function(wrap_pyfunction!(stats::_restore_counts, m)?)?;
    m.add_class::<stats::Counts>()?;
    m.add_function(wrap_pyfunction!(validate::validate, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite::tag, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite::fix, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite::filter, m)?)?;
    Ok(())
}
