//! `pgn960 filter`: each criterion on games whose answers are worked out by
//! hand, `--finding` against `validate`'s own report, every sample (and
//! corpus file) through it with nothing lost, the outputs (`-o` by
//! extension, `--split-by` both ways, compressed), refusals and errors.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use pgn960::game::{Kind, Reading};
use pgn960::split::GameReader;

use crate::common::{
    assert_same_bytes, corpus_or_skip, pgn960, read_pgn, sample_file, sample_files, short_name,
    testdata_file,
};

const BIN: &str = env!("CARGO_BIN_EXE_pgn960");

/// A game as the library cuts it (continuation bytes included), with what
/// every command reads it as.
struct Cut {
    bytes: Vec<u8>,
    kind: Kind,
}

/// The games of `input`, as `tag` counts them.
fn games_of(input: &[u8]) -> Vec<Cut> {
    let mut reader = GameReader::new(input);
    let mut games: Vec<Cut> = Vec::new();
    while let Some(batch) = reader.next_batch().expect("reading from memory") {
        if let Some(last) = games.last_mut() {
            last.bytes
                .extend_from_slice(&batch.data[..batch.continuation]);
        }
        for game in &batch.games {
            games.push(Cut {
                bytes: batch.bytes(game).to_vec(),
                kind: Reading::of(&batch, game).kind,
            });
        }
    }
    games
}

/// The games of `games` whose 1-based indices are `wanted`, concatenated.
fn pick(games: &[Vec<u8>], wanted: &[usize]) -> Vec<u8> {
    wanted.iter().flat_map(|&i| games[i - 1].clone()).collect()
}

