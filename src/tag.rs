//! Adding or correcting `Chess960Id` tags as byte edits, so that nothing
//! else of an archive changes.
//!
//! A game is never re-serialised: the result of tagging is a short list of
//! [`Edit`]s (insert a line, replace a value) applied while the original
//! bytes stream through. Removing the id lines from input and output leaves
//! identical bytes, and tagging a second time changes nothing.

use std::io::{self, IoSlice, Write};

use crate::BackRank;
use crate::game::{KindCounts, Reading, is_named};
use crate::split::{Batch, Game, GameReader, TagSpan};

/// The tag that carries the Scharnagl number.
pub const ID_TAG: &str = "Chess960Id";
/// The tag that carries the Fritz9 number (with `--fritz9`).
pub const FRITZ9_TAG: &str = "Chess960Fritz9Id";

/// What to write.
#[derive(Clone, Copy, Debug, Default)]
pub struct TagOptions {
    /// Also tag plain standard games (with 518).
    pub include_standard: bool,
    /// Also write [`FRITZ9_TAG`].
    pub fritz9: bool,
}

/// One change to a batch's bytes: `data[at..at + remove]` becomes `insert`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Offset in the batch.
    pub at: usize,
    /// How many bytes are replaced.
    pub remove: usize,
    /// What goes in their place.
    pub insert: Vec<u8>,
}

/// How the games of a run fared; counts add up across batches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TagCounts {
    /// Games read, by kind.
    pub kinds: KindCounts,
    /// Games that carry ids: Chess960 games, and standard ones when asked.
    pub tagged: u64,
    /// Games that should carry ids but were left as they were: an id tag
    /// that cannot be rewritten safely (it does not end on its line, text
    /// stands between its name and its value, or its value holds an
    /// unescaped quote, where a `]` may be missing), or
    /// no place for a new one that keeps the game apart from the one
    /// before. Not counted in `tagged`.
    pub left_alone: u64,
    /// Id tags added.
    pub added: u64,
    /// Id tags whose value was wrong and was rewritten.
    pub rewritten: u64,
    /// Id tags that were already right.
    pub already_right: u64,
    /// Id tags removed: a second tag of a name the game already has, alone
    /// on its line (the first is kept, and rewritten when wrong).
    pub removed: u64,
}

impl TagCounts {
    /// Adds another run's counts to these.
    pub fn merge(&mut self, other: &TagCounts) {
        self.kinds.merge(&other.kinds);
        add_fields!(
            self,
            other,
            tagged,
            left_alone,
            added,
            rewritten,
            already_right,
            removed
        );
    }

    /// Whether any game would change.
    pub fn changes(&self) -> bool {
        self.added + self.rewritten + self.removed > 0
    }

    /// Whether any game changed since the counts were `before`.
    pub fn changed_since(&self, before: &TagCounts) -> bool {
        self.added + self.rewritten > before.added + before.rewritten
    }
}

/// Works out the edits for every game of a batch, in offset order.
///
/// # Example
///
/// ```
/// use pgn960::split::GameReader;
/// use pgn960::tag::{apply, tag_batch, TagOptions};
///
/// let pgn = b"[Variant \"Chess960\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 *\n";
/// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
/// let (edits, counts) = tag_batch(&batch, TagOptions::default());
/// let mut out = Vec::new();
/// apply(&batch.data, &edits, &mut out)?;
/// assert!(out.starts_with(b"[Variant \"Chess960\"]\n[FEN \"bbqnnrkr"));
/// assert!(out.ends_with(b" 0 1\"]\n[Chess960Id \"0\"]\n\n1. e4 *\n"));
/// assert_eq!(counts.added, 1);
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn tag_batch(batch: &Batch, options: TagOptions) -> (Vec<Edit>, TagCounts) {
    let mut edits = Vec::new();
    let mut counts = TagCounts::default();
    for game in &batch.games {
        tag_game(batch, game, options, &mut edits, &mut counts);
    }
    (edits, counts)
}

fn tag_game(
    batch: &Batch,
    game: &Game,
    options: TagOptions,
    edits: &mut Vec<Edit>,
    counts: &mut TagCounts,
) {
    let reading = Reading::of(batch, game);
    counts.kinds.add(reading.kind);
    let Some(rank) = reading.id(options.include_standard) else {
        return;
    };
    match game_edits(batch, game, &reading, rank, options) {
        Some((game_edits, local)) => {
            counts.merge(&local);
            counts.tagged += 1;
            edits.extend(game_edits);
        }
        None => counts.left_alone += 1,
    }
}

