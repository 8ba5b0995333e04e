//! The benchmark archive: built once into `target/bench-data/`, reused after.
//!
//! Building takes about a minute (most of it playing random games), so the
//! files stay until someone deletes them; delete the folder to rebuild after
//! changing the generator. Each file is written under a temporary name and
//! renamed when complete, so an interrupted build is never taken for a
//! finished one.

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::lichess960::Lichess960;

/// The real engine-game archive the benchmark archive starts with.
const TCEC: &str = "tcec-frc-dfrc-all.pgn.zst";
/// Size of the benchmark archive: the TCEC games, then generated games up to this.
const TARGET_BYTES: u64 = 350_000_000;
/// Seed of the generated games.
const SEED: u64 = 960;
/// Compression level of the `.zst` copy (zstd's default).
const ZSTD_LEVEL: i32 = 3;

/// Games in the small archive, for baselines too slow for the large one.
const SMALL_GAMES: u64 = 2_000;
/// The real games the small archive starts with.
const SMALL_REAL: &str = "tcec-s16-frc-sufi.pgn";

/// The benchmark archive, plain and compressed, and a small one.
pub struct Dataset {
    pub pgn: PathBuf,
    pub zst: PathBuf,
    /// Bytes of the plain archive.
    pub bytes: u64,
    /// A few MB for comparisons with slow tools (pgn-extract, python-chess):
    /// 20 TCEC games, then generated lichess-dialect games.
    pub small: PathBuf,
}

/// Returns the archive in `dir`, building whatever is missing.
///
/// # Errors
///
/// When the TCEC archive cannot be found or a file cannot be written.
pub fn ensure(dir: &Path) -> io::Result<Dataset> {
    fs::create_dir_all(dir)?;
    let pgn = dir.join("bench-350mb.pgn");
    let zst = dir.join("bench-350mb.pgn.zst");
    if !pgn.exists() {
        let tcec = find_tcec()?;
        eprintln!("building {} from {} ...", pgn.display(), tcec.display());
        let started = Instant::now();
        let games = write_atomically(&pgn, |out| build_pgn(&tcec, out))?;
        eprintln!(
            "  {} generated lichess games, {:.1} s",
            games,
            started.elapsed().as_secs_f64()
        );
    }
    if !zst.exists() {
        eprintln!("compressing {} ...", zst.display());
        let started = Instant::now();
        write_atomically(&zst, |out| {
            let mut encoder = zstd::Encoder::new(out, ZSTD_LEVEL)?;
            io::copy(&mut File::open(&pgn)?, &mut encoder)?;
            encoder.finish()?;
            Ok(())
        })?;
        eprintln!("  {:.1} s", started.elapsed().as_secs_f64());
    }
    let small = dir.join("bench-small.pgn");
    if !small.exists() {
        let real = find_tcec()?.with_file_name(SMALL_REAL);
        write_atomically(&small, |out| {
            io::copy(&mut File::open(&real)?, out)?;
            let mut generator = Lichess960::new(SEED + 1);
            for _ in 0..SMALL_GAMES {
                generator.write_game(out)?;
            }
            Ok(())
        })?;
    }
    let bytes = fs::metadata(&pgn)?.len();
    Ok(Dataset {
        pgn,
        zst,
        bytes,
        small,
    })
}

/// Writes the TCEC archive, then generated games until the target size.
/// Returns the number of generated games.
fn build_pgn(tcec: &Path, out: &mut BufWriter<File>) -> io::Result<u64> {
    let mut written = io::copy(&mut zstd::Decoder::new(File::open(tcec)?)?, out)?;
    let mut generator = Lichess960::new(SEED);
    let mut games = 0;
    while written < TARGET_BYTES {
        written += generator.write_game(out)? as u64;
        games += 1;
    }
    Ok(games)
}

/// Runs `write` on `path` + `.partial` and renames it to `path` on success.
fn write_atomically<T>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<T>,
) -> io::Result<T> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&partial)?);
    let value = write(&mut out)?;
    out.into_inner()
        .map_err(|err| err.into_error())?
        .sync_all()?;
    fs::rename(&partial, path)?;
    Ok(value)
}

/// The shared data folder sits beside the repository (`../shared/data`);
/// `PGN960_TCEC` names the archive elsewhere.
fn find_tcec() -> io::Result<PathBuf> {
    if let Some(path) = std::env::var_os("PGN960_TCEC") {
        return Ok(path.into());
    }
    // The corpus where the tests look for it: `PGN960_CORPUS`, else
    // `../shared/data` beside the checkout.
    let corpus = std::env::var_os("PGN960_CORPUS")
        .filter(|dir| !dir.is_empty())
        .map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
            PathBuf::from,
        );
    let path = corpus.join("real").join(TCEC);
    if path.is_file() {
        Ok(path)
    } else {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{} not found; set PGN960_TCEC to its path", path.display()),
        ))
    }
}
