//! The README and the guide under `docs/` are kept honest by running them:
//! every `console` example is run in a scratch folder and must print what
//! the page shows, every command and option has its page, every link
//! leads somewhere.
//!
//! How a page's examples run (so that a writer knows what the test does):
//!
//! - Each page gets a fresh scratch folder holding a copy of `testdata/`
//!   and an empty `docs/`; `../shared/data` there is the corpus, when it
//!   is there. The examples run in page order, each seeing the files the
//!   ones before it wrote, as a reader following the page would.
//! - A `$ COMMAND` line runs through `sh -c` with the `pgn960` under test
//!   first on `PATH`; what it prints (standard output, then standard
//!   error) must be the lines shown under it, up to the next `$` line or
//!   the end of the block. A line `...` stands for any lines. `$?` is the
//!   exit code of the example before.
//! - A `python` block whose first line is `# NAME.py` is written to
//!   `NAME.py` where it stands; `python3` in an example runs the
//!   interpreter named by `PGN960_PYTHON` (else `python3`).
//! - `$ cat NAME` of a file no earlier example named shows a file the
//!   page starts from: it is written with the lines shown.
//! - A file an example writes under `docs/` must be the repository's file
//!   of that name, byte for byte (the pictures the guide shows).
//! - An example that reads `../shared/data` runs only with the corpus
//!   (and under CI always), and so do the examples after it that name a
//!   file it names; one that needs a Python module that is not
//!   installed is skipped, saying so (under CI it fails).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use pgn960::validate::Code;

use crate::common::{corpus, say_skipped};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    fs::read_to_string(root().join(relative)).unwrap_or_else(|err| panic!("{relative}: {err}"))
}

/// One step of a page, in page order.
#[derive(Debug)]
enum Step {
    /// A `$ COMMAND` line (at `line`, 1-based) and the output shown under it.
    Example {
        line: usize,
        command: String,
        shown: String,
    },
    /// A Python block that names its file in its first line.
    Script { name: String, text: String },
}

/// The steps of a page: its `console` examples and named Python scripts.
/// Blocks inside list items are indented; their indentation is removed.
fn steps(page: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut lines = page.lines().enumerate();
    while let Some((_, fence)) = lines.next() {
        let trimmed = fence.trim_start();
        let indent = fence.len() - trimmed.len();
        let Some(language) = trimmed.strip_prefix("```") else {
            continue;
        };
        let mut block = Vec::new();
        for (number, line) in lines.by_ref() {
            if line.trim_start().starts_with("```") {
                break;
            }
            block.push((number + 1, line.get(indent..).unwrap_or(line.trim_start())));
        }
        match language.trim() {
            "console" => {
                for (number, line) in &block {
                    if let Some(command) = line.strip_prefix("$ ") {
                        steps.push(Step::Example {
                            line: *number,
                            command: command.to_string(),
                            shown: String::new(),
                        });
                    } else if let Some(Step::Example { shown, .. }) = steps.last_mut() {
                        shown.push_str(line);
                        shown.push('\n');
                    } else {
                        panic!("line {number}: a console block starts with a `$` line");
                    }
                }
            }
            "python" => {
                if let Some(name) = block
                    .first()
                    .and_then(|(_, line)| line.strip_prefix("# "))
                    .filter(|name| name.ends_with(".py") && !name.contains(' '))
                {
                    let text = block.iter().map(|(_, line)| format!("{line}\n")).collect();
                    steps.push(Step::Script {
                        name: name.to_string(),
                        text,
                    });
                }
            }
            _ => {}
        }
    }
    steps
}

/// Whether `printed` is what a page shows: equal, where a line `...` of
/// `shown` stands for any number of lines.
fn matches_shown(printed: &str, shown: &str) -> bool {
    let parts: Vec<&str> = shown.split("...\n").collect();
    if parts.len() == 1 {
        return printed == shown;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !printed.starts_with(first) || printed.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &printed[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last) && (last.is_empty() || rest.len() >= last.len())
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("a scratch folder");
    for entry in fs::read_dir(from).expect("readable") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copied");
        }
    }
}

fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            files.extend(files_below(&entry.path()));
        } else {
            files.push(entry.path());
        }
    }
    files
}