/// The edits that give a game its ids, in offset order, and what they do;
/// `None` when the game cannot take them safely: an id tag we cannot
/// rewrite, or no place for a new one that keeps the game where it is.
fn game_edits(
    batch: &Batch,
    game: &Game,
    reading: &Reading,
    rank: BackRank,
    options: TagOptions,
) -> Option<(Vec<Edit>, TagCounts)> {
    let mut local = TagCounts::default();
    let mut wanted = vec![(false, rank.scharnagl())];
    if options.fritz9 {
        wanted.push((true, rank.fritz9()));
    }
    let mut game_edits = Vec::new();
    let mut inserts = Vec::new();
    for (fritz9, id) in wanted {
        let value = id.to_string();
        let existing: Vec<&TagSpan> = reading
            .headers
            .ids()
            .iter()
            .filter(|id| id.fritz9 == fritz9)
            .map(|id| &batch.tags[id.tag])
            .collect();
        if existing.is_empty() {
            let name = if fritz9 { FRITZ9_TAG } else { ID_TAG };
            inserts.extend_from_slice(format!("[{name} \"{value}\"]").as_bytes());
            inserts.extend_from_slice(game.line_ending.as_bytes());
            local.added += 1;
        } else if existing.iter().any(|tag| !rewritable(&batch.data, tag)) {
            return None;
        } else {
            for (nth, tag) in existing.into_iter().enumerate() {
                // A game has one id of each name: a repeat alone on its
                // line goes, the first stays.
                if nth > 0
                    && let Some(line) = line_of_tag_alone(&batch.data, tag)
                {
                    game_edits.push(Edit {
                        at: line.start,
                        remove: line.len(),
                        insert: Vec::new(),
                    });
                    local.removed += 1;
                    continue;
                }
                if batch.raw_value(tag) == value.as_bytes() {
                    local.already_right += 1;
                } else {
                    game_edits.push(Edit {
                        at: tag.value.start,
                        remove: tag.value.len(),
                        insert: value.clone().into_bytes(),
                    });
                    local.rewritten += 1;
                }
            }
        }
    }
    if !inserts.is_empty() {
        game_edits.push(Edit {
            at: game.insert_at?,
            remove: 0,
            insert: inserts,
        });
    }
    game_edits.sort_by_key(|edit| edit.at);
    Some((game_edits, local))
}

/// Whether an id tag's value can be rewritten (or the tag removed) without
/// losing bytes that are not an id: a well-formed pair whose name is
/// followed by nothing but blanks before the opening quote, and whose value
/// holds no quote that a backslash does not escape. What the splitter
/// reads leniently as an id's value can otherwise hold other text or tags:
/// `[Chess960Id "5" [Site "x"]` (a `]` missing) reads as the value
/// `5" [Site "x`, and `[Chess960Id te "Alvarez, Ana"]` (two lines run
/// together) as `Alvarez, Ana`.
pub(crate) fn rewritable(data: &[u8], tag: &TagSpan) -> bool {
    tag.well_formed
        && data[tag.name.end..tag.value.start.saturating_sub(1)]
            .iter()
            .all(|&b| b == b' ' || b == b'\t')
        && !holds_a_quote(&data[tag.value.clone()])
}

/// Whether a tag value holds a quote that no backslash escapes.
fn holds_a_quote(value: &[u8]) -> bool {
    let mut at = 0;
    while at < value.len() {
        match value[at] {
            b'\\' => at += 2,
            b'"' => return true,
            _ => at += 1,
        }
    }
    false
}

/// The bytes of a well-formed tag pair alone on its line, from its `[` to
/// its line ending included (what [`strip_ids`] takes out of an id tag);
/// `None` when anything else shares its line.
pub(crate) fn line_of_tag_alone(data: &[u8], tag: &TagSpan) -> Option<std::ops::Range<usize>> {
    let open = data[..tag.name.start].iter().rposition(|&b| b == b'[')?;
    let at_line_start = open == 0 || matches!(data[open - 1], b'\n' | b'\r');
    if !tag.well_formed || !at_line_start || open + 1 != tag.name.start {
        return None;
    }
    let rest = &data[tag.end..];
    let ending = if rest.starts_with(b"\r\n") {
        2
    } else if matches!(rest.first(), Some(b'\n' | b'\r')) {
        1
    } else {
        return None;
    };
    Some(open..tag.end + ending)
}

