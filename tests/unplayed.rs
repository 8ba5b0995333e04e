//! Results that were not played (issue 33): `stats` leaves them out and
//! counts them by reason, `filter --unplayed` / `--played` select them,
//! `games` names the reason. The expected values are worked out by hand
//! from `testdata/unplayed.pgn` (the Termination spellings of lichess,
//! cutechess, TCEC and the PGN standard, one game each), and on the TCEC
//! archive of the corpus from a count of its tags that does not use the
//! library.

use std::collections::BTreeMap;
use std::io::Read;

use serde_json::Value;

use crate::common::{corpus_or_skip, pgn960, testdata_file};

/// The games of `testdata/unplayed.pgn`, by Event: its kind, and the
/// reason its result was not played (as the table decides: a
/// disconnection, an engine's illegal move, a rules infraction and an
/// unterminated game are no result of play; a time forfeit and an
/// adjudication are).
const GAMES: [(&str, &str, Option<&str>); 9] = [
    ("played (lichess)", "chess960", None),
    ("abandoned (lichess)", "chess960", Some("abandoned")),
    ("time forfeit (lichess)", "chess960", None),
    (
        "illegal move (cutechess)",
        "chess960",
        Some("rules_infraction"),
    ),
    ("disconnection (TCEC)", "chess960", Some("abandoned")),
    (
        "rules infraction (lichess)",
        "chess960",
        Some("rules_infraction"),
    ),
    ("unterminated (lichess)", "chess960", Some("unterminated")),
    ("adjudication (TCEC)", "chess960", None),
    ("abandoned (Double FRC)", "dfrc", Some("abandoned")),
];

fn fixture() -> String {
    testdata_file("unplayed.pgn").display().to_string()
}

/// The CSV's rows as (scharnagl, games, white_wins, draws, black_wins,
/// unfinished).
fn positions(csv: &[u8]) -> Vec<[u64; 6]> {
    let mut reader = csv::Reader::from_reader(csv);
    reader
        .records()
        .map(|record| {
            let record = record.expect("a CSV row");
            std::array::from_fn(|i| record[if i == 0 { 0 } else { i + 2 }].parse().unwrap())
        })
        .collect()
}

/// The Events of the games of a PGN, in order.
fn events(pgn: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(pgn)
        .lines()
        .filter_map(|line| line.strip_prefix("[Event \""))
        .map(|rest| rest.trim_end_matches("\"]").to_string())
        .collect()
}

