//! Where each row's game lies in its input: the consumer sees batches in
//! input order, so it adds up their lengths to place every game (its
//! offset), counts the lines before it, and follows a game read in pieces
//! to its end (its length) before the row goes out.

use crate::split::Batch;

use super::GameRow;

/// Places the rows of one input's batches, in input order.
///
/// A game longer than the splitter holds at once (16 MiB, or 65,536 tag
/// pairs) arrives as a first piece, a [`Game`](crate::split::Game) marked
/// `continued`, and then as the leading
/// [`continuation`](Batch::continuation) bytes of the batches after it.
/// Its row is held until a batch with games (or the end of the input)
/// shows that the game has ended, so that its `length` covers every piece
/// and rows still go out in input order. Continuation bytes that follow
/// no game (an input of white space only, longer than a game may be)
/// belong to no row.
#[derive(Debug, Default)]
pub struct RowOrder {
    /// Bytes of the input in the batches placed so far.
    consumed: u64,
    /// The row of a game read in pieces, until its last piece.
    held: Option<GameRow>,
}

impl RowOrder {
    /// An input's first batch is next.
    pub fn new() -> RowOrder {
        RowOrder::default()
    }

    /// Places the rows of `batch` (one per game, in order, as
    /// [`batch_rows`](super::batch_rows) reads them): offsets and lines
    /// become the input's, and each finished row goes to `emit`.
    ///
    /// # Errors
    ///
    /// The first error of `emit`.
    ///
    /// # Panics
    ///
    /// When `rows` does not hold one row per game of `batch`.
    pub fn place<E>(
        &mut self,
        batch: &Batch,
        rows: Vec<GameRow>,
        mut emit: impl FnMut(GameRow) -> Result<(), E>,
    ) -> Result<(), E> {
        assert_eq!(rows.len(), batch.games.len(), "one row per game");
        if let Some(held) = &mut self.held {
            held.length += batch.continuation as u64;
        }
        if !batch.games.is_empty()
            && let Some(held) = self.held.take()
        {
            emit(held)?;
        }
        for (game, mut row) in batch.games.iter().zip(rows) {
            row.offset += self.consumed;
            row.line = batch.input_line(row.line);
            if game.continued {
                self.held = Some(row);
            } else {
                emit(row)?;
            }
        }
        self.consumed += batch.data.len() as u64;
        Ok(())
    }

    /// The end of the input: the row of a game still held, if any (a game
    /// read in pieces up to the end, or up to where the input could no
    /// longer be read).
    pub fn finish(self) -> Option<GameRow> {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{Schema, batch_rows};
    use crate::split::GameReader;

    /// Every row of `input`, read in batches of `batch_bytes` with games
    /// over 64 KiB read in pieces.
    fn placed(input: &[u8], batch_bytes: usize) -> Vec<GameRow> {
        let mut reader = GameReader::new(input)
            .batch_bytes(batch_bytes)
            .max_game_bytes(64 << 10);
        let mut order = RowOrder::new();
        let mut out = Vec::new();
        let mut line = 1;
        while let Some(mut batch) = reader.next_batch().unwrap() {
            batch.first_line = Some(line);
            line += crate::split::count_line_ends(&batch.data, 0, batch.data.len(), false);
            let rows = batch_rows(&batch, &Schema::default()).rows;
            order
                .place(&batch, rows, |row| {
                    out.push(row);
                    Ok::<_, ()>(())
                })
                .unwrap();
        }
        out.extend(order.finish());
        out
    }

    #[test]
    fn offsets_and_lengths_cover_the_input_and_pieces_join() {
        let long_comment = format!("{{{}}}", "x ".repeat(1_000_000));
        let input = format!(
            "\n[Event \"1\"]\n\n1. e4 *\n\n[Event \"2\"]\n\n1. d4 {long_comment} d5 *\n\n\
             [Event \"3\"]\n\n1. c4 *\n[Event \"4\"]\n\n1. Nf3 {long_comment}"
        );
        for batch_bytes in [1, 100, 1 << 20] {
            let rows = placed(input.as_bytes(), batch_bytes);
            assert_eq!(rows.len(), 4);
            let mut at = 0;
            for (i, row) in rows.iter().enumerate() {
                assert_eq!(row.game, i as u64 + 1);
                assert_eq!(row.offset, at, "game {}", row.game);
                at += row.length;
                let bytes = &input.as_bytes()[row.offset as usize..at as usize];
                let first_event = bytes.windows(7).position(|w| w == b"[Event ").unwrap();
                let line = input[..row.offset as usize + first_event].lines().count() + 1;
                assert_eq!(row.line, line as u64, "game {}", row.game);
            }
            assert_eq!(at, input.len() as u64);
            // The long games were read in pieces: no plies.
            let plies: Vec<Option<u32>> = rows.iter().map(|row| row.plies).collect();
            assert_eq!(plies, [Some(1), None, Some(1), None]);
        }
    }
}
