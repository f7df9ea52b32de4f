"""Uniform grids, noisy cell histograms (dense and sparse) and ℓ-ball offsets.

The private synopsis of DP-SMOTE (Lut 2022, §3.3, Algorithm 6, phase 1)
lives here; :mod:`._release` gives it its mechanism and :mod:`._dpsmote` charges it.

Cells are addressed by integer coordinates ``0 <= c_j < n_cells`` per feature.
For lookups each cell also has a sortable *key*: its row-major code
``sum_j c_j * n_cells**(d-1-j)`` when the grid has fewer than 2**63 cells, and
otherwise the raw bytes of its coordinate row (a numpy ``void`` scalar), which
``np.unique`` and ``np.searchsorted`` handle just as well.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..privacy import GeometricMechanism
from ..privacy._grid import geometric

__all__ = [
    "Grid", "SparseHistogram", "ball_offsets", "check_ball_size", "choose_n_cells",
    "choose_threshold", "expected_positive_noise",
]

_INT64_MAX = np.iinfo(np.int64).max
# above this many offsets the ℓ-ball is refused (memory and time grow with it)
_MAX_OFFSETS = 200_000
# lookups are processed in chunks of at most this many (centre, offset) pairs
_CHUNK = 1 << 21
# θ keeps the expected spurious mass of empty cells below this share of the class size
_SPURIOUS_MASS_SHARE = 0.1
# granularity="auto" keeps the expected positive noise mass of the dense grid at most
# this share of the class size (so at least about half of the positive mass is real)
_NOISE_MASS_SHARE = 1.0
# granularity="auto" never uses more cells per feature than the paper's ν = 0.25,
# nor fewer than 2 (one cell collapses phase 2 to a single point)
AUTO_MAX_N_CELLS = 4
AUTO_MIN_N_CELLS = 2


@dataclass(frozen=True)
class Grid:
    """A uniform grid of ``n_cells`` equal-width cells per feature over ``[lower, upper]``."""

    lower: np.ndarray
    upper: np.ndarray
    n_cells: int

    @property
    def n_features(self) -> int:
        return self.lower.shape[0]

    @property
    def size(self) -> int:
        """Total number of cells ``n_cells ** d`` (a Python int, may exceed int64)."""
        return self.n_cells**self.n_features

    @property
    def width(self) -> np.ndarray:
        return (self.upper - self.lower) / self.n_cells

    @property
    def fits_int64(self) -> bool:
        return self.size <= _INT64_MAX

    @property
    def coord_dtype(self):
        return np.int16 if self.n_cells < 2**14 else np.int32

    @property
    def strides(self) -> np.ndarray:
        """Row-major strides (only meaningful when :attr:`fits_int64`)."""
        d = self.n_features
        return np.array([self.n_cells ** (d - 1 - j) for j in range(d)], dtype=np.int64)

    def coordinates(self, X) -> np.ndarray:
        """Cell coordinates of each row of ``X``; rows outside the bounds go to the edge cells."""
        idx = np.floor((np.asarray(X, dtype=np.float64) - self.lower) / self.width)
        np.clip(idx, 0, self.n_cells - 1, out=idx)
        return idx.astype(self.coord_dtype)

    def keys(self, coords) -> np.ndarray:
        """Sortable key of each coordinate row (int64 codes or void bytes)."""
        coords = np.asarray(coords)
        if self.fits_int64:
            return coords.astype(np.int64) @ self.strides
        rows = np.ascontiguousarray(coords, dtype=self.coord_dtype)
        return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()

    def centres(self, coords) -> np.ndarray:
        """Centres ``q`` of the cells at ``coords`` (float64)."""
        return self.lower + (np.asarray(coords, dtype=np.float64) + 0.5) * self.width

    def random_coordinates(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` cells drawn uniformly over the whole grid."""
        return rng.integers(0, self.n_cells, size=(size, self.n_features)).astype(self.coord_dtype)


# -- the ℓ-ball ---------------------------------------------------------------


