//! Where commands write files, so that no output ever costs an input its
//! bytes: every file a command writes (`-o`, `--report`, `--plot`, ...)
//! goes through [`Outputs`], which refuses a path that is one of the
//! inputs (the same file under any name, standard input included) and
//! creates the file before any input is read, without emptying it until
//! there is something to write.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pgn960::input::Source;

/// The files a command reads, by identity: an output is refused when it is
/// one of them.
pub struct Outputs {
    inputs: Vec<(FileId, String)>,
    hint: &'static str,
}

impl Outputs {
    /// The identities of `sources` that exist as files now (standard input
    /// included when it is redirected from a file).
    pub fn guarding(sources: &[Source]) -> Outputs {
        let inputs = sources
            .iter()
            .filter_map(|source| Some((FileId::of_source(source)?, source.to_string())))
            .collect();
        Outputs { inputs, hint: "" }
    }

    /// Adds a hint to the refusal of an output that is an input (for
    /// `tag`: ", or use --in-place").
    pub fn hint(mut self, hint: &'static str) -> Outputs {
        self.hint = hint;
        self
    }

    /// Refuses `path` when it is one of the inputs.
    ///
    /// # Errors
    ///
    /// One line naming the output and the input it is.
    pub fn refuse_input(&self, path: &Path) -> anyhow::Result<()> {
        let Some(id) = FileId::of_path(path) else {
            return Ok(()); // does not exist yet, so it is no input
        };
        if let Some((_, input)) = self.inputs.iter().find(|(input, _)| *input == id) {
            bail!(
                "{}: the output is also an input ({input}); nothing was written, write to another file{}",
                path.display(),
                self.hint
            );
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
    /// When `path` is an input, or cannot be created.
    pub fn create(&self, path: &Path) -> anyhow::Result<OutputFile> {
        self.refuse_input(path)?;
        let existed = fs::symlink_metadata(path).is_ok();
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| path.display().to_string())?;
        Ok(OutputFile {
            path: path.to_path_buf(),
            file: Some(file),
            existed,
            begun: false,
        })
    }
}

/// A file opened by [`Outputs::create`]: its old bytes stay until the
/// command has something to write.
pub struct OutputFile {
    path: PathBuf,
    file: Option<File>,
    existed: bool,
    begun: bool,
}

impl OutputFile {
    /// The file's path, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

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

    /// The file as an owned writer, emptied.
    ///
    /// # Errors
    ///
    /// When the file cannot be emptied.
    pub fn into_writer(mut self) -> io::Result<File> {
        self.begin()?;
        Ok(self
            .file
            .take()
            .expect("an output file is open until dropped"))
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // Nothing was ever written (every input failed): leave no empty
        // file behind, and an existing one as it was.
        if self.file.take().is_some() && !self.begun && !self.existed {
            let _ = fs::remove_file(&self.path);
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

/// Whether two paths name the same file: the same path, or, when both
/// exist, one file under two names.
pub fn same_file(a: &Path, b: &Path) -> bool {
    a == b || FileId::of_path(a).is_some_and(|id| FileId::of_path(b) == Some(id))
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

    /// Only regular files can be written over; a terminal or a pipe on
    /// standard input is no file an output could be.
    fn of(meta: &fs::Metadata) -> Option<FileId> {
        meta.is_file().then(|| FileId {
            device: meta.dev(),
            inode: meta.ino(),
        })
    }
}

fn stdin_metadata() -> Option<fs::Metadata> {
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

/// Standard output, or a file opened by [`Outputs::create`].
pub enum Destination {
    /// Standard output.
    Stdout(io::Stdout),
    /// A file, emptied on the first write.
    File(LazyOutput),
}

impl Destination {
    /// `path`, guarded by `outputs`, or standard output without one.
    ///
    /// # Errors
    ///
    /// As [`Outputs::create`].
    pub fn new(outputs: &Outputs, path: Option<&Path>) -> anyhow::Result<Destination> {
        Ok(match path {
            Some(path) => Destination::File(LazyOutput::new(outputs.create(path)?)),
            None => Destination::Stdout(io::stdout()),
        })
    }

    /// Ends the output (see [`LazyOutput::finish`]).
    ///
    /// # Errors
    ///
    /// When the output cannot be emptied or flushed.
    pub fn finish(self, any_input_read: bool) -> io::Result<()> {
        match self {
            Destination::Stdout(mut out) => out.flush(),
            Destination::File(out) => out.finish(any_input_read),
        }
    }
}

impl Write for Destination {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Destination::Stdout(out) => out.write(buf),
            Destination::File(out) => out.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Destination::Stdout(out) => out.flush(),
            Destination::File(out) => out.flush(),
        }
    }
}
