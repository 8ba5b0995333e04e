//! `pgn960 validate` run as a user would run it.
//!
//! Every code of the table has two fixtures under `testdata/validate/`,
//! named after it: `CODE.pgn`, where exactly the planted problems are
//! reported (code, severity, game and line, each line counted by hand and
//! noted in [`PLANTED`]), and `CODE.ok.pgn`, near misses that draw no
//! finding at all. The real samples in `testdata/real/` (and the whole
//! corpus, when it is there) then check what fixtures cannot: that engine
//! games replay legally, that no file in the wild makes the tool panic, and
//! that the report does not depend on the thread count.
//!
//! Tests marked `#[ignore]` pin behaviour the issue asks for and the tool
//! does not have yet; each names the bug. `cargo test --test tests validate
//! -- --ignored` runs them.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use pgn960::validate::Code;
use serde::Deserialize;

use crate::common::{corpus_or_skip, read_pgn, sample_file, sample_files, samples_dir};

/// What one run of the binary printed.
struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

impl Run {
    fn rows(&self) -> Vec<Row> {
        parse_csv(&self.stdout)
    }
}

fn pgn960_with_stdin(args: &[&str], stdin: &[u8]) -> Run {
    let output = Command::cargo_bin("pgn960")
        .expect("the pgn960 binary is built")
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("pgn960 runs");
    let run = Run {
        code: output.status.code().expect("pgn960 exits, not killed"),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "pgn960 {args:?} panicked:\n{}",
        run.stderr
    );
    run
}

/// Runs `pgn960 validate ARGS`.
fn validate(args: &[&str]) -> Run {
    let mut all = vec!["validate"];
    all.extend_from_slice(args);
    pgn960_with_stdin(&all, b"")
}

/// Runs `pgn960 validate -q ARGS` on `stdin`.
fn validate_stdin(args: &[&str], stdin: &[u8]) -> Run {
    let mut all = vec!["validate", "-q"];
    all.extend_from_slice(args);
    pgn960_with_stdin(&all, stdin)
}

/// One finding of a report.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
struct Row {
    file: String,
    game: u64,
    line: u64,
    severity: String,
    code: String,
    message: String,
}

fn parse_csv(bytes: &[u8]) -> Vec<Row> {
    csv::Reader::from_reader(bytes)
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|err| {
            panic!(
                "the report is CSV with the six columns ({err}):\n{}",
                String::from_utf8_lossy(bytes)
            )
        })
}

/// `(game, line, code)` of each row, in report order.
fn places(rows: &[Row]) -> Vec<(u64, u64, &str)> {
    rows.iter()
        .map(|r| (r.game, r.line, r.code.as_str()))
        .collect()
}

fn report_text(rows: &[Row]) -> String {
    rows.iter()
        .map(|r| {
            format!(
                "  {},{},{},{}: {}\n",
                r.game, r.line, r.severity, r.code, r.message
            )
        })
        .collect()
}

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/validate")
        .join(name)
}

fn fixture(name: &str) -> String {
    path_str(&fixture_path(name)).to_string()
}

/// A real sample, by its path below `testdata/real/`.
fn sample(relative: &str) -> String {
    path_str(&sample_file(relative)).to_string()
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

/// Every code with its severity, as the issue lists them, and those the
/// implementation adds (`position_illegal`, `moves_after_result`,
/// `game_too_long`, `tag_section_too_long`, and issue 39's
/// `stray_bracket`, `tag_repeated`).
const SEVERITIES: &[(&str, &str)] = &[
    ("fen_unparsable", "error"),
    ("fen_conflict", "error"),
    ("position_illegal", "error"),
    ("setup_without_fen", "error"),
    ("fen_missing", "error"),
    ("illegal_back_rank", "error"),
    ("castling_rights_invalid", "error"),
    ("id_mismatch", "error"),
    ("id_malformed", "error"),
    ("illegal_move", "error"),
    ("unterminated", "error"),
    ("tag_section_too_long", "error"),
    ("variant_missing", "warning"),
    ("variant_mismatch", "warning"),
    ("fen_without_setup", "warning"),
    ("fen_incomplete", "warning"),
    ("double_frc", "warning"),
    ("castling_rights_partial", "warning"),
    ("castling_rights_none", "warning"),
    ("start_not_white_to_move", "warning"),
    ("start_clock_not_initial", "warning"),
    ("result_mismatch", "warning"),
    ("stray_bracket", "warning"),
    ("moves_after_result", "warning"),
    ("tag_repeated", "warning"),
    ("game_too_long", "warning"),
    ("variant_spelling", "info"),
];

fn severity_of(code: &str) -> &'static str {
    SEVERITIES
        .iter()
        .find(|(name, _)| *name == code)
        .unwrap_or_else(|| panic!("{code} is not a code of the issue"))
        .1
}

