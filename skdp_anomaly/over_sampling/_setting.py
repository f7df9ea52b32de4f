"""DPSMOTE's public setting: the label set, the sampling strategy, and the grid.

Pure helpers shared by the estimator and its audit helpers, which read
parameters, the public label set and DP outputs, never the data: the checks of
the label set and of the strategy against it (parameters only, or the label set
treated as public), imblearn's strategy from exact sizes declared public, the
encoding of ``y`` as indices into the label set, and the checks between
parameters (the ε of each release, ``bounds``, the grid's shape). How many
synthetic rows the DP sizes imply is post-processing of a release:
:func:`._release.n_synthetic`.

The grid synopsis's grid (Lut 2022, §3.3, Algorithm 6) is here too: public
bounds, and cells per feature from ``granularity`` or, with ``"auto"``, from
the DP class sizes (:func:`choose_n_cells`), with its ℓ-ball (Definition 3.2).
``fit_resample`` chooses it between the size release and the cell
coordinates of the statistics (:func:`choose_grid`), in the same module as the
checks that refuse an impossible grid before any data are read.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from imblearn.utils import check_sampling_strategy

from ..privacy._mechanisms import MAX_GEOMETRIC_EPSILON
from ..privacy._validation import check_bounds

__all__ = [
    "DENSE_MAX_CELLS",
    "FLOAT_NEEDS_BINARY",
    "UNKNOWN_LABEL",
    "Grid",
    "GridChoice",
    "auto_class_size",
    "ball_offsets",
    "check_ball_size",
    "check_epsilon_cap",
    "check_grid_shape",
    "check_label_set",
    "check_public_classes",
    "check_strategy_labels",
    "check_strategy_values",
    "choose_grid",
    "choose_n_cells",
    "class_codes",
    "encode_labels",
    "expected_positive_noise",
    "features_of_bounds",
    "grid_for",
    "n_cells",
    "public_strategy",
    "unique_codes",
]

#: a label of ``y`` outside ``classes``: refused without naming it (it is data)
UNKNOWN_LABEL = (
    "y contains at least one label that is not in the 'classes' parameter (the labels are "
    "not listed here, to keep them out of logs)."
)

FLOAT_NEEDS_BINARY = ('"sampling_strategy" can be a float only when the type of target is '
                       "binary. For multi-class, use a dict.")

# `histogram="auto"` uses the dense grid up to this many cells: the paper's own
# setting (ν = 0.25, d <= 8) stays exactly Algorithm 6.
DENSE_AUTO_MAX_CELLS = 1 << 16
# `histogram="dense"` is refused above this many cells (1 GiB of int64 counts)
DENSE_MAX_CELLS = 1 << 27
# the dense histogram is an array with one axis per feature
DENSE_MAX_DIMS = 32

_INT64_MAX = np.iinfo(np.int64).max
# above this many offsets the ℓ-ball is refused (memory and time grow with it)
_MAX_OFFSETS = 200_000
# granularity="auto" keeps the expected positive noise mass of the dense grid at most
# this share of the class size (so at least about half of the positive mass is real)
_NOISE_MASS_SHARE = 1.0
# granularity="auto" never uses more cells per feature than the paper's ν = 0.25,
# nor fewer than 2 (one cell collapses phase 2 to a single point)
AUTO_MAX_N_CELLS = 4
AUTO_MIN_N_CELLS = 2


def _is_float_strategy(strategy) -> bool:
    return isinstance(strategy, numbers.Real) and not isinstance(strategy, bool)


# -- the sampling strategy from exact (declared public) sizes ---------------------------
def public_strategy(sampling_strategy, y, sampling_type: str) -> OrderedDict:
    """imblearn's strategy from the exact class sizes (declared public), plain labels as keys."""
    strategy = check_sampling_strategy(sampling_strategy, y, sampling_type)
    return OrderedDict(
        (getattr(c, "item", lambda c=c: c)(), int(n)) for c, n in strategy.items()
    )


# -- checks: the parameters, then the label set taken as public -----------------------
def check_strategy_values(sampling_strategy) -> None:
    """A dict strategy asks for no negative number of rows (the parameter alone)."""
    if isinstance(sampling_strategy, Mapping):
        negative = {k: v for k, v in sampling_strategy.items()
                    if isinstance(v, numbers.Real) and v < 0}
        if negative:
            raise ValueError(
                "The 'sampling_strategy' parameter asks for a negative number of samples: "
                f"{negative!r}."
            )


