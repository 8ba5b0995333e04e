//! `--in-place`: an input file rewritten through a temporary file in its
//! own directory, renamed over the original only once complete and on
//! disk, so that a kill at any moment leaves one whole file or the other;
//! the directory is synced after the rename.
//!
//! Before anything is read, a file is refused when it is not a regular
//! file (a named pipe would be replaced by a file), and, unless `--force`,
//! when it has no write permission or other hard links (which would keep
//! the old contents). The new copy keeps the original's permissions, and
//! its owner and group as far as the user may give them. The file is
//! locked while it is rewritten, so that a second `pgn960 --in-place` on
//! it fails at once rather than one run's changes being lost; and it must
//! be as it was read when the new copy replaces it.
//! A compressed file is written back in its format at about its size (see
//! [`Settings::keeping`]), or at `--level`.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use pgn960::compression::{Compression, Settings};
use pgn960::input::{self, MmapChoice, Opened, Source};
use pgn960::pipeline::PipelineError;

use super::interrupt;
use super::temporary::{folder_of, plain_os_error, sync_folder};

/// Temporary files end in this, after the original's name and a random
/// part (`.games.pgn.Ab12Cd.pgn960-tmp`), so that one left behind by a
/// kill is recognisable and never read as an archive.
pub const TEMP_SUFFIX: &str = ".pgn960-tmp";

/// Whether `path` is a temporary file of an interrupted rewrite.
pub fn is_leftover_temporary(path: &Path) -> bool {
    path.to_string_lossy().ends_with(TEMP_SUFFIX)
}

/// Why writing the new contents stopped.
pub enum RewriteError {
    /// The input could not be read to its end.
    Read(io::Error),
    /// The temporary file could not be written.
    Write(io::Error),
    /// A bug: the run ends.
    Panic(String),
}

impl<E: Into<io::Error>> From<PipelineError<E>> for RewriteError {
    fn from(err: PipelineError<E>) -> Self {
        match err {
            PipelineError::Read(err) => RewriteError::Read(err),
            PipelineError::Consume(err) => RewriteError::Write(err.into()),
            PipelineError::Panic(message) => RewriteError::Panic(message),
        }
    }
}

/// Why a file was not rewritten.
pub enum NotRewritten {
    /// It was left as it was: one line saying why.
    Left(String),
    /// A bug ended the run: the panic's message.
    Panic(String),
    /// It was rewritten, but the rename may not outlive a crash of the
    /// machine: one line saying why.
    Unsynced(String),
}

/// `not rewritten, left as it was: WHY`.
fn left(why: impl std::fmt::Display) -> NotRewritten {
    NotRewritten::Left(format!("not rewritten, left as it was: {why}"))
}

/// How `--in-place` rewrites files: the level asked for, whether to force,
/// and the threads a compressor may use.
#[derive(Clone, Copy, Debug)]
pub struct InPlace {
    level: Option<u32>,
    force: bool,
    threads: u32,
}

