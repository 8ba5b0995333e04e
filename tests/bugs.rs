//! What a user sees of a bug in pgn960: one `pgn960:` line on stderr and
//! exit code 2, not Rust's panic report, and no output left half-written.
//! The panic is planted through the binary's hidden test trigger
//! (`PGN960_PLANT_PANIC`).

use std::process::Command;

use crate::common::testdata_file;

/// Runs the built binary with a panic planted at `place`; returns its exit
/// code and stderr.
fn with_panic_planted(place: &str, args: &[&std::ffi::OsStr]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_pgn960"))
        .args(args)
        .env("PGN960_PLANT_PANIC", place)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("pgn960 runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Exactly one line, the tool's, naming the bug as such.
fn assert_one_line_of_internal_error(stderr: &str, what: &str) {
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: stderr is not one line:\n{stderr}");
    assert!(
        lines[0].starts_with("pgn960: ")
            && lines[0].contains("internal error, please report it: planted by PGN960_PLANT_PANIC"),
        "{what}: {stderr}"
    );
}

#[test]
fn a_panic_in_the_work_on_games_is_one_line_and_exit_2_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tagged.pgn");
    let sample = testdata_file("sample.pgn");
    let (code, stderr) = with_panic_planted(
        "worker",
        &[
            "tag".as_ref(),
            sample.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
    );
    assert_eq!(code, 2, "stderr: {stderr}");
    assert_one_line_of_internal_error(&stderr, "tag");
    assert!(!out.exists(), "a run ended by a bug left its output behind");
}

#[test]
fn a_panic_on_the_main_thread_is_one_line_with_its_place_and_exit_2() {
    let (code, stderr) = with_panic_planted("main", &["id".as_ref(), "RNBQKBNR".as_ref()]);
    assert_eq!(code, 2, "stderr: {stderr}");
    assert_one_line_of_internal_error(&stderr, "id");
    assert!(stderr.contains("(at src/cli/mod.rs:"), "no place: {stderr}");
}

#[test]
fn without_the_trigger_the_same_commands_succeed() {
    // The trigger, not the commands, is what fails above.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tagged.pgn");
    let sample = testdata_file("sample.pgn");
    let (code, stderr) = with_panic_planted(
        "",
        &[
            "tag".as_ref(),
            "-q".as_ref(),
            sample.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(out.exists());
}
