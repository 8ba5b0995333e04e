//! `--in-place`: an input file rewritten through a temporary file in its
//! own directory, renamed over the original only once complete and on
//! disk, so that a kill at any moment leaves one whole file or the other.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use pgn960::input::Compression;
use pgn960::pipeline::PipelineError;

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

/// Rewrites the file at `given` (the file a symbolic link points to, whose
/// link stays) with what `write` writes, compressed as `compression`.
/// `write` says whether anything changed; a file with no change is not
/// touched.
///
/// Why a file was not rewritten.
pub enum NotRewritten {
    /// It was left as it was: one line saying why.
    Left(String),
    /// A bug ended the run: the panic's message.
    Panic(String),
}

/// # Errors
///
/// [`NotRewritten`]: the file is always left as it was.
pub fn rewrite(
    given: &Path,
    compression: Compression,
    write: impl FnOnce(&mut dyn Write) -> Result<bool, RewriteError>,
) -> Result<(), NotRewritten> {
    let left = |why: String| NotRewritten::Left(format!("not rewritten, left as it was: {why}"));
    let path = &fs::canonicalize(given).map_err(|err| left(err.to_string()))?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let file_name = path.file_name().map_or_else(
        || "input".into(),
        |name| name.to_string_lossy().into_owned(),
    );
    let temp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .map_err(|err| {
            // tempfile's message would name the temporary file, which is
            // gone: the OS error alone says why.
            let why = err
                .raw_os_error()
                .map_or_else(|| err.to_string(), |code| os_error(code).to_string());
            left(format!(
                "cannot create a temporary file in {}: {why}",
                dir.display()
            ))
        })?;
    let writing = |err: io::Error| left(format!("writing the new copy: {err}"));
    let mut encoder = compression
        .encoder(BufWriter::with_capacity(1 << 20, temp.as_file()))
        .map_err(writing)?;
    let changed = match write(&mut encoder) {
        Ok(changed) => changed,
        Err(RewriteError::Read(err)) => return Err(left(err.to_string())),
        Err(RewriteError::Write(err)) => return Err(writing(err)),
        Err(RewriteError::Panic(message)) => return Err(NotRewritten::Panic(message)),
    };
    if !changed {
        return Ok(()); // the temporary file is removed on drop
    }
    let writer = encoder.finish().map_err(writing)?;
    writer
        .into_inner()
        .map_err(|err| writing(err.into_error()))?;
    let permissions = fs::metadata(path).map_err(writing)?.permissions();
    temp.as_file()
        .set_permissions(permissions)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(writing)?;
    // Only now, with the new file complete and on disk, does the original
    // go: rename is atomic, so a kill leaves one file or the other.
    temp.persist(path)
        .map_err(|err| left(format!("cannot replace it: {}", plain_os_error(err.error))))?;
    Ok(())
}

fn os_error(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

/// The OS's own words for an error, without a path that would name the
/// temporary file.
fn plain_os_error(err: io::Error) -> io::Error {
    err.raw_os_error().map_or(err, os_error)
}
