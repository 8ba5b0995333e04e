//! `tag`, `fix` and `filter`: archives written to a file, every byte the
//! command does not change as it was, as `pgn960 tag -o`, `pgn960 fix -o`
//! and `pgn960 filter -o` write them.
//!
//! The output is written to a temporary file beside it and renamed over
//! it only once every input has been read: an output is never
//! half-written, and an error (or Ctrl-C) leaves a file that was there as
//! it was. It is compressed as its name says (`.gz`, `.zst`, `.bz2`,
//! `.xz`), and refused when it is one of the inputs.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use pgn960::compression::{Compression, Encoder};
use pgn960::filter::{
    Filter, FilterCounts, ListError, PositionSet, Router, codes, kinds, reasons, select_batch,
    write_runs,
};
use pgn960::fix::{Action, FixCounts, FixOptions, Spellings, fix_batch};
use pgn960::game::Unplayed;
use pgn960::pipeline::{self, Footprint, PipelineConfig};
use pgn960::position::CastlingNotation;
use pgn960::split::Batch;
use pgn960::tag::{TagCounts, TagOptions, apply, tag_batch};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use tempfile::NamedTempFile;

use crate::inputs::{Input, config, inputs, interrupted, names, os_error, run_error};

/// The file being written, until it replaces `dst`.
struct Output {
    dst: PathBuf,
    encoder: Joined<Encoder<'static, BufWriter<NamedTempFile>>>,
}

/// A stream that several inputs are written to one after another, as the
/// CLI joins them: after an input whose last line has no line ending, a
/// line ending and an empty line in that input's style (its last `\r\n`,
/// `\n` or lone `\r`; `\n` when it has none) before the next input's
/// bytes; one input alone goes through byte for byte.
struct Joined<W> {
    inner: W,
    /// The last byte written, and the last line ending.
    last: Option<u8>,
    ending: &'static [u8],
    /// An input ended since the last byte written.
    between: bool,
}

impl<W: Write> Joined<W> {
    fn new(inner: W) -> Joined<W> {
        Joined {
            inner,
            last: None,
            ending: b"\n",
            between: false,
        }
    }

    fn note(&mut self, bytes: &[u8]) {
        let Some(&last) = bytes.last() else {
            return;
        };
        if let Some(at) = bytes.iter().rposition(|&b| b == b'\n' || b == b'\r') {
            let before = if at == 0 {
                self.last
            } else {
                Some(bytes[at - 1])
            };
            self.ending = match bytes[at] {
                b'\n' if before == Some(b'\r') => b"\r\n",
                b'\n' => b"\n",
                _ => b"\r",
            };
        }
        self.last = Some(last);
    }
}

