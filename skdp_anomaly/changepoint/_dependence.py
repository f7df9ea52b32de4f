"""Serial dependence for the rank change-point test: a private, level-shift-free bound on the lag-1
dependence, and the AR(1) null the test is calibrated under.

Positive autocorrelation makes the rank CUSUM of :mod:`._binseg` wander further (by the square root
of :func:`rank_long_run_factor`), so a test calibrated for exchangeable values reports changes that
are not there. The number of turning points (:func:`turning_points`) reads the order of neighbouring
values only, so a level shift moves it by at most 2 (a change does not pass for dependence); it has
sensitivity 2 under replace-one neighbours and is released with two-sided geometric noise (proof:
:ref:`proofs-changepoint` on :doc:`/proofs`). For a stationary Gaussian AR(1) with lag-1 correlation
``φ`` (or any monotone transform of one), ``P(turning point) = 1/2 + arcsin((1 - φ)/2)/π`` (``2/3``
for i.i.d. values); the test uses the bound ``φ⁺`` of :func:`dependence_bound` and the simulated
AR(1) null with ``φ⁺``; above :data:`MAX_RHO` no test is made.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.signal import lfilter

from ..privacy import GeometricMechanism

#: Replacing one value moves the turning-point count by at most 2 (see docs/proofs.md).
TURNING_POINT_SENSITIVITY = 2
#: The AR(1) nulls are simulated on this grid of φ (the bound is rounded up to it).
RHO_STEP = 0.05
#: Largest φ the test is calibrated for; beyond, the series is too close to a
#: random walk for a change in level to be told from its wandering.
MAX_RHO = 0.95
#: Standard deviations by which the noisy turning-point rate is lowered (see Notes
#: of :func:`dependence_bound`).
BOUND_Z = 0.25
#: The estimated bound is never below this ``φ``: where ``ε n`` is small the noisy
#: count cannot tell ``φ = 0`` from ``φ = 0.5``, and calibrating for ``φ = 0.5``
#: costs i.i.d. series almost no power (see :func:`dependence_bound`).
RHO_FLOOR = 0.5


def turning_points(x: np.ndarray, rng: np.random.Generator) -> int:
    """``#{i : (x_i - x_{i-1})(x_{i+1} - x_i) < 0}``, ties broken at random.

    Equal values are ordered by uniform keys from ``rng`` (private, never released), so ties
    look like exchangeable values, not dependence. For every fixed set of keys ``Δ = 2``, so it
    holds for the mixture too.
    """
    x = np.asarray(x, dtype=np.float64)
    order = np.lexsort((rng.random(x.size), x))
    ranks = np.empty(x.size, dtype=np.int64)
    ranks[order] = np.arange(x.size)
    d = np.diff(ranks)
    return int(np.count_nonzero((d[1:] > 0) != (d[:-1] > 0)))


def turning_rate(phi: float) -> float:
    """``P(turning point)`` of a stationary Gaussian AR(1) series with lag-1 correlation ``phi``."""
    return 0.5 + math.asin((1.0 - phi) / 2.0) / math.pi


def rho_from_turning_rate(p: float) -> float:
    """The AR(1) ``φ`` whose turning-point probability is ``p`` (clipped to ``[0, 1]``)."""
    p = min(max(float(p), 0.5), 2.0 / 3.0)
    return min(1.0, max(0.0, 1.0 - 2.0 * math.sin(math.pi * (p - 0.5))))


def rank_long_run_factor(phi: float, lags: int = 10_000) -> float:
    """``f = 1 + 2 Σ_h (6/π) arcsin(φ^h / 2)``: the long-run variance of the ranks of a
    Gaussian AR(1) series relative to i.i.d. values (Spearman's correlation of a Gaussian
    pair with correlation ``r`` is ``(6/π) arcsin(r/2)``)."""
    if phi <= 0:
        return 1.0
    h = np.arange(1, lags + 1)
    return float(1.0 + 2.0 * np.sum(6.0 / math.pi * np.arcsin(phi**h / 2.0)))


def _count_variance(n: int) -> float:
    """Variance of the turning-point count of ``n`` i.i.d. values: ``(16 n - 29)/90``."""
    return max(16.0 * n - 29.0, 1.0) / 90.0


def geometric_variance(mechanism: GeometricMechanism | None) -> float:
    """Variance of the two-sided geometric noise of ``mechanism`` (None: no noise, 0)."""
    if mechanism is None:
        return 0.0
    a = mechanism.epsilon / mechanism.sensitivity
    return 2.0 * math.exp(-a) / (1.0 - math.exp(-a)) ** 2


def p_lower_bound(
    noisy_count: int, n: int, mechanism: GeometricMechanism | None, z: float | None = None
) -> float:
    """The noisy turning-point rate lowered by ``z`` standard deviations of its sampling
    error (the i.i.d. variance ``(16n - 29)/90``) and of the noise (``mechanism`` None: the
    exact count of the non-private reference)."""
    z = BOUND_Z if z is None else z
    triples = max(n - 2, 1)
    sd = math.sqrt(_count_variance(n) + geometric_variance(mechanism)) / triples
    return noisy_count / triples - z * sd


def dependence_bound(
    noisy_count: int,
    n: int,
    mechanism: GeometricMechanism | None,
    z: float | None = None,
    floor: float | None = None,
) -> float:
    """``φ⁺``: an upper confidence bound on the AR(1) ``φ`` from the noisy turning points.

    Post-processing of the released count (``n`` is public): the rate ``count / (n - 2)`` lowered by
    ``z`` standard deviations of its sampling error and of the noise (:func:`p_lower_bound`), mapped
    to ``φ`` (:func:`rho_from_turning_rate`), floored and rounded up to :data:`RHO_STEP`. Returns
    ``inf`` above :data:`MAX_RHO` (no calibrated test possible).

    Notes
    -----
    Rounding up, the floor and lowering the rate make the bound exceed the true ``φ`` most of the
    time; the rest is covered by the test's conservatism at ``φ⁺``. ``z``, the floor, the 15 % share
    and :data:`MAX_RHO` were chosen on simulated AR(1) nulls.
    """
    p_low = p_lower_bound(noisy_count, n, mechanism, z)
    return round_up_rho(max(rho_from_turning_rate(p_low), RHO_FLOOR if floor is None else floor))


def round_up_rho(rho: float) -> float:
    """``rho`` (negative: 0) rounded up to :data:`RHO_STEP`; ``inf`` above :data:`MAX_RHO`."""
    rho = math.ceil(max(rho, 0.0) / RHO_STEP - 1e-9) * RHO_STEP
    return math.inf if rho > MAX_RHO + 1e-9 else round(rho, 2)


def ar1_ranks(rows: int, m: int, phi: float, rng: np.random.Generator) -> np.ndarray:
    """Series of ``m`` values of a stationary Gaussian AR(1) (``rows`` of them), as ranks
    (int64); ``phi = 0``: uniform random permutations."""
    if phi == 0:
        return rng.permuted(np.tile(np.arange(m, dtype=np.int64), (rows, 1)), axis=1)
    return row_ranks(ar1_filter(rng.standard_normal((rows, m)), phi))


def ar1_filter(e: np.ndarray, phi: float) -> np.ndarray:
    """Rows of a stationary Gaussian AR(1) from rows of i.i.d. standard normals ``e``
    (scaled in place); ``x_0 = e_0 ~ N(0, 1)``: stationary from the start."""
    e[:, 1:] *= math.sqrt(1.0 - phi * phi)
    return lfilter([1.0], [1.0, -phi], e, axis=1)


def row_ranks(v: np.ndarray) -> np.ndarray:
    """0-based ranks (int64) of the values of each row of ``v``."""
    order = np.argsort(v, axis=1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(v.shape[1], dtype=np.int64)[None, :], axis=1)
    return ranks
