//! Where commands write files, so that no output ever costs an input its
//! bytes or another output: every file a command writes (`-o`,
//! `--report`, `--plot`, ...) goes through one [`Outputs`], which refuses
//! a path that is one of the inputs (the same file under any name,
//! standard input included), that is the write end of the pipe the
//! command reads from, or that is the same file as another of its outputs
//! (standard output included). A file is written under a temporary name
//! beside it, made before any input is read (so that an output that
//! cannot be written fails at once), and renamed over its name only when
//! the run has ended well, every output of the run together (see
//! [`Outputs::settle`]): a run that fails, panics or is killed half-way
//! leaves every old output as it was and no half one. Devices, pipes and
//! names such as `/dev/stdout`, which no file can replace, are written as
//! the run goes.
//!
//! Several inputs written to one stream one after another are kept apart
//! by [`Joined`]: an input whose bytes do not end in a line ending gets
//! one, and an empty line, before the next input's bytes (readers such as
//! python-chess take a tag right after movetext for more movetext).

use std::cell::RefCell;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use anyhow::{Context, bail};
use pgn960::input::Source;

use super::EXIT_ERROR;
use super::temporary::{self, RenameError, Temporary, folder_of, plain_os_error};

/// Files written whole under temporary names, each with the name it is
/// to have once the run has ended well, and that name as given, for
/// messages.
type Finished = Arc<Mutex<Vec<(PathBuf, Temporary, String)>>>;

/// The files of `finished`, as good as before should a panic have held
/// them.
fn lock(finished: &Finished) -> MutexGuard<'_, Vec<(PathBuf, Temporary, String)>> {
    finished
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The files a command reads and writes, by identity: an output is
/// refused when it is one of the inputs or one of the outputs before it.
pub struct Outputs {
    inputs: Vec<(FileId, String)>,
    /// Standard input, when it is a pipe: an output that is its write end
    /// would never let the command's own reading end.
    stdin_pipe: Option<FileId>,
    claimed: RefCell<Vec<(FileId, String)>>,
    /// The names files will be renamed to, with what each is, for
    /// messages: an output not made yet has no identity but its name.
    names: RefCell<Vec<(PathBuf, String)>>,
    /// The output standard output takes, if one does: what it writes.
    stdout: RefCell<Option<String>>,
    finished: Finished,
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
            names: RefCell::new(Vec::new()),
            stdout: RefCell::new(None),
            finished: Finished::default(),
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
        // A file no output has made yet is known by its name alone.
        if let Ok(Target::File(target)) = target_of(path)
            && let Some((_, other)) = self.names.borrow().iter().find(|(name, _)| *name == target)
        {
            bail!(
                "{}: the same file as {other}; nothing was written, give each output a file of its own",
                path.display()
            );
        }
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

    /// Opens `path` for writing: a temporary file beside the file it
    /// names (the file a symbolic link points to, whose link stays), made
    /// now, so that an output that cannot be written is an error before
    /// any input is read; a device, a pipe, or a name such as
    /// `/dev/stdout`, opened as it is.
    ///
    /// # Errors
    ///
    /// When `path` is refused (see [`Outputs::refuse_input`]), is the name
    /// of another output, is a folder or a file without write permission,
    /// or its folder cannot be written in.
    pub fn create(&self, path: &Path) -> anyhow::Result<OutputFile> {
        self.refuse_input(path)?;
        let named = || path.display().to_string();
        let output = match target_of(path).with_context(named)? {
            Target::AsItIs => OutputFile {
                file: OpenOptions::new()
                    .write(true)
                    .open(path)
                    .with_context(named)?,
                replacing: None,
                begun: false,
            },
            Target::File(target) => {
                if fs::metadata(&target).is_ok() {
                    // Refused now, as writing into it would be.
                    OpenOptions::new()
                        .write(true)
                        .open(&target)
                        .with_context(named)?;
                }
                let (file, temporary) = temporary_for(&target).with_context(named)?;
                self.names
                    .borrow_mut()
                    .push((target.clone(), format!("the output {}", path.display())));
                OutputFile {
                    file,
                    replacing: Some(Replacing {
                        temporary,
                        to: target,
                        name: path.display().to_string(),
                        finished: Arc::clone(&self.finished),
                    }),
                    begun: false,
                }
            }
        };
        self.claim(path);
        Ok(output)
    }

