//! Where a `FEN` tag's castling field is among its value's bytes, so that
//! `--castling` rewrites that field and no other byte.
//!
//! Fields are found as `read_fen` finds them: the value trimmed, then
//! split at spaces and underscores (some writers join fields with `_`).

use std::ops::Range;

use crate::position::read_fen;

/// The byte ranges of a raw `FEN` value's fields, in order.
fn fields(raw: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let is_separator = |b: u8| b == b' ' || b == b'_';
    let end = raw
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |last| last + 1);
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < end && (is_separator(raw[at]) || raw[at].is_ascii_whitespace()) {
            at += 1;
        }
        if at == end {
            return None;
        }
        let field_end = raw[at..end]
            .iter()
            .position(|&b| is_separator(b))
            .map_or(end, |i| at + i);
        let field = at..field_end;
        at = field_end;
        Some(field)
    })
}

/// The byte range of the third field (the castling field) of a raw `FEN`
/// value, when it has one.
pub(super) fn castling_field(raw: &[u8]) -> Option<Range<usize>> {
    fields(raw).nth(2)
}

/// Whether two raw `FEN` values give the same position (castling rights
/// compared as rooks, so X-FEN and Shredder-FEN agree) with the same
/// clocks: one of them says nothing the other does not.
pub(super) fn same_start(one: &[u8], two: &[u8]) -> bool {
    let clocks = |raw| {
        fields(raw)
            .skip(4)
            .map(|field| &raw[field])
            .collect::<Vec<_>>()
    };
    let same_position = read_fen(one)
        .ok()
        .zip(read_fen(two).ok())
        .is_some_and(|(one, two)| one.same_position(&two));
    same_position && clocks(one) == clocks(two)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_third_field_however_the_fields_are_joined() {
        fn field(raw: &str) -> Option<&str> {
            castling_field(raw.as_bytes()).map(|range| &raw[range])
        }
        assert_eq!(
            field("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"),
            Some("KQkq")
        );
        assert_eq!(field("  a__b_HFhf_-"), Some("HFhf"));
        assert_eq!(field("a b c"), Some("c"));
        assert_eq!(field("a b "), None);
        assert_eq!(field("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR"), None);
        assert_eq!(field(""), None);
    }

    #[test]
    fn the_same_start_in_another_castling_notation_but_not_other_clocks() {
        let xfen = b"rbqknnbr/pppppppp/8/8/8/8/PPPPPPPP/RBQKNNBR w KQkq - 0 1";
        let shredder = b"rbqknnbr/pppppppp/8/8/8/8/PPPPPPPP/RBQKNNBR w HAha - 0 1";
        assert!(same_start(xfen, shredder));
        assert!(same_start(
            xfen,
            b" rbqknnbr/pppppppp/8/8/8/8/PPPPPPPP/RBQKNNBR_w_KQkq_-_0_1"
        ));
        assert!(!same_start(
            xfen,
            b"rbqknnbr/pppppppp/8/8/8/8/PPPPPPPP/RBQKNNBR w KQkq - 0 7"
        ));
        assert!(!same_start(
            xfen,
            b"rbqknnbr/pppppppp/8/8/8/8/PPPPPPPP/RBQKNNBR w Kkq - 0 1"
        ));
        assert!(!same_start(
            xfen,
            b"rbqknnrb/pppppppp/8/8/8/8/PPPPPPPP/RBQKNNRB w KQkq - 0 1"
        ));
        assert!(!same_start(b"not a fen", b"not a fen"));
    }
}
