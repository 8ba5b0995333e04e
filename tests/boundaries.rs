//! Archives whose game boundaries are hard to find, built so that the
//! splitter's reads (1 MiB at a time, from the start of the input) end at
//! every offset of the hard part: comment lines and byte-order marks in tag
//! sections, tag sections of more tags than a game may hold at once, tag
//! lines of megabytes, inputs of white space only. Shared by
//! `tag_properties`, `filter_properties` and `fix_properties`, each of
//! which holds its command to what the generator recorded of each game.

use pgn960::BackRank;
use pgn960::split::GameReader;

/// What the splitter reads at a time.
pub const READ: usize = 1 << 20;

/// What a game of a case is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// A Chess960 game from the array of this number.
    Chess960(u32),
    /// A standard game (no `FEN`).
    Standard,
    /// A game whose tags cannot all be read: left as it is.
    Unreadable,
}

/// An archive, and what the generator knows of it.
#[derive(Clone, Debug)]
pub struct Case {
    /// What it is, for messages.
    pub what: String,
    /// Its bytes.
    pub input: Vec<u8>,
    /// Where each game starts, and what it is.
    pub games: Vec<(usize, Expect)>,
}

/// A FEN of array `id`, X-FEN castling.
pub fn fen(id: u32) -> String {
    BackRank::from_scharnagl(id)
        .expect("ids below 960")
        .to_xfen()
}

/// A standard game of exactly `len` bytes (at least 30), its comment
/// padding it out.
fn padding_game(len: usize) -> Vec<u8> {
    let mut game = b"[Event \"pad\"]\n\n1. e4 {".to_vec();
    let tail = b"} *\n\n";
    assert!(
        len >= game.len() + tail.len(),
        "a padding game of {len} bytes"
    );
    game.resize(len - tail.len(), b'x');
    game.extend_from_slice(tail);
    game
}

/// `parts` after a padding game long enough that the first read ends
/// `offset` bytes into them (`offset` below [`READ`] minus 30).
fn case(what: String, parts: &[(Vec<u8>, Expect)], offset: usize) -> Case {
    let mut input = padding_game(READ - offset);
    let mut games = vec![(0, Expect::Standard)];
    for (bytes, expect) in parts {
        games.push((input.len(), *expect));
        input.extend_from_slice(bytes);
    }
    Case {
        what: format!("{what}, the first read ending {offset} bytes in"),
        input,
        games,
    }
}

/// `\n` of `text` as `eol`.
fn with_eol(text: &str, eol: &str) -> Vec<u8> {
    text.replace('\n', eol).into_bytes()
}

/// Games with comments among their tags and a byte-order mark before one,
/// a tag section of tags only among them: every line ending, and the first
/// read ending at every offset of them.
pub fn comment_and_bom_cases() -> Vec<Case> {
    let fen959 = fen(959);
    let fen0 = fen(0);
    let mut cases = Vec::new();
    for eol in ["\n", "\r\n", "\r"] {
        let commented = with_eol(
            &format!(
                "[Event \"comments\"]\n[Variant \"Chess960\"] ; exported by some GUI {{\n\
                 ; a comment line [Event \"not a tag\"]\n{{ a brace comment\n\
                 [Event \"inside it\"]\n\n}} ; and a line comment\n\
                 [Site \"s\"] {{ after a tag }} [Round \"1\"]\n\
                 \t{{a}}{{b}} [White \"w\"]\n\
                 [FEN \"{fen959}\"]\n% an escape line\n[SetUp \"1\"]\n\n1. e4 e5 *\n\n"
            ),
            eol,
        );
        let bom = [
            &b"\xef\xbb\xbf"[..],
            &with_eol(
                &format!("[Event \"bom\"]\n[FEN \"{fen0}\"]\n\n1. e4 *\n"),
                eol,
            ),
        ]
        .concat();
        // Games of tags only, the second after a byte-order mark.
        let tags_only = [
            with_eol("[Event \"tags a\"]\n; only\n[Site \"a\"]\n\n", eol),
            b"\xef\xbb\xbf".to_vec(),
            with_eol(
                &format!("[Event \"tags b\"]\n{{c}}\n[FEN \"{fen0}\"]\n\n"),
                eol,
            ),
        ];
        let parts = [
            (commented, Expect::Chess960(959)),
            (bom, Expect::Chess960(0)),
            (tags_only[0].clone(), Expect::Standard),
            (
                [&tags_only[1][..], &tags_only[2]].concat(),
                Expect::Chess960(0),
            ),
            (
                with_eol("[Event \"last\"]\n\n1. d4 *\n", eol),
                Expect::Standard,
            ),
        ];
        let len: usize = parts.iter().map(|(bytes, _)| bytes.len()).sum();
        for offset in 0..=len {
            cases.push(case(format!("comments and BOMs, {eol:?}"), &parts, offset));
        }
    }
    cases
}

