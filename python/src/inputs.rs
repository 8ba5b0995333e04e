//! What every archive function shares: its inputs (paths, plain or
//! compressed, or bytes), its thread count, the check for Ctrl-C between
//! batches, and the mapping of the library's errors to Python exceptions
//! carrying the command line's one-line messages.

use std::io;
use std::path::PathBuf;

use pgn960::input::{self, MmapChoice, Opened, Source};
use pgn960::pipeline::{PipelineConfig, PipelineError};
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyPermissionError, PyRuntimeError,
    PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// One input: a file, or PGN bytes held in memory.
pub enum Input {
    /// A file, plain or compressed.
    Path(PathBuf),
    /// Bytes, plain or compressed, copied out of Python's hands so that
    /// they can be read while the GIL is released.
    Bytes(Vec<u8>),
}

/// The name bytes have in the `file` column and in messages, as `<stdin>`
/// is standard input's on the command line.
pub const BYTES_NAME: &str = "<bytes>";

impl Input {
    /// The input's name: the path as given, or [`BYTES_NAME`].
    pub fn name(&self) -> String {
        match self {
            Input::Path(path) => path.display().to_string(),
            Input::Bytes(_) => BYTES_NAME.to_string(),
        }
    }

    /// Opens the input, recognising its compression by its bytes.
    ///
    /// # Errors
    ///
    /// An `OSError` (or one of its kinds) naming the input.
    pub fn open(self) -> PyResult<Opened> {
        let name = self.name();
        self.open_io().map_err(|err| os_error(&name, &err))
    }

    /// As [`Input::open`], the error as it is.
    pub fn open_io(self) -> io::Result<Opened> {
        match self {
            Input::Path(path) => {
                // SAFETY: as the command line does, a plain file is mapped
                // and only read; another program truncating it while it is
                // read ends the process (SIGBUS), as docs/python.md says.
                let mmap = unsafe { MmapChoice::auto() };
                input::open(&Source::Path(path), mmap)
            }
            Input::Bytes(bytes) => input::open_stream(Box::new(io::Cursor::new(bytes))),
        }
    }

    /// The file's path, for an input that is one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            Input::Path(path) => Some(path),
            Input::Bytes(_) => None,
        }
    }
}

/// The inputs `paths` names: a path (`str` or `os.PathLike`), `bytes`
/// (or a `bytearray`) of PGN, or a list (any iterable) of them.
///
/// # Errors
///
/// A `TypeError` for anything else, a `ValueError` for no input at all.
pub fn inputs(paths: &Bound<'_, PyAny>) -> PyResult<Vec<Input>> {
    if let Some(input) = one_input(paths)? {
        return Ok(vec![input]);
    }
    let mut inputs = Vec::new();
    let items = paths.try_iter().map_err(|_| not_an_input(paths))?;
    for item in items {
        let item = item?;
        inputs.push(one_input(&item)?.ok_or_else(|| not_an_input(&item))?);
    }
    if inputs.is_empty() {
        return Err(PyValueError::new_err("paths: no input given"));
    }
    Ok(inputs)
}

/// `object` as one input, if it is one.
fn one_input(object: &Bound<'_, PyAny>) -> PyResult<Option<Input>> {
    if let Ok(bytes) = object.cast::<PyBytes>() {
        return Ok(Some(Input::Bytes(bytes.as_bytes().to_vec())));
    }
    if let Ok(bytes) = object.cast::<PyByteArray>() {
        return Ok(Some(Input::Bytes(bytes.to_vec())));
    }
    if object.is_instance_of::<PyString>() || object.hasattr("__fspath__")? {
        return Ok(Some(Input::Path(object.extract()?)));
    }
    Ok(None)
}

fn not_an_input(object: &Bound<'_, PyAny>) -> PyErr {
    let type_name = object
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |name| name.to_string());
    PyTypeError::new_err(format!(
        "paths: a path (str or os.PathLike), bytes of PGN, or a list of them, not {type_name}"
    ))
}

/// The pipeline settings for `threads` (default: one per core).
///
/// # Errors
///
/// A `ValueError` for a count outside 1 to 1024, as the command line's
/// `--threads`.
pub fn config(threads: Option<i64>) -> PyResult<PipelineConfig> {
    let mut config = PipelineConfig::default();
    if let Some(threads) = threads {
        config.threads = usize::try_from(threads)
            .ok()
            .filter(|n| (1..=1024).contains(n))
            .ok_or_else(|| {
                PyValueError::new_err(format!("threads: {threads} is not in 1..=1024"))
            })?;
    }
    Ok(config)
}

/// Whether Ctrl-C (or another signal with a Python handler) came while
/// Rust worked without the GIL: its exception, to stop the run with. Called
/// between batches, on the thread that called the function.
///
/// # Errors
///
/// The exception of the signal's handler (`KeyboardInterrupt` for Ctrl-C).
pub fn interrupted() -> PyResult<()> {
    Python::attach(|py| py.check_signals())
}

/// An `OSError`, of the kind `err` says where Python has one, whose
/// message is the command line's: `NAME: what went wrong`.
pub fn os_error(name: &str, err: &io::Error) -> PyErr {
    let message = format!("{name}: {err}");
    match err.kind() {
        io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
        io::ErrorKind::IsADirectory => PyIsADirectoryError::new_err(message),
        _ => PyOSError::new_err(message),
    }
}

/// How a run over input `name` failed: its read error as an `OSError`,
/// the consumer's own exception as it is, a panic of the library as a
/// `RuntimeError` (never a panic across the boundary).
pub fn run_error(name: &str, err: PipelineError<PyErr>) -> PyErr {
    match err {
        PipelineError::Read(err) => os_error(name, &err),
        PipelineError::Consume(err) => err,
        PipelineError::Panic(message) => internal_error(&message),
    }
}

/// A bug of the library, reported as the command line reports it.
pub fn internal_error(message: &str) -> PyErr {
    PyRuntimeError::new_err(format!("internal error, please report it: {message}"))
}

/// A comma-separated list or a list of strings (`"A,B"` or `["A", "B"]`),
/// as the command line takes `--tags A,B`.
///
/// # Errors
///
/// A `TypeError` for anything else.
pub fn names(argument: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(text) = value.extract::<String>() {
        return Ok(text
            .split(',')
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect());
    }
    let mut names = Vec::new();
    for item in value
        .try_iter()
        .map_err(|_| PyTypeError::new_err(format!("{argument}: a string or a list of strings")))?
    {
        let item = item?;
        if let Ok(text) = item.extract::<String>() {
            names.push(text);
        } else if let Ok(number) = item.extract::<i64>() {
            names.push(number.to_string());
        } else {
            return Err(PyTypeError::new_err(format!(
                "{argument}: a string or a list of strings (or numbers)"
            )));
        }
    }
    Ok(names)
}