#[test]
fn stats_leaves_out_the_unplayed_results_and_counts_them_by_reason() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    let run = pgn960(
        &[
            "stats",
            &fixture(),
            "--summary",
            json.to_str().unwrap(),
            "--threads",
            "1",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // By hand: at 0 the lichess win and the draw on time; nothing played
    // at 42; at 959 the adjudicated win.
    assert_eq!(
        positions(&run.stdout),
        [[0, 2, 1, 1, 0, 0], [959, 1, 1, 0, 0, 0]]
    );
    assert!(
        run.stderr.contains(
            "counted 3 chess960 games in 2 positions; 5 unplayed games left out \
             (2 abandoned, 2 rules_infraction, 1 unterminated)"
        ),
        "{}",
        run.stderr
    );
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        summary["unplayed_left_out"],
        serde_json::json!({"abandoned": 2, "rules_infraction": 2, "unterminated": 1,
                           "emergency": 0, "death": 0})
    );
    assert_eq!(summary["finished_games"], 3);
    assert!(summary.get("unplayed_kept").is_none());

    // Kept: every Chess960 game counted, as before the option existed.
    let run = pgn960(
        &[
            "stats",
            &fixture(),
            "--keep-unplayed",
            "--summary",
            json.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        positions(&run.stdout),
        [
            [0, 3, 1, 1, 1, 0],
            [42, 3, 2, 0, 1, 0],
            [959, 2, 1, 0, 0, 1]
        ]
    );
    assert!(
        run.stderr.contains(
            "counted 8 chess960 games in 3 positions; 5 unplayed games kept \
             (2 abandoned, 2 rules_infraction, 1 unterminated)"
        ),
        "{}",
        run.stderr
    );
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(summary["unplayed_kept"]["abandoned"], 2);
    assert!(summary.get("unplayed_left_out").is_none());
}

#[test]
fn filter_and_games_name_the_same_games_as_stats() {
    let unplayed: Vec<&str> = GAMES
        .iter()
        .filter(|game| game.2.is_some())
        .map(|game| game.0)
        .collect();
    let played: Vec<&str> = GAMES
        .iter()
        .filter(|game| game.2.is_none())
        .map(|game| game.0)
        .collect();
    let selected = |args: &[&str]| {
        let mut all = vec!["filter", "-q"];
        all.extend_from_slice(args);
        let fixture = fixture();
        all.push(&fixture);
        events(&pgn960(&all, None).ok("filter"))
    };
    assert_eq!(selected(&["--unplayed"]), unplayed);
    assert_eq!(selected(&["--played"]), played);
    assert_eq!(selected(&["--unplayed", "--invert"]), played);
    assert_eq!(
        selected(&["--unplayed=abandoned"]),
        [
            "abandoned (lichess)",
            "disconnection (TCEC)",
            "abandoned (Double FRC)"
        ]
    );
    assert_eq!(
        selected(&[
            "--unplayed=Rules-Infraction,unterminated",
            "--kind",
            "chess960"
        ]),
        [
            "illegal move (cutechess)",
            "rules infraction (lichess)",
            "unterminated (lichess)"
        ]
    );
    // What filter selects is what stats left out, byte for byte.
    let whole = std::fs::read(testdata_file("unplayed.pgn")).unwrap();
    let out = pgn960(&["filter", "-q", "--played", &fixture()], None).ok("filter");
    let back = pgn960(&["filter", "-q", "--unplayed", &fixture()], None).ok("filter");
    assert_eq!(out.len() + back.len(), whole.len());
    let refused = pgn960(&["filter", "--unplayed=forfeit", &fixture()], None);
    assert_eq!(refused.code, 2);
    assert!(
        refused
            .stderr
            .starts_with("pgn960: filter: --unplayed \"forfeit\": \"forfeit\" is no reason"),
        "{}",
        refused.stderr
    );

    // games: the reason, null (an empty cell) when played.
    let csv = pgn960(&["games", &fixture()], None).ok("games");
    let mut reader = csv::Reader::from_reader(&csv[..]);
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (event, kind, reason) = (column("event"), column("kind"), column("unplayed"));
    let rows: Vec<(String, String, String)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (
                r[event].to_string(),
                r[kind].to_string(),
                r[reason].to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String, String)> = GAMES
        .iter()
        .map(|g| {
            (
                g.0.to_string(),
                g.1.to_string(),
                g.2.unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(rows, expected);
}

/// The TCEC archive's unplayed results, by reason and by whether the game
/// is Chess960 (one array) or Double FRC, counted from its tags without
/// the library: the last `Termination` of each game, or without one a
/// `TerminationDetails` ending in `disconnects` or `connection stalls`.
fn tcec_count(pgn: &str) -> BTreeMap<(&'static str, bool), u64> {
    let mut counts = BTreeMap::new();
    for game in pgn.split("\n[Event ") {
        let tag = |name: &str| {
            game.lines()
                .filter_map(|line| line.strip_prefix(&format!("[{name} \"")))
                .map(|value| value.trim_end_matches("\"]").to_string())
                .next_back()
        };
        let reason = match tag("Termination").as_deref() {
            Some("abandoned") => Some("abandoned"),
            Some("illegal move") => Some("rules_infraction"),
            Some("adjudication" | "time forfeit" | "manual adjudication") => None,
            Some(other) => panic!("a Termination this count does not know: {other:?}"),
            None => tag("TerminationDetails")
                .filter(|details| {
                    details.ends_with("disconnects") || details.ends_with("connection stalls")
                })
                .map(|_| "abandoned"),
        };
        let Some(reason) = reason else { continue };
        let fen = tag("FEN").expect("every TCEC game has a FEN");
        let ranks: Vec<&str> = fen.split(' ').next().unwrap().split('/').collect();
        let one_array = ranks[0].to_ascii_uppercase() == ranks[7];
        *counts.entry((reason, one_array)).or_default() += 1;
    }
    counts
}

#[test]
fn tcec_unplayed_results_agree_with_a_count_of_the_tags() {
    let Some(corpus) =
        corpus_or_skip("unplayed::tcec_unplayed_results_agree_with_a_count_of_the_tags")
    else {
        return;
    };
    let archive = corpus.file("real/tcec-frc-dfrc-all.pgn.zst");
    let mut pgn = String::new();
    zstd::Decoder::new(std::fs::File::open(&archive).unwrap())
        .unwrap()
        .read_to_string(&mut pgn)
        .unwrap();
    let expected = tcec_count(&pgn);
    // The reading of the archive: disconnections, Cheese 2.1's
    // and ScorpioNN's illegal moves, Rybka's stalled connections.
    let total: u64 = expected.values().sum();
    assert_eq!(total, 38, "{expected:?}");
    let chess960 = |reason| expected.get(&(reason, true)).copied().unwrap_or(0);

    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("tcec.json");
    let archive = archive.display().to_string();
    let run = pgn960(
        &["stats", &archive, "--summary", json.to_str().unwrap()],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let left_out = &summary["unplayed_left_out"];
    assert_eq!(left_out["abandoned"], chess960("abandoned"), "{left_out}");
    assert_eq!(
        left_out["rules_infraction"],
        chess960("rules_infraction"),
        "{left_out}"
    );
    assert_eq!(left_out["unterminated"], 0);

    // filter selects every one of them, Double FRC games included.
    let out = dir.path().join("unplayed.pgn");
    let run = pgn960(
        &[
            "filter",
            "--unplayed",
            &archive,
            "-o",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let selected = events(&std::fs::read(&out).unwrap()).len() as u64;
    assert_eq!(selected, total);
}
