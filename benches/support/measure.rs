//! Running commands side by side: hyperfine for time, GNU time for memory.
//!
//! Both are Debian packages rather than crates: hyperfine runs competing
//! commands in one session with warm-up and statistics, and `time -v` reads
//! the peak resident set size the kernel recorded, which no in-process
//! measurement of a child can.

use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::Deserialize;

const HYPERFINE: &str = "/usr/bin/hyperfine";
const GNU_TIME: &str = "/usr/bin/time";

/// Whether hyperfine is installed; says how to install it when not.
pub fn have_hyperfine() -> bool {
    have(HYPERFINE, "hyperfine")
}

/// Whether GNU time is installed; says how to install it when not.
pub fn have_gnu_time() -> bool {
    have(GNU_TIME, "time")
}

fn have(path: &str, package: &str) -> bool {
    let found = Path::new(path).is_file();
    if !found {
        eprintln!("{path} not found: `apt-get install {package}` to run these measurements");
    }
    found
}

/// One command's timing over all its runs, in seconds.
#[derive(Debug, Deserialize)]
pub struct Timing {
    pub mean: f64,
    /// Empty in hyperfine's export when there was a single run.
    pub stddev: Option<f64>,
    /// Mean CPU time in user mode, all threads together.
    pub user: f64,
    /// Mean CPU time in the kernel, all threads together.
    pub system: f64,
}

/// Runs `commands` (name, shell command) one after another in a single
/// hyperfine session and returns their timings in the same order.
///
/// Every command's output goes through a pipe: GNU grep stops at its first
/// match when its standard output is `/dev/null`, so hyperfine's default
/// would time a different program. A command that should not pay for the
/// pipe redirects its own output (`zstd -dc FILE > /dev/null`).
///
/// We read hyperfine's CSV export rather than its JSON: the csv crate is
/// already a dependency and the CSV holds the same summary numbers.
///
/// # Errors
///
/// When hyperfine cannot start, a command fails, or the export is unreadable.
pub fn hyperfine(commands: &[(&str, &str)], runs: Option<u32>) -> io::Result<Vec<Timing>> {
    let export = tempfile::Builder::new()
        .prefix("pgn960-bench-")
        .suffix(".csv")
        .tempfile()?;
    let mut hyperfine = Command::new(HYPERFINE);
    hyperfine
        .args(["--warmup", "1", "--output", "pipe", "--style", "basic"])
        .arg("--export-csv")
        .arg(export.path());
    if let Some(runs) = runs {
        hyperfine.args(["--runs", &runs.to_string()]);
    }
    for (name, _) in commands {
        hyperfine.args(["--command-name", name]);
    }
    hyperfine.args(commands.iter().map(|(_, command)| command));
    let status = hyperfine.status()?;
    if !status.success() {
        return Err(io::Error::other(format!("hyperfine failed ({status})")));
    }
    let timings = csv::Reader::from_path(export.path())
        .and_then(|mut reader| reader.deserialize().collect::<Result<Vec<Timing>, _>>())
        .map_err(io::Error::other)?;
    if timings.len() != commands.len() {
        return Err(io::Error::other(format!(
            "hyperfine exported {} results for {} commands",
            timings.len(),
            commands.len()
        )));
    }
    Ok(timings)
}

/// Runs `argv` once under `time -v` and returns its peak resident set size
/// in KiB.
///
/// # Errors
///
/// When the command cannot start or fails, or `time` prints no peak.
pub fn peak_rss_kib(argv: &[String]) -> io::Result<u64> {
    let output = Command::new(GNU_TIME)
        .arg("-v")
        .args(argv)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(io::Error::other(format!(
            "{} failed ({}):\n{stderr}",
            argv.join(" "),
            output.status
        )));
    }
    stderr
        .lines()
        .find_map(|line| {
            line.trim()
                .strip_prefix("Maximum resident set size (kbytes):")
                .and_then(|kib| kib.trim().parse().ok())
        })
        .ok_or_else(|| io::Error::other(format!("no peak memory in the output of time:\n{stderr}")))
}
