//! One meaning of a game: `tag`, `stats` and `validate` read every game the
//! same way, and their summaries count games by kind in one vocabulary.

use std::fs;
use std::io::{Read, Write};
use std::path::Path;

use crate::common::{pgn960, sample_file, say_skipped, testdata_file};

const FEN_0: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR";

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    fs::write(&path, bytes).expect("writable");
    path.to_str().expect("UTF-8").to_string()
}

/// The first line of a command's summary, and the rest.
fn summary(stderr: &str, command: &str) -> (String, String) {
    let start = stderr
        .find(&format!("pgn960 {command}: "))
        .unwrap_or_else(|| panic!("no {command} summary in {stderr:?}"));
    let mut lines = stderr[start..].lines();
    let first = lines.next().expect("a first line").to_string();
    (first, lines.collect::<Vec<_>>().join("\n"))
}

/// A game whose Variant names another game is `other`: no id, not
/// counted, no Chess960 finding — whatever its FEN.
#[test]
fn another_game_on_a_960_array_is_other_in_every_command() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = format!(
        "[Event \"Antichess\"]\n[Variant \"Antichess\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0} w - - 0 1\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
         [Event \"Seirawan\"]\n[Variant \"Seirawan\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1\"]\n[Result \"0-1\"]\n\n1. e4 e5 0-1\n"
    );
    let file = write(dir.path(), "variants.pgn", pgn.as_bytes());
    let tag = pgn960(&["tag", &file], None);
    assert_eq!(tag.code, 0, "{}", tag.stderr);
    assert_eq!(tag.stdout, pgn.as_bytes(), "no id for another game");
    let (first, rest) = summary(&tag.stderr, "tag");
    assert!(
        first.ends_with("0 chess960, 0 standard, 0 dfrc, 2 other, 0 unreadable"),
        "{first}"
    );
    assert!(rest.contains("tagged 0 games"), "{rest}");

    let stats = pgn960(&["stats", &file], None);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    assert_eq!(
        String::from_utf8_lossy(&stats.stdout).lines().count(),
        1,
        "a header only"
    );
    assert!(
        summary(&stats.stderr, "stats").0.contains("2 other"),
        "{}",
        stats.stderr
    );

    let validate = pgn960(&["validate", &file], None);
    assert_eq!(validate.code, 0, "{}", validate.stderr);
    assert_eq!(
        String::from_utf8_lossy(&validate.stdout).lines().count(),
        1,
        "no finding: {}",
        String::from_utf8_lossy(&validate.stdout)
    );
}

/// The board part alone: every command reads its number; `validate`
/// warns, and replays the moves from that start.
#[test]
fn a_fen_of_the_board_part_alone_has_its_number_and_a_warning() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = format!(
        "[Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n"
    );
    let file = write(dir.path(), "board.pgn", pgn.as_bytes());
    let tag = pgn960(&["tag", &file], None);
    assert!(
        String::from_utf8_lossy(&tag.stdout).contains("[Chess960Id \"0\"]"),
        "{}",
        tag.stderr
    );
    let stats = pgn960(&["stats", "-q", &file], None);
    assert!(
        String::from_utf8_lossy(&stats.stdout).contains("\n0,81,BBQNNRKR,1,1,"),
        "{:?}",
        String::from_utf8_lossy(&stats.stdout)
    );
    let validate = pgn960(&["validate", "-q", &file], None);
    assert_eq!(validate.code, 0, "a warning is no error");
    let report = String::from_utf8_lossy(&validate.stdout);
    let codes: Vec<&str> = report
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(4).unwrap_or(""))
        .collect();
    assert_eq!(codes, ["fen_incomplete"], "{report}");
}

/// Two FEN tags that differ in the side to move only: unreadable in
/// every command (no id, not counted), a `fen_conflict` in `validate`.
#[test]
fn fens_that_differ_in_the_side_to_move_are_unreadable_everywhere() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = format!(
        "[Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n[FEN \"{FEN_0} b KQkq - 0 1\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n"
    );
    let file = write(dir.path(), "conflict.pgn", pgn.as_bytes());
    let tag = pgn960(&["tag", &file], None);
    assert_eq!(tag.stdout, pgn.as_bytes(), "no id");
    assert!(
        summary(&tag.stderr, "tag").0.ends_with("1 unreadable"),
        "{}",
        tag.stderr
    );
    let stats = pgn960(&["stats", &file], None);
    assert!(
        summary(&stats.stderr, "stats").0.ends_with("1 unreadable"),
        "{}",
        stats.stderr
    );
    let validate = pgn960(&["validate", "-q", &file], None);
    assert!(
        String::from_utf8_lossy(&validate.stdout).contains(",error,fen_conflict,"),
        "{:?}",
        String::from_utf8_lossy(&validate.stdout)
    );
}

