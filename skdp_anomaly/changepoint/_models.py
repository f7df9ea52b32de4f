"""What the offline rank tests look at: the series model and its channels.

**Models.** ``"level"`` tests the series ``x``; ``"increments"`` tests ``d_t = x_{t+1} - x_t``
(random walks, trends: a change of slope in ``x`` is a change of level in ``d``); ``"auto"`` picks
one from the noisy turning-point count (:func:`choose_model`).

**Channels.** A model of order ``j`` tests, on each segment alone, the *level* channel ``z = Δ^j x``
(level or slope changes) and the *spread* channel ``|Δz|`` (both directions). Replacing one value of
``x`` changes ``j + 1`` values of ``z`` and ``j + 2`` of ``|Δz|``, each moving the rank statistics
of :mod:`._binseg` by at most 1: sensitivities ``j + 1`` and ``j + 2`` under replace-one neighbours;
segments stay disjoint in ``x`` (parallel composition).

**Nulls.** A stationary Gaussian AR(1) ``z`` (ranks only: any monotone transform has the
same law), and its ``|Δz|``; conservative for over-differenced series.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._dependence import RHO_FLOOR, p_lower_bound, rho_from_turning_rate, round_up_rho

SERIES = ("auto", "level", "increments")

#: ``"auto"`` tests levels only when the bound ``φ⁺`` on the series' AR(1) ``φ`` is
#: at most this (rate >= 0.54: a random walk rarely passes for levels, and an AR(1)
#: with ``φ <= 0.5`` keeps its level test); above it, increments.
LEVEL_MAX_RHO = 0.75


@dataclass(frozen=True)
class SeriesModel:
    """The model the tests hold under: ``order`` differences, AR(1) ``rho`` of the tested
    series (``inf``: too persistent for any calibrated test)."""

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
        (spread) or ``x[i:i + order + 1]``, so a change at split ``k`` of the channel is a
        change at index ``k`` of the segment."""
        z = np.diff(x, n=order) if order else x
        return np.abs(np.diff(z)) if self.spread else z


def channels(order: int) -> tuple[Channel, Channel]:
    """The level (or slope) channel and the spread channel of a model of ``order``."""
    return (
        Channel("slope" if order else "level", order + 1, False),
        Channel("spread", order + 2, True),
    )


def choose_model(
    series: str,
    noisy_count: int,
    n: int,
    mechanism,
    floor: float | None = None,
    z: float | None = None,
) -> SeriesModel:
    """The model and its null from the released turning-point count (post-processing).

    The rate (lag 1, which lost least on simulated nulls and alternatives), lowered by ``z``
    standard deviations, bounds the levels' AR(1) ``φ⁺`` (never below ``floor``) and the
    increments' lag-1 correlation ``r⁺ = sin(π (1/2 - p_low))`` (the rate is ``1/2 - arcsin(r)/π``
    for Gaussian increments); ``"auto"`` takes levels when ``φ⁺ <=`` :data:`LEVEL_MAX_RHO`.
    """
    floor = RHO_FLOOR if floor is None else floor
    p_low = p_lower_bound(noisy_count, n, mechanism, z)
    phi = round_up_rho(max(rho_from_turning_rate(p_low), floor))
    if series == "level" or (series == "auto" and phi <= LEVEL_MAX_RHO):
        return SeriesModel("level", 0, phi)
    psi = math.sin(math.pi * (0.5 - min(max(p_low, 0.0), 0.5 + 1.0 / 6.0)))
    return SeriesModel("increments", 1, round_up_rho(psi))


def public_model(series: str, rho: float) -> SeriesModel:
    """The model of a forced ``series`` with a public ``rho`` (no release)."""
    name, order = ("increments", 1) if series == "increments" else ("level", 0)
    return SeriesModel(name, order, rho)
