//! `pgn960 fix` run as a user runs it: on the hand-written fixtures in
//! `testdata/fix/`, over every real sample of `testdata/real/` (and every
//! file of the corpus, when it is there), and through each way of giving
//! inputs and outputs.
//!
//! Two oracles hold each real file to what `fix` promises, neither of
//! them the library's:
//!
//! - the report replayed: applying the rows of `--report` to the input as
//!   plain text (a value replaced on its line, a tag line put before its
//!   line) must give the output byte for byte, so every change is in the
//!   report and no other byte moved;
//! - `validate` afterwards: no game has a finding of a code `fix` repaired
//!   in it, and `validate --no-moves` finds in each game exactly what
//!   `fix` reported as left.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use pgn960::validate::Code;
use serde::Deserialize;

use crate::common::{
    Run, assert_same_bytes, bytes_diff, corpus_or_skip, joined, lines, pgn960, read_pgn,
    sample_file, sample_files, short_name,
};

/// One row of `fix --report`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct FixRow {
    pub file: String,
    pub game: u64,
    pub line: u64,
    pub code: String,
    pub action: String,
    pub tag: String,
    pub before: String,
    pub after: String,
}

/// One row of `validate`'s report (the columns used here).
#[derive(Clone, Debug, Deserialize)]
struct Finding {
    game: u64,
    code: String,
}

fn read_csv<T: for<'de> Deserialize<'de>>(bytes: &[u8], what: &str) -> Vec<T> {
    csv::Reader::from_reader(bytes)
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|err| panic!("{what}: not the CSV expected ({err})"))
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

fn is_validate_code(name: &str) -> bool {
    Code::ALL.iter().any(|code| code.name() == name)
}

// ---------------------------------------------------------------------------
// The report replayed

/// A raw tag value as it reads: `\"` and `\\` unescaped, bytes that are
/// not UTF-8 replaced.
fn unescaped(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next @ ('"' | '\\'))) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// `value` as PGN escapes a tag value.
fn escaped(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The input with the report's rows applied as text: each rewrite
/// replaces the quoted value after the tag's name on its line, each added
/// tag becomes a line of its own before its line, ending as the line
/// before it ends, and each repeated tag removed (`tag_repeated`, no value
/// after) takes its line with it.
pub fn apply_report(input: &[u8], rows: &[FixRow]) -> Vec<u8> {
    let lines = lines(input);
    let mut by_line: BTreeMap<u64, Vec<&FixRow>> = BTreeMap::new();
    for row in rows.iter().filter(|row| row.action == "fixed") {
        by_line.entry(row.line).or_default().push(row);
    }
    let mut out = Vec::with_capacity(input.len() + rows.len() * 32);
    for number in 1..=lines.len() as u64 + 1 {
        let line = lines.get(number as usize - 1).copied().unwrap_or_default();
        let mut line = line.to_vec();
        let removed = by_line.get(&number).into_iter().flatten().any(|row| {
            row.code == "tag_repeated"
                && row.after.is_empty()
                && quoted_value_after(&line, &row.tag, &row.before).is_some()
        });
        if removed {
            continue;
        }
        for row in by_line.get(&number).into_iter().flatten() {
            if let Some(value) = quoted_value_after(&line, &row.tag, &row.before) {
                line.splice(value, escaped(&row.after).bytes());
                continue;
            }
            let previous = number
                .checked_sub(2)
                .and_then(|i| lines.get(i as usize))
                .or(lines.get(number as usize - 1))
                .copied()
                .unwrap_or(b"\n");
            out.extend_from_slice(format!("[{} \"{}\"]", row.tag, row.after).as_bytes());
            out.extend_from_slice(line_ending(previous));
        }
        out.extend_from_slice(&line);
    }
    out
}

/// Where on `line` the value `before` is, between quotes after the tag
/// name `tag`: the value a rewrite replaces. The report holds values as
/// text, unescaped, so a value is matched as it reads.
fn quoted_value_after(line: &[u8], tag: &str, before: &str) -> Option<std::ops::Range<usize>> {
    let quotes: Vec<usize> = memchr::memchr_iter(b'"', line).collect();
    memchr::memmem::find_iter(line, tag.as_bytes()).find_map(|at| {
        let after_name = at + tag.len();
        quotes
            .iter()
            .filter(|&&q| q >= after_name)
            .find_map(|&open| {
                quotes
                    .iter()
                    .filter(|&&close| close > open)
                    .find(|&&close| unescaped(&line[open + 1..close]) == before)
                    .map(|&close| open + 1..close)
            })
    })
}

fn line_ending(line: &[u8]) -> &'static [u8] {
    if line.ends_with(b"\r\n") {
        b"\r\n"
    } else if line.ends_with(b"\r") {
        b"\r"
    } else {
        b"\n"
    }
}

