//! What `tag` may change, checked without the splitter: an oracle that
//! reads only bytes, so a splitter bug cannot hide itself by agreeing with
//! the code under test. Shared with the `split_tag` fuzz target.
//!
//! `tag` makes two kinds of edit: it inserts whole id lines
//! (`[Chess960Id "N"]` or `[Chess960Fritz9Id "N"]`, each with a line
//! ending), and it replaces the value of an id tag with a number. Anything
//! else in the output that is not in the input is a lost or changed byte.

/// Where `output` departs from `input` other than by `tag`'s two edits,
/// as a message naming the offsets; `None` when it does not.
pub fn id_edits_only(input: &[u8], output: &[u8]) -> Option<String> {
    let (mut i, mut j) = (0, 0);
    // Bytes before `synced` (in the output) have been matched for good.
    let mut synced = 0;
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
        if let Some(open) = id_value_open(&output[synced..j]) {
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
                i = in_end;
                j = out_end;
                synced = j;
                continue;
            }
        }
        // Inserted id lines: the latest `[` at or before the departure
        // where whole id lines begin and the input resumes after them.
        let inserted = (synced..output.len().min(j + 1))
            .rev()
            .filter(|&at| output[at] == b'[')
            .find_map(|at| {
                let len = id_lines_len(&output[at..])?;
                let resumed_in = i - (j - at);
                // The inserted lines end past the departure point.
                (at + len > j).then_some((at, len, resumed_in))
            });
        if let Some((at, len, resumed_in)) = inserted {
            i = resumed_in;
            j = at + len;
            synced = j;
            continue;
        }
        return Some(format!(
            "input byte {i} ({:?}) and output byte {j} ({:?}) differ, and not by an id tag",
            String::from_utf8_lossy(&input[i..input.len().min(i + 40)]),
            String::from_utf8_lossy(&output[j..output.len().min(j + 40)]),
        ));
    }
}

const NAMES: [&[u8]; 2] = [b"Chess960Id", b"Chess960Fritz9Id"];

/// If `text` ends inside an id tag's value — `[`, the name, spaces, `"`,
/// then digits — the offset of the value's first byte.
fn id_value_open(text: &[u8]) -> Option<usize> {
    let open = text.iter().rposition(|&b| b == b'[')?;
    let rest = &text[open + 1..];
    let rest = trim_start(rest);
    let name = NAMES.iter().find(|name| rest.starts_with(name))?;
    let after_name = trim_start(&rest[name.len()..]);
    let (&quote, value) = after_name.split_first()?;
    (quote == b'"' && value.iter().all(u8::is_ascii_digit)).then(|| text.len() - value.len())
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

/// How long the run of whole id lines (name, space, quoted number, `]`,
/// line ending) at the start of `bytes` is; `None` when none starts there.
fn id_lines_len(bytes: &[u8]) -> Option<usize> {
    let mut len = 0;
    while let Some(line) = id_line_len(&bytes[len..]) {
        len += line;
    }
    (len > 0).then_some(len)
}

fn id_line_len(bytes: &[u8]) -> Option<usize> {
    let rest = bytes.strip_prefix(b"[")?;
    let name = NAMES.iter().find(|name| rest.starts_with(name))?;
    let rest = rest[name.len()..].strip_prefix(b" \"")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = rest[digits..].strip_prefix(b"\"]")?;
    let ending = if rest.starts_with(b"\r\n") {
        2
    } else if matches!(rest.first(), Some(b'\n' | b'\r')) {
        1
    } else {
        return None;
    };
    (digits > 0).then_some(1 + name.len() + 2 + digits + 2 + ending)
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
    use super::id_edits_only;

    #[test]
    fn inserted_lines_and_rewritten_values_are_allowed() {
        let input = b"[Event \"x\"]\r\n[Chess960Id \"517\"]\r\n\r\n1. e4 *\r\n[Event \"y\"]\n\n*\n";
        let output =
            b"[Event \"x\"]\r\n[Chess960Id \"5\"]\r\n[Chess960Fritz9Id \"12\"]\r\n\r\n1. e4 *\r\n\
                       [Chess960Id \"0\"]\n[Event \"y\"]\n\n*\n";
        assert_eq!(id_edits_only(input, output), None);
        assert_eq!(id_edits_only(input, input), None);
        // An id line inserted at the very end, or between equal lines.
        assert_eq!(
            id_edits_only(b"[A \"1\"]\n", b"[A \"1\"]\n[Chess960Id \"9\"]\n"),
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
}
