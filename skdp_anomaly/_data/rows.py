"""The data backend: validated rows of a numpy array, a dask array or a dask DataFrame.

:func:`read_rows` validates with scikit-learn's errors; :func:`block_sum` and :func:`bincount`
reduce integer statistics exactly, :func:`block_fsums` float ones (the same bits however the
rows are split). On dask, reductions run where the blocks live.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np
from sklearn.utils.validation import check_array, validate_data

from ._dask import import_dask, is_dask_collection
from ..privacy._validation import NON_NUMERIC, check_numeric

#: Rows per block of an in-memory array: a reduction's temporaries stay in cache
#: instead of growing with the array.
NUMPY_BLOCK_ROWS = 2**16


class Rows:
    """Validated 2-D float64 rows: a numpy array, or a dask array with one column chunk.
    ``n_samples`` is known even where dask's chunk sizes are not. Holds the data for one call only:
    never keep it in fitted state."""

    __slots__ = ("data", "n_features", "n_samples")

    def __init__(self, data, n_samples: int):
        self.data = data
        self.n_samples = int(n_samples)
        self.n_features = int(data.shape[1])

    @property
    def is_dask(self) -> bool:
        """Whether the rows are a dask array (read block by block where they live)."""
        return not isinstance(self.data, np.ndarray)

    @property
    def n_blocks(self) -> int:
        """Number of row blocks (of :data:`NUMPY_BLOCK_ROWS` rows for a numpy array)."""
        if self.is_dask:
            return int(self.data.numblocks[0])
        return max(1, -(-self.n_samples // NUMPY_BLOCK_ROWS))

    def blocks(self) -> Iterator[np.ndarray]:
        """Yield the row blocks in order as numpy arrays (views, or dask blocks one at a time)."""
        if self.is_dask:
            for i in range(self.n_blocks):
                yield np.asarray(self.data.blocks[i].compute())
        elif self.n_blocks == 1:
            yield self.data
        else:
            for start in range(0, self.n_samples, NUMPY_BLOCK_ROWS):
                yield self.data[start : start + NUMPY_BLOCK_ROWS]

    def __repr__(self) -> str:
        where = f"dask, {self.n_blocks} blocks" if self.is_dask else "numpy"
        return f"Rows(n_samples={self.n_samples}, n_features={self.n_features}, {where})"


def numpy_rows(X: np.ndarray) -> Rows:
    """Wrap a 2-D numpy array the estimator validated (no copy; read in blocks of rows).

    >>> numpy_rows(np.zeros((3, 2)))
    Rows(n_samples=3, n_features=2, numpy)
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"numpy_rows takes a 2-D array; got {X.ndim} dimensions.")
    return Rows(X, X.shape[0])


# ------------------------------------------------------------------ validation
def read_rows(
    X,
    estimator=None,
    *,
    reset: bool = True,
    ensure_min_samples: int = 1,
    column_if_1d: bool = False,
) -> Rows:
    """Validate a dask array, DataFrame or Series as rows, with scikit-learn's errors.

    ``validate_data`` checks the schema on a zero-row stand-in; one blockwise pass then
    counts rows, NaN and infinities, so bad input is refused before any budget is charged.
    Errors name no data value (hence non-numeric dtypes are refused).

    >>> import dask.array as da
    >>> read_rows(da.ones((10, 3), chunks=4))
    Rows(n_samples=10, n_features=3, dask, 3 blocks)
    >>> read_rows(da.from_array(np.array([[1.0], [np.nan]]), chunks=1))
    Traceback (most recent call last):
    ...
    ValueError: Input X contains NaN.
    """
    if not is_dask_collection(X):
        raise TypeError(
            f"read_rows takes a dask array, DataFrame or Series; got {type(X).__name__}: validate "
            "an in-memory array with the estimator's validate_data and wrap it with numpy_rows."
        )
    import_dask("reading a dask collection")
    owner = type(estimator).__name__ if estimator is not None else "read_rows"
    data, witness = _lazy_array(X, column_if_1d, owner)
    check_numeric(witness, owner)
    schema_only = {"dtype": np.float64, "ensure_min_samples": 0, "ensure_all_finite": False}
    if estimator is None:
        check_array(witness, **schema_only)
    else:
        validate_data(estimator, witness, reset=reset, **schema_only)
    data = data.astype(np.float64).rechunk({1: -1})
    n_samples, n_nan, n_inf = (int(v) for v in block_sum(Rows(data, 0), _finite_counts, shape=(3,)))
    # scikit-learn's own messages, raised on stand-ins that hold no data value
    if n_nan or n_inf:
        stand_in = np.array([[np.nan if n_nan else np.inf]])
        check_array(stand_in, estimator=estimator, input_name="X", dtype=np.float64)
    if n_samples < ensure_min_samples:
        stand_in = np.zeros((n_samples, data.shape[1]))
        check_array(stand_in, estimator=estimator, ensure_min_samples=ensure_min_samples)
    return Rows(data, n_samples)


