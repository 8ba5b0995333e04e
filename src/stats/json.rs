//! The summary of the tests across positions (`stats --summary`), as JSON:
//! one object per group, computed like the CSV's research columns from the
//! exact sums, so a merged table gives the same file as one run.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::analysis::{GroupTests, TableAnalysis, WithinGroups};
use super::table::StatsTable;
use crate::game::UnplayedCounts;

/// What the reading of the archives found besides the tests, written by
/// `stats --summary` as the file's last keys when there is something to
/// say (never for a run of `--merge`, whose CSVs do not record it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SummaryNotes {
    /// The games left out because their result was not played, by
    /// reason (`"unplayed_left_out": {"abandoned": 28, ...}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unplayed_left_out: Option<UnplayedCounts>,
    /// With `--keep-unplayed`: the games counted although their result
    /// was not played, by reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unplayed_kept: Option<UnplayedCounts>,
}

impl SummaryNotes {
    /// The notes of a count of archives: the unplayed games, `kept` or
    /// left out, when there are any (without, the file is the one
    /// `--merge` writes).
    pub fn of_count(unplayed: UnplayedCounts, kept: bool) -> SummaryNotes {
        if unplayed.total() == 0 {
            SummaryNotes::default()
        } else if kept {
            SummaryNotes {
                unplayed_kept: Some(unplayed),
                ..SummaryNotes::default()
            }
        } else {
            SummaryNotes {
                unplayed_left_out: Some(unplayed),
                ..SummaryNotes::default()
            }
        }
    }

    /// Writes the notes' keys as further members of a pretty-printed
    /// object at the top level: `,` and a line per member, each as
    /// serde_json indents it; nothing without notes.
    fn write_members(&self, out: &mut impl Write) -> io::Result<()> {
        let text = serde_json::to_vec_pretty(self)?;
        // `{\n  "key": ...\n}`: the lines between the braces.
        let Some(inner) = text
            .strip_prefix(b"{\n")
            .and_then(|text| text.strip_suffix(b"\n}"))
        else {
            return Ok(());
        };
        out.write_all(b",\n")?;
        out.write_all(inner)
    }
}

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
    out: impl Write,
) -> io::Result<()> {
    write_noted_analysis_json(analysis, grouped, &SummaryNotes::default(), out)
}

/// [`write_analysis_json`] with `notes` as the file's last keys, as
/// `stats --summary` writes it after counting archives.
///
/// # Errors
///
/// Any error of `out`.
pub fn write_noted_analysis_json(
    analysis: &TableAnalysis<'_>,
    grouped: bool,
    notes: &SummaryNotes,
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
        let text = serde_json::to_vec_pretty(&file)?;
        let members = text
            .strip_suffix(b"\n}")
            .expect("an object's last line is `}`");
        out.write_all(members)?;
        notes.write_members(&mut out)?;
        out.write_all(b"\n}\n")?;
        out.flush()
    } else {
        let empty = super::analysis::Analysis::of(&Default::default(), "");
        let tests = analysis
            .groups
            .first()
            .map_or(&empty.tests, |(_, analysis)| &analysis.tests);
        write_tests_json(tests, notes, out)
    }
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

    /// Writes the pooled tests, the notes and the end of the file.
    pub(crate) fn finish(mut self, within: &WithinGroups, notes: &SummaryNotes) -> io::Result<()> {
        self.out
            .write_all(if self.groups == 0 { b"}" } else { b"\n  }" })?;
        self.out.write_all(b",\n  \"within_groups\": ")?;
        write_nested(&mut self.out, within, b"\n  ")?;
        notes.write_members(&mut self.out)?;
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

/// Writes the ungrouped file of [`write_analysis_json`]: one group's
/// tests, then the notes.
pub(crate) fn write_tests_json(
    tests: &GroupTests,
    notes: &SummaryNotes,
    mut out: impl Write,
) -> io::Result<()> {
    let text = serde_json::to_vec_pretty(tests)?;
    let members = text
        .strip_suffix(b"\n}")
        .expect("an object's last line is `}`");
    out.write_all(members)?;
    notes.write_members(&mut out)?;
    out.write_all(b"\n}\n")?;
    out.flush()
}