/// `--include-standard` tags and counts standard games as `standard`,
/// never as Chess960 games.
#[test]
fn standard_games_are_standard_in_the_summaries() {
    let sample = sample_file("standard/lichess_db_1000k-first300.pgn.zst");
    let sample = sample.to_str().expect("UTF-8");
    let tag = pgn960(
        &["tag", "--include-standard", "-o", "/dev/null", sample],
        None,
    );
    let (first, rest) = summary(&tag.stderr, "tag");
    assert_eq!(
        first,
        "pgn960 tag: 300 games read: 0 chess960, 300 standard, 0 dfrc, 0 other, 0 unreadable"
    );
    assert_eq!(
        rest.trim(),
        "tagged 300 games: 300 id tags added, 0 rewritten, 0 already right"
    );
    // With --fritz9, tags are counted as tags, games as games.
    let tag = pgn960(
        &[
            "tag",
            "--include-standard",
            "--fritz9",
            "-o",
            "/dev/null",
            sample,
        ],
        None,
    );
    let (_, rest) = summary(&tag.stderr, "tag");
    assert_eq!(
        rest.trim(),
        "tagged 300 games: 600 id tags added, 0 rewritten, 0 already right"
    );
    let stats = pgn960(
        &["stats", "--include-standard", "-o", "/dev/null", sample],
        None,
    );
    let (first, rest) = summary(&stats.stderr, "stats");
    assert!(
        first.ends_with("0 chess960, 300 standard, 0 dfrc, 0 other, 0 unreadable"),
        "{first}"
    );
    // Two of the 300 are `[Termination "Abandoned"]` (grep): no result
    // of play, left out.
    assert_eq!(
        rest.trim(),
        "counted 298 chess960 and standard games in 1 position; \
         2 unplayed games left out (2 abandoned)\n  \
         skipped 0 duplicates of games read before"
    );
}

/// `--all-positions` writes 960 rows; the summary counts positions with
/// games. Counts of one are singular.
#[test]
fn summaries_count_what_they_name() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // One warning: a FEN without SetUp.
    let pgn = format!(
        "[Event \"x\"]\n[Variant \"Chess960\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n"
    );
    let file = write(dir.path(), "one.pgn", pgn.as_bytes());
    let stats = pgn960(&["stats", "--all-positions", &file], None);
    assert_eq!(String::from_utf8_lossy(&stats.stdout).lines().count(), 961);
    let (first, rest) = summary(&stats.stderr, "stats");
    assert_eq!(
        first,
        "pgn960 stats: 1 game read: 1 chess960, 0 standard, 0 dfrc, 0 other, 0 unreadable"
    );
    assert_eq!(
        rest.trim(),
        "counted 1 chess960 game in 1 position\n  skipped 0 duplicates of games read before"
    );
    let tag = pgn960(&["tag", "-o", "/dev/null", &file], None);
    assert_eq!(
        summary(&tag.stderr, "tag").1.trim(),
        "tagged 1 game: 1 id tag added, 0 rewritten, 0 already right"
    );
    let validate = pgn960(&["validate", &file], None);
    let (first, rest) = summary(&validate.stderr, "validate");
    assert!(
        first.starts_with("pgn960 validate: 1 game checked: "),
        "{first}"
    );
    assert!(rest.starts_with("  0 errors, 1 warning, 0 info"), "{rest}");
}