def _lazy_array(X, column_if_1d: bool, owner: str):
    """``X`` as a lazy dask array, and a zero-row stand-in with its schema (numeric dtypes
    only: a failed conversion's message would quote a value)."""
    meta = getattr(X, "_meta", None)
    for name, dtype in _dtypes(X):
        if getattr(dtype, "kind", "O") not in "biufc":
            what, hint = f"{name} has dtype {dtype} on dask", _CAST
            raise ValueError(NON_NUMERIC.format(owner=owner, what=what, hint=hint))
    if hasattr(X, "to_dask_array"):  # a dask DataFrame or Series
        if X.ndim == 1:
            # as an in-memory Series: an array without a name (1-D unless column_if_1d)
            if not column_if_1d:
                return X.to_dask_array(), meta.to_numpy()
            X, meta = X.to_frame(), meta.to_numpy().reshape(-1, 1)
        # per partition, as check_array converts a pandas frame (nullable NA -> NaN)
        data = X.map_partitions(_frame_block, meta=np.empty((0, meta.shape[1])))
        return data, meta
    if X.ndim == 1 and column_if_1d:
        X = X[:, None]
    return X, np.empty((0, *X.shape[1:]), dtype=X.dtype)


_CAST = "Cast it to a numeric dtype before passing it."


def _dtypes(X) -> list:
    """(what, dtype) pairs to check before reading; a DataFrame's go to :func:`check_numeric`."""
    frame = hasattr(X, "to_dask_array")
    if frame and X.ndim == 2:
        return []
    return [("the Series" if frame else "X", X.dtype)]


def _frame_block(frame) -> np.ndarray:
    return frame.to_numpy(dtype=np.float64, na_value=np.nan)


def _finite_counts(block: np.ndarray) -> np.ndarray:
    return np.array(
        [block.shape[0], np.count_nonzero(np.isnan(block)), np.count_nonzero(np.isinf(block))],
        dtype=np.int64,
    )


# ------------------------------------------------------------------ reductions
def block_sum(rows: Rows, func: Callable, *args, shape: tuple) -> np.ndarray:
    """The sum over row blocks of an integer statistic ``func(block, *args)``, exactly.

    ``func`` is picklable and returns integers of ``shape`` (floats raise TypeError: their
    sum would depend on the order); on dask only the total reaches the client.

    >>> def positives(block):
    ...     return (block > 0).sum(axis=0)
    >>> block_sum(numpy_rows(np.array([[1.0, -1.0], [2.0, 3.0]])), positives, shape=(2,))
    array([2, 1])
    """
    shape = tuple(int(s) for s in shape)
    if not rows.is_dask:
        total = np.zeros(shape, dtype=np.int64)
        for block in rows.blocks():
            total += _integer_statistic(block, func, args, shape)
        return total
    data = rows.data
    chunks = ((1,) * data.numblocks[0], (math.prod(shape),))
    per_block = data.map_blocks(_block_statistic, func, args, shape, dtype=np.int64, chunks=chunks)
    return np.asarray(per_block.sum(axis=0, dtype=np.int64).compute()).reshape(shape)


def _integer_statistic(block, func, args, shape) -> np.ndarray:
    value = np.asarray(func(block, *args))
    if value.dtype.kind not in "biu":
        raise TypeError(
            f"block_sum adds integer statistics exactly; {func.__name__} "
            f"returned dtype {value.dtype}."
        )
    return value.astype(np.int64, copy=False).reshape(shape)


