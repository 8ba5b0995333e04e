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

/// The grouped file of [`write_analysis_json`] written a group at a time,
/// byte for byte the same: `begin`, a `group` for each group in order,
/// then `finish` with the pooled tests.
pub(crate) struct GroupedJson<W: Write> {
    out: W,
    groups: u64,
}

impl<W: Write> GroupedJson<W> {
    /// Writes the head of the file.
    pub(crate) fn begin(mut out: W) -> io::Result<GroupedJson<W>> {
        out.write_all(b"{\n  \"groups\": {")?;
        Ok(GroupedJson { out, groups: 0 })
    }

    /// Writes the next group's tests.
    pub(crate) fn group(&mut self, group: &str, tests: &GroupTests) -> io::Result<()> {
        self.out.write_all(if self.groups == 0 {
            b"\n    "
        } else {
            b",\n    "
        })?;
        serde_json::to_writer(&mut self.out, group)?;
        self.out.write_all(b": ")?;
        write_nested(&mut self.out, tests, b"\n    ")?;
        self.groups += 1;
        Ok(())
    }

    /// Writes the pooled tests and the end of the file.
    pub(crate) fn finish(mut self, within: &WithinGroups) -> io::Result<()> {
        self.out
            .write_all(if self.groups == 0 { b"}" } else { b"\n  }" })?;
        self.out.write_all(b",\n  \"within_groups\": ")?;
        write_nested(&mut self.out, within, b"\n  ")?;
        self.out.write_all(b"\n}\n")?;
        self.out.flush()
    }
}

/// Writes `value` pretty-printed as serde_json nests it: its lines after
/// the first indented further (`newline` is a newline and the indent).
/// A JSON string holds no raw newline, so every newline is the printer's.
fn write_nested(out: &mut impl Write, value: &impl Serialize, newline: &[u8]) -> io::Result<()> {
    let text = serde_json::to_vec_pretty(value)?;
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.write_all(newline)?;
        }
        out.write_all(line)?;
    }
    Ok(())
}

/// Writes the ungrouped file of [`write_analysis_json`]: one group's tests.
pub(crate) fn write_tests_json(tests: &GroupTests, mut out: impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut out, tests)?;
    out.write_all(b"\n")?;
    out.flush()
}
