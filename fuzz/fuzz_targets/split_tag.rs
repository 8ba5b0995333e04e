//! The game splitter plus the tag rewrite, on arbitrary bytes.
//!
//! Input: byte 0 chooses the options (bit 0 `include_standard`, bit 1
//! `fritz9`) and the batch size (bits 2..8, 1 to 64 bytes, so that tiny
//! batches cut games at every possible place); the rest is the PGN.
//!
//! Asserts: the batches' bytes concatenate to the input; the tagged output
//! differs from the input only in id tags and their line endings; tagging
//! the output again gives the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgn960::split::GameReader;
use pgn960::tag::{TagOptions, apply, tag_batch};

fuzz_target!(|data: &[u8]| {
    let Some((&head, input)) = data.split_first() else {
        return;
    };
    let options = TagOptions {
        include_standard: head & 1 != 0,
        fritz9: head & 2 != 0,
    };
    let batch_bytes = usize::from(head >> 2) + 1;

    let (joined, once) = tag(input, batch_bytes, options);
    assert!(
        joined == input,
        "the batches do not concatenate to the input"
    );
    assert!(
        strip_id_lines(&once) == strip_id_lines(input),
        "tagging changed bytes outside the id tags"
    );
    let (_, twice) = tag(&once, batch_bytes, options);
    assert!(twice == once, "tagging the output again changed it");
});

/// Tags `input`; returns the concatenated batch bytes and the output.
fn tag(input: &[u8], batch_bytes: usize, options: TagOptions) -> (Vec<u8>, Vec<u8>) {
    let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
    let mut joined = Vec::with_capacity(input.len());
    let mut out = Vec::with_capacity(input.len() + 64);
    while let Some(batch) = reader.next_batch().expect("reading a slice cannot fail") {
        joined.extend_from_slice(&batch.data);
        let (edits, _counts) = tag_batch(&batch, options);
        apply(&batch.data, &edits, &mut out).expect("writing to a Vec cannot fail");
    }
    (joined, out)
}

/// Removes every `[Chess960Id "..."]` and `[Chess960Fritz9Id "..."]` pair
/// with the line ending right after it (`\r\n`, `\n` or `\r`).
///
/// `tests/common.rs` `strip_id_lines`, widened to every spelling the splitter
/// reads as one of these tags and `tag` therefore rewrites: the name in any
/// ASCII case, spaces or tabs after `[`, around the name and before `]`, and a
/// value whose closing quote is found as `split::parse_tag` finds it (the
/// first unescaped `"`, else the first `"` followed by `]`).
fn strip_id_lines(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(i) = bytes[from..].iter().position(|&b| b == b'[') {
        let start = from + i;
        from = start + 1;
        let Some(end) = id_pair_end(bytes, start) else {
            continue;
        };
        let mut end = end;
        if bytes[end..].starts_with(b"\r\n") {
            end += 2;
        } else if matches!(bytes.get(end), Some(b'\n' | b'\r')) {
            end += 1;
        }
        out.extend_from_slice(&bytes[copied..start]);
        copied = end;
        from = end;
    }
    out.extend_from_slice(&bytes[copied..]);
    out
}

/// If an id tag pair starts at `bytes[start]` (a `[`), the offset after its `]`.
fn id_pair_end(bytes: &[u8], start: usize) -> Option<usize> {
    let spaces = |mut at: usize| {
        while matches!(bytes.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        at
    };
    let name_start = spaces(start + 1);
    let mut name_end = name_start;
    while name_end < bytes.len()
        && !matches!(bytes[name_end], b' ' | b'\t' | b'"' | b']' | b'\n' | b'\r')
    {
        name_end += 1;
    }
    let name = &bytes[name_start..name_end];
    if !name.eq_ignore_ascii_case(b"Chess960Id") && !name.eq_ignore_ascii_case(b"Chess960Fritz9Id")
    {
        return None;
    }
    let eol = bytes[name_end..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map_or(bytes.len(), |i| name_end + i);
    let line = &bytes[..eol];
    let quote = name_end
        + line[name_end..]
            .iter()
            .position(|&b| b == b'"' || b == b']')?;
    if line[quote] == b']' {
        return None;
    }
    let value_start = quote + 1;
    let closes = |q: usize| line.get(spaces(q + 1)) == Some(&b']');
    let mut at = value_start;
    let mut first = None;
    while at < eol {
        match line[at] {
            b'\\' => at += 2,
            b'"' => {
                first = Some(at);
                break;
            }
            _ => at += 1,
        }
    }
    let close = first.filter(|&q| closes(q)).or_else(|| {
        let from = first.unwrap_or(value_start);
        (from..eol).find(|&q| line[q] == b'"' && closes(q))
    })?;
    Some(spaces(close + 1) + 1)
}
