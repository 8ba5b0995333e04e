//! Inputs the fuzzers found (`testdata/fuzz-regressions/`), replayed on
//! every test run. The first byte is the fuzz target's option byte; the
//! files are named after the target that found them.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use pgn960::split::GameReader;
use pgn960::tag::{TagOptions, apply, strip_ids, tag_batch};
use pgn960::validate::{ValidateOptions, validate_batch};

use crate::common::bytes_diff;
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
