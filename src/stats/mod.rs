//! Per-start-position statistics that merge exactly.
//!
//! Researchers split archives into shards, count them on different machines
//! and merge the results, so every accumulated quantity is an integer: game
//! counts, rating sums, and the Elo expectation summed in units of 10^-9.
//! Integer sums do not depend on the order of addition, so a merge of shard
//! tables is the table of one run over all shards, byte for byte. The
//! derived columns (scores, Wilson intervals, averages, and the tests
//! across positions) are computed from the integers only when the table is
//! written.
//!
//! - `table`: the counts, by group and position;
//! - `rating_bins`: the rated games by rating difference and result;
//! - `facts`: what is read of each game (result, ratings, group);
//! - `analysis`: the tests across positions, per group;
//! - `csv`: the CSV, written and read back;
//! - `arrow`: the CSV's rows as an Arrow record batch;
//! - `json`: the summary of the tests across positions;
//! - `spill`: the table of counts under a memory budget, on disk beyond;
//! - `merge`: CSVs of shards merged row by row under that budget;
//! - `grouped`: the tests and outputs over groups read one at a time;
//! - `dfrc`: Double FRC games by pair of arrays and by each side's array;
//! - `copies`: each game counted once, the copies left out, in bounded
//!   memory.
//!
//! [`count_input`] counts one opened input: the one loop `pgn960 stats`
//! and the Python module both run.

mod analysis;
mod arrow;
mod copies;
mod csv;
mod decimal;
mod dfrc;
mod facts;
mod findings;
mod grouped;
mod heads;
mod json;
mod merge;
mod rating_bins;
mod spill;
mod table;

pub use self::csv::{
    BIN_COLUMNS, COLUMNS, Cell, CsvRow, CsvRows, ELO_SUM_COLUMNS, EXACT_COLUMNS, FEATURE_COLUMNS,
    MODEL_COLUMNS, RESEARCH_COLUMNS, ReadCsvError, for_each_row, for_each_row_of_group, header,
    into_io, read_csv, write_analysis_csv, write_csv,
};
pub use analysis::{
    Analysis, CONTAMINATION_EVIDENCE, ChiSquareTest, Davidson, DecisiveFit, EXACT_MAX, EloTest,
    FALSE_DISCOVERY_RATE, GroupTests, Heterogeneity, LOGISTIC_PER_POINT, NullModel, Pooled,
    PositionFindings, PositionTest, REPLICATES, Reference, Shrinkage, ShrunkScore, TableAnalysis,
    Unit, VARIANCE_TOLERANCE, WithinGroups, benjamini_hochberg, central_p, chi_square_upper_tail,
    detectable_shift, detectable_tau, elo_test, firth_logistic, fit_decisive, heterogeneity,
    heterogeneity_power, independence_test, score_interval, shrink, two_sided_normal_p,
};
pub use arrow::{analysis_record_batch, pairs_record_batch, record_batch};
pub use copies::{Copies, Offered, WAITING_MEMORY};
pub use dfrc::{
    DfrcGames, DfrcGroups, DfrcTables, PAIR_COLUMNS, for_each_pair_row, is_pairs_header, pair_key,
    pairs_header, read_pairs_csv, write_pairs_csv,
};
pub use facts::{
    ELO_RANGE, GameFacts, GameResult, GroupBy, UNKNOWN_GROUP, parse_elo, parse_result, parse_year,
};
pub use grouped::{ANALYSIS_MEMORY, GroupedAnalysis};
pub use json::{SummaryNotes, write_analysis_json, write_noted_analysis_json, write_summary_json};
pub use merge::{CsvMerge, MergeError, PART_ROWS};
pub use rating_bins::{BIN_WIDTH, MAX_BIN, MAX_DIFFERENCE, RatingBins, rating_bin};
pub use spill::{BoundedTable, GROUP_MEMORY, Groups};
use table::RowsBuilder;
pub use table::{MergeOverflow, PositionStats, Rows, StatsTable, Z_95, Z_998, wilson};

