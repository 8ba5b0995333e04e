//! Benchmark baseline for `pgn960 validate`: a single-threaded pgn-reader +
//! shakmaty replay of every move of every game.
//!
//! Each game starts from its `FEN` tag (Chess960 castling, which also reads
//! X-FEN and standard FENs) or the standard start, and every main-line SAN
//! is resolved against the position and played. A game stops at its first
//! illegal move; the counts are printed at the end. Plain files, `.zst`
//! files (by name) or standard input.
//!
//! ```text
//! cargo run --release --example baseline_replay -- archive.pgn
//! ```

use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

#[derive(Default)]
struct Replay {
    games: u64,
    moves: u64,
    illegal_moves: u64,
    bad_fens: u64,
}

/// What a game's tags say about its start.
enum Start {
    Standard,
    Fen(Chess),
    BadFen,
}

impl Visitor for Replay {
    type Tags = Start;
    type Movetext = Chess;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.games += 1;
        ControlFlow::Continue(Start::Standard)
    }

    fn tag(
        &mut self,
        start: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        if name == b"FEN" {
            *start = Fen::from_ascii(value.as_bytes())
                .ok()
                .and_then(|fen| fen.into_position(CastlingMode::Chess960).ok())
                .map_or(Start::BadFen, Start::Fen);
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, start: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        match start {
            Start::Standard => ControlFlow::Continue(Chess::default()),
            Start::Fen(pos) => ControlFlow::Continue(pos),
            Start::BadFen => {
                self.bad_fens += 1;
                ControlFlow::Break(())
            }
        }
    }

    fn san(&mut self, pos: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        match san_plus.san.to_move(pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                self.moves += 1;
                ControlFlow::Continue(())
            }
            Err(_) => {
                self.illegal_moves += 1;
                ControlFlow::Break(())
            }
        }
    }

    fn end_game(&mut self, _pos: Self::Movetext) -> Self::Output {}
}

fn open(path: &str) -> io::Result<Box<dyn Read>> {
    if path == "-" {
        return Ok(Box::new(io::stdin().lock()));
    }
    let file = File::open(path)?;
    Ok(if path.ends_with(".zst") {
        Box::new(zstd::Decoder::new(file)?)
    } else {
        Box::new(file)
    })
}

fn main() -> io::Result<()> {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        paths.push("-".to_string());
    }
    let mut replay = Replay::default();
    for path in &paths {
        Reader::new(open(path)?).visit_all_games(&mut replay)?;
    }
    println!(
        "{} games, {} moves played, {} illegal moves, {} unreadable FENs",
        replay.games, replay.moves, replay.illegal_moves, replay.bad_fens
    );
    Ok(())
}