impl InPlace {
    /// `--level`, `--force`, and `--threads` (default: one per core).
    pub fn new(level: Option<u32>, force: bool, threads: Option<u16>) -> InPlace {
        let threads = threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            u32::from,
        );
        InPlace {
            level,
            force,
            threads,
        }
    }

    /// Opens the file at `given` (the file a symbolic link points to,
    /// whose link stays) to be rewritten: refused, before anything of it
    /// is read, when it cannot be rewritten safely; locked; its input
    /// opened.
    ///
    /// # Errors
    ///
    /// [`NotRewritten::Left`], saying why.
    pub fn open(&self, given: &Path) -> Result<Original, NotRewritten> {
        let path = fs::canonicalize(given).map_err(left)?;
        // A file renamed over between opening and locking is opened again:
        // the lock must be on the file the name now holds.
        let mut tries = 0;
        let (file, meta) = loop {
            let (file, meta) = self.open_locked(&path)?;
            let now = fs::metadata(&path).map_err(left)?;
            if (now.dev(), now.ino()) == (meta.dev(), meta.ino()) {
                break (file, meta);
            }
            tries += 1;
            if tries == 3 {
                return Err(left("another program keeps replacing it"));
            }
        };
        let head = file_head(&file).map_err(left)?;
        let compression = Compression::sniff(&head);
        let mut settings = Settings::keeping(compression, &head);
        if let (Some(level), true) = (self.level, compression != Compression::None) {
            settings = settings
                .with_level(level)
                .map_err(|err| left(format!("--level {level}: {err}")))?;
        }
        let settings = settings.with_threads(self.threads);
        let reading = file.try_clone().map_err(left)?;
        // SAFETY: the file is locked against other runs of this binary,
        // which replace files by renaming rather than writing into them;
        // another program truncating it while it is read ends the run with
        // SIGBUS, as for every input.
        let mmap = unsafe { MmapChoice::auto() };
        let opened = input::open_file(reading, mmap).map_err(left)?;
        Ok(Original {
            path,
            file,
            meta,
            settings,
            opened: Some(opened),
        })
    }

    /// [`InPlace::open`] for an input (standard input is refused before).
    ///
    /// # Errors
    ///
    /// As [`InPlace::open`].
    pub fn open_source(&self, source: &Source) -> Result<Original, NotRewritten> {
        let path = source
            .path()
            .expect("--in-place refuses standard input before reading");
        self.open(path)
    }

    /// Opens and locks the file at `path`, refusing what cannot be
    /// rewritten safely.
    fn open_locked(&self, path: &Path) -> Result<(File, Metadata), NotRewritten> {
        // Without blocking: opening a named pipe to read would wait for a
        // writer.
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(left)?;
        let meta = file.metadata().map_err(left)?;
        if !meta.is_file() {
            let what = if meta.file_type().is_dir() {
                "a directory"
            } else {
                "not a regular file (a named pipe, a device or a socket)"
            };
            return Err(left(format!(
                "{what}; --in-place rewrites regular files only"
            )));
        }
        if !self.force {
            if meta.permissions().readonly() || !writable(path) {
                return Err(left(
                    "it is read-only (no write permission); --force rewrites it all the same",
                ));
            }
            if meta.nlink() > 1 {
                let others = match meta.nlink() - 1 {
                    1 => "another hard link".to_string(),
                    n => format!("{n} other hard links"),
                };
                return Err(left(format!(
                    "it has {others}, which would keep the old contents; \
                     --force rewrites it all the same"
                )));
            }
        }
        match file.try_lock() {
            Ok(()) => Ok((file, meta)),
            Err(fs::TryLockError::WouldBlock) => Err(left(
                "another program is rewriting it (it is locked); run again when it is done",
            )),
            Err(fs::TryLockError::Error(err)) => Err(left(format!("cannot lock it: {err}"))),
        }
    }
}

/// Whether this process may write to `path`, by its effective user and
/// groups (root may write anything the mode allows someone to).
fn writable(path: &Path) -> bool {
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a valid C string; `faccessat` only reads it.
    unsafe { libc::faccessat(libc::AT_FDCWD, name.as_ptr(), libc::W_OK, libc::AT_EACCESS) == 0 }
}

