//! One rule for every output a command writes (`-o`, `--report`,
//! `--plot`, `--summary`, ...): `-` is standard output; a file's last
//! extension chooses its compression (`.gz`, `.zst`, `.bz2`, `.xz`, or
//! none) and the extension before it its format, unless a `--format` is
//! given; a name that says another format than the one asked, or one the
//! option cannot write, is refused before anything is read or written.
//! [`Outputs::open`] decides all of it in one place for every command.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::fd::AsFd;
use std::path::Path;

use anyhow::{Context, bail};
use pgn960::compression::{Compression, Encoder};

use super::output::{LazyOutput, Outputs};

/// What an output option writes: its name for messages, the formats it
/// can write, each with the extension that names it, and the format of a
/// name that names none.
pub struct OutputKind<F: 'static> {
    /// The option (`-o`, `--report`), for messages.
    pub option: &'static str,
    /// What it writes (`the CSV`, `the plot`), for messages.
    pub what: &'static str,
    /// The formats, each with its extension, the first the default of
    /// standard output.
    pub formats: &'static [(F, &'static str)],
    /// Whether a file whose name names no format (`out`, `findings.txt`)
    /// gets the default format; when not, such a name needs `--format`.
    pub unnamed_gets_default: bool,
}

/// Extensions of formats that some output of pgn960, or a common tool,
/// writes: a name ending in one of them says its format, and an option
/// that cannot write it refuses the name rather than fill it with another
/// format.
const KNOWN_FORMATS: &[&str] = &[
    "pgn", "csv", "tsv", "json", "jsonl", "ndjson", "parquet", "arrow", "feather", "svg", "png",
    "jpg", "jpeg", "gif", "webp", "bmp", "tif", "tiff", "pdf", "eps", "ps", "html", "xlsx",
];

/// Whether an output path is `-`, standard output.
pub fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// The extension that names a file's format, lower-cased, once a
/// compression extension is taken off: `games.CSV.gz` → `csv`.
fn format_extension(path: &Path) -> Option<String> {
    let path = if Compression::of_path(path) == Compression::None {
        path
    } else {
        Path::new(path.file_stem()?)
    };
    Some(path.extension()?.to_str()?.to_ascii_lowercase())
}

