"""The analyst's detector (Mohammady et al., Step 5): Kim's KSE score over pooled counts.

``s_a = mean_b KS(P_a, P_b)`` with ``P_a = {|x_a − x_j|}_j``, computed once per
distinct value: ECDFs tabulated on the integer grid for dense integers
(O(N + u² R)), else a merge of sorted distance rows (O(N + u³)); compiled.
"""

from __future__ import annotations

import numpy as np

from .._jit import lazy_njit

njit = lazy_njit(globals())  # compiled at the first call: importing needs no numba

# distinct values × distances up to which the ECDFs are tabulated (8 bytes each)
_MAX_CDF_ENTRIES = 4_000_000


@njit(cache=True)
def _mean_ks_integer(pos, w, cum, n):
    """Weighted mean KS for distinct integer values ``pos`` (offsets from the minimum;
    ``cum[t]``: total weight at offsets ``<= t``)."""
    u = pos.shape[0]
    top = cum.shape[0] - 1
    scores = np.zeros(u)
    fa = np.empty(top + 1)
    for a in range(u):
        for t in range(top + 1):
            hi = min(pos[a] + t, top)
            lo = pos[a] - t - 1
            fa[t] = cum[hi] - (cum[lo] if lo >= 0 else 0.0)
        for b in range(a + 1, u):
            ks = 0.0
            for t in range(top + 1):
                hi = min(pos[b] + t, top)
                lo = pos[b] - t - 1
                diff = abs(fa[t] - cum[hi] + (cum[lo] if lo >= 0 else 0.0))
                if diff > ks:
                    ks = diff
            scores[a] += w[b] * ks
            scores[b] += w[a] * ks
    return scores / (n * n)


@njit(cache=True, fastmath=True)
def _mean_ks_matrix(cdf, w):
    """Weighted mean KS between the rows of ``cdf`` (each an ECDF on a common grid)."""
    u, t_count = cdf.shape
    scores = np.zeros(u)
    for a in range(u):
        for b in range(a + 1, u):
            ks = 0.0
            row_a, row_b = cdf[a], cdf[b]
            for t in range(t_count):
                ks = max(ks, abs(row_a[t] - row_b[t]))
            scores[a] += w[b] * ks
            scores[b] += w[a] * ks
    return scores / w.sum()


@njit(cache=True)
def _mean_ks_sorted(dist, cum, w):
    """Weighted mean KS between rows of sorted distances ``dist`` (one merge per pair;
    ``cum[a, i]``: row a's ECDF just after ``dist[a, i]``)."""
    u, length = dist.shape
    scores = np.zeros(u)
    for a in range(u):
        for b in range(a + 1, u):
            i = 0
            j = 0
            ks = 0.0
            while i < length or j < length:
                if j >= length or (i < length and dist[a, i] < dist[b, j]):
                    t = dist[a, i]
                else:
                    t = dist[b, j]
                while i < length and dist[a, i] <= t:
                    i += 1
                while j < length and dist[b, j] <= t:
                    j += 1
                fa = cum[a, i - 1] if i > 0 else 0.0
                fb = cum[b, j - 1] if j > 0 else 0.0
                if abs(fa - fb) > ks:
                    ks = abs(fa - fb)
            scores[a] += w[b] * ks
            scores[b] += w[a] * ks
    return scores / w.sum()


def _dense_integers(distinct: np.ndarray) -> bool:
    """Whether the integer grid (O(u² R)) is cheaper than the merge (O(u³), O(u²) memory)."""
    u = distinct.size
    span = distinct[-1] - distinct[0] + 1
    return span <= 4 * u or u * u > _MAX_CDF_ENTRIES


def kse_scores(x) -> np.ndarray:
    """Raw KSE anomaly scores of finite 1-D values (Kim's KS-based score), exact.

    Larger means further from the bulk of the pool; all zero when every value is equal.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.dpoad._kse import kse_scores
    >>> s = kse_scores([3, 4, 3, 5, 4, 40])
    >>> int(np.argmax(s))
    5
    """
    values = np.asarray(x, dtype=np.float64).ravel()
    if not np.all(np.isfinite(values)):
        raise ValueError("kse_scores needs finite values; got NaN or inf.")
    if values.size == 0:
        return np.zeros(0)
    distinct, inverse, weights = np.unique(values, return_inverse=True, return_counts=True)
    return value_scores(distinct, weights)[inverse.ravel()]


def value_scores(distinct, weights) -> np.ndarray:
    """KSE scores of a pool given as distinct sorted values and their multiplicities."""
    distinct = np.asarray(distinct, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if distinct.size <= 1:
        return np.zeros(distinct.size)
    n = float(weights.sum())
    if np.all(distinct == np.rint(distinct)) and _dense_integers(distinct):
        pos = (distinct - distinct[0]).astype(np.int64)
        cum = np.cumsum(np.bincount(pos, weights=weights))
        if pos.size * cum.size > _MAX_CDF_ENTRIES:  # too big to tabulate: compute on the fly
            return _mean_ks_integer(pos, weights, cum, n)
        t = np.arange(cum.size)
        hi = np.minimum(pos[:, None] + t[None, :], cum.size - 1)
        lo = pos[:, None] - t[None, :] - 1
        cdf = (cum[hi] - np.where(lo >= 0, cum[np.maximum(lo, 0)], 0.0)) / n
        return _mean_ks_matrix(cdf, weights)
    distances = np.abs(distinct[:, None] - distinct[None, :])
    order = np.argsort(distances, axis=1, kind="stable")
    sorted_d = np.take_along_axis(distances, order, axis=1)
    cum_w = np.cumsum(weights[order], axis=1) / n
    return _mean_ks_sorted(sorted_d, cum_w, weights)


def normalise_scores(scores) -> np.ndarray:
    """Min–max normalise scores to [0, 1] (all zero when they are all equal)."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size == 0:
        return scores.copy()
    low, high = scores.min(), scores.max()
    if high <= low:
        return np.zeros_like(scores)
    return (scores - low) / (high - low)


def detect_anomalies(counts, *, max_count: int, threshold: float = 0.9):
    """Flags and normalised scores, both (n_windows, n_bins), of the analyst's detector.

    Window i's cells, clipped to {0..max_count}, are scored against the pool of windows ``0..i``
    and flagged above ``threshold`` (the pool's most extreme cells always score 1). On true counts
    it gives the non-private reference flags of §V-C.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp_anomaly.dpoad._kse import detect_anomalies
    >>> counts = np.array([[5, 6, 5, 7, 6], [6, 5, 60, 6, 5]])
    >>> flags, _ = detect_anomalies(counts, max_count=100)
    >>> flags[1].astype(int).tolist()
    [0, 0, 1, 0, 0]
    """
    counts = np.clip(np.asarray(counts), 0, max_count)
    if counts.ndim != 2:
        raise ValueError(f"counts must be 2-D (n_windows, n_bins); got shape {counts.shape}.")
    n_windows, n_bins = counts.shape
    anomalies = np.zeros((n_windows, n_bins), bool)
    scores = np.zeros((n_windows, n_bins))
    for i in range(n_windows):
        window_scores = normalise_scores(kse_scores(counts[: i + 1].ravel()))[-n_bins:]
        scores[i] = window_scores
        anomalies[i] = window_scores > threshold
    return anomalies, scores
