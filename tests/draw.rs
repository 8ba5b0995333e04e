//! `pgn960 draw`: positions drawn by hand with a die or coins, checked
//! against a by-hand reading of the method, the seed's tables and
//! shakmaty's `Board::chess960`, and run as an arbiter would run it.

use std::collections::HashMap;

use assert_cmd::Command;
use pgn960::BackRank;
use pgn960::draw::{Coin, CoinDraw, DieDraw, DrawError};
use shakmaty::Board;

use crate::cli_position::{Run, ok, pgn960};
use crate::numbering::SeedTables;

/// The die method read straight from the issue, on letters: bishops by
/// file (1-4 = a c e g, then b d f h), then queen, knight, knight on the
/// n-th empty square from the a-file, then R, K, R on the three left.
fn by_hand(faces: [u8; 5]) -> String {
    let mut rank = ['-'; 8];
    rank[2 * usize::from(faces[0] - 1)] = 'B';
    rank[2 * usize::from(faces[1] - 1) + 1] = 'B';
    for (letter, face) in [('Q', faces[2]), ('N', faces[3]), ('N', faces[4])] {
        let empty: Vec<usize> = (0..8).filter(|&file| rank[file] == '-').collect();
        rank[empty[usize::from(face - 1)]] = letter;
    }
    for letter in ['R', 'K', 'R'] {
        let file = rank.iter().position(|&square| square == '-');
        rank[file.expect("three squares are left")] = letter;
    }
    rank.iter().collect()
}

/// Every sequence of five throws without a re-roll: 4 * 4 * 6 * 5 * 4.
fn all_die_sequences() -> Vec<[u8; 5]> {
    let mut sequences = Vec::new();
    for dark in 1..=4 {
        for light in 1..=4 {
            for queen in 1..=6 {
                for knight in 1..=5 {
                    for other in 1..=4 {
                        sequences.push([dark, light, queen, knight, other]);
                    }
                }
            }
        }
    }
    sequences
}

/// Ten flips reading `number`, highest bit first.
fn flips(number: u16) -> String {
    (0..10)
        .rev()
        .map(|bit| if number >> bit & 1 == 1 { 'H' } else { 'T' })
        .collect()
}