/// A finding where a test expects it: `(game, line, code)`.
type Place = (u64, u64, &'static str);

/// The positive fixtures: the file (under `testdata/validate/`) and every
/// finding it must draw, `(game, line, code)`, in report order. The lines
/// were counted by hand in the fixture; the comment says what each points
/// at.
const PLANTED: &[(&str, &[Place])] = &[
    // Gzip-compressed: the game's 17 MiB comment packs into 43 KB.
    ("game_too_long.pgn.gz", &[(1, 1, "game_too_long")]), // its first tag
    // Gzip-compressed too: 140,004 tags, then a tag line of 17 MiB.
    (
        "tag_section_too_long.pgn.gz",
        &[
            (1, 1, "tag_section_too_long"),       // its first tag
            (2, 140_008, "tag_section_too_long"), // its first tag
        ],
    ),
    (
        "fen_unparsable.pgn",
        &[
            (1, 4, "fen_unparsable"),  // the FEN tag: seven ranks
            (2, 12, "fen_unparsable"), // a first rank of seven squares
            (3, 20, "fen_unparsable"), // an X among the pieces
        ],
    ),
    (
        "fen_incomplete.pgn",
        &[
            (1, 4, "fen_incomplete"),  // the board part alone
            (2, 13, "fen_incomplete"), // and the side to move
            (3, 21, "fen_incomplete"), // no en passant field, no clocks
        ],
    ),
    (
        "fen_conflict.pgn",
        &[
            (1, 5, "fen_conflict"),  // the second FEN tag
            (1, 5, "tag_repeated"),  // which is a second FEN tag too
            (2, 14, "tag_repeated"), // the second, which agrees
            (2, 15, "fen_conflict"), // the third, after two that agree
            (2, 15, "tag_repeated"),
        ],
    ),
    (
        "position_illegal.pgn",
        &[
            (1, 3, "position_illegal"),  // the FEN tag: no white king
            (2, 10, "position_illegal"), // Black in check, White to move
        ],
    ),
    ("setup_without_fen.pgn", &[(1, 2, "setup_without_fen")]), // the SetUp tag
    (
        "fen_missing.pgn",
        &[
            (1, 3, "fen_missing"),        // Chess960Id 431, no FEN
            (2, 10, "fen_missing"),       // Opening NBRKQRBN (CCRL), no FEN
            (3, 16, "fen_missing"),       // Chess960Id 0, no Variant, no FEN
            (4, 23, "fen_missing"),       // the first id tag: Fritz9 81 says 0, Opening 518
            (5, 31, "setup_without_fen"), // SetUp "1" ...
            (5, 32, "fen_missing"),       // ... and the start as Chess960Id 431
        ],
    ),
    (
        "illegal_back_rank.pgn",
        &[
            (1, 4, "illegal_back_rank"),  // the FEN tag; both kings outside
            (2, 12, "illegal_back_rank"), // only White's king outside
        ],
    ),
    (
        "castling_rights_invalid.pgn",
        &[
            (1, 4, "castling_rights_invalid"),  // HAhf: no rook on a1
            (2, 11, "castling_rights_invalid"), // k and q, Black's king on e7
            (3, 19, "castling_rights_invalid"), // KQkqX
        ],
    ),
    (
        "id_mismatch.pgn",
        &[
            (1, 5, "id_mismatch"),  // the Chess960Id tag: 1 for 0
            (2, 13, "id_mismatch"), // 0 for the standard array's FEN, 518
            (3, 22, "id_mismatch"), // Chess960Fritz9Id 80 for 81
        ],
    ),
    (
        "id_malformed.pgn",
        &[
            (1, 5, "id_malformed"),  // the Chess960Id tag: "abc"
            (2, 14, "id_malformed"), // "960"
            (3, 22, "id_malformed"), // an id on a king-and-rook ending
            (4, 30, "double_frc"),   // the FEN tag of a Double FRC game ...
            (4, 31, "id_malformed"), // ... which no Chess960Id fits
        ],
    ),
    (
        "illegal_move.pgn",
        &[
            (1, 4, "illegal_move"),  // 2. Ke3
            (2, 9, "illegal_move"),  // 4. Nb5, two knights can go there
            (3, 14, "illegal_move"), // 2... pawn
            (4, 22, "illegal_move"), // 1. O-O onto the f1 rook in start array 0
            (5, 30, "illegal_move"), // 5. Bxc6 on the fourth movetext line
        ],
    ),
    // The line of an unterminated comment or variation is not checked
    // here: see `unterminated_points_at_what_was_left_open`.
    ("unterminated.pgn", &[(2, 0, "unterminated")]),
    ("unterminated.variation.pgn", &[(2, 0, "unterminated")]),
    ("unterminated.tag.pgn", &[(2, 7, "unterminated")]), // the cut tag
    ("unterminated.result.pgn", &[(2, 6, "unterminated")]), // the game's first tag
    // The `(` still open when the next game's tags begin.
    ("unterminated.next_game.pgn", &[(1, 4, "unterminated")]),
    (
        "variant_missing.pgn",
        &[
            (1, 1, "variant_missing"), // no Variant tag: the game's first line
            (2, 9, "variant_missing"),
        ],
    ),
    (
        "variant_mismatch.pgn",
        &[
            (1, 2, "variant_mismatch"),  // the Variant tag: Standard
            (2, 10, "variant_mismatch"), // From Position
        ],
    ),
    (
        "fen_without_setup.pgn",
        &[
            (1, 3, "fen_without_setup"),  // the FEN tag, no SetUp at all
            (2, 11, "fen_without_setup"), // the FEN tag, SetUp "0"
        ],
    ),
    ("double_frc.pgn", &[(1, 4, "double_frc")]), // the FEN tag
    (
        "castling_rights_partial.pgn",
        &[
            (1, 4, "castling_rights_partial"),  // the FEN tag: Kk
            (2, 12, "castling_rights_partial"), // HFh
        ],
    ),
    (
        "castling_rights_none.pgn",
        &[(1, 4, "castling_rights_none")],
    ),
    (
        "start_not_white_to_move.pgn",
        &[(1, 4, "start_not_white_to_move")],
    ),
    (
        "start_clock_not_initial.pgn",
        &[
            (1, 4, "start_clock_not_initial"),  // move number 5
            (2, 12, "start_clock_not_initial"), // halfmove clock 3
        ],
    ),
    (
        "result_mismatch.pgn",
        &[
            (1, 2, "result_mismatch"),  // the Result tag: mate scored 1-0
            (2, 7, "result_mismatch"),  // stalemate scored 1-0
            (3, 16, "result_mismatch"), // a 960 mate scored as a draw
        ],
    ),
    (
        "moves_after_result.pgn",
        &[(1, 6, "moves_after_result")], // the tagless game after the result
    ),
    (
        "stray_bracket.pgn",
        &[
            (1, 4, "stray_bracket"),  // `1. e4 ) e5`
            (2, 10, "stray_bracket"), // `2. Nf3 } Nc6 }`: the first brace only
        ],
    ),
    (
        "tag_repeated.pgn",
        &[
            (1, 6, "tag_repeated"),  // the second Chess960Id
            (2, 15, "tag_repeated"), // the second FEN (the same board)
            (3, 23, "tag_repeated"), // White after white
        ],
    ),
    (
        "variant_spelling.pgn",
        &[
            (1, 2, "variant_spelling"),  // the Variant tag: FRC
            (2, 10, "variant_spelling"), // chess-960
            (3, 18, "variant_spelling"), // 960
        ],
    ),
];

/// Line 0 in [`PLANTED`] means "not checked".
fn same_places(found: &[(u64, u64, &str)], expected: &[(u64, u64, &str)]) -> bool {
    found.len() == expected.len()
        && found
            .iter()
            .zip(expected)
            .all(|(f, e)| f.0 == e.0 && f.2 == e.2 && (e.1 == 0 || f.1 == e.1))
}

#[test]
fn severities_are_the_issues() {
    let names: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
    let listed: Vec<&str> = SEVERITIES.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, listed, "the codes, in report order");
    for code in Code::ALL {
        assert_eq!(
            code.severity().as_str(),
            severity_of(code.name()),
            "{}",
            code.name()
        );
    }
}

