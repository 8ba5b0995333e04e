//! Properties of `fix` on generated archives with every defect planted,
//! through the library (`GameReader` + `fix_batch` + `apply`), which is
//! much faster than spawning the binary per case.
//!
//! Each game is generated from a description (its start, `Variant`,
//! `SetUp`, id tags, `Opening`, mainline, layout and line endings), and a
//! model written here from the rules of the README — not from the
//! library — says what `fix` must make of it: which values change and
//! which tag lines are added, where. Whether a mainline replays legally
//! is asked of shakmaty directly, on the moves the generator chose, with
//! none of the library's movetext reading. Comments, `;` comments, escape
//! lines and variations between the moves hold fake tags of every name
//! `fix` touches, which must stay as they are.
//!
//! On top of the model: fixing twice changes nothing; the output does not
//! depend on batch sizes; and after `fix`, `validate` finds in no game a
//! code repaired there, and `validate --no-moves` finds exactly what `fix`
//! counted as left.

use std::collections::BTreeMap;

use pgn960::BackRank;
use pgn960::fix::{Action, FixOptions, Problem, Spellings, VariantName, fix_batch};
use pgn960::position::CastlingNotation;
use pgn960::split::GameReader;
use pgn960::tag::apply;
use pgn960::validate::{Code, ValidateOptions, validate_batch};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, FromSetup, Position};

use crate::boundaries::{
    Case, Expect, comment_and_bom_cases, game_bytes, long_tag_line_cases, many_tags_cases,
    no_game_inputs, split_games,
};
use crate::tag_properties::{AFTER_TAG_COMMENTS, TAG_LINE_COMMENTS};

/// How a generated `FEN` writes its castling field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// `KQkq` letters.
    Xfen,
    /// Files, each side's h-side rook first (`HFhf`).
    Shredder,
    /// Files, each side's a-side rook first (`FHfh`).
    ShredderQueenFirst,
}

/// Where a generated game starts.
#[derive(Clone, Debug)]
enum GenStart {
    /// No `FEN` tag.
    NoFen,
    /// A `FEN` of a Chess960 start array, with some castling rights
    /// (bits: White's h-side rook, White's a-side, Black's h-side,
    /// Black's a-side).
    Array { id: u32, rights: u8, style: Style },
    /// A `FEN` of a Double FRC start, every right.
    Dfrc { white: u32, black: u32 },
    /// A `FEN` of a set-up position.
    SetUp,
}

