//! The byte-exact game splitter: cuts a PGN byte stream into whole games
//! without parsing moves, so that every byte can be written back unchanged.
//!
//! pgn-reader parses games but does not say where in the input each one
//! starts and ends, and a tool that rewrites archives in place needs exactly
//! that. This scanner understands just enough PGN to find game boundaries
//! and tag pairs: brace comments, `;` comments and escape lines (the rules
//! of [`crate::movetext`]), quoted tag values with escapes, and the three
//! kinds of line ending. Everything else is opaque.
//!
//! Boundaries, in the order they are tried:
//!
//! - a tag pair at the start of a line (after spaces or tabs), outside brace
//!   comments, once the current game has reached its movetext;
//! - a tag pair right after a result token on the same line
//!   (`... 1-0 [Event "next"]`);
//! - in a tag section, a tag whose name the current game already has, after
//!   a blank line (archives of games with tags only). A blank line on its
//!   own, or a repeated name without one, is not a boundary.
//!
//! Bytes after a game's last token (blank lines, stray text) belong to that
//! game, so the concatenation of all games is the input. Bytes before the
//! first tag section belong to the first game.
//!
//! Memory stays bounded whatever the input: a game that grows past
//! [`GameReader::max_game_bytes`] (or past 65,536 tag pairs) is handed out
//! in pieces (the first piece holds its tag section; later pieces are
//! [`Batch::continuation`] bytes).
//!
//! The parts, each one job: `types` (what is handed out),
//! `window` (the bytes read: a stream's buffer or a mapped file), the
//! batching reader ([`GameReader`]), the scanner (the state machine, with
//! `block` masks), `tag_line` (where a tag line ends and what it holds),
//! `candidates` (where readers of one file may take over from each other)
//! and `lines` (line numbers, counted only where asked).

mod block;
mod candidates;
mod lines;
mod reader;
mod scanner;
mod tag_line;
mod types;
mod window;