/// A game of 140,000 tags and more (its `Variant` and `FEN` after them),
/// more than a game may hold at once: a read ends in its tag section at
/// every offset of a tag line, and on a tag line exactly (the case of the
/// issue). It is one game, unreadable, wherever the reads end.
pub fn many_tags_cases() -> Vec<Case> {
    let many = |pad: usize| {
        let mut game = format!("[Event \"{}\"]\n", "e".repeat(pad)).into_bytes();
        for _ in 0..140_000 {
            game.extend_from_slice(b"[Note \"abcdef\"]\n"); // 16 bytes
        }
        game.extend_from_slice(
            format!(
                "[Variant \"Chess960\"]\n[FEN \"{}\"]\n\n1. e4 *\n\n",
                fen(959)
            )
            .as_bytes(),
        );
        game
    };
    let next = format!("[Event \"next\"]\n[FEN \"{}\"]\n\n1. e4 *\n", fen(0)).into_bytes();
    (0..17)
        .map(|pad| {
            let parts = [
                (many(pad), Expect::Unreadable),
                (next.clone(), Expect::Chess960(0)),
            ];
            case(format!("140,000 tags, Event of {pad} bytes"), &parts, 0)
        })
        .collect()
}

/// A game with a tag line of `len` bytes (from its `[` to its line end),
/// between its `Event` and its `FEN`, then another game: the line starts
/// and ends at reads' ends and near them.
pub fn long_tag_line_cases(lens: &[usize]) -> Vec<Case> {
    let mut cases = Vec::new();
    for &len in lens {
        let head = b"[Event \"long\"]\n".to_vec();
        let mut line = b"[Annotation \"".to_vec();
        line.resize(len - 2, b'x');
        line.extend_from_slice(b"\"]");
        assert_eq!(line.len(), len);
        let tail = format!(
            "\n[Variant \"Chess960\"]\n[FEN \"{}\"]\n\n1. e4 *\n\n",
            fen(959)
        );
        let game = [&head[..], &line, tail.as_bytes()].concat();
        let next = format!("[Event \"next\"]\n[FEN \"{}\"]\n\n1. e4 *\n", fen(0)).into_bytes();
        // Held whole when the game's tag section fits in 16 MiB; longer,
        // unread. (Near the limit, whether it fits depends on where reads
        // end: not a case here.)
        assert!(len <= 15 << 20 || len >= 16 << 20, "{len} bytes");
        let expect = if len < 16 << 20 {
            Expect::Chess960(959)
        } else {
            Expect::Unreadable
        };
        let line_end = head.len() + len;
        let mut offsets = vec![0, head.len() - 1, head.len(), head.len() + 1, 1000];
        // Reads end where the line ends, and a byte either side.
        let at_end = line_end % READ;
        offsets.extend([at_end.saturating_sub(1), at_end, at_end + 1]);
        offsets.retain(|&offset| offset + 30 < READ);
        offsets.sort_unstable();
        offsets.dedup();
        for offset in offsets {
            let parts = [(game.clone(), expect), (next.clone(), Expect::Chess960(0))];
            cases.push(case(format!("a tag line of {len} bytes"), &parts, offset));
        }
    }
    cases
}

/// Inputs of white space, byte-order marks and comments only, around the
/// size of a read and beyond: no game at all.
pub fn no_game_inputs() -> Vec<Vec<u8>> {
    let mut inputs = Vec::new();
    for len in [0, 1, READ - 1, READ, READ + 1, 2 * READ + 3] {
        for pattern in [
            &b" \t\n"[..],
            b"\r\n",
            b"\xef\xbb\xbf\n  ",
            b"; c\n{ c }\n\n",
        ] {
            inputs.push(pattern.iter().copied().cycle().take(len).collect());
        }
    }
    inputs
}

/// Where each game of `input` starts, as the library splits it (a game in
/// pieces counted once, where its first piece starts), and whether its
/// tags are all read.
pub fn split_games(input: &[u8]) -> Vec<(usize, bool)> {
    let mut reader = GameReader::new(input);
    let mut games = Vec::new();
    let mut offset = 0;
    while let Some(batch) = reader
        .next_batch()
        .expect("reading from memory cannot fail")
    {
        for game in &batch.games {
            games.push((offset + game.range.start, !game.tags_incomplete));
        }
        offset += batch.data.len();
    }
    assert_eq!(offset, input.len(), "batches cover the input");
    games
}

/// The starts and readability the case records.
pub fn expected_games(case: &Case) -> Vec<(usize, bool)> {
    case.games
        .iter()
        .map(|&(start, expect)| (start, expect != Expect::Unreadable))
        .collect()
}

/// Each game's bytes, `starts` marking where each begins.
pub fn game_bytes<'a>(input: &'a [u8], starts: &[usize]) -> Vec<&'a [u8]> {
    starts
        .iter()
        .enumerate()
        .map(|(i, &start)| &input[start..starts.get(i + 1).copied().unwrap_or(input.len())])
        .collect()
}
