//! What each fuzz target asserts, one function per target, shared by the
//! libFuzzer targets (`fuzz/fuzz_targets/`, which include this file with
//! `#[path]`) and by the stable harness in `tests/fuzz_regressions.rs`,
//! which runs them on every `cargo test` over the regression inputs, the
//! samples and a fixed number of random and mutated inputs. Each function
//! panics when its input breaks a promise; the first byte of the input is
//! the target's option byte.
//!
//! A module including this file must also include `tests/id_oracle.rs`
//! as `id_oracle` at its root.

use std::io::Write as _;

use pgn960::BackRank;
use pgn960::compression::Compression;
use pgn960::export::{Schema, batch_rows};
use pgn960::filter::{Filter, PositionSet, Router, select_batch, write_runs};
use pgn960::fix::{FixOptions, fix_batch};
use pgn960::game::{Kind, Reading};
use pgn960::input::{MmapChoice, Source, open};
use pgn960::pipeline::{PipelineConfig, run, run_reader_split_every};
use pgn960::position::{classify_fen, parse_placement, read_fen};
use pgn960::split::GameReader;
use pgn960::tag::{TagOptions, apply, strip_ids, tag_batch};
use pgn960::validate::{Code, Finding, ValidateOptions, validate_batch};

/// A batch size that holds all of `input` in one batch (a reader reserves
/// room for a batch, so no larger).
fn whole_input(input: &[u8]) -> usize {
    input.len() + 1
}

/// A target's check: panics when its input breaks a promise.
pub type Check = fn(&[u8]);

/// The targets, by name, as `fuzz/Cargo.toml` names them.
pub const TARGETS: [(&str, Check); 6] = [
    ("split_tag", split_tag),
    ("classify_tags", classify_tags),
    ("validate_bytes", validate_bytes),
    ("fix_bytes", fix_bytes),
    ("filter_bytes", filter_bytes),
    ("games_bytes", games_bytes),
];

/// The game splitter plus the tag rewrite, on arbitrary bytes.
///
/// Byte 0 chooses the options (bit 0 `include_standard`, bit 1 `fritz9`)
/// and the batch size (bits 2..8, 1 to 64 bytes, so that tiny batches cut
/// games at every possible place); the rest is the PGN.
///
/// Asserts: the batches' bytes concatenate to the input; the tagged output
/// differs from the input only in id tags and their line endings (by the
/// splitter's reading and by `tests/id_oracle.rs`, which reads only
/// bytes); tagging the output again gives the same bytes; the input
/// written to a file and read through the pipeline (which maps a file and
/// hands out stretches of the map) gives the same output, also when the
/// file is split on several threads at once from `[Event` lines (every
/// one, or a few bytes apart).
pub fn split_tag(data: &[u8]) {
    let Some((&head, input)) = data.split_first() else {
        return;
    };
    let options = TagOptions {
        include_standard: head & 1 != 0,
        fritz9: head & 2 != 0,
    };
    let batch_bytes = usize::from(head >> 2) + 1;

    let (joined, once) = tag(input, batch_bytes, options);
    assert!(
        joined == input,
        "the batches do not concatenate to the input"
    );
    assert!(
        strip_ids(&once) == strip_ids(input),
        "tagging changed bytes outside the id tags"
    );
    // The same, by an oracle that reads bytes without the splitter.
    if let Some(change) = crate::id_oracle::id_edits_only(input, &once) {
        panic!("{change}");
    }
    let (_, twice) = tag(&once, batch_bytes, options);
    assert!(twice == once, "tagging the output again changed it");
    for stretch in [usize::MAX, 1, 40] {
        if let Some(mapped) = tag_mapped(input, batch_bytes, options, stretch) {
            assert!(
                mapped == once,
                "a mapped file split from [Event lines {stretch} bytes apart tags differently \
                 from the same bytes streamed"
            );
        }
    }
}

