#!/usr/bin/env python3
"""Reference values for the tests across positions of `pgn960 stats`,
computed independently of pgn960's code: numpy and scipy (distributions,
optimisers, quadrature, root finding, the chi-square test, the
Benjamini-Hochberg q-values), statsmodels (the DerSimonian-Laird
tau^2 and Cochran's Q), python-chess (the positions). Where pgn960
iterates (Newton, EM, a grid), this script maximises or integrates with
scipy's general-purpose routines instead, so that agreement checks the
formulas, not one implementation against itself.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy scipy statsmodels chess
    /tmp/venv/bin/python testdata/stats/reference.py units          # unit tests in src/stats/analysis
    /tmp/venv/bin/python testdata/stats/reference.py research       # tests/stats_research.rs
    /tmp/venv/bin/python testdata/stats/reference.py research Event # the same, grouped by Event

Versions used for the numbers in the tests: numpy 2.4.6, scipy 1.17.1,
statsmodels 0.15.0, python-chess 1.11.2 (Python 3.11). The numbers
printed are copied into the tests named above.
"""

import json
import math
import re
import sys
from pathlib import Path

import numpy as np
from scipy import integrate, optimize, special, stats
from statsmodels.stats.meta_analysis import combine_effects

Z_95 = 1.959964
LOGIT_PER_POINT = math.log(10) / 400
BIN_WIDTH, MAX_DIFFERENCE = 10, 1000
EXACT_MAX = 500
TAU_MAX = 0.5


# --- the exact sums -------------------------------------------------------


def rating_bin(white, black):
    d = max(-MAX_DIFFERENCE, min(MAX_DIFFERENCE, white - black))
    return int(math.copysign(math.floor(abs(d) / BIN_WIDTH + 0.5), d)) if d else 0


# --- the null model ----------------------------------------------------------


def log_det_information(alpha, beta, x, n):
    p = special.expit(alpha + beta * x)
    h = n * p * (1 - p)
    return math.log(h.sum() * (h * x * x).sum() - (h * x).sum() ** 2)


def firth(x, w, l):
    """Firth's penalised logistic fit (slope when x varies), by
    scipy.optimize.minimize (BFGS) of -(loglik + 1/2 log det I)."""
    x, w, l = map(np.asarray, (x, w, l))
    n = w + l
    if np.ptp(x) == 0:
        # One parameter: the penalised estimate is log((W + 1/2)/(L + 1/2)).
        return math.log((w.sum() + 0.5) / (l.sum() + 0.5)), 0.0

    def f(t):
        eta = t[0] + t[1] * x
        ll = -(w * np.logaddexp(0, -eta) + l * np.logaddexp(0, eta)).sum()
        return -(ll + 0.5 * log_det_information(t[0], t[1], x, n))

    r = optimize.minimize(f, [0.0, 0.0], method="BFGS", options=dict(gtol=1e-11))
    r = optimize.minimize(f, r.x, method="Nelder-Mead", options=dict(xatol=1e-12, fatol=1e-14, maxiter=20000))
    return float(r.x[0]), float(r.x[1])


def contaminated_objective(alpha, beta, eps, x, w, l):
    eta = alpha + beta * x
    p = eps + (1 - 2 * eps) * special.expit(eta)
    return (w * np.log(p) + l * np.log1p(-p)).sum() + 0.5 * log_det_information(alpha, beta, x, w + l)


