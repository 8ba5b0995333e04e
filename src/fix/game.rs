//! The repairs of one game, planned from its reading: the repeated tags,
//! the start, the `Variant`, `SetUp`, the id tags and the castling
//! notation, in that order, each step seeing the start the steps before it
//! gave the game.
//!
//! A step that cannot be done safely (a tag that does not end on its line,
//! no place for a new line, moves that do not replay) is left, and the
//! finding it would have removed is counted as left. Adding a `FEN` is
//! one repair with the tags it needs beside it (`SetUp "1"`, a `Variant`
//! naming Chess960): all are made, or none.

use std::borrow::Cow;

use crate::game::{Kind, Known, Reading, Start, Variant, plain_number, tag_value};
use crate::position::{BackRank, CastlingNotation, StartArray, castling_rooks, read_fen};
use crate::split::{Batch, Game, LineCounter};
use crate::tag::{Edit, FRITZ9_TAG, ID_TAG, line_of_tag_alone};
use crate::validate::{Code, Finding, replays_legally};

use super::{Action, BatchFix, FixOptions, Problem, Row, Spellings, fen};

/// A tag's value once `fix` has repaired it ([`GameFix::repaired_value`]).
type Repaired<'a> = Cow<'a, [u8]>;

/// Where a new tag line goes among the lines added to one game.
#[derive(Clone, Copy)]
enum Slot {
    Variant,
    SetUp,
    Fen,
    Id,
}

impl Slot {
    fn name(self) -> &'static str {
        match self {
            Slot::Variant => "Variant",
            Slot::SetUp => "SetUp",
            Slot::Fen => "FEN",
            Slot::Id => ID_TAG,
        }
    }
}

/// A tag line to add: its value and what it repairs.
struct Added {
    value: String,
    problem: Problem,
}

/// The repairs of one game, as they are planned: rewrites and rows go
/// straight into the batch's [`BatchFix`], lines to add wait for the end.
pub(super) struct GameFix<'a> {
    batch: &'a Batch,
    game: &'a Game,
    reading: &'a Reading,
    options: &'a FixOptions,
    lines: &'a LineCounter<'a>,
    out: &'a mut BatchFix,
    /// Where this game's edits and rows begin in `out`.
    edits_from: usize,
    rows_from: usize,
    /// Lines added, by [`Slot`]: they go in this order.
    added: [Option<Added>; 4],
    /// The codes of `validate`'s findings that the repairs remove, as bits
    /// by their place in [`Code::ALL`].
    resolved: u64,
    /// The repeated tags whose lines are removed, as indices into
    /// [`Batch::tags`]: no later step edits them.
    removed: Vec<usize>,
    /// Whether the mainline replays from the game's first `FEN`, once
    /// asked.
    fen_replays: std::cell::OnceCell<bool>,
    /// Whether the mainline replays from the start a game without a `FEN`
    /// records, once asked.
    record_replays: std::cell::OnceCell<bool>,
}

impl<'a> GameFix<'a> {
    pub(super) fn new(
        batch: &'a Batch,
        game: &'a Game,
        reading: &'a Reading,
        options: &'a FixOptions,
        lines: &'a LineCounter<'a>,
        out: &'a mut BatchFix,
    ) -> Self {
        if options.rows {
            // Every line this game asks about is counted from its first.
            lines.floor(batch.first_line_start(game));
        }
        GameFix {
            batch,
            game,
            reading,
            options,
            lines,
            edits_from: out.edits.len(),
            rows_from: out.rows.len(),
            out,
            added: [None, None, None, None],
            resolved: 0,
            removed: Vec::new(),
            fen_replays: std::cell::OnceCell::new(),
            record_replays: std::cell::OnceCell::new(),
        }
    }

    /// Plans the game's repairs; adds them, and the findings of `findings`
    /// (this game's, from `validate`'s checks) that they leave, to the
    /// batch's.
    pub(super) fn run(mut self, findings: &[Finding]) {
        self.repeats();
        if self.reading.start.is_known() {
            let start = self.start();
            self.variant(start.as_ref());
            self.setup();
            self.ids(start.as_ref());
            self.castling();
        }
        // `validate` reports the repeated tags in the order of
        // `Headers::repeated`, one finding each.
        let mut repeated = self.reading.headers.repeated().iter();
        for finding in findings {
            let resolved = if finding.code == Code::TagRepeated {
                repeated.next().is_some_and(|&tag| self.is_removed(tag))
            } else {
                self.resolved & bit(finding.code) != 0
            };
            if !resolved {
                self.left_at_line(Problem::Finding(finding.code), finding.line);
            }
        }
        self.finish();
    }

