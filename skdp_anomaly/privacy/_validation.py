"""Data-independent bounds: validation, data-derived fallback, clipping; leak warnings."""

from __future__ import annotations

import sys

import numpy as np

from .._warn import warn

__all__ = ["check_bounds", "clip_to_bounds", "PrivacyLeakWarning", "warn_privacy_leak"]


class PrivacyLeakWarning(RuntimeWarning):
    """A step's privacy guarantee does not hold (e.g. bounds computed from the data).

    The same role as :class:`diffprivlib.utils.PrivacyLeakWarning`, without
    importing diffprivlib (which does not import on every scikit-learn). When
    diffprivlib has been imported, :func:`warn_privacy_leak` emits a class
    derived from both, so ``warnings`` filters and ``pytest.warns`` written for
    either class catch it.
    """


_BOTH = {}


def _leak_category() -> type:
    utils = sys.modules.get("diffprivlib.utils")
    theirs = getattr(utils, "PrivacyLeakWarning", None)
    if not (isinstance(theirs, type) and issubclass(theirs, Warning)):
        return PrivacyLeakWarning
    if theirs not in _BOTH:
        _BOTH[theirs] = type("PrivacyLeakWarning", (PrivacyLeakWarning, theirs), {
            "__module__": __name__,
            "__doc__": "A PrivacyLeakWarning of skdp_anomaly and of diffprivlib at once.",
        })
    return _BOTH[theirs]


def warn_privacy_leak(message: str) -> None:
    """Warn with :class:`PrivacyLeakWarning`, attributed to the user's line.

    Once diffprivlib has been imported, the warning is also an instance of
    diffprivlib's ``PrivacyLeakWarning``.

    Parameters
    ----------
    message : str
        What leaks, and how to avoid it. It must not contain data-dependent
        values.
    """
    warn(message, _leak_category())


def check_bounds(bounds, X=None, *, n_features: int, name: str = "bounds"):
    """Validate ``bounds`` and return ``(lower, upper)`` float arrays of length ``n_features``.

    Parameters
    ----------
    bounds : None or (lower, upper)
        Each of ``lower``/``upper`` a scalar or an array of length
        ``n_features``. ``None`` computes the bounds from ``X`` (its per-feature
        min and max), which leaks information about the data: a
        :class:`PrivacyLeakWarning` is emitted and the
        privacy guarantee no longer holds for the records at the extremes.
    X : array-like of shape (n_samples, n_features), optional
        Needed only when ``bounds`` is None.
    n_features : int
        The number of features the bounds are for.
    name : str, default="bounds"
        Parameter name used in error messages.

    Returns
    -------
    lower, upper : ndarray of shape (n_features,)
        The bounds as float arrays, ``lower < upper`` for every feature.

    Examples
    --------
    >>> from skdp_anomaly.privacy import check_bounds
    >>> lo, hi = check_bounds((-1, 1), n_features=2)
    >>> lo.tolist(), hi.tolist()
    ([-1.0, -1.0], [1.0, 1.0])
    """
    if bounds is None:
        if X is None:
            raise ValueError(f"{name} is None and no data was given to compute it from.")
        warn_privacy_leak(
            f"{name} have not been specified and are computed from the data. This "
            "leaks information about the data and breaks the privacy guarantee. "
            f"Specify {name} from domain knowledge to remove this warning."
        )
        X = np.asarray(X, dtype=np.float64)
        lower, upper = X.min(axis=0), X.max(axis=0)
        # a constant feature still needs a cell of positive width
        upper = np.where(upper > lower, upper, lower + 1.0)
        return lower.astype(np.float64), upper.astype(np.float64)

    try:
        lower, upper = bounds
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a (lower, upper) pair of scalars or of arrays of length "
            f"n_features={n_features}; got {bounds!r}."
        ) from None
    arrays = []
    for side, value in (("lower", lower), ("upper", upper)):
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name}: {side} bound must be numeric, got {value!r}.") from None
        if arr.ndim == 0:
            arr = np.full(n_features, float(arr))
        if arr.shape != (n_features,):
            raise ValueError(
                f"{name}: {side} bound must be a scalar or have shape ({n_features},), "
                f"got shape {arr.shape}."
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name}: {side} bound must be finite.")
        arrays.append(arr)
    lower, upper = arrays
    if np.any(lower >= upper):
        bad = np.flatnonzero(lower >= upper)[:5].tolist()
        raise ValueError(f"{name}: lower must be < upper for every feature; fails for features {bad}.")
    return lower, upper


def clip_to_bounds(X, lower, upper) -> np.ndarray:
    """Clip each column of ``X`` into ``[lower, upper]`` (a new array).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data.
    lower, upper : float or array-like of shape (n_features,)
        The public bounds, e.g. from :func:`check_bounds`.

    Returns
    -------
    ndarray of float64, shape (n_samples, n_features)
        The clipped copy.

    Examples
    --------
    >>> from skdp_anomaly.privacy import clip_to_bounds
    >>> clip_to_bounds([[-3.0, 0.5]], -1.0, 1.0).tolist()
    [[-1.0, 0.5]]
    """
    return np.clip(np.asarray(X, dtype=np.float64), lower, upper)