def check_public_classes(classes, sampling_strategy):
    """The public label set (sorted), or None; checked against the strategy.

    Only parameters are read, so every error here is data-independent, and
    each names the parameter at fault.
    """
    if classes is None:
        return None
    labels = np.asarray(classes)
    if labels.ndim != 1 or labels.size < 2:
        raise ValueError(
            "The 'classes' parameter must be a 1-D array-like of at least 2 class labels; "
            f"got {classes!r}."
        )
    unique = np.unique(labels)
    if unique.size != labels.size:
        raise ValueError(f"The 'classes' parameter has repeated labels: {classes!r}.")
    if _is_float_strategy(sampling_strategy):
        if unique.size != 2:
            raise ValueError(
                "The 'sampling_strategy' parameter can be a float only for a binary target; "
                f"the 'classes' parameter lists {unique.size} labels. Use a dict."
            )
    elif isinstance(sampling_strategy, Mapping):
        unknown = [c for c in sampling_strategy if c not in set(unique.tolist())]
        if unknown:
            raise ValueError(
                f"The 'sampling_strategy' parameter names labels {unknown!r} that are not in "
                "the 'classes' parameter."
            )
    return unique


def check_strategy_labels(sampling_strategy, classes) -> None:
    """The strategy against the label set read from ``y`` (public schema), before any release.

    A float needs two classes and a dict names labels of the set (imblearn's
    messages). A callable is evaluated on the noisy sizes only, later.
    """
    if _is_float_strategy(sampling_strategy) and np.asarray(classes).size != 2:
        raise ValueError(FLOAT_NEEDS_BINARY)
    if isinstance(sampling_strategy, Mapping):
        unknown = set(sampling_strategy) - set(np.asarray(classes).tolist())
        if unknown:
            raise ValueError(f"The {unknown} target class is/are not present in the data.")


def check_label_set(labels) -> None:
    """The labels read from ``y`` (``classes=None``) must be at least two."""
    if np.asarray(labels).size <= 1:
        raise ValueError(
            f"The target 'y' needs to have more than 1 class. Got {np.asarray(labels).size} "
            "class instead. Pass the public label set as 'classes' to fit when a class may be "
            "absent."
        )


def class_codes(classes, wanted, name: str) -> list:
    """Indices in ``classes`` of a label or a list of labels named by the caller."""
    wanted = wanted if isinstance(wanted, (list, tuple)) else [wanted]
    codes = []
    for label in wanted:
        hits = np.flatnonzero(classes == label)
        if hits.size == 0:
            raise ValueError(f"{name} {label!r} is not one of the classes.")
        codes.append(int(hits[0]))
    return codes


# -- label encoding ---------------------------------------------------------------------
def encode_labels(y, classes):
    """``(classes, codes)``: the public label set and each row's index in it, or
    (``classes=None``) the labels present in ``y``."""
    if classes is None:
        classes, codes = unique_codes(y)
        check_label_set(classes)
        return classes, codes
    try:
        codes = np.searchsorted(classes, y)
        known = classes[np.minimum(codes, classes.size - 1)] == y
    except (TypeError, ValueError):  # labels of another type than `classes`
        known = np.zeros(1, bool)
    if not np.all(known):
        raise ValueError(UNKNOWN_LABEL)
    return classes, codes


# integer labels spanning at most this many values are encoded by a table, in O(n)
_TABLE_LABEL_SPAN = 1 << 16


def unique_codes(y):
    """``np.unique(y, return_inverse=True)``, in one O(n) pass for small integer labels."""
    y = np.asarray(y)
    if y.dtype.kind in "iu" and y.size:
        low, high = int(y.min()), int(y.max())
        if high - low < _TABLE_LABEL_SPAN:
            offset = y - low if low else y
            present = np.bincount(offset, minlength=high - low + 1) > 0
            table = np.cumsum(present) - 1
            classes = (np.flatnonzero(present) + low).astype(y.dtype)
            return classes, table[offset]
    classes, codes = np.unique(y, return_inverse=True)
    return classes, codes.reshape(-1)


# -- the checks between parameters, before any data are read ----------------------------
def check_epsilon_cap(steps) -> None:
    """Each release's ε (``steps.split``) stays at most 30, where geometric noise still
    hides a count (beyond, it is zero in all but about 2e-13 of draws)."""
    top = max(steps.split)
    if top > MAX_GEOMETRIC_EPSILON:
        raise ValueError(
            f"The 'epsilon' parameter of DPSMOTE is {steps.epsilon!r}, which puts "
            f"ε={top:.4g} on one release, above {MAX_GEOMETRIC_EPSILON:g}, where geometric "
            "noise is zero in all but about 2e-13 of draws and exact counts would be released; "
            "use a smaller epsilon."
        )


