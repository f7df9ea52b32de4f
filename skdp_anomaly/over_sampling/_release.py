"""DPSMOTE's releases step by step: one code path for ``fit_resample`` and the audits.

:class:`ReleaseSteps` holds the parameters that shape the releases (read
from the estimator with ``get_params``) and gives each release its mechanism
and its step: the class sizes (two-sided geometric, :func:`release_sizes`),
the Gaussian synopsis's class means (float-safe Laplace on exact fixed-point
sums, :func:`~._gaussian.release_means`) and the grid synopsis's cell
histograms (:func:`~._grid.release_dense`, :func:`~._grid.release_sparse`).
Every step draws ``n_runs`` independent releases at once when asked: the
estimator runs each once, after charging the mechanism's ``cost``; the audit
helpers (:mod:`._audit`) run the very same steps many times without charging,
so the audits measure what a fit releases.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..privacy import MAX_GEOMETRIC_EPSILON, GeometricMechanism, check_bounds
from ._gaussian import release_means, sum_mechanism
from ._grid import (
    Grid,
    check_ball_size,
    choose_n_cells,
    choose_threshold,
    dense_true_counts,
    release_dense,
    release_sparse,
)
from ._strategy import n_synthetic

__all__ = ["DENSE_MAX_CELLS", "ReleaseSteps", "SizeRelease", "auto_class_size", "n_cells"]

# `histogram="auto"` uses the dense grid up to this many cells: the paper's own
# setting (ν = 0.25, d <= 8) stays exactly Algorithm 6.
DENSE_AUTO_MAX_CELLS = 1 << 16
# `histogram="dense"` is refused above this many cells (1 GiB of int64 counts)
DENSE_MAX_CELLS = 1 << 27
# the dense histogram is an array with one axis per feature
DENSE_MAX_DIMS = 32


def n_cells(granularity: float) -> int:
    """Cells per feature of a fixed ν: ``ceil(1/ν)`` (the tolerance absorbs 1/0.1 -> 10)."""
    return max(1, math.ceil(1.0 / granularity - 1e-9))


def auto_class_size(class_sizes, n_new):
    """Size driving ``granularity="auto"``: the smallest over-sampled class, per run.

    ``class_sizes`` and ``n_new`` have shape (n_classes,) or (n_runs, n_classes)
    and must be DP outputs (or public). When no class is over-sampled, the
    smallest class (the grid is then unused).
    """
    sizes = np.atleast_2d(np.asarray(class_sizes, dtype=np.float64))
    n_new = np.atleast_2d(n_new)
    over = np.where(n_new > 0, sizes, np.inf).min(axis=1)
    return np.where(np.isfinite(over), over, sizes.min(axis=1))


class SizeRelease(NamedTuple):
    """The class-size release of ``n_runs`` runs, and what it implies (post-processing)."""

    noisy: np.ndarray | None
    """(n_runs, n_classes) DP class sizes, or None when they are declared public."""
    n_new: np.ndarray
    """(n_runs, n_classes) synthetic rows per class."""
    targeted: np.ndarray
    """(n_runs, n_classes) the classes the sampling strategy targets."""
    divisors: np.ndarray
    """(n_runs, n_classes) the sizes the synopses use: DP (or public), floored at 1."""


class ReleaseSteps:
    """The releases a DPSMOTE setting makes, with their mechanisms.

    Build it with :meth:`of` from a DPSMOTE whose parameters are valid
    (``privacy_cost()`` has checked them); nothing here is stored on the
    estimator.
    """

    _PARAMS = ("epsilon", "class_counts", "count_share", "synopsis", "sampling_strategy",
               "granularity", "connectivity", "histogram", "bounds")

    def __init__(self, **params):
        for name in self._PARAMS:
            setattr(self, name, params[name])

    @classmethod
    def of(cls, estimator) -> "ReleaseSteps":
        params = estimator.get_params(deep=False)
        return cls(**{name: params[name] for name in cls._PARAMS})

    # -- the budget and the mechanisms ------------------------------------------------
    @property
    def split(self) -> tuple[float, float]:
        """(ε of the class sizes, ε of the synopsis); the sizes get 0 when public."""
        epsilon = float(self.epsilon)
        if self.class_counts == "public":
            return 0.0, epsilon
        share = float(self.count_share)
        return share * epsilon, (1.0 - share) * epsilon

    def size_mechanism(self) -> GeometricMechanism | None:
        """The class sizes: one histogram of disjoint classes, sensitivity 1 (add/remove)."""
        if self.class_counts == "public":
            return None
        return GeometricMechanism(self.split[0], neighbours="add_remove")

    def sum_mechanism(self, n_features: int):
        """The class sums of the Gaussian synopsis (disjoint classes: one ε in parallel)."""
        return sum_mechanism(self.split[1], n_features)

    def cell_mechanism(self) -> GeometricMechanism:
        """The cell histograms of the grid synopsis (disjoint classes: one ε in parallel)."""
        return GeometricMechanism(self.split[1], neighbours="add_remove")

    # -- checks of the parameters, and of the parameters against the data's shape ------
    def check_epsilon_cap(self) -> None:
        """Each release's ε stays where geometric noise is exact in double precision."""
        top = max(self.split)
        if top > MAX_GEOMETRIC_EPSILON:
            raise ValueError(
                f"The 'epsilon' parameter of DPSMOTE is {self.epsilon!r}, which puts "
                f"ε={top:.4g} on one release, above {MAX_GEOMETRIC_EPSILON:g}, where geometric "
                "noise rounds to zero in double precision and exact counts would be released; "
                "use a smaller epsilon."
            )

    def features_of_bounds(self) -> int | None:
        """Check the ``bounds`` parameter alone; the number of features it fixes, if any."""
        if self.bounds is None:
            return None
        try:
            lower, upper = self.bounds
            sides = [np.ndim(lower), np.ndim(upper)]
            sized = [np.size(v) for v, nd in zip((lower, upper), sides) if nd > 0]
        except (TypeError, ValueError):  # not a pair, or ragged: check_bounds says which
            check_bounds(self.bounds, n_features=1)
            raise
        check_bounds(self.bounds, n_features=sized[0] if sized else 1)
        return sized[0] if sized else None

    def check_n_features(self, n_features: int) -> None:
        """The releases this setting needs on ``n_features`` features can be made.

        Grid: the grid can be built. Gaussian: the class sums' noise, whose
        rate per fixed-point step is tiny, is one the samplers honour (built
        here, before any charge).
        """
        if self.synopsis == "grid":
            self.check_grid_shape(n_features)
            return
        try:
            self.sum_mechanism(n_features)
        except ValueError as exc:
            raise ValueError(
                f"The 'epsilon' parameter of DPSMOTE ({self.epsilon!r}) is too small for the "
                f"Gaussian synopsis' class sums on {n_features} features: {exc}") from None

    def check_grid_shape(self, n_features: int) -> None:
        if self.histogram == "dense" and n_features > DENSE_MAX_DIMS:
            raise ValueError(
                f"histogram='dense' supports at most {DENSE_MAX_DIMS} features (numpy array "
                f"dimensions), got {n_features}; use histogram='sparse' or 'auto'."
            )
        if not isinstance(self.granularity, str):  # else the grid follows the DP size
            self._check_dense_size(n_cells(self.granularity), n_features)
            check_ball_size(n_features, self.connectivity, n_cells(self.granularity))

    def _check_dense_size(self, cells: int, n_features: int) -> None:
        if self.histogram == "dense" and cells**n_features > DENSE_MAX_CELLS:
            raise ValueError(
                f"histogram='dense' needs {cells}**{n_features} cells (limit "
                f"{DENSE_MAX_CELLS}); use histogram='sparse' or 'auto', or a larger granularity."
            )

    def bounds_for(self, X, n_features: int):
        """``(lower, upper)``: the public bounds, or (leak warning) those of ``X``."""
        return check_bounds(self.bounds, X, n_features=n_features)

    # -- the releases ---------------------------------------------------------------------
    def release_sizes(self, mechanism, true_sizes, classes, rng, *, n_runs=None,
                      public=None) -> SizeRelease:
        """The DP class sizes (``mechanism``; None when public) and the rows they imply.

        ``true_sizes`` are private and never returned. ``public``: imblearn's
        strategy from the exact sizes (declared public, labels read from ``y``),
        used as it is. ``n_runs=None`` is one release (shape (1, n_classes)).
        """
        k = classes.size
        if mechanism is not None:
            counts = true_sizes if n_runs is None else np.broadcast_to(true_sizes, (n_runs, k))
            noisy = np.atleast_2d(mechanism.randomise(counts, rng))
            n_new, targeted = n_synthetic(self.sampling_strategy, classes, noisy)
            return SizeRelease(noisy, n_new, targeted, np.maximum(noisy, 1))
        if public is None:  # public sizes over the public label set
            n_new, targeted = n_synthetic(self.sampling_strategy, classes, true_sizes)
        else:
            index = {c: i for i, c in enumerate(classes.tolist())}
            n_new, targeted = np.zeros((1, k), np.int64), np.zeros((1, k), bool)
            for label, rows in public.items():
                n_new[0, index[label]], targeted[0, index[label]] = rows, True
        runs = 1 if n_runs is None else n_runs
        divisors = np.maximum(np.atleast_2d(true_sizes), 1)  # public by the user's declaration
        return SizeRelease(None, np.tile(n_new, (runs, 1)), np.tile(targeted, (runs, 1)),
                           np.tile(divisors, (runs, 1)))

    def class_mean(self, fixed_sum, divisor, rng) -> np.ndarray:
        """A class's DP mean in the unit box, from its exact fixed-point sum (private).

        Broadcasts: ``fixed_sum`` of shape (n_runs, d) and ``divisor`` (n_runs,)
        give ``n_runs`` releases. The noise is :meth:`sum_mechanism`'s.
        """
        return release_means(fixed_sum, divisor, self.split[1], rng)

    def grid(self, bounds, class_size=None):
        """The grid and histogram kind; ``class_size`` (DP or public) drives ``"auto"``."""
        lower, upper = bounds
        d = lower.shape[0]
        if isinstance(self.granularity, str):  # "auto": post-processing of class_size
            cap = DENSE_MAX_CELLS if self.histogram == "dense" else None
            cells = choose_n_cells(class_size, self.split[1], d, max_total_cells=cap)
        else:
            cells = n_cells(self.granularity)
        grid = Grid(lower, upper, cells)
        self._check_dense_size(grid.n_cells, grid.n_features)
        kind = self.histogram
        if kind == "auto":
            small = grid.size <= DENSE_AUTO_MAX_CELLS and grid.n_features <= DENSE_MAX_DIMS
            kind = "dense" if small else "sparse"
        return grid, kind

    def dense_histogram(self, grid: Grid, coords, rng, n_runs=None) -> np.ndarray:
        """The noisy counts of every cell, flat (``n_runs`` rows of them when asked)."""
        return release_dense(dense_true_counts(grid, coords), self.split[1], rng, n_runs=n_runs)

    def cell_histogram(self, grid: Grid, kind: str, coords, class_size, rng):
        """One class's released histogram: dense (one axis per feature) or sparse above θ.

        θ depends on the DP (or public) ``class_size`` only.
        """
        if kind == "dense":
            return self.dense_histogram(grid, coords, rng).reshape(
                (grid.n_cells,) * grid.n_features)
        theta = choose_threshold(grid.size, self.split[1], class_size)
        return release_sparse(grid, coords, self.split[1], theta, rng)