/// Runs `pgn960 draw` with `args` and `stdin` piped in.
fn draw_with_stdin(args: &[&str], stdin: &str) -> Run {
    let output = Command::cargo_bin("pgn960")
        .expect("the pgn960 binary is built")
        .arg("draw")
        .args(args)
        .write_stdin(stdin)
        .output()
        .expect("pgn960 runs");
    Run {
        code: output.status.code().expect("pgn960 exits, not killed"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// `pgn960 draw ARGS`, which must succeed quietly.
fn draw(args: &[&str]) -> String {
    ok(&[&["draw"], args].concat())
}

/// The first five lines of `draw` (the fields), which must be `pos N`'s.
fn fields(stdout: &str) -> String {
    stdout
        .lines()
        .take(5)
        .map(|line| format!("{line}\n"))
        .collect()
}

#[test]
fn every_position_is_drawn_by_exactly_two_die_sequences() {
    let seed = SeedTables::load().all_numbers();
    let mut drawn: HashMap<BackRank, Vec<[u8; 5]>> = HashMap::new();
    for faces in all_die_sequences() {
        let draw = DieDraw::from_faces(&faces).unwrap_or_else(|err| panic!("{faces:?}: {err}"));
        let rank = draw.rank();
        let arrangement = rank.to_string();
        assert_eq!(arrangement, by_hand(faces), "{faces:?}");
        let (scharnagl, fritz9) = seed[&arrangement];
        assert_eq!(
            (rank.scharnagl(), rank.fritz9()),
            (scharnagl, fritz9),
            "{arrangement}"
        );
        assert_eq!(
            rank.board(),
            Board::chess960(u32::from(scharnagl)),
            "{faces:?}"
        );
        assert_eq!(draw.faces(), faces);
        assert_eq!(draw.reroll_count(), 0);
        drawn.entry(rank).or_default().push(faces);
    }
    // 1920 sequences, each of the 960 positions twice: all equally likely.
    assert_eq!(drawn.len(), 960);
    for rank in BackRank::all() {
        let mut sequences = drawn[&rank].clone();
        sequences.sort();
        let mut inverse = DieDraw::faces_for(rank).to_vec();
        inverse.sort();
        assert_eq!(sequences, inverse, "{rank}");
        // The knights in either order, nothing else.
        let [first, second] = DieDraw::faces_for(rank);
        assert_eq!(first[..3], second[..3], "{rank}");
        assert_ne!(first, second, "{rank}");
    }
}

#[test]
fn every_position_is_drawn_by_its_coin_flips() {
    let seed = SeedTables::load().all_numbers();
    let by_number: HashMap<u16, &String> = seed
        .iter()
        .map(|(arrangement, &(scharnagl, _))| (scharnagl, arrangement))
        .collect();
    for number in 0..1024u16 {
        let word = flips(number);
        let result = CoinDraw::parse(&[&word]);
        if number >= 960 {
            assert_eq!(
                result,
                Err(DrawError::TooFewFlips {
                    given: 0,
                    rejected: vec![number]
                }),
                "{word}"
            );
            continue;
        }
        let draw = result.unwrap_or_else(|err| panic!("{word}: {err}"));
        let rank = draw.rank();
        assert_eq!(&rank.to_string(), by_number[&number], "{word}");
        assert_eq!(rank.board(), Board::chess960(u32::from(number)), "{word}");
        assert_eq!(draw.scharnagl(), number);
        let inverse: String = CoinDraw::flips_for(rank)
            .iter()
            .map(Coin::to_string)
            .collect();
        assert_eq!(inverse, word);
        // Lower case and spaced the same; after any number from 960 up,
        // the next ten flips decide.
        let spaced = format!("{} {}", word[..5].to_lowercase(), &word[5..]);
        assert_eq!(CoinDraw::parse(&[&spaced]).map(|d| d.rank()), Ok(rank));
        let reflipped = CoinDraw::parse(&[flips(960 + number % 64), word])
            .unwrap_or_else(|err| panic!("{number}: {err}"));
        assert_eq!(reflipped.rank(), rank);
        assert_eq!(reflipped.numbers()[0].value, 960 + number % 64);
    }
}

#[test]
fn the_standard_position_from_both_die_sequences() {
    let standard = ok(&["pos", "518"]);
    for sequence in [["2", "3", "3", "2", "3"], ["2", "3", "3", "4", "2"]] {
        let stdout = draw(&[&["--die"][..], &sequence].concat());
        assert_eq!(fields(&stdout), standard, "{sequence:?}");
        assert!(stdout.ends_with(&format!("  throws: {} (0 re-rolls)\n", sequence.join(" "))));
    }
    let stdout = draw(&["--die", "2", "3", "3", "4", "2"]);
    assert!(
        stdout.contains("  4) --BQ-BN-  knight: threw 4 -> g1 (free: a b e g h)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  5) -NBQ-BN-  other knight: threw 2 -> b1 (free: a b e h)\n"),
        "{stdout}"
    );
}

#[test]
fn the_issue_example_prints_every_step() {
    assert_eq!(
        draw(&["--die", "5", "2", "3", "3", "2", "3"]),
        "position: RNBQKBNR\n\
         scharnagl: 518\n\
         fritz9: 359\n\
         xfen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
         shredder_fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1\n\
         \n\
         Die, step by step:\n\
         \x20 1) --B-----  dark-square bishop: threw 5 (re-roll), threw 2 -> c1 (free: a c e g)\n\
         \x20 2) --B--B--  light-square bishop: threw 3 -> f1 (free: b d f h)\n\
         \x20 3) --BQ-B--  queen: threw 3 -> d1 (free: a b d e g h)\n\
         \x20 4) -NBQ-B--  knight: threw 2 -> b1 (free: a b e g h)\n\
         \x20 5) -NBQ-BN-  other knight: threw 3 -> g1 (free: a e g h)\n\
         \x20 6) RNBQKBNR  rook, king, rook on the three squares left: a1 e1 h1\n\
         \x20 throws: 5 2 3 3 2 3 (1 re-roll)\n"
    );
}

