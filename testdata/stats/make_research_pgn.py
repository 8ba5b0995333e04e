#!/usr/bin/env python3
"""Writes research.pgn, the fixture of the tests across positions
(tests/stats_research.rs), to standard output:

    python3 testdata/stats/make_research_pgn.py > testdata/stats/research.pgn

Needs python-chess (pip install chess) for the FENs. Seeded, so the same
file every time. The expected numbers come from reference.py, which reads
the file back on its own.

Games are tags and a result only, in two events, Alpha and Beta, dealt
in turn. Per position:

- 0, 7, 42, 300, 700: 36 games; ratings 2300-2700, one side unrated in
  about one game in ten, about one game in twenty unfinished (`*`);
  White's result drawn from the Elo expectation p: a draw with
  probability 0.3, a White win with probability p - 0.15;
- 518: the same, but White wins with probability p + 0.35 (a planted
  advantage the tests must find);
- 959: 20 games, no ratings at all (no Elo test, but a score);
- 123: 3 games, all unfinished (a row with nothing to test);
- 5: one rated draw.
"""

import random

import chess

RNG = random.Random(17)


def fen(scharnagl):
    return chess.Board.from_chess960_pos(scharnagl).fen()


def expectation(white, black):
    return 1 / (1 + 10 ** ((black - white) / 400))


def game(number, scharnagl, white, black, result):
    event = "Alpha" if number % 2 == 0 else "Beta"
    tags = [
        ("Event", event),
        ("Round", str(number + 1)),
        ("White", f"W{number + 1}"),
        ("Black", f"B{number + 1}"),
        ("Result", result),
    ]
    if white is not None:
        tags.append(("WhiteElo", str(white)))
    if black is not None:
        tags.append(("BlackElo", str(black)))
    tags += [("Variant", "Chess960"), ("FEN", fen(scharnagl))]
    header = "".join(f'[{name} "{value}"]\n' for name, value in tags)
    return f"{header}\n{result}\n\n"


def drawn_result(white, black, advantage):
    if RNG.random() < 0.05:
        return "*"
    p = expectation(white or 2500, black or 2500)
    u = RNG.random()
    if u < 0.3:
        return "1/2-1/2"
    if u < 0.3 + max(0.0, p - 0.15 + advantage):
        return "1-0"
    return "0-1"


def main():
    games = []
    for scharnagl in (0, 7, 42, 300, 518, 700):
        advantage = 0.35 if scharnagl == 518 else 0.0
        for _ in range(36):
            white, black = RNG.randint(2300, 2700), RNG.randint(2300, 2700)
            if RNG.random() < 0.1:
                if RNG.random() < 0.5:
                    white = None
                else:
                    black = None
            games.append((scharnagl, white, black, drawn_result(white, black, advantage)))
    for _ in range(20):
        games.append((959, None, None, drawn_result(None, None, 0.0)))
    games += [(123, 2400, 2400, "*")] * 3
    games.append((5, 2450, 2550, "1/2-1/2"))
    RNG.shuffle(games)
    print("".join(game(i, *g) for i, g in enumerate(games)), end="")


main()
