//! `validate` on arbitrary bytes: no panic, every finding names a game of
//! its batch and a line of at least 1, and batches that count their own
//! lines (`validate_batch_counting_lines`, placed by `LineNumbers`) report
//! exactly what batches numbered by the reader do.
//!
//! Input: byte 0 chooses the batch size (1 to 256 bytes); the rest is the PGN.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgn960::split::GameReader;
use pgn960::validate::{
    LineNumbers, ValidateOptions, validate_batch, validate_batch_counting_lines,
};

fuzz_target!(|data: &[u8]| {
    let Some((&head, input)) = data.split_first() else {
        return;
    };
    let batch_bytes = usize::from(head) + 1;
    for moves in [true, false] {
        let options = ValidateOptions { moves };
        let mut numbered = GameReader::new(input).batch_bytes(batch_bytes);
        let mut unnumbered = GameReader::new(input)
            .batch_bytes(batch_bytes)
            .line_numbers(false);
        let mut lines = LineNumbers::default();
        while let Some(batch) = numbered.next_batch().expect("reading a slice cannot fail") {
            let findings = validate_batch(&batch, options);
            for finding in &findings {
                assert!(
                    batch.games.iter().any(|game| game.index == finding.game),
                    "finding for game {} outside the batch's games: {finding:?}",
                    finding.game
                );
                assert!(finding.line >= 1, "finding on line 0: {finding:?}");
            }
            let same = unnumbered
                .next_batch()
                .expect("reading a slice cannot fail")
                .expect("line numbers do not change the batches");
            let counted = lines.place(validate_batch_counting_lines(&same, options));
            assert!(
                counted == findings,
                "lines counted by the batch differ: {counted:?} vs {findings:?}"
            );
        }
    }
});
