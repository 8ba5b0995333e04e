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

/// The research columns after them, their sums, then the columns of
/// issue 32 and their sums.
const RESEARCH_COLUMNS: [&str; 17] = [
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
    "white_score_wdl_low",
    "white_score_wdl_high",
    "white_score_expected",
    "decisive_games",
    "white_wins_expected",
    "rating_bins",
];

/// The columns of `Row`'s cells, in its order.
const ROW_CELLS: [&str; 12] = [
    "white_score_vs_elo",
    "z",
    "p_value",
    "q_value",
    "white_score_shrunk",
    "white_score_shrunk_low",
    "white_score_shrunk_high",
    "white_score_wdl_low",
    "white_score_wdl_high",
    "white_score_expected",
    "decisive_games",
    "white_wins_expected",
];

/// The keys of a `--summary` object, in order.
const SUMMARY_KEYS: [&str; 28] = [
    "positions",
    "finished_games",
    "wdl_chi2",
    "wdl_df",
    "wdl_p",
    "wdl_reference",
    "elo_positions",
    "elo_games",
    "elo_delta",
    "elo_q",
    "elo_df",
    "elo_p",
    "elo_reference",
    "rating_slope",
    "white_advantage_elo",
    "random_results",
    "shrink_mu",
    "shrink_tau2",
    "heterogeneity_q",
    "heterogeneity_df",
    "i2",
    "tau2",
    "tau2_low",
    "tau2_high",
    "median_games",
    "detectable_shift",
    "detectable_tau",
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
    // The position's features come last (tests/numbering.rs checks them).
    let want: Vec<&str> = OLD_COLUMNS
        .iter()
        .chain(&RESEARCH_COLUMNS)
        .chain(&pgn960::stats::FEATURE_COLUMNS)
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
        for (name, want) in ROW_CELLS.iter().zip(cells) {
            let cell = &row[column(name)];
            let Some(want) = want else {
                assert_eq!(cell, "", "{} must be empty", what(name));
                continue;
            };
            if *name == "decisive_games" {
                assert_eq!(cell, &format!("{want}"), "{}", what(name));
                continue;
            }
            let got: f64 = cell
                .parse()
                .unwrap_or_else(|_| panic!("{}: {cell:?}", what(name)));
            if ["p_value", "q_value"].contains(name) {
                assert!(six_significant_digits(cell), "{}: {cell:?}", what(name));
                // Six digits, and the reference's optimiser agrees with
                // pgn960's Newton steps to about 1e-8.
                assert_close(got, *want, 2e-5, &what(name));
            } else {
                assert_eq!(
                    cell.split_once('.').map(|(_, d)| d.len()),
                    Some(6),
                    "{}",
                    what(name)
                );
                // The shrunk estimates are integrated on a grid of 200
                // points against scipy's adaptive quadrature: 1e-5.
                let tolerance = if name.starts_with("white_score_shrunk") {
                    1e-5
                } else {
                    1.5e-6
                };
                assert!(
                    (got - want).abs() < tolerance,
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
/// counts exact, the numbers to `1e-7` (the Elo sums are rounded; the
/// shrinkage's posterior means to 1e-5, a grid against quadrature). A
/// Monte-Carlo p-value has no reference (it is `None` there): it must be
/// a multiple of 1/1000 in [0.001, 1].
fn assert_tests(object: &Value, expected: &Tests, what: &str) {
    let keys: BTreeSet<&str> = object
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not an object: {object}"))
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, SUMMARY_KEYS.into_iter().collect(), "{what}: the keys");
    let count = |key: &str| object[key].as_u64();
    let number = |key: &str, want: Option<f64>, tolerance: f64| match want {
        None => assert!(object[key].is_null(), "{what} {key}: {}", object[key]),
        Some(want) => {
            let got = object[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{what} {key}"));
            if want.abs() < 1e-12 {
                assert!(got.abs() < 1e-9, "{what} {key}: {got}");
            } else {
                assert_close(got, want, tolerance, &format!("{what} {key}"));
            }
        }
    };
    let text = |key: &str| object[key].as_str();
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
    assert_eq!(
        count("heterogeneity_df"),
        expected.heterogeneity_df,
        "{what}"
    );
    assert_eq!(text("wdl_reference"), expected.wdl_reference, "{what}");
    assert_eq!(text("elo_reference"), expected.elo_reference, "{what}");
    for (key, want, reference) in [
        ("wdl_p", expected.wdl_p, expected.wdl_reference),
        ("elo_p", expected.elo_p, expected.elo_reference),
    ] {
        if reference == Some("monte-carlo") {
            let p = object[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{what} {key}"));
            let thousandths = p * 1000.0;
            assert!(
                (thousandths - thousandths.round()).abs() < 1e-9 && (0.001..=1.0).contains(&p),
                "{what} {key}: {p}"
            );
        } else {
            number(key, want, 1e-7);
        }
    }
    for (key, want) in [
        ("wdl_chi2", expected.wdl_chi2),
        ("elo_delta", expected.elo_delta),
        ("elo_q", expected.elo_q),
        ("rating_slope", expected.rating_slope),
        ("white_advantage_elo", expected.white_advantage_elo),
        ("random_results", expected.random_results),
        ("heterogeneity_q", expected.heterogeneity_q),
        ("i2", expected.i2),
        ("tau2", expected.tau2),
        ("tau2_low", expected.tau2_low),
        ("tau2_high", expected.tau2_high),
        ("median_games", expected.median_games),
        ("detectable_shift", expected.detectable_shift),
        ("detectable_tau", expected.detectable_tau),
    ] {
        number(key, want, 1e-6);
    }
    if let Some(mu) = expected.shrink_mu {
        let got = object["shrink_mu"].as_f64().expect("shrink_mu");
        assert!(
            (got - mu).abs() < 1e-5,
            "{what} shrink_mu: {got} against {mu}"
        );
    }
    if let Some(tau2) = expected.shrink_tau2 {
        let got = object["shrink_tau2"].as_f64().expect("shrink_tau2");
        assert!(
            (got - tau2).abs() < 1e-5,
            "{what} shrink_tau2: {got} against {tau2}"
        );
    }
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
    assert_eq!(root.keys().collect::<Vec<_>>(), ["groups", "within_groups"]);
    let groups = json["groups"].as_object().expect("groups is an object");
    assert_eq!(groups.keys().collect::<Vec<_>>(), ["Alpha", "Beta"]);
    assert_tests(&groups["Alpha"], &ALPHA_TESTS, "Alpha");
    assert_tests(&groups["Beta"], &BETA_TESTS, "Beta");
    // The pooled test within groups: the sums of the groups' statistics
    // and degrees of freedom; both groups are referred to the bootstrap,
    // so the sum is too. The q-values' family is every tested position of
    // both groups.
    let within = &json["within_groups"];
    let sum = |key: &str| {
        groups
            .values()
            .map(|g| g[key].as_f64().expect(key))
            .sum::<f64>()
    };
    assert_close(
        within["elo_q"].as_f64().expect("elo_q"),
        sum("elo_q"),
        1e-12,
        "elo_q",
    );
    assert_eq!(within["elo_df"].as_f64(), Some(sum("elo_df")));
    assert_eq!(within["elo_reference"], "monte-carlo");
    assert_eq!(within["elo_groups"], 2);
    assert_close(
        within["wdl_chi2"].as_f64().expect("wdl_chi2"),
        sum("wdl_chi2"),
        1e-12,
        "wdl_chi2",
    );
    assert_eq!(
        within["tested_positions"].as_f64(),
        Some(sum("elo_positions"))
    );
    let significant: usize = groups
        .values()
        .map(|g| g["significant"].as_array().expect("a list").len())
        .sum();
    assert_eq!(within["significant"], significant);
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
        wdl_reference: None,
        elo_positions: 0,
        elo_games: 0,
        elo_delta: None,
        elo_q: None,
        elo_df: None,
        elo_p: None,
        elo_reference: None,
        rating_slope: None,
        white_advantage_elo: None,
        random_results: None,
        shrink_mu: None,
        shrink_tau2: None,
        heterogeneity_q: None,
        heterogeneity_df: None,
        i2: None,
        tau2: None,
        tau2_low: None,
        tau2_high: None,
        median_games: None,
        detectable_shift: None,
        detectable_tau: None,
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
    let json = read_json(&summary);
    assert_eq!(json["groups"], serde_json::json!({}));
    assert_eq!(json["within_groups"]["tested_positions"], 0);
    assert!(json["within_groups"]["elo_p"].is_null());

    // One game, at position 0, White (2500) beating Black (2400): one
    // row, so the chi-square has 0 degrees of freedom (statistic 0, no p).
    // The model: one decisive game, so an intercept alone (Firth's
    // ln((1 + ½)/½) = ln 3, P(win) = 0.75) and no slope; the position's
    // test: z = 0.25/√0.1875, p = 1; no degrees of freedom left over. Its
    // shrunk score: with one position, the posterior is N(1, 0.1875).
    let run = stats(&[path(&one), "--summary", path(&summary)]);
    let v: f64 = 0.1875;
    let one_game = Tests {
        positions: 1,
        finished_games: 1,
        wdl_chi2: Some(0.0),
        wdl_df: Some(0),
        elo_positions: 1,
        elo_games: 1,
        // python3 -c "print(1 - 1 / (1 + 10**(-100/400)))"
        elo_delta: Some(0.3599350001971149),
        elo_q: Some(0.25 * 0.25 / v),
        rating_slope: Some(0.0),
        // python3 -c "import math; print(math.log(3) * 400 / math.log(10))"
        white_advantage_elo: Some(190.84850188786496),
        random_results: Some(0.0),
        shrink_mu: Some(0.25),
        // τ uniform on [0, ½]: E τ² = 1/12.
        shrink_tau2: Some(1.0 / 12.0),
        median_games: Some(1.0),
        // python3 -c "from scipy.stats import norm; print((norm.ppf(0.975) + norm.ppf(0.8)) * 0.1875**0.5)"
        detectable_shift: Some(1.213121984876399),
        ..nothing
    };
    assert_tests(&read_json(&summary), &one_game, "one game");
    let csv = String::from_utf8(run.stdout).expect("UTF-8");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let row: Vec<&str> = lines.next().expect("a row").split(',').collect();
    let cell = |name: &str| row[header.iter().position(|h| *h == name).expect(name)];
    let low = format!("{:.6}", 1.0 - 1.959964 * v.sqrt());
    for (name, want) in [
        ("elo_games", "1"),
        ("white_score_vs_elo", "0.359935"),
        ("z", "0.577350"),
        ("p_value", "1.00000e0"),
        ("q_value", "1.00000e0"),
        ("white_score_shrunk", "1.000000"),
        ("white_score_shrunk_low", low.as_str()),
        ("white_score_shrunk_high", "1.000000"),
        ("white_score_expected", "0.750000"),
        ("decisive_games", "1"),
        ("white_wins_expected", "0.750000"),
        ("rating_bins", "10:1/0/0"),
    ] {
        assert_eq!(cell(name), want, "{name}");
    }
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

/// The funnel plot marks and numbers exactly the significant positions,
/// read here from the CSV's q-values (the planted 518), on a log axis,
/// and the ranking orders the positions by their shrunk estimates.
#[test]
fn the_funnel_plot_numbers_the_significant_positions() {
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
    let header = reader.headers().expect("a header").clone();
    let column = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (q, w, d, l) = (
        column("q_value"),
        column("white_wins"),
        column("draws"),
        column("black_wins"),
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a record")).collect();
    let significant: Vec<&str> = rows
        .iter()
        .filter(|r| r[q].parse::<f64>().is_ok_and(|q| q < 0.05))
        .map(|r| &r[0])
        .collect();
    assert_eq!(significant, ["518"]);
    let svg = fs::read_to_string(&funnel).expect("the funnel is written");
    for row in &rows {
        // The numbers of significant positions are red (#D21E28).
        let red = svg.contains(&format!("fill=\"#D21E28\">\n{}\n</text>", &row[0]));
        assert_eq!(red, significant.contains(&&row[0]), "position {}", &row[0]);
    }
    assert!(
        svg.contains("significant, q &lt; 0.05 (1)"),
        "the legend counts them"
    );
    assert!(svg.contains("finished games at the position (log scale)"));
    let [wins, draws, losses] = [w, d, l].map(|i| {
        rows.iter()
            .map(|r| r[i].parse::<f64>().expect("a count"))
            .sum::<f64>()
    });
    let mean = (wins + draws / 2.0) / (wins + draws + losses);
    assert!(svg.contains(&format!("score of all games: {mean:.3}")));
    let plot = fs::read_to_string(&plot).expect("the plot is written");
    assert!(
        plot.contains("positions, ordered by their shrunk estimate"),
        "the ranking orders by the estimates"
    );
}
