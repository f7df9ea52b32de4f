"""DPSMOTE's synthesis: the synthetic rows, drawn from the released synopsis only.

The last stage of ``fit_resample`` (read inputs → statistics → releases →
**synthesis**): post-processing of DP outputs, from a stream of its own (the
release's ``sample_rng``). The original rows pass through unchanged and the
synthetic rows are appended, in memory or, on dask input, drawn block by
block on the workers by the data layer (:func:`skdp_anomaly._data.blocks.append_drawn_rows`).

Gaussian synopsis: rows ``clip(μ̂ + spread · N(0, I))`` in the unit box of the
bounds, mapped back to the bounds; the spread is a public parameter, not read
from the data. They come in chunks of :data:`SYNTHETIC_CHUNK` rows, each drawn
from a generator of its own, spawned in order from the sampling stream, so any
block of them can be drawn on its own and the rows are the same, bit for bit,
however the output is split. Grid synopsis: phase 2 of Algorithm 6
(:func:`~._grid.sample_synthetic`), in memory only.
"""

from __future__ import annotations

import numpy as np

from .._data.blocks import append_drawn_rows, typical_block_rows
from .._jit import lazy_njit
from ._grid import sample_synthetic

njit = lazy_njit(globals())  # compiled at the first call: importing needs no numba

__all__ = ["SYNTHETIC_CHUNK", "chunk_seeds", "fill_gaussian", "synthesize_gaussian",
           "synthesize_grid"]

#: rows per independently seeded chunk of synthetic rows
SYNTHETIC_CHUNK = 1 << 16


@njit(cache=True, nogil=True)
def _fill(rng, mean, scale, lower, upper, out):  # pragma: no cover - compiled
    # one pass: draw, scale, shift and clip each coordinate straight into the
    # output (numba's Generator.standard_normal is numpy's algorithm on the same
    # bit stream, so the values equal rng.standard_normal's)
    n, d = out.shape
    for i in range(n):
        for j in range(d):
            v = mean[j] + scale[j] * rng.standard_normal()
            if v < lower[j]:
                v = lower[j]
            elif v > upper[j]:
                v = upper[j]
            out[i, j] = v


def chunk_seeds(rng: np.random.Generator, n: int) -> list:
    """One :class:`numpy.random.SeedSequence` per ``SYNTHETIC_CHUNK`` rows of ``n``."""
    return rng.bit_generator.seed_seq.spawn(-(-int(n) // SYNTHETIC_CHUNK))


def _fill_rows(mean, scale, lower, upper, seeds, out) -> np.ndarray:
    """Row ``i`` of ``out`` is row ``i % SYNTHETIC_CHUNK`` of the chunk drawn from
    ``seeds[i // SYNTHETIC_CHUNK]`` (``mean``, ``scale`` and the clip in X's units)."""
    for c, seed in enumerate(seeds):
        part = out[c * SYNTHETIC_CHUNK:(c + 1) * SYNTHETIC_CHUNK]
        if part.shape[0]:
            _fill(np.random.default_rng(seed), mean, scale, lower, upper, part)
    return out


def _draw_scale(spread: float, box):
    """The per-feature scale and clip of the rows: public parameters and bounds only."""
    scale = np.ascontiguousarray(float(spread) * box.half_range)
    lower = np.ascontiguousarray(box.centre - box.half_range)
    upper = np.ascontiguousarray(box.centre + box.half_range)
    return scale, lower, upper


def fill_gaussian(mean_unit, spread: float, box, seeds, out) -> np.ndarray:
    """Fill ``out`` (shape (k, d)) with rows ``clip(μ̂ + spread · N(0, I))`` mapped to the bounds.

    Row ``i`` of ``out`` is row ``i % SYNTHETIC_CHUNK`` of the chunk drawn from
    ``seeds[i // SYNTHETIC_CHUNK]``, so any slice of the synthetic rows can be
    drawn on its own.
    """
    mean = np.ascontiguousarray(box.from_unit(np.asarray(mean_unit, np.float64)))
    return _fill_rows(mean, *_draw_scale(spread, box), seeds, out)


def synthesize_gaussian(X, y, release, classes, spread: float, box, frame=None):
    """The resampled set: the original rows, then each over-sampled class's rows.

    Parameters
    ----------
    X, y : ndarrays, or dask arrays chunked alike by rows
    release : GaussianRelease
        The release stage's DP means, rows per class and sampling stream.
    classes : ndarray
        The label set (``release.means`` is keyed by index into it).
    spread : float
    box : BoxScale
        The unit box of the public bounds.
    frame : tuple or None
        A dask DataFrame's metadata, to return frames.

    Returns
    -------
    X_res, y_res
        Arrays of the input's kind (lazy on dask: the rows are drawn on the
        workers when computed).
    noisy_means : dict
        Class -> its DP mean in the units of X (``noisy_means_``).
    """
    index = list(release.means)
    d = box.centre.shape[0]
    means = box.from_unit(np.array([release.means[j] for j in index]).reshape(len(index), d))
    scale, lower, upper = _draw_scale(spread, box)
    # synthetic blocks about as large as the input's, in whole seed chunks
    per_block = max(1, typical_block_rows(X) // SYNTHETIC_CHUNK)
    draws = []
    for j, mean in zip(index, means):
        rows = int(release.n_new[j])
        seeds = chunk_seeds(release.sample_rng, rows)
        mean = np.ascontiguousarray(mean)
        for b in range(0, len(seeds), per_block):
            block_seeds = seeds[b:b + per_block]
            block_rows = min(rows - b * SYNTHETIC_CHUNK, len(block_seeds) * SYNTHETIC_CHUNK)
            draws.append((_fill_rows, (mean, scale, lower, upper, block_seeds), block_rows,
                          classes[j]))
    X_res, y_res = append_drawn_rows(X, y, draws, frame)
    labels = classes.tolist()
    return X_res, y_res, {labels[j]: mean for j, mean in zip(index, means)}


def synthesize_grid(X, y, plan, histograms, classes, connectivity: int):
    """Phase 2 of Algorithm 6 for each over-sampled class, appended to the rows (in memory)."""
    X_parts, y_parts = [X], [y]
    for j, hist in histograms.items():
        Z = sample_synthetic(plan.grid, hist, int(plan.n_new[j]), connectivity,
                             plan.sample_rng, plan.offsets)
        X_parts.append(Z.astype(X.dtype, copy=False))
        y_parts.append(np.full(len(Z), classes[j], dtype=y.dtype))
    return np.concatenate(X_parts), np.concatenate(y_parts)
