//! `pgn960 stats` run as a user would run it.
//!
//! The fixtures under `testdata/stats/` are small enough to count by hand,
//! and every expected number below is worked out in a comment, so that a
//! wrong formula in the tool cannot hide behind a test computed with the
//! same formula. The real samples in `testdata/real/` (and the whole
//! corpus, when it is there) then check what hand computation cannot: that
//! shards merge byte for byte, that thread count and compression change
//! nothing, and that no archive in the wild stops a run.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common::{Corpus, corpus_or_skip, read_pgn, sample_archives, sample_file, samples_dir};

/// What one run of the binary printed.
struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

/// Runs the binary, whatever its exit.
fn run_unchecked(args: &[&str], stdin: &[u8]) -> Run {
    let output = Command::cargo_bin("pgn960")
        .expect("the pgn960 binary is built")
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("pgn960 runs");
    Run {
        code: output.status.code().expect("pgn960 exits, not killed"),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs the binary, which must not panic.
fn pgn960_with_stdin(args: &[&str], stdin: &[u8]) -> Run {
    let run = run_unchecked(args, stdin);
    assert!(
        !run.stderr.contains("panicked"),
        "pgn960 {args:?} panicked:\n{}",
        run.stderr
    );
    run
}

fn pgn960(args: &[&str]) -> Run {
    pgn960_with_stdin(args, b"")
}

/// Runs `pgn960 stats ARGS`, which must succeed, and returns the run.
fn stats_ok(args: &[&str]) -> Run {
    let mut all = vec!["stats"];
    all.extend_from_slice(args);
    let run = pgn960(&all);
    assert_eq!(run.code, 0, "pgn960 {all:?}:\n{}", run.stderr);
    run
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/stats")
        .join(name)
        .to_str()
        .expect("the checkout path is UTF-8")
        .to_string()
}

/// A file of the corpus's `real/`.
fn real(corpus: &Corpus, name: &str) -> String {
    corpus
        .file(&format!("real/{name}"))
        .to_str()
        .expect("the data path is UTF-8")
        .to_string()
}

/// The bytes of the samples `names` (decompressed), one after the other,
/// `times` over.
fn samples_repeated(names: &[&str], times: usize) -> Vec<u8> {
    let once: Vec<u8> = names
        .iter()
        .flat_map(|name| read_pgn(&sample_file(name)))
        .collect();
    once.repeat(times)
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

/// The columns every stats CSV starts with, as the issue lists them.
const COLUMNS: [&str; 15] = [
    "scharnagl",
    "fritz9",
    "position",
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "unfinished",
    "white_score",
    "white_score_low",
    "white_score_high",
    "draw_rate",
    "avg_white_elo",
    "avg_black_elo",
    "expected_white_score",
];

/// A parsed stats CSV.
struct Csv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    fn parse(bytes: &[u8]) -> Csv {
        let mut reader = csv::Reader::from_reader(bytes);
        let header = reader
            .headers()
            .expect("stats writes a header")
            .iter()
            .map(str::to_string)
            .collect();
        let rows = reader
            .records()
            .map(|r| {
                r.expect("stats writes valid CSV")
                    .iter()
                    .map(str::to_string)
                    .collect()
            })
            .collect();
        Csv { header, rows }
    }

    fn column(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }

    /// The leading columns, `group` (when `grouped`) and the 15 of the issue.
    fn assert_header(&self, grouped: bool) {
        let mut expected: Vec<&str> = Vec::new();
        if grouped {
            expected.push("group");
        }
        expected.extend(COLUMNS);
        let leading: Vec<&str> = self
            .header
            .iter()
            .take(expected.len())
            .map(String::as_str)
            .collect();
        assert_eq!(leading, expected);
    }

    /// `(group, scharnagl)` of every row, in order; the group is empty
    /// when there is no group column.
    fn keys(&self) -> Vec<(String, u16)> {
        let id = self.column("scharnagl");
        let group = self.header.iter().position(|h| h == "group");
        self.rows
            .iter()
            .map(|row| {
                (
                    group.map_or_else(String::new, |g| row[g].clone()),
                    row[id].parse().expect("scharnagl is a number"),
                )
            })
            .collect()
    }

    fn sum(&self, name: &str) -> u64 {
        let i = self.column(name);
        self.rows
            .iter()
            .map(|row| row[i].parse::<u64>().expect("counts are integers"))
            .sum()
    }
}

/// One row as computed by hand: the 15 columns of the issue.
struct Expected {
    id: u16,
    fritz9: u16,
    position: &'static str,
    /// games, white_wins, draws, black_wins, unfinished
    counts: [u64; 5],
    /// white_score, white_score_low, white_score_high, draw_rate,
    /// avg_white_elo, avg_black_elo, expected_white_score; `None` is an
    /// empty cell.
    floats: [Option<f64>; 7],
}

/// Checks the 15 columns of `row`, which start at `offset` (1 after `group`).
fn assert_row(row: &[String], offset: usize, expected: &Expected) {
    let cells = &row[offset..offset + 15];
    let context = format!("row {row:?}");
    assert_eq!(cells[0], expected.id.to_string(), "scharnagl, {context}");
    assert_eq!(cells[1], expected.fritz9.to_string(), "fritz9, {context}");
    assert_eq!(cells[2], expected.position, "position, {context}");
    for (i, count) in expected.counts.iter().enumerate() {
        assert_eq!(
            cells[3 + i],
            count.to_string(),
            "{}, {context}",
            COLUMNS[3 + i]
        );
    }
    for (i, value) in expected.floats.iter().enumerate() {
        let name = COLUMNS[8 + i];
        let cell = &cells[8 + i];
        match value {
            None => assert_eq!(cell, "", "{name} must be empty, {context}"),
            Some(value) => {
                let decimals = cell.split_once('.').map_or(0, |(_, d)| d.len());
                assert!(decimals >= 4, "{name} {cell:?} has < 4 decimals");
                let parsed: f64 = cell
                    .parse()
                    .unwrap_or_else(|_| panic!("{name} {cell:?} is not a float, {context}"));
                // The cell and the hand value are each rounded (the hand
                // values to 6 decimals): no more slack than that, so that
                // z = 1.96 for 1.959964 (a Wilson bound 2e-6 to 8e-6 off
                // on these counts) does not pass.
                let slack = 0.5 * 10f64.powi(-(decimals as i32)) + 0.5e-6 + 1e-12;
                assert!(
                    (parsed - value).abs() <= slack,
                    "{name} is {parsed}, by hand {value} (within {slack:e}), {context}"
                );
            }
        }
    }
}

/// The stderr summary of a stats run.
#[derive(Debug, PartialEq, Eq)]
struct Summary {
    read: u64,
    chess960: u64,
    standard: u64,
    dfrc: u64,
    other: u64,
    unreadable: u64,
    counted: u64,
    rows: u64,
    below_min_elo: u64,
    /// Games left out as unplayed results.
    unplayed: u64,
}

/// The number right before `label` among `words`.
fn number_before(words: &[&str], label: &str, text: &str) -> u64 {
    let at = words
        .iter()
        .position(|w| w.trim_end_matches([',', ':', ';']) == label)
        .unwrap_or_else(|| panic!("no `N {label}` in {text:?}"));
    words[at - 1]
        .parse()
        .unwrap_or_else(|_| panic!("no number before {label} in {text:?}"))
}

/// Reads `pgn960 stats: R games read: C chess960, S standard, D dfrc, O
/// other, U unreadable` and the line after it, `counted N ... games in M
/// positions` (or `in M rows of G groups`), with `; B games below
/// --min-elo` when asked.
fn summary(stderr: &str) -> Summary {
    let mut lines = stderr
        .lines()
        .skip_while(|l| !l.starts_with("pgn960 stats:"));
    let head = lines
        .next()
        .unwrap_or_else(|| panic!("no summary in {stderr:?}"));
    let counted = lines.next().expect("the summary has a second line");
    let words: Vec<&str> = head.split_whitespace().collect();
    let read = words[2].parse().unwrap_or_else(|_| panic!("{head}"));
    assert!(
        head.contains(" read: ") && matches!(words[3], "games" | "game"),
        "{head}"
    );
    let second: Vec<&str> = counted.split_whitespace().collect();
    assert_eq!(second[0], "counted", "{counted}");
    let in_at = second.iter().position(|w| *w == "in").expect("`in`");
    let below = second.iter().position(|w| *w == "below").map_or(0, |at| {
        second[at - 2].parse().expect("a number below --min-elo")
    });
    let unplayed = second
        .iter()
        .position(|w| *w == "unplayed")
        .map_or(0, |at| {
            second[at - 1].parse().expect("a number of unplayed games")
        });
    Summary {
        read,
        chess960: number_before(&words, "chess960", head),
        standard: number_before(&words, "standard", head),
        dfrc: number_before(&words, "dfrc", head),
        other: number_before(&words, "other", head),
        unreadable: number_before(&words, "unreadable", head),
        counted: second[1].parse().expect("games counted"),
        rows: second[in_at + 1].parse().expect("rows"),
        below_min_elo: below,
        unplayed,
    }
}

/// `N` of `pgn960 tag: N games read` for the same input.
fn tag_games_read(path: &str) -> u64 {
    let run = pgn960(&["tag", path, "-o", "/dev/null"]);
    assert_eq!(run.code, 0, "pgn960 tag {path}:\n{}", run.stderr);
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("pgn960 tag:"))
        .unwrap_or_else(|| panic!("no tag summary in {:?}", run.stderr));
    line.split_whitespace()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no games read in {line:?}"))
}

// Hand arithmetic shared by the fixtures, with z = 1.959964:
//
//   z^2 = 3.841459
//   Wilson: d = 1 + z^2/n, center = (p + z^2/(2n)) / d,
//           half = z/d * sqrt(p(1-p)/n + z^2/(4n^2)), interval center -+ half.
//   Elo expectation E(dw) = 1 / (1 + 10^(-dw/400)), dw = WhiteElo - BlackElo:
//     E(+200) = 1/(1 + 0.316228) = 0.759747
//     E(-200) = 1/(1 + 3.162278) = 0.240253
//     E(+100) = 1/(1 + 0.562341) = 0.640065
//     E(-100) = 1/(1 + 1.778279) = 0.359935
//     E(-201) = 1/(1 + 3.180534) = 0.239204
//     E(0)    = 0.5

/// Position 0 (BBQNNRKR, Fritz 81) of `hand.pgn`, games A1..A7:
///
/// | game | Result    | WhiteElo | BlackElo | counts as            |
/// |------|-----------|----------|----------|----------------------|
/// | A1   | `1-0`     | 2200     | 2000     | white win, both      |
/// | A2   | `1/2-1/2` | 2000     | 2200     | draw, both           |
/// | A3   | `0-1`     | `?`      | 2100     | black win, black     |
/// | A4   | `1-0 `    | `""`     | `2100.5` | white win, neither   |
/// | A5   | `*`       | 2300     | 2200     | unfinished, both     |
/// | A6   | (none)    | 2400     | (none)   | unfinished, white    |
/// | A7   | `2-0`     | `2100.5` | `?`      | unfinished, neither  |
///
/// finished = 4 (2 white wins, 1 draw, 1 black win), unfinished = 3.
/// white_score = (2 + 1/2) / 4 = 0.625; draw_rate = 1/4 = 0.25.
/// Wilson p = 0.625, n = 4: d = 1 + 0.960365 = 1.960365,
///   center = (0.625 + 0.480182) / 1.960365 = 0.563764,
///   half = 0.999795 * sqrt(0.058594 + 0.060023) = 0.999795 * 0.344407
///        = 0.344337, so [0.219427, 0.908101].
/// avg_white_elo = (2200 + 2000 + 2300 + 2400) / 4 = 8900 / 4 = 2225.
/// avg_black_elo = (2000 + 2200 + 2100 + 2200) / 4 = 8500 / 4 = 2125.
/// expected = (E(+200) + E(-200) + E(+100)) / 3
///          = (0.759747 + 0.240253 + 0.640065) / 3 = 1.640065 / 3 = 0.546688.
const POSITION_0: Expected = Expected {
    id: 0,
    fritz9: 81,
    position: "BBQNNRKR",
    counts: [7, 2, 1, 1, 3],
    floats: [
        Some(0.625),
        Some(0.219427),
        Some(0.908101),
        Some(0.25),
        Some(2225.0),
        Some(2125.0),
        Some(0.546688),
    ],
};

/// Position 1 (BQNBNRKR, Fritz 82) of `hand.pgn`, games D1..D3, all `0-1`
/// (D3 written ` 0-1`): D1 2199-2400, D2 2200-2200, D3 2600-2700.
/// white_score = 0 / 3 = 0; draw_rate = 0.
/// Wilson p = 0, n = 3: d = 1 + 1.280486 = 2.280486,
///   center = (0 + 0.640243) / 2.280486 = 0.280749,
///   half = z/d * sqrt(z^2/36) = 0.859452 * 0.326661 = 0.280749,
///   so [0, 0.561497] (the low end is exactly 0).
/// avg_white_elo = (2199 + 2200 + 2600) / 3 = 6999 / 3 = 2333.
/// avg_black_elo = (2400 + 2200 + 2700) / 3 = 7300 / 3 = 2433.333333.
/// expected = (E(-201) + E(0) + E(-100)) / 3
///          = (0.239204 + 0.5 + 0.359935) / 3 = 1.099139 / 3 = 0.366380.
const POSITION_1: Expected = Expected {
    id: 1,
    fritz9: 82,
    position: "BQNBNRKR",
    counts: [3, 0, 0, 3, 0],
    floats: [
        Some(0.0),
        Some(0.0),
        Some(0.561497),
        Some(0.0),
        Some(2333.0),
        Some(2433.333333),
        Some(0.366380),
    ],
};

/// Position 518 (RNBQKBNR, Fritz 359) of `hand.pgn`: game C1, no FEN but
/// `Variant "Chess960"`, `1/2-1/2`, no ratings.
/// white_score = 0.5 / 1 = 0.5; draw_rate = 1.
/// Wilson p = 0.5, n = 1: center = 0.5, half = (z/2) / sqrt(1 + z^2)
///   = 0.979982 / 2.200332 = 0.445379, so [0.054621, 0.945379].
/// No ratings: both averages and the expectation are empty.
const POSITION_518: Expected = Expected {
    id: 518,
    fritz9: 359,
    position: "RNBQKBNR",
    counts: [1, 0, 1, 0, 0],
    floats: [
        Some(0.5),
        Some(0.054621),
        Some(0.945379),
        Some(1.0),
        None,
        None,
        None,
    ],
};

/// Position 959 (RKRNNQBB, Fritz 928) of `hand.pgn`: B1 `*` (WhiteElo
/// 2100, BlackElo ""), B2 `2-0` (WhiteElo "-", BlackElo "?").
/// No finished game: score, interval and draw rate are empty.
/// avg_white_elo = 2100 / 1; no integer BlackElo; never both rated.
const POSITION_959: Expected = Expected {
    id: 959,
    fritz9: 928,
    position: "RKRNNQBB",
    counts: [2, 0, 0, 0, 2],
    floats: [None, None, None, None, Some(2100.0), None, None],
};

#[test]
fn hand_computed_columns() {
    let run = stats_ok(&[&fixture("hand.pgn")]);
    let csv = Csv::parse(&run.stdout);
    csv.assert_header(false);
    assert_eq!(
        csv.keys().iter().map(|(_, id)| *id).collect::<Vec<_>>(),
        [0, 1, 518, 959],
        "one row per position with games, by Scharnagl id"
    );
    for (row, expected) in
        csv.rows
            .iter()
            .zip([&POSITION_0, &POSITION_1, &POSITION_518, &POSITION_959])
    {
        assert_row(row, 0, expected);
    }
    // S1 Double FRC, S2 set-up FEN and S5 Antichess, S3 `not a fen`,
    // S4 plain standard game: 18 games, 13 counted (7 + 3 + 1 + 2).
    assert_eq!(
        summary(&run.stderr),
        Summary {
            read: 18,
            chess960: 13,
            standard: 1,
            dfrc: 1,
            other: 2,
            unreadable: 1,
            counted: 13,
            rows: 4,
            below_min_elo: 0,
            unplayed: 0,
        }
    );
    assert_eq!(csv.sum("games"), 13);

    let quiet = stats_ok(&["-q", &fixture("hand.pgn")]);
    assert_eq!(quiet.stderr, "", "--quiet prints no summary");
    assert_eq!(quiet.stdout, run.stdout);
}

#[test]
fn include_standard_counts_standard_games_under_518() {
    let run = stats_ok(&["--include-standard", &fixture("hand.pgn")]);
    let csv = Csv::parse(&run.stdout);
    csv.assert_header(false);
    // 518 now holds C1 (1/2-1/2, unrated) and S4 (1-0, 2500 v 2400).
    // white_score = (1 + 1/2) / 2 = 0.75; draw_rate = 1/2.
    // Wilson p = 0.75, n = 2: d = 1 + 1.920729 = 2.920729,
    //   center = (0.75 + 0.960365) / 2.920729 = 0.585595,
    //   half = 0.671053 * sqrt(0.09375 + 0.240091) = 0.671053 * 0.577790
    //        = 0.387728, so [0.197867, 0.973323].
    // Ratings only from S4: 2500, 2400, E(+100) = 0.640065.
    let with_standard = Expected {
        id: 518,
        fritz9: 359,
        position: "RNBQKBNR",
        counts: [2, 1, 1, 0, 0],
        floats: [
            Some(0.75),
            Some(0.197867),
            Some(0.973323),
            Some(0.5),
            Some(2500.0),
            Some(2400.0),
            Some(0.640065),
        ],
    };
    assert_eq!(csv.rows.len(), 4);
    assert_row(&csv.rows[0], 0, &POSITION_0);
    assert_row(&csv.rows[1], 0, &POSITION_1);
    assert_row(&csv.rows[2], 0, &with_standard);
    assert_row(&csv.rows[3], 0, &POSITION_959);
    let summary = summary(&run.stderr);
    assert_eq!((summary.read, summary.counted), (18, 14));
    assert_eq!((summary.chess960, summary.standard), (13, 1));
    // The Double FRC, set-up and broken games stay out.
    assert_eq!((summary.dfrc, summary.other, summary.unreadable), (1, 2, 1));
}

#[test]
fn min_elo_keeps_games_where_both_players_reach_it() {
    let run = stats_ok(&["--min-elo", "2200", &fixture("hand.pgn")]);
    let csv = Csv::parse(&run.stdout);
    // Kept: A5 (2300 v 2200, `*`), D2 (2200 v 2200, the bound counts),
    // D3 (2600 v 2700). Dropped: A1 (Black 2000), A2 (White 2000), A3, A4,
    // A6, A7 (a side unrated), B1, B2, C1 (unrated), D1 (White 2199).
    //
    // Position 0: only A5, unfinished, so no score; ratings 2300 and 2200,
    // expectation E(+100) = 0.640065.
    let position_0 = Expected {
        id: 0,
        fritz9: 81,
        position: "BBQNNRKR",
        counts: [1, 0, 0, 0, 1],
        floats: [
            None,
            None,
            None,
            None,
            Some(2300.0),
            Some(2200.0),
            Some(0.640065),
        ],
    };
    // Position 1: D2 and D3, both 0-1. Wilson p = 0, n = 2:
    //   d = 2.920729, center = 0.960365 / 2.920729 = 0.328810 = half,
    //   so [0, 0.657620].
    // avg_white_elo = (2200 + 2600) / 2 = 2400; avg_black_elo = (2200 +
    // 2700) / 2 = 2450; expected = (0.5 + 0.359935) / 2 = 0.429968.
    let position_1 = Expected {
        id: 1,
        fritz9: 82,
        position: "BQNBNRKR",
        counts: [2, 0, 0, 2, 0],
        floats: [
            Some(0.0),
            Some(0.0),
            Some(0.657620),
            Some(0.0),
            Some(2400.0),
            Some(2450.0),
            Some(0.429968),
        ],
    };
    assert_eq!(csv.rows.len(), 2);
    assert_row(&csv.rows[0], 0, &position_0);
    assert_row(&csv.rows[1], 0, &position_1);
    // 13 countable games, 3 kept, 10 below --min-elo; the skipped
    // categories are decided before the rating filter.
    assert_eq!(
        summary(&run.stderr),
        Summary {
            read: 18,
            chess960: 13,
            standard: 1,
            dfrc: 1,
            other: 2,
            unreadable: 1,
            counted: 3,
            rows: 2,
            below_min_elo: 10,
            unplayed: 0,
        }
    );
}

#[test]
fn all_positions_writes_all_960_in_order() {
    let run = stats_ok(&["--all-positions", "-q", &fixture("hand.pgn")]);
    let text = String::from_utf8(run.stdout.clone()).expect("CSV is UTF-8");
    assert_eq!(text.lines().count(), 961, "a header and 960 rows");
    let csv = Csv::parse(&run.stdout);
    csv.assert_header(false);

    // fritz9 and position of every row agree with `pgn960 table`.
    let table = pgn960(&["table"]);
    assert_eq!(table.code, 0);
    let table = Csv::parse(&table.stdout);
    assert_eq!(table.rows.len(), 960);

    for (id, row) in csv.rows.iter().enumerate() {
        assert_eq!(row[0], id.to_string(), "rows sorted by Scharnagl id");
        assert_eq!(row[1..3], table.rows[id][1..3], "id {id}");
        match id {
            0 => assert_row(row, 0, &POSITION_0),
            1 => assert_row(row, 0, &POSITION_1),
            518 => assert_row(row, 0, &POSITION_518),
            959 => assert_row(row, 0, &POSITION_959),
            _ => {
                assert_eq!(row[3..8], ["0"; 5], "id {id}: no games");
                assert_eq!(row[8..15], [""; 7], "id {id}: empty float cells");
            }
        }
    }
}

/// `groups.pgn`, in file order:
///
/// | game | position | Event        | Date         | Result    |
/// |------|----------|--------------|--------------|-----------|
/// | G1   | 959      | Beta         | 2022.03.04   | 1-0       |
/// | G2   | 0        | Beta         | 2021.??.??   | 0-1       |
/// | G3   | 959      | Alpha        | 2021.01.01   | 1/2-1/2   |
/// | G4   | 0        | (none)       | (none)       | 1-0       |
/// | G5   | 518      | Alpha        | ????.??.??   | *         |
/// | G6   | 0        | Alpha        | 2022.12.31   | 1-0       |
/// | G7   | 1        | Open, "A"    | 2023.07.08   | 1-0       |
#[test]
fn group_by_event_and_year() {
    // (group, id, games, white_wins, draws, black_wins, unfinished)
    type Key<'a> = (&'a str, u16, [u64; 5]);
    fn check(csv: &Csv, expected: &[Key]) {
        csv.assert_header(true);
        assert_eq!(csv.header[0], "group");
        let got: Vec<(String, u16, Vec<u64>)> = csv
            .rows
            .iter()
            .map(|row| {
                (
                    row[0].clone(),
                    row[1].parse().expect("id"),
                    row[4..9]
                        .iter()
                        .map(|c| c.parse().expect("count"))
                        .collect(),
                )
            })
            .collect();
        let expected: Vec<(String, u16, Vec<u64>)> = expected
            .iter()
            .map(|(g, id, c)| (g.to_string(), *id, c.to_vec()))
            .collect();
        assert_eq!(got, expected);
    }

    // Sorted by group (bytes order: `?`, for a game without the tag,
    // before the letters), then id.
    let by_event = stats_ok(&["--group-by", "Event", &fixture("groups.pgn")]);
    let csv = Csv::parse(&by_event.stdout);
    check(
        &csv,
        &[
            ("?", 0, [1, 1, 0, 0, 0]),
            ("Alpha", 0, [1, 1, 0, 0, 0]),
            ("Alpha", 518, [1, 0, 0, 0, 1]),
            ("Alpha", 959, [1, 0, 1, 0, 0]),
            ("Beta", 0, [1, 0, 0, 1, 0]),
            ("Beta", 959, [1, 1, 0, 0, 0]),
            ("Open, \"A\"", 1, [1, 1, 0, 0, 0]),
        ],
    );
    // A lone finished game: Alpha/959 is one draw, score 0.5, [0.054621,
    // 0.945379] (worked out for POSITION_518), draw rate 1.
    assert_row(
        &csv.rows[3],
        1,
        &Expected {
            id: 959,
            fritz9: 928,
            position: "RKRNNQBB",
            counts: [1, 0, 1, 0, 0],
            floats: [
                Some(0.5),
                Some(0.054621),
                Some(0.945379),
                Some(1.0),
                None,
                None,
                None,
            ],
        },
    );
    assert_eq!(summary(&by_event.stderr).rows, 7);

    // The tag's name in any case: the same groups.
    let lower = stats_ok(&["--group-by", "event", &fixture("groups.pgn")]);
    assert_eq!(lower.stdout, by_event.stdout);

    // `year` (in any case) is the year of Date; `?` for `????.??.??` and
    // no Date, as for a missing tag. "2021" < "2022" < "2023" < "?" as
    // bytes.
    let by_year = stats_ok(&["--group-by", "year", &fixture("groups.pgn")]);
    let years: &[Key] = &[
        ("2021", 0, [1, 0, 0, 1, 0]),
        ("2021", 959, [1, 0, 1, 0, 0]),
        ("2022", 0, [1, 1, 0, 0, 0]),
        ("2022", 959, [1, 1, 0, 0, 0]),
        ("2023", 1, [1, 1, 0, 0, 0]),
        ("?", 0, [1, 1, 0, 0, 0]),
        ("?", 518, [1, 0, 0, 0, 1]),
    ];
    check(&Csv::parse(&by_year.stdout), years);
    for spelling in ["Year", "YEAR"] {
        let run = stats_ok(&["--group-by", spelling, &fixture("groups.pgn")]);
        assert_eq!(run.stdout, by_year.stdout, "--group-by {spelling}");
    }

    // No game has the tag: one group, `?`, otherwise the ungrouped table.
    let absent = stats_ok(&["--group-by", "TimeControl", &fixture("groups.pgn")]);
    check(
        &Csv::parse(&absent.stdout),
        &[
            ("?", 0, [3, 2, 0, 1, 0]),
            ("?", 1, [1, 1, 0, 0, 0]),
            ("?", 518, [1, 0, 0, 0, 1]),
            ("?", 959, [2, 1, 1, 0, 0]),
        ],
    );

    // --all-positions with groups: all 960 positions in each of the four.
    let all = stats_ok(&[
        "--group-by",
        "Event",
        "--all-positions",
        "-q",
        &fixture("groups.pgn"),
    ]);
    let all = Csv::parse(&all.stdout);
    assert_eq!(all.rows.len(), 4 * 960);
    let keys = all.keys();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "sorted by group, then id");
    assert_eq!(all.sum("games"), 7);
}

