"""Shared fixtures: the repository's test data, the command line built by
cargo (the oracle every table is compared with), and the real-data corpus
when it is there.

The corpus is named by ``PGN960_CORPUS``; with ``PGN960_CI=1`` (as in
``.ci/run``) a test that needs it fails when it is missing instead of
being skipped, as the Rust tests do.
"""

import os
import signal
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"


def pgn_files(folder: Path) -> list[Path]:
    """Every ``*.pgn`` and ``*.pgn.zst`` file below ``folder``, sorted."""
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file() and (path.name.endswith(".pgn") or path.name.endswith(".pgn.zst"))
    )


SAMPLES = [TESTDATA / "sample.pgn"] + pgn_files(TESTDATA / "real") + pgn_files(TESTDATA / "games")


@pytest.fixture(scope="session")
def cli() -> Path:
    """The ``pgn960`` binary: ``PGN960_BIN``, else built with cargo."""
    named = os.environ.get("PGN960_BIN")
    if named:
        return Path(named)
    subprocess.run(
        ["cargo", "build", "--locked", "--quiet", "--bin", "pgn960"], cwd=ROOT, check=True
    )
    return ROOT / "target" / "debug" / "pgn960"


@pytest.fixture(scope="session")
def run_cli(cli):
    """Runs ``pgn960 ARGS...`` in the repository's root; its completed
    process, standard output as bytes."""

    def run(*args, check=True):
        done = subprocess.run(
            [str(cli), *map(str, args)], cwd=ROOT, capture_output=True, stdin=subprocess.DEVNULL
        )
        if check and done.returncode not in (0, 1):
            raise AssertionError(
                f"pgn960 {' '.join(map(str, args))} exited {done.returncode}: {done.stderr.decode()}"
            )
        return done

    return run


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The real-data corpus (``PGN960_CORPUS``): skipped without it, a
    failure without it under ``PGN960_CI=1``."""
    named = os.environ.get("PGN960_CORPUS")
    folder = Path(named) if named else ROOT.parent / "shared" / "data"
    if not (folder / "README.md").is_file():
        if os.environ.get("PGN960_CI") == "1":
            pytest.fail(f"the corpus is missing at {folder} (PGN960_CI=1)")
        pytest.skip(f"no corpus at {folder}; set PGN960_CORPUS")
    return folder


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    """Tests name files relative to the repository's root, as the command
    line's own tests and the documentation do."""
    monkeypatch.chdir(ROOT)


@pytest.fixture
def ctrl_c():
    """Ctrl-C raises ``KeyboardInterrupt`` during the test, as in a
    terminal, also where the tests were started with SIGINT ignored (a job
    run with ``&`` or ``nohup``), which Python then leaves ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
