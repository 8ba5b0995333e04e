//! pgn960: Chess960 (Fischer random chess) start positions and PGN archives.
//!
//! Two halves:
//!
//! - [`position`]: the 960 back-rank arrangements, both numberings
//!   (Scharnagl 0–959 and Fritz9 1–960), and recognising start arrays
//!   (including Double FRC) in FENs; [`draw`] turns die throws or coin
//!   flips, made by hand, into one of them.
//! - The archive engine: [`input`] opens plain or compressed streams
//!   ([`compression`] knows the formats, and how to write them),
//!   [`split`] cuts them byte-exactly into games, [`game`] reads each
//!   game's start from its tags, [`pipeline`] runs per-game work in parallel
//!   with ordered results, [`tag`] turns the answers into byte edits,
//!   [`validate`] reports what is wrong with a game and [`fix`] repairs
//!   what can be, as byte edits too; [`filter`] chooses games, writing each
//!   one's bytes unchanged.
//!
//! ```
//! use pgn960::pipeline::{run, PipelineConfig};
//! use pgn960::tag::{apply, tag_batch, TagOptions};
//!
//! let pgn = b"[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 *\n";
//! let mut out = Vec::new();
//! run(&pgn[..], PipelineConfig::default(), |batch| tag_batch(batch, TagOptions::default()),
//!     |batch, (edits, _counts)| apply(&batch.data, &edits, &mut out))
//!     .expect("in-memory input and output cannot fail");
//! assert!(out.windows(17).any(|w| w == b"[Chess960Id \"0\"]\n"));
//! ```

// Standard input's identity, in-place renames and mapped files are read
// the Unix way (file descriptors, device and inode numbers).
#[cfg(not(unix))]
compile_error!("pgn960 runs on Unix-like systems (Linux, macOS, the BSDs)");

/// Adds the named fields of `$other` to those of `$self`: counts that
/// merge across batches, files and machines.
macro_rules! add_fields {
    ($self:ident, $other:ident, $($field:ident),+ $(,)?) => {
        $( $self.$field += $other.$field; )+
    };
}

pub mod compression;
pub mod draw;
pub mod duplicates;
pub mod export;
pub mod filter;
pub mod fix;
pub mod game;
pub mod input;
pub mod movetext;
pub mod pipeline;
pub mod plot;
pub mod position;
pub mod split;
pub mod stats;
pub mod tag;
#[cfg(test)]
mod test_support;
pub mod validate;

pub use position::{BackRank, StartArray};

/// The guide's Rust examples, run as doctests so they cannot go stale.
#[doc = include_str!("../docs/library.md")]
#[cfg(doctest)]
pub struct LibraryGuideDoctests;