use std::io;
use std::sync::atomic::Ordering;

use crate::BackRank;
use crate::game::{Fingerprint, KindCounts, Reading, Unplayed, UnplayedCounts};
use crate::input::Reader;
use crate::pipeline::{self, PipelineConfig, PipelineError};
use crate::split::Batch;

/// What to count.
#[derive(Clone, Debug, Default)]
pub struct StatsOptions {
    /// Count plain standard games too (under 518).
    pub include_standard: bool,
    /// Group rows by a tag or the year.
    pub group_by: Option<GroupBy>,
    /// Keep only games where both players are rated at least this.
    pub min_elo: Option<i32>,
    /// Also count Double FRC games, by pair of arrays ([`DfrcGames`]).
    pub dfrc: bool,
    /// Count games whose result was not played ([`Reading::unplayed`])
    /// too; by default they are left out, and counted by reason in
    /// [`StatsSummary::unplayed`].
    pub keep_unplayed: bool,
}

/// What was read and counted; adds up across batches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatsSummary {
    /// Games read, by kind.
    pub kinds: KindCounts,
    /// Games counted in the table.
    pub counted: u64,
    /// Games that would have been counted but for `--min-elo` (unrated, or
    /// rated below it).
    pub below_min_elo: u64,
    /// Double FRC games counted by pair of arrays (with
    /// [`StatsOptions::dfrc`]); `below_min_elo` counts those left out.
    pub dfrc_counted: u64,
    /// Games that would have been counted but for a result that was not
    /// played, by reason: left out, or with
    /// [`StatsOptions::keep_unplayed`] counted all the same (and counted
    /// here too).
    pub unplayed: UnplayedCounts,
    /// Games (to count by position, or by pair of arrays) left out as
    /// copies of a game read before ([`count_input_bounded`] with
    /// [`Copies`]); a copy is told before its result is looked at, so
    /// a copy of an unplayed game is counted here, not in `unplayed`.
    pub duplicates: u64,
}

impl StatsSummary {
    /// Adds another summary to this one.
    pub fn merge(&mut self, other: &StatsSummary) {
        self.kinds.merge(&other.kinds);
        self.unplayed.merge(&other.unplayed);
        add_fields!(
            self,
            other,
            counted,
            below_min_elo,
            dfrc_counted,
            duplicates
        );
    }
}

/// Where a counted game goes: under its position, or (with
/// [`StatsOptions::dfrc`]) under its pair of arrays, White's then Black's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Counted {
    Position(BackRank),
    Pair(BackRank, BackRank),
}

/// Whether a game of `reading` would be counted (ignoring its result and
/// ratings), and where.
fn target(reading: &Reading, options: &StatsOptions) -> Option<Counted> {
    match reading.id(options.include_standard) {
        Some(position) => Some(Counted::Position(position)),
        None if options.dfrc => {
            let (white, black) = reading.double_frc()?;
            Some(Counted::Pair(white, black))
        }
        None => None,
    }
}

/// Whether a game with these facts is below `--min-elo`.
fn below_min_elo(facts: &GameFacts, options: &StatsOptions) -> bool {
    options.min_elo.is_some_and(|min| {
        let rated = |elo: Option<i32>| elo.is_some_and(|elo| elo >= min);
        !(rated(facts.white_elo) && rated(facts.black_elo))
    })
}

/// Whether and where a game of `reading` is counted, and its facts; a
/// game whose result was not played is counted in `summary` by reason
/// (and left out but with `keep_unplayed`), and one left out by
/// `--min-elo` as such.
fn counted(
    batch: &Batch,
    reading: &Reading,
    options: &StatsOptions,
    summary: &mut StatsSummary,
) -> Option<(Counted, GameFacts)> {
    let counted = target(reading, options)?;
    if let Some(reason) = reading.unplayed(batch) {
        summary.unplayed.add(reason);
        if !options.keep_unplayed {
            return None;
        }
    }
    let facts = GameFacts::of(batch, reading);
    if below_min_elo(&facts, options) {
        summary.below_min_elo += 1;
        return None;
    }
    Some((counted, facts))
}

