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
        assert_refused(d, &["stats", path(&pgn), "--summary", other], None);
        assert_refused(d, &["stats", path(&pgn), "--funnel", other], None);
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
        vec!["stats", "--summary", path(&pgn)],
        vec!["stats", "--funnel", path(&pgn)],
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

/// A file `filter --split-by` would write that is the input (under the
/// name the split gives it, through a hard link, a symbolic link, or
/// arriving on standard input): refused with one line and exit 2, before
/// any file is written, the input and the folder as they were.
#[test]
fn a_split_by_file_that_is_an_input_is_refused() {
    let (dir, pgn) = scratch();
    let split = dir.path().join("split");
    // The sample holds Chess960 games: `--split-by kind` writes chess960.pgn.
    let named = split.join("chess960.pgn");
    let refused = |args: &[&str], stdin: Option<fs::File>, what: &str| {
        let before_input = fs::read(&pgn).expect("readable");
        let before = contents(&split);
        let mut command = Command::new(BIN);
        command.args(args);
        if let Some(file) = stdin {
            command.stdin(file);
        }
        let output = command.output().expect("pgn960 runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{what}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{what}: one line, got {lines:?}");
        assert!(
            lines[0].starts_with(&format!("pgn960: {}", path(&named)))
                && lines[0].contains("also an input"),
            "{what}: {}",
            lines[0]
        );
        assert!(output.stdout.is_empty(), "{what} wrote to stdout");
        assert!(
            fs::read(&pgn).expect("readable") == before_input,
            "{what}: the input changed"
        );
        assert!(contents(&split) == before, "{what}: the folder changed");
    };
    let split_args = ["filter", "--split-by", "kind", "--output-dir", path(&split)];

    fs::create_dir(&split).expect("a folder");
    fs::hard_link(&pgn, &named).expect("a hard link");
    refused(
        &[&split_args[..], &[path(&pgn)]].concat(),
        None,
        "a hard link",
    );
    refused(
        &split_args,
        Some(fs::File::open(&named).expect("readable")),
        "standard input",
    );
    fs::remove_file(&named).expect("removable");
    std::os::unix::fs::symlink(&pgn, &named).expect("a symbolic link");
    refused(
        &[&split_args[..], &[path(&pgn)]].concat(),
        None,
        "a symbolic link",
    );
    fs::remove_file(&named).expect("removable");
    // With the name free, the same run writes the split.
    let run = pgn960(&[&split_args[..], &["-q", path(&pgn)]].concat(), None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(named.is_file(), "the split writes chess960.pgn");
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
    let kept_pgn = d.join("kept.pgn");
    fs::write(&kept_pgn, "old bytes\n").expect("writable");
    let new = d.join("new.csv");
    let new_svg = d.join("new.svg");
    let new_pgn = d.join("new.pgn");
    for args in [
        vec!["stats", &missing],
        vec!["validate", &missing],
        vec!["tag", &missing],
        vec!["stats", &missing, "-o", path(&kept)],
        vec!["validate", &missing, "--report", path(&kept)],
        vec!["tag", &missing, "-o", path(&kept_pgn)],
        vec!["games", &missing, "-o", path(&kept)],
        vec!["games", &missing, "--format", "csv", "-o", path(&kept)],
        vec!["games", &missing, "-o", path(&new)],
        vec!["filter", &missing, "-o", path(&kept_pgn)],
        vec!["filter", &missing, "-o", path(&new_pgn)],
        vec!["fix", &missing],
        vec![
            "fix",
            &missing,
            "-o",
            path(&kept_pgn),
            "--report",
            path(&new),
        ],
        vec![
            "stats",
            &missing,
            "-o",
            path(&new),
            "--plot",
            path(&new_svg),
        ],
    ] {
        let run = pgn960(&args, None);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stdout.is_empty(), "{args:?} wrote {:?}", run.stdout);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("missing.pgn"), "{}", run.stderr);
        assert_eq!(fs::read(&kept).expect("kept"), b"old bytes\n", "{args:?}");
        assert_eq!(
            fs::read(&kept_pgn).expect("kept"),
            b"old bytes\n",
            "{args:?}"
        );
        assert!(!new.exists(), "{args:?} left an empty new file");
        assert!(!new_pgn.exists(), "{args:?} left an empty new file");
        assert!(!new_svg.exists(), "{args:?} left an empty new file");
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
            path(&kept_pgn),
            "--report",
            path(&new),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        fs::read(&kept_pgn).expect("kept"),
        b"",
        "the empty input, fixed"
    );
    assert_eq!(
        fs::read_to_string(&new).expect("the report"),
        "file,game,line,code,action,tag,before,after\n"
    );
}

