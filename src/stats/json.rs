//! The summary of the tests across positions (`stats --summary`), as JSON:
//! one object per group, computed like the CSV's research columns from the
//! exact sums, so a merged table gives the same file as one run.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::analysis::{GroupTests, TableAnalysis, WithinGroups};
use super::table::StatsTable;

/// The file's shape with `--group-by`.
#[derive(Serialize)]
struct Grouped<'a> {
    groups: BTreeMap<&'a str, &'a GroupTests>,
    within_groups: &'a WithinGroups,
}

/// Writes the summary of a table's tests: [`write_analysis_json`] of its
/// [`TableAnalysis`].
///
/// # Errors
///
/// Any error of `out`.
pub fn write_summary_json(table: &StatsTable, grouped: bool, out: impl Write) -> io::Result<()> {
    write_analysis_json(&TableAnalysis::of(table), grouped, out)
}

/// Writes the tests over all positions as one JSON object (see
/// [`GroupTests`] for its keys), or with `grouped`, an object whose key
/// `groups` maps each group to such an object, in the order of the CSV's
/// rows, and whose key `within_groups` holds the tests pooled over groups
/// (see [`WithinGroups`]); the q-values, and so each group's
/// `significant`, are over every group's tests together. Pretty-printed,
/// with a final newline.
///
/// # Errors
///
/// Any error of `out`.
pub fn write_analysis_json(
    analysis: &TableAnalysis<'_>,
    grouped: bool,
    mut out: impl Write,
) -> io::Result<()> {
    if grouped {
        let groups = analysis
            .groups
            .iter()
            .map(|(group, analysis)| (*group, &analysis.tests))
            .collect();
        let file = Grouped {
            groups,
            within_groups: &analysis.within,
        };
        serde_json::to_writer_pretty(&mut out, &file)?;
    } else {
        let empty = super::analysis::Analysis::of(&Default::default(), "");
        let tests = analysis
            .groups
            .first()
            .map_or(&empty.tests, |(_, analysis)| &analysis.tests);
        serde_json::to_writer_pretty(&mut out, tests)?;
    }
    out.write_all(b"\n")?;
    out.flush()
}
