"""Data-independent bounds: validation, data-derived fallback, clipping; leak warnings;
numeric-input checks whose messages hold no data value."""

from __future__ import annotations

import sys

import numpy as np

from .._warn import warn
from ..exceptions import BoundsClippingWarning, PrivacyLeakWarning, naming

#: The message of :func:`check_numeric`; ``what`` describes X (its type or its
#: columns' names, a schema) and never one of its values.
NON_NUMERIC = "{owner} supports numeric features only; {what}. {hint}"

_ENCODE = "Encode X numerically before passing it."

# diffprivlib's PrivacyLeakWarning -> the class derived from it and from ours
_BOTH = {}


def leak_category() -> type:
    utils = sys.modules.get("diffprivlib.utils")
    theirs = getattr(utils, "PrivacyLeakWarning", None)
    if not (isinstance(theirs, type) and issubclass(theirs, Warning)):
        return PrivacyLeakWarning
    if theirs not in _BOTH:
        doc = "A PrivacyLeakWarning of skdp_anomaly and of diffprivlib at once."
        attributes = {"__module__": __name__, "__doc__": doc}
        _BOTH[theirs] = type("PrivacyLeakWarning", (PrivacyLeakWarning, theirs), attributes)
    return _BOTH[theirs]


def warn_privacy_leak(template: str) -> None:
    """Warn with :class:`PrivacyLeakWarning` (also diffprivlib's, once imported) at the user's line.

    ``template`` says what leaks and how to avoid it, each setting it names in backticks
    (:func:`~skdp_anomaly.exceptions.naming`); it must hold no data value.
    """
    warn(naming(leak_category(), template))


def check_bounds(bounds, X=None, *, n_features: int, name: str = "bounds"):
    """Validate ``bounds`` (scalars or arrays of length ``n_features``, named ``name`` in
    messages) and return ``(lower, upper)`` float arrays with ``lower < upper``.

    ``None`` takes ``X``'s min and max, which leaks (:class:`PrivacyLeakWarning`).
    """
    if bounds is None:
        if X is None:
            raise naming(ValueError, f"`{name}` is None and no data was given to compute it from.")
        warn_privacy_leak(
            f"`{name}` have not been specified and are computed from the data. This "
            "leaks information about the data and breaks the privacy guarantee. "
            f"Specify `{name}` from domain knowledge to remove this warning."
        )
        X = np.asarray(X, dtype=np.float64)
        lower, upper = X.min(axis=0), X.max(axis=0)
        # a constant feature still needs a cell of positive width
        upper = np.where(upper > lower, upper, lower + 1.0)
        return lower.astype(np.float64), upper.astype(np.float64)

    try:
        lower, upper = bounds
    except (TypeError, ValueError):
        raise naming(
            ValueError,
            f"`{name}` must be a (lower, upper) pair of scalars or of arrays of length "
            f"n_features={n_features}; got {bounds!r}.",
        ) from None
    arrays = []
    for side, value in (("lower", lower), ("upper", upper)):
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise naming(
                ValueError, f"`{name}`: {side} bound must be numeric, got {value!r}."
            ) from None
        if arr.ndim == 0:
            arr = np.full(n_features, float(arr))
        if arr.shape != (n_features,):
            raise naming(
                ValueError,
                f"`{name}`: {side} bound must be a scalar or have shape ({n_features},), "
                f"got shape {arr.shape}.",
            )
        if not np.all(np.isfinite(arr)):
            raise naming(ValueError, f"`{name}`: {side} bound must be finite.")
        arrays.append(arr)
    lower, upper = arrays
    if np.any(lower >= upper):
        bad = np.flatnonzero(lower >= upper)[:5].tolist()
        raise naming(
            ValueError,
            f"`{name}`: lower must be < upper for every feature; fails for features {bad}.",
        )
    return lower, upper


#: A feature with more than this share of its rows outside the bounds is named
#: by :func:`warn_outside_bounds`.
OUTSIDE_SHARE = 0.01


def warn_outside_bounds(X, lower, upper, owner: str, feature_names=None) -> None:
    """Name the features with more than :data:`OUTSIDE_SHARE` of rows outside the bounds.

    A local diagnostic (:class:`BoundsClippingWarning`): never released nor
    stored, names features only. In-memory arrays only.
    """
    if not isinstance(X, np.ndarray) or X.ndim != 2 or not X.shape[0]:
        return
    outside = np.flatnonzero(((X < lower) | (X > upper)).mean(axis=0) > OUTSIDE_SHARE)
    if not outside.size:
        return
    names = [f"x{i}" if feature_names is None else str(feature_names[i]) for i in outside]
    shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
    warn(
        naming(
            BoundsClippingWarning,
            f"{owner}: more than {OUTSIDE_SHARE:.0%} of the rows lie outside `'bounds'` for "
            f"feature(s) {shown}; they are clipped into the bounds, which biases the model "
            "toward them. Widen the bounds from domain knowledge (this diagnostic is local: "
            "it is neither released nor stored).",
        )
    )


def non_numeric_columns(columns, dtypes) -> list:
    """Names of the columns whose dtype is not numeric (a frame's schema, not its values)."""
    return [
        str(col) for col, dt in zip(columns, dtypes) if not (getattr(dt, "kind", "O") in "biuf")
    ]


def check_numeric(X, owner: str, hint: str = _ENCODE, *, ensure_2d: bool = False) -> None:
    """Refuse non-numeric ``X`` (strings too) with an error naming X but none of its values.

    numpy's own error quotes a cell of the data. Call it before ``validate_data`` and
    before any charge. ``owner`` starts the message, ``hint`` ends it; ``ensure_2d`` also
    refuses a 1-D ``X`` (scikit-learn's message would quote it). A ``TypeError`` when
    numpy names only a type.

    >>> from skdp_anomaly.privacy._validation import check_numeric
    >>> check_numeric([[1.0], [2.5]], "MyEstimator")
    >>> check_numeric([["a"], ["b"]], "MyEstimator", hint="Encode X.")
    Traceback (most recent call last):
    ...
    ValueError: MyEstimator supports numeric features only; X has non-numeric values. Encode X.
    """

    def refuse(what, error=ValueError):
        return error(NON_NUMERIC.format(owner=owner, what=what, hint=hint))

    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "__iter__"):
        bad = non_numeric_columns(X.columns, dtypes)
        if bad:
            raise refuse(f"non-numeric columns {bad[:5]}")
        return
    if hasattr(X, "toarray"):
        return
    try:
        array = np.asarray(X)
    except (TypeError, ValueError):  # ragged input: validate_data words that error
        return
    if ensure_2d and array.ndim < 2:
        raise ValueError(
            f"{owner} expects a 2-D X of shape (n_samples, n_features); got a "
            f"{array.ndim}-D array. Reshape your data either using X.reshape(-1, 1) if it "
            "has a single feature or X.reshape(1, -1) if it contains a single sample."
        )
    kind = array.dtype.kind
    if kind in "OUSV":
        try:
            np.asarray(X, dtype=np.float64)
        except ValueError:  # unparsable strings: their text is data, keep it out
            raise refuse("X has non-numeric values") from None
        except TypeError as exc:  # numpy names only the offending type
            raise refuse(f"X has non-numeric values ({exc})", TypeError) from None
    if kind in "USV":
        raise refuse("X is an array of strings")
