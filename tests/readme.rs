//! The README is the front door: these tests keep it in step with the tool.

use std::path::Path;

use assert_cmd::Command;
use pgn960::validate::Code;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md is readable")
}

#[test]
fn every_validate_code_is_documented_with_its_severity_and_meaning() {
    let readme = readme();
    for code in Code::ALL {
        let row = format!(
            "| `{}` | {} | {} |",
            code.name(),
            code.severity(),
            code.description().replace('|', "\\|")
        );
        assert!(readme.contains(&row), "README lacks the row: {row}");
    }
}

#[test]
fn every_command_and_option_is_documented() {
    let readme = readme();
    let help = Command::cargo_bin("pgn960")
        .expect("the binary is built")
        .arg("--help")
        .output()
        .expect("the binary runs");
    assert!(help.status.success(), "pgn960 --help fails");
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let commands: Vec<&str> = help
        .split("Commands:\n")
        .nth(1)
        .expect("--help lists the commands")
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(commands.len() >= 9, "{commands:?}");
    for command in commands {
        assert!(
            readme.contains(&format!("### `pgn960 {command}")),
            "README has no section for `{command}`"
        );
        let help = Command::cargo_bin("pgn960")
            .expect("the binary is built")
            .args([command, "--help"])
            .output()
            .expect("the binary runs");
        assert!(help.status.success(), "pgn960 {command} --help fails");
        let help = String::from_utf8_lossy(&help.stdout);
        // Option lines of clap's help start with `-x, --long` or `--long`.
        let options: Vec<&str> = help
            .lines()
            .map(str::trim_start)
            .filter(|line| line.starts_with('-'))
            .filter_map(|line| line.split_whitespace().find(|w| w.starts_with("--")))
            .map(|word| word.trim_end_matches(','))
            .collect();
        // Reading the help found its option lines: `--help` is one.
        assert!(
            options.contains(&"--help"),
            "no options read from `{command} --help`"
        );
        for option in options {
            if !["--help", "--version"].contains(&option) {
                assert!(
                    readme.contains(&format!("`{option}")),
                    "README does not document `{command} {option}`"
                );
            }
        }
    }
}

#[test]
fn quick_start_holds_exactly_two_commands() {
    let readme = readme();
    let start = readme
        .find("## Quick start")
        .expect("a Quick start section");
    let section = &readme[start..];
    let block_start = section.find("```sh\n").expect("a shell block") + 6;
    let block_end = section[block_start..].find("```").expect("the block ends") + block_start;
    let commands: Vec<&str> = section[block_start..block_end]
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(
        commands,
        [
            "cargo run --release -- tag testdata/sample.pgn",
            "cargo test"
        ]
    );
}

/// Runs each example of the README's section on `pgn960 COMMAND`: a
/// `$ pgn960 ...` line and the lines up to the next `$` line or the end of
/// its block. Examples that go through a shell (a pipe, a redirect) or
/// whose output is cut (`...`) are left out. Returns how many were run.
fn check_examples(command: &str) -> usize {
    let readme = readme();
    let heading = format!("### `pgn960 {command}");
    let start = readme
        .find(&heading)
        .unwrap_or_else(|| panic!("a section for {command}"));
    let end = readme[start + 4..]
        .find("\n### ")
        .map_or(readme.len(), |end| start + 4 + end);
    let section = &readme[start..end];
    let mut checked = 0;
    for block in section.split("```console\n").skip(1) {
        let block = &block[..block.find("```").expect("the block ends")];
        for example in block.split("$ ").filter(|example| !example.is_empty()) {
            let (line, expected) = example.split_once('\n').expect("a command line");
            if expected.contains("\n...\n")
                || expected.ends_with("...\n")
                || line.contains(['|', '>', '\''])
            {
                continue;
            }
            let args: Vec<&str> = line
                .strip_prefix("pgn960 ")
                .expect("a pgn960 command")
                .split_whitespace()
                .collect();
            let output = Command::cargo_bin("pgn960")
                .expect("the binary is built")
                .args(&args)
                .output()
                .expect("the binary runs");
            let printed = String::from_utf8_lossy(&output.stdout).into_owned()
                + &String::from_utf8_lossy(&output.stderr);
            assert_eq!(printed, expected, "README example `{line}`");
            checked += 1;
        }
    }
    checked
}

#[test]
fn draw_examples_are_what_the_binary_prints() {
    assert_eq!(check_examples("draw"), 6, "the README's draw examples");
}

