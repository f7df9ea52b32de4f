"""Per-feature histograms on public bounds: binning, the count release, densities, a DP quantile.

The pieces a histogram outlier detector is made of, each a short function so
that the estimator stays thin and its audit can call the very code it runs:

* :func:`bin_index` puts every value in one of ``n_bins`` equal-width bins of
  its feature's public range (values outside are clipped into the edge bins);
* :func:`feature_counts` counts the bins of every feature in one
  :func:`numpy.bincount`;
* :func:`row_count_mechanism` releases the number of rows (sensitivity 1),
  which the number of bins is read from;
* :func:`count_mechanism` is the geometric mechanism of the ``d`` histograms
  (one record moves one count in each: L1 sensitivity ``d``);
* :func:`log_density_ratio` turns noisy counts into per-bin log densities
  relative to the uniform density on the bounds (post-processing);
* :func:`polygon_scores` scores rows by the frequency polygon of those
  densities (linear between bin centres) instead of the step of their bins;
* :func:`release_quantile` picks the score threshold below which a fraction
  ``q`` of the rows lie, by report-noisy-max over a public grid.

:func:`histogram_block` and :func:`below_counts` are the two statistics the
estimator reads from its rows: integer counts of one block of rows, summed
exactly over blocks by the data backend (``skdp_anomaly._data.rows``), so
that numpy and dask rows give the same counts, hence the same release.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy import GeometricMechanism, ReportNoisyMax

__all__ = ["QUANTILE_CANDIDATES", "below_counts", "bin_index", "count_mechanism",
           "feature_counts", "histogram_block", "log_density_ratio", "noise_floor",
           "polygon_scores", "quantile_grid", "quantile_mechanism", "quantile_utility",
           "release_quantile", "row_count_mechanism", "select_quantile"]

#: Number of candidate thresholds of the DP quantile (evenly spaced over the scores the
#: released table can give). The selection's error grows like ``log`` of it, its
#: resolution like ``1 /`` it; 128 keeps both small against the noise.
QUANTILE_CANDIDATES = 128


def bin_index(X: np.ndarray, lower: np.ndarray, upper: np.ndarray, n_bins: int) -> np.ndarray:
    """Bin of every value: ``floor((x - lower) / width)`` clipped to ``[0, n_bins - 1]``.

    Arithmetic binning (no search): a value below ``lower`` falls in the first
    bin, one at or above ``upper`` in the last, as if the row had been clipped
    into the bounds first.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite values.
    lower, upper : ndarray of shape (n_features,)
        The public bounds, ``lower < upper``.
    n_bins : int
        Bins per feature.

    Returns
    -------
    ndarray of intp, shape (n_samples, n_features)
        The bin of each value.
    """
    scaled = (X - lower) * (n_bins / (upper - lower))
    np.clip(scaled, 0.0, n_bins - 1, out=scaled)
    return scaled.astype(np.intp)


def feature_counts(index: np.ndarray, n_bins: int) -> np.ndarray:
    """Counts of every bin of every feature, shape ``(n_features, n_bins)`` (int64)."""
    n_features = index.shape[1]
    flat = (index + n_bins * np.arange(n_features)).ravel()
    return np.bincount(flat, minlength=n_features * n_bins).reshape(n_features, n_bins)


def count_mechanism(epsilon: float, n_features: int) -> GeometricMechanism:
    """Two-sided geometric noise for ``n_features`` histograms of one record each.

    Under add/remove-one-record neighbours a record moves exactly one count
    in each feature's histogram, so the ``d`` histograms together have L1
    sensitivity ``d``: noise of rate ``epsilon / d`` per count makes the
    release pure ``epsilon``-DP.

    Parameters
    ----------
    epsilon : float
        ε of the whole histogram release.
    n_features : int
        ``d``, the number of histograms.

    Returns
    -------
    GeometricMechanism
        With ``sensitivity = n_features`` and add/remove neighbours.
    """
    return GeometricMechanism(epsilon, float(n_features), neighbours="add_remove")


def row_count_mechanism(epsilon: float) -> GeometricMechanism:
    """Two-sided geometric noise for the number of rows (a record moves it by one).

    Under add/remove-one-record neighbours the row count is itself private;
    released with noise of rate ``epsilon`` it is pure ``epsilon``-DP, and
    everything read from it (the number of bins, the weights of a stream's
    chunks) is post-processing.
    """
    return GeometricMechanism(epsilon, 1.0, neighbours="add_remove")


def noise_floor(mechanism: GeometricMechanism) -> float:
    """The public pseudo-count: the standard deviation of the count noise, at least 1.

    A noisy count below the noise's own spread cannot be told from an empty
    bin, so every count is raised to this floor before normalising: the
    log-density of a sparse bin is then ``log(floor / total)`` instead of the
    log of a random small number, which would reorder the rows that fall in
    sparse bins at random. The variance of two-sided geometric noise of decay
    ``a`` is ``2a / (1 - a)^2``.
    """
    a = mechanism.alpha
    return max(1.0, math.sqrt(2.0 * a) / (1.0 - a))


def log_density_ratio(noisy_counts: np.ndarray, floor: float) -> np.ndarray:
    """``log(n_bins · p)`` per bin: the log of the density relative to the uniform one.

    ``p`` is the bin's share of the feature's total after every count is
    raised to ``floor``; ``n_bins · p`` is the histogram density divided by
    the uniform density on the bounds (equal-width bins). Post-processing of
    the noisy counts.

    Parameters
    ----------
    noisy_counts : ndarray of shape (n_features, n_bins)
        The released counts (any integers).
    floor : float
        The public pseudo-count, ``>= 1``.

    Returns
    -------
    ndarray of float64, shape (n_features, n_bins)
        Finite: every entry lies in ``[log(n_bins · floor / total), log(n_bins)]``.
    """
    counts = np.maximum(noisy_counts.astype(np.float64), floor)
    n_bins = counts.shape[1]
    return np.log(n_bins * counts / counts.sum(axis=1, keepdims=True))


def polygon_scores(X: np.ndarray, table: np.ndarray, lower: np.ndarray, upper: np.ndarray
                   ) -> np.ndarray:
    """Mean over features of the log of each value's frequency-polygon density.

    The frequency polygon joins the densities of neighbouring bins by
    straight lines between the bin centres (flat over the outer half bins
    and beyond the bounds), so a value near a bin's edge takes a density
    between its bin's and its neighbour's. Against the step of the
    histogram, the polygon's integrated squared error falls faster with
    ``n`` (Scott 1985) and a row is no longer ranked by which side of an
    edge it falls, which matters most where the noise has left neighbouring
    bins far apart. Post-processing of the released table; each score
    depends on its own row only.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite values.
    table : ndarray of shape (n_features, n_bins)
        :func:`log_density_ratio` of the released counts.
    lower, upper : ndarray of shape (n_features,)
        The public bounds, ``lower < upper``.

    Returns
    -------
    ndarray of float64, shape (n_samples,)
        The scores: each lies between the smallest and the largest mean of
        one entry of ``table`` per feature.
    """
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
    """Candidate thresholds: evenly spaced over the scores the released table can give.

    The range runs from the mean over features of each feature's lowest
    entry to the mean of the highest: every score of :func:`polygon_scores`
    lies in it. Post-processing of the released counts, hence public.

    Evenly spaced, the candidates are a little denser, per row, in the
    sparse left tail than around the quantile; the selection's error leans
    that way by a fraction of its noise only. Candidates at the quantiles of
    the score under the released model (features independent) were denser
    still where that model is wrong: its floored empty bins put mass where
    no row lies, and a crowd of candidates below every row then drew the
    selection to flag none (benchmarks/bench_outlier.py ``--choose``).

    Parameters
    ----------
    table : ndarray of shape (n_features, n_bins)
        :func:`log_density_ratio` of the released counts.
    size : int, default=QUANTILE_CANDIDATES
        Number of candidates.

    Returns
    -------
    ndarray of shape (size,)
        Sorted candidate thresholds.
    """
    return np.linspace(table.min(axis=1).mean(), table.max(axis=1).mean(), size)


def quantile_mechanism(epsilon: float, q: float) -> ReportNoisyMax:
    """Report-noisy-max over the candidates, with the utility's sensitivity ``max(q, 1 - q)``.

    The utility of a threshold ``t`` is ``-|#{s < t} - q n|``. Adding a
    record adds 1 to ``#{s < t}`` for the thresholds above its score and
    ``q`` to ``q n`` everywhere, so each utility moves by ``1 - q`` or ``-q``:
    not all in the same direction, hence the non-monotone noise.
    """
    return ReportNoisyMax(epsilon, max(q, 1.0 - q), neighbours="add_remove")


def release_quantile(below: np.ndarray, n_samples: int, q: float, grid: np.ndarray,
                     mechanism: ReportNoisyMax, rng: np.random.Generator) -> float:
    """The candidate threshold below which about a fraction ``q`` of the rows' scores lie.

    Pure ε-DP (``mechanism.epsilon``) under add/remove-one-record neighbours
    for a public ``grid`` and scores each of which depends on its own row
    only (given public quantities). Only the index of the winner is used.

    Parameters
    ----------
    below : ndarray of int64, shape (len(grid),)
        ``#{s < t}`` for every candidate ``t`` (:func:`below_counts`, summed
        over blocks of rows).
    n_samples : int
        The number of rows scored.
    q : float
        The fraction in ``(0, 0.5]``.
    grid : ndarray
        The public candidate thresholds, sorted.
    mechanism : ReportNoisyMax
        From :func:`quantile_mechanism`.
    rng : numpy.random.Generator
        Source of the noise.

    Returns
    -------
    float
        One of ``grid``.
    """
    return float(grid[select_quantile(below, n_samples, q, mechanism, rng)])


def select_quantile(below: np.ndarray, n_samples: int, q: float, mechanism: ReportNoisyMax,
                    rng: np.random.Generator) -> int:
    """The index, among the candidates, that :func:`release_quantile` releases (same privacy)."""
    return int(mechanism.select(quantile_utility(below, n_samples, q), rng))


def quantile_utility(below: np.ndarray, n_samples: int, q: float) -> np.ndarray:
    """``-|#{s < t} - q n|`` for every candidate ``t``, from the counts ``below``."""
    return -np.abs(below - q * n_samples)


def histogram_block(block: np.ndarray, lower, upper, n_bins: int) -> np.ndarray:
    """The counts of one block of rows, shape ``(n_features, n_bins)`` (a block statistic)."""
    return feature_counts(bin_index(block, lower, upper, n_bins), n_bins)


def below_counts(block: np.ndarray, lower, upper, table: np.ndarray,
                 grid: np.ndarray) -> np.ndarray:
    """``#{s < t}`` over one block's scores, for every candidate ``t`` (a block statistic)."""
    scores = np.sort(polygon_scores(block, table, lower, upper))
    return np.searchsorted(scores, grid, side="left").astype(np.int64)
