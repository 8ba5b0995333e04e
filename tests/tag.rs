//! `pgn960 tag` run as a user runs it: over every real sample of
//! `testdata/real/` (and every file of the corpus, when it is there), on
//! the hand-written fixtures in `testdata/tag/`, and through each way of
//! giving inputs and outputs.
//!
//! The invariant behind most checks: removing the id tags from input and
//! output leaves identical bytes (`strip_id_lines`), tagging twice changes
//! nothing, and the output does not depend on threads, compression or
//! whether the bytes came from a file or standard input.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};

use crate::common::{
    Corpus, Run, Summary, assert_same_bytes, bytes_diff, corpus_or_skip, joined, lines, pgn960,
    read_pgn, relative_name, sample_archives, sample_file, sample_files, short_name,
    strip_id_lines,
};
use crate::id_oracle::id_edits_only;

/// The corpus's 200 MB archive (once decompressed): too slow in a debug
/// build for the sweeps, so it gets one test of its own.
const BIG: &str = "real/tcec-frc-dfrc-all.pgn.zst";

const DEFAULT: &[&str] = &[];
const STANDARD_AND_FRITZ9: &[&str] = &["--include-standard", "--fritz9"];

/// One file tagged once.
struct Pass {
    file: PathBuf,
    input: Vec<u8>,
    output: Vec<u8>,
    summary: Summary,
}

fn args<'a>(head: &[&'a str], options: &[&'a str], tail: &[&'a str]) -> Vec<&'a str> {
    [head, options, tail].concat()
}

/// Occurrences of `needle` in `haystack`.
fn count(haystack: &[u8], needle: &[u8]) -> u64 {
    memchr::memmem::find_iter(haystack, needle).count() as u64
}

fn id_tags(bytes: &[u8]) -> u64 {
    count(bytes, b"[Chess960Id \"") + count(bytes, b"[Chess960Fritz9Id \"")
}

/// The summary must add up, and agree with the bytes.
fn check_summary(pass: &Pass, tags_per_game: u64) {
    let s = pass.summary;
    let name = short_name(&pass.file);
    assert_eq!(
        s.games,
        s.chess960 + s.standard + s.dfrc + s.other + s.unreadable,
        "{name}: every game falls into one kind: {s:?}"
    );
    assert_eq!(
        s.added + s.rewritten + s.already_right,
        s.tagged * tags_per_game,
        "{name}: each Chess960 game has {tags_per_game} id tag(s): {s:?}"
    );
    assert_eq!(
        id_tags(&pass.output),
        id_tags(&pass.input) + s.added,
        "{name}: the id tags in the output are the input's plus the ones added: {s:?}"
    );
}

/// Tags each of `files`, one run per file, and checks byte-exactness;
/// then checks, with one run over all files each, that `--threads 1` gives
/// the same bytes and that tagging the outputs again changes nothing.
fn sweep(files: Vec<PathBuf>, options: &[&str]) -> Vec<Pass> {
    let tags_per_game = if options.contains(&"--fritz9") { 2 } else { 1 };
    let mut passes = Vec::new();
    for file in files {
        let name = short_name(&file);
        let path = file.to_str().expect("data paths are UTF-8");
        let run = pgn960(&args(&["tag", "--threads", "2"], options, &[path]), None);
        let summary = run.summary();
        let output = run.ok(&format!("tag {options:?} {name}"));
        let input = read_pgn(&file);
        assert_same_bytes(
            &strip_id_lines(&output),
            &strip_id_lines(&input),
            &format!("tag {options:?} {name}: output without id tags vs input without id tags"),
        );
        if let Some(change) = id_edits_only(&input, &output) {
            panic!("tag {options:?} {name}: {change}");
        }
        let pass = Pass {
            file,
            input,
            output,
            summary,
        };
        check_summary(&pass, tags_per_game);
        passes.push(pass);
    }

    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut total = Summary::default();
    for pass in &passes {
        let s = pass.summary;
        total.games += s.games;
        total.chess960 += s.chess960;
        total.tagged += s.tagged;
        total.added += s.added;
    }

    // All files in one run with one thread: inputs are independent, and the
    // thread count changes nothing.
    let paths: Vec<&str> = passes
        .iter()
        .map(|p| p.file.to_str().expect("data paths are UTF-8"))
        .collect();
    let out = dir.path().join("threads-1.pgn");
    let out_arg = out.to_str().expect("temporary paths are UTF-8");
    let run = pgn960(
        &args(&["tag", "--threads", "1", "-o", out_arg], options, &paths),
        None,
    );
    let summary = run.summary();
    run.ok(&format!("tag --threads 1 {options:?} <all files>"));
    let got = fs::read(&out).expect("the output file is written");
    assert_concatenation(&got, &passes, &format!("tag --threads 1 {options:?}"));
    assert_eq!(
        (
            summary.games,
            summary.chess960,
            summary.tagged,
            summary.added
        ),
        (total.games, total.chess960, total.tagged, total.added),
        "one run over all files counts what the runs per file count"
    );

    // Tagging the outputs again changes nothing.
    let mut again_inputs = Vec::new();
    for (i, pass) in passes.iter().enumerate() {
        let path = dir.path().join(format!("{i:03}.pgn"));
        fs::write(&path, &pass.output).expect("the temporary directory is writable");
        again_inputs.push(path.to_str().expect("temporary paths are UTF-8").to_owned());
    }
    let again = dir.path().join("again.pgn");
    let mut again_args = args(
        &["tag", "--threads", "2", "-o"],
        &[again.to_str().expect("temporary paths are UTF-8")],
        options,
    );
    again_args.extend(again_inputs.iter().map(String::as_str));
    let run = pgn960(&again_args, None);
    let summary = run.summary();
    run.ok(&format!("tag {options:?} <all outputs>"));
    assert_eq!(
        (summary.added, summary.rewritten),
        (0, 0),
        "tagging the outputs again must add and rewrite nothing: {summary:?}"
    );
    assert_eq!(summary.games, total.games);
    let got = fs::read(&again).expect("the output file is written");
    assert_concatenation(&got, &passes, &format!("tag {options:?} of the outputs"));
    passes
}

/// Asserts `got` is every pass's output in turn (joined as one output
/// joins inputs, see [`joined`]), naming the first file whose part
/// differs.
fn assert_concatenation(got: &[u8], passes: &[Pass], what: &str) {
    let mut at = 0;
    for (i, pass) in passes.iter().enumerate() {
        // The part with whatever line ending comes before it.
        let before: Vec<Vec<u8>> = passes[..i].iter().map(|p| p.output.clone()).collect();
        let upto: Vec<Vec<u8>> = passes[..=i].iter().map(|p| p.output.clone()).collect();
        let start = joined(&upto).len() - pass.output.len();
        let separator = start - joined(&before).len();
        at += separator;
        let end = (at + pass.output.len()).min(got.len());
        assert_same_bytes(
            &got[at.min(end)..end],
            &pass.output,
            &format!("{what}: the part of {}", short_name(&pass.file)),
        );
        at = end;
    }
    assert_eq!(at, got.len(), "{what}: bytes after the last file's part");
}

