"""Composition helpers shared by the budget validator's walkers."""

from __future__ import annotations

import math
from dataclasses import replace

from ..privacy import PrivacyCost, compose_sequential

__all__ = ["_join", "_repeat", "_total", "_worst"]


def _repeat(cost: PrivacyCost, times: float) -> PrivacyCost:
    """``times``-fold sequential composition; ``times`` may be ``inf``."""
    if times == 0 or (cost.epsilon == 0 and cost.delta == 0 and cost.gamma == 0):
        return PrivacyCost.zero().under(cost.neighbours) if times == 0 else cost
    if math.isinf(times):
        return replace(
            cost,
            epsilon=math.inf,
            delta=1.0 if cost.delta > 0 else 0.0,
            gamma=1.0 if cost.gamma > 0 else 0.0,
        )
    return cost.scale(int(times))


def _worst(costs, neighbours: str) -> PrivacyCost:
    """Component-wise maximum: a bound on whichever of ``costs`` actually runs."""
    costs = [c.under(neighbours) for c in costs]
    if not costs:
        return PrivacyCost.zero().under(neighbours)
    notes = tuple(dict.fromkeys(n for c in costs for n in c.notes))
    return PrivacyCost(
        max(c.epsilon for c in costs),
        delta=max(c.delta for c in costs),
        gamma=max(c.gamma for c in costs),
        anomaly_restricted=any(c.anomaly_restricted for c in costs),
        notes=notes,
        neighbours=neighbours,
    )


def _join(path: str, name: str) -> str:
    return f"{path}__{name}" if path else name


def _total(rows, neighbours: str) -> PrivacyCost:
    return compose_sequential([r.cost for r in rows if not r.leak], neighbours=neighbours)