#[test]
fn several_inputs_make_one_table_and_merge_like_one_run() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let hand = fixture("hand.pgn");
    let groups = fixture("groups.pgn");
    for options in [
        &[][..],
        &["--group-by", "Event"][..],
        &["--min-elo", "2200"][..],
        &["--include-standard", "--group-by", "year"][..],
    ] {
        let mut shard_csvs = Vec::new();
        for (i, input) in [&hand, &groups].into_iter().enumerate() {
            let out = dir.path().join(format!("shard{i}.csv"));
            let mut args = options.to_vec();
            args.extend(["-q", input, "-o", path_str(&out)]);
            stats_ok(&args);
            shard_csvs.push(out);
        }
        let mut one_run = options.to_vec();
        one_run.extend(["-q", &hand, &groups]);
        let one_run = stats_ok(&one_run).stdout;

        let mut merge = vec!["--merge", "-q"];
        merge.extend(shard_csvs.iter().map(|p| path_str(p)));
        assert_eq!(
            String::from_utf8_lossy(&stats_ok(&merge).stdout),
            String::from_utf8_lossy(&one_run),
            "merge of {options:?}"
        );
    }
}

/// The games of `text`, each starting at a line `[Event ...`.
fn games_of(text: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = text
        .match_indices("\n[Event ")
        .map(|(i, _)| i + 1)
        .collect();
    if text.starts_with("[Event ") {
        starts.insert(0, 0);
    }
    assert_eq!(starts.first(), Some(&0), "the text starts with a game");
    starts.push(text.len());
    starts.windows(2).map(|w| &text[w[0]..w[1]]).collect()
}

