//! `validate` on arbitrary bytes: no panic, every finding names a game of
//! its batch and a line of at least 1, and the findings do not depend on
//! how the input is cut into batches: batches of 1 to 256 bytes, their
//! lines placed by the pipeline, report exactly what one batch of the
//! whole input reports.
//!
//! Input: byte 0 chooses the batch size (1 to 256 bytes); the rest is the PGN.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgn960::pipeline::{PipelineConfig, run};
use pgn960::split::GameReader;
use pgn960::validate::{Finding, ValidateOptions, validate_batch};

fuzz_target!(|data: &[u8]| {
    let Some((&head, input)) = data.split_first() else {
        return;
    };
    let batch_bytes = usize::from(head) + 1;
    for moves in [true, false] {
        let options = ValidateOptions {
            moves,
            ..ValidateOptions::default()
        };
        let mut whole = GameReader::new(input).batch_bytes(usize::MAX);
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
        run(input, config, |batch| validate_batch(batch, options).findings, |batch, findings| {
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
        })
        .expect("reading a slice cannot fail");
        assert!(
            placed == expected,
            "findings depend on the batches: {placed:?} vs {expected:?}"
        );
    }
});
