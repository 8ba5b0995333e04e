//! The words of the summaries on stderr, shared so that every command
//! counts games the same way: by kind, in the one vocabulary.

use pgn960::game::KindCounts;

/// `1 game`, `2 games`.
pub fn count(n: u64, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// `8 games read: 6 chess960, 1 standard, 1 dfrc, 0 other, 0 unreadable`,
/// with `verb` in place of `read`.
pub fn games_by_kind(kinds: &KindCounts, verb: &str) -> String {
    format!("{} {verb}: {kinds}", count(kinds.total(), "game", "games"))
}