#[test]
fn rerolls_are_shown_where_they_were_thrown() {
    // Every face above each piece's range, before the throw that counts.
    let stdout = draw(&[
        "--die", "5", "6", "2", "6", "5", "3", "3", "6", "2", "5", "6", "3",
    ]);
    assert_eq!(fields(&stdout), ok(&["pos", "518"]));
    for line in [
        "dark-square bishop: threw 5 (re-roll), threw 6 (re-roll), threw 2 -> c1",
        "light-square bishop: threw 6 (re-roll), threw 5 (re-roll), threw 3 -> f1",
        "queen: threw 3 -> d1",
        "  4) -NBQ-B--  knight: threw 6 (re-roll), threw 2 -> b1",
        "other knight: threw 5 (re-roll), threw 6 (re-roll), threw 3 -> g1",
        "  throws: 5 6 2 6 5 3 3 6 2 5 6 3 (7 re-rolls)\n",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in\n{stdout}");
    }
    // Several words, or one word with spaces in it, are the same throws.
    assert_eq!(
        draw(&["--die", "5 2", "3 3 2 3"]),
        draw(&["--die", "5", "2", "3", "3", "2", "3"])
    );
}

#[test]
fn coins_show_each_number_and_the_derivation() {
    let stdout = draw(&["--coins", "HHHHTTTTTT", "htthhthtth"]);
    assert_eq!(fields(&stdout), ok(&["pos", "617"]));
    let explained = ok(&["pos", "617", "--explain"]);
    let scharnagl_part = explained
        .split("\n\n")
        .nth(1)
        .expect("pos --explain has the Scharnagl derivation");
    assert_eq!(
        &stdout[fields(&stdout).len()..],
        format!(
            "\nCoins, step by step:\n\
             \x20 flips 1-10: HHHHTTTTTT = binary 1111000000 = 960: 960 or more, so ten more flips\n\
             \x20 flips 11-20: HTTHHTHTTH = binary 1001101001 = 617: the Scharnagl number\n\
             \n{scharnagl_part}\n"
        )
    );
    assert_eq!(
        draw(&["--coins", "H", "T", "T", "H", "H", "T", "H", "T", "T", "H"]),
        draw(&["--coins", "HTTHHTHTTH"])
    );
}

#[test]
fn a_handful_of_positions_through_the_binary() {
    for number in [0, 1, 95, 96, 191, 359, 518, 617, 700, 863, 958, 959] {
        let rank = BackRank::from_scharnagl(number).expect("below 960");
        let expected = ok(&["pos", &number.to_string()]);
        for faces in DieDraw::faces_for(rank) {
            let faces: Vec<String> = faces.iter().map(u8::to_string).collect();
            let args: Vec<&str> = ["--die"]
                .into_iter()
                .chain(faces.iter().map(String::as_str))
                .collect();
            assert_eq!(fields(&draw(&args)), expected, "{number}: {faces:?}");
        }
        let word: String = CoinDraw::flips_for(rank)
            .iter()
            .map(Coin::to_string)
            .collect();
        assert_eq!(word, flips(number as u16));
        assert_eq!(fields(&draw(&["--coins", &word])), expected, "{number}");
    }
}

