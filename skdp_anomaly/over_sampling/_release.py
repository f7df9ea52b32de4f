"""DPSMOTE's releases: the third stage of ``fit_resample``, and the audits' code path.

``fit_resample`` reads inputs → statistics (:mod:`._statistics`) → **releases**
→ synthesis (:mod:`._synthesis`). This module holds every mechanism and every
step that turns the private statistics into DP outputs:

* :class:`ReleaseSteps` holds the parameters that shape the releases (read
  from the estimator with ``get_params``) and gives each release its mechanism
  and its step: the class sizes (two-sided geometric, :meth:`~ReleaseSteps.release_sizes`,
  with the sampling strategy's arithmetic on the noisy sizes, :func:`n_synthetic`),
  the Gaussian synopsis's class means (float-safe Laplace on exact fixed-point
  sums, :func:`release_means`) and the grid synopsis's cell histograms
  (:func:`~._grid.release_dense`, :func:`~._grid.release_sparse`);
* :func:`release_gaussian`, :func:`release_grid_sizes` and :func:`release_histograms`
  are the stage itself: each charges a mechanism's cost (the caller's
  ``charge``) right before its release, and returns the DP outputs and the
  plan of the synthesis;
* the warnings, built from DP outputs and parameters only.

Every step draws ``n_runs`` independent releases at once when asked: the
estimator runs each once, after charging the mechanism's ``cost``; the audit
helpers (:mod:`._audit`) run the very same steps many times without charging,
so the audits measure what a fit releases.

The Gaussian synopsis's sums are released on the grid ``2^-FIXED_BITS``:
discrete Laplace noise of scale ``d / ε`` per coordinate, added to the exact
fixed-point sums by the float-safe :class:`~skdp_anomaly.privacy.LaplaceMechanism`,
makes a class sum pure ε-DP under add/remove-one neighbours (a row moves it by
at most ``d`` in L1), and classes are disjoint, so their sums compose in
parallel. Dividing by the DP (or public) class size and clipping to the box is
post-processing.
"""

from __future__ import annotations

import math
import numbers
from collections import OrderedDict
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from .._warn import warn
from ..privacy import (
    MAX_GEOMETRIC_EPSILON,
    GeometricMechanism,
    LaplaceMechanism,
    check_bounds,
    check_random_state,
)
from ._grid import (
    Grid,
    ball_offsets,
    check_ball_size,
    choose_n_cells,
    choose_threshold,
    dense_true_counts,
    expected_positive_noise,
    expected_spurious_mass,
    release_dense,
    release_sparse,
)
from ._strategy import FLOAT_NEEDS_BINARY

__all__ = ["DENSE_MAX_CELLS", "FIXED_BITS", "DPSMOTENoiseWarning", "GaussianRelease", "GridRelease",
           "ReleaseSteps", "SizeRelease", "auto_class_size", "fixed_to_float", "n_cells",
           "n_synthetic", "release_gaussian", "release_grid_sizes", "release_histograms",
           "release_means", "sum_mechanism"]

#: the class sums are exact integers in units of 2^-FIXED_BITS, and released on that grid
FIXED_BITS = 32
FIXED_SCALE = float(1 << FIXED_BITS)

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


# -- how many synthetic rows: the sampling strategy on the (noisy) class sizes ------------
def n_synthetic(sampling_strategy, classes, counts):
    """Rows to generate per class from (noisy) class sizes, imblearn semantics.

    ``counts`` has shape (n_runs, n_classes) (classes sorted); negative noisy
    sizes count as 0. Returns ``(n_new, targeted)``: int64 array of the same
    shape and a bool mask of the classes the strategy targets (as in
    ``sampling_strategy_``). Post-processing of the counts only. Where exact
    counts would make imblearn raise (a ratio or a dict asking for fewer rows
    than a class has), the noisy version asks for 0 rows instead.
    """
    counts = np.maximum(np.atleast_2d(np.asarray(counts, dtype=np.int64)), 0)
    n_runs, n_classes = counts.shape
    rows = np.arange(n_runs)
    top = counts.max(axis=1, keepdims=True)
    deficit = top - counts
    targeted = np.ones_like(counts, dtype=bool)
    if isinstance(sampling_strategy, str):
        kind = "not majority" if sampling_strategy == "auto" else sampling_strategy
        if kind == "not majority":
            targeted[rows, counts.argmax(axis=1)] = False
        elif kind == "not minority":
            targeted[rows, counts.argmin(axis=1)] = False
        elif kind == "minority":
            targeted[:] = False
            targeted[rows, counts.argmin(axis=1)] = True
        elif kind != "all":
            raise ValueError(f"unknown sampling_strategy {sampling_strategy!r}.")
        n_new = np.where(targeted, deficit, 0)
    elif isinstance(sampling_strategy, numbers.Real):
        if n_classes != 2:
            raise ValueError(FLOAT_NEEDS_BINARY)
        targeted[rows, counts.argmax(axis=1)] = False
        wanted = np.trunc(top * float(sampling_strategy) - counts).astype(np.int64)
        n_new = np.where(targeted, wanted, 0)
    elif isinstance(sampling_strategy, Mapping):
        n_new, targeted = _n_synthetic_dict(sampling_strategy, classes, counts)
    elif callable(sampling_strategy):
        parts = []
        for run in counts:  # a callable needs a label vector: give it a surrogate
            surrogate = np.repeat(np.asarray(classes), run)
            parts.append(_n_synthetic_dict(sampling_strategy(surrogate), classes, run[None]))
        n_new = np.concatenate([p[0] for p in parts])
        targeted = np.concatenate([p[1] for p in parts])
    else:
        raise ValueError(f"unsupported sampling_strategy {sampling_strategy!r}.")
    return np.maximum(n_new, 0), targeted