/// Two outputs of one run that are the same file (one name twice, a
/// symbolic or hard link, standard output redirected to it) are refused
/// before any input is read: exit 2, one line, nothing written.
#[test]
fn two_outputs_that_are_one_file_are_refused() {
    let (dir, pgn) = scratch();
    let d = dir.path();
    let s = path(&pgn);
    let a = d.join("a.csv");
    let (a, new) = (path(&a), d.join("new.csv"));
    let new = path(&new);
    let hard = d.join("hard.csv");
    fs::hard_link(a, &hard).expect("a hard link");
    let soft = d.join("soft.svg");
    std::os::unix::fs::symlink(d.join("plot.svg"), &soft).expect("a symbolic link");
    let (hard, soft) = (path(&hard), path(&soft));
    let plot = d.join("plot.svg");
    let plot = path(&plot);
    let (out_pgn, hard_pgn, new_pgn) =
        (d.join("out.pgn"), d.join("hard.csv.gz"), d.join("new.pgn"));
    fs::write(&out_pgn, b"").expect("writable");
    fs::hard_link(&out_pgn, &hard_pgn).expect("a hard link");
    let (out_pgn, hard_pgn, new_pgn) = (path(&out_pgn), path(&hard_pgn), path(&new_pgn));
    let cases: Vec<Vec<&str>> = vec![
        vec!["stats", s, "-o", a, "--summary", a],
        vec!["stats", s, "-o", new, "--summary", new],
        vec!["stats", s, "-o", a, "--summary", hard],
        vec!["stats", s, "--plot", plot, "--funnel", plot],
        vec!["stats", s, "-o", new, "--plot", soft, "--funnel", plot],
        vec!["stats", s, "-o", new, "--plot", plot, "--funnel", soft],
        vec!["stats", "--merge", a, "-o", new, "--summary", new],
        vec!["fix", s, "-o", out_pgn, "--report", hard_pgn],
        vec!["fix", s, "-o", new_pgn, "--report", new_pgn],
    ];
    for args in &cases {
        let before = contents(d);
        // Standard input held open: a run that read before refusing would
        // wait for it.
        let (status, stderr) = pgn960_with_stdin_held_open(args, b"", Duration::from_secs(20))
            .unwrap_or_else(|| panic!("{args:?} read its input before refusing"));
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("pgn960: ") && stderr.contains("the same file as"),
            "{args:?}: {stderr}"
        );
        assert!(contents(d) == before, "{args:?} changed or left a file");
    }
    // Standard output is an output too.
    let out = d.join("out.csv");
    fs::write(&out, b"old\n").expect("writable");
    for args in [
        vec!["stats", s, "--summary", path(&out)],
        vec!["fix", s, "--report", path(&out)],
    ] {
        let output = Command::new(BIN)
            .args(&args)
            .stdout(
                fs::OpenOptions::new()
                    .append(true)
                    .open(&out)
                    .expect("writable"),
            )
            .output()
            .expect("pgn960 runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("the same file as standard output"),
            "{args:?}: {stderr}"
        );
        assert_eq!(fs::read(&out).expect("readable"), b"old\n", "{args:?}");
    }
}

/// An output that is the write end of the pipe standard input comes from
/// (`/dev/stdin`, `/proc/self/fd/0`) would keep the run waiting for its
/// own input forever: it is refused at once, whatever the option.
#[test]
fn an_output_that_is_the_pipe_of_standard_input_is_refused_at_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("s.pgn");
    fs::write(&file, sample()).expect("writable");
    let file = path(&file);
    for output in ["/dev/stdin", "/proc/self/fd/0"] {
        for args in [
            vec!["tag", "-o", output],
            vec!["fix", "-o", output],
            vec!["fix", "--report", output],
            vec!["filter", "-o", output],
            vec!["stats", "-o", output],
            vec!["stats", "--summary", output],
            vec!["stats", "--plot", output],
            vec!["validate", "--report", output],
            vec!["games", "--format", "csv", "-o", output],
            // Standard input not read, but a pipe all the same.
            vec!["tag", file, "-o", output],
        ] {
            let mut child = Command::new(BIN)
                .args(&args)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("pgn960 starts");
            // The sample, then the end of the pipe: only the run's own write
            // end could keep it open.
            {
                use std::io::Write as _;
                let mut feed = child.stdin.take().expect("piped");
                let _ = feed.write_all(&sample());
            }
            let started = std::time::Instant::now();
            let status = loop {
                if let Some(status) = child.try_wait().expect("waitable") {
                    break status;
                }
                if started.elapsed() > Duration::from_secs(20) {
                    let _ = child.kill();
                    panic!("{args:?} never ended");
                }
                std::thread::sleep(Duration::from_millis(10));
            };
            let mut stderr = String::new();
            {
                use std::io::Read as _;
                let _ = child
                    .stderr
                    .take()
                    .expect("piped")
                    .read_to_string(&mut stderr);
            }
            assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
            assert!(
                stderr.contains("also an input (<stdin>)")
                    || stderr.contains("the pipe standard input comes from"),
                "{args:?}: {stderr}"
            );
        }
    }
}

