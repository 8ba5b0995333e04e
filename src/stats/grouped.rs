//! The tests across positions over groups read one at a time (from
//! memory or from the runs of a [`BoundedTable`](super::BoundedTable)),
//! with the same numbers as [`TableAnalysis`] over the whole table.
//!
//! Two things need every group: the q-values, over all groups' tests
//! together, and the tests pooled over groups. A first pass analyses each
//! group and keeps only the p-value of each tested position (8 bytes
//! each; 4 bytes more while the q-values are computed) and the pooled
//! sums ([`REPLICATES`](super::REPLICATES) numbers and, before the first
//! group referred to Monte Carlo, 16 bytes per run of groups with equal
//! degrees of freedom). The second pass writes each group's rows and
//! tests from what the first pass kept of its analysis (its findings by
//! position and its tests: some 200 bytes a position and 300 a group),
//! in memory up to [`ANALYSIS_MEMORY`], in a temporary file beyond.
//!
//! The first pass analyses groups on every thread: it gathers up to
//! [`PARALLEL_GROUPS`] groups (their rows at most [`PARALLEL_BYTES`]),
//! analyses them at once, and takes their analyses in the groups' order.
//! Each group's random streams are seeded from its name, so the numbers do
//! not depend on the threads.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Seek, Write};

use rayon::prelude::*;

use super::analysis::PooledSum;
use super::analysis::{
    Analysis, FALSE_DISCOVERY_RATE, PositionFindings, TableAnalysis, WithinGroups,
    benjamini_hochberg_in_place,
};
use super::csv::{for_each_row_of_group, header, into_io, write_cells};
use super::findings::GroupFindings;
use super::json::{GroupedJson, SummaryNotes, write_tests_json};
use super::spill::{Groups, group_bytes};
use super::table::{Rows, StatsTable};

/// The memory the findings of the first pass may take for the second,
/// by an estimate from above; beyond it, they go to a temporary file.
pub const ANALYSIS_MEMORY: usize = 8 << 20;

/// Groups analysed at once in the first pass.
const PARALLEL_GROUPS: usize = 64;

/// The most bytes of rows (as the groups' budget counts them) gathered
/// for analysis at once, beside the groups' own budget: their copies.
const PARALLEL_BYTES: usize = 1 << 20;

/// What the first pass over the groups found: enough to write every
/// group's rows and tests in a second.
#[derive(Debug)]
pub struct GroupedAnalysis {
    groups: u64,
    rows: u64,
    /// The q-value of every tested position, by group and position.
    q_values: Vec<f64>,
    within: WithinGroups,
    /// Every group's findings, in memory or in a file.
    findings: Kept,
    /// The first group's analysis, q-values set, for the plots when it
    /// is the only one.
    first: Option<Analysis>,
    /// What the plots show: the only group, or all groups merged by
    /// position under the empty group.
    plotted: StatsTable,
}

/// The findings of every group, in order.
#[derive(Debug)]
enum Kept {
    Memory(Vec<GroupFindings>),
    File(File),
}

impl GroupedAnalysis {
    /// Analyses every group of `groups` (the first pass).
    ///
    /// # Errors
    ///
    /// An error reading the groups' runs.
    pub fn of(groups: &Groups) -> io::Result<GroupedAnalysis> {
        GroupedAnalysis::with_memory(groups, ANALYSIS_MEMORY)
    }

