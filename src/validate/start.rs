//! Checks of the start: each `FEN` tag as text, and the start the game's
//! reading found in them (conflicts, illegal back ranks, Double FRC, a
//! start recorded without a `FEN`, and what a start array's other fields
//! say).

use crate::game::{Known, Start, StartRecord, tag_value};
use crate::position::{BackRank, FenProblem, FenRead, StartArray, read_fen};

use super::headers::lossy;
use super::{Code, GameCheck};

/// The first `FEN` tag, read whole, for the checks that look at its fields.
pub(super) struct FirstFen {
    /// Its index in [`crate::split::Batch::tags`].
    pub tag: usize,
    /// What it says.
    pub read: FenRead,
}

impl GameCheck<'_> {
    /// Reads every `FEN` tag, reporting what is wrong with each; returns
    /// the first when its placement reads.
    pub(super) fn read_fens(&mut self) -> Option<FirstFen> {
        let batch = self.batch;
        let mut first = None;
        for (i, &tag) in self.reading.headers.fens().iter().enumerate() {
            let value = tag_value(batch, &batch.tags[tag]);
            let text = || lossy(&value).trim().to_string();
            let read = match read_fen(&value) {
                Ok(read) => read,
                Err(err) => {
                    let message = format!("{err}: {:?}", text());
                    let line = self.line_of_tag(tag);
                    self.report(line, Code::FenUnparsable, message);
                    continue;
                }
            };
            for problem in &read.problems {
                let (code, message) = match problem {
                    FenProblem::Incomplete(fields) => (
                        Code::FenIncomplete,
                        format!(
                            "{fields} of the FEN fields (placement, side to move, castling, en passant, clocks): \
                             read as White to move, every castling right of a start array: {:?}",
                            text()
                        ),
                    ),
                    FenProblem::Unparsable(message) => (Code::FenUnparsable, message.clone()),
                    FenProblem::CastlingInvalid { field, problem } => (
                        Code::CastlingRightsInvalid,
                        format!("castling field {field:?}: {problem}"),
                    ),
                };
                let line = self.line_of_tag(tag);
                self.report(line, code, message);
            }
            if i == 0 {
                first = Some(FirstFen { tag, read });
            }
        }
        first
    }

    /// What the start the reading found says: FEN tags in conflict, a back
    /// rank that breaks a rule, Double FRC, and a start array's fields.
    pub(super) fn check_start(&mut self, first: Option<&FirstFen>) {
        let at = first.map(|fen| fen.tag);
        match &self.reading.start {
            Start::Conflict {
                first,
                second,
                placement,
            } => {
                let what = if *placement {
                    "places the pieces differently"
                } else {
                    "gives a different side to move, castling rights or en passant square"
                };
                let first_line = self.line_of_tag(*first);
                let message = format!("this FEN {what} than the FEN on line {first_line}");
                self.report_at_tag(Some(*second), Code::FenConflict, message);
            }
            Start::IllegalBackRank { white, black } => {
                let mut rules = Vec::new();
                if let Err(err) = white {
                    rules.push(format!("white: {err}"));
                }
                if let Err(err) = black {
                    rules.push(format!("black: {err}"));
                }
                let message = format!("not a legal Chess960 start array: {}", rules.join("; "));
                self.report_at_tag(at, Code::IllegalBackRank, message);
            }
            Start::Array(start) => {
                if let StartArray::DoubleFrc { white, black } = start {
                    let message = format!(
                        "Double FRC: White starts from {white} ({}), Black from {black} ({}); no Chess960Id applies",
                        white.scharnagl(),
                        black.scharnagl()
                    );
                    self.report_at_tag(at, Code::DoubleFrc, message);
                }
                if let Some(fen) = first {
                    self.check_start_fields(fen);
                }
            }
            Start::FenMissing { recorded } => self.check_fen_missing(*recorded),
            Start::NoFen
            | Start::SetUp
            | Start::NotChess
            | Start::BadFen { .. }
            | Start::TagsIncomplete => {}
        }
    }

    /// A game without a `FEN` whose records name another start than the
    /// standard array: told on the line of its first id tag (else of
    /// `Opening`), with what each record says.
    fn check_fen_missing(&mut self, recorded: Option<BackRank>) {
        let records = self.reading.start_records(self.batch);
        let named = |record: &StartRecord| {
            let name = lossy(self.batch.name(&self.batch.tags[record.tag])).into_owned();
            format!("{name} {:?}", self.value_text(record.tag).trim())
        };
        let message = match recorded {
            Some(rank) => {
                let tags: Vec<String> = records.iter().map(named).collect();
                format!(
                    "no FEN tag, but {} {} the start {rank} (number {}); \
                     readers will start the game from the standard array",
                    tags.join(" and "),
                    if tags.len() == 1 { "records" } else { "record" },
                    rank.scharnagl()
                )
            }
            None => {
                let said: Vec<String> = records
                    .iter()
                    .map(|record| {
                        format!(
                            "{} ({}, number {})",
                            named(record),
                            record.rank,
                            record.rank.scharnagl()
                        )
                    })
                    .collect();
                format!(
                    "no FEN tag, and the game's records of its start disagree: {}",
                    said.join(", ")
                )
            }
        };
        let headers = &self.reading.headers;
        let at = headers
            .ids()
            .first()
            .map(|id| id.tag)
            .or(headers.get(Known::Opening));
        self.report_at_tag(at, Code::FenMissing, message);
    }

    /// A start array's FEN should give White to move, every castling right
    /// and initial clocks.
    fn check_start_fields(&mut self, fen: &FirstFen) {
        let at = Some(fen.tag);
        match fen.read.castling_rights {
            Some(0) => self.report_at_tag(
                at,
                Code::CastlingRightsNone,
                "a start array with no castling rights".to_string(),
            ),
            Some(rights @ 1..=3) => self.report_at_tag(
                at,
                Code::CastlingRightsPartial,
                format!("a start array with {rights} of the 4 castling rights"),
            ),
            _ => {}
        }
        if fen.read.turn == Some(shakmaty::Color::Black) {
            self.report_at_tag(
                at,
                Code::StartNotWhiteToMove,
                "a start array with Black to move".to_string(),
            );
        }
        if !fen.read.clocks_initial {
            self.report_at_tag(
                at,
                Code::StartClockNotInitial,
                "a start array whose halfmove clock is not 0 or move number not 1".to_string(),
            );
        }
    }
}