/// Counts the games of a batch: every Chess960 game (and standard game,
/// with `include_standard`) under its position, every Double FRC game
/// under its pair of arrays (with `dfrc`), but those whose result was not
/// played (unless `keep_unplayed`) and those below `min_elo`, and every
/// game by kind.
pub fn stats_batch(batch: &Batch, options: &StatsOptions) -> (StatsTable, StatsSummary, DfrcGames) {
    stats_batch_noting(batch, options, None)
}

/// [`stats_batch`], noting the candidates' fingerprints in `candidates`.
fn stats_batch_noting(
    batch: &Batch,
    options: &StatsOptions,
    mut candidates: Option<&mut Candidates>,
) -> (StatsTable, StatsSummary, DfrcGames) {
    let mut table = StatsTable::default();
    // Without groups, the rows are counted as an array of positions.
    let mut ungrouped = options.group_by.is_none().then(RowsBuilder::new);
    let mut summary = StatsSummary::default();
    let mut pairs = DfrcGames::default();
    for (i, game) in batch.games.iter().enumerate() {
        let reading = Reading::of(batch, game);
        summary.kinds.add(reading.kind);
        if let Some(candidates) = candidates.as_deref_mut() {
            candidates.note(batch, i, &reading, options);
        }
        let Some((counted, facts)) = counted(batch, &reading, options, &mut summary) else {
            continue;
        };
        let group = match &options.group_by {
            Some(by) => by.group_of(batch, game, &reading),
            None => String::new(),
        };
        match counted {
            Counted::Position(position) => {
                match &mut ungrouped {
                    Some(rows) => rows.add(position, &facts),
                    None => table.add(&group, position, &facts),
                }
                summary.counted += 1;
            }
            Counted::Pair(white, black) => {
                pairs.push(&group, white, black, facts);
                summary.dfrc_counted += 1;
            }
        }
    }
    if let Some(rows) = ungrouped.and_then(RowsBuilder::finish) {
        table = StatsTable::of_group("", rows);
    }
    (table, summary, pairs)
}

/// Counts every game of one opened input into `table` and `summary`,
/// adding to what they hold, so that several inputs (or shards) add up;
/// `batch_done` is called on the calling thread after each batch is
/// counted, for progress or a reason to stop (an error of its own). The
/// counts of the batches before an error are kept.
///
/// # Errors
///
/// As [`pipeline::run_reader`]: the first error of `batch_done`, a panic
/// of the work, or the input's read error.
///
/// # Example
///
/// ```
/// use pgn960::input::open_stream;
/// use pgn960::pipeline::PipelineConfig;
/// use pgn960::stats::{StatsOptions, StatsSummary, StatsTable, count_input};
///
/// let pgn = b"[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n";
/// let (mut table, mut summary) = (StatsTable::default(), StatsSummary::default());
/// let opened = open_stream(Box::new(&pgn[..]))?;
/// count_input(opened.reader, PipelineConfig::default(), &StatsOptions::default(),
///     &mut table, &mut summary, |_batch| Ok::<_, std::io::Error>(()))
///     .expect("reading from memory cannot fail");
/// assert_eq!(table.get("", 0).map(|stats| stats.white_wins), Some(1));
/// assert_eq!(summary.counted, 1);
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn count_input<E>(
    reader: Reader,
    config: PipelineConfig,
    options: &StatsOptions,
    table: &mut StatsTable,
    summary: &mut StatsSummary,
    mut batch_done: impl FnMut(&Batch) -> Result<(), E>,
) -> Result<(), PipelineError<E>> {
    pipeline::run_reader(
        reader,
        config,
        |batch| stats_batch(batch, options),
        |batch, (batch_table, batch_summary, _pairs)| {
            table.merge(&batch_table);
            summary.merge(&batch_summary);
            batch_done(batch)
        },
    )
}

