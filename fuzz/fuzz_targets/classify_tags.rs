//! Start-position classification from arbitrary tag values.
//!
//! Input: up to four values separated by 0xFF bytes, for `FEN`, a second
//! `FEN`, `Variant` and `SetUp` (a missing value leaves its tag out). They
//! are escaped as PGN escapes tag values and put into a one-game PGN.
//!
//! Asserts: the game's reading, `read_fen`, `classify_fen` and
//! `parse_placement` do not panic; a back rank survives
//! `from_scharnagl(rank.scharnagl())`; and `validate` agrees with the
//! reading: an unreadable game is one with a `fen_unparsable` or
//! `fen_conflict` finding, and only a game with a start array can have its
//! `Chess960Id` found wrong.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgn960::BackRank;
use pgn960::game::{Kind, Reading};
use pgn960::position::{classify_fen, parse_placement, read_fen};
use pgn960::split::GameReader;
use pgn960::validate::{Code, ValidateOptions, validate_batch};

fuzz_target!(|data: &[u8]| {
    let mut values = data.splitn(4, |&b| b == 0xFF);
    let names = ["FEN", "FEN", "Variant", "SetUp"];
    let mut pgn = Vec::new();
    for name in names {
        let Some(value) = values.next() else { break };
        // A line ending would end the tag line: keep each value on its line.
        if value.iter().any(|&b| b == b'\n' || b == b'\r') {
            return;
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
            if reading.kind == Kind::Unreadable {
                assert!(unreadable, "an unreadable game without a finding: {codes:?}");
            }
            if codes.contains(&Code::IdMismatch) {
                assert!(reading.back_rank().is_some(), "{reading:?}");
            }
        }
    }
    for value in data.splitn(4, |&b| b == 0xFF).take(2) {
        if let Ok(fen) = std::str::from_utf8(value) {
            let _ = classify_fen(fen);
            let _ = parse_placement(fen);
            let _ = read_fen(fen.as_bytes());
        }
    }
});

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