def fit_decisive(x, w, l):
    """(alpha, beta, eps): the maximum of the penalised contaminated
    likelihood over eps in [0, 1/4], by Nelder-Mead from the Firth fit;
    eps = 0 (the Firth fit) unless twice the gain exceeds the 99% point
    of chi-square(1)."""
    x, w, l = map(lambda a: np.asarray(a, float), (x, w, l))
    a0, b0 = firth(x, w, l)
    if np.ptp(x) == 0:
        return a0, 0.0, 0.0
    plain = contaminated_objective(a0, b0, 0.0, x, w, l)

    def f(t):
        eps = 0.25 * special.expit(t[2])
        return -contaminated_objective(t[0], t[1], eps, x, w, l)

    best = None
    for start in (-6.0, -3.0, -1.0):
        r = optimize.minimize(f, [a0, b0, start], method="Nelder-Mead",
                              options=dict(xatol=1e-12, fatol=1e-14, maxiter=40000, maxfev=80000))
        if best is None or r.fun < best.fun:
            best = r
    if 2 * (-best.fun - plain) < stats.chi2.ppf(0.99, 1):
        return a0, b0, 0.0
    return float(best.x[0]), float(best.x[1]), float(0.25 * special.expit(best.x[2]))


def draw_probability(nu, eta):
    return nu / (nu + 2 * np.cosh(eta / 2))


def fit_nu(eta, n, d):
    """nu by maximum likelihood given eta per cell: brentq on the score
    in log nu."""
    if d.sum() == 0:
        return 0.0
    if d.sum() == n.sum():
        return math.inf
    g = lambda t: d.sum() - (n * draw_probability(math.exp(t), eta)).sum()
    return math.exp(optimize.brentq(g, -700, 700, xtol=1e-14))


class Model:
    """The null model of a group: rated cells by bin, unrated apart."""

    def __init__(self, rated, unrated):
        self.rated = self.unrated = None
        if rated:
            bins = sorted(rated)
            x = np.array(bins, float) * BIN_WIDTH * LOGIT_PER_POINT
            c = np.array([rated[b] for b in bins], float)
            dec = c[:, 0] + c[:, 2] > 0
            if dec.any():
                a, b, e = fit_decisive(x[dec], c[dec, 0], c[dec, 2])
                nu = fit_nu(a + b * x, c.sum(1), c[:, 1])
                self.rated = (a, b, e, nu)
            elif c[:, 1].sum() > 0:
                self.rated = (0.0, 0.0, 0.0, math.inf)
        if sum(unrated) > 0:
            w, d, l = unrated
            if w + l > 0:
                a = math.log((w + 0.5) / (l + 0.5))
                nu = fit_nu(np.array([a]), np.array([w + d + l], float), np.array([d], float))
                self.unrated = (a, 0.0, 0.0, nu)
            else:
                self.unrated = (0.0, 0.0, 0.0, math.inf)

    def category(self, bin):
        if bin is None:
            return (self.unrated, 0.0) if self.unrated else None
        return (self.rated, bin * BIN_WIDTH * LOGIT_PER_POINT) if self.rated else None

    @staticmethod
    def win_given_decisive(cat, x):
        a, b, e, nu = cat
        return None if math.isinf(nu) else e + (1 - 2 * e) * special.expit(a + b * x)

    @staticmethod
    def moments(cat, x):
        a, b, e, nu = cat
        if math.isinf(nu):
            return 0.5, 0.0
        eta = a + b * x
        pd = draw_probability(nu, eta)
        pw = (1 - pd) * (e + (1 - 2 * e) * special.expit(eta))
        mean = pw + pd / 2
        return mean, pw + pd / 4 - mean * mean


# --- per-position tests -------------------------------------------------------


def poisson_binomial(cells):
    pmf = np.array([1.0])
    for m, p in cells:
        pmf = np.convolve(pmf, stats.binom.pmf(np.arange(m + 1), m, p))
    return pmf


def central_p(cells, wins):
    pmf = poisson_binomial(cells)
    return min(1.0, 2 * min(pmf[: wins + 1].sum(), pmf[wins:].sum()))


def bh(p):
    return [float(q) for q in stats.false_discovery_control(p, method="bh")] if len(p) else []


# --- shrinkage ---------------------------------------------------------------


def log_post_tau(tau, r, v):
    w = 1 / (v + tau * tau)
    vmu = 1 / w.sum()
    mu = (w * r).sum() * vmu
    return 0.5 * math.log(vmu) + 0.5 * np.log(w).sum() - 0.5 * (w * (r - mu) ** 2).sum(), mu, vmu