/// The games of a batch counted one by one, for a count by group: each
/// game's group, position and facts, some 24 bytes and its group's name
/// (a table per batch would hold a map of rows for each group, 1.6 KB
/// for a group of one game: many times the batch).
#[derive(Clone, Debug, Default)]
pub struct BatchGames {
    /// The groups' names, one after another.
    names: String,
    /// Where each game's group name ends in `names`, its Scharnagl
    /// number and its facts.
    games: Vec<(u32, u16, GameFacts)>,
}

impl BatchGames {
    /// Each game: its group, Scharnagl number and facts, in batch order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u16, &GameFacts)> {
        let mut start = 0;
        self.games.iter().map(move |(end, id, facts)| {
            let name = &self.names[start..*end as usize];
            start = *end as usize;
            (name, *id, facts)
        })
    }
}

impl pipeline::Footprint for BatchGames {
    fn heap_bytes(&self) -> usize {
        self.names.capacity() + self.games.capacity() * std::mem::size_of::<(u32, u16, GameFacts)>()
    }
}

/// [`stats_batch`] game by game: what a count by group adds up.
pub fn stats_batch_games(
    batch: &Batch,
    options: &StatsOptions,
) -> (BatchGames, StatsSummary, DfrcGames) {
    stats_batch_games_noting(batch, options, None)
}

/// [`stats_batch_games`], noting the candidates' fingerprints in
/// `candidates`.
fn stats_batch_games_noting(
    batch: &Batch,
    options: &StatsOptions,
    mut candidates: Option<&mut Candidates>,
) -> (BatchGames, StatsSummary, DfrcGames) {
    let mut games = BatchGames::default();
    let mut summary = StatsSummary::default();
    let mut pairs = DfrcGames::default();
    for (i, game) in batch.games.iter().enumerate() {
        let reading = Reading::of(batch, game);
        summary.kinds.add(reading.kind);
        if let Some(candidates) = candidates.as_deref_mut() {
            candidates.note(batch, i, &reading, options);
        }
        let Some((counted, facts)) = counted(batch, &reading, options, &mut summary) else {
            continue;
        };
        let group = options
            .group_by
            .as_ref()
            .map(|by| by.group_of(batch, game, &reading));
        match counted {
            Counted::Position(position) => {
                if let Some(group) = group {
                    games.names.push_str(&group);
                }
                let end = u32::try_from(games.names.len()).expect("a batch holds less than 4 GiB");
                games.games.push((end, position.scharnagl(), facts));
                summary.counted += 1;
            }
            Counted::Pair(white, black) => {
                pairs.push(group.as_deref().unwrap_or(""), white, black, facts);
                summary.dfrc_counted += 1;
            }
        }
    }
    (games, summary, pairs)
}

