"""python-chess reading every game of a PGN file: the baseline for the
`validate-python-chess` case of benches/throughput.rs.

read_game parses each game's tags and replays its moves on a board of the
game's variant (Chess960 from the Variant tag), as `pgn960 validate` does.
"""

import sys

import chess.pgn


def main(path: str) -> None:
    games = 0
    with open(path, encoding="utf-8", errors="replace") as pgn:
        while chess.pgn.read_game(pgn) is not None:
            games += 1
    print(games)


if __name__ == "__main__":
    main(sys.argv[1])
