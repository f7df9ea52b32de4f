"""The Mann–Whitney change-point statistic of Lut 2022, Eq. (2.1), fast.

For a series ``x_1, ..., x_n`` the statistic at split ``k`` is ``V(k) = S(k) / (k (n - k))``
with ``S(k) = #{(i, j) : i <= k < j, x_i > x_j}``. Moving ``x_k`` from the right part to the
left gives ``S(k) - S(k-1) = r_k - (k - 1)``, ``r_k`` the 0-based position of ``x_k`` in a
*stable* sort; with ties counted one half (Mann–Whitney) ``r_k`` becomes the 0-based
mid-rank ``#{j : x_j < x_k} + #{j != k : x_j = x_k}/2``. Hence
``2S = cumsum(2m - 2·index)``: exact integers in O(n log n).

The sliding-window statistic ``U`` of Algorithm 4 is updated from one window to the next by
four counts of one value against a block of ``n/2`` values (:func:`sliding_centre_counts`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ._in_memory import reject_dask_collection


def _stable_ranks(x: np.ndarray) -> np.ndarray:
    """0-based positions in a stable sort along the last axis (int64)."""
    order = np.argsort(x, axis=-1, kind="stable")
    ranks = np.empty_like(order, dtype=np.int64)
    np.put_along_axis(ranks, order, np.arange(x.shape[-1], dtype=np.int64), axis=-1)
    return ranks


def _strict_counts(x: np.ndarray) -> np.ndarray:
    """``#{i <= k < j : x_i > x_j}`` (strict pairs only, Eq. (2.1) as printed), int64."""
    n = x.shape[-1]
    counts = np.zeros(x.shape[:-1] + (n + 1,), dtype=np.int64)
    np.cumsum(_stable_ranks(x) - np.arange(n, dtype=np.int64), axis=-1, out=counts[..., 1:])
    return counts


