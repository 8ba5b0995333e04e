//! What `tag` may change, checked without the splitter: an oracle that
//! reads only bytes, so a splitter bug cannot hide itself by agreeing with
//! the code under test. Shared with the `split_tag` fuzz target.
//!
//! `tag` makes three kinds of edit: it inserts whole id lines
//! (`[Chess960Id "N"]` or `[Chess960Fritz9Id "N"]`, each with a line
//! ending), it replaces the value of an id tag with a number, and it
//! removes a repeated id tag alone on its line. Anything else in the
//! output that is not in the input is a lost or changed byte.

/// Where `tag` may edit an input, as the generator that wrote it
/// recorded: the input offsets where whole id lines may go in (a line
/// start inside a tag section: after a tag line or a comment line of its
/// own, or before the first tag line), each with the line ending the new
/// lines must take there, and the input ranges of the id tags' values it
/// may rewrite.
#[derive(Clone, Debug, Default)]
pub struct Places {
    /// Input offsets where id lines may be inserted, and their ending.
    pub inserts: Vec<(usize, &'static [u8])>,
    /// Input ranges of id tag values (between the quotes).
    pub values: Vec<std::ops::Range<usize>>,
}

/// Where `output` departs from `input` other than by `tag`'s two edits,
/// as a message naming the offsets; `None` when it does not.
///
/// Without a record of the tag sections, the edits are held to what a
/// tag can look like: a rewritten value belongs to a tag that starts its
/// line or follows a tag (`]`) or a comment (`}`) on it, not one inside a
/// comment (`{ [Chess960Id "5"] }`, `; [Chess960Id "5"]`); and an inserted
/// id line ends as the line before it or the line it goes before (or into)
/// does (no `\n` after a new id in a CRLF game).
pub fn id_edits_only(input: &[u8], output: &[u8]) -> Option<String> {
    edits_beside(input, output, None)
}

/// [`id_edits_only`], and every edit at a place the generator recorded
/// (`places`): id lines inserted only at its insertion points, values
/// rewritten only in its id tags.
pub fn id_edits_at(input: &[u8], output: &[u8], places: &Places) -> Option<String> {
    edits_beside(input, output, Some(places))
}

fn edits_beside(input: &[u8], output: &[u8], places: Option<&Places>) -> Option<String> {
    let (mut i, mut j) = (0, 0);
    // Bytes before `synced` (in the output) have been matched for good.
    let mut synced = 0;
    let mut refused = String::new();
    loop {
        while i < input.len() && j < output.len() && input[i] == output[j] {
            i += 1;
            j += 1;
        }
        if i == input.len() && j == output.len() {
            return None;
        }
        // A value being rewritten: the output since its last `[` reads as
        // an id tag's name and opening quote, then digits.
        if let Some((bracket, open)) = id_value_open(&output[synced..j]) {
            let value_start = synced + open;
            let back = j - value_start;
            let input_value = i - back;
            if let (Some(in_end), Some(out_end)) = (
                value_end(input, input_value),
                value_end(output, value_start),
            ) && output[value_start..out_end].iter().all(u8::is_ascii_digit)
                && out_end > value_start
                && (in_end, out_end) != (i, j)
            {
                let allowed = match places {
                    Some(places) => places.values.contains(&(input_value..in_end)),
                    None => tag_may_start(&output[..synced + bracket]),
                };
                if allowed {
                    i = in_end;
                    j = out_end;
                    synced = j;
                    continue;
                }
                refused = format!(
                    "; the value at input byte {input_value} is not {}",
                    if places.is_some() {
                        "in an id tag the generator wrote"
                    } else {
                        "in a tag (it is inside a comment or text)"
                    }
                );
            }
        }
        // Inserted id lines: the latest `[` at or before the departure
        // where whole id lines begin and the input resumes after them,
        // each line ending as the input's line before them does.
        let inserted = (synced..output.len().min(j + 1))
            .rev()
            .filter(|&at| output[at] == b'[')
            .find_map(|at| {
                let lines = id_lines(&output[at..]);
                let len: usize = lines.iter().map(|(len, _)| len).sum();
                let resumed_in = i.checked_sub(j - at)?;
                // The inserted lines end past the departure point.
                if len == 0 || at + len <= j {
                    return None;
                }
                let neighbours: Vec<&[u8]> = match places {
                    Some(places) => {
                        let Some(&(_, ending)) =
                            places.inserts.iter().find(|(at, _)| *at == resumed_in)
                        else {
                            refused = format!(
                                "; an id line inserted at input byte {resumed_in}, \
                                 not at a place the generator recorded in a tag section"
                            );
                            return None;
                        };
                        vec![ending]
                    }
                    None => [
                        ending_before(input, resumed_in),
                        ending_of_line_at(input, resumed_in),
                    ]
                    .into_iter()
                    .flatten()
                    .collect(),
                };
                if !neighbours.is_empty()
                    && let Some((_, ending)) = lines
                        .iter()
                        .find(|(_, ending)| !neighbours.contains(ending))
                {
                    refused = format!(
                        "; an id line inserted at input byte {resumed_in} ends with {:?}, \
                         the lines beside it with {:?}",
                        String::from_utf8_lossy(ending),
                        neighbours
                            .iter()
                            .map(|ending| String::from_utf8_lossy(ending))
                            .collect::<Vec<_>>()
                    );
                    return None;
                }
                Some((at, len, resumed_in))
            });
        if let Some((at, len, resumed_in)) = inserted {
            i = resumed_in;
            j = at + len;
            synced = j;
            continue;
        }
        // Without a record: a repeated id tag alone on its line, removed
        // with its line ending (a game keeps one id of each name).
        if places.is_none() {
            let input_synced = i - (j - synced);
            let removed = (input_synced..=i.min(input.len().saturating_sub(1)))
                .rev()
                .filter(|&at| at == 0 || matches!(input[at - 1], b'\n' | b'\r'))
                .find_map(|at| {
                    let len = any_id_line_len(&input[at..])?;
                    (at + len > i).then_some((at, len))
                });
            if let Some((at, len)) = removed {
                j -= i - at;
                i = at + len;
                synced = j;
                continue;
            }
        }
        return Some(format!(
            "input byte {i} ({:?}) and output byte {j} ({:?}) differ, and not by an id tag{refused}",
            String::from_utf8_lossy(&input[i..input.len().min(i + 40)]),
            String::from_utf8_lossy(&output[j..output.len().min(j + 40)]),
        ));
    }
}

/// The ending of the last line end in `bytes[..at]`, the line before a
/// line inserted at `at` (at a line start, or within a line, after a
/// result: `1. e4 *[Event`): `None` when there is none; an empty ending
/// (which no line has) when `at` falls between the `\r` and `\n` of a
/// CRLF.
fn ending_before(bytes: &[u8], at: usize) -> Option<&'static [u8]> {
    let head = &bytes[..at];
    if head.ends_with(b"\r") && bytes.get(at) == Some(&b'\n') {
        return Some(b"");
    }
    let last = head.iter().rposition(|&b| b == b'\n' || b == b'\r')?;
    Some(match head[last] {
        b'\n' if last > 0 && head[last - 1] == b'\r' => b"\r\n",
        b'\n' => b"\n",
        _ => b"\r",
    })
}

