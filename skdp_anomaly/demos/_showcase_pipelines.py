"""The models the showcase compares, their scores and their privacy reports.

At the same nominal budget ε: ``recommended`` (:class:`~skdp_anomaly.DPImbalancedClassifier`);
``balanced_lr`` (scikit-learn's class-balanced logistic regression, not private); ``none``
(:class:`~skdp_anomaly.PrivateLogisticRegression`); ``smote`` (SMOTE then DP-LR: its ε is *not*
true, Lut 2022, Theorem 3.2); ``dpsmote`` (:class:`~skdp_anomaly.DPSMOTE` at ε/4, ε/2 under
replace-one neighbours, then DP-LR at ε/2: ε-DP in total, Theorem 3.3). Every data-dependent
parameter is public (:mod:`._breast_cancer`'s bounds, DPSMOTE's ``bounds``, ``data_norm``).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from ..exceptions import naming
from ._breast_cancer import BREAST_CANCER_BOUNDS, MEAN_FEATURES, public_scaler

METHODS = ("recommended", "balanced_lr", "dpsmote", "none", "smote")
#: How each pipeline is named in tables, plots and reports.
METHOD_LABELS = {
    "recommended": "DPImbalancedClassifier(ε)",
    "balanced_lr": "LR, class-balanced  [not private]",
    "none": "DP-LR(ε), no resampling",
    "smote": "SMOTE + DP-LR(ε)  [claimed ε is false]",
    "dpsmote": "DPSMOTE(ε/4) + DP-LR(ε/2)",
}
SYNOPSES = ("gaussian", "grid")
METRICS = ("roc_auc", "recall", "g_mean", "f1")
METRIC_LABELS = {"roc_auc": "ROC-AUC", "recall": "minority recall", "g_mean": "G-mean", "f1": "F1"}


def build_pipelines(
    epsilon: float,
    n_minority_train: int,
    random_state=None,
    features=MEAN_FEATURES,
    synopsis: str = "gaussian",
) -> dict:
    """Method name (of ``METHODS``) -> unfitted model, each at the total budget ``epsilon`` (under
    replace-one neighbours) on the data's columns ``features``.

    Data-dependent parameters are public (scaling bounds, DPSMOTE ``bounds``, ``data_norm = √d``
    for features in [-1, 1]^d); ``n_minority_train`` sets SMOTE's ``k_neighbors`` (non-private
    pipeline only); ``random_state`` seeds every step (an int is for reproducible demos only);
    ``synopsis``: DPSMOTE's default DP class mean or the thesis' grid with ``granularity="auto"``.
    """
    from imblearn.over_sampling import SMOTE
    from imblearn.pipeline import Pipeline
    from sklearn.linear_model import LogisticRegression

    from ..imbalanced import DPImbalancedClassifier
    from ..linear_model import PrivateLogisticRegression
    from ..over_sampling import DPSMOTE

    if synopsis not in SYNOPSES:
        raise naming(ValueError, f"`synopsis` must be one of {SYNOPSES}, got {synopsis!r}.")
    data_norm = math.sqrt(len(features))

    def dplr(eps):
        # the metrics threshold at 0.5, which needs a calibrated intercept: C = 1 on
        # the rows as they are (the default regularises the intercept too strongly)
        return PrivateLogisticRegression(
            epsilon=eps, data_norm=data_norm, clip_norm=data_norm, C=1.0, random_state=random_state
        )

    def scaled(*steps):
        return Pipeline([("scale", public_scaler(features)), *steps])

    k = max(1, min(5, n_minority_train - 1))
    common = {"classes": [0, 1], "random_state": random_state}
    # granularity="auto": the grid from the DP minority size (post-processing, no ε)
    grid = {"granularity": "auto", "connectivity": 2} if synopsis == "grid" else {}
    # ε/4 under add/remove is ε/2 under replace-one neighbours, the relation of the
    # classifier: ε in total
    dpsmote = DPSMOTE(epsilon=epsilon / 4, bounds=(-1.0, 1.0), synopsis=synopsis, **common, **grid)
    lower, upper = BREAST_CANCER_BOUNDS[list(features)].T
    return {
        "recommended": DPImbalancedClassifier(epsilon=epsilon, bounds=(lower, upper), **common),
        "balanced_lr": scaled(("clf", LogisticRegression(class_weight="balanced"))),
        "none": scaled(("clf", dplr(epsilon))),
        "smote": scaled(
            ("resample", SMOTE(k_neighbors=k, random_state=random_state)), ("clf", dplr(epsilon))
        ),
        "dpsmote": scaled(("resample", dpsmote), ("clf", dplr(epsilon / 2))),
    }


def score_pipeline(pipe, X_test, y_test) -> dict:
    """``{"roc_auc", "recall", "g_mean", "f1"}`` -> float of a fitted pipeline of
    :func:`build_pipelines` on a public test set (``y_test``: 1 for the minority class).

    The labels are the model's ``predict``: probability 0.5 for the logistic pipelines, the
    cut at the model's own DP base rate for :class:`~skdp_anomaly.DPImbalancedClassifier`.
    """
    from imblearn.metrics import geometric_mean_score
    from sklearn.metrics import f1_score, recall_score, roc_auc_score

    proba = pipe.predict_proba(X_test)[:, 1]
    pred = np.asarray(pipe.predict(X_test), dtype=int)
    return {
        "roc_auc": float(roc_auc_score(y_test, proba)),
        "recall": float(recall_score(y_test, pred, zero_division=0)),
        "g_mean": float(geometric_mean_score(y_test, pred)),
        "f1": float(f1_score(y_test, pred, zero_division=0)),
    }


def mean_and_se(values) -> tuple:
    """Mean and standard error of the mean (0 for a single value)."""
    arr = np.asarray(values, dtype=float)
    if arr.size <= 1:
        return float(arr.mean()), 0.0
    return float(arr.mean()), float(arr.std(ddof=1) / math.sqrt(arr.size))


def privacy_reports(epsilon: float, file=None, synopsis: str = "gaussian") -> dict:
    """Print to ``file`` (``None``: standard output) the budget validator's report of each
    pipeline at the total budget ``epsilon`` (DPSMOTE with ``synopsis``); return method name
    -> the report's neighbouring relation, ε, δ, verdicts and assumptions.

    Under replace-one neighbours (n public), where DPSMOTE's add/remove ε counts twice
    (group privacy); from the parameters, nothing fitted.
    """
    from ..budget import check_privacy_budget

    file = sys.stdout if file is None else file
    out = {}
    for method, pipe in build_pipelines(epsilon, n_minority_train=10, synopsis=synopsis).items():
        print(f"\n[{METHOD_LABELS[method]}]", file=file)
        # the SMOTE leak is printed in the report itself
        report = check_privacy_budget(pipe, neighbours="replace", on_leak="ignore")
        print(report.to_markdown(), file=file)
        out[method] = {
            "neighbours": report.neighbours,
            "epsilon": float(report.epsilon),
            "delta": float(report.delta),
            "is_private": bool(report.is_private),
            "is_private_given_assumptions": bool(report.is_private_given_assumptions),
            "assumptions": list(report.assumptions),
        }
    return out