#[test]
fn merge_of_real_shards_equals_one_run_byte_for_byte() {
    let files = [
        "tcec-s16-frc-sufi.pgn.zst",
        "tcec-s26-frc-no-castling-bonus.pgn.zst",
        "chess960-events-headers-first300.pgn",
        "lichessbot-chess960-book-first200.pgn",
    ]
    .map(sample_file);
    // Every game starts with an Event tag in these files: 20 + 24 + 300
    // + 200 games.
    merge_of_shards_equals_one_run(&files, 20 + 24 + 300 + 200);
}

#[test]
fn merge_of_corpus_shards_equals_one_run_byte_for_byte() {
    let Some(corpus) = corpus_or_skip("stats::merge_of_corpus_shards_equals_one_run_byte_for_byte")
    else {
        return;
    };
    let files = [
        "tcec-s16-frc-sufi.pgn",
        "tcec-s26-frc-no-castling-bonus.pgn",
        "chess960-events-headers.pgn",
        "lichessbot-chess960-book.pgn",
    ]
    .map(|name| corpus.file(&format!("real/{name}")));
    // Every game starts with an Event tag in these files: 20 + 24 + 4444
    // + 1001 games.
    merge_of_shards_equals_one_run(&files, 20 + 24 + 4444 + 1001);
}

