//! Many output files in one folder (`filter --split-by`), with memory and
//! open files bounded however many there are, and none of them an input.
//!
//! Each file is written first to a hidden temporary file of its own in
//! the folder (a spool, `.NAME.XXXXXX.pgn960-tmp`, through a small buffer),
//! and becomes its file only once the input is read, through [`Outputs`]:
//! so a run that an error stops while reading, or that reads no input,
//! leaves the folder's files as they were; and a compressed file is
//! compressed from its spool, one at a time, since an encoder is far from
//! small (xz's takes 94 MiB) and there may be 960 files.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pgn960::input::Compression;
use tempfile::TempPath;

use super::in_place::TEMP_SUFFIX;
use super::output::Outputs;

/// Bytes buffered per file before they go to its spool: 960 of them hold
/// 15 MiB.
const SPOOL_BUFFER: usize = 16 << 10;

/// One file of the folder, while the run goes on.
struct Spool {
    /// Its writer, while open; closed when files run short.
    out: Option<BufWriter<File>>,
    /// The temporary file, removed when dropped.
    path: TempPath,
}

/// The files of one folder, by key: at most one open writer per key.
pub struct OutputDir<K> {
    dir: PathBuf,
    compression: Compression,
    name: fn(&K) -> String,
    spools: BTreeMap<K, Spool>,
    /// Whether the folder was created by this run (and is removed again
    /// when no input could be read).
    created: bool,
}

impl<K: Ord + Copy> OutputDir<K> {
    /// The folder `dir`, created when missing, whose files are named
    /// `name(key)` (with the compression's extension added). Every file it
    /// could write (the names of `keys`) is refused now when it is one of
    /// the inputs, and a file is created and removed to see that it can
    /// be written, all before any input is read.
    ///
    /// # Errors
    ///
    /// One line: the folder cannot be created or written to, or a file
    /// it could write is an input.
    pub fn new(
        outputs: &Outputs,
        dir: &Path,
        compression: Compression,
        keys: impl IntoIterator<Item = K>,
        name: fn(&K) -> String,
    ) -> anyhow::Result<OutputDir<K>> {
        let output_dir = OutputDir {
            dir: dir.to_path_buf(),
            compression,
            name,
            spools: BTreeMap::new(),
            created: !dir.exists(),
        };
        for key in keys {
            outputs.refuse_input(&output_dir.path_of(&key))?;
        }
        fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
        let probe = dir.join(format!(".probe.{}{TEMP_SUFFIX}", std::process::id()));
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
            .and_then(|_| fs::remove_file(&probe));
        if let Err(err) = written {
            if output_dir.created {
                let _ = fs::remove_dir(dir);
            }
            bail!("{}: cannot write in it: {err}", dir.display());
        }
        Ok(output_dir)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the file of `key` goes.
    fn path_of(&self, key: &K) -> PathBuf {
        let mut name = (self.name)(key);
        if self.compression != Compression::None {
            name = format!("{name}.{}", self.compression.extension());
        }
        self.dir.join(name)
    }

    /// A new temporary file in the folder, for the file `name`.
    fn temporary(&self, name: &str) -> io::Result<tempfile::NamedTempFile> {
        tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(TEMP_SUFFIX)
            .tempfile_in(&self.dir)
    }

    /// Appends `bytes` to the file of `key`.
    ///
    /// # Errors
    ///
    /// When its spool cannot be created or written.
    pub fn write(&mut self, key: K, bytes: &[u8]) -> io::Result<()> {
        if !self.spools.contains_key(&key) {
            let name = (self.name)(&key);
            let (file, path) = self.retrying(|dir| dir.temporary(&name))?.into_parts();
            let out = Some(BufWriter::with_capacity(SPOOL_BUFFER, file));
            self.spools.insert(key, Spool { out, path });
        }
        if self.spools[&key].out.is_none() {
            let path = self.spools[&key].path.to_path_buf();
            let file = self.retrying(|_| OpenOptions::new().append(true).open(&path))?;
            self.spools
                .get_mut(&key)
                .expect("the spool was made above")
                .out = Some(BufWriter::with_capacity(SPOOL_BUFFER, file));
        }
        let spool = self.spools.get_mut(&key).expect("the spool was made above");
        spool
            .out
            .as_mut()
            .expect("the spool was opened above")
            .write_all(bytes)
    }

    /// Runs `open`; when it fails while spools are open (the process may
    /// have too many files open: 960 spools are more than some systems
    /// allow), closes every spool's writer and runs it once more. The
    /// error is not told by its code: `tempfile` hides it behind one that
    /// names the file.
    fn retrying<T>(&mut self, open: impl Fn(&Self) -> io::Result<T>) -> io::Result<T> {
        match open(self) {
            Err(_) if self.spools.values().any(|spool| spool.out.is_some()) => {
                for spool in self.spools.values_mut() {
                    if let Some(mut out) = spool.out.take() {
                        out.flush()?;
                    }
                }
                open(self)
            }
            result => result,
        }
    }

    /// Ends the run: when some input was read, each spool becomes its
    /// file (created through `outputs`, compressed when asked), in the
    /// order of the keys; otherwise nothing is written. The spools are
    /// removed either way. Returns how many files were written.
    ///
    /// # Errors
    ///
    /// The first file that cannot be written, named.
    pub fn finish(mut self, outputs: &Outputs, any_input_read: bool) -> anyhow::Result<usize> {
        if !any_input_read {
            if self.created {
                // Only an empty folder goes: nothing else was written.
                let _ = fs::remove_dir(&self.dir);
            }
            return Ok(0);
        }
        // Every spool complete and closed before any file is written, which
        // then takes two open files at a time.
        let mut complete = Vec::with_capacity(self.spools.len());
        for (key, spool) in std::mem::take(&mut self.spools) {
            let path = self.path_of(&key);
            if let Some(mut out) = spool.out {
                out.flush()
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            complete.push((path, spool.path));
        }
        for (path, spool) in &complete {
            self.publish(outputs, spool, path)
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(complete.len())
    }

    /// Writes the file `path` from its spool.
    fn publish(&self, outputs: &Outputs, spool: &Path, path: &Path) -> anyhow::Result<()> {
        let mut from = File::open(spool)?;
        let mut to = outputs.create(path)?.into_writer()?;
        if self.compression == Compression::None {
            // File to file: the kernel copies (copy_file_range).
            io::copy(&mut from, &mut to)?;
        } else {
            let mut encoder = self
                .compression
                .encoder(BufWriter::with_capacity(1 << 20, to))?;
            io::copy(&mut from, &mut encoder)?;
            encoder
                .finish()?
                .into_inner()
                .map_err(|err| err.into_error())?;
        }
        Ok(())
    }
}
