"""Data-independent outlier structures against IsolationForest, with and without noise.

What. The question behind ``PrivateHBOS``'s held-out target ("at ε = 1, at
least the better of ``IsolationForest`` and non-private HBOS"): does any
structure whose cells are fixed without looking at the data, and so can be
released as noisy counts, rank the labelled minority as well as the forest
does on the benchmark sets? Each structure scores a row by the mean over its
``k`` parts of the log density of the row's cell (relative to the cell's
share of the bounds), from exact counts (ε = ∞) or from counts with
two-sided geometric noise of L1 sensitivity ``k`` (one record moves one count
in each part: ε-DP), floored at the noise's standard deviation as
``PrivateHBOS`` does:

* **HBOS**: ``PrivateHBOS`` itself (its defaults: the bins of
  :func:`~skdp_anomaly.outlier.hbos_n_bins` read from a noisy row count);
  at ε = ∞ its scoring on exact counts, the rule's bins at the true count;
* **LODA** (Pevný 2016): 50 random sparse projections (``⌈√d⌉`` Gaussian
  weights), each scaled into [−1, 1] by its weights' L1 norm (public), 10
  bins each;
* **random grids**: 20 grids on two random features each, 4 cells per axis
  shifted by a random fraction of a cell (the subspace grids of RS-Hash,
  Sathe and Aggarwal 2016, without the hashing);
* **half-space trees** (Tan, Ting and Liu 2011): 50 trees of depth 6, each
  node cutting a random feature at a uniform point of the middle half of the
  node's range; the leaves' counts.

Against ``IsolationForest()`` (not private) on the same rows; the data, the
public scaling and the two groups are those of ``bench_outlier.py``.

Run from the repository root::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_outlier_structures.py           # 10 seeds
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_outlier_structures.py --quick   # 2 seeds

Writes ``results/outlier_structures.json``. About a minute on 2 shared cores.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import print_table, source_fingerprint, write_json
from bench_outlier import CHOOSE, HELD_OUT, IFOREST, SEED0, auc, hbos_scores, load, runs_per_set
from sklearn.ensemble import IsolationForest

from skdp_anomaly.outlier import PrivateHBOS, hbos_n_bins
from skdp_anomaly.outlier._histograms import count_mechanism, noise_floor

EPSILONS = (None, 5.0, 1.0)


def _noisy_log_shares(keys, n_cells, n_parts, epsilon, rng):
    """``log`` of each cell's share of its part, from exact or ε-DP counts; ``keys`` (n, k)."""
    counts = np.stack([np.bincount(keys[:, t], minlength=n_cells) for t in range(n_parts)])
    floor = 1.0
    if epsilon is not None:
        mech = count_mechanism(epsilon, n_parts)  # one count per part: L1 sensitivity k
        counts, floor = mech.randomise(counts, rng), noise_floor(mech)
    counts = np.maximum(counts.astype(np.float64), floor)
    return np.log(counts / counts.sum(axis=1, keepdims=True))


def _mean_cell_score(table, keys, log_volume):
    parts = np.arange(keys.shape[1])
    return (table[parts, keys] - log_volume).mean(axis=1)


def loda(X, epsilon, rng, k=50, bins=10):
    n, d = X.shape
    keys = np.empty((n, k), dtype=np.intp)
    for t in range(k):
        w = np.zeros(d)
        chosen = rng.choice(d, int(np.ceil(np.sqrt(d))), replace=False)
        w[chosen] = rng.standard_normal(chosen.size)
        z = X @ w / np.abs(w).sum()  # in [-1, 1] for rows in [-1, 1]^d
        keys[:, t] = np.clip(((z + 1.0) * bins / 2.0).astype(np.intp), 0, bins - 1)
    table = _noisy_log_shares(keys, bins, k, epsilon, rng)
    return _mean_cell_score(table, keys, 0.0)


