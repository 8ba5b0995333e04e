"""Per-start-position statistics over many shards with Dask, merged
exactly: equal, byte for byte, to one run over all the shards.

Each shard is counted by ``pgn960.count`` on a worker; the counts are
integer sums, so adding them up (in any order, on any machine) gives the
counts of one run, and the scores, intervals and tests are computed once,
from the sums, by ``Counts.table()`` and ``Counts.summary()``.

    python dask_stats.py shard-*.pgn.zst
"""

import operator
import sys

import dask.bag as db
from dask.distributed import Client, LocalCluster

import pgn960


def count_shards(shards, **options):
    """The counts of every shard, added up on the cluster (``options`` as
    for ``pgn960.count``): the counts of one run over all of them."""
    per_shard = db.from_sequence(shards, npartitions=len(shards)).map(
        pgn960.count, threads=1, **options
    )
    return per_shard.fold(operator.add, initial=pgn960.Counts()).compute()


if __name__ == "__main__":
    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster):
        counts = count_shards(sys.argv[1:])
    table = counts.table().sort_by([("games", "descending")])
    print(table.select(["scharnagl", "position", "games", "white_score"]).slice(0, 5))
    print("significant:", counts.summary()["significant"])
