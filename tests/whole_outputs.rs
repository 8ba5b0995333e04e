//! Nothing lost: an output file is whole or as it was. Every output of
//! every command (`-o`, `--report`, `--summary`, `--plot`, `--funnel`) is
//! written under a temporary name beside it and renamed over its name only
//! when the run ends well: a run that fails half-way (an input after a good
//! one that is a folder, not PGN, or cut short) or is killed (SIGINT,
//! SIGTERM, SIGHUP) leaves every old output byte for byte, with its mode,
//! and no temporary file; a run that ends well replaces them all, keeping
//! their modes; a symbolic link is written through; a named pipe is
//! written as it is.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{pgn960, read_pgn, sample_file, testdata_file};

const BIN: &str = env!("CARGO_BIN_EXE_pgn960");

/// Bytes no command writes: what an output held before the run.
const OLD: &[u8] = b"old output, kept unless a run ends well\n";

/// Each command with outputs: its arguments before the inputs, its
/// output options after them (names relative to the scratch folder), and
/// the names it writes.
struct Case {
    command: &'static [&'static str],
    outputs: &'static [&'static str],
    names: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        command: &["tag", "-q"],
        outputs: &["-o", "out.pgn"],
        names: &["out.pgn"],
    },
    Case {
        command: &["tag", "-q"],
        outputs: &["-o", "out.pgn.zst"],
        names: &["out.pgn.zst"],
    },
    Case {
        command: &["fix", "-q"],
        outputs: &["-o", "fixed.pgn", "--report", "report.csv"],
        names: &["fixed.pgn", "report.csv"],
    },
    Case {
        command: &["filter", "-q", "--kind", "chess960"],
        outputs: &["-o", "selected.pgn.gz"],
        names: &["selected.pgn.gz"],
    },
    Case {
        command: &["stats", "-q"],
        outputs: &[
            "-o",
            "s.csv",
            "--summary",
            "s.json",
            "--plot",
            "p.svg",
            "--funnel",
            "f.svg",
        ],
        names: &["s.csv", "s.json", "p.svg", "f.svg"],
    },
    Case {
        command: &["validate", "-q"],
        outputs: &["--report", "findings.jsonl"],
        names: &["findings.jsonl"],
    },
    Case {
        command: &["games", "-q"],
        outputs: &["-o", "games.csv"],
        names: &["games.csv"],
    },
];

/// A good input: real games of every kind the commands write about.
fn good_input() -> PathBuf {
    sample_file("chess960-events-headers-first300.pgn")
}

/// Every entry of `dir`, by name, with its bytes and mode.
fn listing(dir: &Path) -> Vec<(String, Vec<u8>, u32)> {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("listable")
        .map(|entry| {
            let entry = entry.expect("an entry");
            let meta = fs::symlink_metadata(entry.path()).expect("its metadata");
            let bytes = if meta.is_file() {
                fs::read(entry.path()).expect("readable")
            } else {
                Vec::new()
            };
            (
                entry.file_name().to_string_lossy().into_owned(),
                bytes,
                meta.permissions().mode() & 0o7777,
            )
        })
        .collect();
    entries.sort();
    entries
}

fn temporaries(dir: &Path) -> Vec<String> {
    listing(dir)
        .into_iter()
        .map(|(name, _, _)| name)
        .filter(|name| name.ends_with(".pgn960-tmp"))
        .collect()
}

/// A scratch folder whose outputs of `case` hold [`OLD`], mode 0640.
fn scratch_with_old_outputs(case: &Case) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for name in case.names {
        let path = dir.path().join(name);
        fs::write(&path, OLD).expect("writable");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).expect("chmod");
    }
    dir
}

/// `case` run in `dir` on `inputs`.
fn run_case(case: &Case, dir: &Path, inputs: &[&Path]) -> crate::common::Run {
    let mut args: Vec<String> = case.command.iter().map(|a| a.to_string()).collect();
    args.extend(
        inputs
            .iter()
            .map(|p| p.to_str().expect("UTF-8").to_string()),
    );
    for arg in case.outputs {
        args.push(if arg.starts_with('-') {
            arg.to_string()
        } else {
            dir.join(arg).to_str().expect("UTF-8").to_string()
        });
    }
    pgn960(&args, None)
}

