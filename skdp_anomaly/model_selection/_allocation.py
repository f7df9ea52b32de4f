"""Splitting a search's total ε, and the public rule that says when a search pays.

The search runs only where its noise terms are at most :data:`NEGLIGIBLE`, a rule that reads public
quantities only; both are argued in :ref:`proofs-private-search` ("Total ε").
"""

from __future__ import annotations

from typing import NamedTuple

#: a noise term below this is taken to cost nothing a test set can resolve
NEGLIGIBLE = 1e-3


class Split(NamedTuple):
    """ε of one candidate fit and of the choice, in the report's units."""

    run_epsilon: float
    selection_epsilon: float


def split_total(
    total: float, rule: str, refit: bool, n_candidates: int, memberships: float
) -> Split:
    """Split ``total`` between the candidates' fits, the choice and the refit.

    >>> from skdp_anomaly.model_selection._allocation import split_total
    >>> split_total(3.0, "repeated", False, 5, 4)
    Split(run_epsilon=1.0, selection_epsilon=2.0)
    >>> split_total(7.0, "holdout-noisy-max", True, 5, 4)
    Split(run_epsilon=1.0, selection_epsilon=1.0)
    """
    if rule == "repeated":
        run = total / (3 + refit)
        return Split(run, 2 * run)
    fits = n_candidates if rule == "holdout-noisy-max" else memberships * n_candidates
    run = total / (fits + 1 + refit)
    return Split(run, run)


def search_pays(
    n_train: int, n_validation: int, n_features: int, n_classes: int, run_epsilon: float
) -> bool:
    """Whether ``p/(n_train·ε_c)`` and ``1/(n_val·ε_c)`` are both at most :data:`NEGLIGIBLE`.

    ``p = (d + 1)`` coefficients for two classes, ``K·(d + 1)`` for K ≥ 3.

    >>> from skdp_anomaly.model_selection._allocation import search_pays
    >>> search_pays(320, 80, 30, 2, 2 / 3)  # breast cancer at T = 2: no
    False
    >>> search_pays(800_000, 200_000, 10, 2, 1.0)
    True
    """
    p = (n_features + 1) * (1 if n_classes <= 2 else n_classes)
    model_term = p / (n_train * run_epsilon)
    score_term = 1.0 / (n_validation * run_epsilon)
    return max(model_term, score_term) <= NEGLIGIBLE