/// [`count_input`] into a [`BoundedTable`], which writes its groups to
/// disk beyond its budget: an error writing them ends the count as an
/// error of `batch_done` would. With `--group-by`, the batches' games are
/// counted one by one ([`stats_batch_games`]), else in a table per batch.
/// The Double FRC games (with [`StatsOptions::dfrc`]) go to `dfrc`, also
/// bounded (without it, they are not counted).
///
/// With `copies`, a game that repeats one seen before (in this input or
/// an earlier one: the same [`Fingerprint`]) is not counted but noted in
/// [`StatsSummary::duplicates`], whatever its result; the others go on as
/// without. Which game is a copy is told in input order, on the calling
/// thread, so the first occurrence is the one counted whatever the
/// thread count. A batch without copies is added as it was counted by
/// its worker; one with copies, game by game ([`Candidates`]). Games
/// kept for the merge at the end (once the fingerprints went to disk)
/// are counted by [`Copies::finish`].
///
/// # Errors
///
/// As [`count_input`].
pub fn count_input_bounded<E: From<io::Error>>(
    reader: Reader,
    config: PipelineConfig,
    options: &StatsOptions,
    (table, mut dfrc): (&mut BoundedTable, Option<&mut DfrcTables>),
    summary: &mut StatsSummary,
    copies: Option<&mut Copies>,
    mut batch_done: impl FnMut(&Batch) -> Result<(), E>,
) -> Result<(), PipelineError<E>> {
    let spill_error = |err: io::Error| {
        E::from(io::Error::new(
            err.kind(),
            format!("writing groups to a temporary file: {err}"),
        ))
    };
    if let Some(copies) = copies {
        let eager = copies.eager();
        return pipeline::run_reader(
            reader,
            config,
            |batch| {
                let mut candidates = Candidates {
                    eager: eager.load(Ordering::Relaxed) || batch.data.map().is_none(),
                    ..Candidates::default()
                };
                let counts = if options.group_by.is_none() {
                    let (table, summary, pairs) =
                        stats_batch_noting(batch, options, Some(&mut candidates));
                    (Tallied::Table(table), summary, pairs)
                } else {
                    let (games, summary, pairs) =
                        stats_batch_games_noting(batch, options, Some(&mut candidates));
                    (Tallied::Games(games), summary, pairs)
                };
                (counts, candidates)
            },
            |batch, ((tallied, batch_summary, pairs), candidates)| {
                let mut tally = Tally {
                    options,
                    table: &mut *table,
                    dfrc: dfrc.as_deref_mut(),
                    summary: &mut *summary,
                };
                let offered = candidates
                    .games
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| {
                        if let Some(&ahead) = candidates.heads.get(k + PREFETCH_AHEAD) {
                            copies.prefetch(ahead);
                        }
                        let game = &batch.games[i as usize];
                        let (head, made, movetext) = candidates.get(k);
                        copies.offer(batch, (game, movetext), head, made)
                    })
                    .collect::<io::Result<Vec<Offered>>>()
                    .map_err(spill_error)?;
                if offered.iter().all(|o| *o == Offered::Count) {
                    match &tallied {
                        Tallied::Table(part) => tally.table.merge(part),
                        Tallied::Games(games) => tally.table.add_games(games),
                    }
                    .map_err(spill_error)?;
                    if let Some(dfrc) = tally.dfrc {
                        dfrc.add_games(&pairs).map_err(spill_error)?;
                    }
                    summary.merge(&batch_summary);
                } else {
                    tally.summary.kinds.merge(&batch_summary.kinds);
                    candidates
                        .tally(batch, &offered, &mut tally, copies)
                        .map_err(spill_error)?;
                }
                batch_done(batch)
            },
        );
    }
    if options.group_by.is_none() {
        return pipeline::run_reader(
            reader,
            config,
            |batch| stats_batch(batch, options),
            |batch, (batch_table, batch_summary, pairs)| {
                table.merge(&batch_table).map_err(spill_error)?;
                if let Some(dfrc) = dfrc.as_deref_mut() {
                    dfrc.add_games(&pairs).map_err(spill_error)?;
                }
                summary.merge(&batch_summary);
                batch_done(batch)
            },
        );
    }
    pipeline::run_reader(
        reader,
        config,
        |batch| stats_batch_games(batch, options),
        |batch, (games, batch_summary, pairs)| {
            table.add_games(&games).map_err(spill_error)?;
            if let Some(dfrc) = dfrc.as_deref_mut() {
                dfrc.add_games(&pairs).map_err(spill_error)?;
            }
            summary.merge(&batch_summary);
            batch_done(batch)
        },
    )
}

/// How many games ahead the counting thread asks for the line of the
/// heads' table a game's look-up will read: enough to hide a miss to
/// memory behind the look-ups of the games between.
const PREFETCH_AHEAD: usize = 8;

/// A batch's counts as its worker made them: a table, or (with
/// `--group-by`) the games one by one.
#[derive(Debug)]
enum Tallied {
    Table(StatsTable),
    Games(BatchGames),
}

