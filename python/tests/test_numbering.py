"""``id``, ``position`` and ``table`` against the command line's
``pgn960 id``, ``pos`` and ``table``, and against python-chess's own
Chess960 numbering."""

import csv
import io

import chess
import pytest

import pgn960


def test_the_table_is_the_clis(run_cli):
    rows = list(csv.DictReader(io.StringIO(run_cli("table").stdout.decode())))
    table = pgn960.table()
    assert table.column_names == list(rows[0])
    assert table.schema.field("scharnagl").type == "int32"
    ours = table.to_pylist()
    assert len(ours) == len(rows) == 960
    for mine, theirs in zip(ours, rows):
        assert {name: str(value) for name, value in mine.items()} == theirs


def test_every_position_agrees_with_python_chess():
    for n in range(960):
        board = chess.Board.from_chess960_pos(n)
        ours = pgn960.position(n)
        assert ours.scharnagl == n
        assert board.chess960_pos() == n
        assert ours.position == board.board_fen().split("/")[-1]
        assert chess.Board(ours.xfen, chess960=True).chess960_pos() == n
        assert chess.Board(ours.shredder_fen, chess960=True).chess960_pos() == n
        assert pgn960.id(ours.position) == ours
        assert pgn960.id(board.fen()) == ours
        assert pgn960.position(ours.fritz9, fritz9=True) == ours


def test_id_and_pos_print_what_the_functions_return(run_cli):
    arguments = ["bbqnnrkr", "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1"]
    lines = run_cli("id", *arguments).stdout.decode().splitlines()
    for argument, line in zip(arguments, lines):
        ours = pgn960.id(argument)
        assert line == f"{ours.scharnagl} {ours.fritz9} {ours.position}"
    dfrc = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    white, black = pgn960.id(dfrc)
    line = run_cli("id", dfrc).stdout.decode().strip()
    assert line == (
        f"{white.scharnagl} {white.fritz9} {white.position} "
        f"{black.scharnagl} {black.fritz9} {black.position.lower()}"
    )
    for n, fritz9 in [("518", False), ("960", False), ("359", True)]:
        args = ["pos", n] + (["--fritz9"] if fritz9 else [])
        printed = dict(
            line.split(": ", 1) for line in run_cli(*args).stdout.decode().splitlines()
        )
        ours = pgn960.position(int(n), fritz9=fritz9)
        assert printed == {
            "position": ours.position,
            "scharnagl": str(ours.scharnagl),
            "fritz9": str(ours.fritz9),
            "xfen": ours.xfen,
            "shredder_fen": ours.shredder_fen,
        }


@pytest.mark.parametrize(
    "call, command",
    [
        (lambda: pgn960.id("RNBQKBNQ"), ["id", "RNBQKBNQ"]),
        (lambda: pgn960.id("8/8/8"), ["id", "8/8/8"]),
        (lambda: pgn960.position(961), ["pos", "961"]),
        (lambda: pgn960.position(-1), ["pos", "-1"]),
        (lambda: pgn960.position(0, fritz9=True), ["pos", "--fritz9", "0"]),
        (lambda: pgn960.position(10**40), ["pos", str(10**40)]),
    ],
)
def test_bad_numbers_raise_the_clis_message(run_cli, call, command):
    message = run_cli(*command, check=False).stderr.decode().strip().removeprefix("pgn960: ")
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value) == message


def test_positions_compare_hash_and_print():
    a, b = pgn960.position(518), pgn960.id("RNBQKBNR")
    assert a == b and hash(a) == hash(b) and a != pgn960.position(0)
    assert repr(a) == "Position(scharnagl=518, fritz9=359, position='RNBQKBNR')"
    assert len({pgn960.position(n) for n in range(960)}) == 960