/// The value of an id tag.
#[derive(Clone, Debug)]
enum IdValue {
    /// The start's own number (0 without a FEN).
    Start,
    /// A number written plainly.
    Number(u32),
    /// Not a number of its numbering.
    Malformed(&'static str),
}

/// The value of an `Opening` tag.
#[derive(Clone, Debug)]
enum Opening {
    /// A back rank, by its Scharnagl number.
    Rank(u32),
    /// An opening's name.
    Name,
}

#[derive(Clone, Debug)]
struct GenGame {
    eol: &'static str,
    start: GenStart,
    variant: Option<&'static str>,
    setup: Option<&'static str>,
    id: Option<IdValue>,
    fritz9: Option<IdValue>,
    opening: Option<Opening>,
    extra: Vec<(&'static str, &'static str)>,
    /// Sort keys giving the order of the tags after `Event`.
    order: Vec<u8>,
    one_tag_line: bool,
    /// `None`: a game of tags only.
    moves: Option<Vec<&'static str>>,
    /// Noise before each move (and before the result).
    noise: Vec<Option<&'static str>>,
    result: &'static str,
    separator: &'static str,
    /// Comments between the tags, each after the tag of its index (modulo
    /// the tags but the last): on a line of its own (`true`), or after the
    /// tag on its line. They keep the tag section one, and move no line
    /// `fix` adds.
    tag_comments: Vec<(usize, bool, &'static str)>,
    /// A UTF-8 byte-order mark before the first tag.
    bom: bool,
}

/// The spellings of `Variant` generated, and what they name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Names {
    Nothing,
    Chess960,
    StandardChess,
    OtherGame,
}

fn names(variant: Option<&str>) -> Names {
    match variant {
        None | Some("") => Names::Nothing,
        Some("Chess960" | "chess 960" | "Fischerandom" | "FRC" | "chess-960" | "960") => {
            Names::Chess960
        }
        Some("Standard" | "From Position" | "chess") => Names::StandardChess,
        Some(_) => Names::OtherGame,
    }
}

fn rank(id: u32) -> BackRank {
    BackRank::from_scharnagl(id).expect("ids are generated below 960")
}

/// Files (`a`..`h`) of the rooks of an arrangement: a-side, h-side.
fn rook_files(arrangement: &str) -> [char; 2] {
    let mut rooks = arrangement
        .char_indices()
        .filter(|(_, piece)| *piece == 'R')
        .map(|(file, _)| char::from(b'a' + file as u8));
    let a_side = rooks.next().expect("two rooks");
    [a_side, rooks.next().expect("two rooks")]
}

/// The castling field of `rights` (bits as in [`GenStart::Array`]) over
/// White's and Black's arrangements, in `style`.
fn castling(white: &str, black: &str, rights: u8, style: Style) -> String {
    let mut field = String::new();
    for (side, arrangement) in [(0, white), (1, black)] {
        let [a_side, h_side] = rook_files(arrangement);
        let mut letters = vec![(rights >> (2 * side) & 1, 'k', h_side)];
        letters.push((rights >> (2 * side + 1) & 1, 'q', a_side));
        if style == Style::ShredderQueenFirst {
            letters.reverse();
        }
        for (right, xfen, file) in letters {
            if right == 0 {
                continue;
            }
            let letter = if style == Style::Xfen { xfen } else { file };
            field.push(if side == 0 {
                letter.to_ascii_uppercase()
            } else {
                letter
            });
        }
    }
    if field.is_empty() {
        field.push('-');
    }
    field
}

fn start_fen(white: &str, black: &str, castling: &str) -> String {
    format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w {castling} - 0 1",
        black.to_ascii_lowercase(),
        white
    )
}

const SET_UP_FEN: &str = "4k3/8/8/8/8/8/4P3/4K2R w K - 0 1";

impl GenStart {
    /// The `FEN` tag's value.
    fn fen(&self) -> Option<String> {
        match *self {
            GenStart::NoFen => None,
            GenStart::Array { id, rights, style } => {
                let name = rank(id).to_string();
                Some(start_fen(
                    &name,
                    &name,
                    &castling(&name, &name, rights, style),
                ))
            }
            GenStart::Dfrc { white, black } => {
                let (white, black) = (rank(white).to_string(), rank(black).to_string());
                Some(start_fen(
                    &white,
                    &black,
                    &castling(&white, &black, 15, Style::Xfen),
                ))
            }
            GenStart::SetUp => Some(SET_UP_FEN.to_string()),
        }
    }

    /// The Scharnagl number of a Chess960 start array's `FEN`.
    fn array(&self) -> Option<u32> {
        match *self {
            GenStart::Array { id, .. } => Some(id),
            _ => None,
        }
    }
}

impl IdValue {
    /// The value written, for a start numbered `start` (Scharnagl) in
    /// the numbering of a Fritz9 tag or not.
    fn text(&self, start: u32, fritz9: bool) -> String {
        match self {
            IdValue::Start if fritz9 => rank(start).fritz9().to_string(),
            IdValue::Start => start.to_string(),
            IdValue::Number(n) => n.to_string(),
            IdValue::Malformed(text) => (*text).to_string(),
        }
    }
}

/// Whether `moves` replay legally under Chess960 rules from `fen`.
fn replays(fen: &str, moves: &[&str]) -> bool {
    let setup = Fen::from_ascii(fen.as_bytes())
        .expect("generated FENs parse")
        .into_setup();
    let Ok(mut pos) = Chess::from_setup(setup, CastlingMode::Chess960) else {
        return false;
    };
    for san in moves {
        let Ok(san) = San::from_ascii(san.as_bytes()) else {
            return false;
        };
        let Ok(m) = san.to_move(&pos) else {
            return false;
        };
        pos.play_unchecked(m);
    }
    true
}