/// The games of `files` dealt round-robin into three shards: `stats` of
/// each shard, merged, is byte for byte `stats` of all three in one run.
fn merge_of_shards_equals_one_run(files: &[PathBuf], game_count: u64) {
    let mut text = String::new();
    for file in files {
        let file = String::from_utf8(read_pgn(file)).expect("the real archives are UTF-8");
        text.push_str(&file);
        if !text.ends_with("\n\n") {
            text.push('\n');
        }
    }
    // Dealing the games round-robin puts the games of most positions into
    // every shard, so the merge has real sums to add.
    let games = games_of(&text);
    assert_eq!(games.len() as u64, game_count);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut shards: Vec<String> = Vec::new();
    for i in 0..3 {
        let shard: String = games.iter().skip(i).step_by(3).copied().collect();
        let path = dir.path().join(format!("shard{i}.pgn"));
        fs::write(&path, shard).expect("the shard is written");
        shards.push(path_str(&path).to_string());
    }

    for (label, options) in [
        // Copies across shards are the shards' business: kept here.
        ("plain", &["--keep-duplicates"][..]),
        ("by year", &["--keep-duplicates", "--group-by", "year"][..]),
        (
            "all positions",
            &["--keep-duplicates", "--all-positions"][..],
        ),
    ] {
        let mut csvs = Vec::new();
        let mut read = 0;
        for (i, shard) in shards.iter().enumerate() {
            let out = dir.path().join(format!("{i}.csv"));
            let mut args = options.to_vec();
            args.extend([shard.as_str(), "-o", path_str(&out)]);
            read += summary(&stats_ok(&args).stderr).read;
            csvs.push(out);
        }
        let mut one_run = options.to_vec();
        one_run.extend(shards.iter().map(String::as_str));
        let one_run = stats_ok(&one_run);
        assert_eq!(read, game_count, "{label}: the shards hold every game once");
        assert_eq!(summary(&one_run.stderr).read, game_count, "{label}");
        // `--all-positions` is a property of the writing, so it is given
        // to the merge again; grouping comes from the CSVs.
        let merged_out = dir.path().join("merged.csv");
        let mut merge = vec!["--merge", "-o", path_str(&merged_out)];
        if options.contains(&"--all-positions") {
            merge.push("--all-positions");
        }
        merge.extend(csvs.iter().map(|p| path_str(p)));
        stats_ok(&merge);
        let merged = fs::read(&merged_out).expect("the merge wrote its output");
        assert!(
            merged == one_run.stdout,
            "{label}: merge differs from one run\n--- merge\n{}\n--- one run\n{}",
            String::from_utf8_lossy(&merged),
            String::from_utf8_lossy(&one_run.stdout)
        );
        if label == "all positions" {
            assert_eq!(Csv::parse(&merged).rows.len(), 960);
        }
    }
}

