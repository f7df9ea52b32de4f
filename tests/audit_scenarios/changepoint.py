"""Worst-case neighbouring series for the audits of the change-point detector.

The many-run versions of PNCPD and ONLINEPNCPD the audits draw from are the
package's public :func:`skdp_anomaly.changepoint.pncpd_batch` and
:func:`skdp_anomaly.changepoint.online_pncpd_batch`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["move_one_element"]


def move_one_element(x, t: int, margin: float = 1.0):
    """Worst-case neighbours: ``x`` with element ``t`` below vs above all others.

    Returns the pair ``(low, high)`` of copies of ``x`` where ``x[t]`` is
    ``min(x) - margin`` resp. ``max(x) + margin``: one element moved across
    all the others, which changes each count of Eq. (2.1) containing it by
    the most possible ("replace one element" neighbours).

    Parameters
    ----------
    x : array-like of shape (n,)
        The series.
    t : int
        Index of the element to move.
    margin : float, default=1.0
        How far beyond the other values the element is placed.

    Returns
    -------
    low, high : ndarray of float64, shape (n,)
        The two neighbouring series.

    Examples
    --------
    >>> from audit_scenarios.changepoint import move_one_element
    >>> lo, hi = move_one_element([0.0, 1.0, 2.0], 1)
    >>> lo.tolist(), hi.tolist()
    ([0.0, -1.0, 2.0], [0.0, 3.0, 2.0])
    """
    x = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError("x contains NaN or infinity.")
    if x.ndim != 1 or not -x.size <= t < x.size:
        raise ValueError("x must be 1-D and t an index into it.")
    others = np.delete(x, t)
    low, high = x.copy(), x.copy()
    low[t] = (others.min() if others.size else 0.0) - margin
    high[t] = (others.max() if others.size else 0.0) + margin
    return low, high