/// Every file of the corpus but the big archive.
fn corpus_files_but_the_big_one(corpus: &Corpus) -> Vec<PathBuf> {
    let big = corpus.file(BIG);
    corpus
        .files()
        .into_iter()
        .filter(|file| *file != big)
        .collect()
}

/// What a user would notice on the real archives (counts from
/// `../shared/data/README.md` and `testdata/README.md`, checked against
/// `grep -c '^\[Event '`).
struct Expect {
    file: &'static str,
    games: u64,
    added: u64,
    dfrc: u64,
    other: u64,
}

/// The samples of `testdata/real/`.
const SAMPLES: &[Expect] = &[
    Expect {
        file: "chess960-events-headers-first300.pgn",
        games: 300,
        added: 300,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "freestyle-vegas-broadcast.pgn",
        games: 4,
        added: 4,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "lichessbot-chess960-book-first200.pgn",
        games: 200,
        added: 200,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "tcec-s16-frc-sufi.pgn.zst",
        games: 20,
        added: 20,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "tcec-s22-dfrc-unbust-bonus.pgn.zst",
        games: 10,
        added: 0,
        dfrc: 10,
        other: 0,
    },
    Expect {
        file: "tcec-s26-frc-no-castling-bonus.pgn.zst",
        games: 24,
        added: 24,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "tcec-s29-frd5-league-b-tiebreak.pgn",
        games: 2,
        added: 2,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "standard/lichess_db_1000k-first300.pgn.zst",
        games: 300,
        added: 0,
        dfrc: 0,
        other: 0,
    },
];

/// The corpus (`../shared/data/README.md`).
const REAL: &[Expect] = &[
    Expect {
        file: "real/chess960-events-headers.pgn",
        games: 4444,
        added: 4444,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "real/freestyle-events-headers.pgn",
        games: 983,
        added: 983,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "real/freestyle-vegas-broadcast.pgn",
        games: 4,
        added: 4,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "real/lichessbot-chess960-book.pgn",
        games: 1001,
        added: 1001,
        dfrc: 0,
        other: 0,
    },
    // FENs after three moves: no start array, nothing to tag.
    Expect {
        file: "real/stockfish-book-3moves-frc.pgn.zst",
        games: 126_113,
        added: 0,
        dfrc: 0,
        other: 126_113,
    },
    Expect {
        file: "real/tcec-s16-frc-sufi.pgn",
        games: 20,
        added: 20,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "real/tcec-s22-dfrc-unbust-bonus.pgn",
        games: 10,
        added: 0,
        dfrc: 10,
        other: 0,
    },
    Expect {
        file: "real/tcec-s26-frc-no-castling-bonus.pgn",
        games: 24,
        added: 24,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "real/tcec-s29-frd5-league-b-tiebreak.pgn",
        games: 2,
        added: 2,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "standard/lichess_db_1000k.pgn",
        games: 438,
        added: 0,
        dfrc: 0,
        other: 0,
    },
    Expect {
        file: "standard/twic1599_1000k.pgn",
        games: 1110,
        added: 0,
        dfrc: 0,
        other: 0,
    },
];

/// Files where counting tag sections (below) does not give the number of
/// games the splitter sees, each checked by hand (by their path below the
/// corpus or the samples folder).
const COUNT_EXCEPTIONS: &[(&str, u64, &str)] = &[
    (
        "edge/kokopu/test-resources-pgns-syntactic-error-4-database.pgn",
        1,
        "an unclosed brace comment runs to the end of the file and takes the \
         second game with it, as pgn-reader reads it too",
    ),
    (
        "edge/pgn-extract/test-infiles-test-nobadresults.pgn",
        9,
        "nine games of one line each, `[Result \"1-0\"] e4 *`: tag lines \
         follow one another",
    ),
    (
        "edge/pychess/testing-gamefiles-annotated.pgn",
        1,
        "a line inside a brace comment starts with `[clk`",
    ),
    (
        "edge/python-chess/data-pgn-chessbase-empty-line.pgn",
        1,
        "a blank line inside the tag section (ChessBase export)",
    ),
    (
        "edge/scalachess/test-kit-src-test-scala-format-pgn-Fixtures.scala.extracted.pgn",
        55,
        "the three games without tags before the first tag section are one \
         game to the splitter (games without tags cannot be told apart)",
    ),
];

