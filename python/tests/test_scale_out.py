"""Scale-out on existing engines: the Dask recipe of docs/python.md
merges shard counts into exactly one run's (and ``pgn960 stats``' over
them); DuckDB, Polars and Spark read the ``games`` Parquet shards of the
command line as they read ``pgn960.games``' own table."""

import re
import types

import pytest

import pgn960
from conftest import ROOT, SAMPLES


def guide_script(name: str) -> types.ModuleType:
    """The Python script ``name`` of docs/python.md (its block that starts
    with ``# name``), as a module: the recipe tested is the recipe shown."""
    page = (ROOT / "docs" / "python.md").read_text()
    block = re.search(rf"```python\n(# {re.escape(name)}\n.*?)```", page, re.S)
    assert block, f"docs/python.md has no {name}"
    module = types.ModuleType(name.removesuffix(".py"))
    exec(compile(block.group(1), f"docs/python.md:{name}", "exec"), module.__dict__)
    return module


dask_stats = guide_script("dask_stats.py")


@pytest.fixture(scope="module")
def cluster():
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            yield client


def test_the_dask_recipe_merges_shards_exactly(cluster, run_cli, tmp_path):
    # Absolute paths: the workers run in folders of their own.
    shards = [str(path) for path in SAMPLES]
    merged = dask_stats.count_shards(shards, group_by="year")
    one_run = pgn960.count(shards, group_by="year")
    assert merged == one_run
    assert merged.to_csv() == one_run.to_csv()
    assert merged.summary() == one_run.summary()
    assert merged.games_read == one_run.games_read
    out = tmp_path / "all.csv"
    run_cli("stats", "-q", "--group-by", "year", *shards, "-o", out)
    assert merged.to_csv() == out.read_text()


SCORE = """
SELECT scharnagl, position,
       count(*) AS games,
       round(avg(CASE result WHEN '1-0' THEN 1 WHEN '1/2-1/2' THEN 0.5 ELSE 0 END), 3) AS white_score
FROM {source}
WHERE white_elo > 2000 AND black_elo > 2000
  AND result IN ('1-0', '1/2-1/2', '0-1')
GROUP BY scharnagl, position
ORDER BY games DESC, scharnagl
"""


@pytest.fixture(scope="module")
def shards(tmp_path_factory, run_cli):
    """The ``games`` Parquet files of two generated shards, written by the
    command line, and the shards' paths."""
    folder = tmp_path_factory.mktemp("shards")
    inputs = [f"testdata/games/generated-{i}.pgn.zst" for i in (1, 2)]
    for i, shard in enumerate(inputs, 1):
        run_cli("games", "-q", shard, "-o", folder / f"shard-{i}.parquet")
    return folder, inputs


def test_duckdb_reads_shards_and_the_table_alike(shards):
    import duckdb

    folder, inputs = shards
    games = pgn960.games(inputs)
    from_files = duckdb.sql(SCORE.format(source=f"'{folder}/shard-*.parquet'")).fetchall()
    from_table = duckdb.sql(SCORE.format(source="games")).fetchall()
    assert from_files == from_table
    assert sum(games for _, _, games, _ in from_files) > 100


def test_polars_reads_shards_and_the_table_alike(shards):
    import polars as pl

    folder, inputs = shards

    def bands(games):
        score = (
            pl.when(pl.col("result") == "1-0").then(1.0)
            .when(pl.col("result") == "1/2-1/2").then(0.5)
            .when(pl.col("result") == "0-1").then(0.0)
        )
        return (
            games.filter(pl.col("kind") == "chess960")
            .with_columns(band=((pl.col("white_elo") + pl.col("black_elo")) // 2 // 400 * 400))
            .group_by("band")
            .agg(games=pl.len(), plies=pl.col("plies").mean(), white_score=score.mean())
            .sort("band")
            .collect()
        )

    from_files = bands(pl.scan_parquet(f"{folder}/shard-*.parquet"))
    from_table = bands(pl.from_arrow(pgn960.games(inputs)).lazy())
    assert from_files.equals(from_table)
    assert from_files["games"].sum() == 800


def test_spark_reads_the_shards(shards):
    pytest.importorskip("pyspark")
    import duckdb
    from pyspark.sql import SparkSession

    folder, inputs = shards
    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    try:
        spark.read.parquet(f"{folder}/shard-*.parquet").createOrReplaceTempView("shards")
        rows = spark.sql(SCORE.format(source="shards")).collect()
        from_spark = [(r.scharnagl, r.position, r.games, float(r.white_score)) for r in rows]
    finally:
        spark.stop()
    games = pgn960.games(inputs)
    assert from_spark == duckdb.sql(SCORE.format(source="games")).fetchall()
