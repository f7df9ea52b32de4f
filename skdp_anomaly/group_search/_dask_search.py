"""The Dask side of :class:`NoisyGroupSearch`: blockwise pieces of the same search.

The searcher's loop, the likelihoods, the noise and the accounting are those
of the in-memory path; this module supplies only what touches per-item data
when that data is a dask array chunked by rows:

* :func:`dask_scores` — validation in one blockwise pass (n, finiteness,
  sign, the shape ``score_func`` returns), then the scores persisted;
* :class:`DaskPosterior` — the posterior over the items as a persisted dask
  array, with the split of eq. (10) as blockwise reductions and the Bayes
  update as a lazy blockwise product, persisted;
* :func:`blockwise_statistic` — a sensor statistic (the half maxima) as a
  per-block value reduced by ``max`` (defined in :mod:`._blockwise`, which the
  sensors import without importing this module);
* :func:`flag_candidates` — the labels of ``fit_predict``.

dask is imported inside the functions only: the package never imports it
unless the caller passed a dask collection (see :mod:`skdp_anomaly._dask`).
"""

from __future__ import annotations

import functools

import numpy as np

from .._dask import import_dask
from ._blockwise import blockwise_statistic
from ._posterior import largest, prefix_length

__all__ = ["DaskPosterior", "blockwise_statistic", "dask_scores", "flag_candidates"]

# at most this many buckets: uint16 bucket ids on the workers, bucket masses of 1 MB
# per block in the reduction, and a crossing bucket of about n / 2**16 items
MAX_BUCKETS = 2 ** 16


def _modules():
    import_dask("NoisyGroupSearch on a dask collection")
    import dask
    import dask.array as da
    return dask, da


# ------------------------------------------------------------------ input
def dask_scores(X, score_func):
    """Validated scores of a dask ``X`` as a persisted 1-D float64 dask array.

    Parameters
    ----------
    X : dask array of shape (n,) or (n, d), dask DataFrame or Series
        One column of scores, or rows that ``score_func`` maps to scores.
    score_func : callable or None
        Applied block by block (row-wise, so blocks of rows give the same
        scores as the whole array).

    Returns
    -------
    scores : dask array of shape (n,)
        Persisted, with known chunk sizes.
    n_features : int
        Columns of ``X``.
    feature_names : ndarray of str or None
        Column names of a DataFrame whose names are all strings.
    """
    dask, da = _modules()
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
        raise TypeError(f"NoisyGroupSearch takes a dask array, DataFrame or Series on the "
                        f"dask path, got {type(X).__name__}.")
    _check_numeric([X.dtype], "array")
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(f"Expected a 2-D dask array of shape (n_samples, n_features), got "
                         f"{X.ndim} dimensions.")
    n_features = int(X.shape[1])
    if score_func is None and n_features != 1:
        raise ValueError(f"X has {n_features} columns: pass one column of anomaly scores, "
                         "or a score_func that maps rows to scores.")
    X = X.astype(np.float64)
    if score_func is None:
        scores = X[:, 0]
    else:
        scores = X.rechunk({1: -1}).map_blocks(_apply_score_func, score_func, drop_axis=1,
                                               dtype=np.float64)
    scores = scores.persist()
    n_blocks = scores.numblocks[0]
    # one pass: each block's length (n and the chunk sizes) and its count of invalid scores
    checks = da.map_blocks(_check_block, scores, new_axis=[1], dtype=np.int64,
                           chunks=((1,) * n_blocks, (2,))).compute()
    lengths, invalid = checks[:, 0], checks[:, 1]
    if invalid.any():
        raise ValueError("anomaly scores must be finite and >= 0 (Bittner, Sarwate and "
                         "Wright, eq. 1).")
    n = int(lengths.sum())
    if n < 2:
        raise ValueError(f"Found array with {n} sample(s) while a minimum of 2 is required "
                         "by NoisyGroupSearch.")
    scores = da.Array(scores.dask, scores.name, (tuple(int(v) for v in lengths),),
                      meta=scores._meta)
    return scores, n_features, names


def _check_numeric(dtypes, what):
    for dtype in dtypes:
        try:
            numeric = np.issubdtype(np.dtype(dtype), np.number) or np.dtype(dtype) == bool
        except TypeError:  # a pandas extension dtype (strings, categories)
            numeric = False
        if not numeric:
            raise ValueError(f"dask {what} must hold numbers (anomaly scores), got dtype "
                             f"{dtype}.")


def _apply_score_func(block, score_func):
    scores = np.asarray(score_func(block), dtype=np.float64).reshape(-1)
    if scores.shape != (block.shape[0],):
        raise ValueError(f"score_func returned shape {scores.shape} on a block of "
                         f"{block.shape[0]} rows; expected one score per row, "
                         f"({block.shape[0]},).")
    return scores


