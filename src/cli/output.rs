//! Where commands write files, so that no output ever costs an input its
//! bytes or another output: every file a command writes (`-o`,
//! `--report`, `--plot`, ...) goes through one [`Outputs`], which refuses
//! a path that is one of the inputs (the same file under any name,
//! standard input included), that is the write end of the pipe the
//! command reads from, or that is the same file as another of its outputs
//! (standard output included); and creates the file before any input is
//! read, without emptying it until there is something to write.
//!
//! Several inputs written to one stream one after another are kept apart
//! by [`Joined`]: an input whose bytes do not end in a line ending gets
//! one, and an empty line, before the next input's bytes (readers such as
//! python-chess take a tag right after movetext for more movetext).

use std::cell::RefCell;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pgn960::input::Source;

/// The files a command reads and writes, by identity: an output is
/// refused when it is one of the inputs or one of the outputs before it.
pub struct Outputs {
    inputs: Vec<(FileId, String)>,
    /// Standard input, when it is a pipe: an output that is its write end
    /// would never let the command's own reading end.
    stdin_pipe: Option<FileId>,
    claimed: RefCell<Vec<(FileId, String)>>,
    /// The output standard output takes, if one does: what it writes.
    stdout: RefCell<Option<String>>,
    hint: &'static str,
}

impl Outputs {
    /// The identities of `sources` that exist as files now (standard input
    /// included when it is redirected from a file or a pipe).
    pub fn guarding(sources: &[Source]) -> Outputs {
        let inputs = sources
            .iter()
            .filter_map(|source| Some((FileId::of_source(source)?, source.to_string())))
            .collect();
        let stdin_pipe = stdin_metadata()
            .filter(|meta| meta.file_type().is_fifo())
            .and_then(|meta| FileId::of(&meta));
        Outputs {
            inputs,
            stdin_pipe,
            claimed: RefCell::new(Vec::new()),
            stdout: RefCell::new(None),
            hint: "",
        }
    }

    /// Adds a hint to the refusal of an output that is an input (for
    /// `tag`: ", or use --in-place").
    pub fn hint(mut self, hint: &'static str) -> Outputs {
        self.hint = hint;
        self
    }

    /// Refuses `path` when it is one of the inputs, the write end of
    /// standard input's pipe, or the same file as an output claimed before.
    ///
    /// # Errors
    ///
    /// One line naming the output and what it is.
    pub fn refuse_input(&self, path: &Path) -> anyhow::Result<()> {
        let Some(id) = FileId::of_path(path) else {
            return Ok(()); // does not exist yet, so it is no input
        };
        if let Some((_, input)) = self.inputs.iter().find(|(input, _)| *input == id) {
            let hint = if input == "<stdin>" { "" } else { self.hint };
            bail!(
                "{}: the output is also an input ({input}); nothing was written, write to another file{hint}",
                path.display(),
            );
        }
        if self.stdin_pipe == Some(id) {
            bail!(
                "{}: the output is the pipe standard input comes from, which would never end; \
                 nothing was written, write to another file",
                path.display()
            );
        }
        if let Some((_, other)) = self.claimed.borrow().iter().find(|(other, _)| *other == id) {
            bail!(
                "{}: the same file as {other}; nothing was written, give each output a file of its own",
                path.display()
            );
        }
        Ok(())
    }

    /// Notes that `path`, now open for writing, is an output: no later
    /// output may be the same file.
    fn claim(&self, path: &Path) {
        if let Some(id) = FileId::of_path(path) {
            self.claimed
                .borrow_mut()
                .push((id, format!("the output {}", path.display())));
        }
    }

