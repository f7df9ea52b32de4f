"""Where should DPImbalancedClassifier cut? A study of its threshold and its classifier's C.

The issue: with strategy "threshold", more ε gave a worse model (page-blocks:
G-mean 0.714 at ε = 5, 0.640 at ε = 10) and on small data the cut was far
off although the ranking was good. This study separates the causes, on the
*choose* group of ``bench_dpsmote_baselines.study_split()`` (never on its
held-out group), 1 × 5-fold stratified CV, ε ∈ {1, 2, 5, 10}, features
scaled to the public box [-1, 1]^d with the training fold's min/max as in
that benchmark:

* the classifier ``PrivateLogisticRegression`` at its share of ε, with
  ``C="auto"`` or with the proof-unit ``c`` capped (``--caps``);
* the cut ``s(x) > log(π̂₁/π̂₀)`` at a prior from: the exact training prior
  (``oracle``: not private, shows what the classifier allows); the current
  noisy histogram (``hist``: 0.025 ε add/remove, π̂ from max(count, 1));
  one noisy minority count under replace-one neighbours (``one``: n public,
  sensitivity 1) at a share s of ε, clipped to [f, n − f] with the floor f
  = 1 or the noise scale 1/(sε) (``floor``);
* the cut ``s(x) > logit(p̄)`` at the model's mean predicted probability
  over the training rows: exact (``pbar-oracle``, diagnosis) or one noisy
  sum Σ P(1|x) (``pbar``: replace-one, sensitivity 1, Laplace of scale
  1/(sε), s fixed or ``k/(nε)`` clipped), clipped as above; and the exact
  training quantile that leaves q·π of the rows positive (diagnosis).

The noise of a cut is post-processing of one draw: for each fold the study
draws ``--draws`` of them (two-sided geometric for counts, numpy's Laplace
for the sums: the package releases them on a grid with discrete Laplace
noise of the same scale) and averages the metrics, so the rules are
compared on the same fitted classifiers (common random numbers with A).
Every release is charged its share of ε: the classifier gets the rest.

    nice python benchmarks/bench_imbalanced_threshold.py            # choose group
    nice python benchmarks/bench_imbalanced_threshold.py --held-out # the final check, once

``--strategy`` re-measures the rule of ``strategy="auto"`` against this cut:
``DPImbalancedClassifier`` forced to "threshold" and to "oversample" (the
same random_state, so "auto" equals whichever the rule picks at a fold's n),
1 × 5-fold, ε ∈ ``STRATEGY_EPSILONS`` (0.1 and 0.25 add cells of small
ε · n / d), per cell (set, ε) and over the rules "oversample iff
ε · n / d < t" (d ≤ 50), scored by mean G-mean, worst ε first:

    nice python benchmarks/bench_imbalanced_threshold.py --strategy             # choose
    nice python benchmarks/bench_imbalanced_threshold.py --strategy --held-out  # once
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import math
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table, write_json  # noqa: E402
from bench_dpsmote_baselines import load_numeric, scale_fold, study_split  # noqa: E402

EPSILONS = (1.0, 2.0, 5.0, 10.0)
STRATEGY_EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0)
#: the thresholds t of "oversample iff ε · n / d < t" scored by --strategy (0: never)
STRATEGY_THRESHOLDS = (0.0, 1.0, 2.0, 4.0, 8.0, 12.0, 16.0, 24.0, 32.0)
KAPPA = 0.25  # PrivateLogisticRegression's default intercept_scaling


def _gmean_recall(y, pred):
    pos, neg = y == 1, y == 0
    rec = float(np.mean(pred[pos])) if pos.any() else math.nan
    spec = float(np.mean(~pred[neg])) if neg.any() else math.nan
    return math.sqrt(rec * spec), rec


def _auc(y, s):
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, s))


def _classifier(eps, d, seed, cap):
    """The default classifier at ``eps`` on the box; ``cap`` bounds the proof-unit c."""
    from skdp_anomaly import PrivateLogisticRegression
    from skdp_anomaly.linear_model import default_C

    clf = PrivateLogisticRegression(epsilon=eps, data_norm=math.sqrt(d), random_state=seed)
    if cap is None:
        return clf
    r_aug = 0.5 * math.sqrt(d) * math.sqrt(1 + KAPPA**2)
    c = default_C(eps, d)  # proof units (row_bound 1)
    return clf.set_params(C=min(c, cap) / r_aug**2)


def _two_sided_geometric(rng, scale_eps, size):
    p = -math.expm1(-scale_eps)
    return rng.geometric(p, size) - rng.geometric(p, size)


def _share(rule, eps, n):
    """The release's share of ε: fixed, or ``k / (n ε)`` clipped to [lo, hi] (public n, ε)."""
    if "k" not in rule:
        return rule["share"]
    return min(rule["hi"], max(rule["lo"], rule["k"] / (n * eps)))