impl<W: Write> Write for Joined<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.between && !buf.is_empty() {
            self.between = false;
            if !matches!(self.last, Some(b'\n' | b'\r') | None) {
                let ending = self.ending;
                self.inner.write_all(ending)?;
                self.inner.write_all(ending)?;
                self.note(ending);
                self.note(ending);
            }
        }
        let n = self.inner.write(buf)?;
        self.note(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl Output {
    /// A temporary file beside `dst`, compressed as `dst`'s name says.
    ///
    /// # Errors
    ///
    /// A `ValueError` when `dst` is one of `inputs`; an `OSError` when the
    /// temporary file cannot be made.
    fn create(dst: &Path, inputs: &[Input]) -> PyResult<Output> {
        let name = dst.display().to_string();
        if let Ok(meta) = fs::metadata(dst) {
            let same = |input: &Input| {
                input
                    .path()
                    .and_then(|path| fs::metadata(path).ok())
                    .is_some_and(|of| of.dev() == meta.dev() && of.ino() == meta.ino())
            };
            if let Some(input) = inputs.iter().find(|input| same(input)) {
                return Err(PyValueError::new_err(format!(
                    "{name}: the output is also an input ({}); nothing was written, write to another file",
                    input.name()
                )));
            }
        }
        let dir = match dst.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let temporary = tempfile::Builder::new()
            .prefix(".pgn960-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|err| os_error(&name, &err))?;
        let encoder = Compression::of_path(dst)
            .encoder(BufWriter::with_capacity(1 << 20, temporary))
            .map_err(|err| os_error(&name, &err))?;
        Ok(Output {
            dst: dst.to_path_buf(),
            encoder: Joined::new(encoder),
        })
    }

    fn writer(&mut self) -> &mut dyn Write {
        &mut self.encoder
    }

    /// The error of a write to the output, as an `OSError`.
    fn error(dst: &Path, err: &io::Error) -> PyErr {
        os_error(&format!("writing {}", dst.display()), err)
    }

    /// Finishes the file and renames it over `dst`.
    fn finish(self) -> PyResult<()> {
        let dst = self.dst;
        let fail = |err: &io::Error| Output::error(&dst, err);
        let buffered = self.encoder.inner.finish().map_err(|err| fail(&err))?;
        let temporary = buffered.into_inner().map_err(|err| fail(err.error()))?;
        temporary.as_file().sync_all().map_err(|err| fail(&err))?;
        temporary.persist(&dst).map_err(|err| fail(&err.error))?;
        Ok(())
    }
}

/// Runs `work` on every batch of every input and `consume` on its result,
/// in input order, into `output`, the GIL released, Ctrl-C checked
/// between batches; `consume` is told the input's index too. Renames the
/// output into place when all went well.
fn write_all<T: Send + Footprint>(
    py: Python<'_>,
    inputs: Vec<Input>,
    mut output: Output,
    config: PipelineConfig,
    work: impl Fn(&Batch) -> T + Sync + Send,
    mut consume: impl FnMut(usize, &Batch, T, &mut dyn Write) -> io::Result<()> + Send,
) -> PyResult<()> {
    py.detach(|| {
        let dst = output.dst.clone();
        for (index, input) in inputs.into_iter().enumerate() {
            let name = input.name();
            let opened = input.open()?;
            pipeline::run_reader(opened.reader, config, &work, |batch, result| {
                interrupted()?;
                consume(index, batch, result, output.writer())
                    .map_err(|err| Output::error(&dst, &err))
            })
            .map_err(|err| run_error(&name, err))?;
            output.encoder.between = true;
        }
        output.finish()
    })
}

/// Adds `[Chess960Id "N"]` to every Chess960 game of `src` that lacks
/// it, and rewrites a wrong one, changing no other byte, into `dst`; as
/// `pgn960 tag src -o dst`. With `fritz9=True`, also
/// `[Chess960Fritz9Id "M"]`; with `include_standard=True`, standard games
/// too (518). `src` is one input or a list, as for `games` (several are
/// written one after another).
///
/// Returns the counts `pgn960 tag` reports: the games read by kind, and
/// those tagged, with id tags added, rewritten, already right, or left
/// alone.
#[pyfunction]
#[pyo3(signature = (src, dst, *, fritz9 = false, include_standard = false, threads = None))]
pub fn tag<'py>(
    py: Python<'py>,
    src: &Bound<'py, PyAny>,
    dst: PathBuf,
    fritz9: bool,
    include_standard: bool,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let inputs = inputs(src)?;
    let config = config(threads)?;
    let options = TagOptions {
        include_standard,
        fritz9,
    };
    let output = Output::create(&dst, &inputs)?;
    let mut total = TagCounts::default();
    write_all(
        py,
        inputs,
        output,
        config,
        |batch| tag_batch(batch, options),
        |_, batch, (edits, counts), out| {
            total.merge(&counts);
            apply(&batch.data, &edits, out)
        },
    )?;
    let counts = PyDict::new(py);
    counts.set_item("read", crate::stats::kinds_dict(py, &total.kinds)?)?;
    counts.set_item("tagged", total.tagged)?;
    counts.set_item("added", total.added)?;
    counts.set_item("rewritten", total.rewritten)?;
    counts.set_item("already_right", total.already_right)?;
    counts.set_item("left_alone", total.left_alone)?;
    Ok(counts)
}

/// Repairs what `validate` finds in the Chess960 headers of `src`,
/// changing no other byte, into `dst`; as `pgn960 fix src -o dst`:
/// a wrong or missing Chess960Id, the Variant of a Chess960 start array,
/// a missing SetUp, the FEN of a start recorded only as a number, and,
/// with `castling="xfen"` or `"shredder"`, the castling fields of start
/// FENs (default `"keep"`). `variant_name`, as `--variant-name`: by
/// default a spelling readers reject is rewritten to `Chess960`; a
/// spelling common readers accept rewrites every other one to it;
/// `"keep"` keeps every spelling.
///
/// Returns the counts `pgn960 fix` reports: the games read by kind, the
/// games fixed, and the repairs made and findings left, by problem.
#[pyfunction]
#[pyo3(signature = (src, dst, *, castling = "keep", variant_name = None, threads = None))]
pub fn fix<'py>(
    py: Python<'py>,
    src: &Bound<'py, PyAny>,
    dst: PathBuf,
    castling: &str,
    variant_name: Option<&str>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let inputs = inputs(src)?;
    let config = config(threads)?;
    let castling = match castling {
        "keep" => None,
        "xfen" => Some(CastlingNotation::Xfen),
        "shredder" => Some(CastlingNotation::Shredder),
        other => {
            return Err(PyValueError::new_err(format!(
                "castling: {other:?} is not keep, xfen or shredder"
            )));
        }
    };
    let (spellings, variant_name) = Spellings::asked(variant_name)
        .map_err(|err| PyValueError::new_err(format!("variant_name: {err}")))?;
    let options = FixOptions {
        castling,
        variant_name,
        spellings,
        rows: false,
    };
    let output = Output::create(&dst, &inputs)?;
    let mut total = FixCounts::default();
    write_all(
        py,
        inputs,
        output,
        config,
        |batch| fix_batch(batch, &options),
        |_, batch, fixed, out| {
            total.merge(&fixed.counts);
            apply(&batch.data, &fixed.edits, out)
        },
    )?;
    let counts = PyDict::new(py);
    counts.set_item("read", crate::stats::kinds_dict(py, &total.kinds)?)?;
    counts.set_item("games_fixed", total.games_fixed)?;
    for (key, action) in [("fixed", Action::Fixed), ("left", Action::Left)] {
        let by_problem = PyDict::new(py);
        for (problem, n) in total.by_problem(action) {
            by_problem.set_item(problem.name(), n)?;
        }
        counts.set_item(key, by_problem)?;
    }
    Ok(counts)
}

