//! Tag lines: where one ends, and the tag pairs on it, read exactly as the
//! scanner needs them (hostile values included: unescaped quotes, stray
//! backslashes, brackets inside values, lines without an end).

use std::ops::Range;

use memchr::memchr2;

use super::block::{BLOCK, ends_name, ends_value, tag_line_masks};
use super::types::TagSpan;

/// A tag line longer than this (from its `[`) is not held to be read: it
/// is skipped whole, and its game read as one whose tags are not all
/// known, so that a hostile "tag" cannot make the splitter buffer without
/// limit. As long as the longest game held whole (16 MiB by default).
pub(super) const MAX_TAG_LINE: usize = 16 << 20;

/// The UTF-8 byte-order mark, which a file may begin with: where such
/// files were joined, it stands at the start of a line before a tag pair.
pub(super) const BOM: &[u8; 3] = b"\xef\xbb\xbf";

/// The first offset from `at` that holds neither a blank (space or tab) nor
/// a byte of a [`BOM`]; `buf.len()` when the buffer ends first, a mark cut
/// by its end included.
pub(super) fn past_blanks_and_boms(buf: &[u8], mut at: usize) -> usize {
    while at < buf.len() {
        match buf[at] {
            b' ' | b'\t' => at += 1,
            b if b == BOM[0] => {
                let rest = &buf[at..buf.len().min(at + BOM.len())];
                if !BOM.starts_with(rest) {
                    return at;
                }
                if rest.len() < BOM.len() {
                    return buf.len();
                }
                at += BOM.len();
            }
            _ => return at,
        }
    }
    at
}

/// Whether `bytes` are blanks (spaces and tabs) and whole [`BOM`]s only:
/// what may stand between a line's start and a tag pair.
pub(super) fn only_blanks(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    while let Some(&last) = rest.last() {
        rest = match last {
            b' ' | b'\t' => &rest[..rest.len() - 1],
            _ if rest.ends_with(BOM) => &rest[..rest.len() - BOM.len()],
            _ => return false,
        };
    }
    true
}

/// Where the line holding `at` ends, as far as the buffer can tell.
pub(super) enum LineEnd {
    /// At this offset (its `\n` or `\r`, or the end of input); a `\r` is
    /// followed by its next byte, so `\r\n` is told from `\r`.
    At(usize),
    /// Not yet in the buffer: read more.
    NeedMore,
    /// Longer than any tag line may be: not a tag line.
    TooLong,
}

/// What the line end found at `eol` (or none in the buffer) means for a
/// line holding `at`.
///
/// Whether a line is too long depends on its length alone, never on how
/// much of the input is in the buffer: readers that fill their buffers
/// differently (see [`GameReader::end_at_boundaries`]) must agree.
pub(super) fn line_end_at(buf: &[u8], at: usize, eol: Option<usize>, eof: bool) -> LineEnd {
    let end = eol.unwrap_or(buf.len());
    if end - at >= MAX_TAG_LINE {
        return LineEnd::TooLong;
    }
    match eol {
        Some(eol) if buf[eol] == b'\r' && eol + 1 == buf.len() && !eof => LineEnd::NeedMore,
        Some(eol) => LineEnd::At(eol),
        None if eof => LineEnd::At(buf.len()),
        None => LineEnd::NeedMore,
    }
}

/// The end of the line holding `from`: the offset of its `\n` or `\r`.
pub(super) fn find_line_end(buf: &[u8], from: usize) -> Option<usize> {
    memchr2(b'\n', b'\r', &buf[from..]).map(|i| from + i)
}

/// A tag line of the plainest shape, `[Name "value"]` right before its
/// line end, as most are.
pub(super) struct PlainTagLine {
    pub name: Range<usize>,
    pub value: Range<usize>,
    /// The line end, just after the `]`.
    pub eol: usize,
}

/// Longest plain tag line read by [`plain_tag_line`]; longer ones take the
/// general way.
const PLAIN_TAG_LINE: usize = 4 << 10;

