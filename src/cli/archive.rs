//! What every archive command shares on the command line: the input list,
//! `--threads`, `--quiet`, the progress bar, and the one walk over the
//! inputs, in which one bad input never stops the others.

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pgn960::input::{self, MmapChoice, Opened, Source};
use pgn960::pipeline::{self, Footprint, PipelineConfig, PipelineError};
use pgn960::split::Batch;

use super::in_place::{NotRewritten, is_leftover_temporary};
use super::interrupt;

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

    /// A progress bar over all inputs, hidden unless stderr is a terminal;
    /// from now on a signal cleans up (see `interrupt`).
    pub fn progress(&self, sources: &[Source]) -> Progress {
        interrupt::watch();
        let total: Option<u64> = sources
            .iter()
            .map(|s| {
                s.path()
                    .and_then(|p| std::fs::metadata(p).ok())
                    .map(|m| m.len())
            })
            .sum();
        if sources.contains(&Source::Stdin) && io::stdin().is_terminal() {
            // Otherwise the command seems to hang, waiting for a person.
            eprintln!(
                "pgn960: reading standard input (a terminal): end it with Ctrl-D, \
                 or name the files to read"
            );
        }
        let bar = if self.quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            let bar = match total {
                Some(total) => ProgressBar::new(total).with_style(bar_style()),
                None => ProgressBar::new_spinner().with_style(
                    ProgressStyle::with_template("{spinner} {bytes} {binary_bytes_per_sec} {msg}")
                        .expect("the progress template is valid"),
                ),
            };
            bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
            bar.enable_steady_tick(Duration::from_millis(250));
            interrupt::progress_shown();
            bar
        };
        Progress {
            bar,
            done_bytes: 0,
            games: 0,
        }
    }
}

/// The bar of a run whose size is known. The bar takes the columns the
/// rest leaves: the rest takes at most 63 (`100% 1023.99 MiB/s 1234567890
/// games, 12345678 games/s eta 59m`), so the line fits 80 columns.
fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{wide_bar} {percent:>3}% {binary_bytes_per_sec} {msg} eta {eta}")
        .expect("the progress template is valid")
}

/// The message of the bar while games are read.
fn games_message(games: u64, per_second: f64) -> String {
    format!("{games} games, {per_second:.0} games/s")
}

/// How one input ended, when it did not end well.
pub enum InputFailure {
    /// This input could not be (wholly) read, or its result not kept; the
    /// message follows `pgn960: INPUT: `. The other inputs go on.
    Input(String),
    /// The run ends here (the output cannot be written, or a bug).
    Run(anyhow::Error),
}

impl From<io::Error> for InputFailure {
    fn from(err: io::Error) -> Self {
        InputFailure::Input(err.to_string())
    }
}

impl From<NotRewritten> for InputFailure {
    fn from(failure: NotRewritten) -> Self {
        match failure {
            NotRewritten::Left(why) | NotRewritten::Unsynced(why) => InputFailure::Input(why),
            NotRewritten::Panic(message) => InputFailure::panicked(&message),
        }
    }
}

impl InputFailure {
    /// How a pipeline's failure ends an input: a read error ends this
    /// input, an error of the output (named by `output`) or a panic ends
    /// the run.
    pub fn of<E>(err: PipelineError<E>, output: impl FnOnce() -> String) -> InputFailure
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        match err {
            PipelineError::Read(err) => InputFailure::Input(err.to_string()),
            PipelineError::Consume(err) => {
                InputFailure::Run(anyhow::Error::new(err).context(output()))
            }
            PipelineError::Panic(message) => InputFailure::panicked(&message),
        }
    }

    /// A bug (a panic with this message) ends the run.
    pub fn panicked(message: &str) -> InputFailure {
        InputFailure::Run(anyhow::anyhow!(
            "internal error, please report it: {message}"
        ))
    }
}

/// How the walk over the inputs went.
#[derive(Clone, Copy, Debug, Default)]
pub struct InputsRead {
    /// Inputs that could be opened (some of them perhaps not read to the end).
    pub opened: usize,
    /// Whether some input failed: the run's exit code is then 2.
    pub failed: bool,
}

/// Opens every input in turn and hands it to `each`. An input that cannot
/// be opened, or for which `each` reports [`InputFailure::Input`], is
/// reported as one line on stderr and the walk goes on with the next; an
/// [`InputFailure::Run`] ends the walk.
///
/// # Errors
///
/// The error of an [`InputFailure::Run`].
pub fn for_each_input(
    sources: &[Source],
    progress: &mut Progress,
    each: impl FnMut(&Source, Opened, &mut Progress) -> Result<(), InputFailure>,
) -> anyhow::Result<InputsRead> {
    walk_inputs(sources, progress, |source| Ok(open(source)?), each)
}