/// What the model says `fix` does to one game: values rewritten (by the
/// tag's position in the game's tag list) and lines added, in order.
#[derive(Default)]
struct Expected {
    rewritten: BTreeMap<usize, String>,
    added: Vec<(&'static str, String)>,
    /// Tags whose lines go: repeats of a name every tag of which says the
    /// same.
    removed: Vec<usize>,
}

/// The names of tags the commands read, whose repeats `validate` reports
/// (docs/codes.md, `tag_repeated`), of those the generator repeats.
const READ_NAMES: [&str; 3] = ["Site", "White", "Result"];

/// The options the model and the library are run with.
#[derive(Clone, Copy, Debug)]
struct Options {
    castling: Option<CastlingNotation>,
    variant_name: &'static str,
    spellings: Spellings,
}

impl Options {
    /// Whether `fix` rewrites this Chess960 `Variant` value: by default
    /// the spellings `validate` reports (those python-chess does not
    /// read), with a name asked for every other, with `keep` none.
    fn rewrites(&self, variant: Option<&str>) -> bool {
        let common = [
            "Chess960",
            "Chess 960",
            "Fischerandom",
            "Fischerrandom",
            "Fischer Random",
        ];
        let Some(variant) = variant.filter(|v| *v != self.variant_name) else {
            return false;
        };
        match self.spellings {
            Spellings::Reported => !common.iter().any(|c| c.eq_ignore_ascii_case(variant)),
            Spellings::All => true,
            Spellings::Keep => false,
        }
    }
}

impl GenGame {
    /// The tags, in the game's order: name and value.
    fn tags(&self) -> Vec<(&'static str, String)> {
        let start = self.start.array().unwrap_or(0);
        let mut special: Vec<(&'static str, String)> = Vec::new();
        if let Some(fen) = self.start.fen() {
            special.push(("FEN", fen));
        }
        if let Some(variant) = self.variant {
            special.push(("Variant", variant.to_string()));
        }
        if let Some(setup) = self.setup {
            special.push(("SetUp", setup.to_string()));
        }
        if let Some(id) = &self.id {
            special.push(("Chess960Id", id.text(start, false)));
        }
        if let Some(id) = &self.fritz9 {
            special.push(("Chess960Fritz9Id", id.text(start, true)));
        }
        match self.opening {
            Some(Opening::Rank(id)) => special.push(("Opening", rank(id).to_string())),
            Some(Opening::Name) => special.push(("Opening", "Sicilian Defense".to_string())),
            None => {}
        }
        special.extend(self.extra.iter().map(|(n, v)| (*n, (*v).to_string())));
        let mut keyed: Vec<(u8, usize, (&'static str, String))> = special
            .into_iter()
            .enumerate()
            .map(|(i, tag)| (self.order.get(i).copied().unwrap_or(0), i, tag))
            .collect();
        keyed.sort_by_key(|(key, i, _)| (*key, *i));
        let mut tags = vec![("Event", "generated".to_string())];
        tags.extend(keyed.into_iter().map(|(_, _, tag)| tag));
        tags
    }

    /// The start a game without a `FEN` records, as the README says:
    /// `None` for nothing, `Some(None)` for records that disagree.
    fn recorded(&self) -> Option<Option<u32>> {
        let names = names(self.variant);
        if names != Names::Chess960 && self.id.is_none() && self.fritz9.is_none() {
            return None;
        }
        let mut ranks = Vec::new();
        match self.id {
            Some(IdValue::Start) => ranks.push(0),
            Some(IdValue::Number(n)) if n < 960 => ranks.push(n),
            _ => {}
        }
        match self.fritz9 {
            Some(IdValue::Start) => ranks.push(0),
            Some(IdValue::Number(n)) if (1..=960).contains(&n) => {
                ranks.push(u32::from(
                    BackRank::from_fritz9(n).expect("in range").scharnagl(),
                ));
            }
            _ => {}
        }
        if let Some(Opening::Rank(id)) = self.opening {
            ranks.push(id);
        }
        let first = *ranks.first()?;
        Some(ranks.iter().all(|&r| r == first).then_some(first))
    }

    /// The model: what `fix` must change in this game.
    fn expected(&self, options: Options) -> Expected {
        let tags = self.tags();
        let at = |name: &str| tags.iter().position(|(n, _)| *n == name);
        let mut expected = Expected::default();
        // 0. A repeat of a tag read, alone on its line (no other tag nor a
        // comment after it on its line), goes when every tag of its name
        // has the same value.
        for (i, (name, value)) in tags.iter().enumerate() {
            let same_name: Vec<&String> = tags
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, v)| v)
                .collect();
            let repeat = tags[..i].iter().any(|(n, _)| n == name);
            let between = tags.len() - 1;
            // A comment after the tag on its line: the first one placed
            // after it, unless that one goes on a line of its own (a
            // comment after that goes on that line, not the tag's).
            let comment_after = self
                .tag_comments
                .iter()
                .find(|(at, _, _)| between > 0 && at % between == i)
                .is_some_and(|(_, own_line, _)| !own_line);
            if READ_NAMES.contains(name)
                && repeat
                && same_name.iter().all(|v| *v == value)
                && !self.one_tag_line
                && !comment_after
            {
                expected.removed.push(i);
            }
        }
        let set = |expected: &mut Expected, name: &'static str, value: &str| match at(name) {
            Some(i) => {
                expected.rewritten.insert(i, value.to_string());
            }
            None => expected.added.push((name, value.to_string())),
        };
        let names = names(self.variant);
        let fen = self.start.fen();
        let setup_one = self.setup == Some("1");
        if names == Names::OtherGame {
            if fen.is_some() && !setup_one {
                set(&mut expected, "SetUp", "1");
            }
            return expected;
        }
        let moves = self.moves.as_deref().unwrap_or(&[]);
        // 1. The start a game without a FEN records.
        let mut fen_added = false;
        let start: Option<u32> = match (&self.start, self.recorded()) {
            (GenStart::NoFen, None | Some(Some(518))) => Some(518),
            (GenStart::NoFen, Some(Some(id))) => {
                let name = rank(id).to_string();
                let xfen = start_fen(&name, &name, "KQkq");
                if replays(&xfen, moves) {
                    let style = match options.castling {
                        Some(CastlingNotation::Shredder) => Style::Shredder,
                        _ => Style::Xfen,
                    };
                    let fen = start_fen(&name, &name, &castling(&name, &name, 15, style));
                    if names != Names::Chess960 {
                        set(&mut expected, "Variant", options.variant_name);
                    }
                    if !setup_one {
                        set(&mut expected, "SetUp", "1");
                    }
                    expected.added.push(("FEN", fen));
                    fen_added = true;
                    Some(id)
                } else {
                    None
                }
            }
            (GenStart::NoFen, Some(None)) => None,
            (GenStart::Array { id, .. }, _) => Some(*id),
            (GenStart::Dfrc { .. } | GenStart::SetUp, _) => None,
        };
        // 2. The Variant.
        let other_array =
            matches!(self.start, GenStart::Dfrc { .. }) || start.is_some_and(|id| id != 518);
        match names {
            Names::Chess960 if options.rewrites(self.variant) => {
                set(&mut expected, "Variant", options.variant_name);
            }
            _ if fen_added || !other_array => {}
            Names::Nothing => set(&mut expected, "Variant", options.variant_name),
            Names::StandardChess if replays(fen.as_deref().expect("a FEN"), moves) => {
                set(&mut expected, "Variant", options.variant_name);
            }
            _ => {}
        }
        // 3. SetUp beside a FEN.
        if fen.is_some() && !setup_one {
            set(&mut expected, "SetUp", "1");
        }
        // 4. The id tags of a Chess960 start array.
        if let Some(id) = start.filter(|_| !matches!(self.start, GenStart::Dfrc { .. })) {
            let start_rank = rank(id);
            for (name, right) in [
                ("Chess960Id", start_rank.scharnagl()),
                ("Chess960Fritz9Id", start_rank.fritz9()),
            ] {
                if let Some(i) = at(name)
                    && tags[i].1 != right.to_string()
                {
                    expected.rewritten.insert(i, right.to_string());
                }
            }
            let chess960 = names == Names::Chess960 || fen_added || id != 518;
            if chess960 && self.id.is_none() {
                expected.added.push(("Chess960Id", id.to_string()));
            }
        }
        // 5. The castling notation of a start array's FEN.
        if let Some(notation) = options.castling {
            let wanted = match notation {
                CastlingNotation::Xfen => Style::Xfen,
                CastlingNotation::Shredder => Style::Shredder,
            };
            let (white, black, rights, style) = match self.start {
                GenStart::Array { id, rights, style } => (id, id, rights, style),
                GenStart::Dfrc { white, black } => (white, black, 15, Style::Xfen),
                GenStart::NoFen | GenStart::SetUp => (0, 0, 0, wanted),
            };
            let keep = rights == 0
                || style == wanted
                || (wanted == Style::Shredder && style == Style::ShredderQueenFirst);
            if !keep {
                let (white, black) = (rank(white).to_string(), rank(black).to_string());
                let fen = start_fen(&white, &black, &castling(&white, &black, rights, wanted));
                expected.rewritten.insert(at("FEN").expect("a FEN"), fen);
            }
        }
        // Added lines go in the order Variant, SetUp, FEN, Chess960Id.
        let order = ["Variant", "SetUp", "FEN", "Chess960Id"];
        expected
            .added
            .sort_by_key(|(name, _)| order.iter().position(|o| o == name));
        expected
    }

