//! `--in-place` changes the games and nothing else: a compressed file
//! keeps about its size, a file that cannot be rewritten safely is
//! refused before it is read (a named pipe, a read-only file, a file with
//! other hard links), the owner and group stay, two runs on one file lose
//! no changes, a signal leaves no temporary file, an error never names one,
//! and the summary names the files that changed.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{pgn960, read_pgn, sample_file, say_skipped, testdata_file};

const BIN: &str = env!("CARGO_BIN_EXE_pgn960");

fn utf8(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// Twenty TCEC games (700 KB): the level a compressor runs at shows in
/// their size (zstd's level 19 writes them 25% smaller than its level 3).
fn tcec() -> Vec<u8> {
    read_pgn(&sample_file("tcec-s16-frc-sufi.pgn.zst"))
}

/// `bytes` with a game that `tag` tags (a Chess960 FEN without an id), so
/// that a rewrite has something to change.
fn with_a_game_to_tag(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out.extend_from_slice(
        b"\n[Event \"untagged\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
          [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 *\n",
    );
    out
}

/// `plain` compressed by the format's own library (not this crate's
/// code) at `level`.
fn compress(format: &str, level: u32, plain: &[u8]) -> Vec<u8> {
    match format {
        "gzip" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
            e.write_all(plain).expect("in memory");
            e.finish().expect("in memory")
        }
        "bzip2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level));
            e.write_all(plain).expect("in memory");
            e.finish().expect("in memory")
        }
        "xz" => {
            let mut e = xz2::write::XzEncoder::new(Vec::new(), level);
            e.write_all(plain).expect("in memory");
            e.finish().expect("in memory")
        }
        "zstd" => {
            let level = i32::try_from(level).expect("a small level");
            zstd::stream::encode_all(plain, level).expect("in memory")
        }
        _ => unreachable!("{format}"),
    }
}

/// `packed` decompressed, by the format's own library.
fn decompress(packed: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if packed.starts_with(b"\x1f\x8b") {
        flate2::read::MultiGzDecoder::new(packed)
            .read_to_end(&mut out)
            .expect("gzip");
    } else if packed.starts_with(b"BZh") {
        bzip2::read::MultiBzDecoder::new(packed)
            .read_to_end(&mut out)
            .expect("bzip2");
    } else if packed.starts_with(b"\xfd7zXZ\x00") {
        xz2::read::XzDecoder::new_multi_decoder(packed)
            .read_to_end(&mut out)
            .expect("xz");
    } else {
        zstd::stream::read::Decoder::new(packed)
            .and_then(|mut d| d.read_to_end(&mut out))
            .expect("zstd");
    }
    out
}

/// A compressed file comes back in its format at the level it was written
/// at, where the format records it (gzip's flags, bzip2's block size, xz's
/// dictionary), so at the size that level gives the new contents; zstd,
/// which records no level, at no more than 10% over its size. The
/// summary names the file and how it was compressed.
#[test]
fn a_compressed_file_keeps_about_its_size() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plain = with_a_game_to_tag(&tcec());
    let tagged = pgn960(&["tag", "-q"], Some(&plain)).ok("tag the plain bytes");
    for (format, level) in [
        ("gzip", 1),
        ("gzip", 9),
        ("bzip2", 1),
        ("bzip2", 9),
        ("xz", 1),
        ("xz", 6),
        ("zstd", 3),
        ("zstd", 19),
    ] {
        let what = format!("{format} level {level}");
        let path = dir.path().join(format!("{format}-{level}.pgn"));
        let before = compress(format, level, &plain);
        fs::write(&path, &before).expect("writable");
        let run = pgn960(&["tag", "--in-place", utf8(&path)], None);
        assert_eq!(run.code, 0, "{what}: {}", run.stderr);
        let after = fs::read(&path).expect("readable");
        assert_eq!(decompress(&after), tagged, "{what}: the games, tagged");
        let (old, new) = (before.len() as f64, after.len() as f64);
        assert!(new <= old * 1.10, "{what}: {old} bytes became {new}");
        if format != "zstd" {
            // The level read from the header: the size the format's own
            // library gives the new contents at that level.
            let expected = compress(format, level, &tagged).len() as f64;
            assert!(
                (new - expected).abs() <= expected * 0.02,
                "{what}: {new} bytes, {expected} at that level"
            );
        }
        let line = format!("  rewrote {} ({format} level ", utf8(&path));
        assert!(run.stderr.contains(&line), "{what}: {}", run.stderr);
    }
}

