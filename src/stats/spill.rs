//! Groups counted under a memory budget: beyond it, the table of counts
//! goes to disk as a sorted run, and the runs are merged group by group at
//! the end, as databases aggregate. The sums are integers, so a merge of
//! runs is the table one pass in memory would have counted, byte for byte.
//!
//! A run is a file of a temporary directory (removed when the groups are
//! dropped, on success or error): its groups in order, each its name and
//! rows, every number a LEB128 varint (signed ones zigzagged), some 30 to
//! 60 bytes a row.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::pipeline::btree_bytes;

use super::BatchGames;
use super::facts::GameFacts;
use super::table::{PositionStats, Rows, StatsTable};

/// The memory the counts of `stats` may hold before they go to disk, by
/// the estimate of [`BoundedTable`]: 4 MiB, some 2,400 groups of one
/// position, or a few groups of all 960 (a group's map of rows holds
/// 1.6 KB for its first position, 330 bytes for each further one at
/// most, and its rating bins 64 bytes each).
pub const GROUP_MEMORY: usize = 4 << 20;

/// Runs merged at once: each holds a read buffer and the group at its head.
pub(super) const FAN_IN: usize = 16;

/// The read and write buffer of a run.
pub(super) const RUN_BUFFER: usize = 64 << 10;

/// A table of counts that keeps its groups in memory up to a budget and
/// writes them to disk beyond it; [`BoundedTable::finish`] gives the
/// groups in order, merged.
///
/// ```
/// use pgn960::stats::{BoundedTable, StatsTable};
///
/// let part = StatsTable::default();
/// let mut table = BoundedTable::new(1 << 20);
/// table.merge(&part)?;
/// let groups = table.finish()?;
/// let mut names = Vec::new();
/// groups.for_each(|group, _rows| {
///     names.push(group.to_string());
///     Ok::<_, std::io::Error>(())
/// })?;
/// assert!(names.is_empty());
/// # Ok::<_, std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct BoundedTable {
    table: StatsTable,
    held: usize,
    budget: usize,
    runs: Runs,
}

/// The runs written so far, and their directory: one made at the first
/// run and removed with the runs, or the caller's. The runs of groups
/// here, and those of the copies of games (`copies`).
#[derive(Debug, Default)]
pub(super) struct Runs {
    directory: Option<TempDir>,
    given: Option<PathBuf>,
    files: Vec<PathBuf>,
    made: u64,
    /// What the runs' names begin with, told apart from other runs' in
    /// the same directory.
    label: &'static str,
}

impl Runs {
    /// Runs written in `directory` (a temporary directory of the caller's,
    /// which removes it), or in one of their own.
    pub(super) fn in_directory(directory: Option<&Path>, label: &'static str) -> Runs {
        Runs {
            directory: None,
            given: directory.map(Path::to_path_buf),
            files: Vec::new(),
            made: 0,
            label,
        }
    }

    /// The runs' files, in the order they were written.
    pub(super) fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Adds a run written to a file of [`Runs::create`].
    pub(super) fn add(&mut self, path: PathBuf) {
        self.files.push(path);
    }

    /// The directory of the runs, made when it is not given.
    fn directory(&mut self) -> io::Result<&Path> {
        if let Some(given) = &self.given {
            return Ok(given);
        }
        if self.directory.is_none() {
            self.directory = Some(
                tempfile::Builder::new()
                    .prefix("pgn960-groups-")
                    .tempdir()?,
            );
        }
        Ok(self.directory.as_ref().expect("made above").path())
    }

    /// Creates the next run's file.
    pub(super) fn create(&mut self) -> io::Result<(PathBuf, BufWriter<File>)> {
        let name = format!("{}run-{}", self.label, self.made);
        self.made += 1;
        let path = self.directory()?.join(name);
        let file = File::create(&path)?;
        Ok((path, BufWriter::with_capacity(RUN_BUFFER, file)))
    }