/// The line ending of the line that holds `at`, from `at` on; `None` when
/// it has none (the input's last line).
fn ending_of_line_at(bytes: &[u8], at: usize) -> Option<&'static [u8]> {
    let end = at + bytes[at..].iter().position(|&b| b == b'\n' || b == b'\r')?;
    Some(if bytes[end..].starts_with(b"\r\n") {
        b"\r\n"
    } else if bytes[end] == b'\n' {
        b"\n"
    } else {
        b"\r"
    })
}

/// Whether a tag may start right after `before`: at the start of a line
/// (or of the input, or after a byte-order mark), or after another tag
/// (`]`), a brace comment (`}`) or a game's result (a game may begin
/// there: `1. c4 * [Event ...`) on its line, spaces between.
pub fn tag_may_start(before: &[u8]) -> bool {
    let before = before.strip_suffix(b"\xef\xbb\xbf").unwrap_or(before);
    let spaces = before
        .iter()
        .rev()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let before = &before[..before.len() - spaces];
    if [&b"*"[..], b"1-0", b"0-1", b"1/2-1/2"]
        .iter()
        .any(|result| before.ends_with(result))
    {
        return true;
    }
    matches!(before.last(), None | Some(b'\n' | b'\r' | b']' | b'}'))
}

const NAMES: [&[u8]; 2] = [b"Chess960Id", b"Chess960Fritz9Id"];

/// If `text` ends inside an id tag's value — `[`, the name, spaces, `"`,
/// then digits — the offsets of the `[` and of the value's first byte.
fn id_value_open(text: &[u8]) -> Option<(usize, usize)> {
    let open = text.iter().rposition(|&b| b == b'[')?;
    let rest = &text[open + 1..];
    let rest = trim_start(rest);
    let name = NAMES.iter().find(|name| rest.starts_with(name))?;
    let after_name = trim_start(&rest[name.len()..]);
    let (&quote, value) = after_name.split_first()?;
    (quote == b'"' && value.iter().all(u8::is_ascii_digit))
        .then(|| (open, text.len() - value.len()))
}

