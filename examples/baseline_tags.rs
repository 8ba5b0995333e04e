//! Benchmark baseline for `pgn960 stats`: the fastest honest single-threaded
//! pgn-reader pass over an archive's tags.
//!
//! It reads every tag of every game, notes which games have a `FEN` tag, and
//! skips each movetext without tokenising it, the way pgn-reader is meant to
//! be used when only headers matter. Plain files, `.zst` files (by name) or
//! standard input.
//!
//! ```text
//! cargo run --release --example baseline_tags -- archive.pgn
//! ```

use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, Visitor};

#[derive(Default)]
struct Tags {
    games: u64,
    with_fen: u64,
}

impl Visitor for Tags {
    type Tags = bool;
    type Movetext = ();
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(false)
    }

    fn tag(
        &mut self,
        has_fen: &mut Self::Tags,
        name: &[u8],
        _value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        *has_fen |= name == b"FEN";
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, has_fen: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        self.games += 1;
        self.with_fen += u64::from(has_fen);
        // Breaking here makes the reader skip the movetext.
        ControlFlow::Break(())
    }

    fn end_game(&mut self, _movetext: Self::Movetext) -> Self::Output {}
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
    let mut tags = Tags::default();
    for path in &paths {
        Reader::new(open(path)?).visit_all_games(&mut tags)?;
    }
    println!("{} games, {} with a FEN tag", tags.games, tags.with_fen);
    Ok(())
}