#[test]
fn every_code_has_a_positive_and_a_negative_fixture() {
    for code in Code::ALL {
        let name = code.name();
        // A positive fixture too large for the repository is compressed.
        let positive = [format!("{name}.pgn"), format!("{name}.pgn.gz")]
            .into_iter()
            .find(|file| fixture_path(file).is_file())
            .unwrap_or_else(|| panic!("no fixture {name}.pgn"));
        let negative = format!("{name}.ok.pgn");
        assert!(fixture_path(&negative).is_file(), "no fixture {negative}");
        assert!(
            PLANTED
                .iter()
                .any(|(file, expected)| *file == positive
                    && expected.iter().any(|(_, _, c)| *c == name)),
            "{positive} is not in PLANTED"
        );
    }
}

#[test]
fn planted_problems_are_reported_exactly() {
    let mut failures = String::new();
    for (file, expected) in PLANTED {
        let run = validate(&["-q", &fixture(file)]);
        let rows = run.rows();
        if !same_places(&places(&rows), expected) {
            failures.push_str(&format!(
                "{file}: expected {expected:?}, found\n{}",
                report_text(&rows)
            ));
        }
        for row in &rows {
            assert_eq!(row.file, fixture(file), "file column");
            assert_eq!(row.severity, severity_of(&row.code), "{file}: {row:?}");
        }
        let error = rows.iter().any(|r| r.severity == "error");
        assert_eq!(run.code, i32::from(error), "{file}: exit code");
    }
    assert!(failures.is_empty(), "{failures}");
}

#[test]
fn near_misses_draw_no_finding() {
    let mut failures = String::new();
    for code in Code::ALL {
        let file = format!("{}.ok.pgn", code.name());
        let run = validate(&["-q", &fixture(&file)]);
        let rows = run.rows();
        // FENs that agree are no conflict, but each FEN after the first
        // is a repeated tag (one a game, on lines 5 and 15).
        let expected: &[Place] = match code.name() {
            "fen_conflict" => &[(1, 5, "tag_repeated"), (2, 15, "tag_repeated")],
            _ => &[],
        };
        if !same_places(&places(&rows), expected) {
            failures.push_str(&format!("{file}:\n{}", report_text(&rows)));
        }
        assert_eq!(run.code, 0, "{file}: exit code");
    }
    assert!(failures.is_empty(), "{failures}");
}

/// `(game, message)` of every finding of `code` in a fixture.
fn messages(file: &str, code: &str) -> Vec<(u64, String)> {
    validate(&["-q", &fixture(file)])
        .rows()
        .into_iter()
        .filter(|r| r.code == code)
        .map(|r| (r.game, r.message))
        .collect()
}

#[test]
fn illegal_move_message_gives_ply_move_kind_and_position() {
    // Each FEN was worked out by hand from the moves before the bad one.
    let expected = [
        (
            "ply 3",
            "Ke3",
            "illegal",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        ),
        (
            "ply 7",
            "Nb5",
            "ambiguous",
            "rnbqkbnr/ppp2ppp/8/3p4/3Np3/2N5/PPPPPPPP/R1BQKB1R w KQkq - 0 4",
        ),
        (
            "ply 4",
            "pawn",
            "unreadable",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        ),
        (
            "ply 1",
            "O-O",
            "illegal",
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
        ),
        (
            "ply 9",
            "Bxc6",
            "illegal",
            "r1bqkbnr/1pp2ppp/p1p5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5",
        ),
    ];
    let found = messages("illegal_move.pgn", "illegal_move");
    assert_eq!(found.len(), expected.len(), "{found:?}");
    for ((_, message), (ply, mv, kind, fen)) in found.iter().zip(expected) {
        for part in [ply, mv, kind, fen] {
            assert!(message.contains(part), "{part:?} not in {message:?}");
        }
    }
}

/// `(code, message)` of every finding in `pgn` given on standard input.
fn findings_of(pgn: &str) -> Vec<(String, String)> {
    validate_stdin(&[], pgn.as_bytes())
        .rows()
        .into_iter()
        .map(|r| (r.code, r.message))
        .collect()
}

#[test]
fn an_id_on_a_game_without_a_chess960_start_says_which_start_it_has() {
    let game = |fen: &str| {
        format!(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen} w KQkq - 0 1\"]\n[Chess960Id \"5\"]\n\n1. e4 *\n"
        )
    };
    let double = findings_of(&game("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"));
    assert!(
        double.contains(&(
            "id_malformed".into(),
            "Chess960Id 5 on a Double FRC game".into()
        )),
        "{double:?}"
    );
    let none = findings_of(&game("rrbqkbnn/pppppppp/8/8/8/8/PPPPPPPP/RRBQKBNN"));
    assert!(
        none.contains(&(
            "id_malformed".into(),
            "Chess960Id 5 on a game with no Chess960 start array".into()
        )),
        "{none:?}"
    );
}

#[test]
fn a_result_inside_a_variation_does_not_end_the_last_game() {
    let unterminated = findings_of("[Event \"x\"]\n\n1. e4 e5 (1... c5 1-0)\n");
    assert_eq!(
        unterminated,
        [(
            "unterminated".to_string(),
            "the input ends before the game's result".to_string()
        )]
    );
    assert_eq!(
        findings_of("[Event \"x\"]\n\n1. e4 e5 (1... c5 1-0) 1-0\n"),
        []
    );
}

