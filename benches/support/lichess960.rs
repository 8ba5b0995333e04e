//! Generated lichess-dialect Chess960 games, so the throughput benchmark
//! also measures the kind of archive most Chess960 games live in.
//!
//! The real archive we benchmark on (TCEC) is engine games: few games per
//! megabyte, long analysis comments, a header from a GUI. Lichess exports
//! look different: many short games, a score of tags each, and a `[%clk]`
//! comment after every move, so the per-game work (splitting, reading tags,
//! classifying the FEN) weighs far more per byte. No lichess data ships with
//! the project, so we play random legal games from random start arrays and
//! write them the way lichess does. A fixed seed gives the same bytes on
//! every machine, so results from different machines compare.

use std::fmt::Write as _;
use std::io::{self, Write};

use pgn960::BackRank;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Color, Position};

/// Writes an endless, deterministic sequence of lichess-style Chess960 games.
pub struct Lichess960 {
    rng: ChaCha8Rng,
    game: String,
    movetext: String,
}

/// How a generated game ended.
struct Ending {
    result: &'static str,
    termination: &'static str,
}

const NAME_HEADS: [&str; 16] = [
    "Knight",
    "Rook",
    "Castle",
    "Fischer",
    "Random",
    "Blitz",
    "Gambit",
    "Pawn",
    "Bishop",
    "Zugzwang",
    "Tempo",
    "Endgame",
    "Fianchetto",
    "Queen",
    "Opposition",
    "Outpost",
];
const NAME_TAILS: [&str; 16] = [
    "Lover", "Master", "Storm", "_fan", "Hunter", "Rider", "_960", "Wizard", "Crusher", "Nerd",
    "_x", "Addict", "Player", "Shuffler", "Pusher", "King",
];
const ID_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// Seconds on each clock at the start (`TimeControl "180+0"`).
const START_CLOCK: u32 = 180;

impl Lichess960 {
    /// A generator whose output depends only on `seed`.
    pub fn new(seed: u64) -> Lichess960 {
        Lichess960 {
            rng: ChaCha8Rng::seed_from_u64(seed),
            game: String::with_capacity(8192),
            movetext: String::with_capacity(8192),
        }
    }

    /// Writes the next game (tags, blank line, movetext line, blank line)
    /// and returns its length in bytes.
    ///
    /// # Errors
    ///
    /// Only errors of `out`.
    pub fn write_game(&mut self, out: &mut impl Write) -> io::Result<usize> {
        let back_rank = BackRank::from_scharnagl(self.rng.random_range(0..960))
            .expect("0..960 are Scharnagl numbers");
        let fen = back_rank.to_xfen();
        let ending = self.play(&fen);
        self.write_tags(&fen, &ending);
        self.game.push_str(&self.movetext);
        self.game.push_str(ending.result);
        self.game.push_str("\n\n");
        out.write_all(self.game.as_bytes())?;
        Ok(self.game.len())
    }

    /// Plays 20 to 120 random legal plies from `fen` into `self.movetext`
    /// (without the result) and says how the game ended.
    fn play(&mut self, fen: &str) -> Ending {
        let mut pos: Chess = Fen::from_ascii(fen.as_bytes())
            .expect("BackRank::to_xfen writes a valid FEN")
            .into_position(CastlingMode::Chess960)
            .expect("a Chess960 start array is a legal position");
        let plies = self.rng.random_range(20..=120);
        let mut clocks = [START_CLOCK; 2];
        self.movetext.clear();
        for ply in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break; // mate or stalemate, decided below
            }
            let mover = pos.turn();
            // Lichess shows the clock after each move; the first move of
            // each side is not timed.
            let spent = if ply < 2 {
                0
            } else {
                self.rng.random_range(0..=8)
            };
            let clock = &mut clocks[usize::from(mover == Color::Black)];
            if *clock <= spent {
                return Ending {
                    result: win(!mover),
                    termination: "Time forfeit",
                };
            }
            *clock -= spent;
            let m = moves[self.rng.random_range(0..moves.len())];
            let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
            let number = ply / 2 + 1;
            let dots = if mover == Color::White { "." } else { "..." };
            let (h, min, s) = (*clock / 3600, *clock / 60 % 60, *clock % 60);
            write!(
                self.movetext,
                "{number}{dots} {san} {{ [%clk {h}:{min:02}:{s:02}] }} "
            )
            .expect("writing to a String cannot fail");
            if pos.is_insufficient_material() {
                break;
            }
        }
        if pos.is_checkmate() {
            Ending {
                result: win(!pos.turn()),
                termination: "Normal",
            }
        } else if pos.is_stalemate() || pos.is_insufficient_material() {
            Ending {
                result: "1/2-1/2",
                termination: "Normal",
            }
        } else {
            // A resignation or an agreed draw.
            let result = match self.rng.random_range(0..20) {
                0..9 => "1-0",
                9..18 => "0-1",
                _ => "1/2-1/2",
            };
            Ending {
                result,
                termination: "Normal",
            }
        }
    }

    fn write_tags(&mut self, fen: &str, ending: &Ending) {
        let site: String = (0..8)
            .map(|_| char::from(ID_CHARS[self.rng.random_range(0..ID_CHARS.len())]))
            .collect();
        let (month, day) = (self.rng.random_range(1..=12), self.rng.random_range(1..=28));
        let (hour, minute, second) = (
            self.rng.random_range(0..24),
            self.rng.random_range(0..60),
            self.rng.random_range(0..60),
        );
        let white = self.name();
        let black = self.name();
        let white_elo: i32 = self.rng.random_range(1100..=2600);
        let black_elo: i32 = (white_elo + self.rng.random_range(-150..=150)).max(600);
        let swing: i32 = self.rng.random_range(3..=9);
        let white_diff = match ending.result {
            "1-0" => swing,
            "0-1" => -swing,
            _ => (black_elo - white_elo) / 100,
        };
        let black_diff = -white_diff;
        let result = ending.result;
        let termination = ending.termination;
        let game = &mut self.game;
        game.clear();
        write!(
            game,
            "[Event \"Rated Blitz game\"]\n\
             [Site \"https://lichess.org/{site}\"]\n\
             [Date \"2024.{month:02}.{day:02}\"]\n\
             [Round \"-\"]\n\
             [White \"{white}\"]\n\
             [Black \"{black}\"]\n\
             [Result \"{result}\"]\n\
             [UTCDate \"2024.{month:02}.{day:02}\"]\n\
             [UTCTime \"{hour:02}:{minute:02}:{second:02}\"]\n\
             [WhiteElo \"{white_elo}\"]\n\
             [BlackElo \"{black_elo}\"]\n\
             [WhiteRatingDiff \"{white_diff:+}\"]\n\
             [BlackRatingDiff \"{black_diff:+}\"]\n\
             [Variant \"Chess960\"]\n\
             [TimeControl \"180+0\"]\n\
             [ECO \"?\"]\n\
             [Termination \"{termination}\"]\n\
             [FEN \"{fen}\"]\n\
             [SetUp \"1\"]\n\
             \n"
        )
        .expect("writing to a String cannot fail");
    }

    fn name(&mut self) -> String {
        let head = NAME_HEADS[self.rng.random_range(0..NAME_HEADS.len())];
        let tail = NAME_TAILS[self.rng.random_range(0..NAME_TAILS.len())];
        match self.rng.random_range(0..3) {
            0 => format!("{head}{tail}"),
            _ => format!("{head}{tail}{}", self.rng.random_range(1..2000)),
        }
    }
}

fn win(winner: Color) -> &'static str {
    match winner {
        Color::White => "1-0",
        Color::Black => "0-1",
    }
}