/// Reads the line from the `[` at `at` in one pass when it is a plain tag
/// line: no blanks around the name, one space before the value, no
/// backslash or quote inside it, `"]` and the line end right after (a `\r`
/// followed by its next byte or the end of input). The reading is exactly
/// that of [`Scanner::line_end`], [`tag_name_at`] and [`parse_tag`], which
/// read every other line.
pub(super) fn plain_tag_line(buf: &[u8], at: usize, eof: bool) -> Option<PlainTagLine> {
    let line = &buf[at..buf.len().min(at + PLAIN_TAG_LINE)];
    let first = *line.get(1)?;
    if !(first.is_ascii_alphanumeric() || first == b'_') {
        return None;
    }
    // Where the name and the value end, off the masks of the line's first
    // 64 bytes (most lines are shorter), else byte by byte past them.
    let [name_stops, value_stops] = tag_line_masks(line);
    let name_end = first_stop(line, 1, name_stops, ends_name)?;
    if line.get(name_end..name_end + 2)? != b" \"" {
        return None;
    }
    let value_start = name_end + 2;
    let close = first_stop(line, value_start, value_stops, ends_value)?;
    if line[close] != b'"' || line.get(close + 1) != Some(&b']') {
        return None;
    }
    let eol = close + 2;
    match line.get(eol) {
        Some(b'\n') => {}
        Some(b'\r') if at + eol + 1 < buf.len() || eof => {}
        _ => return None,
    }
    Some(PlainTagLine {
        name: at + 1..at + name_end,
        value: at + value_start..at + close,
        eol: at + eol,
    })
}

/// The first offset of `line` from `from` whose byte is a stop: off
/// `stops`, the mask of the line's first [`BLOCK`] bytes, and past them
/// by `is_stop`.
fn first_stop(line: &[u8], from: usize, stops: u64, is_stop: fn(u8) -> bool) -> Option<usize> {
    let within = if from < BLOCK {
        stops & (!0 << from)
    } else {
        0
    };
    if within != 0 {
        return Some(within.trailing_zeros() as usize);
    }
    let rest = from.max(BLOCK);
    let found = line.get(rest..)?.iter().position(|&b| is_stop(b))?;
    Some(rest + found)
}

/// If `buf[at]` is `[` opening a tag pair, the range of its name.
pub(super) fn tag_name_at(buf: &[u8], at: usize) -> Option<Range<usize>> {
    let mut start = at + 1;
    while start < buf.len() && (buf[start] == b' ' || buf[start] == b'\t') {
        start += 1;
    }
    let first = *buf.get(start)?;
    if !(first.is_ascii_alphanumeric() || first == b'_') {
        return None;
    }
    let mut end = start;
    while end < buf.len() && !matches!(buf[end], b' ' | b'\t' | b'"' | b']' | b'\n' | b'\r') {
        end += 1;
    }
    Some(start..end)
}

/// Parses one tag pair whose name is `name`, within the line ending at
/// `eol`. Returns the pair and the offset after it.
pub(super) fn parse_tag(buf: &[u8], name: Range<usize>, eol: usize) -> (TagSpan, usize) {
    let line = &buf[..eol];
    let Some(quote) = memchr2(b'"', b']', &line[name.end..]).map(|i| name.end + i) else {
        let tag = TagSpan {
            name,
            value: eol..eol,
            well_formed: false,
            end: eol,
        };
        return (tag, eol);
    };
    if line[quote] == b']' {
        // `[Name]` with no value.
        let tag = TagSpan {
            name,
            value: quote..quote,
            well_formed: false,
            end: quote + 1,
        };
        return (tag, quote + 1);
    }
    let value_start = quote + 1;
    // The closing quote honours `\"` and `\\`.
    let mut at = value_start;
    let mut close = None;
    while let Some(i) = memchr2(b'"', b'\\', &line[at..]) {
        let hit = at + i;
        if line[hit] == b'\\' {
            at = (hit + 2).min(eol);
        } else {
            close = Some(hit);
            break;
        }
    }
    // A closing quote must be followed by `]`; when it is not, the value
    // holds unescaped quotes (or a stray backslash): take the next quote
    // that is followed by `]`.
    let closes_pair = |q: usize| after_spaces(line, q + 1).is_some_and(|k| line[k] == b']');
    let close = close.filter(|&q| closes_pair(q)).or_else(|| {
        let from = close.unwrap_or(value_start);
        memchr::memchr_iter(b'"', &line[from..])
            .map(|i| from + i)
            .find(|&q| q >= value_start && closes_pair(q))
    });
    match close {
        Some(q) => {
            let ket = after_spaces(line, q + 1).expect("closes_pair checked a `]` follows");
            let tag = TagSpan {
                name,
                value: value_start..q,
                well_formed: true,
                end: ket + 1,
            };
            (tag, ket + 1)
        }
        None => {
            let tag = TagSpan {
                name,
                value: value_start..eol,
                well_formed: false,
                end: eol,
            };
            (tag, eol)
        }
    }
}