#[test]
fn merge_rejects_mixed_grouping_and_foreign_files() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plain = dir.path().join("plain.csv");
    let grouped = dir.path().join("grouped.csv");
    stats_ok(&["-q", &fixture("groups.pgn"), "-o", path_str(&plain)]);
    stats_ok(&[
        "-q",
        "--group-by",
        "year",
        &fixture("groups.pgn"),
        "-o",
        path_str(&grouped),
    ]);
    let table = dir.path().join("table.csv");
    fs::write(&table, pgn960(&["table"]).stdout).expect("table CSV written");
    let nothing = dir.path().join("empty.csv");
    fs::write(&nothing, "").expect("empty file written");
    let missing = dir.path().join("missing.csv");

    let foreign = [
        (
            vec![path_str(&plain), path_str(&grouped)],
            "ungrouped then grouped",
        ),
        (
            vec![path_str(&grouped), path_str(&plain)],
            "grouped then ungrouped",
        ),
        (
            vec![path_str(&plain), path_str(&table)],
            "pgn960 table output",
        ),
        (vec![path_str(&nothing)], "an empty file"),
        (vec![path_str(&missing)], "a missing file"),
    ];
    let hand = fixture("hand.pgn");
    let pgn = (vec![hand.as_str()], "a PGN file");
    for (inputs, what) in foreign.into_iter().chain([pgn]) {
        let mut args = vec!["stats", "--merge"];
        args.extend(inputs);
        let run = pgn960(&args);
        assert_eq!(run.code, 2, "merging {what}: {}", run.stderr);
        assert_eq!(
            run.stderr.lines().count(),
            1,
            "merging {what}: one line: {:?}",
            run.stderr
        );
        assert!(run.stderr.starts_with("pgn960: "), "{what}: {}", run.stderr);
    }
}

