//! `stats --dfrc-pairs/--dfrc-white/--dfrc-black`: the Double FRC games by
//! pair of arrays and by each side's array, checked against a count by
//! hand (`testdata/stats/dfrc_reference.py`, the standard library of
//! Python and the seed's numbering tables, nothing of pgn960) on the TCEC
//! archive, against hand-read games, and merged from shards byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{
    Run, corpus_or_skip, pgn960, read_pgn, sample_file, say_skipped, testdata_file,
};

/// The three outputs' options, in the order of [`Outputs`].
const OPTIONS: [&str; 3] = ["--dfrc-pairs", "--dfrc-white", "--dfrc-black"];

/// The files of one run: the positions' CSV and the three of Double FRC.
struct Outputs {
    positions: PathBuf,
    dfrc: [PathBuf; 3],
}

impl Outputs {
    fn in_dir(dir: &Path, name: &str) -> Outputs {
        Outputs {
            positions: dir.join(format!("{name}.csv")),
            dfrc: ["pairs", "white", "black"].map(|t| dir.join(format!("{name}.{t}.csv"))),
        }
    }

    /// The arguments that write them.
    fn args(&self) -> Vec<String> {
        let mut args = vec!["-o".to_string(), path(&self.positions)];
        for (option, file) in OPTIONS.iter().zip(&self.dfrc) {
            args.extend([option.to_string(), path(file)]);
        }
        args
    }

    fn read(&self, table: usize) -> String {
        std::fs::read_to_string(&self.dfrc[table]).expect("written")
    }
}

fn path(path: &Path) -> String {
    path.to_str().expect("a UTF-8 temporary path").to_string()
}

/// `pgn960 stats ARGS`, which must succeed; its stderr.
fn stats_ok(args: &[String]) -> String {
    let mut all = vec!["stats".to_string()];
    all.extend(args.iter().cloned());
    let run = pgn960(&all, None);
    let stderr = run.stderr.clone();
    run.ok(&format!("stats {args:?}"));
    stderr
}

/// `pgn960 stats ARGS`, which must fail with exit 2 and one line.
fn stats_refused(args: &[String]) -> String {
    let mut all = vec!["stats".to_string()];
    all.extend(args.iter().cloned());
    let run: Run = pgn960(&all, None);
    assert_eq!(run.code, 2, "stats {args:?}: {}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    run.stderr
}

/// A CSV's rows as maps from column to cell.
fn rows(csv: &str) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().expect("a header").clone();
    reader
        .records()
        .map(|record| {
            let record = record.expect("a row");
            header
                .iter()
                .zip(record.iter())
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect()
        })
        .collect()
}

/// The counts compared with the count by hand, in the reference's order.
const COUNTED: [&str; 9] = [
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "unfinished",
    "white_elo_count",
    "white_elo_sum",
    "black_elo_count",
    "black_elo_sum",
];

/// A table's rows by key: White's and Black's numbers (one empty for a
/// marginal table), with the arrangement(s) and [`COUNTED`].
type Keyed = BTreeMap<(String, String), Vec<String>>;

/// Each row of one of the three CSVs by its key (White's and Black's
/// numbers, one of them empty for a marginal table): its arrangement(s)
/// and [`COUNTED`].
fn keyed(table: usize, csv: &str) -> Keyed {
    rows(csv)
        .into_iter()
        .map(|row| {
            let (key, arrangements) = match table {
                0 => (
                    (
                        row["white_scharnagl"].clone(),
                        row["black_scharnagl"].clone(),
                    ),
                    format!("{}/{}", row["white_position"], row["black_position"]),
                ),
                1 => (
                    (row["scharnagl"].clone(), String::new()),
                    row["position"].clone(),
                ),
                _ => (
                    (String::new(), row["scharnagl"].clone()),
                    row["position"].clone(),
                ),
            };
            let mut values = vec![arrangements];
            values.extend(COUNTED.iter().map(|c| row[*c].clone()));
            (key, values)
        })
        .collect()
}