def _n_synthetic_dict(wanted: Mapping, classes, counts):
    index = {c: i for i, c in enumerate(np.asarray(classes).tolist())}
    unknown = set(wanted) - set(index)
    if unknown:
        raise ValueError(f"The {unknown} target class is/are not present in the data.")
    if any(v < 0 for v in wanted.values()):
        raise ValueError(
            "The number of samples in a class cannot be negative. 'sampling_strategy' "
            f"contains some negative value: {dict(wanted)}"
        )
    target = np.zeros(counts.shape[1], np.int64)
    targeted = np.zeros(counts.shape[1], bool)
    for cls, value in wanted.items():
        target[index[cls]] = int(value)
        targeted[index[cls]] = True
    n_new = np.where(targeted, target - counts, 0)
    return n_new, np.broadcast_to(targeted, counts.shape).copy()


# -- the Gaussian synopsis's mechanism: the class sums on the grid 2^-FIXED_BITS -----------
def fixed_to_float(fixed_sum) -> np.ndarray:
    """The float value of fixed-point sums (integers in units of ``2^-FIXED_BITS``)."""
    return np.asarray(fixed_sum, np.int64).astype(np.float64) / FIXED_SCALE


def sum_mechanism(epsilon: float, d: int) -> LaplaceMechanism:
    """The class sums' mechanism: L1 sensitivity ``d`` on the grid ``2^-32`` of the sums."""
    return LaplaceMechanism(epsilon, float(d), neighbours="add_remove", coordinates=d,
                            granularity=1.0 / FIXED_SCALE)


