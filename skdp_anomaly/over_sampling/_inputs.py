"""DPSMOTE's input checks: numeric features only, and messages free of data values."""

from __future__ import annotations

import numpy as np
from imblearn.utils import check_target_type
from sklearn.utils.validation import validate_data

from ..privacy._validation import NON_NUMERIC as _NON_NUMERIC
from ..privacy._validation import check_numeric, non_numeric_columns
from ._strategy import integer_labels

__all__ = ["NON_NUMERIC", "check_X_y", "non_numeric_columns"]

# DPSMOTE's wording of the shared message (``what`` is filled in where it is raised)
_CATEGORICAL = ("Categorical data is out of scope: encode it numerically (with public "
                "bounds) or use a sampler for categorical data.")
NON_NUMERIC = _NON_NUMERIC.format(owner="DPSMOTE", what="{what}", hint=_CATEGORICAL)


def check_X_y(estimator, X, y):
    """``(X, y, binarize_y)`` validated for ``estimator`` (sets its ``n_features_in_``)."""
    check_numeric(X, "DPSMOTE", hint=_CATEGORICAL, ensure_2d=True)
    if integer_labels(y):  # type_of_target's sort of y is not needed for these
        binarize_y = False
    else:
        y, binarize_y = check_target_type(y, indicate_one_vs_all=True)
    X, y = validate_data(estimator, X=X, y=y, reset=True, accept_sparse=False,
                         dtype=[np.float64, np.float32])
    return X, y, binarize_y
