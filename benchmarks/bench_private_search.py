"""The default private search at a total ε against the default model at the same total ε.

Question: does ``PrivateGridSearchCV(PrivateLogisticRegression(data_norm=1),
{"C": [0.01, 0.1, 1, 10]}, total_epsilon=T)`` (every other parameter at its
default) give a model at least as accurate as ``PrivateLogisticRegression(
epsilon=T, data_norm=1)`` (``C="auto"``), the package's default model, on
the same rows in the same run?

Arms (every one spends exactly T, asserted with ``check_privacy_budget``):

* **default model**: one fit, ``C="auto"``, at ε = T on every private row;
* **default search**: ``total_epsilon=T``; its public rule decides whether
  to search (``searched_``);
* **forced search**: the same with ``force_search=True`` (the search runs
  whatever the rule says): ε_c = T/4 per fit, the choice 2·ε_c, the refit ε_c;
* **forced, winner released**: ``force_search=True, refit=False``: ε_c = T/3.

Data (fixed before any run; every row projected into the unit ball with
the statistics of a public slice that is used for nothing else, so that
``data_norm=1`` is a true bound):

* ``cancer``: scikit-learn's breast cancer (569 × 30), shuffled with a fixed
  seed; 69 public rows, 400 private, 100 test;
* ``digits 3/8``: scikit-learn's digits, classes 3 and 8 (357 × 64); 57
  public rows, 200 private, 100 test;
* ``synth``: ``make_classification(6500, 10, n_informative=5,
  n_redundant=2, n_clusters_per_class=1, flip_y=0.05, random_state=0)``; 500
  public rows, 4 000 private, 2 000 test;
* ``synth large`` (T = 5 only): the same generator with 26 000 rows
  (``random_state=1``), 20 000 private: a size where the rule does search.

Totals T ∈ {1, 2, 5}; ``--seeds`` repetitions per cell (30 by default;
fresh folds, runs and noise each); mean ± standard error of the test
accuracy, and the paired difference search − model (same seed index).

Run from the repository root: ``nice python benchmarks/bench_private_search.py``
(``--quick``: 3 seeds). Writes ``results/bench_private_search.{md,json}`` at
default settings, ``bench_private_search_quick.*`` otherwise.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
import warnings
from contextlib import redirect_stdout
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, Tee, print_table, to_unit_ball, write_json
from sklearn.datasets import load_breast_cancer, load_digits, make_classification

from skdp_anomaly import PrivateLogisticRegression, check_privacy_budget
from skdp_anomaly.model_selection import PrivateGridSearchCV

NAME = "bench_private_search"
GRID = {"C": [0.01, 0.1, 1.0, 10.0]}
TOTALS = (1.0, 2.0, 5.0)
SEEDS = 30
ARMS = ("default model", "default search", "forced search", "forced, winner released")


def load(name: str):
    """``X_private, y_private, X_test, y_test``, every row in the unit ball."""
    if name == "cancer":
        X, y = load_breast_cancer(return_X_y=True)
        cuts = (69, 469)
    elif name == "digits 3/8":
        X, y = load_digits(return_X_y=True)
        keep = np.isin(y, (3, 8))
        X, y = X[keep], (y[keep] == 8).astype(int)
        cuts = (57, 257)
    elif name == "synth":
        X, y = make_classification(
            n_samples=6500,
            n_features=10,
            n_informative=5,
            n_redundant=2,
            n_clusters_per_class=1,
            flip_y=0.05,
            random_state=0,
        )
        cuts = (500, 4500)
    else:
        X, y = make_classification(
            n_samples=26000,
            n_features=10,
            n_informative=5,
            n_redundant=2,
            n_clusters_per_class=1,
            flip_y=0.05,
            random_state=1,
        )
        cuts = (1000, 21000)
    p = np.random.default_rng(12345).permutation(len(y))
    X, y = X[p], y[p]
    public, (a, b) = X[: cuts[0]], cuts
    return to_unit_ball(X[a:b], public), y[a:b], to_unit_ball(X[b:], public), y[b:]


def arms(total: float, seed: int) -> dict:
    model = PrivateLogisticRegression(epsilon=total, data_norm=1.0, random_state=seed)
    search = PrivateGridSearchCV(
        PrivateLogisticRegression(data_norm=1.0), GRID, total_epsilon=total, random_state=seed
    )
    return {
        "default model": model,
        "default search": search,
        "forced search": search.__class__(
            **{**search.get_params(deep=False), "force_search": True}
        ),
        "forced, winner released": search.__class__(
            **{**search.get_params(deep=False), "force_search": True, "refit": False}
        ),
    }


def run_cell(name: str, total: float, seeds: int) -> dict:
    X, y, Xt, yt = load(name)
    acc = {a: [] for a in ARMS}
    searched, chosen = [], []
    for arm, est in arms(total, 0).items():  # every arm spends exactly T
        spent = check_privacy_budget(est, on_leak="raise").epsilon
        assert abs(spent - total) < 1e-9, (arm, spent)
    for seed in range(seeds):
        for arm, est in arms(total, seed).items():
            est.fit(X, y)
            acc[arm].append(float(np.mean(est.predict(Xt) == yt)))
            if arm == "default search":
                searched.append(bool(est.searched_))
            if arm == "forced search":
                chosen.append(str(est.best_params_["C"]))
    diff = np.array(acc["default search"]) - np.array(acc["default model"])
    return {
        "data": name,
        "total": total,
        "n_private": len(y),
        "n_features": X.shape[1],
        "accuracy": acc,
        "searched": searched,
        "forced_choices": chosen,
        "paired_difference": diff.tolist(),
    }


def mean_se(values) -> str:
    v = np.asarray(values, dtype=float)
    return f"{v.mean():.3f} ± {v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0:.3f}"


def report(cells: list) -> None:
    rows = []
    for c in cells:
        a = c["accuracy"]
        d = np.asarray(c["paired_difference"])
        rows.append(
            [
                c["data"],
                f"{c['total']:g}",
                c["n_private"],
                *(mean_se(a[arm]) for arm in ARMS),
                f"{d.mean():+.4f} ± {d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0:.4f}",
                f"{np.mean(c['searched']):.2f}",
                "yes"
                if d.mean() >= -2 * (d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0)
                else "NO",
            ]
        )
    print_table(
        "Test accuracy at equal total ε (mean ± se over seeds; every arm spends exactly "
        "T, checked with check_privacy_budget)",
        [
            "data",
            "T",
            "private rows",
            *ARMS,
            "search − model (paired)",
            "share searched",
            "search ≥ model − 2 se",
        ],
        rows,
    )
    rows = []
    for c in cells:
        values, counts = np.unique(c["forced_choices"], return_counts=True)
        rows.append(
            [c["data"], f"{c['total']:g}", ", ".join(f"{v}: {k}" for v, k in zip(values, counts))]
        )
    print_table(
        "C chosen by the forced search (the estimator's own C='auto' is a candidate)",
        ["data", "T", "choices"],
        rows,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=SEEDS)
    parser.add_argument("--quick", action="store_true", help="3 seeds")
    args = parser.parse_args(argv)
    seeds = 3 if args.quick else args.seeds
    name = NAME if (not args.quick and seeds == SEEDS) else f"{NAME}_quick"
    warnings.filterwarnings("ignore")
    buffer = io.StringIO()
    start, cpu = time.time(), time.process_time()
    with redirect_stdout(Tee(sys.stdout, buffer)):
        print(f"# Default private search vs the default model at equal total ε ({seeds} seeds)")
        cells = [run_cell(d, t, seeds) for d in ("cancer", "digits 3/8", "synth") for t in TOTALS]
        cells.append(run_cell("synth large", 5.0, max(3, seeds // 4)))
        report(cells)
        print(f"\ntime: {time.time() - start:.0f} s wall, {time.process_time() - cpu:.0f} s CPU")
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / f"{name}.md").write_text(buffer.getvalue())
    write_json(name, {"seeds": seeds, "grid": GRID, "cells": cells})


if __name__ == "__main__":
    main()
