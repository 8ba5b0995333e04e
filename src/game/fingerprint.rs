//! A game's fingerprint: what makes it the same game whatever the
//! download, hashed to 128 bits, so that `stats`, `filter --unique` and
//! `games` find the copies of a game.
//!
//! What goes in, each part normalised, in this order:
//!
//! - the tags `Event`, `Date`, `Round`, `White`, `Black` and `Result`
//!   (the last of each name; its value unescaped, trimmed, runs of white
//!   space made one space, ASCII letters lower-cased; an absent tag is
//!   told from an empty one);
//! - the start: the start array's Scharnagl number for a `chess960` or
//!   `standard` game (so a game without `FEN` and the same game with the
//!   standard array's `FEN` agree, as do X-FEN and Shredder-FEN), both
//!   back ranks' numbers for `dfrc`; for any other game, its kind, the
//!   board and side to move of its last `FEN`, and its `Variant` as
//!   [`fold`](super::fold) spells it;
//! - the mainline's moves, up to its result: each without the move
//!   number, check or mate sign and annotation glyphs (`+`, `#`, `!`,
//!   `?`), `0-0` read as `O-O`.
//!
//! Comments (clocks and evaluations included), NAGs, variations, move
//! numbers, spacing, line ends, escape lines and every other tag (`Site`,
//! ratings, the id tags this tool writes) are left out. `Event`, `Date`
//! and `Round` are in because two real games can agree on everything
//! else: the corpus's `chess960-events-headers.pgn` (tags only) holds 20
//! pairs of games between the same players, on the same day, in the same
//! round, position and result, one of a rapid event and one of a blitz
//! event; and engine matches that replay a book opening can repeat a
//! game's moves and result in another round.
//!
//! The hash is XXH3's 128-bit variant (`twox-hash`), in two parts: the
//! head (the tags and the start, normalised, one after another) and the
//! moves (each move normalised and followed by a space) are hashed apart,
//! and the fingerprint is the hash of both hashes. So `stats` can read a
//! game's moves only when another game has its head ([`Fingerprint::head`]).
//! For n different games, the chance that any two share a fingerprint is
//! about n² / 2¹²⁹, 1.5 × 10⁻²¹ for a billion games.

use twox_hash::XxHash3_128;

use crate::movetext::write_mainline;
use crate::split::{Batch, Game};

use super::{Kind, Known, Reading, tag_value};

/// The tags that go into a fingerprint, in order.
const TAGS: [Known; 6] = [
    Known::Event,
    Known::Date,
    Known::Round,
    Known::White,
    Known::Black,
    Known::Result,
];

/// A game's fingerprint (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u128);

impl Fingerprint {
    /// The fingerprint of a game of a batch, read as `reading`; `scratch`
    /// is a buffer to reuse from game to game. `None` for a game whose
    /// tags or movetext are not whole (read in pieces: a game longer than
    /// the reader's limit, 16 MiB by default), which is never taken for
    /// a copy of another.
    ///
    /// # Example
    ///
    /// ```
    /// use pgn960::game::{Fingerprint, Reading};
    /// use pgn960::split::GameReader;
    ///
    /// let pgn = b"[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 {[%clk 0:03:00]} e5 2. Qh5 1-0\n\n\
    ///             [White \" a \"]\n[Black \"B\"]\n[Chess960Id \"518\"]\n[Result \"1-0\"]\n\n1.e4 e5 (1...c5) 2.Qh5! 1-0\n";
    /// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
    /// let mut scratch = Vec::new();
    /// let [a, b] = [0, 1].map(|i| {
    ///     let game = &batch.games[i];
    ///     Fingerprint::of(&batch, game, &Reading::of(&batch, game), &mut scratch)
    /// });
    /// assert!(a.is_some());
    /// assert_eq!(a, b);
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn of(
        batch: &Batch,
        game: &Game,
        reading: &Reading,
        scratch: &mut Vec<u8>,
    ) -> Option<Fingerprint> {
        let head = Fingerprint::head(batch, game, reading, scratch)?;
        let (start, starts_line) = batch.movetext_start(game);
        let moves = Fingerprint::moves(&batch.data[start..game.range.end], starts_line, scratch);
        Some(Fingerprint::join(head, moves))
    }