def hierarchical(r, v):
    """The posterior of each theta - e under r ~ N(mu + u, v), u ~ N(0,
    tau^2), flat mu, tau uniform on [0, 1/2], by scipy.integrate.quad
    over tau; quantiles by brentq. (mean mu, mean tau^2, [(mean, q025,
    q975)])."""
    r, v = np.asarray(r, float), np.asarray(v, float)
    top = max(log_post_tau(t, r, v)[0] for t in np.linspace(0, TAU_MAX, 2001))
    dens = lambda t: math.exp(log_post_tau(t, r, v)[0] - top)
    opts = dict(limit=500, epsabs=1e-13, epsrel=1e-11, points=np.linspace(0, TAU_MAX, 41)[1:-1])
    z = integrate.quad(dens, 0, TAU_MAX, **opts)[0]
    e_mu = integrate.quad(lambda t: dens(t) * log_post_tau(t, r, v)[1], 0, TAU_MAX, **opts)[0] / z
    e_t2 = integrate.quad(lambda t: dens(t) * t * t, 0, TAU_MAX, **opts)[0] / z
    out = []
    for rj, vj in zip(r, v):
        def comp(t):
            _, mu, vmu = log_post_tau(t, r, v)
            b = vj / (vj + t * t)
            return mu + (1 - b) * (rj - mu), math.sqrt((1 - b) * vj + b * b * vmu)
        mean = integrate.quad(lambda t: dens(t) * comp(t)[0], 0, TAU_MAX, **opts)[0] / z
        cdf = lambda y: integrate.quad(lambda t: dens(t) * stats.norm.cdf((y - comp(t)[0]) / comp(t)[1]), 0, TAU_MAX, **opts)[0] / z
        lo = optimize.brentq(lambda y: cdf(y) - 0.025, -2, 2, xtol=1e-13)
        hi = optimize.brentq(lambda y: cdf(y) - 0.975, -2, 2, xtol=1e-13)
        out.append((mean, lo, hi))
    return e_mu, e_t2, out


def heterogeneity(r, v):
    """Cochran's Q and tau^2 (statsmodels, DerSimonian-Laird), I^2, and
    the Q-profile interval (brentq on the generalised Q)."""
    r, v = np.asarray(r, float), np.asarray(v, float)
    k = len(r)
    res = combine_effects(r, v, method_re="dl")
    q = float(res.q)
    tau2 = max(0.0, float(res.tau2))

    def gen_q(t2):
        w = 1 / (v + t2)
        mu = (w * r).sum() / w.sum()
        return (w * (r - mu) ** 2).sum()

    def profile(target):
        if q <= target:
            return 0.0
        return optimize.brentq(lambda t2: gen_q(t2) - target, 0, 10, xtol=1e-16, rtol=1e-14)

    return dict(q=q, df=k - 1, i2=max(0.0, (q - (k - 1)) / q) if q > 0 else None, tau2=tau2,
                low=profile(stats.chi2.ppf(0.975, k - 1)), high=profile(stats.chi2.ppf(0.025, k - 1)))


# --- intervals and power ------------------------------------------------------


def score_interval(w, d, l, group_rate):
    n = w + d + l
    s = (w + d / 2) / n
    nu = 0.0 if d == 0 else min((d + 0.5) / (n + 1), group_rate)
    f = lambda t: (s - t) ** 2 * n - Z_95 ** 2 * (t * (1 - t) - min(nu, 2 * min(t, 1 - t)) / 4)
    lo = 0.0 if f(0.0) <= 0 else optimize.brentq(f, 0.0, s, xtol=1e-15)
    hi = 1.0 if f(1.0) <= 0 else optimize.brentq(f, s, 1.0, xtol=1e-15)
    return lo, hi


