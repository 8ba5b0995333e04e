//! Throughput and peak memory of pgn960's archive commands, each timed
//! side by side with a baseline that reads the same bytes.
//!
//! The machines are shared and noisy, so a time alone says little; what we
//! track is the ratio of pgn960's time to a baseline's. Each case runs its
//! two commands in interleaved pairs (B C, C B, ...) and takes the median
//! of the pairs' ratios; `/proc/loadavg` is printed before and after, and
//! when the machine was loaded at the start (one-minute load above 0.5)
//! no target gets a verdict: load slows a one-thread baseline and a
//! two-thread command differently, so such a ratio is not a result. (The
//! cases' own runs raise the load as the run goes on; each case's load at
//! its start is shown, to tell other load from that.) Speed targets live
//! here, never in timed tests.
//!
//! ```text
//! cargo bench --bench throughput              # every case
//! cargo bench --bench throughput -- tag-zst   # cases whose name contains a filter
//! cargo bench --bench throughput -- --runs 3  # fewer pairs per case (default 7)
//! ```
//!
//! The first run builds the ~350 MB benchmark archive into
//! `target/bench-data/` (delete it to rebuild). Results are printed and
//! written to `target/bench-results.md`. Memory needs the Debian package
//! `time`. A missed target is a result, not an error: the exit code is
//! non-zero only when a case could not run at all.

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