/// Asserts that `chosen` and `others` are the games of `games`, each in
/// the one `selected` says, in input order: together, the input.
fn assert_rebuilds(
    games: &[Cut],
    selected: impl Fn(&Cut) -> bool,
    chosen: &[u8],
    others: &[u8],
    what: &str,
) {
    let (mut a, mut b) = (chosen, others);
    for (i, game) in games.iter().enumerate() {
        let from = if selected(game) { &mut a } else { &mut b };
        assert!(
            from.starts_with(&game.bytes),
            "{what}: game {} ({}) is not next in its output",
            i + 1,
            game.kind
        );
        *from = &from[game.bytes.len()..];
    }
    assert!(a.is_empty() && b.is_empty(), "{what}: bytes left over");
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// `testdata/sample.pgn`.
const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/sample.pgn");

/// The sample's eight games, cut where a line starts with `[Event `
/// (independently of the library, which must agree).
fn sample_games() -> Vec<Vec<u8>> {
    let bytes = fs::read(SAMPLE).expect("readable");
    let mut starts: Vec<usize> = memchr::memmem::find_iter(&bytes, b"[Event ")
        .filter(|&at| at == 0 || bytes[at - 1] == b'\n')
        .collect();
    starts.push(bytes.len());
    let games: Vec<Vec<u8>> = starts
        .windows(2)
        .map(|w| bytes[w[0]..w[1]].to_vec())
        .collect();
    assert_eq!(games.len(), 8);
    let cut: Vec<Vec<u8>> = games_of(&bytes).into_iter().map(|g| g.bytes).collect();
    assert!(cut == games, "the library cuts the sample elsewhere");
    games
}

/// The sample's games, by index: 1 and 2 start from 0 (Fritz9 81), 3 from
/// 959 (928, no Variant), 4 from 518 (359, Variant Chess960), 5 from 42
/// (11, with a wrong Chess960Id "17"), 6 from 700 (445); 7 is Double FRC,
/// 8 standard. Ratings (White/Black): 2210/2105, 2150/2190, 2105/2150,
/// 2190/2210, 2210/2150, 2105/2190, 3500/3480, 2150/2105. `validate`
/// reports variant_missing for 3, id_mismatch for 5, double_frc for 7.
#[test]
fn each_criterion_selects_the_games_worked_out_by_hand() {
    let games = sample_games();
    let cases: &[(&[&str], &[usize])] = &[
        (&[], &[1, 2, 3, 4, 5, 6, 7, 8]),
        (&["--position", "0,518"], &[1, 2, 4]),
        (
            &["--position", "0,518", "--include-standard"],
            &[1, 2, 4, 8],
        ),
        (&["--position", "700-959"], &[3, 6]),
        (&["--position", "0", "--position", " 42 "], &[1, 2, 5]),
        (&["--position", "0-959", "--invert"], &[7, 8]),
        (&["--fritz9", "81,445"], &[1, 2, 6]),
        (&["--fritz9", "359", "--include-standard"], &[4, 8]),
        (&["--fritz9", "1-960"], &[1, 2, 3, 4, 5, 6]),
        (&["--arrangement", "rkrnnqbb,NNQRBBKR"], &[3, 5]),
        // Two position criteria: both must be met.
        (
            &["--position", "0-100", "--arrangement", "BBQNNRKR,RNBQKBNR"],
            &[1, 2],
        ),
        (&["--kind", "dfrc,standard"], &[7, 8]),
        (&["--kind", "chess960", "--invert"], &[7, 8]),
        (&["--kind", "other,unreadable"], &[]),
        (&["--min-elo", "2150"], &[2, 4, 5, 7]),
        (&["--min-elo", "2150", "--kind", "chess960"], &[2, 4, 5]),
        (&["--min-elo", "3481"], &[]),
        (&["--finding", "id_mismatch"], &[5]),
        (&["--finding", "warning"], &[3, 7]),
        (&["--finding", "ERROR,double_frc"], &[5, 7]),
        (&["--finding", "info"], &[]),
        (&["--finding", "warning", "--position", "959"], &[3]),
        (&["--finding", "error", "--invert"], &[1, 2, 3, 4, 6, 7, 8]),
    ];
    for (args, expected) in cases {
        let mut all = vec!["filter", "-q"];
        all.extend_from_slice(args);
        all.push(SAMPLE);
        let out = pgn960(&all, None).ok(&format!("{all:?}"));
        assert_same_bytes(&out, &pick(&games, expected), &format!("{args:?}"));
    }
}

/// A game of each kind the sample lacks: another variant on a 960 array,
/// a set-up position, a FEN that does not read, two FENs that conflict;
/// then a Chess960 game with CRLF line endings.
const OTHER_KINDS: &str = "[Event \"atomic\"]\n[Variant \"Atomic\"]\n\
    [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 *\n\n\
    [Event \"set-up\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n1. Kb2 *\n\n\
    [Event \"broken\"]\n[SetUp \"1\"]\n[FEN \"not a fen\"]\n\n*\n\n\
    [Event \"conflict\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\
    [FEN \"rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1\"]\n\n*\n\n\
    [Event \"960\"]\r\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\r\n\r\n*\r\n";

#[test]
fn other_and_unreadable_games_have_no_position() {
    let games: Vec<Vec<u8>> = OTHER_KINDS
        .split_inclusive("*\n\n")
        .map(|game| game.as_bytes().to_vec())
        .collect();
    assert_eq!(games.len(), 5);
    let cases: &[(&[&str], &[usize])] = &[
        (&["--kind", "other"], &[1, 2]),
        (&["--kind", "unreadable"], &[3, 4]),
        (&["--position", "0-959", "--include-standard"], &[5]),
        (&["--arrangement", "BBQNNRKR,RKRNNQBB"], &[5]),
        (&["--position", "0", "--invert"], &[1, 2, 3, 4]),
    ];
    for (args, expected) in cases {
        let mut all = vec!["filter", "-q"];
        all.extend_from_slice(args);
        let out = pgn960(&all, Some(OTHER_KINDS.as_bytes())).ok(&format!("{all:?}"));
        assert_same_bytes(&out, &pick(&games, expected), &format!("{args:?}"));
    }
}

/// `--finding X` selects exactly the games `validate` reports with X:
/// every code and severity `validate` reports on each of its fixtures
/// (and one it does not), the reports read from `validate` itself.
#[test]
fn finding_selects_exactly_the_games_validate_reports() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/validate");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("listable")
        .map(|entry| entry.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    files.push(PathBuf::from(SAMPLE));
    files.push(sample_file(
        "edge/kokopu/test-resources-pgns-semantic-error-database.pgn",
    ));
    assert!(files.len() > 40, "{files:?}");
    let mut checked = 0;
    for file in &files {
        let report = pgn960(&["validate", "-q", "--format", "jsonl", path(file)], None);
        assert!(report.code == 0 || report.code == 1, "{}", report.stderr);
        // Game indices reported, by code and by severity.
        let mut reported: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for line in String::from_utf8(report.stdout).expect("UTF-8").lines() {
            let row: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let game = row["game"].as_u64().expect("a game index") as usize;
            for key in ["code", "severity"] {
                let games = reported
                    .entry(row[key].as_str().expect("a string").to_string())
                    .or_default();
                if games.last() != Some(&game) {
                    games.push(game);
                }
            }
        }
        reported.entry("result_mismatch".to_string()).or_default();
        let games: Vec<Vec<u8>> = games_of(&fs::read(file).expect("readable"))
            .into_iter()
            .map(|g| g.bytes)
            .collect();
        for (wanted, indices) in &reported {
            let run = pgn960(&["filter", "-q", "--finding", wanted, path(file)], None);
            let out = run.ok(&format!("filter --finding {wanted} {}", file.display()));
            let what = format!("--finding {wanted} on {}", file.display());
            assert_same_bytes(&out, &pick(&games, indices), &what);
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} checks");
}

/// A game of 17 MiB, handed out in pieces: all its pieces go with it.
#[test]
fn a_game_too_long_to_hold_goes_whole_where_it_goes() {
    let file = testdata_file("validate/game_too_long.pgn.gz");
    let mut input = Vec::new();
    flate2::read::MultiGzDecoder::new(fs::File::open(&file).expect("readable"))
        .read_to_end(&mut input)
        .expect("gzip");
    let games = games_of(&input);
    let file = path(&file);
    let chosen = pgn960(&["filter", "-q", "--finding", "game_too_long", file], None)
        .ok("filter --finding game_too_long");
    let others = pgn960(
        &[
            "filter",
            "-q",
            "--finding",
            "game_too_long",
            "--invert",
            file,
        ],
        None,
    )
    .ok("filter --finding game_too_long --invert");
    assert!(chosen.len() > 16 << 20, "the long game is selected");
    let long = |game: &Cut| game.bytes.len() > 16 << 20;
    assert_rebuilds(&games, long, &chosen, &others, "game_too_long.pgn.gz");
    // Split by kind, the long game's file holds it whole.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let run = pgn960(
        &[
            "filter",
            "-q",
            "--split-by",
            "kind",
            "--output-dir",
            path(dir.path()),
            file,
        ],
        None,
    );
    run.ok("--split-by kind");
    let mut split: Vec<u8> = Vec::new();
    for kind in Kind::ALL {
        if let Ok(bytes) = fs::read(dir.path().join(format!("{kind}.pgn"))) {
            split.extend(bytes);
        }
    }
    assert_eq!(split.len(), input.len());
}

/// Every sample: no criterion writes it unchanged; a criterion and its
/// inverse are the sample, game by game.
#[test]
fn every_sample_passes_through_whole() {
    for file in sample_files() {
        let name = short_name(&file);
        let input = read_pgn(&file);
        let out = pgn960(&["filter", "-q", path(&file)], None).ok(&name);
        assert_same_bytes(&out, &input, &format!("{name} through filter"));
        check_kind_and_inverse(&file, &input);
    }
}

/// `--kind chess960` and its inverse put back together are `input`.
fn check_kind_and_inverse(file: &Path, input: &[u8]) {
    let name = short_name(file);
    let chosen = pgn960(&["filter", "-q", "--kind", "chess960", path(file)], None).ok(&name);
    let others = pgn960(
        &["filter", "-q", "--kind", "chess960", "--invert", path(file)],
        None,
    )
    .ok(&name);
    let chess960 = |game: &Cut| game.kind == Kind::Chess960;
    assert_rebuilds(&games_of(input), chess960, &chosen, &others, &name);
}

/// Every file of the corpus, without a panic and with nothing lost.
#[test]
fn every_corpus_file_through_filter() {
    let Some(corpus) = corpus_or_skip("filter::every_corpus_file_through_filter") else {
        return;
    };
    for file in corpus.files() {
        let input = read_pgn(&file);
        check_kind_and_inverse(&file, &input);
    }
}

/// Files with their bytes, by name.
type Files = BTreeMap<String, Vec<u8>>;

/// The files of `dir`.
fn files_in(dir: &Path) -> Files {
    fs::read_dir(dir)
        .expect("listable")
        .map(|entry| {
            let entry = entry.expect("an entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            (name, fs::read(entry.path()).expect("readable"))
        })
        .collect()
}

/// The bytes of a compressed file, decompressed by the crate of its format.
fn decompress(name: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let result = if name.ends_with(".gz") {
        flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut out)
    } else if name.ends_with(".zst") {
        zstd::stream::read::Decoder::new(bytes).and_then(|mut d| d.read_to_end(&mut out))
    } else if name.ends_with(".bz2") {
        bzip2::read::MultiBzDecoder::new(bytes).read_to_end(&mut out)
    } else if name.ends_with(".xz") {
        xz2::read::XzDecoder::new_multi_decoder(bytes).read_to_end(&mut out)
    } else {
        return bytes.to_vec();
    };
    result.unwrap_or_else(|err| panic!("{name}: {err}"));
    out
}

#[test]
fn split_by_position_compressed_or_not() {
    let games = sample_games();
    let dir = tempfile::tempdir().expect("a temporary directory");
    // A file of the same name is replaced; other files stay.
    fs::write(dir.path().join("000.pgn.gz"), b"old").expect("writable");
    fs::write(dir.path().join("notes.txt"), b"mine").expect("writable");
    let d = path(dir.path());
    let run = pgn960(
        &[
            "filter",
            "--split-by",
            "position",
            "--output-dir",
            d,
            "--compress",
            "gz",
            SAMPLE,
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "pgn960 filter: 8 games read: 6 chess960, 1 standard, 1 dfrc, 0 other, 0 unreadable\n  \
             selected 8 games: 6 chess960, 1 standard, 1 dfrc, 0 other, 0 unreadable\n  \
             wrote 5 files to {d}; 2 selected games have no position and were not written\n"
        )
    );
    let files = files_in(dir.path());
    let expected: &[(&str, &[usize])] = &[
        ("000.pgn.gz", &[1, 2]),
        ("042.pgn.gz", &[5]),
        ("518.pgn.gz", &[4]),
        ("700.pgn.gz", &[6]),
        ("959.pgn.gz", &[3]),
    ];
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    let mut wanted: Vec<&str> = expected.iter().map(|(name, _)| *name).collect();
    wanted.push("notes.txt");
    assert_eq!(names, wanted, "no other file, and no temporary one left");
    for (name, indices) in expected {
        assert!(files[*name].starts_with(b"\x1f\x8b"), "{name} is gzip");
        assert_same_bytes(
            &decompress(name, &files[*name]),
            &pick(&games, indices),
            name,
        );
    }
    assert_eq!(files["notes.txt"], b"mine");

    // With --include-standard, the standard game goes to 518 too.
    let run = pgn960(
        &[
            "filter",
            "-q",
            "--split-by",
            "position",
            "--include-standard",
            "--output-dir",
            d,
            SAMPLE,
        ],
        None,
    );
    run.ok("--include-standard");
    assert_same_bytes(
        &fs::read(dir.path().join("518.pgn")).expect("written"),
        &pick(&games, &[4, 8]),
        "518.pgn",
    );
}

#[test]
fn split_by_kind_in_each_format() {
    let games = sample_games();
    for (compress, magic) in [
        ("zst", &b"\x28\xb5\x2f\xfd"[..]),
        ("bz2", b"BZh"),
        ("xz", b"\xfd7zXZ\x00"),
    ] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let out = dir.path().join("new/kinds");
        let args = [
            "filter",
            "-q",
            "--min-elo",
            "2150",
            "--split-by",
            "kind",
            "--output-dir",
            path(&out),
            "--compress",
            compress,
            SAMPLE,
        ];
        pgn960(&args, None).ok(&format!("{args:?}"));
        let files = files_in(&out);
        let names: Vec<String> = files.keys().cloned().collect();
        assert_eq!(
            names,
            [
                format!("chess960.pgn.{compress}"),
                format!("dfrc.pgn.{compress}")
            ]
        );
        for (name, indices) in [(&names[0], &[2, 4, 5][..]), (&names[1], &[7])] {
            assert!(files[name].starts_with(magic), "{name}");
            assert_same_bytes(
                &decompress(name, &files[name]),
                &pick(&games, indices),
                name,
            );
        }
    }
}

