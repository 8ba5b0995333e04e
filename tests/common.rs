//! Helpers shared by the archive-command tests: the real data (the samples
//! under `testdata/real/`, always there, and the whole corpus, when it is
//! there), running the binary, removing id tags, and comparing bytes with a
//! readable diff.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs;
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use assert_cmd::Command;

/// The environment variable naming the corpus folder.
pub const CORPUS_VAR: &str = "PGN960_CORPUS";

/// The real samples shipped in the repository (`testdata/real/`, described
/// in `testdata/README.md`): cuts of the corpus, always there.
pub fn samples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/real")
}

/// A sample, by its path below `samples_dir()`.
pub fn sample_file(relative: &str) -> PathBuf {
    let path = samples_dir().join(relative);
    assert!(path.is_file(), "{} is missing", path.display());
    path
}

/// Every `*.pgn` and `*.pgn.zst` file below `samples_dir()`, sorted.
pub fn sample_files() -> Vec<PathBuf> {
    let files = pgn_files_below(&samples_dir());
    assert!(
        files.len() >= 20,
        "expected the samples of testdata/real, found {} files",
        files.len()
    );
    files
}

/// The samples at the top of `samples_dir()` and in `standard/`: the cuts
/// of real archives, without the small edge files.
pub fn sample_archives() -> Vec<PathBuf> {
    let edge = samples_dir().join("edge");
    sample_files()
        .into_iter()
        .filter(|path| !path.starts_with(&edge))
        .collect()
}

/// The whole real-data corpus (see `../shared/data/README.md`), for the
/// extended run.
pub struct Corpus {
    dir: PathBuf,
}

impl Corpus {
    /// The corpus folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A file of the corpus, by its path below `dir()`.
    pub fn file(&self, relative: &str) -> PathBuf {
        let path = self.dir.join(relative);
        assert!(path.is_file(), "{} is missing", path.display());
        path
    }

    /// Every `*.pgn` and `*.pgn.zst` file of the corpus, sorted.
    pub fn files(&self) -> Vec<PathBuf> {
        let files = pgn_files_below(&self.dir);
        assert!(
            files.len() > 100,
            "expected the whole corpus in {}, found {} files",
            self.dir.display(),
            files.len()
        );
        files
    }
}