/// Tags `input` written to a file, through the pipeline as the binary does
/// (split on several threads from `[Event` lines `stretch` bytes apart);
/// `None` when the file does not open as plain PGN (its first bytes are a
/// compression format's or another file type's magic) or holds a NUL byte.
fn tag_mapped(
    input: &[u8],
    batch_bytes: usize,
    options: TagOptions,
    stretch: usize,
) -> Option<Vec<u8>> {
    let mut file = tempfile::NamedTempFile::new_in("/dev/shm")
        .or_else(|_| tempfile::NamedTempFile::new())
        .expect("a temporary file");
    file.write_all(input).expect("writing a temporary file");
    // SAFETY: the target's own temporary file, which nothing else touches.
    let mmap = unsafe { MmapChoice::auto() };
    let opened = open(&Source::Path(file.path().to_path_buf()), mmap).ok()?;
    if opened.compression != Compression::None {
        return None;
    }
    let config = PipelineConfig {
        threads: 2,
        batch_bytes,
        line_numbers: false,
    };
    let mut out = Vec::with_capacity(input.len() + 64);
    let result = run_reader_split_every(
        opened.reader,
        config,
        stretch,
        |batch| tag_batch(batch, options),
        |batch, (edits, _counts)| apply(&batch.data, &edits, &mut out),
    );
    // PGN text holds no NUL byte: one past the first bytes ends the run.
    if input.contains(&0) {
        assert!(result.is_err(), "a NUL byte ends the reading");
        return None;
    }
    assert!(result.is_ok(), "reading a plain file in memory cannot fail");
    Some(out)
}

/// Tags `input`; returns the concatenated batch bytes and the output.
fn tag(input: &[u8], batch_bytes: usize, options: TagOptions) -> (Vec<u8>, Vec<u8>) {
    let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
    let mut joined = Vec::with_capacity(input.len());
    let mut out = Vec::with_capacity(input.len() + 64);
    while let Some(batch) = reader.next_batch().expect("reading a slice cannot fail") {
        joined.extend_from_slice(&batch.data);
        let (edits, _counts) = tag_batch(&batch, options);
        apply(&batch.data, &edits, &mut out).expect("writing to a Vec cannot fail");
    }
    (joined, out)
}

/// Start-position classification from arbitrary tag values.
///
/// Up to five values separated by 0xFF bytes, for `FEN`, a second `FEN`,
/// `Variant`, `SetUp` and `Chess960Id` (a missing value leaves its tag
/// out). They are escaped as PGN escapes tag values and put into a
/// one-game PGN.
///
/// Asserts: the game's reading, `read_fen`, `classify_fen` and
/// `parse_placement` do not panic; a back rank survives
/// `from_scharnagl(rank.scharnagl())`; and `validate` agrees with the
/// reading both ways: a game is unreadable exactly when it has a
/// `fen_unparsable` or `fen_conflict` finding (one way only when its two
/// `FEN`s differ: a readable one beside a broken one is read), and its
/// `Chess960Id` is
/// found wrong exactly when the game has a start array and the tag holds
/// a number other than the array's.
pub fn classify_tags(data: &[u8]) {
    let names = ["FEN", "FEN", "Variant", "SetUp", "Chess960Id"];
    let mut values = data.splitn(names.len(), |&b| b == 0xFF);
    let mut pgn = Vec::new();
    let mut id_value = None;
    for name in names {
        let Some(value) = values.next() else { break };
        // A line ending would end the tag line: keep each value on its line.
        if value.iter().any(|&b| b == b'\n' || b == b'\r') {
            return;
        }
        if name == "Chess960Id" {
            id_value = Some(value);
        }
        pgn.extend_from_slice(format!("[{name} \"").as_bytes());
        for &b in value {
            if b == b'"' || b == b'\\' {
                pgn.push(b'\\');
            }
            pgn.push(b);
        }
        pgn.extend_from_slice(b"\"]\n");
    }
    pgn.extend_from_slice(b"\n1. e4 *\n");

    let mut reader = GameReader::new(&pgn[..]);
    while let Some(batch) = reader.next_batch().expect("reading a slice cannot fail") {
        let findings = validate_batch(&batch, ValidateOptions::default()).findings;
        for game in &batch.games {
            let reading = Reading::of(&batch, game);
            if let Some(rank) = reading.back_rank() {
                check_rank(rank);
            }
            let codes: Vec<Code> = findings
                .iter()
                .filter(|f| f.game == game.index)
                .map(|f| f.code)
                .collect();
            let unreadable = codes
                .iter()
                .any(|c| matches!(c, Code::FenUnparsable | Code::FenConflict));
            // Both ways for one FEN (or two alike); a game with another,
            // readable FEN beside a broken one is read by the readable one,
            // the broken one still reported.
            let fens: Vec<&[u8]> = data.splitn(names.len(), |&b| b == 0xFF).take(2).collect();
            if reading.kind == Kind::Unreadable || fens.len() < 2 || fens[0] == fens[1] {
                assert_eq!(
                    reading.kind == Kind::Unreadable,
                    unreadable,
                    "the reading ({:?}) and the findings ({codes:?}) disagree on whether the \
                     game can be read",
                    reading.kind
                );
            }
            // A number other than the start array's is a wrong id.
            let other_number = match (reading.back_rank(), id_value) {
                (Some(rank), Some(value)) => std::str::from_utf8(value)
                    .ok()
                    .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
                    .is_some_and(|text| {
                        text.parse::<u64>()
                            .map_or(true, |number| number != u64::from(rank.scharnagl()))
                    }),
                _ => false,
            };
            if codes.contains(&Code::IdMismatch) {
                assert!(reading.back_rank().is_some(), "{reading:?}");
            }
            if other_number {
                assert!(
                    codes.contains(&Code::IdMismatch),
                    "Chess960Id {:?} for {:?}, and no id_mismatch: {codes:?}",
                    String::from_utf8_lossy(id_value.unwrap_or_default()),
                    reading.back_rank()
                );
            }
        }
    }
    for value in data.splitn(names.len(), |&b| b == 0xFF).take(2) {
        if let Ok(fen) = std::str::from_utf8(value) {
            let _ = classify_fen(fen);
            let _ = parse_placement(fen);
            let _ = read_fen(fen.as_bytes());
        }
    }
}

