"""DPSMOTE on Dask collections: the statistics in one blockwise pass, the output on the workers.

This module reads and writes data, and releases nothing: each block of rows
contributes its per-class row counts, its exact (fixed-point) unit-box sums
and its count of non-finite values, and the client adds the partial results
(:func:`class_statistics`). :class:`~._dpsmote.DPSMOTE` then releases from
those statistics with its in-memory code (the same noise draws in the same
order) and sets its attributes; :func:`write_resampled` draws the synthetic
rows on the workers, block by block, from the plan of that release (chunk
seeds spawned in the same order as in memory), so the in-memory and the Dask
paths give the same rows bit for bit.

Nothing here is imported unless a dask collection reaches ``fit_resample``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._dask import import_dask, is_dask_collection
from ._gaussian import SYNTHETIC_CHUNK, BoxScale, class_fixed_sums, fill_gaussian
from ._inputs import NON_NUMERIC, non_numeric_columns
from ._strategy import unique_codes

__all__ = ["NOT_GAUSSIAN", "ClassStatistics", "DaskInput", "class_statistics",
           "feature_extremes", "read_input", "write_resampled"]

NOT_GAUSSIAN = (
    "DPSMOTE on dask collections supports synopsis='gaussian' (the default) only; the grid "
    "synopsis needs every class's occupied cells on one machine. Use synopsis='gaussian', or "
    "call .compute() on data that fit in memory."
)


class DaskInput(NamedTuple):
    """Dask arrays (rows chunked alike, one column chunk) and a DataFrame's metadata."""

    X: object
    y: object
    frame: tuple | None
    """``(columns, dtypes, name of y)`` when X is a dask DataFrame, else None."""


class ClassStatistics(NamedTuple):
    """What the release needs from the data, summed over the blocks (private, never stored)."""

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


# -- inputs ----------------------------------------------------------------------------
def read_input(X, y) -> DaskInput:
    """``X`` and ``y`` as dask arrays, checked for shape and numeric features (no data read)."""
    import_dask("DPSMOTE.fit_resample on dask collections")
    import dask.array as da
    import dask.dataframe as dd

    frame = None
    if isinstance(X, dd.DataFrame):
        bad = non_numeric_columns(X.columns, X.dtypes)
        if bad:
            raise ValueError(NON_NUMERIC.format(what=f"non-numeric columns {bad[:5]}"))
        frame = (list(X.columns), dict(X.dtypes), getattr(y, "name", None))
        Xa = _frame_array(X)
    elif is_dask_collection(X):
        Xa = X if isinstance(X, da.Array) else da.asarray(X)
    else:
        Xa = da.from_array(np.asarray(X))
    if Xa.ndim != 2:
        raise ValueError(f"Expected a 2D array for X, got {Xa.ndim}D (shape {Xa.shape}).")
    if Xa.dtype.kind not in "biuf":
        raise ValueError(NON_NUMERIC.format(what=f"X has dtype {Xa.dtype}"))
    if isinstance(y, (dd.Series, dd.DataFrame)):
        ya = _frame_array(y)
    elif is_dask_collection(y):
        ya = y
    else:
        ya = np.asarray(y)
    if ya.ndim == 2 and ya.shape[1] == 1:
        ya = ya[:, 0]
    if ya.ndim != 1:
        raise ValueError(f"y must be 1-D on dask input (got shape {ya.shape}); one-hot targets "
                         "are supported in memory only.")
    if np.isnan(Xa.shape[0]) or np.isnan(ya.shape[0]):
        Xa, ya = Xa.compute_chunk_sizes(), ya.compute_chunk_sizes()
    if Xa.shape[0] != ya.shape[0]:
        raise ValueError("Found input variables with inconsistent numbers of samples: "
                         f"[{Xa.shape[0]}, {ya.shape[0]}]")
    if Xa.shape[0] < 1 or Xa.shape[1] < 1:
        raise ValueError(f"Found array with shape {Xa.shape}: DPSMOTE needs at least one row "
                         "and one feature.")
    if Xa.dtype != np.float32:
        Xa = Xa.astype(np.float64)
    Xa = Xa.rechunk({1: -1})
    ya = da.asarray(ya).rechunk((Xa.chunks[0],))
    return DaskInput(Xa, ya, frame)


def _frame_array(frame):
    """A dask DataFrame or Series as a dask array, its chunk sizes known.

    ``to_dask_array(lengths=True)`` fails on a frame whose partitions dask
    has fused (small parquet files read together: "2 != 4"); the array's
    own chunk sizes, computed after, are right in every case.
    """
    return frame.to_dask_array().compute_chunk_sizes()


