"""``stats`` and ``count`` against ``pgn960 stats``' own CSV and
``--summary`` JSON, and ``Counts``' exact merge against one run (as
``stats --merge`` merges shard CSVs)."""

import csv
import io
import json
import math
import pickle

import pyarrow as pa
import pytest

import pgn960
from conftest import SAMPLES, TESTDATA, pgn_files

SIGNIFICANT = {"p_value", "q_value"}


def as_cli_writes(name: str, value) -> str:
    """A cell of the typed table as the CLI writes it in its CSV."""
    if value is None:
        return ""
    if isinstance(value, float):
        if name in SIGNIFICANT:
            mantissa, exponent = f"{value:.5e}".split("e")
            return f"{mantissa}e{int(exponent)}"
        return f"{value:.6f}"
    return str(value)


def assert_table_is_the_csv(table: pa.Table, text: str):
    rows = list(csv.reader(io.StringIO(text)))
    assert table.column_names == rows[0]
    assert table.num_rows == len(rows) - 1
    for mine, theirs in zip(table.to_pylist(), rows[1:]):
        cells = [as_cli_writes(name, value) for name, value in mine.items()]
        assert cells == theirs


def cli_stats(run_cli, tmp_path, inputs, *options):
    """The CSV and the summary ``pgn960 stats`` writes."""
    out, summary = tmp_path / "stats.csv", tmp_path / "summary.json"
    run_cli("stats", "-q", *options, "--summary", summary, "-o", out, *inputs)
    return out.read_text(), json.loads(summary.read_text())


OPTIONS = [
    ([], {}),
    (["--all-positions"], {"all_positions": True}),
    (["--group-by", "year"], {"group_by": "year"}),
    (["--group-by", "Event", "--min-elo", "2000"], {"group_by": "Event", "min_elo": 2000}),
    (["--include-standard"], {"include_standard": True}),
]


@pytest.mark.parametrize("cli_options, options", OPTIONS, ids=lambda o: str(o))
def test_stats_is_the_clis_csv_and_summary(run_cli, tmp_path, cli_options, options):
    inputs = SAMPLES
    text, summary = cli_stats(run_cli, tmp_path, inputs, *cli_options)
    table, ours = pgn960.stats(inputs, **options)
    assert_table_is_the_csv(table, text)
    assert ours == summary
    all_positions = options.pop("all_positions", False)
    counts = pgn960.count(inputs, **options)
    assert counts.to_csv(all_positions=all_positions) == text


def test_the_research_sample_has_findings_and_equals_the_cli(run_cli, tmp_path):
    research = TESTDATA / "stats" / "research.pgn"
    text, summary = cli_stats(run_cli, tmp_path, [research])
    table, ours = pgn960.stats(research)
    assert_table_is_the_csv(table, text)
    assert ours == summary
    # Values the CSV rounds are there at full precision.
    scores = [score for score in table["white_score"].to_pylist() if score is not None]
    assert any(score != round(score, 6) for score in scores)
    assert table.schema.field("games").type == pa.uint64()
    assert table.schema.field("white_elo_sum").type == pa.int64()
    assert table.schema.field("p_value").type == pa.float64()


def test_the_corpus_is_counted_as_the_cli_counts_it(run_cli, tmp_path, corpus):
    inputs = pgn_files(corpus / "real")
    text, summary = cli_stats(run_cli, tmp_path, inputs, "--group-by", "year")
    table, ours = pgn960.stats(inputs, group_by="year")
    assert_table_is_the_csv(table, text)
    assert ours == summary


DFRC_OPTIONS = [
    ([], {}),
    (["--group-by", "Round", "--min-elo", "3000"], {"group_by": "Round", "min_elo": 3000}),
    (["--all-positions"], {"all_positions": True}),
]


@pytest.mark.parametrize("cli_options, options", DFRC_OPTIONS, ids=lambda o: str(o))
def test_dfrc_stats_are_the_clis_three_csvs(run_cli, tmp_path, cli_options, options):
    inputs = SAMPLES
    outputs = {name: tmp_path / f"{name}.csv" for name in ("pairs", "white", "black")}
    run_cli(
        "stats", "-q", *cli_options, "-o", tmp_path / "positions.csv",
        *(arg for name, path in outputs.items() for arg in (f"--dfrc-{name}", path)),
        *inputs,
    )
    tables = pgn960.dfrc_stats(inputs, **options)
    assert sorted(tables) == sorted(outputs)
    for name, path in outputs.items():
        assert_table_is_the_csv(tables[name], path.read_text())
    # The samples' Double FRC games: 10 of TCEC (unrated) and more.
    assert tables["pairs"].num_rows > (0 if "min_elo" in options else 10)
    assert tables["pairs"].schema.field("black_scharnagl").type == pa.int32()
    assert tables["pairs"].schema.field("games").type == pa.uint64()


