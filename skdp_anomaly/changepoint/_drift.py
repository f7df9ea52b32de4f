"""Drift change detection by reduction to a change in distribution (Lut 2022, §2.5)."""

from __future__ import annotations

import numpy as np

from ._in_memory import reject_dask_collection


def drift_transform(x, f_inverse=None) -> np.ndarray:
    """Pairwise differences ``y_t = g(x_{2t}) - g(x_{2t-1})`` of a drifting series.

    Under the drift model of §2.5 (``x_t = μ_t + e_t``, slope ``ξ0`` of ``μ`` up to ``t*``, ``ξ1``
    after, i.i.d. errors) the differences of consecutive pairs are independent with mean ``ξ0``
    before the change and ``ξ1`` after, so :class:`~skdp_anomaly.PrivateChangePointDetector` applies
    to them; map its ``change_point_`` back with :func:`drift_index_to_original`.

    Parameters
    ----------
    x : array-like of shape (n,) or (n, 1)
        The series, ``n`` even (pairs ``(x_1, x_2), (x_3, x_4), ...``).
    f_inverse : callable, optional
        For data ``x_t = f(μ_t + e_t)``, the inverse ``f⁻¹`` (vectorised,
        e.g. ``np.log``), applied before differencing. Default: identity.

    Returns
    -------
    y : ndarray of shape (n // 2,)

    Raises
    ------
    TypeError
        If ``x`` is a dask collection: ``.compute()`` it first.
    ValueError
        If ``n`` is odd (drop the first or last point yourself) or ``< 2``,
        ``x`` is not one series, or ``x`` or ``f_inverse(x)`` is not finite.

    Notes
    -----
    Privacy (Corollary 2.1): replacing one element of ``x`` replaces exactly one ``y_t``, so running
    the ε-DP detector on ``y`` is ε-DP for ``x`` under "replace one element" neighbours. Direction:
    a faster drift after the change (``ξ1 > ξ0``, as in Figure 2.4) is ``direction="increase"`` on
    ``y``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.changepoint import drift_transform
    >>> drift_transform([0.0, 1.0, 2.0, 4.0]).tolist()
    [1.0, 2.0]
    >>> drift_transform(np.exp([0.0, 1.0, 2.0, 4.0]), f_inverse=np.log).tolist()
    [1.0, 2.0]
    """
    reject_dask_collection(x, "drift_transform")
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"x must be one series of shape (n,) or (n, 1), got shape {arr.shape}.")
    n = arr.shape[0]
    if n < 2 or n % 2:
        raise ValueError(
            f"x must have an even number of points >= 2 to form pairs (x_2t-1, x_2t), "
            f"got {n}; drop the first or the last point explicitly."
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError("x contains NaN or infinity.")
    if f_inverse is not None:
        if not callable(f_inverse):
            raise TypeError(f"f_inverse must be callable or None, got {f_inverse!r}.")
        with np.errstate(all="ignore"):
            arr = np.asarray(f_inverse(arr), dtype=np.float64)
        if arr.shape != (n,):
            raise ValueError(f"f_inverse must map shape ({n},) to ({n},), got {arr.shape}.")
        if not np.all(np.isfinite(arr)):
            raise ValueError("f_inverse(x) contains NaN or infinity (is x in f's range?).")
    return arr[1::2] - arr[0::2]


def drift_index_to_original(k):
    """Map a change point of :func:`drift_transform`'s output to the original series.

    ``k`` pre-change differences ``y_1 .. y_k`` cover the original points
    ``x_1 .. x_{2k}``. The estimate is ``t̂ = 2k`` ("twice the output of
    PNCPD", §2.5), the number of points on the old slope, directly comparable
    with ``t*`` of the drift model (``x_1 .. x_{t*}`` follow the old slope).

    Parameters
    ----------
    k : int or array-like of int
        ``change_point_`` of a detector fitted on ``drift_transform(x)``.

    Returns
    -------
    int or ndarray of int64
        ``2k`` (vectorised for arrays, e.g. Monte Carlo runs).

    Notes
    -----
    Under the drift model of §2.5, ``t* = 2k`` and ``t* = 2k + 1`` give the *same* distribution of
    the differences, so the change is identifiable only up to this pair; the thesis' footnote
    (``2k + 1`` for even ``t*``) does not hold. The section's text (``2k``) is followed: exact for
    even ``t*``, off by one for odd ``t*``.

    Examples
    --------
    >>> from skdp_anomaly.changepoint import drift_index_to_original
    >>> drift_index_to_original(50)
    100
    >>> drift_index_to_original([0, 10]).tolist()
    [0, 20]
    """
    arr = np.asarray(k)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"k must be an int or an array of ints, got {k!r}.")
    if np.any(arr < 0):
        raise ValueError("k must be >= 0.")
    out = 2 * arr.astype(np.int64)
    return int(out) if out.ndim == 0 else out
