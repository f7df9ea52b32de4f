"""The analyst's calibrated detector: a Poisson baseline per cell, release noise convolved in.

Reads DP releases and their public noise parameters only. Each cell's rate gets a confidence
interval from the learning windows; later cells are tested against its worst rate (Berger and
Boos 1994) with Holm's correction. Tails of ``C + Z`` (Poisson plus geometric-tailed noise) have
a closed form at the tilted rate ``μ/q`` (or ``μq``), in log space so that nothing overflows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

# Chernoff parameters t (fractions of the largest): every t is valid, the grid sets tightness
_CHERNOFF_GRID = np.geomspace(1e-4, 1.0 - 1e-6, 160)
# below this a log CDF/SF from scipy may be a subnormal's log, or -inf
_LOG_UNDERFLOW = -700.0
# rates are floored here so that log pmfs stay finite
_MIN_RATE = 1e-9


@dataclass(frozen=True)
class ReleaseNoise:
    """The noise of one release, in count units."""

    decay: float  # q in (0, 1): P(Z = z) (or the density) is ∝ q^|z|
    lattice: bool  # two-sided geometric noise on the integers; False: Laplace

    @classmethod
    def of_scale(cls, scale: float, lattice: bool) -> "ReleaseNoise":
        """Noise whose density is ``∝ exp(-|z| / scale)``."""
        return cls(math.exp(-1.0 / scale), lattice)

    @property
    def scale(self) -> float:
        """``-1 / log(decay)``: the Laplace scale b."""
        return -1.0 / math.log(self.decay)

    @property
    def variance(self) -> float:
        q = self.decay
        return 2.0 * q / (1.0 - q) ** 2 if self.lattice else 2.0 * self.scale**2

    def log_mgf(self, t) -> np.ndarray:
        """``log E exp(tZ)`` for ``|t| < 1/scale``."""
        t = np.asarray(t, dtype=np.float64)
        if self.lattice:
            q = self.decay
            return 2.0 * math.log1p(-q) - np.log1p(-q * np.exp(t)) - np.log1p(-q * np.exp(-t))
        return -np.log1p(-((self.scale * t) ** 2))

    @property
    def _edge(self) -> tuple[float, int]:
        """``(A, δ)``: ``P(Z >= t) = A q^t`` for t > 0 (t >= 1 on the lattice), and
        ``P(Z <= -t) = A q^(t + δ - 1)`` likewise."""
        return (1.0 / (1.0 + self.decay), 1) if self.lattice else (0.5, 0)


def _log_pmf(n, rate):
    """Poisson log pmf for integer-valued ``n >= 0`` (scipy.special ufuncs: no overhead)."""
    return special.xlogy(n, rate) - rate - special.gammaln(n + 1.0)


def _cdf(n, rate):
    """``P(X <= n)``, 0 for n < 0."""
    return special.pdtr(np.maximum(n, 0.0), rate) * (n >= 0)


def _sf(n, rate):
    """``P(X >= n)``, 1 for n <= 0."""
    return np.where(n <= 0, 1.0, special.pdtrc(np.maximum(n - 1.0, 0.0), rate))


def _log_cdf_ratio(n, rate):
    """``log(F(n; rate) / pmf(n; rate))`` for n >= 0: at least 0, finite (a geometric
    series bound where the CDF underflows)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        log_cdf = np.log(_cdf(n, rate))
        exact = log_cdf - _log_pmf(n, rate)
        bound = -np.log1p(-np.minimum(n / rate, 1.0 - 1e-12))
    return np.where(log_cdf > _LOG_UNDERFLOW, np.maximum(exact, 0.0), bound)


def _log_sf_ratio(n, rate):
    """``log(P(X >= n; rate) / pmf(n; rate))`` for n >= 0, with the upper-tail bound."""
    with np.errstate(divide="ignore", invalid="ignore"):
        log_sf = np.log(_sf(n, rate))
        exact = log_sf - _log_pmf(n, rate)
        bound = -np.log1p(-np.minimum(rate / (n + 1.0), 1.0 - 1e-12))
    return np.where(log_sf > _LOG_UNDERFLOW, np.maximum(exact, 0.0), bound)


