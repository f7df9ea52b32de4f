"""The online threshold at a false-alarm level: ONLINEPNCPD (Lut 2022, Algorithm 4) without
a hand-chosen ``T``, for streams of any length.

AboveThreshold alarms on the first ``q_j + ν_j >= T + ρ`` (query noise ``ν_j``, one threshold noise
``ρ``). The null queries read ranks only, so their law is public (uniform permutations, or the ranks
of a Gaussian AR(1)): :func:`calibrated_threshold` simulates ``B = 2000`` blocks of
``L = max(2000, 10 · window)`` points (or ``horizon``) with their query noise and bounds the tail
``s(t) = P(Y >= t)`` of a block's largest noisy query ``Y`` (:class:`_BlockTail`). The blocks'
dependence is positive, so ``P(alarm within the horizon | ρ) <= 1 - (1 - s(T + ρ))^K`` with
``K = (horizon - window + 1) / (L - window + 1)``, and the mean run length given ``ρ`` is at least
``window + (L - window + 1) (1 - s) / s``, both integrated over the exact law of ``ρ``. Every step
errs towards fewer alarms; no data is read and the seed is fixed, so the threshold is public.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np

from .._jit import lazy_njit
from ..exceptions import naming
from ..privacy import AboveThreshold
from ._core import centre_queries
from ._dependence import ar1_ranks

njit = lazy_njit(globals())  # compiled at the first call: importing needs no numba

_CAL_SEED = 20_221_101
#: simulated blocks per setting (the 50-th largest maximum, the tail anchor, then
#: has a relative Monte Carlo error of about 14 %)
_N_BLOCKS = 2000
_TAIL_ANCHOR, _TAIL_CHORD = 50, 200
#: rows of ranks held at once (memory ~ 8 bytes each)
_CHUNK_POINTS = 2_000_000
#: simulated points from which a progress bar is shown (about a second of work)
_PROGRESS_POINTS = 8_000_000

#: The default run length to a false alarm, in windows: ``arl0 = 1000 · window``
#: (half a million points at window 500). See :func:`default_arl0`.
DEFAULT_ARL0_WINDOWS = 1000


def default_arl0(window: int) -> int:
    """The default average run length to a false alarm: ``1000 · window`` points (public); a
    false alarm within the first ``m`` points has probability about ``m / arl0``."""
    return DEFAULT_ARL0_WINDOWS * int(window)


def block_length(window: int) -> int:
    """Points per simulated block: ten windows, at least 2000."""
    return max(2000, 10 * int(window))


@njit(cache=True, nogil=True)
def _fenwick_add(tree, value, delta):
    """Count ``value`` (an int in ``[0, L)``) ``delta`` more times in a Fenwick tree."""
    v = value + 1
    while v < tree.size:
        tree[v] += delta
        v += v & -v


@njit(cache=True, nogil=True)
def _fenwick_below(tree, bound):
    """How many values counted in a Fenwick tree are below ``bound``."""
    c = 0
    v = bound
    while v > 0:
        c += tree[v]
        v -= v & -v
    return c


@njit(cache=True, nogil=True)
def _centre_counts_into(ranks, h, out, first, last):
    """Strict centre counts ``M(s)`` of every window of rows ``first:last`` of ``ranks``
    (distinct ints in ``[0, L)``); each half is a Fenwick tree: O(log L) per step."""
    length = ranks.shape[1]
    q = length - 2 * h + 1
    left = np.zeros(length + 1, dtype=np.int32)
    right = np.zeros(length + 1, dtype=np.int32)
    for r in range(first, last):
        left[:] = 0
        right[:] = 0
        x = ranks[r]
        m = 0
        for i in range(h):
            _fenwick_add(left, x[i], 1)
        for j in range(h, 2 * h):
            m += h - _fenwick_below(left, x[j] + 1)  # left values above x[j]
            _fenwick_add(right, x[j], 1)
        out[r, 0] = m
        for s in range(q - 1):
            leave, mid, join = x[s], x[s + h], x[s + 2 * h]
            m -= _fenwick_below(right, leave)  # leave exits the left half
            _fenwick_add(left, leave, -1)
            _fenwick_add(right, mid, -1)  # mid moves from the right half to the left
            m -= (h - 1) - _fenwick_below(left, mid + 1)
            m += _fenwick_below(right, mid)
            _fenwick_add(left, mid, 1)
            m += h - _fenwick_below(left, join + 1)  # join enters the right half
            _fenwick_add(right, join, 1)
            out[r, s + 1] = m


@njit(cache=True, nogil=True)
def _shuffle_rows_into(seeds, out, first, last):
    """A uniform random permutation of ``0..L-1`` in each row ``first:last`` of ``out``
    (Fisher–Yates; splitmix64 seeded per row, bounded draws by rejection, so the rows do not
    depend on how they are split between threads)."""
    length = out.shape[1]
    for r in range(first, last):
        state = np.uint64(seeds[r])
        row = out[r]
        for i in range(length):
            row[i] = i
        for i in range(length - 1, 0, -1):
            bound = np.uint64(i + 1)
            limit = np.uint64(0xFFFFFFFFFFFFFFFF) - (np.uint64(0xFFFFFFFFFFFFFFFF) % bound)
            while True:
                state += np.uint64(0x9E3779B97F4A7C15)
                z = state
                z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
                z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
                z = z ^ (z >> np.uint64(31))
                if z < limit:
                    break
            j = np.int64(z % bound)
            row[i], row[j] = row[j], row[i]


def _by_rows(kernel, n_rows: int, *args) -> None:
    """``kernel(*args, first, last)`` over row ranges, one per core: rows are independent
    and the kernels release the GIL."""
    workers = max(1, min(n_rows, os.cpu_count() or 1, 8))
    cuts = np.linspace(0, n_rows, workers + 1).astype(int)
    if workers == 1:
        kernel(*args, 0, n_rows)
        return
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda a, b: kernel(*args, a, b), cuts[:-1], cuts[1:]))


def null_centre_counts(ranks: np.ndarray, window: int) -> np.ndarray:
    """Strict centre counts of every window of every row of distinct int ranks (int64)."""
    ranks = np.ascontiguousarray(ranks, dtype=np.int32)
    n_rows, length = ranks.shape
    out = np.empty((n_rows, length - window + 1), dtype=np.int64)
    _by_rows(_centre_counts_into, n_rows, ranks, window // 2, out)
    return out


def null_ranks(n_rows: int, length: int, rho: float, rng: np.random.Generator) -> np.ndarray:
    """Ranks of ``n_rows`` null streams: uniform permutations (``rho = 0``) or those of a
    stationary Gaussian AR(1) with lag-1 correlation ``rho``."""
    if rho == 0.0:
        out = np.empty((n_rows, length), dtype=np.int32)
        seeds = rng.integers(0, 2**63, size=n_rows, dtype=np.int64)
        _by_rows(_shuffle_rows_into, n_rows, seeds, out)
        return out
    return ar1_ranks(n_rows, length, rho, rng).astype(np.int32)


def _step_table(window: int, direction: str, proto: AboveThreshold) -> np.ndarray:
    """The query of each possible centre count ``M`` (``0..h²``) in grid steps, rounded
    exactly as AboveThreshold rounds ``U = M / h²`` (a lookup per query)."""
    h = window // 2
    return proto.to_steps(centre_queries(np.arange(h * h + 1) / float(h * h), direction))


def _laplace_steps(rate: float, shape, rng: np.random.Generator) -> np.ndarray:
    """Two-sided geometric draws ``P(Z = k) ∝ exp(-rate |k|)``, by inversion: the law of
    AboveThreshold's query noise, faster than the mechanism's sampler, whose privacy guards
    a simulation of public quantities does not need."""
    a = np.floor(rng.standard_exponential(shape) / rate)
    a -= np.floor(rng.standard_exponential(shape) / rate)
    return a.astype(np.int64)


def _progress(total_points: int, n_blocks: int):
    from tqdm.auto import tqdm

    quiet = True if total_points < _PROGRESS_POINTS else None  # None: shown on a terminal
    desc = "calibrating the online threshold (once per setting)"
    return tqdm(total=n_blocks, unit="block", leave=False, desc=desc, disable=quiet)


@lru_cache(maxsize=64)
def _block_maxima(
    window: int, length: int, direction: str, epsilon: float, rho: float
) -> np.ndarray:
    """Sorted largest noisy query (grid steps) of each of ``_N_BLOCKS`` null blocks."""
    rho_code = int(round(rho * 1_000_000))
    rank_rng = np.random.default_rng([_CAL_SEED, window, length, rho_code])
    # another stream for the noise: the same ranks serve every epsilon
    noise_rng = np.random.default_rng([_CAL_SEED, window, length, rho_code, 1])
    noisy = not math.isinf(epsilon)
    proto = _prototype(window, epsilon if noisy else 1.0)
    table = _step_table(window, direction, proto)
    rows = max(1, _CHUNK_POINTS // length)
    out = np.empty(_N_BLOCKS, dtype=np.int64)
    with _progress(_N_BLOCKS * length, _N_BLOCKS) as bar:
        for a in range(0, _N_BLOCKS, rows):
            b = min(_N_BLOCKS, a + rows)
            counts = null_centre_counts(null_ranks(b - a, length, rho, rank_rng), window)
            steps = table[counts]
            if noisy:
                steps += _laplace_steps(epsilon / (4 * proto.steps), steps.shape, noise_rng)
            out[a:b] = steps.max(axis=1)
            bar.update(b - a)
    out.sort()
    out.flags.writeable = False
    return out


def _prototype(window: int, epsilon: float) -> AboveThreshold:
    """An AboveThreshold with the run's grid and noise rates (its own noisy threshold unused)."""
    return AboveThreshold(
        threshold=0.5, epsilon=epsilon, sensitivity=2.0 / window, rng=np.random.default_rng(0)
    )


