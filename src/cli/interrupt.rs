//! Ctrl-C, `kill` and a closed terminal (SIGINT, SIGTERM, SIGHUP): the
//! temporary files of the run are removed and the progress line cleared,
//! then the process ends as the signal asks (killed by it, as a shell
//! sees). A SIGKILL cannot be caught: its leftovers are refused as inputs
//! and named for what they are (see `in_place::is_leftover_temporary`).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// What a signal must clean up.
#[derive(Default)]
struct Leftovers {
    temporaries: Vec<PathBuf>,
    progress_shown: bool,
}

static LEFTOVERS: Mutex<Leftovers> = Mutex::new(Leftovers {
    temporaries: Vec::new(),
    progress_shown: false,
});

static INSTALL: Once = Once::new();

fn leftovers() -> MutexGuard<'static, Leftovers> {
    // A panic while holding the lock leaves the list as good as it was.
    LEFTOVERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Starts the thread that waits for the signals (once per process). When
/// the signals cannot be watched, they keep their default action: the
/// run goes on, and an interrupted run may leave a temporary file.
fn install() {
    INSTALL.call_once(|| {
        let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("pgn960-signals".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    // Held to the end: nothing is renamed or registered
                    // while the temporaries go.
                    let leftovers = leftovers();
                    for path in &leftovers.temporaries {
                        if path.is_dir() {
                            let _ = std::fs::remove_dir_all(path);
                        } else {
                            let _ = std::fs::remove_file(path);
                        }
                    }
                    if leftovers.progress_shown {
                        // Carriage return, then erase the line.
                        let _ = std::io::stderr().write_all(b"\r\x1b[2K");
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    // A signal whose default is to go on: end all the same.
                    std::process::exit(128 + signal);
                }
            });
    });
}

/// A temporary file removed when a signal ends the run, until dropped.
pub struct Registered {
    path: PathBuf,
}

/// Registers `path`, a temporary file (or directory) of this run, to be
/// removed when a signal ends the run.
pub fn register(path: &Path) -> Registered {
    install();
    leftovers().temporaries.push(path.to_path_buf());
    Registered {
        path: path.to_path_buf(),
    }
}

/// Makes a temporary file with `make` and registers it (see [`register`]),
/// no signal acting in between: a signal that comes while it is made
/// waits, then removes it.
///
/// # Errors
///
/// The error of `make`.
pub fn registered<E>(
    make: impl FnOnce() -> Result<tempfile::NamedTempFile, E>,
) -> Result<(tempfile::NamedTempFile, Registered), E> {
    install();
    let mut leftovers = leftovers();
    let file = make()?;
    leftovers.temporaries.push(file.path().to_path_buf());
    let path = file.path().to_path_buf();
    Ok((file, Registered { path }))
}

/// Watches for the signals from now on (see the module's documentation):
/// before the first temporary file, so that none is made unwatched.
pub fn watch() {
    install();
}

impl Registered {
    /// Runs `rename` (which makes the temporary file permanent, or removes
    /// it) while no signal can remove it, and forgets it.
    pub fn settle<T>(self, rename: impl FnOnce() -> T) -> T {
        let mut leftovers = leftovers();
        let result = rename();
        leftovers.temporaries.retain(|path| *path != self.path);
        drop(leftovers);
        std::mem::forget(self);
        result
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut leftovers = leftovers();
        if let Some(at) = leftovers.temporaries.iter().position(|p| *p == self.path) {
            leftovers.temporaries.swap_remove(at);
        }
    }
}

/// Runs `work` (renaming temporary files to their names) while no signal
/// can act: a signal that comes meanwhile waits for it to end. `work` must
/// not register or drop a registration.
pub fn without_signals<T>(work: impl FnOnce() -> T) -> T {
    let leftovers = leftovers();
    let result = work();
    drop(leftovers);
    result
}

/// Notes that a progress line is drawn on standard error (a terminal):
/// a signal clears it.
pub fn progress_shown() {
    if std::io::stderr().is_terminal() {
        install();
        leftovers().progress_shown = true;
    }
}

/// Notes that the progress line is gone.
pub fn progress_cleared() {
    leftovers().progress_shown = false;
}
