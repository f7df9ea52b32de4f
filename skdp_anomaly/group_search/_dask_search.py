"""The Dask side of :class:`NoisyGroupSearch`: the same search over a belief on the workers.

The searcher's loop, the likelihoods, the noise and the accounting are those
of the in-memory path; this module supplies only what touches per-item data
when that data is a dask array chunked by rows, each through the data layer
(:mod:`skdp_anomaly._data.vectors`, which builds and runs the graphs):

* :func:`dask_scores` — validation in one blockwise pass (n, finiteness,
  sign, the shape ``score_func`` returns), then the scores persisted;
* :class:`DaskPosterior` — the posterior over the items as a persisted dask
  array, with the split of eq. (10) as blockwise reductions and the Bayes
  update as a lazy blockwise product, persisted;
* :func:`flag_candidates` — the labels of ``fit_predict``.

A sensor's statistic on dask scores (the half maxima) is the data layer's
:func:`~skdp_anomaly._data.vectors.blockwise_statistic`, called by the sensors.
Nothing here imports dask: the data layer does, only when the caller passed a
dask collection (see :mod:`skdp_anomaly._data._dask`).
"""

from __future__ import annotations

import numpy as np

from .._data.vectors import (
    constant_vector,
    flag_items,
    ordered_prefix_split,
    read_values,
    reweighted,
    top_indices_and_total,
    zeros_like,
)
from ._posterior import largest, prefix_length

__all__ = ["DaskPosterior", "dask_scores", "flag_candidates"]

# at most this many buckets: uint16 bucket ids on the workers, bucket masses of 1 MB
# per block in the reduction, and a crossing bucket of about n / 2**16 items
MAX_BUCKETS = 2 ** 16


# ------------------------------------------------------------------ input
def dask_scores(X, score_func):
    """Validated scores of a dask ``X`` as a persisted 1-D float64 dask array.

    Parameters
    ----------
    X : dask array of shape (n,) or (n, d), dask DataFrame or Series
        One column of scores, or rows that ``score_func`` maps to scores.
    score_func : callable or None
        Applied block by block (row-wise, so blocks of rows give the same
        scores as the whole array).

    Returns
    -------
    scores : dask array of shape (n,)
        Persisted, with known chunk sizes.
    n_features : int
        Columns of ``X``.
    feature_names : ndarray of str or None
        Column names of a DataFrame whose names are all strings.
    """
    return read_values(X, score_func, owner="NoisyGroupSearch", min_items=2,
                       invalid="anomaly scores must be finite and >= 0 (Bittner, Sarwate and "
                               "Wright, eq. 1).")


# ------------------------------------------------------------------ posterior
class DaskPosterior:
    """The search's belief over ``n`` items, held by the workers.

    The same contract as the in-memory belief of :class:`NoisyGroupSearch`
    (``max``, ``split``, ``update``). The posterior, the buckets and ``Q``
    are persisted dask arrays chunked like the scores; the client receives
    per query only the largest entry, the total, the mass of ``Q``.

    The split (eq. 10) orders the items by i.i.d. uniform (bucket, key) as the
    in-memory split does (:func:`~skdp_anomaly._data.vectors.ordered_prefix_split`):
    each item draws a uniform bucket among ``B`` (from a seed per query and
    block, children of the split stream); the per-bucket masses, summed over
    blocks, locate the bucket ``c`` where the mass crosses 1/2; its members
    draw uniform keys and are ordered in one task, which applies the prefix
    rule shared with the in-memory split (:func:`~._posterior.prefix_length`);
    ``Q`` is the buckets before ``c`` plus the members whose key is below the
    cut. Ordering by (bucket, key) is ordering by i.i.d. uniforms, a uniform
    permutation, whatever ``B``. The split is one graph, computed in one round
    trip together with the largest entry; it reads the posterior only, so
    nothing about the scores is computed before the charge.

    Parameters
    ----------
    chunks : tuple
        Row chunks of the scores (known sizes).
    rng : numpy.random.Generator
        The split stream: one draw of 128 bits per query seeds every block.
    """

    def __init__(self, chunks, rng: np.random.Generator):
        n = int(sum(chunks[0]))
        self.f = constant_vector(chunks, 1.0 / n)
        self._rng = rng
        self._n_buckets = min(max(1, n // 8), MAX_BUCKETS)
        self._drawn = None  # the next query's buckets, with the masses they give
        self._q_mass = self._total = None

    def max(self) -> float:
        """The largest posterior entry; the next query's split is drawn in the same pass."""
        return self._draw()["max"]

    @property
    def q_mass(self) -> float:
        """The mass of the last split's ``Q`` before its update (known on the client)."""
        return self._q_mass

    def split(self):
        """``Q`` of eq. (10): a persisted dask array of bool chunked like the scores."""
        drawn, self._drawn = self._draw(), None
        self._q_mass, self._total = drawn["q_mass"], drawn["total"]
        return drawn["mask"]

    def _draw(self):
        # The whole split is one graph run in one round trip: it reads the posterior
        # only (post-processing of earlier answers), so drawing it before the halting
        # test and the charge releases nothing about the scores.
        if self._drawn is None:
            entropy = tuple(int(v) for v in self._rng.integers(0, 2 ** 32, size=4))
            self._drawn = ordered_prefix_split(self.f, entropy, self._n_buckets, prefix_length)
        return self._drawn

    def update(self, mask, log_ratio: float) -> None:
        """Bayes' rule (6) or (12), lazily, then persisted: the losing side scaled by
        ``e^{-|log_ratio|}``, normalised with the mass of ``Q`` known on the client."""
        shrink = float(np.exp(-abs(log_ratio)))
        w_q, w_rest = (shrink, 1.0) if log_ratio < 0 else (1.0, shrink)
        z = self._total * (w_q * self._q_mass + w_rest * (1.0 - self._q_mass))
        self.f = reweighted(self.f, mask, w_q / z, w_rest / z)

    def result(self, n_candidates: int):
        """The normalised posterior (lazy, over the persisted one), the indices of its
        ``n_candidates`` largest entries (numpy) and the groups (all 0, lazy)."""
        top, total = top_indices_and_total(self.f, int(n_candidates), largest)
        return self.f / float(total), top, zeros_like(self.f, np.int64)


# ------------------------------------------------------------------ labels
def flag_candidates(chunks, candidates):
    """Labels of ``fit_predict`` as a dask array: -1 for the candidates, +1 elsewhere."""
    return flag_items(chunks, candidates)