def detectable_shift(v, tests):
    return (stats.norm.ppf(1 - 0.025 / tests) + stats.norm.ppf(0.8)) * math.sqrt(v)


def heterogeneity_power(v, tau):
    """P(Q > chi2_{k-1, .95}) under tau: Q's mean and variance from the
    traces of the quadratic form (numpy), Q a scaled chi-square."""
    v = np.asarray(v, float)
    k = len(v)
    w = 1 / v
    A = np.diag(w) - np.outer(w, w) / w.sum()
    S = np.diag(v + tau * tau)
    mean = np.trace(A @ S)
    var = 2 * np.trace(A @ S @ A @ S)
    a, b = var / (2 * mean), 2 * mean * mean / var
    return float(stats.chi2.sf(stats.chi2.ppf(0.95, k - 1) / a, b))


def detectable_tau(v):
    return optimize.brentq(lambda t: heterogeneity_power(v, t) - 0.8, 1e-9, 0.5, xtol=1e-14)


# --- a group ---------------------------------------------------------------


def analyse(games):
    """games: (position, points or None, white elo or None, black elo or
    None). Returns (per-position rows, summary)."""
    pos = {}
    for position, points, white, black in games:
        p = pos.setdefault(position, dict(wdl=[0, 0, 0], n_elo=0, o=0.0, e=0.0, bins={}, unrated=[0, 0, 0]))
        if points is None:
            continue
        col = {1.0: 0, 0.5: 1, 0.0: 2}[points]
        p["wdl"][col] += 1
        if white is not None and black is not None:
            p["n_elo"] += 1
            p["o"] += points
            p["e"] += 1 / (1 + 10 ** ((black - white) / 400))
            p["bins"].setdefault(rating_bin(white, black), [0, 0, 0])[col] += 1
        else:
            p["unrated"][col] += 1
    rated, unrated = {}, [0, 0, 0]
    for p in pos.values():
        for b, c in p["bins"].items():
            rated.setdefault(b, [0, 0, 0])
            rated[b] = [a + x for a, x in zip(rated[b], c)]
        unrated = [a + x for a, x in zip(unrated, p["unrated"])]
    model = Model(rated, unrated)
    rows = {}
    tests = {}
    cochran = True
    kurt = 0.0
    for i in sorted(pos):
        p = pos[i]
        cells, wins = [], 0
        for b, (w, d, l) in sorted(p["bins"].items()):
            if w + l and model.category(b):
                cat, x = model.category(b)
                pr = Model.win_given_decisive(cat, x)
                if pr is not None:
                    cells.append((w + l, pr)); wins += w
        w, d, l = p["unrated"]
        if w + l and model.category(None):
            cat, x = model.category(None)
            pr = Model.win_given_decisive(cat, x)
            if pr is not None:
                cells.append((w + l, pr)); wins += w
        m = sum(c[0] for c in cells)
        e = sum(c[0] * c[1] for c in cells)
        var = sum(c[0] * c[1] * (1 - c[1]) for c in cells)
        if var > 0:
            tests[i] = dict(decisive=m, expected=e, z=(wins - e) / math.sqrt(var), p=central_p(cells, wins))
            cochran &= e >= 5 and m - e >= 5
            kurt += sum(c[0] * c[1] * (1 - c[1]) * (1 - 6 * c[1] * (1 - c[1])) for c in cells) / var ** 2
    ids = sorted(tests)
    # chi-square only when Cochran's rule holds and Q's variance is within
    # 5% of chi-square's
    cochran = cochran and ids and abs(kurt / (2 * len(ids))) <= 0.05
    q = dict(zip(ids, bh([tests[i]["p"] for i in ids])))
    # shrinkage units
    units = {}
    for i in sorted(pos):
        p = pos[i]
        n = sum(p["wdl"])
        if n == 0:
            continue
        mean = varsum = 0.0
        ok = True
        for b, c in p["bins"].items():
            cat = model.category(b)
            if not cat:
                ok = False; break
            mm, vv = Model.moments(*cat)
            mean += sum(c) * mm; varsum += sum(c) * vv
        if sum(p["unrated"]):
            cat = model.category(None)
            if not cat:
                ok = False
            else:
                mm, vv = Model.moments(*cat)
                mean += sum(p["unrated"]) * mm; varsum += sum(p["unrated"]) * vv
        if not ok:
            continue
        s = (p["wdl"][0] + p["wdl"][1] / 2) / n
        if varsum > 0:
            units[i] = (mean / n, s - mean / n, varsum / n / n)
    uid = sorted(units)
    shrunk = {}
    h_mu = h_t2 = None
    if uid:
        h_mu, h_t2, est = hierarchical([units[i][1] for i in uid], [units[i][2] for i in uid])
        for i, (m, lo, hi) in zip(uid, est):
            e = units[i][0]
            shrunk[i] = tuple(min(1.0, max(0.0, e + x)) for x in (m, lo, hi))
    het = heterogeneity([units[i][1] for i in uid], [units[i][2] for i in uid]) if len(uid) > 1 else None
    total = [sum(pos[i]["wdl"][k] for i in pos) for k in range(3)]
    group_rate = total[1] / sum(total) if sum(total) else 0.0
    for i in sorted(pos):
        p = pos[i]
        t = tests.get(i, {})
        ivl = score_interval(*p["wdl"], group_rate) if sum(p["wdl"]) else (None, None)
        rows[i] = dict(elo_games=p["n_elo"], vs_elo=(p["o"] - p["e"]) / p["n_elo"] if p["n_elo"] else None,
                       z=t.get("z"), p=t.get("p"), q=q.get(i), shrunk=shrunk.get(i, (None, None, None)),
                       wdl_interval=ivl, expected=units[i][0] if i in units else None,
                       decisive=t.get("decisive"), expected_wins=t.get("expected"))
    k = len(ids)
    npar = (0 if model.rated is None or math.isinf(model.rated[3]) or not any(c[0] + c[2] for c in rated.values())
            else (2 if model.rated[1] != 0 else 1)) + (1 if unrated[0] + unrated[2] else 0)
    Q = sum(tests[i]["z"] ** 2 for i in ids)
    df = k - npar if k - npar > 0 else None
    wdl_rows = [pos[i]["wdl"] for i in sorted(pos) if sum(pos[i]["wdl"])]
    n_elo_total = sum(p["n_elo"] for p in pos.values())
    summary = dict(
        positions=len(wdl_rows), finished_games=sum(map(sum, wdl_rows)),
        elo_positions=k, elo_games=sum(tests[i]["decisive"] for i in ids),
        elo_delta=sum(p["o"] - p["e"] for p in pos.values()) / n_elo_total if n_elo_total else None,
        elo_q=Q if k else None, elo_df=df,
        elo_p=float(stats.chi2.sf(Q, df)) if df and cochran else None,
        elo_reference=("chi-square" if cochran else "monte-carlo") if df else None,
        rating_slope=model.rated[1] if model.rated and not math.isinf(model.rated[3]) else None,
        white_advantage_elo=model.rated[0] / LOGIT_PER_POINT if model.rated and not math.isinf(model.rated[3]) else None,
        random_results=model.rated[2] if model.rated and not math.isinf(model.rated[3]) else None,
        shrink_mu=h_mu, shrink_tau2=h_t2,
        heterogeneity_q=het["q"] if het else None, heterogeneity_df=het["df"] if het else None,
        i2=het["i2"] if het else None, tau2=het["tau2"] if het else None,
        tau2_low=het["low"] if het else None, tau2_high=het["high"] if het else None,
        significant=sorted(i for i in ids if q[i] < 0.05),
    )
    if wdl_rows:
        table = np.array(wdl_rows, float)
        table = table[:, table.sum(0) > 0]
        rr, cc = table.shape
        df_w = (rr - 1) * (cc - 1)
        if df_w:
            res = stats.chi2_contingency(table, correction=False)
            summary.update(wdl_chi2=float(res.statistic), wdl_df=df_w,
                           wdl_p=float(res.pvalue) if res.expected_freq.min() >= 5 else None,
                           wdl_reference="chi-square" if res.expected_freq.min() >= 5 else "monte-carlo")
        else:
            summary.update(wdl_chi2=0.0, wdl_df=0, wdl_p=None, wdl_reference=None)
    vs = [units[i][2] for i in uid]
    if vs:
        summary["median_games"] = float(np.median([sum(pos[i]["wdl"]) for i in uid]))
        summary["detectable_shift"] = detectable_shift(float(np.median(vs)), max(k, 1))
        summary["detectable_tau"] = detectable_tau(vs) if len(vs) > 1 and heterogeneity_power(vs, 0.5) >= 0.8 else None
    return rows, summary, model


