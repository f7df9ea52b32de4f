"""Composition helpers shared by the budget validator's walkers."""

from __future__ import annotations

import math
from dataclasses import replace

from ..privacy import PrivacyCost, compose_sequential


def _repeat(cost: PrivacyCost, times: float) -> PrivacyCost:
    """``times``-fold sequential composition; ``times`` may be ``inf``."""
    if times == 0 or (cost.epsilon == 0 and cost.delta == 0 and cost.gamma == 0):
        return PrivacyCost.zero().under(cost.neighbours) if times == 0 else cost
    if math.isinf(times):
        return replace(
            cost, epsilon=math.inf, delta=float(cost.delta > 0), gamma=float(cost.gamma > 0)
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


def _group_fits(weighted_rows, members: float) -> dict:
    """``{(path, leak): [estimator, note, costs]}`` of ``(rows, multiplicity)`` fits, each row
    repeated ``members × multiplicity`` times: rows per path that still add up to the total."""
    groups: dict = {}
    for rows, mult in weighted_rows:
        for r in rows:
            entry = groups.setdefault((r.path, r.leak), [r.estimator, r.note, []])
            entry[2].append(_repeat(r.cost, members * mult))
    return groups