    /// The repeats of a tag go, each when it is alone on its line, when
    /// every tag of that name in the game (its tag section read whole)
    /// says the same once `fix` has made its value repairs (a `SetUp`
    /// beside a `FEN` says `1`, a `Variant` rewritten says the name asked
    /// for: [`GameFix::repaired_value`]): the same value byte for byte, `FEN`s of the same position with the same clocks
    /// (the castling rights perhaps in other notations), or the id tags of
    /// a game that starts from a Chess960 array (the first is rewritten to
    /// its number, as `tag` does). Then readers that keep the first and
    /// those that keep the last read the same game. Tags of one name that
    /// say different things are recorded facts: they stay, and `validate`
    /// tells the conflict.
    fn repeats(&mut self) {
        let repeated = self.reading.headers.repeated();
        // A tag section read in pieces: its other tags are not known.
        if repeated.is_empty() || self.game.tags_incomplete {
            return;
        }
        // As `ids` rewrites them: from a Chess960 start (perhaps the one
        // a game without a `FEN` records, once its `FEN` is added), every
        // id tag well formed (otherwise none is rewritten, and each value
        // is a fact).
        let chess960_start = match self.reading.start {
            Start::Array(StartArray::Chess960(_)) | Start::NoFen => true,
            Start::FenMissing {
                recorded: Some(rank),
            } => self.record_ready(rank),
            _ => false,
        };
        let ids_rewritten = chess960_start
            && self
                .reading
                .headers
                .ids()
                .iter()
                .all(|id| self.batch.tags[id.tag].well_formed);
        // Each name given more than once (a few of the names the reading
        // reads), with its first tag and whether every tag of it says
        // what the first says: one pass over the game's tags, so that a
        // game of a hundred thousand FENs takes no longer than it reads.
        let mut names: Vec<(&[u8], Option<Repaired<'a>>, bool)> = Vec::new();
        for &tag in repeated {
            let name = self.batch.name(&self.batch.tags[tag]);
            if !names.iter().any(|(n, _, _)| n.eq_ignore_ascii_case(name)) {
                names.push((name, None, true));
            }
        }
        for tag in self.game.tags.clone() {
            let span = &self.batch.tags[tag];
            let name = self.batch.name(span);
            let Some((name, first, all_same)) = names
                .iter_mut()
                .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
            else {
                continue;
            };
            let value = self.repaired_value(tag);
            let Some(first_value) = first else {
                *first = Some(value);
                continue;
            };
            let is_id = name.eq_ignore_ascii_case(ID_TAG.as_bytes())
                || name.eq_ignore_ascii_case(FRITZ9_TAG.as_bytes());
            *all_same &= value == *first_value
                || (is_id && ids_rewritten)
                || (name.eq_ignore_ascii_case(b"FEN") && fen::same_start(first_value, &value));
        }
        for &tag in repeated {
            let span = &self.batch.tags[tag];
            let name = self.batch.name(span);
            let all_same = names
                .iter()
                .any(|(n, _, all_same)| *all_same && n.eq_ignore_ascii_case(name));
            let Some(line) = line_of_tag_alone(&self.batch.data, span).filter(|_| all_same) else {
                continue;
            };
            self.out.edits.push(Edit {
                at: line.start,
                remove: line.len(),
                insert: Vec::new(),
            });
            // In tag order, so that `removed` looks up by binary search.
            self.removed.push(tag);
            let name = String::from_utf8_lossy(name).into_owned();
            let before = tag_value(self.batch, span);
            self.fixed_row(
                Problem::Finding(Code::TagRepeated),
                span.name.start,
                &name,
                &before,
                "",
            );
        }
    }

    /// Whether a repeated tag's line is removed.
    fn is_removed(&self, tag: usize) -> bool {
        self.removed.binary_search(&tag).is_ok()
    }

    /// The tag of a known name that the game keeps: the last of its name
    /// (as the reading reads it), or, when that repeat is removed, the
    /// first, which says the same.
    fn known(&self, known: Known) -> Option<usize> {
        let tag = self.reading.headers.get(known)?;
        if !self.is_removed(tag) {
            return Some(tag);
        }
        let name = self.batch.name(&self.batch.tags[tag]);
        self.game.tags.clone().find(|&other| {
            self.batch
                .name(&self.batch.tags[other])
                .eq_ignore_ascii_case(name)
        })
    }

    /// Notes that the repairs remove every finding of these codes.
    fn resolve(&mut self, codes: &[Code]) {
        for &code in codes {
            self.resolved |= bit(code);
        }
    }

    /// The game's start once repaired: its start array (the standard one
    /// without a `FEN`), after adding the `FEN` its records give; `None`
    /// for a set-up position, another game, or a start left unknown.
    fn start(&mut self) -> Option<StartArray> {
        match &self.reading.start {
            Start::Array(array) => Some(*array),
            Start::NoFen => Some(StartArray::Chess960(BackRank::STANDARD)),
            Start::FenMissing { recorded } => self.fen_from_record(*recorded),
            _ => None,
        }
    }

    /// Adds the `FEN` of the start a game without one records (`None`:
    /// its records disagree), with the tags it needs beside it, when the
    /// moves replay legally from it.
    fn fen_from_record(&mut self, recorded: Option<BackRank>) -> Option<StartArray> {
        let headers = &self.reading.headers;
        let setup_tag = self.known(Known::SetUp);
        let setup_one = setup_tag.is_some_and(|tag| self.value_is(tag, "1"));
        let problem = Problem::Finding(Code::FenMissing);
        // A start left unrepaired is told on the line of its record.
        let record = headers
            .ids()
            .first()
            .map(|id| id.tag)
            .or(self.known(Known::Opening))
            .map_or(self.game.range.start, |tag| self.batch.tags[tag].name.start);
        let Some(rank) = recorded else {
            self.left_at(problem, record);
            return None;
        };
        let start = StartArray::Chess960(rank);
        let variant_tag = self.known(Known::Variant);
        let variant_needed = !self.reading.variant.is_chess960();
        if !self.record_ready(rank) {
            self.left_at(problem, record);
            return None;
        }
        let notation = self.options.castling.unwrap_or(CastlingNotation::Xfen);
        self.add(Slot::Fen, start.to_fen(notation), problem);
        if !setup_one {
            self.set(Slot::SetUp, setup_tag, "1", problem);
        }
        if variant_needed {
            let options = self.options;
            self.set(
                Slot::Variant,
                variant_tag,
                options.variant_name.as_str(),
                problem,
            );
        }
        self.resolve(&[Code::FenMissing, Code::SetupWithoutFen, Code::IdMismatch]);
        Some(start)
    }

    /// Whether the `FEN` of the start `rank` that a game without one
    /// records can be added, with the `SetUp` and `Variant` it needs: there
    /// is a place for new lines, the tags to rewrite can be, and the
    /// mainline replays legally from that start.
    fn record_ready(&self, rank: BackRank) -> bool {
        let setup_tag = self.known(Known::SetUp);
        let setup_one = setup_tag.is_some_and(|tag| self.value_is(tag, "1"));
        let variant_needed = !self.reading.variant.is_chess960();
        let can_write = |tag: Option<usize>| {
            tag.is_none_or(|tag| crate::tag::rewritable(&self.batch.data, &self.batch.tags[tag]))
        };
        self.game.insert_at.is_some()
            && (setup_one || can_write(setup_tag))
            && (!variant_needed || can_write(self.known(Known::Variant)))
            && *self.record_replays.get_or_init(|| {
                replays_legally(self.batch, self.game, StartArray::Chess960(rank).setup())
            })
    }

    /// A `Variant` naming Chess960 on a 960 array other than 518, and the
    /// spelling asked for where it names Chess960 in one that readers
    /// reject (or, with [`Spellings::All`], in any other).
    fn variant(&mut self, start: Option<&StartArray>) {
        let tag = self.known(Known::Variant);
        // The tag kept, read as the reading reads the last: after a repeat
        // is removed, the first may be spelled otherwise.
        let variant = tag.map_or(self.reading.variant, |tag| {
            Variant::from_value(&tag_value(self.batch, &self.batch.tags[tag]))
        });
        let added_fen = self.added[Slot::Fen as usize].is_some();
        let codes = [
            Code::VariantSpelling,
            Code::VariantMissing,
            Code::VariantMismatch,
        ];
        let Some(problem) = self.variant_repair(tag, variant, start, added_fen) else {
            // The last `Variant` removed as a repeat: what `validate` found
            // in it is gone unless the one kept says it too.
            if tag != self.reading.headers.get(Known::Variant) {
                match variant {
                    Variant::Chess960 { common: true } => self.resolve(&codes),
                    Variant::Chess960 { common: false } => self.resolve(&codes[1..]),
                    _ => {}
                }
            }
            return;
        };
        let name = self.options.variant_name.as_str();
        if self.set(Slot::Variant, tag, name, problem) {
            // Every name asked for is a spelling common readers read.
            self.resolve(&codes);
        }
    }

    /// What rewriting (or adding) the `Variant` repairs, when `variant`
    /// read from `tag` (`None`: the game has none) is to be rewritten to
    /// the name asked for; `None` when it stays.
    fn variant_repair(
        &self,
        tag: Option<usize>,
        variant: Variant,
        start: Option<&StartArray>,
        added_fen: bool,
    ) -> Option<Problem> {
        if self.reading.start == Start::NotChess {
            return None;
        }
        let options = self.options;
        let name = options.variant_name.as_str();
        let other_array = start.is_some_and(|s| *s != StartArray::Chess960(BackRank::STANDARD));
        match variant {
            Variant::Chess960 { common } => {
                let tag = tag.expect("a Variant that names Chess960 is a tag");
                if self.batch.raw_value(&self.batch.tags[tag]) == name.as_bytes() {
                    return None;
                }
                match (options.spellings, common) {
                    (Spellings::Keep, _) | (Spellings::Reported, true) => None,
                    (_, false) => Some(Problem::Finding(Code::VariantSpelling)),
                    (Spellings::All, true) => Some(Problem::VariantName),
                }
            }
            // With a FEN added, the Variant came with it.
            _ if added_fen || !other_array => None,
            Variant::Absent => Some(Problem::Finding(Code::VariantMissing)),
            Variant::Standard | Variant::FromPosition => {
                let replays = *self.fen_replays.get_or_init(|| {
                    self.first_fen_setup()
                        .is_some_and(|setup| replays_legally(self.batch, self.game, setup))
                });
                replays.then_some(Problem::Finding(Code::VariantMismatch))
            }
            Variant::Other => None,
        }
    }

    /// The value a repeated tag would say once `fix` has made its value
    /// repairs, to tell whether the repeats of a name say the same: a
    /// `SetUp` beside a `FEN` that reads says `1`, a `Variant` that is
    /// rewritten says the name asked for; any other tag, or one that
    /// cannot be rewritten, what it says.
    fn repaired_value(&self, tag: usize) -> Cow<'a, [u8]> {
        let batch = self.batch;
        let span = &batch.tags[tag];
        let raw = Cow::Borrowed(batch.raw_value(span));
        if !self.reading.start.is_known() || !crate::tag::rewritable(&batch.data, span) {
            return raw;
        }
        let name = batch.name(span);
        if name.eq_ignore_ascii_case(b"SetUp") {
            if self.reading.headers.fens().is_empty() {
                return raw;
            }
            return Cow::Borrowed(b"1");
        }
        if name.eq_ignore_ascii_case(b"Variant") {
            let start = match &self.reading.start {
                Start::Array(array) => Some(*array),
                Start::NoFen => Some(StartArray::Chess960(BackRank::STANDARD)),
                // A start a record gives comes with its own Variant.
                _ => return raw,
            };
            let variant = Variant::from_value(&tag_value(batch, span));
            if self
                .variant_repair(Some(tag), variant, start.as_ref(), false)
                .is_some()
            {
                return Cow::Owned(self.options.variant_name.as_str().as_bytes().to_vec());
            }
        }
        raw
    }