/// `--level` sets the level; a level the format does not have is refused
/// before anything is written.
#[test]
fn level_sets_the_compression_level() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plain = with_a_game_to_tag(&tcec());
    let tagged = pgn960(&["tag", "-q"], Some(&plain)).ok("tag the plain bytes");
    let path = dir.path().join("games.pgn.zst");
    fs::write(&path, compress("zstd", 19, &plain)).expect("writable");
    let run = pgn960(
        &["tag", "-q", "--in-place", "--level", "3", utf8(&path)],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let after = fs::read(&path).expect("readable");
    assert_eq!(decompress(&after), tagged);
    let at_3 = compress("zstd", 3, &tagged).len() as f64;
    assert!(
        (after.len() as f64 - at_3).abs() <= at_3 * 0.02,
        "--level 3: {} bytes, zstd's level 3 gives {at_3}",
        after.len()
    );

    let gz = dir.path().join("games.pgn.gz");
    let before = compress("gzip", 6, &plain);
    fs::write(&gz, &before).expect("writable");
    let run = pgn960(&["tag", "--in-place", "--level", "15", utf8(&gz)], None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("--level 15: level 15 is not one of gzip's levels (1 to 9)"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read(&gz).expect("readable"), before, "left as it was");
    // Only with --in-place.
    let run = pgn960(&["tag", "--level", "3", utf8(&gz)], None);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

/// Asserts a refusal of `--in-place`: exit 2, one line naming the file,
/// what it is, and the file (and every other file of its folder) as it
/// was.
#[track_caller]
fn assert_not_rewritten(args: &[&str], file: &Path, why: &str) {
    let dir = file.parent().expect("a folder");
    let before = listing(dir);
    let run = pgn960(args, None);
    assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: {}", run.stderr);
    assert!(
        lines[0].starts_with(&format!(
            "pgn960: {}: not rewritten, left as it was: ",
            utf8(file)
        )) && lines[0].contains(why),
        "{args:?}: {}",
        lines[0]
    );
    assert!(listing(dir) == before, "{args:?} changed a file");
}

/// Every entry of `dir`: name, kind, mode and bytes.
fn listing(dir: &Path) -> Vec<(String, u32, Vec<u8>)> {
    let mut entries: Vec<(String, u32, Vec<u8>)> = fs::read_dir(dir)
        .expect("listable")
        .map(|entry| {
            let entry = entry.expect("an entry");
            let meta = fs::symlink_metadata(entry.path()).expect("metadata");
            let bytes = if meta.is_file() {
                fs::read(entry.path()).expect("readable")
            } else {
                Vec::new()
            };
            (
                entry.file_name().to_string_lossy().into_owned(),
                meta.mode(),
                bytes,
            )
        })
        .collect();
    entries.sort();
    entries
}

/// A named pipe, a directory, a read-only file and a file with another
/// hard link are refused before anything is read (a pipe would wait for
/// a writer); `--force` rewrites the last two, the other name of the link
/// keeping the old contents.
#[test]
fn what_cannot_be_rewritten_safely_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sample = fs::read(testdata_file("sample.pgn")).expect("the sample");

    let fifo = dir.path().join("fifo.pgn");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let started = Instant::now();
    assert_not_rewritten(
        &["tag", "--in-place", utf8(&fifo)],
        &fifo,
        "not a regular file",
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the pipe was opened to be read"
    );
    assert!(
        fs::symlink_metadata(&fifo)
            .expect("still there")
            .file_type()
            .is_fifo()
    );
    fs::remove_file(&fifo).expect("removable");

    let read_only = dir.path().join("read-only.pgn");
    fs::write(&read_only, &sample).expect("writable");
    fs::set_permissions(&read_only, fs::Permissions::from_mode(0o444)).expect("chmod");
    for command in ["tag", "fix"] {
        assert_not_rewritten(
            &[command, "--in-place", utf8(&read_only)],
            &read_only,
            "read-only",
        );
    }
    let run = pgn960(
        &["tag", "-q", "--in-place", "--force", utf8(&read_only)],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_ne!(fs::read(&read_only).expect("readable"), sample, "tagged");
    let mode = fs::metadata(&read_only).expect("metadata").mode() & 0o777;
    assert_eq!(mode, 0o444, "the mode stays");
    fs::remove_file(&read_only).expect("removable");

    let linked = dir.path().join("linked.pgn");
    let other = dir.path().join("other-name.pgn");
    fs::write(&linked, &sample).expect("writable");
    fs::hard_link(&linked, &other).expect("a hard link");
    assert_not_rewritten(
        &["tag", "--in-place", utf8(&linked)],
        &linked,
        "another hard link",
    );
    let run = pgn960(&["tag", "-q", "--in-place", "--force", utf8(&linked)], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_ne!(fs::read(&linked).expect("readable"), sample, "tagged");
    assert_eq!(
        fs::read(&other).expect("readable"),
        sample,
        "the other name"
    );
    fs::remove_file(&linked).expect("removable");
    fs::remove_file(&other).expect("removable");

    let folder = dir.path().join("folder.pgn");
    fs::create_dir(&folder).expect("mkdir");
    assert_not_rewritten(&["tag", "--in-place", utf8(&folder)], &folder, "directory");
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The rewritten file keeps its owner, group and mode (root may give
/// them; a user keeps a group of theirs).
#[test]
fn the_owner_group_and_mode_stay() {
    if !is_root() {
        say_skipped(
            "in_place::the_owner_group_and_mode_stay",
            "only root may give a file to another user",
        );
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("theirs.pgn");
    fs::write(
        &file,
        fs::read(testdata_file("sample.pgn")).expect("sample"),
    )
    .expect("writable");
    std::os::unix::fs::chown(&file, Some(65534), Some(65534)).expect("chown");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).expect("chmod");
    let run = pgn960(&["tag", "-q", "--in-place", utf8(&file)], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let meta = fs::metadata(&file).expect("metadata");
    assert_eq!((meta.uid(), meta.gid()), (65534, 65534), "owner and group");
    assert_eq!(meta.mode() & 0o777, 0o640, "mode");
    assert!(
        fs::read_to_string(&file)
            .expect("readable")
            .contains("Chess960Id"),
        "tagged"
    );
}

/// A plain archive of `games` copies of the sample: several MiB, so that
/// a run takes a while.
fn big_archive(copies: usize) -> Vec<u8> {
    fs::read(testdata_file("sample.pgn"))
        .expect("sample")
        .repeat(copies)
}

/// What `args` (ending in the file) make of `input`, run alone.
fn alone(args: &[&str], input: &[u8], dir: &Path) -> Vec<u8> {
    let file = dir.join("alone.pgn");
    fs::write(&file, input).expect("writable");
    let mut all: Vec<&str> = args.to_vec();
    all.push(utf8(&file));
    let run = pgn960(&all, None);
    assert_eq!(run.code, 0, "{all:?}: {}", run.stderr);
    let out = fs::read(&file).expect("readable");
    fs::remove_file(&file).expect("removable");
    out
}

/// A file locked by another run is refused at once, and left as it was.
#[test]
fn a_file_another_run_is_rewriting_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("busy.pgn");
    let sample = fs::read(testdata_file("sample.pgn")).expect("sample");
    fs::write(&file, &sample).expect("writable");
    // The lock a run of pgn960 holds while it rewrites the file.
    let holder = fs::File::open(&file).expect("readable");
    holder.lock().expect("locked");
    assert_not_rewritten(&["tag", "--in-place", utf8(&file)], &file, "locked");
    drop(holder);
    let run = pgn960(&["tag", "-q", "--in-place", utf8(&file)], None);
    assert_eq!(run.code, 0, "unlocked: {}", run.stderr);
}

/// Two runs on one file at once (`tag --fritz9` and `fix`): neither run's
/// changes are lost. Either both were made (one after the other), or one
/// run failed, saying so, and the file holds exactly the other's.
#[test]
fn two_runs_on_one_file_at_once_lose_no_changes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = big_archive(6000); // 14 MB
    let tag_args = ["tag", "-q", "--in-place", "--fritz9"];
    let fix_args = ["fix", "-q", "--in-place"];
    let tag_alone = alone(&tag_args, &input, dir.path());
    let fix_alone = alone(&fix_args, &input, dir.path());
    let both = [
        alone(&tag_args, &fix_alone, dir.path()),
        alone(&fix_args, &tag_alone, dir.path()),
    ];
    let file = dir.path().join("shared.pgn");
    for round in 0..3 {
        fs::write(&file, &input).expect("writable");
        let spawn = |args: &[&str]| {
            Command::new(BIN)
                .args(args)
                .arg(&file)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("pgn960 starts")
        };
        let (tag, fix) = (spawn(&tag_args), spawn(&fix_args));
        let tag = tag.wait_with_output().expect("tag ends");
        let fix = fix.wait_with_output().expect("fix ends");
        let out = fs::read(&file).expect("readable");
        let said = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
        match (tag.status.code(), fix.status.code()) {
            (Some(0), Some(0)) => assert!(
                both.contains(&out),
                "round {round}: both ran, but one's changes are lost"
            ),
            (Some(2), Some(0)) => {
                assert!(said(&tag).contains("not rewritten"), "{}", said(&tag));
                assert!(
                    out == fix_alone,
                    "round {round}: tag failed; fix's changes only"
                );
            }
            (Some(0), Some(2)) => {
                assert!(said(&fix).contains("not rewritten"), "{}", said(&fix));
                assert!(
                    out == tag_alone,
                    "round {round}: fix failed; tag's changes only"
                );
            }
            other => panic!("round {round}: {other:?}: {} {}", said(&tag), said(&fix)),
        }
    }
}

/// A file that another program changes while it is read is not replaced:
/// the other program's change stays.
#[test]
fn a_file_changed_while_it_is_read_is_left_as_changed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("changing.pgn");
    for attempt in 0..4 {
        // Larger each time, should the run be done before the change.
        let input = big_archive(8000 << attempt);
        fs::write(&file, &input).expect("writable");
        let child = Command::new(BIN)
            .args(["tag", "-q", "--in-place"])
            .arg(&file)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pgn960 starts");
        wait_for_temporary(dir.path());
        let mut appended = fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .expect("writable");
        appended
            .write_all(b"\n[Event \"added\"]\n\n*\n")
            .expect("appended");
        drop(appended);
        let out = child.wait_with_output().expect("tag ends");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.code() == Some(0) && !fs::read(&file).expect("readable").ends_with(b"*\n") {
            continue; // replaced before the change: try a longer run
        }
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("changed it while it was read"), "{stderr}");
        let now = fs::read(&file).expect("readable");
        assert!(
            now.starts_with(&input) && now.len() > input.len(),
            "the change stays"
        );
        assert!(temporaries(dir.path()).is_empty(), "no temporary file left");
        return;
    }
    panic!("every run replaced the file before it could be changed");
}

/// The temporary files of a folder.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .expect("listable")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.to_string_lossy().ends_with(".pgn960-tmp"))
        .collect()
}

/// Waits (up to a minute) for a temporary file to appear in `dir`.
fn wait_for_temporary(dir: &Path) {
    let started = Instant::now();
    while temporaries(dir).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no temporary file appeared"
        );
        thread::sleep(Duration::from_millis(2));
    }
}