def _check_block(scores):
    invalid = np.count_nonzero(~(np.isfinite(scores) & (scores >= 0)))
    return np.array([[scores.shape[0], invalid]], dtype=np.int64)


# ------------------------------------------------------------------ posterior
class DaskPosterior:
    """The search's belief over ``n`` items, held by the workers.

    The same contract as the in-memory belief of :class:`NoisyGroupSearch`
    (``max``, ``split``, ``update``). The posterior, the buckets and ``Q``
    are persisted dask arrays chunked like the scores; the client receives
    per query only the largest entry, the total, the mass of ``Q``.

    The split (eq. 10) orders the items by i.i.d. uniform (bucket, key) as the
    in-memory split does: each item draws a uniform bucket among ``B`` (from
    a seed per query and block, children of the split stream); the per-bucket
    masses, summed over blocks, locate the bucket ``c`` where the mass crosses
    1/2; its members draw uniform keys (another child seed per query and
    block) and are gathered and ordered in one task, which applies the prefix
    rule shared with the in-memory split; ``Q`` is the buckets before ``c``
    plus the members whose key is below the cut, recomputed on the workers
    from the same seeds. Ordering by (bucket, key) is ordering by i.i.d.
    uniforms, a uniform permutation, whatever ``B``. The split is one graph,
    computed in one round trip together with the largest entry; it reads the
    posterior only, so nothing about the scores is computed before the charge.

    Parameters
    ----------
    chunks : tuple
        Row chunks of the scores (known sizes).
    rng : numpy.random.Generator
        The split stream: one draw of 128 bits per query seeds every block.
    """

    def __init__(self, chunks, rng: np.random.Generator):
        _, da = _modules()
        n = int(sum(chunks[0]))
        self.f = da.full((n,), 1.0 / n, chunks=chunks, dtype=np.float64).persist()
        self._rng = rng
        self._n_buckets = min(max(1, n // 8), MAX_BUCKETS)
        self._drawn = None  # the next query's buckets, with the masses they give
        self._q_mass = self._total = None

    def max(self) -> float:
        """The largest posterior entry; the next query's split is drawn in the same pass."""
        return self._draw()["max"]

    @property
    def q_mass(self) -> float:
        """The mass of the last split's ``Q`` before its update (known on the client)."""
        return self._q_mass

    def split(self):
        """``Q`` of eq. (10): a persisted dask array of bool chunked like the scores."""
        drawn, self._drawn = self._draw(), None
        self._q_mass, self._total = drawn["q_mass"], drawn["total"]
        return drawn["mask"]

    def _draw(self):
        # The whole split is one graph run in one round trip: it reads the posterior
        # only (post-processing of earlier answers), so drawing it before the halting
        # test and the charge releases nothing about the scores.
        if self._drawn is None:
            dask, da = _modules()
            entropy = tuple(int(v) for v in self._rng.integers(0, 2 ** 32, size=4))
            # explicit keys, unique per query and posterior: cheaper than random ones
            token = dask.base.tokenize(self.f.name, entropy)
            call = functools.partial(_call, dask.delayed, token)
            n_buckets = self._n_buckets
            bucket = self.f.map_blocks(_draw_buckets, entropy, n_buckets,
                                       dtype=np.uint16).persist()
            stats = da.map_blocks(_bucket_stats, bucket, self.f, n_buckets, new_axis=[1, 2],
                                  chunks=((1,) * bucket.numblocks[0], (2,), (n_buckets,)),
                                  dtype=np.float64).sum(axis=0)
            crossing = call("crossing", _crossing_bucket, stats.to_delayed().ravel()[0])
            members = [call(f"members-{i}", _crossing_members, b, f, crossing, entropy, i)
                       for i, (b, f) in enumerate(zip(bucket.to_delayed().ravel(),
                                                      self.f.to_delayed().ravel()))]
            cut = call("cut", _cut, crossing, members)
            top_entry = call("max", _first_value, self.f.max().to_delayed().ravel()[0])
            mask = da.map_blocks(_in_q, bucket, cut, entropy, dtype=bool)
            # one graph, not optimised apart, so that the shared reductions run once
            mask, cut = dask.persist(mask, cut, optimize_graph=False)
            (_, q_mass, total), top_entry = dask.compute(cut, top_entry)
            self._drawn = {"mask": mask, "q_mass": q_mass, "total": total,
                           "max": float(top_entry) / total}
        return self._drawn

    def update(self, mask, log_ratio: float) -> None:
        """Bayes' rule (6) or (12), lazily, then persisted: the losing side scaled by
        ``e^{-|log_ratio|}``, normalised with the mass of ``Q`` known on the client."""
        _, da = _modules()
        shrink = float(np.exp(-abs(log_ratio)))
        w_q, w_rest = (shrink, 1.0) if log_ratio < 0 else (1.0, shrink)
        z = self._total * (w_q * self._q_mass + w_rest * (1.0 - self._q_mass))
        self.f = (self.f * da.where(mask, w_q / z, w_rest / z)).persist()

    def result(self, n_candidates: int):
        """The normalised posterior (lazy, over the persisted one), the indices of its
        ``n_candidates`` largest entries (numpy) and the groups (all 0, lazy)."""
        dask, da = _modules()
        top, total = dask.compute(_top_indices(self.f, int(n_candidates)), self.f.sum())
        groups = da.zeros(self.f.shape, chunks=self.f.chunks, dtype=np.int64)
        return self.f / float(total), top, groups


def _top_indices(f, k: int):
    """Delayed indices of the ``k`` largest entries of the 1-D dask array ``f``.

    Not ``da.argtopk``: its combine step returns its input unconcatenated when
    ``k`` is at least the combined length (e.g. chunks of 1, or ``n <= k``),
    and its aggregate then fails. Each block keeps its own ``k`` largest (few,
    whatever the chunking), and the client picks among those as in memory.
    """
    dask, _ = _modules()
    offsets = np.cumsum((0,) + f.chunks[0][:-1])
    parts = [dask.delayed(_block_top)(block, k, int(offset))
             for block, offset in zip(f.to_delayed().ravel(), offsets)]
    return dask.delayed(_merge_top)(parts, k)


def _block_top(f, k, offset):
    top = largest(f, k) if f.size else np.zeros(0, dtype=np.int64)
    return f[top], top + offset


def _merge_top(parts, k):
    values = np.concatenate([v for v, _ in parts])
    index = np.concatenate([i for _, i in parts]).astype(np.int64)
    return index[largest(values, k)]


def _call(delayed, token, name, func, *args):
    return delayed(func)(*args, dask_key_name=f"group-search-{name}-{token}")


def _first_value(value):
    return float(np.asarray(value).reshape(-1)[0])


def _block_rng(entropy, block: int, role: int) -> np.random.Generator:
    # role 0: buckets, role 1: keys of the crossing bucket; independent streams per block
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(block, role)))