#[test]
fn compression_and_standard_input_change_nothing() {
    let plain = fs::read(fixture("hand.pgn")).expect("the fixture is readable");
    let dir = tempfile::tempdir().expect("a temporary directory");

    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&plain).expect("gzip");
    let mut bzip2 = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bzip2.write_all(&plain).expect("bzip2");
    let mut xz = xz2::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(&plain).expect("xz");
    // Named without their extensions: the format is sniffed from content.
    let encoded = [
        ("gz", gzip.finish().expect("gzip")),
        ("zst", zstd::encode_all(&plain[..], 3).expect("zstd")),
        ("bz2", bzip2.finish().expect("bzip2")),
        ("xz", xz.finish().expect("xz")),
    ];

    let args = ["--include-standard", "--group-by", "Event"];
    let reference = stats_ok(&[&args[..], &[fixture("hand.pgn").as_str()]].concat());
    let reference_summary = summary(&reference.stderr);
    for (name, bytes) in &encoded {
        let path = dir.path().join(format!("hand-{name}"));
        fs::write(&path, bytes).expect("compressed fixture written");
        let run = stats_ok(&[&args[..], &[path_str(&path)]].concat());
        assert_eq!(run.stdout, reference.stdout, "{name}");
        assert_eq!(summary(&run.stderr), reference_summary, "{name}");
    }
    for stdin_args in [&args[..], &[&args[..], &["-"]].concat()] {
        let mut all = vec!["stats"];
        all.extend_from_slice(stdin_args);
        for bytes in [&plain, &encoded[1].1] {
            let run = pgn960_with_stdin(&all, bytes);
            assert_eq!(run.code, 0, "{all:?}: {}", run.stderr);
            assert_eq!(run.stdout, reference.stdout, "{all:?}");
            assert_eq!(summary(&run.stderr), reference_summary, "{all:?}");
        }
    }
}