/// A position criterion: `"0,518,700-759"`, or a list of numbers and
/// ranges.
fn positions(
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
    read: fn(&str) -> Result<PositionSet, ListError>,
) -> PyResult<Option<PositionSet>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let list = names(argument, value)?.join(",");
    read(&list)
        .map(Some)
        .map_err(|err| PyValueError::new_err(format!("{argument} {list:?}: {err}")))
}

/// Writes the games of `src` that meet every criterion given, byte for
/// byte, in input order, into `dst`; as `pgn960 filter src -o dst`.
///
/// - `position`: Scharnagl numbers and ranges (`"0,518,700-759"` or a
///   list); `fritz9`: the same in Fritz9 numbers; `arrangement`: back
///   ranks (`"RNBQKBNR,BBQNNRKR"`, either case). These select Chess960
///   games, and standard games as 518 with `include_standard=True`.
/// - `kind`: `chess960`, `standard`, `dfrc`, `other`, `unreadable`.
/// - `min_elo`: both players rated at least this.
/// - `finding`: games `validate` reports a finding of one of these codes
///   or severities for.
/// - `unplayed`: games whose result was not played, for one of these
///   reasons (`abandoned`, `rules_infraction`, `unterminated`,
///   `emergency`, `death`), or `True` for any of them: the games `stats`
///   leaves out; `played=True`: the games it counts.
/// - `invert=True`: the games that do not meet them instead.
///
/// Returns the games read and selected, by kind.
#[pyfunction]
#[pyo3(signature = (
    src, dst, *, position = None, fritz9 = None, arrangement = None, include_standard = false,
    kind = None, min_elo = None, finding = None, unplayed = None, played = false, invert = false,
    threads = None
))]
#[allow(clippy::too_many_arguments)]
pub fn filter<'py>(
    py: Python<'py>,
    src: &Bound<'py, PyAny>,
    dst: PathBuf,
    position: Option<&Bound<'py, PyAny>>,
    fritz9: Option<&Bound<'py, PyAny>>,
    arrangement: Option<&Bound<'py, PyAny>>,
    include_standard: bool,
    kind: Option<&Bound<'py, PyAny>>,
    min_elo: Option<i32>,
    finding: Option<&Bound<'py, PyAny>>,
    unplayed: Option<&Bound<'py, PyAny>>,
    played: bool,
    invert: bool,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let inputs = inputs(src)?;
    let config = config(threads)?;
    let mut selection = Filter {
        include_standard,
        min_elo,
        played,
        invert,
        ..Filter::default()
    };
    for set in [
        positions("position", position, PositionSet::scharnagl)?,
        positions("fritz9", fritz9, PositionSet::fritz9)?,
        positions("arrangement", arrangement, PositionSet::arrangements)?,
    ]
    .into_iter()
    .flatten()
    {
        selection.restrict_positions(set);
    }
    let list = |argument: &str, value: Option<&Bound<'py, PyAny>>| -> PyResult<Option<String>> {
        value
            .map(|value| Ok(names(argument, value)?.join(",")))
            .transpose()
    };
    if let Some(list_of_kinds) = list("kind", kind)? {
        selection.kinds = Some(
            kinds(&list_of_kinds)
                .map_err(|err| PyValueError::new_err(format!("kind {list_of_kinds:?}: {err}")))?,
        );
    }
    if let Some(list_of_codes) = list("finding", finding)? {
        selection.findings =
            Some(codes(&list_of_codes).map_err(|err| {
                PyValueError::new_err(format!("finding {list_of_codes:?}: {err}"))
            })?);
    }
    let unplayed = match unplayed {
        Some(value) if value.is_instance_of::<PyBool>() => value
            .extract::<bool>()?
            .then(|| Unplayed::ALL.map(|reason| reason.name()).join(",")),
        other => list("unplayed", other)?,
    };
    if let Some(list_of_reasons) = unplayed {
        selection.unplayed = Some(reasons(&list_of_reasons).map_err(|err| {
            PyValueError::new_err(format!("unplayed {list_of_reasons:?}: {err}"))
        })?);
    }
    if played && selection.unplayed.is_some() {
        return Err(PyValueError::new_err(
            "played and unplayed select no game together: give one",
        ));
    }
    if include_standard && selection.positions.is_none() {
        return Err(PyValueError::new_err(
            "include_standard needs position, fritz9 or arrangement \
             (for which it counts standard games as position 518)",
        ));
    }
    let output = Output::create(&dst, &inputs)?;
    let mut total = FilterCounts::default();
    let mut router = Router::new();
    let mut routed = None;
    write_all(
        py,
        inputs,
        output,
        config,
        |batch| select_batch(batch, &selection),
        |input, batch, verdicts, out| {
            // Bytes continuing a game go where it went, within one input.
            if routed != Some(input) {
                router = Router::new();
                routed = Some(input);
            }
            for verdict in &verdicts {
                total.add(verdict);
            }
            let runs = router.runs(batch, |i| verdicts[i].selected.then_some(()));
            write_runs(&batch.data, &runs, out)
        },
    )?;
    let counts = PyDict::new(py);
    counts.set_item("read", crate::stats::kinds_dict(py, &total.read)?)?;
    counts.set_item("selected", crate::stats::kinds_dict(py, &total.selected)?)?;
    Ok(counts)
}
