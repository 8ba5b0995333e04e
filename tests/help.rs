//! The codes of `validate` and the repairs of `fix` are in the binary
//! (`--help` and the man page), for a user who installed it alone, and
//! they are the guide's (docs/codes.md).

use std::path::Path;

use crate::common::pgn960;

/// The names in the first column of the table under `heading` in
/// docs/codes.md (`code`, or several as `a`, `b`).
fn names_in_codes_md(heading: &str) -> Vec<String> {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/codes.md"))
        .expect("docs/codes.md");
    let table = page.split(heading).nth(1).expect("the heading");
    let mut names = Vec::new();
    for line in table
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
    {
        let first = line.split('|').nth(1).unwrap_or_default();
        if first.trim_start().starts_with("everything else") {
            continue; // the codes left alone
        }
        names.extend(first.split('`').skip(1).step_by(2).map(str::to_owned));
    }
    assert!(names.len() > 5, "no table under {heading}");
    names
}

fn text(args: &[&str]) -> String {
    String::from_utf8(pgn960(args, None).ok(&args.join(" "))).unwrap()
}

#[test]
fn every_code_is_in_validate_help_and_the_man_page() {
    let help = text(&["validate", "--help"]);
    let man = text(&["man"]);
    let codes = names_in_codes_md("## The codes of `validate`");
    for code in &codes {
        assert!(
            help.contains(&format!("\n  {code} (")),
            "validate --help lacks {code}"
        );
        assert!(man.contains(code.as_str()), "the man page lacks {code}");
    }
    // Listed once each, and no more than the guide has.
    let listed = help
        .lines()
        .filter(|line| {
            line.strip_prefix("  ").is_some_and(|entry| {
                [" (error)", " (warning)", " (info)"]
                    .iter()
                    .any(|s| entry.ends_with(s))
            })
        })
        .count();
    assert_eq!(listed, codes.len(), "{help}");
    // The short help stays short.
    assert!(!text(&["validate", "-h"]).contains("fen_unparsable"));
}

#[test]
fn every_repair_is_in_fix_help_and_the_man_page() {
    let help = text(&["fix", "--help"]);
    let man = text(&["man"]);
    for repair in names_in_codes_md("## What `fix` repairs") {
        let section = help.split("Repairs").nth(1).expect("a Repairs section");
        assert!(section.contains(&repair), "fix --help lacks {repair}");
        assert!(man.contains(&repair), "the man page lacks {repair}");
    }
}
