"""Rows with labels, in blocks: read, reduced where they live, extended with drawn rows.

Module-level (picklable) functions run once per block on the workers; a numpy
array is one block, so both paths share their arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ._dask import import_dask, is_dask_collection
from ..privacy._validation import non_numeric_columns


class LabelledBlocks(NamedTuple):
    """Dask arrays ``X`` and ``y`` (rows chunked alike, one column chunk) and a frame's metadata."""

    X: object
    y: object
    frame: tuple | None
    """``(columns, dtypes, name of y)`` when X was a dask DataFrame, else None."""


def read_labelled_blocks(X, y, *, non_numeric: str, owner: str) -> LabelledBlocks:
    """``X`` and ``y`` as dask arrays, checked for shape and numeric features (float32 kept,
    else float64); reads no value but unknown partition lengths."""
    import_dask(f"{owner} on dask collections")
    import dask.array as da
    import dask.dataframe as dd

    frame = None
    if isinstance(X, dd.DataFrame):
        bad = non_numeric_columns(X.columns, X.dtypes)
        if bad:
            raise ValueError(non_numeric.format(what=f"non-numeric columns {bad[:5]}"))
        frame = (list(X.columns), dict(X.dtypes), getattr(y, "name", None))
        Xa = _frame_array(X)
    elif is_dask_collection(X):
        Xa = X if isinstance(X, da.Array) else da.asarray(X)
    else:
        Xa = da.from_array(np.asarray(X))
    if Xa.ndim != 2:
        raise ValueError(f"Expected a 2D array for X, got {Xa.ndim}D (shape {Xa.shape}).")
    if Xa.dtype.kind not in "biuf":
        raise ValueError(non_numeric.format(what=f"X has dtype {Xa.dtype}"))
    if isinstance(y, (dd.Series, dd.DataFrame)):
        ya = _frame_array(y)
    else:
        ya = y if is_dask_collection(y) else np.asarray(y)
    if ya.ndim == 2 and ya.shape[1] == 1:
        ya = ya[:, 0]
    if ya.ndim != 1:
        raise ValueError(
            f"y must be 1-D on dask input (got shape {ya.shape}); one-hot targets "
            "are supported in memory only."
        )
    if np.isnan(Xa.shape[0]) or np.isnan(ya.shape[0]):
        Xa, ya = Xa.compute_chunk_sizes(), ya.compute_chunk_sizes()
    if Xa.shape[0] != ya.shape[0]:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"[{Xa.shape[0]}, {ya.shape[0]}]"
        )
    if Xa.shape[0] < 1 or Xa.shape[1] < 1:
        raise ValueError(
            f"Found array with shape {Xa.shape}: {owner} needs at least one row and one feature."
        )
    if Xa.dtype != np.float32:
        Xa = Xa.astype(np.float64)
    Xa = Xa.rechunk({1: -1})
    ya = da.asarray(ya).rechunk((Xa.chunks[0],))
    return LabelledBlocks(Xa, ya, frame)


def _frame_array(frame):
    """A dask DataFrame or Series as a dask array, its chunk sizes known (not ``lengths=True``:
    it fails on frames whose partitions dask fused)."""
    return frame.to_dask_array().compute_chunk_sizes()


def column_extremes(X) -> np.ndarray:
    """(2, d) float64: each column's minimum and maximum (private: for bounds left None)."""
    if not is_dask_collection(X):
        X = np.asarray(X)
        return np.vstack([X.min(axis=0), X.max(axis=0)]).astype(np.float64)
    dask = import_dask("reading a dask collection")
    import dask.array as da

    lo, hi = dask.compute(da.nanmin(X, axis=0), da.nanmax(X, axis=0))
    return np.vstack([lo, hi]).astype(np.float64)


def row_block_results(func: Callable, X, y, *args) -> list:
    """``[func(X_block, y_block, *args) for each row block]``, computed where the blocks live
    (a numpy ``X`` is one block)."""
    if not is_dask_collection(X):
        return [func(X, y, *args)]
    dask = import_dask("reading a dask collection")
    tasks = [
        dask.delayed(func, pure=True)(xb, yb, *args)
        for xb, yb in zip(X.to_delayed().ravel(), y.to_delayed().ravel())
    ]
    return list(dask.compute(*tasks))


def typical_block_rows(X) -> int:
    """Rows of a typical block of ``X``: the median chunk on dask, all rows in memory."""
    if not is_dask_collection(X):
        return int(X.shape[0])
    return int(np.median(X.chunks[0]))


def append_drawn_rows(X, y, draws, frame: tuple | None = None):
    """``X`` and ``y`` followed by rows drawn block by block, where ``X`` lives.

    Each draw ``(fill, args, n_rows, label)`` calls ``fill(*args, out)`` to fill ``out`` with
    rows labelled ``label``. Arrays of the input's kind; with ``frame``, a dask DataFrame/Series.
    """
    d = X.shape[1]
    if not is_dask_collection(X):
        n = X.shape[0]
        total = n + sum(rows for _, _, rows, _ in draws)
        X_res = np.empty((total, d), dtype=X.dtype)
        y_res = np.empty(total, dtype=y.dtype)
        X_res[:n], y_res[:n] = X, y
        start = n
        for fill, args, rows, label in draws:
            fill(*args, X_res[start : start + rows])
            y_res[start : start + rows] = label
            start += rows
        return X_res, y_res
    dask = import_dask("writing a dask collection")
    import dask.array as da

    X_parts, y_parts = [X], [y]
    for fill, args, rows, label in draws:
        task = dask.delayed(_drawn_block, pure=True)(fill, args, rows, d, X.dtype)
        X_parts.append(da.from_delayed(task, shape=(rows, d), dtype=X.dtype))
        y_parts.append(da.full(rows, label, dtype=y.dtype, chunks=rows))
    X_res, y_res = da.concatenate(X_parts, axis=0), da.concatenate(y_parts, axis=0)
    if frame is None:
        return X_res, y_res
    import dask.dataframe as dd

    columns, dtypes, name = frame
    X_frame = dd.from_dask_array(X_res, columns=columns).astype(dtypes)
    y_series = dd.from_dask_array(y_res)
    return X_frame, (y_series if name is None else y_series.rename(name))


def _drawn_block(fill, args, rows, d, dtype) -> np.ndarray:
    out = np.empty((rows, d), dtype=dtype)
    fill(*args, out)
    return out


def map_row_blocks(func: Callable, X, *args, n_columns: int | None = None, dtype=np.float64):
    """``func(block, *args)`` on each row block of ``X``: lazily on dask, at once in memory.
    ``func`` is row-wise and picklable (blocks may have no rows); the result has one value per row,
    or ``n_columns`` columns."""
    if not is_dask_collection(X):
        return func(X, *args)
    if n_columns is None:
        layout = {"drop_axis": 1} if X.ndim == 2 else {}
    else:
        layout = {
            "chunks": (X.chunks[0], (int(n_columns),)),
            **({} if X.ndim == 2 else {"new_axis": 1}),
        }
    return X.map_blocks(func, *args, dtype=dtype, **layout)