#[test]
fn an_output_is_compressed_by_its_extension() {
    let games = sample_games();
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, magic) in [
        ("out.pgn.gz", &b"\x1f\x8b"[..]),
        ("OUT.PGN.ZST", b"\x28\xb5\x2f\xfd"),
        ("out.bz2", b"BZh"),
        ("out.pgn.xz", b"\xfd7zXZ\x00"),
        ("out.pgn", b"[Event "),
        ("out.zip", b"[Event "),
    ] {
        let out = dir.path().join(name);
        let args = [
            "filter",
            "-q",
            "--kind",
            "dfrc,standard",
            SAMPLE,
            "-o",
            path(&out),
        ];
        let run = pgn960(&args, None);
        assert!(
            run.ok(name).is_empty(),
            "{name}: nothing on standard output"
        );
        let bytes = fs::read(&out).expect("written");
        assert!(bytes.starts_with(magic), "{name}");
        assert_same_bytes(
            &decompress(&name.to_lowercase(), &bytes),
            &pick(&games, &[7, 8]),
            name,
        );
        // Read back by the tool itself, whatever the format.
        let back = pgn960(&["filter", "-q", path(&out)], None).ok(name);
        assert_same_bytes(&back, &pick(&games, &[7, 8]), name);
    }
    // Nothing selected: an empty, valid compressed file.
    let out = dir.path().join("none.pgn.zst");
    pgn960(
        &["filter", "-q", "--kind", "other", SAMPLE, "-o", path(&out)],
        None,
    )
    .ok("nothing selected");
    assert!(decompress("none.pgn.zst", &fs::read(&out).expect("written")).is_empty());
}

