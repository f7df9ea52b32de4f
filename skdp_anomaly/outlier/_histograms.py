"""Per-feature histograms on public bounds: binning, the count release, densities, a DP quantile.

Short functions, so that :class:`~skdp_anomaly.PrivateHBOS` stays thin and its
audit calls the code it runs. :func:`histogram_block` and :func:`below_counts`
are the statistics read from the rows: integer counts of one block, summed
exactly over blocks, so numpy and dask rows give the same release.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy import GeometricMechanism, ReportNoisyMax

#: Candidate thresholds of the DP quantile: the selection's error grows like ``log`` of it,
#: its resolution like ``1 /`` it.
QUANTILE_CANDIDATES = 128


def bin_index(X: np.ndarray, lower: np.ndarray, upper: np.ndarray, n_bins: int) -> np.ndarray:
    """Bin of every value: ``floor((x - lower) / width)`` clipped to ``[0, n_bins - 1]``. Values
    outside the public bounds fall in the edge bins, as if clipped first."""
    scaled = (X - lower) * (n_bins / (upper - lower))
    np.clip(scaled, 0.0, n_bins - 1, out=scaled)
    return scaled.astype(np.intp)


def feature_counts(index: np.ndarray, n_bins: int) -> np.ndarray:
    """Counts of every bin of every feature, shape ``(n_features, n_bins)`` (int64)."""
    n_features = index.shape[1]
    flat = (index + n_bins * np.arange(n_features)).ravel()
    return np.bincount(flat, minlength=n_features * n_bins).reshape(n_features, n_bins)


def count_mechanism(epsilon: float, n_features: int) -> GeometricMechanism:
    """Geometric noise for the ``d`` histograms: pure ``epsilon``-DP under add/remove. A record
    moves one count in each histogram: L1 sensitivity ``d``, rate ``epsilon / d``."""
    return GeometricMechanism(epsilon, float(n_features), neighbours="add_remove")


def row_count_mechanism(epsilon: float) -> GeometricMechanism:
    """Geometric noise for the row count (sensitivity 1, add/remove): pure ``epsilon``-DP.
    Everything read from it (bins, a stream's weights) is post-processing."""
    return GeometricMechanism(epsilon, 1.0, neighbours="add_remove")


def noise_floor(mechanism: GeometricMechanism) -> float:
    """The public pseudo-count: the noise's standard deviation ``√(2a) / (1 - a)``, at least 1. A
    count below the noise's spread cannot be told from an empty bin, so counts are raised to it
    rather than let noise reorder the rows of sparse bins."""
    a = mechanism.alpha
    return max(1.0, math.sqrt(2.0 * a) / (1.0 - a))


def log_density_ratio(noisy_counts: np.ndarray, floor: float) -> np.ndarray:
    """``log(n_bins · p)`` per bin, ``p`` the bin's share after raising counts to ``floor``. The log
    density relative to the uniform one on the bounds; always finite."""
    counts = np.maximum(noisy_counts.astype(np.float64), floor)
    n_bins = counts.shape[1]
    return np.log(n_bins * counts / counts.sum(axis=1, keepdims=True))


def polygon_scores(
    X: np.ndarray, table: np.ndarray, lower: np.ndarray, upper: np.ndarray
) -> np.ndarray:
    """Mean over features of the log of each value's frequency-polygon density. Densities are linear
    between bin centres, flat beyond the outer ones (Scott 1985). Post-processing of the released
    ``table``; each score depends on its own row only."""
    n_features, n_bins = table.shape
    # position in units of bins from the first bin's centre, clipped to the outer centres
    position = (X - lower) * (n_bins / (upper - lower)) - 0.5
    np.clip(position, 0.0, n_bins - 1.0, out=position)
    left = np.minimum(position.astype(np.intp), n_bins - 2)
    position -= left  # the weight of the right-hand centre, in [0, 1]
    left += n_bins * np.arange(n_features)
    density = np.exp(table).ravel()
    low = density[left]
    value = low + position * (density[left + 1] - low)
    return np.log(value).mean(axis=1)


def quantile_grid(table: np.ndarray, size: int = QUANTILE_CANDIDATES) -> np.ndarray:
    """``size`` sorted candidate thresholds, evenly spaced over every score ``table`` can give.
    Post-processing of the released counts, hence public."""
    return np.linspace(table.min(axis=1).mean(), table.max(axis=1).mean(), size)


def quantile_mechanism(epsilon: float, q: float) -> ReportNoisyMax:
    """Report-noisy-max over the candidates, utility sensitivity ``max(q, 1 - q)``. A record moves
    each utility ``-|#{s < t} - q n|`` by ``1 - q`` or ``-q``: not monotone, hence the non-monotone
    noise."""
    return ReportNoisyMax(epsilon, max(q, 1.0 - q), neighbours="add_remove")


def release_quantile(
    below: np.ndarray,
    n_samples: int,
    q: float,
    grid: np.ndarray,
    mechanism: ReportNoisyMax,
    rng: np.random.Generator,
) -> float:
    """The candidate of ``grid`` below which about a fraction ``q`` of the scores lie. Pure ε-DP
    under add/remove-one-record neighbours, for a public ``grid`` and scores that each depend on
    their own row only; ``below`` from :func:`below_counts`."""
    return float(grid[select_quantile(below, n_samples, q, mechanism, rng)])


def select_quantile(
    below: np.ndarray, n_samples: int, q: float, mechanism: ReportNoisyMax, rng: np.random.Generator
) -> int:
    """The index, among the candidates, that :func:`release_quantile` releases (same privacy)."""
    return int(mechanism.select(quantile_utility(below, n_samples, q), rng))


def quantile_utility(below: np.ndarray, n_samples: int, q: float) -> np.ndarray:
    """``-|#{s < t} - q n|`` for every candidate ``t``, from the counts ``below``."""
    return -np.abs(below - q * n_samples)


def histogram_block(block: np.ndarray, lower, upper, n_bins: int) -> np.ndarray:
    """The counts of one block of rows, shape ``(n_features, n_bins)`` (a block statistic)."""
    return feature_counts(bin_index(block, lower, upper, n_bins), n_bins)


def below_counts(
    block: np.ndarray, lower, upper, table: np.ndarray, grid: np.ndarray
) -> np.ndarray:
    """``#{s < t}`` over one block's scores, for every candidate ``t`` (a block statistic)."""
    scores = np.sort(polygon_scores(block, table, lower, upper))
    return np.searchsorted(scores, grid, side="left").astype(np.int64)
