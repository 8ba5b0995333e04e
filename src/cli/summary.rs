//! The words of the summaries on stderr, shared so that every command
//! counts games the same way: by kind, in the one vocabulary.

use pgn960::compression::{Compression, Settings};
use pgn960::game::KindCounts;
use pgn960::input::Source;

/// `1 game`, `2 games`.
pub fn count(n: u64, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// `8 games read: 6 chess960, 1 standard, 1 dfrc, 0 other, 0 unreadable`,
/// with `verb` in place of `read`.
pub fn games_by_kind(kinds: &KindCounts, verb: &str) -> String {
    format!("{} {verb}: {kinds}", count(kinds.total(), "game", "games"))
}

/// A file `--in-place` rewrote, and how it was compressed.
pub struct Rewritten {
    name: String,
    settings: Settings,
}

impl Rewritten {
    /// `source`, rewritten with `settings`.
    pub fn new(source: &Source, settings: Settings) -> Rewritten {
        Rewritten {
            name: source.to_string(),
            settings,
        }
    }
}

/// `  rewrote a.pgn`, `  rewrote b.pgn.zst (zstd level 19)`, a line per
/// file (the threads are the machine's, not the file's: not said).
pub fn push_rewritten(text: &mut String, rewritten: &[Rewritten]) {
    for file in rewritten {
        text.push_str(&format!("  rewrote {}", file.name));
        let settings = file.settings;
        if settings.compression() != Compression::None {
            text.push_str(&format!(
                " ({} level {})",
                settings.compression(),
                settings.level()
            ));
        }
        text.push('\n');
    }
}