/// A `.zst` cut short: every reading command (`tag`, `fix`, `filter`,
/// `stats`, `validate`, `games`), on one thread or two, exits 2 and counts
/// the games it read before the damage, kind by kind, all alike. The
/// oracle is the zstd crate's own decoder: the games that start in what
/// decodes before the cut (the complete ones, and the one the cut ends,
/// whose decoded start is written like any other game's bytes).
#[test]
fn a_truncated_archive_gives_the_same_counts_in_every_command() {
    let mut plain = crate::common::read_pgn(&sample_file("chess960-events-headers-first300.pgn"));
    plain.extend(crate::common::read_pgn(&sample_file(
        "tcec-s26-frc-no-castling-bonus.pgn.zst",
    )));
    let packed = zstd::stream::encode_all(&plain[..], 3).expect("in memory");
    let cut_bytes = &packed[..packed.len() * 2 / 3];
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cut = write(dir.path(), "cut.pgn.zst", cut_bytes);

    let mut decodable = Vec::new();
    let mut decoder = zstd::stream::read::Decoder::new(cut_bytes).expect("a zstd decoder");
    let mut chunk = [0u8; 4096];
    while let Ok(n @ 1..) = decoder.read(&mut chunk) {
        decodable.extend_from_slice(&chunk[..n]);
    }
    assert!(
        decodable.len() < plain.len() && plain.starts_with(&decodable),
        "the cut ends the decoding early"
    );
    let starts = decodable
        .split(|&b| b == b'\n')
        .filter(|line| line.starts_with(b"[Event "))
        .count();
    assert!(starts > 300, "the cut comes after the first file's games");

    let mut firsts = Vec::new();
    for command in ["tag", "fix", "filter", "stats", "validate", "games"] {
        for threads in ["1", "2"] {
            let run = pgn960(&[command, "--threads", threads, &cut], None);
            assert_eq!(run.code, 2, "{command}: a damaged input is an error");
            let (first, _) = summary(&run.stderr, command);
            let counts = first.split_once(": ").expect("a colon").1.to_string();
            firsts.push((command, counts.replace(" checked:", " read:")));
        }
    }
    let expected = format!("{starts} games read:");
    for (command, counts) in &firsts {
        assert!(
            counts.starts_with(&expected),
            "{command}: {counts:?}, the decoder: {starts} games"
        );
        assert_eq!(counts, &firsts[0].1, "{command} and tag count alike");
    }
}

/// A rating outside any real range is no rating: it does not overflow the
/// Elo expectation, and it counts as absent.
#[test]
fn a_rating_out_of_range_is_no_rating() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = format!(
        "[Event \"x\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n[WhiteElo \"-2000000000\"]\n[BlackElo \"2000000000\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
         [Event \"y\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n[WhiteElo \"0\"]\n[BlackElo \"4001\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n"
    );
    let file = write(dir.path(), "elo.pgn", pgn.as_bytes());
    let stats = pgn960(&["stats", "-q", &file], None);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    let csv = String::from_utf8(stats.stdout).expect("UTF-8");
    let row: Vec<&str> = csv.lines().nth(1).expect("a row").split(',').collect();
    // avg_white_elo, avg_black_elo, expected_white_score: empty.
    assert_eq!(row[12..15], ["", "", ""], "{csv}");
    // white_elo_count .. both_rated: none rated.
    assert_eq!(row[15..20], ["0", "0", "0", "0", "0"], "{csv}");
    let min = pgn960(&["stats", "-q", "--min-elo", "1", &file], None);
    assert_eq!(
        String::from_utf8_lossy(&min.stdout).lines().count(),
        1,
        "no game is rated"
    );
}

/// Every spelling of Chess960 that is read as one is listed in the guide's
/// page on the kinds, and `variant_spelling` names the spellings common
/// readers accept.
#[test]
fn the_readme_lists_every_spelling_read_as_chess960() {
    let section = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/kinds.md"))
        .expect("docs/kinds.md");
    for name in pgn960::game::CHESS960_NAMES
        .iter()
        .chain(&pgn960::game::COMMON_SPELLINGS)
        .chain(&pgn960::game::STANDARD_NAMES)
    {
        assert!(
            section.contains(&format!("`{name}`")),
            "docs/kinds.md does not list `{name}`"
        );
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut pgn = Vec::new();
    for spelling in ["Fischer Random", "fischer random chess", "9 6 0"] {
        write!(
            pgn,
            "[Event \"{spelling}\"]\n[Variant \"{spelling}\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n\n*\n\n"
        )
        .expect("in memory");
    }
    let file = write(dir.path(), "spellings.pgn", &pgn);
    let run = pgn960(&["validate", "-q", &file], None);
    let report = String::from_utf8_lossy(&run.stdout);
    let notes: Vec<&str> = report
        .lines()
        .filter(|l| l.contains("variant_spelling"))
        .collect();
    // "Fischer Random" is one that common readers take.
    assert_eq!(notes.len(), 2, "{report}");
    assert!(notes[0].contains("\"\"Fischer Random\"\""), "{}", notes[0]);
    let tag = pgn960(&["tag", &file], None);
    assert!(
        summary(&tag.stderr, "tag").0.contains("3 chess960"),
        "{}",
        tag.stderr
    );
}

/// A file made immutable (`chattr +i`), made mutable again when this
/// goes, also when the test panics.
struct Immutable<'a>(&'a str);