    /// The setup the game's first `FEN` gives, to replay from.
    fn first_fen_setup(&self) -> Option<shakmaty::Setup> {
        let &tag = self.reading.headers.fens().first()?;
        read_fen(&tag_value(self.batch, &self.batch.tags[tag]))
            .ok()?
            .setup()
    }

    /// `SetUp "1"` beside a `FEN` tag.
    fn setup(&mut self) {
        let headers = &self.reading.headers;
        if headers.fens().is_empty() {
            return; // a FEN added brought its SetUp
        }
        let tag = self.known(Known::SetUp);
        if tag.is_some_and(|tag| self.value_is(tag, "1")) {
            // Perhaps the last, removed as a repeat, said otherwise.
            self.resolve(&[Code::FenWithoutSetup]);
            return;
        }
        let problem = Problem::Finding(Code::FenWithoutSetup);
        if self.set(Slot::SetUp, tag, "1", problem) {
            self.resolve(&[Code::FenWithoutSetup]);
        }
    }

    /// The id tags of a game that starts from a Chess960 array: each
    /// rewritten to the array's number, and a `Chess960Id` added to a
    /// Chess960 game without one — or, when one of them does not end on
    /// its line, none of this (as `tag` does).
    fn ids(&mut self, start: Option<&StartArray>) {
        let Some(&StartArray::Chess960(rank)) = start else {
            return;
        };
        let ids = self.reading.headers.ids();
        if ids.iter().any(|id| !self.batch.tags[id.tag].well_formed) {
            return;
        }
        for &id in ids {
            if self.is_removed(id.tag) {
                continue;
            }
            let right = id.number_of(rank);
            let value = tag_value(self.batch, &self.batch.tags[id.tag]);
            let number = std::str::from_utf8(&value)
                .ok()
                .and_then(plain_number)
                .filter(|n| id.numbers().contains(n));
            let code = match number {
                Some(n) if n == right => continue,
                Some(_) => Code::IdMismatch,
                None => Code::IdMalformed,
            };
            self.rewrite(id.tag, &right.to_string(), Problem::Finding(code));
        }
        self.resolve(&[Code::IdMismatch, Code::IdMalformed]);
        let chess960 =
            self.reading.kind == Kind::Chess960 || self.added[Slot::Fen as usize].is_some();
        if chess960 && !ids.iter().any(|id| !id.fritz9) {
            self.set(
                Slot::Id,
                None,
                &rank.scharnagl().to_string(),
                Problem::IdMissing,
            );
        }
    }

