//! Running commands side by side: interleaved pairs for time, GNU time for
//! memory.
//!
//! A ratio is only worth something when both commands met the same
//! machine: each pair runs its baseline and its candidate back to back
//! (the order alternating from pair to pair, so neither always runs on a
//! warmer cache), and the result is the median of the pairs' ratios, which
//! a burst of load in one pair cannot move. `/proc/loadavg` is read before
//! and after, for the report to say whether the machine was quiet.

use std::io::{self, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const GNU_TIME: &str = "/usr/bin/time";

/// Whether GNU time is installed; says how to install it when not.
pub fn have_gnu_time() -> bool {
    let found = Path::new(GNU_TIME).is_file();
    if !found {
        eprintln!("{GNU_TIME} not found: `apt-get install time` to measure memory");
    }
    found
}

/// One run of a command.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// Wall-clock time.
    pub wall: Duration,
    /// User plus system CPU time of the command and everything it ran.
    pub cpu: Duration,
}

/// A baseline and a candidate, run in interleaved pairs.
#[derive(Debug)]
pub struct Pairs {
    pub baseline: Vec<Run>,
    pub candidate: Vec<Run>,
}

impl Pairs {
    /// candidate / baseline wall time, pair by pair.
    pub fn ratios(&self) -> Vec<f64> {
        self.baseline
            .iter()
            .zip(&self.candidate)
            .map(|(base, cand)| cand.wall.as_secs_f64() / base.wall.as_secs_f64())
            .collect()
    }

    /// The median of the pairs' ratios: the result.
    pub fn median_ratio(&self) -> f64 {
        median(self.ratios())
    }
}

/// The median wall time of `runs`, in seconds.
pub fn median_wall(runs: &[Run]) -> f64 {
    median(runs.iter().map(|run| run.wall.as_secs_f64()).collect())
}

/// The median CPU time of `runs`, in seconds.
pub fn median_cpu(runs: &[Run]) -> f64 {
    median(runs.iter().map(|run| run.cpu.as_secs_f64()).collect())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// Runs `baseline` and `candidate` (shell commands) once each to warm the
/// page cache, then `pairs` times each, interleaved: B C, C B, B C, ...
///
/// Every command's output goes through a pipe that is read and thrown
/// away: GNU grep stops at its first match when its standard output is
/// `/dev/null`, which would time a different program. A command that
/// should not pay for the pipe redirects its own output (`> /dev/null`).
///
/// # Errors
///
/// When a command cannot start or fails.
pub fn interleaved(baseline: &str, candidate: &str, pairs: usize) -> io::Result<Pairs> {
    run_shell(baseline)?;
    run_shell(candidate)?;
    let mut result = Pairs {
        baseline: Vec::with_capacity(pairs),
        candidate: Vec::with_capacity(pairs),
    };
    for pair in 0..pairs {
        if pair % 2 == 0 {
            result.baseline.push(run_shell(baseline)?);
            result.candidate.push(run_shell(candidate)?);
        } else {
            result.candidate.push(run_shell(candidate)?);
            result.baseline.push(run_shell(baseline)?);
        }
    }
    Ok(result)
}

/// Runs `command` with `sh -c`, draining its output, and times it; the CPU
/// time is the kernel's count for `sh` and the processes it waited for.
fn run_shell(command: &str) -> io::Result<Run> {
    let start = Instant::now();
    let mut child = Command::new("/bin/sh")
        .args(["-c", command])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdout = child.stdout.take().expect("piped");
    let drain = std::thread::spawn(move || io::copy(&mut stdout, &mut io::sink()));
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let pid = libc::pid_t::try_from(child.id()).map_err(io::Error::other)?;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain data that wait4 fills in; the pid is our
    // own child, reaped here and nowhere else (`child` is not waited on).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if reaped != pid {
        return Err(io::Error::last_os_error());
    }
    let _ = drain.join();
    let errors = errors.join().unwrap_or_default();
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(io::Error::other(format!(
            "`{command}` failed (wait status {status}): {errors}"
        )));
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    Ok(Run {
        wall,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
    })
}

/// The one-minute load average, from `/proc/loadavg`.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Runs `argv` once under `time -v` and returns its peak resident set size
/// in KiB. (GNU time is a small process: the peak it reads from `wait4` is
/// the command's own, not inflated by a large parent's at `exec`.)
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
