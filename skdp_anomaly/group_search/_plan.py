"""The plan of :class:`NoisyGroupSearch`: how a total ε is split over queries.
Public quantities only (n, ε, t_ℓ, t_h, δ); pure Python, so the budget validator
can price a search without importing numpy's posterior or dask.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ._sensors import binarized_error, flip_probability

#: The per-query ε the plan considers: a fixed log-grid (deterministic, data-free).
GRID_SIZE, GRID_LOW, GRID_HIGH = 400, 1e-3, 30.0
# floor(ε / ε_q) with this relative slack: 0.3 / 0.1 is 2.9999999999999996
_FLOOR_SLACK = 1e-12


class QueryPlan(NamedTuple):
    """What a search of ``n`` items may do within ``epsilon``."""

    #: the anomaly-restricted ε of one query
    query_epsilon: float
    #: the most queries it may make (``queries · query_epsilon <= epsilon`` in floats)
    queries: int
    #: Proposition 3's expected queries at ``query_epsilon`` (bits, eq. 26)
    proposition3: float
    #: a total whose plan reaches Proposition 3's count (what the warning suggests) ...
    sufficient_epsilon: float
    #: ... and the queries it plans
    sufficient_queries: float


def answer_error(response: str, epsilon: float, low: float, high: float) -> float:
    """The error ``p`` of one answer: eq. (24) for noisy maxima, ``1/(1+e^ε)`` for a bit."""
    if response == "bit":
        return flip_probability(epsilon)
    return binarized_error(epsilon, low, high)


def noiseless_queries(n: int, epsilon: float, delta: float) -> float:
    """The numerator of eq. (26) in bits: ``log₂(n+1) + log₂(1/δ) + ε``."""
    return math.log2(n + 1) + math.log2(1.0 / delta) + epsilon


def proposition3_queries(n: int, epsilon: float, p: float, delta: float) -> float:
    """Bound (26) on the expected queries, read in bits (Burnashev–Zigangirov):
    ``(log₂(n+1) + log₂(1/δ) + ε) / (1 − h₂(p))``; ``inf`` when ``p >= 1/2`` (no information)."""
    if not p < 0.5:
        return math.inf
    capacity = 1.0 + p * math.log2(p) + (1.0 - p) * math.log2(1.0 - p) if p > 0 else 1.0
    if capacity <= 0:
        return math.inf
    return noiseless_queries(n, epsilon, delta) / capacity


def _total(n: int, eps: float, response: str, low: float, high: float, delta: float) -> float:
    """``f(ε) = ε · (26)``: the total ε Proposition 3 expects a search at ε per query to spend."""
    return eps * proposition3_queries(n, eps, answer_error(response, eps, low, high), delta)


def cheapest_query_epsilon(n: int, response: str, low: float, high: float, delta: float) -> float:
    """``e*``: the per-query ε that buys Proposition 3's bits most cheaply, ``argmin f`` over
    :data:`GRID_SIZE` log-spaced points of ``[1e-3, 30]`` (the first on a tie)."""
    ratio = GRID_HIGH / GRID_LOW
    grid = [GRID_LOW * ratio ** (i / (GRID_SIZE - 1)) for i in range(GRID_SIZE)]
    return min(grid, key=lambda e: _total(n, e, response, low, high, delta))


def plan_queries(
    n: int,
    epsilon: float,
    response: str,
    low: float,
    high: float,
    delta: float,
    max_queries: int,
    query_epsilon: float | None = None,
    min_query_epsilon: float = 0.0,
) -> QueryPlan:
    """Split the total ``epsilon`` over the queries of a search of ``n`` items.

    Given ``query_epsilon`` every query costs it. Otherwise ``min(e*, epsilon / K0)`` (at least
    ``min_query_epsilon``), with ``e*`` of :func:`cheapest_query_epsilon` and ``K0`` the queries a
    noiseless bisection needs: a large total buys slack at the cheapest ε, a small one still affords
    ``K0`` queries. The queries, ``min(max_queries, floor(epsilon / query_epsilon))``, never sum
    above ``epsilon`` in floating point.

    Examples
    --------
    >>> from skdp_anomaly.group_search._plan import plan_queries
    >>> plan = plan_queries(1000, 10.0, "maxima", 1.0, 2.5, 0.05, 10_000)
    >>> plan.queries, round(plan.query_epsilon, 4)
    (15, 0.6667)
    >>> plan_queries(1000, 0.3, "bit", 1.0, 2.0, 0.05, 10_000, query_epsilon=0.1).queries
    2
    """
    best = query_epsilon
    if query_epsilon is None:
        best = cheapest_query_epsilon(n, response, low, high, delta)
        bits = noiseless_queries(n, 0.0, delta)
        noiseless = math.ceil(noiseless_queries(n, min(best, epsilon / math.ceil(bits)), delta))
        query_epsilon = max(min(best, epsilon / noiseless), min_query_epsilon)
        queries = min(max_queries, math.floor(epsilon / query_epsilon * (1 + _FLOOR_SLACK)))
        while queries * query_epsilon > epsilon:  # one ulp of rounding: shave ε, keep queries
            query_epsilon = math.nextafter(query_epsilon, 0.0)
    else:
        queries = min(max_queries, math.floor(epsilon / query_epsilon * (1 + _FLOOR_SLACK)))
        while queries * query_epsilon > epsilon:  # the user's ε is fixed: drop the query
            queries -= 1
    p3 = proposition3_queries(
        n, query_epsilon, answer_error(response, query_epsilon, low, high), delta
    )
    # the total whose plan reaches Proposition 3's count: at e* when the search derives
    # its per-query ε (epsilon / K0 >= e* there, as (26) >= K0), else at the user's
    at_best = proposition3_queries(n, best, answer_error(response, best, low, high), delta)
    needed = math.ceil(at_best) if math.isfinite(at_best) else math.inf
    return QueryPlan(float(query_epsilon), int(queries), p3, best * needed, needed)