# --- the fixture -------------------------------------------------------------


ELO = re.compile(r"^\d+$")


def rating(value):
    value = (value or "").strip()
    if not ELO.match(value) or not 1 <= int(value) <= 4000:
        return None
    return int(value)


POINTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}


def read_pgn(path, group_by):
    import chess
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
    if value is None:
        return "None"
    return f"Some({float(value)!r})"


SUMMARY_ORDER = ["positions", "finished_games", "wdl_chi2", "wdl_df", "wdl_p", "wdl_reference",
                 "elo_positions", "elo_games", "elo_delta", "elo_q", "elo_df", "elo_p", "elo_reference",
                 "rating_slope", "white_advantage_elo", "random_results", "shrink_mu", "shrink_tau2",
                 "heterogeneity_q", "heterogeneity_df", "i2", "tau2", "tau2_low", "tau2_high",
                 "median_games", "detectable_shift", "detectable_tau", "significant"]


def rust_summary(name, summary):
    """A `Tests` literal; a Monte-Carlo p-value has no reference here
    (None, checked apart)."""
    out = [f"pub const {name}: Tests = Tests {{"]
    for key in SUMMARY_ORDER:
        v = summary.get(key)
        if key == "significant":
            out.append(f"    significant: &{json.dumps(v)},")
        elif key in ("positions", "finished_games", "elo_positions", "elo_games"):
            out.append(f"    {key}: {v},")
        elif key in ("wdl_df", "elo_df", "heterogeneity_df"):
            out.append(f"    {key}: {'None' if v is None else f'Some({v})'},")
        elif key.endswith("reference"):
            out.append(f"    {key}: {'None' if v is None else f'Some({json.dumps(v)})'},")
        else:
            out.append(f"    {key}: {rust(v)},")
    out.append("};")
    return "\n".join(out)


