#!/usr/bin/env python3
"""Reference values for the tests across positions of `pgn960 stats`,
computed independently of pgn960: scipy for the distributions, the
chi-square test and the Benjamini-Hochberg q-values, statsmodels for the
DerSimonian-Laird estimate of tau^2, python-chess for the positions.

    pip install scipy numpy statsmodels chess
    python3 testdata/stats/reference.py shrinkage      # src/stats/analysis/shrinkage.rs
    python3 testdata/stats/reference.py elo            # src/stats/analysis/elo.rs
    python3 testdata/stats/reference.py research       # tests/stats_research.rs
    python3 testdata/stats/reference.py research Event # the same, grouped by Event

The numbers printed are copied into the tests named above.
"""

import json
import math
import re
import sys
from pathlib import Path

import chess
import numpy as np
from scipy.stats import chi2, chi2_contingency, false_discovery_control, norm
from statsmodels.stats.meta_analysis import combine_effects

Z_95 = 1.959964


def wdl_test(wdl):
    """Pearson's chi-square over positions x results, empty rows and
    columns dropped; (chi2, df, p) or Nones."""
    table = np.array([row for row in wdl if sum(row) > 0], dtype=float)
    if table.size == 0:
        return None, None, None
    table = table[:, table.sum(axis=0) > 0]
    rows, cols = table.shape
    df = (rows - 1) * (cols - 1)
    if df == 0:
        return 0.0, 0, None
    result = chi2_contingency(table, correction=False)
    assert result.dof == df
    return float(result.statistic), df, float(result.pvalue)


def shrinkage(wdl_by_id):
    """DerSimonian-Laird over the positions with finished games:
    (mu, tau2, {id: (estimate, low, high)}) or None."""
    ids = [i for i, (w, d, l) in sorted(wdl_by_id.items()) if w + d + l > 0]
    if len(ids) < 2:
        return None
    w_all = sum(wdl_by_id[i][0] for i in ids)
    d_all = sum(wdl_by_id[i][1] for i in ids)
    l_all = sum(wdl_by_id[i][2] for i in ids)
    n_all = w_all + d_all + l_all
    mean = (w_all + d_all / 2) / n_all
    sigma2 = (w_all * (1 - mean) ** 2 + d_all * (0.5 - mean) ** 2 + l_all * mean**2) / n_all
    if sigma2 == 0:
        return None
    n = np.array([sum(wdl_by_id[i]) for i in ids], dtype=float)
    s = np.array([(wdl_by_id[i][0] + wdl_by_id[i][1] / 2) for i in ids]) / n
    v = sigma2 / n
    # statsmodels' method-of-moments (DerSimonian-Laird) tau^2, untruncated.
    fit = combine_effects(s, v, method_re="dl")
    tau2 = max(0.0, float(fit.tau2))
    weights = 1 / (v + tau2)
    mu = float(np.sum(weights * s) / np.sum(weights))
    if tau2 > 0:
        assert abs(mu - fit.mean_effect_re) < 1e-12, (mu, fit.mean_effect_re)
    b = tau2 / (tau2 + v)
    estimate = mu + b * (s - mu)
    half = Z_95 * np.sqrt(b * v)
    low = np.maximum(0.0, estimate - half)
    high = np.minimum(1.0, estimate + half)
    return mu, tau2, {i: (estimate[k], low[k], high[k]) for k, i in enumerate(ids)}


def elo_tests(games):
    """games: (id, points or None, white elo or None, black elo or None).
    Per position with finished rated games: n', (O - E)/n', and where
    V > 0, z, p and q; and the test over all positions."""
    sums = {}
    for position, points, white, black in games:
        if points is None or white is None or black is None:
            continue
        p = 1 / (1 + 10 ** ((black - white) / 400))
        n, o, e, v = sums.get(position, (0, 0.0, 0.0, 0.0))
        sums[position] = (n + 1, o + points, e + p, v + p * (1 - p))
    per = {i: {"n": n, "vs_elo": (o - e) / n} for i, (n, o, e, v) in sums.items()}
    tested = sorted(i for i, (n, o, e, v) in sums.items() if v > 0)
    summary = {"elo_positions": len(tested), "elo_games": sum(sums[i][0] for i in tested)}
    if not tested:
        summary.update(elo_delta=None, elo_q=None, elo_df=None, elo_p=None)
        return per, summary
    delta = sum(sums[i][1] - sums[i][2] for i in tested) / summary["elo_games"]
    z = {i: (sums[i][1] - sums[i][2] - sums[i][0] * delta) / math.sqrt(sums[i][3]) for i in tested}
    p = {i: float(2 * norm.sf(abs(z[i]))) for i in tested}
    q = dict(zip(tested, false_discovery_control([p[i] for i in tested], method="bh")))
    for i in tested:
        per[i].update(z=z[i], p=p[i], q=float(q[i]))
    df = len(tested) - 1
    elo_q = sum(z[i] ** 2 for i in tested)
    summary.update(
        elo_delta=delta,
        elo_q=elo_q,
        elo_df=df,
        elo_p=float(chi2.sf(elo_q, df)) if df > 0 else None,
    )
    return per, summary


