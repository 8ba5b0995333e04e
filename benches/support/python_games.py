"""pgn960's Python module reading every game of a PGN file into a
pyarrow.Table: the candidate of the `python-games` cases of
benches/throughput.rs (issue 37's targets: within 1.2 times
`pgn960 games --format parquet -o /dev/null`, and at least 100 times as
fast as python-chess's `read_headers` loop, `read_headers.py`).

The module must be built in release mode into the interpreter that runs
this (`maturin develop --release`; see docs/performance.md).
"""

import sys

import pgn960


def main(path: str) -> None:
    print(pgn960.games(path).num_rows)


if __name__ == "__main__":
    main(sys.argv[1])
