//! `pgn960 draw`: the position an arbiter drew by hand, with a die or coins,
//! worked out step by step so that the draw can be checked; with no throws
//! on a terminal, it asks for them one at a time.

use std::io::{self, BufRead, IsTerminal, Write};

use anyhow::Context;
use clap::ArgGroup;
use pgn960::draw::{
    CoinDraw, CoinDrawer, CoinFlip, DieDraw, DieDrawer, DieThrow, DrawError, parse_face,
    parse_flips,
};
use shakmaty::{File, Role};

use super::EXIT_OK;
use super::pos::{explain_scharnagl, write_fields};

/// Turn die throws or coin flips made by hand into the start position.
///
/// With --die, one piece at a time, each square counted from the a-file:
/// the dark-square bishop (1-4 = a c e g; re-roll 5 and 6), the
/// light-square bishop (1-4 = b d f h; re-roll 5 and 6), the queen on the
/// n-th empty square (1-6), a knight on the n-th of the five empty squares
/// (re-roll 6), the other knight on the n-th of the four left (re-roll 5
/// and 6); rook, king, rook fill the last three squares. Give every throw
/// as thrown, re-rolls included.
///
/// With --coins, ten flips (heads = 1, the first flip the highest bit) make
/// a number 0-1023, the Scharnagl number; from 960 up, the next ten flips
/// make a fresh number, read the same way. Flips are H or T in either case,
/// as one word or several.
///
/// Prints the fields of `pgn960 pos`, then every step. With --die or
/// --coins and nothing after it, on a terminal, asks for each throw in
/// turn. Too few throws, throws left over, or a throw that is not a die
/// face or a flip: a one-line error, exit 2.
#[derive(clap::Args, Debug)]
#[command(
    group(ArgGroup::new("method").required(true).args(["die", "coins"])),
    after_help = "\
Examples:
  $ pgn960 draw --die 5 2 3 3 2 3
  position: RNBQKBNR
  scharnagl: 518
  fritz9: 359
  xfen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
  shredder_fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1

  Die, step by step:
    1) --B-----  dark-square bishop: threw 5 (re-roll), threw 2 -> c1 (free: a c e g)
    2) --B--B--  light-square bishop: threw 3 -> f1 (free: b d f h)
    3) --BQ-B--  queen: threw 3 -> d1 (free: a b d e g h)
    4) -NBQ-B--  knight: threw 2 -> b1 (free: a b e g h)
    5) -NBQ-BN-  other knight: threw 3 -> g1 (free: a e g h)
    6) RNBQKBNR  rook, king, rook on the three squares left: a1 e1 h1
    throws: 5 2 3 3 2 3 (1 re-roll)
  $ pgn960 draw --die 2 3 3 4 2           # the same position, knights the other way
  $ pgn960 draw --coins HTTHHTHTTH        # 617
  $ pgn960 draw --coins HHHHTTTTTT htthhthtth   # 960 or more: flipped again, 617
  $ pgn960 draw --die                     # on a terminal: asks for each throw")]
pub struct Args {
    /// Die throws, 1-6, in the order thrown, re-rolls included.
    #[arg(long, value_name = "ROLL", num_args = 0.., allow_negative_numbers = true)]
    die: Option<Vec<String>>,