class _BlockTail:
    """Upper bound on ``s(t) = P(Y >= t)`` of a block's largest noisy query ``Y``: ``(k + 2√k) / B``
    (``k`` of the ``B`` blocks reach ``t``), beyond the 50-th largest ``Y`` the exponential chord
    through the 200-th and 50-th (log-concave tail), above ``q = 1`` the query noise alone."""

    def __init__(self, maxima: np.ndarray, n_queries: int, top: int, noise_rate: float):
        self.y, self.n = maxima, maxima.size
        self.n_queries, self.top, self.noise_rate = n_queries, top, noise_rate
        self.anchor = int(maxima[-_TAIL_ANCHOR])
        chord = int(maxima[-_TAIL_CHORD])
        k_anchor, k_chord = self.count(self.anchor), self.count(chord)
        # the chord's slope less one standard error of its counts, and never steeper
        # than the query noise's own tail, the limit of a log-concave tail's slope
        ratio = (k_chord - math.sqrt(k_chord)) / (k_anchor + math.sqrt(k_anchor))
        if self.anchor > chord and ratio > 1:
            self.rate = min(math.log(ratio) / (self.anchor - chord), noise_rate)
        else:  # a lattice statistic without noise: no slope to read, only the bound q <= 1
            self.rate = 0.0
        self.s_anchor = self.upper(k_anchor)

    def count(self, t):
        return self.n - np.searchsorted(self.y, t, side="left")

    def upper(self, k):
        k = np.asarray(k, dtype=np.float64)
        return np.minimum(1.0, (k + 2.0 * np.sqrt(k)) / self.n)

    def noise_bound(self, t):
        """Only the query noise can take a query above 1: a union bound over the block."""
        excess = np.asarray(t, dtype=np.float64) - self.top
        if math.isinf(self.noise_rate):
            return np.where(excess > 0, 0.0, 1.0)
        p = math.exp(-self.noise_rate)
        bound = self.n_queries * np.exp(-self.noise_rate * excess) / (1 + p)
        return np.where(excess > 0, bound, 1.0)

    def _model(self, t):
        """The chord's exponential tail beyond the anchor (valid for ``t >= anchor``)."""
        return self.s_anchor * np.exp(-self.rate * np.maximum(t - self.anchor, 0.0))

    def at(self, t):
        """Upper bound on ``s(t)`` at the points ``t``."""
        t = np.asarray(t, dtype=np.float64)
        inside = self.upper(self.count(np.minimum(t, self.anchor)))
        return np.minimum(np.where(t > self.anchor, self._model(t), inside), self.noise_bound(t))

    def on_intervals(self, grid: np.ndarray) -> np.ndarray:
        """Upper bounds on ``s`` over ``(-inf, g0]``, each ``(g[i-1], g[i]]`` and
        ``(g[-1], inf)``: exact right ends below the anchor (``s`` is constant between
        simulated values), left ends of the decreasing tail above it."""
        a, b = grid[:-1], grid[1:]
        below = self.upper(self.count(np.minimum(b, self.anchor)))
        inside = np.where(b <= self.anchor, below, self._model(a))
        last = min(float(self._model(grid[-1])), float(self.noise_bound(grid[-1])))
        return np.concatenate([[1.0], np.minimum(inside, self.noise_bound(a)), [last]])

    def breakpoints(self, lo: float, hi: float) -> np.ndarray:
        """Every distinct simulated maximum up to the anchor, then a grid on which the tail
        bound changes by at most 5 % per interval, up to ``hi``."""
        bulk = self.y[self.y <= self.anchor].astype(np.float64)
        rates = [r for r in (self.rate, self.noise_rate) if 0 < r < math.inf]
        span = max(hi - self.anchor, 0.0)
        step = max(1.0, 0.05 / max(rates)) if rates else max(1.0, span / 1000)
        n = min(20_000, int(math.ceil(span / step)) + 1)
        tail = np.ceil(self.anchor + np.linspace(0.0, span, n + 1)[1:])
        grid = np.unique(np.concatenate([bulk, tail, [self.top + 1.0]]))
        return grid[grid >= lo]