    /// The game's bytes, with `expected` applied when given.
    fn render(&self, expected: Option<&Expected>, last: bool) -> Vec<u8> {
        let mut tags = self.tags();
        let mut added = Vec::new();
        if let Some(expected) = expected {
            for (&i, value) in &expected.rewritten {
                tags[i].1.clone_from(value);
            }
            added.clone_from(&expected.added);
        }
        let mut out = String::new();
        if self.bom {
            out.push('\u{feff}');
        }
        let removed = expected.map_or(&[][..], |e| &e.removed[..]);
        for (i, (name, value)) in tags.iter().enumerate() {
            if !removed.contains(&i) {
                if i > 0 {
                    out.push_str(if self.one_tag_line { " " } else { "\n" });
                }
                out.push_str(&format!("[{name} \"{value}\"]"));
            }
            let between = tags.len() - 1;
            for &(_, own_line, comment) in self
                .tag_comments
                .iter()
                .filter(|(at, _, _)| between > 0 && at % between == i)
            {
                match (self.one_tag_line, own_line) {
                    (true, _) => out.push_str(" { between tags }"),
                    (false, true) => {
                        out.push('\n');
                        out.push_str(comment);
                    }
                    (false, false) => {
                        out.push(' ');
                        out.push_str(comment);
                    }
                }
            }
        }
        out.push('\n');
        for (name, value) in &added {
            out.push_str(&format!("[{name} \"{value}\"]\n"));
        }
        if let Some(moves) = &self.moves {
            out.push('\n');
            for (i, san) in moves.iter().enumerate() {
                if let Some(Some(noise)) = self.noise.get(i) {
                    out.push_str(noise);
                    out.push(' ');
                }
                if i % 2 == 0 {
                    out.push_str(&format!("{}. ", i / 2 + 1));
                }
                out.push_str(san);
                out.push(' ');
            }
            if let Some(Some(noise)) = self.noise.get(moves.len()) {
                out.push_str(noise);
                out.push(' ');
            }
            out.push_str(self.result);
            out.push('\n');
        }
        out.push_str(self.separator);
        if last && self.separator.is_empty() && self.moves.is_some() && self.result == "*" {
            out.pop(); // sometimes no final line ending at all
        }
        out.replace('\n', self.eol).into_bytes()
    }
}

fn start() -> impl Strategy<Value = GenStart> {
    let style = prop_oneof![
        Just(Style::Xfen),
        Just(Style::Shredder),
        Just(Style::ShredderQueenFirst)
    ];
    let id = prop_oneof![Just(0u32), Just(518), Just(614), Just(348), 0u32..960];
    prop_oneof![
        3 => Just(GenStart::NoFen),
        4 => (id, prop_oneof![3 => Just(15u8), 1 => 0u8..16], style)
            .prop_map(|(id, rights, style)| GenStart::Array { id, rights, style }),
        1 => (0u32..960, 0u32..960).prop_map(|(white, black)| {
            if white == black {
                GenStart::Array { id: white, rights: 15, style: Style::Xfen }
            } else {
                GenStart::Dfrc { white, black }
            }
        }),
        1 => Just(GenStart::SetUp),
    ]
}

fn id_value(numbers: std::ops::Range<u32>) -> impl Strategy<Value = Option<IdValue>> {
    prop_oneof![
        4 => Just(None),
        3 => Just(Some(IdValue::Start)),
        2 => prop_oneof![Just(0u32), Just(518), Just(614), numbers]
            .prop_map(|n| Some(IdValue::Number(n))),
        1 => prop_oneof![Just("abc"), Just("05"), Just("1000"), Just("")]
            .prop_map(|text| Some(IdValue::Malformed(text))),
    ]
}

fn mainline() -> impl Strategy<Value = Option<Vec<&'static str>>> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(vec![])),
        2 => Just(Some(vec!["e4", "e5"])),
        2 => Just(Some(vec!["Nh3", "Nh6"])),
        2 => Just(Some(vec!["Nd3", "Nd6", "Nf4"])),
        2 => Just(Some(vec!["Nb3", "Nb6"])),
        2 => Just(Some(vec!["e3", "e6", "Bd3", "Bd6", "O-O", "O-O"])),
        1 => Just(Some(vec!["O-O"])),
        1 => Just(Some(vec!["a4", "a5", "Ra3"])),
        1 => Just(Some(vec!["Qxh7"])),
    ]
}