/// The four TCEC samples twice over, as one plain file of more than
/// 2 MiB (split on several threads at once, in batches of 1 MiB): 112
/// games, 20 of them Double FRC (`grep -c '^\[Event '`; s22 is all Double
/// FRC).
#[test]
fn thread_count_changes_nothing_on_the_tcec_samples() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("tcec.pgn");
    let bytes = samples_repeated(
        &[
            "tcec-s16-frc-sufi.pgn.zst",
            "tcec-s22-dfrc-unbust-bonus.pgn.zst",
            "tcec-s26-frc-no-castling-bonus.pgn.zst",
            "tcec-s29-frd5-league-b-tiebreak.pgn",
        ],
        2,
    );
    assert!(bytes.len() > 2 << 20);
    fs::write(&path, bytes).expect("temporary file written");
    assert_thread_count_changes_nothing(path_str(&path), 112, 20);
}

/// The big TCEC archive of the corpus runs twice, and only here: it also
/// stands in for the archive in `every_corpus_archive_is_counted`.
#[test]
fn thread_count_changes_nothing_on_the_corpus_tcec_archive() {
    let Some(corpus) =
        corpus_or_skip("stats::thread_count_changes_nothing_on_the_corpus_tcec_archive")
    else {
        return;
    };
    // 5,232 games, 1,554 of them Double FRC, as `../shared/data/README.md`
    // lists and as `pgn960 tag` reports (not run here: the file takes half
    // a minute in a debug build).
    assert_thread_count_changes_nothing(&real(&corpus, "tcec-frc-dfrc-all.pgn.zst"), 5232, 1554);
}

/// `stats` at one and two threads writes the same of `path`, which has
/// `games` games, `double_frc` of them Double FRC.
fn assert_thread_count_changes_nothing(path: &str, games: u64, double_frc: u64) {
    let [one, two] = std::thread::scope(|scope| {
        ["1", "2"]
            .map(|threads| {
                scope.spawn(move || stats_ok(&["--keep-duplicates", "--threads", threads, path]))
            })
            .map(|handle| handle.join().expect("the run thread does not panic"))
    });
    assert!(
        one.stdout == two.stdout,
        "--threads 1 and --threads 2 write different CSVs"
    );
    assert_eq!(summary(&one.stderr), summary(&two.stderr));

    let summary = summary(&one.stderr);
    assert_eq!(summary.read, games);
    assert_eq!(summary.dfrc, double_frc);
    assert_eq!(summary.counted + summary.unplayed, summary.chess960);
    assert_eq!(
        summary.read,
        summary.chess960 + summary.standard + summary.dfrc + summary.other + summary.unreadable
    );
    let csv = Csv::parse(&one.stdout);
    csv.assert_header(false);
    assert_eq!(csv.sum("games"), summary.counted);
    assert_eq!(csv.rows.len() as u64, summary.rows);
}

/// Grouped rows come from many batches too (1 MiB each): the 300 event
/// headers of the sample eighteen times over (2.1 MB, a plain file split
/// on several threads) and the 200 book games.
#[test]
fn thread_count_changes_nothing_when_grouped() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let events = dir.path().join("events.pgn");
    let bytes = samples_repeated(&["chess960-events-headers-first300.pgn"], 18);
    assert!(bytes.len() > 2 << 20);
    fs::write(&events, bytes).expect("temporary file written");
    let book = sample_file("lichessbot-chess960-book-first200.pgn");
    assert_grouped_thread_count_changes_nothing(
        &[path_str(&events), path_str(&book)],
        300 * 18 + 200,
    );
}

/// The same on the corpus's events files (the 1.7 MB events file alone
/// makes two batches) and its whole book.
#[test]
fn thread_count_changes_nothing_when_grouped_on_the_corpus() {
    let Some(corpus) =
        corpus_or_skip("stats::thread_count_changes_nothing_when_grouped_on_the_corpus")
    else {
        return;
    };
    let inputs = [
        real(&corpus, "chess960-events-headers.pgn"),
        real(&corpus, "freestyle-events-headers.pgn"),
        real(&corpus, "lichessbot-chess960-book.pgn"),
    ];
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    assert_grouped_thread_count_changes_nothing(&inputs, 4444 + 983 + 1001);
}

