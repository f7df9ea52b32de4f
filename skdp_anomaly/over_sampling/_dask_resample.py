"""DPSMOTE on Dask collections: one blockwise pass, the noise once on the client.

The private part of the Gaussian synopsis is a sum over records: each block
of rows contributes its per-class row counts and exact (fixed-point) unit-box
sums, the client adds the partial results, and from there on the release is
the in-memory code itself (``DPSMOTE._release_sizes`` and
``DPSMOTE._release_gaussian``: the same noise draws in the same order). The
synthetic rows are drawn on the workers, block by block, from the plan the
release returns (chunk seeds spawned in the same order as in memory), so the
in-memory and the Dask paths give the same rows bit for bit.

Nothing here is imported unless a dask collection reaches ``fit_resample``.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from .._dask import import_dask, is_dask_collection
from ..privacy import check_bounds
from ._gaussian import (
    SYNTHETIC_CHUNK,
    BoxScale,
    check_exact_sum_rows,
    class_fixed_sums,
    fill_gaussian,
)

__all__ = ["fit_resample_dask"]

_NOT_GAUSSIAN = (
    "DPSMOTE on dask collections supports synopsis='gaussian' (the default) only; the grid "
    "synopsis needs every class's occupied cells on one machine. Use synopsis='gaussian', or "
    "call .compute() on data that fit in memory."
)


def fit_resample_dask(est, X, y, classes):
    """``est.fit_resample(X, y)`` for dask arrays, or a dask DataFrame and Series.

    Returns dask collections: the original rows stay where they are, the
    synthetic rows are generated on the workers when the result is computed.
    ``classes`` is the checked public label set, or None.
    """
    import_dask("DPSMOTE.fit_resample on dask collections")
    if est.synopsis != "gaussian":
        raise NotImplementedError(_NOT_GAUSSIAN)
    Xa, ya, frame = _as_arrays(est, X, y)
    check_exact_sum_rows(Xa.shape[0])
    d = Xa.shape[1]
    lower, upper = _bounds(est, Xa)
    box = BoxScale(lower, upper)
    labels, sizes, sums = _class_statistics(Xa, ya, box, classes)
    classes = _label_set(labels, classes)
    true_sizes = np.zeros(classes.size, np.int64)
    fixed = np.zeros((classes.size, d), np.int64)
    where = np.searchsorted(classes, labels)
    true_sizes[where], fixed[where] = sizes, sums

    est.bounds_ = (lower, upper)
    plan, n_new, over_sampled = est._release_gaussian_plan(classes, true_sizes, box, d,
                                                           lambda wanted: fixed)
    X_res, y_res = _lazy_output(Xa, ya, plan, float(est.spread), box)
    est._finish_fit(n_new, over_sampled)
    if frame is not None:
        return _to_frames(X_res, y_res, *frame)
    return X_res, y_res


# -- inputs ----------------------------------------------------------------------------
def _as_arrays(est, X, y):
    """Dask arrays (rows chunked alike, one column chunk) and the DataFrame metadata."""
    import dask.array as da
    import dask.dataframe as dd

    from ._dpsmote import _NON_NUMERIC

    frame = None
    if isinstance(X, dd.DataFrame):
        bad = [str(c) for c, dt in X.dtypes.items() if getattr(dt, "kind", "O") not in "biuf"]
        if bad:
            raise ValueError(_NON_NUMERIC.format(what=f"non-numeric columns {bad[:5]}"))
        est.feature_names_in_ = np.asarray(X.columns, dtype=object)
        frame = (list(X.columns), dict(X.dtypes), getattr(y, "name", None))
        Xa = X.to_dask_array(lengths=True)
    elif is_dask_collection(X):
        Xa = X if isinstance(X, da.Array) else da.asarray(X)
    else:
        Xa = da.from_array(np.asarray(X))
    if Xa.ndim != 2:
        raise ValueError(f"Expected a 2D array for X, got {Xa.ndim}D (shape {Xa.shape}).")
    if Xa.dtype.kind not in "biuf":
        raise ValueError(_NON_NUMERIC.format(what=f"X has dtype {Xa.dtype}"))
    if isinstance(y, (dd.Series, dd.DataFrame)):
        ya = y.to_dask_array(lengths=True)
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
    est.n_features_in_ = Xa.shape[1]
    return Xa, ya, frame


def _bounds(est, Xa):
    """The public bounds, or (with a PrivacyLeakWarning) the data's, by a dask reduction."""
    import dask
    import dask.array as da

    if est.bounds is not None:
        return check_bounds(est.bounds, n_features=Xa.shape[1])
    lo, hi = dask.compute(da.nanmin(Xa, axis=0), da.nanmax(Xa, axis=0))
    # check_bounds warns and handles constant features; the two rows have the data's extremes
    return check_bounds(None, np.vstack([lo, hi]), n_features=Xa.shape[1])


