"""Real values released on a power-of-two grid with integer noise.

A value rounded to a multiple of a power of two ``g``, given exact integer noise in units of ``g``
and multiplied back by ``g`` (all exact) shows nothing in its bits beyond the noisy integer, unlike
``x + rng.laplace(0, b)`` (Mironov 2012); the argument is in :ref:`randomness-and-floats`.
"""

from __future__ import annotations

import math

import numpy as np

#: the grid is at least ``2**GRID_BITS`` times finer than the sensitivity per coordinate
GRID_BITS = 20
#: integers beyond this magnitude are clamped (a 1-Lipschitz map: no extra sensitivity);
#: below ``2**53`` every integer times ``g`` is an exact double
MAX_STEPS = 2**52


def grid_for(sensitivity: float, coordinates: int = 1) -> float:
    """The grid spacing ``g``: the largest power of two with ``c·g <= Δ·2**-GRID_BITS``.

    ``Δ`` is the query's L1 ``sensitivity``, ``c`` the most ``coordinates`` one
    neighbouring change can move (each may gain one grid step from rounding).

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
