//! Nothing lost: no command writes over one of its inputs, an output that
//! cannot be written is an error before any input is read, and a run that
//! could read nothing leaves its output files as they were.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::{pgn960, pgn960_with_stdin_held_open};

const BIN: &str = env!("CARGO_BIN_EXE_pgn960");

fn sample() -> Vec<u8> {
    fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample.pgn"))
        .expect("testdata/sample.pgn is readable")
}

/// A scratch directory with `s.pgn` (the sample) and two stats CSVs of it.
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = dir.path().join("s.pgn");
    fs::write(&pgn, sample()).expect("writable");
    for csv in ["a.csv", "b.csv"] {
        let out = dir.path().join(csv);
        let run = pgn960(&["stats", "-q", path(&pgn), "-o", path(&out)], None);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    (dir, pgn)
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Asserts a refusal: exit 2, one `pgn960:` line saying the output is an
/// input, and every file of `dir` byte for byte as before.
fn assert_refused(dir: &Path, args: &[&str], stdin: Option<&[u8]>) {
    let before = contents(dir);
    let run = pgn960(args, stdin);
    assert_eq!(run.code, 2, "{args:?} must be refused: {}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: one error line, got {lines:?}");
    assert!(
        lines[0].starts_with("pgn960: ") && lines[0].contains("also an input"),
        "{args:?}: {}",
        lines[0]
    );
    assert!(run.stdout.is_empty(), "{args:?} wrote to stdout");
    assert!(contents(dir) == before, "{args:?} changed a file");
}

/// Every file of `dir`, by name, with its bytes.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .expect("listable")
        .map(|entry| {
            let entry = entry.expect("an entry");
            let bytes = fs::read(entry.path()).unwrap_or_default();
            (entry.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn no_output_option_of_any_command_writes_over_an_input() {
    let (dir, pgn) = scratch();
    let d = dir.path();
    let (s, a, b) = (path(&pgn), d.join("a.csv"), d.join("b.csv"));
    let (a, b) = (path(&a), path(&b));
    let cases: Vec<Vec<&str>> = vec![
        vec!["tag", s, "-o", s],
        vec!["stats", s, "-o", s],
        vec!["games", "--format", "csv", s, "-o", s],
        vec!["games", "--format", "parquet", s, "-o", s],
        vec!["stats", s, "--plot", s],
        vec!["stats", s, "-o", a, "--plot", s],
        vec!["stats", "--merge", a, b, "-o", a],
        vec!["stats", "--merge", a, b, "--plot", b],
        vec!["validate", s, "--report", s],
        vec!["filter", s, "-o", s],
        vec!["fix", s, "-o", s],
        vec!["fix", s, "--report", s],
        vec!["fix", s, "--in-place", "--report", s],
    ];
    for args in &cases {
        assert_refused(d, args, None);
    }
}

#[test]
fn an_output_that_is_an_input_under_another_name_is_refused() {
    let (dir, pgn) = scratch();
    let d = dir.path();
    let hard = d.join("hard.pgn");
    fs::hard_link(&pgn, &hard).expect("a hard link");
    let soft = d.join("soft.pgn");
    std::os::unix::fs::symlink(&pgn, &soft).expect("a symbolic link");
    for other in [path(&hard), path(&soft)] {
        assert_refused(d, &["stats", path(&pgn), "-o", other], None);
        assert_refused(d, &["validate", path(&pgn), "--report", other], None);
        assert_refused(
            d,
            &["games", "--format", "jsonl", path(&pgn), "-o", other],
            None,
        );
        assert_refused(d, &["stats", path(&pgn), "--plot", other], None);
        assert_refused(d, &["filter", path(&pgn), "-o", other], None);
        assert_refused(d, &["fix", path(&pgn), "-o", other], None);
        assert_refused(d, &["fix", path(&pgn), "--report", other], None);
    }
}

#[test]
fn an_output_that_is_standard_input_is_refused() {
    let (dir, pgn) = scratch();
    for args in [
        vec!["stats", "-o", path(&pgn)],
        vec!["stats", "--plot", path(&pgn)],
        vec!["validate", "--report", path(&pgn)],
        vec!["tag", "-o", path(&pgn)],
        vec!["games", "--format", "parquet", "-o", path(&pgn)],
        vec!["filter", "-o", path(&pgn)],
        vec!["fix", "-o", path(&pgn)],
        vec!["fix", "--report", path(&pgn)],
    ] {
        let before = contents(dir.path());
        let output = Command::new(BIN)
            .args(&args)
            .stdin(fs::File::open(&pgn).expect("readable"))
            .output()
            .expect("pgn960 runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?} < FILE: {stderr}");
        assert!(stderr.contains("also an input (<stdin>)"), "{stderr}");
        assert!(
            contents(dir.path()) == before,
            "{args:?} < FILE changed a file"
        );
    }
}

/// An output that cannot be created ends the run before the input is
/// read: with standard input left open, a command that read first would
/// wait for it forever.
#[test]
fn an_output_that_cannot_be_created_is_an_error_before_any_input_is_read() {
    for args in [
        &["tag", "-o", "/nonexistent/x.pgn"][..],
        &["stats", "-o", "/nonexistent/x.csv"],
        &["stats", "--plot", "/nonexistent/p.svg"],
        &["validate", "--report", "/nonexistent/r.csv"],
        &["games", "-o", "/nonexistent/g.parquet"],
        &["filter", "-o", "/nonexistent/x.pgn.zst"],
        // A folder cannot be made inside a file.
        &[
            "filter",
            "--split-by",
            "kind",
            "--output-dir",
            "/dev/null/split",
        ],
        &["fix", "-o", "/nonexistent/x.pgn"],
        &["fix", "--report", "/nonexistent/r.csv"],
    ] {
        // A game, and then standard input stays open.
        let (status, stderr) =
            pgn960_with_stdin_held_open(args, &sample(), Duration::from_secs(20))
                .unwrap_or_else(|| panic!("{args:?} read its input before failing on its output"));
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        let output = args[args.len() - 1];
        assert!(stderr.starts_with(&format!("pgn960: {output}")), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

/// When no input can be read, there is nothing to report: no CSV header,
/// no summary, no new file, and an existing output keeps its bytes.
#[test]
fn a_run_that_reads_nothing_writes_nothing() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    let missing = path(&d.join("missing.pgn")).to_string();
    let kept = d.join("kept.csv");
    fs::write(&kept, "old bytes\n").expect("writable");
    let new = d.join("new.csv");
    for args in [
        vec!["stats", &missing],
        vec!["validate", &missing],
        vec!["tag", &missing],
        vec!["stats", &missing, "-o", path(&kept)],
        vec!["validate", &missing, "--report", path(&kept)],
        vec!["tag", &missing, "-o", path(&kept)],
        vec!["games", &missing, "-o", path(&kept)],
        vec!["games", &missing, "--format", "csv", "-o", path(&kept)],
        vec!["games", &missing, "-o", path(&new)],
        vec!["filter", &missing, "-o", path(&kept)],
        vec!["filter", &missing, "-o", path(&new)],
        vec!["fix", &missing],
        vec!["fix", &missing, "-o", path(&kept), "--report", path(&new)],
        vec!["stats", &missing, "-o", path(&new), "--plot", path(&new)],
    ] {
        let run = pgn960(&args, None);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stdout.is_empty(), "{args:?} wrote {:?}", run.stdout);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("missing.pgn"), "{}", run.stderr);
        assert_eq!(fs::read(&kept).expect("kept"), b"old bytes\n", "{args:?}");
        assert!(!new.exists(), "{args:?} left an empty new file");
    }
    // An empty input is read: the output is emptied and gets its header.
    let empty = d.join("empty.pgn");
    fs::write(&empty, b"").expect("writable");
    let run = pgn960(&["stats", "-q", path(&empty), "-o", path(&kept)], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let csv = fs::read_to_string(&kept).expect("kept");
    assert!(csv.starts_with("scharnagl,fritz9,position,"), "{csv}");
    assert_eq!(csv.lines().count(), 1, "{csv}");
    let run = pgn960(
        &[
            "fix",
            "-q",
            path(&empty),
            "-o",
            path(&kept),
            "--report",
            path(&new),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        fs::read(&kept).expect("kept"),
        b"",
        "the empty input, fixed"
    );
    assert_eq!(
        fs::read_to_string(&new).expect("the report"),
        "file,game,line,code,action,tag,before,after\n"
    );
}
