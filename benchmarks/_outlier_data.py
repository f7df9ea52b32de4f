"""Data, scoring and the per-seed loop of ``bench_outlier.py`` (also used by
``bench_outlier_structures.py``): the two groups of sets scaled by public bounds,
PrivateHBOS's scores with explicit bins and ε, PyOD's HBOS, ROC-AUC."""

from __future__ import annotations

import math

import numpy as np
from bench_online_svc_sets import load as load_keel
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from skdp_anomaly.outlier._histograms import (
    bin_index,
    count_mechanism,
    feature_counts,
    log_density_ratio,
    noise_floor,
    polygon_scores,
)


CHOOSE = (
    "breast_cancer",
    "digits_0",
    "pima",
    "vehicle0",
    "ecoli1",
    "yeast1",
    "glass6",
    "page_blocks0",
)
HELD_OUT = (
    "digits_5",
    "wisconsin",
    "new_thyroid1",
    "yeast3",
    "ecoli2",
    "vehicle2",
    "segment0",
    "shuttle_c0_vs_c4",
    "haberman",
)
PUBLIC_SHARE = 0.15
SEED0 = 37037


def load(name: str, seed: int):
    """``(X in [-1, 1], y with 1 = outlier)`` for one seed (public split dropped)."""
    rng = np.random.default_rng(seed)
    if name.startswith("digits_"):
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        return 2.0 * X / 16.0 - 1.0, (y == int(name[-1])).astype(int)
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
        y = 1 - y  # malignant = 1
        benign, malignant = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
        keep = np.r_[benign, rng.choice(malignant, round(0.1 * benign.size), replace=False)]
        X, y = X[keep], y[keep]
    else:
        X, y, _ = load_keel(name)
    X_pub, X, _, y = train_test_split(
        X, y, test_size=1 - PUBLIC_SHARE, stratify=y, random_state=seed
    )
    lo, hi = X_pub.min(axis=0), X_pub.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return np.clip(2.0 * (X - lo) / span - 1.0, -1.0, 1.0), y


def run_seed(name: str, r: int) -> int:
    return int(
        np.random.default_rng([SEED0, (CHOOSE + HELD_OUT).index(name), r]).integers(2**31 - 3)
    )


def unit_bounds(d):
    return np.full(d, -1.0), np.full(d, 1.0)


def noisy_table(X, n_bins, epsilon, rng):
    """``(log densities, noisy counts)`` as PrivateHBOS releases them (None ε: exact counts)."""
    counts = feature_counts(bin_index(X, *unit_bounds(X.shape[1]), n_bins), n_bins)
    if epsilon is None:
        return log_density_ratio(counts, 1.0), counts
    mech = count_mechanism(epsilon, X.shape[1])
    noisy = mech.randomise(counts, rng)
    return log_density_ratio(noisy, noise_floor(mech)), noisy


def hbos_scores(X, n_bins, epsilon, rng):
    """PrivateHBOS's scores with explicit bins and histogram ε (None: exact counts)."""
    return polygon_scores(X, noisy_table(X, n_bins, epsilon, rng)[0], *unit_bounds(X.shape[1]))


def multi_resolution_scores(X, finest, epsilon, rng):
    """Mean over the levels ``finest, finest/2, ..., 2`` bins of the polygon scores.

    One release, at the finest level; a coarser level's counts are sums of
    ``k`` of its noisy counts (post-processing), floored at their noise's
    standard deviation ``√k·σ``.
    """
    d = X.shape[1]
    counts = feature_counts(bin_index(X, *unit_bounds(d), finest), finest)
    sd = 1.0
    if epsilon is not None:
        mech = count_mechanism(epsilon, d)
        counts, sd = mech.randomise(counts, rng), noise_floor(mech)
    total, levels, k = 0.0, 0, 1
    while finest // k >= 2:
        level = counts.reshape(d, finest // k, k).sum(axis=2)
        table = log_density_ratio(level, max(1.0, math.sqrt(k) * sd if epsilon else 1.0))
        total, levels, k = total + polygon_scores(X, table, *unit_bounds(d)), levels + 1, 2 * k
    return total / levels


def pyod_hbos_scores(X, n_bins=10, alpha=0.1):
    """Non-private HBOS as PyOD writes it (higher = more normal): -Σ -log(density + α)."""
    score = np.zeros(len(X))
    for j in range(X.shape[1]):
        density, edges = np.histogram(X[:, j], bins=n_bins, range=(-1.0, 1.0), density=True)
        idx = np.clip(np.searchsorted(edges, X[:, j], side="right") - 1, 0, n_bins - 1)
        score += np.log(density[idx] + alpha)
    return score


def auc(y, normal_score):
    return float(roc_auc_score(y, -normal_score))


def runs_per_set(run, sets, seeds: int, jobs: int, *args) -> dict:
    """``{set: {method: [one value per seed]}}`` of ``run(set, seed, *args)``, in parallel."""
    from joblib import Parallel, delayed

    tasks = [(name, r) for name in sets for r in range(seeds)]
    results = Parallel(n_jobs=jobs)(delayed(run)(n, r, *args) for n, r in tasks)
    per_set: dict = {name: {} for name in sets}
    for (name, _), res in zip(tasks, results):
        for key, value in res.items():
            per_set[name].setdefault(key, []).append(value)
    return per_set


def seed_means(per_set) -> dict:
    return {
        name: {key: np.mean(values, axis=0) for key, values in runs.items()}
        for name, runs in per_set.items()
    }
