"""A tour of the budget validator (``skdp-anomaly budget-demo``) on a public data set.

Fits a private :class:`~skdp_anomaly.BudgetedPipeline` on the breast-cancer
data and prints its report, then those of the pipeline under ``GridSearchCV``
and of two leaking variants, all under replace-one neighbours (n public).
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np

from ._breast_cancer import BREAST_CANCER_BOUNDS, MEAN_FEATURES, _public_scale

# public bounds of the "mean" features (from the definitions, never the rows), taken
# through log1p like the features, then mapped to [-1, 1]
FEATURE_UPPER = BREAST_CANCER_BOUNDS[list(MEAN_FEATURES), 1]
N_FEATURES = FEATURE_UPPER.size
LOG_BOUNDS = (np.zeros(N_FEATURES), np.log1p(FEATURE_UPPER))
# rows in [-1, 1]^d have L2 norm at most √d: the classifier's data_norm
CLF_NORM = math.sqrt(N_FEATURES)


def build_budgeted_pipeline(*, budget=2.0, random_state=0, scaler=None):
    """An unfitted :class:`~skdp_anomaly.BudgetedPipeline` of log1p → public scaling →
    DPSMOTE (ε=0.5) → PrivateLogisticRegression (ε=1).

    DPSMOTE's add/remove ε = 0.5 counts 1 under replace-one neighbours: 2 in all. ``budget``
    is the pipeline's ε (``None``: no check, for pricing a variant); ``random_state`` seeds
    the private steps (an int is for reproducible demos only); ``scaler`` is the scaling
    step (``None``: a stateless map of the public log bounds to [-1, 1]).
    """
    from sklearn.preprocessing import FunctionTransformer

    from ..budget import BudgetedPipeline
    from ..linear_model import PrivateLogisticRegression
    from ..over_sampling import DPSMOTE

    if scaler is None:
        lower, upper = LOG_BOUNDS
        scaler = FunctionTransformer(_public_scale, kw_args={"lower": lower, "upper": upper})
    log = FunctionTransformer(np.log1p)
    dpsmote = DPSMOTE(epsilon=0.5, bounds=(-1.0, 1.0), classes=[0, 1], random_state=random_state)
    clf = PrivateLogisticRegression(epsilon=1.0, data_norm=CLF_NORM, random_state=random_state)
    steps = [("log", log), ("scale", scaler), ("dpsmote", dpsmote), ("clf", clf)]
    return BudgetedPipeline(steps, budget=budget)


def run_budget_tour(
    budget: float = 2.0, random_state: int = 0, explain: bool = True, file=None
) -> float:
    """Fit the budgeted pipeline, print its privacy report, then those of three variants; return
    its held-out accuracy (public test data).

    ``budget`` is ε (ValueError unless positive and finite; below the pipeline's cost, 2,
    PrivacyBudgetError); ``random_state`` seeds the split, folds and noise (demo only); ``explain``
    prints how to read the first report; ``file`` is the stream (None: standard output).
    """
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    from ..budget._validator import print_pipeline_report

    if not (math.isfinite(budget) and budget > 0):  # before loading and fitting
        raise ValueError(f"budget must be a positive finite ε, got {budget!r}.")
    out = sys.stdout if file is None else file
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, list(MEAN_FEATURES)]  # the "mean" features (a public choice of columns)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=random_state
    )
    pipe = build_budgeted_pipeline(budget=budget, random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # DPSMOTE's note on a noisy class size
        pipe.fit(X_train, y_train)  # raises PrivacyBudgetError when over budget
    print("# skdp-anomaly demo: a privacy-budgeted pipeline\n", file=out)
    print(
        f"Data: sklearn breast cancer, the {N_FEATURES} 'mean' features, "
        f"{X_train.shape[0]} training rows. Feature bounds follow from the definitions of "
        "the measurements (domain knowledge, not computed from the data), taken through "
        "log1p like the features and mapped to [-1, 1]; values outside them are clipped. "
        f"The classifier's row-norm bound is √{N_FEATURES} ≈ {CLF_NORM:.2f}, the norm of "
        "that box.\n",
        file=out,
    )
    print_pipeline_report(
        "1. BudgetedPipeline(log → scale → dpsmote → clf): privacy_report_ (checked before fit)",
        pipe.privacy_report_,
        budget=budget,
        explain=explain,
        file=out,
    )
    accuracy = float(np.mean(pipe.predict(X_test) == y_test))
    print(
        f"Held-out accuracy: {accuracy:.3f} (evaluation on public test data for the demo; "
        "the test score itself is not a DP output).\n",
        file=out,
    )
    _print_variants(budget, random_state, out)
    return accuracy


def _print_variants(budget, random_state, out):
    from imblearn.over_sampling import SMOTE
    from sklearn.model_selection import GridSearchCV, KFold
    from sklearn.preprocessing import StandardScaler

    from ..budget._validator import print_pipeline_report

    # KFold, not cv=5: an int cv is StratifiedKFold, whose folds depend on other labels
    search = GridSearchCV(
        build_budgeted_pipeline(budget=budget, random_state=random_state),
        {"clf__epsilon": [0.5, 1.0, 2.0]},
        cv=KFold(5, shuffle=True, random_state=random_state),
    )
    print_pipeline_report(
        "2. The same pipeline under GridSearchCV(clf__epsilon ∈ {0.5, 1, 2}, "
        "cv=KFold(5, shuffle=True)) (priced from parameters, not fitted)",
        search,
        file=out,
    )
    print(
        "Each record is in 4 training folds for each of the 3 candidates, plus the refit "
        "of the winner (charged at the most expensive candidate). KFold's folds depend "
        "only on n and the seed, so the count is proven under replace-one neighbours; "
        "an int cv would give StratifiedKFold here, whose folds depend on the labels.\n",
        file=out,
    )
    leaky = build_budgeted_pipeline(budget=None, scaler=StandardScaler())
    print_pipeline_report(
        "3. With a plain sklearn StandardScaler instead of the public scaling", leaky, file=out
    )
    smote = build_budgeted_pipeline(budget=None, random_state=random_state)
    smote.steps[2] = ("smote", SMOTE())
    print_pipeline_report("4. With imblearn's SMOTE instead of DPSMOTE", smote, file=out)