#[test]
fn each_refusal_is_one_line_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--die"],
            "pgn960: draw: too few throws: the dark-square bishop needs a throw \
             (1-4 count, re-roll 5 and 6); 0 throws given\n",
        ),
        (
            &["--die", "2", "5", "6"],
            "pgn960: draw: too few throws: the light-square bishop needs a throw \
             (1-4 count, re-roll 5 and 6); 3 throws given\n",
        ),
        (
            &["--die", "2", "3"],
            "pgn960: draw: too few throws: the queen needs a throw (1-6 count); 2 throws given\n",
        ),
        (
            &["--die", "2", "3", "3", "6"],
            "pgn960: draw: too few throws: the knight needs a throw (1-5 count, re-roll 6); \
             4 throws given\n",
        ),
        (
            &["--die", "2", "3", "3", "2"],
            "pgn960: draw: too few throws: the other knight needs a throw \
             (1-4 count, re-roll 5 and 6); 4 throws given\n",
        ),
        (
            &["--die", "2", "3", "3", "2", "3", "4", "5"],
            "pgn960: draw: 2 throws left over after the position was complete: 4 5\n",
        ),
        (
            &["--die", "2", "3", "3", "2", "6", "3", "1"],
            "pgn960: draw: 1 throw left over after the position was complete: 1\n",
        ),
        (
            &["--die", "7"],
            "pgn960: draw: \"7\" is not a die face (1-6)\n",
        ),
        (
            &["--die", "0"],
            "pgn960: draw: \"0\" is not a die face (1-6)\n",
        ),
        (
            &["--die", "-1"],
            "pgn960: draw: \"-1\" is not a die face (1-6)\n",
        ),
        (
            &["--die", "2", "3", "3", "2", "3", "x"],
            "pgn960: draw: \"x\" is not a die face (1-6)\n",
        ),
        (
            &["--die", "23"],
            "pgn960: draw: \"23\" is not a die face (1-6)\n",
        ),
        (
            &["--coins"],
            "pgn960: draw: too few flips: flips 1-10 make the number (H or T); 0 given\n",
        ),
        (
            &["--coins", "HTH", "T"],
            "pgn960: draw: too few flips: flips 1-10 make the number (H or T); 4 given\n",
        ),
        (
            &["--coins", "HHHHHHHHHH"],
            "pgn960: draw: too few flips: flips 1-10 read 1023, 960 or more, \
             so flips 11-20 make the number (H or T); 0 given\n",
        ),
        (
            &["--coins", "TTTTTTTTTT", "hT"],
            "pgn960: draw: 2 flips left over after the number was read: HT\n",
        ),
        (
            &["--coins", "HTX"],
            "pgn960: draw: 'X' in \"HTX\" is not a flip (H or T, either case)\n",
        ),
        (
            &["--coins", "1"],
            "pgn960: draw: '1' is not a flip (H or T, either case)\n",
        ),
        (
            &[],
            "pgn960: the following required arguments were not provided: \
             <--die [<ROLL>...]|--coins [<FLIPS>...]> (see --help)\n",
        ),
        (
            &["--die", "2", "--coins", "H"],
            "pgn960: the argument '--die [<ROLL>...]' cannot be used with \
             '--coins [<FLIPS>...]' (see --help)\n",
        ),
    ];
    for (args, message) in cases {
        let run = pgn960(&[&["draw"], *args].concat());
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (2, "", *message),
            "pgn960 draw {args:?}"
        );
    }
}

#[test]
fn no_throws_and_no_terminal_is_too_few_throws_without_reading_stdin() {
    // Throws piped in are not read: only a person at a terminal is asked.
    let run = draw_with_stdin(&["--die"], "2 3 3 2 3\n");
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            2,
            "",
            "pgn960: draw: too few throws: the dark-square bishop needs a throw \
             (1-4 count, re-roll 5 and 6); 0 throws given\n"
        )
    );
    let run = draw_with_stdin(&["--coins"], "HTTHHTHTTH\n");
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            2,
            "",
            "pgn960: draw: too few flips: flips 1-10 make the number (H or T); 0 given\n"
        )
    );
}

#[test]
fn help_shows_the_real_output() {
    let help = ok(&["draw", "--help"]);
    let example: String = draw(&["--die", "5", "2", "3", "3", "2", "3"])
        .lines()
        .map(|line| {
            if line.is_empty() {
                "\n".to_owned()
            } else {
                format!("  {line}\n")
            }
        })
        .collect();
    assert!(
        help.contains(&format!("  $ pgn960 draw --die 5 2 3 3 2 3\n{example}")),
        "{help}"
    );
}
