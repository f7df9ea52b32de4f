"""The Dask side of :class:`NoisyGroupSearch`: the same search over a belief on the workers.

Only what touches per-item data chunked by rows, through :mod:`skdp_anomaly._data.vectors`
(nothing here imports dask); the loop, likelihoods, noise and accounting are the in-memory ones.
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
from ._posterior import INVALID_SCORES, largest, prefix_length

# at most this many buckets: uint16 bucket ids on the workers, bucket masses of 1 MB
# per block in the reduction, and a crossing bucket of about n / 2**16 items
MAX_BUCKETS = 2**16


# ------------------------------------------------------------------ input
def dask_scores(X, score_func):
    """``(scores, n_features, feature_names or None)`` of a dask ``X`` (one column, or rows that
    ``score_func`` maps to scores, block by block): validated, persisted, with known chunks."""
    return read_values(X, score_func, owner="NoisyGroupSearch", min_items=2, invalid=INVALID_SCORES)


# ------------------------------------------------------------------ posterior
class DaskPosterior:
    """The search's belief over ``n`` items, persisted on the workers in the scores' chunks, with
    the in-memory contract (``max``, ``split``, ``update``); per query the client gets only the
    largest entry, the total and the mass of ``Q``. The split (eq. 10) reads the posterior only
    (layout: "Dask" in :ref:`proofs-group-search`)."""

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
        # one graph, one round trip; it reads the posterior only (post-processing),
        # so drawing it before the halting test and the charge releases nothing
        if self._drawn is None:
            entropy = tuple(int(v) for v in self._rng.integers(0, 2**32, size=4))
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
