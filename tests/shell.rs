//! The tool in the shell: completion scripts, the manual page, and what
//! the command line says when it is used wrongly.

use std::process::Command;

use crate::common::pgn960;

/// The commands, as `pgn960 --help` lists them (help itself aside).
fn commands() -> Vec<String> {
    let run = pgn960(&["--help"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let help = String::from_utf8(run.stdout).expect("UTF-8 help");
    let list = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands list")
        .split("\n\n")
        .next()
        .expect("the list ends");
    let names: Vec<String> = list
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect();
    assert!(names.len() >= 9, "{names:?}");
    names
}

/// Every long option of a command, from its `--help`.
fn long_options(command: &str) -> Vec<String> {
    let run = pgn960(&[command, "--help"], None);
    assert_eq!(run.code, 0, "{command} --help: {}", run.stderr);
    String::from_utf8(run.stdout)
        .expect("UTF-8 help")
        .lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with('-'))
        .filter_map(|line| line.split_whitespace().find(|w| w.starts_with("--")))
        // An optional value (`--unplayed[=<LIST>]`) is roff of its own.
        .map(|word| {
            word.trim_end_matches(',')
                .split('[')
                .next()
                .unwrap_or(word)
                .to_string()
        })
        .filter(|option| option != "--help" && option != "--version")
        .collect()
}

#[test]
fn every_shell_gets_a_script_that_completes_every_command() {
    let commands = commands();
    // What each shell's script is recognised by.
    let shells = [
        ("bash", "complete -F _pgn960"),
        ("zsh", "#compdef pgn960"),
        ("fish", "complete -c pgn960"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[pgn960]"),
    ];
    for (shell, mark) in shells {
        let run = pgn960(&["completions", shell], None);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        let script = String::from_utf8(run.stdout).expect("a UTF-8 script");
        assert!(script.contains(mark), "{shell}: no {mark:?}");
        for command in &commands {
            assert!(script.contains(command.as_str()), "{shell} lacks {command}");
        }
        for option in ["--in-place", "--group-by", "--no-moves"] {
            assert!(
                script.contains(option.trim_start_matches('-')),
                "{shell} lacks {option}"
            );
        }
    }
    // The bash script is valid bash.
    let run = pgn960(&["completions", "bash"], None);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("pgn960.bash");
    std::fs::write(&path, &run.stdout).expect("writable");
    let status = Command::new("bash")
        .arg("-n")
        .arg(&path)
        .status()
        .expect("bash runs");
    assert!(status.success(), "bash -n rejects the script");
    // An unknown shell is refused with the ones that are known.
    let run = pgn960(&["completions", "tcsh"], None);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("possible values: bash"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_man_page_has_a_section_for_every_command_and_its_options() {
    let run = pgn960(&["man"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = String::from_utf8(run.stdout).expect("UTF-8 roff");
    assert!(page.contains(".TH PGN960 1"), "no title line");
    for section in [
        "NAME",
        "SYNOPSIS",
        "COMMANDS",
        "\"EXIT STATUS\"",
        "\"SEE ALSO\"",
    ] {
        assert!(page.contains(&format!(".SH {section}")), "no {section}");
    }
    for command in commands() {
        let heading = format!(".SH \"PGN960 {}\"", command.to_uppercase());
        assert!(page.contains(&heading), "no section {heading}");
        let body = page.split(&heading).nth(1).expect("the section");
        let body = body.split("\n.SH ").next().expect("it ends");
        for option in long_options(&command) {
            // roff writes a minus as `\-`.
            let roff = option.replace('-', "\\-");
            assert!(
                body.contains(&roff),
                "`{command} {option}` not in its section"
            );
        }
    }
    // Each part of the page defines roff's apostrophe string once, not
    // once a section.
    assert_eq!(page.matches(".ds Aq").count(), 2);
}

/// Every argument error is one `pgn960:` line that says what is wrong.
#[test]
fn argument_errors_say_what_is_missing_or_allowed() {
    let cases: [(&[&str], &str); 5] = [
        (&[], "a command is needed: id, pos, table"),
        (&["id"], "<ARRANGEMENT|FEN>"),
        (&["pos"], "<N>"),
        (
            &["validate", "--format", "xml"],
            "[possible values: csv, jsonl]",
        ),
        (&["tag", "--threads", "0"], "0 is not in 1..=1024"),
    ];
    for (args, says) in cases {
        let run = pgn960(args, None);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stdout.is_empty(), "{args:?} wrote to stdout");
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
        assert!(lines[0].starts_with("pgn960: "), "{args:?}: {}", lines[0]);
        assert!(
            lines[0].contains(says),
            "{args:?}: {} lacks {says:?}",
            lines[0]
        );
    }
}

/// `pgn960 completions SHELL | head` and `pgn960 man | head`: a reader
/// that stops early ends the run quietly, never with a panic.
#[test]
fn completions_and_man_end_quietly_when_the_reader_stops() {
    use std::process::Stdio;
    for args in [
        &["completions", "bash"][..],
        &["completions", "zsh"],
        &["man"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pgn960"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pgn960 runs");
        // Close the reading end at once: every write meets a closed pipe.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("pgn960 ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            stderr.is_empty(),
            "{args:?}: a closed pipe is no error: {stderr}"
        );
    }
}