def _tilted_term(log_coef, n, mu, rate, ratio):
    """``exp(log_coef) · pmf(n; mu) · ratio(n; rate)``, 0 where ``n < 0``."""
    valid = n >= 0
    safe_n = np.where(valid, n, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_term = log_coef + _log_pmf(safe_n, mu) + ratio(safe_n, rate)
        return np.where(valid, np.exp(log_term), 0.0)


def noisy_poisson_sf(x, mu, noise: ReleaseNoise) -> np.ndarray:
    """``P(C + Z >= x)`` for ``C ~ Poisson(mu)`` and the release noise ``Z``, in [0, 1].

    ``x`` in count units (integers for lattice noise), broadcast with ``mu``.

    Examples
    --------
    >>> from skdp_anomaly.dpoad._baseline import ReleaseNoise, noisy_poisson_sf
    >>> noise = ReleaseNoise.of_scale(1.0, lattice=True)
    >>> noisy_poisson_sf([0, 10, 20], 5.0, noise).round(4).tolist()   # Poisson(5) + noise
    [0.9886, 0.0493, 0.0]
    """
    x = np.asarray(x, dtype=np.float64)
    mu = np.maximum(np.asarray(mu, dtype=np.float64), _MIN_RATE)
    q = noise.decay
    log_q = math.log(q)
    a, delta = noise._edge
    n0 = np.maximum(np.ceil(x), 0.0)
    # c < x: the noise lifts c to x, P = A q^(x - c)
    below = _tilted_term(math.log(a) + (x - n0 + 1.0) * log_q, n0 - 1.0, mu, mu / q, _log_cdf_ratio)
    # c >= x: the noise does not pull c below x, P = 1 - A q^(c - x + δ)
    at_or_above = _sf(n0, mu)
    pulled = _tilted_term(math.log(a) + (delta - x + n0) * log_q, n0, mu, mu * q, _log_sf_ratio)
    return np.clip(below + at_or_above - np.minimum(pulled, at_or_above), 0.0, 1.0)


def noisy_poisson_cdf(x, mu, noise: ReleaseNoise) -> np.ndarray:
    """``P(C + Z <= x)`` for ``C ~ Poisson(mu)`` and the release noise ``Z``.

    See :func:`noisy_poisson_sf`.
    """
    x = np.asarray(x, dtype=np.float64)
    mu = np.maximum(np.asarray(mu, dtype=np.float64), _MIN_RATE)
    q = noise.decay
    log_q = math.log(q)
    a, delta = noise._edge
    n1 = np.maximum(np.floor(x), -1.0)
    # c > x: the noise pulls c down to x, P = A q^(c - x)
    above = _tilted_term(math.log(a) + (n1 + 1.0 - x) * log_q, n1 + 1.0, mu, mu * q, _log_sf_ratio)
    # c <= x: the noise does not lift c above x, P = 1 - A q^(x - c + δ)
    at_or_below = _cdf(n1, mu)
    lifted = _tilted_term(math.log(a) + (delta + x - n1) * log_q, n1, mu, mu / q, _log_cdf_ratio)
    return np.clip(above + at_or_below - np.minimum(lifted, at_or_below), 0.0, 1.0)


def poisson_rate_bounds(totals, n_windows: int, noises, miss: float):
    """``(lower, upper)`` Chernoff bounds for Poisson rates from noisy totals over
    ``n_windows`` windows, each missing with probability at most ``miss/2``."""
    totals = np.asarray(totals, dtype=np.float64)[:, None]
    t = _CHERNOFF_GRID * min(1.0 / z.scale for z in noises)
    log_noise = sum(z.log_mgf(t) for z in noises)  # symmetric noise: K(t) = K(-t)
    log_miss = math.log(miss / 2.0)
    # P(Y <= y) <= exp(Lμ(e^-t - 1) + K(t) + t y): below miss/2 for μ above ...
    upper = (log_miss - log_noise - t * totals) / (n_windows * np.expm1(-t))
    # P(Y >= y) <= exp(Lμ(e^t - 1) + K(t) - t y): below miss/2 for μ below ...
    lower = (log_miss - log_noise + t * totals) / (n_windows * np.expm1(t))
    lower = np.maximum(lower.max(axis=1), 0.0)
    # totals far below any rate's reach leave no rate: the interval shrinks to its low end
    return lower, np.maximum(upper.min(axis=1), lower)


def exact_rate_bounds(counts, noise: ReleaseNoise, miss: float, iterations: int = 45):
    """``(lower, upper)`` exact bounds for Poisson rates from one window's noisy counts
    (bisection), each missing with probability at most ``miss/2``."""
    # one bisection per distinct count: cells share counts
    x, inverse = np.unique(np.asarray(counts, dtype=np.float64), return_inverse=True)
    level = miss / 2.0
    top = np.maximum(x, 0.0) + 40.0 * (noise.scale + np.sqrt(np.maximum(x, 0.0)) + 1.0)

    def bisect(lo, hi, keep_low):  # keep_low(mu): mu is still inside the interval
        for _ in range(iterations):
            mid = 0.5 * (lo + hi)
            inside = keep_low(mid)
            lo, hi = np.where(inside, mid, lo), np.where(inside, hi, mid)
        return lo, hi

    _, upper = bisect(np.zeros_like(x), top, lambda mu: noisy_poisson_cdf(x, mu, noise) >= level)
    lower, _ = bisect(np.zeros_like(x), top, lambda mu: noisy_poisson_sf(x, mu, noise) < level)
    return lower[inverse], upper[inverse]


def holm_adjust(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error under any dependence).

    Examples
    --------
    >>> from skdp_anomaly.dpoad._baseline import holm_adjust
    >>> holm_adjust([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


class HolmTest:  # a baseline's window test, from its p_values and alpha
    def test(self, x, noise: ReleaseNoise) -> tuple[np.ndarray, np.ndarray]:
        """Holm-adjusted p-values of one window's cells and the cells flagged at ``alpha``."""
        adjusted = holm_adjust(self.p_values(x, noise))
        return adjusted, adjusted <= self.alpha


@dataclass(frozen=True, eq=False)  # arrays: compared by identity, like an estimator
class PoissonBaseline(HolmTest):
    """Each cell's count rate, learnt from the learning windows' releases."""

    expected: np.ndarray  # (n_cells,) mean noisy count over the learning windows, floored at 0
    lower: np.ndarray  # lower and upper each miss the cell's rate with probability <= miss / 2
    upper: np.ndarray
    miss: float  # the miss probability of each cell's interval, alpha / (2 n_cells)
    alpha: float  # the window-wise false-alarm level

    @classmethod
    def learn(cls, counts, noises, alpha: float) -> "PoissonBaseline":
        """Fit from the learning windows' noisy counts (shape (n_windows, n_cells))."""
        counts = np.asarray(counts, dtype=np.float64)
        n_windows, n_cells = counts.shape
        miss = alpha / (2.0 * n_cells)
        totals = counts.sum(axis=0)
        if n_windows == 1:
            lower, upper = exact_rate_bounds(totals, noises[0], miss)
        else:
            lower, upper = poisson_rate_bounds(totals, n_windows, noises, miss)
        return cls(np.maximum(totals / n_windows, 0.0), lower, upper, miss, alpha)

    def p_values(self, x, noise: ReleaseNoise) -> np.ndarray:
        """Each cell's two-sided Berger–Boos p-value (worst rate in the interval, plus ``miss``)."""
        # only the tail on x's side of the interval's middle can be below 1/2
        x = np.asarray(x, dtype=np.float64)
        high = x >= 0.5 * (self.lower + self.upper)
        tail = np.empty_like(x)
        tail[high] = noisy_poisson_sf(x[high], self.upper[high], noise)
        tail[~high] = noisy_poisson_cdf(x[~high], self.lower[~high], noise)
        return np.minimum(2.0 * tail + self.miss, 1.0)

    def detectable_excess(self, noise: ReleaseNoise) -> float:
        """Counts above expected at which a median cell is flagged half the time (public: reads
        the baseline and the noise scale only)."""
        n_cells = self.expected.size
        cell = int(np.argsort(self.upper)[n_cells // 2])
        level = (self.alpha / n_cells - self.miss) / 2.0
        mu = self.upper[cell]
        lo, hi = mu, mu + 60.0 * (noise.scale + math.sqrt(mu) + 1.0)
        for _ in range(45):
            mid = 0.5 * (lo + hi)
            if noisy_poisson_sf(np.ceil(mid) if noise.lattice else mid, mu, noise) <= level:
                hi = mid
            else:
                lo = mid
        return float(hi - self.expected[cell])