/// The first offset at or after `from` that is not a space or tab.
fn after_spaces(line: &[u8], from: usize) -> Option<usize> {
    (from..line.len()).find(|&i| line[i] != b' ' && line[i] != b'\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general reading of a line from the `[` at 0, when it holds one
    /// well-formed pair up to its line end: the name, the value and the
    /// line end.
    fn general(buf: &[u8], eof: bool) -> Option<(Range<usize>, Range<usize>, usize)> {
        let name = tag_name_at(buf, 0)?;
        let LineEnd::At(eol) = line_end_at(buf, 0, find_line_end(buf, 0), eof) else {
            return None;
        };
        let (tag, after) = parse_tag(buf, name.clone(), eol);
        (tag.well_formed && after == eol).then_some((name, tag.value, eol))
    }

    /// Whatever the one-pass reading takes, the general one reads the same
    /// (over every line made of the pieces below); and it does take the
    /// plain lines.
    #[test]
    fn the_plain_reading_is_the_general_reading() {
        let blanks = ["", " ", "\t"];
        // Names and values about as long as the masks' block (64 bytes),
        // so that a part ends within it, at its last byte or past it.
        let long_name = "N".repeat(62);
        let names = [
            "Event",
            "_1",
            "",
            "E\"v",
            "x]",
            &long_name,
            &long_name[..59],
            &long_name[..60],
            // Its value starts at the block's end.
            &long_name[..61],
        ];
        let openings = [" \"", "  \"", "\"", " \"\"", "\t\""];
        let long = "v".repeat(70);
        let values = [
            "",
            "x",
            "a b",
            "x\\\"y",
            "\\",
            "]",
            "\"",
            "\\\\",
            &long[..55],
            &long[..56],
            &long[..57],
            &long[..58],
            &long[..61],
            &long,
        ];
        let closings = ["\"]", "\" ]", "\"", "]", "\"]]", "\"]x"];
        let ends = ["\n", "\r", "\r\n", "", " \n", "\r["];
        let mut plain = 0;
        for blank in blanks {
            for name in names {
                for opening in openings {
                    for value in values {
                        for closing in closings {
                            for end in ends {
                                let line = format!("[{blank}{name}{opening}{value}{closing}{end}");
                                for eof in [true, false] {
                                    let Some(read) = plain_tag_line(line.as_bytes(), 0, eof) else {
                                        continue;
                                    };
                                    plain += 1;
                                    assert_eq!(
                                        general(line.as_bytes(), eof),
                                        Some((read.name, read.value, read.eol)),
                                        "{line:?}, eof {eof}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(plain > 50, "{plain} plain lines");
        let long_lines = [55, 56, 57, 58, 61, 70].map(|n| format!("[Event \"{}\"]\n", &long[..n]));
        let long_name = format!("[{long_name} \"x\"]\n");
        for line in ["[Event \"x\"]\n", "[_1 \"\"]\r\n", "[Event \"x\"]\r["]
            .into_iter()
            .chain(long_lines.iter().map(String::as_str))
            .chain([long_name.as_str()])
        {
            assert!(
                plain_tag_line(line.as_bytes(), 0, false).is_some(),
                "{line:?}"
            );
        }
        for line in [
            "[Event \"x\\]\n",
            "[Event \"x\"]",
            "[Event \"x\" ]\n",
            "[ Event \"x\"]\n",
        ] {
            assert!(
                plain_tag_line(line.as_bytes(), 0, false).is_none(),
                "{line:?}"
            );
        }
    }

    /// Blanks between the closing quote and the `]` (`[FEN "..." ]`) still
    /// close the pair; other bytes do not.
    #[test]
    fn blanks_may_stand_before_the_closing_bracket() {
        for line in ["[FEN \"x\" ]\n", "[FEN \"x\"\t ]\n", "[FEN \"x\"]\n"] {
            let (tag, after) = parse_tag(line.as_bytes(), 1..4, line.len() - 1);
            assert!(tag.well_formed, "{line:?}");
            assert_eq!(tag.value, 6..7, "{line:?}");
            assert_eq!(after, line.len() - 1, "{line:?}");
        }
        let line = b"[FEN \"x\" y]\n";
        let (tag, _) = parse_tag(line, 1..4, line.len() - 1);
        assert!(!tag.well_formed);
    }

    #[test]
    fn a_name_may_follow_blanks() {
        assert_eq!(tag_name_at(b"[ \tEvent \"x\"]", 0), Some(3..8));
        assert_eq!(tag_name_at(b"[ ", 0), None);
        assert_eq!(tag_name_at(b"[\"x\"]", 0), None);
    }
}
