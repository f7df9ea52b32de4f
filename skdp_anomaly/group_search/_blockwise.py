"""A sensor statistic over a dask array of scores, block by block.

Kept apart from the searcher (:mod:`._noisy_group_search`) and its Dask side
(:mod:`._dask_search`): the sensors need only this, and importing it pulls in
neither. dask is imported inside the function only.
"""

from __future__ import annotations

import numpy as np

from .._dask import import_dask

__all__ = ["blockwise_statistic"]


def blockwise_statistic(func, width: int, scores, mask) -> tuple:
    """``func(scores, mask)`` (a tuple of ``width`` maxima over items) per block, then
    the maximum over blocks: a sensor's statistic on dask data, sent to the client."""
    import_dask("NoisyGroupSearch on a dask collection")
    import dask.array as da

    per_block = da.map_blocks(_statistic_block, scores, mask, func, width, new_axis=[1],
                              chunks=((1,) * scores.numblocks[0], (width,)), dtype=np.float64)
    return tuple(float(v) for v in per_block.max(axis=0).compute())


def _statistic_block(scores, mask, func, width):
    return np.asarray(func(scores, mask), dtype=np.float64).reshape(1, width)