/// Runs every example of `page` (a path below the repository's root) and
/// returns how many ran and how many were skipped.
fn run_page(page: &str) -> (usize, usize) {
    let test = format!("docs::{}", test_name(page));
    let text = read(page);
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let work = scratch.path().join("work");
    copy_dir(&root().join("testdata"), &work.join("testdata"));
    fs::create_dir_all(work.join("docs")).expect("docs/ in the scratch folder");
    let corpus = corpus();
    if let Some(corpus) = &corpus {
        fs::create_dir_all(scratch.path().join("shared")).expect("shared/");
        std::os::unix::fs::symlink(corpus.dir(), scratch.path().join("shared/data"))
            .expect("a link to the corpus");
    }
    let binary = assert_cmd::cargo::cargo_bin("pgn960");
    let path = format!(
        "{}:{}",
        binary.parent().expect("the binary's folder").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let python = std::env::var("PGN960_PYTHON").unwrap_or_else(|_| "python3".to_string());

    let mut named = String::new();
    let mut unavailable: Vec<String> = Vec::new();
    let mut last_code = 0;
    let (mut ran, mut skipped) = (0, 0);
    for step in steps(&text) {
        let (line, command, shown) = match step {
            Step::Script { name, text } => {
                fs::write(work.join(&name), text).expect("the script is written");
                continue;
            }
            Step::Example {
                line,
                command,
                shown,
            } => (line, command, shown),
        };
        let needs_skipped = command
            .split_whitespace()
            .any(|word| unavailable.iter().any(|file| file == word));
        if (command.contains("../shared/data") && corpus.is_none()) || needs_skipped {
            say_skipped(&test, &format!("{page}:{line}: no corpus for `{command}`"));
            // What it would have written is not there for the examples after it.
            unavailable.extend(
                command
                    .split_whitespace()
                    .filter(|word| word.contains('.') && !word.starts_with('-'))
                    .map(String::from),
            );
            skipped += 1;
            continue;
        }
        if let Some(name) = command.strip_prefix("cat ")
            && !name.contains(' ')
            && !named.contains(name)
            && !work.join(name).exists()
        {
            fs::write(work.join(name), &shown).expect("the page's file is written");
            named.push_str(&command);
            continue;
        }
        let script = match command.strip_prefix("python3 ") {
            Some(rest) => format!("(exit {last_code}); '{python}' {rest}"),
            None => format!("(exit {last_code}); {command}"),
        };
        let output = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .current_dir(&work)
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .expect("sh runs");
        let printed = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        if command.starts_with("python3 ") && printed.contains("ModuleNotFoundError") {
            // What the script would have written is not there for the
            // examples after it: the file names in its text.
            let script = command
                .split_whitespace()
                .nth(1)
                .and_then(|name| fs::read_to_string(work.join(name)).ok())
                .unwrap_or_default();
            unavailable.extend(
                script
                    .split(|c: char| !(c.is_ascii_alphanumeric() || "._-/".contains(c)))
                    .filter(|word| word.contains('.'))
                    .map(String::from),
            );
            say_skipped(
                &test,
                &format!(
                    "{page}:{line}: a Python module is missing for `{command}` (set PGN960_PYTHON)"
                ),
            );
            skipped += 1;
            continue;
        }
        assert!(
            matches_shown(&printed, &shown),
            "{page}:{line}: `{command}` printed\n{printed}\n--- where the page shows ---\n{shown}"
        );
        named.push_str(&command);
        named.push('\n');
        last_code = output.status.code().unwrap_or(-1);
        ran += 1;
    }
    for file in files_below(&work.join("docs")) {
        let relative = file.strip_prefix(&work).expect("below the scratch folder");
        let ours = root().join(relative);
        assert!(
            ours.is_file() && fs::read(&ours).ok() == fs::read(&file).ok(),
            "{page}: {} is not what its example writes",
            relative.display()
        );
    }
    (ran, skipped)
}

/// A page's name as its test names it: `docs/commands/tag.md` is
/// `commands_tag`.
fn test_name(page: &str) -> String {
    page.trim_start_matches("docs/")
        .trim_end_matches(".md")
        .replace(['/', '-'], "_")
        .to_lowercase()
}

/// One test per page, each holding how many examples the page has, so that
/// an example whose block was mistyped (and is no longer run) is noticed.
macro_rules! page_tests {
    ($($name:ident: $page:literal runs $count:literal;)+) => {
        $(
            #[test]
            fn $name() {
                let (ran, skipped) = run_page($page);
                assert_eq!(ran + skipped, $count, "{}: the examples run or skipped", $page);
            }
        )+

        /// Every page of the guide is one of those run above.
        const PAGES: &[&str] = &[$($page),+];
    };
}

page_tests! {
    readme: "README.md" runs 9;
    guide: "docs/README.md" runs 0;
    commands_id: "docs/commands/id.md" runs 3;
    commands_pos: "docs/commands/pos.md" runs 3;
    commands_table: "docs/commands/table.md" runs 2;
    commands_random: "docs/commands/random.md" runs 1;
    commands_draw: "docs/commands/draw.md" runs 6;
    commands_tag: "docs/commands/tag.md" runs 5;
    commands_stats: "docs/commands/stats.md" runs 18;
    commands_validate: "docs/commands/validate.md" runs 2;
    commands_fix: "docs/commands/fix.md" runs 7;
    commands_filter: "docs/commands/filter.md" runs 14;
    commands_games: "docs/commands/games.md" runs 6;
    commands_completions: "docs/commands/completions.md" runs 1;
    commands_man: "docs/commands/man.md" runs 1;
    kinds: "docs/kinds.md" runs 0;
    splitting: "docs/splitting.md" runs 0;
    research: "docs/research.md" runs 7;
    recipes: "docs/recipes.md" runs 18;
    guarantees: "docs/guarantees.md" runs 0;
    codes: "docs/codes.md" runs 0;
    performance: "docs/performance.md" runs 0;
    library: "docs/library.md" runs 0;
    development: "docs/development.md" runs 0;
    python: "docs/python.md" runs 12;
}

#[test]
fn every_page_of_the_guide_is_run_and_linked_from_the_readme() {
    let mut pages: Vec<String> = files_below(&root().join("docs"))
        .into_iter()
        .filter(|file| file.extension().is_some_and(|ext| ext == "md"))
        .map(|file| {
            file.strip_prefix(root())
                .expect("below the root")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    pages.sort();
    let readme = read("README.md");
    let guide = read("docs/README.md");
    for page in &pages {
        assert!(
            PAGES.contains(&page.as_str()),
            "{page} has no test running it"
        );
        let from_readme = page.as_str();
        let from_guide = page.trim_start_matches("docs/");
        assert!(
            readme.contains(&format!("]({from_readme})"))
                || guide.contains(&format!("]({from_guide})")),
            "{page} is linked neither from README.md nor from docs/README.md"
        );
    }
    assert!(
        readme.contains("](docs/README.md)"),
        "the README links the guide"
    );
}

/// Every relative link of the README and the guide leads to a file that is
/// there (and, with an anchor, to a heading of that file).
#[test]
fn every_link_leads_somewhere() {
    let mut pages = vec![root().join("README.md"), root().join("CONTRIBUTING.md")];
    pages.extend(
        files_below(&root().join("docs"))
            .into_iter()
            .filter(|file| file.extension().is_some_and(|ext| ext == "md")),
    );
    for page in pages {
        let text = fs::read_to_string(&page).expect("readable");
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')').expect("a link ends")];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let file = if file.is_empty() {
                page.clone()
            } else {
                page.parent().expect("a folder").join(file)
            };
            assert!(
                file.exists(),
                "{}: the link {target} leads nowhere",
                page.display()
            );
            if !anchor.is_empty() {
                let linked = fs::read_to_string(&file).expect("a page");
                let anchors: Vec<String> = linked
                    .lines()
                    .filter(|line| line.starts_with('#'))
                    .map(|line| github_anchor(line.trim_start_matches('#').trim()))
                    .collect();
                assert!(
                    anchors.iter().any(|a| a == anchor),
                    "{}: no heading of {} has the anchor #{anchor}",
                    page.display(),
                    file.display()
                );
            }
        }
    }
}