def _logit(p):
    return np.log(p / (1.0 - p))


def _cuts(rule, eps, n, m, rng, draws, train_scores):
    """``draws`` cuts log(π̂₁/π̂₀) of ``rule`` at total ε, n rows, m minority."""
    kind = rule["prior"]
    if kind == "pbar-oracle":  # the model's mean training probability, exact (diagnosis)
        return np.full(draws, _logit(np.mean(1 / (1 + np.exp(-train_scores)))))
    if kind == "quantile-oracle":  # a cut leaving rule["q"]·π of the training rows positive
        return np.full(draws, np.quantile(train_scores, 1 - min(rule["q"] * m / n, 0.99)))
    if kind == "pbar":  # noisy mean of the training probabilities (sum: sensitivity 1)
        e = _share(rule, eps, n) * eps
        floor = 1.0 if rule.get("floor", "1") == "1" else max(1.0, min(1.0 / e, n / 2))
        total = np.sum(1 / (1 + np.exp(-train_scores))) + rng.laplace(0, 1 / e, draws)
        return _logit(np.clip(total, floor, n - floor) / n)
    if kind == "oracle":
        return np.full(draws, math.log(m / (n - m)))
    if kind == "hist":  # 0.025 ε add/remove: noise of scale 1/(0.025 ε) on both counts
        e = 0.025 * eps
        c1 = np.maximum(m + _two_sided_geometric(rng, e, draws), 1)
        c0 = np.maximum(n - m + _two_sided_geometric(rng, e, draws), 1)
        return np.log(c1 / c0)
    e = rule["share"] * eps
    floor = 1.0 if rule["floor"] == "1" else max(1.0, min(1.0 / e, n / 2))
    c1 = np.clip(m + _two_sided_geometric(rng, e, draws), floor, n - floor)
    return np.log(c1 / (n - c1))


def rules(caps):
    out = {
        "A": {"prior": None, "share": 0.0, "cap": None},
        "oracle": {"prior": "oracle", "share": 0.05, "cap": None},
        "hist (B)": {"prior": "hist", "share": 0.05, "cap": None},
        "pbar-oracle": {"prior": "pbar-oracle", "share": 0.05, "cap": None},
    }
    for share in (0.05, 0.1, 0.15, 0.2, 0.3):
        for floor in ("1", "scale"):
            out[f"pbar s={share:g} f={floor}"] = {
                "prior": "pbar",
                "share": share,
                "cap": None,
                "floor": floor,
            }
    for k in (20, 40, 80):
        for lo, hi in ((0.05, 0.2), (0.1, 0.2)):
            out[f"pbar s=k/(nε) k={k} in [{lo:g},{hi:g}]"] = {
                "prior": "pbar",
                "k": k,
                "lo": lo,
                "hi": hi,
                "cap": None,
                "floor": "scale",
            }
    for cap in caps:
        tag = "auto" if cap is None else f"c≤{cap:g}"
        if cap is not None:
            out[f"oracle {tag}"] = {"prior": "oracle", "share": 0.05, "cap": cap}
            out[f"hist {tag}"] = {"prior": "hist", "share": 0.05, "cap": cap}
        for share in (0.05, 0.1, 0.2):
            for floor in ("scale",):
                out[f"one s={share:g} f={floor} {tag}"] = {
                    "prior": "one",
                    "share": share,
                    "floor": floor,
                    "cap": cap,
                }
    return out