/// Movetext that is no mainline move, holding fake tags of every name
/// `fix` touches.
fn noise() -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![
        4 => Just(None),
        1 => Just(Some("{ [Variant \"Standard\"] [SetUp \"0\"] }")),
        1 => Just(Some("{\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n[Chess960Id \"5\"]\n}")),
        1 => Just(Some("; [Chess960Fritz9Id \"9\"] {\n")),
        1 => Just(Some("\n% [Variant \"FRC\"] {\n")),
        1 => Just(Some("(1... c5 (1... e6 $2) 2. Nf3)")),
        1 => Just(Some("$1 {[%clk 0:01:00]}")),
    ]
}

fn game() -> impl Strategy<Value = GenGame> {
    let eol = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    let variant = prop_oneof![
        3 => Just(None),
        2 => Just(Some("Chess960")),
        1 => prop_oneof![
            Just(Some("chess 960")),
            Just(Some("Fischerandom")),
            Just(Some("FRC")),
            Just(Some("chess-960")),
            Just(Some("960")),
        ],
        1 => prop_oneof![Just(Some("Standard")), Just(Some("From Position")), Just(Some("chess"))],
        1 => prop_oneof![Just(Some("")), Just(Some("Antichess"))],
    ];
    let setup = prop_oneof![Just(None), Just(Some("1")), Just(Some("0"))];
    let opening = prop_oneof![
        4 => Just(None),
        1 => prop_oneof![Just(0u32), Just(348), 0u32..960].prop_map(|id| Some(Opening::Rank(id))),
        1 => Just(Some(Opening::Name)),
    ];
    let extra = prop::collection::vec(
        (
            prop_oneof![
                Just("Site"),
                Just("White"),
                Just("Annotator"),
                Just("Result")
            ],
            prop_oneof![
                Just("a"),
                Just("M\u{fc}ller"),
                Just("x]y"),
                Just("[Event \\\"v\\\"]"),
                Just("{ ; %"),
                Just("\\\\"),
            ],
        ),
        0..3,
    );
    let comment = prop_oneof![
        prop::sample::select(TAG_LINE_COMMENTS.to_vec()).prop_map(|c| (true, c)),
        prop::sample::select(AFTER_TAG_COMMENTS.to_vec()).prop_map(|c| (false, c)),
    ];
    let tag_comments = prop_oneof![
        3 => Just(Vec::new()),
        1 => prop::collection::vec(
            (any::<usize>(), comment).prop_map(|(at, (own_line, c))| (at, own_line, c)),
            1..3,
        ),
    ];
    let layout = (
        eol,
        prop::collection::vec(any::<u8>(), 12),
        prop::bool::weighted(0.15),
        prop::collection::vec(noise(), 8),
        prop_oneof![Just("1-0"), Just("0-1"), Just("1/2-1/2"), Just("*")],
        prop_oneof![Just(""), Just("\n"), Just("\n\n")],
    );
    (
        start(),
        variant,
        setup,
        id_value(0..960),
        id_value(1..961),
        opening,
        extra,
        mainline(),
        layout,
        (tag_comments, prop::bool::weighted(0.1)),
    )
        .prop_map(
            |(start, variant, setup, id, fritz9, opening, extra, moves, layout, more)| {
                let (eol, order, one_tag_line, noise, result, separator) = layout;
                let (tag_comments, bom) = more;
                let mut game = GenGame {
                    eol,
                    start,
                    variant,
                    setup,
                    id,
                    fritz9,
                    opening,
                    extra,
                    order,
                    one_tag_line,
                    moves,
                    noise,
                    result,
                    separator,
                    tag_comments,
                    bom,
                };
                if game.moves.is_none() && game.separator.is_empty() {
                    // A game of tags only ends at a blank line.
                    game.separator = "\n";
                }
                game
            },
        )
}