// ---------------------------------------------------------------------------
// One file through fix, then validate

/// One file fixed once, with its report.
struct Fixed {
    file: PathBuf,
    input: Vec<u8>,
    output: Vec<u8>,
    rows: Vec<FixRow>,
    report: Vec<u8>,
}

/// Runs `fix --report` on `file` (with `options`), in a scratch directory.
fn fix_file(file: &Path, options: &[&str], dir: &Path) -> Fixed {
    let report = dir.join("report.csv");
    let mut args = vec!["fix", "-q", "--threads", "2", "--report", utf8(&report)];
    args.extend_from_slice(options);
    args.push(utf8(file));
    let name = short_name(file);
    let output = pgn960(&args, None).ok(&format!("fix {options:?} {name}"));
    let report = fs::read(&report).expect("the report is written");
    Fixed {
        file: file.to_path_buf(),
        input: read_pgn(file),
        output,
        rows: read_csv(&report, &format!("the report of {name}")),
        report,
    }
}

/// The codes `validate` (with `options`) finds in `bytes`, by game.
fn findings_by_game(bytes: &[u8], options: &[&str], dir: &Path) -> BTreeMap<u64, Vec<String>> {
    let pgn = dir.join("fixed.pgn");
    fs::write(&pgn, bytes).expect("a writable scratch directory");
    let report = dir.join("findings.csv");
    let mut args = vec!["validate", "-q", "--report", utf8(&report)];
    args.extend_from_slice(options);
    args.push(utf8(&pgn));
    let run = pgn960(&args, None);
    assert!(run.code <= 1, "validate: exit {}: {}", run.code, run.stderr);
    let rows: Vec<Finding> = read_csv(&fs::read(&report).expect("written"), "validate's report");
    let mut by_game: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for row in rows {
        by_game.entry(row.game).or_default().push(row.code);
    }
    for codes in by_game.values_mut() {
        codes.sort();
    }
    by_game
}

