"""DPSMOTE's releases: every mechanism and step that turns private statistics into DP outputs.

:class:`ReleaseSteps` gives each release (class sizes, Gaussian class sums, grid
histograms) its mechanism and share of ``epsilon``; the ``release_*`` stages charge each
cost right before the release (the audits run the same steps uncharged). Class sums are
exact fixed-point integers (units of ``2^-FIXED_BITS``), released by the float-safe
discrete :class:`~skdp_anomaly.privacy.LaplaceMechanism` (L1 sensitivity ``d``).
"""

from __future__ import annotations

import math
import numbers
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._warn import warn
from ..exceptions import DPSMOTENoiseWarning, naming
from ..privacy import GeometricMechanism, LaplaceMechanism
from ..privacy._rng import check_random_state
from ..privacy._exact import geometric
from ._setting import FLOAT_NEEDS_BINARY, Grid

#: the class sums are exact integers in units of 2^-FIXED_BITS, and released on that grid
FIXED_BITS = 32
FIXED_SCALE = float(1 << FIXED_BITS)

_INT64_MAX = np.iinfo(np.int64).max
# θ keeps the expected spurious mass of empty cells below this share of the class size
_SPURIOUS_MASS_SHARE = 0.1


class SizeRelease(NamedTuple):
    """The class-size release, and what it implies (post-processing); one row per release."""

    noisy: np.ndarray | None
    """(1, n_classes) DP class sizes, or None when they are declared public."""
    n_new: np.ndarray
    """(1, n_classes) synthetic rows per class."""
    targeted: np.ndarray
    """(1, n_classes) the classes the sampling strategy targets."""
    divisors: np.ndarray
    """(1, n_classes) the sizes the synopses use: DP (or public), floored at 1."""


class ReleaseSteps(NamedTuple):
    """The releases a valid DPSMOTE setting makes, with their mechanisms (never stored)."""

    split: tuple
    """(ε of the class sizes, ε of the synopsis); the sizes get 0 when public."""
    epsilon: float
    class_counts: str
    synopsis: str
    sampling_strategy: object
    granularity: object
    connectivity: int
    histogram: str
    bounds: object

    # -- the mechanisms ------------------------------------------------------------------
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

    # -- a check of the parameters against the data's shape -------------------------------
    def check_sums(self, n_features: int) -> None:
        """Refuse an ε too small for the class sums' noise on ``n_features`` (before a charge)."""
        try:
            self.sum_mechanism(n_features)
        except ValueError as exc:
            reason = getattr(exc, "settings_template", str(exc))
            raise naming(
                ValueError,
                f"`The 'epsilon' parameter of DPSMOTE` ({self.epsilon!r}) is too small for the "
                f"Gaussian synopsis' class sums on {n_features} features: {reason}",
            ) from None

    # -- the releases ---------------------------------------------------------------------
    def release_sizes(self, true_sizes, classes, rng, *, public=None, charge=None) -> SizeRelease:
        """The DP class sizes and the rows they imply; ``charge`` runs right before the release.

        ``true_sizes`` are private, never returned. ``public``: imblearn's strategy from exact
        sizes, used as it is.
        """
        k = classes.size
        mechanism = self.size_mechanism()
        if mechanism is not None:
            if charge is not None:
                charge(mechanism.cost)
            noisy = np.atleast_2d(mechanism.randomise(true_sizes, rng))
            n_new, targeted = n_synthetic(self.sampling_strategy, classes, noisy)
            return SizeRelease(noisy, n_new, targeted, np.maximum(noisy, 1))
        if public is None:  # public sizes over the public label set
            n_new, targeted = n_synthetic(self.sampling_strategy, classes, true_sizes)
        else:
            index = {c: i for i, c in enumerate(classes.tolist())}
            n_new, targeted = np.zeros((1, k), np.int64), np.zeros((1, k), bool)
            for label, rows in public.items():
                n_new[0, index[label]], targeted[0, index[label]] = rows, True
        divisors = np.maximum(np.atleast_2d(true_sizes), 1)  # public by the user's declaration
        return SizeRelease(None, n_new, targeted, divisors)

    def class_mean(self, fixed_sum, divisor, rng) -> np.ndarray:
        """A class's DP mean in the unit box from its exact fixed-point sum (private)."""
        return release_means(fixed_sum, divisor, self.split[1], rng)

    def cell_histogram(self, grid: Grid, kind: str, coords, class_size, rng):
        """One class's released histogram: dense, or sparse above θ (from DP ``class_size``)."""
        if kind == "dense":
            noisy = release_dense(dense_true_counts(grid, coords), self.split[1], rng)
            return noisy.reshape((grid.n_cells,) * grid.n_features)
        theta = choose_threshold(grid.size, self.split[1], class_size)
        return release_sparse(grid, coords, self.split[1], theta, rng)