    /// [`GroupedAnalysis::of`], keeping findings of at most `memory` bytes
    /// in memory.
    pub fn with_memory(groups: &Groups, memory: usize) -> io::Result<GroupedAnalysis> {
        let mut p_values = Vec::new();
        let mut elo = PooledSum::new("pooled elo");
        let mut wdl = PooledSum::new("pooled wdl");
        let (mut elo_groups, mut wdl_groups) = (0, 0);
        let (mut count, mut rows_count) = (0u64, 0u64);
        let mut kept = Vec::new();
        let mut kept_bytes = 0;
        let mut file: Option<BufWriter<File>> = None;
        let mut first: Option<(StatsTable, Analysis)> = None;
        let mut merged = Rows::new();
        let mut take = |group: &str, rows: &Rows, analysis: Analysis| -> io::Result<()> {
            p_values.extend(analysis.p_values().into_iter().map(|(_, p)| p));
            if let Some(df) = analysis.elo.df {
                elo_groups += 1;
                let test = &analysis.elo;
                elo.add(test.q, df, test.reference, &test.replicates);
            }
            if let Some(test) = analysis.wdl.as_ref().filter(|t| t.reference.is_some()) {
                wdl_groups += 1;
                wdl.add(
                    Some(test.statistic),
                    test.df,
                    test.reference,
                    &test.replicates,
                );
            }
            count += 1;
            rows_count += rows.len() as u64;
            for (id, stats) in rows {
                merged.entry(*id).or_default().merge(stats);
            }
            let findings = GroupFindings::of(&analysis);
            if count == 1 {
                let mut table = StatsTable::default();
                table.rows_of(group).clone_from(rows);
                first = Some((table, analysis));
            }
            if let Some(out) = file.as_mut() {
                return findings.write(out);
            }
            kept_bytes += findings.bytes();
            kept.push(findings);
            if kept_bytes > memory {
                let mut out = BufWriter::new(tempfile::tempfile()?);
                for findings in kept.drain(..) {
                    findings.write(&mut out)?;
                }
                kept = Vec::new();
                file = Some(out);
            }
            Ok(())
        };
        // Groups gathered for analysis on every thread, taken in order.
        let mut gathered: Vec<(String, Rows)> = Vec::new();
        let mut gathered_bytes = 0;
        let mut analyse = |gathered: &mut Vec<(String, Rows)>| -> io::Result<()> {
            let analyses: Vec<Analysis> = gathered
                .par_iter()
                .map(|(group, rows)| Analysis::of(rows, group))
                .collect();
            for ((group, rows), analysis) in gathered.drain(..).zip(analyses) {
                take(&group, &rows, analysis)?;
            }
            Ok(())
        };
        groups.for_each(|group, rows| {
            gathered_bytes += group_bytes(group, rows);
            gathered.push((group.to_string(), rows.clone()));
            if gathered.len() >= PARALLEL_GROUPS || gathered_bytes > PARALLEL_BYTES {
                analyse(&mut gathered)?;
                gathered_bytes = 0;
            }
            Ok::<_, io::Error>(())
        })?;
        analyse(&mut gathered)?;
        let tested_positions = p_values.len() as u64;
        benjamini_hochberg_in_place(&mut p_values);
        let q_values = p_values;
        let findings = match file {
            Some(out) => {
                let mut file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
                file.rewind()?;
                Kept::File(file)
            }
            None => {
                let mut at = 0;
                for findings in &mut kept {
                    at = findings.set_q_values(&q_values, at);
                }
                Kept::Memory(kept)
            }
        };
        let elo_pooled = elo.finish();
        let wdl_pooled = wdl.finish();
        let within = WithinGroups {
            elo_groups,
            elo_q: elo_pooled.map(|p| p.0),
            elo_df: elo_pooled.map(|p| p.1),
            elo_p: elo_pooled.map(|p| p.2),
            elo_reference: elo_pooled.map(|p| p.3.name()),
            wdl_groups,
            wdl_chi2: wdl_pooled.map(|p| p.0),
            wdl_df: wdl_pooled.map(|p| p.1),
            wdl_p: wdl_pooled.map(|p| p.2),
            wdl_reference: wdl_pooled.map(|p| p.3.name()),
            tested_positions,
            significant: q_values
                .iter()
                .filter(|q| **q < FALSE_DISCOVERY_RATE)
                .count() as u64,
        };
        let (plotted, first) = match first {
            Some((only, mut analysis)) if count == 1 => {
                let ids: Vec<u16> = analysis.p_values().into_iter().map(|(id, _)| id).collect();
                analysis.set_q_values(ids.into_iter().zip(q_values.iter().copied()));
                (only, Some(analysis))
            }
            _ => {
                let mut table = StatsTable::default();
                if !merged.is_empty() {
                    *table.rows_of("") = merged;
                }
                (table, None)
            }
        };
        Ok(GroupedAnalysis {
            groups: count,
            rows: rows_count,
            q_values,
            within,
            findings,
            first,
            plotted,
        })
    }

    /// The number of groups.
    pub fn groups(&self) -> u64 {
        self.groups
    }

    /// The number of rows of all groups (positions with games).
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The tests pooled over groups.
    pub fn within(&self) -> &WithinGroups {
        &self.within
    }

