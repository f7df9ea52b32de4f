"""DPSMOTE's public setting: checks of the parameters and the label set, label
encoding, and the grid synopsis's grid (Lut 2022, Algorithm 6) with its ℓ-ball
(Definition 3.2). Reads parameters, the public label set and DP outputs, never the data.
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

from ..exceptions import naming
from ..privacy._mechanisms import MAX_GEOMETRIC_EPSILON
from ..privacy._validation import check_bounds

# messages, with the settings they name in backticks (exceptions.naming)
#: a label of ``y`` outside ``classes``: refused without naming it (it is data)
UNKNOWN_LABEL = (
    "y contains at least one label that is not in `the 'classes' parameter` (the labels "
    "are not listed here, to keep them out of logs)."
)
FLOAT_NEEDS_BINARY = (
    '"`sampling_strategy`" can be a float only when the type of target is binary. For '
    "multi-class, use a dict."
)

# `histogram="auto"` uses the dense grid up to this many cells (the paper's ν = 0.25, d <= 8)
DENSE_AUTO_MAX_CELLS = 1 << 16
# `histogram="dense"` is refused above this many cells (1 GiB of int64 counts) or axes
DENSE_MAX_CELLS = 1 << 27
DENSE_MAX_DIMS = 32

_INT64_MAX = np.iinfo(np.int64).max
# above this many offsets the ℓ-ball is refused (memory and time grow with it)
_MAX_OFFSETS = 200_000
# granularity="auto": the dense grid's expected positive noise mass is at most this share
# of the class size, with 2 to 4 cells per feature (ν = 0.25 at most; one cell would
# collapse phase 2 to a single point)
_NOISE_MASS_SHARE = 1.0
AUTO_MAX_N_CELLS = 4
AUTO_MIN_N_CELLS = 2


def _is_float_strategy(strategy) -> bool:
    return isinstance(strategy, numbers.Real) and not isinstance(strategy, bool)


# -- the sampling strategy from exact (declared public) sizes ---------------------------
def public_strategy(sampling_strategy, y, sampling_type: str) -> OrderedDict:
    """imblearn's strategy from the exact class sizes (declared public), plain labels as keys."""
    strategy = check_sampling_strategy(sampling_strategy, y, sampling_type)
    return OrderedDict((getattr(c, "item", lambda c=c: c)(), int(n)) for c, n in strategy.items())


# -- checks: the parameters, then the label set taken as public -----------------------
def check_strategy_values(sampling_strategy) -> None:
    """A dict strategy asks for no negative number of rows (the parameter alone)."""
    if isinstance(sampling_strategy, Mapping):
        negative = {
            k: v for k, v in sampling_strategy.items() if isinstance(v, numbers.Real) and v < 0
        }
        if negative:
            raise naming(
                ValueError,
                "`The 'sampling_strategy' parameter` asks for a negative number of samples: "
                f"{negative!r}.",
            )


def check_public_classes(classes, sampling_strategy):
    """The public label set (sorted), or None; checked against the strategy (parameters only)."""
    if classes is None:
        return None
    labels = np.asarray(classes)
    if labels.ndim != 1 or labels.size < 2:
        raise naming(
            ValueError,
            "`The 'classes' parameter` must be a 1-D array-like of at least 2 class labels; "
            f"got {classes!r}.",
        )
    unique = np.unique(labels)
    if unique.size != labels.size:
        raise naming(ValueError, f"`The 'classes' parameter` has repeated labels: {classes!r}.")
    strategy = "`The 'sampling_strategy' parameter`"
    if _is_float_strategy(sampling_strategy) and unique.size != 2:
        raise naming(
            ValueError,
            f"{strategy} can be a float only for a binary target; `the 'classes' parameter` "
            f"lists {unique.size} labels. Use a dict.",
        )
    if isinstance(sampling_strategy, Mapping):
        unknown = [c for c in sampling_strategy if c not in set(unique.tolist())]
        if unknown:
            raise naming(
                ValueError,
                f"{strategy} names labels {unknown!r} that are not in `the 'classes' parameter`.",
            )
    return unique