/// Everything `fix` promises about one file, checked with the two oracles,
/// and idempotence.
fn check_fixed(fixed: &Fixed, dir: &Path) {
    let name = short_name(&fixed.file);
    assert_same_bytes(
        &apply_report(&fixed.input, &fixed.rows),
        &fixed.output,
        &format!("{name}: the input with the report's rows applied vs the output"),
    );
    for row in fixed.rows.iter().filter(|row| row.action == "fixed") {
        let sane = match row.tag.to_ascii_lowercase().as_str() {
            _ if row.code == "tag_repeated" => row.after.is_empty(),
            "variant" => row.after == "Chess960",
            "setup" => row.after == "1",
            "chess960id" | "chess960fritz9id" => row.after.parse::<u16>().is_ok(),
            "fen" => row.after.contains('/'),
            _ => false,
        };
        assert!(sane, "{name}: a repair of {row:?}");
    }

    // After fix, no game has a finding of a code repaired in it ...
    let mut repaired: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    let mut left: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for row in &fixed.rows {
        if row.action == "fixed" {
            repaired.entry(row.game).or_default().push(&row.code);
        } else if is_validate_code(&row.code) {
            left.entry(row.game).or_default().push(row.code.clone());
        }
    }
    for (game, codes) in findings_by_game(&fixed.output, &[], dir) {
        for code in codes {
            // Repeated tags are repaired one by one: a game may keep a
            // repeat that disagrees (counted below as left).
            let left_here = left.get(&game).is_some_and(|l| l.contains(&code));
            let fixed_here = !left_here
                && repaired
                    .get(&game)
                    .is_some_and(|r| r.contains(&code.as_str()));
            assert!(
                !fixed_here,
                "{name}: game {game} still has {code} after fix"
            );
        }
    }
    // ... and `validate --no-moves` finds exactly what was left.
    for codes in left.values_mut() {
        codes.sort();
    }
    let found = findings_by_game(&fixed.output, &["--no-moves"], dir);
    assert_eq!(
        found, left,
        "{name}: validate --no-moves after fix vs fix's left rows"
    );

    // Fixing the output again changes nothing.
    let again = dir.join("again.pgn");
    fs::write(&again, &fixed.output).expect("a writable scratch directory");
    let run = pgn960(&["fix", "--check", "-q", utf8(&again)], None);
    assert_eq!(
        run.code, 0,
        "{name}: fix --check of the output: {}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "--check writes nothing");
    let twice = pgn960(&["fix", "-q", utf8(&again)], None).ok("fix again");
    assert_same_bytes(&twice, &fixed.output, &format!("{name}: fixed twice"));
}

/// Every file through `fix`, checked; then all of them in one run on one
/// thread, which must give each file's output and rows in turn.
fn sweep(files: &[PathBuf], options: &[&str]) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut all = Vec::new();
    for file in files {
        let fixed = fix_file(file, options, dir.path());
        check_fixed(&fixed, dir.path());
        all.push(fixed);
    }
    let out = dir.path().join("all.pgn");
    let report = dir.path().join("all.csv");
    let mut args = vec!["fix", "-q", "--threads", "1", "-o", utf8(&out)];
    args.extend_from_slice(&["--report", utf8(&report)]);
    args.extend_from_slice(options);
    args.extend(files.iter().map(|file| utf8(file)));
    pgn960(&args, None).ok("fix --threads 1 <all files>");
    let outputs: Vec<Vec<u8>> = all.iter().map(|f| f.output.clone()).collect();
    assert_same_bytes(
        &fs::read(&out).expect("written"),
        &joined(&outputs),
        "one run, one thread",
    );
    let mut rows = all[0].report.clone();
    for fixed in &all[1..] {
        let body = fixed
            .report
            .splitn(2, |&b| b == b'\n')
            .nth(1)
            .unwrap_or_default();
        rows.extend_from_slice(body);
    }
    assert_same_bytes(
        &fs::read(&report).expect("written"),
        &rows,
        "the report, one thread",
    );
}

#[test]
fn every_sample_file() {
    sweep(&sample_files(), &[]);
}

#[test]
fn every_sample_file_with_shredder_castling() {
    sweep(&sample_files(), &["--castling", "shredder"]);
}

#[test]
fn every_corpus_file() {
    let Some(corpus) = corpus_or_skip("fix::every_corpus_file") else {
        return;
    };
    sweep(&corpus.files(), &[]);
}

#[test]
fn every_corpus_file_with_xfen_castling() {
    let Some(corpus) = corpus_or_skip("fix::every_corpus_file_with_xfen_castling") else {
        return;
    };
    sweep(&corpus.files(), &["--castling", "xfen"]);
}

// ---------------------------------------------------------------------------
// Hand-written fixtures

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fix")
}

