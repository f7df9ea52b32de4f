"""Many phase-1 releases of DPSMOTE at once, for privacy audits and benchmarks.

The helpers here run the estimator's own release steps
(``skdp_anomaly.over_sampling._release``: the same mechanisms, the same order
of draws) ``n_runs`` times in one vectorised call, on ``n_runs`` stacked copies
of the same checked inputs as ``fit_resample``, so that an audit measures what
a fit releases. They charge no accountant and leave the
estimator as it was; they release a superset of what a fit reveals (the
named class's synopsis in every run, over-sampled or not).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.base import clone

from skdp_anomaly.over_sampling._dpsmote import DPSMOTE
from skdp_anomaly.over_sampling._release import (
    ReleaseSteps,
    SizeRelease,
    dense_true_counts,
    release_dense,
)
from skdp_anomaly.over_sampling._setting import (
    DENSE_MAX_CELLS,
    auto_class_size,
    check_grid_shape,
    check_public_classes,
    check_strategy_labels,
    class_codes,
    encode_labels,
    grid_for,
    public_strategy,
)
from skdp_anomaly.over_sampling._statistics import BoxScale, cell_coordinates, class_fixed_sums
from skdp_anomaly.privacy._rng import check_random_state
from skdp_anomaly.privacy._validation import check_bounds

__all__ = ["SynopsisBatch", "release_gaussian_batch", "release_synopsis_batch"]


class SynopsisBatch(NamedTuple):
    """``n_runs`` independent phase-1 releases (see :func:`release_synopsis_batch`)."""

    classes: np.ndarray
    """Class labels, sorted; columns of the two per-class arrays."""
    noisy_class_counts: np.ndarray | None
    """(n_runs, n_classes) DP class sizes, or None with ``class_counts='public'``."""
    n_synthetic: np.ndarray
    """(n_runs, n_classes) synthetic rows each run would generate per class."""
    noisy_counts: np.ndarray
    """(n_runs, n_cells**d · k) dense noisy histograms of the k ``histogram_class`` labels,
    each row-major
    (padded with ``-2**63`` when the runs' grids differ, ``granularity="auto"``)."""
    n_cells: np.ndarray
    """(n_runs,) cells per feature of each run's grid."""
    auto_granularity: bool = False
    """Whether the grid was chosen per run (``granularity="auto"``)."""

    def stacked(self) -> np.ndarray:
        """All released numbers of each run side by side: shape (n_runs, ·), int64.

        Noisy class sizes (if private), synthetic rows per class, the histogram,
        and, with ``granularity="auto"``, ``n_cells`` as the last column.
        """
        parts = [self.n_synthetic, self.noisy_counts]
        if self.noisy_class_counts is not None:
            parts.insert(0, self.noisy_class_counts)
        if self.auto_granularity:
            parts.append(self.n_cells[:, None])
        return np.hstack(parts).astype(np.int64)


class _Phase1Input(NamedTuple):
    steps: ReleaseSteps
    X: np.ndarray
    y_codes: np.ndarray
    classes: np.ndarray
    true_sizes: np.ndarray  # private
    bounds: tuple
    public: dict | None


def _phase1_input(estimator, X, y) -> _Phase1Input:
    """The inputs of phase 1, checked as ``fit_resample`` checks them (``estimator`` untouched)."""
    if not isinstance(estimator, DPSMOTE):
        raise TypeError("estimator must be a DPSMOTE instance.")
    estimator.privacy_cost()  # every parameter, as fit checks them
    steps = estimator._release_steps()
    X, y, _ = clone(estimator)._check_X_y(X, y)  # a clone takes n_features_in_
    classes = check_public_classes(estimator.classes, estimator.sampling_strategy)
    classes, y_codes = encode_labels(y, classes)
    public = None
    if estimator.classes is None:
        check_strategy_labels(estimator.sampling_strategy, classes)
        if estimator.class_counts == "public":
            public = public_strategy(estimator.sampling_strategy, y, "over-sampling")
    bounds = check_bounds(steps.bounds, X, n_features=X.shape[1])
    true_sizes = np.bincount(y_codes, minlength=classes.size)
    return _Phase1Input(steps, X, y_codes, classes, true_sizes, bounds, public)


def _release_sizes(data: _Phase1Input, n_runs: int, rng) -> SizeRelease:
    """``n_runs`` releases of the class sizes: the fit's step on ``n_runs`` rows of sizes.

    The mechanism draws the noise of every run in one call; without it (public
    sizes) the one release is repeated.
    """
    steps = data.steps
    mechanism = steps.size_mechanism()
    true_sizes = data.true_sizes
    if mechanism is not None:
        true_sizes = np.broadcast_to(true_sizes, (n_runs, data.classes.size))
    sizes = steps.release_sizes(true_sizes, data.classes, rng, public=data.public)
    if mechanism is None:
        sizes = SizeRelease(None, *(np.tile(a, (n_runs, 1)) for a in sizes[1:]))
    return sizes


def release_synopsis_batch(
    estimator: DPSMOTE, X, y, n_runs: int, *, histogram_class, random_state=None
) -> SynopsisBatch:
    """``n_runs`` independent phase-1 releases of the grid synopsis, vectorised.

    The noisy class sizes, the number of synthetic rows they imply, the grid
    they imply with ``granularity="auto"``, and the dense noisy histogram of
    ``histogram_class`` (a label, or a list of labels whose histograms are
    placed side by side), released in every run whether or not that class is
    over-sampled (a superset of what a fit reveals). For privacy audits and
    benchmarks only (the caller names the class, so nothing here is chosen by
    an exact count); ``estimator`` is not fitted or modified and no accountant
    is charged.

    With ``granularity="auto"`` the grid may differ between runs: each row of
    ``noisy_counts`` then holds its run's ``n_cells**d`` counts followed by
    padding ``-2**63`` up to the largest grid, and ``n_cells`` gives each
    run's cells per feature.

    Returns
    -------
    SynopsisBatch
    """
    data = _phase1_input(estimator, X, y)
    steps = data.steps
    check_grid_shape(steps, data.X.shape[1])
    rng = check_random_state(random_state)
    codes = class_codes(data.classes, histogram_class, "histogram_class")
    sizes = _release_sizes(data, n_runs, rng)
    auto_sizes = auto_class_size(sizes.divisors, sizes.n_new)
    # one grid per distinct driving size (a single grid unless granularity="auto")
    distinct, inverse = np.unique(auto_sizes, return_inverse=True)
    if not isinstance(estimator.granularity, str):
        distinct, inverse = distinct[:1], np.zeros(n_runs, np.intp)
    grids = [grid_for(steps, data.bounds, float(s))[0] for s in distinct]
    n_cells = np.array([g.n_cells for g in grids], np.int64)[inverse]
    width = max(g.size for g in grids)
    if width > DENSE_MAX_CELLS // max(1, n_runs):
        raise ValueError("release_synopsis_batch needs n_runs * n_cells**d <= 2**27.")
    parts = []
    for j in codes:
        hist = np.full((n_runs, width), np.iinfo(np.int64).min, np.int64)
        X_j = data.X[data.y_codes == j]
        for g_index, grid in enumerate(grids):
            runs = np.flatnonzero(inverse == g_index)
            if runs.size:
                # the fit's dense release on runs.size stacked copies of the true counts
                true_counts = dense_true_counts(grid, cell_coordinates(grid, X_j))
                hist[runs, : grid.size] = release_dense(
                    np.broadcast_to(true_counts, (runs.size, grid.size)), steps.split[1], rng
                )
        parts.append(hist)
    return SynopsisBatch(
        data.classes,
        sizes.noisy,
        sizes.n_new,
        np.hstack(parts),
        n_cells,
        isinstance(estimator.granularity, str),
    )


def release_gaussian_batch(estimator: DPSMOTE, X, y, n_runs: int, *, mean_class, random_state=None):
    """``n_runs`` independent phase-1 releases of the Gaussian synopsis, vectorised.

    Returns ``(noisy_class_counts, noisy_means)``: the DP class sizes, shape
    (n_runs, n_classes) (None with ``class_counts="public"``), and the DP mean
    of ``mean_class`` in the unit box of the bounds, shape (n_runs, d),
    released in every run whether or not the class is over-sampled (a
    superset of what a fit reveals). A list of k labels gives their means
    side by side, shape (n_runs, k·d), all divided by the same run's DP
    sizes as in one fit. For privacy audits and benchmarks only;
    ``estimator`` is not fitted or modified and no accountant is charged.
    """
    data = _phase1_input(estimator, X, y)
    codes = class_codes(data.classes, mean_class, "mean_class")
    rng = check_random_state(random_state)
    sizes = _release_sizes(data, n_runs, rng)
    d = data.X.shape[1]
    sums = class_fixed_sums(data.X, data.y_codes, data.classes.size, codes, BoxScale(*data.bounds))[
        0
    ]  # private
    means = [
        data.steps.class_mean(np.broadcast_to(sums[j], (n_runs, d)), sizes.divisors[:, j], rng)
        for j in codes
    ]
    return sizes.noisy, np.hstack(means)