/// The count by hand of `pgn`, by table (pairs, white, black), as
/// [`keyed`] gives pgn960's; `None` (the test skipped) without a Python.
fn count_by_hand(test: &str, pgn: &[u8]) -> Option<[Keyed; 3]> {
    let python = std::env::var("PGN960_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let script = testdata_file("stats/dfrc_reference.py");
    let seed = testdata_file("seed-tables.csv");
    let child = Command::new(&python)
        .arg(&script)
        .arg(&seed)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        say_skipped(test, &format!("no {python} to run the count by hand"));
        return None;
    };
    let mut stdin = child.stdin.take().expect("piped");
    let pgn = pgn.to_vec();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(&pgn).expect("the script reads its input");
    });
    let output = child.wait_with_output().expect("the script runs");
    writer.join().expect("written");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut tables: [Keyed; 3] = Default::default();
    for row in rows(&String::from_utf8(output.stdout).expect("UTF-8")) {
        let table = ["pairs", "white", "black"]
            .iter()
            .position(|t| *t == row["table"])
            .expect("a table");
        let mut values = vec![row["arrangements"].clone()];
        values.extend(COUNTED.iter().map(|c| row[*c].clone()));
        tables[table].insert((row["white"].clone(), row["black"].clone()), values);
    }
    Some(tables)
}

/// The count by hand and pgn960's agree on every row of every table.
fn assert_agree(test: &str, pgn: &[u8], outputs: &Outputs) -> Option<usize> {
    let expected = count_by_hand(test, pgn)?;
    for (table, expected) in expected.iter().enumerate() {
        let actual = keyed(table, &outputs.read(table));
        assert!(!expected.is_empty(), "{test}: a Double FRC game at least");
        let missing: Vec<_> = expected
            .keys()
            .filter(|k| !actual.contains_key(k))
            .collect();
        let extra: Vec<_> = actual
            .keys()
            .filter(|k| !expected.contains_key(k))
            .collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{} rows missing {missing:?}, extra {extra:?}",
            OPTIONS[table]
        );
        for (key, values) in expected {
            assert_eq!(&actual[key], values, "{} row {key:?}", OPTIONS[table]);
        }
    }
    Some(
        expected[0]
            .values()
            .map(|v| v[1].parse::<usize>().unwrap())
            .sum(),
    )
}

#[test]
fn dfrc_tables_agree_with_a_count_by_hand_on_the_tcec_archive() {
    let test = "stats_dfrc::dfrc_tables_agree_with_a_count_by_hand_on_the_tcec_archive";
    let Some(corpus) = corpus_or_skip(test) else {
        return;
    };
    let archive = corpus.file("real/tcec-frc-dfrc-all.pgn.zst");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let outputs = Outputs::in_dir(dir.path(), "tcec");
    let mut args = outputs.args();
    args.push(path(&archive));
    let stderr = stats_ok(&args);
    let Some(games) = assert_agree(test, &read_pgn(&archive), &outputs) else {
        return;
    };
    // 1,554 Double FRC games (`../shared/data/README.md`), 3 of them
    // unplayed results left out (2 disconnections, 1 illegal move: see
    // `tests/unplayed.rs`), in the pairs the count by hand found.
    assert_eq!(games, 1551);
    let pairs = rows(&outputs.read(0)).len();
    assert!(
        stderr.contains(&format!(
            "counted 1551 dfrc games in {pairs} pairs of arrays"
        )),
        "{stderr}"
    );
}

#[test]
fn dfrc_tables_agree_with_a_count_by_hand_on_the_samples() {
    let test = "stats_dfrc::dfrc_tables_agree_with_a_count_by_hand_on_the_samples";
    let files = [
        sample_file("tcec-s22-dfrc-unbust-bonus.pgn.zst"),
        sample_file("edge/fastchess/app-tests-data-dfrc.pgn"),
        testdata_file("sample.pgn"),
    ];
    let dir = tempfile::tempdir().expect("a temporary directory");
    let outputs = Outputs::in_dir(dir.path(), "samples");
    let mut args = outputs.args();
    args.extend(files.iter().map(|f| path(f)));
    stats_ok(&args);
    let pgn: Vec<u8> = files
        .iter()
        .flat_map(|f| {
            let mut bytes = read_pgn(f);
            bytes.extend_from_slice(b"\n\n");
            bytes
        })
        .collect();
    assert_agree(test, &pgn, &outputs);
}

