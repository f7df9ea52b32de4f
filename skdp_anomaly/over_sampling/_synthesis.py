"""DPSMOTE's synthesis: the synthetic rows, drawn from the released synopsis only.

Post-processing, from the release's own ``sample_rng``. Gaussian rows come in chunks of
:data:`SYNTHETIC_CHUNK` rows, each from its own spawned generator, so any block can be
drawn on its own (on Dask workers), bit for bit. Grid synopsis: phase 2 of Algorithm 6.
"""

from __future__ import annotations

import numpy as np

from .._data.blocks import append_drawn_rows, typical_block_rows
from .._jit import lazy_njit
from ._release import SparseHistogram
from ._setting import Grid, ball_offsets

njit = lazy_njit(globals())  # compiled at the first call: importing needs no numba

#: rows per independently seeded chunk of synthetic rows
SYNTHETIC_CHUNK = 1 << 16
# phase 2 of the grid looks cells up in chunks of at most this many (centre, offset) pairs
_CHUNK = 1 << 21


@njit(cache=True, nogil=True)
def _fill(rng, mean, scale, lower, upper, out):  # pragma: no cover - compiled
    # numba's Generator.standard_normal is numpy's algorithm: the values equal numpy's
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
        part = out[c * SYNTHETIC_CHUNK : (c + 1) * SYNTHETIC_CHUNK]
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
    """Fill ``out`` (shape (k, d)) with rows ``clip(μ̂ + spread · N(0, I))`` in X's units."""
    mean = np.ascontiguousarray(box.from_unit(np.asarray(mean_unit, np.float64)))
    return _fill_rows(mean, *_draw_scale(spread, box), seeds, out)


