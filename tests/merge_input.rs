//! `stats --merge` reads only CSVs whose sums it can trust: a sum too
//! large to hold, a row whose games are not its results, a position given
//! twice are refused (exit 2), each with the line a user sees in the file.

use std::fs;
use std::path::Path;

use crate::common::{pgn960, testdata_file};

/// The CSV `stats` writes for the sample archive: its header, and its
/// rows as cells.
fn sample_csv(dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let out = dir.join("sample.csv");
    let sample = testdata_file("sample.pgn");
    let run = pgn960(
        &[
            "stats",
            "-q",
            sample.to_str().expect("UTF-8"),
            "-o",
            out.to_str().expect("UTF-8"),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = fs::read_to_string(&out).expect("written");
    let mut lines = text.lines();
    let header = lines
        .next()
        .expect("a header")
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|line| line.split(',').map(str::to_string).collect())
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no {name} column"))
}

fn write_csv(dir: &Path, name: &str, header: &[String], rows: &[Vec<String>]) -> String {
    let mut text = header.join(",") + "\n";
    for row in rows {
        text.push_str(&(row.join(",") + "\n"));
    }
    let path = dir.join(name);
    fs::write(&path, text).expect("writable");
    path.to_str().expect("UTF-8").to_string()
}

/// The error of `stats --merge FILES`, which must exit 2.
fn refused(files: &[&str]) -> String {
    let mut args = vec!["stats", "-q", "--merge", "-o", "/dev/null"];
    args.extend(files);
    let run = pgn960(&args, None);
    assert_eq!(run.code, 2, "{files:?}: {}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.starts_with("pgn960: "), "{}", run.stderr);
    run.stderr
}

#[test]
fn merge_refuses_sums_it_cannot_trust_and_names_the_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (header, rows) = sample_csv(dir.path());
    let [games, white_wins, draws, black_wins, unfinished, scharnagl] = [
        "games",
        "white_wins",
        "draws",
        "black_wins",
        "unfinished",
        "scharnagl",
    ]
    .map(|name| column(&header, name));
    assert!(rows.len() >= 2, "the sample has games in two positions");
    let good = write_csv(dir.path(), "good.csv", &header, &rows);
    let run = pgn960(
        &["stats", "-q", "--merge", &good, &good, "-o", "/dev/null"],
        None,
    );
    assert_eq!(run.code, 0, "a CSV merges with itself: {}", run.stderr);

    // A sum too large to hold: `games` at u64::MAX, the white wins
    // making up the difference, so that the row itself adds up.
    let mut huge = rows.clone();
    let others: u64 = [draws, black_wins, unfinished]
        .iter()
        .map(|&cell| huge[0][cell].parse::<u64>().expect("a number"))
        .sum();
    huge[0][games] = u64::MAX.to_string();
    huge[0][white_wins] = (u64::MAX - others).to_string();
    let huge = write_csv(dir.path(), "huge.csv", &header, &huge);
    let error = refused(&[&huge, &huge]);
    assert!(
        error.contains("huge.csv") && error.contains(&format!("position {}", rows[0][scharnagl])),
        "{error}"
    );
    assert!(
        error.contains("`games`") && error.contains("too large"),
        "{error}"
    );
    // The same in a research sum no other column checks.
    let variance = column(&header, "elo_variance_e9");
    let mut huge = rows.clone();
    huge[0][variance] = u64::MAX.to_string();
    let huge = write_csv(dir.path(), "variance.csv", &header, &huge);
    let error = refused(&[&good, &huge]);
    assert!(
        error.contains("variance.csv") && error.contains("`elo_variance_e9` is too large"),
        "{error}"
    );

    // Two positions of one CSV whose games add up to more than a count
    // holds: the analysis sums over all positions.
    let mut halves = rows.clone();
    for row in &mut halves[..2] {
        let others: u64 = [draws, black_wins, unfinished]
            .iter()
            .map(|&cell| row[cell].parse::<u64>().expect("a number"))
            .sum();
        row[games] = (1u64 << 63).to_string();
        row[white_wins] = ((1u64 << 63) - others).to_string();
    }
    let halves = write_csv(dir.path(), "halves.csv", &header, &halves);
    let error = refused(&[&halves]);
    assert!(
        error.contains("`games` over all positions is too large"),
        "{error}"
    );

    // A sum of ratings below zero, which no run writes.
    let mut negative = rows.clone();
    negative[0][column(&header, "white_elo_sum")] = "-5".to_string();
    let negative = write_csv(dir.path(), "negative.csv", &header, &negative);
    let error = refused(&[&negative]);
    assert!(
        error.contains("negative.csv: line 2: `white_elo_sum`: "),
        "{error}"
    );

    // Games that are not the sum of the results, on the second data row:
    // line 3 of the file.
    let mut unsummed = rows.clone();
    unsummed[1][games] = (unsummed[1][games].parse::<u64>().expect("a number") + 1).to_string();
    let unsummed = write_csv(dir.path(), "unsummed.csv", &header, &unsummed);
    let error = refused(&[&unsummed]);
    assert!(
        error.contains("unsummed.csv: line 3: `games` is not"),
        "{error}"
    );

    // A position twice in one CSV.
    let mut twice = rows.clone();
    twice.insert(1, rows[0].clone());
    let twice = write_csv(dir.path(), "twice.csv", &header, &twice);
    let error = refused(&[&twice]);
    assert!(
        error.contains(&format!(
            "twice.csv: line 3: position {} again",
            rows[0][scharnagl]
        )),
        "{error}"
    );

    // A cell that is no number, on the first data row: line 2.
    let mut bad = rows.clone();
    bad[0][games] = "x".to_string();
    let bad = write_csv(dir.path(), "bad.csv", &header, &bad);
    let error = refused(&[&bad]);
    assert!(error.contains("bad.csv: line 2: `games`: "), "{error}");
}