    /// Notes that `what` (`the CSV`) goes to standard output, asked by
    /// `option` (`--plot -`, or `-o` when none is given): no other output
    /// may go there, nor be the file (or pipe) it goes to.
    ///
    /// # Errors
    ///
    /// When another output already goes to standard output.
    pub fn claim_stdout(&self, option: &str, what: &str) -> anyhow::Result<()> {
        if let Some(other) = self.stdout.borrow().as_ref() {
            bail!(
                "{option}: standard output already takes {other}; \
                 nothing was written, give one of them a file"
            );
        }
        *self.stdout.borrow_mut() = Some(what.to_string());
        let meta = io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .and_then(|fd| File::from(fd).metadata().ok());
        if let Some(id) = meta.and_then(|meta| FileId::of(&meta)) {
            self.claimed
                .borrow_mut()
                .push((id, "standard output".to_string()));
        }
        Ok(())
    }

    /// Opens `path` for writing, creating it now so that an output that
    /// cannot be written is an error before any input is read. An existing
    /// file keeps its bytes until [`OutputFile::begin`]; a file created here
    /// and never begun is removed again.
    ///
    /// # Errors
    ///
    /// When `path` is refused (see [`Outputs::refuse_input`]), or cannot be
    /// created.
    pub fn create(&self, path: &Path) -> anyhow::Result<OutputFile> {
        self.refuse_input(path)?;
        let existed = fs::metadata(path).is_ok();
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| path.display().to_string())?;
        // Made through a symbolic link, the new file is where it points.
        let created = (!existed).then(|| fs::canonicalize(path).unwrap_or_else(|_| path.into()));
        self.claim(path);
        Ok(OutputFile {
            file: Some(file),
            created,
            begun: false,
        })
    }
}

/// A file opened by [`Outputs::create`]: its old bytes stay until the
/// command has something to write.
pub struct OutputFile {
    file: Option<File>,
    /// The file made by this run, when there was none.
    created: Option<PathBuf>,
    begun: bool,
}

impl OutputFile {
    /// Empties the file (once) and hands it out for writing.
    ///
    /// # Errors
    ///
    /// When the file cannot be emptied.
    pub fn begin(&mut self) -> io::Result<&mut File> {
        let file = self
            .file
            .as_mut()
            .expect("an output file is open until dropped");
        if !self.begun {
            // A device (`/dev/null`, `/dev/full`) has no length to cut.
            if file.metadata()?.is_file() {
                file.set_len(0)?;
            }
            self.begun = true;
        }
        Ok(file)
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // Nothing was ever written (every input failed): leave no empty
        // file behind, and an existing one as it was.
        if self.file.take().is_some()
            && !self.begun
            && let Some(created) = &self.created
        {
            let _ = fs::remove_file(created);
        }
    }
}

/// A writer that empties its [`OutputFile`] on the first write, so that a
/// run whose inputs all fail leaves the file as it was.
pub struct LazyOutput {
    file: OutputFile,
}

impl LazyOutput {
    /// Writes into `file` once something is written.
    pub fn new(file: OutputFile) -> LazyOutput {
        LazyOutput { file }
    }

    /// Ends the output: when some input was read (even an empty one), the
    /// file holds exactly what was written; otherwise it is left alone.
    ///
    /// # Errors
    ///
    /// When the file cannot be emptied or flushed.
    pub fn finish(mut self, any_input_read: bool) -> io::Result<()> {
        if any_input_read {
            self.file.begin()?.flush()?;
        }
        Ok(())
    }
}

impl Write for LazyOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.begin()?.write(buf)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.file.begin()?.write_vectored(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.file.file.as_mut() {
            Some(file) if self.file.begun => file.flush(),
            _ => Ok(()),
        }
    }
}

/// What makes two paths the same file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId {
    device: u64,
    inode: u64,
}

impl FileId {
    fn of_path(path: &Path) -> Option<FileId> {
        fs::metadata(path).ok().and_then(|meta| FileId::of(&meta))
    }

    fn of_source(source: &Source) -> Option<FileId> {
        match source {
            Source::Path(path) => FileId::of_path(path),
            Source::Stdin => stdin_metadata().and_then(|meta| FileId::of(&meta)),
        }
    }