# -- how many synthetic rows: the sampling strategy on the (noisy) class sizes ------------
def n_synthetic(sampling_strategy, classes, counts):
    """``(n_new, targeted)`` per class from (noisy) sizes of shape (n_runs, n_classes).

    imblearn semantics (post-processing); negative sizes count as 0, and where
    imblearn would raise for too few rows asked, 0 rows are asked instead.
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
            raise naming(ValueError, f"unknown `sampling_strategy` {sampling_strategy!r}.")
        n_new = np.where(targeted, deficit, 0)
    elif isinstance(sampling_strategy, numbers.Real):
        if n_classes != 2:
            raise naming(ValueError, FLOAT_NEEDS_BINARY)
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
        raise naming(ValueError, f"unsupported `sampling_strategy` {sampling_strategy!r}.")
    return np.maximum(n_new, 0), targeted


def _n_synthetic_dict(wanted: Mapping, classes, counts):
    index = {c: i for i, c in enumerate(np.asarray(classes).tolist())}
    unknown = set(wanted) - set(index)
    if unknown:
        raise ValueError(f"The {unknown} target class is/are not present in the data.")
    if any(v < 0 for v in wanted.values()):
        raise naming(
            ValueError,
            "The number of samples in a class cannot be negative. `'sampling_strategy'` "
            f"contains some negative value: {dict(wanted)}",
        )
    target, targeted = np.zeros(counts.shape[1], np.int64), np.zeros(counts.shape[1], bool)
    for cls, value in wanted.items():
        target[index[cls]], targeted[index[cls]] = int(value), True
    n_new = np.where(targeted, target - counts, 0)
    return n_new, np.broadcast_to(targeted, counts.shape).copy()


# -- the Gaussian synopsis's mechanism: the class sums on the grid 2^-FIXED_BITS -----------
def fixed_to_float(fixed_sum) -> np.ndarray:
    """The float value of fixed-point sums (integers in units of ``2^-FIXED_BITS``)."""
    return np.asarray(fixed_sum, np.int64).astype(np.float64) / FIXED_SCALE


def sum_mechanism(epsilon: float, d: int) -> LaplaceMechanism:
    """The class sums' mechanism: L1 sensitivity ``d`` on the grid ``2^-32`` of the sums."""
    return LaplaceMechanism(
        epsilon, float(d), neighbours="add_remove", coordinates=d, granularity=1.0 / FIXED_SCALE
    )