/// The one Double FRC game of `testdata/sample.pgn`, read by hand: White
/// from RNBQKBNR (518, Fritz9 359), Black from BBQNNRKR (0, Fritz9 81),
/// `1-0`, WhiteElo 3500, BlackElo 3480: an expectation of
/// 1 / (1 + 10^(-20/400)) = 0.528750564 (`python3 -c "print(1/(1+10**(-20/400)))"`).
#[test]
fn the_sample_s_double_frc_game_is_its_pair_s_row() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let outputs = Outputs::in_dir(dir.path(), "sample");
    let mut args = outputs.args();
    args.push(path(&testdata_file("sample.pgn")));
    let stderr = stats_ok(&args);
    assert!(
        stderr.contains("counted 1 dfrc game in 1 pair of arrays"),
        "{stderr}"
    );
    let pairs = outputs.read(0);
    let lines: Vec<&str> = pairs.lines().collect();
    assert_eq!(lines.len(), 2, "{pairs}");
    assert!(
        lines[1].starts_with(
            "518,359,RNBQKBNR,0,81,BBQNNRKR,1,1,0,0,0,1.000000,0.206549,1.000000,0.000000,3500.000000,3480.000000,0.528751,1,3500,1,3480,1,528750564,1,0.471249,2,528750564,"
        ),
        "{}",
        lines[1]
    );
    let white = rows(&outputs.read(1));
    let black = rows(&outputs.read(2));
    assert_eq!((white.len(), black.len()), (1, 1));
    assert_eq!(
        (white[0]["position"].as_str(), black[0]["position"].as_str()),
        ("RNBQKBNR", "BBQNNRKR")
    );
    // Not counted under a position: 6 chess960 games in 5 positions.
    let positions = std::fs::read_to_string(&outputs.positions).unwrap();
    assert_eq!(positions.lines().count(), 1 + 5);
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

/// `pgn` cut into `shards` archives at game boundaries, counted apart and
/// merged, table by table, gives one run's bytes, with `options`.
fn merge_of_shards_equals_one_run(pgn: &str, shards: usize, options: &[&str], dir: &Path) {
    let games = games_of(pgn);
    let per_shard = games.len().div_ceil(shards);
    let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
    let whole_input = dir.join("whole.pgn");
    std::fs::write(&whole_input, pgn).unwrap();
    let whole = Outputs::in_dir(dir, "whole");
    let mut args = options.clone();
    args.extend(whole.args());
    args.extend(["-q".to_string(), path(&whole_input)]);
    stats_ok(&args);
    let mut parts = Vec::new();
    for (i, chunk) in games.chunks(per_shard).enumerate() {
        let input = dir.join(format!("shard{i}.pgn"));
        std::fs::write(&input, chunk.concat()).unwrap();
        let outputs = Outputs::in_dir(dir, &format!("shard{i}"));
        let mut args = options.clone();
        args.extend(outputs.args());
        args.extend(["-q".to_string(), path(&input)]);
        stats_ok(&args);
        parts.push(outputs);
    }
    assert_eq!(parts.len(), shards);
    for (table, option) in OPTIONS.iter().enumerate() {
        let merged = dir.join(format!("merged.{table}.csv"));
        let mut args = vec!["--merge".to_string(), "-o".to_string(), path(&merged)];
        args.extend(parts.iter().map(|p| path(&p.dfrc[table])));
        stats_ok(&args);
        let merged = std::fs::read_to_string(&merged).unwrap();
        assert!(merged.lines().count() > 1, "{options:?}: rows to merge");
        assert_eq!(merged, whole.read(table), "{options:?} {option}");
    }
}

#[test]
fn merge_of_dfrc_shards_equals_one_run_byte_for_byte() {
    let pgn = String::from_utf8(read_pgn(&sample_file("tcec-s22-dfrc-unbust-bonus.pgn.zst")))
        .expect("UTF-8");
    let sample = std::fs::read_to_string(testdata_file("sample.pgn")).unwrap();
    let pgn = format!("{pgn}\n{sample}");
    for options in [
        &[][..],
        &["--group-by", "Round"][..],
        &["--min-elo", "3000"][..],
    ] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        merge_of_shards_equals_one_run(&pgn, 3, options, dir.path());
    }
}

#[test]
fn merge_of_corpus_dfrc_shards_equals_one_run_byte_for_byte() {
    let test = "stats_dfrc::merge_of_corpus_dfrc_shards_equals_one_run_byte_for_byte";
    let Some(corpus) = corpus_or_skip(test) else {
        return;
    };
    let pgn =
        String::from_utf8(read_pgn(&corpus.file("real/tcec-frc-dfrc-all.pgn.zst"))).expect("UTF-8");
    let dir = tempfile::tempdir().expect("a temporary directory");
    merge_of_shards_equals_one_run(&pgn, 3, &[], dir.path());
}