impl Drop for Immutable<'_> {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .args(["-i", self.0])
            .status();
    }
}

/// A file `--in-place` cannot replace (with `--force`, as its immutable
/// flag makes it read-only) is named, not its temporary file, and its ids
/// are not counted as added.
#[test]
fn in_place_on_a_file_that_cannot_be_replaced_names_the_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = write(
        dir.path(),
        "fixed.pgn",
        &fs::read(testdata_file("sample.pgn")).expect("sample"),
    );
    // An immutable file (root can set the flag on ext4 and most file
    // systems); where that is not possible, say so and stop here.
    let set = std::process::Command::new("chattr")
        .args(["+i", &file])
        .status();
    if !set.is_ok_and(|s| s.success()) {
        say_skipped(
            "meaning::in_place_on_a_file_that_cannot_be_replaced_names_the_file",
            "chattr +i is not available here",
        );
        return;
    }
    // The flag goes again however this test ends, so that no immutable
    // file is left in the temporary folder.
    let immutable = Immutable(&file);
    // Without --force it is refused before it is read: no write permission.
    let refused = pgn960(&["tag", "--in-place", &file], None);
    let run = pgn960(&["tag", "--in-place", "--force", &file], None);
    drop(immutable);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("read-only"), "{}", refused.stderr);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let first = run.stderr.lines().next().expect("an error line");
    assert!(
        first.starts_with(&format!("pgn960: {file}: not rewritten, left as it was")),
        "{first}"
    );
    assert!(!first.contains("pgn960-tmp"), "{first}");
    assert!(run.stderr.contains("tagged 0 games"), "{}", run.stderr);
}

/// `validate --report INPUT` is refused without suggesting `tag`.
#[test]
fn a_refused_report_does_not_suggest_tag() {
    let sample = testdata_file("sample.pgn");
    let sample = sample.to_str().expect("UTF-8");
    let run = pgn960(&["validate", sample, "--report", sample], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("also an input"), "{}", run.stderr);
    assert!(!run.stderr.contains("--in-place"), "{}", run.stderr);
}

/// One game stays one game in `games`, `tag` and `filter`, through the
/// binary, on a file (mapped, split on two threads) and on standard input:
/// a comment line in a tag section, a tag line of 5 MiB, a byte-order mark
/// in the middle of a file (two files joined), and a game of more tags
/// than a game may hold at once.
#[test]
fn hard_boundaries_leave_one_game_one_game_in_every_command() {
    let fen959 = "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1";
    let long = "x".repeat(5 << 20);
    let many = "[Note \"abcdef\"]\n".repeat(140_000);
    let games: [(String, Option<u32>); 5] = [
        (
            format!(
                "[Event \"comment\"]\n[Variant \"Chess960\"]\n; exported by some GUI\n{{ and a brace comment }}\n[FEN \"{fen959}\"]\n[SetUp \"1\"]\n\n1. e4 *\n\n"
            ),
            Some(959),
        ),
        (
            format!(
                "[Event \"long\"]\n[Annotation \"{long}\"]\n[FEN \"{fen959}\"]\n[SetUp \"1\"]\n\n1. e4 *\n\n"
            ),
            Some(959),
        ),
        (
            format!("\u{feff}[Event \"B\"]\n[FEN \"{fen959}\"]\n[SetUp \"1\"]\n\n1. e4 *\n\n"),
            Some(959),
        ),
        (
            format!("[Event \"many\"]\n{many}[FEN \"{fen959}\"]\n\n1. e4 *\n\n"),
            None,
        ),
        ("[Event \"standard\"]\n\n1. e4 *\n".to_string(), None),
    ];
    let input: String = games.iter().map(|(game, _)| game.as_str()).collect();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = write(dir.path(), "hard.pgn", input.as_bytes());
    for (how, stdin) in [("a file", None), ("standard input", Some(input.as_bytes()))] {
        let source = if stdin.is_some() { "-" } else { file.as_str() };
        // games: one row a game, each where the game is.
        let run = pgn960(
            &["games", "-q", "--format", "csv", "--threads", "2", source],
            stdin,
        );
        assert_eq!(run.code, 0, "{how}: {}", run.stderr);
        let text = String::from_utf8(run.stdout).expect("UTF-8");
        let offsets: Vec<usize> = text
            .lines()
            .skip(1)
            .map(|row| {
                row.split(',')
                    .nth(2)
                    .expect("an offset")
                    .parse()
                    .expect("a number")
            })
            .collect();
        let mut expected = Vec::new();
        let mut at = 0;
        for (game, _) in &games {
            expected.push(at);
            at += game.len();
        }
        assert_eq!(offsets, expected, "{how}: games");
        // tag: each Chess960 game gets its one id, the others none.
        let run = pgn960(&["tag", "--threads", "2", source], stdin);
        assert_eq!(run.code, 0, "{how}: {}", run.stderr);
        let out = String::from_utf8(run.stdout).expect("UTF-8");
        assert_eq!(out.matches("[Chess960Id ").count(), 3, "{how}");
        assert_eq!(out.matches("[Chess960Id \"959\"]").count(), 3, "{how}");
        assert!(run.stderr.contains("5 games read"), "{how}: {}", run.stderr);
        // filter: the Chess960 games whole, and the rest whole.
        let run = pgn960(&["filter", "-q", "--position", "959", source], stdin);
        let selected: String = games
            .iter()
            .filter(|(_, id)| id.is_some())
            .map(|(game, _)| game.as_str())
            .collect();
        assert!(
            run.stdout == selected.as_bytes(),
            "{how}: filter --position 959"
        );
        let run = pgn960(
            &["filter", "-q", "--position", "959", "--invert", source],
            stdin,
        );
        let others: String = games
            .iter()
            .filter(|(_, id)| id.is_none())
            .map(|(game, _)| game.as_str())
            .collect();
        assert!(run.stdout == others.as_bytes(), "{how}: filter --invert");
    }
}

