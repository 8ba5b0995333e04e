"""python-chess reading every game's tags of a PGN file and skipping its
moves (`chess.pgn.read_headers`), the quickest way python-chess has to
list an archive's games: the baseline of the `python-games-python-chess`
case of benches/throughput.rs.

For each game it finds the start position as a researcher would: the
`FEN` tag when there is one, else the standard start.
"""

import sys

import chess.pgn


def main(path: str) -> None:
    games = 0
    with open(path, encoding="utf-8", errors="replace") as pgn:
        while (headers := chess.pgn.read_headers(pgn)) is not None:
            headers.get("FEN", chess.STARTING_FEN)
            games += 1
    print(games)


if __name__ == "__main__":
    main(sys.argv[1])
