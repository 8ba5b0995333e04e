//! Throughput and peak memory of pgn960's archive commands, each timed side
//! by side with a baseline that reads the same bytes.
//!
//! The machines are shared and noisy, so a time alone says little; what we
//! track is the ratio of pgn960's mean to a baseline's mean measured in the
//! same hyperfine session. Speed targets live here, never in timed tests.
//!
//! ```text
//! cargo bench --bench throughput              # every case
//! cargo bench --bench throughput -- tag-zst   # cases whose name contains a filter
//! cargo bench --bench throughput -- --runs 3  # fewer runs per command
//! ```
//!
//! The first run builds the ~350 MB benchmark archive into
//! `target/bench-data/` (delete it to rebuild). Results are printed and
//! written to `target/bench-results.md`. Needs the Debian packages
//! `hyperfine` and `time`. A missed target is a result, not an error: the
//! exit code is non-zero only when a case could not run at all.

mod support {
    pub mod dataset;
    pub mod lichess960;
    pub mod measure;
}

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use support::{dataset, measure};

/// A speed case: `candidate` timed against `baseline` in one hyperfine
/// session.
///
/// Both are shell commands with placeholders: `{pgn}` and `{zst}` are the
/// benchmark archive plain and zstd-compressed, `{pgn960}` is the binary
/// under test, `{examples}` the folder of this crate's examples built in
/// release mode (the baseline programs in `examples/`).
struct Case {
    name: &'static str,
    baseline: &'static str,
    candidate: &'static str,
    /// Largest acceptable mean(candidate) / mean(baseline); `None` for rows
    /// that only inform.
    target: Option<f64>,
}

const fn case(
    name: &'static str,
    baseline: &'static str,
    candidate: &'static str,
    target: Option<f64>,
) -> Case {
    Case {
        name,
        baseline,
        candidate,
        target,
    }
}

const GREP_EVENTS: &str = r"grep -c '^\[Event ' {pgn}";
const ZSTD_DECOMPRESS: &str = "zstd -dc {zst} > /dev/null";

/// pgn-reader reading every tag and skipping movetext (`examples/`).
const READER_TAGS: &str = "{examples}/baseline_tags {pgn}";
/// pgn-reader and shakmaty replaying every move (`examples/`).
const READER_REPLAY: &str = "{examples}/baseline_replay {pgn}";
/// pgn-extract checking every game and writing none (Debian `pgn-extract`).
const PGN_EXTRACT: &str = "/usr/games/pgn-extract -r -s {small}";
/// python-chess reading (and replaying) every game (`pip install chess`).
const PYTHON_CHESS: &str = "python3 {support}/read_games.py {small}";

/// The speed cases, one line each; the targets are the issues'. `stats`
/// and `validate` are measured against single-threaded pgn-reader passes
/// doing the least work their output needs, `fix` against `tag` (it reads
/// every game as `tag` does, checks its tags as `validate --no-moves`
/// does, and replays moves only where a repair depends on them);
/// `--threads 1` shows what the second core buys. The pgn-extract and python-chess rows only inform:
/// they run on the small archive, and the ratio is what the README quotes.
#[rustfmt::skip]
const CASES: &[Case] = &[
    case("tag", GREP_EVENTS, "{pgn960} tag -q {pgn} -o /dev/null", Some(1.0)),
    case("tag-zst", ZSTD_DECOMPRESS, "{pgn960} tag -q {zst} -o /dev/null", Some(1.25)),
    case("tag-threads-1", GREP_EVENTS, "{pgn960} tag -q --threads 1 {pgn} -o /dev/null", None),
    case("tag-zst-threads-1", ZSTD_DECOMPRESS, "{pgn960} tag -q --threads 1 {zst} -o /dev/null", None),
    case("stats", READER_TAGS, "{pgn960} stats -q {pgn} -o /dev/null", Some(1.0)),
    case("stats-threads-1", READER_TAGS, "{pgn960} stats -q --threads 1 {pgn} -o /dev/null", None),
    case("fix", "{pgn960} tag -q {pgn} -o /dev/null", "{pgn960} fix -q {pgn} -o /dev/null", Some(1.2)),
    case("validate", READER_REPLAY, "{pgn960} validate -q {pgn} --report /dev/null", Some(0.7)),
    case("validate-no-moves", "{pgn960} stats -q {pgn} -o /dev/null", "{pgn960} validate -q --no-moves {pgn} --report /dev/null", Some(1.05)),
    case("validate-pgn-extract", PGN_EXTRACT, "{pgn960} validate -q {small} --report /dev/null", None),
    case("validate-python-chess", PYTHON_CHESS, "{pgn960} validate -q {small} --report /dev/null", None),
];

