"""Private point selection (Ghassemi et al. 2016, §3.1): the slab and its calibration.

The selection runs in ``_kernel.py``; the mechanisms here state its cost.
"""

from __future__ import annotations

import math

from scipy.optimize import brentq

from ..privacy import BernoulliSelection, ExponentialSelection

#: The paper's Bernoulli threshold τ = e^{-0.2} on unit-ball data: a slab of
#: half-width 0.2 · M (§5).
BERNOULLI_SLAB_SHARE = 0.2


def calibrated_slab(epsilon: float, data_norm: float) -> float:
    """The smallest slab ``b`` whose exponential selection costs exactly ``epsilon``.

    The corrected cost (:class:`~skdp_anomaly.privacy.ExponentialSelection`)
    includes the "not selected" outcome that Lemma 2 omits; it decreases in ``b``.

    ``data_norm`` is ``M``, the bound on a point's distance to the boundary.

    >>> from skdp_anomaly.active_learning._selection import calibrated_slab
    >>> round(calibrated_slab(1.0, 1.0), 4)
    0.2385
    """

    def not_selected_excess(b: float) -> float:
        # the "not selected" log-ratio minus ε; decreasing in b, > 0 as b -> 0
        delta = data_norm - b
        q_max = math.exp(-b * epsilon / delta)
        q_min = math.exp(-data_norm * epsilon / delta)
        return math.log((1.0 - q_min) / (1.0 - q_max)) - epsilon

    low, high = 1e-9 * data_norm, data_norm * (1 - 1e-9)
    if not_selected_excess(low) <= 0:  # large ε: even a vanishing slab costs only ε
        return low
    b = brentq(not_selected_excess, low, high, xtol=1e-14 * data_norm)
    # round up so that floating point never leaves the cost a hair above ε
    while ExponentialSelection(epsilon, b, data_norm).cost.epsilon > epsilon:
        b = math.nextafter(b, data_norm)
    return b


def selection_mechanism(kind: str, epsilon: float, slab: float, data_norm: float):
    """The selection mechanism (its ``cost`` is the selection's privacy cost)."""
    if kind == "bernoulli":
        return BernoulliSelection(epsilon)
    return ExponentialSelection(epsilon, slab, data_norm)