/// Moves are replayed only where they mean chess moves, and only when asked.
#[test]
fn moves_are_replayed_for_chess_only_and_not_with_no_moves() {
    let moves = "1. e4 d5 2. exd5 Qxd5 3. N@f3 *";
    let crazyhouse = format!("[Event \"x\"]\n[Variant \"Crazyhouse\"]\n\n{moves}\n");
    assert_eq!(findings_of(&crazyhouse), []);
    let with_fen = format!(
        "[Event \"x\"]\n[Variant \"Crazyhouse\"]\n[SetUp \"1\"]\n\
         [FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1\"]\n\n{moves}\n"
    );
    assert_eq!(findings_of(&with_fen), []);
    let set_up =
        "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. Rh9 *\n";
    let codes: Vec<String> = findings_of(set_up)
        .into_iter()
        .map(|(code, _)| code)
        .collect();
    assert_eq!(codes, ["illegal_move"]);
    let no_moves = validate_stdin(&["--no-moves"], set_up.as_bytes()).rows();
    assert!(no_moves.is_empty(), "{no_moves:?}");
    // A FEN that does not read says nothing of the moves: `Ne3` is legal
    // from array 0 (BBQNNRKR), but no replay, from there or from the
    // standard array, may be reported.
    let unreadable_fen = "[Event \"x\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
        [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR x KQkq - 0 1\"]\n\n1. Ne3 *\n";
    let codes: Vec<String> = findings_of(unreadable_fen)
        .into_iter()
        .map(|(code, _)| code)
        .collect();
    assert_eq!(codes, ["fen_unparsable"]);
}

#[test]
fn illegal_back_rank_message_names_the_rule() {
    let main = messages("illegal_back_rank.pgn", "illegal_back_rank");
    let rules = messages("illegal_back_rank.rules.pgn", "illegal_back_rank");
    let expected = [
        (&main[0].1, "king not between the rooks", true),
        (&main[1].1, "king not between the rooks", false),
        (&rules[0].1, "bishops on squares of the same colour", true),
        (&rules[1].1, "wrong pieces", true),
    ];
    for (message, rule, both) in expected {
        assert!(message.contains(rule), "{rule:?} not in {message:?}");
        assert!(message.contains("white:"), "{message:?}");
        assert_eq!(message.contains("black:"), both, "{message:?}");
    }
}

#[test]
fn other_messages_carry_what_a_user_needs() {
    let conflict = messages("fen_conflict.pgn", "fen_conflict");
    assert!(conflict[0].1.contains("line 4"), "{conflict:?}");
    let id = messages("id_mismatch.pgn", "id_mismatch");
    assert!(
        id[0].1.contains("is 1,") && id[0].1.contains("number 0"),
        "{id:?}"
    );
    assert!(id[1].1.contains("518"), "{id:?}");
    let double = messages("double_frc.pgn", "double_frc");
    assert!(
        double[0].1.contains("(0)") && double[0].1.contains("(741)"),
        "{double:?}"
    );
    let setup = messages("fen_without_setup.pgn", "fen_without_setup");
    assert!(setup[1].1.contains("\"0\""), "{setup:?}");
    let result = messages("result_mismatch.pgn", "result_mismatch");
    assert!(
        result[0].1.contains("checkmate") && result[0].1.contains("0-1"),
        "{result:?}"
    );
    assert!(result[1].1.contains("stalemate"), "{result:?}");
    let unterminated = messages("unterminated.pgn", "unterminated");
    assert!(unterminated[0].1.contains("comment"), "{unterminated:?}");
    let unterminated = messages("unterminated.variation.pgn", "unterminated");
    assert!(unterminated[0].1.contains("variation"), "{unterminated:?}");
    let unterminated = messages("unterminated.tag.pgn", "unterminated");
    assert!(unterminated[0].1.contains("tag"), "{unterminated:?}");
}

#[test]
fn line_endings_change_no_finding() {
    for (file, _) in PLANTED {
        let mut text = fs::read(fixture_path(file)).expect("fixture readable");
        if file.ends_with(".gz") {
            // The line endings of the text, not of its compressed bytes.
            let mut plain = Vec::new();
            flate2::read::MultiGzDecoder::new(&text[..])
                .read_to_end(&mut plain)
                .expect("a gzip fixture");
            text = plain;
        }
        let lf = validate_stdin(&[], &text).rows();
        let crlf = validate_stdin(&[], &with_line_ends(&text, b"\r\n")).rows();
        let cr = validate_stdin(&[], &with_line_ends(&text, b"\r")).rows();
        assert_eq!(places(&crlf), places(&lf), "{file} with CRLF");
        assert_eq!(places(&cr), places(&lf), "{file} with CR");
    }
}

/// `text` with every `\n` replaced by `end`.
fn with_line_ends(text: &[u8], end: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 2);
    for &b in text {
        if b == b'\n' {
            out.extend_from_slice(end);
        } else {
            out.push(b);
        }
    }
    out
}

#[test]
fn game_numbers_restart_in_each_file() {
    let first = fixture("illegal_move.pgn");
    let second = fixture("variant_spelling.pgn");
    let rows = validate(&["-q", &first, &second]).rows();
    let files: Vec<(&str, u64)> = rows.iter().map(|r| (r.file.as_str(), r.game)).collect();
    let mut expected: Vec<(&str, u64)> = (1..=5).map(|g| (first.as_str(), g)).collect();
    expected.extend((1..=3).map(|g| (second.as_str(), g)));
    assert_eq!(files, expected);
}

// ---- Output formats -------------------------------------------------------

const COLUMNS: [&str; 6] = ["file", "game", "line", "severity", "code", "message"];

#[test]
fn csv_has_the_header_even_when_nothing_is_found() {
    for file in ["illegal_move.pgn", "illegal_move.ok.pgn"] {
        let run = validate(&["-q", &fixture(file)]);
        let text = String::from_utf8(run.stdout).expect("UTF-8 report");
        assert_eq!(
            text.lines().next(),
            Some("file,game,line,severity,code,message")
        );
    }
}

#[test]
fn jsonl_has_one_object_a_line_with_the_csv_fields() {
    let file = fixture("illegal_move.pgn");
    let csv_rows = validate(&["-q", &file]).rows();
    let run = validate(&["-q", "--format", "jsonl", &file]);
    let text = String::from_utf8(run.stdout).expect("UTF-8 report");
    assert!(text.ends_with('\n'), "{text:?}");
    let mut rows = Vec::new();
    for line in text.lines() {
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|err| panic!("not JSON ({err}): {line:?}"));
        let object = value.as_object().expect("each line is an object");
        let keys: Vec<&str> = object.keys().map(String::as_str).collect();
        let mut sorted = COLUMNS.to_vec();
        sorted.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, sorted, "{line}");
        assert!(object["game"].is_u64() && object["line"].is_u64(), "{line}");
        rows.push(serde_json::from_value::<Row>(value).expect("the six fields"));
    }
    assert_eq!(rows, csv_rows);
}