/// Sends `signal` to `child` if it is still writing a temporary file in
/// `dir`: stopped first, so that what is seen is how the signal finds it
/// (under load, a run can finish between a look and a signal), then let go
/// on to take it. Whether the signal went.
fn signal_while_writing(child: &Child, dir: &Path, signal: i32) -> bool {
    let pid = child.id() as i32;
    // SAFETY: a child of this test, not yet reaped.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    let writing = dir.exists() && !temporaries(dir).is_empty();
    if writing {
        // SAFETY: as above.
        unsafe { libc::kill(pid, signal) };
    }
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    writing
}

/// SIGINT, SIGTERM and SIGHUP while a file is rewritten: the run ends as
/// the signal asks, the temporary file is gone and the file as it was.
/// The same for `filter --split-by`'s temporary files. A run that ends
/// before the signal reaches it is tried again (a few times at most).
#[test]
fn a_signal_leaves_no_temporary_file() {
    const TRIES: usize = 5;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("big.pgn.zst");
    // zstd at level 19: slow enough to be caught at it.
    let packed = compress("zstd", 19, &big_archive(4000));
    for (signal, name) in [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGHUP, "SIGHUP"),
    ] {
        let mut caught = None;
        for _ in 0..TRIES {
            fs::write(&file, &packed).expect("writable");
            let child = Command::new(BIN)
                .args(["tag", "-q", "--in-place"])
                .arg(&file)
                .stdin(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("pgn960 starts");
            wait_for_temporary(dir.path());
            thread::sleep(Duration::from_millis(50));
            let sent = signal_while_writing(&child, dir.path(), signal);
            let out = child.wait_with_output().expect("tag ends");
            if sent {
                caught = Some(out);
                break;
            }
        }
        let out = caught.unwrap_or_else(|| panic!("{name}: every run of {TRIES} ended first"));
        assert_eq!(
            out.status.signal(),
            Some(signal),
            "{name}: {:?}",
            out.status
        );
        assert!(
            temporaries(dir.path()).is_empty(),
            "{name}: a temporary file is left"
        );
        assert!(
            fs::read(&file).expect("readable") == packed,
            "{name}: the file changed"
        );
    }

    let plain = dir.path().join("big.pgn");
    fs::write(&plain, big_archive(20000)).expect("writable");
    for attempt in 0..TRIES {
        let split = dir.path().join(format!("split{attempt}"));
        let mut child = Command::new(BIN)
            .args([
                "filter",
                "-q",
                "--split-by",
                "position",
                "--compress",
                "xz",
                "--output-dir",
            ])
            .arg(&split)
            .arg(&plain)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pgn960 starts");
        while (!split.exists() || temporaries(&split).is_empty())
            && child.try_wait().expect("waitable").is_none()
        {
            thread::sleep(Duration::from_millis(2));
        }
        if !signal_while_writing(&child, &split, libc::SIGTERM) {
            let _ = child.wait();
            assert!(
                attempt + 1 < TRIES,
                "every filter run of {TRIES} ended first"
            );
            continue;
        }
        let out = child.wait_with_output().expect("filter ends");
        assert_eq!(out.status.signal(), Some(libc::SIGTERM), "{:?}", out.status);
        assert!(temporaries(&split).is_empty(), "a spool is left");
        break;
    }
}