    /// Writes `groups`, in order, as a new run.
    fn write<'a>(&mut self, groups: impl Iterator<Item = (&'a str, &'a Rows)>) -> io::Result<()> {
        let (path, mut out) = self.create()?;
        for (group, rows) in groups {
            write_group(&mut out, group, rows)?;
        }
        out.into_inner().map_err(io::IntoInnerError::into_error)?;
        self.files.push(path);
        Ok(())
    }

    /// Merges runs until at most [`FAN_IN`] are left.
    fn reduce(&mut self) -> io::Result<()> {
        self.reduce_by(|merged, out| {
            Merge::open(merged)?.for_each(|group, rows| write_group(out, group, &rows))
        })
    }

    /// Merges runs, [`FAN_IN`] at a time with `merge`, until at most
    /// [`FAN_IN`] are left.
    pub(super) fn reduce_by(
        &mut self,
        mut merge: impl FnMut(&[PathBuf], &mut BufWriter<File>) -> io::Result<()>,
    ) -> io::Result<()> {
        while self.files.len() > FAN_IN {
            let merged: Vec<PathBuf> = self.files.drain(..FAN_IN).collect();
            let (path, mut out) = self.create()?;
            merge(&merged, &mut out)?;
            out.into_inner().map_err(io::IntoInnerError::into_error)?;
            for file in merged {
                std::fs::remove_file(file)?;
            }
            self.files.push(path);
        }
        Ok(())
    }
}

impl Drop for Runs {
    /// Removes the runs from the caller's directory (a directory of its
    /// own goes whole).
    fn drop(&mut self) {
        if self.given.is_some() {
            for file in &self.files {
                let _ = std::fs::remove_file(file);
            }
        }
    }
}

impl BoundedTable {
    /// An empty table that holds about `budget` bytes of counts at most.
    pub fn new(budget: usize) -> BoundedTable {
        BoundedTable {
            table: StatsTable::default(),
            held: 0,
            budget,
            runs: Runs::default(),
        }
    }

    /// [`BoundedTable::new`], writing its runs in `directory` (a temporary
    /// directory of the caller's, which removes it) rather than in one of
    /// its own.
    pub fn in_directory(budget: usize, directory: &Path) -> BoundedTable {
        let mut table = BoundedTable::new(budget);
        table.runs.given = Some(directory.to_path_buf());
        table
    }

