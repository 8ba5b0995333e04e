//! One rule for every output: a name ending in `.gz`, `.zst`, `.bz2` or
//! `.xz` is written compressed in that format, `-` is standard output,
//! and the extension before the compression says the format (unless
//! `--format` says it, and then the two must agree). The oracle of each
//! compressed output is the same command's plain output, decoded by the
//! compression crates themselves (not by pgn960's reader).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::common::pgn960;

/// A scratch directory with `s.pgn`, the sample archive.
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pgn = dir.path().join("s.pgn");
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample.pgn"),
        &pgn,
    )
    .expect("the sample copies");
    (dir, pgn)
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// The bytes of a compressed file, decoded by the format's own crate,
/// chosen by the extension the file was asked to be written with.
fn decoded(bytes: &[u8], extension: &str) -> Vec<u8> {
    let mut out = Vec::new();
    match extension {
        "gz" => {
            flate2::read::MultiGzDecoder::new(bytes)
                .read_to_end(&mut out)
                .expect("a gzip stream");
        }
        "zst" => out = zstd::decode_all(bytes).expect("a zstd stream"),
        "bz2" => {
            bzip2::read::MultiBzDecoder::new(bytes)
                .read_to_end(&mut out)
                .expect("a bzip2 stream");
        }
        "xz" => {
            xz2::read::XzDecoder::new_multi_decoder(bytes)
                .read_to_end(&mut out)
                .expect("an xz stream");
        }
        _ => unreachable!("a compression extension"),
    }
    out
}

/// One output option of one command: the arguments before and after the
/// option (`{}` in `args` is the input), the option, and the file
/// extension of what it writes.
struct Case {
    args: &'static [&'static str],
    option: &'static str,
    extension: &'static str,
}

const CASES: &[Case] = &[
    Case {
        args: &["tag", "{}"],
        option: "-o",
        extension: "pgn",
    },
    Case {
        args: &["fix", "{}"],
        option: "-o",
        extension: "pgn",
    },
    Case {
        // The report's `-` needs the games written elsewhere.
        args: &["fix", "{}", "-o", "{dir}/games.pgn"],
        option: "--report",
        extension: "csv",
    },
    Case {
        args: &["filter", "--kind", "chess960", "{}"],
        option: "-o",
        extension: "pgn",
    },
    Case {
        args: &["stats", "{}"],
        option: "-o",
        extension: "csv",
    },
    Case {
        args: &["stats", "{}", "-o", "{dir}/s.csv"],
        option: "--plot",
        extension: "svg",
    },
    Case {
        args: &["stats", "{}", "-o", "{dir}/s.csv"],
        option: "--funnel",
        extension: "svg",
    },
    Case {
        args: &["stats", "{}", "-o", "{dir}/s.csv"],
        option: "--summary",
        extension: "json",
    },
    Case {
        args: &["validate", "{}"],
        option: "--report",
        extension: "csv",
    },
    Case {
        args: &["validate", "{}"],
        option: "--report",
        extension: "jsonl",
    },
    Case {
        args: &["games", "{}"],
        option: "-o",
        extension: "csv",
    },
    Case {
        args: &["games", "{}"],
        option: "-o",
        extension: "jsonl",
    },
    Case {
        args: &["games", "{}"],
        option: "-o",
        extension: "parquet",
    },
];

/// Runs `case` with its option naming `name` (a file of `dir`, or `-`);
/// returns standard output.
fn run(case: &Case, dir: &Path, input: &Path, name: &str, format: bool) -> Vec<u8> {
    let dir_name = utf8(dir);
    let mut args: Vec<String> = case
        .args
        .iter()
        .map(|arg| arg.replace("{}", utf8(input)).replace("{dir}", dir_name))
        .collect();
    args.push("-q".to_string());
    // `-` says no format: the command is told it, as a user would.
    if format && (case.args[0] == "games" || case.args[0] == "validate") {
        args.extend(["--format".to_string(), case.extension.to_string()]);
    }
    args.push(case.option.to_string());
    args.push(if name == "-" {
        name.to_string()
    } else {
        format!("{dir_name}/{name}")
    });
    let run = pgn960(&args, None);
    // validate exits 1 on the sample's findings: a report was written.
    assert!(
        run.code == 0 || (case.args[0] == "validate" && run.code == 1),
        "{args:?}: exit {}: {}",
        run.code,
        run.stderr
    );
    run.stdout
}