def research(group_by):
    """Prints the Rust literals of tests/stats_research/reference.rs: per
    group the rows and the summary. With a grouping the q-values (and so
    `significant`) are over every group's tests together, as pgn960
    computes them."""
    path = Path(__file__).with_name("research.pgn")
    games = read_pgn(path, group_by)
    results = {}
    for group in sorted({g[0] for g in games}):
        results[group] = analyse([g[1:] for g in games if g[0] == group])
    family = [(g, i, r["p"]) for g, (rows, _, _) in results.items() for i, r in rows.items() if r["p"] is not None]
    for (g, i, _), q in zip(family, bh([f[2] for f in family])):
        results[g][0][i]["q"] = q
    for g, (rows, summary, model) in results.items():
        summary["significant"] = sorted(i for i, r in rows.items() if r["q"] is not None and r["q"] < 0.05)
        name = (g or "").upper()
        prefix = f"{name}_" if name else ""
        print(f"/// The rows of {'group ' + g if g else 'the whole fixture'}.")
        print("#[rustfmt::skip]")
        print(f"pub const {prefix}ROWS: [Row; {len(rows)}] = [")
        for i, r in rows.items():
            cells = [r["vs_elo"], r["z"], r["p"], r["q"], *r["shrunk"], *r["wdl_interval"], r["expected"], r["decisive"], r["expected_wins"]]
            print(f"    ({i}, {r['elo_games']}, [{', '.join(rust(c) for c in cells)}]),")
        print("];")
        print()
        print(f"/// The `--summary` of {'group ' + g if g else 'the whole fixture'}.")
        print("#[rustfmt::skip]")
        print(rust_summary(f"{prefix}TESTS", summary))
        print()