impl pipeline::Footprint for Tallied {
    fn heap_bytes(&self) -> usize {
        match self {
            Tallied::Table(table) => table.heap_bytes(),
            Tallied::Games(games) => games.heap_bytes(),
        }
    }
}

/// The fingerprints of the games of a batch that would be counted (by
/// position, or with [`StatsOptions::dfrc`] by pair of arrays), whatever
/// their result and ratings, in batch order, and the indices of those
/// games in the batch: which are copies is told in input order by the
/// thread that consumes the batches ([`count_input_bounded`]).
#[derive(Clone, Debug, Default)]
pub struct Candidates {
    /// Each game's head ([`Fingerprint::head`]), 0 for none (a head of
    /// 0 is taken for 1: 16 bytes a game, as a batch of tiny games holds
    /// many).
    heads: Vec<u128>,
    /// Each game's fingerprint, 0 for none, when `eager` (else empty).
    made: Vec<u128>,
    /// Where each game's movetext starts in the batch, with whether it
    /// starts a line in the top bit ([`Batch::movetext_start`]).
    movetext: Vec<u32>,
    games: Vec<u32>,
    /// Whether to make every game's fingerprint ([`Copies::eager`], or a
    /// batch that is not mapped): else only the heads.
    eager: bool,
    /// The buffer of [`Fingerprint::of`].
    scratch: Vec<u8>,
}

impl pipeline::Footprint for Candidates {
    fn heap_bytes(&self) -> usize {
        self.made.capacity() * std::mem::size_of::<u128>()
            + self.heads.capacity() * std::mem::size_of::<u128>()
            + self.movetext.capacity() * std::mem::size_of::<u32>()
            + self.games.capacity() * std::mem::size_of::<u32>()
            + self.scratch.capacity()
    }
}

/// A game to count but for its copies, as [`Copies`] keeps it for the
/// merge at the end when the fingerprints went to disk: where it goes,
/// its group, facts, and why its result was not played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// The Scharnagl number of its position, or of White's array.
    pub(crate) white: u16,
    /// Black's array's Scharnagl number for a Double FRC game counted by
    /// pair.
    pub(crate) black: Option<u16>,
    pub(crate) group: String,
    pub(crate) facts: GameFacts,
    pub(crate) unplayed: Option<Unplayed>,
}

impl Candidates {
    /// Notes the fingerprint of game `i` of `batch`, read as `reading`,
    /// if `options` would count it.
    fn note(&mut self, batch: &Batch, i: usize, reading: &Reading, options: &StatsOptions) {
        if target(reading, options).is_none() {
            return;
        }
        if self.games.capacity() == 0 {
            // Room for every game of the batch at once, and no more.
            let games = batch.games.len();
            self.games.reserve_exact(games);
            self.heads.reserve_exact(games);
            self.movetext.reserve_exact(games);
            if self.eager {
                self.made.reserve_exact(games);
            }
        }
        let game = &batch.games[i];
        let head = Fingerprint::head(batch, game, reading, &mut self.scratch);
        self.heads.push(head.map_or(0, |head| head.max(1)));
        let (start, starts_line) = batch.movetext_start(game);
        let start32 = u32::try_from(start).expect("a batch holds less than 2 GiB");
        assert!(start32 >> 31 == 0, "a batch holds less than 2 GiB");
        self.movetext.push(start32 | u32::from(starts_line) << 31);
        if self.eager {
            self.made.push(match head {
                Some(head) => {
                    let text = &batch.data[start..game.range.end];
                    let moves = Fingerprint::moves(text, starts_line, &mut self.scratch);
                    Fingerprint::join(head.max(1), moves).0.max(1)
                }
                None => 0,
            });
        }
        self.games
            .push(u32::try_from(i).expect("a batch holds less than 4 GiB"));
    }