    /// Coin flips, H or T (either case), as one word or several: ten make
    /// a number; from 960 up, ten more.
    #[arg(long, value_name = "FLIPS", num_args = 0..)]
    coins: Option<Vec<String>>,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    // Asks only a person: a pipe or file with no throws is too few throws.
    let ask = args
        .die
        .as_ref()
        .or(args.coins.as_ref())
        .is_some_and(Vec::is_empty)
        && io::stdin().is_terminal();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    if let Some(words) = args.die {
        let draw = if ask {
            ask_die(&mut io::stdin().lock(), &mut io::stderr())?
        } else {
            DieDraw::parse(&words).context("draw")?
        };
        write_die(&mut out, &draw)?;
    } else if let Some(words) = args.coins {
        let draw = if ask {
            ask_coins(&mut io::stdin().lock(), &mut io::stderr())?
        } else {
            CoinDraw::parse(&words).context("draw")?
        };
        write_coins(&mut out, &draw)?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}

/// The position's fields, then each piece the die placed.
fn write_die(out: &mut impl Write, draw: &DieDraw) -> io::Result<()> {
    write_fields(out, draw.rank())?;
    writeln!(out)?;
    writeln!(out, "Die, step by step:")?;
    let mut squares = [None; 8];
    for (number, step) in draw.steps().iter().enumerate() {
        squares[step.file.to_usize()] = Some(step.piece);
        let board: String = squares
            .iter()
            .zip(draw.rank().roles())
            .map(|(placed, role)| placed.map_or('-', |_| role.upper_char()))
            .collect();
        let rerolls: String = step
            .rerolls
            .iter()
            .map(|face| format!("threw {face} (re-roll), "))
            .collect();
        writeln!(
            out,
            "  {}) {board}  {}: {rerolls}threw {} -> {}1 (free: {})",
            number + 1,
            step.piece,
            step.face,
            step.file,
            files(&step.free),
        )?;
    }
    let [rook, king, other_rook] = draw.rook_king_rook();
    writeln!(
        out,
        "  {}) {}  rook, king, rook on the three squares left: {rook}1 {king}1 {other_rook}1",
        draw.steps().len() + 1,
        draw.rank(),
    )?;
    let faces: Vec<String> = draw.faces().iter().map(u8::to_string).collect();
    let rerolls = match draw.reroll_count() {
        1 => "1 re-roll".to_owned(),
        count => format!("{count} re-rolls"),
    };
    writeln!(out, "  throws: {} ({rerolls})", faces.join(" "))
}

/// The position's fields, each number the flips read, then how the last
/// one places the pieces.
fn write_coins(out: &mut impl Write, draw: &CoinDraw) -> io::Result<()> {
    write_fields(out, draw.rank())?;
    writeln!(out)?;
    writeln!(out, "Coins, step by step:")?;
    for (index, number) in draw.numbers().iter().enumerate() {
        let first = 10 * index + 1;
        writeln!(
            out,
            "  flips {first}-{}: {} = binary {} = {}: {}",
            first + 9,
            number.word(),
            number.binary(),
            number.value,
            if number.counts() {
                "the Scharnagl number"
            } else {
                "960 or more, so ten more flips"
            },
        )?;
    }
    writeln!(out)?;
    explain_scharnagl(out, draw.rank())
}

/// Asks for die throws one piece at a time, saying before each what it
/// places, which face puts it where and which faces are re-rolled.
///
/// A line may hold several throws. A line with something that is not a die
/// face is refused and asked again; the end of input before the last piece
/// is placed is the "too few throws" error, and throws on the last line
/// beyond it are left over.
fn ask_die(input: &mut impl BufRead, prompt: &mut impl Write) -> anyhow::Result<DieDraw> {
    writeln!(
        prompt,
        "Throw the die for each piece in turn (several throws on a line are fine)."
    )?;
    let mut drawer = DieDrawer::new();
    while let Some(piece) = drawer.wants() {
        write!(
            prompt,
            "{piece}: 1-{} = {}",
            piece.counting(),
            files(&drawer.free())
        )?;
        if let Some(rerolled) = piece.rerolled() {
            write!(prompt, ", re-roll {rerolled}")?;
        }
        write!(prompt, ": ")?;
        let Some(line) = read_line(input, prompt)? else {
            return drawer.finish().context("draw");
        };
        let faces = match line
            .split_whitespace()
            .map(parse_face)
            .collect::<Result<Vec<u8>, DrawError>>()
        {
            Ok(faces) => faces,
            Err(err) => {
                writeln!(prompt, "  {err}: throw again")?;
                continue;
            }
        };
        for (index, &face) in faces.iter().enumerate() {
            let Some(piece) = drawer.wants() else {
                let left_over = DrawError::RollsLeftOver(faces[index..].to_vec());
                return Err(anyhow::Error::new(left_over).context("draw"));
            };
            match drawer.throw(face).context("draw")? {
                DieThrow::Reroll => writeln!(prompt, "  {piece}: {face} is a re-roll")?,
                DieThrow::Placed(file) => writeln!(
                    prompt,
                    "  {piece}: {face} -> {file}1  {}",
                    partial_board(drawer.squares())
                )?,
            }
        }
    }
    drawer.finish().context("draw")
}

/// Asks for coin flips until they read a number below 960, saying which
/// flip of its number each one is and what each number came to.
///
/// A line may hold several flips, together or apart. A line with
/// something that is not a flip is refused and asked again; the end of
/// input before the number is read is the "too few flips" error, and flips
/// on the last line beyond it are left over.
fn ask_coins(input: &mut impl BufRead, prompt: &mut impl Write) -> anyhow::Result<CoinDraw> {
    writeln!(
        prompt,
        "Flip a coin ten times: heads (H) = 1, tails (T) = 0, the first flip the highest \
         bit; from 960 up, ten more flips make a fresh number. Several flips on a line are fine."
    )?;
    let mut drawer = CoinDrawer::new();
    while let Some(want) = drawer.wants() {
        match want.rejected {
            0 => write!(prompt, "flip {} of 10, H or T: ", want.flip)?,
            rejected => write!(
                prompt,
                "flip {} of 10 of number {}, H or T: ",
                want.flip,
                rejected + 1
            )?,
        }
        let Some(line) = read_line(input, prompt)? else {
            return drawer.finish().context("draw");
        };
        let mut flips = Vec::new();
        let parsed = line
            .split_whitespace()
            .try_for_each(|word| parse_flips(word).map(|coins| flips.extend(coins)));
        if let Err(err) = parsed {
            writeln!(prompt, "  {err}: flip again")?;
            continue;
        }
        for (index, &coin) in flips.iter().enumerate() {
            if drawer.wants().is_none() {
                let left_over = DrawError::FlipsLeftOver(flips[index..].to_vec());
                return Err(anyhow::Error::new(left_over).context("draw"));
            }
            if let CoinFlip::Number(number) = drawer.flip(coin).context("draw")? {
                let verdict = if number.counts() {
                    "the Scharnagl number"
                } else {
                    "960 or more, flip ten more"
                };
                writeln!(prompt, "  {} = {}: {verdict}", number.word(), number.value)?;
            }
        }
    }
    drawer.finish().context("draw")
}

/// One line of input, or `None` at its end (after ending the prompt's line,
/// so that an error starts on a line of its own).
///
/// A line that is not UTF-8 is read with its bad bytes as `�`, which no
/// throw or flip is: it is refused and asked again, as any typo.
fn read_line(input: &mut impl BufRead, prompt: &mut impl Write) -> io::Result<Option<String>> {
    prompt.flush()?;
    let mut line = Vec::new();
    if input.read_until(b'\n', &mut line)? == 0 {
        writeln!(prompt)?;
        return Ok(None);
    }
    Ok(Some(String::from_utf8_lossy(&line).into_owned()))
}

/// Files as letters, space separated: `a c e g`.
fn files(files: &[File]) -> String {
    let letters: Vec<String> = files.iter().map(File::to_string).collect();
    letters.join(" ")
}

/// A back rank under construction, `-` on the empty squares: `--BQ-B--`.
fn partial_board(squares: [Option<Role>; 8]) -> String {
    squares
        .iter()
        .map(|role| role.map_or('-', Role::upper_char))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `ask` on typed `lines` and returns its result and what it
    /// wrote to the person.
    fn conversation<T>(
        ask: fn(&mut &'static [u8], &mut Vec<u8>) -> anyhow::Result<T>,
        lines: &'static str,
    ) -> (anyhow::Result<T>, String) {
        let mut prompt = Vec::new();
        let result = ask(&mut lines.as_bytes(), &mut prompt);
        (
            result,
            String::from_utf8(prompt).expect("prompts are UTF-8"),
        )
    }

    #[test]
    fn asks_for_each_piece_with_its_squares_and_rerolls() {
        let (draw, prompt) = conversation(ask_die, "5\n2\n3\n3\n2 3\n");
        assert_eq!(draw.expect("a full draw").rank().to_string(), "RNBQKBNR");
        assert_eq!(
            prompt,
            "Throw the die for each piece in turn (several throws on a line are fine).\n\
             dark-square bishop: 1-4 = a c e g, re-roll 5 and 6:   dark-square bishop: 5 is a re-roll\n\
             dark-square bishop: 1-4 = a c e g, re-roll 5 and 6:   dark-square bishop: 2 -> c1  --B-----\n\
             light-square bishop: 1-4 = b d f h, re-roll 5 and 6:   light-square bishop: 3 -> f1  --B--B--\n\
             queen: 1-6 = a b d e g h:   queen: 3 -> d1  --BQ-B--\n\
             knight: 1-5 = a b e g h, re-roll 6:   knight: 2 -> b1  -NBQ-B--\n\
             \x20 other knight: 3 -> g1  -NBQ-BN-\n"
        );
    }

    #[test]
    fn a_typo_is_asked_again_and_the_end_of_input_is_too_few_throws() {
        let (draw, prompt) = conversation(ask_die, "2\nx 3\n\n7\n");
        let err = draw.expect_err("input ends after the first bishop");
        assert_eq!(
            format!("{err:#}"),
            "draw: too few throws: the light-square bishop needs a throw \
             (1-4 count, re-roll 5 and 6); 1 throw given"
        );
        assert!(
            prompt.contains("  \"x\" is not a die face (1-6): throw again\n"),
            "{prompt}"
        );
        assert!(
            prompt.contains("  \"7\" is not a die face (1-6): throw again\n"),
            "{prompt}"
        );
        // A blank line is asked again too; the end of input ends the prompt's line.
        assert_eq!(prompt.matches("light-square bishop: ").count(), 4);
        assert!(prompt.ends_with("re-roll 5 and 6: \n"), "{prompt:?}");
    }

    #[test]
    fn a_line_that_is_not_utf8_is_asked_again() {
        let mut prompt = Vec::new();
        let draw = ask_die(&mut &b"5\n2\n\xff3\n3\n3\n2 3\n"[..], &mut prompt);
        let prompt = String::from_utf8(prompt).expect("prompts are UTF-8");
        assert_eq!(
            draw.expect("the draw goes on").rank().to_string(),
            "RNBQKBNR",
            "{prompt}"
        );
        assert!(
            prompt.contains("  \"\u{fffd}3\" is not a die face (1-6): throw again\n"),
            "{prompt}"
        );
        let mut prompt = Vec::new();
        let draw = ask_coins(&mut &b"\xc3\nTTTTTTTTTT\n"[..], &mut prompt);
        assert_eq!(draw.expect("the draw goes on").scharnagl(), 0);
        let prompt = String::from_utf8(prompt).expect("prompts are UTF-8");
        assert!(prompt.contains(": flip again\n"), "{prompt}");
    }

    #[test]
    fn throws_past_the_last_piece_are_left_over() {
        let (draw, _) = conversation(ask_die, "2 3 3 2 3 4 1\n");
        let err = draw.expect_err("two throws too many");
        assert_eq!(
            format!("{err:#}"),
            "draw: 2 throws left over after the position was complete: 4 1"
        );
    }

    #[test]
    fn asks_for_flips_until_a_number_below_960() {
        let (draw, prompt) = conversation(ask_coins, "HHHH\nTTTTTT\nh t t h h\nthtth\n");
        let draw = draw.expect("a full draw");
        assert_eq!(draw.scharnagl(), 617);
        assert_eq!(draw.numbers()[0].value, 960);
        assert!(
            prompt.contains("flip 1 of 10, H or T: flip 5 of 10, H or T:   HHHHTTTTTT = 960: 960 or more, flip ten more\n"),
            "{prompt}"
        );
        assert!(
            prompt.ends_with(
                "flip 1 of 10 of number 2, H or T: flip 6 of 10 of number 2, H or T:   \
                 HTTHHTHTTH = 617: the Scharnagl number\n"
            ),
            "{prompt}"
        );
    }

    #[test]
    fn coin_typos_are_asked_again_and_leftovers_refused() {
        let (draw, prompt) = conversation(ask_coins, "HTX\nHT\n");
        assert!(
            prompt.contains("  'X' in \"HTX\" is not a flip (H or T, either case): flip again\n"),
            "{prompt}"
        );
        assert_eq!(
            format!("{:#}", draw.expect_err("two flips")),
            "draw: too few flips: flips 1-10 make the number (H or T); 2 given"
        );
        let (draw, _) = conversation(ask_coins, "TTTTTTTTTTT\n");
        assert_eq!(
            format!("{:#}", draw.expect_err("eleven flips")),
            "draw: 1 flip left over after the number was read: T"
        );
    }
}