    /// With `--castling`, the castling field of each `FEN` of a start
    /// array in the notation asked for.
    fn castling(&mut self) {
        let (Some(notation), Start::Array(array)) = (self.options.castling, &self.reading.start)
        else {
            return;
        };
        let board = array.board();
        for &tag in self.reading.headers.fens() {
            if self.is_removed(tag) {
                continue;
            }
            let span = &self.batch.tags[tag];
            let raw = self.batch.raw_value(span);
            let Some(field) = fen::castling_field(raw) else {
                continue; // no castling field to write
            };
            if notation.writes(&raw[field.clone()]) {
                continue;
            }
            let rooks = std::str::from_utf8(&raw[field.clone()])
                .ok()
                .and_then(|text| castling_rooks(&board, text).ok());
            let Some(rooks) = rooks else {
                continue; // `castling_rights_invalid` tells what is wrong
            };
            let new_field = array.castling_field(rooks, notation);
            let new_value = [&raw[..field.start], new_field.as_bytes(), &raw[field.end..]].concat();
            let same = read_fen(raw)
                .ok()
                .zip(read_fen(&new_value).ok())
                .is_some_and(|(old, new)| old.same_position(&new));
            if !span.well_formed || raw.contains(&b'\\') || !same {
                self.left_at(Problem::CastlingNotation, span.name.start);
                continue;
            }
            self.out.edits.push(Edit {
                at: span.value.start + field.start,
                remove: field.len(),
                insert: new_field.into_bytes(),
            });
            let after = String::from_utf8_lossy(&new_value).into_owned();
            let name = String::from_utf8_lossy(self.batch.name(span));
            self.fixed_row(
                Problem::CastlingNotation,
                span.name.start,
                &name,
                raw,
                &after,
            );
        }
    }

