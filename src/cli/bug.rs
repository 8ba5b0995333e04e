//! A bug ends the run with one `pgn960:` line and exit code 2, never with
//! Rust's panic report: the panic hook keeps each panic's message and
//! place, and the command's own error (or [`run_caught`], for a panic on
//! the main thread) prints them.

use std::panic::{self, AssertUnwindSafe};
use std::sync::{Mutex, OnceLock};

/// The message and place of the last panic, as the hook saw it.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Replaces Rust's panic report with a quiet record of it. With
/// `RUST_BACKTRACE` set (someone debugging pgn960 itself) the report is
/// printed as well.
pub fn install_hook() {
    let report = panic::take_hook();
    let debugging = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
    panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|text| (*text).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        let place = info.location().map_or_else(String::new, |at| {
            format!(" (at {}:{})", at.file(), at.line())
        });
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{message}{place}"));
        }
        if debugging {
            report(info);
        }
    }));
}

/// Runs `command`; a panic of it becomes the one line of an internal
/// error (the value `Err` holds), with the place the hook recorded.
pub fn run_caught<T>(command: impl FnOnce() -> T) -> Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(command)).map_err(|_| {
        let last = LAST_PANIC.lock().ok().and_then(|mut last| last.take());
        format!(
            "internal error, please report it: {}",
            last.as_deref().unwrap_or("a panic")
        )
    })
}

/// Where the tests plant a panic: `PGN960_PLANT_PANIC=main` panics on the
/// main thread before the command runs, `worker` in the work on the first
/// batch of games (in `tag`, `fix` and `filter`), so that the tests see
/// what a user would see of a bug. Not a user's option.
pub fn planted(place: &str) -> bool {
    static PLANTED: OnceLock<Option<String>> = OnceLock::new();
    PLANTED
        .get_or_init(|| std::env::var("PGN960_PLANT_PANIC").ok())
        .as_deref()
        == Some(place)
}