def n_ball_offsets(n_features: int, connectivity: int, n_cells: int) -> int:
    """Number of offsets with L1 norm ``<= connectivity`` and each |entry| < n_cells.

    Counted without listing them (a sum over the number k of moved features
    of ``C(d, k) · 2^k`` times the compositions of at most ``connectivity``
    into k parts in ``[1, n_cells − 1]``), so that a ball too large to list
    is refused at once.
    """
    top = min(connectivity, n_cells - 1)
    # ways[s]: the k-tuples of magnitudes in [1, top] summing to s <= connectivity
    ways = [1] + [0] * connectivity
    total = 0
    for k in range(min(n_features, connectivity) + 1):
        if k:
            window, shifted = 0, [0] * (connectivity + 1)
            for s in range(connectivity + 1):  # shifted[s] = ways[s-top] + ... + ways[s-1]
                window += ways[s - 1] if s >= 1 else 0
                window -= ways[s - top - 1] if s - top - 1 >= 0 else 0
                shifted[s] = window
            ways = shifted
        n_magnitudes = sum(ways)
        if n_magnitudes == 0:
            break
        total += math.comb(n_features, k) * (2**k) * n_magnitudes
    return total


def check_ball_size(n_features: int, connectivity: int, n_cells: int) -> None:
    """Refuse an ℓ-ball of more than 200 000 offsets (its memory and time grow with it)."""
    n = n_ball_offsets(n_features, connectivity, n_cells)
    if n > _MAX_OFFSETS:
        raise ValueError(
            f"connectivity={connectivity} with {n_features} features gives an ℓ-ball of {n} "
            f"grid offsets (limit {_MAX_OFFSETS}); use a smaller connectivity."
        )


def _magnitudes(k: int, connectivity: int, n_cells: int) -> list:
    if k == 0:
        return [()]
    top = min(connectivity, n_cells - 1)
    return [m for m in itertools.product(range(1, top + 1), repeat=k) if sum(m) <= connectivity]


@functools.lru_cache(maxsize=16)
def ball_offsets(n_features: int, connectivity: int, n_cells: int):
    """Offsets of the ℓ-ball of Definition 3.2, the centre itself first.

    Two cells are ℓ-connected when a path of at most ℓ grid edges joins them,
    i.e. their coordinates differ by an offset of L1 norm ``<= ℓ``. The
    offset 0 (the cell itself, distance 0) is included.

    Returns
    -------
    dense : ndarray of shape (n_offsets, n_features), int32
    support : ndarray of shape (n_offsets, s), int  — features an offset moves
    delta : ndarray of shape (n_offsets, s), int  — by how much (0 = padding)
    """
    check_ball_size(n_features, connectivity, n_cells)
    s = max(1, min(n_features, connectivity))  # at most ℓ features move
    dense_parts, support_parts, delta_parts = [], [], []
    for k in range(min(n_features, connectivity) + 1):
        mags = _magnitudes(k, connectivity, n_cells)
        if not mags:
            continue
        if k == 0:
            dense_parts.append(np.zeros((1, n_features), np.int32))
            support_parts.append(np.zeros((1, s), np.int64))
            delta_parts.append(np.zeros((1, s), np.int32))
            continue
        combos = np.array(list(itertools.combinations(range(n_features), k)), dtype=np.int64)
        signs = np.array(list(itertools.product((-1, 1), repeat=k)), dtype=np.int32)
        mags = np.array(mags, dtype=np.int32)
        vals = (mags[:, None, :] * signs[None, :, :]).reshape(-1, k)  # (V, k)
        n_c, n_v = len(combos), len(vals)
        sup = np.repeat(combos, n_v, axis=0)  # (C*V, k)
        dl = np.tile(vals, (n_c, 1))
        dense = np.zeros((n_c * n_v, n_features), np.int32)
        np.put_along_axis(dense, sup, dl, axis=1)
        pad = s - k
        dense_parts.append(dense)
        support_parts.append(np.pad(sup, ((0, 0), (0, pad))))
        delta_parts.append(np.pad(dl, ((0, 0), (0, pad))))
    out = (np.concatenate(dense_parts), np.concatenate(support_parts),
           np.concatenate(delta_parts))
    for arr in out:  # cached and shared between fits: read-only
        arr.flags.writeable = False
    return out


# -- noisy histograms -----------------------------------------------------------


def dense_true_counts(grid: Grid, coords) -> np.ndarray:
    """Exact cell counts of a dense grid, flat in row-major order (private!)."""
    return np.bincount(grid.keys(coords), minlength=grid.size).astype(np.int64)


def release_dense(true_counts: np.ndarray, epsilon: float, rng, n_runs: int | None = None):
    """Phase 1, dense: every cell count plus two-sided geometric noise (ε-DP, Δ = 1)."""
    mech = GeometricMechanism(epsilon)
    shape = true_counts.shape if n_runs is None else (n_runs, *true_counts.shape)
    return true_counts + mech.noise(shape, rng)


