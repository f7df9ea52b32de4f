"""Real values released on a power-of-two grid with integer noise.

``x + rng.laplace(0, b)`` computed in floating point can produce only a sparse
set of floats that depends on ``x``, so the bits of one output can tell two
neighbouring inputs apart (Mironov 2012; an attack on it gave ε >= 7 at a
claimed 1). Every real-valued release of the package therefore goes through
the grid of this module instead:

1. the true value is rounded to a multiple of a power of two ``g`` (exact:
   dividing by a power of two only shifts the exponent);
2. integer two-sided geometric (discrete Laplace) noise is added in units of
   ``g``, an exact int64 sum;
3. the noisy integer is multiplied by ``g`` (exact below ``2**53``).

The released float is ``g`` times an integer for every input, so its bits say
nothing beyond the noisy integer, which is ε-DP by the integer mechanism.
Rounding moves a coordinate by at most ``g/2``, so a query of L1 sensitivity
``Δ`` over at most ``c`` changed coordinates has integer sensitivity
``floor(Δ/g) + c`` steps; :func:`grid_for` picks ``g`` so that this exceeds
``Δ/g`` by at most a factor ``1 + 2**-GRID_BITS``.

The integer noise (:func:`geometric`, :func:`two_sided_geometric`) is drawn
so that every integer's probability is right to a relative error of about
``2**-49`` *at every rate*, and rates below :data:`MIN_INTEGER_RATE` are
refused. Inverting one exponential draw (numpy's sampler) is not enough at
small rates: its error grows like ``2**-50 / rate``, and once the geometric
mean passes ``2**63`` both draws saturate at the same maximum and the noise
cancels exactly (the input would be released). Below rate 1/2 the draw is
therefore split as ``G = K·B + R`` with ``B = 2**k`` near ``1/rate``: ``K`` is
a geometric count of blocks at a rate in ``[1/2, 1)`` (numpy's search
sampler, accurate there), ``R`` a geometric truncated to ``[0, B)`` drawn as
an exact uniform integer accepted with probability ``exp(-rate·R) ≥ e^-1``.
That product is exactly the geometric law. OpenDP samples it exactly with
rational arithmetic; the remaining difference is far below what any run of
the auditor can see.

References
----------
.. [1] I. Mironov. On significance of the least significant bits for
   differential privacy. CCS 2012.
.. [2] C. L. Canonne, G. Kamath, T. Steinke. The discrete Gaussian for
   differential privacy. NeurIPS 2020 (the discrete Laplace, §3).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["GRID_BITS", "MAX_STEPS", "MIN_INTEGER_RATE", "check_rate", "grid_for", "grid_steps",
           "to_steps", "from_steps", "geometric", "two_sided_geometric"]

#: the grid is at least ``2**GRID_BITS`` times finer than the sensitivity per coordinate
GRID_BITS = 20
#: integers beyond this magnitude are clamped (a 1-Lipschitz map: no extra sensitivity);
#: below ``2**53`` every integer times ``g`` is an exact double
MAX_STEPS = 2 ** 52
#: smallest rate ``ε/Δ`` (per unit of the integer query) the integer noise honours: the
#: block size is then at most ``2**49`` and the count of blocks would need to reach
#: ``2**14`` (probability ``e**-8192``) to leave int64; the noise's scale is ``2**50``
#: units, far beyond any query this package releases
MIN_INTEGER_RATE = 2.0 ** -50
#: at this rate and above, one inversion of numpy's exponential is accurate (search sampler)
_SEARCH_RATE = 0.5


def grid_for(sensitivity: float, coordinates: int = 1) -> float:
    """The grid spacing ``g``: the largest power of two with ``c·g <= Δ·2**-GRID_BITS``.

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity ``Δ`` of the real-valued query (positive, finite).
    coordinates : int, default=1
        ``c``, the most coordinates one neighbouring change can move (each
        may gain one grid step from rounding).

    Returns
    -------
    float
        A power of two.

    Examples
    --------
    >>> from skdp_anomaly.privacy._grid import grid_for
    >>> grid_for(1.0) == 2.0 ** -20
    True
    """
    mantissa, exponent = math.frexp(sensitivity / coordinates)  # Δ/c = m·2^e, m in [0.5, 1)
    return math.ldexp(1.0, exponent - 1 - GRID_BITS)


def grid_steps(sensitivity: float, granularity: float, coordinates: int = 1) -> int:
    """Integer L1 sensitivity ``floor(Δ/g) + c`` of the rounded query, in grid steps."""
    return int(math.floor(sensitivity / granularity)) + int(coordinates)


def to_steps(values, granularity: float) -> np.ndarray:
    """``values`` rounded to the grid, as int64 multiples of ``granularity`` (clamped).

    Raises ``ValueError`` on NaN or infinity: callers validate data first, so
    reaching this is a programming error, not a data-dependent event.
    """
    scaled = np.asarray(np.asarray(values, dtype=np.float64) / granularity)
    if not np.all(np.isfinite(scaled)):
        raise ValueError("a grid release needs finite values.")
    return np.rint(np.clip(scaled, -MAX_STEPS, MAX_STEPS)).astype(np.int64)


def from_steps(steps, granularity: float) -> np.ndarray:
    """The floats ``granularity · steps`` (exact: ``|steps|`` is clamped below ``2**53``)."""
    steps = np.clip(np.asarray(steps, dtype=np.int64), -MAX_STEPS, MAX_STEPS)
    return steps.astype(np.float64) * granularity


def check_rate(rate: float, name: str = "epsilon") -> None:
    """Refuse integer noise whose rate ``ε/Δ`` is below :data:`MIN_INTEGER_RATE`.

    Parameters
    ----------
    rate : float
        ``ε / Δ`` of the integer noise, ``Δ`` in units of the integer query
        (grid steps for a real-valued release).
    name : str, default="epsilon"
        What to name in the message.

    Raises
    ------
    ValueError
        Naming ``name`` and the smallest rate honoured.
    """
    if not rate >= MIN_INTEGER_RATE:
        raise ValueError(
            f"{name}: the integer noise's rate epsilon/sensitivity = {rate:.4g} (per unit of "
            f"the released integer) is below {MIN_INTEGER_RATE:.4g} = 2**-50, the smallest "
            "this package's samplers honour exactly (their draws would exceed the 64-bit "
            "range and the noise could cancel, releasing the input); use a larger epsilon.")


def geometric(rate: float, size, rng: np.random.Generator) -> np.ndarray:
    """Geometric noise on ``{0, 1, ...}`` with ``P(G = k) ∝ exp(-rate·k)`` (int64).

    Parameters
    ----------
    rate : float
        At least :data:`MIN_INTEGER_RATE` (refused otherwise, before any draw).
    size : int or tuple of int
        Shape of the noise.
    rng : numpy.random.Generator
        Source of the noise.

    Returns
    -------
    ndarray of int64
        The draws.
    """
    check_rate(rate, "geometric noise")
    if rate >= _SEARCH_RATE:
        return np.asarray(rng.geometric(-math.expm1(-rate), size=size), dtype=np.int64) - 1
    # G = K·B + R: K ~ Geometric0(1 - e^{-rate·B}), R ∝ e^{-rate·r} on [0, B)
    block = 1 << max(0, math.ceil(math.log2(_SEARCH_RATE / rate)))  # rate·B in [1/2, 1)
    count = np.asarray(rng.geometric(-math.expm1(-rate * block), size=size), dtype=np.int64) - 1
    rest = np.empty(count.shape, dtype=np.int64)
    todo = np.arange(rest.size)
    flat = rest.reshape(-1)
    while todo.size:
        r = rng.integers(0, block, size=todo.size, dtype=np.int64)
        keep = rng.random(todo.size) < np.exp(-rate * r.astype(np.float64))
        flat[todo[keep]] = r[keep]
        todo = todo[~keep]
    return count * block + rest


def two_sided_geometric(rate: float, size, rng: np.random.Generator) -> np.ndarray:
    """Integer noise with ``P(Z = k) ∝ exp(-rate·|k|)`` (int64), as a difference of geometrics.

    Parameters
    ----------
    rate : float
        ``ε / Δ`` for an integer query of sensitivity ``Δ``; at least
        :data:`MIN_INTEGER_RATE` (refused otherwise, before any draw).
    size : int or tuple of int
        Shape of the noise.
    rng : numpy.random.Generator
        Source of the noise.

    Returns
    -------
    ndarray of int64
        The noise.
    """
    return geometric(rate, size, rng) - geometric(rate, size, rng)