/// Bad inputs that come after a good one, each making the run fail half
/// way, after the good input's output has begun: a folder, a file that is
/// not PGN (a PNG), and a zstd file cut in half (its first 64 KiB decode,
/// then it ends in an error).
fn bad_inputs(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let folder = dir.join("a-folder");
    fs::create_dir(&folder).expect("a folder");
    let png = dir.join("image.png");
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    bytes.resize(4096, 7);
    fs::write(&png, bytes).expect("writable");
    let plain = read_pgn(&sample_file("tcec-s16-frc-sufi.pgn.zst"));
    let packed = zstd::encode_all(&plain[..], 3).expect("zstd");
    let cut = dir.join("cut.pgn.zst");
    fs::write(&cut, &packed[..packed.len() / 2]).expect("writable");
    vec![("a folder", folder), ("a PNG", png), ("a cut .zst", cut)]
}

/// A run whose second input fails leaves every old output byte for byte,
/// with its mode, and no temporary file (exit 2, and a line saying so).
#[test]
fn a_run_that_fails_half_way_leaves_every_output_as_it_was() {
    let inputs_dir = tempfile::tempdir().expect("a temporary directory");
    let bad = bad_inputs(inputs_dir.path());
    let good = good_input();
    let mut changed = Vec::new();
    for case in CASES {
        for (what, bad) in &bad {
            let dir = scratch_with_old_outputs(case);
            let before = listing(dir.path());
            let run = run_case(case, dir.path(), &[&good, bad]);
            let label = format!("{:?} {:?} then {what}", case.command, case.outputs);
            assert_eq!(run.code, 2, "{label}: {}", run.stderr);
            assert!(
                run.stderr.lines().all(|line| line.starts_with("pgn960: ")),
                "{label}: {}",
                run.stderr
            );
            if listing(dir.path()) != before {
                changed.push(label);
                continue;
            }
            assert!(
                run.stderr.contains("nothing was written to"),
                "{label}: no line says the outputs were left: {}",
                run.stderr
            );
        }
    }
    assert!(
        changed.is_empty(),
        "outputs changed or a temporary file left by: {changed:#?}"
    );
}

/// A run that ends well replaces every old output, keeping its mode, with
/// what the same run writes to new files; a new file gets the mode of any
/// new file of this user (the umask applies); no temporary file is left.
#[test]
fn a_run_that_ends_well_replaces_every_output() {
    let good = good_input();
    for case in CASES {
        let label = format!("{:?} {:?}", case.command, case.outputs);
        let fresh = tempfile::tempdir().expect("a temporary directory");
        let run = run_case(case, fresh.path(), &[&good]);
        assert!(run.code == 0 || run.code == 1, "{label}: {}", run.stderr);
        fs::write(fresh.path().join("made-by-the-test"), b"").expect("writable");
        let new_mode = fs::metadata(fresh.path().join("made-by-the-test"))
            .expect("there")
            .permissions()
            .mode()
            & 0o777;
        let dir = scratch_with_old_outputs(case);
        let again = run_case(case, dir.path(), &[&good]);
        assert_eq!(again.code, run.code, "{label}: {}", again.stderr);
        for name in case.names {
            let written = fs::read(fresh.path().join(name)).expect("written");
            assert!(!written.is_empty() && written != OLD, "{label}: {name}");
            assert!(
                fs::read(dir.path().join(name)).expect("there") == written,
                "{label}: {name} is not what the run writes"
            );
            let mode = |dir: &Path| {
                fs::metadata(dir.join(name))
                    .expect("there")
                    .permissions()
                    .mode()
                    & 0o777
            };
            assert_eq!(mode(dir.path()), 0o640, "{label}: {name} lost its mode");
            assert_eq!(mode(fresh.path()), new_mode, "{label}: new {name}");
        }
        assert_eq!(temporaries(dir.path()), Vec::<String>::new(), "{label}");
        assert_eq!(temporaries(fresh.path()), Vec::<String>::new(), "{label}");
    }
}

