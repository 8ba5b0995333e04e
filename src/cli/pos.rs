//! `pgn960 pos`: one start position by number, optionally worked out by hand.

use std::io::{self, Write};

use anyhow::bail;
use pgn960::BackRank;
use shakmaty::Role;

use super::EXIT_OK;

/// Show the start position with a given number.
///
/// N is a Scharnagl number, 0-959; 960 is accepted as another name for 0
/// (for numberings that run 1-960). With --fritz9, N is a Fritz9 number,
/// 1-960. Prints one "label: value" line each for the back rank, both
/// numbers, X-FEN and Shredder-FEN.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  $ pgn960 pos 518
  position: RNBQKBNR
  scharnagl: 518
  fritz9: 359
  xfen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
  shredder_fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1
  $ pgn960 pos --fritz9 359          # the same position
  $ pgn960 pos 518 --explain         # the derivation, step by step")]
pub struct Args {
    /// The position's number (Scharnagl, or Fritz9 with --fritz9).
    // Taken as text so that `-1`, `961` and `abc` all get the same one-line
    // error from `resolve` instead of clap's usage message.
    #[arg(value_name = "N", allow_hyphen_values = true)]
    n: String,

    /// Read N as a Fritz9 number (1-960).
    #[arg(long)]
    fritz9: bool,

