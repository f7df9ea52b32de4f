"""DPSMOTE's input checks: numeric features only, and messages free of data values."""

from __future__ import annotations

import numpy as np
from imblearn.utils import check_target_type
from sklearn.utils.validation import validate_data

from ._strategy import integer_labels

__all__ = ["NON_NUMERIC", "check_X_y", "non_numeric_columns"]

NON_NUMERIC = (
    "DPSMOTE supports numeric features only; {what}. Categorical data is out of "
    "scope: encode it numerically (with public bounds) or use a sampler for "
    "categorical data."
)


def non_numeric_columns(columns, dtypes) -> list:
    """Names of the columns whose dtype is not numeric (a frame's schema, not its values)."""
    return [str(col) for col, dt in zip(columns, dtypes)
            if not (getattr(dt, "kind", "O") in "biuf")]


def _check_numeric(X) -> None:
    """Refuse non-numeric features; no cell's text reaches the message."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "__iter__"):
        bad = non_numeric_columns(X.columns, dtypes)
        if bad:
            raise ValueError(NON_NUMERIC.format(what=f"non-numeric columns {bad[:5]}"))
        return
    if hasattr(X, "toarray"):
        return
    kind = getattr(np.asarray(X), "dtype", np.dtype(float)).kind
    if kind in "OUSV":
        try:
            np.asarray(X, dtype=np.float64)
        except ValueError:  # unparsable strings: their text is data, keep it out
            raise ValueError(NON_NUMERIC.format(what="X has non-numeric values")) from None
        except TypeError as exc:  # numpy names only the offending type
            raise TypeError(
                NON_NUMERIC.format(what=f"X has non-numeric values ({exc})")
            ) from None
    if kind in "USV":
        raise ValueError(NON_NUMERIC.format(what="X is an array of strings"))


def check_X_y(estimator, X, y):
    """``(X, y, binarize_y)`` validated for ``estimator`` (sets its ``n_features_in_``)."""
    _check_numeric(X)
    if integer_labels(y):  # type_of_target's sort of y is not needed for these
        binarize_y = False
    else:
        y, binarize_y = check_target_type(y, indicate_one_vs_all=True)
    X, y = validate_data(estimator, X=X, y=y, reset=True, accept_sparse=False,
                         dtype=[np.float64, np.float32])
    return X, y, binarize_y