    /// Whether a tag's value, trimmed, is `value`.
    fn value_is(&self, tag: usize, value: &str) -> bool {
        tag_value(self.batch, &self.batch.tags[tag]).trim_ascii() == value.as_bytes()
    }

    /// Gives the game a tag with this value: rewrites `tag`'s value, or,
    /// without one, adds a line in `slot`. Whether it could.
    fn set(&mut self, slot: Slot, tag: Option<usize>, value: &str, problem: Problem) -> bool {
        match tag {
            // A value read only leniently (text between the name and the
            // quote, or a quote inside it) is never rewritten: its line
            // holds bytes the rewrite would lose.
            Some(tag) if crate::tag::rewritable(&self.batch.data, &self.batch.tags[tag]) => {
                self.rewrite(tag, value, problem);
                true
            }
            Some(tag) => {
                self.left_at(problem, self.batch.tags[tag].name.start);
                false
            }
            None if self.game.insert_at.is_some() => {
                self.add(slot, value.to_string(), problem);
                true
            }
            None => {
                self.leave_unless_found(problem);
                false
            }
        }
    }

    /// Rewrites the value of a well-formed tag.
    fn rewrite(&mut self, tag: usize, value: &str, problem: Problem) {
        let span = &self.batch.tags[tag];
        let name = String::from_utf8_lossy(self.batch.name(span));
        self.out.edits.push(Edit {
            at: span.value.start,
            remove: span.value.len(),
            insert: value.as_bytes().to_vec(),
        });
        let before = tag_value(self.batch, span);
        self.fixed_row(problem, span.name.start, &name, &before, value);
    }