def _draw_buckets(f, entropy, n_buckets, block_id=None):
    return _block_rng(entropy, block_id[0], 0).integers(0, n_buckets, size=f.shape[0],
                                                        dtype=np.uint16)


def _bucket_stats(bucket, f, n_buckets):
    # row 0: the bucket masses; row 1: 1 at the block's lowest occupied bucket, which
    # is all the split needs to know of the counts (whether buckets before c hold items)
    out = np.zeros((1, 2, n_buckets))
    out[0, 0] = np.bincount(bucket, weights=f, minlength=n_buckets)
    if bucket.size:
        out[0, 1, bucket.min()] = 1.0
    return out


def _crossing_bucket(stats):
    """The bucket where the mass crosses 1/2, the mass before it, whether the buckets
    before it hold any item, and the total mass."""
    mass, lowest = stats
    total = float(mass.sum())
    mass = mass / total
    through = np.cumsum(mass)
    # that bucket holds mass > 0, hence items; the clip and the fallback only guard
    # against rounding in the cumulative sum
    c = min(int(np.searchsorted(through, 0.5, side="left")), mass.size - 1)
    if mass[c] == 0:
        c = int(np.flatnonzero(mass)[-1])
    return c, float(through[c] - mass[c]), bool(lowest[:c].any()), total


def _cut(crossing, members):
    """The key below which the crossing bucket's items join ``Q``, the mass of ``Q``
    and the total mass: the members ordered by key, then the shared prefix rule."""
    c, before, earlier, total = crossing
    keys = np.concatenate([k for k, _ in members])
    order = np.argsort(keys, kind="stable")
    ordered = np.concatenate([w for _, w in members])[order] / total
    k = prefix_length(before, ordered, earlier)
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


# ------------------------------------------------------------------ labels
def flag_candidates(chunks, candidates):
    """Labels of ``fit_predict`` as a dask array: -1 for the candidates, +1 elsewhere."""
    _, da = _modules()
    index = da.arange(int(sum(chunks[0])), chunks=chunks)
    return index.map_blocks(_flag_block, np.asarray(candidates), dtype=int)


def _flag_block(index, candidates):
    return np.where(np.isin(index, candidates), -1, 1)
