//! Inputs the fuzzers found (`testdata/fuzz-regressions/`), replayed on
//! every test run. The first byte is the fuzz target's option byte; the
//! files are named after the target that found them.
//!
//! And a stable fuzz harness: every fuzz target's check
//! (`tests/fuzz_checks.rs`, the very functions the libFuzzer targets
//! call) run on the regression inputs, the small samples of `testdata/`,
//! and a fixed number of random and mutated inputs from a seeded
//! generator, so that CI runs every target on a stable toolchain within
//! seconds.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use pgn960::split::GameReader;
use pgn960::tag::{TagOptions, apply, strip_ids, tag_batch};
use pgn960::validate::{ValidateOptions, validate_batch};

use crate::common::bytes_diff;
use crate::fuzz_checks::TARGETS;
use crate::id_oracle::id_edits_only;

/// Tags `input` in batches of `batch_bytes`, as the `split_tag` target does.
fn tag_in_batches(input: &[u8], batch_bytes: usize, options: TagOptions) -> Vec<u8> {
    let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
    let mut out = Vec::new();
    while let Some(batch) = reader.next_batch().expect("in-memory input") {
        let (edits, _) = tag_batch(&batch, options);
        apply(&batch.data, &edits, &mut out).expect("writing to memory");
    }
    out
}

/// The `split_tag` findings: tagging is byte-exact outside the id tags and
/// tagging twice equals tagging once, with the target's options (the first
/// findings were games of a tags-only archive whose new id line, put before
/// their first tag, joined them to the game before on a second run; a later
/// one, text like an id tag in a comment, showed that "the id lines" must
/// be the tags the splitter reads, as `strip_ids` takes them).
#[test]
fn split_tag_findings_tag_byte_exact_and_idempotent() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fuzz-regressions");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("the regression folder") {
        let file = entry.expect("an entry").path();
        let name = file.file_name().expect("a name").to_string_lossy();
        if !name.starts_with("split_tag-") {
            continue;
        }
        let bytes = std::fs::read(&file).expect("readable");
        // The option byte, as the target reads it.
        let options = TagOptions {
            include_standard: bytes[0] & 1 != 0,
            fritz9: bytes[0] & 2 != 0,
        };
        let batch_bytes = usize::from(bytes[0] >> 2) + 1;
        let input = &bytes[1..];
        let once = tag_in_batches(input, batch_bytes, options);
        if let Some(diff) = bytes_diff(&strip_ids(&once), &strip_ids(input)) {
            panic!("{name}: tag changed other bytes: {diff}");
        }
        // The same, by an oracle that does not use the splitter.
        if let Some(change) = id_edits_only(input, &once) {
            panic!("{name}: {change}");
        }
        if let Some(diff) = bytes_diff(&tag_in_batches(&once, batch_bytes, options), &once) {
            panic!("{name}: tagging twice differs from tagging once: {diff}");
        }
        checked += 1;
    }
    assert!(checked > 0, "no split_tag finding in {}", dir.display());
}

#[test]
fn every_fuzz_finding_runs_quickly_through_every_command() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fuzz-regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the regression folder")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for file in files {
        let bytes = std::fs::read(&file).expect("readable");
        let input = bytes[1..].to_vec();
        let (done_tx, done_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = GameReader::new(&input[..]);
            let mut out = Vec::new();
            while let Some(batch) = reader.next_batch().expect("in-memory input") {
                for moves in [true, false] {
                    let _ = validate_batch(
                        &batch,
                        ValidateOptions {
                            moves,
                            ..ValidateOptions::default()
                        },
                    );
                }
                let (edits, _) = tag_batch(&batch, TagOptions::default());
                apply(&batch.data, &edits, &mut out).expect("writing to memory");
            }
            let _ = done_tx.send(());
        });
        assert!(
            done_rx.recv_timeout(Duration::from_secs(20)).is_ok(),
            "{} hangs or panics",
            file.display()
        );
    }
}

/// The generator's seed, unless `PGN960_FUZZ_SEED` names another (a
/// decimal number): a failure names its seed, so that it reproduces.
const FUZZ_SEED: u64 = 0x5eed_0960;

/// Random inputs and mutated inputs per target.
const RANDOM_INPUTS: usize = 150;
const MUTATED_INPUTS: usize = 150;

/// Each fuzz target's check over its regression inputs, the small PGN
/// files of `testdata/` (each behind a few option bytes), and
/// `RANDOM_INPUTS` inputs built of PGN's pieces and `MUTATED_INPUTS`
/// mutations of those inputs (bytes flipped, pieces inserted, stretches
/// deleted, repeated or spliced in from another input). A failing input
/// is written to `target/fuzz-harness/` and named with the seed.
#[test]
fn every_fuzz_target_on_seeds_random_and_mutated_inputs() {
    let seed = std::env::var("PGN960_FUZZ_SEED").map_or(FUZZ_SEED, |text| {
        text.parse()
            .unwrap_or_else(|_| panic!("PGN960_FUZZ_SEED={text:?} is no number"))
    });
    let samples = small_samples();
    assert!(samples.len() >= 20, "the small samples of testdata/");
    for (target, check) in TARGETS {
        let mut rng = SplitMix(seed ^ fnv(target.as_bytes()));
        let mut inputs = regression_inputs(target);
        for sample in &samples {
            for head in [0u8, 0x07, 0x42, 0xff] {
                inputs.push([&[head][..], sample].concat());
            }
        }
        if target == "classify_tags" {
            inputs.extend(tag_value_sets());
        }
        for _ in 0..RANDOM_INPUTS {
            inputs.push(random_input(&mut rng));
        }
        let seeds = inputs.len();
        for _ in 0..MUTATED_INPUTS {
            let base = inputs[rng.below(seeds)].clone();
            let other = inputs[rng.below(seeds)].clone();
            inputs.push(mutated(&mut rng, base, &other));
        }
        for (i, input) in inputs.iter().enumerate() {
            let outcome = std::panic::catch_unwind(|| check(input));
            if let Err(panic) = outcome {
                let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-harness");
                std::fs::create_dir_all(&dir).expect("a folder for the failing input");
                let file = dir.join(format!("{target}-seed{seed}-{i}.bin"));
                std::fs::write(&file, input).expect("the failing input written");
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(ToString::to_string))
                    .unwrap_or_default();
                panic!(
                    "fuzz target {target} failed on input {i} of seed {seed} \
                     (PGN960_FUZZ_SEED={seed} reproduces it; the input is {}): {message}",
                    file.display()
                );
            }
        }
    }
}

