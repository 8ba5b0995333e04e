//! Inputs the fuzzers found (`testdata/fuzz-regressions/`), replayed on
//! every test run. The first byte is the fuzz target's batch-size byte.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use pgn960::split::GameReader;
use pgn960::tag::{TagOptions, apply, tag_batch};
use pgn960::validate::{ValidateOptions, validate_batch};

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
                    let _ = validate_batch(&batch, ValidateOptions { moves });
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
