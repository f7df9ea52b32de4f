"""``bench_group_search.py --sections defaults`` and ``--sections totals``: the search
as a user runs it, with a total ε (every parameter at its default but the thresholds)."""

from __future__ import annotations

import json
import warnings

import numpy as np

from _common import RESULTS_DIR, print_table

from skdp_anomaly import NoisyGroupSearch


# -------------------------------------------------------------- defaults
# The search as a user runs it: every parameter at its default except the public
# thresholds. "today" is the same section run on the code before the bounded
# default budget and the "no anomaly" answer (results/group_search_defaults_before.json).
DEFAULT_SCENARIOS = (
    # name, n, anomaly score (None: no anomaly), low, high, runs
    ("planted, n = 1000, x* = t_h", 1000, 2.0, 1.0, 2.0, 200),
    ("planted, n = 1000, x* = 1.5 t_h", 1000, 3.0, 1.0, 2.0, 200),
    ("planted, n = 10⁵, x* = t_h", 100_000, 2.0, 1.0, 2.0, 40),
    ("none, n = 1000", 1000, None, 1.0, 2.0, 100),
    ("none, n = 10⁵", 100_000, None, 1.0, 2.0, 12),
    ("real: breast cancer IF, none", "cancer", None, 0.5, 0.75, 100),
    ("real: digits IF, none", "digits", None, 0.5, 0.75, 60),
    ("real: breast cancer IF, planted at t_h", "cancer", 0.75, 0.5, 0.75, 200),
)


def isolation_scores(name: str) -> np.ndarray:
    """Liu, Ting and Zhou's anomaly score s ∈ (0, 1] of scikit-learn's IsolationForest
    (``-score_samples``) on a scikit-learn data set that installs offline."""
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.ensemble import IsolationForest

    X = (load_breast_cancer if name == "cancer" else load_digits)(return_X_y=True)[0]
    return -IsolationForest(random_state=0).fit(X).score_samples(X)