# --- unit-test tables ---------------------------------------------------------

# src/stats/analysis/model.rs: (bin, wins, losses) of decisive rated games.
DECISIVE = [(-60, 1, 9), (-30, 3, 6), (-10, 5, 5), (0, 9, 6), (10, 7, 3), (25, 8, 2), (40, 9, 0), (70, 6, 1)]
# steep in the middle, with two upsets at each end.
UPSETS = [(-20, 1, 15), (-10, 4, 12), (0, 10, 10), (10, 12, 4), (20, 15, 1), (-100, 2, 30), (100, 30, 2)]

# src/stats/analysis/poisson_binomial.rs: cells (games, p).
PB_CELLS = [(3, 0.2), (5, 0.7), (1, 0.5), (4, 0.93)]
PB_LARGE = [(300, 0.97), (250, 0.6), (150, 0.05)]

# src/stats/analysis/shrinkage.rs: (residual, variance) per position.
UNITS = [(0.05, 0.004), (-0.02, 0.006), (0.11, 0.01), (0.0, 0.003), (-0.07, 0.008), (0.03, 0.005)]


def units():
    x = [b * BIN_WIDTH * LOGIT_PER_POINT for b, _, _ in DECISIVE]
    print("firth DECISIVE", firth(x, [w for _, w, _ in DECISIVE], [l for _, _, l in DECISIVE]))
    xu = [b * BIN_WIDTH * LOGIT_PER_POINT for b, _, _ in UPSETS]
    fit = fit_decisive(xu, [w for _, w, _ in UPSETS], [l for _, _, l in UPSETS])
    print("firth UPSETS", firth(xu, [w for _, w, _ in UPSETS], [l for _, _, l in UPSETS]))
    print("fit_decisive UPSETS", fit, "objective", contaminated_objective(*fit, np.array(xu), np.array([w for _, w, _ in UPSETS], float), np.array([l for _, _, l in UPSETS], float)))
    for wins in (0, 4, 7, 13):
        pmf = poisson_binomial(PB_CELLS)
        print("pb", wins, repr(float(pmf[: wins + 1].sum())), repr(float(pmf[wins:].sum())), repr(central_p(PB_CELLS, wins)))
    for wins in (430, 470, 500, 520):
        pmf = poisson_binomial(PB_LARGE)
        print("pb large", wins, repr(float(pmf[: wins + 1].sum())), repr(float(pmf[wins:].sum())))
    r = [u[0] for u in UNITS]; v = [u[1] for u in UNITS]
    mu, t2, est = hierarchical(r, v)
    print("hierarchical mu", repr(mu), "tau2", repr(t2))
    for e in est:
        print("   ", tuple(repr(float(x)) for x in e))
    print("heterogeneity", heterogeneity(r, v))
    print("power", repr(detectable_shift(0.004, 600)), repr(heterogeneity_power(v, 0.05)), repr(detectable_tau(v)))
    for case in ((3, 0, 1, 0.0), (10, 60, 30, 0.6), (0, 5, 0, 0.9), (0, 5, 0, 0.3), (7, 2, 1, 0.1)):
        print("score_interval", case, tuple(repr(float(x)) for x in score_interval(*case)))


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "research"
    if what == "units":
        units()
    else:
        research(sys.argv[2] if len(sys.argv) > 2 else None)


if __name__ == "__main__":
    main()
