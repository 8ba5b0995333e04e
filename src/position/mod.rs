//! Chess960 start arrays: the 960 back ranks, their two numberings, their
//! FEN forms, their features (the files of the pieces, the mirror image),
//! and recognising a start array (or a Double FRC pair) on a board.
//!
//! Everything else in the crate asks this module one question — "which start
//! is this?" — so it is kept small, allocation-free on the hot path
//! ([`classify_board`] runs once per game over archives of millions) and
//! checked exhaustively: the domain has only 960 members.
//!
//! Two numberings are in use:
//!
//! - **Scharnagl** (0–959), the standard one (`Board::chess960` in shakmaty,
//!   the `FRC` numbers in most software): `id = light + 4 × dark + 16 × queen
//!   + 96 × n5n`.
//! - **Fritz9** (1–960), used by ChessBase's Fritz 9: `id = 1 + light + 4 ×
//!   dark + 16 × knights + 240 × queen`.
//!
//! Here `light` is the light-squared bishop's index among files b, d, f, h,
//! `dark` the dark-squared bishop's among a, c, e, g, and the queen and knight
//! codes count the free squares left by the pieces placed before them (see
//! [`BackRank::from_scharnagl`] and [`BackRank::from_fritz9`]).

mod back_rank;
mod castling;
mod features;
mod fen;
mod fen_read;
mod start_array;

pub use back_rank::{BackRank, BackRankError, IdError};
pub use castling::{CastlingNotation, castling_rooks};
pub use features::{FEATURE_COLUMNS, FeatureCell, Features, file_letter};
pub(crate) use fen::check_board_part;
pub use fen::{FenError, classify_fen, parse_fen_board, parse_placement};
pub use fen_read::{FenProblem, FenRead, Placement, plain_start_array, read_fen};
pub use start_array::{BoardStart, StartArray, StartFenError, classify_board};