def _laplace_sf(k, rate: float) -> np.ndarray:
    """``P(Z > k)`` for the two-sided geometric ``P(Z = k) ∝ exp(-rate |k|)`` (computed on
    the side where it is small, for relative precision)."""
    k = np.floor(np.asarray(k, dtype=np.float64))
    q = 1.0 + math.exp(-rate)
    upper = np.exp(-rate * (np.maximum(k, -1.0) + 1.0)) / q
    return np.where(k >= 0, upper, 1.0 - np.exp(rate * np.minimum(k, 0.0)) / q)


def _integrate(threshold: int, tail: _BlockTail, rho_rate: float, value, reach: float) -> float:
    """``E_ρ[value(s(T + ρ))]`` over the exact law of the threshold noise ``ρ``, ``value`` evaluated
    at the bound on ``s`` over each interval (conservative for a ``value`` decreasing in ``s``)."""
    grid = tail.breakpoints(threshold - reach, threshold + reach)
    if grid.size == 0:
        grid = np.array([float(threshold - reach)])
    sf = _laplace_sf(grid - threshold, rho_rate)
    # T + ρ <= g0, in (g[i-1], g[i]], > g[-1]
    weights = np.concatenate([[1.0 - sf[0]], sf[:-1] - sf[1:], [sf[-1]]])
    return float(np.dot(weights, value(tail.on_intervals(grid))))