/// The progress line on a terminal is cleared when a signal ends the run.
#[test]
fn a_signal_clears_the_progress_line() {
    // `script` gives the run a terminal; where it is missing, say so.
    if Command::new("script").arg("--version").output().is_err() {
        say_skipped(
            "in_place::a_signal_clears_the_progress_line",
            "no `script` to give the run a terminal",
        );
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("big.pgn.zst");
    fs::write(&file, compress("zstd", 19, &big_archive(8000))).expect("writable");
    let typescript = dir.path().join("typescript");
    let command = format!("exec {BIN} tag --in-place {}", utf8(&file));
    // `-f`: the typescript is written as the run draws, so the test sees
    // the progress line while the run is still going.
    let child = Command::new("script")
        .args(["-q", "-e", "-f", "-c", &command])
        .arg(&typescript)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("script starts");
    wait_for_temporary(dir.path());
    // The signal goes as soon as the progress line is drawn (four times a
    // second), not after a fixed wait, which a fast machine outruns.
    let started = Instant::now();
    let pid = loop {
        let pid = pgn960_pid(&file).expect("pgn960 ended before it drew a progress line");
        let drawn = fs::read(&typescript).unwrap_or_default();
        if String::from_utf8_lossy(&drawn).contains(" eta ") {
            break pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no progress line in 60 s"
        );
        thread::sleep(Duration::from_millis(5));
    };
    // SAFETY: our grandchild, still running.
    unsafe { libc::kill(pid, libc::SIGINT) };
    let _ = child.wait_with_output();
    let shown = fs::read(&typescript).expect("the typescript");
    let text = String::from_utf8_lossy(&shown);
    // `script` ends its record with a line of its own.
    let text = text.split("\nScript done").next().unwrap_or_default();
    assert!(
        text.contains(" eta "),
        "no progress line was drawn: {text:?}"
    );
    assert!(
        text.trim_end_matches(['\r', '\n']).ends_with("\r\x1b[2K"),
        "the progress line is not cleared at the end: {text:?}"
    );
    assert!(
        temporaries(dir.path()).is_empty(),
        "a temporary file is left"
    );
}

/// The process id of the pgn960 rewriting `file`.
fn pgn960_pid(file: &Path) -> Option<i32> {
    let wanted = utf8(file);
    fs::read_dir("/proc").ok()?.find_map(|entry| {
        let entry = entry.ok()?;
        let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
        let cmdline = fs::read(entry.path().join("cmdline")).ok()?;
        let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
        let is_ours = args.first().is_some_and(|arg0| arg0.ends_with(b"pgn960"))
            && args.contains(&wanted.as_bytes());
        is_ours.then_some(pid)
    })
}

/// An error of `--in-place` never names the temporary file, which is gone
/// when the message is read: a folder this user may not write in.
#[test]
fn an_error_never_names_a_temporary_file() {
    if !is_root() {
        say_skipped(
            "in_place::an_error_never_names_a_temporary_file",
            "runs the binary as another user, which takes root",
        );
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).expect("mkdir");
    let file = locked.join("games.pgn");
    fs::write(
        &file,
        fs::read(testdata_file("sample.pgn")).expect("sample"),
    )
    .expect("writable");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o666)).expect("chmod");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).expect("chmod");
    use std::os::unix::process::CommandExt;
    let out = Command::new(BIN)
        .args(["tag", "-q", "--in-place"])
        .arg(&file)
        .uid(65534)
        .gid(65534)
        .stdin(Stdio::null())
        .output()
        .expect("pgn960 runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!("pgn960: {}: not rewritten", utf8(&file))),
        "{stderr}"
    );
    assert!(!stderr.contains("pgn960-tmp"), "{stderr}");
    assert!(stderr.contains("Permission denied"), "{stderr}");
}