    /// Regular files and pipes: what an output can overwrite or fill.
    /// A device (`/dev/null`, a terminal) is shared harmlessly.
    fn of(meta: &fs::Metadata) -> Option<FileId> {
        let kind = meta.file_type();
        (kind.is_file() || kind.is_fifo() || kind.is_socket()).then(|| FileId {
            device: meta.dev(),
            inode: meta.ino(),
        })
    }
}

fn stdin_metadata() -> Option<fs::Metadata> {
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

/// Where a stream that several inputs are written to stands: its last
/// byte, and the line ending it last wrote, to put between an input that
/// does not end its last line and the next.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineJoin {
    /// The last byte written, `None` before any.
    last: Option<u8>,
    /// The last line ending written: `\n`, `\r\n` or `\r`.
    ending: Option<&'static [u8]>,
    /// Whether an input ended since the last byte written.
    between: bool,
}

impl LineJoin {
    /// An input ends: the next bytes written are another's.
    pub fn end_input(&mut self) {
        self.between = true;
    }

    /// What to write before the bytes that come next: when they begin
    /// another input and the last input did not end its line, a line
    /// ending and an empty line, in the style of its last line ending
    /// (`\n` when it has none), so that the next input's first tag comes
    /// after an empty line, as between games.
    pub fn separator(&mut self, next_is_empty: bool) -> &'static [u8] {
        if !self.between || next_is_empty {
            return b"";
        }
        self.between = false;
        match (self.last, self.ending) {
            (Some(b'\n' | b'\r') | None, _) => b"",
            (Some(_), Some(b"\r\n")) => b"\r\n\r\n",
            (Some(_), Some(b"\r")) => b"\r\r",
            (Some(_), _) => b"\n\n",
        }
    }

    /// Notes bytes written, in order (a write may come in several slices).
    pub fn wrote(&mut self, bytes: &[u8]) {
        let Some(&last) = bytes.last() else {
            return;
        };
        if let Some(at) = memchr::memrchr2(b'\n', b'\r', bytes) {
            let before = if at == 0 {
                self.last
            } else {
                Some(bytes[at - 1])
            };
            self.ending = Some(match bytes[at] {
                b'\n' if before == Some(b'\r') => b"\r\n",
                b'\n' => b"\n",
                _ => b"\r",
            });
        }
        self.last = Some(last);
    }
}

/// A stream that several inputs are written to one after another (see
/// [`LineJoin`]): an input alone goes through byte for byte; after an
/// input whose last line has no line ending, the next input's bytes come
/// after a line ending and an empty line in the style of the input
/// before.
pub struct Joined<W> {
    inner: W,
    join: LineJoin,
}

impl<W: Write> Joined<W> {
    /// Joins inputs written to `inner`.
    pub fn new(inner: W) -> Joined<W> {
        Joined {
            inner,
            join: LineJoin::default(),
        }
    }

    /// An input ends.
    pub fn end_input(&mut self) {
        self.join.end_input();
    }

    /// The stream, given back.
    pub fn into_inner(self) -> W {
        self.inner
    }

    fn separate(&mut self, next_is_empty: bool) -> io::Result<()> {
        let separator = self.join.separator(next_is_empty);
        if !separator.is_empty() {
            self.inner.write_all(separator)?;
            self.join.wrote(separator);
        }
        Ok(())
    }
}

impl<W: Write> Write for Joined<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.separate(buf.is_empty())?;
        let n = self.inner.write(buf)?;
        self.join.wrote(&buf[..n]);
        Ok(n)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.separate(bufs.iter().all(|buf| buf.is_empty()))?;
        let n = self.inner.write_vectored(bufs)?;
        let mut left = n;
        for buf in bufs {
            let taken = left.min(buf.len());
            self.join.wrote(&buf[..taken]);
            left -= taken;
            if left == 0 {
                break;
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
