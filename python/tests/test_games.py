"""``games`` and ``iter_games`` against the command line's own Parquet
file, read back with pyarrow: the same columns, types and values, for
every sample and (with the corpus) every corpus file."""

import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pgn960
from conftest import ROOT, SAMPLES, TESTDATA, pgn_files


def cli_parquet(run_cli, tmp_path, *inputs, tags=None):
    """The rows ``pgn960 games`` writes as Parquet, read back."""
    out = tmp_path / "games.parquet"
    extra = ["--tags", ",".join(tags)] if tags else []
    run_cli("games", "-q", *extra, *inputs, "-o", out)
    return pq.read_table(out)


def assert_same_table(ours: pa.Table, theirs: pa.Table):
    assert ours.schema == theirs.schema
    assert ours.num_rows == theirs.num_rows
    for name in ours.column_names:
        assert ours[name].equals(theirs[name]), name


def test_the_sample_has_eight_games_of_the_kinds_the_cli_counts(run_cli):
    table = pgn960.games("testdata/sample.pgn")
    assert table.num_rows == 8
    summary = run_cli("games", "testdata/sample.pgn").stderr.decode().splitlines()[0]
    assert summary == "pgn960 games: 8 games read: 6 chess960, 1 standard, 1 dfrc, 0 other, 0 unreadable"
    kinds = table["kind"].to_pylist()
    counted = ", ".join(f"{kinds.count(kind)} {kind}" for kind in ["chess960", "standard", "dfrc", "other", "unreadable"])
    assert summary.endswith(counted)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda path: str(path.relative_to(TESTDATA)))
def test_every_sample_equals_the_clis_parquet(run_cli, tmp_path, sample):
    relative = sample.relative_to(ROOT)
    assert_same_table(pgn960.games(str(relative)), cli_parquet(run_cli, tmp_path, relative))


def test_every_corpus_file_equals_the_clis_parquet(run_cli, tmp_path, corpus):
    files = pgn_files(corpus)
    assert len(files) > 100, f"expected the whole corpus, found {len(files)} files"
    rows = 0
    for path in files:
        ours = pgn960.games(path)
        assert_same_table(ours, cli_parquet(run_cli, tmp_path, path))
        rows += ours.num_rows
    assert rows > 100_000


def test_several_inputs_and_tags_as_the_cli(run_cli, tmp_path):
    inputs = ["testdata/sample.pgn", "testdata/games/generated-1.pgn.zst", "testdata/real/freestyle-vegas-broadcast.pgn"]
    tags = ["WhiteClock", "Annotator", "PlyCount"]
    theirs = cli_parquet(run_cli, tmp_path, *inputs, tags=tags)
    assert_same_table(pgn960.games(inputs, tags=tags), theirs)
    assert_same_table(pgn960.games(inputs, tags=",".join(tags)), theirs)
    assert theirs.schema.names[-3:] == tags
    assert pgn960.schema(tags=tags) == theirs.schema


def test_duplicates_name_the_first_occurrence_as_the_cli(run_cli, tmp_path):
    # testdata/README.md: download.pgn's first game is club.pgn's second,
    # as another site exports it; its second game is a game of its own.
    inputs = ["testdata/duplicates/club.pgn", "testdata/duplicates/download.pgn"]
    out = tmp_path / "games.parquet"
    run_cli("games", "-q", "--duplicates", *inputs, "-o", out)
    theirs = pq.read_table(out)
    ours = pgn960.games(inputs, duplicates=True, threads=1)
    assert_same_table(ours, theirs)
    assert pgn960.schema(duplicates=True) == theirs.schema
    assert ours.schema.names[-3:] == ["fingerprint", "duplicate_of_file", "duplicate_of_game"]
    assert ours["duplicate_of_file"].to_pylist() == [None, None, inputs[0], None]
    assert ours["duplicate_of_game"].to_pylist() == [None, None, 2, None]
    fingerprints = ours["fingerprint"].to_pylist()
    assert fingerprints[2] == fingerprints[1] and len(set(fingerprints)) == 3
    batches = list(pgn960.iter_games(inputs, duplicates=True, batch_size=1))
    assert pa.Table.from_batches(batches).equals(ours.combine_chunks())
    # Without the option, the columns of `pgn960 games`.
    assert "fingerprint" not in pgn960.games(inputs).schema.names


def test_bytes_read_as_the_file_plain_or_compressed():
    path = TESTDATA / "games" / "generated-1.pgn.zst"
    from_path = pgn960.games(path)
    from_bytes = pgn960.games(path.read_bytes())
    assert from_bytes["file"].unique().to_pylist() == ["<bytes>"]
    assert from_bytes.drop_columns(["file"]).equals(from_path.drop_columns(["file"]))
    plain = pgn960.games((TESTDATA / "sample.pgn").read_bytes())
    assert plain.num_rows == 8