/// The summary names each file that changed, and no other.
#[test]
fn the_summary_names_the_files_that_changed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sample = fs::read(testdata_file("sample.pgn")).expect("sample");
    for command in ["tag", "fix"] {
        let (changed, same) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
        fs::write(&changed, &sample).expect("writable");
        let done = pgn960(&[command, "-q"], Some(&sample)).ok(command);
        assert_ne!(done, sample, "{command} changes the sample");
        fs::write(&same, &done).expect("writable");
        let run = pgn960(&[command, "--in-place", utf8(&changed), utf8(&same)], None);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let rewrote: Vec<&str> = run
            .stderr
            .lines()
            .filter(|line| line.starts_with("  rewrote "))
            .collect();
        assert_eq!(
            rewrote,
            [format!("  rewrote {}", utf8(&changed))],
            "{command}: {}",
            run.stderr
        );
        assert_eq!(fs::read(&changed).expect("readable"), done);
    }
}

/// `fix --in-place` on gzip, bzip2 and xz files: each comes back in its
/// format, and decompressed by the format's own library it is what `fix`
/// writes for the plain bytes.
#[test]
fn fix_in_place_rewrites_gzip_bzip2_and_xz() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plain = with_a_game_to_tag(&read_pgn(&sample_file("freestyle-vegas-broadcast.pgn")));
    let fixed = pgn960(&["fix", "-q"], Some(&plain)).ok("fix the plain bytes");
    assert!(fixed != plain, "fix has something to repair");
    for (format, magic) in [
        ("gzip", &b"\x1f\x8b"[..]),
        ("bzip2", b"BZh"),
        ("xz", b"\xfd7zXZ\x00"),
    ] {
        let path = dir.path().join(format!("games-{format}.pgn"));
        fs::write(&path, compress(format, 6, &plain)).expect("writable");
        let run = pgn960(&["fix", "-q", "--in-place", utf8(&path)], None);
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        let after = fs::read(&path).expect("readable");
        assert!(
            after.starts_with(magic),
            "{format}: written back as {format}"
        );
        assert!(decompress(&after) == fixed, "{format}: the games, fixed");
    }
}