# -- the one pass over the data -------------------------------------------------------
def _block_statistics(X_block, y_block, lower, upper, classes):
    """Per-label row counts and exact unit-box sums of one block (private, never stored)."""
    from ._dpsmote import _unique_codes

    if classes is None:
        labels, codes = _unique_codes(y_block)
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


def _class_statistics(Xa, ya, box, classes):
    """One pass: each block's statistics computed where it lives, added on the client."""
    import dask

    lower, upper = box.centre - box.half_range, box.centre + box.half_range
    tasks = [dask.delayed(_block_statistics, pure=True)(xb, yb, lower, upper, classes)
             for xb, yb in zip(Xa.to_delayed().ravel(), ya.to_delayed().ravel())]
    parts = dask.compute(*tasks)
    if sum(p[3] for p in parts):
        raise ValueError("Input X contains NaN or infinity.")
    if sum(p[4] for p in parts):
        raise ValueError(
            "y contains at least one label that is not in the 'classes' parameter (the labels "
            "are not listed here, to keep them out of logs)."
        )
    labels = np.unique(np.concatenate([p[0] for p in parts]))
    sizes = np.zeros(labels.size, np.int64)
    sums = np.zeros((labels.size, Xa.shape[1]), np.int64)
    for block_labels, block_sizes, block_sums, _, _ in parts:
        where = np.searchsorted(labels, block_labels)
        np.add.at(sizes, where, block_sizes)
        np.add.at(sums, where, block_sums)
    present = sizes > 0
    return labels[present], sizes[present], sums[present]


def _label_set(labels, classes):
    """The public label set, or the labels present (checked as in memory)."""
    check_classification_targets(labels)
    if classes is not None:
        return classes
    if labels.size <= 1:
        raise ValueError(
            f"The target 'y' needs to have more than 1 class. Got {labels.size} class instead. "
            "Pass the public label set as 'classes' to fit when a class may be absent."
        )
    return labels


# -- the output -----------------------------------------------------------------------
def _draw_block(mean, spread, lower, upper, seeds, rows, dtype):
    out = np.empty((rows, mean.shape[0]), dtype=dtype)
    return fill_gaussian(mean, spread, BoxScale(lower, upper), seeds, out)


def _lazy_output(Xa, ya, plan, spread, box):
    """The original rows, then each class's synthetic rows drawn block by block on the workers."""
    import dask
    import dask.array as da

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
    return da.concatenate(X_parts, axis=0), da.concatenate(y_parts, axis=0)


def _to_frames(X_res, y_res, columns, dtypes, name):
    """A dask DataFrame and Series, with the input's columns and dtypes (as imblearn does)."""
    import dask.dataframe as dd

    X_frame = dd.from_dask_array(X_res, columns=columns).astype(dtypes)
    y_series = dd.from_dask_array(y_res)
    if name is not None:
        y_series = y_series.rename(name)
    return X_frame, y_series
