//! Every way a Chess960 game's headers or moves can be wrong, as findings
//! with stable codes that scripts can filter on.
//!
//! Codes never change meaning once published; new checks get new codes.
//! Each finding points at the game (its index in the input) and at the line
//! of the offending tag or move, so an arbiter can open the file there.
//!
//! A game is read as every command reads it ([`Reading`]): its start, its
//! kind and its tags come from there, and its moves from the one movetext
//! lexer. The checks, by job:
//!
//! - `codes`: the codes, their severities and meanings;
//! - `headers`: tags that belong together (`SetUp` and `FEN`), the
//!   `Variant`, the id tags, a tag cut off by the end of input;
//! - `start`: each `FEN` tag and the start they give;
//! - `replay`: the mainline replayed with shakmaty in Chess960 castling
//!   mode, the result, and movetext left open (a variation still open when
//!   the next game begins is seen by the replay, so `--no-moves` does not
//!   look for it).
//!
//! A game whose `Variant` names another game is not chess: only what does
//! not depend on the rules is checked (`SetUp` with `FEN`, a game cut off).

mod codes;
mod headers;
mod replay;
mod san;
mod start;

pub use codes::{Code, Severity};
pub use replay::replays_legally;

use std::cell::Cell;

use crate::game::{KindCounts, Reading, Start};
use crate::input::Reader;
use crate::pipeline::{self, PipelineConfig, PipelineError};
use crate::split::{Batch, Game, LineCounter};

/// One problem in one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// 1-based index of the game within its input.
    pub game: u64,
    /// 1-based line of the offending tag or move, else of the game's start.
    pub line: u64,
    /// What is wrong.
    pub code: Code,
    /// The details, in one line.
    pub message: String,
}

/// What to check.
#[derive(Clone, Copy, Debug)]
pub struct ValidateOptions {
    /// Replay the mainline (on by default; `--no-moves` turns it off).
    pub moves: bool,
    /// Count the line of each finding (on by default). Off, every
    /// finding's line is 0: for a caller that counts findings and never
    /// shows where they are, which spares counting the lines of the batch.
    pub lines: bool,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            moves: true,
            lines: true,
        }
    }
}

/// What validating a batch found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Validation {
    /// The findings, in game order, and by line within a game.
    pub findings: Vec<Finding>,
    /// The games checked, by kind.
    pub kinds: KindCounts,
}

/// Checks every game of a batch; findings come in game order, and by line
/// within a game.
///
/// Lines are counted within the batch (1 for its first line), and only
/// for the games with findings; once the pipeline has placed the batch
/// ([`Batch::first_line`]), [`Batch::input_line`] turns them into lines of
/// the input.
///
/// # Example
///
/// ```
/// use pgn960::split::GameReader;
/// use pgn960::validate::{validate_batch, Code, ValidateOptions};
///
/// let pgn = b"[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 e5 2. Ke2 *\n";
/// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
/// let findings = validate_batch(&batch, ValidateOptions::default()).findings;
/// let codes: Vec<Code> = findings.iter().map(|f| f.code).collect();
/// // Findings on the same line come in the order of `Code::ALL`.
/// assert_eq!(codes, [Code::VariantMissing, Code::FenWithoutSetup, Code::IllegalMove]);
/// assert_eq!(batch.input_line(findings[2].line), 3);
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn validate_batch(batch: &Batch, options: ValidateOptions) -> Validation {
    let mut validation = Validation::default();
    validate_each(batch, options, |_, reading, findings| {
        validation.kinds.add(reading.kind);
        validation.findings.append(findings);
    });
    validation
}