/// The first bytes of `file`, where compression formats record their
/// settings (an xz block header may take 1 KiB), read without moving its
/// position.
fn file_head(file: &File) -> io::Result<Vec<u8>> {
    let mut head = vec![0; 12 + 1024];
    let mut got = 0;
    while got < head.len() {
        match file.read_at(&mut head[got..], got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    head.truncate(got);
    Ok(head)
}

/// A file opened to be rewritten: locked until it is replaced or left.
pub struct Original {
    /// Its path, symbolic links resolved.
    path: PathBuf,
    /// Holds the lock.
    file: File,
    /// As it was opened: it must be so when it is replaced.
    meta: Metadata,
    settings: Settings,
    opened: Option<Opened>,
}

impl Original {
    /// The input to read (once).
    pub fn take_input(&mut self) -> Opened {
        self.opened
            .take()
            .expect("an original's input is taken once")
    }

    /// How the new copy is compressed.
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// Writes the new copy with `write` and, when `write` says something
    /// changed, puts it in the original's place. A file with no change is
    /// not touched.
    ///
    /// # Errors
    ///
    /// [`NotRewritten`]: the file is always left as it was.
    pub fn rewrite(
        self,
        write: impl FnOnce(&mut dyn Write) -> Result<bool, RewriteError>,
    ) -> Result<bool, NotRewritten> {
        let path = &self.path;
        let dir = folder_of(path);
        let file_name = path.file_name().map_or_else(
            || "input".into(),
            |name| name.to_string_lossy().into_owned(),
        );
        let (temp, registered) = interrupt::registered(|| {
            tempfile::Builder::new()
                .prefix(&format!(".{file_name}."))
                .suffix(TEMP_SUFFIX)
                .tempfile_in(dir)
        })
        .map_err(|err| {
            // tempfile's message would name the temporary file, which is
            // gone: the OS error alone says why.
            left(format!(
                "cannot create a temporary file in {}: {}",
                dir.display(),
                plain_os_error(err)
            ))
        })?;
        // Removed when a signal ends the run; on any other end, dropped
        // (`temp` first, then its registration).
        let temp = Temporary {
            file: temp,
            registered,
        };
        self.keep_owner(temp.file.as_file());
        let writing =
            |err: io::Error| left(format!("writing the new copy: {}", plain_os_error(err)));
        let mut encoder = self
            .settings
            .encoder(BufWriter::with_capacity(1 << 20, temp.file.as_file()))
            .map_err(writing)?;
        let changed = match write(&mut encoder) {
            Ok(changed) => changed,
            Err(RewriteError::Read(err)) => return Err(left(err)),
            Err(RewriteError::Write(err)) => return Err(writing(err)),
            Err(RewriteError::Panic(message)) => return Err(NotRewritten::Panic(message)),
        };
        if !changed {
            return Ok(false); // the temporary file is removed on drop
        }
        let writer = encoder.finish().map_err(writing)?;
        writer
            .into_inner()
            .map_err(|err| writing(err.into_error()))?;
        let Temporary { file, registered } = temp;
        file.as_file()
            .set_permissions(self.meta.permissions())
            .and_then(|()| file.as_file().sync_all())
            .map_err(writing)?;
        // Only now, with the new file complete and on disk, does the original
        // go: rename is atomic, so a kill leaves one file or the other. The
        // lock keeps other runs of pgn960 away; a change by another program
        // since the file was read is caught here.
        registered.settle(|| {
            self.unchanged()?;
            file.persist(path)
                .map(drop)
                .map_err(|err| left(format!("cannot replace it: {}", plain_os_error(err.error))))
        })?;
        // The new name is an entry of the folder: on disk once the folder
        // is synced.
        sync_folder(dir).map_err(|err| {
            NotRewritten::Unsynced(format!(
                "rewritten, but its folder {} could not be synced to disk: {}",
                dir.display(),
                plain_os_error(err)
            ))
        })?;
        Ok(true)
    }

    /// The new copy gets the original's owner and group, as far as this
    /// user may give them (root may give any; a user, a group of theirs):
    /// a file another user may write (mode 0666) becomes the writer's.
    fn keep_owner(&self, temp: &File) {
        let Ok(now) = temp.metadata() else {
            return;
        };
        let (uid, gid) = (self.meta.uid(), self.meta.gid());
        if (now.uid(), now.gid()) != (uid, gid)
            && std::os::unix::fs::fchown(temp, Some(uid), Some(gid)).is_err()
        {
            let _ = std::os::unix::fs::fchown(temp, None, Some(gid));
        }
    }

    /// The file at the path is still the one read, as it was read.
    fn unchanged(&self) -> Result<(), NotRewritten> {
        let now = fs::metadata(&self.path).map_err(left)?;
        let then = &self.meta;
        let same = (
            now.dev(),
            now.ino(),
            now.len(),
            now.mtime(),
            now.mtime_nsec(),
        ) == (
            then.dev(),
            then.ino(),
            then.len(),
            then.mtime(),
            then.mtime_nsec(),
        );
        if same {
            Ok(())
        } else {
            Err(left(
                "another program changed it while it was read; run again to rewrite its new contents",
            ))
        }
    }
}

impl Drop for Original {
    fn drop(&mut self) {
        // Released when the file closes too; said here for the reader.
        let _ = self.file.unlock();
    }
}

/// A temporary file, removed when a signal ends the run. Its fields drop
/// in order: the file goes before its registration.
struct Temporary {
    file: tempfile::NamedTempFile,
    registered: interrupt::Registered,
}
