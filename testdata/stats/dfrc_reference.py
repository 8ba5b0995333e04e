#!/usr/bin/env python3
"""Counts Double FRC games by hand, for `tests/stats_dfrc.rs`.

Reads a PGN archive (plain text) on standard input and writes, as CSV on
standard output, the counts `pgn960 stats --dfrc-pairs/--dfrc-white/
--dfrc-black` must give: for every (White array, Black array) pair, and
for every White array and every Black array alone,

    table,white,black,arrangements,games,white_wins,draws,black_wins,unfinished,
    white_elo_count,white_elo_sum,black_elo_count,black_elo_sum

(`table` is `pairs`, `white` or `black`; a marginal row leaves the other
side's number empty; `arrangements` is the array(s), `/` between two).

Nothing of pgn960 is used: the standard library only. The numbers come
from the seed's own tables (`testdata/seed-tables.csv`: the Scharnagl
King's table and the Bishop's table; number = skeleton's number + bishop
code), so an arrangement is a Chess960 array exactly when the tables
give it a number. A game is a Double FRC game when its last FEN tag's
board is a start position (pawns on ranks 2 and 7, ranks 3 to 6 empty)
whose two back ranks are Chess960 arrays that differ (Black's read from
the a-file, upper-cased), and no Variant tag names another game (every
Variant of the TCEC archive is `fischerandom`). A Result of `1-0`,
`1/2-1/2` or `0-1` (spaces around it ignored) is a result; anything else
is unfinished. A rating is an integer from 1 to 4000. A game whose
result was not played is left out, as `stats` leaves it out: its last
Termination is `abandoned`, `stalled connection`, `rules infraction`,
`illegal move`, `unterminated`, `emergency` or `death` (any case), or it
has none and its TerminationDetails ends in `disconnects` or
`connection stalls` (TCEC's).

`stats` counts each game once: a copy of a game read before (the same
Event, Date, Round, White, Black, Result, start and moves) is left out
before anything else is asked of it. This count reads no moves, so it
asks a coarser question: whether two Double FRC games share those tags
(trimmed, white space folded, lower case) and both arrays. When none do,
no two share a fingerprint either, and every game is counted under both
rules; when some do, the count stops with an error rather than guess
which of them are copies.

Usage: python3 dfrc_reference.py SEED_TABLES.csv < archive.pgn
"""

import csv
import re
import sys
from collections import defaultdict

TAG = re.compile(r'^\[([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')

# Variants that are not Chess960 or chess (a Variant naming one makes the
# game another game, whatever its FEN).
CHESS = {"", "chess960", "chess 960", "fischerandom", "fischerrandom",
         "fischer random", "frc", "960", "standard", "from position", "normal"}


def seed_numbers(path):
    """Every Chess960 arrangement with its Scharnagl number, by the seed's
    table method."""
    skeletons, bishops = [], {}
    with open(path, newline="") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        for row in rows:
            if row["table"] == "scharnagl":
                skeletons.append((int(row["number"]), row["pattern"]))
            elif row["table"] == "bishops":
                bishops[int(row["number"])] = row["pattern"]
    numbers = {}
    for m, skeleton in skeletons:
        for code, pattern in bishops.items():
            pieces = iter(skeleton)
            arrangement = "".join("B" if c == "B" else next(pieces) for c in pattern)
            numbers[arrangement] = m + code
    assert len(numbers) == 960, len(numbers)
    return numbers


def games(lines):
    """Each game's tags, as a list of (name, value): a game starts at a tag
    line after anything but a tag line."""
    tags, in_tags = [], False
    for line in lines:
        match = TAG.match(line.strip())
        if match:
            if not in_tags and tags:
                yield tags
                tags = []
            in_tags = True
            tags.append((match.group(1), match.group(2)))
        elif line.strip():
            in_tags = False
    if tags:
        yield tags


def last(tags, name):
    values = [v for n, v in tags if n == name]
    return values[-1] if values else None


def rating(value):
    if value is None:
        return None
    value = value.strip()
    if not re.fullmatch(r"[0-9]+", value):
        return None
    elo = int(value)
    return elo if 1 <= elo <= 4000 else None


UNPLAYED = {"abandoned", "stalled connection", "rules infraction", "illegal move",
            "unterminated", "emergency", "death"}


def unplayed(tags):
    termination = last(tags, "Termination")
    if termination is not None:
        return termination.strip().lower() in UNPLAYED
    details = (last(tags, "TerminationDetails") or "").strip().lower()
    return details.endswith("disconnects") or details.endswith("connection stalls")


def main():
    numbers = seed_numbers(sys.argv[1])
    text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    counts = defaultdict(lambda: [0] * 9)
    seen = set()
    for tags in games(text.splitlines()):
        variant = (last(tags, "Variant") or "").strip().lower()
        fen = last(tags, "FEN")
        if variant not in CHESS or fen is None:
            continue
        ranks = fen.split()[0].split("/")
        if len(ranks) != 8 or ranks[1] != "pppppppp" or ranks[6] != "PPPPPPPP":
            continue
        if any(r != "8" for r in ranks[2:6]):
            continue
        black_rank, white_rank = ranks[0], ranks[7]
        if not (black_rank.islower() and white_rank.isupper()):
            continue
        white = numbers.get(white_rank)
        black = numbers.get(black_rank.upper())
        if white is None or black is None or white == black:
            continue
        key = tuple(" ".join((last(tags, name) or "").split()).lower()
                    for name in ("Event", "Date", "Round", "White", "Black", "Result"))
        key += (white, black)
        if key in seen:
            sys.exit(f"two Double FRC games share {key}: this count reads no moves, "
                     "so it cannot tell whether one is a copy of the other")
        seen.add(key)
        if unplayed(tags):
            continue
        result = (last(tags, "Result") or "").strip()
        column = {"1-0": 1, "1/2-1/2": 2, "0-1": 3}.get(result, 4)
        white_elo = rating(last(tags, "WhiteElo"))
        black_elo = rating(last(tags, "BlackElo"))
        for key in [("pairs", white, black, f"{white_rank}/{black_rank.upper()}"),
                    ("white", white, "", white_rank),
                    ("black", "", black, black_rank.upper())]:
            row = counts[key]
            row[0] += 1
            row[column] += 1
            if white_elo is not None:
                row[5] += 1
                row[6] += white_elo
            if black_elo is not None:
                row[7] += 1
                row[8] += black_elo
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["table", "white", "black", "arrangements", "games", "white_wins",
                  "draws", "black_wins", "unfinished", "white_elo_count",
                  "white_elo_sum", "black_elo_count", "black_elo_sum"])
    for key in sorted(counts, key=lambda k: (k[0], str(k[1]).zfill(3), str(k[2]).zfill(3))):
        out.writerow(list(key) + counts[key])


if __name__ == "__main__":
    main()