def geometric_tail(epsilon: float, threshold: int) -> float:
    """``P(Z >= threshold)`` for two-sided geometric Z with decay ``exp(-ε)``, threshold >= 1."""
    alpha = math.exp(-epsilon)
    return math.exp(-epsilon * threshold) / (1.0 + alpha)


def expected_spurious_mass(n_cells_total: int, epsilon: float, threshold: int) -> float:
    """Expected total noisy count of the *empty* cells that pass ``threshold``:
    ``M · P(Z >= θ) · E[Z | Z >= θ]`` (an upper bound when some cells are not empty)."""
    alpha = math.exp(-epsilon)
    return (float(n_cells_total) * geometric_tail(epsilon, threshold)
            * (threshold + alpha / -math.expm1(-epsilon)))


def choose_threshold(n_cells_total: int, epsilon: float, class_size: float) -> int:
    """Threshold θ of the sparse histogram.

    The smallest integer ``θ >= 1`` such that the expected total noisy count
    that *empty* cells contribute after filtering,
    ``M · P(Z >= θ) · E[Z | Z >= θ]``, is at most a tenth of
    ``max(class_size, 1)``: spurious cells then carry little of the mass phase 2
    samples from. (θ grows only like ``log(M / class_size) / ε``.)
    ``class_size`` must be a DP estimate (or a public count), never the true
    count, so that θ is itself post-processing.
    """
    alpha = math.exp(-epsilon)
    log_m = math.log(n_cells_total)
    target = math.log(_SPURIOUS_MASS_SHARE * max(float(class_size), 1.0))
    mean_excess = alpha / -math.expm1(-epsilon)  # E[G] for G ~ Geom on {0,1,...}

    def log_mass(theta: int) -> float:
        return log_m - epsilon * theta - math.log1p(alpha) + math.log(theta + mean_excess)

    # log_mass decreases for θ >= 1 (its slope 1/(θ + E[G]) - ε <= (1 - e^-ε) - ε < 0),
    # so the smallest admissible θ is found by doubling then bisection
    if log_mass(1) <= target:
        return 1
    lo, hi = 1, 2
    while log_mass(hi) > target:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if log_mass(mid) > target else (lo, mid)
    return hi


def expected_positive_noise(epsilon: float) -> float:
    """``E[max(Z, 0)]`` for two-sided geometric Z with decay ``a = exp(-ε)``.

    Equals ``a / ((1 + a)(1 − a)) = a / (1 − a²)``: the expected positive
    weight an *empty* cell of a dense noisy histogram gets in phase 2.
    """
    return math.exp(-epsilon) / -math.expm1(-2.0 * epsilon)


def choose_n_cells(class_size: float, epsilon: float, n_features: int, *,
                   min_n_cells: int = AUTO_MIN_N_CELLS, max_n_cells: int = AUTO_MAX_N_CELLS,
                   max_total_cells: int | None = None, share: float = _NOISE_MASS_SHARE) -> int:
    """Cells per feature ``m`` for ``granularity="auto"`` (ν = 1/m).

    The largest integer ``min_n_cells <= m <= max_n_cells`` whose dense grid
    of ``m**d`` cells has expected positive noise mass ``m**d · E[max(Z, 0)]``
    (:func:`expected_positive_noise`) at most ``share · class_size``;
    ``min_n_cells`` when none does. With the default ``share = 1`` the noise
    does not outweigh the class in expectation. The floor of 2 exists because
    one cell per feature collapses phase 2 to a single point (the centre of the
    bounds), which did worse than a noise-dominated 2-cell grid in every
    measured case. ``max_total_cells`` (if given) also caps ``m**d`` and may
    force ``m`` below the floor (down to 1).

    ``class_size`` must be a DP estimate (or a public count), never the true
    count: the result is then post-processing of DP outputs and parameters.
    """
    if n_features < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features}.")
    budget = share * float(class_size)
    per_cell = expected_positive_noise(epsilon)

    def allowed(k: int) -> bool:
        return max_total_cells is None or k**n_features <= max_total_cells

    # noise alone would allow about (budget / per_cell) ** (1/d) cells per feature;
    # start there (never above the cap) and correct with exact integer checks
    m = max_n_cells
    if budget <= 0:
        m = min_n_cells
    elif per_cell > 0:
        m = min(max_n_cells, max(min_n_cells, int(
            math.exp((math.log(budget) - math.log(per_cell)) / n_features))))

    def fits(k: int) -> bool:
        return allowed(k) and k**n_features * per_cell <= budget

    while m < max_n_cells and fits(m + 1):
        m += 1
    while m > min_n_cells and not fits(m):
        m -= 1
    while m > 1 and not allowed(m):
        m -= 1
    return m


