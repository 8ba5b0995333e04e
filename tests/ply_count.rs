//! `games`' `plies` column against the `PlyCount` tag that the software
//! which recorded a game (ChessBase, lichess, fastchess, Arena, ...) wrote
//! beside it: an oracle independent of pgn960, on every sample and, with
//! the corpus, every corpus file. Whatever way this CPU counts plies
//! (SSE2 or AVX-512BW masks, or the lexer), the count must be the
//! recorder's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{corpus_or_skip, pgn960, relative_name, sample_files};

/// The games whose `PlyCount` is not the number of moves of their
/// mainline, by file (below `testdata/real/` or the corpus) and game
/// number: each is the source's, read by hand.
const SOURCES_DISAGREE: &[(&str, u64, &str)] = &[
    (
        "edge/fastchess/app-tests-pgns-castling.pgn",
        1,
        "a test file: the moves are cut after three, PlyCount kept",
    ),
    (
        "edge/fastchess/app-tests-pgns-corrupted.pgn",
        1,
        "a test file: moves cut from the game, PlyCount kept",
    ),
    (
        "edge/fastchess/app-tests-pgns-newline.pgn",
        1,
        "a test file: the moves are cut after three, PlyCount kept",
    ),
    (
        "edge/fastchess/app-tests-pgns-no_moves.pgn",
        1,
        "a test file: the moves are removed, PlyCount kept",
    ),
    (
        "edge/kokopu/test-resources-pgns-misc-database.pgn",
        14,
        "its Event says so: \"Invalid PlyCount\"",
    ),
    (
        "edge/pgn-extract/test-infiles-odds.pgn",
        6,
        "49 moves and a comment `{(...)}` after White's last: 97 plies, PlyCount 98",
    ),
    (
        "edge/pgn-extract/test-infiles-odds.pgn",
        7,
        "`{1.e4 --}` is a comment: 110 plies; PlyCount 112 counts the two in it",
    ),
    (
        "edge/pgn-extract/test-infiles-odds.pgn",
        8,
        "`{1.d4 --}` is a comment: 72 plies; PlyCount 74 counts the two in it",
    ),
    (
        "edge/pgn-extract/test-infiles-odds.pgn",
        30,
        "pawn odds, `40. Rh7 1-0` is 79 plies; PlyCount 80",
    ),
    (
        "edge/pgn-extract/test-infiles-odds.pgn",
        31,
        "`1. e4 -- 2. d4`: PlyCount 48 counts the null move `--`, plies (47) counts moves only",
    ),
    (
        "edge/pgn-extract/test-infiles-odds.pgn",
        32,
        "pawn-and-move odds from a FEN with e4 played: 45 plies; PlyCount 46",
    ),
    (
        "edge/pgn-extract/test-infiles-test-7.pgn",
        1,
        "83. Qe5 1-0 is 165 plies; PlyCount 166",
    ),
    (
        "edge/scalachess/test-kit-src-test-scala-format-pgn-Fixtures.scala.extracted.pgn",
        2,
        "a forfeit written `+--` where the moves go, counted as a word; PlyCount 0",
    ),
    (
        "edge/scalachess/test-kit-src-test-scala-format-pgn-Fixtures.scala.extracted.pgn",
        34,
        "a fixture of comments and moves with PlyCount 0",
    ),
];

/// Every game of `files` with a `PlyCount` tag: (file, game) to
/// (PlyCount, plies), read from one run of `games`.
fn ply_counts(files: &[PathBuf]) -> BTreeMap<(String, u64), (String, String)> {
    let mut args = vec!["games".into(), "-q".into(), "--format".into(), "csv".into()];
    args.extend(["--tags".into(), "PlyCount".into()]);
    args.extend(files.iter().map(|f| f.as_os_str().to_owned()));
    let csv = pgn960(&args, None).ok("games --tags PlyCount");
    let mut reader = csv::Reader::from_reader(&csv[..]);
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (file, game, plies, ply_count) = (
        column("file"),
        column("game"),
        column("plies"),
        column("PlyCount"),
    );
    let mut found = BTreeMap::new();
    for row in reader.records().map(Result::unwrap) {
        if row[ply_count].is_empty() {
            continue;
        }
        let name = relative_name(Path::new(&row[file]));
        let key = (name, row[game].parse().unwrap());
        found.insert(
            key,
            (row[ply_count].trim().to_string(), row[plies].to_string()),
        );
    }
    found
}

/// Holds every game with a `PlyCount` to it, but those listed; returns how
/// many were compared.
fn assert_plies_are_ply_counts(files: &[PathBuf]) -> usize {
    let mut wrong = Vec::new();
    let counts = ply_counts(files);
    for ((file, game), (ply_count, plies)) in &counts {
        let listed = SOURCES_DISAGREE
            .iter()
            .any(|(f, g, _)| f == file && g == game);
        if (ply_count != plies) != listed {
            wrong.push(format!(
                "{file} game {game}: PlyCount {ply_count}, plies {plies}, listed {listed}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "plies against PlyCount:\n{}",
        wrong.join("\n")
    );
    counts.len()
}

#[test]
fn plies_are_the_recorders_ply_count_on_every_sample() {
    let compared = assert_plies_are_ply_counts(&sample_files());
    assert!(
        compared >= 50,
        "only {compared} sample games have a PlyCount"
    );
}

#[test]
fn plies_are_the_recorders_ply_count_on_every_corpus_file() {
    let Some(corpus) =
        corpus_or_skip("ply_count::plies_are_the_recorders_ply_count_on_every_corpus_file")
    else {
        return;
    };
    let compared = assert_plies_are_ply_counts(&corpus.files());
    assert!(
        compared >= 6_000,
        "only {compared} corpus games have a PlyCount"
    );
}