fn check_rank(rank: BackRank) {
    let id = rank.scharnagl();
    assert!(id < 960, "scharnagl {id} out of range for {rank:?}");
    assert_eq!(
        BackRank::from_scharnagl(u32::from(id)),
        Ok(rank),
        "scharnagl {id} does not give {rank:?} back"
    );
    let f9 = rank.fritz9();
    assert_eq!(BackRank::from_fritz9(u32::from(f9)), Ok(rank));
}

/// `validate` on arbitrary bytes: no panic, every finding names a game of
/// its batch and a line of at least 1, and the findings do not depend on
/// how the input is cut into batches: batches of 1 to 256 bytes, their
/// lines placed by the pipeline, report exactly what one batch of the
/// whole input reports.
///
/// Byte 0 chooses the batch size (1 to 256 bytes); the rest is the PGN.
pub fn validate_bytes(data: &[u8]) {
    let Some((&head, input)) = data.split_first() else {
        return;
    };
    let batch_bytes = usize::from(head) + 1;
    for moves in [true, false] {
        let options = ValidateOptions {
            moves,
            ..ValidateOptions::default()
        };
        let mut whole = GameReader::new(input).batch_bytes(whole_input(input));
        let mut expected = Vec::new();
        while let Some(batch) = whole.next_batch().expect("reading a slice cannot fail") {
            expected.extend(validate_batch(&batch, options).findings);
        }
        let config = PipelineConfig {
            threads: 2,
            batch_bytes,
            line_numbers: true,
        };
        let mut placed: Vec<Finding> = Vec::new();
        run(
            input,
            config,
            |batch| validate_batch(batch, options).findings,
            |batch, findings| {
                for mut finding in findings {
                    assert!(
                        batch.games.iter().any(|game| game.index == finding.game),
                        "finding for game {} outside the batch's games: {finding:?}",
                        finding.game
                    );
                    assert!(finding.line >= 1, "finding on line 0: {finding:?}");
                    finding.line = batch.input_line(finding.line);
                    placed.push(finding);
                }
                Ok::<_, ()>(())
            },
        )
        .expect("reading a slice cannot fail");
        assert!(
            placed == expected,
            "findings depend on the batches: {placed:?} vs {expected:?}"
        );
    }
}

/// Fixes `input` read in batches of `batch_bytes`: the output and the
/// number of repairs.
fn fix(input: &[u8], batch_bytes: usize) -> (Vec<u8>, u64) {
    let options = FixOptions::default();
    let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
    let mut out = Vec::with_capacity(input.len() + 64);
    let mut repairs = 0;
    while let Some(batch) = reader.next_batch().expect("reading a slice cannot fail") {
        let fixed = fix_batch(&batch, &options);
        apply(&batch.data, &fixed.edits, &mut out).expect("writing to a Vec cannot fail");
        repairs += fixed.counts.repairs();
    }
    (out, repairs)
}

