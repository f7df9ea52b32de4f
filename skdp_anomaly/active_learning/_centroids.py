"""Class centroids, class prior and balanced cut of :class:`PrivateOnlineActiveSVC`.

Post-processing of the releases ``(S₊, S₋, c·n̂₊)``: inverse-variance pooled
centroids, direction ``μ̂₊ − μ̂₋``, the cut at the midpoint of the projected
centroids (each squared norm less its public noise variance ``d·v``), the prior.
"""

from __future__ import annotations

import math

import numpy as np


class CentroidPool:
    """Inverse-variance pooled noisy class sums and counts (every value a DP release)."""

    def __init__(self, n_features: int):
        d = n_features
        self.sums = np.zeros((2, d))  # Σ a S, negative class first
        self.counts = np.zeros(2)  # Σ a n̂
        self.variances = np.zeros(2)  # Σ a² v (per coordinate of the sums)
        self.prior_counts = np.zeros(2)  # Σ n̂₋, Σ n̂₊ (unweighted): the class prior
        self.rows = 0  # rows in the releases (public: from the selections)
        # the noisy prefix of the tree's windows, as one more window (noise="tree")
        self.tree = None

    def add(self, noisy: np.ndarray, n_rows: int, variance: float, count_weight: float) -> None:
        """Pool one window's release ``(S₊, S₋, c·n̂₊)`` (noise variance ``variance``)."""
        self._accumulate(self, noisy, n_rows, variance, count_weight)

    def set_tree(
        self, prefix: np.ndarray, n_rows: int, variance: float, count_weight: float
    ) -> None:
        """The tree's noisy prefix sum of its windows so far, pooled as one window."""
        self.tree = CentroidPool(self.sums.shape[1])
        self._accumulate(self.tree, prefix, n_rows, variance, count_weight)

    @staticmethod
    def _accumulate(pool, noisy, n_rows, variance, count_weight) -> None:
        d = pool.sums.shape[1]
        positive = float(noisy[-1]) / count_weight
        counts = np.array([n_rows - positive, positive])
        weights = np.maximum(counts, 0.0) / variance
        pool.sums += weights[:, None] * np.stack([noisy[d : 2 * d], noisy[:d]])
        pool.counts += weights * counts
        pool.variances += weights**2 * variance
        pool.prior_counts += counts
        pool.rows += n_rows

    def _total(self, name: str):
        """The sum of an attribute over this pool and the tree's prefix."""
        parts = [self] if self.tree is None else [self, self.tree]
        return sum(getattr(p, name) for p in parts)

    def class_prior(self) -> np.ndarray:
        """``(π̂₋, π̂₊)`` from the noisy counts, each kept in ``[1/(2n), 1 - 1/(2n)]``."""
        rows, positive = self._total("rows"), self._total("prior_counts")[1]
        if rows == 0:
            return np.array([0.5, 0.5])
        low = 0.5 / rows
        share = min(max(positive / rows, low), 1.0 - low)
        return np.array([1.0 - share, share])

    def centroids(self):
        """``(μ̂₋, μ̂₊)`` and the noise variance per coordinate of each (None before a release)."""
        sums, counts, variances = (self._total(k) for k in ("sums", "counts", "variances"))
        if not np.all(counts > 0):
            return None
        return sums / counts[:, None], variances / counts**2

    def iterate(self, lam: float, fit_intercept: bool):
        """``(w, threshold)``: ``w = (μ̂₊ − μ̂₋)/(2λ)`` in the ball of radius ``1/√λ``,
        and the balanced cut on the unit direction (0 without an intercept)."""
        found = self.centroids()
        d = self.sums.shape[1]
        if found is None:
            return np.zeros(d), 0.0
        (negative, positive), (v_neg, v_pos) = found
        raw = positive - negative
        norm = float(np.linalg.norm(raw))
        if norm == 0.0:
            return raw, 0.0
        w = raw / (2.0 * lam)
        radius = 1.0 / math.sqrt(lam)
        w_norm = norm / (2.0 * lam)
        if w_norm > radius:
            w = w * (radius / w_norm)
        if not fit_intercept:
            return w, 0.0
        # midpoint of the projected centroids, each squared norm less its noise (d·v)
        cut = ((positive @ positive - d * v_pos) - (negative @ negative - d * v_neg)) / 2.0
        return w, cut / norm
