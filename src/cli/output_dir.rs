//! Many output files in one folder (`filter --split-by`), with memory and
//! open files bounded however many there are, and none of them an input.
//!
//! Each file is written first to a hidden temporary file of its own in
//! the folder (a spool, `.NAME.XXXXXX.pgn960-tmp`, through a small buffer).
//! Once the inputs are read, every file is made complete under a
//! temporary name (a compressed one is compressed from its spool, one at
//! a time, since an encoder is far from small: xz's takes 94 MiB, and
//! there may be 960 files), and only then, once the run has ended well,
//! are they renamed to their names with the run's other outputs (see
//! [`Outputs::settle`]): so a run that an error stops, while reading or
//! while writing any file, or that reads no input, leaves the folder's
//! files as they were, and a run that ends well leaves all its files.
//! Should a rename fail midway, the files renamed before are put back.
//!
//! Inputs written one after another to a file are kept apart as on one
//! output (see [`LineJoin`]).

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pgn960::compression::Compression;

use super::archive::Progress;
use super::in_place::TEMP_SUFFIX;
use super::interrupt;
use super::output::{LineJoin, Outputs};
use super::temporary::Temporary;

/// Bytes buffered per file before they go to its spool: 960 of them hold
/// 15 MiB.
const SPOOL_BUFFER: usize = 16 << 10;

/// One file of the folder, while the run goes on.
struct Spool {
    /// Its writer, while open; closed when files run short.
    out: Option<BufWriter<File>>,
    /// The temporary file, removed when dropped.
    temp: Temporary,
    /// Where the inputs written to it stand.
    join: LineJoin,
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
        if dir.exists() && !dir.is_dir() {
            bail!(
                "--output-dir {}: not a folder: a file of that name is there (--output-dir names the folder the files go in)",
                dir.display()
            );
        }
        for key in keys {
            outputs.refuse_input(&output_dir.path_of(&key))?;
        }
        fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
        let probe = dir.join(format!(".probe.{}{TEMP_SUFFIX}", std::process::id()));
        // Registered before it exists: a signal while it does removes it.
        let registered = interrupt::register(&probe);
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
            .and_then(|_| fs::remove_file(&probe));
        drop(registered);
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

    /// A new temporary file in the folder, for the file `name`: readable
    /// as a new file of this user is (the umask applies), since it will
    /// be that file.
    fn temporary(&self, name: &str) -> io::Result<(File, Temporary)> {
        Temporary::create(&self.dir, name, 0o666)
    }

    /// Every input written so far has ended: the next input's bytes in a
    /// file begin on a line of their own.
    pub fn end_input(&mut self) {
        for spool in self.spools.values_mut() {
            spool.join.end_input();
        }
    }

    /// Appends `bytes` to the file of `key`.
    ///
    /// # Errors
    ///
    /// When its spool cannot be created or written.
    pub fn write(&mut self, key: K, bytes: &[u8]) -> io::Result<()> {
        if !self.spools.contains_key(&key) {
            let name = (self.name)(&key);
            let (file, temp) = self.retrying(|dir| dir.temporary(&name))?;
            let out = Some(BufWriter::with_capacity(SPOOL_BUFFER, file));
            self.spools.insert(
                key,
                Spool {
                    out,
                    temp,
                    join: LineJoin::default(),
                },
            );
        }
        if self.spools[&key].out.is_none() {
            let path = self.spools[&key].temp.path().to_path_buf();
            let file = self.retrying(|_| OpenOptions::new().append(true).open(&path))?;
            self.spools
                .get_mut(&key)
                .expect("the spool was made above")
                .out = Some(BufWriter::with_capacity(SPOOL_BUFFER, file));
        }
        let spool = self.spools.get_mut(&key).expect("the spool was made above");
        let out = spool.out.as_mut().expect("the spool was opened above");
        let separator = spool.join.separator(bytes.is_empty());
        out.write_all(separator)?;
        out.write_all(bytes)?;
        spool.join.wrote(separator);
        spool.join.wrote(bytes);
        Ok(())
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
    /// file (compressed when asked) under a temporary name, in the order
    /// of the keys, all of them or none, to be renamed to its name when
    /// the run has ended well (see [`Outputs::settle`]); otherwise nothing
    /// is written. Returns how many files were written.
    ///
    /// # Errors
    ///
    /// The first file that cannot be written, named; the folder's files
    /// are then as they were.
    pub fn finish(
        mut self,
        outputs: &Outputs,
        any_input_read: bool,
        progress: &Progress,
    ) -> anyhow::Result<usize> {
        if !any_input_read {
            if self.created {
                // Only an empty folder goes: nothing else was written.
                let _ = fs::remove_dir(&self.dir);
            }
            return Ok(0);
        }
        // Every spool complete and closed before any file is made, which
        // then takes two open files at a time.
        let mut spools = Vec::with_capacity(self.spools.len());
        for (key, mut spool) in std::mem::take(&mut self.spools) {
            let path = self.path_of(&key);
            if let Some(mut out) = spool.out.take() {
                out.flush()
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            spools.push((path, spool));
        }
        if self.compression != Compression::None {
            // Compressing may take longer than the reading did: the bar
            // shows it.
            let total = spools
                .iter()
                .filter_map(|(_, spool)| fs::metadata(spool.temp.path()).ok())
                .map(|meta| meta.len())
                .sum();
            let files = spools.len();
            let noun = if files == 1 { "file" } else { "files" };
            progress.step(format!("compressing {files} {noun}"), total);
        }
        let mut complete = Vec::with_capacity(spools.len());
        for (path, spool) in spools {
            let made = self
                .complete(outputs, spool, &path, progress)
                .with_context(|| format!("writing {}", path.display()))?;
            complete.push((path, made));
        }
        let written = complete.len();
        outputs.rename_at_end(complete);
        Ok(written)
    }

    /// The file `path`, complete under a temporary name: its spool itself,
    /// or the spool compressed into another; with the permissions of the
    /// file it replaces.
    fn complete(
        &self,
        outputs: &Outputs,
        spool: Spool,
        path: &Path,
        progress: &Progress,
    ) -> anyhow::Result<Temporary> {
        outputs.refuse_input(path)?;
        let made = if self.compression == Compression::None {
            spool.temp
        } else {
            let name = path
                .file_name()
                .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
            let (to, made) = self.temporary(&name)?;
            let mut from = File::open(spool.temp.path())?;
            let mut encoder = self
                .compression
                .encoder(BufWriter::with_capacity(1 << 20, to))?;
            let mut chunk = vec![0; 1 << 20];
            loop {
                let read = match from.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(read) => read,
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                    Err(err) => return Err(err.into()),
                };
                encoder.write_all(&chunk[..read])?;
                progress.advance(read as u64);
            }
            encoder
                .finish()?
                .into_inner()
                .map_err(|err| err.into_error())?;
            made
        };
        if let Ok(old) = fs::metadata(path) {
            fs::set_permissions(made.path(), old.permissions())?;
        }
        Ok(made)
    }
}