/// Runs `pgn960 ARGS` in `testdata/fix/`, so that the report names each
/// fixture as the expected reports do.
fn in_fixture_dir(args: &[&str]) -> Run {
    let output = Command::cargo_bin("pgn960")
        .expect("the pgn960 binary is built")
        .args(args)
        .current_dir(fixture_dir())
        .output()
        .expect("pgn960 runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Every `testdata/fix/NAME.pgn`, fixed with default options, must give
/// `NAME.expected.pgn` (or, without one, itself) byte for byte and the
/// report `NAME.expected.csv`; with `NAME.xfen.expected.*` or
/// `NAME.shredder.expected.*`, the same with that `--castling`. Each
/// expected file was checked by hand.
#[test]
fn fixtures() {
    let mut inputs: Vec<String> = fs::read_dir(fixture_dir())
        .expect("testdata/fix exists")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".pgn") && !name.contains(".expected."))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 4, "the fixtures are there: {inputs:?}");
    let mut checked = 0;
    let mut failures = Vec::new();
    for input in &inputs {
        let stem = input.trim_end_matches(".pgn");
        for castling in ["", "xfen", "shredder"] {
            let infix = if castling.is_empty() {
                String::new()
            } else {
                format!(".{castling}")
            };
            let csv = fixture_dir().join(format!("{stem}{infix}.expected.csv"));
            if !csv.is_file() {
                continue;
            }
            let pgn = fixture_dir().join(format!("{stem}{infix}.expected.pgn"));
            // Without an expected output, the input must come out unchanged.
            let expected = fs::read(if pgn.is_file() {
                pgn
            } else {
                fixture_dir().join(input)
            })
            .expect("a readable fixture");
            let mut args = vec!["fix", "-q", "--report", "/dev/stdout", "-o", "/dev/null"];
            if !castling.is_empty() {
                args.extend(["--castling", castling]);
            }
            let report = in_fixture_dir(&[&args[..], &[input.as_str()]].concat());
            let expected_csv = fs::read(&csv).expect("readable");
            if let Some(diff) = bytes_diff(&report.stdout, &expected_csv) {
                failures.push(format!("{input} {castling}: report: {diff}"));
            }
            args.truncate(2);
            if !castling.is_empty() {
                args.extend(["--castling", castling]);
            }
            let output = in_fixture_dir(&[&args[..], &[input.as_str()]].concat());
            if let Some(diff) = bytes_diff(&output.stdout, &expected) {
                failures.push(format!("{input} {castling}: output: {diff}"));
            }
            // Fixing the expected output changes nothing.
            let again = pgn960(&[&args[..], &["--check"]].concat(), Some(&expected));
            if again.code != 0 {
                failures.push(format!("{input} {castling}: fixed twice: {}", again.stderr));
            }
            checked += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(checked, 9, "fixtures with an expected report");
}

/// The fixtures' expected files also keep both oracles.
#[test]
fn fixtures_keep_both_oracles() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for name in [
        "repairs.pgn",
        "left.pgn",
        "line-endings.pgn",
        "castling.pgn",
        "repeats.pgn",
        "no-place.pgn",
        "record.pgn",
        "lenient.pgn",
    ] {
        let fixed = fix_file(&fixture_dir().join(name), &[], dir.path());
        check_fixed(&fixed, dir.path());
    }
    let fixed = fix_file(
        &fixture_dir().join("castling.pgn"),
        &["--castling", "shredder"],
        dir.path(),
    );
    check_fixed(&fixed, dir.path());
}

// ---------------------------------------------------------------------------
// Command-line behaviour

fn scratch(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join(name);
    fs::write(&path, bytes).expect("a writable temporary directory");
    (dir, path)
}

fn repairs() -> Vec<u8> {
    fs::read(fixture_dir().join("repairs.pgn")).expect("the fixture")
}

fn repaired() -> Vec<u8> {
    fs::read(fixture_dir().join("repairs.expected.pgn")).expect("the fixture")
}

#[test]
fn check_exits_1_when_anything_would_change_and_writes_nothing() {
    let run = pgn960(&["fix", "--check"], Some(&repairs()));
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "--check writes nothing");
    assert!(
        run.stderr
            .contains("10 games to fix: 22 repairs, 0 findings left"),
        "{}",
        run.stderr
    );
    let run = pgn960(&["fix", "--check"], Some(&repaired()));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("0 games to fix: 0 repairs"),
        "{}",
        run.stderr
    );
    // Findings left are no reason to fail.
    let left = fs::read(fixture_dir().join("left.pgn")).expect("the fixture");
    assert_eq!(pgn960(&["fix", "--check", "-q"], Some(&left)).code, 0);
}

#[test]
fn the_summary_counts_repairs_and_findings_left_by_code() {
    let run = pgn960(&["fix"], Some(&repairs()));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "pgn960 fix: 10 games read: 4 chess960, 1 standard, 0 dfrc, 2 other, 3 unreadable\n  \
         fixed 10 games: 22 repairs, 0 findings left\n  \
         fixed   fen_missing              7\n  \
         fixed   id_mismatch              3\n  \
         fixed   id_malformed             1\n  \
         fixed   variant_missing          1\n  \
         fixed   variant_mismatch         1\n  \
         fixed   fen_without_setup        5\n  \
         fixed   variant_spelling         1\n  \
         fixed   id_missing               3\n"
    );
    let left = fs::read(fixture_dir().join("left.pgn")).expect("the fixture");
    let run = pgn960(&["fix", "-o", "/dev/null"], Some(&left));
    assert_eq!(
        run.stderr,
        "pgn960 fix: 7 games read: 1 chess960, 1 standard, 1 dfrc, 1 other, 3 unreadable\n  \
         fixed 0 games: 0 repairs, 11 findings left\n  \
         left    fen_unparsable           1\n  \
         left    setup_without_fen        1\n  \
         left    fen_missing              2\n  \
         left    illegal_back_rank        1\n  \
         left    castling_rights_invalid  1\n  \
         left    id_malformed             1\n  \
         left    variant_mismatch         1\n  \
         left    fen_without_setup        1\n  \
         left    double_frc               1\n  \
         left    variant_spelling         1\n"
    );
}

