"""The type stubs (pgn960.pyi) say what the module is: mypy's stubtest
compares every name, signature, default and class of the stubs with the
module as built."""

import subprocess
import sys

import pytest

import pgn960

# maturin installs the extension as pgn960/pgn960.*.so under a package
# (`maturin develop`) or as the module itself (a wheel): the submodule,
# when there is one, is the module the stubs describe.
ALLOWLIST = "pgn960.pgn960\n"


def test_the_stubs_match_the_module(tmp_path):
    pytest.importorskip("mypy")
    (tmp_path / "mypy.ini").write_text("[mypy]\nignore_missing_imports = True\n")
    (tmp_path / "allowlist").write_text(ALLOWLIST)
    done = subprocess.run(
        [
            sys.executable, "-m", "mypy.stubtest", "pgn960",
            "--mypy-config-file", str(tmp_path / "mypy.ini"),
            "--allowlist", str(tmp_path / "allowlist"),
            "--ignore-unused-allowlist",
        ],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_function_has_its_docstring():
    for name in pgn960.__all__:
        if name.startswith("_"):
            continue
        value = getattr(pgn960, name)
        if callable(value):
            assert value.__doc__ and len(value.__doc__) > 80, name
