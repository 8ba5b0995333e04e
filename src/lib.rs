//! pgn960: Chess960 (Fischer random chess) start positions and PGN archives.
//!
//! The library has two halves:
//!
//! - [`position`]: the 960 back-rank arrangements, both numberings
//!   (Scharnagl 0–959 and Fritz9 1–960), and recognising start arrays
//!   (including Double FRC) in FENs.
//! - The archive engine (added by later modules): streaming PGN input,
//!   splitting it byte-exactly into games, and classifying each game's start.

pub mod classify;
pub mod input;
pub mod pipeline;
pub mod position;
pub mod split;
pub mod tag;

pub use position::{BackRank, StartArray};