ELO = re.compile(r"^\d+$")


def rating(value):
    value = (value or "").strip()
    if not ELO.match(value) or not 1 <= int(value) <= 4000:
        return None
    return int(value)


POINTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}


def read_pgn(path, group_by):
    """(group, id, points or None, white elo, black elo) per game: tags
    only, every game with a FEN of a Chess960 start."""
    games = []
    for block in Path(path).read_text().split("\n\n"):
        tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', block, re.M))
        if "FEN" not in tags:
            continue
        position = chess.Board(tags["FEN"], chess960=True).chess960_pos()
        group = tags.get(group_by, "?") if group_by else ""
        points = POINTS.get(tags.get("Result", "").strip())
        games.append((group, position, points, rating(tags.get("WhiteElo")), rating(tags.get("BlackElo"))))
    return games


def rust(value):
    """A value as a Rust literal: Some(f64) / None, for the tests."""
    if value is None:
        return "None"
    return f"Some({float(value)!r})"


def research(group_by):
    """Prints, per group of research.pgn, the expected research columns
    of each row as Rust literals, `(scharnagl, elo_games, [white_score_vs_elo,
    z, p_value, q_value, white_score_shrunk, _low, _high])`, and the
    expected `--summary` object."""
    path = Path(__file__).with_name("research.pgn")
    games = read_pgn(path, group_by)
    for group in sorted({g[0] for g in games}):
        mine = [g[1:] for g in games if g[0] == group]
        wdl = {}
        for position, points, _, _ in mine:
            w, d, l = wdl.get(position, (0, 0, 0))
            wdl[position] = (w + (points == 1.0), d + (points == 0.5), l + (points == 0.0))
        per, summary = elo_tests(mine)
        fit = shrinkage(wdl)
        chi, df, p = wdl_test([wdl[i] for i in sorted(wdl)])
        finished = [sum(wdl[i]) for i in sorted(wdl) if sum(wdl[i]) > 0]
        print(f"group {group!r}: rows")
        for i in sorted(wdl):
            e = per.get(i, {})
            s = fit[2].get(i) if fit else None
            cells = [e.get("vs_elo"), e.get("z"), e.get("p"), e.get("q")]
            cells += list(s) if s else [None] * 3
            print(f"    ({i}, {e.get('n', 0)}, [{', '.join(rust(c) for c in cells)}]),")
        tests = {
            "positions": len(finished),
            "finished_games": sum(finished),
            "wdl_chi2": chi,
            "wdl_df": df,
            "wdl_p": p,
            **summary,
            "shrink_mu": fit[0] if fit else None,
            "shrink_tau2": fit[1] if fit else None,
            "significant": sorted(i for i in per if per[i].get("q", 1) < 0.05),
        }
        print(f"group {group!r}: summary")
        print("    " + json.dumps(tests))


# The table of the unit test in src/stats/analysis/shrinkage.rs: (W, D, L).
SHRINKAGE_TABLE = {
    3: (40, 30, 30),
    10: (5, 2, 3),
    77: (120, 100, 80),
    400: (1, 0, 0),
    518: (20, 50, 30),
    901: (60, 10, 30),
}

# The games of the unit test in src/stats/analysis/elo.rs:
# (position, points, WhiteElo, BlackElo).
ELO_GAMES = [
    (1, 1.0, 2500, 2400), (1, 0.5, 2400, 2400), (1, 1.0, 2300, 2500), (1, 0.0, 2600, 2450),
    (2, 0.0, 2500, 2400), (2, 0.5, 2450, 2500), (2, 0.5, 2700, 2300), (2, 1.0, 2500, 2500),
    (2, 0.0, 2350, 2400),
    (3, 1.0, 2500, 2500), (3, 1.0, 2400, 2600), (3, 1.0, 2550, 2500),
]


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "research"
    if what == "shrinkage":
        mu, tau2, estimates = shrinkage(SHRINKAGE_TABLE)
        print("mu", repr(mu), "tau2", repr(tau2))
        for i, (e, lo, hi) in estimates.items():
            print(i, repr(float(e)), repr(float(lo)), repr(float(hi)))
    elif what == "elo":
        per, summary = elo_tests(ELO_GAMES)
        for i in sorted(per):
            print(i, {k: float(v) if isinstance(v, float) else v for k, v in per[i].items()})
        print(summary)
    else:
        research(sys.argv[2] if len(sys.argv) > 2 else None)


if __name__ == "__main__":
    main()