    /// Candidate `k`'s head, fingerprint when made, and where its
    /// movetext starts and whether it starts a line.
    fn get(&self, k: usize) -> (Option<u128>, Option<Fingerprint>, (usize, bool)) {
        let head = Some(self.heads[k]).filter(|head| *head != 0);
        let made = self
            .made
            .get(k)
            .copied()
            .filter(|made| *made != 0)
            .map(Fingerprint);
        let movetext = self.movetext[k];
        (
            head,
            made,
            ((movetext & !(1 << 31)) as usize, movetext >> 31 == 1),
        )
    }

    /// Counts the candidates of a batch game by game, as `offered` says
    /// of each: one to count is counted (or left out as unplayed or below
    /// `--min-elo`), a copy is noted, one kept for later goes to `copies`.
    fn tally(
        &self,
        batch: &Batch,
        offered: &[Offered],
        tally: &mut Tally<'_>,
        copies: &mut Copies,
    ) -> io::Result<()> {
        for (&i, offered) in self.games.iter().zip(offered) {
            if *offered == Offered::Copy {
                tally.summary.duplicates += 1;
                continue;
            }
            let game = &batch.games[i as usize];
            let reading = Reading::of(batch, game);
            let Some(counted) = target(&reading, tally.options) else {
                continue;
            };
            let (white, black) = match counted {
                Counted::Position(position) => (position.scharnagl(), None),
                Counted::Pair(white, black) => (white.scharnagl(), Some(black.scharnagl())),
            };
            let candidate = Candidate {
                white,
                black,
                group: match &tally.options.group_by {
                    Some(by) => by.group_of(batch, game, &reading),
                    None => String::new(),
                },
                facts: GameFacts::of(batch, &reading),
                unplayed: reading.unplayed(batch),
            };
            match offered {
                Offered::Count => tally.add(&candidate)?,
                Offered::Later(fingerprint) => copies.keep(*fingerprint, candidate)?,
                Offered::Copy => unreachable!("noted above"),
            }
        }
        Ok(())
    }
}

/// Where a game that is no copy is counted.
pub(crate) struct Tally<'a> {
    pub(crate) options: &'a StatsOptions,
    pub(crate) table: &'a mut BoundedTable,
    pub(crate) dfrc: Option<&'a mut DfrcTables>,
    pub(crate) summary: &'a mut StatsSummary,
}

impl Tally<'_> {
    /// Counts a game that is no copy: left out as unplayed (but with
    /// `--keep-unplayed`) or below `--min-elo`, else under its position
    /// or pair of arrays.
    pub(crate) fn add(&mut self, game: &Candidate) -> io::Result<()> {
        if let Some(reason) = game.unplayed {
            self.summary.unplayed.add(reason);
            if !self.options.keep_unplayed {
                return Ok(());
            }
        }
        if below_min_elo(&game.facts, self.options) {
            self.summary.below_min_elo += 1;
            return Ok(());
        }
        match game.black {
            None => {
                self.summary.counted += 1;
                self.table.add_game(&game.group, game.white, &game.facts)
            }
            Some(black) => {
                self.summary.dfrc_counted += 1;
                match self.dfrc.as_deref_mut() {
                    Some(dfrc) => dfrc.add_game(&game.group, game.white, black, &game.facts),
                    None => Ok(()),
                }
            }
        }
    }
}

/// Counts the games [`Copies`] kept for the merge at the end (once the
/// fingerprints went to disk) that are no copies, into `table` and
/// `dfrc`, and notes in `summary` what became of each: what
/// [`count_input_bounded`] leaves for the end of the run's last input.
///
/// # Errors
///
/// An error writing, reading or merging runs.
pub fn finish_copies(
    copies: Copies,
    options: &StatsOptions,
    (table, dfrc): (&mut BoundedTable, Option<&mut DfrcTables>),
    summary: &mut StatsSummary,
) -> io::Result<()> {
    copies.finish(&mut Tally {
        options,
        table,
        dfrc,
        summary,
    })
}
