//! The tests across positions of `pgn960 stats` (the research columns of
//! the CSV, `--summary`, `--funnel`), run as a user would run them, against
//! numbers computed independently of pgn960.
//!
//! `testdata/stats/research.pgn` (written by `make_research_pgn.py` beside
//! it; 240 games at 9 positions, a White advantage planted at 518) is read
//! again by `testdata/stats/reference.py`, which computes every expected
//! number with scipy (chi-square test, normal and chi-square tails,
//! Benjamini–Hochberg), statsmodels (DerSimonian–Laird τ²) and
//! python-chess (the positions), not with pgn960's code. The numbers are
//! in `stats_research/reference.rs`, with the commands. The reference sums
//! the exact Elo expectation; pgn960 sums it rounded to 10^-9 per game, so
//! the numbers that rest on it agree to about 1e-8.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Run, pgn960};

mod reference;

use reference::{ALPHA_ROWS, ALPHA_TESTS, BETA_ROWS, BETA_TESTS, ROWS, Row, TESTS, Tests};

/// The 21 columns of the versions before the research columns, which keep
/// their places.
const OLD_COLUMNS: [&str; 21] = [
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
    "white_elo_count",
    "white_elo_sum",
    "black_elo_count",
    "black_elo_sum",
    "both_rated",
    "expected_white_e9",
];

/// The research columns after them, as the issue lists them, then their sums.
const RESEARCH_COLUMNS: [&str; 11] = [
    "elo_games",
    "white_score_vs_elo",
    "z",
    "p_value",
    "q_value",
    "white_score_shrunk",
    "white_score_shrunk_low",
    "white_score_shrunk_high",
    "elo_points_x2",
    "elo_expected_e9",
    "elo_variance_e9",
];

/// The keys of a `--summary` object, in the order.
const SUMMARY_KEYS: [&str; 14] = [
    "positions",
    "finished_games",
    "wdl_chi2",
    "wdl_df",
    "wdl_p",
    "elo_positions",
    "elo_games",
    "elo_delta",
    "elo_q",
    "elo_df",
    "elo_p",
    "shrink_mu",
    "shrink_tau2",
    "significant",
];

fn research_pgn() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stats/research.pgn")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// `pgn960 stats ARGS`, which must succeed.
fn stats(args: &[&str]) -> Run {
    let mut all = vec!["stats", "-q"];
    all.extend_from_slice(args);
    let run = pgn960(&all, None);
    assert_eq!(run.code, 0, "pgn960 {all:?}: {}", run.stderr);
    run
}

/// `got` within `relative` of `want` (or both 0).
fn assert_close(got: f64, want: f64, relative: f64, what: &str) {
    let scale = want.abs().max(f64::MIN_POSITIVE);
    assert!(
        (got - want).abs() <= relative * scale,
        "{what}: {got}, the reference {want}"
    );
}

/// The CSV's rows of `group` (all rows when `None`), checked against
/// `expected`: the header keeps the old columns in their places and puts
/// the research columns after them; each research cell is the reference
/// value as printed (six decimals, or six significant digits for p and q).
fn assert_research_rows(csv: &[u8], group: Option<&str>, expected: &[Row]) {
    let mut reader = csv::Reader::from_reader(csv);
    let header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_string)
        .collect();
    let offset = usize::from(group.is_some());
    let want: Vec<&str> = OLD_COLUMNS
        .iter()
        .chain(&RESEARCH_COLUMNS)
        .copied()
        .collect();
    assert_eq!(header[offset..], want[..], "the columns and their order");
    let column = |name: &str| header.iter().position(|h| h == name).expect("a column");
    let rows: Vec<csv::StringRecord> = reader
        .records()
        .map(|r| r.expect("a record"))
        .filter(|r| group.is_none_or(|g| &r[0] == g))
        .collect();
    let ids: Vec<u16> = rows
        .iter()
        .map(|r| r[column("scharnagl")].parse().expect("a number"))
        .collect();
    let want_ids: Vec<u16> = expected.iter().map(|(id, _, _)| *id).collect();
    assert_eq!(ids, want_ids, "{group:?}: the rows");
    for (row, (id, elo_games, cells)) in rows.iter().zip(expected) {
        let what = |name: &str| format!("{group:?} {id} {name}");
        assert_eq!(
            row[column("elo_games")],
            elo_games.to_string(),
            "{}",
            what("elo_games")
        );
        for (name, want) in RESEARCH_COLUMNS[1..8].iter().zip(cells) {
            let cell = &row[column(name)];
            let Some(want) = want else {
                assert_eq!(cell, "", "{} must be empty", what(name));
                continue;
            };
            let got: f64 = cell
                .parse()
                .unwrap_or_else(|_| panic!("{}: {cell:?}", what(name)));
            if ["p_value", "q_value"].contains(name) {
                assert!(six_significant_digits(cell), "{}: {cell:?}", what(name));
                assert_close(got, *want, 1e-5, &what(name));
            } else {
                assert_eq!(
                    cell.split_once('.').map(|(_, d)| d.len()),
                    Some(6),
                    "{}",
                    what(name)
                );
                assert!(
                    (got - want).abs() < 1.5e-6,
                    "{}: {got}, the reference {want}",
                    what(name)
                );
            }
        }
    }
}