    /// Takes files written whole under temporary names (the files of
    /// `filter --split-by`), each to be renamed to its name when the run
    /// has ended well (see [`Outputs::settle`]).
    pub fn rename_at_end(&self, files: Vec<(PathBuf, Temporary)>) {
        lock(&self.finished).extend(files.into_iter().map(|(path, temporary)| {
            let name = path.display().to_string();
            (path, temporary, name)
        }));
    }

    /// Ends the run's output files, as `code` says the run ended: when
    /// it ended well (any code but [`EXIT_ERROR`]), every file written
    /// whole is renamed over its name, all of them or none; when it did
    /// not (an input failed), every output is left as it was and a line
    /// says so. An output
    /// not finished (its run stopped by an error) is never renamed.
    /// Returns `code`.
    ///
    /// # Errors
    ///
    /// A name that could not be given; every output is then as it was.
    pub fn settle(&self, code: u8) -> anyhow::Result<u8> {
        self.rename(code, code != EXIT_ERROR)
    }

    /// As [`Outputs::settle`], but the files are renamed whatever the
    /// run's end: for `--in-place`, whose report tells the changes made to
    /// the files that were rewritten, whichever others failed.
    ///
    /// # Errors
    ///
    /// As [`Outputs::settle`].
    pub fn settle_all_the_same(&self, code: u8) -> anyhow::Result<u8> {
        self.rename(code, true)
    }

    /// Renames the finished files when `keep`, else leaves every output.
    fn rename(&self, code: u8, keep: bool) -> anyhow::Result<u8> {
        let finished = std::mem::take(&mut *lock(&self.finished));
        if !keep {
            if !finished.is_empty() {
                let names: Vec<&str> = finished.iter().map(|(_, _, name)| name.as_str()).collect();
                eprintln!(
                    "pgn960: an input failed, so nothing was written to {} \
                     (an existing file stays as it was)",
                    names.join(", ")
                );
            }
            return Ok(code); // the temporary files go as they drop
        }
        let names: Vec<(PathBuf, String)> = finished
            .iter()
            .map(|(path, _, name)| (path.clone(), name.clone()))
            .collect();
        let files = finished
            .into_iter()
            .map(|(path, temporary, _)| (path, temporary))
            .collect();
        temporary::rename_all(files).map_err(|err| match err {
            RenameError::NotRenamed(path, err) => {
                let name = names
                    .iter()
                    .find(|(to, _)| *to == path)
                    .map_or_else(|| path.display().to_string(), |(_, name)| name.clone());
                anyhow::anyhow!("{name}: cannot be written: {err}; every output is as it was")
            }
            RenameError::Unsynced(folder, err) => anyhow::anyhow!(
                "written, but the folder {} could not be synced to disk: {}",
                folder.display(),
                plain_os_error(err)
            ),
        })?;
        Ok(code)
    }
}

/// What an output's name is: a file, written under a temporary name and
/// renamed to this path (symbolic links followed, the folder's path
/// made absolute); or a device, a pipe, or a name such as `/dev/stdout`
/// that only leads to another file, written as it is.
enum Target {
    File(PathBuf),
    AsItIs,
}

/// The [`Target`] of `path`.
fn target_of(path: &Path) -> io::Result<Target> {
    let mut path = path.to_path_buf();
    // As the kernel allows.
    for _ in 0..40 {
        if leads_elsewhere(&path) {
            return Ok(Target::AsItIs);
        }
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(err) if err.kind() == io::ErrorKind::NotFound => break,
            Err(err) => return Err(err),
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            let link = fs::read_link(&path)?;
            path = match path.parent() {
                Some(dir) => dir.join(link),
                None => link,
            };
            continue;
        }
        if kind.is_dir() {
            return Err(io::Error::from_raw_os_error(libc::EISDIR));
        }
        if !kind.is_file() {
            return Ok(Target::AsItIs);
        }
        break;
    }
    if fs::symlink_metadata(&path).is_ok_and(|meta| meta.file_type().is_symlink()) {
        return Err(io::Error::from_raw_os_error(libc::ELOOP));
    }
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::from_raw_os_error(libc::EISDIR))?
        .to_owned();
    let dir = folder_of(&path);
    Ok(Target::File(fs::canonicalize(dir)?.join(name)))
}