/// The anchor a code host gives a heading: lower case, spaces as hyphens,
/// punctuation other than hyphens and underscores dropped.
fn github_anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn the_readme_is_a_front_door() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 320,
        "README.md has {lines} lines: move detail to docs/"
    );
}

#[test]
fn quick_start_holds_exactly_two_commands_and_shows_what_the_first_prints() {
    let readme = read("README.md");
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
    let text_start = section.find("```text\n").expect("the summary it prints") + 8;
    let text_end = section[text_start..].find("```").expect("the block ends") + text_start;
    let sample = root().join("testdata/sample.pgn");
    let run = crate::common::pgn960(&[std::ffi::OsStr::new("tag"), sample.as_os_str()], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, &section[text_start..text_end]);
}

#[test]
fn every_validate_code_is_documented_with_its_severity_and_meaning() {
    let codes = read("docs/codes.md");
    for code in Code::ALL {
        let row = format!(
            "| `{}` | {} | {} |",
            code.name(),
            code.severity(),
            code.description().replace('|', "\\|")
        );
        assert!(codes.contains(&row), "docs/codes.md lacks the row: {row}");
    }
}

/// The commands, as `pgn960 --help` lists them (help itself aside).
fn commands() -> Vec<String> {
    let run = crate::common::pgn960(&["--help"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let help = String::from_utf8(run.stdout).expect("UTF-8 help");
    let names: Vec<String> = help
        .split("Commands:\n")
        .nth(1)
        .expect("--help lists the commands")
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect();
    assert!(names.len() >= 9, "{names:?}");
    names
}

#[test]
fn every_command_and_option_has_its_page_and_a_tour_line() {
    let readme = read("README.md");
    for command in commands() {
        let page = format!("docs/commands/{command}.md");
        let text = read(&page);
        assert!(
            text.starts_with(&format!("# `pgn960 {command}")),
            "{page} starts with its command's heading"
        );
        assert!(
            readme.contains(&format!("({page})")),
            "the README's tour does not link {page}"
        );
        let run = crate::common::pgn960(&[&command, "--help"], None);
        assert_eq!(run.code, 0, "pgn960 {command} --help: {}", run.stderr);
        let help = String::from_utf8(run.stdout).expect("UTF-8 help");
        // Option lines of clap's help start with `-x, --long` or `--long`.
        let options: Vec<&str> = help
            .lines()
            .map(str::trim_start)
            .filter(|line| line.starts_with('-'))
            .filter_map(|line| line.split_whitespace().find(|w| w.starts_with("--")))
            .map(|word| word.trim_end_matches(','))
            .collect();
        assert!(
            options.contains(&"--help"),
            "no options read from `{command} --help`"
        );
        for option in options {
            if !["--help", "--version"].contains(&option) {
                assert!(
                    text.contains(&format!("`{option}")),
                    "{page} does not document `{option}`"
                );
            }
        }
    }
}

#[test]
fn every_games_column_is_in_its_table() {
    let page = read("docs/commands/games.md");
    let rows: Vec<&str> = page
        .lines()
        .filter(|line| line.starts_with("| `"))
        .collect();
    for column in pgn960::export::COLUMNS
        .into_iter()
        .chain(pgn960::export::DUPLICATE_COLUMNS)
    {
        let name = format!("`{}`", column.name());
        assert!(
            rows.iter().any(|row| row
                .split(" | ")
                .next()
                .is_some_and(|cell| cell.contains(&name))),
            "docs/commands/games.md's table of columns lacks {name}"
        );
    }
}

/// The help and the manual page name the guide by its path, so that a user
/// with only the binary knows where the documentation is.
#[test]
fn help_and_manual_point_to_the_guide() {
    let help = crate::common::pgn960(&["--help"], None);
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("docs/README.md"),
        "pgn960 --help names the guide"
    );
    let man = crate::common::pgn960(&["man"], None);
    assert!(
        String::from_utf8_lossy(&man.stdout).contains("docs/README.md"),
        "the manual page names the guide"
    );
}

/// The page runner itself: a shown `...` stands for lines, and nothing
/// else passes for what is shown.
#[test]
fn shown_output_is_matched_exactly_but_for_ellipses() {
    assert!(matches_shown("a\nb\n", "a\nb\n"));
    assert!(!matches_shown("a\nb\n", "a\n"));
    assert!(!matches_shown("a\n", "a\nb\n"));
    assert!(matches_shown("a\nb\nc\nd\n", "a\n...\nd\n"));
    assert!(matches_shown("a\nb\nc\n", "a\n...\n"));
    assert!(!matches_shown("a\nb\nc\n", "b\n...\n"));
    assert!(!matches_shown("a\nb\nc\n", "a\n...\nb\n"));
    assert!(matches_shown("a\nb\nc\nd\n", "a\n...\nc\n...\n"));
    assert!(!matches_shown("a\nd\n", "a\n...\nc\n...\n"));
}