fn archive() -> impl Strategy<Value = Vec<GenGame>> {
    prop::collection::vec(game(), 1..6)
}

fn render(games: &[GenGame], options: Option<Options>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let expected = options.map(|options| game.expected(options));
        out.extend(game.render(expected.as_ref(), i + 1 == games.len()));
    }
    out
}

/// What fixing gave: the bytes, and the codes fixed and left by game.
struct Fixed {
    out: Vec<u8>,
    fixed: BTreeMap<u64, Vec<&'static str>>,
    left: BTreeMap<u64, Vec<&'static str>>,
    repairs: u64,
}

fn fix(input: &[u8], options: Options, batch_bytes: Option<usize>) -> Fixed {
    let fix_options = FixOptions {
        castling: options.castling,
        variant_name: VariantName::new(options.variant_name).expect("a common spelling"),
        spellings: options.spellings,
        rows: true,
    };
    let mut reader = GameReader::new(input);
    if let Some(bytes) = batch_bytes {
        reader = reader.batch_bytes(bytes);
    }
    let mut fixed = Fixed {
        out: Vec::new(),
        fixed: BTreeMap::new(),
        left: BTreeMap::new(),
        repairs: 0,
    };
    while let Some(batch) = reader
        .next_batch()
        .expect("reading from memory cannot fail")
    {
        let result = fix_batch(&batch, &fix_options);
        apply(&batch.data, &result.edits, &mut fixed.out).expect("writing to memory");
        fixed.repairs += result.counts.repairs();
        for row in result.rows {
            let Problem::Finding(code) = row.problem else {
                continue;
            };
            let into = match row.action {
                Action::Fixed => &mut fixed.fixed,
                Action::Left => &mut fixed.left,
            };
            into.entry(row.game).or_default().push(code.name());
        }
    }
    for codes in fixed.left.values_mut() {
        codes.sort_unstable();
    }
    fixed
}

