"""What the offline rank tests look at: the series model and its channels.

**Models.** ``"level"`` tests the series ``x`` itself (a level-stationary
series, possibly autocorrelated); ``"increments"`` tests its increments
``d_t = x_{t+1} - x_t`` (a random walk, a trending or an integrated series:
a change of slope in ``x`` is a change of level in ``d``). ``"auto"`` picks
one from the noisy turning-point count (:func:`choose_model`), which reads
the signs of the increments only: the turning-point rate ``p`` is
``1/2 - arcsin(r)/π`` for increments with lag-1 correlation ``r``
(Gaussian), ``2/3`` for i.i.d. values (``r = -1/2``), ``1/2`` for a random
walk (``r = 0``). A level-stationary AR(1) series with ``φ`` has
``r = -(1 - φ)/2``.

**Channels.** A model of order ``j`` (0 for levels, 1 for increments) tests
two series built from each segment ``x[a:b]`` alone:

* the *level* channel ``z = Δ^j x`` (``"level"`` changes for ``j = 0``,
  ``"slope"`` changes for ``j = 1``), direction as asked;
* the *spread* channel ``|Δz|``, the absolute increments of ``z`` (a change
  of spread moves their level; a level shift of ``z`` is one large value of
  ``|Δz|``, which ranks barely see), both directions.

Replacing one value of ``x`` changes ``j + 1`` values of ``z`` and ``j + 2``
of ``|Δz|``; each value moves the rank statistics of :mod:`._binseg` by at
most 1, so the channels' sensitivities are ``j + 1`` and ``j + 2`` under
replace-one neighbours of ``x``. A segment's channels read only the
segment, so the segments of one level stay disjoint in ``x`` (parallel
composition).

**Nulls.** The level channel of a model is calibrated under a stationary
Gaussian AR(1) ``z`` with lag-1 correlation ``ρ`` (ranks only: any
monotone transform has the same law); the spread channel under ``|Δz|`` of
the same ``z``. Over-differenced series (a trend plus stationary noise,
tested as increments) have ``r < 0``: their rank sums vary less than under
``ρ = 0``, so the i.i.d. calibration is conservative for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._dependence import MAX_RHO, RHO_FLOOR, RHO_STEP, p_lower_bound, rho_from_turning_rate

__all__ = ["LEVEL_MAX_RHO", "SERIES", "Channel", "SeriesModel", "channels", "choose_model",
           "public_model"]

SERIES = ("auto", "level", "increments")

#: ``"auto"`` tests levels only when the bound on the AR(1) ``φ`` of the series is at
#: most this; above it the series is tested as increments. A random walk's
#: turning-point rate is 1/2 with sampling sd ``1/(2 sqrt(n))``: at ``φ⁺ <= 0.75``
#: (rate >= 0.54) a random walk of 300 points passes for levels in about 3 % of
#: fits, and a level-stationary AR(1) with ``φ <= 0.5`` keeps its level test.
LEVEL_MAX_RHO = 0.75


@dataclass(frozen=True)
class SeriesModel:
    """The model the tests hold under: ``order`` differences, AR(1) ``rho`` of the
    tested series (``inf``: too persistent for any calibrated test)."""

    name: str
    order: int
    rho: float


@dataclass(frozen=True)
class Channel:
    """One tested series of a model: its kind, sensitivity and direction."""

    kind: str
    sensitivity: int
    spread: bool

    def values(self, x: np.ndarray, order: int) -> np.ndarray:
        """The channel of the segment ``x``: its value ``i`` reads ``x[i:i + order + 2]``
        (spread) or ``x[i:i + order + 1]``, so a change at split ``k`` of the
        channel is a change at index ``k`` of the segment."""
        z = np.diff(x, n=order) if order else x
        return np.abs(np.diff(z)) if self.spread else z


def channels(order: int) -> tuple[Channel, Channel]:
    """The level (or slope) channel and the spread channel of a model of ``order``."""
    return (Channel("slope" if order else "level", order + 1, False),
            Channel("spread", order + 2, True))


def _round_up(rho: float) -> float:
    rho = math.ceil(max(rho, 0.0) / RHO_STEP - 1e-9) * RHO_STEP
    return math.inf if rho > MAX_RHO + 1e-9 else round(rho, 2)


def choose_model(series: str, noisy_count: int, n: int, mechanism, floor: float | None = None,
                 z: float | None = None) -> SeriesModel:
    """The model and its null from the released turning-point count (post-processing).

    The count is taken at lag 1: lag 3 separates a random walk from ``φ = 0.5``
    better, but a drift lowers the rate more there and a monthly season (lag 3
    a quarter of its period) reads as a random walk; measured on simulated
    nulls and alternatives, lag 1 loses least.

    ``p_low`` (the noisy rate lowered by ``z`` standard deviations of its
    sampling and privacy noise) bounds the level's AR(1) ``φ`` (``φ⁺ =``
    :func:`rho_from_turning_rate`, never below ``floor``) and the increments'
    lag-1 correlation (``r⁺ = sin(π (1/2 - p_low))``, never below 0). ``"auto"``
    takes levels when ``φ⁺ <=`` :data:`LEVEL_MAX_RHO`, increments otherwise.
    """
    floor = RHO_FLOOR if floor is None else floor
    p_low = p_lower_bound(noisy_count, n, mechanism, z)
    phi = _round_up(max(rho_from_turning_rate(p_low), floor))
    if series == "level" or (series == "auto" and phi <= LEVEL_MAX_RHO):
        return SeriesModel("level", 0, phi)
    # the lag-1 correlation of Gaussian increments with sign-change rate p
    psi = math.sin(math.pi * (0.5 - min(max(p_low, 0.0), 0.5 + 1.0 / 6.0)))
    return SeriesModel("increments", 1, _round_up(psi))


def public_model(series: str, rho: float) -> SeriesModel:
    """The model of a forced ``series`` with a public ``rho`` (no release)."""
    return SeriesModel("increments", 1, rho) if series == "increments" else SeriesModel(
        "level", 0, rho)
