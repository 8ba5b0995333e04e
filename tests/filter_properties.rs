//! `filter C` and `filter C --invert`, put back together by game index,
//! are the input byte for byte, for generated archives and criteria; and
//! each selects exactly the games an oracle written from the generator's
//! own record of each game says it should (kinds, positions and ratings
//! by hand; findings from `validate`, which `--finding` must follow).
//!
//! The archives mix every kind of game with the hostile tag values and
//! movetext of `tag_properties` (comments holding tag lines, `%` and `;`
//! lines, random line endings, stray text between games). Most cases run
//! through the library, which is fast; a few through the binary.

use std::collections::HashSet;

use pgn960::BackRank;
use pgn960::filter::{self, Filter, PositionSet, Router, select_batch, write_runs};
use pgn960::split::GameReader;
use pgn960::validate::{Code, ValidateOptions, validate_batch};
use proptest::prelude::*;

use crate::boundaries::{
    Case, Expect, comment_and_bom_cases, game_bytes, long_tag_line_cases, many_tags_cases,
    no_game_inputs,
};
use crate::common::pgn960;
use crate::tag_properties::{
    AFTER_TAG_COMMENTS, Bytes, TAG_LINE_COMMENTS, config, movetext_token, tag_value,
};

/// The positions games start from: few, so that criteria hit them.
const POOL: [u32; 7] = [0, 1, 17, 42, 518, 700, 959];

/// How a generated game starts, and so what it is.
#[derive(Clone, Debug)]
enum Start {
    /// A FEN of this array; a Variant naming Chess960 or none.
    Array {
        id: u32,
        variant: bool,
        shredder: bool,
    },
    /// No FEN: standard chess.
    NoFen,
    /// White's and Black's arrays differ: Double FRC.
    Dfrc { white: u32, black: u32 },
    /// A set-up position.
    SetUp,
    /// Another game (Atomic), perhaps on a 960 array.
    Atomic { fen: Option<u32> },
    /// A FEN that does not read, or two that conflict.
    Unreadable { conflict: bool },
}

impl Start {
    fn kind(&self) -> &'static str {
        match *self {
            Start::Array { id, variant, .. } if variant || id != 518 => "chess960",
            Start::Array { .. } | Start::NoFen => "standard",
            Start::Dfrc { .. } => "dfrc",
            Start::SetUp | Start::Atomic { .. } => "other",
            Start::Unreadable { .. } => "unreadable",
        }
    }

    /// The Scharnagl number, for games of one start position.
    fn position(&self, include_standard: bool) -> Option<u32> {
        match (self.kind(), self) {
            ("chess960", Start::Array { id, .. }) => Some(*id),
            ("standard", _) if include_standard => Some(518),
            _ => None,
        }
    }

    /// The FEN, Variant and SetUp tags.
    fn tags(&self) -> Vec<(&'static str, String)> {
        let fen = |id: u32, shredder: bool| {
            let rank = BackRank::from_scharnagl(id).expect("pool ids are below 960");
            if shredder {
                rank.to_shredder_fen()
            } else {
                rank.to_xfen()
            }
        };
        let mut tags = vec![("SetUp", "1".to_string())];
        match *self {
            Start::Array {
                id,
                variant,
                shredder,
            } => {
                tags.push(("FEN", fen(id, shredder)));
                if variant {
                    tags.push(("Variant", "Chess960".to_string()));
                }
            }
            Start::NoFen => tags.clear(),
            Start::Dfrc { white, black } => {
                let black = BackRank::from_scharnagl(black).expect("a pool id");
                let white = BackRank::from_scharnagl(white).expect("a pool id");
                let board = format!(
                    "{}/pppppppp/8/8/8/8/PPPPPPPP/{white}",
                    black.to_string().to_lowercase()
                );
                tags.push(("FEN", format!("{board} w - - 0 1")));
            }
            Start::SetUp => tags.push(("FEN", "8/8/8/8/8/8/8/K6k w - - 0 1".to_string())),
            Start::Atomic { fen: array } => {
                tags.push(("Variant", "Atomic".to_string()));
                if let Some(id) = array {
                    tags.push(("FEN", fen(id, false)));
                }
            }
            Start::Unreadable { conflict: false } => {
                tags.push((
                    "FEN",
                    "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w".to_string(),
                ));
            }
            Start::Unreadable { conflict: true } => {
                tags.push(("FEN", fen(0, false)));
                tags.push(("FEN", fen(959, false)));
            }
        }
        tags
    }
}