/// The codes `validate` finds, by game.
fn findings(bytes: &[u8], moves: bool) -> BTreeMap<u64, Vec<&'static str>> {
    let mut by_game: BTreeMap<u64, Vec<&'static str>> = BTreeMap::new();
    let mut reader = GameReader::new(bytes);
    while let Some(batch) = reader
        .next_batch()
        .expect("reading from memory cannot fail")
    {
        for finding in validate_batch(
            &batch,
            ValidateOptions {
                moves,
                ..ValidateOptions::default()
            },
        )
        .findings
        {
            by_game
                .entry(finding.game)
                .or_default()
                .push(finding.code.name());
        }
    }
    for codes in by_game.values_mut() {
        codes.sort_unstable();
    }
    by_game
}

const OPTIONS: [Options; 3] = [
    Options {
        castling: None,
        variant_name: "Chess960",
        spellings: Spellings::Reported,
    },
    Options {
        castling: Some(CastlingNotation::Shredder),
        variant_name: "Fischerandom",
        spellings: Spellings::All,
    },
    Options {
        castling: Some(CastlingNotation::Xfen),
        variant_name: "Chess 960",
        spellings: Spellings::Keep,
    },
];

fn config(cases: u32) -> Config {
    Config {
        cases,
        // A failure is kept, with its seed, beside this file (see
        // `tag_properties::config`).
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        max_shrink_time: 30_000,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn fixing_generated_archives_with_every_defect_planted(
        games in archive(),
        batch_bytes in prop_oneof![Just(None), Just(Some(1)), (1usize..400).prop_map(Some)],
    ) {
        let input = render(&games, None);
        let found = findings(&input, false);
        for options in OPTIONS {
            let fixed = fix(&input, options, batch_bytes);
            // Each repair named by a validate code removes a finding
            // validate --no-moves gave that game.
            for (game, codes) in &fixed.fixed {
                for code in codes.iter().filter(|code| Code::ALL.iter().any(|c| c.name() == **code)) {
                    let reported = found.get(game).is_some_and(|f| f.contains(code));
                    prop_assert!(reported, "game {}: {} repaired but not reported ({:?})", game, code, options);
                }
            }
            let expected = render(&games, Some(options));
            prop_assert_eq!(
                String::from_utf8_lossy(&fixed.out),
                String::from_utf8_lossy(&expected),
                "the output is not the model's ({:?})", options
            );
            let whole = fix(&input, options, None);
            prop_assert_eq!(&whole.out, &fixed.out, "the output depends on the batch size");

            let again = fix(&fixed.out, options, batch_bytes);
            prop_assert_eq!(&again.out, &fixed.out, "fixing twice changes the output");
            prop_assert_eq!(again.repairs, 0);

            for (game, codes) in findings(&fixed.out, true) {
                for code in codes {
                    // A code found twice (two names repeated) may be
                    // repaired once and left once; what is left is held
                    // to fix's report below.
                    let repaired = fixed.fixed.get(&game).is_some_and(|f| f.contains(&code))
                        && !fixed.left.get(&game).is_some_and(|l| l.contains(&code));
                    prop_assert!(!repaired, "game {}: {} repaired but still found", game, code);
                }
            }
            prop_assert_eq!(
                findings(&fixed.out, false),
                fixed.left.clone(),
                "validate --no-moves after fix vs what fix left"
            );
        }
    }
}

/// Fixes `case` and holds the output to the case's record: the same
/// games, the games of no Chess960 start unchanged, each Chess960 one
/// given its id and left with no finding of `validate --no-moves`.
fn assert_fixed_as_recorded(case: &Case) {
    let what = &case.what;
    let fixed = fix(&case.input, OPTIONS[0], None);
    let starts: Vec<usize> = split_games(&fixed.out)
        .into_iter()
        .map(|(start, _)| start)
        .collect();
    let games = game_bytes(&fixed.out, &starts);
    assert_eq!(games.len(), case.games.len(), "{what}: games of the output");
    let inputs = game_bytes(
        &case.input,
        &case
            .games
            .iter()
            .map(|(start, _)| *start)
            .collect::<Vec<_>>(),
    );
    let found = findings(&fixed.out, false);
    for (i, ((game, before), (_, expect))) in games.iter().zip(&inputs).zip(&case.games).enumerate()
    {
        let index = i as u64 + 1;
        match expect {
            Expect::Chess960(id) => {
                let tag = format!("[Chess960Id \"{id}\"]");
                let tags = memchr::memmem::find_iter(game, tag.as_bytes()).count();
                assert_eq!(tags, 1, "{what}: game {i}");
                assert_eq!(found.get(&index), None, "{what}: game {i}");
            }
            Expect::Standard => assert!(game == before, "{what}: game {i} must not change"),
            Expect::Unreadable => {
                assert!(game == before, "{what}: game {i} must not change");
                assert_eq!(
                    found.get(&index).map(Vec::as_slice),
                    Some(&["tag_section_too_long"][..]),
                    "{what}: game {i}"
                );
            }
        }
    }
    let again = fix(&fixed.out, OPTIONS[0], None);
    assert!(again.out == fixed.out, "{what}: fixing twice");
}

/// Comment lines, byte-order marks, many tags and long tag lines in tag
/// sections, reads ending at every offset of them: `fix` repairs each
/// game as one, and leaves the games it cannot read whole as they are.
#[test]
fn fix_keeps_games_whole_at_every_read_boundary() {
    let max = 16 << 20;
    let cases = comment_and_bom_cases()
        .into_iter()
        .chain(many_tags_cases())
        .chain(long_tag_line_cases(&[5 << 20, max + 1]));
    for case in cases {
        assert_fixed_as_recorded(&case);
    }
}

/// An input of no game passes through `fix` unchanged.
#[test]
fn fix_passes_an_input_of_no_game_through() {
    for input in no_game_inputs() {
        let fixed = fix(&input, OPTIONS[0], None);
        assert!(fixed.out == input, "{} bytes", input.len());
        assert_eq!(fixed.repairs, 0);
    }
}