@dataclass(frozen=True)
class SparseHistogram:
    """The released cells of a sparse noisy histogram (only those with noisy count >= θ).

    Iterating yields ``(cells, counts)`` so ``cells, counts = hist`` works.

    Attributes
    ----------
    cells : ndarray of shape (n_released, n_features)
        Grid coordinates of the released cells, sorted by key.
    counts : ndarray of shape (n_released,), int64
        Their noisy counts (all ``>= threshold``).
    threshold : int
        θ: every cell whose noisy count is below it is reported as 0.
    """

    cells: np.ndarray
    counts: np.ndarray
    threshold: int

    def __iter__(self):
        return iter((self.cells, self.counts))

    def __len__(self):
        return 2


def _distinct_empty_cells(grid: Grid, m: int, nonempty_keys: np.ndarray, rng) -> np.ndarray:
    """Coordinates of ``m`` distinct cells drawn uniformly among the empty ones.

    ``nonempty_keys`` must be sorted. Rejection sampling: i.i.d. uniform cells,
    drop non-empty ones and repeats; the distinct survivors form a uniformly
    random subset, of which a uniform ``m``-subset is kept.
    """
    if m == 0:
        return np.zeros((0, grid.n_features), grid.coord_dtype)
    n_empty = grid.size - len(nonempty_keys)
    # enumerate the empty cells only when they are few or most of them are needed;
    # otherwise rejection sampling touches ~m cells instead of all M
    if grid.fits_int64 and n_empty <= max(1 << 16, 8 * m):
        empty = np.setdiff1d(np.arange(grid.size, dtype=np.int64), nonempty_keys,
                             assume_unique=True)
        codes = rng.choice(empty, size=m, replace=False)
        return (codes[:, None] // grid.strides % grid.n_cells).astype(grid.coord_dtype)
    kept_coords = np.zeros((0, grid.n_features), grid.coord_dtype)
    kept_keys = grid.keys(kept_coords)
    while len(kept_keys) < m:
        need = m - len(kept_keys)
        cand = grid.random_coordinates(int(need * 1.1) + 16, rng)
        keys = grid.keys(cand)
        if len(nonempty_keys):
            pos = np.searchsorted(nonempty_keys, keys)
            hit = nonempty_keys[np.minimum(pos, len(nonempty_keys) - 1)] == keys
            cand, keys = cand[~hit], keys[~hit]
        all_coords = np.concatenate([kept_coords, cand])
        _, first = np.unique(np.concatenate([kept_keys, keys]), return_index=True)
        first.sort()  # keep earlier survivors first: order is irrelevant, subset is uniform
        kept_coords = all_coords[first]
        kept_keys = grid.keys(kept_coords)
    pick = rng.choice(len(kept_keys), size=m, replace=False)
    return kept_coords[pick]


def release_sparse(grid: Grid, coords, epsilon: float, threshold: int, rng) -> SparseHistogram:
    """Phase 1, sparse: the same output distribution as :func:`release_dense`
    followed by zeroing every cell whose noisy count is below ``threshold``,
    without materialising the empty cells (Cormode, Procopiuc, Srivastava and
    Tran, "Differentially private summaries for sparse data", ICDT 2012).

    * non-empty cells: true count + geometric noise, kept if ``>= θ``;
    * empty cells: the number that would pass is Binomial(M − k, P(Z ≥ θ))
      (Poisson with the same mean when M − k overflows int64; total-variation
      error ≤ P(Z ≥ θ) by Barbour–Hall, negligible there), placed at distinct
      uniformly random empty cells, each with a value drawn from
      ``Z | Z ≥ θ = θ + Geometric``.
    """
    if threshold < 1:
        raise ValueError(f"threshold must be >= 1, got {threshold}.")
    mech = GeometricMechanism(epsilon)
    keys = grid.keys(coords)
    nonempty_keys, first, true_counts = np.unique(keys, return_index=True, return_counts=True)
    nonempty_coords = np.asarray(coords)[first]
    noisy = true_counts.astype(np.int64) + mech.noise(true_counts.shape, rng)
    keep = noisy >= threshold

    n_empty = grid.size - len(nonempty_keys)
    p = geometric_tail(epsilon, threshold)
    if n_empty <= _INT64_MAX:
        m = int(rng.binomial(n_empty, p))
    else:
        # n_empty can exceed a float (4**1617 cells at d = 1617): the mean in logs
        mean = math.exp(math.log(n_empty) + math.log(p)) if p > 0 else 0.0
        m = int(rng.poisson(mean))
    false_coords = _distinct_empty_cells(grid, m, nonempty_keys, rng)
    false_counts = threshold + geometric(epsilon, m, rng)

    cells = np.concatenate([nonempty_coords[keep], false_coords]).astype(grid.coord_dtype)
    counts = np.concatenate([noisy[keep], false_counts])
    order = np.argsort(grid.keys(cells), kind="stable")
    return SparseHistogram(cells=cells[order], counts=counts[order], threshold=int(threshold))


# -- phase 2 lookups ----------------------------------------------------------------


class _Weights:
    """Non-negative weight ``max(c, 0)`` of any cell of a released histogram."""

    def __init__(self, grid: Grid, histogram):
        self.grid = grid
        if isinstance(histogram, SparseHistogram):
            self.dense = None
            w = np.maximum(histogram.counts, 0)
            pos = w > 0
            self.keys = grid.keys(histogram.cells[pos])
            self.coords = histogram.cells[pos]
            self.values = w[pos]
        else:
            # one trailing zero: the weight of "no cell" (out-of-grid neighbours)
            # (int32: a noisy count beyond 2**31 would need more rows than numpy can index here)
            dense = np.clip(np.asarray(histogram).reshape(-1), 0, np.iinfo(np.int32).max)
            self.dense = np.append(dense, 0).astype(np.int32)
            self.keys = np.flatnonzero(self.dense)
            self.coords = None  # computed for the drawn centres only (see coords_of)
            self.values = self.dense[self.keys]

    def coords_of(self, index) -> np.ndarray:
        """Coordinates of the positive cells at positions ``index``."""
        if self.coords is not None:
            return self.coords[index]
        flat = self.keys[index]
        return (flat[:, None] // self.grid.strides % self.grid.n_cells).astype(self.grid.coord_dtype)

    def lookup(self, keys) -> np.ndarray:
        if self.dense is not None:
            return self.dense[keys]
        if len(self.keys) == 0:
            return np.zeros(len(keys), np.int64)
        pos = np.searchsorted(self.keys, keys)
        pos = np.minimum(pos, len(self.keys) - 1)
        return np.where(self.keys[pos] == keys, self.values[pos], 0)


def sample_synthetic(grid: Grid, histogram, n_samples: int, connectivity: int,
                     rng: np.random.Generator, offsets=None) -> np.ndarray:
    """Phase 2 of Algorithm 6: ``n_samples`` synthetic rows from a released histogram.

    Post-processing only. A centre cell ``q_i`` is drawn with probability
    ∝ ``max(c_i, 0)``; an ℓ-connected cell ``q_k`` (the centre included) with
    probability ∝ ``max(c_k, 0)``; then ``z_j = q_ij + u_j (q_kj − q_ij)`` with
    one uniform ``u_j`` per coordinate. If no cell has a positive count,
    centres and neighbours are drawn uniformly (still post-processing).
    """
    d = grid.n_features
    if n_samples <= 0:
        return np.zeros((0, d))
    if offsets is None:
        offsets = ball_offsets(d, connectivity, grid.n_cells)
    dense_off, support, delta = offsets
    weights = _Weights(grid, histogram)
    uniform = len(weights.values) == 0

    if uniform:
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
    sup_delta = [(support[:, s], delta[:, s].astype(grid.coord_dtype))
                 for s in range(support.shape[1])]
    chosen = []
    for start in range(0, len(sel_coords), step):
        c = sel_coords[start:start + step]
        m = reps[start:start + step]
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
            nb = grid.keys(rows.reshape(-1, d))
            w = np.where(valid.ravel(), weights.lookup(nb), 0)
        flat_cum = np.cumsum(w, dtype=np.int64)
        ends = flat_cum[n_off - 1::n_off]  # cumulative mass at the end of each row
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
    centre = grid.random_coordinates(n_samples, rng).astype(np.int64)
    neighbour = np.empty_like(centre)
    todo = np.arange(n_samples)
    while todo.size:
        cand = centre[todo] + dense_off[rng.integers(0, len(dense_off), size=todo.size)]
        ok = np.all((cand >= 0) & (cand < grid.n_cells), axis=1)
        neighbour[todo[ok]] = cand[ok]
        todo = todo[~ok]
    return _interpolate(grid, centre, neighbour, rng)