/// Inputs that decode to nothing (a bad zstd frame header, a gzip magic
/// number alone, a gzip header alone, half a bzip2, xz or zstd stream of a
/// small file) are no input: an existing output is left byte for byte, no
/// summary is printed, and a new output is not created.
#[test]
fn an_input_that_decodes_to_nothing_leaves_the_outputs_as_they_were() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    let plain = sample();
    let half = |packed: Vec<u8>| packed[..packed.len() / 2].to_vec();
    let gzip = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&plain).expect("in memory");
        e.finish().expect("in memory")
    };
    let bzip2 = {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        e.write_all(&plain).expect("in memory");
        e.finish().expect("in memory")
    };
    let xz = {
        let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
        e.write_all(&plain).expect("in memory");
        e.finish().expect("in memory")
    };
    let zstd = zstd::stream::encode_all(&plain[..], 3).expect("in memory");
    let bad: Vec<(&str, Vec<u8>)> = vec![
        ("bad-frame.pgn.zst", b"(\xb5/\xfd".to_vec()),
        ("magic-only.pgn.gz", b"\x1f\x8b".to_vec()),
        ("header-only.pgn.gz", gzip[..10].to_vec()),
        ("half.pgn.bz2", half(bzip2)),
        ("half.pgn.xz", half(xz)),
        ("half.pgn.zst", half(zstd)),
    ];
    let kept = d.join("kept.out");
    let new = d.join("new.out");
    let (kept_s, new_s) = (path(&kept).to_string(), path(&new).to_string());
    for (name, bytes) in &bad {
        let input = d.join(name);
        fs::write(&input, bytes).expect("writable");
        let input = path(&input);
        for output in [&kept_s, &new_s] {
            for args in [
                vec!["tag", input, "-o", output],
                vec!["fix", input, "-o", output],
                vec!["fix", input, "--report", output],
                vec!["filter", input, "-o", output],
                vec!["stats", input, "-o", output],
                vec!["stats", input, "--summary", output],
                vec!["validate", input, "--report", output],
                vec!["games", "--format", "csv", input, "-o", output],
                vec!["games", "--format", "parquet", input, "-o", output],
            ] {
                fs::write(&kept, b"old bytes\n").expect("writable");
                let run = pgn960(&args, None);
                assert_eq!(run.code, 2, "{args:?}");
                assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
                assert!(
                    run.stderr.starts_with(&format!("pgn960: {input}: ")),
                    "{args:?}: {}",
                    run.stderr
                );
                assert!(!run.stderr.contains("games read"), "{}", run.stderr);
                assert_eq!(fs::read(&kept).expect("kept"), b"old bytes\n", "{args:?}");
                assert!(!new.exists(), "{args:?} left a new file");
            }
        }
        // --in-place leaves such a file as it was.
        let run = pgn960(&["tag", "--in-place", input], None);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert_eq!(&fs::read(input).expect("readable"), bytes, "{name}");
    }
}