/// Writes `data` with `edits` (sorted by offset, not overlapping) applied.
///
/// The unchanged spans and the inserted bytes go out as one vectored write
/// (a few system calls per batch, and no copy into a buffer).
///
/// # Errors
///
/// Any error of `out`.
pub fn apply(data: &[u8], edits: &[Edit], out: &mut (impl Write + ?Sized)) -> io::Result<()> {
    let mut slices = Vec::with_capacity(edits.len() * 2 + 1);
    let mut at = 0;
    for edit in edits {
        slices.push(IoSlice::new(&data[at..edit.at]));
        slices.push(IoSlice::new(&edit.insert));
        at = edit.at + edit.remove;
    }
    slices.push(IoSlice::new(&data[at..]));
    slices.retain(|slice| !slice.is_empty());
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        match out.write_vectored(rest) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(written) => IoSlice::advance_slices(&mut rest, written),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// The input with every [`ID_TAG`] and [`FRITZ9_TAG`] pair removed — from
/// its `[` to its `]`, with the line ending right after it — that the
/// splitter reads as a tag of some game: what `tag` may change. Tagging
/// promises `strip_ids(tagged) == strip_ids(input)`; the tests and the
/// `split_tag` fuzz target check it.
///
/// Only real tags count: text like `[Chess960Id "1` inside a comment is
/// left alone, however it ends.
///
/// # Example
///
/// ```
/// use pgn960::tag::strip_ids;
///
/// let tagged = b"[Event \"x\"]\n[Chess960Id \"0\"]\n\n1. e4 { [Chess960Id \"5\"] } *\n";
/// assert_eq!(strip_ids(tagged), b"[Event \"x\"]\n\n1. e4 { [Chess960Id \"5\"] } *\n");
/// ```
pub fn strip_ids(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut copied = 0;
    let mut offset = 0;
    let mut reader = GameReader::new(input);
    while let Ok(Some(batch)) = reader.next_batch() {
        for tag in &batch.tags {
            if !is_named(&batch, tag, ID_TAG) && !is_named(&batch, tag, FRITZ9_TAG) {
                continue;
            }
            let open = batch.data[..tag.name.start]
                .iter()
                .rposition(|&b| b == b'[')
                .expect("a tag name follows its `[`");
            let rest = &batch.data[tag.end..];
            let ending = if rest.starts_with(b"\r\n") {
                2
            } else {
                usize::from(matches!(rest.first(), Some(b'\n' | b'\r')))
            };
            out.extend_from_slice(&input[copied..offset + open]);
            copied = offset + tag.end + ending;
        }
        offset += batch.data.len();
    }
    out.extend_from_slice(&input[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    fn tag(input: &[u8], options: TagOptions) -> (Vec<u8>, TagCounts) {
        let mut reader = GameReader::new(input);
        let mut out = Vec::new();
        let mut total = TagCounts::default();
        while let Some(batch) = reader.next_batch().unwrap() {
            let (edits, counts) = tag_batch(&batch, options);
            apply(&batch.data, &edits, &mut out).unwrap();
            total.merge(&counts);
        }
        (out, total)
    }

    const FEN_0: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1";

    /// A writer as a slow pipe or a signal can make one: every other call
    /// is interrupted, and the others take at most three bytes.
    struct Stuttering {
        out: Vec<u8>,
        interrupted: bool,
    }

    impl Write for Stuttering {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.interrupted = !self.interrupted;
            if self.interrupted {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let taken = buf.len().min(3);
            self.out.extend_from_slice(&buf[..taken]);
            Ok(taken)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn strip_ids_removes_id_tag_pairs_with_their_line_endings_only() {
        let input =
            b"[Event \"x\"]\r\n[Chess960Id \"5\"]\r\n[Chess960Fritz9Id \"12\"]\r[Site \"?\"]\n\
                      \n1. e4 { [Chess960Id \"4\"] } *\n\n\
                      [Event \"y\"] [Chess960Id \"7\"]\n\n*\n\n[Chess960Id \"1\"]";
        let expected = b"[Event \"x\"]\r\n[Site \"?\"]\n\
                      \n1. e4 { [Chess960Id \"4\"] } *\n\n\
                      [Event \"y\"] \n*\n\n";
        assert_eq!(
            String::from_utf8_lossy(&strip_ids(input)),
            String::from_utf8_lossy(expected)
        );
        let untouched = b"[Event \"x\"]\n\n1. e4 *\n";
        assert_eq!(strip_ids(untouched), untouched);

        // Over many batches: every id goes, wherever its batch lies.
        let game = "[Event \"x\"]\n[Chess960Id \"5\"]\n\n1. e4 *\n\n";
        let many = game.repeat(200_000);
        assert!(
            GameReader::new(many.as_bytes())
                .next_batch()
                .unwrap()
                .unwrap()
                .data
                .len()
                < many.len()
        );
        assert_eq!(
            strip_ids(many.as_bytes()),
            game.replace("[Chess960Id \"5\"]\n", "")
                .repeat(200_000)
                .into_bytes()
        );
    }

    #[test]
    fn apply_retries_interrupted_and_short_writes_and_refuses_a_full_one() {
        let data = b"[Event \"x\"]\n\n1. e4 *\n";
        let edits = [
            Edit {
                at: 8,
                remove: 1,
                insert: b"yz".to_vec(),
            },
            Edit {
                at: 12,
                remove: 0,
                insert: b"[Chess960Id \"0\"]\n".to_vec(),
            },
        ];
        let mut whole = Vec::new();
        apply(data, &edits, &mut whole).unwrap();
        assert_eq!(whole, b"[Event \"yz\"]\n[Chess960Id \"0\"]\n\n1. e4 *\n");
        let mut stuttering = Stuttering {
            out: Vec::new(),
            interrupted: false,
        };
        apply(data, &edits, &mut stuttering).unwrap();
        assert_eq!(stuttering.out, whole);

        let mut full: &mut [u8] = &mut [0; 4];
        let err = apply(data, &edits, &mut full).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
    }

    #[test]
    fn rewrites_only_the_value_of_a_wrong_id() {
        let input = format!("[FEN \"{FEN_0}\"]\r\n[Chess960Id \"517\"]\r\n\r\n*\r\n");
        let (out, counts) = tag(input.as_bytes(), TagOptions::default());
        assert_eq!(out, input.replace("517", "0").into_bytes());
        assert_eq!(counts.rewritten, 1);
        let (again, counts) = tag(&out, TagOptions::default());
        assert_eq!(again, out);
        assert_eq!(counts.already_right, 1);
    }

    #[test]
    fn adds_with_the_games_line_ending_and_fritz9() {
        let input = format!("[FEN \"{FEN_0}\"]\r\n\r\n*\r\n");
        let options = TagOptions {
            fritz9: true,
            ..TagOptions::default()
        };
        let (out, counts) = tag(input.as_bytes(), options);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "[FEN \"{FEN_0}\"]\r\n[Chess960Id \"0\"]\r\n[Chess960Fritz9Id \"81\"]\r\n\r\n*\r\n"
            )
        );
        assert_eq!(counts.added, 2);
    }

    #[test]
    fn standard_games_only_on_request() {
        let input = b"[Event \"x\"]\n\n1. e4 *\n";
        let (out, counts) = tag(input, TagOptions::default());
        assert_eq!(out, input);
        assert_eq!(counts.kinds.get(crate::game::Kind::Standard), 1);
        assert_eq!(counts.tagged, 0);
        let options = TagOptions {
            include_standard: true,
            ..TagOptions::default()
        };
        let (out, _) = tag(input, options);
        assert_eq!(out, b"[Event \"x\"]\n[Chess960Id \"518\"]\n\n1. e4 *\n");
    }

    #[test]
    fn moves_on_the_tag_line_insert_before_the_tags() {
        let input = format!("[FEN \"{FEN_0}\"] 1. e4 *\n");
        let (out, _) = tag(input.as_bytes(), TagOptions::default());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("[Chess960Id \"0\"]\n[FEN \"{FEN_0}\"] 1. e4 *\n")
        );
    }
}