/// Checks every game of one opened input and hands each finding to
/// `emit`, in input order, its line that of the input (0 without
/// `options.lines`): the one loop `pgn960 validate` and the Python module
/// both run. `batch_done` is called on the calling thread with each batch
/// and its games by kind before that batch's findings go out, for
/// progress, counts, or a reason to stop (an error of its own).
///
/// # Errors
///
/// As [`pipeline::run_reader`]: the first error of `batch_done` or `emit`,
/// a panic of the work, or the input's read error (the findings before it
/// have gone out).
///
/// # Example
///
/// ```
/// use pgn960::input::open_stream;
/// use pgn960::pipeline::PipelineConfig;
/// use pgn960::validate::{Code, ValidateOptions, validate_input};
///
/// let pgn = b"[Event \"a\"]\n\n1. e4 *\n\n\
///     [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 e5 2. Ke2 *\n";
/// let opened = open_stream(Box::new(&pgn[..]))?;
/// let mut found = Vec::new();
/// validate_input(opened.reader, PipelineConfig::default(), ValidateOptions::default(),
///     |_batch, _kinds| Ok::<_, std::io::Error>(()),
///     |finding| Ok(found.push((finding.game, finding.line, finding.code))))
///     .expect("reading from memory cannot fail");
/// assert_eq!(found, [
///     (2, 5, Code::VariantMissing),
///     (2, 5, Code::FenWithoutSetup),
///     (2, 7, Code::IllegalMove),
/// ]);
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn validate_input<E>(
    reader: Reader,
    config: PipelineConfig,
    options: ValidateOptions,
    mut batch_done: impl FnMut(&Batch, &KindCounts) -> Result<(), E>,
    mut emit: impl FnMut(Finding) -> Result<(), E>,
) -> Result<(), PipelineError<E>> {
    let config = PipelineConfig {
        line_numbers: options.lines,
        ..config
    };
    pipeline::run_reader(
        reader,
        config,
        |batch| validate_batch(batch, options),
        |batch, validation| {
            batch_done(batch, &validation.kinds)?;
            for mut finding in validation.findings {
                if options.lines {
                    finding.line = batch.input_line(finding.line);
                }
                emit(finding)?;
            }
            Ok(())
        },
    )
}

/// Checks every game of a batch as [`validate_batch`] does, and hands each
/// game, in order, to `each` with its reading and its findings (by line;
/// `each` may take them): for a caller that needs the reading too, such as
/// `filter --finding`, which then reads each game once.
pub fn validate_each(
    batch: &Batch,
    options: ValidateOptions,
    mut each: impl FnMut(&Game, &Reading, &mut Vec<Finding>),
) {
    let mut findings = Vec::new();
    let lines = LineCounter::new(&batch.data);
    for game in &batch.games {
        let reading = Reading::of(batch, game);
        findings.clear();
        check_game(batch, game, &reading, options, &lines, &mut findings);
        each(game, &reading, &mut findings);
    }
}

/// Checks one game of a batch, read as `reading`, adding its findings to
/// `findings` by line (findings on one line in the order of
/// [`Code::ALL`]). Lines are counted by `lines`, over the batch's bytes,
/// as in [`validate_batch`]; a caller that has read the game already (as
/// `fix` has) checks it without reading it again.
pub fn check_game(
    batch: &Batch,
    game: &Game,
    reading: &Reading,
    options: ValidateOptions,
    lines: &LineCounter<'_>,
    findings: &mut Vec<Finding>,
) {
    let start = findings.len();
    GameCheck {
        batch,
        game,
        reading,
        findings,
        lines: options.lines.then_some(lines),
        first_line: Cell::new(None),
    }
    .run(options);
    findings[start..].sort_by_key(|f| (f.line, f.code));
}

/// The checks of one game, and where their findings go.
struct GameCheck<'a> {
    batch: &'a Batch,
    game: &'a Game,
    reading: &'a Reading,
    findings: &'a mut Vec<Finding>,
    /// `None` when lines are not counted.
    lines: Option<&'a LineCounter<'a>>,
    /// The game's first line, once a finding has asked for a line.
    first_line: Cell<Option<u64>>,
}