def test_counts_of_shards_add_up_to_one_run(run_cli, tmp_path):
    shards = SAMPLES
    one_run = pgn960.count(shards, group_by="Site")
    parts = [pgn960.count(shard, group_by="Site") for shard in shards]
    assert sum(parts) == one_run
    assert sum(reversed(parts), pgn960.Counts()) == one_run
    assert sum(parts).to_csv() == one_run.to_csv()
    assert sum(parts).games_read == one_run.games_read
    # Pickled and back, as Dask and multiprocessing move them.
    moved = [pickle.loads(pickle.dumps(part)) for part in parts]
    assert sum(moved) == one_run
    assert sum(moved).games_read == one_run.games_read
    # The CLI's shard CSVs, merged by the CLI and read here.
    csvs = []
    for i, shard in enumerate(shards):
        out = tmp_path / f"{i}.csv"
        run_cli("stats", "-q", "--group-by", "Site", shard, "-o", out)
        csvs.append(out)
        assert pgn960.Counts.read_csv(out) == parts[i]
    merged = tmp_path / "merged.csv"
    run_cli("stats", "-q", "--merge", *csvs, "-o", merged)
    assert merged.read_text() == one_run.to_csv()


def test_grouped_and_plain_counts_do_not_add():
    grouped = pgn960.count("testdata/sample.pgn", group_by="year")
    plain = pgn960.count("testdata/sample.pgn")
    with pytest.raises(ValueError, match="group"):
        grouped + plain
    assert pgn960.Counts() + grouped == grouped
    # The sample's 6 chess960 games; its standard and dfrc games are read, not counted.
    assert (plain.counted, grouped.counted) == (6, 6)
    assert plain.games_read == {"chess960": 6, "standard": 1, "dfrc": 1, "other": 0, "unreadable": 0}


def test_a_csv_that_cannot_be_merged_is_a_value_error(run_cli, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("scharnagl,games\n0,1\n")
    message = run_cli("stats", "--merge", bad, check=False).stderr.decode().strip()
    with pytest.raises(ValueError) as raised:
        pgn960.Counts.read_csv(bad)
    assert f"pgn960: {raised.value}" == message


def test_unplayed_results_are_left_out_as_the_cli_leaves_them_out(run_cli, tmp_path):
    fixture = TESTDATA / "unplayed.pgn"
    for cli_options, options in [([], {}), (["--keep-unplayed"], {"keep_unplayed": True})]:
        text, summary = cli_stats(run_cli, tmp_path, [fixture], *cli_options)
        table, ours = pgn960.stats(fixture, **options)
        assert_table_is_the_csv(table, text)
        assert ours == summary
    # By hand (see tests/unplayed.rs): of the eight Chess960 games, five
    # results were not played.
    reasons = {"abandoned": 2, "rules_infraction": 2, "unterminated": 1, "emergency": 0, "death": 0}
    counts = pgn960.count(fixture)
    assert (counts.counted, counts.unplayed) == (3, reasons)
    assert summary["unplayed_kept"] == reasons
    kept = pgn960.count(fixture, keep_unplayed=True)
    assert (kept.counted, kept.unplayed) == (8, reasons)
    assert pickle.loads(pickle.dumps(counts)).unplayed == reasons
    assert (counts + kept).unplayed == {reason: 2 * n for reason, n in reasons.items()}


def test_duplicates_are_left_out_as_the_cli_leaves_them_out(run_cli, tmp_path):
    # download.pgn holds club.pgn's second game as another site exports
    # it (see docs/commands/stats.md): one copy in four games.
    inputs = [TESTDATA / "duplicates" / "club.pgn", TESTDATA / "duplicates" / "download.pgn"]
    for cli_options, options in [([], {}), (["--keep-duplicates"], {"keep_duplicates": True})]:
        text, summary = cli_stats(run_cli, tmp_path, inputs, *cli_options)
        table, ours = pgn960.stats(inputs, **options)
        assert_table_is_the_csv(table, text)
        assert ours == summary
    counts = pgn960.count(inputs)
    assert (counts.counted, counts.duplicates) == (3, 1)
    kept = pgn960.count(inputs, keep_duplicates=True)
    assert (kept.counted, kept.duplicates) == (4, 0)
    assert pickle.loads(pickle.dumps(counts)).duplicates == 1
    # Each input alone holds no copy: copies across shards are the
    # shards' business, and their counts add up to every copy counted.
    shards = [pgn960.count(path) for path in inputs]
    assert sum(shard.duplicates for shard in shards) == 0
    assert sum(shards).to_csv() == kept.to_csv()