/// The system calls of `pgn960 ARGS` that open, sync, rename and close
/// files, as `strace -ff` writes them, thread by thread (so that no call
/// is split by another thread's); `None` when strace cannot run here.
fn traced(args: &[&str], dir: &Path) -> Option<Vec<String>> {
    let traces = dir.join("trace");
    fs::create_dir(&traces).ok()?;
    let run = Command::new("strace")
        .args(["-ff", "-o", utf8(&traces.join("t")), "-e"])
        .arg("trace=open,openat,fsync,fdatasync,rename,renameat,renameat2,close")
        .arg(BIN)
        .args(args)
        .output()
        .ok()?;
    if !run.status.success() {
        return None;
    }
    let logs: Vec<String> = fs::read_dir(&traces)
        .ok()?
        .filter_map(|entry| fs::read_to_string(entry.ok()?.path()).ok())
        .collect();
    (!logs.is_empty()).then_some(logs)
}

/// The file descriptor a traced call returned (`... = 5`).
fn returned_fd(line: &str) -> Option<&str> {
    line.rsplit_once(" = ").map(|(_, fd)| fd.trim())
}

/// `--in-place` puts the new copy on disk before it takes the original's
/// name, and the folder after: a crash of the machine then leaves the old
/// file or the new one, never a name pointing at bytes not yet written.
/// Read from the system calls (strace): an `fsync` of the temporary file
/// between its creation and its rename, then, after the rename, an
/// `fsync` of the folder opened. (A test without a tracer cannot tell a
/// sync that was made from one that was not: both leave the same files.)
#[test]
fn in_place_syncs_the_new_copy_then_its_folder() {
    let test = "in_place::in_place_syncs_the_new_copy_then_its_folder";
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("games.pgn.gz");
    fs::write(&file, compress("gzip", 6, &with_a_game_to_tag(b""))).expect("writable");
    let Some(logs) = traced(&["tag", "-q", "--in-place", utf8(&file)], dir.path()) else {
        say_skipped(test, "strace cannot run here");
        return;
    };
    let rewritten = decompress(&fs::read(&file).expect("readable"));
    assert!(
        String::from_utf8_lossy(&rewritten).contains("[Chess960Id \"0\"]"),
        "the file was rewritten"
    );
    synced_then_renamed_then_folder_synced(&logs, &file);
}