def features_of_bounds(bounds) -> int | None:
    """Check the ``bounds`` parameter alone; the number of features it fixes, if any."""
    if bounds is None:
        return None
    try:
        lower, upper = bounds
        sides = [np.ndim(lower), np.ndim(upper)]
        sized = [np.size(v) for v, nd in zip((lower, upper), sides) if nd > 0]
    except (TypeError, ValueError):  # not a pair, or ragged: check_bounds says which
        check_bounds(bounds, n_features=1)
        raise
    check_bounds(bounds, n_features=sized[0] if sized else 1)
    return sized[0] if sized else None


def check_grid_shape(steps, n_features: int) -> None:
    """The grid synopsis's grid can be built on ``n_features`` features (dense array
    dimensions; with a fixed granularity, the dense size and the ℓ-ball too)."""
    if steps.histogram == "dense" and n_features > DENSE_MAX_DIMS:
        raise ValueError(
            f"histogram='dense' supports at most {DENSE_MAX_DIMS} features (numpy array "
            f"dimensions), got {n_features}; use histogram='sparse' or 'auto'."
        )
    if not isinstance(steps.granularity, str):  # else the grid follows the DP size
        _check_dense_size(steps.histogram, n_cells(steps.granularity), n_features)
        check_ball_size(n_features, steps.connectivity, n_cells(steps.granularity))


def _check_dense_size(histogram: str, cells: int, n_features: int) -> None:
    if histogram == "dense" and cells**n_features > DENSE_MAX_CELLS:
        raise ValueError(
            f"histogram='dense' needs {cells}**{n_features} cells (limit "
            f"{DENSE_MAX_CELLS}); use histogram='sparse' or 'auto', or a larger granularity."
        )


# -- the grid synopsis's grid: public bounds, cells per feature from ν or the DP sizes ----
def n_cells(granularity: float) -> int:
    """Cells per feature of a fixed ν: ``ceil(1/ν)`` (the tolerance absorbs 1/0.1 -> 10)."""
    return max(1, math.ceil(1.0 / granularity - 1e-9))


@dataclass(frozen=True)
class Grid:
    """A uniform grid of ``n_cells`` equal-width cells per feature over ``[lower, upper]``.

    The grid synopsis's geometry (Lut 2022, §3.3, Algorithm 6): public bounds
    and a number of cells per feature that may be post-processing of the DP
    class sizes (``granularity="auto"``). Cells are addressed by integer
    coordinates ``0 <= c_j < n_cells`` per feature (the statistics map rows to
    them, :func:`~._statistics.cell_coordinates`), and by a sortable key for
    the releases (:func:`~._release.cell_keys`).

    The derived attributes are computed once, when the grid is built: every
    stage reads them as plain attributes, without calling back into this
    module.

    Attributes
    ----------
    n_features : int
    size : int
        Total number of cells ``n_cells ** d`` (a Python int, may exceed int64).
    width : ndarray of shape (n_features,)
        The width of a cell along each feature.
    fits_int64 : bool
        Whether every cell has an int64 row-major code.
    coord_dtype : type
        The integer type of cell coordinates.
    strides : ndarray of int64 or None
        Row-major strides of the codes (None when they do not fit int64).
    row_dtype : numpy dtype
        A ``void`` of one coordinate row: beyond int64 codes, a cell's key is
        its row of ``coord_dtype`` viewed as one scalar.
    """

    lower: np.ndarray
    upper: np.ndarray
    n_cells: int
    n_features: int = field(init=False, repr=False)
    size: int = field(init=False, repr=False)
    width: np.ndarray = field(init=False, repr=False)
    fits_int64: bool = field(init=False, repr=False)
    coord_dtype: type = field(init=False, repr=False)
    strides: np.ndarray | None = field(init=False, repr=False)
    row_dtype: np.dtype = field(init=False, repr=False)

    def __post_init__(self):
        d, m = self.lower.shape[0], self.n_cells
        fits, coord_dtype = m**d <= _INT64_MAX, np.int16 if m < 2**14 else np.int32
        derived = {
            "n_features": d, "size": m**d, "width": (self.upper - self.lower) / m,
            "fits_int64": fits, "coord_dtype": coord_dtype,
            "strides": np.array([m ** (d - 1 - j) for j in range(d)], np.int64) if fits else None,
            "row_dtype": np.dtype((np.void, np.dtype(coord_dtype).itemsize * d)),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)  # frozen: set once, here

    def centres(self, coords) -> np.ndarray:
        """Centres ``q`` of the cells at ``coords`` (float64)."""
        return self.lower + (np.asarray(coords, dtype=np.float64) + 0.5) * self.width