def test_the_thread_count_changes_nothing():
    inputs = SAMPLES
    one = pgn960.games(inputs, threads=1)
    assert one.equals(pgn960.games(inputs, threads=2))
    assert one.equals(pgn960.games(inputs, threads=3, batch_size=7))


def test_batches_put_together_are_the_table():
    inputs = SAMPLES
    whole = pgn960.games(inputs)
    batches = pgn960.iter_games(inputs, batch_size=1000)
    taken = list(batches)
    assert all(batch.num_rows == 1000 for batch in taken[:-1])
    assert 0 < taken[-1].num_rows <= 1000
    assert all(batch.schema == whole.schema for batch in taken)
    assert batches.schema == whole.schema
    assert pa.Table.from_batches(taken).equals(whole.combine_chunks())


def test_a_closed_iterator_ends():
    batches = pgn960.iter_games(SAMPLES * 5, batch_size=100)
    first = next(batches)
    assert first.num_rows == 100
    batches.close()
    assert list(batches) == []


def test_unreadable_inputs_raise_the_clis_message(run_cli):
    missing = "testdata/no-such-file.pgn"
    done = run_cli("games", "-q", missing, check=False)
    line = done.stderr.decode().strip()
    assert line.startswith("pgn960: ")
    with pytest.raises(FileNotFoundError) as raised:
        pgn960.games(["testdata/sample.pgn", missing])
    assert str(raised.value) == line.removeprefix("pgn960: ")
    with pytest.raises(IsADirectoryError, match="testdata: is a directory"):
        pgn960.games("testdata")
    # An iterator raises when the input is due, after the rows before it.
    batches = pgn960.iter_games(["testdata/sample.pgn", missing])
    assert next(batches).num_rows == 8
    with pytest.raises(FileNotFoundError):
        next(batches)
    with pytest.raises(OSError, match="not PGN"):
        pgn960.games(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)


def test_bad_arguments_raise_value_errors(run_cli):
    done = run_cli("games", "--tags", "Event", "testdata/sample.pgn", check=False)
    assert done.returncode == 2
    cli_message = done.stderr.decode().strip().removeprefix("pgn960: --tags: ")
    with pytest.raises(ValueError) as raised:
        pgn960.games("testdata/sample.pgn", tags=["Event"])
    assert str(raised.value) == f"tags: {cli_message}"
    with pytest.raises(ValueError, match=r"threads: 0 is not in 1..=1024"):
        pgn960.games("testdata/sample.pgn", threads=0)
    with pytest.raises(ValueError, match="batch_size"):
        pgn960.iter_games("testdata/sample.pgn", batch_size=0)
    with pytest.raises(ValueError, match="no input"):
        pgn960.games([])
    with pytest.raises(TypeError, match="not int"):
        pgn960.games(42)


def test_engines_take_the_table_as_it_is():
    import duckdb
    import polars as pl

    games = pgn960.games("testdata/sample.pgn")
    frame = pl.from_arrow(games)
    assert frame.shape == (8, 29)
    assert frame["scharnagl"].dtype == pl.Int32
    kinds = duckdb.sql("SELECT kind, count(*) AS n FROM games GROUP BY kind ORDER BY kind").fetchall()
    assert kinds == [("chess960", 6), ("dfrc", 1), ("standard", 1)]
    assert games.to_pandas()["white_elo"].tolist()[:2] == [2210, 2150]


def long_input(tmp_path: Path, copies: int) -> list[Path]:
    """A list naming one generated shard ``copies`` times: as many rows as
    a big archive, from a small file."""
    return [TESTDATA / "games" / "generated-1.pgn.zst"] * copies


PEAK_SCRIPT = """
import resource, sys
import pgn960
inputs = ["testdata/games/generated-1.pgn.zst"] * int(sys.argv[1])
rows = 0
for batch in pgn960.iter_games(inputs, batch_size=2000):
    rows += batch.num_rows
print(rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak(copies: int) -> tuple[int, int]:
    """Rows read and the peak memory (KiB) of a fresh process iterating
    over ``copies`` copies of a shard."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, str(copies)], cwd=ROOT, capture_output=True, check=True
    )
    rows, kib = done.stdout.split()
    return int(rows), int(kib)


def test_iterating_holds_memory_bounded_whatever_the_rows():
    few_rows, few_peak = peak(5)
    many_rows, many_peak = peak(250)
    assert (few_rows, many_rows) == (2_000, 100_000)
    # 100,000 rows held at once would take tens of MiB more; the batches
    # taken one at a time take the same memory as 2,000 rows.
    assert many_peak < few_peak + 16 * 1024, (few_peak, many_peak)


def test_ctrl_c_stops_a_long_read(ctrl_c):
    inputs = [TESTDATA / "games" / "generated-1.pgn.zst"] * 20_000
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        pgn960.games(inputs)
    assert time.monotonic() - started < 10
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        for _ in pgn960.iter_games(inputs, batch_size=10**9):
            pass
    assert time.monotonic() - started < 10