    /// Adds a tag line in `slot` (the game has a place for it).
    fn add(&mut self, slot: Slot, value: String, problem: Problem) {
        self.added[slot as usize] = Some(Added { value, problem });
    }

    /// Counts a problem left that `validate` does not report (it reports
    /// the others, which are counted from its findings).
    fn leave_unless_found(&mut self, problem: Problem) {
        if !matches!(problem, Problem::Finding(_)) {
            let at = self
                .batch
                .tags_of(self.game)
                .first()
                .map_or(self.game.range.start, |tag| tag.name.start);
            self.left_at(problem, at);
        }
    }

    /// Counts a problem left, at the line of `offset`, unless `validate`
    /// reports it.
    fn left_at(&mut self, problem: Problem, offset: usize) {
        if !matches!(problem, Problem::Finding(_)) {
            let line = self.line(offset);
            self.left_at_line(problem, line);
        }
    }

    fn left_at_line(&mut self, problem: Problem, line: u64) {
        self.out.counts.add(problem, Action::Left);
        if self.options.rows {
            self.out.rows.push(Row {
                game: self.game.index,
                line,
                problem,
                action: Action::Left,
                tag: String::new(),
                before: String::new(),
                after: String::new(),
            });
        }
    }

    fn fixed_row(
        &mut self,
        problem: Problem,
        offset: usize,
        tag: &str,
        before: &[u8],
        after: &str,
    ) {
        self.out.counts.add(problem, Action::Fixed);
        if self.options.rows {
            let line = self.line(offset);
            self.out.rows.push(Row {
                game: self.game.index,
                line,
                problem,
                action: Action::Fixed,
                tag: tag.to_string(),
                before: String::from_utf8_lossy(before).into_owned(),
                after: after.to_string(),
            });
        }
    }

    /// The line of an offset, when rows are asked for.
    fn line(&self, offset: usize) -> u64 {
        if self.options.rows {
            self.lines.line_of(offset)
        } else {
            0
        }
    }

    /// The lines added, as one edit; the game's rows by line.
    fn finish(mut self) {
        let mut inserted = Vec::new();
        for (slot, added) in [Slot::Variant, Slot::SetUp, Slot::Fen, Slot::Id]
            .into_iter()
            .zip(std::mem::take(&mut self.added))
        {
            let Some(Added { value, problem }) = added else {
                continue;
            };
            let at = self
                .game
                .insert_at
                .expect("lines are added where there is a place");
            for piece in [
                b"[",
                slot.name().as_bytes(),
                b" \"",
                value.as_bytes(),
                b"\"]",
            ] {
                inserted.extend_from_slice(piece);
            }
            inserted.extend_from_slice(self.game.line_ending.as_bytes());
            self.fixed_row(problem, at, slot.name(), b"", &value);
        }
        if !inserted.is_empty() {
            self.out.edits.push(Edit {
                at: self
                    .game
                    .insert_at
                    .expect("lines are added where there is a place"),
                remove: 0,
                insert: inserted,
            });
        }
        if self.out.edits.len() > self.edits_from {
            self.out.counts.games_fixed += 1;
        }
        self.out.rows[self.rows_from..].sort_by_key(|row| row.line);
    }
}

/// A code's bit among the codes a game's repairs remove.
fn bit(code: Code) -> u64 {
    // The codes are declared in the order of `Code::ALL`, fewer than 64.
    1 << (code as u32)
}