/// The offset of the `"` that closes a value starting at `start` (a `\`
/// escapes the byte after it); `None` when the line ends first.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => return Some(at),
            b'\\' => at += 2,
            b'\n' | b'\r' => return None,
            _ => at += 1,
        }
    }
    None
}

/// The run of whole id lines (name, space, quoted number, `]`, line
/// ending) at the start of `bytes`: each line's length and line ending.
fn id_lines(bytes: &[u8]) -> Vec<(usize, &'static [u8])> {
    let mut lines = Vec::new();
    let mut len = 0;
    while let Some(line) = id_line(&bytes[len..]) {
        len += line.0;
        lines.push(line);
    }
    lines
}

fn id_line(bytes: &[u8]) -> Option<(usize, &'static [u8])> {
    let rest = bytes.strip_prefix(b"[")?;
    let name = NAMES.iter().find(|name| rest.starts_with(name))?;
    let rest = rest[name.len()..].strip_prefix(b" \"")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = rest[digits..].strip_prefix(b"\"]")?;
    let ending: &'static [u8] = if rest.starts_with(b"\r\n") {
        b"\r\n"
    } else if rest.first() == Some(&b'\n') {
        b"\n"
    } else if rest.first() == Some(&b'\r') {
        b"\r"
    } else {
        return None;
    };
    (digits > 0).then_some((1 + name.len() + 2 + digits + 2 + ending.len(), ending))
}

/// How long the id line (any value) at the start of `bytes` is, its line
/// ending included; `None` when none starts there.
fn any_id_line_len(bytes: &[u8]) -> Option<usize> {
    let rest = bytes.strip_prefix(b"[")?;
    let name = NAMES.iter().find(|name| rest.starts_with(name))?;
    let value = 1 + name.len() + 2;
    if !bytes.get(value - 2..value)?.eq(b" \"") {
        return None;
    }
    let close = value_end(bytes, value)?;
    let rest = bytes[close..].strip_prefix(b"\"]")?;
    let ending = if rest.starts_with(b"\r\n") {
        2
    } else if matches!(rest.first(), Some(b'\n' | b'\r')) {
        1
    } else {
        return None;
    };
    Some(close + 2 + ending)
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let spaces = bytes
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &bytes[spaces..]
}

#[cfg(test)]
mod tests {
    use super::{Places, id_edits_at, id_edits_only};

    #[test]
    fn inserted_lines_and_rewritten_values_are_allowed() {
        let input = b"[Event \"x\"]\r\n[Chess960Id \"517\"]\r\n\r\n1. e4 *\r\n[Event \"y\"]\n\n*\n";
        let output =
            b"[Event \"x\"]\r\n[Chess960Id \"5\"]\r\n[Chess960Fritz9Id \"12\"]\r\n\r\n1. e4 *\r\n\
                       [Chess960Id \"0\"]\r\n[Event \"y\"]\n\n*\n";
        assert_eq!(id_edits_only(input, output), None);
        assert_eq!(id_edits_only(input, input), None);
        // An id line inserted at the very end, or between equal lines.
        assert_eq!(
            id_edits_only(b"[A \"1\"]\n", b"[A \"1\"]\n[Chess960Id \"9\"]\n"),
            None
        );
        // A repeated id tag alone on its line removed.
        assert_eq!(
            id_edits_only(
                b"[A \"1\"]\n[Chess960Id \"5\"]\n[Chess960Id \"  7 \"]\n\n*\n",
                b"[A \"1\"]\n[Chess960Id \"5\"]\n\n*\n"
            ),
            None
        );
        assert_eq!(
            id_edits_only(
                b"[A \"1\"]\n[A \"1\"]\n",
                b"[A \"1\"]\n[Chess960Id \"9\"]\n[A \"1\"]\n"
            ),
            None
        );
    }

