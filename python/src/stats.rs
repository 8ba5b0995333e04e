//! `count` and `stats`: per-start-position results, as `pgn960 stats`
//! counts them (the library's [`count_input`]), and [`Counts`], the exact
//! integer sums that merge across shards, processes and machines as
//! `pgn960 stats --merge` merges CSVs.

use std::path::PathBuf;

use pgn960::duplicates::DUPLICATES_MEMORY;
use pgn960::game::{Kind, KindCounts, Unplayed};
use pgn960::stats::{
    BoundedTable, Copies, DfrcTables, GROUP_MEMORY, GroupBy, Groups, StatsOptions, StatsSummary,
    StatsTable, SummaryNotes, TableAnalysis, WAITING_MEMORY, analysis_record_batch,
    count_input_bounded, finish_copies, pairs_record_batch, read_csv, record_batch, write_csv,
    write_noted_analysis_json, write_summary_json,
};
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple, PyType};

use crate::inputs::{config, inputs, interrupted, os_error, run_error};
use crate::tables::table_of;

/// Per-position counts of a `stats` run: integer sums only, so that
/// counts of shards add up (`a + b`, or `sum(counts)`) to exactly the
/// counts of one run over all of them, whatever the order. `table()` and
/// `summary()` compute the scores, intervals and tests from the sums, as
/// `pgn960 stats` writes its CSV and `--summary` JSON.
///
/// Counts pickle (as the CSV `pgn960 stats` writes, plus what was read),
/// so they travel between processes (Dask, multiprocessing);
/// `Counts.read_csv` reads a CSV written by `pgn960 stats`.
#[pyclass(module = "pgn960", frozen, skip_from_py_object)]
#[derive(Clone, Default)]
pub struct Counts {
    table: StatsTable,
    grouped: bool,
    summary: StatsSummary,
}

impl Counts {
    fn csv(&self, all_positions: bool) -> String {
        let mut out = Vec::new();
        write_csv(&self.table, self.grouped, all_positions, &mut out)
            .expect("writing into memory cannot fail");
        String::from_utf8(out).expect("the CSV is UTF-8")
    }

    /// The counts of `csv`, as `stats --merge` reads a shard's CSV.
    fn from_csv(name: &str, csv: &[u8]) -> PyResult<Counts> {
        let (table, grouped) =
            read_csv(csv).map_err(|err| PyValueError::new_err(format!("{name}: {err}")))?;
        Ok(Counts {
            table,
            grouped,
            summary: StatsSummary::default(),
        })
    }
}

/// `kinds` as a dict from kind name to count, in the order of the kinds.
pub fn kinds_dict<'py>(py: Python<'py>, kinds: &KindCounts) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for kind in Kind::ALL {
        dict.set_item(kind.name(), kinds.get(kind))?;
    }
    Ok(dict)
}

#[pymethods]
impl Counts {
    /// No counts: the start of a sum.
    #[new]
    fn new() -> Counts {
        Counts::default()
    }

    /// Whether the rows are grouped (`group_by`): a leading `group` column.
    #[getter]
    fn grouped(&self) -> bool {
        self.grouped
    }