    /// What the plots show, as the analysis they take: the table's only
    /// group, or every group merged by position.
    pub fn plotted(&self) -> TableAnalysis<'_> {
        let groups = self
            .plotted
            .groups()
            .map(|(group, rows)| {
                let analysis = match &self.first {
                    Some(first) => first.clone(),
                    None => Analysis::of(rows, group),
                };
                (group, analysis)
            })
            .collect();
        TableAnalysis {
            table: &self.plotted,
            groups,
            within: self.within.clone(),
        }
    }

    /// Writes the CSV of [`write_analysis_csv`](super::write_analysis_csv)
    /// to `csv` and, when given, the JSON of
    /// [`write_analysis_json`](super::write_analysis_json) to `json`, byte
    /// for byte the same, reading `groups` once more (the second pass),
    /// with `notes` as its last keys.
    ///
    /// # Errors
    ///
    /// Any error of the outputs or reading the runs.
    pub fn write<C: Write, J: Write>(
        self,
        groups: &Groups,
        grouped: bool,
        all_positions: bool,
        csv: C,
        json: Option<J>,
        notes: &SummaryNotes,
    ) -> io::Result<()> {
        let mut csv = csv::Writer::from_writer(csv);
        csv.write_record(header(grouped)).map_err(into_io)?;
        let mut text = String::new();
        let mut write_rows =
            |group: &str, rows: Option<&Rows>, findings: Option<&[(u16, PositionFindings)]>| {
                for_each_row_of_group(group, rows, findings, grouped, all_positions, |cells| {
                    write_cells(&mut csv, cells, &mut text)
                })
                .map_err(into_io)
            };
        let (mut grouped_json, plain_json) = match json {
            Some(out) if grouped => (Some(GroupedJson::begin(out)?), None),
            other => (None, other),
        };
        let mut first_tests = None;
        let (mut kept, mut file) = match self.findings {
            Kept::Memory(kept) => (kept.into_iter(), None),
            Kept::File(file) => (Vec::new().into_iter(), Some(BufReader::new(file))),
        };
        let (mut index, mut at) = (0, 0);
        groups.for_each(|group, rows| {
            let findings = match file.as_mut() {
                Some(input) => {
                    let mut findings = GroupFindings::read(input)?;
                    at = findings.set_q_values(&self.q_values, at);
                    findings
                }
                None => kept.next().expect("findings for every group"),
            };
            index += 1;
            write_rows(group, Some(rows), Some(&findings.positions))?;
            if let Some(json) = grouped_json.as_mut() {
                json.group(group, &findings.tests)?;
            } else if plain_json.is_some() && first_tests.is_none() {
                first_tests = Some(findings.tests);
            }
            Ok::<_, io::Error>(())
        })?;
        if index == 0 && all_positions {
            write_rows("", None, None)?;
        }
        csv.flush()?;
        if let Some(json) = grouped_json {
            json.finish(&self.within, notes)?;
        }
        if let Some(out) = plain_json {
            let tests = first_tests.unwrap_or_else(|| Analysis::of(&Rows::new(), "").tests);
            write_tests_json(&tests, notes, out)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BackRank;
    use crate::stats::{
        BoundedTable, GameFacts, GameResult, Reference, write_analysis_csv, write_analysis_json,
    };

    /// Groups of one to sixteen positions, rated games of every result with
    /// White stronger at some positions than others: enough for tests,
    /// q-values and pooled tests of both references.
    fn table() -> StatsTable {
        let mut table = StatsTable::default();
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for g in 0..24u64 {
            let positions = if g == 0 { 16 } else { 1 + g % 16 };
            // The first group large enough for chi-square references.
            let games = if g == 0 { 6000 } else { 5 + (g * 37) % 120 };
            for _ in 0..games {
                let id = (next(positions) * 23) as u32 % 960;
                let white = 1800 + next(600) as i32;
                let black = 1800 + next(600) as i32;
                let edge = if id.is_multiple_of(3) { 40 } else { 0 };
                let roll = next(100) as i32 - edge;
                let result = match roll {
                    ..35 => Some(GameResult::WhiteWins),
                    35..70 => Some(GameResult::Draw),
                    70..98 => Some(GameResult::BlackWins),
                    _ => None,
                };
                let facts = GameFacts {
                    result,
                    white_elo: (next(10) > 0).then_some(white),
                    black_elo: Some(black),
                };
                let group = format!("group \"{g}\" é");
                table.add(&group, BackRank::from_scharnagl(id).expect("an id"), &facts);
            }
        }
        table
    }

    /// The CSV and JSON of the table through [`TableAnalysis`], the whole
    /// table in memory: the oracle.
    fn whole(table: &StatsTable, grouped: bool, all_positions: bool) -> (Vec<u8>, Vec<u8>) {
        let analysis = TableAnalysis::of(table);
        let (mut csv, mut json) = (Vec::new(), Vec::new());
        write_analysis_csv(&analysis, grouped, all_positions, &mut csv).expect("in memory");
        write_analysis_json(&analysis, grouped, &mut json).expect("in memory");
        (csv, json)
    }

    fn streamed(
        table: &StatsTable,
        group_memory: usize,
        findings_memory: usize,
        grouped: bool,
        all_positions: bool,
    ) -> (Vec<u8>, Vec<u8>, bool) {
        let mut bounded = BoundedTable::new(group_memory);
        bounded.merge(table).expect("writable");
        let groups = bounded.finish().expect("merged");
        let analysis = GroupedAnalysis::with_memory(&groups, findings_memory).expect("read");
        let (mut csv, mut json) = (Vec::new(), Vec::new());
        analysis
            .write(
                &groups,
                grouped,
                all_positions,
                &mut csv,
                Some(&mut json),
                &SummaryNotes::default(),
            )
            .expect("in memory");
        (csv, json, groups.spilled())
    }

    #[test]
    fn groups_read_one_at_a_time_write_what_the_whole_table_writes() {
        let table = table();
        let analysis = TableAnalysis::of(&table);
        let references: Vec<_> = analysis
            .groups
            .iter()
            .filter_map(|(_, a)| a.elo.reference)
            .collect();
        assert!(
            references.contains(&Reference::ChiSquare)
                && references.contains(&Reference::MonteCarlo),
            "both references among the groups: {references:?}"
        );
        assert!(analysis.within.significant > 0, "some q-values below 0.05");
        for all_positions in [false, true] {
            let (csv, json) = whole(&table, true, all_positions);
            let budgets: &[(usize, usize)] = if all_positions {
                &[(4096, 0)]
            } else {
                &[(usize::MAX, usize::MAX), (4096, 0), (1 << 16, 1 << 12)]
            };
            for &(group_memory, findings_memory) in budgets {
                let (got_csv, got_json, spilled) =
                    streamed(&table, group_memory, findings_memory, true, all_positions);
                assert_eq!(spilled, group_memory < usize::MAX);
                assert!(got_csv == csv, "the CSV differs at {group_memory} bytes");
                assert_eq!(
                    String::from_utf8(got_json).expect("UTF-8"),
                    String::from_utf8(json.clone()).expect("UTF-8"),
                    "at {group_memory} bytes"
                );
            }
        }
    }

    #[test]
    fn one_group_and_none_write_what_the_whole_table_writes() {
        let mut one = StatsTable::default();
        for (group, rows) in table().groups().take(3) {
            for (id, stats) in rows {
                one.rows_of("").entry(*id).or_default().merge(stats);
            }
            let _ = group;
        }
        for table in [one, StatsTable::default()] {
            for grouped in [false, true] {
                for all_positions in [false, true] {
                    let (csv, json) = whole(&table, grouped, all_positions);
                    let (got_csv, got_json, _) = streamed(&table, 1024, 0, grouped, all_positions);
                    assert!(got_csv == csv, "the CSV differs");
                    assert_eq!(
                        String::from_utf8(got_json).expect("UTF-8"),
                        String::from_utf8(json).expect("UTF-8")
                    );
                }
            }
        }
    }

    #[test]
    fn the_plots_show_what_they_showed_of_the_whole_table() {
        let many = table();
        let mut one = StatsTable::default();
        for (_, rows) in many.groups().take(1) {
            *one.rows_of("only") = rows.clone();
        }
        for table in [many, one, StatsTable::default()] {
            let mut bounded = BoundedTable::new(2048);
            bounded.merge(&table).expect("writable");
            let groups = bounded.finish().expect("merged");
            let analysis = GroupedAnalysis::with_memory(&groups, 0).expect("read");
            let svg = |analysis: &TableAnalysis<'_>| {
                let (mut ranking, mut funnel) = (Vec::new(), Vec::new());
                crate::plot::write_ranking_svg(analysis, &mut ranking).expect("drawn");
                crate::plot::write_funnel_svg(analysis, &mut funnel).expect("drawn");
                (ranking, funnel)
            };
            assert!(svg(&analysis.plotted()) == svg(&TableAnalysis::of(&table)));
        }
    }
}