/// `d.ddddde±x`: six significant digits, as `1.23457e-12`.
fn six_significant_digits(cell: &str) -> bool {
    let Some((mantissa, exponent)) = cell.split_once('e') else {
        return false;
    };
    let digits: Vec<&str> = mantissa.split('.').collect();
    digits.len() == 2
        && digits[0].len() == 1
        && digits[1].len() == 5
        && mantissa.chars().all(|c| c.is_ascii_digit() || c == '.')
        && exponent.parse::<i32>().is_ok()
}

/// A `--summary` object against the reference: exactly its keys, the
/// counts exact, the numbers to `1e-7` (the Elo sums are rounded).
fn assert_tests(object: &Value, expected: &Tests, what: &str) {
    let keys: BTreeSet<&str> = object
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not an object: {object}"))
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, SUMMARY_KEYS.into_iter().collect(), "{what}: the keys");
    let count = |key: &str| object[key].as_u64();
    let number = |key: &str, want: Option<f64>| match want {
        None => assert!(object[key].is_null(), "{what} {key}: {}", object[key]),
        Some(want) => {
            let got = object[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{what} {key}"));
            assert_close(got, want, 1e-7, &format!("{what} {key}"));
        }
    };
    assert_eq!(count("positions"), Some(expected.positions), "{what}");
    assert_eq!(
        count("finished_games"),
        Some(expected.finished_games),
        "{what}"
    );
    assert_eq!(count("wdl_df"), expected.wdl_df, "{what}");
    assert_eq!(
        count("elo_positions"),
        Some(expected.elo_positions),
        "{what}"
    );
    assert_eq!(count("elo_games"), Some(expected.elo_games), "{what}");
    assert_eq!(count("elo_df"), expected.elo_df, "{what}");
    number("wdl_chi2", expected.wdl_chi2);
    number("wdl_p", expected.wdl_p);
    number("elo_delta", expected.elo_delta);
    number("elo_q", expected.elo_q);
    number("elo_p", expected.elo_p);
    number("shrink_mu", expected.shrink_mu);
    number("shrink_tau2", expected.shrink_tau2);
    let significant: Vec<u64> = object["significant"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: significant is a list"))
        .iter()
        .map(|id| id.as_u64().expect("a Scharnagl number"))
        .collect();
    let want: Vec<u64> = expected
        .significant
        .iter()
        .map(|&id| u64::from(id))
        .collect();
    assert_eq!(significant, want, "{what}: significant");
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).expect("the summary is written");
    assert!(text.ends_with("}\n"), "one object and a newline: {text}");
    serde_json::from_str(&text).expect("the summary is JSON")
}

#[test]
fn research_columns_and_summary_match_the_reference() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let summary = dir.path().join("tests.json");
    let run = stats(&[path(&research_pgn()), "--summary", path(&summary)]);
    assert_research_rows(&run.stdout, None, &ROWS);
    let tests = read_json(&summary);
    assert_tests(&tests, &TESTS, "ungrouped");
    // The keys in the order, as written.
    let text = fs::read_to_string(&summary).expect("written");
    let at: Vec<usize> = SUMMARY_KEYS
        .iter()
        .map(|key| text.find(&format!("\"{key}\":")).expect("the key"))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
}

#[test]
fn grouped_research_columns_and_summary_match_the_reference() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let summary = dir.path().join("tests.json");
    let run = stats(&[
        path(&research_pgn()),
        "--group-by",
        "Event",
        "--summary",
        path(&summary),
    ]);
    assert_research_rows(&run.stdout, Some("Alpha"), &ALPHA_ROWS);
    assert_research_rows(&run.stdout, Some("Beta"), &BETA_ROWS);
    let json = read_json(&summary);
    let root = json.as_object().expect("an object");
    assert_eq!(root.keys().collect::<Vec<_>>(), ["groups"]);
    let groups = json["groups"].as_object().expect("groups is an object");
    assert_eq!(groups.keys().collect::<Vec<_>>(), ["Alpha", "Beta"]);
    assert_tests(&groups["Alpha"], &ALPHA_TESTS, "Alpha");
    assert_tests(&groups["Beta"], &BETA_TESTS, "Beta");
}