#[test]
fn standard_input_compression_and_threads_do_not_change_the_output() {
    let input = read_pgn(&sample_file("chess960-events-headers-first300.pgn"));
    let expected = pgn960(&["fix", "-q", "--threads", "2", "-"], Some(&input)).ok("stdin");
    let zst = zstd::encode_all(&input[..], 3).expect("compressing in memory");
    let (dir, path) = scratch("games.pgn.zst", &zst);
    for threads in ["1", "3"] {
        let run = pgn960(&["fix", "-q", "--threads", threads, utf8(&path)], None);
        assert_same_bytes(&run.ok("fix FILE.zst"), &expected, "zstd file vs stdin");
    }
    let out = dir.path().join("out.pgn");
    pgn960(&["fix", "-q", utf8(&path), "-o", utf8(&out)], None).ok("fix -o");
    assert_same_bytes(&fs::read(&out).expect("written"), &expected, "-o vs stdout");
}

#[test]
fn in_place_rewrites_plain_and_zstd_keeps_the_report_and_leaves_fixed_files_alone() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let a = dir.path().join("a.pgn");
    let b = dir.path().join("b.pgn.zst");
    let c = dir.path().join("c.pgn");
    fs::write(&a, repairs()).expect("writable");
    fs::write(&b, zstd::encode_all(&repairs()[..], 3).expect("zstd")).expect("writable");
    fs::write(&c, repaired()).expect("writable");
    let long_ago =
        std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    fs::File::options()
        .write(true)
        .open(&c)
        .and_then(|file| file.set_modified(long_ago))
        .expect("the time can be set");
    let report = dir.path().join("report.csv");
    let run = pgn960(
        &[
            "fix",
            "-q",
            "--in-place",
            "--report",
            utf8(&report),
            utf8(&a),
            utf8(&b),
            utf8(&c),
        ],
        None,
    );
    assert!(
        run.ok("fix --in-place").is_empty(),
        "--in-place writes nothing to stdout"
    );
    assert_same_bytes(&fs::read(&a).expect("a"), &repaired(), "a.pgn");
    let packed = fs::read(&b).expect("b");
    assert!(
        packed.starts_with(b"\x28\xb5\x2f\xfd"),
        "b.pgn.zst is still zstd"
    );
    assert_same_bytes(
        &zstd::decode_all(&packed[..]).expect("zstd"),
        &repaired(),
        "b.pgn.zst",
    );
    assert_eq!(
        fs::metadata(&c).and_then(|m| m.modified()).expect("mtime"),
        long_ago,
        "a file that needs no repair is not touched"
    );
    let rows: Vec<FixRow> = read_csv(&fs::read(&report).expect("written"), "the report");
    let count = |file: &Path, action: &str| {
        rows.iter()
            .filter(|r| r.file == utf8(file) && r.action == action)
            .count()
    };
    assert_eq!(
        (count(&a, "fixed"), count(&b, "fixed"), count(&c, "fixed")),
        (22, 22, 0)
    );
    let left = fs::read(fixture_dir().join("left.pgn")).expect("the fixture");
    let d = dir.path().join("d.pgn");
    fs::write(&d, &left).expect("writable");
    let run = pgn960(
        &[
            "fix",
            "-q",
            "--in-place",
            "--report",
            utf8(&report),
            utf8(&d),
        ],
        None,
    );
    run.ok("fix --in-place of a file with findings left only");
    assert_eq!(
        fs::read(&d).expect("d"),
        left,
        "nothing to repair: the file is as it was"
    );
    let rows: Vec<FixRow> = read_csv(&fs::read(&report).expect("written"), "the report");
    assert_eq!(
        rows.len(),
        11,
        "the findings left in a file not rewritten are reported"
    );
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .expect("listable")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["a.pgn", "b.pgn.zst", "c.pgn", "d.pgn", "report.csv"],
        "no temporary left"
    );
}

