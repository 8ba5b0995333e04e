//! The numbering commands, `id`, `pos`, `table` and `random`, run as a user
//! would run them.

use assert_cmd::Command;
use pgn960::{BackRank, StartArray};

use crate::numbering::SeedTables;

/// What one run of the binary printed.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary with `args` (and no standard input).
pub fn pgn960(args: &[&str]) -> Run {
    let output = Command::cargo_bin("pgn960")
        .expect("the pgn960 binary is built")
        .args(args)
        .output()
        .expect("pgn960 runs");
    Run {
        code: output.status.code().expect("pgn960 exits, not killed"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs a command that must succeed quietly and returns its stdout.
pub fn ok(args: &[&str]) -> String {
    let run = pgn960(args);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "pgn960 {args:?}");
    run.stdout
}

#[test]
fn table_is_all_960_and_agrees_with_the_seed_tables() {
    let stdout = ok(&["table"]);
    assert_eq!(stdout.lines().count(), 961);
    // The features that follow are tested in
    // `numbering::table_features_agree_with_the_seed_for_all_960`.
    assert!(
        stdout.lines().next().is_some_and(
            |header| header.starts_with("scharnagl,fritz9,position,xfen,shredder_fen,")
        ),
        "{:?}",
        stdout.lines().next()
    );

    let seed = SeedTables::load().all_numbers();
    let mut reader = csv::Reader::from_reader(stdout.as_bytes());
    let mut rows = 0;
    for (index, record) in reader.records().enumerate() {
        let record = record.expect("table prints valid CSV");
        let [scharnagl, fritz9, position, xfen, shredder_fen] =
            [0, 1, 2, 3, 4].map(|i| record.get(i).expect("five columns first"));
        assert_eq!(scharnagl, index.to_string(), "rows in Scharnagl order");
        let (seed_scharnagl, seed_fritz9) = seed[position];
        assert_eq!(scharnagl, seed_scharnagl.to_string(), "{position}");
        assert_eq!(fritz9, seed_fritz9.to_string(), "{position}");

        let expected = StartArray::Chess960(position.parse().expect(position));
        assert_eq!(StartArray::from_fen(xfen), Ok(expected), "{xfen}");
        assert_eq!(
            StartArray::from_fen(shredder_fen),
            Ok(expected),
            "{shredder_fen}"
        );
        assert!(xfen.ends_with(" w KQkq - 0 1"), "{xfen}");
        rows += 1;
    }
    assert_eq!(rows, 960);
}

#[test]
fn pos_960_is_pos_0() {
    assert_eq!(ok(&["pos", "960"]), ok(&["pos", "0"]));
    assert_eq!(
        ok(&["pos", "960", "--explain"]),
        ok(&["pos", "0", "--explain"])
    );
}

#[test]
fn pos_fritz9_359_is_standard() {
    let standard = ok(&["pos", "518"]);
    assert_eq!(
        standard,
        "position: RNBQKBNR\n\
         scharnagl: 518\n\
         fritz9: 359\n\
         xfen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
         shredder_fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1\n"
    );
    assert_eq!(ok(&["pos", "--fritz9", "359"]), standard);
}

#[test]
fn pos_explain_shows_the_seed_derivation() {
    let stdout = ok(&["pos", "518", "--explain"]);
    for step in [
        "518 / 4 = 129 remainder 2",
        "129 / 4 = 32 remainder 1",
        "32 / 6 = 5 remainder 2",
        "-N-N-",
        "check: 2 + 4*1 + 16*2 + 96*5 = 518",
        "(359 - 1) / 16 = 22 remainder 6",
        "22 / 15 = 1 remainder 7",
        "-N--N-",
        "check: 1 + 6 + 16*7 + 240*1 = 359",
    ] {
        assert!(stdout.contains(step), "missing {step:?} in\n{stdout}");
    }
}

#[test]
fn id_prints_both_numbers() {
    assert_eq!(ok(&["id", "RNBQKBNR"]), "518 359 RNBQKBNR\n");
    assert_eq!(
        ok(&[
            "id",
            "bbqnnrkr",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
        ]),
        "0 81 BBQNNRKR\n518 359 RNBQKBNR\n518 359 RNBQKBNR\n"
    );
}

#[test]
fn id_double_frc() {
    assert_eq!(
        ok(&[
            "id",
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        ]),
        "518 359 RNBQKBNR 0 81 bbqnnrkr\n"
    );
}

#[test]
fn bad_inputs_give_one_line_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["id", "RNBQKNBR"], "bishops on squares of the same colour"),
        (&["id", "BBNNQRRK"], "king not between the rooks"),
        (&["id", "RNBQKBN"], "7 letters, not 8"),
        (&["id", "RNBQKBNX"], "not a piece letter"),
        (&["id", "RNBRKBNR"], "wrong pieces"),
        (
            &[
                "id",
                "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            ],
            "board part has 7 ranks, not 8",
        ),
        (
            &[
                "id",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            ],
            "not a start position: e2 is empty",
        ),
        (&["pos", "961"], "961 is not a Scharnagl number"),
        (&["pos", "-1"], "-1 is not a Scharnagl number"),
        (&["pos", "abc"], "\"abc\" is not a number"),
        (&["pos", "--fritz9", "0"], "0 is not a Fritz9 number"),
        (&["pos", "--fritz9", "961"], "961 is not a Fritz9 number"),
        (&["pos"], "required arguments were not provided: <N>"),
    ];
    for (args, problem) in cases {
        let run = pgn960(args);
        assert_eq!(run.code, 2, "pgn960 {args:?}");
        assert_eq!(run.stdout, "", "pgn960 {args:?}");
        assert_eq!(
            run.stderr.lines().count(),
            1,
            "pgn960 {args:?}:\n{}",
            run.stderr
        );
        assert!(run.stderr.starts_with("pgn960: "), "{}", run.stderr);
        assert!(
            run.stderr.contains(problem),
            "pgn960 {args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn id_keeps_going_after_a_bad_input() {
    let run = pgn960(&["id", "RNBQKBNR", "RNBQKNBR", "BBQNNRKR"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "518 359 RNBQKBNR\n0 81 BBQNNRKR\n");
    assert_eq!(
        run.stderr,
        "pgn960: id: \"RNBQKNBR\": bishops on squares of the same colour (files c and g)\n"
    );
}

/// Checks a `random` or `id` line and returns its Scharnagl number.
fn check_line(line: &str) -> u16 {
    let fields: Vec<&str> = line.split(' ').collect();
    let [scharnagl, fritz9, arrangement] = fields[..] else {
        panic!("three fields: {line:?}");
    };
    let rank: BackRank = arrangement.parse().expect(line);
    assert_eq!(scharnagl, rank.scharnagl().to_string(), "{line}");
    assert_eq!(fritz9, rank.fritz9().to_string(), "{line}");
    rank.scharnagl()
}

#[test]
fn random_with_a_seed_is_reproducible() {
    let first = ok(&["random", "--count", "50", "--seed", "2024"]);
    assert_eq!(ok(&["random", "--count", "50", "--seed", "2024"]), first);
    assert_ne!(ok(&["random", "--count", "50", "--seed", "2025"]), first);
    assert_eq!(first.lines().count(), 50);
    for line in first.lines() {
        assert!(check_line(line) < 960);
    }
    assert_eq!(ok(&["random"]).lines().count(), 1);
}

/// `random`'s draws are uniform over the 960: Pearson's chi-square test
/// of 96,000 seeded draws (100 expected per position) against the
/// uniform, at the 0.0001 level. A draw that favours some positions fails
/// it: folding a draw from 0..1024 onto 0..960 (64 positions twice as
/// likely) gives a statistic of about 6,000 against a critical value of
/// about 1,100.
#[test]
fn random_draws_are_uniform_by_a_chi_square_test() {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    const DRAWS: usize = 96_000;
    let stdout = ok(&["random", "--count", &DRAWS.to_string(), "--seed", "960"]);
    let mut counts = [0u32; 960];
    for line in stdout.lines() {
        counts[usize::from(check_line(line))] += 1;
    }
    assert_eq!(counts.iter().sum::<u32>() as usize, DRAWS);
    let expected = DRAWS as f64 / 960.0;
    let statistic: f64 = counts
        .iter()
        .map(|&n| (f64::from(n) - expected).powi(2) / expected)
        .sum();
    let p = ChiSquared::new(959.0).unwrap().sf(statistic);
    assert!(
        p > 1e-4,
        "chi-square {statistic:.1} on 959 degrees of freedom, p = {p:.2e}"
    );
}