/// An independent game count: tag-pair lines (`[` and a name at a line
/// start) that follow a line that is not one; 1 for a file with text but
/// no tags.
fn tag_section_starts(bytes: &[u8]) -> u64 {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let is_tag_line = |line: &[u8]| {
        let line = line.trim_ascii_start();
        line.first() == Some(&b'[')
            && line[1..]
                .trim_ascii_start()
                .first()
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    let mut starts = 0;
    let mut previous_was_tag = false;
    for line in lines(bytes) {
        let tag = is_tag_line(line);
        if tag && !previous_was_tag {
            starts += 1;
        }
        previous_was_tag = tag;
    }
    if starts == 0 && !bytes.trim_ascii().is_empty() {
        1
    } else {
        starts
    }
}

#[test]
fn every_sample_file_with_default_options() {
    let passes = sweep(sample_files(), DEFAULT);
    check_default_passes(&passes, SAMPLES);
}

#[test]
fn every_corpus_file_with_default_options() {
    let Some(corpus) = corpus_or_skip("tag::every_corpus_file_with_default_options") else {
        return;
    };
    let passes = sweep(corpus_files_but_the_big_one(&corpus), DEFAULT);
    check_default_passes(&passes, REAL);
}

/// The summaries of `passes` against `expectations`, and every file's game
/// count against an independent count.
fn check_default_passes(passes: &[Pass], expectations: &[Expect]) {
    for expect in expectations {
        let pass = passes
            .iter()
            .find(|p| p.file.ends_with(expect.file))
            .unwrap_or_else(|| panic!("{} is in the data set", expect.file));
        let s = pass.summary;
        assert_eq!(
            (s.games, s.added, s.dfrc, s.other, s.rewritten),
            (expect.games, expect.added, expect.dfrc, expect.other, 0),
            "{}: (games, added, Double FRC, set-up, rewritten) in {s:?}",
            expect.file
        );
    }

    // The splitter's count against an independent one, on every file.
    let mut disagreements = Vec::new();
    for pass in passes {
        let name = short_name(&pass.file);
        let relative = relative_name(&pass.file);
        let expected = COUNT_EXCEPTIONS
            .iter()
            .find(|(file, _, _)| *file == relative)
            .map_or_else(|| tag_section_starts(&pass.input), |(_, games, _)| *games);
        if pass.summary.games != expected {
            disagreements.push(format!(
                "{name}: the summary says {} games, counting tag sections gives {expected}",
                pass.summary.games
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn every_sample_file_with_include_standard_and_fritz9() {
    let passes = sweep(sample_files(), STANDARD_AND_FRITZ9);
    check_standard_passes(&passes);
    assert_all_518(&passes, "standard/lichess_db_1000k-first300.pgn.zst");
}

#[test]
fn every_corpus_file_with_include_standard_and_fritz9() {
    let Some(corpus) = corpus_or_skip("tag::every_corpus_file_with_include_standard_and_fritz9")
    else {
        return;
    };
    let passes = sweep(corpus_files_but_the_big_one(&corpus), STANDARD_AND_FRITZ9);
    check_standard_passes(&passes);
    assert_all_518(&passes, "standard/twic1599_1000k.pgn");
}

/// Every game of the standard archives has tags, so every one gets 518.
fn check_standard_passes(passes: &[Pass]) {
    let mut standard = 0;
    for pass in passes
        .iter()
        .filter(|p| p.file.parent().is_some_and(|d| d.ends_with("standard")))
    {
        let s = pass.summary;
        assert_eq!(
            (s.tagged, s.standard, s.added),
            (s.games, s.games, 2 * s.games),
            "{}: {s:?}",
            short_name(&pass.file)
        );
        standard += 1;
    }
    assert!(standard > 0, "a standard archive is among the files");
}

/// Every game of the standard archive `file` got 518 and Fritz9's 359.
fn assert_all_518(passes: &[Pass], file: &str) {
    let pass = passes
        .iter()
        .find(|p| p.file.ends_with(file))
        .unwrap_or_else(|| panic!("{file} is in the data set"));
    assert!(pass.summary.tagged > 0, "{file}: {:?}", pass.summary);
    assert_eq!(
        count(&pass.output, b"[Chess960Id \"518\"]"),
        pass.summary.tagged
    );
    assert_eq!(
        count(&pass.output, b"[Chess960Fritz9Id \"359\"]"),
        pass.summary.tagged
    );
}

/// The 200 MB archive, once: default options, two threads, byte-exact,
/// and tagging it again (through standard input) changes nothing.
#[test]
fn the_big_corpus_archive() {
    let Some(corpus) = corpus_or_skip("tag::the_big_corpus_archive") else {
        return;
    };
    let file = corpus.file(BIG);
    let path = file.to_str().expect("data paths are UTF-8");
    let run = pgn960(&["tag", "--threads", "2", path], None);
    let s = run.summary();
    let output = run.ok("tag the big archive");
    assert_eq!(
        (s.games, s.chess960, s.tagged, s.added, s.dfrc, s.unreadable),
        (5232, 3678, 3678, 3678, 1554, 0),
        "{s:?}"
    );
    // Two games on the standard array are tagged fischerandom.
    assert_eq!(count(&output, b"[Chess960Id \"518\"]"), 2);
    let input = read_pgn(&file);
    assert_same_bytes(
        &strip_id_lines(&output),
        &strip_id_lines(&input),
        "the big archive without id tags",
    );
    drop(input);

    let run = pgn960(&["tag", "--threads", "2"], Some(&output));
    let s = run.summary();
    let again = run.ok("tag the tagged big archive");
    assert_eq!((s.added, s.rewritten, s.already_right), (0, 0, 3678));
    assert!(again == output, "tagging the big archive twice changed it");
}

/// Every game's `Chess960Id` in `output`, in order, with the first FEN of
/// the same game.
fn ids_and_fens(output: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(output);
    let mut games = Vec::new();
    let mut fen = None;
    let mut id = None;
    for line in text.lines() {
        if line.starts_with("[Event ") {
            if let (Some(fen), Some(id)) = (fen.take(), id.take()) {
                games.push((id, fen));
            }
            (fen, id) = (None, None);
        } else if let Some(rest) = line.strip_prefix("[FEN \"") {
            fen.get_or_insert(rest.trim_end_matches("\"]").to_owned());
        } else if let Some(rest) = line.strip_prefix("[Chess960Id \"") {
            id = Some(rest.trim_end_matches("\"]").to_owned());
        }
    }
    if let (Some(fen), Some(id)) = (fen, id) {
        games.push((id, fen));
    }
    games
}

/// Each game's id numbers its FEN's start, by shakmaty's own numbering
/// (`Board::chess960`), not by ours.
fn assert_ids_match_fens(file: &str, games: usize) {
    let run = pgn960(&["tag", sample_file(file).to_str().expect("UTF-8")], None);
    let output = run.ok(file);
    let pairs = ids_and_fens(&output);
    assert_eq!(pairs.len(), games, "{file}: games with an id and a FEN");
    for (id, fen) in &pairs {
        let number: u32 = id.parse().expect("ids are numbers");
        assert!(number < 960, "{file}: id {id}");
        let board = shakmaty::Board::chess960(number).board_fen().to_string();
        let placement = fen.split(' ').next().expect("a FEN has a board");
        assert_eq!(placement, board, "{file}: Chess960Id {id} for {fen}");
    }
}

#[test]
fn tcec_s16_gets_20_ids_that_match_their_fens() {
    let file = "tcec-s16-frc-sufi.pgn.zst";
    let run = pgn960(&["tag", sample_file(file).to_str().expect("UTF-8")], None);
    let s = run.summary();
    assert_eq!((s.games, s.added), (20, 20));
    assert_ids_match_fens(file, 20);
    // The first game, by hand: RBQKBNNR.
    let first = ids_and_fens(&run.ok(file)).remove(0);
    assert_eq!(
        first.1,
        "rbqkbnnr/pppppppp/8/8/8/8/PPPPPPPP/RBQKBNNR w KQkq - 0 1"
    );
    // R B Q K B N N R by Scharnagl's counting: the light bishop on b (0),
    // the dark one on e (2 * 4), the queen on the second of the six squares
    // left (1 * 16), the knights on the third and fourth of the last five
    // (code 7 * 96): 696.
    assert_eq!(first.0, "696");
}

#[test]
fn double_frc_archive_is_left_as_it_is() {
    let file = sample_file("tcec-s22-dfrc-unbust-bonus.pgn.zst");
    let run = pgn960(&["tag", file.to_str().expect("UTF-8")], None);
    let s = run.summary();
    assert_eq!((s.games, s.dfrc, s.added), (10, 10, 0));
    assert_same_bytes(
        &run.ok("tag s22"),
        &read_pgn(&file),
        "Double FRC games are not changed",
    );
}

#[test]
fn games_without_a_variant_tag_still_get_ids() {
    let file = "tcec-s29-frd5-league-b-tiebreak.pgn";
    assert_eq!(count(&read_pgn(&sample_file(file)), b"[Variant"), 0);
    assert_ids_match_fens(file, 2);
}

#[test]
fn broadcast_with_two_fen_tags_per_game_is_tagged() {
    let file = "freestyle-vegas-broadcast.pgn";
    let input = read_pgn(&sample_file(file));
    assert_eq!(count(&input, b"\n[FEN "), 8, "two FEN tags per game");
    assert_ids_match_fens(file, 4);
}

#[test]
fn chessbase_blank_line_in_the_tag_section_is_one_game() {
    let file = sample_file("edge/python-chess/data-pgn-chessbase-empty-line.pgn");
    let input = read_pgn(&file);
    let mut reader = pgn960::split::GameReader::new(&input[..]);
    let batch = reader
        .next_batch()
        .expect("reading from memory cannot fail")
        .expect("one batch");
    assert_eq!(batch.games.len(), 1);
    assert_eq!(
        batch.tags_of(&batch.games[0]).len(),
        11,
        "Event and 10 more"
    );
    assert!(reader.next_batch().expect("no error").is_none());

    let run = pgn960(
        &["tag", "--include-standard", file.to_str().expect("UTF-8")],
        None,
    );
    assert_eq!(run.summary().games, 1);
    let output = run.ok("tag chessbase-empty-line");
    let text = String::from_utf8_lossy(&output);
    assert!(
        text.contains("[BlackFideId \"deepmind\"]\n[Chess960Id \"518\"]\n\n1. e4"),
        "the id goes after the last tag line:\n{text}"
    );
}

// ---------------------------------------------------------------------------
// Hand-written fixtures

/// Every `testdata/tag/NAME.pgn` tagged with default options must give
/// `NAME.expected.pgn` byte for byte.
#[test]
fn fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/tag");
    let mut inputs: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("testdata/tag exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| {
            let name = path.to_string_lossy();
            name.ends_with(".pgn") && !name.ends_with(".expected.pgn")
        })
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 15, "the fixtures are there");
    let mut failures = Vec::new();
    for input_path in &inputs {
        let name = input_path
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        let expected_path = input_path.with_extension("expected.pgn");
        let input = fs::read(input_path).expect("a readable fixture");
        let expected = fs::read(&expected_path)
            .unwrap_or_else(|err| panic!("{}: {err}", expected_path.display()));
        // The fixture itself must keep the invariant.
        assert_same_bytes(
            &strip_id_lines(&expected),
            &strip_id_lines(&input),
            &format!("fixture {name}: expected vs input without id tags"),
        );
        let checks = [
            (
                "file",
                pgn960(&["tag", input_path.to_str().expect("UTF-8")], None),
            ),
            ("stdin", pgn960(&["tag"], Some(&input))),
            ("again", pgn960(&["tag", "-"], Some(&expected))),
        ];
        for (how, run) in checks {
            if run.code != 0 {
                failures.push(format!(
                    "tag {name} ({how}): exit {}: {}",
                    run.code, run.stderr
                ));
            } else if let Some(diff) = bytes_diff(&run.stdout, &expected) {
                failures.push(format!("tag {name} ({how}): {diff}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------
// Compression and standard input

fn compress(format: &str, bytes: &[u8]) -> Vec<u8> {
    match format {
        "gzip" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(bytes).expect("compressing in memory");
            e.finish().expect("compressing in memory")
        }
        "zstd" => zstd::encode_all(bytes, 3).expect("compressing in memory"),
        "bzip2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
            e.write_all(bytes).expect("compressing in memory");
            e.finish().expect("compressing in memory")
        }
        "xz" => {
            let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
            e.write_all(bytes).expect("compressing in memory");
            e.finish().expect("compressing in memory")
        }
        _ => unreachable!("a known format"),
    }
}

#[test]
fn compression_and_standard_input_do_not_change_the_output() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for file in [
        "tcec-s16-frc-sufi.pgn.zst",
        "freestyle-vegas-broadcast.pgn",
        // CRLF line endings.
        "edge/pychess/testing-gamefiles-chess960rwch.pgn",
    ] {
        let path = sample_file(file);
        let plain = read_pgn(&path);
        let expected = pgn960(&["tag", path.to_str().expect("UTF-8")], None).ok(file);
        assert_ne!(expected, plain, "{file} gets ids");
        for (how, run) in [
            ("stdin -", pgn960(&["tag", "-"], Some(&plain))),
            ("stdin", pgn960(&["tag"], Some(&plain))),
        ] {
            assert_same_bytes(&run.ok(file), &expected, &format!("{file} through {how}"));
        }
        for (i, format) in ["gzip", "zstd", "bzip2", "xz"].into_iter().enumerate() {
            let packed = compress(format, &plain);
            // A name that does not tell the format.
            let packed_path = dir.path().join(format!("{i}.dat"));
            fs::write(&packed_path, &packed).expect("a writable temporary directory");
            let what = format!("{file} as {format}");
            for (how, run) in [
                (
                    "file",
                    pgn960(&["tag", packed_path.to_str().expect("UTF-8")], None),
                ),
                ("stdin -", pgn960(&["tag", "-"], Some(&packed))),
                ("stdin", pgn960(&["tag"], Some(&packed))),
            ] {
                assert_same_bytes(&run.ok(&what), &expected, &format!("{what} through {how}"));
            }
        }
    }
}

/// 40,000 CRLF games (about 5 MB), each `[Event]`, `[FEN]`, blank line,
/// `1. e4 *`, of varying lengths.
fn crlf_archive() -> Vec<u8> {
    let fen = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1";
    let mut archive = Vec::new();
    for i in 0..40_000 {
        let padding = "x".repeat(i * 7 % 51);
        archive.extend_from_slice(
            format!("[Event \"g{i}{padding}\"]\r\n[FEN \"{fen}\"]\r\n\r\n1. e4 *\r\n\r\n")
                .as_bytes(),
        );
    }
    archive
}

/// Pipes hand out bytes in pieces of their own size; a CRLF archive of
/// several MiB must come out the same from a pipe as from a file. (It did
/// not, now and then, while the splitter's reads followed the pipe's
/// pieces and a tag line's `\r\n` could be cut between two of them.)
#[test]
fn a_large_crlf_archive_is_tagged_the_same_from_a_pipe() {
    let archive = crlf_archive();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("crlf.pgn");
    fs::write(&path, &archive).expect("writable");
    let from_file = pgn960(&["tag", utf8(&path)], None).ok("tag crlf.pgn");
    let from_pipe = pgn960(&["tag"], Some(&archive)).ok("tag < crlf.pgn");
    assert_same_bytes(&from_pipe, &from_file, "a CRLF archive through a pipe");
    let gzip = pgn960(&["tag"], Some(&compress("gzip", &archive))).ok("tag < crlf.pgn.gz");
    assert_same_bytes(&gzip, &from_file, "a gzipped CRLF archive through a pipe");
}

/// In this archive one game's FEN line ends exactly where the splitter's
/// second 1 MiB read ends. (Found while writing these tests: that game got
/// its id before its `[Event]` line instead of after its `[FEN]` line like
/// the 39,999 others; see `tag_properties::crlf_tag_line_*`.)
#[test]
fn every_game_of_a_large_crlf_archive_gets_its_id_after_its_tags() {
    let run = pgn960(&["tag"], Some(&crlf_archive()));
    assert_eq!(run.summary().added, 40_000);
    let output = run.ok("tag < crlf.pgn");
    assert_eq!(
        count(&output, b"\"]\r\n[Chess960Id \"0\"]\r\n\r\n1. e4 *"),
        40_000,
        "ids right after the FEN line"
    );
}

/// A plain file of 2 MiB or more is split on several threads at once, from
/// `[Event` lines where a game certainly begins: every command must write
/// what one thread (which splits front to back) writes, and `tag` what it
/// writes for the same bytes from a pipe. The file: 16 MB of TCEC games
/// (long games, long comments; here the four TCEC samples over and over),
/// the CRLF archive (tiny games) and every real sample but the standard
/// and edge ones (tag sections only among them).
#[test]
fn a_plain_file_split_on_several_threads_gives_what_one_thread_gives() {
    let tcec: Vec<u8> = [
        "tcec-s16-frc-sufi.pgn.zst",
        "tcec-s22-dfrc-unbust-bonus.pgn.zst",
        "tcec-s26-frc-no-castling-bonus.pgn.zst",
        "tcec-s29-frd5-league-b-tiebreak.pgn",
    ]
    .iter()
    .flat_map(|file| read_pgn(&sample_file(file)))
    .collect();
    let mut archive = tcec.repeat(16_000_000 / tcec.len() + 1);
    archive.extend(crlf_archive());
    let standard = sample_file("standard/lichess_db_1000k-first300.pgn.zst");
    for file in sample_archives() {
        if file != standard {
            archive.extend(read_pgn(&file));
        }
    }
    assert_split_on_threads_is_split_by_one(&archive);
}

/// The same with the corpus: 16 MB of its big TCEC archive, the CRLF
/// archive, and every plain archive of its `real/`.
#[test]
fn a_plain_file_of_the_corpus_split_on_several_threads_gives_what_one_thread_gives() {
    let Some(corpus) = corpus_or_skip(
        "tag::a_plain_file_of_the_corpus_split_on_several_threads_gives_what_one_thread_gives",
    ) else {
        return;
    };
    let big = read_pgn(&corpus.file(BIG));
    let cut = 16_000_000
        + big[16_000_000..]
            .windows(8)
            .position(|w| w == b"\n[Event ")
            .expect("games after 16 MB")
        + 1;
    let mut archive = big[..cut].to_vec();
    drop(big);
    archive.extend(crlf_archive());
    for file in corpus.files() {
        if file.starts_with(corpus.dir().join("real")) && file.extension() == Some("pgn".as_ref()) {
            archive.extend(fs::read(&file).expect("data file readable"));
        }
    }
    assert_split_on_threads_is_split_by_one(&archive);
}

/// `tag`, `stats` and `validate` write the same at one, two and three
/// threads on `archive` as a plain file, and `tag` the same from a pipe.
fn assert_split_on_threads_is_split_by_one(archive: &[u8]) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("mixed.pgn");
    fs::write(&path, archive).expect("writable");
    let path = utf8(&path);
    for command in [
        &["tag"][..],
        &["stats"],
        &["validate"],
        &["validate", "--no-moves"],
    ] {
        let run = |threads: &str| pgn960(&[command, &["--threads", threads, path]].concat(), None);
        let one = run("1");
        assert!(
            !one.stderr.contains("panick"),
            "{command:?}: {}",
            one.stderr
        );
        // What one thread writes is itself right in outline: every game
        // tagged, a row per position, the findings of a mixed archive.
        let lines = one
            .stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        match command {
            ["tag"] => {
                assert_eq!(one.code, 0, "tag: {}", one.stderr);
                assert_eq!(
                    count(&one.stdout, b"\n[Event "),
                    count(archive, b"\n[Event "),
                    "tag keeps every game"
                );
            }
            ["stats"] => {
                assert_eq!(one.code, 0, "stats: {}", one.stderr);
                assert!(lines > 10, "stats writes a row per position: {lines} lines");
            }
            _ => {
                // Exit 1 when an error is found; warnings alone give 0.
                let errors = !one.stderr.contains(" 0 errors,");
                assert_eq!(one.code, i32::from(errors), "{command:?}: {}", one.stderr);
                assert!(lines > 1, "{command:?} reports its findings");
            }
        }
        for threads in ["2", "3"] {
            let many = run(threads);
            assert!(
                many.stdout == one.stdout,
                "{command:?}: --threads {threads} writes otherwise than 1"
            );
            assert_eq!(
                (&many.stderr, many.code),
                (&one.stderr, one.code),
                "{command:?} --threads {threads}"
            );
        }
        if command == ["tag"] {
            let piped = pgn960(&["tag"], Some(archive)).ok("tag < mixed.pgn");
            assert_same_bytes(&piped, &one.stdout, "the mixed archive through a pipe");
        }
    }
}

// ---------------------------------------------------------------------------
// Command-line behaviour

/// A copy of a real sample, decompressed, in a fresh temporary directory.
fn scratch_copy(file: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("games.pgn");
    fs::write(&path, read_pgn(&sample_file(file))).expect("a writable temporary directory");
    (dir, path)
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

/// The lines of stderr that are errors (the summary lines are not).
fn error_lines(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter(|line| line.starts_with("pgn960: "))
        .collect()
}

#[test]
fn output_file_gets_what_stdout_gets() {
    let (dir, input) = scratch_copy("tcec-s16-frc-sufi.pgn.zst");
    let to_stdout = pgn960(&["tag", utf8(&input)], None).ok("tag to stdout");
    let out = dir.path().join("out.pgn");
    let run = pgn960(&["tag", utf8(&input), "-o", utf8(&out)], None);
    assert!(run.ok("tag -o").is_empty(), "-o writes nothing to stdout");
    assert_same_bytes(
        &fs::read(&out).expect("-o wrote the file"),
        &to_stdout,
        "-o FILE vs stdout",
    );
}

#[test]
fn check_reports_without_writing() {
    let (dir, input) = scratch_copy("tcec-s16-frc-sufi.pgn.zst");
    let run = pgn960(&["tag", "--check", utf8(&input)], None);
    assert_eq!(
        run.code, 1,
        "an untagged archive needs tagging: {}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "--check writes nothing");
    assert!(
        run.stderr.contains("20 id tags would be added"),
        "{}",
        run.stderr
    );
    assert_eq!(run.summary().added, 20);

    let tagged = dir.path().join("tagged.pgn");
    let output = pgn960(&["tag", utf8(&input)], None).ok("tag");
    fs::write(&tagged, &output).expect("a writable temporary directory");
    let run = pgn960(&["tag", "--check", utf8(&tagged)], None);
    assert_eq!(
        run.code, 0,
        "a tagged archive needs nothing: {}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "--check writes nothing");
    let s = run.summary();
    assert_eq!((s.added, s.rewritten, s.already_right), (0, 0, 20));

    let run = pgn960(&["tag", "--check"], Some(&output));
    assert_eq!(run.code, 0, "--check on standard input: {}", run.stderr);
}

/// Wrong ids alone make a file need tagging: `--check` says so, and
/// `--in-place` rewrites every such file, each counted in the summary.
#[test]
fn wrong_ids_alone_count_as_changes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let tagged = pgn960(
        &["tag", utf8(&sample_file("tcec-s16-frc-sufi.pgn.zst"))],
        None,
    )
    .ok("tag");
    let tagged_text = String::from_utf8(tagged.clone()).expect("the sample is UTF-8");
    // `[Chess960Id "N"]` becomes `[Chess960Id "9N"]`: wrong for every N.
    let wrong = tagged_text.replace("[Chess960Id \"", "[Chess960Id \"9");
    assert_eq!(wrong.matches("[Chess960Id \"9").count(), 20);
    let a = dir.path().join("a.pgn");
    let b = dir.path().join("b.pgn");
    fs::write(&a, &wrong).expect("writable");
    fs::write(&b, &wrong).expect("writable");

    let run = pgn960(&["tag", "--check", utf8(&a)], None);
    assert_eq!(run.code, 1, "wrong ids need rewriting: {}", run.stderr);
    let s = run.summary();
    assert_eq!((s.added, s.rewritten, s.already_right), (0, 20, 0));

    // The second file is rewritten too: what counts is its own change,
    // not the run's total so far.
    let run = pgn960(&["tag", "--in-place", utf8(&a), utf8(&b)], None);
    assert_eq!(run.code, 0, "tag --in-place: {}", run.stderr);
    let s = run.summary();
    assert_eq!((s.added, s.rewritten, s.already_right), (0, 40, 0));
    assert_same_bytes(&fs::read(&a).expect("a.pgn"), &tagged, "a.pgn");
    assert_same_bytes(&fs::read(&b).expect("b.pgn"), &tagged, "b.pgn");
}

/// A new id line ends as the lines beside it do, byte for byte, also
/// where the game has no tag line of its own or its lines do not end: a
/// user of a CRLF (or old Mac) file gets no `\n` in it. (A game without
/// tags is tagged with `--include-standard`; it was given `\n`, found by
/// the fuzz harness.) Each input also from a file, which is mapped.
#[test]
fn a_new_id_line_ends_as_its_neighbours_in_games_without_tags_or_line_ends() {
    let cases: [(&[u8], &[u8]); 7] = [
        (b"1. e4 e5 *\r\n", b"[Chess960Id \"518\"]\r\n1. e4 e5 *\r\n"),
        (b"{c}\r1. e4 *\r", b"[Chess960Id \"518\"]\r{c}\r1. e4 *\r"),
        // The byte-order mark stays first.
        (
            b"\xef\xbb\xbf1. e4 *\r\n",
            b"\xef\xbb\xbf[Chess960Id \"518\"]\r\n1. e4 *\r\n",
        ),
        // No line end anywhere: `\n`, as in any file without one.
        (b"1. e4 *", b"[Chess960Id \"518\"]\n1. e4 *"),
        // The last game on one line with no line end: the line before's.
        (
            b"[Event \"a\"]\r\n\r\n1. e4 *\r\n[Event \"b\"] 1. e4 *",
            b"[Event \"a\"]\r\n[Chess960Id \"518\"]\r\n\r\n1. e4 *\r\n\
              [Chess960Id \"518\"]\r\n[Event \"b\"] 1. e4 *",
        ),
        (
            b"[Event \"a\"]\r\r1. e4 *\r[Event \"%",
            b"[Event \"a\"]\r[Chess960Id \"518\"]\r\r1. e4 *\r[Chess960Id \"518\"]\r[Event \"%",
        ),
        // The first game ends within its first line, which ends in the next.
        (
            b"1. e4 *[Event \"b\"]\r\n",
            b"[Chess960Id \"518\"]\r\n1. e4 *[Event \"b\"]\r\n[Chess960Id \"518\"]\r\n",
        ),
    ];
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("in.pgn");
    let mut failures = Vec::new();
    for (input, expected) in cases {
        let what = format!("{:?}", String::from_utf8_lossy(input));
        assert_eq!(id_edits_only(input, expected), None, "{what}");
        fs::write(&file, input).expect("the input written");
        let runs = [
            (
                "piped",
                pgn960(&["tag", "-q", "--include-standard"], Some(input)),
            ),
            (
                "from a file",
                pgn960(&["tag", "-q", "--include-standard", utf8(&file)], None),
            ),
        ];
        for (how, run) in runs {
            if let Some(diff) = bytes_diff(&run.ok("tag"), expected) {
                failures.push(format!("{what} {how}: {diff}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An id tag that does not end on its line cannot be rewritten safely: the
/// game passes through as it is, counted as left alone, while the game
/// after it is tagged.
#[test]
fn an_id_tag_without_its_closing_quote_is_left_alone_and_counted() {
    let fen = "[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]";
    let broken =
        format!("[Event \"x\"]\n[Variant \"Chess960\"]\n{fen}\n[Chess960Id \"12]\n\n1. e4 *\n\n");
    let plain = format!("[Event \"y\"]\n[Variant \"Chess960\"]\n{fen}\n\n1. e4 *\n");
    let input = format!("{broken}{plain}");
    let run = pgn960(&["tag"], Some(input.as_bytes()));
    let expected = format!(
        "{broken}{}",
        plain.replace("\n\n1.", "\n[Chess960Id \"0\"]\n\n1.")
    );
    let s = run.summary();
    assert_same_bytes(&run.ok("tag"), expected.as_bytes(), "one game left alone");
    assert_eq!((s.games, s.tagged, s.added, s.left_alone), (2, 1, 1, 1));
}

/// An id tag that reads as one only leniently is left alone: a value
/// holding an unescaped quote is no number, and may hold other tags (a `]`
/// missing); text between the name and the value means lines run
/// together. Rewriting them lost `[Site "x` and a player's name (found by
/// the fuzz harness). The game passes through as it is, counted as left
/// alone.
#[test]
fn an_id_tag_read_only_leniently_is_left_alone() {
    let fen = "[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]";
    for id_line in [
        "[Chess960Id \"5\" [Site \"x\"]",
        "[Chess960Id te \"Alvarez, Ana\"]",
    ] {
        let input = format!("[Variant \"Chess960\"]\n{fen}\n{id_line}\n\n1. e4 *\n");
        let run = pgn960(&["tag"], Some(input.as_bytes()));
        let s = run.summary();
        assert_same_bytes(&run.ok("tag"), input.as_bytes(), id_line);
        assert_eq!(
            (s.games, s.tagged, s.rewritten, s.left_alone),
            (1, 0, 0, 1),
            "{id_line}"
        );
    }
}

/// `strip_ids`, which the properties and the fuzz target lean on, against
/// the byte-level oracles on every real sample, untagged and tagged with
/// both ids: it removes id tags with their line endings, and nothing else.
#[test]
fn strip_ids_agrees_with_the_byte_level_oracles_on_the_samples() {
    for path in sample_files() {
        let name = short_name(&path);
        let input = read_pgn(&path);
        let tagged = pgn960(&["tag", "--fritz9", utf8(&path)], None).ok("tag --fritz9");
        for (what, bytes) in [("input", &input), ("tagged", &tagged)] {
            let stripped = pgn960::tag::strip_ids(bytes);
            assert_eq!(
                id_edits_only(&stripped, bytes),
                None,
                "{name} ({what}): strip_ids removed more than id tags"
            );
            assert_same_bytes(
                &stripped,
                &strip_id_lines(bytes),
                &format!("{name} ({what}): strip_ids vs the textual strip"),
            );
        }
    }
}

fn set_mtime(path: &Path, time: std::time::SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .and_then(|file| file.set_modified(time))
        .expect("the scratch file's time can be set");
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("a readable directory")
        .map(|entry| {
            entry
                .expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn in_place_rewrites_plain_and_zstd_and_leaves_tagged_files_alone() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let source = sample_file("tcec-s16-frc-sufi.pgn.zst");
    let plain = read_pgn(&source);
    let tagged = pgn960(&["tag", utf8(&source)], None).ok("tag");

    let a = dir.path().join("a.pgn");
    let b = dir.path().join("b.pgn.zst");
    let c = dir.path().join("c.pgn");
    fs::write(&a, &plain).expect("writable");
    fs::write(&b, compress("zstd", &plain)).expect("writable");
    fs::write(&c, &tagged).expect("writable");
    let long_ago =
        std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    set_mtime(&c, long_ago);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&a, fs::Permissions::from_mode(0o640)).expect("chmod");
    }

    let run = pgn960(&["tag", "--in-place", utf8(&a), utf8(&b), utf8(&c)], None);
    let s = run.summary();
    assert!(
        run.ok("tag --in-place").is_empty(),
        "--in-place writes nothing to stdout"
    );
    assert_eq!((s.games, s.added, s.already_right), (60, 40, 20));

    assert_same_bytes(
        &fs::read(&a).expect("a.pgn"),
        &tagged,
        "a.pgn after --in-place",
    );
    let packed = fs::read(&b).expect("b.pgn.zst");
    assert!(
        packed.starts_with(b"\x28\xb5\x2f\xfd"),
        "b.pgn.zst is still zstd"
    );
    let unpacked = zstd::decode_all(&packed[..]).expect("b.pgn.zst decompresses");
    assert_same_bytes(&unpacked, &tagged, "b.pgn.zst after --in-place");
    assert_eq!(
        fs::metadata(&c).and_then(|m| m.modified()).expect("mtime"),
        long_ago,
        "a file that needs no change is not touched"
    );
    assert_same_bytes(&fs::read(&c).expect("c.pgn"), &tagged, "c.pgn");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&a).expect("a.pgn").permissions().mode();
        assert_eq!(mode & 0o777, 0o640, "--in-place keeps the permissions");
    }
    assert_eq!(
        names_in(dir.path()),
        ["a.pgn", "b.pgn.zst", "c.pgn"],
        "no temporary files are left behind"
    );
}

/// `--in-place` through a symbolic link rewrites the file it points to, in
/// that file's directory, and leaves the link a link.
#[test]
fn in_place_through_a_symlink_rewrites_its_target() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (real_dir, link_dir) = (dir.path().join("real"), dir.path().join("links"));
    fs::create_dir(&real_dir).expect("mkdir");
    fs::create_dir(&link_dir).expect("mkdir");
    let source = sample_file("tcec-s16-frc-sufi.pgn.zst");
    let tagged = pgn960(&["tag", utf8(&source)], None).ok("tag");
    let target = real_dir.join("games.pgn");
    let link = link_dir.join("games.pgn");
    fs::write(&target, read_pgn(&source)).expect("writable");
    std::os::unix::fs::symlink(&target, &link).expect("a symbolic link");

    pgn960(&["tag", "-q", "--in-place", utf8(&link)], None).ok("tag --in-place LINK");
    assert!(
        fs::symlink_metadata(&link)
            .expect("the link")
            .file_type()
            .is_symlink(),
        "the link is still a link"
    );
    assert_same_bytes(&fs::read(&target).expect("the target"), &tagged, "target");
    assert_eq!(names_in(&real_dir), ["games.pgn"], "no temporary left");
    assert_eq!(names_in(&link_dir), ["games.pgn"], "no temporary left");
}

#[test]
fn in_place_on_a_damaged_file_leaves_it_intact() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let plain = read_pgn(&sample_file("tcec-s16-frc-sufi.pgn.zst"));
    let packed = compress("zstd", &plain);
    let damaged = &packed[..packed.len() / 2];
    let path = dir.path().join("cut.pgn.zst");
    fs::write(&path, damaged).expect("writable");
    let run = pgn960(&["tag", "--in-place", utf8(&path)], None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let errors = error_lines(&run);
    assert_eq!(errors.len(), 1, "{}", run.stderr);
    assert!(errors[0].contains("cut.pgn.zst"), "{}", run.stderr);
    assert_eq!(fs::read(&path).expect("still there"), damaged);
    assert_eq!(names_in(dir.path()), ["cut.pgn.zst"]);
}

#[test]
fn in_place_refuses_standard_input() {
    for args in [&["tag", "--in-place"][..], &["tag", "--in-place", "-"]] {
        let run = pgn960(args, Some(b"[Event \"x\"]\n\n*\n"));
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty());
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("pgn960: "), "{}", run.stderr);
    }
}

#[test]
fn output_that_is_an_input_is_refused() {
    let (dir, input) = scratch_copy("tcec-s16-frc-sufi.pgn.zst");
    let before = fs::read(&input).expect("the copy");
    let other_spelling = dir.path().join(".").join("games.pgn");
    let mut spellings = vec![input.clone(), other_spelling];
    #[cfg(unix)]
    {
        let link = dir.path().join("link.pgn");
        std::os::unix::fs::symlink(&input, &link).expect("a symlink");
        spellings.push(link);
    }
    for output in spellings {
        let run = pgn960(&["tag", utf8(&input), "-o", utf8(&output)], None);
        assert_eq!(run.code, 2, "-o {}: {}", output.display(), run.stderr);
        assert_eq!(error_lines(&run).len(), 1, "{}", run.stderr);
        assert_eq!(
            fs::read(&input).expect("the copy"),
            before,
            "-o {} must leave the input intact",
            output.display()
        );
    }
}

/// A hard link to an input is the input under another name. (Found while
/// writing these tests: `-o` compared canonical paths only, created the
/// output, truncating the input, and exited 0 with both names empty.)
#[cfg(unix)]
#[test]
fn output_that_is_a_hard_link_to_an_input_is_refused() {
    let (dir, input) = scratch_copy("tcec-s16-frc-sufi.pgn.zst");
    let before = fs::read(&input).expect("the copy");
    let link = dir.path().join("hard-link.pgn");
    fs::hard_link(&input, &link).expect("a hard link");
    let run = pgn960(&["tag", utf8(&input), "-o", utf8(&link)], None);
    assert_eq!(
        fs::read(&input).expect("the copy").len(),
        before.len(),
        "-o naming a hard link of the input must not truncate the input"
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn a_missing_input_does_not_stop_the_others() {
    let (dir, input) = scratch_copy("tcec-s16-frc-sufi.pgn.zst");
    let missing = dir.path().join("missing.pgn");
    let alone = pgn960(&["tag", utf8(&input)], None).ok("tag");
    for order in [[&missing, &input], [&input, &missing]] {
        let run = pgn960(&["tag", utf8(order[0]), utf8(order[1])], None);
        assert_eq!(run.code, 2, "{}", run.stderr);
        let errors = error_lines(&run);
        assert_eq!(errors.len(), 1, "one error line:\n{}", run.stderr);
        assert!(errors[0].contains("missing.pgn"), "{}", run.stderr);
        assert_eq!(run.summary().games, 20);
        assert_same_bytes(&run.stdout, &alone, "the other input is still tagged");
    }
}

#[test]
fn a_directory_is_no_input() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let run = pgn960(&["tag", utf8(dir.path())], None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    let errors = error_lines(&run);
    assert_eq!(errors.len(), 1, "one error line:\n{}", run.stderr);
    assert!(errors[0].contains("directory"), "{}", run.stderr);
}

/// `pgn960 tag big.pgn | head -c 100`: the reader goes away early; the
/// tool stops quietly with exit 0.
#[test]
fn a_closed_pipe_is_a_quiet_end() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let big = dir.path().join("big.pgn");
    let one = read_pgn(&sample_file("standard/lichess_db_1000k-first300.pgn.zst"));
    fs::write(&big, one.repeat(8)).expect("writable");
    let mut child = StdCommand::new(env!("CARGO_BIN_EXE_pgn960"))
        .args(["tag", "--include-standard", utf8(&big)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pgn960 starts");
    let mut stdout = child.stdout.take().expect("a piped stdout");
    let mut head = [0u8; 100];
    stdout.read_exact(&mut head).expect("100 bytes of output");
    drop(stdout);
    let output = child.wait_with_output().expect("pgn960 ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "no error text: {stderr}");
    assert!(head.starts_with(b"[Event "));
}

// ---------------------------------------------------------------------------
// Bugs found while writing these tests (fixed since), kept as regressions

/// A game whose first tag line ends in a lone `\r` and whose last ends in
/// `\r\n`, followed by a blank `\n` line. (The inserted line took the
/// first tag line's ending, `\r`, which joined the following `\n` into
/// one `\r\n`: the blank line between tags and moves disappeared.)
#[test]
fn an_inserted_line_ending_does_not_join_the_next_line() {
    let input = b"[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\r\
                  [Event \"x\"]\r\n\n1. e4 *\n";
    let output = pgn960(&["tag"], Some(input)).ok("tag");
    assert_same_bytes(
        &strip_id_lines(&output),
        input,
        "output without its id line vs input",
    );
}

/// In an archive of tags only, a game begins where a tag of the game before
/// comes again after a blank line. A new id line put before such a game's
/// first tag would not repeat a tag, and a second run would join the two
/// games (found by fuzzing): the line goes after the last complete tag line
/// instead, or, with none, right after the first tag pair.
#[test]
fn a_new_id_keeps_a_tags_only_game_apart_from_the_one_before() {
    let fen = "[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]";
    let cases = [
        // The last tag line has no line end (the end of the file).
        (
            format!("[Event \"a\"]\n[Site \"x\"]\n\n[Event \"b\"]\n{fen}"),
            format!("[Event \"a\"]\n[Site \"x\"]\n\n[Event \"b\"]\n[Chess960Id \"0\"]\n{fen}"),
        ),
        // One tag line only, without a line end.
        (
            format!("[Event \"a\"]\n\n[Event \"b\"]{fen}"),
            format!("[Event \"a\"]\n\n[Event \"b\"][Chess960Id \"0\"]\n{fen}"),
        ),
        // Moves on the only tag line.
        (
            format!("[Event \"a\"]\n\n[Event \"b\"]{fen} 1. e4 *\n"),
            format!("[Event \"a\"]\n\n[Event \"b\"][Chess960Id \"0\"]\n{fen} 1. e4 *\n"),
        ),
    ];
    for (input, expected) in cases {
        let once = pgn960(&["tag", "-q"], Some(input.as_bytes())).ok("tag");
        assert_same_bytes(&once, expected.as_bytes(), &input);
        let twice = pgn960(&["tag"], Some(&once)).ok("tag again");
        assert_same_bytes(&twice, &once, "tagging twice");
    }
}

/// Every complete game read before a read error (here a truncated zstd
/// file) is written, then the error is reported. (The games decoded but
/// not yet handed out as a batch, up to 2 MiB, were silently dropped.)
#[test]
fn a_damaged_input_keeps_the_games_before_the_damage() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut plain = read_pgn(&sample_file("tcec-s26-frc-no-castling-bonus.pgn.zst"));
    plain.extend(read_pgn(&sample_file("tcec-s16-frc-sufi.pgn.zst")));
    let packed = compress("zstd", &plain);
    let damaged = &packed[..packed.len() * 3 / 4];
    let path = dir.path().join("cut.pgn.zst");
    fs::write(&path, damaged).expect("writable");

    // What can be decoded, read independently of the tool.
    let mut decodable = Vec::new();
    let mut decoder = zstd::stream::read::Decoder::new(damaged).expect("a zstd decoder");
    let mut chunk = [0u8; 4096];
    while let Ok(n @ 1..) = decoder.read(&mut chunk) {
        decodable.extend_from_slice(&chunk[..n]);
    }
    let last_game = memchr::memmem::rfind(&decodable, b"\n[Event ").expect("games decode");
    assert!(last_game > (1 << 20), "more than one batch decodes");

    let run = pgn960(&["tag", utf8(&path)], None);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(error_lines(&run).len(), 1, "{}", run.stderr);
    let written = strip_id_lines(&run.stdout);
    assert!(
        decodable.starts_with(&written),
        "the output is the decodable start of the input"
    );
    assert!(
        written.len() > last_game,
        "only {} of the {} bytes of complete games before the damage were written",
        written.len(),
        last_game + 1
    );
}
