//! Where a `FEN` tag's castling field is among its value's bytes, so that
//! `--castling` rewrites that field and no other byte.
//!
//! Fields are found as `read_fen` finds them: the value trimmed, then
//! split at spaces and underscores (some writers join fields with `_`).

use std::ops::Range;

/// The byte range of the third field (the castling field) of a raw `FEN`
/// value, when it has one.
pub(super) fn castling_field(raw: &[u8]) -> Option<Range<usize>> {
    let is_separator = |b: u8| b == b' ' || b == b'_';
    let start = raw.iter().position(|b| !b.is_ascii_whitespace())?;
    let end = raw.iter().rposition(|b| !b.is_ascii_whitespace())? + 1;
    let mut fields = 0;
    let mut at = start;
    while at < end {
        if is_separator(raw[at]) {
            at += 1;
            continue;
        }
        let field_end = raw[at..end]
            .iter()
            .position(|&b| is_separator(b))
            .map_or(end, |i| at + i);
        fields += 1;
        if fields == 3 {
            return Some(at..field_end);
        }
        at = field_end;
    }
    None
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
}
