//! Bounded memory in every command and option, enforced from outside:
//! each case runs the binary under a hard limit (64 MiB of resident memory,
//! in a memory cgroup of its own: see `limit`), so that going over it
//! however briefly fails the case, and where the output is a file, the
//! output under the limit is the output without it.
//!
//! The inputs are the ones that held the most memory: a million tiny
//! games (their records outweigh their bytes), tag values of kilobytes
//! (`games` held a row group of them), a million distinct groups
//! (`stats --group-by`), compressed outputs (an encoder's tables) and
//! in-place rewrites of compressed files (a decoder and an encoder at
//! once), at one thread and at eight. Inputs are generated as they are
//! sent, through a pipe, or written once to a temporary file; each case
//! takes seconds.

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::limit::{Enforcer, Feed, Limited, Run};

/// A small, fast generator of test bytes (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// `len` letters and digits.
    fn word(&mut self, len: usize, out: &mut Vec<u8>) {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        for _ in 0..len {
            out.push(ALPHABET[self.below(ALPHABET.len() as u64) as usize]);
        }
    }
}

/// The enforcer, or the test is skipped.
fn enforcer(test: &str) -> Option<Enforcer> {
    Enforcer::get(&format!("memory::{test}"))
}

/// Thread counts of every case: one, and eight (more than the machine has,
/// as on a larger machine: memory must not grow with them).
const THREADS: [&str; 2] = ["1", "8"];

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// Runs `args` under the limit and without it (the same input), and
/// asserts the run under the limit stayed within it and wrote the same
/// file `out` (and standard output) as the one without. Returns the
/// limited run.
fn same_under_the_limit(
    enforcer: &Enforcer,
    args: &[&str],
    feed: impl Fn() -> Feed,
    out: Option<&Path>,
    what: &str,
) -> Limited {
    let limited = Run::pgn960(args).feed(feed()).keep_stdout().run(enforcer);
    eprintln!(
        "{what}: {:.1?} under {}",
        limited.elapsed,
        enforcer.describe()
    );
    limited.assert_within(enforcer, &[0, 1], what);
    let under = out.map(|out| fs::read(out).expect("the output is written"));
    let free = Run::pgn960(args)
        .feed(feed())
        .keep_stdout()
        .limit(u64::MAX >> 2)
        .run(enforcer);
    assert_eq!(free.code(), limited.code(), "{what}: {}", free.stderr);
    assert!(
        free.stdout == limited.stdout,
        "{what}: standard output differs under the limit"
    );
    if let (Some(out), Some(under)) = (out, under) {
        let free = fs::read(out).expect("the output is written");
        assert!(
            free == under,
            "{what}: {} differs under the limit ({} bytes, {} without)",
            out.display(),
            under.len(),
            free.len()
        );
    }
    limited
}