/// A start recorded only as a number (`Chess960Id`) or a back rank in
/// `Opening` (CCRL's `[Opening "NBRKQRBN"]`), with no `FEN`, is unknown in
/// every command: `tag` keeps the record, `stats` and `filter --position`
/// leave the game out, `validate` reports `fen_missing`, and `fix` adds
/// the FEN of the recorded start. The FENs are python-chess's
/// (`chess.Board.from_chess960_pos(431)`, `(348)`), not this crate's.
#[test]
fn a_start_recorded_without_a_fen_is_unknown_in_every_command() {
    const FEN_431: &str = "rnqnkrbb/pppppppp/8/8/8/8/PPPPPPPP/RNQNKRBB w KQkq - 0 1";
    const FEN_348: &str = "nbrkqrbn/pppppppp/8/8/8/8/PPPPPPPP/NBRKQRBN w KQkq - 0 1";
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = "[Event \"TCEC\"]\n[Variant \"Chess960\"]\n[Chess960Id \"431\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
               [Event \"CCRL\"]\n[Variant \"Chess960\"]\n[Opening \"NBRKQRBN\"]\n[Result \"0-1\"]\n\n1. e4 e5 0-1\n\n\
               [Event \"No variant\"]\n[Chess960Id \"431\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 1/2-1/2\n\n\
               [Event \"On 518\"]\n[Variant \"Chess960\"]\n[Chess960Id \"518\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n";
    let file = write(dir.path(), "recorded.pgn", pgn.as_bytes());

    // tag: the records stay as they are; the three games are unreadable.
    let tag = pgn960(&["tag", &file], None);
    assert_eq!(tag.code, 0, "{}", tag.stderr);
    assert_eq!(
        String::from_utf8_lossy(&tag.stdout),
        pgn,
        "tag keeps every recorded id"
    );
    let (first, _) = summary(&tag.stderr, "tag");
    assert!(
        first.ends_with("1 chess960, 0 standard, 0 dfrc, 0 other, 3 unreadable"),
        "{first}"
    );

    // stats: only the game on 518 is counted, under 518.
    let stats = pgn960(&["stats", "-q", &file], None);
    assert_eq!(stats.code, 0, "{}", stats.stderr);
    let csv = String::from_utf8(stats.stdout).expect("UTF-8");
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{csv}");
    assert!(rows[0].starts_with("518,"), "{csv}");
    let games = rows[0].split(',').nth(3).expect("a games column");
    assert_eq!(games, "1", "{csv}");

    // filter --position: neither 518 nor the recorded number selects them.
    for (spec, expected) in [("518", 1), ("431", 0), ("348", 0)] {
        let run = pgn960(&["filter", "-q", "--position", spec, &file], None);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let text = String::from_utf8_lossy(&run.stdout).into_owned();
        assert_eq!(text.matches("[Event ").count(), expected, "{spec}: {text}");
    }
    let run = pgn960(&["filter", "-q", "--kind", "unreadable", &file], None);
    assert_eq!(
        String::from_utf8_lossy(&run.stdout)
            .matches("[Event ")
            .count(),
        3
    );

    // validate: fen_missing on the line of each record, nothing else.
    let validate = pgn960(&["validate", "-q", &file], None);
    assert_eq!(validate.code, 1, "{}", validate.stderr);
    let report = String::from_utf8(validate.stdout).expect("UTF-8");
    let found: Vec<(&str, &str, &str)> = report
        .lines()
        .skip(1)
        .map(|line| {
            let mut fields = line.split(',');
            let _file = fields.next();
            let game = fields.next().expect("game");
            let line = fields.next().expect("line");
            let _severity = fields.next();
            (game, line, fields.next().expect("code"))
        })
        .collect();
    assert_eq!(
        found,
        [
            ("1", "3", "fen_missing"),
            ("2", "10", "fen_missing"),
            ("3", "16", "fen_missing")
        ],
        "{report}"
    );

    // fix: the FEN of the recorded start, each repair named fen_missing.
    let report = dir.path().join("repairs.csv");
    let fix = pgn960(
        &[
            "fix",
            "-q",
            &file,
            "--report",
            report.to_str().expect("UTF-8"),
        ],
        None,
    );
    assert_eq!(fix.code, 0, "{}", fix.stderr);
    let fixed = String::from_utf8(fix.stdout).expect("UTF-8");
    let games: Vec<&str> = fixed.split("[Event ").skip(1).collect();
    assert!(
        games[0].contains(&format!("[FEN \"{FEN_431}\"]")),
        "{fixed}"
    );
    assert!(
        games[1].contains(&format!("[FEN \"{FEN_348}\"]")),
        "{fixed}"
    );
    assert!(
        games[2].contains(&format!("[FEN \"{FEN_431}\"]")),
        "{fixed}"
    );
    assert!(!games[3].contains("[FEN "), "{fixed}");
    let rows = fs::read_to_string(&report).expect("the report");
    assert!(
        rows.lines()
            .skip(1)
            .filter(|row| row.contains(",FEN,"))
            .all(|row| row.contains(",fen_missing,fixed,")),
        "{rows}"
    );
    assert_eq!(rows.matches(",FEN,").count(), 3, "{rows}");
}

/// An id with blanks around its number: `tag` rewrites it (and `tag
/// --check` exits 1), so `validate` reports it and `fix` repairs it.
#[test]
fn a_padded_id_is_wrong_in_every_command() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let game = |id: &str| {
        format!(
            "[Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n[Chess960Id \"{id}\"]\n\n1. e4 *\n"
        )
    };
    let file = write(dir.path(), "padded.pgn", game(" 0 ").as_bytes());
    let tag = pgn960(&["tag", "-q", &file], None);
    assert_eq!(String::from_utf8_lossy(&tag.stdout), game("0"), "tag");
    assert_eq!(pgn960(&["tag", "-q", "--check", &file], None).code, 1);
    let validate = pgn960(&["validate", "-q", &file], None);
    assert_eq!(validate.code, 1, "an error: {}", validate.stderr);
    let report = String::from_utf8_lossy(&validate.stdout).into_owned();
    assert!(
        report.contains(",id_malformed,") && report.contains("blanks around its number"),
        "{report}"
    );
    assert_eq!(pgn960(&["fix", "-q", "--check", &file], None).code, 1);
    let fix = pgn960(&["fix", "-q", &file], None);
    assert_eq!(String::from_utf8_lossy(&fix.stdout), game("0"), "fix");
    // Written as `tag` writes it, the id is right in every command.
    let right = write(dir.path(), "right.pgn", game("0").as_bytes());
    for check in [
        vec!["tag", "-q", "--check", &right],
        vec!["validate", "-q", "--strict", &right],
        vec!["fix", "-q", "--check", &right],
    ] {
        assert_eq!(pgn960(&check, None).code, 0, "{check:?}");
    }
}