    /// Adds every row of `part`, and writes the table to disk as a run
    /// when it holds more than the budget.
    ///
    /// # Errors
    ///
    /// An error writing the run.
    pub fn merge(&mut self, part: &StatsTable) -> io::Result<()> {
        for (group, rows) in part.groups() {
            // What the group takes grows by its new rows and bins alone:
            // counted as they come, not by going over the whole group.
            let new_group = self.table.rows_in(group).is_none();
            let mine = self.table.rows_of(group);
            let rows_before = mine.len();
            let mut bins = 0;
            for (id, stats) in rows {
                let row = mine.entry(*id).or_default();
                let had = row.rating_bins.len();
                row.merge(stats);
                bins += row.rating_bins.len() - had;
            }
            let grown = btree_bytes::<u16, PositionStats>(mine.len()) + bins * BIN_BYTES;
            self.held += if new_group {
                group_entry_bytes(group) + grown
            } else {
                grown - btree_bytes::<u16, PositionStats>(rows_before)
            };
        }
        if self.held > self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Adds every game of a batch, and writes the table to disk as a run
    /// when it holds more than the budget.
    ///
    /// # Errors
    ///
    /// An error writing the run.
    pub fn add_games(&mut self, games: &BatchGames) -> io::Result<()> {
        for (group, id, facts) in games.iter() {
            self.add_to(group, id, |stats| stats.add(facts))?;
        }
        Ok(())
    }

    /// Adds one game under `group` and position `id`, as
    /// [`BoundedTable::add_games`].
    ///
    /// # Errors
    ///
    /// An error writing the run.
    pub fn add_game(&mut self, group: &str, id: u16, facts: &GameFacts) -> io::Result<()> {
        self.add_to(group, id, |stats| stats.add(facts))
    }

    /// Adds the counts of one row under `group` and position `id`, as
    /// [`BoundedTable::merge`] adds a table's.
    ///
    /// # Errors
    ///
    /// An error writing the run.
    pub fn add_row(&mut self, group: &str, id: u16, row: &PositionStats) -> io::Result<()> {
        self.add_to(group, id, |stats| stats.merge(row))
    }

    /// Adds to the row of `group` and `id` with `add`, counting what the
    /// table grows by, and writes the table to disk as a run when it holds
    /// more than the budget.
    fn add_to(
        &mut self,
        group: &str,
        id: u16,
        add: impl FnOnce(&mut PositionStats),
    ) -> io::Result<()> {
        let (rows, new_group) = match self.table.rows_in_mut(group) {
            Some(rows) => (rows, false),
            None => (self.table.rows_of(group), true),
        };
        let len = rows.len();
        let stats = rows.entry(id).or_default();
        let bins = stats.rating_bins.len();
        add(stats);
        let grown = (stats.rating_bins.len() - bins) * BIN_BYTES;
        let rows_grown = btree_bytes::<u16, PositionStats>(rows.len())
            - if new_group {
                0
            } else {
                btree_bytes::<u16, PositionStats>(len)
            };
        let name = if new_group {
            group_entry_bytes(group)
        } else {
            0
        };
        self.held += grown + rows_grown + name;
        if self.held > self.budget {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> io::Result<()> {
        let table = std::mem::take(&mut self.table);
        self.held = 0;
        self.runs.write(table.groups())
    }

    /// The temporary directory of its own runs, once one is written.
    pub fn directory(&self) -> Option<&Path> {
        self.runs.directory.as_ref().map(TempDir::path)
    }

    /// The groups counted: in memory when they stayed within the budget,
    /// else on disk, every group in one run or another.
    ///
    /// # Errors
    ///
    /// An error writing the last run or merging runs.
    pub fn finish(mut self) -> io::Result<Groups> {
        if self.runs.files.is_empty() {
            return Ok(Groups {
                table: self.table,
                runs: self.runs,
            });
        }
        if !self.table.is_empty() {
            self.spill()?;
        }
        self.runs.reduce()?;
        Ok(Groups {
            table: StatsTable::default(),
            runs: self.runs,
        })
    }
}

/// The groups of a [`BoundedTable`], in order, each with all its rows,
/// read as many times as asked; their runs are removed when dropped.
#[derive(Debug)]
pub struct Groups {
    table: StatsTable,
    runs: Runs,
}

impl From<StatsTable> for Groups {
    /// The groups of a table held in memory.
    fn from(table: StatsTable) -> Groups {
        Groups {
            table,
            runs: Runs::default(),
        }
    }
}

impl Groups {
    /// Hands every group, sorted, with its rows to `each`.
    ///
    /// # Errors
    ///
    /// The first error of `each`, or one reading the runs.
    pub fn for_each<E: From<io::Error>>(
        &self,
        mut each: impl FnMut(&str, &Rows) -> Result<(), E>,
    ) -> Result<(), E> {
        if self.runs.files.is_empty() {
            for (group, rows) in self.table.groups() {
                each(group, rows)?;
            }
            return Ok(());
        }
        Merge::open(&self.runs.files)?.for_each(|group, rows| each(group, &rows))
    }

    /// Every group read into one table in memory: for groups known to be
    /// few and small (the tables by one side's array of Double FRC games
    /// hold 960 rows a group at most).
    ///
    /// # Errors
    ///
    /// An error reading the runs.
    pub fn to_table(&self) -> io::Result<StatsTable> {
        let mut table = StatsTable::default();
        self.for_each(|group, rows| {
            table.rows_of(group).clone_from(rows);
            Ok::<_, io::Error>(())
        })?;
        Ok(table)
    }

    /// Whether the groups went to disk.
    pub fn spilled(&self) -> bool {
        !self.runs.files.is_empty()
    }
}

/// About the bytes a group holds in a table: its name and its share of
/// the map of groups, its map of rows (as [`btree_bytes`] bounds it), and
/// their rating bins (their capacity at most twice what they hold).
pub(super) fn group_bytes(group: &str, rows: &Rows) -> usize {
    let bins: usize = rows.values().map(|s| s.rating_bins.len()).sum();
    group_entry_bytes(group) + btree_bytes::<u16, PositionStats>(rows.len()) + bins * BIN_BYTES
}

/// A group's name and its share of the map of groups.
fn group_entry_bytes(group: &str) -> usize {
    group.len() + 2 * std::mem::size_of::<(String, Rows)>()
}

/// A rating bin, counted at twice its size for the capacity of its vector.
const BIN_BYTES: usize = 2 * std::mem::size_of::<(i16, [u64; 3])>();

/// The runs' groups merged: the least group of all runs' heads first, with
/// the rows of every run that has it added up.
struct Merge {
    inputs: Vec<BufReader<File>>,
    heads: Vec<Option<Rows>>,
    next: BinaryHeap<Reverse<(String, usize)>>,
}

impl Merge {
    fn open(files: &[PathBuf]) -> io::Result<Merge> {
        let mut merge = Merge {
            inputs: Vec::with_capacity(files.len()),
            heads: Vec::with_capacity(files.len()),
            next: BinaryHeap::with_capacity(files.len()),
        };
        for (run, path) in files.iter().enumerate() {
            merge
                .inputs
                .push(BufReader::with_capacity(RUN_BUFFER, File::open(path)?));
            merge.heads.push(None);
            merge.advance(run)?;
        }
        Ok(merge)
    }

    /// Reads the next group of `run` into its head.
    fn advance(&mut self, run: usize) -> io::Result<()> {
        if let Some((group, rows)) = read_group(&mut self.inputs[run])? {
            self.heads[run] = Some(rows);
            self.next.push(Reverse((group, run)));
        }
        Ok(())
    }

    fn for_each<E: From<io::Error>>(
        mut self,
        mut each: impl FnMut(&str, Rows) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some(Reverse((group, run))) = self.next.pop() {
            let mut rows = self.heads[run].take().expect("a head for each entry");
            self.advance(run)?;
            while self.next.peek().is_some_and(|top| top.0.0 == group) {
                let Reverse((_, other)) = self.next.pop().expect("peeked");
                let more = self.heads[other].take().expect("a head for each entry");
                for (id, stats) in more {
                    rows.entry(id).or_default().merge(&stats);
                }
                self.advance(other)?;
            }
            each(&group, rows)?;
        }
        Ok(())
    }
}

pub(super) fn write_varint(out: &mut impl Write, mut value: u64) -> io::Result<()> {
    let mut bytes = [0u8; 10];
    let mut len = 0;
    loop {
        let low = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            bytes[len] = low;
            len += 1;
            break;
        }
        bytes[len] = low | 0x80;
        len += 1;
    }
    out.write_all(&bytes[..len])
}

pub(super) fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

pub(super) fn unzigzag(value: u64) -> i64 {
    (value >> 1) as i64 ^ -((value & 1) as i64)
}

fn write_group(out: &mut impl Write, group: &str, rows: &Rows) -> io::Result<()> {
    write_varint(out, group.len() as u64)?;
    out.write_all(group.as_bytes())?;
    write_varint(out, rows.len() as u64)?;
    for (id, s) in rows {
        write_varint(out, u64::from(*id))?;
        for value in [
            s.games,
            s.white_wins,
            s.draws,
            s.black_wins,
            s.unfinished,
            s.white_elo_count,
            zigzag(s.white_elo_sum),
            s.black_elo_count,
            zigzag(s.black_elo_sum),
            s.both_rated,
            s.expected_white_e9,
            s.elo_games,
            s.elo_points_x2,
            s.elo_expected_e9,
            s.elo_variance_e9,
        ] {
            write_varint(out, value)?;
        }
        write_varint(out, s.rating_bins.len() as u64)?;
        for (bin, counts) in s.rating_bins.iter() {
            write_varint(out, zigzag(i64::from(bin)))?;
            for count in counts {
                write_varint(out, count)?;
            }
        }
    }
    Ok(())
}

pub(super) fn corrupt() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "a temporary file of groups changed under the run",
    )
}

