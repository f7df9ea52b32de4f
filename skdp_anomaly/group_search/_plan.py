"""The default budget of :class:`NoisyGroupSearch`: Proposition 3's query count.

Public quantities only (n, ε, t_ℓ, t_h, the target error δ): nothing here
reads a score. Pure Python, so the budget validator can price a search
without importing numpy's posterior or dask.
"""

from __future__ import annotations

import math

from ._sensors import binarized_error, flip_probability

__all__ = ["PLAN_ITEMS", "answer_error", "noiseless_queries", "proposition3_queries"]

#: The largest number of items the default plan covers (about 10^9): ``privacy_cost()``
#: is stated before ``n`` is known, so it prices Proposition 3's count at this n; a
#: search over more items keeps that cap.
PLAN_ITEMS = 2 ** 30


def answer_error(response: str, epsilon: float, low: float, high: float) -> float:
    """The error ``p`` of one answer: eq. (24) for noisy maxima, ``1/(1+e^ε)`` for a bit."""
    if response == "bit":
        return flip_probability(epsilon)
    return binarized_error(epsilon, low, high)


def noiseless_queries(n: int, epsilon: float, delta: float) -> float:
    """The numerator of eq. (26) in bits: ``log₂(n+1) + log₂(1/δ) + ε``."""
    return math.log2(n + 1) + math.log2(1.0 / delta) + epsilon


def proposition3_queries(n: int, epsilon: float, p: float, delta: float) -> float:
    """Bound (26) on the expected queries, read in bits (Burnashev–Zigangirov).

    ``(log₂(n+1) + log₂(1/δ) + ε) / (1 − h₂(p))``; ``inf`` when ``p >= 1/2``
    (an answer carries no information).
    """
    if not p < 0.5:
        return math.inf
    capacity = 1.0 + p * math.log2(p) + (1.0 - p) * math.log2(1.0 - p) if p > 0 else 1.0
    if capacity <= 0:
        return math.inf
    return noiseless_queries(n, epsilon, delta) / capacity