def doubled_mid_ranks(x: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """Twice the 0-based mid-rank of each value along the last axis (int64): a tie group at sorted
    positions ``[a, b)`` gets ``a + b - 1``. ``order``: an argsort of ``x`` if known."""
    x = np.asarray(x, dtype=np.float64)
    if order is None:
        order = np.argsort(x, axis=-1, kind="stable")
    v = np.take_along_axis(x, order, axis=-1)
    n = x.shape[-1]
    pos = np.broadcast_to(np.arange(n, dtype=np.int64), v.shape)
    new_group = np.ones(v.shape, dtype=bool)
    new_group[..., 1:] = v[..., 1:] != v[..., :-1]
    # start of each value's tie group: running max of the group starts
    start = np.maximum.accumulate(np.where(new_group, pos, 0), axis=-1)
    # end (exclusive) of each group: running min from the right of the next starts
    is_end = np.ones(v.shape, dtype=bool)
    is_end[..., :-1] = new_group[..., 1:]
    ends_reversed = np.flip(np.where(is_end, pos + 1, n), axis=-1)
    end = np.flip(np.minimum.accumulate(ends_reversed, axis=-1), axis=-1)
    ranks2 = np.empty(v.shape, dtype=np.int64)
    np.put_along_axis(ranks2, order, start + end - 1, axis=-1)
    return ranks2


def doubled_counts(x, order: np.ndarray | None = None) -> np.ndarray:
    """``2 S(k)`` with ties at one half (mid-ranks), exact int64, ``k = 0..n`` (module docstring);
    ``order``: an argsort of ``x`` if the caller has one."""
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[-1]
    increments = doubled_mid_ranks(x, order) - 2 * np.arange(n, dtype=np.int64)
    counts = np.zeros(x.shape[:-1] + (n + 1,), dtype=np.int64)
    np.cumsum(increments, axis=-1, out=counts[..., 1:])
    return counts


def mann_whitney_counts(x) -> np.ndarray:
    """Pair counts ``S(k) = #{i <= k < j : x_i > x_j} + #{... x_i = x_j}/2`` (Mann–Whitney
    mid-ranks) for ``k = 0..n``, of one series or of each row (float64, exact multiples of 1/2).

    Examples
    --------
    >>> from skdp_anomaly.changepoint._statistic import mann_whitney_counts
    >>> mann_whitney_counts([3, 1, 2]).tolist()
    [0.0, 2.0, 1.0, 0.0]
    >>> mann_whitney_counts([0, 0, 1]).tolist()
    [0.0, 0.5, 0.0, 0.0]
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim not in (1, 2):
        raise ValueError(f"x must be 1-D or 2-D, got shape {x.shape}.")
    return doubled_counts(x) / 2.0


def mann_whitney_statistic(x, ks=None) -> np.ndarray:
    """``V(k)`` of Eq. (2.1) (Lut 2022, §2.2.1) at the splits ``ks`` (default ``1..n-1``), for one
    series or one per row. Not private: for synthetic or public data only.

    Examples
    --------
    >>> from skdp_anomaly.changepoint._statistic import mann_whitney_statistic
    >>> mann_whitney_statistic([5.0, 5.0, 0.0, 0.0]).round(3).tolist()
    [0.833, 1.0, 0.833]
    """
    reject_dask_collection(x, "mann_whitney_statistic")
    counts = mann_whitney_counts(x)
    n = counts.shape[-1] - 1
    ks = np.arange(1, n) if ks is None else np.asarray(ks, dtype=np.int64)
    if ks.size and (ks.min() < 1 or ks.max() > n - 1):
        raise ValueError(f"splits must lie in [1, {n - 1}].")
    return counts[..., ks] / (ks * (n - ks)).astype(np.float64)


def _count_block(values: np.ndarray, rows: np.ndarray, *, greater: bool) -> np.ndarray:
    """``#{row entries < value}`` (or ``>``) for each (value, row) pair."""
    cmp = rows > values[:, None] if greater else rows < values[:, None]
    return np.count_nonzero(cmp, axis=1).astype(np.int64)


def sliding_centre_counts(
    x, window: int, first: int | None = None, block: int | None = None, method: str = "auto"
) -> np.ndarray:
    """Centre counts ``M(s) = #{s <= i < s+h <= j < s+2h : x_i > x_j}`` (``h = window/2``, int64) of
    every window ``x[s:s+window]``; ``U = M / h**2`` is Algorithm 4's statistic.

    From ``M(0)`` (or ``first``, carried over from the previous chunk) each step ``s -> s+1`` counts
    ``x_s`` leaving the left half, ``x_{s+h}`` moving from the right half to the left and
    ``x_{s+2h}`` joining the right half: ``block`` positions at a time as boolean matrices
    (``"block"``, ~1 MB per block by default) or by binary search in the sorted halves
    (``"sorted"``, which ``"auto"`` takes for windows over 1024).

    Examples
    --------
    >>> from skdp_anomaly.changepoint._statistic import sliding_centre_counts
    >>> sliding_centre_counts([3, 2, 1, 0, 5], window=4).tolist()
    [4, 2]
    """
    x = np.asarray(x, dtype=np.float64)
    h = window // 2
    m = x.shape[0] - window + 1
    if window < 2 or window % 2 or m < 1:
        raise ValueError("need an even window >= 2 and at least `window` points.")
    out = np.empty(m, dtype=np.int64)
    out[0] = _strict_counts(x[:window])[h] if first is None else int(first)
    if m == 1:
        return out
    if method not in ("auto", "block", "sorted"):
        raise ValueError(f"method must be 'auto', 'block' or 'sorted', got {method!r}.")
    if method == "sorted" or (method == "auto" and window > 1024 and m > window):
        out[1:] = _sorted_window_steps(x, h, int(out[0]))
        return out
    steps = np.empty(m - 1, dtype=np.int64)
    if m <= 8:  # a few new points (point-by-point streaming): plain slices are cheaper
        for s in range(m - 1):
            mid = x[s + h]
            steps[s] = (
                np.count_nonzero(x[s + h + 1 : s + 2 * h] < mid)
                - np.count_nonzero(x[s + h : s + 2 * h] < x[s])
                - np.count_nonzero(x[s + 1 : s + h] > mid)
                + np.count_nonzero(x[s + 1 : s + h + 1] > x[s + 2 * h])
            )
    else:
        block = max(1, 1_000_000 // window) if block is None else block
        rows_h = sliding_window_view(x, h)  # rows_h[a] = x[a:a+h]
        rows_h1 = sliding_window_view(x, h - 1) if h > 1 else None
        for a in range(0, m - 1, block):
            s = np.arange(a, min(a + block, m - 1))
            leave_left, mid, join_right = x[s], x[s + h], x[s + 2 * h]
            d = -_count_block(leave_left, rows_h[s + h], greater=False)
            if rows_h1 is not None:
                d -= _count_block(mid, rows_h1[s + 1], greater=True)
                d += _count_block(mid, rows_h1[s + h + 1], greater=False)
            d += _count_block(join_right, rows_h[s + 1], greater=True)
            steps[s] = d
    np.cumsum(steps, out=out[1:])
    out[1:] += out[0]
    return out


def _sorted_window_steps(x: np.ndarray, h: int, count: int) -> np.ndarray:
    """``M(1), M(2), ...`` by binary search in the sorted halves (:func:`sliding_centre_counts`)."""
    values = x.tolist()
    left, right = sorted(values[:h]), sorted(values[h : 2 * h])
    out = np.empty(len(values) - 2 * h, dtype=np.int64)
    for s in range(len(values) - 2 * h):
        leave, mid, join = values[s], values[s + h], values[s + 2 * h]
        count -= bisect_left(right, leave)  # x_s leaves the left half
        del left[bisect_left(left, leave)]
        del right[bisect_left(right, mid)]  # x_{s+h} leaves the right half
        count -= len(left) - bisect_right(left, mid)
        count += bisect_left(right, mid)  # ... and joins the left half
        insort(left, mid)
        count += len(left) - bisect_right(left, join)  # x_{s+2h} joins the right half
        insort(right, join)
        out[s] = count
    return out


def sliding_centre_mid_counts(x, window: int, first: tuple | None = None) -> tuple:
    """Doubled mid-rank centre counts ``2·M½ = h² + M(x) − M(−x)`` of every window (ties count 1/2,
    exact integers; ``U = 2·M½ / (2h²)``), and ``last = (M(x), M(−x))`` of the last window, to pass
    as ``first`` with the next chunk.

    Examples
    --------
    >>> from skdp_anomaly.changepoint._statistic import sliding_centre_mid_counts
    >>> doubled, last = sliding_centre_mid_counts([1, 1, 0, 1], window=4)
    >>> doubled.tolist()  # pairs (1,0) > , (1,1) =, (1,0) >, (1,1) =: 2·(2 + 1)
    [6]
    """
    x = np.asarray(x, dtype=np.float64)
    h = window // 2
    greater = sliding_centre_counts(x, window, first=None if first is None else first[0])
    less = sliding_centre_counts(-x, window, first=None if first is None else first[1])
    doubled = h * h + greater.astype(np.int64) - less.astype(np.int64)
    last = (int(greater[-1]), int(less[-1])) if greater.size else first
    return doubled, last