def _smallest_threshold(ok, lo: int, hi: int) -> int:
    """The smallest integer ``T`` in ``[lo, hi]`` with ``ok(T)`` (``ok`` monotone)."""
    while not ok(hi):
        hi += hi - lo
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def check_target(window, horizon, arl0):
    """Refuse a ``horizon`` or ``arl0`` too short for ``window``, or both at once."""
    if horizon is not None and arl0 is not None:
        raise naming(ValueError, "give `horizon` or `arl0`, not both.")
    if horizon is not None and horizon < window:
        raise naming(ValueError, f"`horizon` must be at least `window={window}`, got {horizon!r}.")
    if arl0 is not None and arl0 < 2 * window:
        raise naming(ValueError, f"`arl0` must be at least 2 * window={2 * window}, got {arl0!r}.")


@lru_cache(maxsize=256)
def calibrated_threshold(
    window: int,
    epsilon: float,
    direction: str,
    alpha: float,
    *,
    horizon: int | None = None,
    arl0: int | None = None,
    rho: float = 0.0,
) -> float:
    """AboveThreshold's ``T`` for a false-alarm level on a stream without change.

    ``epsilon`` is AboveThreshold's share (``np.inf``: no noise, alarm iff ``q > T``); the
    query is ``U``, ``1 - U`` or ``max(U, 1 - U)`` by ``direction``. Target:
    ``P(any alarm within horizon points) <= alpha``, or a mean run length to a false alarm
    of at least ``arl0`` points (default :func:`default_arl0`). ``rho``: lag-1 correlation
    of the AR(1) null (0: exchangeable values). Returns ``T`` on the mechanism's grid (exact
    float), cached per setting and process.

    Examples
    --------
    >>> from skdp_anomaly.changepoint._online_calibration import calibrated_threshold
    >>> t = calibrated_threshold(20, 4.0, "decrease", 0.05, horizon=200)
    >>> 0.5 < t < 1.5
    True
    """
    window, rho = int(window), float(rho)
    check_target(window, horizon, arl0)
    if not 0.0 <= rho <= 0.95:
        raise ValueError(f"rho must be in [0, 0.95], got {rho!r}.")
    if horizon is None and arl0 is None:
        arl0 = default_arl0(window)
    length = block_length(window) if horizon is None else min(int(horizon), block_length(window))
    maxima = _block_maxima(window, length, direction, float(epsilon), rho)
    noiseless = math.isinf(epsilon)
    proto = _prototype(window, 1.0 if noiseless else epsilon)
    per_block = length - window + 1
    query_rate = math.inf if noiseless else epsilon / (4 * proto.steps)
    tail = _BlockTail(maxima, per_block, int(proto.to_steps(1.0)), query_rate)
    if horizon is not None:
        n_blocks = (int(horizon) - window + 1) / per_block

        def value(s):  # alarm probability within the horizon, as a "no alarm" deficit
            return -(1.0 - np.power(np.clip(1.0 - s, 0.0, 1.0), n_blocks))

        goal = -float(alpha)
    else:

        def value(s):
            return window + per_block * (1.0 - s) / np.maximum(s, 1e-300)

        goal = float(arl0)
    if noiseless:  # alarm iff q > T, i.e. the block maximum reaches T + 1
        reach = 1.0

        def ok(t):
            return float(value(tail.at(np.array([t + 1.0])))[0]) >= goal
    else:
        rho_rate = epsilon / (2 * proto.steps)
        reach = 60.0 / rho_rate  # the threshold noise beyond 60 scales: e^-60

        def ok(t):
            return _integrate(t, tail, rho_rate, value, reach) >= goal

    t_steps = _smallest_threshold(ok, int(maxima[0] - reach) - 2, int(tail.top) + 2)
    return float(t_steps * proto.granularity)