def run_set(args):
    name, set_index, rule_map, draws = args
    from sklearn.model_selection import StratifiedKFold

    X, y = load_numeric(name)
    d = X.shape[1]
    res = {}
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    for fold, (train, test) in enumerate(cv.split(X, y)):
        X_train, X_test = scale_fold(X[train], X[test])
        n, m = len(train), int(y[train].sum())
        for eps in EPSILONS:
            seed = 100_000 * set_index + 1_000 * fold + round(10 * eps)
            fitted = {}
            for rname, rule in rule_map.items():
                key = (round(1.0 - _share(rule, eps, n), 12), rule["cap"])
                if key not in fitted:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        clf = _classifier(key[0] * eps, d, seed, key[1]).fit(X_train, y[train])
                    fitted[key] = (clf.decision_function(X_test), clf.decision_function(X_train))
                s, s_train = fitted[key]
                if rule["prior"] is None:
                    cuts = np.zeros(1)
                else:
                    rng = np.random.default_rng([set_index, fold, round(10 * eps), 7])
                    cuts = _cuts(rule, eps, n, m, rng, draws, s_train)
                g, r = zip(*(_gmean_recall(y[test], s > c) for c in cuts))
                cell = res.setdefault(rname, {}).setdefault(eps, {"g": [], "r": [], "auc": []})
                cell["g"].append(float(np.mean(g)))
                cell["r"].append(float(np.mean(r)))
                cell["auc"].append(_auc(y[test], s))
    return name, {
        r: {e: {k: float(np.mean(v)) for k, v in c.items()} for e, c in cells.items()}
        for r, cells in res.items()
    }


def run_final(args):
    """A, B and the package's default (the class itself, strategy "auto") on one set."""
    from bench_dpsmote_baselines import build
    from sklearn.model_selection import StratifiedKFold

    from sklearn.base import clone

    from skdp_anomaly import DPImbalancedClassifier, check_privacy_budget

    name, set_index, _, _ = args
    X, y = load_numeric(name)
    d = X.shape[1]
    cfg = {"classifier": "private", "c_mode": "auto", "max_iter": 1000}
    res = {}
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    for fold, (train, test) in enumerate(cv.split(X, y)):
        X_train, X_test = scale_fold(X[train], X[test])
        for eps in EPSILONS:
            seed = 100_000 * set_index + 1_000 * fold + round(10 * eps)
            new = DPImbalancedClassifier(epsilon=eps, bounds=(-1.0, 1.0), random_state=seed)
            assert math.isclose(check_privacy_budget(new, eps).cost.epsilon, eps, rel_tol=1e-12)
            models = {
                "A": build("A", eps, d, seed, cfg),
                "B": build("B", eps, d, seed, cfg),
                "new default": new,
                "new, threshold": clone(new).set_params(strategy="threshold"),
                "new, oversample": clone(new).set_params(strategy="oversample"),
            }
            for method, est in models.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(X_train, y[train])
                g, r = _gmean_recall(y[test], est.predict(X_test) == 1)
                cell = res.setdefault(method, {}).setdefault(eps, {"g": [], "r": [], "auc": []})
                cell["g"].append(g)
                cell["r"].append(r)
                cell["auc"].append(_auc(y[test], est.predict_proba(X_test)[:, 1]))
    return name, {
        m: {e: {k: float(np.mean(v)) for k, v in c.items()} for e, c in cells.items()}
        for m, cells in res.items()
    }


def run_strategy(args):
    """Both strategies of DPImbalancedClassifier, per fold and ε, with the fold's ε · n / d."""
    from sklearn.model_selection import StratifiedKFold

    from skdp_anomaly import DPImbalancedClassifier

    name, set_index, _, _ = args
    X, y = load_numeric(name)
    d = X.shape[1]
    rows = []
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    for fold, (train, test) in enumerate(cv.split(X, y)):
        X_train, X_test = scale_fold(X[train], X[test])
        for eps in STRATEGY_EPSILONS:
            seed = 100_000 * set_index + 1_000 * fold + round(100 * eps)
            row = {"fold": fold, "eps": eps, "n": len(train), "d": d, "q": eps * len(train) / d}
            for strategy in ("threshold", "oversample", "auto"):
                est = DPImbalancedClassifier(
                    epsilon=eps, bounds=(-1.0, 1.0), strategy=strategy, random_state=seed
                )
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(X_train, y[train])
                g, r = _gmean_recall(y[test], est.predict(X_test) == 1)
                row[strategy] = {
                    "g": g,
                    "r": r,
                    "auc": _auc(y[test], est.predict_proba(X_test)[:, 1]),
                }
            # the package's own "auto" (its current rule) is the strategy it picked, same seeds
            row["auto"]["picked"] = est.strategy_
            assert row["auto"]["g"] == row[est.strategy_]["g"], (name, fold, eps)
            rows.append(row)
    return name, rows


def _rule_pick(row, t, max_features=50):
    return "oversample" if row["d"] <= max_features and row["q"] < t else "threshold"