/// A memory case: the peak resident set size of one run of `command` (same
/// placeholders as [`Case`], but run without a shell: words only).
struct MemoryCase {
    name: &'static str,
    command: &'static str,
    /// Largest acceptable peak in MiB; `None` for rows that only inform.
    limit_mib: Option<f64>,
}

const fn memory(name: &'static str, command: &'static str, limit_mib: Option<f64>) -> MemoryCase {
    MemoryCase {
        name,
        command,
        limit_mib,
    }
}

/// The memory cases; the 64 MiB limit is the issues', for every command.
#[rustfmt::skip]
const MEMORY_CASES: &[MemoryCase] = &[
    memory("tag", "{pgn960} tag -q {pgn} -o /dev/null", Some(64.0)),
    memory("tag-zst", "{pgn960} tag -q {zst} -o /dev/null", Some(64.0)),
    memory("stats", "{pgn960} stats -q {pgn} -o /dev/null", Some(64.0)),
    memory("validate", "{pgn960} validate -q {pgn} --report /dev/null", Some(64.0)),
    memory("fix", "{pgn960} fix -q {pgn} -o /dev/null", Some(64.0)),
];

/// Command-line options after cargo's `--`.
struct Options {
    /// Case names must contain one of these; all cases when empty.
    filters: Vec<String>,
    /// Runs per command instead of hyperfine's default (at least 10).
    runs: Option<u32>,
}

impl Options {
    fn parse() -> Result<Options, String> {
        let mut options = Options {
            filters: Vec::new(),
            runs: None,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            if arg == "--runs" {
                let runs = args.next().ok_or("--runs needs a number")?;
                options.runs = Some(runs.parse().map_err(|_| format!("bad --runs {runs}"))?);
            } else if !arg.starts_with('-') {
                options.filters.push(arg);
            }
            // Other flags are libtest's (`--bench`), which cargo always passes.
        }
        Ok(options)
    }

    fn selects(&self, name: &str) -> bool {
        self.filters.is_empty() || self.filters.iter().any(|f| name.contains(f.as_str()))
    }
}

/// Where the placeholders of a command point.
struct Paths {
    pgn960: PathBuf,
    examples: PathBuf,
    dataset: dataset::Dataset,
}