    /// Also print how both numbers lead to the position, step by step, as
    /// in Scharnagl's direct derivation and the Fritz9 method.
    #[arg(long)]
    explain: bool,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let rank = resolve(&args.n, args.fritz9)?;

    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    write_fields(&mut out, rank)?;
    if args.explain {
        writeln!(out)?;
        explain_scharnagl(&mut out, rank)?;
        writeln!(out)?;
        explain_fritz9(&mut out, rank)?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}

/// The position's fields, one `label: value` line each; `draw` prints
/// the same ones.
pub(super) fn write_fields(out: &mut impl Write, rank: BackRank) -> io::Result<()> {
    writeln!(out, "position: {rank}")?;
    writeln!(out, "scharnagl: {}", rank.scharnagl())?;
    writeln!(out, "fritz9: {}", rank.fritz9())?;
    writeln!(out, "xfen: {}", rank.to_xfen())?;
    writeln!(out, "shredder_fen: {}", rank.to_shredder_fen())
}

/// Reads N as a number of the chosen numbering.
fn resolve(n: &str, fritz9: bool) -> anyhow::Result<BackRank> {
    let Ok(number) = n.parse::<i128>() else {
        bail!("pos: {n:?} is not a number");
    };
    if fritz9 {
        match u32::try_from(number).map(BackRank::from_fritz9) {
            Ok(Ok(rank)) => Ok(rank),
            _ => bail!("pos: {number} is not a Fritz9 number (1-960)"),
        }
    } else {
        // 960 is 0 for those who number 1-960 (the seed: "dividing by 960
        // and working with the remainder").
        match u32::try_from(number).map(|id| BackRank::from_scharnagl(id % 960)) {
            Ok(Ok(rank)) if number <= 960 => Ok(rank),
            _ => bail!("pos: {number} is not a Scharnagl number (0-959, or 960 for 0)"),
        }
    }
}

const LIGHT_FILES: [char; 4] = ['b', 'd', 'f', 'h'];
const DARK_FILES: [char; 4] = ['a', 'c', 'e', 'g'];
const FILES: [char; 8] = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

/// Scharnagl's direct derivation, steps a) to e), each with the back rank
/// as it stands after it (also `draw --coins`, whose number it places).
///
/// The arithmetic is done here, as a person would do it; the squares come
/// from the finished back rank, so what is shown is what the library built.
pub(super) fn explain_scharnagl(out: &mut impl Write, rank: BackRank) -> io::Result<()> {
    let roles = rank.roles();
    let id = rank.scharnagl();
    let (q1, light) = (id / 4, id % 4);
    let (q2, dark) = (q1 / 4, q1 % 4);
    let (n5n, queen) = (q2 / 6, q2 % 6);
    let light_file = LIGHT_FILES[usize::from(light)];
    let dark_file = DARK_FILES[usize::from(dark)];

    writeln!(out, "Scharnagl {id}, step by step:")?;
    writeln!(
        out,
        "  a) {}  {id} / 4 = {q1} remainder {light}: light-square bishop on {light_file} (0=b 1=d 2=f 3=h)",
        shown(roles, |file, role| role == Role::Bishop
            && FILES[file] == light_file),
    )?;
    writeln!(
        out,
        "  b) {}  {q1} / 4 = {q2} remainder {dark}: dark-square bishop on {dark_file} (0=a 1=c 2=e 3=g)",
        shown(roles, |_, role| role == Role::Bishop),
    )?;
    let free = files_where(roles, |role| role != Role::Bishop);
    writeln!(
        out,
        "  c) {}  {q2} / 6 = {n5n} remainder {queen}: queen on free square {queen} of {free} (from 0): {}",
        shown(roles, |_, role| matches!(role, Role::Bishop | Role::Queen)),
        files_where(roles, |role| role == Role::Queen),
    )?;
    let free = files_where(roles, |role| !matches!(role, Role::Bishop | Role::Queen));
    writeln!(
        out,
        "  d) {}  {n5n} is the N5N code, {} on the free squares {free}: knights on {}",
        shown(roles, |_, role| matches!(
            role,
            Role::Bishop | Role::Queen | Role::Knight
        )),
        pattern(roles, |role| !matches!(role, Role::Bishop | Role::Queen)),
        files_where(roles, |role| role == Role::Knight).replace(' ', " and "),
    )?;
    writeln!(
        out,
        "  e) {rank}  rook, king, rook on the three squares left, {}",
        files_where(roles, |role| matches!(role, Role::Rook | Role::King)),
    )?;
    writeln!(
        out,
        "  check: {light} + 4*{dark} + 16*{queen} + 96*{n5n} = {id}"
    )
}

/// The Fritz9 method: bishops, then knights on the six squares left, then
/// the queen on the four squares left, then rook, king, rook.
fn explain_fritz9(out: &mut impl Write, rank: BackRank) -> io::Result<()> {
    let roles = rank.roles();
    let id = rank.fritz9();
    let n = id - 1;
    let (q1, bishops) = (n / 16, n % 16);
    let (queen, knights) = (q1 / 15, q1 % 15);
    let (light, dark) = (bishops % 4, bishops / 4);
    let light_file = LIGHT_FILES[usize::from(light)];
    let dark_file = DARK_FILES[usize::from(dark)];

    writeln!(out, "Fritz9 {id}, step by step:")?;
    writeln!(
        out,
        "  a) {}  ({id} - 1) / 16 = {q1} remainder {bishops}: bishop code {bishops} = {light} + 4*{dark}: \
         bishops on {light_file} (light) and {dark_file} (dark)",
        shown(roles, |_, role| role == Role::Bishop),
    )?;
    let free = files_where(roles, |role| role != Role::Bishop);
    writeln!(
        out,
        "  b) {}  {q1} / 15 = {queen} remainder {knights}: knight code {knights}, {} on the free squares {free}: knights on {}",
        shown(roles, |_, role| matches!(role, Role::Bishop | Role::Knight)),
        pattern(roles, |role| role != Role::Bishop),
        files_where(roles, |role| role == Role::Knight).replace(' ', " and "),
    )?;
    let free = files_where(roles, |role| !matches!(role, Role::Bishop | Role::Knight));
    writeln!(
        out,
        "  c) {}  {queen} is the queen's place among the free squares {free} (from 0): {}",
        shown(roles, |_, role| matches!(
            role,
            Role::Bishop | Role::Knight | Role::Queen
        )),
        files_where(roles, |role| role == Role::Queen),
    )?;
    writeln!(
        out,
        "  d) {rank}  rook, king, rook on the three squares left, {}",
        files_where(roles, |role| matches!(role, Role::Rook | Role::King)),
    )?;
    writeln!(
        out,
        "  check: 1 + {bishops} + 16*{knights} + 240*{queen} = {id}"
    )
}

/// The back rank with only the pieces placed so far, `-` elsewhere.
fn shown(roles: [Role; 8], placed: impl Fn(usize, Role) -> bool) -> String {
    roles
        .into_iter()
        .enumerate()
        .map(|(file, role)| {
            if placed(file, role) {
                role.upper_char()
            } else {
                '-'
            }
        })
        .collect()
}

/// The files (as letters, space separated) whose role passes `wanted`.
fn files_where(roles: [Role; 8], wanted: impl Fn(Role) -> bool) -> String {
    let files: Vec<String> = roles
        .into_iter()
        .zip(FILES)
        .filter(|&(role, _)| wanted(role))
        .map(|(_, file)| file.to_string())
        .collect();
    files.join(" ")
}

/// The knights' pattern (`-N-N-`) over the squares that pass `free`.
fn pattern(roles: [Role; 8], free: impl Fn(Role) -> bool) -> String {
    roles
        .into_iter()
        .filter(|&role| free(role))
        .map(|role| if role == Role::Knight { 'N' } else { '-' })
        .collect()
}