def strategy_cells(out):
    """Per (set, ε): mean ε·n/d, G-mean and ROC-AUC of both strategies over the folds."""
    cells = []
    for name, rows in out.items():
        for eps in STRATEGY_EPSILONS:
            rs = [r for r in rows if r["eps"] == eps]
            cell = {
                "set": name,
                "eps": eps,
                "d": rs[0]["d"],
                "q": float(np.mean([r["q"] for r in rs])),
            }
            for s in ("threshold", "oversample", "auto"):
                for k in ("g", "auc"):
                    cell[f"{s}_{k}"] = float(np.mean([r[s][k] for r in rs]))
            cells.append(cell)
    return cells


def strategy_summary(out, thresholds):
    """Mean G-mean / ROC-AUC over sets per ε of each rule, fold by fold (auto = the pick)."""
    table = {"package auto (current rule)": {}}
    for eps in STRATEGY_EPSILONS:
        rows_e = [[r for r in rows if r["eps"] == eps] for rows in out.values()]
        table["package auto (current rule)"][eps] = {
            "g": float(np.mean([np.mean([r["auto"]["g"] for r in rs]) for rs in rows_e])),
            "auc": float(np.mean([np.mean([r["auto"]["auc"] for r in rs]) for rs in rows_e])),
            "folds_oversampled": sum(
                r["auto"]["picked"] == "oversample" for rs in rows_e for r in rs
            ),
        }
    for label, t in [("threshold", 0.0), ("oversample", math.inf)] + [
        (f"auto, ε·n/d < {t:g}", t) for t in thresholds if t > 0
    ]:
        table[label] = {}
        for eps in STRATEGY_EPSILONS:
            g, auc, n_over = [], [], 0
            for rows in out.values():
                rs = [r for r in rows if r["eps"] == eps]
                picks = [_rule_pick(r, t) for r in rs]
                n_over += picks.count("oversample")
                g.append(np.mean([r[p]["g"] for r, p in zip(rs, picks)]))
                auc.append(np.mean([r[p]["auc"] for r, p in zip(rs, picks)]))
            table[label][eps] = {
                "g": float(np.mean(g)),
                "auc": float(np.mean(auc)),
                "folds_oversampled": n_over,
            }
    return table


def strategy_main(args, sets, tag):
    jobs = [(name, i, None, None) for i, name in enumerate(sets)]
    if args.jobs > 1:
        from multiprocessing import Pool

        with Pool(args.jobs) as pool:
            out = dict(pool.map(run_strategy, jobs))
    else:
        out = dict(map(run_strategy, jobs))
    cells = strategy_cells(out)
    bands = [(0, 4), (4, 8), (8, 16), (16, 40), (40, math.inf)]
    band_rows = []
    for lo, hi in bands:
        cs = [c for c in cells if lo <= c["q"] < hi and c["d"] <= 50]
        if not cs:
            continue
        dg = [c["oversample_g"] - c["threshold_g"] for c in cs]
        da = [c["oversample_auc"] - c["threshold_auc"] for c in cs]
        se = np.std(dg, ddof=1) / math.sqrt(len(dg)) if len(dg) > 1 else 0.0
        band_rows.append(
            [
                f"[{lo:g}, {hi:g})",
                len(cs),
                sum(x > 0 for x in dg),
                f"{np.mean([c['threshold_g'] for c in cs]):.3f}",
                f"{np.mean([c['oversample_g'] for c in cs]):.3f}",
                f"{np.mean(dg):+.3f} ± {se:.3f}",
                f"{np.mean(da):+.3f}",
            ]
        )
    print_table(
        f"{tag}: cells (set, ε) by ε·n/d (n: training fold), oversample − threshold",
        ["ε·n/d", "cells", "oversample wins (G)", "G threshold", "G oversample", "ΔG ± SE", "ΔAUC"],
        band_rows,
    )
    small = sorted((c for c in cells if c["q"] < 16), key=lambda c: c["q"])
    print_table(
        f"{tag}: every cell with ε·n/d < 16 (G-mean / ROC-AUC)",
        ["set", "d", "ε", "ε·n/d", "threshold", "oversample"],
        [
            [
                c["set"],
                c["d"],
                f"{c['eps']:g}",
                f"{c['q']:.1f}",
                f"{c['threshold_g']:.3f} / {c['threshold_auc']:.3f}",
                f"{c['oversample_g']:.3f} / {c['oversample_auc']:.3f}",
            ]
            for c in small
        ],
    )
    summary = strategy_summary(out, STRATEGY_THRESHOLDS)
    print_table(
        f"{tag}: {len(out)} sets, G-mean / ROC-AUC (mean over sets; auto fold by fold; "
        "folds oversampled)",
        ["rule"] + [f"ε = {e:g}" for e in STRATEGY_EPSILONS],
        [
            [label]
            + [
                f"{v[e]['g']:.3f} / {v[e]['auc']:.3f} ({v[e]['folds_oversampled']})"
                for e in STRATEGY_EPSILONS
            ]
            for label, v in summary.items()
        ],
    )
    write_json(
        f"imbalanced_strategy_{tag}",
        {
            "sets": sets,
            "epsilons": STRATEGY_EPSILONS,
            "thresholds": STRATEGY_THRESHOLDS,
            "summary": summary,
            "cells": cells,
            "folds": out,
        },
    )