#[test]
fn report_file_gets_the_report_and_stdout_stays_empty() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = fixture("illegal_move.pgn");
    for format in ["csv", "jsonl"] {
        let expected = validate(&["-q", "--format", format, &file]).stdout;
        let report = dir.path().join(format!("findings.{format}"));
        let run = validate(&["--format", format, "--report", path_str(&report), &file]);
        assert_eq!(run.code, 1);
        assert!(run.stdout.is_empty(), "stdout: {:?}", run.stdout);
        assert_eq!(fs::read(&report).expect("report written"), expected);
        assert!(run.stderr.contains("illegal_move"), "{}", run.stderr);
    }
}

#[test]
fn stderr_summary_counts_every_code() {
    let files: Vec<String> = PLANTED.iter().map(|(f, _)| fixture(f)).collect();
    let mut args = vec!["validate"];
    args.extend(files.iter().map(String::as_str));
    let run = pgn960_with_stdin(&args, b"");
    let rows = run.rows();
    let mut counted: BTreeMap<&str, u64> = BTreeMap::new();
    for row in &rows {
        *counted.entry(row.code.as_str()).or_default() += 1;
    }
    let mut summary: BTreeMap<&str, u64> = BTreeMap::new();
    for line in run.stderr.lines().skip(2) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let [severity, code, n] = words[..] else {
            panic!("summary line {line:?}");
        };
        assert_eq!(severity, severity_of(code), "{line}");
        summary.insert(code, n.parse().expect("a count"));
    }
    assert_eq!(summary, counted, "{}", run.stderr);
    // Every code is planted somewhere, so every code is in the summary.
    assert_eq!(summary.len(), Code::ALL.len());
    let total = |severity: &str| rows.iter().filter(|r| r.severity == severity).count();
    let mut lines = run.stderr.lines();
    let first = lines.next().expect("a summary");
    let games = PLANTED.len(); // at least one game a file
    assert!(first.starts_with("pgn960 validate: "), "{first}");
    assert!(first.contains(" games checked: "), "{first}");
    let checked: usize = first
        .split_whitespace()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .expect("games");
    assert!(checked >= games, "{first}");
    let second = lines.next().expect("the totals");
    let totals = format!(
        "{} errors, {} warnings, {} info",
        total("error"),
        total("warning"),
        total("info")
    );
    assert_eq!(second.trim(), totals);
}

#[test]
fn quiet_prints_no_summary() {
    let run = validate(&["-q", &fixture("illegal_move.pgn")]);
    assert_eq!(run.stderr, "");
}

// ---- Exit codes ----------------------------------------------------------

#[test]
fn exit_codes() {
    let clean = fixture("illegal_move.ok.pgn");
    let error = fixture("illegal_move.pgn");
    let warnings = fixture("variant_missing.pgn");
    let info = fixture("variant_spelling.pgn");
    for (args, code) in [
        (vec![clean.as_str()], 0),
        (vec![error.as_str()], 1),
        (vec![warnings.as_str()], 0),
        (vec!["--strict", warnings.as_str()], 1),
        (vec!["--strict", info.as_str()], 0),
        (vec!["--strict", clean.as_str()], 0),
        (vec![clean.as_str(), error.as_str()], 1),
    ] {
        let mut all = vec!["-q"];
        all.extend(args.iter().copied());
        assert_eq!(validate(&all).code, code, "validate {all:?}");
    }
}

#[test]
fn unreadable_input_exits_2_and_the_rest_is_still_reported() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let missing = dir.path().join("missing.pgn");
    let error = fixture("illegal_move.pgn");
    let clean = fixture("illegal_move.ok.pgn");
    let run = validate(&[path_str(&missing), &error]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("missing.pgn"), "{}", run.stderr);
    assert_eq!(run.rows().len(), 5, "the other input is still checked");

    let run = validate(&[&clean, path_str(dir.path())]);
    assert_eq!(run.code, 2, "a directory: {}", run.stderr);
    assert!(run.stderr.contains("directory"), "{}", run.stderr);
}

// ---- --no-moves ----------------------------------------------------------

#[test]
fn no_moves_skips_the_moves_and_keeps_the_tags() {
    let run = validate(&["-q", "--no-moves", &fixture("illegal_move.pgn")]);
    assert_eq!((run.code, run.rows()), (0, vec![]));

    // Findings that need the moves go; every tag finding stays, with its
    // line and message (an unplayable FEN is a tag finding too).
    let needs_moves = [
        "illegal_move",
        "result_mismatch",
        "stray_bracket",
        "moves_after_result",
        "game_too_long",
    ];
    for (file, _) in PLANTED {
        let all = validate(&["-q", &fixture(file)]).rows();
        let tags = validate(&["-q", "--no-moves", &fixture(file)]).rows();
        // A variation still open when the next game begins is seen by the
        // replay; the end of the input is checked without it.
        let kept: Vec<Row> = all
            .into_iter()
            .filter(|r| !needs_moves.contains(&r.code.as_str()))
            .filter(|r| !r.message.starts_with("the next game's tags begin"))
            .collect();
        assert_eq!(tags, kept, "{file} with --no-moves");
    }
}

// ---- Real files ----------------------------------------------------------

