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

/// `stats --merge` of `files` with the groups' memory budget `budget`
/// (bytes), which must succeed; the merged CSV.
fn merged(files: &[&str], budget: &str) -> String {
    let output = assert_cmd::Command::cargo_bin("pgn960")
        .expect("the pgn960 binary is built")
        .args(["stats", "-q", "--merge"])
        .args(files)
        .env("PGN960_GROUP_MEMORY", budget)
        .output()
        .expect("pgn960 runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{files:?}: {stderr}");
    String::from_utf8(output.stdout).expect("a UTF-8 CSV")
}

/// A CSV longer than one part of `PART_ROWS` rows is merged row by row:
/// merged with itself it doubles every count (the oracle: the generator's
/// record of each event's one game), with its groups in memory or on
/// disk; its rows must then keep the order `stats` writes them in, so a
/// row moved or repeated anywhere is refused with its line. A CSV of one
/// part merges in any order.
#[test]
fn long_csvs_merge_row_by_row_and_keep_their_order() {
    const EVENTS: usize = pgn960::stats::PART_ROWS + 808;
    const RESULTS: [&str; 3] = ["1-0", "1/2-1/2", "0-1"];
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut pgn = String::new();
    for event in 0..EVENTS {
        let result = RESULTS[event % 3];
        pgn.push_str(&format!(
            "[Event \"e{event:05}\"]\n[Result \"{result}\"]\n\n{result}\n\n"
        ));
    }
    let long = dir.path().join("long.csv");
    let long = long.to_str().expect("UTF-8");
    let run = pgn960(
        &[
            "stats",
            "-q",
            "--include-standard",
            "--group-by",
            "Event",
            "-o",
            long,
        ],
        Some(pgn.as_bytes()),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);

    let in_memory = merged(&[long, long], "1000000000000");
    let on_disk = merged(&[long, long], "4096");
    assert!(
        in_memory == on_disk,
        "the merge differs with its groups on disk"
    );
    let mut lines = in_memory.lines();
    let header: Vec<String> = lines
        .next()
        .expect("a header")
        .split(',')
        .map(str::to_string)
        .collect();
    let [group, scharnagl, games, white_wins, draws] =
        ["group", "scharnagl", "games", "white_wins", "draws"].map(|name| column(&header, name));
    let mut rows = 0;
    for (event, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        let won = usize::from(event % 3 == 0) * 2;
        let drawn = usize::from(event % 3 == 1) * 2;
        assert_eq!(
            [cells[group], cells[scharnagl], cells[games]],
            [format!("e{event:05}").as_str(), "518", "2"],
            "row {event}"
        );
        assert_eq!(
            [cells[white_wins], cells[draws]],
            [won.to_string().as_str(), drawn.to_string().as_str()],
            "row {event}"
        );
        rows += 1;
    }
    assert_eq!(rows, EVENTS);

    // The CSV's own lines: line 1 is the header, event i on line i + 2.
    let text = fs::read_to_string(long).expect("written");
    let lines: Vec<&str> = text.lines().collect();
    let rewritten = |name: &str, lines: &[&str]| {
        let path = dir.path().join(name);
        fs::write(&path, lines.join("\n") + "\n").expect("writable");
        path.to_str().expect("UTF-8").to_string()
    };
    // A row moved from near the end to line 102: line 103 is the first
    // before the row above it.
    let mut moved = lines.clone();
    let row = moved.remove(EVENTS - 10 + 1);
    moved.insert(101, row);
    let moved = rewritten("moved.csv", &moved);
    let error = refused(&[&moved]);
    assert!(
        error.contains("moved.csv: line 103: not in the order"),
        "{error}"
    );
    // The last row of the first part again, as the first of the second.
    let part = pgn960::stats::PART_ROWS;
    let mut twice = lines.clone();
    twice.insert(part + 1, lines[part]);
    let twice = rewritten("twice.csv", &twice);
    let error = refused(&[&twice]);
    assert!(
        error.contains(&format!("twice.csv: line {}: position 518 again", part + 2)),
        "{error}"
    );
    // One part in any order: the sample's rows reversed merge as they are.
    let (header, rows) = sample_csv(dir.path());
    let sorted = write_csv(dir.path(), "sorted.csv", &header, &rows);
    let reversed: Vec<Vec<String>> = rows.iter().rev().cloned().collect();
    let reversed = write_csv(dir.path(), "reversed.csv", &header, &reversed);
    assert_eq!(
        merged(&[&reversed, &sorted], "4096"),
        merged(&[&sorted, &sorted], "4096"),
        "a short CSV in another order"
    );
}

/// A copy of the CSV at `path` with CRLF line ends, beside it.
fn with_crlf(path: &str) -> String {
    let text = fs::read_to_string(path).expect("readable");
    let crlf = format!("{path}.crlf.csv");
    fs::write(&crlf, text.replace('\n', "\r\n")).expect("writable");
    crlf
}

/// A CSV saved with CRLF line ends (a spreadsheet on Windows) merges as
/// its LF original does, and its errors name the same lines: the csv
/// crate alone counts them one low from the second record on
/// (BurntSushi/rust-csv#395). The lines are where the errors were
/// planted.
#[test]
fn crlf_csvs_merge_as_their_lf_originals_and_name_the_same_lines() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (header, rows) = sample_csv(dir.path());
    assert!(rows.len() >= 3, "the sample has games in three positions");
    let games = column(&header, "games");
    let good = write_csv(dir.path(), "good.csv", &header, &rows);
    let good_crlf = with_crlf(&good);
    assert_eq!(
        merged(&[&good_crlf, &good], "1000000000000"),
        merged(&[&good, &good], "1000000000000")
    );

    let mut unsummed = rows.clone();
    unsummed[2][games] = (unsummed[2][games].parse::<u64>().expect("a number") + 1).to_string();
    let mut short = rows.clone();
    short[2].truncate(5);
    let mut twice = rows.clone();
    twice.insert(2, rows[0].clone());
    for (name, planted, says) in [
        ("unsummed", unsummed, "line 4: `games` is not"),
        (
            "short",
            short,
            &format!("line 4: 5 cells, where the header has {}", header.len()),
        ),
        ("twice", twice, "line 4: position"),
    ] {
        let lf = write_csv(dir.path(), &format!("{name}.csv"), &header, &planted);
        for file in [lf.clone(), with_crlf(&lf)] {
            let error = refused(&[&file]);
            assert!(error.contains(&format!("{file}: {says}")), "{error}");
        }
    }
}