pub(crate) use candidates::Candidates;
pub use lines::{LineCounter, count_line_ends, line_start};
pub use reader::{GameReader, MAX_RESERVED_BATCH};
pub use types::{Batch, BatchData, Game, LineEnding, TagSpan};
pub use window::{MappedWindow, StreamWindow, Window};

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::io::{self, Read};
    use std::rc::Rc;
    use std::sync::Arc;
    use std::sync::atomic::AtomicU64;

    use memmap2::Mmap;

    use super::tag_line::MAX_TAG_LINE;
    use super::*;

    /// A game's index, line, bytes, and whether it is continued or last.
    type GameSeen = (u64, u64, String, bool, bool);

    /// The games of a mapped file as readers ending early at candidates
    /// `stretch` apart, each started where the one before ended, find them
    /// (`None`: as one reader does), with games and lines counted across
    /// readers; and the number of readers.
    fn split_mapped(
        map: &Arc<Mmap>,
        stretch: Option<usize>,
        max_game_bytes: usize,
    ) -> (Vec<GameSeen>, usize) {
        let (mut games, mut at, mut readers) = (0, 0, 0);
        let mut out = Vec::new();
        while at < map.len() {
            let read = Arc::new(AtomicU64::new(0));
            let mut reader = GameReader::from_mapped(Arc::clone(map), at, read)
                .batch_bytes(100)
                .max_game_bytes(max_game_bytes);
            if let Some(stretch) = stretch {
                reader = reader.end_at_boundaries(Candidates::new(stretch));
            }
            let mut offset = at;
            while let Some(batch) = reader.next_batch().unwrap() {
                for game in &batch.games {
                    let bytes = String::from_utf8_lossy(batch.bytes(game)).into_owned();
                    let first = offset + batch.first_line_start(game);
                    out.push((
                        games + game.index,
                        count_line_ends(map, 0, first, false) + 1,
                        bytes,
                        game.continued,
                        game.at_end,
                    ));
                }
                offset += batch.data.len();
            }
            games += reader.games_read();
            at = reader.position();
            assert_eq!(at, offset, "a reader ends where its batches end");
            readers += 1;
        }
        (out, readers)
    }

    #[test]
    fn readers_ending_early_find_the_games_of_one_reader() {
        let comment_lines = "[Event \"in a comment\"]\n".repeat(60_000);
        let long_moves = "1. e4 e5 ".repeat(150_000);
        let many_tags = "[T \"v\"]\n".repeat(200_000);
        let input = format!(
            "[Event \"1\"]\n\n1. e4 *\n\n\
             [Event \"2\"]\n\n1. d4 {{\n{comment_lines}}} *\n\n\
             [Event \"3\"]\n\n{long_moves}\n[Event \"4\"]\n\n*\n\
             [Event \"5\"]\n[Event \"6, tags only\"]\n\n[Event \"7\"]\n\n{long_moves}\n\
             [Event \"8\"]\n; a comment\n{{ and\n[Event \"x\"] }}\n{many_tags}[Site \"s\"]\n\n*\n\
             \u{feff}[Event \"9\"]\n\n*\n\
             [Event \"10\"]\r\n\r\n1. c4 {{ left open\n[Event \"11\"]\n"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.pgn");
        std::fs::write(&path, &input).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // SAFETY: the file is ours, and nothing changes it while mapped.
        let map = Arc::new(unsafe { Mmap::map(&file) }.unwrap());
        for max_game_bytes in [64 << 10, 16 << 20] {
            let (expected, one) = split_mapped(&map, None, max_game_bytes);
            assert_eq!(one, 1);
            // Games 1 to 10: `6, tags only` is game 5's second tag, and
            // `11` is in a comment. Game 8 (the 7th), of 200,000 tags,
            // comes in pieces whatever the limit on bytes; the long ones
            // under the lower limit only.
            assert_eq!(expected.len(), 9);
            let in_pieces = |index: u64| expected.iter().any(|g| g.0 == index && g.3);
            assert!(in_pieces(7));
            assert_eq!(in_pieces(3), max_game_bytes == 64 << 10);
            let mut ended_early = false;
            for stretch in [1, 100, 5000, 70_000] {
                let (games, readers) = split_mapped(&map, Some(stretch), max_game_bytes);
                ended_early |= readers > 1;
                assert!(
                    games == expected,
                    "stretch {stretch}, games up to {max_game_bytes}"
                );
            }
            assert!(ended_early, "games up to {max_game_bytes}");
        }
    }

    /// A tag line too long to hold is still a tag line, wherever reading
    /// stops: it begins a game, which comes whole or in pieces, with its
    /// tag lines after it, and is read as one whose tags are not all known.
    #[test]
    fn a_tag_line_too_long_to_hold_is_a_tag_line_wherever_reading_stops() {
        for offset in [0, 300 << 10, 700 << 10] {
            let mut input = b"[Event \"a\"]\n\n1. e4 *\n".to_vec();
            input.resize(input.len() + offset, b' ');
            input.extend_from_slice(b"\n[Long \"");
            input.resize(input.len() + MAX_TAG_LINE, b'x');
            input.extend_from_slice(b"\"]\n[Event \"long\"]\n\n1. d4 *\n\n[Event \"b\"]\n\n*\n");
            for max_game_bytes in [64 << 10, 32 << 20] {
                let mut reader = GameReader::new(&input[..]).max_game_bytes(max_game_bytes);
                let mut games = Vec::new();
                while let Some(batch) = reader.next_batch().unwrap() {
                    for game in &batch.games {
                        let events: Vec<String> = batch
                            .tags_of(game)
                            .iter()
                            .map(|tag| String::from_utf8_lossy(batch.raw_value(tag)).into_owned())
                            .collect();
                        games.push((events, game.tags_incomplete));
                    }
                }
                // The long game's first piece holds the tag lines read
                // before it was cut, if any; never the long one.
                let long = games.get(1).map(|(events, _)| events.clone());
                assert!(
                    long.as_ref().is_some_and(|events| events.len() <= 1),
                    "{long:?}"
                );
                let expected = [
                    (vec!["a".to_string()], false),
                    (long.unwrap_or_default(), true),
                    (vec!["b".to_string()], false),
                ];
                assert_eq!(
                    games, expected,
                    "offset {offset}, games up to {max_game_bytes}"
                );
            }
        }
    }

    fn split(input: &[u8]) -> Vec<(u64, String)> {
        split_with(input, 1 << 20)
    }

    /// Each game's first line and bytes.
    fn split_with(input: &[u8], batch_bytes: usize) -> Vec<(u64, String)> {
        let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
        let mut out = Vec::new();
        let mut all = Vec::new();
        while let Some(batch) = reader.next_batch().unwrap() {
            for game in &batch.games {
                let first = all.len() + batch.first_line_start(game);
                out.push((
                    count_line_ends(input, 0, first, false) + 1,
                    String::from_utf8_lossy(batch.bytes(game)).into_owned(),
                ));
            }
            all.extend_from_slice(&batch.data);
        }
        assert_eq!(all, input, "batches must cover the input exactly");
        out
    }

    /// Every batch's games, tags and continuation, in input order.
    fn records(
        input: &[u8],
        batch_bytes: usize,
        recycle: bool,
    ) -> Vec<(usize, Vec<Game>, Vec<TagSpan>)> {
        let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
        let mut out = Vec::new();
        while let Some(batch) = reader.next_batch().unwrap() {
            out.push((batch.continuation, batch.games.clone(), batch.tags.clone()));
            if recycle {
                reader.recycle_batch(batch);
            }
        }
        out
    }

    #[test]
    fn recycled_batches_hold_the_records_of_later_batches_exactly() {
        // Games of varying tag counts and sizes, so that a later batch has
        // fewer records than the vectors it reuses held; 4 MiB, for a
        // stream is cut where a read of 1 MiB ends.
        let input: Vec<u8> = (0..3000)
            .flat_map(|i| {
                let tags: String = (0..i % 13).map(|t| format!("[T{t} \"{i}\"]\n")).collect();
                format!(
                    "[Event \"{i}\"]\n{tags}\n1. e4 {{ {} }} *\n\n",
                    "x".repeat(i * 7 % 2900)
                )
                .into_bytes()
            })
            .collect();
        for batch_bytes in [1, 1 << 20] {
            let fresh = records(&input, batch_bytes, false);
            assert!(
                fresh.len() >= 3,
                "{} batches of {} bytes",
                fresh.len(),
                input.len()
            );
            assert_eq!(
                fresh.iter().map(|(_, games, _)| games.len()).sum::<usize>(),
                3000
            );
            assert_eq!(
                records(&input, batch_bytes, true),
                fresh,
                "batches of {batch_bytes} bytes"
            );
        }
    }

    #[test]
    fn splits_at_tag_sections() {
        let games = split(b"[Event \"a\"]\n\n1. e4 1-0\n\n[Event \"b\"]\n1. d4 *\n");
        assert_eq!(
            games,
            vec![
                (1, "[Event \"a\"]\n\n1. e4 1-0\n\n".to_string()),
                (5, "[Event \"b\"]\n1. d4 *\n".to_string()),
            ]
        );
    }

    #[test]
    fn comment_with_event_line_is_no_boundary() {
        let input = b"[Event \"a\"]\n\n1. e4 { see\n[Event \"x\"]\n} 1-0\n";
        assert_eq!(split(input).len(), 1);
        // A `%` within a line starts no escape line: the `{` after it
        // still opens a comment.
        let input = b"[Event \"a\"]\n\n1. e4 50% { see\n[Event \"x\"]\n} 1-0\n";
        assert_eq!(split(input).len(), 1);
    }

    #[test]
    fn tags_only_games_split_on_repeated_tag_after_blank_line() {
        let input = b"[Event \"a\"]\n[Site \"s\"]\n\n[Event \"b\"]\n[Site \"t\"]\n";
        let games = split(input);
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].0, 4);
        // A blank line inside one tag section is not a boundary.
        let input = b"[Event \"a\"]\n\n[Site \"s\"]\n\n1. e4 *\n";
        assert_eq!(split(input).len(), 1);
        // Whatever ends the lines.
        for eol in ["\r", "\r\n"] {
            let input = format!("[Event \"a\"]{eol}{eol}[Site \"s\"]{eol}{eol}1. e4 *{eol}");
            assert_eq!(split(input.as_bytes()).len(), 1, "{eol:?}");
        }
        // Nor is a repeated tag without a blank line.
        let input = b"[FEN \"x\"]\n[FEN \"y\"]\n\n1. e4 *\n";
        assert_eq!(split(input).len(), 1);
    }

    /// Comments within a tag section are part of it: a `;` line, a brace
    /// comment before any blank line, a `;` or brace comment after the
    /// tags of a line (python-chess reads the `;` example as one game).
    #[test]
    fn comments_in_a_tag_section_keep_it_one() {
        for comment in [
            "; exported by some GUI",
            "  ; indented",
            "{ a comment }",
            "{ over\n[Event \"two\"]\n\nlines } ; and more",
            "{a}{b} [Round \"1\"] ; more",
        ] {
            let input = format!(
                "[Event \"X\"]\n[Variant \"Chess960\"]\n{comment}\n[FEN \"f\"]\n[SetUp \"1\"]\n\n1. e4 *\n"
            );
            let batch = GameReader::new(input.as_bytes())
                .next_batch()
                .unwrap()
                .unwrap();
            assert_eq!(batch.games.len(), 1, "{comment:?}");
            let names: Vec<&[u8]> = batch.tags.iter().map(|tag| batch.name(tag)).collect();
            assert!(names.ends_with(&[&b"FEN"[..], b"SetUp"]), "{comment:?}");
        }
        for after in [" ; c", " { c }", " {c} ; c"] {
            let input = format!("[Event \"X\"]{after}\n[FEN \"f\"]\n\n1. e4 *\n");
            assert_eq!(split(input.as_bytes()).len(), 1, "{after:?}");
        }
        // A `;` comment after the tags leaves the line a clean tag line:
        // a tag added to the game goes after it.
        let input = b"[Event \"X\"] ; c\n\n1. e4 *\n";
        let batch = GameReader::new(&input[..]).next_batch().unwrap().unwrap();
        assert_eq!(batch.games[0].insert_at, Some(16));
        // After a blank line, a brace comment begins the movetext: a tag
        // line after it begins the next game.
        let input = b"[Event \"a\"]\n\n{ first comment }\n[Round \"b\"]\n\n*\n";
        assert_eq!(split(input).len(), 2);
        // But a `;` line does not.
        let input = b"[Event \"a\"]\n\n; a comment\n[Round \"b\"]\n\n*\n";
        assert_eq!(split(input).len(), 1);
        // Nor do comments before the first tag section make a game.
        let input = b"; a file comment\n{ and another }\n[Event \"a\"]\n\n*\n";
        assert_eq!(split(input).len(), 1);
    }

    /// A UTF-8 byte-order mark at the start of a line (files that begin
    /// with one, joined) is read as a blank before a tag pair or a line
    /// end, whatever the read it falls in.
    #[test]
    fn a_byte_order_mark_starts_a_line_as_a_blank() {
        let bom = "\u{feff}";
        let input = format!(
            "{bom}[Event \"A\"]\n\n1. e4 *\n{bom}[Event \"B\"]\n\n1. d4 *\n  {bom}{bom} [Event \"C\"]\n{bom}\n[Site \"c\"]\n\n*\n"
        );
        for batch_bytes in [1, 1 << 20] {
            let games = split_with(input.as_bytes(), batch_bytes);
            let firsts: Vec<u64> = games.iter().map(|(line, _)| *line).collect();
            assert_eq!(firsts, [1, 4, 7]);
            assert!(games[1].1.starts_with(bom));
        }
        // Before anything but a tag or a line end, it is text: no blank
        // before the `%` of an escape line, which ends the tag section.
        let input = format!("[Event \"A\"]\n{bom}% x\n[Site \"B\"]\n");
        assert_eq!(split(input.as_bytes()).len(), 2);
    }

    /// A read that ends at the start of a line after a byte-order mark,
    /// or in the blanks after a comment on a tag line, leaves the line
    /// undecided until the next read: the games are the same wherever the
    /// read ends, and at the end of the input too.
    #[test]
    fn a_read_ending_after_a_mark_or_in_blanks_waits_for_the_next() {
        let bom = "\u{feff}";
        // After a game's movetext: marks and blanks, then a tag pair.
        let next = format!("\n{bom} \t{bom}[Event \"b\"]\n\n*\n");
        for cut in 1..next.len() - 4 {
            // The first read ends `cut` bytes into `next`.
            let mut input = game_head_of(window::READ_BYTES - cut);
            input.extend_from_slice(next.as_bytes());
            let games = split(&input);
            assert_eq!(games.len(), 2, "cut {cut}");
            assert_eq!(games[1].1, next[1..], "cut {cut}");
        }
        // Before anything but a tag pair or a line end, a mark is text: the
        // `%` after it starts no escape line, and the tag section ends.
        let text = format!("\n{bom}% x\n[Site \"b\"]\n");
        for cut in 1..text.len() - 4 {
            let mut input = tag_section_of(window::READ_BYTES - cut);
            input.extend_from_slice(text.as_bytes());
            assert_eq!(split(&input).len(), 2, "cut {cut}");
        }
        // In a tag section: the comments and blanks are part of it.
        let rest = "\n[Round \"1\"] {c} \t  \n[Site \"b\"] {d}\t \t\n\n1. e4 *\n";
        for cut in 1..rest.len() - 4 {
            let mut input = tag_section_of(window::READ_BYTES - cut);
            input.extend_from_slice(rest.as_bytes());
            let games = split(&input);
            assert_eq!(games.len(), 1, "cut {cut}");
        }
        assert_eq!(split(b"[Event \"a\"] {c} \t ").len(), 1);
        assert_eq!(
            split(format!("[Event \"a\"]\n\n*\n{bom} ").as_bytes()).len(),
            1
        );
    }

    /// A NUL byte ends a batch before the game that holds it. In the first
    /// game after the batch's continuation bytes (the end of a game read
    /// in pieces, handed out before), it keeps those bytes; within them,
    /// it keeps nothing.
    #[test]
    fn a_batch_cut_before_a_nul_keeps_the_continuation_before_it() {
        // Longer than a read (1 MiB), so read in pieces.
        let long = format!("[Event \"a\"]\n\n1. e4 {{{}}} *\n", "x".repeat(3 << 20));
        let input = format!("{long}[Event \"b\"]\n\n1. d4 *\n[Event \"c\"]\n\n1. c4 *\n");
        // The batch that ends the long game and holds more.
        let batch = || {
            let mut reader = GameReader::new(input.as_bytes()).max_game_bytes(64 << 10);
            let mut found = None;
            while let Some(batch) = reader.next_batch().unwrap() {
                if batch.continuation > 0 && !batch.games.is_empty() {
                    assert!(found.is_none(), "one such batch");
                    found = Some(batch);
                }
            }
            found.expect("a batch ending the long game")
        };
        let mut cut = batch();
        let continuation = cut.continuation;
        let bytes = cut.data[..continuation].to_vec();
        cut.truncate_before(cut.games[0].range.start + 1);
        assert!(cut.games.is_empty() && cut.tags.is_empty());
        assert_eq!(cut.continuation, continuation);
        assert_eq!(&cut.data[..], &bytes[..]);
        let mut cut = batch();
        cut.truncate_before(continuation - 1);
        assert!(cut.games.is_empty());
        assert_eq!((cut.continuation, cut.data.len()), (0, 0));
    }

    /// A game's movetext starts right after its last tag pair, a `[Name]`
    /// without a value too.
    #[test]
    fn movetext_starts_after_the_last_tag_even_one_without_a_value() {
        for (input, movetext) in [
            (
                &b"[Event \"a\"]\n[Site]\n\n1. e4 *\n"[..],
                &b"\n\n1. e4 *\n"[..],
            ),
            (b"[Event \"a\"] [Site] 1. e4 *", b" 1. e4 *"),
        ] {
            let batch = GameReader::new(input).next_batch().unwrap().unwrap();
            let (start, _) = batch.movetext_start(&batch.games[0]);
            assert_eq!(
                String::from_utf8_lossy(&batch.data[start..]),
                String::from_utf8_lossy(movetext)
            );
        }
    }

    #[test]
    fn tag_after_result_on_same_line() {
        let games = split(b"[Event \"a\"] 1. e4 1-0 [Event \"b\"] 1. d4 *");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].1, "[Event \"b\"] 1. d4 *");
        // `*` is a result even glued to its move; other results are not.
        let games = split(b"[Event \"a\"] 1. e4 h6* [Event \"b\"] 1. d4 *");
        assert_eq!(games.len(), 2);
        let games = split(b"[Event \"a\"] 1. e4 h61-0 [Event \"b\"] 1. d4 *");
        assert_eq!(games.len(), 1);
    }

    #[test]
    fn line_endings_and_line_numbers() {
        let games = split(b"[Event \"a\"]\r\r1. e4 *\r\r[Event \"b\"]\r\r1. d4 *\r");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].0, 5);
        let games = split(b"\xef\xbb\xbf[Event \"a\"]\r\n\r\n1. e4 *\r\n\r\n[Event \"b\"]\r\n");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].0, 5);
    }

    /// Where a game's new tag line goes (an offset into the input), and its
    /// line ending.
    type Insertion = (Option<usize>, LineEnding);

    /// Each game's insertion point and the line ending a new tag line takes
    /// there, read in batches of `batch_bytes`.
    fn insertions(input: &[u8], batch_bytes: usize) -> Vec<Insertion> {
        let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
        let mut out = Vec::new();
        let mut offset = 0;
        while let Some(batch) = reader.next_batch().unwrap() {
            for game in &batch.games {
                out.push((game.insert_at.map(|at| offset + at), game.line_ending));
            }
            offset += batch.data.len();
        }
        out
    }

    /// A new tag line ends as the lines beside it do: in a game without
    /// tags, put first, as the game's first line (after a byte-order
    /// mark); in a game whose lines do not end (the input's last line), as
    /// the line before it in the input, even when that line went out in an
    /// earlier batch; `\n` only when no line ends at all.
    #[test]
    fn a_new_line_ends_as_its_neighbours() {
        use LineEnding::{Cr, CrLf, Lf};
        let cases: [(&[u8], &[Insertion]); 10] = [
            (b"1. e4 e5 *\r\n", &[(Some(0), CrLf)]),
            (b"{c}\r1. e4 *\r\n", &[(Some(0), Cr)]),
            (b"1. e4 *\n", &[(Some(0), Lf)]),
            (b"1. e4 *", &[(Some(0), Lf)]),
            (b"\xef\xbb\xbf1. e4 *\r\n", &[(Some(3), CrLf)]),
            (b"\xef\xbb\xbf[FEN \"x\"] *\r\n", &[(Some(3), CrLf)]),
            (
                b"[Event \"a\"]\r\n\r\n1. e4 *\r\n[Event \"b\"] 1. e4 *",
                &[(Some(13), CrLf), (Some(24), CrLf)],
            ),
            (
                b"[Event \"a\"]\r\r1. e4 *\r[Event \"%",
                &[(Some(12), Cr), (Some(21), Cr)],
            ),
            // One game's only line end is before its first tag line.
            (b";x\r\n[Event \"b\"] 1. e4 *", &[(Some(4), CrLf)]),
            // A game without tags ends within its first line, which ends
            // in the next game.
            (
                b"1. e4 *[Event \"b\"]\r\n",
                &[(Some(0), CrLf), (Some(20), CrLf)],
            ),
        ];
        for (input, expected) in cases {
            for batch_bytes in [1, 1 << 20] {
                assert_eq!(
                    insertions(input, batch_bytes),
                    expected,
                    "{:?} in batches of {batch_bytes} bytes",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }

    /// Files stitched together from old Mac, Unix and Windows parts: a
    /// blank line of a lone `\r` right after a `\n` is one line end, not
    /// the start of a `\r\n`, so the tag line after it is read as one.
    #[test]
    fn a_lone_cr_after_a_line_feed_is_a_line_of_its_own() {
        let input = b"[Event \"a\"]\n\r[Site \"s\"]\n\n1. e4 *\n";
        let batch = GameReader::new(&input[..]).next_batch().unwrap().unwrap();
        assert_eq!(batch.games.len(), 1);
        let names: Vec<&[u8]> = batch
            .tags_of(&batch.games[0])
            .iter()
            .map(|tag| batch.name(tag))
            .collect();
        assert_eq!(names, [&b"Event"[..], b"Site"]);
    }

    #[test]
    fn hostile_tag_values() {
        let input = br#"[A "b\""] [B "b\""] [C "A]]"] [D "A]]["] [E "\"A]][\""]
[Event "Tournament "Championship" Finals"]
[Site "back\"]
"#;
        let mut reader = GameReader::new(&input[..]);
        let batch = reader.next_batch().unwrap().unwrap();
        let values: Vec<_> = batch
            .tags
            .iter()
            .map(|t| String::from_utf8_lossy(batch.raw_value(t)).into_owned())
            .collect();
        assert_eq!(
            values,
            [
                r#"b\""#,
                r#"b\""#,
                "A]]",
                "A]][",
                r#"\"A]][\""#,
                r#"Tournament "Championship" Finals"#,
                r"back\",
            ]
        );
        assert!(batch.tags.iter().all(|t| t.well_formed));
    }

    #[test]
    fn small_batches_cover_input() {
        let mut input = Vec::new();
        for i in 0..200 {
            input.extend_from_slice(format!("[Event \"{i}\"]\n\n1. e4 {{ c }} *\n\n").as_bytes());
        }
        let games = split_with(&input, 1);
        assert_eq!(games.len(), 200);
        assert_eq!(games[199].0, 199 * 4 + 1);
    }

    #[test]
    fn escape_lines_and_semicolon_comments_hide_braces() {
        let input = b"[Event \"a\"]\n\n1. e4 ; not a comment {\n% also not {\n1... e5 *\n\n[Event \"b\"]\n*\n";
        let games = split(input);
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].0, 7);
    }

    #[test]
    fn tag_lines_in_movetext_start_games_after_any_line_ending() {
        for eol in ["\n", "\r\n", "\r"] {
            let input = format!(
                "[Event \"a\"]{eol}{eol}1. e4 e5{eol}  [Event \"b\"]{eol}{eol}1. d4 *{eol}"
            );
            let games = split(input.as_bytes());
            assert_eq!(games.len(), 2, "{eol:?}");
            assert!(games[1].1.starts_with("  [Event \"b\"]"), "{eol:?}");
            assert_eq!(games[1].0, 4, "{eol:?}");
        }
    }

    #[test]
    fn bracket_inside_a_line_is_movetext() {
        assert_eq!(split(b"[Event \"a\"]\n\n1. e4 [%clk 0:01] e5 *\n").len(), 1);
    }

    #[test]
    fn a_read_error_comes_after_the_games_before_it() {
        let good = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4".to_vec();
        let failing = std::io::Cursor::new(good.clone()).chain(FailingReader);
        let mut reader = GameReader::new(failing);
        let batch = reader.next_batch().expect("the bytes before the error");
        assert_eq!(*batch.expect("a batch").data, good[..]);
        assert!(reader.next_batch().is_err());
        assert!(reader.next_batch().unwrap().is_none());
    }

    /// A read a signal interrupts is tried again: every game comes out,
    /// and no error.
    #[test]
    fn interrupted_reads_are_retried() {
        let input = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 1-0\n";
        let interrupting = crate::test_support::Interrupting::new(input, 5);
        let mut reader = GameReader::new(interrupting);
        let mut data = Vec::new();
        let mut games = 0;
        while let Some(batch) = reader.next_batch().expect("no error") {
            games += batch.games.len();
            data.extend_from_slice(&batch.data);
        }
        assert_eq!((games, &data[..]), (2, &input[..]));
    }

    struct FailingReader;

    impl Read for FailingReader {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::InvalidData, "damaged"))
        }
    }

    #[test]
    fn whitespace_only_input_has_no_game() {
        assert!(split(b"\n\n  \n").is_empty());
        assert!(split(b"").is_empty());
        assert!(split(b"\n \t").is_empty());
    }

    /// Blanks that run to the end of the input, on a line of their own,
    /// stay with the game before them.
    #[test]
    fn blanks_at_the_end_of_the_input_end_the_last_game() {
        let games = split(b"[Event \"a\"]\n\n1. e4 *\n \t ");
        assert_eq!(games, [(1, "[Event \"a\"]\n\n1. e4 *\n \t ".to_string())]);
    }

    /// A tag section that reaches the end of the first read: its first tag
    /// line, then an escape line of `%` and `x`s (which no limit on tag
    /// lines cuts short) up to `len` bytes in all, no line end.
    fn tag_section_of(len: usize) -> Vec<u8> {
        let mut input = b"[Event \"a\"]\n%".to_vec();
        input.resize(len, b'x');
        input
    }

    /// A line of blanks in a tag section that a read cuts, far into the
    /// read, is undecided until its first other byte: a tag pair there,
    /// after a blank line, still starts the next game.
    #[test]
    fn a_tag_line_after_blanks_cut_by_a_read_still_starts_a_game() {
        let mut input = tag_section_of(window::READ_BYTES - 4);
        input.extend_from_slice(b"\n\n  "); // the first read ends here
        assert_eq!(input.len(), window::READ_BYTES);
        input.extend_from_slice(b"  [Event \"b\"]\n\n*\n");
        let games = split(&input);
        assert_eq!(games.len(), 2);
        // The line, blanks and all, is the next game's.
        assert_eq!(games[1].1, "    [Event \"b\"]\n\n*\n");
    }

    /// A `\r\n` that a read cuts between its two bytes is one line end,
    /// not a `\r` and then a blank line: in a tag section, a tag repeated
    /// on the next line starts no new game.
    #[test]
    fn a_crlf_cut_by_a_read_is_one_line_end() {
        let mut input = tag_section_of(window::READ_BYTES - 1);
        input.push(b'\r'); // the first read's last byte
        input.extend_from_slice(b"\n[Event \"b\"]\r\n\r\n*\r\n");
        assert_eq!(split(&input).len(), 1);
        // Where the `\r` is not the read's last byte, the same.
        input.remove(20);
        assert_eq!(split(&input).len(), 1);
    }

    #[test]
    fn oversized_game_comes_in_pieces() {
        let mut input = b"[Event \"big\"]\n\n1. e4 {".to_vec();
        input.extend(std::iter::repeat_n(b'x', 3 << 20));
        input.extend_from_slice(b"} *\n\n[Event \"next\"]\n\n*\n");
        let mut reader = GameReader::new(&input[..]).max_game_bytes(64 << 10);
        let mut heads = Vec::new();
        let mut all = Vec::new();
        while let Some(batch) = reader.next_batch().unwrap() {
            all.extend_from_slice(&batch.data);
            for game in &batch.games {
                heads.push((game.index, game.continued, batch.tags_of(game).len()));
            }
        }
        assert_eq!(all, input);
        assert_eq!(heads, vec![(1, true, 1), (2, false, 1)]);
    }

    /// A game's tag line and movetext, `len` bytes of it: no result, no
    /// line end.
    fn game_head_of(len: usize) -> Vec<u8> {
        let mut game = b"[Event \"a\"]\n\n".to_vec();
        while game.len() < len {
            game.extend_from_slice(b"e4 ");
        }
        game.truncate(len);
        game
    }

    /// An oversized game cut just before a line end: the line after it
    /// starts right after that line end, so a tag pair there starts the
    /// next game.
    #[test]
    fn a_tag_line_right_after_a_cut_before_a_line_end_starts_a_game() {
        let mut input = game_head_of(window::READ_BYTES); // the first read ends here
        input.extend_from_slice(b"\n[Event \"next\"]\n\n*\n");
        let mut reader = GameReader::new(&input[..]).max_game_bytes(64 << 10);
        let mut heads = Vec::new();
        while let Some(batch) = reader.next_batch().unwrap() {
            for game in &batch.games {
                heads.push((game.index, game.continued));
            }
        }
        assert_eq!(heads, [(1, true), (2, false)]);
    }

    /// A tag line after movetext that a read cuts in two: the scan waits
    /// for the rest of the line, and the tag pair starts the next game.
    #[test]
    fn a_tag_line_cut_by_a_read_still_starts_a_game() {
        let mut input = game_head_of(window::READ_BYTES - 6);
        input.extend_from_slice(b"\n[Event \"b\"]\n\n*\n"); // the read ends in `[Event`
        let games = split(&input);
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].1, "[Event \"b\"]\n\n*\n");
    }

    /// However low the limit is set, games up to 64 KiB come whole, even
    /// the one half read when a read ends.
    #[test]
    fn games_up_to_64_kib_come_whole_under_any_limit() {
        let game = format!("[Event \"x\"]\n\n{}*\n\n", "e4 ".repeat(300));
        let count = window::READ_BYTES / game.len() + 2;
        // The first read ends in the movetext of a game.
        assert!(window::READ_BYTES % game.len() > 20);
        let input = game.repeat(count);
        let mut reader = GameReader::new(input.as_bytes()).max_game_bytes(1);
        let mut games = 0;
        while let Some(batch) = reader.next_batch().unwrap() {
            for game in &batch.games {
                assert!(!game.continued, "game {} cut in pieces", game.index);
                games += 1;
            }
        }
        assert_eq!(games, count);
    }

    /// An oversized game cut where a line holds only blanks so far: that
    /// line is still undecided, and when its first other byte is a `%` it
    /// is an escape line, whose `{` opens no comment.
    #[test]
    fn a_line_of_blanks_at_a_cut_may_still_become_an_escape_line() {
        let mut input = b"[Event \"big\"]\n\n".to_vec();
        // The first read (1 MiB) ends after three blanks of a new line.
        let before_blanks = (1 << 20) - 3;
        while input.len() + 9 <= before_blanks {
            input.extend_from_slice(b"1. e4 e5\n");
        }
        input.resize(before_blanks - 1, b' ');
        input.extend_from_slice(b"\n   % {not a comment\n\n[Event \"next\"]\n\n*\n");
        assert_eq!(&input[(1 << 20) - 4..(1 << 20) + 1], b"\n   %");
        let mut reader = GameReader::new(&input[..]).max_game_bytes(64 << 10);
        let mut heads = Vec::new();
        while let Some(batch) = reader.next_batch().unwrap() {
            heads.extend(batch.games.iter().map(|game| (game.index, game.cut_off)));
        }
        assert_eq!(heads, [(1, false), (2, false)]);
    }

    /// Reading resumes right after the `}` of a comment longer than a
    /// read: the `;` just before that `}` is comment text and hides nothing
    /// after it on the line, so the next comment there still hides the
    /// `[Event` line within it.
    #[test]
    fn reading_goes_on_right_after_a_long_comments_end() {
        let long = "x".repeat(2 * super::window::READ_BYTES);
        let input = format!(
            "[Event \"a\"]\n\n1. e4 {{{long};}} {{b\n[Event \"hidden\"]\n}} e5 *\n\n[Event \"c\"]\n\n*\n"
        );
        let games = split(input.as_bytes());
        assert_eq!(
            games.len(),
            2,
            "the `[Event` line in a comment starts no game"
        );
        assert!(games[0].1.ends_with("e5 *\n\n"));
    }

    #[test]
    fn a_game_that_ends_inside_a_comment_is_cut_off() {
        for (input, cut_off) in [
            (
                &b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. e4 {never closed"[..],
                true,
            ),
            (
                b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. e4 {closed} *",
                false,
            ),
        ] {
            let mut reader = GameReader::new(input);
            let mut games = Vec::new();
            while let Some(batch) = reader.next_batch().unwrap() {
                games.extend(batch.games.iter().map(|game| game.cut_off));
            }
            assert_eq!(games, [false, cut_off]);
        }
    }

    /// The tag limit of a game counts its own tags, not those of the games
    /// before it in the buffer.
    #[test]
    fn many_small_games_in_one_batch_are_not_oversized() {
        let mut input = Vec::new();
        for i in 0..100_000 {
            let game = format!("[Event \"{i}\"]\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n");
            input.extend_from_slice(game.as_bytes());
        }
        // One batch, read a piece at a time: the games before the one
        // being read keep their tags until the batch goes out.
        let source = Counting {
            rest: &input,
            read: Rc::default(),
        };
        let mut reader = GameReader::new(source).batch_bytes(64 << 20);
        let mut games = 0;
        while let Some(batch) = reader.next_batch().unwrap() {
            assert!(batch.games.iter().all(|game| !game.continued));
            games += batch.games.len();
        }
        assert_eq!(games, 100_000);
    }

    /// A batch size beyond any input, `usize::MAX` included, reads the
    /// whole input as one batch, from a slice and from a stream (whose
    /// room reserved up front is bounded): no overflow, no allocation of
    /// the size asked for.
    #[test]
    fn any_batch_size_is_taken_up_to_usize_max() {
        let input: Vec<u8> = (0..2_000)
            .flat_map(|i| format!("[Event \"{i}\"]\n\n1. e4 e5 *\n\n").into_bytes())
            .collect();
        for batch_bytes in [usize::MAX, usize::MAX - 1, 1 << 50, MAX_RESERVED_BATCH + 1] {
            let from_slice = GameReader::new(&input[..]).batch_bytes(batch_bytes);
            one_batch(from_slice, &input, &format!("a slice, {batch_bytes}"));
            let source = Counting {
                rest: &input,
                read: Rc::default(),
            };
            let from_stream = GameReader::new(source).batch_bytes(batch_bytes);
            one_batch(from_stream, &input, &format!("a stream, {batch_bytes}"));
        }
    }

    /// Asserts that `reader` hands out `input` as one batch of 2,000 games.
    fn one_batch<W: Window>(mut reader: GameReader<W>, input: &[u8], what: &str) {
        let batch = reader.next_batch().unwrap().expect("a batch");
        assert_eq!(batch.games.len(), 2_000, "{what}");
        assert!(&batch.data[..] == input, "{what}: the batch is the input");
        assert!(reader.next_batch().unwrap().is_none(), "{what}: one batch");
    }

    /// Reads from a slice at most 64 KiB at a time, as a pipe does,
    /// counting the bytes read.
    struct Counting<'a> {
        rest: &'a [u8],
        read: Rc<Cell<usize>>,
    }

    impl Read for Counting<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let most = buf.len().min(64 << 10);
            let n = self.rest.read(&mut buf[..most])?;
            self.read.set(self.read.get() + n);
            Ok(n)
        }
    }

    /// A blank line of a lone `\r` (old Mac files) is decided as soon as
    /// the byte after it is read: the first games go out long before the
    /// end of the input.
    #[test]
    fn lone_cr_blank_lines_do_not_wait_for_the_end_of_input() {
        let mut input = Vec::new();
        for i in 0..100_000 {
            input.extend_from_slice(format!("[Event \"{i}\"]\r\r1. e4 *\r\r").as_bytes());
        }
        let read = Rc::new(Cell::new(0));
        let source = Counting {
            rest: &input,
            read: Rc::clone(&read),
        };
        let mut reader = GameReader::new(source).batch_bytes(64 << 10);
        let first = reader.next_batch().unwrap().expect("a batch");
        assert!(first.games.len() > 100);
        assert!(
            read.get() < input.len() / 2,
            "{} of {} bytes read for the first batch",
            read.get(),
            input.len()
        );
    }

    /// A game of 200,000 tags is one game in pieces, unread, wherever the
    /// reads end in its tag lines (a read ending right on a tag line made
    /// it two games, the second with the tags after the cut).
    #[test]
    fn a_game_of_too_many_tags_is_one_game_wherever_reads_end() {
        for pad in 0..8 {
            let mut input = format!("[Event \"{}\"]\n", "e".repeat(pad)).into_bytes();
            for _ in 0..200_000 {
                input.extend_from_slice(b"[T \"v\"]\n");
            }
            input.extend_from_slice(b"[FEN \"f\"]\n\n1. e4 *\n\n[Event \"next\"]\n\n*\n");
            let mut reader = GameReader::new(&input[..]);
            let mut heads = Vec::new();
            while let Some(batch) = reader.next_batch().unwrap() {
                heads.extend(
                    batch
                        .games
                        .iter()
                        .map(|game| (game.index, game.continued, game.tags_incomplete)),
                );
            }
            assert_eq!(heads, [(1, true, true), (2, false, false)], "pad {pad}");
        }
    }

    /// A game of more tags than any game has is handed out in pieces, so
    /// that a hostile tag section cannot hold the whole input in memory.
    #[test]
    fn a_game_of_too_many_tags_comes_in_pieces() {
        // 16 bytes, then tag lines of 8: the first read (1 MiB) ends at a
        // line end, where the reader decides.
        let mut input = b"[Event \"abcde\"]\n".to_vec();
        for _ in 0..200_000 {
            input.extend_from_slice(b"[T \"v\"]\n");
        }
        input.extend_from_slice(b"\n*\n");
        let mut reader = GameReader::new(&input[..]);
        let mut pieces = Vec::new();
        while let Some(batch) = reader.next_batch().unwrap() {
            pieces.extend(
                batch
                    .games
                    .iter()
                    .map(|game| (game.continued, batch.tags_of(game).len())),
            );
        }
        assert_eq!(pieces.first(), Some(&(true, 131_071)), "{pieces:?}");
    }
}