    /// The games read, by kind (`chess960`, `standard`, `dfrc`, `other`,
    /// `unreadable`); zero for counts read from a CSV.
    #[getter]
    fn games_read<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        kinds_dict(py, &self.summary.kinds)
    }

    /// The games counted in the table.
    #[getter]
    fn counted(&self) -> u64 {
        self.table.total().games
    }

    /// The games left out by `min_elo` (unrated, or rated below it).
    #[getter]
    fn below_min_elo(&self) -> u64 {
        self.summary.below_min_elo
    }

    /// The copies of games read before, left out (not with
    /// `keep_duplicates=True`): each game is counted once across the
    /// run's inputs; copies in different runs (shards) are counted in each.
    #[getter]
    fn duplicates(&self) -> u64 {
        self.summary.duplicates
    }

    /// The games whose result was not played (abandoned, ended by a rules
    /// infraction, unterminated, ...: see `games`' column `unplayed`), by
    /// reason: left out of the table, or with `keep_unplayed=True`
    /// counted in it all the same; zero for counts read from a CSV.
    #[getter]
    fn unplayed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for reason in Unplayed::ALL {
            dict.set_item(reason.name(), self.summary.unplayed.get(reason))?;
        }
        Ok(dict)
    }

    /// The counts of both, exactly: the counts of one run over both runs'
    /// inputs.
    ///
    /// Raises `ValueError` when one is grouped and the other not (an
    /// empty `Counts()` adds to either).
    fn __add__(&self, other: &Bound<'_, PyAny>) -> PyResult<Counts> {
        let other = other.cast::<Counts>()?.get();
        let empty = |counts: &Counts| counts.table.rows().next().is_none();
        let grouped = match (self.grouped, other.grouped) {
            (a, b) if a == b => a,
            _ if empty(self) => other.grouped,
            _ if empty(other) => self.grouped,
            _ => {
                return Err(PyValueError::new_err(
                    "counts with a `group` column and counts without one cannot be added",
                ));
            }
        };
        let mut sum = self.clone();
        sum.grouped = grouped;
        sum.table.merge(&other.table);
        sum.summary.merge(&other.summary);
        Ok(sum)
    }

    fn __radd__<'py>(&self, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        // `sum(counts)` starts from 0.
        if other.extract::<i64>().is_ok_and(|n| n == 0) {
            return Ok(Bound::new(other.py(), self.clone())?.into_any());
        }
        Ok(Bound::new(other.py(), self.__add__(other)?)?.into_any())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Counts>().is_ok_and(|other| {
            let other = other.get();
            self.table == other.table && self.grouped == other.grouped
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Counts(rows={}, counted={}, grouped={})",
            self.table.rows().count(),
            self.counted(),
            if self.grouped { "True" } else { "False" }
        )
    }

    /// The table `pgn960 stats` writes as CSV, as a `pyarrow.Table`: the
    /// same columns and rows (one per position with games, every position
    /// with `all_positions=True`, by group and Scharnagl number), typed:
    /// int32 position numbers, uint64 counts and sums, int64 rating sums,
    /// float64 derived values at full precision (the CSV rounds them to
    /// six decimals, p- and q-values to six significant digits), null
    /// where the CSV's cell is empty.
    #[pyo3(signature = (*, all_positions = false))]
    fn table<'py>(&self, py: Python<'py>, all_positions: bool) -> PyResult<Bound<'py, PyAny>> {
        let batch = py.detach(|| record_batch(&self.table, self.grouped, all_positions));
        table_of(py, batch.schema(), vec![batch])
    }

    /// The tests across positions, as `pgn960 stats --summary` writes them
    /// (parsed from that very JSON): one dict, or with `group_by`, a dict
    /// whose only key, `groups`, maps each group to one.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut json = Vec::new();
        py.detach(|| write_summary_json(&self.table, self.grouped, &mut json))
            .expect("writing into memory cannot fail");
        parse_json(py, &json)
    }

    /// The CSV `pgn960 stats` writes, byte for byte, as a string; written
    /// to `path` too when one is given.
    #[pyo3(signature = (path = None, *, all_positions = false))]
    fn to_csv(&self, path: Option<PathBuf>, all_positions: bool) -> PyResult<String> {
        let csv = self.csv(all_positions);
        if let Some(path) = path {
            std::fs::write(&path, &csv)
                .map_err(|err| os_error(&path.display().to_string(), &err))?;
        }
        Ok(csv)
    }

    /// The counts of a CSV written by `pgn960 stats` (or `to_csv`), read as
    /// `pgn960 stats --merge` reads it.
    ///
    /// Raises `ValueError` for a CSV that cannot be merged, with
    /// `--merge`'s message.
    #[classmethod]
    fn read_csv(_class: &Bound<'_, PyType>, path: PathBuf) -> PyResult<Counts> {
        let name = path.display().to_string();
        let csv = std::fs::read(&path).map_err(|err| os_error(&name, &err))?;
        Counts::from_csv(&name, &csv)
    }

    /// Pickles as the CSV and what was read.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let counts = slf.get();
        let kinds: Vec<u64> = Kind::ALL
            .into_iter()
            .map(|kind| counts.summary.kinds.get(kind))
            .collect();
        let state = (
            counts.csv(false),
            counts.grouped,
            kinds,
            counts.summary.counted,
            counts.summary.below_min_elo,
            Unplayed::ALL.map(|reason| counts.summary.unplayed.get(reason)),
            counts.summary.duplicates,
        );
        let restore = py
            .import(intern!(py, "pgn960"))?
            .getattr(intern!(py, "_restore_counts"))?;
        PyTuple::new(
            py,
            [restore.into_any(), state.into_pyobject(py)?.into_any()],
        )
    }
}