def random_grids(X, epsilon, rng, k=20, features=2, cells=4):
    n, d = X.shape
    r = min(features, d)
    keys = np.empty((n, k), dtype=np.intp)
    for t in range(k):
        chosen = rng.choice(d, r, replace=False)
        shift = rng.uniform(0.0, 2.0 / cells, r)
        coords = np.floor((X[:, chosen] + 1.0 + shift) * cells / 2.0).astype(np.intp)
        keys[:, t] = np.ravel_multi_index(coords.T, (cells + 1,) * r)
    table = _noisy_log_shares(keys, (cells + 1) ** r, k, epsilon, rng)
    return _mean_cell_score(table, keys, 0.0)


def half_space_trees(X, epsilon, rng, k=50, depth=6):
    n, d = X.shape
    keys = np.empty((n, k), dtype=np.intp)
    log_volume = np.empty((n, k))
    rows = np.arange(n)
    for t in range(k):
        lower, upper = np.full((1, d), -1.0), np.full((1, d), 1.0)
        node, volume = np.zeros(n, dtype=np.intp), np.zeros(1)
        for level in range(depth):
            m = 2**level
            feature = rng.integers(d, size=m)
            share = rng.uniform(0.25, 0.75, m)
            width = upper[np.arange(m), feature] - lower[np.arange(m), feature]
            cut = lower[np.arange(m), feature] + share * width
            right = X[rows, feature[node]] >= cut[node]
            lower, upper = np.repeat(lower, 2, axis=0), np.repeat(upper, 2, axis=0)
            upper[2 * np.arange(m), feature] = cut
            lower[2 * np.arange(m) + 1, feature] = cut
            volume = np.repeat(volume, 2)
            volume[0::2] += np.log(share)
            volume[1::2] += np.log1p(-share)
            node = 2 * node + right
        keys[:, t], log_volume[:, t] = node, volume[node]
    table = _noisy_log_shares(keys, 2**depth, k, epsilon, rng)
    parts = np.arange(k)
    return (table[parts, keys] - log_volume).mean(axis=1)


def hbos(X, epsilon, rng):
    if epsilon is None:  # exact counts, the rule's bins at the true row count
        return hbos_scores(X, hbos_n_bins(len(X), math.inf, X.shape[1]), None, None)
    return PrivateHBOS(epsilon=epsilon, bounds=(-1, 1), random_state=rng).fit(X).score_samples(X)


STRUCTURES = {
    "HBOS (PrivateHBOS)": hbos,
    "LODA, 50 × 10 bins": loda,
    "random grids, 20 × 2-D": random_grids,
    "half-space trees, 50 × depth 6": half_space_trees,
}


def one_run(name: str, r: int) -> dict:
    seed = int(
        np.random.default_rng([SEED0, (CHOOSE + HELD_OUT).index(name), r]).integers(2**31 - 3)
    )
    X, y = load(name, seed)
    out = {IFOREST: auc(y, IsolationForest(random_state=seed).fit(X).score_samples(X))}
    for label, structure in STRUCTURES.items():
        for eps in EPSILONS:
            rng = np.random.default_rng([seed, 1])  # the same structure at both ε
            out[f"{label}, ε={'∞' if eps is None else f'{eps:g}'}"] = auc(y, structure(X, eps, rng))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="2 seeds")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds = 2
    warnings.filterwarnings("ignore")
    t0 = time.time()
    per_set = runs_per_set(one_run, CHOOSE + HELD_OUT, args.seeds, args.jobs)
    methods = list(per_set[CHOOSE[0]])
    rows = []
    for method in methods:
        means = [
            np.mean([np.mean(per_set[s][method]) for s in group]) for group in (CHOOSE, HELD_OUT)
        ]
        rows.append([method, *(f"{m:.3f}" for m in means)])
    print_table(
        f"Mean ROC-AUC over each group's sets ({args.seeds} seeds)",
        ["structure", "choose", "held-out"],
        rows,
    )
    write_json(
        "outlier_structures" + ("_quick" if args.quick else ""),
        {
            "settings": dict(vars(args), choose=list(CHOOSE), held_out=list(HELD_OUT)),
            "source": source_fingerprint("outlier"),
            "roc_auc": per_set,
            "wall_s": time.time() - t0,
        },
    )


if __name__ == "__main__":
    main()