    #[test]
    fn any_other_change_is_found() {
        let input = b"[Event \"x\"]\n[Chess960Id \"517\"]\n\n1. e4 { [Chess960Id \"4\"] } *\n";
        for output in [
            &b"[Event \"y\"]\n[Chess960Id \"517\"]\n\n1. e4 { [Chess960Id \"4\"] } *\n"[..],
            b"[Event \"x\"]\n[Chess960Id \"517\"]\n\n1. e4 { [Chess960Id \"4\"] } *",
            b"[Event \"x\"]\n[Chess960Id \"517\"]\n1. e4 { [Chess960Id \"4\"] } *\n",
            b"[Event \"x\"]\n[Chess960Id \"5x\"]\n\n1. e4 { [Chess960Id \"4\"] } *\n",
            b"[Event \"x\"]\n[Chess960Id \"517\"]\n\n1. e4 { [Chess960Id \"4\"]\n } *\n",
            b"[Event \"x\"]\n[Chess960Id \"517\"]\n\n1. e4 { [Chess960Id \"4\"] } *\n[Chess960Id \"4\"]",
            b"[Event \"x\"]\n[Chess960Id \"517\"]\n\n1. e4 { [Chess960Id \"4\"] } *\n!",
            b"[Event \"x\"]\n[Chess960Id \"517\"]\n\n1. e4 { [Chess960Id \"4\"] } \n",
        ] {
            assert!(
                id_edits_only(input, output).is_some(),
                "missed: {:?}",
                String::from_utf8_lossy(output)
            );
        }
    }

    /// The bugs the first oracle let through: an id-shaped text in a
    /// comment, a `;` line or a `%` line rewritten; a new id line ending
    /// `\n` in a CRLF game.
    #[test]
    fn ids_in_comments_and_foreign_line_endings_are_found() {
        let input = b"[Event \"x\"]\r\n[FEN \"f\"]\r\n{ [Chess960Id \"5\"] }\r\n\r\n\
                      1. e4 { [Chess960Id \"6\"] } ; [Chess960Id \"7\"]\r\n% [Chess960Id \"8\"]\r\n*\r\n";
        let good = b"[Event \"x\"]\r\n[FEN \"f\"]\r\n[Chess960Id \"0\"]\r\n{ [Chess960Id \"5\"] }\r\n\r\n\
                     1. e4 { [Chess960Id \"6\"] } ; [Chess960Id \"7\"]\r\n% [Chess960Id \"8\"]\r\n*\r\n";
        assert_eq!(id_edits_only(input, good), None);
        let text = String::from_utf8_lossy(good).into_owned();
        for (from, to) in [
            ("{ [Chess960Id \"5\"]", "{ [Chess960Id \"0\"]"),
            ("{ [Chess960Id \"6\"]", "{ [Chess960Id \"0\"]"),
            ("; [Chess960Id \"7\"]", "; [Chess960Id \"0\"]"),
            ("% [Chess960Id \"8\"]", "% [Chess960Id \"0\"]"),
            ("[Chess960Id \"0\"]\r\n", "[Chess960Id \"0\"]\n"),
            ("[Chess960Id \"0\"]\r\n", "[Chess960Id \"0\"]\r"),
        ] {
            let bad = text.replacen(from, to, 1);
            assert!(
                id_edits_only(input, bad.as_bytes()).is_some(),
                "missed: {bad:?}"
            );
        }
        // A tag after another on one line, or after a comment, may be
        // rewritten.
        assert_eq!(
            id_edits_only(
                b"[A \"1\"] {c} [Chess960Id \"5\"]\n\n*\n",
                b"[A \"1\"] {c} [Chess960Id \"9\"]\n\n*\n"
            ),
            None
        );
    }

    /// With the generator's record, edits only at the places it names:
    /// not after the blank line, not inside a comment on lines of its own.
    #[test]
    fn edits_are_held_to_the_recorded_places() {
        let input = b"[Event \"x\"]\n{\n[Chess960Id \"5\"]\n}\n[Chess960Id \"7\"]\n\n*\n";
        let value = input.windows(2).rposition(|w| w == b"7\"").expect("the 7");
        let section_end = input.len() - 3;
        let places = Places {
            inserts: vec![(12, b"\n"), (section_end, b"\n")],
            values: std::iter::once(value..value + 1).collect(),
        };
        let fine = b"[Event \"x\"]\n{\n[Chess960Id \"5\"]\n}\n[Chess960Id \"3\"]\n[Chess960Fritz9Id \"9\"]\n\n*\n";
        assert_eq!(id_edits_at(input, fine, &places), None);
        for bad in [
            // The id-shaped line inside the comment rewritten.
            &b"[Event \"x\"]\n{\n[Chess960Id \"3\"]\n}\n[Chess960Id \"7\"]\n\n*\n"[..],
            // An id line inside the comment.
            b"[Event \"x\"]\n{\n[Chess960Fritz9Id \"9\"]\n[Chess960Id \"5\"]\n}\n[Chess960Id \"7\"]\n\n*\n",
            // An id line after the blank line.
            b"[Event \"x\"]\n{\n[Chess960Id \"5\"]\n}\n[Chess960Id \"7\"]\n\n[Chess960Fritz9Id \"9\"]\n*\n",
        ] {
            assert!(
                id_edits_at(input, bad, &places).is_some(),
                "missed: {:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