/// A million games of 16 bytes: each is a record of the splitter, a row,
/// an edit or a finding, worth several times its bytes, through every
/// command that reads archives, at one thread and at eight.
#[test]
fn a_million_tiny_games_in_bounded_memory() {
    let Some(enforcer) = enforcer("a_million_tiny_games_in_bounded_memory") else {
        return;
    };
    let tiny = b"[Event \"?\"]\n\n*\n\n".repeat(1_000_000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("out");
    let out_str = path(&out).to_string();
    for threads in THREADS {
        for (args, codes) in [
            (vec!["tag"], &[0][..]),
            (vec!["fix"], &[0, 1]),
            (vec!["validate"], &[0, 1]),
            (vec!["stats", "--include-standard"], &[0]),
            (
                vec!["stats", "--include-standard", "--group-by", "Event"],
                &[0],
            ),
            (vec!["filter", "--kind", "standard"], &[0]),
            (vec!["games", "--format", "csv"], &[0]),
            (vec!["games", "--format", "parquet", "-o", &out_str], &[0]),
            (
                vec![
                    "games",
                    "--duplicates",
                    "--format",
                    "parquet",
                    "-o",
                    &out_str,
                ],
                &[0],
            ),
        ] {
            if threads == "1" && args.contains(&"csv") {
                continue; // as Parquet, but for the writer
            }
            let mut args: Vec<&str> = args;
            args.extend(["-q", "--threads", threads]);
            let run = Run::pgn960(&args)
                .feed(Feed::Bytes(tiny.clone()))
                .run(&enforcer);
            let what = format!("{args:?} on a million tiny games");
            eprintln!("{what}: {:.1?}", run.elapsed);
            run.assert_within(&enforcer, codes, &what);
            assert!(
                run.stdout_len > 0 || args.contains(&"-o"),
                "{what}: no output"
            );
        }
    }
}

/// `games --duplicates` holds the first occurrences of 450,000 distinct
/// games (its table near its cap of 458,752, 16.5 MB while its slots
/// double) and writes them with every tenth game a copy of one read
/// before, under the limit, at one thread and at eight; 500,000 distinct
/// games end the run with its one-line error, still under it. (CSV: a
/// Parquet file of 450,000 distinct `Event`s holds their dictionary,
/// with or without the option.)
#[test]
fn games_duplicates_at_its_cap_in_bounded_memory() {
    let Some(enforcer) = enforcer("games_duplicates_at_its_cap_in_bounded_memory") else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("out.csv");
    let games = |distinct: u64| {
        let mut bytes = Vec::with_capacity(22 * distinct as usize * 11 / 10);
        for i in 0..distinct {
            let _ = write!(bytes, "[Event \"{i}\"]\n\n*\n\n");
            if i % 10 == 9 {
                let _ = write!(bytes, "[Event \"{}\"]\n\n*\n\n", i / 2);
            }
        }
        bytes
    };
    let fits = games(450_000);
    for threads in THREADS {
        let args = [
            "games",
            "-q",
            "--duplicates",
            "--threads",
            threads,
            "-o",
            path(&out),
        ];
        let run = Run::pgn960(&args)
            .feed(Feed::Bytes(fits.clone()))
            .run(&enforcer);
        let what = format!("games --duplicates of 450,000 games at {threads} threads");
        eprintln!("{what}: {:.1?}", run.elapsed);
        run.assert_within(&enforcer, &[0], &what);
        let text = fs::read_to_string(&out).expect("the CSV is written");
        let copies = text.lines().filter(|line| !line.ends_with(",,")).count();
        // The header, and a copy after every tenth game.
        assert_eq!(copies, 1 + 45_000, "{what}");
        assert_eq!(text.lines().count(), 1 + 495_000, "{what}");
    }
    let args = ["games", "-q", "--duplicates", "-o", path(&out)];
    let run = Run::pgn960(&args)
        .feed(Feed::Bytes(games(500_000)))
        .run(&enforcer);
    let what = "games --duplicates of 500,000 games";
    run.assert_within(&enforcer, &[2], what);
    assert!(
        run.stderr
            .starts_with("pgn960: more than 458752 distinct games"),
        "{what}: {}",
        run.stderr
    );
}

/// `games` with tag values of 1 KB and of 8 KB: a Parquet row group is
/// bounded in bytes, not rows, and so are the chunks gathered for it; the
/// file is the same at one thread and at eight, and without the limit.
/// CSV and JSON lines stream their rows.
#[test]
fn games_with_values_of_kilobytes_in_bounded_memory() {
    let Some(enforcer) = enforcer("games_with_values_of_kilobytes_in_bounded_memory") else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    // More than a row group of 100,000 rows could hold in 64 MiB.
    for (value, count) in [(1 << 10, 60_000), (8 << 10, 8_000)] {
        let mut rng = Rng(value as u64);
        let mut bytes = Vec::new();
        for i in 0..count {
            bytes.extend_from_slice(b"[Event \"");
            rng.word(value, &mut bytes);
            let _ = write!(bytes, "\"]\n[Round \"{i}\"]\n[White \"");
            rng.word(value / 4, &mut bytes);
            bytes.extend_from_slice(b"\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n");
        }
        let out = dir.path().join("games.parquet");
        let args = |threads| ["games", "-q", "--threads", threads, "-o", path(&out)];
        let what = format!("games to Parquet, values of {value} bytes");
        same_under_the_limit(
            &enforcer,
            &args("8"),
            || Feed::Bytes(bytes.clone()),
            Some(&out),
            &what,
        );
        let eight = fs::read(&out).expect("written");
        let one = Run::pgn960(&args("1"))
            .feed(Feed::Bytes(bytes.clone()))
            .run(&enforcer);
        one.assert_within(&enforcer, &[0], &format!("{what}, one thread"));
        assert!(
            fs::read(&out).expect("written") == eight,
            "{what}: one thread and eight differ"
        );
        for format in ["csv", "jsonl"] {
            let run = Run::pgn960(&["games", "-q", "--format", format])
                .feed(Feed::Bytes(bytes.clone()))
                .run(&enforcer);
            let what = format!("games to {format}, values of {value} bytes");
            eprintln!("{what}: {:.1?}", run.elapsed);
            run.assert_within(&enforcer, &[0], &what);
            assert!(
                run.stdout_len as usize > bytes.len(),
                "{what}: {} bytes",
                run.stdout_len
            );
        }
    }
}

/// An archive of `games` games spread over all 960 start positions, each
/// with a few moves' worth of bytes that compress little.
fn archive_of_every_position(games: usize) -> Vec<u8> {
    let positions: Vec<String> = pgn960::BackRank::all().map(|rank| rank.to_xfen()).collect();
    let mut rng = Rng(960);
    let mut bytes = Vec::new();
    for i in 0..games {
        let fen = &positions[i % positions.len()];
        let _ = write!(
            bytes,
            "[Event \"e{i}\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Result \"*\"]\n\n{{"
        );
        rng.word(200, &mut bytes);
        bytes.extend_from_slice(b"} *\n\n");
    }
    bytes
}

/// Every output of `filter` (one file, plain and compressed; a file per
/// position, 960 of them open at once, plain and compressed) and every
/// in-place rewrite (`tag`, `fix`) of plain, gzip and bzip2 files, at one
/// thread and at eight, stays within the limit, xz and zstd's level 19
/// included.
#[test]
fn outputs_and_rewrites_in_bounded_memory() {
    let Some(enforcer) = enforcer("outputs_and_rewrites_in_bounded_memory") else {
        return;
    };
    let bytes = archive_of_every_position(4_800);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = dir.path().join("in.pgn");
    fs::write(&input, &bytes).expect("writable");
    for threads in THREADS {
        for ext in ["pgn", "pgn.gz", "pgn.zst", "pgn.bz2", "pgn.xz"] {
            let out = dir.path().join(format!("out.{ext}"));
            let args = [
                "filter",
                "-q",
                "--threads",
                threads,
                "--kind",
                "chess960",
                path(&input),
                "-o",
                path(&out),
            ];
            let what = format!("filter -o out.{ext} at {threads} threads");
            same_under_the_limit(&enforcer, &args, || Feed::Nothing, Some(&out), &what);
        }
        // 960 outputs at once cost the same at one thread as at eight.
        let compressions: &[Option<&str>] = if threads == "1" {
            &[None]
        } else {
            &[None, Some("gz"), Some("zst"), Some("bz2")]
        };
        for &compress in compressions {
            let out = dir.path().join(format!("split-{threads}-{compress:?}"));
            let mut args = vec![
                "filter",
                "-q",
                "--threads",
                threads,
                "--split-by",
                "position",
                "--output-dir",
                path(&out),
                path(&input),
            ];
            if let Some(compress) = compress {
                args.extend(["--compress", compress]);
            }
            let run = Run::pgn960(&args).run(&enforcer);
            let what =
                format!("filter --split-by position --compress {compress:?} at {threads} threads");
            eprintln!("{what}: {:.1?}", run.elapsed);
            run.assert_within(&enforcer, &[0], &what);
            let files = fs::read_dir(&out).expect("the folder is made").count();
            assert_eq!(files, 960, "{what}: {files} files");
        }
        for (command, codes) in [("tag", &[0][..]), ("fix", &[0, 1])] {
            // A rewrite keeps the file's level: 19 for a small .zst (see
            // `compression::Settings::keeping`), 6 for .xz, whose tables
            // are bounded (`compression::ZSTD_TABLE_LOG`, `XZ_DICTIONARY`).
            for ext in ["pgn", "pgn.gz", "pgn.bz2", "pgn.zst", "pgn.xz"] {
                // The file compressed by the binary itself, then rewritten.
                let file = dir.path().join(format!("rewrite.{ext}"));
                let written =
                    Run::pgn960(&["filter", "-q", path(&input), "-o", path(&file)]).run(&enforcer);
                written.assert_within(&enforcer, &[0], &format!("writing {ext}"));
                let args = [
                    command,
                    "-q",
                    "--threads",
                    threads,
                    "--in-place",
                    path(&file),
                ];
                let run = Run::pgn960(&args).run(&enforcer);
                let what = format!("{command} --in-place on .{ext} at {threads} threads");
                eprintln!("{what}: {:.1?}", run.elapsed);
                run.assert_within(&enforcer, codes, &what);
            }
        }
    }
}

/// `stats --group-by` over a million distinct values (`Event` at eight
/// threads, `White` at one): the groups beyond the budget go to disk as
/// sorted runs, merged at the end, and the tests across positions are
/// run a group at a time. The CSV holds a row for each group, in the
/// order of their names sorted by byte (the oracle: the names sorted
/// here). Then `stats --merge` of that CSV, read row by row.
#[test]
fn a_million_groups_in_bounded_memory() {
    let Some(enforcer) = enforcer("a_million_groups_in_bounded_memory") else {
        return;
    };
    const GROUPS: u32 = 1_000_000;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let csv = dir.path().join("groups.csv");
    // Every number below a million once, shuffled (7919 is prime to it).
    let mut names: Vec<String> = (0..u64::from(GROUPS))
        .map(|i| (i * 7919 % u64::from(GROUPS)).to_string())
        .collect();
    for (tag, threads) in [("Event", "8"), ("White", "1")] {
        let games = {
            let names = names.clone();
            move || {
                let mut bytes = Vec::with_capacity(20 * GROUPS as usize);
                for name in &names {
                    let _ = write!(bytes, "[{tag} \"{name}\"]\n\n*\n\n");
                }
                Feed::Bytes(bytes)
            }
        };
        let args = [
            "stats",
            "-q",
            "--include-standard",
            "--threads",
            threads,
            "--group-by",
            tag,
            "-o",
            path(&csv),
        ];
        let run = Run::pgn960(&args).feed(games()).run(&enforcer);
        let what = format!("stats --group-by {tag} over a million values at {threads} threads");
        eprintln!("{what}: {:.1?}", run.elapsed);
        run.assert_within(&enforcer, &[0], &what);
        names.sort_unstable();
        let text = fs::read_to_string(&csv).expect("the CSV is written");
        let mut lines = text.lines();
        assert!(
            lines
                .next()
                .expect("a header")
                .starts_with("group,scharnagl,")
        );
        let mut rows = 0;
        for (line, name) in lines.zip(&names) {
            assert!(
                line.starts_with(&format!("{name},518,")),
                "{what}: row {rows} is {line}, not of group {name}"
            );
            rows += 1;
        }
        assert_eq!(rows, GROUPS, "{what}: {rows} rows");
        assert_eq!(text.lines().count() as u32, GROUPS + 1, "{what}");
    }
    // That CSV merged, row by row, under the limit: each group's one game
    // (tests/merge_input.rs merges long CSVs with each other).
    let merged = dir.path().join("merged.csv");
    let args = ["stats", "-q", "--merge", path(&csv), "-o", path(&merged)];
    let run = Run::pgn960(&args).run(&enforcer);
    let what = "stats --merge of a million groups";
    eprintln!("{what}: {:.1?}", run.elapsed);
    run.assert_within(&enforcer, &[0], what);
    let text = fs::read_to_string(&merged).expect("the CSV is written");
    let mut rows = 0;
    for (line, name) in text.lines().skip(1).zip(&names) {
        assert!(
            line.starts_with(&format!("{name},518,359,RNBQKBNR,1,")),
            "{what}: row {rows} is {line}, not the one game of group {name}"
        );
        rows += 1;
    }
    assert_eq!(rows, GROUPS, "{what}: {rows} rows");
}

/// `stats` over a file of a million games, every tenth a copy of the one
/// before: a mapped file, whose games are known by their heads until one
/// repeats, so the table of heads fills its budget (98,304 games), then
/// the fingerprints theirs, and the rest goes to disk. Each game is
/// counted once: 900,000, as built here.
#[test]
fn a_million_games_of_a_file_counted_once_in_bounded_memory() {
    let Some(enforcer) = enforcer("a_million_games_of_a_file_counted_once_in_bounded_memory")
    else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let archive = dir.path().join("games.pgn");
    let mut bytes = Vec::with_capacity(24 << 20);
    for i in 0..1_000_000u32 {
        let white = if i % 10 == 9 { i - 1 } else { i };
        let _ = write!(bytes, "[White \"{white}\"]\n\n*\n\n");
    }
    fs::write(&archive, &bytes).expect("the archive is written");
    let csv = dir.path().join("stats.csv");
    for threads in THREADS {
        let args = [
            "stats",
            "-q",
            "--include-standard",
            "--threads",
            threads,
            path(&archive),
            "-o",
            path(&csv),
        ];
        let run = Run::pgn960(&args).run(&enforcer);
        let what = format!("stats over a file of a million games at {threads} threads");
        eprintln!("{what}: {:.1?}", run.elapsed);
        run.assert_within(&enforcer, &[0], &what);
        let text = fs::read_to_string(&csv).expect("the CSV is written");
        let row = text.lines().nth(1).expect("a row");
        assert!(row.starts_with("518,359,RNBQKBNR,900000,"), "{what}: {row}");
    }
}

/// The groups that went to disk give the outputs of the groups in memory,
/// byte for byte: the same archive (rated games of every result in
/// Chess960 positions, 1,500 events of one to a dozen positions) counted
/// with budgets of a few kilobytes (`PGN960_GROUP_MEMORY`: hundreds of
/// runs of groups, the tests' findings in a temporary file) under the
/// limit, and with all of it in memory without the limit.
#[test]
fn groups_on_disk_give_the_outputs_of_groups_in_memory() {
    let Some(enforcer) = enforcer("groups_on_disk_give_the_outputs_of_groups_in_memory") else {
        return;
    };
    let positions: Vec<String> = pgn960::BackRank::all().map(|rank| rank.to_xfen()).collect();
    let mut rng = Rng(35);
    let mut bytes = Vec::new();
    for i in 0..12_000u64 {
        let event = if i % 5 == 0 { 0 } else { rng.below(1_500) };
        let fen = &positions[((event * 7 + rng.below(1 + event % 12)) * 31 % 960) as usize];
        let result = ["1-0", "1/2-1/2", "0-1", "*"][rng.below(4) as usize];
        let _ = write!(
            bytes,
            "[Event \"e{event}\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\
             [WhiteElo \"{}\"]\n[BlackElo \"{}\"]\n[Result \"{result}\"]\n\n{result}\n\n",
            1800 + rng.below(600),
            1800 + rng.below(600)
        );
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = dir.path().join("events.pgn");
    fs::write(&input, &bytes).expect("writable");
    let outputs = ["out.csv", "tests.json", "funnel.svg"].map(|name| dir.path().join(name));
    let args = [
        "stats",
        "-q",
        "--group-by",
        "Event",
        path(&input),
        "-o",
        path(&outputs[0]),
        "--summary",
        path(&outputs[1]),
        "--funnel",
        path(&outputs[2]),
    ];
    let read = || {
        outputs
            .each_ref()
            .map(|out| fs::read(out).expect("written"))
    };
    let on_disk = Run::pgn960(&args)
        .env("PGN960_GROUP_MEMORY", "4096")
        .run(&enforcer);
    on_disk.assert_within(&enforcer, &[0], "stats --group-by, groups on disk");
    let spilled = read();
    let in_memory = Run::pgn960(&args)
        .env("PGN960_GROUP_MEMORY", "1000000000000")
        .limit(u64::MAX >> 2)
        .run(&enforcer);
    in_memory.assert_within(&enforcer, &[0], "stats --group-by, groups in memory");
    let rows = String::from_utf8_lossy(&spilled[0]).lines().count();
    assert!(rows > 1_500, "{rows} rows");
    for (out, (disk, memory)) in outputs.iter().zip(spilled.iter().zip(read())) {
        assert!(
            *disk == memory,
            "{} differs with the groups on disk",
            out.display()
        );
    }
}

/// `stats --dfrc-pairs` over 300,000 distinct pairs of arrays (of the
/// 920,640 there are), one game each, at eight threads: some 100 MB of
/// pairs in memory, beyond the limit, so they must go to disk as sorted
/// runs. The CSV holds a row for each pair, sorted by White's Scharnagl
/// number, then Black's (the oracle: the pairs chosen, sorted here).
#[test]
fn pairs_of_arrays_in_bounded_memory() {
    let Some(enforcer) = enforcer("pairs_of_arrays_in_bounded_memory") else {
        return;
    };
    const PAIRS: u64 = 300_000;
    const ALL: u64 = 960 * 959;
    let ranks: Vec<String> = pgn960::BackRank::all()
        .map(|rank| rank.to_string())
        .collect();
    // Every pair once at most (7919 is prime to 960 · 959), White's
    // array any, Black's any other.
    let mut pairs: Vec<(u64, u64)> = (0..PAIRS)
        .map(|i| {
            let p = i * 7919 % ALL;
            let (white, other) = (p / 959, p % 959);
            (white, if other < white { other } else { other + 1 })
        })
        .collect();
    let mut bytes = Vec::with_capacity(90 * PAIRS as usize);
    for (white, black) in &pairs {
        let _ = write!(
            bytes,
            "[FEN \"{}/pppppppp/8/8/8/8/PPPPPPPP/{} w - - 0 1\"]\n[Result \"1-0\"]\n\n1-0\n\n",
            ranks[*black as usize].to_ascii_lowercase(),
            ranks[*white as usize]
        );
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let csv = dir.path().join("pairs.csv");
    let args = [
        "stats",
        "-q",
        "--threads",
        "8",
        "-o",
        "/dev/null",
        "--dfrc-pairs",
        path(&csv),
    ];
    let run = Run::pgn960(&args).feed(Feed::Bytes(bytes)).run(&enforcer);
    let what = "stats --dfrc-pairs over 300,000 pairs";
    eprintln!("{what}: {:.1?}", run.elapsed);
    run.assert_within(&enforcer, &[0], what);
    pairs.sort_unstable();
    let text = fs::read_to_string(&csv).expect("the CSV is written");
    let mut lines = text.lines();
    assert!(
        lines
            .next()
            .expect("a header")
            .starts_with("white_scharnagl,")
    );
    let mut rows = 0;
    for (line, (white, black)) in lines.zip(&pairs) {
        let cells: Vec<&str> = line.splitn(8, ',').collect();
        assert_eq!(
            (cells[0], cells[3], cells[6]),
            (white.to_string().as_str(), black.to_string().as_str(), "1"),
            "{what}: row {rows}"
        );
        rows += 1;
    }
    assert_eq!(rows, PAIRS, "{what}: {rows} rows");
    assert_eq!(text.lines().count() as u64, PAIRS + 1, "{what}");
}