/// Every `*.pgn` and `*.pgn.zst` under `dir`, sorted.
fn pgn_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("data directory readable") {
            let path = entry.expect("directory entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".pgn") || name.ends_with(".pgn.zst") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The game count of a summary's first line.
fn games_checked(stderr: &str) -> u64 {
    stderr
        .split_whitespace()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no game count in {stderr:?}"))
}

/// Runs every real sample once.
#[test]
fn every_sample_file_runs_without_panic() {
    let files = sample_files();
    // Game counts from testdata/README.md (`grep -c '^\[Event '`).
    let games: BTreeMap<&str, u64> = [
        ("tcec-s16-frc-sufi.pgn.zst", 20),
        ("tcec-s22-dfrc-unbust-bonus.pgn.zst", 10),
        ("tcec-s26-frc-no-castling-bonus.pgn.zst", 24),
        ("tcec-s29-frd5-league-b-tiebreak.pgn", 2),
        ("chess960-events-headers-first300.pgn", 300),
        ("freestyle-vegas-broadcast.pgn", 4),
        ("lichessbot-chess960-book-first200.pgn", 200),
        ("lichess_db_1000k-first300.pgn.zst", 300),
    ]
    .into_iter()
    .collect();
    let mut counted = 0;
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
        let run = validate(&[path_str(path)]);
        assert!(
            run.code == 0 || run.code == 1,
            "{}: exit {}\n{}",
            path.display(),
            run.code,
            run.stderr
        );
        if let Some(&n) = games.get(name) {
            assert_eq!(games_checked(&run.stderr), n, "{name}");
            counted += 1;
        }
    }
    assert_eq!(counted, games.len(), "every sample with a count was run");
}

/// Runs every file of the corpus once (the big TCEC archive is 200 MB of
/// engine games once decompressed, so it is checked here rather than run
/// again).
#[test]
fn every_corpus_file_runs_without_panic() {
    let Some(corpus) = corpus_or_skip("validate::every_corpus_file_runs_without_panic") else {
        return;
    };
    let files = corpus.files();
    // Game counts from ../shared/data/README.md.
    let games: BTreeMap<&str, u64> = [
        ("tcec-frc-dfrc-all.pgn.zst", 5232),
        ("tcec-s16-frc-sufi.pgn", 20),
        ("tcec-s22-dfrc-unbust-bonus.pgn", 10),
        ("tcec-s26-frc-no-castling-bonus.pgn", 24),
        ("tcec-s29-frd5-league-b-tiebreak.pgn", 2),
        ("chess960-events-headers.pgn", 4444),
        ("freestyle-events-headers.pgn", 983),
        ("freestyle-vegas-broadcast.pgn", 4),
        ("stockfish-book-3moves-frc.pgn.zst", 126_113),
        ("lichessbot-chess960-book.pgn", 1001),
    ]
    .into_iter()
    .collect();
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
        let run = validate(&[path_str(path)]);
        assert!(
            run.code == 0 || run.code == 1,
            "{}: exit {}\n{}",
            path.display(),
            run.code,
            run.stderr
        );
        if let Some(&n) = games.get(name) {
            assert_eq!(games_checked(&run.stderr), n, "{name}");
        }
        if name == "tcec-frc-dfrc-all.pgn.zst" {
            let rows = run.rows();
            assert_eq!(errors(&rows), Vec::<&Row>::new(), "{name}");
            // 1,554 Double FRC games, as the data README counts them.
            let double = rows.iter().filter(|r| r.code == "double_frc").count();
            assert_eq!(double, 1554);
        }
    }
}

/// The four TCEC event files, whole, as samples.
const TCEC_SAMPLES: [&str; 4] = [
    "tcec-s16-frc-sufi.pgn.zst",
    "tcec-s22-dfrc-unbust-bonus.pgn.zst",
    "tcec-s26-frc-no-castling-bonus.pgn.zst",
    "tcec-s29-frd5-league-b-tiebreak.pgn",
];

fn errors(rows: &[Row]) -> Vec<&Row> {
    rows.iter().filter(|r| r.severity == "error").collect()
}

#[test]
fn tcec_games_replay_legally() {
    for name in TCEC_SAMPLES {
        let run = validate(&["-q", &sample(name)]);
        let rows = run.rows();
        assert_eq!(errors(&rows), Vec::<&Row>::new(), "{name}");
        assert_eq!(run.code, 0, "{name}");
    }
}

#[test]
fn tcec_s29_tiebreak_lacks_the_variant_tag_in_both_games() {
    let rows = validate(&["-q", &sample("tcec-s29-frd5-league-b-tiebreak.pgn")]).rows();
    // No Variant tag to point at, so each finding points at its game's
    // first line, the [Event tag (lines 1 and 186 of the file).
    assert_eq!(
        places(&rows),
        [(1, 1, "variant_missing"), (2, 186, "variant_missing")]
    );
}

#[test]
fn vegas_broadcast_fens_in_two_notations_do_not_conflict() {
    let rows = validate(&["-q", &sample("freestyle-vegas-broadcast.pgn")]).rows();
    assert!(
        rows.iter().all(|r| r.code != "fen_conflict"),
        "{}",
        report_text(&rows)
    );
    assert_eq!(errors(&rows), Vec::<&Row>::new());
}

#[test]
fn tcec_s22_is_double_frc_in_every_game() {
    let rows = validate(&["-q", &sample("tcec-s22-dfrc-unbust-bonus.pgn.zst")]).rows();
    let games: Vec<u64> = rows
        .iter()
        .filter(|r| r.code == "double_frc")
        .map(|r| r.game)
        .collect();
    assert_eq!(games, (1..=10).collect::<Vec<u64>>());
}

#[test]
fn tcec_s26_starts_without_castling_rights() {
    let rows = validate(&["-q", &sample("tcec-s26-frc-no-castling-bonus.pgn.zst")]).rows();
    let games: Vec<u64> = rows
        .iter()
        .filter(|r| r.code == "castling_rights_none")
        .map(|r| r.game)
        .collect();
    assert_eq!(games, (1..=24).collect::<Vec<u64>>());
}