def expected_positive_noise(epsilon: float) -> float:
    """``E[max(Z, 0)]`` for two-sided geometric Z with decay ``a = exp(-ε)``.

    Equals ``a / ((1 + a)(1 − a)) = a / (1 − a²)``: the expected positive
    weight an *empty* cell of a dense noisy histogram gets in phase 2.
    """
    return math.exp(-epsilon) / -math.expm1(-2.0 * epsilon)


def choose_n_cells(class_size: float, epsilon: float, n_features: int, *,
                   min_n_cells: int = AUTO_MIN_N_CELLS, max_n_cells: int = AUTO_MAX_N_CELLS,
                   max_total_cells: int | None = None, share: float = _NOISE_MASS_SHARE) -> int:
    """Cells per feature ``m`` for ``granularity="auto"`` (ν = 1/m).

    The largest integer ``min_n_cells <= m <= max_n_cells`` whose dense grid
    of ``m**d`` cells has expected positive noise mass ``m**d · E[max(Z, 0)]``
    (:func:`expected_positive_noise`) at most ``share · class_size``;
    ``min_n_cells`` when none does. With the default ``share = 1`` the noise
    does not outweigh the class in expectation. The floor of 2 exists because
    one cell per feature collapses phase 2 to a single point (the centre of the
    bounds), which did worse than a noise-dominated 2-cell grid in every
    measured case. ``max_total_cells`` (if given) also caps ``m**d`` and may
    force ``m`` below the floor (down to 1).

    ``class_size`` must be a DP estimate (or a public count), never the true
    count: the result is then post-processing of DP outputs and parameters.
    """
    if n_features < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features}.")
    budget = share * float(class_size)
    per_cell = expected_positive_noise(epsilon)

    def allowed(k: int) -> bool:
        return max_total_cells is None or k**n_features <= max_total_cells

    # noise alone would allow about (budget / per_cell) ** (1/d) cells per feature;
    # start there (never above the cap) and correct with exact integer checks
    m = max_n_cells
    if budget <= 0:
        m = min_n_cells
    elif per_cell > 0:
        m = min(max_n_cells, max(min_n_cells, int(
            math.exp((math.log(budget) - math.log(per_cell)) / n_features))))

    def fits(k: int) -> bool:
        return allowed(k) and k**n_features * per_cell <= budget

    while m < max_n_cells and fits(m + 1):
        m += 1
    while m > min_n_cells and not fits(m):
        m -= 1
    while m > 1 and not allowed(m):
        m -= 1
    return m


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


class GridChoice(NamedTuple):
    """The grid the histograms are released on, chosen after the class-size release."""

    grid: Grid
    kind: str
    """"dense" or "sparse"."""
    offsets: object
    """The ℓ-ball of the grid (None when no class is over-sampled)."""
    noise_mass: float
    """The dense grid's expected positive noise mass ``size · E[max(Z, 0)]``, which the
    dense histograms' warning compares with each class size."""


def grid_for(steps, bounds, class_size=None) -> tuple:
    """The grid and histogram kind; ``class_size`` (DP or public) drives ``"auto"``."""
    lower, upper = bounds
    d = lower.shape[0]
    if isinstance(steps.granularity, str):  # "auto": post-processing of class_size
        cap = DENSE_MAX_CELLS if steps.histogram == "dense" else None
        cells = choose_n_cells(class_size, steps.split[1], d, max_total_cells=cap)
    else:
        cells = n_cells(steps.granularity)
    grid = Grid(lower, upper, cells)
    _check_dense_size(steps.histogram, grid.n_cells, grid.n_features)
    kind = steps.histogram
    if kind == "auto":
        small = grid.size <= DENSE_AUTO_MAX_CELLS and grid.n_features <= DENSE_MAX_DIMS
        kind = "dense" if small else "sparse"
    return grid, kind


def choose_grid(steps, bounds, class_sizes, n_new) -> GridChoice:
    """The grid of one fit, from the public bounds and the DP (or public) class sizes.

    Post-processing of the size release: with ``granularity="auto"`` the
    smallest over-sampled class drives the cells per feature. The ℓ-ball of
    the chosen grid is built here, so that a ball too large is refused before
    the histograms' charge.
    """
    grid, kind = grid_for(steps, bounds, auto_class_size(class_sizes, n_new)[0])
    offsets = None
    if np.any(n_new > 0):
        offsets = ball_offsets(grid.n_features, steps.connectivity, grid.n_cells)
    return GridChoice(grid, kind, offsets, grid.size * expected_positive_noise(steps.split[1]))


