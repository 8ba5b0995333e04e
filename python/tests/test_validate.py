"""``validate`` against ``pgn960 validate``'s own CSV report."""

import csv
import io

import pytest

import pgn960
from conftest import SAMPLES, pgn_files


def cli_report(run_cli, tmp_path, inputs, *options):
    report = tmp_path / "report.csv"
    run_cli("validate", "-q", *options, "--report", report, *inputs)
    return list(csv.DictReader(io.StringIO(report.read_text())))


def as_text(table):
    return [{name: str(value) for name, value in row.items()} for row in table.to_pylist()]


@pytest.mark.parametrize("moves", [True, False])
def test_findings_are_the_clis_report(run_cli, tmp_path, moves):
    inputs = SAMPLES
    theirs = cli_report(run_cli, tmp_path, inputs, *([] if moves else ["--no-moves"]))
    table = pgn960.validate(inputs, moves=moves)
    assert table.column_names == ["file", "game", "line", "severity", "code", "message"]
    assert as_text(table) == theirs
    assert len(theirs) > 100
    assert {"error", "warning"} <= set(table["severity"].to_pylist())


def test_the_corpus_edge_files_are_reported_as_the_cli_does(run_cli, tmp_path, corpus):
    inputs = pgn_files(corpus / "edge")
    assert as_text(pgn960.validate(inputs)) == cli_report(run_cli, tmp_path, inputs)