def release_means(fixed_sums, class_sizes, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """DP class means in the unit box from the exact fixed-point class sums.

    Parameters
    ----------
    fixed_sums : ndarray of int64, shape (..., d)
        True sums of the rows of each class in the unit box, in units of
        ``2^-32`` (:func:`~._statistics.unit_fixed_sum`).
    class_sizes : ndarray of shape (...,)
        DP (or public) class sizes, used as divisors (floored at 1).
    epsilon : float
        ε of the sums' release (one class, or disjoint classes in parallel).

    Returns
    -------
    ndarray of shape (..., d), in [-1, 1]
    """
    fixed_sums = np.asarray(fixed_sums, np.int64)
    d = fixed_sums.shape[-1]
    mech = sum_mechanism(epsilon, d)
    noisy = fixed_to_float(mech.randomise_steps(fixed_sums, rng))
    sizes = np.maximum(np.asarray(class_sizes, np.float64), 1.0)[..., None]
    return np.clip(noisy / sizes, -1.0, 1.0)


def mean_noise_scale(d: int, epsilon: float, class_size: float) -> float:
    """Noise scale of each coordinate of the DP mean, in half-ranges: ``d / (ε n)``.

    The nominal scale (the grid's rounding adds a relative ``2^-32``).
    """
    return d / (epsilon * max(float(class_size), 1.0))


# -- the stage: charge each mechanism's cost, then release ---------------------------------
class GaussianRelease(NamedTuple):
    """What the Gaussian synopsis releases in one fit, and the synthesis's seed stream."""

    noisy_class_counts: dict | None
    """Class -> DP size (None when the sizes are declared public)."""
    sampling_strategy: dict
    """Class -> synthetic rows (``sampling_strategy_``)."""
    n_new: np.ndarray
    """Synthetic rows per class of the label set."""
    means: dict
    """Index in the label set -> DP mean in the unit box, for each over-sampled class."""
    sample_rng: np.random.Generator
    """The synthesis's stream, independent of the noise's."""


class GridRelease(NamedTuple):
    """The grid synopsis after the size release: the sizes and the grid they imply."""

    noisy_class_counts: dict | None
    sampling_strategy: dict
    n_new: np.ndarray
    class_sizes: np.ndarray
    """The DP (or public) sizes that the histograms' warnings and θ read."""
    grid: Grid
    kind: str
    """"dense" or "sparse"."""
    offsets: object
    """The ℓ-ball of the grid (None when no class is over-sampled)."""
    noise_rng: np.random.Generator
    sample_rng: np.random.Generator


def _release_sizes(steps, classes, true_sizes, noise_rng, charge, public):
    """The DP (or declared public) class sizes, and the rows they imply.

    Returns ``(noisy_class_counts, sampling_strategy, n_new, divisors)``;
    ``true_sizes`` are private and never returned. ``public``: imblearn's
    sampling strategy from the exact sizes (``class_counts="public"`` without
    ``classes``), used as it is.
    """
    mechanism = steps.size_mechanism()
    if mechanism is not None:
        charge(mechanism.cost)
    sizes = steps.release_sizes(mechanism, true_sizes, classes, noise_rng, public=public)
    labels = classes.tolist()
    noisy = None if sizes.noisy is None else dict(zip(labels, sizes.noisy[0].tolist()))
    if public is not None:
        strategy = public
    else:
        strategy = OrderedDict(
            (c, int(n)) for c, n, t in zip(labels, sizes.n_new[0], sizes.targeted[0]) if t)
    return noisy, strategy, sizes.n_new[0], sizes.divisors[0]


def release_gaussian(steps: ReleaseSteps, stats, *, charge, random_state, public=None,
                     class_counts: str = "private") -> GaussianRelease:
    """Everything the Gaussian synopsis releases, from the private statistics.

    ``stats`` is the statistics stage's :class:`~._statistics.Statistics`
    (class sizes and exact fixed-point sums, private). The noise has a stream
    of its own: the raw normals of the synthesis end up in the released rows
    and must not expose the stream that hid the sums. The in-memory and the
    Dask paths both release here, so they draw the same noise in the same
    order.
    """
    d = stats.fixed_sums.shape[1]
    steps.check_n_features(d)  # before any charge
    noise_rng, sample_rng = check_random_state(random_state).spawn(2)
    classes = stats.classes
    noisy, strategy, n_new, class_sizes = _release_sizes(steps, classes, stats.sizes, noise_rng,
                                                         charge, public)
    over_sampled = np.flatnonzero(n_new > 0)
    eps_hist, labels = steps.split[1], classes.tolist()
    if over_sampled.size:
        charge(steps.sum_mechanism(d).cost)
    means = {}
    for j in over_sampled:
        warn_mean_noise(d, eps_hist, class_sizes[j], labels[j], class_counts)
        means[int(j)] = steps.class_mean(stats.fixed_sums[j], class_sizes[j], noise_rng)
    if n_new.sum() == 0:
        warn_no_synthetic_rows()
    return GaussianRelease(noisy, strategy, n_new, means, sample_rng)


def release_grid_sizes(steps: ReleaseSteps, stats, *, charge, random_state, public=None
                       ) -> GridRelease:
    """The grid synopsis's first release: the class sizes, then the grid they imply.

    With ``granularity="auto"`` the grid is post-processing of the DP sizes.
    The ℓ-ball of the chosen grid is built here, so that a ball too large is
    refused before the histograms' charge.
    """
    steps.check_n_features(stats.bounds[0].shape[0])
    # the noise has a stream of its own: the raw uniforms of the synthesis end up in the
    # released rows and must not expose the stream that hid the counts
    noise_rng, sample_rng = check_random_state(random_state).spawn(2)
    noisy, strategy, n_new, class_sizes = _release_sizes(steps, stats.classes, stats.sizes,
                                                         noise_rng, charge, public)
    grid, kind = steps.grid(stats.bounds, auto_class_size(class_sizes, n_new)[0])
    offsets = None
    if np.any(n_new > 0):
        offsets = ball_offsets(grid.n_features, steps.connectivity, grid.n_cells)
    if n_new.sum() == 0:
        warn_no_synthetic_rows()
    return GridRelease(noisy, strategy, n_new, class_sizes, grid, kind, offsets, noise_rng,
                       sample_rng)


def release_histograms(steps: ReleaseSteps, plan: GridRelease, coordinates, classes, *,
                       charge, class_counts: str = "private") -> dict:
    """The noisy cell histogram of each over-sampled class (index -> histogram).

    ``coordinates`` holds the cell coordinates of each over-sampled class's
    rows (private), in the order of the over-sampled classes.
    """
    over_sampled = np.flatnonzero(plan.n_new > 0)
    if not over_sampled.size:
        return {}
    charge(steps.cell_mechanism().cost)
    grid, kind, sizes = plan.grid, plan.kind, plan.class_sizes
    eps_hist, labels = steps.split[1], classes.tolist()
    auto = isinstance(steps.granularity, str)
    out = {}
    for j, coords in zip(over_sampled, coordinates):
        if kind == "dense":
            warn_dense_noise(grid, eps_hist, sizes[j], labels[j], class_counts, auto)
        hist = steps.cell_histogram(grid, kind, coords, sizes[j], plan.noise_rng)
        out[int(j)] = hist
        if not np.any((hist.counts if kind == "sparse" else hist) > 0):
            warn_no_positive_cell(labels[j])
        elif kind == "sparse":
            warn_sparse_mass(grid, eps_hist, hist, sizes[j], labels[j], class_counts, auto)
    return out


# -- warnings, built from DP outputs and parameters only ---------------------------------
#: the DP mean's Laplace scale per coordinate (in half-ranges of the bounds) above
#: which the Gaussian synopsis warns: noise of a quarter of the range or more
MEAN_NOISE_WARN = 0.5
# the sparse release warns when it keeps less than this share of the class size
SPARSE_MIN_MASS_SHARE = 0.5


class DPSMOTENoiseWarning(UserWarning):
    """The released synopsis (mean or histogram) is dominated by noise.

    The message holds DP outputs and parameters only.
    """


def _who(label, class_counts) -> str:
    kind = "noisy" if class_counts == "private" else "public"
    return f"the {kind} size of class {label!r}"


def warn_mean_noise(d, eps_hist, class_size, label, class_counts) -> None:
    """Warn when the DP mean's noise is a large share of the bounds."""
    scale = mean_noise_scale(d, eps_hist, class_size)
    if scale > MEAN_NOISE_WARN:
        warn(
            f"DPSMOTE: the noisy mean of class {label!r} has Laplace noise of scale "
            f"{scale:.3g} half-ranges per feature (d={d}, epsilon_hist={eps_hist:.3g}, "
            f"{_who(label, class_counts)} {int(class_size)}): the synthetic rows are centred "
            "far from the class. Use a larger epsilon or fewer features.",
            DPSMOTENoiseWarning,
        )


def warn_dense_noise(grid, eps_hist, class_size, label, class_counts, auto) -> None:
    """Warn when the dense grid's expected positive noise mass exceeds the class size."""
    mass = grid.size * expected_positive_noise(eps_hist)
    if mass > class_size:
        advice = ("granularity='auto' uses at least 2 cells per feature; only a larger epsilon "
                  "or fewer features help" if auto
                  else "Use granularity='auto' or a larger granularity")
        warn(
            f"DPSMOTE: the dense grid has {grid.size} cells ({grid.n_cells} per feature); at "
            f"epsilon_hist={eps_hist:.3g} their expected positive noise mass is about {mass:.3g}, "
            f"above {_who(label, class_counts)} ({int(class_size)}): most synthetic rows will "
            f"come from empty cells lifted by noise. {advice}.",
            DPSMOTENoiseWarning,
        )


def warn_sparse_mass(grid, eps_hist, hist, class_size, label, class_counts, auto) -> None:
    """Warn when the sparse release keeps far less mass than the class size."""
    released = int(np.maximum(hist.counts, 0).sum())
    if released < SPARSE_MIN_MASS_SHARE * class_size:
        spurious = expected_spurious_mass(grid.size, eps_hist, hist.threshold)
        advice = ("A grid histogram cannot carry this class at this size: use a larger "
                  "epsilon or fewer features" if auto
                  else "Use granularity='auto', a larger granularity or a larger epsilon")
        warn(
            f"DPSMOTE: the sparse histogram of class {label!r} released {len(hist.counts)} "
            f"cells of total count {released} (threshold {hist.threshold}; about "
            f"{min(spurious, released):.3g} of it expected from empty cells), far below "
            f"{_who(label, class_counts)} ({int(class_size)}): the synthetic rows come from "
            f"few, possibly spurious cells. {advice}.", DPSMOTENoiseWarning,
        )


def warn_no_positive_cell(label) -> None:
    """Phase 2 falls back to uniform cells: the noisy histogram has no positive count."""
    warn(
        f"DPSMOTE: no cell of the noisy histogram of class {label!r} is "
        "positive; its synthetic rows are drawn uniformly over the bounds. "
        "Use a larger epsilon, granularity='auto' or a larger granularity.",
        DPSMOTENoiseWarning,
    )


def warn_no_synthetic_rows() -> None:
    warn(
        "DPSMOTE generated no synthetic rows: the (noisy) class sizes already meet "
        "sampling_strategy.", UserWarning,
    )
