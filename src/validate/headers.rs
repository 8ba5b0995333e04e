//! Checks of the tags themselves: `SetUp` with `FEN`, the `Variant`, the id
//! tags, and a tag cut off by the end of the input.

use std::borrow::Cow;

use crate::BackRank;
use crate::game::{COMMON_SPELLINGS, Known, Start, Variant, plain_number, tag_value};
use crate::position::StartArray;

use super::{Code, GameCheck};

/// A tag value as text, invalid UTF-8 replaced; valid text (nearly all)
/// is checked the fast way, [`String::from_utf8_lossy`] going byte by byte.
pub(super) fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

impl GameCheck<'_> {
    /// The value of a tag, by its index, as text.
    pub(super) fn value_text(&self, tag: usize) -> String {
        lossy(&tag_value(self.batch, &self.batch.tags[tag])).into_owned()
    }

    /// The start array, when the game has one.
    pub(super) fn start_array(&self) -> Option<StartArray> {
        match self.reading.start {
            Start::NoFen => Some(StartArray::Chess960(BackRank::STANDARD)),
            Start::Array(array) => Some(array),
            _ => None,
        }
    }

    /// The last game of an input must not end inside a tag.
    pub(super) fn check_tag_cut_off(&mut self) {
        let tags = self.batch.tags_of(self.game);
        let Some(last) = tags.last() else {
            return;
        };
        let rest = &self.batch.data[last.end..self.game.range.end];
        if self.game.at_end && !last.well_formed && rest.trim_ascii().is_empty() {
            let line = self.line_of(last.name.start);
            self.report(
                line,
                Code::Unterminated,
                "the input ends inside a tag".to_string(),
            );
        }
    }

    /// A tag the reading reads, given twice: readers keep one or the
    /// other (the first, the last, or the game refused).
    pub(super) fn check_repeated_tags(&mut self) {
        for &tag in self.reading.headers.repeated() {
            let name = lossy(self.batch.name(&self.batch.tags[tag])).into_owned();
            let message = format!("a second {name} tag: readers keep one or the other");
            self.report_at_tag(Some(tag), Code::TagRepeated, message);
        }
    }

    /// `SetUp "1"` and a `FEN` tag belong together.
    pub(super) fn check_setup_and_fen(&mut self) {
        let headers = &self.reading.headers;
        let setup = headers.get(Known::SetUp);
        let setup_one = setup
            .is_some_and(|tag| tag_value(self.batch, &self.batch.tags[tag]).trim_ascii() == b"1");
        match (headers.fens().first(), setup) {
            (None, Some(tag)) if setup_one => {
                let line = self.line_of_tag(tag);
                self.report(
                    line,
                    Code::SetupWithoutFen,
                    "SetUp \"1\" but no FEN tag".to_string(),
                );
            }
            (Some(&fen), _) if !setup_one => {
                let message = match setup {
                    Some(tag) => format!(
                        "FEN tag with SetUp {:?} instead of \"1\"",
                        self.value_text(tag)
                    ),
                    None => "FEN tag without SetUp \"1\"".to_string(),
                };
                let line = self.line_of_tag(fen);
                self.report(line, Code::FenWithoutSetup, message);
            }
            _ => {}
        }
    }

    /// The `Variant` must name Chess960 on a 960 array other than 518, and
    /// in a spelling that readers accept.
    pub(super) fn check_variant(&mut self) {
        let tag = self.reading.headers.get(Known::Variant);
        let is_960_array = self
            .start_array()
            .is_some_and(|array| array != StartArray::Chess960(BackRank::STANDARD));
        let shown = || tag.map(|tag| self.value_text(tag)).unwrap_or_default();
        match self.reading.variant {
            Variant::Absent if is_960_array => self.report_at_tag(
                tag,
                Code::VariantMissing,
                "a Chess960 start array other than 518 but no Variant tag; readers will take it for standard chess".to_string(),
            ),
            Variant::Standard | Variant::FromPosition if is_960_array => {
                let message =
                    format!("Variant {:?} on a Chess960 start array other than 518", shown());
                self.report_at_tag(tag, Code::VariantMismatch, message);
            }
            Variant::Chess960 { common: false } => {
                let message = format!(
                    "Variant {:?}: many readers only accept {}",
                    shown(),
                    COMMON_SPELLINGS
                        .iter()
                        .map(|spelling| format!("{spelling:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                self.report_at_tag(tag, Code::VariantSpelling, message);
            }
            _ => {}
        }
    }

    /// Each `Chess960Id` (`Chess960Fritz9Id`) must be the number of the
    /// game's start array. Not checked when the start is unknown, except
    /// that a start recorded without a `FEN` (which the ids name, and
    /// `fen_missing` tells) still needs well-formed numbers.
    pub(super) fn check_ids(&mut self) {
        if !self.reading.start.is_known() {
            return;
        }
        let recorded = matches!(self.reading.start, Start::FenMissing { .. });
        let array = self.start_array();
        for id in self.reading.headers.ids().to_vec() {
            let (name, range) = (id.name(), id.numbers());
            let text = self.value_text(id.tag);
            // The number alone, as `tag` writes it: `tag` rewrites any
            // other value, so `validate` reports it.
            let Some(number) = plain_number(&text).filter(|n| range.contains(n)) else {
                let padded = text.trim() != text && plain_number(text.trim()).is_some();
                let message = if padded {
                    format!("{name} {text:?} has blanks around its number")
                } else {
                    format!(
                        "{name} {text:?} is not a number from {} to {}",
                        range.start(),
                        range.end()
                    )
                };
                self.report_at_tag(Some(id.tag), Code::IdMalformed, message);
                continue;
            };
            if recorded {
                continue;
            }
            let Some(StartArray::Chess960(rank)) = array else {
                let what = match array {
                    Some(StartArray::DoubleFrc { .. }) => "a Double FRC game",
                    _ => "a game with no Chess960 start array",
                };
                let message = format!("{name} {number} on {what}");
                self.report_at_tag(Some(id.tag), Code::IdMalformed, message);
                continue;
            };
            let right = id.number_of(rank);
            if number != right {
                let message =
                    format!("{name} is {number}, but the game starts from {rank}, number {right}");
                self.report_at_tag(Some(id.tag), Code::IdMismatch, message);
            }
        }
    }
}
