"""Ids and kinds of the real samples against python-chess, a reader of
its own: its FEN parser and its Chess960 numbering
(``Board.chess960_pos``), with the kind rules of docs/kinds.md written
out here, for every game whose ``FEN`` python-chess reads."""

import io
import re

import chess
import chess.pgn
import pyarrow as pa
import pytest

import pgn960
from conftest import TESTDATA

SAMPLES = sorted(
    path
    for path in (TESTDATA / "real").iterdir()
    if path.is_file() and (path.name.endswith(".pgn") or path.name.endswith(".pgn.zst"))
)

# docs/kinds.md: a Variant is compared ignoring case, spaces, tabs,
# hyphens and underscores.
CHESS960 = {"chess960", "fischerandom", "fischerrandom", "fischerrandomchess", "frc", "960"}
CHESS = {"standard", "chess", "normal", "regular", "classical", "fromposition"}

# Every legal back rank, by python-chess's numbering.
BACK_RANKS = {
    chess.Board.from_chess960_pos(n).board_fen().split("/")[-1]: n for n in range(960)
}


def bytes_of(path):
    if path.name.endswith(".zst"):
        with pa.input_stream(str(path), compression="zstd") as stream:
            return stream.read()
    return path.read_bytes()


def expected(headers):
    """The kind and Scharnagl number python-chess reads in a game's tags,
    or None when it cannot read its FEN."""
    variant = headers.get("Variant")
    folded = None if variant is None else re.sub(r"[ \t_-]", "", variant.lower())
    names_chess960 = folded in CHESS960
    other_game = folded is not None and not names_chess960 and folded not in CHESS
    if other_game:
        return "other", None
    try:
        board = chess.Board(headers["FEN"], chess960=True)
    except ValueError:
        return None
    number = board.chess960_pos(ignore_turn=True, ignore_castling=True, ignore_counters=True)
    if number is not None:
        if names_chess960 or number != 518:
            return "chess960", number
        return "standard", 518
    ranks = board.board_fen().split("/")
    white, black = ranks[7], ranks[0].upper()
    home = ranks[1] == "p" * 8 and ranks[6] == "P" * 8 and ranks[2:6] == ["8"] * 4
    if home and white in BACK_RANKS and black in BACK_RANKS and white != black:
        return "dfrc", None
    return "other", None


def agree_with_python_chess(sample, most=None):
    """Checks the first ``most`` games of ``sample``; how many had a FEN
    python-chess reads, and how many games there were."""
    data = bytes_of(sample)
    rows = pgn960.games(sample).slice(0, most).to_pylist()
    checked = 0
    for row in rows:
        # Each game's bytes (pgn960's cut, tested on its own), read by
        # python-chess: headers only files have no movetext between games.
        piece = data[row["offset"] : row["offset"] + row["length"]]
        game = chess.pgn.read_headers(io.StringIO(piece.decode("utf-8", errors="replace")))
        if "FEN" not in game:
            continue
        answer = expected(game)
        if answer is None:
            continue
        kind, number = answer
        assert (row["kind"], row["scharnagl"]) == (kind, number), (sample.name, row["game"])
        checked += 1
    return checked, len(rows)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda path: path.name)
def test_ids_and_kinds_agree_with_python_chess(sample):
    checked, games = agree_with_python_chess(sample)
    assert checked == games


def test_the_corpus_archives_agree_with_python_chess(corpus):
    archives = sorted((corpus / "real").glob("*.pgn*"))
    assert len(archives) >= 10
    checked = sum(agree_with_python_chess(path, most=3_000)[0] for path in archives)
    assert checked > 10_000
