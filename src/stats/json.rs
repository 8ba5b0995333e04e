//! The summary of the tests across positions (`stats --summary`), as JSON:
//! one object per group, computed like the CSV's research columns from the
//! exact sums, so a merged table gives the same file as one run.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use super::analysis::{Analysis, GroupTests};
use super::table::{Rows, StatsTable};

/// The file's shape with `--group-by`.
#[derive(Serialize)]
struct Grouped<'a> {
    groups: BTreeMap<&'a str, GroupTests>,
}

/// Writes the tests over all positions as one JSON object (see
/// [`GroupTests`] for its keys), or with `grouped`, an object whose only
/// key, `groups`, maps each group to such an object, in the order of the
/// CSV's rows. Pretty-printed, with a final newline.
///
/// # Errors
///
/// Any error of `out`.
pub fn write_summary_json(
    table: &StatsTable,
    grouped: bool,
    mut out: impl Write,
) -> io::Result<()> {
    if grouped {
        let groups = table
            .groups()
            .map(|(group, rows)| (group, Analysis::of(rows).tests))
            .collect();
        serde_json::to_writer_pretty(&mut out, &Grouped { groups })?;
    } else {
        let empty = Rows::new();
        let rows = table.groups().next().map_or(&empty, |(_, rows)| rows);
        serde_json::to_writer_pretty(&mut out, &Analysis::of(rows).tests)?;
    }
    out.write_all(b"\n")?;
    out.flush()
}