/// Counted with a memory budget of one byte, every pair goes to disk: the
/// same bytes as in memory, and the merge of pairs too.
#[test]
fn dfrc_tables_spilled_to_disk_are_those_in_memory() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let inputs = [
        sample_file("tcec-s22-dfrc-unbust-bonus.pgn.zst"),
        testdata_file("sample.pgn"),
    ];
    let run = |name: &str, memory: Option<&str>| {
        let outputs = Outputs::in_dir(dir.path(), name);
        let mut command = Command::new(env!("CARGO_BIN_EXE_pgn960"));
        command.arg("stats").arg("-q").args(outputs.args());
        command.args(&inputs);
        if let Some(memory) = memory {
            command.env("PGN960_GROUP_MEMORY", memory);
        }
        let status = command.status().expect("runs");
        assert!(status.success());
        outputs
    };
    let memory = run("memory", None);
    let disk = run("disk", Some("1"));
    for (table, option) in OPTIONS.iter().enumerate() {
        assert_eq!(disk.read(table), memory.read(table), "{option}");
    }
    let merged = dir.path().join("merged.csv");
    let mut command = Command::new(env!("CARGO_BIN_EXE_pgn960"));
    command
        .args(["stats", "--merge", "-o"])
        .arg(&merged)
        .arg(&memory.dfrc[0])
        .env("PGN960_GROUP_MEMORY", "1");
    assert!(command.status().expect("runs").success());
    assert_eq!(std::fs::read_to_string(&merged).unwrap(), memory.read(0));
}

#[test]
fn pairs_merge_only_with_pairs_and_without_the_tests() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let outputs = Outputs::in_dir(dir.path(), "sample");
    let mut args = outputs.args();
    args.push(path(&testdata_file("sample.pgn")));
    stats_ok(&args);
    let pairs = path(&outputs.dfrc[0]);
    let positions = path(&outputs.positions);
    let out = path(&dir.path().join("out.csv"));
    let merge = |more: &[&str]| {
        let mut args = vec!["--merge".to_string(), "-o".to_string(), out.clone()];
        args.extend(more.iter().map(|s| s.to_string()));
        args
    };
    let refused = stats_refused(&merge(&[&pairs, &positions]));
    assert!(
        refused.contains("a CSV of positions, unlike the CSVs before it"),
        "{refused}"
    );
    let refused = stats_refused(&merge(&[&positions, &pairs]));
    assert!(refused.contains("a CSV of Double FRC pairs"), "{refused}");
    let summary = path(&dir.path().join("s.json"));
    let refused = stats_refused(&merge(&["--summary", &summary, &pairs]));
    assert!(
        refused.contains("--summary: the CSVs are Double FRC pairs'"),
        "{refused}"
    );
    assert!(!Path::new(&out).exists(), "no output when refused");
    // A pair twice, as a shard given twice would not be, but one CSV
    // pasted onto itself is.
    let csv = outputs.read(0);
    let row = csv.lines().nth(1).unwrap();
    let twice = dir.path().join("twice.csv");
    std::fs::write(&twice, format!("{csv}{row}\n")).unwrap();
    let refused = stats_refused(&merge(&[&path(&twice)]));
    assert!(refused.contains("line 3: a pair again"), "{refused}");
    // The marginal tables merge as CSVs of positions (they are).
    stats_ok(&merge(&[&path(&outputs.dfrc[1]), &path(&outputs.dfrc[1])]));
    // A cell that is not the number its column holds: refused with its
    // line and column.
    let with_cell = |name: &str, value: &str| {
        let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
        let column = lines[0]
            .split(',')
            .position(|header| header == name)
            .expect("the column");
        let mut cells: Vec<&str> = lines[1].split(',').collect();
        cells[column] = value;
        lines[1] = cells.join(",");
        let bad = dir.path().join("bad.csv");
        std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
        stats_refused(&merge(&[&path(&bad)]))
    };
    let refused = with_cell("white_wins", "x");
    assert!(refused.contains("line 2: `white_wins`: "), "{refused}");
    // An array's number past the last (959).
    let refused = with_cell("white_scharnagl", "960");
    assert!(
        refused.contains("line 2: `white_scharnagl`: 960 is no array's number (0 to 959)"),
        "{refused}"
    );
}
