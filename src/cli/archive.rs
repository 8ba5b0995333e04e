//! What every archive command (`tag`, `stats`, `validate`) shares on the
//! command line: the input list, `--threads`, `--quiet`, the progress bar,
//! the walk over the inputs (one bad input never stops the others), and
//! the refusal of an output file that is also an input.

use std::fs;
use std::io::{self, IsTerminal};
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::bail;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pgn960::input::{self, Opened, Source};
use pgn960::pipeline::{self, PipelineConfig, PipelineError};
use pgn960::split::Batch;

/// Inputs and run options common to the archive commands.
#[derive(clap::Args, Debug)]
pub struct ArchiveArgs {
    /// PGN files, plain or compressed (.gz, .zst, .bz2, .xz, recognised by
    /// content). `-` or nothing reads standard input.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Threads (default: one per core): one splits the input and helps with
    /// the work when it is ahead. Output is the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,

    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl ArchiveArgs {
    /// The inputs in order; standard input when none is given.
    pub fn sources(&self) -> Vec<Source> {
        if self.inputs.is_empty() {
            vec![Source::Stdin]
        } else {
            self.inputs.iter().map(|p| Source::from_arg(p)).collect()
        }
    }

    /// The pipeline settings these arguments ask for.
    pub fn pipeline(&self) -> PipelineConfig {
        let mut config = PipelineConfig::default();
        if let Some(threads) = self.threads {
            config.threads = usize::from(threads);
        }
        config
    }

    /// A progress bar over all inputs, hidden unless stderr is a terminal.
    pub fn progress(&self, sources: &[Source]) -> Progress {
        let total: Option<u64> = sources
            .iter()
            .map(|s| {
                s.path()
                    .and_then(|p| std::fs::metadata(p).ok())
                    .map(|m| m.len())
            })
            .sum();
        let bar = if self.quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            let bar = match total {
                Some(total) => ProgressBar::new(total).with_style(
                    ProgressStyle::with_template(
                        "{bar:30} {bytes}/{total_bytes} {binary_bytes_per_sec} {msg} eta {eta}",
                    )
                    .expect("the progress template is valid"),
                ),
                None => ProgressBar::new_spinner().with_style(
                    ProgressStyle::with_template("{spinner} {bytes} {binary_bytes_per_sec} {msg}")
                        .expect("the progress template is valid"),
                ),
            };
            bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        };
        Progress {
            bar,
            done_bytes: 0,
            games: 0,
        }
    }
}

/// Runs the pipeline over one opened input, keeping `progress` up to date.
///
/// # Errors
///
/// As [`pipeline::run`]: the input's read error, or the first error of
/// `consume`.
pub fn run_input<T: Send, E>(
    opened: Opened,
    config: PipelineConfig,
    progress: &mut Progress,
    work: impl Fn(&Batch) -> T + Sync,
    mut consume: impl FnMut(&Batch, T) -> Result<(), E>,
) -> Result<(), PipelineError<E>> {
    let raw_read = Arc::clone(&opened.raw_read);
    let result = pipeline::run_reader(opened.reader, config, work, |batch, result| {
        progress.update(&raw_read, batch.games.len());
        consume(batch, result)
    });
    progress.finish_input(&raw_read);
    result
}

/// Runs the pipeline over every input in turn. An input that cannot be
/// opened or read is reported on stderr as one line and the run goes on
/// with the next; an error of `consume` (writing the output) ends the run.
///
/// Returns whether some input could not be read.
///
/// # Errors
///
/// The first error of `consume`.
pub fn run_inputs<T: Send, E>(
    sources: &[Source],
    config: PipelineConfig,
    progress: &mut Progress,
    work: impl Fn(&Batch) -> T + Sync,
    mut consume: impl FnMut(&Source, &Batch, T) -> Result<(), E>,
) -> Result<bool, E> {
    let mut failed = false;
    for source in sources {
        let result = input::open(source)
            .map_err(PipelineError::Read)
            .and_then(|opened| {
                run_input(opened, config, progress, &work, |batch, result| {
                    consume(source, batch, result)
                })
            });
        match result {
            Ok(()) => {}
            Err(PipelineError::Read(err)) => {
                progress.finish();
                eprintln!("pgn960: {source}: {err}");
                failed = true;
            }
            Err(PipelineError::Consume(err)) => {
                progress.finish();
                return Err(err);
            }
        }
    }
    Ok(failed)
}

/// Progress over a run: raw bytes read of the total, and games per second.
pub struct Progress {
    bar: ProgressBar,
    done_bytes: u64,
    games: u64,
}

impl Progress {
    /// Called after each batch: `raw_read` counts the current input's raw bytes.
    pub fn update(&mut self, raw_read: &Arc<AtomicU64>, games: usize) {
        self.games += games as u64;
        if self.bar.is_hidden() {
            return;
        }
        let read = raw_read.load(Ordering::Relaxed);
        self.bar.set_position(self.done_bytes + read);
        let secs = self.bar.elapsed().as_secs_f64().max(1e-3);
        self.bar.set_message(format!(
            "{} games, {:.0} games/s",
            self.games,
            self.games as f64 / secs
        ));
    }

    /// Called when an input is finished.
    pub fn finish_input(&mut self, raw_read: &Arc<AtomicU64>) {
        self.done_bytes += raw_read.load(Ordering::Relaxed);
    }

    /// Removes the bar before the summary is printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Refuses an output file that is one of the inputs (under any name, hard
/// links included, or redirected to standard input): creating the output
/// would empty the input before it is read.
///
/// # Errors
///
/// When `output` is the same file as an input.
pub fn refuse_output_among_inputs(output: &Path, sources: &[Source]) -> anyhow::Result<()> {
    let Ok(output_meta) = fs::metadata(output) else {
        return Ok(()); // does not exist yet, so it is no input
    };
    let same =
        |meta: &fs::Metadata| (meta.dev(), meta.ino()) == (output_meta.dev(), output_meta.ino());
    for source in sources {
        let input = match source {
            Source::Stdin => io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .and_then(|fd| fs::File::from(fd).metadata()),
            Source::Path(path) => fs::metadata(path),
        };
        if input.is_ok_and(|meta| meta.is_file() && same(&meta)) {
            bail!(
                "{}: the output is also an input ({source}); write to another file{}",
                output.display(),
                if matches!(source, Source::Stdin) {
                    ""
                } else {
                    ", or use tag --in-place"
                }
            );
        }
    }
    Ok(())
}