/// Edge files from other projects, with findings checked by eye against
/// the files.
#[test]
fn edge_files_draw_the_findings_checked_by_eye() {
    let cases: &[(&str, &[Place])] = &[
        (
            // 1. e5; 1. e4 Nf3; a FEN "Something invalid"; 1. O-O on the
            // line after a two-line comment; the null move "--".
            "kokopu/test-resources-pgns-semantic-error-database.pgn",
            &[
                (1, 3, "illegal_move"),
                (2, 8, "illegal_move"),
                (3, 13, "fen_unparsable"),
                (6, 37, "illegal_move"),
                (7, 42, "illegal_move"),
            ],
        ),
        // The same illegal 1. e5 on line 3, with LF, CR and CRLF line ends.
        (
            "kokopu/test-resources-pgns-linebreak-linux-database.pgn",
            &[(1, 3, "illegal_move")],
        ),
        (
            "kokopu/test-resources-pgns-linebreak-mac-database.pgn",
            &[(1, 3, "illegal_move")],
        ),
        (
            "kokopu/test-resources-pgns-linebreak-windows-database.pgn",
            &[(1, 3, "illegal_move")],
        ),
        (
            // Carlsen's O-O and Nakamura's O-O-O replay; "chess 960" and
            // "Fischerandom" are common spellings, "chess-960" is not.
            "kokopu/test-resources-pgns-chess960-database.pgn",
            &[(3, 47, "variant_spelling")],
        ),
        (
            // A FEN without SetUp; its 4... Qxf2# agrees with 0-1.
            "kokopu/test-resources-pgns-headers-database.pgn",
            &[(7, 70, "fen_without_setup")],
        ),
        (
            // The unclosed comment swallows the rest of the file.
            "kokopu/test-resources-pgns-syntactic-error-4-database.pgn",
            &[(1, 0, "unterminated")],
        ),
        (
            // fischerandom FENs without SetUp; games 2 to 4 give Black
            // another start array than White.
            "fastchess/app-tests-data-dfrc.pgn",
            &[
                (1, 3, "fen_without_setup"),
                (2, 9, "fen_without_setup"),
                (2, 9, "double_frc"),
                (3, 15, "fen_without_setup"),
                (3, 15, "double_frc"),
                (4, 21, "fen_without_setup"),
                (4, 21, "double_frc"),
            ],
        ),
        (
            "fastchess/app-tests-pgns-no_moves_but_comment_followed_by_termination_marker.pgn",
            &[(1, 2, "setup_without_fen"), (2, 9, "setup_without_fen")],
        ),
        (
            // 4. Ka1 from e1.
            "fastchess/app-tests-data-test_invalid.pgn",
            &[(1, 3, "illegal_move")],
        ),
        (
            // The file stops in the middle of "63. Kx": before the result.
            "fastchess/app-tests-pgns-corrupted.pgn",
            &[(1, 1, "unterminated"), (1, 57, "illegal_move")],
        ),
        ("fastchess/app-tests-pgns-variations.pgn", &[]),
        ("fastchess/app-tests-pgns-multiple.pgn", &[]),
    ];
    let mut failures = String::new();
    for (file, expected) in cases {
        let rows = validate(&["-q", &sample(&format!("edge/{file}"))]).rows();
        if !same_places(&places(&rows), expected) {
            failures.push_str(&format!(
                "{file}: expected {expected:?}, found\n{}",
                report_text(&rows)
            ));
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

// ---- Thread count --------------------------------------------------------

/// Concatenates `files` (decompressed) into one file in `dir`, a blank
/// line between them, `times` over.
fn concatenate(dir: &Path, name: &str, files: &[PathBuf], times: usize) -> PathBuf {
    let mut once = Vec::new();
    for file in files {
        once.extend(read_pgn(file));
        once.extend_from_slice(b"\n\n");
    }
    let all = once.repeat(times);
    let path = dir.join(name);
    fs::write(&path, all).expect("temporary file written");
    path
}

fn assert_thread_count_invariant(path: &Path) -> Vec<Row> {
    let one = validate(&["-q", "--threads", "1", path_str(path)]);
    let two = validate(&["-q", "--threads", "2", path_str(path)]);
    assert!(
        one.stdout == two.stdout,
        "{}: --threads 1 and 2 differ",
        path.display()
    );
    assert_eq!(one.code, two.code);
    one.rows()
}

#[test]
fn report_is_the_same_at_one_and_two_threads() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Batches are 1 MiB: both inputs span more than one.
    let tcec: Vec<PathBuf> = TCEC_SAMPLES.map(sample_file).into();
    let path = concatenate(dir.path(), "tcec.pgn", &tcec, 1);
    assert!(fs::metadata(&path).expect("written").len() > 1 << 20);
    let rows = assert_thread_count_invariant(&path);
    // Each line must still point at its tag after the batch boundaries:
    // a missing Variant at the game's [Event tag, the rest at its FEN tag.
    let text = fs::read_to_string(&path).expect("UTF-8 PGN");
    let lines: Vec<&str> = text.lines().collect();
    for row in &rows {
        let at = lines[usize::try_from(row.line).expect("small") - 1];
        let tag = if row.code == "variant_missing" {
            "[Event "
        } else {
            "[FEN "
        };
        assert!(at.starts_with(tag), "{row:?} points at {at:?}");
    }
    assert_eq!(rows.len(), 10 + 24 + 2);

    // The edge samples are small: twenty times over.
    let edge = pgn_files(&samples_dir().join("edge"));
    let path = concatenate(dir.path(), "edge.pgn", &edge, 20);
    assert!(fs::metadata(&path).expect("written").len() > 1 << 20);
    assert_thread_count_invariant(&path);
}

#[test]
fn report_on_the_corpus_edge_files_is_the_same_at_one_and_two_threads() {
    let Some(corpus) = corpus_or_skip(
        "validate::report_on_the_corpus_edge_files_is_the_same_at_one_and_two_threads",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let edge = pgn_files(&corpus.dir().join("edge"));
    let path = concatenate(dir.path(), "edge.pgn", &edge, 1);
    assert!(fs::metadata(&path).expect("written").len() > 1 << 20);
    assert_thread_count_invariant(&path);
}

// ---- Known bugs ------------------------------------------------------------

#[test]
fn zero_castling_is_castling() {
    let rows = validate(&["-q", &fixture("illegal_move.zero_castling.pgn")]).rows();
    assert!(rows.is_empty(), "{}", report_text(&rows));
}

#[test]
fn unterminated_points_at_what_was_left_open() {
    // Both files have 10 lines; the brace and the parenthesis open on
    // line 9.
    for file in ["unterminated.pgn", "unterminated.variation.pgn"] {
        let rows = validate(&["-q", &fixture(file)]).rows();
        assert_eq!(places(&rows), [(2, 9, "unterminated")], "{file}");
    }
}

#[test]
fn same_placement_is_not_yet_the_same_position() {
    let rows = validate(&["-q", &fixture("fen_conflict.same_board.pgn")]).rows();
    assert_eq!(
        places(&rows),
        [
            (1, 5, "fen_conflict"),
            (1, 5, "tag_repeated"),
            (2, 14, "fen_conflict"),
            (2, 14, "tag_repeated")
        ],
        "{}",
        report_text(&rows)
    );
}

#[test]
fn a_broken_back_rank_is_one_error() {
    let rows = validate(&["-q", &fixture("illegal_back_rank.rules.pgn")]).rows();
    assert_eq!(
        places(&rows),
        [(1, 4, "illegal_back_rank"), (2, 12, "illegal_back_rank")],
        "{}",
        report_text(&rows)
    );
}

#[test]
fn illegal_move_message_numbers_moves_from_the_fen() {
    let pgn = b"[SetUp \"1\"]
[FEN \"r2q1b1r/ppn2kpp/2p1b3/3nP3/2BPQ3/P1N5/1PP3PP/R1B1K2R w KQ - 1 14\"]

14. O-O+ Ke8 15. Kh1 Qxh1 *

[SetUp \"1\"]
[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]

1... e5 2. Ke3 *
";
    let rows = validate_stdin(&[], pgn).rows();
    assert_eq!(rows.len(), 2, "{}", report_text(&rows));
    assert!(
        rows[0].message.contains("15... Qxh1"),
        "{}",
        rows[0].message
    );
    assert!(rows[1].message.contains("2. Ke3"), "{}", rows[1].message);
}

#[test]
fn a_bad_fen_does_not_make_the_id_malformed() {
    let pgn = b"[Variant \"Chess960\"]
[SetUp \"1\"]
[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]
[FEN \"rkbbnnqr/pppppppp/8/8/8/8/PPPPPPPP/RKBBNNQR w KQkq - 0 1\"]
[Chess960Id \"0\"]

1. e4 *

[Variant \"Chess960\"]
[SetUp \"1\"]
[FEN \"xyz\"]
[Chess960Id \"0\"]

1. e4 *
";
    let rows = validate_stdin(&[], pgn).rows();
    assert_eq!(
        places(&rows),
        [
            (1, 4, "fen_conflict"),
            (1, 4, "tag_repeated"),
            (2, 11, "fen_unparsable")
        ],
        "{}",
        report_text(&rows)
    );
}

#[test]
fn a_bad_side_to_move_is_one_finding() {
    let pgn = b"[Variant \"Chess960\"]
[SetUp \"1\"]
[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR x KQkq - 0 1\"]

1. e4 *
";
    let rows = validate_stdin(&[], pgn).rows();
    assert_eq!(
        places(&rows),
        [(1, 3, "fen_unparsable")],
        "{}",
        report_text(&rows)
    );
}

#[test]
fn unterminated_is_reported_after_an_early_stop() {
    // The replay stops at 1... Ke7, at the king-less FEN, at the broken FEN;
    // the open comment at the end of the input must still be reported, as
    // --no-moves reports it.
    for (pgn, first) in [
        (
            &b"[Event \"x\"]\n\n1. e4 Ke7 2. Nf3 {open\n"[..],
            "illegal_move",
        ),
        (
            b"[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/k7 w - - 0 1\"]\n\n1. Kb2 {open\n",
            "position_illegal",
        ),
        (
            b"[SetUp \"1\"]\n[FEN \"xyz\"]\n\n1. e4 {open\n",
            "fen_unparsable",
        ),
    ] {
        let rows = validate_stdin(&[], pgn).rows();
        let codes: Vec<&str> = rows.iter().map(|r| r.code.as_str()).collect();
        assert_eq!(codes, [first, "unterminated"], "{}", report_text(&rows));
        // --no-moves finds the same, less what only the moves show.
        let tags_only = validate_stdin(&["--no-moves"], pgn).rows();
        let expected: Vec<Row> = rows
            .iter()
            .filter(|r| r.code != "illegal_move")
            .cloned()
            .collect();
        assert_eq!(tags_only, expected, "{}", report_text(&tags_only));
    }
}

/// A game without tags after another game's result stays with that game
/// (it cannot be told from stray text), but it never disappears silently:
/// it is reported as `moves_after_result`.
#[test]
fn a_game_without_tags_is_reported() {
    let pgn = b"[Event \"a\"]\n\n1. e4 *\n\n1. e4 e5 2. Ke3 *\n";
    let run = pgn960_with_stdin(&["validate", "-"], pgn);
    let rows = run.rows();
    assert_eq!(
        places(&rows),
        [(1, 5, "moves_after_result")],
        "{}",
        report_text(&rows)
    );
}

/// The report does not depend on how the bytes arrive: a plain file, each
/// compression format, or standard input give the same findings at the
/// same games and lines, and the same summary.
#[test]
fn the_report_is_the_same_however_the_input_arrives() {
    let mut archive = Vec::new();
    // The planted problems, less the 17 MiB game kept gzipped.
    for (file, _) in PLANTED.iter().filter(|(file, _)| !file.ends_with(".gz")) {
        archive.extend(read_pgn(&fixture_path(file)));
    }
    archive.extend(read_pgn(&sample_file(
        "tcec-s29-frd5-league-b-tiebreak.pgn",
    )));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        fs::write(&path, bytes).expect("writable");
        path_str(&path).to_string()
    };
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, &archive).expect("in memory");
        e.finish().expect("in memory")
    };
    let bz2 = {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        std::io::Write::write_all(&mut e, &archive).expect("in memory");
        e.finish().expect("in memory")
    };
    let xz = {
        let mut e = xz2::write::XzEncoder::new(Vec::new(), 1);
        std::io::Write::write_all(&mut e, &archive).expect("in memory");
        e.finish().expect("in memory")
    };
    let zst = zstd::stream::encode_all(&archive[..], 3).expect("in memory");
    let plain = write("all.pgn", &archive);
    let strip_file = |run: Run| {
        let rows: Vec<(u64, u64, String, String)> = parse_csv(&run.stdout)
            .into_iter()
            .map(|r| (r.game, r.line, r.code, r.message))
            .collect();
        (run.code, rows, run.stderr)
    };
    let expected = strip_file(validate(&[&plain]));
    assert_eq!(
        expected.0, 1,
        "the planted archive has errors: {}",
        expected.2
    );
    assert!(expected.1.len() > 20, "{} findings", expected.1.len());
    for (name, bytes) in [
        ("all.pgn.gz", gz),
        ("all.pgn.bz2", bz2),
        ("all.pgn.xz", xz),
        ("all.pgn.zst", zst),
    ] {
        let path = write(name, &bytes);
        assert_eq!(strip_file(validate(&[&path])), expected, "{name}");
    }
    let piped = pgn960_with_stdin(&["validate", "-"], &archive);
    assert_eq!(strip_file(piped), expected, "standard input");
}