/// Rebuilds pickled [`Counts`] (see `Counts.__reduce__`).
#[pyfunction]
#[pyo3(signature = (csv, grouped, kinds, counted, below_min_elo, unplayed = Vec::new(), duplicates = 0))]
pub fn _restore_counts(
    csv: &str,
    grouped: bool,
    kinds: Vec<u64>,
    counted: u64,
    below_min_elo: u64,
    unplayed: Vec<u64>,
    duplicates: u64,
) -> PyResult<Counts> {
    let mut counts = Counts::from_csv("pickled counts", csv.as_bytes())?;
    // A grouped table without rows has no `group` column to tell.
    counts.grouped = grouped;
    for (kind, n) in Kind::ALL.into_iter().zip(kinds) {
        for _ in 0..n {
            counts.summary.kinds.add(kind);
        }
    }
    for (reason, n) in Unplayed::ALL.into_iter().zip(unplayed) {
        for _ in 0..n {
            counts.summary.unplayed.add(reason);
        }
    }
    counts.summary.counted = counted;
    counts.summary.below_min_elo = below_min_elo;
    counts.summary.duplicates = duplicates;
    Ok(counts)
}

/// What to count, as `pgn960 stats`' options.
fn options(
    group_by: Option<&str>,
    min_elo: Option<i32>,
    include_standard: bool,
    keep_unplayed: bool,
) -> StatsOptions {
    StatsOptions {
        include_standard,
        group_by: group_by.map(GroupBy::from_arg),
        min_elo,
        dfrc: false,
        keep_unplayed,
    }
}

/// Counts the games of `paths` per start position, as `pgn960 stats`
/// does: every Chess960 game (and standard game, as 518, with
/// `include_standard=True`), in a row per position, or per group and
/// position with `group_by` (a tag name, or `"year"`), only games where
/// both players are rated at least `min_elo` when given, and but for the
/// games whose result was not played (see `Counts.unplayed`) unless
/// `keep_unplayed=True`, each game once across all of `paths` (its
/// copies left out, see `Counts.duplicates`) unless
/// `keep_duplicates=True`. `paths` as for `games`.
///
/// Returns `Counts`, which add up exactly across shards: see `stats` for
/// the table and the tests.
#[pyfunction]
#[pyo3(signature = (paths, *, group_by = None, min_elo = None, include_standard = false, keep_unplayed = false, keep_duplicates = false, threads = None))]
#[allow(clippy::too_many_arguments)]
pub fn count(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    group_by: Option<&str>,
    min_elo: Option<i32>,
    include_standard: bool,
    keep_unplayed: bool,
    keep_duplicates: bool,
    threads: Option<i64>,
) -> PyResult<Counts> {
    let inputs = inputs(paths)?;
    let config = config(threads)?;
    let options = options(group_by, min_elo, include_standard, keep_unplayed);
    py.detach(|| {
        let mut table = BoundedTable::new(GROUP_MEMORY);
        let mut summary = StatsSummary::default();
        let mut copies =
            (!keep_duplicates).then(|| Copies::new(DUPLICATES_MEMORY, WAITING_MEMORY, None));
        for input in inputs {
            let name = input.name();
            let opened = input.open()?;
            count_input_bounded(
                opened.reader,
                config,
                &options,
                (&mut table, None),
                &mut summary,
                copies.as_mut(),
                |_| interrupted(),
            )
            .map_err(|err| run_error(&name, err))?;
        }
        if let Some(copies) = copies {
            finish_copies(copies, &options, (&mut table, None), &mut summary)
                .map_err(|err| os_error(COUNTS, &err))?;
        }
        let table = table
            .finish()
            .and_then(|groups| groups.to_table())
            .map_err(|err| os_error(COUNTS, &err))?;
        Ok(Counts {
            table,
            summary,
            grouped: options.group_by.is_some(),
        })
    })
}

/// What an error with the temporary files of the counts says.
const COUNTS: &str = "the temporary files of the counts";

/// `json.loads` of `json`.
fn parse_json<'py>(py: Python<'py>, json: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    py.import(intern!(py, "json"))?
        .call_method1(intern!(py, "loads"), (PyBytes::new(py, json),))
}