impl GameCheck<'_> {
    fn run(mut self, options: ValidateOptions) {
        if self.reading.start == Start::TagsIncomplete {
            self.report_at_tag(
                None,
                Code::TagSectionTooLong,
                "the tag section is too long to read whole (over 65,536 tag pairs or 16 MiB, \
                 or a tag line over 16 MiB): where the game starts is unknown"
                    .to_string(),
            );
            return;
        }
        self.check_tag_cut_off();
        self.check_repeated_tags();
        self.check_setup_and_fen();
        if self.reading.start == Start::NotChess {
            self.check_input_end();
            return;
        }
        let first_fen = self.read_fens();
        self.check_start(first_fen.as_ref());
        self.check_variant();
        self.check_ids();
        self.check_input_end();
        self.replay(first_fen.as_ref(), options);
    }

    /// The game's first line, counted the first time a finding needs a
    /// line: no question of this game goes back further.
    fn first_line(&self) -> u64 {
        if let Some(line) = self.first_line.get() {
            return line;
        }
        let Some(lines) = self.lines else {
            return 0;
        };
        let line = lines.floor(self.batch.first_line_start(self.game));
        self.first_line.set(Some(line));
        line
    }

    /// The line of `offset` (into the batch), counted from the game's
    /// first line on.
    fn line_of(&self, offset: usize) -> u64 {
        self.first_line();
        self.lines.map_or(0, |lines| lines.line_of(offset))
    }

    /// The line of the tag with this index in [`Batch::tags`].
    fn line_of_tag(&self, tag: usize) -> u64 {
        self.line_of(self.batch.tags[tag].name.start)
    }

    /// Reports a finding on the line of tag `tag`, or without one, on the
    /// game's first line.
    fn report_at_tag(&mut self, tag: Option<usize>, code: Code, message: String) {
        let line = tag.map_or_else(|| self.first_line(), |tag| self.line_of_tag(tag));
        self.report(line, code, message);
    }

    fn report(&mut self, line: u64, code: Code, message: String) {
        self.findings.push(Finding {
            game: self.game.index,
            line,
            code,
            message,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    fn codes(pgn: &str) -> Vec<&'static str> {
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        validate_batch(&batch, ValidateOptions::default())
            .findings
            .iter()
            .map(|f| f.code.name())
            .collect()
    }

    const FEN_0: &str = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1";

    #[test]
    fn clean_960_game_has_no_finding() {
        let pgn = format!(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n[Chess960Id \"0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Nc3 Nf6 1-0\n"
        );
        assert_eq!(codes(&pgn), Vec::<&str>::new());
        // Castling written with zeros, in the standard array played as 960.
        let pgn =
            "[Variant \"Chess960\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 Nf6 5. d3 0-0 *\n";
        assert_eq!(codes(pgn), Vec::<&str>::new());
    }

    #[test]
    fn a_stray_closing_brace_is_skipped() {
        for input in [&b"}"[..], b"[Event \"{\"]\n\n} *\n"] {
            let batch = GameReader::new(input).next_batch().unwrap().unwrap();
            let _ = validate_batch(&batch, ValidateOptions::default());
        }
    }

    #[test]
    fn an_indented_escape_line_is_skipped_as_the_splitter_skips_it() {
        // Two games: the splitter reads the second line of moves as an
        // escape line, and so does the replay.
        let pgn = format!(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n\n1. e4\n  % escape {{ here\ne5 *\n\n[Event \"b\"]\n\n1. d4 *\n"
        );
        let batch = GameReader::new(pgn.as_bytes())
            .next_batch()
            .unwrap()
            .unwrap();
        assert_eq!(batch.games.len(), 2);
        assert_eq!(codes(&pgn), Vec::<&str>::new());
    }

    #[test]
    fn illegal_and_unreadable_moves() {
        let pgn = format!(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n\n1. e4 e5 2. Qxh7 *\n"
        );
        assert_eq!(codes(&pgn), ["illegal_move"]);
        let pgn =
            format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n\n1. e4 zz9 *\n");
        assert_eq!(codes(&pgn), ["illegal_move"]);
    }

    #[test]
    fn another_game_gets_no_chess960_finding() {
        let pgn = "[Variant \"Seirawan\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[HEhe] w KQBCDFGkqbcdfg - 0 1\"]\n[Chess960Id \"7\"]\n\n1. e4 @h1 *\n";
        assert_eq!(codes(pgn), Vec::<&str>::new());
    }

    #[test]
    fn two_fens_differing_in_side_to_move_conflict() {
        let pgn = format!(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{FEN_0}\"]\n[FEN \"{}\"]\n\n1. e4 *\n",
            FEN_0.replace(" w ", " b ")
        );
        // The second FEN is also a repeated tag.
        assert_eq!(codes(&pgn), ["fen_conflict", "tag_repeated"]);
    }

    #[test]
    fn a_board_part_alone_is_incomplete_not_unparsable() {
        let board = FEN_0.split(' ').next().unwrap();
        let pgn = format!(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{board}\"]\n[Chess960Id \"0\"]\n\n1. e4 e5 2. O-O *\n"
        );
        // The moves are replayed from the start array: O-O is illegal.
        assert_eq!(codes(&pgn), ["fen_incomplete", "illegal_move"]);
    }

    #[test]
    fn movetext_left_open() {
        // A variation still open when the next game's tags begin.
        let pgn = "[Event \"a\"]\n\n1. e4 (1. d4 d5 *\n\n[Event \"b\"]\n\n1. e4 *\n";
        assert_eq!(codes(pgn), ["unterminated"]);
        // The input ends before the last game's result.
        assert_eq!(codes("[Event \"a\"]\n\n1. e4 e5\n"), ["unterminated"]);
        // ... but a game of tags alone has no result to wait for.
        assert_eq!(codes("[Event \"a\"]\n[Site \"b\"]\n"), Vec::<&str>::new());
    }
}