/// As [`for_each_input`], each input opened by `open` (which may refuse
/// it, before reading any of it, with [`InputFailure::Input`]). An input
/// counts as opened once `open` succeeds.
///
/// # Errors
///
/// The error of an [`InputFailure::Run`].
pub fn walk_inputs<I>(
    sources: &[Source],
    progress: &mut Progress,
    mut open: impl FnMut(&Source) -> Result<I, InputFailure>,
    mut each: impl FnMut(&Source, I, &mut Progress) -> Result<(), InputFailure>,
) -> anyhow::Result<InputsRead> {
    let mut outcome = InputsRead::default();
    for source in sources {
        let result = admit(source).and_then(|()| open(source)).and_then(|input| {
            outcome.opened += 1;
            each(source, input, progress)
        });
        match result {
            Ok(()) => {}
            Err(InputFailure::Input(message)) => {
                progress.finish();
                eprintln!("pgn960: {source}: {message}");
                outcome.failed = true;
            }
            Err(InputFailure::Run(err)) => {
                progress.finish();
                return Err(err);
            }
        }
    }
    Ok(outcome)
}

/// Refuses a temporary file left by an interrupted run as an input.
fn admit(source: &Source) -> Result<(), InputFailure> {
    match source.path() {
        Some(path) if is_leftover_temporary(path) => Err(InputFailure::Input(
            "a temporary file left by an interrupted run of pgn960 (`--in-place`, \
             `filter --split-by`), not an input; its original is intact and it can be deleted"
                .to_string(),
        )),
        _ => Ok(()),
    }
}

/// Opens an input for a command of this binary.
fn open(source: &Source) -> io::Result<Opened> {
    // SAFETY: the mapped files are only read, and this binary replaces the
    // files it rewrites by renaming (`--in-place`), which leaves a mapped
    // original untouched. Another program truncating an input while it is
    // read ends the run with SIGBUS, as the guide says (docs/guarantees.md).
    let mmap = unsafe { MmapChoice::auto() };
    input::open(source, mmap)
}

/// Runs the pipeline over one opened input, keeping `progress` up to date.
///
/// # Errors
///
/// As [`pipeline::run`]: the input's read error, or the first error of
/// `consume`.
pub fn run_input<T: Send + Footprint, E>(
    opened: Opened,
    config: PipelineConfig,
    progress: &mut Progress,
    work: impl Fn(&Batch) -> T + Sync,
    mut consume: impl FnMut(&Batch, T) -> Result<(), E>,
) -> Result<(), PipelineError<E>> {
    let raw_read = Arc::clone(&opened.raw_read);
    let work = |batch: &Batch| {
        if super::bug::planted("worker") {
            panic!("planted by PGN960_PLANT_PANIC");
        }
        work(batch)
    };
    let result = pipeline::run_reader(opened.reader, config, work, |batch, result| {
        progress.update(&raw_read, batch.games.len());
        consume(batch, result)
    });
    progress.finish_input(&raw_read);
    result
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
        self.bar
            .set_message(games_message(self.games, self.games as f64 / secs));
    }

    /// Starts a last step after the reading, of `total` bytes, named by
    /// `what` (`compressing 7 files`): the bar starts again from 0%, and is
    /// drawn at once, however short the step.
    pub fn step(&self, what: String, total: u64) {
        if self.bar.is_hidden() {
            return;
        }
        self.bar.set_style(bar_style());
        self.bar.reset();
        self.bar.set_length(total);
        self.bar.set_message(what);
        self.bar.force_draw();
    }

    /// `bytes` more of the step done.
    pub fn advance(&self, bytes: u64) {
        self.bar.inc(bytes);
    }

    /// Called when an input is finished.
    pub fn finish_input(&mut self, raw_read: &Arc<AtomicU64>) {
        self.done_bytes += raw_read.load(Ordering::Relaxed);
    }

    /// Removes the bar before the summary is printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
        if !self.bar.is_hidden() {
            interrupt::progress_cleared();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use indicatif::TermLike;

    use super::*;

    /// A terminal of 80 columns that keeps what is drawn on it.
    #[derive(Debug, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl TermLike for Screen {
        fn width(&self) -> u16 {
            80
        }
        fn move_cursor_up(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> io::Result<()> {
            let mut screen = self.0.lock().unwrap();
            screen.push_str(s);
            screen.push('\n');
            Ok(())
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> io::Result<()> {
            self.0.lock().unwrap().push('\n');
            Ok(())
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The bar at its widest (a terabyte archive, a billion games read at
    /// ten million a second) fits 80 columns, and still shows a bar.
    #[test]
    fn the_progress_line_fits_80_columns() {
        let screen = Arc::new(Mutex::new(String::new()));
        let bar = ProgressBar::with_draw_target(
            Some(1 << 40),
            ProgressDrawTarget::term_like(Box::new(Screen(Arc::clone(&screen)))),
        )
        .with_style(bar_style());
        bar.set_position(1 << 39);
        bar.set_message(games_message(1_234_567_890, 12_345_678.0));
        bar.force_draw();
        let drawn = screen.lock().unwrap().clone();
        let line = drawn
            .lines()
            .rfind(|line| line.contains(" eta "))
            .unwrap_or_else(|| panic!("no progress line drawn: {drawn:?}"));
        assert!(line.contains(" 50% "), "{line:?}");
        assert!(
            line.contains("1234567890 games, 12345678 games/s"),
            "{line:?}"
        );
        let width = line.chars().count();
        assert!(width <= 80, "{width} columns: {line:?}");
        let bar = line.split(' ').next().unwrap_or_default();
        assert!(
            bar.chars().count() >= 10,
            "a bar of 10 columns or more: {line:?}"
        );
    }
}