/// `random --seed` is reproducible: the README's draw of three is what a
/// user gets, on any machine and in any later version.
#[test]
fn id_pos_and_random_examples_are_what_the_binary_prints() {
    assert_eq!(check_examples("id"), 2, "the README's id examples");
    assert_eq!(check_examples("pos"), 3, "the README's pos examples");
    assert_eq!(check_examples("random"), 1, "the README's random example");
}

#[test]
fn every_games_column_is_in_the_readme_table() {
    let readme = readme();
    let start = readme
        .find("### `pgn960 games")
        .expect("a section for games");
    let end = readme[start + 4..]
        .find("\n### ")
        .map_or(readme.len(), |end| start + 4 + end);
    let rows: Vec<&str> = readme[start..end]
        .lines()
        .filter(|line| line.starts_with("| `"))
        .collect();
    for column in pgn960::export::COLUMNS {
        let name = format!("`{}`", column.name());
        assert!(
            rows.iter().any(|row| row
                .split(" | ")
                .next()
                .is_some_and(|cell| cell.contains(&name))),
            "the README's table of games columns lacks {name}"
        );
    }
}

/// The examples of `filter` whose output the README shows, run in a
/// scratch folder (with `testdata` in it) one after another, as a reader
/// would: `pgn960 ...` must print what is shown, `ls DIR` list the files.
#[test]
fn filter_examples_are_what_the_binary_prints() {
    let readme = readme();
    let start = readme
        .find("### `pgn960 filter")
        .expect("a section for filter");
    let end = readme[start + 4..]
        .find("\n### ")
        .map_or(readme.len(), |end| start + 4 + end);
    let section = &readme[start..end];
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::os::unix::fs::symlink(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata"),
        dir.path().join("testdata"),
    )
    .expect("a symbolic link");
    let mut checked = 0;
    for block in section.split("```console\n").skip(1) {
        let block = &block[..block.find("```").expect("the block ends")];
        for example in block.split("$ ").filter(|example| !example.is_empty()) {
            let (command, expected) = example.split_once('\n').expect("a command line");
            let words: Vec<&str> = command.split_whitespace().collect();
            if let ["ls", folder] = words[..] {
                let mut names: Vec<String> = std::fs::read_dir(dir.path().join(folder))
                    .expect("the folder was written")
                    .map(|entry| {
                        entry
                            .expect("an entry")
                            .file_name()
                            .to_string_lossy()
                            .into_owned()
                    })
                    .collect();
                names.sort();
                let shown: Vec<&str> = expected.split_whitespace().collect();
                assert_eq!(names, shown, "README example `{command}`");
            } else {
                let args = words.strip_prefix(&["pgn960"]).expect("a pgn960 command");
                let output = Command::cargo_bin("pgn960")
                    .expect("the binary is built")
                    .args(args)
                    .current_dir(dir.path())
                    .output()
                    .expect("the binary runs");
                let printed = String::from_utf8_lossy(&output.stdout).into_owned()
                    + &String::from_utf8_lossy(&output.stderr);
                assert_eq!(printed, expected, "README example `{command}`");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 7, "the README's filter examples");
}

#[test]
fn fix_example_is_what_the_binary_prints() {
    let readme = readme();
    let start = readme.find("### `pgn960 fix").expect("a section for fix");
    let block = readme[start..]
        .split("```console\n")
        .nth(1)
        .expect("an example");
    let block = &block[..block.find("```").expect("the block ends")];
    // `$ COMMAND` lines, each with what it printed.
    let examples: Vec<(&str, &str)> = block
        .split("$ ")
        .filter(|example| !example.is_empty())
        .map(|example| example.split_once('\n').expect("a command line"))
        .collect();
    let [
        ("cat broadcast.pgn", input),
        (command, printed),
        ("cat repairs.csv", report),
    ] = examples[..]
    else {
        panic!("the example is cat, fix, cat: {examples:?}");
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("broadcast.pgn"), input).expect("writable");
    let args: Vec<&str> = command
        .strip_prefix("pgn960 ")
        .expect("a pgn960 command")
        .split_whitespace()
        .collect();
    let output = Command::cargo_bin("pgn960")
        .expect("the binary is built")
        .args(&args)
        .current_dir(dir.path())
        .output()
        .expect("the binary runs");
    let got = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert_eq!(got, printed, "README example `{command}`");
    let written = std::fs::read_to_string(dir.path().join("repairs.csv")).expect("the report");
    assert_eq!(written, report, "README example's report");
}