    /// The hash of what a game's fingerprint holds but its moves: its
    /// tags and start; `None` for a game whose tags or movetext are not
    /// whole (see [`Fingerprint::of`]). Two games whose heads differ are
    /// different games, so `stats` reads the moves of a game only when
    /// another game has its head.
    pub fn head(
        batch: &Batch,
        game: &Game,
        reading: &Reading,
        scratch: &mut Vec<u8>,
    ) -> Option<u128> {
        if game.continued || game.tags_incomplete {
            return None;
        }
        scratch.clear();
        for known in TAGS {
            match reading.headers.get(known) {
                Some(tag) => {
                    scratch.push(1);
                    push_value(scratch, batch.raw_value(&batch.tags[tag]));
                }
                None => scratch.push(2),
            }
            scratch.push(0);
        }
        push_start(scratch, batch, reading);
        Some(XxHash3_128::oneshot(scratch))
    }

    /// The hash of a game's mainline moves, from its movetext `text`
    /// (`starts_line`: whether `text` begins a line).
    pub fn moves(text: &[u8], starts_line: bool, scratch: &mut Vec<u8>) -> u128 {
        scratch.clear();
        write_mainline(text, starts_line, scratch);
        XxHash3_128::oneshot(scratch)
    }

    /// The fingerprint of a game of head `head` and moves `moves`.
    pub fn join(head: u128, moves: u128) -> Fingerprint {
        let mut both = [0; 32];
        both[..16].copy_from_slice(&head.to_le_bytes());
        both[16..].copy_from_slice(&moves.to_le_bytes());
        Fingerprint(XxHash3_128::oneshot(&both))
    }

    /// The fingerprint as 32 hexadecimal digits.
    pub fn hex(&self) -> String {
        format!("{:032x}", self.0)
    }
}

/// A tag's raw value (still escaped), unescaped and normalised as
/// [`push_normalised`] does. Most values hold no escape and no white
/// space but single spaces: those are copied and lower-cased in one pass
/// over their bytes, the others read again the general way.
fn push_value(out: &mut Vec<u8>, raw: &[u8]) {
    let value = raw.trim_ascii();
    let from = out.len();
    out.extend_from_slice(value);
    let mut unusual = false;
    let mut after_space = false;
    for byte in &mut out[from..] {
        let space = *byte == b' ';
        unusual |= *byte == b'\\' || (byte.is_ascii_whitespace() && (!space || after_space));
        after_space = space;
        byte.make_ascii_lowercase();
    }
    if unusual {
        out.truncate(from);
        push_normalised(out, &pgn_reader::RawTag(raw).decode());
    }
}

/// A tag's value: trimmed, each run of white space one space, ASCII
/// letters lower-cased.
fn push_normalised(out: &mut Vec<u8>, value: &[u8]) {
    let value = value.trim_ascii();
    // Most values hold no white space but single spaces: copied whole,
    // then lower-cased.
    let plain = !value
        .windows(2)
        .any(|pair| pair[0].is_ascii_whitespace() && pair[1].is_ascii_whitespace())
        && !value.iter().any(|b| b.is_ascii_whitespace() && *b != b' ');
    if plain {
        let from = out.len();
        out.extend_from_slice(value);
        out[from..].make_ascii_lowercase();
        return;
    }
    let mut space = false;
    for &b in value {
        if b.is_ascii_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(b' ');
            space = false;
        }
        out.push(b.to_ascii_lowercase());
    }
}

