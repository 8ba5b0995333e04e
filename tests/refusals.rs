//! Arguments that mean nothing are refused before any input is read, and
//! each error says what is wrong (issue 39, item 13).

use std::fs;

use crate::common::{has_dev_full, pgn960, testdata_file};

/// The one `pgn960:` line of a refused run (exit 2).
fn refused(args: &[&str]) -> String {
    let run = pgn960(args, None);
    assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
    run.stderr
}

#[test]
fn a_negative_min_elo_is_refused() {
    let sample = testdata_file("sample.pgn");
    let sample = sample.to_str().expect("UTF-8");
    for command in ["stats", "filter"] {
        let error = refused(&[command, "--min-elo", "-5", sample]);
        assert!(
            error.contains("--min-elo") && error.contains("-5"),
            "{command}: {error}"
        );
        // The bounds themselves are ratings one may ask for.
        for fine in ["0", "4000"] {
            let run = pgn960(&[command, "-q", "--min-elo", fine, sample], None);
            assert_eq!(run.code, 0, "{command} --min-elo {fine}: {}", run.stderr);
        }
    }
}

#[test]
fn an_empty_group_by_is_refused() {
    let sample = testdata_file("sample.pgn");
    let sample = sample.to_str().expect("UTF-8");
    let error = refused(&["stats", "--group-by", "", sample]);
    assert!(
        error.contains("--group-by") && error.contains("an empty name groups nothing"),
        "{error}"
    );
    let error = refused(&["stats", "--group-by", "White Elo", sample]);
    assert!(error.contains("' ' is in no tag name"), "{error}");
    let run = pgn960(&["stats", "-q", "--group-by", "Event", sample], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// An output that cannot be written: the error only, no summary saying
/// the games were counted as if all went well.
#[test]
fn stats_to_a_full_device_prints_no_summary() {
    if !has_dev_full("refusals::stats_to_a_full_device_prints_no_summary") {
        return;
    }
    let sample = testdata_file("sample.pgn");
    let run = pgn960(
        &["stats", sample.to_str().expect("UTF-8"), "-o", "/dev/full"],
        None,
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("pgn960: writing /dev/full"),
        "{}",
        run.stderr
    );
}

/// `--output-dir` naming a file: what is wrong, not "File exists".
#[test]
fn an_output_dir_that_is_a_file_is_named_so() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = dir.path().join("in.pgn");
    let bytes = fs::read(testdata_file("sample.pgn")).expect("the sample");
    fs::write(&input, &bytes).expect("writable");
    let input = input.to_str().expect("UTF-8");
    let error = refused(&["filter", "--split-by", "kind", "--output-dir", input, input]);
    assert_eq!(
        error,
        format!(
            "pgn960: --output-dir {input}: not a folder: a file of that name is there \
             (--output-dir names the folder the files go in)\n"
        )
    );
    assert_eq!(
        fs::read(input).expect("still there"),
        bytes,
        "the input is untouched"
    );
}

/// An arrangement with a blank is told about the blank, not counted as
/// nine letters.
#[test]
fn an_arrangement_with_a_blank_names_the_blank() {
    let error = refused(&["id", "RNBQKBNR "]);
    assert_eq!(
        error,
        "pgn960: id: \"RNBQKBNR \": ' ' is not a piece letter (K, Q, R, B, N)\n"
    );
    let error = refused(&["id", "RNBQKBNRR"]);
    assert!(error.contains("9 letters, not 8"), "{error}");
}