impl Paths {
    /// `template` with its placeholders replaced, quoted for the shell.
    fn shell(&self, template: &str) -> String {
        self.expand(template, |path| {
            let path = path.display().to_string();
            let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c);
            if path.chars().all(plain) {
                path
            } else {
                format!("'{}'", path.replace('\'', r"'\''"))
            }
        })
    }

    /// `template` as the reader should see it: file names only.
    fn short(&self, template: &str) -> String {
        self.expand(template, |path| {
            let name = path.file_name().unwrap_or(path.as_os_str());
            name.to_string_lossy().into_owned()
        })
    }

    /// `template` as program and arguments, for running without a shell.
    fn argv(&self, template: &str) -> Vec<String> {
        assert!(
            !template.contains(['\'', '"', '>', '<', '|']),
            "memory cases run without a shell: {template}"
        );
        template
            .split_whitespace()
            .map(|word| self.expand(word, |path| path.display().to_string()))
            .collect()
    }

    fn expand(&self, template: &str, show: impl Fn(&Path) -> String) -> String {
        template
            .replace("{pgn960}", &show(&self.pgn960))
            .replace("{examples}", &show(&self.examples))
            .replace("{pgn}", &show(&self.dataset.pgn))
            .replace("{zst}", &show(&self.dataset.zst))
            .replace("{small}", &show(&self.dataset.small))
            .replace(
                "{support}",
                &show(&Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/support")),
            )
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("throughput: {err}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let options = Options::parse()?;
    let cases: Vec<&Case> = CASES.iter().filter(|c| options.selects(c.name)).collect();
    let memory_cases: Vec<&MemoryCase> = MEMORY_CASES
        .iter()
        .filter(|c| options.selects(c.name))
        .collect();
    if cases.is_empty() && memory_cases.is_empty() {
        let names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
        return Err(format!("no case matches; cases: {}", names.join(", ")));
    }

    // Cargo builds benches and the binaries they run with the bench profile,
    // which inherits release; a debug build here means a profile override.
    let pgn960 = PathBuf::from(env!("CARGO_BIN_EXE_pgn960"));
    let profile_dir = pgn960
        .parent()
        .ok_or("binary without a folder")?
        .to_path_buf();
    if cfg!(debug_assertions) || !profile_dir.ends_with("release") {
        return Err(format!(
            "{} is not an optimised build; run `cargo bench`",
            pgn960.display()
        ));
    }
    let target_dir = profile_dir
        .parent()
        .ok_or("binary outside a target folder")?
        .to_path_buf();

    let started = Instant::now();
    let dataset = dataset::ensure(&target_dir.join("bench-data"))
        .map_err(|err| format!("building the benchmark archive: {err}"))?;
    eprintln!(
        "benchmark archive ready in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let paths = Paths {
        pgn960,
        examples: profile_dir.join("examples"),
        dataset,
    };

    let mut report = Report::new(&paths);
    let uses_examples =
        |c: &&Case| c.baseline.contains("{examples}") || c.candidate.contains("{examples}");
    let mut cases = cases;
    if cases.iter().any(uses_examples)
        && let Err(err) = build_examples(&target_dir)
    {
        // The tree is shared with people mid-edit; the other cases still run.
        eprintln!("{err}; skipping the cases that run examples");
        cases.retain(|c| !uses_examples(c));
    }
    // A case that fails (a command changed its flags mid-development) is
    // reported and the run goes on; the exit code tells at the end.
    let mut failed = Vec::new();
    if !cases.is_empty() && measure::have_hyperfine() {
        for case in &cases {
            if let Err(err) = time_case(case, &paths, options.runs, &mut report) {
                eprintln!("{}: {err}", case.name);
                failed.push(case.name);
            }
        }
    }
    if !memory_cases.is_empty() && measure::have_gnu_time() {
        for case in &memory_cases {
            match measure::peak_rss_kib(&paths.argv(case.command)) {
                Ok(kib) => report.memory(case, &paths, kib as f64 / 1024.0),
                Err(err) => {
                    eprintln!("{} (memory): {err}", case.name);
                    failed.push(case.name);
                }
            }
        }
    }

    let markdown = report.finish();
    println!("\n{markdown}");
    let results = target_dir.join("bench-results.md");
    fs::write(&results, &markdown).map_err(|err| format!("{}: {err}", results.display()))?;
    eprintln!("written to {}", results.display());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("cases that could not run: {}", failed.join(", ")))
    }
}

fn time_case(
    case: &Case,
    paths: &Paths,
    runs: Option<u32>,
    report: &mut Report,
) -> Result<(), String> {
    eprintln!("\n== {} ==", case.name);
    let baseline = paths.shell(case.baseline);
    let candidate = paths.shell(case.candidate);
    let baseline_name = paths.short(case.baseline);
    let candidate_name = paths.short(case.candidate);
    let timings = measure::hyperfine(
        &[
            (baseline_name.as_str(), baseline.as_str()),
            (candidate_name.as_str(), candidate.as_str()),
        ],
        runs,
    )
    .map_err(|err| err.to_string())?;
    report.case(case, paths, &timings[0], &timings[1]);
    Ok(())
}

/// Builds the baseline programs of `examples/` in release mode, into the
/// target folder this bench runs from. Cargo has released its lock on that
/// folder by the time a bench runs, and has nothing to do when they are
/// up to date.
fn build_examples(target_dir: &Path) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let status = Command::new(cargo)
        .args(["build", "--release", "--examples", "--quiet"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_TARGET_DIR", target_dir)
        .status()
        .map_err(|err| format!("running cargo: {err}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "cargo build --release --examples failed ({status})"
        ))
    }
}

/// The results as a markdown table, for the terminal and the README alike.
struct Report {
    bytes: u64,
    header: String,
    speed: String,
    memory: String,
    commands: String,
}