/// Where a test has nothing to test, its values are null: no games at all,
/// or a single position (no degrees of freedom, no spread to estimate).
#[test]
fn undefined_tests_are_null() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let empty = dir.path().join("empty.pgn");
    fs::write(&empty, "").expect("writable");
    let one = dir.path().join("one.pgn");
    fs::write(
        &one,
        "[Result \"1-0\"]\n[WhiteElo \"2500\"]\n[BlackElo \"2400\"]\n[Variant \"Chess960\"]\n\
         [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1-0\n",
    )
    .expect("writable");
    let summary = dir.path().join("tests.json");

    stats(&[path(&empty), "--summary", path(&summary)]);
    let nothing = Tests {
        positions: 0,
        finished_games: 0,
        wdl_chi2: None,
        wdl_df: None,
        wdl_p: None,
        elo_positions: 0,
        elo_games: 0,
        elo_delta: None,
        elo_q: None,
        elo_df: None,
        elo_p: None,
        shrink_mu: None,
        shrink_tau2: None,
        significant: &[],
    };
    assert_tests(&read_json(&summary), &nothing, "no games");

    stats(&[
        path(&empty),
        "--group-by",
        "Event",
        "--summary",
        path(&summary),
    ]);
    assert_eq!(read_json(&summary), serde_json::json!({ "groups": {} }));

    // One game, at position 0, White (2500) beating Black (2400): one
    // row, so the chi-square has 0 degrees of freedom (statistic 0, no p);
    // δ is that game's excess, so z = 0 and Q = 0 on 0 degrees of freedom.
    let run = stats(&[path(&one), "--summary", path(&summary)]);
    let one_game = Tests {
        positions: 1,
        finished_games: 1,
        wdl_chi2: Some(0.0),
        wdl_df: Some(0),
        elo_positions: 1,
        elo_games: 1,
        // python3 -c "print(1 - 1 / (1 + 10**(-100/400)))"
        elo_delta: Some(0.3599350001971149),
        elo_q: Some(0.0),
        elo_df: Some(0),
        ..nothing
    };
    assert_tests(&read_json(&summary), &one_game, "one game");
    let csv = String::from_utf8(run.stdout).expect("UTF-8");
    let row: Vec<&str> = csv.lines().nth(1).expect("a row").split(',').collect();
    // elo_games 1, white_score_vs_elo 0.359935, z 0, p 1, q 1, no estimate.
    assert_eq!(
        row[21..29],
        [
            "1",
            "0.359935",
            "0.000000",
            "1.00000e0",
            "1.00000e0",
            "",
            "",
            ""
        ]
    );
}

/// The games of `text`, each from its `[Event` line.
fn games_of(text: &str) -> Vec<String> {
    text.split("\n\n[Event ")
        .enumerate()
        .map(|(i, game)| {
            let game = game.trim_end_matches('\n');
            if i == 0 {
                format!("{game}\n\n")
            } else {
                format!("[Event {game}\n\n")
            }
        })
        .collect()
}

/// Shards of the fixture, counted apart and merged, give the CSV, the
/// summary and both plots of one run over the whole, byte for byte.
#[test]
fn a_merge_writes_the_summary_and_plots_of_one_run() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let d = dir.path();
    let text = fs::read_to_string(research_pgn()).expect("the fixture is readable");
    let games = games_of(&text);
    assert_eq!(games.len(), 240);
    let shards: Vec<PathBuf> = (0..3)
        .map(|i| {
            let shard: String = games
                .iter()
                .skip(i)
                .step_by(3)
                .map(String::as_str)
                .collect();
            let file = d.join(format!("shard{i}.pgn"));
            fs::write(&file, shard).expect("writable");
            file
        })
        .collect();
    for options in [&[][..], &["--group-by", "Event"][..]] {
        let outputs = |name: &str| -> Vec<PathBuf> {
            ["csv", "json", "funnel.svg", "plot.svg"]
                .iter()
                .map(|ext| d.join(format!("{name}.{ext}")))
                .collect()
        };
        let run = |inputs: &[&str], options: &[&str], name: &str| {
            let [csv, json, funnel, plot] = &outputs(name)[..] else {
                unreachable!("four outputs")
            };
            let mut args = options.to_vec();
            args.extend(inputs);
            args.extend(["-o", path(csv), "--summary", path(json)]);
            args.extend(["--funnel", path(funnel), "--plot", path(plot)]);
            stats(&args);
        };
        let shard_csvs: Vec<PathBuf> = shards
            .iter()
            .enumerate()
            .map(|(i, shard)| {
                let name = format!("shard{i}");
                run(&[path(shard)], options, &name);
                outputs(&name)[0].clone()
            })
            .collect();
        let merged: Vec<&str> = shard_csvs.iter().map(|p| path(p)).collect();
        run(&merged, &["--merge"], "merged");
        let whole: Vec<&str> = shards.iter().map(|p| path(p)).collect();
        run(&whole, options, "one-run");
        for (merged, one_run) in outputs("merged").iter().zip(outputs("one-run")) {
            let (merged_bytes, one_run_bytes) = (fs::read(merged), fs::read(&one_run));
            assert!(
                merged_bytes.expect("written") == one_run_bytes.expect("written"),
                "{options:?}: {} differs from {}",
                merged.display(),
                one_run.display()
            );
        }
        if options.is_empty() {
            assert_tests(&read_json(&outputs("merged")[1]), &TESTS, "merged");
        }
    }
}