/// The next varint, or none at the end of the input.
pub(super) fn read_varint_or_end(input: &mut impl BufRead) -> io::Result<Option<u64>> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = match input.fill_buf()?.first() {
            Some(&byte) => byte,
            None if shift == 0 => return Ok(None),
            None => return Err(corrupt()),
        };
        input.consume(1);
        if shift > 63 {
            return Err(corrupt());
        }
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(Some(value));
        }
        shift += 7;
    }
}

pub(super) fn read_varint(input: &mut impl BufRead) -> io::Result<u64> {
    read_varint_or_end(input)?.ok_or_else(corrupt)
}

/// The next group of a run, or none at its end.
fn read_group(input: &mut impl BufRead) -> io::Result<Option<(String, Rows)>> {
    let Some(len) = read_varint_or_end(input)? else {
        return Ok(None);
    };
    let mut name = vec![0; usize::try_from(len).map_err(|_| corrupt())?];
    input.read_exact(&mut name)?;
    let group = String::from_utf8(name).map_err(|_| corrupt())?;
    let count = read_varint(input)?;
    let mut rows = Rows::new();
    for _ in 0..count {
        let id = u16::try_from(read_varint(input)?).map_err(|_| corrupt())?;
        let mut values = [0u64; 15];
        for value in &mut values {
            *value = read_varint(input)?;
        }
        let [
            games,
            white_wins,
            draws,
            black_wins,
            unfinished,
            white_elo_count,
            white_elo_sum,
            black_elo_count,
            black_elo_sum,
            both_rated,
            expected_white_e9,
            elo_games,
            elo_points_x2,
            elo_expected_e9,
            elo_variance_e9,
        ] = values;
        let mut stats = PositionStats {
            games,
            white_wins,
            draws,
            black_wins,
            unfinished,
            white_elo_count,
            white_elo_sum: unzigzag(white_elo_sum),
            black_elo_count,
            black_elo_sum: unzigzag(black_elo_sum),
            both_rated,
            expected_white_e9,
            elo_games,
            elo_points_x2,
            elo_expected_e9,
            elo_variance_e9,
            rating_bins: Default::default(),
        };
        for _ in 0..read_varint(input)? {
            let bin = i16::try_from(unzigzag(read_varint(input)?)).map_err(|_| corrupt())?;
            let counts = [
                read_varint(input)?,
                read_varint(input)?,
                read_varint(input)?,
            ];
            stats.rating_bins.push_above(bin, counts);
        }
        rows.insert(id, stats);
    }
    Ok(Some((group, rows)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BackRank;
    use crate::stats::{GameFacts, GameResult};

    /// A table of `groups` groups over a few positions, with ratings and
    /// every result, counted in an order that differs from the groups'.
    fn parts(groups: u32, chunks: u32) -> Vec<StatsTable> {
        let mut parts = Vec::new();
        for chunk in 0..chunks {
            let mut part = StatsTable::default();
            for i in 0..groups {
                let g = (i * 7919 + chunk * 13) % groups;
                let game = GameFacts {
                    result: [
                        Some(GameResult::WhiteWins),
                        Some(GameResult::Draw),
                        Some(GameResult::BlackWins),
                        None,
                    ][((i + chunk) % 4) as usize],
                    white_elo: Some(1500 + (i % 900) as i32),
                    black_elo: (i % 5 != 0).then_some(2400 - (i % 700) as i32),
                };
                let position = BackRank::from_scharnagl((i + chunk) % 960).expect("an id");
                part.add(&format!("group {g}"), position, &game);
            }
            parts.push(part);
        }
        parts
    }

    #[test]
    fn groups_spilled_to_disk_merge_into_the_table_in_memory() {
        let parts = parts(3000, 40);
        let mut whole = StatsTable::default();
        let mut bounded = BoundedTable::new(64 << 10);
        for part in &parts {
            whole.merge(part);
            bounded.merge(part).expect("writable");
        }
        let directory = bounded.directory().expect("spilled").to_path_buf();
        let groups = bounded.finish().expect("merged");
        assert!(groups.spilled());
        // More runs than merge at once were reduced.
        assert!(
            groups.runs.made > FAN_IN as u64,
            "{} runs",
            groups.runs.made
        );
        for _ in 0..2 {
            let mut read = StatsTable::default();
            let mut order = Vec::new();
            groups
                .for_each(|group, rows| {
                    order.push(group.to_string());
                    for (id, stats) in rows {
                        read.rows_of(group).insert(*id, stats.clone());
                    }
                    Ok::<_, io::Error>(())
                })
                .expect("readable");
            assert_eq!(read, whole);
            assert!(
                order.windows(2).all(|w| w[0] < w[1]),
                "groups in order, once"
            );
        }
        drop(groups);
        assert!(!directory.exists(), "the runs are removed");
    }

    #[test]
    fn groups_within_the_budget_stay_in_memory() {
        let mut bounded = BoundedTable::new(64 << 20);
        for part in parts(100, 4) {
            bounded.merge(&part).expect("in memory");
        }
        assert!(bounded.directory().is_none());
        assert!(!bounded.finish().expect("in memory").spilled());
    }

    /// The bytes a table counts as it merges parts (new groups, new rows,
    /// new bins, and rows it has) are what its groups take, counted
    /// whole.
    #[test]
    fn merged_parts_are_counted_as_the_whole_table() {
        let mut bounded = BoundedTable::new(64 << 20);
        // Twice over: the second time every row and most bins are there.
        for part in parts(300, 12).iter().chain(&parts(300, 12)) {
            bounded.merge(part).expect("in memory");
            assert_eq!(bounded.held, bytes_of_every_group(&bounded));
        }
        let mut games = BoundedTable::new(64 << 20);
        for part in parts(300, 12) {
            for (group, id, stats) in part.rows() {
                let facts = GameFacts {
                    result: Some(GameResult::Draw),
                    white_elo: Some(2000 + i32::from(id)),
                    black_elo: Some(2000 + stats.games as i32),
                };
                games.add_game(group, id, &facts).expect("in memory");
            }
        }
        assert_eq!(games.held, bytes_of_every_group(&games));
    }

    /// What the groups of `table` take, each counted whole.
    fn bytes_of_every_group(table: &BoundedTable) -> usize {
        table
            .table
            .groups()
            .map(|(group, rows)| group_bytes(group, rows))
            .sum()
    }

    #[test]
    fn varints_read_back() {
        let mut bytes = Vec::new();
        let values = [0, 1, 127, 128, 300, u64::MAX, zigzag(-1), zigzag(i64::MIN)];
        for v in values {
            write_varint(&mut bytes, v).expect("in memory");
        }
        let mut input = &bytes[..];
        for v in values {
            assert_eq!(read_varint(&mut input).expect("read"), v);
        }
        assert_eq!(read_varint_or_end(&mut input).expect("the end"), None);
        assert_eq!(unzigzag(zigzag(-12345)), -12345);
        assert_eq!(unzigzag(zigzag(i64::MIN)), i64::MIN);
    }
}