/// Values of rating tags, rated or not.
const ELOS: [&str; 8] = ["2400", " 2550 ", "1800", "4000", "0", "?", "4001", "-2500"];

/// The rating a value is, by the rule `stats` documents: an integer
/// 1..=4000, spaces around it ignored.
fn rating(value: Option<&str>) -> Option<i32> {
    let elo: i32 = value?.trim().parse().ok()?;
    (1..=4000).contains(&elo).then_some(elo)
}

#[derive(Clone, Debug)]
struct Game {
    eol: &'static str,
    start: Start,
    white_elo: Option<&'static str>,
    black_elo: Option<&'static str>,
    extra_tags: Vec<(&'static str, Bytes)>,
    /// `None`: a game of tags only.
    movetext: Option<Vec<Bytes>>,
    result: &'static str,
    separator: &'static str,
    /// A comment among the tags, after the tag of its index (modulo their
    /// number): on a line of its own (`true`), or after the tag on its line.
    tag_comment: Option<(usize, (bool, &'static str))>,
    /// A UTF-8 byte-order mark before the first tag.
    bom: bool,
}

impl Game {
    /// The game's bytes; `\n` becomes the game's line ending.
    fn render(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if self.bom {
            out.extend_from_slice(b"\xef\xbb\xbf");
        }
        out.extend_from_slice(b"[Event \"generated\"]\n");
        let mut tags: Vec<(&str, Vec<u8>)> = Vec::new();
        for (name, value) in [("WhiteElo", self.white_elo), ("BlackElo", self.black_elo)] {
            if let Some(value) = value {
                tags.push((name, value.as_bytes().to_vec()));
            }
        }
        tags.extend(self.extra_tags.iter().map(|(n, v)| (*n, v.0.clone())));
        tags.extend(
            self.start
                .tags()
                .into_iter()
                .map(|(n, v)| (n, v.into_bytes())),
        );
        let count = tags.len().max(1);
        for (i, (name, value)) in tags.into_iter().enumerate() {
            out.extend_from_slice(format!("[{name} \"").as_bytes());
            out.extend_from_slice(&value);
            out.extend_from_slice(b"\"]");
            match self.tag_comment {
                Some((at, (own_line, comment))) if at % count == i => {
                    out.push(if own_line { b'\n' } else { b' ' });
                    out.extend_from_slice(comment.as_bytes());
                    out.push(b'\n');
                }
                _ => out.push(b'\n'),
            }
        }
        if let Some(tokens) = &self.movetext {
            out.push(b'\n');
            for token in tokens {
                out.extend_from_slice(&token.0);
                out.push(b' ');
            }
            out.extend_from_slice(self.result.as_bytes());
            out.push(b'\n');
        }
        out.extend_from_slice(self.separator.as_bytes());
        let mut with_eol = Vec::with_capacity(out.len());
        for &b in &out {
            if b == b'\n' {
                with_eol.extend_from_slice(self.eol.as_bytes());
            } else {
                with_eol.push(b);
            }
        }
        with_eol
    }
}

#[derive(Clone, Debug)]
struct Archive {
    preamble: &'static [u8],
    games: Vec<Game>,
}

impl Archive {
    /// Each game's bytes as the splitter must cut them: the preamble
    /// belongs to the first game.
    fn pieces(&self) -> Vec<Vec<u8>> {
        let mut pieces: Vec<Vec<u8>> = self.games.iter().map(Game::render).collect();
        if let Some(first) = pieces.first_mut() {
            first.splice(0..0, self.preamble.iter().copied());
        }
        pieces
    }

    /// The bytes of no game: the preamble of an archive without games.
    fn no_game(&self) -> &[u8] {
        if self.games.is_empty() {
            self.preamble
        } else {
            b""
        }
    }
}

fn pool_id() -> impl Strategy<Value = u32> {
    prop::sample::select(POOL.to_vec())
}

fn start() -> impl Strategy<Value = Start> {
    prop_oneof![
        6 => (pool_id(), any::<bool>(), any::<bool>())
            .prop_map(|(id, variant, shredder)| Start::Array { id, variant, shredder }),
        2 => Just(Start::NoFen),
        1 => (pool_id(), pool_id())
            .prop_filter("two different arrays", |(w, b)| w != b)
            .prop_map(|(white, black)| Start::Dfrc { white, black }),
        1 => Just(Start::SetUp),
        1 => prop::option::of(pool_id()).prop_map(|fen| Start::Atomic { fen }),
        1 => any::<bool>().prop_map(|conflict| Start::Unreadable { conflict }),
    ]
}

fn game() -> impl Strategy<Value = Game> {
    let eol = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    let elo = prop::option::weighted(0.8, prop::sample::select(ELOS.to_vec()));
    let name = prop_oneof![
        Just("Site"),
        Just("White"),
        Just("Black"),
        Just("Annotator")
    ];
    let extra_tags = prop::collection::vec((name, tag_value()), 0..3);
    // Legal openings often enough that games without findings occur.
    let token = prop_oneof![
        3 => prop_oneof![Just(b"1. e4".to_vec()), Just(b"e5".to_vec()), Just(b"2. Nf3".to_vec())]
            .prop_map(Bytes),
        1 => movetext_token(),
    ];
    let movetext = prop_oneof![
        5 => prop::collection::vec(token, 0..6).prop_map(Some),
        1 => Just(None),
    ];
    let result = prop_oneof![Just("1-0"), Just("0-1"), Just("1/2-1/2"), Just("*")];
    let separator = prop_oneof![
        Just(""),
        Just("\n"),
        Just("\n\n\n"),
        Just("\nstray text 1-0 \"x\" ] *** ---\n\n"),
        Just("\n% escape between games [Event \"q\"] {\n\n"),
        Just("\n; between games {\n\n"),
    ];
    let comment = prop_oneof![
        prop::sample::select(TAG_LINE_COMMENTS.to_vec()).prop_map(|c| (true, c)),
        prop::sample::select(AFTER_TAG_COMMENTS.to_vec()).prop_map(|c| (false, c)),
    ];
    let tag_comment = prop::option::weighted(0.2, (any::<usize>(), comment));
    (
        eol,
        start(),
        elo.clone(),
        elo,
        extra_tags,
        movetext,
        result,
        separator,
        (tag_comment, prop::bool::weighted(0.1)),
    )
        .prop_map(
            |(
                eol,
                start,
                white_elo,
                black_elo,
                extra_tags,
                movetext,
                result,
                separator,
                (tag_comment, bom),
            )| {
                let separator = if movetext.is_none() && separator.is_empty() {
                    // A game of tags only ends at a blank line.
                    "\n"
                } else {
                    separator
                };
                Game {
                    eol,
                    start,
                    white_elo,
                    black_elo,
                    extra_tags,
                    movetext,
                    result,
                    separator,
                    tag_comment,
                    bom,
                }
            },
        )
}

fn archive() -> impl Strategy<Value = Archive> {
    let preamble = prop_oneof![
        4 => Just(&b""[..]),
        1 => Just(&b"\xef\xbb\xbf"[..]),
        1 => Just(&b"\n\n"[..]),
        1 => Just(&b"% preamble escape [Event \"p\"] {\n"[..]),
        1 => Just(&b"; a comment before the first game {\n"[..]),
        1 => Just(&b"\xef\xbb\xbf{ a comment before the first game\n[Event \"p\"]\n} \t\r\n"[..]),
    ];
    // Now and then no game at all.
    let games = prop_oneof![
        12 => prop::collection::vec(game(), 1..10),
        1 => Just(Vec::new()),
    ];
    (preamble, games).prop_map(|(preamble, games)| Archive { preamble, games })
}

/// How a position criterion is written.
#[derive(Clone, Copy, Debug)]
enum Numbering {
    Scharnagl,
    Fritz9,
    Arrangement,
}

/// Generated criteria, as the command line gives them.
#[derive(Clone, Debug)]
struct Criteria {
    /// Each position option given, with its lists (an option given twice
    /// adds to its list; two options must both be met).
    positions: Vec<(Numbering, Vec<String>)>,
    include_standard: bool,
    kinds: Option<Vec<&'static str>>,
    min_elo: Option<i32>,
    findings: Option<Vec<&'static str>>,
    invert: bool,
}

/// A list item for one of the pool's positions, or a range between two.
fn position_item(numbering: Numbering) -> impl Strategy<Value = String> {
    (pool_id(), pool_id(), any::<bool>(), any::<bool>()).prop_map(move |(a, b, range, upper)| {
        let rank = |id| BackRank::from_scharnagl(id).expect("a pool id");
        let number = |id| match numbering {
            Numbering::Fritz9 => u32::from(rank(id).fritz9()),
            _ => id,
        };
        match numbering {
            Numbering::Arrangement if upper => rank(a).to_string(),
            Numbering::Arrangement => rank(a).to_string().to_lowercase(),
            _ if range => {
                let (low, high) = (number(a).min(number(b)), number(a).max(number(b)));
                format!("{low}-{high}")
            }
            _ => format!(" {} ", number(a)),
        }
    })
}

/// One position option, perhaps given twice: its lists.
fn position_option(numbering: Numbering) -> impl Strategy<Value = Vec<String>> {
    let list =
        prop::collection::vec(position_item(numbering), 1..4).prop_map(|items| items.join(","));
    prop::collection::vec(list, 1..3)
}

/// Each of the three position options, or not.
fn position_options() -> impl Strategy<Value = Vec<(Numbering, Vec<String>)>> {
    let option = |numbering, weight| {
        prop::option::weighted(weight, position_option(numbering))
            .prop_map(move |lists| lists.map(|lists| (numbering, lists)))
    };
    (
        option(Numbering::Scharnagl, 0.4),
        option(Numbering::Fritz9, 0.2),
        option(Numbering::Arrangement, 0.2),
    )
        .prop_map(|(a, b, c)| [a, b, c].into_iter().flatten().collect())
}

const KINDS: [&str; 5] = ["chess960", "standard", "dfrc", "other", "unreadable"];
const FINDINGS: [&str; 7] = [
    "error",
    "warning",
    "info",
    "illegal_move",
    "fen_unparsable",
    "variant_missing",
    "unterminated",
];

fn criteria() -> impl Strategy<Value = Criteria> {
    (
        position_options(),
        any::<bool>(),
        prop::option::weighted(0.3, prop::sample::subsequence(KINDS.to_vec(), 1..4)),
        prop::option::weighted(
            0.3,
            prop::sample::select(vec![0, 1, 1800, 2400, 2550, 4000]),
        ),
        prop::option::weighted(0.25, prop::sample::subsequence(FINDINGS.to_vec(), 1..3)),
        any::<bool>(),
    )
        .prop_map(
            |(positions, include_standard, kinds, min_elo, findings, invert)| Criteria {
                include_standard: include_standard && !positions.is_empty(),
                positions,
                kinds,
                min_elo,
                findings,
                invert,
            },
        )
}

impl Criteria {
    /// The command line's options.
    fn args(&self) -> Vec<String> {
        let mut args = Vec::new();
        for (numbering, lists) in &self.positions {
            for list in lists {
                let option = match numbering {
                    Numbering::Scharnagl => "--position",
                    Numbering::Fritz9 => "--fritz9",
                    Numbering::Arrangement => "--arrangement",
                };
                args.extend([option.to_string(), list.clone()]);
            }
        }
        if self.include_standard {
            args.push("--include-standard".to_string());
        }
        if let Some(kinds) = &self.kinds {
            args.extend(["--kind".to_string(), kinds.join(",")]);
        }
        if let Some(min) = self.min_elo {
            args.extend(["--min-elo".to_string(), min.to_string()]);
        }
        if let Some(findings) = &self.findings {
            args.extend(["--finding".to_string(), findings.join(",")]);
        }
        if self.invert {
            args.push("--invert".to_string());
        }
        args
    }

    /// The library's filter, read from the same lists.
    fn filter(&self) -> Filter {
        let mut filter = Filter {
            include_standard: self.include_standard,
            kinds: self
                .kinds
                .as_ref()
                .map(|kinds| filter::kinds(&kinds.join(",")).expect("generated kinds read")),
            min_elo: self.min_elo,
            findings: self
                .findings
                .as_ref()
                .map(|findings| filter::codes(&findings.join(",")).expect("generated codes read")),
            invert: self.invert,
            ..Filter::default()
        };
        for (numbering, lists) in &self.positions {
            let read = match numbering {
                Numbering::Scharnagl => PositionSet::scharnagl,
                Numbering::Fritz9 => PositionSet::fritz9,
                Numbering::Arrangement => PositionSet::arrangements,
            };
            let set = lists.iter().fold(PositionSet::EMPTY, |set, list| {
                set.union(&read(list).expect("generated lists read"))
            });
            filter.restrict_positions(set);
        }
        filter
    }

    /// The Scharnagl numbers one position option's lists name, by hand.
    fn named(numbering: Numbering, lists: &[String]) -> HashSet<u32> {
        let mut ids = HashSet::new();
        for item in lists.iter().flat_map(|list| list.split(',')) {
            let item = item.trim();
            if let Numbering::Arrangement = numbering {
                let rank: BackRank = item.parse().expect("a pool arrangement");
                ids.insert(u32::from(rank.scharnagl()));
                continue;
            }
            let (low, high) = match item.split_once('-') {
                Some((low, high)) => (low.parse().unwrap(), high.parse().unwrap()),
                None => (item.parse().unwrap(), item.parse().unwrap()),
            };
            for number in low..=high {
                ids.insert(match numbering {
                    Numbering::Fritz9 => u32::from(
                        BackRank::from_fritz9(number)
                            .expect("a Fritz9 number")
                            .scharnagl(),
                    ),
                    _ => number,
                });
            }
        }
        ids
    }

    /// Whether `game` must be selected; `codes` are the codes `validate`
    /// reports for it.
    fn selects(&self, game: &Game, codes: &[Code]) -> bool {
        let position = game.start.position(self.include_standard);
        let positions = self.positions.iter().all(|(numbering, lists)| {
            position.is_some_and(|id| Criteria::named(*numbering, lists).contains(&id))
        });
        let kinds = self
            .kinds
            .as_ref()
            .is_none_or(|kinds| kinds.contains(&game.start.kind()));
        let rated = |value: Option<&str>, min: i32| rating(value).is_some_and(|elo| elo >= min);
        let elo = self
            .min_elo
            .is_none_or(|min| rated(game.white_elo, min) && rated(game.black_elo, min));
        let findings = self.findings.as_ref().is_none_or(|wanted| {
            codes.iter().any(|code| {
                wanted
                    .iter()
                    .any(|w| *w == code.name() || *w == code.severity().as_str())
            })
        });
        (positions && kinds && elo && findings) != self.invert
    }
}

/// The codes `validate` reports for each game of `input`, by game.
fn findings_by_game(input: &[u8], games: usize) -> Vec<Vec<Code>> {
    let mut codes = vec![Vec::new(); games];
    let mut reader = GameReader::new(input);
    while let Some(batch) = reader.next_batch().expect("reading from memory") {
        for finding in validate_batch(&batch, ValidateOptions::default()).findings {
            codes[(finding.game - 1) as usize].push(finding.code);
        }
    }
    codes
}

/// What the library writes for `filter`, read in batches of `batch_bytes`.
fn filter_through_library(input: &[u8], filter: &Filter, batch_bytes: usize) -> Vec<u8> {
    let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
    // An input of no game goes where the selected games go, as in `filter`.
    let mut router = Router::new();
    if !filter.invert {
        router = router.no_game_to(());
    }
    let mut out = Vec::new();
    while let Some(batch) = reader.next_batch().expect("reading from memory") {
        let verdicts = select_batch(&batch, filter);
        let runs = router.runs(&batch, |i| verdicts[i].selected.then_some(()));
        write_runs(&batch.data, &runs, &mut out).expect("writing to memory");
    }
    out
}

/// The oracle's selection for each game, and the pieces selected and not.
fn expected(archive: &Archive, criteria: &Criteria) -> (Vec<bool>, Vec<u8>, Vec<u8>) {
    let pieces = archive.pieces();
    let input = [pieces.concat(), archive.no_game().to_vec()].concat();
    let codes = findings_by_game(&input, pieces.len());
    let selected: Vec<bool> = archive
        .games
        .iter()
        .zip(&codes)
        .map(|(game, codes)| criteria.selects(game, codes))
        .collect();
    let pick = |want: bool| -> Vec<u8> {
        pieces
            .iter()
            .zip(&selected)
            .filter(|(_, s)| **s == want)
            .flat_map(|(piece, _)| piece.clone())
            .collect()
    };
    let (mut chosen, mut others) = (pick(true), pick(false));
    // An input of no game goes where `filter` without `--invert` writes.
    if criteria.invert {
        others.extend_from_slice(archive.no_game());
    } else {
        chosen.extend_from_slice(archive.no_game());
    }
    (selected, chosen, others)
}

/// The two outputs put back together game by game: each game's bytes
/// taken, in input order, from the output its selection sent it to.
fn rebuild(pieces: &[Vec<u8>], selected: &[bool], chosen: &[u8], others: &[u8]) -> Vec<u8> {
    if pieces.is_empty() {
        // No game: the input is one output or the other.
        return [chosen, others].concat();
    }
    let (mut a, mut b) = (chosen, others);
    let mut out = Vec::new();
    for (piece, selected) in pieces.iter().zip(selected) {
        let from = if *selected { &mut a } else { &mut b };
        let (head, rest) = from.split_at(piece.len().min(from.len()));
        out.extend_from_slice(head);
        *from = rest;
    }
    assert!(
        a.is_empty() && b.is_empty(),
        "bytes left over after the last game"
    );
    out
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn a_filter_and_its_inverse_rebuild_the_input(
        archive in archive(),
        criteria in criteria(),
        batch_bytes in prop_oneof![Just(1usize), Just(7), Just(64), Just(1 << 20), 1usize..400],
    ) {
        let pieces = archive.pieces();
        let input = [pieces.concat(), archive.no_game().to_vec()].concat();
        let (selected, chosen, others) = expected(&archive, &criteria);
        let filter = criteria.filter();
        let inverse = Filter { invert: !filter.invert, ..filter.clone() };
        let out = filter_through_library(&input, &filter, batch_bytes);
        let out_inverse = filter_through_library(&input, &inverse, batch_bytes);
        prop_assert_eq!(Bytes(out.clone()), Bytes(chosen), "the games selected, {:?}", selected);
        prop_assert_eq!(Bytes(out_inverse.clone()), Bytes(others), "the games left, {:?}", selected);
        prop_assert_eq!(Bytes(rebuild(&pieces, &selected, &out, &out_inverse)), Bytes(input));
    }
}

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn the_binary_agrees(archive in archive(), criteria in criteria()) {
        let pieces = archive.pieces();
        let input = [pieces.concat(), archive.no_game().to_vec()].concat();
        let (selected, chosen, others) = expected(&archive, &criteria);
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = dir.path().join("generated.pgn");
        std::fs::write(&file, &input).expect("writable");
        let mut args = vec!["filter".to_string(), "-q".to_string()];
        args.extend(criteria.args());
        args.push(file.display().to_string());
        let out = pgn960(&args, None).ok("filter C");
        args.push("--invert".to_string());
        if criteria.invert {
            // --invert twice is an error; the inverse is without it.
            args.retain(|arg| arg != "--invert");
        }
        let out_inverse = pgn960(&args, None).ok("filter C, inverted");
        prop_assert_eq!(Bytes(out.clone()), Bytes(chosen), "{:?}: {:?}", criteria.args(), selected);
        prop_assert_eq!(Bytes(out_inverse.clone()), Bytes(others), "{:?}: {:?}", criteria.args(), selected);
        prop_assert_eq!(Bytes(rebuild(&pieces, &selected, &out, &out_inverse)), Bytes(input));
    }
}

/// `filter --kind chess960` and its inverse on `case`: the Chess960 games
/// the case records, whole, and the rest, whole; together the input.
fn assert_filtered_as_recorded(case: &Case) {
    let what = &case.what;
    let starts: Vec<usize> = case.games.iter().map(|(start, _)| *start).collect();
    let games = game_bytes(&case.input, &starts);
    let filter = Filter {
        kinds: Some(filter::kinds("chess960").expect("a kind")),
        ..Filter::default()
    };
    let inverse = Filter {
        invert: true,
        ..filter.clone()
    };
    let pick = |chess960: bool| -> Vec<u8> {
        games
            .iter()
            .zip(&case.games)
            .filter(|(_, (_, expect))| matches!(expect, Expect::Chess960(_)) == chess960)
            .flat_map(|(game, _)| game.to_vec())
            .collect()
    };
    let out = filter_through_library(&case.input, &filter, 1 << 20);
    assert!(out == pick(true), "{what}: the Chess960 games");
    let out = filter_through_library(&case.input, &inverse, 1 << 20);
    assert!(out == pick(false), "{what}: the others");
}

/// Comment lines, byte-order marks, many tags and long tag lines in tag
/// sections, reads ending at every offset of them: `filter` keeps each
/// game whole.
#[test]
fn filter_keeps_games_whole_at_every_read_boundary() {
    let max = 16 << 20;
    let cases = comment_and_bom_cases()
        .into_iter()
        .chain(many_tags_cases())
        .chain(long_tag_line_cases(&[5 << 20, max + 1]));
    for case in cases {
        assert_filtered_as_recorded(&case);
    }
}

/// An input of no game goes whole to `filter C`, and none of it to
/// `filter C --invert`.
#[test]
fn an_input_of_no_game_goes_where_the_selected_games_go() {
    let filter = Filter {
        kinds: Some(filter::kinds("dfrc").expect("a kind")),
        ..Filter::default()
    };
    let inverse = Filter {
        invert: true,
        ..filter.clone()
    };
    for input in no_game_inputs() {
        assert!(filter_through_library(&input, &filter, 1 << 20) == input);
        assert!(filter_through_library(&input, &inverse, 1 << 20).is_empty());
    }
}