/// An output that is a symbolic link is written through: the file it
/// points to is replaced (or made, when the link dangles), the link stays.
/// A named pipe is written as it is, as a device is.
#[test]
fn links_are_written_through_and_pipes_as_they_are() {
    let good = good_input();
    let expected = pgn960(&["tag", "-q", good.to_str().expect("UTF-8")], None).ok("tag");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    fs::create_dir(d.join("real")).expect("a folder");
    fs::write(d.join("real/target.pgn"), OLD).expect("writable");
    std::os::unix::fs::symlink("real/target.pgn", d.join("link.pgn")).expect("a link");
    std::os::unix::fs::symlink("real/new.pgn", d.join("dangling.pgn")).expect("a link");
    for (link, target) in [
        ("link.pgn", "real/target.pgn"),
        ("dangling.pgn", "real/new.pgn"),
    ] {
        let out = d.join(link);
        let run = pgn960(
            &[
                "tag",
                "-q",
                good.to_str().expect("UTF-8"),
                "-o",
                out.to_str().expect("UTF-8"),
            ],
            None,
        );
        assert_eq!(run.code, 0, "{link}: {}", run.stderr);
        assert!(
            fs::symlink_metadata(&out)
                .expect("there")
                .file_type()
                .is_symlink(),
            "{link} is no longer a link"
        );
        assert!(
            fs::read(d.join(target)).expect("written") == expected,
            "{target}"
        );
    }
    assert_eq!(temporaries(d), Vec::<String>::new());
    assert_eq!(temporaries(&d.join("real")), Vec::<String>::new());

    let fifo = d.join("pipe");
    let name = std::ffi::CString::new(fifo.to_str().expect("UTF-8")).expect("a C string");
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0, "mkfifo");
    let reader = {
        let fifo = fifo.clone();
        thread::spawn(move || {
            let mut bytes = Vec::new();
            fs::File::open(fifo)
                .expect("the pipe opens")
                .read_to_end(&mut bytes)
                .expect("the pipe reads");
            bytes
        })
    };
    let run = pgn960(
        &[
            "tag",
            "-q",
            good.to_str().expect("UTF-8"),
            "-o",
            fifo.to_str().expect("UTF-8"),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        reader.join().expect("the reader") == expected,
        "the pipe got other bytes"
    );
    assert!(
        fs::symlink_metadata(&fifo)
            .expect("there")
            .file_type()
            .is_fifo(),
        "the pipe was replaced"
    );
}

/// Games enough for the run to write while it waits for more input.
fn many_games() -> Vec<u8> {
    let one = fs::read(testdata_file("sample.pgn")).expect("testdata/sample.pgn");
    let mut all = Vec::new();
    while all.len() < 6 << 20 {
        all.extend_from_slice(&one);
        all.extend_from_slice(b"\n");
    }
    all
}

/// A run killed half-way (SIGINT, SIGTERM or SIGHUP while its input, a
/// pipe, is still open, after it has written some of its output) ends as
/// the signal asks, leaving every old output and no temporary file.
#[test]
fn a_killed_run_leaves_every_output_as_it_was() {
    let games = many_games();
    let mut runs: Vec<(&Case, i32)> = CASES.iter().map(|case| (case, libc::SIGTERM)).collect();
    runs.push((&CASES[0], libc::SIGINT));
    runs.push((&CASES[0], libc::SIGHUP));
    let mut changed = Vec::new();
    for (case, signal) in runs {
        let label = format!("{:?} {:?}, signal {signal}", case.command, case.outputs);
        let dir = scratch_with_old_outputs(case);
        let before = listing(dir.path());
        let mut command = Command::new(BIN);
        command.args(case.command).arg("-");
        for arg in case.outputs {
            if arg.starts_with('-') {
                command.arg(arg);
            } else {
                command.arg(dir.path().join(arg));
            }
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pgn960 starts");
        let mut stdin = child.stdin.take().expect("its standard input");
        stdin.write_all(&games).expect("pgn960 reads its input");
        // The run has read all but what it holds; the input stays open.
        // Wait until it has written something (a temporary file that is
        // not empty, or an output changed) or, for a command that writes
        // only at the end, a while.
        let started = Instant::now();
        while started.elapsed() < Duration::from_millis(1500) {
            let now = listing(dir.path());
            let wrote = now.iter().any(|(name, bytes, _)| {
                (name.ends_with(".pgn960-tmp") && !bytes.is_empty())
                    || case.names.contains(&name.as_str()) && bytes != OLD
            });
            if wrote {
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
        assert!(
            child.try_wait().expect("waitable").is_none(),
            "{label}: ended with its input open"
        );
        // SAFETY: a child of this test, still running (it waits on us).
        unsafe { libc::kill(child.id() as i32, signal) };
        let out = child.wait_with_output().expect("pgn960 ends");
        drop(stdin);
        assert_eq!(
            out.status.signal(),
            Some(signal),
            "{label}: {:?}",
            out.status
        );
        if listing(dir.path()) != before {
            changed.push(label);
        }
    }
    assert!(
        changed.is_empty(),
        "outputs changed or a temporary file left by: {changed:#?}"
    );
}
