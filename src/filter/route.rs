//! Where the bytes of an input go, game by game. Everything that belongs
//! to a game goes where the game goes: its bytes as the splitter cut them
//! (with the blank lines and stray text after it), and, for a game too
//! long to be handed out whole, the continuation bytes that arrive with
//! the batches after it. What is written of a game is then exactly its
//! bytes, in input order, whatever the batches.

use std::io::{self, Write};
use std::ops::Range;

use crate::split::Batch;
use crate::tag::{Edit, apply};

/// A stretch of a batch's bytes that goes to one place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run<P> {
    /// Where the bytes go.
    pub place: P,
    /// The bytes, within [`Batch::data`].
    pub range: Range<usize>,
}

/// Follows one input's batches, in order, so that the bytes continuing a
/// game handed out in pieces go where that game went. Start a new one for
/// each input.
#[derive(Clone, Debug)]
pub struct Router<P> {
    /// Where the game still going on at the end of the last batch went.
    continuing: Option<P>,
    /// Whether a game of the input has been seen: the bytes before the
    /// first are bytes of no game.
    started: bool,
    /// Where the bytes of no game go.
    no_game: Option<P>,
}

impl<P> Default for Router<P> {
    fn default() -> Self {
        Router {
            continuing: None,
            started: false,
            no_game: None,
        }
    }
}

impl<P: Copy + PartialEq> Router<P> {
    /// A router at the start of an input.
    pub fn new() -> Router<P> {
        Router::default()
    }

    /// Sends the bytes of no game (an input of white space or comments
    /// only, which holds no game) to `place` rather than nowhere.
    pub fn no_game_to(mut self, place: P) -> Router<P> {
        self.no_game = Some(place);
        self
    }

    /// The bytes of `batch`, the input's next batch, as runs of
    /// consecutive bytes going to one place, in order. `place` says where
    /// each game goes, by its position in [`Batch::games`]: `None` is
    /// nowhere. Continuation bytes go where the game they continue went;
    /// bytes of no game at all (an input of white space only) go where
    /// [`Router::no_game_to`] says, by default nowhere.
    ///
    /// ```
    /// use pgn960::filter::{Router, Run};
    /// use pgn960::split::GameReader;
    ///
    /// let pgn = b"[Event \"a\"]\n*\n\n[Event \"b\"]\n*\n\n[Event \"c\"]\n*\n";
    /// let batch = GameReader::new(&pgn[..]).next_batch()?.expect("a batch");
    /// let runs = Router::new().runs(&batch, |i| (i != 1).then_some("kept"));
    /// assert_eq!(runs, [Run { place: "kept", range: 0..15 }, Run { place: "kept", range: 30..44 }]);
    /// # Ok::<_, std::io::Error>(())
    /// ```
    pub fn runs(
        &mut self,
        batch: &Batch,
        mut place: impl FnMut(usize) -> Option<P>,
    ) -> Vec<Run<P>> {
        let mut runs: Vec<Run<P>> = Vec::new();
        let mut push = |place: Option<P>, range: Range<usize>| {
            let Some(place) = place else {
                return;
            };
            match runs.last_mut() {
                Some(last) if last.place == place && last.range.end == range.start => {
                    last.range.end = range.end;
                }
                _ if range.is_empty() => {}
                _ => runs.push(Run { place, range }),
            }
        };
        let continuing = if self.started {
            self.continuing
        } else {
            self.no_game
        };
        push(continuing, 0..batch.continuation);
        self.started |= !batch.games.is_empty();
        for (i, game) in batch.games.iter().enumerate() {
            let to = place(i);
            push(to, game.range.clone());
            if i + 1 == batch.games.len() {
                self.continuing = if game.continued { to } else { None };
            }
        }
        // A batch of continuation bytes only leaves the game going on.
        runs
    }
}

