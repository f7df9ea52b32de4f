"""DPSMOTE's statistics: what the releases read from the data (private, never stored).

Class sizes, the Gaussian synopsis's class sums and the grid's cell coordinates, in memory or block
by block. A row, mapped to the unit box of the public bounds, moves a class sum by at most ``d`` in
L1; coordinates are rounded to multiples of ``2^-32`` (still in the box: the sensitivity is
unchanged) and summed as int64 (associative: the in-memory and Dask paths give the same integers).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from .._data.blocks import column_extremes, row_block_results
from .._jit import lazy_njit
from ..exceptions import naming
from ..privacy._validation import check_bounds
from ._release import FIXED_BITS, FIXED_SCALE, fixed_to_float
from ._setting import UNKNOWN_LABEL, unique_codes

njit = lazy_njit(globals())  # compiled at the first call: importing needs no numba

#: the fixed-point sums are exact for up to 2^(62 - 32) ≈ 10^9 rows
MAX_EXACT_SUM_ROWS = 1 << (62 - FIXED_BITS)


class BoxScale:
    """The affine map of the public bounds onto the unit box ``[-1, 1]^d``."""

    def __init__(self, lower, upper):
        self.centre = (np.asarray(upper, np.float64) + np.asarray(lower, np.float64)) / 2.0
        self.half_range = (np.asarray(upper, np.float64) - np.asarray(lower, np.float64)) / 2.0
        # a feature whose bounds coincide carries no information: map it to 0
        self._flat = ~(self.half_range > 0)
        self._safe = np.where(self._flat, 1.0, self.half_range)

    def to_unit(self, X) -> np.ndarray:
        U = (np.asarray(X, np.float64) - self.centre) / self._safe
        np.clip(U, -1.0, 1.0, out=U)
        U[..., self._flat] = 0.0
        return U

    def from_unit(self, U) -> np.ndarray:
        return U * self.half_range + self.centre


class Statistics(NamedTuple):
    """What the releases read from the data (private, never stored)."""

    classes: np.ndarray
    """The label set: the public ``classes``, or the labels present in ``y``."""
    sizes: np.ndarray
    """Rows per class of ``classes`` (int64)."""
    fixed_sums: np.ndarray | None
    """(n_classes, d) exact unit-box sums in units of ``2^-32``; None for the grid."""
    bounds: tuple
    """``(lower, upper)``: the public bounds, or (leak warning) the data's."""
    box: BoxScale | None
    """The unit box of ``bounds`` (Gaussian synopsis)."""


def unit_fixed_sum(X_class, box: BoxScale) -> np.ndarray:
    """Exact int64 sum of a block's rows in the unit box, in units of ``2^-32`` (private)."""
    if X_class.shape[0] == 0:
        return np.zeros(box.centre.shape[0], np.int64)
    U = box.to_unit(X_class)
    U *= FIXED_SCALE
    np.rint(U, out=U)
    return U.astype(np.int64).sum(axis=0)


def unit_sum(X_class, box: BoxScale) -> np.ndarray:
    """Sum of a class's rows in the unit box (private: never stored)."""
    return fixed_to_float(unit_fixed_sum(X_class, box))


@njit(cache=True, nogil=True)
def _class_fixed_sums(X, codes, wanted, centre, safe, flat, sums):  # pragma: no cover
    # unit_fixed_sum of every wanted class in one pass (same IEEE operations, same integers)
    bad = 0
    for i in range(X.shape[0]):
        c = codes[i]
        if not wanted[c]:
            continue
        for j in range(X.shape[1]):
            x = X[i, j]
            if not np.isfinite(x):
                bad += 1
                continue
            if flat[j]:
                continue
            u = (x - centre[j]) / safe[j]
            if u < -1.0:
                u = -1.0
            elif u > 1.0:
                u = 1.0
            sums[c, j] += np.int64(np.rint(u * FIXED_SCALE))
    return bad


def class_fixed_sums(X, codes, n_classes: int, wanted, box: BoxScale):
    """``(sums, n_non_finite)``: :func:`unit_fixed_sum` of each wanted class (private)."""
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    sums = np.zeros((n_classes, X.shape[1]), np.int64)
    wanted_mask = np.zeros(n_classes, np.bool_)
    wanted_mask[np.asarray(wanted, np.int64)] = True
    codes = np.ascontiguousarray(codes, np.int64)
    bad = _class_fixed_sums(X, codes, wanted_mask, box.centre, box._safe, box._flat, sums)
    return sums, int(bad)


def check_exact_sum_rows(n_rows: int) -> None:
    """Refuse more rows than fixed-point sums hold exactly (on ``n_rows``, never a class size)."""
    if n_rows >= MAX_EXACT_SUM_ROWS:
        raise ValueError(
            f"DPSMOTE's Gaussian synopsis sums at most {MAX_EXACT_SUM_ROWS} rows "
            f"exactly; X has {n_rows}. Resample a part of the data at a time."
        )


