//! Copies of games, found and counted once: `stats` (by default),
//! `filter --unique` and `games --duplicates`, over an archive of two
//! files with planted copies. The oracle is the generator's own record:
//! which games it wrote as originals, and which it wrote as a copy of
//! which original (its file and index). A copy is the original as another
//! download writes it: other comments and clocks, other spacing and line
//! ends, NAGs, glyphs, check signs, a variation, move numbers glued to
//! their moves, an added id tag and rating. Near misses are planted too:
//! an original's players, moves and start with another `Round`, or
//! another result: other games, which must be counted. Some originals
//! are unplayed results (`Termination "Abandoned"`), left out once as
//! such while their copies are copies; some are Double FRC games, which
//! the tables of pairs count once too.

use std::fs;
use std::path::Path;

use assert_cmd::Command;

use crate::common::{corpus_or_skip, pgn960};

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The Chess960 back ranks the generator starts its games from (bishops
/// on squares of both colours, the king between the rooks).
const RANKS: [&str; 6] = [
    "BBQNNRKR", "RNBQKBNR", "RKRNNQBB", "BQNBRKRN", "RBQNKNBR", "NRBBKQRN",
];

const MOVES: [&str; 12] = [
    "e4", "e5", "Nf3", "d6", "c4", "c5", "g3", "g6", "Bg2", "Bg7", "O-O", "Qe2",
];

/// One original game: its tags' values and its moves.
#[derive(Clone, Debug)]
struct Original {
    event: String,
    round: u32,
    white: String,
    black: String,
    result: &'static str,
    rank: &'static str,
    /// Black's array: `rank` but for a Double FRC game.
    black_rank: &'static str,
    /// Whether the result was not played: `Termination "Abandoned"`.
    abandoned: bool,
    moves: Vec<&'static str>,
}

impl Original {
    fn random(rng: &mut Rng, n: usize) -> Original {
        let plies = 1 + rng.below(10) as usize;
        let rank = RANKS[rng.below(RANKS.len() as u64) as usize];
        Original {
            event: format!("Open {}", rng.below(3)),
            round: n as u32 + 1,
            white: format!("Player {}", rng.below(50)),
            black: format!("Player {}", 50 + rng.below(50)),
            result: ["1-0", "0-1", "1/2-1/2"][rng.below(3) as usize],
            rank,
            black_rank: if rng.below(8) == 0 {
                RANKS[rng.below(RANKS.len() as u64) as usize]
            } else {
                rank
            },
            abandoned: rng.below(10) == 0,
            moves: (0..plies)
                .map(|_| MOVES[rng.below(MOVES.len() as u64) as usize])
                .collect(),
        }
    }

    /// The game as one download writes it.
    fn plain(&self) -> String {
        let lower = self.black_rank.to_lowercase();
        let termination = if self.abandoned {
            "[Termination \"Abandoned\"]\n"
        } else {
            ""
        };
        let mut text = format!(
            "[Event \"{}\"]\n[Site \"?\"]\n[Date \"2024.05.01\"]\n[Round \"{}\"]\n[White \"{}\"]\n[Black \"{}\"]\n[Result \"{}\"]\n[Variant \"Chess960\"]\n[FEN \"{lower}/pppppppp/8/8/8/8/PPPPPPPP/{} w KQkq - 0 1\"]\n{termination}\n",
            self.event, self.round, self.white, self.black, self.result, self.rank
        );
        for (i, mv) in self.moves.iter().enumerate() {
            if i % 2 == 0 {
                text.push_str(&format!("{}. ", i / 2 + 1));
            }
            text.push_str(mv);
            text.push(' ');
        }
        text.push_str(self.result);
        text.push_str("\n\n");
        text
    }

    /// The game as another download writes it: the same game.
    fn copy(&self, rng: &mut Rng) -> String {
        let lower = self.black_rank.to_lowercase();
        let end = if rng.below(2) == 0 { "\r\n" } else { "\n" };
        // A copy of an unplayed game says so in its own words, or not at
        // all: it is a copy either way.
        let termination = match (self.abandoned, rng.below(2)) {
            (true, 0) => format!("[Termination \"abandoned\"]{end}"),
            _ => String::new(),
        };
        let id = if self.rank == self.black_rank {
            format!("[Chess960Id \"{}\"]{end}", rng.below(960))
        } else {
            String::new()
        };
        let mut text = format!(
            "[Event \"{}\"]{end}[Site \"https://example.org/{}\"]{end}[Date \"2024.05.01\"]{end}[Round \"{}\"]{end}[White \"{}\"]{end}[Black \"{}\"]{end}[Result \"{}\"]{end}[WhiteElo \"2{:03}\"]{end}[Variant \"chess 960\"]{end}[FEN \"{lower}/pppppppp/8/8/8/8/PPPPPPPP/{} w KQkq - 0 1\"]{end}{termination}{id}{end}",
            self.event.to_uppercase(),
            rng.below(1000),
            self.round,
            self.white,
            self.black,
            self.result,
            rng.below(1000),
            self.rank,
        );
        for (i, mv) in self.moves.iter().enumerate() {
            if i % 2 == 0 {
                text.push_str(&format!("{}.", i / 2 + 1));
            } else if rng.below(3) == 0 {
                text.push_str(&format!("{}... ", i / 2 + 1));
            }
            let suffix = ["", "+", "!", "?!", " $1", " $14"][rng.below(6) as usize];
            text.push_str(mv);
            text.push_str(suffix);
            match rng.below(4) {
                0 => text.push_str(&format!(
                    " {{[%clk 0:0{}:{:02}]}} ",
                    rng.below(10),
                    rng.below(60)
                )),
                1 => text.push_str(&format!(" {{[%eval 0.{}] a comment}}{end}", rng.below(99))),
                2 => text.push_str(" (1. a3 {a line} h6) "),
                _ => text.push_str("   "),
            }
        }
        text.push_str(self.result);
        text.push_str(end);
        text.push_str(end);
        text
    }
}

/// A game the generator wrote: its file (0 or 1), its index there, and
/// for a copy the file and index of the game it copies.
type Written = (usize, u64, Option<(usize, u64)>);

/// What the generator wrote: two files, the originals alone (in input
/// order), and for each game its file, index and the original it copies.
struct Planted {
    files: [String; 2],
    originals: String,
    /// Per game, in input order: (file, index, first occurrence of its
    /// game when it is a copy).
    games: Vec<Written>,
    /// Originals (near misses included) whose result was not played.
    abandoned: u64,
    /// Originals (near misses included) of Double FRC.
    dfrc: u64,
}

fn plant(seed: u64, games: usize) -> Planted {
    let mut rng = Rng(seed);
    let mut files = [String::new(), String::new()];
    let mut originals_text = String::new();
    let mut originals: Vec<(Original, (usize, u64))> = Vec::new();
    let mut record = Vec::new();
    let mut counts = [0u64; 2];
    let mut flipped = std::collections::HashSet::new();
    let mut moved = std::collections::HashSet::new();
    let (mut abandoned, mut dfrc) = (0, 0);
    for n in 0..games {
        // The first file gets the first 60% of the games.
        let file = usize::from(n * 10 >= games * 6);
        counts[file] += 1;
        let index = counts[file];
        let (text, copy_of, random) = match rng.below(10) {
            0..=2 if !originals.is_empty() => {
                let (original, first) = &originals[rng.below(originals.len() as u64) as usize];
                (original.copy(&mut rng), Some(*first), false)
            }
            3 if !originals.is_empty() => {
                // A near miss: another round, or (once per game) another
                // result, or the same tags and start with one more move.
                let which = rng.below(originals.len() as u64) as usize;
                let mut other = originals[which].0.clone();
                match rng.below(3) {
                    1 if flipped.insert(which) => {
                        other.result = if other.result == "1-0" { "0-1" } else { "1-0" };
                    }
                    2 if moved.insert(which) => other.moves.push("Qe2"),
                    _ => other.round = 100_000 + n as u32,
                }
                (other.plain(), None, false)
            }
            _ => (Original::random(&mut rng, n).plain(), None, true),
        };
        if copy_of.is_none() {
            // A near miss is an original too, but is neither copied nor
            // missed in turn (two near misses of one game could agree).
            originals_text.push_str(&text);
            let original = parse_back(&text);
            abandoned += u64::from(original.abandoned);
            dfrc += u64::from(original.rank != original.black_rank);
        }
        if random {
            originals.push((parse_back(&text), (file, index)));
        }
        files[file].push_str(&text);
        record.push((file, index, copy_of));
    }
    Planted {
        files,
        originals: originals_text,
        games: record,
        abandoned,
        dfrc,
    }
}

/// The original a plain game was written from (the generator's own
/// writing, read back).
fn parse_back(text: &str) -> Original {
    let tag = |name: &str| {
        let start = text.find(&format!("[{name} \"")).expect("the tag") + name.len() + 3;
        let end = start + text[start..].find('"').expect("its end");
        text[start..end].to_string()
    };
    let fen = tag("FEN");
    let rank = RANKS
        .into_iter()
        .find(|rank| fen.contains(&format!("/{rank} ")))
        .expect("one of the ranks");
    let black_rank = RANKS
        .into_iter()
        .find(|rank| fen.starts_with(&format!("{}/", rank.to_lowercase())))
        .expect("one of the ranks");
    let result = ["1-0", "0-1", "1/2-1/2"]
        .into_iter()
        .find(|r| *r == tag("Result"))
        .expect("a result");
    let movetext = &text[text.find("\n\n").expect("movetext") + 2..];
    let moves = movetext
        .split_whitespace()
        .filter(|word| !word.ends_with('.') && *word != result)
        .map(|word| {
            MOVES
                .into_iter()
                .find(|mv| *mv == word)
                .expect("one of the moves")
        })
        .collect();
    Original {
        event: tag("Event"),
        round: tag("Round").parse().expect("a round"),
        white: tag("White"),
        black: tag("Black"),
        result,
        rank,
        black_rank,
        abandoned: text.contains("[Termination \"Abandoned\"]"),
        moves,
    }
}

fn write_planted(dir: &Path, planted: &Planted) -> [String; 2] {
    let names = ["a.pgn", "b.pgn"].map(|name| dir.join(name).display().to_string());
    for (name, text) in names.iter().zip(&planted.files) {
        fs::write(name, text).expect("write an input");
    }
    names
}

/// Originals both abandoned and of Double FRC (counted among each).
fn planted_dfrc_abandoned(planted: &Planted) -> u64 {
    planted
        .originals
        .split("[Event ")
        .skip(1)
        .map(|game| parse_back(&format!("[Event {game}")))
        .filter(|game| game.abandoned && game.rank != game.black_rank)
        .count() as u64
}

fn copies(planted: &Planted) -> usize {
    planted.games.iter().filter(|g| g.2.is_some()).count()
}

/// The number after `before` in a summary line.
fn number_after(stderr: &str, before: &str) -> u64 {
    let at = stderr
        .find(before)
        .unwrap_or_else(|| panic!("{before:?} in {stderr}"))
        + before.len();
    stderr[at..]
        .split(|c: char| !c.is_ascii_digit() && c != ',')
        .next()
        .expect("a number")
        .replace(',', "")
        .parse()
        .unwrap_or_else(|_| panic!("a number after {before:?} in {stderr}"))
}

fn run_env(args: &[&str], env: &[(&str, &str)]) -> (i32, Vec<u8>, String) {
    run_fed(args, env, Vec::new())
}

/// [`run_env`] with `stdin` on standard input.
fn run_fed(args: &[&str], env: &[(&str, &str)], stdin: Vec<u8>) -> (i32, Vec<u8>, String) {
    let mut command = Command::cargo_bin("pgn960").expect("the binary");
    command.args(args).write_stdin(stdin);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("pgn960 runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (output.status.code().unwrap_or(-1), output.stdout, stderr)
}

/// `stats` counts each planted game once (its CSV is that of the
/// originals alone, counted with every copy kept), says how many copies
/// it skipped, at one thread and at four, with the fingerprints in
/// memory and on disk; `--keep-duplicates` counts every copy.
#[test]
fn stats_counts_each_game_once() {
    let planted = plant(0x5eed_0001, 4000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let [a, b] = write_planted(dir.path(), &planted);
    let originals = dir.path().join("originals.pgn").display().to_string();
    fs::write(&originals, &planted.originals).expect("write the originals");
    let pairs = |name: &str| dir.path().join(name).display().to_string();
    let expected = pgn960(
        &[
            "stats",
            "--keep-duplicates",
            "-q",
            &originals,
            "--dfrc-pairs",
            &pairs("expected-pairs.csv"),
        ],
        None,
    )
    .ok("stats over the originals");
    let expected_pairs = fs::read(pairs("expected-pairs.csv")).expect("the pairs' CSV");
    let copies = copies(&planted) as u64;
    assert!(copies > 500, "{copies} copies planted");
    assert!(
        planted.abandoned > 100 && planted.dfrc > 100,
        "{} unplayed, {} dfrc",
        planted.abandoned,
        planted.dfrc
    );
    // The second file from a pipe too: its batches are not mapped, and
    // the moves of every game are read from then on.
    for (threads, memory, piped) in [
        ("1", None, false),
        ("4", None, false),
        ("2", None, true),
        ("2", Some("4096"), false),
        ("1", Some("1"), false),
        ("3", Some("4096"), true),
    ] {
        let env: Vec<(&str, &str)> = memory
            .map(|m| vec![("PGN960_DUPLICATES_MEMORY", m)])
            .unwrap_or_default();
        let second = if piped { "-" } else { b.as_str() };
        let (code, csv, stderr) = run_fed(
            &[
                "stats",
                "--threads",
                threads,
                &a,
                second,
                "--dfrc-pairs",
                &pairs("pairs.csv"),
            ],
            &env,
            if piped {
                planted.files[1].clone().into_bytes()
            } else {
                Vec::new()
            },
        );
        assert_eq!(code, 0, "{stderr}");
        let what = format!("--threads {threads}, memory {memory:?}, piped {piped}");
        assert!(
            csv == expected,
            "{what}: the CSV is that of the originals\n{}",
            String::from_utf8_lossy(&csv)
        );
        assert!(
            fs::read(pairs("pairs.csv")).expect("the pairs' CSV") == expected_pairs,
            "{what}: the pairs' CSV is that of the originals"
        );
        assert_eq!(
            number_after(&stderr, "skipped "),
            copies,
            "{what}: {stderr}"
        );
        // The copies of an unplayed game are copies, not unplayed games.
        assert_eq!(
            number_after(&stderr, "; "),
            planted.abandoned,
            "{what}: {stderr}"
        );
        assert_eq!(
            number_after(&stderr, "counted "),
            planted.games.len() as u64 - copies - planted.abandoned - planted.dfrc
                + planted_dfrc_abandoned(&planted),
            "{what}: {stderr}"
        );
    }
    // Every copy counted: each game is a Chess960 game counted, a Double
    // FRC game counted, or an unplayed game left out.
    let (code, _, stderr) = run_env(
        &[
            "stats",
            "--keep-duplicates",
            &a,
            &b,
            "--dfrc-pairs",
            &pairs("all-pairs.csv"),
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    let dfrc_line = stderr.rfind("\n  counted ").expect("a line of dfrc games");
    assert_eq!(
        number_after(&stderr, "counted ")
            + number_after(&stderr, "; ")
            + number_after(&stderr[dfrc_line..], "counted "),
        planted.games.len() as u64,
        "{stderr}"
    );
    assert!(!stderr.contains("skipped"), "{stderr}");
}

/// `filter --unique` writes the first occurrence of each game, byte for
/// byte: the originals, in input order, at one thread and at three; its
/// summary counts the copies `stats` skips.
#[test]
fn filter_writes_first_occurrences() {
    let planted = plant(0x5eed_0002, 3000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let [a, b] = write_planted(dir.path(), &planted);
    let copies = copies(&planted) as u64;
    for threads in ["1", "3"] {
        let (code, out, stderr) =
            run_env(&["filter", "--unique", "--threads", threads, &a, &b], &[]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            out == planted.originals.as_bytes(),
            "--threads {threads}: the originals, byte for byte"
        );
        assert_eq!(number_after(&stderr, "left out "), copies, "{stderr}");
    }
}

/// One row of `games --duplicates`: its file and game, its fingerprint,
/// and the file and game of its first occurrence when it is a copy.
type MarkedRow = (String, u64, String, Option<(String, u64)>);

/// The rows of `games --duplicates`' CSV.
fn marked_rows(csv: &[u8]) -> Vec<MarkedRow> {
    let mut reader = csv::Reader::from_reader(csv);
    let header = reader.headers().expect("a header").clone();
    let at = |name: &str| {
        header
            .iter()
            .position(|column| column == name)
            .unwrap_or_else(|| panic!("a column {name}"))
    };
    let [file, game, fingerprint, of_file, of_game] = [
        "file",
        "game",
        "fingerprint",
        "duplicate_of_file",
        "duplicate_of_game",
    ]
    .map(at);
    reader
        .records()
        .map(|record| {
            let record = record.expect("a CSV row");
            let first = match (&record[of_file], &record[of_game]) {
                ("", "") => None,
                (f, g) => Some((f.to_string(), g.parse().expect("a game number"))),
            };
            (
                record[file].to_string(),
                record[game].parse().expect("a game number"),
                record[fingerprint].to_string(),
                first,
            )
        })
        .collect()
}

/// `games --duplicates` names, for each planted copy, the file and game
/// of its original, and nothing for an original (near misses included:
/// another round, another result, one more move); as many rows repeat a
/// game as `stats` skips, so `WHERE duplicate_of_game IS NULL` keeps the
/// games `stats` counts. The same CSV at one thread and at four, the
/// second file from standard input too, and the same values in Parquet.
#[test]
fn games_names_the_first_occurrence_of_every_copy() {
    let planted = plant(0x5eed_0004, 3000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let [a, b] = write_planted(dir.path(), &planted);
    let copies = copies(&planted);
    assert!(copies > 500, "{copies} copies planted");
    let run = |threads: &str, second: &str| {
        let stdin = if second == "-" {
            planted.files[1].clone().into_bytes()
        } else {
            Vec::new()
        };
        let args = ["games", "--duplicates", "--threads", threads, &a, second];
        let (code, csv, stderr) = run_fed(&args, &[], stdin);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(number_after(&stderr, "marked "), copies as u64, "{stderr}");
        csv
    };
    let one = run("1", &b);
    assert!(
        run("4", &b) == one,
        "the same CSV at one thread and at four"
    );
    for (csv, second) in [(one.clone(), b.as_str()), (run("2", "-"), "<stdin>")] {
        let names = [a.as_str(), second];
        let rows = marked_rows(&csv);
        assert_eq!(rows.len(), planted.games.len());
        let mut fingerprints = std::collections::HashMap::new();
        for (row, &(file, index, copy_of)) in rows.iter().zip(&planted.games) {
            assert_eq!((row.0.as_str(), row.1), (names[file], index));
            let expected = copy_of.map(|(file, index)| (names[file].to_string(), index));
            assert_eq!(
                row.3, expected,
                "{second}: row of game {index} of file {file}"
            );
            assert_eq!(row.2.len(), 32, "a fingerprint of 32 hexadecimal digits");
            match copy_of {
                // A copy has the fingerprint of its original.
                Some(first) => assert_eq!(fingerprints[&first], &row.2),
                // Every original has a fingerprint of its own.
                None => assert!(
                    !fingerprints.values().any(|f| *f == &row.2),
                    "game {index} of file {file}"
                ),
            }
            fingerprints.insert((file, index), &row.2);
        }
    }
    // `stats` skips as many copies as rows name a first occurrence (those
    // of Double FRC games too, which it reads with `--dfrc-pairs`).
    let pairs = dir.path().join("pairs.csv").display().to_string();
    let (code, _, stderr) = run_env(
        &["stats", &a, &b, "-o", "/dev/null", "--dfrc-pairs", &pairs],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(number_after(&stderr, "skipped "), copies as u64, "{stderr}");
    // Parquet holds the values of the CSV.
    let parquet = dir.path().join("games.parquet");
    let (code, _, stderr) = run_env(
        &[
            "games",
            "-q",
            "--duplicates",
            &a,
            &b,
            "-o",
            &parquet.display().to_string(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    let file = fs::File::open(&parquet).expect("the Parquet file");
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .expect("a Parquet file")
        .build()
        .expect("a reader");
    let mut from_parquet = Vec::new();
    for batch in reader {
        let batch = batch.expect("a batch");
        let text = |name: &str| {
            batch
                .column_by_name(name)
                .expect("the column")
                .as_any()
                .downcast_ref::<arrow_array::StringArray>()
                .expect("a string column")
                .clone()
        };
        let of_game = batch
            .column_by_name("duplicate_of_game")
            .expect("the column")
            .as_any()
            .downcast_ref::<arrow_array::Int64Array>()
            .expect("an int64 column")
            .clone();
        let (fingerprint, of_file) = (text("fingerprint"), text("duplicate_of_file"));
        use arrow_array::Array;
        for i in 0..batch.num_rows() {
            let first = (!of_file.is_null(i))
                .then(|| (of_file.value(i).to_string(), of_game.value(i) as u64));
            assert_eq!(of_file.is_null(i), of_game.is_null(i));
            from_parquet.push((fingerprint.value(i).to_string(), first));
        }
    }
    let from_csv: Vec<(String, Option<(String, u64)>)> = marked_rows(&one)
        .into_iter()
        .map(|row| (row.2, row.3))
        .collect();
    assert!(from_parquet == from_csv, "Parquet holds the CSV's values");
}

/// The same game with one more move is another game; the same game as
/// another download writes it (comments, clocks, spacing, CRLF, an added
/// id tag) is a copy; a game read in pieces has no fingerprint.
#[test]
fn games_tells_one_more_move_from_a_copy() {
    let game =
        "[Event \"E\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 1-0\n\n";
    let longer = game.replace("Qh5 1-0", "Qh5 Nc6 1-0");
    let copy = "[Event \"E\"]\r\n[White \"A\"]\r\n[Black \"B\"]\r\n[Result \"1-0\"]\r\n[Chess960Id \"518\"]\r\n\r\n1.e4 {[%clk 0:03:00]} e5\r\n2.Qh5! 1-0\r\n";
    let input = format!("{game}{longer}{copy}");
    let (code, csv, stderr) = run_fed(&["games", "--duplicates", "-"], &[], input.into_bytes());
    assert_eq!(code, 0, "{stderr}");
    let rows = marked_rows(&csv);
    let firsts: Vec<Option<(String, u64)>> = rows.iter().map(|row| row.3.clone()).collect();
    assert_eq!(firsts, [None, None, Some(("<stdin>".to_string(), 1))]);
    assert_ne!(rows[0].2, rows[1].2);
}

/// Beyond its budget, `games --duplicates` (which writes as it reads)
/// ends the run with a one-line error, and leaves its output as it was.
#[test]
fn games_duplicates_beyond_its_budget_is_refused() {
    let planted = plant(0x5eed_0005, 2000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let [a, b] = write_planted(dir.path(), &planted);
    for name in ["out.csv", "out.parquet"] {
        refused_beyond_a_tiny_budget(&["games", "--duplicates", &a, &b], &dir.path().join(name));
    }
}

/// Runs `args` writing to `out`, which holds an old output, with a budget
/// of 4 KiB for duplicates: the run ends with a one-line error and `out`
/// is left as it was.
fn refused_beyond_a_tiny_budget(args: &[&str], out: &Path) {
    fs::write(out, "before").expect("an old output");
    let out_arg = out.display().to_string();
    let mut args = args.to_vec();
    args.extend(["-o", &out_arg]);
    let (code, _, stderr) = run_env(&args, &[("PGN960_DUPLICATES_MEMORY", "4096")]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("pgn960: more than "), "{stderr}");
    assert_eq!(fs::read_to_string(out).unwrap(), "before");
}

/// When the fingerprints cannot go to disk (no file may grow at all:
/// `RLIMIT_FSIZE` 0, with `SIGXFSZ` ignored so that a write fails with
/// `EFBIG`, as on a full disk), `stats` ends with a one-line error and
/// exit 2: never counts that lack the games its runs could not hold. A
/// run smaller than its buffer is written whole by its last flush, so
/// this holds the flush's error too.
#[test]
fn stats_that_cannot_write_its_fingerprints_says_so() {
    use std::os::unix::process::CommandExt;
    let planted = plant(0x5eed_0006, 2000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let [a, b] = write_planted(dir.path(), &planted);
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("pgn960"));
    command
        .args(["stats", "-q", &a, &b])
        .env("PGN960_DUPLICATES_MEMORY", "4096")
        .env("TMPDIR", dir.path());
    // SAFETY: between fork and exec the closure only calls signal(2) and
    // setrlimit(2), which are async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &none) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let output = command.output().expect("pgn960 runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("pgn960: ") && stderr.contains("temporary file"),
        "{stderr}"
    );
    assert!(
        output.stdout.is_empty(),
        "a table of {} bytes",
        output.stdout.len()
    );
}

/// Beyond its budget, `filter --unique` (which writes as it reads) ends
/// the run with a one-line error, and leaves its output as it was.
#[test]
fn filter_unique_beyond_its_budget_is_refused() {
    let planted = plant(0x5eed_0003, 2000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let [a, b] = write_planted(dir.path(), &planted);
    refused_beyond_a_tiny_budget(&["filter", "--unique", &a, &b], &dir.path().join("out.pgn"));
}

/// The corpus: every game of `freestyle-events-headers.pgn` is in
/// `chess960-events-headers.pgn` too. Read after it, all 983 are copies
/// (a count by a Python script over the two files, of games with the same
/// Event, Date, Round, White, Black, Result and FEN, agrees: 983); and
/// the first file alone holds none, though 20 pairs of its games agree on
/// all but Event (a rapid and a blitz event on the same days).
#[test]
fn the_freestyle_events_are_copies_of_the_chess960_events() {
    let Some(corpus) =
        corpus_or_skip("duplicates::the_freestyle_events_are_copies_of_the_chess960_events")
    else {
        return;
    };
    let all = corpus
        .file("real/chess960-events-headers.pgn")
        .display()
        .to_string();
    let freestyle = corpus
        .file("real/freestyle-events-headers.pgn")
        .display()
        .to_string();
    let run = pgn960(&["stats", &all, &freestyle, "-o", "/dev/null"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(number_after(&run.stderr, "skipped "), 983, "{}", run.stderr);
    let run = pgn960(&["stats", &all, "-o", "/dev/null"], None);
    assert_eq!(number_after(&run.stderr, "skipped "), 0, "{}", run.stderr);
    let run = pgn960(
        &["filter", "--unique", &freestyle, &all, "-o", "/dev/null"],
        None,
    );
    assert_eq!(
        number_after(&run.stderr, "left out "),
        983,
        "{}",
        run.stderr
    );
    // `games --duplicates` marks the same 983 rows, each a game of the
    // freestyle events naming its first occurrence in the first file.
    let (code, csv, stderr) = run_env(&["games", "--duplicates", &all, &freestyle], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(number_after(&stderr, "marked "), 983, "{stderr}");
    let rows = marked_rows(&csv);
    let marked: Vec<&MarkedRow> = rows.iter().filter(|row| row.3.is_some()).collect();
    assert_eq!(marked.len(), 983);
    assert!(
        marked
            .iter()
            .all(|row| row.0 == freestyle && row.3.as_ref().is_some_and(|(file, _)| *file == all))
    );
    let freestyle_rows = rows.iter().filter(|row| row.0 == freestyle).count();
    assert_eq!(freestyle_rows, 983, "every game of the freestyle events");
}