/// Writes the bytes of `runs` (in order, not overlapping) of `data` to
/// `out`, as few writes as the runs allow.
///
/// # Errors
///
/// Any error of `out`.
pub fn write_runs<P>(
    data: &[u8],
    runs: &[Run<P>],
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    // The bytes between the runs are removed: `tag`'s edits, which write
    // the spans kept as one vectored write.
    let mut removals = Vec::with_capacity(runs.len() + 1);
    let mut at = 0;
    for run in runs {
        if run.range.start > at {
            removals.push(Edit {
                at,
                remove: run.range.start - at,
                insert: Vec::new(),
            });
        }
        at = run.range.end;
    }
    if at < data.len() {
        removals.push(Edit {
            at,
            remove: data.len() - at,
            insert: Vec::new(),
        });
    }
    apply(data, &removals, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::GameReader;

    /// Every batch of `input` (cut with games of at most `max_game` bytes)
    /// through one router, each game going to `place(index)`: the bytes
    /// each place got.
    /// Also how many batches began with continuation bytes.
    fn route(
        input: &[u8],
        max_game: usize,
        place: impl Fn(u64) -> Option<u8>,
        no_game: Option<u8>,
    ) -> ([Vec<u8>; 3], usize) {
        let mut reader = GameReader::new(input)
            .batch_bytes(1)
            .max_game_bytes(max_game);
        let mut router = Router::new();
        if let Some(place) = no_game {
            router = router.no_game_to(place);
        }
        let mut out: [Vec<u8>; 3] = Default::default();
        let mut continued = 0;
        while let Some(batch) = reader.next_batch().unwrap() {
            continued += usize::from(batch.continuation > 0);
            let runs = router.runs(&batch, |i| place(batch.games[i].index));
            for run in &runs {
                out[usize::from(run.place)].extend_from_slice(&batch.data[run.range.clone()]);
            }
            for place in 0..3 {
                let mine: Vec<Run<u8>> =
                    runs.iter().filter(|r| r.place == place).cloned().collect();
                let mut written = Vec::new();
                write_runs(&batch.data, &mine, &mut written).unwrap();
                let expected: Vec<u8> = mine
                    .iter()
                    .flat_map(|r| batch.data[r.range.clone()].to_vec())
                    .collect();
                assert_eq!(written, expected);
            }
        }
        (out, continued)
    }

    #[test]
    fn pieces_of_a_long_game_follow_it() {
        // Past the 1 MiB the splitter reads at a time, so that it must cut.
        let long = format!("[Event \"2\"]\n\n1. e4 {{{}}} *\n\n", "x".repeat(3 << 20));
        let input = format!("[Event \"1\"]\n\n*\n\n{long}[Event \"3\"]\n\n*\n");
        let ([nowhere, first, second], continued) = route(
            input.as_bytes(),
            64 << 10,
            |index| match index {
                2 => Some(1),
                _ => Some(2),
            },
            None,
        );
        assert!(continued > 2, "the long game must come in pieces");
        assert!(nowhere.is_empty());
        assert_eq!(first, long.as_bytes());
        assert_eq!(second, b"[Event \"1\"]\n\n*\n\n[Event \"3\"]\n\n*\n");
        // A game sent nowhere takes its pieces with it.
        let ([_, kept, _], _) = route(
            input.as_bytes(),
            64 << 10,
            |index| (index != 2).then_some(1),
            None,
        );
        assert_eq!(kept, b"[Event \"1\"]\n\n*\n\n[Event \"3\"]\n\n*\n");
    }

    /// Runs are as few as the places allow: neighbouring games going to
    /// one place make one run (one write), and no run is empty.
    #[test]
    fn runs_are_whole_and_never_empty() {
        let pgn = b"[Event \"a\"]\n*\n\n[Event \"b\"]\n*\n\n[Event \"c\"]\n*\n";
        let batch = GameReader::new(&pgn[..]).next_batch().unwrap().unwrap();
        assert_eq!(batch.continuation, 0);
        // Bytes of no game would go to 9: this batch has none.
        let mut router = Router::new().no_game_to(9);
        let runs = router.runs(&batch, |i| Some(u8::from(i == 2)));
        assert_eq!(
            runs,
            [
                Run {
                    place: 0,
                    range: 0..30
                },
                Run {
                    place: 1,
                    range: 30..44
                }
            ]
        );
    }

    #[test]
    fn bytes_of_no_game_go_nowhere_unless_sent() {
        let ([_, kept, _], _) = route(b"\n\n  \n", 64 << 10, |_| Some(1), None);
        assert!(kept.is_empty());
        let input = b"\xef\xbb\xbf\n; no game\n\n  \n";
        let ([_, kept, _], _) = route(input, 64 << 10, |_| Some(1), Some(2));
        assert!(kept.is_empty());
        let ([_, _, sent], _) = route(input, 64 << 10, |_| Some(1), Some(2));
        assert_eq!(sent, input);
        // More bytes of no game than fit in a batch: all of them.
        let blanks = b" \t \n".repeat(1 << 20);
        let ([_, _, sent], continued) = route(&blanks, 64 << 10, |_| Some(1), Some(2));
        assert!(continued > 1);
        assert_eq!(sent, blanks);
        // After a game, bytes of a game sent nowhere stay nowhere.
        let long = format!("[Event \"a\"]\n\n1. e4 {{{}}} *\n", "x".repeat(3 << 20));
        let ([nowhere, kept, sent], _) = route(long.as_bytes(), 64 << 10, |_| None, Some(2));
        assert!(nowhere.is_empty() && kept.is_empty() && sent.is_empty());
    }
}