/// A speed case: `candidate` timed against `baseline` in interleaved
/// pairs.
///
/// Both are shell commands with placeholders: `{pgn}` and `{zst}` are the
/// benchmark archive plain and zstd-compressed, `{pgn960}` is the binary
/// under test, `{examples}` the folder of this crate's examples built in
/// release mode (the baseline programs in `examples/`), `{scratch}` a
/// folder for the files a command writes.
struct Case {
    name: &'static str,
    baseline: &'static str,
    candidate: &'static str,
    /// Largest acceptable median of the pairs' time(candidate) /
    /// time(baseline); `None` for rows that only inform.
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
const PYTHON_CHESS: &str = "{python} {support}/read_games.py {small}";
/// The Python module's `pgn960.games()` building the whole table.
const PYTHON_GAMES: &str = "{python} {support}/python_games.py {pgn}";
/// python-chess listing every game's tags, skipping its moves.
const PYTHON_CHESS_HEADERS: &str = "{python} {support}/read_headers.py {pgn}";

/// The speed cases, one line each; the targets are issue 14's. `stats`
/// and `validate` are measured against single-threaded pgn-reader passes
/// doing the least work their output needs, `fix` against `tag` (it reads
/// every game as `tag` does, checks its tags as `validate --no-moves`
/// does, and replays moves only where a repair depends on them);
/// `--threads 1` shows what the second core buys. `games` is measured
/// against `stats`, which reads the same tags but no movetext and writes
/// one row per position, not per game. `filter` must keep up with `tag`
/// (it reads what `tag` reads), and with `--finding` with `validate`
/// (whose replay it runs). The pgn-extract and python-chess rows only
/// inform:
/// they run on the small archive, and the ratio is what the README quotes.
/// The Python module's `games()` (issue 37) must keep within 1.2 times the
/// command it stands for, and take at most a hundredth of the time of
/// python-chess's quickest pass over the same archive; those two cases run
/// with the interpreter `PGN960_PYTHON` names (`python3` by default), into
/// which the module was built in release mode.
#[rustfmt::skip]
const CASES: &[Case] = &[
    case("tag", GREP_EVENTS, "{pgn960} tag -q {pgn} -o /dev/null", Some(0.55)),
    case("tag-zst", ZSTD_DECOMPRESS, "{pgn960} tag -q {zst} -o /dev/null", Some(1.10)),
    case("tag-threads-1", GREP_EVENTS, "{pgn960} tag -q --threads 1 {pgn} -o /dev/null", None),
    case("tag-zst-threads-1", ZSTD_DECOMPRESS, "{pgn960} tag -q --threads 1 {zst} -o /dev/null", None),
    case("stats", READER_TAGS, "{pgn960} stats -q {pgn} -o /dev/null", Some(0.90)),
    case("stats-threads-1", READER_TAGS, "{pgn960} stats -q --threads 1 {pgn} -o /dev/null", None),
    case("fix", "{pgn960} tag -q {pgn} -o /dev/null", "{pgn960} fix -q {pgn} -o /dev/null", Some(1.2)),
    case("validate", READER_REPLAY, "{pgn960} validate -q {pgn} --report /dev/null", Some(0.60)),
    case("validate-no-moves", "{pgn960} stats -q {pgn} -o /dev/null", "{pgn960} validate -q --no-moves {pgn} --report /dev/null", Some(1.05)),
    case("filter", "{pgn960} tag -q {pgn} -o /dev/null", "{pgn960} filter -q --kind chess960 {pgn} -o /dev/null", Some(1.0)),
    case("filter-finding", "{pgn960} validate -q {pgn} --report /dev/null", "{pgn960} filter -q --finding error {pgn} -o /dev/null", Some(1.0)),
    case("filter-split", "{pgn960} tag -q {pgn} -o /dev/null", "{pgn960} filter -q --split-by position --output-dir {scratch}/split {pgn}", None),
    case("validate-pgn-extract", PGN_EXTRACT, "{pgn960} validate -q {small} --report /dev/null", None),
    case("validate-python-chess", PYTHON_CHESS, "{pgn960} validate -q {small} --report /dev/null", None),
    case("games-parquet", "{pgn960} stats -q {pgn} -o /dev/null", "{pgn960} games -q {pgn} --format parquet -o /dev/null", Some(1.5)),
    case("games-csv", "{pgn960} stats -q {pgn} -o /dev/null", "{pgn960} games -q {pgn} --format csv -o /dev/null", None),
    case("python-games", "{pgn960} games -q {pgn} --format parquet -o /dev/null", PYTHON_GAMES, Some(1.2)),
    case("python-games-python-chess", PYTHON_CHESS_HEADERS, PYTHON_GAMES, Some(0.01)),
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

/// The memory cases: on ordinary archives every command that streams
/// stays within 32 MiB (issue 14); `games` (Parquet row groups) and
/// `filter --split-by` (a writer per position) within 64 MiB, the bound
/// for any input, which the tests hold (`tests/hardening.rs`).
#[rustfmt::skip]
const MEMORY_CASES: &[MemoryCase] = &[
    memory("tag", "{pgn960} tag -q {pgn} -o /dev/null", Some(32.0)),
    memory("tag-zst", "{pgn960} tag -q {zst} -o /dev/null", Some(32.0)),
    memory("stats", "{pgn960} stats -q {pgn} -o /dev/null", Some(32.0)),
    memory("validate", "{pgn960} validate -q {pgn} --report /dev/null", Some(32.0)),
    memory("games-parquet", "{pgn960} games -q {pgn} --format parquet -o /dev/null", Some(64.0)),
    memory("filter", "{pgn960} filter -q --kind chess960 {pgn} -o /dev/null", Some(32.0)),
    memory("filter-split", "{pgn960} filter -q --split-by position --output-dir {scratch}/split {pgn}", Some(64.0)),
    memory("fix", "{pgn960} fix -q {pgn} -o /dev/null", Some(32.0)),
];

/// Command-line options after cargo's `--`.
struct Options {
    /// Case names must contain one of these; all cases when empty.
    filters: Vec<String>,
    /// Pairs per case.
    pairs: usize,
}

impl Options {
    fn parse() -> Result<Options, String> {
        let mut options = Options {
            filters: Vec::new(),
            pairs: 7,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            if arg == "--runs" {
                let runs = args.next().ok_or("--runs needs a number")?;
                options.pairs = runs
                    .parse()
                    .ok()
                    .filter(|&pairs| pairs > 0)
                    .ok_or_else(|| format!("bad --runs {runs}"))?;
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
    scratch: PathBuf,
    /// The interpreter of the Python cases (`PGN960_PYTHON`, or `python3`).
    python: PathBuf,
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
            .replace("{scratch}", &show(&self.scratch))
            .replace("{python}", &show(&self.python))
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
    let scratch = target_dir.join("bench-scratch");
    fs::create_dir_all(&scratch).map_err(|err| format!("{}: {err}", scratch.display()))?;
    let paths = Paths {
        pgn960,
        examples: profile_dir.join("examples"),
        dataset,
        scratch,
        python: std::env::var_os("PGN960_PYTHON")
            .map_or_else(|| PathBuf::from("python3"), PathBuf::from),
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
    let uses_python =
        |c: &&Case| c.candidate.contains("{python}") || c.baseline.contains("{python}");
    if cases.iter().any(uses_python)
        && let Err(err) = check_python(&paths.python)
    {
        eprintln!("{err}; skipping the Python cases");
        cases.retain(|c| !uses_python(c));
    }
    // A case that fails (a command changed its flags mid-development) is
    // reported and the run goes on; the exit code tells at the end.
    let mut failed = Vec::new();
    report.load_before = measure::load_average();
    eprintln!(
        "load average at the start: {}",
        load_text(report.load_before)
    );
    if !cases.is_empty() {
        for case in &cases {
            if let Err(err) = time_case(case, &paths, options.pairs, &mut report) {
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

    report.load_after = measure::load_average();
    eprintln!("load average at the end: {}", load_text(report.load_after));
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

fn time_case(case: &Case, paths: &Paths, pairs: usize, report: &mut Report) -> Result<(), String> {
    let load = measure::load_average();
    eprintln!("\n== {} == (load {})", case.name, load_text(load));
    let baseline = paths.shell(case.baseline);
    let candidate = paths.shell(case.candidate);
    let timed =
        measure::interleaved(&baseline, &candidate, pairs).map_err(|err| err.to_string())?;
    let ratios: Vec<String> = timed.ratios().iter().map(|r| format!("{r:.3}")).collect();
    eprintln!(
        "{}: median {:.3} s; {}: median {:.3} s; ratios {}",
        paths.short(case.baseline),
        measure::median_wall(&timed.baseline),
        paths.short(case.candidate),
        measure::median_wall(&timed.candidate),
        ratios.join(" ")
    );
    report.case(case, paths, &timed, load);
    Ok(())
}

/// A load average as printed, `?` when it could not be read.
fn load_text(load: Option<f64>) -> String {
    load.map_or_else(|| "?".to_string(), |load| format!("{load:.2}"))
}

/// Above this one-minute load at the start of the run, no ratio gets a
/// verdict.
const QUIET_LOAD: f64 = 0.5;

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

/// Checks that `python` can import the modules the Python cases run:
/// pgn960's (built with `maturin develop --release`) and python-chess.
fn check_python(python: &Path) -> Result<(), String> {
    let output = Command::new(python)
        .args(["-c", "import pgn960, chess"])
        .output()
        .map_err(|err| format!("{}: {err}", python.display()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} cannot import pgn960 and chess ({})",
            python.display(),
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ))
    }
}

/// The results as a markdown table, for the terminal and the README alike.
struct Report {
    bytes: u64,
    load_before: Option<f64>,
    load_after: Option<f64>,
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
            "Benchmark archive `{}`: {:.1} MB (`.zst`: {:.1} MB); {}; pgn960 {}; {}.\n",
            paths.short("{pgn}"),
            paths.dataset.bytes as f64 / 1e6,
            zst_bytes as f64 / 1e6,
            machine(),
            revision(),
            today(),
        );
        Report {
            bytes: paths.dataset.bytes,
            load_before: None,
            load_after: None,
            header,
            speed: String::new(),
            memory: String::new(),
            commands: String::new(),
        }
    }

    fn case(&mut self, case: &Case, paths: &Paths, timed: &measure::Pairs, load: Option<f64>) {
        let ratio = timed.median_ratio();
        let quiet = self.load_before.is_some_and(|load| load <= QUIET_LOAD);
        let (target, verdict) = match case.target {
            Some(target) if !quiet => (format!("≤ {target:.2}"), "no verdict: loaded"),
            Some(target) if ratio <= target => (format!("≤ {target:.2}"), "met"),
            Some(target) => (format!("≤ {target:.2}"), "**missed**"),
            None => (String::new(), ""),
        };
        let ratios = timed.ratios();
        let spread = format!(
            "{:.2}–{:.2}",
            ratios.iter().copied().fold(f64::INFINITY, f64::min),
            ratios.iter().copied().fold(0.0, f64::max)
        );
        for (template, runs, ratio, spread, target, verdict) in [
            (
                case.baseline,
                &timed.baseline,
                String::from("1"),
                String::new(),
                "",
                "",
            ),
            (
                case.candidate,
                &timed.candidate,
                format!("{ratio:.2}"),
                spread,
                target.as_str(),
                verdict,
            ),
        ] {
            let wall = measure::median_wall(runs);
            let _ = writeln!(
                self.speed,
                "| {} | `{}` | {:.3} s | {:.2} s | {:.0} | {} | {} | {} | {} | {} |",
                case.name,
                paths.short(template).replace('|', r"\|"),
                wall,
                measure::median_cpu(runs),
                self.bytes as f64 / wall / 1e6,
                ratio,
                spread,
                load_text(load),
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
        let _ = writeln!(
            out,
            "Load average (one minute): {} at the start, {} at the end.\n",
            load_text(self.load_before),
            load_text(self.load_after)
        );
        if !self.speed.is_empty() {
            out.push_str(
                "| case | command | time | CPU | MB/s | ratio | pairs' ratios | load | target | result |\n\
                 |---|---|--:|--:|--:|--:|---|--:|---|---|\n",
            );
            out.push_str(&self.speed);
            out.push_str(
                "\nTime is the median wall-clock time of the runs, CPU the median user + \
                 system time of all threads; MB/s is of the uncompressed archive. The \
                 two commands of a case run in interleaved pairs (B C, C B, ...); ratio \
                 is the median of the pairs' ratios, and the range beside it their \
                 spread. Load is the one-minute load average when the case began, the \
                 earlier cases' runs included; when it was above 0.5 at the start of \
                 the run, no target gets a verdict.\n\n",
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
            out.push_str(
                "Exact commands (`sh -c`, output drained through a pipe, one warm-up \
                 run each):\n\n",
            );
            out.push_str(&self.commands);
        }
        out
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

/// Today's date, as `date` prints it.
fn today() -> String {
    Command::new("date")
        .arg("+%Y-%m-%d %H:%M %Z")
        .output()
        .ok()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_default()
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