/// Per-start-position results of `paths`, as `pgn960 stats` writes them:
/// the table of its CSV (see `Counts.table`) and the tests across
/// positions of its `--summary` JSON, as a dict (see `Counts.summary`),
/// with its last key, the unplayed games by reason (`unplayed_left_out`,
/// or with `keep_unplayed=True`, `unplayed_kept`).
/// The options are `count`'s, and `all_positions=True` for a row for every
/// one of the 960 positions.
///
/// >>> table, summary = pgn960.stats("games.pgn.zst")
#[pyfunction]
#[pyo3(signature = (paths, *, group_by = None, min_elo = None, include_standard = false, keep_unplayed = false, keep_duplicates = false, all_positions = false, threads = None))]
#[allow(clippy::too_many_arguments)]
pub fn stats<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    group_by: Option<&str>,
    min_elo: Option<i32>,
    include_standard: bool,
    keep_unplayed: bool,
    keep_duplicates: bool,
    all_positions: bool,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyTuple>> {
    let counts = count(
        py,
        paths,
        group_by,
        min_elo,
        include_standard,
        keep_unplayed,
        keep_duplicates,
        threads,
    )?;
    // One analysis for both: it holds the simulations of the tests that
    // need them.
    let (batch, json) = py.detach(|| {
        let analysis = TableAnalysis::of(&counts.table);
        let batch = analysis_record_batch(&analysis, counts.grouped, all_positions);
        let mut json = Vec::new();
        let notes = SummaryNotes::of_count(counts.summary.unplayed, keep_unplayed);
        write_noted_analysis_json(&analysis, counts.grouped, &notes, &mut json)
            .expect("writing into memory cannot fail");
        (batch, json)
    });
    let table = table_of(py, batch.schema(), vec![batch])?;
    let summary = parse_json(py, &json)?;
    PyTuple::new(py, [table, summary])
}

/// The Double FRC games of `paths` (White and Black start from different
/// arrays), as `pgn960 stats --dfrc-pairs --dfrc-white --dfrc-black`
/// writes them: a dict of three `pyarrow.Table`s, `"pairs"` (a row per
/// pair of arrays with games: both arrays, the counts, White's score with
/// its interval, the averages and the exact sums), `"white"` and
/// `"black"` (tables of `stats`' columns, the position being White's, or
/// Black's, array, tests across arrays included). `group_by`, `min_elo`,
/// `keep_duplicates` and `all_positions` (for the tables by one side's
/// array) as for `stats`. The pairs are counted under a memory budget, on
/// disk beyond.
///
/// >>> tables = pgn960.dfrc_stats("tcec.pgn.zst")
#[pyfunction]
#[pyo3(signature = (paths, *, group_by = None, min_elo = None, keep_duplicates = false, all_positions = false, threads = None))]
pub fn dfrc_stats<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    group_by: Option<&str>,
    min_elo: Option<i32>,
    keep_duplicates: bool,
    all_positions: bool,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let inputs = inputs(paths)?;
    let config = config(threads)?;
    let options = StatsOptions {
        dfrc: true,
        ..options(group_by, min_elo, false, false)
    };
    let grouped = options.group_by.is_some();
    let batches = py.detach(|| {
        let mut positions = BoundedTable::new(GROUP_MEMORY);
        let mut dfrc = DfrcTables::new(GROUP_MEMORY);
        let mut summary = StatsSummary::default();
        let mut copies =
            (!keep_duplicates).then(|| Copies::new(DUPLICATES_MEMORY, WAITING_MEMORY, None));
        for input in inputs {
            let name = input.name();
            let opened = input.open()?;
            count_input_bounded(
                opened.reader,
                config,
                &options,
                (&mut positions, Some(&mut dfrc)),
                &mut summary,
                copies.as_mut(),
                |_| interrupted(),
            )
            .map_err(|err| run_error(&name, err))?;
        }
        if let Some(copies) = copies {
            finish_copies(
                copies,
                &options,
                (&mut positions, Some(&mut dfrc)),
                &mut summary,
            )
            .map_err(|err| os_error(GROUPS, &err))?;
        }
        let counted = dfrc.finish().map_err(|err| os_error(GROUPS, &err))?;
        let by_side = |groups: &Groups| {
            let table = groups.to_table().map_err(|err| os_error(GROUPS, &err))?;
            Ok::<_, PyErr>(record_batch(&table, grouped, all_positions))
        };
        let pairs =
            pairs_record_batch(&counted.pairs, grouped).map_err(|err| os_error(GROUPS, &err))?;
        Ok::<_, PyErr>([
            ("pairs", pairs),
            ("white", by_side(&counted.white)?),
            ("black", by_side(&counted.black)?),
        ])
    })?;
    let tables = PyDict::new(py);
    for (name, batch) in batches {
        tables.set_item(name, table_of(py, batch.schema(), vec![batch])?)?;
    }
    Ok(tables)
}

/// What an error with the temporary files of the counts says.
const GROUPS: &str = "the temporary files of the Double FRC counts";