/// `fix` repairs what `validate` reports: a file `validate --strict`
/// passes needs no repair (`fix --check` exits 0), whatever Chess960
/// spelling it keeps; a spelling readers reject is repaired, under the
/// code `validate` gives it; `--variant-name keep` keeps every spelling,
/// and `--variant-name NAME` rewrites every other one, as its own repair.
#[test]
fn fix_repairs_what_validate_reports() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // The TCEC archive spells its Variant `fischerandom`; once tagged,
    // validate finds nothing and fix has nothing to do.
    let tcec = sample_file("tcec-s16-frc-sufi.pgn.zst");
    let tagged = pgn960(&["tag", "-q", tcec.to_str().expect("UTF-8")], None).ok("tag");
    assert!(String::from_utf8_lossy(&tagged).contains("[Variant \"fischerandom\"]"));
    let tagged = write(dir.path(), "tcec.pgn", &tagged);
    let validate = pgn960(&["validate", "-q", "--strict", &tagged], None);
    assert_eq!(validate.code, 0, "validate --strict");
    let fix = pgn960(&["fix", "--check", &tagged], None);
    assert_eq!(fix.code, 0, "fix --check: {}", fix.stderr);

    let game = |variant: &str| {
        format!(
            "[Event \"x\"]\n[Variant \"{variant}\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n[Chess960Id \"0\"]\n\n1. e4 *\n"
        )
    };
    let input = [game("FRC"), game("Fischerandom"), game("Chess960")].concat();
    let file = write(dir.path(), "spellings.pgn", input.as_bytes());
    let validate = pgn960(&["validate", "-q", &file], None);
    let codes: Vec<String> = String::from_utf8_lossy(&validate.stdout)
        .lines()
        .skip(1)
        .map(|row| row.split(',').nth(4).unwrap_or("").to_string())
        .collect();
    assert_eq!(codes, ["variant_spelling"], "only FRC is reported");
    let report = dir.path().join("repairs.csv");
    let report = report.to_str().expect("UTF-8");
    let fixed = pgn960(&["fix", "-q", "--report", report, &file], None).ok("fix");
    let expected = [game("Chess960"), game("Fischerandom"), game("Chess960")].concat();
    assert_eq!(String::from_utf8_lossy(&fixed), expected, "fix");
    let rows = fs::read_to_string(report).expect("a report");
    assert_eq!(
        rows.lines().skip(1).collect::<Vec<_>>(),
        [format!(
            "{file},1,2,variant_spelling,fixed,Variant,FRC,Chess960"
        )]
    );
    // keep: nothing is rewritten; FRC is left, as validate reports it.
    let kept = pgn960(&["fix", "--variant-name", "keep", &file], None);
    assert_eq!(String::from_utf8_lossy(&kept.stdout), input, "keep");
    assert!(
        kept.stderr.contains("left    variant_spelling         1"),
        "{}",
        kept.stderr
    );
    // A name asked for: every other spelling, each under its own code.
    let renamed = pgn960(
        &[
            "fix",
            "-q",
            "--variant-name",
            "Chess960",
            "--report",
            report,
            &file,
        ],
        None,
    );
    assert_eq!(
        String::from_utf8_lossy(&renamed.stdout),
        game("Chess960").repeat(3)
    );
    let rows = fs::read_to_string(report).expect("a report");
    assert_eq!(
        rows.lines().skip(1).collect::<Vec<_>>(),
        [
            format!("{file},1,2,variant_spelling,fixed,Variant,FRC,Chess960"),
            format!("{file},2,9,variant_name,fixed,Variant,Fischerandom,Chess960"),
        ]
    );
}