impl Report {
    fn new(paths: &Paths) -> Report {
        let zst_bytes = fs::metadata(&paths.dataset.zst).map_or(0, |m| m.len());
        let mut header = String::new();
        let _ = writeln!(
            header,
            "Benchmark archive `{}`: {:.1} MB (`.zst`: {:.1} MB); {}; pgn960 {}.\n",
            paths.short("{pgn}"),
            paths.dataset.bytes as f64 / 1e6,
            zst_bytes as f64 / 1e6,
            machine(),
            revision(),
        );
        Report {
            bytes: paths.dataset.bytes,
            header,
            speed: String::new(),
            memory: String::new(),
            commands: String::new(),
        }
    }

    fn case(
        &mut self,
        case: &Case,
        paths: &Paths,
        baseline: &measure::Timing,
        candidate: &measure::Timing,
    ) {
        let ratio = candidate.mean / baseline.mean;
        let (target, verdict) = match case.target {
            Some(target) if ratio <= target => (format!("≤ {target:.2}"), "pass"),
            Some(target) => (format!("≤ {target:.2}"), "**FAIL**"),
            None => (String::new(), ""),
        };
        for (template, timing, ratio, target, verdict) in [
            (case.baseline, baseline, 1.0, "", ""),
            (case.candidate, candidate, ratio, target.as_str(), verdict),
        ] {
            let _ = writeln!(
                self.speed,
                "| {} | `{}` | {} | {:.2} s | {:.0} | {:.2} | {} | {} |",
                case.name,
                paths.short(template).replace('|', r"\|"),
                seconds(timing),
                timing.user + timing.system,
                self.bytes as f64 / timing.mean / 1e6,
                ratio,
                target,
                verdict,
            );
        }
        for template in [case.baseline, case.candidate] {
            let _ = writeln!(self.commands, "    {}", paths.shell(template));
        }
    }

    fn memory(&mut self, case: &MemoryCase, paths: &Paths, mib: f64) {
        let (limit, verdict) = match case.limit_mib {
            Some(limit) if mib <= limit => (format!("≤ {limit:.0} MiB"), "pass"),
            Some(limit) => (format!("≤ {limit:.0} MiB"), "**FAIL**"),
            None => (String::new(), ""),
        };
        let _ = writeln!(
            self.memory,
            "| {} | `{}` | {:.1} MiB | {} | {} |",
            case.name,
            paths.short(case.command),
            mib,
            limit,
            verdict,
        );
        let _ = writeln!(
            self.commands,
            "    /usr/bin/time -v {}",
            paths.argv(case.command).join(" ")
        );
    }

    fn finish(self) -> String {
        let mut out = self.header;
        if !self.speed.is_empty() {
            out.push_str(
                "| case | command | mean ± σ | CPU | MB/s | ratio | target | result |\n\
                 |---|---|---|--:|--:|--:|---|---|\n",
            );
            out.push_str(&self.speed);
            out.push_str(
                "\nMean and σ are wall-clock times; CPU is user + system time of all \
                 threads (less sensitive to other load on the machine). MB/s is of the \
                 uncompressed archive. Ratio is mean / mean of the case's first command, \
                 timed in the same hyperfine session.\n\n",
            );
        }
        if !self.memory.is_empty() {
            out.push_str(
                "| case | command | peak RSS | target | result |\n|---|---|--:|---|---|\n",
            );
            out.push_str(&self.memory);
            out.push('\n');
        }
        if !self.commands.is_empty() {
            out.push_str("Exact commands (hyperfine `--warmup 1 --output pipe`):\n\n");
            out.push_str(&self.commands);
        }
        out
    }
}

fn seconds(timing: &measure::Timing) -> String {
    match timing.stddev {
        Some(stddev) => format!("{:.3} s ± {:.3}", timing.mean, stddev),
        None => format!("{:.3} s", timing.mean),
    }
}

/// Cores and CPU model, so results from different machines are told apart.
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|line| line.strip_prefix("model name"))
                .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    format!("{cores} cores, {cpu}")
}

/// The commit measured, marked when the work tree differs from it.
fn revision() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short", "HEAD"]) {
        Some(rev) if git(&["status", "--porcelain"]).is_some_and(|s| !s.is_empty()) => {
            format!("at {rev} with uncommitted changes")
        }
        Some(rev) => format!("at {rev}"),
        None => "(no git revision)".to_string(),
    }
}
