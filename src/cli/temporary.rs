//! Output files written under a temporary name in the folder of the file
//! they become (`.NAME.XXXXXX.pgn960-tmp`), removed when dropped, on a
//! panic, or when a signal ends the run (see `interrupt`), and renamed to
//! their names together once the run has ended well: how every output
//! file is made (`-o`, `--report`, `--plot`, `--funnel`, `--summary`, the
//! files of `--split-by`), so that a run that fails or is killed half-way
//! leaves no half file and every old file as it was. `--in-place` renames
//! its temporary files the same way, one input at a time.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tempfile::TempPath;

use super::in_place::TEMP_SUFFIX;
use super::interrupt::{self, Registered};

/// A temporary file of the run, removed when dropped or when a signal
/// ends the run. Its fields drop in order: the file goes before its
/// registration.
pub struct Temporary {
    path: TempPath,
    _registered: Registered,
}

impl Temporary {
    /// A new temporary file in `dir`, for the file `name`, made with the
    /// permissions `mode` less the umask (`0o666`: as a new file of this
    /// user is), and registered for removal (see `interrupt`).
    ///
    /// # Errors
    ///
    /// When the file cannot be made (the OS's words, without the path of
    /// the temporary file).
    pub fn create(dir: &Path, name: &str, mode: u32) -> io::Result<(File, Temporary)> {
        let (file, registered) = interrupt::registered(|| {
            tempfile::Builder::new()
                .prefix(&format!(".{name}."))
                .suffix(TEMP_SUFFIX)
                .permissions(fs::Permissions::from_mode(mode))
                .tempfile_in(dir)
        })
        .map_err(plain_os_error)?;
        let (file, path) = file.into_parts();
        Ok((
            file,
            Temporary {
                path,
                _registered: registered,
            },
        ))
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The folder `path` is in: its parent, or `.` for a bare name.
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Why [`rename_all`] failed.
#[derive(Debug)]
pub enum RenameError {
    /// This name could not be given, and why; every file is as it was.
    NotRenamed(PathBuf, io::Error),
    /// Every file has its name, but this folder could not be synced to
    /// disk: a crash of the machine may still undo its renames.
    Unsynced(PathBuf, io::Error),
}

/// Renames each complete temporary file to its name, in order, all or
/// none: no signal acts while they are renamed, and should a rename fail,
/// the files renamed before are put back as they were (from a hard link
/// to each old file, taken first) and the temporary files removed. Then
/// each folder that got a file is synced, so that the new names outlive
/// a crash of the machine as the files' bytes do.
///
/// # Errors
///
/// [`RenameError`]: the name that could not be given (every file is then
/// as it was), or the folder that could not be synced.
pub fn rename_all(complete: Vec<(PathBuf, Temporary)>) -> Result<(), RenameError> {
    let last = complete.len().saturating_sub(1);
    // Within: a registration dropped would wait for the signals' lock.
    let renamed = interrupt::without_signals(|| {
        let mut done: Vec<(&Path, Option<TempPath>)> = Vec::with_capacity(complete.len());
        for (at, (path, made)) in complete.iter().enumerate() {
            // The last file has no file after it whose failure would put
            // it back.
            let backup = if at < last { backup(path) } else { None };
            if let Err(err) = fs::rename(&made.path, path) {
                for (path, backup) in done.into_iter().rev() {
                    match backup {
                        Some(old) => {
                            let _ = fs::rename(&old, path);
                        }
                        None => {
                            let _ = fs::remove_file(path);
                        }
                    }
                }
                return Err(RenameError::NotRenamed(path.clone(), err));
            }
            done.push((path, backup));
        }
        // The backups go here (hard links to the old files).
        Ok(())
    });
    renamed?;
    let mut folders: Vec<&Path> = Vec::new();
    for (path, _) in &complete {
        let folder = folder_of(path);
        if !folders.contains(&folder) {
            folders.push(folder);
        }
    }
    for folder in folders {
        sync_folder(folder).map_err(|err| RenameError::Unsynced(folder.to_path_buf(), err))?;
    }
    // The temporary files are renamed: only their registrations go.
    for (_, made) in complete {
        let _ = made.path.keep();
    }
    Ok(())
}

/// A hard link to the file at `path`, under a temporary name beside it,
/// when there is a file and its folder allows it: the old file, to put
/// back. Made while no signal acts (see [`rename_all`]), it is not
/// registered.
fn backup(path: &Path) -> Option<TempPath> {
    fs::symlink_metadata(path).ok()?;
    let dir = folder_of(path);
    let name = path
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    let temp = tempfile::Builder::new()
        .prefix(&format!(".{name}.old."))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .ok()?
        .into_temp_path();
    // A name of our own, then the old file under it.
    fs::remove_file(&temp).ok()?;
    fs::hard_link(path, &temp).ok()?;
    Some(temp)
}

/// Syncs the folder `dir` to disk, so that a rename in it (a new file
/// under an old name) outlives a crash of the machine, not only the
/// file's bytes. Where the platform cannot (the folder cannot be opened
/// for reading, or its file system refuses to sync a folder as invalid or
/// unsupported), there is nothing to do.
///
/// # Errors
///
/// Any other error of the sync (an I/O error of the disk).
pub fn sync_folder(dir: &Path) -> io::Result<()> {
    let cannot = |err: &io::Error| {
        matches!(
            err.kind(),
            io::ErrorKind::PermissionDenied
                | io::ErrorKind::InvalidInput
                | io::ErrorKind::Unsupported
        )
    };
    match fs::File::open(dir).and_then(|folder| folder.sync_all()) {
        Err(err) if cannot(&err) => Ok(()),
        other => other,
    }
}

/// The OS's own words for an error, without the path of the temporary
/// file that `tempfile` adds to its errors (the file is gone when the
/// message is read).
pub fn plain_os_error(err: io::Error) -> io::Error {
    if let Some(code) = err.raw_os_error() {
        return io::Error::from_raw_os_error(code);
    }
    // tempfile's own errors hold no code: their words end in the path.
    let text = err.to_string();
    match text.split_once(" at path ") {
        Some((words, _)) => io::Error::new(err.kind(), words.to_string()),
        None => err,
    }
}