/// A CSV of a version before the research columns lacks their sums, which
/// no merge can make up: it is refused, in one line that says why.
#[test]
fn merge_refuses_a_csv_without_the_research_sums() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let run = stats(&[path(&research_pgn())]);
    let old: String = String::from_utf8(run.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| line.split(',').take(21).collect::<Vec<_>>().join(",") + "\n")
        .collect();
    let old_csv = dir.path().join("old.csv");
    fs::write(&old_csv, old).expect("writable");
    let run = pgn960(&["stats", "--merge", path(&old_csv)], None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "pgn960: {}: no `elo_games` column: written by an older `pgn960 stats`, \
         whose sums cannot be merged exactly; count its archive again\n"
            .replace("{}", path(&old_csv))
    );
    assert!(run.stdout.is_empty());
}

/// `--summary` and `--funnel` are outputs like `-o`: never an input, and
/// left alone (not even created) when no input can be read.
#[test]
fn summary_and_funnel_never_cost_an_input_its_bytes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = dir.path().join("in.pgn");
    fs::copy(research_pgn(), &input).expect("copied");
    let before = fs::read(&input).expect("readable");
    for option in ["--summary", "--funnel"] {
        let run = pgn960(&["stats", path(&input), option, path(&input)], None);
        assert_eq!(run.code, 2, "{option}: {}", run.stderr);
        assert!(run.stderr.contains("also an input"), "{}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1);
        assert_eq!(fs::read(&input).expect("readable"), before, "{option}");

        let new = dir.path().join("new-output");
        let missing = dir.path().join("missing.pgn");
        let run = pgn960(&["stats", path(&missing), option, path(&new)], None);
        assert_eq!(run.code, 2, "{option}: {}", run.stderr);
        assert!(
            !new.exists(),
            "{option} left a file though nothing was read"
        );
    }
}

/// The funnel plot labels exactly the positions outside the 99.8% limits,
/// worked out here from the CSV's counts: the planted 518 among them.
#[test]
fn the_funnel_plot_labels_the_positions_outside_its_limits() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (funnel, plot) = (dir.path().join("f.svg"), dir.path().join("p.svg"));
    let run = stats(&[
        path(&research_pgn()),
        "--funnel",
        path(&funnel),
        "--plot",
        path(&plot),
    ]);
    let mut reader = csv::Reader::from_reader(&run.stdout[..]);
    let counts: Vec<(String, [f64; 3])> = reader
        .records()
        .map(|r| {
            let r = r.expect("a record");
            let count = |i: usize| r[i].parse::<f64>().expect("a count");
            (r[0].to_string(), [count(4), count(5), count(6)])
        })
        .collect();
    let [w, d, l] = counts.iter().fold([0.0; 3], |sum, (_, c)| {
        [sum[0] + c[0], sum[1] + c[1], sum[2] + c[2]]
    });
    let n = w + d + l;
    let mean = (w + d / 2.0) / n;
    let sigma =
        ((w * (1.0 - mean).powi(2) + d * (0.5 - mean).powi(2) + l * mean.powi(2)) / n).sqrt();
    let outside: Vec<&str> = counts
        .iter()
        .filter(|(_, [w, d, l])| {
            let games = w + d + l;
            games > 0.0 && ((w + d / 2.0) / games - mean).abs() > 3.090232 * sigma / games.sqrt()
        })
        .map(|(id, _)| id.as_str())
        .collect();
    assert!(outside.contains(&"518"), "{outside:?}");
    let svg = fs::read_to_string(&funnel).expect("the funnel is written");
    for (id, _) in &counts {
        // The labels are red (#D21E28), unlike the axes' numbers.
        let labelled = svg.contains(&format!("fill=\"#D21E28\">\n{id}\n</text>"));
        assert_eq!(labelled, outside.contains(&id.as_str()), "position {id}");
    }
    assert!(svg.contains(&format!(
        "outside the 99.8% limits ({}), with its number",
        outside.len()
    )));
    assert!(svg.contains(&format!("White&apos;s score over all games: {mean:.3}")));
    let plot = fs::read_to_string(&plot).expect("the plot is written");
    assert!(
        plot.contains("its empirical-Bayes estimate"),
        "the ranking shows the estimates"
    );
}