/// `classify_tags` inputs that reach its checks, which random bytes
/// seldom do: each a `FEN` (a Chess960 start, the standard one, another
/// Chess960 one with Shredder castling, a Double FRC one, a set-up
/// position, a broken one), the same again as the second `FEN`, a
/// `Variant`, a `SetUp` and a `Chess960Id` (right for one of the starts, wrong, not a number),
/// separated by 0xFF. 6 × 3 × 2 × 5 inputs.
fn tag_value_sets() -> Vec<Vec<u8>> {
    let fens: [&[u8]; 6] = [
        b"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        b"nrbbkrqn/pppppppp/8/8/8/8/PPPPPPPP/NRBBKRQN w HFhf - 0 1",
        b"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
    ];
    let mut sets = Vec::new();
    for fen in fens {
        for variant in [&b"Chess960"[..], b"fischerandom", b"Standard"] {
            for setup in [&b"1"[..], b"0"] {
                for id in [&b"0"[..], b"518", b"17", b"959", b"x"] {
                    sets.push([fen, fen, variant, setup, id].join(&0xFF));
                }
            }
        }
    }
    sets
}

/// The regression inputs of `target`, whole (option byte first).
fn regression_inputs(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fuzz-regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the regression folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with(&format!("{target}-")))
        })
        .collect();
    files.sort();
    files
        .iter()
        .map(|file| std::fs::read(file).expect("readable"))
        .collect()
}

/// The PGN files of `testdata/` of at most 8 KiB, sorted by path.
fn small_samples() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    crate::common::pgn_files_below(&root)
        .into_iter()
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "pgn")
                && std::fs::metadata(path).is_ok_and(|meta| meta.len() <= 8 << 10)
        })
        .map(|path| std::fs::read(path).expect("readable"))
        .collect()
}

/// The pieces random inputs are made of: PGN's syntax, the boundaries of
/// the splitter, tag values the readings decide on, and the 0xFF that
/// separates `classify_tags`' values.
const PIECES: [&[u8]; 40] = [
    b"[Event \"",
    b"[Site \"x\"]",
    b"[FEN \"",
    b"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
    b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    b"nrbbkrqn/pppppppp/8/8/8/8/PPPPPPPP/NRBBKRQN w HFhf - 0 1",
    b"[Variant \"",
    b"Chess960",
    b"fischerandom",
    b"[SetUp \"1\"]",
    b"[Chess960Id \"",
    b"[Chess960Fritz9Id \"",
    b"518",
    b"17",
    b"\"]",
    b"\n",
    b"\r\n",
    b"\r",
    b"\n\n",
    b" ",
    b"{",
    b"}",
    b";",
    b"%",
    b"(",
    b")",
    b"1. e4 e5 2. Nf3",
    b"O-O",
    b"h6*",
    b"1-0",
    b"1/2-1/2",
    b"*",
    b"\\\"",
    b"$1",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\x00",
    b"M\xfcller",
    b"[%clk 0:01:00]",
    b"\t",
];

/// An option byte, then up to 40 pieces.
fn random_input(rng: &mut SplitMix) -> Vec<u8> {
    let mut input = vec![rng.byte()];
    for _ in 0..rng.below(40) {
        input.extend_from_slice(PIECES[rng.below(PIECES.len())]);
    }
    input
}

/// `base` changed one to four times.
fn mutated(rng: &mut SplitMix, mut base: Vec<u8>, other: &[u8]) -> Vec<u8> {
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(base.len() + 1);
        match rng.below(5) {
            0 if at < base.len() => base[at] ^= 1 << rng.below(8),
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                base.splice(at..at, piece.iter().copied());
            }
            2 => {
                let end = (at + rng.below(16)).min(base.len());
                base.drain(at..end);
            }
            3 => {
                let end = (at + rng.below(64)).min(base.len());
                let stretch = base[at..end].to_vec();
                base.splice(at..at, stretch);
            }
            _ => {
                let from = rng.below(other.len() + 1);
                let end = (from + rng.below(256)).min(other.len());
                base.splice(at..at, other[from..end].iter().copied());
            }
        }
    }
    base
}

/// A small seeded generator (SplitMix64), the same on every platform.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn byte(&mut self) -> u8 {
        self.next().to_le_bytes()[0]
    }
}

/// FNV-1a, to give each target its own stream from one seed.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