/// Names that lead to a file the process already has (`/dev/stdout`,
/// `/dev/fd/3`, `/proc/self/fd/1`): renaming over them is impossible, or
/// would replace a file that a shell opened for the run.
fn leads_elsewhere(path: &Path) -> bool {
    path.starts_with("/proc")
        || path.starts_with("/dev/fd")
        || ["/dev/stdout", "/dev/stderr", "/dev/stdin"]
            .iter()
            .any(|name| path == Path::new(name))
}

/// A temporary file beside `target`, with the permissions of the file
/// it replaces (those of a new file when there is none).
fn temporary_for(target: &Path) -> io::Result<(File, Temporary)> {
    let dir = target.parent().unwrap_or(Path::new("/"));
    let name = target
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    let old = fs::metadata(target).ok();
    let mode = old
        .as_ref()
        .map_or(0o666, |meta| meta.permissions().mode() & 0o7777);
    let (file, temporary) = Temporary::create(dir, &name, mode)?;
    if let Some(old) = old {
        // The umask took some of them away.
        file.set_permissions(old.permissions())
            .map_err(plain_os_error)?;
    }
    Ok((file, temporary))
}

/// A file opened by [`Outputs::create`]: written under a temporary name
/// and renamed over its name at the end of a run that ends well, or a
/// device or pipe written as the run goes.
pub struct OutputFile {
    file: File,
    /// The temporary file and the name it is to have; `None` for a file
    /// written as it is.
    replacing: Option<Replacing>,
    begun: bool,
}

/// A temporary file, the name it is to have, and where it goes once
/// written whole.
struct Replacing {
    temporary: Temporary,
    to: PathBuf,
    /// The name as given, for messages.
    name: String,
    finished: Finished,
}

impl OutputFile {
    /// Hands out the file for writing; a regular file written as it is
    /// (`/dev/stdout` redirected to a file) is emptied first, once.
    ///
    /// # Errors
    ///
    /// When the file cannot be emptied.
    pub fn begin(&mut self) -> io::Result<&mut File> {
        if !self.begun {
            // A device (`/dev/null`, `/dev/full`) has no length to cut.
            if self.replacing.is_none() && self.file.metadata()?.is_file() {
                self.file.set_len(0)?;
            }
            self.begun = true;
        }
        Ok(&mut self.file)
    }

    /// Ends the output: when some input was read (even an empty one), the
    /// file holds exactly what was written, on disk, to be renamed over
    /// its name when the run ends well; otherwise the temporary file goes
    /// and an existing file is left as it was.
    ///
    /// # Errors
    ///
    /// When the file cannot be emptied, flushed or synced.
    pub fn finish(mut self, any_input_read: bool) -> io::Result<()> {
        if !any_input_read {
            return Ok(());
        }
        self.begin()?.flush()?;
        if let Some(replacing) = self.replacing.take() {
            self.file.sync_all()?;
            lock(&replacing.finished).push((replacing.to, replacing.temporary, replacing.name));
        }
        Ok(())
    }
}

/// A writer into an [`OutputFile`], which it begins on the first write.
pub struct LazyOutput {
    file: OutputFile,
}

impl LazyOutput {
    /// Writes into `file` once something is written.
    pub fn new(file: OutputFile) -> LazyOutput {
        LazyOutput { file }
    }

    /// Ends the output (see [`OutputFile::finish`]).
    ///
    /// # Errors
    ///
    /// When the file cannot be emptied, flushed or synced.
    pub fn finish(self, any_input_read: bool) -> io::Result<()> {
        self.file.finish(any_input_read)
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
        if self.file.begun {
            self.file.file.flush()
        } else {
            Ok(())
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
