//! Where a game starts, from its `FEN` tags, by one rule for every
//! command: no `FEN` tag means the standard array (unless the game records
//! another start, see `recorded`); a `FEN` tag is read
//! with either castling notation, and a lone board part is read too; two
//! `FEN` tags must give the same position (placement, side to move,
//! castling rights and en passant square, where both give them).

use crate::position::{
    BackRank, BackRankError, BoardStart, FenError, FenRead, StartArray, plain_start_array, read_fen,
};
use crate::split::Batch;

use super::headers::{Headers, tag_value};

/// Where a game starts, as its `FEN` tags tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// No `FEN` tag: the standard array.
    NoFen,
    /// No `FEN` tag, but the game records a start other than the standard
    /// array (an id tag's number, a back rank in `Opening`): readers would
    /// start it from the standard array, which is not its start, and no
    /// `FEN` says which it is. The start is unknown; `fix` adds the `FEN`
    /// of the recorded start.
    FenMissing {
        /// The start the records name, `None` when they disagree.
        recorded: Option<BackRank>,
    },
    /// A start array: a Chess960 one (518 included) or a Double FRC pair.
    Array(StartArray),
    /// A board with the shape of a start array whose back ranks break a
    /// Chess960 rule.
    IllegalBackRank {
        /// White's back rank, or the rule it breaks.
        white: Result<BackRank, BackRankError>,
        /// Black's back rank, or the rule it breaks.
        black: Result<BackRank, BackRankError>,
    },
    /// Any other position: a set-up game.
    SetUp,
    /// The game is not chess (its `Variant` names another game): its `FEN`
    /// is not read as a chess position.
    NotChess,
    /// A `FEN` tag whose placement does not read.
    BadFen {
        /// The tag, an index into [`Batch::tags`].
        tag: usize,
        /// What is wrong with it.
        error: FenError,
    },
    /// The game's tags are not all known (see
    /// [`Game::tags_incomplete`](crate::split::Game::tags_incomplete)):
    /// a `FEN` may be among those not read.
    TagsIncomplete,
    /// `FEN` tags that give different positions.
    Conflict {
        /// The first `FEN` tag.
        first: usize,
        /// The first that differs from it.
        second: usize,
        /// Whether the pieces stand differently (else the side to move,
        /// castling rights or en passant square differ).
        placement: bool,
    },
}

impl Start {
    /// Whether the start is known: not an unreadable `FEN`, `FEN` tags in
    /// conflict, or tags not all read. A start recorded without a `FEN`
    /// ([`Start::FenMissing`]) counts as known here, by its record, which
    /// `fix` turns into a `FEN` and `validate` checks the ids against; it
    /// has no position to replay from until then.
    pub fn is_known(&self) -> bool {
        !matches!(
            self,
            Start::BadFen { .. } | Start::Conflict { .. } | Start::TagsIncomplete
        )
    }
}

/// Reads the start from the `FEN` tags noted in `headers`.
pub(super) fn read_start(batch: &Batch, headers: &Headers) -> Start {
    let fens = headers.fens();
    let Some(&first) = fens.first() else {
        return Start::NoFen;
    };
    if fens.len() == 1 {
        // The usual case: one FEN, most often a start array spelled the
        // usual way, read off its bytes.
        if let Some(rank) = plain_start_array(batch.raw_value(&batch.tags[first])) {
            return Start::Array(StartArray::Chess960(rank));
        }
    }
    let mut reads: Vec<(usize, FenRead)> = Vec::with_capacity(fens.len());
    for &tag in fens {
        match read_fen(&tag_value(batch, &batch.tags[tag])) {
            Ok(read) => reads.push((tag, read)),
            Err(error) => return Start::BadFen { tag, error },
        }
    }
    let (_, first_read) = &reads[0];
    if let Some((second, other)) = reads[1..]
        .iter()
        .find(|(_, other)| !first_read.same_position(other))
    {
        return Start::Conflict {
            first,
            second: *second,
            placement: first_read.board() != other.board(),
        };
    }
    match first_read.board_start() {
        BoardStart::Start(start) => Start::Array(start),
        BoardStart::IllegalBackRank { white, black } => Start::IllegalBackRank { white, black },
        BoardStart::NotAStart => Start::SetUp,
    }
}