/// A tag the commands read, given twice: `validate` reports the second
/// (a doubled `Chess960Id`, two `FEN` tags as the Vegas broadcast has,
/// names compared ignoring case), and `fix` counts it as left; a tag no
/// command reads may repeat.
#[test]
fn a_repeated_tag_is_reported() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = format!(
        "[Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n[Chess960Id \"0\"]\n[CHESS960ID \"0\"]\n[Annotator \"a\"]\n[Annotator \"b\"]\n\n1. e4 *\n"
    );
    let file = write(dir.path(), "doubled.pgn", pgn.as_bytes());
    let validate = pgn960(&["validate", "-q", &file], None);
    assert_eq!(validate.code, 0, "a warning: {}", validate.stderr);
    let report = String::from_utf8_lossy(&validate.stdout).into_owned();
    let rows: Vec<&str> = report.lines().skip(1).collect();
    assert_eq!(
        rows,
        [format!(
            "{file},1,6,warning,tag_repeated,a second CHESS960ID tag: readers keep one or the other"
        )],
        "{report}"
    );
    assert_eq!(pgn960(&["validate", "-q", "--strict", &file], None).code, 1);
    // fix leaves one id tag, as tag does; Annotator is no tag the
    // commands read, and both stay.
    let fix = pgn960(&["fix", &file], None);
    assert!(
        fix.stderr.contains("fixed   tag_repeated             1"),
        "{}",
        fix.stderr
    );
    let fixed = String::from_utf8_lossy(&fix.stdout).into_owned();
    let lines = |prefix: &str| {
        fixed
            .lines()
            .filter(|line| line.to_ascii_lowercase().starts_with(prefix))
            .count()
    };
    assert_eq!(
        (lines("[chess960id "), lines("[annotator ")),
        (1, 2),
        "{fixed}"
    );
    let vegas = sample_file("freestyle-vegas-broadcast.pgn");
    let validate = pgn960(&["validate", "-q", vegas.to_str().expect("UTF-8")], None);
    let repeated = String::from_utf8_lossy(&validate.stdout)
        .lines()
        .filter(|row| row.contains(",tag_repeated,a second FEN tag"))
        .count();
    assert_eq!(repeated, 4, "one in each game");
}

