"""``skdp-anomaly budget-demo``: a privacy-budgeted pipeline on a public dataset.

A tour of the budget validator: fits a diffprivlib pipeline on
scikit-learn's bundled breast-cancer data inside a :class:`BudgetedPipeline`,
prints its privacy report with an explanation, then the report of the same
pipeline under ``GridSearchCV`` and of two leaking variants. Every report is
stated under replace-one-record neighbours (n public), the relation
diffprivlib's models hold under.
"""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np

# Public upper bounds of the 10 "mean" features of the Wisconsin diagnostic
# breast-cancer data (radius, texture, perimeter, area, smoothness, compactness,
# concavity, concave points, symmetry, fractal dimension), all >= 0: round
# numbers per measurement type, fixed here and never computed from the data (a
# deployment would take them from the imaging protocol). The pipeline works on
# log1p of the features, so its bounds are log1p of these; values outside are
# clipped by diffprivlib's StandardScaler.
FEATURE_UPPER = np.array([30, 40, 200, 2500, 0.2, 0.4, 0.5, 0.25, 0.35, 0.1])
N_FEATURES = FEATURE_UPPER.size
LOG_BOUNDS = (np.zeros(N_FEATURES), np.log1p(FEATURE_UPPER))
# L2 norms rows are clipped to: before PCA (6 also keeps diffprivlib's Bingham
# sampler fast) and before the classifier
PCA_NORM, CLF_NORM = 6.0, 2.5


def build_pipeline(*, budget=2.0, random_state=0, scaler=None):
    """log1p → DP StandardScaler (ε=0.5) → DP PCA (ε=0.5) → DP LogisticRegression (ε=1)."""
    from diffprivlib.models import PCA, LogisticRegression, StandardScaler
    from sklearn.preprocessing import FunctionTransformer

    from ..budget import BudgetedPipeline

    if scaler is None:
        scaler = StandardScaler(epsilon=0.5, bounds=LOG_BOUNDS, random_state=random_state)
    return BudgetedPipeline(
        [
            ("log", FunctionTransformer(np.log1p)),
            ("scale", scaler),
            (
                "pca",
                PCA(
                    n_components=3,
                    epsilon=0.5,
                    data_norm=PCA_NORM,
                    centered=True,
                    random_state=random_state,
                ),
            ),
            (
                "clf",
                LogisticRegression(epsilon=1.0, data_norm=CLF_NORM, random_state=random_state),
            ),
        ],
        budget=budget,
    )


def run(args) -> int:
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import GridSearchCV, KFold, train_test_split
    from sklearn.preprocessing import StandardScaler

    from ..budget import print_pipeline_report

    from ._common import require_diffprivlib

    if not (math.isfinite(args.budget) and args.budget > 0):  # before loading and fitting
        raise ValueError(f"--budget must be a positive finite ε, got {args.budget!r}.")
    require_diffprivlib("skdp-anomaly budget-demo")
    out = sys.stdout
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :N_FEATURES]  # the "mean" features (a public choice of columns)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=args.random_state
    )
    pipe = build_pipeline(budget=args.budget, random_state=args.random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # scipy deprecations inside diffprivlib
        pipe.fit(X_train, y_train)  # raises PrivacyBudgetError when over --budget
    print("# skdp-anomaly demo: a privacy-budgeted pipeline\n", file=out)
    print(
        f"Data: sklearn breast cancer, the {N_FEATURES} 'mean' features, "
        f"{X_train.shape[0]} training rows. Feature bounds are fixed round numbers per "
        "measurement type (domain knowledge, not computed from the data), taken through "
        "log1p like the features; values outside them are clipped. Rows are clipped to "
        f"L2 norm {PCA_NORM:g} before PCA and {CLF_NORM:g} before the classifier.\n",
        file=out,
    )
    print_pipeline_report(
        "1. BudgetedPipeline(log → scale → pca → clf): privacy_report_ (checked before fit)",
        pipe.privacy_report_,
        budget=args.budget,
        explain=not args.no_explain,
        file=out,
    )
    accuracy = float(np.mean(pipe.predict(X_test) == y_test))
    print(
        f"Held-out accuracy: {accuracy:.3f} (evaluation on public test data for the demo; "
        "the test score itself is not a DP output).\n",
        file=out,
    )
    # KFold, not cv=5: with a classifier an int cv is StratifiedKFold, whose folds
    # depend on the labels of other records, so its fold count would not be a bound
    search = GridSearchCV(
        build_pipeline(budget=args.budget, random_state=args.random_state),
        {"clf__epsilon": [0.5, 1.0, 2.0]},
        cv=KFold(5, shuffle=True, random_state=args.random_state),
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
    leaky = build_pipeline(budget=None, scaler=StandardScaler())
    print_pipeline_report(
        "3. With a plain sklearn StandardScaler instead of the DP one", leaky, file=out
    )
    from imblearn.over_sampling import SMOTE

    smote = build_pipeline(budget=None, random_state=args.random_state)
    smote.steps.insert(0, ("smote", SMOTE()))
    print_pipeline_report("4. With imblearn's SMOTE in front", smote, file=out)
    return 0


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "budget-demo",
        help="fit a privacy-budgeted diffprivlib pipeline and explain its privacy report",
        description=(
            "Fit log1p → DP StandardScaler → DP PCA → DP LogisticRegression "
            "(ε = 0 + 0.5 + 0.5 + 1) "
            "on scikit-learn's breast-cancer data in a BudgetedPipeline, and print the "
            "privacy reports of that pipeline, of a GridSearchCV over it, and of "
            "leaking variants."
        ),
    )
    p.add_argument(
        "--budget",
        type=float,
        default=2.0,
        help="privacy budget ε of the fitted pipeline (default: 2.0; below 2 the fit is refused)",
    )
    p.add_argument("--random-state", type=int, default=0, help="seed (demo only; default: 0)")
    p.add_argument("--no-explain", action="store_true", help="omit the explanation of the report")
    p.set_defaults(func=run)
