//! What a person at a terminal sees (`script` gives the run one, of 80
//! columns): a note when the command waits for standard input, and a
//! progress line that fits the terminal and names each step.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{say_skipped, testdata_file};

const BIN: &str = env!("CARGO_BIN_EXE_pgn960");

/// Whether `script` is here to give a run a terminal; when not, says that
/// `test` was skipped.
fn has_script(test: &str) -> bool {
    let here = Command::new("script").arg("--version").output().is_ok();
    if !here {
        say_skipped(test, "no `script` to give the run a terminal");
    }
    here
}

/// Starts `command` (run by `sh`) on a terminal of 80 columns, whose
/// output goes to `typescript` as it is drawn.
fn on_a_terminal(command: &str, typescript: &Path, dir: &Path) -> Child {
    Command::new("script")
        .args(["-q", "-e", "-f", "-c"])
        .arg(format!("stty cols 80 rows 24; {command}"))
        .arg(typescript)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("script starts")
}

/// What the run drew, without `script`'s own first and last lines.
fn drawn(typescript: &Path) -> String {
    let text = String::from_utf8_lossy(&fs::read(typescript).unwrap_or_default()).into_owned();
    let text = text.split("\nScript done").next().unwrap_or_default();
    match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("Script started") => rest.to_string(),
        _ => text.to_string(),
    }
}

/// Every line drawn, as the terminal shows it: split at line ends and
/// carriage returns, escape sequences (`ESC [ ... letter`) taken out.
fn screen_lines(text: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain
        .split(['\r', '\n'])
        .map(|line| line.trim_end().to_string())
        .filter(|line| !line.is_empty())
        .collect()
}

/// An archive command given no input, on a terminal, says that it reads
/// standard input rather than seem to hang.
#[test]
fn no_input_on_a_terminal_says_it_reads_standard_input() {
    if !has_script("terminal::no_input_on_a_terminal_says_it_reads_standard_input") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    for command in ["validate", "tag -q"] {
        let typescript = dir.path().join("typescript");
        let _ = fs::remove_file(&typescript);
        let mut child = on_a_terminal(&format!("exec {BIN} {command}"), &typescript, dir.path());
        let started = Instant::now();
        let said = loop {
            let text = drawn(&typescript);
            if text.contains("reading standard input")
                || started.elapsed() > Duration::from_secs(30)
            {
                break text;
            }
            thread::sleep(Duration::from_millis(10));
        };
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            said.contains(
                "pgn960: reading standard input (a terminal): end it with Ctrl-D, or name the files to read"
            ),
            "{command}: {said:?}"
        );
    }
}

/// `filter --split-by ... --compress` shows its compressing once the
/// reading is done (not a bar at 100% while it compresses), and every
/// line the bar draws fits the 80 columns.
#[test]
fn the_progress_line_fits_and_shows_compressing() {
    if !has_script("terminal::the_progress_line_fits_and_shows_compressing") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sample = testdata_file("sample.pgn");
    let typescript = dir.path().join("typescript");
    let command = format!(
        "exec {BIN} filter --split-by kind --output-dir split --compress gz {}",
        sample.display()
    );
    let mut child = on_a_terminal(&command, &typescript, dir.path());
    let status = child.wait().expect("script ends");
    assert!(status.success(), "{status:?}: {}", drawn(&typescript));
    let lines = screen_lines(&drawn(&typescript));
    assert!(
        lines
            .iter()
            .any(|line| line.contains("compressing 3 files")),
        "no compressing step shown: {lines:#?}"
    );
    // The bar's lines (the summary after it is not the bar's).
    let bars: Vec<&String> = lines.iter().filter(|line| line.contains("B/s")).collect();
    assert!(!bars.is_empty(), "no progress line drawn: {lines:#?}");
    for line in bars {
        assert!(
            line.chars().count() <= 80,
            "wider than 80 columns: {line:?}"
        );
    }
    assert!(
        dir.path().join("split/chess960.pgn.gz").is_file(),
        "the files are written"
    );
}