#[test]
fn every_output_is_compressed_as_its_name_says_and_dash_is_standard_output() {
    let (dir, input) = scratch();
    let d = dir.path();
    for case in CASES {
        let what = format!("{:?} {} .{}", case.args, case.option, case.extension);
        let plain_name = format!("plain.{}", case.extension);
        let stdout = run(case, d, &input, &plain_name, false);
        let plain = fs::read(d.join(&plain_name)).expect("the plain output");
        assert!(!plain.is_empty(), "{what}: an empty plain output");
        assert!(stdout.is_empty(), "{what}: wrote to standard output too");
        for compression in ["gz", "zst", "bz2", "xz"] {
            let name = format!("out.{}.{compression}", case.extension);
            run(case, d, &input, &name, false);
            let bytes = fs::read(d.join(&name)).expect("the compressed output");
            assert_ne!(bytes, plain, "{what}: {name} is not compressed");
            assert!(
                decoded(&bytes, compression) == plain,
                "{what}: {name} decodes to other bytes than the plain output"
            );
        }
        let stdout = run(case, d, &input, "-", true);
        assert!(
            stdout == plain,
            "{what}: `-` wrote other bytes than the plain output"
        );
        assert!(!d.join("-").exists(), "{what}: `-` made a file named -");
    }
}

/// The sample's `validate` report as CSV and as JSON lines, on standard
/// output, for comparison.
fn reports(input: &Path) -> (Vec<u8>, Vec<u8>) {
    let csv = pgn960(&["validate", "-q", utf8(input)], None).stdout;
    let jsonl = pgn960(&["validate", "-q", "--format", "jsonl", utf8(input)], None).stdout;
    assert!(csv.starts_with(b"file,game,line,"), "a CSV report");
    assert!(jsonl.starts_with(b"{\"file\":"), "a JSON lines report");
    (csv, jsonl)
}

#[test]
fn the_name_says_the_format_unless_format_does_and_a_contradiction_is_refused() {
    let (dir, input) = scratch();
    let d = dir.path();
    let s = utf8(&input);
    let (csv, jsonl) = reports(&input);
    let at = |name: &str| d.join(name).to_str().expect("UTF-8").to_string();
    pgn960(&["validate", "-q", s, "--report", &at("v.jsonl")], None);
    assert_eq!(fs::read(at("v.jsonl")).expect("written"), jsonl);
    pgn960(&["validate", "-q", s, "--report", &at("v.JSONL.gz")], None);
    let bytes = fs::read(at("v.JSONL.gz")).expect("written");
    assert_eq!(decoded(&bytes, "gz"), jsonl);
    // A name that says no format gets the default, or --format's.
    pgn960(&["validate", "-q", s, "--report", &at("v.txt")], None);
    assert_eq!(fs::read(at("v.txt")).expect("written"), csv);
    pgn960(
        &[
            "validate",
            "-q",
            s,
            "--report",
            &at("w.txt"),
            "--format",
            "jsonl",
        ],
        None,
    );
    assert_eq!(fs::read(at("w.txt")).expect("written"), jsonl);
    let games = pgn960(&["games", "-q", "--format", "jsonl", s], None).stdout;
    let run = pgn960(&["games", "-q", s, "-o", &at("g.jsonl.zst")], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        decoded(&fs::read(at("g.jsonl.zst")).expect("written"), "zst"),
        games
    );

    let before = fs::read_dir(d).expect("listable").count();
    for (args, says) in [
        (
            vec!["validate", s, "--report", &at("x.csv"), "--format", "jsonl"],
            "x.csv: the extension says csv, but --format says jsonl",
        ),
        (
            vec!["games", s, "-o", &at("x.csv.gz"), "--format", "jsonl"],
            "x.csv.gz: the extension says csv, but --format says jsonl",
        ),
        (
            vec!["validate", s, "--report", &at("x.json")],
            "x.json: --report writes the findings as csv or jsonl, not json",
        ),
        (
            vec!["stats", s, "--plot", &at("p.png")],
            "p.png: --plot writes the plot as svg, not png; name the file .svg",
        ),
        (
            vec!["stats", s, "--funnel", &at("f.pdf.gz")],
            "f.pdf.gz: --funnel writes the funnel plot as svg, not pdf",
        ),
        (
            vec!["stats", s, "-o", &at("s.json")],
            "s.json: -o writes the CSV as csv, not json",
        ),
        (
            vec!["stats", s, "--summary", &at("s.csv")],
            "s.csv: --summary writes the summary as json, not csv",
        ),
        (
            vec!["tag", s, "-o", &at("t.csv.zst")],
            "t.csv.zst: -o writes the games as pgn, not csv",
        ),
        (
            vec!["fix", s, "--report", &at("r.jsonl")],
            "r.jsonl: --report writes the report as csv, not jsonl",
        ),
        (
            vec!["filter", s, "-o", &at("f.parquet")],
            "f.parquet: -o writes the games as pgn, not parquet",
        ),
    ] {
        let run = pgn960(&args, None);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.starts_with("pgn960: ") && run.stderr.contains(says),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?}");
    }
    let after = fs::read_dir(d).expect("listable").count();
    assert_eq!(before, after, "a refused output left a file");
}

