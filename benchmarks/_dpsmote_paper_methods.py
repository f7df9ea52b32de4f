"""Samplers, classifiers and the cross-validation loop of ``bench_dpsmote_paper.py``.

"DPSMOTE" is Algorithm 6 as written (histogram="auto" = dense grid at d = 8);
"DPSMOTE-sparse" is the same sampler with histogram="sparse" (cells below a DP
threshold θ reported as 0), which removes most of the noise mass that the dense
grid spreads over its 4^8 = 65 536 mostly empty cells. "DPSMOTE-auto" (and
"DPSMOTE-sparse-auto") use granularity="auto": the grid is chosen from the noisy
minority size so that the expected noise mass stays below it.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from _dpsmote_paper_data import KISSING_NUMBER_D8, METRICS, SMOTE_K
from imblearn.metrics import geometric_mean_score
from imblearn.over_sampling import SMOTE
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score, recall_score, roc_auc_score
from sklearn.model_selection import StratifiedKFold


PREPROCESSORS = (
    "None",
    "SMOTE",
    "DPSMOTE",
    "DPSMOTE-sparse",
    "DPSMOTE-auto",
    "DPSMOTE-sparse-auto",
)
CLASS_COUNTS = "private"  # set by --public-counts
WARNING_TALLY: dict = {}  # sampler warnings, counted instead of printed
AUTO_CHOICES: dict = {}  # experiment -> {cells per feature chosen by granularity="auto": fits}
CONTEXT = [""]  # label of the experiment running (for AUTO_CHOICES)


def make_dpsmote(epsilon, seed, histogram="auto", granularity=0.25):
    """The DPSMOTE of this package with the thesis settings (ℓ=2, ν=0.25, α=1)."""
    from diffprivlib.accountant import BudgetAccountant

    from skdp_anomaly.over_sampling import DPSMOTE

    d = 8
    return DPSMOTE(
        epsilon=epsilon,
        sampling_strategy="auto",
        bounds=(-np.ones(d), np.ones(d)),
        synopsis="grid",
        granularity=granularity,
        connectivity=2,
        histogram=histogram,
        class_counts=CLASS_COUNTS,
        random_state=seed,
        accountant=BudgetAccountant(),
    )


def make_sampler(name, epsilon, seed):
    if name == "None":
        return None
    if name == "SMOTE":
        return SMOTE(k_neighbors=SMOTE_K, random_state=seed)
    if name == "DPSMOTE-sparse":
        return make_dpsmote(epsilon, seed, histogram="sparse")
    if name == "DPSMOTE-auto":
        return make_dpsmote(epsilon, seed, granularity="auto")
    if name == "DPSMOTE-sparse-auto":
        return make_dpsmote(epsilon, seed, histogram="sparse", granularity="auto")
    return make_dpsmote(epsilon, seed)


def make_classifier(name, seed, epsilon=None, n_features=8):
    if name == "LR":
        return LogisticRegression(max_iter=1000)
    if name == "RF":
        return RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=1)
    if name == "DP-LR":
        from diffprivlib.accountant import BudgetAccountant
        from diffprivlib.models import LogisticRegression as DPLogisticRegression

        # features lie in [-1, 1]^d, so ||x||_2 <= sqrt(d): a public data_norm.
        return DPLogisticRegression(
            epsilon=epsilon,
            data_norm=math.sqrt(n_features),
            max_iter=1000,
            random_state=seed,
            accountant=BudgetAccountant(),
        )
    raise ValueError(name)


def evaluate(clf, X_test, y_test):
    proba = clf.predict_proba(X_test)[:, 1]
    pred = (proba >= 0.5).astype(int)
    return {
        "roc_auc": roc_auc_score(y_test, proba),
        "auc_hard": roc_auc_score(y_test, pred),
        "accuracy": accuracy_score(y_test, pred),
        "recall": recall_score(y_test, pred, zero_division=0),
        "g_mean": geometric_mean_score(y_test, pred),
        "f1": f1_score(y_test, pred, zero_division=0),
    }


def run_cv(X, y, sampler_factory, clf_factory, seeds, n_folds=5):
    """Metrics for every (seed, fold); samplers and classifiers see train folds only."""
    out = {m: [] for m in METRICS}
    for seed in seeds:
        skf = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
        for fold, (tr, te) in enumerate(skf.split(X, y)):
            fold_seed = 1000 * seed + fold
            X_tr, y_tr = X[tr], y[tr]
            sampler = sampler_factory(fold_seed, (int(np.sum(y_tr == 0)), int(np.sum(y_tr == 1))))
            if sampler is not None:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    X_tr, y_tr = sampler.fit_resample(X_tr, y_tr)
                for w in caught:
                    msg = str(w.message)
                    what = (
                        "no positive cell (uniform rows)"
                        if "no cell" in msg
                        else "no synthetic rows"
                        if "no synthetic" in msg
                        else "dense grid dominated by noise"
                        if "dense grid" in msg
                        else "sparse release far below class size"
                        if "sparse histogram" in msg
                        else w.category.__name__
                    )
                    key = (
                        f"histogram={getattr(sampler, 'histogram', '?')}, granularity="
                        f"{getattr(sampler, 'granularity', '?')}: {what}"
                    )
                    WARNING_TALLY[key] = WARNING_TALLY.get(key, 0) + 1
                if getattr(sampler, "granularity", None) == "auto":
                    tally = AUTO_CHOICES.setdefault(
                        f"{CONTEXT[0]} {sampler.histogram} ε={sampler.epsilon:g}", {}
                    )
                    tally[sampler.n_cells_] = tally.get(sampler.n_cells_, 0) + 1
            clf = clf_factory(fold_seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # diffprivlib convergence chatter
                clf.fit(X_tr, y_tr)
            for m, v in evaluate(clf, X[te], y[te]).items():
                out[m].append(float(v))
    return out


def remark2_scale(n0, n1, d_kissing=KISSING_NUMBER_D8, k=SMOTE_K, alpha=1.0):
    """Classifier-ε multiplier for SMOTE + DP-LR (Theorem 3.2 with γ = 0, Remark 2).

    ε' = ε · l · (α n0 − n1) / (n1 k); the classifier gets ε / (that factor).
    With the thesis's training folds (n0 = 400, n1 ≈ 214, l(8) = 240) it is 0.024.
    """
    factor = d_kissing * (alpha * n0 - n1) / (n1 * k)
    return 1.0 / factor