def feature_extremes(Xa) -> np.ndarray:
    """(2, d): each feature's minimum and maximum, by a dask reduction (private).

    For bounds left None: the caller turns them into bounds with a
    PrivacyLeakWarning, as in memory.
    """
    import dask
    import dask.array as da

    lo, hi = dask.compute(da.nanmin(Xa, axis=0), da.nanmax(Xa, axis=0))
    return np.vstack([lo, hi])


# -- the one pass over the data -------------------------------------------------------
def _block_statistics(X_block, y_block, lower, upper, classes):
    """Per-label row counts and exact unit-box sums of one block (private, never stored)."""
    if classes is None:
        labels, codes = unique_codes(y_block)
        unknown = 0
    else:
        codes = np.searchsorted(classes, y_block)
        known = classes[np.minimum(codes, classes.size - 1)] == y_block
        unknown = int(np.count_nonzero(~known))
        codes = np.minimum(codes, classes.size - 1)
        labels = classes
    codes = np.asarray(codes, np.int64).reshape(-1)
    sizes = np.bincount(codes, minlength=labels.size)
    sums, n_bad = class_fixed_sums(X_block, codes, labels.size, np.arange(labels.size),
                                   BoxScale(lower, upper))
    return labels, sizes, sums, n_bad, unknown


def class_statistics(Xa, ya, box: BoxScale, classes) -> ClassStatistics:
    """One pass: each block's statistics computed where it lives, added on the client.

    ``classes`` is the public label set (sorted) or None. Labels with no row
    are left out.
    """
    import dask

    lower, upper = box.centre - box.half_range, box.centre + box.half_range
    tasks = [dask.delayed(_block_statistics, pure=True)(xb, yb, lower, upper, classes)
             for xb, yb in zip(Xa.to_delayed().ravel(), ya.to_delayed().ravel())]
    parts = dask.compute(*tasks)
    labels = np.unique(np.concatenate([p[0] for p in parts]))
    sizes = np.zeros(labels.size, np.int64)
    sums = np.zeros((labels.size, Xa.shape[1]), np.int64)
    for block_labels, block_sizes, block_sums, _, _ in parts:
        where = np.searchsorted(labels, block_labels)
        np.add.at(sizes, where, block_sizes)
        np.add.at(sums, where, block_sums)
    present = sizes > 0
    return ClassStatistics(labels[present], sizes[present], sums[present],
                           int(sum(p[3] for p in parts)), int(sum(p[4] for p in parts)))


# -- the output -----------------------------------------------------------------------
def _draw_block(mean, spread, lower, upper, seeds, rows, dtype):
    out = np.empty((rows, mean.shape[0]), dtype=dtype)
    return fill_gaussian(mean, spread, BoxScale(lower, upper), seeds, out)


def write_resampled(data: DaskInput, plan, spread: float, box: BoxScale):
    """The original rows, then each draw's synthetic rows, drawn block by block on the workers.

    ``plan`` is the release's list of :class:`~._gaussian.GaussianDraw`.
    Returns dask arrays, or a dask DataFrame and Series with the input's
    columns and dtypes (as imblearn does) when X was a dask DataFrame.
    """
    import dask
    import dask.array as da

    Xa, ya = data.X, data.y
    d, dtype = Xa.shape[1], Xa.dtype
    lower, upper = box.centre - box.half_range, box.centre + box.half_range
    # synthetic blocks about as large as the input's, in whole seed chunks
    per_block = max(1, int(np.median(Xa.chunks[0])) // SYNTHETIC_CHUNK)
    X_parts, y_parts = [Xa], [ya]
    for label, mean, seeds, rows in plan:
        for b in range(0, len(seeds), per_block):
            block_seeds = seeds[b:b + per_block]
            block_rows = min(rows - b * SYNTHETIC_CHUNK, len(block_seeds) * SYNTHETIC_CHUNK)
            task = dask.delayed(_draw_block, pure=True)(mean, spread, lower, upper, block_seeds,
                                                        block_rows, dtype)
            X_parts.append(da.from_delayed(task, shape=(block_rows, d), dtype=dtype))
            y_parts.append(da.full(block_rows, label, dtype=ya.dtype, chunks=block_rows))
    X_res, y_res = da.concatenate(X_parts, axis=0), da.concatenate(y_parts, axis=0)
    if data.frame is not None:
        return _to_frames(X_res, y_res, *data.frame)
    return X_res, y_res


def _to_frames(X_res, y_res, columns, dtypes, name):
    """A dask DataFrame and Series, with the input's columns and dtypes (as imblearn does)."""
    import dask.dataframe as dd

    X_frame = dd.from_dask_array(X_res, columns=columns).astype(dtypes)
    y_series = dd.from_dask_array(y_res)
    if name is not None:
        y_series = y_series.rename(name)
    return X_frame, y_series
