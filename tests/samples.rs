//! The real data the tests read: the samples shipped in `testdata/real/`
//! are what `testdata/README.md` says (and, with the corpus there, still
//! the corpus's bytes), and the corpus holds what its README lists.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{corpus_or_skip, read_pgn, samples_dir};

/// No tracked file may reach this size.
const MAX_FILE: u64 = 512 << 10;
/// The samples in all, as stored.
const MAX_TOTAL: u64 = 3 << 19; // 1.5 MiB

/// Every file below `dir`, of any kind, sorted.
fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Occurrences of `[Event ` at a line start.
fn event_lines(bytes: &[u8]) -> usize {
    usize::from(bytes.starts_with(b"[Event "))
        + memchr::memmem::find_iter(bytes, b"\n[Event ").count()
}

#[test]
fn samples_are_listed_in_the_testdata_readme_and_small() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let readme = fs::read_to_string(root.join("README.md")).expect("testdata/README.md");
    let files = all_files(&samples_dir());
    assert!(files.len() >= 20, "only {} samples", files.len());
    let mut total = 0;
    for file in &files {
        let name = file
            .strip_prefix(&root)
            .expect("below testdata")
            .to_str()
            .expect("a UTF-8 name");
        assert!(
            readme.contains(&format!("| `{name}` |")),
            "testdata/README.md has no row for {name}"
        );
        let size = fs::metadata(file).expect("a sample").len();
        assert!(size < MAX_FILE, "{name} is {size} bytes");
        total += size;
    }
    assert!(total <= MAX_TOTAL, "the samples take {total} bytes");
    // And every row of a sample names a file that is there.
    let rows: Vec<&str> = readme
        .lines()
        .filter_map(|row| row.strip_prefix("| `real/"))
        .filter_map(|rest| rest.split('`').next())
        .filter(|name| !name.is_empty())
        .collect();
    assert_eq!(rows.len(), files.len(), "one row per sample");
    for name in rows {
        let path = samples_dir().join(name);
        assert!(path.is_file(), "real/{name} is listed but missing");
    }
}

/// Each sample: its corpus file, and its game count (`None` for a file
/// copied whole, whatever its count).
const ORIGINS: &[(&str, &str, Option<usize>)] = &[
    (
        "tcec-s16-frc-sufi.pgn.zst",
        "real/tcec-s16-frc-sufi.pgn",
        Some(20),
    ),
    (
        "tcec-s22-dfrc-unbust-bonus.pgn.zst",
        "real/tcec-s22-dfrc-unbust-bonus.pgn",
        Some(10),
    ),
    (
        "tcec-s26-frc-no-castling-bonus.pgn.zst",
        "real/tcec-s26-frc-no-castling-bonus.pgn",
        Some(24),
    ),
    (
        "tcec-s29-frd5-league-b-tiebreak.pgn",
        "real/tcec-s29-frd5-league-b-tiebreak.pgn",
        Some(2),
    ),
    (
        "freestyle-vegas-broadcast.pgn",
        "real/freestyle-vegas-broadcast.pgn",
        Some(4),
    ),
    (
        "chess960-events-headers-first300.pgn",
        "real/chess960-events-headers.pgn",
        Some(300),
    ),
    (
        "lichessbot-chess960-book-first200.pgn",
        "real/lichessbot-chess960-book.pgn",
        Some(200),
    ),
    (
        "standard/lichess_db_1000k-first300.pgn.zst",
        "standard/lichess_db_1000k.pgn",
        Some(300),
    ),
];

/// With the corpus there: every sample is the start of its corpus file up
/// to a game boundary (the whole file, or up to a line `[Event `), with the
/// listed number of games; every edge sample is its corpus file.
#[test]
fn samples_are_cut_from_the_corpus() {
    let Some(corpus) = corpus_or_skip("samples::samples_are_cut_from_the_corpus") else {
        return;
    };
    let samples = samples_dir();
    let mut checked = 0;
    for (sample, origin, games) in ORIGINS {
        let cut = read_pgn(&samples.join(sample));
        let whole = read_pgn(&corpus.file(origin));
        assert!(
            whole.starts_with(&cut),
            "{sample} is not the start of {origin}"
        );
        let rest = &whole[cut.len()..];
        assert!(
            rest.is_empty() || (cut.ends_with(b"\n") && rest.starts_with(b"[Event ")),
            "{sample} does not end at a game boundary of {origin}"
        );
        if let Some(games) = games {
            assert_eq!(event_lines(&cut), *games, "{sample}");
        }
        checked += 1;
    }
    for file in all_files(&samples.join("edge")) {
        let relative = file
            .strip_prefix(&samples)
            .expect("below the samples")
            .to_str()
            .expect("a UTF-8 name");
        let origin = corpus.file(relative);
        assert!(
            fs::read(&file).expect("a sample") == fs::read(&origin).expect("a corpus file"),
            "{relative} differs from the corpus's"
        );
        checked += 1;
    }
    // Every sample was checked: the edge files and those above.
    assert_eq!(checked, all_files(&samples).len());
}

/// With the corpus there: it holds every file and folder its README lists.
#[test]
fn corpus_holds_what_its_readme_lists() {
    let Some(corpus) = corpus_or_skip("samples::corpus_holds_what_its_readme_lists") else {
        return;
    };
    let readme = fs::read_to_string(corpus.dir().join("README.md")).expect("the corpus README");
    let mut section = "";
    let mut listed = Vec::new();
    for line in readme.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading.split_whitespace().next().unwrap_or("");
            continue;
        }
        match section {
            // The first column of the table.
            "real/" => {
                if let Some(name) = line
                    .strip_prefix("| ")
                    .and_then(|row| row.split(" |").next())
                    .filter(|name| name.ends_with(".pgn") || name.ends_with(".pgn.zst"))
                {
                    listed.push(format!("real/{name}"));
                }
            }
            // The folders `NAME/`, and the files `NAME.pgn`, in backquotes.
            "edge/" | "standard/" => {
                for quoted in line.split('`').skip(1).step_by(2) {
                    let wanted = if section == "edge/" {
                        quoted.ends_with('/')
                    } else {
                        quoted.ends_with(".pgn")
                    };
                    if wanted && !quoted.starts_with('.') && !quoted.contains(' ') {
                        listed.push(format!("{section}{quoted}"));
                    }
                }
            }
            _ => {}
        }
    }
    let count = |prefix: &str| listed.iter().filter(|l| l.starts_with(prefix)).count();
    assert!(
        count("real/") >= 10 && count("edge/") >= 8 && count("standard/") >= 2,
        "the README lists {listed:?}"
    );
    for name in &listed {
        let path = corpus.dir().join(name);
        if name.ends_with('/') {
            let files = fs::read_dir(&path)
                .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
                .count();
            assert!(files > 0, "{name} is empty");
        } else {
            assert!(path.is_file(), "{name} is listed but missing");
        }
    }
}