/// Where the game starts (see the module's documentation).
fn push_start(out: &mut Vec<u8>, batch: &Batch, reading: &Reading) {
    use crate::position::StartArray;
    if let Some(rank) = reading.back_rank() {
        out.push(b'a');
        out.extend_from_slice(&rank.scharnagl().to_le_bytes());
        return;
    }
    if let (Kind::Dfrc, super::Start::Array(StartArray::DoubleFrc { white, black })) =
        (reading.kind, &reading.start)
    {
        out.push(b'd');
        out.extend_from_slice(&white.scharnagl().to_le_bytes());
        out.extend_from_slice(&black.scharnagl().to_le_bytes());
        return;
    }
    out.push(b'o');
    out.extend_from_slice(reading.kind.name().as_bytes());
    out.push(0);
    if let Some(&fen) = reading.headers.fens().last() {
        let fen = tag_value(batch, &batch.tags[fen]);
        for (i, field) in fen
            .split(u8::is_ascii_whitespace)
            .filter(|f| !f.is_empty())
            .take(2)
            .enumerate()
        {
            if i > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(field);
        }
    }
    out.push(0);
    if let Some(variant) = reading.headers.get(Known::Variant) {
        out.extend_from_slice(&super::fold(&tag_value(batch, &batch.tags[variant])));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    fn fingerprints(pgn: &str) -> Vec<Option<Fingerprint>> {
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        let mut scratch = Vec::new();
        batch
            .games
            .iter()
            .map(|game| Fingerprint::of(&batch, game, &Reading::of(&batch, game), &mut scratch))
            .collect()
    }

    const FEN: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR";

    /// The same game as downloads write it: one fingerprint.
    #[test]
    fn downloads_of_one_game_agree() {
        let games = [
            format!(
                "[Event \"Rated\"]\n[Date \"2024.01.02\"]\n[Round \"1\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"1-0\"]\n[Variant \"Chess960\"]\n[FEN \"{FEN} w KQkq - 0 1\"]\n\n1. e4 {{[%clk 0:03:00]}} e5 2. Qh5+ $1 Nc6 3. O-O 1-0\n\n"
            ),
            format!(
                "[Event \"  rated \"]\r\n[Site \"elsewhere\"]\r\n[Date \"2024.01.02\"]\r\n[Round \"1\"]\r\n[White \"ann\"]\r\n[Black \"Bo\"]\r\n[Result \"1-0\"]\r\n[FEN \"{FEN} w HFhf - 0 1\"]\r\n[Chess960Id \"0\"]\r\n[WhiteElo \"2000\"]\r\n\r\n1.e4 e5 (1...c5 2.Nf3) 2.Qh5 ; check\r\n2...Nc6!? 3.0-0 1-0\r\n\r\n"
            ),
        ];
        let found = fingerprints(&games.concat());
        assert!(found[0].is_some());
        assert_eq!(found[0], found[1]);
    }

    /// Within a tag's value, a run of white space of any kind counts as one
    /// space: the names below are one player's.
    #[test]
    fn white_space_within_a_value_is_one_space() {
        let games: String = [
            "Ann Lee",
            "Ann  Lee",
            "Ann\tLee",
            "ann \t Lee",
            " Ann Lee\t",
        ]
        .iter()
        .map(|white| format!("[White \"{white}\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n"))
        .collect();
        let found = fingerprints(&games);
        assert_eq!(found.len(), 5);
        assert!(found[0].is_some());
        assert!(found.iter().all(|f| *f == found[0]), "{found:?}");
        let other = fingerprints("[White \"AnnLee\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n");
        assert_ne!(other[0], found[0]);
    }

    /// A game that starts from no start array is known by its FEN's board
    /// and side to move, however spaced and whatever its counters, kept
    /// apart: `9/…/K6k bx` is not `9/…/K6kb x` (two unreadable FENs).
    #[test]
    fn another_start_is_its_board_and_side_to_move() {
        let game = |fen: &str| format!("[FEN \"{fen}\"]\n[Result \"*\"]\n\n*\n\n");
        let found = fingerprints(
            &[
                "8/8/8/8/8/8/8/K6k b - - 0 1",
                "8/8/8/8/8/8/8/K6k   b - - 7 40",
                "8/8/8/8/8/8/8/K6k w - - 0 1",
                "9/8/8/8/8/8/8/K6k bx",
                "9/8/8/8/8/8/8/K6kb x",
            ]
            .map(game)
            .concat(),
        );
        assert!(found.iter().all(Option::is_some));
        assert_eq!(found[0], found[1]);
        assert_ne!(found[0], found[2]);
        assert_ne!(found[3], found[4]);
    }

    /// A game read in pieces (longer than the reader's limit, and than a
    /// read of 1 MiB) is never taken for a copy: it has no fingerprint,
    /// and the game after it has one.
    #[test]
    fn a_game_read_in_pieces_has_none() {
        let pgn = format!(
            "[White \"A\"]\n[Result \"1-0\"]\n\n1. e4 {{{}}} e5 1-0\n\n[White \"B\"]\n\n1. d4 *\n",
            "x".repeat(3 << 20)
        );
        let mut reader = GameReader::new(pgn.as_bytes()).max_game_bytes(64 << 10);
        let mut scratch = Vec::new();
        let mut found = Vec::new();
        while let Some(batch) = reader.next_batch().expect("in memory") {
            for game in &batch.games {
                let reading = Reading::of(&batch, game);
                let fingerprint = Fingerprint::of(&batch, game, &reading, &mut scratch);
                found.push((game.continued, fingerprint.is_some()));
            }
        }
        assert_eq!(found, [(true, false), (false, true)]);
    }

    /// The one-pass reading of a value gives what unescaping it and then
    /// normalising it gives, over every value of up to five bytes of an
    /// alphabet of letters, blanks, escapes and quotes.
    #[test]
    fn a_value_read_in_one_pass_is_unescaped_and_normalised() {
        let alphabet = [b'a', b'B', b' ', b'\t', b'\\', b'"', b'\n'];
        let mut checked = 0;
        for len in 0..=5u32 {
            for n in 0..alphabet.len().pow(len) {
                let raw: Vec<u8> = (0..len)
                    .map(|i| alphabet[n / alphabet.len().pow(i) % alphabet.len()])
                    .collect();
                let (mut quick, mut slow) = (vec![9], vec![9]);
                push_value(&mut quick, &raw);
                push_normalised(&mut slow, &pgn_reader::RawTag(&raw).decode());
                assert_eq!(quick, slow, "{:?}", String::from_utf8_lossy(&raw));
                checked += 1;
            }
        }
        assert_eq!(checked, 19_608);
    }

    /// Each part that makes a game another game changes the fingerprint.
    #[test]
    fn another_game_is_another_fingerprint() {
        let base = format!(
            "[Event \"E\"]\n[Date \"2024.01.02\"]\n[Round \"1\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"1-0\"]\n[FEN \"{FEN} w KQkq - 0 1\"]\n\n1. e4 e5 1-0\n\n"
        );
        let others = [
            base.replace("\"E\"", "\"E2\""),
            base.replace("2024.01.02", "2024.01.03"),
            base.replace("\"1\"", "\"2\""),
            base.replace("Ann", "Bo")
                .replacen("\"Bo\"]\n[Result", "\"Ann\"]\n[Result", 1),
            base.replace("[Result \"1-0\"]", "[Result \"0-1\"]"),
            base.replace("bbqnnrkr", "bbqnrnkr")
                .replace("BBQNNRKR", "BBQNRNKR"),
            base.replace("e4 e5", "e4 e6"),
            base.replace("e4 e5", "e4"),
            base.replace("[Round \"1\"]\n", ""),
            base.replace("[Round \"1\"]", "[Round \"\"]"),
        ];
        let mut all = base.clone();
        for other in &others {
            all.push_str(other);
        }
        let found = fingerprints(&all);
        assert_eq!(found.len(), others.len() + 1);
        for (i, a) in found.iter().enumerate() {
            assert!(a.is_some());
            for b in &found[i + 1..] {
                assert_ne!(a, b, "game {i}");
            }
        }
    }
}
