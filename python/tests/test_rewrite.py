"""``tag``, ``fix`` and ``filter`` against the files ``pgn960 tag -o``,
``fix -o`` and ``filter -o`` write: the same bytes; an output compressed
as its name says; and an output that is never an input nor half-written."""

import bz2
import gzip
import lzma
import os
import signal
import threading

import pytest

import pgn960
from conftest import SAMPLES, TESTDATA

CASES = [
    ("tag", [], {}),
    ("tag", ["--fritz9", "--include-standard"], {"fritz9": True, "include_standard": True}),
    ("fix", [], {}),
    ("fix", ["--castling", "shredder", "--variant-name", "Fischerandom"],
     {"castling": "shredder", "variant_name": "Fischerandom"}),
    ("filter", ["--position", "0-99,518", "--include-standard"],
     {"position": [*range(100), 518], "include_standard": True}),
    ("filter", ["--kind", "dfrc,other", "--invert"], {"kind": ["dfrc", "other"], "invert": True}),
    ("filter", ["--min-elo", "2400", "--finding", "error"], {"min_elo": 2400, "finding": "error"}),
    ("filter", ["--arrangement", "rnbqkbnr,BBQNNRKR", "--fritz9", "1-500"],
     {"arrangement": "rnbqkbnr,BBQNNRKR", "fritz9": "1-500"}),
]


@pytest.mark.parametrize("command, cli_options, options", CASES, ids=lambda o: str(o))
def test_the_same_bytes_as_the_cli(run_cli, tmp_path, command, cli_options, options):
    inputs = SAMPLES
    theirs, ours = tmp_path / "cli.pgn", tmp_path / "python.pgn"
    run_cli(command, "-q", *cli_options, *inputs, "-o", theirs)
    counts = getattr(pgn960, command)(inputs, ours, **options)
    assert ours.read_bytes() == theirs.read_bytes()
    assert sum(counts["read"].values()) > 1000


def test_counts_say_what_changed(tmp_path):
    counts = pgn960.tag("testdata/sample.pgn", tmp_path / "out.pgn")
    assert counts["read"] == {"chess960": 6, "standard": 1, "dfrc": 1, "other": 0, "unreadable": 0}
    assert counts["tagged"] == counts["added"] + counts["rewritten"] + counts["already_right"]
    again = pgn960.tag(tmp_path / "out.pgn", tmp_path / "again.pgn")
    assert again["added"] + again["rewritten"] == 0
    assert (tmp_path / "again.pgn").read_bytes() == (tmp_path / "out.pgn").read_bytes()
    fixed = pgn960.fix("testdata/fix/repairs.pgn", tmp_path / "fixed.pgn")
    assert fixed["games_fixed"] > 0 and sum(fixed["fixed"].values()) > 0


@pytest.mark.parametrize("suffix, decompress", [(".gz", gzip.decompress), (".bz2", bz2.decompress), (".xz", lzma.decompress)])
def test_an_output_is_compressed_as_its_name_says(run_cli, tmp_path, suffix, decompress):
    theirs = tmp_path / "cli.pgn"
    run_cli("filter", "-q", "--kind", "chess960", *SAMPLES, "-o", theirs)
    ours = tmp_path / f"python.pgn{suffix}"
    pgn960.filter(SAMPLES, ours, kind="chess960")
    assert decompress(ours.read_bytes()) == theirs.read_bytes()
    assert pgn960.games(ours).num_rows == pgn960.games(theirs).num_rows


def test_an_input_is_never_the_output(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_bytes((TESTDATA / "sample.pgn").read_bytes())
    before = path.read_bytes()
    for call in (pgn960.tag, pgn960.fix, pgn960.filter):
        with pytest.raises(ValueError, match="the output is also an input"):
            call(["testdata/sample.pgn", path], path)
        with pytest.raises(ValueError, match="the output is also an input"):
            call(path, tmp_path / "." / "games.pgn")
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["games.pgn"]


def test_a_failed_run_leaves_the_output_as_it_was(tmp_path, ctrl_c):
    out = tmp_path / "out.pgn"
    out.write_bytes(b"old bytes\n")
    with pytest.raises(FileNotFoundError, match="missing.pgn"):
        pgn960.tag(["testdata/sample.pgn", tmp_path / "missing.pgn"], out)
    assert out.read_bytes() == b"old bytes\n"
    inputs = [TESTDATA / "games" / "generated-1.pgn.zst"] * 5_000
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        pgn960.fix(inputs, out)
    assert out.read_bytes() == b"old bytes\n"
    assert sorted(os.listdir(tmp_path)) == ["out.pgn"]


def test_bad_options_raise_value_errors(run_cli, tmp_path):
    out = tmp_path / "out.pgn"
    with pytest.raises(ValueError, match="include_standard needs position"):
        pgn960.filter("testdata/sample.pgn", out, include_standard=True)
    with pytest.raises(ValueError, match='position "0-2000"'):
        pgn960.filter("testdata/sample.pgn", out, position="0-2000")
    with pytest.raises(ValueError, match='kind "chess"'):
        pgn960.filter("testdata/sample.pgn", out, kind="chess")
    with pytest.raises(ValueError, match="castling"):
        pgn960.fix("testdata/sample.pgn", out, castling="lichess")
    with pytest.raises(ValueError, match="variant_name"):
        pgn960.fix("testdata/sample.pgn", out, variant_name="FRC")
    assert not out.exists()


def test_filter_selects_the_unplayed_games_the_cli_selects(run_cli, tmp_path):
    fixture = TESTDATA / "unplayed.pgn"
    for cli_options, options in [
        (["--unplayed"], {"unplayed": True}),
        (["--unplayed=abandoned,death"], {"unplayed": ["abandoned", "death"]}),
        (["--played"], {"played": True}),
    ]:
        theirs = tmp_path / "cli.pgn"
        run_cli("filter", "-q", *cli_options, fixture, "-o", theirs)
        ours = tmp_path / "python.pgn"
        pgn960.filter(fixture, ours, **options)
        assert ours.read_bytes() == theirs.read_bytes(), cli_options
    games = pgn960.games(fixture).to_pydict()
    assert games["unplayed"][:3] == [None, "abandoned", None]
    with pytest.raises(ValueError, match='unplayed "forfeit"'):
        pgn960.filter(fixture, tmp_path / "x.pgn", unplayed="forfeit")