def check_strategy_labels(sampling_strategy, classes) -> None:
    """Check the strategy against the label set read from ``y`` (public), before any release."""
    if _is_float_strategy(sampling_strategy) and np.asarray(classes).size != 2:
        raise naming(ValueError, FLOAT_NEEDS_BINARY)
    if isinstance(sampling_strategy, Mapping):
        unknown = set(sampling_strategy) - set(np.asarray(classes).tolist())
        if unknown:
            raise ValueError(f"The {unknown} target class is/are not present in the data.")


def check_label_set(labels) -> None:
    """The labels read from ``y`` (``classes=None``) must be at least two."""
    if np.asarray(labels).size <= 1:
        raise naming(
            ValueError,
            f"The target 'y' needs to have more than 1 class. Got {np.asarray(labels).size} "
            "class instead. Pass the public label set as `'classes'` to fit when a class may "
            "be absent.",
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
        raise naming(ValueError, UNKNOWN_LABEL)
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
    """Refuse a release ε above 30, where geometric noise almost never hides a count."""
    top = max(steps.split)
    if top > MAX_GEOMETRIC_EPSILON:
        raise naming(
            ValueError,
            f"`The 'epsilon' parameter of DPSMOTE` is {steps.epsilon!r}, which puts "
            f"ε={top:.4g} on one release, above {MAX_GEOMETRIC_EPSILON:g}, where geometric "
            "noise is zero in all but about 2e-13 of draws and exact counts would be released; "
            "use a smaller `epsilon`.",
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
    """Refuse a grid that cannot be built on ``n_features`` features (before any data)."""
    if steps.histogram == "dense" and n_features > DENSE_MAX_DIMS:
        raise naming(
            ValueError,
            f"`histogram='dense'` supports at most {DENSE_MAX_DIMS} features (numpy array "
            f"dimensions), got {n_features}; use `histogram='sparse' or 'auto'`.",
        )
    if not isinstance(steps.granularity, str):  # else the grid follows the DP size
        _check_dense_size(steps.histogram, n_cells(steps.granularity), n_features)
        check_ball_size(n_features, steps.connectivity, n_cells(steps.granularity))


def _check_dense_size(histogram: str, cells: int, n_features: int) -> None:
    if histogram == "dense" and cells**n_features > DENSE_MAX_CELLS:
        raise naming(
            ValueError,
            f"`histogram='dense'` needs {cells}**{n_features} cells (limit {DENSE_MAX_CELLS}); "
            "use `histogram='sparse' or 'auto'`, or a larger `granularity`.",
        )


# -- the grid synopsis's grid: public bounds, cells per feature from ν or the DP sizes ----
def n_cells(granularity: float) -> int:
    """Cells per feature of a fixed ν: ``ceil(1/ν)`` (the tolerance absorbs 1/0.1 -> 10)."""
    return max(1, math.ceil(1.0 / granularity - 1e-9))


@dataclass(frozen=True)
class Grid:
    """A uniform grid of ``n_cells`` equal-width cells per feature over public ``[lower, upper]``.

    Cells have integer coordinates ``0 <= c_j < n_cells`` of type ``coord_dtype``. Derived
    once: ``n_features``, ``size`` (``n_cells**d``, a Python int), the cell ``width`` per
    feature, ``fits_int64`` (every cell has an int64 row-major code, with ``strides``, else
    None) and ``row_dtype`` (a ``void`` of one coordinate row: the cell key beyond int64).
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
            "n_features": d,
            "size": m**d,
            "width": (self.upper - self.lower) / m,
            "fits_int64": fits,
            "coord_dtype": coord_dtype,
            "strides": np.array([m ** (d - 1 - j) for j in range(d)], np.int64) if fits else None,
            "row_dtype": np.dtype((np.void, np.dtype(coord_dtype).itemsize * d)),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)  # frozen: set once, here

    def centres(self, coords) -> np.ndarray:
        """Centres ``q`` of the cells at ``coords`` (float64)."""
        return self.lower + (np.asarray(coords, dtype=np.float64) + 0.5) * self.width


def expected_positive_noise(epsilon: float) -> float:
    """``E[max(Z, 0)] = a / (1 − a²)`` for two-sided geometric Z, ``a = exp(-ε)``."""
    return math.exp(-epsilon) / -math.expm1(-2.0 * epsilon)


def choose_n_cells(
    class_size: float,
    epsilon: float,
    n_features: int,
    *,
    min_n_cells: int = AUTO_MIN_N_CELLS,
    max_n_cells: int = AUTO_MAX_N_CELLS,
    max_total_cells: int | None = None,
    share: float = _NOISE_MASS_SHARE,
) -> int:
    """Cells per feature ``m`` for ``granularity="auto"``: the largest ``m`` in range whose
    expected positive noise mass ``m**d · E[max(Z, 0)]`` is at most ``share · class_size``.

    The floor of 2 avoids collapsing phase 2 to one point; ``max_total_cells`` caps
    ``m**d`` (down to 1). ``class_size`` must be DP (or public), never the true count.
    """
    if n_features < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features}.")
    budget = share * float(class_size)
    per_cell = expected_positive_noise(epsilon)

    def allowed(k: int) -> bool:
        return max_total_cells is None or k**n_features <= max_total_cells

    # start near (budget / per_cell) ** (1/d), then correct with exact integer checks
    m = max_n_cells
    if budget <= 0:
        m = min_n_cells
    elif per_cell > 0:
        guess = int(math.exp((math.log(budget) - math.log(per_cell)) / n_features))
        m = min(max_n_cells, max(min_n_cells, guess))

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
    """Per run, the smallest over-sampled (else smallest) class size, from DP (or public) sizes."""
    sizes = np.atleast_2d(np.asarray(class_sizes, dtype=np.float64))
    n_new = np.atleast_2d(n_new)
    over = np.where(n_new > 0, sizes, np.inf).min(axis=1)
    return np.where(np.isfinite(over), over, sizes.min(axis=1))


class GridChoice(NamedTuple):
    """The grid the histograms are released on, chosen after the class-size release."""

    grid: Grid
    kind: str  # "dense" or "sparse"
    offsets: object  # the ℓ-ball of the grid (None when no class is over-sampled)
    # the dense grid's expected positive noise mass size · E[max(Z, 0)], which the dense
    # histograms' warning compares with each class size
    noise_mass: float


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
    """The grid of one fit from public bounds and DP (or public) class sizes.

    Builds the ℓ-ball here, so a ball too large is refused before the histograms' charge.
    """
    grid, kind = grid_for(steps, bounds, auto_class_size(class_sizes, n_new)[0])
    offsets = None
    if np.any(n_new > 0):
        offsets = ball_offsets(grid.n_features, steps.connectivity, grid.n_cells)
    return GridChoice(grid, kind, offsets, grid.size * expected_positive_noise(steps.split[1]))


# -- the ℓ-ball (Definition 3.2): refused when too large, before any charge --------------
def n_ball_offsets(n_features: int, connectivity: int, n_cells: int) -> int:
    """Number of offsets with L1 norm ``<= connectivity`` and each |entry| < n_cells,
    counted without listing them (a ball too large is refused at once)."""
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
        raise naming(
            ValueError,
            f"`connectivity={connectivity}` with {n_features} features gives an ℓ-ball of {n} "
            f"grid offsets (limit {_MAX_OFFSETS}); use a smaller `connectivity`.",
        )


def _magnitudes(k: int, connectivity: int, n_cells: int) -> list:
    top = min(connectivity, n_cells - 1)
    return [m for m in itertools.product(range(1, top + 1), repeat=k) if sum(m) <= connectivity]


@functools.lru_cache(maxsize=16)
def ball_offsets(n_features: int, connectivity: int, n_cells: int):
    """Offsets of L1 norm ``<= ℓ`` (Definition 3.2), the centre first; read-only, cached.

    Returns ``(dense, support, delta)``: the offsets (n_offsets, d), and per offset
    the features it moves and by how much (0 = padding).
    """
    check_ball_size(n_features, connectivity, n_cells)
    s = max(1, min(n_features, connectivity))  # at most ℓ features move
    dense_parts = [np.zeros((1, n_features), np.int32)]  # the centre
    support_parts, delta_parts = [np.zeros((1, s), np.int64)], [np.zeros((1, s), np.int32)]
    for k in range(1, min(n_features, connectivity) + 1):
        mags = _magnitudes(k, connectivity, n_cells)
        if not mags:
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
    out = (np.concatenate(dense_parts), np.concatenate(support_parts), np.concatenate(delta_parts))
    for arr in out:  # cached and shared between fits: read-only
        arr.flags.writeable = False
    return out