/// In `logs` ([`traced`]), the thread that renamed a temporary file over
/// `file`: it created the temporary file beside it (`.NAME.…`), synced it
/// before the rename, and after the rename opened and synced `file`'s
/// folder.
fn synced_then_renamed_then_folder_synced(logs: &[String], file: &Path) {
    let name = file.file_name().expect("a file name").to_string_lossy();
    let dir = file.parent().expect("a folder");
    // The thread that renamed the new copy over the file.
    let renamed_over =
        |line: &str| line.contains("rename") && line.contains(&format!("\"{}\"", utf8(file)));
    let log = logs
        .iter()
        .find(|log| log.lines().any(renamed_over))
        .unwrap_or_else(|| panic!("no rename over {}:\n{}", file.display(), logs.join("\n")));
    let lines: Vec<&str> = log.lines().collect();
    let folder = utf8(dir);
    let temp_open = lines
        .iter()
        .position(|line| {
            line.contains("open")
                && line.contains(&format!("/.{name}."))
                && line.contains("O_CREAT")
        })
        .unwrap_or_else(|| panic!("no temporary file created:\n{log}"));
    let temp_fd = returned_fd(lines[temp_open]).expect("a descriptor");
    let rename = lines
        .iter()
        .position(|line| renamed_over(line))
        .expect("the rename");
    let synced = |fd: &str, within: &[&str]| {
        within.iter().any(|line| {
            line.contains(&format!("fsync({fd})")) || line.contains(&format!("fdatasync({fd})"))
        })
    };
    assert!(
        temp_open < rename && synced(temp_fd, &lines[temp_open..rename]),
        "the new copy (fd {temp_fd}) is not synced before its rename:\n{log}"
    );
    let after = &lines[rename..];
    let folder_open = after
        .iter()
        .position(|line| line.contains("open") && line.contains(&format!("\"{folder}\"")))
        .unwrap_or_else(|| panic!("the folder {folder} is not opened after the rename:\n{log}"));
    let folder_fd = returned_fd(after[folder_open]).expect("a descriptor");
    assert!(
        synced(folder_fd, &after[folder_open..]),
        "the folder (fd {folder_fd}) is not synced after the rename:\n{log}"
    );
}