def defaults_scenario(spec, seed: int) -> dict:
    """One scenario, ``runs`` searches with the defaults; per run what a user sees."""

    name, n, anomaly, low, high, runs = spec
    base = isolation_scores(n) if isinstance(n, str) else None
    out = {
        "found": [],
        "no_anomaly": [],
        "flagged": [],
        "epsilon": [],
        "halted": [],
        "top3_flagged": [],
    }
    plan = None
    for r in range(runs):
        rng = np.random.default_rng([seed, r])
        x = base.copy() if base is not None else rng.uniform(0.0, low, n)
        i_star = None
        if anomaly is not None:
            i_star = int(rng.integers(x.size))
            x[i_star] = anomaly
        est = NoisyGroupSearch(low=low, high=high, random_state=int(rng.integers(2**31)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan = est.privacy_cost().epsilon
            labels = est.fit_predict(x.reshape(-1, 1))
        flagged = np.flatnonzero(labels == -1)
        out["found"].append(i_star is not None and i_star in flagged)
        out["no_anomaly"].append(flagged.size == 0)
        out["flagged"].append(int(flagged.size))
        out["epsilon"].append(float(est.privacy_spent_.epsilon))
        out["halted"].append(str(est.halted_by_))
        top3 = np.argsort(x)[-3:]
        out["top3_flagged"].append(bool(np.isin(flagged, top3).any()))
    eps = np.asarray(out["epsilon"])
    halted = {h: out["halted"].count(h) / runs for h in sorted(set(out["halted"]))}
    return {
        "name": name,
        "n": int(x.size),
        "anomaly": anomaly,
        "low": low,
        "high": high,
        "runs": runs,
        "plan_epsilon": plan,
        "found": float(np.mean(out["found"])) if anomaly is not None else None,
        "no_anomaly": float(np.mean(out["no_anomaly"])),
        "mean_flagged": float(np.mean(out["flagged"])),
        "top3_flagged": float(np.mean(out["top3_flagged"])),
        "median_epsilon": float(np.median(eps)),
        "mean_epsilon": float(eps.mean()),
        "p90_epsilon": float(np.quantile(eps, 0.9)),
        "max_epsilon": float(eps.max()),
        "halted_by": halted,
    }


def section_defaults(args) -> list:
    from joblib import Parallel, delayed

    scenarios = DEFAULT_SCENARIOS
    if args.quick:
        scenarios = [(*s[:5], max(10, s[5] // 5)) for s in scenarios]
    rows = Parallel(n_jobs=args.jobs)(
        delayed(defaults_scenario)(s, i) for i, s in enumerate(scenarios)
    )
    before_path = RESULTS_DIR / "group_search_defaults_before.json"
    before = {}
    if before_path.exists() and args.label != "before":
        before = {r["name"]: r for r in json.loads(before_path.read_text())["defaults"]}

    def rate(r):
        if r is None:
            return "–"
        return f"{r['found']:.2f}" if r["anomaly"] is not None else f"{r['no_anomaly']:.2f}"

    def eps(r):
        return "–" if r is None else f"{r['median_epsilon']:.0f} / {r['p90_epsilon']:.0f}"

    def plan(r):
        return (
            "–"
            if r is None
            else (f"{r['plan_epsilon']:.0f}" if r["plan_epsilon"] is not None else "–")
        )

    print_table(
        "Defaults — found (planted) or 'no anomaly' (none): today vs new",
        [
            "scenario",
            "runs",
            "rate, today",
            "rate, new",
            "ε median / p90, today",
            "ε median / p90, new",
            "privacy_cost(), today",
            "privacy_cost(), new",
            "flagged, new (mean)",
            "halted by, new",
        ],
        [
            [
                r["name"],
                r["runs"],
                rate(before.get(r["name"])),
                rate(r),
                eps(before.get(r["name"])),
                eps(r),
                plan(before.get(r["name"])),
                plan(r),
                f"{r['mean_flagged']:.2f}",
                ", ".join(f"{k} {v:.0%}" for k, v in r["halted_by"].items()),
            ]
            for r in rows
        ],
    )
    return rows


# ---------------------------------------------------------------- totals
TOTALS = (2.0, 5.0, 10.0, 20.0, 50.0)
TOTAL_SIZES = (1000, 100_000)


def totals_run(n: int, total: float | None, runs: int, seed: int) -> dict:
    """``runs`` searches at the total ``total`` (None: no anomaly, the default total):
    low = 1, high = 2.5, uniform [0, 1) scores and one planted score 3.0."""

    found, flagged, spent, halted = [], [], [], []
    plan = None
    for r in range(runs):
        rng = np.random.default_rng([seed, n, r])
        x = rng.uniform(0.0, 1.0, n)
        i_star = int(rng.integers(n))
        if total is not None:
            x[i_star] = 3.0
        kw = {} if total is None else {"epsilon": total}
        est = NoisyGroupSearch(low=1.0, high=2.5, random_state=int(rng.integers(2**31)), **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(x.reshape(-1, 1))
        found.append(bool(i_star in est.candidates_))
        flagged.append(bool(est.candidates_.size > 0))
        spent.append(float(est.privacy_spent_.epsilon))
        halted.append(str(est.halted_by_))
        plan = (est.query_epsilon_, est.n_queries_planned_)
    return {
        "n": n,
        "epsilon": total if total is not None else 10.0,
        "anomaly": total is not None,
        "runs": runs,
        "query_epsilon": plan[0],
        "n_queries_planned": plan[1],
        "found": float(np.mean(found)),
        "flagged": float(np.mean(flagged)),
        "median_spent": float(np.median(spent)),
        "max_spent": float(np.max(spent)),
        "halted_by": {h: halted.count(h) / runs for h in sorted(set(halted))},
    }


def section_totals(args) -> list:
    """Found-rate against the total ε, and the false-find rate at the default total."""
    from joblib import Parallel, delayed

    runs = 20 if args.quick else 100
    jobs = [(n, t) for n in TOTAL_SIZES for t in TOTALS] + [(n, None) for n in TOTAL_SIZES]
    rows = Parallel(n_jobs=args.jobs)(delayed(totals_run)(n, t, runs, 7) for n, t in jobs)
    planted = [r for r in rows if r["anomaly"]]
    table = []
    for n in TOTAL_SIZES:
        cells = {r["epsilon"]: r for r in planted if r["n"] == n}
        table.append(
            [f"{n:,}".replace(",", " "), "found"] + [f"{cells[t]['found']:.2f}" for t in TOTALS]
        )
        table.append(["", "median ε spent"] + [f"{cells[t]['median_spent']:.1f}" for t in TOTALS])
        table.append(
            ["", "query_epsilon_ × planned"]
            + [f"{cells[t]['query_epsilon']:.3g} × {cells[t]['n_queries_planned']}" for t in TOTALS]
        )
    print_table(
        f"Found-rate against the total ε ({runs} seeded runs each; low = 1, high = 2.5, "
        "one score 3.0 among uniform [0, 1))",
        ["n", ""] + [f"ε = {t:g}" for t in TOTALS],
        table,
    )
    print_table(
        "No anomaly, the default total ε = 10",
        ["n", "false finds", "median ε spent", "halted by"],
        [
            [
                r["n"],
                f"{r['flagged']:.2f}",
                f"{r['median_spent']:.1f}",
                ", ".join(f"{k} {v:.0%}" for k, v in r["halted_by"].items()),
            ]
            for r in rows
            if not r["anomaly"]
        ],
    )
    return rows