#[test]
fn in_place_on_a_damaged_file_leaves_it_and_reports_none_of_its_rows() {
    // Real games after the fixture, so that the cut comes well after the
    // first 64 KiB (a file that fails before is not read at all).
    let plain = [
        repairs(),
        read_pgn(&sample_file("tcec-s16-frc-sufi.pgn.zst")),
    ]
    .concat();
    let packed = zstd::encode_all(&plain[..], 3).expect("zstd");
    let damaged = &packed[..packed.len() / 2];
    let (dir, path) = scratch("cut.pgn.zst", damaged);
    let report = dir.path().join("report.csv");
    let run = pgn960(
        &["fix", "--in-place", "--report", utf8(&report), utf8(&path)],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(fs::read(&path).expect("still there"), damaged);
    assert_eq!(
        fs::read(&report).expect("the report"),
        b"file,game,line,code,action,tag,before,after\n",
        "rows of a file left as it was are not reported"
    );
}

/// One `pgn960:` line and exit 2.
fn assert_refused(run: &Run, what: &str) {
    assert_eq!(run.code, 2, "{what}: {}", run.stderr);
    assert!(run.stdout.is_empty(), "{what}");
    assert_eq!(run.stderr.lines().count(), 1, "{what}: {}", run.stderr);
    assert!(run.stderr.starts_with("pgn960: "), "{what}: {}", run.stderr);
}

#[test]
fn unusable_arguments_are_one_line_and_exit_2() {
    let (dir, path) = scratch("games.pgn", &repairs());
    let run = pgn960(&["fix", "--variant-name", "FRC", utf8(&path)], None);
    assert_refused(&run, "--variant-name FRC");
    assert!(
        run.stderr.contains("not a name of Chess960"),
        "{}",
        run.stderr
    );
    assert_refused(
        &pgn960(&["fix", "--castling", "lichess", utf8(&path)], None),
        "--castling",
    );
    assert_refused(
        &pgn960(&["fix", "--in-place"], Some(&repairs())),
        "--in-place on stdin",
    );
    let out = dir.path().join("out.pgn");
    let run = pgn960(
        &["fix", utf8(&path), "-o", utf8(&out), "--report", utf8(&out)],
        None,
    );
    assert_refused(&run, "-o and --report the same file");
    assert!(run.stderr.contains("the same file"), "{}", run.stderr);
    let run = pgn960(&["fix", utf8(&path), "--report", utf8(&path)], None);
    assert_refused(&run, "--report an input");
    assert_eq!(
        fs::read(&path).expect("the input"),
        repairs(),
        "the input is intact"
    );
}

#[test]
fn variant_name_writes_the_spelling_asked_for() {
    let out = pgn960(
        &["fix", "-q", "--variant-name", "Fischer Random"],
        Some(&repairs()),
    )
    .ok("fix --variant-name");
    let text = String::from_utf8(out).expect("UTF-8");
    assert_eq!(
        text.matches("[Variant \"Fischer Random\"]").count(),
        7,
        "{text}"
    );
    assert!(!text.contains("[Variant \"Chess960\"]"));
}

/// Repeated tags go only from a tag section read whole: beside a tag line
/// too long to read (over 16 MiB), the game's other tags are unknown (a
/// third `Site` there may say something else), so the game is left as
/// it is, its repeats with it; the report tells only that its tag
/// section was too long.
#[test]
fn a_game_with_a_tag_line_too_long_to_read_keeps_its_repeats() {
    let mut game = b"[Event \"long\"]\n[Site \"here\"]\n[Site \"here\"]\n[Annotation \"".to_vec();
    game.resize(game.len() + (16 << 20), b'x');
    game.extend_from_slice(b"\"]\n[Result \"*\"]\n\n*\n");
    let run = pgn960(&["fix", "-q", "--report", "/dev/stderr"], Some(&game));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout == game, "the game comes out as it came in");
    assert_eq!(
        run.stderr,
        "file,game,line,code,action,tag,before,after\n\
         <stdin>,1,1,tag_section_too_long,left,,,\n"
    );
}