/// `fix` on arbitrary bytes: no panic; the output does not depend on how
/// the input is cut into batches; an input it repairs nothing in passes
/// through unchanged; fixing the output again changes nothing.
///
/// Byte 0 chooses the batch size (1 to 256 bytes); the rest is the PGN.
pub fn fix_bytes(data: &[u8]) {
    let Some((&head, input)) = data.split_first() else {
        return;
    };
    let batch_bytes = usize::from(head) + 1;
    let (whole, repairs) = fix(input, whole_input(input));
    let (batched, batched_repairs) = fix(input, batch_bytes);
    assert!(
        batched == whole,
        "fix's output depends on batches of {batch_bytes} bytes"
    );
    assert_eq!(batched_repairs, repairs, "repairs counted per batch");
    if repairs == 0 {
        assert!(whole == input, "nothing repaired, yet the bytes changed");
    }
    let (again, _) = fix(&whole, batch_bytes);
    assert!(again == whole, "fixing the output again changed it");
}

/// `filter` on arbitrary bytes: no panic; a criterion and its inverse
/// part the input (each game goes to exactly one side, the bytes of no
/// game with the selected ones), both whatever the batches; every game
/// gets one verdict.
///
/// Byte 0: bit 0 `include_standard`; bits 1..8 choose the positions
/// wanted (ids `n`, `n + 128`, ... of the 960, `n` the bits' value); the
/// batch size is `byte + 1`. The rest is the PGN.
pub fn filter_bytes(data: &[u8]) {
    let Some((&head, input)) = data.split_first() else {
        return;
    };
    let batch_bytes = usize::from(head) + 1;
    let mut positions = PositionSet::EMPTY;
    for id in (u32::from(head >> 1)..960).step_by(128) {
        positions.insert(BackRank::from_scharnagl(id).expect("below 960"));
    }
    let mut chosen = Filter {
        include_standard: head & 1 != 0,
        ..Filter::default()
    };
    chosen.restrict_positions(positions);
    let inverse = Filter {
        invert: true,
        ..chosen.clone()
    };
    let selected = filter(input, &chosen, batch_bytes);
    let rejected = filter(input, &inverse, batch_bytes);
    assert!(
        selected == filter(input, &chosen, whole_input(input)),
        "filter's output depends on batches of {batch_bytes} bytes"
    );
    assert_eq!(
        selected.len() + rejected.len(),
        input.len(),
        "a criterion and its inverse do not part the input"
    );
}

/// What `filter` writes for `input` read in batches of `batch_bytes`.
fn filter(input: &[u8], filter: &Filter, batch_bytes: usize) -> Vec<u8> {
    let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
    // An input of no game goes where the selected games go, as in `filter`.
    let mut router = Router::new();
    if !filter.invert {
        router = router.no_game_to(());
    }
    let mut out = Vec::new();
    while let Some(batch) = reader.next_batch().expect("reading a slice cannot fail") {
        let verdicts = select_batch(&batch, filter);
        assert_eq!(verdicts.len(), batch.games.len(), "one verdict a game");
        let runs = router.runs(&batch, |i| verdicts[i].selected.then_some(()));
        write_runs(&batch.data, &runs, &mut out).expect("writing to a Vec cannot fail");
    }
    out
}

/// `games` (one row per game) on arbitrary bytes: no panic; one row a
/// game; the rows' kinds and plies do not depend on the batches.
///
/// Byte 0 chooses the batch size (1 to 256 bytes); the rest is the PGN.
pub fn games_bytes(data: &[u8]) {
    let Some((&head, input)) = data.split_first() else {
        return;
    };
    let batch_bytes = usize::from(head) + 1;
    let schema = Schema::default();
    let rows = |batch_bytes: usize| {
        let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
        let mut rows = Vec::new();
        while let Some(batch) = reader.next_batch().expect("reading a slice cannot fail") {
            let read = batch_rows(&batch, &schema);
            assert_eq!(read.rows.len(), batch.games.len(), "one row a game");
            assert_eq!(read.kinds.total(), batch.games.len() as u64);
            rows.extend(
                read.rows
                    .iter()
                    .zip(&batch.games)
                    .map(|(row, game)| (game.index, row.kind, row.plies)),
            );
        }
        rows
    };
    let whole = rows(whole_input(input));
    assert!(
        rows(batch_bytes) == whole,
        "games' rows depend on batches of {batch_bytes} bytes"
    );
}
