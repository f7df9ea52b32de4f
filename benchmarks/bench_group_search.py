"""NoisyGroupSearch: paper reproduction, Proposition 3 and speed (seed 000).

Bittner, Sarwate, Wright, "Using Noisy Binary Search for Differentially
Private Anomaly Detection" ("the paper"). Sections:

1. §6 of the paper with the §6.2 procedure: success iff the search halts
   (max posterior > α, or the budget is spent with ``halting="budget"``) and
   the anomaly is among the 4 largest posterior entries; error rate and mean
   total ε = n_queries·ε over ``--cycles`` runs. Figure 2 (three oracles × ε),
   Figure 3 (budget-limited halting), Figure 4 (posterior threshold α),
   Figure 1 (error against the threshold ratio (t_h − t_ℓ)/t_ℓ). The Yahoo S5
   A1 data is not available offline: the §6.1 preprocessing is applied to
   real statsmodels series (score = |x − rolling median(5)|, the largest score
   is "the anomaly") and to synthetic sets of the two shapes the paper names
   (a mixture of normals; scores heavily skewed toward 0), n = 1 500.
2. Proposition 3: mean queries of the binarized oracle with ``halting="bz"``
   against bound (26), read with natural logs and with log base 2.
3. Speed to α = 0.5 for n = 10⁴ … 10⁷, with the ratio of the time per query
   to one ``numpy.max`` pass over the scores, same run.

Sections 1–3 reproduce the paper in its per-query mode (``query_epsilon`` = the
paper's ε, ``epsilon`` = the total it may spend). ``--sections totals``
(:func:`section_totals`) is the search as a user runs it with a total ε:
found-rate against ``epsilon`` (``group_search_totals.json``).

Runs that hit ``max_queries`` (``--max-queries``, default 500, in
section 1) did not halt and count as errors, as in §6.2.

Run from the repository root: ``nice python benchmarks/bench_group_search.py``
(``--quick`` for a smoke run). The reference JSON is written only at default
settings (``group_search.json``); otherwise ``group_search_quick.json`` or
``group_search_custom.json``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, print_table, source_fingerprint, time_median, write_json  # noqa: E402

from skdp_anomaly import NoisyGroupSearch  # noqa: E402

ORACLES = ("direct", "binarized", "randomized_response")
SHORT = {"direct": "direct (11)", "binarized": "binarized (24)", "randomized_response": "RR (5)"}
EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
N_SYNTH = 1500
PAPER_RATIOS = {"mixture": 0.647, "skewed": 0.701}  # the paper's datasets 6 and 8


# ------------------------------------------------------------------ data
def thresholds(scores: np.ndarray) -> tuple[int, float, float]:
    """§6.1: the largest score is i*, x_j the largest other; t_h, t_ℓ at 10 % of the gap."""
    order = np.argsort(scores)
    i_star, x_star, x_j = int(order[-1]), float(scores[order[-1]]), float(scores[order[-2]])
    gap = x_star - x_j
    return i_star, x_j + 0.1 * gap, x_star - 0.1 * gap


def synthetic(shape: str, ratio: float, n: int = N_SYNTH, seed: int = 0) -> np.ndarray:
    """Non-anomalous scores of one shape, plus one anomaly placed so that the
    §6.1 thresholds have the given ratio (t_h − t_ℓ)/t_ℓ."""
    rng = np.random.default_rng(seed)
    if shape == "mixture":  # two normal components, like A1 series with level shifts
        comp = rng.random(n - 1) < 0.6
        x = np.where(comp, rng.normal(10.0, 1.0, n - 1), rng.normal(14.0, 1.5, n - 1))
        x = np.clip(x, 0.0, None)
    elif shape == "skewed":  # most mass near 0, long right tail
        x = rng.lognormal(0.0, 1.0, n - 1)
    else:
        raise ValueError(shape)
    x_j = float(x.max())
    gap = ratio * x_j / (0.8 - 0.1 * ratio)  # solves 0.8·gap / (x_j + 0.1·gap) = ratio
    pos = int(rng.integers(n))
    return np.insert(x, pos, x_j + gap)


def real_series() -> dict:
    """statsmodels series → |deviation from a centred rolling median of 5|."""
    import pandas as pd
    import statsmodels.api as sm

    out = {}
    for name, col in (("co2", "co2"), ("sunspots", "SUNACTIVITY"), ("nile", "volume")):
        s = getattr(sm.datasets, name).load_pandas().data[col].dropna().to_numpy(float)
        med = pd.Series(s).rolling(5, center=True, min_periods=1).median().to_numpy()
        out[name] = np.abs(s - med)
    return out


def dataset(name: str, scores: np.ndarray, desc: str) -> dict:
    i_star, low, high = thresholds(scores)
    return {
        "name": name,
        "scores": scores,
        "i_star": i_star,
        "low": low,
        "high": high,
        "ratio": (high - low) / low,
        "n": scores.size,
        "desc": desc,
    }


# ---------------------------------------------------------------- runner
def per_query(eps, max_queries, **kw):
    """The paper's mode: ``eps`` per query, a total of ``max_queries`` queries' worth."""
    return {"query_epsilon": eps, "epsilon": eps * max_queries, "max_queries": max_queries, **kw}


def run_cycles(scores, i_star, cycles, seed, kw):
    """One configuration over ``cycles`` seeds: success, queries and halting of each."""
    X = scores.reshape(-1, 1)
    ok, queries, halted = [], [], []
    for c in range(cycles):
        est = NoisyGroupSearch(random_state=seed * 100_003 + c, **kw).fit(X)
        stopped = est.halted_by_ in ("posterior", "bz", "budget")
        ok.append(bool(stopped and i_star in est.candidates_))
        queries.append(est.n_queries_)
        halted.append(est.halted_by_)
    return {"success": ok, "queries": queries, "halted": halted}


def summarise(res, eps):
    q = np.asarray(res["queries"], float)
    return {
        "error": 1.0 - float(np.mean(res["success"])),
        "mean_queries": float(q.mean()),
        "mean_total_eps": float(q.mean() * eps),
        "capped": float(np.mean([h == "max_queries" for h in res["halted"]])),
    }


def run_tasks(tasks, jobs):
    """tasks: list of (key, ds, eps, kw, cycles, seed) → {key: summary}."""
    from joblib import Parallel, delayed

    outs = Parallel(n_jobs=jobs)(
        delayed(run_cycles)(
            ds["scores"],
            ds["i_star"],
            cyc,
            seed,
            {
                "low": ds["low"],
                "high": ds["high"],
                **(kw if "query_epsilon" in kw else per_query(eps, **kw)),
            },
        )
        for _, ds, eps, kw, cyc, seed in tasks
    )
    return {t[0]: summarise(o, t[2]) for t, o in zip(tasks, outs)}


def cell(s):
    capped = f", {s['capped']:.0%} capped" if s["capped"] else ""
    return f"{s['error']:.2f} / {s['mean_total_eps']:.1f}{capped}"


# --------------------------------------------------------------- section 1
def section_paper(args, data):
    out = {}
    fig2_sets = [d for d in data if d["name"] in ("mixture", "skewed", "sunspots")]
    base = {"max_queries": args.max_queries, "halting": "posterior", "alpha": 0.5}
    tasks = [
        ((d["name"], o, e), d, e, {**base, "oracle": o}, args.cycles, 1)
        for d in fig2_sets
        for o in ORACLES
        for e in EPSILONS
    ]
    t0 = time.perf_counter()
    res = run_tasks(tasks, args.jobs)
    for d in fig2_sets:
        rows = [[SHORT[o]] + [cell(res[(d["name"], o, e)]) for e in EPSILONS] for o in ORACLES]
        print_table(
            f"Figure 2 — {d['name']} (n = {d['n']}, ratio {d['ratio']:.3f}): "
            "error rate / mean total ε, α = 0.5",
            ["oracle"] + [f"ε = {e}" for e in EPSILONS],
            rows,
        )
    out["figure2"] = [
        {"dataset": k[0], "oracle": k[1], "epsilon": k[2], **v} for k, v in res.items()
    ]
    print(f"({time.perf_counter() - t0:.0f} s)")

    # Figure 3: halting by the budget only; the same seeds for every budget, so
    # each budget is a checkpoint of the same search paths, as in the paper.
    budgets, eps3 = (5.0, 10.0, 20.0, 50.0), (0.5, 1.0, 2.0, 4.0)
    sets3 = [d for d in data if d["name"] in ("mixture", "skewed")]
    tasks = [
        (
            (d["name"], b, e),
            d,
            e,
            {"oracle": "direct", "halting": "budget", "epsilon": b, "query_epsilon": e},
            args.cycles,
            2,
        )
        for d in sets3
        for b in budgets
        for e in eps3
        if b >= e
    ]
    t0 = time.perf_counter()
    res = run_tasks(tasks, args.jobs)
    for d in sets3:
        rows = [
            [f"b = {b:g}"]
            + [
                f"{res[(d['name'], b, e)]['error']:.2f}" if (d["name"], b, e) in res else "–"
                for e in eps3
            ]
            for b in budgets
        ]
        print_table(
            f"Figure 3 — {d['name']}: error rate, direct oracle, halting only by the budget b",
            ["budget"] + [f"ε = {e}" for e in eps3],
            rows,
        )
    out["figure3"] = [
        {"dataset": k[0], "budget": k[1], "epsilon": k[2], **v} for k, v in res.items()
    ]
    print(f"({time.perf_counter() - t0:.0f} s)")

    alphas, eps4 = (0.5, 0.7, 0.9, 0.99), (1.0, 2.0)
    tasks = [
        (
            (d["name"], a, e),
            d,
            e,
            {
                "oracle": "direct",
                "halting": "posterior",
                "alpha": a,
                "max_queries": args.max_queries,
            },
            args.cycles,
            3,
        )
        for d in sets3
        for a in alphas
        for e in eps4
    ]
    t0 = time.perf_counter()
    res = run_tasks(tasks, args.jobs)
    for d in sets3:
        rows = [[f"α = {a}"] + [cell(res[(d["name"], a, e)]) for e in eps4] for a in alphas]
        print_table(
            f"Figure 4 — {d['name']}: error rate / mean total ε, direct oracle, no budget",
            ["threshold"] + [f"ε = {e}" for e in eps4],
            rows,
        )
    out["figure4"] = [
        {"dataset": k[0], "alpha": k[1], "epsilon": k[2], **v} for k, v in res.items()
    ]
    print(f"({time.perf_counter() - t0:.0f} s)")

    # Figure 1: ε = 1, direct oracle, every data set of its own ratio
    ratio_sets = list(data)
    tasks = [
        (
            (d["name"],),
            d,
            1.0,
            {"oracle": o, "halting": "posterior", "alpha": 0.5, "max_queries": args.max_queries},
            args.cycles,
            4,
        )
        for d in sorted(ratio_sets, key=lambda d: d["ratio"])
        for o in ("direct",)
    ]
    t0 = time.perf_counter()
    res = run_tasks(tasks, args.jobs)
    rows = [
        [
            d["name"],
            d["n"],
            f"{d['ratio']:.3f}",
            cell(res[(d["name"],)]),
            f"{res[(d['name'],)]['mean_queries']:.0f}",
        ]
        for d in sorted(ratio_sets, key=lambda d: d["ratio"])
    ]
    print_table(
        "Figure 1 — error rate against the threshold ratio, direct oracle, ε = 1, α = 0.5",
        ["data set", "n", "(t_h − t_ℓ)/t_ℓ", "error / total ε", "mean queries"],
        rows,
    )
    out["figure1"] = [
        {"dataset": k[0], "ratio": next(d["ratio"] for d in data if d["name"] == k[0]), **v}
        for k, v in res.items()
    ]
    print(f"({time.perf_counter() - t0:.0f} s)")
    return out


# --------------------------------------------------------------- section 2
def p_binarized(eps, ratio):
    return (0.5 + ratio * eps / 4.0) * math.exp(-eps * ratio)  # eq. (24)


def h_b(p, log):
    return -p * log(p) - (1 - p) * log(1 - p)


def bound26(n, eps, delta, p, log):
    """(log(n+1) + log(1/δ) + ε)/(1 − h_b(p)), log and h_b in the same base; n = rows
    (the paper searches n+1 items, so this reads the bound slightly generously)."""
    return (log(n + 1) + log(1 / delta) + eps) / (1 - h_b(p, log))


def prop3_run(n, eps, delta, runs, seed):
    """Worst case of Lemma 2: non-anomalous scores all t_ℓ = 1, anomaly t_h = 2
    (ratio 1), anomaly placed uniformly at random; the oracle errs with prob. p exactly."""
    rng = np.random.default_rng(seed)
    qs, errs, capped = [], [], 0
    for r in range(runs):
        x = np.ones(n)
        i_star = int(rng.integers(n))
        x[i_star] = 2.0
        est = NoisyGroupSearch(
            oracle="binarized",
            low=1.0,
            high=2.0,
            halting="bz",
            delta=delta,
            random_state=seed * 7919 + r,
            **per_query(eps, 20_000),
        )
        est.fit(x.reshape(-1, 1))
        qs.append(est.n_queries_)
        errs.append(int(np.argmax(est.posterior_)) != i_star)
        capped += est.halted_by_ == "max_queries"
    return {"queries": qs, "errors": errs, "capped": capped}


def section_prop3(args):
    from joblib import Parallel, delayed

    sizes = [10**k for k in range(2, 6 if not args.quick else 5)]
    combos = [(1.0, 0.05), (1.0, 0.001), (2.0, 0.05), (2.0, 0.001)]
    runs = {10**2: 400, 10**3: 300, 10**4: 100, 10**5: 30}
    if args.quick:
        runs = {k: max(10, v // 10) for k, v in runs.items()}
    jobs = [(n, e, d) for e, d in combos for n in sizes]
    t0 = time.perf_counter()
    outs = Parallel(n_jobs=args.jobs)(
        delayed(prop3_run)(n, e, d, runs[n], 10 + i) for i, (n, e, d) in enumerate(jobs)
    )
    rows, out = [], []
    for (n, e, d), o in zip(jobs, outs):
        p = p_binarized(e, 1.0)
        q = np.asarray(o["queries"], float)
        se = q.std(ddof=1) / math.sqrt(q.size)
        b_nat, b_2 = bound26(n, e, d, p, math.log), bound26(n, e, d, p, math.log2)
        rows.append(
            [
                f"{n:.0e}",
                e,
                d,
                f"{p:.3f}",
                f"{q.mean():.1f} ± {se:.1f}",
                q.size,
                f"{b_nat:.1f}",
                "yes" if q.mean() <= b_nat else "**no**",
                f"{b_2:.1f}",
                "yes" if q.mean() <= b_2 else "**no**",
                f"{np.mean(o['errors']):.3f}",
            ]
        )
        out.append(
            {
                "n": n,
                "epsilon": e,
                "delta": d,
                "p": p,
                "mean_queries": q.mean(),
                "se": se,
                "runs": q.size,
                "bound_ln": b_nat,
                "bound_log2": b_2,
                "holds_ln": bool(q.mean() <= b_nat),
                "holds_log2": bool(q.mean() <= b_2),
                "error_rate": float(np.mean(o["errors"])),
                "capped": o["capped"],
            }
        )
    print_table(
        "Proposition 3 — binarized oracle, halting='bz', worst-case data (ratio 1): "
        "mean queries E[T] vs bound (26)",
        [
            "n",
            "ε",
            "δ",
            "p (24)",
            "E[T] ± s.e.",
            "runs",
            "bound, ln",
            "holds",
            "bound, log₂",
            "holds",
            "P(argmax ≠ i*)",
        ],
        rows,
    )
    print(f"({time.perf_counter() - t0:.0f} s)")
    return {
        "rows": out,
        "holds_ln_everywhere": all(r["holds_ln"] for r in out),
        "holds_log2_everywhere": all(r["holds_log2"] for r in out),
        "violated_ln_everywhere": not any(r["holds_ln"] for r in out),
    }


# --------------------------------------------------------------- section 3
def section_speed(args):
    sizes = [10**4, 10**5, 10**6] + ([10**7] if not args.quick and not args.no_1e7 else [])
    rows, out = [], []
    for n in sizes:
        rng = np.random.default_rng(n)
        x = rng.uniform(0.0, 1.0, n)
        x[n // 3] = 3.0
        X = x.reshape(-1, 1)
        kw = {"low": 1.0, "high": 2.5, "alpha": 0.5, "random_state": 5, **per_query(1.0, 10_000)}
        repeats = 1 if n >= 10**7 else (3 if n >= 10**6 else 5)
        if args.quick:
            repeats = 1
        holder = {}

        def fit():
            holder["est"] = NoisyGroupSearch(**kw).fit(X)

        t_fit, _ = time_median(fit, repeats=repeats)
        t_max, _ = time_median(lambda: np.max(x), repeats=max(5, 20 if n < 10**7 else 5))
        est = holder["est"]
        per_q = t_fit / est.n_queries_
        rows.append(
            [
                f"{n:.0e}",
                f"{t_fit:.3f}",
                est.n_queries_,
                f"{per_q * 1e3:.3f}",
                f"{t_max * 1e3:.3f}",
                f"{per_q / t_max:.0f}×",
                bool(n // 3 in est.candidates_),
            ]
        )
        out.append(
            {
                "n": n,
                "time_s": t_fit,
                "repeats": repeats,
                "queries": est.n_queries_,
                "time_per_query_s": per_q,
                "numpy_max_s": t_max,
                "ratio": per_q / t_max,
                "found": bool(n // 3 in est.candidates_),
            }
        )
    print_table(
        "Speed — direct oracle, ε = 1, t_ℓ = 1, t_h = 2.5, uniform[0, 1] scores, α = 0.5 "
        "(median of repeats)",
        [
            "n",
            "fit (s)",
            "queries",
            "per query (ms)",
            "numpy.max (ms)",
            "per query / max",
            "i* ∈ S",
        ],
        rows,
    )
    return out


# ---------------------------------------------------------------- plot
def plot(paper, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    sets = sorted({r["dataset"] for r in paper["figure2"]})
    fig, axes = plt.subplots(2, len(sets), figsize=(4 * len(sets), 6), squeeze=False)
    for j, name in enumerate(sets):
        for o in ORACLES:
            rs = [r for r in paper["figure2"] if r["dataset"] == name and r["oracle"] == o]
            axes[0, j].plot(
                [r["epsilon"] for r in rs], [r["error"] for r in rs], "o-", label=SHORT[o]
            )
            axes[1, j].plot([r["epsilon"] for r in rs], [r["mean_total_eps"] for r in rs], "o-")
        axes[0, j].set_title(name)
        for ax in axes[:, j]:
            ax.set_xscale("log")
        axes[1, j].set_yscale("log")
        axes[1, j].set_xlabel("ε per query")
    axes[0, 0].set_ylabel("error rate")
    axes[1, 0].set_ylabel("mean total ε")
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


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
    import warnings

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
        import json

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
    import warnings

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


# ---------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cycles", type=int, default=100, help="runs per configuration (§6.2: 100)")
    ap.add_argument(
        "--max-queries",
        type=int,
        default=500,
        help="safety cap in section 1; runs reaching it did not halt (errors)",
    )
    ap.add_argument("--jobs", type=int, default=2, help="joblib processes for sections 1–2")
    ap.add_argument(
        "--sections",
        default="paper,prop3,speed",
        help="paper, prop3, speed; or defaults alone, or totals alone (found-rate "
        "against the total ε)",
    )
    ap.add_argument("--no-1e7", action="store_true", help="skip n = 10⁷ in the speed section")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--quick", action="store_true", help="20 cycles, smaller sizes, no 10⁷")
    ap.add_argument(
        "--label",
        default=None,
        help="with --sections defaults: 'before' writes the 'today' reference",
    )
    args = ap.parse_args(argv)
    default = (argv or sys.argv[1:]) == []
    if args.quick:
        args.cycles = min(args.cycles, 20)
        args.max_queries = min(args.max_queries, 300)
    sections = set(args.sections.split(","))
    t_start = time.perf_counter()
    if sections == {"totals"}:
        rows = section_totals(args)
        write_json(
            "group_search_totals" + ("_quick" if args.quick else ""),
            {
                "settings": vars(args),
                "fingerprint": source_fingerprint("group_search"),
                "totals": rows,
                "runtime_s": time.perf_counter() - t_start,
            },
        )
        return
    if sections == {"defaults"}:
        rows = section_defaults(args)
        name = "group_search_defaults" + ("_before" if args.label == "before" else "")
        write_json(
            name + ("_quick" if args.quick else ""),
            {
                "settings": vars(args),
                "fingerprint": source_fingerprint("group_search"),
                "defaults": rows,
                "runtime_s": time.perf_counter() - t_start,
            },
        )
        return

    data = [
        dataset(
            s,
            synthetic(s, r, seed=6 if s == "mixture" else 8),
            f"synthetic {s}, n = {N_SYNTH}, ratio set to {r} (paper's data set "
            f"{6 if s == 'mixture' else 8})",
        )
        for s, r in PAPER_RATIOS.items()
    ]
    for shape in ("mixture", "skewed"):
        for r in (0.2, 0.4, 1.0, 2.0) if not args.quick else (0.3, 1.0):
            data.append(
                dataset(
                    f"{shape}-r{r:g}",
                    synthetic(shape, r, seed=100 + int(10 * r)),
                    f"synthetic {shape}, n = {N_SYNTH}, ratio {r}",
                )
            )
    try:
        for name, scores in real_series().items():
            data.append(
                dataset(
                    name,
                    scores,
                    f"statsmodels {name}: abs(x − rolling median(5)), largest taken as the anomaly",
                )
            )
    except ImportError:
        print("statsmodels is not installed: real series skipped (pip install statsmodels)")
    print_table(
        "Data (§6.1 preprocessing)",
        ["name", "n", "t_ℓ", "t_h", "(t_h − t_ℓ)/t_ℓ", "what"],
        [
            [
                d["name"],
                d["n"],
                f"{d['low']:.4g}",
                f"{d['high']:.4g}",
                f"{d['ratio']:.3f}",
                d["desc"],
            ]
            for d in data
        ],
    )

    payload = {
        "settings": vars(args),
        "fingerprint": source_fingerprint("group_search"),
        "data": [{k: v for k, v in d.items() if k != "scores"} for d in data],
    }
    if "paper" in sections:
        payload["paper"] = section_paper(args, data)
    if "prop3" in sections:
        payload["proposition3"] = section_prop3(args)
    if "speed" in sections:
        payload["speed"] = section_speed(args)
    payload["runtime_s"] = time.perf_counter() - t_start
    print(f"\ntotal runtime {payload['runtime_s']:.0f} s")
    name = (
        "group_search"
        if default
        else ("group_search_quick" if args.quick else "group_search_custom")
    )
    write_json(name, payload)
    if "paper" in sections and not args.no_plot:
        plot(payload["paper"], RESULTS_DIR / f"{name}.png")


if __name__ == "__main__":
    main()