#[test]
fn standard_output_takes_one_output() {
    let (dir, input) = scratch();
    let d = dir.path();
    let s = utf8(&input);
    let csv = d.join("s.csv");
    for (args, says) in [
        (
            vec!["stats", s, "--plot", "-"],
            "--plot -: standard output already takes the CSV (no -o given)",
        ),
        (
            vec!["stats", s, "-o", "-", "--summary", "-"],
            "--summary -: standard output already takes the CSV (-o -)",
        ),
        (
            vec!["stats", s, "-o", utf8(&csv), "--plot", "-", "--funnel", "-"],
            "--funnel -: standard output already takes the plot (--plot -)",
        ),
        (
            vec!["fix", s, "--report", "-"],
            "--report -: standard output already takes the games (no -o given)",
        ),
    ] {
        let run = pgn960(&args, None);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.starts_with("pgn960: ") && run.stderr.contains(says),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?}");
        assert!(!csv.exists(), "{args:?} left a file");
    }
    // --check writes no games: the report may take standard output.
    let run = pgn960(&["fix", "-q", "--check", s, "--report", "-"], None);
    assert!(
        run.stdout.starts_with(b"file,game,line,code,"),
        "{}",
        run.stderr
    );
}

#[test]
fn merge_reads_standard_input_and_compressed_csvs() {
    let (dir, input) = scratch();
    let d = dir.path();
    let s = utf8(&input);
    let (a, b) = (d.join("a.csv.gz"), d.join("b.csv"));
    for out in [&a, &b] {
        let run = pgn960(&["stats", "-q", s, "-o", utf8(out)], None);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    // The same file twice: every game is a copy, kept as the merge keeps it.
    let expected = pgn960(&["stats", "-q", "--keep-duplicates", s, s], None).ok("two runs in one");
    let plain = fs::read(&b).expect("written");
    let merged = pgn960(&["stats", "-q", "--merge", utf8(&a), "-"], Some(&plain));
    assert!(merged.ok("merge, - plain") == expected, "merge, - plain");
    let compressed = fs::read(&a).expect("written");
    let merged = pgn960(
        &["stats", "-q", "--merge", "-", utf8(&b)],
        Some(&compressed),
    );
    assert!(
        merged.ok("merge, - compressed") == expected,
        "merge, - compressed"
    );
}
