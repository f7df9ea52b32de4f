"""NoisyGroupSearch: paper reproduction, Proposition 3 and speed (Bittner, Sarwate, Wright).

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
(``_group_search_user.section_totals``) is the search as a user runs it with a total ε:
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
from _group_search_data import build_data  # noqa: E402
from _group_search_user import section_defaults, section_totals  # noqa: E402

from skdp_anomaly import NoisyGroupSearch  # noqa: E402

ORACLES = ("direct", "binarized", "randomized_response")
SHORT = {"direct": "direct (11)", "binarized": "binarized (24)", "randomized_response": "RR (5)"}
EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)


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

    data = build_data(args.quick)

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