def targets(results):
    """The issue's targets on the mean over sets: [(name, value, bound, met)]."""

    def mean(method, eps, key):
        return float(np.mean([results[s][method][eps][key] for s in results]))

    out = [
        (
            "G-mean(ε=10) ≥ G-mean(ε=5) − 0.01",
            mean("new default", 10.0, "g"),
            mean("new default", 5.0, "g") - 0.01,
        )
    ]
    for eps in (1.0, 5.0):
        g = mean("new default", eps, "g")
        out += [
            (f"ε={eps:g}: G-mean ≥ B − 0.02", g, mean("B", eps, "g") - 0.02),
            (f"ε={eps:g}: G-mean ≥ A + 0.03", g, mean("A", eps, "g") + 0.03),
            (
                f"ε={eps:g}: ROC-AUC ≥ A − 0.02",
                mean("new default", eps, "auc"),
                mean("A", eps, "auc") - 0.02,
            ),
        ]
    return [(n, f"{v:.3f}", f"{b:.3f}", "yes" if v >= b else "NO") for n, v, b in out]


def summarise(results, rule_names):
    rows = []
    for r in rule_names:
        row = [r]
        for eps in EPSILONS:
            g = np.mean([results[s][r][eps]["g"] for s in results])
            rec = np.mean([results[s][r][eps]["r"] for s in results])
            auc = np.mean([results[s][r][eps]["auc"] for s in results])
            row.append(f"{g:.3f} / {rec:.3f} / {auc:.3f}")
        rows.append(row)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--held-out", action="store_true")
    ap.add_argument("--draws", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--caps", type=float, nargs="*", default=[])
    ap.add_argument("--sets", nargs="*")
    ap.add_argument(
        "--final",
        action="store_true",
        help="A, B and the package's default (the class itself) instead of the rules",
    )
    ap.add_argument(
        "--strategy",
        action="store_true",
        help='"threshold" against "oversample" (the rule of "auto") instead',
    )
    args = ap.parse_args(argv)
    choose, held_out, _ = study_split()
    group = held_out if args.held_out else choose
    sets = args.sets or group
    if args.strategy:
        return strategy_main(args, sets, "held_out" if args.held_out else "choose")
    rule_map = rules([None] + list(args.caps))
    jobs = [(name, i, rule_map, args.draws) for i, name in enumerate(sets)]
    func = run_final if args.final else run_set
    if args.jobs > 1:
        from multiprocessing import Pool

        with Pool(args.jobs) as pool:
            out = dict(pool.map(func, jobs))
    else:
        out = dict(map(func, jobs))
    tag = ("held_out" if args.held_out else "choose") + ("_final" if args.final else "")
    names = (
        ["A", "B", "new default", "new, threshold", "new, oversample"]
        if args.final
        else list(rule_map)
    )
    print_table(
        f"{tag} group: {len(out)} sets, G-mean / recall / ROC-AUC (mean over sets)",
        ["method" if args.final else "rule"] + [f"ε = {e:g}" for e in EPSILONS],
        summarise(out, names),
    )
    payload = {"sets": sets, "epsilons": EPSILONS, "results": out}
    if args.final:
        checks = targets(out)
        print_table("targets (mean over sets)", ["target", "value", "bound", "met"], checks)
        payload["targets"] = checks
    else:
        payload["rules"] = rule_map
    write_json(f"imbalanced_threshold_{tag}", payload)


if __name__ == "__main__":
    main()
