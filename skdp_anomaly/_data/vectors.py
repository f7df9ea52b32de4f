"""One value per item, held by the workers: read, mapped, reduced, split and persisted.

Blockwise graphs for the noisy group search's vector over dask items; the client receives a
few numbers per call. Functions passed in must be module-level (picklable).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ..exceptions import naming
from ._dask import import_dask


def _modules(owner: str = "a dask collection"):
    dask = import_dask(owner)
    import dask.array as da

    return dask, da


# ------------------------------------------------------------------ input
def read_values(X, row_map: Callable | None, *, owner: str, invalid: str, min_items: int = 1):
    """``(values, n_features, feature_names or None)``: one value per row of a dask ``X`` (its
    one column, or ``row_map`` of its rows), checked in one blockwise pass (``invalid`` for a
    non-finite or negative value) and persisted with known chunk sizes."""
    _, da = _modules(f"{owner} on a dask collection")
    names = None
    if hasattr(X, "to_dask_array"):  # DataFrame or Series: lengths come from the pass below
        if X.ndim == 2:
            _check_numeric(list(X.dtypes), "DataFrame columns")
            if all(isinstance(c, str) for c in X.columns):
                names = np.asarray(list(X.columns), dtype=object)
        else:
            _check_numeric([X.dtype], "Series")
        X = X.to_dask_array()
    if not isinstance(X, da.Array):
        raise TypeError(
            f"{owner} takes a dask array, DataFrame or Series on the "
            f"dask path, got {type(X).__name__}."
        )
    _check_numeric([X.dtype], "array")
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(
            f"Expected a 2-D dask array of shape (n_samples, n_features), got {X.ndim} dimensions."
        )
    n_features = int(X.shape[1])
    if row_map is None and n_features != 1:
        raise naming(
            ValueError,
            f"X has {n_features} columns: pass one column of anomaly scores, or a "
            "`score_func` that maps rows to scores.",
        )
    X = X.astype(np.float64)
    if row_map is None:
        values = X[:, 0]
    else:
        values = X.rechunk({1: -1}).map_blocks(
            _apply_row_map, row_map, drop_axis=1, dtype=np.float64
        )
    values = values.persist()
    n_blocks = values.numblocks[0]
    # one pass: each block's length (n and the chunk sizes) and its count of invalid values
    checks = da.map_blocks(
        _check_block, values, new_axis=[1], dtype=np.int64, chunks=((1,) * n_blocks, (2,))
    ).compute()
    lengths, bad = checks[:, 0], checks[:, 1]
    if bad.any():
        raise ValueError(invalid)
    n = int(lengths.sum())
    if n < min_items:
        raise ValueError(
            f"Found array with {n} sample(s) while a minimum of {min_items} is required by {owner}."
        )
    values = da.Array(
        values.dask, values.name, (tuple(int(v) for v in lengths),), meta=values._meta
    )
    return values, n_features, names


def _check_numeric(dtypes, what):
    for dtype in dtypes:
        try:
            numeric = np.issubdtype(np.dtype(dtype), np.number) or np.dtype(dtype) == bool
        except TypeError:  # a pandas extension dtype (strings, categories)
            numeric = False
        if not numeric:
            raise ValueError(f"dask {what} must hold numbers (anomaly scores), got dtype {dtype}.")


def _apply_row_map(block, row_map):
    values = np.asarray(row_map(block), dtype=np.float64).reshape(-1)
    if values.shape != (block.shape[0],):
        raise naming(
            ValueError,
            f"`score_func` returned shape {values.shape} on a block of {block.shape[0]} rows; "
            f"expected one score per row, ({block.shape[0]},).",
        )
    return values


def _check_block(values):
    bad = np.count_nonzero(~(np.isfinite(values) & (values >= 0)))
    return np.array([[values.shape[0], bad]], dtype=np.int64)


# ------------------------------------------------------------------ reductions
def blockwise_statistic(func: Callable, width: int, values, mask) -> tuple:
    """Per block ``func(values, mask)`` (``width`` maxima), then the maximum over blocks."""
    _, da = _modules()
    chunks = ((1,) * values.numblocks[0], (width,))
    per_block = da.map_blocks(
        _statistic_block, values, mask, func, width, new_axis=[1], chunks=chunks, dtype=np.float64
    )
    return tuple(float(v) for v in per_block.max(axis=0).compute())


def _statistic_block(values, mask, func, width):
    return np.asarray(func(values, mask), dtype=np.float64).reshape(1, width)


def top_indices_and_total(f, k: int, largest: Callable):
    """The indices of the ``k`` largest entries of ``f`` (numpy) and its sum, in one pass. Not
    ``da.argtopk``, which fails when ``k`` is at least a combined length."""
    dask, _ = _modules()
    offsets = np.cumsum((0,) + f.chunks[0][:-1])
    parts = [
        dask.delayed(_block_top)(block, k, int(offset), largest)
        for block, offset in zip(f.to_delayed().ravel(), offsets)
    ]
    return dask.compute(dask.delayed(_merge_top)(parts, k, largest), f.sum())


def _block_top(f, k, offset, largest):
    top = largest(f, k) if f.size else np.zeros(0, dtype=np.int64)
    return f[top], top + offset


def _merge_top(parts, k, largest):
    values = np.concatenate([v for v, _ in parts])
    index = np.concatenate([i for _, i in parts]).astype(np.int64)
    return index[largest(values, k)]


# ------------------------------------------------------------------ vectors
def constant_vector(chunks, value: float):
    """A persisted float64 vector of ``value``, chunked as ``chunks``."""
    _, da = _modules()
    n = int(sum(chunks[0]))
    return da.full((n,), value, chunks=chunks, dtype=np.float64).persist()


def zeros_like(f, dtype):
    """A lazy vector of zeros chunked like ``f``."""
    _, da = _modules()
    return da.zeros(f.shape, chunks=f.chunks, dtype=dtype)


def reweighted(f, mask, w_in: float, w_out: float):
    """``f · (w_in where mask else w_out)``, persisted."""
    _, da = _modules()
    return (f * da.where(mask, w_in, w_out)).persist()


def flag_items(chunks, flagged):
    """A lazy int vector chunked as ``chunks``: -1 at the indices ``flagged``, +1 elsewhere."""
    _, da = _modules()
    index = da.arange(int(sum(chunks[0])), chunks=chunks)
    return index.map_blocks(_flag_block, np.asarray(flagged), dtype=int)


def _flag_block(index, flagged):
    return np.where(np.isin(index, flagged), -1, 1)


# ------------------------------------------------------------------ the ordered split
def ordered_prefix_split(f, entropy: tuple, n_buckets: int, prefix_rule: Callable) -> dict:
    """Order the items uniformly at random and cut a prefix by mass, in one round trip.

    Items draw uniform buckets; the bucket where the mass crosses 1/2 is ordered by uniform
    keys, and ``prefix_rule(before, ordered_masses, earlier)`` says how many of its items join.
    Returns ``mask`` (the prefix), its ``q_mass``, the ``total`` mass and ``max`` / ``total``.
    """
    dask, da = _modules()
    # explicit keys, unique per split and vector: cheaper than random ones
    token = dask.base.tokenize(f.name, entropy)
    call = functools.partial(_call, dask.delayed, token)
    bucket = f.map_blocks(_draw_buckets, entropy, n_buckets, dtype=np.uint16).persist()
    chunks = ((1,) * bucket.numblocks[0], (2,), (n_buckets,))
    per_block = da.map_blocks(
        _bucket_stats, bucket, f, n_buckets, new_axis=[1, 2], chunks=chunks, dtype=np.float64
    )
    stats = per_block.sum(axis=0)
    crossing = call("crossing", _crossing_bucket, stats.to_delayed().ravel()[0])
    members = [
        call(f"members-{i}", _crossing_members, b, w, crossing, entropy, i)
        for i, (b, w) in enumerate(zip(bucket.to_delayed().ravel(), f.to_delayed().ravel()))
    ]
    cut = call("cut", _cut, crossing, members, prefix_rule)
    top_entry = call("max", _first_value, f.max().to_delayed().ravel()[0])
    mask = da.map_blocks(_in_q, bucket, cut, entropy, dtype=bool)
    # one graph, not optimised apart, so that the shared reductions run once
    mask, cut = dask.persist(mask, cut, optimize_graph=False)
    (_, q_mass, total), top_entry = dask.compute(cut, top_entry)
    return {"mask": mask, "q_mass": q_mass, "total": total, "max": float(top_entry) / total}


def _call(delayed, token, name, func, *args):
    return delayed(func)(*args, dask_key_name=f"group-search-{name}-{token}")


def _first_value(value):
    return float(np.asarray(value).reshape(-1)[0])


def _block_rng(entropy, block: int, role: int) -> np.random.Generator:
    # role 0: buckets, role 1: keys of the crossing bucket; independent streams per block
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(block, role)))


def _draw_buckets(f, entropy, n_buckets, block_id=None):
    return _block_rng(entropy, block_id[0], 0).integers(
        0, n_buckets, size=f.shape[0], dtype=np.uint16
    )


def _bucket_stats(bucket, f, n_buckets):
    # row 0: the bucket masses; row 1: 1 at the block's lowest occupied bucket
    out = np.zeros((1, 2, n_buckets))
    out[0, 0] = np.bincount(bucket, weights=f, minlength=n_buckets)
    if bucket.size:
        out[0, 1, bucket.min()] = 1.0
    return out


def _crossing_bucket(stats):
    """``(c, mass before c, whether buckets before c hold items, total mass)``."""
    mass, lowest = stats
    total = float(mass.sum())
    mass = mass / total
    through = np.cumsum(mass)
    # the clip and the fallback guard against rounding in the cumulative sum
    c = min(int(np.searchsorted(through, 0.5, side="left")), mass.size - 1)
    if mass[c] == 0:
        c = int(np.flatnonzero(mass)[-1])
    return c, float(through[c] - mass[c]), bool(lowest[:c].any()), total


def _cut(crossing, members, prefix_rule):
    """``((c, key cut), prefix mass, total mass)`` from the caller's rule."""
    c, before, earlier, total = crossing
    keys = np.concatenate([k for k, _ in members])
    order = np.argsort(keys, kind="stable")
    ordered = np.concatenate([w for _, w in members])[order] / total
    k = prefix_rule(before, ordered, earlier)
    key_cut = float(keys[order[k]]) if k < keys.size else np.inf
    return (c, key_cut), before + float(ordered[:k].sum()), total


def _crossing_members(bucket, f, crossing, entropy, block):
    at = np.flatnonzero(bucket == crossing[0])
    return _block_rng(entropy, block, 1).random(at.size), f[at]


def _in_q(bucket, cut, entropy, block_id=None):
    (c, key_cut), _, _ = cut
    q = bucket < c
    at = np.flatnonzero(bucket == c)
    q[at] = _block_rng(entropy, block_id[0], 1).random(at.size) < key_cut
    return q