/// Outputs of `-o` (and beside it `--summary`) are written as
/// `--in-place` writes: each new file on disk before it takes its name,
/// and its folder synced after, so that a crash of the machine leaves the
/// old output or the new one. Two outputs in two folders: each folder is
/// synced.
#[test]
fn outputs_are_synced_then_renamed_then_their_folders_synced() {
    let test = "in_place::outputs_are_synced_then_renamed_then_their_folders_synced";
    let dir = tempfile::tempdir().expect("a temporary directory");
    let summaries = dir.path().join("summaries");
    fs::create_dir(&summaries).expect("a folder");
    let input = dir.path().join("games.pgn");
    fs::write(&input, with_a_game_to_tag(b"")).expect("writable");
    let csv = dir.path().join("stats.csv");
    let summary = summaries.join("stats.json");
    let args = [
        "stats",
        "-q",
        utf8(&input),
        "-o",
        utf8(&csv),
        "--summary",
        utf8(&summary),
    ];
    let Some(logs) = traced(&args, dir.path()) else {
        say_skipped(test, "strace cannot run here");
        return;
    };
    for file in [&csv, &summary] {
        assert!(fs::metadata(file).expect("written").len() > 0, "{file:?}");
        synced_then_renamed_then_folder_synced(&logs, file);
    }
}