/// A `)` or `}` that closes nothing in the mainline is reported, once a
/// game, where it is; brackets that close what they open are not.
#[test]
fn stray_closing_brackets_are_reported() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = "[Event \"paren\"]\n\n1. e4\n))))}}}} e5 *\n\n\
               [Event \"brace\"]\n\n1. e4 e5 } 2. Nf3 *\n\n\
               [Event \"balanced\"]\n\n1. e4 {a} (1. d4 {b} (1. c4)) e5 ; c)\n2. Nf3 *\n";
    let file = write(dir.path(), "stray.pgn", pgn.as_bytes());
    let validate = pgn960(&["validate", "-q", &file], None);
    assert_eq!(validate.code, 0, "warnings: {}", validate.stderr);
    let report = String::from_utf8_lossy(&validate.stdout).into_owned();
    let rows: Vec<&str> = report.lines().skip(1).collect();
    assert_eq!(
        rows,
        [
            format!(
                "{file},1,4,warning,stray_bracket,a `)` that closes no variation: readers stop here or skip it"
            ),
            format!(
                "{file},2,8,warning,stray_bracket,a `}}` that closes no comment: readers stop here or skip it"
            ),
        ],
        "{report}"
    );
}

/// `tag` leaves one id tag of each name: a repeat alone on its line goes
/// (the first is kept, rewritten when wrong), as `strip_ids` allows; a
/// repeat sharing its line with another tag is only rewritten. Tagging
/// again changes nothing, and `validate` then finds no repeat.
#[test]
fn tag_leaves_one_id_tag() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = format!(
        "[Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n\
         [Chess960Id \"5\"]\n[Chess960Id \"0\"]\n[CHESS960ID \"7\"]\n\n1. e4 *\n\n\
         [Event \"y\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n\
         [Chess960Id \"0\"]\n[Site \"s\"] [Chess960Id \"0\"]\n\n1. e4 *\n"
    );
    let file = write(dir.path(), "doubled.pgn", pgn.as_bytes());
    let run = pgn960(&["tag", &file], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = String::from_utf8(run.stdout).expect("UTF-8");
    assert_eq!(
        out,
        format!(
            "[Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n\
             [Chess960Id \"0\"]\n\n1. e4 *\n\n\
             [Event \"y\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0} w KQkq - 0 1\"]\n\
             [Chess960Id \"0\"]\n[Site \"s\"] [Chess960Id \"0\"]\n\n1. e4 *\n"
        )
    );
    assert!(
        run.stderr.contains(
            "0 id tags added, 1 rewritten, 2 already right\n  2 repeated id tags removed"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(
        pgn960::tag::strip_ids(out.as_bytes()),
        pgn960::tag::strip_ids(pgn.as_bytes()),
        "only id lines change"
    );
    let again = pgn960(&["tag", "--check", "-q", "-"], Some(out.as_bytes()));
    assert_eq!(
        again.code, 0,
        "tagging twice changes nothing: {}",
        again.stderr
    );
    let tagged = write(dir.path(), "tagged.pgn", out.as_bytes());
    let validate = pgn960(&["validate", "-q", &tagged], None);
    let report = String::from_utf8_lossy(&validate.stdout).into_owned();
    let repeats: Vec<&str> = report
        .lines()
        .filter(|r| r.contains("tag_repeated"))
        .collect();
    assert_eq!(
        repeats.len(),
        1,
        "only the repeat sharing its line: {report}"
    );
}
