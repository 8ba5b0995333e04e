//! The move a SAN names, as shakmaty's [`San::to_move`] finds it, without
//! its cost in the common case.
//!
//! `to_move` asks the position for every candidate move to the square and
//! returns them as a list of 256 moves, copied on the way out: a tenth of
//! `validate`'s time went to that copy. A knight, bishop, rook or queen
//! move while not in check is found here from the attack tables instead,
//! with the same candidates and the same pin rule; everything else, and
//! every SAN that names no single legal move (so that the error is
//! shakmaty's own), goes to `to_move`.

use shakmaty::san::{San, SanError};
use shakmaty::{Bitboard, Board, Chess, File, Move, Position, Rank, Role, Square, attacks};

/// The move `san` names in `pos`: [`San::to_move`]'s answer.
pub(super) fn to_move(san: San, pos: &Chess) -> Result<Move, SanError> {
    if let San::Normal {
        role: role @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen),
        file,
        rank,
        capture,
        to,
        promotion: None,
    } = san
        && let Some(m) = only_piece_move(pos, role, (file, rank), capture, to)
    {
        return Ok(m);
    }
    san.to_move(pos)
}

/// The one legal move of a `role` piece (not a pawn, not the king) to
/// `to`, from the file and rank given, capturing when `capture`; `None`
/// when the side to move is in check (evasions are shakmaty's), or when
/// there is no such move or more than one.
fn only_piece_move(
    pos: &Chess,
    role: Role,
    (file, rank): (Option<File>, Option<Rank>),
    capture: bool,
    to: Square,
) -> Option<Move> {
    let board = pos.board();
    let captured = board.role_at(to);
    if pos.us().contains(to) || captured.is_some() != capture || pos.checkers().any() {
        return None;
    }
    let king = board.king_of(pos.turn())?;
    let occupied = board.occupied();
    let reach = match role {
        Role::Knight => attacks::knight_attacks(to),
        Role::Bishop => attacks::bishop_attacks(to, occupied),
        Role::Rook => attacks::rook_attacks(to, occupied),
        _ => attacks::queen_attacks(to, occupied),
    };
    let mut from = reach & pos.our(role);
    if let Some(file) = file {
        from &= Bitboard::from_file(file);
    }
    if let Some(rank) = rank {
        from &= Bitboard::from_rank(rank);
    }
    // A pinned piece moves only along the line of its pin.
    let pinned = slider_blockers(board, pos.them(), king);
    let mut legal = from
        .into_iter()
        .filter(|&from| !pinned.contains(from) || attacks::aligned(from, to, king));
    let from = legal.next()?;
    if legal.next().is_some() {
        return None;
    }
    Some(Move::Normal {
        role,
        from,
        capture: captured,
        to,
        promotion: None,
    })
}

/// The pieces that alone stand between `king` and a slider of `enemies`
/// aiming at it (shakmaty's rule, which it does not export).
fn slider_blockers(board: &Board, enemies: Bitboard, king: Square) -> Bitboard {
    let snipers = (attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens());
    let mut blockers = Bitboard::EMPTY;
    for sniper in snipers & enemies {
        let between = attacks::between(king, sniper) & board.occupied();
        if !between.more_than_one() {
            blockers |= between;
        }
    }
    blockers
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::san::{San, SanPlus};
    use shakmaty::{CastlingMode, Chess, File, Position, Rank, Role, Square};

    use super::super::replay::movetext;
    use super::to_move;
    use crate::split::GameReader;

    /// Every SAN a writer could put for a piece move — any role, any
    /// square, any disambiguation, with and without `x` — against
    /// shakmaty's answer, in `pos`.
    fn assert_agrees_everywhere(pos: &Chess) -> usize {
        let mut checked = 0;
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for to in Square::ALL {
                let files = std::iter::once(None).chain(File::ALL.map(Some));
                for file in files {
                    let ranks = std::iter::once(None).chain(Rank::ALL.map(Some));
                    for rank in ranks {
                        for capture in [false, true] {
                            let san = San::Normal {
                                role,
                                file,
                                rank,
                                capture,
                                to,
                                promotion: None,
                            };
                            let answer = san.to_move(pos);
                            assert_eq!(to_move(san, pos), answer, "{san} in {pos:?}");
                            // The common case is answered here, not by shakmaty:
                            // a legal move written with its `x` as it is, not in check.
                            if let Ok(m) = answer
                                && pos.checkers().is_empty()
                                && m.is_capture() == capture
                            {
                                let fast =
                                    super::only_piece_move(pos, role, (file, rank), capture, to);
                                assert_eq!(fast, Some(m), "{san} in {pos:?}");
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
        checked
    }

    /// In the positions of real games (pins, checks, discovered checks,
    /// Chess960 arrays), with every piece move a writer could name.
    #[test]
    fn agrees_with_shakmaty_on_the_positions_of_real_games() {
        let mut positions = 0;
        for sample in [
            "freestyle-vegas-broadcast.pgn",
            "tcec-s29-frd5-league-b-tiebreak.pgn",
            "tcec-s16-frc-sufi.pgn.zst",
        ] {
            let path = format!("{}/testdata/real/{sample}", env!("CARGO_MANIFEST_DIR"));
            let raw = std::fs::read(&path).expect("a sample of the repository");
            let pgn = if sample.ends_with(".zst") {
                zstd::stream::decode_all(&raw[..]).expect("a zstd sample")
            } else {
                raw
            };
            let mut reader = GameReader::new(&pgn[..]);
            while let Some(batch) = reader.next_batch().expect("in memory") {
                for game in &batch.games {
                    let fen = batch
                        .tags_of(game)
                        .iter()
                        .find(|tag| batch.name(tag) == b"FEN")
                        .and_then(|tag| Fen::from_ascii(batch.raw_value(tag)).ok());
                    let Some(mut pos) =
                        fen.and_then(|fen| fen.into_position::<Chess>(CastlingMode::Chess960).ok())
                    else {
                        continue;
                    };
                    let (start, lexer) = movetext(&batch, game);
                    let text = &batch.data[start..game.range.end];
                    for token in lexer.mainline() {
                        let word = &text[token.range.clone()];
                        let Ok(san) = SanPlus::from_ascii(word) else {
                            break;
                        };
                        let Ok(m) = san.san.to_move(&pos) else {
                            break;
                        };
                        if positions % 5 == 0 {
                            assert_agrees_everywhere(&pos);
                        }
                        positions += 1;
                        pos.play_unchecked(m);
                    }
                }
            }
        }
        assert!(positions > 1000, "{positions} positions");
    }

    /// A pinned knight, a pinned rook along and across its pin, two
    /// knights that reach one square (one of them pinned), in check.
    #[test]
    fn agrees_with_shakmaty_on_pins_and_checks() {
        for fen in [
            "4k3/8/8/8/4r3/8/4N3/4K3 w - - 0 1",
            "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1",
            "4k3/8/8/8/1b6/8/3N1N2/4K3 w - - 0 1",
            "4k3/8/8/8/8/2n5/3N1N2/4K3 w - - 0 1",
            "b3k3/8/8/8/8/8/6N1/7K w - - 0 1",
            "rnbqkbnr/ppp2ppp/8/3pp3/4P3/5Q2/PPPP1PPP/RNB1KBNR b KQkq - 1 3",
        ] {
            let pos: Chess = fen
                .parse::<Fen>()
                .expect("a FEN")
                .into_position(CastlingMode::Chess960)
                .expect("a legal position");
            assert!(assert_agrees_everywhere(&pos) > 0);
        }
    }
}