/// The corpus: the folder `PGN960_CORPUS` names, else `../shared/data`
/// beside the checkout when that is a folder, else `None`.
///
/// # Panics
///
/// When `PGN960_CORPUS` is set but names no folder: a run that asks for
/// the corpus must not lose its tests silently.
pub fn corpus() -> Option<Corpus> {
    if let Some(named) = std::env::var_os(CORPUS_VAR).filter(|value| !value.is_empty()) {
        let dir = std::path::absolute(PathBuf::from(&named))
            .unwrap_or_else(|err| panic!("{CORPUS_VAR}={}: {err}", Path::new(&named).display()));
        assert!(
            dir.is_dir(),
            "{CORPUS_VAR}={} names no folder: the corpus tests cannot run",
            dir.display()
        );
        return Some(Corpus { dir });
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    beside.is_dir().then_some(Corpus { dir: beside })
}

/// The corpus for the corpus test `test` (`module::name`); without a
/// corpus, one line on stderr saying the test was skipped and how to run
/// it, and `None`, on which the test returns.
///
/// The line goes straight to the process's stderr: `eprintln!` would be
/// captured by the test harness and shown only for failing tests.
pub fn corpus_or_skip(test: &str) -> Option<Corpus> {
    // The harness names each test's thread after the test (but for a run
    // on one thread): the name given must be the test's own.
    if let Some(thread) = std::thread::current().name().filter(|name| *name != "main") {
        assert_eq!(test, thread, "corpus_or_skip is given its test's name");
    }
    let corpus = corpus();
    if corpus.is_none() {
        say_skipped(
            test,
            &format!(
                "no corpus (set {CORPUS_VAR}=DIR, or put the corpus at ../shared/data; \
                 see docs/development.md)"
            ),
        );
    }
    corpus
}

/// The variable `.ci/run` sets: there every test must run, and one that
/// would be skipped fails instead.
pub const CI_VAR: &str = "PGN960_CI";

/// Says, on one line of the process's stderr, that `test` was skipped and
/// why; under `.ci/run` ([`CI_VAR`] set), fails it instead: CI must not
/// lose a test silently.
pub fn say_skipped(test: &str, why: &str) {
    assert!(
        std::env::var_os(CI_VAR).is_none(),
        "{test} cannot run here ({why}), and under {CI_VAR} every test must run"
    );
    let line = format!("skipped {test}: {why}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Whether this system has `/dev/full`, the output that is always full;
/// when not, says that `test` was skipped (see [`say_skipped`]).
pub fn has_dev_full(test: &str) -> bool {
    let here = Path::new("/dev/full").exists();
    if !here {
        say_skipped(test, "no /dev/full on this system");
    }
    here
}

/// A file of `testdata/`, by its path below it.
pub fn testdata_file(relative: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(relative);
    assert!(path.is_file(), "{} is missing", path.display());
    path
}

/// Every `*.pgn` and `*.pgn.zst` file below `dir`, sorted.
pub fn pgn_files_below(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        let entries = fs::read_dir(dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display()));
        for entry in entries {
            let path = entry.expect("a readable directory entry").path();
            if path.is_dir() {
                walk(&path, files);
            } else {
                let name = path.to_string_lossy();
                if name.ends_with(".pgn") || name.ends_with(".pgn.zst") {
                    files.push(path);
                }
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    files
}

/// A PGN file's bytes, decompressed when it is zstd (told by its magic
/// bytes, independently of the library under test).
pub fn read_pgn(path: &Path) -> Vec<u8> {
    let raw = fs::read(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    if raw.starts_with(b"\x28\xb5\x2f\xfd") {
        let mut out = Vec::new();
        zstd::stream::read::Decoder::new(&raw[..])
            .and_then(|mut decoder| decoder.read_to_end(&mut out))
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        out
    } else {
        raw
    }
}

/// A real-data path for messages: `testdata/real/...` for a sample, the
/// path below the corpus folder for a corpus file.
pub fn short_name(path: &Path) -> String {
    if let Ok(relative) = path.strip_prefix(samples_dir()) {
        return Path::new("testdata/real")
            .join(relative)
            .display()
            .to_string();
    }
    corpus()
        .and_then(|corpus| {
            path.strip_prefix(corpus.dir())
                .ok()
                .map(|relative| relative.display().to_string())
        })
        .unwrap_or_else(|| path.display().to_string())
}

/// The path of a real-data file below its root (the samples folder or the
/// corpus): `edge/kokopu/...` either way.
pub fn relative_name(path: &Path) -> String {
    let name = short_name(path);
    name.strip_prefix("testdata/real/")
        .map_or_else(|| name.clone(), str::to_owned)
}

/// What one run of the binary did.
pub struct Run {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    /// Asserts exit 0 and no panic message, and returns stdout.
    pub fn ok(self, what: &str) -> Vec<u8> {
        assert_no_panic(&self, what);
        assert_eq!(self.code, 0, "{what}: exit code; stderr:\n{}", self.stderr);
        self.stdout
    }

    /// The summary `tag` printed on stderr.
    pub fn summary(&self) -> Summary {
        Summary::parse(&self.stderr)
    }
}

/// Runs `pgn960` with `args`, feeding `stdin` (nothing when `None`).
pub fn pgn960<S: AsRef<OsStr>>(args: &[S], stdin: Option<&[u8]>) -> Run {
    let mut command = Command::cargo_bin("pgn960").expect("the pgn960 binary is built");
    command.args(args);
    // An empty stdin rather than the test runner's, so that a command that
    // unexpectedly reads it cannot hang.
    command.write_stdin(stdin.unwrap_or_default().to_vec());
    let output = command.output().expect("pgn960 runs");
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    let what = format!(
        "pgn960 {:?}",
        args.iter().map(AsRef::as_ref).collect::<Vec<_>>()
    );
    assert_no_panic(&run, &what);
    run
}

/// Runs `pgn960` with `args`, writing `input` to its standard input and
/// then holding that open, as a pipe whose writer waits (`tail -f`); waits
/// at most `limit` for it to end. Its exit status and stderr, or `None`
/// when it was still running (it is then killed): it waited for the input.
pub fn pgn960_with_stdin_held_open(
    args: &[&str],
    input: &[u8],
    limit: Duration,
) -> Option<(ExitStatus, String)> {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pgn960"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pgn960 starts");
    let mut feed = child.stdin.take().expect("piped stdin");
    let bytes = input.to_vec();
    let (ended_tx, ended_rx) = mpsc::channel::<()>();
    let writer = thread::spawn(move || {
        // A child that has ended closes the pipe: that write fails, which
        // is fine.
        let _ = feed.write_all(&bytes);
        let _ = ended_rx.recv();
    });
    let mut err = child.stderr.take().expect("piped stderr");
    let stderr = thread::spawn(move || {
        let mut buf = String::new();
        let _ = err.read_to_string(&mut buf);
        buf
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    drop(ended_tx);
    writer.join().expect("the writer ends");
    let stderr = stderr.join().expect("stderr reader");
    status.map(|status| (status, stderr))
}

/// `count` games of one move each.
pub fn one_move_games(count: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for i in 0..count {
        bytes.extend_from_slice(format!("[Event \"{i}\"]\n\n1. e4 *\n").as_bytes());
    }
    bytes
}

fn assert_no_panic(run: &Run, what: &str) {
    assert!(
        !run.stderr.contains("panicked") && run.code != 101 && run.code != -1,
        "{what} crashed (exit {}):\n{}",
        run.code,
        run.stderr
    );
}

/// The counts of `pgn960 tag`'s summary on stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub games: u64,
    pub chess960: u64,
    pub standard: u64,
    pub dfrc: u64,
    pub other: u64,
    pub unreadable: u64,
    pub tagged: u64,
    pub added: u64,
    pub rewritten: u64,
    pub already_right: u64,
    pub left_alone: u64,
}

impl Summary {
    /// Reads the summary out of `stderr` (the words around the numbers are
    /// checked, so a reworded summary fails here rather than silently).
    ///
    /// ```text
    /// pgn960 tag: 20 games read: 20 chess960, 0 standard, 0 dfrc, 0 other, 0 unreadable
    ///   tagged 20 games: 20 id tags added, 0 rewritten, 0 already right
    ///   left as they were: 2 games: ...
    /// ```
    ///
    /// (With `--check`: `20 games to tag: 20 id tags would be added, ...`.)
    pub fn parse(stderr: &str) -> Summary {
        let start = stderr
            .find("pgn960 tag: ")
            .unwrap_or_else(|| panic!("no summary in stderr:\n{stderr}"));
        // One wording for every count: plurals, no `would be`, no `to tag`.
        let text = stderr[start..]
            .replace("would be ", "")
            .replace("tagged ", "")
            .replace(" to tag", "")
            .replace(['\n', ',', ':'], " ");
        let words: Vec<String> = text
            .split_whitespace()
            .map(|w| match w {
                "game" => "games".to_string(),
                "tag" => "tags".to_string(),
                w => w.to_string(),
            })
            .collect();
        let number_before = |label: &[&str]| -> u64 {
            let at = words
                .windows(label.len() + 1)
                .position(|w| w[1..].iter().zip(label).all(|(a, b)| a == b))
                .unwrap_or_else(|| panic!("no `N {}` in the summary:\n{stderr}", label.join(" ")));
            words[at]
                .parse()
                .unwrap_or_else(|_| panic!("`{}` is no number in:\n{stderr}", words[at]))
        };
        // Line two starts with the games tagged: `N games id tags ...`.
        let line_two = 1 + words
            .iter()
            .position(|w| w == "unreadable")
            .expect("the first line ends with the unreadable games");
        let left_alone = words
            .windows(3)
            .position(|w| w[0] == "left" && w[1] == "as")
            .map_or(0, |at| {
                words[at..]
                    .iter()
                    .find_map(|w| w.parse().ok())
                    .expect("a number of games left as they were")
            });
        Summary {
            games: number_before(&["games", "read"]),
            chess960: number_before(&["chess960"]),
            standard: number_before(&["standard"]),
            dfrc: number_before(&["dfrc"]),
            other: number_before(&["other"]),
            unreadable: number_before(&["unreadable"]),
            tagged: words[line_two]
                .parse()
                .unwrap_or_else(|_| panic!("no games tagged in:\n{stderr}")),
            added: number_before(&["id", "tags", "added"]),
            rewritten: number_before(&["rewritten"]),
            already_right: number_before(&["already", "right"]),
            left_alone,
        }
    }
}

/// Removes every `[Chess960Id "..."]` and `[Chess960Fritz9Id "..."]` tag
/// where a tag can stand: at the start of a line, or after another tag
/// or a comment on its line; with the line ending right after it when
/// that is the ending of the line before it or of the next line (as the
/// ending of a line `tag` inserts is).
///
/// What `tag` may change is exactly these tags, so
/// `strip_id_lines(output) == strip_id_lines(input)` says that every other
/// byte is untouched. Id-shaped text in a comment (`{ [Chess960Id "5"] }`,
/// `; [Chess960Id "5"]`, `% [Chess960Id "5"]`) stays, so a rewrite of it
/// shows; so does an id line's ending unlike its neighbour's (`\n` after
/// an id in a CRLF game).
pub fn strip_id_lines(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(i) = memchr::memmem::find(&bytes[from..], b"[Chess960") {
        let start = from + i;
        from = start + 1;
        let rest = &bytes[start..];
        let Some(value_at) = [&b"[Chess960Id \""[..], b"[Chess960Fritz9Id \""]
            .iter()
            .find(|open| rest.starts_with(open))
            .map(|open| start + open.len())
        else {
            continue;
        };
        let Some(close) = memchr::memchr2(b'"', b'\n', &bytes[value_at..]).map(|i| value_at + i)
        else {
            continue;
        };
        if bytes[close] != b'"' || bytes.get(close + 1) != Some(&b']') {
            continue;
        }
        let before = bytes[..start]
            .strip_suffix(b"\xef\xbb\xbf")
            .unwrap_or(&bytes[..start]);
        let line_start = matches!(before.last(), None | Some(b'\n' | b'\r'));
        if !line_start && !crate::id_oracle::tag_may_start(&bytes[..start]) {
            continue;
        }
        let mut end = close + 2;
        {
            let ending_after: &[u8] = if bytes[end..].starts_with(b"\r\n") {
                b"\r\n"
            } else {
                match bytes.get(end) {
                    Some(b'\n') => b"\n",
                    Some(b'\r') => b"\r",
                    _ => b"",
                }
            };
            let ending_before: Option<&[u8]> = match before {
                [] => None,
                [.., b'\r', b'\n'] => Some(b"\r\n"),
                [.., b'\n'] => Some(b"\n"),
                _ => Some(b"\r"),
            };
            let next = &bytes[end + ending_after.len()..];
            let ending_next: &[u8] = match memchr::memchr2(b'\n', b'\r', next) {
                Some(at) if next[at..].starts_with(b"\r\n") => b"\r\n",
                Some(at) if next[at] == b'\n' => b"\n",
                Some(_) => b"\r",
                None => b"",
            };
            if (line_start && ending_before.is_none_or(|ending| ending == ending_after))
                || ending_next == ending_after
            {
                end += ending_after.len();
            }
        }
        out.extend_from_slice(&bytes[copied..start]);
        copied = end;
        from = end;
    }
    out.extend_from_slice(&bytes[copied..]);
    out
}

/// Asserts two byte strings are equal; on failure shows a line diff with
/// line endings made visible, rather than two walls of bytes.
#[track_caller]
pub fn assert_same_bytes(actual: &[u8], expected: &[u8], what: &str) {
    if let Some(diff) = bytes_diff(actual, expected) {
        panic!("{what}: {diff}");
    }
}

/// `None` when equal, else a readable description of the difference.
pub fn bytes_diff(actual: &[u8], expected: &[u8]) -> Option<String> {
    (actual != expected).then(|| {
        format!(
            "bytes differ (actual {} bytes, expected {} bytes)\n{}",
            actual.len(),
            expected.len(),
            line_diff(actual, expected)
        )
    })
}

/// Splits after each `\n`, `\r\n` or lone `\r`, keeping the line ending.
pub fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let end = match bytes[i] {
            b'\n' => i + 1,
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => i + 2,
            b'\r' => i + 1,
            _ => {
                i += 1;
                continue;
            }
        };
        lines.push(&bytes[start..end]);
        start = end;
        i = end;
    }
    if start < bytes.len() {
        lines.push(&bytes[start..]);
    }
    lines
}

/// The differing middle of two texts, with a little context, one line per
/// row: ` ` same, `-` expected only, `+` actual only.
fn line_diff(actual: &[u8], expected: &[u8]) -> String {
    const CONTEXT: usize = 3;
    const MAX_ROWS: usize = 40;
    let a = lines(actual);
    let e = lines(expected);
    let prefix = a.iter().zip(&e).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(e[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let show = |line: &[u8]| {
        let text = String::from_utf8_lossy(line);
        let text: String = text.chars().take(160).collect();
        format!("{text:?}")
    };
    let mut out = format!("first difference at line {}:\n", prefix + 1);
    for line in &e[prefix.saturating_sub(CONTEXT)..prefix] {
        let _ = writeln!(out, "  {}", show(line));
    }
    let removed = &e[prefix..e.len() - suffix];
    let added = &a[prefix..a.len() - suffix];
    for line in removed.iter().take(MAX_ROWS) {
        let _ = writeln!(out, "- {}", show(line));
    }
    if removed.len() > MAX_ROWS {
        let _ = writeln!(out, "- ... {} more lines", removed.len() - MAX_ROWS);
    }
    for line in added.iter().take(MAX_ROWS) {
        let _ = writeln!(out, "+ {}", show(line));
    }
    if added.len() > MAX_ROWS {
        let _ = writeln!(out, "+ ... {} more lines", added.len() - MAX_ROWS);
    }
    for line in e[e.len() - suffix..].iter().take(CONTEXT) {
        let _ = writeln!(out, "  {}", show(line));
    }
    out
}

#[test]
fn strip_id_lines_removes_the_tag_and_one_line_ending() {
    let input = b"[A \"1\"]\r\n[Chess960Id \"5\"]\r\n\r\n[Chess960Fritz9Id \"9\"]\r\n\n\
                  [Chess960Id \"5\"]\n[B \"x\"] [Chess960Id \"12\"] 1. e4 [Chess960Id \"x\n";
    assert_eq!(
        String::from_utf8_lossy(&strip_id_lines(input)),
        "[A \"1\"]\r\n\r\n\n[B \"x\"]  1. e4 [Chess960Id \"x\n"
    );
}

/// An id line ending unlike the line before it keeps its ending, and
/// id-shaped text in comments stays, so that `tag` changing either shows.
#[test]
fn strip_id_lines_keeps_foreign_endings_and_ids_in_comments() {
    assert_eq!(
        strip_id_lines(b"[A \"1\"]\r\n[Chess960Id \"5\"]\n\r\n*\r\n"),
        b"[A \"1\"]\r\n\n\r\n*\r\n"
    );
    for text in [
        &b"[A \"1\"]\n\n1. e4 { [Chess960Id \"5\"] } *\n"[..],
        b"[A \"1\"]\n; [Chess960Id \"5\"]\n\n*\n",
        b"[A \"1\"]\n% [Chess960Fritz9Id \"5\"]\n\n*\n",
        b"[A \"1\"]\n\n1. e4 {[Chess960Id \"5\"]} *\n",
    ] {
        assert_eq!(strip_id_lines(text), text);
    }
}

#[test]
fn summary_parses_both_wordings() {
    let stderr = "pgn960 tag: 20 games read: 2 chess960, 5 standard, 3 dfrc, 4 other, 6 unreadable\n  \
         2 games to tag: 18 id tags would be added, 1 would be rewritten, 2 already right\n  \
         left as it was: 1 game: an id tag that does not end on its line, or no safe place for a new one\n";
    assert_eq!(
        Summary::parse(stderr),
        Summary {
            games: 20,
            chess960: 2,
            standard: 5,
            dfrc: 3,
            other: 4,
            unreadable: 6,
            tagged: 2,
            added: 18,
            rewritten: 1,
            already_right: 2,
            left_alone: 1,
        }
    );
    let stderr = "pgn960 tag: 1 game read: 1 chess960, 0 standard, 0 dfrc, 0 other, 0 unreadable\n  \
         tagged 1 game: 1 id tag added, 0 rewritten, 0 already right\n";
    let summary = Summary::parse(stderr);
    assert_eq!((summary.games, summary.tagged, summary.added), (1, 1, 1));
}

/// What one stream holds when the commands that write inputs one after
/// another (`tag`, `fix`, `filter`) write `parts`: each part as it is, and
/// between a part whose last line has no line ending and the next, a line
/// ending and an empty line in that part's style (its last `\r\n`, `\n`
/// or lone `\r`; `\n` when it has none), as between games. The rule,
/// written apart from the code under test.
pub fn joined(parts: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0
            && !out.is_empty()
            && !part.is_empty()
            && !matches!(out.last(), Some(b'\n' | b'\r'))
        {
            let ending: &[u8] = match out.iter().rposition(|&b| b == b'\n' || b == b'\r') {
                Some(at) if out[at] == b'\n' && at > 0 && out[at - 1] == b'\r' => b"\r\n",
                Some(at) if out[at] == b'\r' => b"\r",
                _ => b"\n",
            };
            out.extend_from_slice(ending);
            out.extend_from_slice(ending);
        }
        out.extend_from_slice(part);
    }
    out
}