def release_means(fixed_sums, class_sizes, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """DP class means in ``[-1, 1]^d`` from exact sums (int64, units of ``2^-32``, private).

    ``class_sizes`` (DP or public) are the divisors, floored at 1; ``epsilon`` is the sums'.
    """
    fixed_sums = np.asarray(fixed_sums, np.int64)
    d = fixed_sums.shape[-1]
    mech = sum_mechanism(epsilon, d)
    noisy = fixed_to_float(mech.randomise_steps(fixed_sums, rng))
    sizes = np.maximum(np.asarray(class_sizes, np.float64), 1.0)[..., None]
    return np.clip(noisy / sizes, -1.0, 1.0)


def mean_noise_scale(d: int, epsilon: float, class_size: float) -> float:
    """Nominal noise scale of each coordinate of the DP mean, in half-ranges: ``d / (ε n)``."""
    return d / (epsilon * max(float(class_size), 1.0))


# -- the grid synopsis's histograms: dense, or sparse above a threshold -------------------
def cell_keys(grid: Grid, coords) -> np.ndarray:
    """Sortable key of each coordinate row: its int64 row-major code, or beyond int64 the
    row's bytes as a numpy ``void`` scalar."""
    if grid.fits_int64:
        return np.asarray(coords).astype(np.int64) @ grid.strides
    return np.ascontiguousarray(coords, dtype=grid.coord_dtype).view(grid.row_dtype).ravel()


def random_cells(grid: Grid, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` cells drawn uniformly over the whole grid."""
    return rng.integers(0, grid.n_cells, size=(size, grid.n_features)).astype(grid.coord_dtype)


def dense_true_counts(grid: Grid, coords) -> np.ndarray:
    """Exact cell counts of a dense grid, flat in row-major order (private!)."""
    return np.bincount(cell_keys(grid, coords), minlength=grid.size).astype(np.int64)


def release_dense(true_counts: np.ndarray, epsilon: float, rng):
    """Phase 1, dense: every cell count plus two-sided geometric noise (ε-DP, Δ = 1)."""
    mech = GeometricMechanism(epsilon)
    return true_counts + mech.noise(true_counts.shape, rng)


def geometric_tail(epsilon: float, threshold: int) -> float:
    """``P(Z >= threshold)`` for two-sided geometric Z with decay ``exp(-ε)``, threshold >= 1."""
    return math.exp(-epsilon * threshold) / (1.0 + math.exp(-epsilon))


def _mean_excess(epsilon: float) -> float:
    """``E[G]`` for ``G`` geometric on {0, 1, ...} with decay ``exp(-ε)``."""
    return math.exp(-epsilon) / -math.expm1(-epsilon)


def expected_spurious_mass(n_cells_total: int, epsilon: float, threshold: int) -> float:
    """Expected noisy mass of the empty cells passing θ: ``M · P(Z >= θ) · E[Z | Z >= θ]``."""
    tail = geometric_tail(epsilon, threshold)
    return float(n_cells_total) * tail * (threshold + _mean_excess(epsilon))


def choose_threshold(n_cells_total: int, epsilon: float, class_size: float) -> int:
    """Smallest θ >= 1 whose expected spurious mass is at most a tenth of ``class_size``.

    ``class_size`` must be DP (or public), never the true count, so θ is post-processing.
    """
    alpha = math.exp(-epsilon)
    log_m = math.log(n_cells_total)
    target = math.log(_SPURIOUS_MASS_SHARE * max(float(class_size), 1.0))
    mean_excess = _mean_excess(epsilon)

    def log_mass(theta: int) -> float:
        return log_m - epsilon * theta - math.log1p(alpha) + math.log(theta + mean_excess)

    # log_mass decreases for θ >= 1 (its slope 1/(θ + E[G]) - ε <= (1 - e^-ε) - ε < 0),
    # so the smallest admissible θ is found by doubling then bisection
    if log_mass(1) <= target:
        return 1
    lo, hi = 1, 2
    while log_mass(hi) > target:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if log_mass(mid) > target else (lo, mid)
    return hi


@dataclass(frozen=True)
class SparseHistogram:
    """The released cells of a sparse noisy histogram (noisy count >= θ); unpacks to
    ``(cells, counts)``."""

    cells: np.ndarray  # (n_released, n_features) grid coordinates, sorted by key
    counts: np.ndarray  # (n_released,) int64 noisy counts, all >= threshold
    threshold: int  # θ: every cell whose noisy count is below it is reported as 0

    def __iter__(self):
        return iter((self.cells, self.counts))

    def __len__(self):
        return 2


def _distinct_empty_cells(grid: Grid, m: int, nonempty_keys: np.ndarray, rng) -> np.ndarray:
    """Coordinates of ``m`` distinct cells drawn uniformly among the empty ones (the sorted
    ``nonempty_keys`` excluded)."""
    if m == 0:
        return np.zeros((0, grid.n_features), grid.coord_dtype)
    n_empty = grid.size - len(nonempty_keys)
    # enumerate the empty cells only when few or most are needed; else rejection sampling
    if grid.fits_int64 and n_empty <= max(1 << 16, 8 * m):
        every = np.arange(grid.size, dtype=np.int64)
        empty = np.setdiff1d(every, nonempty_keys, assume_unique=True)
        codes = rng.choice(empty, size=m, replace=False)
        return (codes[:, None] // grid.strides % grid.n_cells).astype(grid.coord_dtype)
    kept_coords = np.zeros((0, grid.n_features), grid.coord_dtype)
    kept_keys = cell_keys(grid, kept_coords)
    while len(kept_keys) < m:
        need = m - len(kept_keys)
        cand = random_cells(grid, int(need * 1.1) + 16, rng)
        keys = cell_keys(grid, cand)
        if len(nonempty_keys):
            pos = np.searchsorted(nonempty_keys, keys)
            hit = nonempty_keys[np.minimum(pos, len(nonempty_keys) - 1)] == keys
            cand, keys = cand[~hit], keys[~hit]
        all_coords = np.concatenate([kept_coords, cand])
        _, first = np.unique(np.concatenate([kept_keys, keys]), return_index=True)
        first.sort()  # keep earlier survivors first: order is irrelevant, subset is uniform
        kept_coords = all_coords[first]
        kept_keys = cell_keys(grid, kept_coords)
    pick = rng.choice(len(kept_keys), size=m, replace=False)
    return kept_coords[pick]


def release_sparse(grid: Grid, coords, epsilon: float, threshold: int, rng) -> SparseHistogram:
    """Phase 1, sparse: :func:`release_dense` then zeroing counts below θ, without
    materialising empty cells (Cormode et al., ICDT 2012).

    The passing empty cells: Binomial(M − k, P(Z ≥ θ)) of them (Poisson beyond int64,
    TV error ≤ P(Z ≥ θ)), at distinct uniform empty cells, valued ``θ + Geometric``.
    """
    if threshold < 1:
        raise ValueError(f"threshold must be >= 1, got {threshold}.")
    mech = GeometricMechanism(epsilon)
    keys = cell_keys(grid, coords)
    nonempty_keys, first, true_counts = np.unique(keys, return_index=True, return_counts=True)
    nonempty_coords = np.asarray(coords)[first]
    noisy = true_counts.astype(np.int64) + mech.noise(true_counts.shape, rng)
    keep = noisy >= threshold

    n_empty = grid.size - len(nonempty_keys)
    p = geometric_tail(epsilon, threshold)
    if n_empty <= _INT64_MAX:
        m = int(rng.binomial(n_empty, p))
    else:
        # n_empty can exceed a float (4**1617 cells at d = 1617): the mean in logs
        mean = math.exp(math.log(n_empty) + math.log(p)) if p > 0 else 0.0
        m = int(rng.poisson(mean))
    false_coords = _distinct_empty_cells(grid, m, nonempty_keys, rng)
    false_counts = threshold + geometric(epsilon, m, rng)

    cells = np.concatenate([nonempty_coords[keep], false_coords]).astype(grid.coord_dtype)
    counts = np.concatenate([noisy[keep], false_counts])
    order = np.argsort(cell_keys(grid, cells), kind="stable")
    return SparseHistogram(cells=cells[order], counts=counts[order], threshold=int(threshold))


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
    """The class-size release (either synopsis): the sizes, and the two streams."""

    noisy_class_counts: dict | None
    sampling_strategy: dict
    n_new: np.ndarray
    class_sizes: np.ndarray
    """The DP (or public) sizes that the grid, the histograms' warnings and θ read."""
    noise_rng: np.random.Generator
    sample_rng: np.random.Generator


def release_class_sizes(
    steps: ReleaseSteps, stats, *, charge, random_state, public=None
) -> GridRelease:
    """The first release of either synopsis: the class sizes.

    The noise has a stream of its own: the synthesis's draws end up in the released rows
    and must not expose the stream that hid the sizes and the synopsis.
    """
    noise_rng, sample_rng = check_random_state(random_state).spawn(2)
    sizes = steps.release_sizes(stats.sizes, stats.classes, noise_rng, public=public, charge=charge)
    return _plan(sizes, stats.classes, public, noise_rng, sample_rng)


def _plan(sizes: SizeRelease, classes, public, noise_rng, sample_rng) -> GridRelease:
    """The released sizes, by label, with the two streams; warns when no row is asked for."""
    labels = classes.tolist()
    noisy = None if sizes.noisy is None else dict(zip(labels, sizes.noisy[0].tolist()))
    n_new, targeted = sizes.n_new[0], sizes.targeted[0]
    if public is None:
        public = OrderedDict((c, int(n)) for c, n, t in zip(labels, n_new, targeted) if t)
    if n_new.sum() == 0:
        warn_no_synthetic_rows()
    return GridRelease(noisy, public, n_new, sizes.divisors[0], noise_rng, sample_rng)


def release_gaussian(
    steps: ReleaseSteps, stats, *, charge, random_state, public=None
) -> GaussianRelease:
    """Everything the Gaussian synopsis releases, from the private ``stats``."""
    d = stats.fixed_sums.shape[1]
    steps.check_sums(d)  # before any charge
    noise_rng, sample_rng = check_random_state(random_state).spawn(2)  # as release_class_sizes
    sizes = steps.release_sizes(stats.sizes, stats.classes, noise_rng, public=public, charge=charge)
    plan = _plan(sizes, stats.classes, public, noise_rng, sample_rng)
    over_sampled = np.flatnonzero(plan.n_new > 0)
    eps_hist, labels = steps.split[1], stats.classes.tolist()
    if over_sampled.size:
        charge(steps.sum_mechanism(d).cost)
    means = {}
    for j in over_sampled:
        size = plan.class_sizes[j]
        warn_mean_noise(d, eps_hist, size, labels[j], steps.class_counts)
        means[int(j)] = steps.class_mean(stats.fixed_sums[j], size, plan.noise_rng)
    strategy = plan.sampling_strategy
    return GaussianRelease(plan.noisy_class_counts, strategy, plan.n_new, means, plan.sample_rng)


def release_histograms(
    steps: ReleaseSteps, plan: GridRelease, choice, coordinates, classes, *, charge
) -> dict:
    """Index -> noisy cell histogram of each over-sampled class.

    ``coordinates``: the private cell coordinates of each over-sampled class's rows.
    """
    over_sampled = np.flatnonzero(plan.n_new > 0)
    if not over_sampled.size:
        return {}
    charge(steps.cell_mechanism().cost)
    grid, kind, sizes = choice.grid, choice.kind, plan.class_sizes
    eps_hist, labels, class_counts = steps.split[1], classes.tolist(), steps.class_counts
    auto = isinstance(steps.granularity, str)
    out = {}
    for j, coords in zip(over_sampled, coordinates):
        if kind == "dense":
            warn_dense_noise(choice, eps_hist, sizes[j], labels[j], class_counts, auto)
        hist = steps.cell_histogram(grid, kind, coords, sizes[j], plan.noise_rng)
        out[int(j)] = hist
        if not np.any((hist.counts if kind == "sparse" else hist) > 0):
            warn_no_positive_cell(labels[j], auto)
        elif kind == "sparse":
            warn_sparse_mass(grid, eps_hist, hist, sizes[j], labels[j], class_counts, auto)
    return out


# -- warnings, built from DP outputs and parameters only ---------------------------------
#: the DP mean's Laplace scale (half-ranges) above which the Gaussian synopsis warns
MEAN_NOISE_WARN = 0.5
# the sparse release warns when it keeps less than this share of the class size
SPARSE_MIN_MASS_SHARE = 0.5


def _who(label, class_counts) -> str:
    kind = "noisy" if class_counts == "private" else "public"
    return f"the {kind} size of class {label!r}"


def warn_mean_noise(d, eps_hist, class_size, label, class_counts) -> None:
    """Warn when the DP mean's noise is a large share of the bounds."""
    scale = mean_noise_scale(d, eps_hist, class_size)
    if scale > MEAN_NOISE_WARN:
        warn(
            naming(
                DPSMOTENoiseWarning,
                f"DPSMOTE: the noisy mean of class {label!r} has Laplace noise of scale "
                f"{scale:.3g} half-ranges per feature (d={d}, epsilon_hist={eps_hist:.3g}, "
                f"{_who(label, class_counts)} {int(class_size)}): the synthetic rows are centred "
                "far from the class. Use a larger `epsilon` or fewer features.",
            )
        )


def warn_dense_noise(choice, eps_hist, class_size, label, class_counts, auto) -> None:
    """Warn when the dense grid's expected positive noise mass exceeds the class size."""
    grid, mass = choice.grid, choice.noise_mass
    if mass > class_size:
        advice = (
            "`granularity='auto'` uses at least 2 cells per feature; only a larger `epsilon` "
            "or fewer features help"
            if auto
            else "Use `granularity='auto'` or a larger `granularity`"
        )
        warn(
            naming(
                DPSMOTENoiseWarning,
                f"DPSMOTE: the dense grid has {grid.size} cells ({grid.n_cells} per feature); at "
                f"epsilon_hist={eps_hist:.3g} their expected positive noise mass is about {mass:.3g}, "
                f"above {_who(label, class_counts)} ({int(class_size)}): most synthetic rows will "
                f"come from empty cells lifted by noise. {advice}.",
            )
        )


def warn_sparse_mass(grid, eps_hist, hist, class_size, label, class_counts, auto) -> None:
    """Warn when the sparse release keeps far less mass than the class size."""
    released = int(np.maximum(hist.counts, 0).sum())
    if released < SPARSE_MIN_MASS_SHARE * class_size:
        spurious = expected_spurious_mass(grid.size, eps_hist, hist.threshold)
        warn(
            naming(
                DPSMOTENoiseWarning,
                f"DPSMOTE: the sparse histogram of class {label!r} released {len(hist.counts)} "
                f"cells of total count {released} (threshold {hist.threshold}; about "
                f"{min(spurious, released):.3g} of it expected from empty cells), far below "
                f"{_who(label, class_counts)} ({int(class_size)}): the synthetic rows come from "
                f"few, possibly spurious cells. {_grid_advice(auto)}.",
            )
        )


def warn_no_positive_cell(label, auto: bool) -> None:
    """Phase 2 falls back to uniform cells: the noisy histogram has no positive count."""
    warn(
        naming(
            DPSMOTENoiseWarning,
            f"DPSMOTE: no cell of the noisy histogram of class {label!r} is positive; its synthetic "
            f"rows are drawn uniformly over the bounds. {_grid_advice(auto)}.",
        )
    )


def _grid_advice(auto: bool) -> str:
    if auto:  # granularity="auto" already took the coarsest useful grid
        return (
            "A grid histogram cannot carry this class at this size: use a larger `epsilon` or "
            "fewer features"
        )
    return "Use `granularity='auto'`, a larger `granularity` or a larger `epsilon`"


def warn_no_synthetic_rows() -> None:
    warn(
        naming(
            UserWarning,
            "DPSMOTE generated no synthetic rows: the (noisy) class sizes already meet "
            "`sampling_strategy`.",
        )
    )
