"""Demonstrations on public data, behind ``skdp-anomaly demo`` and ``budget-demo``.

Not part of the estimators: :mod:`skdp_anomaly` does not import this package,
and the command line imports it only to run a demo. The pieces:

* the public description of scikit-learn's breast-cancer data:
  :data:`BREAST_CANCER_BOUNDS`, feature bounds derived from the definitions
  of the measurements (Street, Wolberg and Mangasarian 1993) and never from
  the rows, :func:`public_scaler` and :func:`load_imbalanced`;
* the over-sampling showcase (``skdp-anomaly demo``): :func:`build_pipelines`
  (no resampling, SMOTE and DPSMOTE before a DP logistic regression at the
  same ε), :func:`privacy_reports`, :func:`run_showcase` and
  :func:`plot_showcase`;
* the budget validator's tour (``skdp-anomaly budget-demo``):
  :func:`build_budgeted_pipeline` and :func:`run_budget_tour`.

The demos run on the base install (matplotlib for the showcase's plot, the
``demo`` extra): their classifier is the package's own
:class:`~skdp_anomaly.PrivateLogisticRegression`; diffprivlib is not needed.
"""

from ._breast_cancer import BREAST_CANCER_BOUNDS as _BOUNDS
from ._breast_cancer import (
    MEAN_FEATURES,
    NUCLEUS_RADIUS_MAX,
    load_imbalanced,
    public_scaler,
)
from ._budget_tour import build_budgeted_pipeline, run_budget_tour
from ._showcase import run_showcase
from ._showcase_pipelines import METHOD_LABELS, build_pipelines, privacy_reports
from ._showcase_plot import plot_showcase

#: Public (lower, upper) bounds of the 30 features of scikit-learn's breast-cancer
#: data, shape (30, 2), in the data set's order: derived from the definitions of
#: the measurements (Street, Wolberg and Mangasarian 1993) and one stated bound on
#: the nucleus radius, never from the rows (the reasons are in the source of
#: ``skdp_anomaly.demos._breast_cancer``).
BREAST_CANCER_BOUNDS = _BOUNDS

__all__ = [
    "BREAST_CANCER_BOUNDS",
    "MEAN_FEATURES",
    "METHOD_LABELS",
    "NUCLEUS_RADIUS_MAX",
    "build_budgeted_pipeline",
    "build_pipelines",
    "load_imbalanced",
    "plot_showcase",
    "privacy_reports",
    "public_scaler",
    "run_budget_tour",
    "run_showcase",
]