/// `stats --group-by Event` over `inputs` writes the same at one and two
/// threads, and counts `games` games.
fn assert_grouped_thread_count_changes_nothing(inputs: &[&str], games: u64) {
    let run = |threads: &str| {
        let mut args = vec![
            "--keep-duplicates",
            "--group-by",
            "Event",
            "--threads",
            threads,
            "-q",
        ];
        args.extend_from_slice(inputs);
        stats_ok(&args).stdout
    };
    let one = run("1");
    assert!(one == run("2"), "--threads 1 and --threads 2 differ");
    assert_eq!(Csv::parse(&one).sum("games"), games);
}

#[test]
fn every_sample_archive_is_counted() {
    let paths = sample_archives();
    assert!(paths.len() >= 8, "{paths:?}");
    count_every_archive(&paths);
}

#[test]
fn every_corpus_archive_is_counted() {
    let Some(corpus) = corpus_or_skip("stats::every_corpus_archive_is_counted") else {
        return;
    };
    let mut paths: Vec<PathBuf> = fs::read_dir(corpus.dir().join("real"))
        .expect("the corpus's real/ is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| {
            // thread_count_changes_nothing_on_the_corpus_tcec_archive
            !path.ends_with("tcec-frc-dfrc-all.pgn.zst")
        })
        .collect();
    paths.sort();
    assert!(paths.len() >= 9, "{paths:?}");
    count_every_archive(&paths);
}

/// `stats` on each of `paths` reads the games `tag` reads and counts or
/// skips each once.
fn count_every_archive(paths: &[PathBuf]) {
    for path in paths {
        let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
        let path = path_str(path);
        let run = stats_ok(&["--keep-duplicates", path]);
        let summary = summary(&run.stderr);
        assert_eq!(summary.read, tag_games_read(path), "{name}: games read");
        let csv = Csv::parse(&run.stdout);
        csv.assert_header(false);
        assert_eq!(csv.sum("games"), summary.counted, "{name}");
        assert_eq!(csv.rows.len() as u64, summary.rows, "{name}");
        assert_eq!(summary.below_min_elo, 0, "{name}");
        assert_eq!(
            summary.counted, summary.chess960,
            "{name}: every chess960 game counted"
        );
        assert_eq!(
            summary.chess960 + summary.dfrc + summary.other + summary.standard + summary.unreadable,
            summary.read,
            "{name}: every game is of one kind"
        );
        match name {
            // FENs after three moves: set-up positions, nothing counted.
            "stockfish-book-3moves-frc.pgn.zst" => {
                assert_eq!(summary.read, 126_113);
                assert_eq!(summary.counted, 0);
                assert_eq!(summary.other, 126_113);
            }
            // Double FRC only: no rows.
            "tcec-s22-dfrc-unbust-bonus.pgn" | "tcec-s22-dfrc-unbust-bonus.pgn.zst" => {
                assert!(csv.rows.is_empty());
                assert_eq!(summary.dfrc, 10);
            }
            _ => {}
        }
    }
}

#[test]
fn every_edge_sample_runs_without_panic() {
    let files = run_every_edge_file(&samples_dir().join("edge"));
    assert!(files >= 17, "only {files} edge samples");
}

#[test]
fn every_corpus_edge_file_runs_without_panic() {
    let Some(corpus) = corpus_or_skip("stats::every_corpus_edge_file_runs_without_panic") else {
        return;
    };
    let files = run_every_edge_file(&corpus.dir().join("edge"));
    assert!(files > 100, "only {files} edge files");
}

/// Runs `stats` over every file of each folder of `edge`; returns how many
/// files there were.
fn run_every_edge_file(edge: &Path) -> usize {
    // One run per folder keeps this quick (a debug process per file costs
    // seconds in all). Each input is read by a pipeline of its own, so a
    // folder run fails exactly when one of its files does; the files are
    // then run one by one to name the culprit.
    let mut files = 0;
    for dir in fs::read_dir(edge).expect("the edge folder is readable") {
        let dir = dir.expect("a directory entry").path();
        let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
            .expect("an edge folder is readable")
            .map(|file| file.expect("a directory entry").path())
            .collect();
        paths.sort();
        files += paths.len();
        let mut args = vec!["stats"];
        args.extend(paths.iter().map(|p| path_str(p)));
        let run = run_unchecked(&args, b"");
        if run.code != 0 || run.stderr.contains("panicked") {
            for path in &paths {
                let one = run_unchecked(&["stats", path_str(path)], b"");
                assert!(
                    one.code == 0 && !one.stderr.contains("panicked"),
                    "{}: exit {}\n{}",
                    path.display(),
                    one.code,
                    one.stderr
                );
            }
            panic!(
                "{}: fails together but no file fails alone:\n{}",
                dir.display(),
                run.stderr
            );
        }
        let summary = summary(&run.stderr);
        assert_eq!(Csv::parse(&run.stdout).sum("games"), summary.counted);
    }
    files
}

/// `pgn960 stats ... | head` must end quietly, as `tag` and `table` do.
#[test]
fn broken_pipe_is_a_quiet_exit() {
    use std::process::{Command as Process, Stdio};

    let mut child = Process::new(assert_cmd::cargo::cargo_bin("pgn960"))
        .args(["stats", "--all-positions", "-q", &fixture("hand.pgn")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pgn960 starts");
    // Closing the read end before anything is read: every write fails
    // with EPIPE (Rust ignores SIGPIPE).
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("pgn960 ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!((output.status.code(), stderr.as_ref()), (Some(0), ""));
}