/// Standard input, and several inputs one after another.
#[test]
fn standard_input_and_several_inputs() {
    let games = sample_games();
    let bytes = fs::read(SAMPLE).expect("readable");
    let out = pgn960(&["filter", "-q", "--kind", "dfrc"], Some(&bytes)).ok("stdin");
    assert_same_bytes(&out, &pick(&games, &[7]), "from standard input");
    let out = pgn960(&["filter", "-q", "--kind", "dfrc", "-"], Some(&bytes)).ok("-");
    assert_same_bytes(&out, &pick(&games, &[7]), "from -");

    let dir = tempfile::tempdir().expect("a temporary directory");
    let missing = dir.path().join("missing.pgn");
    let s = SAMPLE;
    let run = pgn960(
        &["filter", "--kind", "dfrc,standard", s, path(&missing), s],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    let expected = [pick(&games, &[7, 8]), pick(&games, &[7, 8])].concat();
    assert_same_bytes(&run.stdout, &expected, "both readable inputs");
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("pgn960:"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", run.stderr);
    assert!(
        errors[0].contains("missing.pgn") && errors[0].contains("No such file"),
        "{}",
        errors[0]
    );
    assert!(
        run.stderr.contains("pgn960 filter: 16 games read: 12 chess960, 2 standard, 2 dfrc, 0 other, 0 unreadable\n  \
         selected 4 games: 0 chess960, 2 standard, 2 dfrc, 0 other, 0 unreadable\n"),
        "{}",
        run.stderr
    );
}

/// A file of samples over 2 MiB, so that it is split on several threads.
fn big_file(dir: &Path) -> PathBuf {
    let mut bytes = Vec::new();
    for name in [
        "standard/lichess_db_1000k-first300.pgn.zst",
        "chess960-events-headers-first300.pgn",
        "tcec-s16-frc-sufi.pgn.zst",
        "tcec-s22-dfrc-unbust-bonus.pgn.zst",
    ] {
        bytes.extend(read_pgn(&sample_file(name)));
    }
    let one = bytes.clone();
    while bytes.len() < 5 << 20 {
        bytes.extend_from_slice(&one);
    }
    let file = dir.join("big.pgn");
    fs::write(&file, &bytes).expect("writable");
    file
}

#[test]
fn the_thread_count_changes_nothing() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = big_file(dir.path());
    let f = path(&file);
    let mut seen: Vec<(Vec<u8>, Files)> = Vec::new();
    for threads in ["1", "2", "4"] {
        let out = pgn960(
            &[
                "filter",
                "-q",
                "--threads",
                threads,
                "--min-elo",
                "1500",
                "--finding",
                "warning",
                f,
            ],
            None,
        )
        .ok(threads);
        let split = dir.path().join(format!("split-{threads}"));
        pgn960(
            &[
                "filter",
                "-q",
                "--threads",
                threads,
                "--split-by",
                "position",
                "--include-standard",
                "--output-dir",
                path(&split),
                f,
            ],
            None,
        )
        .ok(threads);
        seen.push((out, files_in(&split)));
    }
    assert!(!seen[0].0.is_empty() && seen[0].1.len() > 50);
    for (i, other) in seen.iter().enumerate().skip(1) {
        assert!(
            other.0 == seen[0].0,
            "filter output differs with thread count #{i}"
        );
        assert!(
            other.1 == seen[0].1,
            "--split-by files differ with thread count #{i}"
        );
    }
    // The split files hold every game with a position, once.
    let input = fs::read(&file).expect("readable");
    let with_position = games_of(&input)
        .iter()
        .filter(|g| matches!(g.kind, Kind::Chess960 | Kind::Standard))
        .map(|g| g.bytes.len())
        .sum::<usize>();
    assert_eq!(
        seen[0].1.values().map(Vec::len).sum::<usize>(),
        with_position
    );
}

/// A refusal: exit 2, one line saying the output is an input, no file of
/// `dir` changed.
fn assert_refused(dir: &Path, args: &[&str], stdin: Option<&Path>) {
    let before = files_in(dir);
    let mut command = Command::new(BIN);
    command.args(args);
    if let Some(stdin) = stdin {
        command.stdin(fs::File::open(stdin).expect("readable"));
    }
    let output = command.output().expect("pgn960 runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.starts_with("pgn960: ") && stderr.contains("also an input"),
        "{stderr}"
    );
    assert!(files_in(dir) == before, "{args:?} changed a file");
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = path(dir.path());
    for name in ["s.pgn", "007.pgn", "dfrc.pgn.zst"] {
        fs::copy(SAMPLE, dir.path().join(name)).expect("copied");
    }
    let s = dir.path().join("s.pgn");
    let link = dir.path().join("link.pgn");
    std::os::unix::fs::symlink(&s, &link).expect("a symbolic link");
    let position = dir.path().join("007.pgn");
    let kind = dir.path().join("dfrc.pgn.zst");
    assert_refused(dir.path(), &["filter", path(&s), "-o", path(&s)], None);
    assert_refused(dir.path(), &["filter", path(&s), "-o", path(&link)], None);
    assert_refused(dir.path(), &["filter", "-o", path(&s)], Some(&s));
    assert_refused(
        dir.path(),
        &[
            "filter",
            path(&position),
            "--split-by",
            "position",
            "--output-dir",
            d,
        ],
        None,
    );
    assert_refused(
        dir.path(),
        &["filter", "--split-by", "position", "--output-dir", d],
        Some(&position),
    );
    assert_refused(
        dir.path(),
        &[
            "filter",
            path(&kind),
            "--split-by",
            "kind",
            "--compress",
            "zst",
            "--output-dir",
            d,
        ],
        None,
    );
    // Not the same name with another compression: no refusal.
    let run = pgn960(
        &[
            "filter",
            "-q",
            path(&kind),
            "--split-by",
            "kind",
            "--output-dir",
            d,
        ],
        None,
    );
    run.ok("dfrc.pgn.zst is no output of --split-by kind without --compress");
}

#[test]
fn a_run_that_reads_nothing_writes_nothing() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let missing = dir.path().join("missing.pgn");
    let kept = dir.path().join("kept.pgn.gz");
    fs::write(&kept, b"old bytes").expect("writable");
    let new_dir = dir.path().join("new");
    for args in [
        vec!["filter", path(&missing), "-o", path(&kept)],
        vec![
            "filter",
            path(&missing),
            "-o",
            path(&dir.path().join("new.pgn.xz")),
        ],
        vec![
            "filter",
            path(&missing),
            "--split-by",
            "kind",
            "--output-dir",
            path(&new_dir),
        ],
        vec![
            "filter",
            path(&missing),
            "--split-by",
            "position",
            "--compress",
            "gz",
            "--output-dir",
            path(dir.path()),
        ],
    ] {
        let run = pgn960(&args, None);
        assert_eq!(run.code, 2, "{args:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty());
        let names: Vec<String> = files_in(dir.path()).into_keys().collect();
        assert_eq!(names, ["kept.pgn.gz"], "{args:?}");
        assert_eq!(fs::read(&kept).expect("kept"), b"old bytes");
    }
}

#[test]
fn unusable_arguments_are_one_line_and_exit_2() {
    let s = SAMPLE;
    let cases: &[(&[&str], &str)] = &[
        (
            &["--position", "0,5x8"],
            r#"pgn960: filter: --position "0,5x8": "5x8" is not a number or a range of numbers (like 700-759)"#,
        ),
        (
            &["--position", "960"],
            r#"pgn960: filter: --position "960": 960 is not a Scharnagl number (0-959)"#,
        ),
        (
            &["--position", "759-700"],
            r#"pgn960: filter: --position "759-700": "759-700" runs backwards (write 700-759)"#,
        ),
        (
            &["--position", "1,,2"],
            r#"pgn960: filter: --position "1,,2": an empty item (two commas in a row, or one at an end)"#,
        ),
        (
            &["--fritz9", "0-10"],
            r#"pgn960: filter: --fritz9 "0-10": "0-10": 0 is not a Fritz9 number (1-960)"#,
        ),
        (
            &["--arrangement", "RNBQKBNR,RNBQKBN"],
            r#"pgn960: filter: --arrangement "RNBQKBNR,RNBQKBN": "RNBQKBN": 7 letters, not 8"#,
        ),
        (
            &["--kind", "chess960,setup"],
            r#"pgn960: filter: --kind "chess960,setup": "setup" is no kind (chess960, standard, dfrc, other, unreadable)"#,
        ),
        (
            &["--finding", "illegal-move"],
            r#"pgn960: filter: --finding "illegal-move": "illegal-move" is no severity (error, warning, info) or code of validate ("#,
        ),
        (
            &["--include-standard"],
            "pgn960: filter: --include-standard needs --position, --fritz9, --arrangement or --split-by position",
        ),
        (
            &["--min-elo", "high"],
            "pgn960: invalid value 'high' for '--min-elo <N>'",
        ),
        (
            &["--split-by", "position"],
            "pgn960: the following required arguments were not provided: --output-dir <DIR>",
        ),
        (
            &["--output-dir", "x"],
            "pgn960: the following required arguments were not provided: --split-by <WHAT>",
        ),
        (
            &["--compress", "zst"],
            "pgn960: the following required arguments were not provided:",
        ),
        (
            &["--split-by", "event", "--output-dir", "x"],
            "pgn960: invalid value 'event' for '--split-by <WHAT>'",
        ),
        (
            &["-o", "x.pgn", "--split-by", "kind", "--output-dir", "x"],
            "pgn960: the argument '--output <FILE>' cannot be used with '--split-by <WHAT>'",
        ),
    ];
    // Run in a scratch folder: the relative outputs `x` and `x.pgn` must
    // not appear there, and a failure must not leave them in the
    // repository.
    let scratch = tempfile::tempdir().expect("a temporary directory");
    for (args, message) in cases {
        let mut all = vec!["filter"];
        all.extend_from_slice(args);
        all.push(s);
        let output = Command::new(env!("CARGO_BIN_EXE_pgn960"))
            .args(&all)
            .current_dir(scratch.path())
            .stdin(std::process::Stdio::null())
            .output()
            .expect("pgn960 runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{all:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{all:?}: {stderr}");
        assert!(
            stderr.starts_with(message),
            "{all:?}:\n{stderr}\nwanted:\n{message}"
        );
        assert!(output.stdout.is_empty());
        assert!(
            !scratch.path().join("x").exists() && !scratch.path().join("x.pgn").exists(),
            "{all:?} wrote an output"
        );
    }
}

/// With fewer files allowed open than there are positions, the spools are
/// closed and opened again as needed: the same files come out.
#[test]
fn a_split_needs_no_more_open_files_than_the_system_allows() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = big_file(dir.path());
    let (roomy, tight) = (dir.path().join("roomy"), dir.path().join("tight"));
    let split = |out: &Path, compress: &str| {
        format!(
            "exec {BIN} filter -q --split-by position --include-standard --compress {compress} --output-dir {} {}",
            path(out),
            path(&file)
        )
    };
    let status = Command::new("sh")
        .args(["-c", &split(&roomy, "gz")])
        .status()
        .expect("sh runs");
    assert!(status.success());
    // Standard streams, the input, a few more: far fewer than 50 positions.
    let output = Command::new("sh")
        .args(["-c", &format!("ulimit -n 24 && {}", split(&tight, "gz"))])
        .output()
        .expect("sh runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let (roomy, tight) = (files_in(&roomy), files_in(&tight));
    assert!(roomy.len() > 50, "{} files", roomy.len());
    assert_eq!(
        roomy.keys().collect::<Vec<_>>(),
        tight.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &roomy {
        assert!(
            decompress(name, bytes) == decompress(name, &tight[name]),
            "{name} differs when files run short"
        );
    }
}