impl<F: Copy + PartialEq> OutputKind<F> {
    /// The extension of `format`.
    fn name_of(&self, format: F) -> &'static str {
        self.formats
            .iter()
            .find(|(known, _)| *known == format)
            .map_or("?", |(_, name)| name)
    }

    /// The formats' names: `csv or jsonl`.
    fn names(&self) -> String {
        let names: Vec<&str> = self.formats.iter().map(|(_, name)| *name).collect();
        match names.split_last() {
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// The format written to `path` (`None`: standard output): `asked`
    /// (`--format`), else the one its name's extension says, else the
    /// default.
    ///
    /// # Errors
    ///
    /// A name that says a format other than `asked`, or one this option
    /// cannot write; a name that says none when `--format` must then be
    /// given.
    pub fn format(&self, path: Option<&Path>, asked: Option<F>) -> anyhow::Result<F> {
        let default = self.formats[0].0;
        let Some(path) = path.filter(|path| !is_stdout(path)) else {
            return Ok(asked.unwrap_or(default));
        };
        let extension = format_extension(path);
        let named = extension.as_deref().and_then(|extension| {
            self.formats
                .iter()
                .find(|(_, name)| *name == extension)
                .map(|(format, _)| *format)
        });
        match (named, extension.as_deref(), asked) {
            (Some(named), _, Some(asked)) if named != asked => bail!(
                "{}: the extension says {}, but --format says {}; make them agree",
                path.display(),
                self.name_of(named),
                self.name_of(asked),
            ),
            (Some(named), _, _) => Ok(named),
            (None, Some(extension), _) if KNOWN_FORMATS.contains(&extension) => bail!(
                "{}: {} writes {} as {}, not {extension}; name the file .{}",
                path.display(),
                self.option,
                self.what,
                self.names(),
                self.name_of(asked.unwrap_or(default)),
            ),
            (None, _, Some(asked)) => Ok(asked),
            (None, _, None) if self.unnamed_gets_default => Ok(default),
            (None, _, None) => bail!(
                "{}: no format known by this extension ({}); name one with --format",
                path.display(),
                self.formats
                    .iter()
                    .map(|(_, name)| format!(".{name}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        }
    }
}

impl Outputs {
    /// The output `option` asks for, `path` (`None` or `-`: standard
    /// output), and its format: refused as [`Outputs::create`] refuses a
    /// file, when its name says a format it cannot have (see
    /// [`OutputKind::format`]), and when standard output already takes
    /// another output. The file is created now, compressed as its name
    /// says once something is written.
    ///
    /// # Errors
    ///
    /// As above, one line naming the output.
    pub fn open<F: Copy + PartialEq>(
        &self,
        kind: &OutputKind<F>,
        path: Option<&Path>,
        asked: Option<F>,
    ) -> anyhow::Result<(Destination, F)> {
        if let Some(path) = path.filter(|path| !is_stdout(path)) {
            self.refuse_input(path)?;
            let format = kind.format(Some(path), asked)?;
            let file = LazyOutput::new(self.create(path)?);
            let state = match Compression::of_path(path) {
                Compression::None => State::Plain(file),
                compression => State::Waiting(Some(file), compression),
            };
            return Ok((Destination { state }, format));
        }
        let format = kind.format(None, asked)?;
        let option = format!("{} -", kind.option);
        let what = if path.is_some() {
            format!("{} ({option})", kind.what)
        } else {
            format!("{} (no {} given)", kind.what, kind.option)
        };
        self.claim_stdout(&option, &what)?;
        // Outputs are written in large spans or through buffers of their
        // own: standard output's line buffering would only add a copy.
        let stdout = io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .context("standard output")?;
        Ok((
            Destination {
                state: State::Stdout(File::from(stdout)),
            },
            format,
        ))
    }
}

/// Where an output's bytes go: standard output, or a file (see
/// [`LazyOutput`]) written plain or compressed, the compressor started at
/// the first byte (an encoder writes its trailer even when dropped, which
/// would empty a file that a run that reads nothing must leave alone).
pub struct Destination {
    state: State,
}

enum State {
    Stdout(File),
    Plain(LazyOutput),
    /// A file to compress, until the first byte.
    Waiting(Option<LazyOutput>, Compression),
    /// Boxed: an encoder's state is large beside a file's.
    Encoding(Box<Encoder<'static, BufWriter<LazyOutput>>>),
}

impl Destination {
    /// The writer, the compressor started if it was waiting.
    fn started(&mut self) -> io::Result<&mut State> {
        if let State::Waiting(file, compression) = &mut self.state {
            let file = file.take().expect("a waiting output holds its file");
            self.state = State::Encoding(Box::new(
                compression.encoder(BufWriter::with_capacity(1 << 20, file))?,
            ));
        }
        Ok(&mut self.state)
    }

    /// Ends the output: when some input was read (even an empty one), the
    /// file holds exactly what was written, compressed as its name says
    /// (an empty compressed stream for nothing); otherwise a file is left
    /// as it was.
    ///
    /// # Errors
    ///
    /// When the output cannot be compressed, emptied or flushed.
    pub fn finish(mut self, any_input_read: bool) -> io::Result<()> {
        if any_input_read {
            self.started()?;
        }
        match self.state {
            State::Stdout(mut out) => out.flush(),
            State::Plain(out) => out.finish(any_input_read),
            State::Waiting(file, _) => file.expect("a waiting output holds its file").finish(false),
            State::Encoding(encoder) => encoder
                .finish()?
                .into_inner()
                .map_err(|err| err.into_error())?
                .finish(true),
        }
    }
}

impl Write for Destination {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        match self.started()? {
            State::Stdout(out) => out.write(buf),
            State::Plain(out) => out.write(buf),
            State::Encoding(out) => out.write(buf),
            State::Waiting(..) => unreachable!("a compressed output is started by its first byte"),
        }
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        if bufs.iter().all(|buf| buf.is_empty()) {
            return Ok(0);
        }
        match self.started()? {
            State::Stdout(out) => out.write_vectored(bufs),
            State::Plain(out) => out.write_vectored(bufs),
            State::Encoding(out) => out.write_vectored(bufs),
            State::Waiting(..) => unreachable!("a compressed output is started by its first byte"),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.state {
            State::Stdout(out) => out.flush(),
            State::Plain(out) => out.flush(),
            State::Encoding(out) => out.flush(),
            State::Waiting(..) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Report {
        Csv,
        Jsonl,
    }

    const REPORT: OutputKind<Report> = OutputKind {
        option: "--report",
        what: "the findings",
        formats: &[(Report::Csv, "csv"), (Report::Jsonl, "jsonl")],
        unnamed_gets_default: true,
    };

    fn format(path: &str, asked: Option<Report>) -> Result<Report, String> {
        REPORT
            .format(Some(Path::new(path)), asked)
            .map_err(|err| err.to_string())
    }

    #[test]
    fn the_name_says_the_format_under_any_compression() {
        assert_eq!(format("v.jsonl", None), Ok(Report::Jsonl));
        assert_eq!(format("v.JSONL.gz", None), Ok(Report::Jsonl));
        assert_eq!(format("v.csv.zst", None), Ok(Report::Csv));
        assert_eq!(format("v.txt", None), Ok(Report::Csv));
        assert_eq!(format("v.txt", Some(Report::Jsonl)), Ok(Report::Jsonl));
        assert_eq!(format("-", Some(Report::Jsonl)), Ok(Report::Jsonl));
        assert_eq!(format("v.gz", None), Ok(Report::Csv));
    }

    #[test]
    fn a_name_that_contradicts_the_format_is_refused() {
        let err = format("v.csv.gz", Some(Report::Jsonl)).unwrap_err();
        assert_eq!(
            err,
            "v.csv.gz: the extension says csv, but --format says jsonl; make them agree"
        );
        let err = format("v.json", None).unwrap_err();
        assert_eq!(
            err,
            "v.json: --report writes the findings as csv or jsonl, not json; name the file .csv"
        );
    }
}
