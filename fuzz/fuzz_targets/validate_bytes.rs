//! `validate` on arbitrary bytes: no panic, and every finding names a game
//! of its batch and a line of at least 1.
//!
//! Input: byte 0 chooses the batch size (1 to 256 bytes); the rest is the PGN.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgn960::split::GameReader;
use pgn960::validate::{ValidateOptions, validate_batch};

fuzz_target!(|data: &[u8]| {
    let Some((&head, input)) = data.split_first() else {
        return;
    };
    let mut reader = GameReader::new(input).batch_bytes(usize::from(head) + 1);
    while let Some(batch) = reader.next_batch().expect("reading a slice cannot fail") {
        for moves in [true, false] {
            for finding in validate_batch(&batch, ValidateOptions { moves }) {
                assert!(
                    batch.games.iter().any(|game| game.index == finding.game),
                    "finding for game {} outside the batch's games: {finding:?}",
                    finding.game
                );
                assert!(finding.line >= 1, "finding on line 0: {finding:?}");
            }
        }
    }
});