# -- the statistics of one fit ------------------------------------------------------------
def read_statistics(X, y, classes, bounds_param, gaussian: bool) -> Statistics:
    """The class sizes (and, if ``gaussian``, the exact class sums) of validated rows.

    ``y``: class indices in memory, labels on dask. ``classes`` None on dask means
    the labels present; ``bounds_param`` None reads the data's extremes (leak warning).
    """
    n_samples, d = X.shape
    if gaussian:
        check_exact_sum_rows(n_samples)  # before any release
    extremes = X if bounds_param is not None else column_extremes(X)
    bounds = check_bounds(bounds_param, extremes, n_features=d)
    box = BoxScale(*bounds) if gaussian else None
    if isinstance(y, np.ndarray) and classes is not None and isinstance(X, np.ndarray):
        sizes = np.bincount(y, minlength=classes.size)
        sums = None
        if gaussian:
            sums = class_fixed_sums(X, y, classes.size, np.arange(classes.size), box)[0]
        return Statistics(classes, sizes, sums, bounds, box)
    stats = class_statistics(X, y, box, classes)
    if stats.n_non_finite:
        raise ValueError("Input X contains NaN or infinity.")
    if stats.n_unknown:
        raise naming(ValueError, UNKNOWN_LABEL)
    check_classification_targets(stats.labels)
    labels = stats.labels if classes is None else classes
    sizes = np.zeros(labels.size, np.int64)
    sums = np.zeros((labels.size, d), np.int64)
    where = np.searchsorted(labels, stats.labels)
    sizes[where], sums[where] = stats.sizes, stats.fixed_sums
    return Statistics(labels, sizes, sums, bounds, box)


class ClassStatistics(NamedTuple):
    """Per-label statistics summed over the blocks (private, never stored)."""

    labels: np.ndarray
    """The labels present, sorted."""
    sizes: np.ndarray
    """Rows per label."""
    fixed_sums: np.ndarray
    """(n_labels, d) exact unit-box sums in units of ``2^-32`` (:func:`class_fixed_sums`)."""
    n_non_finite: int
    """Non-finite values met in X."""
    n_unknown: int
    """Rows whose label is not in the public label set (0 without one)."""


def _block_statistics(X_block, y_block, centre, half_range, classes):
    """Per-label row counts and exact unit-box sums of one block (private, never stored)."""
    if classes is None:
        labels, codes = unique_codes(y_block)
        unknown = 0
    else:
        codes = np.minimum(np.searchsorted(classes, y_block), classes.size - 1)
        labels, unknown = classes, int(np.count_nonzero(~(classes[codes] == y_block)))
    codes = np.asarray(codes, np.int64).reshape(-1)
    sizes = np.bincount(codes, minlength=labels.size)
    box = BoxScale(centre - half_range, centre + half_range)
    sums, n_bad = class_fixed_sums(X_block, codes, labels.size, np.arange(labels.size), box)
    return labels, sizes, sums, n_bad, unknown


def class_statistics(X, y, box: BoxScale, classes) -> ClassStatistics:
    """Each row block's statistics, computed where it lives, added here (empty labels dropped)."""
    parts = row_block_results(_block_statistics, X, y, box.centre, box.half_range, classes)
    labels = np.unique(np.concatenate([p[0] for p in parts]))
    sizes = np.zeros(labels.size, np.int64)
    sums = np.zeros((labels.size, X.shape[1]), np.int64)
    for block_labels, block_sizes, block_sums, _, _ in parts:
        where = np.searchsorted(labels, block_labels)
        np.add.at(sizes, where, block_sizes)
        np.add.at(sums, where, block_sums)
    present = sizes > 0
    n_bad, n_unknown = int(sum(p[3] for p in parts)), int(sum(p[4] for p in parts))
    return ClassStatistics(labels[present], sizes[present], sums[present], n_bad, n_unknown)


# -- the grid synopsis: the cells of a class's rows on the released grid ------------------
def cell_coordinates(grid, X) -> np.ndarray:
    """Cell coordinates of each row of ``X`` on ``grid``, rows outside going to the edge cells
    (private when ``X`` is: never stored)."""
    idx = np.floor((np.asarray(X, dtype=np.float64) - grid.lower) / grid.width)
    np.clip(idx, 0, grid.n_cells - 1, out=idx)
    return idx.astype(grid.coord_dtype)


def class_coordinates(grid, X, y_codes, wanted) -> list:
    """The grid cell coordinates of the rows of each wanted class (private, never stored)."""
    return [cell_coordinates(grid, X[y_codes == j]) for j in wanted]