/// Inputs that do not end their last line (`... 1-0` and the end) are
/// joined with a line ending and an empty line in their own style, so
/// that the next input's first tag begins a line after an empty line, as
/// between games (else python-chess, for one, reads it as movetext of the
/// game before and loses that game's tags: checked by hand with
/// python-chess 1.11.2, which then reads every tag of every game); one
/// input alone goes through byte for byte. The oracle is the inputs' own
/// bytes.
#[test]
fn inputs_without_a_last_line_ending_are_joined_on_a_new_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    let full = sample();
    let cut = full.trim_ascii_end().to_vec();
    assert!(cut.ends_with(b"*") || cut.ends_with(b"0") || cut.ends_with(b"1"));
    let crlf = String::from_utf8(cut.clone())
        .expect("UTF-8")
        .replace('\n', "\r\n")
        .into_bytes();
    let files: Vec<(String, Vec<u8>)> =
        [("lf.pgn", &cut), ("crlf.pgn", &crlf), ("full.pgn", &full)]
            .into_iter()
            .map(|(name, bytes)| {
                let file = d.join(name);
                fs::write(&file, bytes).expect("writable");
                (path(&file).to_string(), bytes.clone())
            })
            .collect();
    let (lf, crlf_file, full_file) = (&files[0].0, &files[1].0, &files[2].0);
    let joined = |parts: &[&[u8]]| parts.concat();
    // filter writes every game as it is.
    for (inputs, expected) in [
        (vec![lf, lf], joined(&[&cut, b"\n\n", &cut])),
        (vec![crlf_file, lf], joined(&[&crlf, b"\r\n\r\n", &cut])),
        (
            vec![lf, full_file, lf],
            joined(&[&cut, b"\n\n", &full, &cut]),
        ),
        (vec![lf], cut.clone()),
    ] {
        let mut args = vec!["filter", "-q"];
        args.extend(inputs.iter().map(|s| s.as_str()));
        let out = pgn960(&args, None).ok("filter");
        assert!(out == expected, "filter {inputs:?}");
        let file = d.join("out.pgn");
        args.extend(["-o", path(&file)]);
        pgn960(&args, None).ok("filter -o");
        assert!(
            fs::read(&file).expect("readable") == expected,
            "filter -o {inputs:?}"
        );
        // tag and fix: the same bytes, less what they add.
        for command in ["tag", "fix"] {
            let mut args = vec![command, "-q"];
            args.extend(inputs.iter().map(|s| s.as_str()));
            let out = pgn960(&args, None).ok(command);
            let mut alone = Vec::new();
            for (i, input) in inputs.iter().enumerate() {
                let one = pgn960(&[command, "-q", input.as_str()], None).ok(command);
                alone.extend_from_slice(&one);
                let next_needs_a_line = i + 1 < inputs.len() && !one.ends_with(b"\n");
                if next_needs_a_line {
                    let ending: &[u8] = if one.contains(&b'\r') { b"\r\n" } else { b"\n" };
                    alone.extend_from_slice(ending);
                    alone.extend_from_slice(ending);
                }
            }
            assert!(out == alone, "{command} {inputs:?}");
        }
    }
    // --split-by: each file the same way.
    let split = d.join("split");
    let run = pgn960(
        &[
            "filter",
            "-q",
            "--split-by",
            "kind",
            "--output-dir",
            path(&split),
            lf,
            lf,
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    for entry in fs::read_dir(&split).expect("listable") {
        let bytes = fs::read(entry.expect("an entry").path()).expect("readable");
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            assert!(
                !line.contains("[Event") || line.starts_with("[Event"),
                "a tag joined to the line before: {line:?}"
            );
            assert!(
                !line.starts_with("[Event") || i == 0 || lines[i - 1].is_empty(),
                "a game with no empty line before it: {line:?}"
            );
        }
    }
}

/// `filter --split-by` that fails while writing its files leaves every
/// file of the folder as it was: a file that cannot be written (a folder
/// where `700.pgn` goes) after others that could.
#[test]
fn split_by_writes_all_its_files_or_none() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    let input = d.join("s.pgn");
    fs::write(&input, sample()).expect("writable");
    let split = d.join("split");
    fs::create_dir(&split).expect("mkdir");
    // The sample's positions, by a first run into another folder.
    let first = d.join("first");
    let run = pgn960(
        &[
            "filter",
            "-q",
            "--split-by",
            "position",
            "--output-dir",
            path(&first),
            path(&input),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut names: Vec<String> = fs::read_dir(&first)
        .expect("listable")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert!(names.len() >= 3, "{names:?}");
    // Old files under every name but one in the middle, which is a folder:
    // the files before it are renamed first, and must be put back.
    let blocked = names[names.len() / 2].clone();
    for name in names.iter().filter(|name| **name != blocked) {
        fs::write(split.join(name), format!("old {name}\n")).expect("writable");
    }
    fs::create_dir(split.join(&blocked)).expect("mkdir");
    fs::write(split.join("notes.txt"), b"not ours\n").expect("writable");
    let before = contents(&split);
    let run = pgn960(
        &[
            "filter",
            "-q",
            "--split-by",
            "position",
            "--output-dir",
            path(&split),
            path(&input),
        ],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains(&blocked), "{}", run.stderr);
    assert!(contents(&split) == before, "the folder changed");
}