def synthesize_gaussian(X, y, release, classes, spread: float, box, frame=None):
    """``(X_res, y_res, noisy_means)``: the original rows, then each over-sampled class's rows.

    Output of the input's kind (lazy on dask); ``noisy_means``: class -> DP mean in X's units.
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
            block_seeds = seeds[b : b + per_block]
            block_rows = min(rows - b * SYNTHETIC_CHUNK, len(block_seeds) * SYNTHETIC_CHUNK)
            args = (mean, scale, lower, upper, block_seeds)
            draws.append((_fill_rows, args, block_rows, classes[j]))
    X_res, y_res = append_drawn_rows(X, y, draws, frame)
    labels = classes.tolist()
    return X_res, y_res, {labels[j]: mean for j, mean in zip(index, means)}


def synthesize_grid(X, y, plan, choice, histograms, classes, connectivity: int):
    """Phase 2 of Algorithm 6 for each over-sampled class, appended to the rows (in memory)."""
    X_parts, y_parts = [X], [y]
    for j, hist in histograms.items():
        n = int(plan.n_new[j])
        Z = sample_synthetic(choice.grid, hist, n, connectivity, plan.sample_rng, choice.offsets)
        X_parts.append(Z.astype(X.dtype, copy=False))
        y_parts.append(np.full(len(Z), classes[j], dtype=y.dtype))
    return np.concatenate(X_parts), np.concatenate(y_parts)


# -- the grid synopsis: phase 2 of Algorithm 6 ---------------------------------------
class _Weights:
    """Weight ``max(c, 0)`` of any cell of a released histogram, looked up by cell key."""

    def __init__(self, grid: Grid, histogram):
        self.grid = grid
        if isinstance(histogram, SparseHistogram):
            self.dense = None
            w = np.maximum(histogram.counts, 0)
            pos = w > 0
            self.coords = histogram.cells[pos]
            self.values = w[pos]
            # sorted, as the released cells are: lookup() searches them
            self.keys = (
                self.coords.astype(np.int64) @ grid.strides
                if grid.fits_int64
                else _row_keys(grid, self.coords)
            )
        else:
            # a trailing zero weighs "no cell"; int32: a count beyond 2**31 cannot be indexed
            dense = np.clip(np.asarray(histogram).reshape(-1), 0, np.iinfo(np.int32).max)
            self.dense = np.append(dense, 0).astype(np.int32)
            self.keys = np.flatnonzero(self.dense)
            self.coords = None  # computed for the drawn centres only (see coords_of)
            self.values = self.dense[self.keys]

    def coords_of(self, index) -> np.ndarray:
        """Coordinates of the positive cells at positions ``index``."""
        if self.coords is not None:
            return self.coords[index]
        grid, flat = self.grid, self.keys[index]
        return (flat[:, None] // grid.strides % grid.n_cells).astype(grid.coord_dtype)

    def lookup(self, keys) -> np.ndarray:
        if self.dense is not None:
            return self.dense[keys]
        if len(self.keys) == 0:
            return np.zeros(len(keys), np.int64)
        pos = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(self.keys[pos] == keys, self.values[pos], 0)


def _row_keys(grid: Grid, rows) -> np.ndarray:
    """Beyond int64 codes, a cell's key is its coordinate row viewed as one ``void``
    (:func:`._release.cell_keys`, here so that phase 2 stays in this module)."""
    return np.ascontiguousarray(rows, dtype=grid.coord_dtype).view(grid.row_dtype).ravel()


def sample_synthetic(
    grid: Grid, histogram, n_samples: int, connectivity: int, rng: np.random.Generator, offsets=None
) -> np.ndarray:
    """Phase 2 of Algorithm 6: ``n_samples`` rows from a released histogram (post-processing).

    Centre and ℓ-connected neighbour drawn ∝ ``max(c, 0)``, then
    ``z_j = q_ij + u_j (q_kj − q_ij)``; uniform cells when no count is positive.
    """
    d = grid.n_features
    if n_samples <= 0:
        return np.zeros((0, d))
    if offsets is None:
        offsets = ball_offsets(d, connectivity, grid.n_cells)
    dense_off, support, delta = offsets
    weights = _Weights(grid, histogram)
    if len(weights.values) == 0:
        return _sample_uniform(grid, n_samples, dense_off, rng)
    cum = np.cumsum(weights.values)
    draws = np.searchsorted(cum, rng.integers(0, cum[-1], size=n_samples), side="right")
    sel, reps = np.unique(draws, return_counts=True)
    sel_coords = weights.coords_of(sel)

    # neighbours, in chunks of centres so that (centres × offsets) stays bounded
    n_off = len(dense_off)
    # the void-key path materialises (centres × offsets × d) coordinates
    step = max(1, _CHUNK // (n_off * (1 if grid.fits_int64 else d)))
    # dense grids have < 2**31 cells: int32 keys halve the memory traffic
    key_dtype = np.int32 if weights.dense is not None else np.int64
    off_key = None
    if grid.fits_int64:
        off_key = (dense_off.astype(np.int64) @ grid.strides).astype(key_dtype)
        strides = grid.strides.astype(key_dtype)
    # cell keys of invalid neighbours: one past the dense array (a zero), or -1 (absent)
    missing = key_dtype(grid.size if weights.dense is not None else -1)
    unsigned = np.uint16 if grid.coord_dtype == np.int16 else np.uint32
    sup_delta = [
        (support[:, s], delta[:, s].astype(grid.coord_dtype)) for s in range(support.shape[1])
    ]
    chosen = []
    for start in range(0, len(sel_coords), step):
        c = sel_coords[start : start + step]
        m = reps[start : start + step]
        valid = np.ones((len(c), n_off), bool)
        for sup, dl in sup_delta:
            v = c[:, sup] + dl  # negative values wrap to large unsigned ones
            valid &= v.view(unsigned) < grid.n_cells
        if off_key is not None:
            nb = (c.astype(key_dtype) @ strides)[:, None] + off_key[None, :]
            w = weights.lookup(np.where(valid, nb, missing).ravel())
        else:
            rows = c.astype(np.int64)[:, None, :] + dense_off[None, :, :]
            rows[~valid] = 0
            w = np.where(valid.ravel(), weights.lookup(_row_keys(grid, rows.reshape(-1, d))), 0)
        flat_cum = np.cumsum(w, dtype=np.int64)
        ends = flat_cum[n_off - 1 :: n_off]  # cumulative mass at the end of each row
        base = np.concatenate([[0], ends[:-1]])
        tot = np.repeat(ends - base, m)
        pick = np.minimum(np.floor(rng.random(len(tot)) * tot).astype(np.int64), tot - 1)
        t = np.repeat(base, m) + pick
        chosen.append(np.searchsorted(flat_cum, t, side="right") % n_off)
    off_idx = np.concatenate(chosen)

    centre = np.repeat(sel_coords, reps, axis=0)
    return _interpolate(grid, centre, centre + dense_off[off_idx], rng)


def _interpolate(grid: Grid, centre, neighbour, rng) -> np.ndarray:
    """``z_j = q_ij + u_j (q_kj − q_ij)``, one uniform ``u_j`` per coordinate (Alg. 6)."""
    centre = centre.astype(np.float64)
    u = rng.random(centre.shape)
    return grid.lower + (centre + 0.5 + u * (neighbour - centre)) * grid.width


def _sample_uniform(grid: Grid, n_samples: int, dense_off, rng) -> np.ndarray:
    """Phase 2 when no cell has a positive noisy count: uniform centres, and a
    neighbour uniform among the in-grid ℓ-connected cells (by rejection)."""
    centre = rng.integers(0, grid.n_cells, size=(n_samples, grid.n_features))
    neighbour = np.empty_like(centre)
    todo = np.arange(n_samples)
    while todo.size:
        cand = centre[todo] + dense_off[rng.integers(0, len(dense_off), size=todo.size)]
        ok = np.all((cand >= 0) & (cand < grid.n_cells), axis=1)
        neighbour[todo[ok]] = cand[ok]
        todo = todo[~ok]
    return _interpolate(grid, centre, neighbour, rng)