def _block_statistic(block, func, args, shape) -> np.ndarray:
    # a dask block is read in numpy blocks too: a worker's temporaries stay small
    return block_sum(numpy_rows(block), func, *args, shape=shape).reshape(1, -1)


def bincount(rows: Rows, index: Callable, n_cells: int, *args) -> np.ndarray:
    """Histogram counts: ``np.bincount(index(block, *args), minlength=n_cells)``, summed.

    ``index`` (picklable) gives each row's cell in ``[0, n_cells)``.

    >>> def halves(block):
    ...     return (block[:, 0] >= 0.5).astype(np.int64)
    >>> bincount(numpy_rows(np.array([[0.1], [0.7], [0.9]])), halves, 2)
    array([1, 2])
    """
    return block_sum(rows, _bincount_block, index, int(n_cells), args, shape=(int(n_cells),))


def _bincount_block(block, index, n_cells, args) -> np.ndarray:
    cells = np.asarray(index(block, *args), dtype=np.int64)
    return np.bincount(cells, minlength=n_cells)


# ------------------------------------------------------------------ float reductions
# A float sum depends on the order of addition: float statistics are computed per
# aligned block (rows [k·B, (k+1)·B), B = NUMPY_BLOCK_ROWS, columns contiguous) and
# added by math.fsum, so numpy and any dask chunking give the same floats, bit for bit.
class LabelledRows:
    """Rows with one label per row, in aligned blocks of :data:`NUMPY_BLOCK_ROWS` rows
    (chunked so on dask); holds the data for one call only."""

    __slots__ = ("labels", "rows")

    def __init__(self, rows: Rows, labels):
        self.rows, self.labels = rows, labels

    @property
    def is_dask(self) -> bool:
        return self.rows.is_dask

    @property
    def n_samples(self) -> int:
        return self.rows.n_samples

    @property
    def n_features(self) -> int:
        return self.rows.n_features

    @property
    def n_blocks(self) -> int:
        return max(1, -(-self.n_samples // NUMPY_BLOCK_ROWS))

    def __repr__(self) -> str:
        return f"LabelledRows({self.rows!r})"


def labelled_rows(
    rows: Rows,
    labels,
    row_map: Callable | None = None,
    label_map: Callable | None = None,
    *,
    persist: bool = False,
) -> LabelledRows:
    """``rows`` and ``labels`` (one per row; None passes zeros) in aligned blocks.

    ``row_map`` and ``label_map`` map each aligned block row-wise (a row's result must not
    depend on the block); ``persist`` keeps mapped blocks in a distributed cluster's memory.

    >>> labelled_rows(numpy_rows(np.zeros((3, 2))), np.array([0, 1, 1]))
    LabelledRows(Rows(n_samples=3, n_features=2, numpy))
    """
    n = rows.n_samples
    if labels is None:  # rows alone: a placeholder label per row
        zeros = import_dask("reading dask rows").array.zeros if rows.is_dask else np.zeros
        labels = zeros(n, dtype=np.int8)
    if not rows.is_dask:
        data, labels = rows.data, np.asarray(labels)
        if row_map is not None:  # block by block: the map's temporaries stay small
            # in Fortran order: an aligned block's columns are copied whole (block_partials)
            mapped = np.empty((n, row_map(np.zeros((0, data.shape[1]))).shape[1]), order="F")
            for start in range(0, n, NUMPY_BLOCK_ROWS):
                block = slice(start, start + NUMPY_BLOCK_ROWS)
                mapped[block] = row_map(data[block])
            data = mapped
        if label_map is not None:
            labels = label_map(labels)
        return LabelledRows(numpy_rows(data), labels)
    da = import_dask("reading dask rows").array
    data = rows.data
    if any(math.isnan(c) for c in data.chunks[0]):  # a DataFrame's partitions: one more pass
        data = data.compute_chunk_sizes()
    if not is_dask_collection(labels):
        labels = da.from_array(np.asarray(labels), chunks=(data.chunks[0],))
    elif any(math.isnan(c) for c in labels.chunks[0]):
        labels = labels.compute_chunk_sizes()
    aligned = (NUMPY_BLOCK_ROWS,) * (n // NUMPY_BLOCK_ROWS) + (
        (n % NUMPY_BLOCK_ROWS,) if n % NUMPY_BLOCK_ROWS else ()
    ) or (0,)
    data, labels = data.rechunk({0: aligned, 1: -1}), labels.rechunk((aligned,))
    if row_map is not None:
        width = row_map(np.zeros((0, data.shape[1]))).shape[1]
        data = data.map_blocks(_fortran_map, row_map, dtype=np.float64, chunks=(aligned, (width,)))
    if label_map is not None:
        labels = labels.map_blocks(label_map, dtype=label_map(labels._meta[:0]).dtype)
    if persist and _on_a_cluster():
        data, labels = import_dask("persisting dask rows").persist(data, labels)
    return LabelledRows(Rows(data, n), labels)


def _on_a_cluster() -> bool:
    """Whether dask computes on a distributed client (not in this process's threads)."""
    import sys

    distributed = sys.modules.get("distributed")
    if distributed is None:
        return False
    from dask.base import get_scheduler

    return isinstance(getattr(get_scheduler(), "__self__", None), distributed.Client)


def _fortran_map(block, func):
    return np.asfortranarray(func(block))


def block_partials(data: LabelledRows, func: Callable, *args, size: int) -> np.ndarray:
    """Per aligned block, the float statistic ``func(block, labels, *args)``.

    ``func`` (picklable) returns ``size`` floats for a Fortran-ordered block; returns
    ``(n_blocks, size)`` float64, the same floats for numpy and dask.

    >>> def weighted(block, labels):
    ...     return (block * labels[:, None]).sum(axis=0)
    >>> data = labelled_rows(numpy_rows(np.ones((70_000, 2))), np.full(70_000, 0.5))
    >>> block_partials(data, weighted, size=2)
    array([[32768., 32768.],
           [ 2232.,  2232.]])
    >>> fsum_blocks(block_partials(data, weighted, size=2))
    array([35000., 35000.])
    """
    size = int(size)
    if not data.is_dask:
        X, labels = data.rows.data, data.labels
        out = np.empty((data.n_blocks, size))
        for k in range(data.n_blocks):
            rows = slice(k * NUMPY_BLOCK_ROWS, (k + 1) * NUMPY_BLOCK_ROWS)
            out[k] = _block_partial(X[rows], labels[rows], func, args, size)
        return out
    per_block = _dask_partials(data, func, args, size)
    return np.asarray(per_block.compute(), dtype=np.float64).reshape(-1, size)


def _dask_partials(data: LabelledRows, func: Callable, args: tuple, size: int):
    """The lazy ``(n_blocks, size)`` dask array of the blocks' statistics."""
    da = import_dask("reading dask rows").array
    return da.blockwise(
        _dask_partial,
        "ij",
        data.rows.data,
        "ij",
        data.labels,
        "i",
        dtype=np.float64,
        adjust_chunks={"i": 1, "j": size},
        statistic=func,
        args=args,
        size=size,
    )


def _block_partial(block, labels, func, args, size) -> np.ndarray:
    value = np.asarray(func(np.asfortranarray(block), labels, *args), dtype=np.float64)
    return value.reshape(size)


def _dask_partial(block, labels, *, statistic, args, size) -> np.ndarray:
    return _block_partial(block, labels, statistic, args, size).reshape(1, size)


class BlockSums(NamedTuple):
    """The blocks' float statistics added exactly (:func:`block_fsums`)."""

    #: per entry, the correctly rounded sum over the blocks
    total: np.ndarray
    #: likewise of the absolute values (None unless asked for)
    magnitude: np.ndarray | None
    #: the number of blocks added (a public shape)
    n_blocks: int


#: Children of one node of the tree reduction on the workers.
SPLIT_EVERY = 8


def block_fsums(
    data: LabelledRows, func: Callable, *args, size: int, magnitude: bool = False
) -> BlockSums:
    """The per-block statistics of :func:`block_partials`, added by ``math.fsum``.

    On dask the workers add the partials exactly in a tree (Shewchuk expansions) and the
    client receives ``O(size)`` floats. ``magnitude`` also adds their absolute values.

    >>> def signed(block, labels):
    ...     return (block * labels[:, None]).sum(axis=0)
    >>> labels = np.where(np.arange(70_000) < 65_536, 1.0, -1.0)
    >>> sums = block_fsums(labelled_rows(numpy_rows(np.ones((70_000, 1))), labels), signed,
    ...                    size=1, magnitude=True)
    >>> sums.total, sums.magnitude, sums.n_blocks
    (array([61072.]), array([70000.]), 2)
    """
    size = int(size)
    if not data.is_dask:
        partials = block_partials(data, func, *args, size=size)
        return BlockSums(
            fsum_blocks(partials),
            fsum_blocks(np.abs(partials)) if magnitude else None,
            data.n_blocks,
        )
    dask = import_dask("reading dask rows")
    level = list(_dask_partials(data, func, args, size).to_delayed().ravel())
    while True:  # at least one node: a leaf becomes expansions on a worker
        level = [
            dask.delayed(_merge_expansions)(magnitude, *level[i : i + SPLIT_EVERY])
            for i in range(0, len(level), SPLIT_EVERY)
        ]
        if len(level) == 1:
            break
    root = [np.array([math.fsum(e) for e in entries]) for entries in level[0].compute()]
    return BlockSums(root[0], root[1] if magnitude else None, data.n_blocks)


def _merge_expansions(magnitude: bool, *children) -> list:
    """The children's (leaf partials' or expansions') exact sums as expansions, per entry:
    ``[values]``, or ``[values, magnitudes]`` with ``magnitude``."""
    merged = []
    for child in children:
        if isinstance(child, np.ndarray):  # a leaf: one block's statistic, shape (1, size)
            row = child.ravel().tolist()
            child = [[[x] for x in row]] + ([[[abs(x)] for x in row]] if magnitude else [])
        merged.append(child)
    return [[_expansion(sum(parts, [])) for parts in zip(*kind)] for kind in zip(*merged)]


def _expansion(terms: list) -> list:
    """Floats whose exact sum is that of ``terms`` (Shewchuk); on overflow, ``terms``."""
    partials: list = []
    for x in terms:
        kept = 0
        for y in partials:
            if abs(x) < abs(y):
                x, y = y, x
            high = x + y
            low = y - (high - x)
            if low:
                partials[kept] = low
                kept += 1
            x = high
        if not math.isfinite(x):
            return list(terms)
        partials[kept:] = [x]
    return partials


def fsum_blocks(partials: np.ndarray) -> np.ndarray:
    """The per-block statistics added by ``math.fsum`` (correctly rounded) in each column."""
    partials = np.asarray(partials, dtype=np.float64)
    return np.array([math.fsum(column) for column in partials.T])


def label_counts(labels) -> tuple[np.ndarray, np.ndarray]:
    """``(values, counts)`` as ``np.unique(..., return_counts=True)``; on dask, per block."""
    if not is_dask_collection(labels):
        return np.unique(np.asarray(labels), return_counts=True)
    dask = import_dask("reading dask labels")
    parts = dask.compute(*[dask.delayed(_block_counts)(b) for b in labels.to_delayed().ravel()])
    values = np.concatenate([v for v, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    distinct, where = np.unique(values, return_inverse=True)
    total = np.bincount(where.ravel(), weights=counts, minlength=distinct.size)
    return distinct, total.astype(np.int64)


def _block_counts(block):
    return np.unique(np.asarray(block), return_counts=True)


def read_labels(y, n_samples: int, estimator=None) -> tuple:
    """``(y as 1-D, its distinct values, their counts)``, with scikit-learn's errors for
    ``n_samples`` dask rows; the checks read the distinct values only."""
    import warnings

    from sklearn.utils.validation import _assert_all_finite, check_consistent_length, column_or_1d

    if hasattr(y, "to_dask_array"):
        with warnings.catch_warnings():  # strings become objects, as in memory
            warnings.filterwarnings("ignore", "Dask currently has limited support", UserWarning)
            y = y.to_dask_array()
    elif not is_dask_collection(y):
        y = np.asarray(y)
    column_or_1d(np.empty((0, *y.shape[1:]), dtype=y.dtype), warn=True)
    if y.ndim == 2:
        y = y[:, 0]
    values, counts = label_counts(y)
    check_consistent_length(
        np.broadcast_to(0, (n_samples,)), np.broadcast_to(0, (int(counts.sum()),))
    )
    _assert_all_finite(
        values, input_name="y", estimator_name=type(estimator).__name__ if estimator else None
    )
    return y, values, counts