# -- the ℓ-ball (Definition 3.2): refused when too large, before any charge --------------
def n_ball_offsets(n_features: int, connectivity: int, n_cells: int) -> int:
    """Number of offsets with L1 norm ``<= connectivity`` and each |entry| < n_cells.

    Counted without listing them (a sum over the number k of moved features
    of ``C(d, k) · 2^k`` times the compositions of at most ``connectivity``
    into k parts in ``[1, n_cells − 1]``), so that a ball too large to list
    is refused at once.
    """
    top = min(connectivity, n_cells - 1)
    # ways[s]: the k-tuples of magnitudes in [1, top] summing to s <= connectivity
    ways = [1] + [0] * connectivity
    total = 0
    for k in range(min(n_features, connectivity) + 1):
        if k:
            window, shifted = 0, [0] * (connectivity + 1)
            for s in range(connectivity + 1):  # shifted[s] = ways[s-top] + ... + ways[s-1]
                window += ways[s - 1] if s >= 1 else 0
                window -= ways[s - top - 1] if s - top - 1 >= 0 else 0
                shifted[s] = window
            ways = shifted
        n_magnitudes = sum(ways)
        if n_magnitudes == 0:
            break
        total += math.comb(n_features, k) * (2**k) * n_magnitudes
    return total


def check_ball_size(n_features: int, connectivity: int, n_cells: int) -> None:
    """Refuse an ℓ-ball of more than 200 000 offsets (its memory and time grow with it)."""
    n = n_ball_offsets(n_features, connectivity, n_cells)
    if n > _MAX_OFFSETS:
        raise ValueError(
            f"connectivity={connectivity} with {n_features} features gives an ℓ-ball of {n} "
            f"grid offsets (limit {_MAX_OFFSETS}); use a smaller connectivity."
        )


def _magnitudes(k: int, connectivity: int, n_cells: int) -> list:
    if k == 0:
        return [()]
    top = min(connectivity, n_cells - 1)
    return [m for m in itertools.product(range(1, top + 1), repeat=k) if sum(m) <= connectivity]


@functools.lru_cache(maxsize=16)
def ball_offsets(n_features: int, connectivity: int, n_cells: int):
    """Offsets of the ℓ-ball of Definition 3.2, the centre itself first.

    Two cells are ℓ-connected when a path of at most ℓ grid edges joins them,
    i.e. their coordinates differ by an offset of L1 norm ``<= ℓ``. The
    offset 0 (the cell itself, distance 0) is included.

    Returns
    -------
    dense : ndarray of shape (n_offsets, n_features), int32
    support : ndarray of shape (n_offsets, s), int  — features an offset moves
    delta : ndarray of shape (n_offsets, s), int  — by how much (0 = padding)
    """
    check_ball_size(n_features, connectivity, n_cells)
    s = max(1, min(n_features, connectivity))  # at most ℓ features move
    dense_parts, support_parts, delta_parts = [], [], []
    for k in range(min(n_features, connectivity) + 1):
        mags = _magnitudes(k, connectivity, n_cells)
        if not mags:
            continue
        if k == 0:
            dense_parts.append(np.zeros((1, n_features), np.int32))
            support_parts.append(np.zeros((1, s), np.int64))
            delta_parts.append(np.zeros((1, s), np.int32))
            continue
        combos = np.array(list(itertools.combinations(range(n_features), k)), dtype=np.int64)
        signs = np.array(list(itertools.product((-1, 1), repeat=k)), dtype=np.int32)
        mags = np.array(mags, dtype=np.int32)
        vals = (mags[:, None, :] * signs[None, :, :]).reshape(-1, k)  # (V, k)
        n_c, n_v = len(combos), len(vals)
        sup = np.repeat(combos, n_v, axis=0)  # (C*V, k)
        dl = np.tile(vals, (n_c, 1))
        dense = np.zeros((n_c * n_v, n_features), np.int32)
        np.put_along_axis(dense, sup, dl, axis=1)
        pad = s - k
        dense_parts.append(dense)
        support_parts.append(np.pad(sup, ((0, 0), (0, pad))))
        delta_parts.append(np.pad(dl, ((0, 0), (0, pad))))
    out = (np.concatenate(dense_parts), np.concatenate(support_parts),
           np.concatenate(delta_parts))
    for arr in out:  # cached and shared between fits: read-only
        arr.flags.writeable = False
    return out
